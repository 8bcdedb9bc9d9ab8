"""Issue 27 items 3 and 4: a keyed list naming one key twice, or a task named twice, is refused before any call."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from judgebench.cli.main import main
from judgebench.tasks.registry import tasks_dir

TASK = tasks_dir() / "sciarena_eval.yaml"


def task_with(tmp_path: Path, edit) -> Path:
    raw = yaml.safe_load(TASK.read_text())
    edit(raw)
    raw["demo"]["path"] = str((TASK.parent / raw["demo"]["path"]).resolve())
    raw["prompt"] = str((TASK.parent / "prompts" / raw["prompt"]).resolve()) if not Path(raw["prompt"]).is_absolute() else raw["prompt"]
    folder = tmp_path / "tasks"
    folder.mkdir(exist_ok=True)
    path = folder / "dup_task.yaml"
    path.write_text(yaml.safe_dump({**raw, "name": "dup_task"}))
    return path


def two_dimensions(raw: dict) -> None:
    label = raw["columns"].pop("label", None) or "label"
    raw["dimensions"] = [{"name": "overall", "label_column": label}, {"name": "overall", "label_column": label}]


def run(tmp_path: Path, path: Path, capsys) -> tuple[int, str]:
    code = main(["run", "--tasks", str(path), "--judge", "builtin/longer", "--demo", "--output-path",
                 str(tmp_path / "out"), "--quiet"])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("edit, words", [
    (two_dimensions, "dimensions (name): 'overall' is listed twice"),
    (lambda raw: raw.__setitem__("verdicts", [*raw["verdicts"], "A"]), "verdicts: 'A' is listed twice"),
    (lambda raw: raw["columns"].__setitem__("slices", ["x", "x"]), "columns.slices: 'x' is listed twice"),
])
def test_duplicate_keys_in_task_yaml_refused(tmp_path, capsys, edit, words):
    path = task_with(tmp_path, edit)
    code, err = run(tmp_path, path, capsys)
    assert code == 2 and words in err and str(path) in err and err.count("\n") == 1, err
    assert not (tmp_path / "out").exists()


def test_task_named_twice_refused(tmp_path, capsys):
    for spec in ("sciarena_eval,sciarena_eval", f"sciarena_eval, {TASK},{TASK}"):
        code = main(["run", "--tasks", spec, "--judge", "builtin/longer", "--demo", "--output-path",
                     str(tmp_path / "out"), "--quiet"])
        err = capsys.readouterr().err
        assert code == 2 and "--tasks" in err and "named twice" in err, err
        assert not (tmp_path / "out").exists()
