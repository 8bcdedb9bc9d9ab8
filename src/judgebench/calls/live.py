"""The live run: every request through the judge, at most `concurrency` at once, with
rate limits, retries (policy.py), re-asks, the cache and cross-process claims.

Every request ends with a JudgeReply (text set: answered, parseable or not; text None
and error set: failed after the last retry) unless the run stopped early, in which case
the requests never finished are None and `stopped` says why.

- A call waiting out its backoff does not hold a concurrency slot.
- Fatal errors (JudgeCallError not retryable, fatal) stop the whole run at once: in-flight
  calls are cancelled, finished replies are kept. `fatal=False` fails that call only.
- `max_failures`: the run stops cleanly once that many calls have FAILED; without it, once
  `unreachable_after` calls got no answer at all (connection errors, timeouts) and none was answered.
- Re-ask: an answer that does not parse is asked again up to `reask` times, with the bad
  answer appended as an assistant message and a reminder of the allowed verdicts.
- Cache: answers (unparseable ones of a re-ask chain included) are committed the moment
  they return; identical requests are sent once; each key is claimed before its call, and
  a key claimed by another live process is waited for and its answer taken.
- Draining (Ctrl-C, the parent of the call worker gone, the cache unwritable): nothing new
  is sent, the calls in flight finish and are kept.
"""

from __future__ import annotations

import asyncio
import os
import random
import sqlite3
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from judgebench.calls.budget import Budget
from judgebench.calls.cache import cache_key, pid_alive
from judgebench.calls.options import INTERRUPTED, RunnerOptions
from judgebench.calls.policy import (
    TokenBucket,
    attempt_deadline,
    backoff_delay,
    claim_ttl,
    rate_buckets,
    should_retry,
)
from judgebench.calls.state import RunState
from judgebench.calls.totals import Totals, reask_messages
from judgebench.core.records import RETRIES_CUT, JudgeReply, JudgeRequest
from judgebench.core.secrets import scrub_text
from judgebench.core.text import term_text
from judgebench.judges.base import Judge, JudgeCallError

CLAIM_POLL_S = 0.1
WAITING_NOTE_S = 0.5  # the retry note is passed on to the progress bar at most this often


def _wait_note(error: JudgeCallError, delay: float, secrets: list[str]) -> str:
    """Why a request waits and how long: the error's kind (the text before its first colon: judgebench's own
    classification, `RateLimitError`, `timed out after 120s`), scrubbed and printable (a judge of one's own may raise
    any text: a key, escape codes)."""
    seconds = f"{delay:.1f}" if delay < 10 else f"{delay:.0f}"
    return term_text(scrub_text(f"{str(error).split(':')[0][:40]}; the latest waits {seconds} s", secrets), 80)


class _Stop(Exception):
    """Raised inside a worker to end the run (fatal error, max failures)."""


class _Fatal(_Stop):
    """A non-retryable error of this request that stops the whole run."""


class _Drained(Exception):
    """The run is draining: nothing new starts. `error`: the last error of an attempt
    that is not retried because of it."""

    def __init__(self, error: str | None = None):
        super().__init__(error or "draining")
        self.error = error


@dataclass
class _Item:
    request: JudgeRequest
    indices: list[int]
    key: str | None
    prior: JudgeReply | None = None  # cached state of an unfinished re-ask chain
    claimed: bool = False  # this process holds the key's claim in the cache


class LiveRun(RunState):
    """One live run (see the module docstring); `await run()`, then `await close()`."""

    def __init__(
        self,
        requests: list[JudgeRequest],
        judge: Judge,
        options: RunnerOptions,
        is_parseable: Callable[[JudgeRequest, str], bool],
    ):
        super().__init__(requests, judge, options, is_parseable)
        self.shared_calls: Any = None  # an mmap: calls_made, readable by the parent process
        self.sem: asyncio.Semaphore | None = None
        self.rpm: TokenBucket | None = None
        self.tpm: TokenBucket | None = None
        self.draining = False  # finish the calls in flight, start no new ones
        self.retrying: set[int] = set()  # requests waiting for their retry (in_flight, no request under way)
        self.wait_note = ""  # why the latest of them waits, and how long (the progress bar shows it)
        self.waiting_shown: str | None = None  # the note last passed on, and when
        self.waiting_shown_at = 0.0
        self.waiting_later: asyncio.TimerHandle | None = None  # a note held back, passed on soon
        self.on_waiting: Callable[[str | None], None] | None = None  # the call worker's: the parent's bar shows it
        self.pid = os.getpid()
        self.budget = Budget(judge, options.max_cost) if options.max_cost is not None else None

    def _count_call(self) -> None:
        self.calls_made += 1
        if self.shared_calls is not None:
            struct.pack_into("q", self.shared_calls, 0, self.calls_made)

    def _store(self, item: _Item, reply: JudgeReply) -> None:
        if not self.store(item.key, reply, item.request):
            self.draining = True

    def start_draining(self) -> None:
        """Send nothing new; finish the calls in flight. Their claims stay in the cache until
        their answers are stored, so a rerun started meanwhile waits for them."""
        self.draining = True

    # -- one attempt with retries
    async def _attempt_with_retries(self, request: JudgeRequest, totals: Totals,
                                    indices: list[int]) -> JudgeReply | str:
        """A reply with text, or the error message after the last retry. Raises _Stop, or
        _Drained (with the last error, if any) when the run drains before a retry."""
        retry = 0
        last_error: str | None = None
        est_tokens = sum(len(str(m.get("content", ""))) for m in request.messages) / 4.0
        while True:
            if self.draining:
                raise _Drained(last_error)
            draining = lambda: self.draining  # noqa: E731
            if self.rpm is not None and not await self.rpm.acquire(1.0, draining):
                raise _Drained(last_error)
            if self.tpm is not None and not await self.tpm.acquire(est_tokens, draining):
                raise _Drained(last_error)
            assert self.sem is not None
            async with self.sem:
                if self.draining:  # before `stopped`: a drain (the cost cap) keeps the calls in flight
                    raise _Drained(last_error)
                if self.stopped:
                    raise _Stop(self.stopped)
                reserved = self._reserve(request, last_error)
                self._count_call()
                self.in_flight.update(indices)
                totals.attempts += 1
                reply = None
                try:
                    # the deadline starts with this attempt and cancels this attempt only
                    reply = await asyncio.wait_for(self.judge.judge(request), attempt_deadline(self.options))
                    error: JudgeCallError | None = None
                except asyncio.TimeoutError:
                    error = JudgeCallError(f"timed out after {self.options.timeout_s:g}s", retryable=True, unreachable=True)
                except JudgeCallError as exc:
                    error = exc
                finally:
                    if self.budget is not None:
                        self.budget.settle(reserved, reply)
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
            last_error = str(error)
            if not should_retry(error, retry, self.options):
                self.unreachable += error.unreachable  # no answer to the last retry either (_stop_after_failures)
                return f"{error} (gave up after {tries} attempt{'s' if tries > 1 else ''})"
            if self.draining:
                raise _Drained(last_error)
            retry += 1
            delay = backoff_delay(retry, error, self.options)
            self.retrying.update(indices)
            self._show_waiting(_wait_note(error, delay, self.secrets))
            try:
                await self._backoff(delay)
            finally:
                self.retrying.difference_update(indices)
                self._show_waiting()

    def _show_waiting(self, note: str | None = None) -> None:
        """Show on the progress bar how many requests wait for a retry and why the latest one waits (`note`), or
        nothing once none waits: a run held up by a 429's Retry-After looked stuck. Passed on at once when the
        first starts or the last ends waiting, else at most every WAITING_NOTE_S (a redraw each: 64 calls at a 429
        wrote a log 37 times the size), the state of then."""
        self.wait_note = note or self.wait_note
        shown = f"{len(self.retrying)} ({self.wait_note})" if self.retrying else None
        since = time.monotonic() - self.waiting_shown_at
        if shown is None or self.waiting_shown is None or since >= WAITING_NOTE_S:
            self._pass_waiting(shown)
        elif self.waiting_later is None:
            self.waiting_later = asyncio.get_running_loop().call_later(WAITING_NOTE_S - since, self._show_waiting)

    def _pass_waiting(self, shown: str | None) -> None:
        if self.waiting_later is not None:
            self.waiting_later.cancel()
            self.waiting_later = None
        if shown == self.waiting_shown:
            return
        self.waiting_shown, self.waiting_shown_at = shown, time.monotonic()
        if self.on_waiting is not None:
            self.on_waiting(shown)
        elif self.progress is not None:
            self.progress.waiting(shown)

    async def _backoff(self, seconds: float) -> None:
        """The wait before a retry, cut short when the run drains: a stop waits for the attempts under way, not for
        a retry due later (a 429 with Retry-After 45 kept a stopped run 43 s)."""
        end = time.monotonic() + seconds
        while not self.draining and (left := end - time.monotonic()) > 0:
            await asyncio.sleep(min(left, 0.25))

    def _reserve(self, request: JudgeRequest, last_error: str | None) -> float:
        """Reserve the attempt's estimated cost under --max-cost; past the cap the run drains
        (nothing new is sent) and stops with the reason (budget.py)."""
        if self.budget is None:
            return 0.0
        reserved, over = self.budget.reserve(request)
        if over is not None:
            self.stopped = self.stopped or over
            self.draining = True
            raise _Drained(last_error)
        return reserved

    # -- claims shared with other processes on the same cache
    async def _claim(self, item: _Item) -> None:
        """Claim the item's key; while another live process holds it, wait, then take its
        answer (item.prior). Raises _Drained when the cache cannot be used any more."""
        if self.cache is None or item.key is None:
            return
        try:
            while True:
                if self.draining:
                    raise _Drained()
                holder = self.cache.try_claim(item.key, self.pid, time.time() + claim_ttl(self.options))
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
            self.cache_broken(exc)
            self.draining = True
            raise _Drained() from None

    async def _wait_released(self, key: str) -> None:
        """Wait while another live process holds an unexpired claim on `key`."""
        assert self.cache is not None
        while not self.draining:
            holder = self.cache.holder(key)
            if holder is None or holder[0] == self.pid:
                return
            pid, expires = holder
            if time.time() > expires or not pid_alive(pid):
                return
            await asyncio.sleep(CLAIM_POLL_S * random.uniform(0.5, 1.5))

    def _release(self, item: _Item) -> None:
        if not item.claimed or self.cache is None or item.key is None:
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
            self.record(item.indices, item.prior, cached=True)
            return
        if self.options.refresh_cache:
            item.prior = None
        # resumed from the cache, at the judge's price now (Judge.repriced, as a cached answer is recorded)
        totals = Totals.from_reply(self.judge.repriced(item.prior)) if item.prior is not None else Totals()
        try:
            await self._ask_until_done(item, totals)
        except _Drained as drained:
            # the run is stopping: keep what was paid for (an answer, or the last error); a call whose retry the
            # stop cut short is in flight at the stop, as the call worker's path records it (it said "gave up")
            cut = None if drained.error is None else RETRIES_CUT.format(error=drained.error)
            if totals.texts or cut is not None:
                self.record(item.indices, totals.reply(error=cut))
            raise

    async def _ask_until_done(self, item: _Item, totals: Totals) -> None:
        request = item.request
        while True:
            if totals.texts:
                text = totals.texts[-1]
                if self.is_parseable(request, text) or len(totals.texts) > self.options.reask:
                    self.record(item.indices, totals.reply())
                    return
                if self.draining:
                    raise _Drained()
                asked = request.model_copy(update={"messages": reask_messages(request, totals.texts)})
            else:
                asked = request
            try:
                result = await self._attempt_with_retries(asked, totals, item.indices)
            except _Fatal as fatal:
                self.record(item.indices, totals.reply(error=str(fatal)))
                raise
            if isinstance(result, str):  # failed after the last retry
                reply = totals.reply(error=result)
                self.record(item.indices, reply)
                self._stop_after_failures(result)
                return
            totals.add(result)
            self._store(item, totals.reply())

    def _stop_after_failures(self, error: str) -> None:
        """Stop after --max-failures failed calls, or, without it, when `unreachable_after` calls got no answer to
        their last retry (a connection error, a timeout, a gateway's 502 or 504: not a 429, 500 or 503, which an
        endpoint that is up sends, nor a prompt's own failure) and no call of the run was answered."""
        limit = self.options.max_failures
        if limit is not None and self.failed >= limit:
            self.stopped = f"stopped after {self.failed} failed calls (max failures {limit})"
            raise _Stop(self.stopped)
        after = self.options.unreachable_after
        if limit is None and after is not None and not self.replied and self.unreachable >= after:
            self.stopped = (f"{self.unreachable} calls got no answer from the endpoint and none has been answered (the "
                            f"last: {error}); is the endpoint up? (--max-failures N to go on longer)")
            raise _Stop(self.stopped)

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

    def take_cached(self) -> list[_Item]:
        """Plan the run, record the cache hits; the items still to ask."""
        items = self._plan()
        self.start_progress(len(self.requests))
        pending: list[_Item] = []
        for item in items:
            if item.prior is not None and self._complete(item):
                self.record(item.indices, item.prior, cached=True)
            else:
                pending.append(item)
        return pending

    async def _run(self) -> None:
        pending = self.take_cached()
        if not pending:
            return
        self.judge.timeout_s = self.options.timeout_s
        try:  # imports and clients: not charged to the first calls' deadlines
            await self.judge.warm_up()
        except Exception:  # an optimisation: the first call reports the problem
            pass
        self.sem = asyncio.Semaphore(self.options.concurrency)
        self.rpm, self.tpm = rate_buckets(self.options)
        queue = list(reversed(pending))  # pop() from the end keeps the request order
        n_workers = min(len(queue), self.options.concurrency * 2)
        await self._work(queue, n_workers)

    async def _work(self, queue: list[_Item], n_workers: int) -> None:
        """Run `n_workers` workers over the queue; a _Stop ends them all, any other error
        is raised."""
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
                        raise unexpected[0]  # type: ignore[misc]
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
        cache = self.open_cache()
        if cache is None:
            return [_Item(request, [i], None) for i, request in enumerate(self.requests)]
        identity = self.judge.cache_identity()
        by_key: dict[str, _Item] = {}
        for i, request in enumerate(self.requests):
            key = cache_key(identity, request.prompt_hash, request.repeat)
            if key in by_key:
                by_key[key].indices.append(i)
            else:
                by_key[key] = _Item(request, [i], key)
        if not self.options.refresh_cache:
            for key, reply in cache.get_many(list(by_key)).items():
                by_key[key].prior = reply
        return list(by_key.values())

    async def close(self) -> None:
        """Release this process's claims, close the bar, the cache and the judge's clients."""
        if self.cache is not None:
            try:
                self.cache.release_all(self.pid)
            except sqlite3.Error:
                pass
        self.close_state()
        try:
            await self.judge.aclose()
        except Exception:
            pass
