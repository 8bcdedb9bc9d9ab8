"""Loading a task's examples through `datasets` (Hub ids, local files and folders) into PairExamples.

Bad data is one line naming the file, row and field: missing columns (the existing ones listed),
unmapped labels, duplicate or non-scalar ids, a missing split (the existing ones listed), an empty,
non-UTF-8 or malformed JSON Lines file. The bundled demo splits are read without `datasets`.
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from judgebench.core.background import no_tqdm_monitor
from judgebench.core.bulk import trusted, trusts
from judgebench.core.errors import JudgebenchError, one_line
from judgebench.core.files import (
    MAX_JSON_NESTING,
    check_csv_header,
    csv_rows,
    open_regular,
    read_json_objects,
    regular_bytes,
    too_deep,
)
from judgebench.core.records import DEFAULT_DIMENSION, DatasetInfo, Label, PairExample
from judgebench.core.text import term_text
from judgebench.tasks.cell_types import csv_options, csv_variant, keep_cell_types
from judgebench.tasks.example_cache import load_rows
from judgebench.tasks.cells import name_cell, text_cell
from judgebench.tasks.registry import LOCAL_BUILDERS, Dimension, TaskSpec
from judgebench.tasks.stream_load import LazyExamples, RowSource, canonical, scan_wide
from judgebench.tasks.vote_loading import label_rule, vote_columns, votes_to_examples

# A row's example built again after its check (the chunk being judged): the same values, not validated twice
# (bulk.trusted). Every field but `votes` (None here) is given.
_TRUSTED = trusts(PairExample)
_EXAMPLE_FIELDS = tuple(PairExample.model_fields)
_DEFAULT_DIMENSIONS = (Dimension(name=DEFAULT_DIMENSION),)  # a task without dimensions (read only)


@dataclass
class LoadedTask:
    spec: TaskSpec
    examples: Sequence[PairExample]  # a list, or stream_load.LazyExamples (load_examples(lazy=True))
    dataset: DatasetInfo
    warnings: list[str] = field(default_factory=list)  # e.g. empty responses, for the user to see
    limit: int | None = None  # a fractional --limit resolved to its count of examples (else None)
    labelled: bytearray = field(default_factory=bytearray)  # with unlabelled ones: per example, 1 when labelled

    @property
    def unlabelled(self) -> int:
        """Examples without a label (load_examples(unlabelled=True)), among those loaded."""
        return self.labelled.count(0)


def load_examples(
    spec: TaskSpec,
    *,
    dataset_path: str | None = None,
    split: str | None = None,
    revision: str | None = None,
    demo: bool = False,
    limit: int | float | None = None,
    lazy: bool = False,
    unlabelled: bool | None = None,
) -> LoadedTask:
    """Load the task's examples through `datasets.load_dataset` and map them to PairExamples.

    `limit`: the first N examples, or a fraction 0 < f < 1 of them (lm-eval's convention: ceil(f x N)).
    `lazy`: a wide-layout task's examples come as a `stream_load.LazyExamples` (every row checked now,
    examples built chunk by chunk when judged); otherwise, and for long or votes layouts, a list.
    `unlabelled`: an example whose label is missing (null or blank) on every dimension is kept with no labels
    (`run --judge-unlabelled`); otherwise a missing label is an error naming the row (False: a run's load,
    whose error names the flag; None: a caller that has no such option).
    """
    if unlabelled and spec.votes is not None:
        raise JudgebenchError(f"--judge-unlabelled: task {spec.name} derives its labels from annotator votes, so every "
                              "pair it holds has a label; judge-only pairs need a task with a label column")
    data = _read_rows(spec, dataset_path, split, revision, demo)
    location, rowsource = data.location, data.rows
    _check_columns(spec, data.columns, location)
    if not demo:  # a later cell of another type is read as its own value, as at row 1 (cell_types.py)
        rowsource = keep_cell_types(Path(location), rowsource, data.columns, _mapped_columns(spec))
    built = _build_examples(spec, rowsource, location, limit=limit, lazy=lazy, unlabelled=unlabelled)
    examples, warnings, flags = built.examples, built.warnings, built.labelled
    unlabelled_count = flags.count(0)
    if unlabelled_count and unlabelled_count == len(examples):
        raise JudgebenchError(f"{location}: none of the {len(examples):,} examples has a label: a run scores the judge "
                              "against labelled examples; give the voted pairs their labels (the others are judged "
                              "with --judge-unlabelled)")
    info = DatasetInfo(
        source=data.source,
        config=data.config,
        split=data.split,
        revision=data.revision,
        resolved_revision=data.resolved,
        fingerprint=built.fingerprint,
        demo=demo,
        license=spec.dataset.license,
        label_rule=label_rule(spec),
    )
    if split is not None and not demo and Path(location).is_file():  # (a demo's --split is the CLI's warning)
        warnings = [*warnings, f"--split {split}: {location} is a single file, which has no splits to choose from; "
                               "its rows are read and recorded under that name"]
    return LoadedTask(spec=spec, examples=examples, dataset=info, warnings=warnings,
                      limit=built.resolved_limit, labelled=flags if unlabelled_count else bytearray())


@dataclass
class _Rows:
    """A task's rows as read, and where from."""

    source: str  # as recorded: the path or id as written, or the demo's name
    location: str  # where they were read (a relative path resolved beside the task YAML)
    split: str
    revision: str | None
    config: str | None
    rows: RowSource
    columns: list[str]
    resolved: str | None  # the Hub commit read, when known


def _read_rows(spec: TaskSpec, dataset_path: str | None, split: str | None, revision: str | None,
               demo: bool) -> _Rows:
    """The rows of the task's demo split, its dataset or `dataset_path`, through `datasets` (small local files by
    content hash: example_cache.py; large files and Hub datasets streamed from Arrow: stream_load.py)."""
    if demo:
        if spec.demo is None:
            raise JudgebenchError(f"task {spec.name} has no demo split")
        location = str(spec.folder / spec.demo.path)
        rows, columns = read_demo_rows(Path(location))
        return _Rows(f"{spec.name} demo ({spec.demo.path})", location, "demo", None, None,  # (the same on every machine)
                     RowSource.from_rows(rows), columns, None)
    source = dataset_path or spec.dataset.path  # recorded as written: portable, no local folder
    location = dataset_path or spec.data_location()  # a relative path resolves beside the task YAML
    split_name = split or spec.dataset.split
    rev = revision or (None if dataset_path else spec.dataset.revision)
    config = data_config(spec.name, spec.dataset.name, location, given=dataset_path is not None)
    options = csv_options(spec, _mapped_columns(spec)) if csv_data(location, config) else {}  # cell_types.py
    tab_file = Path(location).suffix.lower() == ".tsv" and Path(location).is_file()  # (a folder's: datasets')
    if options:
        check_csv_files(Path(location), config)
        options = {**options, "sep": "\t"} if tab_file else options
    load = lambda: load_table(location, config, split_name, rev, options, typed=dataset_path is not None)  # noqa: E731
    variant = (csv_variant(spec) + (";sep:tab" if tab_file else "")) if options else ""
    cached = load_rows(location, split_name, LOCAL_BUILDERS, load, variant)  # example_cache.py: small local files
    if cached is not None:
        rows, columns, resolved = cached
        return _Rows(source, location, split_name, rev, config, RowSource.from_rows(rows), columns, resolved)
    table, resolved = load()  # a large file or a Hub dataset: streamed from datasets' Arrow files (stream_load.py)
    return _Rows(source, location, split_name, rev, config, RowSource.from_dataset(table), table.column_names, resolved)


@dataclass
class _Built:
    """A task's examples built from its rows, with what the load reports of them."""

    examples: Sequence[PairExample]
    fingerprint: str
    warnings: list[str]
    labelled: bytearray  # 1 per example with a label
    resolved_limit: int | None  # a fractional --limit as the count it came to


def _build_examples(spec: TaskSpec, rowsource: RowSource, location: str, *, limit: int | float | None, lazy: bool,
                    unlabelled: bool | None) -> _Built:
    """Examples from the rows: a wide task's checked in one bounded pass and built chunk by chunk when `lazy`;
    a long or votes layout's all at once."""
    resolved_limit = None
    if spec.votes is None and spec.layout != "long":  # one example per row: checked in one bounded pass
        build = partial(wide_example, spec, source=location, unlabelled=unlabelled)
        if isinstance(limit, float):
            limit = resolved_limit = fraction_count(limit, rowsource.n_rows)
        scanned = scan_wide(build, rowsource, limit=limit)
        examples: Sequence[PairExample] = LazyExamples(build, rowsource, 0, scanned.count)
        return _Built(examples if lazy else list(examples), scanned.fingerprint,
                      _empty_warning(scanned.empty, scanned.first_empty, location), scanned.labelled, resolved_limit)
    rows = [row for batch in rowsource.batches() for row in batch]
    mapped = _rows_to_examples(spec, rows, location, unlabelled=unlabelled)
    if isinstance(limit, float):
        limit = resolved_limit = fraction_count(limit, len(mapped))
    examples = mapped[:limit]
    return _Built(examples, fingerprint_examples(examples), _empty_response_warnings(examples, location),
                  bytearray(bool(example.labels) for example in examples), resolved_limit)


def fraction_count(fraction: float, total: int) -> int:
    """A fractional --limit as a count of examples: ceil(fraction x total), at least 1."""
    import math

    return max(1, math.ceil(fraction * total))


def _empty_response_warnings(examples: list[PairExample], source: str) -> list[str]:
    """One warning naming how many (and which first) examples have an empty response."""
    empty = [e.id for e in examples if not e.response_a.strip() or not e.response_b.strip()]
    return _empty_warning(len(empty), empty[0] if empty else None, source)


def _empty_warning(count: int, first: str | None, source: str) -> list[str]:
    if not count:
        return []
    return [f"{source}: {count} example(s) have an empty response (first: id {first}); they are judged as given"]


def read_demo_rows(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """A bundled demo split (JSON Lines we wrote) read directly: the offline demo need not import
    `datasets` (about 1.5 s). Rows and the union of their columns, as `datasets` would give them."""
    if path.suffix.lower() != ".jsonl":
        raise JudgebenchError(f"{path}: a demo split must be a .jsonl file")
    check_local_file(path)
    rows = [row for _, row in read_json_objects(path)]
    columns = list(dict.fromkeys(key for row in rows for key in row))
    return [{column: row.get(column) for column in columns} for row in rows], columns


def data_config(task: str, name: str | None, location: str, given: bool) -> str | None:
    """The config a task's data is read in, pairwise and rubric tasks alike: its `dataset.name` for the task's own data,
    wherever it lies (a Hub id or a local folder), and for a folder given instead (`given`: `--dataset-path`; a local
    copy of that dataset, a Hub snapshot); a folder is vetted first (`check_folder`: its card's default config's name
    when none is named). Other data given (a Hub id or a file) is read in its default config; a name beside the task's
    own single file is refused."""
    local = Path(location)
    if not given and name is not None and local.is_file():
        raise JudgebenchError(f"task {task}: dataset.name '{name}' names a config, but {location} is a single file, "
                              "which has none: leave the name out")
    if local.is_dir():  # (before any of its files is read: the CSV checks read them)
        return check_folder(local, name)
    return None if given else name


def check_folder(folder: Path, config: str | None) -> str | None:
    """Vet a local data folder before any of its files is read, and give the config that will be read (`config`; the
    card's default config's name when None and the folder has a README.md; None without one): the card `datasets`
    reads (a config it declares), the files it names inside the folder, and all of them of the one format `datasets`
    reads every config of a folder in (the format of its first config's files)."""
    card = folder / "README.md"
    if not card.is_file() and config is None:
        return None
    try:
        chosen = _card_config(folder, config)
    except Exception as exc:  # noqa: BLE001 - datasets refuses the card in many types
        raise JudgebenchError(_card_problem(folder, config, exc)) from None
    files = dataset_files(folder, config)
    roots = {os.path.abspath(folder), os.path.realpath(folder)}  # (datasets gives a linked folder's files resolved)
    outside = next((f for f in files if not any(os.path.normpath(f).startswith(root + os.sep) for root in roots)), None)
    if outside is not None:
        raise JudgebenchError(f"{folder}: README.md names a data file outside the folder ({outside}); copy it in")
    reader = type(chosen).__module__.rsplit(".", 1)[-1]  # datasets.packaged_modules.csv.csv -> csv
    other = next((f for f in files if LOCAL_BUILDERS.get(f.suffix.lower(), reader) != reader), None)
    if other is not None:
        raise JudgebenchError(f"{card}: config '{chosen.name}' names {other.suffix} files ({other.name}), but datasets "
                              f"reads every config of a folder as its first config's files are ({reader}); keep one "
                              "format per folder")
    if reader == "csv" and any(f.suffix.lower() == ".tsv" for f in files) and (chosen.delimiter or chosen.sep) != "\t":
        raise JudgebenchError(f"{card}: config '{chosen.name}' names .tsv files, which datasets would read split at "
                              f"{chosen.delimiter or chosen.sep!r} (the format of the folder's first config): give the "
                              "config `sep: \"\\t\"`")
    return chosen.name if card.is_file() else config


def _load_folder(datasets: Any, folder: Path, split: str, options: dict[str, Any] | None,
                 config: str | None = None) -> Any:
    """One split of a local data folder, in `config` (its card's default when None), vetted first (`check_folder`: the
    files `datasets` reads from it must lie in it, since a card's `../x.csv` or absolute path would feed any file on
    the machine into prompts and exports; a symbolic link inside it is followed, as a Hub snapshot is made of them);
    its JSON files are checked first, and when the load fails its files are read for the row to name."""
    check_folder(folder, config)
    files = dataset_files(folder, config)
    for data_file in files:
        if data_file.suffix.lower() in (".json", ".jsonl"):
            check_local_file(data_file)
    try:
        fresh = _fresh(datasets, folder, files)
        return datasets.load_dataset(str(folder), config, split=split, **fresh, **(options or {}))
    except Exception:
        for data_file in files:
            diagnose_local_file(data_file)  # raises naming the file and row when it can say what is wrong
        raise


def saved_to_disk(folder: Path) -> bool:
    """Whether a folder was written by `datasets`' save_to_disk (a DatasetDict's or one Dataset's), read back with
    load_from_disk: load_dataset refuses it ("Please use load_from_disk instead"), advice a command line cannot take."""
    return (folder / "dataset_dict.json").is_file() or (folder / "state.json").is_file()


def _load_saved(datasets: Any, folder: Path, split: str) -> Any:
    """One split of a save_to_disk folder: a DatasetDict's split (a missing one lists those it has), or the one
    Dataset saved (which has no splits, as a single file has none)."""
    saved = datasets.load_from_disk(str(folder))
    if not isinstance(saved, datasets.DatasetDict):
        return saved
    if split not in saved:
        raise JudgebenchError(_missing_split_message(str(folder), split, repr(list(saved))))
    return saved[split]


ASKED_BY = "a task's dataset.name; pairs' --config"  # who names the config a folder is read in


def _card_problem(folder: Path, config: str | None, exc: Exception) -> str:
    """Why `datasets` refuses a data folder's card (or the config asked of it), in words."""
    card = folder / "README.md"
    listed = re.search(r"available configs: (\[.*?\])$|Available: (\[.*?\])$", str(exc), re.MULTILINE)
    configs = ", ".join(map(repr, _listed(next(filter(None, listed.groups()))))) if listed else ""
    if "Config name is missing" in str(exc):
        return (f"{card}: declares several configs ({configs}) and marks none `default: true`; name one (a task: in its "
                "YAML, `dataset: {name: ...}`; for a built-in task, in a copy of its YAML passed with --include-path; "
                "`pairs`: --config)")
    if "BuilderConfig" in str(exc) and listed:
        if configs == "'default'":
            return (f"the data is read in config '{config}' ({ASKED_BY}), but {folder} declares no configs (no "
                    "`configs:` in a README.md): leave the name out")
        return f"the data is read in config '{config}' ({ASKED_BY}), but {card} declares only: {configs}"
    if isinstance(exc, FileNotFoundError) and not card.is_file():  # (EmptyDatasetError: no card, no file)
        return f"{folder}: holds no data files" + (f" (config '{config}' asked for: {ASKED_BY})" if config else "")
    if isinstance(exc, FileNotFoundError):  # (datasets lists some forty file extensions after it)
        return f"{card}: names data files that do not exist ({one_line(str(exc).split(' with any supported extension')[0], 200)})"
    return f"{card}: not a dataset card datasets can read ({_first_line(exc)})"


def _listed(text: str) -> list[str]:
    """The names in the Python list `datasets` prints (`['a', "it's"]`)."""
    import ast

    try:
        names = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return [text]
    return [str(name) for name in names] if isinstance(names, list) else [text]


def _fresh(datasets: Any, folder: Path, files: list[Path]) -> dict[str, Any]:
    """`datasets` keys a folder whose README.md declares its files (`configs:`, the Hub's layout) by the folder's name
    and the card alone, not by the files: an edited file, or another folder of the same name, gave the rows cached
    first. Such a folder is read afresh every time (its Arrow cache rebuilt, and not checked against the split sizes
    recorded for the rows cached before, which another row count failed), into a cache of its own, keyed by the
    folder's place and its card's and files' sizes and times: under the shared key `datasets` also kept the columns it
    had found first, so a column added to a file, or another folder of the same name with other columns, failed to
    load at all ("DatasetGenerationError")."""
    card = folder / "README.md"
    if not card.is_file():
        return {}
    key = hashlib.sha256(str(folder.resolve()).encode())
    for path in (card, *files):
        stat = path.stat()
        key.update(f"\0{path.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    cache = Path(datasets.config.HF_DATASETS_CACHE) / "judgebench-folders" / key.hexdigest()[:20]
    return {"cache_dir": str(cache), "download_mode": "force_redownload", "verification_mode": "no_checks"}


def quiet_datasets() -> Any:
    """`datasets`, imported (heavy: only when loading) with no progress bars or log lines of its own or of
    huggingface_hub's (a card without YAML: "Repo card metadata block was not found"): failures are reported as one
    line of ours."""
    import datasets
    from huggingface_hub.utils import logging as hub_logging

    no_tqdm_monitor()
    datasets.disable_progress_bars()
    datasets.logging.set_verbosity(datasets.logging.CRITICAL)
    hub_logging.set_verbosity_error()
    return datasets


def load_table(source: str, config: str | None, split: str, revision: str | None, options: dict[str, Any] | None = None,
               *, typed: bool = False):
    """One split as a `datasets.Dataset`, plus the resolved Hub commit when known; `options` go to a local
    file's builder. `typed`: the source was written on the command line (relative to the working folder), so a
    failure to read it as a Hub id also says that no local file or folder has that name."""
    datasets = quiet_datasets()
    local = Path(source)
    if typed and local.is_symlink() and not local.exists():  # (it was read as a Hub id "of no local file")
        raise JudgebenchError(f"{source}: a link to {term_text(os.readlink(local))}, which leads to no file or folder "
                              "(missing, or a loop of links)")
    note = _not_local_note() if typed and not local.exists() else ""
    try:
        if local.is_file():
            builder = LOCAL_BUILDERS.get(local.suffix.lower())
            if builder is None:
                raise JudgebenchError(
                    f"{source}: unsupported file type; use one of {', '.join(LOCAL_BUILDERS)}"
                )
            check_local_file(local)
            try:
                return datasets.load_dataset(builder, data_files={split: str(local)}, split=split, **(options or {})), None
            except Exception as exc:
                diagnose_local_file(local)  # raises with file and line when it can say what is wrong
                raise JudgebenchError(f"{source}: cannot load ({_first_line(exc)})") from None
        if local.is_dir() and saved_to_disk(local):
            return _load_saved(datasets, local, split), None
        if local.is_dir():
            return _load_folder(datasets, local, split, options, config), None
        if local.exists():  # a FIFO or device: `datasets` would wait on it
            raise JudgebenchError(f"{source}: not a regular file")
        if local.suffix.lower() in LOCAL_BUILDERS or source.startswith((".", "/")):
            raise JudgebenchError(f"{source}: no such file or directory")
        _check_hub_reachable(source, note)
        table = datasets.load_dataset(source, config, split=split, revision=revision)
        return table, _resolve_revision(source, revision)
    except JudgebenchError:
        raise
    except ValueError as exc:
        match = re.search(r"Unknown split \"(.+?)\"\. Should be one of (\[.*?\])", str(exc))
        if match:
            named = f"{source} (config '{config}')" if config is not None and local.is_dir() else source
            raise JudgebenchError(_missing_split_message(named, match.group(1), match.group(2))) from None
        raise JudgebenchError(f"{source}: cannot load ({_first_line(exc)})") from None
    except Exception as exc:  # datasets raises many types for unreachable or malformed sources
        hint = "" if local.exists() else "; to run offline use --demo or --dataset-path FILE"
        raise JudgebenchError(f"cannot load dataset '{source}'{note} ({_first_line(exc)}){hint}") from None


def _not_local_note() -> str:
    """Said of a typed source read as a Hub id for want of a local file or folder: a mistyped folder in owner/name
    form (`hfdata/sci_nope`) had been reported as a network problem only (a walkthrough)."""
    return f" (no local file or folder of that name in {Path.cwd()}; read as a Hub id)"


def load_checked_table(source: str, config: str | None, split: str, revision: str | None,
                       csv_options: dict[str, Any] | None = None, *,
                       typed: bool = False) -> tuple[Any, str | None, str | None]:
    """One split of any source with the checks a task's read makes, for callers that hold no task (`pairs`, a rubric's
    Hub data): a local folder vetted before any of its files is read (its config chosen: `check_folder`), local CSV
    read strictly (`check_csv_files`) and with `csv_options`. Gives the table, the resolved Hub commit when known and
    the config read; `typed` as for `load_table`."""
    local = Path(source)
    if local.is_dir():
        config = check_folder(local, config)
    elif local.is_file() and config is not None:
        raise JudgebenchError(f"{source}: a single file has no configs, but config '{config}' was asked for: "
                              "leave it out")
    csv = csv_data(local, config)
    if csv:
        check_csv_files(local, config)
    table, resolved = load_table(source, config, split, revision, csv_options if csv else None, typed=typed)
    return table, resolved, config


def _check_hub_reachable(source: str, note: str = "") -> None:
    """A Hub dataset with no copy in the local Hub cache, on a machine where the Hub's host name does not resolve,
    is one line at once: `datasets` retried five times over 24 s, printing each retry (a walkthrough). With a
    cached copy (or offline mode set) `datasets` is left to find it. `note` follows the source's name."""
    import socket
    from urllib.parse import urlsplit

    import huggingface_hub.constants as hub

    snapshots = Path(hub.HF_HUB_CACHE) / f"datasets--{source.replace('/', '--')}" / "snapshots"
    if hub.HF_HUB_OFFLINE or (snapshots.is_dir() and any(p.is_file() for p in snapshots.rglob("*"))):  # (an empty
        return  # folder is no copy)
    host = urlsplit(hub.ENDPOINT).hostname or ""  # (HF_ENDPOINT when set)
    try:
        socket.getaddrinfo(host, 443)
    except (OSError, UnicodeError):
        raise JudgebenchError(f"cannot load dataset '{source}'{note}: the Hugging Face Hub ({host}) cannot be reached (its "
                              "name does not resolve) and there is no cached copy; to run offline use --demo or "
                              "--dataset-path FILE") from None


def csv_data(location: str | Path, config: str | None = None) -> bool:
    """Whether a local source is CSV: a .csv or .tsv file, or a folder whose data files are all .csv, or all .tsv
    (read with the same options: a folder's ids had become numbers where the file's stayed text)."""
    local = Path(location)
    if local.is_file():
        return local.suffix.lower() in (".csv", ".tsv")
    if not local.is_dir():
        return False
    suffixes = {p.suffix.lower() for p in dataset_files(local, config) if p.suffix.lower() in LOCAL_BUILDERS}
    return suffixes in ({".csv"}, {".tsv"})


def dataset_files(folder: Path, config: str | None = None) -> list[Path]:
    """The files `datasets` reads from a local data folder, by its own patterns: those of every split it finds
    (`train.csv`, `test/...`; every file as `train` when no name says a split), since it prepares them all whatever
    split is asked for; a file of no split (`archive/notes.csv` beside `train.csv`) is not read, nor a hidden one
    (`.ipynb_checkpoints/`) or one under `__pycache__/`. A folder whose README.md names its files (`configs:`) reads
    those (`config`'s, or the default's): the builder `datasets` makes for the folder lists them."""
    from datasets.data_files import DataFilesDict, get_data_patterns

    try:
        if (folder / "README.md").is_file() or config is not None:
            found = _card_config(folder, config).data_files or {}
        else:
            found = DataFilesDict.from_patterns(get_data_patterns(str(folder)), str(folder))
    except Exception:  # noqa: BLE001 - no data file at all, or a card datasets refuses: the load words it
        return []
    return sorted({Path(path) for paths in found.values() for path in paths})


def _card_config(folder: Path, config: str | None = None) -> Any:
    """The builder configuration `datasets` makes for a folder with a README.md (its card's `configs:`), `config`
    or the default one."""
    card = folder / "README.md"
    stat = card.stat() if card.is_file() else None
    return _builder_config(os.path.abspath(folder), config, stat and stat.st_mtime_ns, stat and stat.st_size)


@functools.cache
def _builder_config(folder: str, config: str | None, *card_stat: int | None) -> Any:  # (keyed by the card's stat too:
    return quiet_datasets().load_dataset_builder(folder, config).config  # an edited card)


CSV_READER_DEFAULTS = {"delimiter": ",", "quotechar": '"', "escapechar": None, "doublequote": True,
                       "skipinitialspace": False, "quoting": 0}


def csv_format(folder: Path, suffix: str = ".csv", config: str | None = None) -> dict[str, Any] | None:
    """csv.reader's options for the CSV files `datasets` reads from a folder: its card's (`sep`, `quotechar`,
    `escapechar`, `doublequote`, `skipinitialspace`, `quoting`) when it declares them, a tab for `.tsv` files as
    `datasets` reads them; None when the card asks for what csv.reader cannot read alike (a separator of several
    characters, a header row other than the first, comments, a dialect or line terminator)."""
    card = None
    if (folder / "README.md").is_file():
        try:
            card = _card_config(folder, config)
        except Exception:  # noqa: BLE001 - a card datasets refuses: the load words it
            return None
    form = {**CSV_READER_DEFAULTS, "delimiter": "\t" if suffix == ".tsv" else ","}
    if card is None or not hasattr(card, "quotechar"):
        return form
    if any(getattr(card, name, None) not in (None, default)
           for name, default in (("header", "infer"), ("comment", None), ("dialect", None), ("lineterminator", None))):
        return None
    form.update({name: getattr(card, name) for name in CSV_READER_DEFAULTS if name != "delimiter"})
    form["delimiter"] = card.delimiter or card.sep  # as `datasets` reads it (a `.tsv` config after a `.csv` one: commas)
    return form if len(form["delimiter"]) == 1 and form["quoting"] in (0, 1, 2, 3) else None


def check_csv_files(location: Path, config: str | None = None) -> None:
    """Refuse a local CSV file (or one `datasets` reads in a local folder, `.csv` or `.tsv`, in the format its card
    declares) whose header names a column twice (`datasets` reads it through pandas, which keeps the first and
    renames the second, `label.1`, silently), that holds a stray quote (pandas reads on to the next quote, merging
    rows: core/files.strict_csv) or a row with more fields than the header names."""
    if location.is_file():
        checked = [(location, {"delimiter": "\t"} if location.suffix.lower() == ".tsv" else {})]
    else:
        checked = [(p, csv_format(location, p.suffix.lower(), config)) for p in dataset_files(location, config)
                   if p.suffix.lower() in (".csv", ".tsv")]
    for path, form in checked:
        if form is None:
            continue  # a format csv.reader cannot read as pandas does: `datasets` alone reads it
        try:
            with open_regular(path, encoding="utf-8", newline="") as handle:
                for _ in csv_rows(handle, str(path), **form)[1]:  # (each row checked as it is read)
                    pass
        except (OSError, UnicodeDecodeError):
            continue  # left to the reader and diagnose_local_file, in their words


def _missing_split_message(source: str, split: str, listed: str) -> str:
    """Name the splits that exist; with exactly one, give the exact flag to use."""
    splits = re.findall(r"'([^']*)'", listed)
    if len(splits) == 1:
        return f"{source}: split '{split}' does not exist; the dataset has one split, '{splits[0]}': use --split {splits[0]}"
    return f"{source}: split '{split}' does not exist; splits: {listed} (choose one with --split)"


NEWLINE = b"\n"


NON_FINITE = (b"NaN", b"Infinity")  # Python's json reads them; JSON has neither, and Arrow's reader made a NaN null


def check_local_file(path: Path, block: int = 1 << 20) -> None:
    """Refuse an empty or non-UTF-8 text data file, or a JSON one with a line nested deeper than Arrow's reader
    survives (`too_deep`) or with a NaN or Infinity for a value (a NaN label read as null: an unlabelled example),
    with one line naming it (read a block at a time)."""
    if path.suffix.lower() == ".parquet":
        return
    blank, carry, base = True, b"", 0  # carry: a character cut at the block's end, completed by the next
    json_text, open_lines, lines = path.suffix.lower() in (".json", ".jsonl"), 0, 1
    tail, constants = b"", False  # the last bytes of the previous block: a token cut at a block's end
    with open_regular(path, "rb") as handle:
        while True:
            chunk = handle.read(block)
            if json_text:
                constants = constants or any(token in tail + chunk[:16] or token in chunk for token in NON_FINITE)
                tail = chunk[-16:]
                deep, open_lines = too_deep(chunk, open_lines)
                if deep is not None:
                    line = lines + chunk.count(NEWLINE, 0, deep)
                    raise JudgebenchError(f"{path}:{line}: JSON nested more than {MAX_JSON_NESTING} levels deep "
                                          f"(brackets left open on one line)")
                lines += chunk.count(NEWLINE)
            data = carry + chunk
            blank = blank and not chunk.strip()
            try:
                data.decode("utf-8")
                carry = b""
            except UnicodeDecodeError as exc:
                if chunk and exc.reason == "unexpected end of data" and len(data) - exc.start < 4:
                    carry = data[exc.start :]
                    base += exc.start
                    continue
                raise JudgebenchError(f"{path}: not UTF-8 text (invalid byte at offset {base + exc.start})") from None
            base += len(data)
            if not chunk:
                break
    if blank:
        raise JudgebenchError(f"{path}: the file is empty")
    if constants:
        _refuse_non_finite(path)


def _refuse_non_finite(path: Path) -> None:
    """A NaN or Infinity given as a value in a JSON (Lines) data file, refused naming its line (the text "NaN"
    inside a string is no such value: only the lines holding those bytes are parsed)."""
    with open_regular(path, "rb") as handle:  # line by line: JSON Lines, whatever the suffix (`datasets` reads
        for number, raw in enumerate(handle, start=1):  # JSON Lines from a .json file too)
            if any(token in raw for token in NON_FINITE):
                _refuse_constant(raw, f"{path}:{number}")
    if path.suffix.lower() == ".json":  # one document over many lines (a pretty-printed array): its lines are no JSON
        _refuse_constant(regular_bytes(path), str(path))


def _refuse_constant(text: bytes, where: str) -> None:
    """Raise when `text`, read as JSON, holds NaN or Infinity; anything else it may be is left to the reader."""
    import json

    def refuse(name: str) -> float:
        raise ValueError(name)

    try:
        json.loads(text, parse_constant=refuse)
    except ValueError as exc:
        if str(exc) in ("NaN", "Infinity", "-Infinity"):
            raise JudgebenchError(f"{where}: {exc} is not a JSON value (a label or number must be given, or null "
                                  "for none)") from None
    except RecursionError:
        pass  # nested too deeply: refused by the check above or by the reader, in its words


def diagnose_local_file(path: Path) -> None:
    """After `datasets` failed on a local file: raise naming the file and the first bad row when it can say
    what is wrong (a malformed JSON Lines line, one with a key given twice or an integer past 64 bits; a CSV with
    a header and no row)."""
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        for number, row in read_json_objects(path):
            for key, value in row.items():
                if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63:
                    raise JudgebenchError(f"{path}:{number}: '{one_line(key, 80)}' is an integer of {len(str(abs(value)))} "
                                          "digits, past 64 bits (Arrow's reader takes no larger one)")
                if isinstance(value, float) and not math.isfinite(value):  # 1e999: JSON's number, no float's
                    raise JudgebenchError(f"{path}:{number}: '{one_line(key, 80)}' is a number too large for a float")
    elif suffix in (".csv", ".tsv"):
        import csv

        try:
            with open_regular(path, encoding="utf-8", newline="") as handle:
                reader = csv.reader(handle, delimiter="\t" if suffix == ".tsv" else ",")
                header = next(reader, None)
                rows = sum(1 for row in reader if any(cell.strip() for cell in row))
        except (OSError, csv.Error, UnicodeDecodeError) as exc:
            raise JudgebenchError(f"{path}: cannot read as CSV ({exc})") from None
        if header is not None and rows == 0:
            raise JudgebenchError(f"{path}: a header row ({len(header)} columns) and no data rows")
        check_csv_header(header or [], str(path))


def _resolve_revision(source: str, revision: str | None) -> str | None:
    """The commit sha of a Hub dataset at `revision` (None when it cannot be asked)."""
    if revision and re.fullmatch(r"[0-9a-f]{40}", revision):
        return revision
    try:
        from huggingface_hub import HfApi

        return HfApi().dataset_info(source, revision=revision).sha
    except Exception:
        return None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {one_line(text[0], 300)}" if text else type(exc).__name__


def _mapped_columns(spec: TaskSpec) -> dict[str, str]:
    """Source column -> the task key that maps it, for existence checks."""
    cols = spec.columns
    mapped = {
        cols.id: "columns.id",
        cols.question: "columns.question",
        cols.response_a: "columns.response_a",
        cols.response_b: "columns.response_b",
    }
    for key in ("label", "model_a", "model_b", "dimension"):
        if getattr(cols, key):
            mapped[getattr(cols, key)] = f"columns.{key}"
    mapped.update({col: "columns.slices" for col in cols.slices})
    mapped.update({col: f"columns.context.{name}" for name, col in cols.context.items()})
    mapped.update(vote_columns(spec))
    if spec.layout == "wide":
        mapped.update({d.label_column: f"dimensions.{d.name}.label_column" for d in spec.dimensions if d.label_column})
    return mapped


def _check_columns(spec: TaskSpec, available: list[str], source: str) -> None:
    for column, key in _mapped_columns(spec).items():
        if column not in available:
            raise JudgebenchError(
                f"{source}: column '{column}' (task {spec.name}, {key}) does not exist; "
                f"columns: {', '.join(available)}"
            )




def _map_label(spec: TaskSpec, raw: Any, row_ref: str, column: str, source: str, unlabelled: bool | None = None) -> Label | None:
    """The task's label for a cell; None for a missing one (null or blank, unless the task maps it) when
    `unlabelled` allows it, else one error naming the row."""
    key = str(raw) if raw is not None else "None"
    if key in spec.labels:
        return spec.labels[key]
    missing = raw is None or (isinstance(raw, str) and not raw.strip())
    if missing and unlabelled:
        return None
    hint = (" (to judge unlabelled examples too, without scoring them: --judge-unlabelled, or judge_unlabelled=True "
            "in Python)") if missing and unlabelled is False else ""
    shown = ("no label (an empty cell, a null, or in a CSV a missing-value word such as NA or NaN)" if missing
             else f"label value {raw!r}, which task {spec.name} does not map")
    raise JudgebenchError(
        f"{source}: {row_ref}: field '{column}' has {shown} (mapped values: {', '.join(map(repr, spec.labels))}){hint}"
    )


def _example_labels(found: dict[str, Label | None], row_ref: str, source: str) -> dict[str, Label]:
    """An example's labels: every dimension's, or none (an unlabelled example); a label on some dimensions only
    is one error naming the row."""
    missing = [dimension for dimension, label in found.items() if label is None]
    if missing and len(missing) < len(found):
        raise JudgebenchError(f"{source}: {row_ref}: no label on dimension {missing[0]!r} but a label on others: "
                              "an example is labelled on every dimension or on none")
    return {} if missing else found  # type: ignore[return-value]  # no None left


def _row_id(row: dict[str, Any], spec: TaskSpec, index: int, source: str) -> str:
    return name_cell(row.get(spec.columns.id), f"{source}: row {index + 1}", spec.columns.id, " (id)")


def _base_example(spec: TaskSpec, row: dict[str, Any], example_id: str, source: str) -> dict[str, Any]:
    cols, where = spec.columns, f"{source}: row id {example_id}"
    return {
        "id": example_id,
        "question": text_cell(row.get(cols.question), where, cols.question),
        "response_a": text_cell(row.get(cols.response_a), where, cols.response_a),
        "response_b": text_cell(row.get(cols.response_b), where, cols.response_b),
        "model_a": name_cell(row.get(cols.model_a), where, cols.model_a) if cols.model_a else None,
        "model_b": name_cell(row.get(cols.model_b), where, cols.model_b) if cols.model_b else None,
        "slices": {column: name_cell(row.get(column), where, column) for column in cols.slices},
        "context": {name: row.get(col) for name, col in cols.context.items()},
    }


def _rows_to_examples(spec: TaskSpec, rows: list[dict[str, Any]], source: str, *, unlabelled: bool | None = None) -> list[PairExample]:
    if spec.votes is not None:
        mapper = lambda raw, ref, column: _map_label(spec, raw, ref, column, source)  # noqa: E731
        return votes_to_examples(spec, rows, source, _row_id, _base_example, mapper)
    if spec.layout == "long":
        return _long_rows_to_examples(spec, rows, source, unlabelled)
    seen: set[str] = set()
    return [wide_example(spec, row, index, seen, source=source, unlabelled=unlabelled) for index, row in enumerate(rows)]


def wide_example(spec: TaskSpec, row: dict[str, Any], index: int, seen: set[str] | None, *, source: str,
                 unlabelled: bool | None = None) -> PairExample:
    """Row `index` (0-based) of a one-row-per-comparison table as a PairExample; `seen`: ids so far
    (None: the rows were checked already); `unlabelled`: a row without labels is an example without them."""
    example_id = _row_id(row, spec, index, source)
    if seen is not None:
        if example_id in seen:
            raise JudgebenchError(f"{source}: row {index + 1}: duplicate id '{example_id}'")
        seen.add(example_id)
    base = _base_example(spec, row, example_id, source)
    ref, found = f"row id {example_id}", {}
    for dim in spec.dimensions or _DEFAULT_DIMENSIONS:
        column = dim.label_column or spec.columns.label
        found[dim.name] = _map_label(spec, row.get(column), ref, column, source, unlabelled)
    labels = _example_labels(found, ref, source)
    if seen is None and _TRUSTED:  # checked already (stream_load.scan_wide validated this row's example)
        values = {**base, "labels": labels}
        return trusted(PairExample, {name: values.get(name) for name in _EXAMPLE_FIELDS}, set(values))
    return PairExample(**base, labels=labels)


def _long_rows_to_examples(spec: TaskSpec, rows: list[dict[str, Any]], source: str, unlabelled: bool | None = None) -> list[PairExample]:
    """Group one-row-per-dimension records into comparisons; responses must agree across rows."""
    by_value = {(d.value or d.name): d.name for d in spec.dimensions}
    grouped: dict[str, dict[str, Any]] = {}
    for index, row in enumerate(rows):
        example_id = _row_id(row, spec, index, source)
        raw_dim = row.get(spec.columns.dimension)
        ref = f"row {index + 1} (id {example_id})"
        if str(raw_dim) not in by_value:
            raise JudgebenchError(
                f"{source}: {ref}: field '{spec.columns.dimension}' has dimension {raw_dim!r}, "
                f"not one of {', '.join(map(repr, by_value))}"
            )
        dimension = by_value[str(raw_dim)]
        base = _base_example(spec, row, example_id, source)
        entry = grouped.setdefault(example_id, {**base, "labels": {}})
        if any(entry[k] != base[k] for k in ("question", "response_a", "response_b")):
            raise JudgebenchError(f"{source}: {ref}: question or responses differ from an earlier row with this id")
        if dimension in entry["labels"]:
            raise JudgebenchError(f"{source}: {ref}: duplicate id '{example_id}' for dimension {dimension}")
        entry["labels"][dimension] = _map_label(spec, row.get(spec.columns.label), ref, spec.columns.label, source, unlabelled)
    return [PairExample(**{**entry, "labels": _long_labels(spec, entry, source)}) for entry in grouped.values()]


def _long_labels(spec: TaskSpec, entry: dict[str, Any], source: str) -> dict[str, Label]:
    """A long-layout example's labels: a row, with its label, for every dimension of the task (or no label on any
    row: an unlabelled example); a dimension without a row is one error naming the example."""
    labels = _example_labels(entry["labels"], f"id {entry['id']}", source)
    missing = [d for d in spec.dimension_names if d not in entry["labels"]]
    if missing:
        raise JudgebenchError(f"{source}: id {entry['id']}: no row for dimension {missing[0]!r} "
                              f"(each example has one row per dimension: {', '.join(spec.dimension_names)})")
    return labels


def fingerprint_examples(examples: list[PairExample]) -> str:
    """sha256 over the canonical examples: what the judge saw and what it is scored against."""
    digest = hashlib.sha256()
    for example in sorted(examples, key=lambda e: e.id):
        digest.update(canonical(example))  # data without votes hashes as before votes existed
        digest.update(b"\n")
    return digest.hexdigest()
