"""The rubric commands on the bundled demo: built-in baselines, score, report, leaderboard, compare, submit
(and submit refusing tampered runs)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from judgebench.cli.main import main
from judgebench.core.errors import JudgebenchError, Rejected
from judgebench.kinds.rubric.run import read_rubric_run
from judgebench.kinds.rubric.spec import data_path, get_rubric_task, load_responses
from judgebench.kinds.rubric.verify import verify_rubric_run


def demo_run(tmp_path: Path, judge: str, name: str) -> Path:
    out = tmp_path / name
    assert main(["rubric", "run", "--task", "rubric_demo", "--judge", judge, "--demo", "--output-path", str(out),
                 "--quiet", "--bootstrap", "200"]) == 0
    return out


@pytest.fixture(scope="module")
def full_credit(tmp_path_factory) -> Path:
    return demo_run(tmp_path_factory.mktemp("rubric"), "builtin/full-credit", "full")


def test_demo_task_has_the_promised_shape():
    spec = get_rubric_task("rubric_demo")
    responses = load_responses(spec, data_path(spec, demo=True, dataset_path=None))
    assert len(responses) >= 40
    assert len({r.slices["subject"] for r in responses}) == 3 and len({r.model for r in responses}) == 3
    assert all(len(r.rubric) >= 2 and r.expert_items is not None for r in responses)
    partial = [v for r in responses for c in r.rubric for v in [r.expert_items[c.id]] if 0 < v < c.max]
    assert len(partial) >= 20  # partial credit, not only all-or-nothing marks


def test_full_credit_baseline_figures_follow_from_the_data(full_credit):
    result, records = read_rubric_run(full_credit)
    scored = [r for r in records if r.status == "ANSWERED"]
    # full credit gives every item its maximum: bias = mean(max - expert) over answered items, plus the
    # no-answer rows at zero (judge 0, expert 0)
    items = [(c.max, r.expert_items[c.id]) for r in scored for c in r.rubric]
    n_items = sum(len(r.rubric) for r in records)
    assert result.metrics["item"]["bias"].value == pytest.approx(sum(a - b for a, b in items) / n_items)
    assert result.metrics["item"]["bias"].value > 0 and result.counts.no_answer == 2
    assert result.metrics["item"]["over_credit"].value == sum(a - b >= 0.5 for a, b in items)
    assert result.system.passed is False and result.system.worst_pair


def test_model_and_exam_names_reach_the_terminal_escaped(tmp_path, capsys):
    """An outside attack: the system-level line (`FAIL, worst MODEL / EXAM`) of `rubric run` and `rubric score` printed
    the data's names raw: a window title, a cleared screen, a hidden link."""
    demo = Path(__file__).resolve().parents[2] / "tasks" / "demo" / "rubric_demo.jsonl"
    rows = [json.loads(line) for line in demo.read_text().splitlines()]
    for row in rows:
        row["model"] += "\x1b]0;PWNED\x07\x1b[2J"
        row["exam"] += "\x1b[31mRED"
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    run = tmp_path / "r"
    assert main(["rubric", "run", "--task", "rubric_demo", "--judge", "builtin/full-credit", "--dataset-path", str(data),
                 "--output-path", str(run), "--quiet"]) == 0
    assert main(["rubric", "score", str(run)]) == 0
    printed = capsys.readouterr().out
    assert printed.count("-> FAIL, worst ") == 2 and "\\x1b[2J" in printed and "\x1b" not in printed and "\x07" not in printed


def test_a_report_of_one_response_says_its_undefined_figures_in_words(tmp_path):
    """An outside audit: one response (or constant totals) printed `model rank Spearman None, Kendall None` and an
    unrounded `|difference| 1.4499999999999993` into report.md."""
    demo = Path(__file__).resolve().parents[2] / "tasks" / "demo" / "rubric_demo.jsonl"
    data = tmp_path / "one.jsonl"
    data.write_text(demo.read_text().splitlines()[0] + "\n")
    run = tmp_path / "r"
    assert main(["rubric", "run", "--task", "rubric_demo", "--judge", "builtin/length-proportional", "--dataset-path",
                 str(data), "--output-path", str(run), "--quiet", "--bootstrap", "0"]) == 0
    assert main(["rubric", "report", str(run)]) == 0
    report = (run / "report" / "report.md").read_text()
    assert "None" not in report and "model rank agreement undefined" in report
    difference = re.search(r"\|difference\| ([^)]*)\)", report).group(1)
    assert len(difference) <= 7, difference


@pytest.mark.slow
def test_rubric_demo_baselines_run_score_report_leaderboard_and_submit(full_credit, tmp_path, capsys):
    length = demo_run(tmp_path, "builtin/length-proportional", "length")
    before = json.loads((length / "results.json").read_text())
    assert main(["rubric", "score", str(length)]) == 0
    assert json.loads((length / "results.json").read_text())["metrics"] == before["metrics"]
    assert main(["rubric", "report", str(length)]) == 0
    assert {p.name for p in (length / "report").iterdir()} >= {"report.md", "scatter.png", "slice_bias.png", "system_totals.png"}
    assert main(["rubric", "leaderboard", str(full_credit), str(length), "--output-dir", str(tmp_path / "lb")]) == 0
    rows = json.loads((tmp_path / "lb" / "rubric_demo.json").read_text())
    values = [row["normalized_mae"] for row in rows]
    assert values == sorted(values) and {row["kind"] for row in rows} == {"baseline"}
    capsys.readouterr()
    assert main(["rubric", "compare", str(full_credit), str(length)]) == 0
    assert "paired test" in capsys.readouterr().out
    board = tmp_path / "board"
    assert main(["rubric", "submit", str(length), "--leaderboard-dir", str(board)]) == 0
    assert (board / "rubric" / "rubric_demo.md").is_file()


def tampered(run: Path, tmp_path: Path, edit) -> Path:
    copy = tmp_path / "tampered"
    shutil.copytree(run, copy)
    lines = [json.loads(line) for line in (copy / "samples.jsonl").read_text().splitlines()]
    edit(lines)
    (copy / "samples.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return copy


def test_verify_accepts_the_honest_run_and_refuses_tampered_ones(full_credit, tmp_path):
    verify_rubric_run(full_credit, [])

    def lower_a_score(lines):
        line = next(x for x in lines if x["status"] == "ANSWERED")
        line["scores"][next(iter(line["scores"]))] = 0.0

    def no_answer_with_a_call(lines):
        next(x for x in lines if x["status"] == "NO_ANSWER")["status"] = "ANSWERED"

    def edit_expert(lines):
        lines[0]["expert_total"] = 0.0

    for edit, check in ((lower_a_score, "reparse"), (no_answer_with_a_call, "no-answer"), (edit_expert, "data")):
        with pytest.raises(Rejected) as caught:
            verify_rubric_run(tampered(full_credit, tmp_path / edit.__name__, edit), [])
        assert caught.value.check == check

    def unknown_response(lines):  # an outside attack: "(coverage): 45 records for 45 expected", naming nothing
        lines[0]["item_id"] = "zz-unknown"

    named = "1 not in the task's data, e.g. response 'zz-unknown' repeat 0"
    with pytest.raises(Rejected, match=re.escape(named)) as caught:
        verify_rubric_run(tampered(full_credit, tmp_path / "unknown", unknown_response), [])
    assert caught.value.check == "coverage"


def test_verify_refuses_edited_figures_and_an_edited_builtin_reply(full_credit, tmp_path):
    figures = tmp_path / "figures"
    shutil.copytree(full_credit, figures)
    data = json.loads((figures / "results.json").read_text())
    data["metrics"]["item"]["normalized_mae"]["value"] = 0.01
    (figures / "results.json").write_text(json.dumps(data))
    with pytest.raises(Rejected, match="figures"):
        verify_rubric_run(figures, [])

    def respaced(lines):
        line = next(x for x in lines if x["status"] == "ANSWERED")
        line["raw"] = line["attempts_raw"][-1] = " " + line["raw"]

    with pytest.raises(Rejected, match="builtin"):
        verify_rubric_run(tampered(full_credit, tmp_path / "b", respaced), [])


def test_a_rubric_task_given_to_the_pairwise_run_points_to_the_rubric_command(tmp_path, capsys):
    code = main(["run", "--tasks", str(Path(get_rubric_task("rubric_demo").source_file)), "--judge", "builtin/longer",
                 "--output-path", str(tmp_path / "o")])
    assert code == 2 and "judgebench rubric run" in capsys.readouterr().err


def test_published_rubric_tables_are_rebuilt_by_code(tmp_path):
    from judgebench.kinds.rubric.verify import rebuild

    board = Path(__file__).resolve().parents[2] / "leaderboards"
    written = rebuild(board, tmp_path)
    assert written and all((board / "rubric" / p.name).read_text() == p.read_text() for p in written)


def test_the_documented_worked_example_gives_the_hand_computed_figure(tmp_path, capsys):
    example = Path(__file__).resolve().parents[2] / "docs" / "examples" / "rubric"
    assert main(["rubric", "run", "--task", "lab_quiz", "--include-path", str(example), "--judge",
                 "builtin/full-credit", "--output-path", str(tmp_path / "o"), "--quiet", "--bootstrap", "0"]) == 0
    result, _ = read_rubric_run(tmp_path / "o")
    # |max - expert| / max per item: a1 0, 0; a2 1, 1; a3 .5, .5; a4 0, 0; a5 .5, 1; a6 (no answer) 0, 0 -> 4.5 / 12
    assert result.metrics["item"]["normalized_mae"].value == pytest.approx(4.5 / 12)
    assert result.counts.no_answer == 1


def test_the_summary_states_its_intervals_level_as_the_guide_shows(tmp_path, capsys):
    # "normalized MAE 0.000 [0.000, 0.000] (n=16)" stated no level; said once, beside the first interval, and the
    # guide's worked example quotes the line
    repo = Path(__file__).resolve().parents[2]
    assert main(["rubric", "run", "--task", "lab_quiz", "--include-path", str(repo / "docs" / "examples" / "rubric"),
                 "--judge", "builtin/full-credit", "--output-path", str(tmp_path / "o"), "--quiet"]) == 0
    item, total = capsys.readouterr().out.splitlines()[:2]
    guide = next(line for line in (repo / "docs" / "guide" / "rubric.md").read_text().splitlines()
                 if line.startswith("# lab_quiz item: "))
    head, tail = guide.removeprefix("# ").split("; ... ")
    assert item.startswith(head + "; ") and item.endswith("; " + tail)
    assert "(95% bootstrap interval, n=12)" in item and total.startswith("lab_quiz total: normalized MAE 0.361 [")
    assert "95%" not in total
    assert main(["rubric", "score", str(tmp_path / "o"), "--bootstrap", "0"]) == 0
    item, total = capsys.readouterr().out.splitlines()[:2]
    assert item.startswith("lab_quiz item: normalized MAE 0.375 (n=12); ") and "95%" not in item + total


@pytest.mark.parametrize(("field", "value", "check"), [("task", "../rubric/rubric_demo", "task"), ("judge", "..", "judge")])
def test_submit_refuses_names_that_would_leave_the_board(full_credit, tmp_path, field, value, check):
    from judgebench.kinds.rubric.verify import submit_rubric

    copy = tampered(full_credit, tmp_path, lambda lines: [line.update({field: value}) for line in lines])
    data = json.loads((copy / "results.json").read_text())
    data["config"][field] = value
    data["config"]["judge"] = data["config"]["judge"] if field == "task" else value
    (copy / "results.json").write_text(json.dumps(data))
    with pytest.raises(Rejected) as caught:
        submit_rubric(copy, tmp_path / "board", [])
    assert caught.value.check == check
    assert not (tmp_path / "board").exists()


def test_agree_of_a_run_with_itself_is_perfect_and_different_data_is_refused(full_credit, tmp_path, capsys):
    from judgebench.kinds.rubric.board import judge_agreement

    run = read_rubric_run(full_credit)
    rows = judge_agreement([run, run])
    assert rows[0]["items"] == 135 and rows[0]["normalized_mae"] == 0.0 and rows[0]["exact_item_agreement"] == 1.0
    other = (run[0].model_copy(update={"config": run[0].config.model_copy(update={"fingerprint": "x"})}), run[1])
    with pytest.raises(JudgebenchError, match="fingerprint"):
        judge_agreement([run, other])
    assert main(["rubric", "agree", str(full_credit)]) == 2


def test_a_run_the_judge_graded_nothing_is_neither_ranked_nor_accepted(full_credit, tmp_path, capsys):
    """An outside attack: a judge whose every reply was rejected had normalized MAE 0.0 (the demo's two empty
    responses, scored zero without a call, were all its figures cover) and was ranked first; `rubric submit`
    took it (its bar was 0)."""
    from openai_server import Behaviour, FakeOpenAIServer

    out = tmp_path / "nothing"
    with FakeOpenAIServer(Behaviour(answer="I would give it full marks.")) as server:
        code = main(["rubric", "run", "--task", "rubric_demo", "--judge", "openai/m", "--judge-args",
                     f"api_base={server.api_base},api_key=sk-t", "--demo", "--output-path", str(out), "--quiet",
                     "--no-cache", "--reask", "0", "--bootstrap", "200"])
    assert code == 1 and "FAILED: no response was graded by the judge" in capsys.readouterr().err  # stderr, as `run`'s
    result, _ = read_rubric_run(out)
    assert (result.counts.answered, result.counts.no_answer, result.metrics["item"]["normalized_mae"].value) == (0, 2, 0.0)
    assert main(["rubric", "leaderboard", str(out), str(full_credit), "--output-dir", str(tmp_path / "lb")]) == 0
    rows = json.loads((tmp_path / "lb" / "rubric_demo.json").read_text())
    assert [(row["judge"], row["rank"]) for row in rows] == [("builtin/full-credit", 1), ("openai/m", None)]
    capsys.readouterr()
    assert main(["rubric", "compare", str(full_credit), str(out)]) == 0  # a walkthrough: "+0.0000 ... p = 1", no word
    captured = capsys.readouterr()  # of the candidate having graded almost nothing
    assert f"(coverage: baseline 1.000, candidate {result.counts.coverage:.3f})" in captured.out
    assert (f"warning: the candidate scored {100 * result.counts.coverage:.1f}% of its judgments (below 90%): the "
            "comparison is over those only") in captured.err
    assert main(["rubric", "agree", str(full_credit), str(out)]) == 0  # `agree` as well (an attack: no word there)
    assert f"warning: the run {out} scored {100 * result.counts.coverage:.1f}% of its judgments" in capsys.readouterr().err
    assert main(["rubric", "submit", str(out), "--leaderboard-dir", str(tmp_path / "board"),
                 "--min-coverage", "0"]) == 2
    assert "no response was graded by the judge" in capsys.readouterr().err
    assert not (tmp_path / "board").exists()


@pytest.mark.parametrize(("coverage", "rank"), [(0.9, 1), (0.89, None)])
def test_a_run_below_submits_coverage_bar_is_listed_unranked(full_credit, coverage, rank):
    from judgebench.kinds.rubric.board import leaderboard_rows

    result, _ = read_rubric_run(full_credit)
    result.counts.coverage = coverage
    assert [row["rank"] for row in leaderboard_rows([result])["rubric_demo"]] == [rank]


def test_boards_with_rubric_tables_check_every_path_before_the_first(full_credit, tmp_path, capsys):
    """An attack: `leaderboard` with a rubric run wrote the pairwise tables and index.html, then refused a linked
    rubric table; `rubric leaderboard` wrote one task's tables before refusing the next's."""
    from test_submit import make_run

    pairwise = make_run(tmp_path / "p", "sciarena_eval", "builtin/longer")
    outside = tmp_path / "outside.md"
    board = tmp_path / "lb"
    (board / "rubric").mkdir(parents=True)
    (board / "rubric" / "rubric_demo.md").symlink_to(outside)
    assert main(["leaderboard", str(pairwise), str(full_credit), "--output-dir", str(board)]) == 2
    assert "rubric_demo.md: outside" in capsys.readouterr().err and not outside.exists()
    assert sorted(p.name for p in board.rglob("*")) == ["rubric", "rubric_demo.md"]
    alone = tmp_path / "rb"
    alone.mkdir()
    (alone / "rubric_demo.json").symlink_to(outside)
    assert main(["rubric", "leaderboard", str(full_credit), "--output-dir", str(alone)]) == 2
    assert sorted(p.name for p in alone.iterdir()) == ["rubric_demo.json"] and not outside.exists()


def test_one_problem_gives_figures_without_intervals(tmp_path):
    """An outside attack: `--limit 1` (one response, its three items of one problem) printed `normalized MAE 0.333
    [0.333, 0.333]`: the cluster bootstrap resamples problems, and one problem is one unit."""
    run = tmp_path / "one"
    assert main(["rubric", "run", "--task", "rubric_demo", "--judge", "builtin/full-credit", "--demo", "--limit", "1",
                 "--output-path", str(run), "--quiet"]) == 0
    metrics = json.loads((run / "results.json").read_text())["metrics"]
    assert all(v["ci_low"] is None for level in metrics.values() for v in level.values())
    assert metrics["item"]["normalized_mae"]["value"] is not None
