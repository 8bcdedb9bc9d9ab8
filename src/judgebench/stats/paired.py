"""Paired tests on per-example scores of two runs: the significance test and interval `compare` reports.

The unit is the example (its headline score: the mean over orders and dimensions). The test:
McNemar's exact test when every per-example score is 0 or 1 in both runs (binary outcomes);
otherwise the exact sign-flip (paired permutation) test of the mean difference: all 2^m sign patterns of
the m nonzero differences enumerated (m <= EXACT_MAX_NONZERO), or, when they share one magnitude, a
binomial test, or, when they lie on a grid (multiples of 1/G: quarters with both orders, 1/(4D) over D
dimensions), the exact distribution of the signed sum counted on that grid (a convolution of binomials,
one per distinct magnitude). Only differences on no small grid get a seeded Monte-Carlo sign-flip test
with MONTE_CARLO_RESAMPLES patterns, whose smallest p is 1 / (resamples + 1) (`format_p` says "p < ..."
there). The interval: a seeded percentile bootstrap of the mean difference.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from judgebench.stats.resampling import MIN_UNITS, percentile_interval, resample_batches

BOOTSTRAP_RESAMPLES = 2000
MONTE_CARLO_RESAMPLES = 10_000
EXACT_MAX_NONZERO = 20  # enumerate all 2^m sign patterns up to this many nonzero differences
ALPHA = 0.05
DECIMALS = 12  # per-example scores are rounded before testing (means of 0, 0.5, 1)
MAX_GRID = 10_000  # the finest grid 1/G tried for an exact test
MAX_GRID_SUM = 4_000_000  # the most grid steps the signed sum may span (the counting array's size)


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
) -> tuple[float, float] | None:
    """Percentile CI of the mean per-example difference, resampling examples (seeded); None from fewer than
    MIN_UNITS examples (one shared example gave [-100.00, -100.00])."""
    n = len(diffs)
    if n < MIN_UNITS:
        return None
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


def grid_of(values: np.ndarray) -> int | None:
    """The smallest G <= MAX_GRID with every value a multiple of 1/G (to 1e-9), else None."""
    for grid in range(1, MAX_GRID + 1):
        scaled = values * grid
        if np.all(np.abs(scaled - np.round(scaled)) < 1e-9):
            return grid
    return None


def sign_flip_grid_exact(nonzero: np.ndarray, grid: int) -> float | None:
    """Two-sided exact sign-flip p for differences that are multiples of 1/grid: the signed sum's exact
    distribution, counted on the grid. Each distinct magnitude v held by c differences adds v * (2k - c),
    k ~ Binomial(c, 1/2); the distributions of the magnitudes are convolved. None when the sum spans more
    than MAX_GRID_SUM grid steps."""
    from scipy.stats import binom

    steps = np.round(np.abs(nonzero) * grid).astype(np.int64)
    total = int(steps.sum())
    if total > MAX_GRID_SUM:
        return None
    dist = np.ones(1)  # P(sum of the magnitudes seen so far = -their total + index)
    for value, count in zip(*np.unique(steps, return_counts=True)):
        pmf = binom.pmf(np.arange(count + 1), count, 0.5)  # k positive signs: sum = value * (2k - count)
        spread = np.zeros(2 * value * count + 1)
        spread[:: 2 * value] = pmf
        dist = np.convolve(dist, spread)
    observed = abs(int(np.round(nonzero.sum() * grid)))
    sums = np.arange(len(dist)) - total
    return float(min(1.0, dist[np.abs(sums) >= observed].sum()))


def format_p(test: PairedTest) -> str:
    """p as printed: `p = 0.0004421`, or `p < 9.999e-05` where a Monte-Carlo test found no pattern as extreme."""
    if test.n == 0:  # (exact, and says nothing: an outside audit read `n = 0 ..., p = 1` as a finding)
        return "p = 1 (no example changed: nothing to test)"
    if test.resamples and test.p <= 1 / (test.resamples + 1) + 1e-15:
        return f"p < {1 / (test.resamples + 1):.4g} (Monte Carlo, no pattern as extreme)"
    return f"p = {test.p:.4g}"


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
    grid = grid_of(nonzero)
    exact = sign_flip_grid_exact(nonzero, grid) if grid is not None else None
    if exact is not None:
        return PairedTest("sign-flip exact", "example", len(nonzero), rose, fell, exact)
    p = sign_flip_monte_carlo(nonzero, seed=seed, resamples=resamples)
    return PairedTest("sign-flip Monte Carlo", "example", len(nonzero), rose, fell, p, resamples)
