"""Calibration and selective accuracy (issue 34): catalogue metrics over the judge's confidence, each value
computed by hand in the comments."""

from __future__ import annotations

import math

import numpy as np
import pytest

from judgebench.core.catalogue import (
    expected_calibration_error,
    handoff_accuracy,
    reliability_bins,
    selective_area,
    selective_curve,
)
from judgebench.core.records import JudgmentRecord
from judgebench.scoring.metrics import score_dimension

FLOOR = -math.log(1e-15)  # 34.5388


def rec(ex: str, order: str, verdict: str | None, label: str, conf: dict | None, votes: dict | None = None):
    return JudgmentRecord(task="t", example_id=ex, dimension="overall", order=order, judge="j", prompt_hash="h",
                          status="ANSWERED" if verdict else "INVALID", verdict=verdict,
                          verdict_shown=verdict if order == "AB" else {"A": "B", "B": "A"}.get(verdict, verdict),
                          label=label, length_a=1, length_b=1, confidence=conf,
                          confidence_source="logprobs" if conf else None, votes=votes)


def three_examples() -> list[JudgmentRecord]:
    return [
        # e1 label A: P = mean of (.8, .2) and (.6, .4) = A .7, B .3; Brier .3^2 + .3^2 = .18; log loss -ln .7
        rec("e1", "AB", "A", "A", {"A": 0.8, "B": 0.2}), rec("e1", "BA", "A", "A", {"A": 0.6, "B": 0.4}),
        # e2 label B: P A .9, B .1; Brier .81 + .81 = 1.62; log loss -ln .1; wrong
        rec("e2", "AB", "A", "B", {"A": 0.9, "B": 0.1}), rec("e2", "BA", "A", "B", {"A": 0.9, "B": 0.1}),
        # e3 label TIE: P A .5, B .5, TIE 0; Brier .25 + 1 + .25 = 1.5; log loss -ln 1e-15; top .5 picks A: wrong
        rec("e3", "AB", "A", "TIE", {"A": 0.5, "B": 0.5, "TIE": 0.0}), rec("e3", "BA", "A", "TIE", {"A": 0.5, "B": 0.5}),
        # e4 label A: no confidence -> left out of every confidence metric
        rec("e4", "AB", "A", "A", None), rec("e4", "BA", "A", "A", None),
    ]


def test_brier_log_loss_ece_and_selective_accuracy_by_hand() -> None:
    m = score_dimension(three_examples(), "overall", n_resamples=200)
    assert m["brier_score"].value == pytest.approx((0.18 + 1.62 + 1.5) / 3)  # 1.1
    assert m["brier_score"].n == 3 and m["brier_score"].ci_low is not None
    assert m["log_loss"].value == pytest.approx((-math.log(0.7) - math.log(0.1) + FLOOR) / 3)
    # top-label confidences .7 (right), .9 (wrong), .5 (wrong), one per bin: (.3 + .9 + .5) / 3
    assert m["ece"].value == pytest.approx(1.7 / 3) and m["ece"].n == 3
    # most confident first: e2 (exact 0), e1 (1), e3 (0): accuracies 0, 1/2, 1/3 -> area (0 + .5 + 1/3) / 3
    assert m["selective_auc"].value == pytest.approx((0 + 0.5 + 1 / 3) / 3)
    assert m["selective_accuracy"].value == pytest.approx(0.5)  # round(.8 * 3) = 2 kept: e2, e1
    assert m["handoff_accuracy"].value == pytest.approx(2 / 3)  # round(.2 * 3) = 1 to humans (e3): (0 + 1 + 1) / 3
    assert m["confidence_coverage"].value == pytest.approx(3 / 4)
    assert m["accuracy"].value == pytest.approx(2 / 4)  # e1 and e4 right in both orders
    assert "brier_vs_votes" not in m  # no annotator votes


def test_a_judge_always_sure_is_penalised_by_calibration_not_by_accuracy() -> None:
    labels = ["A"] * 7 + ["B"] * 3  # the judge says A every time: right on 7 of 10
    sure = [rec(f"e{i}", o, "A", lab, {"A": 1.0, "B": 0.0}) for i, lab in enumerate(labels) for o in ("AB", "BA")]
    honest = [rec(f"e{i}", o, "A", lab, {"A": 0.7, "B": 0.3}) for i, lab in enumerate(labels) for o in ("AB", "BA")]
    s, h = score_dimension(sure, "overall", n_resamples=0), score_dimension(honest, "overall", n_resamples=0)
    assert s["accuracy"].value == h["accuracy"].value == pytest.approx(0.7)
    assert s["brier_score"].value == pytest.approx(3 * 2 / 10)  # 0.6: each miss costs 1^2 + 1^2
    assert h["brier_score"].value == pytest.approx((7 * 0.18 + 3 * 0.98) / 10)  # 0.42
    assert s["ece"].value == pytest.approx(0.3) and h["ece"].value == pytest.approx(0.0)  # |.7 - 1| vs |.7 - .7|
    assert s["log_loss"].value == pytest.approx(3 * FLOOR / 10)
    assert h["log_loss"].value == pytest.approx(-(0.7 * math.log(0.7) + 0.3 * math.log(0.3)))
    # every example tied at one confidence: no order to abstain by, the curve is flat at the accuracy
    assert s["selective_auc"].value == pytest.approx(0.7) == h["selective_auc"].value


def test_against_the_experts_spread_a_judge_matching_the_vote_split_scores_zero() -> None:
    votes = {"x": ["A"], "y": ["A"], "z": ["B"]}  # the experts split 2/3 A, 1/3 B
    matching = [rec("e", o, "A", "A", {"A": 2 / 3, "B": 1 / 3}, votes) for o in ("AB", "BA")]
    sure = [rec("e", o, "A", "A", {"A": 1.0, "B": 0.0}, votes) for o in ("AB", "BA")]
    assert score_dimension(matching, "overall", n_resamples=0)["brier_vs_votes"].value == pytest.approx(0.0)
    # (1 - 2/3)^2 + (0 - 1/3)^2 = 2/9
    assert score_dimension(sure, "overall", n_resamples=0)["brier_vs_votes"].value == pytest.approx(2 / 9)
    # against the majority label the sure judge looks better: (1/3)^2 + (1/3)^2 = 2/9 vs 0
    assert score_dimension(sure, "overall", n_resamples=0)["brier_score"].value == pytest.approx(0.0)


def test_the_pure_curves_by_hand() -> None:
    # ties are kept in a random order: expected accuracy. conf .9, .9, .5; scores 1, 0, 1
    coverage, accuracy = selective_curve([0.9, 0.9, 0.5], [1, 0, 1])
    assert coverage == pytest.approx([1 / 3, 2 / 3, 1]) and accuracy == pytest.approx([0.5, 0.5, 2 / 3])
    assert selective_area([0.9, 0.9, 0.5], [1, 0, 1]) == pytest.approx((0.5 + 0.5 + 2 / 3) / 3)
    # 4 examples, 2 handed off (round(.5 * 4)): the judge keeps .9 (1) and .8 (0): (1 + 0 + 2) / 4
    assert handoff_accuracy([0.9, 0.8, 0.3, 0.2], [1, 0, 0, 1], 0.5) == pytest.approx(0.75)
    assert handoff_accuracy([0.9], [0], 1.0) == 1.0 and handoff_accuracy([], [], 0.2) is None
    bins = reliability_bins(np.array([0.55, 0.58, 0.95, 1.0]), np.array([1, 0, 1, 1]))
    assert bins == [(0.5, 0.6, 2, pytest.approx(0.565), 0.5), (0.9, 1.0, 2, pytest.approx(0.975), 1.0)]
    # ECE: 2/4 * |.5 - .565| + 2/4 * |1 - .975| = .0325 + .0125
    assert expected_calibration_error([0.55, 0.58, 0.95, 1.0], [1, 0, 1, 1]) == pytest.approx(0.045)


def test_confidences_equal_but_for_float_noise_are_ties_and_sit_in_their_bin() -> None:
    """An audit: the mean of two orders' stated 88% and 80% is 0.8400000000000001, which was ranked above a 0.84
    (its accuracy 0 always first: selective_auc 0.547981 for 0.548849), and 0.7999999999999999 fell in [0.7, 0.8)."""
    noisy = (0.88 + 0.80) / 2
    assert noisy != 0.84
    # a tie of .84 (scores 0 and .5, mean .25) under .9 (score 1): k = 1: 1; k = 2: (1 + .25) / 2; k = 3: 1.5 / 3
    assert selective_area([noisy, 0.84, 0.9], [0, 0.5, 1]) == pytest.approx((1 + 0.625 + 0.5) / 3)
    assert selective_area([0.84, noisy, 0.9], [0, 0.5, 1]) == selective_area([noisy, 0.84, 0.9], [0, 0.5, 1])
    edge = np.nextafter(0.8, 0.0)  # 0.7999999999999999: 0.8 as the numbers mean it
    assert [b[:3] for b in reliability_bins([edge, 0.75], [1, 1])] == [(0.7, 0.8, 1), (0.8, 0.9, 1)]


def test_the_report_curves_against_the_vote_shares_by_hand() -> None:
    from judgebench.scoring.calibration import calibration_curves

    two = {"x": ["A"], "y": ["B"]}  # experts split 1/2
    three = {"x": ["A"], "y": ["A"], "z": ["A"]}  # unanimous A
    records = [rec("e1", o, "A", "TIE", {"A": 0.55, "B": 0.45}, two) for o in ("AB", "BA")]
    records += [rec("e2", o, "A", "A", {"A": 0.95, "B": 0.05}, three) for o in ("AB", "BA")]
    curves = calibration_curves(records, n_resamples=50)["overall"]
    # P(A) .55 -> bin [.5, .6) with share .5; P(A) .95 -> bin [.9, 1] with share 1
    assert curves["vote_curve"] == [[0.5, 0.6, 1, pytest.approx(0.55), 0.5], [0.9, 1.0, 1, pytest.approx(0.95), 1.0]]
    assert curves["n"] == 2 and curves["sources"] == ["logprobs"]
    # top-label .55 (A, label TIE: wrong) and .95 (right): ECE (.55 + .05) / 2
    assert curves["ece"] == pytest.approx(0.3)
    assert curves["handoff"][0] == [0.0, pytest.approx(0.5)] and curves["handoff"][-1] == [0.5, pytest.approx(1.0)]


def test_bootstrap_intervals_of_the_binned_statistics() -> None:
    from judgebench.scoring.calibration import bootstrap_interval, ece_interval

    # a constant statistic has a point interval; fewer than 2 examples or 0 resamples: none
    assert bootstrap_interval(lambda x: 0.25, (np.arange(5.0),), 100, 0) == (0.25, 0.25)
    assert bootstrap_interval(lambda x: 0.25, (np.arange(1.0),), 100, 0) == (None, None)
    # always sure and always right: every resample has ECE 0
    assert ece_interval(np.ones(10), np.ones(10), 200, 0) == (0.0, 0.0)
    low, high = ece_interval(np.full(20, 0.9), np.array([1.0] * 14 + [0.0] * 6), 500, 1)
    assert low <= 0.2 <= high  # ECE |.7 - .9| = .2 inside its interval
