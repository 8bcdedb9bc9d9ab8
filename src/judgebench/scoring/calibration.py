"""The judge's confidence as curves and intervals (issue 34; docs/guide/confidence.md): the reliability
diagram, the expected calibration error with a bootstrap interval, accuracy vs coverage as the judge abstains,
and the accuracy of judge + humans as the least confident share goes to humans. The metrics themselves are
defined once in core/catalogue.py; this module only evaluates them over ranges for the report. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from judgebench.core.catalogue import (
    ECE_BINS,
    expected_calibration_error,
    handoff_accuracy,
    reliability_bins,
    selective_area,
    selective_curve,
)
from judgebench.core.records import JudgmentRecord
from judgebench.scoring.judgment_table import dimension_tables
from judgebench.stats.resampling import MIN_UNITS, percentile_interval, resample_batches

HANDOFF_SHARES = tuple(k / 20 for k in range(11))  # 0%, 5%, ..., 50% of the examples sent to humans
CURVE_POINTS = 50  # the accuracy-coverage curve is reported at up to this many coverages


def bootstrap_interval(statistic: Callable[..., float | None], columns: Sequence[np.ndarray], n_resamples: int,
                       seed: int) -> tuple[float | None, float | None]:
    """Percentile bootstrap interval (95%) of `statistic(*columns)`, resampling examples (rows) together."""
    n = len(columns[0])
    if n < MIN_UNITS or n_resamples < 1:
        return None, None
    batch = max(1, min(n_resamples, 1_000_000 // n))
    values = [statistic(*(c[idx] for c in columns)) for rows in resample_batches(n, n_resamples, seed, batch)
              for idx in rows]
    low, high = percentile_interval(np.array([np.nan if v is None else v for v in values], dtype=float))
    return (float(low), float(high)) if np.isfinite(low) and np.isfinite(high) else (None, None)


def ece_interval(conf: np.ndarray, correct: np.ndarray, n_resamples: int, seed: int,
                 bins: int = ECE_BINS) -> tuple[float | None, float | None]:
    """Percentile bootstrap interval (95%) of the ECE, resampling examples."""
    return bootstrap_interval(lambda c, k: expected_calibration_error(c, k, bins), (conf, correct), n_resamples, seed)


def vote_share_curve(p_a: np.ndarray, share_a: np.ndarray, bins: int = ECE_BINS) -> list[list[float]]:
    """Against the experts' spread: (low, high, n, mean judge P(A), mean share of annotators choosing A) per
    non-empty equal-width bin of the judge's P(A) (dataset positions). On the diagonal: the judge is as split
    as the experts (reliability_bins' rule with the vote share in place of correctness)."""
    return [list(b) for b in reliability_bins(p_a, share_a, bins)]


def calibration_curves(records: Iterable[JudgmentRecord], *, both_bad: str = "tie", n_resamples: int = 1000,
                       seed: int = 0) -> dict[str, dict[str, Any]]:
    """dimension -> the curves of its examples with a confidence (dimensions without any left out):
    n, ece and its interval, `top_label_accuracy` (the share whose confidence's top label is the label: the
    reliability bins' accuracy over all of them), `reliability` (low, high, n, mean confidence, accuracy per bin),
    `selective`
    (coverage, accuracy), `handoff` (share to humans, accuracy of judge + humans), `vote_curve` (on pairs with
    2+ annotators: `vote_share_curve`; empty without votes)."""
    out: dict[str, dict[str, Any]] = {}
    for dimension, t in dimension_tables(records, both_bad).items():
        rows = t.cols["has_confidence"]
        if not rows.any():
            continue
        conf, correct, exact = t.cols["top_conf"][rows], t.cols["conf_correct"][rows], t.cols["exact"][rows]
        coverage, accuracy = selective_curve(conf, exact)
        step = max(1, len(coverage) // CURVE_POINTS)
        keep = sorted({*range(step - 1, len(coverage), step), len(coverage) - 1})
        low, high = ece_interval(conf, correct, n_resamples, seed)
        auc_low, auc_high = bootstrap_interval(selective_area, (conf, exact), n_resamples, seed)
        sources = [r.confidence_source for r in records if r.dimension == dimension and r.confidence_source]
        voted = t.cols["has_vote_shares"]
        vote_curve = (vote_share_curve(t.cols["conf_a"][voted], t.cols["vote_share_a"][voted])
                      if voted.any() else [])
        out[dimension] = {
            "n": int(rows.sum()),
            "sources": sorted(set(sources)),
            "top_label_accuracy": float(correct.mean()),
            "ece": expected_calibration_error(conf, correct),
            "ece_ci_low": low,
            "ece_ci_high": high,
            "selective_auc": selective_area(conf, exact),
            "selective_auc_ci_low": auc_low,
            "selective_auc_ci_high": auc_high,
            "bins": ECE_BINS,
            "reliability": [list(b) for b in reliability_bins(conf, correct)],
            "selective": [[float(coverage[i]), float(accuracy[i])] for i in keep],
            "handoff": [[share, handoff_accuracy(conf, exact, share)] for share in HANDOFF_SHARES],
            "vote_curve": vote_curve,
        }
    return out
