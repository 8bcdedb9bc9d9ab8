"""A run streams (streaming.py): chunked judging gives the same files, a killed run keeps its finished
chunks, re-scoring reads lean records and keeps the texts of samples.jsonl."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import judgebench
from judgebench.core.errors import JudgebenchError
from judgebench.core.rundir import TEXT_FIELDS, read_samples
from judgebench.judging import streaming

FIGURES = ("metrics", "slices", "counts", "usage", "diagnostics")


def _lines(path: Path) -> list[dict]:
    rows = [json.loads(line) for line in (path / "samples.jsonl").read_text().splitlines()]
    for row in rows:
        row.pop("latency_s")  # wall time of each answer: the one field that differs between runs
    return rows


def _figures(path: Path) -> dict:
    results = json.loads((path / "results.json").read_text())
    return {key: results[key] for key in FIGURES}


@pytest.mark.slow
@pytest.mark.parametrize("task, judge", [("ideation_arena_eval", "builtin/random"), ("sciarena_eval", "builtin/longer")])
def test_small_chunks_give_the_same_run(tmp_path, monkeypatch, task, judge):
    judgebench.evaluate(task, judge, output_path=tmp_path / "one", demo=True)
    monkeypatch.setattr(streaming, "CHUNK_REQUESTS_BUILTIN", 7)  # many chunks, one not a multiple of the orders
    judgebench.evaluate(task, judge, output_path=tmp_path / "chunked", demo=True)
    assert _lines(tmp_path / "chunked") == _lines(tmp_path / "one")  # same records, same order
    assert _figures(tmp_path / "chunked") == _figures(tmp_path / "one")


@pytest.mark.slow
def test_a_killed_run_keeps_its_finished_chunks_and_a_rerun_completes(tmp_path, monkeypatch):
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=tmp_path / "ref", demo=True)
    monkeypatch.setattr(streaming, "CHUNK_REQUESTS_BUILTIN", 20)  # 10 examples x 2 orders per chunk
    real = streaming.assemble_records
    calls = []

    def dies_on_the_third_chunk(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt  # the process is killed while the third chunk is judged
        return real(*args, **kwargs)

    monkeypatch.setattr(streaming, "assemble_records", dies_on_the_third_chunk)
    with pytest.raises(KeyboardInterrupt):
        judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=tmp_path / "run", demo=True)
    kept = _lines(tmp_path / "run")
    assert kept == _lines(tmp_path / "ref")[:40]  # two finished chunks, complete records, in plan order
    assert not (tmp_path / "run" / "results.json").exists()
    monkeypatch.setattr(streaming, "assemble_records", real)
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=tmp_path / "run", demo=True)
    assert _lines(tmp_path / "run") == _lines(tmp_path / "ref")
    assert _figures(tmp_path / "run") == _figures(tmp_path / "ref")


@pytest.mark.slow
def test_an_older_run_in_the_folder_is_replaced_not_appended_to(tmp_path):
    for judge in ("builtin/shorter", "builtin/longer"):
        judgebench.evaluate("sciarena_eval", judge, output_path=tmp_path / "run", demo=True)
    rows = _lines(tmp_path / "run")
    assert len(rows) == 96 and {row["judge"] for row in rows} == {"builtin/longer"}  # 48 examples x 2 orders


def test_lean_reading_drops_only_the_texts(tmp_path):
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=tmp_path / "run", demo=True)
    full = read_samples(tmp_path / "run" / "samples.jsonl")
    lean = read_samples(tmp_path / "run" / "samples.jsonl", lean=True)
    assert full[0].response_a and lean[0].response_a is None
    assert lean == [r.model_copy(update=dict.fromkeys(TEXT_FIELDS)) for r in full]


def test_lean_reading_names_the_bad_line(tmp_path):
    path = tmp_path / "samples.jsonl"
    path.write_text('{"task": "t"}\nnot json\n')
    with pytest.raises(JudgebenchError, match=r"samples.jsonl:1: "):
        read_samples(path, lean=True)
    path.write_text("not json\n")
    with pytest.raises(JudgebenchError, match=r"samples.jsonl:1: "):
        read_samples(path, lean=True)


@pytest.mark.slow
def test_rescoring_a_changed_verdict_keeps_the_texts(tmp_path):
    run = tmp_path / "run"
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=run, demo=True)
    lines = (run / "samples.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    flipped = {"A": "[[B]]", "B": "[[A]]"}[first["verdict_shown"]]
    first["raw"] = flipped  # as if the parser now read the answer the other way
    lines[0] = json.dumps(first)
    (run / "samples.jsonl").write_text("\n".join(lines) + "\n")
    judgebench.score_run(run)
    after = [json.loads(line) for line in (run / "samples.jsonl").read_text().splitlines()]
    assert after[0]["verdict_shown"] == flipped.strip("[]")
    assert all(after[0][k] == first[k] and after[0][k] for k in TEXT_FIELDS)  # texts kept
    assert after[1:] == [json.loads(line) for line in lines[1:]]  # the other lines untouched


def test_a_run_answered_once_is_never_stopped_as_unreachable_in_a_later_chunk(tmp_path, monkeypatch):
    """Each chunk's calls are a run of the call layer of their own: once one chunk has an answer, the later ones go
    without the "endpoint answers nothing" stop (calls/live.py), which stopped a run of more than a chunk at a
    short outage as it began its second chunk."""
    from openai_server import Behaviour, FakeOpenAIServer

    from judgebench.calls import RunnerOptions, run_requests
    from judgebench.calls.options import UNREACHABLE_AFTER
    from judgebench.judging import pipeline

    seen: list[int | None] = []

    def recording(requests, judge, runner, *args, **kwargs):
        seen.append(runner.unreachable_after)
        return run_requests(requests, judge, runner, *args, **kwargs)

    monkeypatch.setattr(streaming, "CHUNK_REQUESTS_LLM", 24)
    monkeypatch.setattr(pipeline, "run_requests", recording)
    with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
        judgebench.evaluate("sciarena_eval", "openai/m", output_path=tmp_path / "run", demo=True, limit=36,
                            judge_args={"api_base": server.api_base, "api_key": "sk-t"},
                            runner=RunnerOptions(use_cache=False, progress=False))
    assert seen == [UNREACHABLE_AFTER, None, None]  # 72 judgments in chunks of 24


def test_a_write_that_fails_midway_leaves_whole_lines_only(tmp_path):
    # an outside attack: a full disk left samples.jsonl ending in a line cut in the middle (the salvage file held
    # every judgment); the file is cut back to its last whole line now. A file size limit stands in for the disk.
    import resource
    import signal

    path = tmp_path / "samples.jsonl"
    first = '{"n": 1}\n' * 100
    limit = len(first) + 500
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG), no signal
    try:
        with streaming._appender(path, None) as sink:
            sink(first, list)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
            with pytest.raises(JudgebenchError, match=r"cannot write .*samples\.jsonl keeps its 900 bytes of whole lines"):
                sink('{"n": 2}\n' * 200, list)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)
    assert path.read_text() == first
