"""The kill-safe call worker (Linux, with a cache): the calls are made by a process forked
from this one, which streams each reply back through a pipe.

Protocol, one line each, worker -> parent: `R <index> <JudgeReply json>` for each finished
request, `{"draining": true, ...}` once it sends nothing new, `{"done": true, "stopped":
...}` at the end, `{"error": ..., "type": ...}` when it failed. Parent -> worker: a
lifeline pipe that the parent never writes; EOF (the parent closed it, or died, even by
SIGKILL) makes the worker drain: it starts nothing new, finishes and caches the calls in
flight (already paid for; their claims stay in the cache so a rerun waits for them), then
exits. The count of calls sent is shared through an mmap, so it is exact after an
interrupt. The worker ignores SIGINT and SIGTERM: it follows its parent.
"""

from __future__ import annotations

import asyncio
import json
import mmap
import os
import select
import signal
import struct
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from ..errors import JudgebenchError
from ..judges.base import Judge
from ..records import JudgeReply, JudgeRequest
from .live import LiveRun
from .options import INTERRUPTED, RunnerOptions, RunOutcome
from .progress import Progress

DRAIN_ACK_TIMEOUT_S = 5.0  # an interrupted parent waits this long for the worker to stop sending


def run_in_worker(
    requests: list[JudgeRequest],
    judge: Judge,
    options: RunnerOptions,
    is_parseable: Callable[[JudgeRequest, str], bool],
) -> RunOutcome:
    """Fork the call worker and collect its replies (see the module docstring)."""
    result_r, result_w = os.pipe()
    life_r, life_w = os.pipe()
    shared_calls = mmap.mmap(-1, 8)  # the worker's calls_made, shared across the fork
    pid = os.fork()
    if pid == 0:  # the call worker
        code = 0
        try:
            os.close(result_r)
            os.close(life_w)
            # the parent decides (Ctrl-C reaches the whole process group); see lifeline
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            _worker_main(requests, judge, options, is_parseable, result_w, life_r, shared_calls)
        except BaseException:  # noqa: BLE001 - reported to the parent, then exit
            code = 1
        finally:
            os._exit(code)
    os.close(result_w)
    os.close(life_r)
    collector = _Collector(requests, is_parseable, options.progress)
    reader = _LineReader(result_r)
    status = 0
    try:
        for line in reader.lines():
            collector.take(line)
    except KeyboardInterrupt:
        collector.stopped = INTERRUPTED
        os.close(life_w)  # the worker finishes the calls in flight, caches them and exits
        life_w = -1
        # until the worker confirms it sends nothing new: the replies it sent are kept and
        # the count of calls sent is final (a stuck worker is not waited for long)
        for line in reader.lines(timeout_s=DRAIN_ACK_TIMEOUT_S):
            if line.startswith(b'{"draining"'):
                break
            collector.take(line)
        threading.Thread(target=_reap, args=(pid,), daemon=True).start()
        pid = 0
    finally:
        reader.close()
        if collector.progress is not None:
            collector.progress.close()
        if life_w >= 0:
            os.close(life_w)
        if pid:
            _, status = os.waitpid(pid, 0)
    calls_made = struct.unpack_from("q", shared_calls, 0)[0]
    return collector.outcome(calls_made, status)


class _Collector:
    """The parent's side of the protocol: replies, stop reason, the worker's error."""

    def __init__(self, requests: list[JudgeRequest], is_parseable: Callable[[JudgeRequest, str], bool], bar: bool):
        self.requests = requests
        self.is_parseable = is_parseable
        self.replies: list[JudgeReply | None] = [None] * len(requests)
        self.stopped: str | None = None
        self.finished = False
        self.error: tuple[str, str] | None = None
        self.progress = Progress(len(requests)) if bar else None

    def take(self, line: bytes) -> None:
        if line.startswith(b"R "):  # R <index> <reply json>
            _, index_text, body = line.split(b" ", 2)
            index = int(index_text)
            reply = self.replies[index] = JudgeReply.model_validate_json(body)
            if self.progress is not None:
                text = reply.text
                self.progress.add(reply, text is not None and self.is_parseable(self.requests[index], text))
            return
        message = json.loads(line)
        if "done" in message:
            self.stopped, self.finished = message["stopped"], True
        elif "error" in message:
            self.error = (message["type"], message["error"])

    def outcome(self, calls_made: int, status: int) -> RunOutcome:
        if self.error is not None:
            if self.error[0] == "JudgebenchError":
                raise JudgebenchError(self.error[1])
            raise RuntimeError(f"judge call worker failed: {self.error[0]}: {self.error[1]}")
        stopped = self.stopped
        if not self.finished and stopped is None:
            stopped = f"the judge call worker exited unexpectedly (status {status})"
        return RunOutcome(self.replies, stopped, calls_made)


class _LineReader:
    """Lines from the worker's pipe."""

    def __init__(self, fd: int):
        self.fd = fd
        self.buffer = b""

    def lines(self, *, timeout_s: float | None = None) -> Iterator[bytes]:
        """Each line until EOF; with `timeout_s`, also stop once that time has passed."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                yield line
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not select.select([self.fd], [], [], remaining)[0]:
                    return
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return
            self.buffer += chunk

    def close(self) -> None:
        try:
            os.close(self.fd)
        except OSError:
            pass


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _worker_main(
    requests: list[JudgeRequest],
    judge: Judge,
    options: RunnerOptions,
    is_parseable: Callable[[JudgeRequest, str], bool],
    result_fd: int,
    lifeline_fd: int,
    shared_calls: mmap.mmap,
) -> None:
    """In the forked worker: run, stream every finished reply, drain when the parent goes."""
    run = LiveRun(requests, judge, replace(options, progress=False), is_parseable)
    run.shared_calls = shared_calls
    parent_gone = False

    def send(message: dict[str, Any] | bytes) -> None:
        nonlocal parent_gone
        if parent_gone:
            return
        if isinstance(message, bytes):
            data = message
        else:
            data = (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8")
        try:
            while data:
                written = os.write(result_fd, data)
                data = data[written:]
        except OSError:  # the parent died: keep draining, stop writing
            parent_gone = True
            run.start_draining()

    run.on_finish = lambda index, reply: send(b"R %d %s\n" % (index, reply.model_dump_json().encode("utf-8")))

    async def main() -> None:
        loop = asyncio.get_running_loop()

        def lifeline() -> None:  # readable = EOF: the parent closed it, or died
            loop.remove_reader(lifeline_fd)
            run.start_draining()
            send({"draining": True, "calls_made": run.calls_made})  # nothing new from here

        loop.add_reader(lifeline_fd, lifeline)
        try:
            await run.run()
        finally:
            loop.remove_reader(lifeline_fd)
            await run.close()

    try:
        asyncio.run(main())
    except BaseException as exc:  # noqa: BLE001
        send({"error": str(exc), "type": type(exc).__name__})
        raise
    if run.draining and run.stopped is None:
        run.stopped = INTERRUPTED
    send({"done": True, "stopped": run.stopped, "calls_made": run.calls_made})
