"""`judgebench run --batch`: the provider batch API path (batch.py) through the real CLI,
against the local fake server's /v1/files and /v1/batches endpoints (no network)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import sci_row, write_jsonl
from openai_server import Behaviour, FakeOpenAIServer

from judgebench.cli.main import main
from judgebench.judges.llm import LiteLLMJudge

SECRET = "sk-PLANTED-BATCH-SECRET-789"
HEADER_SECRET = "HDR-BATCH-SECRET-321"
N_ROWS = 6  # x2 orders = 12 judge calls


def data_file(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "pairs.jsonl", [sci_row(i, vote="AB"[i % 2]) for i in range(N_ROWS)])


def run(
    server: FakeOpenAIServer, tmp_path: Path, out: str, *extra: str, cache: str = "cache", judge: str = "openai/judge-x"
) -> int:
    args = [
        "run", "--tasks", "sciarena_eval", "--judge", judge,
        "--dataset-path", str(data_file(tmp_path)), "--output-path", str(tmp_path / out),
        "--cache-dir", str(tmp_path / cache), "--max-retries", "2", "--timeout", "10", "--quiet",
    ]
    if not judge.startswith("builtin/"):
        args[5:5] = ["--judge-args", f"api_base={server.api_base},api_key={SECRET},extra_headers.X-Team-Token={HEADER_SECRET}"]
    return main([*args, *extra])


def samples(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines() if line.strip()]


def results(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "results.json").read_text())


COMPARED = ("example_id", "dimension", "order", "prompt_hash", "status", "raw", "verdict", "tokens_in", "tokens_out", "cost_usd", "error")


@pytest.mark.slow
def test_batch_matches_normal_path_then_rerun_is_all_cached(tmp_path: Path) -> None:
    with FakeOpenAIServer(Behaviour(answer="@hash", batch_delay_s=0.1), watch_secrets=[SECRET]) as server:
        assert run(server, tmp_path, "online", cache="cache-online") == 0
        online_calls = server.stats().total
        assert online_calls == 2 * N_ROWS
        server.reset()
        assert run(server, tmp_path, "batch", "--batch", "--batch-poll-s", "0.02") == 0
        stats = server.stats()
        assert stats.total == 2 * N_ROWS  # each batch line logged once
        assert stats.duplicate_answers() == 0 and stats.leaks == []
        assert len(server._app.batches) == 1  # type: ignore[union-attr]
        server.reset()
        assert run(server, tmp_path, "again", "--batch", "--batch-poll-s", "0.02") == 0
        assert server.stats().total == 0  # all cached: nothing uploaded or sent
        assert len(server._app.batches) == 1  # type: ignore[union-attr]
    online, batch, again = samples(tmp_path / "online"), samples(tmp_path / "batch"), samples(tmp_path / "again")
    assert len(online) == len(batch) == 2 * N_ROWS
    assert [{k: r[k] for k in COMPARED} for r in batch] == [{k: r[k] for k in COMPARED} for r in online]
    assert all(r["status"] == "ANSWERED" and not r["cached"] for r in batch)
    assert all(r["cached"] for r in again)
    assert [r["raw"] for r in again] == [r["raw"] for r in batch]
    metrics = {
        name: {dim: {m: v["value"] for m, v in ms.items()} for dim, ms in results(tmp_path / name)["metrics"].items()}
        for name in ("online", "batch", "again")
    }
    assert metrics["batch"] == metrics["online"] == metrics["again"]
    counts = results(tmp_path / "batch")["counts"]
    assert counts["answered"] == 2 * N_ROWS and counts["failed"] == 0
    for path in (p for p in tmp_path.rglob("*") if p.is_file()):
        blob = path.read_bytes()
        assert SECRET.encode() not in blob and HEADER_SECRET.encode() not in blob, path


@pytest.mark.slow
def test_batch_line_error_is_failed_and_malformed_is_invalid(tmp_path: Path) -> None:
    def action(messages: list[dict[str, Any]]) -> int | str | None:
        text = messages[-1]["content"]
        if "Question 1 " in text:
            return 500
        if "Question 2 " in text:
            return "malformed"
        return None

    with FakeOpenAIServer(Behaviour(answer="@hash", action_fn=action, batch_delay_s=0.05)) as server:
        assert run(server, tmp_path, "batch", "--batch", "--batch-poll-s", "0.02") == 0
        assert len(server._app.batches) == 1  # type: ignore[union-attr]  # no re-ask batch
        failed = [r for r in samples(tmp_path / "batch") if r["status"] == "FAILED"]
        invalid = [r for r in samples(tmp_path / "batch") if r["status"] == "INVALID"]
        assert {r["example_id"] for r in failed} == {"q1"} and len(failed) == 2
        assert all("HTTP 500" in r["error"] and "fake error 500" in r["error"] for r in failed)
        assert {r["example_id"] for r in invalid} == {"q2"} and len(invalid) == 2
        assert all(r["earlier_raw"] == [] for r in invalid)
        counts = results(tmp_path / "batch")["counts"]
        assert counts["failed"] == 2 and counts["invalid"] == 2 and counts["answered"] == 2 * N_ROWS - 4
        # the rerun sends only the failed calls (failed replies are never cached)
        server.reset()
        server.set_behaviour(Behaviour(answer="@hash", batch_delay_s=0.05))
        assert run(server, tmp_path, "rerun", "--batch", "--batch-poll-s", "0.02") == 0
        assert server.stats().total == 2
    assert results(tmp_path / "rerun")["counts"]["failed"] == 0


@pytest.mark.slow
def test_expired_batch_marks_its_unanswered_calls_failed(tmp_path: Path) -> None:
    behaviour = Behaviour(answer="[[A]]", batch_delay_s=0.05, batch_status="expired", batch_answer_limit=4)
    with FakeOpenAIServer(behaviour) as server:
        assert run(server, tmp_path, "batch", "--batch", "--batch-poll-s", "0.02") == 0
    rows = samples(tmp_path / "batch")
    failed = [r for r in rows if r["status"] == "FAILED"]
    assert len(failed) == 2 * N_ROWS - 4
    assert all("ended expired" in r["error"] for r in failed)
    assert sum(r["status"] == "ANSWERED" for r in rows) == 4  # the answers an expired batch still returned


def test_a_batch_file_is_downloaded_once_and_no_coroutine_is_left_unawaited(tmp_path: Path) -> None:
    """litellm's success logging of a retrieve that finds the batch completed downloaded its output file again, to
    price it, in a task the run's end cancelled: "RuntimeWarning: coroutine 'OpenAIFilesAPI.afile_content' was never
    awaited" (or a second download). The retrieve asks litellm to skip that logging: each file is downloaded once."""
    import gc
    import warnings

    def action(messages: list[dict[str, Any]]) -> int | None:
        return 500 if "Question 1 " in messages[-1]["content"] else None

    with warnings.catch_warnings(record=True) as caught, FakeOpenAIServer(
            Behaviour(answer="@hash", action_fn=action, batch_delay_s=0.05)) as server:
        warnings.simplefilter("always")
        assert run(server, tmp_path, "batch", "--batch", "--batch-poll-s", "0.02") == 0
        gc.collect()
        downloads = dict(server._app.file_downloads)  # type: ignore[union-attr]
    batch = server._app.batches["batch_1"]  # type: ignore[union-attr]
    assert downloads == {batch["output_file_id"]: 1, batch["error_file_id"]: 1}, downloads
    assert not [w for w in caught if "never awaited" in str(w.message)], [str(w.message) for w in caught]


def test_batch_with_builtin_judge_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(None, tmp_path, "out", "--batch", judge="builtin/longer") == 2  # type: ignore[arg-type]
    err = capsys.readouterr().err.strip()
    assert err.startswith("judgebench: error: --batch") and "\n" not in err
    assert not (tmp_path / "out" / "results.json").exists()


@pytest.mark.slow  # measured over 1.5 s in the fast selection
def test_batch_with_unsupported_provider_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main([
        "run", "--tasks", "sciarena_eval", "--judge", "ollama_chat/llama3", "--dataset-path", str(data_file(tmp_path)),
        "--output-path", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache"), "--quiet", "--batch",
    ])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert "--batch" in err and "ollama_chat" in err and "\n" not in err


def test_batch_auth_error_stops_at_once_without_retries(tmp_path: Path) -> None:
    from openai_server import judge_request, verdict_parses

    from judgebench.calls import RunnerOptions, run_requests

    with FakeOpenAIServer(Behaviour(api_status=401)) as server:
        judge = LiteLLMJudge("openai/judge-x", {"api_base": server.api_base, "api_key": "sk-t"})
        options = RunnerOptions(batch=True, batch_poll_s=0.01, max_retries=4, backoff_base_s=0.01, cache_dir=tmp_path, progress=False)
        out = run_requests([judge_request(i) for i in range(5)], judge, options, verdict_parses)
        log = server.stats().requests
    assert out.stopped is not None and "authentication failed" in out.stopped
    assert [r.outcome for r in log] == ["error:401"]  # the upload, once: not retried
    assert all(r is None for r in out.replies) and out.calls_made == 0


def test_batch_refuses_concurrency_and_rate_limits_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
        assert run(server, tmp_path, "batch", "--batch", "--concurrency", "8") == 2
        err = capsys.readouterr().err
        assert "--batch: --concurrency cannot apply" in err and "Traceback" not in err
        assert run(server, tmp_path, "batch", "--batch", "--rpm", "60", "--max-failures", "3") == 2
        assert "--batch: --rpm, --max-failures cannot apply" in capsys.readouterr().err
        # a batch is answered once: --reask was taken, recorded in the configuration and its hash, and did nothing
        assert run(server, tmp_path, "batch", "--batch", "--reask", "2") == 2
        assert "--batch: --reask cannot apply" in capsys.readouterr().err
        assert server.stats().total == 0
        assert run(server, tmp_path, "batch", "--batch", "--concurrency", "16", "--batch-poll-s", "0.02") == 0


def batch_process(server: FakeOpenAIServer, tmp_path: Path, out: str, *extra: str, cache: str = "cache") -> Any:
    """`judgebench run --batch` started in a subprocess (subprocess.Popen, stdout and stderr piped as text)."""
    import os
    import subprocess
    import sys

    import judgebench

    src = str(Path(judgebench.__file__).parents[1])
    return subprocess.Popen(
        [sys.executable, "-m", "judgebench", "run", "--tasks", "sciarena_eval", "--judge", "openai/judge-x",
         "--judge-args", f"api_base={server.api_base},api_key={SECRET},extra_headers.X-Team-Token={HEADER_SECRET}",
         "--dataset-path", str(data_file(tmp_path)), "--output-path", str(tmp_path / out), "--cache-dir",
         str(tmp_path / cache), "--batch", "--batch-poll-s", "0.05", "--quiet", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": src},
    )


def stopped_batch_run(
    server: FakeOpenAIServer, tmp_path: Path, out: str, *extra: str, cache: str = "cache", new_batch: bool = True,
    downloading: bool = False,
) -> str:
    """batch_process SIGTERM'd once its batch is created (`new_batch=False`: once it polls a batch; the server's
    batch delay must outlast it; `downloading`: once it downloads a file, the server's file content delay must
    outlast it): its stderr."""
    import signal
    import time

    app = server._app
    assert app is not None

    def seen() -> int:
        if downloading:
            return sum(app.file_downloads.values())
        return len(app.batches) if new_batch else app.batch_polls

    before = seen()
    proc = batch_process(server, tmp_path, out, *extra, cache=cache)
    try:
        deadline = time.monotonic() + 60
        while seen() == before and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, err
    return err


def batch_records(cache: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted((cache / "batches").glob("*.json"))]


def uploads(server: FakeOpenAIServer) -> int:
    return sum(info["purpose"] == "batch" for info, _ in server._app.files.values())  # type: ignore[union-attr]


def test_a_stopped_batch_run_says_its_batch_keeps_running(tmp_path: Path) -> None:
    """SIGTERM while a batch is in progress: the run stops with partial results, says the batch keeps running at the
    provider and that a rerun collects it; its requests are FAILED in_flight (sent), not not_attempted; the batch is
    recorded in the cache folder without a secret."""
    with FakeOpenAIServer(Behaviour(answer="@hash", batch_delay_s=60)) as server:
        err = stopped_batch_run(server, tmp_path, "out")
    assert (f"interrupted (SIGTERM): {2 * N_ROWS} requests sent in a batch; batch batch_1 keeps running at the "
            "provider (recorded in the cache): a rerun collects its answers instead of submitting them again") in err, err
    assert "submits them again" not in err.replace("instead of submitting", "") and "go to the cache" not in err
    assert results(tmp_path / "out")["config"]["partial"] is True
    rows = samples(tmp_path / "out")
    assert len(rows) == 2 * N_ROWS and all(r["status"] == "FAILED" and r["failure"] == "in_flight" for r in rows)
    assert all("batch batch_1 keeps running at the provider" in r["error"] for r in rows)
    counts = results(tmp_path / "out")["counts"]
    assert counts["answered"] + counts["invalid"] + counts["failed"] == counts["calls"] == 2 * N_ROWS
    [record] = batch_records(tmp_path / "cache")
    assert record["batch_id"] == "batch_1" and len(record["requests"]) == 2 * N_ROWS
    assert record["judge"] == "openai/judge-x" and len(record["identity"]) == 64 and record["created"] > 0
    for path in (p for p in (tmp_path / "cache").rglob("*") if p.is_file()):
        assert SECRET.encode() not in path.read_bytes() and HEADER_SECRET.encode() not in path.read_bytes(), path


def test_a_stop_during_the_download_says_the_batch_has_finished(tmp_path: Path) -> None:
    """A stop while an ended batch's results are downloaded said it "keeps running": it has finished at the
    provider, and the rerun downloads its results without new cost (no new batch)."""
    with FakeOpenAIServer(Behaviour(answer="@hash", batch_delay_s=0.05, file_content_delay_s=60)) as server:
        err = stopped_batch_run(server, tmp_path, "stopped", downloading=True)
        assert ("batch batch_1 has finished at the provider (completed), its results not downloaded (recorded in "
                "the cache): a rerun downloads them without new cost") in err, err
        assert "keeps running" not in err, err
        rows = samples(tmp_path / "stopped")
        assert all("batch batch_1 has finished at the provider" in r["error"] for r in rows)
        server.set_behaviour(Behaviour(answer="@hash"))
        assert run(server, tmp_path, "rerun", "--batch", "--batch-poll-s", "0.02") == 0
        assert len(server._app.batches) == 1  # type: ignore[union-attr]
    assert all(r["status"] == "ANSWERED" for r in samples(tmp_path / "rerun"))


@pytest.mark.parametrize(("statuses", "age_s", "said"), [
    (("in_progress", "paused_by_provider"), 0.0, "batch batch_1 reports status 'paused_by_provider', which judgebench "
                                                 "does not know"),
    (("finalizing",), 26 * 3600.0, "batch batch_1 is still finalizing 26.0 h after its creation, over an hour past "
                                   "its 24 h completion window: polling stopped"),
])
def test_a_batch_in_an_unknown_or_overdue_status_is_not_polled_forever(
    tmp_path: Path, statuses: tuple[str, ...], age_s: float, said: str
) -> None:
    """A batch with a status no provider documents, or stuck in "finalizing", was polled forever: the run stops with
    one line naming the batch and its status, and keeps the record (a rerun polls it again)."""
    import subprocess

    with FakeOpenAIServer(Behaviour(answer="@hash", batch_statuses=statuses, batch_age_s=age_s)) as server:
        proc = batch_process(server, tmp_path, "out")
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail("the batch was polled forever")
    assert proc.returncode == 1 and said in err, err
    assert "Traceback" not in err and "batch batch_1 keeps running at the provider (recorded in the cache)" in err
    assert [r["batch_id"] for r in batch_records(tmp_path / "cache")] == ["batch_1"]


@pytest.mark.slow
def test_a_rerun_collects_the_batch_a_stopped_run_left_running(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The rerun submits nothing: one batch and one upload in all, every answer from the first batch, the same
    results as an uninterrupted run, and the record removed once collected. Its summary says the answers were
    collected from the earlier batch at no new cost (it said "0 from cache; 0 calls sent")."""
    with FakeOpenAIServer(Behaviour(answer="@hash", batch_delay_s=0.05)) as reference:
        assert run(reference, tmp_path, "reference", "--batch", "--batch-poll-s", "0.02", cache="cache-ref") == 0
    with FakeOpenAIServer(Behaviour(answer="@hash", batch_delay_s=60)) as server:
        stopped_batch_run(server, tmp_path, "stopped")
        assert server.stats().total == 0  # the batch has answered nothing yet
        server.set_behaviour(Behaviour(answer="@hash", batch_delay_s=0.05))
        capsys.readouterr()
        assert run(server, tmp_path, "rerun", "--batch", "--batch-poll-s", "0.02") == 0
        assert (f"(coverage 1.000; 0 from cache; {2 * N_ROWS} collected from a batch an earlier run submitted (no new "
                "cost); 0 calls sent)") in capsys.readouterr().out
        assert len(server._app.batches) == 1 and uploads(server) == 1  # type: ignore[union-attr]
        assert server.stats().total == 2 * N_ROWS and server.stats().duplicate_answers() == 0
        assert batch_records(tmp_path / "cache") == []
        server.reset()
        assert run(server, tmp_path, "again", "--batch", "--batch-poll-s", "0.02") == 0
        assert server.stats().total == 0 and len(server._app.batches) == 1  # type: ignore[union-attr]
    rerun, reference_rows = samples(tmp_path / "rerun"), samples(tmp_path / "reference")
    assert [{k: r[k] for k in COMPARED} for r in rerun] == [{k: r[k] for k in COMPARED} for r in reference_rows]
    assert all(r["status"] == "ANSWERED" and not r["cached"] for r in rerun)
    assert all(r["cached"] for r in samples(tmp_path / "again"))
    assert results(tmp_path / "rerun")["metrics"] == results(tmp_path / "reference")["metrics"]


@pytest.mark.slow
def test_a_rerun_stopped_while_collecting_keeps_the_record(tmp_path: Path) -> None:
    """A rerun stopped while it polls the recorded batch submits nothing, keeps the record and says so; the next
    rerun collects it."""
    with FakeOpenAIServer(Behaviour(answer="@hash", batch_delay_s=60)) as server:
        stopped_batch_run(server, tmp_path, "stopped")
        err = stopped_batch_run(server, tmp_path, "stopped-again", new_batch=False)
        assert ("interrupted (SIGTERM): no new batch submitted; batch batch_1 keeps running at the provider "
                "(recorded in the cache): a rerun collects its answers") in err, err
        assert len(server._app.batches) == 1 and uploads(server) == 1  # type: ignore[union-attr]
        assert [r["batch_id"] for r in batch_records(tmp_path / "cache")] == ["batch_1"]
        assert all(r["failure"] == "in_flight" for r in samples(tmp_path / "stopped-again"))
        server.set_behaviour(Behaviour(answer="@hash", batch_delay_s=0.05))
        assert run(server, tmp_path, "rerun", "--batch", "--batch-poll-s", "0.02") == 0
        assert len(server._app.batches) == 1 and batch_records(tmp_path / "cache") == []  # type: ignore[union-attr]
    assert all(r["status"] == "ANSWERED" for r in samples(tmp_path / "rerun"))


@pytest.mark.slow
def test_a_smaller_rerun_stores_every_answer_of_the_batch(tmp_path: Path) -> None:
    """A rerun needing part of a recorded batch collects all of it: the answers it does not need are cached too
    (they are paid for), so the full run after it sends nothing."""
    with FakeOpenAIServer(Behaviour(answer="@hash", batch_delay_s=60)) as server:
        stopped_batch_run(server, tmp_path, "stopped")
        server.set_behaviour(Behaviour(answer="@hash", batch_delay_s=0.05))
        assert run(server, tmp_path, "part", "--batch", "--batch-poll-s", "0.02", "--limit", "2") == 0
        assert len(samples(tmp_path / "part")) == 4
        server.reset()
        assert run(server, tmp_path, "full", "--batch", "--batch-poll-s", "0.02") == 0
        assert server.stats().total == 0 and len(server._app.batches) == 1  # type: ignore[union-attr]
    assert all(r["cached"] and r["status"] == "ANSWERED" for r in samples(tmp_path / "full"))
    assert batch_records(tmp_path / "cache") == []


@pytest.mark.slow
def test_a_batch_of_another_judge_configuration_is_not_collected(tmp_path: Path) -> None:
    with FakeOpenAIServer(Behaviour(answer="@hash", batch_delay_s=60)) as server:
        stopped_batch_run(server, tmp_path, "stopped")
        server.set_behaviour(Behaviour(answer="@hash", batch_delay_s=0.05))
        args = f"api_base={server.api_base},api_key={SECRET},extra_headers.X-Team-Token={HEADER_SECRET}"
        other = ["--judge-args", f"{args},temperature=0.5"]
        assert main(["run", "--tasks", "sciarena_eval", "--judge", "openai/judge-x", *other, "--dataset-path",
                     str(data_file(tmp_path)), "--output-path", str(tmp_path / "other"), "--cache-dir",
                     str(tmp_path / "cache"), "--batch", "--batch-poll-s", "0.02", "--quiet"]) == 0
        assert len(server._app.batches) == 2  # type: ignore[union-attr]
        assert [r["batch_id"] for r in batch_records(tmp_path / "cache")] == ["batch_1"]  # left for its own judge
        assert run(server, tmp_path, "same", "--batch", "--batch-poll-s", "0.02") == 0
        assert len(server._app.batches) == 2 and batch_records(tmp_path / "cache") == []  # type: ignore[union-attr]


@pytest.mark.slow
@pytest.mark.parametrize("fate", ["output_gone", "expired"])
def test_a_batch_the_provider_lost_is_dropped_and_resubmitted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fate: str
) -> None:
    with FakeOpenAIServer(Behaviour(answer="@hash", batch_delay_s=60)) as server:
        stopped_batch_run(server, tmp_path, "stopped")
        batches = server._app.batches  # type: ignore[union-attr]
        batches["batch_1"]["status"] = "completed" if fate == "output_gone" else "expired"
        if fate == "output_gone":  # past its retention: the batch is known, its output file no longer
            batches["batch_1"]["output_file_id"] = "file-gone"
        server.set_behaviour(Behaviour(answer="@hash", batch_delay_s=0.05))
        capsys.readouterr()
        assert run(server, tmp_path, "rerun", "--batch", "--batch-poll-s", "0.02") == 0
        assert "batch_2" in server._app.batches  # type: ignore[union-attr]
    notes = [line for line in capsys.readouterr().err.splitlines() if "batch_1" in line]
    said = "unknown to the provider" if fate == "output_gone" else "ended expired without an answer for 12 requests"
    assert len(notes) == 1 and said in notes[0] and "submitted again" in notes[0], notes
    assert batch_records(tmp_path / "cache") == []
    assert all(r["status"] == "ANSWERED" for r in samples(tmp_path / "rerun"))


def _count_collections(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The batch ids `_BatchRun._collect_record` is called for, in order (a fourth call raises: a loop)."""
    from judgebench.calls import batch

    collected: list[str] = []
    real_collect = batch._BatchRun._collect_record

    async def counted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        collected.append(args[1].batch_id)
        if len(collected) > 3:
            raise RuntimeError("collected again and again")
        return await real_collect(self, *args, **kwargs)

    monkeypatch.setattr(batch._BatchRun, "_collect_record", counted)
    return collected


def test_an_unremovable_record_of_a_batch_that_left_requests_unanswered_is_collected_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An outside attack: a recorded batch that ended without answers for some requests, whose record could not be
    removed (a read-only batches folder; the cache not writable did the same), was read and collected again and
    again (300 polls and downloads in 20 s, never a new batch). It is collected once; the rest is submitted."""
    from judgebench.calls import batch

    with FakeOpenAIServer(Behaviour(answer="@hash", batch_delay_s=60)) as server:
        stopped_batch_run(server, tmp_path, "stopped")
        server.set_behaviour(Behaviour(answer="@hash", batch_delay_s=0.0, batch_answer_limit=3))
        monkeypatch.setattr(batch, "drop_record", lambda path: None)  # the record stays, as in a read-only folder
        collected = _count_collections(monkeypatch)
        assert run(server, tmp_path, "rerun", "--batch", "--batch-poll-s", "0.02") == 0
        assert collected == ["batch_1"] and list(server._app.batches) == ["batch_1", "batch_2"]  # type: ignore[union-attr]
    statuses = [r["status"] for r in samples(tmp_path / "rerun")]  # 3 lines answered of each batch (the stub's limit)
    assert statuses.count("ANSWERED") == 6 and statuses.count("FAILED") == 2 * N_ROWS - 6


def test_an_unrewritable_intent_whose_batch_left_requests_unanswered_is_collected_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second outside attack: the same loop from an intent (a run killed while creating its batch) in a folder
    that cannot be written: the intent was resolved again each pass, its batch id known only then, and the batch
    collected again and again. It is collected once, and the requests it left unanswered are submitted."""
    from judgebench.calls import batch

    def read_only(folder, record):  # type: ignore[no-untyped-def]
        raise PermissionError(13, "Permission denied", str(folder))

    with FakeOpenAIServer(Behaviour(answer="@hash", batch_delay_s=0.05, batch_create_delay_s=30)) as server:
        killed_while_creating(server, tmp_path)
        server.set_behaviour(Behaviour(answer="@hash", batch_delay_s=0.0, batch_answer_limit=3))
        monkeypatch.setattr(batch, "drop_record", lambda path: None)
        monkeypatch.setattr(batch, "write_record", read_only)
        collected = _count_collections(monkeypatch)
        assert run(server, tmp_path, "rerun", "--batch", "--batch-poll-s", "0.02") == 0
        assert collected == ["batch_1"] and list(server._app.batches) == ["batch_1", "batch_2"]  # type: ignore[union-attr]


def test_no_new_batch_is_submitted_once_the_cache_cannot_be_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Collecting a recorded batch whose answers the cache refused (a read-only cache), the rerun went on to submit
    the requests that batch left unanswered, paid, with nowhere to keep their answers. It stops instead (exit 1),
    the record kept, the collected answers in its results."""
    import sqlite3

    from judgebench.calls.cache import ReplyCache

    def refused(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise sqlite3.OperationalError("attempt to write a readonly database")

    with FakeOpenAIServer(Behaviour(answer="@hash", batch_delay_s=60)) as server:
        stopped_batch_run(server, tmp_path, "stopped")
        server.set_behaviour(Behaviour(answer="@hash", batch_delay_s=0.0, batch_answer_limit=3))
        monkeypatch.setattr(ReplyCache, "put", refused)
        collected = _count_collections(monkeypatch)
        assert run(server, tmp_path, "rerun", "--batch", "--batch-poll-s", "0.02") == 1
        assert collected == ["batch_1"] and list(server._app.batches) == ["batch_1"]  # type: ignore[union-attr]
    assert len(batch_records(tmp_path / "cache")) == 1
    assert [r["status"] for r in samples(tmp_path / "rerun")].count("ANSWERED") == 3


def test_a_404_for_a_recorded_batch_stops_and_keeps_the_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A 404 for a recorded batch was taken as "gone": the record dropped and its requests paid for again. It may as
    well be a key of another project or organisation: the run stops with one line naming the batch and its record,
    keeps the record and submits nothing; deleting the record resubmits."""
    with FakeOpenAIServer(Behaviour(answer="@hash", batch_delay_s=60)) as server:
        stopped_batch_run(server, tmp_path, "stopped")
        batches = server._app.batches  # type: ignore[union-attr]
        batches["batch_other"] = batches.pop("batch_1")  # (another project's key sees no batch_1; batch_2 is next)
        server.set_behaviour(Behaviour(answer="@hash", batch_delay_s=0.05))
        [record_file] = (tmp_path / "cache" / "batches").glob("*.json")
        capsys.readouterr()
        assert run(server, tmp_path, "rerun", "--batch", "--batch-poll-s", "0.02") == 1
        err = capsys.readouterr().err
        assert "batch_2" not in batches and record_file.exists(), err
        [line] = [line for line in err.splitlines() if "batch_1" in line]
        assert (f"batch batch_1 recorded in {record_file} is unknown to the provider (HTTP 404): the api key may "
                "belong to another project or organisation") in line and f"delete {record_file}" in line, line
        assert "Traceback" not in err and SECRET not in err
        record_file.unlink()
        assert run(server, tmp_path, "again", "--batch", "--batch-poll-s", "0.02") == 0
        assert "batch_2" in batches
    assert all(r["status"] == "ANSWERED" for r in samples(tmp_path / "again"))


@pytest.mark.slow
def test_two_reruns_at_once_both_collect_the_same_batch(tmp_path: Path) -> None:
    """Two runs sharing the cache collect the recorded batch together: neither submits a batch, neither fails on
    the record the other removed, and the batch's lines are answered once."""
    import time

    with FakeOpenAIServer(Behaviour(answer="@hash", batch_delay_s=60)) as server:
        stopped_batch_run(server, tmp_path, "stopped")
        started = server._app.batch_started["batch_1"]  # type: ignore[union-attr]
        server.set_behaviour(Behaviour(answer="@hash", batch_delay_s=time.time() - started + 3))
        procs = [batch_process(server, tmp_path, out) for out in ("one", "two")]
        errs = [proc.communicate(timeout=120)[1] for proc in procs]
        assert [proc.returncode for proc in procs] == [0, 0], errs
        assert len(server._app.batches) == 1 and server.stats().total == 2 * N_ROWS  # type: ignore[union-attr]
    assert all("Traceback" not in err for err in errs)
    assert batch_records(tmp_path / "cache") == []
    one, two = ([{k: r[k] for k in COMPARED} for r in samples(tmp_path / out)] for out in ("one", "two"))
    assert one == two and all(r["status"] == "ANSWERED" for r in one)


def test_two_runs_started_together_submit_one_batch(tmp_path: Path) -> None:
    """Two --batch runs of one judge started together on one cache, nothing recorded yet: one submits the batch,
    the other waits for its record and collects it (both submitted one each, paid twice, before); both answer
    every request, the second says why it waited."""
    with FakeOpenAIServer(Behaviour(answer="@hash", batch_delay_s=1.5, batch_create_delay_s=1.0)) as server:
        procs = [batch_process(server, tmp_path, out) for out in ("one", "two")]
        errs = [proc.communicate(timeout=120)[1] for proc in procs]
        assert [proc.returncode for proc in procs] == [0, 0], errs
        assert len(server._app.batches) == 1 and uploads(server) == 1, errs  # type: ignore[union-attr]
        assert server.stats().total == 2 * N_ROWS
    assert all("Traceback" not in err for err in errs)
    assert any("another --batch run of this judge" in err for err in errs), errs
    assert batch_records(tmp_path / "cache") == []
    one, two = ([{k: r[k] for k in COMPARED} for r in samples(tmp_path / out)] for out in ("one", "two"))
    assert one == two and all(r["status"] == "ANSWERED" for r in one)


def test_a_run_stopped_while_waiting_for_the_batch_lock_submits_nothing(tmp_path: Path) -> None:
    """A --batch run finding its judge's submission lock held waits (saying so) and submits nothing; a SIGTERM then
    stops it with partial results and no traceback; once the lock is free a rerun submits the one batch."""
    import signal

    from judgebench.calls.batch_records import SubmissionLock, identity_hash

    with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
        judge = LiteLLMJudge("openai/judge-x", {"api_base": server.api_base, "api_key": SECRET,
                                                "extra_headers": {"X-Team-Token": HEADER_SECRET}})
        lock = SubmissionLock(tmp_path / "cache" / "batches", identity_hash(judge.cache_identity()))
        assert lock.acquire()
        proc = batch_process(server, tmp_path, "waiting")
        try:
            time.sleep(8)
            assert proc.poll() is None and uploads(server) == 0
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=60)
        finally:
            lock.release()
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 1, err
        assert f"another --batch run of this judge (pid {os.getpid()}) is reading its batch records" in err, err
        assert "Traceback" not in err and uploads(server) == 0 and not server._app.batches  # type: ignore[union-attr]
        assert run(server, tmp_path, "rerun", "--batch", "--batch-poll-s", "0.05") == 0
        assert len(server._app.batches) == 1  # type: ignore[union-attr]


def test_a_batch_call_cancelled_by_a_stop_leaves_no_warning() -> None:
    """A stop cancelling litellm's aretrieve_batch while its sync half runs in a thread: the coroutine it returns is
    never awaited (its request never sent), and Python's RuntimeWarning about it reached the stop line of about one
    stopped --batch run in four."""
    import asyncio
    import gc
    import warnings

    from judgebench.judges.providers import import_litellm

    async def cancelled(api_base: str) -> None:
        task = asyncio.ensure_future(litellm.aretrieve_batch(batch_id="batch_x", api_base=api_base, api_key=SECRET))
        await asyncio.sleep(0)  # started: awaiting the thread that makes the coroutine
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.sleep(0.3)  # the thread's coroutine dropped

    with FakeOpenAIServer(Behaviour(answer="x")) as server, warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        litellm = import_litellm()
        asyncio.run(cancelled(server.api_base))
        gc.collect()
    assert not [w for w in seen if "never awaited" in str(w.message)], [str(w.message) for w in seen]


def test_a_batch_lock_that_is_not_a_regular_file_is_said_and_taken_as_free(tmp_path: Path, capsys) -> None:
    """An outside attack: a FIFO where the lock file goes failed the run with "OSError: Invalid argument" (its
    truncation), naming nothing, the descriptor left open and locked. A FIFO, a link or a folder there is one line,
    and the lock is taken as free, as where flock is missing."""
    from judgebench.calls.batch_records import SubmissionLock

    folder = tmp_path / "batches"
    folder.mkdir()
    for make in (os.mkfifo, lambda path: os.symlink(tmp_path / "elsewhere", path), os.mkdir):
        lock = SubmissionLock(folder, "ab" * 32)
        make(lock.path)
        assert lock.acquire() and lock.acquire()  # free, each time
        lock.release()
        assert f"batch lock {lock.path} cannot be used (" in capsys.readouterr().err
        (os.rmdir if lock.path.is_dir() and not lock.path.is_symlink() else os.unlink)(lock.path)
    assert not (tmp_path / "elsewhere").exists()


def test_a_stopped_batch_run_without_cache_keeps_no_record(tmp_path: Path) -> None:
    with FakeOpenAIServer(Behaviour(answer="@hash", batch_delay_s=60)) as server:
        err = stopped_batch_run(server, tmp_path, "out", "--no-cache")
    assert "batch batch_1 keeps running at the provider, unrecorded (--no-cache" in err, err
    assert "rerunning submits them again" in err
    assert not (tmp_path / "cache" / "batches").exists()


@pytest.mark.slow
def test_a_stop_while_the_batch_is_created_records_it_and_the_rerun_collects_it(tmp_path: Path) -> None:
    """A third attack: a stop while the provider was creating the batch left it made and unrecorded ("no new batch
    submitted"), and the rerun paid for the requests again in a second batch. The create's answer is waited for
    now (at most --timeout) and the batch recorded: one batch in all."""
    with FakeOpenAIServer(Behaviour(answer="@hash", batch_delay_s=0.05, batch_create_delay_s=3)) as server:
        err = stopped_batch_run(server, tmp_path, "stopped")  # SIGTERM 0.3 s after the batch is made
        assert "batch batch_1 keeps running at the provider (recorded in the cache)" in err, err
        assert len(batch_records(tmp_path / "cache")) == 1
        server.set_behaviour(Behaviour(answer="@hash", batch_delay_s=0.05))
        assert run(server, tmp_path, "rerun", "--batch", "--batch-poll-s", "0.02") == 0
        assert len(server._app.batches) == 1  # type: ignore[union-attr]
        assert server.stats().duplicate_answers() == 0 and batch_records(tmp_path / "cache") == []


@pytest.mark.slow
@pytest.mark.parametrize("cache", ["cache", "--no-cache"])
def test_a_stop_during_a_create_that_outlasts_the_timeout_says_the_batch_may_exist(tmp_path: Path, cache: str) -> None:
    """An outside attack: a stop while a create outlasting --timeout was under way said "no new batch submitted" and
    its requests "not attempted", though the provider had made the batch (--no-cache: rerunning paid twice). The stop
    line names the input file and the tag, and what a rerun does; the requests are in flight, not unattempted."""
    with FakeOpenAIServer(Behaviour(answer="@hash", batch_delay_s=0.05, batch_create_delay_s=8)) as server:
        extra = ("--timeout", "1", *(["--no-cache"] if cache == "--no-cache" else []))
        err = stopped_batch_run(server, tmp_path, "stopped", *extra)
        made = len(server._app.batches)  # type: ignore[union-attr]
    assert made == 1 and "no new batch submitted" not in err, err
    assert f"{2 * N_ROWS} requests sent in a batch create that got no answer before the stop; the provider may have " \
           "created a batch of them (input file file-1, metadata judgebench_run=" in err, err
    then = "look at its batches before rerunning" if cache == "--no-cache" else "a rerun looks for it among the provider"
    assert then in err, err
    assert {r["failure"] for r in samples(tmp_path / "stopped")} == {"in_flight"}


def killed_while_creating(server: FakeOpenAIServer, tmp_path: Path) -> None:
    """batch_process SIGKILLed while the provider's answer to its create is slow to come (the batch made): nothing
    after the create ran."""
    import time

    app = server._app
    assert app is not None
    proc = batch_process(server, tmp_path, "killed")
    try:
        deadline = time.monotonic() + 60
        while not app.batches and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)
    finally:
        proc.kill()
        proc.communicate(timeout=60)
    assert app.batches, "no batch was created"


def test_a_creation_time_ahead_of_this_clock_does_not_keep_a_batch_polled_forever() -> None:
    """An outside attack: a provider's created_at in milliseconds (or a clock ahead) made the batch's age negative,
    and a batch stuck in "finalizing" was polled forever; such a time is not read: the time polling began is."""
    from types import SimpleNamespace

    from judgebench.calls.batch import _BatchStop, _check_running

    now = time.time()
    stuck = SimpleNamespace(id="batch_1", status="finalizing", created_at=int(now * 1000), completion_window="24h")
    with pytest.raises(_BatchStop, match="still finalizing 26.0 h after its creation"):
        _check_running(stuck, since=now - 26 * 3600)
    _check_running(stuck, since=now - 3600)  # within its window: polled on


@pytest.mark.parametrize("provider", ["lists it", "never made it", "lists nothing", "another project's key"])
def test_a_kill_between_the_create_and_its_record_does_not_lose_the_batch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], provider: str
) -> None:
    """A kill after the provider made the batch and before its record was written lost the batch (paid, not
    collectable): the rerun paid for its requests again. An intent (run tag, input file) is recorded before the
    create and the tag sent as the batch's metadata; the rerun finds the batch in the provider's list and collects
    it; one the provider never made is submitted again, said in one line; a list that cannot be read stops the run
    with one line, the intent kept, nothing submitted."""
    with FakeOpenAIServer(Behaviour(answer="@hash", batch_delay_s=0.05, batch_create_delay_s=30)) as server:
        killed_while_creating(server, tmp_path)
        batches = server._app.batches  # type: ignore[union-attr]
        [intent] = batch_records(tmp_path / "cache")
        assert intent["batch_id"] == "" and batches["batch_1"]["metadata"]["judgebench_run"] == intent["tag"]
        if provider in ("never made it", "another project's key"):
            del batches["batch_1"]
        if provider == "another project's key":  # its list holds none of the first project's batches or files (an
            server._app.files.clear()  # type: ignore[union-attr]  # attack: the batch was taken for never made, paid again)
        server.set_behaviour(Behaviour(answer="@hash", batch_delay_s=0.05,
                                       batch_list_status=404 if provider == "lists nothing" else None))
        capsys.readouterr()
        code = run(server, tmp_path, "rerun", "--batch", "--batch-poll-s", "0.02")
        err = capsys.readouterr().err
        made, duplicates = len(batches), server.stats().duplicate_answers()
    assert "Traceback" not in err and SECRET not in err, err
    if provider in ("lists nothing", "another project's key"):
        assert code == 1 and made == (provider == "lists nothing") and batch_records(tmp_path / "cache") == [intent], err
        [line] = [line for line in err.splitlines() if intent["tag"] in line]
        assert "an earlier run got no answer to its batch create" in line and "the provider made the batch is unknown" in line
        assert "delete " in line and "batches/" in line, line
        return
    assert code == 0 and made == 1 and duplicates == 0, err
    assert batch_records(tmp_path / "cache") == []
    assert all(r["status"] == "ANSWERED" for r in samples(tmp_path / "rerun"))
    said = [line for line in err.splitlines() if "is not among the provider's batches" in line]
    assert len(said) == (provider == "never made it"), err


def test_a_create_that_times_out_is_not_retried(tmp_path: Path, capsys) -> None:
    """A third attack: a create that timed out was retried, and each attempt made a paid batch (three from one
    run). It is tried once; the stop says the batch may exist at the provider."""
    with FakeOpenAIServer(Behaviour(answer="@hash", batch_create_delay_s=3)) as server:
        code = run(server, tmp_path, "out", "--batch", "--batch-poll-s", "0.02", "--timeout", "1", "--max-retries", "2")
        made = len(server._app.batches)  # type: ignore[union-attr]
    err = capsys.readouterr().err
    assert code == 1 and made == 1, (made, err)
    assert "batch API error (create)" in err and "the provider may have created the batch anyway" in err, err


def test_a_query_in_api_base_is_refused_for_batch_before_the_data_is_loaded(tmp_path: Path, capsys) -> None:
    """A third attack: the batch path goes through litellm whatever the transport, which put the path after the
    query: the data loaded, then the upload failed with a 404."""
    with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
        code = main(["run", "--tasks", "sciarena_eval", "--judge", "openai/judge-x", "--judge-args",
                     f"api_base={server.api_base}?token=SECRETtok123,api_key={SECRET}", "--dataset-path",
                     str(data_file(tmp_path)), "--output-path", str(tmp_path / "out"), "--batch", "--quiet"])
        sent = server.stats().total + len(server._app.files)  # type: ignore[union-attr]
    err = capsys.readouterr().err
    assert code == 2 and sent == 0 and "has a query string" in err and "SECRETtok123" not in err, err
    assert not (tmp_path / "out").exists()


def test_a_linked_or_oversized_record_is_not_read(tmp_path: Path, capsys) -> None:
    """A third attack: a record linked to another file was read (as root, /etc/shadow), and a 200 MB record cost
    19 s; neither is read now, each said once."""
    from judgebench.calls import batch_records

    target = tmp_path / "elsewhere.json"
    target.write_text("{}")
    (tmp_path / "linked.json").symlink_to(target)
    assert batch_records.read_record(tmp_path / "linked.json") is None
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(batch_records.RECORD_MAX_BYTES + 1)
    assert batch_records.read_record(big) is None
    err = capsys.readouterr().err
    assert err.count("is a link or larger than 64 MB: ignored") == 2, err


def test_hostile_ids_and_a_linked_records_folder_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An outside attack: a hand-edited intent's tag and input file reached stderr raw (escape codes, a forged
    `judgebench:` line, 30 MB in one line); a provider's batch id holding escape codes, a line break and the key reached
    the stop line and samples.jsonl; `<cache>/batches` as a link sent the records outside the cache folder."""
    from judgebench.calls.batch import _BatchStop, _check_id
    from judgebench.calls.batch_records import read_record

    good = {"version": 1, "batch_id": "", "judge": "openai/judge-x", "identity": "i", "created": 1.0, "requests": {},
            "tag": "0123456789abcdef0123456789abcdef", "input_file": "file-1"}
    for name, change in [("ok", {}), ("tag", {"tag": "t\x1b[2J\njudgebench: all collected" + "Z" * 1000}),
                         ("file", {"input_file": "f\x1b]0;pwned\x07\r"}), ("id", {"batch_id": "batch 1\n"})]:
        (tmp_path / f"{name}.json").write_text(json.dumps({**good, **change}))
    assert read_record(tmp_path / "ok.json") is not None
    assert [read_record(tmp_path / f"{n}.json") for n in ("tag", "file", "id")] == [None, None, None]
    err = capsys.readouterr().err
    assert "\x1b" not in err and err.count("is not a batch record of this judgebench: ignored") == 3, err
    assert _check_id("batch_abc-1.2:x", "batch") == "batch_abc-1.2:x"
    with pytest.raises(_BatchStop, match=r"no plain id \('batch_\\x1b\[2J\\njudgebench"):
        _check_id(f"batch_\x1b[2J\njudgebench: done {SECRET}", "batch")
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "batches").symlink_to(outside)
    with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
        assert run(server, tmp_path, "out", "--batch", "--batch-poll-s", "0.02") == 2
        assert len(server._app.batches) == 0  # type: ignore[union-attr]
    assert "cache/batches: a link; batch records are written only inside the cache folder" in capsys.readouterr().err
    assert list(outside.iterdir()) == []


@pytest.mark.slow
def test_a_rerun_without_batch_says_that_recorded_batches_are_not_collected(tmp_path: Path, capsys) -> None:
    """An outside attack: a rerun without --batch after a stopped --batch run sent the batch's requests again as
    calls (paid twice) without a word. It says so before any call; the record stays for a --batch run."""
    with FakeOpenAIServer(Behaviour(answer="@hash", batch_delay_s=60)) as server:
        stopped_batch_run(server, tmp_path, "stopped")
        capsys.readouterr()
        assert run(server, tmp_path, "rerun") == 0
        err = capsys.readouterr().err
        assert (f"1 batch of this judge that an earlier --batch run submitted is recorded in {tmp_path / 'cache' / 'batches'} "
                f"({2 * N_ROWS} requests): only a --batch run collects them") in err, err
        assert len(batch_records(tmp_path / "cache")) == 1
        assert run(server, tmp_path, "other", judge="openai/judge-y") == 0  # another judge's batch: not said
        assert "--batch run" not in capsys.readouterr().err
