"""Issue 27 item 5: two Ctrl-C 0.3 s apart during the calls, sent to the whole process group as a terminal
does. With or without the call worker, the run must write its partial results (samples.jsonl with every
planned judgment, results.json marked partial) and exit 1, with no traceback. Every judgment is accounted for:
a call the server saw is answered or FAILED `in_flight` (sent, its answer not waited for), never `not_attempted`
(which had been recorded for the calls in flight too); one it never saw is `not_attempted`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from openai_server import Behaviour, FakeOpenAIServer

import judgebench


def start_run(server: FakeOpenAIServer, out: Path, flags: list[str], worker: str = "1") -> subprocess.Popen:
    """`judgebench run` of 10 demo examples against the server, two calls at a time, in a process group of its own."""
    src = str(Path(judgebench.__file__).parents[1])
    return subprocess.Popen(
        [sys.executable, "-m", "judgebench", "run", "--tasks", "sciarena_eval", "--judge", "openai/fake-model",
         "--judge-args", f"api_base={server.api_base},api_key=sk-test", "--demo", "--limit", "10",
         "--concurrency", "2", "--output-path", str(out), "--quiet", *flags],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        env={**os.environ, "PYTHONPATH": src, "JUDGEBENCH_CALL_WORKER": worker},
    )


def signalled_once_calling(server: FakeOpenAIServer, proc: subprocess.Popen, first: int, gap_s: float,
                           second: int) -> str:
    """Once the run's first call reached the server: `first` to its process group, `gap_s` later `second`; its
    stderr once it ended (killed after 120 s)."""
    try:
        deadline = time.monotonic() + 120
        while server.stats().total < 1 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        os.killpg(proc.pid, first)
        time.sleep(gap_s)
        os.killpg(proc.pid, second)
        return proc.communicate(timeout=120)[1]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)


@pytest.mark.parametrize("worker, repeats", [("1", 1), ("0", 1), ("1", 2)])
def test_two_interrupts_still_write_partial_results(tmp_path, worker, repeats):
    out = tmp_path / "out"
    with FakeOpenAIServer(Behaviour(latency_s=1.5, answer="[[A]]")) as server:
        proc = start_run(server, out, ["--cache-dir", str(tmp_path / "cache"), "--repeats", str(repeats)], worker)
        err = signalled_once_calling(server, proc, signal.SIGINT, 0.3, signal.SIGINT)
        seen = server.stats().total
    assert "Traceback" not in err and "CancelledError" not in err, err
    assert proc.returncode == 1, (proc.returncode, err)
    samples = (out / "samples.jsonl").read_text().splitlines()
    assert len(samples) == 20  # every planned judgment is a line, answered or not
    result = json.loads((out / "results.json").read_text())
    assert result["config"]["partial"] is True and result["counts"]["calls"] == 20
    assert "interrupted" in err
    if repeats > 1:  # repeats 1.. in repeats.jsonl; the stop line counts every repeat's judgments
        samples += (out / "repeats.jsonl").read_text().splitlines()
    planned = 20 * repeats
    kinds = Counter(json.loads(line).get("failure") or json.loads(line)["status"] for line in samples)
    assert kinds["in_flight"] >= 1 and set(kinds) <= {"ANSWERED", "in_flight", "not_attempted"}, kinds
    assert kinds["ANSWERED"] + kinds["in_flight"] == seen and kinds["not_attempted"] == planned - seen, (kinds, seen)
    assert f"; {kinds['not_attempted']} judgments not attempted, {kinds['in_flight']} in flight at the stop, not waited for" in err, err
    # the call worker finishes its calls in flight into the cache; in this process the second signal cancels them
    where = ("answers still in flight go to the cache" if worker == "1"
             else "calls in flight were cancelled by the second signal: their answers are not kept")
    assert f"; {kinds['in_flight']} {where}" in err, err


@pytest.mark.slow
def test_calls_in_flight_at_a_stop_are_answered_into_the_cache_and_never_paid_twice(tmp_path):
    """SIGTERM while two 4-second calls are in flight: the command returns at once with them `in_flight`, and the
    call worker, let go, finishes them into the cache. A rerun takes both from there: each prompt is sent once.
    The worker had been killed 2 s after its parent left (the exit handler stopped every child), so answers
    slower than that were lost and the rerun paid for them again (a new-user walkthrough saw it)."""
    src = str(Path(judgebench.__file__).parents[1])
    with FakeOpenAIServer(Behaviour(latency_s=4.0, answer="[[A]]")) as server:
        def run(out: str) -> subprocess.CompletedProcess:
            return subprocess.Popen(
                [sys.executable, "-m", "judgebench", "run", "--tasks", "sciarena_eval", "--judge", "openai/fake-model",
                 "--judge-args", f"api_base={server.api_base},api_key=sk-test", "--demo", "--limit", "1",
                 "--concurrency", "2", "--output-path", str(tmp_path / out), "--cache-dir", str(tmp_path / "cache"),
                 "--quiet"],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": src})

        first = run("first")
        deadline = time.monotonic() + 60
        while server.stats().total < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        first.send_signal(signal.SIGTERM)
        _, err = first.communicate(timeout=60)
        assert first.returncode == 1 and "in flight at the stop" in err, err
        second = run("second")
        _, err2 = second.communicate(timeout=60)
        total = server.stats().total
    assert second.returncode == 0, err2
    assert total == 2  # the two prompts, each sent once: the rerun waited for the worker's answers
    samples = [json.loads(line) for line in (tmp_path / "second" / "samples.jsonl").read_text().splitlines()]
    assert [s["status"] for s in samples] == ["ANSWERED", "ANSWERED"] and all(s["cached"] for s in samples)


@pytest.mark.slow
def test_one_interrupt_without_the_cache_says_it_waits_and_keeps_the_answers_in_flight(tmp_path):
    """--no-cache runs the calls in this process: the first Ctrl-C waits for the calls in flight (up to --timeout), and
    said nothing while it waited; its stop line said those answers were "not kept (--no-cache)", but they were."""
    out = tmp_path / "out"
    with FakeOpenAIServer(Behaviour(latency_s=1.5, answer="[[A]]")) as server:
        proc = start_run(server, out, ["--no-cache"])
        try:
            deadline = time.monotonic() + 120
            while server.stats().total < 1 and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.05)
            os.killpg(proc.pid, signal.SIGINT)
            _, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 1 and "Traceback" not in err, err
    assert "judgebench: SIGINT: stopping; waiting for the calls in flight (at most --timeout each, 120 s); Ctrl-C or SIGTERM again stops them now" in err, err
    assert "calls under way at the stop were waited for and kept in this run (--no-cache: not cached)" in err, err
    kinds = Counter(json.loads(line)["status"] for line in (out / "samples.jsonl").read_text().splitlines())
    assert kinds["ANSWERED"] >= 1, kinds  # the calls in flight at the signal: answered, kept


@pytest.mark.slow
@pytest.mark.parametrize("cache", ["--no-cache", "--cache-dir"])
def test_one_interrupt_does_not_wait_for_a_retry_due_later(tmp_path, cache):
    """A 429 with Retry-After 45: the first Ctrl-C waited for the retry's backoff too (43 s, where the message said
    at most --timeout); the backoff is cut short when the run drains. In this process (--no-cache) or in the call
    worker (a cache), the calls waiting for their retry are FAILED in_flight and said to be not retried (the
    worker's path had said their "answers still in flight go to the cache", where none would come)."""
    flags = ["--no-cache"] if cache == "--no-cache" else ["--cache-dir", str(tmp_path / "cache")]
    with FakeOpenAIServer(Behaviour(status=429, retry_after_s=45)) as server:
        proc = start_run(server, tmp_path / "out", [*flags, "--timeout", "5"])
        try:
            deadline = time.monotonic() + 120
            while server.stats().total < 2 and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.05)
            time.sleep(0.5)  # both calls asleep in their backoff
            os.killpg(proc.pid, signal.SIGINT)
            stopped_at = time.monotonic()
            _, err = proc.communicate(timeout=120)
            took = time.monotonic() - stopped_at
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 1 and "Traceback" not in err, err
    assert took < 10, (took, err)  # the process's own exit; the retries were due in 45 s
    # the calls whose retry the stop cut short are in flight at the stop, as the call worker's path records
    # them (they read "HTTP 429 ... (gave up after 1 attempt)", a failure of their own); the rest never sent
    lines = [json.loads(line) for line in (tmp_path / "out" / "samples.jsonl").read_text().splitlines()]
    kinds = Counter(line.get("failure") for line in lines)
    assert set(kinds) == {"in_flight", "not_attempted"} and kinds["in_flight"] >= 2, kinds
    assert f"; {kinds['in_flight']} calls waiting for a retry were not retried" in err and "go to the cache" not in err, err
    # counted once (an outside attack: "N in flight at the stop, not waited for" counted them again, beside "calls under
    # way at the stop were waited for")
    assert "in flight at the stop" not in err and f"{kinds['not_attempted']} judgments not attempted" in err, err


@pytest.mark.slow
def test_the_command_output_ends_when_the_command_does_while_the_worker_drains(tmp_path):
    """SIGTERM while 6-second calls are in flight: the command exits at once, and the call worker finishing them
    into the cache no longer holds its stdout and stderr, so `judgebench run | tee log` or a CI step's capture ends
    with the command (an outside attack saw the pipe's end 7 s after the exit, up to --timeout times the retries)."""
    with FakeOpenAIServer(Behaviour(latency_s=6.0, answer="[[A]]")) as server:
        proc = start_run(server, tmp_path / "out", ["--cache-dir", str(tmp_path / "cache")])
        try:
            deadline = time.monotonic() + 60
            while server.stats().total < 2 and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.05)
            proc.send_signal(signal.SIGTERM)
            sent = time.monotonic()
            _, err = proc.communicate(timeout=60)  # reads both pipes to their end
            ended = time.monotonic() - sent
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 1 and "in flight at the stop" in err, err
    assert ended < 4.0, ended  # the calls in flight end about 6 s after they were sent


def test_a_sigterm_right_after_a_ctrl_c_says_the_partial_results_were_not_written(tmp_path):
    """An outside attack: a SIGTERM a few milliseconds after the first Ctrl-C (a supervisor's) ends the process
    before the partial results are written, as a second SIGTERM does (exit 130), and its only line was
    `judgebench: interrupted`, the line of a run stopped before anything was paid for. It says what happened, and
    that the answers are in the cache: the rerun pays for none of them again."""
    from judgebench.calls.stopping import hold_interrupts, release_interrupts, results_written
    from judgebench.cli.main import INTERRUPTED_AGAIN, interrupted_line

    assert interrupted_line() == "judgebench: interrupted"  # nothing stopping: the plain line
    hold_interrupts()  # a run's first interrupt: the partial results are being written
    try:
        assert interrupted_line() == INTERRUPTED_AGAIN
        results_written()  # (an outside attack: a single Ctrl-C while scoring, the results written, was told not)
        assert interrupted_line() == "judgebench: interrupted"
    finally:
        release_interrupts(final=True)
    out = tmp_path / "out"
    with FakeOpenAIServer(Behaviour(latency_s=1.5, answer="[[A]]")) as server:
        proc = start_run(server, out, ["--cache-dir", str(tmp_path / "cache")])
        err = signalled_once_calling(server, proc, signal.SIGINT, 0.005, signal.SIGTERM)
    assert "Traceback" not in err, err
    if proc.returncode == 130:  # ended before the results were written (the usual outcome at 5 ms)
        assert err.strip().splitlines()[-1] == INTERRUPTED_AGAIN and not (out / "results.json").exists(), err
    else:
        assert proc.returncode in (1, -signal.SIGTERM) and (out / "results.json").is_file(), (proc.returncode, err)
