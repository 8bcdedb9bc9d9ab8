"""The static leaderboard page: one self-contained HTML file (inline CSS and JS, no CDN, no fonts).

One table per task and dimension (plus "mean" for multi-dimension tasks), built from the same
rows as the Markdown/CSV/JSON tables. Headers sort on click; 95% intervals are shown next to their
values; reported (published) and baseline rows are marked; a column chooser shows or hides the
diagnostics columns. Each table row carries `data-row`, its index in the task's JSON rows.
Published figures get their own table per task ("reported"), ranked by the column of their
protocol beside the runs on the same released data; self-reported columns are marked.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judgebench.core.catalogue import HEADLINES, LEADERBOARD_EXTRAS, PERCENT_METRICS
from judgebench.core.text import html_text
from judgebench.publish.costplot import html_section, points_from_rows
from judgebench.publish.leaderboard import (
    META_COLUMNS,
    PROTOCOL_COLUMN,
    SELF_REPORTED,
    generated_by,
    provenance_note,
    short_source,
)

IDENTITY = ("kind", "judge", "dataset", "both_bad", "prompt", "orders", "partial", "task_version", "label", "name",
            "judge_args", "config_hash", "subset")
IDENTITY_VISIBLE = ("kind", "dataset", "both_bad", "partial", "subset")
LEADING = ("coverage_pct", "cost_per_100_comparisons_usd")  # after rank, judge and the headline
LEADING_LABELS = {"coverage_pct": "coverage %", "cost_per_100_comparisons_usd": "USD / 100 comparisons"}
EXTRA_METRICS = ("random_baseline", "cohen_kappa")
DIAGNOSTICS_VISIBLE = ("position_bias", "examples", "invalid_rate_pct", "repeats", "repeat_agreement_pct", "repeat_spread_pts")


@dataclass
class Column:
    key: str  # key in the JSON row
    label: str  # header text
    diagnostic: bool  # offered in the column chooser
    visible: bool


@dataclass
class TableView:
    task: str
    dimension: str | None  # None: a single-dimension task (unprefixed keys)
    headline: str
    columns: list[Column]
    rows: list[tuple[int, dict[str, Any]]]  # (index in the JSON rows, row)
    rank: dict[int, int] | None = None  # JSON row index -> rank by the headline (full runs and baselines only)


RANK = "#rank"  # a column computed for the page, not a key of the JSON rows
JUDGE_LABEL = "#judge"  # the row's label (the configuration's name or distinguishing arguments), else its judge


def ranks(rows: list[tuple[int, dict[str, Any]]], headline: str) -> dict[int, int]:
    """The rank by the headline (best first) of each row ranked (not reported figures, not subsets): one plus the
    number of rows with a higher value, so equal values share a rank (1, 2, 2, 4; they had been 1, 2, 3 in the
    order of the rows)."""
    eligible = [(i, row[headline]) for i, row in rows
                if row.get("kind") not in ("reported", "reported-human") and "subset" not in row
                and isinstance(row.get(headline), (int, float)) and not isinstance(row.get(headline), bool)
                and math.isfinite(row[headline])]
    ascending = sorted(value for _, value in eligible)
    return {index: 1 + len(ascending) - bisect.bisect_right(ascending, value) for index, value in eligible}


# ----------------------------------------------------------------------------- layout


def headline_of(rows: list[dict[str, Any]]) -> str:
    keys = {key.rsplit(".", 1)[-1] for row in rows for key in row}
    return "soft_accuracy" if "soft_accuracy" in keys else "accuracy"


def cost_key(rows: list[dict[str, Any]]) -> str:
    """The column the cost-vs-accuracy plot draws: the headline, or its mean over dimensions."""
    headline = headline_of(rows)
    return f"mean.{headline}" if "mean" in dimensions_of(rows) else headline


def dimensions_of(rows: list[dict[str, Any]]) -> list[str]:
    """Dimension prefixes ("mean", "novelty", ...) of a multi-dimension task's keys, mean first."""
    found: dict[str, None] = {}
    for row in rows:
        for key in row:
            prefix, dot, rest = key.partition(".")
            if dot and rest in HEADLINES:
                found.setdefault(prefix, None)
    names = list(found)
    return sorted(names, key=lambda name: name != "mean")


def _metric_names(headline: str) -> tuple[list[str], list[str]]:
    core = [headline, f"{headline}_ab", f"{headline}_ba", f"{headline}_consistent", "order_consistency"]
    extra = ["position_bias", *EXTRA_METRICS]
    return core, extra + [m for m in LEADERBOARD_EXTRAS if m not in core + extra]  # metrics added later


def table_views(task: str, rows: list[dict[str, Any]]) -> list[TableView]:
    """One view per dimension (or one for a single-dimension task)."""
    headline = headline_of(rows)
    dimensions = dimensions_of(rows)
    metric_keys = set(PERCENT_METRICS) | set(EXTRA_METRICS) | set(LEADERBOARD_EXTRAS)
    shared = [
        key
        for key in _keys(rows)
        if not key.endswith("_ci")
        and key not in IDENTITY
        and key not in META_COLUMNS
        and key.partition(".")[0] not in dimensions
        and (dimensions or key not in metric_keys)
    ]
    views = []
    for dimension in dimensions or [None]:
        prefix = f"{dimension}." if dimension else ""
        core, extra = _metric_names(headline)
        present = set(_keys(rows))
        columns = [Column(RANK, "rank", False, True), Column(JUDGE_LABEL, "judge", False, True)]
        columns += [Column(prefix + m, m, False, True) for m in core[:1] if prefix + m in present]
        columns += [Column(k, LEADING_LABELS[k], False, True) for k in LEADING if k in present]
        columns += [Column(k, k, k not in IDENTITY_VISIBLE, k in IDENTITY_VISIBLE) for k in IDENTITY
                    if k in present and k not in ("judge", "label")]
        columns += [Column(prefix + m, m, False, True) for m in core[1:] if prefix + m in present]
        own = [k for k in _keys(rows) if k.startswith(prefix) and not k.endswith("_ci")] if prefix else []
        rest = [m for m in extra if prefix + m in present]
        rest += [k[len(prefix):] for k in own if k[len(prefix):] not in core + extra]
        columns += [Column(prefix + m, m, True, _shown(m)) for m in rest if m not in META_COLUMNS]
        columns += [Column(k, k, True, _shown(k)) for k in shared if k not in LEADING]
        metric_columns = [prefix + m for m in core + extra]
        kept = [(i, row) for i, row in enumerate(rows) if any(row.get(k) is not None for k in metric_columns)]
        views.append(TableView(task, dimension, headline, columns, kept, ranks(kept, prefix + headline)))
    reported = reported_view(task, rows)
    return views + ([reported] if reported else [])


def _shown(key: str) -> bool:
    """Visible by default: a few diagnostics and the reported rows' protocol columns."""
    return key in DIAGNOSTICS_VISIBLE or bool(PROTOCOL_COLUMN.fullmatch(key)) or key.startswith("coverage_")


def reported_view(task: str, rows: list[dict[str, Any]]) -> TableView | None:
    """Published figures and the runs on the same released data, ranked by the protocol's column."""
    reported = [(i, row) for i, row in enumerate(rows) if row.get("kind") == "reported"]
    values = [k for k in _keys([row for _, row in reported]) if PROTOCOL_COLUMN.fullmatch(k) or "reported_" in k]
    if not values:
        return None
    coverage = []
    for key in values:
        match = PROTOCOL_COLUMN.fullmatch(key)
        if match:
            coverage.append(f"{match['prefix'] or ''}coverage_{match['orders']}")
    comparable = [(i, row) for i, row in enumerate(rows) if row.get("vs_reported")]
    group = sorted(reported + comparable, key=lambda item: _rank(item[1].get(values[0])))
    keys = ["kind", "judge", "source", *values, *coverage, "protocol"]
    columns = [Column(k, k, False, True) for k in keys if any(row.get(k) is not None for _, row in group)]
    return TableView(task, "reported", values[0], columns, group)


def _rank(value: Any) -> tuple:
    return (0, -value) if isinstance(value, (int, float)) and not isinstance(value, bool) else (1, 0)


def _keys(rows: list[dict[str, Any]]) -> list[str]:
    keys: dict[str, None] = {}
    for row in rows:
        for key in row:
            keys.setdefault(key, None)
    return list(keys)


# ----------------------------------------------------------------------------- cells


def format_value(value: Any) -> str:
    """How a JSON value is displayed: numbers up to 4 decimals, booleans yes/empty, None empty."""
    if value is None or value is False:
        return ""
    if value is True:
        return "yes"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = f"{value:.4f}".rstrip("0").rstrip(".")
        return "0" if text in ("-0", "") else text
    return str(value)


def _sort_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    return repr(value) if isinstance(value, (int, float)) else str(value)


def metric_format(key: str, value: Any) -> str:
    """One number format per metric: percentages with 2 decimals, other figures with 4, counts as integers."""
    name = key.rpartition(".")[2]
    protocol = re.sub(r"_(ab|both)_(answered|all)$", "", name)  # a protocol column (`accuracy_ab_answered`): its metric's
    if isinstance(value, float) and not isinstance(value, bool) and math.isfinite(value):
        if (name in PERCENT_METRICS or protocol in PERCENT_METRICS or re.fullmatch(r"coverage_(ab|both)", name)
                or name.endswith(("_pct", "_pts")) or "=" in name or name.startswith("reported_")):
            return f"{value:.2f}"
        return f"{value:.4f}"
    return format_value(value)


def _cell(row: dict[str, Any], column: Column, index: int, rank: int | None = None, *, verified: bool = False) -> str:
    hidden = "" if column.visible else " hidden"
    if column.key == RANK:
        return f'<td data-col="{index}" data-value="{rank if rank is not None else ""}" class="rank"{hidden}>{rank or ""}</td>'
    if column.key == JUDGE_LABEL:
        label = str(row.get("label") or row.get("judge", ""))
        tip = " ".join(str(row.get(k)) for k in ("judge", "judge_args", "config_hash") if row.get(k))
        title = f' title="{html_text(tip)}"' if tip and tip != label else ""
        return f'<td data-col="{index}" data-value="{html_text(label)}" class="sticky judge"{title}{hidden}>{html_text(label)}</td>'
    value = row.get(column.key)
    if column.key == "dataset" and verified and isinstance(value, str):
        value = short_source(value)  # a published board never carries a local folder, not even for sorting
    ci = row.get(f"{column.key}_ci")
    attrs = f' data-col="{index}" data-value="{html_text(_sort_value(value))}"'
    attrs += hidden
    text = html_text(metric_format(column.key, value))
    if column.key == "dataset" and isinstance(value, str):
        short = short_source(value)
        if short != value:
            text = html_text(short)
            if not verified:  # a published board never shows a local path, even on hover
                attrs += f' title="{html_text(value)}"'
    if column.key == "subset" and value:
        text = f'<span class="badge badge-partial">{html_text(str(value))}</span>'

    if column.key == "kind":
        text = f'<span class="badge badge-{html_text(str(value))}">{text}</span>'
    elif column.key == "partial" and value:
        text = '<span class="badge badge-partial">partial</span>'
    if ci and ci[0] is not None and value is not None:
        text += f' <span class="ci">[{metric_format(column.key, ci[0])}, {metric_format(column.key, ci[1])}]</span>'
    return f"<td{attrs}>{text}</td>"


# ----------------------------------------------------------------------------- page


def _table(view: TableView, table_id: str, *, verified: bool = False) -> str:
    heads = []
    for index, column in enumerate(view.columns):
        hidden = "" if column.visible else " hidden"
        mark = ' class="self-reported" title="self-reported: recorded by the submitter, not verifiable"'
        mark = mark if column.label in SELF_REPORTED or column.key in SELF_REPORTED else ""
        mark += {JUDGE_LABEL: ' data-sticky="judge"', RANK: ' data-sticky="rank"'}.get(column.key, "")
        heads.append(
            f'<th data-col="{index}" aria-sort="none"{mark}{hidden}><button type="button" title="sort by '
            f'{html_text(column.key)}">{html_text(column.label)}</button></th>'
        )
    body = []
    for row_index, row in view.rows:
        kind = html_text(str(row.get("kind", "run")))
        rank = (view.rank or {}).get(row_index)
        cells = "".join(_cell(row, column, i, rank, verified=verified) for i, column in enumerate(view.columns))
        body.append(f'<tr class="kind-{kind}" data-row="{row_index}">{cells}</tr>')
    chooser = "".join(
        f'<label><input type="checkbox" data-col="{i}"{" checked" if c.visible else ""}> {html_text(c.label)}</label>'
        for i, c in enumerate(view.columns)
        if c.diagnostic
    )
    title = f"{view.task}: {view.dimension or 'overall'}"
    if view.dimension == "reported":
        title = f"{view.task}: reported in the papers, beside runs on the same released data (never demo data)"
    return (
        f'<section class="board" id="{html_text(table_id)}" data-task="{html_text(view.task)}" '
        f'data-dimension="{html_text(view.dimension or "")}">\n'
        f"<h3>{html_text(title)} <small>{'ranked by' if view.dimension == 'reported' else 'headline:'} "
        f"{html_text(view.headline)} (%)</small></h3>\n"
        f'<details class="chooser"><summary>More columns (diagnostics, configuration, slices)</summary>{chooser}</details>\n'
        f'<div class="scroll"><table><thead><tr>{"".join(heads)}</tr></thead>\n'
        f"<tbody>\n" + "\n".join(body) + "\n</tbody></table></div>\n</section>"
    )


def to_html(tables: dict[str, list[dict[str, Any]]], extra: Sequence[tuple[str, str, str]] = (), *,
            verified: bool = True) -> str:
    """The whole page for every task's rows; `extra`: (anchor, title, HTML) sections after them (rubric boards)."""
    sections = []
    for task, rows in tables.items():
        views = table_views(task, rows)
        boards = "\n".join(_table(view, f"{task}--{view.dimension or 'overall'}", verified=verified) for view in views)
        key = cost_key(rows)
        boards += "\n" + html_section(task, points_from_rows(rows, key), key)
        sections.append(f'<h2 id="{html_text(task)}">{html_text(task)}</h2>\n{boards}')
    sections += [f'<h2 id="{html_text(anchor)}">{html_text(title)}</h2>\n{body}' for anchor, title, body in extra]
    links = [(t, t) for t in tables] + [(anchor, title) for anchor, title, _ in extra]
    nav = " · ".join(f'<a href="#{html_text(a)}">{html_text(t)}</a>' for a, t in links)
    return PAGE.format(nav=nav, body="\n".join(sections), css=CSS, js=JS, note=html_text(provenance_note(verified)),
                       generated=html_text(generated_by(verified).replace("`", "")))


CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5rem;color:#1b1f24;background:#fff}
h1{font-size:1.5rem;margin:0 0 .3rem}h2{margin:2rem 0 .5rem;border-bottom:1px solid #d0d7de}
h3{font-size:1.05rem;margin:1.2rem 0 .4rem}h3 small{font-weight:normal;color:#57606a}
.legend{color:#57606a;margin:.3rem 0 1rem}.scroll{overflow-x:auto}
.warning{background:#fff8e6;border-left:3px solid #9a6700;padding:.3rem .6rem;margin:.5rem 0}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}
th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;white-space:nowrap}
th{background:#f6f8fa;position:sticky;top:0;z-index:2}
td.rank,th[data-sticky=rank]{position:sticky;left:0;min-width:2.2em;width:2.2em;text-align:right;background:#fff;z-index:1}
td.judge,th[data-sticky=judge]{position:sticky;left:3.2em;background:#fff;z-index:1;box-shadow:2px 0 0 #d0d7de}
th[data-sticky]{background:#f6f8fa;z-index:3}
tr.kind-baseline td.rank,tr.kind-baseline td.judge{background:#f3f4f6}tr.kind-reported td.judge{background:#fff8e6}
th button{font:inherit;font-weight:600;background:none;border:0;padding:0;cursor:pointer;color:inherit}
th[aria-sort=ascending] button::after{content:" \\25B2"}th[aria-sort=descending] button::after{content:" \\25BC"}
.ci{color:#57606a;font-size:.85em}
tr.kind-baseline{background:#f3f4f6}tr.kind-reported{background:#fff8e6;font-style:italic}
.badge{border-radius:.6em;padding:0 .45em;font-size:.8em;font-style:normal;border:1px solid #8c959f}
.badge-baseline{background:#e5e7eb}.badge-reported{background:#fde68a}.badge-run{background:#dbeafe}
.badge-partial{background:#fecaca}
th.self-reported::after{content:"self-reported";display:block;font-size:.7em;font-weight:normal;color:#9a6700}
.chooser{margin:.3rem 0}.chooser label{margin-right:.8rem;white-space:nowrap}
[hidden]{display:none!important}
"""

JS = """
(function(){
  function num(v){return v!=='' && !isNaN(Number(v)) ? Number(v) : null;}
  function sortBy(table, col, th){
    var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    var values = rows.map(function(r){return r.querySelector('td[data-col="'+col+'"]').getAttribute('data-value');});
    var numeric = values.every(function(v){return v==='' || num(v)!==null;});
    var now = th.getAttribute('aria-sort');
    var dir = now==='none' ? (numeric ? 'descending' : 'ascending') : (now==='descending' ? 'ascending' : 'descending');
    var order = rows.map(function(r,i){return i;});
    order.sort(function(a,b){
      var x=values[a], y=values[b];
      if(x==='' || y===''){return (x==='') - (y==='') || a-b;}
      var c = numeric ? num(x)-num(y) : x.localeCompare(y);
      return (dir==='ascending' ? c : -c) || a-b;
    });
    table.querySelectorAll('th').forEach(function(h){h.setAttribute('aria-sort','none');});
    th.setAttribute('aria-sort', dir);
    order.forEach(function(i){body.appendChild(rows[i]);});
  }
  document.querySelectorAll('section.board').forEach(function(section){
    var table = section.querySelector('table');
    table.querySelectorAll('th').forEach(function(th){
      th.querySelector('button').addEventListener('click', function(){sortBy(table, th.getAttribute('data-col'), th);});
    });
    section.querySelectorAll('.chooser input').forEach(function(box){
      box.addEventListener('change', function(){
        table.querySelectorAll('[data-col="'+box.getAttribute('data-col')+'"]').forEach(function(cell){cell.hidden=!box.checked;});
      });
    });
  });
})();
"""

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>judgebench leaderboard</title>
<style>{css}</style>
</head>
<body>
<h1>judgebench leaderboard</h1>
<p class="legend">{generated}; do not edit by hand.
Accuracy-like values are percentages; [low, high] is the 95% bootstrap interval. Click a header to sort.
Rows: <span class="badge badge-run">run</span> a judge's run,
<span class="badge badge-baseline">baseline</span> a built-in judge or a baseline computed from the data,
<span class="badge badge-reported">reported</span> a published figure, not re-run.</p>
<p class="legend">{note}</p>
<nav>{nav}</nav>
{body}
<script>{js}</script>
</body>
</html>
"""
