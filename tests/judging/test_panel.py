"""Panels of judges (`judgebench panel`): rules, agreement figures, the test against the best member,
usage, refusals, and `score` / `report` / `compare` / `leaderboard` / `submit` on a panel directory.

Every expected value below is worked out by hand in the comments, never copied from the code's output.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from test_submit import edit_samples, make_run

from judgebench.api import build_leaderboard, build_panel, compare_runs
from judgebench.cli.main import main
from judgebench.core.errors import JudgebenchError, Rejected
from judgebench.core.files import read_models_jsonl
from judgebench.core.records import (
    DatasetInfo,
    JudgmentRecord,
    RunConfig,
    swap_verdict,
)
from judgebench.core.rundir import read_run, write_run
from judgebench.judges.config import config_hash
from judgebench.publish.verify import validate_run
from judgebench.scoring.panel_stats import aggregate_votes, fleiss_kappa
from judgebench.scoring.score import rescore_run, score
from judgebench.tasks.registry import run_task_spec

TRI_TASK = """\
name: tri_task
version: "1"
dataset: {path: tri.jsonl, split: train}
layout: wide
columns: {id: id, question: question, response_a: a, response_b: b, label: label}
labels: {A: A, B: B, TIE: TIE}
verdicts: [A, B, TIE]
prompt: pairwise_generic.yaml
headline: soft_accuracy
"""


# ----------------------------------------------------------------------------- hand-built runs


def record(task: str, judge: str, example: str, order: str, vote: str, label: str, usage: float = 0) -> JudgmentRecord:
    """One judgment; `vote` is A / B / TIE in the dataset's positions, or INVALID / FAILED."""
    answered = vote in ("A", "B", "TIE")
    shown = (vote if order == "AB" else swap_verdict(vote)) if answered else None
    failed = vote == "FAILED"
    return JudgmentRecord(
        task=task, example_id=example, dimension="overall", order=order, judge=judge,
        prompt_hash=hashlib.sha256(f"{judge}/{example}/{order}".encode()).hexdigest(),
        status="ANSWERED" if answered else vote, raw=None if failed else f"[[{shown}]]" if answered else "no idea",
        error="boom" if failed else None, verdict_shown=shown, verdict=vote if answered else None, label=label,
        length_a=10, length_b=20,
        tokens_in=int(10 * usage) if usage and not failed else None, tokens_out=int(usage) if usage and not failed else None,
        cost_usd=usage / 100 if usage and not failed else None,
    )  # fmt: skip


def hand_run(folder: Path, task: str, judge: str, votes: dict[str, str | tuple[str, str]], labels: dict[str, str],
             *, orders: tuple[str, ...] = ("AB", "BA"), usage: float = 0, task_file: Path | None = None,
             both_bad: str = "tie", fingerprint: str = "fp") -> Path:  # fmt: skip
    """A run directory of hand-chosen votes (one vote for both orders, or an (AB, BA) pair), scored for real."""
    records = []
    for example, vote in votes.items():
        pair = vote if isinstance(vote, tuple) else (vote, vote)
        records += [record(task, judge, example, order, pair[i], labels[example], usage) for i, order in enumerate(orders)]
    config = RunConfig(
        task=task, task_version="1" if task == "tri_task" else "1.0",
        dataset=DatasetInfo(source="hand", split="test", fingerprint=fingerprint),
        judge=judge, prompt_template="hand", prompt_template_hash=hashlib.sha256(judge.encode()).hexdigest(),
        judgebench_version="0", started_at="2026-01-01T00:00:00Z", swap=len(orders) == 2, both_bad=both_bad,
        headline="soft_accuracy" if task == "tri_task" else "accuracy", n_resamples=50,
    )  # fmt: skip
    if task_file is not None:
        folder.mkdir(parents=True, exist_ok=True)
    spec = run_task_spec(folder, task, [task_file.parent] if task_file else [])
    result = score(records, config, spec, n_examples=len(votes))
    write_run(folder, result, records, task_file=task_file)
    return folder


# Binary (sciarena_eval: A / B, headline accuracy); each member votes the same in both orders.
BIN_LABELS = dict(zip([f"e{i:02d}" for i in range(1, 12)], "ABABABABAAB"))
BIN_VOTES = {
    "J1": list("ABABBABBA-B"),  # e10: INVALID in AB, FAILED in BA (abstains)
    "J2": list("ABBAABAAAAB"),
    "J3": list("BAABABABBBB"),
}


def bin_votes(judge: str) -> dict[str, str | tuple[str, str]]:
    votes: dict[str, str | tuple[str, str]] = dict(zip(BIN_LABELS, BIN_VOTES[judge]))
    if votes["e10"] == "-":
        votes["e10"] = ("INVALID", "FAILED")
    return votes


@pytest.fixture(scope="module")
def binary(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("binary")
    return {
        judge: hand_run(folder / judge, "sciarena_eval", f"hand/{judge}", bin_votes(judge), BIN_LABELS, usage=usage)
        for judge, usage in (("J1", 1), ("J2", 2), ("J3", 3))
    }


@pytest.fixture(scope="module")
def binary_panel(binary, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("binary_panel") / "panel"
    build_panel([binary["J1"], binary["J2"], binary["J3"]], out, aggregate="majority", n_resamples=50)
    return out


# Ternary (one dimension, A / B / TIE, soft accuracy), order AB only.
TRI_LABELS = {"e1": "A", "e2": "TIE", "e3": "B", "e4": "A", "e5": "B", "e6": "A", "e7": "TIE", "e8": "B"}
TRI_VOTES = {
    "T1": ["A", "A", "B", "A", "INVALID", "A", "TIE", "A"],
    "T2": ["A", "B", "B", "INVALID", "FAILED", "TIE", "TIE", "A"],
    "T3": ["B", "TIE", "B", "FAILED", "INVALID", "INVALID", "B", "TIE"],
}


@pytest.fixture(scope="module")
def ternary(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("ternary")
    task_file = folder / "tasks" / "tri_task.yaml"
    task_file.parent.mkdir()
    task_file.write_text(TRI_TASK)
    return {
        judge: hand_run(folder / judge, "tri_task", f"hand/{judge}", dict(zip(TRI_LABELS, votes)), TRI_LABELS,
                        orders=("AB",), task_file=task_file)
        for judge, votes in TRI_VOTES.items()
    }  # fmt: skip


def verdicts(panel: Path) -> list[str | None]:
    _, records = read_run(panel)
    return [r.verdict for r in sorted(records, key=lambda r: (r.example_id, r.order))]


# ----------------------------------------------------------------------------- rules


def test_rules_on_single_judgments():
    # abstentions never count; nobody answered: the panel is INVALID (None)
    assert aggregate_votes(["INVALID", "FAILED", "MISSING"], "majority", True) is None
    assert aggregate_votes(["FAILED", "B", "INVALID"], "mean", False) == "B"
    # binary split: the first answered member, in the order given, decides
    assert aggregate_votes(["INVALID", "B", "A"], "majority", False) == "B"
    assert aggregate_votes(["A", "B", "B", "A"], "majority", False) == "A"
    assert aggregate_votes(["B", "A"], "mean", False) == "B"  # binary mean = binary majority
    # ternary split: TIE
    assert aggregate_votes(["A", "B"], "majority", True) == "TIE"
    assert aggregate_votes(["A", "A", "B", "B", "TIE"], "majority", True) == "TIE"
    # mean with ties: m = (1 + 1 + 0) / 3 = 2/3 is not > 2/3: TIE; (1 + 1 + 0.5) / 3 = 5/6: A; (0 + 0.5) / 2 = 1/4 < 1/3: B
    assert [aggregate_votes(v, "mean", True) for v in (["A", "A", "B"], ["A", "A", "TIE"], ["B", "TIE"])] == ["TIE", "A", "B"]
    # unanimous-else-tie: TIE with ties, the panel abstains without them
    assert aggregate_votes(["A", "INVALID", "A"], "unanimous-else-tie", False) == "A"
    assert aggregate_votes(["A", "B"], "unanimous-else-tie", True) == "TIE"
    assert aggregate_votes(["A", "B"], "unanimous-else-tie", False) is None


def test_ternary_panels_by_hand(ternary, tmp_path):
    members = [ternary["T1"], ternary["T2"], ternary["T3"]]
    # votes per example (T1, T2, T3) and labels:
    # e1 A A B (A)  e2 A B TIE (TIE)  e3 B B B (B)  e4 A - - (A)  e5 - - - (B)  e6 A TIE - (A)  e7 TIE TIE B (TIE)  e8 A A TIE (B)
    expected = {
        # e2: 1-1-1 and e6: 1-1 are ternary splits -> TIE; e5: nobody answered -> INVALID
        "majority": ["A", "TIE", "B", "A", None, "TIE", "TIE", "A"],
        # halves sums s over n answered: A if 3s > 4n, B if 3s < 2n: e1 s=4,n=3 TIE; e6 s=3,n=2 (9 > 8) A; e7 s=2,n=3 TIE; e8 s=5,n=3 A
        "mean": ["TIE", "TIE", "B", "A", None, "A", "TIE", "A"],
        "unanimous-else-tie": ["TIE", "TIE", "B", "A", None, "TIE", "TIE", "TIE"],
    }
    soft = {  # soft credit per example against the labels A TIE B A B A TIE B
        "majority": [1, 1, 1, 1, 0, 0.5, 1, 0],
        "mean": [0.5, 1, 1, 1, 0, 1, 1, 0],
        "unanimous-else-tie": [0.5, 1, 1, 1, 0, 0.5, 1, 0.5],
    }
    for aggregate, want in expected.items():
        out = tmp_path / aggregate
        result = build_panel(members, out, aggregate=aggregate, n_resamples=50)
        assert verdicts(out) == want
        assert result.metrics["overall"]["soft_accuracy"].value == pytest.approx(sum(soft[aggregate]) / 8)
        assert (result.counts.answered, result.counts.invalid, result.counts.coverage) == (7, 1, 7 / 8)
        assert result.config.swap is False and result.config.kind == "panel"


def test_agreement_by_hand(ternary, tmp_path):
    result = build_panel([ternary["T1"], ternary["T2"], ternary["T3"]], tmp_path / "p", n_resamples=50)
    panel = result.panel
    # T1 vs T2, both answered on e1 e2 e3 e6 e7 e8: agree on 4 of 6 (po 2/3); margins T1 A4 B1 T1, T2 A2 B2 T2:
    # pe = (8 + 2 + 2) / 36 = 1/3, kappa = (2/3 - 1/3) / (2/3) = 1/2.
    # T1 vs T3 on e1 e2 e3 e7 e8: agree 1 of 5; T1 A3 B1 T1, T3 B3 T2: pe = (3 + 2) / 25 = 1/5, kappa 0.
    # T2 vs T3 on the same five: agree 1 of 5; T2 A2 B2 T1: pe = (6 + 2) / 25, kappa = (5 - 8) / (25 - 8) = -3/17.
    assert panel.cohen_kappa[0][1] == pytest.approx(0.5) and panel.cohen_kappa[1][0] == pytest.approx(0.5)
    assert panel.cohen_kappa[0][2] == pytest.approx(0.0, abs=1e-12)
    assert panel.cohen_kappa[1][2] == pytest.approx(-3 / 17)
    assert panel.cohen_kappa_n[0][1] == 6 and panel.cohen_kappa_n[1][2] == 5 and panel.cohen_kappa[0][0] == pytest.approx(1.0)
    # Fleiss on the 5 judgments all answered, counts (A, TIE, B): e1 2 0 1, e2 1 1 1, e3 0 0 3, e7 0 2 1, e8 2 1 0.
    # P_i = (sum n^2 - 3) / 6: 1/3, 0, 1, 1/3, 1/3 -> mean 2/5; p = 5/15, 4/15, 6/15 -> Pe = 77/225;
    # kappa = (90/225 - 77/225) / (148/225) = 13/148.
    assert (panel.fleiss_kappa, panel.fleiss_kappa_n) == (pytest.approx(13 / 148), 5)


def test_fleiss_kappa_small_tables():
    assert fleiss_kappa(np.array([[2, 0], [0, 2]])) == pytest.approx(1.0)  # P_i 1, 1; Pe 1/2
    assert fleiss_kappa(np.array([[1, 1], [1, 1]])) == pytest.approx(-1.0)  # P_i 0, 0; Pe 1/2
    # 3 raters: [3,0] [0,3] [2,1] [1,2]: P_i 1, 1, 1/3, 1/3 -> 2/3; p = 1/2, 1/2 -> Pe 1/2; kappa = (2/3 - 1/2) / (1/2) = 1/3
    assert fleiss_kappa(np.array([[3, 0], [0, 3], [2, 1], [1, 2]])) == pytest.approx(1 / 3)
    assert fleiss_kappa(np.array([[2, 0], [1, 0]])) is None  # unequal raters per item
    assert fleiss_kappa(np.array([[2, 0], [2, 0]])) is None  # one category only: Pe = 1


def test_undefined_panel_figures_are_dashes_and_words_not_n_a(binary, tmp_path, capsys):
    # A member that never answers validly: its kappas, Fleiss' kappa (no judgment all members answered) and its
    # biases (no decisive verdict) are undefined: "—" in the matrix and the table, the reason in words.
    mute = hand_run(tmp_path / "mute", "sciarena_eval", "hand/mute", {e: "INVALID" for e in BIN_LABELS}, BIN_LABELS)
    out = tmp_path / "panel"
    assert main(["panel", str(binary["J2"]), str(mute), "--output-path", str(out), "--bootstrap", "50"]) == 0
    printed = capsys.readouterr().out
    assert main(["report", str(out)]) == 0
    report = (out / "report" / "report.md").read_text()
    section = report[report.index("## Panel"):]
    section = section[:section.index("```", section.index("```") + 3)]
    for text in (printed, section):
        assert "n/a" not in text
        assert "  [1]   1.000       —  hand/J2\n  [2]       —       —  hand/mute\n" in text
        assert "Fleiss' kappa: undefined (no judgment all members answered)\n" in text
        assert "\nhand/mute | 0.0% | 0.0% | — | —\n" in text
    panel = json.loads((out / "results.json").read_text())["panel"]
    assert (panel["fleiss_kappa"], panel["fleiss_kappa_n"], panel["cohen_kappa"][1]) == (None, 0, [None, None])
    # both members vote A whenever they answer (the second abstains on e11): 20 judgments both answered, all A,
    # so chance agreement is 1
    yes = [hand_run(tmp_path / j, "sciarena_eval", f"hand/{j}", {e: "A" for e in BIN_LABELS} | skip, BIN_LABELS)
           for j, skip in (("yes1", {}), ("yes2", {"e11": "INVALID"}))]
    assert main(["panel", *map(str, yes), "--output-path", str(tmp_path / "yes"), "--bootstrap", "50"]) == 0
    printed = capsys.readouterr().out
    assert "Fleiss' kappa: undefined (one verdict throughout the n = 20 judgments every member answered)\n" in printed
    assert "n/a" not in printed


def test_binary_majority_versus_best_usage_and_bias(binary, binary_panel):
    result, records = read_run(binary_panel)
    # majority is right everywhere: e10 splits A (J2) vs B (J3) with J1 abstaining; J2 is the first answered member
    assert verdicts(binary_panel) == [v for v in BIN_LABELS.values() for _ in range(2)]
    assert result.metrics["overall"]["accuracy"].value == pytest.approx(1.0)
    v = result.panel.versus_best
    # members right on 7, 8 and 7 of 11 examples: best J2, wrong on e3 e4 e8 where the panel is right:
    # n = 3 changed examples, all rose; McNemar exact p = 2 * (1/2)^3 = 1/4
    assert (v.best_member, v.best_value, v.panel_value) == ("hand/J2", pytest.approx(8 / 11), pytest.approx(1.0))
    assert (v.test, v.n, v.rose, v.fell, v.p) == ("McNemar exact", 3, 3, 0, pytest.approx(0.25))
    # J1 vs J2 over the 10 examples both answered (x2 orders): agree on e1 e2 e9 e11 (po 0.4); J1 A4 B6, J2 A6 B4:
    # pe = 0.48, kappa = -0.08 / 0.52 = -2/13
    assert result.panel.cohen_kappa[0][1] == pytest.approx(-2 / 13) and result.panel.cohen_kappa_n[0][1] == 20
    # usage: the members' sums. J1 21 calls with tokens (e10 BA failed) x (10 in, 1 out, $0.01); J2 22 x (20, 2, 0.02); J3 22 x (30, 3, 0.03)
    assert (result.usage.tokens_in, result.usage.tokens_out) == (210 + 440 + 660, 21 + 44 + 66)
    assert result.usage.cost_usd == pytest.approx(0.21 + 0.44 + 0.66)
    members = [read_run(binary[j])[0].usage for j in ("J1", "J2", "J3")]
    assert result.usage.tokens_in == sum(u.tokens_in for u in members)
    # biases: every judge answers alike in both orders, so half its decisive verdicts pick the first shown;
    # response B is the longer everywhere: the panel picks B on 5 of 11 examples, J1 on 6 of the 10 it answered
    figures = {f.judge: f for f in result.panel.figures}
    assert figures[result.config.judge].position_bias == pytest.approx(0.5)
    assert figures[result.config.judge].longer_preferred_rate == pytest.approx(5 / 11)
    assert figures["hand/J1"].longer_preferred_rate == pytest.approx(0.6)
    assert figures["hand/J1"].coverage == pytest.approx(20 / 22)
    assert result.config.members[1].run_dir == "2-J2" and (binary_panel / "members" / "2-J2" / "samples.jsonl").is_file()
    raw = json.loads(next(r.raw for r in records if r.example_id == "e10" and r.order == "BA"))
    assert raw == {"panel": "majority", "votes": ["FAILED", "A", "B"]}


def test_binary_split_follows_the_member_order_and_unanimous_abstains(binary, tmp_path):
    reverse = build_panel([binary["J3"], binary["J2"], binary["J1"]], tmp_path / "rev", n_resamples=50)
    assert verdicts(tmp_path / "rev")[18:20] == ["B", "B"]  # e10: J3 now chairs the split
    assert reverse.metrics["overall"]["accuracy"].value == pytest.approx(10 / 11)
    mean = build_panel([binary["J1"], binary["J2"], binary["J3"]], tmp_path / "mean", aggregate="mean", n_resamples=50)
    assert mean.metrics["overall"]["accuracy"].value == pytest.approx(1.0)  # binary mean = binary majority
    strict = build_panel([binary["J1"], binary["J2"], binary["J3"]], tmp_path / "u", aggregate="unanimous-else-tie", n_resamples=50)
    # only e11 is unanimous (B); every other judgment abstains on a task without ties
    assert (strict.counts.answered, strict.counts.invalid) == (2, 20)
    assert strict.metrics["overall"]["accuracy"].value == pytest.approx(1 / 11)


def test_orders_and_missing_judgments(binary, tmp_path):
    # J4 ran order AB only: the panel judges AB only
    single = hand_run(tmp_path / "J4", "sciarena_eval", "hand/J4", bin_votes("J3"), BIN_LABELS, orders=("AB",))
    result = build_panel([binary["J1"], binary["J2"], single], tmp_path / "p", n_resamples=50)
    _, records = read_run(tmp_path / "p")
    assert result.config.swap is False and {r.order for r in records} == {"AB"} and len(records) == 11
    # a member that lacks an example altogether (a shard, a hand-edited run) is refused (issue 27 item 9):
    # two shards with disjoint examples made a panel of one vote per example
    votes = bin_votes("J3")
    del votes["e11"]
    lacking = hand_run(tmp_path / "J5", "sciarena_eval", "hand/J5", votes, BIN_LABELS, orders=("AB",))
    with pytest.raises(JudgebenchError, match="must judge the same examples"):
        build_panel([binary["J1"], binary["J2"], lacking], tmp_path / "p2", n_resamples=50)


def test_mismatched_members_are_refused(binary, ternary, tmp_path):
    j1, j2 = binary["J1"], binary["J2"]
    other_data = hand_run(tmp_path / "fp", "sciarena_eval", "hand/x", bin_votes("J3"), BIN_LABELS, fingerprint="other")
    exclude = hand_run(tmp_path / "bb", "sciarena_eval", "hand/y", bin_votes("J3"), BIN_LABELS, both_bad="exclude")
    relabelled = hand_run(tmp_path / "lab", "sciarena_eval", "hand/z", bin_votes("J3"), {**BIN_LABELS, "e01": "B"})
    cases = [
        ([j1, ternary["T1"]], "task"),
        ([j1, other_data], "data fingerprint"),
        ([j1, exclude], "Both-Bad rule"),
        ([j1, relabelled], "different human labels"),
        ([j1, j1], "given twice"),
        ([j1, shutil.copytree(j1, tmp_path / "copy")], "same answers"),
        ([j1], "at least two"),
    ]
    for members, words in cases:
        with pytest.raises(JudgebenchError, match=words) as info:
            build_panel(members, tmp_path / "out", n_resamples=50)
        assert "\n" not in str(info.value)
    with pytest.raises(JudgebenchError, match="overlaps"):
        build_panel([j1, j2], j1 / "panel", n_resamples=50)
    assert main(["panel", str(j1), str(j2), "--aggregate", "median", "--output-path", str(tmp_path / "o")]) == 2
    assert main(["panel", str(j1), str(j2), "--output-path", str(tmp_path / "ok")]) == 0
    assert main(["panel", str(j1), str(tmp_path / "ok"), "--output-path", str(tmp_path / "nested")]) == 2  # a panel is no member


# ----------------------------------------------------------------------------- the other commands on a panel


def test_score_rederives_verdicts_from_the_votes(binary_panel, tmp_path, capsys):
    panel = tmp_path / "panel"
    shutil.copytree(binary_panel, panel)

    def flip(rows):
        for row in rows:
            if row["example_id"] == "e03":
                row["verdict"], row["verdict_shown"] = "B", "B" if row["order"] == "AB" else "A"

    edit_samples(panel, flip)
    assert main(["score", str(panel), "--bootstrap", "50"]) == 0
    assert verdicts(panel)[4:6] == ["A", "A"]  # e3's votes A, B, A give A again
    assert read_run(panel)[0].metrics["overall"]["accuracy"].value == pytest.approx(1.0)
    assert "panel/majority(hand/J1,hand/J2,hand/J3)" in capsys.readouterr().out
    assert rescore_run(panel, n_resamples=50).panel.versus_best.n == 3


@pytest.mark.slow
def test_report_compare_and_leaderboard_on_a_panel(binary, binary_panel, tmp_path):
    panel = tmp_path / "panel"
    shutil.copytree(binary_panel, panel)
    assert main(["report", str(panel)]) == 0
    text = (panel / "report" / "report.md").read_text()
    assert "## Panel" in text and "Fleiss' kappa" in text
    comparison = compare_runs(binary["J2"], panel)
    assert (comparison.examples, comparison.test.n, comparison.test.p) == (11, 3, pytest.approx(0.25))
    board = tmp_path / "lb"
    build_leaderboard([panel], board)
    rows = json.loads((board / "sciarena_eval.json").read_text())
    rows = rows.get("rows", rows) if isinstance(rows, dict) else rows
    judges = [row["judge"] for row in rows if row.get("kind") in ("run", "baseline") and row["judge"].startswith(("hand", "panel"))]
    assert judges == ["panel/majority(hand/J1,hand/J2,hand/J3)"]  # the members' copies are not rows of their own
    build_leaderboard([panel / "members"], tmp_path / "lb2")  # ... unless their folder is the one given
    rows = json.loads((tmp_path / "lb2" / "sciarena_eval.json").read_text())
    rows = rows.get("rows", rows) if isinstance(rows, dict) else rows
    assert sorted(row["judge"] for row in rows if row["judge"].startswith("hand")) == ["hand/J1", "hand/J2", "hand/J3"]


# ----------------------------------------------------------------------------- submit


@pytest.fixture(scope="module")
def demo_panel(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("demo_panel")
    longer = make_run(folder / "longer", "sciarena_eval", "builtin/longer")
    shorter = make_run(folder / "random", "sciarena_eval", "builtin/random")
    assert main(["panel", str(longer), str(shorter), "--output-path", str(folder / "panel")]) == 0
    return folder / "panel"


@pytest.mark.slow
def test_submit_verifies_a_panel_and_its_members(demo_panel, tmp_path, capsys):
    board = tmp_path / "board"
    assert main(["submit", str(demo_panel), "--leaderboard-dir", str(board)]) == 0
    assert "accepted: sciarena_eval / panel/majority(builtin/longer,builtin/random)" in capsys.readouterr().out


def rejection(panel: Path) -> str:
    with pytest.raises(Rejected) as info:
        validate_run(panel)
    assert info.value.check == "panel" and "\n" not in str(info.value)
    return info.value.reason


@pytest.mark.slow
def test_submit_rejects_a_panel_that_does_not_follow_from_its_members(demo_panel, tmp_path):
    missing = tmp_path / "missing"
    shutil.copytree(demo_panel, missing)
    shutil.rmtree(missing / "members" / "2-random")
    assert "is not in" in rejection(missing)

    forged = tmp_path / "forged"  # a vote changed, with the verdict made to follow it
    shutil.copytree(demo_panel, forged)
    first = read_models_jsonl(forged / "samples.jsonl", JudgmentRecord)[0]
    votes = json.loads(first.raw)["votes"]
    forged_votes = [("B" if v == "A" else "A") for v in votes]

    def forge(rows):
        rows[0]["raw"] = json.dumps({"panel": "majority", "votes": forged_votes}, separators=(", ", ": "))
        rows[0]["verdict"] = forged_votes[0]
        rows[0]["verdict_shown"] = forged_votes[0] if rows[0]["order"] == "AB" else swap_verdict(forged_votes[0])

    edit_samples(forged, forge)
    assert "the members give" in rejection(forged)

    member = tmp_path / "member"  # a member's own answer edited: the member fails its checks
    shutil.copytree(demo_panel, member)

    def lie(rows):
        rows[0]["raw"] = "[[B]]" if rows[0]["raw"] != "[[B]]" else "[[A]]"

    edit_samples(member / "members" / "1-longer", lie)
    assert rejection(member).startswith("member 1-longer: verdicts:")


@pytest.mark.slow
def test_a_five_dimension_panel_of_builtin_judges(tmp_path):
    """Ideation-Arena-Eval demo (A / B / TIE, five dimensions): longer and shorter always disagree unless the
    lengths are equal (both TIE), so the majority is random's vote (A or B: 2-1; TIE: a 1-1-1 split, TIE),
    and TIE on equal lengths (2-1 or 3-0)."""
    runs = [make_run(tmp_path / j, "ideation_arena_eval", f"builtin/{j}") for j in ("longer", "shorter", "random")]
    result = build_panel(runs, tmp_path / "panel", n_resamples=50)
    _, records = read_run(tmp_path / "panel")
    random = {(r.example_id, r.dimension, r.order): r.verdict for r in read_run(runs[2])[1]}
    assert len(records) == len(random) and {r.dimension for r in records} == {r.dimension for r in read_run(runs[0])[1]}
    for r in records:
        assert r.verdict == ("TIE" if r.length_a == r.length_b else random[(r.example_id, r.dimension, r.order)])
    assert "mean" in result.metrics and result.config.swap is True
    assert result.panel.cohen_kappa[0][1] == pytest.approx(-1.0)  # longer vs shorter: always opposite


def test_submit_rejects_a_member_counted_twice(demo_panel, tmp_path):
    twice = tmp_path / "twice"
    shutil.copytree(demo_panel, twice)
    shutil.copytree(twice / "members" / "1-longer", twice / "members" / "3-longer")
    data = json.loads((twice / "results.json").read_text())
    data["config"]["members"].append({**data["config"]["members"][0], "run_dir": "3-longer"})
    data["config"]["judge_config_hash"] = panel_hash(data["config"])  # rehashed, as a forger would
    (twice / "results.json").write_text(json.dumps(data))
    assert "a run votes once" in rejection(twice)


def panel_hash(config: dict) -> str:
    """A panel's configuration hash from its results.json config: its id, members' hashes and prompts."""
    return config_hash(config["judge"], {"members": [m["config_hash"] for m in config["members"]]},
                       config["prompt_template_hash"])


@pytest.mark.slow
def test_a_panel_has_a_configuration_hash_of_its_own_and_submit_checks_it(demo_panel, tmp_path):
    config = json.loads((demo_panel / "results.json").read_text())["config"]
    members = [json.loads((demo_panel / "members" / m["run_dir"] / "results.json").read_text())["config"] for m in config["members"]]
    assert [m["config_hash"] for m in config["members"]] == [m["judge_config_hash"] for m in members]
    assert config["judge_config_hash"] == panel_hash(config)
    assert config["judge_config_hash"] not in {m["judge_config_hash"] for m in members}  # it carried the first's

    copied = tmp_path / "copied"  # another entry's hash: refused before anything else
    shutil.copytree(demo_panel, copied)
    data = json.loads((copied / "results.json").read_text())
    data["config"]["judge_config_hash"] = members[0]["judge_config_hash"]
    (copied / "results.json").write_text(json.dumps(data))
    with pytest.raises(Rejected) as info:
        validate_run(copied)
    assert info.value.check == "identity" and "members' hashes" in info.value.reason

    member = tmp_path / "member"  # a member's recorded hash edited, the panel's rehashed to match
    shutil.copytree(demo_panel, member)
    data = json.loads((member / "results.json").read_text())
    data["config"]["members"][1]["config_hash"] = "0123456789abcdef"
    data["config"]["judge_config_hash"] = panel_hash(data["config"])
    (member / "results.json").write_text(json.dumps(data))
    assert "configuration hash 0123456789abcdef recorded" in rejection(member)

    unset = tmp_path / "unset"  # a member's hash taken out, the panel's rehashed: the member's is still required
    shutil.copytree(demo_panel, unset)
    data = json.loads((unset / "results.json").read_text())
    data["config"]["members"][1]["config_hash"] = None
    data["config"]["judge_config_hash"] = panel_hash(data["config"])
    (unset / "results.json").write_text(json.dumps(data))
    assert "configuration hash None recorded" in rejection(unset)


def test_panels_of_differently_configured_members_are_two_board_entries(demo_panel):
    """A panel's judge_args are empty, so its entry was named by its id alone: a panel of the same judge ids at
    other settings replaced it on the board. Its name now carries its own configuration hash."""
    from judgebench.publish.submit import entry_name

    result, _ = read_run(demo_panel)
    other = result.config.model_copy(update={"members": [m.model_copy(update={"config_hash": "0" * 16})
                                                         for m in result.config.members]})
    other = other.model_copy(update={"judge_config_hash": panel_hash(other.model_dump())})
    assert other.judge == result.config.judge and other.judge_config_hash != result.config.judge_config_hash
    assert entry_name(result) != entry_name(result.model_copy(update={"config": other}))


def test_score_refuses_a_panel_without_its_aggregate(binary_panel, tmp_path):
    panel = tmp_path / "panel"
    shutil.copytree(binary_panel, panel)
    data = json.loads((panel / "results.json").read_text())
    data["config"]["aggregate"] = None
    (panel / "results.json").write_text(json.dumps(data))
    assert main(["score", str(panel)]) == 2


def test_a_panel_writes_its_members_only_under_its_folder_and_drops_an_earlier_panels(demo_panel, tmp_path, capsys):
    """An outside attack: a members/ linked out of the output folder had the member copies written through it;
    and a panel built into an earlier panel's folder kept that panel's other members, which report reads."""
    members = sorted(p.name for p in (demo_panel / "members").iterdir())
    longer, other = demo_panel.parent / "longer", demo_panel.parent / "random"
    outside = tmp_path / "outside"
    outside.mkdir()
    out = tmp_path / "p"
    out.mkdir()
    (out / "members").symlink_to(outside, target_is_directory=True)
    assert main(["panel", str(longer), str(other), "--output-path", str(out)]) == 2
    err = capsys.readouterr().err
    assert "is a symbolic link" in err and err.count("\n") == 1 and list(outside.iterdir()) == []
    (out / "members").unlink()
    assert main(["panel", str(longer), str(other), "--output-path", str(out)]) == 0
    assert sorted(p.name for p in (out / "members").iterdir()) == members
    stale = out / "members" / "3-old"
    stale.mkdir()
    (stale / "results.json").write_text("{}")
    (out / "members" / "4-mine").mkdir()
    (out / "members" / "4-mine" / "notes.txt").write_text("mine\n")
    assert main(["panel", str(longer), str(other), "--output-path", str(out)]) == 0
    assert sorted(p.name for p in (out / "members").iterdir()) == sorted([*members, "4-mine"])


def test_a_panel_takes_no_display_name_of_its_first_member(binary, tmp_path):
    """An attack: the panel's configuration copied its first member's display name, so its report, compare header,
    viewer label, export title and leaderboard row read as that member."""
    members = []
    for judge in ("J1", "J2", "J3"):
        folder = tmp_path / judge
        shutil.copytree(binary[judge], folder)
        data = json.loads((folder / "results.json").read_text())
        data["config"]["judge_name"] = f"named {judge}"
        (folder / "results.json").write_text(json.dumps(data))
        members.append(folder)
    build_panel(members, tmp_path / "panel", aggregate="majority", n_resamples=50)
    config = json.loads((tmp_path / "panel" / "results.json").read_text())["config"]
    assert config.get("judge_name") is None and [m["name"] for m in config["members"]] == ["named J1", "named J2", "named J3"]


def _as_cached(run: Path, folder: Path) -> Path:
    """A copy of a member run whose every answer came from the cache (a rerun)."""
    import shutil

    shutil.copytree(run, folder)
    samples = folder / "samples.jsonl"
    lines = [json.loads(line) for line in samples.read_text().splitlines()]
    samples.write_text("".join(json.dumps({**r, "cached": True}) + "\n" for r in lines))
    return folder


def test_a_panel_of_rerun_members_costs_what_its_members_cost(binary, tmp_path):
    """Answers from the cache count with their recorded cost, the part paid before told apart, as a run's usage
    (usage.py) does: a panel of rerun members had left their cached calls out, so its usage was not their sum."""
    j1 = _as_cached(binary["J1"], tmp_path / "J1-rerun")
    build_panel([j1, binary["J2"], binary["J3"]], tmp_path / "part", aggregate="majority", n_resamples=50)
    usage = read_run(tmp_path / "part")[0].usage
    # J1: 21 priced calls of $0.01 (e10 BA failed), all cached; J2 22 x $0.02, J3 22 x $0.03, paid now
    assert usage.cost_usd == pytest.approx(0.21 + 0.44 + 0.66) and usage.tokens_in == 210 + 440 + 660
    assert usage.cached_cost_usd == pytest.approx(0.21) and usage.cached_calls == 0  # no judgment wholly cached
    assert usage.resumed_calls is None  # members' cached answers are no re-ask chain (it counted 22 "re-asks")
    rerun = [_as_cached(binary[j], tmp_path / f"{j}-all") if j != "J1" else j1 for j in ("J1", "J2", "J3")]
    build_panel(rerun, tmp_path / "all", aggregate="majority", n_resamples=50)
    usage = read_run(tmp_path / "all")[0].usage
    assert usage.cost_usd == pytest.approx(1.31) and usage.cached_cost_usd == pytest.approx(1.31)
    assert usage.cached_calls == 22 and usage.resumed_calls is None
