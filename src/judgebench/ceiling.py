"""The human ceiling: how well annotators agree with each other, on the pairs a judge is scored on.

Pure functions over JudgmentRecords whose `votes` carry the pair's annotator-level votes (tasks with a
`votes:` mapping). Definitions (docs/human.md has them with examples):

- Votes are coded A 0, TIE 1, B 2. Both Bad: under the run's rule "tie" a Both Bad vote is a TIE; under
  "exclude" pairs whose label is Both Bad are left out (as for the judge) and so are Both Bad votes.
- An annotator's vote on a pair is their first vote on it (data order); later votes by the same
  annotator on the same pair only enter self-consistency.
- Only pairs with two or more annotators enter the ceiling; each such pair weighs 1.
- loo_accuracy / loo_soft_accuracy (leave one annotator out): each annotator's vote scored against the
  label of the other annotators' votes under the task's stated rule (votes.MAJORITY_RULE, so a split
  among the rest is a TIE: a held-out A against a rest of one A and one B earns 0 exact, 0.5 soft),
  exactly as a judge's verdict is scored against the pair label; averaged over the pair's annotators,
  then over pairs.
- accuracy_vs_majority / soft_accuracy_vs_majority (judges): the judge against the pair label on the
  pairs with two or more annotators, averaged over the orders run (a missing verdict scores 0): the
  judge's headline on the ceiling's pairs. For the human row these are the leave-one-out figures.
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

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

import krippendorff
import numpy as np
from scipy import sparse

from .judgment_table import CATEGORIES, CODE
from .metrics import exact_score, soft_score
from .records import JudgmentRecord, MetricValue
from .resampling import percentile_interval, resample_batches
from .votes import majority_label

LINEAR = np.abs(np.subtract.outer(np.arange(3), np.arange(3))) / 2.0  # A-TIE 0.5, A-B 1
NOMINAL = 1.0 - np.eye(3)
RATIO_METRICS = ("loo_accuracy", "loo_soft_accuracy", "accuracy_vs_annotators", "soft_accuracy_vs_annotators",
                 "self_consistency", "self_consistency_soft")
JUDGE_METRICS = ("accuracy_vs_annotators", "soft_accuracy_vs_annotators", "accuracy_vs_majority",
                 "soft_accuracy_vs_majority")
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


def loo_credit(pair: Pair) -> tuple[float, float] | None:
    """(exact, soft) leave-one-annotator-out credit of a pair; None with fewer than two annotators."""
    firsts = pair.firsts
    if len(firsts) < 2:
        return None
    exact, soft = [], []
    for annotator, vote in firsts.items():
        rest = majority_label([v for a, v in firsts.items() if a != annotator])
        exact.append(exact_score(vote, rest))
        soft.append(soft_score(vote, rest))
    return float(np.mean(exact)), float(np.mean(soft))


def pairwise_credit(pair: Pair) -> tuple[float, float] | None:
    """(exact, soft) agreement of each annotator with each other one, averaged over annotator pairs."""
    firsts = list(pair.firsts.values())
    if len(firsts) < 2:
        return None
    two = list(combinations(firsts, 2))
    return float(np.mean([exact_score(a, b) for a, b in two])), float(np.mean([soft_score(a, b) for a, b in two]))


def judge_credit(pair: Pair, orders: Sequence[str]) -> tuple[float, float, float, float] | None:
    """(exact, soft) of the judge against each annotator (averaged over annotators), then (exact, soft)
    against the pair label; each averaged over the orders run, a missing verdict scoring 0."""
    firsts = list(pair.firsts.values())
    if len(firsts) < 2 or not orders:
        return None
    credits = []
    for order in orders:
        verdict = pair.verdicts.get(order)
        credits.append((float(np.mean([exact_score(verdict, v) for v in firsts])),
                        float(np.mean([soft_score(verdict, v) for v in firsts])),
                        exact_score(verdict, pair.label), soft_score(verdict, pair.label)))
    return tuple(float(x) for x in np.mean(credits, axis=0))  # type: ignore[return-value]


def self_credit(pair: Pair) -> tuple[float, float, int]:
    """(exact sum, soft sum, count) over this pair's annotators who voted it twice (first two votes)."""
    repeats = [labels[:2] for labels in pair.votes.values() if len(labels) >= 2]
    return (sum(exact_score(a, b) for a, b in repeats), sum(soft_score(a, b) for a, b in repeats), len(repeats))


# ----------------------------------------------------------------------------- coefficients


def kappa_from_confusion(confusion: np.ndarray, weights: np.ndarray = NOMINAL) -> np.ndarray:
    """Cohen's kappa from 3x3 confusion counts (any leading axes) with disagreement weights; NaN if undefined.

    kappa = 1 - sum(w * observed) / sum(w * expected); with NOMINAL weights this is (po - pe) / (1 - pe).
    """
    confusion = np.asarray(confusion, dtype=float)
    total = confusion.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (confusion * weights).sum(axis=(-2, -1)) / total
        expected = np.einsum("...i,...j,ij->...", confusion.sum(axis=-1), confusion.sum(axis=-2), weights) / total**2
        return np.where(expected > 0, 1.0 - observed / expected, np.nan)


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


def mean_kappa(confusions: np.ndarray, weights: np.ndarray, min_shared: int = 2) -> float:
    """Kappa per annotator pair (last two axes 3x3), averaged weighted by shared pairs; NaN if none."""
    shared = confusions.sum(axis=(-2, -1))
    kappas = kappa_from_confusion(confusions, weights)
    use = (shared >= min_shared) & np.isfinite(kappas)
    weight = np.where(use, shared, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sum(np.where(use, kappas, 0.0) * weight, axis=-1) / weight.sum(axis=-1)


def value_counts(pairs: Sequence[Pair]) -> np.ndarray:
    """(n_pairs, 3) counts of A / TIE / B first votes, for Krippendorff's alpha."""
    counts = np.zeros((len(pairs), 3))
    for row, pair in enumerate(pairs):
        for vote in pair.firsts.values():
            counts[row, CODE[vote]] += 1
    return counts


def alpha(counts: np.ndarray) -> float:
    """Krippendorff's alpha, ordinal A < TIE < B, from per-pair value counts; NaN when undefined."""
    if (counts.sum(axis=1) >= 2).sum() < 1:
        return float("nan")
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return float(krippendorff.alpha(value_counts=counts, value_domain=[0, 1, 2], level_of_measurement="ordinal"))
        except (ValueError, ZeroDivisionError):
            return float("nan")


def self_confusion(pairs: Sequence[Pair]) -> np.ndarray:
    """(n_pairs, 3, 3) first-vote x second-vote counts of annotators who voted a pair twice."""
    out = np.zeros((len(pairs), 3, 3))
    for row, pair in enumerate(pairs):
        for labels in pair.votes.values():
            if len(labels) >= 2:
                out[row, CODE[labels[0]], CODE[labels[1]]] += 1
    return out


# ----------------------------------------------------------------------------- figures with intervals


def _statistics(pairs: list[Pair]) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], np.ndarray, np.ndarray, np.ndarray]:
    """Per-pair (num, den) of the ratio metrics, annotator-pair contributions, value counts, self confusion."""
    loo = [loo_credit(p) for p in pairs]
    two = [pairwise_credit(p) for p in pairs]
    repeat = [self_credit(p) for p in pairs]
    den = np.array([c is not None for c in loo], dtype=float)
    pick = lambda credits, i: np.array([c[i] if c is not None else 0.0 for c in credits])  # noqa: E731
    ratios = {
        "loo_accuracy": (pick(loo, 0), den),
        "loo_soft_accuracy": (pick(loo, 1), den),
        "accuracy_vs_annotators": (pick(two, 0), den),
        "soft_accuracy_vs_annotators": (pick(two, 1), den),
        "self_consistency": (np.array([r[0] for r in repeat], float), np.array([r[2] for r in repeat], float)),
        "self_consistency_soft": (np.array([r[1] for r in repeat], float), np.array([r[2] for r in repeat], float)),
    }
    return ratios, annotator_pairs(pairs)[1], value_counts(pairs), self_confusion(pairs)


def _figures(w: np.ndarray, stats) -> dict[str, float]:
    """Every human figure for pair weights w (ones: the point values; counts: a bootstrap resample)."""
    ratios, contributions, counts, repeats = stats
    out = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for name, (num, den) in ratios.items():
            out[name] = float(w @ num / (w @ den))
    confusions = (contributions.T @ w).reshape(-1, 3, 3)
    out["annotator_kappa"] = float(mean_kappa(confusions, NOMINAL))
    out["annotator_weighted_kappa"] = float(mean_kappa(confusions, LINEAR))
    out["annotator_alpha"] = alpha(np.repeat(counts, w.astype(int), axis=0))
    out["self_consistency_weighted_kappa"] = float(kappa_from_confusion(np.tensordot(w, repeats, axes=1), LINEAR))
    return out


def _counts_n(stats) -> dict[str, int]:
    ratios, contributions, counts, repeats = stats
    shared = np.asarray(contributions.sum(axis=0)).reshape(-1, 9).sum(axis=1)
    return {
        **{name: int(den.sum()) for name, (_, den) in ratios.items()},
        "annotator_kappa": int(shared[shared >= 2].sum()),
        "annotator_weighted_kappa": int(shared[shared >= 2].sum()),
        "annotator_alpha": int((counts.sum(axis=1) >= 2).sum()),
        "self_consistency_weighted_kappa": int(repeats.sum()),
    }


def _with_intervals(points: dict[str, float], samples: list[dict[str, float]], n: dict[str, int]) -> dict[str, MetricValue]:
    out = {}
    for name, value in points.items():
        low = high = None
        if samples and np.isfinite(value):
            column = np.array([s[name] for s in samples])
            lo, hi = percentile_interval(column)
            if np.isfinite(lo) and np.isfinite(hi):
                low, high = float(lo), float(hi)
        out[name] = MetricValue(value=float(value) if np.isfinite(value) else None, ci_low=low, ci_high=high, n=n.get(name, 0))
    return out


def human_ceiling(pairs: list[Pair], *, n_resamples: int = 1000, seed: int = 0) -> dict[str, MetricValue]:
    """HUMAN_METRICS of one dimension's pairs, each with a bootstrap interval over pairs."""
    stats = _statistics(pairs)
    points = _figures(np.ones(len(pairs)), stats)
    samples = [_figures(np.bincount(row, minlength=len(pairs)).astype(float), stats)
               for batch in resample_batches(len(pairs), n_resamples if len(pairs) > 1 else 0, seed, 100) for row in batch]
    return _with_intervals(points, samples, _counts_n(stats))


def judge_versus_annotators(pairs: list[Pair], orders: Sequence[str], *, n_resamples: int = 1000, seed: int = 0) -> dict[str, MetricValue]:
    """The judge's JUDGE_METRICS on the pairs with 2+ annotators (the human ceiling's pairs)."""
    credits = [judge_credit(p, orders) for p in pairs]
    den = np.array([c is not None for c in credits], dtype=float)
    ratios = {name: (np.array([c[i] if c else 0.0 for c in credits]), den)
              for i, name in enumerate(JUDGE_METRICS)}

    def figures(w: np.ndarray) -> dict[str, float]:
        with np.errstate(invalid="ignore", divide="ignore"):
            return {name: float(w @ num / (w @ d)) for name, (num, d) in ratios.items()}

    samples = [figures(np.bincount(row, minlength=len(pairs)).astype(float))
               for batch in resample_batches(len(pairs), n_resamples if len(pairs) > 1 else 0, seed, 100) for row in batch]
    return _with_intervals(figures(np.ones(len(pairs))), samples, {name: int(den.sum()) for name in ratios})


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
