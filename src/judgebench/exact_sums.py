"""Resampled weighted sums (bootstrap counts x per-example values) computed fast when they are exact.

Every bootstrap interval of a ratio metric is a product ``counts @ values``: resample counts
(rounds x examples, non-negative integers) times per-example numerators and denominators. On a
2-core machine shared with other jobs, OpenBLAS's threads make this product of a few rounds by
100,000 examples 5-15x slower than one thread (hand-offs between threads that wait for a core).

One thread changes the order in which BLAS adds the products, which in general changes the last
bits of a sum. It cannot here when every product and every partial sum is exactly representable:
values that are multiples of 2**-QUANTUM_BITS (0, 1/2, 1/4: accuracies, soft scores, their means
over two orders, counts) times integer counts, with |sum| below 2**53 in those units, are exact in
any order. `sums_are_exact` checks that condition and only then `blas_for` takes one thread;
anything else (e.g. a mean over three dimensions, 1/3) keeps the original multi-threaded product,
so every figure is bit-for-bit what it was.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext

import numpy as np

QUANTUM_BITS = 10  # values must be multiples of 1/1024 for the exact path
_LIMIT = 2.0**53


def sums_are_exact(values: np.ndarray, total_weight: float) -> bool:
    """True when w @ values is exact in any summation order for non-negative integer weights
    w summing to at most `total_weight` per row."""
    if values.size == 0:
        return True
    scaled = values * 2.0**QUANTUM_BITS
    if not np.isfinite(scaled).all() or float(np.abs(scaled).max()) >= _LIMIT:
        return False
    if not (scaled.astype(np.int64) == scaled).all():  # integral (exact below 2**53)
        return False
    return float(np.abs(scaled).max()) * float(total_weight) < _LIMIT


def blas_for(exact: bool) -> AbstractContextManager[None]:
    """The context for products whose exactness `sums_are_exact` established: one BLAS thread
    when exact, else BLAS as configured (the original path)."""
    if not exact:
        return nullcontext()
    from .ratings import single_threaded_blas

    return single_threaded_blas()


_MIX = np.uint64(0x9E3779B97F4A7C15)  # odd 64-bit multiplier (golden ratio): a row hash, verified below
_MAX_TYPE_SHARE = 0.25  # grouping pays only when the distinct rows are at most this share of the rows


def row_types(values: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(first row of each distinct row, type of every row) for a matrix that passed `sums_are_exact`;
    None when the rows are too varied for grouping to pay (or, never seen, two rows share a hash).

    Rows are grouped by a 64-bit hash of their integer-scaled values, then every row is checked equal
    to its type's first row, so a grouping is never wrong, only sometimes refused."""
    n = len(values)
    if n == 0 or values.shape[1] == 0:
        return None
    scaled = (values * 2.0**QUANTUM_BITS).astype(np.int64).view(np.uint64)  # integral: sums_are_exact
    key = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for column in scaled.T:
            key = key * _MIX + column  # wraps modulo 2**64
    _, first, types = np.unique(key, return_index=True, return_inverse=True)
    if len(first) > _MAX_TYPE_SHARE * n:
        return None
    for column in values.T:
        if not np.array_equal(column, column[first][types]):
            return None
    return first, types.reshape(-1)


def type_counts(draws: np.ndarray, types: np.ndarray, n_types: int) -> np.ndarray:
    """Resample counts summed per row type (rows x n_types, float) from drawn example indices
    (rows x n): the per-type sums of np.bincount(row, minlength=n) for each row."""
    drawn = types[draws]
    out = np.empty((len(draws), n_types))
    for row in range(len(draws)):  # one small bincount per row: 20x faster than one over (row, type) cells
        out[row] = np.bincount(drawn[row], minlength=n_types)
    return out

