"""The metric catalogue: every metric judgebench reports, defined once.

Each entry says what the metric is (unit, exact or soft credit, which direction is better), whether a
task may rank by it (headline), where it is shown (leaderboard row, dataset card, per slice, the mean
over dimensions) and how a data-derived baseline gets it. metrics.py computes the values; leaderboard,
HTML, report, export, compare and the CLI summary read this table.

Adding a value-only metric (a number computed from the per-example table, judgment_table.Table, with no
interval): one entry here whose `value` is its function, written beside it, plus a test
(docs/design/recipes.md, "How to add a metric"). metrics.score_records computes it for every dimension (and
every slice value when `per_slice`); results.json, the leaderboard row (`leaderboard`), the HTML page, the
dataset card (`card`) and the terminal summary (`summary`) then show it. Metrics with bootstrap intervals
(ratios of per-example arrays) are computed in metrics.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Unit = Literal["share", "coefficient", "points", "count"]  # share: a fraction in results.json, a percentage in tables
Credit = Literal["exact", "soft", "none"]


@dataclass(frozen=True)
class Metric:
    name: str
    description: str
    unit: Unit = "share"
    credit: Credit = "none"
    higher_is_better: bool | None = True  # None: neither (a rate to read, not to maximise)
    headline: bool = False  # a task may rank its judges by it
    leaderboard: bool = False  # a column of every run row
    card: bool = False  # listed on the exported dataset card
    per_slice: bool = False  # computed for every slice value
    mean_over_dimensions: bool = False  # averaged into the "mean" entry of multi-dimension tasks
    random_baseline: str | None = None  # the metric holding a label-distribution guesser's expected value
    summary: bool = False  # printed in the terminal summary of `run` and `score` (besides the headline family)
    # A value-only metric's function: a judgment_table.Table (one dimension's per-example columns) ->
    # (value, or None when undefined; the n it counts). Typed loosely: the catalogue imports no judgebench module.
    value: Callable[..., tuple[float | None, int]] | None = None

    def __post_init__(self) -> None:
        if self.value is not None and (self.headline or self.mean_over_dimensions):
            raise ValueError(f"metric {self.name}: a value-only metric has no per-example scores, so it can be "
                             "neither a headline nor averaged over dimensions")

    @property
    def percent(self) -> bool:
        return self.unit == "share"


def _family(stem: str, credit: Credit, description: str, baseline: str) -> list[Metric]:
    """A headline metric with its per-order and order-consistent variants."""
    return [
        Metric(f"{stem}_ab", f"{description}, order AB (as given) only", credit=credit, leaderboard=True,
               card=stem == "accuracy"),
        Metric(f"{stem}_ba", f"{description}, order BA (swapped) only", credit=credit, leaderboard=True,
               card=stem == "accuracy"),
        Metric(stem, f"{description}, mean of the orders run (invalid and failed judgments score 0)", credit=credit,
               headline=True, leaderboard=True, card=True, per_slice=True, mean_over_dimensions=True,
               random_baseline=baseline),
        Metric(f"{stem}_consistent", f"{description}, counting an example only when both orders agree",
               credit=credit, leaderboard=True, card=stem == "accuracy", per_slice=stem == "accuracy"),
    ]


METRICS: tuple[Metric, ...] = (
    *_family("accuracy", "exact", "Share of judgments equal to the human label", "random_baseline_exact"),
    *_family("soft_accuracy", "soft", "Accuracy with half credit when exactly one of verdict and label is a tie",
             "random_baseline"),
    Metric("decisive_accuracy", "Accuracy on examples whose human label is A or B", credit="exact"),
    Metric("order_consistency", "Share of examples with the same mapped verdict in both orders",
           leaderboard=True, card=True, per_slice=True, mean_over_dimensions=True, summary=True),
    Metric("position_bias", "Share of decisive verdicts that pick the response shown first (0.5 is unbiased)",
           higher_is_better=None, leaderboard=True, card=True, summary=True),
    Metric("tie_rate_judge", "Share of answered judgments that are a tie", higher_is_better=None),
    Metric("tie_rate_human", "Share of human labels that are a tie (Both Bad counted as the task says)",
           higher_is_better=None),
    Metric("random_baseline", "Expected soft accuracy of a guesser drawing from the label distribution",
           credit="soft", higher_is_better=None),
    Metric("random_baseline_exact", "Expected exact accuracy of a guesser drawing from the label distribution",
           credit="exact", higher_is_better=None),
    Metric("cohen_kappa", "Cohen's kappa between verdicts and labels over answered judgments",
           unit="coefficient", leaderboard=True),
    Metric("krippendorff_alpha", "Krippendorff's alpha (ordinal A < Tie < B) between verdicts and labels",
           unit="coefficient"),
    Metric("coverage", "Share of judgments answered", card=True, per_slice=True),
    Metric("invalid_rate", "Share of judgments whose answer did not parse", higher_is_better=False),
    Metric("failed_rate", "Share of judgments whose call failed after retries", higher_is_better=False),
    # Data with annotator-level votes (ceiling.py has the exact definitions): the judge against each
    # annotator, and the human ceiling (results.json `human`, the leaderboard's `human` row).
    Metric("accuracy_vs_annotators", "Agreement with each annotator's vote, averaged over annotators, orders and "
           "pairs with 2+ annotators (human row: each annotator against each other one)", credit="exact"),
    Metric("soft_accuracy_vs_annotators", "accuracy_vs_annotators with half credit when exactly one side is a tie",
           credit="soft"),
    Metric("accuracy_vs_majority", "Accuracy on the pairs with 2+ annotators (the human ceiling's pairs); human "
           "row: loo_accuracy", credit="exact"),
    Metric("soft_accuracy_vs_majority", "accuracy_vs_majority with half credit when exactly one side is a tie",
           credit="soft"),
    Metric("loo_accuracy", "Each annotator's vote against the label of the other annotators' votes (leave one out)",
           credit="exact"),
    Metric("loo_soft_accuracy", "loo_accuracy with half credit when exactly one side is a tie", credit="soft"),
    Metric("annotator_kappa", "Cohen's kappa between annotators, mean over annotator pairs weighted by shared pairs",
           unit="coefficient"),
    Metric("annotator_weighted_kappa", "Linearly weighted Cohen's kappa (A < Tie < B) between annotators, mean as "
           "annotator_kappa", unit="coefficient"),
    Metric("annotator_alpha", "Krippendorff's alpha (ordinal A < Tie < B) over all annotators", unit="coefficient"),
    Metric("self_consistency", "Share of repeated votes (same annotator, same pair) equal to the first",
           credit="exact"),
    Metric("self_consistency_soft", "self_consistency with half credit when exactly one vote is a tie", credit="soft"),
    Metric("self_consistency_weighted_kappa", "Linearly weighted kappa between annotators' first and second votes",
           unit="coefficient"),
)
_CORE_METRICS = METRICS

# --------------------------------------------------------------------------- confidence (issue 34)
# How sure the judge is (docs/guide/confidence.md): per example, the judge's P(A), P(TIE), P(B) (the mean of
# the orders' `confidence`), read from the per-example table columns judgment_table._calibration_columns
# writes. Pure functions of numpy arrays, so the report's curves and the metrics are one definition.

ECE_BINS = 10  # equal-width bins of the top-label confidence: [0, 0.1), ..., [0.9, 1.0]
SELECTIVE_COVERAGE = 0.8  # selective_accuracy: the most confident 80% of the examples
HANDOFF_SHARE = 0.2  # handoff_accuracy: the least confident 20% sent to humans
CONFIDENCE_DECIMALS = 12  # confidences equal to this many decimals are one value: the mean of two orders' carries
# float noise ((0.88 + 0.80) / 2 = 0.8400000000000001, not tied with a 0.84), which had ordered a tie and moved a
# value on a bin's edge one bin down (0.7999999999999999)


def _settled(conf):
    """The confidences rounded to CONFIDENCE_DECIMALS (ties and bin edges as the numbers mean them)."""
    import numpy as np

    return np.round(np.asarray(conf, dtype=float), CONFIDENCE_DECIMALS)


def reliability_bins(conf, correct, bins: int = ECE_BINS) -> list[tuple[float, float, int, float, float]]:
    """(low, high, n, mean confidence, accuracy) of each non-empty equal-width bin of `conf` in [0, 1]
    (the last bin closed): the reliability diagram's points."""
    import numpy as np

    conf, correct = np.asarray(conf, dtype=float), np.asarray(correct, dtype=float)
    index = np.minimum(np.floor(_settled(conf * bins)).astype(int), bins - 1)
    out = []
    for b in range(bins):
        rows = index == b
        if rows.any():
            out.append((b / bins, (b + 1) / bins, int(rows.sum()), float(conf[rows].mean()), float(correct[rows].mean())))
    return out


def expected_calibration_error(conf, correct, bins: int = ECE_BINS) -> float | None:
    """sum over bins of (n_bin / n) * |accuracy_bin - mean confidence_bin|; None without examples."""
    points = reliability_bins(conf, correct, bins)
    n = sum(p[2] for p in points)
    return sum(p[2] / n * abs(p[4] - p[3]) for p in points) if n else None


def selective_curve(conf, score):
    """(coverage, accuracy) when the judge keeps its k most confident examples, k = 1..n: accuracy is the mean
    `score` of the kept ones. Examples tied on confidence are kept in a random order, so each point is the
    expected accuracy (the tied group's mean score per place), not one arbitrary order's."""
    import numpy as np

    conf, score = np.asarray(conf, dtype=float), np.asarray(score, dtype=float)
    n = len(conf)
    if n == 0:
        return np.zeros(0), np.zeros(0)
    values, inverse = np.unique(-_settled(conf), return_inverse=True)  # most confident first
    group_n = np.bincount(inverse, minlength=len(values))
    group_mean = np.bincount(inverse, weights=score, minlength=len(values)) / group_n
    ends = np.cumsum(group_n)
    before_n = ends - group_n
    before_sum = np.cumsum(group_n * group_mean) - group_n * group_mean
    k = np.arange(1, n + 1)
    g = np.searchsorted(ends, k)  # the group the k-th kept example falls in
    kept = before_sum[g] + (k - before_n[g]) * group_mean[g]
    return k / n, kept / k


def selective_area(conf, score) -> float | None:
    """Area under the accuracy-coverage curve: the mean of the curve's accuracies over k = 1..n (1 - AURC)."""
    _, accuracy = selective_curve(conf, score)
    return float(accuracy.mean()) if len(accuracy) else None


def selective_accuracy_at(conf, score, coverage: float) -> float | None:
    """Accuracy on the round(coverage * n) most confident examples (at least one)."""
    _, accuracy = selective_curve(conf, score)
    if not len(accuracy):
        return None
    k = min(len(accuracy), max(1, int(coverage * len(accuracy) + 0.5)))
    return float(accuracy[k - 1])


def handoff_accuracy(conf, score, share: float, human_score: float = 1.0) -> float | None:
    """Accuracy of judge + humans when the round(share * n) least confident examples go to humans, each scored
    `human_score` (1: the humans give the reference label, an upper bound), the rest the judge's score."""
    _, accuracy = selective_curve(conf, score)
    n = len(accuracy)
    if not n:
        return None
    handed = min(n, int(share * n + 0.5))
    kept = n - handed
    judge_sum = float(accuracy[kept - 1]) * kept if kept else 0.0
    return (judge_sum + human_score * handed) / n


def _confident(t):
    rows = t.cols["has_confidence"]
    return t.cols["top_conf"][rows], t.cols["conf_correct"][rows], t.cols["exact"][rows]


def _ece(t) -> tuple[float | None, int]:
    conf, correct, _ = _confident(t)
    return expected_calibration_error(conf, correct), len(conf)


def _selective_area(t) -> tuple[float | None, int]:
    conf, _, exact = _confident(t)
    return selective_area(conf, exact), len(conf)


def _selective_accuracy(t) -> tuple[float | None, int]:
    conf, _, exact = _confident(t)
    return selective_accuracy_at(conf, exact, SELECTIVE_COVERAGE), len(conf)


def _handoff(t) -> tuple[float | None, int]:
    conf, _, exact = _confident(t)
    return handoff_accuracy(conf, exact, HANDOFF_SHARE), len(conf)


def _confidence_coverage(t) -> tuple[float | None, int]:
    n = len(t.cols["has_confidence"])
    return (float(t.cols["has_confidence"].mean()) if n else None), n


CONFIDENCE_METRICS: tuple[Metric, ...] = (
    # with intervals (ratios of per-example arrays: scoring/metrics._ci_specs), over examples with a confidence
    Metric("brier_score", "Multi-class Brier score of the judge's P(A), P(Tie), P(B) against the label (0 best, 2 "
           "worst)", unit="coefficient", higher_is_better=False, leaderboard=True, card=True, summary=True),
    Metric("log_loss", "Mean -ln P(label) of the judge's confidence (P floored at 1e-15)", unit="coefficient",
           higher_is_better=False),
    Metric("brier_vs_votes", "Brier score of the judge's P(A), P(Tie), P(B) against the annotators' vote shares "
           "(pairs with 2+ annotators)", unit="coefficient", higher_is_better=False),
    # value-only
    Metric("ece", f"Expected calibration error of the top-label confidence, {ECE_BINS} equal-width bins",
           higher_is_better=False, leaderboard=True, card=True, summary=True, value=_ece),
    Metric("selective_auc", "Area under accuracy vs coverage as the judge abstains below a confidence threshold",
           leaderboard=True, value=_selective_area),
    Metric("selective_accuracy", f"Accuracy on the {SELECTIVE_COVERAGE:.0%} most confident examples",
           value=_selective_accuracy),
    Metric("handoff_accuracy", f"Accuracy of judge + humans when the {HANDOFF_SHARE:.0%} least confident examples "
           "go to humans (scored as the label)", value=_handoff),
    Metric("confidence_coverage", "Share of examples with a judge confidence (log-probabilities, repeats, a "
           "panel, or stated)", higher_is_better=None, value=_confidence_coverage),
)

# Rubric judges (judgebench.kinds.rubric): calibration against expert scores, per level (item / total).
# Kept apart from METRICS so pairwise tables, headlines and cards are unchanged.
RUBRIC_METRICS: tuple[Metric, ...] = (
    Metric("normalized_mae", "Mean |judge - expert| / the item's (or total's) maximum points", higher_is_better=False,
           headline=True, leaderboard=True, per_slice=True),
    Metric("mae", "Mean |judge - expert| in points", unit="points", higher_is_better=False, leaderboard=True),
    Metric("bias", "Mean judge - expert in points (above 0: the judge over-credits)", unit="points",
           higher_is_better=None, leaderboard=True, per_slice=True),
    Metric("within_k", "Share with |judge - expert| <= k points (k: the task's within_k, default 1)",
           leaderboard=True, per_slice=True),
    Metric("over_credit", "Count with judge >= expert + 0.5 points", unit="count", higher_is_better=False,
           leaderboard=True),
    Metric("pearson", "Pearson correlation of judge and expert points", unit="coefficient", leaderboard=True),
    Metric("spearman", "Spearman rank correlation of judge and expert points", unit="coefficient"),
    Metric("kendall", "Kendall's tau-b of judge and expert points", unit="coefficient"),
    Metric("coverage", "Share of responses scored (answered, or a no-answer scored zero without a call)"),
)
RUBRIC_BY_NAME: dict[str, Metric] = {m.name: m for m in RUBRIC_METRICS}
METRICS = (*_CORE_METRICS, *CONFIDENCE_METRICS)
RUBRIC_HEADLINE = "normalized_mae"  # on the item level: lower is better

BY_NAME: dict[str, Metric] = {m.name: m for m in METRICS}
ORDERED_NAMES: tuple[str, ...] = tuple(m.name for m in METRICS)
HEADLINES: tuple[str, ...] = tuple(m.name for m in METRICS if m.headline)
PERCENT_METRICS: frozenset[str] = frozenset(m.name for m in METRICS if m.percent)
SLICE_METRICS: tuple[str, ...] = tuple(m.name for m in METRICS if m.per_slice)
MEAN_METRICS: tuple[str, ...] = tuple(m.name for m in METRICS if m.mean_over_dimensions)
CARD_METRICS: tuple[str, ...] = tuple(m.name for m in METRICS if m.card)
DEFAULT_HEADLINE = "accuracy"  # a task that names none (TaskSpec, RunConfig)
SAMPLES_ONLY_HEADLINE = "soft_accuracy"  # a report made from samples.jsonl alone: equals accuracy without ties


def metric(name: str) -> Metric:
    """The catalogue entry of a metric name (KeyError names the unknown metric)."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown metric {name!r}; known: {', '.join(ORDERED_NAMES)}") from None


def check_headline(name: str) -> str:
    """`name` if a task may rank by it (a pydantic validator: ValueError names the choices)."""
    if name not in HEADLINES:
        raise ValueError(f"must be one of {', '.join(HEADLINES)}")
    return name


def as_percent(value: float | None) -> float | None:
    """A share as the tables show it: a percentage rounded to 2 decimals."""
    return None if value is None else round(100 * value, 2)


def headline_family(headline: str) -> list[str]:
    """The headline and its per-order and order-consistent variants, as shown beside it."""
    return [headline, f"{headline}_ab", f"{headline}_ba", f"{headline}_consistent"]


def random_baseline_of(headline: str) -> str:
    """The metric holding the label-distribution guesser's expected value under this headline."""
    baseline = metric(headline).random_baseline
    if baseline is None:
        raise KeyError(f"metric {headline!r} has no random baseline")
    return baseline


VALUE_METRICS: tuple[Metric, ...] = tuple(m for m in METRICS if m.value is not None)
_FAMILIES = frozenset(name for h in HEADLINES for name in headline_family(h))
# Leaderboard columns besides the headline's family, in catalogue order (order_consistency, position_bias,
# cohen_kappa, then any metric added with leaderboard=True).
LEADERBOARD_EXTRAS: tuple[str, ...] = tuple(m.name for m in METRICS if m.leaderboard and m.name not in _FAMILIES)
SUMMARY_METRICS: tuple[str, ...] = tuple(m.name for m in METRICS if m.summary)
