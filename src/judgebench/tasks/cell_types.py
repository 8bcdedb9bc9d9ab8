"""A data cell is read as the type its file gives it, wherever it is in the file (the data rule, docs/guide/tasks.md).

`datasets` reads a JSON Lines file in 10 MB blocks and types every column from the first block: a later
cell of another type is cast (an int `response_a` at row 3,000 became the text "12345"), and a later block
that mixes types has that column rewritten as JSON text (`"Healthcare"` with its quotes) from there on,
silently, where the same cell in the first block keeps its own value (and an int response is an error).
`keep_cell_types` checks, in one cheap pyarrow pass over the mapped columns that start as text, that no
later cell has another type; when one has, the rows are read by this module instead, each cell as its
JSON value, so every check downstream (loading.py) sees it exactly as it would at row 1: the same
one-line error naming the file, the row and the column, exit 2.

CSV has no types: a task's text columns (id, question, responses, model names, slices, context) are read as
text (`csv_options`), so a response "42" is the text "42" in every row instead of a number when its whole
10,000-row block looks numeric, and an id "001" stays "001". An empty cell is still missing (an error naming the
row). In those text columns the strings pandas reads as missing (`NA`, `null`, `None`, `N/A`, ...) are text too: a
slice value `NA` (North America) had vanished, a model `None` had become no model, a response `N/A` had been
refused. In other mapped columns they stay missing, except in a label column where the task maps them: a task that
maps `NA` to a tie reads a tie there (it read a missing label, which `run --judge-unlabelled` then left unscored).
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from judgebench.core.files import open_regular, parse_json_object
from judgebench.tasks.registry import TaskSpec
from judgebench.tasks.stream_load import BATCH_ROWS, RowSource

JSON_SUFFIXES = {".jsonl", ".json"}
FIRST_BLOCK = 10 << 20  # datasets' JsonConfig.chunksize: a file this small is typed as one block (no check)
BLOCK = 1 << 20  # bytes per pyarrow block; doubled when one line is longer


def text_columns(spec: TaskSpec) -> list[str]:
    """The columns a task reads as text: the id, question, responses, model names, slices, context and a long
    votes layout's annotator (an id `001` had become the number 1, then the text "1": an outside attack)."""
    cols, votes = spec.columns, spec.votes
    named = (cols.id, cols.question, cols.response_a, cols.response_b, cols.model_a, cols.model_b, *cols.slices,
             *cols.context.values(), votes.annotator if votes else None)  # (annotators 007 and 7 had become one)
    return list(dict.fromkeys(c for c in named if c))


# pandas.read_csv's default missing-value strings (its documented `na_values` list)
CSV_MISSING = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A",
               "NA", "NULL", "NaN", "None", "n/a", "nan", "null")


def label_columns(spec: TaskSpec) -> list[str]:
    """The columns holding labels or votes (one label column, a dimension's, a `columns` layout's annotators'): read
    as the text written, which the task's labels map (an empty vote cell had made a column of numbers decimals, so
    a `2` read `2.0`, which no label maps: an attack)."""
    votes = spec.votes.annotator_columns.values() if spec.votes else ()
    named = (spec.columns.label, *(d.label_column for d in spec.dimensions), *votes)
    return list(dict.fromkeys(c for c in named if c))


def csv_options(spec: TaskSpec, mapped: Iterable[str]) -> dict[str, Any]:
    """`datasets.load_dataset("csv", ...)` keyword arguments reading the task's text and label columns as text and
    the `mapped` columns' missing-value strings as missing, but those the task maps as labels in its label columns."""
    labels = {spec.columns.label, *(d.label_column for d in spec.dimensions if d.label_column)} - {None}
    label_missing = [text for text in CSV_MISSING if text not in spec.labels]
    texts = set(text_columns(spec))
    return {"converters": {column: str for column in [*texts, *label_columns(spec)]}, "keep_default_na": False,
            "na_values": {column: [""] if column in texts else list(label_missing if column in labels else CSV_MISSING)
                          for column in dict.fromkeys(mapped)}}


def csv_variant(spec: TaskSpec) -> str:
    """What of the task changes the rows a CSV load gives (part of the example cache's key)."""
    kept = [text for text in CSV_MISSING if text in spec.labels]  # read as labels, not as missing
    return (",".join([*text_columns(spec), *label_columns(spec)]) + ";text-missing:empty"  # (NA, None: text since)
            + (f";labels:{','.join(kept)}" if kept else ""))


def keep_cell_types(path: Path, rows: RowSource, columns: list[str], mapped: Iterable[str]) -> RowSource:
    """`rows` (what `datasets` gave), or the file's rows with each cell as its JSON value when a mapped
    column that starts as text holds another type later in a local JSON Lines file."""
    if not _json_lines(path):
        return rows
    first = next(iter(rows.batches()), [])
    texts = [c for c in dict.fromkeys(mapped) if c in columns and isinstance(_first_value(first, c), str)]
    if not texts or _all_text(path, texts):
        return rows
    return RowSource(lambda: _read_rows(path, columns), rows.n_rows)


def _json_lines(path: Path) -> bool:
    """A local .jsonl/.json file of JSON Lines longer than one `datasets` block (a smaller file, or a JSON
    array, is typed as one block: nothing to check)."""
    if path.suffix.lower() not in JSON_SUFFIXES or not path.is_file() or path.stat().st_size <= FIRST_BLOCK:
        return False
    with open_regular(path, "rb") as handle:
        head = handle.read(4096).removeprefix(codecs.BOM_UTF8).lstrip()
    return not head.startswith(b"[")


def _first_value(rows: list[dict[str, Any]], column: str) -> Any:
    return next((row[column] for row in rows if row.get(column) is not None), None)


def _all_text(path: Path, columns: list[str]) -> bool:
    """True when every non-null cell of `columns` in the file is text (pyarrow, only these columns built)."""
    import pyarrow as pa
    import pyarrow.json as paj

    schema = pa.schema([(column, pa.string()) for column in columns])
    parse = paj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore")
    block = BLOCK
    while True:
        try:
            for _ in paj.open_json(path, read_options=paj.ReadOptions(block_size=block), parse_options=parse):
                pass
            return True
        except pa.ArrowInvalid as exc:
            if "straddl" not in str(exc) or block >= path.stat().st_size:
                return False  # a cell of another type (or anything pyarrow cannot say): read the rows here
            block *= 2


def _read_rows(path: Path, columns: list[str]) -> Iterator[list[dict[str, Any]]]:
    """The file's rows (non-blank lines), a batch at a time, with `columns` as `datasets` names them."""
    batch: list[dict[str, Any]] = []
    with open_regular(path, "rb") as handle:
        for number, line in enumerate(handle):
            if number == 0:
                line = line.removeprefix(codecs.BOM_UTF8)
            if not line.strip():
                continue
            row = parse_json_object(line.decode("utf-8"), f"{path}:{number + 1}")  # one line naming it, if ever
            batch.append({column: row.get(column) for column in columns})
            if len(batch) == BATCH_ROWS:
                yield batch
                batch = []
    if batch:
        yield batch
