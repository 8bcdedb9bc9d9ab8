"""Judge leaderboards built by code from validated results files: Markdown, CSV and JSON per task.

Rows are of three kinds:
  run       a results file (a judge run; built-in judges are marked baseline)
  baseline  computed from the evaluated data itself: the expected score of a random guesser drawing
            from the label distribution (under the task's headline, exact or soft), and always-first /
            always-longer, which are the built-in judges' own `choose_values` (seed 0) applied to the
            samples, so they equal a builtin/always-a or builtin/longer run on the same data
  reported  a published figure from the task YAML, not re-run
Every run also gets the protocol columns of its task's reported rows (e.g. `accuracy_ab_answered`,
`coverage_ab` for SciArena-Eval: order AB only, invalid answers excluded), recomputed from its
samples by `protocol_figure`; reported rows are ranked only against those columns and only beside
runs on the same released data (never demo data).
Accuracy-like values are percentages everywhere in the tables.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from .errors import JudgebenchError
from .files import read_model_json, read_models_jsonl, write_atomic
from .records import JudgmentRecord, MetricValue, RunResult
from .tasks import ReportedProtocol, TaskSpec, load_task_file, task_files

TASK_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,99}")  # a task name, never a path
BASELINE_SEED = 0  # the seed of the built-in judges whose choices the data-derived rows reuse
SELF_REPORTED = ("judge", "judge_args", "tokens_per_call", "tokens_per_comparison", "cost_per_100_calls_usd", "latency_p50_s")
SELF_REPORTED_NOTE = (
    "Self-reported (recorded by the submitter, verifiable by nobody): the judge id and its arguments, "
    "tokens, cost and latency. Verified on submission: the task and its version, the data (fingerprint, "
    "revision), the human labels and example facts, complete coverage, every prompt (re-rendered from a "
    "registered template), every verdict (re-parsed from the raw answer) and every metric (recomputed)."
)

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


def run_row(result: RunResult, spec: TaskSpec, records: list[JudgmentRecord] | None = None) -> dict[str, Any]:
    """One leaderboard row for a results file (with the reported rows' protocol columns when samples are given)."""
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
    if records is not None:
        row.update(protocol_cells(records, spec, result.config.both_bad))
    return row


def _first_dimension(slices: dict[str, Any]) -> dict[str, Any]:
    """Per-slice metrics of the task's only (or first) dimension."""
    return next(iter(slices.values()), {}) if slices else {}


def reported_protocols(spec: TaskSpec) -> list[ReportedProtocol]:
    """The distinct stated protocols of the task's reported rows."""
    found: list[ReportedProtocol] = []
    for reported in spec.reported:
        if reported.protocol is not None and reported.protocol.stated and reported.protocol not in found:
            found.append(reported.protocol)
    return found


def protocol_columns(protocol: ReportedProtocol, dimension: str | None = None) -> tuple[str, str]:
    """(figure, coverage) column names, e.g. ('accuracy_ab_answered', 'coverage_ab')."""
    orders = "ab" if protocol.orders == "AB" else "both"
    rule = "answered" if protocol.invalid == "excluded" else "all"
    prefix = f"{dimension}." if dimension else ""
    return f"{prefix}{protocol.metric}_{orders}_{rule}", f"{prefix}coverage_{orders}"


def protocol_figure(
    records: list[JudgmentRecord], dimension: str, *, orders: str, invalid: str, soft: bool, both_bad: str = "tie"
) -> tuple[float | None, float | None]:
    """(score, coverage) of one dimension's judgments under a published protocol, as fractions.

    orders "AB": only the judgments in the order as given; "both": all. invalid "excluded": the mean
    score over answered judgments, agree / (agree + disagree); "wrong": over all, an unanswered one
    scoring 0. coverage = answered / judgments considered. A BOTH_BAD label counts as TIE, or is left
    out with both_bad "exclude". None when nothing is left.
    """
    from .metrics import exact_score, soft_score

    score = soft_score if soft else exact_score
    considered, answered, total = 0, 0, 0.0
    for record in records:
        if record.dimension != dimension or (orders == "AB" and record.order != "AB"):
            continue
        label = record.label
        if label == "BOTH_BAD":
            if both_bad == "exclude":
                continue
            label = "TIE"
        considered += 1
        if record.status == "ANSWERED" and record.verdict is not None:
            answered += 1
            total += score(record.verdict, label)
    if not considered:
        return None, None
    denominator = answered if invalid == "excluded" else considered
    return (total / denominator if denominator else None), answered / considered


def protocol_cells(records: list[JudgmentRecord], spec: TaskSpec, both_bad: str) -> dict[str, Any]:
    """A run's figures under each stated protocol of the task's reported rows, in percent."""
    cells: dict[str, Any] = {}
    single = len(spec.dimension_names) == 1
    for protocol in reported_protocols(spec):
        dimensions = {d for r in spec.reported if r.protocol == protocol for d in r.metrics}
        for dimension in [d for d in spec.dimension_names if d in dimensions]:
            figure, coverage = protocol_figure(
                records, dimension, orders=protocol.orders, invalid=protocol.invalid,
                soft=protocol.metric == "soft_accuracy", both_bad=both_bad,
            )
            value_column, coverage_column = protocol_columns(protocol, None if single else dimension)
            cells[value_column], cells[coverage_column] = _pct(figure), _pct(coverage)
    return cells


def describe_protocol(protocol: ReportedProtocol | None) -> str:
    """One line for the tables: how the reported figures were computed."""
    if protocol is None:
        return "protocol not recorded"
    orders = {"AB": "one order (as given)", "both": "mean of both orders", "unstated": "orders not stated"}[protocol.orders]
    invalid = {
        "excluded": "invalid answers excluded (agree / (agree + disagree))",
        "wrong": "invalid answers counted wrong",
        "unstated": "invalid rule not stated",
    }[protocol.invalid]
    size = f", {protocol.size} examples" if protocol.size else ""
    note = f"; {protocol.note}" if protocol.note else ""
    return f"{protocol.metric}, {orders}, {invalid}, prompt: {protocol.prompt}, data: {protocol.dataset} {protocol.split}{size}{note}"


def reported_rows(spec: TaskSpec) -> list[dict[str, Any]]:
    """Published figures in their protocol's column (never the headline column a run is ranked by)."""
    rows = []
    single = len(spec.dimension_names) == 1
    for reported in spec.reported:
        protocol = reported.protocol
        dataset = f"{protocol.dataset}:{protocol.split}" if protocol else reported.source
        row: dict[str, Any] = {"kind": "reported", "judge": reported.judge, "dataset": dataset, "source": reported.source}
        for dimension, value in reported.metrics.items():
            dim = None if single else dimension
            if protocol is not None and protocol.stated:
                row[protocol_columns(protocol, dim)[0]] = value
            else:
                metric = protocol.metric if protocol else spec.headline
                row[f"{dim}.reported_{metric}" if dim else f"reported_{metric}"] = value
        row["protocol"] = describe_protocol(protocol)
        rows.append(row)
    return rows


def _on_reported_data(result: RunResult, spec: TaskSpec) -> bool:
    """A run on the data of a stated protocol (released source, not demo, the stated size)."""
    info = result.config.dataset
    if info.demo or result.config.limit is not None:
        return False
    return any(
        info.source in (protocol.dataset, spec.dataset.path) and protocol.size in (None, result.counts.examples)
        for protocol in reported_protocols(spec)
    )


def baseline_rows(records: list[JudgmentRecord], spec: TaskSpec, dataset: str, both_bad: str) -> list[dict[str, Any]]:
    """always-first and always-longer: the built-in judges' own choices on the samples, under the headline."""
    rows = []
    for name, judge_id in BASELINE_JUDGES.items():
        metrics = baseline_metrics(records, spec, judge_id, both_bad)
        row: dict[str, Any] = {"kind": "baseline", "judge": name, "dataset": dataset}
        for dimension, values in metrics.items():
            prefix = "" if len(metrics) == 1 else f"{dimension}."
            row.update(_metric_cells(values, [spec.headline], prefix))
        rows.append(row)
    return rows


BASELINE_JUDGES = {"always-first (both orders)": "builtin/always-a", "always-longer": "builtin/longer"}


def baseline_metrics(
    records: list[JudgmentRecord], spec: TaskSpec, judge_id: str, both_bad: str
) -> dict[str, dict[str, MetricValue]]:
    """The metrics a built-in judge (seed 0) would get on these samples' examples, without running it."""
    from .judges.builtin import make_builtin_judge
    from .metrics import score_records

    judge = make_builtin_judge(judge_id, BASELINE_SEED)
    synthetic = [_with_verdict(record, _builtin_choice(judge, record, spec)) for record in records]
    return score_records(synthetic, both_bad=both_bad, n_resamples=1000, seed=0)[0]


def _builtin_choice(judge: Any, record: JudgmentRecord, spec: TaskSpec) -> str:
    """The built-in judge's verdict (shown positions) from the record's response lengths."""
    first, second = (record.length_a, record.length_b) if record.order == "AB" else (record.length_b, record.length_a)
    return judge.choose_values(first, second, spec.verdicts, record.example_id, record.order)


def _with_verdict(record: JudgmentRecord, shown: str | None) -> JudgmentRecord:
    verdict = shown if record.order == "AB" or shown in (None, "TIE") else {"A": "B", "B": "A"}[shown]
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
    """The expected headline of a guesser drawing from the label distribution (exact or soft, as the headline)."""
    row: dict[str, Any] = {"kind": "baseline", "judge": "random (label distribution)", "dataset": _dataset_label(result)}
    metric = "random_baseline" if spec.headline == "soft_accuracy" else "random_baseline_exact"
    baselines = {dim: m[metric].value for dim, m in result.metrics.items() if metric in m and dim != "mean"}
    for dimension, value in baselines.items():
        prefix = "" if len(result.metrics) == 1 else f"{dimension}."
        row[f"{prefix}{spec.headline}"] = _pct(value)
    if len(baselines) > 1 and None not in baselines.values():
        row[f"mean.{spec.headline}"] = _pct(sum(baselines.values()) / len(baselines))
    return row


def resolve_task(name: str, results_path: Path, include_paths: list[Path], use_run_task_copy: bool) -> TaskSpec:
    """A task by name (installed or --include-path), else the run directory's own task.yaml copy if allowed."""
    from .rundir import TASK_FILE

    if not TASK_NAME_RE.fullmatch(name):
        raise JudgebenchError(f"task {name[:80]!r} is not a task name (a path is never loaded)")
    files = task_files(include_paths)
    if name in files:
        spec = load_task_file(files[name])
    elif use_run_task_copy and (results_path.parent / TASK_FILE).is_file():
        spec = load_task_file(results_path.parent / TASK_FILE)
    else:
        raise JudgebenchError(f"unknown task '{name}'")
    if spec.name != name:
        raise JudgebenchError(f"the task file found for '{name}' is named '{spec.name}'")
    return spec


def collect_tables(
    result_paths: list[Path], include_paths: list[Path] | None = None, *, use_run_task_copy: bool = True
) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
    """(task name -> leaderboard rows, warnings): an unreadable entry or unknown task is a warning, not fatal.

    `use_run_task_copy`: a task not otherwise known may come from the run directory's task.yaml
    (the user's own runs; `submit` passes False).
    """
    from .rundir import SAMPLES_FILE

    include, warnings = list(include_paths or []), []
    by_task: dict[str, list[tuple[RunResult, Path]]] = defaultdict(list)
    for path in find_results(result_paths):
        try:
            result = read_model_json(path, RunResult)
        except JudgebenchError as exc:
            warnings.append(f"skipped {path}: {exc}")
            continue
        by_task[result.config.task].append((result, path))
    tables = {}
    for task, entries in sorted(by_task.items()):
        try:
            spec = resolve_task(task, entries[0][1], include, use_run_task_copy)
        except JudgebenchError as exc:
            warnings.extend(f"skipped {path}: {exc}" for _, path in entries)
            continue
        rows, seen_data = [], set()
        for result, path in entries:
            try:
                samples = path.parent / SAMPLES_FILE
                records = read_models_jsonl(samples, JudgmentRecord) if samples.is_file() else None
                row = run_row(result, spec, records)
                if _on_reported_data(result, spec):
                    row["vs_reported"] = True
                extra = []
                dataset = _dataset_label(result)
                if dataset not in seen_data:
                    extra.append(random_row(result, spec))
                    if records is not None:
                        extra.extend(baseline_rows(records, spec, dataset, result.config.both_bad))
            except (JudgebenchError, KeyError, ValueError, TypeError) as exc:
                warnings.append(f"skipped {path}: {' '.join(str(exc).split())[:200]}")
                continue
            seen_data.add(dataset)
            rows += [row, *extra]
        if not rows:
            continue
        rows.extend(reported_rows(spec))
        tables[task] = sorted(rows, key=lambda row: _sort_key(row, spec))
    return tables, warnings


def build_tables(result_paths: list[Path], include_paths: list[Path] | None = None) -> dict[str, list[dict[str, Any]]]:
    """Task name -> leaderboard rows; warnings (skipped entries) are printed to stderr."""
    tables, warnings = collect_tables(result_paths, include_paths)
    for warning in warnings:
        print(f"judgebench: warning: {warning}", file=sys.stderr)
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


META_COLUMNS = ("dataset", "vs_reported", "protocol", "source")
_PROTOCOL_COLUMN = re.compile(r"(?P<prefix>.*\.)?\w+_(?P<orders>ab|both)_(answered|all)")


def to_markdown(task: str, rows: list[dict[str, Any]]) -> str:
    """One table per dataset (real data, then demo), then the reported figures beside comparable runs."""
    parts = [
        f"# Leaderboard: {md_escape(task)}\n",
        "Generated by `judgebench leaderboard` from results files; do not edit by hand. "
        "Accuracy-like values are percentages; [low, high] is the 95% bootstrap interval. "
        "`baseline` rows are computed from the evaluated data or come from built-in judges; "
        "`reported` rows are published figures, not re-run.\n",
        SELF_REPORTED_NOTE + "\n",
    ]
    runs = [row for row in rows if row["kind"] != "reported"]
    for dataset, group in _groups_by_dataset(runs):
        columns = [c for c in columns_of(group) if not c.endswith("_ci") and c not in META_COLUMNS]
        parts.append(_md_table(f"Data: {dataset}", group, columns))
    reported = [row for row in rows if row["kind"] == "reported"]
    if reported:
        parts.append(_md_reported(reported, [row for row in runs if row.get("vs_reported")]))
    return "\n".join(parts)


def _md_reported(reported: list[dict[str, Any]], comparable: list[dict[str, Any]]) -> str:
    """Published rows ranked only against runs on the same released data, under the same protocol."""
    values = [c for c in columns_of(reported) if c not in ("kind", "judge", *META_COLUMNS)]
    coverage = []
    for column in values:
        match = _PROTOCOL_COLUMN.fullmatch(column)
        if match:
            coverage.append(f"{match['prefix'] or ''}coverage_{match['orders']}")
    group = sorted(reported + comparable, key=lambda row: _descending(row.get(values[0]) if values else None))
    protocols = sorted({str(row.get("protocol")) for row in reported})
    intro = "Protocol of these figures: " + "; ".join(md_escape(p) for p in protocols) + ". "
    intro += (
        "Runs appear here only when they are on the same released data, scored from their samples under that "
        "protocol (column name: metric, orders, `answered` = invalid answers excluded, `all` = counted wrong). "
        "Demo-data runs are never ranked against published figures.\n\n"
        if comparable or any(_PROTOCOL_COLUMN.fullmatch(c) for c in values)
        else "The protocol is not fully stated, so no run is ranked against these figures.\n\n"
    )
    table = _md_table("Reported in the papers", group, ["kind", "judge", "source", *values, *coverage])
    title, _, body = table.partition("\n\n")
    return f"{title}\n\n{intro}{body}"


def _descending(value: Any) -> tuple:
    return (0, -value) if isinstance(value, (int, float)) else (1, 0)


def _md_table(title: str, group: list[dict[str, Any]], columns: list[str]) -> str:
    columns = [c for c in columns if any(row.get(c) is not None for row in group)]
    lines = ["| " + " | ".join(md_escape(c) for c in columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_md_cell(row, c) for c in columns) + " |" for row in group]
    return f"## {md_escape(title)}\n\n" + "\n".join(lines) + "\n"


def md_escape(value: Any) -> str:
    """Text safe in a Markdown table cell: no HTML, no cell-splitting `|`, no line breaks."""
    text = " ".join(str(value).split())
    text = html.escape(text, quote=False).replace("\\", "&#92;").replace("|", "&#124;")
    return text.replace("`", "&#96;")


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
    if isinstance(value, float) and ci and ci[0] is not None:
        return f"{value:.2f} [{ci[0]:.1f}, {ci[1]:.1f}]"
    return f"{value:.2f}" if isinstance(value, float) else md_escape(value)


def to_csv(rows: list[dict[str, Any]]) -> str:
    """CSV of the rows; text cells a spreadsheet would run as a formula get a leading apostrophe."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns_of(rows), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: json.dumps(v) if isinstance(v, list) else _csv_text(v) for k, v in row.items()})
    return buffer.getvalue()


def _csv_text(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def write_leaderboards(tables: dict[str, list[dict[str, Any]]], output_dir: Path, *, managed: bool = False) -> list[Path]:
    """DIR/<task>.md/.csv/.json and DIR/index.html; every path stays under DIR.

    A folder holding submitted entries (DIR/entries/) is a managed leaderboard: only `submit`
    (managed=True) rebuilds its tables, so `leaderboard` cannot overwrite them by accident.
    """
    if not managed and (output_dir / "entries").is_dir():
        raise JudgebenchError(
            f"--output-dir {output_dir}: it holds submitted entries (entries/), so its tables are rebuilt only by "
            "`judgebench submit`; choose another --output-dir"
        )
    written = []
    for task, rows in tables.items():
        if not TASK_NAME_RE.fullmatch(task):
            raise JudgebenchError(f"task {task[:80]!r} is not a task name: no table written for it")
        for suffix, text in (
            (".md", to_markdown(task, rows)),
            (".csv", to_csv(rows)),
            (".json", json.dumps({"task": task, "rows": rows}, indent=2) + "\n"),
        ):
            written.append(_write_under(output_dir, f"{task}{suffix}", text))
    if tables:
        from .html import to_html

        written.append(_write_under(output_dir, "index.html", to_html(tables)))
    return written


def _write_under(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    if not path.resolve().is_relative_to(folder.resolve()):
        raise JudgebenchError(f"{path}: resolves outside {folder}; not written")
    write_atomic(path, text)
    return path
