"""The litellm transport: `litellm.acompletion` for every provider (hosted APIs, anthropic/,
gemini/, ollama/, ...), its error mapping (also used by the batch path) and the
credential preflight.

litellm is called with num_retries=0 / max_retries=0 (the runner retries), maps the
arguments per provider and prices the call with `litellm.completion_cost` (None when the
model is not priced). It costs ~8-10 ms of CPU per call and ~5 s to import on a 2-core
machine (docs/guide/running-judges.md), which is why OpenAI-compatible endpoints use the openai SDK.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import Any

from judgebench.core.errors import JudgebenchError
from judgebench.core.records import JudgeReply, reported_amount, reported_count
from judgebench.judges.base import JudgeCallError
from judgebench.judges.call_errors import (
    GATEWAY_NO_ANSWER,
    REQUEST_LEVEL_ERRORS,
    RETRYABLE_STATUS,
    connection_error,
    is_auth_error,
    is_request_level,
    no_answer,
    parse_retry_after,
)
from judgebench.judges.providers import import_litellm, key_variables
from judgebench.judges.reasoning import response_details

# providers whose only credential is an API key in the environment (as litellm's
# validate_environment names it). Others (bedrock, vertex_ai, azure, ...) also take
# profiles, instance roles or tokens that cannot be checked up front: not checked.
PREFLIGHT_PROVIDERS = {"openai", "anthropic", "gemini", "mistral", "groq", "deepseek", "xai", "openrouter"}


async def call_litellm(
    model: str,
    messages: list[dict[str, Any]],
    kwargs: dict[str, Any],
    timeout_s: float,
    classify: Callable[[Exception], JudgeCallError],
) -> JudgeReply:
    """One `litellm.acompletion` attempt; errors raised as classify(exc)."""
    litellm = import_litellm()
    started = time.monotonic()
    try:
        response = await litellm.acompletion(
            model=model, messages=messages, timeout=timeout_s, num_retries=0, max_retries=0, **kwargs
        )
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        raise classify(exc) from None
    latency = time.monotonic() - started
    text = None
    try:
        text = response.choices[0].message.content
    except (AttributeError, IndexError, TypeError):
        pass
    usage = getattr(response, "usage", None)
    raw = (getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None))
    tokens_in, tokens_out = map(reported_count, raw)
    refused = any(given is not None and kept is None for given, kept in zip(raw, (tokens_in, tokens_out)))
    return JudgeReply(
        text=text if text is not None else "",
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        cost_usd=None if refused else _cost(litellm, response),  # litellm prices the counts we refused
        latency_s=latency,
        **response_details(response),
    )


def _cost(litellm: Any, response: Any) -> float | None:
    """The call's cost: litellm's own figure (it prices every response as it builds it,
    `_hidden_params["response_cost"]`, None when the model is not in its cost map), else
    `litellm.completion_cost`; None means unknown, never 0. Reading litellm's figure
    saves a second pricing pass, ~1 ms of CPU per call."""
    hidden = getattr(response, "_hidden_params", None)
    if isinstance(hidden, dict) and "response_cost" in hidden:
        return reported_amount(hidden["response_cost"])
    try:
        return reported_amount(litellm.completion_cost(completion_response=response))
    except Exception:
        return None


NOT_A_COMPLETION = "Empty or invalid response from LLM endpoint"  # litellm's words for a 200 with no chat completion


def classify_litellm_error(exc: Exception, scrub: Callable[[str], str], timeout_s: float) -> JudgeCallError:
    """A litellm exception as a JudgeCallError (retryable, fatal or this prompt only)."""
    litellm = import_litellm()
    status = getattr(exc, "status_code", None)
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or getattr(exc, "litellm_response_headers", None)
    retry_after = parse_retry_after(headers)
    name = type(exc).__name__
    message = scrub(f"{name}: {getattr(exc, 'message', None) or exc}")
    if is_auth_error(exc, status, message):
        return JudgeCallError(f"authentication failed: {message}", retryable=False)
    if isinstance(exc, (litellm.Timeout, asyncio.TimeoutError, TimeoutError)):
        return JudgeCallError(f"timed out after {timeout_s:g}s ({message})", retryable=True, unreachable=True)
    reason = no_answer(exc, message)  # litellm reports a refused or unresolvable host as a 500
    if reason is not None:
        return connection_error(scrub(f"{message} ({reason})") if reason else message)
    retryable_types = (
        litellm.RateLimitError,
        litellm.APIConnectionError,
        litellm.InternalServerError,
        litellm.ServiceUnavailableError,
        getattr(litellm, "BadGatewayError", litellm.ServiceUnavailableError),
    )
    gateway = status in GATEWAY_NO_ANSWER  # (the endpoint behind a proxy gave no answer: counted as none)
    if isinstance(exc, retryable_types):  # (a 200 that is not a chat completion, a web page, is litellm's 500 too)
        return JudgeCallError(message, retryable=True, retry_after_s=retry_after,
                              unreachable=gateway or NOT_A_COMPLETION in message)
    if isinstance(status, int) and (status in RETRYABLE_STATUS or status >= 500):
        return JudgeCallError(message, retryable=True, retry_after_s=retry_after, unreachable=gateway)
    # litellm maps prompt-level errors per provider; an OpenAI-compatible endpoint's own
    # wording (e.g. a content filter) is recognised the same way as on the openai transport
    request_level = any(c.__name__ in REQUEST_LEVEL_ERRORS for c in type(exc).__mro__) or (
        status == 400 and is_request_level(message, getattr(exc, "code", None))
    )
    return JudgeCallError(message, retryable=False, fatal=not request_level)


def check_credentials(model: str) -> None:
    """Raise a one-line JudgebenchError naming the credential variable(s) a hosted
    provider of PREFLIGHT_PROVIDERS needs when none is set (or it is set but blank). An id naming such a provider
    whose key variable is unset or blank is refused before litellm is imported (5-6 s on 2 cores): the same
    variable litellm would name."""
    provider = model.split("/", 1)[0] if "/" in model else ""
    variables = key_variables(provider) if provider in PREFLIGHT_PROVIDERS else ()  # set but blank is as good as unset
    if variables and not any(os.environ.get(v, "").strip() for v in variables):
        variable = variables[0]
        if variable in os.environ:
            raise JudgebenchError(f"judge {model}: no credentials: {variable} is set but empty")
        raise JudgebenchError(f"judge {model}: no credentials: set {variable} (or pass --judge-args api_key=...)")
    litellm = import_litellm()
    try:
        provider = litellm.get_llm_provider(model)[1]
        if provider not in PREFLIGHT_PROVIDERS:
            return
        found = litellm.validate_environment(model=model)
    except Exception:  # an unknown provider: litellm will say what it needs
        return
    missing = list(found.get("missing_keys") or [])
    if missing and not found.get("keys_in_environment"):
        raise JudgebenchError(
            f"judge {model}: no credentials: set {' or '.join(missing)} (or pass --judge-args api_key=...)"
        )
    blank = [name for name in key_variables(provider) if name in os.environ and not os.environ[name].strip()]
    if blank:
        raise JudgebenchError(f"judge {model}: no credentials: {blank[0]} is set but empty")
