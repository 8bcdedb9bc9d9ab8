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
        Metric(f"{stem}_ab", f"{description}, order AB (as given) only", credit=credit, leaderboard=True),
        Metric(f"{stem}_ba", f"{description}, order BA (swapped) only", credit=credit, leaderboard=True),
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
