"""One request's answers summed over its attempts and re-asks (Totals), and the
messages of a re-ask."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from judgebench.core.records import JudgeReply, JudgeRequest

REASK_TEMPLATE = (
    "I could not find a verdict in your answer. Answer again, following the answer "
    "format given in the instructions exactly, with one of these verdicts: {verdicts}."
)


def reask_messages(request: JudgeRequest, texts: list[str]) -> list[dict[str, str]]:
    """The original messages followed by each unparseable answer and a reminder."""
    reminder = request.reask_reminder or REASK_TEMPLATE.format(verdicts=", ".join(request.verdicts))
    messages = list(request.messages)
    for text in texts:
        messages.append({"role": "assistant", "content": text})
        messages.append({"role": "user", "content": reminder})
    return messages


@dataclass
class Totals:
    """Usage summed over the answered attempts of one request."""

    tokens_in: int | None = None
    tokens_out: int | None = None
    cost: float | None = 0.0
    latency: float = 0.0
    attempts: int = 0
    texts: list[str] = field(default_factory=list)
    reasoning_tokens: int | None = None
    last: dict[str, Any] = field(default_factory=dict)  # the last answer's finish_reason, reasoning, served_model
    cached_cost: float | None = None  # of `cost`, what an earlier run paid (a chain resumed from the cache)

    @classmethod
    def from_reply(cls, reply: JudgeReply) -> Totals:
        """The totals of a chain resumed from a cached reply: what it cost so far was paid by an earlier run."""
        texts = list(reply.earlier_texts) + ([reply.text] if reply.text is not None else [])
        return cls(
            reply.tokens_in,
            reply.tokens_out,
            reply.cost_usd,
            reply.latency_s,
            reply.attempts,
            texts,
            reply.reasoning_tokens,
            _last_details(reply),
            reply.cost_usd,
        )

    def add(self, reply: JudgeReply) -> None:
        if reply.tokens_in is not None:
            self.tokens_in = (self.tokens_in or 0) + reply.tokens_in
        if reply.tokens_out is not None:
            self.tokens_out = (self.tokens_out or 0) + reply.tokens_out
        self.cost = None if self.cost is None or reply.cost_usd is None else self.cost + reply.cost_usd
        self.latency += reply.latency_s
        self.texts.append(reply.text if reply.text is not None else "")
        if reply.reasoning_tokens is not None:
            self.reasoning_tokens = (self.reasoning_tokens or 0) + reply.reasoning_tokens
        self.last = _last_details(reply)

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
                cached_cost_usd=self.cached_cost if self.tokens_in is not None else None,
            )
        return JudgeReply(
            text=self.texts[-1],
            tokens_in=self.tokens_in,
            tokens_out=self.tokens_out,
            cost_usd=self.cost,
            latency_s=self.latency,
            attempts=self.attempts,
            earlier_texts=self.texts[:-1],
            cached_cost_usd=self.cached_cost,
            reasoning_tokens=self.reasoning_tokens,
            **self.last,
        )


def _last_details(reply: JudgeReply) -> dict[str, Any]:
    """What describes the answer itself (kept from the last answer of a re-ask chain)."""
    return {"finish_reason": reply.finish_reason, "reasoning": reply.reasoning, "served_model": reply.served_model,
            "top_logprobs": reply.top_logprobs}
