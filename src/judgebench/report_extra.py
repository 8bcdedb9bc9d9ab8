"""The report's run-level sections of issue 13: self-preference (selfpref.py) and cost vs accuracy
(costplot.py), placed before the per-dimension sections of report.md."""

from __future__ import annotations

from pathlib import Path

from .catalogue import SAMPLES_ONLY_HEADLINE
from .costplot import PLOT_STEM, markdown_lines, plot_points, run_point
from .records import JudgmentRecord, RunResult
from .selfpref import format_self_preference, self_preference


def extra_sections(out_dir: Path, records: list[JudgmentRecord], result: RunResult | None, seed: int, n_resamples: int) -> str:
    """Self-preference (selfpref.py; the run's stored figure, computed with its task's model_families)
    and cost vs accuracy (costplot.py: the run's headline with its interval against its cost)."""
    stored = result.diagnostics.get("self_preference") if result else None
    selfpref = stored or self_preference(records, records[0].judge, n_resamples=n_resamples, seed=seed)
    point = run_point(result) if result else None
    png = f"{PLOT_STEM}.png" if point else None
    if point and png:
        plot_points([point], out_dir / png, f"{point.judge}: cost vs accuracy", result.config.headline)  # type: ignore[union-attr]
    headline = result.config.headline if result else SAMPLES_ONLY_HEADLINE
    lines = ["## Self-preference and cost", "", *format_self_preference(selfpref)]
    return "\n".join([*lines, *markdown_lines([point] if point else [], headline, png)]) + "\n"
