"""Read a votes file straight into arena's vote table, in one streaming pass.

The Vote record (votes.py) stays the definition of a valid vote: a line whose fields are plainly of
the right types is taken as it is (no object built: millions of votes fit in memory), and any other
line goes through `Vote.model_validate`, which either accepts it (e.g. a multi-dimension `choices`
vote) or gives the one-line error naming the file and line. CSV files go through votes.read_votes.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pydantic import ValidationError

from judgebench.core.errors import JudgebenchError
from judgebench.core.files import (
    MAX_JSON_NESTING,
    describe_validation_error,
    first_too_deep,
    open_regular,
    parse_json_object,
    too_deep,
    why_not_a_file,
)
from judgebench.core.records import LABELS
from judgebench.human.arena.battles import SLICE, STYLE_COLUMNS, votes_frame
from judgebench.tasks.votes import COUNT_MAX, PAIR_HASH, Vote, read_votes

_STRINGS = ("model_a", "model_b", "timestamp", "comment", "pair_sha256")
_HASH = re.compile(PAIR_HASH.strip("^$")).fullmatch  # (Python's `$` would let a line feed end it)
_ALLOWED = {"pair_id", "annotator", "choice", "shown_order", "seconds", "slices", *_STRINGS, *STYLE_COLUMNS}
_COLUMNS = ("pair_id", "annotator", "choice", "model_a", "model_b", "shown_order", "timestamp", "seconds",
            "pair_sha256", *STYLE_COLUMNS)


def read_vote_table(path: Path, source: str, dimension: str) -> tuple[pd.DataFrame, Counter]:
    """The raw vote table of a votes file (the same table battles.votes_frame builds)."""
    if path.suffix.lower() == ".csv":
        return votes_frame(read_votes(path), source, dimension)
    if not path.is_file():
        raise JudgebenchError(f"votes file {path}: {why_not_a_file(path)}")
    fast = _read_columnar(path)
    if fast is not None:  # every line a plain vote: the same columns, read by Arrow in C
        columns, count = fast
        frame = pd.concat(list(columns.values()), axis=1, keys=list(columns))  # pd.DataFrame(columns) without
        # joining the all-None columns into one 2-D block (a copy of them all: 0.3-0.4 s at 2,000,000 votes)
        frame["order"] = range(1, count + 1)
        _release_arrow_memory()
        return frame, Counter()
    columns: dict[str, list[Any]] = {c: [] for c in _COLUMNS}
    slices: dict[str, list[Any]] = {}
    dropped: Counter = Counter()
    appenders = [(columns[c].append, c) for c in _COLUMNS]
    count = 0
    try:
        with open_regular(path, "rb") as handle:  # lines end at a line feed only (a CR is JSON whitespace), as
            for number, raw in enumerate(handle, start=1):  # Arrow's read and votes.read_votes split them
                line = raw.decode("utf-8")
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


def _release_arrow_memory() -> None:
    """Hand the memory Arrow's allocator keeps after parsing back to the system (over 100 MB at 2,000,000
    votes, otherwise held while the rest of arena runs)."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")  # an escaped UTF-16 surrogate: json and Arrow may differ


def _read_columnar(path: Path) -> tuple[dict[str, Any], int] | None:
    """The columns of the table the line-by-line reader below would build, read by pyarrow's JSON reader and
    handed to pandas as Arrow columns (no Python object per value: issue 30), when every
    line is a plain vote (`_plain`: exact types, no slices, both model names); None otherwise, and the file is
    then read line by line (which gives each error, or validates the other lines, as before). Anything Arrow
    refuses (a repeated key, malformed JSON, not UTF-8, a line that is not an object) is left to that reader."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.json as pj
    except ImportError:
        return None
    try:
        with open_regular(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None  # the line-by-line reader words the error
    newlines, long_lines = _line_facts(data)
    if _nested_too_deep(data, long_lines):  # Arrow's reader would crash on it: the line-by-line reader says where
        return None
    if data.startswith(b"\xef\xbb\xbf") or (b"\\" in data and _SURROGATE.search(data)):  # (memchr first: 0.02 s
        # against the pattern's 0.15 s at 2,000,000 votes, and most files hold no backslash)
        return None
    try:
        texts = pa.schema([(c, pa.string()) for c in ("pair_id", "annotator", "choice", "shown_order", *_STRINGS)])
        table = pj.read_json(pa.BufferReader(data), read_options=pj.ReadOptions(block_size=1 << 24),  # strings
                             parse_options=pj.ParseOptions(explicit_schema=texts))  # stay strings (no dates)
        table.validate(full=True)  # Arrow's JSON reader takes bytes that are not UTF-8 into its strings as they are
    except (pa.ArrowException, ValueError):
        return None
    lines = newlines + (not data.endswith(b"\n"))
    one_per_line = table.num_rows == lines or table.num_rows == _content_lines(data)  # (blank lines)
    del data
    if not one_per_line:  # two objects on a line, or one over several lines: the line-by-line reader words them
        return None
    count = table.num_rows
    if not count or not set(table.column_names) <= _ALLOWED:
        return None
    slices = _every_slice(table, pa) if "slices" in table.column_names else {}
    if slices is None:
        return None

    def kind(name: str) -> pa.DataType | None:
        return table.schema.field(name).type if name in table.column_names else None

    def strings(name: str, *, required: bool) -> bool:  # str values; required: no null, no empty string
        found = kind(name)
        if found is None or pa.types.is_null(found):
            return not required
        if not pa.types.is_string(found) and not pa.types.is_large_string(found):
            return False
        return not required or (table[name].null_count == 0 and pc.min(pc.binary_length(table[name])).as_py() != 0)
        # (an empty string is one of no bytes: its length from the offsets, where pc.equal's first call costs 0.15 s)

    def unblank(name: str) -> bool:  # no value of whitespace only (Arrow's utf8_is_space is Python's str.isspace)
        found = kind(name)
        return found is None or pa.types.is_null(found) or not pc.any(pc.utf8_is_space(table[name])).as_py()

    def hashes(name: str) -> bool:  # non-null values are sha256 hex digests (votes.Vote's pattern)
        found = kind(name)
        if found is None or pa.types.is_null(found):
            return True
        column = table[name].drop_null()
        return not len(column) or bool(pc.all(pc.match_substring_regex(column, PAIR_HASH)).as_py())

    def within(name: str, allowed: list[str]) -> bool:  # non-null values among `allowed`
        column = table[name].drop_null()
        return bool(pc.all(pc.is_in(column, value_set=pa.array(allowed))).as_py()) if len(column) else True

    def numbers(name: str, integer: bool) -> bool:  # non-negative (finite) ints, or floats too
        found = kind(name)
        if found is None or pa.types.is_null(found):
            return True
        if not (pa.types.is_int64(found) or (not integer and pa.types.is_float64(found))):
            return False
        column = table[name].drop_null()
        if not len(column):
            return True
        if pa.types.is_float64(found) and not pc.all(pc.is_finite(column)).as_py():
            return False
        return bool(pc.min(column).as_py() >= 0)

    plain = (
        all(strings(c, required=True) for c in ("pair_id", "annotator", "choice", "model_a", "model_b"))
        and all(unblank(c) for c in ("pair_id", "annotator", "model_a", "model_b"))
        and all(strings(c, required=False) for c in ("timestamp", "comment", "shown_order", "pair_sha256"))
        and hashes("pair_sha256")  # (else the row-by-row read names the line, as for any other bad value)
        and within("choice", list(LABELS))
        and ("shown_order" not in table.column_names or pa.types.is_null(kind("shown_order"))
             or within("shown_order", ["AB", "BA"]))
        and numbers("seconds", integer=False)
        and all(numbers(c, integer=True) for c in STYLE_COLUMNS)
    )
    if not plain:
        return None
    nones = _nones(count)  # one column for every absent one (shared: pandas copies it before a change)
    columns = {c: _column(table[c], nones) if c in table.column_names else nones for c in _COLUMNS}
    return {**columns, **{SLICE + k: _column(v, nones) for k, v in slices.items()}}, count


def _line_facts(data: bytes, block: int = 1 << 22) -> tuple[int, list[tuple[int, int]] | None]:
    """The line feeds in `data` and the (start, end) of each line longer than MAX_JSON_NESTING bytes (None when there
    are more than LONG_LINES_LISTED), found by numpy a block at a time (bytes.count alone: 0.1 s at 2,000,000 votes;
    this 0.04-0.06 s)."""
    view = np.frombuffer(data, dtype=np.uint8)
    count, previous, long_lines = 0, -1, []  # previous: the last line feed before the block
    for i in range(0, len(view), block):
        feeds = np.flatnonzero(view[i:i + block] == 10) + i
        count += len(feeds)
        ends = np.append(feeds, len(view)) if i + block >= len(view) else feeds
        starts = np.concatenate(([previous + 1], ends[:-1] + 1))
        longer = np.flatnonzero(ends - starts > MAX_JSON_NESTING)
        if long_lines is not None and len(longer):
            long_lines = None if len(long_lines) + len(longer) > LONG_LINES_LISTED else \
                long_lines + list(zip(starts[longer].tolist(), ends[longer].tolist()))
        previous = int(feeds[-1]) if len(feeds) else previous
    return count, long_lines


LONG_LINES_LISTED = 1000


def _nested_too_deep(data: bytes, long_lines: list[tuple[int, int]] | None) -> bool:
    """Whether a line holds more than MAX_JSON_NESTING brackets open (only a line that long can)."""
    if long_lines is None:
        return first_too_deep(data) is not None
    return any(too_deep(data[start:end])[0] is not None for start, end in long_lines)


_BLANK_LINE = re.compile(rb"^[ \t\r]*(?:\n|\Z)", re.MULTILINE)  # JSON whitespace only (Arrow skips such lines)


def _content_lines(data: bytes) -> int:
    """The lines that are not blank (a scan of every line, 1.5 s at 2,000,000: only when the rows and the line
    count disagree)."""
    return data.count(b"\n") + 1 - len(_BLANK_LINE.findall(data))


def _column(values: Any, nones: pd.Series) -> pd.Series:
    """An Arrow column as the pandas column its Python list would give: strings as pandas' str dtype (NaN for
    null), ints as int64 (float64 with NaN when one is null), floats as float64, an all-null column as None
    objects (`nones`). Tested equal to the lists (tests/human/test_arena_reading.py)."""
    import pyarrow as pa  # imported by _read_columnar already

    if pa.types.is_null(values.type) or values.null_count == len(values):
        return nones
    return values.to_pandas()


def _nones(count: int) -> pd.Series:
    """A column of `count` Nones (object dtype, given: inferring it looks at every value); the absent columns share
    it (each was 16 MB faulted in afresh at 2,000,000 votes: issue 30)."""
    return pd.Series(np.full(count, None, dtype=object), dtype=object, copy=False)


def _every_slice(table: Any, pa: Any) -> dict[str, Any] | None:
    """The slice columns when every vote has every slice, each a string (then a missing key and a null value,
    which Arrow does not tell apart, cannot occur); None otherwise (read line by line)."""
    column = table["slices"]
    kind = column.type
    if not pa.types.is_struct(kind) or column.null_count:
        return None
    found: dict[str, Any] = {}
    for i in range(kind.num_fields):
        field = kind.field(i)
        if not pa.types.is_string(field.type):
            return None
        values = pa.chunked_array([chunk.field(i) for chunk in column.chunks], type=field.type)
        if values.null_count:
            return None
        found[field.name] = values
    return found


def _add_slices(slices: dict[str, list[Any]], found: dict[str, str], count: int) -> None:
    """Append this vote's slice values (None where it has none) so every list has `count` items."""
    for key, value in found.items():
        slices.setdefault(key, [None] * (count - 1)).append(value)
    for values in slices.values():
        if len(values) < count:
            values.append(None)


_LARGEST_FLOAT_INT = int(np.finfo(np.float64).max)  # an int above it does not convert to a finite float


def _plain(row: dict[str, Any], allowed=frozenset(_ALLOWED), labels=frozenset(LABELS),
           orders=frozenset((None, "AB", "BA"))) -> bool:
    """Whether the row is a valid single-choice Vote on its face (exact types, nothing to coerce).
    Written as plain loops: it runs once per vote."""
    get = row.get
    choice, shown = get("choice"), get("shown_order")
    if type(choice) is not str or type(shown) not in (str, type(None)):  # a dict or list is no label: the Vote
        return False  # record words its error (they are unhashable: `in labels` raised TypeError)
    if not allowed.issuperset(row) or choice not in labels or shown not in orders:
        return False
    for key in ("pair_id", "annotator"):
        value = get(key)
        if type(value) is not str or not value or value.isspace():
            return False
    for key in _STRINGS:
        value = get(key)
        if value is not None and type(value) is not str:
            return False
    if any(type(get(key)) is str and get(key).isspace() for key in ("model_a", "model_b")):
        return False  # a blank name: the Vote record words the error
    digest = get("pair_sha256")
    if digest is not None and not _HASH(digest):
        return False  # not a sha256 digest: the Vote record words the error
    seconds = get("seconds")
    if seconds is not None and not (type(seconds) in (int, float) and 0 <= seconds < float("inf")
                                    and (type(seconds) is float or seconds <= _LARGEST_FLOAT_INT)):
        return False  # (an int past the largest float is not a finite number: the Vote record refuses it)
    for key in STYLE_COLUMNS:
        value = get(key)
        if value is not None and not (type(value) is int and 0 <= value <= COUNT_MAX):
            return False
    found = get("slices")
    if found is None:
        return "slices" not in row  # "slices": null is no mapping: the Vote record refuses it
    if type(found) is not dict:
        return False
    for key, value in found.items():
        if type(key) is not str or type(value) is not str:
            return False
    return True


def _validated(row: dict[str, Any], path: Path, number: int, dimension: str) -> dict[str, Any] | None:
    """The row through the Vote record (its error names the line); None when it has no vote on dimension."""
    try:
        vote = Vote.model_validate(row, strict=True)  # a JSON value of its own type, as votes.read_votes reads them
    except ValidationError as exc:
        raise JudgebenchError(f"votes file {path}:{number}: {describe_validation_error(exc, Vote)}") from None
    choice = vote.label_for(dimension)
    if choice is None:
        return None
    return {**vote.model_dump(), "choice": choice}
