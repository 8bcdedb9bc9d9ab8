"""`judgebench arena` end to end (in process): the demo votes file, a task, a judge run, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgebench.cli.main import main

DEMO = Path(__file__).resolve().parents[2] / "tasks" / "demo" / "arena_votes_demo.jsonl"


@pytest.mark.slow
def test_arena_on_the_demo_votes_writes_every_output_and_excludes_flagged(tmp_path, capsys):
    out = tmp_path / "arena"
    assert main(["arena", str(DEMO), "--output-dir", str(out), "--n-resamples", "100",
                 "--robustness-repeats", "3", "--exclude-flagged", "--anchor", "atlas-7b"]) == 0
    for name in ("arena.json", "arena.md", "arena.html", "ratings.png", "winrate.png", "ratings.csv",
                 "slices.csv", "style_coefficients.csv", "annotators.csv", "anomaly.csv",
                 "robustness_subsampling.csv", "battle_counts.csv", "winrate.csv"):
        assert (out / name).is_file(), name
    s = json.loads((out / "arena.json").read_text())
    assert s["config"]["excluded_annotators"] == ["planted-always-a", "planted-random"]
    assert s["counts"]["dropped"] == {"annotator excluded (listed or flagged)": 600}
    assert s["counts"]["battles"] == 3000
    top = s["ratings"][0]
    assert top["model"] == "fjord-large" and top["rank"] == 1
    assert {e["value"] for e in s["slices"]} == {"Natural Science", "Healthcare", "Humanities & Social Science", "Engineering"}
    assert "flagged voters (alpha 0.01): planted-always-a, planted-random (excluded)" in capsys.readouterr().out


@pytest.mark.slow
def test_arena_on_a_task_with_a_judge_run(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo",
                 "--output-path", str(run), "--bootstrap", "0"]) == 0
    out = tmp_path / "arena"
    assert main(["arena", "sciarena_eval", "--demo", "--output-dir", str(out), "--n-resamples", "50",
                 "--judge-run", str(run)]) == 0
    s = json.loads((out / "arena.json").read_text())
    judge = s["judges"][0]
    assert judge["judge"] == "builtin/longer" and judge["battles"] == s["counts"]["battles"]
    assert -1 <= judge["spearman"]["value"] <= 1
    assert s["voters"]["skipped"].startswith("one annotator")


@pytest.mark.parametrize("line, message", [
    ('{"pair_id": "p1", "annotator": "u", "choice": "A"}', "has no model_a/model_b"),
    ('{"pair_id": "p1", "annotator": "u", "choice": "MAYBE", "model_a": "x", "model_b": "y"}', ":1:"),
    ('{"pair_id": "p1", "annotator": "u", "choice": "A", "model_a": "x", "model_b": "y", "timestamp": "yesterday"}',
     "timestamp 'yesterday' is not an ISO 8601"),
    ('{"pair_id": "p1", "annotator": "u", "choice": {"overall": "A"}, "model_a": "x", "model_b": "y"}',
     ":1: field 'choice'"),  # a dict where a label belongs (was a TypeError traceback: unhashable)
    # a JSON value of another type, or not finite, was taken as a number ("12", true: 1.0, 1e400: inf); NaN was
    # said to be negative; a blank model name was a model
    *[('{"pair_id": "p1", "annotator": "u", "choice": "A", "model_a": "x", "model_b": "y", "seconds": %s}' % value,
       f":1: field 'seconds': Input should be a {kind}") for value, kind in (('"12"', "valid number"),
       ("true", "valid number"), ("1e400", "finite number"), ("Infinity", "finite number"), ("NaN", "finite number"))],
    ('{"pair_id": "p1", "annotator": "u", "choice": "A", "model_a": " ", "model_b": "y"}',
     ":1: field 'model_a': is blank (whitespace only)"),
    # an int past the largest float, a count past 64 bits: tracebacks (OverflowError); a null where a mapping
    # belongs was taken (found attacking)
    ('{"pair_id": "p1", "annotator": "u", "choice": "A", "model_a": "x", "model_b": "y", "seconds": 1%s}' % ("0" * 309),
     ":1: field 'seconds': Input should be a valid number"),
    ('{"pair_id": "p1", "annotator": "u", "choice": "A", "model_a": "x", "model_b": "y", "length_a": 1%s}' % ("0" * 400),
     ":1: field 'length_a': Input should be less than or equal to 9223372036854775807"),
    ('{"pair_id": "p1", "annotator": "u", "choice": "A", "model_a": "x", "model_b": "y", "slices": null}',
     ":1: field 'slices': Input should be a valid dictionary"),
    ('{"pair_id": "\\u2003", "annotator": "u", "choice": "A", "model_a": "x", "model_b": "y"}',
     ":1: field 'pair_id': is blank (whitespace only)"),
])
def test_bad_votes_are_one_line_errors(tmp_path, capsys, line, message):
    path = tmp_path / "votes.jsonl"
    path.write_text(line + "\n")
    assert main(["arena", str(path), "--output-dir", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and str(path) in err


@pytest.mark.slow
def test_unknown_anchor_and_bad_alpha_are_flag_errors(tmp_path, capsys):
    assert main(["arena", str(DEMO), "--output-dir", str(tmp_path / "o"), "--anchor", "nobody",
                 "--n-resamples", "0"]) == 2
    assert "--anchor nobody: no such model" in capsys.readouterr().err
    assert main(["arena", str(DEMO), "--output-dir", str(tmp_path / "o"), "--alpha", "0"]) == 2
    assert "--alpha" in capsys.readouterr().err


@pytest.mark.parametrize(("flag", "value"), [("--n-resamples", "99999999999999999999"),
                                             ("--robustness-repeats", "999999999999")])
def test_a_resample_or_repeat_count_that_would_never_end_is_a_flag_error(tmp_path, capsys, flag, value):
    code = main(["arena", str(DEMO), "--output-dir", str(tmp_path / "o"), flag, value])  # both ran for minutes
    err = capsys.readouterr().err  # on 300 votes (found attacking)
    assert code == 2 and "must be <=" in err and flag in err and not (tmp_path / "o").exists()


@pytest.mark.slow
def test_excluded_annotators_from_a_file_and_from_a_task_yaml_are_recorded(tmp_path, capsys):
    votes = tmp_path / "votes.jsonl"
    rows = [{"pair_id": f"p{i}", "annotator": who, "choice": c, "model_a": "x", "model_b": "y"}
            for i, (who, c) in enumerate([("u", "A"), ("u", "A"), ("v", "B"), ("w", "A")])]
    votes.write_text("".join(json.dumps(r) + "\n" for r in rows))
    listed = tmp_path / "flagged.txt"
    listed.write_text("v\nnobody\n")
    out = tmp_path / "o"
    assert main(["arena", str(votes), "--output-dir", str(out), "--n-resamples", "0",
                 "--exclude-annotators", str(listed)]) == 0
    s = json.loads((out / "arena.json").read_text())
    assert s["config"]["excluded_annotators"] == ["v"]  # "nobody" voted on nothing here
    assert s["counts"]["dropped"] == {"annotator excluded (listed or flagged)": 1}
    assert "warning: --exclude-annotators: 1 listed annotators cast no vote here: nobody" in capsys.readouterr().err
    # x won all 3 remaining votes; the tiny L2 keeps the gap finite but large
    assert s["ratings"][0]["model"] == "x" and s["counts"]["battles"] == 3
    # a task YAML's exclude_annotators key: the task's one "annotator" is `label`
    task = tmp_path / "tiny.yaml"
    demo = Path(__file__).resolve().parents[2] / "tasks" / "demo" / "sciarena_eval_demo.jsonl"
    task.write_text(
        "name: tiny\nversion: '1'\ndataset: {path: x, split: train}\n"
        f"demo: {{path: {demo}}}\n"
        "columns: {id: id, question: question, response_a: responseA, response_b: responseB, label: vote,"
        " model_a: modelA, model_b: modelB}\nlabels: {A: A, B: B}\nverdicts: [A, B]\n"
        "prompt: sciarena_pairwise.yaml\nexclude_annotators: [label]\n")
    assert main(["arena", str(task), "--demo", "--output-dir", str(tmp_path / "t"), "--n-resamples", "0"]) == 2
    assert "no votes left to rate (dropped: {'annotator excluded (listed or flagged)': " in capsys.readouterr().err


def test_no_plots_writes_every_other_file_the_same(tmp_path, capsys):
    outs = {}
    for name, extra in (("plots", []), ("none", ["--no-plots"])):
        outs[name] = tmp_path / name
        assert main(["arena", str(DEMO), "--output-dir", str(outs[name]), "--n-resamples", "20",
                     "--robustness-repeats", "2", *extra]) == 0
    assert not list(outs["none"].glob("*.png")) and {"ratings.png", "winrate.png"} <= {p.name for p in outs["plots"].glob("*.png")}
    for path in outs["none"].iterdir():
        assert path.read_bytes() == (outs["plots"] / path.name).read_bytes(), path.name
    assert len(list(outs["none"].iterdir())) == len(list(outs["plots"].iterdir())) - 2


def test_the_terminal_ratings_state_their_intervals_level(tmp_path, capsys):
    # "m1 1029.2 [939.8, 1139.8]" printed no level; with no intervals (--n-resamples 0) no level is said
    assert main(["arena", str(DEMO), "--output-dir", str(tmp_path / "ci"), "--n-resamples", "20", "--no-plots",
                 "--robustness-repeats", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "  ratings (95% bootstrap intervals):" and lines[2].endswith("]")
    assert sum("95%" in line for line in lines) == 1
    assert main(["arena", str(DEMO), "--output-dir", str(tmp_path / "none"), "--n-resamples", "0", "--no-plots",
                 "--robustness-repeats", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("arena: ") and not lines[1].endswith("]") and "95%" not in "\n".join(lines)


def test_robustness_repeats_0_skips_only_the_annotator_subsampling(tmp_path, capsys):
    outs = {}
    for name, repeats in (("some", "2"), ("none", "0")):
        outs[name] = tmp_path / name
        assert main(["arena", str(DEMO), "--output-dir", str(outs[name]), "--n-resamples", "0", "--no-plots",
                     "--robustness-repeats", repeats]) == 0
    some, none = (json.loads((outs[k] / "arena.json").read_text()) for k in ("some", "none"))
    assert none["robustness"] == {"repeats": 0, "subsampling": [], "leave_one_slice_out": some["robustness"]["leave_one_slice_out"],
                                  "subsampling_skipped": "--robustness-repeats 0"}
    assert some["robustness"]["subsampling"] and not (outs["none"] / "robustness_subsampling.csv").exists()
    assert {k: v for k, v in none.items() if k != "robustness"} == {k: v for k, v in some.items() if k != "robustness"}


@pytest.mark.parametrize("exclude", [[], ["--exclude-flagged"]])
def test_the_voter_checks_and_robustness_in_forked_children_write_the_same_files(tmp_path, capsys, monkeypatch, exclude):
    """From BACKGROUND_MIN_VOTES votes on, the voter checks and robustness run in forked children (issue 30):
    every file is the one the in-process computation writes, and the children were forked."""
    from judgebench.core import background
    from judgebench.human.arena import build

    assert background.can_fork(), "another thread is running: no child can be forked"
    forks = []
    real_fork = background.os.fork
    monkeypatch.setattr(background.os, "fork", lambda: forks.append(1) or real_fork())
    outs = {}
    for name, least in (("here", 10**9), ("children", 0)):
        monkeypatch.setattr(build, "BACKGROUND_MIN_VOTES", least)
        outs[name] = tmp_path / name
        assert main(["arena", str(DEMO), "--output-dir", str(outs[name]), "--n-resamples", "20",
                     "--robustness-repeats", "2", "--no-plots", *exclude]) == 0
        assert len(forks) == (2 if name == "children" else 0)
    for path in outs["here"].iterdir():
        assert path.read_bytes() == (outs["children"] / path.name).read_bytes(), path.name


@pytest.mark.parametrize("background", ["1", "0"])
def test_a_write_that_fails_leaves_no_temporary_plot_and_without_a_child_no_plot(tmp_path, capsys, monkeypatch,
                                                                                  background):
    """arena.html cannot be written (a folder there): one line, exit 2. The plots' child is stopped without leaving
    a temporary PNG; without a child the PNGs come last, so none is written."""
    monkeypatch.setenv("JUDGEBENCH_BACKGROUND", background)
    out = tmp_path / "arena"
    (out / "arena.html").mkdir(parents=True)
    assert main(["arena", str(DEMO), "--output-dir", str(out), "--n-resamples", "20", "--robustness-repeats", "2"]) == 2
    assert "arena.html" in capsys.readouterr().err
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]
    if background == "0":
        assert not list(out.glob("*.png"))


def test_model_names_that_are_one_identifier_once_normalised_are_two_models(tmp_path, capsys):
    """'é' and 'e' + a combining accent: two models (the HTML tables took model names as namedtuple fields, and
    Python normalises identifiers: a SyntaxError traceback)."""
    path = tmp_path / "votes.jsonl"
    path.write_text("".join(json.dumps({"pair_id": f"p{i}", "annotator": f"u{i % 3}", "choice": "AB"[i % 2],
                                        "model_a": "\u00e9", "model_b": "e\u0301"}) + "\n" for i in range(12)))
    assert main(["arena", str(path), "--output-dir", str(tmp_path / "o"), "--n-resamples", "10", "--no-plots"]) == 0
    assert json.loads((tmp_path / "o" / "arena.json").read_text())["counts"]["models"] == 2
    assert "e\u0301" in (tmp_path / "o" / "arena.html").read_text(encoding="utf-8")


def test_names_that_only_look_alike_are_counted_apart_with_a_warning(tmp_path, capsys):
    """NFC and NFD 'café', a case difference and a zero-width space: each stays a model or voter of its own (the
    votes say so), but the terminal, arena.md and arena.json say which names read as one (they were rated apart
    silently); a file without such names has no `look_alike_names`."""
    path = tmp_path / "votes.jsonl"
    models = [("caf\u00e9", "cafe\u0301"), ("GPT-4", "claude"), ("gpt-4", "claude")]
    voters = ["alice", "Alice", "bob", "bob\u200b"]
    path.write_text("".join(json.dumps({"pair_id": f"p{i}", "annotator": voters[i % 4], "choice": "AB"[i % 2],
                                        "model_a": models[i % 3][0], "model_b": models[i % 3][1]}) + "\n"
                            for i in range(48)))
    out = tmp_path / "o"
    assert main(["arena", str(path), "--output-dir", str(out), "--n-resamples", "0", "--no-plots"]) == 0
    s = json.loads((out / "arena.json").read_text())
    assert s["counts"]["models"] == 5 and s["counts"]["annotators"] == 4
    assert s["look_alike_names"] == {"models": [["GPT-4", "gpt-4"], ["cafe\u0301", "caf\u00e9"]],
                                     "annotators": [["Alice", "alice"], ["bob", "bob\u200b"]]}
    err = capsys.readouterr().err
    assert ("warning: 2 groups of models whose names look alike are counted apart: 'GPT-4' / 'gpt-4'; "
            "'cafe\\u0301' / 'caf\\xe9' (") in err  # (quoted: `m1 ` and `m1` read alike unquoted, a new user saw)
    assert "2 groups of annotators whose names look alike are counted apart: 'Alice' / 'alice'; 'bob' / 'bob\\u200b'" in err
    assert "Warning: 2 groups of models whose names look alike" in (out / "arena.md").read_text(encoding="utf-8")
    assert main(["arena", str(DEMO), "--output-dir", str(tmp_path / "demo"), "--n-resamples", "0", "--no-plots"]) == 0
    assert "look_alike_names" not in json.loads((tmp_path / "demo" / "arena.json").read_text())
    assert "look alike" not in capsys.readouterr().err
    # a group of 10 case variants, two names 5,000 characters long: 5 names a group shown, each cut (a 16 KB line)
    long = "v" * 5000
    voters = [long, long.upper(), *("".join(c.upper() if bit == "1" else c for c, bit in zip("voter", f"{k:05b}"))
                                    for k in range(10))]
    path.write_text("".join(json.dumps({"pair_id": f"p{i}", "annotator": voters[i % 12], "choice": "AB"[i % 2],
                                        "model_a": "x", "model_b": "y"}) + "\n" for i in range(48)))
    assert main(["arena", str(path), "--output-dir", str(out), "--n-resamples", "0", "--no-plots"]) == 0
    [line] = [x for x in capsys.readouterr().err.splitlines() if "look alike" in x]
    assert "2 groups of annotators whose names look alike" in line and "' / 5 more (" in line and len(line) < 800
    assert "(4,940 more characters)" in line


def test_a_model_name_ending_in_nul_is_a_one_line_error_and_dollars_are_drawn_as_text(tmp_path, capsys):
    """'a' + NUL: numpy's text drops the NUL, merging two models (a TypeError traceback); refused in one line.
    Names with `$` (matplotlib's math marks) are drawn as written, not parsed (`$\\frac{x$` raised ValueError)."""
    def votes(a: str, b: str) -> Path:
        path = tmp_path / f"votes{len(list(tmp_path.iterdir()))}.jsonl"
        path.write_text("".join(json.dumps({"pair_id": f"p{i}", "annotator": f"u{i % 3}", "choice": "AB"[i % 2],
                                            "model_a": a, "model_b": b}) + "\n" for i in range(12)))
        return path

    assert main(["arena", str(votes("a", "a\x00")), "--output-dir", str(tmp_path / "o1"), "--n-resamples", "10"]) == 2
    err = capsys.readouterr().err.strip()
    assert "ends in a NUL character" in err and len(err.splitlines()) == 1
    out = tmp_path / "o2"
    assert main(["arena", str(votes("$\\frac{x$", "cost $5 and $6")), "--output-dir", str(out), "--n-resamples", "10"]) == 0
    assert (out / "ratings.png").stat().st_size and (out / "winrate.png").stat().st_size


def test_a_votes_file_that_is_a_fifo_or_a_folder_is_named_as_not_a_regular_file(tmp_path, capsys):
    """Neither is read (a FIFO would wait for a writer); the line said 'no such file' for both."""
    import os

    os.mkfifo(tmp_path / "fifo.jsonl")
    (tmp_path / "folder.jsonl").mkdir()
    (tmp_path / "folder.csv").mkdir()
    for name in ("fifo.jsonl", "folder.jsonl", "folder.csv"):
        assert main(["arena", str(tmp_path / name), "--output-dir", str(tmp_path / "o")]) == 2
        assert capsys.readouterr().err.strip().endswith(f"{name}: not a regular file")
    assert main(["arena", str(DEMO), "--output-dir", str(tmp_path / "o"), "--exclude-annotators",
                 str(tmp_path / "folder.csv")]) == 2
    assert capsys.readouterr().err.strip().endswith("folder.csv: not a regular file")


def test_votes_with_one_model_on_both_sides_are_left_out_with_a_warning(tmp_path, capsys):
    """Counted in arena.json's dropped votes, and now said on stderr too (they were left out silently)."""
    votes = tmp_path / "votes.jsonl"
    rows = [{"pair_id": f"p{i}", "annotator": "u", "choice": "A", "model_a": "x", "model_b": "x" if i < 2 else "y"}
            for i in range(5)]
    votes.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["arena", str(votes), "--output-dir", str(tmp_path / "o"), "--n-resamples", "0", "--no-plots"]) == 0
    assert "warning: 2 votes with the same model on both sides were left out" in capsys.readouterr().err
    assert json.loads((tmp_path / "o" / "arena.json").read_text())["counts"]["dropped"] == {"same model on both sides": 2}


@pytest.mark.parametrize("bad", ['"model_a": "\\t"', '"annotator": "\\u3000"', '"seconds": 1e400', '"seconds": "7"'])
def test_the_columnar_read_refuses_what_the_vote_record_refuses(tmp_path, capsys, bad):
    """Arrow's read of a whole votes file (arena at scale) hands a file with one such vote to the line reader,
    whose Vote record words the error: the fast read takes nothing the record refuses."""
    rows = [json.dumps({"pair_id": f"p{i}", "annotator": "u", "choice": "A", "model_a": "x", "model_b": "y"})
            for i in range(50)]
    rows[37] = rows[37][:-1] + ", " + bad + "}"
    rows[37] = rows[37].replace('"model_a": "x", ', "") if "model_a" in bad else rows[37]
    rows[37] = rows[37].replace('"annotator": "u", ', "") if "annotator" in bad else rows[37]
    path = tmp_path / "votes.jsonl"
    path.write_text("\n".join(rows) + "\n")
    assert main(["arena", str(path), "--output-dir", str(tmp_path / "o"), "--n-resamples", "0", "--no-plots"]) == 2
    assert f"votes.jsonl:38: field '{bad.split(chr(34))[1]}'" in capsys.readouterr().err


def test_a_csv_votes_file_is_text_its_numbers_parsed_and_infinity_refused(tmp_path, capsys):
    path = tmp_path / "votes.csv"
    path.write_text("pair_id,annotator,choice,model_a,model_b,seconds\np1,u,A,x,y,12\np2,u,B,x,y,3.5\n")
    assert main(["arena", str(path), "--output-dir", str(tmp_path / "o"), "--n-resamples", "0", "--no-plots"]) == 0
    assert json.loads((tmp_path / "o" / "arena.json").read_text())["voters"]["annotators"] == []  # one annotator
    path.write_text("pair_id,annotator,choice,model_a,model_b,seconds\np1,u,A,x,y,inf\n")
    assert main(["arena", str(path), "--output-dir", str(tmp_path / "o2")]) == 2
    assert "votes.csv:2: field 'seconds': Input should be a finite number" in capsys.readouterr().err


def test_a_votes_line_ends_at_a_line_feed_only_whichever_reader_reads_it(tmp_path, capsys):
    """A carriage return is JSON whitespace: inside an object it ended the line for the line-by-line reader only,
    so the same line was taken or refused depending on whether another line sent the file there; a file of
    CR-ended lines is one line of several objects for every reader (found attacking)."""
    first = '{"pair_id": "p1", "annotator": "a", "model_a": "x", "model_b": "y",\r"choice": "A"}\n'
    second = '{"pair_id": "p2", "annotator": "b", "choice": "B", "model_a": "x", "model_b": "y"}\n'
    per_dimension = '{"pair_id": "p3", "annotator": "c", "choices": {"overall": "A"}, "model_a": "x", "model_b": "y"}\n'
    for i, text in enumerate([first + second, first + second + per_dimension]):  # columnar, then line by line
        path = tmp_path / f"v{i}.jsonl"
        path.write_bytes(text.encode())
        assert main(["arena", str(path), "--output-dir", str(tmp_path / f"o{i}"), "--n-resamples", "0",
                     "--no-plots"]) == 0
    path = tmp_path / "cr.jsonl"
    path.write_bytes((first.replace("\r", " ") + second).replace("\n", "\r").encode())
    assert main(["arena", str(path), "--output-dir", str(tmp_path / "o"), "--n-resamples", "0"]) == 2
    assert "cr.jsonl:1: malformed JSON (Extra data" in capsys.readouterr().err


def test_an_arena_on_a_task_folder_records_the_config_it_read(tmp_path):
    """`run` records the data config a folder was read in; an arena on the same task did not (a known gap)."""
    from helpers import sci_row, write_jsonl

    folder = tmp_path / "snap"
    (folder / "data").mkdir(parents=True)
    (folder / "README.md").write_text("---\nconfigs:\n- config_name: main\n  data_files:\n  - split: train\n"
                                      "    path: data/*.jsonl\n---\n", encoding="utf-8")
    rows = [sci_row(i, "AB"[i % 2], modelA=f"m{i % 3}", modelB=f"m{(i + 1) % 3}") for i in range(1, 13)]
    write_jsonl(folder / "data" / "train.jsonl", rows)
    out = tmp_path / "arena"
    assert main(["arena", "sciarena_eval", "--dataset-path", str(folder), "--output-dir", str(out), "--n-resamples", "0",
                 "--no-plots"]) == 0
    assert json.loads((out / "arena.json").read_text())["config"]["source"] == f"task sciarena_eval ({folder}, config main)"
