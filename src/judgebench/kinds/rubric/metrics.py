"""Rubric calibration metrics: pure functions of judge points, expert points and maxima.

Each metric is defined once here (described in catalogue.RUBRIC_METRICS). Inputs are aligned
arrays: `judge`, `expert` (points) and `top` (the maximum points of each unit: a rubric item, or
a response's total). Correlations of fewer than two units, or of a constant side, are None.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

OVER_CREDIT_POINTS = 0.5  # judge >= expert + this is over-credit
EPS = 1e-9


def mae(judge: np.ndarray, expert: np.ndarray) -> float | None:
    return float(np.mean(np.abs(judge - expert))) if len(judge) else None


def normalized_mae(judge: np.ndarray, expert: np.ndarray, top: np.ndarray) -> float | None:
    return float(np.mean(np.abs(judge - expert) / top)) if len(judge) else None


def bias(judge: np.ndarray, expert: np.ndarray) -> float | None:
    return float(np.mean(judge - expert)) if len(judge) else None


def within_k(judge: np.ndarray, expert: np.ndarray, k: float) -> float | None:
    return float(np.mean(np.abs(judge - expert) <= k + EPS)) if len(judge) else None


def over_credit(judge: np.ndarray, expert: np.ndarray, points: float = OVER_CREDIT_POINTS) -> int:
    return int(np.sum(judge >= expert + points - EPS))


def _constant(values: np.ndarray) -> bool:
    return bool(np.all(values == values[0]))


def pearson(x: np.ndarray, y: np.ndarray) -> float | None:
    if len(x) < 2 or _constant(x) or _constant(y):
        return None
    return float(np.corrcoef(x, y)[0, 1])


def spearman(x: np.ndarray, y: np.ndarray) -> float | None:
    if len(x) < 2 or _constant(x) or _constant(y):
        return None
    return float(stats.spearmanr(x, y).statistic)


def kendall(x: np.ndarray, y: np.ndarray) -> float | None:
    if len(x) < 2 or _constant(x) or _constant(y):
        return None
    return float(stats.kendalltau(x, y).statistic)  # tau-b (ties on either side)


def calibration(judge: np.ndarray, expert: np.ndarray, top: np.ndarray, k: float) -> dict[str, float | int | None]:
    """Every calibration metric of one level on one set of units."""
    return {
        "normalized_mae": normalized_mae(judge, expert, top),
        "mae": mae(judge, expert),
        "bias": bias(judge, expert),
        "within_k": within_k(judge, expert, k),
        "over_credit": over_credit(judge, expert),
        "pearson": pearson(judge, expert),
        "spearman": spearman(judge, expert),
        "kendall": kendall(judge, expert),
    }


def exact_agreement(a: np.ndarray, b: np.ndarray) -> float | None:
    """Share of units given the same points (to 1e-9) by two gradings."""
    return float(np.mean(np.abs(a - b) <= EPS)) if len(a) else None


def mean_pairwise(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return float(np.mean(present)) if present else None
