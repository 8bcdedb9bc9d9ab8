"""Rubric data through the real `datasets` path: Hub ids, local Parquet files and dataset folders.

Local .jsonl, .json and .csv files keep their own strict reader (spec.py): Arrow's schema unification
would rewrite nested rubric cells (a key missing from one row's `{item id: points}` comes back as
null; integer and text item ids in one list do not load at all). Rows that `datasets` gives are
mapped back: a structured cell (rubric, maxima, expert scores) given as JSON text is parsed, and a
null that Arrow added to an object for a key other rows have is dropped again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judgebench.core.errors import JudgebenchError

OWN_READER = (".jsonl", ".json", ".csv")


def uses_datasets(source: str) -> bool:
    """Whether a data path (already resolved against the task folder) goes through `datasets`: anything
    but an existing local .jsonl/.json/.csv file (a missing one is reported as not found by spec.py)."""
    local = Path(source)
    return not (local.suffix.lower() in OWN_READER and (local.is_file() or not local.is_dir()))


def read_table_rows(source: str, *, config: str | None, split: str, revision: str | None,
                    structured: set[str]) -> tuple[list[tuple[int, dict[str, Any]]], str | None]:
    """The rows of one split (numbered from 1) and the resolved Hub commit when known."""
    from judgebench.tasks.loading import load_checked_table

    table, resolved, _ = load_checked_table(source, config, split, revision)  # a folder vetted, its CSV read strictly
    rows = [(number, {key: _restore(value) if key in structured else value for key, value in row.items()})
            for number, row in enumerate(table.to_list(), start=1)]
    if not rows:
        raise JudgebenchError(f"{source}: no rows (split {split})")
    return rows, resolved


def _restore(value: Any) -> Any:
    """A structured cell as the data file meant it: JSON text parsed; Arrow's added nulls dropped."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value  # then refused as not a number / not a list, naming the row
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_restore(v) if isinstance(v, dict) else v for v in value]
    return value
