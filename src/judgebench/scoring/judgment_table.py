"""The per-example table of one dimension's judgments: both orders side by side, as numpy columns.

Every metric (metrics.py), diagnostic and paired comparison reads this table. Verdicts and labels
are coded A 0, TIE 1, B 2 (-1 for none); duplicate records of one judgment: the last one wins.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from itertools import chain
from operator import attrgetter, is_not
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

if TYPE_CHECKING:  # imported where used: see _to_frame
    import pandas as pd

from judgebench.core.records import ORDERS, JudgmentRecord

BothBad = Literal["tie", "exclude"]

CATEGORIES: tuple[str, ...] = ("A", "TIE", "B")  # ordinal order used by kappa/alpha
CODE: dict[str, int] = {"A": 0, "TIE": 1, "B": 2}
ORDER_KEYS: dict[str, str] = {"AB": "ab", "BA": "ba"}


def soft_credit(verdict: Any, label: Any) -> Any:
    """Soft accuracy's credit, defined here once, of verdict codes against label codes (CODE: A 0 < TIE 1 < B 2;
    numbers or arrays): 1 when equal, 0.5 when exactly one is a tie, 0 when they are opposite."""
    return 1.0 - np.abs(verdict - label) / 2.0


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
    """dimension -> (example_id, order) -> record; later duplicates replace earlier ones (built once
    inside reuse_tables for its records; read-only)."""
    scope = _SCOPES[-1] if _SCOPES and _SCOPES[-1][0] is records else None
    if scope is not None:
        if scope[2] is None:
            scope[2] = _group(records)
        return scope[2]
    return _group(records)


def _group(records: Iterable[JudgmentRecord]) -> dict[str, dict[tuple[str, str], JudgmentRecord]]:
    out: dict[str, dict[tuple[str, str], JudgmentRecord]] = {}
    for r in records:
        out.setdefault(r.dimension, {})[(r.example_id, r.order)] = r
    return out


_SCOPES: list[list] = []  # [records, both_bad -> tables ("" -> extracted values per dimension), grouped or None]


@contextmanager
def reuse_tables(records: list[JudgmentRecord]) -> Iterator[None]:
    """Within the block, the tables of exactly this list of records are built once per both_bad rule
    (scoring reads the same tables for metrics, the confusion matrix and diagnostics), and the records
    grouped by dimension once (tables, counts, usage). Tables are read-only by convention: every
    reader copies before changing a column."""
    if _SCOPES and _SCOPES[-1][0] is records:  # already inside a block for these records: keep its tables
        yield
        return
    _SCOPES.append([records, {}, None])
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
    if memo is None:
        return {d: build_table(grouped[d], both_bad) for d in grouped}
    extracted = memo.setdefault("", {})  # dimension -> its records' values, read once for every rule
    for d in grouped:
        if d not in extracted:
            extracted[d] = extract(grouped[d])
    memo[both_bad] = tables = {d: build_table(grouped[d], both_bad, extracted[d]) for d in grouped}
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


@dataclass(frozen=True)
class _Extracted:
    """One dimension's per-example values read from its records once, before any both_bad rule:
    every table of the dimension (tie, exclude, keep) is built from these arrays."""

    orders: tuple[str, ...]
    label_raw: np.ndarray  # object
    codes: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]  # order key -> status, verdict, shown codes
    facts: dict[str, np.ndarray]  # example_id, task, judge, models, lengths, citations
    slices: list[dict[str, str]]
    confidence: dict[str, np.ndarray] = field(default_factory=dict)  # _confidence_columns (issue 34)


_FACTS = ("example_id", "label", "task", "judge", "model_a", "model_b", "length_a", "length_b",
          "citations_a", "citations_b", "slices")
_FACT_TYPES = {"length_a": np.int64, "length_b": np.int64, "citations_a": float, "citations_b": float}  # None -> NaN
_STATUS, _VERDICT, _SHOWN = attrgetter("status"), attrgetter("verdict"), attrgetter("verdict_shown")


def extract(by_key: dict[tuple[str, str], JudgmentRecord]) -> _Extracted:
    """The per-example values of one dimension's records (in the order examples first appear)."""
    slots: dict[str, list[JudgmentRecord | None]] = {}
    for (ex, order), r in by_key.items():
        slots.setdefault(ex, [None, None])[order == "BA"] = r
    pairs = list(slots.values())
    orders = tuple(o for i, o in enumerate(ORDERS) if any(s[i] is not None for s in pairs))
    firsts = [pair[0] if pair[0] is not None else pair[1] for pair in pairs]
    values = list(zip(*map(attrgetter(*_FACTS), firsts))) or [()] * len(_FACTS)
    facts = {c: np.array(v, dtype=_FACT_TYPES.get(c, object)) for c, v in zip(_FACTS, values)}
    codes = {ORDER_KEYS[o]: _codes([p[i] for p in pairs]) for i, o in enumerate(ORDERS)}
    return _Extracted(orders, facts.pop("label"), codes, facts, list(facts.pop("slices")),
                      _confidence_columns(pairs, firsts))


_CONFIDENCE, _VOTES = attrgetter("confidence"), attrgetter("votes")
CONFIDENCE_COLUMNS = ("conf_a", "conf_tie", "conf_b")  # in code order A 0, TIE 1, B 2
VOTE_SHARE_COLUMNS = ("vote_share_a", "vote_share_tie", "vote_share_b")


def _confidence_columns(pairs: list[list[JudgmentRecord | None]],
                        firsts: list[JudgmentRecord]) -> dict[str, np.ndarray]:
    """Per example (issue 34, docs/guide/confidence.md): the judge's P(A), P(TIE), P(B) in the dataset's
    positions, the mean of the orders' `confidence` (a verdict missing from a distribution counts 0; NaN when no
    order has one); the annotators' vote shares (each annotator's first vote, Both Bad counted as a tie; NaN
    without votes) and `n_annotators`."""
    n = len(pairs)
    conf = np.full((n, 3), np.nan)
    shares = np.full((n, 3), np.nan)
    annotators = np.zeros(n, dtype=np.int64)
    given = any(map(_CONFIDENCE, filter(partial(is_not, None), chain.from_iterable(pairs))))
    for i, pair in enumerate(pairs if given else ()):  # none given (most runs): every row stays NaN, no loop
        found = [c for c in (_CONFIDENCE(r) for r in pair if r is not None) if c]
        if found:
            conf[i] = [sum(c.get(v, 0.0) for c in found) / len(found) for v in CATEGORIES]
    for i, first in enumerate(firsts if any(map(_VOTES, firsts)) else ()):  # the same for votes
        votes = _VOTES(first)
        if votes:
            firsts_votes = ["TIE" if v[0] == "BOTH_BAD" else v[0] for v in votes.values() if v]
            if firsts_votes:
                annotators[i] = len(firsts_votes)
                shares[i] = [firsts_votes.count(v) / len(firsts_votes) for v in CATEGORIES]
    out = {name: conf[:, k] for k, name in enumerate(CONFIDENCE_COLUMNS)}
    out.update({name: shares[:, k] for k, name in enumerate(VOTE_SHARE_COLUMNS)})
    out["n_annotators"] = annotators
    return out


def _codes(recs: list[JudgmentRecord | None]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Status, verdict and shown-verdict codes of one order (-1: no record; verdicts -1 unless answered)."""
    status = np.full(len(recs), -1, dtype=np.int64)
    verdict, shown = status.copy(), status.copy()
    rows = np.fromiter((r is not None for r in recs), dtype=bool, count=len(recs))
    present = [r for r in recs if r is not None]
    if present:  # list comprehensions, then one assignment per column (numpy's per-item setitem was most of it)
        statuses, verdicts = list(map(_STATUS, present)), list(map(_VERDICT, present))
        answered = [s == "ANSWERED" and v is not None for s, v in zip(statuses, verdicts)]  # is_answered
        status[rows] = [_STATUS_CODE[s] for s in statuses]
        verdict[rows] = [CODE[v] if ok else -1 for v, ok in zip(verdicts, answered)]
        shown[rows] = [CODE.get(sh, -1) if ok else -1 for sh, ok in zip(map(_SHOWN, present), answered)]
    return status, verdict, shown


def build_table(by_key: dict[tuple[str, str], JudgmentRecord], both_bad: str,
                extracted: _Extracted | None = None) -> Table:
    """Per-example table from one dimension's records (both_bad: tie | exclude | keep); `extracted`:
    their values already read by `extract` (a scoring scope reads them once for every rule)."""
    x = extracted if extracted is not None else extract(by_key)
    rows = np.flatnonzero(x.label_raw != "BOTH_BAD") if both_bad == "exclude" else None
    pick = (lambda a: a) if rows is None else (lambda a: a[rows])  # noqa: E731
    label_raw = pick(x.label_raw)
    label = np.where(label_raw == "BOTH_BAD", "TIE", label_raw) if both_bad == "tie" else label_raw
    cols: dict[str, np.ndarray] = {
        "example_id": pick(x.facts["example_id"]),
        "label_raw": label_raw,
        "label": label.astype(object),
        "label_code": np.array([CODE.get(v, -1) for v in label], dtype=np.int64),
    }
    for o in ORDERS:
        key = ORDER_KEYS[o]
        status, v, shown = (pick(c) for c in x.codes[key])
        cols.update(_order_columns(status, v, shown, key, o in x.orders, cols["label_code"]))
    cols.update({c: pick(a) for c, a in x.facts.items() if c != "example_id"})
    slices = x.slices if rows is None else [x.slices[i] for i in rows]
    for k in sorted({k for sl in slices for k in sl}):
        cols[f"slice_{k}"] = np.array([sl.get(k) for sl in slices], dtype=object)
    cols.update({c: pick(a) for c, a in x.confidence.items()})
    cols.update(_derived_columns(cols, x.orders))
    return Table(cols, x.orders)


def _order_columns(status: np.ndarray, v: np.ndarray, shown: np.ndarray, key: str, run: bool,
                   lab: np.ndarray) -> dict[str, np.ndarray]:
    """status/verdict/shown (+ codes) and exact/soft scores of one order (NaN when not run)."""
    scorable = (v >= 0) & (lab >= 0)  # lab < 0 only for BOTH_BAD kept as its own label
    nan = np.full(len(status), np.nan)
    return {
        f"status_{key}": _STATUSES[status],
        f"verdict_{key}": _VERDICTS[v],
        f"shown_{key}": _VERDICTS[shown],
        f"status_code_{key}": status,
        f"verdict_code_{key}": v,
        f"shown_code_{key}": shown,
        f"exact_{key}": np.where(scorable & (v == lab), 1.0, 0.0) if run else nan,
        f"soft_{key}": np.where(scorable, soft_credit(v, lab), 0.0) if run else nan,
    }


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
    out.update(_calibration_columns(cols))
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


LOG_LOSS_FLOOR = 1e-15  # a probability of 0 on the label scores -ln(1e-15) = 34.5, not infinity


def _calibration_columns(cols: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per example, from the judge's confidence (issue 34; catalogue.py defines the metrics over them):
    `has_confidence` (a confidence and a label A/TIE/B), `top_conf` (the largest of P(A), P(TIE), P(B); NaN
    without), `conf_correct` (its verdict, the first of A, TIE, B at the largest, is the label), `brier`
    (sum over A, TIE, B of (P - 1[label])^2: 0 to 2), `log_loss` (-ln max(P(label), 1e-15)), and against the
    annotators' vote shares on examples with 2+ annotators: `has_vote_shares`, `brier_votes` (sum of
    (P - share)^2). 0 where undefined, so that sums over examples are the metrics' numerators."""
    n = len(cols["example_id"])
    if "conf_a" not in cols:  # a table built without records' confidence
        nan = np.full(n, np.nan)
        cols = {**cols, **{c: nan for c in ("conf_a", "conf_tie", "conf_b", "vote_share_a", "vote_share_tie",
                                            "vote_share_b")}, "n_annotators": np.zeros(n, dtype=np.int64)}
    probs = np.column_stack([cols["conf_a"], cols["conf_tie"], cols["conf_b"]]).astype(float).reshape(n, 3)
    label = cols["label_code"]
    has = ~np.isnan(probs[:, 0]) & (label >= 0)
    p = np.where(has[:, None], np.nan_to_num(probs), 0.0)
    onehot = (np.arange(3)[None, :] == label[:, None]).astype(float)
    rows = np.arange(n)
    p_label = p[rows, np.clip(label, 0, 2)]
    shares = np.nan_to_num(np.column_stack([cols["vote_share_a"], cols["vote_share_tie"],
                                            cols["vote_share_b"]]).astype(float).reshape(n, 3))
    has_votes = has & (cols["n_annotators"] >= 2)
    return {
        "has_confidence": has,
        "top_conf": np.where(has, p.max(axis=1, initial=0.0), np.nan),
        "conf_correct": np.where(has, (p.argmax(axis=1) == label).astype(float), 0.0),
        "brier": np.where(has, ((p - onehot) ** 2).sum(axis=1), 0.0),
        "log_loss": np.where(has, -np.log(np.maximum(p_label, LOG_LOSS_FLOOR)), 0.0),
        "has_vote_shares": has_votes,
        "brier_votes": np.where(has_votes, ((p - shares) ** 2).sum(axis=1), 0.0),
    }


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
