"""The `judgebench` process's memory allocators, set for large short-lived arrays (issue 30).

A command that works on whole tables (arena's 2,000,000 votes, report's and score's 100,000 examples) makes
and frees arrays of tens of megabytes many times. Two allocators hand such memory back to the kernel at once,
and the kernel zeroes it again, page by page, on its next use: at 2,000,000 votes `arena` spent 2-3 s of its
CPU there (docs/lab/perf.md, eighth round).

`for_large_arrays` sets both, for the commands that ask for it (`array_heavy`: arena, report, score):
- Arrow allocates from the C library's malloc, not the pyarrow wheel's mimalloc, unless
  $ARROW_DEFAULT_MEMORY_POOL says otherwise (Arrow reads it when it makes its default pool: no import before a
  command's handler does);
- glibc serves every allocation from its heap (no separate mapping per large array) and keeps what is freed
  there for the next one. The peak is unchanged (it is the live arrays'); the process simply does not shrink
  before it exits, which is why a long-running server or `run` (whose 1,000,000-pair memory target is close)
  is left as it is.

Only the `judgebench` command calls these: a Python caller keeps its own process's allocators. Nothing
computed depends on them.
"""

from __future__ import annotations

import ctypes
import os

_M_TRIM_THRESHOLD = -1  # glibc's mallopt parameters (malloc.h)
_M_MMAP_MAX = -4
_KEEP_UP_TO = 2**31 - 1  # bytes free at the heap's top before glibc trims it (mallopt takes an int)


def for_large_arrays() -> None:
    """Both settings (before the command imports pyarrow)."""
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    keep_freed_memory()


def keep_freed_memory() -> bool:
    """glibc: no mmap per large allocation, no trimming of the heap; whether it was set (False elsewhere)."""
    if not _is_glibc():
        return False
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is None:
        return False
    return bool(mallopt(_M_MMAP_MAX, 0)) and bool(mallopt(_M_TRIM_THRESHOLD, _KEEP_UP_TO))


def _is_glibc() -> bool:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION") is not None
    except (ValueError, OSError, AttributeError):  # not a name this platform knows, or no confstr
        return False
