"""The task-kind protocol: what every kind of task (pairwise, rubric, a future one) answers.

A kind finds and lists its task specs, then takes one task through the same steps:

    plan      the task, its data, the prompt and every judge request, before any call
    assemble  the judge's replies to the plan's requests -> the kind's records (one per judgment)
    score     records -> the kind's results (what results.json holds)
    run       the whole job (plan, calls, assemble, score, write the run directory) as its command runs it
    board     results files -> leaderboard rows per task
    verify    a run directory re-checked from its raw replies (what submit does before storing it)

Each kind is one object registered in kinds/registry.py (pairwise: kinds/pairwise.py, rubric:
kinds/rubric/kind.py); docs/design/task-kinds.md tells how to add one. This module imports nothing heavy:
`judgebench tasks` reads the registry on every call.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from judgebench.core.records import JudgeReply, JudgeRequest
    from judgebench.judging.prompts import PromptTemplate
    from judgebench.tasks.request import JobRequest

# The columns of `judgebench tasks`, in order; a kind's `describe` fills those it has ("-" for the others).
TASK_COLUMNS = ["name", "kind", "version", "dimensions", "verdicts", "demo", "dataset", "file"]


@dataclass
class Plan:
    """What a run of one task would send, before any call: a kind's `plan` step."""

    kind: str
    spec: Any  # the kind's task spec (pairwise TaskSpec, RubricTaskSpec, ...)
    items: list[Any]  # the loaded data: pair examples, graded responses, ...
    template: PromptTemplate | None
    requests: list[JudgeRequest]  # every judge call, in the order the replies come back
    extra: dict[str, Any] = field(default_factory=dict)  # the kind's own facts (mode, repeats, targets, ...)


@dataclass(frozen=True)
class TaskEntry:
    """One task of one kind, as the registry lists it (`judgebench tasks`)."""

    name: str
    kind: str
    version: str
    file: Path
    facts: dict[str, str]  # the kind's describe(spec): the columns of TASK_COLUMNS it has

    def row(self) -> dict[str, str]:
        return {column: self.facts.get(column, "-") for column in TASK_COLUMNS} | {
            "name": self.name, "kind": self.kind, "version": self.version, "file": str(self.file)}


@runtime_checkable
class TaskKind(Protocol):
    """One kind of task. Implementations delegate to their own modules and import them when a step runs."""

    name: str  # the `kind:` key of its task YAMLs ("pairwise" is also the default of a YAML without one)
    command: str  # how its tasks are run from the command line, e.g. "judgebench run --tasks"

    # ---- its task specs
    def bundled_folder(self) -> Path:
        """The folder of its bundled task YAMLs (a YAML there without a `kind:` key is of this kind)."""
        ...

    def task_files(self, include_paths: Iterable[Path] = ()) -> dict[str, Path]:
        """Task name -> YAML over its bundled folder and the --include-path folders (which hold every kind)."""
        ...

    def load_task(self, path: Path) -> Any:
        """One task YAML of this kind, validated (errors name the file and the key)."""
        ...

    def get_task(self, name: str, include_paths: Iterable[Path] = ()) -> Any:
        """A task by name, as its command finds it."""
        ...

    def describe(self, spec: Any) -> dict[str, str]:
        """The task's facts for `judgebench tasks`: keys among base.TASK_COLUMNS, "version" among them."""
        ...

    # ---- the job: plan -> assemble -> score (run does all of it and writes the run directory)
    def plan(self, request: JobRequest) -> Plan:
        ...

    def assemble(self, plan: Plan, judge_id: str, replies: Sequence[JudgeReply | None]) -> list[Any]:
        ...

    def score(self, plan: Plan, records: list[Any], config: Any) -> Any:
        ...

    def run(self, request: JobRequest) -> Any:
        ...

    # ---- its runs: read, board rows, verify
    def is_run(self, run_dir: Path) -> bool:
        """Whether a folder holds a run of this kind (its results.json)."""
        ...

    def read_run(self, run_dir: Path) -> tuple[Any, list[Any]]:
        """(results, records) of one of its run directories."""
        ...

    def board_rows(self, results: Sequence[Path], include_paths: Sequence[Path] = ()) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
        """(task -> leaderboard rows, warnings) from results files; an unusable one is a warning."""
        ...

    def verify(self, run_dir: Path, include_paths: Sequence[Path] = (), **options: Any) -> tuple[Any, list[Any]]:
        """(results, records) of a run that passed every check; raises Rejected naming the first failure."""
        ...


def as_request(request: JobRequest, cls: type[Any]) -> Any:
    """A kind's own request type from a shared JobRequest: the shared fields kept, the kind's own options at their
    defaults (a request of that type already is returned as it is)."""
    import dataclasses

    from judgebench.tasks.request import JobRequest

    if isinstance(request, cls):
        return request
    shared = {f.name: getattr(request, f.name) for f in dataclasses.fields(JobRequest) if f.init}
    return cls(**shared)


def results_kind(run_dir: Path) -> str | None:
    """The `config.kind` a folder's results.json names ("run" when it names none), or None when there is no
    readable results.json: how each kind's `is_run` tells its runs apart without reading them whole."""
    import json

    from judgebench.core.files import regular_text
    from judgebench.core.rundir import RESULTS_FILE

    try:
        data = json.loads(regular_text(run_dir / RESULTS_FILE))
    except (OSError, ValueError, RecursionError):  # (nested thousands deep: the kind's own reader says why)
        return None
    if not isinstance(data, dict) or not isinstance(data.get("config"), dict):
        return None
    kind = data["config"].get("kind", "run")
    return kind if isinstance(kind, str) else None


def missing_members(kind: object) -> list[str]:
    """The protocol's members an object lacks (empty: it is a TaskKind; isinstance checks the same names)."""
    members = [*TaskKind.__annotations__, *(m for m in vars(TaskKind) if not m.startswith("_") and callable(vars(TaskKind)[m]))]
    return [m for m in dict.fromkeys(members) if not hasattr(kind, m)]
