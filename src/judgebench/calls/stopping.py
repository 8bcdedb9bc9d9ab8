"""After a run's first interrupt: further Ctrl-C only say the run is already stopping, so that its partial
results are written (issue 27: two Ctrl-C 0.3 s apart left a partial samples.jsonl and no results.json, or a
CancelledError traceback and no output at all).

`hold_interrupts` replaces the SIGINT handler (main thread only) until `release_interrupts` restores it: the
pipeline releases when the run directory is written (`judging/pipeline.run_task`), the command line when the
command ends. SIGTERM keeps its handler (a supervisor's second SIGTERM still stops the process), and Ctrl-\\
(SIGQUIT) still ends it at once.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_HELD: list[Any] = []  # the SIGINT handler replaced while a stopped run writes its partial results
_KEEP: list[bool] = []  # set by the command line: the process ends after the command, keep holding till then
_WRITING: list[bool] = []  # a stopped run's results are being written: from its first interrupt to `results_written`
STOPPING = "judgebench: already stopping: writing the results (Ctrl-\\ ends the process now)"


def _note(signum: int, frame: Any) -> None:
    print(STOPPING, file=sys.stderr, flush=True)


def hold_interrupts() -> None:
    """From the first interrupt of a run on: a further SIGINT prints one line and changes nothing."""
    if _HELD or threading.current_thread() is not threading.main_thread():
        return
    _HELD.append(signal.signal(signal.SIGINT, _note))
    _WRITING[:] = [True]


def results_written() -> None:
    """The run's results are on disk (the pipeline, once they are): an interrupt ending the command from now on
    ends a run whose results were written."""
    _WRITING.clear()


def stopped_unwritten() -> bool:
    """Whether a run stopped by an interrupt had not written its results yet (a second stop signal ending the
    command then leaves none)."""
    return bool(_WRITING)


def interrupts_held() -> bool:
    return bool(_HELD)


def keep_held_until_exit() -> None:
    """The `judgebench` process: a held interrupt stays held after the run (the summary is printed, the process
    exits with 1; a Ctrl-C then would kill it by SIGINT): `release_interrupts(final=True)` at the very end."""
    _KEEP.append(True)


def release_interrupts(*, final: bool = False) -> None:
    """The SIGINT handler as it was before `hold_interrupts` (nothing when nothing is held; nothing before the
    command line's `final` release when it keeps the hold until the process exits)."""
    if _KEEP and not final:
        return
    if final:
        _KEEP.clear()
        _WRITING.clear()
    if _HELD and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _HELD.pop())


@contextmanager
def noting_interrupts(active: bool, *, say: str | None = None) -> Iterator[Callable[[], str | None]]:
    """While `active` (and in the main thread): the first SIGINT or SIGTERM is noted, not raised (`say` printed
    then, when given), and `interrupted()` says so ("interrupted (SIGINT)"). From it on the handlers are the
    caller's again, with further Ctrl-C held (`hold_interrupts`), so a second SIGTERM ends the process as it
    would have."""
    if not active or threading.current_thread() is not threading.main_thread():
        yield lambda: None
        return
    received: list[str] = []

    def note(signum: int, frame: Any) -> None:
        if not received:
            received.append(signal.Signals(signum).name)
            restore()
            hold_interrupts()
            if say:
                print(say, file=sys.stderr, flush=True)

    def restore() -> None:
        for signum, handler in previous.items():
            if signal.getsignal(signum) is note:
                signal.signal(signum, handler)

    previous = {signum: signal.signal(signum, note) for signum in (signal.SIGINT, signal.SIGTERM)
                if signal.getsignal(signum) != signal.SIG_IGN}  # a signal ignored by whoever started us stays so
    try:
        yield lambda: f"interrupted ({received[0]})" if received else None
    finally:
        restore()


@contextmanager
def written_whole(what: str) -> Iterator[None]:
    """Write `what` (a run folder) whole: an interrupt that arrives meanwhile is noted (a line says so), the writing
    finishes, then the interrupt is raised (KeyboardInterrupt). A SIGTERM had cut `merge` between samples.jsonl
    and results.json: neither the earlier run in the folder nor the new one was left."""
    with noting_interrupts(True, say=f"judgebench: interrupted: writing {what} first (Ctrl-\\ ends the process now)") as interrupted:
        yield
    if interrupted():
        raise KeyboardInterrupt
