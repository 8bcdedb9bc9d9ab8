"""One registry of task kinds: kind name -> its TaskKind (kinds/base.py), and every task of every kind.

A task YAML's kind is its `kind:` key; without one, the kind whose bundled folder holds it (tasks/ is
pairwise, tasks/rubric/ rubric), and pairwise in an --include-path folder (which may hold tasks of every kind).

    list_tasks(include_paths)      every task of every kind (`judgebench tasks`)
    resolve_task(name, ...)        a task name or YAML path -> (its kind, its YAML)
    run(request)                   a JobRequest run by its task's kind
    kind_of_run(run_dir)           the kind whose run a folder holds

Pairwise and rubric register here; a new kind registers itself with `register` (docs/design/task-kinds.md).
Listing imports no heavy module: each kind imports its steps when they run.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from judgebench.core.errors import JudgebenchError
from judgebench.kinds.base import TaskEntry, TaskKind, missing_members
from judgebench.kinds.pairwise import PAIRWISE
from judgebench.kinds.rubric.kind import RUBRIC
from judgebench.tasks.registry import DEFAULT_KIND, read_task_yaml, task_kind_of

_KINDS: dict[str, TaskKind] = {}


def register(kind: TaskKind) -> TaskKind:
    """Add a kind (its `name` must be new); returned, so a module can keep it."""
    missing = missing_members(kind)
    if missing:
        raise TypeError(f"{kind!r} is not a TaskKind (missing: {', '.join(missing)})")
    if _KINDS.get(kind.name, kind) is not kind:
        raise JudgebenchError(f"task kind {kind.name!r} is registered already")
    _KINDS[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    """Remove a kind (a test's throwaway kind); the built-in ones stay."""
    if name in (PAIRWISE.name, RUBRIC.name):
        raise JudgebenchError(f"task kind {name!r} is built in")
    _KINDS.pop(name, None)


def kinds() -> list[TaskKind]:
    """Every registered kind, pairwise first."""
    return list(_KINDS.values())


def get_kind(name: str) -> TaskKind:
    kind = _KINDS.get(name)
    if kind is None:
        raise JudgebenchError(f"unknown task kind {name!r} (kinds: {', '.join(_KINDS)})")
    return kind


def _folder_kinds() -> dict[Path, str]:
    """Each kind's bundled folder -> its name: the kind of a YAML there without a `kind:` key."""
    return {kind.bundled_folder().resolve(): kind.name for kind in _KINDS.values()}


def file_kind(path: Path, folder_kinds: dict[Path, str] | None = None) -> str:
    """The kind of one task YAML: its `kind:` key, else its bundled folder's kind, else pairwise."""
    folders = _folder_kinds() if folder_kinds is None else folder_kinds
    return task_kind_of(read_task_yaml(path), folders.get(path.parent.resolve(), DEFAULT_KIND))


def _kinds_of_files(include: list[Path]) -> dict[Path, str]:
    """Every task YAML any kind sees -> its kind; a YAML naming no registered kind is an error naming it."""
    folders = _folder_kinds()
    found: dict[Path, str] = {}
    for kind in _KINDS.values():
        for path in kind.task_files(include).values():
            if path not in found:
                found[path] = file_kind(path, folders)
                if found[path] not in _KINDS:
                    raise JudgebenchError(f"{path}: unknown task kind {found[path]!r} (kinds: {', '.join(_KINDS)})")
    return found


def own_task_files(kind: TaskKind, include: list[Path], of_file: dict[Path, str] | None = None) -> dict[str, Path]:
    """Task name -> YAML of one kind's tasks alone: another kind's task in a shared --include-path folder is
    skipped (`judgebench tasks` and `judgebench rubric tasks` list each kind's own)."""
    kinds_of = _kinds_of_files(include) if of_file is None else of_file
    return {name: path for name, path in kind.task_files(include).items() if kinds_of[path] == kind.name}


def list_tasks(include_paths: Iterable[Path] = ()) -> list[TaskEntry]:
    """Every task of every kind (kinds in registration order, each kind's tasks in its own order); a YAML in a
    shared folder is listed only by its own kind. A bad YAML is an error naming the file and the key."""
    include = [Path(p) for p in include_paths]
    of_file = _kinds_of_files(include)
    entries = []
    for kind in _KINDS.values():
        for name, path in own_task_files(kind, include, of_file).items():
            facts = kind.describe(kind.load_task(path))
            entries.append(TaskEntry(name, kind.name, facts.get("version", "-"), path, facts))
    return entries


def resolve_task(name: str, include_paths: Iterable[Path] = ()) -> tuple[TaskKind, Path]:
    """A task name (bundled or in an --include-path folder) or a task YAML's path -> (its kind, its YAML)."""
    include = [Path(p) for p in include_paths]
    of_file = _kinds_of_files(include)
    found = []
    for kind in _KINDS.values():
        path = kind.task_files(include).get(name)
        if path is not None and of_file[path] == kind.name:
            found.append((kind, path))
    if len(found) > 1:
        named = "; ".join(f"{kind.name}: {path} (`{kind.command} {name}`)" for kind, path in found)
        raise JudgebenchError(f"task '{name}' is a task of {len(found)} kinds: {named}")
    if found:
        return found[0]
    candidate = Path(name)
    if candidate.suffix in (".yaml", ".yml") and candidate.is_file():
        return get_kind(file_kind(candidate)), candidate
    known = sorted({path.stem for path, kind in of_file.items()})
    hint = difflib.get_close_matches(name, known, n=1)
    suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
    raise JudgebenchError(f"unknown task '{name}'{suggestion} (known tasks: {', '.join(known)})")


def kind_of_task(name: str, include_paths: Iterable[Path] = ()) -> TaskKind:
    return resolve_task(name, include_paths)[0]


def get_task(name: str, include_paths: Iterable[Path] = ()) -> tuple[TaskKind, Any]:
    """(its kind, its validated spec) of a task name or YAML path, whatever its kind."""
    kind = kind_of_task(name, include_paths)
    return kind, kind.get_task(name, include_paths)


def run(request: Any) -> Any:
    """Run a JobRequest (or a kind's own request) with its task's kind: that kind's summary."""
    return kind_of_task(request.task, request.include_paths).run(request)


def kind_of_run(run_dir: Path) -> TaskKind | None:
    """The kind whose run a folder holds (by its results.json), or None."""
    return next((kind for kind in _KINDS.values() if kind.is_run(Path(run_dir))), None)


register(PAIRWISE)
register(RUBRIC)
