"""The progress bar of a run (tqdm), one for every path: the live run in this process,
the parent of the call worker, and the batch path."""

from __future__ import annotations

from typing import Any

from judgebench.core.background import no_tqdm_monitor
from judgebench.core.records import JudgeReply


class Progress:
    """Counts finished replies (invalid, failed, cached) under a tqdm bar."""

    def __init__(self, total: int, desc: str = "judging"):
        from tqdm.auto import tqdm  # imported with the first bar, not with the package

        no_tqdm_monitor()
        self.bar = tqdm(total=total, desc=desc, unit="call", dynamic_ncols=True)
        self.counts = {"invalid": 0, "failed": 0, "cached": 0}
        self.retrying: str | None = None  # requests waiting for a retry, and why (live.py)

    def add(self, reply: JudgeReply, parseable: bool, count: int = 1) -> None:
        """`count` requests finished with `reply` (parseable: its text has a verdict)."""
        if reply.text is None:
            self.counts["failed"] += count
        elif not parseable:
            self.counts["invalid"] += count
        if reply.cached:
            self.counts["cached"] += count
        self.bar.update(count)
        self.bar.set_postfix(refresh=False, **self._postfix())

    def waiting(self, retrying: str | None) -> None:
        """Show how many requests wait for a retry and why (`3 (RateLimitError; the latest waits 45 s)`), or None."""
        if retrying != self.retrying:  # (redrawn at each change: a later one may not come for the wait's length)
            self.retrying = retrying
            self.bar.set_postfix(refresh=True, **self._postfix())

    def _postfix(self) -> dict[str, Any]:
        return self.counts if self.retrying is None else {**self.counts, "retrying": self.retrying}

    def advance_to(self, done: int, **status: Any) -> None:
        """Move the bar to `done` (never back) and show `status` (the batch path)."""
        self.bar.update(max(0, min(self.bar.total, done) - self.bar.n))
        self.bar.set_postfix(refresh=False, **status)

    def close(self) -> None:
        self.bar.close()
