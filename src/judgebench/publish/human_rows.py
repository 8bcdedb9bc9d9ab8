"""The leaderboard's `human` row: the human ceiling of a run's data (results.json `human`, ceiling.py),
laid out in the judge rows' columns so a judge is read against people on the same pairs.

Headline column (accuracy or soft_accuracy): leave-one-annotator-out agreement, each annotator's vote
against the label of the others' votes, as a judge's verdict is scored against the pair label.
`<headline>_vs_majority`: the same (a judge row: its headline on the pairs with 2+ annotators).
`<headline>_vs_annotators`: each annotator against each other annotator (a judge row: the judge
against each annotator). Kappas, alpha and self-consistency fill columns of their own.
"""

from __future__ import annotations

from typing import Any

from judgebench.core.catalogue import PERCENT_METRICS, as_percent
from judgebench.core.records import MetricValue, RunResult
from judgebench.tasks.registry import TaskSpec

HUMAN_JUDGE = "human (leave one annotator out)"
COLUMNS = ("annotator_kappa", "annotator_weighted_kappa", "annotator_alpha", "self_consistency",
           "self_consistency_weighted_kappa")


def human_row(result: RunResult, spec: TaskSpec, dataset: str) -> dict[str, Any] | None:
    """The `human` row of a run's data (None when the run's data has no votes)."""
    if not result.human:
        return None
    headline = spec.headline
    row: dict[str, Any] = {"kind": "human", "judge": HUMAN_JUDGE, "dataset": dataset}
    single = len(spec.dimension_names) == 1
    for dimension, figures in result.human.items():
        prefix = "" if single else f"{dimension}."
        loo = "loo_accuracy" if headline == "accuracy" else f"loo_{headline}"
        row.update(_cell(figures.get(loo), f"{prefix}{headline}"))
        row.update(_cell(figures.get(loo), f"{prefix}{headline}_vs_majority"))
        row.update(_cell(figures.get(f"{headline}_vs_annotators"), f"{prefix}{headline}_vs_annotators"))
        for name in COLUMNS:
            row.update(_cell(figures.get(name), f"{prefix}{name}"))
        if dimension == next(iter(result.human)):
            row["examples"] = figures[loo].n if loo in figures else None
    return row


def _cell(value: MetricValue | None, column: str) -> dict[str, Any]:
    if value is None:
        return {}
    name = column.rpartition(".")[2]
    percent = name in PERCENT_METRICS
    scale = as_percent if percent else (lambda v: None if v is None else round(v, 4))
    cells: dict[str, Any] = {column: scale(value.value)}
    if percent and value.ci_low is not None:
        cells[f"{column}_ci"] = [scale(value.ci_low), scale(value.ci_high)]
    return cells


def summary_lines(result: RunResult) -> list[str]:
    """The CLI summary's lines on the human ceiling (none for data without votes)."""
    lines = []
    headline = result.config.headline
    for dimension, figures in (result.human or {}).items():
        loo, human = figures.get(f"loo_{headline}"), figures.get(f"{headline}_vs_annotators")
        judge = result.metrics.get(dimension, {}).get(f"{headline}_vs_annotators")
        if loo is None or loo.value is None:
            continue
        parts = [f"leave-one-out {headline} {loo.value:.3f} over {loo.n} pairs with 2+ annotators"]
        if human is not None and human.value is not None and judge is not None and judge.value is not None:
            parts.append(f"vs each annotator: judge {judge.value:.3f}, humans {human.value:.3f}")
        for name in ("annotator_weighted_kappa", "annotator_alpha"):
            if (value := figures.get(name)) is not None and value.value is not None:
                parts.append(f"{name} {value.value:.3f}")
        lines.append(f"  human ceiling ({dimension}): " + "; ".join(parts))
    return lines
