"""Task definitions (YAML, validated by pydantic) and loading their examples through `datasets`.

A task maps a source's columns and label values onto judgebench's canonical
PairExample. Two layouts are supported without code changes:
  wide  one row per comparison; one label column per dimension
  long  one row per comparison and dimension; a dimension column names it
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from yaml import YAMLError

from .catalogue import DEFAULT_HEADLINE, HEADLINES
from .errors import JudgebenchError
from .files import describe_validation_error, load_yaml
from .records import DEFAULT_DIMENSION, DatasetInfo, Label, PairExample, Verdict
from .resources import tasks_dir

LOCAL_BUILDERS = {".jsonl": "json", ".json": "json", ".parquet": "parquet", ".csv": "csv"}


class TaskModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DatasetSource(TaskModel):
    path: str  # Hub id (or a local path)
    name: str | None = None  # config name
    split: str
    revision: str | None = None  # pin a commit sha; a branch name is recorded as unpinned
    license: str | None = None


class DemoSource(TaskModel):
    path: str  # relative to the task YAML's folder
    note: str = "demo data written by the judgebench authors; not the released benchmark"


class Columns(TaskModel):
    id: str
    question: str
    response_a: str
    response_b: str
    label: str | None = None  # single-dimension wide layout, or the label column of a long layout
    model_a: str | None = None
    model_b: str | None = None
    dimension: str | None = None  # long layout: the column naming the dimension
    slices: list[str] = Field(default_factory=list)
    context: dict[str, str] = Field(default_factory=dict)  # canonical name -> source column


class Dimension(TaskModel):
    name: str
    criterion: str = ""
    label_column: str | None = None  # wide layout: this dimension's label column
    value: str | None = None  # long layout: this dimension's value in the dimension column


class ReportedProtocol(TaskModel):
    """How a published figure was computed, so runs can be scored the same way beside it."""

    orders: Literal["AB", "both", "unstated"]  # AB: one order, as given; both: mean over AB and BA
    invalid: Literal["excluded", "wrong", "unstated"]  # excluded: agree / (agree + disagree)
    metric: Literal["accuracy", "soft_accuracy"]
    prompt: str  # e.g. "the paper's own prompt"
    dataset: str  # the data the figure is on (a Hub path, or a description)
    split: str
    size: int | None = None  # examples; None when not stated
    note: str = ""

    @property
    def stated(self) -> bool:
        """Whether runs can be scored under this protocol (orders and invalid rule known)."""
        return self.orders != "unstated" and self.invalid != "unstated"


class ReportedRow(TaskModel):
    """A published result, shown on the leaderboard as 'reported' (never re-run)."""

    judge: str
    source: str
    metrics: dict[str, float]  # dimension -> value in percent, under `protocol`
    protocol: ReportedProtocol | None = None  # None: unknown, never ranked against runs


class TaskSpec(TaskModel):
    name: str
    version: str
    description: str = ""
    dataset: DatasetSource
    demo: DemoSource | None = None
    layout: Literal["wide", "long"] = "wide"
    columns: Columns
    labels: dict[str, Label]  # raw label value -> canonical label
    verdicts: list[Verdict]
    dimensions: list[Dimension] = Field(default_factory=list)
    dimension_mode: Literal["single", "separate", "joint"] = "single"
    prompt: str  # a file in prompts/ (or a path)
    joint_prompt: str | None = None  # used with dimension_mode joint
    headline: str = DEFAULT_HEADLINE  # one of catalogue.HEADLINES
    both_bad: Literal["tie", "exclude"] = "tie"
    reported: list[ReportedRow] = Field(default_factory=list)
    source_file: str | None = None  # set by the loader, not in YAML

    @field_validator("labels", mode="before")
    @classmethod
    def _label_keys_as_text(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {str(key): label for key, label in value.items()}
        return value

    @field_validator("headline")
    @classmethod
    def _known_headline(cls, value: str) -> str:
        if value not in HEADLINES:
            raise ValueError(f"must be one of {', '.join(HEADLINES)}")
        return value

    @field_validator("verdicts")
    @classmethod
    def _verdicts_decisive(cls, value: list[str]) -> list[str]:
        if not {"A", "B"} <= set(value):
            raise ValueError("must contain A and B")
        return value

    @model_validator(mode="after")
    def _layout_consistent(self) -> TaskSpec:
        if self.layout == "long":
            if not self.columns.dimension or not self.columns.label:
                raise ValueError("layout long needs columns.dimension and columns.label")
            if not self.dimensions:
                raise ValueError("layout long needs dimensions (with value)")
        elif not self.dimensions and not self.columns.label:
            raise ValueError("columns.label is required when no dimensions are listed")
        for dim in self.dimensions:
            if self.layout == "wide" and not (dim.label_column or self.columns.label):
                raise ValueError(f"dimension {dim.name} needs label_column in layout wide")
        if self.dimension_mode == "joint" and not self.joint_prompt:
            raise ValueError("dimension_mode joint needs joint_prompt")
        return self

    @property
    def dimension_names(self) -> list[str]:
        return [d.name for d in self.dimensions] or [DEFAULT_DIMENSION]

    @property
    def folder(self) -> Path:
        return Path(self.source_file).parent if self.source_file else tasks_dir()


# ----------------------------------------------------------------------------- registry


def load_task_file(path: Path) -> TaskSpec:
    """Parse and validate one task YAML; errors name the file and the key."""
    try:
        raw = load_yaml(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise JudgebenchError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise JudgebenchError(f"{path}: cannot read ({exc.strerror})") from None
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        raise JudgebenchError(f"{path}:{where} invalid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(raw, dict):
        raise JudgebenchError(f"{path}: a task file must be a YAML mapping")
    try:
        spec = TaskSpec.model_validate(raw)
    except ValidationError as exc:
        raise JudgebenchError(f"{path}: {describe_validation_error(exc, TaskSpec)}") from None
    return spec.model_copy(update={"source_file": str(path)})


def task_files(include_paths: Iterable[Path] = ()) -> dict[str, Path]:
    """Task name (file stem) -> YAML path; user folders (--include-path) override bundled ones."""
    found: dict[str, Path] = {}
    for folder in [tasks_dir(), *include_paths]:
        if not Path(folder).is_dir():
            raise JudgebenchError(f"--include-path {folder}: not a directory")
        for path in sorted(Path(folder).glob("*.yaml")) + sorted(Path(folder).glob("*.yml")):
            found[path.stem] = path
    return found


def get_task(name: str, include_paths: Iterable[Path] = ()) -> TaskSpec:
    """A task by name (bundled or in an --include-path folder) or by the path of its YAML file.

    Either way the YAML's `name` must equal the file's stem.
    """
    files = task_files(include_paths)
    path = files.get(name)
    if path is None:
        candidate = Path(name)
        if candidate.suffix not in (".yaml", ".yml") or not candidate.is_file():
            hint = difflib.get_close_matches(name, list(files), n=1)
            suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
            raise JudgebenchError(f"unknown task '{name}'{suggestion} (known tasks: {', '.join(sorted(files))})")
        path = candidate
    spec = load_task_file(path)
    if spec.name != path.stem:
        raise JudgebenchError(f"{path}: key 'name' is '{spec.name}' but the file is {path.name}")
    return spec


# ----------------------------------------------------------------------------- loading


@dataclass
class LoadedTask:
    spec: TaskSpec
    examples: list[PairExample]
    dataset: DatasetInfo
    warnings: list[str] = field(default_factory=list)  # e.g. empty responses, for the user to see


def load_examples(
    spec: TaskSpec,
    *,
    dataset_path: str | None = None,
    split: str | None = None,
    revision: str | None = None,
    demo: bool = False,
    limit: int | None = None,
) -> LoadedTask:
    """Load the task's examples through `datasets.load_dataset` and map them to PairExamples."""
    if demo:
        if spec.demo is None:
            raise JudgebenchError(f"task {spec.name} has no demo split")
        location, split_name, rev = str(spec.folder / spec.demo.path), "demo", None
        source = f"{spec.name} demo ({spec.demo.path})"  # the same on every machine
        rows, columns, resolved = *read_demo_rows(Path(location)), None
    else:
        source = location = dataset_path or spec.dataset.path
        split_name = split or spec.dataset.split
        rev = revision or (None if dataset_path else spec.dataset.revision)
        table, resolved = _load_table(location, spec.dataset.name if not dataset_path else None, split_name, rev)
        rows, columns = table.to_list(), table.column_names
    _check_columns(spec, columns, location)
    examples = _rows_to_examples(spec, rows, location)
    if limit is not None:
        examples = examples[:limit]
    warnings = _empty_response_warnings(examples, location)
    info = DatasetInfo(
        source=source,
        config=None if (demo or dataset_path) else spec.dataset.name,
        split=split_name,
        revision=rev,
        resolved_revision=resolved,
        fingerprint=fingerprint_examples(examples),
        demo=demo,
        license=spec.dataset.license,
    )
    return LoadedTask(spec=spec, examples=examples, dataset=info, warnings=warnings)


def _empty_response_warnings(examples: list[PairExample], source: str) -> list[str]:
    """One warning naming how many (and which first) examples have an empty response."""
    empty = [e.id for e in examples if not e.response_a.strip() or not e.response_b.strip()]
    if not empty:
        return []
    return [f"{source}: {len(empty)} example(s) have an empty response (first: id {empty[0]}); they are judged as given"]


def read_demo_rows(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """A bundled demo split (JSON Lines we wrote) read directly: the offline demo need not import
    `datasets` (about 1.5 s). Rows and the union of their columns, as `datasets` would give them."""
    if path.suffix.lower() != ".jsonl":
        raise JudgebenchError(f"{path}: a demo split must be a .jsonl file")
    check_local_file(path)
    diagnose_local_file(path)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    columns = list(dict.fromkeys(key for row in rows for key in row))
    return [{column: row.get(column) for column in columns} for row in rows], columns


def _load_table(source: str, config: str | None, split: str, revision: str | None):
    """One split as a `datasets.Dataset`, plus the resolved Hub commit when known."""
    import datasets  # heavy import, only when loading

    datasets.disable_progress_bars()
    datasets.logging.set_verbosity(datasets.logging.CRITICAL)  # failures are reported as one line of ours
    local = Path(source)
    try:
        if local.is_file():
            builder = LOCAL_BUILDERS.get(local.suffix.lower())
            if builder is None:
                raise JudgebenchError(
                    f"{source}: unsupported file type; use one of {', '.join(LOCAL_BUILDERS)}"
                )
            check_local_file(local)
            try:
                return datasets.load_dataset(builder, data_files={split: str(local)}, split=split), None
            except Exception as exc:
                diagnose_local_file(local)  # raises with file and line when it can say what is wrong
                raise JudgebenchError(f"{source}: cannot load ({_first_line(exc)})") from None
        if local.is_dir():
            return datasets.load_dataset(str(local), split=split), None
        if local.suffix.lower() in LOCAL_BUILDERS or source.startswith((".", "/")):
            raise JudgebenchError(f"{source}: no such file or directory")
        table = datasets.load_dataset(source, config, split=split, revision=revision)
        return table, _resolve_revision(source, revision)
    except JudgebenchError:
        raise
    except ValueError as exc:
        match = re.search(r"Unknown split \"(.+?)\"\. Should be one of (\[.*?\])", str(exc))
        if match:
            raise JudgebenchError(_missing_split_message(source, match.group(1), match.group(2))) from None
        raise JudgebenchError(f"{source}: cannot load ({_first_line(exc)})") from None
    except Exception as exc:  # datasets raises many types for unreachable or malformed sources
        hint = "" if local.exists() else "; to run offline use --demo or --dataset-path FILE"
        raise JudgebenchError(f"cannot load dataset '{source}' ({_first_line(exc)}){hint}") from None


def _missing_split_message(source: str, split: str, listed: str) -> str:
    """Name the splits that exist; with exactly one, give the exact flag to use."""
    splits = re.findall(r"'([^']*)'", listed)
    if len(splits) == 1:
        return f"{source}: split '{split}' does not exist; the dataset has one split, '{splits[0]}': use --split {splits[0]}"
    return f"{source}: split '{split}' does not exist; splits: {listed} (choose one with --split)"


def check_local_file(path: Path) -> None:
    """Refuse an empty or non-UTF-8 text data file with one line naming it."""
    if path.suffix.lower() == ".parquet":
        return
    data = path.read_bytes()
    if not data.strip():
        raise JudgebenchError(f"{path}: the file is empty")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JudgebenchError(f"{path}: not UTF-8 text (invalid byte at offset {exc.start})") from None


def diagnose_local_file(path: Path) -> None:
    """After `datasets` failed on a JSON Lines file: raise naming the first malformed line."""
    if path.suffix.lower() != ".jsonl":
        return
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise JudgebenchError(f"{path}:{number}: malformed JSON ({exc.msg}, column {exc.colno})") from None
            if not isinstance(row, dict):
                raise JudgebenchError(f"{path}:{number}: expected a JSON object, got {type(row).__name__}")


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
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


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


def _text(row: dict[str, Any], column: str, row_ref: str, source: str) -> str:
    value = row.get(column)
    if not isinstance(value, str):
        raise JudgebenchError(
            f"{source}: {row_ref}: field '{column}' must be text, got {type(value).__name__}"
        )
    return value


def _optional_text(row: dict[str, Any], column: str | None) -> str | None:
    value = row.get(column) if column else None
    return None if value is None else str(value)


def _map_label(spec: TaskSpec, raw: Any, row_ref: str, column: str, source: str) -> Label:
    key = str(raw) if raw is not None else "None"
    if key not in spec.labels:
        raise JudgebenchError(
            f"{source}: {row_ref}: field '{column}' has label value {raw!r}, which task {spec.name} "
            f"does not map (mapped values: {', '.join(map(repr, spec.labels))})"
        )
    return spec.labels[key]


def _row_id(row: dict[str, Any], spec: TaskSpec, index: int, source: str) -> str:
    value = row.get(spec.columns.id)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise JudgebenchError(f"{source}: row {index + 1}: field '{spec.columns.id}' (id) is empty")
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise JudgebenchError(
            f"{source}: row {index + 1}: field '{spec.columns.id}' (id) must be text or an integer, "
            f"got {type(value).__name__}"
        )
    return str(value)


def _base_example(spec: TaskSpec, row: dict[str, Any], example_id: str, source: str) -> dict[str, Any]:
    cols, ref = spec.columns, f"row id {example_id}"
    slices = {}
    for col in cols.slices:
        if row.get(col) is not None:
            slices[col] = str(row[col])
    return {
        "id": example_id,
        "question": _text(row, cols.question, ref, source),
        "response_a": _text(row, cols.response_a, ref, source),
        "response_b": _text(row, cols.response_b, ref, source),
        "model_a": _optional_text(row, cols.model_a),
        "model_b": _optional_text(row, cols.model_b),
        "slices": slices,
        "context": {name: row.get(col) for name, col in cols.context.items()},
    }


def _rows_to_examples(spec: TaskSpec, rows: list[dict[str, Any]], source: str) -> list[PairExample]:
    if spec.layout == "long":
        return _long_rows_to_examples(spec, rows, source)
    examples, seen = [], set()
    for index, row in enumerate(rows):
        example_id = _row_id(row, spec, index, source)
        if example_id in seen:
            raise JudgebenchError(f"{source}: row {index + 1}: duplicate id '{example_id}'")
        seen.add(example_id)
        base = _base_example(spec, row, example_id, source)
        labels = {}
        for dim in spec.dimensions or [Dimension(name=DEFAULT_DIMENSION)]:
            column = dim.label_column or spec.columns.label
            labels[dim.name] = _map_label(spec, row.get(column), f"row id {example_id}", column, source)
        examples.append(PairExample(**base, labels=labels))
    return examples


def _long_rows_to_examples(spec: TaskSpec, rows: list[dict[str, Any]], source: str) -> list[PairExample]:
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
        entry["labels"][dimension] = _map_label(spec, row.get(spec.columns.label), ref, spec.columns.label, source)
    return [PairExample(**entry) for entry in grouped.values()]


def fingerprint_examples(examples: list[PairExample]) -> str:
    """sha256 over the canonical examples: what the judge saw and what it is scored against."""
    digest = hashlib.sha256()
    for example in sorted(examples, key=lambda e: e.id):
        digest.update(example.model_dump_json().encode())
        digest.update(b"\n")
    return digest.hexdigest()


def describe_tasks(include_paths: Iterable[Path] = ()) -> list[dict[str, str]]:
    """One line of facts per task, for `judgebench tasks`."""
    rows = []
    for name, path in task_files(include_paths).items():
        spec = load_task_file(path)
        rows.append(
            {
                "name": name,
                "version": spec.version,
                "dataset": f"{spec.dataset.path}:{spec.dataset.split}@{spec.dataset.revision or 'unpinned'}",
                "dimensions": ",".join(spec.dimension_names),
                "verdicts": "/".join(spec.verdicts),
                "demo": "yes" if spec.demo else "no",
                "file": str(path),
            }
        )
    return rows
