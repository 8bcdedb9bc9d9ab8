"""The one retry, backoff, timeout and rate-limit policy of the live and the batch path.

- A retryable JudgeCallError (429, 5xx, timeouts, connection errors) is retried up to
  `max_retries` times after the first attempt, waiting
  uniform(0, min(backoff_max_s, backoff_base_s * 2**retry)) (full jitter) but never less
  than the server's Retry-After, capped at RETRY_AFTER_CAP_S.
- Each attempt has `timeout_s` (the judge's own request timeout); the runner cancels an
  attempt itself only after a grace (attempt_deadline).
- rpm/tpm: token buckets holding one second's worth, refilled continuously.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from judgebench.calls.options import RunnerOptions
from judgebench.judges.base import JudgeCallError

T = TypeVar("T")

RETRY_AFTER_CAP_S = 600.0
# how much longer than --timeout the runner waits for an attempt before cancelling it
# itself: the judge's own per-request timeout (the SDK's, litellm's) fires first
TIMEOUT_GRACE_S = 2.0


def should_retry(error: JudgeCallError, retries_done: int, options: RunnerOptions) -> bool:
    """Whether an attempt that failed with `error` is tried again."""
    return error.retryable and retries_done < options.max_retries


def backoff_delay(retry: int, error: JudgeCallError, options: RunnerOptions) -> float:
    """Seconds to wait before retry number `retry` (1-based): full jitter, at least the
    server's Retry-After (capped)."""
    delay = random.uniform(0.0, min(options.backoff_max_s, options.backoff_base_s * 2**retry))
    if error.retry_after_s is not None:
        delay = max(delay, min(error.retry_after_s, RETRY_AFTER_CAP_S))
    return delay


def attempt_deadline(options: RunnerOptions) -> float:
    """The runner's own deadline of one attempt: --timeout plus a grace, so that the
    judge's per-request timeout (which starts when the request is sent) fires first."""
    return options.timeout_s + max(TIMEOUT_GRACE_S, 0.25 * options.timeout_s)


def claim_ttl(options: RunnerOptions) -> float:
    """How long a cache claim stays valid while its process lives: every attempt, backoff
    and re-ask of one request, plus a minute."""
    per_attempt = attempt_deadline(options) + min(options.backoff_max_s, RETRY_AFTER_CAP_S)
    return per_attempt * (options.max_retries + 1) * (options.reask + 1) + 60.0


async def with_retries(
    call: Callable[[], Awaitable[T]],
    classify: Callable[[Exception], JudgeCallError],
    options: RunnerOptions,
) -> T:
    """`call()` retried under this policy (the batch path's API calls). Raises the
    JudgeCallError of a permanent error or of the last retry."""
    retry = 0
    while True:
        try:
            return await call()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            error = exc if isinstance(exc, JudgeCallError) else classify(exc)
        if not should_retry(error, retry, options):
            raise error
        retry += 1
        await asyncio.sleep(backoff_delay(retry, error, options))


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

    async def acquire(self, amount: float = 1.0, stop: Callable[[], bool] = lambda: False) -> bool:
        """Take `amount` when the bucket holds it: True; False as soon as `stop()` is true (a stopped run waited
        minutes for tokens it would not use)."""
        async with self.lock:  # first come, first served
            need = min(amount, self.capacity)
            while not stop():
                self._refill()
                if self.level >= need:
                    self.level -= amount  # may go below zero for a large request
                    return True
                await asyncio.sleep(min((need - self.level) / self.rate, 0.25))
            return False

    def adjust(self, delta: float) -> None:
        self._refill()
        self.level = min(self.capacity, self.level - delta)


def rate_buckets(options: RunnerOptions) -> tuple[TokenBucket | None, TokenBucket | None]:
    """(requests bucket, tokens bucket) for --rpm and --tpm, each None when unset."""
    rpm = TokenBucket(options.rpm / 60.0, options.rpm / 60.0) if options.rpm else None
    tpm = TokenBucket(options.tpm / 60.0, options.tpm / 60.0) if options.tpm else None
    return rpm, tpm
