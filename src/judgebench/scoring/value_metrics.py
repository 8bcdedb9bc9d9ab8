"""Value-only metrics: the catalogue entries that carry their own function (catalogue.Metric.value).

metrics.score_records calls `value_metrics` on every dimension's table (and, for `per_slice` entries, on
every slice value's rows), so a metric added to the catalogue with a `value` function reaches
results.json, the leaderboard, the HTML page, the dataset card, the terminal summary and `compare`
(each run's own value beside the paired headline) without any other file changing. No interval: these
are plain values with the n they count.
"""

from __future__ import annotations

import math
from collections.abc import Collection

from judgebench.core.catalogue import VALUE_METRICS, metric
from judgebench.core.records import MetricValue, RunResult
from judgebench.scoring.judgment_table import Table


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
    """`compare`: each whole run's value of every value-only leaderboard metric in `scope` (absent: None)."""

    def value(result: RunResult, name: str) -> float | None:
        found = result.metrics.get(scope, {}).get(name)
        return None if found is None else found.value

    return {m.name: {"baseline": value(base, m.name), "candidate": value(cand, m.name)}
            for m in VALUE_METRICS if m.leaderboard}


def comparison_lines(values: dict[str, dict[str, float | None]]) -> list[str]:
    """`compare`'s text lines for run_values: baseline -> candidate, percentages for shares."""

    def shown(name: str, v: float | None) -> str:
        if v is None:
            return "n/a"
        return f"{100 * v:.2f}%" if metric(name).percent else f"{v:.4f}"

    return [f"  {name:<17} {shown(name, pair['baseline'])} -> {shown(name, pair['candidate'])} "
            "(each whole run; no paired test)" for name, pair in values.items()]
