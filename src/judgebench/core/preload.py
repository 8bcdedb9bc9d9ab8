"""Import what a command needs after its calls while the calls are in flight.

A run's main process waits while the call worker talks to the server; scoring then imports pandas,
scipy and the scoring modules (1-2 s on this 2-core machine), all of it between the last answer and the
exit. `need_later(...)` names those modules (the pipeline does, before the calls); `start()` (the call
layer, once the worker has the job) imports them in a daemon thread, so the tail after the last answer is
the scoring itself. Nothing is imported that the command would not import anyway, and an import error is
left for the real import to raise where it always did.

Forking while that thread holds an import lock could leave the child waiting for the lock forever, so
every fork of the call worker calls `settle()` first, which waits for the thread to finish.
"""

from __future__ import annotations

import importlib
import threading

# scoring.score's own imports (it imports them lazily, on every run): the pipeline names these
SCORING = ("judgebench.core.bulk", "judgebench.scoring.ceiling", "judgebench.scoring.diagnostics", "judgebench.scoring.judgment_table",
           "judgebench.scoring.metrics", "judgebench.scoring.selfpref", "judgebench.scoring.usage",
           "scipy.optimize")  # every Bradley-Terry point fit of the stored diagnostics starts with L-BFGS (ratings._point_params)

_wanted: list[str] = []
_thread: threading.Thread | None = None


def need_later(*modules: str) -> None:
    """Modules this process will import after its calls (imported by `start`, in that order)."""
    _wanted.extend(m for m in modules if m not in _wanted)


def start() -> None:
    """Import the modules named by need_later in a daemon thread (once; no-op when none are named)."""
    global _thread
    if _thread is not None or not _wanted:
        return
    modules, _wanted[:] = list(_wanted), []
    _thread = threading.Thread(target=_import_all, args=(modules,), name="judgebench-preload", daemon=True)
    _thread.start()


def settle() -> None:
    """Wait for the preload thread (before a fork); later `start()` calls may run again."""
    global _thread
    if _thread is not None:
        _thread.join()
        _thread = None


def _import_all(modules: list[str]) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the real import, later, raises it where it always did
            return
