"""Metric tests: every expected value is worked out by hand in a comment."""

from __future__ import annotations

import math

import numpy as np
import pytest

from judgebench.core.records import JudgmentRecord, swap_verdict
from judgebench.scoring.judgment_table import example_table
from judgebench.scoring.metrics import (
    confusion_matrix,
    exact_score,
    random_baseline,
    score_dimension,
    score_records,
    soft_score,
)
from judgebench.scoring.usage import summarize_counts, summarize_usage
from judgebench.stats.agreement import cohen_kappa, krippendorff_ordinal

DIM = "overall"


def rec(
    ex: str,
    order: str,
    verdict: str | None,
    label: str,
    *,
    dim: str = DIM,
    status: str | None = None,
    prompt_hash: str | None = None,
    **kw,
) -> JudgmentRecord:
    """A record with `verdict` in dataset positions; shown verdict derived from the order."""
    status = status or ("ANSWERED" if verdict else "INVALID")
    shown = verdict if order == "AB" else swap_verdict(verdict)
    return JudgmentRecord(
        task="t", example_id=ex, dimension=dim, order=order, judge="j",
        prompt_hash=prompt_hash or f"{ex}-{dim}-{order}", status=status,
        verdict=verdict, verdict_shown=shown, label=label,
        length_a=kw.pop("length_a", 10), length_b=kw.pop("length_b", 20), **kw,
    )


def both(ex: str, label: str, ab: str | None, ba: str | None, **kw) -> list[JudgmentRecord]:
    return [rec(ex, "AB", ab, label, **kw), rec(ex, "BA", ba, label, **kw)]


def val(metrics, name):
    return metrics[name].value


# The 4-example, two-order case used by several tests (verdicts in dataset positions):
#   e1 label A: AB A (1), BA A (1) -> mean 1.0, orders agree and right
#   e2 label B: AB B (1), BA A (0) -> mean 0.5, disagree
#   e3 label A: AB A (1), BA B (0) -> mean 0.5, disagree
#   e4 label B: AB A (0), BA B (1) -> mean 0.5, disagree
FOUR = [
    *both("e1", "A", "A", "A"),
    *both("e2", "B", "B", "A"),
    *both("e3", "A", "A", "B"),
    *both("e4", "B", "A", "B"),
]


# --------------------------------------------------------------------------- scalar scores


def test_soft_and_exact_scores():
    assert soft_score("A", "A") == 1.0
    assert soft_score("TIE", "A") == 0.5  # exactly one is TIE
    assert soft_score("A", "TIE") == 0.5
    assert soft_score("B", "A") == 0.0  # opposite decisive
    assert soft_score(None, "TIE") == 0.0  # missing verdict earns nothing
    assert exact_score("TIE", "TIE") == 1.0
    assert exact_score("TIE", "A") == 0.0
    assert exact_score(None, "A") == 0.0


def test_scores_reject_unmapped_both_bad():
    with pytest.raises(ValueError):
        soft_score("A", "BOTH_BAD")
    with pytest.raises(ValueError):
        random_baseline(["A", "BOTH_BAD"])


# --------------------------------------------------------------------------- random baseline


def test_random_baseline_reproduces_paper_figure():
    # P(A)=.4443, P(B)=.4495, P(TIE)=.1062:
    # .4443^2 + .4495^2 + .1062^2 = .19740 + .20205 + .01128 = .41073 (exact matches)
    # + 0.5 * 2 * .1062 * (.4443 + .4495) = .09492 (tie vs decisive, half credit)
    # = .505653 -> 50.57%
    labels = ["A"] * 4443 + ["B"] * 4495 + ["TIE"] * 1062
    assert round(random_baseline(labels), 4) == 0.5057
    assert random_baseline(labels) == pytest.approx(0.50565274, abs=1e-8)


def test_random_baseline_balanced_binary_is_exactly_half():
    # .5^2 + .5^2 = .5, no ties -> soft == exact
    assert random_baseline(["A", "B"] * 250) == 0.5
    assert random_baseline(["A", "B"] * 250, soft=False) == 0.5


def test_random_baseline_with_ties():
    # P(A)=P(TIE)=.5: .25 + .25 (matches) + 2 * .25 * .5 (half credit) = .75 soft; .5 exact
    assert random_baseline(["A", "TIE"]) == pytest.approx(0.75)
    assert random_baseline(["A", "TIE"], soft=False) == pytest.approx(0.5)


def test_random_baseline_metric_from_label_distribution():
    recs = [rec(f"e{i}", "AB", "A", lab) for i, lab in
            enumerate(["A"] * 4443 + ["B"] * 4495 + ["TIE"] * 1062)]
    m = score_dimension(recs, DIM, n_resamples=0)
    assert round(val(m, "random_baseline"), 4) == 0.5057
    # exact: .41073 (sum of squares)
    assert val(m, "random_baseline_exact") == pytest.approx(0.4443**2 + 0.4495**2 + 0.1062**2)


# --------------------------------------------------------------------------- accuracies


def test_accuracy_mean_of_orders_and_per_order():
    m = score_dimension(FOUR, DIM, n_resamples=0)
    assert val(m, "accuracy_ab") == 0.75  # e1, e2, e3 right in AB: 3/4
    assert val(m, "accuracy_ba") == 0.5  # e1, e4 right in BA: 2/4
    assert val(m, "accuracy") == 5 / 8  # (1 + .5 + .5 + .5) / 4 = 2.5/4
    assert m["accuracy"].n == 4


def test_gated_accuracy_differs_from_mean_of_orders():
    m = score_dimension(FOUR, DIM, n_resamples=0)
    # only e1 has both orders agreeing AND right: 1/4, versus 5/8 mean-of-orders
    assert val(m, "accuracy_consistent") == 0.25
    assert val(m, "accuracy") == 5 / 8
    # e1 agrees (A, A); e2 (B, A), e3 (A, B), e4 (A, B) disagree: 1/4
    assert val(m, "order_consistency") == 0.25
    assert m["order_consistency"].n == 4


def test_soft_accuracy_and_soft_consistent():
    recs = [
        *both("e1", "TIE", "TIE", "TIE"),  # soft 1, 1 -> mean 1; agree -> 1
        *both("e2", "A", "TIE", "TIE"),  # soft .5, .5 -> mean .5; agree -> .5
        *both("e3", "A", "A", "TIE"),  # soft 1, .5 -> mean .75; disagree -> 0
    ]
    m = score_dimension(recs, DIM, n_resamples=0)
    assert val(m, "soft_accuracy") == pytest.approx(0.75)  # (1 + .5 + .75) / 3
    assert val(m, "soft_accuracy_consistent") == pytest.approx(0.5)  # (1 + .5 + 0) / 3
    assert val(m, "soft_accuracy_ab") == pytest.approx(2.5 / 3)  # (1 + .5 + 1) / 3
    assert val(m, "soft_accuracy_ba") == pytest.approx(2 / 3)  # (1 + .5 + .5) / 3
    assert val(m, "accuracy") == pytest.approx(1.5 / 3)  # (1 + 0 + .5) / 3


def test_single_order_run_no_swap():
    recs = [
        rec("e1", "AB", "A", "TIE"),  # soft .5, exact 0
        rec("e2", "AB", "TIE", "A"),  # soft .5, exact 0
        rec("e3", "AB", "B", "B"),  # soft 1, exact 1
        rec("e4", "AB", "B", "A"),  # soft 0, exact 0
    ]
    m = score_dimension(recs, DIM, n_resamples=0)
    assert "accuracy_ba" not in m and "soft_accuracy_ba" not in m
    assert "order_consistency" not in m
    assert val(m, "accuracy") == val(m, "accuracy_ab") == 0.25  # 1/4
    assert val(m, "soft_accuracy") == 0.5  # (.5 + .5 + 1 + 0) / 4
    # "both orders agree and are right" is undefined with one order: absent, never the single-order figure
    assert "accuracy_consistent" not in m and "soft_accuracy_consistent" not in m
    # decisive labels e2, e3, e4 with exact 0, 1, 0 -> 1/3
    assert val(m, "decisive_accuracy") == pytest.approx(1 / 3)
    assert m["decisive_accuracy"].n == 3
    assert val(m, "tie_rate_judge") == 0.25  # verdicts A, TIE, B, B
    assert val(m, "tie_rate_human") == 0.25  # labels TIE, A, B, A


def test_missing_verdicts_score_zero_and_lower_coverage():
    recs = [
        rec("e1", "AB", "A", "A"),
        rec("e1", "BA", None, "A", status="FAILED"),
        rec("e2", "AB", None, "B", status="INVALID"),
        rec("e2", "BA", "B", "B"),
        rec("e3", "AB", "A", "A"),  # e3's BA record is missing entirely
    ]
    m = score_dimension(recs, DIM, n_resamples=0)
    # every example has one right answer out of two orders: (.5 + .5 + .5) / 3 = .5
    # (answered-only scoring would wrongly give 1.0)
    assert val(m, "accuracy") == 0.5
    assert val(m, "soft_accuracy") == 0.5
    assert val(m, "coverage") == 0.5  # 3 answered of 3 examples x 2 orders = 6
    assert m["coverage"].n == 6
    assert val(m, "invalid_rate") == pytest.approx(1 / 6)
    assert val(m, "failed_rate") == pytest.approx(1 / 6)
    # no example has both orders answered -> undefined, not 0 or 1
    assert m["order_consistency"].value is None and m["order_consistency"].n == 0
    # kappa/alpha/tie rate over the 3 answered judgments only
    assert m["cohen_kappa"].n == 3 and m["tie_rate_judge"].n == 3


def test_duplicate_records_last_wins():
    recs = [rec("e1", "AB", None, "A", status="FAILED"), rec("e1", "AB", "A", "A")]
    m = score_dimension(recs, DIM, n_resamples=0)
    assert val(m, "accuracy") == 1.0 and val(m, "coverage") == 1.0


# --------------------------------------------------------------------------- position bias


def test_position_bias_always_first_judge():
    # the judge always says "first shown": AB -> A, BA -> shown A = dataset B
    recs = [r for i, lab in enumerate("ABAB") for r in both(f"e{i}", lab, "A", "B")]
    m = score_dimension(recs, DIM, n_resamples=0)
    assert val(m, "position_bias") == 1.0
    assert m["position_bias"].n == 8  # judgments, not examples
    assert val(m, "order_consistency") == 0.0  # never the same mapped verdict
    assert val(m, "accuracy") == 0.5  # right in exactly one order each time


def test_position_bias_mixed():
    m = score_dimension(FOUR, DIM, n_resamples=0)
    # shown verdicts: e1 A,B; e2 B,B; e3 A,A; e4 A,A -> 5 "first" of 8 decisive
    assert val(m, "position_bias") == 5 / 8


# --------------------------------------------------------------------------- both_bad


BB = [*both("e1", "BOTH_BAD", "A", "A"), *both("e2", "A", "A", "A")]


def test_both_bad_as_tie():
    m = score_dimension(BB, DIM, both_bad="tie", n_resamples=0)
    # e1 label -> TIE: soft .5, exact 0; e2 soft 1, exact 1
    assert val(m, "soft_accuracy") == 0.75  # (.5 + 1) / 2
    assert val(m, "accuracy") == 0.5  # (0 + 1) / 2
    assert val(m, "tie_rate_human") == 0.5
    assert m["accuracy"].n == 2


def test_both_bad_exclude():
    m = score_dimension(BB, DIM, both_bad="exclude", n_resamples=0)
    # e1 dropped; e2 right in both orders
    assert val(m, "soft_accuracy") == 1.0 and val(m, "accuracy") == 1.0
    assert m["accuracy"].n == 1


def test_both_bad_rejects_unknown_mode():
    with pytest.raises(ValueError):
        score_dimension(BB, DIM, both_bad="drop", n_resamples=0)


def test_confusion_matrix():
    cm = confusion_matrix(FOUR, DIM)
    # label A: e1 (A, A), e3 (A, B); label B: e2 (B, A), e4 (A, B)
    assert cm["A"] == {"A": 3, "TIE": 0, "B": 1, "INVALID": 0}
    assert cm["B"] == {"A": 2, "TIE": 0, "B": 2, "INVALID": 0}
    assert cm["TIE"] == {"A": 0, "TIE": 0, "B": 0, "INVALID": 0}
    assert "BOTH_BAD" not in cm


def test_confusion_matrix_both_bad_and_invalid():
    recs = [*BB, rec("e3", "AB", None, "B", status="FAILED"), rec("e3", "BA", "B", "B")]
    assert confusion_matrix(recs, DIM, "tie")["TIE"]["A"] == 2  # e1 folded into TIE
    cm = confusion_matrix(recs, DIM, "exclude")
    assert cm["BOTH_BAD"] == {"A": 2, "TIE": 0, "B": 0, "INVALID": 0}
    assert cm["TIE"]["A"] == 0
    assert cm["B"] == {"A": 0, "TIE": 0, "B": 1, "INVALID": 1}


# --------------------------------------------------------------------------- kappa, alpha


def test_kappa_hand_case():
    # po = 3/4; marginals (.5, .5) and (.25, .75): pe = .125 + .375 = .5
    # kappa = (.75 - .5) / (1 - .5) = .5
    assert cohen_kappa([0, 0, 1, 1], [0, 1, 1, 1]) == pytest.approx(0.5)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_kappa_matches_sklearn(seed):
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, 50 + 40 * seed)
    b = np.where(rng.random(a.size) < 0.6, a, rng.integers(0, 3, a.size))
    assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)


def test_kappa_metric_matches_sklearn_on_pooled_judgments():
    from sklearn.metrics import cohen_kappa_score

    m = score_dimension(FOUR, DIM, n_resamples=0)
    # pooled (verdict, label): AB A/A B/B A/A A/B, BA A/A A/B B/A B/B
    v = ["A", "B", "A", "A", "A", "A", "B", "B"]
    lab = ["A", "B", "A", "B", "A", "B", "A", "B"]
    assert val(m, "cohen_kappa") == pytest.approx(cohen_kappa_score(v, lab))
    assert m["cohen_kappa"].n == 8


def _alpha_ordinal_reference(a: np.ndarray, b: np.ndarray) -> float:
    """Independent Krippendorff ordinal alpha for 2 coders, no missing values."""
    vals = np.arange(3)
    o = np.zeros((3, 3))
    for x, y in zip(a, b):  # each unit adds both ordered pairs, weight 1/(m-1) = 1
        o[x, y] += 1
        o[y, x] += 1
    n_c = o.sum(axis=1)
    n = n_c.sum()
    d = np.zeros((3, 3))
    for c in vals:
        for k in vals:
            lo, hi = min(c, k), max(c, k)
            d[c, k] = (n_c[lo : hi + 1].sum() - (n_c[c] + n_c[k]) / 2) ** 2
    return 1 - (n - 1) * (o * d).sum() / (np.outer(n_c, n_c) * d).sum()


def test_alpha_hand_case():
    # judge A A B TIE vs human A B B TIE -> codes (0,0),(0,2),(2,2),(1,1)
    # coincidences: o00=2, o02=o20=1, o22=2, o11=2; n0=3, n1=2, n2=3, n=8
    # ordinal d^2: d01 = (5 - 2.5)^2 = 6.25, d12 = 6.25, d02 = (8 - 3)^2 = 25
    # observed: 2 * 1 * 25 = 50; expected: 2*(3*2*6.25 + 2*3*6.25 + 3*3*25) = 600
    # alpha = 1 - (8 - 1) * 50 / 600 = 5/12
    recs = [rec("e1", "AB", "A", "A"), rec("e2", "AB", "A", "B"),
            rec("e3", "AB", "B", "B"), rec("e4", "AB", "TIE", "TIE")]
    m = score_dimension(recs, DIM, n_resamples=0)
    assert val(m, "krippendorff_alpha") == pytest.approx(5 / 12)
    assert _alpha_ordinal_reference(np.array([0, 0, 2, 1]), np.array([0, 2, 2, 1])) == (
        pytest.approx(5 / 12)
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_alpha_matches_independent_computation(seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, 200)
    b = np.where(rng.random(a.size) < 0.5, a, rng.integers(0, 3, a.size))
    assert krippendorff_ordinal(a, b) == pytest.approx(_alpha_ordinal_reference(a, b))


def test_kappa_alpha_undefined_is_none():
    assert cohen_kappa([1, 1], [1, 1]) is None  # pe = 1
    assert cohen_kappa([], []) is None


# --------------------------------------------------------------------------- CIs


def _random_run(n: int, seed: int = 0, dims=(DIM,)) -> list[JudgmentRecord]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        for d in dims:
            lab = str(rng.choice(["A", "B", "TIE"], p=[0.45, 0.45, 0.1]))
            for order in ("AB", "BA"):
                v = lab if rng.random() < 0.6 else str(rng.choice(["A", "B", "TIE"]))
                out.append(rec(f"e{i}", order, v, lab, dim=d,
                               slices={"subject": "s0" if i % 3 else "s1"}))
    return out


def test_ci_contains_point_and_is_deterministic():
    recs = _random_run(300)
    m1 = score_dimension(recs, DIM, n_resamples=500, seed=7)
    m2 = score_dimension(recs, DIM, n_resamples=500, seed=7)
    m3 = score_dimension(recs, DIM, n_resamples=500, seed=8)
    assert m1 == m2
    assert m1["accuracy"] != m3["accuracy"]  # a different seed draws different resamples
    for name in ("accuracy", "soft_accuracy", "accuracy_consistent", "order_consistency",
                 "position_bias", "decisive_accuracy", "coverage"):
        mv = m1[name]
        assert mv.ci_low is not None and mv.ci_low <= mv.value <= mv.ci_high, name
        assert mv.ci_high - mv.ci_low < 0.2
    for name in ("cohen_kappa", "krippendorff_alpha", "tie_rate_judge", "random_baseline"):
        assert m1[name].ci_low is None and m1[name].n > 0


def test_ci_width_matches_binomial_scale():
    # one order, accuracy p = .5 on n = 400: se = sqrt(.25/400) = .025, 95% half-width ~ .049
    recs = [rec(f"e{i}", "AB", "A", "A" if i % 2 else "B") for i in range(400)]
    mv = score_dimension(recs, DIM, n_resamples=2000, seed=0)["accuracy"]
    assert mv.value == 0.5
    assert (mv.ci_high - mv.ci_low) / 2 == pytest.approx(0.049, abs=0.008)


def test_no_ci_without_resamples():
    mv = score_dimension(FOUR, DIM, n_resamples=0)["accuracy"]
    assert mv.ci_low is None and mv.ci_high is None and mv.value == 5 / 8


# --------------------------------------------------------------------------- runs


def test_score_records_mean_over_dimensions():
    recs = [
        *both("e1", "A", "A", "A", dim="x"),  # soft 1
        *both("e2", "B", "A", "A", dim="x"),  # soft 0
        *both("e1", "TIE", "A", "A", dim="y"),  # soft .5
        *both("e2", "B", "B", "B", dim="y"),  # soft 1
    ]
    metrics, slices = score_records(recs, n_resamples=0)
    assert set(metrics) == {"x", "y", "mean"} and slices == {}
    # per example: e1 (1 + .5) / 2 = .75, e2 (0 + 1) / 2 = .5 -> .625
    assert metrics["mean"]["soft_accuracy"].value == 0.625
    # exact: e1 (1 + 0) / 2, e2 (0 + 1) / 2 -> .5
    assert metrics["mean"]["accuracy"].value == 0.5
    assert metrics["mean"]["order_consistency"].value == 1.0  # all four pairs agree
    assert metrics["mean"]["order_consistency"].n == 4  # (example, dimension) pairs
    assert metrics["mean"]["accuracy"].n == 2  # examples


def test_mean_under_exclude_skips_both_bad_dimensions():
    recs = [
        *both("e1", "A", "A", "A", dim="x"),  # soft 1
        *both("e2", "B", "A", "A", dim="x"),  # soft 0
        *both("e1", "TIE", "A", "A", dim="y"),  # soft .5
        *both("e2", "BOTH_BAD", "B", "B", dim="y"),  # dropped under exclude
    ]
    metrics, _ = score_records(recs, both_bad="exclude", n_resamples=0)
    # e1 (1 + .5) / 2 = .75, e2 only x: 0 -> .375
    assert metrics["mean"]["soft_accuracy"].value == 0.375


def test_single_dimension_has_no_mean():
    metrics, _ = score_records(FOUR, n_resamples=0)
    assert set(metrics) == {DIM}


def test_slices():
    recs = [
        *both("e1", "A", "A", "A", slices={"subject": "bio"}),  # exact 1
        *both("e2", "B", "A", "A", slices={"subject": "bio"}),  # exact 0
        *both("e3", "B", "B", "A", slices={"subject": "cs"}),  # exact .5, disagree
        *both("e4", "A", "A", "A", slices={}),  # no subject: left out of the slice
    ]
    _, slices = score_records(recs, n_resamples=100, slice_columns=("subject", "model_a"))
    sub = slices[DIM]["subject"]
    assert set(sub) == {"bio", "cs"}
    assert sub["bio"]["accuracy"].value == 0.5  # (1 + 0) / 2
    assert sub["cs"]["accuracy"].value == 0.5
    assert sub["cs"]["order_consistency"].value == 0.0
    assert sub["bio"]["coverage"].value == 1.0
    assert set(sub["bio"]) == {"accuracy", "soft_accuracy", "accuracy_consistent",
                               "order_consistency", "coverage"}
    assert slices[DIM]["model_a"] == {}  # model_a is None everywhere


def test_example_table_columns():
    df = example_table(FOUR + both("e5", "BOTH_BAD", None, "B", slices={"subject": "x"}), DIM)
    assert list(df["example_id"]) == ["e1", "e2", "e3", "e4", "e5"]
    row = df.set_index("example_id").loc["e5"]
    assert row["label"] == "TIE" and row["label_raw"] == "BOTH_BAD"
    assert row["verdict_ab"] is None and row["verdict_ba"] == "B" and row["shown_ba"] == "A"
    assert row["status_ab"] == "INVALID" and row["soft_ba"] == 0.5 and row["soft_ab"] == 0.0
    assert row["slice_subject"] == "x" and row["length_b"] == 20
    assert df.attrs["orders"] == ("AB", "BA")
    excl = example_table(FOUR + both("e5", "BOTH_BAD", "A", "B"), DIM, both_bad="exclude")
    assert "e5" not in set(excl["example_id"])
    one = example_table([rec("e1", "AB", "A", "A")], DIM)
    assert math.isnan(one.loc[0, "exact_ba"]) and one.loc[0, "verdict_ba"] is None


def test_empty_dimension():
    m = score_dimension(FOUR, "novelty", n_resamples=10)
    assert m["accuracy"].value is None and m["accuracy"].n == 0


# --------------------------------------------------------------------------- counts, usage


def test_summarize_counts():
    recs = [
        rec("e1", "AB", "A", "A", cached=True),
        rec("e1", "BA", None, "A", status="FAILED"),
        rec("e2", "AB", None, "B", status="INVALID"),
        rec("e2", "BA", "B", "B"),
    ]
    c = summarize_counts(recs, n_examples=3)
    # 3 examples x 1 dimension x 2 orders = 6 expected; 2 answered
    assert (c.examples, c.calls, c.answered, c.invalid, c.failed, c.cached) == (3, 6, 2, 1, 1, 1)
    assert c.coverage == pytest.approx(2 / 6)


def _joint(ex: str, order: str, *, cost: float | None = 0.01, latency: float = 1.0, **kw):
    """Three dimension records sharing ONE call (joint mode)."""
    return [
        rec(ex, order, "A", "A", dim=d, prompt_hash=f"{ex}-{order}", tokens_in=100,
            tokens_out=10, cost_usd=cost, latency_s=latency, **kw)
        for d in ("novelty", "feasibility", "overall")
    ]


def test_usage_joint_mode_counts_each_call_once():
    recs = [*_joint("e1", "AB", latency=1), *_joint("e1", "BA", latency=2),
            *_joint("e2", "AB", latency=3), *_joint("e2", "BA", latency=4)]
    u = summarize_usage(recs, joint=True)
    # 12 records but 4 calls: 4 x 100 in, 4 x 10 out, 4 x $0.01
    assert (u.tokens_in, u.tokens_out) == (400, 40)
    assert u.cost_usd == pytest.approx(0.04)
    assert (u.priced_calls, u.unpriced_calls) == (4, 0)
    assert u.tokens_per_call == 110.0  # (400 + 40) / 4
    assert u.cost_per_100_calls == pytest.approx(1.0)  # 0.04 / 4 * 100
    assert u.latency_p50_s == 2.5  # median of 1, 2, 3, 4
    assert u.latency_p95_s == pytest.approx(3.85)  # 1 + .95 * 3 (linear interpolation)
    # the same records from a separate-mode run whose prompt renders alike for every dimension: 12 calls were sent
    # (an audit saw a server log 40 calls where usage said 8)
    u = summarize_usage(recs, joint=False)
    assert (u.tokens_in, u.tokens_out, u.priced_calls) == (1200, 120, 12)
    assert u.cost_usd == pytest.approx(0.12)


def test_usage_unpriced_and_cached():
    recs = [*_joint("e1", "AB"), *_joint("e1", "BA", cost=None),
            *_joint("e2", "AB", cached=True, latency=0.0)]
    u = summarize_usage(recs, joint=True)
    # issue 29: the cached call counts with its recorded figures (told apart); one answered call without a
    # price -> total unknown
    assert u.cost_usd is None and u.cost_per_100_calls is None
    assert (u.priced_calls, u.unpriced_calls) == (2, 1)
    assert u.tokens_in == 300 and u.cached_calls == 1
    assert u.latency_p50_s == 1.0


def test_usage_failed_call_without_price_keeps_cost():
    recs = [rec("e1", "AB", "A", "A", cost_usd=0.02, tokens_in=5, tokens_out=5),
            rec("e1", "BA", None, "A", status="FAILED")]
    u = summarize_usage(recs, joint=False)
    # the failed call got no reply, so it costs nothing: total stays $0.02
    assert u.cost_usd == pytest.approx(0.02) and u.unpriced_calls == 0
    assert u.tokens_per_call == 10.0  # only the call with tokens counts


def test_usage_rerun_duplicate_last_wins():
    # a failed call later re-run and answered: the samples file holds both lines
    recs = [rec("e1", "AB", None, "A", status="FAILED"),
            rec("e1", "AB", "A", "A", tokens_in=7, tokens_out=3, cost_usd=0.5)]
    u = summarize_usage(recs, joint=False)
    assert (u.tokens_in, u.tokens_out, u.cost_usd, u.priced_calls) == (7, 3, 0.5, 1)


def test_score_records_matches_score_dimension_and_mean_has_ci():
    recs = _random_run(120, seed=3, dims=("x", "y", "z"))
    metrics, _ = score_records(recs, n_resamples=300, seed=5)
    assert metrics["y"] == score_dimension(recs, "y", n_resamples=300, seed=5)
    mean = metrics["mean"]
    # every example has all three dimensions, so the per-example mean over
    # dimensions averages to the mean of the three dimension accuracies
    dims = [metrics[d]["soft_accuracy"].value for d in ("x", "y", "z")]
    assert mean["soft_accuracy"].value == pytest.approx(sum(dims) / 3)
    for name in ("soft_accuracy", "accuracy", "order_consistency"):
        assert mean[name].ci_low <= mean[name].value <= mean[name].ci_high
    assert mean["accuracy"].n == 120


def test_latency_percentiles_leave_out_calls_a_stop_left_unanswered():
    """Answered calls at 0.5 s and 1.5 s, one failed after 3 s (its time counts), and two a stop left unanswered
    (never sent; in flight, not waited for: latency 0 recorded): the median is 1.5 s of 0.5, 1.5, 3, not 0.5 of
    0, 0, 0.5, 1.5, 3 (a stopped run's median had been pulled down by its never-answered calls)."""
    from judgebench.core.records import IN_FLIGHT, NOT_ATTEMPTED

    recs = [rec("e1", "AB", "A", "A", latency_s=0.5), rec("e1", "BA", "A", "A", latency_s=1.5),
            rec("e2", "AB", None, "A", status="FAILED", error="HTTP 500", failure="error", latency_s=3.0),
            rec("e2", "BA", None, "A", status="FAILED", error=NOT_ATTEMPTED.format(reason="interrupted"),
                failure="not_attempted", attempts=0),
            rec("e3", "AB", None, "A", status="FAILED", error=IN_FLIGHT, failure="in_flight")]
    u = summarize_usage(recs, joint=False)
    assert u.latency_p50_s == 1.5
    assert u.latency_p95_s == pytest.approx(1.5 + 0.9 * 1.5)  # 0.5, 1.5, 3: the 95th at 1.9 of 2 steps
