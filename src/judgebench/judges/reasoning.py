"""What a reasoning judge returns besides its answer, read the same way on every path (the openai
SDK, litellm, a batch output line): finish_reason, reasoning text, reasoning tokens and the model
snapshot the provider served; and the one truncation rule.

The reasoning text is kept apart from the answer and is never parsed for a verdict. Sources, first
found wins: the message's `reasoning_content` (DeepSeek, vLLM, litellm's normalised field),
`reasoning` (OpenRouter, some vLLM versions), else the text of `thinking_blocks` (Anthropic through
litellm). Reasoning tokens: `usage.completion_tokens_details.reasoning_tokens` (OpenAI, litellm).
"""

from __future__ import annotations

import math
from typing import Any

from judgebench.core.confidence import verdictish
from judgebench.core.records import JudgeReply, reported_count

# finish reasons that mean the token cap cut the answer off ("max_tokens": Anthropic's own name)
TRUNCATED_FINISH = frozenset({"length", "max_tokens"})
TRUNCATED_FIX = "raise max_tokens (--judge-args max_tokens=N) or lower reasoning_effort / the thinking budget"


def _get(obj: Any, name: str) -> Any:
    """obj.name or obj[name] (SDK objects, litellm objects and plain dicts alike); None when absent."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "model_extra", None)  # pydantic objects keep unknown fields here
        if isinstance(extra, dict):
            value = extra.get(name)
    return value


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def reasoning_text(message: Any) -> str | None:
    """The provider-returned reasoning of one message, or None."""
    for name in ("reasoning_content", "reasoning"):
        found = _text(_get(message, name))
        if found:
            return found
    blocks = _get(message, "thinking_blocks")
    if isinstance(blocks, list):
        parts = [_text(_get(block, "thinking")) for block in blocks]
        joined = "\n\n".join(p for p in parts if p)
        return joined or None
    return None


def response_details(response: Any) -> dict[str, Any]:
    """finish_reason, reasoning, reasoning_tokens and served_model of a chat completion
    (object or dict): JudgeReply keyword arguments, None where not reported."""
    choices = _get(response, "choices")
    choice = choices[0] if isinstance(choices, list) and choices else None
    finish = _get(choice, "finish_reason")
    details = _get(_get(response, "usage"), "completion_tokens_details")
    tokens = _get(details, "reasoning_tokens")
    model = _get(response, "model")
    return {
        "finish_reason": finish if isinstance(finish, str) else None,
        "reasoning": reasoning_text(_get(choice, "message")),
        "reasoning_tokens": reported_count(tokens),
        "served_model": model if isinstance(model, str) and model else None,
        "top_logprobs": choice_logprobs(choice),
    }


def _finite(value: Any) -> bool:
    """A log-probability worth keeping: a finite number (JSON has no NaN; a reply must survive the cache)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


MAX_LOGPROB_POSITIONS = 64  # the last verdict-like positions kept per answer (the verdict is read from the last)


def choice_logprobs(choice: Any) -> list[tuple[str, float, dict[str, float]]] | None:
    """The verdict-like token positions of a choice's `logprobs.content` (OpenAI-compatible; returned with
    logprobs=true): (chosen token, logprob, top alternatives); positions whose chosen token and alternatives
    name no verdict are dropped (core/confidence.py). None when the response has no log-probabilities."""
    content = _get(_get(choice, "logprobs"), "content")
    if not isinstance(content, list):
        return None
    kept: list[tuple[str, float, dict[str, float]]] = []
    for item in content:
        token, logprob = _get(item, "token"), _get(item, "logprob")
        if not isinstance(token, str) or not _finite(logprob):
            continue
        top: dict[str, float] = {}
        for alt in _get(item, "top_logprobs") or []:
            alt_token, alt_lp = _get(alt, "token"), _get(alt, "logprob")
            if isinstance(alt_token, str) and _finite(alt_lp):
                top.setdefault(alt_token, float(alt_lp))
        if verdictish(token) or any(map(verdictish, top)):
            kept.append((token, float(logprob), top))
    return kept[-MAX_LOGPROB_POSITIONS:]


def is_truncated(reply: JudgeReply) -> bool:
    """The token cap cut the answer off: finish_reason length, or reasoning used the budget and
    left no answer (empty text with reasoning text or reasoning tokens reported)."""
    if reply.text is None:
        return False
    if reply.finish_reason in TRUNCATED_FINISH:
        return True
    reasoned = reply.reasoning is not None or bool(reply.reasoning_tokens)
    return not reply.text.strip() and reasoned
