"""`judgebench compare` and the replay regression gate.

The replay check runs on both demo tasks against recordings kept in tests/recordings/ (demo runs
of a deterministic fake LLM behind a real OpenAI-compatible server, regenerated with
tests/recordings/make_recordings.py): the current prompts must reproduce the recorded verdicts
exactly; a template edit must be caught.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest
from test_submit import edit_samples, make_run

from judgebench.cli import main
from judgebench.compare import compare_runs, mcnemar_exact, paired_bootstrap_ci
from judgebench.files import read_models_jsonl
from judgebench.judges.replay import ReplayJudge, load_recordings
from judgebench.pipeline import rescore_run
from judgebench.records import JudgmentRecord

REPO = Path(__file__).resolve().parents[1]
RECORDINGS = Path(__file__).resolve().parent / "recordings"
DEMO_TASKS = ("sciarena_eval", "ideation_arena_eval")


def samples(run_dir: Path) -> list[JudgmentRecord]:
    return read_models_jsonl(run_dir / "samples.jsonl", JudgmentRecord)


def results(run_dir: Path) -> dict:
    return json.loads((run_dir / "results.json").read_text())


@pytest.fixture(scope="module")
def longer_shorter(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("compare")
    return make_run(folder / "longer", "sciarena_eval", "builtin/longer"), make_run(folder / "shorter", "sciarena_eval", "builtin/shorter")


# ----------------------------------------------------------------------------- statistics


def test_paired_bootstrap_and_mcnemar():
    assert paired_bootstrap_ci(np.zeros(30)) == (0.0, 0.0)
    low, high = paired_bootstrap_ci(np.array([-1.0] * 20 + [0.0] * 20), seed=3)
    assert low < -0.5 < high < 0
    assert paired_bootstrap_ci(np.array([1.0, 0.0, -1.0] * 5), seed=1) == paired_bootstrap_ci(np.array([1.0, 0.0, -1.0] * 5), seed=1)
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(10, 0) == pytest.approx(2 * 0.5**10)
    assert mcnemar_exact(7, 3) == pytest.approx(binomtest(3, 10, 0.5).pvalue)


# ----------------------------------------------------------------------------- two real runs


def test_compare_two_real_runs(longer_shorter, tmp_path, capsys):
    longer, shorter = longer_shorter
    comparison = compare_runs(longer, shorter)
    base, cand = results(longer), results(shorter)
    assert comparison.baseline.value == pytest.approx(base["metrics"]["overall"]["accuracy"]["value"])
    assert comparison.candidate.value == pytest.approx(cand["metrics"]["overall"]["accuracy"]["value"])
    assert comparison.difference == pytest.approx(comparison.candidate.value - comparison.baseline.value)
    assert comparison.ci_low <= comparison.difference <= comparison.ci_high
    # the longer and the shorter judge disagree wherever the lengths differ: every flip is counted once
    by_key = {(r.example_id, r.order): r for r in samples(longer)}
    changed = [r for r in samples(shorter) if r.verdict != by_key[(r.example_id, r.order)].verdict]
    assert len(comparison.flips) == len(changed) > 0
    fixed = sum(f.change == "fixed" for f in comparison.flips)
    broken = sum(f.change == "broken" for f in comparison.flips)
    assert (comparison.candidate_only_right, comparison.baseline_only_right) == (fixed, broken)
    assert comparison.mcnemar_p == pytest.approx(binomtest(fixed, fixed + broken, 0.5).pvalue)
    assert comparison.baseline.prompt_template_hash == base["config"]["prompt_template_hash"]
    assert comparison.baseline.order_consistency == pytest.approx(base["metrics"]["overall"]["order_consistency"]["value"])
    assert comparison.candidate.invalid_rate == pytest.approx(cand["counts"]["invalid"] / cand["counts"]["calls"])

    out = tmp_path / "cmp.json"
    assert main(["compare", str(longer), str(shorter), "--output", str(out), "--max-flips", "3"]) == 0
    text = capsys.readouterr().out
    assert "McNemar exact" in text and "paired-bootstrap CI" in text and "more (all in --output FILE)" in text
    assert len(json.loads(out.read_text())["flips"]) == len(changed)


def test_gate_fails_only_on_a_significant_drop_beyond_the_threshold(longer_shorter, tmp_path, capsys):
    longer, _ = longer_shorter
    # identical runs: no change, passes even with a zero threshold
    assert main(["compare", str(longer), str(longer), "--fail-if-worse-by", "0"]) == 0
    assert "gate passed" in capsys.readouterr().out
    # one judgment turned wrong: a drop above 0.5 points, but far from significant -> passes
    worse = tmp_path / "worse"
    shutil.copytree(longer, worse)

    def break_one(rows):  # the judge answered the other way (raw answer and verdicts together)
        row = next(r for r in rows if r["status"] == "ANSWERED" and r["verdict"] == r["label"])
        flipped = {"A": "B", "B": "A"}
        row["verdict"] = flipped[row["label"]]
        row["verdict_shown"] = flipped[row["verdict_shown"]]
        row["raw"] = f"[[{row['verdict_shown']}]]"

    edit_samples(worse, break_one)
    rescore_run(worse)
    comparison = compare_runs(longer, worse)
    assert comparison.difference < -0.005 and not comparison.significant
    assert main(["compare", str(longer), str(worse), "--fail-if-worse-by", "0.5"]) == 0
    assert "not significant" in capsys.readouterr().out
    # every answer lost: large and significant -> exit 1, but not beyond a 100-point threshold
    failed = tmp_path / "failed"
    shutil.copytree(longer, failed)

    def fail_all(rows):
        for row in rows:
            row.update(status="FAILED", raw=None, verdict=None, verdict_shown=None, error="boom")

    edit_samples(failed, fail_all)
    rescore_run(failed)
    assert main(["compare", str(longer), str(failed), "--fail-if-worse-by", "2"]) == 1
    assert "regression:" in capsys.readouterr().err
    assert main(["compare", str(longer), str(failed), "--fail-if-worse-by", "100"]) == 0


def test_compare_refuses_different_tasks(longer_shorter, tmp_path, capsys):
    ideation = make_run(tmp_path / "idea", "ideation_arena_eval", "builtin/longer")
    assert main(["compare", str(longer_shorter[0]), str(ideation)]) == 2
    assert "different tasks" in capsys.readouterr().err


# ----------------------------------------------------------------------------- replay


def test_replay_judge_serves_recordings_and_reports_unrecorded_prompts(longer_shorter):
    import asyncio

    from judgebench.judges import JudgeCallError, make_judge
    from judgebench.records import JudgeRequest

    longer, _ = longer_shorter
    judge = make_judge(f"replay/{longer}")
    assert isinstance(judge, ReplayJudge) and judge.answers == load_recordings(longer / "samples.jsonl")
    first = samples(longer)[0]
    request = JudgeRequest(
        example_id="x", dimensions=["overall"], order="AB", question="q", first="a", second="b",
        verdicts=["A", "B"], messages=[], prompt_hash=first.prompt_hash,
    )  # fmt: skip
    assert asyncio.run(judge.judge(request)).text == first.raw
    with pytest.raises(JudgeCallError, match="no recorded answer for prompt ffff") as info:
        asyncio.run(judge.judge(request.model_copy(update={"prompt_hash": "f" * 64})))
    assert not info.value.retryable


def replay(task: str, out: Path, *extra: str) -> Path:
    """A demo run answered from the task's recordings."""
    recorded = RECORDINGS / task / "samples.jsonl"
    return make_run(out, task, f"replay/{recorded}", "--max-retries", "0", *extra)


@pytest.mark.parametrize("task", DEMO_TASKS)
def test_replay_reproduces_the_recorded_runs(task, tmp_path, capsys):
    """The project's own regression check: current prompts and parser give the recorded verdicts."""
    recorded = RECORDINGS / task
    candidate = replay(task, tmp_path / "replay")
    assert main(["compare", str(recorded), str(candidate), "--fail-if-worse-by", "0"]) == 0
    comparison = compare_runs(recorded, candidate)
    assert comparison.flips == [] and comparison.candidate.unrecorded == 0
    assert comparison.baseline.prompt_template_hash == comparison.candidate.prompt_template_hash
    rescored = tmp_path / "recorded"  # scored by today's metrics code, like the candidate
    shutil.copytree(recorded, rescored)
    rescore_run(rescored)
    assert results(candidate)["metrics"] == results(rescored)["metrics"]
    assert results(candidate)["counts"] == results(rescored)["counts"]
    assert [(r.prompt_hash, r.verdict) for r in samples(candidate)] == [(r.prompt_hash, r.verdict) for r in samples(recorded)]


def test_prompt_template_edit_is_caught_by_the_replay_gate(tmp_path, capsys):
    template = (REPO / "prompts" / "sciarena_pairwise.yaml").read_text()
    edited = tmp_path / "sciarena_pairwise.yaml"
    edited.write_text(template.replace("{{ question }}", "Question: {{ question }}", 1))
    assert edited.read_text() != template
    candidate = make_run(
        tmp_path / "edited", "sciarena_eval", f"replay/{RECORDINGS / 'sciarena_eval' / 'samples.jsonl'}",
        "--prompt", str(edited), "--max-retries", "0",
    )  # fmt: skip
    records = samples(candidate)
    assert {r.status for r in records} == {"FAILED"}
    assert all(r.error == f"no recorded answer for prompt {r.prompt_hash}" for r in records)
    capsys.readouterr()
    assert main(["compare", str(RECORDINGS / "sciarena_eval"), str(candidate), "--fail-if-worse-by", "1"]) == 1
    captured = capsys.readouterr()
    assert f"unrecorded prompts: candidate {len(records)}" in captured.out and "(changed)" in captured.out
    assert "regression:" in captured.err


def test_unrelated_change_passes_the_replay_gate(tmp_path):
    """A task-file edit that does not touch prompts (description, reported rows) renders the same hashes."""
    folder = tmp_path / "tasks"
    folder.mkdir()
    spec = (REPO / "tasks" / "ideation_arena_eval.yaml").read_text()
    spec = spec.replace("description: Compare", "description: (edited) Compare").replace("72.56", "72.60")
    spec = spec.replace("path: demo/", f"path: {REPO / 'tasks' / 'demo'}/")
    (folder / "ideation_arena_eval.yaml").write_text(spec)
    candidate = replay("ideation_arena_eval", tmp_path / "replay", "--include-path", str(folder), "--demo")
    assert main(["compare", str(RECORDINGS / "ideation_arena_eval"), str(candidate), "--fail-if-worse-by", "0"]) == 0
    assert compare_runs(RECORDINGS / "ideation_arena_eval", candidate).flips == []
    # ...while a change to a criterion (part of the prompt) is caught as unrecorded prompts
    (folder / "ideation_arena_eval.yaml").write_text(spec.replace("Which method is genuinely new", "Which method is most new"))
    changed = replay("ideation_arena_eval", tmp_path / "changed", "--include-path", str(folder), "--demo")
    unrecorded = compare_runs(RECORDINGS / "ideation_arena_eval", changed).candidate.unrecorded
    assert unrecorded == 2 * 36  # both orders of every example for the novelty dimension
