"""Task definitions: YAML files validated by pydantic, found by name (bundled or --include-path).

A task maps a source's columns and label values onto judgebench's canonical
PairExample. Two layouts are supported without code changes:
  wide  one row per comparison; one label column per dimension
  long  one row per comparison and dimension; a dimension column names it
Loading a task's examples is in loading.py.
"""

from __future__ import annotations

import copy
import difflib
import functools
import re
from collections.abc import Iterable
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

from judgebench.core.catalogue import DEFAULT_HEADLINE, check_headline
from judgebench.core.errors import JudgebenchError
from judgebench.core.files import describe_validation_error, load_yaml, regular_text, why_not_a_file
from judgebench.core.names import is_prompt_template
from judgebench.core.records import DEFAULT_DIMENSION, Label, Verdict
from judgebench.core.resources import tasks_dir


LOCAL_BUILDERS = {".jsonl": "json", ".json": "json", ".parquet": "parquet", ".csv": "csv", ".tsv": "csv"}  # .tsv: sep=tab
TASK_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,99}")  # a task name (leaderboard, submit, freeze), never a path


def check_task_name(value: str) -> str:
    """A task's `name` (every kind's): one every command takes (leaderboard, submit and score read it back from a
    run's files: a dotted or non-ASCII one was run, then refused by them)."""
    if not TASK_NAME_RE.fullmatch(value):
        raise ValueError("a task name is ASCII letters, digits, '_' and '-' (not first), at most 100 characters")
    return value


class TaskModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DatasetSource(TaskModel):
    path: str  # Hub id (or a local path)
    name: str | None = Field(None, min_length=1)  # config name (never empty: '' read the default silently)
    split: str = "train"  # (a single file has no splits: a walkthrough's YAML was refused for leaving it out)
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


class VotesMapping(TaskModel):
    """Annotator-level votes (see vote_loading.py): the pair label is derived from them by `rule`.

    long  one row per vote; rows sharing columns.id are one pair (their texts must agree); `annotator`
          names the annotator column, `timestamp` and `shown_order` (AB/BA) optional columns
    list  each label column holds the pair's votes: a list of labels, or of {annotator, label[, timestamp]}
    columns  one column per annotator (`annotator_columns`: annotator id -> column; empty = no vote),
          single-dimension tasks
    """

    layout: Literal["long", "list", "columns"]
    annotator: str | None = None  # long: the annotator id column
    annotator_columns: dict[str, str] = Field(default_factory=dict)  # columns: annotator id -> its vote column
    timestamp: str | None = None  # long: optional
    shown_order: str | None = None  # long: optional, AB or BA
    rule: Literal["majority"] = "majority"  # votes.MAJORITY_RULE

    @model_validator(mode="after")
    def _annotator_for_long(self) -> VotesMapping:
        if self.layout == "long" and not self.annotator:
            raise ValueError("votes.layout long needs votes.annotator (the annotator id column)")
        if self.layout != "long" and (self.annotator or self.timestamp or self.shown_order):
            raise ValueError(f"votes.layout {self.layout} takes no annotator, timestamp or shown_order column")
        if (self.layout == "columns") != bool(self.annotator_columns):
            raise ValueError("votes.annotator_columns (annotator id -> column) goes with votes.layout columns, and only there")
        return self


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
    # Other published figures, shown as they are in `reported_<name>` columns (e.g. a human agreement
    # row's weighted kappa, or a range over dimensions such as "0.586-0.609").
    figures: dict[str, float | str] = Field(default_factory=dict)


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
    model_families: dict[str, str] = Field(default_factory=dict)  # model-name prefix -> family (selfpref.py)
    # Published human agreement figures (inter-annotator, self-consistency), shown as reported rows
    # beside the judge rows; their values go in `figures` (docs/guide/human-votes.md).
    human_reported: list[ReportedRow] = Field(default_factory=list)
    votes: VotesMapping | None = None  # annotator-level votes instead of one label per pair
    # where the labels come from: human preference votes, or objective gold answers (a correct response
    # known by construction); reports and plots call them "human labels" or "gold labels" accordingly
    label_source: Literal["human", "gold"] = "human"
    exclude_annotators: list[str] = Field(default_factory=list)  # votes by these are dropped (arena; recorded)
    source_file: str | None = Field(None, exclude=True)  # set by the loader, never a YAML key (refuse_loader_keys)

    @field_validator("labels", mode="before")
    @classmethod
    def _label_keys_as_text(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {str(key): label for key, label in value.items()}
        return value

    _known_headline = field_validator("headline")(check_headline)

    _a_name = field_validator("name")(check_task_name)

    @field_validator("verdicts")
    @classmethod
    def _verdicts_decisive(cls, value: list[str]) -> list[str]:
        if not {"A", "B"} <= set(value):
            raise ValueError("must contain A and B")
        return value

    @model_validator(mode="after")
    def _no_duplicates(self) -> TaskSpec:
        """A keyed list naming one key twice is refused at load: two dimensions of one name were each judged
        (twice the calls paid) and then counted once, so `score` and `report` refused the run afterwards."""
        keyed: list[tuple[str, list[Any]]] = [
            ("dimensions (name)", [d.name for d in self.dimensions]),
            ("dimensions (value)", [d.value for d in self.dimensions if d.value is not None]),
            ("verdicts", list(self.verdicts)),
            ("columns.slices", list(self.columns.slices)),
            ("reported (judge, source)", [(r.judge, r.source) for r in self.reported]),
            ("human_reported (judge, source)", [(r.judge, r.source) for r in self.human_reported]),
            ("exclude_annotators", list(self.exclude_annotators)),
        ]
        for what, keys in keyed:
            seen: set[Any] = set()
            for key in keys:
                if key in seen:
                    shown = " / ".join(map(str, key)) if isinstance(key, tuple) else str(key)
                    raise ValueError(f"{what}: '{shown}' is listed twice (each must be unique)")
                seen.add(key)
        return self

    @model_validator(mode="after")
    def _layout_consistent(self) -> TaskSpec:
        if self.layout == "long":
            if not self.columns.dimension or not self.columns.label:
                raise ValueError("layout long needs columns.dimension and columns.label")
            if not self.dimensions:
                raise ValueError("layout long needs dimensions (with value)")
        elif not self.dimensions and not self.columns.label and not (self.votes and self.votes.layout == "columns"):
            raise ValueError("columns.label is required when no dimensions are listed")
        for dim in self.dimensions:
            if self.layout == "wide" and not (dim.label_column or self.columns.label):
                raise ValueError(f"dimension {dim.name} needs label_column in layout wide")
        if self.votes is not None and self.layout != "wide":
            raise ValueError("votes need layout wide (one label column per dimension)")
        if self.votes is not None and self.votes.layout == "columns" and self.dimensions:
            raise ValueError("votes.layout columns is for single-dimension tasks (use long or list)")
        if self.dimension_mode == "joint" and not self.joint_prompt:
            raise ValueError("dimension_mode joint needs joint_prompt")
        return self

    @property
    def dimension_names(self) -> list[str]:
        return [d.name for d in self.dimensions] or [DEFAULT_DIMENSION]

    @property
    def folder(self) -> Path:
        return Path(self.source_file).parent if self.source_file else tasks_dir()

    def data_location(self) -> str:
        """Where dataset.path is (resolve_data_path): beside the task YAML, or a Hub id."""
        return resolve_data_path(self.dataset.path, self.source_file)


def resolve_data_path(path: str, task_file: str | None) -> str:
    """A task's `dataset.path`, every kind's: an absolute path as written; a relative one beside the task YAML (a
    frozen split copied elsewhere runs unchanged), never from the working folder (the same command read other data
    from another folder); else a Hub id. A relative path that is not beside the YAML but reads as local (a leading
    '.', a data file's suffix, or a path the working folder has) is an error naming the task file and where it
    looked. Without a task file (a spec built in Python) the path is used as written."""
    if Path(path).is_absolute() or not task_file:
        return path
    beside = Path(task_file).parent / path
    if beside.exists():
        return str(beside)
    if path.startswith(".") or Path(path).suffix.lower() in LOCAL_BUILDERS or Path(path).exists():
        raise JudgebenchError(f"{task_file}: dataset.path '{path}': no such file or folder beside the task YAML "
                              f"({beside}); a relative path resolves beside the task YAML, not the working folder")
    return path


# ----------------------------------------------------------------------------- registry


@functools.lru_cache(maxsize=64)
def _parsed_yaml(text: str) -> Any:
    """load_yaml, once per distinct text (board, leaderboard and submit read the same task files many times).

    Keyed by the text itself, so an edited file is parsed again; an error is raised each time, never cached."""
    return load_yaml(text)


DEFAULT_KIND = "pairwise"  # a task YAML without a `kind:` key (kinds/registry.py: every kind)


def read_task_yaml(path: Path) -> dict[str, Any]:
    """A task YAML's mapping (a copy: parsed once per text); errors name the file, and the line when known."""
    try:
        raw = copy.deepcopy(_parsed_yaml(regular_text(path)))  # parsed once per text
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
    return raw


def refuse_loader_keys(raw: dict[str, Any], path: Path) -> None:
    """`source_file` is the loader's (the file's own path), every kind's: a YAML giving it was accepted and the value
    copied into the run's task.yaml."""
    if "source_file" in raw:
        raise JudgebenchError(f"{path}: unknown key 'source_file' (judgebench sets it to the file's path)")


def task_kind_of(raw: dict[str, Any], default: str = DEFAULT_KIND) -> str:
    """The kind a task YAML names with its `kind:` key, else `default` (its folder's kind)."""
    kind = raw.get("kind", default)
    return kind if isinstance(kind, str) else repr(kind)


def load_task_file(path: Path) -> TaskSpec:
    """Parse and validate one task YAML; errors name the file and the key."""
    raw = read_task_yaml(path)
    kind = task_kind_of(raw)
    if kind == "rubric":  # pointwise rubric tasks: judgebench.kinds.rubric (docs/guide/rubric.md)
        raise JudgebenchError(f"{path}: a rubric task (kind: rubric); run it with `judgebench rubric run --task {path.stem}`")
    if kind != DEFAULT_KIND:  # another kind's task (kinds/registry.py); `judgebench tasks` lists it with its kind
        raise JudgebenchError(f"{path}: a task of kind {kind!r}, not a pairwise task (see `judgebench tasks`)")
    raw.pop("kind", None)  # `kind: pairwise` may be written out
    refuse_loader_keys(raw, path)
    try:
        spec = TaskSpec.model_validate(raw)
    except ValidationError as exc:
        raise JudgebenchError(f"{path}: {describe_validation_error(exc, TaskSpec)}") from None
    return spec.model_copy(update={"source_file": str(path)})


def _a_prompt_template(path: Path) -> bool:
    """Whether a YAML in a task folder is a prompt template (core.names.is_prompt_template), not a task. A file that
    cannot be read or parsed counts as a task, so loading it says what is wrong."""
    try:
        return is_prompt_template(read_task_yaml(path))
    except JudgebenchError:
        return False


def yaml_files(folders: Iterable[Path]) -> dict[str, Path]:
    """Task name (file stem) -> YAML path over the folders (*.yaml, then *.yml); a later folder overrides. A prompt
    template kept beside the tasks (only `user`, `system`, `name`, `description` keys) is not a task."""
    found: dict[str, Path] = {}
    for folder in folders:
        if not Path(folder).is_dir():
            raise JudgebenchError(f"--include-path {folder}: not a directory")
        for path in sorted(Path(folder).glob("*.yaml")) + sorted(Path(folder).glob("*.yml")):
            if not _a_prompt_template(path):
                found[path.stem] = path
    return found


def task_files(include_paths: Iterable[Path] = ()) -> dict[str, Path]:
    """Task name (file stem) -> YAML path; user folders (--include-path) override bundled ones."""
    return yaml_files([tasks_dir(), *include_paths])


def _other_kind_files(name: str) -> list[Path]:
    """The bundled task YAMLs of other kinds named `name` (they live in a folder per kind: tasks/rubric/)."""
    if not TASK_NAME_RE.fullmatch(name):
        return []
    return [path for folder in sorted(tasks_dir().iterdir()) if folder.is_dir()
            for path in (folder / f"{name}.yaml", folder / f"{name}.yml") if path.is_file()]


def get_task(name: str, include_paths: Iterable[Path] = ()) -> TaskSpec:
    """A task by name (bundled or in an --include-path folder) or by the path of its YAML file.

    Either way the YAML's `name` must equal the file's stem.
    """
    files = task_files(include_paths)
    path = files.get(name)
    if path is None:
        candidate = Path(name)
        if candidate.suffix in (".yaml", ".yml") and not candidate.is_file():  # a path: say what is wrong with it
            raise JudgebenchError(f"task {name}: {why_not_a_file(candidate)} (a task is a name from `judgebench tasks` "
                                  "or the path of a task YAML)")
        if candidate.suffix not in (".yaml", ".yml"):
            for other in _other_kind_files(name):  # a bundled task of another kind (rubric): load_task_file's pointer
                load_task_file(other)
            hint = difflib.get_close_matches(name, list(files), n=1)
            suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
            raise JudgebenchError(f"unknown task '{name}'{suggestion} (known tasks: {', '.join(sorted(files))})")
        path = candidate
    spec = load_task_file(path)
    if spec.name != path.stem:
        raise JudgebenchError(f"{path}: key 'name' is '{spec.name}' but the file is {path.name}")
    return spec


def describe_task(spec: TaskSpec) -> dict[str, str]:
    """One line of facts about a task, for `judgebench tasks` (kinds/registry.py adds its kind)."""
    return {
        "name": spec.name,
        "version": spec.version,
        "dataset": f"{spec.dataset.path}:{spec.dataset.split}@{spec.dataset.revision or 'unpinned'}",
        "dimensions": ",".join(spec.dimension_names),
        "verdicts": "/".join(spec.verdicts),
        "demo": "yes" if spec.demo else "no",
        "file": str(spec.source_file),
    }


def describe_tasks(include_paths: Iterable[Path] = ()) -> list[dict[str, str]]:
    """One line of facts per pairwise task (every kind's: kinds.registry.list_tasks)."""
    return [{**describe_task(load_task_file(path)), "name": name} for name, path in task_files(include_paths).items()]


def run_task_spec(run_dir: Path, task: str, include_paths: list[Path]) -> TaskSpec:
    """The run's task: installed or in --include-path, else the run's own copy (task.yaml). A run names its task
    (a run of `--tasks FILE.yaml` records the YAML's name): a path written in its files is never loaded (an outside
    attack had `score`, `report` and `export` load a task YAML from anywhere by editing results.json)."""
    from judgebench.core.rundir import TASK_FILE

    if not TASK_NAME_RE.fullmatch(task):
        raise JudgebenchError(f"{run_dir}: task {task[:80]!r} is not a task name (letters, digits, _ and -); "
                              "a run's files name their task, never a path")
    yaml_files(include_paths)  # a missing --include-path is an error, not a fall back to the run's copy (it was silent)
    try:
        spec = get_task(task, include_paths)
    except JudgebenchError:
        copy = run_dir / TASK_FILE
        if not copy.is_file():
            raise
        spec = load_task_file(copy)
        if spec.name != task:
            raise JudgebenchError(f"{copy}: key 'name' is '{spec.name}' but the run is of task {task}") from None
        return spec
    check_run_copy(spec, run_dir, include_paths)
    return spec


# What decides a run's figures and the rows beside them: a task of the same name differing only elsewhere (its
# description, the papers' reported rows, a model family, the demo, a data commit pinned later) is the same task, so
# a release that adds a published row does not make every earlier run of it unreadable.
_DEFINING = {"name", "layout", "columns", "labels", "verdicts", "dimensions", "dimension_mode", "headline", "both_bad",
             "votes", "label_source", "exclude_annotators"}


def _definition(spec: TaskSpec) -> dict[str, Any]:
    data = spec.dataset
    return {**spec.model_dump(include=_DEFINING), "data": (data.path, data.name, data.split)}


def check_run_copy(spec: TaskSpec, run_dir: Path, include_paths: Iterable[Path]) -> None:
    """Refuse to read a run by a bundled task that is not the one it was made with: a user's task of a bundled task's
    name (from --include-path, or a YAML path) was scored by the bundled definition when the folder was not given
    again (another headline, the paper's rows). The run's task.yaml copy must define what the bundled one does; a
    task found in an --include-path folder is the caller's choice and is not compared, nor is a copy that no longer
    loads (a run of an older version's task). Compared: what decides the figures (`_DEFINING`, and the data's
    path, config and split)."""
    from judgebench.core.rundir import TASK_FILE

    copy = run_dir / TASK_FILE
    if spec.name in yaml_files(include_paths) or not copy.is_file():
        return
    try:
        made_with = load_task_file(copy)
    except JudgebenchError:
        return
    if _definition(made_with) != _definition(spec):
        raise JudgebenchError(
            f"{run_dir}: the run was made with another definition of task {spec.name} than {spec.source_file} "
            f"(its {TASK_FILE} differs); pass --include-path with the folder of the task it was made with (or with "
            f"{Path(str(spec.source_file)).parent} to read it by the installed one)")
