"""The canonical decoder of samples.jsonl lines (lean_records.LeanRecord.of_canonical_line): what it takes,
the pydantic model takes with the same values of the same types; what it refuses, the model decides."""

from __future__ import annotations

import json
import random
import re

import pytest

from judgebench.core.errors import JudgebenchError
from judgebench.core.files import write_models_jsonl
from judgebench.core.lean_records import LeanRecord, NotCanonical
from judgebench.core.records import COUNT_MAX, JudgmentRecord
from judgebench.core.rundir import read_samples


def _record(i: int, **changes) -> JudgmentRecord:
    base = dict(
        task="t", example_id=f"e{i}", dimension="overall", order="AB" if i % 2 == 0 else "BA", judge="j/x",
        prompt_hash="h" * 64, status="ANSWERED", raw="[[A]]", verdict_shown="A", verdict="A" if i % 2 == 0 else "B",
        label=("A", "B", "TIE", "BOTH_BAD")[i % 4], length_a=10 + i, length_b=20, model_a="m1", model_b="m2",
        slices={"subject": "bio"},
    )
    return JudgmentRecord(**{**base, **changes})


VARIED = [
    _record(0),
    _record(1, status="INVALID", raw="no verdict here", verdict_shown=None, verdict=None, earlier_raw=["?", "??"]),
    _record(2, status="FAILED", raw=None, verdict_shown=None, verdict=None, error="timeout after 30 s",
            failure="error", attempts=3),
    _record(3, tokens_in=1200, tokens_out=7, cost_usd=0.00123, latency_s=1.5, cached=True, reasoning="think " * 40,
            reasoning_tokens=300, served_model="gpt-x-2025", finish_reason="stop", repeat=0),
    _record(4, status="INVALID", raw="[[A", verdict=None, verdict_shown=None, invalid_reason="truncated",
            finish_reason="length"),
    _record(5, votes={"ann1": ["A", "A"], "ann2": ["TIE"]}, citations_a=3, citations_b=0, slices={}),
    _record(6, question="Q ünïcødé 🧪 \"quoted\" \\ back\nslash", response_a="\u0000 nul and tab\t", response_b="",
            example_id="é" * 200, model_a=None, model_b=None),
    _record(7, cost_usd=0.0, latency_s=-0.0, length_a=0, length_b=COUNT_MAX, tokens_in=COUNT_MAX),
]


def _equal_values(fast: LeanRecord, slow: LeanRecord) -> None:
    for name in JudgmentRecord.model_fields:
        a, b = getattr(fast, name), getattr(slow, name)
        assert a == b and type(a) is type(b), (name, a, b)
    assert fast.model_fields_set == slow.model_fields_set


@pytest.mark.parametrize("record", VARIED, ids=lambda r: r.example_id[:4])
def test_a_line_run_writes_decodes_to_the_models_values(record):
    line = record.model_dump_json().encode()
    fast = LeanRecord.of_canonical_line(line + b"\n")
    _equal_values(fast, LeanRecord.of(JudgmentRecord.model_validate_json(line)))
    assert fast.question is None and fast.response_a is None  # the texts are in samples.jsonl only


def _line(**changes) -> str:
    """A canonical line with some fields' JSON replaced (raw JSON text per field; None deletes it)."""
    obj = json.loads(_record(9).model_dump_json())
    parts = [f"{json.dumps(k)}:{changes.pop(k) if k in changes else json.dumps(v)}"
             for k, v in obj.items() if changes.get(k, "") is not None]
    parts += [f"{json.dumps(k)}:{v}" for k, v in changes.items() if v is not None]
    return "{" + ",".join(parts) + "}"


EDGE_LINES = {
    "int for a float": _line(cost_usd="1", latency_s="2"),
    "float for an int": _line(length_a="1.0"),
    "string for an int": _line(length_a='"12"'),
    "bool for an int": _line(length_a="true"),
    "int for a bool": _line(cached="1"),
    "huge int": _line(length_a=str(2**70)),
    "count above its bound": _line(length_a=str(COUNT_MAX + 1)),
    "optional count above its bound": _line(citations_b=str(COUNT_MAX + 1)),
    "negative count": _line(citations_a="-1"),
    "int64 overflow": _line(length_a=str(2**63)),
    "huge float": _line(cost_usd="1e400"),
    "NaN": _line(latency_s="NaN"),
    "exponent float": _line(latency_s="1E2"),
    "lone surrogate": _line(raw='"\\ud800"'),
    "surrogate pair": _line(raw='"\\ud83e\\uddea"'),
    "escaped slash": _line(raw='"a\\/b"'),
    "duplicate key": _line(raw='"[[A]]","raw":"[[B]]"'),
    "unknown key": _line(lenght_a="3"),
    "missing key": _line(votes=None),
    "missing default key": _line(repeat=None),
    "null for required": _line(order="null"),
    "bad literal": _line(order='"XY"'),
    "bad nested literal": _line(votes='{"a":["MAYBE"]}'),
    "int in slices": _line(slices='{"s":1}'),
    "raw tab in a string": _line(raw='"a\tb"'),
    "raw control character": _line(raw='"a\x01b"'),
    "bad escape": _line(raw='"\\x41"'),
    "escaped NUL": _line(raw='"\\u0000"'),
    "long decimal": _line(latency_s="0.10000000000000000555111512312578270211815834045410156250001"),
    "underflow": _line(latency_s="1e-400"),
    "largest float": _line(cost_usd="1.7976931348623157e308"),
    "huge int for a float": _line(cost_usd=str(2**70)),
    "minus zero int": _line(length_a="-0"),
    "leading zero": _line(length_a="01"),
    "plus sign": _line(length_a="+1"),
    "duplicate key in slices": _line(slices='{"a":"x","a":"y"}'),
    "empty votes": _line(votes='{"a":[]}'),
    "padding": "  " + _line() + "  \r\n",
    "trailing garbage": _line() + " x",
    "byte order mark": "\ufeff" + _line(),
    "not an object": "[1, 2]",
    "empty object": "{}",
}


def _same_or_refused(line: str) -> bool:
    """Whether the decoder took the line; if it did, the model took it too, with the same values and types."""
    try:
        slow = LeanRecord.of(JudgmentRecord.model_validate_json(line))
    except ValueError:  # pydantic's ValidationError is one
        slow = None
    try:
        fast = LeanRecord.of_canonical_line(line.encode("utf-8", "surrogatepass"))
    except NotCanonical:
        return False  # the model decides, as it did for every line before
    assert slow is not None, "the fast decoder took a line the model refuses"
    _equal_values(fast, slow)
    return True


@pytest.mark.parametrize("line", EDGE_LINES.values(), ids=EDGE_LINES.keys())
def test_any_line_the_decoder_takes_the_model_takes_the_same(line):
    _same_or_refused(line)


def test_floats_in_any_notation_parse_to_the_models_bits():
    rng = random.Random(7)
    for _ in range(500):
        value = rng.uniform(0, 1e6) * 10.0 ** rng.randint(-30, 30)  # a latency: finite and not negative
        assert _same_or_refused(_line(latency_s=f"{value:.{rng.randint(1, 25)}e}"))  # canonical: taken


def test_reading_gives_the_models_records_and_errors_for_every_kind_of_line(tmp_path):
    """A file mixing canonical lines, lines only the model takes (older files: a field missing, an int for a
    float) and blank lines reads as the model reads it; a bad line is the model's one-line error naming it, and
    a value of another JSON type (`"3"` for an int) is refused, never coerced."""
    path = tmp_path / "samples.jsonl"
    write_models_jsonl(path, VARIED)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[1] = json.dumps({k: v for k, v in json.loads(lines[1]).items() if k != "repeat"})  # an older file's line
    lines[2] = json.dumps(json.loads(lines[2]) | {"latency_s": 2})  # an int for a float: the model takes 2.0
    path.write_text("\n".join([lines[0], "   ", *lines[1:], ""]) + "\n", encoding="utf-8")
    got = read_samples(path, lean=True)
    want = [LeanRecord.of(JudgmentRecord.model_validate_json(x)) for x in lines]
    assert len(got) == len(want) == len(VARIED)
    for fast, slow in zip(got, want):
        _equal_values(fast, slow)
    assert got[1].model_fields_set == set(JudgmentRecord.model_fields) - {"repeat"}
    assert got[2].latency_s == 2.0 and type(got[2].latency_s) is float

    lax = re.sub(r'"attempts": ?(\d+)', r'"attempts":"\1"', path.read_text(encoding="utf-8"), count=1)
    assert lax != path.read_text(encoding="utf-8")
    (tmp_path / "lax.jsonl").write_text(lax, encoding="utf-8")
    with pytest.raises(JudgebenchError, match=r"lax\.jsonl:\d+: field 'attempts': Input should be a valid integer"):
        read_samples(tmp_path / "lax.jsonl", lean=True)

    path.write_bytes(path.read_bytes().replace(b'"raw":"[[A]]"', b'"raw":"[[A]] \xff"', 1))
    with pytest.raises(JudgebenchError, match=r"samples\.jsonl:1: not UTF-8 text \(invalid byte at offset \d+ of the line\)"):
        read_samples(path, lean=True)


def test_the_mirror_carries_the_models_bounds_and_refuses_any_other_constraint():
    import annotated_types
    import msgspec

    from judgebench.core.lean_records import _CANONICAL, _mirrored

    types_ = {f.name: str(f.type) for f in msgspec.structs.fields(_CANONICAL)}
    assert "Meta(ge=0, le=9007199254740992)" in types_["length_a"] and "Optional" in types_["citations_a"]
    with pytest.raises(TypeError, match="cannot mirror MultipleOf"):
        _mirrored(int, [annotated_types.MultipleOf(2)], "length_a")
