"""The bootstrap engine of ratio statistics: one set of seeded multinomial draws of the examples shared by every
ratio of a dimension (so all its intervals use the same draws), exact sums in integer blocks where order cannot
matter, per-key tallies for clustered units, and compact column storage. Used by scoring/diagnostics.py."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from judgebench.stats.exact_sums import blas_for, row_types
from judgebench.stats.resampling import batch_free, resample_batches

EXACT_BLOCK = 50  # exact ratio sums: rounds drawn (int32) and summed per block (memory ~ 200 bytes x examples)
CAP = 255  # a ratio round counts an example at most this often (the counts were held as uint8)


class Resampler:
    """Multinomial resampling counts of examples (rounds x examples, capped at 255), shared by
    every ratio statistic of a dimension so that all its intervals use the same draws. The draws are
    made when the ratios are resolved (`ratio_samples`, called once), chunk by chunk; the same pass
    counts each round's draws per key for the `tally` requests (the system section's battle units)."""

    def __init__(self, n_examples: int, n_resamples: int, seed: int, chunk: int = 200):
        self.n, self.rounds, self.chunk, self.seed = n_examples, n_resamples, chunk, seed
        self.tallies: list[Tally] = []

    def tally(self, keys: np.ndarray, n_keys: int) -> Tally:
        """Request how often each key (keys: one per example, in 0..n_keys-1) is drawn in each round."""
        made = Tally(np.asarray(keys, dtype=np.int64), n_keys, np.empty((self.rounds, n_keys)), self)
        self.tallies.append(made)
        return made

    def _draws(self) -> Iterator[np.ndarray]:
        """Resampled example indices (rows x examples) per chunk, from the one seeded stream."""
        return resample_batches(self.n, self.rounds, self.seed, self.chunk)

    def _blocks(self, exact: bool) -> Iterator[np.ndarray]:
        """The same indices, for exact sums in blocks of EXACT_BLOCK rounds of int32 (resampling.batch_free):
        a sum exact in any order is the same whatever the rows of a product. Sums that are not exact keep
        the original chunks (BLAS may group rows differently)."""
        if exact and batch_free(self.n):
            return resample_batches(self.n, self.rounds, self.seed, EXACT_BLOCK, dtype=np.int32)
        return self._draws()

    def _rows(self, first: int, draws: np.ndarray) -> Iterator[np.ndarray]:
        """How often each example is drawn in each row of a block (n counts per row, as float64: the weights
        np.bincount converts integer counts to, converted once here for every use), counted into the tallies
        (rounds first, first + 1, ...) on the way; a row at a time, so its counts stay in cache."""
        for row, indices in enumerate(draws):
            drawn = np.bincount(indices, minlength=self.n).astype(np.float64)  # integers below 2**53: exact
            for made in self.tallies:  # integer counts summed in floats: exact, the same in any order
                made.rows[first + row] = np.bincount(made.keys, weights=drawn, minlength=made.n_keys)
            yield drawn

    def ratio_samples(self, num: list[np.ndarray], den: list[np.ndarray], exact: bool) -> np.ndarray:
        """sum(w * num) / sum(w * den) per round for the k columns of num and of den (per-example arrays),
        w an example's draw count in the round capped at 255 (the counts were first held as uint8).

        `exact` (exact_sums.sums_are_exact of the columns): then one BLAS thread, blocks of EXACT_BLOCK
        rounds, and when the examples fall into few distinct rows of (num, den) the capped counts are summed
        per distinct row first: the same sums, as every sum is exact. Otherwise the product of the capped
        counts and the columns, a chunk of rounds at a time. The columns may be stored compactly (`compact`)."""
        columns = [*num, *den]
        grouped = row_types(columns) if exact else None
        per_type = None if grouped is None else np.column_stack([as_f64(c[grouped[0]]) for c in columns])
        both = None if grouped is not None else np.column_stack([as_f64(c) for c in columns])
        parts = []
        first = 0
        with blas_for(exact):
            for draws in self._blocks(exact):
                if grouped is not None:
                    types, n_types = grouped[1], len(grouped[0])
                    sums = np.empty((len(draws), n_types))
                    for row, drawn in enumerate(self._rows(first, draws)):
                        sums[row] = np.bincount(types, weights=capped_counts(drawn), minlength=n_types)
                    parts.append(sums @ per_type)
                else:
                    capped = np.empty((len(draws), self.n), dtype=np.uint8)
                    for row, drawn in enumerate(self._rows(first, draws)):
                        capped[row] = np.minimum(drawn, CAP)
                    parts.append(capped.astype(np.float64) @ both)
                first += len(draws)
        for made in self.tallies:
            made.filled = True
        sums = np.vstack(parts) if parts else np.zeros((self.rounds, len(columns)))  # no examples: 0 / 0
        k = len(num)
        with np.errstate(invalid="ignore", divide="ignore"):
            return sums[:, :k] / sums[:, k:]

    def count_tallies(self) -> None:
        """Fill the tallies by a pass of their own (when no ratio pass ran): the same draws, the same counts."""
        first = 0
        for draws in resample_batches(self.n, self.rounds, self.seed, EXACT_BLOCK, dtype=np.int32):
            for _ in self._rows(first, draws):
                pass
            first += len(draws)
        for made in self.tallies:
            made.filled = True


def capped_counts(drawn: np.ndarray) -> np.ndarray:
    """A row's draw counts (float64) with each at most CAP: the row itself when none is above (a round in which
    an example is drawn more than CAP times is never seen on real data), else a capped copy; the same values
    either way, without a copy of the row per round."""
    return drawn if drawn.max(initial=0.0) <= CAP else np.minimum(drawn, CAP)


@dataclass
class Tally:
    """Per-round draw counts per key (`Resampler.tally`), filled by the resampler's pass."""

    keys: np.ndarray
    n_keys: int
    rows: np.ndarray  # rounds x n_keys
    resampler: Resampler
    filled: bool = False

    def counts(self) -> np.ndarray:
        """n_keys x rounds (float64 integers), the pass made first when none ran."""
        if not self.filled:
            self.resampler.count_tallies()
        return self.rows.T


def compact(values: Any) -> np.ndarray:
    """A per-example column as float64 values held in the narrowest float type that holds every one of
    them exactly (float16 for counts, masks and quarters): 1/8 of the memory of ~200 columns at 1M examples."""
    if isinstance(values, np.ndarray) and values.dtype == np.bool_:  # masks: 0 and 1, exact in float16 (no checks)
        return values.astype(np.float16)
    full = np.asarray(values, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        for kind in (np.float16, np.float32):
            narrow = full.astype(kind)
            if np.array_equal(narrow, full):  # NaN never compares equal: such columns stay float64
                return narrow
    return full


def as_f64(values: np.ndarray) -> np.ndarray:
    """A `compact` column back as float64 (the same values)."""
    return np.asarray(values, dtype=np.float64)
