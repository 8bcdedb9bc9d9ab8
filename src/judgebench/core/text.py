"""The one escape of user-supplied text for each place it is shown: Markdown (`md_cell`, `md_text`), HTML
(`html_text`), CSV (`csv_text`) and the terminal (`term_text`). Model names, judge ids, slice values and annotator
ids come from files anyone can write: raw, a `|` or newline forges a table row, `<img onerror=...>` or
`[x](javascript:...)` becomes live on a rendered page, `=HYPERLINK(...)` runs in a spreadsheet, and ESC/BEL sequences
repaint or retitle a terminal."""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from judgebench.core.names import BUILTIN_PREFIX, PANEL_PREFIX, REPLAY_PREFIX

MD_ALWAYS = re.compile(r"[\[\]*~!@]")  # links, images, footnotes, emphasis, strikethrough, email autolinks
MD_EDGE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")  # intraword `_` is no emphasis in GFM
MD_AUTOLINK = re.compile(r"(?i)(?<=[a-z0-9])(:)(?=//)|(?<![a-z0-9])(www)(\.)")  # bare-URL autolinks
MD_LINE_START = re.compile(r"^([#>+\-=]|\d+[.)])")  # a heading, quote, list or setext line made by the text


def visible(text: str) -> str:
    """`text` with every control or format character (ESC, BEL, NUL, bidi overrides, zero-width marks) shown
    as its escape (`\\x1b`), and every kind of line break as a space: nothing in it acts on a terminal or page."""
    if text.isprintable():  # no character to change (Python's printable excludes every category changed below)
        return text
    out = []
    for char in text:
        if char in "\n\r\t\v\f\u2028\u2029\x85":
            out.append(" ")
        elif unicodedata.category(char) in ("Cc", "Cf", "Co", "Cs", "Cn") or not char.isprintable():
            out.append(char.encode("unicode_escape").decode("ascii"))
        else:
            out.append(char)
    return "".join(out)


def md_cell(value: Any) -> str:
    """Text safe in a Markdown table cell: one line, no HTML, no cell-splitting `|`, no control character, and
    no Markdown construct (link, image, autolink, emphasis, strikethrough, code) formed from the text.

    The text's own backslashes become `&#92;`, so the backslash escapes added here are the only ones.
    """
    text = " ".join(visible(str(value)).split())
    text = html.escape(text, quote=False).replace("\\", "&#92;").replace("|", "&#124;")
    text = text.replace("`", "&#96;")
    text = MD_ALWAYS.sub(lambda m: "\\" + m.group(0), text)
    text = MD_EDGE_UNDERSCORE.sub(r"\\_", text)
    return MD_AUTOLINK.sub(lambda m: "\\:" if m.group(1) else m.group(2) + "\\.", text)


def md_text(value: Any) -> str:
    """Text safe anywhere in a Markdown line (a heading, a list item, a paragraph): `md_cell`, and a leading
    `#`, `>`, `-`, `+`, `=` or `1.` that would start a block of its own is escaped."""
    text = md_cell(value)
    return MD_LINE_START.sub(lambda m: "\\" + m.group(0), text)


def html_text(value: Any) -> str:
    """Text safe in an HTML element or a quoted attribute: `visible` (no control or bidi character reorders or hides
    what a page shows: a name `safe\u202etxt.exe` read reversed), then escaped."""
    return html.escape(visible(str(value)))


LINE_BREAKS = re.compile(r"[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]+")
_NUMBER = r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)"  # an ASCII decimal number, signed
PLAIN_NUMBERS = re.compile(rf"{_NUMBER}(?:[eE][-+]?[0-9]+)?|{_NUMBER}\.\.{_NUMBER}")  # -5, -1e-3, a bin -1..-0.5
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


UNDEFINED = "—"  # an undefined figure in a table cell or a compact line (docs/guide/outputs.md): never "n/a"


def percent(share: float | None, digits: int = 1) -> str:
    """A share as a percentage (`41.7%`), or UNDEFINED."""
    return UNDEFINED if share is None else f"{100 * share:.{digits}f}%"


def csv_text(value: Any) -> Any:
    """A CSV text cell on one line (line breaks become spaces, so no cell starts a forged row) and never a
    spreadsheet formula (a leading `'`): the one guard of every CSV judgebench writes. An ASCII number (`-5`, a
    slice value) and a bin of two (`-1..-0.5`, report's length bins) stay as written: they compute nothing
    (`-2+3` would, and is guarded)."""
    if not isinstance(value, str):
        return value
    value = LINE_BREAKS.sub(" ", value)
    if PLAIN_NUMBERS.fullmatch(value):
        return value
    return "'" + value if value.lstrip(" ")[:1] in FORMULA_START else value


def term_text(value: Any, limit: int = 300) -> str:
    """A user-supplied id or name safe to print on a terminal: control characters shown escaped (`visible`),
    one line, cut to `limit` characters."""
    text = visible(str(value))
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text) - limit:,} more characters)"


# Letters of other scripts drawn like Latin ones (Unicode's confusables, the common part): a judge id
# `buіltin/longer` with a Cyrillic і looks like the built-in judge on every page.
_CONFUSABLE = str.maketrans({
    "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "һ": "h", "і": "i", "ӏ": "l", "ј": "j", "к": "k", "м": "m",
    "н": "h", "о": "o", "р": "p", "ԛ": "q", "г": "r", "ѕ": "s", "т": "t", "ц": "u", "ѵ": "v", "ԝ": "w", "х": "x",
    "у": "y", "ı": "i", "ɩ": "i", "ɑ": "a", "ο": "o", "α": "a", "ν": "v", "ι": "i", "κ": "k", "ρ": "p", "τ": "t",
    "υ": "u", "χ": "x", "ε": "e", "ℓ": "l", "Ꭵ": "i", "ꓲ": "l", "ǀ": "l", "∕": "/", "⁄": "/", "／": "/",
    "ɓ": "b", "ƅ": "b", "ո": "n", "ꞯ": "q",
})
# Latin small capitals (`ʙuiltin/x` reads as `Builtin/x`): lower-cased they stay themselves, so they are mapped here
_CONFUSABLE.update(str.maketrans("ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ", "abcdefghijklmnoprstuvwyz"))
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\ufe58\ufe63"  # hyphens, dashes, minus: read as `-`
_CONFUSABLE.update(dict.fromkeys(map(ord, _DASHES), "-"))
# Invisible characters that are no format character (category Cf, dropped by category): the combining grapheme
# joiner, variation selectors, Hangul fillers
_INVISIBLE = dict.fromkeys([0x034F, *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0), 0x115F, 0x1160, 0x3164,
                            0xFFA0])


def skeleton(text: str) -> str:
    """`text` as it looks: NFKC-folded, lower-cased, invisible characters (format characters, variation selectors)
    dropped, look-alike letters and dashes of other scripts mapped to Latin, runs of spaces as one, none at either
    end. Two ids with one skeleton are indistinguishable on a page."""
    folded = text.lower()
    if not text.isascii():  # (ASCII text has nothing else to fold: no pass per character for it)
        folded = unicodedata.normalize("NFKC", text).translate(_INVISIBLE)
        folded = "".join(c for c in folded if unicodedata.category(c) != "Cf").lower().translate(_CONFUSABLE)
    return " ".join(part for part in folded.split(" ") if part) if " " in folded else folded


# ASCII characters read as one another in an id (`bui1tin`, `buiItin`, `bui|tin`, `pane1`): folded only to match the
# reserved prefixes, where a false match costs a rename (names in general keep them apart: `l1` and `ll` differ)
_BLIND = str.maketrans({"1": "l", "i": "l", "|": "l", "!": "l", "0": "o"})
_RESERVED_BLIND = re.compile(r"\W*(" + "|".join(p.rstrip("/").translate(_BLIND)
                                                 for p in (BUILTIN_PREFIX, REPLAY_PREFIX, PANEL_PREFIX)) + r")\W")


def reads_as_reserved(judge_id: str) -> bool:
    """Whether an id reads as one of the prefixes judgebench reserves for its own judges (`builtin/`, `replay/`,
    `panel/`): in any case, before any separator, with look-alike letters of other scripts (`skeleton`) or ASCII's
    own (1, l, I, |; 0, o)."""
    return bool(_RESERVED_BLIND.match(skeleton(judge_id).translate(_BLIND)))


def look_alike_groups(names: Iterable[str]) -> list[list[str]]:
    """The names that share a skeleton with another (case, NFC/NFD, an invisible character, a look-alike letter),
    as sorted groups in the order of their first name: two such names count apart but read as one."""
    distinct = list(dict.fromkeys(names))
    keys = list(map(skeleton, distinct))
    if len(set(keys)) == len(distinct):  # (the usual case, without a group per name: 1,000,000 voters)
        return []
    groups: dict[str, list[str]] = {}
    for key, name in zip(keys, distinct):
        groups.setdefault(key, []).append(name)
    return sorted((sorted(g) for g in groups.values() if len(g) > 1), key=lambda g: g[0])


def spelled_out(name: str) -> str:
    """`name` with every character outside printable ASCII as its escape (`caf\\xe9`, `cafe\\u0301`, `\\x00`), so
    that names that render alike can be told apart."""
    return name if name.isascii() and name.isprintable() else name.encode("unicode_escape").decode("ascii")


NAME_MAX = 120  # characters of a judge configuration's display name


def display_name_error(name: str) -> str | None:
    """Why `name` (as stored: stripped) cannot be a display name shown in every table, or None: it must be 1 to
    NAME_MAX characters without a control character (NUL, ESC, a line break inside it, U+2028) or a format character
    (a bidi override that shows it reversed, a zero-width space), but the zero-width joiner of emoji sequences."""
    name = name.strip()
    if not name or len(name) > NAME_MAX:
        return f"must be a short text (1-{NAME_MAX} characters)"
    if any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in name):
        return f"'{spelled_out(name)}' holds a control character"
    if any(unicodedata.category(c) == "Cf" and c != "\u200d" for c in name):
        return f"'{spelled_out(name)}' holds an invisible format character"
    return None
