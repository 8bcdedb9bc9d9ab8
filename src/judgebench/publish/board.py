"""What a leaderboard folder holds, and the only places submit reads or writes in it.

LEADERBOARD_DIR/
  tasks/*.yaml      tasks registered on this board (a registered task wins over an installed one)
  prompts/*.yaml    prompt templates registered on this board
  entries/<task>/<entry>/  accepted runs (results.json, samples.jsonl, submission.json)
  <task>.md/.csv/.json, index.html   the tables, rebuilt by code from the entries

Task names are names, never paths; every path written is resolved and must stay under the board.
"""

from __future__ import annotations

from pathlib import Path

from judgebench.core.errors import JudgebenchError, Rejected
from judgebench.core.files import is_inside, read_model_json
from judgebench.core.records import RunResult
from judgebench.core.resources import prompts_dir
from judgebench.judging.prompts import template_files
from judgebench.tasks.registry import TASK_NAME_RE, TaskSpec, load_task_file, task_files

ENTRIES = "entries"
TASKS_DIR = "tasks"
PROMPTS_DIR = "prompts"
SUBMISSION_FILE = "submission.json"


def registered_task(name: str, leaderboard_dir: Path | None) -> TaskSpec:
    """A task by name from the installed tasks and LEADERBOARD_DIR/tasks/; never a path, never the run's copy."""
    if not TASK_NAME_RE.fullmatch(name):
        raise Rejected("task", f"task {name[:80]!r} is not a task name (letters, digits, _ and -): submit never loads a task by path")
    folder = leaderboard_dir / TASKS_DIR if leaderboard_dir is not None else None
    files = task_files([folder] if folder is not None and folder.is_dir() else [])
    if name not in files:
        where = f"installed or in {folder}" if folder is not None else "installed"
        raise Rejected("task", f"unknown task '{name}' (registered tasks, {where}: {', '.join(sorted(files))})")
    try:
        spec = load_task_file(files[name])
    except JudgebenchError as exc:
        raise Rejected("task", str(exc)) from None
    if spec.name != name:
        raise Rejected("task", f"{files[name]}: key 'name' is '{spec.name}' but the file is {name}.yaml")
    return spec


def registered_templates(spec: TaskSpec, leaderboard_dir: Path | None) -> list[Path]:
    """Template files submit may load: installed prompts/, LEADERBOARD_DIR/prompts/, the task's own."""
    found: list[Path] = []
    folders = [prompts_dir()] + ([leaderboard_dir / PROMPTS_DIR] if leaderboard_dir is not None else [])
    for folder in folders:
        if folder.is_dir():
            found += sorted(folder.glob("*.yaml")) + sorted(folder.glob("*.yml"))
    for name in filter(None, [spec.prompt, spec.joint_prompt]):
        # the task is registered: its own references are trusted, found as find_prompt finds them
        path = next((folder / file for file in template_files(name) for folder in (spec.folder, prompts_dir())
                     if (folder / file).is_file() and is_inside(folder / file, folder)), None)
        if path is not None:
            found.append(path)
    return list(dict.fromkeys(path.resolve() for path in found))


def known_results(leaderboard_dir: Path, task: str) -> list[RunResult]:
    """Accepted results of a task (unreadable entries are skipped: the tables report them)."""
    return [result for _, result in entries(leaderboard_dir, task)]


def entries(leaderboard_dir: Path, task: str) -> list[tuple[Path, RunResult]]:
    folder = leaderboard_dir / ENTRIES / task
    found = []
    for path in sorted(folder.glob("*/results.json")):
        try:
            found.append((path.parent, read_model_json(path, RunResult)))
        except JudgebenchError:
            continue
    return found


def safe_path(path: Path, root: Path) -> Path:
    """The path, if it resolves (symlinks followed) under root; otherwise the submission is refused."""
    if not is_inside(path, root):
        raise Rejected("storage", f"{path} resolves outside the leaderboard directory {root}")
    return path


def managed_board(folder: Path) -> Path | None:
    """The submit-managed leaderboard `folder` is or lies in, if any.

    `folder` itself holding entries/ counts; so does any ancestor whose entries/ holds an accepted
    entry (entries/<task>/<entry>/submission.json): `DIR/entries`, `DIR/entries/x` or `DIR/tasks`
    is inside a board.
    """
    resolved = folder.resolve()
    if (resolved / ENTRIES).is_dir():
        return resolved
    for parent in resolved.parents:
        if (parent / ENTRIES).is_dir() and any((parent / ENTRIES).glob(f"*/*/{SUBMISSION_FILE}")):
            return parent
    return None
