"""Redaction of secrets carried inside URLs: userinfo and query-string values.

    redact_url("https://user:pw@host/v1?token=abc&sig=x")  ->  "https://***@host/v1?token=***&sig=***"

Works on any text: every URL-like substring (scheme://...) in it is redacted, the rest is
left as it is, so it can be applied to error messages as well as to single arguments.
"""

from __future__ import annotations

import logging
import os
import re
from typing import Any

# scheme://authority[/path][?query][#fragment]. The authority runs to the first / ? # or whitespace,
# whatever else it holds (userinfo may contain ( ) ' ! $ and more); the rest runs to whitespace or a
# quote or angle bracket that ends a URL in prose. Over-redaction beats a leak.
_URL = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)(?P<authority>[^\s/?#]*)(?P<tail>[^\s'\"<>]*)")
_PARAM_VALUE = re.compile(r"([?&;#][^=&;#?]*=)([^&;#]*)")  # query and fragment parameters (#access_token=)
# A name that holds a secret: api_key, x-api-key, authToken, client_secret, password, signature, ...
_SECRET_WORDS = re.compile(
    r"(^|_)(api_?key|apikey|key|secret|password|passwd|pwd?|credentials?|token|authorization|auth|sig|signature"
    r"|cookie)(_|$)"
)
# A string that is a credential whatever its name: bearer/basic headers, provider key formats.
_CREDENTIAL = re.compile(
    r"(\bbearer\s+\S+|\bbasic\s+[A-Za-z0-9+/=]{8,}|\b(sk|pk|rk)-[A-Za-z0-9_-]{6,}|\bhf_[A-Za-z0-9]{6,}"
    r"|\bgh[pousr]_[A-Za-z0-9]{6,}|\bAKIA[0-9A-Z]{12,}|\bxox[abprs]-[A-Za-z0-9-]{6,})",
    re.IGNORECASE,
)
REDACTED = "***"  # the secret part of a URL
REDACTED_VALUE = "<redacted>"  # a whole value: under a secret-like name, or credential-shaped


def is_secret_name(name: str) -> bool:
    """Whether an argument, header or field name holds a secret (camelCase and dashes understood)."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", str(name)).replace("-", "_").lower()
    return bool(_SECRET_WORDS.search(words))


def _redact_one(match: re.Match[str]) -> str:
    authority = match.group("authority")
    if "@" in authority:
        authority = REDACTED + "@" + authority.rsplit("@", 1)[1]
    tail = _PARAM_VALUE.sub(lambda m: m.group(1) + (REDACTED if m.group(2) else ""), match.group("tail"))
    return match.group("scheme") + authority + tail


def redact_url(text: str) -> str:
    """`text` with the userinfo and every query or fragment parameter value of each URL replaced by ***."""
    return _URL.sub(_redact_one, text)


def url_secrets(text: str) -> list[str]:
    """The secret parts (userinfo, query and fragment values) of the URLs in `text`, for scrubbing."""
    found: list[str] = []
    for match in _URL.finditer(text):
        authority = match.group("authority")
        if "@" in authority:
            userinfo = authority.rsplit("@", 1)[0]
            found.append(userinfo)
            found.extend(part for part in userinfo.split(":") if part)
        # values too short to be secrets (?v=1) would mangle every message they were scrubbed from
        found.extend(m.group(2) for m in _PARAM_VALUE.finditer(match.group("tail")) if len(m.group(2)) >= 4)
    return found


SECRET_VALUE_MIN = 8  # shorter values of secret-named variables are not scrubbed from text (too common)


def environment_secrets() -> list[str]:
    """The values of this process's environment variables whose names hold a secret (`is_secret_name`:
    OPENAI_API_KEY, GEMINI_API_KEY, HF_TOKEN, ...), for scrubbing text we did not write."""
    found = [value for name, value in os.environ.items() if len(value) >= SECRET_VALUE_MIN and is_secret_name(name)]
    return sorted(found, key=len, reverse=True)  # longest first: a secret inside another is not left half shown


def mask_credentials(text: str) -> str:
    """`text` with URL secrets redacted and each credential-shaped part (`sk-...`, `Bearer ...`, `hf_...`)
    replaced by ***: for messages that must stay readable (an error from the caller's own judge)."""
    return _CREDENTIAL.sub(REDACTED, redact_url(text))


def redact_value(value: Any) -> Any:
    """`value` safe to write (judge arguments in results, entries and cards; dicts and lists walked):
    URL secrets redacted in every string, and a value under a secret-like name, or one shaped like a
    credential (`sk-...`, `Bearer ...`, `hf_...`), replaced whole."""
    if isinstance(value, str):
        text = redact_url(value)
        return REDACTED_VALUE if _CREDENTIAL.search(text) else text
    if isinstance(value, dict):
        return {
            redact_value(k) if isinstance(k, str) else k: (
                REDACTED_VALUE if is_secret_name(k) and v not in (None, "", REDACTED_VALUE) else redact_value(v)
            )
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [redact_value(v) for v in value]
    return value


# loggers of the HTTP stack that print request URLs (httpx at INFO, the openai SDK at DEBUG)
URL_LOGGERS = (
    "httpx",
    "httpx2",
    "httpcore",
    "httpcore2",
    "openai",
    "openai._base_client",
    "LiteLLM",
    "LiteLLM Proxy",
    "LiteLLM Router",
)


class RedactURLFilter(logging.Filter):
    """Rewrites a log record's message with redact_url (userinfo, query values)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a broken record is not ours to fix
            return True
        redacted = redact_url(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


_FILTER = RedactURLFilter()


def install_log_redaction() -> None:
    """Attach RedactURLFilter to the HTTP stack's loggers (idempotent)."""
    for name in URL_LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
