"""Cost against accuracy: each judge's headline (with its 95% interval) against its cost per 100
comparisons, the Pareto front marked (no other judge is at most as expensive and at least as good,
one of them strictly). Drawn for the leaderboard (PNG + a section of index.html, per task) and for
`report` (the run itself).

Cost per 100 comparisons = 100 x cost per paid call x calls per comparison, where cost per paid call
is the run's `usage.cost_per_100_calls / 100` (calls answered from the cache are priced like the
others, being the same calls) and calls per comparison = judgments / examples (/ dimensions in joint
mode, where one call answers every dimension). Only judges with a known cost are drawn: unpriced
runs and the built-in baselines (no paid calls) are left out, and the section says so.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgebench.core.files import atomic_path
from judgebench.core.records import RunResult
from judgebench.core.text import csv_text, html_text, md_text
from judgebench.publish.figures import literal

PLOT_STEM = "cost_accuracy"


@dataclass
class CostPoint:
    judge: str
    headline: float  # percent
    ci_low: float | None
    ci_high: float | None
    cost_per_100: float  # USD per 100 comparisons
    pareto: bool = False


def cost_per_100_comparisons(result: RunResult) -> float | None:
    """USD per 100 comparisons (see the module docstring); None when the run's cost is unknown."""
    counts, usage = result.counts, result.usage
    if usage.cost_per_100_calls is None or not counts.examples:
        return None
    dimensions = max(1, len([d for d in result.metrics if d != "mean"]))
    per_comparison = counts.calls / counts.examples / (dimensions if result.config.dimension_mode == "joint" else 1)
    return round(usage.cost_per_100_calls * per_comparison, 6)


def run_point(result: RunResult) -> CostPoint | None:
    """One run's point (headline over dimensions' mean when there is one), or None without a known cost."""
    cost = cost_per_100_comparisons(result)
    metrics = result.metrics.get("mean") or next(iter(result.metrics.values()), {})
    value = metrics.get(result.config.headline)
    if cost is None or value is None or value.value is None:
        return None
    pct = lambda v: None if v is None else 100 * v  # noqa: E731
    return CostPoint(result.config.judge, 100 * value.value, pct(value.ci_low), pct(value.ci_high), cost, True)


def mark_pareto(points: list[CostPoint]) -> list[CostPoint]:
    """Set `pareto` on the points no other point dominates (cheaper-or-equal and better-or-equal, one strictly)."""
    for p in points:
        p.pareto = not any(
            q is not p
            and q.cost_per_100 <= p.cost_per_100
            and q.headline >= p.headline
            and (q.cost_per_100 < p.cost_per_100 or q.headline > p.headline)
            for q in points
        )
    return points


def points_from_rows(rows: list[dict[str, Any]], headline: str) -> list[CostPoint]:
    """The judges of a leaderboard table with a headline and a known cost (runs only)."""
    points = []
    for row in rows:
        value, cost = row.get(headline), row.get("cost_per_100_comparisons_usd")
        if row.get("kind") != "run" or not isinstance(value, (int, float)) or not isinstance(cost, (int, float)):
            continue
        ci = row.get(f"{headline}_ci") or [None, None]
        points.append(CostPoint(str(row.get("label") or row.get("judge")), float(value), ci[0], ci[1], float(cost)))
    return mark_pareto(points)


def axis_label(key: str) -> str:
    """A metric column as a reader's axis label: `mean.soft_accuracy` -> `Soft accuracy, mean over dimensions (%)`."""
    prefix, _, name = key.rpartition(".")
    text = name.replace("_ab", " (order AB)").replace("_ba", " (order BA)").replace("_", " ")
    text = text[:1].upper() + text[1:]
    where = "" if not prefix else (", mean over dimensions" if prefix == "mean" else f", {prefix.replace('_', ' ')}")
    return f"{text} vs the labels{where} (%)"


def plot_points(points: list[CostPoint], path: Path, title: str, headline: str) -> None:
    """Write the plot's PNG (png_bytes) atomically."""
    data = png_bytes(points, title, headline)
    with atomic_path(path, suffix=".png") as tmp:
        tmp.write_bytes(data)


def png_bytes(points: list[CostPoint], title: str, headline: str) -> bytes:
    """The PNG: headline with its interval against cost per 100 comparisons, the front joined and ringed."""
    from matplotlib.figure import Figure  # imported here: keep the CLI start fast

    fig = Figure(figsize=(6.4, 4.2), dpi=100)
    ax = fig.add_subplot()
    costs = [p.cost_per_100 for p in points]
    middle = (min(costs) + max(costs)) / 2 if costs else 0.0
    for number, p in enumerate(sorted(points, key=lambda q: (q.cost_per_100, q.headline))):
        below = p.headline - p.ci_low if p.ci_low is not None else 0.0
        above = p.ci_high - p.headline if p.ci_high is not None else 0.0
        ax.errorbar([p.cost_per_100], [p.headline], yerr=[[below], [above]], fmt="o", color="#1f77b4", capsize=3,
                    label="judge (95% interval)" if number == 0 else None)
        right = len(points) > 1 and p.cost_per_100 > middle  # names of the dearer half written leftwards: never clipped
        offset = ((-5 if right else 5), (6 if number % 2 == 0 else -11))  # alternate heights: neighbours do not overlap
        ax.annotate(literal(p.judge), (p.cost_per_100, p.headline), textcoords="offset points", xytext=offset, fontsize=7,
                    ha="right" if right else "left")
    ax.axhline(50, color="#8c959f", linestyle=":", linewidth=1, label="50% (a coin flip on A/B)")
    front = sorted((p for p in points if p.pareto), key=lambda p: p.cost_per_100)
    if front:
        ax.plot([p.cost_per_100 for p in front], [p.headline for p in front], "--", color="#d62728", label="Pareto front")
        ax.scatter([p.cost_per_100 for p in front], [p.headline for p in front], s=120, facecolors="none", edgecolors="#d62728")
    ax.legend(loc="lower right", fontsize=8)
    ax.margins(x=0.3, y=0.1)  # room for the judge names
    ax.set_xlabel("Cost per 100 comparisons (USD)")
    ax.set_ylabel(axis_label(headline))
    ax.set_title(title, fontsize=10)
    fig.subplots_adjust(left=0.12, right=0.97, bottom=0.13, top=0.91)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def points_csv(points: list[CostPoint]) -> str:
    lines = ["judge,headline_pct,ci_low,ci_high,cost_per_100_comparisons_usd,pareto"]
    for p in points:
        judge = '"' + csv_text(p.judge).replace('"', '""') + '"'  # (a judge's display name: the formula guard)
        lines.append(f"{judge},{p.headline},{_blank(p.ci_low)},{_blank(p.ci_high)},{p.cost_per_100},{str(p.pareto).lower()}")
    return "\n".join(lines) + "\n"


def _blank(value: float | None) -> str:
    return "" if value is None else str(value)


def _ci(p: CostPoint) -> str:
    return f" [{p.ci_low:.2f}, {p.ci_high:.2f}]" if p.ci_low is not None and p.ci_high is not None else ""


NOT_DRAWN = "not drawn: no judge with a known cost (unpriced runs and built-in baselines, which make no paid calls, are left out)"


def html_section(task: str, points: list[CostPoint], headline: str) -> str:
    """The index.html section of one task: the plot and its points, or why it is not drawn."""
    title = '<h3>Cost vs accuracy <small>headline with 95% CI against cost per 100 comparisons; Pareto front marked</small></h3>'
    if not points:
        return f'{title}\n<p class="legend">{html_text(NOT_DRAWN)}.</p>'
    rows = "".join(
        f"<tr><td>{html_text(p.judge)}</td><td>{p.headline:.2f}{_ci(p)}</td><td>{p.cost_per_100:.4f}</td>"
        f"<td>{'yes' if p.pareto else ''}</td></tr>"
        for p in sorted(points, key=lambda p: p.cost_per_100)
    )
    # embedded, so the page stays one self-contained file (the PNG is also written beside it)
    src = "data:image/png;base64," + base64.b64encode(png_bytes(points, f"{task}: cost vs accuracy", headline)).decode()
    return (
        f'{title}\n<img src="{src}" alt="cost vs accuracy, {html_text(task)}" width="640">\n'
        f"<table><thead><tr><th>judge</th><th>{html_text(headline)} (%) [95% CI]</th>"
        f"<th>USD per 100 comparisons</th><th>Pareto front</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def markdown_lines(points: list[CostPoint], headline: str, png: str | None) -> list[str]:
    """The report's section: the run's point, or why it is not drawn."""
    lines = ["### Cost vs accuracy", ""]
    if not points:
        return [*lines, f"Not drawn: {NOT_DRAWN.split(': ', 1)[1]}.", ""]
    for p in points:
        lines.append(f"- {md_text(p.judge)}: {headline} {p.headline:.2f}%{_ci(p)} at ${p.cost_per_100:.4f} per 100 comparisons"
                     + (" (Pareto front)" if p.pareto else ""))
    return [*lines, "", f"![Cost vs accuracy]({png})", ""] if png else [*lines, ""]
