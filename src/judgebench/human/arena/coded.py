"""A battle table's columns as integer codes, each factorised once (issue 30).

At millions of votes, hashing the strings (pair ids, annotator and model names) costs more than anything
done with them afterwards; the battles, the voter statistics, the counts and robustness all take their codes
from one `Coded` (each column factorised on first use and kept), and count with `np.bincount`.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd

from judgebench.core.errors import JudgebenchError

_CACHED = ("models", "annotators", "pairs", "pair_annotators", "choices", "_canonical", "cells")  # cached below
OUTCOMES = np.array([0.0, 0.5, 1.0])  # a battle's outcome for model_a: loss, tie (or Both Bad), win


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

    @cached_property
    def annotators(self) -> tuple[np.ndarray, np.ndarray]:
        """(codes, names): each vote's annotator as an index into the sorted annotator names (as str)."""
        codes, names = pd.factorize(self.table["annotator"].astype(str), sort=True)
        return codes.astype(np.int64, copy=False), np.asarray(names, dtype=object)

    @cached_property
    def pairs(self) -> np.ndarray:
        """Each vote's pair_id as a code (first appearance order; a missing id is a pair of its own)."""
        codes, _ = pd.factorize(self.table["pair_id"], use_na_sentinel=False)
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
