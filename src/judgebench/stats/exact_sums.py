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

from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext

import numpy as np

QUANTUM_BITS = 10  # values must be multiples of 1/1024 for the exact path
_LIMIT = 2.0**53


Values = np.ndarray | Sequence[np.ndarray]  # a matrix (n x k) or its k columns


def _columns(values: Values) -> Sequence[np.ndarray]:
    return list(np.ascontiguousarray(values.T)) if isinstance(values, np.ndarray) else values


def sums_are_exact(values: Values, total_weight: float) -> bool:
    """True when w @ values is exact in any summation order for non-negative integer weights
    w summing to at most `total_weight` per row (values: a matrix or its columns)."""
    for column in _columns(values):
        scaled = np.asarray(column, dtype=np.float64) * 2.0**QUANTUM_BITS
        if scaled.size == 0:
            continue
        if not np.isfinite(scaled).all():
            return False
        biggest = float(np.abs(scaled).max())
        if biggest * float(total_weight) >= _LIMIT or not (scaled.astype(np.int64) == scaled).all():
            return False  # (integral checked below 2**53, where int64 holds every value exactly)
    return True


def blas_for(exact: bool) -> AbstractContextManager[None]:
    """The context for products whose exactness `sums_are_exact` established: one BLAS thread
    when exact, else BLAS as configured (the original path)."""
    if not exact:
        return nullcontext()
    from judgebench.stats.ratings import single_threaded_blas

    return single_threaded_blas()


_MIX = np.uint64(0x9E3779B97F4A7C15)  # odd 64-bit multiplier (golden ratio): a row hash, verified below
_MAX_TYPE_SHARE = 0.25  # grouping pays only when the distinct rows are at most this share of the rows


def row_types(values: Values) -> tuple[np.ndarray, np.ndarray] | None:
    """(first row of each distinct row, type of every row) for values that passed `sums_are_exact`
    (a matrix or its columns); None when the rows are too varied for grouping to pay (or, never
    seen, two rows share a hash).

    Rows are grouped by a 64-bit hash of their integer-scaled values, then every row is checked equal
    to its type's first row, so a grouping is never wrong, only sometimes refused."""
    columns = _columns(values)
    n = len(columns[0]) if len(columns) else 0
    if n == 0:
        return None
    key = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for column in columns:  # integral after scaling (sums_are_exact)
            scaled = (np.asarray(column, dtype=np.float64) * 2.0**QUANTUM_BITS).astype(np.int64).view(np.uint64)
            key = key * _MIX + scaled  # wraps modulo 2**64
    _, first, types = np.unique(key, return_index=True, return_inverse=True)
    if len(first) > _MAX_TYPE_SHARE * n:
        return None
    types = types.reshape(-1)
    for column in columns:
        column = np.asarray(column, dtype=np.float64)
        if not np.array_equal(column, column[first][types]):
            return None
    return first, types


def type_counts(draws: np.ndarray, types: np.ndarray, n_types: int) -> np.ndarray:
    """Resample counts summed per row type (rows x n_types, float) from drawn example indices
    (rows x n): the per-type sums of np.bincount(row, minlength=n) for each row."""
    out = np.empty((len(draws), n_types))
    for row in range(len(draws)):  # one small bincount per row: 20x faster than one over (row, type) cells
        out[row] = np.bincount(types[draws[row]], minlength=n_types)  # a row's types at a time: no rows x n copy
    return out

