"""Judge leaderboards built by code from validated results files: Markdown, CSV and JSON per task.

Rows are of three kinds:
  run       a results file (a judge run; built-in judges are marked baseline)
  baseline  computed from the evaluated data itself (random by label distribution,
            always-first, always-longer), never run through a model
  reported  a published figure from the task YAML, not re-run
Accuracy-like values are percentages everywhere in the tables.
"""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from .errors import JudgebenchError
from .files import read_model_json, read_models_jsonl, write_atomic
from .records import JudgmentRecord, MetricValue, RunResult
from .tasks import TaskSpec, get_task

PERCENT_METRICS = {
    "accuracy",
    "accuracy_ab",
    "accuracy_ba",
    "accuracy_consistent",
    "soft_accuracy",
    "soft_accuracy_ab",
    "soft_accuracy_ba",
    "soft_accuracy_consistent",
    "order_consistency",
    "position_bias",
}


def find_results(paths: list[Path]) -> list[Path]:
    """results.json files named directly or found under the given folders."""
    found: list[Path] = []
    for path in paths:
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found.extend(sorted(path.rglob("results.json")))
        else:
            raise JudgebenchError(f"{path}: no such file or directory")
    if not found:
        raise JudgebenchError(f"no results.json found under {', '.join(map(str, paths))}")
    return found


def _pct(value: float | None) -> float | None:
    return None if value is None else round(100 * value, 2)


def _dataset_label(result: RunResult) -> str:
    info = result.config.dataset
    if info.demo:
        return "demo"
    revision = (info.resolved_revision or info.revision or "unpinned")[:12]
    return f"{info.source}:{info.split}@{revision}"


def _metric_cells(metrics: dict[str, MetricValue], names: list[str], prefix: str = "") -> dict[str, Any]:
    cells: dict[str, Any] = {}
    for name in names:
        value = metrics.get(name)
        if value is None:
            continue
        scale = _pct if name in PERCENT_METRICS else (lambda v: None if v is None else round(v, 4))
        cells[f"{prefix}{name}"] = scale(value.value)
        if value.ci_low is not None and name in PERCENT_METRICS:
            cells[f"{prefix}{name}_ci"] = [scale(value.ci_low), scale(value.ci_high)]
    return cells


def run_row(result: RunResult, spec: TaskSpec) -> dict[str, Any]:
    """One leaderboard row for a results file."""
    config, headline = result.config, spec.headline
    row: dict[str, Any] = {
        "kind": "baseline" if config.judge.startswith("builtin/") else "run",
        "judge": config.judge,
        "dataset": _dataset_label(result),
        "task_version": config.task_version,
        "prompt": f"{config.prompt_template}@{config.prompt_template_hash[:10]}",
        "orders": "both" if config.swap else "single",
        "partial": config.partial,
    }
    full = [headline, f"{headline}_ab", f"{headline}_ba", f"{headline}_consistent", "order_consistency"]
    if len(result.metrics) == 1:
        row.update(_metric_cells(next(iter(result.metrics.values())), [*full, "position_bias", "cohen_kappa"]))
    else:  # per dimension the headline and agreement; the full set for the mean over dimensions
        for dimension, metrics in result.metrics.items():
            names = full if dimension == "mean" else [headline, "order_consistency", "position_bias", "cohen_kappa"]
            row.update(_metric_cells(metrics, names, f"{dimension}."))
    for column, values in _first_dimension(result.slices).items():
        for value, metrics in sorted(values.items()):
            if headline in metrics:
                row[f"{column}={value}"] = _pct(metrics[headline].value)
    counts, usage = result.counts, result.usage
    row.update(
        {
            "examples": counts.examples,
            "calls": counts.calls,
            "invalid_rate_pct": _pct(counts.invalid / counts.calls) if counts.calls else None,
            "failed_rate_pct": _pct(counts.failed / counts.calls) if counts.calls else None,
            "tokens_per_call": usage.tokens_per_call,
            "tokens_per_comparison": round((usage.tokens_in + usage.tokens_out) / counts.examples, 1)
            if counts.examples and usage.tokens_per_call is not None
            else None,
            "cost_per_100_calls_usd": usage.cost_per_100_calls,
        }
    )
    row.update(result.diagnostics.get("leaderboard", {}))
    return row


def _first_dimension(slices: dict[str, Any]) -> dict[str, Any]:
    """Per-slice metrics of the task's only (or first) dimension."""
    return next(iter(slices.values()), {}) if slices else {}


def reported_rows(spec: TaskSpec) -> list[dict[str, Any]]:
    rows = []
    single = len(spec.dimension_names) == 1
    for reported in spec.reported:
        row: dict[str, Any] = {"kind": "reported", "judge": reported.judge, "dataset": reported.source}
        for dimension, value in reported.metrics.items():
            row[spec.headline if single else f"{dimension}.{spec.headline}"] = value
        rows.append(row)
    return rows


def baseline_rows(records: list[JudgmentRecord], spec: TaskSpec, dataset: str, both_bad: str) -> list[dict[str, Any]]:
    """Trivial baselines computed from the evaluated data: always-first and always-longer."""
    from .metrics import score_records

    rows = []
    for name, choose in (("always-first (both orders)", _always_first), ("always-longer", _always_longer)):
        synthetic = [_with_verdict(record, choose(record)) for record in records]
        metrics, _ = score_records(synthetic, both_bad=both_bad, n_resamples=1000, seed=0)
        row: dict[str, Any] = {"kind": "baseline", "judge": name, "dataset": dataset}
        for dimension, values in metrics.items():
            prefix = "" if len(metrics) == 1 else f"{dimension}."
            row.update(_metric_cells(values, [spec.headline], prefix))
        rows.append(row)
    return rows


def _always_first(record: JudgmentRecord) -> str:
    return "A"  # in shown positions


def _always_longer(record: JudgmentRecord) -> str | None:
    if record.length_a == record.length_b:
        return None
    longer_original = "A" if record.length_a > record.length_b else "B"
    return longer_original if record.order == "AB" else {"A": "B", "B": "A"}[longer_original]


def _with_verdict(record: JudgmentRecord, shown: str | None) -> JudgmentRecord:
    verdict = shown if record.order == "AB" or shown is None else {"A": "B", "B": "A"}[shown]
    return record.model_copy(
        update={
            "status": "ANSWERED" if shown else "INVALID",
            "verdict_shown": shown,
            "verdict": verdict,
            "tokens_in": None,
            "tokens_out": None,
            "cost_usd": None,
        }
    )


def random_row(result: RunResult, spec: TaskSpec) -> dict[str, Any]:
    row: dict[str, Any] = {"kind": "baseline", "judge": "random (label distribution)", "dataset": _dataset_label(result)}
    baselines = {dim: m["random_baseline"].value for dim, m in result.metrics.items() if "random_baseline" in m}
    for dimension, value in baselines.items():
        prefix = "" if len(result.metrics) == 1 else f"{dimension}."
        row[f"{prefix}{spec.headline}"] = _pct(value)
    if len(baselines) > 1 and None not in baselines.values():
        row[f"mean.{spec.headline}"] = _pct(sum(baselines.values()) / len(baselines))
    return row


def build_tables(result_paths: list[Path], include_paths: list[Path] | None = None) -> dict[str, list[dict[str, Any]]]:
    """Task name -> leaderboard rows (runs, data-derived baselines, reported rows)."""
    by_task: dict[str, list[tuple[RunResult, Path]]] = defaultdict(list)
    for path in find_results(result_paths):
        result = read_model_json(path, RunResult)
        by_task[result.config.task].append((result, path))
    tables = {}
    for task, entries in sorted(by_task.items()):
        spec = get_task(task, include_paths or [])
        rows = [run_row(result, spec) for result, _ in entries]
        seen_data: set[str] = set()
        for result, path in entries:
            dataset = _dataset_label(result)
            if dataset in seen_data:
                continue
            seen_data.add(dataset)
            rows.append(random_row(result, spec))
            samples = path.parent / "samples.jsonl"
            if samples.is_file():
                records = read_models_jsonl(samples, JudgmentRecord)
                rows.extend(baseline_rows(records, spec, dataset, result.config.both_bad))
        rows.extend(reported_rows(spec))
        tables[task] = sorted(rows, key=lambda row: _sort_key(row, spec))
    return tables


def _sort_key(row: dict[str, Any], spec: TaskSpec) -> tuple:
    """Real data first, then demo data, then reported rows; best headline first within each."""
    value = row.get(headline_column(spec), row.get(f"{spec.dimension_names[0]}.{spec.headline}"))
    section = 2 if row["kind"] == "reported" else 1 if row["dataset"] == "demo" else 0
    return (section, row["dataset"], -(value if isinstance(value, (int, float)) else -1.0), row["judge"])


def headline_column(spec: TaskSpec) -> str:
    """The column a task's table is ranked by: the headline, or its mean over dimensions."""
    return spec.headline if len(spec.dimension_names) == 1 else f"mean.{spec.headline}"


def columns_of(rows: list[dict[str, Any]]) -> list[str]:
    """All keys, in the order of the fullest row (a run row), then any others."""
    columns: list[str] = []
    for row in sorted(rows, key=len, reverse=True):
        columns.extend(key for key in row if key not in columns)
    return columns


def to_markdown(task: str, rows: list[dict[str, Any]]) -> str:
    """One table per dataset (real data, demo, reported in papers), empty columns left out."""
    parts = [
        f"# Leaderboard: {task}\n",
        "Generated by `judgebench leaderboard` from results files; do not edit by hand. "
        "Accuracy-like values are percentages; [low, high] is the 95% bootstrap interval. "
        "`baseline` rows are computed from the evaluated data or come from built-in judges; "
        "`reported` rows are published figures, not re-run.\n",
    ]
    for dataset, group in _groups_by_dataset(rows):
        title = "Reported in the papers" if group[0]["kind"] == "reported" else f"Data: {dataset}"
        columns = [c for c in columns_of(group) if not c.endswith("_ci") and c != "dataset"]
        columns = [c for c in columns if any(row.get(c) is not None for row in group)]
        lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        lines += ["| " + " | ".join(_md_cell(row, c) for c in columns) + " |" for row in group]
        parts.append(f"## {title}\n\n" + "\n".join(lines) + "\n")
    return "\n".join(parts)


def _groups_by_dataset(rows: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(row["dataset"], []).append(row)
    return list(groups.items())


def _md_cell(row: dict[str, Any], column: str) -> str:
    value = row.get(column)
    if value is None:
        return ""
    ci = row.get(f"{column}_ci")
    if ci and ci[0] is not None:
        return f"{value:.2f} [{ci[0]:.1f}, {ci[1]:.1f}]"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def to_csv(rows: list[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns_of(rows), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: json.dumps(v) if isinstance(v, list) else v for k, v in row.items()})
    return buffer.getvalue()


def write_leaderboards(tables: dict[str, list[dict[str, Any]]], output_dir: Path) -> list[Path]:
    written = []
    for task, rows in tables.items():
        for suffix, text in (
            (".md", to_markdown(task, rows)),
            (".csv", to_csv(rows)),
            (".json", json.dumps({"task": task, "rows": rows}, indent=2) + "\n"),
        ):
            path = output_dir / f"{task}{suffix}"
            write_atomic(path, text)
            written.append(path)
    if tables:
        from .html import to_html

        write_atomic(output_dir / "index.html", to_html(tables))
        written.append(output_dir / "index.html")
    return written
