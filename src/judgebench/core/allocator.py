"""The process's memory: large short-lived arrays kept between uses, free pages handed back after a phase, and
an exit without the interpreter's teardown (issue 30).

A command that works on whole tables (arena's 2,000,000 votes, report's and score's 100,000 examples) makes
and frees arrays of tens of megabytes many times. Two allocators hand such memory back to the kernel at once,
and the kernel zeroes it again, page by page, on its next use: at 2,000,000 votes `arena` spent 2-3 s of its
CPU there (docs/lab/perf.md, eighth round).

`for_large_arrays` sets these, for the commands that ask for it (`array_heavy`: arena, report, score):
- Arrow allocates from the C library's malloc, not the pyarrow wheel's mimalloc, unless
  $ARROW_DEFAULT_MEMORY_POOL names another pool (Arrow reads it when it makes its default pool: no import
  before a command's handler does);
- glibc serves every allocation from its heap (no separate mapping per large array) and keeps what is freed
  there for the next one, until `release_free_memory` hands the free pages back at the end of a phase (arena
  calls it once its computation is done, so its plots' child does not peak beside a parent still holding the
  computation's pages; reading a run's samples calls it too). A long-running server and `run` (whose
  1,000,000-pair memory target is close) keep glibc's defaults;
- for `arena` only (`one_blas_thread`), OpenBLAS (numpy's and scipy's) starts no worker threads
  ($OPENBLAS_NUM_THREADS=1, unless the user set it or $GOTO_NUM_THREADS / $OMP_NUM_THREADS). Its fits run BLAS
  on one thread anyway (ratings.single_threaded_blas), but each library's workers were started at import and
  again after every fork (OpenBLAS shuts its pool down before one), and each new worker spun on a core for
  0.1 s: 0.33 s of CPU in the 2,000,000-vote point command (docs/lab/perf.md, twelfth round). Not for `score`
  and `report`: their bootstrap products that are not exact sums run on OpenBLAS's threads, and one thread
  sums in another order (a figure's last bit changed; found attacking).

The same commands leave without the interpreter's teardown (`leave`): once such a command has succeeded and
its outputs are written, freeing its 1,400 modules' objects one by one took 0.3-0.4 s of `arena`'s exit. The
exit handlers run (Ctrl-C ignored: one landing in a handler cut it short, silently) and the output is flushed
first; a command that failed, was interrupted, still runs another
thread or opened an SQLite database (whose connections are closed by their finalizers) takes the usual exit,
and so does a process that is not the `judgebench` script or `python -m judgebench` itself, or that a
profiler, tracer, debugger or coverage tool watches (they write their results after the command returns).

Only the `judgebench` command calls `for_large_arrays` and `leave`: a Python caller keeps its own process's
allocators and exit. Nothing computed depends on any of this.
"""

from __future__ import annotations

import atexit
import functools
import os
import signal
import sys
import threading
from typing import Any, NoReturn

from judgebench.core.preload import imported

_M_TRIM_THRESHOLD = -1  # glibc's mallopt parameters (malloc.h)
_M_MMAP_MAX = -4
_KEEP_UP_TO = 2**31 - 1  # bytes free at the heap's top before glibc trims it by itself (mallopt takes an int)


_large = False  # for_large_arrays was called: this process is an array-heavy command


_BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")  # what OpenBLAS reads, in its order


def for_large_arrays(*, one_blas_thread: bool = False) -> None:
    """Arrow on the system allocator (unless the user named a pool), glibc keeping freed memory, and with
    `one_blas_thread` OpenBLAS without worker threads (unless the user set its thread count)."""
    global _large
    _large = True
    if not os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):  # unset or empty (Arrow takes empty as unset)
        os.environ["ARROW_DEFAULT_MEMORY_POOL"] = "system"
    keep_freed_memory()
    if one_blas_thread and not any(os.environ.get(n) for n in _BLAS_THREADS) and "numpy" not in sys.modules:
        os.environ["OPENBLAS_NUM_THREADS"] = "1"  # read when numpy and scipy load their OpenBLAS: not imported yet


def keep_freed_memory() -> bool:
    """glibc: no mmap per large allocation, no trimming of the heap by itself; whether it was set (False
    elsewhere)."""
    libc = _glibc()
    if libc is None:
        return False
    return bool(libc.mallopt(_M_MMAP_MAX, 0)) and bool(libc.mallopt(_M_TRIM_THRESHOLD, _KEEP_UP_TO))


def release_free_memory() -> None:
    """Return free heap pages to the system (glibc's malloc_trim; pyarrow's pool when loaded). Frees nothing
    in use; a no-op where neither exists. A 100,000-pair built-in run's peak RSS: 604 MB -> 544 MB.

    pyarrow is touched only once fully imported: the preload thread may be importing it right now (it is then
    in sys.modules without `default_memory_pool`, and its pool holds nothing to give back yet)."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)
    pyarrow = imported("pyarrow")
    if pyarrow is not None:
        pyarrow.default_memory_pool().release_unused()


def leave(code: int) -> NoReturn:
    """End the process with `code`: an array-heavy command that succeeded without the interpreter's teardown
    (after the exit handlers and a flush of the output), any other the usual way."""
    if (code == 0 and _large and _is_the_process() and not _observed() and _alone()
            and "sqlite3" not in sys.modules and _flushed()):
        if threading.current_thread() is threading.main_thread():  # (console's: the command is done; a Ctrl-C
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # now would only cut an exit handler short, exit 0 anyway)
        atexit._run_exitfuncs()  # preload's and background's, logging's: what the usual exit runs first
        if _flushed():
            os._exit(0)
    sys.exit(code)


def _is_the_process() -> bool:
    """Whether the process's main module is the `judgebench` script or `python -m judgebench` (not a program that
    runs it, e.g. with runpy, and goes on after its SystemExit)."""
    path = getattr(sys.modules.get("__main__"), "__file__", None) or ""
    name, folder = os.path.basename(path), os.path.basename(os.path.dirname(path))
    return name in ("judgebench", "judgebench.exe") or (name == "__main__.py" and folder == "judgebench")


def _observed() -> bool:
    """Whether a profiler, tracer, debugger or coverage tool watches this process (cProfile, trace, pdb, coverage):
    each writes or reports after the command returns, which an exit without teardown would skip."""
    if sys.getprofile() is not None or sys.gettrace() is not None:
        return True
    if threading.getprofile() is not None or threading.gettrace() is not None:
        return True
    monitoring = getattr(sys, "monitoring", None)  # Python 3.12+
    return monitoring is not None and any(monitoring.get_tool(tool) is not None for tool in range(6))


def _alone() -> bool:
    """Whether no thread but daemons runs beside this one (the usual exit would wait for them)."""
    return all(t.daemon or t is threading.current_thread() for t in threading.enumerate())


def _flushed() -> bool:
    """Whether standard output and error took everything written to them (a closed pipe: the usual exit says so)."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):  # a broken pipe, a closed stream
        return False
    return True


@functools.lru_cache(maxsize=1)
def _glibc() -> Any:
    """The C library when it is glibc (its mallopt and malloc_trim), loaded once; None elsewhere (macOS, musl)."""
    if not sys.platform.startswith("linux") or not _is_glibc():
        return None
    import ctypes  # here: every command imports this module, few need the C library

    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return None
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None


def _is_glibc() -> bool:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION") is not None
    except (ValueError, OSError, AttributeError):  # not a name this platform knows, or no confstr
        return False
