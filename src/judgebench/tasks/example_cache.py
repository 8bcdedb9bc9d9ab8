"""The rows `datasets` read from a local data file, kept so that reading the same bytes again needs no
`datasets` (its import and `load_dataset` are 2-3 s of a 2,000-call cached rerun).

Decision (issue 11, section 6): a local file is still read through the real `datasets` code path the first
time, and whenever anything that could change what it returns differs. The key is the sha256 of the file's
bytes, the builder (json / parquet / csv, from the suffix), the split name, and the versions of `datasets`,
`pyarrow` and judgebench; a stored entry gives the rows and column names `datasets` gave for exactly that key.
Only successes are stored: a file that fails to load is read through `datasets` every time, so its error is
the same one-line error. Everything after the rows (the task's column mapping, labels, ids, votes) runs on
the rows as before, so its errors are the same too. Rows are stored as JSON only when every value is a JSON
value that reads back as the same type and value (str, int, float that is finite, bool, None, lists, dicts
with str keys); anything else (dates, bytes, NaN) is not stored and the file keeps going through `datasets`.
Not cached: folders, Hub datasets and files over 64 MB (MAX_FILE_BYTES: a large file is streamed batch by
batch from `datasets`' own Arrow cache files, stream_load.py, and its rows are never held at once).

Where: `examples/` under $JUDGEBENCH_CACHE_DIR, else the user cache folder (the reply cache's default;
`--cache-dir` moves the reply cache only). `JUDGEBENCH_EXAMPLE_CACHE=0` turns it off. A damaged entry is
ignored and rewritten. Writes are atomic; a cache folder that cannot be written is skipped silently (the
rows were loaded anyway).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from judgebench.core.files import regular_text, write_atomic
from judgebench.core.version import __version__

FORMAT = 3  # bump when what is stored changes, or what a load checks first (2, 3: NaN / Infinity values refused)
MAX_FILE_BYTES = 64 << 20  # larger files stream from datasets' own Arrow cache (stream_load.py), never held as rows

Rows = tuple[list[dict[str, Any]], list[str], "str | None"]  # rows, column names, resolved Hub revision


def enabled() -> bool:
    return os.environ.get("JUDGEBENCH_EXAMPLE_CACHE", "1") != "0"


def cache_folder() -> Path:
    from judgebench.core.resources import default_cache_dir

    return default_cache_dir() / "examples"


def load_rows(
    source: str, split: str, builders: dict[str, str], load: Callable[[], tuple[Any, str | None]], variant: str = ""
) -> Rows | None:
    """(rows, column names, resolved revision) of `load()` (a `datasets.Dataset` and its revision), taken
    from the cache when `source` is a local file (suffix -> `datasets` builder in `builders`) whose key is
    stored (module docstring). None, without loading, for anything the cache does not keep: Hub datasets,
    folders, other suffixes, files over MAX_FILE_BYTES (those stream from datasets' Arrow files), or when off.
    `variant`: what else changes the rows `load()` gives (a CSV task's text columns), part of the key."""
    path = Path(source)
    builder = builders.get(path.suffix.lower())
    if not enabled() or builder is None or not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
        return None
    key = _key(path, builder, split, variant)
    entry = cache_folder() / f"{key}.json"
    stored = _read(entry, key)
    if stored is not None:
        return stored[0], stored[1], None
    table, resolved = load()
    rows, columns = table.to_list(), table.column_names
    if resolved is None and all(isinstance(c, str) for c in columns) and all(_json_exact(row) for row in rows):
        try:
            write_atomic(entry, json.dumps({"key": key, "columns": columns, "rows": rows}, allow_nan=False))
        except (OSError, ValueError):
            pass  # an unwritable cache folder costs the next run a `datasets` load, nothing else
    return rows, columns, resolved


def _key(path: Path, builder: str, split: str, variant: str = "") -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    parts = [FORMAT, __version__, _version("datasets"), _version("pyarrow"), builder, split, digest.hexdigest()]
    if variant:  # only CSV loads have one: the keys of JSON and Parquet entries stay as they were
        parts.append(variant)
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _read(entry: Path, key: str) -> tuple[list[dict[str, Any]], list[str]] | None:
    """The stored rows and columns, or None when absent or not a well-formed entry for this key."""
    try:
        data = json.loads(regular_text(entry))  # a FIFO planted in the cache is skipped, never waited on
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    rows, columns = data.get("rows"), data.get("columns")
    if not isinstance(rows, list) or not isinstance(columns, list) or not all(isinstance(r, dict) for r in rows) \
            or not all(isinstance(c, str) for c in columns):
        return None
    return rows, columns


def _json_exact(value: Any) -> bool:
    """True when json.loads(json.dumps(value)) gives back the same types and values."""
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_json_exact(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_exact(v) for k, v in value.items())
    return False
