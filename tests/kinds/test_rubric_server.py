"""Rubric runs end to end against the local OpenAI-compatible server: a YAML-only task, a scripted
judge whose replies break each validation rule once (rejected and re-asked, never clamped), and
every calibration figure recomputed independently from the known final scores."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from openai_server import Behaviour, FakeOpenAIServer, scripted_by_marker
from scipy import stats

from judgebench.calls import RunnerOptions
from judgebench.cli.main import main
from judgebench.core.errors import JudgebenchError
from judgebench.kinds.rubric.run import RubricRunRequest, read_rubric_run, run_rubric

TASK_YAML = """\
kind: rubric
name: my_graded
version: "1"
dataset: {path: graded.jsonl}
columns: {id: rid, question: q, response: text, model: who, rubric: scheme, expert_items: marks,
          group: problem, exam: paper, slices: [area]}
within_k: 1.0
"""
SCHEME = [{"id": "p1", "criterion": "sets up", "max": 2}, {"id": "p2", "criterion": "solves", "max": 1}]
# response id -> (model, paper, area, expert marks p1, p2)
ROWS = {
    "r1": ("m1", "X", "mech", 2.0, 1.0), "r2": ("m2", "X", "mech", 1.0, 0.0), "r3": ("m1", "Y", "opt", 0.5, 0.5),
    "r4": ("m2", "Y", "opt", 2.0, 0.0), "r5": ("m1", "X", "opt", 1.5, 1.0), "r6": ("m2", "X", "mech", 0.0, 0.0),
    "r7": ("m1", "Y", "mech", 1.0, 1.0), "r8": ("m2", "Y", "opt", 0.0, 0.0),
}
NO_ANSWER = "r8"


def good(p1: float, p2: float) -> str:
    items = [{"id": "p1", "score": p1, "evidence": "quoted" if p1 else ""},
             {"id": "p2", "score": p2, "evidence": "quoted" if p2 else ""}]
    return json.dumps({"sub_scores": items, "total_score": p1 + p2, "max_score": 3, "deductions": [], "confidence": 0.9})


# the judge's final (valid) scores: known errors against the expert
FINAL = {"r1": (2.0, 0.5), "r2": (2.0, 0.0), "r3": (0.5, 0.5), "r4": (1.5, 0.0), "r5": (1.5, 1.0), "r6": (0.5, 0.0),
         "r7": (1.0, 1.0)}
BROKEN = {  # first reply of each: breaks one rule
    "r1": json.dumps({"sub_scores": [{"id": "p1", "score": 2, "evidence": "q"}], "total_score": 2}),  # missing item
    "r2": good(2.5, 0.0).replace('"max_score": 3', '"max_score": 3'),  # out of range (2.5 > 2)
    "r3": json.dumps({"sub_scores": json.loads(good(0.5, 0.5))["sub_scores"], "total_score": 2.0}),  # wrong total
    "r4": "I would give this answer 1.5 points out of 3.",  # not JSON
    "r5": json.dumps({"sub_scores": [*json.loads(good(1.5, 1.0))["sub_scores"], {"id": "p3", "score": 0}],
                      "total_score": 2.5}),  # extra item
    "r7": json.dumps({"sub_scores": [{"id": "p1", "score": 1.0}, {"id": "p2", "score": 1.0}], "total_score": 2.0}),  # no evidence
}
REASONS = {"r1": "missing item 'p2'", "r2": "outside [0, 2]", "r3": "not the sum", "r4": "not JSON",
           "r5": "extra item 'p3'", "r7": "without evidence"}


def write_task(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "my_graded.yaml").write_text(TASK_YAML, encoding="utf-8")
    lines = []
    for rid, (who, paper, area, e1, e2) in ROWS.items():
        text = "" if rid == NO_ANSWER else f"RESP-{rid}: my working for this problem."
        lines.append(json.dumps({"rid": rid, "q": f"Problem of {rid}", "text": text, "who": who, "scheme": SCHEME,
                                 "marks": {"p1": e1, "p2": e2}, "problem": f"P{rid}", "paper": paper, "area": area}))
    (folder / "graded.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def run(tmp_path: Path, script: dict[str, list[str]], reask: int, monkeypatch) -> tuple:
    monkeypatch.setenv("JUDGEBENCH_CALL_WORKER", "0")
    folder = write_task(tmp_path / "tasks")
    with FakeOpenAIServer(Behaviour(answer=scripted_by_marker(script))) as server:
        summary = run_rubric(RubricRunRequest(
            task="my_graded", judge="openai/scripted", output_path=tmp_path / "out", include_paths=[folder],
            judge_args={"api_base": server.api_base, "api_key": "sk-test"}, n_resamples=200,
            runner=RunnerOptions(reask=reask, use_cache=False, progress=False, max_retries=0)))
        stats_ = server.stats()
    return summary, stats_


@pytest.mark.slow
def test_each_broken_rule_is_rejected_then_reasked_and_every_attempt_is_kept(tmp_path, monkeypatch):
    script = {f"RESP-{rid}": [BROKEN[rid], good(*FINAL[rid])] if rid in BROKEN else [good(*FINAL[rid])] for rid in FINAL}
    summary, server = run(tmp_path, script, reask=2, monkeypatch=monkeypatch)
    result, records = read_rubric_run(tmp_path / "out")
    by_id = {r.item_id: r for r in records}
    for rid, reason in REASONS.items():
        record = by_id[rid]
        assert record.status == "ANSWERED" and record.attempts == 2
        assert record.attempts_raw == [BROKEN[rid], good(*FINAL[rid])]  # the ledger: both replies, in order
        assert len(record.rejections) == 1 and reason in record.rejections[0]
        assert record.scores == {"p1": FINAL[rid][0], "p2": FINAL[rid][1]}
    assert by_id[NO_ANSWER].status == "NO_ANSWER" and by_id[NO_ANSWER].total == 0 and not by_id[NO_ANSWER].attempts_raw
    assert by_id["r6"].attempts_raw == [good(*FINAL["r6"])] and not by_id["r6"].rejections
    assert server.total == 13  # 6 responses x 2 asks + r6 once; the no-answer response was never sent
    assert result.counts.calls == 13 and result.counts.coverage == 1.0


@pytest.mark.slow
def test_a_reply_that_stays_out_of_range_is_rejected_after_every_reask_never_clamped(tmp_path, monkeypatch):
    script = {f"RESP-{rid}": [good(*FINAL[rid])] for rid in FINAL}
    script["RESP-r2"] = [good(3.0, 0.0)]  # always 3 points on a 2-point item
    _, server = run(tmp_path, script, reask=3, monkeypatch=monkeypatch)
    result, records = read_rubric_run(tmp_path / "out")
    bad = next(r for r in records if r.item_id == "r2")
    assert bad.status == "INVALID" and bad.scores is None and bad.total is None  # not clamped to 2
    assert len(bad.attempts_raw) == 4 and all("outside [0, 2]" in reason for reason in bad.rejections)
    assert "outside [0, 2]" in bad.reason
    assert server.total == 4 + 6
    assert (result.counts.invalid, result.counts.answered, result.counts.no_answer) == (1, 6, 1)
    assert result.metrics["total"]["mae"].n == 7  # r2 left out of the error figures, counted in coverage
    assert result.counts.coverage == pytest.approx(7 / 8)


@pytest.mark.slow
def test_every_calibration_figure_matches_an_independent_computation(tmp_path, monkeypatch):
    script = {f"RESP-{rid}": [good(*FINAL[rid])] for rid in FINAL}
    run(tmp_path, script, reask=0, monkeypatch=monkeypatch)
    result, _ = read_rubric_run(tmp_path / "out")
    final = {**FINAL, NO_ANSWER: (0.0, 0.0)}
    rids = sorted(ROWS)
    judge_items = np.array([s for rid in rids for s in final[rid]])
    expert_items = np.array([s for rid in rids for s in ROWS[rid][3:]])
    tops = np.array([2.0, 1.0] * len(rids))
    judge_tot, expert_tot = judge_items.reshape(-1, 2).sum(1), expert_items.reshape(-1, 2).sum(1)
    for level, (j, e, top) in {"item": (judge_items, expert_items, tops),
                               "total": (judge_tot, expert_tot, np.full(len(rids), 3.0))}.items():
        got = {name: v.value for name, v in result.metrics[level].items()}
        assert got["mae"] == pytest.approx(np.abs(j - e).mean())
        assert got["normalized_mae"] == pytest.approx((np.abs(j - e) / top).mean())
        assert got["bias"] == pytest.approx((j - e).mean())
        assert got["within_k"] == pytest.approx((np.abs(j - e) <= 1.0).mean())
        assert got["over_credit"] == (j - e >= 0.5).sum()
        assert got["pearson"] == pytest.approx(stats.pearsonr(j, e)[0])
        assert got["spearman"] == pytest.approx(stats.spearmanr(j, e)[0])
        assert got["kendall"] == pytest.approx(stats.kendalltau(j, e)[0])
        assert result.metrics[level]["normalized_mae"].ci_low <= got["normalized_mae"] <= result.metrics[level]["normalized_mae"].ci_high
    sums: dict[tuple[str, str], list[float]] = {}
    for k, rid in enumerate(rids):
        pair = sums.setdefault((ROWS[rid][0], ROWS[rid][1]), [0.0, 0.0])
        pair[0] += judge_tot[k]
        pair[1] += expert_tot[k]
    worst = max(sums, key=lambda key: abs(sums[key][0] - sums[key][1]))
    assert result.system.max_abs_difference == pytest.approx(abs(sums[worst][0] - sums[worst][1]))
    assert result.system.worst_pair == f"{worst[0]} / {worst[1]}"
    assert result.system.passed == all(abs(a - b) <= 1.0 for a, b in sums.values())


def test_bad_task_yaml_and_bad_rows_are_one_line_errors(tmp_path, capsys):
    folder = write_task(tmp_path / "tasks")
    args = ["rubric", "run", "--task", "my_graded", "--judge", "builtin/full-credit", "--include-path", str(folder),
            "--output-path", str(tmp_path / "out"), "--quiet"]
    (folder / "my_graded.yaml").write_text(TASK_YAML + "within_kk: 2\n", encoding="utf-8")
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert "my_graded.yaml" in err and "within_kk" in err and len(err.splitlines()) == 1
    write_task(folder)
    data = folder / "graded.jsonl"
    rows = data.read_text().splitlines()
    row = json.loads(rows[2])
    row["marks"]["p1"] = 2.5  # above the item's 2 points
    rows[2] = json.dumps(row)
    data.write_text("\n".join(rows) + "\n")
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert "graded.jsonl:3" in err and "outside [0, 2]" in err and len(err.splitlines()) == 1


def test_other_layouts_map_from_yaml_alone(tmp_path):
    """A CSV file with JSON cells, rubric items under other key names, expert scores as a list."""
    from judgebench.kinds.rubric.spec import get_rubric_task, load_responses

    (tmp_path / "csv_task.yaml").write_text(
        "kind: rubric\nname: csv_task\nversion: '1'\ndataset: {path: d.csv}\n"
        "columns: {id: id, question: q, response: a, model: m, rubric: scheme, expert_items: marks,\n"
        "          rubric_keys: {id: key, max: points}}\n", encoding="utf-8")
    scheme = json.dumps([{"key": "x", "points": 2}, {"key": "y", "points": 1}]).replace('"', '""')
    (tmp_path / "d.csv").write_text(f'id,q,a,m,scheme,marks\n007,Q,"1.5",m1,"{scheme}","[1.5, 0]"\n', encoding="utf-8")
    spec = get_rubric_task("csv_task", [tmp_path])
    [response] = load_responses(spec, tmp_path / "d.csv")
    assert (response.id, response.response) == ("007", "1.5")  # text cells stay text
    assert [(c.id, c.max) for c in response.rubric] == [("x", 2.0), ("y", 1.0)]
    assert response.expert_items == {"x": 1.5, "y": 0.0} and response.expert_total == 1.5
    (tmp_path / "d.csv").write_text(f'id,q,a,m,scheme,marks\n1,Q,A,m1,"{scheme}","[1.5, two]"\n', encoding="utf-8")
    with pytest.raises(JudgebenchError, match=r"d.csv:2: column 'marks'"):
        load_responses(spec, tmp_path / "d.csv")
    (tmp_path / "d.csv").write_text(f'id,q,a,m,scheme,marks,a\n1,Q,A,m1,"{scheme}","[1.5, 0]",B\n', encoding="utf-8")
    with pytest.raises(JudgebenchError, match=r"d.csv: row 1 \(the header\): column 'a' appears twice"):
        load_responses(spec, tmp_path / "d.csv")  # csv.DictReader kept the last 'a' silently
    (tmp_path / "d.csv").write_text(f'id,q,a,m,scheme,marks\n1,Q,A,m1,"{scheme}","[1.5, 0]"\n\n2,Q,A,m1,"{scheme}",'
                                    '"[1, 0]",extra\n', encoding="utf-8")
    with pytest.raises(JudgebenchError, match=r"d.csv:4: 7 fields, the header names 6"):
        load_responses(spec, tmp_path / "d.csv")  # the extra value was dropped silently
    (tmp_path / "d.csv").write_text(f'id,q,a,m,scheme,marks\n1,Q,"A,m1,"{scheme}","[1.5, 0]"\n', encoding="utf-8")
    with pytest.raises(JudgebenchError, match=r"d.csv:2: a quoted cell ends mid-cell"):
        load_responses(spec, tmp_path / "d.csv")  # a stray quote: csv.DictReader read on to the next quote


@pytest.mark.slow
def test_a_run_that_grades_nothing_exits_1_and_says_why_with_every_call_accounted(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("JUDGEBENCH_CALL_WORKER", "0")
    folder = write_task(tmp_path / "tasks")
    with FakeOpenAIServer(Behaviour(status=500)) as server:
        code = main(["rubric", "run", "--task", "my_graded", "--include-path", str(folder), "--judge", "openai/down",
                     "--judge-args", f"api_base={server.api_base},api_key=sk-t", "--output-path", str(tmp_path / "o"),
                     "--quiet", "--max-retries", "0", "--no-cache"])
    assert code == 1 and "no response was graded by the judge" in capsys.readouterr().err  # said on stderr
    result, records = read_rubric_run(tmp_path / "o")  # results written all the same
    assert (result.counts.failed, result.counts.no_answer) == (7, 1)
    assert all(r.error for r in records if r.status == "FAILED")
