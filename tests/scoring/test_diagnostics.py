"""Judge diagnostics: order, length and citation effects, system-level agreement."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from judgebench.core.errors import NumericError
from judgebench.core.records import JudgmentRecord, swap_verdict
from judgebench.scoring.diagnostics import (
    diagnose,
    leaderboard_columns,
    leaderboard_diagnostics,
)
from judgebench.stats.ratings import fit_bt


def record(example_id: str, order: str, verdict: str | None, label: str, length_a: int,
           length_b: int, *, model_a: str | None = None, model_b: str | None = None,
           citations: tuple[int, int] | None = None, dimension: str = "overall",
           judge: str = "j", slices: dict[str, str] | None = None) -> JudgmentRecord:
    """One judgment; `verdict` is in dataset positions, the shown verdict is derived."""
    shown = verdict if order == "AB" else swap_verdict(verdict)
    return JudgmentRecord(
        task="t", example_id=example_id, dimension=dimension, order=order, judge=judge,
        prompt_hash="h", status="ANSWERED" if verdict else "INVALID", verdict=verdict,
        verdict_shown=shown, label=label, model_a=model_a, model_b=model_b,
        length_a=length_a, length_b=length_b,
        citations_a=citations[0] if citations else None,
        citations_b=citations[1] if citations else None, slices=slices or {},
    )


def both_orders(example_id: str, verdict_ab: str | None, verdict_ba: str | None, label: str,
                length_a: int, length_b: int, **kw) -> list[JudgmentRecord]:
    return [record(example_id, "AB", verdict_ab, label, length_a, length_b, **kw),
            record(example_id, "BA", verdict_ba, label, length_a, length_b, **kw)]


def arena(n: int, seed: int, policy: str, orders: tuple[str, ...] = ("AB", "BA"),
          n_models: int = 6) -> list[JudgmentRecord]:
    """Random battles between named models with human labels from a BT model (+ length).

    policy: "longer" (always the longer response), "first" (always the first shown),
    "oracle" (the human label), "anti" (the opposite of the human label),
    "cited" (the response with more citations).
    """
    rng = np.random.default_rng(seed)
    strength = np.linspace(-1.5, 1.5, n_models)
    out = []
    for i in range(n):
        a, b = rng.choice(n_models, 2, replace=False)
        la, lb = (int(v) for v in rng.integers(100, 3000, 2))
        ca, cb = (int(v) for v in rng.integers(0, 8, 2))
        p = 1 / (1 + math.exp(-(strength[a] - strength[b] + 0.3 * math.log(la / lb))))
        label = "TIE" if rng.random() < 0.1 else "A" if rng.random() < p else "B"
        for order in orders:
            if policy == "first":
                verdict = "A" if order == "AB" else "B"
            elif policy == "longer":
                verdict = "A" if la > lb else "B"
            elif policy == "cited":
                verdict = "A" if ca > cb else "B" if cb > ca else "TIE"
            elif policy == "oracle":
                verdict = label
            else:
                verdict = swap_verdict(label)
            out.append(record(f"e{i}", order, verdict, label, la, lb, model_a=f"m{a}",
                              model_b=f"m{b}", citations=(ca, cb)))
    return out


def dim(diag: dict, name: str = "overall") -> dict:
    return diag["dimensions"][name]


# ---------------------------------------------------------------- checks from the issue


def test_always_longer_judge_prefers_longer_every_time_and_its_beta_is_separable():
    diag = diagnose(arena(300, 0, "longer"), n_resamples=100)
    length = dim(diag)["length"]
    judge = length["preferred_larger"]["judge"]
    assert judge["value"] == 1.0 and judge["n"] == 600  # every decisive verdict, both orders
    assert judge["ci_low"] == judge["ci_high"] == 1.0
    assert length["preferred_larger_gap"]["judge"]["value"] == 1.0
    assert length["beta"]["judge"]["value"] > 10  # separated: huge, bounded by the L2 term
    assert length["beta"]["judge"]["separable"] == "+inf (separable)"  # shown as such, not as that number
    assert length["beta"]["excess"]["separable"] == "+inf (separable)"
    assert "separable" not in length["beta"]["human"]  # the human labels are not separated by length
    assert length["beta"]["excess"]["ci_low"] > 0
    assert any("separated" in note for note in length["beta"]["notes"])
    columns = leaderboard_columns(diag)
    assert columns["longer_preferred_rate"] == 100.0 and columns["length_beta"] == "+inf (separable)"
    # the leaderboard's cheaper path (what `score` stores) says the same
    assert leaderboard_diagnostics(arena(300, 0, "longer"))["length_beta"] == "+inf (separable)"


def test_always_first_shown_has_position_bias_one_over_both_orders():
    # "A" in shown positions every time: the first-shown response wins every decisive
    # verdict, so position bias is 1.0 over both orders; mapped back, every example flips.
    diag = diagnose(arena(200, 1, "first"), n_resamples=100)
    order = dim(diag)["order"]
    assert order["position_bias"]["value"] == 1.0 and order["position_bias"]["n"] == 400
    assert order["order_consistency"]["value"] == 0.0
    assert order["flip_rate"]["value"] == 1.0
    assert len(order["flips"]) == 200 and {f["kind"] for f in order["flips"]} == {"reversal"}
    assert leaderboard_columns(diag)["position_bias"] == 100.0


def test_always_first_shown_in_one_order_only():
    diag = diagnose(arena(100, 2, "first", orders=("AB",)), n_resamples=50)
    order = dim(diag)["order"]
    assert order["position_bias"]["value"] == 1.0 and order["position_bias"]["n"] == 100
    assert order["order_consistency"] is None and "both orders" in order["skipped"]


# ---------------------------------------------------------------- hand-computed


def hand_records() -> list[JudgmentRecord]:
    return [
        *both_orders("e1", "B", "B", "A", 100, 200),  # consistent; B is longer
        *both_orders("e2", "A", "B", "B", 300, 100),  # reversal
        *both_orders("e3", "TIE", "A", "TIE", 100, 100),  # tie change; equal lengths
        *both_orders("e4", "A", "A", "B", 50, 500),  # consistent; picks the shorter
    ]


def test_hand_computed_order_effects():
    order = dim(diagnose(hand_records(), n_resamples=50))["order"]
    # Shown verdicts: e1 B,A  e2 A,A  e3 TIE,B  e4 A,B -> 7 decisive, 4 first-shown.
    assert order["position_bias"]["value"] == pytest.approx(4 / 7)
    assert order["position_bias"]["n"] == 7
    assert order["order_consistency"]["value"] == 0.5  # e1, e4 of 4
    assert order["flip_rate"]["value"] == 0.25  # e2
    assert [(f["example_id"], f["kind"]) for f in order["flips"]] == [
        ("e2", "reversal"), ("e3", "tie_change")]
    assert order["label_a_share"]["value"] == pytest.approx(1 / 3)  # A of A, B, B


def test_hand_computed_length_effects():
    d = dim(diagnose(hand_records(), n_resamples=50))
    length = d["length"]["preferred_larger"]
    # Unequal lengths: e1 (B,B; longer B: 2), e2 (A,B; longer A: 1), e4 (A,A; longer B: 0).
    assert length["judge"]["value"] == 0.5 and length["judge"]["n"] == 6
    # Human: e1 A (shorter), e2 B (shorter), e4 B (longer) -> 1 of 3.
    assert length["human"]["value"] == pytest.approx(1 / 3) and length["human"]["n"] == 3
    assert d["length"]["preferred_larger_gap"]["judge"]["value"] == 0.5  # all ratios >= 2
    # Soft accuracy per example: e1 0, e2 (0 + 1)/2, e3 (1 + 0.5)/2, e4 0 -> 1.25 / 4.
    assert d["accuracy"]["soft_accuracy"]["value"] == pytest.approx(0.3125)
    buckets = {b["bucket"]: b["n_examples"] for b in d["length"]["by_bucket"]}
    assert buckets["1-1.1x"] == 1 and buckets["≥2x"] == 3


def test_missing_model_names_and_citations_are_skipped_with_reasons():
    d = dim(diagnose(hand_records(), n_resamples=50))
    assert "model names missing" in d["length"]["comparable"]["skipped"]
    assert "at least 3 named models" in d["system"]["skipped"]
    assert "no citation counts" in d["citations"]["skipped"]
    assert d["length"]["beta"]["model_terms"] is False
    assert leaderboard_columns(diagnose(hand_records(), n_resamples=50))["spearman_to_human"] \
        is None


def test_one_example_gives_figures_without_intervals():
    """An outside audit: a one-pair run's report printed `100.0% [100.0, 100.0] (n=1)` for the human labels' A share
    and `[50.0, 50.0]` for position bias: a bootstrap of one example has no spread to show."""
    def intervals(node):
        if isinstance(node, dict):
            found = [node["ci_low"]] if node.get("ci_low") is not None else []
            return found + [x for v in node.values() for x in intervals(v)]
        return [x for v in node for x in intervals(v)] if isinstance(node, list) else []

    assert intervals(dim(diagnose(arena(1, 0, "first"), n_resamples=50))) == []
    assert intervals(dim(diagnose(arena(2, 0, "first"), n_resamples=50)))  # (two examples: intervals)

    def of_one(node, path=""):  # an attack on the mend: slices, length buckets and curve bins of one example kept theirs
        if isinstance(node, dict):
            found = [path] if node.get("ci_low") is not None and node.get("n") == 1 else []
            return found + [p for k, v in node.items() for p in of_one(v, f"{path}.{k}")]
        return [p for i, v in enumerate(node) for p in of_one(v, f"{path}[{i}]")] if isinstance(node, list) else []

    some = dim(diagnose(arena(12, 1, "longer"), n_resamples=50))
    assert of_one(some) == [] and intervals(some)


def test_models_no_battle_connects_get_no_rank_correlation():
    """An outside audit: m0-m1 battles and m2-m3 battles (no battle between the two pairs) reported a Spearman of
    0.949 against the human ratings and a top-3 overlap, though only the regularisation relates the two groups."""
    split = [r.model_copy(update={"model_a": m_a, "model_b": m_b}) for r in arena(200, 3, "oracle", n_models=4)
             for m_a, m_b in [("m0", "m1") if int(r.example_id[1:]) % 2 else ("m2", "m3")]]
    system = dim(diagnose(split, n_resamples=50))["system"]
    assert "2 groups of models that no battle connects (2, 2 models)" in system["skipped"]
    assert leaderboard_columns(diagnose(split, n_resamples=50))["spearman_to_human"] is None
    joined = dim(diagnose(arena(200, 3, "oracle", n_models=4), n_resamples=50))["system"]
    assert "skipped" not in joined and joined["spearman"]["value"] is not None


def test_comparable_strength_battles_use_human_ratings():
    # x and y split their 20 battles 10-10 (0 Elo apart); z beats each 18-2 (~382 Elo
    # above), so only the x-y battles are comparable. There the human winner is the
    # longer response in 15 of 20; the judge always picks the longer one.
    recs = []
    for i in range(20):
        label = "A" if i % 2 == 0 else "B"
        winner_longer = i < 15
        a_longer = (label == "A") == winner_longer
        la, lb = (400, 200) if a_longer else (200, 400)
        verdict = "A" if a_longer else "B"
        recs += both_orders(f"xy{i}", verdict, verdict, label, la, lb, model_a="x",
                            model_b="y")
    for i in range(40):
        label = "A" if i % 20 < 18 else "B"
        recs += both_orders(f"z{i}", "B", "B", label, 100 + i, 500, model_a="z",
                            model_b="x" if i < 20 else "y")
    human = fit_bt(([r.model_a for r in recs[::2]], [r.model_b for r in recs[::2]],
                    [{"A": 1.0, "B": 0.0}[r.label] for r in recs[::2]]))
    assert abs(human.rating("x") - human.rating("y")) < 1e-6
    assert human.rating("z") - human.rating("x") == pytest.approx(400 * math.log10(9), abs=0.5)
    comparable = dim(diagnose(recs, n_resamples=50))["length"]["comparable"]
    assert comparable["n_examples"] == 20
    assert comparable["human"]["value"] == 0.75 and comparable["human"]["n"] == 20
    assert comparable["judge"]["value"] == 1.0 and comparable["judge"]["n"] == 40


# ---------------------------------------------------------------- system-level agreement


def test_oracle_judge_reproduces_the_human_ranking():
    d = dim(diagnose(arena(400, 3, "oracle"), n_resamples=100))
    assert d["length"]["beta"]["notes"] == []  # a finite estimate: no separation note
    assert d["length"]["beta"]["excess"]["value"] == pytest.approx(0.0, abs=1e-6)
    system = d["system"]
    assert system["spearman"]["value"] == pytest.approx(1.0)
    assert system["spearman"]["ci_low"] == pytest.approx(1.0)
    assert system["kendall"]["value"] == pytest.approx(1.0)
    assert system["top_k"] == {"k": 5, "overlap": 1.0}
    assert system["separability"]["judge"] == system["separability"]["human"]
    for row in system["ratings"]:
        assert row["judge"]["value"] == pytest.approx(row["human"]["value"], abs=1e-6)


def test_anti_judge_reverses_the_ranking():
    system = dim(diagnose(arena(400, 4, "anti"), n_resamples=50))["system"]
    assert system["spearman"]["value"] == pytest.approx(-1.0)
    assert system["kendall"]["value"] == pytest.approx(-1.0)


def test_rank_correlations_match_scipy_on_independent_fits():
    recs = arena(300, 5, "longer")
    system = dim(diagnose(recs, n_resamples=50))["system"]
    ab = {r.example_id: r for r in recs if r.order == "AB"}
    a = [r.model_a for r in ab.values()]
    b = [r.model_b for r in ab.values()]
    score = {"A": 1.0, "TIE": 0.5, "B": 0.0}
    human = fit_bt((a, b, [score[r.label] for r in ab.values()]))
    judge = fit_bt((a, b, [score[r.verdict] for r in ab.values()]))  # same in both orders
    assert system["spearman"]["value"] == pytest.approx(
        stats.spearmanr(human.ratings, judge.ratings).statistic)
    assert system["kendall"]["value"] == pytest.approx(
        stats.kendalltau(human.ratings, judge.ratings).statistic)
    lo, hi = system["spearman"]["ci_low"], system["spearman"]["ci_high"]
    assert lo <= system["spearman"]["value"] <= hi


@pytest.mark.slow
def test_separability_counts_non_overlapping_intervals():
    system = dim(diagnose(arena(2000, 6, "oracle", n_models=4), n_resamples=200))["system"]
    rows = system["ratings"]
    apart = sum(
        r["human"]["ci_high"] < s["human"]["ci_low"] or s["human"]["ci_high"] < r["human"]["ci_low"]
        for i, r in enumerate(rows) for s in rows[i + 1:]
    )
    assert system["separability"]["human"] == apart / 6


# ---------------------------------------------------------------- citations, ties, output


def test_citation_effects_for_a_judge_that_follows_citations():
    d = dim(diagnose(arena(300, 7, "cited"), n_resamples=50))["citations"]
    assert d["feature"] == "citation_difference"
    assert d["preferred_larger"]["judge"]["value"] == 1.0
    assert d["beta"]["judge"]["value"] > 1.0
    assert sum(b["n_examples"] for b in d["by_bucket"]) == 300


def test_both_bad_as_tie_or_excluded():
    recs = hand_records() + both_orders("e5", "A", "A", "BOTH_BAD", 300, 100)
    tie = dim(diagnose(recs, n_resamples=20))
    excluded = dim(diagnose(recs, both_bad="exclude", n_resamples=20))
    assert tie["n_examples"] == 5 and excluded["n_examples"] == 4
    # As a tie, Both Bad is not a decisive human label: the human rate is unchanged.
    assert tie["length"]["preferred_larger"]["human"]["n"] == 3
    assert tie["length"]["preferred_larger"]["judge"]["n"] == 8  # e5 adds 2 decisive verdicts


def test_unanswered_judgments_are_not_verdicts():
    recs = both_orders("e1", "A", None, "A", 200, 100) + both_orders("e2", None, None, "B", 100,
                                                                      300)
    d = dim(diagnose(recs, n_resamples=20))
    assert d["n_judged_examples"] == 1
    assert d["order"]["position_bias"]["n"] == 1
    assert d["order"]["order_consistency"]["n"] == 0
    assert d["length"]["preferred_larger"]["judge"]["n"] == 1


def test_per_slice_accuracy_and_dimensions():
    recs = [r for i in range(2) for r in both_orders(
        f"e{i}", "A", "A", "A" if i == 0 else "B", 10, 20, slices={"subject": f"s{i}"})]
    recs += both_orders("e0", "B", "B", "B", 10, 20, dimension="novelty")
    diag = diagnose(recs, n_resamples=20)
    assert set(diag["dimensions"]) == {"overall", "novelty"}
    by_slice = dim(diag)["accuracy"]["by_slice"]["subject"]
    assert by_slice["s0"]["accuracy"]["value"] == 1.0 and by_slice["s1"]["accuracy"]["value"] == 0.0
    assert leaderboard_columns(diag, "novelty")["position_bias"] == 50.0


def test_output_is_json_serialisable_and_seeded():
    recs = arena(150, 8, "oracle")
    one = diagnose(recs, n_resamples=50, seed=1)
    assert json.loads(json.dumps(one, allow_nan=False)) == one
    assert diagnose(recs, n_resamples=50, seed=1) == one
    assert set(dim(one)) >= {"accuracy", "order", "length", "citations", "system", "confusion"}
    assert dim(one)["confusion"]["A"]["A"] > 0


def test_several_judges_are_refused():
    recs = both_orders("e1", "A", "A", "A", 1, 2) + both_orders("e2", "A", "A", "A", 1, 2,
                                                                 judge="other")
    with pytest.raises(NumericError, match="several judges"):
        diagnose(recs)



def test_a_judge_whose_verdicts_leave_a_model_unbeaten_is_named():
    """Four models; the judge always prefers m0 (its verdicts: m0 won all 20 battles it fought, the others split
    theirs), the humans' labels have upsets everywhere: the judge's ratings put m0 at the regularisation's distance
    and its intervals with it. `system.unbeaten.judge` names the order, best first; the humans have none (no key)."""
    rng = np.random.default_rng(5)
    records, i = [], 0
    for a, b in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)] * 10:
        label = "A" if (i // 6) % 2 else "B"  # every pair won both ways by the humans, round after round
        judged = "A" if a == 0 else ("A" if rng.random() < 0.5 else "B")
        records += both_orders(f"e{i}", judged, judged, label, 100, 100, model_a=f"m{a}", model_b=f"m{b}")
        i += 1
    system = dim(diagnose(records, n_resamples=20))["system"]
    assert system["unbeaten"] == {"judge": [[["m0"], ["m1", "m2", "m3"]]]}
    oracle = dim(diagnose(arena(400, 3, "oracle"), n_resamples=20))["system"]
    assert "unbeaten" not in oracle
