"""`judgebench view RUN ... --output-dir DIR`: the viewer as a static, self-contained folder (no CDN, no
server): index.html, viewer.js and viewer.css, and data/*.js files each at most `chunk_bytes` (an example
larger than that alone gets a chunk of its own). Every data file is one `JBV.load(name, JSON)` call, so the
page works when opened from disk (file://), where a page cannot fetch JSON."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from judgebench.core.files import current_umask, write_atomic
from judgebench.publish.viewer.data import View, example_detail, index_row
from judgebench.publish.viewer.page import asset, dumps, page_html

CHUNK_BYTES = 2_000_000  # a data file's size cap (bytes)
SWAP_ATTEMPTS = 20  # renames of data/ tried while other bundles written at once replace it too


_dumps = dumps


def chunked(items: Iterable[tuple[int, str]], cap: int) -> Iterator[tuple[int, list[str]]]:
    """(first item number, encoded items) groups whose joined size stays under `cap` bytes (an item bigger
    than the cap alone)."""
    group: list[str] = []
    first, size = 0, 0
    for number, text in items:
        if group and size + len(text) + 1 > cap:
            yield first, group
            group, size = [], 0
        if not group:
            first = number
        group.append(text)
        size += len(text) + 1
    if group:
        yield first, group


def _data_file(folder: Path, name: str, parts: list[str]) -> None:
    (folder / f"{name}.js").write_text(f'JBV.load("{name}",[' + ",".join(parts) + "]);\n", encoding="ascii")


def write_bundle(view: View, out: Path, *, chunk_bytes: int = CHUNK_BYTES) -> dict[str, int]:
    """Write the bundle; returns how many index and example chunks it has. The data files are written into a
    new folder that then takes `data/`'s place: a bundle stopped half-way (a full disk, Ctrl-C) leaves the
    earlier bundle whole (it was deleted first, then rewritten file by file)."""
    out.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(dir=out, prefix=".data."))
    try:
        fresh.chmod(0o777 & ~current_umask())  # (mkdtemp makes 0700: a served bundle's folder follows the umask)
        counts = _write_data(view, fresh, chunk_bytes)
        _swap_in(fresh, out / "data")
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    for name in ("viewer.js", "viewer.css"):
        write_atomic(out / name, asset(name))
    write_atomic(out / "index.html", page_html("files"))
    return counts


def _swap_in(fresh: Path, data: Path) -> None:
    """`fresh` renamed to `data`; whatever stood at `data` (an earlier bundle's folder, a link) moved aside first
    and removed after. Another bundle written into the same folder at once may put its own `data` there between
    the two renames: it is moved aside in turn (an attack: four writers at once failed one with a traceback and
    left `.data-old.*` folders behind)."""
    aside = Path(tempfile.mkdtemp(dir=data.parent, prefix=".data-old."))
    try:
        for attempt in range(SWAP_ATTEMPTS):
            with contextlib.suppress(FileNotFoundError):  # (nothing there, or another writer moved it first)
                os.rename(data, aside / f"data-{attempt}")
            try:
                fresh.rename(data)
                return
            except OSError as exc:
                if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR):
                    raise
        raise OSError(errno.EBUSY, f"other bundles kept replacing it ({SWAP_ATTEMPTS} tries)", str(data))
    finally:
        shutil.rmtree(aside, ignore_errors=True)


def _write_data(view: View, data: Path, chunk_bytes: int) -> dict[str, int]:
    """The data files (index and example chunks, meta.js) in the folder `data`; how many chunks of each."""
    room = chunk_bytes - 64  # the JBV.load wrapper
    index_chunks = 0
    for k, (_, parts) in enumerate(chunked(((r["n"], _dumps(index_row(r))) for r in view.rows), room)):
        _data_file(data, f"index-{k}", parts)
        index_chunks = k + 1
    starts = []
    details = ((n, _dumps(example_detail(view, n))) for n in range(len(view.rows)))
    for k, (first, parts) in enumerate(chunked(details, room)):
        _data_file(data, f"ex-{k}", parts)
        starts.append(first)
    meta = {**view.meta(), "slice_columns": view.slice_columns, "index_chunks": index_chunks, "ex_chunks": starts}
    (data / "meta.js").write_text(f'JBV.load("meta",{_dumps(meta)});\n', encoding="ascii")
    return {"index_chunks": index_chunks, "example_chunks": len(starts)}
