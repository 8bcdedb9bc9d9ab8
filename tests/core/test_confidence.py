"""core/confidence.py: verdict probabilities from token log-probabilities, vote shares, verbalised confidence
(issue 34); each expected value computed by hand."""

from __future__ import annotations

import math

import pytest

from judgebench.core.confidence import (
    from_logprobs,
    to_dataset,
    token_verdict,
    verbalised_confidence,
    vote_shares,
)

AB = ("A", "B")
ABT = ("A", "B", "TIE")


def test_token_names_a_verdict_after_stripping() -> None:
    assert [token_verdict(t) for t in ("A", " B", "[[C", "Tie", "**A**", "a", "Because", "D")] == [
        "A", "B", "TIE", "TIE", "A", "A", None, None]


def test_verdict_token_alternatives_are_summed_per_verdict_and_normalised_over_the_allowed() -> None:
    # "[[", "A", "]]": the verdict token A with alternatives A 0.6, " A" 0.1 (same verdict), B 0.2, C 0.05, "The" 0.05
    positions = [("[[", 0.0, {"[[": 0.0}),
                 ("A", math.log(0.6), {"A": math.log(0.6), " A": math.log(0.1), "B": math.log(0.2),
                                       "C": math.log(0.05), "The": math.log(0.05)})]
    # ties allowed: A 0.7, B 0.2, TIE 0.05 over 0.95 -> 0.7/0.95, 0.2/0.95, 0.05/0.95
    got = from_logprobs(positions, "A", ABT)
    assert got == pytest.approx({"A": 0.7 / 0.95, "B": 0.2 / 0.95, "TIE": 0.05 / 0.95})
    # no ties: A 0.7, B 0.2 over 0.9
    assert from_logprobs(positions, "A", AB) == pytest.approx({"A": 0.7 / 0.9, "B": 0.2 / 0.9})


def test_the_last_position_naming_the_parsed_verdict_is_read() -> None:
    early = ("A", math.log(0.5), {"A": math.log(0.5), "B": math.log(0.5)})  # "A is ..." in the explanation
    late = ("B", math.log(0.8), {"B": math.log(0.8), "A": math.log(0.2)})  # the final [[B]]
    assert from_logprobs([early, late], "B", AB) == pytest.approx({"A": 0.2, "B": 0.8})
    assert from_logprobs([early, late], "A", AB) == pytest.approx({"A": 0.5, "B": 0.5})  # the only A position
    assert from_logprobs([early, late], None, AB) is None  # no verdict parsed: no confidence
    assert from_logprobs(None, "A", AB) is None


def test_orders_map_back_to_the_dataset_positions() -> None:
    assert to_dataset({"A": 0.8, "B": 0.1, "TIE": 0.1}, "BA") == {"B": 0.8, "A": 0.1, "TIE": 0.1}
    assert to_dataset({"A": 0.8, "B": 0.2}, "AB") == {"A": 0.8, "B": 0.2}


def test_vote_shares_count_answered_votes_only() -> None:
    assert vote_shares(["A", "A", "B", None, "INVALID"], ABT) == {"A": 2 / 3, "B": 1 / 3, "TIE": 0.0}
    assert vote_shares([None], ABT) is None


@pytest.mark.parametrize("text, expected", [
    ("[[A]]\nConfidence: 80%", {"A": 0.8, "B": 0.1, "TIE": 0.1}),
    ("[[A]]\n**Confidence:** 0.6", {"A": 0.6, "B": 0.2, "TIE": 0.2}),
    ("[[A]]\nconfidence = 90", {"A": 0.9, "B": 0.05, "TIE": 0.05}),
    ("[[A]]\nConfidence: 80%\nConfidence: 70%", None),  # stated twice: refused
    ("[[A]]\nConfidence: 180%", None),
    ("[[A]] with high confidence", None),
])
def test_verbalised_confidence_is_parsed_strictly(text: str, expected: dict | None) -> None:
    got = verbalised_confidence(text, "A", ABT)
    assert got == (None if expected is None else pytest.approx(expected))
