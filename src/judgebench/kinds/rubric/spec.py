"""Rubric task definitions (`kind: rubric` YAML) and loading their graded responses from a data file.

Rubric tasks live in tasks/rubric/ (and in --include-path folders, by their `kind: rubric` key); the
rubric kind (kind.py) lists them beside the other kinds' tasks in `judgebench tasks`. The data is a local JSON Lines, JSON array or CSV file (own strict reader) or, through
`datasets` (hub.py), a Hub id, a Parquet file or a dataset folder; one graded response per row; the
YAML maps its columns. Every bad row is one error naming the file, the row and the field.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator
from yaml import YAMLError

from judgebench.core.errors import JudgebenchError, one_line
from judgebench.core.files import (
    csv_dict_rows,
    describe_validation_error,
    load_yaml,
    open_regular,
    read_json_objects,
    regular_text,
    why_not_a_file,
)
from judgebench.core.records import Strict
from judgebench.core.resources import tasks_dir
from judgebench.kinds.rubric.hub import read_table_rows, uses_datasets
from judgebench.kinds.rubric.records import TOTAL, Criterion, GradedResponse
from judgebench.tasks.cells import name_cell, text_cell
from judgebench.tasks.registry import check_task_name, refuse_loader_keys, resolve_data_path, task_files, yaml_files

DEFAULT_NO_ANSWER = ("", "no answer", "[no answer]", "NO_ANSWER", "N/A")
TOLERANCE = 1e-6  # expert totals vs the sum of expert item scores


class RubricColumns(Strict):
    id: str
    question: str
    response: str
    model: str
    rubric: str | None = None  # a list of {id, criterion, max}
    max_score: str | None = None  # or one total maximum (a number column)
    expert_items: str | None = None  # {rubric item id: points}
    expert_total: str | None = None  # a number
    reference_answer: str | None = None
    solution: str | None = None
    group: str | None = None  # problem id: totals and bootstrap clusters
    exam: str | None = None  # system level (model x exam)
    slices: list[str] = Field(default_factory=list)
    rubric_keys: dict[Literal["id", "criterion", "max"], str] = Field(default_factory=dict)  # e.g. {max: points}

    @model_validator(mode="after")
    def _unique_slices(self) -> RubricColumns:
        repeated = sorted({s for s in self.slices if self.slices.count(s) > 1})
        if repeated:
            raise ValueError(f"columns.slices: '{repeated[0]}' is listed twice (each must be unique)")
        return self

    @model_validator(mode="after")
    def _enough(self) -> RubricColumns:
        if (self.rubric is None) == (self.max_score is None):
            raise ValueError("give exactly one of columns.rubric (items with maxima) and columns.max_score")
        if self.expert_items is None and self.expert_total is None:
            raise ValueError("give columns.expert_items and/or columns.expert_total")
        if self.max_score is not None and self.expert_items is not None:
            raise ValueError("columns.expert_items needs columns.rubric (items), not columns.max_score")
        return self


class RubricDataset(Strict):
    path: str  # a local .jsonl/.json/.csv/.parquet file or folder (relative to the YAML), or a Hub dataset id
    name: str | None = Field(None, min_length=1)  # the config (through `datasets`; never empty: "" read the default)
    split: str = "train"  # through `datasets`
    revision: str | None = None  # Hub commit (through `datasets`)
    license: str | None = None


class RubricValidation(Strict):
    total_tolerance: float = Field(0.01, ge=0, allow_inf_nan=False)  # |total - sum of item scores| allowed
    evidence_required: bool = True  # an item scored above zero must quote evidence


class RubricTaskSpec(Strict):
    kind: Literal["rubric"]
    name: str
    version: str
    description: str = ""
    dataset: RubricDataset
    demo: RubricDataset | None = None
    columns: RubricColumns
    prompt: str = "rubric_examiner.yaml"
    validation: RubricValidation = Field(default_factory=RubricValidation)
    no_answer: list[str] = Field(default_factory=lambda: list(DEFAULT_NO_ANSWER))
    within_k: float = Field(1.0, gt=0, allow_inf_nan=False)  # points, on totals (the system-level criterion)
    source_file: str | None = Field(None, exclude=True)  # set by the loader, never a YAML key (refuse_loader_keys)

    _a_name = field_validator("name")(check_task_name)

    @property
    def folder(self) -> Path:
        return Path(self.source_file).parent if self.source_file else rubric_tasks_dir()

    def is_no_answer(self, response: str) -> bool:
        sentinels = {s.strip().casefold() for s in self.no_answer}
        return response.strip().casefold() in sentinels


def rubric_tasks_dir() -> Path:
    return tasks_dir() / "rubric"


def load_rubric_task_file(path: Path) -> RubricTaskSpec:
    """Parse and validate one rubric task YAML; errors name the file and the key."""
    try:
        raw = load_yaml(regular_text(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise JudgebenchError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    except YAMLError as exc:
        raise JudgebenchError(f"{path}: invalid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(raw, dict):
        raise JudgebenchError(f"{path}: a task file must be a YAML mapping")
    if raw.get("kind") != "rubric":
        raise JudgebenchError(f"{path}: key 'kind' must be 'rubric' for a rubric task (pairwise tasks: `judgebench run`)")
    refuse_loader_keys(raw, path)
    try:
        spec = RubricTaskSpec.model_validate(raw)
    except ValidationError as exc:
        raise JudgebenchError(f"{path}: {describe_validation_error(exc, RubricTaskSpec)}") from None
    if spec.name != path.stem:
        raise JudgebenchError(f"{path}: key 'name' is '{spec.name}' but the file is {path.name}")
    return spec.model_copy(update={"source_file": str(path)})


def rubric_task_files(include_paths: Iterable[Path] = ()) -> dict[str, Path]:
    """Rubric task name -> YAML; --include-path folders override the bundled tasks/rubric/."""
    return yaml_files([rubric_tasks_dir(), *include_paths])


def get_rubric_task(name: str, include_paths: Iterable[Path] = (), *, allow_path: bool = True) -> RubricTaskSpec:
    """A rubric task by name (tasks/rubric/ or an --include-path folder) or, with allow_path, its YAML path."""
    found = rubric_task_files(include_paths)
    path = found.get(name)
    if path is None:
        candidate = Path(name)
        if allow_path and candidate.suffix in (".yaml", ".yml"):
            if not candidate.is_file():  # a path: say what is wrong with it (as get_task does)
                raise JudgebenchError(f"task {name}: {why_not_a_file(candidate)} (a rubric task is a name from "
                                      "`judgebench tasks` or the path of a task YAML)")
            return load_rubric_task_file(candidate)
        if name in task_files(include_paths):  # a pairwise task: the command that runs it (as run does the reverse)
            raise JudgebenchError(f"task {name} is a pairwise task; run it with `judgebench run --tasks {name}`")
        hint = difflib.get_close_matches(name, list(found), n=1)
        suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
        raise JudgebenchError(f"unknown rubric task '{name}'{suggestion} (known: {', '.join(sorted(found))})")
    return load_rubric_task_file(path)


# ----------------------------------------------------------------------------- data


def data_path(spec: RubricTaskSpec, *, demo: bool, dataset_path: str | None) -> Path:
    if dataset_path:
        return Path(dataset_path)
    if demo:
        if spec.demo is None:
            raise JudgebenchError(f"task {spec.name} has no demo split")
        return spec.folder / spec.demo.path
    return Path(resolve_data_path(spec.dataset.path, spec.source_file))  # beside the YAML, else a Hub id


def dataset_config(spec: RubricTaskSpec, path: Path) -> str | None:
    """The config the task's data at `path` is read in (tasks/loading.data_config, the pairwise tasks' rule)."""
    from judgebench.tasks.loading import data_config

    own = str(path) in (spec.dataset.path, str(spec.folder / spec.dataset.path))  # not --dataset-path
    return data_config(spec.name, spec.dataset.name, str(path), given=not own)


def load_responses(spec: RubricTaskSpec, path: Path, limit: int | None = None) -> list[GradedResponse]:
    """The graded responses of a data file; a bad row is one error naming file, row and field."""
    c = spec.columns
    structured = {name for name in (c.rubric, c.max_score, c.expert_items, c.expert_total) if name}
    own, d = str(path) in (spec.dataset.path, str(spec.folder / spec.dataset.path)), spec.dataset  # own: no --dataset-path
    config = dataset_config(spec, path)
    if uses_datasets(str(path)):
        rows, _ = read_table_rows(str(path), config=config, split=d.split, revision=d.revision if own else None,
                                  structured=structured)
    elif not path.is_file():
        raise JudgebenchError(f"{path}: data file not found (task {spec.name})")
    else:
        rows = _read_rows(path, structured)
    if not rows:
        raise JudgebenchError(f"{path}: no rows")
    responses: list[GradedResponse] = []
    seen: set[str] = set()
    for number, row in rows:
        response = _response(spec.columns, row, f"{path}:{number}")
        if response.id in seen:
            raise JudgebenchError(f"{path}:{number}: duplicate id '{response.id}'")
        seen.add(response.id)
        responses.append(response)
    return responses[:limit] if limit else responses


def fingerprint(responses: list[GradedResponse]) -> str:
    data = json.dumps([r.model_dump(mode="json") for r in responses], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(data.encode()).hexdigest()


def _read_rows(path: Path, structured: set[str]) -> list[tuple[int, dict[str, Any]]]:
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(regular_text(path))
        except (OSError, ValueError, RecursionError) as exc:  # (UnicodeDecodeError and JSONDecodeError are ValueErrors)
            raise JudgebenchError(f"{path}: cannot read JSON ({one_line(str(exc), 200)})") from None
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            raise JudgebenchError(f"{path}: a .json data file must be an array of objects")
        return list(enumerate(data, start=1))
    if path.suffix.lower() == ".csv":
        return _read_csv(path, structured)
    if path.suffix.lower() != ".jsonl":
        raise JudgebenchError(f"{path}: rubric data must be a .jsonl, .json or .csv file")
    return read_json_objects(path)


def _read_csv(path: Path, structured: set[str]) -> list[tuple[int, dict[str, Any]]]:
    """CSV rows; the cells of the `structured` columns (rubric, maxima, expert scores) are JSON text
    (a number, a list, an object); other cells stay text. Row numbers are file lines (header: line 1; the line a
    row starts on when a quoted cell spans several)."""
    rows = []
    try:
        with open_regular(path, encoding="utf-8-sig", newline="") as handle:  # (a BOM is no part of the first name)
            records = csv_dict_rows(handle, str(path))
            for line, row in records:
                rows.append((line, {key: _cell(value) if key in structured else value for key, value in row.items()}))
    except (OSError, UnicodeDecodeError) as exc:
        raise JudgebenchError(f"{path}: cannot read CSV ({exc})") from None
    return rows


def _cell(value: str | None) -> Any:
    if value is None:
        return None
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        return value  # then refused as not a number / not a list, naming the row


def _field(row: dict[str, Any], column: str | None, where: str, *, required: bool = True) -> Any:
    if column is None:
        return None
    if column not in row:
        if not required:
            return None
        raise JudgebenchError(f"{where}: column '{column}' is missing (columns: {', '.join(sorted(row))})")
    return row[column]


def _response_text(value: Any, where: str, column: str) -> str:
    """A candidate response; null is an empty response (a "no answer")."""
    return "" if value is None else text_cell(value, where, column)


def _number(value: Any, where: str, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or abs(value) == float("inf"):
        raise JudgebenchError(f"{where}: {what} must be a finite number, got {value!r}")
    return float(value)


def _rubric(columns: RubricColumns, row: dict[str, Any], where: str) -> list[Criterion]:
    if columns.max_score is not None:
        top = _number(_field(row, columns.max_score, where), where, f"column '{columns.max_score}'")
        if top <= 0:
            raise JudgebenchError(f"{where}: column '{columns.max_score}' must be > 0, got {top:g}")
        return [Criterion(id=TOTAL, criterion="the whole answer", max=top)]
    items = _field(row, columns.rubric, where)
    if not isinstance(items, list) or not items or not all(isinstance(item, dict) for item in items):
        raise JudgebenchError(f"{where}: column '{columns.rubric}' must be a non-empty list of rubric items (objects)")
    keys = {"id": "id", "criterion": "criterion", "max": "max", **columns.rubric_keys}
    rubric = []
    for number, item in enumerate(items, start=1):
        if keys["id"] not in item or keys["max"] not in item:
            raise JudgebenchError(f"{where}: column '{columns.rubric}' item {number}: needs keys '{keys['id']}' and '{keys['max']}'")
        top = _number(item[keys["max"]], where, f"column '{columns.rubric}' item {number} maximum")
        if top <= 0:
            raise JudgebenchError(f"{where}: column '{columns.rubric}' item {number}: maximum must be > 0, got {top:g}")
        criterion = item.get(keys["criterion"], "")
        rubric.append(Criterion(id=name_cell(item[keys["id"]], where, f"{columns.rubric}.{keys['id']}"), max=top,
                                criterion=text_cell(criterion, where, f"{columns.rubric}.{keys['criterion']}")))
    ids = [c.id for c in rubric]
    if len(set(ids)) != len(ids):
        raise JudgebenchError(f"{where}: column '{columns.rubric}': rubric item ids repeat")
    return rubric


def _expert(columns: RubricColumns, row: dict[str, Any], rubric: list[Criterion], where: str) -> tuple[dict[str, float] | None, float]:
    items = None
    if columns.expert_items is not None:
        value = _field(row, columns.expert_items, where)
        if isinstance(value, list) and len(value) == len(rubric):  # scores in the rubric's order
            value = {c.id: v for c, v in zip(rubric, value, strict=True)}
        if not isinstance(value, dict) or set(value) != {c.id for c in rubric}:
            raise JudgebenchError(f"{where}: column '{columns.expert_items}' must give one score per rubric item ({', '.join(c.id for c in rubric)})")
        items = {}
        for c in rubric:
            points = _number(value[c.id], where, f"expert score of item '{c.id}'")
            if not 0 <= points <= c.max:
                raise JudgebenchError(f"{where}: expert score of item '{c.id}' is {points:g}, outside [0, {c.max:g}]")
            items[c.id] = points
    total = None
    if columns.expert_total is not None:
        total = _number(_field(row, columns.expert_total, where), where, f"column '{columns.expert_total}'")
    if total is None:
        total = sum(items.values()) if items else 0.0
    elif items is not None and abs(total - sum(items.values())) > TOLERANCE:
        raise JudgebenchError(f"{where}: expert total {total:g} is not the sum of the expert item scores ({sum(items.values()):g})")
    top = sum(c.max for c in rubric)
    if not 0 <= total <= top:
        raise JudgebenchError(f"{where}: expert total {total:g} is outside [0, {top:g}]")
    return items, total


def _response(columns: RubricColumns, row: dict[str, Any], where: str) -> GradedResponse:
    rubric = _rubric(columns, row, where)
    items, total = _expert(columns, row, rubric, where)
    optional = {}
    for name, cell in (("reference_answer", text_cell), ("solution", text_cell), ("group", name_cell), ("exam", name_cell)):
        column = getattr(columns, name)
        value = _field(row, column, where, required=False)
        optional[name] = None if value is None else cell(value, where, column)
    return GradedResponse(
        id=name_cell(_field(row, columns.id, where), where, columns.id, " (id)"),
        question=text_cell(_field(row, columns.question, where), where, columns.question),
        response=_response_text(_field(row, columns.response, where), where, columns.response),
        model=name_cell(_field(row, columns.model, where), where, columns.model),
        rubric=rubric,
        expert_items=items,
        expert_total=total,
        slices={c: name_cell(_field(row, c, where), where, c) for c in columns.slices},
        **optional,
    )
