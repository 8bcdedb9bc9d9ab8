"""The kill-safe call worker (Linux, with a cache): the calls are made by a process forked
from this one, which streams each reply back through a pipe.

The worker can be started before the requests are known (`CallWorker(judge, options)`,
the pipeline does it before loading the data): it imports the judge's SDK and makes its
clients on the other core while this process loads and renders the prompts. This
process reads the cache first and records its hits; only the requests still to ask go to
the worker (pickled, with the parser; without the question and responses when the judge reads only the
rendered messages), so a fully cached rerun forks nothing.

Protocol. Parent -> worker, on the lifeline pipe: one job (8-byte length, then the
pickled (requests, is_parseable)); then nothing, and EOF (the parent closed it, or died,
even by SIGKILL) makes the worker drain: it starts nothing new, finishes and caches the
calls in flight (already paid for; their claims stay in the cache so a rerun waits for
them), then exits. EOF before a job: the worker exits. Worker -> parent, one line each:
`R <index> <JudgeReply json>` per finished request (index into the job's requests),
`{"draining": true, "in_flight": [...]}` once it sends nothing new (the job indices sent and not
finished: the parent records them FAILED `in_flight`, not waiting for them), `{"done": true, "stopped": ...,
"in_flight": [...]}` at the end (the calls a stop cancelled), `{"error": ..., "type": ...}` when it failed. The count of calls sent is shared
through an mmap, so it is exact after an interrupt. The worker ignores SIGINT and
SIGTERM: it follows its parent.
"""

from __future__ import annotations

import asyncio
import json
import mmap
import os
import pickle
import select
import signal
import struct
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from judgebench.calls.live import LiveRun
from judgebench.calls.options import INTERRUPTED, RunnerOptions, RunOutcome
from judgebench.calls.stopping import hold_interrupts
from judgebench.core.background import reap_later, reap_left_over, write_all
from judgebench.core.errors import JudgebenchError
from judgebench.core.preload import settle
from judgebench.core.records import JudgeReply, JudgeRequest
from judgebench.judges.base import Judge

DRAIN_ACK_TIMEOUT_S = 5.0  # an interrupted parent waits this long for the worker to stop sending
RETRY_CUT_WAIT_S = 1.0  # the worker waits this long for the calls waiting for a retry to end (they look each 0.25 s)
_LENGTH = struct.Struct("q")


class CallWorker:
    """A forked call worker, warming up from the moment it is made (see the module
    docstring). Give it one run with `run()`, or `close()` it unused."""

    def __init__(self, judge: Judge, options: RunnerOptions):
        self.options = options
        self.needs_texts = judge.needs_texts
        result_r, result_w = os.pipe()
        life_r, life_w = os.pipe()
        self.shared_calls = mmap.mmap(-1, 8)  # the worker's calls_made, shared across the fork
        settle()  # no import lock held by a preload thread crosses the fork (preload.py)
        reap_left_over()  # call workers let go earlier, if they have exited
        pid = os.fork()
        if pid == 0:  # the call worker
            code = 0
            try:
                os.close(result_r)
                os.close(life_w)
                # the parent decides (Ctrl-C reaches the whole process group); see lifeline
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                _worker_main(judge, options, result_w, life_r, self.shared_calls)
            except BaseException:  # reported to the parent, then exit
                code = 1
            finally:
                os._exit(code)
        os.close(result_w)
        os.close(life_r)
        self.pid = pid
        self.result_fd = result_r
        self.life_fd = life_w

    def run(self, run: LiveRun, indices: list[int]) -> RunOutcome:
        """Ask the requests at `indices` of `run` (cache hits already recorded there) in the
        worker; its replies go into `run`. Ctrl-C: the worker drains (module docstring)."""
        job = [run.requests[i] if self.needs_texts else _without_texts(run.requests[i]) for i in indices]
        collector = _Collector(run, indices)
        reader = _LineReader(self.result_fd)
        self.result_fd = -1
        status = 0
        try:
            try:
                _send_job(self.life_fd, pickle.dumps((job, run.is_parseable, run.replied), pickle.HIGHEST_PROTOCOL))
            except OSError:  # the worker is gone: its error, if any, is on the result pipe
                pass
            for line in reader.lines():
                collector.take(line)
        except KeyboardInterrupt:
            hold_interrupts()  # a second Ctrl-C during the drain must not lose the replies (stopping.py)
            collector.stopped = INTERRUPTED
            self._close_lifeline()  # the worker finishes the calls in flight, caches them and exits
            # until the worker confirms it sends nothing new: the replies it sent are kept and
            # the count of calls sent is final (a stuck worker is not waited for long)
            for line in reader.lines(timeout_s=DRAIN_ACK_TIMEOUT_S):
                collector.take(line)
                if line.startswith(b'{"draining"'):
                    break
            self.close()
        finally:
            reader.close()
            self._close_lifeline()
            if self.pid:
                _, status = os.waitpid(self.pid, 0)
                self.pid = 0
        return collector.outcome(_LENGTH.unpack_from(self.shared_calls, 0)[0], status)

    def _close_lifeline(self) -> None:
        if self.life_fd >= 0:
            os.close(self.life_fd)
            self.life_fd = -1

    def close(self) -> None:
        """Let the worker go without waiting for it (unused: EOF before a job, it exits)."""
        self._close_lifeline()
        if self.result_fd >= 0:
            os.close(self.result_fd)
            self.result_fd = -1
        if self.pid:
            reap_later(self.pid)  # reaped at the next fork: no thread waits for it (background.py)
            self.pid = 0


def _without_texts(request: JudgeRequest) -> JudgeRequest:
    """The request as a judge that reads only its rendered messages needs it (half the bytes to pickle);
    the records are made from the full request, in this process."""
    return request.model_copy(update={"question": "", "first": "", "second": ""})


def _send_job(fd: int, payload: bytes) -> None:
    write_all(fd, _LENGTH.pack(len(payload)) + payload)


class _Collector:
    """The parent's side of the protocol: replies into the run, stop reason, the worker's error."""

    def __init__(self, run: LiveRun, indices: list[int]):
        self.run = run
        self.indices = indices
        self.stopped: str | None = None
        self.finished = False
        self.error: tuple[str, str] | None = None

    def take(self, line: bytes) -> None:
        if line.startswith(b"R "):  # R <job index> <reply json>
            _, index_text, body = line.split(b" ", 2)
            index = self.indices[int(index_text)]
            reply = self.run.replies[index] = JudgeReply.model_validate_json(body)
            if self.run.progress is not None:
                text = reply.text
                parseable = text is not None and self.run.is_parseable(self.run.requests[index], text)
                self.run.progress.add(reply, parseable)
            return
        message = json.loads(line)
        if "waiting" in message:  # requests waiting for a retry, and why: for the progress bar
            if self.run.progress is not None:
                self.run.progress.waiting(message["waiting"])
            return
        if "draining" in message or "done" in message:  # the calls still in flight: sent, and not waited for
            self.run.in_flight.update(self.indices[i] for i in message.get("in_flight", ()))
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
        outcome = self.run.outcome(stopped)
        outcome.calls_made = calls_made
        return outcome


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


class _JobReader:
    """Reads the one job from the lifeline pipe, without blocking the event loop."""

    def __init__(self, fd: int):
        self.fd = fd
        self.buffer = bytearray()  # appended in place: a job of megabytes arrives in pipe-sized chunks
        self.eof = False

    def feed(self) -> bool:
        """Read what is there; True once the job is complete or the pipe is at EOF."""
        chunk = os.read(self.fd, 1 << 20)
        if not chunk:
            self.eof = True
        self.buffer += chunk
        return self.eof or self.job() is not None

    def job(self) -> bytes | None:
        if len(self.buffer) < _LENGTH.size:
            return None
        size = _LENGTH.unpack_from(self.buffer)[0]
        if len(self.buffer) < _LENGTH.size + size:
            return None
        return bytes(self.buffer[_LENGTH.size : _LENGTH.size + size])


async def _receive_job(judge: Judge, lifeline_fd: int) -> tuple[list[JudgeRequest], Any, int] | None:
    """Warm the judge up while the job arrives; None when the parent closed the lifeline
    (or died) before sending a complete one."""
    loop = asyncio.get_running_loop()
    reader = _JobReader(lifeline_fd)
    arrived = loop.create_future()

    def readable() -> None:
        if reader.feed() and not arrived.done():
            arrived.set_result(None)

    loop.add_reader(lifeline_fd, readable)
    warming = threading.Event()
    warming.set()
    threading.Thread(target=_exit_if_let_go, args=(lifeline_fd, reader, warming), daemon=True).start()
    try:
        try:  # imports and clients, on this core, while the parent loads the data
            await judge.warm_up()
        except Exception:  # an optimisation: the first call reports the problem
            pass
        finally:
            warming.clear()
        await arrived
    finally:
        loop.remove_reader(lifeline_fd)
    payload = reader.job()
    return None if payload is None else pickle.loads(payload)


def _exit_if_let_go(lifeline_fd: int, reader: _JobReader, warming: threading.Event) -> None:
    """While the worker warms up (the SDK import takes seconds of CPU): when the parent closes the lifeline
    before sending any byte of a job (every answer was cached, or the run stopped first), exit now rather
    than finish an import nobody will use, which on a busy machine takes CPU from the parent's scoring.
    The same exit as `_receive_job` returning None after the warm-up: code 0, nothing written. Any byte of a
    job (POLLIN) leaves the worker to the normal path, which reads it."""
    poller = select.poll()
    poller.register(lifeline_fd, select.POLLIN | select.POLLHUP)
    while warming.is_set():
        events = poller.poll(50)  # ms; releases the GIL
        if not events:
            continue
        if events[0][1] & select.POLLIN:  # a job is arriving (or arrived, then the parent went): read it
            return
        if events[0][1] & (select.POLLHUP | select.POLLERR) and warming.is_set() and not reader.buffer:
            os._exit(0)
        return


def _release_standard_streams() -> None:
    """The drain may outlive the command: the worker lets go of the terminal or pipe it inherited (stdin, stdout,
    stderr), so whoever reads the command's output sees it end when the command does (`judgebench run | tee log` and
    a CI step's capture waited for the calls in flight, up to --timeout times the retries)."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)


def _worker_main(
    judge: Judge, options: RunnerOptions, result_fd: int, lifeline_fd: int, shared_calls: mmap.mmap
) -> None:
    """In the forked worker: warm up, take the job, run it, stream every finished reply,
    drain when the parent goes."""
    parent_gone = False
    run: LiveRun | None = None

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
            _release_standard_streams()
            if run is not None:
                run.start_draining()

    async def main() -> None:
        nonlocal run
        job = await _receive_job(judge, lifeline_fd)
        if job is None:
            return
        requests, is_parseable, replied = job
        run = LiveRun(requests, judge, replace(options, progress=False), is_parseable)
        run.replied = replied  # the parent's answers from the cache: the endpoint's state is not judged by them
        run.shared_calls = shared_calls
        run.on_finish = lambda i, reply: send(b"R %d %s\n" % (i, reply.model_dump_json().encode("utf-8")))
        run.on_waiting = lambda retrying: send({"waiting": retrying})
        loop = asyncio.get_running_loop()
        acknowledging: list[asyncio.Task[None]] = []

        def lifeline() -> None:  # readable = EOF: the parent closed it, or died
            loop.remove_reader(lifeline_fd)
            _release_standard_streams()
            assert run is not None
            run.start_draining()
            acknowledging.append(loop.create_task(acknowledge_drain(run)))

        async def acknowledge_drain(run: LiveRun) -> None:
            """Nothing new is sent from here. The calls waiting for a retry end at once (the drain cuts their
            wait short) and their replies go to the parent first; then the calls sent and not finished, which the
            parent stops waiting for (it had counted the waiting ones among them: "answers still in flight go to
            the cache", where none would come)."""
            deadline = time.monotonic() + RETRY_CUT_WAIT_S
            while run.retrying and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            send({"draining": True, "calls_made": run.calls_made, "in_flight": sorted(run.in_flight)})

        loop.add_reader(lifeline_fd, lifeline)
        try:
            await run.run()
        finally:
            loop.remove_reader(lifeline_fd)
            for task in acknowledging:  # said before the end
                await task
            await run.close()

    try:
        asyncio.run(main())
    except BaseException as exc:
        send({"error": str(exc), "type": type(exc).__name__})
        raise
    if run is None:
        return  # let go before a job: nothing was asked
    if run.draining and run.stopped is None:
        run.stopped = INTERRUPTED
    send({"done": True, "stopped": run.stopped, "calls_made": run.calls_made,  # the calls a stop cancelled (a
          "in_flight": sorted(run.in_flight)})  # fatal error, --max-failures): sent, their answers not waited for
