"""The openai transport: the official openai SDK for OpenAI-compatible endpoints given by
api_base (self-hosted vLLM, local servers, proxies), without importing litellm.

`AsyncOpenAI(base_url=api_base, max_retries=0).chat.completions.create(...)`: arguments
the SDK's `create` knows are passed by name, any other (vLLM's top_k,
chat_template_kwargs, ...) through `extra_body`, so they land in the request body as
given. The key is api_key, else $<PROVIDER>_API_KEY, else none (no Authorization header;
$OPENAI_API_KEY is never sent to another provider's server). Each event loop gets
OPENAI_CLIENTS_PER_LOOP clients, reused for every call and closed by aclose(). The call
is priced from litellm's bundled cost map (prices.py).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from judgebench.core.errors import squeezed
from judgebench.core.records import JudgeReply, JudgeRequest, reported_count
from judgebench.judges.base import JudgeCallError
from judgebench.judges.call_errors import (
    GATEWAY_NO_ANSWER,
    RETRYABLE_STATUS,
    connection_error,
    error_detail,
    is_auth_error,
    is_request_level,
    no_answer,
    parse_retry_after,
)
from judgebench.judges.prices import cost_map_prices, price
from judgebench.judges.providers import environment_key
from judgebench.judges.reasoning import response_details

# AsyncOpenAI clients (each with its own connection pool) per event loop, used in turn.
# httpx's pool probes every idle connection's socket each time it hands out a connection,
# so one pool of 64 connections costs more CPU per call than four pools of 16 (profiled:
# ~0.6 ms per call at concurrency 64, a few points of throughput on a 2-core machine).
OPENAI_CLIENTS_PER_LOOP = 4
# create() keywords that judgebench sets itself or that are not request-body arguments
_SDK_RESERVED = {"self", "messages", "model", "stream", "stream_options", "timeout"}
_SDK_RESERVED |= {"extra_headers", "extra_query", "extra_body"}


@dataclass(frozen=True)
class OpenAIShape:
    """What every call of one judge sends, resolved once."""

    api_base: str
    query: dict[str, str]
    model: str
    api_key: str
    organization: str | None
    headers: dict[str, str]
    params: dict[str, Any]  # create() keyword arguments besides model/messages/timeout
    prices: tuple[float, float] | None


@cache
def sdk_create_params() -> frozenset[str]:
    """Arguments `chat.completions.create` takes by name in the installed openai SDK."""
    from openai.resources.chat import AsyncCompletions

    names = inspect.signature(AsyncCompletions.create).parameters
    return frozenset(n for n in names if n not in _SDK_RESERVED)


def split_query(url: str) -> tuple[str, dict[str, str]]:
    """(url without its query string, the query as a dict): the SDK appends paths to
    base_url, so a query must travel as default_query to stay a query."""
    parts = urlsplit(url)
    if not parts.query:
        return url, {}
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    return urlunsplit(parts._replace(query="", fragment="")), query


def make_shape(
    provider: str,
    model: str,
    api_base: str,
    body: dict[str, Any],
    *,
    api_key: str | None,
    organization: str | None,
    headers: dict[str, str],
    prices: tuple[float, float] | None = None,
) -> OpenAIShape:
    """Split the body arguments into those `create` knows and `extra_body`, pick the key."""
    known = sdk_create_params()
    params = {k: v for k, v in body.items() if k in known}
    extra_body = {k: v for k, v in body.items() if k not in known}
    if extra_body:
        params["extra_body"] = extra_body
    key = api_key or environment_key(provider)[1] or None
    if key is None:
        # No key: send no Authorization header at all. The SDK wants some api_key at
        # construction (else it reads $OPENAI_API_KEY, which must not go to another
        # provider's server); the per-request Omit keeps this placeholder off the wire.
        import openai

        params["extra_headers"] = {"Authorization": openai.Omit()}
    base, query = split_query(api_base)
    return OpenAIShape(
        base, query, model, key or "no-key", organization, dict(headers), params,
        prices if prices is not None else cost_map_prices(model, provider),
    )


@cache
def _ssl_context(openai: Any) -> Any:
    """The SDK's default TLS context (its httpx's create_ssl_context()), made once per process.

    Loading the CA store costs 40-80 ms on this machine and every client made its own: four per
    event loop before the first request. The context is the same one each client would make (made
    once, so $SSL_CERT_FILE / $SSL_CERT_DIR are read when the first client is made)."""
    httpx = sys.modules[openai.DefaultAsyncHttpxClient.__mro__[1].__module__.split(".")[0]]
    return httpx.create_ssl_context()


class OpenAITransport:
    """Calls through AsyncOpenAI clients, OPENAI_CLIENTS_PER_LOOP per event loop."""

    def __init__(self, shape: OpenAIShape, scrub: Callable[[str], str]):
        self.shape = shape
        self.scrub = scrub
        self.clients: dict[int, tuple[Any, list[Any]]] = {}  # id(loop) -> (loop, clients)
        self._turn = 0

    def client(self) -> Any:
        """The next of this event loop's clients (round robin), made on first use."""
        loop = asyncio.get_running_loop()
        entry = self.clients.get(id(loop))
        if entry is None or entry[0] is not loop:
            entry = (loop, [self._new_client() for _ in range(OPENAI_CLIENTS_PER_LOOP)])
            self.clients[id(loop)] = entry
        self._turn += 1
        return entry[1][self._turn % len(entry[1])]

    def _new_client(self) -> Any:
        import openai

        shape = self.shape
        # The SDK's own httpx client with no cap on connections: the runner bounds how many
        # calls are in flight (--concurrency), and every connection opened stays open for
        # reuse (the SDK's default keeps at most 100 alive).
        limits_type = type(openai.DEFAULT_CONNECTION_LIMITS)
        http_client = openai.DefaultAsyncHttpxClient(
            limits=limits_type(max_connections=None, max_keepalive_connections=None),
            verify=_ssl_context(openai),
        )
        return openai.AsyncOpenAI(
            base_url=shape.api_base,
            api_key=shape.api_key,
            organization=shape.organization,
            max_retries=0,  # the runner retries, never the SDK
            default_headers=shape.headers or None,
            default_query=shape.query or None,  # e.g. ?token=...&sig=... of a signed api_base
            http_client=http_client,
        )

    async def call(self, request: JudgeRequest, timeout_s: float) -> JudgeReply:
        """One attempt; errors raised as JudgeCallError (classify)."""
        shape = self.shape
        client = self.client()
        started = time.monotonic()
        try:
            response = await client.chat.completions.create(
                model=shape.model, messages=request.messages, timeout=timeout_s, **shape.params
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise self.classify(exc, timeout_s) from None
        latency = time.monotonic() - started
        try:
            text = response.choices[0].message.content
            usage = response.usage
        except (AttributeError, IndexError, KeyError, TypeError):
            raise JudgeCallError(
                # scrubbed whole, then cut (cut first, a key across the cut lost its tail and was no longer matched)
                squeezed(self.scrub(f"malformed response from {shape.api_base}: {str(response)[:10_000]!r}"), 300),
                retryable=True, unreachable=True,
            ) from None
        tokens_in = reported_count(getattr(usage, "prompt_tokens", None))
        tokens_out = reported_count(getattr(usage, "completion_tokens", None))
        return JudgeReply(
            text=text if isinstance(text, str) else "",
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cost_usd=price(shape.prices, tokens_in, tokens_out),
            latency_s=latency,
            **response_details(response),
        )

    def classify(self, exc: Exception, timeout_s: float) -> JudgeCallError:
        """An openai SDK exception as a JudgeCallError (retryable, fatal or this prompt only)."""
        import openai

        name = type(exc).__name__
        if isinstance(exc, openai.APITimeoutError):
            return JudgeCallError(f"timed out after {timeout_s:g}s", retryable=True, unreachable=True)
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            detail = error_detail(exc)
            message = self.scrub(f"{name}: HTTP {status}: {detail}".strip())
            if is_auth_error(exc, status, message):
                return JudgeCallError(f"authentication failed: {message}", retryable=False)
            if isinstance(exc, (openai.RateLimitError, openai.InternalServerError)) or (
                status in RETRYABLE_STATUS or status >= 500
            ):
                headers = getattr(getattr(exc, "response", None), "headers", None)
                return JudgeCallError(message, retryable=True, retry_after_s=parse_retry_after(headers),
                                      unreachable=status in GATEWAY_NO_ANSWER)
            request_level = status == 400 and is_request_level(detail, getattr(exc, "code", None))
            return JudgeCallError(message, retryable=False, fatal=not request_level)
        if isinstance(exc, openai.APIConnectionError):  # what it wraps says why (call_errors.no_answer)
            return connection_error(self.scrub(f"connection error: {no_answer(exc)}"))
        if isinstance(exc, (openai.APIResponseValidationError, json.JSONDecodeError)):
            # a 200 whose body is not a chat completion (a proxy's error page, cut-off JSON)
            return JudgeCallError(self.scrub(f"malformed response: {name}: {exc}"), retryable=True, unreachable=True)
        message = self.scrub(f"{name}: {exc}")
        if is_auth_error(exc, None, message):
            return JudgeCallError(f"authentication failed: {message}", retryable=False)
        return JudgeCallError(message, retryable=False)

    async def aclose(self) -> None:
        """Close the clients. A client made on an event loop that has since closed cannot
        be closed any more: dropped."""
        entries, self.clients = self.clients, {}
        for loop, clients in entries.values():
            if loop.is_closed():
                continue
            for client in clients:
                try:
                    await client.close()
                except Exception:
                    pass
