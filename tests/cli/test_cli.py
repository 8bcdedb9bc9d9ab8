"""The CLI end to end: demo runs with built-in judges, leaderboards, litellm against a local server, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import SHARED_DATA, sci_row, write_jsonl
from openai_server import Behaviour, FakeOpenAIServer

from judgebench.cli.main import main
from judgebench.core.files import read_models_jsonl
from judgebench.core.records import JudgmentRecord


def run_cli(*args: str) -> int:
    return main([str(a) for a in args])


def results_of(run_dir: Path) -> dict:
    return json.loads((run_dir / "results.json").read_text())


def samples_of(run_dir: Path) -> list[JudgmentRecord]:
    return read_models_jsonl(run_dir / "samples.jsonl", JudgmentRecord)


def test_demo_run_with_longer_judge_then_leaderboard(tmp_path, capsys):
    out = tmp_path / "out"
    assert run_cli("run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--output-path", out, "--quiet") == 0
    results, samples = results_of(out), samples_of(out)
    n = results["counts"]["examples"]
    assert n >= 40 and results["counts"]["calls"] == 2 * n == len(samples)
    assert results["config"]["dataset"]["demo"] is True
    assert results["counts"]["answered"] + results["counts"]["invalid"] + results["counts"]["failed"] == 2 * n
    # The longer judge's verdict does not depend on the order, so both orders agree on every example
    # where lengths differ, and its accuracy equals the share of examples the longer response won.
    longer_won = sum(
        (s.length_a > s.length_b) == (s.label == "A") for s in samples if s.order == "AB" and s.length_a != s.length_b
    )
    accuracy = results["metrics"]["overall"]["accuracy"]
    assert accuracy["value"] == pytest.approx(longer_won / n)
    assert accuracy["ci_low"] <= accuracy["value"] <= accuracy["ci_high"]
    assert results["metrics"]["overall"]["order_consistency"]["value"] == 1.0
    assert set(results["slices"]["overall"]["subject"]) == {
        "Natural Science", "Healthcare", "Humanities & Social Sciences", "Engineering",
    }
    assert "accuracy" in capsys.readouterr().out

    lb = tmp_path / "lb"
    assert run_cli("leaderboard", out, "--output-dir", lb) == 0
    table = json.loads((lb / "sciarena_eval.json").read_text())["rows"]
    judges = {row["judge"]: row for row in table}
    assert judges["builtin/longer"]["accuracy"] == pytest.approx(round(100 * accuracy["value"], 2))
    assert judges["always-longer"]["accuracy"] == judges["builtin/longer"]["accuracy"]  # same rule, from data
    assert judges["always-first (both orders)"]["accuracy"] == 50.0  # always-first over both orders on binary labels
    assert judges["random (label distribution)"]["accuracy"] == 50.0  # balanced A/B demo labels
    assert judges["o3"]["kind"] == "reported" and judges["o3"]["accuracy_ab_answered"] == 65.1  # its protocol's column
    assert (lb / "sciarena_eval.md").read_text().startswith("# Leaderboard: sciarena_eval")
    assert "builtin/longer" in (lb / "sciarena_eval.csv").read_text()


def test_the_summary_states_its_intervals_level_once(tmp_path, capsys):
    # five dimensions and their mean, each line with intervals: the level is said on the first line only (it was
    # said nowhere: "accuracy 0.467 [0.367, 0.567]; ..."); without intervals it is not said
    out = tmp_path / "out"
    assert run_cli("run", "--tasks", "ideation_arena_eval", "--judge", "builtin/longer", "--demo", "--output-path", out,
                   "--bootstrap", "50") == 0
    lines = capsys.readouterr().out.splitlines()
    figures = [line for line in lines if line.startswith("  ") and "soft_accuracy " in line]
    assert len(figures) == 6 and all("[" in line for line in figures)
    assert figures[0].startswith("  overall_quality: soft_accuracy ") and figures[0].endswith(" (95% bootstrap intervals)")
    assert sum("95%" in line for line in lines) == 1
    assert run_cli("score", out, "--bootstrap", "0") == 0
    text = capsys.readouterr().out
    assert "  overall_quality: soft_accuracy " in text and "[" not in text and "95%" not in text


def test_the_summary_names_the_configuration_by_its_hash(tmp_path, capsys):
    # two settings of one model under one name were told apart on the terminal by nothing (the viewer shows #HASH8)
    from judgebench.core.rundir import read_run
    from judgebench.judges.config import run_config_hash

    out = tmp_path / "out"
    assert run_cli("run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--output-path", out) == 0
    digest = run_config_hash(read_run(out)[0].config)[:8]
    assert capsys.readouterr().out.splitlines()[0].startswith(f"sciarena_eval v1.0 | judge builtin/longer #{digest} | ")


def test_a_dimension_with_nothing_to_score_says_so(tmp_path, capsys):
    # an outside audit: every label Both Bad under --both-bad exclude printed `overall_quality: ` and nothing after
    demo = Path(__file__).resolve().parents[2] / "tasks" / "demo" / "ideation_arena_eval_demo.jsonl"
    rows = [json.loads(line) for line in demo.read_text().splitlines()[:3]]
    for row in rows:
        row.update(dict.fromkeys(("overall_quality", "novelty", "feasibility", "significance", "specificity"), "Both Bad"))
    data = tmp_path / "bb.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert run_cli("run", "--tasks", "ideation_arena_eval", "--judge", "builtin/longer", "--dataset-path", data,
                   "--both-bad", "exclude", "--output-path", tmp_path / "out") == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  overall_quality:")]
    assert lines == ["  overall_quality: no figure (no scorable judgment: every label Both Bad, excluded by --both-bad "
                     "exclude, or none answered)"]


def test_always_a_has_full_position_bias_and_half_accuracy(tmp_path):
    out = tmp_path / "out"
    assert run_cli("run", "--tasks", "sciarena_eval", "--judge", "builtin/always-a", "--demo", "--output-path", out, "--quiet") == 0
    metrics = results_of(out)["metrics"]["overall"]
    assert metrics["position_bias"]["value"] == 1.0
    assert metrics["order_consistency"]["value"] == 0.0
    assert metrics["accuracy"]["value"] == 0.5  # right in exactly one order of every example
    assert metrics["accuracy_consistent"]["value"] == 0.0
    labels = [s.label for s in samples_of(out) if s.order == "AB"]
    assert metrics["accuracy_ab"]["value"] == pytest.approx(labels.count("A") / len(labels))


def test_no_swap_judges_one_order(tmp_path):
    out = tmp_path / "out"
    assert run_cli("run", "--tasks", "sciarena_eval", "--judge", "builtin/random", "--demo", "--no-swap",
                   "--limit", "10", "--output-path", out, "--quiet") == 0
    samples = samples_of(out)
    assert len(samples) == 10 and {s.order for s in samples} == {"AB"}
    assert results_of(out)["config"]["swap"] is False


def test_rescore_reproduces_the_results(tmp_path):
    out = tmp_path / "out"
    run_cli("run", "--tasks", "sciarena_eval", "--judge", "builtin/more-citations", "--demo", "--output-path", out, "--quiet")
    before = results_of(out)
    assert run_cli("score", out) == 0
    after = results_of(out)
    assert after["metrics"] == before["metrics"] and after["counts"] == before["counts"]


def test_litellm_judge_end_to_end_every_call_accounted(tmp_path):
    rows = [sci_row(i, "A" if i % 2 else "B") for i in range(6)]
    data = write_jsonl(tmp_path / "eval.jsonl", rows)
    out = tmp_path / "out"
    # Answers depend on the prompt: some parse, some are unparseable, one question always fails with 400.
    def answer(messages):
        text = messages[-1]["content"]
        if "Question 1 " in text:
            return "I cannot decide between them."
        return "Both have merits, but a careful reading favours the first.\n[[A]]"

    behaviour = Behaviour(latency_s=0.01, answer=answer)
    with FakeOpenAIServer(behaviour, watch_secrets=["sk-PLANTED-SECRET-123"]) as server:
        code = run_cli(
            "run", "--tasks", "sciarena_eval", "--judge", "openai/test-judge",
            "--judge-args",
            f"api_base={server.api_base},api_key=sk-PLANTED-SECRET-123,temperature=0,max_tokens=64,transport=litellm",
            "--dataset-path", data, "--output-path", out, "--cache-dir", tmp_path / "cache", "--quiet",
        )
        stats = server.stats()
    assert code == 0
    results, samples = results_of(out), samples_of(out)
    counts = results["counts"]
    assert counts == {**counts, "examples": 6, "calls": 12, "answered": 10, "invalid": 2, "failed": 0}
    invalid = [s for s in samples if s.status == "INVALID"]
    assert {s.example_id for s in invalid} == {"q1"} and invalid[0].raw == "I cannot decide between them."
    answered = [s for s in samples if s.status == "ANSWERED"]
    assert all(s.verdict_shown == "A" for s in answered)
    assert all(s.verdict == ("A" if s.order == "AB" else "B") for s in answered)  # swap mapped back
    assert all(s.tokens_in and s.tokens_out for s in answered)
    judge_args = results["config"]["judge_args"]
    assert "api_key" not in judge_args and judge_args["max_tokens"] == 64 and judge_args["temperature"] == 0
    assert judge_args["transport"] == "litellm"  # this run went through litellm.acompletion
    assert stats.total == 12 and not stats.leaks
    for path in list(out.rglob("*")) + list((tmp_path / "cache").rglob("*")):
        if path.is_file():
            assert b"sk-PLANTED-SECRET-123" not in path.read_bytes(), path


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["run", "--tasks", "nope", "--judge", "builtin/longer", "--demo"], "unknown task 'nope'"),
        (["run", "--tasks", "sciarena_eval", "--judge", "builtin/nope", "--demo"], "unknown built-in judge"),
        (["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--dataset-path", "missing.jsonl"], "missing.jsonl"),
        (["run", "--tasks", "sciarena_eval", "--judge", "openai/x", "--judge-args", "temperature", "--demo"], "key=value"),
        (["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--dataset-path", "x.jsonl"], "exclude each other"),
        (["score", "."], "not a run directory"),
        (["run", "--judge", "builtin/longer"], "required"),
    ],
)
def test_bad_input_is_one_line_exit_2(tmp_path, capsys, args, expected):
    if "--output-path" not in args and args[0] == "run":
        args = [*args, "--output-path", str(tmp_path / "o")]
    assert run_cli(*args) == 2
    err = capsys.readouterr().err.strip()
    assert expected in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_row_errors_reach_the_user_as_one_line(tmp_path, capsys):
    data = write_jsonl(tmp_path / "eval.jsonl", [sci_row(1), sci_row(2, vote="C")])
    assert run_cli("run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--dataset-path", data,
                   "--output-path", tmp_path / "o") == 2
    err = capsys.readouterr().err.strip()
    assert "eval.jsonl" in err and "row id q2" in err and "'C'" in err


def test_console_script_runs_from_another_directory(tmp_path):
    """tasks/ and prompts/ are found from any working directory (installed package data)."""
    exe = Path(sys.executable).with_name("judgebench")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "judgebench"]
    proc = subprocess.run([*command, "tasks"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "sciarena_eval" in proc.stdout and "ideation_arena_eval" in proc.stdout


def test_yaml_only_task_over_shared_mtbench_data(tmp_path):
    data = SHARED_DATA / "mtbench_human_llmbar200" / "mtbench_human_llmbar200.jsonl"
    examples_dir = Path(__file__).resolve().parents[2] / "docs" / "examples"
    if not data.is_file() or not examples_dir.is_dir():
        pytest.skip("../shared/data or docs/examples is not available")
    out = tmp_path / "mt"
    assert run_cli("run", "--tasks", "mtbench_human", "--include-path", examples_dir, "--dataset-path", data,
                   "--judge", "builtin/longer", "--output-path", out, "--quiet") == 0
    results = results_of(out)
    assert results["counts"]["examples"] == 200  # PROVENANCE: 200 rows, A 101 / B 99
    assert results["metrics"]["overall"]["random_baseline"]["value"] == pytest.approx((101**2 + 99**2) / 200**2)


def test_rescore_reparses_raw_answers_without_calls(tmp_path):
    """A parser change reaches a finished run through `judgebench score`: raw answers are read again."""
    out = tmp_path / "out"
    run_cli("run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--limit", "3", "--output-path", out, "--quiet")
    lines = (out / "samples.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    # Simulate a run made by an older parser that could not read this answer.
    first.update(status="INVALID", verdict_shown=None, verdict=None)
    (out / "samples.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    assert run_cli("score", out) == 0
    repaired = samples_of(out)[0]
    assert repaired.status == "ANSWERED" and repaired.verdict_shown == first["raw"].strip("[]")
    assert results_of(out)["counts"]["invalid"] == 0


def _fake_judge_run(tmp_path, server, *extra: str) -> int:
    data = write_jsonl(tmp_path / "eval.jsonl", [sci_row(i, "A" if i % 2 else "B") for i in range(8)])
    return run_cli(
        "run", "--tasks", "sciarena_eval", "--judge", "openai/test-judge", "--dataset-path", data,
        "--judge-args", f"api_base={server.api_base},api_key=sk-test", "--output-path", tmp_path / "out",
        "--cache-dir", tmp_path / "cache", "--quiet", *extra,
    )


def test_max_failures_stops_cleanly_with_partial_results(tmp_path, capsys):
    with FakeOpenAIServer(Behaviour(status=500)) as server:
        code = _fake_judge_run(tmp_path, server, "--max-retries", "0", "--max-failures", "3", "--concurrency", "1")
    assert code == 1 and "stopped early" in capsys.readouterr().err
    results, samples = results_of(tmp_path / "out"), samples_of(tmp_path / "out")
    assert results["config"]["partial"] is True
    counts = results["counts"]
    assert counts["calls"] == 16 == len(samples) and counts["failed"] == 16 and counts["answered"] == 0
    not_attempted = [s for s in samples if s.error and s.error.startswith("not attempted")]
    assert len(not_attempted) == 16 - 3  # 3 real failures, the rest never sent: every call accounted for


def test_permanent_auth_error_stops_at_once(tmp_path, capsys):
    with FakeOpenAIServer(Behaviour(status=401)) as server:
        code = _fake_judge_run(tmp_path, server, "--concurrency", "1")
        seen = server.stats().total
    assert code == 1 and seen == 1  # not retried, not repeated for every example
    err = capsys.readouterr().err
    assert "permanent error" in err and "401" in err
    counts = results_of(tmp_path / "out")["counts"]
    assert counts["failed"] == counts["calls"] == 16  # one real failure, fifteen never attempted
