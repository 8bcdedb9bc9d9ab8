"""The judge interface: one request in, one reply out (one attempt; the runner retries)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: the CLI's parser reaches this package (judges.args)
    from judgebench.core.records import JudgeReply, JudgeRequest


class JudgeCallError(Exception):
    """One failed attempt. `retryable`: trying again can help. `fatal` (non-retryable
    errors only): True stops the whole run (bad key, unknown model), False fails this
    call only (e.g. this prompt exceeds the context window). `unreachable`: no answer came
    back at all (a connection error or a timeout), or none a chat API gives (a 200 whose body is
    not a chat completion: a web page at api_base), unlike a 429 or 5xx, which an endpoint that
    is up sends (calls/live.py stops a run whose first calls all end so)."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        retry_after_s: float | None = None,
        fatal: bool = True,
        unreachable: bool = False,
    ):
        super().__init__(message)
        self.retryable = retryable
        self.retry_after_s = retry_after_s
        self.fatal = fatal
        self.unreachable = unreachable


class Judge(ABC):
    """Turns (question, response shown first, response shown second, context) into raw text.

    Verdict parsing happens outside the judge, so every judge's output goes
    through the same strict parser.
    """

    id: str
    cacheable: bool = False  # only paid/slow judges are cached
    # reads request.question/first/second, not only the rendered messages (calls/worker.py); a subclass of a
    # judge that sets it False, whose judge() reads them, sets it back to True
    needs_texts: bool = True
    timeout_s: float = 120.0  # per attempt; the runner sets it from --timeout

    def public_args(self) -> dict[str, Any]:
        """Arguments safe to write to results (no secrets). Default: none."""
        return {}

    def secret_values(self) -> list[str]:
        """The secrets this judge sends (keys, header values, URL query values): scrubbed from whatever comes
        back before it is stored (core/secrets.scrub_reply). Default: none."""
        return []

    async def warm_up(self) -> None:
        """Prepare before the first timed attempt (imports, clients). Default: nothing."""

    async def aclose(self) -> None:
        """Release clients and connections when a run ends. Default: nothing."""

    def cache_identity(self) -> dict[str, Any]:
        """Everything besides the prompt that determines the answer (model, generation args)."""
        return {"judge": self.id}

    def repriced(self, reply: JudgeReply) -> JudgeReply:
        """A cached answer at this judge's price now (a price given with the judge is not in its configuration hash,
        so a price corrected since applies to answers cached before). Default: as it was recorded."""
        return reply

    def preflight(self) -> None:
        """Check what can be checked before the first paid call (credentials, ...).

        Raise JudgebenchError with one line naming what is missing. Default: nothing to check.
        """

    @abstractmethod
    async def judge(self, request: JudgeRequest) -> JudgeReply:
        """Make one attempt; raise JudgeCallError on failure."""
