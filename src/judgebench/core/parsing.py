"""Strict verdict parsing: a judge's raw text -> "A", "B", "TIE" or None.

A wrong verdict silently corrupts agreement numbers; a None only lowers
coverage, and the runner records it as INVALID. So the parser never guesses:
a loose case-insensitive ``\\b([AB])\\b`` would read the article "a" in any
explanation as a vote for A.

Single verdict (``parse_verdict``), after removing <think>/<thinking>/<reasoning>
blocks, stages are tried in order; the first stage that finds anything decides:

1. Explicit markers anywhere in the text: ``[[X]]``, ``\\boxed{X}``,
   ``<answer>X</answer>``, label lines ("Verdict: A", "**Final answer:** [[B]]",
   "My final verdict is B", "Winner: Response A", or a "Final verdict" heading
   followed by the answer on the next line), and JSON fields
   (verdict / winner / answer / preference / choice / decision / ...).
2. Short-form lines: the whole output, or any whole line, is just a verdict
   ("A", "b", "(A)", "**B**", "Tie", "Output (a)", "Response A", "Assistant B.").
3. Anchored sentence patterns, one clause at a time (clauses split at
   . ! ? ; , and newlines; questions skipped): "The better response is A",
   "Response B is better", "A is better than B", "I prefer Output (b)",
   "B wins", "It's a tie", "Both responses are equally good". A clause must
   match a pattern completely (a few lead-ins like "Overall", "but",
   "Therefore", "I think" are allowed), so negations ("I don't think A is
   better") and hedges ("A is better organised") never count.

This module is long because the verdict forms are one table of patterns whose order and
decisions only make sense read together.

Within a stage every verdict found must agree; disagreement -> None. A verdict
outside ``allowed`` -> None (the parser does not fall through to a later stage).

Decisions about ambiguous forms:

- A bare letter outside brackets counts only when uppercase, or when it is the
  whole output/line/value, or when preceded by Response/Output/Assistant/...;
  "a" as an article never counts, nor does sentence-initial "A good answer...".
- "[[C]]" (MT-Bench's tie) is TIE, so it is accepted only if TIE is allowed;
  a bare "C", "(C)" or "Response C" is never a tie (None).
- "Tie"/"tie"/"TIE"/"[[TIE]]" are TIE; TIE when not allowed -> None.
- Conflicting explicit markers ("[[A]] ... [[B]]") -> None, even when the last
  one is labelled "Final"; repeated identical markers are fine.
- "Response A is better than Response B" is parsed as A (comparative pattern);
  "A and B are both good" -> None.
- An unclosed <think> means the answer was never given: the text from it to
  the end is dropped. A stray "</think>" (opening tag missing) keeps only the
  text after it.
- A label line whose value is not a verdict ("Answer: it depends") is ignored,
  not treated as a conflict.
- Label values may continue after the verdict ("Verdict: B - more accurate",
  "Final answer: A, because ..."), except a lowercase bare "a".
- Possessives and other phrasings outside the patterns ("Assistant A's answer is
  better", "Response A is better in terms of accuracy") -> None; questions and
  negated clauses never count.

Joint verdicts (``parse_joint_verdicts``): the last JSON object in the text
(after reasoning, inside ```json fences or not) that has at least one
dimension key, optionally wrapped one level deep ({"verdicts": {...}}).
Keys match dimensions case-insensitively, with spaces or hyphens for
underscores; unknown keys are ignored; each value is parsed with
``parse_verdict`` (or read from a nested {"verdict": ...} object), and an
invalid or missing value maps that dimension to None. Non-JSON -> all None.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import Any, Optional, cast

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from judgebench.core.records import Verdict

__all__ = ["parse_verdict", "parse_joint_verdicts", "parse_reply", "strip_reasoning"]

_INVALID = "?"  # an explicit answer that names no usable verdict (e.g. "C", "[[D]]")
_VERDICTS = ("A", "B", "TIE")
_JSON_VERDICT_KEYS = frozenset(
    {
        "verdict", "final_verdict", "winner", "answer", "final_answer", "preference",
        "preferred", "preferred_response", "better", "better_response", "choice",
        "decision", "judgment", "judgement",
    }
)

# --- reasoning blocks -------------------------------------------------------

_THINK_BLOCK = re.compile(r"<(think|thinking|reasoning)\s*>.*?</\1\s*>", re.I | re.S)
_THINK_CLOSE = re.compile(r"</(?:think|thinking|reasoning)\s*>", re.I)
_THINK_OPEN = re.compile(r"<(?:think|thinking|reasoning)\s*>", re.I)

# --- short forms ------------------------------------------------------------

_PREFIX = (
    r"(?:the\s+)?(?:response|output|assistant|answer|option|model|candidate|"
    r"choice|summary|system|idea|proposal)\s*"
)
_TOKEN = (
    r"(?:\[\[\s*(?P<dbl>[abc]|tie)\s*\]\]|\(\s*(?P<par>[abc]|tie)\s*\)"
    r"|\[\s*(?P<sq>[abc]|tie)\s*\]|(?P<bare>[abc]|tie))"
)
_PHRASE = re.compile(rf"(?P<pre>{_PREFIX})?{_TOKEN}", re.I)
_AFTER_PHRASE = re.compile(r"\s*(?:[,;:.!\u2014\u2013-]\s+|\s+(?:because|since|as)\b)", re.I)
_EDGE_CHARS = "*_`\"'\u201c\u201d\u2018\u2019 \t"

# --- explicit markers -------------------------------------------------------

_DOUBLE_BRACKET = re.compile(r"\[\[\s*([^\[\]\n]{1,30}?)\s*\]\]")
_BOXED = re.compile(r"\\boxed\{\s*(?:\\text(?:bf)?\{\s*)?([^{}\n]{1,30}?)\s*\}", re.I)
_ANSWER_TAG = re.compile(r"<(answer|verdict)\s*>(.{0,500}?)</\1\s*>", re.I | re.S)
_LABEL = (
    r"(?:(?:my|the|our)\s+)?(?:final\s+|overall\s+)?"
    r"(?:answer|verdict|decision|judg(?:e)?ment|choice|winner|preference|conclusion|"
    r"better\s+(?:response|output|answer))"
)
_LABEL_LINE = re.compile(
    rf"^[\s>#-]*{_LABEL}\s*(?:[:=]|\bis\b\s*:?)\s*(?P<value>.*)$", re.I
)
_LABEL_HEADING = re.compile(rf"^[\s>#-]*{_LABEL}\s*:?\s*$", re.I)

# --- sentence patterns (case-sensitive except inside (?i:...)) -------------

_SENT_PREFIX = r"(?i:(?:the\s+)?(?:response|output|assistant|answer|option|model|candidate)\s*)"
_SENT_LETTER = r"(?i:\(\s*[ab]\s*\)|\[\s*[ab]\s*\])"
_REF = (
    rf"(?:{_SENT_PREFIX}(?:{_SENT_LETTER}|(?i:[ab]))|{_SENT_LETTER}|(?<![A-Za-z])[AB])"
    r"(?![A-Za-z])"
)
_LEAD_IN = (
    r"(?i:(?:(?:but|and|so|overall|therefore|thus|hence|ultimately|clearly|finally|"
    r"in\s+conclusion|in\s+summary|in\s+short|in\s+the\s+end|all\s+in\s+all|on\s+balance|"
    r"all\s+things\s+considered|i\s+think|i\s+believe|i\s+would\s+say|i'd\s+say|"
    r"in\s+my\s+(?:opinion|view|judg(?:e)?ment))(?:\s*,\s*|\s+))*)"
)
_BETTER = (
    r"(?i:(?:clearly|slightly|much|significantly|somewhat|marginally|overall|definitely)\s+)?"
    r"(?i:better|superior|stronger|preferable|preferred|the\s+winner|"
    r"the\s+(?:better|stronger|superior|preferred)(?:\s+(?:one|response|output|answer|choice|option))?)"
)
_TAIL = (
    rf"(?:\s+(?i:overall|here|on\s+the\s+whole|in\s+this\s+case|"
    rf"(?:than|over)\s+(?:{_REF}|(?i:the\s+other(?:\s+(?:one|response|output|answer))?))))?"
)
_SENTENCES = [
    re.compile(p)
    for p in (
        rf"{_LEAD_IN}(?i:(?:the|my)\s+)?(?i:(?:better|best|stronger|superior|preferred|winning)"
        rf"\s+(?:response|output|answer|one|option|choice|assistant)|the\s+winner)"
        rf"\s+(?i:is|would\s+be)\s+(?P<v>{_REF})",
        rf"{_LEAD_IN}(?P<v>{_REF})\s+(?i:is|would\s+be)\s+{_BETTER}{_TAIL}",
        rf"{_LEAD_IN}(?i:i(?:'d|'ll|\s+would|\s+will)?\s+(?:prefer|choose|pick|select|go\s+with|favou?r))"
        rf"\s+(?P<v>{_REF}){_TAIL}",
        rf"{_LEAD_IN}(?P<v>{_REF})\s+(?i:wins)",
    )
]
_TIE_SENTENCE = re.compile(
    rf"{_LEAD_IN}(?i:(?:it'?s|it\s+is|this\s+is|that'?s|that\s+is|i\s+(?:would\s+)?call\s+it)"
    r"\s+a\s+tie|both(?:\s+(?:responses|outputs|answers|assistants))?\s+are\s+equally\s+"
    r"(?:good|bad|strong|weak|helpful|matched))"
)
_CLAUSE = re.compile(r"[^.!?;,\n]+[.!?;,\n]?")


# --- public API -------------------------------------------------------------


def parse_verdict(text: str | None, allowed: Sequence[str]) -> Verdict | None:
    """Return the judge's verdict, or None when it is missing, ambiguous or not allowed.

    `allowed` lists the verdicts the judge may give, e.g. ["A", "B"] or
    ["A", "B", "TIE"]. See the module docstring for the accepted forms.
    """
    body = strip_reasoning(text)
    if not body:
        return None
    allowed_set = _normalise_allowed(allowed)
    for stage in (_marker_candidates, _line_candidates, _sentence_candidates):
        found = list(stage(body))
        if found:
            return _decide(found, allowed_set)
    return None


def parse_joint_verdicts(
    text: str | None, dimensions: Sequence[str], allowed: Sequence[str]
) -> dict[str, Verdict | None]:
    """Parse one JSON answer covering all dimensions; invalid or missing ones map to None."""
    empty: dict[str, Verdict | None] = {dim: None for dim in dimensions}
    data = _joint_object(strip_reasoning(text), dimensions)
    if data is None:
        return empty
    model = _joint_model(tuple(dimensions), tuple(sorted(_normalise_allowed(allowed))))
    parsed = model.model_validate(data)
    return {dim: getattr(parsed, f"d{i}") for i, dim in enumerate(dimensions)}


def parse_reply(
    text: str | None, dimensions: Sequence[str], allowed: Sequence[str], joint: bool
) -> dict[str, Verdict | None]:
    """Dispatch: joint -> parse_joint_verdicts; else {dimensions[0]: parse_verdict(...)}.

    Memoised (a pure function): a large run repeats a few answers ("[[A]]") hundreds of thousands of times.
    """
    if not dimensions:
        raise ValueError("parse_reply needs at least one dimension")
    return dict(_parse_reply_memo(text, tuple(dimensions), tuple(allowed), joint))


@lru_cache(maxsize=8192)
def _parse_reply_memo(
    text: str | None, dimensions: tuple[str, ...], allowed: tuple[str, ...], joint: bool
) -> tuple[tuple[str, Verdict | None], ...]:
    if joint:
        return tuple(parse_joint_verdicts(text, dimensions, allowed).items())
    return ((dimensions[0], parse_verdict(text, allowed)),)


def strip_reasoning(text: str | None) -> str:
    """Remove <think>/<thinking>/<reasoning> blocks and return the stripped answer text."""
    if not text:
        return ""
    text = _THINK_BLOCK.sub("\n", text)
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:  # opening tag missing (some providers drop it): keep what follows
        text = text[closes[-1].end():]
    opened = _THINK_OPEN.search(text)
    if opened:  # never closed: the answer was never given
        text = text[: opened.start()]
    return text.strip()


# --- decisions --------------------------------------------------------------


def _normalise_allowed(allowed: Iterable[str]) -> frozenset[str]:
    """Upper-case the allowed verdicts and keep the known ones."""
    return frozenset(a.strip().upper() for a in allowed if a.strip().upper() in _VERDICTS)


def _decide(found: list[str], allowed: frozenset[str]) -> Verdict | None:
    """One distinct, allowed verdict -> it; anything else -> None."""
    distinct = set(found)
    if len(distinct) != 1:
        return None
    verdict = distinct.pop()
    return cast(Verdict, verdict) if verdict in allowed else None


# --- short forms ------------------------------------------------------------


def _clean(s: str) -> str:
    """Strip markdown emphasis, quotes, whitespace and trailing . or ! from both ends."""
    previous = None
    while s != previous:
        previous = s
        s = s.strip(_EDGE_CHARS).rstrip(".!").strip(_EDGE_CHARS)
    return s


def _token_verdict(match: re.Match[str]) -> str:
    """Map a _PHRASE match to A/B/TIE; "C" is TIE only as "[[C]]", else invalid."""
    token = next(match.group(g) for g in ("dbl", "par", "sq", "bare") if match.group(g))
    token = token.lower()
    if token == "c":
        return "TIE" if match.group("dbl") else _INVALID
    return {"a": "A", "b": "B", "tie": "TIE"}[token]


def _phrase_verdict(s: str) -> str | None:
    """The verdict when `s` is nothing but a verdict ("A", "(b)", "**Response A**.")."""
    match = _PHRASE.fullmatch(_clean(s))
    return _token_verdict(match) if match else None


def _leading_phrase_verdict(s: str) -> str | None:
    """The verdict when `s` starts with one and goes on after a separator ("B - because ...")."""
    cleaned = _clean(s)
    match = _PHRASE.match(cleaned)
    if not match or not _AFTER_PHRASE.match(cleaned, match.end()):
        return None
    bare = match.group("bare")
    if bare and not match.group("pre") and bare.islower():
        return None  # "a, b or c" / "a bit ..." : the article, not a verdict
    return _token_verdict(match)


def _value_verdict(value: str) -> str | None:
    """Read the value of an explicit field (label line, JSON field, <answer> tag)."""
    verdict = _phrase_verdict(value) or _leading_phrase_verdict(value)
    if verdict:
        return verdict
    found = set(_sentence_candidates(value))
    return found.pop() if len(found) == 1 else None


# --- stage 1: explicit markers ----------------------------------------------


def _marker_candidates(body: str) -> Iterator[str]:
    """Every explicit marker's verdict: [[X]], \\boxed{X}, <answer>, label lines, JSON."""
    yield from _bracket_candidates(body)
    for match in _BOXED.finditer(body):
        verdict = _phrase_verdict(match.group(1))
        if verdict:
            yield verdict
    for match in _ANSWER_TAG.finditer(body):
        verdict = _value_verdict(match.group(2))
        if verdict:
            yield verdict
    yield from _label_candidates(body)
    for obj in _json_objects(body):
        yield from _json_field_candidates(obj)


def _bracket_candidates(body: str) -> Iterator[str]:
    """[[A]], [[b]], [[C]] (tie), [[TIE]], [[Response A]]; [[D]] is an invalid answer."""
    for match in _DOUBLE_BRACKET.finditer(body):
        content = match.group(1).strip()
        if len(content) == 1 and content.isalpha():
            yield {"a": "A", "b": "B", "c": "TIE"}.get(content.lower(), _INVALID)
        else:
            verdict = _phrase_verdict(content)
            if verdict:
                yield verdict


def _label_candidates(body: str) -> Iterator[str]:
    """Verdicts from "Verdict: A"-style lines, or a label heading followed by the answer."""
    lines = [line.replace("*", "") for line in body.splitlines()]
    for i, line in enumerate(lines):
        if _LABEL_HEADING.match(line):
            value = next((rest for rest in lines[i + 1 :] if rest.strip()), "")
        else:
            match = _LABEL_LINE.match(line)
            value = match.group("value") if match else ""
        verdict = _value_verdict(value) if value.strip() else None
        if verdict:
            yield verdict


def _json_objects(body: str) -> list[dict[str, Any]]:
    """Top-level JSON objects embedded in the text, in order (fences and prose skipped)."""
    decoder = json.JSONDecoder()
    objects: list[dict[str, Any]] = []
    pos = body.find("{")
    while pos != -1:
        try:
            obj, end = decoder.raw_decode(body, pos)
        except (ValueError, RecursionError):  # not JSON, or absurdly deep
            pos = body.find("{", pos + 1)
            continue
        if isinstance(obj, dict):
            objects.append(obj)
        pos = body.find("{", end)
    return objects


def _json_field_candidates(obj: Any) -> Iterator[str]:
    """Verdicts from verdict-like keys anywhere inside a parsed JSON value."""
    if isinstance(obj, list):
        for item in obj:
            yield from _json_field_candidates(item)
    if not isinstance(obj, dict):
        return
    for key, value in obj.items():
        if _norm_key(str(key)) in _JSON_VERDICT_KEYS and isinstance(value, str):
            verdict = _value_verdict(value)
            if verdict:
                yield verdict
        elif isinstance(value, (dict, list)):
            yield from _json_field_candidates(value)


# --- stage 2: short-form lines ----------------------------------------------


def _line_candidates(body: str) -> Iterator[str]:
    """Verdicts of lines that are nothing but a verdict (the whole output included)."""
    for line in body.splitlines():
        if line.strip():
            verdict = _phrase_verdict(line)
            if verdict:
                yield verdict


# --- stage 3: anchored sentences ----------------------------------------------


def _sentence_candidates(body: str) -> Iterator[str]:
    """Verdicts of clauses that completely match one of the anchored sentence patterns."""
    body = body.replace("\u2019", "'")
    for match in _CLAUSE.finditer(body):
        clause = match.group(0)
        if clause.endswith("?"):
            continue
        verdict = _clause_verdict(_clean(clause.rstrip(".!?;,\n").replace("*", "")))
        if verdict:
            yield verdict


def _clause_verdict(clause: str) -> str | None:
    """A/B/TIE when the clause is exactly one of the sentence patterns, else None."""
    if _TIE_SENTENCE.fullmatch(clause):
        return "TIE"
    for pattern in _SENTENCES:
        match = pattern.fullmatch(clause)
        if match:
            letter = re.search(r"[abAB](?=[\s)\]]*$)", match.group("v"))
            return letter.group(0).upper() if letter else None
    return None


# --- joint verdicts -------------------------------------------------------------


def _norm_key(key: str) -> str:
    """Lower-case a key and turn runs of spaces, hyphens and underscores into one underscore."""
    return re.sub(r"[\s_-]+", "_", key.strip().lower())


def _match_dimensions(obj: dict[str, Any], dimensions: Sequence[str]) -> dict[str, Any]:
    """Re-key `obj` by dimension name; conflicting duplicate keys give None."""
    wanted = {_norm_key(dim): dim for dim in dimensions}
    matched: dict[str, Any] = {}
    for key, value in obj.items():
        dim = wanted.get(_norm_key(str(key)))
        if dim is None:
            continue  # unknown key: ignored
        matched[dim] = None if dim in matched and matched[dim] != value else value
    return matched


def _joint_object(body: str, dimensions: Sequence[str]) -> dict[str, Any] | None:
    """The last JSON object with a dimension key (directly or one level down), re-keyed."""
    for obj in reversed(_json_objects(body)):
        for candidate in [obj, *(v for v in obj.values() if isinstance(v, dict))]:
            matched = _match_dimensions(candidate, dimensions)
            if matched:
                return matched
    return None


def _joint_value(value: Any, allowed: frozenset[str]) -> Verdict | None:
    """One dimension's value -> verdict: a string, or an object with a verdict-like key."""
    if isinstance(value, dict):
        found = {
            _joint_value(v, allowed)
            for k, v in value.items()
            if _norm_key(str(k)) in _JSON_VERDICT_KEYS
        }
        return found.pop() if len(found) == 1 else None
    if isinstance(value, str):
        return parse_verdict(value, sorted(allowed))
    return None


@lru_cache(maxsize=64)
def _joint_model(dimensions: tuple[str, ...], allowed: tuple[str, ...]) -> type[BaseModel]:
    """A pydantic model with one optional Verdict field per dimension (aliased by name)."""
    allowed_set = frozenset(allowed)

    def coerce(cls: type[BaseModel], value: Any) -> Verdict | None:
        return _joint_value(value, allowed_set)

    fields: dict[str, Any] = {
        f"d{i}": (Optional[Verdict], Field(default=None, alias=dim))
        for i, dim in enumerate(dimensions)
    }
    return create_model(
        "JointVerdicts",
        __config__=ConfigDict(extra="ignore"),
        __validators__={"coerce": field_validator("*", mode="before")(coerce)},
        **fields,
    )
