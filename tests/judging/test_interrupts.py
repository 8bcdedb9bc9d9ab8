"""A double Ctrl-C while the data loads ends the `judgebench` command with 130 and one line (interrupts.py).

The run is a real `judgebench` process (cli.main without argv) whose data loader is replaced by a slow one
that waits inside `exec` of source text, as `import datasets` builds its dataclasses, and whose teardown
takes a while (one object's finalizer), as a process that imported datasets and pyarrow does. Markers on
stderr and a file handshake, never sleeps, decide when each SIGINT is sent.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import judgebench
from judgebench.calls.stopping import STOPPING

CHILD = r"""
import os, sys, time
from pathlib import Path
from judgebench.judging import pipeline
from judgebench.cli.main import main

SENT = Path(sys.argv.pop(1))

class SlowTeardown:  # the interpreter's teardown: SIGINT is back to its default action by then
    def __del__(self):
        os.write(2, b"TEARDOWN\n")
        deadline = time.monotonic() + 60
        while not SENT.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)

keep = SlowTeardown()

def slow_load(*args, **kwargs):  # loading that lasts, interrupted inside exec() of text (marker written there)
    exec("os.write(2, b'LOADING\\n')\nwhile True: time.sleep(0.02)", {"os": os, "time": time})

class Finalized:  # an interrupt that lands in a finalizer (a weakref callback, a __del__)
    def __del__(self):
        os.write(2, b"IN_FINALIZER\n")
        while not SENT.exists():
            time.sleep(0.02)
        time.sleep(0.2)

def load_through_a_finalizer(*args, **kwargs):
    item = Finalized()
    del item  # Python prints "Exception ignored in ... KeyboardInterrupt" here and goes on loading
    exec("while True: time.sleep(0.02)", {"time": time})

pipeline.load_examples = load_through_a_finalizer if os.environ.get("IN_FINALIZER") else slow_load
sys.exit(main())
"""


def _lines(stream, out: queue.Queue) -> None:
    for line in stream:
        out.put(line.rstrip("\n"))
    out.put(None)


def _wait_for(lines: queue.Queue, seen: list[str], marker: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while marker not in seen:
        line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        assert line is not None, f"the process ended before {marker!r}: {seen}"
        seen.append(line)


def _finish(proc: subprocess.Popen, lines: queue.Queue, seen: list[str], sent: Path, timeout: float) -> int:
    """Let the child go on (`sent`), wait for its exit (killed if it outlasts `timeout`), read the rest of its
    stderr into `seen`; its exit code."""
    try:
        sent.touch()
        code = proc.wait(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
    while (line := lines.get(timeout=10)) is not None:
        seen.append(line)
    return code


def _start(tmp_path: Path, sent: Path, **env: str) -> tuple[subprocess.Popen, queue.Queue]:
    return _start_child(tmp_path, "slow_loading_judgebench", CHILD, sent, ["--demo"], env)


def _start_child(tmp_path: Path, module: str, source: str, sent: Path, data: list[str],
                 env: dict[str, str] | None = None, ignoring_sigint: bool = False) -> tuple[subprocess.Popen, queue.Queue]:
    """`source` run as module `module` (as `python -m judgebench` is: a module as __main__) with this judgebench,
    given `sent` and a built-in judge's `run` of sciarena_eval on `data`; its stderr lines come to the queue."""
    (tmp_path / f"{module}.py").write_text(source, encoding="utf-8")
    path = os.pathsep.join([str(Path(judgebench.__file__).parents[1]), str(tmp_path)])  # this judgebench
    proc = subprocess.Popen(
        [sys.executable, "-m", module, str(sent), "run", "--tasks", "sciarena_eval", "--judge", "builtin/longer",
         *data, "--output-path", str(tmp_path / "out")],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
        env={**os.environ, "PYTHONPATH": path, **(env or {})},
        preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ignoring_sigint else None,  # a shell's background job
    )
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_lines, args=(proc.stderr, lines), daemon=True).start()
    return proc, lines


@pytest.mark.slow
def test_a_second_interrupt_while_loading_still_ends_with_130(tmp_path):
    sent = tmp_path / "second-sent"
    proc, lines = _start(tmp_path, sent)
    seen: list[str] = []
    try:
        _wait_for(lines, seen, "LOADING")
        proc.send_signal(signal.SIGINT)
        _wait_for(lines, seen, "TEARDOWN")
        proc.send_signal(signal.SIGINT)
    finally:
        code = _finish(proc, lines, seen, sent, 120)
    assert code == 130, (code, seen)
    assert [line for line in seen if line not in ("LOADING", "TEARDOWN")] == ["judgebench: interrupted"]
    assert not any(path.is_file() for path in (tmp_path / "out").rglob("*"))  # nothing was paid for, nothing written


@pytest.mark.slow
def test_an_interrupt_in_a_finalizer_is_not_lost(tmp_path):
    """Python prints such an interrupt as 'Exception ignored ... KeyboardInterrupt' and loading went on."""
    sent = tmp_path / "sent"
    proc, lines = _start(tmp_path, sent, IN_FINALIZER="1")
    seen: list[str] = []
    try:
        _wait_for(lines, seen, "IN_FINALIZER")
        proc.send_signal(signal.SIGINT)
    finally:
        code = _finish(proc, lines, seen, sent, 60)
    assert code == 130 and [x for x in seen if x != "TEARDOWN"] == ["IN_FINALIZER", "judgebench: interrupted"], (code, seen)


BUILTIN_CHILD = r"""
import os, sys, time
from pathlib import Path
from judgebench.calls import dispatch
from judgebench.cli.main import main

SENT = Path(sys.argv.pop(1))
answer = dispatch.answer_directly
calls = []

def second_chunk_waits(judge, requests):  # the built-in judge's second chunk: the signal is sent meanwhile
    calls.append(len(requests))
    if len(calls) == 2:
        os.write(2, b"CHUNK2\n")
        while not SENT.exists():
            time.sleep(0.01)
    return answer(judge, requests)

dispatch.answer_directly = second_chunk_waits
sys.exit(main())
"""


def _interrupt_built_in_run(tmp_path: Path, examples: int, *signals: signal.Signals,
                            ignoring_sigint: bool = False) -> tuple[int, list[str]]:
    """A built-in judge's run of `examples` examples, sent `signals` (half a second apart) while its second chunk
    is being answered: the exit code and the lines on stderr."""
    from helpers import sci_row, write_jsonl

    data = write_jsonl(tmp_path / "data.jsonl", [sci_row(i, vote="AB"[i % 2]) for i in range(examples)])
    sent = tmp_path / "sent"
    proc, lines = _start_child(tmp_path, "chunky_judgebench", BUILTIN_CHILD, sent,
                               ["--dataset-path", str(data), "--quiet", "--bootstrap", "0"], ignoring_sigint=ignoring_sigint)
    seen: list[str] = []
    try:
        _wait_for(lines, seen, "CHUNK2")
        for number, sig in enumerate(signals):
            if number:
                time.sleep(0.5)  # the child waits in a 10 ms sleep loop: its handler has run (two at once are one)
            proc.send_signal(sig)
    finally:
        code = _finish(proc, lines, seen, sent, 300)
    return code, seen


@pytest.mark.slow
@pytest.mark.parametrize("signals", [(signal.SIGTERM,), (signal.SIGINT, signal.SIGINT)])
def test_a_built_in_judge_run_interrupted_writes_its_partial_results(tmp_path, signals):
    """A built-in judge's run is judged in this process, chunk by chunk: the signal is honoured after the chunk it
    lands in, and results.json is written, partial, over the examples judged (it used to leave samples.jsonl
    alone, exit 130). A second Ctrl-C while writing only says so."""
    from judgebench.judging.streaming import CHUNK_REQUESTS_BUILTIN

    per_chunk = CHUNK_REQUESTS_BUILTIN // 2  # examples per chunk (both orders)
    code, seen = _interrupt_built_in_run(tmp_path, 3 * per_chunk + 7, *signals)
    name = signals[0].name
    assert code == 1, (code, seen)
    assert f"judgebench: run stopped early: interrupted ({name}) (partial results written)" in seen, seen
    result = json.loads((tmp_path / "out" / "results.json").read_text())
    assert result["config"]["partial"] is True  # the chunk the signal landed in, finished; no later one
    assert result["counts"] == {"examples": 2 * per_chunk, "calls": 2 * CHUNK_REQUESTS_BUILTIN, "cached": 0,
                                "answered": 2 * CHUNK_REQUESTS_BUILTIN, "invalid": 0, "failed": 0,
                                "coverage": 1.0, "truncated": 0}
    assert len((tmp_path / "out" / "samples.jsonl").read_text().splitlines()) == 2 * CHUNK_REQUESTS_BUILTIN
    if len(signals) > 1:
        assert STOPPING in seen


@pytest.mark.slow
def test_a_second_sigterm_still_ends_a_built_in_judge_run(tmp_path):
    """The supervisor's second SIGTERM ends the process as it would have without the run (calls/stopping.py):
    only the first is the run's to honour."""
    from judgebench.judging.streaming import CHUNK_REQUESTS_BUILTIN

    code, seen = _interrupt_built_in_run(tmp_path, CHUNK_REQUESTS_BUILTIN, signal.SIGTERM, signal.SIGTERM)
    assert code == 130, (code, seen)  # the command's own SIGTERM handling (cli/interrupts.py): "interrupted"
    assert not (tmp_path / "out" / "results.json").exists()


SCORING_CHILD = r"""
import os, sys, time
from pathlib import Path
from judgebench.judging import pipeline
from judgebench.cli.main import main

SENT = Path(sys.argv.pop(1))
score = pipeline.score

def slow_score(*args, **kwargs):  # every judgment made: the signals are sent while the run is scored
    os.write(2, b"SCORING\n")
    while not SENT.exists():
        time.sleep(0.01)
    return score(*args, **kwargs)

pipeline.score = slow_score
sys.exit(main())
"""


def _interrupt_scoring(tmp_path: Path, *signals: signal.Signals) -> tuple[int, list[str]]:
    """The demo run of a built-in judge, sent `signals` (half a second apart) while it is being scored."""
    sent = tmp_path / "sent"
    proc, lines = _start_child(tmp_path, "scoring_judgebench", SCORING_CHILD, sent, ["--demo", "--quiet"])
    seen: list[str] = []
    try:
        _wait_for(lines, seen, "SCORING")
        for number, sig in enumerate(signals):
            if number:
                time.sleep(0.5)
            proc.send_signal(sig)
        time.sleep(0.5)
    finally:
        code = _finish(proc, lines, seen, sent, 120)
    return code, seen


@pytest.mark.slow
@pytest.mark.parametrize("signals", [(signal.SIGINT,), (signal.SIGTERM,), (signal.SIGINT, signal.SIGINT)])
def test_an_interrupt_while_scoring_waits_for_the_results(tmp_path, signals):
    """Every judgment was made: an interrupt while the run is scored (seconds for a large run) is said at once and
    honoured once results.json is written, complete (it used to end the command with samples.jsonl alone)."""
    from judgebench.judging.pipeline import WRITING_FIRST

    code, seen = _interrupt_scoring(tmp_path, *signals)
    assert code == 130, (code, seen)
    assert seen[1:] == [WRITING_FIRST] + [STOPPING] * (len(signals) - 1) + ["judgebench: interrupted"], seen
    result = json.loads((tmp_path / "out" / "results.json").read_text())
    assert result["config"]["partial"] is False and result["counts"]["examples"] == 48  # the demo split, whole
    assert result["counts"]["answered"] == 96


@pytest.mark.slow
def test_a_second_sigterm_while_scoring_ends_the_process(tmp_path):
    """...and says the results were not written (it said `judgebench: interrupted` alone)."""
    from judgebench.cli.main import INTERRUPTED_AGAIN

    code, seen = _interrupt_scoring(tmp_path, signal.SIGTERM, signal.SIGTERM)
    assert code == 130 and seen[-1] == INTERRUPTED_AGAIN, (code, seen)
    assert not (tmp_path / "out" / "results.json").exists()


@pytest.mark.slow
def test_a_run_started_with_ctrl_c_ignored_keeps_ignoring_it(tmp_path):
    """A shell starts a background job with SIGINT ignored; the run kept it so on the call worker's path but took it
    on the others (an outside attack: two behaviours). It stays ignored on every path; SIGTERM still stops a run."""
    from judgebench.judging.streaming import CHUNK_REQUESTS_BUILTIN

    per_chunk = CHUNK_REQUESTS_BUILTIN // 2
    code, seen = _interrupt_built_in_run(tmp_path, 2 * per_chunk + 3, signal.SIGINT, ignoring_sigint=True)
    assert code == 0, (code, seen)
    assert json.loads((tmp_path / "out" / "results.json").read_text())["counts"]["examples"] == 2 * per_chunk + 3
