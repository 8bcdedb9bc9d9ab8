"""Self-preference (issue 13 §6) by hand, and the cost-vs-accuracy plot with its Pareto front (§5)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from judgebench.cli.main import main
from judgebench.core.errors import JudgebenchError
from judgebench.core.records import JudgmentRecord, RunResult
from judgebench.publish.costplot import CostPoint, cost_per_100_comparisons, mark_pareto
from judgebench.publish.leaderboard import build_tables
from judgebench.publish.tables import write_leaderboards
from judgebench.scoring.selfpref import FAMILY_PREFIXES, family, self_preference
from judgebench.tasks.registry import load_task_file

TASKS = Path(__file__).resolve().parents[2] / "tasks"


def rec(example: str, order: str, verdict: str | None, label: str, a: str | None, b: str | None, **kw) -> JudgmentRecord:
    return JudgmentRecord(
        task="t", example_id=example, dimension="overall", order=order, judge=kw.get("judge", "openai/gpt-4.1"),
        prompt_hash="h", status="ANSWERED" if verdict else "FAILED", verdict=verdict,
        verdict_shown=verdict, label=label, model_a=a, model_b=b, length_a=1, length_b=1,
    )  # fmt: skip


def test_family_is_the_longest_prefix_of_the_name_without_its_provider() -> None:
    assert family("openai/gpt-4o-mini", FAMILY_PREFIXES) == "openai"
    assert family("o3", FAMILY_PREFIXES) == "openai"
    assert family("Claude-3.7-Sonnet", FAMILY_PREFIXES) == "anthropic"
    assert family("anthropic/claude-x", FAMILY_PREFIXES) == "anthropic"
    assert family("research-agent-x", FAMILY_PREFIXES) is None
    assert family(None, FAMILY_PREFIXES) is None
    custom = {**FAMILY_PREFIXES, "gpt-4o": "in-house"}
    assert family("gpt-4o-mini", custom) == "in-house" and family("gpt-4.1", custom) == "openai"


RECORDS = [
    # e1: A is own-family (gpt-4.1); judge A, A -> own score 1; human A -> 1
    rec("e1", "AB", "A", "A", "gpt-4.1", "claude-3.7-sonnet"), rec("e1", "BA", "A", "A", "gpt-4.1", "claude-3.7-sonnet"),
    # e2: B is own-family (o3); judge A then B -> P(A) 0.5 -> own 0.5; human A -> own 0
    rec("e2", "AB", "A", "A", "claude-3.7-sonnet", "o3"), rec("e2", "BA", "B", "A", "claude-3.7-sonnet", "o3"),
    # e3: both own-family, e4: neither: not counted
    rec("e3", "AB", "A", "B", "gpt-4o", "gpt-4.1"), rec("e4", "AB", "B", "A", "llama-4", "qwen3-32b"),
    # e5: A own; judge TIE then A -> P(A) 0.75; human TIE -> 0.5
    rec("e5", "AB", "TIE", "TIE", "gpt-4.1", "llama-4"), rec("e5", "BA", "A", "TIE", "gpt-4.1", "llama-4"),
    # e6: A own, the judge answered neither order: left out
    rec("e6", "AB", None, "A", "gpt-4.1", "llama-4"), rec("e6", "BA", None, "A", "gpt-4.1", "llama-4"),
]  # fmt: skip


def test_self_preference_by_hand() -> None:
    out = self_preference(RECORDS, "openai/gpt-4.1", n_resamples=2000, seed=3)
    d = out["dimensions"]["overall"]
    assert out["judge_family"] == "openai" and d["n"] == 3  # e1, e2, e5
    assert d["judge_win_rate"] == pytest.approx((1 + 0.5 + 0.75) / 3)  # 0.75
    assert d["human_win_rate"] == pytest.approx((1 + 0 + 0.5) / 3)  # 0.5
    s = d["self_preference"]
    assert s["value"] == pytest.approx(0.25)  # per-example differences 0, 0.5, 0.25
    # bootstrap means of three differences lie in [0, 0.5]; the interval holds the point estimate
    assert 0 <= s["ci_low"] <= 0.25 <= s["ci_high"] <= 0.5 and s["ci_low"] < s["ci_high"]
    assert self_preference(RECORDS, "openai/gpt-4.1", n_resamples=2000, seed=3) == out  # seeded


def test_self_preference_not_applicable_with_reasons() -> None:
    nameless = [r.model_copy(update={"model_a": None, "model_b": None}) for r in RECORDS]
    assert self_preference(nameless, "openai/gpt-4.1") == {"applicable": False, "reason": "the task has no model names"}
    builtin = self_preference(RECORDS, "builtin/longer")
    assert not builtin["applicable"] and "has no known model family" in builtin["reason"]
    mistral = self_preference(RECORDS, "mistral/mistral-large")["dimensions"]["overall"]
    assert mistral == {"applicable": False, "reason": "no example has exactly one mistral-family response that the judge answered"}
    # the task's mapping can make a family: llama-4 as the judge's own family
    mine = self_preference(RECORDS, "hosted_vllm/my-judge", overrides={"my-judge": "meta", "llama": "meta"})
    assert mine["dimensions"]["overall"]["n"] == 2  # e4 (llama-4 is A) and e5 (llama-4 is B); e6 is unanswered


def test_task_yaml_model_families_is_a_known_key(tmp_path: Path) -> None:
    data = yaml.safe_load((TASKS / "sciarena_eval.yaml").read_text())
    data["model_families"] = {"qwen3": "alibaba"}
    (tmp_path / "t.yaml").write_text(json.dumps(data))
    assert load_task_file(tmp_path / "t.yaml").model_families == {"qwen3": "alibaba"}
    data["model_families"] = ["qwen3"]
    (tmp_path / "t.yaml").write_text(json.dumps(data))
    with pytest.raises(JudgebenchError, match="model_families"):
        load_task_file(tmp_path / "t.yaml")


def test_pareto_front_by_hand() -> None:
    points = [CostPoint(n, acc, None, None, cost) for n, acc, cost in
              [("cheap", 40, 0.5), ("mid", 50, 1.0), ("best", 60, 2.0), ("worse", 55, 3.0), ("twin", 50, 1.0)]]  # fmt: skip
    front = {p.judge for p in mark_pareto(points) if p.pareto}
    # "worse" costs more than "best" and scores less; "mid" and "twin" tie, neither dominates the other
    assert front == {"cheap", "mid", "twin", "best"}


@pytest.mark.slow
def test_leaderboard_and_report_draw_cost_vs_accuracy(tmp_path: Path) -> None:
    assert main(["run", "--tasks", "sciarena_eval", "--demo", "--judge", "builtin/longer", "--output-path",
                 str(tmp_path / "longer"), "--quiet"]) == 0  # fmt: skip
    runs = []
    for name, cost in (("cheap", 0.5), ("dear", 2.0)):
        run = tmp_path / name
        shutil.copytree(tmp_path / "longer", run)
        data = json.loads((run / "results.json").read_text())
        data["usage"]["cost_per_100_calls"] = cost  # as a priced judge would have recorded
        (run / "results.json").write_text(json.dumps(data))
        runs.append(run)
    result = RunResult.model_validate_json((runs[0] / "results.json").read_text())
    # 96 judgments over 48 examples: 2 calls per comparison -> 0.5 USD per 100 calls is 1.0 per 100 comparisons
    assert cost_per_100_comparisons(result) == pytest.approx(1.0)
    tables = build_tables([r / "results.json" for r in [tmp_path / "longer", *runs]])
    rows = [r for r in tables["sciarena_eval"] if r.get("cost_per_100_comparisons_usd") is not None]
    assert sorted(r["cost_per_100_comparisons_usd"] for r in rows) == [1.0, 4.0]
    for row in rows:
        row["kind"] = "run"  # copies of a built-in run stand in for two priced judges
    board = tmp_path / "board"
    write_leaderboards(tables, board)
    csv = (board / "sciarena_eval_cost_accuracy.csv").read_text().splitlines()
    assert len(csv) == 3 and csv[1].endswith(",1.0,true") and csv[2].endswith(",4.0,false")
    assert (board / "sciarena_eval_cost_accuracy.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = (board / "index.html").read_text()
    assert "<h3>Cost vs accuracy" in page and "data:image/png;base64," in page
    # the report of one priced run draws its point
    assert main(["report", str(runs[1])]) == 0
    report = (runs[1] / "report" / "report.md").read_text()
    assert "at $4.0000 per 100 comparisons" in report and (runs[1] / "report" / "cost_accuracy.png").is_file()
    assert "Self-preference" in report and "Not applicable: the judge's id has no known model family" in report


@pytest.mark.slow
def test_published_style_board_without_costs_says_why_nothing_is_drawn(tmp_path: Path) -> None:
    assert main(["run", "--tasks", "sciarena_eval", "--demo", "--judge", "builtin/longer", "--output-path",
                 str(tmp_path / "longer"), "--quiet"]) == 0  # fmt: skip
    write_leaderboards(build_tables([tmp_path / "longer" / "results.json"]), tmp_path / "board")
    assert not (tmp_path / "board" / "sciarena_eval_cost_accuracy.png").exists()
    assert "not drawn: no judge with a known cost" in (tmp_path / "board" / "index.html").read_text()
