"""Task YAMLs mapping annotator-level votes (vote_loading.py): long and list layouts, the stated
majority rule, hostile rows, old data unchanged, and a YAML-only three-votes task end to end
through the CLI producing the leaderboard's `human` row."""

from __future__ import annotations

import json
from collections import Counter
from itertools import combinations
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from helpers import write_jsonl
from sklearn.metrics import cohen_kappa_score

from judgebench.cli.main import main
from judgebench.core.errors import JudgebenchError
from judgebench.core.records import RunResult
from judgebench.core.resources import tasks_dir
from judgebench.tasks.loading import load_examples
from judgebench.tasks.registry import get_task, load_task_file
from judgebench.tasks.votes import MAJORITY_RULE, votes_of_examples

CODE = {"A": 0, "TIE": 1, "B": 2}

TASK = """\
name: {name}
version: "1"
dataset: {{path: {path}, split: train}}
layout: wide
columns: {{id: pair, question: q, response_a: ra, response_b: rb, label: vote, model_a: ma, model_b: mb}}
votes: {votes}
labels: {{A: A, B: B, tie: TIE, bad: BOTH_BAD}}
verdicts: [A, B, TIE]
prompt: pairwise_generic.yaml
headline: soft_accuracy
"""
LONG = "{layout: long, annotator: who, timestamp: when, shown_order: shown}"


def _task(tmp_path: Path, name: str, rows: list[dict], votes: str = LONG) -> Path:
    data = write_jsonl(tmp_path / f"{name}.jsonl", rows)
    folder = tmp_path / "tasks"
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.yaml").write_text(TASK.format(name=name, path=data, votes=votes))
    return folder / f"{name}.yaml"


def _pair(pair: str, **extra) -> dict:
    return {"pair": pair, "q": f"question {pair}", "ra": "short", "rb": "a longer answer", "ma": "m1", "mb": "m2", **extra}


def test_long_layout_groups_votes_and_derives_the_majority_label(tmp_path):
    rows = [
        _pair("p1", who="u1", vote="A", when="2026-01-01T00:00:01Z", shown="AB"), _pair("p2", who="u1", vote="tie", when="2026-01-01T00:00:02Z", shown="BA"),
        _pair("p1", who="u2", vote="B", when="2026-01-01T00:00:03Z", shown="BA"), _pair("p1", who="u3", vote="A", when="2026-01-01T00:00:04Z", shown="AB"),
        _pair("p2", who="u2", vote="bad", when="2026-01-01T00:00:05Z", shown="AB"),
    ]
    loaded = load_examples(load_task_file(_task(tmp_path, "long_votes", rows)))
    by_id = {e.id: e for e in loaded.examples}
    assert by_id["p1"].labels == {"overall": "A"}  # A, B, A -> A
    assert by_id["p2"].labels == {"overall": "TIE"}  # TIE and BOTH_BAD share the top count -> TIE
    # the JSON reader hands date-time cells over as date-times; they are stored as ISO text (UTC, naive)
    assert [(v.annotator, v.labels["overall"], v.shown_order, v.timestamp) for v in by_id["p1"].votes] == [
        ("u1", "A", "AB", "2026-01-01T00:00:01"), ("u2", "B", "BA", "2026-01-01T00:00:03"), ("u3", "A", "AB", "2026-01-01T00:00:04")]
    assert loaded.dataset.label_rule == MAJORITY_RULE
    votes = votes_of_examples(loaded.examples)  # the shared Vote records (arena, annotate)
    assert len(votes) == 5 and votes[0].pair_id == "p1" and votes[0].choice == "A" and votes[0].model_a == "m1"


def test_an_annotators_repeated_votes_count_once_for_the_label(tmp_path):
    """An attack: alice's three A votes outvoted bob's and carol's B (the label was A, with no word); `freeze` and
    `arena` count an annotator's first vote on a pair, and so does the ceiling. The later votes stay in `votes`
    (self-consistency reads them)."""
    rows = [_pair("p1", who="alice", vote="A"), _pair("p1", who="alice", vote="A"), _pair("p1", who="alice", vote="A"),
            _pair("p1", who="bob", vote="B"), _pair("p1", who="carol", vote="B"), _pair("p2", who="bob", vote="A")]
    by_id = {e.id: e for e in load_examples(load_task_file(_task(tmp_path, "repeated", rows, "{layout: long, annotator: who}"))).examples}
    assert by_id["p1"].labels == {"overall": "B"}  # alice A, bob B, carol B: B (A, A, A, B, B had been A)
    assert [v.annotator for v in by_id["p1"].votes] == ["alice", "alice", "alice", "bob", "carol"]


def test_list_layout_takes_labels_or_annotator_objects(tmp_path):
    rows = [
        _pair("p1", vote=["A", "A", "B"]),
        _pair("p2", vote=[{"annotator": "u1", "label": "B"}, {"annotator": "u2", "label": "A"}]),
    ]
    loaded = load_examples(load_task_file(_task(tmp_path, "list_votes", rows, "{layout: list}")))
    p1, p2 = loaded.examples
    assert p1.labels["overall"] == "A" and [v.annotator for v in p1.votes] == ["#1", "#2", "#3"]
    assert p2.labels["overall"] == "TIE" and [v.annotator for v in p2.votes] == ["u1", "u2"]


@pytest.mark.parametrize(
    ("rows", "votes", "message"),
    [
        ([_pair("p1", who="u1", vote="A"), {**_pair("p1", who="u2", vote="B"), "ra": "other"}], LONG,
         "row 2 (id p1): question, responses or models differ from an earlier row"),
        ([_pair("p1", who="", vote="A")], LONG, "field 'who' (votes.annotator) must be a non-empty id"),
        ([_pair("p1", who="u1", vote="maybe")], LONG, "has label value 'maybe'"),
        ([_pair("p1", who="u1", vote="A", shown="left")], LONG, "field 'shown' (votes.shown_order) must be AB or BA"),
        ([_pair("p1", vote="A")], "{layout: list}", "field 'vote' must be a non-empty list of votes, got str"),
        ([_pair("p1", vote=[])], "{layout: list}", "must be a non-empty list of votes"),
        ([_pair("p1", vote=[{"annotator": "u1", "label": "A", "score": 3}])], "{layout: list}", "unknown vote keys ['score']"),
        ([_pair("p1", vote=["A"]), _pair("p1", vote=["B"])], "{layout: list}", "row 2: duplicate id 'p1'"),
    ],
)
def test_bad_vote_rows_are_one_line_errors_naming_file_row_and_field(tmp_path, rows, votes, message):
    if votes == LONG:  # the optional columns must exist for the mapping
        rows = [{"when": None, "shown": None, **row} for row in rows]
    path = _task(tmp_path, "bad_votes", rows, votes)
    with pytest.raises(JudgebenchError) as caught:
        load_examples(load_task_file(path))
    text = str(caught.value)
    assert message in text and "bad_votes.jsonl" in text and "\n" not in text


def test_votes_mapping_keys_are_validated(tmp_path):
    path = _task(tmp_path, "bad_mapping", [_pair("p1", who="u1", vote="A")], "{layout: long}")
    with pytest.raises(JudgebenchError, match="votes.layout long needs votes.annotator"):
        load_task_file(path)
    path.write_text(path.read_text().replace("{layout: long}", "{layout: long, annotator: who, rule: mean}"))
    with pytest.raises(JudgebenchError, match="rule"):
        load_task_file(path)


def test_a_missing_annotator_column_is_named_with_the_columns_that_exist(tmp_path, capsys):
    path = _task(tmp_path, "no_annotator", [_pair("p1", vote="A", when=None, shown=None)])
    assert main(["run", "--tasks", str(path), "--judge", "builtin/longer", "--output-path", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert "column 'who' (task no_annotator, votes.annotator) does not exist" in err and len(err.splitlines()) == 1


def test_one_label_data_keeps_its_fingerprint_and_records():
    """Old data hashes as before votes existed: the published entries' fingerprints still match."""
    entries = Path(__file__).resolve().parents[2] / "leaderboards" / "entries" / "sciarena_eval"
    stored = sorted(entries.rglob("results.json")) if entries.is_dir() else []
    if not stored:
        pytest.skip("no published entries in this checkout")
    loaded = load_examples(get_task("sciarena_eval"), demo=True)
    assert all(e.votes is None for e in loaded.examples) and loaded.dataset.label_rule is None
    fingerprint = json.loads(stored[0].read_text())["config"]["dataset"]["fingerprint"]
    assert loaded.dataset.fingerprint == fingerprint


def test_bundled_votes_demo_has_three_votes_on_most_pairs():
    loaded = load_examples(get_task("human_votes_demo"), demo=True)
    counts = Counter(len({v.annotator for v in e.votes}) for e in loaded.examples)
    assert counts[3] >= 30 and counts[1] >= 1
    assert any(len(e.votes) > len({v.annotator for v in e.votes}) for e in loaded.examples)  # repeated votes
    assert (tasks_dir() / "demo" / "human_votes_demo.jsonl").is_file()


# ----------------------------------------------------------------------------- end to end


def _three_votes_rows(seed: int = 5, n: int = 40) -> tuple[list[dict], dict[str, dict[str, str]]]:
    """Synthetic votes with known structure: each pair has a true preference, three of six annotators
    vote it, each agreeing with probability 0.75 (else tie or the other side)."""
    rng = np.random.default_rng(seed)
    rows, votes = [], {}
    for i in range(n):
        truth = "A" if i % 2 else "B"
        pair = f"q{i:03d}"
        votes[pair] = {}
        for who in rng.choice([f"expert-{k}" for k in range(6)], size=3, replace=False):
            vote = truth if rng.random() < 0.75 else str(rng.choice(["tie", "A" if truth == "B" else "B"]))
            votes[pair][str(who)] = vote
            rows.append({**_pair(pair, who=str(who), vote=vote, when=f"2026-01-01T00:{i:02d}:00Z", shown="AB"),
                         "rb": "x" * (10 + i % 7), "ra": "y" * (12 + i % 5)})
    return rows, votes


def _independent_loo(votes: dict[str, dict[str, str]]) -> float:
    """Soft leave-one-annotator-out agreement, written plainly: majority of the rest; a held-out vote whose rest
    is split has no reference and is skipped (a pair with none is left out)."""
    code, pairs = {"A": 0, "tie": 1, "B": 2}, []
    for by_annotator in votes.values():
        credits = []
        for held_out, vote in by_annotator.items():
            counts = Counter(v for a, v in by_annotator.items() if a != held_out).most_common()
            if len(counts) > 1 and counts[0][1] == counts[1][1]:
                continue
            credits.append(1 - abs(code[vote] - code[counts[0][0]]) / 2)
        if credits:
            pairs.append(sum(credits) / len(credits))
    return sum(pairs) / len(pairs)


@pytest.mark.slow
def test_yaml_only_three_votes_task_through_the_cli_gives_the_human_row(tmp_path):
    rows, votes = _three_votes_rows()
    task = _task(tmp_path, "three_votes", rows)
    for judge in ("builtin/longer", "builtin/random"):
        out = tmp_path / "runs" / judge.replace("/", "_")
        assert main(["run", "--tasks", "three_votes", "--include-path", str(task.parent), "--judge", judge,
                     "--output-path", str(out), "--quiet"]) == 0
    result = RunResult.model_validate_json((tmp_path / "runs" / "builtin_longer" / "results.json").read_text())
    assert result.config.dataset.label_rule == MAJORITY_RULE
    assert result.metrics["overall"]["soft_accuracy_vs_annotators"].n == 40
    assert main(["leaderboard", str(tmp_path / "runs"), "--include-path", str(task.parent), "--output-dir", str(tmp_path / "lb")]) == 0
    table = json.loads((tmp_path / "lb" / "three_votes.json").read_text())
    rows_out = table["rows"] if isinstance(table, dict) else table
    human = [row for row in rows_out if row["kind"] == "human"]
    assert len(human) == 1
    human = human[0]
    assert "soft_accuracy" not in human  # never in the headline column the judges are ranked by
    assert human["loo_soft_accuracy"] == pytest.approx(round(100 * _independent_loo(votes), 2))
    # Kappa and alpha against scikit-learn and the krippendorff package, computed here from the raw votes.
    code = {"A": 0, "tie": 1, "B": 2}
    annotators = sorted({a for v in votes.values() for a in v})
    matrix = np.array([[code[votes[p][a]] if a in votes[p] else np.nan for p in votes] for a in annotators])
    expected_alpha = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal", value_domain=[0, 1, 2])
    assert human["annotator_alpha"] == pytest.approx(round(expected_alpha, 4))
    num = den = 0.0
    for a, b in combinations(annotators, 2):
        shared = [(code[v[a]], code[v[b]]) for v in votes.values() if a in v and b in v]
        if len(shared) >= 2:
            x, y = zip(*shared)
            num += len(shared) * cohen_kappa_score(x, y, labels=[0, 1, 2], weights="linear")
            den += len(shared)
    assert human["annotator_weighted_kappa"] == pytest.approx(round(num / den, 4))
    # The judge rows carry the human row's two figures on the same reference: leave one annotator out and
    # against each annotator.
    longer = next(row for row in rows_out if row["judge"] == "builtin/longer")
    for column in ("loo_soft_accuracy", "soft_accuracy_vs_annotators"):
        assert longer[column] == pytest.approx(round(100 * result.metrics["overall"][column].value, 2))
        assert column in human
    # A run directory re-scores alone (the votes are in samples.jsonl): same human figures.
    before = result.human
    assert main(["score", str(tmp_path / "runs" / "builtin_longer")]) == 0
    again = RunResult.model_validate_json((tmp_path / "runs" / "builtin_longer" / "results.json").read_text())
    # n: the 40 pairs less those where every held-out annotator's rest is split (all three votes differ)
    three_way = sum(len(set(v.values())) == 3 for v in votes.values())
    assert three_way > 0 and again.human == before
    assert again.human["overall"]["loo_soft_accuracy"].n == 40 - three_way


MULTI = """\
name: multi_votes
version: "1"
dataset: {{path: {path}, split: train}}
layout: wide
columns: {{id: id, question: q, response_a: a, response_b: b}}
votes: {{layout: list}}
labels: {{A: A, B: B, Tie: TIE, Both Bad: BOTH_BAD}}
verdicts: [A, B, TIE]
dimensions:
  - {{name: novelty, label_column: nov, criterion: "Which is newer?"}}
  - {{name: feasibility, label_column: fea, criterion: "Which is doable?"}}
dimension_mode: separate
prompt: pairwise_generic.yaml
headline: soft_accuracy
"""


@pytest.mark.slow
def test_votes_of_one_annotator_per_pair_give_no_human_row_of_blanks(tmp_path):
    """A lab walkthrough: with one annotator per pair every human figure is undefined, and the board still showed a
    `human` row of empty cells with `examples` 0 (undefined figures are absent, not shown)."""
    rows = [_pair(f"p{i}", who=f"u{i % 3}", vote="AB"[i % 2], when=f"2026-01-01T00:00:{i:02d}Z", shown="AB")
            for i in range(8)]
    task = _task(tmp_path, "one_voter", rows)
    out = tmp_path / "run"
    assert main(["run", "--tasks", "one_voter", "--include-path", str(task.parent), "--judge", "builtin/longer",
                 "--output-path", str(out), "--quiet"]) == 0
    assert main(["leaderboard", str(out), "--include-path", str(task.parent), "--output-dir", str(tmp_path / "lb")]) == 0
    table = json.loads((tmp_path / "lb" / "one_voter.json").read_text())
    rows_out = table["rows"] if isinstance(table, dict) else table
    assert [row["kind"] for row in rows_out if row["kind"] == "human"] == []
    assert any(row["judge"] == "builtin/longer" for row in rows_out)


def test_multi_dimension_list_votes_give_a_human_row_per_dimension_and_mean(tmp_path):
    votes = [  # (novelty, feasibility) per annotator u1, u2, u3
        [("A", "A"), ("A", "B"), ("B", "Both Bad")],
        [("Tie", "B"), ("Tie", "B"), ("A", "B")],
        [("B", "Both Bad"), ("B", "Both Bad"), ("B", "A")],
    ]
    rows = [{"id": f"x{i}", "q": "q", "a": "a" * (i + 1), "b": "bb",
             "nov": [{"annotator": f"u{k + 1}", "label": n} for k, (n, _) in enumerate(v)],
             "fea": [{"annotator": f"u{k + 1}", "label": f} for k, (_, f) in enumerate(v)]} for i, v in enumerate(votes)]
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "multi_votes.yaml").write_text(MULTI.format(path=write_jsonl(tmp_path / "m.jsonl", rows)))
    out = tmp_path / "run"
    assert main(["run", "--tasks", "multi_votes", "--include-path", str(folder), "--judge", "builtin/longer",
                 "--output-path", str(out), "--quiet", "--both-bad", "exclude"]) == 0
    result = RunResult.model_validate_json((out / "results.json").read_text())
    # Novelty leave one out, soft (a split rest has no reference): x0 A,A,B: u1 rest {A,B} split, u2 split,
    # u3 B vs A 0 -> 0; x1 Tie,Tie,A: u1, u2 split, u3 A vs Tie .5 -> 1/2; x2 all B -> 1. Mean (0 + 1/2 + 1) / 3 = 1/2.
    assert result.human["novelty"]["loo_soft_accuracy"].value == pytest.approx(1 / 2)
    # Feasibility under --both-bad exclude: x2's label is Both Bad (two of three) so x2 is left out; x0 keeps
    # u1 A, u2 B (u3's Both Bad vote is dropped): each vs the other 0 -> 0; x1 B,B,B -> 1. Mean 1/2 over 2 pairs.
    assert result.human["feasibility"]["loo_soft_accuracy"].value == pytest.approx(1 / 2)
    assert result.human["feasibility"]["loo_soft_accuracy"].n == 2
    assert result.human["mean"]["loo_soft_accuracy"].value == pytest.approx((1 / 2 + 1 / 2) / 2)
    assert main(["leaderboard", str(out), "--include-path", str(folder), "--output-dir", str(tmp_path / "lb")]) == 0
    table = json.loads((tmp_path / "lb" / "multi_votes.json").read_text())
    human = next(row for row in (table["rows"] if isinstance(table, dict) else table) if row["kind"] == "human")
    assert human["mean.loo_soft_accuracy"] == pytest.approx(round(100 * (1 / 2 + 1 / 2) / 2, 2))
    assert human["novelty.loo_soft_accuracy"] == pytest.approx(round(100 * 1 / 2, 2))
    assert "novelty.soft_accuracy" not in human and "mean.soft_accuracy" not in human


@pytest.mark.slow
def test_submit_verifies_the_votes_in_the_samples_against_the_task_data(tmp_path):
    from test_submit import edit_samples, rejected

    from judgebench.publish.verify import validate_run

    run = tmp_path / "votes_run"
    assert main(["run", "--tasks", "human_votes_demo", "--judge", "builtin/longer", "--demo", "--quiet",
                 "--output-path", str(run)]) == 0
    validate_run(run)  # an honest run with votes is accepted (its human figures recomputed)

    def flip(rows):
        voted = next(row for row in rows if row["votes"] and len(row["votes"]) >= 2)
        annotator = next(iter(voted["votes"]))
        voted["votes"][annotator] = ["B" if voted["votes"][annotator][0] != "B" else "A"]

    edit_samples(run, flip)
    rejected(run, "labels", "votes of example")


def test_one_column_per_annotator_with_empty_cells_as_no_vote(tmp_path):
    rows = [_pair("p1", ann=["A", "B", "A"]), _pair("p2", ann=["tie", None, "B"]), _pair("p3", ann=[None, "", "B"])]
    rows = [{**{k: v for k, v in row.items() if k != "ann"}, "alice": row["ann"][0], "bob": row["ann"][1],
             "carol": row["ann"][2]} for row in rows]
    votes = "{layout: columns, annotator_columns: {alice: alice, bob: bob, carol: carol}}"
    path = _task(tmp_path, "column_votes", rows, votes)
    path.write_text(path.read_text().replace(", label: vote", ""))
    p1, p2, p3 = load_examples(load_task_file(path)).examples
    assert p1.labels["overall"] == "A" and [v.annotator for v in p1.votes] == ["alice", "bob", "carol"]
    assert p2.labels["overall"] == "TIE" and [v.annotator for v in p2.votes] == ["alice", "carol"]  # tie vs B
    assert p3.labels["overall"] == "B" and len(p3.votes) == 1
    rows[2] = {**rows[2], "carol": None}
    write_jsonl(tmp_path / "column_votes.jsonl", rows)
    with pytest.raises(JudgebenchError, match=r"row 3 \(id p3\): no votes"):
        load_examples(load_task_file(path))


def test_exclude_annotators_drops_their_votes_changes_the_label_and_is_recorded(tmp_path):
    rows = [
        _pair("p1", who="u1", vote="A", when="2026-01-01T00:00:01Z", shown="AB"), _pair("p1", who="u2", vote="B", when="2026-01-01T00:00:02Z", shown="AB"),
        _pair("p1", who="bot", vote="B", when="2026-01-01T00:00:03Z", shown="AB"), _pair("p2", who="bot", vote="A", when="2026-01-01T00:00:04Z", shown="AB"),
        _pair("p2", who="u1", vote="B", when="2026-01-01T00:00:05Z", shown="AB"),
    ]
    path = _task(tmp_path, "flagged_votes", rows)
    kept = {e.id: e.labels["overall"] for e in load_examples(load_task_file(path)).examples}
    assert kept == {"p1": "B", "p2": "TIE"}  # p1: A, B, B -> B; p2: A vs B -> TIE
    path.write_text(path.read_text() + "exclude_annotators: [bot]\n")
    loaded = load_examples(load_task_file(path))
    by_id = {e.id: e for e in loaded.examples}
    assert {i: e.labels["overall"] for i, e in by_id.items()} == {"p1": "TIE", "p2": "B"}  # p1: A vs B; p2: B
    assert all(v.annotator != "bot" for e in loaded.examples for v in e.votes)
    assert loaded.dataset.label_rule.endswith("votes by excluded annotators left out: bot")
    path.write_text(path.read_text().replace("[bot]", "[bot, u1]"))
    with pytest.raises(JudgebenchError, match="pair 'p2' has only votes by excluded annotators"):
        load_examples(load_task_file(path))
