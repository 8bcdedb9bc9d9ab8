"""The human ceiling: how well annotators agree with each other, on the pairs a judge is scored on.

Pure functions over JudgmentRecords whose `votes` carry the pair's annotator-level votes (tasks with a
`votes:` mapping). Definitions (docs/guide/human-votes.md has them with examples):

- Votes are coded A 0, TIE 1, B 2. Both Bad: under the run's rule "tie" a Both Bad vote is a TIE; under
  "exclude" pairs whose label is Both Bad are left out (as for the judge) and so are Both Bad votes.
- An annotator's vote on a pair is their first vote on it (data order); later votes by the same
  annotator on the same pair only enter self-consistency.
- Only pairs with two or more annotators enter the ceiling; each such pair weighs 1.
- loo_accuracy / loo_soft_accuracy (leave one annotator out), one reference for humans and judges: for each
  held-out annotator of a pair, the label of the OTHER annotators' votes (votes.MAJORITY_RULE); the held-out
  annotator's vote and the judge's verdict (averaged over the orders run, a missing verdict scoring 0) are
  both scored against it. A held-out unit whose rest is split (two or more labels share the most votes, e.g.
  one A and one B) has no reference and is left out for both, so an exact figure never charges an A/B vote
  for a TIE nobody voted. Averaged over the pair's remaining held-out annotators, then over pairs; `n` counts
  the pairs with at least one such unit.
- accuracy_vs_majority / soft_accuracy_vs_majority (judges): the judge against the pair label on the
  pairs with two or more annotators, averaged over the orders run (a missing verdict scores 0): the
  judge's headline on the ceiling's pairs (the human row has no figure of this definition).
- accuracy_vs_annotators / soft_accuracy_vs_annotators: for the human row, each annotator against each
  other annotator (pairwise agreement, mean over the pair's annotator pairs, then over pairs); for a
  judge, its verdict against each annotator (mean over annotators, then over the orders run, a missing
  verdict scoring 0, then over pairs): the same average on the same pairs.
- annotator_kappa / annotator_weighted_kappa: Cohen's kappa for every two annotators over the pairs
  both voted (at least 2); weighted kappa uses linear disagreement weights on A < TIE < B (A-TIE and
  TIE-B 0.5, A-B 1); the figure is the mean over annotator pairs weighted by their shared pairs.
- annotator_alpha: Krippendorff's alpha (krippendorff package), ordinal A < TIE < B, all annotators.
- self_consistency(_soft, _weighted_kappa): an annotator's first two votes on the same pair, over every
  (pair, annotator) with two votes; kappa pooled over them.
Intervals: percentile bootstrap over pairs (resampling.py), the run's seed and resample count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy import sparse

from judgebench.core.records import AnnotatorAgreement, JudgmentRecord, MetricValue
from judgebench.scoring.judgment_table import CATEGORIES, CODE
from judgebench.scoring.metrics import exact_score, soft_score
from judgebench.stats.agreement import (
    LINEAR,
    NOMINAL,
    alpha,
    alpha_from_coincidences,
    coincidences,
    kappa_from_confusion,
    kappa_weights,
    mean_kappa,
)
from judgebench.stats.resampling import percentile_interval, resample_batches
from judgebench.tasks.votes import majority_label

RATIO_METRICS = ("loo_accuracy", "loo_soft_accuracy", "accuracy_vs_annotators", "soft_accuracy_vs_annotators",
                 "self_consistency", "self_consistency_soft")
JUDGE_METRICS = ("accuracy_vs_annotators", "soft_accuracy_vs_annotators", "accuracy_vs_majority",
                 "soft_accuracy_vs_majority", "loo_accuracy", "loo_soft_accuracy")
HUMAN_METRICS = (*RATIO_METRICS, "annotator_kappa", "annotator_weighted_kappa", "annotator_alpha",
                 "self_consistency_weighted_kappa")


@dataclass(frozen=True)
class Pair:
    """One pair's votes on one dimension (A/B/TIE after the Both-Bad rule) and the judge's verdicts."""

    example_id: str
    votes: dict[str, list[str]]  # annotator -> labels in data order
    label: str  # the pair label (all votes, the task's rule), A/B/TIE after the Both-Bad rule
    verdicts: dict[str, str | None]  # order -> verdict (None: not answered)

    @property
    def firsts(self) -> dict[str, str]:
        return {annotator: labels[0] for annotator, labels in self.votes.items()}


def pairs_of(records: Iterable[JudgmentRecord], dimension: str, both_bad: str = "tie") -> list[Pair]:
    """The pairs of one dimension that carry votes, with the judge's verdict per order (later records win)."""
    by_example: dict[str, dict[str, JudgmentRecord]] = {}
    for record in records:
        if record.dimension == dimension and record.votes:
            by_example.setdefault(record.example_id, {})[record.order] = record
    pairs = []
    for example_id, by_order in by_example.items():
        first = next(iter(by_order.values()))
        if both_bad == "exclude" and first.label == "BOTH_BAD":
            continue
        votes = {a: _rule(labels, both_bad) for a, labels in first.votes.items()}
        votes = {a: labels for a, labels in votes.items() if labels}
        verdicts = {o: r.verdict if r.status == "ANSWERED" else None for o, r in by_order.items()}
        label = "TIE" if first.label == "BOTH_BAD" else first.label
        pairs.append(Pair(example_id, votes, label, verdicts))
    return pairs


def _rule(labels: Sequence[str], both_bad: str) -> list[str]:
    if both_bad == "exclude":
        return [label for label in labels if label != "BOTH_BAD"]
    return ["TIE" if label == "BOTH_BAD" else label for label in labels]


# ----------------------------------------------------------------------------- per-pair credits


def loo_references(pair: Pair) -> list[tuple[str, str]]:
    """(held-out annotator's vote, the label of the others' votes) for each held-out annotator whose rest is
    not split; empty with fewer than two annotators."""
    firsts = pair.firsts
    if len(firsts) < 2:
        return []
    units = []
    for annotator, vote in firsts.items():
        rest = [v for a, v in firsts.items() if a != annotator]
        if not _is_split(rest):  # a split rest: no reference for this held-out unit
            units.append((vote, majority_label(rest)))
    return units


def _is_split(votes: Sequence[str]) -> bool:
    """Two or more labels share the most votes (the majority rule would make it a TIE nobody voted)."""
    counts = sorted(Counter(votes).values(), reverse=True)
    return len(counts) > 1 and counts[0] == counts[1]


def loo_credit(pair: Pair) -> tuple[float, float] | None:
    """(exact, soft) leave-one-annotator-out credit of a pair; None when no held-out unit has a reference."""
    units = loo_references(pair)
    if not units:
        return None
    return (sum(exact_score(v, ref) for v, ref in units) / len(units),
            sum(soft_score(v, ref) for v, ref in units) / len(units))


def pairwise_credit(pair: Pair) -> tuple[float, float] | None:
    """(exact, soft) agreement of each annotator with each other one, averaged over annotator pairs."""
    firsts = list(pair.firsts.values())
    if len(firsts) < 2:
        return None
    two = list(combinations(firsts, 2))
    return sum(exact_score(a, b) for a, b in two) / len(two), sum(soft_score(a, b) for a, b in two) / len(two)


def judge_credit(pair: Pair, orders: Sequence[str]) -> tuple[float, ...] | None:
    """(exact, soft) of the judge against each annotator (averaged over annotators), (exact, soft) against
    the pair label, then (exact, soft) against each held-out annotator's reference (loo_references; NaN when
    none has one); each averaged over the orders run, a missing verdict scoring 0."""
    firsts = list(pair.firsts.values())
    if len(firsts) < 2 or not orders:
        return None
    references = [ref for _, ref in loo_references(pair)]
    credits = []
    for order in orders:
        verdict = pair.verdicts.get(order)
        loo = ((sum(exact_score(verdict, r) for r in references) / len(references),
                sum(soft_score(verdict, r) for r in references) / len(references)) if references else (np.nan, np.nan))
        credits.append((sum(exact_score(verdict, v) for v in firsts) / len(firsts),
                        sum(soft_score(verdict, v) for v in firsts) / len(firsts),
                        exact_score(verdict, pair.label), soft_score(verdict, pair.label), *loo))
    return tuple(sum(c[i] for c in credits) / len(credits) for i in range(6))


def self_credit(pair: Pair) -> tuple[float, float, int]:
    """(exact sum, soft sum, count) over this pair's annotators who voted it twice (first two votes)."""
    repeats = [labels[:2] for labels in pair.votes.values() if len(labels) >= 2]
    return (sum(exact_score(a, b) for a, b in repeats), sum(soft_score(a, b) for a, b in repeats), len(repeats))


# ----------------------------------------------------------------------------- coefficients' inputs


def annotator_pairs(pairs: Sequence[Pair]) -> tuple[list[tuple[str, str]], sparse.csr_matrix]:
    """(annotator pairs, per-pair contributions to their 3x3 first-vote confusions: a sparse
    (n_pairs, n_annotator_pairs * 9) matrix; a pair of two annotators adds 1 to one cell)."""
    index: dict[tuple[str, str], int] = {}
    rows, cols = [], []
    for row, pair in enumerate(pairs):
        for (a, va), (b, vb) in combinations(sorted(pair.firsts.items()), 2):
            rows.append(row)
            cols.append(index.setdefault((a, b), len(index)) * 9 + CODE[va] * 3 + CODE[vb])
    matrix = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(pairs), len(index) * 9))
    return list(index), matrix


def value_counts(pairs: Sequence[Pair]) -> np.ndarray:
    """(n_pairs, 3) counts of A / TIE / B first votes, for Krippendorff's alpha."""
    counts = np.zeros((len(pairs), 3))
    for row, pair in enumerate(pairs):
        for vote in pair.firsts.values():
            counts[row, CODE[vote]] += 1
    return counts


def self_confusion(pairs: Sequence[Pair]) -> np.ndarray:
    """(n_pairs, 9) first-vote x second-vote counts of annotators who voted a pair twice."""
    out = np.zeros((len(pairs), 3, 3))
    for row, pair in enumerate(pairs):
        for labels in pair.votes.values():
            if len(labels) >= 2:
                out[row, CODE[labels[0]], CODE[labels[1]]] += 1
    return out.reshape(len(pairs), 9)


# ----------------------------------------------------------------------------- figures with intervals


@dataclass(frozen=True)
class _Stats:
    """Per-pair arrays every human figure is a function of (so a resample is a weighting of pairs)."""

    ratios: dict[str, tuple[np.ndarray, np.ndarray]]  # name -> (numerator, denominator) per pair
    kappa: sparse.csr_matrix  # (n_pairs, annotator pairs * 9) first-vote confusions
    kappa_weights: dict[str, np.ndarray]  # "nominal" / "linear" -> annotator pair weights (kappa_weights)
    counts: np.ndarray  # (n_pairs, 3) value counts
    coincidence: np.ndarray  # (n_pairs, 9)
    repeats: np.ndarray  # (n_pairs, 9) self-consistency confusions


def _statistics(pairs: list[Pair]) -> _Stats:
    loo = [loo_credit(p) for p in pairs]
    two = [pairwise_credit(p) for p in pairs]
    repeat = np.array([self_credit(p) for p in pairs], dtype=float).reshape(len(pairs), 3)
    den = np.array([c is not None for c in two], dtype=float)  # pairs with 2+ annotators
    loo_den = np.array([c is not None for c in loo], dtype=float)  # ... and a held-out unit with a reference
    pick = lambda credits, i: np.array([c[i] if c is not None else 0.0 for c in credits])  # noqa: E731
    ratios = {
        "loo_accuracy": (pick(loo, 0), loo_den),
        "loo_soft_accuracy": (pick(loo, 1), loo_den),
        "accuracy_vs_annotators": (pick(two, 0), den),
        "soft_accuracy_vs_annotators": (pick(two, 1), den),
        "self_consistency": (repeat[:, 0], repeat[:, 2]),
        "self_consistency_soft": (repeat[:, 1], repeat[:, 2]),
    }
    counts = value_counts(pairs)
    kappa = annotator_pairs(pairs)[1]
    confusions = np.asarray(kappa.sum(axis=0)).reshape(-1, 3, 3)
    weights = {"nominal": kappa_weights(confusions, NOMINAL), "linear": kappa_weights(confusions, LINEAR)}
    keep = np.flatnonzero((weights["nominal"] > 0) | (weights["linear"] > 0))  # the others never count
    kappa = kappa[:, (keep[:, None] * 9 + np.arange(9)).ravel()].tocsr()
    weights = {name: w[keep] for name, w in weights.items()}
    return _Stats(ratios, kappa, weights, counts, coincidences(counts), self_confusion(pairs))


def _ratios(w: np.ndarray, ratios: dict[str, tuple[np.ndarray, np.ndarray]]) -> dict[str, np.ndarray]:
    """sum(w * num) / sum(w * den) per ratio metric and row of weights, in one matrix product."""
    both = np.column_stack([*(num for num, _ in ratios.values()), *(den for _, den in ratios.values())])
    sums = w @ both
    k = len(ratios)
    with np.errstate(invalid="ignore", divide="ignore"):
        return {name: sums[:, i] / sums[:, k + i] for i, name in enumerate(ratios)}


def _resampled(stats: _Stats, w: np.ndarray) -> dict[str, np.ndarray]:
    """Every human figure for a batch of pair weights w (resamples x pairs): one value per resample."""
    out = _ratios(w, stats.ratios)
    confusions = np.asarray((stats.kappa.T @ w.T).T).reshape(len(w), -1, 3, 3)
    out["annotator_kappa"] = mean_kappa(confusions, NOMINAL, stats.kappa_weights["nominal"])
    out["annotator_weighted_kappa"] = mean_kappa(confusions, LINEAR, stats.kappa_weights["linear"])
    out["annotator_alpha"] = alpha_from_coincidences(w @ stats.coincidence)
    out["self_consistency_weighted_kappa"] = kappa_from_confusion((w @ stats.repeats).reshape(-1, 3, 3), LINEAR)
    return out


def _counts_n(stats: _Stats) -> dict[str, int]:
    return {
        **{name: int(den.sum()) for name, (_, den) in stats.ratios.items()},
        "annotator_kappa": int(stats.kappa_weights["nominal"].sum()),
        "annotator_weighted_kappa": int(stats.kappa_weights["linear"].sum()),
        "annotator_alpha": int((stats.counts.sum(axis=1) >= 2).sum()),
        "self_consistency_weighted_kappa": int(stats.repeats.sum()),
    }


def _bootstrap(n: int, n_resamples: int, seed: int, statistic) -> dict[str, np.ndarray]:
    """statistic(weights) over seeded resamples of the n pairs (resampling.py), in batches of 100."""
    batches: list[dict[str, np.ndarray]] = []
    for idx in resample_batches(n, n_resamples if n > 1 else 0, seed, 100):
        rows = np.arange(len(idx))[:, None] * n
        w = np.bincount((rows + idx).ravel(), minlength=len(idx) * n).reshape(len(idx), n).astype(float)
        batches.append(statistic(w))
    return {name: np.concatenate([b[name] for b in batches]) for name in batches[0]} if batches else {}


def _with_intervals(points: dict[str, float], samples: dict[str, np.ndarray], n: dict[str, int]) -> dict[str, MetricValue]:
    out = {}
    for name, value in points.items():
        low = high = None
        if name in samples and np.isfinite(value):
            lo, hi = percentile_interval(samples[name])
            if np.isfinite(lo) and np.isfinite(hi):
                low, high = float(lo), float(hi)
        out[name] = MetricValue(value=float(value) if np.isfinite(value) else None, ci_low=low, ci_high=high, n=n.get(name, 0))
    return out


def human_ceiling(pairs: list[Pair], *, n_resamples: int = 1000, seed: int = 0) -> dict[str, MetricValue]:
    """HUMAN_METRICS of one dimension's pairs, each with a bootstrap interval over pairs."""
    stats = _statistics(pairs)
    points = {name: float(v[0]) for name, v in _resampled(stats, np.ones((1, len(pairs)))).items()}
    points["annotator_alpha"] = alpha(stats.counts)  # the package's figure (the resamples' formula equals it)
    samples = _bootstrap(len(pairs), n_resamples, seed, lambda w: _resampled(stats, w))
    return _with_intervals({name: points[name] for name in HUMAN_METRICS}, samples, _counts_n(stats))


def judge_versus_annotators(pairs: list[Pair], orders: Sequence[str], *, n_resamples: int = 1000, seed: int = 0) -> dict[str, MetricValue]:
    """The judge's JUDGE_METRICS on the pairs with 2+ annotators (the human ceiling's pairs)."""
    credits = [judge_credit(p, orders) for p in pairs]
    ratios = {}
    for i, name in enumerate(JUDGE_METRICS):
        values = np.array([c[i] if c else np.nan for c in credits], dtype=float)
        den = np.isfinite(values).astype(float)  # loo_*: only pairs whose held-out units have a reference
        ratios[name] = (np.nan_to_num(values), den)
    points = {name: float(v[0]) for name, v in _ratios(np.ones((1, len(pairs))), ratios).items()}
    samples = _bootstrap(len(pairs), n_resamples, seed, lambda w: _ratios(w, ratios))
    return _with_intervals(points, samples, {name: int(den.sum()) for name, (_, den) in ratios.items()})


def annotator_agreement(pairs: list[Pair], orders: Sequence[str]) -> list[AnnotatorAgreement]:
    """Per annotator, over the pairs with 2+ annotators they voted: their leave-one-out agreement (their
    held-out units with a reference, as loo_references) and the judge's agreement with their vote (mean over
    the orders run, a missing verdict scoring 0); sorted by annotator."""
    sums: dict[str, list[float]] = {}  # annotator -> [pairs, loo units, loo exact, loo soft, judge exact, judge soft]
    for pair in pairs:
        firsts = pair.firsts
        if len(firsts) < 2:
            continue
        references = {a: majority_label([v for b, v in firsts.items() if b != a]) for a in firsts}
        split = {a for a in firsts if _is_split([v for b, v in firsts.items() if b != a])}
        for annotator, vote in firsts.items():
            row = sums.setdefault(annotator, [0.0] * 6)
            row[0] += 1
            if annotator not in split:
                row[1] += 1
                row[2] += exact_score(vote, references[annotator])
                row[3] += soft_score(vote, references[annotator])
            if orders:
                row[4] += sum(exact_score(pair.verdicts.get(o), vote) for o in orders) / len(orders)
                row[5] += sum(soft_score(pair.verdicts.get(o), vote) for o in orders) / len(orders)
    ratio = lambda num, den: num / den if den else None  # noqa: E731
    return [AnnotatorAgreement(annotator=a, pairs=int(row[0]), loo_accuracy=ratio(row[2], row[1]),
                               loo_soft_accuracy=ratio(row[3], row[1]), judge_accuracy=ratio(row[4], row[0] if orders else 0),
                               judge_soft_accuracy=ratio(row[5], row[0] if orders else 0))
            for a, row in sorted(sums.items())]


def annotator_figures(records: list[JudgmentRecord], dimensions: Sequence[str], both_bad: str = "tie"
                      ) -> dict[str, list[AnnotatorAgreement]] | None:
    """results.json `annotators`: annotator_agreement per dimension; None for data without votes."""
    if not any(r.votes for r in records):
        return None
    out = {}
    for dimension in dimensions:
        pairs = pairs_of(records, dimension, both_bad)
        if pairs:
            orders = sorted({r.order for r in records if r.dimension == dimension})
            out[dimension] = annotator_agreement(pairs, orders)
    return out


def score_votes(
    records: list[JudgmentRecord], dimensions: Sequence[str], *, both_bad: str = "tie", n_resamples: int = 1000, seed: int = 0
) -> tuple[dict[str, dict[str, MetricValue]], dict[str, dict[str, MetricValue]]] | None:
    """(human ceiling per dimension, the judge vs annotators per dimension) of a run; None without votes."""
    if not any(r.votes for r in records):
        return None
    human, judge = {}, {}
    for dimension in dimensions:
        pairs = pairs_of(records, dimension, both_bad)
        if not pairs:
            continue
        orders = sorted({r.order for r in records if r.dimension == dimension})
        human[dimension] = human_ceiling(pairs, n_resamples=n_resamples, seed=seed)
        judge[dimension] = judge_versus_annotators(pairs, orders, n_resamples=n_resamples, seed=seed)
    return human, judge


def human_figures(
    records: list[JudgmentRecord], dimensions: Sequence[str], metrics: dict[str, dict[str, MetricValue]], *,
    both_bad: str = "tie", n_resamples: int = 1000, seed: int = 0,
) -> dict[str, dict[str, MetricValue]] | None:
    """The human ceiling per dimension (results.json `human`); adds the judge-vs-annotator figures to
    `metrics` in place. With several dimensions both get a `mean` entry: the mean of the dimensions'
    figures (value only). None for data without votes."""
    scored = score_votes(records, dimensions, both_bad=both_bad, n_resamples=n_resamples, seed=seed)
    if scored is None:
        return None
    human, judge = scored
    for dimension, values in judge.items():
        metrics.setdefault(dimension, {}).update(values)
    if len(human) > 1:
        human["mean"] = _mean_entry(human)
        metrics.setdefault("mean", {}).update(_mean_entry(judge))
    return human


def _mean_entry(per_dimension: dict[str, dict[str, MetricValue]]) -> dict[str, MetricValue]:
    names = {name for values in per_dimension.values() for name in values}
    out = {}
    for name in sorted(names):
        values = [v[name].value for v in per_dimension.values() if name in v]
        if values and None not in values and len(values) == len(per_dimension):
            out[name] = MetricValue(value=float(np.mean(values)), n=min(v[name].n for v in per_dimension.values()))
    return out


__all__ = ["CATEGORIES", "HUMAN_METRICS", "LINEAR", "NOMINAL", "Pair", "alpha", "human_ceiling", "human_figures", "judge_versus_annotators",
           "kappa_from_confusion", "loo_credit", "pairs_of", "score_votes"]
