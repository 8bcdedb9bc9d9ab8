"""Import what a command needs after its calls while the calls are in flight.

A run's main process waits while the call worker talks to the server; scoring then imports scipy
and the scoring modules (about 1 s on this 2-core machine), all of it between the last answer and the
exit. `need_later(...)` names those modules (the pipeline does, before the calls); `start()` (the call
layer, once the worker has the job) imports them in a daemon thread, so the tail after the last answer is
the scoring itself. Nothing is imported that the command would not import anyway, and an import error is
left for the real import to raise where it always did.

The thread must never be seen half-way through an import, nor outlive the command:

- Forking while that thread holds an import lock could leave the child waiting for the lock forever, so
  every fork (the call worker's, and background.py's children) calls `settle()` first, which waits for the
  thread to finish (background.py forks only when this process then runs no other thread).
- A module the thread is importing is in `sys.modules` before its body has run (pyarrow without
  `default_memory_pool` yet). The `import` statement waits for it; code that looks a module up in
  `sys.modules` instead uses `imported(name)`, which gives only a fully imported module.
- A daemon thread still running when the interpreter shuts down is frozen where it stands, with any import
  lock it holds: every later import (a finalizer's, litellm's `AsyncHTTPHandler.__del__` imports) then
  waits forever, and the process never exits after printing its result (issue 27: a run whose calls all
  failed at once reached its exit while scipy was still being preloaded). `stop()` lets the thread finish
  the import it is in, skips the rest and joins it; `cli.main` calls it before returning and an atexit
  handler calls it for every other way out (atexit handlers run before daemon threads are frozen).
"""

from __future__ import annotations

import atexit
import importlib
import sys
import threading
from types import ModuleType

_wanted: list[str] = []
_thread: threading.Thread | None = None
_stopping = threading.Event()  # set by stop(): the thread imports nothing more


def need_later(*modules: str) -> None:
    """Modules this process will import after its calls (imported by `start`, in that order)."""
    _wanted.extend(m for m in modules if m not in _wanted)


def start() -> None:
    """Import the modules named by need_later in a daemon thread (once; no-op when none are named)."""
    global _thread
    if _thread is not None or not _wanted:
        return
    modules, _wanted[:] = list(_wanted), []
    _stopping.clear()
    _thread = threading.Thread(target=_import_all, args=(modules,), name="judgebench-preload", daemon=True)
    _thread.start()


def settle() -> None:
    """Wait for the preload thread to import everything it was given (before a fork); later `start()` calls
    may run again."""
    global _thread
    if _thread is not None:
        _thread.join()
        _thread = None


def stop() -> None:
    """The command is ending: the thread finishes the import it is in, imports nothing more, and is joined
    (so no import lock is held by a thread the interpreter's shutdown would freeze). Safe to call any time."""
    _stopping.set()
    try:
        settle()
    finally:
        _stopping.clear()


atexit.register(stop)


def imported(name: str) -> ModuleType | None:
    """The module `name` when it is fully imported, else None (not imported, or its import still running in
    this or another thread: its attributes may not exist yet)."""
    module = sys.modules.get(name)
    if module is None:
        return None
    spec = getattr(module, "__spec__", None)
    if getattr(spec, "_initializing", False):  # what the import system itself checks (`import` waits on it)
        return None
    return module


def _import_all(modules: list[str]) -> None:
    for name in modules:
        if _stopping.is_set():
            return
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the real import, later, raises it where it always did
            return
