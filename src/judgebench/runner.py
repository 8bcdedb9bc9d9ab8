"""The judge runner: concurrency, rate limits, retries, timeouts, re-asks and the reply cache.

    outcome = run_requests(requests, judge, RunnerOptions(concurrency=64), is_parseable)

Every request ends with a JudgeReply (text set: answered, parseable or not; text None
and error set: failed after the last retry) unless the run stopped early, in which case
the requests never finished are None and `outcome.stopped` says why.

- Concurrency: at most `concurrency` calls in flight; a call waiting out its backoff
  does not hold a slot.
- Rate limits: `rpm` (requests) and `tpm` (tokens: prompt characters / 4 before the
  call, corrected with the reported usage after) as token buckets holding one second's
  worth, refilled continuously.
- Retries: 429, 5xx, timeouts and connection errors (JudgeCallError.retryable) are
  retried up to `max_retries` times after the first attempt, waiting
  uniform(0, min(backoff_max_s, backoff_base_s * 2**n)) (full jitter) but never less
  than the server's Retry-After (capped at 600 s). Each attempt has `timeout_s`, counted
  from the attempt's start (the judge's own request timeout; the runner cancels that
  attempt alone after a grace). `judge.warm_up()` (imports, clients) runs before the
  first attempt, so it is never charged to it.
- Fatal errors: a non-retryable error (400, 401/403, 404...) stops the whole run at
  once: in-flight calls are cancelled, finished replies are kept. A JudgeCallError with
  `fatal=False` (e.g. one prompt exceeds the context window) fails that call only.
- `max_failures`: the run stops cleanly once that many calls have FAILED.
- Re-ask: an answer that does not parse is asked again up to `reask` times, with the
  bad answer appended as an assistant message and a short reminder of the allowed
  verdicts; the earlier raw answers go to `JudgeReply.earlier_texts`.
- Cache (cacheable judges only, see cache.py): answered replies are committed the
  moment they return, intermediate unparseable answers of a re-ask chain included, so
  a killed run loses at most its in-flight calls. A cache hit makes no call; a cached
  unparseable answer with fewer re-asks than `reask` asks the missing re-asks only.
  Identical requests (same key) within one run are sent once. Each key is claimed in the
  cache before its call; a key claimed by another live process (a second run on the same
  cache) is waited for and its answer taken, never paid twice.
- Cache write failure (disk full): the run drains (nothing new is sent, calls in flight
  finish) and stops; every answer received is in the replies, cached or not.
- Ctrl-C, and SIGTERM while run_requests runs: returns what finished so far with
  `stopped="interrupted (SIGINT|SIGTERM): N calls sent; ..."`.
- Kill safety (Linux, with a cache): the calls are made by a forked call worker that
  streams replies back. When this process dies (even by SIGKILL) or is interrupted, the
  worker starts nothing new, finishes and caches the calls in flight (their claims stay
  in the cache until then, so a rerun waits for them instead of paying twice), then
  exits. Its count of calls sent is shared with this process (calls_made is exact even
  after an interrupt).
  JUDGEBENCH_CALL_WORKER=0 keeps everything in this process.
- Batch (`options.batch`): run_requests hands the whole run to batch.run_batch (the
  provider's batch API, same cache and records, no re-ask, no call worker).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import mmap
import os
import random
import select
import signal
import sqlite3
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cache import pid_alive
from .errors import JudgebenchError
from .judges.base import Judge, JudgeCallError
from .records import JudgeReply, JudgeRequest

RETRY_AFTER_CAP_S = 600.0
REASK_TEMPLATE = (
    "I could not find a verdict in your answer. Answer again, following the answer "
    "format given in the instructions exactly, with one of these verdicts: {verdicts}."
)


@dataclass
class RunnerOptions:
    concurrency: int = 16
    timeout_s: float = 120.0  # per attempt
    max_retries: int = 5  # retries after the first attempt, for retryable errors
    reask: int = 0  # extra asks when the answer does not parse
    max_failures: int | None = None  # stop cleanly after this many FAILED calls
    rpm: int | None = None
    tpm: int | None = None
    use_cache: bool = True
    refresh_cache: bool = False  # ignore cached answers but write new ones
    cache_dir: Path | None = None  # default: platformdirs.user_cache_dir("judgebench")
    progress: bool = True
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0
    batch: bool = False  # send the calls through the provider's batch API (batch.py)
    batch_poll_s: float = 30.0  # seconds between batch status polls


@dataclass
class RunOutcome:
    replies: list[JudgeReply | None]  # aligned with the requests; None = never finished
    stopped: str | None  # why the run stopped early, else None
    calls_made: int  # attempts sent to the judge (cache hits excluded)


class _Stop(Exception):
    """Raised inside a worker to end the run (fatal error, max failures)."""


class _Fatal(_Stop):
    """A non-retryable error of this request that stops the whole run."""


class _Drained(Exception):
    """The run is draining (parent gone, interrupted, cache unwritable): nothing new starts.
    `error`: the last error of an attempt that is not retried because of it."""

    def __init__(self, error: str | None = None):
        super().__init__(error or "draining")
        self.error = error


# how much longer than --timeout the runner waits for an attempt before cancelling it
# itself: the judge's own per-request timeout (the SDK's, litellm's) fires first
TIMEOUT_GRACE_S = 2.0
CLAIM_POLL_S = 0.1
DRAIN_ACK_TIMEOUT_S = 5.0  # an interrupted parent waits this long for the worker to stop sending


class TokenBucket:
    """An async token bucket: `rate` per second, holding at most `capacity`."""

    def __init__(self, rate: float, capacity: float):
        self.rate = rate
        self.capacity = max(1.0, capacity)
        self.level = self.capacity
        self.stamp = time.monotonic()
        self.lock = asyncio.Lock()

    def _refill(self) -> None:
        now = time.monotonic()
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.rate)
        self.stamp = now

    async def acquire(self, amount: float = 1.0) -> None:
        async with self.lock:  # first come, first served
            need = min(amount, self.capacity)
            while True:
                self._refill()
                if self.level >= need:
                    self.level -= amount  # may go below zero for a large request
                    return
                await asyncio.sleep((need - self.level) / self.rate)

    def adjust(self, delta: float) -> None:
        self._refill()
        self.level = min(self.capacity, self.level - delta)


def reask_messages(request: JudgeRequest, texts: list[str]) -> list[dict[str, str]]:
    """The original messages followed by each unparseable answer and a reminder."""
    reminder = REASK_TEMPLATE.format(verdicts=", ".join(request.verdicts))
    messages = list(request.messages)
    for text in texts:
        messages.append({"role": "assistant", "content": text})
        messages.append({"role": "user", "content": reminder})
    return messages


@dataclass
class _Item:
    request: JudgeRequest
    indices: list[int]
    key: str | None
    prior: JudgeReply | None = None  # cached state of an unfinished re-ask chain
    claimed: bool = False  # this process holds the key's claim in the cache


@dataclass
class _Totals:
    """Usage summed over the answered attempts of one request."""

    tokens_in: int | None = None
    tokens_out: int | None = None
    cost: float | None = 0.0
    latency: float = 0.0
    attempts: int = 0
    texts: list[str] = field(default_factory=list)

    @classmethod
    def from_reply(cls, reply: JudgeReply) -> _Totals:
        texts = list(reply.earlier_texts) + ([reply.text] if reply.text is not None else [])
        return cls(
            reply.tokens_in, reply.tokens_out, reply.cost_usd, reply.latency_s, reply.attempts, texts
        )

    def add(self, reply: JudgeReply) -> None:
        if reply.tokens_in is not None:
            self.tokens_in = (self.tokens_in or 0) + reply.tokens_in
        if reply.tokens_out is not None:
            self.tokens_out = (self.tokens_out or 0) + reply.tokens_out
        self.cost = None if self.cost is None or reply.cost_usd is None else self.cost + reply.cost_usd
        self.latency += reply.latency_s
        self.texts.append(reply.text if reply.text is not None else "")

    def reply(self, error: str | None = None) -> JudgeReply:
        if error is not None and not self.texts:
            return JudgeReply(
                text=None,
                error=error,
                tokens_in=self.tokens_in,
                tokens_out=self.tokens_out,
                cost_usd=self.cost if self.tokens_in is not None else None,
                latency_s=self.latency,
                attempts=self.attempts,
            )
        return JudgeReply(
            text=self.texts[-1],
            tokens_in=self.tokens_in,
            tokens_out=self.tokens_out,
            cost_usd=self.cost,
            latency_s=self.latency,
            attempts=self.attempts,
            earlier_texts=self.texts[:-1],
        )


class _Run:
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
        self.stopped: str | None = None
        self.calls_made = 0
        self.shared_calls: mmap.mmap | None = None  # calls_made, readable by the parent process
        self.failed = 0
        self.invalid = 0
        self.cached = 0
        self.cache: Any = None
        self.cache_error: str | None = None  # the cache could not be written: draining, then stop
        self.bar: Any = None
        self.sem: asyncio.Semaphore | None = None
        self.rpm: TokenBucket | None = None
        self.tpm: TokenBucket | None = None
        self.draining = False  # finish the calls in flight, start no new ones
        self.on_finish: Callable[[int, JudgeReply], None] | None = None
        self.pid = os.getpid()

    # -- bookkeeping
    def _count_call(self) -> None:
        self.calls_made += 1
        if self.shared_calls is not None:
            struct.pack_into("q", self.shared_calls, 0, self.calls_made)

    def _finish(self, item: _Item, reply: JudgeReply, *, cached: bool = False) -> None:
        for position, index in enumerate(item.indices):
            copy = cached or position > 0
            self.replies[index] = reply.model_copy(update={"cached": True}) if copy else reply
        count = len(item.indices)
        if reply.text is None:
            self.failed += count
        elif not self.is_parseable(item.request, reply.text):
            self.invalid += count
        if cached:
            self.cached += count
        if self.on_finish is not None:
            for index in item.indices:
                self.on_finish(index, self.replies[index])  # type: ignore[arg-type]
        if self.bar is not None:
            self.bar.update(count)
            self.bar.set_postfix(
                invalid=self.invalid, failed=self.failed, cached=self.cached, refresh=False
            )

    def _store(self, item: _Item, reply: JudgeReply) -> None:
        """Commit an answer to the cache; a failed write stops the run (see _cache_broken)."""
        if self.cache is None or self.cache_error or item.key is None or reply.text is None:
            return
        try:
            self.cache.put(item.key, reply, judge=self.judge.id, prompt_hash=item.request.prompt_hash)
        except (sqlite3.Error, OSError) as exc:
            self._cache_broken(exc)

    def _cache_broken(self, exc: BaseException) -> None:
        """The cache cannot be written (disk full, read-only): send nothing new, finish the
        calls in flight (their answers are kept in the replies), then stop."""
        if self.cache_error is None:
            path = getattr(self.cache, "path", self.options.cache_dir)
            self.cache_error = (
                f"cache {path}: cannot write ({exc}); stopped, the answers received are kept "
                "in this run's results"
            )
        self.draining = True

    # -- one attempt with retries
    def _attempt_timeout(self) -> float:
        """The runner's own deadline of one attempt: --timeout plus a grace, so that the
        judge's per-request timeout (which starts when the request is sent) fires first."""
        return self.options.timeout_s + max(TIMEOUT_GRACE_S, 0.25 * self.options.timeout_s)

    async def _attempt_with_retries(self, request: JudgeRequest, totals: _Totals) -> JudgeReply | str:
        """A reply with text, or the error message after the last retry. Raises _Stop, or
        _Drained (with the last error, if any) when the run drains before a retry."""
        options = self.options
        retry = 0
        last_error: str | None = None
        est_tokens = sum(len(str(m.get("content", ""))) for m in request.messages) / 4.0
        while True:
            if self.draining:
                raise _Drained(last_error)
            if self.rpm is not None:
                await self.rpm.acquire(1.0)
            if self.tpm is not None:
                await self.tpm.acquire(est_tokens)
            assert self.sem is not None
            async with self.sem:
                if self.stopped:
                    raise _Stop(self.stopped)
                if self.draining:
                    raise _Drained(last_error)
                self._count_call()
                totals.attempts += 1
                try:
                    # the deadline starts with this attempt and cancels this attempt only
                    reply = await asyncio.wait_for(self.judge.judge(request), self._attempt_timeout())
                    error: JudgeCallError | None = None
                except asyncio.TimeoutError:
                    error = JudgeCallError(f"timed out after {options.timeout_s:g}s", retryable=True)
                except JudgeCallError as exc:
                    error = exc
            if error is None:
                if self.tpm is not None:
                    used = (reply.tokens_in or 0) + (reply.tokens_out or 0)
                    if used:
                        self.tpm.adjust(used - est_tokens)
                return reply
            if not error.retryable:
                if error.fatal:
                    self.stopped = self.stopped or f"permanent error: {error}"
                    raise _Fatal(str(error))
                return str(error)
            tries = retry + 1
            last_error = f"{error} (gave up after {tries} attempt{'s' if tries > 1 else ''})"
            if retry >= options.max_retries:
                return last_error
            if self.draining:
                raise _Drained(last_error)
            retry += 1
            delay = random.uniform(0.0, min(options.backoff_max_s, options.backoff_base_s * 2**retry))
            if error.retry_after_s is not None:
                delay = max(delay, min(error.retry_after_s, RETRY_AFTER_CAP_S))
            await asyncio.sleep(delay)

    # -- claims shared with other processes on the same cache
    def _claim_ttl(self) -> float:
        """How long a claim stays valid while its process lives (renewed per item)."""
        o = self.options
        per_attempt = self._attempt_timeout() + min(o.backoff_max_s, RETRY_AFTER_CAP_S)
        return per_attempt * (o.max_retries + 1) * (o.reask + 1) + 60.0

    def start_draining(self) -> None:
        """Send nothing new; finish the calls in flight. Their claims stay in the cache until
        their answers are stored, so a rerun started meanwhile waits for them."""
        self.draining = True

    async def _claim(self, item: _Item) -> None:
        """Claim the item's key; while another live process holds it, wait, then take its
        answer (item.prior). Raises _Drained when the cache cannot be used any more."""
        if self.cache is None or item.key is None:
            return
        try:
            while True:
                if self.draining:
                    raise _Drained()
                holder = self.cache.try_claim(item.key, self.pid, time.time() + self._claim_ttl())
                if holder is None:
                    item.claimed = True
                    break
                if self.options.refresh_cache:
                    return  # a refresh asks anyway
                await self._wait_released(item.key)
            if not self.options.refresh_cache:
                reply = self.cache.get(item.key)  # answered meanwhile by another process
                if reply is not None:
                    item.prior = reply
        except sqlite3.Error as exc:
            self._cache_broken(exc)
            raise _Drained() from None

    async def _wait_released(self, key: str) -> None:
        """Wait while another live process holds an unexpired claim on `key`."""
        while not self.draining:
            holder = self.cache.holder(key)
            if holder is None or holder[0] == self.pid:
                return
            pid, expires = holder
            if time.time() > expires or not pid_alive(pid):
                return
            await asyncio.sleep(CLAIM_POLL_S * random.uniform(0.5, 1.5))

    def _release(self, item: _Item) -> None:
        if not item.claimed or self.cache is None:
            return
        item.claimed = False
        try:
            self.cache.release(item.key, self.pid)
        except Exception:  # the claim expires, or dies with this process
            pass

    # -- one request: claim, call, re-ask, cache
    async def _process(self, item: _Item) -> None:
        try:
            await self._process_item(item)
        finally:
            self._release(item)

    async def _process_item(self, item: _Item) -> None:
        await self._claim(item)
        if item.prior is not None and not self.options.refresh_cache and self._complete(item):
            self._finish(item, item.prior, cached=True)
            return
        if self.options.refresh_cache:
            item.prior = None
        totals = _Totals.from_reply(item.prior) if item.prior is not None else _Totals()
        try:
            await self._ask_until_done(item, totals)
        except _Drained as drained:
            # the run is stopping: keep what was paid for (an answer, or the last error)
            if totals.texts or drained.error is not None:
                self._finish(item, totals.reply(error=drained.error))
            raise

    async def _ask_until_done(self, item: _Item, totals: _Totals) -> None:
        request = item.request
        while True:
            if totals.texts:
                text = totals.texts[-1]
                if self.is_parseable(request, text) or len(totals.texts) > self.options.reask:
                    self._finish(item, totals.reply())
                    return
                if self.draining:
                    raise _Drained()
                asked = request.model_copy(update={"messages": reask_messages(request, totals.texts)})
            else:
                asked = request
            try:
                result = await self._attempt_with_retries(asked, totals)
            except _Fatal as fatal:
                self._finish(item, totals.reply(error=str(fatal)))
                raise
            if isinstance(result, str):  # failed after the last retry
                reply = totals.reply(error=result)
                self._finish(item, reply)
                if reply.text is None:
                    limit = self.options.max_failures
                    if limit is not None and self.failed >= limit:
                        self.stopped = (
                            f"stopped after {self.failed} failed calls (max failures {limit})"
                        )
                        raise _Stop(self.stopped)
                return
            totals.add(result)
            self._store(item, totals.reply())

    async def _worker(self, queue: list[_Item]) -> None:
        while queue and not self.stopped and not self.draining:
            item = queue.pop()
            try:
                await self._process(item)
            except _Drained:
                return

    # -- the run
    async def run(self) -> None:
        try:
            await self._run()
        finally:
            if self.cache_error is not None:
                self.stopped = self.stopped or self.cache_error

    async def _run(self) -> None:
        options = self.options
        items = self._plan()
        if self.bar is None and options.progress:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=len(self.requests), desc="judging", unit="call", dynamic_ncols=True)
        # cache hits first
        pending: list[_Item] = []
        for item in items:
            if item.prior is not None and self._complete(item):
                self._finish(item, item.prior, cached=True)
            else:
                pending.append(item)
        if not pending:
            return
        self.judge.timeout_s = options.timeout_s
        try:  # imports and clients: not charged to the first calls' deadlines
            await self.judge.warm_up()
        except Exception:  # noqa: BLE001 - an optimisation: the first call reports the problem
            pass
        self.sem = asyncio.Semaphore(max(1, options.concurrency))
        if options.rpm:
            self.rpm = TokenBucket(options.rpm / 60.0, options.rpm / 60.0)
        if options.tpm:
            self.tpm = TokenBucket(options.tpm / 60.0, options.tpm / 60.0)
        queue = list(reversed(pending))  # pop() from the end keeps the request order
        n_workers = min(len(queue), max(1, options.concurrency) * 2)
        tasks = {asyncio.ensure_future(self._worker(queue)) for _ in range(n_workers)}
        try:
            while tasks:
                done, tasks = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
                errors = [t.exception() for t in done if not t.cancelled() and t.exception()]
                if errors:
                    for task in tasks:
                        task.cancel()
                    await asyncio.gather(*tasks, return_exceptions=True)
                    tasks = set()
                    unexpected = [e for e in errors if not isinstance(e, _Stop)]
                    if unexpected:
                        raise unexpected[0]
        except asyncio.CancelledError:
            # Ctrl-C / SIGTERM in this process. A worker whose cancellation is swallowed
            # (asyncio.wait_for in Python 3.11 returns a result that arrives as it is
            # cancelled) must not go on with the queue: it sees `stopped` and ends.
            self.stopped = self.stopped or INTERRUPTED
            raise
        finally:
            for task in tasks:
                task.cancel()
            if tasks:
                await asyncio.gather(*tasks, return_exceptions=True)

    def _complete(self, item: _Item) -> bool:
        """Whether a cached reply is final under the current re-ask setting."""
        prior = item.prior
        assert prior is not None
        if prior.text is None:
            return False
        if self.is_parseable(item.request, prior.text):
            return True
        return len(prior.earlier_texts) >= self.options.reask

    def _plan(self) -> list[_Item]:
        """One item per request, or per distinct cache key when the cache is used."""
        options = self.options
        if not _uses_cache(self.judge, options):
            return [_Item(request, [i], None) for i, request in enumerate(self.requests)]
        from .cache import ReplyCache, cache_key

        self.cache = ReplyCache(options.cache_dir)
        identity = self.judge.cache_identity()
        by_key: dict[str, _Item] = {}
        for i, request in enumerate(self.requests):
            key = cache_key(identity, request.prompt_hash)
            if key in by_key:
                by_key[key].indices.append(i)
            else:
                by_key[key] = _Item(request, [i], key)
        if not options.refresh_cache:
            found = self.cache.get_many(list(by_key))
            for key, reply in found.items():
                by_key[key].prior = reply
        return list(by_key.values())

    async def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        if self.cache is not None:
            try:
                self.cache.release_all(self.pid)
            except sqlite3.Error:
                pass
            self.cache.close()
            self.cache = None
        try:
            await self.judge.aclose()
        except Exception:
            pass

    def outcome(self) -> RunOutcome:
        return RunOutcome(list(self.replies), self.stopped, self.calls_made)


def _uses_cache(judge: Judge, options: RunnerOptions) -> bool:
    return options.use_cache and bool(getattr(judge, "cacheable", False))


def check_cache(judge: Judge, options: RunnerOptions) -> None:
    """Open the cache the run will use (writability probe included) before any call:
    a one-line JudgebenchError naming the path when it cannot be used."""
    if _uses_cache(judge, options):
        from .cache import ReplyCache

        ReplyCache(options.cache_dir).close()


async def arun_requests(
    requests: list[JudgeRequest],
    judge: Judge,
    options: RunnerOptions,
    is_parseable: Callable[[JudgeRequest, str], bool],
) -> RunOutcome:
    """The async runner, in this process (see module docstring)."""
    run = _Run(requests, judge, options, is_parseable)
    try:
        await run.run()
    finally:
        await run.close()
    return run.outcome()


def run_requests(
    requests: list[JudgeRequest],
    judge: Judge,
    options: RunnerOptions,
    is_parseable: Callable[[JudgeRequest, str], bool],
) -> RunOutcome:
    """Run every request through the judge; sync wrapper over asyncio.

    With a cache (a cacheable judge, use_cache) on POSIX, the calls are made by a forked
    call worker that streams each reply back. If this process dies (SIGKILL included) or
    is interrupted, the worker sends nothing new but finishes and caches the calls
    already in flight - they are paid for - then exits. A rerun waits for those calls
    instead of sending them again, so a killed run repeats no answered call.
    SIGTERM is handled like Ctrl-C while the run lasts (main thread only).
    """
    if options.batch:  # the provider's batch API (see batch.py): same cache and records
        from .batch import run_batch

        judge.preflight()
        with _SigtermAsInterrupt() as signals:
            outcome = run_batch(requests, judge, options, is_parseable)
        return _name_interrupt(outcome, signals)
    judge.preflight()  # credentials (the pipeline may have called it already: cheap)
    check_cache(judge, options)
    try:
        asyncio.get_running_loop()
        in_loop = True
    except RuntimeError:
        in_loop = False
    if in_loop:  # called from inside an event loop (e.g. a notebook): run in a thread
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(_run_here, requests, judge, options, is_parseable).result()
    with _SigtermAsInterrupt() as signals:
        if _use_worker(judge, options):
            outcome = _run_in_worker(requests, judge, options, is_parseable)
        else:
            outcome = _run_here(requests, judge, options, is_parseable, signals)
    return _name_interrupt(outcome, signals)


INTERRUPTED = "interrupted"


def _name_interrupt(outcome: RunOutcome, signals: _SigtermAsInterrupt) -> RunOutcome:
    """An interrupted outcome says which signal and how many calls were sent."""
    if outcome.stopped == INTERRUPTED:
        outcome.stopped = (
            f"interrupted ({signals.received or 'SIGINT'}): {outcome.calls_made} calls sent; "
            "answers still in flight go to the cache"
        )
    return outcome


class _SigtermAsInterrupt:
    """While active (main thread only), SIGTERM does what Ctrl-C does: the current SIGINT
    handler runs (asyncio's, or the one raising KeyboardInterrupt)."""

    def __init__(self) -> None:
        self.received: str | None = None
        self.previous: Any = None

    def _handle(self, signum: int, frame: Any) -> None:
        self.received = "SIGTERM"
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler):
            handler(signal.SIGINT, frame)
        else:
            raise KeyboardInterrupt

    def __enter__(self) -> _SigtermAsInterrupt:
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGTERM, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGTERM, self.previous)


def _run_here(
    requests: list[JudgeRequest],
    judge: Judge,
    options: RunnerOptions,
    is_parseable: Callable[[JudgeRequest, str], bool],
    signals: _SigtermAsInterrupt | None = None,
) -> RunOutcome:
    """The run in this process. In the main thread, the first Ctrl-C or SIGTERM drains
    (nothing new is sent, the calls in flight finish and are kept); a second one cancels."""
    run = _Run(requests, judge, options, is_parseable)

    async def main() -> None:
        _drain_on_signals(run, signals)
        try:
            await run.run()
        finally:
            await run.close()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        run.stopped = run.stopped or INTERRUPTED
    if run.draining and run.stopped is None:
        run.stopped = INTERRUPTED
    return run.outcome()


def _drain_on_signals(run: _Run, signals: _SigtermAsInterrupt | None) -> None:
    """SIGINT/SIGTERM: drain the run the first time, cancel it the second time."""
    if signals is None or threading.current_thread() is not threading.main_thread():
        return
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()

    def on_signal(name: str) -> None:
        if run.draining and task is not None:
            task.cancel()  # a second signal: stop waiting for the calls in flight
            return
        signals.received = signals.received or name
        run.start_draining()

    for signum, name in ((signal.SIGINT, "SIGINT"), (signal.SIGTERM, "SIGTERM")):
        try:
            loop.add_signal_handler(signum, on_signal, name)
        except (NotImplementedError, RuntimeError, ValueError):
            return


def _use_worker(judge: Judge, options: RunnerOptions) -> bool:
    if os.environ.get("JUDGEBENCH_CALL_WORKER", "1") == "0":
        return False
    return (
        sys.platform.startswith("linux")  # fork without exec is unsafe on macOS
        and hasattr(os, "fork")
        and _uses_cache(judge, options)
        and threading.current_thread() is threading.main_thread()
    )


def _run_in_worker(
    requests: list[JudgeRequest],
    judge: Judge,
    options: RunnerOptions,
    is_parseable: Callable[[JudgeRequest, str], bool],
) -> RunOutcome:
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
    replies: list[JudgeReply | None] = [None] * len(requests)
    stopped: str | None = None
    error: tuple[str, str] | None = None
    finished = False
    status = 0
    bar = _WorkerBar(requests, is_parseable) if options.progress else None
    reader = _LineReader(result_r)

    def take(line: bytes) -> None:
        nonlocal stopped, finished, error
        if line.startswith(b"R "):  # R <index> <reply json>
            _, index_text, body = line.split(b" ", 2)
            index = int(index_text)
            replies[index] = JudgeReply.model_validate_json(body)
            if bar is not None:
                bar.update(index, replies[index])  # type: ignore[arg-type]
            return
        message = json.loads(line)
        if "done" in message:
            stopped, finished = message["stopped"], True
        elif "error" in message:
            error = (message["type"], message["error"])

    try:
        for line in reader.lines():
            take(line)
    except KeyboardInterrupt:
        stopped = INTERRUPTED
        os.close(life_w)  # the worker finishes the calls in flight, caches them and exits
        life_w = -1
        # until the worker confirms it sends nothing new: the replies it sent are kept and
        # the count of calls sent is final (a stuck worker is not waited for long)
        for line in reader.lines(timeout_s=DRAIN_ACK_TIMEOUT_S):
            if line.startswith(b'{"draining"'):
                break
            take(line)
        threading.Thread(target=_reap, args=(pid,), daemon=True).start()
        pid = 0
    finally:
        reader.close()
        if bar is not None:
            bar.close()
        if life_w >= 0:
            os.close(life_w)
        if pid:
            _, status = os.waitpid(pid, 0)
    calls_made = struct.unpack_from("q", shared_calls, 0)[0]
    if error is not None:
        if error[0] == "JudgebenchError":
            raise JudgebenchError(error[1])
        raise RuntimeError(f"judge call worker failed: {error[0]}: {error[1]}")
    if not finished and stopped is None:
        stopped = f"the judge call worker exited unexpectedly (status {status})"
    return RunOutcome(replies, stopped, calls_made)


class _LineReader:
    """Lines from the worker's pipe; `wait=False` takes only what is already there."""

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


class _WorkerBar:
    """The progress bar of a run whose calls are made by the call worker."""

    def __init__(self, requests: list[JudgeRequest], is_parseable: Callable[[JudgeRequest, str], bool]):
        from tqdm.auto import tqdm

        self.requests = requests
        self.is_parseable = is_parseable
        self.counts = {"invalid": 0, "failed": 0, "cached": 0}
        self.bar = tqdm(total=len(requests), desc="judging", unit="call", dynamic_ncols=True)

    def update(self, index: int, reply: JudgeReply) -> None:
        if reply.text is None:
            self.counts["failed"] += 1
        elif not self.is_parseable(self.requests[index], reply.text):
            self.counts["invalid"] += 1
        self.counts["cached"] += int(reply.cached)
        self.bar.update(1)
        self.bar.set_postfix(refresh=False, **self.counts)

    def close(self) -> None:
        self.bar.close()


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
    from dataclasses import replace

    run = _Run(requests, judge, replace(options, progress=False), is_parseable)
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
