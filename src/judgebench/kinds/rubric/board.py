"""Rubric leaderboard rows and tables (md, csv, json), and `compare` of two rubric runs.

Headline: item-level normalized MAE, lower is better, with its 95% interval. Rows are rebuilt by
code from results files, never edited by hand; built-in judges are marked `baseline`; runs on the
demo data show `demo` in the dataset column.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from judgebench.core.catalogue import RUBRIC_BY_NAME, RUBRIC_HEADLINE
from judgebench.core.errors import JudgebenchError
from judgebench.core.files import is_inside, json_text, write_atomic
from judgebench.core.names import is_builtin
from judgebench.core.text import csv_text, html_text
from judgebench.kinds.rubric.records import RubricRecord, RubricResult
from judgebench.kinds.rubric.scoring import agreement
from judgebench.publish.tables import md_escape
from judgebench.publish.verify import DEFAULT_MIN_COVERAGE
from judgebench.stats.paired import PairedTest, paired_bootstrap_ci, paired_test

COLUMNS = [
    "rank", "judge", "kind", "dataset", "normalized_mae", "normalized_mae_ci", "normalized_mae_total", "mae_total",
    "within_k_total", "pearson", "bias_total", "over_credit_total", "system_max_diff", "system_pass", "coverage",
    "rejected", "failed", "cost_usd", "prompt_hash",
]
_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def _value(result: RubricResult, level: str, name: str) -> float | None:
    metric = result.metrics.get(level, {}).get(name)
    return None if metric is None or metric.value is None else round(metric.value, 4)


def _headline(result: RubricResult) -> Any:
    """The headline metric: item level, or total level for tasks with only total maxima."""
    head = result.metrics["item"][RUBRIC_HEADLINE]
    return result.metrics["total"][RUBRIC_HEADLINE] if head.value is None else head


def row_of(result: RubricResult) -> dict[str, Any]:
    head = _headline(result)
    ci = f"[{head.ci_low:.4f}, {head.ci_high:.4f}]" if head.ci_low is not None else ""
    system = result.system
    return {
        "judge": result.config.judge,
        "kind": "baseline" if is_builtin(result.config.judge) else "run",
        "dataset": "demo" if result.config.demo else result.config.dataset,
        "normalized_mae": None if head.value is None else round(head.value, 4),
        "normalized_mae_ci": ci,
        "normalized_mae_total": _value(result, "total", "normalized_mae"),
        "mae_total": _value(result, "total", "mae"),
        "within_k_total": _value(result, "total", "within_k"),
        "pearson": _value(result, "item", "pearson") if _value(result, "item", "pearson") is not None
        else _value(result, "total", "pearson"),
        "bias_total": _value(result, "total", "bias"),
        "over_credit_total": None if _value(result, "total", "over_credit") is None else int(_value(result, "total", "over_credit")),
        "system_max_diff": None if system.max_abs_difference is None else round(system.max_abs_difference, 4),
        "system_pass": {True: "pass", False: f"fail ({system.worst_pair})", None: ""}[system.passed]
        + ("" if system.complete or system.passed is None else " (incomplete: unscored responses)"),
        "coverage": round(result.counts.coverage, 4),
        "rejected": result.counts.invalid,
        "failed": result.counts.failed,
        "cost_usd": None if result.usage.cost_usd is None else round(result.usage.cost_usd, 6),  # (1.1533019999999994)
        "prompt_hash": result.config.prompt_template_hash[:12],
    }


def leaderboard_rows(results: list[RubricResult]) -> dict[str, list[dict[str, Any]]]:
    """Task -> rows, real data before demo, ranked by the headline in its catalogue direction (lower is
    better for normalized MAE). A run whose figures cover too few responses (`ranked`) is listed after the
    ranked ones without a rank, as is a run with no value."""
    sign = 1 if RUBRIC_BY_NAME[RUBRIC_HEADLINE].higher_is_better is False else -1
    tables: dict[str, list[dict[str, Any]]] = {}
    for result in results:
        tables.setdefault(result.config.task, []).append({**row_of(result), "rank": ranked(result)})
    for rows in tables.values():
        rows.sort(key=lambda r: (r["dataset"] == "demo", not r["rank"], sign * (r["normalized_mae"] or 0), r["judge"]))
        for number, row in enumerate((row for row in rows if row["rank"]), start=1):
            row["rank"] = number
        for row in rows:
            row["rank"] = row["rank"] or None
    return tables


def ranked(result: RubricResult) -> bool:
    """Whether a run is ranked: a headline, at least one response graded by the judge, and a coverage at least
    submit's bar. The error figures are over the scored responses only, so a judge that graded a few easy ones
    (or none: the no-answers are scored zero without a call) would otherwise rank first."""
    return _headline(result).value is not None and result.counts.answered > 0 and result.counts.coverage >= DEFAULT_MIN_COVERAGE


def to_markdown(task: str, rows: list[dict[str, Any]]) -> str:
    head = (f"# Rubric leaderboard: {md_escape(task)}\n\nGenerated by `judgebench rubric leaderboard` from results "
            "files; do not edit by hand. Headline: item-level normalized MAE against the experts (lower is "
            "better) with its 95% bootstrap interval over problems, over the responses the judge scored: a run under "
            f"{DEFAULT_MIN_COVERAGE:.0%} coverage is listed unranked. `within_k_total`: share of responses whose "
            "total is within k points; `system_pass`: every model-exam total within k (else the worst pair).\n")
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(md_escape("" if row.get(c) is None else row.get(c)) for c in COLUMNS) + " |" for row in rows]
    return head + "\n" + "\n".join(lines) + "\n"


def to_csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, extrasaction="ignore")
    writer.writeheader()
    for row in rows:  # a cell that would run as a formula in a spreadsheet is text (the one guard: core/text.csv_text)
        writer.writerow({c: csv_text(v) for c, v in row.items()})
    return out.getvalue()


def table_html(rows: list[dict[str, Any]]) -> str:
    """One HTML table of rubric rows, every cell escaped (the rubric page, and the main index.html)."""

    def cell(value: Any) -> str:
        return html_text("" if value is None else str(value))

    head = "".join(f"<th>{cell(c)}</th>" for c in COLUMNS)
    body = "".join("<tr>" + "".join(f"<td>{cell(row.get(c))}</td>" for c in COLUMNS) + "</tr>\n" for row in rows)
    return f"<table border=\"1\"><tr>{head}</tr>\n{body}</table>"


def to_html(task: str, rows: list[dict[str, Any]]) -> str:
    """A static page: one table, every cell escaped."""
    name = html_text(task)
    return (f"<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Rubric leaderboard: {name}</title>"
            f"</head><body><h1>Rubric leaderboard: {name}</h1><p>Headline: item-level normalized MAE "
            f"(lower is better).</p>\n{table_html(rows)}</body></html>\n")


def check_table_paths(tables: dict[str, list[dict[str, Any]]], output_dir: Path) -> None:
    """Every file `write_tables` writes stays under OUTPUT_DIR, checked before the first is written (an attack: a
    linked table was refused after the others were written)."""
    for task in tables:
        if not _SAFE.match(task):
            raise JudgebenchError(f"task name {task!r} cannot be a file name")
        for suffix in (".md", ".csv", ".html", ".json"):
            path = output_dir / f"{task}{suffix}"
            if not is_inside(path, output_dir):
                raise JudgebenchError(f"{path}: outside {output_dir}")


def write_tables(tables: dict[str, list[dict[str, Any]]], output_dir: Path) -> list[Path]:
    check_table_paths(tables, output_dir)
    written = []
    for task, rows in sorted(tables.items()):
        for suffix, text in ((".md", to_markdown(task, rows)), (".csv", to_csv(rows)), (".html", to_html(task, rows)),
                             (".json", json_text(rows, indent=2, ensure_ascii=False) + "\n")):
            path = output_dir / f"{task}{suffix}"
            write_atomic(path, text)
            written.append(path)
    return written


# ----------------------------------------------------------------------------- compare


@dataclass
class RubricComparison:
    task: str
    baseline: str
    candidate: str
    units: int  # rubric items both runs scored (repeat 0)
    baseline_error: float | None  # mean normalized absolute error per item
    candidate_error: float | None
    difference: float | None  # candidate - baseline (below 0: the candidate is closer to the experts)
    ci: tuple[float, float] | None
    test: PairedTest | None
    judges: dict[str, float | int | None]  # the two judges against each other
    unit: str = "problem"  # what the paired test and interval resample: problems (`group`), else responses
    clusters: int = 0  # how many of them


def item_errors(records: list[RubricRecord]) -> dict[tuple[str, str], float]:
    """(response, rubric item) -> |judge - expert| / max, repeat 0, scored responses with item scores."""
    return {(r.item_id, c.id): abs(r.scores[c.id] - r.expert_items[c.id]) / c.max
            for r in records if r.repeat == 0 and r.scored and r.expert_items is not None for c in r.rubric}


def compare_rubric(base: tuple[RubricResult, list[RubricRecord]], cand: tuple[RubricResult, list[RubricRecord]],
                   seed: int = 0) -> RubricComparison:
    (rb, recb), (rc, recc) = base, cand
    if (rb.config.task, rb.config.fingerprint) != (rc.config.task, rc.config.fingerprint):
        raise JudgebenchError("compare: the runs are of different tasks or data (task and data fingerprint must match)")
    eb, ec = item_errors(recb), item_errors(recc)
    keys = sorted(set(eb) & set(ec))
    judges = agreement([r for r in recb if r.repeat == 0], [r for r in recc if r.repeat == 0])
    if not keys:
        return RubricComparison(rb.config.task, rb.config.judge, rc.config.judge, 0, None, None, None, None, None, judges)
    xb, xc = np.array([eb[k] for k in keys]), np.array([ec[k] for k in keys])
    unit, cb, cc = _per_cluster(keys, recb, eb, ec)  # items of one problem are not independent
    return RubricComparison(
        task=rb.config.task, baseline=rb.config.judge, candidate=rc.config.judge, units=len(keys),
        baseline_error=float(xb.mean()), candidate_error=float(xc.mean()), difference=float((xc - xb).mean()),
        ci=paired_bootstrap_ci(cc - cb, seed=seed), test=paired_test(cb, cc, seed=seed), judges=judges,
        unit=unit, clusters=len(cb),
    )


def _per_cluster(keys: list[tuple[str, str]], records: list[RubricRecord], eb: dict, ec: dict
                 ) -> tuple[str, np.ndarray, np.ndarray]:
    """The paired test's unit, as the scoring's intervals resample (scoring.py): a problem (`group`) when the
    task maps one, else a response; each unit's errors are the mean over its rubric items."""
    group = {r.item_id: r.group for r in records if r.repeat == 0}
    by_problem = all(group.get(response) is not None for response, _ in keys)
    unit = "problem" if by_problem else "response"
    clusters: dict[str, list[tuple[str, str]]] = {}
    for key in keys:
        clusters.setdefault(group[key[0]] if by_problem else key[0], []).append(key)
    names = sorted(clusters)
    mean = lambda errors, name: float(np.mean([errors[k] for k in clusters[name]]))  # noqa: E731
    return unit, np.array([mean(eb, n) for n in names]), np.array([mean(ec, n) for n in names])


def judge_agreement(runs: list[tuple[RubricResult, list[RubricRecord]]]) -> list[dict[str, Any]]:
    """Every pair of judges (repeat 0, items both scored): normalized MAE, exact agreement, correlations,
    then their mean over pairs. The runs must share task and data fingerprint."""
    keys = {(r.config.task, r.config.fingerprint) for r, _ in runs}
    if len(keys) != 1:
        raise JudgebenchError("rubric agree: the runs are of different tasks or data (task and data fingerprint must match)")
    rows = []
    for i in range(len(runs)):
        for j in range(i + 1, len(runs)):
            first = [x for x in runs[i][1] if x.repeat == 0]
            second = [x for x in runs[j][1] if x.repeat == 0]
            rows.append({"a": runs[i][0].config.judge, "b": runs[j][0].config.judge, **agreement(first, second)})
    numeric = ("normalized_mae", "exact_item_agreement", "pearson", "spearman", "kendall")
    mean = {name: float(np.mean(v)) if (v := [r[name] for r in rows if r[name] is not None]) else None for name in numeric}
    return [*rows, {"a": "mean over pairs", "b": "", "items": None, **mean}]
