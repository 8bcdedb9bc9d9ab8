"""bulk.compact: the same records in less memory, nothing else changed."""

from __future__ import annotations

from judgebench.bulk import compact
from judgebench.records import JudgmentRecord


def _record(example_id: str, verdict: str) -> JudgmentRecord:
    line = (
        f'{{"task": "t", "example_id": "{example_id}", "dimension": "overall", "order": "AB", "judge": "builtin/longer",'
        f' "prompt_hash": "{"ab" * 32}", "status": "ANSWERED", "raw": "[[{verdict}]]", "verdict_shown": "{verdict}",'
        f' "verdict": "{verdict}", "label": "A", "slices": {{"category": "c0"}}, "length_a": 3, "length_b": 2}}'
    )
    return JudgmentRecord.model_validate_json(line)


def test_compact_keeps_every_value_and_dump():
    plain, packed = _record("p1", "A"), compact(_record("p1", "A"))
    assert packed == plain
    assert packed.model_dump_json() == plain.model_dump_json()
    assert packed.model_dump(exclude_unset=True) == plain.model_dump(exclude_unset=True)


def test_compact_records_share_their_field_sets_strings_and_slices():
    a, b = compact(_record("p1", "A")), compact(_record("p2", "B"))
    assert a.model_fields_set is b.model_fields_set
    assert a.prompt_hash is b.prompt_hash and a.task is b.task
    assert a.slices is b.slices
    assert a.example_id == "p1" and b.example_id == "p2" and (a.verdict, b.verdict) == ("A", "B")


def test_a_copy_of_a_compact_record_leaves_the_shared_parts_alone():
    a, b = compact(_record("p1", "A")), compact(_record("p2", "A"))
    changed = a.model_copy(update={"verdict": "B"})
    assert (changed.verdict, a.verdict, b.verdict) == ("B", "A", "A")
    assert changed.model_fields_set is not a.model_fields_set
    assert a.model_fields_set is b.model_fields_set


def test_records_given_different_fields_keep_different_sets():
    full = compact(_record("p1", "A"))
    fewer = compact(JudgmentRecord(task="t", example_id="x", dimension="overall", order="AB", judge="j",
                                   prompt_hash="h", status="FAILED", label="A", length_a=1, length_b=1))
    assert fewer.model_fields_set != full.model_fields_set
    assert "raw" not in fewer.model_fields_set
