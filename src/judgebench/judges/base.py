"""The judge interface: one request in, one reply out (one attempt; the runner retries)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from ..records import JudgeReply, JudgeRequest


class JudgeCallError(Exception):
    """One failed attempt. `retryable` says whether trying again can help."""

    def __init__(self, message: str, *, retryable: bool, retry_after_s: float | None = None):
        super().__init__(message)
        self.retryable = retryable
        self.retry_after_s = retry_after_s


class Judge(ABC):
    """Turns (question, response shown first, response shown second, context) into raw text.

    Verdict parsing happens outside the judge, so every judge's output goes
    through the same strict parser.
    """

    id: str
    cacheable: bool = False  # only paid/slow judges are cached

    def cache_identity(self) -> dict[str, Any]:
        """Everything besides the prompt that determines the answer (model, generation args)."""
        return {"judge": self.id}

    def preflight(self) -> None:
        """Check what can be checked before the first paid call (credentials, ...).

        Raise JudgebenchError with one line naming what is missing. Default: nothing to check.
        """

    @abstractmethod
    async def judge(self, request: JudgeRequest) -> JudgeReply:
        """Make one attempt; raise JudgeCallError on failure."""
