"""The human ceiling (ceiling.py): hand-computed values on a small table, kappa against scikit-learn,
alpha against the krippendorff package, the leave-one-out figure against a plain loop written here."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from judgebench.core.records import JudgmentRecord
from judgebench.stats.agreement import cohen_kappa
from judgebench.scoring.ceiling import (
    LINEAR,
    NOMINAL,
    Pair,
    alpha,
    annotator_pairs,
    human_ceiling,
    judge_versus_annotators,
    kappa_from_confusion,
    pairs_of,
    score_votes,
    value_counts,
)

CODE = {"A": 0, "TIE": 1, "B": 2}

# The small table of the hand computations below (x, y, z annotators; x voted P4 twice).
VOTES = {
    "P1": {"x": ["A"], "y": ["A"], "z": ["A"]},
    "P2": {"x": ["A"], "y": ["A"], "z": ["B"]},
    "P3": {"x": ["A"], "y": ["B"], "z": ["TIE"]},
    "P4": {"x": ["B", "A"], "y": ["B"]},
}
LABELS = {"P1": "A", "P2": "A", "P3": "TIE", "P4": "B"}  # majority of all votes (P3: a three-way split)
VERDICTS = {"P1": ("A", "A"), "P2": ("B", "A"), "P3": (None, "TIE"), "P4": ("B", "B")}  # (AB, BA)


def _records(votes=VOTES, labels=LABELS, verdicts=VERDICTS, dimension="overall") -> list[JudgmentRecord]:
    out = []
    for pair, by_annotator in votes.items():
        for order, verdict in zip(("AB", "BA"), verdicts[pair]):
            out.append(JudgmentRecord(
                task="t", example_id=pair, dimension=dimension, order=order, judge="j", prompt_hash="h",
                status="ANSWERED" if verdict else "INVALID", verdict=verdict, label=labels[pair],
                length_a=1, length_b=1, votes=by_annotator,
            ))
    return out


def test_hand_computed_ceiling_on_a_small_table():
    figures = human_ceiling(pairs_of(_records(), "overall"), n_resamples=0)
    value = {name: v.value for name, v in figures.items()}
    # Leave one out (the rest's label by the majority rule; a held-out unit whose rest is split has no
    # reference and is left out): P1 1 (three units); P2 x: rest {A,B} split, y: split, z: B vs A 0 -> 0;
    # P3 every rest is split -> no unit, the pair is left out; P4 (two annotators, first votes B, B) 1.
    # Mean over the 3 pairs (1 + 0 + 1) / 3 = 2/3 (before, a split rest was a TIE: 7/12, charging x and y on
    # P2 for a tie nobody voted).
    assert value["loo_accuracy"] == pytest.approx(2 / 3)
    # Soft: P1 1; P2 z: B vs A 0; P4 1 -> 2/3.
    assert value["loo_soft_accuracy"] == pytest.approx(2 / 3)
    assert figures["loo_accuracy"].n == 3
    # Pairwise: P1 1; P2 (1 + 0 + 0) / 3; P3 0; P4 1 -> 7/12. Soft: P3 (0 + 0.5 + 0.5) / 3 -> (1 + 1/3 + 1/3 + 1) / 4 = 2/3.
    assert value["accuracy_vs_annotators"] == pytest.approx(7 / 12)
    assert value["soft_accuracy_vs_annotators"] == pytest.approx(2 / 3)
    # Kappa x-y over P1-P4: x AAAB, y AABB: po 3/4, pe 3/4*1/2 + 1/4*1/2 = 1/2 -> 0.5. x-z (P1-P3): x all A,
    # po 1/3 = pe -> 0. y-z: y AAB, z A B TIE: po 1/3, pe 2/3*1/3 + 1/3*1/3 = 1/3 -> 0.
    # Mean weighted by shared pairs: (4 * 0.5 + 3 * 0 + 3 * 0) / 10 = 0.2.
    assert value["annotator_kappa"] == pytest.approx(0.2)
    # Linear weights (A-TIE 0.5, A-B 1): x-y observed 1/4, expected 0.75*0.5 + 0.25*0.5 = 1/2 -> 0.5;
    # x-z observed (1 + 0.5) / 3 = 0.5, expected 1/3 + 1/3*0.5 = 0.5 -> 0; y-z observed 0.5, expected
    # 2/3*(1/3 + 1/6) + 1/3*(1/3 + 1/6) = 0.5 -> 0. Mean (4 * 0.5) / 10 = 0.2.
    assert value["annotator_weighted_kappa"] == pytest.approx(0.2)
    # Alpha, ordinal: coincidences o_AA 4, o_AT 0.5, o_AB 1.5, o_TB 0.5, o_BB 2; n_A 6, n_T 1, n_B 4, n 11;
    # delta^2 AT 3.5^2, TB 2.5^2, AB 6^2; D_o = 2(0.5*12.25 + 1.5*36 + 0.5*6.25) = 126.5,
    # D_e = 2(6*12.25 + 24*36 + 4*6.25) = 1925; alpha = 1 - 10 * 126.5 / 1925 = 12/35.
    assert value["annotator_alpha"] == pytest.approx(12 / 35)
    # Self-consistency: only x on P4, B then A: exact 0, soft 0, over one repeat.
    assert value["self_consistency"] == 0.0 and figures["self_consistency"].n == 1
    assert figures["annotator_kappa"].n == 10


def test_judge_against_each_annotator_and_the_majority_hand_computed():
    figures = judge_versus_annotators(pairs_of(_records(), "overall"), ["AB", "BA"], n_resamples=0)
    # Against each annotator, per order then mean of orders: P1 1; P2 AB B vs {A,A,B} 1/3, BA A 2/3 -> 1/2;
    # P3 AB invalid 0, BA TIE vs {A,B,TIE} 1/3 -> 1/6; P4 1. Mean (1 + 1/2 + 1/6 + 1) / 4 = 2/3.
    assert figures["accuracy_vs_annotators"].value == pytest.approx(2 / 3)
    # Soft: P3 BA TIE: (0.5 + 0.5 + 1) / 3 = 2/3 -> 1/3 for the pair; (1 + 1/2 + 1/3 + 1) / 4 = 17/24.
    assert figures["soft_accuracy_vs_annotators"].value == pytest.approx(17 / 24)
    # Against the pair label: P1 1, P2 (0 + 1) / 2, P3 (0 + 1) / 2, P4 1 -> 3/4 (soft the same).
    assert figures["accuracy_vs_majority"].value == pytest.approx(3 / 4)
    assert figures["soft_accuracy_vs_majority"].value == pytest.approx(3 / 4)
    # On the human row's reference (leave one out: the same held-out units and references as the annotators):
    # P1 refs A, A, A: 1 in both orders; P2 only z's unit, ref A: AB B 0, BA A 1 -> 1/2; P3 no unit (left out);
    # P4 refs B, B: 1. Mean over the 3 pairs (1 + 1/2 + 1) / 3 = 5/6; soft the same (B vs A is 0 soft too).
    assert figures["loo_accuracy"].value == pytest.approx(5 / 6) and figures["loo_accuracy"].n == 3
    assert figures["loo_soft_accuracy"].value == pytest.approx(5 / 6)


def test_both_bad_votes_follow_the_runs_rule():
    votes = {"P1": {"x": ["BOTH_BAD"], "y": ["TIE"]}, "P2": {"x": ["A"], "y": ["BOTH_BAD"], "z": ["A"]},
             "P3": {"x": ["BOTH_BAD"], "y": ["BOTH_BAD"]}}
    labels = {"P1": "TIE", "P2": "A", "P3": "BOTH_BAD"}
    records = _records(votes, labels, {p: ("A", "A") for p in votes})
    tie = {p.example_id: p.votes for p in pairs_of(records, "overall", "tie")}
    assert tie["P1"] == {"x": ["TIE"], "y": ["TIE"]} and len(tie) == 3
    exclude = {p.example_id: p.votes for p in pairs_of(records, "overall", "exclude")}
    assert set(exclude) == {"P1", "P2"}  # a Both Bad pair is left out, as for the judge
    assert exclude["P2"] == {"x": ["A"], "z": ["A"]} and exclude["P1"] == {"y": ["TIE"]}


def _random_pairs(seed: int, n: int = 80, pool: int = 5, per_pair: int = 3) -> list[Pair]:
    rng = np.random.default_rng(seed)
    pairs = []
    for i in range(n):
        truth = rng.choice(["A", "B", "TIE"], p=[0.45, 0.45, 0.1])
        annotators = rng.choice([f"a{k}" for k in range(pool)], size=per_pair, replace=False)
        votes = {str(a): [truth if rng.random() < 0.7 else str(rng.choice(["A", "B", "TIE"]))] for a in annotators}
        pairs.append(Pair(f"p{i}", votes, "A", {"AB": "A"}))
    return pairs


def test_kappa_and_weighted_kappa_equal_scikit_learn_for_every_annotator_pair():
    pairs = _random_pairs(1)
    names, contributions = annotator_pairs(pairs)
    confusions = np.asarray(contributions.sum(axis=0)).reshape(-1, 3, 3)
    for (a, b), confusion in zip(names, confusions):
        shared = [(p.votes[a][0], p.votes[b][0]) for p in pairs if a in p.votes and b in p.votes]
        x = [CODE[u] for u, _ in shared]
        y = [CODE[v] for _, v in shared]
        assert kappa_from_confusion(confusion, NOMINAL) == pytest.approx(cohen_kappa_score(x, y, labels=[0, 1, 2]))
        assert kappa_from_confusion(confusion, NOMINAL) == pytest.approx(cohen_kappa(x, y))  # the judge metric's
        assert kappa_from_confusion(confusion, LINEAR) == pytest.approx(
            cohen_kappa_score(x, y, labels=[0, 1, 2], weights="linear"))
    # The reported figure: sklearn's per annotator pair, averaged weighted by the shared pairs.
    expected_num = expected_den = 0.0
    for a, b in combinations(sorted({a for p in pairs for a in p.votes}), 2):
        shared = [(CODE[p.votes[a][0]], CODE[p.votes[b][0]]) for p in pairs if a in p.votes and b in p.votes]
        if len(shared) >= 2:
            x, y = zip(*shared)
            expected_num += len(shared) * cohen_kappa_score(x, y, labels=[0, 1, 2], weights="linear")
            expected_den += len(shared)
    figures = human_ceiling(pairs, n_resamples=0)
    assert figures["annotator_weighted_kappa"].value == pytest.approx(expected_num / expected_den)


def test_alpha_equals_the_krippendorff_package_on_the_reliability_matrix():
    pairs = _random_pairs(2)
    annotators = sorted({a for p in pairs for a in p.votes})
    matrix = np.full((len(annotators), len(pairs)), np.nan)
    for j, pair in enumerate(pairs):
        for a, labels in pair.votes.items():
            matrix[annotators.index(a), j] = CODE[labels[0]]
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal", value_domain=[0, 1, 2])
    assert alpha(value_counts(pairs)) == pytest.approx(expected)
    assert human_ceiling(pairs, n_resamples=0)["annotator_alpha"].value == pytest.approx(expected)


def _plain_leave_one_out(votes_per_pair: list[dict[str, str]]) -> tuple[float, float]:
    """An independent leave-one-annotator-out loop: the rest's majority; a held-out unit whose rest has a
    shared top count (a split) has no reference and is skipped, and so is a pair left with no unit."""
    code = {"A": 0, "TIE": 1, "B": 2}
    exact_pairs, soft_pairs = [], []
    for votes in votes_per_pair:
        if len(votes) < 2:
            continue
        exact, soft = [], []
        for held_out, vote in votes.items():
            counts = Counter(v for a, v in votes.items() if a != held_out)
            top = max(counts.values())
            leaders = [label for label, count in counts.items() if count == top]
            if len(leaders) > 1:
                continue
            rest = leaders[0]
            exact.append(1.0 if vote == rest else 0.0)
            soft.append(1.0 - abs(code[vote] - code[rest]) / 2)
        if exact:
            exact_pairs.append(sum(exact) / len(exact))
            soft_pairs.append(sum(soft) / len(soft))
    return sum(exact_pairs) / len(exact_pairs), sum(soft_pairs) / len(soft_pairs)


def test_leave_one_out_equals_a_plain_loop():
    pairs = _random_pairs(3, n=120, pool=6, per_pair=4)
    exact, soft = _plain_leave_one_out([{a: v[0] for a, v in p.votes.items()} for p in pairs])
    figures = human_ceiling(pairs, n_resamples=0)
    assert figures["loo_accuracy"].value == pytest.approx(exact)
    assert figures["loo_soft_accuracy"].value == pytest.approx(soft)


def test_intervals_resample_pairs_and_are_seeded():
    pairs = _random_pairs(4)
    first = human_ceiling(pairs, n_resamples=200, seed=7)
    again = human_ceiling(pairs, n_resamples=200, seed=7)
    assert first == again
    for name in ("loo_accuracy", "annotator_weighted_kappa", "annotator_alpha"):
        value = first[name]
        assert value.ci_low is not None and value.ci_low <= value.value <= value.ci_high
        assert value.ci_high - value.ci_low > 0.01
    # A naive bootstrap of the leave-one-out figure over pairs, same seeded draws (resampling.py, batch 100).
    from judgebench.stats.resampling import percentile_interval, resample_batches

    def one(pair):  # None: the pair has no held-out unit with a reference (it weighs 0)
        try:
            return _plain_leave_one_out([{a: v[0] for a, v in pair.votes.items()}])[0]
        except ZeroDivisionError:
            return None

    per_pair = [one(p) for p in pairs]
    means = [np.mean([per_pair[i] for i in row if per_pair[i] is not None])
             for batch in resample_batches(len(pairs), 200, 7, 100) for row in batch]
    low, high = percentile_interval(np.array(means))
    assert (first["loo_accuracy"].ci_low, first["loo_accuracy"].ci_high) == pytest.approx((low, high))


def test_one_label_records_have_no_human_figures():
    records = [r.model_copy(update={"votes": None}) for r in _records()]
    assert score_votes(records, ["overall"]) is None


def test_the_resamples_alpha_formula_equals_the_package_on_weighted_pairs():
    """Intervals use alpha from the resample's coincidence matrix; it must be the package's figure."""
    from judgebench.stats.agreement import alpha_from_coincidences, coincidences

    pairs = _random_pairs(5, n=60)
    counts = value_counts(pairs)
    rng = np.random.default_rng(0)
    for _ in range(5):
        w = np.bincount(rng.integers(0, len(pairs), len(pairs)), minlength=len(pairs))
        expected = krippendorff.alpha(value_counts=np.repeat(counts, w, axis=0), value_domain=[0, 1, 2],
                                      level_of_measurement="ordinal")
        assert alpha_from_coincidences(w @ coincidences(counts)) == pytest.approx(expected)


def test_per_annotator_agreement_hand_computed():
    from judgebench.scoring.ceiling import annotator_agreement

    rows = {a.annotator: a for a in annotator_agreement(pairs_of(_records(), "overall"), ["AB", "BA"])}
    # x voted P1-P4. Against the others: P1 A vs {A,A} 1; P2 and P3 rests split (no reference); P4 B vs {B} 1
    # -> 2/2. The judge against x (mean of AB, BA): P1 1; P2 (B vs A 0 + A vs A 1) / 2; P3 (missing 0 + TIE vs A 0)
    # / 2 = 0; P4 1 -> 2.5 / 4; soft P3 (0 + 0.5) / 2 -> 2.75 / 4.
    x = rows["x"]
    assert (x.pairs, x.loo_accuracy, x.judge_accuracy, x.judge_soft_accuracy) == (4, 1.0, 0.625, 0.6875)
    # y: the same shape (P3 y = B: TIE vs B soft 0.5 in BA).
    assert (rows["y"].loo_accuracy, rows["y"].judge_accuracy, rows["y"].judge_soft_accuracy) == (1.0, 0.625, 0.6875)
    # z voted P1-P3: against the others P1 A vs A 1, P2 B vs {A,A} 0, P3 split -> 1/2; the judge against z:
    # P1 1, P2 (B vs B 1 + A vs B 0) / 2, P3 (0 + TIE vs TIE 1) / 2 -> 2/3 (soft the same).
    z = rows["z"]
    assert z.pairs == 3 and z.loo_accuracy == 0.5 and z.loo_soft_accuracy == 0.5
    assert z.judge_accuracy == pytest.approx(2 / 3) and z.judge_soft_accuracy == pytest.approx(2 / 3)
