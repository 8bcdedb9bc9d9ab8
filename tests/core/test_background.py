"""background.py: a computation in a forked child gives what this process would have computed."""

from __future__ import annotations

import contextlib
import json
import os
import threading

import numpy as np
import pytest
from test_scale_diagnostics import _battles

from judgebench.core import background
from judgebench.core.errors import NumericError
from judgebench.scoring import diagnostics
from judgebench.stats.ratings import paired_bootstrap_bt


def _forks(monkeypatch) -> list[int]:
    """Count the forks background.py makes (each one still forks)."""
    made: list[int] = []
    real = os.fork

    def fork() -> int:
        pid = real()
        if pid:
            made.append(pid)
        return pid

    monkeypatch.setattr(background.os, "fork", fork)
    return made


def _fail(message: str) -> None:
    raise NumericError(message)


def test_a_child_returns_the_value_and_raises_the_error_of_the_function(monkeypatch):
    forks = _forks(monkeypatch)
    a, b, ys, xs = _battles(400)
    got = background.in_background(paired_bootstrap_bt, a, b, ys, xs, n_resamples=30, seed=3).result()
    want = paired_bootstrap_bt(a, b, ys, xs, n_resamples=30, seed=3)
    for who in ys:
        assert np.array_equal(got[who].beta_samples, want[who].beta_samples)  # bit for bit
        assert np.array_equal(got[who].ratings, want[who].ratings)
    with pytest.raises(NumericError, match="no battles here"):
        background.in_background(_fail, "no battles here").result()
    assert len(forks) == 2


def test_a_child_that_dies_is_a_one_line_error_not_a_hang(monkeypatch):
    from judgebench.core.errors import Stopped

    _forks(monkeypatch)
    with pytest.raises(Stopped, match=r"ended without a result \(exit status 3\); run it again, or with JUDGEBENCH_BACKGROUND=0"):
        background.in_background(os._exit, 3).result()
    with pytest.raises(Stopped, match=r"\(killed by signal 9\)"):
        background.in_background(_kill_self).result()


def test_a_killed_child_ends_the_command_with_1_not_the_bad_input_code(monkeypatch, capsys):
    """Killed (e.g. by the out-of-memory killer) is not the input's fault: exit 1, one line."""
    from judgebench.cli import main as cli
    from judgebench.publish import report

    def killed(*args):
        return background.in_background(_kill_self).result()

    _forks(monkeypatch)
    monkeypatch.setattr(report, "write_report", killed)
    assert cli.main(["report", "anywhere"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "killed by signal 9" in err


def _kill_self() -> None:
    os.kill(os.getpid(), 9)  # os.getpid() here runs in the child


class _TwoArgError(Exception):
    def __init__(self, a, b):
        super().__init__(f"{a} and {b}")


def _raise_two_arg():
    raise _TwoArgError("left", "right")


def test_an_exception_that_cannot_travel_back_keeps_its_type_name_and_text(monkeypatch):
    _forks(monkeypatch)
    with pytest.raises(RuntimeError, match="_TwoArgError: left and right"):
        background.in_background(_raise_two_arg).result()


def _sleep(seconds: float) -> None:
    import time

    time.sleep(seconds)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_an_interrupt_while_waiting_stops_the_child_at_once(monkeypatch):
    import signal
    import time

    forks = _forks(monkeypatch)
    pending = background.in_background(_sleep, 30)

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            pending.result()
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert time.monotonic() - started < 5 and not _alive(forks[0])  # killed and reaped, not waited for


def test_a_result_never_asked_for_stops_its_child(monkeypatch):
    forks = _forks(monkeypatch)
    pending = background.in_background(_sleep, 30)
    del pending
    background.reap_left_over()
    import time

    for _ in range(50):
        if not _alive(forks[0]):
            break
        time.sleep(0.05)
        background.reap_left_over()
    assert not _alive(forks[0])


def test_no_fork_when_turned_off_or_beside_other_threads(monkeypatch):
    forks = _forks(monkeypatch)
    monkeypatch.setenv("JUDGEBENCH_BACKGROUND", "0")
    assert background.in_background(sum, [1, 2, 3]).result() == 6
    monkeypatch.delenv("JUDGEBENCH_BACKGROUND")
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not background.can_fork()
        with pytest.raises(NumericError, match="inline"):
            background.in_background(_fail, "inline").result()
    finally:
        stop.set()
        other.join()
    assert forks == []


def test_large_run_diagnostics_are_identical_with_the_style_bootstrap_in_a_child(monkeypatch):
    """diagnose() above STYLE_BOOTSTRAP_MAX: the same JSON, byte for byte, forked or not."""
    from test_score_scale import _records  # a synthetic run's lean records

    monkeypatch.setattr(diagnostics, "STYLE_BOOTSTRAP_MAX", 300)
    records = _records(1200)
    monkeypatch.setenv("JUDGEBENCH_BACKGROUND", "0")
    inline = json.dumps(diagnostics.diagnose(records, n_resamples=200, seed=1), sort_keys=True)
    monkeypatch.delenv("JUDGEBENCH_BACKGROUND")
    forks = _forks(monkeypatch)
    forked = json.dumps(diagnostics.diagnose(records, n_resamples=200, seed=1), sort_keys=True)
    assert len(forks) >= 1  # the length coefficient's bootstrap ran in a child
    assert forked == inline
    assert '"beta"' in forked and "m-out-of-n" not in forked


def _scaled(values, factor):
    return [v * factor for v in values]


def test_large_run_scores_are_identical_with_the_leaderboard_fits_in_a_child(monkeypatch):
    """score() above STYLE_BOOTSTRAP_MAX forks the leaderboard diagnostics' fits while it bootstraps the
    metrics: the same results JSON, byte for byte, and the same figures as leaderboard_diagnostics alone."""
    from test_score_scale import _records

    from judgebench.core.records import DatasetInfo, RunConfig
    from judgebench.scoring.score import score
    from judgebench.tasks.registry import get_task

    monkeypatch.setattr(diagnostics, "STYLE_BOOTSTRAP_MAX", 300)
    records, n_examples = _records(1200), 1200
    spec = get_task("sciarena_eval", [])
    config = RunConfig(task="synth", task_version="1", dataset=DatasetInfo(source="synth", split="test", fingerprint="f"),
                       judge="builtin/test", prompt_template="p", prompt_template_hash="h", judgebench_version="0",
                       started_at="2026-01-01T00:00:00Z", n_resamples=200, seed=3)

    monkeypatch.setenv("JUDGEBENCH_BACKGROUND", "0")
    inline = score(records, config, spec, n_examples=n_examples).model_dump_json()
    monkeypatch.delenv("JUDGEBENCH_BACKGROUND")
    forks = _forks(monkeypatch)
    forked = score(records, config, spec, n_examples=n_examples)
    assert len(forks) == 1  # the leaderboard's fits
    assert forked.model_dump_json() == inline
    assert forked.diagnostics["leaderboard"] == diagnostics.leaderboard_diagnostics(records, seed=config.seed)
    assert set(forked.diagnostics["leaderboard"]) == {"position_bias", "longer_preferred_rate", "length_beta", "spearman_to_human"}


def test_a_prepared_child_warms_up_then_computes_what_it_is_sent(monkeypatch):
    forks = _forks(monkeypatch)
    with background.prepared(_scaled, warm=lambda: __import__("json")) as child:
        pending = child.send([1, 2, 3], 4)
    assert pending.result() == [4, 8, 12] and len(forks) == 1
    with background.prepared(_fail) as child:
        pending = child.send("sent, then failed")
    with pytest.raises(NumericError, match="sent, then failed"):
        pending.result()
    with background.prepared(_fail, warm=lambda: _fail("while warming")) as child:
        pending = child.send("never reached")
    with pytest.raises(NumericError, match="while warming"):
        pending.result()


def test_a_prepared_child_let_go_without_arguments_exits(monkeypatch):
    forks = _forks(monkeypatch)
    with background.prepared(_fail) as child:
        pass  # e.g. the samples could not be read: the child gets EOF and exits without computing
    assert len(forks) == 1
    _, status = os.waitpid(forks[0], 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    child.pending.pid = 0  # reaped here by hand
    background._RUNNING.discard(forks[0])


def _released(fd: int) -> str:
    """Wait (up to 20 s) until the test writes to the pipe `fd` reads."""
    import select

    ready, _, _ = select.select([fd], [], [], 20)
    return "released" if ready else "timed out"


def test_a_prepared_child_computes_when_sent_while_a_later_child_still_runs(monkeypatch):
    """A child forked after a prepared one used to keep a copy of the prepared child's argument pipe open, so the
    prepared child (arena's and report's plots) saw its arguments end only when that later child exited. The
    later child here waits until the prepared child's result is back: with the copy it times out first."""
    forks = _forks(monkeypatch)
    read_fd, write_fd = os.pipe()
    try:
        with background.prepared(_scaled) as child:
            later = background.in_background(_released, read_fd)
            assert child.send([1.5], 2).result() == [3.0]
            os.write(write_fd, b"x")
            assert later.result() == "released" and len(forks) == 2
    finally:
        os.close(read_fd)
        os.close(write_fd)


def _write_slowly(path: str) -> str:
    """Write a file atomically, and stall half-way (until stopped)."""
    import time
    from pathlib import Path

    from judgebench.core.files import atomic_path

    with atomic_path(Path(path), suffix=".png") as tmp:
        tmp.write_bytes(b"half a plot")
        time.sleep(30)
    return path


@pytest.mark.parametrize("how", ["leaving", "the block failed"])
def test_a_child_stopped_by_its_parent_leaves_no_temporary_file(tmp_path, monkeypatch, how):
    """An error or Ctrl-C in the parent stops its children (SIGTERM, SIGKILL only after a grace period): a plots
    child stopped half-way through a PNG removes its temporary (it was SIGKILLed, leaving `.plot.png.XXXX.png`).
    Leaving the process stops every child (atexit); a `with prepared(...)` block that fails stops and reaps its
    own child before the error goes on."""
    import time

    forks = _forks(monkeypatch)
    started = 0.0
    with pytest.raises(RuntimeError) if how == "the block failed" else contextlib.nullcontext():
        with background.prepared(_write_slowly) as child:
            pending = child.send(str(tmp_path / "plot.png"))
            deadline = time.monotonic() + 20
            while not list(tmp_path.iterdir()) and time.monotonic() < deadline:  # the child is writing
                time.sleep(0.01)
            assert list(tmp_path.iterdir()), "the child never started its file"
            started = time.monotonic()
            if how == "the block failed":
                raise RuntimeError("the parent failed")
            background._stop_running()  # what leaving on an error or an interrupt does
            pending.pid = 0  # reaped by _stop_running
    assert list(tmp_path.iterdir()) == [] and len(forks) == 1
    assert time.monotonic() - started < background.STOP_GRACE_S  # it left on SIGTERM, not on the SIGKILL


def test_a_stop_before_the_childs_work_ends_the_child_never_the_parents_handler(tmp_path):
    """A stop that reaches a child before it is inside `_child` must not run the parent's SIGTERM handler there:
    the command line's raises KeyboardInterrupt, and the child went on running the parent's code (here: a copy
    of pytest). The child below waits in the parent's code; stopped, it must exit 1, not raise."""
    import signal
    import time

    def interrupt(signum, frame):  # what cli.main installs for SIGTERM
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        pid = background._fork()
        if pid == 0:
            try:
                time.sleep(20)  # still in the parent's code, before any work
            except BaseException:
                (tmp_path / "escaped").write_text("")
            os._exit(0)
        time.sleep(0.3)
        os.kill(pid, signal.SIGTERM)
        _, status = os.waitpid(pid, 0)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert not (tmp_path / "escaped").exists()
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 1


def test_leaving_waits_for_a_child_whose_result_was_dropped(monkeypatch):
    """A dropped result stops its child without waiting (SIGTERM); leaving the process waits for it, so no child
    goes on computing after the command has returned (as it did for a moment after an interrupted report)."""
    import time

    forks = _forks(monkeypatch)
    pending = background.in_background(time.sleep, 30)
    del pending  # never asked for
    background._stop_running()
    with pytest.raises(ChildProcessError):  # reaped already
        os.waitpid(forks[0], os.WNOHANG)


def test_without_a_fork_a_prepared_function_runs_when_sent(monkeypatch):
    forks = _forks(monkeypatch)
    monkeypatch.setenv("JUDGEBENCH_BACKGROUND", "0")
    child = background.prepared(_scaled)
    assert child.send([1.5], 2).result() == [3.0] and forks == []


@pytest.mark.slow
def test_report_files_are_the_same_with_the_plots_drawn_in_a_child(tmp_path, monkeypatch):
    import judgebench
    from judgebench.publish.report import write_report

    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=tmp_path / "run", demo=True)
    forks = _forks(monkeypatch)
    forked = write_report(tmp_path / "run", tmp_path / "forked").parent
    assert len(forks) == 1  # the plotting child (the demo is too small for the style child)
    monkeypatch.setenv("JUDGEBENCH_BACKGROUND", "0")
    inline = write_report(tmp_path / "run", tmp_path / "inline").parent
    names = sorted(p.name for p in forked.iterdir())
    assert names == sorted(p.name for p in inline.iterdir()) and any(n.endswith(".png") for n in names)
    for name in names:
        assert (forked / name).read_bytes() == (inline / name).read_bytes(), name


def test_later_computes_at_the_first_result_once_and_raises_there():
    calls: list[int] = []

    def count(x: int) -> int:
        calls.append(x)
        return x * 2

    pending = background.later(count, 21)
    assert calls == []  # nothing yet: no inputs or outputs held for the caller meanwhile
    assert pending.result() == 42 and pending.result() == 42 and calls == [21]
    failing = background.later(_fail, "late")
    with pytest.raises(NumericError, match="late"):
        failing.result()


@pytest.mark.slow  # measured over 1.5 s in the fast selection
def test_no_tqdm_monitor_thread_outlives_a_progress_bar_or_a_data_load(tmp_path):
    """tqdm's monitor thread (started by the first bar, ours or one `datasets` makes inside a load) lived on and
    made can_fork refuse every later child in the process: after a bar and a load, this thread is alone."""
    import subprocess
    import sys

    data = tmp_path / "rows.jsonl"
    data.write_text('{"id": "1", "x": "a"}\n{"id": "2", "x": "b"}\n')
    code = (
        "import threading, tqdm.std\n"
        "from judgebench.calls.progress import Progress\n"
        "from judgebench.tasks.loading import load_table\n"
        "bar = Progress(3); bar.close()\n"
        f"load_table({str(data)!r}, None, 'train', None)\n"
        "tqdm.std.tqdm(total=2, disable=False).close()  # a third-party bar after ours\n"
        "print(sorted(t.name for t in threading.enumerate()))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "['MainThread']"


_ORPHANED = """
import sys, time
from pathlib import Path
from judgebench.core import background

def late_write(path):
    time.sleep(2.0)
    Path(path).write_text("written after the parent died")

pending = background.in_background(late_write, sys.argv[1])
print(pending.pid, flush=True)
time.sleep(30)
"""


def test_a_child_stops_when_its_parent_is_killed(tmp_path):
    """`kill -9` of a command runs none of its exit handlers; the child gets SIGTERM from the kernel (Linux's
    parent-death signal) instead of going on to write its files (arena's plots child wrote PNGs seconds later)."""
    import signal
    import subprocess
    import sys
    import time

    if not background.can_fork():
        pytest.skip("no fork here")
    marker = tmp_path / "late.txt"
    parent = subprocess.Popen([sys.executable, "-c", _ORPHANED, str(marker)], stdout=subprocess.PIPE, text=True)
    try:
        assert int(parent.stdout.readline()) > 0  # the child is forked (its work starts at once)
        time.sleep(0.3)
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
        time.sleep(3.0)  # past the child's 2 s of work
    finally:
        parent.kill()
    assert not marker.exists()


def test_a_child_killed_while_sending_its_result_is_a_stop_not_a_traceback(monkeypatch):
    """A result larger than the pipe holds is cut when its child is killed mid-send: the truncated bytes are
    no result (UnpicklingError was a traceback; found attacking)."""
    import signal
    import time

    from judgebench.core.errors import Stopped

    _forks(monkeypatch)
    pending = background.in_background(bytes, 50_000_000)  # blocks in write_all until read
    time.sleep(1.0)
    os.kill(pending.pid, signal.SIGKILL)
    with pytest.raises(Stopped, match="ended without a result"):
        pending.result()
