"""The report's run-level sections of issue 13: self-preference (selfpref.py) and cost vs accuracy
(costplot.py), placed before the per-dimension sections of report.md."""

from __future__ import annotations

from pathlib import Path

from judgebench.core.catalogue import SAMPLES_ONLY_HEADLINE
from judgebench.core.files import read_model_json
from judgebench.core.records import JudgmentRecord, RunResult
from judgebench.core.rundir import MEMBERS_DIR, RESULTS_FILE
from judgebench.publish.costplot import (
    PLOT_STEM,
    CostPoint,
    mark_pareto,
    markdown_lines,
    plot_points,
    run_point,
)
from judgebench.scoring.selfpref import format_self_preference, self_preference


def extra_sections(
    out_dir: Path, records: list[JudgmentRecord], result: RunResult | None, seed: int, n_resamples: int,
    run_dir: Path | None = None,
) -> str:
    """Self-preference (selfpref.py; the run's stored figure, computed with its task's model_families)
    and cost vs accuracy (costplot.py: the run's headline with its interval against its cost; a panel's
    members beside it, the Pareto front marked)."""
    stored = result.diagnostics.get("self_preference") if result else None
    selfpref = stored or self_preference(records, records[0].judge, n_resamples=n_resamples, seed=seed)
    points = cost_points(result, run_dir)
    png = f"{PLOT_STEM}.png" if points else None
    if points and png:
        plot_points(points, out_dir / png, f"{points[0].judge}: cost vs accuracy", result.config.headline)  # type: ignore[union-attr]
    headline = result.config.headline if result else SAMPLES_ONLY_HEADLINE
    lines = ["## Self-preference and cost", "", *format_self_preference(selfpref)]
    return "\n".join([*lines, *markdown_lines(points, headline, png)]) + "\n"


def cost_points(result: RunResult | None, run_dir: Path | None) -> list[CostPoint]:
    """The run's point; for a panel also its members' (from DIR/members/, the copies panel.py keeps),
    each with a known cost only. More than one point: the Pareto front marked."""
    point = run_point(result) if result else None
    if point is None or result is None or result.config.kind != "panel" or run_dir is None:
        return [point] if point else []
    members = [read_model_json(path, RunResult) for path in sorted((run_dir / MEMBERS_DIR).glob(f"*/{RESULTS_FILE}"))]
    return mark_pareto([point, *[p for p in map(run_point, members) if p is not None]])
