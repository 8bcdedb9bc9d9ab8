"""`judgebench freeze`: the split drawn by hand-checked rules, then run as a task."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml

from judgebench.cli.main import main
from judgebench.core.errors import JudgebenchError
from judgebench.human.freeze import freeze_split
from judgebench.tasks.votes import Vote, write_votes

FIELDS = ["phys", "bio"] * 4  # p0 phys, p1 bio, ...


def _pairs() -> dict[str, dict]:
    return {f"p{i}": {"id": f"p{i}", "question": f"Q{i}", "response_a": "short" if i % 3 else "a much longer answer",
                      "response_b": "a longer answer" if i % 3 else "b", "model_a": "m1", "model_b": "m2",
                      "slices": {"field": FIELDS[i]}} for i in range(8)}


VOTES = [  # (pair, annotator, choice)
    ("p0", "u1", "A"), ("p0", "u2", "A"), ("p0", "u3", "B"),  # A (2 of 3)
    ("p1", "u1", "B"), ("p1", "u2", "B"),  # B
    ("p2", "u1", "A"), ("p2", "u2", "B"),  # one each: TIE
    ("p3", "u1", "A"),  # A
    ("p4", "u2", "B"),  # B
    ("p5", "u1", "BOTH_BAD"), ("p5", "u3", "BOTH_BAD"),  # BOTH_BAD
    ("p6", "spam", "A"), ("p6", "u1", "B"),  # TIE, or B once spam is excluded
    ("p7", "u3", "B"),  # B
]


def _votes() -> list[Vote]:
    return [Vote(pair_id=p, annotator=a, choice=c) for p, a, c in VOTES]


def test_split_is_balanced_by_slice_and_label_with_ties_dropped_and_flagged_voters_excluded() -> None:
    frozen = freeze_split(_votes(), _pairs(), size=4, seed=1, flagged={"spam"})
    # eligible without spam, ties dropped: p0 A phys, p1 B bio, p3 A bio, p4 B phys, p6 B phys, p7 B bio = 6
    # strata phys/A {p0}, phys/B {p4, p6}, bio/A {p3}, bio/B {p1, p7}: 4 pairs -> one from each stratum
    assert frozen.eligible == 6 and frozen.excluded_votes == 1
    ids = {r["id"] for r in frozen.rows}
    assert {"p0", "p3"} <= ids and len(ids & {"p4", "p6"}) == 1 and len(ids & {"p1", "p7"}) == 1
    assert Counter(r["label_overall"] for r in frozen.rows) == {"A": 2, "B": 2}
    assert Counter(r["slices"]["field"] for r in frozen.rows) == {"phys": 2, "bio": 2}
    assert freeze_split(_votes(), _pairs(), size=4, seed=1, flagged={"spam"}).rows == frozen.rows  # seeded


def test_ties_keep_min_votes_and_too_large_a_split() -> None:
    # spam kept: p6 is A + B = TIE, dropped -> 5 eligible
    assert freeze_split(_votes(), _pairs(), size=1, seed=0).eligible == 5
    kept = freeze_split(_votes(), _pairs(), size=8, seed=0, ties="keep")
    assert Counter(r["label_overall"] for r in kept.rows) == {"A": 2, "B": 3, "TIE": 2, "BOTH_BAD": 1}
    # at least two votes: p0, p1, p2 (TIE), p5 (BOTH_BAD), p6 (TIE) -> decisive p0, p1
    assert freeze_split(_votes(), _pairs(), size=2, seed=0, min_votes=2).eligible == 2
    with pytest.raises(Exception, match="--split-size 7: only 6 pairs are eligible"):
        freeze_split(_votes(), _pairs(), size=7, seed=0, flagged={"spam"})
    with pytest.raises(Exception, match="pairs file does not hold"):
        freeze_split([Vote(pair_id="zz", annotator="u", choice="A")], _pairs(), size=1, seed=0)


def test_per_dimension_votes_get_a_label_per_dimension() -> None:
    votes = [Vote(pair_id="p0", annotator="u1", choices={"novelty": "A", "feasibility": "B"}),
             Vote(pair_id="p0", annotator="u2", choices={"novelty": "A", "feasibility": "TIE"}),
             Vote(pair_id="p1", annotator="u1", choices={"novelty": "B", "feasibility": "B"})]
    frozen = freeze_split(votes, _pairs(), size=2, seed=0)
    rows = {r["id"]: r for r in frozen.rows}
    # p0 feasibility: one B, one TIE -> shared top count -> TIE
    assert rows["p0"]["label_novelty"] == "A" and rows["p0"]["label_feasibility"] == "TIE"
    assert frozen.dimensions == ["novelty", "feasibility"]


@pytest.mark.slow
def test_freeze_cli_writes_a_task_that_run_accepts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pairs_file = tmp_path / "pairs.jsonl"
    pairs_file.write_text("".join(json.dumps({**{k: v for k, v in p.items() if k != "slices"}, **p["slices"]}) + "\n"
                                  for p in _pairs().values()))
    write_votes(tmp_path / "votes.jsonl", _votes())
    (tmp_path / "flagged.txt").write_text("# from judgebench arena\nspam\n")
    out = tmp_path / "frozen"
    assert main(["freeze", str(tmp_path / "votes.jsonl"), "--pairs", str(pairs_file), "--split-size", "4", "--seed", "1",
                 "--exclude-annotators", str(tmp_path / "flagged.txt"), "--name", "my_eval", "--output", str(out)]) == 0
    spec = yaml.safe_load((out / "my_eval.yaml").read_text())
    assert spec["verdicts"] == ["A", "B"] and spec["columns"]["slices"] == ["field"]
    card = (out / "README.md").read_text()
    assert "annotators excluded: spam (1 votes dropped)" in card and "pairs: 4 drawn from 6 eligible" in card
    assert "- labels: A 2, B 2" in card  # (a Python dict before: {'A': 2, 'B': 2})
    assert main(["run", "--tasks", str(out / "my_eval.yaml"), "--judge", "builtin/longer", "--output-path", str(tmp_path / "run"),
                 "--bootstrap", "10", "--quiet"]) == 0
    result = json.loads((tmp_path / "run" / "results.json").read_text())
    assert result["counts"]["examples"] == 4
    capsys.readouterr()
    for size, said in (("4", False), ("3", True)):  # the same split again: nothing said; another: said (a walkthrough:
        assert main(["freeze", str(tmp_path / "votes.jsonl"), "--pairs", str(pairs_file), "--split-size", size,  # a new
                     "--seed", "1", "--exclude-annotators", str(tmp_path / "flagged.txt"), "--name", "my_eval",  # seed
                     "--output", str(out)]) == 0  # redrew the split under earlier runs without a word)
        assert ("my_eval.jsonl held another split, now replaced" in capsys.readouterr().err) is said
    assert main(["freeze", str(tmp_path / "votes.jsonl"), "--pairs", str(pairs_file), "--split-size", "40",
                 "--output", str(out)]) == 2
    assert "--split-size 40: only 5 pairs are eligible (after exclusions, the ties rule and --min-votes 1)" in capsys.readouterr().err
    assert main(["freeze", str(tmp_path / "votes.jsonl"), "--pairs", str(pairs_file), "--split-size", "4",
                 "--name", "sciarena_eval", "--output", str(tmp_path / "shadow")]) == 2  # an outside attack: it shadowed
    assert "--name sciarena_eval: a bundled task has that name" in capsys.readouterr().err  # the bundled task
    assert not (tmp_path / "shadow").exists()
    project = tmp_path / "project"  # `freeze --output .` in a project replaced its own README.md without a word
    project.mkdir()
    (project / "README.md").write_text("# my project\n")
    assert main(["freeze", str(tmp_path / "votes.jsonl"), "--pairs", str(pairs_file), "--split-size", "4",
                 "--output", str(project)]) == 2
    assert "README.md is not a card `freeze` wrote" in capsys.readouterr().err
    assert (project / "README.md").read_text() == "# my project\n" and not (project / "my_judge_eval.jsonl").exists()


@pytest.mark.slow
def test_votes_cast_on_the_page_export_freeze_and_run(tmp_path: Path) -> None:
    """The loop after voting: votes sent to the server (as left/right on the page) -> export -> freeze -> run."""
    from annotate_helpers import pair_rows, post_vote, served, serving

    from judgebench.human.annotate.assign import shown_order
    from judgebench.human.annotate.export import export_votes
    from judgebench.human.annotate.store import Store

    rows = pair_rows(6)
    store = Store(tmp_path / "v.sqlite")
    store.add_pairs(rows)
    tokens = {name: store.add_annotator(name, []) for name in ("u1", "u2", "u3")}
    planned = {"p0": "AAB", "p1": "BBA", "p2": "ABT", "p3": "AAA", "p4": "BBB", "p5": "BAB"}  # T: tie
    # majority: p0 A, p1 B, p2 one each of A, B, TIE -> TIE (dropped), p3 A, p4 B, p5 B
    with serving(store) as base:
        for pair_id, choices in planned.items():
            for name, want in zip(tokens, choices):
                left = "A" if shown_order(store.secret, name, pair_id, 1) == "AB" else "B"
                page_choice = "TIE" if want == "T" else ("LEFT" if want == left else "RIGHT")
                status, _ = post_vote(base, tokens[name], {"pair_id": served(store, tokens[name], pair_id), "round": "1", "vote_id": f"{name}-{pair_id}-vote", "choice": page_choice})
                assert status == 200
    export_votes(store, tmp_path / "votes.jsonl")
    pairs_file = tmp_path / "pairs.jsonl"
    pairs_file.write_text("".join(json.dumps({**{k: v for k, v in p.items() if k != "slices"}, **p["slices"]}) + "\n" for p in rows))
    out = tmp_path / "frozen"
    assert main(["freeze", str(tmp_path / "votes.jsonl"), "--pairs", str(pairs_file), "--split-size", "4", "--name", "mine",
                 "--output", str(out)]) == 0
    split = {r["id"]: r["label_overall"] for r in map(json.loads, (out / "mine.jsonl").read_text().splitlines())}
    # strata: phys (even) A {p0}, phys B {p4}, bio (odd) A {p3}, bio B {p1, p5} -> one each
    assert {k: v for k, v in split.items() if k != "p1" and k != "p5"} == {"p0": "A", "p3": "A", "p4": "B"}
    assert len(split) == 4 and split.get("p1", split.get("p5")) == "B"
    assert main(["run", "--tasks", str(out / "mine.yaml"), "--judge", "builtin/always-a", "--output-path", str(tmp_path / "run"),
                 "--bootstrap", "10", "--quiet"]) == 0
    metrics = json.loads((tmp_path / "run" / "results.json").read_text())["metrics"]["overall"]
    # always the first shown: AB order picks A (right on p0, p3 = 2 of 4), BA order picks B (2 of 4) -> 0.5
    assert metrics["accuracy"]["value"] == 0.5


def test_votes_stay_with_the_texts_they_were_cast_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An outside walkthrough: `pairs` run again gave the same ids to other answers; `annotate` ignored the new texts
    ("0 new pairs stored") and `freeze` joined the votes to texts nobody had voted on, as it did a corrected gold
    answer. The store refuses a changed pair, and each exported vote carries the hash of its texts for freeze."""
    from judgebench.human.annotate.export import export_votes
    from judgebench.human.annotate.store import Store
    from judgebench.tasks.votes import pair_text_hash, read_votes

    rows = [{"id": f"p{i}", "question": f"Q{i}?", "response_a": f"A{i}", "response_b": f"B{i}", "model_a": "m1",
             "model_b": "m2", "field": "x", "latency_s_a": 1.0} for i in range(4)]
    pairs_file = tmp_path / "pairs.jsonl"
    pairs_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    db = tmp_path / "v.sqlite"
    assert main(["annotate", str(pairs_file), "--db", str(db), "--add-annotator", "u1"]) == 0
    store = Store(db)
    for i, row in enumerate(rows):
        store.add_vote({"vote_id": f"v-{i:08d}", "pair_id": row["id"], "annotator": "u1", "round": 1,
                        "choice": "A", "choices": None, "shown_order": "AB", "shown_at": None, "seconds": 3.0,
                        "submitted_at": "2026-12-07T00:00:00.000Z",
                        "comment": None})
    export_votes(store, tmp_path / "votes.jsonl")
    assert {v.pair_sha256 for v in read_votes(tmp_path / "votes.jsonl")} == {pair_text_hash(r) for r in rows}
    capsys.readouterr()
    rerun = [{**r, "latency_s_a": 9.9} for r in rows]  # the same answers again, other timings: the same pairs
    pairs_file.write_text("".join(json.dumps(r) + "\n" for r in rerun))
    assert main(["annotate", str(pairs_file), "--db", str(db), "--add-annotator", "u2"]) == 0
    assert "0 new pairs stored" in capsys.readouterr().out
    changed = [{**r, "response_a": "another answer"} if r["id"] == "p2" else r for r in rerun]
    pairs_file.write_text("".join(json.dumps(r) + "\n" for r in changed))
    assert main(["annotate", str(pairs_file), "--db", str(db), "--add-annotator", "u3"]) == 2
    assert (f"{pairs_file}: pair 'p2' (row 3) is stored in {db} with another response_a; votes on it were cast on "
            "the stored one: give the changed pair an id of its own") in capsys.readouterr().err
    code = main(["freeze", str(tmp_path / "votes.jsonl"), "--pairs", str(pairs_file), "--split-size", "2",
                 "--output", str(tmp_path / "frozen")])
    assert code == 2 and "vote of u1 on pair 'p2' was cast on other texts than the pairs file holds" in \
        capsys.readouterr().err and not (tmp_path / "frozen").exists()


def test_a_frozen_folder_moved_elsewhere_runs_unchanged(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29 item 7: freeze writes dataset.path relative to the task YAML, and the registry resolves a
    relative path beside the YAML, so a frozen folder copied elsewhere (and run from another folder) works."""
    import shutil

    pairs_file = tmp_path / "pairs.jsonl"
    pairs_file.write_text("".join(json.dumps({**{k: v for k, v in p.items() if k != "slices"}, **p["slices"]}) + "\n"
                                  for p in _pairs().values()))
    write_votes(tmp_path / "votes.jsonl", _votes())
    out = tmp_path / "frozen"
    assert main(["freeze", str(tmp_path / "votes.jsonl"), "--pairs", str(pairs_file), "--split-size", "4", "--seed", "1",
                 "--name", "my_eval", "--output", str(out)]) == 0
    spec = yaml.safe_load((out / "my_eval.yaml").read_text())
    assert not Path(spec["dataset"]["path"]).is_absolute() and str(tmp_path) not in (out / "my_eval.yaml").read_text()
    moved = tmp_path / "elsewhere" / "copy"
    shutil.copytree(out, moved)
    shutil.rmtree(out)
    other = tmp_path / "cwd"
    other.mkdir()
    monkeypatch.chdir(other)
    assert main(["run", "--tasks", str(moved / "my_eval.yaml"), "--judge", "builtin/longer", "--output-path",
                 str(tmp_path / "run"), "--bootstrap", "10", "--quiet"]) == 0
    result = json.loads((tmp_path / "run" / "results.json").read_text())
    assert result["counts"]["examples"] == 4 and not Path(result["config"]["dataset"]["source"]).is_absolute()


def test_a_vote_naming_other_models_than_its_pair_is_refused() -> None:
    """An outside attack: votes whose model_a and model_b were the pair's swapped were frozen as they were, every A
    of them the other side's."""
    votes = [*_votes(), Vote(pair_id="p1", annotator="late", choice="A", model_a="m2", model_b="m1")]
    with pytest.raises(JudgebenchError, match="vote of late on pair 'p1' names models m2 vs m1; the pairs file has m1 vs m2"):
        freeze_split(votes, _pairs(), size=2, seed=1)
    same = [*_votes(), Vote(pair_id="p1", annotator="late", choice="A", model_a="m1", model_b="m2")]
    assert freeze_split(same, _pairs(), size=2, seed=1).rows


def test_a_names_file_holds_any_name_and_reads_back_the_same(tmp_path: Path) -> None:
    """The second attack: annotators named '#mallory' and 'carol\\nbob' were written to flagged.txt as they were;
    freeze read the first as a comment and the second as two names, kept both flagged voters and left out the
    honest bob. A name a line cannot hold is written as a JSON string."""
    from judgebench.core.files import names_text, read_names
    from judgebench.human.freeze import read_flagged

    names = ["alice", "#mallory", "carol\nbob", ' "quoted" ', "tab\there", "dan#2", "émile"]
    text = names_text(names)
    assert text.splitlines()[:2] == ["alice", '"#mallory"'] and "dan#2\n" in text
    assert read_names(text, "f") == names
    (tmp_path / "flagged.txt").write_text("# from judgebench arena\n" + text)
    assert read_flagged(str(tmp_path / "flagged.txt")) == set(names)
    with pytest.raises(JudgebenchError, match=r"f:2: a name in quotes must be one JSON string"):
        read_names('ok\n"unterminated\n', "f")


def test_an_annotators_repeated_votes_count_once_and_slice_columns_cannot_overwrite_the_labels(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An outside attack: three votes of one annotator on p1 outvoted two others (its label became theirs), and a
    pairs-file column named `label_overall` (or `votes_overall`, `n_votes`) silently replaced the frozen label."""
    votes = [*_votes(), *(Vote(pair_id="p1", annotator="mallory", choice="A") for _ in range(3))]
    frozen = freeze_split(votes, _pairs(), size=4, seed=1)
    assert frozen.repeated_votes == 2 and frozen.excluded_votes == 0
    p1 = next(r for r in frozen.rows if r["id"] == "p1")  # B, B and one A: B; with mallory's three A: A had won
    assert p1["label_overall"] == "B" and p1["n_votes"] == 3 and len(p1["votes_overall"]) == 3
    pairs_file, votes_file = tmp_path / "pairs.jsonl", tmp_path / "votes.jsonl"
    write_votes(votes_file, votes)
    for column in ("label_overall", "votes_overall", "n_votes"):
        pairs_file.write_text("".join(json.dumps({**{k: v for k, v in p.items() if k != "slices"}, column: "B"}) + "\n"
                                      for p in _pairs().values()))
        assert main(["freeze", str(votes_file), "--pairs", str(pairs_file), "--split-size", "4",
                     "--output", str(tmp_path / "o")]) == 2
        err = capsys.readouterr().err
        assert f"pairs file {pairs_file}: column '{column}' would be a slice" in err and err.count("\n") == 1
        assert not (tmp_path / "o" / "my_judge_eval.jsonl").exists()
    pairs_file.write_text("".join(json.dumps({k: v for k, v in p.items() if k != "slices"}) + "\n"
                                  for p in _pairs().values()))
    assert main(["freeze", str(votes_file), "--pairs", str(pairs_file), "--split-size", "4",
                 "--output", str(tmp_path / "o")]) == 0
    assert "2 repeated votes of one annotator on one pair were counted once" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["ｓｃｉａｒｅｎａ_ｅｖａｌ", "eval²", "x" * 101, "-x", "a b"])
def test_a_task_name_the_leaderboard_would_refuse_is_refused_by_freeze(tmp_path: Path, capsys, name: str) -> None:
    """An outside attack: freeze took a fullwidth twin of a bundled task's name, a superscript, 150 characters (and
    300: 'File name too long', an empty folder left); `leaderboard` and `submit` then refused its runs."""
    pairs_file = tmp_path / "pairs.jsonl"
    pairs_file.write_text("".join(json.dumps({k: v for k, v in p.items() if k != "slices"}) + "\n" for p in _pairs().values()))
    write_votes(tmp_path / "votes.jsonl", _votes())
    assert main(["freeze", str(tmp_path / "votes.jsonl"), "--pairs", str(pairs_file), "--split-size", "2",
                 f"--name={name}", "--output", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "--name" in err and "ASCII letters, digits" in err and err.count("\n") == 1
    assert not (tmp_path / "o").exists()


def test_a_misspelt_names_file_is_not_taken_as_an_annotator(tmp_path, monkeypatch):
    """`--exclude-annotators flagged.txtt` was read as one annotator's name (a warning said no such annotator voted)."""
    from judgebench.core.errors import JudgebenchError
    from judgebench.human.freeze import read_flagged

    monkeypatch.chdir(tmp_path)
    (tmp_path / "flagged.txt").write_text("u1\n")
    with pytest.raises(JudgebenchError, match="no such file; did you mean flagged.txt"):
        read_flagged("flagged.txtt")
    assert read_flagged("flagged.txt") == {"u1"} and read_flagged("ann.one,b") == {"ann.one", "b"}
    assert read_flagged("ann.one") == {"ann.one"}  # a dotted name is a name
    (tmp_path / "rater.2").write_text("")  # a file named like a name does not make the name a misspelt file
    assert read_flagged("rater.1") == {"rater.1"} and read_flagged("alice@lab.org") == {"alice@lab.org"}
    for name in ("ona@vu.lt", "bob@studio.tv", "k@uni.st", "rater.cs", "x@y.com", "x@y.edu"):
        assert read_flagged(name) == {name}
    with pytest.raises(JudgebenchError, match="no such file"):
        read_flagged("flagged.cvs")
