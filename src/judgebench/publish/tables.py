"""Leaderboard tables written out: Markdown, CSV and JSON per task, plus the HTML page (html.py).

Rows come from leaderboard.py; every path written stays under the output folder.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgebench.core.errors import JudgebenchError
from judgebench.core.files import json_text, write_atomic
from judgebench.core.text import csv_text, md_cell
from judgebench.publish.board import TASK_NAME_RE, managed_board
from judgebench.publish.costplot import (
    PLOT_STEM,
    plot_points,
    points_csv,
    points_from_rows,
)
from judgebench.publish.html import cost_key, ranks, to_html
from judgebench.publish.leaderboard import (
    META_COLUMNS,
    PROTOCOL_COLUMN,
    columns_of,
    generated_by,
    provenance_note,
    short_source,
)

if TYPE_CHECKING:
    import pandas as pd


def to_markdown(task: str, rows: list[dict[str, Any]], *, verified: bool = True) -> str:
    """One table per dataset (real data, then demo), then the reported figures beside comparable runs."""
    parts = [
        f"# Leaderboard: {md_escape(task)}\n",
        generated_by(verified) + "; do not edit by hand. "
        "Accuracy-like values are percentages; [low, high] is the 95% bootstrap interval. "
        "`baseline` rows are computed from the evaluated data or come from built-in judges; "
        "`reported` rows are published figures, not re-run.\n",
        provenance_note(verified) + "\n",
    ]
    runs = [row for row in rows if row["kind"] not in ("reported", "reported-human")]
    headline = cost_key(rows)
    for (dataset, rule), group in _groups_by_dataset(runs):
        title = f"Data: {short_source(dataset)}" + (f", Both Bad: {rule}" if rule else "")
        ranked = [row for row in group if "subset" not in row]
        subsets = [row for row in group if "subset" in row]
        parts.append(f"## {md_escape(title)}\n")
        if ranked:
            parts.append(_md_headline_table(None, ranked, headline, ranked=True))
        if subsets:  # level-3 headings: one "## Data:" section per dataset and rule
            parts.append(_md_headline_table(f"Subset runs (--limit), not ranked among full runs: {title[6:]}", subsets,
                                            headline, ranked=False, level="###"))
        columns = [c for c in columns_of(group) if not c.endswith("_ci") and c not in (*META_COLUMNS, *HEADLINE_ONLY)]
        parts.append(_md_table(f"All columns: {title[6:]}", group, columns, level="###"))
    if human := [row for row in rows if row["kind"] == "reported-human"]:  # published human agreement (docs/guide/human-votes.md)
        parts.append(_md_table("Human agreement reported in the papers", human, [
            c for c in columns_of(human) if c not in ("dataset", "vs_reported")]))
    reported = [row for row in rows if row["kind"] == "reported"]
    if reported:
        parts.append(_md_reported(reported, [row for row in runs if row.get("vs_reported")]))
    return "\n".join(parts)


HEADLINE_ONLY = ("label", "coverage_pct")  # shown in the headline table, not repeated in the full one
RANK_KINDS = ("run", "baseline", "human")


def _md_headline_table(title: str | None, group: list[dict[str, Any]], headline: str, *, ranked: bool, level: str = "##") -> str:
    """rank, judge configuration, headline [95% interval], coverage, cost per 100 comparisons, examples, kind."""
    label = f"{headline} % (95% interval)"
    lines = ["| " + " | ".join(md_escape(c) for c in ("rank" if ranked else "subset", "judge configuration", label,
                                                       "coverage %", "cost / 100 comparisons", "examples", "kind")) + " |",
             "|" + "---|" * 7]
    places = ranks(list(enumerate(group)), headline) if ranked else {}  # (the page's ranks: ties share one)
    for i, row in enumerate(group):
        if ranked:
            first = str(places.get(i, ""))
        else:
            first = md_escape(str(row.get("subset", "")).removeprefix("subset: "))
        cells = [first, md_escape(row.get("label") or row["judge"]), _md_percent(row, headline),
                 _fmt(row.get("coverage_pct"), "{:.1f}"), _fmt(row.get("cost_per_100_comparisons_usd"), "${:.4f}"),
                 _fmt(row.get("examples"), "{:d}"),
                 md_escape(row["kind"] + (" (partial)" if row.get("partial") else ""))]
        lines.append("| " + " | ".join(cells) + " |")
    heading = f"{level} {md_escape(title)}\n\n" if title else ""
    return heading + "\n".join(lines) + "\n"


def _md_percent(row: dict[str, Any], column: str) -> str:
    value, ci = row.get(column), row.get(f"{column}_ci")
    if not isinstance(value, (int, float)):
        return ""
    if ci and ci[0] is not None:
        return f"{value:.1f} [{ci[0]:.1f}, {ci[1]:.1f}]"
    return f"{value:.1f}"


def _fmt(value: Any, pattern: str) -> str:
    if value is None or isinstance(value, bool):
        return ""
    try:
        return pattern.format(value)
    except (TypeError, ValueError):
        return md_escape(value)


def _md_reported(reported: list[dict[str, Any]], comparable: list[dict[str, Any]]) -> str:
    """Published rows ranked only against runs on the same released data, under the same protocol."""
    values = [c for c in columns_of(reported) if c not in ("kind", "judge", *META_COLUMNS)]
    coverage = []
    for column in values:
        match = PROTOCOL_COLUMN.fullmatch(column)
        if match:
            coverage.append(f"{match['prefix'] or ''}coverage_{match['orders']}")
    group = sorted(reported + comparable, key=lambda row: _descending(row.get(values[0]) if values else None))
    protocols = sorted({str(row.get("protocol")) for row in reported})
    intro = "Protocol of these figures: " + "; ".join(md_escape(p) for p in protocols) + ". "
    intro += (
        "Runs appear here only when they are on the same released data, scored from their samples under that "
        "protocol (column name: metric, orders, `answered` = invalid answers excluded, `all` = counted wrong). "
        "Demo-data runs are never ranked against published figures.\n\n"
        if comparable or any(PROTOCOL_COLUMN.fullmatch(c) for c in values)
        else "The protocol is not fully stated, so no run is ranked against these figures.\n\n"
    )
    table = _md_table("Reported in the papers", group, ["kind", "judge", "source", *values, *coverage])
    title, _, body = table.partition("\n\n")
    return f"{title}\n\n{intro}{body}"


def _descending(value: Any) -> tuple:
    return (0, -value) if isinstance(value, (int, float)) else (1, 0)


def _md_table(title: str, group: list[dict[str, Any]], columns: list[str], *, level: str = "##") -> str:
    columns = [c for c in columns if any(row.get(c) is not None for row in group)]
    lines = ["| " + " | ".join(md_escape(c) for c in columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_md_cell(row, c) for c in columns) + " |" for row in group]
    return f"{level} {md_escape(title)}\n\n" + "\n".join(lines) + "\n"


md_escape = md_cell  # the one Markdown escape (core/text.py); the name kept for its importers


def _groups_by_dataset(rows: list[dict[str, Any]]) -> list[tuple[tuple[str, str | None], list[dict[str, Any]]]]:
    """One ranking per dataset and Both-Bad rule (rows scored under different rules never share one)."""
    groups: dict[tuple[str, str | None], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["dataset"], row.get("both_bad")), []).append(row)
    return list(groups.items())


def _md_cell(row: dict[str, Any], column: str) -> str:
    value = row.get(column)
    if value is None:
        return ""
    ci = row.get(f"{column}_ci")
    if isinstance(value, float) and ci and ci[0] is not None:
        return f"{value:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]"  # (one precision: 33.33 [33.3, 33.3] put the point outside)
    return f"{value:.2f}" if isinstance(value, float) else md_escape(value)


def with_interval_columns(row: dict[str, Any]) -> dict[str, Any]:
    """The row with each 95% interval `X_ci: [low, high]` also as two numbers, `X_ci_low` and `X_ci_high`."""
    out: dict[str, Any] = {}
    for key, value in row.items():
        out[key] = value
        if key.endswith("_ci") and isinstance(value, list) and len(value) == 2:
            out[f"{key}_low"], out[f"{key}_high"] = value
    return out


def to_csv(rows: list[dict[str, Any]]) -> str:
    """CSV of the rows; intervals as numeric `X_ci_low` / `X_ci_high` columns; text cells a spreadsheet
    would run as a formula get a leading apostrophe."""
    flat = [{k: v for k, v in with_interval_columns(row).items() if not (k.endswith("_ci") and isinstance(v, list))}
            for row in rows]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns_of(flat), lineterminator="\n")
    writer.writeheader()
    for row in flat:
        writer.writerow({k: json.dumps(v) if isinstance(v, list) else csv_text(v) for k, v in row.items()})
    return buffer.getvalue()


def frame_csv(frame: pd.DataFrame, *, index: bool = False) -> str:
    """A table's CSV (numbers to 6 significant digits) with `csv_text`'s guard on its text cells, its column names
    and, when written, its index labels: model names, slice values and annotator ids come from files anyone can
    write (report's and arena's tables had written `=HYPERLINK(...)` as it was)."""
    import pandas as pd  # here: the leaderboard's own tables need no pandas

    safe = frame.copy(deep=False)
    for column in safe.columns:
        if not pd.api.types.is_numeric_dtype(safe[column].dtype):
            safe[column] = safe[column].map(csv_text)
    safe.columns = [csv_text(c) for c in safe.columns]
    if index:
        safe.index = safe.index.map(csv_text).rename(csv_text(safe.index.name))
    return safe.to_csv(index=index, float_format="%.6g")


def write_leaderboards(tables: dict[str, list[dict[str, Any]]], output_dir: Path, *, managed: bool = False,
                       extra: Sequence[tuple[str, str, str]] = ()) -> list[Path]:
    """DIR/<task>.md/.csv/.json and DIR/index.html; every path stays under DIR.

    A folder holding submitted entries (DIR/entries/) is a managed leaderboard: only `submit`
    (managed=True) rebuilds its tables, so `leaderboard` cannot overwrite them by accident.
    """
    board = None if managed else managed_board(output_dir)
    if board is not None:
        where = "it holds submitted entries (entries/)" if board == output_dir.resolve() else f"it is inside the leaderboard {board}"
        raise JudgebenchError(
            f"--output-dir {output_dir}: {where}, whose tables are rebuilt only by `judgebench submit`; "
            "choose another --output-dir"
        )
    for task in tables:  # every name this may write, checked before the first is (an attack: a linked cost plot was
        # refused after the tables were written)
        if not TASK_NAME_RE.fullmatch(task):
            raise JudgebenchError(f"task {task[:80]!r} is not a task name: no table written for it")
        for name in (f"{task}{suffix}" for suffix in (".md", ".csv", ".json", f"_{PLOT_STEM}.csv", f"_{PLOT_STEM}.png")):
            _check_under(output_dir, name)
    _check_under(output_dir, "index.html")
    written = []
    # data sources as short labels in every file (a published board never carries a local folder; a local one's .md
    # titles said `pairs.jsonl:train@...` where its .csv said `../data/pairs.jsonl:train@...`)
    tables = {task: [{**row, "dataset": short_source(row["dataset"])} if isinstance(row.get("dataset"), str) else row
                     for row in rows] for task, rows in tables.items()}
    for task, rows in tables.items():
        for suffix, text in (
            (".md", to_markdown(task, rows, verified=managed)),
            (".csv", to_csv(rows)),
            (".json", json_text({"task": task, "rows": [with_interval_columns(row) for row in rows]}, indent=2) + "\n"),
        ):
            written.append(_write_under(output_dir, f"{task}{suffix}", text))
        written += _write_cost_plot(output_dir, task, rows)
    if tables or extra:  # extra: more index.html sections (rubric boards), see html.to_html
        written.append(_write_under(output_dir, "index.html", to_html(tables, extra, verified=managed)))
    return written


def _write_cost_plot(output_dir: Path, task: str, rows: list[dict[str, Any]]) -> list[Path]:
    """DIR/<task>_cost_accuracy.png and .csv when a judge of the task has a known cost (costplot.py)."""
    key = cost_key(rows)
    points = points_from_rows(rows, key)
    if not points:
        return []
    csv_path = _write_under(output_dir, f"{task}_{PLOT_STEM}.csv", points_csv(points))
    png = _check_under(output_dir, f"{task}_{PLOT_STEM}.png")
    plot_points(points, png, f"{task}: cost vs accuracy", key)
    return [csv_path, png]


def _write_under(folder: Path, name: str, text: str) -> Path:
    path = _check_under(folder, name)
    write_atomic(path, text)
    return path


def _check_under(folder: Path, name: str) -> Path:
    """FOLDER/NAME when it resolves (links followed) under FOLDER, else one line: not written."""
    path = folder / name
    if not path.resolve().is_relative_to(folder.resolve()):
        raise JudgebenchError(f"{path}: resolves outside {folder}; not written")
    return path
