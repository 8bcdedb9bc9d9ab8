"""What a run of judge calls is given (RunnerOptions, validated) and what it returns (RunOutcome)."""

from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from judgebench.core.errors import JudgebenchError

if TYPE_CHECKING:  # the CLI's parser imports this module: no pydantic for --help
    from judgebench.core.records import JudgeReply

DEFAULT_CONCURRENCY = 16
# Without --max-failures, a run stops when this many calls got no answer to their last retry (connection errors,
# timeouts) before any call of it was answered: the endpoint is unreachable (a wrong port, a server not started),
# and the rest would spend about half a minute of backoff each. A 502 or 504 counts (a gateway whose endpoint gave no
# answer: call_errors.GATEWAY_NO_ANSWER); a 429, 500 or 503 does not: the endpoint is up.
UNREACHABLE_AFTER = 10
INTERRUPTED = "interrupted"


@dataclass
class RunnerOptions:
    """How calls are made. Invalid values raise a one-line JudgebenchError naming the CLI
    flag, so the Python API gets the same checks as the CLI."""

    concurrency: int = DEFAULT_CONCURRENCY
    timeout_s: float = 120.0  # per attempt
    max_retries: int = 5  # retries after the first attempt, for retryable errors
    reask: int = 0  # extra asks when the answer does not parse
    max_failures: int | None = None  # stop cleanly after this many FAILED calls
    unreachable_after: int | None = UNREACHABLE_AFTER  # without max_failures; None: off (a run that has answers)
    rpm: int | None = None
    tpm: int | None = None
    use_cache: bool = True
    refresh_cache: bool = False  # ignore cached answers but write new ones
    cache_dir: Path | None = None  # default: platformdirs.user_cache_dir("judgebench")
    progress: bool = False  # a progress bar on stderr (the command line's default, unless --quiet; Python's off)
    progress_label: str = "judging"  # what the progress bar says the calls do (`pairs`: answering)
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0
    batch: bool = False  # send the calls through the provider's batch API (batch.py)
    batch_poll_s: float = 30.0  # seconds between batch status polls
    max_cost: float | None = None  # USD: stop before the estimated spend would pass it (budget.py)

    def __post_init__(self) -> None:
        self.concurrency = _at_least("--concurrency", self.concurrency, 1)
        self.max_retries = _at_least("--max-retries", self.max_retries, 0)
        self.reask = _at_least("--reask", self.reask, 0)
        for flag, name in (("--max-failures", "max_failures"), ("--rpm", "rpm"), ("--tpm", "tpm"),
                           ("unreachable_after", "unreachable_after")):
            if getattr(self, name) is not None:
                setattr(self, name, _at_least(flag, getattr(self, name), 1))
        for name in ("use_cache", "refresh_cache", "progress", "batch"):  # ("false" had sent the calls as a batch)
            if not isinstance(getattr(self, name), bool):
                raise JudgebenchError(f"RunnerOptions {name}: expected True or False, got {getattr(self, name)!r}")
        if not isinstance(self.progress_label, str):
            raise JudgebenchError(f"RunnerOptions progress_label: expected text, got {self.progress_label!r}")
        if self.cache_dir is not None:
            if not isinstance(self.cache_dir, (str, os.PathLike)):
                raise JudgebenchError(f"--cache-dir: expected a path, got {type(self.cache_dir).__name__} {self.cache_dir!r}")
            self.cache_dir = Path(self.cache_dir)
        self.timeout_s = _positive_seconds("--timeout", self.timeout_s)
        self.batch_poll_s = _positive_seconds("--batch-poll-s", self.batch_poll_s, zero_ok=True)
        self.backoff_base_s = _positive_seconds("backoff_base_s", self.backoff_base_s, zero_ok=True)
        self.backoff_max_s = _positive_seconds("backoff_max_s", self.backoff_max_s, zero_ok=True)
        if self.max_cost is not None:
            ok = isinstance(self.max_cost, numbers.Real) and not isinstance(self.max_cost, bool)
            if not ok or not math.isfinite(self.max_cost) or self.max_cost <= 0:
                raise JudgebenchError(f"--max-cost: expected a finite number of USD > 0, got {self.max_cost!r}")
            self.max_cost = float(self.max_cost)
        if self.batch:
            self._check_batch()

    def for_next_chunk(self, outcome: RunOutcome) -> RunnerOptions:
        """The options for the next chunk of the same run: once any call was answered (the cache's answers too),
        the endpoint is there, and no later chunk is stopped as unreachable."""
        if self.unreachable_after is None or not any(r is not None and r.text is not None for r in outcome.replies):
            return self
        return replace(self, unreachable_after=None)

    def _check_batch(self) -> None:
        """--batch refuses the options a batch API cannot honour (the provider schedules
        the calls): rather an error than a setting silently ignored."""
        ignored = [
            flag
            for flag, is_set in (
                ("--concurrency", self.concurrency != DEFAULT_CONCURRENCY),
                ("--rpm", self.rpm is not None),
                ("--tpm", self.tpm is not None),
                ("--max-failures", self.max_failures is not None),
                ("--max-cost", self.max_cost is not None),
                ("--reask", self.reask != 0),  # a batch is answered once: nothing is asked again
            )
            if is_set
        ]
        if ignored:
            raise JudgebenchError(
                f"--batch: {', '.join(ignored)} cannot apply (the provider's batch API schedules "
                "the calls, and answers each once); leave it out or run without --batch"
            )


def _at_least(flag: str, value: object, minimum: int) -> int:
    """The value as an int (numpy's integers too), or a one-line error."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < minimum:
        raise JudgebenchError(f"{flag}: expected an integer >= {minimum}, got {value!r}")
    return int(value)


def _positive_seconds(flag: str, value: object, *, zero_ok: bool = False) -> float:
    """The value as a float (numpy's numbers too), or a one-line error."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or value < 0 or (value == 0 and not zero_ok):  # type: ignore[operator]
        kind = "a finite number of seconds >= 0" if zero_ok else "a finite number of seconds > 0"
        raise JudgebenchError(f"{flag}: expected {kind}, got {value!r}")
    return float(value)  # type: ignore[arg-type]


@dataclass
class RunOutcome:
    replies: list[JudgeReply | None]  # aligned with the requests; None = never finished
    stopped: str | None  # why the run stopped early, else None
    calls_made: int  # attempts sent to the judge (cache hits excluded)
    # --batch: the batches still running at the provider when the run stopped -> None when recorded in the cache
    # (a rerun collects them), else why not
    left_running: dict[str, str | None] = field(default_factory=dict)
    batches_ended: dict[str, str] = field(default_factory=dict)  # of those, the ones that had ended -> final status
    create_unanswered: str | None = None  # the batch path: what a stop during a create that got no answer leaves
    collected: int = 0  # --batch: requests answered by a batch an earlier run submitted (paid then, no new call)
