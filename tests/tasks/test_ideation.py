"""Ideation-Arena-Eval end to end: five dimensions, four-way labels, soft accuracy, joint and separate modes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openai_server import Behaviour, FakeOpenAIServer

from judgebench.cli.main import main
from judgebench.core.files import read_models_jsonl
from judgebench.core.records import JudgmentRecord
from judgebench.core.resources import tasks_dir

DIMENSIONS = ["overall_quality", "novelty", "feasibility", "significance", "specificity"]
DEMO = tasks_dir() / "demo" / "ideation_arena_eval_demo.jsonl"
RAW_TO_LABEL = {"A": "A", "B": "B", "Tie": "TIE", "Both Bad": "TIE"}  # Both Bad scored as a tie


def demo_rows() -> list[dict]:
    return [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]


def run(tmp_path: Path, *args: str) -> tuple[dict, list[JudgmentRecord]]:
    out = tmp_path / "out"
    assert main(["run", "--tasks", "ideation_arena_eval", "--output-path", str(out), "--quiet", *args]) == 0
    results = json.loads((out / "results.json").read_text())
    return results, read_models_jsonl(out / "samples.jsonl", JudgmentRecord)


def soft(verdict: str, label: str) -> float:
    if verdict == label:
        return 1.0
    return 0.5 if "TIE" in (verdict, label) else 0.0


@pytest.mark.slow
def test_longer_judge_soft_accuracy_matches_an_independent_count(tmp_path):
    results, samples = run(tmp_path, "--judge", "builtin/longer", "--demo")
    rows = demo_rows()
    assert results["counts"]["calls"] == len(rows) * 5 * 2 == len(samples)
    assert results["config"]["dimension_mode"] == "separate" and results["config"]["both_bad"] == "tie"
    for dim in DIMENSIONS:
        # Independent of judgebench's loader: the longer proposal's side, scored against the raw label.
        scores = [
            soft("A" if len(r["proposal_a"]) > len(r["proposal_b"]) else "B", RAW_TO_LABEL[r[dim]]) for r in rows
        ]
        assert results["metrics"][dim]["soft_accuracy"]["value"] == pytest.approx(sum(scores) / len(rows))
    per_dim = [results["metrics"][d]["soft_accuracy"]["value"] for d in DIMENSIONS]
    assert results["metrics"]["mean"]["soft_accuracy"]["value"] == pytest.approx(sum(per_dim) / 5)


@pytest.mark.slow
def test_random_baseline_from_demo_label_shares(tmp_path):
    results, _ = run(tmp_path, "--judge", "builtin/always-a", "--demo", "--no-swap")
    # Every demo dimension has A 15, B 15, Tie 4, Both Bad 2 of 36 -> A 15/36, B 15/36, Tie 6/36:
    # 2*(15/36)^2 + (6/36)^2 + 0.5 * 2 * (6/36) * (30/36) = 0.34722 + 0.02778 + 0.13889 = 0.51389
    for dim in DIMENSIONS:
        assert results["metrics"][dim]["random_baseline"]["value"] == pytest.approx(0.513889, abs=1e-6)
        assert results["metrics"][dim]["position_bias"]["value"] == 1.0
        # always-A in one order: exact 15/36 right; ties earn half: soft = (15 + 0.5 * 6) / 36 = 0.5
        assert results["metrics"][dim]["soft_accuracy"]["value"] == pytest.approx(0.5)


@pytest.mark.slow
def test_both_bad_exclude_drops_those_comparisons(tmp_path):
    results, _ = run(tmp_path, "--judge", "builtin/longer", "--demo", "--both-bad", "exclude")
    assert results["config"]["both_bad"] == "exclude"
    assert results["metrics"]["novelty"]["soft_accuracy"]["n"] == 36 - 2  # two Both Bad labels per dimension


@pytest.mark.slow
def test_joint_mode_keeps_valid_dimensions_of_a_partly_bad_answer(tmp_path):
    answer = json.dumps(
        {"overall_quality": "A", "novelty": "maybe", "feasibility": "Tie", "significance": "B", "specificity": "A"}
    )
    with FakeOpenAIServer(Behaviour(latency_s=0.01, answer=f"Reasoning first.\n```json\n{answer}\n```")) as server:
        results, samples = run(
            tmp_path, "--judge", "openai/joint-judge", "--demo", "--limit", "4", "--dimension-mode", "joint",
            "--judge-args", f"api_base={server.api_base},api_key=sk-test",
            "--cache-dir", str(tmp_path / "cache"),
        )
        assert server.stats().total == 4 * 2  # one call per comparison and order
    assert results["config"]["dimension_mode"] == "joint" and len(samples) == 4 * 2 * 5
    by_dim = {d: [s for s in samples if s.dimension == d] for d in DIMENSIONS}
    assert all(s.status == "INVALID" and s.raw for s in by_dim["novelty"])
    assert all(s.status == "ANSWERED" for d in DIMENSIONS if d != "novelty" for s in by_dim[d])
    assert {s.verdict for s in by_dim["feasibility"]} == {"TIE"}
    assert {(s.order, s.verdict) for s in by_dim["overall_quality"]} == {("AB", "A"), ("BA", "B")}
    counts = results["counts"]
    assert (counts["answered"], counts["invalid"], counts["failed"]) == (32, 8, 0)
    assert results["metrics"]["novelty"]["coverage"]["value"] == 0.0
    # Usage is counted once per call, not once per dimension record.
    assert results["usage"]["tokens_per_call"] == pytest.approx(
        sum((s.tokens_in or 0) + (s.tokens_out or 0) for s in by_dim["overall_quality"]) / 8
    )


@pytest.mark.slow
def test_ideation_leaderboard_has_dimensions_mean_and_reported_rows(tmp_path):
    run(tmp_path, "--judge", "builtin/longer", "--demo")
    assert main(["leaderboard", str(tmp_path / "out"), "--output-dir", str(tmp_path / "lb")]) == 0
    rows = json.loads((tmp_path / "lb" / "ideation_arena_eval.json").read_text())["rows"]
    judges = {row["judge"]: row for row in rows}
    longer = judges["builtin/longer"]
    for dim in [*DIMENSIONS, "mean"]:
        assert f"{dim}.soft_accuracy" in longer and f"{dim}.soft_accuracy_ci" in longer
    assert judges["random (label distribution)"]["overall_quality.soft_accuracy"] == 51.39
    assert judges["Gemini 3 Pro Preview"]["overall_quality.reported_soft_accuracy"] == 72.56  # protocol unstated
    assert judges["Random"]["kind"] == "reported" and judges["Random"]["overall_quality.reported_soft_accuracy"] == 50.57


def test_joint_mode_samples_sum_to_the_true_usage(tmp_path):
    """Issue 9: summing tokens over samples.jsonl gave 5x the true usage in joint mode (one call, five rows)."""
    answer = json.dumps(dict.fromkeys(DIMENSIONS, "A"))
    with FakeOpenAIServer(Behaviour(answer=answer)) as server:
        results, samples = run(
            tmp_path, "--judge", "openai/joint-judge", "--demo", "--limit", "3", "--dimension-mode", "joint",
            "--judge-args", f"api_base={server.api_base},api_key=sk-test", "--no-cache",
        )
        calls = server.stats().total
    assert calls == 3 * 2 and len(samples) == calls * len(DIMENSIONS)
    usage = results["usage"]
    assert sum(s.tokens_in or 0 for s in samples) == usage["tokens_in"] > 0
    assert sum(s.tokens_out or 0 for s in samples) == usage["tokens_out"] > 0
    first_dimension = [s for s in samples if s.dimension == DIMENSIONS[0]]
    assert all(s.tokens_in for s in first_dimension)  # the call's usage sits on its first dimension's row
    assert all(s.tokens_in is None for s in samples if s.dimension != DIMENSIONS[0])
