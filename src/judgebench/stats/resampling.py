"""Seeded resampling of examples: the one place bootstrap draws are made.

Every bootstrap interval in judgebench (metrics, diagnostics, compare) resamples examples with
replacement from ``numpy.random.default_rng(seed)``, in batches of index rows. Each caller keeps
its own batch size, so its published figures stay reproducible; for fewer than 2**31 examples the
indices do not depend on it (`batch_free`), which lets a caller draw smaller blocks to bound memory
(the diagnostics' ratio bootstrap does). Bradley–Terry ratings
(ratings.py) draw their own battle resamples: their fast paired bootstrap lays rounds out per
model pair, which this row-of-indices form cannot express without a large slowdown. Battles
aggregated into counts (arena) are resampled by multinomial_counts.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import numpy as np

DEFAULT_RESAMPLES = 1000
CONFIDENCE = 0.95


def resample_batches(n: int, n_resamples: int, seed: int, batch: int, dtype: type = np.int64) -> Iterator[np.ndarray]:
    """Index arrays of shape (rows, n), rows <= batch, n_resamples rows in all, from one seeded stream.

    For n < 2**31 the indices are the same whatever the batch and whether `dtype` is np.int64 or
    np.int32: numpy draws each index of a 32-bit range from the generator's own 32-bit stream, whose
    buffer is kept in the generator between calls (tests/stats/test_resampling.py checks it). int32 halves the
    memory of a batch; `batch_free` says when a caller may choose its batch freely."""
    if n < 1 or n_resamples < 1:
        return
    rng = np.random.default_rng(seed)
    step = max(1, int(batch))
    for start in range(0, n_resamples, step):
        yield rng.integers(0, n, size=(min(step, n_resamples - start), n), dtype=dtype)


def batch_free(n: int) -> bool:
    """Whether resample_batches(n, ...) gives the same indices for every batch size and for int32 (n < 2**31)."""
    return n < 2**31


def subsample(n: int, m: int, seed: int) -> np.ndarray:
    """m of range(n) without replacement, sorted, from a seeded stream (all of them when m >= n)."""
    if m >= n:
        return np.arange(n)
    return np.sort(np.random.default_rng([seed, n, m]).choice(n, size=m, replace=False))


MIN_UNITS = 2  # a bootstrap of fewer units (one example, one battle) has no spread to show: no interval
POINT_TOLERANCE = 1e-9  # relative: how far a point may fall outside its interval by rounding alone (`covering`)


def covering(point: np.ndarray | float, low: np.ndarray | float, high: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) widened to `point` where it lies outside by numerical noise only (at most POINT_TOLERANCE of
    max(1, |point|)): a point and its resamples computed along different paths (a point fit and its bootstrap
    fits, each stopped within the optimiser's tolerance; a ratio summed in another order) can leave an interval
    whose every resample equals the point a few ulps short of it (an outside audit: a rating 2e-9 Elo above its
    [x, x]). A point outside by more is left where the bootstrap puts it (a percentile interval need not hold its
    point)."""
    point, low, high = (np.asarray(x, dtype=float) for x in (point, low, high))
    slack = POINT_TOLERANCE * np.maximum(1.0, np.abs(point))
    low = np.where((point < low) & (low - point <= slack), point, low)
    high = np.where((point > high) & (point - high <= slack), point, high)
    return low, high


MIN_DEFINED = 10  # undefined resamples: the interval needs at least this many defined ones ...
MIN_DEFINED_SHARE = 0.5  # ... and at least this share of all of them


def percentile_interval(samples: np.ndarray, confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) percentile interval along the last axis, by the one rule for undefined resamples that every
    family follows (metrics, the human ceiling, diagnostics, rubric, repeats, calibration): a resample whose
    statistic is undefined (NaN or infinite: a zero denominator, a constant side of a correlation) is left out,
    and the interval is taken over the defined ones when they are at least MIN_DEFINED and at least
    MIN_DEFINED_SHARE of all; otherwise it is NaN (reported as no interval). With every resample defined the
    interval is the plain percentile interval."""
    samples = np.asarray(samples, dtype=float)
    tail = (1 - confidence) / 2
    finite = np.isfinite(samples)
    if finite.all():
        low, high = np.quantile(samples, [tail, 1 - tail], axis=-1)
        return low, high
    n = samples.shape[-1]
    enough = finite.sum(axis=-1) >= max(MIN_DEFINED, int(np.ceil(n * MIN_DEFINED_SHARE)))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN row: NaN, as reported
        low, high = np.nanquantile(np.where(finite, samples, np.nan), [tail, 1 - tail], axis=-1)
    return np.where(enough, low, np.nan), np.where(enough, high, np.nan)


def multinomial_counts(rng: np.random.Generator, counts: np.ndarray, rounds: int) -> np.ndarray:
    """rounds x len(counts) resampled counts: each row draws sum(counts) items with replacement
    from the items the counts describe (the same distribution as resampling the expanded rows,
    in memory independent of their number)."""
    total = int(round(float(np.sum(counts))))
    return rng.multinomial(total, np.asarray(counts, dtype=float) / max(total, 1), size=rounds)
