"""Rubric runs in the main `judgebench leaderboard`: separated from the pairwise results, written as
rubric tables under OUTPUT/rubric/ and shown as sections of OUTPUT/index.html (linked in its nav).

The two kinds never share a table: a rubric headline (normalized MAE, lower is better) and a
pairwise one (agreement, higher is better) are not comparable figures.
"""

from __future__ import annotations

from pathlib import Path

from judgebench.core.errors import JudgebenchError
from judgebench.core.text import html_text
from judgebench.kinds.rubric.board import check_table_paths, leaderboard_rows, table_html, write_tables
from judgebench.kinds.rubric.run import is_rubric_run, read_rubric_run
from judgebench.core.rundir import find_results

SUBFOLDER = "rubric"


def split_runs(paths: list[Path]) -> tuple[list[Path], list[Path]]:
    """(pairwise results.json files, rubric run directories) among the given files and folders."""
    pairwise, rubric = [], []
    for path in find_results(paths):
        (rubric if is_rubric_run(path.parent) else pairwise).append(path)
    return pairwise, [p.parent for p in rubric]


def rubric_sections(run_dirs: list[Path], warnings: list[str]) -> tuple[dict[str, list[dict]], list[tuple[str, str, str]]]:
    """(task -> rubric rows, index.html sections): one section per rubric task, its table and links.
    An unreadable run is skipped with a warning, as the pairwise runs are."""
    tables = rubric_tables(run_dirs, warnings)
    sections = []
    for task, rows in sorted(tables.items()):
        name = html_text(task)
        links = " · ".join(f'<a href="{SUBFOLDER}/{name}.{ext}">{ext}</a>' for ext in ("html", "md", "csv", "json"))
        intro = (f'<p class="legend">Rubric judges (graded against expert scores). Headline: item-level '
                 f'normalized MAE, lower is better, with its 95% interval. Tables: {links}</p>')
        sections.append((f"rubric-{task}", f"{task} (rubric)", f'{intro}\n<div class="scroll">{table_html(rows)}</div>'))
    return tables, sections


def rubric_tables(run_dirs: list[Path], warnings: list[str]) -> dict[str, list[dict]]:
    """Task -> rubric leaderboard rows of the readable runs; an unreadable one is a warning (the rubric kind's
    board rows)."""
    results = []
    for run_dir in run_dirs:
        try:
            results.append(read_rubric_run(run_dir)[0])
        except JudgebenchError as exc:
            warnings.append(f"skipped {run_dir}: {exc}")
    return leaderboard_rows(results)


def write_rubric_tables(tables: dict[str, list[dict]], output_dir: Path) -> list[Path]:
    return write_tables(tables, output_dir / SUBFOLDER) if tables else []


def check_rubric_tables(tables: dict[str, list[dict]], output_dir: Path) -> None:
    """The rubric tables' paths, checked before a leaderboard writes anything (its pairwise tables first)."""
    check_table_paths(tables, output_dir / SUBFOLDER)
