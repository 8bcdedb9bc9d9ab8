"""A battle table's columns as integer codes, each factorised once (issue 30).

At millions of votes, hashing the strings (pair ids, annotator and model names) costs more than anything
done with them afterwards; the battles, the voter statistics, the counts and robustness all take their codes
from one `Coded` (each column factorised on first use and kept), and count with `np.bincount`.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from judgebench.core.errors import JudgebenchError

_CACHED = ("models", "annotators", "pairs", "pair_annotators", "choices", "_canonical", "cells",
           "_outcome_counts")  # cached below
OUTCOMES = np.array([0.0, 0.5, 1.0])  # a battle's outcome for model_a: loss, tie (or Both Bad), win


_MIX = np.uint64(0x9E3779B97F4A7C15)  # a 64-bit odd multiplier (the golden ratio's): mixes each word into the hash
_ALL_BITS = np.uint64(0xFFFFFFFFFFFFFFFF)
_LONGEST_HASHED = 256  # bytes: a column holding a longer value is factorised (the hash loops once per 8 bytes)


def _distinct_strings(column: pd.Series) -> bool:
    """Whether the values of an Arrow-backed string column without nulls are all different, by a 64-bit hash of
    each value (length and bytes) computed in numpy and sorted: different hashes are different strings, so True is
    exact; False when two hashes are equal (a repeated value or a collision), when a value is longer than
    _LONGEST_HASHED bytes, or when the column is not such a column. At 2,000,000 distinct pair ids: 0.1 s, against
    0.5-1.0 s for a hash table of the strings (issue 30)."""
    if not (isinstance(column.dtype, pd.StringDtype) and column.dtype.storage == "pyarrow") or column.hasnans:
        return False
    import pyarrow as pa  # (the column's storage)

    stored = column.array.__arrow_array__()  # the column's own Arrow data (no copy)
    chunks = stored.chunks if isinstance(stored, pa.ChunkedArray) else [stored]
    hashes = [_string_hashes(chunk, pa) for chunk in chunks]
    if any(h is None for h in hashes):
        return False
    ordered = np.sort(np.concatenate(hashes)) if hashes else np.zeros(0, np.uint64)
    return not bool((ordered[1:] == ordered[:-1]).any())


def _string_hashes(chunk: Any, pa: Any) -> np.ndarray | None:
    """A 64-bit hash of each value of an Arrow string array (no nulls): its byte length, then each 8-byte word of
    its bytes (the last one zero-padded), mixed in turn. A function of the value's bytes alone (the same in every
    chunk, whatever the other values' lengths). None when a value is longer than _LONGEST_HASHED bytes, or when
    the array is not held as offsets and bytes (a string view)."""
    if not (pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type)):
        return None
    _, offsets_buffer, data_buffer = chunk.buffers()
    width = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
    offsets = np.frombuffer(offsets_buffer, dtype=width, count=len(chunk) + 1,
                            offset=chunk.offset * np.dtype(width).itemsize).astype(np.int64)
    first, last = (int(offsets[0]), int(offsets[-1])) if len(chunk) else (0, 0)
    start, end = offsets[:-1] - first, offsets[1:] - first  # (a slice's values lie anywhere in its data buffer)
    longest = int((end - start).max(initial=0))
    if longest > _LONGEST_HASHED:
        return None
    data = np.zeros(last - first + 8, dtype=np.uint8)  # the chunk's bytes, then 8 zero bytes
    if last > first:
        data[:last - first] = np.frombuffer(data_buffer, dtype=np.uint8, count=last - first, offset=first)
    words = np.ndarray((len(data) - 7,), dtype="<u8", buffer=data, strides=(1,))  # the 8 bytes from each byte on
    lengths = end - start
    hashes = lengths.astype(np.uint64) * _MIX
    for skip in range(0, longest, 8):  # a value's own words only: its hash must not depend on its chunk's longest
        left = np.clip(lengths - skip, 0, 8).astype(np.uint64)  # the value's bytes in this word
        mask = np.where(left == 8, _ALL_BITS, (np.uint64(1) << (left * np.uint64(8))) - np.uint64(1))
        mixed = (hashes ^ (words[np.minimum(start + skip, len(words) - 1)] & mask)) * _MIX
        mixed ^= mixed >> np.uint64(29)
        hashes = np.where(lengths > skip, mixed, hashes)
    return hashes


class Coded:
    """Integer codes of a battle table's columns, aligned with its rows, computed on first use."""

    def __init__(self, table: pd.DataFrame):
        self.table = table

    @cached_property
    def models(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(a, b, names): model_a's and model_b's index in the sorted model names (str; a missing name is
        'nan'), so comparing codes compares names."""
        n = len(self.table)
        codes, uniques = pd.factorize(pd.concat([self.table["model_a"], self.table["model_b"]],
                                                ignore_index=True).astype(str))
        names = np.asarray(uniques, dtype=str)
        nul = [str(u) for u in uniques if str(u).endswith("\0")]  # numpy's text drops it: 'a\0' would become 'a'
        if nul:
            raise JudgebenchError(f"model name {min(nul)!r} ends in a NUL character, which would be dropped (and "
                                  "the name taken for another): rename the model")
        rank = np.empty(len(names), dtype=np.int64)
        rank[np.argsort(names, kind="stable")] = np.arange(len(names))
        return rank[codes[:n]], rank[codes[n:]], np.sort(names)

    def canonical(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(lo, hi, swapped, names): each vote's pair in sorted order (swapped: the vote's A is model_b)."""
        return self._canonical

    @cached_property
    def _canonical(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        a, b, names = self.models
        swap = a > b
        return np.where(swap, b, a), np.where(swap, a, b), swap, names

    @cached_property
    def cells(self) -> np.ndarray:
        """Each battle's cell (sorted pair, outcome for the pair's first model: the table's `outcome` column) as one
        integer, in the order of (first model, second model, outcome) codes: (lo * models + hi) * 3 + outcome
        index (outcomes in OUTCOMES)."""
        lo, hi, swap, names = self.canonical()
        outcome = self.table["outcome"].to_numpy()
        y = np.where(swap, 1.0 - outcome, outcome)
        return (lo * len(names) + hi) * len(OUTCOMES) + np.rint(y * 2).astype(np.int64)

    def outcome_counts(self) -> np.ndarray | None:
        """Battles per cell as a models x models x outcomes array: [lo, hi, i] counts the battles of the sorted pair
        (lo, hi) whose outcome for lo is OUTCOMES[i]; None unless every outcome is a loss, a tie or a win, and when
        the cells outnumber the battles fourfold (a small slice of many models: counting per battle is cheaper).
        A sum of whole and half points over it is exact, so it equals the same sum over the battles (in any order)."""
        return self._outcome_counts

    @cached_property
    def _outcome_counts(self) -> np.ndarray | None:
        n = len(self.canonical()[3])
        cells = n * n * len(OUTCOMES)
        if cells > 4 * len(self.table) or not np.isin(self.table["outcome"].to_numpy(), OUTCOMES).all():
            return None
        return np.bincount(self.cells, minlength=cells).reshape(n, n, len(OUTCOMES))

    @cached_property
    def annotators(self) -> tuple[np.ndarray, np.ndarray]:
        """(codes, names): each vote's annotator as an index into the sorted annotator names (as str)."""
        codes, names = pd.factorize(self.table["annotator"].astype(str), sort=True)
        return codes.astype(np.int64, copy=False), np.asarray(names, dtype=object)

    @cached_property
    def pairs(self) -> np.ndarray:
        """Each vote's pair_id as a code (first appearance order; a missing id is a pair of its own)."""
        column = self.table["pair_id"]
        if _distinct_strings(column):  # every pair once (an arena's battles): numbered in order, no hash table
            return np.arange(len(column), dtype=np.int64)
        codes, _ = pd.factorize(column, use_na_sentinel=False)
        return codes.astype(np.int64, copy=False)

    @cached_property
    def pair_annotators(self) -> np.ndarray:
        """Each vote's (pair, annotator) as a code, in order of first appearance (a repeated vote shares it)."""
        pairs = self.pairs
        if self.one_vote_per_pair():  # (an arena's battles): the pair's code
            return pairs
        annotator, names = self.annotators
        codes, _ = pd.factorize(pairs * max(len(names), 1) + annotator)
        return codes.astype(np.int64, copy=False)

    def one_vote_per_pair(self) -> bool:
        """Whether every vote is on a pair of its own (pair codes number pairs in order of first appearance)."""
        pairs = self.pairs
        return not len(pairs) or int(pairs.max()) + 1 == len(pairs)

    @cached_property
    def choices(self) -> tuple[np.ndarray, np.ndarray]:
        """(codes, labels): each vote's choice as an index into the distinct labels; -1 when missing."""
        codes, labels = pd.factorize(self.table["choice"])
        return codes.astype(np.int64, copy=False), np.asarray(labels, dtype=object)

    def choice_is(self, label: str) -> np.ndarray:
        """Whether each vote's choice is `label`."""
        codes, labels = self.choices
        found = np.flatnonzero(labels == label)
        return codes == found[0] if len(found) else np.zeros(len(codes), dtype=bool)

    def compute(self, *names: str) -> None:
        """Compute these codes now (before forking children that each use them: computed once, shared)."""
        for name in names:
            getattr(self, name)

    def subset(self, keep: np.ndarray, table: pd.DataFrame) -> Coded:
        """The codes of `table`, the rows of this one's table where `keep`: the codes computed so far, taken (shared
        when every row is kept)."""
        out, done = Coded(table), self.__dict__
        if keep.dtype == bool and keep.all():
            out.__dict__.update({name: done[name] for name in _CACHED if name in done})
            return out
        for name in ("models", "_canonical"):
            if name in done:
                *codes, names = done[name]
                out.__dict__[name] = (*(c[keep] for c in codes), names)
        for name in ("annotators", "choices"):
            if name in done:
                codes, names = done[name]
                out.__dict__[name] = (codes[keep], names)
        for name in ("pairs", "pair_annotators", "cells"):
            if name in done:
                out.__dict__[name] = done[name][keep]
        return out
