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
- The per-example table every metric reads is built in judgment_table.py;
  counts and usage are in usage.py.
- CIs: percentile bootstrap over examples (both orders of an example move
  together). Every CI metric is a ratio sum(num) / sum(den) of per-example
  arrays (den = 1 for plain means), so one set of resamples (resampling.py)
  gives all metrics of a table.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Sequence

import numpy as np

from judgebench.core.catalogue import (
    MEAN_METRICS,
    ORDERED_NAMES,
    SLICE_METRICS,
    VALUE_METRICS,
)
from judgebench.core.records import JudgmentRecord, MetricValue, RunResult
from judgebench.scoring.judgment_table import (
    CATEGORIES,
    CODE,
    ORDER_KEYS,
    BothBad,
    Table,
    check_both_bad,
    dimension_table,
    dimension_tables,
    soft_credit,
)
from judgebench.stats.agreement import cohen_kappa, krippendorff_ordinal
from judgebench.stats.exact_sums import blas_for, row_types, sums_are_exact, type_counts
from judgebench.stats.resampling import MIN_UNITS, covering, percentile_interval, resample_batches


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
    return 0.0 if v < 0 else float(soft_credit(v, lab))


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
    codes = np.arange(3)
    score = soft_credit(codes[:, None], codes[None, :]) if soft else np.eye(3)
    return float(p @ score @ p)


# --------------------------------------------------------------------------- bootstrap


def _ratio_statistic(num: np.ndarray, den: np.ndarray) -> Callable[..., np.ndarray]:
    """Vectorised statistic over resampled example indices: sum(w*num) / sum(w*den) per metric.

    Resampled indices (batch, n) become per-resample counts w (batch, n), so all
    k metrics cost one matrix product instead of k gathers. The loop runs over
    resamples (one bincount each), never over examples.
    """
    both = np.hstack([num, den])
    k = num.shape[1]
    grouped = row_types(both) if sums_are_exact(both, len(both)) else None  # exact_sums.py

    def statistic(idx: np.ndarray, axis: int = -1) -> np.ndarray:
        idx = np.atleast_2d(idx)
        b, n = idx.shape
        if grouped is not None and n <= len(both):  # exact sums: counts per distinct example row, same figures
            first, types = grouped
            sums = type_counts(idx, types, len(first)) @ both[first]
        else:
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
    if n < MIN_UNITS or n_resamples < 1 or k == 0:
        return nan, nan
    batch = max(1, min(n_resamples, 1_000_000 // n))  # ~8 MB per resample array
    statistic = _ratio_statistic(num, den)
    with blas_for(sums_are_exact(np.hstack([num, den]), n)):  # one BLAS thread when order cannot matter
        samples = np.concatenate([statistic(idx) for idx in resample_batches(n, n_resamples, seed, batch)],
                                 axis=-1)
    low, high = percentile_interval(samples, confidence)  # resamples with a zero denominator: resampling's rule
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
        if value is not None:
            lo[i], hi[i] = covering(value, lo[i], hi[i])
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


def _ci_specs(t: Table, names: Sequence[str] | None = None) -> dict[str, Spec]:
    """Per-example (num, den, n) arrays for every CI metric of a table."""
    specs: dict[str, Spec] = {}
    keys = [ORDER_KEYS[o] for o in t.orders]
    for k in keys:
        specs[f"accuracy_{k}"] = _mean_spec(t.f(f"exact_{k}"))
    specs["accuracy"] = _mean_spec(t.f("exact"))
    both_orders = len(keys) == 2  # "both orders agree and are right" is undefined with one order: absent
    if both_orders:
        specs["accuracy_consistent"] = _mean_spec(t.f("exact_consistent"))
    for k in keys:
        specs[f"soft_accuracy_{k}"] = _mean_spec(t.f(f"soft_{k}"))
    specs["soft_accuracy"] = _mean_spec(t.f("soft"))
    if both_orders:
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
    has_conf = t.cols.get("has_confidence")
    if has_conf is not None and has_conf.any():  # issue 34: only runs whose judgments carry a confidence
        den = has_conf.astype(float)
        specs["brier_score"] = (t.f("brier"), den, int(den.sum()))
        specs["log_loss"] = (t.f("log_loss"), den, int(den.sum()))
        voted = t.cols["has_vote_shares"].astype(float)
        if voted.any():
            specs["brier_vs_votes"] = (t.f("brier_votes"), voted, int(voted.sum()))
    if names is not None:
        specs = {m: specs[m] for m in names if m in specs}
    return specs


def _pooled_judgments(t: Table) -> tuple[np.ndarray, np.ndarray]:
    """(verdict codes, label codes) over answered judgments, both orders pooled."""
    v, lab = [], []
    for o in t.orders:
        codes = t.cols[f"verdict_code_{ORDER_KEYS[o]}"]
        v.append(codes[codes >= 0])
        lab.append(t.cols["label_code"][codes >= 0])
    if not v:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(v), np.concatenate(lab)


def _value(x: float | None, n: int) -> MetricValue:
    return MetricValue(value=_num(x), n=int(n))


def _plain_metrics(t: Table) -> dict[str, MetricValue]:
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
    t: Table, n_resamples: int, seed: int, confidence: float
) -> dict[str, MetricValue]:
    """All metrics of one dimension's table, in a stable order."""
    out = _ratio_metrics(_ci_specs(t), n_resamples, seed, confidence)
    out.update(_plain_metrics(t))
    out.update(value_metrics(t))  # catalogue entries with their own function (value_metrics below)
    return {m: out[m] for m in ORDERED_NAMES if m in out}


def _dimension_table(records: Iterable[JudgmentRecord], dimension: str, both_bad: str) -> Table:
    return dimension_table(records, dimension, both_bad)


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
    check_both_bad(both_bad)
    return _score_table(_dimension_table(records, dimension, both_bad), n_resamples, seed,
                        confidence)


def confusion_matrix(
    records: Iterable[JudgmentRecord], dimension: str, both_bad: BothBad = "tie"
) -> dict[str, dict[str, int]]:
    """Human label -> judge verdict -> count, both orders pooled.

    Rows A/TIE/B (plus BOTH_BAD under "exclude", shown rather than dropped);
    columns A/TIE/B/INVALID, INVALID covering invalid, failed and missing judgments.
    """
    check_both_bad(both_bad)
    t = _dimension_table(records, dimension, "tie" if both_bad == "tie" else "keep")
    rows = [*CATEGORIES, *(["BOTH_BAD"] if both_bad == "exclude" else [])]
    cols = [*CATEGORIES, "INVALID"]
    row = np.array([rows.index(x) for x in t.cols["label"]], dtype=np.int64)
    counts = np.zeros((len(rows), len(cols)), dtype=np.int64)
    for o in t.orders:
        col = t.cols[f"verdict_code_{ORDER_KEYS[o]}"].copy()
        col[col < 0] = 3
        np.add.at(counts, (row, col), 1)
    return {r: {c: int(counts[i, j]) for j, c in enumerate(cols)} for i, r in enumerate(rows)}


# --------------------------------------------------------------------------- runs


def _mean_over_dimensions(
    tables: dict[str, Table], n_resamples: int, seed: int, confidence: float
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
    t: Table, columns: Sequence[str], n_resamples: int, seed: int, confidence: float
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
            value: _ratio_metrics(_ci_specs(part := t.take(np.array(rows)), SLICE_METRICS),
                                  n_resamples, seed, confidence) | value_metrics(part, SLICE_METRICS)
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
    check_both_bad(both_bad)
    tables = dimension_tables(records, both_bad)
    metrics = {d: _score_table(t, n_resamples, seed, confidence) for d, t in tables.items()}
    if len(tables) > 1:
        metrics["mean"] = _mean_over_dimensions(tables, n_resamples, seed, confidence)
    slices = {}
    if slice_columns:
        slices = {d: _slice_metrics(t, slice_columns, n_resamples, seed, confidence)
                  for d, t in tables.items()}
    return metrics, slices


# Value-only metrics: the catalogue entries that carry their own function (catalogue.Metric.value).


def value_metrics(t: Table, names: Collection[str] | None = None) -> dict[str, MetricValue]:
    """Catalogue name -> MetricValue for every value-only metric (of `names`, when given), in catalogue order.

    A value that is None, NaN or infinite is reported as None (undefined), as metrics.py does.
    """
    out: dict[str, MetricValue] = {}
    for m in VALUE_METRICS:
        if names is not None and m.name not in names:
            continue
        value, n = m.value(t)  # type: ignore[misc]  # VALUE_METRICS holds only entries with a function
        finite = value is not None and math.isfinite(value)
        out[m.name] = MetricValue(value=float(value) if finite else None, n=int(n))  # type: ignore[arg-type]
    return out


def run_values(base: RunResult, cand: RunResult, scope: str) -> dict[str, dict[str, float | None]]:
    """`compare`: each whole run's value of every value-only leaderboard metric in `scope` (absent: None); a
    metric neither run defines is left out."""

    def value(result: RunResult, name: str) -> float | None:
        found = result.metrics.get(scope, {}).get(name)
        return None if found is None else found.value

    pairs = {m.name: {"baseline": value(base, m.name), "candidate": value(cand, m.name)}
             for m in VALUE_METRICS if m.leaderboard}
    return {name: pair for name, pair in pairs.items() if any(v is not None for v in pair.values())}


