"""Error classification shared by the transports and the batch path: what is retried
(429, 408/409/425, 5xx, timeouts, connection errors, with the server's Retry-After), what
stops the run (401/403 and any authentication error, 400, 404, a host name DNS does not know)
and what fails one prompt only (context window, content policy). Secrets are scrubbed out of error messages by
core/secrets.scrub_message."""

from __future__ import annotations

import email.utils
import time
from typing import Any

from judgebench.judges.base import JudgeCallError

RETRYABLE_STATUS = {408, 409, 425, 429}
# 4xx that concern one request only (its prompt), not the run: recorded FAILED, run goes on
REQUEST_LEVEL_ERRORS = ("ContextWindowExceededError", "ContentPolicyViolationError")
# authentication / permission failures: permanent on every transport, whatever the status
# the provider or litellm reports (litellm turns a missing key into an InternalServerError)
AUTH_ERRORS = ("AuthenticationError", "PermissionDeniedError")
# client-side "no key at all" messages (whatever status litellm attaches to them)
AUTH_TEXT = ("missing credentials", "api_key client option must be set")
# Exceptions of a connection that got no HTTP answer, by name (openai, httpx, aiohttp; litellm wraps them in a 500)
NO_ANSWER_ERRORS = {"APIConnectionError", "ConnectError", "ConnectTimeout", "ClientConnectorError",
                    "ClientConnectorDNSError", "ServerDisconnectedError"}
# The resolver's answers that a host name does not exist (glibc's EAI_NONAME and EAI_NODATA, macOS's EAI_NONAME): a
# misspelt api_base host, which no retry can help. "Temporary failure in name resolution" (EAI_AGAIN) is not among
# them, nor Windows' "getaddrinfo failed" (its text for every resolver error, temporary ones too): both are retried.
UNKNOWN_HOST_TEXT = ("name or service not known", "nodename nor servname provided", "no address associated with hostname")
def parse_retry_after(headers: Any) -> float | None:
    """Seconds from Retry-After (seconds or an HTTP date) or retry-after-ms."""
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000.0)
        value = headers.get("retry-after")
    except Exception:
        return None
    if value is None:
        return None
    value = str(value).strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def is_auth_error(exc: BaseException, status: Any, message: str) -> bool:
    """401/403, an AuthenticationError/PermissionDeniedError (openai or litellm), or a
    missing-credentials message: permanent, never retried."""
    if status in (401, 403):
        return True
    if any(c.__name__ in AUTH_ERRORS for c in type(exc).__mro__):
        return True
    low = message.lower()
    return any(fragment in low for fragment in AUTH_TEXT)


GATEWAY_NO_ANSWER = (502, 504)  # a gateway or proxy saying the endpoint behind it gave no (timely) answer


def no_answer(exc: BaseException, said: str = "") -> str | None:
    """The text of the exception in `exc`'s chain that says the connection got no HTTP answer (refused, reset,
    unresolvable, ...), with the chain's root cause, or None: an error with an HTTP status came from an endpoint that
    is there. A part whose words `said` (the message it goes with) already holds is left out."""
    chain: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None and all(cause is not seen for seen in chain):
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    found = next((i for i, c in enumerate(chain) if isinstance(c, ConnectionError) or type(c).__name__ in NO_ANSWER_ERRORS),
                 None)
    if found is None:
        return None
    # the root cause below it says why (openai's "Connection error." wraps httpx's "[Errno -2] Name or service not
    # known": read alone, an unknown host was retried as a connection error for half a minute)
    parts = [c for c in dict.fromkeys([chain[found], chain[-1]]) if str(c) and str(c) not in said]
    if not parts:
        return ""
    first, *root = (f"{type(c).__name__}: {c}" for c in parts)
    return f"{first} ({root[0]})" if root else first


def connection_error(message: str) -> JudgeCallError:
    """A connection that got no answer (no_answer): retried, unless the resolver said its host name does not exist,
    which stops the run."""
    if any(fragment in message.lower() for fragment in UNKNOWN_HOST_TEXT):
        return JudgeCallError(f"the endpoint's host name was not found (a misspelt api_base or proxy host, or no DNS "
                              f"here): {message}", retryable=False)
    return JudgeCallError(message, retryable=True, unreachable=True)


def error_detail(exc: Any) -> str:
    """The provider's error message from an openai APIStatusError."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message") is not None:
            return str(err["message"])
        if isinstance(err, str):
            return err
    message = getattr(exc, "message", None)
    return str(message if message is not None else exc)


_REQUEST_LEVEL_CODES = {"context_length_exceeded", "content_policy_violation", "content_filter"}
_REQUEST_LEVEL_TEXT = (
    "context length",
    "maximum context",
    "context window",
    "too long",
    "content_policy_violation",
    "content management policy",
    "content policy",
)


def is_request_level(detail: str, code: Any) -> bool:
    """A 400 about this prompt only (too long for the context window, refused by a
    content policy): that call fails, the run goes on."""
    if isinstance(code, str) and code in _REQUEST_LEVEL_CODES:
        return True
    low = detail.lower()
    return any(fragment in low for fragment in _REQUEST_LEVEL_TEXT)
