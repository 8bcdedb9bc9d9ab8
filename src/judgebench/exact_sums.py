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
    if not np.isfinite(scaled).all() or not (scaled == np.round(scaled)).all():
        return False
    return float(np.abs(scaled).max()) * float(total_weight) < _LIMIT


def blas_for(exact: bool) -> AbstractContextManager[None]:
    """The context for products whose exactness `sums_are_exact` established: one BLAS thread
    when exact, else BLAS as configured (the original path)."""
    if not exact:
        return nullcontext()
    from .ratings import single_threaded_blas

    return single_threaded_blas()
