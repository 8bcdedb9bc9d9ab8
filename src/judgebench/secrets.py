"""Redaction of secrets carried inside URLs: userinfo and query-string values.

    redact_url("https://user:pw@host/v1?token=abc&sig=x")  ->  "https://***@host/v1?token=***&sig=***"

Works on any text: every URL-like substring (scheme://...) in it is redacted, the rest is
left as it is, so it can be applied to error messages as well as to single arguments.
"""

from __future__ import annotations

import logging
import re
from typing import Any

# scheme://[userinfo@]rest-of-url, up to whitespace or a quote/bracket that ends it in prose
_URL = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)(?P<rest>[^\s'\"<>\]\[)(]+)")
_QUERY_VALUE = re.compile(r"([?&;][^=&;#]*=)([^&;#]*)")
REDACTED = "***"


def _redact_one(scheme: str, rest: str) -> str:
    authority, sep, tail = rest.partition("/")
    if not sep:  # no path: the query (or fragment) may follow the authority directly
        match = re.search(r"[?#]", rest)
        authority, tail = (rest[: match.start()], rest[match.start() :]) if match else (rest, "")
    else:
        tail = "/" + tail
    if "@" in authority:
        authority = REDACTED + "@" + authority.rsplit("@", 1)[1]
    return scheme + authority + _QUERY_VALUE.sub(lambda m: m.group(1) + (REDACTED if m.group(2) else ""), tail)


def redact_url(text: str) -> str:
    """`text` with the userinfo and every query-string value of each URL in it replaced by ***."""
    return _URL.sub(lambda m: _redact_one(m.group("scheme"), m.group("rest")), text)


def url_secrets(text: str) -> list[str]:
    """The secret parts (userinfo, query values) of the URLs in `text`, for scrubbing."""
    found: list[str] = []
    for match in _URL.finditer(text):
        rest = match.group("rest")
        authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
        if "@" in authority:
            userinfo = authority.rsplit("@", 1)[0]
            found.append(userinfo)
            found.extend(part for part in userinfo.split(":") if part)
        query = rest.split("?", 1)[1] if "?" in rest else ""
        for pair in re.split(r"[&;]", query.split("#", 1)[0]):
            value = pair.partition("=")[2]
            if value:
                found.append(value)
    return found


def redact_value(value: Any) -> Any:
    """redact_url applied to every string inside `value` (dicts and lists walked)."""
    if isinstance(value, str):
        return redact_url(value)
    if isinstance(value, dict):
        return {k: redact_value(v) for k, v in value.items()}
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
