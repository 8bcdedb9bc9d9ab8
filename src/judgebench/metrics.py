"""Agreement metrics between a judge and human labels, with seeded bootstrap CIs.

Pure functions over ``list[JudgmentRecord]``: no I/O, no model calls.

Conventions
- Verdicts and labels are ordered A < TIE < B (codes 0, 1, 2); soft score is
  ``1 - |verdict - label| / 2`` and a missing verdict scores 0.
- A judgment is *answered* when its status is ANSWERED and it has a verdict.
  Headline figures are over ALL examples: unanswered judgments score 0.
- Orders "run" for a dimension are the orders present in its records; an
  example lacking a record for a run order counts as unanswered in that order.
- Duplicate records for one (example, dimension, order): the last one wins.
- CIs: percentile bootstrap over examples (both orders of an example move
  together). Every CI metric is a ratio sum(num) / sum(den) of per-example
  arrays (den = 1 for plain means), so one set of resamples (resampling.py)
  gives all metrics of a table.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import krippendorff
import numpy as np
import pandas as pd

from .catalogue import MEAN_METRICS, ORDERED_NAMES, SLICE_METRICS
from .records import ORDERS, Counts, JudgmentRecord, MetricValue, Usage
from .resampling import percentile_interval, resample_batches

BothBad = Literal["tie", "exclude"]

CATEGORIES: tuple[str, ...] = ("A", "TIE", "B")  # ordinal order used by kappa/alpha
CODE: dict[str, int] = {"A": 0, "TIE": 1, "B": 2}
_ORDER_KEYS: dict[str, str] = {"AB": "ab", "BA": "ba"}


# --------------------------------------------------------------------------- scores


def _code(value: str | None, what: str) -> int:
    """Ordinal code of a verdict/label; -1 for None."""
    if value is None:
        return -1
    try:
        return CODE[value]
    except KeyError:
        msg = f"{what} must be A, B or TIE (map BOTH_BAD first), got {value!r}"
        raise ValueError(msg) from None


def soft_score(verdict: str | None, label: str) -> float:
    """1 if equal, 0.5 if exactly one is TIE, 0 if opposite decisive or verdict missing."""
    v, lab = _code(verdict, "verdict"), _code(label, "label")
    if lab < 0:
        raise ValueError("label must not be None")
    return 0.0 if v < 0 else 1.0 - abs(v - lab) / 2.0


def exact_score(verdict: str | None, label: str) -> float:
    """1 if the verdict equals the label, else 0 (a missing verdict scores 0)."""
    v, lab = _code(verdict, "verdict"), _code(label, "label")
    if lab < 0:
        raise ValueError("label must not be None")
    return float(v >= 0 and v == lab)


def random_baseline(labels: Iterable[str], soft: bool = True) -> float:
    """Expected score of a guesser drawing verdicts from the labels' own distribution.

    sum_l sum_p P(l) P(p) score(p, l). Labels must be A/B/TIE (map BOTH_BAD first).
    """
    codes = np.array([_code(lab, "label") for lab in labels], dtype=int)
    if codes.size == 0 or (codes < 0).any():
        raise ValueError("random_baseline needs at least one non-missing label")
    p = np.bincount(codes, minlength=3) / codes.size
    diff = np.abs(np.arange(3)[:, None] - np.arange(3)[None, :])
    score = 1.0 - diff / 2.0 if soft else (diff == 0).astype(float)
    return float(p @ score @ p)


# --------------------------------------------------------------------------- table

_VERDICTS = np.array(["A", "TIE", "B", None], dtype=object)  # index -1 -> None
_STATUSES = np.array(["ANSWERED", "INVALID", "FAILED", None], dtype=object)
_STATUS_CODE = {"ANSWERED": 0, "INVALID": 1, "FAILED": 2}
_OBJECT_COLUMNS = tuple(f"{c}_{k}" for c in ("status", "verdict", "shown") for k in ("ab", "ba"))


@dataclass(frozen=True)
class _Table:
    """Per-example columns (numpy arrays, one row per example) of one dimension."""

    cols: dict[str, np.ndarray]
    orders: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.cols["example_id"])

    def take(self, rows: np.ndarray) -> _Table:
        return _Table({k: v[rows] for k, v in self.cols.items()}, self.orders)

    def f(self, name: str) -> np.ndarray:
        return self.cols[name].astype(float)


def _group_by_dimension(
    records: Iterable[JudgmentRecord],
) -> dict[str, dict[tuple[str, str], JudgmentRecord]]:
    """dimension -> (example_id, order) -> record; later duplicates replace earlier ones."""
    out: dict[str, dict[tuple[str, str], JudgmentRecord]] = {}
    for r in records:
        out.setdefault(r.dimension, {})[(r.example_id, r.order)] = r
    return out


def _answered(r: JudgmentRecord | None) -> bool:
    return r is not None and r.status == "ANSWERED" and r.verdict is not None


def _build_table(by_key: dict[tuple[str, str], JudgmentRecord], both_bad: str) -> _Table:
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
        cols.update(_order_columns([p[i] for p in pairs], _ORDER_KEYS[o], o in orders,
                                   cols["label_code"]))
    cols.update(_fact_columns(firsts))
    cols.update(_derived_columns(cols, orders))
    return _Table(cols, orders)


def _order_columns(
    recs: list[JudgmentRecord | None], key: str, run: bool, lab: np.ndarray
) -> dict[str, np.ndarray]:
    """status/verdict/shown (+ codes) and exact/soft scores of one order (NaN when not run)."""
    ok = [_answered(r) for r in recs]
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
    keys = [_ORDER_KEYS[o] for o in orders]
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


def _to_frame(table: _Table, dimension: str, both_bad: str) -> pd.DataFrame:
    """DataFrame view of a table; status/verdict/shown columns keep None for missing."""
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
    _check_both_bad(both_bad)
    by_key = _group_by_dimension(r for r in records if r.dimension == dimension).get(dimension, {})
    return _to_frame(_build_table(by_key, both_bad), dimension, both_bad)


def _check_both_bad(both_bad: str) -> None:
    if both_bad not in ("tie", "exclude"):
        raise ValueError(f'both_bad must be "tie" or "exclude", got {both_bad!r}')


# --------------------------------------------------------------------------- bootstrap


def _ratio_statistic(num: np.ndarray, den: np.ndarray) -> Callable[..., np.ndarray]:
    """Vectorised statistic over resampled example indices: sum(w*num) / sum(w*den) per metric.

    Resampled indices (batch, n) become per-resample counts w (batch, n), so all
    k metrics cost one matrix product instead of k gathers. The loop runs over
    resamples (one bincount each), never over examples.
    """
    both = np.hstack([num, den])
    k = num.shape[1]

    def statistic(idx: np.ndarray, axis: int = -1) -> np.ndarray:
        idx = np.atleast_2d(idx)
        b, n = idx.shape
        w = np.empty((b, n))
        for r in range(b):
            w[r] = np.bincount(idx[r], minlength=n)
        sums = w @ both
        with np.errstate(invalid="ignore", divide="ignore"):
            return (sums[:, :k] / sums[:, k:]).T  # (k, b)

    return statistic


def _bootstrap_ci(
    num: np.ndarray, den: np.ndarray, n_resamples: int, seed: int, confidence: float
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile CIs (low, high) per column of num/den (n x k), resampling rows."""
    n, k = num.shape
    nan = np.full(k, np.nan)
    if n < 2 or n_resamples < 1 or k == 0:
        return nan, nan
    batch = max(1, min(n_resamples, 1_000_000 // n))  # ~8 MB per resample array
    statistic = _ratio_statistic(num, den)
    samples = np.concatenate([statistic(idx) for idx in resample_batches(n, n_resamples, seed, batch)], axis=-1)
    low, high = percentile_interval(samples, confidence)  # a resample with a zero denominator: NaN -> None
    return np.atleast_1d(low), np.atleast_1d(high)


def _num(x: float | None) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


Spec = tuple[np.ndarray, np.ndarray, int]  # per-example numerator, denominator, reported n


def _ratio_metrics(
    specs: dict[str, Spec], n_resamples: int, seed: int, confidence: float
) -> dict[str, MetricValue]:
    """name -> (num, den, n) -> MetricValue; all CIs from the same resamples."""
    names = list(specs)
    if not names:
        return {}
    num = np.column_stack([specs[m][0] for m in names]).astype(float)
    den = np.column_stack([specs[m][1] for m in names]).astype(float)
    lo, hi = _bootstrap_ci(num, den, n_resamples, seed, confidence)
    tot_num, tot_den = num.sum(axis=0), den.sum(axis=0)
    out = {}
    for i, m in enumerate(names):
        value = tot_num[i] / tot_den[i] if tot_den[i] > 0 else None
        ok = value is not None and np.isfinite(lo[i]) and np.isfinite(hi[i])
        out[m] = MetricValue(
            value=_num(value),
            ci_low=float(lo[i]) if ok else None,
            ci_high=float(hi[i]) if ok else None,
            n=int(specs[m][2]),
        )
    return out


# --------------------------------------------------------------------------- metrics


def _mean_spec(x: np.ndarray) -> Spec:
    return x, np.ones_like(x), len(x)


def _ci_specs(t: _Table, names: Sequence[str] | None = None) -> dict[str, Spec]:
    """Per-example (num, den, n) arrays for every CI metric of a table."""
    specs: dict[str, Spec] = {}
    keys = [_ORDER_KEYS[o] for o in t.orders]
    for k in keys:
        specs[f"accuracy_{k}"] = _mean_spec(t.f(f"exact_{k}"))
    specs["accuracy"] = _mean_spec(t.f("exact"))
    specs["accuracy_consistent"] = _mean_spec(t.f("exact_consistent"))
    for k in keys:
        specs[f"soft_accuracy_{k}"] = _mean_spec(t.f(f"soft_{k}"))
    specs["soft_accuracy"] = _mean_spec(t.f("soft"))
    specs["soft_accuracy_consistent"] = _mean_spec(t.f("soft_consistent"))
    decisive = np.isin(t.cols["label_code"], (0, 2)).astype(float)  # human label A or B
    specs["decisive_accuracy"] = (t.f("exact") * decisive, decisive, int(decisive.sum()))
    if len(keys) == 2:
        both = t.f("both_answered")
        specs["order_consistency"] = (np.nan_to_num(t.f("agree")), both, int(both.sum()))
    sd = t.f("shown_decisive")
    specs["position_bias"] = (t.f("shown_first"), sd, int(sd.sum()))
    expected = t.f("n_expected")
    specs["coverage"] = (t.f("n_answered"), expected, int(expected.sum()))
    if names is not None:
        specs = {m: specs[m] for m in names if m in specs}
    return specs


def _pooled_judgments(t: _Table) -> tuple[np.ndarray, np.ndarray]:
    """(verdict codes, label codes) over answered judgments, both orders pooled."""
    v, lab = [], []
    for o in t.orders:
        codes = t.cols[f"verdict_code_{_ORDER_KEYS[o]}"]
        v.append(codes[codes >= 0])
        lab.append(t.cols["label_code"][codes >= 0])
    if not v:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(v), np.concatenate(lab)


def cohen_kappa(a: Sequence[int] | np.ndarray, b: Sequence[int] | np.ndarray) -> float | None:
    """Unweighted Cohen's kappa between two label sequences; None when undefined."""
    a, b = np.asarray(a), np.asarray(b)
    if a.size == 0:
        return None
    cats, inv = np.unique(np.concatenate([a, b]), return_inverse=True)
    ia, ib = inv[: a.size], inv[a.size :]
    k = len(cats)
    cm = np.bincount(ia * k + ib, minlength=k * k).reshape(k, k) / a.size
    po = np.trace(cm)
    pe = float(cm.sum(axis=1) @ cm.sum(axis=0))
    return None if pe >= 1.0 else float((po - pe) / (1.0 - pe))


def krippendorff_ordinal(a: np.ndarray, b: np.ndarray) -> float | None:
    """Krippendorff's alpha, ordinal A < TIE < B (codes 0..2), two coders; None if undefined."""
    if a.size == 0:
        return None
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = krippendorff.alpha(
            reliability_data=np.vstack([a, b]).astype(float),
            level_of_measurement="ordinal",
            value_domain=[0, 1, 2],
        )
    return _num(value)


def _value(x: float | None, n: int) -> MetricValue:
    return MetricValue(value=_num(x), n=int(n))


def _plain_metrics(t: _Table) -> dict[str, MetricValue]:
    """Value-only metrics: tie rates, random baselines, kappa, alpha, invalid/failed rates."""
    v, lab = _pooled_judgments(t)
    labels = t.cols["label"].tolist()
    expected = int(t.cols["n_expected"].sum())
    rate = lambda col: int(t.cols[col].sum()) / expected if expected else None  # noqa: E731
    share = lambda x: float(np.mean(x)) if len(x) else None  # noqa: E731
    return {
        "tie_rate_judge": _value(share(v == 1), v.size),
        "tie_rate_human": _value(share(t.cols["label_code"] == 1), len(labels)),
        "random_baseline": _value(random_baseline(labels) if labels else None, len(labels)),
        "random_baseline_exact": _value(
            random_baseline(labels, soft=False) if labels else None, len(labels)
        ),
        "cohen_kappa": _value(cohen_kappa(v, lab), v.size),
        "krippendorff_alpha": _value(krippendorff_ordinal(v, lab), v.size),
        "invalid_rate": _value(rate("n_invalid"), expected),
        "failed_rate": _value(rate("n_failed"), expected),
    }


def _score_table(
    t: _Table, n_resamples: int, seed: int, confidence: float
) -> dict[str, MetricValue]:
    """All metrics of one dimension's table, in a stable order."""
    out = _ratio_metrics(_ci_specs(t), n_resamples, seed, confidence)
    out.update(_plain_metrics(t))
    return {m: out[m] for m in ORDERED_NAMES if m in out}


def _dimension_table(records: Iterable[JudgmentRecord], dimension: str, both_bad: str) -> _Table:
    by_key = _group_by_dimension(r for r in records if r.dimension == dimension).get(dimension, {})
    return _build_table(by_key, both_bad)


def score_dimension(
    records: Iterable[JudgmentRecord],
    dimension: str,
    *,
    both_bad: BothBad = "tie",
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict[str, MetricValue]:
    """Metric name -> MetricValue for one dimension (conventions: module docstring).

    Per-order keys (accuracy_ab, ...) are absent when that order was not run;
    order_consistency is absent unless both orders were run.
    """
    _check_both_bad(both_bad)
    return _score_table(_dimension_table(records, dimension, both_bad), n_resamples, seed,
                        confidence)


def confusion_matrix(
    records: Iterable[JudgmentRecord], dimension: str, both_bad: BothBad = "tie"
) -> dict[str, dict[str, int]]:
    """Human label -> judge verdict -> count, both orders pooled.

    Rows A/TIE/B (plus BOTH_BAD under "exclude", shown rather than dropped);
    columns A/TIE/B/INVALID, INVALID covering invalid, failed and missing judgments.
    """
    _check_both_bad(both_bad)
    t = _dimension_table(records, dimension, "tie" if both_bad == "tie" else "keep")
    rows = [*CATEGORIES, *(["BOTH_BAD"] if both_bad == "exclude" else [])]
    cols = [*CATEGORIES, "INVALID"]
    row = np.array([rows.index(x) for x in t.cols["label"]], dtype=np.int64)
    counts = np.zeros((len(rows), len(cols)), dtype=np.int64)
    for o in t.orders:
        col = t.cols[f"verdict_code_{_ORDER_KEYS[o]}"].copy()
        col[col < 0] = 3
        np.add.at(counts, (row, col), 1)
    return {r: {c: int(counts[i, j]) for j, c in enumerate(cols)} for i, r in enumerate(rows)}


# --------------------------------------------------------------------------- runs


def _mean_over_dimensions(
    tables: dict[str, _Table], n_resamples: int, seed: int, confidence: float
) -> dict[str, MetricValue]:
    """MEAN_METRICS: accuracy and soft accuracy as per-example means over dimensions, order
    consistency pooled over dimensions."""
    index: dict[str, int] = {}
    ids = [np.array([index.setdefault(e, len(index)) for e in t.cols["example_id"]], dtype=np.int64)
           for t in tables.values()]
    m = len(index)
    total = lambda col: sum(  # noqa: E731
        (np.bincount(i, weights=np.nan_to_num(t.f(col)), minlength=m)
         for i, t in zip(ids, tables.values())), np.zeros(m))
    n_dims = sum((np.bincount(i, minlength=m) for i in ids), np.zeros(m))
    per_example_column = {"accuracy": "exact", "soft_accuracy": "soft"}
    specs = {name: _mean_spec(total(per_example_column[name]) / n_dims)
             for name in MEAN_METRICS if name in per_example_column}
    if "order_consistency" in MEAN_METRICS and all(len(t.orders) == 2 for t in tables.values()):
        den = total("both_answered")
        specs["order_consistency"] = (total("agree"), den, int(den.sum()))
    return _ratio_metrics(specs, n_resamples, seed, confidence)


def _slice_metrics(
    t: _Table, columns: Sequence[str], n_resamples: int, seed: int, confidence: float
) -> dict[str, dict[str, dict[str, MetricValue]]]:
    """slice column -> slice value -> SLICE_METRICS for one dimension's table.

    A name refers to a record slice (``slice_<name>``) or any table column
    (e.g. model_a); examples without a value are left out of that column.
    """
    out: dict[str, dict[str, dict[str, MetricValue]]] = {}
    for name in columns:
        col = t.cols.get(f"slice_{name}", t.cols.get(name))
        if col is None:
            continue
        groups: dict[str, list[int]] = {}
        for i, v in enumerate(col.tolist()):
            if v is not None and v == v:  # skip None and NaN
                groups.setdefault(str(v), []).append(i)
        out[name] = {
            value: _ratio_metrics(_ci_specs(t.take(np.array(rows)), SLICE_METRICS),
                                  n_resamples, seed, confidence)
            for value, rows in sorted(groups.items())
        }
    return out


def score_records(
    records: Iterable[JudgmentRecord],
    *,
    both_bad: BothBad = "tie",
    n_resamples: int = 1000,
    seed: int = 0,
    slice_columns: Sequence[str] = (),
    confidence: float = 0.95,
) -> tuple[
    dict[str, dict[str, MetricValue]],
    dict[str, dict[str, dict[str, dict[str, MetricValue]]]],
]:
    """(dimension -> metrics, dimension -> slice column -> value -> metrics) for a run.

    With more than one dimension, metrics also has a "mean" entry (MEAN_METRICS),
    its CI resampling examples with all their dimensions together.
    """
    _check_both_bad(both_bad)
    grouped = _group_by_dimension(records)
    tables = {d: _build_table(grouped[d], both_bad) for d in grouped}
    metrics = {d: _score_table(t, n_resamples, seed, confidence) for d, t in tables.items()}
    if len(tables) > 1:
        metrics["mean"] = _mean_over_dimensions(tables, n_resamples, seed, confidence)
    slices = {}
    if slice_columns:
        slices = {d: _slice_metrics(t, slice_columns, n_resamples, seed, confidence)
                  for d, t in tables.items()}
    return metrics, slices


# --------------------------------------------------------------------------- counts, usage


def summarize_counts(records: Iterable[JudgmentRecord], n_examples: int) -> Counts:
    """Judgment counts; calls = n_examples x dimensions x orders seen (duplicates: last wins)."""
    grouped = _group_by_dimension(records)
    recs = [r for by_key in grouped.values() for r in by_key.values()]
    orders = {r.order for r in recs}
    expected = max(n_examples * len(grouped) * len(orders), len(recs))
    answered = sum(_answered(r) for r in recs)
    return Counts(
        examples=n_examples,
        calls=expected,
        answered=answered,
        invalid=sum(r.status == "INVALID" for r in recs),
        failed=sum(r.status == "FAILED" for r in recs),
        cached=sum(r.cached for r in recs),
        coverage=answered / expected if expected else 0.0,
    )


def summarize_usage(records: Iterable[JudgmentRecord]) -> Usage:
    """Tokens, cost and latency of this run's calls.

    One call per distinct (example_id, order, prompt_hash): in joint mode the
    records of all dimensions share it and are counted once. Duplicate records
    of one judgment: the last wins, as in scoring. Cached calls cost nothing now
    and are left out. cost_usd is None when any call that got a reply (status
    not FAILED) has no price.
    """
    calls: dict[tuple[str, str, str], list[JudgmentRecord]] = {}
    for by_key in _group_by_dimension(records).values():
        for r in by_key.values():
            calls.setdefault((r.example_id, r.order, r.prompt_hash), []).append(r)
    live = [g for g in calls.values() if not any(r.cached for r in g)]
    t_in = t_out = with_tokens = priced = unpriced = 0
    cost = 0.0
    latencies = []
    for group in live:
        tok = next((x for x in group if x.tokens_in is not None or x.tokens_out is not None), None)
        if tok is not None:
            with_tokens += 1
            t_in += tok.tokens_in or 0
            t_out += tok.tokens_out or 0
        cost_r = next((x.cost_usd for x in group if x.cost_usd is not None), None)
        if cost_r is not None:
            priced += 1
            cost += cost_r
        elif any(x.status != "FAILED" for x in group):
            unpriced += 1
        latencies.append(max(x.latency_s for x in group))
    total_cost = None if unpriced else cost
    lat = np.asarray(latencies, dtype=float)
    return Usage(
        tokens_in=t_in,
        tokens_out=t_out,
        cost_usd=total_cost,
        priced_calls=priced,
        unpriced_calls=unpriced,
        tokens_per_call=(t_in + t_out) / with_tokens if with_tokens else None,
        cost_per_100_calls=(
            100 * total_cost / len(live) if live and total_cost is not None else None
        ),
        latency_p50_s=float(np.percentile(lat, 50)) if lat.size else None,
        latency_p95_s=float(np.percentile(lat, 95)) if lat.size else None,
    )
