"""A wide-layout task's examples in bounded memory: every row validated first, examples built chunk by chunk.

    source = RowSource(...)                    # rows, a batch at a time, in the data's order
    scanned = scan_wide(build, source, limit=...)   # every row checked; count, fingerprint, empties
    examples = LazyExamples(build, source, 0, scanned.count)   # len, slices (shards), chunks(size)

`scan_wide` reads every row once, in order, and raises the same one-line errors as the eager loader
(loading._rows_to_examples), at the same row, before anything is judged: a bad row 900,000 is still an
error naming that row before the first call. On the way it counts the examples, notes empty responses
and computes the fingerprint (loading.fingerprint_examples: sha256 over the canonical examples sorted by
id) without holding the examples: each kept example's canonical JSON goes to a temporary file and is
read back in id order. `LazyExamples` then rebuilds PairExamples from the rows only for the chunk being
judged (streaming.py asks for `chunks(size)`), so at most one chunk of examples and one batch of rows are
alive at a time.

Rows from `datasets` are read from its Arrow cache files with a stream reader (plain reads, a batch at a
time) rather than through the memory-mapped table, whose touched pages would stay resident: the rows are
exactly `Dataset.to_list()`'s (the same pyarrow conversion, the same JSON-field decoding).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from array import array
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, overload

from pydantic import TypeAdapter

from judgebench.core.errors import JudgebenchError
from judgebench.core.records import PairExample

BATCH_ROWS = 2_000  # rows converted to Python at a time

Rows = list[dict[str, Any]]


class RowSource:
    """Rows in the data's order, a batch at a time; `batches()` can be called again (a new pass)."""

    def __init__(self, open_batches: Callable[[], Iterator[Rows]], n_rows: int):
        self._open = open_batches
        self.n_rows = n_rows

    def batches(self) -> Iterator[Rows]:
        return self._open()

    @classmethod
    def from_rows(cls, rows: Rows) -> RowSource:
        """Rows already in memory (the bundled demo splits)."""
        return cls(lambda: (rows[i : i + BATCH_ROWS] for i in range(0, len(rows), BATCH_ROWS)), len(rows))

    @classmethod
    def from_dataset(cls, dataset: Any) -> RowSource:
        """A `datasets.Dataset`'s rows as `to_list()` gives them, read batch by batch."""
        paths: list[list[str]] = []
        try:  # recent datasets decode their Json feature in to_list(); older ones have no such feature
            from datasets.utils.json import (
                get_json_field_paths_from_feature,
                json_decode_field,
            )
        except ImportError:
            pass
        else:
            paths = [list(p) for p in get_json_field_paths_from_feature(dataset.features)]

        def decoded(rows: Rows) -> Rows:  # what Dataset.to_list does after to_pylist
            for col, *sub in paths:
                for row in rows:
                    row[col] = json_decode_field(row[col], sub)
            return rows

        files = _stream_files(dataset)
        if files is not None:
            return cls(lambda: (decoded(b.to_pylist()) for f in files for b in _read_stream(f)), len(dataset))
        table = dataset.flatten_indices().data.table if dataset._indices is not None else dataset.data.table
        return cls(lambda: (decoded(b.to_pylist()) for b in table.to_batches(max_chunksize=BATCH_ROWS)), len(dataset))


def _stream_files(dataset: Any) -> list[str] | None:
    """The Arrow stream files holding exactly the dataset's table, in order (None when it is anything else:
    in memory, transformed, indexed)."""
    from datasets.table import ConcatenationTable, MemoryMappedTable

    data = dataset.data
    if dataset._indices is not None:
        return None
    if isinstance(data, MemoryMappedTable):
        blocks = [data]
    elif isinstance(data, ConcatenationTable) and all(len(row) == 1 for row in data.blocks):
        blocks = [row[0] for row in data.blocks]
    else:
        return None
    if not all(isinstance(b, MemoryMappedTable) and all(op[0] in _HARMLESS for op in b.replays) for b in blocks):
        return None
    files = [b.path for b in blocks]
    return files if all(_schema(f) == b.table.schema.remove_metadata() for f, b in zip(files, blocks)) else None


_HARMLESS = {"replace_schema_metadata"}  # replayed table operations that leave every value as read


def _schema(name: str) -> Any:
    import pyarrow as pa

    with pa.OSFile(name) as handle, pa.ipc.open_stream(handle) as reader:
        return reader.schema.remove_metadata()


def _read_stream(name: str) -> Iterator[Any]:
    """Record batches of one Arrow stream file, split to at most BATCH_ROWS rows, read (not mapped)."""
    import pyarrow as pa

    with pa.OSFile(name) as handle, pa.ipc.open_stream(handle) as reader:
        for batch in reader:
            for start in range(0, batch.num_rows, BATCH_ROWS):
                yield batch.slice(start, BATCH_ROWS)


@dataclass
class Scanned:
    count: int  # examples kept (after --limit)
    fingerprint: str
    empty: int  # kept examples with an empty response
    first_empty: str | None  # the first one's id
    labelled: bytearray = field(default_factory=bytearray)  # per kept example: 1 when it has labels

    @property
    def unlabelled(self) -> int:
        """Kept examples without labels (loading.load_examples(unlabelled=True))."""
        return self.labelled.count(0)


# (row, 0-based index, ids seen so far or None when the rows were checked already) -> the row's example
Build = Callable[[dict[str, Any], int, "set[str] | None"], PairExample]


def scan_wide(build: Build, source: RowSource, *, limit: int | None = None) -> Scanned:
    """Check every row in order (`build` raises the eager loader's errors, at the same row); count,
    fingerprint and empty responses over the first `limit` examples."""
    keep = source.n_rows if limit is None else min(limit, source.n_rows)
    seen: set[str] = set()
    ids: list[str] = []
    offsets, sizes = array("q"), array("q")
    empty, first_empty = 0, None
    labelled = bytearray()
    with tempfile.TemporaryFile() as spill, _spill_errors():
        index, position = 0, 0
        for rows in source.batches():
            out = []
            for row in rows:
                example = build(row, index, seen)
                if index < keep:
                    data = canonical(example)
                    out.append(data)
                    ids.append(example.id)
                    offsets.append(position)
                    sizes.append(len(data))
                    position += len(data)
                    if not example.response_a.strip() or not example.response_b.strip():
                        empty, first_empty = empty + 1, first_empty or example.id
                    labelled.append(bool(example.labels))
                index += 1
            spill.write(b"".join(out))
        spill.flush()
        digest = hashlib.sha256()
        fd = spill.fileno()
        for i in sorted(range(len(ids)), key=ids.__getitem__):  # ids are unique: the order is the eager one's
            digest.update(os.pread(fd, sizes[i], offsets[i]))
            digest.update(b"\n")
    return Scanned(len(ids), digest.hexdigest(), empty, first_empty, labelled)


@contextmanager
def _spill_errors() -> Iterator[None]:
    """A failed write of the examples' spill file (the temp folder full, a file size limit) as one line naming where
    (it was `OSError: File too large`, naming nothing)."""
    try:
        yield
    except OSError as exc:
        raise JudgebenchError(f"cannot write the examples' scratch file in {tempfile.gettempdir()} "
                              f"({exc.strerror or exc}); free space there or set TMPDIR to another folder") from None


def canonical(example: PairExample) -> bytes:
    """One example's bytes in the fingerprint (loading.fingerprint_examples); no votes: as before votes existed.
    `model_dump_json(...).encode()`'s bytes, serialised straight to bytes (no decode and encode again)."""
    return _EXAMPLE_JSON.dump_json(example, exclude=None if example.votes else _NO_VOTES)


_EXAMPLE_JSON = TypeAdapter(PairExample)
_NO_VOTES = {"votes"}


class LazyExamples(Sequence[PairExample]):
    """Examples [lo, hi) of a wide-layout source, built from the rows only when asked for, chunk by chunk.

    Already validated by `scan_wide`; slicing (shards, --limit) gives another lazy view; `chunks(size)`
    reads the rows once and yields lists of at most `size` PairExamples. `only`: the sorted row indices kept
    within [lo, hi) (`pick_examples`), else every one.
    """

    def __init__(self, build: Build, source: RowSource, lo: int, hi: int, only: array | None = None):
        self._build, self._source = build, source
        self._lo, self._hi = lo, max(lo, hi)
        self._only = only

    def __len__(self) -> int:
        return self._hi - self._lo if self._only is None else len(self._only)

    @overload
    def __getitem__(self, key: int) -> PairExample: ...
    @overload
    def __getitem__(self, key: slice) -> LazyExamples: ...
    def __getitem__(self, key: int | slice) -> PairExample | LazyExamples:
        if isinstance(key, slice):
            start, stop, step = key.indices(len(self))
            if step != 1:
                raise ValueError("LazyExamples: only contiguous slices")
            if self._only is not None:
                kept = self._only[start:stop]
                return LazyExamples(self._build, self._source, kept[0] if kept else 0, kept[-1] + 1 if kept else 0, kept)
            return LazyExamples(self._build, self._source, self._lo + start, self._lo + max(start, stop))
        index = key + len(self) if key < 0 else key
        if not 0 <= index < len(self):
            raise IndexError(key)
        return next(self[index : index + 1].chunks(1))[0]

    def pick(self, indices: Sequence[int]) -> LazyExamples:
        """The examples at `indices` (ascending, of this view) as a lazy view."""
        rows = array("q", (self._lo + i if self._only is None else self._only[i] for i in indices))  # rows' own
        return LazyExamples(self._build, self._source, rows[0] if rows else 0, rows[-1] + 1 if rows else 0, rows)

    def __iter__(self) -> Iterator[PairExample]:
        for part in self.chunks(BATCH_ROWS):
            yield from part

    def chunks(self, size: int) -> Iterator[list[PairExample]]:
        """The examples in order, `size` at a time: one pass over the rows."""
        if size < 1:
            raise JudgebenchError(f"chunk size must be >= 1, got {size}")
        part: list[PairExample] = []
        index = 0
        kept = None if self._only is None else bytearray(self._hi - self._lo)
        for i in self._only or ():
            kept[i - self._lo] = 1  # type: ignore[index]
        for rows in self._source.batches():
            if index + len(rows) <= self._lo:
                index += len(rows)
                continue
            for row in rows:
                if self._lo <= index < self._hi and (kept is None or kept[index - self._lo]):
                    part.append(self._build(row, index, None))
                    if len(part) == size:
                        yield part
                        part = []
                index += 1
            if index >= self._hi:
                break
        if part:
            yield part


def pick_examples(examples: Sequence[PairExample], indices: Sequence[int]) -> Sequence[PairExample]:
    """The examples at `indices` (ascending), in order: a lazy view of a LazyExamples, a list otherwise."""
    if isinstance(examples, LazyExamples):
        return examples.pick(indices)
    return [examples[i] for i in indices]


def chunked(examples: Sequence[PairExample], size: int) -> Iterator[list[PairExample]]:
    """Lists of at most `size` examples in order: lazily built for LazyExamples, slices of a list otherwise."""
    if isinstance(examples, LazyExamples):
        yield from examples.chunks(size)
        return
    for start in range(0, len(examples), size):
        yield list(examples[start : start + size])
