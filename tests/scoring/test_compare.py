"""`judgebench compare` and the replay regression gate.

The replay check runs on both demo tasks against recordings kept in tests/recordings/ (demo runs
of a deterministic fake LLM behind a real OpenAI-compatible server, regenerated with
tests/recordings/make_recordings.py): the current prompts must reproduce the recorded verdicts
exactly; a template edit must be caught.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest
from test_submit import edit_samples, make_run

from judgebench.cli.main import main
from judgebench.core.errors import JudgebenchError
from judgebench.core.files import read_models_jsonl
from judgebench.core.records import ORDERS, JudgmentRecord, swap_verdict
from judgebench.judges.replay import ReplayJudge, load_recordings
from judgebench.publish.compare import comparison_lines
from judgebench.scoring.compare import compare_runs
from judgebench.scoring.score import rescore_run
from judgebench.stats.paired import (
    mcnemar_exact,
    paired_bootstrap_ci,
    paired_test,
    sign_flip_exact,
)

REPO = Path(__file__).resolve().parents[2]
RECORDINGS = Path(__file__).resolve().parents[1] / "recordings"
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


def test_a_difference_that_rounds_to_zero_is_printed_plus_zero():
    # an attack: two 20,000-example runs differing in one order of one example printed "-0.00 points"
    from judgebench.publish.compare import _points

    assert _points(-1 / 40_000) == "+0.00 points" and _points(-0.0) == "+0.00 points" and _points(-0.5) == "-50.00 points"


def test_paired_bootstrap_and_mcnemar():
    assert paired_bootstrap_ci(np.zeros(30)) == (0.0, 0.0)
    low, high = paired_bootstrap_ci(np.array([-1.0] * 20 + [0.0] * 20), seed=3)
    assert low < -0.5 < high < 0
    assert paired_bootstrap_ci(np.array([1.0, 0.0, -1.0] * 5), seed=1) == paired_bootstrap_ci(np.array([1.0, 0.0, -1.0] * 5), seed=1)
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(10, 0) == pytest.approx(2 * 0.5**10)
    assert mcnemar_exact(7, 3) == pytest.approx(binomtest(3, 10, 0.5).pvalue)


def test_sign_flip_tests():
    # 4 of the 8 sign patterns of (1, 1, 0.5) reach |sum| >= 1.5: (+,+,-), (+,+,+), (-,-,+), (-,-,-)
    assert sign_flip_exact(np.array([1.0, 1.0, -0.5])) == pytest.approx(4 / 8)
    assert sign_flip_exact(np.array([0.5, 0.5, 0.5, 0.25])) == pytest.approx(2 / 16)
    # binary per-example outcomes: McNemar on examples (5 rose, none fell)
    test = paired_test(np.array([0.0] * 5 + [1.0, 0.0]), np.array([1.0] * 6 + [0.0]))
    assert (test.name, test.unit, test.n, test.rose, test.fell) == ("McNemar exact", "example", 5, 5, 0)
    assert test.p == pytest.approx(2 / 2**5) and test.resamples is None
    # many nonzero differences of two magnitudes, on the grid of halves: exact (issue 28: Monte Carlo printed
    # its floor 1/2001 here), p = 2 / 2**25 (only the all-plus and all-minus patterns are as extreme)
    test = paired_test(np.zeros(25), np.array([1.0] * 15 + [0.5] * 10), seed=0, resamples=2000)
    assert (test.name, test.n, test.resamples) == ("sign-flip exact", 25, None)
    assert test.p == pytest.approx(2 / 2**25, rel=1e-9)
    mixed = np.array([1.0, -0.5, 0.5, 0.25] * 5 + [0.75])  # m = 21, quarters: exact, equal to the enumeration
    test = paired_test(np.zeros(21), mixed, seed=1)
    assert test.name == "sign-flip exact" and test.resamples is None
    assert test.p == pytest.approx(sign_flip_exact(mixed), abs=1e-12)
    assert paired_test(np.ones(4), np.ones(4)).p == 1.0


# ----------------------------------------------------------------------------- hand-built runs


def hand_record(example_id: str, label: str, order: str, verdict: str, dimension: str = "overall") -> JudgmentRecord:
    """An answered judgment; `verdict` is in the dataset's positions."""
    shown = verdict if order == "AB" else swap_verdict(verdict)
    return JudgmentRecord(
        task="sciarena_eval", example_id=example_id, dimension=dimension, order=order, judge="hand",
        prompt_hash="0" * 64, status="ANSWERED", raw=f"[[{shown}]]", verdict_shown=shown, verdict=verdict,
        label=label, length_a=10, length_b=20,
    )  # fmt: skip


def hand_run(template: Path, run_dir: Path, records: list[JudgmentRecord], judge: str, headline: str) -> Path:
    """A copy of a real run with hand-built samples, judge name and headline (compare never reads the metrics)."""
    shutil.copytree(template, run_dir)
    records = [r.model_copy(update={"judge": judge}) for r in records]  # samples name the run's judge
    (run_dir / "samples.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in records))
    data = results(run_dir)
    data["config"]["judge"] = judge
    data["config"]["headline"] = headline
    data["counts"]["calls"] = len(records)  # a run's results count its samples' lines (rundir.read_run checks)
    (run_dir / "results.json").write_text(json.dumps(data))
    return run_dir


@pytest.fixture(scope="module")
def tie_vs_longer(longer_shorter, tmp_path_factory) -> tuple[Path, Path]:
    """Issue 9: 18 examples (16 decisive labels, 2 ties), a judge answering TIE everywhere vs a longer-response judge.

    The longer judge (response B is longer everywhere, so it answers B in both orders) is right on 4 decisive
    examples, wrong on 12, and half right on the 2 ties. Soft scores per example: TIE judge 0.5 on decisive
    labels and 1 on ties; longer judge 1, 0 and 0.5. Judgment-level McNemar saw 8 fixed vs 4 broken judgments.
    """
    folder = tmp_path_factory.mktemp("issue9")
    labels = ["B"] * 4 + ["A"] * 12 + ["TIE"] * 2
    tie = [hand_record(f"e{i:02d}", label, order, "TIE") for i, label in enumerate(labels) for order in ORDERS]
    longer = [hand_record(f"e{i:02d}", label, order, "B") for i, label in enumerate(labels) for order in ORDERS]
    template = longer_shorter[0]
    return (
        hand_run(template, folder / "tie", tie, "hand/tie", "soft_accuracy"),
        hand_run(template, folder / "longer", longer, "hand/longer", "soft_accuracy"),
    )


def test_the_test_matches_the_soft_headline(tie_vs_longer, tmp_path, capsys):
    tie, longer = tie_vs_longer
    comparison = compare_runs(tie, longer)
    assert comparison.baseline.value == pytest.approx(10 / 18) and comparison.candidate.value == pytest.approx(5 / 18)
    assert comparison.difference == pytest.approx(-5 / 18) and comparison.ci_high < 0
    # per-example differences: 4 x +0.5, 14 x -0.5; the exact sign-flip p counts the patterns with <= 4 (or >= 14) plus signs
    p = 2 * sum(math.comb(18, k) for k in range(5)) / 2**18
    test = comparison.test
    assert (test.name, test.unit, test.n, test.rose, test.fell) == ("sign-flip exact", "example", 18, 4, 14)
    assert test.p == pytest.approx(p) == pytest.approx(sign_flip_exact(np.array([0.5] * 4 + [-0.5] * 14)))
    assert comparison.significant
    changes = [f.change for f in comparison.flips]
    assert (changes.count("fixed"), changes.count("broken"), len(changes)) == (4, 14, 18)
    broken_tie = next(f for f in comparison.flips if f.example_id == "e17")
    assert (broken_tie.label, broken_tie.baseline, broken_tie.candidate) == ("TIE", 1.0, 0.5)
    assert broken_tie.judgments == ["AB+BA: TIE -> B"]

    out = tmp_path / "cmp.json"
    assert main(["compare", str(tie), str(longer), "--fail-if-worse-by", "2", "--output", str(out)]) == 1
    captured = capsys.readouterr()
    assert f"sign-flip exact, unit example, n = 18 changed examples (4 rose, 14 fell), p = {p:.4g}" in captured.out
    assert "4 fixed (score rose), 14 broken (score fell)" in captured.out
    assert "regression: soft_accuracy dropped 27.78 points" in captured.err and f"p = {p:.4g}" in captured.err
    data = json.loads(out.read_text())
    assert data["test"] == {"name": "sign-flip exact", "unit": "example", "n": 18, "rose": 4, "fell": 14, "p": pytest.approx(p), "resamples": None}
    assert data["significant"] is True and len(data["flips"]) == 18


def test_one_shared_example_has_no_interval(longer_shorter, tmp_path, capsys):
    """An outside audit: two runs sharing one example printed "95% paired-bootstrap CI [-100.00, -100.00]", a
    bootstrap of one unit. No interval is printed or written (the figures neither side defines are left out)."""
    assert paired_bootstrap_ci(np.array([-1.0])) is None
    one = [hand_record("e00", "A", order, "A") for order in ORDERS]
    wrong = [hand_record("e00", "A", order, "B") for order in ORDERS]
    template = longer_shorter[0]
    right = hand_run(template, tmp_path / "right", one, "hand/right", "accuracy")
    wrong_run = hand_run(template, tmp_path / "wrong", wrong, "hand/wrong", "accuracy")
    out = tmp_path / "cmp.json"
    main(["compare", str(right), str(wrong_run), "--output", str(out)])
    printed = capsys.readouterr().out
    assert "(one shared example: no interval)" in printed and "paired-bootstrap CI" not in printed
    written = json.loads(out.read_text())
    assert written["difference"] == -1.0 and "ci_low" not in written and "ci_high" not in written


def test_order_consistency_undefined_in_both_runs_is_left_out_and_in_one_is_a_dash(longer_shorter, tmp_path, capsys):
    # judgments in order AB only (as a --no-swap run): no example answered in both orders, order consistency
    # undefined; it was printed "order consistency n/a -> n/a"
    labels = ["A", "B"] * 5
    ab_only = [hand_record(f"e{i:02d}", label, "AB", "B") for i, label in enumerate(labels)]
    both = [hand_record(f"e{i:02d}", label, order, "B") for i, label in enumerate(labels) for order in ORDERS]
    template = longer_shorter[0]
    one = hand_run(template, tmp_path / "one", ab_only, "hand/one", "accuracy")
    two = hand_run(template, tmp_path / "two", [r.model_copy(update={"verdict": "A", "verdict_shown": "A",
                                                                      "raw": "[[A]]"}) for r in ab_only],
                   "hand/two", "accuracy")
    swapped = hand_run(template, tmp_path / "swapped", both, "hand/swapped", "accuracy")
    assert main(["compare", str(one), str(two)]) == 0
    text = capsys.readouterr().out
    assert "order consistency" not in text and "n/a" not in text
    assert main(["compare", str(swapped), str(one)]) == 0
    text = capsys.readouterr().out
    assert "\n  order consistency 100.00% -> —\n" in text and "n/a" not in text
    assert main(["compare", str(one), str(swapped)]) == 0
    assert "\n  order consistency — -> 100.00%\n" in capsys.readouterr().out
    # a whole-run figure one run defines and the other does not: the undefined side is a dash too
    assert comparison_lines({"ece": {"baseline": None, "candidate": 0.25}}) == [
        "  ece               — -> 25.00% (each whole run; no paired test)"]


def test_gate_never_calls_an_improvement_a_regression(tie_vs_longer, capsys):
    tie, longer = tie_vs_longer
    reverse = compare_runs(longer, tie)
    assert reverse.difference == pytest.approx(5 / 18) and reverse.significant
    assert not reverse.regressed(0)
    assert main(["compare", str(longer), str(tie), "--fail-if-worse-by", "0"]) == 0
    assert "gate passed: change +27.78 points (not a drop" in capsys.readouterr().out
    assert main(["compare", str(longer), str(tie), "--fail-if-worse-by", "1"]) == 0
    assert "threshold 1 point)" in capsys.readouterr().out  # (a walkthrough: "1 points")


def test_order_consistent_judge_counts_each_example_once(longer_shorter, tmp_path):
    """Both orders move together: 9 changed examples are 18 changed judgments, the test's n is 9."""
    labels = ["A"] * 12
    before = [hand_record(f"e{i:02d}", "A", order, "B" if i < 9 else "A") for i in range(12) for order in ORDERS]
    after = [hand_record(f"e{i:02d}", label, order, "A") for i, label in enumerate(labels) for order in ORDERS]
    template = longer_shorter[0]
    base = hand_run(template, tmp_path / "before", before, "hand/before", "accuracy")
    cand = hand_run(template, tmp_path / "after", after, "hand/after", "accuracy")
    comparison = compare_runs(base, cand)
    assert len(comparison.flips) == 9 and comparison.judgments == 24
    assert {f.judgments[0] for f in comparison.flips} == {"AB+BA: B -> A"}  # 18 changed judgments
    test = comparison.test
    assert (test.name, test.n, test.rose, test.fell) == ("McNemar exact", 9, 9, 0)
    assert test.p == pytest.approx(2 / 2**9)  # not 2 / 2**18, as pooling both orders would give
    assert comparison.difference == pytest.approx(9 / 12)


def test_multi_dimension_unit_is_the_per_example_mean(longer_shorter, tmp_path):
    """Two dimensions: gains in one and losses in the other cancel within an example."""
    dims = ("novelty", "feasibility")

    def judged(verdicts: dict[str, dict[str, str]]) -> list[JudgmentRecord]:
        return [hand_record(e, "A", order, v[f"{dim} {order}"], dim) for e, v in verdicts.items() for dim in dims for order in ORDERS]

    right, wrong = {"AB": "A", "BA": "A"}, {"AB": "B", "BA": "B"}

    def example(novelty: dict[str, str], feasibility: dict[str, str]) -> dict[str, str]:
        return {f"novelty {o}": novelty[o] for o in ORDERS} | {f"feasibility {o}": feasibility[o] for o in ORDERS}

    base = {f"e{i}": example(wrong, right) for i in range(7)} | {"e7": example(right, right)}
    cand = (
        {f"e{i}": example(right, wrong) for i in range(3)}  # +1 novelty, -1 feasibility: difference 0
        | {f"e{i}": example(right, right) for i in range(3, 6)}  # +1 novelty: difference +0.5
        | {"e6": example({"AB": "A", "BA": "B"}, right)}  # novelty 0 -> 0.5: difference +0.25
        | {"e7": example(right, right)}
    )
    template = longer_shorter[0]
    comparison = compare_runs(
        hand_run(template, tmp_path / "base", judged(base), "hand/base", "soft_accuracy"),
        hand_run(template, tmp_path / "cand", judged(cand), "hand/cand", "soft_accuracy"),
    )
    assert comparison.scope == "mean" and comparison.examples == 8
    assert comparison.difference == pytest.approx((3 * 0.5 + 0.25) / 8)
    test = comparison.test
    assert (test.name, test.n, test.rose, test.fell) == ("sign-flip exact", 4, 4, 0)
    assert test.p == pytest.approx(2 / 2**4)  # (0.5, 0.5, 0.5, 0.25): only the two uniform sign patterns reach 1.75
    assert comparison.per_dimension["feasibility"]["difference"] == pytest.approx(-3 / 8)
    changes = {f.example_id: f.change for f in comparison.flips}
    assert changes == {"e0": "changed", "e1": "changed", "e2": "changed", "e3": "fixed", "e4": "fixed", "e5": "fixed", "e6": "fixed"}
    assert next(f for f in comparison.flips if f.example_id == "e6").judgments == ["novelty AB: B -> A", "novelty BA: B -> B"]
    assert next(f for f in comparison.flips if f.example_id == "e0").judgments == ["feasibility AB+BA: A -> B", "novelty AB+BA: B -> A"]


def test_compare_rejects_bad_options(longer_shorter, capsys):
    longer, shorter = longer_shorter
    with pytest.raises(JudgebenchError, match="--seed"):
        compare_runs(longer, shorter, seed=-1)
    assert main(["compare", str(longer), str(shorter), "--max-flips", "-1"]) == 2
    assert "--max-flips" in capsys.readouterr().err


# ----------------------------------------------------------------------------- two real runs


def test_compare_two_real_runs(longer_shorter, tmp_path, capsys):
    longer, shorter = longer_shorter
    comparison = compare_runs(longer, shorter)
    base, cand = results(longer), results(shorter)
    assert comparison.baseline.value == pytest.approx(base["metrics"]["overall"]["accuracy"]["value"])
    assert comparison.candidate.value == pytest.approx(cand["metrics"]["overall"]["accuracy"]["value"])
    assert comparison.difference == pytest.approx(comparison.candidate.value - comparison.baseline.value)
    assert comparison.ci_low <= comparison.difference <= comparison.ci_high
    # the longer and the shorter judge disagree wherever the lengths differ: every changed example is one flip
    by_key = {(r.example_id, r.order): r for r in samples(longer)}
    changed = [r for r in samples(shorter) if r.verdict != by_key[(r.example_id, r.order)].verdict]
    assert len(comparison.flips) == len({r.example_id for r in changed}) > 0
    assert {f.judgments[0].split(":")[0] for f in comparison.flips} == {"AB+BA"}  # order-consistent judges
    fixed = sum(f.change == "fixed" for f in comparison.flips)
    broken = sum(f.change == "broken" for f in comparison.flips)
    assert (comparison.test.rose, comparison.test.fell, comparison.test.n) == (fixed, broken, fixed + broken)
    # order-consistent judges, exact headline: binary per-example outcomes, each changed example counted once
    assert comparison.test.name == "McNemar exact" and 2 * comparison.test.n == len(changed)
    assert comparison.test.p == pytest.approx(binomtest(fixed, fixed + broken, 0.5).pvalue)
    assert comparison.baseline.prompt_template_hash == base["config"]["prompt_template_hash"]
    assert comparison.baseline.order_consistency == pytest.approx(base["metrics"]["overall"]["order_consistency"]["value"])
    assert comparison.candidate.invalid_rate == pytest.approx(cand["counts"]["invalid"] / cand["counts"]["calls"])

    out = tmp_path / "cmp.json"
    assert main(["compare", str(longer), str(shorter), "--output", str(out), "--max-flips", "3"]) == 0
    text = capsys.readouterr().out
    assert f"{comparison.test.name}, unit example, n = {fixed + broken}" in text
    assert "paired-bootstrap CI" in text and "more (all in --output FILE)" in text
    data = json.loads(out.read_text())
    assert len(data["flips"]) == len(comparison.flips) and data["test"]["p"] == pytest.approx(comparison.test.p)
    # built-in judges give no confidence: ECE is defined in neither run, and left out of the file as on screen (it
    # had been written as {"baseline": null, "candidate": null})
    assert "ece" not in data["value_metrics"] and "ECE" not in text
    assert all(any(v is not None for v in pair.values()) for pair in data["value_metrics"].values())


@pytest.mark.slow
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


@pytest.mark.slow
def test_compare_refuses_different_tasks(longer_shorter, tmp_path, capsys):
    ideation = make_run(tmp_path / "idea", "ideation_arena_eval", "builtin/longer")
    assert main(["compare", str(longer_shorter[0]), str(ideation)]) == 2
    assert "different tasks" in capsys.readouterr().err


# ----------------------------------------------------------------------------- replay


def test_replay_judge_serves_recordings_and_reports_unrecorded_prompts(longer_shorter):
    import asyncio

    from judgebench.core.records import JudgeRequest
    from judgebench.judges import JudgeCallError, make_judge

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


@pytest.mark.slow
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
    candidate = tmp_path / "edited"
    code = main([
        "run", "--tasks", "sciarena_eval", "--judge", f"replay/{RECORDINGS / 'sciarena_eval' / 'samples.jsonl'}",
        "--demo", "--prompt", str(edited), "--max-retries", "0", "--output-path", str(candidate), "--quiet",
    ])  # fmt: skip
    assert code == 1  # nothing answered: the run itself fails loudly, and still writes its results
    assert "no judgment was answered; most common causes: 96 x failed: no recorded answer" in capsys.readouterr().err
    records = samples(candidate)
    assert {r.status for r in records} == {"FAILED"}
    assert all(r.error == f"no recorded answer for prompt {r.prompt_hash}" for r in records)
    capsys.readouterr()
    assert main(["compare", str(RECORDINGS / "sciarena_eval"), str(candidate), "--fail-if-worse-by", "1"]) == 1
    captured = capsys.readouterr()
    assert f"unrecorded prompts: candidate {len(records)}" in captured.out and "(changed)" in captured.out
    assert f"gate failed: {len(records)} of the candidate's judgments had no recorded answer" in captured.err


def test_an_edit_that_reaches_a_few_prompts_fails_the_replay_gate(tmp_path, capsys):
    """An outside check: an edit reaching 2 of 96 prompts (one example, both orders) passed the gate, since two
    failed judgments on one example are no significant drop; the guide says such an edit fails it."""
    first = json.loads((REPO / "tasks" / "demo" / "sciarena_eval_demo.jsonl").read_text().splitlines()[0])
    template = (REPO / "prompts" / "sciarena_pairwise.yaml").read_text()
    edited = tmp_path / "sciarena_pairwise.yaml"
    marker = first["question"][:40].replace("'", "")
    edited.write_text(template.replace("{{ question }}", "{{ question }}{% if '" + marker + "' in question %} (edited){% endif %}", 1))
    candidate = tmp_path / "edited"
    assert main(["run", "--tasks", "sciarena_eval", "--judge", f"replay/{RECORDINGS / 'sciarena_eval' / 'samples.jsonl'}",
                 "--demo", "--prompt", str(edited), "--max-retries", "0", "--output-path", str(candidate), "--quiet"]) == 0
    comparison = compare_runs(RECORDINGS / "sciarena_eval", candidate)
    assert comparison.candidate.unrecorded == 2 and not comparison.regressed(1)
    assert comparison.gate_failure(1) == "unrecorded"
    capsys.readouterr()
    assert main(["compare", str(RECORDINGS / "sciarena_eval"), str(candidate), "--fail-if-worse-by", "1"]) == 1
    assert "gate failed: 2 of the candidate's judgments had no recorded answer" in capsys.readouterr().err
    same = compare_runs(RECORDINGS / "sciarena_eval", RECORDINGS / "sciarena_eval")
    assert same.gate_failure(0) is None
    for bad in ("2", -1, float("nan"), True):  # a new user: "2" was a TypeError deep inside
        with pytest.raises(JudgebenchError, match="gate_failure: worse_by_points must be a number"):
            same.gate_failure(bad)
    assert all(same.gate_failure(good) is None for good in (np.int64(1), np.float32(1.5), 2))  # (numpy's: a third attack)


def test_a_replay_on_more_examples_than_its_baseline_passes_on_the_baselines(tmp_path, capsys):
    """A second attack: a baseline of 10 examples replayed on all 48 failed the gate ("76 of the candidate's judgments
    had no recorded answer"): the unrecorded ones were the examples the baseline never held, which the gate does not
    compare (a candidate on more examples is paired on the baseline's)."""
    baseline, candidate = tmp_path / "baseline", tmp_path / "candidate"
    assert main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--limit", "10",
                 "--output-path", str(baseline), "--quiet"]) == 0
    assert main(["run", "--tasks", "sciarena_eval", "--judge", f"replay/{baseline}", "--demo", "--max-retries", "0",
                 "--output-path", str(candidate), "--quiet"]) == 0
    comparison = compare_runs(baseline, candidate)
    assert comparison.candidate.unrecorded == 0 and comparison.examples == 10 and comparison.gate_failure(1) is None
    capsys.readouterr()
    assert main(["compare", str(baseline), str(candidate), "--fail-if-worse-by", "1"]) == 0


def test_a_replay_of_a_run_made_with_another_prompt_is_warned_of_before_any_call(tmp_path, capsys):
    """An outside check: the guide's CI job replayed a baseline made with --prompt FILE without it; every prompt
    was unrecorded and the gate failed with no edit at all. `run` now says so first."""
    custom = tmp_path / "my_sci.yaml"
    custom.write_text((REPO / "prompts" / "sciarena_pairwise.yaml").read_text().replace("{{ question }}", "Q: {{ question }}", 1))
    baseline = tmp_path / "baseline"
    assert main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--prompt", str(custom),
                 "--output-path", str(baseline), "--quiet"]) == 0
    capsys.readouterr()
    base = ["run", "--tasks", "sciarena_eval", "--judge", f"replay/{baseline}", "--demo", "--quiet", "--max-retries", "0"]
    assert main([*base, "--output-path", str(tmp_path / "r1")]) == 1  # nothing recorded for the bundled template
    err = capsys.readouterr().err
    assert f"warning: --judge replay/{baseline}: that run's prompt template is sciarena_pairwise@" in err
    assert ("the prompts they render differently have no recorded answer (a run made with --prompt FILE is replayed "
            "with the same --prompt)") in err
    assert main([*base, "--prompt", str(custom), "--output-path", str(tmp_path / "r2")]) == 0
    assert "prompt template" not in capsys.readouterr().err
    custom.write_text(custom.read_text().replace("Q: ", "Question: "))  # the edit a replay gate is for: not warned of
    assert main([*base, "--prompt", str(custom), "--output-path", str(tmp_path / "r3")]) == 1
    assert "prompt template" not in capsys.readouterr().err


@pytest.mark.slow
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


def test_a_candidate_on_a_subset_of_the_baseline_fails_the_gate(longer_shorter, tmp_path, capsys):
    """A gate vouches only for what it compared: a candidate run with --limit 3 (a third attack's finding) passed
    on its three examples, whatever the others would have given."""
    longer, _ = longer_shorter
    subset = make_run(tmp_path / "subset", "sciarena_eval", "builtin/longer", "--limit", "3")
    comparison = compare_runs(longer, subset)
    units = len({r.example_id for r in samples(longer)})  # one dimension: a unit per example
    assert (comparison.paired_units, comparison.baseline_units, comparison.missing_units) == (3, units, units - 3)
    assert comparison.difference == 0  # the same answers on the three it holds
    assert main(["compare", str(longer), str(subset), "--fail-if-worse-by", "1"]) == 1
    assert f"gate failed: the candidate lacks {units - 3} of the baseline's {units} (example, dimension) units" in capsys.readouterr().err
    assert main(["compare", str(subset), str(longer), "--fail-if-worse-by", "1"]) == 0  # a candidate on more is fine
    assert "gate passed" in capsys.readouterr().out
    assert comparison.config_changes == ["limit: (not set) -> 3"]  # and the configuration line says why
    out = tmp_path / "comparison.json"  # the file holds what the screen said: the missing units, the gate's decision
    assert main(["compare", str(longer), str(subset), "--fail-if-worse-by", "1", "--output", str(out)]) == 1
    written = json.loads(out.read_text())
    assert written["missing_units"] == units - 3
    assert written["gate"]["failed"] is True and written["gate"]["fail_if_worse_by"] == 1
    assert written["gate"]["message"].startswith("gate failed: the candidate lacks")


def test_compare_says_how_the_judge_configurations_differ(longer_shorter, tmp_path, capsys):
    longer, shorter = longer_shorter
    edited = tmp_path / "edited"
    shutil.copytree(shorter, edited)
    data = results(edited)
    data["config"].update(judge_args={"temperature": 0.7, "max_tokens": 64}, reask=2, judge_name="terse")
    (edited / "results.json").write_text(json.dumps(data))
    base_args = results(longer)["config"]["judge_args"]
    assert base_args == {}
    changes = compare_runs(longer, edited).config_changes
    hashes = [results(run)["config"]["judge_config_hash"] for run in (longer, edited)]
    assert changes == ["judge: builtin/longer -> builtin/shorter", "judge_name: (not set) -> terse",
                       f"judge_config_hash: {hashes[0]} -> {hashes[1]}", "reask: (not set) -> 2",
                       "judge_args.max_tokens: (not set) -> 64", "judge_args.temperature: (not set) -> 0.7"]
    header = tmp_path / "header"  # two configurations that differ only where results.json shows nothing (a header's
    shutil.copytree(longer, header)  # value): the hash tells them apart (an attack saw "configuration the same")
    data = results(header)
    data["config"]["judge_config_hash"] = "0" * 16
    (header / "results.json").write_text(json.dumps(data))
    assert compare_runs(longer, header).config_changes == [f"judge_config_hash: {hashes[0]} -> {'0' * 16}"]
    assert main(["compare", str(longer), str(edited)]) == 0
    assert "  configuration     judge: builtin/longer -> builtin/shorter; judge_name: (not set) -> terse;" in capsys.readouterr().out
    assert compare_runs(longer, longer).config_changes == []
    main(["compare", str(longer), str(longer)])
    assert "  configuration     the same" in capsys.readouterr().out

    stem = "my-team-judge-configuration-for-the-quarterly-regression-suite"  # long names differing at their end
    named = tmp_path / "named"  # (a copy: the fixture's runs are shared)
    shutil.copytree(longer, named)
    for run, name in ((named, f"{stem}-v1"), (edited, f"{stem}-v2")):
        data = results(run)
        data["config"]["judge_name"] = name
        (run / "results.json").write_text(json.dumps(data))
    name_change = next(c for c in compare_runs(named, edited).config_changes if c.startswith("judge_name"))
    assert name_change.endswith("-suite-v1 -> ...y-regression-suite-v2")  # shown where they differ, not cut before it
    data = results(edited)
    data["config"]["prompt_template_hash"] = "f" * 64
    (edited / "results.json").write_text(json.dumps(data))
    hashes = next(c for c in compare_runs(named, edited).config_changes if c.startswith("prompt_template_hash"))
    assert hashes == f"prompt_template_hash: {results(named)['config']['prompt_template_hash']} -> {'f' * 64}"  # whole


@pytest.mark.slow
def test_the_guides_replay_workflow_runs_as_written(tmp_path):
    """docs/guide/compare.md's ready-to-copy replay step, run by bash with the recorded runs as baselines: the
    current prompts pass the gate, and the comparisons are written (it wrote them into the run folder compare
    reads, which compare refuses: the step could never pass)."""
    import os
    import re
    import stat
    import subprocess
    import sys

    guide = (REPO / "docs" / "guide" / "compare.md").read_text()
    step = re.search(r"name: replay the recorded answers.*?run: \|\n(.*?)\n      - uses:", guide, re.S).group(1)
    script = "\n".join(line[10:] for line in step.splitlines())  # the YAML block's indentation
    for task in ("sciarena_eval", "ideation_arena_eval"):
        shutil.copytree(RECORDINGS / task, tmp_path / "baselines" / task)
    shim = tmp_path / "bin" / "judgebench"  # `judgebench` as this interpreter's
    shim.parent.mkdir()
    shim.write_text(f"#!/bin/sh\nexec {sys.executable} -m judgebench \"$@\"\n")
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    env = {**os.environ, "PATH": f"{shim.parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    for task in ("sciarena_eval", "ideation_arena_eval"):
        written = json.loads((tmp_path / "replay" / f"{task}.compare.json").read_text())
        assert written["difference"] == 0 and written["gate"]["failed"] is False


def test_a_partial_run_is_said_to_be_partial(longer_shorter, tmp_path, capsys):
    """A final outside attack: compare of a full run against an interrupted one reported a significant drop
    without saying the candidate had stopped early."""
    longer, _ = longer_shorter
    partial = tmp_path / "partial"
    shutil.copytree(longer, partial)
    data = json.loads((partial / "results.json").read_text())
    data["config"]["partial"] = True
    (partial / "results.json").write_text(json.dumps(data))
    assert "the candidate is PARTIAL (it stopped early)" in " ".join(compare_runs(longer, partial).notes)
    assert not any("PARTIAL" in note for note in compare_runs(longer, longer).notes)
    assert main(["compare", str(partial), str(longer)]) == 0
    assert "note: the baseline is PARTIAL" in capsys.readouterr().out
