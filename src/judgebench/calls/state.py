"""What the live and the batch path share: the run's state (replies, stop reason, calls
made, cache and its write failures), recording finished replies, and running a
coroutine to completion from sync code, inside an event loop or not."""

from __future__ import annotations

import asyncio
import concurrent.futures
import sqlite3
from collections.abc import Callable, Coroutine
from typing import Any

from judgebench.calls.cache import ReplyCache
from judgebench.calls.options import RunnerOptions, RunOutcome
from judgebench.calls.progress import Progress
from judgebench.core.records import IN_FLIGHT, JudgeReply, JudgeRequest
from judgebench.core.secrets import run_secrets, scrub_reply, scrub_text
from judgebench.judges.base import Judge


def uses_cache(judge: Judge, options: RunnerOptions) -> bool:
    """Whether the run reads and writes the reply cache (cacheable judges only)."""
    return options.use_cache and bool(getattr(judge, "cacheable", False))


def in_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run_to_completion(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """asyncio.run(main()); from inside a running event loop (a notebook), in a thread."""
    if in_event_loop():
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, main()).result()
    else:
        asyncio.run(main())


class RunState:
    """The state of one run of requests through a judge."""

    def __init__(
        self,
        requests: list[JudgeRequest],
        judge: Judge,
        options: RunnerOptions,
        is_parseable: Callable[[JudgeRequest, str], bool],
    ):
        self.requests = requests
        self.judge = judge
        self.options = options
        self.is_parseable = is_parseable
        self.replies: list[JudgeReply | None] = [None] * len(requests)
        self.secrets = run_secrets(judge.secret_values())  # scrubbed from every reply before it is kept
        self.stopped: str | None = None
        self.calls_made = 0
        self.failed = 0
        self.replied = 0  # requests with an answer (parseable or not), from the cache too (the worker: the parent's too)
        self.unreachable = 0  # calls with no answer to their last retry: connection errors, timeouts (live.py)
        self.in_flight: set[int] = set()  # requests sent and not yet finished (an outcome marks them, not as unsent)
        self.cache: ReplyCache | None = None
        self.cache_error: str | None = None  # the cache could not be written: stop when done
        self.progress: Progress | None = None
        self.on_finish: Callable[[int, JudgeReply], None] | None = None

    def open_cache(self) -> ReplyCache | None:
        """The reply cache of this run, or None when it does not use one."""
        if self.cache is None and uses_cache(self.judge, self.options):
            self.cache = ReplyCache(self.options.cache_dir)
        return self.cache

    def start_progress(self, total: int) -> None:
        if self.progress is None and self.options.progress:
            self.progress = Progress(total, self.options.progress_label)

    def record(self, indices: list[int], reply: JudgeReply, *, cached: bool = False) -> None:
        """`reply` answers the requests at `indices`; the first one paid for it, the
        others (identical requests) are marked cached, as are replies from the cache."""
        reply = scrub_reply(self.judge.repriced(reply) if cached else reply, self.secrets)
        self.in_flight.difference_update(indices)
        for position, index in enumerate(indices):
            copy = cached or position > 0
            self.replies[index] = reply.model_copy(update={"cached": True}) if copy else reply
        if reply.text is None:
            self.failed += len(indices)
        else:
            self.replied += len(indices)
        parseable = reply.text is not None and self.is_parseable(self.requests[indices[0]], reply.text)
        for index in indices:
            finished = self.replies[index]
            assert finished is not None
            if self.on_finish is not None:
                self.on_finish(index, finished)
            if self.progress is not None:
                self.progress.add(finished, parseable)

    def store(self, key: str | None, reply: JudgeReply, request: JudgeRequest) -> bool:
        """Commit an answer to the cache. A failed write (disk full, read-only) sets
        cache_error: nothing new is sent, the answers received are kept in the replies,
        and the run stops once the calls in flight are done. False when it failed."""
        return self.store_answer(key, reply, request.prompt_hash)

    def store_answer(self, key: str | None, reply: JudgeReply, prompt_hash: str) -> bool:
        """store() by prompt hash (the batch path stores answers for requests not in this run too)."""
        if self.cache is None or self.cache_error or key is None or reply.text is None:
            return self.cache_error is None
        reply = scrub_reply(reply, self.secrets)
        try:
            self.cache.put(key, reply, judge=self.judge.id, prompt_hash=prompt_hash,
                           endpoint=served_endpoint(self.judge))
        except (sqlite3.Error, OSError) as exc:
            self.cache_broken(exc)
            return False
        return True

    def cache_broken(self, exc: BaseException) -> None:
        if self.cache_error is None:
            path = getattr(self.cache, "path", self.options.cache_dir)
            self.cache_error = (
                f"cache {path}: cannot write ({exc}); stopped, the answers received are kept "
                "in this run's results"
            )

    def close_state(self) -> None:
        """Close the bar and the cache; a cache error becomes the stop reason."""
        if self.cache_error is not None:
            self.stopped = self.stopped or self.cache_error
        if self.progress is not None:
            self.progress.close()
            self.progress = None
        if self.cache is not None:
            self.cache.close()
            self.cache = None

    def outcome(self, stopped: str | None = None) -> RunOutcome:
        """The run's replies, why it stopped (`stopped`, else its own reason; a reason quoting a provider's error is
        scrubbed of every secret, as the replies are) and the calls sent."""
        reason = stopped if stopped is not None else self.stopped
        return RunOutcome(self.final_replies(), None if reason is None else scrub_text(reason, self.secrets),
                          self.calls_made)

    def final_replies(self) -> list[JudgeReply | None]:
        """Every reply; a request sent and not finished when the run stopped is FAILED `in_flight` (its answer not
        waited for), and only one never sent is left None (not attempted)."""
        sent = JudgeReply(error=IN_FLIGHT)
        return [sent if reply is None and index in self.in_flight else reply
                for index, reply in enumerate(self.replies)]


def served_endpoint(judge: Any) -> str | None:
    """The api_base (secrets redacted) a judge's answers come from; None: the provider's default."""
    address = getattr(judge, "served_endpoint", None)
    return address() if callable(address) else None
