"""Atomic file writes and JSONL reading/writing shared by every output."""

from __future__ import annotations

import difflib
import errno
import json
import math
import os
import re
import stat
import tempfile
import typing
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from judgebench.core.bulk import gc_paused
from judgebench.core.errors import JudgebenchError, one_line

M = TypeVar("M", bound=BaseModel)
KEY_SHOWN_MAX = 80  # characters of a key shown in an error (a crafted key may be a megabyte long)


@contextmanager
def atomic_path(path: Path, suffix: str = ".tmp") -> Iterator[Path]:
    """A temporary file beside `path` (with the user's umask) to write; renamed onto `path` on success.
    A failure to write (a full disk, a read-only file system) is an OSError naming `path`, not the temp file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
        os.fchmod(fd, 0o666 & ~current_umask())  # mkstemp makes 0600; outputs follow the user's umask
        os.close(fd)
        yield Path(tmp)
        os.replace(tmp, path)
    except OSError as exc:
        ours = exc.filename is None or exc.filename in (tmp, str(tmp)) or \
            Path(str(exc.filename)).name.startswith(f".{path.name}.")  # (mkstemp's, before it returned a name)
        if not ours:
            raise  # names a file of its own (e.g. one the caller read meanwhile)
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


def write_atomic(path: Path, text: str) -> None:
    """Write text to path via a temp file in the same folder, fsync and an atomic rename."""
    with atomic_path(path) as tmp, tmp.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())


def current_umask() -> int:
    """The process umask (read by setting and restoring it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def is_inside(path: Path, root: Path) -> bool:
    """Whether path resolves (symlinks followed) to root or somewhere under it."""
    return path.resolve().is_relative_to(root.resolve())


def check_output_dir(path: Path, flag: str = "--output-path") -> None:
    """The output folder `path` (given by `flag`) can be created and written, else one line naming the flag:
    checked before any work (a run's first paid call, a report's fits). Leaves no folder it made behind."""
    if path.exists() and not path.is_dir():
        raise JudgebenchError(f"{flag} {path}: exists and is not a directory")
    made: list[Path] = []
    try:
        made = make_folders(path)
        probe = path / f".judgebench-write-check-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise JudgebenchError(f"{flag} {path}: cannot write there ({exc.strerror or exc})") from None
    finally:
        remove_empty(made)  # leave nothing behind: the command creates them again when it writes


def make_folders(path: Path) -> list[Path]:
    """`path.mkdir(parents=True, exist_ok=True)`, one component at a time; the folders this call made, outermost
    first. Told by what was made, not by the path's text: with `..` in it (`new/../out`) the text's "missing"
    folders included an existing one, which was then removed (another run's folder, while it wrote there)."""
    made: list[Path] = []
    current = Path(path.anchor) if path.is_absolute() else Path()
    try:
        for part in path.parts[1:] if path.is_absolute() else path.parts:
            current = current / part
            try:
                current.mkdir()
            except FileExistsError:
                if not current.is_dir():
                    raise
                continue
            made.append(current)
    except OSError:
        remove_empty(made)  # (a failure part way left the folders made before it: `new/../a-file` left `new`)
        raise
    return made


def remove_empty(made: list[Path]) -> None:
    """Remove the folders `make_folders` made, innermost first, while they are empty."""
    for folder in reversed(made):
        try:
            folder.rmdir()
        except OSError:  # (not empty: written meanwhile)
            return


def write_json(path: Path, data: Any) -> None:
    """`data` as indented JSON (`json_text`), atomically."""
    write_atomic(path, json_text(data, indent=2, ensure_ascii=False, default=str) + "\n")


def json_text(data: Any, **options: Any) -> str:
    """`json.dumps(data, **options)` for an output file, with a figure that is not a finite number (NaN, an infinity:
    undefined) written as null, the outputs' mark of an undefined figure: JSON has no such numbers, and a strict
    reader refused a file that held `NaN`."""
    try:
        return json.dumps(data, allow_nan=False, **options)
    except ValueError:  # (a non-finite number somewhere: rare, so only then is the data walked)
        return json.dumps(finite_or_null(data), allow_nan=False, **options)


def finite_or_null(value: Any) -> Any:
    """`value` with every non-finite float in its dicts, lists and tuples replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite_or_null(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_or_null(item) for item in value]
    return value


def write_models_jsonl(path: Path, models: Iterable[BaseModel]) -> None:
    write_atomic(path, "".join(m.model_dump_json() + "\n" for m in models))


class NotRegularFile(OSError):
    """A path to read is a FIFO, device, socket or folder: reading it would block, never end or fail later."""


def why_not_a_file(path: Path) -> str:
    """Why a path that is not a regular file cannot be read as one: "no such file" or "not a regular file"."""
    return "not a regular file" if path.exists() else "no such file"


def open_regular(path: str | os.PathLike[str], mode: str = "r", **options: Any) -> IO[Any]:
    """`open(path, mode)` for reading, refusing anything but a regular file (`NotRegularFile`, an OSError
    whose strerror is "not a regular file"). Opened without blocking first, so a FIFO never hangs the
    command, and checked on the opened file, so no other file can be swapped in between."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(errno.EINVAL, "not a regular file", str(path))
        os.set_blocking(fd, True)
        return open(fd, mode, **options)  # noqa: SIM115 - the caller closes it
    except BaseException:
        os.close(fd)
        raise


def regular_text(path: str | os.PathLike[str], encoding: str = "utf-8") -> str:
    """`Path.read_text` of a regular file only (`open_regular`); OSError and UnicodeDecodeError as it raises them."""
    with open_regular(path, encoding=encoding) as handle:
        return handle.read()


def regular_bytes(path: str | os.PathLike[str]) -> bytes:
    """`Path.read_bytes` of a regular file only (`open_regular`)."""
    with open_regular(path, "rb") as handle:
        return handle.read()


def read_text(path: Path, label: str = "", newline: str | None = None) -> str:
    """A UTF-8 text file's contents; unreadable, not a regular file or non-UTF-8 is one error naming
    `label` and the file. `newline` as for `open` ("" keeps line ends as they are, for `jsonl_lines`)."""
    try:
        with open_regular(path, encoding="utf-8", newline=newline) as handle:
            return handle.read()
    except OSError as exc:
        raise JudgebenchError(f"{label}{path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise JudgebenchError(f"{label}{path}: not UTF-8 text (byte {exc.start})") from None


def read_models_jsonl(
    path: Path, model: type[M], hold: Callable[[M], Any] | None = None, fast: Callable[[bytes], Any] | None = None,
) -> list[M]:
    """Read a JSONL of pydantic models (a file of ours: each value of its own JSON type, strict validation, so
    `"3"` for an int or `1` for a bool is refused, not coerced); a bad line is an error naming file, line and field.

    `hold`: what each validated row is kept as instead (e.g. `lean_records.LeanRecord.of`, to hold a large
    file in less memory); read line by line. `fast` (with `hold`): a decoder of a line's bytes straight to
    what `hold` would give, raising ValueError for any line it does not take; such a line is validated by
    the model as without it (`lean_records.LeanRecord.of_canonical_line`).
    """
    if hold is not None:
        return _read_held(path, model, hold, fast)
    rows: list[M] = []
    lines = jsonl_lines(read_text(path, newline=""))
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rows.append(model.model_validate_json(line, strict=True))
        except ValidationError as exc:
            raise JudgebenchError(f"{path}:{number}: {describe_validation_error(exc)}") from None
    return rows


def _read_held(path: Path, model: type[M], hold: Callable[[M], Any], fast: Callable[[bytes], Any] | None) -> list[Any]:
    rows: list[Any] = []
    validate = model.__pydantic_validator__.validate_json  # what model_validate_json calls, without its wrapper
    try:
        with open_regular(path, "rb") as handle, gc_paused():
            for number, line in enumerate(handle, start=1):
                if fast is not None:
                    try:
                        rows.append(fast(line))
                        continue
                    except ValueError:
                        pass  # not the fast decoder's: the model decides
                text = line.decode("utf-8")
                if text.isspace():  # == not text.strip() (a line read from a file is never empty); no 3 KB copy
                    continue
                try:  # pydantic's own JSON parser: faster than json.loads + model_validate, the strict reader's errors
                    rows.append(hold(validate(text, strict=True)))  # every field validated, then held lean
                except ValidationError as exc:
                    raise JudgebenchError(f"{path}:{number}: {describe_validation_error(exc)}") from None
    except OSError as exc:
        raise JudgebenchError(f"{path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise JudgebenchError(f"{path}:{number}: not UTF-8 text (invalid byte at offset {exc.start} of the line)") from None
    return rows


def jsonl_lines(text: str) -> list[str]:
    """The lines of a JSON Lines text (read with `newline=""`), split at line feeds only (a carriage return
    is JSON whitespace). Not `str.splitlines`: it also splits at U+2028, U+2029, NEL and other characters JSON allows
    raw inside strings, which a judge's answer may hold (`run` writes them raw)."""
    return text.split("\n")


def read_json_objects(path: Path, label: str = "") -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line of a JSON Lines file; a line that is not a JSON
    object is one error naming `label`, the file and the line."""
    lines = jsonl_lines(read_text(path, label, newline=""))
    return [(number, parse_json_object(line, f"{label}{path}:{number}")) for number, line in enumerate(lines, start=1)
            if line.strip()]


class _RepeatedKey(Exception):
    """A JSON object with one key twice (json keeps the last silently)."""


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    row = dict(pairs)
    if len(row) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return row


def parse_json_object(line: str, where: str) -> dict[str, Any]:
    """One JSON Lines line as an object; anything else is one error starting with `where` (file:line)."""
    try:
        row = json.loads(line, object_pairs_hook=_unique_pairs)
    except _RepeatedKey as exc:
        raise JudgebenchError(f"{where}: key '{one_line(str(exc), KEY_SHOWN_MAX)}' appears twice in one object "
                              f"(which value is meant?)") from None
    except json.JSONDecodeError as exc:
        raise JudgebenchError(f"{where}: malformed JSON ({exc.msg}, column {exc.colno})") from None
    except RecursionError:
        raise JudgebenchError(f"{where}: JSON nested too deeply to read") from None
    except ValueError as exc:  # an integer of thousands of digits
        raise JudgebenchError(f"{where}: JSON that cannot be read ({one_line(str(exc), KEY_SHOWN_MAX)})") from None
    if not isinstance(row, dict):
        raise JudgebenchError(f"{where}: expected a JSON object, got {type(row).__name__}")
    if "\\u" in line and _SURROGATE_ESCAPE.search(line):
        _refuse_lone_surrogates(row, where)
    return row


def check_csv_header(header: list[str], where: str) -> None:
    """Refuse a CSV header that names a column twice (a reader would keep one of the two silently: pandas the
    first, csv.DictReader the last), naming the column. A byte-order mark is no part of the first name (pandas drops
    it); empty names (a spreadsheet's trailing empty cells) name no column. A NUL in a name is refused too."""
    names = [name.lstrip("\ufeff") if i == 0 else name for i, name in enumerate(header)]
    counts = Counter(names)  # (names.count per name took minutes on a 100,000-column header)
    repeated = next((name for name in names if name.strip() and counts[name] > 1), None)
    if repeated is not None:
        raise JudgebenchError(f"{where}: row 1 (the header): column '{one_line(repeated, 80)}' appears twice "
                              "(which one is meant?)")
    nul = next((name for name in names if "\x00" in name), None)  # (the datasets loader fails on it naming nothing)
    if nul is not None:
        raise JudgebenchError(f"{where}: row 1 (the header): column {ascii(nul[:80])} holds a NUL character")


def strict_csv(handle: IO[str], where: str, **form: Any) -> Iterator[tuple[int, list[str]]]:
    """(the line a record starts on, its fields) for each record of a CSV file, read strictly: a stray quote is
    refused, naming the line its record starts on (`csv_error`). pandas, and so `datasets`, read on past it to
    the next quote instead, merging rows into one cell silently, or fail at the end of the file naming no row."""
    import csv

    reader = csv.reader(handle, strict=True, **form)  # form: csv.reader's format options (a comma-separated file)
    start, limit = 1, csv.field_size_limit(MAX_CSV_CELL)  # (csv's own limit, 128 KB, is no limit of pandas')
    try:
        for fields in reader:
            yield start, fields
            start = reader.line_num + 1
    except csv.Error as exc:
        raise csv_error(exc, where, start) from None
    finally:
        csv.field_size_limit(limit)


MAX_CSV_CELL = 2**31 - 1  # characters: pandas' reader has no smaller limit


def csv_rows(handle: IO[str], where: str, **form: Any) -> tuple[list[str], Iterator[tuple[int, list[str]]]]:
    """(the header, then each row as (the line it starts on, its cells)), read by `strict_csv`: blank lines skipped
    (pandas skips them, before the header too); a header naming a column twice is refused (check_csv_header), and a
    row with more cells than the header names (its extra values would be dropped, or pandas would take the first
    column for the index, shifting every column)."""
    records = strict_csv(handle, where, **form)
    header = next((fields for _, fields in records if fields), [])
    check_csv_header(header, where)

    def rows() -> Iterator[tuple[int, list[str]]]:
        for line, fields in records:
            if len(fields) > len(header):
                raise JudgebenchError(f"{where}:{line}: {len(fields)} fields, the header names {len(header)}")
            if fields:
                yield line, fields

    return header, rows()


def csv_dict_rows(handle: IO[str], where: str) -> Iterator[tuple[int, dict[str, str | None]]]:
    """Each row of `csv_rows` as (the line it starts on, column -> cell), as csv.DictReader gives it: a missing
    cell None."""
    header, rows = csv_rows(handle, where)
    return ((line, {**dict.fromkeys(header), **dict(zip(header, fields))}) for line, fields in rows)


def csv_error(exc: Exception, where: str, line: int) -> JudgebenchError:
    """A strict CSV reader's error, in words, naming the line the record starts on."""
    reason = str(exc)
    if "expected after '\"'" in reason:
        reason = ('a quoted cell ends mid-cell: a quote inside a quoted cell is written twice (""), and a cell '
                  "holding a quote must be quoted whole")
    elif "unexpected end of data" in reason:
        reason = "a quoted cell that begins in this row never closes (a stray quote?)"
    return JudgebenchError(f"{where}:{line}: {one_line(reason, 200)}")


MAX_JSON_NESTING = 1000  # brackets a line may hold open: Arrow's JSON reader (the `datasets` JSON loader's, arena's)
# overflows its thread's stack, a segmentation fault, on a value nested some thousands deep


def too_deep(data: bytes, open_at_start: int = 0) -> tuple[int | None, int]:
    """Where in `data` a line first holds more than MAX_JSON_NESTING brackets open (None: nowhere), and how many
    the last line holds open at the end (`open_at_start`: those of a line begun before `data`, for reading a
    file block by block). An upper bound of the JSON nesting: brackets inside strings count too."""
    last_newline = data.rfind(b"\n")
    tail = data[last_newline + 1 :]
    open_at_end = tail.count(b"[") + tail.count(b"{") - tail.count(b"]") - tail.count(b"}")
    if last_newline < 0:
        open_at_end += open_at_start
    if open_at_start + data.count(b"[") + data.count(b"{") <= MAX_JSON_NESTING:  # no line can be that deep
        return None, open_at_end
    import numpy as np

    codes = np.frombuffer(data, dtype=np.uint8)
    depth = np.cumsum((codes == 91).view(np.int8) + (codes == 123).view(np.int8) - (codes == 93).view(np.int8)
                      - (codes == 125).view(np.int8), dtype=np.int64) + open_at_start
    newlines = np.flatnonzero(codes == 10)
    starts = np.concatenate(([0], newlines + 1))
    bases = np.concatenate(([0], depth[newlines]))  # the depth at each line's start (a newline changes nothing)
    keep = starts < len(codes)
    over = np.flatnonzero(np.maximum.reduceat(depth, starts[keep]) - bases[keep] > MAX_JSON_NESTING)
    if not len(over):
        return None, open_at_end
    line = int(over[0])
    start = int(starts[keep][line])
    return start + int(np.argmax(depth[start:] - bases[keep][line] > MAX_JSON_NESTING)), open_at_end


def first_too_deep(data: bytes, block: int = 1 << 23) -> int | None:
    """`too_deep` over `data` a block at a time (bounded memory): the offset where a line first holds more than
    MAX_JSON_NESTING brackets open, or None."""
    view, open_lines = memoryview(data), 0
    for start in range(0, len(data), block):
        where, open_lines = too_deep(bytes(view[start : start + block]), open_lines)
        if where is not None:
            return start + where
    return None


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # an escaped UTF-16 surrogate: paired, one character


def _refuse_lone_surrogates(value: Any, where: str) -> None:
    """A `\\ud800`-style escape without its pair decodes to half a character, which no file can hold (pandas and
    every writer failed on it with a traceback): one error naming the line."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise JudgebenchError(f"{where}: a \\u escape names half a character (a lone UTF-16 surrogate), "
                                  "not text") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _refuse_lone_surrogates(key, where)
            _refuse_lone_surrogates(item, where)
    elif isinstance(value, list):
        for item in value:
            _refuse_lone_surrogates(item, where)


def read_model_json(path: Path, model: type[M]) -> M:
    """A JSON file of ours (results.json, ...) as `model`, validated strictly (`"5"` or `true` for an int is
    refused, not coerced); a bad field or a key given twice in one object (the last would silently win) is one
    error naming the file, and so is NaN or Infinity (JSON has neither)."""
    text = read_text(path)
    _refuse_duplicate_keys(text, path)
    try:
        return model.model_validate_json(text, strict=True)
    except ValidationError as exc:
        raise JudgebenchError(f"{path}: {_another_kind(text, model) or describe_validation_error(exc)}") from None


RUN_KIND_COMMANDS = {"rubric": "judgebench rubric score|report|compare|submit",
                     "run": "judgebench score|report|compare|submit", "panel": "judgebench score|report|compare|submit"}


def _another_kind(text: str, model: type[BaseModel]) -> str | None:
    """When a run's results of one kind are read as another's (a rubric run by `score`, a pairwise run by `rubric
    compare`): which kind it is and the commands that read it (a walkthrough saw 'field config.fingerprint: Extra
    inputs are not permitted (14 more)')."""
    config = model.model_fields.get("config")
    fields = getattr(config.annotation, "model_fields", {}) if config is not None else {}
    expected = typing.get_args(fields["kind"].annotation) if "kind" in fields else ()
    try:
        config = json.loads(text).get("config")
    except (ValueError, AttributeError, RecursionError):
        return None
    if not isinstance(config, dict) or "task" not in config:  # not a run's results at all: the fields say what is wrong
        return None
    found = config.get("kind", "run")
    if not isinstance(found, str) or not expected or found in expected or found not in RUN_KIND_COMMANDS:  # (a list
        # or object for a kind had raised TypeError: a traceback; the fields say what is wrong with it)
        return None
    return f"the results of a {'rubric' if found == 'rubric' else 'pairwise'} run; read it with `{RUN_KIND_COMMANDS[found]}`"


def _refuse_duplicate_keys(text: str, path: Path) -> None:
    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise JudgebenchError(f"{path}: key '{one_line(key, KEY_SHOWN_MAX)}' appears twice in one object")
            seen.add(key)
        return dict(pairs)

    def no_constant(name: str) -> None:  # NaN, Infinity: not JSON, never written by us, shown as "nan" on a board
        raise JudgebenchError(f"{path}: {name} is not a JSON number (judgebench never writes it)")

    try:
        json.loads(text, object_pairs_hook=unique, parse_constant=no_constant)
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError; so is a 5,000-digit integer
        pass  # not JSON that json reads (malformed, nested too deep, an integer too long): the model's parser says why


def describe_validation_error(exc: ValidationError, model: type[BaseModel] | None = None) -> str:
    """The first pydantic error as 'field.path: message' on one line.

    With `model`, an unknown key gets a did-you-mean from the keys allowed at its place.
    """
    errors = exc.errors()
    first = next((e for e in errors if e.get("type") == "extra_forbidden"), errors[0])  # a typo: name it
    loc = tuple(first.get("loc", ()))
    where = _error_place(first)
    others = [place for place in dict.fromkeys(_error_place(e) for e in errors) if place != where]
    extra = f" (also: {', '.join(others[:8])}{', ...' if len(others) > 8 else ''})" if others else ""
    message = _pydantic_prefix.sub("", first.get("msg", "invalid"))
    if first.get("type") == "extra_forbidden" and model is not None and loc:
        allowed = _allowed_keys(model, loc[:-1])
        close = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
        message = "unknown key" + (f"; did you mean '{close[0]}'?" if close else f" (allowed: {', '.join(allowed)})")
    return f"field '{where}': {message}{extra}"


_pydantic_prefix = re.compile(r"^(Value error|Assertion failed), ")  # pydantic's words before a validator's message


def _error_place(error: Any) -> str:
    """Where one pydantic error is: its key path (`columns.id`), or `(root)`."""
    return ".".join(one_line(str(part), KEY_SHOWN_MAX) for part in error.get("loc", ())) or "(root)"


def _allowed_keys(model: type[BaseModel], parents: tuple[Any, ...]) -> list[str]:
    """The field names of the (nested) model found by following `parents` from `model`."""
    current: Any = model
    for part in parents:
        if isinstance(part, int) or not (isinstance(current, type) and issubclass(current, BaseModel)):
            continue  # list index or dict key: stay on the item model
        field = current.model_fields.get(str(part))
        if field is None:
            return []
        current = _inner_model(field.annotation)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return [name for name, f in current.model_fields.items() if not f.exclude]
    return []


def _inner_model(annotation: Any) -> Any:
    """The BaseModel inside list[...], dict[..., ...], X | None annotations, else the annotation."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        inner = _inner_model(arg)
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            return inner
    return annotation


class _UniqueKeyLoader(yaml.SafeLoader):
    """yaml.SafeLoader that refuses a mapping with the same key twice (last-wins hides mistakes)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, Hashable):  # `{{ x }}` unquoted: a mapping as a key (a TypeError traceback)
                raise yaml.constructor.ConstructorError(
                    None, None, f"a key that is a list or mapping (line {key_node.start_mark.line + 1}; a Jinja "
                    "`{{ ... }}` must be quoted)", key_node.start_mark)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key '{key}' (line {key_node.start_mark.line + 1})", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def names_text(names: Iterable[str]) -> str:
    """A names file (flagged annotators): one name per line; a name a plain line cannot hold (a line break or
    control character, a leading '#' or '"', spaces at either end) as a JSON string (`read_names` reads both)."""
    return "".join((json.dumps(name, ensure_ascii=False) if _needs_quotes(name) else name) + "\n" for name in names)


def _needs_quotes(name: str) -> bool:
    return name != name.strip() or name[:1] in ("#", '"') or any(not c.isprintable() for c in name)


def read_names(text: str, where: str) -> list[str]:
    """The names of a names file: one per line, blank lines and lines starting with '#' skipped, a line starting
    with '"' a JSON string (`names_text`); a bad one is one error naming `where` and the line."""
    names = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith('"'):
            try:
                name = json.loads(line)
            except ValueError:
                name = None
            if not isinstance(name, str):
                raise JudgebenchError(f"{where}:{number}: a name in quotes must be one JSON string")
            line = name
        names.append(line)
    return names


YAML_NODES_MAX = 1_000_000  # values a YAML file may hold once its aliases are expanded (ours hold hundreds)


def load_yaml(text: str | bytes) -> Any:
    """yaml.safe_load with duplicate keys refused; nesting too deep for the parser, or aliases that expand past
    YAML_NODES_MAX values (a "billion laughs": every reader of the value, json.dumps included, spun for ever), are
    a yaml.YAMLError too."""
    try:
        data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except RecursionError:
        raise yaml.YAMLError("nested too deeply") from None
    _check_expanded_size(data)
    return data


def _check_expanded_size(data: Any) -> None:
    """Count the values as a reader walking them would meet them (an alias each time it is used), up to the cap."""
    stack, seen = [data], 0
    while stack:
        value = stack.pop()
        seen += 1
        if seen > YAML_NODES_MAX:
            raise yaml.YAMLError(f"more than {YAML_NODES_MAX:,} values once its aliases are expanded")
        if isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


RUN_FOLDER_MARKERS = ("results.json", "samples.jsonl")  # core/rundir's RESULTS_FILE, SAMPLES_FILE (same floor, no cycle)


def _is_run_folder(folder: Path) -> bool:
    return any((folder / name).is_file() for name in RUN_FOLDER_MARKERS)


def refuse_output_over_inputs(
    outputs: Iterable[tuple[str, Path]], inputs: Iterable[Path], runs: Iterable[Path] = (), allowed: Iterable[Path] = (),
    writes: Callable[[str], bool] | None = None,
) -> None:
    """The one check before a command writes (data loss otherwise: `compare A B --output B/results.json` replaced
    run B's results). Each output (flag, path) is refused with one line naming the flag when it
    - names an input (`inputs`: any file or folder the command was given), or
    - lies inside a run folder (one holding results.json or samples.jsonl) that the command reads: a folder of
      `runs` (the run folders, or folders of runs, the command takes) or under one, or the folder of an input file.
    - is a folder holding an input file under a name the command writes there (`writes(name)`: `freeze` given
      OUT/NAME.jsonl as its votes and --output OUT).
    `allowed`: outputs the command owns inside its input (a report's RUN_DIR/report)."""
    def existing(paths: Iterable[Path]) -> list[Path]:
        found = []
        for path in paths:
            try:
                if Path(path).exists():
                    found.append(Path(path).resolve())
            except (OSError, ValueError):
                continue
        return found

    resolved, run_sources = existing(inputs), existing(runs)
    resolved += [p for p in run_sources if p not in resolved]
    run_roots = {p.parent for p in resolved if not p.is_dir() and _is_run_folder(p.parent)}
    exempt = {Path(p).resolve() for p in allowed}
    for flag, out in outputs:
        target = Path(out).resolve()
        if target in exempt:
            continue
        shown = one_line(str(out), 300)
        if target in resolved:
            raise JudgebenchError(f"{flag} {shown}: is one of this command's inputs; writing it would destroy it "
                                  f"(choose a new path)")
        for source in resolved:
            if writes is not None and source.parent == target and not source.is_dir() and writes(source.name):
                raise JudgebenchError(f"{flag} {shown}: this command writes {one_line(source.name, 200)} there, which is "
                                      f"one of its inputs (choose another folder)")
        for folder in [target, *target.parents]:
            related = folder in run_roots or any(folder.is_relative_to(source) for source in run_sources)
            if related and _is_run_folder(folder):
                raise JudgebenchError(f"{flag} {shown}: lies inside the run folder {one_line(str(folder), 300)} that "
                                      f"this command reads; writing there could replace its files (choose a path outside it)")
