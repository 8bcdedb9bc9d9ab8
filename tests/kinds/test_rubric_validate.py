"""Strict rubric reply validation: every rule rejects (with its reason), nothing is clamped."""

from __future__ import annotations

import json

import pytest

from judgebench.kinds.rubric.records import Criterion
from judgebench.kinds.rubric.validate import Accepted, validate_reply

RUBRIC = [Criterion(id="a", max=2.0), Criterion(id="b", max=1.0)]


def reply(items: list[dict], total: float, **extra) -> str:
    return json.dumps({"sub_scores": items, "total_score": total, **extra})


GOOD = [{"id": "a", "score": 1.5, "evidence": "x"}, {"id": "b", "score": 0, "evidence": ""}]


def test_a_valid_reply_is_accepted_as_given():
    assert validate_reply(reply(GOOD, 1.5, max_score=3), RUBRIC) == Accepted({"a": 1.5, "b": 0.0}, 1.5)
    fenced = "```json\n" + reply(GOOD, 1.5) + "\n```"
    assert isinstance(validate_reply(fenced, RUBRIC), Accepted)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("The answer deserves 1.5 points.", "not JSON"),
        ('{"sub_scores": [', "not JSON"),
        ("[1, 2]", "not a JSON object"),
        (reply(GOOD[:1], 1.5), "missing item 'b'"),
        (reply([*GOOD, {"id": "c", "score": 0}], 1.5), "extra item 'c'"),
        (reply([GOOD[0], GOOD[0], GOOD[1]], 3.0), "item 'a' given twice"),
        (reply([{"id": "a", "score": 2.5, "evidence": "x"}, GOOD[1]], 2.5), "item 'a': score 2.5 is outside [0, 2]"),
        (reply([{"id": "a", "score": -0.5, "evidence": "x"}, GOOD[1]], -0.5), "outside [0, 2]"),
        (reply([{"id": "a", "score": "1", "evidence": "x"}, GOOD[1]], 1), "is not a number"),
        (reply([{"id": "a", "score": True, "evidence": "x"}, GOOD[1]], 1), "is not a number"),
        (reply(GOOD, 2.5), "total_score 2.5 is not the sum of the item scores (1.5)"),
        (reply(GOOD, "1.5"), "total_score '1.5' is not a number"),
        (reply(GOOD, 1.5, max_score=4), "max_score 4 is not the rubric's maximum (3)"),
        (reply([{"id": "a", "score": 1.5}, GOOD[1]], 1.5), "above zero without evidence"),
        (json.dumps({"total_score": 1}), "no 'sub_scores' list"),
        ("NaN", "not a JSON object"),
    ],
)
def test_each_broken_rule_is_rejected_with_its_reason(text, reason):
    verdict = validate_reply(text, RUBRIC)
    assert isinstance(verdict, str) and reason in verdict


def test_total_tolerance_and_evidence_are_configurable():
    close = reply(GOOD, 1.505)
    assert isinstance(validate_reply(close, RUBRIC, tolerance=0.01), Accepted)
    assert isinstance(validate_reply(close, RUBRIC, tolerance=0.0), str)
    bare = reply([{"id": "a", "score": 1.5}, {"id": "b", "score": 0}], 1.5)
    assert isinstance(validate_reply(bare, RUBRIC, evidence_required=False), Accepted)


def test_integer_item_ids_match_text_ids_but_scores_are_never_converted():
    numbered = [Criterion(id="1", max=1.0), Criterion(id="2", max=1.0)]
    ok = reply([{"id": 1, "score": 1, "evidence": "x"}, {"id": "2", "score": 0}], 1)
    assert validate_reply(ok, numbered) == Accepted({"1": 1.0, "2": 0.0}, 1.0)
    twice = reply([{"id": 1, "score": 1, "evidence": "x"}, {"id": "1", "score": 0}], 1)
    assert validate_reply(twice, numbered) == "item '1' given twice"
    assert "not an object with an 'id'" in validate_reply(reply([{"id": True, "score": 0}], 0), numbered)
