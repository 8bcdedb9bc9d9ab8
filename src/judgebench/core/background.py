"""Pure computations in forked children while this process goes on: the second core for `report` (its
style bootstrap on large runs, and its plots, whose imports are done while the samples are read) and for
`score` (its leaderboard diagnostics' fits on large runs, while it bootstraps the metrics).

    pending = in_background(paired_bootstrap_bt, a, b, outcomes, n_resamples=1000, seed=0)
    ...  # other work here, on this core
    fits = pending.result()  # the child's return value (or its exception, raised here)

    with prepared(render, warm=import_matplotlib) as plotter:  # the child imports now, while we read
        ...
        sections = plotter.send(out_dir, diag).result()  # it renders while we write the other files

The child is a fork of this process: it sees the same arrays (copy on write) and runs the same code, so
its result is the one this process would have computed; it is sent back pickled through a pipe (our own
process's bytes, never a file's). The child runs BLAS on one thread, as the fits do anyway. A preload
thread (preload.py) is let finish its imports before the fork. A child whose result is no longer wanted (an error
or an interrupt in this process) is stopped with SIGTERM, on which it unwinds through its `finally` blocks (a
file it was writing atomically leaves no temporary), and SIGKILLed only after STOP_GRACE_S. Without a safe fork (not Linux, other threads
running, inside such a child, JUDGEBENCH_BACKGROUND=0) the function runs right here instead, at
`in_background` or at `send`, with the same result.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from judgebench.core import preload
from judgebench.core.errors import JudgebenchError, Stopped

_LEFT_OVER: list[int] = []  # children whose result was never asked for (reaped on the next start)
_LET_GO: list[int] = []  # children left to finish by themselves (a call worker caching the calls in flight at a
# stop): reaped on the next start when they have exited, never stopped with this process
_RUNNING: set[int] = set()  # children not yet collected: stopped with this process (interrupted, or leaving)
STOP_GRACE_S = 2.0  # a stopped child's time to remove its temporary files (after SIGTERM) before SIGKILL
_PARENT_ENDS: set[int] = set()  # this process's ends of its children's pipes, closed in every later child: a
# prepared child sees the end of its arguments only when no copy of their write end is left open elsewhere


def can_fork() -> bool:
    """Whether a child may be forked here: Linux, this thread alone, not turned off."""
    return (
        os.environ.get("JUDGEBENCH_BACKGROUND", "1") != "0"
        and sys.platform.startswith("linux")
        and hasattr(os, "fork")
        and threading.active_count() == 1
    )


def no_tqdm_monitor() -> None:
    """tqdm starts a monitor thread with its first bar (ours, or one `datasets` makes inside a load even with its
    bars off); the thread lives on, and `can_fork` then refuses every later child. Our bars need no monitor."""
    from tqdm import std

    std.tqdm.monitor_interval = 0


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
        except BaseException:  # interrupted while waiting: the child's work is not wanted any more
            self.cancel()
            raise
        _close_end(self.fd)
        _, status = os.waitpid(self.pid, 0)
        _RUNNING.discard(self.pid)
        self.pid, self.fd = 0, -1
        payload = b"".join(chunks)
        if not payload or not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):  # killed mid-send: a
            self.error = Stopped(  # truncated payload is no result (UnpicklingError was a traceback)
                f"a computation this command ran in a forked child ended without a result ({_how(status)}); "
                "run it again, or with JUDGEBENCH_BACKGROUND=0 to compute everything in one process"
            )
            return
        ok, value = pickle.loads(payload)
        self.value, self.error = (value, None) if ok else (None, value)

    def cancel(self) -> None:
        """The result is not wanted: stop the child and reap it here (it leaves through its `finally` blocks)."""
        if self.pid:
            _close_end(self.fd)
            _stop(self.pid, reap=True)
            self.pid, self.fd = 0, -1

    def __del__(self) -> None:  # never asked for: stop the child and reap it later
        if self.pid:
            _close_end(self.fd)
            _stop(self.pid, reap=False)
            _LEFT_OVER.append(self.pid)


def _how(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit status {os.WEXITSTATUS(status)}" if os.WIFEXITED(status) else f"status {status}"


def _stop(pid: int, reap: bool = False) -> None:
    """Stop a child whose result is not wanted: SIGTERM, on which it leaves through its `finally` blocks (a file
    it was writing atomically leaves no temporary behind: a plots child); `reap`: wait for it, and SIGKILL it
    if it has not gone after STOP_GRACE_S (stuck in a long C call)."""
    _RUNNING.discard(pid)
    try:
        os.kill(pid, signal.SIGTERM)
        if reap:
            deadline = time.monotonic() + STOP_GRACE_S
            while not os.waitpid(pid, os.WNOHANG)[0]:
                if time.monotonic() > deadline:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    return
                time.sleep(0.005)
    except (ProcessLookupError, ChildProcessError):
        pass


class _StoppedByParent(BaseException):
    """Raised in a child by its parent's SIGTERM (`_stop`) or a Ctrl-C: unwinds it through its `finally` blocks."""


@atexit.register
def _stop_running() -> None:
    """This process is leaving (an error, Ctrl-C): its children's work is not wanted. Those whose result was
    dropped (already sent SIGTERM) are waited for too, so that no child outlives the command."""
    for pid in [*_RUNNING, *_LEFT_OVER]:
        _stop(pid, reap=True)
    _LEFT_OVER.clear()


def here(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Pending:
    """fn computed in this process now, its value or exception held like a child's (for callers that fork
    only for large inputs)."""
    try:
        return Pending(value=fn(*args, **kwargs))
    except Exception as exc:
        return Pending(error=exc)


class _Later(Pending):
    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]):
        super().__init__()
        self.call: tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]] | None = (fn, args, kwargs)

    def result(self) -> Any:
        if self.call is not None:
            fn, args, kwargs = self.call
            self.call = None
            done = here(fn, *args, **kwargs)
            self.value, self.error = done.value, done.error
        return super().result()


def later(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Pending:
    """fn(*args, **kwargs) computed in this process when its `result()` is first asked for (for callers
    that, without a child, should not hold its inputs or outputs meanwhile)."""
    return _Later(fn, args, kwargs)


_STOPPING = (signal.SIGTERM, signal.SIGINT)  # a child's: its parent stopping it, or a Ctrl-C to the group
_PR_SET_PDEATHSIG = 1  # prctl(2)
_armed = False  # in a child: inside `_child`, where a stop unwinds to its exit (never into the parent's code)


def _fork() -> int:
    """os.fork(). The child takes SIGTERM and SIGINT as `_child_stopped` from its first instruction (they are
    blocked across the fork: the parent's handlers would raise KeyboardInterrupt in the child, which would then
    go on running the parent's code), and closes this process's ends of earlier children's pipes
    (`_PARENT_ENDS`: a prepared child forked earlier would otherwise see its arguments end only when this one
    exits)."""
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPPING)
    parent = os.getpid()
    try:
        pid = os.fork()
        if pid == 0:
            for signum in _STOPPING:
                signal.signal(signum, _child_stopped)
            _stopped_with(parent)
            for fd in _PARENT_ENDS:
                try:
                    os.close(fd)
                except OSError:
                    pass
            _PARENT_ENDS.clear()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    return pid


def _stopped_with(parent: int) -> None:
    """In a child: SIGTERM when its parent dies, by SIGKILL too (nothing of the parent's is left to stop it: a
    plots child went on and wrote its PNGs seconds after `kill -9` of `arena`), and now if it already has. Linux's
    parent-death signal follows the forking thread, which is this process's only one (`can_fork`)."""
    try:
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM))
    except (OSError, AttributeError):  # no prctl: the parent's exit handlers still stop it
        return
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGTERM)  # held by the fork's mask until `_fork` lifts it


def _child_stopped(signum: int, frame: Any) -> None:
    """In a child: stopped by its parent (SIGTERM) or a Ctrl-C. Inside `_child` it unwinds through the work's
    `finally` blocks (an atomic write removes its temporary) to the child's exit; before that, it exits now."""
    if _armed:
        raise _StoppedByParent
    os._exit(1)


def _parent_end(fd: int) -> int:
    """`fd`, one of this process's ends of a child's pipe (closed in every later child)."""
    _PARENT_ENDS.add(fd)
    return fd


def _close_end(fd: int) -> None:
    """Close one of this process's ends of a child's pipe."""
    _PARENT_ENDS.discard(fd)
    try:
        os.close(fd)
    except OSError:
        pass


def _forked(pid: int) -> int:
    _RUNNING.add(pid)
    return pid


def in_background(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Pending:
    """fn(*args, **kwargs) in a forked child when one can be forked, else now (module docstring)."""
    reap_left_over()
    preload.settle()  # its thread's imports finished first: a fork must not cross a thread
    if not can_fork():
        return here(fn, *args, **kwargs)
    read_fd, write_fd = os.pipe()
    pid = _fork()
    if pid == 0:  # the child: compute, send, exit without running the parent's exit handlers
        os.close(read_fd)
        _child(lambda: fn(*args, **kwargs), write_fd)
    os.close(write_fd)
    return Pending(pid=_forked(pid), fd=_parent_end(read_fd))


class Prepared:
    """A child forked before its arguments are known (`prepared`): `send(*args)` once, then `result()`."""

    def __init__(self, fn: Callable[..., Any], warm: Callable[[], Any] | None):
        self.fn, self.pending, self.args_fd = fn, Pending(), -1
        reap_left_over()
        preload.settle()
        if not can_fork():
            return  # send() computes here
        args_r, args_w = os.pipe()
        result_r, result_w = os.pipe()
        pid = _fork()
        if pid == 0:
            os.close(args_w)
            os.close(result_r)
            _child(lambda: _call_with_args(fn, warm, args_r), result_w)
        os.close(args_r)
        os.close(result_w)
        self.pending, self.args_fd = Pending(pid=_forked(pid), fd=_parent_end(result_r)), _parent_end(args_w)

    @property
    def forked(self) -> bool:
        """Whether a child waits for the arguments (else `send` computes here)."""
        return self.args_fd >= 0

    def send(self, *args: Any) -> Pending:
        if self.args_fd < 0:  # no child: the function runs here, now
            self.pending = here(self.fn, *args)
            return self.pending
        payload = pickle.dumps(args, pickle.HIGHEST_PROTOCOL)
        try:
            write_all(self.args_fd, payload)
        except OSError:  # the child is gone: its result says why
            pass
        self.close()
        return self.pending

    def close(self) -> None:
        """Let the child go (EOF before arguments: it exits without computing)."""
        if self.args_fd >= 0:
            _close_end(self.args_fd)
            self.args_fd = -1

    def __enter__(self) -> Prepared:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        self.close()
        if kind is not None:  # the block failed: the child's work is not wanted (e.g. half-drawn plots: stopped
            self.pending.cancel()  # and reaped before the error goes on, so no temporary file outlives it)


def prepared(fn: Callable[..., Any], *, warm: Callable[[], Any] | None = None) -> Prepared:
    """Fork a child now that runs warm() at once (e.g. its imports) and fn(*args) when `send(*args)` gives
    them; without a safe fork, fn runs at `send` here (module docstring)."""
    return Prepared(fn, warm)


def _call_with_args(fn: Callable[..., Any], warm: Callable[[], Any] | None, args_fd: int) -> Any:
    if warm is not None:
        warm()
    chunks = []
    while chunk := os.read(args_fd, 1 << 20):
        chunks.append(chunk)
    if not chunks:  # let go before any arguments came
        raise _LetGo
    return fn(*pickle.loads(b"".join(chunks)))


class _LetGo(Exception):
    """The parent closed the arguments' pipe without sending them."""


def _child(compute: Callable[[], Any], write_fd: int) -> None:
    """In a forked child: compute, send (True, value) or (False, exception) pickled, exit without running the
    parent's exit handlers."""
    global _armed
    code = 0
    try:
        _armed = True  # a stop from here on unwinds to the `finally` below (`_child_stopped`)
        os.environ["JUDGEBENCH_BACKGROUND"] = "0"  # no grandchildren
        try:
            message = (True, compute())
        except _LetGo:
            os._exit(0)
        except Exception as exc:
            message = (False, exc)
        try:
            payload = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
            pickle.loads(payload)  # what the parent will do: an exception with other __init__ arguments fails here
        except Exception as exc:  # an unpicklable result or exception: its text, as an error of its kind
            error = message[1] if not message[0] else exc
            text = f"{type(error).__name__}: {error}"
            plain = JudgebenchError(str(error)) if isinstance(error, JudgebenchError) else RuntimeError(text)
            payload = pickle.dumps((False, plain))
        write_all(write_fd, payload)
    except BaseException:  # interrupted, or the parent is gone (broken pipe)
        code = 1
    finally:
        os._exit(code)


def write_all(fd: int, payload: bytes) -> None:
    """Every byte of `payload` to the pipe `fd` (os.write may take part of it)."""
    view = memoryview(payload)
    while view:
        view = view[os.write(fd, view):]


def reap_later(pid: int) -> None:
    """A child this process no longer waits for, left to finish by itself (a call worker caching the answers of
    the calls in flight at a stop: stopping it with this process lost every answer slower than STOP_GRACE_S,
    and the rerun paid for them again): reaped without blocking at the next fork (`reap_left_over`), never by a
    thread of its own (a thread would keep `can_fork` false meanwhile and cross every fork), and not stopped when
    this process leaves (it outlives the command, reparented; the system reaps it)."""
    _LET_GO.append(pid)


def reap_left_over() -> None:
    """Reap the children of `reap_later` and `Pending.__del__` that have exited (never waits)."""
    for children in (_LEFT_OVER, _LET_GO):
        for pid in list(children):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                children.remove(pid)
