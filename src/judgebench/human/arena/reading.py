"""Read a votes file straight into arena's vote table, in one streaming pass.

The Vote record (votes.py) stays the definition of a valid vote: a line whose fields are plainly of
the right types is taken as it is (no object built: millions of votes fit in memory), and any other
line goes through `Vote.model_validate`, which either accepts it (e.g. a multi-dimension `choices`
vote) or gives the one-line error naming the file and line. CSV files go through votes.read_votes.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import ValidationError

from judgebench.core.errors import JudgebenchError
from judgebench.core.files import (
    describe_validation_error,
    open_regular,
    parse_json_object,
)
from judgebench.core.records import LABELS
from judgebench.human.arena.battles import SLICE, STYLE_COLUMNS, votes_frame
from judgebench.tasks.votes import Vote, read_votes

_STRINGS = ("model_a", "model_b", "timestamp", "comment")
_ALLOWED = {"pair_id", "annotator", "choice", "shown_order", "seconds", "slices", *_STRINGS, *STYLE_COLUMNS}
_COLUMNS = ("pair_id", "annotator", "choice", "model_a", "model_b", "shown_order", "timestamp", "seconds",
            *STYLE_COLUMNS)


def read_vote_table(path: Path, source: str, dimension: str) -> tuple[pd.DataFrame, Counter]:
    """The raw vote table of a votes file (the same table battles.votes_frame builds)."""
    if path.suffix == ".csv":
        return votes_frame(read_votes(path), source, dimension)
    if not path.is_file():
        raise JudgebenchError(f"votes file {path}: no such file")
    columns: dict[str, list[Any]] = {c: [] for c in _COLUMNS}
    slices: dict[str, list[Any]] = {}
    dropped: Counter = Counter()
    appenders = [(columns[c].append, c) for c in _COLUMNS]
    count = 0
    try:
        with open_regular(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                row = parse_json_object(line, f"votes file {path}:{number}")
                if not _plain(row):
                    row = _validated(row, path, number, dimension)
                    if row is None:
                        dropped[f"no vote on dimension {dimension}"] += 1
                        continue
                count += 1
                get = row.get
                if not get("model_a") or not get("model_b"):
                    raise JudgebenchError(f"{source}: vote {count} (pair {row['pair_id']}, annotator {row['annotator']}) "
                                          "has no model_a/model_b; arena needs both model names")
                for append, c in appenders:
                    append(get(c))
                found = get("slices")
                if found or slices:
                    _add_slices(slices, found or {}, count)
    except UnicodeDecodeError:
        raise JudgebenchError(f"votes file {path}: not UTF-8 text") from None
    except OSError as exc:
        raise JudgebenchError(f"votes file {path}: cannot read ({exc.strerror})") from None
    if not count:
        raise JudgebenchError(f"votes file {path}: no votes" + (f" on dimension {dimension}" if dropped else ""))
    frame = pd.DataFrame({**columns, **{SLICE + k: v for k, v in slices.items()}})
    frame["order"] = range(1, count + 1)
    return frame, dropped


def _add_slices(slices: dict[str, list[Any]], found: dict[str, str], count: int) -> None:
    """Append this vote's slice values (None where it has none) so every list has `count` items."""
    for key, value in found.items():
        slices.setdefault(key, [None] * (count - 1)).append(value)
    for values in slices.values():
        if len(values) < count:
            values.append(None)


def _plain(row: dict[str, Any], allowed=frozenset(_ALLOWED), labels=frozenset(LABELS),
           orders=frozenset((None, "AB", "BA"))) -> bool:
    """Whether the row is a valid single-choice Vote on its face (exact types, nothing to coerce).
    Written as plain loops: it runs once per vote."""
    get = row.get
    if not allowed.issuperset(row) or get("choice") not in labels or get("shown_order") not in orders:
        return False
    for key in ("pair_id", "annotator"):
        value = get(key)
        if type(value) is not str or not value:
            return False
    for key in _STRINGS:
        value = get(key)
        if value is not None and type(value) is not str:
            return False
    seconds = get("seconds")
    if seconds is not None and not (type(seconds) in (int, float) and 0 <= seconds < float("inf")):
        return False
    for key in STYLE_COLUMNS:
        value = get(key)
        if value is not None and not (type(value) is int and value >= 0):
            return False
    found = get("slices")
    if found is None:
        return True
    if type(found) is not dict:
        return False
    for key, value in found.items():
        if type(key) is not str or type(value) is not str:
            return False
    return True


def _validated(row: dict[str, Any], path: Path, number: int, dimension: str) -> dict[str, Any] | None:
    """The row through the Vote record (its error names the line); None when it has no vote on dimension."""
    try:
        vote = Vote.model_validate(row)
    except ValidationError as exc:
        raise JudgebenchError(f"votes file {path}:{number}: {describe_validation_error(exc, Vote)}") from None
    choice = vote.label_for(dimension)
    if choice is None:
        return None
    return {**vote.model_dump(), "choice": choice}
