"""Judge arguments made safe to publish: secrets.redact_value plus secret-named keys and key-like values.

A submitted results.json is written by the submitter, so its `judge_args` may carry secrets the
judge's own `public_args` would have removed. Before an entry is stored (submit) or a card is
written (export), `public_judge_args` is applied:
  - every URL's userinfo and query-string values are replaced (secrets.redact_value);
  - the value under a key that names a secret (api_key, *token*, *secret*, *password*, authorization,
    x-api-key, *credential*, cookie, private_key, ...; at any depth) becomes "<redacted>" (the key
    name is kept, as public_args does for headers, so the page shows which arguments were set);
  - a string that looks like a credential anywhere (`sk-...`, `Bearer ...`, `hf_...`, `ghp_...`,
    `AKIA...`, `xox?-...`) becomes "<redacted>".
"""

from __future__ import annotations

import re
from typing import Any

from .secrets import redact_value

REDACTED = "<redacted>"
SECRET_KEY = re.compile(
    r"(api[-_]?key|apikey|token|secret|passw(or)?d|passwd|authori[sz]ation|auth[-_]?header|credential|cookie"
    r"|private[-_]?key|access[-_]?key|session[-_]?key|signature|^auth$|^key$|^sig$|^pw$|^pwd$)",
    re.IGNORECASE,
)
SECRET_VALUE = re.compile(
    r"(\bbearer\s+\S+|\bbasic\s+[A-Za-z0-9+/=]{8,}|\b(sk|pk|rk)-[A-Za-z0-9_-]{6,}|\bhf_[A-Za-z0-9]{6,}"
    r"|\bgh[pousr]_[A-Za-z0-9]{6,}|\bAKIA[0-9A-Z]{12,}|\bxox[abprs]-[A-Za-z0-9-]{6,})",
    re.IGNORECASE,
)


TOKEN_COUNT = re.compile(r"(max|min)\w*tokens?|\w*_tokens|tokens", re.IGNORECASE)  # max_tokens is no secret


def is_secret_key(key: Any) -> bool:
    return bool(SECRET_KEY.search(str(key))) and not TOKEN_COUNT.fullmatch(str(key))


def public_judge_args(value: Any) -> Any:
    """`value` (judge_args) with URL secrets, secret-named keys' values and key-like strings redacted."""
    if isinstance(value, dict):
        return {
            _public_key(key): REDACTED if is_secret_key(key) and item not in (None, "", REDACTED) else public_judge_args(item)
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [public_judge_args(item) for item in value]
    if isinstance(value, str):
        text = redact_value(value)
        return REDACTED if SECRET_VALUE.search(text) else text
    return value


def _public_key(key: Any) -> Any:
    text = redact_value(str(key))
    return REDACTED if SECRET_VALUE.search(text) else (key if text == str(key) else text)
