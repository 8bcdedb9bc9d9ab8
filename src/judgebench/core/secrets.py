"""Redaction of secrets carried inside URLs: userinfo and query-string values.

    redact_url("https://user:pw@host/v1?token=abc&sig=x")  ->  "https://***@host/v1?token=***&sig=***"

Works on any text: every URL-like substring (scheme://...) in it is redacted, the rest is
left as it is, so it can be applied to error messages as well as to single arguments.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote

# scheme://authority[/path][?query][#fragment]. The authority runs to the first / ? # or whitespace,
# whatever else it holds (userinfo may contain ( ) ' ! $ and more); the rest runs to whitespace or a
# quote or angle bracket that ends a URL in prose. Over-redaction beats a leak.
_URL = re.compile(r"(?<![A-Za-z0-9+.\-])(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)(?P<authority>[^\s/?#]*)(?P<tail>[^\s'\"<>]*)")
_PARAM_VALUE = re.compile(r"([?&;#][^=&;#?]*=)([^&;#?]*)")  # query and fragment parameters (#access_token=)
_BARE_ITEM = re.compile(r"(?<=[?&;#])([^=&;#?]+)(?=[&;#]|$)")  # a query item without a name (`?<key>`)
# A name that holds a secret: api_key, x-api-key, authToken, client_secret, password, signature, ...
_SECRET_WORDS = re.compile(
    r"(^|_)(api_?key|apikey|key|secret|password|passwd|pwd?|credentials?|token|authorization|auth|sig|signature"
    r"|cookie|passphrase|session|bearer|jwt|pat|sas|connection_?string|conn_?str|dsn|private_?key)(_|$)"
)
# Names with a secret's word that name something else: an id, a count, a limit, a mode, a path (stop_token_ids,
# session_id, token_limit, auth_mode, credentials_path), a provider's parameter (prompt_cache_key), a token count or
# a special token (max_token, eos_token). They were withheld from results.json, the hash and the cache key, and not
# sent on the openai transport (an outside attack: two runs differing in stop_token_ids shared their answers).
_ORDINARY_LAST_WORDS = frozenset({"id", "ids", "limit", "limits", "count", "counts", "mode", "path", "file", "dir",
                                  "type", "types", "name", "names", "length", "size", "format", "index", "budget"})
_ORDINARY_NAMES = re.compile(r"(prompt_)?cache_key|sort_key|token_healing"
                             r"|(max|min|stop|eos|bos|pad|sep|unk|cls|mask|start|end)_tokens?")
# Words and pairs that name a credential whatever follows them (`aws_access_key_id`, `private_key_id`, `api_key_name`,
# `client_secret_id`, `credentials_path`): the ordinary last words above do not make them ordinary (a third attack
# found an AWS key id and a GCP private key id in results.json); their plurals too.
_STRONG = re.compile(r"(^|_)(secrets?|passwords?|passwd|pwd|passphrase|credentials?|(api|access|secret|private)_?keys?"
                     r"|client_?secrets?|service_?account|bearer|jwt|dsn|sas|connection_?string|cookies?|passcodes?"
                     r"|(default|custom)_?headers)(_|$)")
_STRONG_NAMES = re.compile(r"ak|sk")  # an access key / secret key pair (Baidu, Volcengine)
# A word that ends in a secret's name, written as one word: mytoken, dbpassword, clientsecret, accesskey.
_SECRET_SUFFIX = re.compile(r"[a-z]*(token|secret|password|passwd|passphrase|passcode|credentials?"
                            r"|(api|access|secret|private|master|subscription|auth|client|signing|encryption|service"
                            r"|account|admin|root|session|license|app)key)")
# A string that is a credential whatever its name: bearer/basic headers, provider key formats.
_CREDENTIAL = re.compile(
    r"(\bbearer\s+[A-Za-z0-9._~+/=\-]{8,}|\bbasic\s+(?=[A-Za-z0-9+/=]*[0-9+/=])[A-Za-z0-9+/=]{8,}|\b(sk|pk|rk)-[A-Za-z0-9_-]{6,}|\bhf_[A-Za-z0-9]{6,}"
    r"|\bgh[pousr]_[A-Za-z0-9]{6,}|\bAKIA[0-9A-Z]{12,}|\bxox[abprs]-[A-Za-z0-9-]{6,}"
    r"|\b[sr]k_(?:live|test)_[A-Za-z0-9]{6,}|\bAIza[0-9A-Za-z_\-]{20,}|\bglpat-[A-Za-z0-9_\-]{10,}"  # Stripe, Google, GitLab
    r"|\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}|\btoken\s+(?=[A-Za-z0-9._\-]*[0-9])[A-Za-z0-9._\-]{16,})",  # a JWT; `Token x`
    re.IGNORECASE,
)
REDACTED = "***"  # the secret part of a URL
REDACTED_VALUE = "<redacted>"  # a whole value: under a secret-like name, or credential-shaped


def is_secret_name(name: str) -> bool:
    """Whether an argument, header or field name holds a secret (camelCase, dashes, dots and numbered names
    understood: api_key2, api.key, token_2, mytoken)."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", str(name)).lower()
    words = re.sub(r"(?<=[a-z])(?=[0-9])|(?<=[0-9])(?=[a-z])", "_", re.sub(r"[^a-z0-9]+", "_", words))
    words = words.strip("_")
    if _STRONG.search(words) or _STRONG_NAMES.fullmatch(words):  # whatever its last word: aws_access_key_id
        return True
    if _ORDINARY_NAMES.fullmatch(words) or words.rsplit("_", 1)[-1] in _ORDINARY_LAST_WORDS:
        return False
    return bool(_SECRET_WORDS.search(words)) or any(_SECRET_SUFFIX.fullmatch(word) for word in words.split("_"))


KEYLIKE_MIN = 20  # characters of a path segment before it can look like a key
_KEY_SEPARATORS = re.compile(r"[-_.~+=]")
_WORD = re.compile(r"[A-Z]?[a-z]{2,}|[A-Z]{2,}(?![a-z])")  # camelCase split: Deep Seek Coder, AWQ
_PRONOUNCEABLE = re.compile(r"(?=.*[aeiouyAEIOUY])(?!.*[^aeiouyAEIOUY]{5})")  # a vowel, no five consonants in a row
_DIGIT_RUN = re.compile(r"[0-9]+")  # a name's part holds three at most (Mixtral8x22BInstructv01); random text more
_HEX_KEY = re.compile(r"(?=.*[a-f])[0-9a-f]{20,}|(?=.*[A-F])[0-9A-F]{20,}")  # (a long number is no key)


def looks_like_key(segment: str) -> bool:
    """Whether a URL path segment or query item looks like a credential rather than a name (`/v1/<secret>`): 20
    characters or more of key characters, letters and a digit, and random-looking: a long hex run, a part of six
    characters or more whose letters are mostly not pronounceable words or that holds four runs of digits, or parts whose character classes change
    as often as random text's (`chat`, `completions`, `gpt-4o-mini-2024-07-18`, `DeepSeekCoderV2Instruct2024`,
    `Meta-Llama-3.1-70B-Instruct-Turbo` are names; `sk-proj-...`, a 32-hex token, `secrets.token_urlsafe(24)` keys).
    (The earlier rule, long runs of letters make a name, took 86-95% of random letter-and-digit keys for names, an
    outside attack measured.)"""
    if len(segment) < KEYLIKE_MIN or not re.fullmatch(r"[A-Za-z0-9_\-.~+=]+", segment):
        return False
    if _CREDENTIAL.search(segment) or _HEX_KEY.fullmatch(segment):
        return True
    if not any(c.isdigit() for c in segment) or sum(c.isalpha() for c in segment) < 2:
        return False
    parts = [part for part in _KEY_SEPARATORS.split(segment) if len(part) >= 6]
    return any(not _readable(part) or len(_DIGIT_RUN.findall(part)) >= 4 for part in parts) or \
        _class_changes(parts) > 0.3


def _readable(part: str) -> bool:
    """Whether most of a part's letters are in pronounceable words of three letters or more."""
    letters = sum(c.isalpha() for c in part)
    words = [w for w in _WORD.findall(part) if len(w) >= 3 and _PRONOUNCEABLE.match(w)]
    if letters <= 2:  # a size or a count (`1024px`, `8x7b`), unless a run of hex digits (a UUID's part)
        return letters == 0 or len(part) < 8 or not re.fullmatch(r"[0-9a-fA-F]+", part)
    return sum(map(len, words)) >= letters / 2


def _class_changes(parts: list[str]) -> float:
    """How often the character class (upper, lower, digit) changes between neighbours in `parts`, per character; an
    upper letter before a lower one (a word's start) is no change. Random text: about 0.4-0.6; names: under 0.25."""
    def kind(c: str) -> str:
        return "u" if c.isupper() else "l" if c.islower() else "d"

    changes = sum(kind(a) != kind(b) and (kind(a), kind(b)) != ("u", "l") for part in parts for a, b in zip(part, part[1:]))
    return changes / max(1, sum(map(len, parts)))


def _path_redacted(path: str) -> str:
    return "/".join(REDACTED if looks_like_key(part) else part for part in path.split("/"))


# A host as it follows a userinfo's @: a dotted name whose last label has a letter (`1.2.0`, `v1.0` and `3.1` are
# versions), an IPv4 or IPv6 address, localhost, or a name with a port; with or without a port.
_HOST = re.compile(r"(\[[0-9A-Fa-f:.]+\]|([A-Za-z0-9\-]+\.)+[A-Za-z0-9\-]*[A-Za-z][A-Za-z0-9\-]*|[0-9]+(\.[0-9]+){3}"
                   r"|localhost|[A-Za-z0-9\-.]+(?=:))(:[0-9]*)?")
_FILE_NAME = re.compile(r"\.(jsonl|json|csv|tsv|parquet|arrow|txt|yaml|yml|gz|bz2|xz|zst|zip|tar)$", re.IGNORECASE)
_HOST_AND_PORT = re.compile(r"(\[[0-9A-Fa-f:.]*\]|[^:\[\]]*)(:[0-9]*)?")
_AUTHORITY_END = re.compile(r"[/?#]|$")


def _userinfo(match: re.Match[str]) -> tuple[str, str, str]:
    """A URL's userinfo (empty when it has none), its host and the rest (`split_userinfo`)."""
    return split_userinfo(match.group("authority"), match.group("tail"))


def split_userinfo(authority: str, tail: str) -> tuple[str, str, str]:
    """(userinfo or "", host, rest) of a URL's text after its scheme, cut as `authority` (to the first / ? #) and
    `tail`. A password holding a raw / ? or # (which no URL parser reads as userinfo) ended the authority early:
    `https://u:pa/ss@host.com/v1` showed `pa/ss`. So a later @ ends a userinfo too: anywhere when the authority before
    it is no host:port (`u:pa`), in the path when a host follows it (an @ in an ordinary path, Cloudflare's
    `/run/@cf/meta/...`, a version's `/data@1.2.0/` or a file's `pairs@2024.jsonl`, has none). Over-redaction beats a leak."""
    if "@" in authority:
        userinfo, host = authority.rsplit("@", 1)
        return userinfo, host, tail
    plain = bool(_HOST_AND_PORT.fullmatch(authority))
    at = (re.split(r"[?#]", tail, maxsplit=1)[0] if plain else tail).rfind("@")
    rest = tail[at + 1:]
    host = rest[:_AUTHORITY_END.search(rest).start()]
    if at < 0 or (plain and (not _HOST.fullmatch(host) or _FILE_NAME.search(host))):
        return "", authority, tail
    return authority + tail[:at], host, rest[len(host):]


def userinfo_needs_encoding(url: str) -> bool:
    """Whether a URL's user or password holds a raw / ? or #, so that a URL parser reads part of it as the host, the
    port or the path (it must be percent-encoded: %2F %3F %23)."""
    match = _URL.match(url.strip())
    return bool(match) and "@" not in match.group("authority") and bool(_userinfo(match)[0])


def _redact_one(match: re.Match[str]) -> str:
    userinfo, host, tail = _userinfo(match)
    authority = REDACTED + "@" + host if userinfo else host
    cut = min([i for i in (tail.find("?"), tail.find("#")) if i >= 0], default=len(tail))
    query = _PARAM_VALUE.sub(_param_redacted, tail[cut:])
    query = _BARE_ITEM.sub(lambda m: REDACTED if _bare_secret(m.group(1)) else m.group(1), query)
    return match.group("scheme") + authority + _path_redacted(tail[:cut]) + query


def _param_redacted(match: re.Match[str]) -> str:
    """`name=value` with the value hidden; `<key>=` (a base64 key's padding read as the `=`) hidden whole."""
    name, value = match.group(1), match.group(2)
    if not value and _bare_secret(name[1:].rstrip("=")):
        return name[0] + REDACTED
    return name + (REDACTED if value else "")


def _bare_secret(item: str) -> bool:
    """Whether a query item without a name (`?<key>`) may be a credential: 8 characters or more, letters and digits
    (`?beta`, `?v2` are flags)."""
    return len(item) >= 8 and any(c.isdigit() for c in item) and any(c.isalpha() for c in item)


def redact_url(text: str) -> str:
    """`text` with the userinfo and every query or fragment parameter value of each URL replaced by ***."""
    return _URL.sub(_redact_one, text)


def url_secrets(text: str) -> list[str]:
    """The secret parts of the URLs in `text`, for scrubbing what comes back: a userinfo's password (its user too
    when there is no password, `TOKEN@host`, or when the user looks like a key), and the query and fragment values
    whose name holds a secret or which look like a key. (Every value was taken: `?beta=true` took "true" out of
    every answer, and `?api-version=2024-06-01` every date of that month; URLs themselves are still shown with
    every value redacted, `redact_url`.)"""
    found: list[str] = []
    for match in _URL.finditer(text):
        userinfo, _, tail = _userinfo(match)
        if userinfo:
            user, colon, password = userinfo.partition(":")
            found += [f"{user}:{password}", password] if password else []
            found += [user] if user and (not colon or looks_like_key(user)) else []
        # values too short to be secrets (?v=1) would mangle every message they were scrubbed from
        found.extend(m.group(1) for m in _BARE_ITEM.finditer(tail) if _bare_secret(m.group(1)))
        found.extend(m.group(1)[1:] for m in _PARAM_VALUE.finditer(tail)  # `?<base64 key>=`
                     if not m.group(2) and _bare_secret(m.group(1)[1:].rstrip("=")))
        found.extend(m.group(2) for m in _PARAM_VALUE.finditer(tail) if len(m.group(2)) >= 4
                     and (is_secret_name(m.group(1)[1:-1]) or looks_like_key(m.group(2))))
        path = re.split(r"[?#]", tail, maxsplit=1)[0]
        found.extend(part for part in path.split("/") if looks_like_key(part))
    return found


SECRET_END = 8  # characters of a long secret's start or end that, echoed in a word, take the whole word out ...
SECRET_LONG = 16  # ... for secrets at least this long, also found in any case (`LocalKey01...`, `...ETKEY1234`)
_KEY_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.*~+/=")  # a key's word
_KEY_CHARS = f"[{re.escape(''.join(sorted(_KEY_CHARACTERS)))}]*"  # (a `:` or `[` ends such a word: a verdict stays)


def scrub_text(text: str, secrets: Sequence[str]) -> str:
    """`text` with every occurrence of each secret replaced by ***: for what came back from a provider (an answer
    may echo the key it was sent), before it is stored anywhere. A secret of SECRET_LONG characters or more (a
    key, not a word) is also found in any case, and a word that starts with its first or ends with its last 8
    characters, when those look like a key's (a digit, a sign, or camel case), is taken out whole: an echo of its
    start or end, masked or cut (an outside attack found 12 of 21 characters kept, and 21 of 25 in the middle-cut
    repr of a pydantic warning)."""
    wanted = tuple(sorted({s for s in secrets if s and len(s) >= 4}))
    if not wanted:
        return text
    pattern, needles, ends = _secrets_pattern(wanted)
    folded = text.casefold()  # (a fast look first: most texts hold no secret, and the pattern is slow to run)
    if not any(needle in folded for needle in needles):
        return text
    return _without_ends(pattern.sub(REDACTED, text), ends)


def _without_ends(text: str, ends: tuple[str, ...]) -> str:
    """`text` with each word of key characters that ends with one of `ends` replaced by ***: found by a search for
    each end and a walk back over the word (a pattern that scans a word forward to its end is quadratic)."""
    for end in ends:
        pieces, kept, start = [], 0, text.find(end)
        while start >= 0:
            first = start
            while first > kept and text[first - 1] in _KEY_CHARACTERS:
                first -= 1
            pieces += [text[kept:first], REDACTED]
            kept = start + len(end)
            start = text.find(end, kept)
        text = "".join(pieces) + text[kept:] if pieces else text
    return text


def _key_like(part: str) -> bool:
    """Whether a secret's first or last characters look like a key's rather than a word's (`password`, `postgres`
    are words: answers say them)."""
    return any(not c.isalpha() for c in part) or bool(re.search(r"[a-z][A-Z]", part))


@functools.lru_cache(maxsize=64)
def _secrets_pattern(secrets: tuple[str, ...]) -> tuple[re.Pattern[str], tuple[str, ...], tuple[str, ...]]:
    """One pattern for a run's secrets: each whole (longest first; a long one in any case), then each long one's
    key-like start (as written, upper- or lower-cased) with the rest of its word; the needles a case-folded text
    must hold one of for anything to be found; and the long ones' key-like ends (`_without_ends`)."""
    ordered = sorted(secrets, key=len, reverse=True)
    long = [s for s in ordered if len(s) >= SECRET_LONG]
    cased = lambda part: {part, part.upper(), part.lower()}  # noqa: E731
    starts = {form for s in long if _key_like(s[:SECRET_END]) for form in cased(s[:SECRET_END])}
    ends = {form for s in long if _key_like(s[-SECRET_END:]) for form in cased(s[-SECRET_END:])}
    parts = [f"(?i:{re.escape(s)})" if len(s) >= SECRET_LONG else re.escape(s) for s in ordered]
    parts += [f"{re.escape(p)}{_KEY_CHARS}" for p in sorted(starts)]
    needles = {s.casefold() for s in ordered if len(s) < SECRET_LONG} | {s[:SECRET_END].casefold() for s in long}
    needles |= {p.casefold() for p in ends}  # (each found in the text case-folded: a superset of what is taken out)
    return re.compile("|".join(parts)), tuple(sorted(needles)), tuple(sorted(ends))


SECRET_VALUE_MIN = 8  # shorter values of secret-named variables are not scrubbed from text (too common)
# the shell's working folders, whose names read as a password's (`pwd`): every path in a message was ***
NOT_SECRET_VARIABLES = frozenset({"PWD", "OLDPWD"})


def environment_secrets() -> list[str]:
    """The values of this process's environment variables whose names hold a secret (`is_secret_name`:
    OPENAI_API_KEY, GEMINI_API_KEY, HF_TOKEN, ...), for scrubbing text we did not write."""
    found = [value for name, value in os.environ.items()
             if len(value) >= SECRET_VALUE_MIN and is_secret_name(name) and name not in NOT_SECRET_VARIABLES]
    return sorted(found, key=len, reverse=True)  # longest first: a secret inside another is not left half shown


def holds_credential(text: str) -> bool:
    """Whether a part of `text` between slashes starts with something shaped like a credential (`sk-...`, `hf_...`,
    `ghp_...`, a JWT): a key pasted as a model id (`openai/sk-...`), not a name with such a word inside
    (`mistral-sk-7b-instruct`)."""
    return any(_CREDENTIAL.match(part) for part in text.split("/"))


def mask_credentials(text: str) -> str:
    """`text` with URL secrets redacted and each credential-shaped part (`sk-...`, `Bearer ...`, `hf_...`)
    replaced by ***: for messages that must stay readable (an error from the caller's own judge)."""
    return _CREDENTIAL.sub(REDACTED, redact_url(text))


_KEY_PREFIXED = re.compile(r"\bkey-(?=[A-Za-z0-9_\-*]*[0-9])[A-Za-z0-9_\-*]{6,}")  # `key-...` keys (Mailgun-style): in messages only


_NAMED_VALUE = re.compile(r"(?<![\w.-])([A-Za-z][\w.-]{0,40})(['\"]?\s*[:=]\s*['\"]?)([^\s'\",;&}]{4,})")


def scrub_message(message: str, secrets: Sequence[str]) -> str:
    """An error message safe to store and show: each secret the run knows (`scrub_text`), URL secrets, every
    credential-shaped part (`sk-...`, `key-...`, `Bearer ...`, `hf_...`, `ghp_...`, a JWT, ...) and the value of
    every `name: value` or `name=value` whose name holds a secret (`x-api-key: ...`, `password=...`) replaced by ***.
    (Transport errors had their own scrub that left `hf_`, `ghp_` and `Bearer` tokens the run did not know.)"""
    text = _KEY_PREFIXED.sub(REDACTED, mask_credentials(scrub_text(message, secrets)))
    return _NAMED_VALUE.sub(_masked_value, text)


# A URL's start however misspelt (`postgres:/`, `http//`, a path's `https:/`): what follows it is read as a URL's.
_LOOSE_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*(:/*|//)")
_LOOSE_QUERY_VALUE = re.compile(r"[?&;#][^=&;#?]*=([^&;#?,]{4,})")


def command_line_secrets(arguments: Sequence[str]) -> list[str]:
    """The secrets a command line's arguments hold wherever an error may quote them (a dataset URL, `--db`, an
    api_base, however misspelt, spaces included): each URL's password (or its user when there is none), the
    password's parts around a / @ : ? or # (a parser splits it there and quotes a part), its query values, and the
    values of secret-named `k=v` items. An error message is scrubbed of them at the command line's one exit
    (`cli.main`)."""
    found: list[str] = []
    for argument in arguments:
        found += url_secrets(argument)
        for start in _LOOSE_SCHEME.finditer(argument):
            rest = argument[start.end():]
            cut = _AUTHORITY_END.search(rest).start()
            userinfo = split_userinfo(rest[:cut], rest[cut:])[0]
            if userinfo:
                user, colon, password = userinfo.partition(":")
                secret = password if colon else user
                found += [secret, unquote(secret), *re.split(r"[/@:?#]", secret)] if secret else []
                found += _LOOSE_QUERY_VALUE.findall(rest)
        if "://" in argument:
            found += _LOOSE_QUERY_VALUE.findall(argument)
        found += [value for key, _, value in (item.partition("=") for item in argument.split(",")) if is_secret_name(key)]
    return sorted({s for s in found if len(s) >= 4}, key=len, reverse=True)


def scrub_error_line(message: str, secrets: Sequence[str]) -> str:
    """An error line without the `secrets` of its command line (`command_line_secrets`) and credential-shaped words:
    a secret of 8 characters or more wherever it stands (`scrub_text`), a shorter one only as a word of its own, so a
    password `hunter2` leaves `sciarena_eval` and `--judge-args` alone, and one of letters alone not at all."""
    long_ones = [s for s in secrets if len(s) >= SECRET_END]
    text = scrub_text(message, long_ones)
    # a short one of letters alone is a local server's placeholder (`test`, `none`, `EMPTY`, `dummy`), as for the
    # environment's keys: `split 'test' does not exist` lost its split
    for short in (s for s in secrets if len(s) < SECRET_END and not s.isalpha()):
        text = re.sub(rf"(?<![\w-]){re.escape(short)}(?![\w-])", REDACTED, text)
    return mask_credentials(text)


_MAYBE_KEY_WORD = re.compile(r"[A-Za-z0-9_\-.~+]{8,}")


def masked_input(text: str) -> str:
    """A piece of what a user typed, as an error message may quote it: `scrub_message`'s masks, and each word of 8
    characters or more that mixes letters and digits replaced by *** (it may be a key typed where a value was due:
    `api_key=sk-a,SECRETpw123` split at its comma showed the key's end)."""
    def masked(match: re.Match[str]) -> str:
        word = match.group(0)
        mixed = any(c.isdigit() for c in word) and any(c.isalpha() for c in word)
        return REDACTED if mixed else word

    return _MAYBE_KEY_WORD.sub(masked, scrub_message(text, []))


def _masked_value(match: re.Match[str]) -> str:
    """`name: value` with the value masked when the name holds a secret and the value looks like one (a digit in
    it, or 12 characters or more: `auth: failed` and `session: expired` are words, not credentials)."""
    name, between, value = match.groups()
    credential = any(c.isdigit() for c in value) or len(value) >= 12
    return f"{name}{between}{REDACTED}" if credential and value != REDACTED and is_secret_name(name) else match.group(0)


# Arguments whose insides are a schema or a vocabulary, not settings: a property named `key` or `token` there is data
# (a third attack: two response_format schemas differing in a property `key` shared a cache key).
SCHEMA_ARGS = frozenset({"response_format", "tools", "functions", "tool_choice", "json_schema", "guided_json",
                         "logit_bias", "grammar"})


def redact_value(value: Any, *, names: bool = True) -> Any:
    """`value` safe to write (judge arguments in results, entries and cards; dicts and lists walked):
    URL secrets redacted in every string, and a value under a secret-like name (`names`: not inside a
    SCHEMA_ARGS value), or one shaped like a credential (`sk-...`, `Bearer ...`, `hf_...`), replaced whole."""
    if isinstance(value, str):
        text = redact_url(value)
        return REDACTED_VALUE if _CREDENTIAL.search(text) else text
    if isinstance(value, dict):
        return {
            redact_value(k) if isinstance(k, str) else k: (
                REDACTED_VALUE if names and is_secret_name(k) and v not in (None, "", REDACTED_VALUE)
                else redact_value(v, names=names and k not in SCHEMA_ARGS)
            )
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [redact_value(v, names=names) for v in value]
    return value


def hidden_values(value: Any) -> list[str]:
    """Every text `redact_value` hides in `value` (nested arguments too: `extra_body={"api_key": ...}`, a
    credential-shaped `user=sk-...`, URL secrets), for scrubbing what a server echoes back. (Only top-level secret
    arguments were scrubbed: a nested key a server echoed reached samples.jsonl, the cache and annotators' pairs.)"""
    return _hidden(value, redact_value(value))


def _hidden(original: Any, shown: Any) -> list[str]:
    if original == shown:
        return []
    if shown == REDACTED_VALUE:
        return _texts(original)
    if isinstance(original, str):
        return url_secrets(original)
    if isinstance(original, dict) and isinstance(shown, dict):
        return [text for (_, value), seen in zip(original.items(), shown.values()) for text in _hidden(value, seen)]
    if isinstance(original, (list, tuple)) and isinstance(shown, list):
        return [text for value, seen in zip(original, shown) for text in _hidden(value, seen)]
    return []


def _texts(value: Any) -> list[str]:
    """The texts in `value` (dicts and lists walked); not its numbers (a date under a secret's name would be
    scrubbed out of every answer)."""
    if isinstance(value, dict):
        return [text for item in value.values() for text in _texts(item)]
    if isinstance(value, (list, tuple)):
        return [text for item in value for text in _texts(item)]
    return [value] if isinstance(value, str) else []


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


def scrub_reply(reply: Any, secrets: Sequence[str]) -> Any:
    """The one boundary where a provider's reply becomes a record or a cache entry: every text in it (the
    answer, earlier answers, reasoning, the error, the served model's name) with each secret the run knows
    (`secrets`: the judge's key, header and URL values, the environment's secret variables) replaced by ***.
    A server may echo the request back: its key then sat in samples.jsonl, the cache and the exports.
    `reply` is a `records.JudgeReply` (any pydantic model with those fields); returned as is when clean."""
    if not secrets:
        return reply
    update: dict[str, Any] = {}
    for name in ("text", "error", "reasoning", "served_model", "finish_reason"):
        value = getattr(reply, name, None)
        if isinstance(value, str):
            clean = scrub_text(value, secrets)
            if clean != value:
                update[name] = clean
    earlier = getattr(reply, "earlier_texts", None) or []
    cleaned = [scrub_text(t, secrets) for t in earlier]
    if cleaned != list(earlier):
        update["earlier_texts"] = cleaned
    positions = getattr(reply, "top_logprobs", None) or []  # (an attack: a key among a verdict's alternatives sat
    tokens = [(scrub_text(chosen, secrets), lp, {scrub_text(t, secrets): v for t, v in top.items()})  # in the cache)
              for chosen, lp, top in positions]
    if tokens != [tuple(p) for p in positions]:
        update["top_logprobs"] = tokens
    return reply.model_copy(update=update) if update else reply


def run_secrets(judge_secrets: Sequence[str]) -> list[str]:
    """Every secret a run knows: its judge's (`Judge.secret_values`) and the environment's
    (`environment_secrets`), each also as a reply may echo it transformed: URL-quoted and -unquoted, and base64
    (standard and URL-safe, with and without padding: a `user:password` userinfo is an HTTP Basic header, of
    the decoded text when it is written percent-encoded); longest first."""
    from urllib.parse import quote, quote_plus, unquote, unquote_plus

    found = {s for s in [*judge_secrets, *environment_secrets()] if s and len(s) >= 4}
    found |= {unquote(s) for s in found} | {unquote_plus(s) for s in found}  # a userinfo written percent-encoded
    # is sent (as Basic) decoded; a query value's `+` is a space to the server that echoes it
    found |= {quote(s, safe="") for s in found} | {quote_plus(unquote(s)) for s in found}
    found |= {form for s in found for form in _base64_forms(s)}
    # as a JSON body or a Python repr echoes it: `"` and `\` escaped, non-ASCII as \uXXXX
    found |= {json.dumps(s, ensure_ascii=ascii)[1:-1] for s in found for ascii in (True, False)} | {repr(s)[1:-1] for s in found}
    return sorted(found, key=len, reverse=True)


def _base64_forms(secret: str) -> set[str]:
    import base64

    data = secret.encode("utf-8", "surrogatepass")
    forms = {base64.b64encode(data).decode(), base64.urlsafe_b64encode(data).decode()}
    return forms | {form.rstrip("=") for form in forms}
