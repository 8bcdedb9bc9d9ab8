"""The per-example table of one dimension's judgments: both orders side by side, as numpy columns.

Every metric (metrics.py), diagnostic and paired comparison reads this table. Verdicts and labels
are coded A 0, TIE 1, B 2 (-1 for none); duplicate records of one judgment: the last one wins.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

if TYPE_CHECKING:  # imported where used: see _to_frame
    import pandas as pd

from .records import ORDERS, JudgmentRecord

BothBad = Literal["tie", "exclude"]

CATEGORIES: tuple[str, ...] = ("A", "TIE", "B")  # ordinal order used by kappa/alpha
CODE: dict[str, int] = {"A": 0, "TIE": 1, "B": 2}
ORDER_KEYS: dict[str, str] = {"AB": "ab", "BA": "ba"}


_VERDICTS = np.array(["A", "TIE", "B", None], dtype=object)  # index -1 -> None
_STATUSES = np.array(["ANSWERED", "INVALID", "FAILED", None], dtype=object)
_STATUS_CODE = {"ANSWERED": 0, "INVALID": 1, "FAILED": 2}
_OBJECT_COLUMNS = tuple(f"{c}_{k}" for c in ("status", "verdict", "shown") for k in ("ab", "ba"))


@dataclass(frozen=True)
class Table:
    """Per-example columns (numpy arrays, one row per example) of one dimension."""

    cols: dict[str, np.ndarray]
    orders: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.cols["example_id"])

    def take(self, rows: np.ndarray) -> Table:
        return Table({k: v[rows] for k, v in self.cols.items()}, self.orders)

    def f(self, name: str) -> np.ndarray:
        return self.cols[name].astype(float)


def group_by_dimension(
    records: Iterable[JudgmentRecord],
) -> dict[str, dict[tuple[str, str], JudgmentRecord]]:
    """dimension -> (example_id, order) -> record; later duplicates replace earlier ones."""
    out: dict[str, dict[tuple[str, str], JudgmentRecord]] = {}
    for r in records:
        out.setdefault(r.dimension, {})[(r.example_id, r.order)] = r
    return out


_SCOPES: list[tuple[object, dict[str, dict[str, Table]]]] = []  # (records, both_bad -> tables) per reuse_tables


@contextmanager
def reuse_tables(records: list[JudgmentRecord]) -> Iterator[None]:
    """Within the block, the tables of exactly this list of records are built once per both_bad rule
    (scoring reads the same tables for metrics, the confusion matrix and diagnostics). Tables are
    read-only by convention: every reader copies before changing a column."""
    if _SCOPES and _SCOPES[-1][0] is records:  # already inside a block for these records: keep its tables
        yield
        return
    _SCOPES.append((records, {}))
    try:
        yield
    finally:
        _SCOPES.pop()


def dimension_tables(records: Iterable[JudgmentRecord], both_bad: str) -> dict[str, Table]:
    """dimension -> its table, in the order the dimensions first appear (reused inside reuse_tables)."""
    memo = _SCOPES[-1][1] if _SCOPES and _SCOPES[-1][0] is records else None
    if memo is not None and both_bad in memo:
        return memo[both_bad]
    grouped = group_by_dimension(records)
    tables = {d: build_table(grouped[d], both_bad) for d in grouped}
    if memo is not None:
        memo[both_bad] = tables
    return tables


def dimension_table(records: Iterable[JudgmentRecord], dimension: str, both_bad: str) -> Table:
    """One dimension's table (empty when the records have none of it)."""
    if _SCOPES and _SCOPES[-1][0] is records:
        found = dimension_tables(records, both_bad).get(dimension)
        return found if found is not None else build_table({}, both_bad)
    by_key = group_by_dimension(r for r in records if r.dimension == dimension).get(dimension, {})
    return build_table(by_key, both_bad)


def is_answered(r: JudgmentRecord | None) -> bool:
    return r is not None and r.status == "ANSWERED" and r.verdict is not None


def build_table(by_key: dict[tuple[str, str], JudgmentRecord], both_bad: str) -> Table:
    """Per-example table from one dimension's records (both_bad: tie | exclude | keep)."""
    slots: dict[str, list[JudgmentRecord | None]] = {}
    for (ex, order), r in by_key.items():
        slots.setdefault(ex, [None, None])[order == "BA"] = r
    orders = tuple(o for i, o in enumerate(ORDERS) if any(s[i] is not None for s in slots.values()))
    firsts, pairs = [], []
    for pair in slots.values():
        first = pair[0] if pair[0] is not None else pair[1]
        if both_bad == "exclude" and first.label == "BOTH_BAD":
            continue
        firsts.append(first)
        pairs.append(pair)
    label_raw = np.array([r.label for r in firsts], dtype=object)
    label = np.where(label_raw == "BOTH_BAD", "TIE", label_raw) if both_bad == "tie" else label_raw
    cols: dict[str, np.ndarray] = {
        "example_id": np.array([r.example_id for r in firsts], dtype=object),
        "label_raw": label_raw,
        "label": label.astype(object),
        "label_code": np.array([CODE.get(x, -1) for x in label], dtype=np.int64),
    }
    for i, o in enumerate(ORDERS):
        cols.update(_order_columns([p[i] for p in pairs], ORDER_KEYS[o], o in orders,
                                   cols["label_code"]))
    cols.update(_fact_columns(firsts))
    cols.update(_derived_columns(cols, orders))
    return Table(cols, orders)


def _order_columns(
    recs: list[JudgmentRecord | None], key: str, run: bool, lab: np.ndarray
) -> dict[str, np.ndarray]:
    """status/verdict/shown (+ codes) and exact/soft scores of one order (NaN when not run)."""
    ok = [is_answered(r) for r in recs]
    status = np.array([_STATUS_CODE[r.status] if r is not None else -1 for r in recs],
                      dtype=np.int64)
    v = np.array([CODE[r.verdict] if a else -1 for r, a in zip(recs, ok)], dtype=np.int64)
    shown = np.array([CODE.get(r.verdict_shown, -1) if a else -1 for r, a in zip(recs, ok)],
                     dtype=np.int64)
    scorable = (v >= 0) & (lab >= 0)  # lab < 0 only for BOTH_BAD kept as its own label
    nan = np.full(len(recs), np.nan)
    return {
        f"status_{key}": _STATUSES[status],
        f"verdict_{key}": _VERDICTS[v],
        f"shown_{key}": _VERDICTS[shown],
        f"status_code_{key}": status,
        f"verdict_code_{key}": v,
        f"shown_code_{key}": shown,
        f"exact_{key}": np.where(scorable & (v == lab), 1.0, 0.0) if run else nan,
        f"soft_{key}": np.where(scorable, 1.0 - np.abs(v - lab) / 2.0, 0.0) if run else nan,
    }


def _fact_columns(firsts: list[JudgmentRecord]) -> dict[str, np.ndarray]:
    """Example facts (task, judge, models, lengths, citations, slices) from its first record."""
    cols = {c: np.array([getattr(r, c) for r in firsts], dtype=object)
            for c in ("task", "judge", "model_a", "model_b")}
    for c in ("length_a", "length_b"):
        cols[c] = np.array([getattr(r, c) for r in firsts], dtype=np.int64)
    for c in ("citations_a", "citations_b"):
        cols[c] = np.array([getattr(r, c) for r in firsts], dtype=float)  # None -> NaN
    for k in sorted({k for r in firsts for k in r.slices}):
        cols[f"slice_{k}"] = np.array([r.slices.get(k) for r in firsts], dtype=object)
    return cols


def _derived_columns(cols: dict[str, np.ndarray], orders: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Per-example aggregates over the orders run (the bootstrap's units)."""
    n = len(cols["example_id"])
    keys = [ORDER_KEYS[o] for o in orders]
    zeros = np.zeros(n, dtype=np.int64)
    count = lambda f: sum((f(k) for k in keys), zeros)  # noqa: E731
    ans = {k: cols[f"verdict_code_{k}"] >= 0 for k in keys}
    out = {
        "n_expected": zeros + len(keys),
        "n_answered": count(lambda k: ans[k].astype(np.int64)),
        "n_invalid": count(lambda k: (cols[f"status_code_{k}"] == 1).astype(np.int64)),
        "n_failed": count(lambda k: (cols[f"status_code_{k}"] == 2).astype(np.int64)),
        "shown_first": count(lambda k: (cols[f"shown_code_{k}"] == 0).astype(np.int64)),
        "shown_decisive": count(lambda k: np.isin(cols[f"shown_code_{k}"], (0, 2)).astype(int)),
    }
    m = max(len(keys), 1)
    exact = sum((cols[f"exact_{k}"] for k in keys), np.zeros(n)) / m if keys else np.full(n, np.nan)
    soft = sum((cols[f"soft_{k}"] for k in keys), np.zeros(n)) / m if keys else np.full(n, np.nan)
    out.update(exact=exact, soft=soft)
    if len(keys) == 2:
        both = ans["ab"] & ans["ba"]
        same = both & (cols["verdict_code_ab"] == cols["verdict_code_ba"])
        out.update(
            both_answered=both,
            agree=np.where(both, same.astype(float), np.nan),
            exact_consistent=np.where(same, cols["exact_ab"], 0.0),
            soft_consistent=np.where(same, cols["soft_ab"], 0.0),
        )
    else:  # one order: consistency is trivial, gated scores equal the single order
        out.update(both_answered=np.zeros(n, dtype=bool), agree=np.full(n, np.nan),
                   exact_consistent=exact, soft_consistent=soft)
    return out


def _to_frame(table: Table, dimension: str, both_bad: str) -> pd.DataFrame:
    """DataFrame view of a table; status/verdict/shown columns keep None for missing."""
    import pandas as pd  # here only: a run imports this module before its first call, pandas costs ~0.5 s

    data = {
        k: pd.Series(v, dtype=object) if k in _OBJECT_COLUMNS else v
        for k, v in table.cols.items()
        if not k.startswith(("status_code_", "verdict_code_", "shown_code_"))
    }
    df = pd.DataFrame(data)
    df.attrs.update(dimension=dimension, both_bad=both_bad, orders=table.orders)
    return df


def example_table(
    records: Iterable[JudgmentRecord], dimension: str, both_bad: BothBad = "tie"
) -> pd.DataFrame:
    """One row per example of `dimension`, with both orders side by side.

    Columns: example_id, label_raw, label (BOTH_BAD -> TIE under "tie"; BOTH_BAD
    examples dropped under "exclude"), label_code (A 0, TIE 1, B 2); per order
    k in {ab, ba}: status_k, verdict_k (mapped; None unless answered), shown_k,
    exact_k, soft_k (0 when unanswered, NaN when the order was not run);
    exact/soft (mean over orders run), agree (NaN unless both orders answered),
    both_answered, exact_consistent, soft_consistent, n_expected, n_answered,
    n_invalid, n_failed, shown_first, shown_decisive; task, judge, model_a,
    model_b, length_a, length_b, citations_a, citations_b (NaN when unknown),
    slice_<name> per slice. ``df.attrs``: dimension, both_bad, orders.
    """
    check_both_bad(both_bad)
    return _to_frame(dimension_table(records, dimension, both_bad), dimension, both_bad)


def check_both_bad(both_bad: str) -> None:
    if both_bad not in ("tie", "exclude"):
        raise ValueError(f'both_bad must be "tie" or "exclude", got {both_bad!r}')
