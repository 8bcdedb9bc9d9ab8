"""A pure computation in a forked child while this process goes on: the second core for `report`.

    pending = in_background(paired_bootstrap_bt, a, b, outcomes, n_resamples=1000, seed=0)
    ...  # other work here, on this core
    fits = pending.result()  # the child's return value (or its exception, raised here)

The child is a fork of this process: it sees the same arrays (copy on write) and runs the same code, so
its result is the one this process would have computed; it is sent back pickled through a pipe (our own
process's bytes, never a file's). The child runs BLAS on one thread, as the fits do anyway. Without a
safe fork (not Linux, other threads running, inside such a child, JUDGEBENCH_BACKGROUND=0) the function
runs right here instead, at `in_background`, with the same result.
"""

from __future__ import annotations

import os
import pickle
import sys
import threading
from collections.abc import Callable
from typing import Any

_LEFT_OVER: list[int] = []  # children whose result was never asked for (reaped on the next start)


def can_fork() -> bool:
    """Whether a child may be forked here: Linux, this thread alone, not turned off."""
    return (
        os.environ.get("JUDGEBENCH_BACKGROUND", "1") != "0"
        and sys.platform.startswith("linux")
        and hasattr(os, "fork")
        and threading.active_count() == 1
    )


class Pending:
    """The result of `in_background`: `result()` waits for it (once)."""

    def __init__(self, pid: int = 0, fd: int = -1, value: Any = None, error: BaseException | None = None):
        self.pid, self.fd, self.value, self.error = pid, fd, value, error

    def result(self) -> Any:
        if self.pid:
            self._collect()
        if self.error is not None:
            raise self.error
        return self.value

    def _collect(self) -> None:
        chunks = []
        try:
            while chunk := os.read(self.fd, 1 << 20):
                chunks.append(chunk)
        finally:
            os.close(self.fd)
            _, status = os.waitpid(self.pid, 0)
            self.pid, self.fd = 0, -1
        payload = b"".join(chunks)
        if not payload:
            self.error = RuntimeError(f"background computation ended without a result (status {status})")
            return
        ok, value = pickle.loads(payload)
        self.value, self.error = (value, None) if ok else (None, value)

    def __del__(self) -> None:  # never asked for: let the child go
        if self.pid:
            try:
                os.close(self.fd)
            except OSError:
                pass
            _LEFT_OVER.append(self.pid)


def in_background(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Pending:
    """fn(*args, **kwargs) in a forked child when one can be forked, else now (module docstring)."""
    _reap_left_over()
    if not can_fork():
        try:
            return Pending(value=fn(*args, **kwargs))
        except Exception as exc:
            return Pending(error=exc)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, send, exit without running the parent's exit handlers
        code = 0
        try:
            os.close(read_fd)
            os.environ["JUDGEBENCH_BACKGROUND"] = "0"  # no grandchildren
            try:
                message = (True, fn(*args, **kwargs))
            except Exception as exc:
                message = (False, exc)
            try:
                payload = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
            except Exception as exc:  # an unpicklable result or exception: its text
                payload = pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
            view = memoryview(payload)
            while view:
                view = view[os.write(write_fd, view):]
        except BaseException:  # interrupted, or the parent is gone (broken pipe)
            code = 1
        finally:
            os._exit(code)
    os.close(write_fd)
    return Pending(pid=pid, fd=read_fd)


def _reap_left_over() -> None:
    for pid in list(_LEFT_OVER):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _LEFT_OVER.remove(pid)
