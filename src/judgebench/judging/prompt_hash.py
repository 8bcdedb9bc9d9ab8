"""The prompt hash every record stores: sha256 of the messages' JSON, written without the json encoder.

    hash_messages(messages) == sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode())

A 100,000-pair run hashes 200,000 prompts of a few KB each; `json.dumps` spent about 10 us per prompt,
most of it escaping the text one character at a time. Chat messages (dicts of exactly `content` and
`role`, text values) are written here instead: the same separators and key order, and the escapes
applied to the UTF-8 bytes. Every character JSON escapes is ASCII and no byte of a multi-byte UTF-8
sequence is, so escaping the bytes gives the bytes of the escaped text. Text that cannot be encoded (a
lone surrogate) and any other message shape go through `json.dumps` as before (same result, same error).
"""

from __future__ import annotations

import hashlib
import json
from json.encoder import ESCAPE_DCT

# Each character json escapes (all below 0x80) as a byte value -> its escape, as bytes (json's own table).
_ESCAPE_OF: dict[int, bytes] = {ord(c): e.encode() for c, e in ESCAPE_DCT.items() if ord(c) < 0x20 or c in '"\\'}
_PLAIN = bytes(range(256)).translate(None, bytes(_ESCAPE_OF))  # the bytes never escaped
_BACKSLASH = ord("\\")
_OPEN, _MIDDLE, _CLOSE, _SEPARATOR = b'{"content": "', b'", "role": "', b'"}', b', {"content": "'


def hash_messages(messages: list[dict[str, str]]) -> str:
    """sha256 (hex) of the messages as `json.dumps(messages, sort_keys=True, ensure_ascii=False)`, UTF-8."""
    data = chat_json(messages)
    if data is None:
        data = json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(data).hexdigest()


def chat_json(messages: object) -> bytes | None:
    """`json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()` for a list of {content, role}
    messages with text values; None for any other shape or text that is not valid UTF-8 (a lone surrogate)."""
    if type(messages) is not list:
        return None
    pieces = [b"["]
    for message in messages:
        if type(message) is not dict or len(message) != 2:
            return None
        content, role = message.get("content"), message.get("role")
        if type(content) is not str or type(role) is not str:
            return None
        try:
            pieces += (_SEPARATOR if len(pieces) > 1 else _OPEN, _escaped(content), _MIDDLE, _escaped(role), _CLOSE)
        except UnicodeEncodeError:
            return None
    pieces.append(b"]")
    return b"".join(pieces)


_SHORT: dict[str, bytes] = {}  # escapes of short texts that repeat (roles, a system prompt); at most 1,000


def _escaped(text: str) -> bytes:
    """escape_utf8, remembered for short texts."""
    if len(text) > 256:
        return escape_utf8(text)
    data = _SHORT.get(text)
    if data is None:
        data = escape_utf8(text)
        if len(_SHORT) < 1_000:
            _SHORT[text] = data
    return data


def escape_utf8(text: str) -> bytes:
    """The UTF-8 bytes of json's escape of `text` (ensure_ascii=False), without the quotes."""
    data = text.encode()
    present = set(data.translate(None, _PLAIN))  # the byte values to escape (one pass in C; usually a newline)
    if _BACKSLASH in present:  # first: every other escape adds a backslash
        present.discard(_BACKSLASH)
        data = data.replace(b"\\", _ESCAPE_OF[_BACKSLASH])
    for byte in present:
        data = data.replace(bytes((byte,)), _ESCAPE_OF[byte])
    return data
