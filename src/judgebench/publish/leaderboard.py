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
Accuracy-like values are percentages everywhere in the tables (catalogue.py says which metrics are
shares). Rendering the rows as Markdown, CSV, JSON and HTML is in tables.py and html.py.
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from judgebench.core.catalogue import (
    LEADERBOARD_EXTRAS,
    PERCENT_METRICS,
    as_percent,
    headline_family,
    random_baseline_of,
)
from judgebench.core.errors import JudgebenchError
from judgebench.core.files import read_model_json
from judgebench.core.names import is_builtin
from judgebench.core.records import (
    JudgmentRecord,
    MetricValue,
    RunConfig,
    RunResult,
)
from judgebench.core.rundir import (
    SAMPLES_FILE,
    TASK_FILE,
    check_samples_match,
    is_member_copy,
    read_samples,
)
from judgebench.judges.config import answer_args, args_text, run_config_hash
from judgebench.publish.board import TASK_NAME_RE
from judgebench.publish.costplot import cost_per_100_comparisons
from judgebench.publish.protocols import (
    describe_protocol,
    protocol_cells,
    protocol_columns,
    reported_protocols,
)
from judgebench.stats.resampling import (
    DEFAULT_RESAMPLES,
)
from judgebench.tasks.registry import TaskSpec, load_task_file, task_files

BASELINE_SEED = 0  # the seed of the built-in judges whose choices the data-derived rows reuse
SELF_REPORTED = ("judge", "judge_args", "tokens_per_call", "tokens_per_comparison", "cost_per_100_calls_usd",
                 "cost_per_100_comparisons_usd", "latency_p50_s")
SELF_REPORTED_NOTE = (
    "Self-reported (recorded by the submitter, verifiable by nobody): the judge id and its arguments, "
    "tokens, cost and latency. Verified on submission: the task and its version, the data (fingerprint, "
    "revision), the human labels and example facts, complete coverage, every prompt (re-rendered from a "
    "registered template), every verdict (re-parsed from the raw answer) and every metric (recomputed), "
    "stability figures included (from repeats.jsonl); an entry with any failed judgment is labelled partial. "
    "Not verifiable: that the raw answers came from the named judge. The copy check compares answers reduced "
    "to their words, so another entry's answers with a word appended to each (\" ok\") under a new judge name "
    "pass it."
)
LOCAL_NOTE = (
    "Built locally by `judgebench leaderboard` from results files as they are: nothing was verified "
    "(`judgebench submit` verifies a run before it enters a published leaderboard)."
)


def provenance_note(verified: bool) -> str:
    """What a table's reader may trust: a submitted board's checks, or a local build's lack of them."""
    return SELF_REPORTED_NOTE if verified else LOCAL_NOTE


META_COLUMNS = ("dataset", "vs_reported", "protocol", "source")
PROTOCOL_COLUMN = re.compile(r"(?P<prefix>.*\.)?\w+_(?P<orders>ab|both)_(answered|all)")


def find_results(paths: list[Path]) -> list[Path]:
    """results.json files named directly or found under the given folders."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():  # a panel's copies of its members are not rows of their own (unless asked for)
            found.extend(p for p in sorted(path.rglob("results.json")) if not is_member_copy(p, path))
        elif path.exists():  # a file (a FIFO or device too: reading it says it is not a regular file)
            found.append(path)
        else:
            raise JudgebenchError(f"{path}: no such file or directory")
    if not found:
        raise JudgebenchError(f"no results.json found under {', '.join(map(str, paths))}")
    return found




def _dataset_label(result: RunResult) -> str:
    """The data a row was scored on, which sections the tables: the demo, or source, split and revision; data with no
    revision (a local file, an unpinned Hub id) by its examples' fingerprint, so that two versions of one file are
    never ranked as one dataset."""
    info = result.config.dataset
    if info.demo:
        return "demo"
    revision = (info.resolved_revision or info.revision or "")[:12] or f"sha256:{info.fingerprint[:12]}"
    return f"{info.source}:{info.split}@{revision}"


def _metric_cells(metrics: dict[str, MetricValue], names: list[str], prefix: str = "") -> dict[str, Any]:
    cells: dict[str, Any] = {}
    for name in names:
        value = metrics.get(name)
        if value is None:
            continue
        scale = as_percent if name in PERCENT_METRICS else (lambda v: None if v is None else round(v, 4))
        cells[f"{prefix}{name}"] = scale(value.value)
        if value.ci_low is not None and name in PERCENT_METRICS:
            cells[f"{prefix}{name}_ci"] = [scale(value.ci_low), scale(value.ci_high)]
    return cells


def run_row(result: RunResult, spec: TaskSpec, records: list[JudgmentRecord] | None = None) -> dict[str, Any]:
    """One leaderboard row for a results file (with the reported rows' protocol columns when samples are given)."""
    config, headline = result.config, spec.headline
    row: dict[str, Any] = {
        "kind": "baseline" if is_builtin(config.judge) else "run",
        "judge": config.judge,
        "label": config.judge_name or config.judge,
        "name": config.judge_name,
        "judge_args": args_text(config.judge_args, limit=200) or None,
        "config_hash": config_hash_of(config),
        ARGS_KEY: {**answer_args(config.judge_args), **({"reask": config.reask} if config.reask else {}),
                   "prompt": config.prompt_template},  # for label_rows (what tells two configurations of one model
        # apart: `[prompt=my_sci]` when the template names differ); removed once the labels are made
        "dataset": _dataset_label(result),
        "task_version": config.task_version,
        "prompt": f"{config.prompt_template}@{config.prompt_template_hash[:10]}",
        "orders": "both" if config.swap else "single",
        "partial": config.partial,
        **_rule_cells(config, spec),
    }
    if config.limit is not None:  # a subset: marked, and ranked only among other subsets (_sort_key)
        row["subset"] = subset_marker(config, result.counts.examples)
    # the catalogue's leaderboard columns: the headline's family, then the others (order_consistency, ...)
    vs_annotators = human_reference_columns(headline)  # data with votes: the human row's columns (ceiling.py)
    full = [*headline_family(headline), *LEADERBOARD_EXTRAS, *vs_annotators]
    if len(result.metrics) == 1:
        row.update(_metric_cells(next(iter(result.metrics.values())), full))
    else:  # per dimension the headline and the others; the mean over dimensions has only MEAN_METRICS
        for dimension, metrics in result.metrics.items():
            names = full if dimension == "mean" else [headline, *LEADERBOARD_EXTRAS, *vs_annotators]
            row.update(_metric_cells(metrics, names, f"{dimension}."))
    for column, values in _first_dimension(result.slices).items():
        for value, metrics in sorted(values.items()):
            if headline in metrics:
                row[f"{column}={value}"] = as_percent(metrics[headline].value)
    counts, usage = result.counts, result.usage
    row.update(
        {
            "examples": counts.examples,
            "calls": counts.calls,
            "coverage_pct": as_percent(counts.coverage),
            "invalid_rate_pct": as_percent(counts.invalid / counts.calls) if counts.calls else None,
            "failed_rate_pct": as_percent(counts.failed / counts.calls) if counts.calls else None,
            "tokens_per_call": usage.tokens_per_call,
            "tokens_per_comparison": round((usage.tokens_in + usage.tokens_out) / counts.examples, 1)
            if counts.examples and usage.tokens_per_call is not None
            else None,
            "cost_per_100_calls_usd": usage.cost_per_100_calls,
            "cost_per_100_comparisons_usd": cost_per_100_comparisons(result),
        }
    )
    row.update(result.diagnostics.get("leaderboard", {}))
    row.update(stability_cells(result))  # --repeats runs only (below)
    if records is not None:
        row.update(protocol_cells(records, spec, result.config.both_bad))
    return row


def short_source(dataset: str) -> str:
    """A data label without a local folder: `/home/me/data/x.jsonl:train@unpinned` -> `x.jsonl:train@unpinned`
    (a Hub id such as `org/name:test@abc` and a bare file name are kept as they are)."""
    source, sep, rest = dataset.rpartition(":")
    if not sep or "@" not in rest:
        source, sep, rest = dataset, "", ""
    local = source.startswith(("/", "~", ".")) or "\\" in source or bool(re.match(r"^[A-Za-z]:", source))
    if local:
        source = re.split(r"[\\/]", source.rstrip("/\\"))[-1] or source
    return f"{source}{sep}{rest}"


def config_hash_of(config: RunConfig) -> str:
    """The run's judge configuration hash: as recorded, else derived from its public arguments and prompt
    (runs written before the hash was recorded)."""
    return run_config_hash(config)


def subset_marker(config: RunConfig, examples: int) -> str:
    """`subset: 200 examples (--limit 200)` / `(--limit 0.1)`: a run on part of its data."""
    given = config.limit_fraction if config.limit_fraction is not None else config.limit
    return f"subset: {examples} examples (--limit {given:g})"


ARGS_KEY = "_answer_args"


def label_rows(rows: list[dict[str, Any]]) -> None:
    """Make every run row's `label` distinct within its table: rows sharing a label (one model id, no
    name) get the arguments (and prompt template names) that differ between them (`openai/o4-mini
    [reasoning_effort=high]`, `openai/gpt-4.1 [prompt=my_sci]`), then, if still alike, their configuration hash
    (`#1a2b3c4d`)."""
    runs = [row for row in rows if ARGS_KEY in row]
    by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in runs:
        by_label[row["label"]].append(row)
    for group in by_label.values():
        if len({row["config_hash"] for row in group}) < 2:
            continue
        keys = sorted({key for row in group for key in row[ARGS_KEY]})
        differing = [k for k in keys if len({json.dumps(row[ARGS_KEY].get(k), sort_keys=True, default=str) for row in group}) > 1]
        for row in group:
            if not row.get("name") and differing:
                shown = {k: row[ARGS_KEY][k] for k in differing if k in row[ARGS_KEY]}
                row["label"] = f"{row['judge']} [{args_text(shown, limit=60) or 'defaults'}]"
        seen: dict[str, set[str]] = defaultdict(set)
        for row in group:
            seen[row["label"]].add(row["config_hash"])
        for row in group:
            if len(seen[row["label"]]) > 1:
                row["label"] = f"{row['label']} #{row['config_hash'][:8]}"
    for row in runs:
        del row[ARGS_KEY]


def _first_dimension(slices: dict[str, Any]) -> dict[str, Any]:
    """Per-slice metrics of the task's only (or first) dimension."""
    return next(iter(slices.values()), {}) if slices else {}


def reported_rows(spec: TaskSpec) -> list[dict[str, Any]]:
    """Published figures in their protocol's column (never the headline column a run is ranked by)."""
    rows = []
    single = len(spec.dimension_names) == 1
    for reported in [*spec.reported, *spec.human_reported]:
        protocol = reported.protocol
        dataset = f"{protocol.dataset}:{protocol.split}" if protocol else reported.source
        kind = "reported" if reported in spec.reported else "reported-human"  # human: a table of its own
        row: dict[str, Any] = {"kind": kind, "judge": reported.judge, "dataset": dataset, "source": reported.source}
        for dimension, value in reported.metrics.items():
            dim = None if single else dimension
            if protocol is not None and protocol.stated:
                row[protocol_columns(protocol, dim)[0]] = value
            else:
                metric = protocol.metric if protocol else spec.headline
                row[f"{dim}.reported_{metric}" if dim else f"reported_{metric}"] = value
        row.update({f"reported_{name}": value for name, value in reported.figures.items()})
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


def _baseline_source(member: tuple[RunResult, list[JudgmentRecord] | None, Path]) -> tuple:
    """Which run of a section the data-derived baselines come from, whatever the order of the entries:
    a run with samples, over both orders, complete, on the most examples and judgments; then by judge
    id and path (so the choice is the same for any listing of the same runs)."""
    result, records, path = member
    config = result.config
    return (records is None, not config.swap, config.partial, -result.counts.examples, -result.counts.calls, config.judge, str(path))


def section_baselines(result: RunResult, records: list[JudgmentRecord] | None, spec: TaskSpec) -> list[dict[str, Any]]:
    """The data-derived rows of one section (dataset x Both-Bad rule) from its chosen run."""
    rows = [random_row(result, spec)]
    if records is not None:
        rows += baseline_rows(records, spec, _dataset_label(result), result.config)
    if (human := human_row(result, spec, _dataset_label(result))) is not None:
        rows.append(human)
    for row in rows:
        row.update(_rule_cells(result.config, spec))
        if result.config.limit is not None:  # computed on a subset's examples: a subset row too
            row["subset"] = subset_marker(result.config, result.counts.examples)
    return rows


def has_both_bad(spec: TaskSpec) -> bool:
    """Whether the task has Both Bad labels, so the Both-Bad rule changes its scores."""
    return "BOTH_BAD" in spec.labels.values()


def _rule_cells(config: RunConfig, spec: TaskSpec) -> dict[str, Any]:
    return {"both_bad": config.both_bad} if has_both_bad(spec) else {}


def baseline_rows(records: list[JudgmentRecord], spec: TaskSpec, dataset: str, config: RunConfig) -> list[dict[str, Any]]:
    """always-first and always-longer: the built-in judges' own choices on the samples, under the headline,
    with the run's Both-Bad rule, seed and resample count (so their intervals equal a built-in run's).

    Both over the orders the run has: a single-order (--no-swap) run gives `(order AB only)` rows,
    never a "both orders" row."""
    rows = []
    for name, judge_id in BASELINE_JUDGES.items():
        metrics = baseline_metrics(records, spec, judge_id, config.both_bad, seed=config.seed, n_resamples=config.n_resamples)
        if not config.swap:
            name = SINGLE_ORDER_NAMES[judge_id]
        row: dict[str, Any] = {"kind": "baseline", "judge": name, "dataset": dataset, "orders": "both" if config.swap else "single"}
        for dimension, values in metrics.items():
            prefix = "" if len(metrics) == 1 else f"{dimension}."
            row.update(_metric_cells(values, [spec.headline], prefix))
        rows.append(row)
    return rows


BASELINE_JUDGES = {"always-first (both orders)": "builtin/always-a", "always-longer": "builtin/longer"}
SINGLE_ORDER_NAMES = {"builtin/always-a": "always-first (order AB only)", "builtin/longer": "always-longer (order AB only)"}


def baseline_metrics(
    records: list[JudgmentRecord],
    spec: TaskSpec,
    judge_id: str,
    both_bad: str,
    *,
    seed: int = 0,
    n_resamples: int = DEFAULT_RESAMPLES,
) -> dict[str, dict[str, MetricValue]]:
    """The metrics a built-in judge (seed 0) would get on these samples' examples, without running it."""
    from judgebench.judges.builtin import make_builtin_judge
    from judgebench.scoring.metrics import score_records

    judge = make_builtin_judge(judge_id, BASELINE_SEED)
    synthetic = [_with_verdict(record, _builtin_choice(judge, record, spec)) for record in records]
    return score_records(synthetic, both_bad=both_bad, n_resamples=n_resamples, seed=seed)[0]


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
    baseline = random_baseline_of(spec.headline)
    baselines = {dim: m[baseline].value for dim, m in result.metrics.items() if baseline in m and dim != "mean"}
    for dimension, value in baselines.items():
        prefix = "" if len(result.metrics) == 1 else f"{dimension}."
        row[f"{prefix}{spec.headline}"] = as_percent(value)
    if len(baselines) > 1 and None not in baselines.values():
        row[f"mean.{spec.headline}"] = as_percent(sum(baselines.values()) / len(baselines))
    return row


def resolve_task(name: str, results_path: Path, include_paths: list[Path], use_run_task_copy: bool) -> TaskSpec:
    """A task by name (installed or --include-path), else the run directory's own task.yaml copy if allowed."""
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
    include, warnings = list(include_paths or []), []
    by_task: dict[str, list[tuple[RunResult, Path]]] = defaultdict(list)
    for path in find_results(result_paths):
        try:
            result = read_model_json(path, RunResult)
        except JudgebenchError as exc:
            warnings.append(f"skipped {path}: {str(exc).removeprefix(f'{path}: ')}")  # the path once
            continue
        by_task[result.config.task].append((result, path))
    tables = {}
    for task, entries in sorted(by_task.items()):
        try:
            spec = resolve_task(task, entries[0][1], include, use_run_task_copy)
        except JudgebenchError as exc:
            warnings.extend(f"skipped {path}: {exc}" for _, path in entries)
            continue
        rows: list[dict[str, Any]] = []
        sections: dict[tuple[str, str], list[tuple[RunResult, list[JudgmentRecord] | None, Path]]] = defaultdict(list)
        for result, path in entries:
            try:
                samples = path.parent / SAMPLES_FILE
                there = samples.exists() or samples.is_symlink()  # a FIFO or folder: refused as not a regular file
                records = read_samples(samples) if there else None
                if records is not None:
                    check_samples_match(result, records, samples)
                row = run_row(result, spec, records)
                if _on_reported_data(result, spec):
                    row["vs_reported"] = True
            except (JudgebenchError, KeyError, ValueError, TypeError) as exc:
                warnings.append(f"skipped {path}: {' '.join(str(exc).split())[:200]}")
                continue
            rows.append(row)
            sections[(row["dataset"], result.config.both_bad)].append((result, records, path))
        if not rows:
            continue
        for members in sections.values():
            result, records, path = min(members, key=_baseline_source)
            try:
                rows += section_baselines(result, records, spec)
            except (JudgebenchError, KeyError, ValueError, TypeError) as exc:
                warnings.append(f"no baseline rows from {path}: {' '.join(str(exc).split())[:200]}")
        rows.extend(reported_rows(spec))
        label_rows(rows)
        tables[task] = sorted(rows, key=lambda row: _sort_key(row, spec))
    return tables, warnings


def build_tables(result_paths: list[Path], include_paths: list[Path] | None = None) -> dict[str, list[dict[str, Any]]]:
    """Task name -> leaderboard rows; warnings (skipped entries) are printed to stderr."""
    tables, warnings = collect_tables(result_paths, include_paths)
    for warning in warnings:
        print(f"judgebench: warning: {warning}", file=sys.stderr)
    return tables


def _sort_key(row: dict[str, Any], spec: TaskSpec) -> tuple:
    """Real data first, then demo data, then reported rows; per dataset one section per Both-Bad rule;
    best headline first within each."""
    value = row.get(headline_column(spec), row.get(f"{spec.dimension_names[0]}.{spec.headline}"))
    section = 2 if row["kind"] in ("reported", "reported-human") else 1 if row["dataset"] == "demo" else 0
    subset = "subset" in row  # a --limit run: after the full runs, never ranked among them
    return (section, row["dataset"], row.get("both_bad") or "", subset,
            -(value if isinstance(value, (int, float)) else -1.0), row.get("label", row["judge"]), row["judge"])


def headline_column(spec: TaskSpec) -> str:
    """The column a task's table is ranked by: the headline, or its mean over dimensions."""
    return spec.headline if len(spec.dimension_names) == 1 else f"mean.{spec.headline}"


def columns_of(rows: list[dict[str, Any]]) -> list[str]:
    """All keys, in the order of the fullest row (a run row), then any others."""
    columns: list[str] = []
    for row in sorted(rows, key=len, reverse=True):
        columns.extend(key for key in row if key not in columns)
    return columns


# The leaderboard's `human` row: the human ceiling of a run's data (results.json `human`, ceiling.py),


HUMAN_JUDGE = "human annotators (vs the other annotators)"
COLUMNS = ("annotator_kappa", "annotator_weighted_kappa", "annotator_alpha", "self_consistency",
           "self_consistency_weighted_kappa")


def human_reference_columns(headline: str) -> list[str]:
    """The columns where the human row and the judge rows are measured on one reference: leave one annotator
    out (each held-out annotator and the judge against the others' label) and pairwise (against each single
    annotator)."""
    return [f"loo_{headline}", f"{headline}_vs_annotators"]


def human_row(result: RunResult, spec: TaskSpec, dataset: str) -> dict[str, Any] | None:
    """The `human` row of a run's data (None when the run's data has no votes, or no human figure is defined): only
    in the columns where the judges are scored on the same reference (human_reference_columns), never in the
    headline's, so a human figure is never ranked against a judge figure computed another way."""
    if not result.human:
        return None
    headline = spec.headline
    row: dict[str, Any] = {"kind": "human", "judge": HUMAN_JUDGE, "dataset": dataset}
    single = len(spec.dimension_names) == 1
    for dimension, figures in result.human.items():
        prefix = "" if single else f"{dimension}."
        loo = f"loo_{headline}"
        for column in human_reference_columns(headline):
            row.update(_cell(figures.get(column), f"{prefix}{column}"))
        for name in COLUMNS:
            row.update(_cell(figures.get(name), f"{prefix}{name}"))
        if dimension == next(iter(result.human)):
            row["examples"] = figures[loo].n if loo in figures else None
    if all(value is None for key, value in row.items() if key not in ("kind", "judge", "dataset", "examples")):
        return None  # no figure is defined (one annotator per pair): no row of blanks
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
        judge_metrics = result.metrics.get(dimension, {})
        judge_loo, judge = judge_metrics.get(f"loo_{headline}"), judge_metrics.get(f"{headline}_vs_annotators")
        if loo is None or loo.value is None:
            continue
        parts = [f"leave one annotator out ({headline}, {loo.n} pairs): humans {loo.value:.3f}"
                 + (f", judge {judge_loo.value:.3f}" if judge_loo is not None and judge_loo.value is not None else "")]
        if human is not None and human.value is not None and judge is not None and judge.value is not None:
            parts.append(f"vs each annotator: humans {human.value:.3f}, judge {judge.value:.3f}")
        for name in ("annotator_weighted_kappa", "annotator_alpha"):
            if (value := figures.get(name)) is not None and value.value is not None:
                parts.append(f"{name} {value.value:.3f}")
        lines.append(f"  human ceiling ({dimension}): " + "; ".join(parts))
    return lines


def stability_cells(result: RunResult) -> dict[str, Any]:
    """The leaderboard's stability columns for a run with --repeats N > 1 (none otherwise): N, the
    mean exact agreement across repeats, and the headline's spread (max - min over repeats) and range,
    in percent / percentage points."""
    s = result.stability
    if s is None:
        return {}
    spread = None if s.headline_min is None or s.headline_max is None else s.headline_max - s.headline_min
    low, high = as_percent(s.headline_min), as_percent(s.headline_max)
    return {
        "repeats": s.repeats,
        "repeat_agreement_pct": as_percent(s.agreement_mean),
        "repeat_spread_pts": as_percent(spread),
        "repeat_headline_range": None if low is None or high is None else f"{low:.2f}-{high:.2f}",
    }
