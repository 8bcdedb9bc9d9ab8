"""Paired tests on per-example scores of two runs: the significance test and interval `compare` reports.

The unit is the example (its headline score: the mean over orders and dimensions). The test:
McNemar's exact test when every per-example score is 0 or 1 in both runs (binary outcomes);
otherwise the exact sign-flip (paired permutation) test of the mean difference, enumerating all
2^m sign patterns of the m nonzero differences (m <= EXACT_MAX_NONZERO, or any m when they share
one magnitude: then it is a binomial test), else a seeded Monte-Carlo sign-flip test with
MONTE_CARLO_RESAMPLES patterns. The interval: a seeded percentile bootstrap of the mean difference.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from judgebench.stats.resampling import percentile_interval, resample_batches

BOOTSTRAP_RESAMPLES = 2000
MONTE_CARLO_RESAMPLES = 10_000
EXACT_MAX_NONZERO = 20  # enumerate all 2^m sign patterns up to this many nonzero differences
ALPHA = 0.05
DECIMALS = 12  # per-example scores are rounded before testing (means of 0, 0.5, 1)


@dataclass
class PairedTest:
    """The significance test of the headline difference; its unit is the example."""

    name: str  # "McNemar exact", "sign-flip exact" or "sign-flip Monte Carlo"
    unit: str  # always "example": both orders and all dimensions averaged into one score
    n: int  # examples whose headline score changed (the nonzero differences the test uses)
    rose: int  # examples whose score rose (candidate better)
    fell: int
    p: float  # two-sided
    resamples: int | None = None  # Monte-Carlo sign patterns drawn (None: exact)


def paired_bootstrap_ci(
    diffs: np.ndarray, *, seed: int = 0, n_resamples: int = BOOTSTRAP_RESAMPLES, confidence: float = 0.95
) -> tuple[float, float]:
    """Percentile CI of the mean per-example difference, resampling examples (seeded)."""
    n = len(diffs)
    batches = resample_batches(n, n_resamples, seed, batch=max(1, 2_000_000 // max(n, 1)))
    means = np.concatenate([diffs[idx].mean(axis=1) for idx in batches])
    low, high = percentile_interval(means, confidence)
    return float(low), float(high)


def mcnemar_exact(baseline_only: int, candidate_only: int) -> float:
    """Two-sided exact McNemar p-value: a binomial test (p = 1/2) on the discordant pairs.

    With p = 1/2 the distribution is symmetric, so the two-sided p is twice the smaller tail
    (capped at 1), computed exactly with integers.
    """
    total = baseline_only + candidate_only
    if total == 0:
        return 1.0
    tail = sum(math.comb(total, k) for k in range(min(baseline_only, candidate_only) + 1))
    return min(1.0, 2 * tail / 2**total)


def sign_flip_exact(nonzero: np.ndarray) -> float:
    """Two-sided exact sign-flip p: the share of all 2^m sign patterns with |sum| >= the observed |sum|."""
    observed = abs(float(nonzero.sum()))
    sums = np.zeros(1)
    for value in np.abs(nonzero):
        sums = np.concatenate([sums + value, sums - value])
    return float(np.mean(np.abs(sums) >= observed - 1e-9))


def sign_flip_monte_carlo(nonzero: np.ndarray, *, seed: int, resamples: int) -> float:
    """Two-sided Monte-Carlo sign-flip p, (1 + hits) / (1 + resamples), over seeded random sign patterns."""
    rng = np.random.default_rng(seed)
    observed = abs(float(nonzero.sum()))
    magnitudes = np.abs(nonzero)
    hits, chunk = 0, max(1, 2_000_000 // len(magnitudes))
    for start in range(0, resamples, chunk):
        signs = rng.choice((-1.0, 1.0), size=(min(chunk, resamples - start), len(magnitudes)))
        hits += int(np.sum(np.abs(signs @ magnitudes) >= observed - 1e-9))
    return (1 + hits) / (1 + resamples)


def paired_test(
    base_values: np.ndarray, cand_values: np.ndarray, *, seed: int = 0, resamples: int = MONTE_CARLO_RESAMPLES
) -> PairedTest:
    """Two-sided test of the mean per-example difference (candidate - baseline); see the module docstring."""
    diffs = np.round(np.asarray(cand_values) - np.asarray(base_values), DECIMALS)
    nonzero = diffs[diffs != 0]
    rose, fell = int(np.sum(nonzero > 0)), int(np.sum(nonzero < 0))
    binary = bool(np.isin(base_values, (0.0, 1.0)).all() and np.isin(cand_values, (0.0, 1.0)).all())
    one_magnitude = len(nonzero) > 0 and bool(np.all(np.abs(nonzero) == abs(nonzero[0])))
    if binary or one_magnitude or len(nonzero) == 0:  # the sign-flip distribution is binomial
        name = "McNemar exact" if binary else "sign-flip exact"
        return PairedTest(name, "example", len(nonzero), rose, fell, mcnemar_exact(fell, rose))
    if len(nonzero) <= EXACT_MAX_NONZERO:
        return PairedTest("sign-flip exact", "example", len(nonzero), rose, fell, sign_flip_exact(nonzero))
    p = sign_flip_monte_carlo(nonzero, seed=seed, resamples=resamples)
    return PairedTest("sign-flip Monte Carlo", "example", len(nonzero), rose, fell, p, resamples)
