"""One task-kind protocol (issue 26, item 2): pairwise and rubric behind one registry and the same steps
(plan -> assemble -> score -> board rows -> verify), and a third kind that needs only its own module."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

from judgebench.calls import RunnerOptions, run_requests
from judgebench.cli.main import main
from judgebench.core.errors import JudgebenchError
from judgebench.judges import make_judge
from judgebench.judging.judgments import parses_fully
from judgebench.judging.pipeline import RunRequest
from judgebench.kinds import registry
from judgebench.kinds.base import (
    TASK_COLUMNS,
    Plan,
    TaskKind,
    as_request,
    missing_members,
    results_kind,
)
from judgebench.kinds.pairwise import PAIRWISE
from judgebench.kinds.rubric.judges import make_rubric_judge
from judgebench.kinds.rubric.judging import reply_accepted
from judgebench.kinds.rubric.kind import RUBRIC
from judgebench.kinds.rubric.run import RubricRunRequest
from judgebench.tasks.registry import get_task, read_task_yaml, yaml_files
from judgebench.tasks.request import JobRequest

QUIET = RunnerOptions(progress=False, use_cache=False)


def _table(capsys) -> list[dict[str, str]]:
    """`judgebench tasks` stdout as rows (columns split on runs of two or more spaces)."""
    import re

    lines = capsys.readouterr().out.splitlines()
    header = re.split(r"\s{2,}", lines[0].strip())
    return [dict(zip(header, re.split(r"\s{2,}", line.strip()), strict=True)) for line in lines[1:]]


# ----------------------------------------------------------------------------- the two kinds


def test_pairwise_and_rubric_satisfy_the_protocol_and_are_registered():
    for kind in (PAIRWISE, RUBRIC):
        assert isinstance(kind, TaskKind) and missing_members(kind) == []
        assert registry.get_kind(kind.name) is kind
    assert [k.name for k in registry.kinds()][:2] == ["pairwise", "rubric"]
    assert missing_members(object())[:3] == ["name", "command", "bundled_folder"]
    with pytest.raises(JudgebenchError, match="unknown task kind 'nope'"):
        registry.get_kind("nope")


def test_the_registry_lists_every_task_of_every_kind():
    entries = {(e.name, e.kind): e for e in registry.list_tasks()}
    assert ("sciarena_eval", "pairwise") in entries and ("rubric_demo", "rubric") in entries
    assert entries[("rubric_demo", "rubric")].file == RUBRIC.bundled_folder() / "rubric_demo.yaml"
    assert set(entries[("rubric_demo", "rubric")].row()) == set(TASK_COLUMNS)
    kind, path = registry.resolve_task("rubric_demo")
    assert kind is RUBRIC and path.name == "rubric_demo.yaml"
    assert registry.kind_of_task("sciarena_eval") is PAIRWISE
    assert registry.kind_of_task(str(path)) is RUBRIC  # a YAML path: its `kind:` key
    kind, spec = registry.get_task("sciarena_eval")
    assert kind is PAIRWISE and spec == get_task("sciarena_eval")
    with pytest.raises(JudgebenchError, match="unknown task 'rubric_dem'; did you mean 'rubric_demo'"):
        registry.resolve_task("rubric_dem")


def test_judgebench_tasks_shows_rubric_demo_with_kind_rubric(capsys):
    assert main(["tasks"]) == 0
    rows = {row["name"]: row for row in _table(capsys)}
    assert list(next(iter(rows.values()))) == TASK_COLUMNS
    assert rows["rubric_demo"]["kind"] == "rubric" and rows["rubric_demo"]["demo"] == "yes"
    assert rows["sciarena_eval"]["kind"] == "pairwise" and rows["sciarena_eval"]["verdicts"] == "A/B"


def test_an_include_folder_holds_tasks_of_both_kinds(tmp_path, capsys):
    examples = Path(__file__).resolve().parents[2] / "docs" / "examples"
    folder = tmp_path / "mixed"
    folder.mkdir()
    for source in (examples / "llmeval2_pairwise.yaml", examples / "rubric" / "lab_quiz.yaml"):
        (folder / source.name).write_text(source.read_text())
    assert main(["tasks", "--include-path", str(folder)]) == 0
    rows = {row["name"]: row["kind"] for row in _table(capsys)}
    assert rows["llmeval2_pairwise"] == "pairwise" and rows["lab_quiz"] == "rubric"
    assert registry.kind_of_task("lab_quiz", [folder]) is RUBRIC
    (folder / "odd.yaml").write_text("kind: multiturn\nname: odd\n")
    with pytest.raises(JudgebenchError, match=r"odd.yaml: unknown task kind 'multiturn' \(kinds: pairwise, rubric"):
        registry.list_tasks([folder])


def test_rubric_tasks_lists_the_rubric_tasks_of_a_mixed_folder_and_skips_the_others(tmp_path, capsys):
    """`rubric tasks --include-path` on a folder that also holds a pairwise task refused it ("key 'kind' must be
    'rubric'"); a folder may hold tasks of every kind, and each listing lists its own kind's."""
    examples = Path(__file__).resolve().parents[2] / "docs" / "examples"
    folder = tmp_path / "mixed"
    folder.mkdir()
    for source in (examples / "llmeval2_pairwise.yaml", examples / "rubric" / "lab_quiz.yaml"):
        (folder / source.name).write_text(source.read_text())
    assert main(["rubric", "tasks", "--include-path", str(folder)]) == 0
    names = [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()]
    assert names == ["lab_quiz", "rubric_demo"]


def test_the_steps_give_the_figures_the_run_wrote(tmp_path):
    """plan -> (the built-in judge's replies) -> assemble -> score reproduces each kind's own run."""
    pairwise = RunRequest(task="sciarena_eval", judge="builtin/longer", output_path=tmp_path / "p", demo=True,
                          limit=30, n_resamples=200, runner=QUIET)
    rubric = RubricRunRequest(task="rubric_demo", judge="builtin/full-credit", output_path=tmp_path / "r", demo=True,
                              n_resamples=200, runner=RunnerOptions(progress=False, use_cache=False, reask=6))
    cases = [(PAIRWISE, pairwise, make_judge("builtin/longer", {}), parses_fully),
             (RUBRIC, rubric, make_rubric_judge("builtin/full-credit", {}), reply_accepted)]
    for kind, request, judge, accepted in cases:
        summary = registry.run(request)  # dispatched by the task's kind
        assert registry.kind_of_run(request.output_path) is kind and kind.is_run(request.output_path)
        written, _ = kind.read_run(request.output_path)
        plan = kind.plan(request)
        assert isinstance(plan, Plan) and plan.kind == kind.name and plan.requests
        replies = run_requests(plan.requests, judge, QUIET, accepted).replies
        records = kind.assemble(plan, judge.id, replies)
        again = kind.score(plan, records, written.config)
        assert again.metrics == written.metrics == summary.result.metrics
        assert again.counts == written.counts


def test_board_rows_and_verify_for_both_kinds(tmp_path):
    runs = {}
    for kind, request in ((PAIRWISE, RunRequest(task="sciarena_eval", judge="builtin/longer", output_path=tmp_path / "p",
                                                demo=True, runner=QUIET)),
                          (RUBRIC, RubricRunRequest(task="rubric_demo", judge="builtin/full-credit",
                                                    output_path=tmp_path / "r", demo=True, runner=QUIET))):
        kind.run(request)
        runs[kind.name] = request.output_path
    tables, warnings = PAIRWISE.board_rows([runs["pairwise"]])
    assert not warnings and any(row["judge"] == "builtin/longer" for row in tables["sciarena_eval"])
    tables, warnings = RUBRIC.board_rows([runs["rubric"]])
    assert not warnings and [row["judge"] for row in tables["rubric_demo"]] == ["builtin/full-credit"]
    result, records = PAIRWISE.verify(runs["pairwise"], min_coverage=0.0)
    assert result.config.task == "sciarena_eval" and records
    result, records = RUBRIC.verify(runs["rubric"])
    assert result.config.task == "rubric_demo" and records
    with pytest.raises(JudgebenchError, match="never an --include-path"):
        PAIRWISE.verify(runs["pairwise"], [tmp_path])
    assert results_kind(runs["rubric"]) == "rubric" and results_kind(tmp_path) is None


# ----------------------------------------------------------------------------- the shared request


def test_both_requests_extend_one_job_request_and_add_only_their_own_options():
    shared = {f.name for f in dataclasses.fields(JobRequest)}
    for cls, own in ((RunRequest, {"split", "revision", "swap", "dimension_mode", "both_bad", "runner", "log_text", "judge_unlabelled",
                                   "shard", "judge_object"}),
                     (RubricRunRequest, {"within_k", "runner"})):
        assert issubclass(cls, JobRequest)
        assert {f.name for f in dataclasses.fields(cls)} - shared == own
        assert not set(cls.__dict__.get("__annotations__", {})) & shared  # none repeated
    out = Path("o")
    with pytest.raises(JudgebenchError, match=r"repeats \(--repeats\): must be between 1 and 100, got 0"):
        RunRequest(task="t", judge="j", output_path=out, repeats=0)
    with pytest.raises(JudgebenchError, match=r"repeats \(--repeats\): must be >= 1, got 0"):
        RubricRunRequest(task="t", judge="j", output_path=out, repeats=0)
    RubricRunRequest(task="t", judge="j", output_path=out, repeats=500)  # rubric sets no upper bound
    base = JobRequest(task="sciarena_eval", judge="builtin/longer", output_path=out, demo=True, limit=3, seed=7)
    run = as_request(base, RunRequest)
    assert isinstance(run, RunRequest) and (run.limit, run.seed, run.demo, run.swap) == (3, 7, True, True)
    assert as_request(run, RunRequest) is run


# ----------------------------------------------------------------------------- a third kind, in this module only


class EchoKind:
    """A throwaway kind: each line of its data is an item, the "judge" echoes it, the score is the mean length."""

    name = "echo"
    command = "python -c 'registry.run(...)'"

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def bundled_folder(self) -> Path:
        return self.folder

    def task_files(self, include_paths: Iterable[Path] = ()) -> dict[str, Path]:
        return yaml_files([self.folder, *include_paths])

    def load_task(self, path: Path) -> dict[str, Any]:
        return {**read_task_yaml(path), "version": "0", "source_file": str(path)}

    def get_task(self, name: str, include_paths: Iterable[Path] = ()) -> dict[str, Any]:
        return self.load_task(self.task_files(include_paths)[name])

    def describe(self, spec: Any) -> dict[str, str]:
        return {"version": spec["version"], "dataset": spec["data"], "demo": "no"}

    def plan(self, request: JobRequest) -> Plan:
        spec = self.get_task(request.task, request.include_paths)
        lines = (Path(spec["source_file"]).parent / spec["data"]).read_text().splitlines()
        return Plan(self.name, spec, lines[: request.limit], None, [])

    def assemble(self, plan: Plan, judge_id: str, replies: Sequence[Any]) -> list[dict[str, Any]]:
        return [{"item": item, "judge": judge_id, "reply": reply} for item, reply in zip(plan.items, replies, strict=True)]

    def score(self, plan: Plan, records: list[dict[str, Any]], config: Any) -> dict[str, Any]:
        return {"config": config, "mean_length": sum(len(r["reply"]) for r in records) / len(records)}

    def run(self, request: JobRequest) -> dict[str, Any]:
        plan = self.plan(request)
        records = self.assemble(plan, request.judge, list(plan.items))  # the echo judge
        result = self.score(plan, records, {"kind": self.name, "task": request.task})
        request.output_path.mkdir(parents=True)
        (request.output_path / "results.json").write_text(json.dumps(result))
        return result

    def is_run(self, run_dir: Path) -> bool:
        return results_kind(run_dir) == self.name

    def read_run(self, run_dir: Path) -> tuple[dict[str, Any], list[Any]]:
        return json.loads((run_dir / "results.json").read_text()), []

    def board_rows(self, results: Sequence[Path], include_paths: Sequence[Path] = ()) -> tuple[dict, list[str]]:
        rows = [self.read_run(Path(p))[0] for p in results]
        return {r["config"]["task"]: [{"judge": "echo", "mean_length": r["mean_length"]}] for r in rows}, []

    def verify(self, run_dir: Path, include_paths: Sequence[Path] = (), **options: Any) -> tuple[Any, list[Any]]:
        return self.read_run(run_dir)


@pytest.fixture
def echo(tmp_path):
    folder = tmp_path / "echo_tasks"
    folder.mkdir()
    (folder / "lines.txt").write_text("a\nbbb\nccccc\n")
    (folder / "echo_demo.yaml").write_text("kind: echo\nname: echo_demo\ndata: lines.txt\n")
    kind = registry.register(EchoKind(folder))
    yield kind
    registry.unregister("echo")


def test_a_third_kind_is_listed_and_dispatched_with_only_its_own_module(echo, tmp_path, capsys):
    assert isinstance(echo, TaskKind) and registry.get_kind("echo") is echo
    assert main(["tasks"]) == 0
    rows = {row["name"]: row for row in _table(capsys)}
    assert rows["echo_demo"]["kind"] == "echo" and rows["echo_demo"]["dataset"] == "lines.txt"
    assert rows["echo_demo"]["version"] == "0" and rows["echo_demo"]["verdicts"] == "-" and rows["rubric_demo"]["kind"] == "rubric"
    assert registry.kind_of_task("echo_demo") is echo
    out = tmp_path / "echo_run"
    result = registry.run(JobRequest(task="echo_demo", judge="echo", output_path=out, limit=2))
    assert result["mean_length"] == 2.0  # "a" and "bbb"
    assert registry.kind_of_run(out) is echo and echo.board_rows([out])[0] == {"echo_demo": [{"judge": "echo", "mean_length": 2.0}]}
    # the other kinds' commands name it as another kind's task, in one line
    with pytest.raises(JudgebenchError, match="a task of kind 'echo', not a pairwise task"):
        get_task(str(echo.folder / "echo_demo.yaml"))


def test_a_kind_missing_a_step_or_reusing_a_name_is_refused(echo):
    class Half:
        name = "half"
        command = "none"

        def plan(self, request: Any) -> Plan: ...

    with pytest.raises(TypeError, match="missing: bundled_folder, task_files"):
        registry.register(Half())  # type: ignore[arg-type]
    with pytest.raises(JudgebenchError, match="task kind 'echo' is registered already"):
        registry.register(EchoKind(echo.folder))
    with pytest.raises(JudgebenchError, match="built in"):
        registry.unregister("rubric")
    assert [k.name for k in registry.kinds()] == ["pairwise", "rubric", "echo"]
