"""bulk.py: what repeats across records held once (field-name sets, slice maps, short strings)."""

from __future__ import annotations

from judgebench.bulk import intern_short, shared_field_set, shared_map
from judgebench.records import JudgmentRecord


def _record(example_id: str, verdict: str) -> JudgmentRecord:
    line = (
        f'{{"task": "t", "example_id": "{example_id}", "dimension": "overall", "order": "AB", "judge": "builtin/longer",'
        f' "prompt_hash": "{"ab" * 32}", "status": "ANSWERED", "raw": "[[{verdict}]]", "verdict_shown": "{verdict}",'
        f' "verdict": "{verdict}", "label": "A", "slices": {{"category": "c0"}}, "length_a": 3, "length_b": 2}}'
    )
    return JudgmentRecord.model_validate_json(line)


def test_records_given_the_same_fields_get_one_set_with_those_names():
    a, b = _record("p1", "A"), _record("p2", "B")
    shared = shared_field_set(a.model_fields_set)
    assert shared is shared_field_set(b.model_fields_set) and shared == a.model_fields_set


def test_records_given_different_fields_keep_different_sets():
    full = _record("p1", "A")
    fewer = JudgmentRecord(task="t", example_id="x", dimension="overall", order="AB", judge="j",
                           prompt_hash="h", status="FAILED", label="A", length_a=1, length_b=1)
    few = shared_field_set(fewer.model_fields_set)
    assert few is not shared_field_set(full.model_fields_set) and "raw" not in few


def test_equal_slice_maps_and_short_strings_are_one_object():
    # a key no other test uses: the registry is process-wide, so a map seen by an earlier test is already held
    first, second = {"test_bulk_only": "c0"}, {"test_bulk_only": "c0"}
    assert shared_map(first) is shared_map(second) is first
    assert shared_map({"test_bulk_only": "c1"}) is not first
    long_text = "x" * 129
    assert intern_short("".join(["m", "1"])) is intern_short("".join(["m", "1"]))
    assert intern_short(long_text) is long_text and intern_short(None) is None
