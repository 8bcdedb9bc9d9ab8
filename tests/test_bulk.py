"""bulk.py: records sharing what repeats (field-name sets, slice maps, short strings), nothing else changed."""

from __future__ import annotations

from judgebench.bulk import intern_short, share_field_set, shared_map
from judgebench.records import JudgmentRecord


def _record(example_id: str, verdict: str) -> JudgmentRecord:
    line = (
        f'{{"task": "t", "example_id": "{example_id}", "dimension": "overall", "order": "AB", "judge": "builtin/longer",'
        f' "prompt_hash": "{"ab" * 32}", "status": "ANSWERED", "raw": "[[{verdict}]]", "verdict_shown": "{verdict}",'
        f' "verdict": "{verdict}", "label": "A", "slices": {{"category": "c0"}}, "length_a": 3, "length_b": 2}}'
    )
    return JudgmentRecord.model_validate_json(line)


def test_records_given_the_same_fields_share_one_set_and_dump_as_before():
    plain, a, b = _record("p1", "A"), _record("p1", "A"), _record("p2", "B")
    share_field_set(a), share_field_set(b)
    assert a.model_fields_set is b.model_fields_set
    assert a.model_dump_json() == plain.model_dump_json()
    assert a.model_dump(exclude_unset=True) == plain.model_dump(exclude_unset=True)


def test_a_copy_leaves_the_shared_set_alone():
    a, b = _record("p1", "A"), _record("p2", "A")
    share_field_set(a), share_field_set(b)
    changed = a.model_copy(update={"verdict": "B"})
    assert (changed.verdict, a.verdict, b.verdict) == ("B", "A", "A")
    assert changed.model_fields_set is not a.model_fields_set and a.model_fields_set is b.model_fields_set


def test_records_given_different_fields_keep_different_sets():
    full = _record("p1", "A")
    fewer = JudgmentRecord(task="t", example_id="x", dimension="overall", order="AB", judge="j",
                           prompt_hash="h", status="FAILED", label="A", length_a=1, length_b=1)
    share_field_set(full), share_field_set(fewer)
    assert fewer.model_fields_set != full.model_fields_set and "raw" not in fewer.model_fields_set


def test_equal_slice_maps_and_short_strings_are_one_object():
    first, second = {"category": "c0"}, {"category": "c0"}
    assert shared_map(first) is shared_map(second) is first
    assert shared_map({"category": "c1"}) is not first
    long_text = "x" * 129
    assert intern_short("".join(["m", "1"])) is intern_short("".join(["m", "1"]))
    assert intern_short(long_text) is long_text and intern_short(None) is None
