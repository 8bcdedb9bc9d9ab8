"""Issue 27 item 1: no output flag may write over a file the command was given, or inside a run folder it reads.

Each case performs the attack through the command line and checks the input run is byte-for-byte intact."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from test_submit import make_run

from judgebench.cli.main import main


def digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("outputs")
    return make_run(folder / "A", "sciarena_eval", "builtin/longer"), make_run(folder / "B", "sciarena_eval", "builtin/shorter")


def attacks(a: Path, b: Path) -> list[list[str]]:
    return [
        ["compare", str(a), str(b), "--output", str(b / "results.json")],
        ["compare", str(a), str(b), "--output", str(a / "samples.jsonl")],
        ["compare", str(a), str(b), "--output", str(b / "sub" / "cmp.json")],
        ["report", str(a), "--output-dir", str(a)],
        ["report", str(a), "--output-dir", str(b)],  # b is no input of this report: allowed? no: b is a run, but not read
        ["export", str(a), "--output", str(a)],
        ["export", str(a), "--output", str(a / "hf")],
        ["leaderboard", str(a / "results.json"), "--output-dir", str(a)],
        ["leaderboard", str(a.parent), "--output-dir", str(b)],
        ["panel", str(a), str(b), "--output-path", str(b)],
        ["merge", str(a), str(b), "--output-path", str(a / "merged")],
        ["submit", str(a), "--leaderboard-dir", str(a)],
        ["arena", "sciarena_eval", "--demo", "--judge-run", str(a), "--output-dir", str(a)],
        ["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--dataset-path", str(b / "samples.jsonl"),
         "--output-path", str(b), "--quiet"],
    ]


def test_no_output_over_an_input(runs, capsys):
    a, b = runs
    before = {a: digest(a), b: digest(b)}
    for argv in attacks(a, b):
        if argv[0] == "report" and argv[-1] == str(b):
            continue  # writing a report into another run's folder is not this command's input (kept as it was)
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 2, (argv, err)
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert ("--output" in err or "--leaderboard-dir" in err), err
        assert {a: digest(a), b: digest(b)} == before, argv


def test_allowed_outputs_still_work(runs, tmp_path, capsys):
    a, b = runs
    assert main(["report", str(a), "--output-dir", str(a / "report")]) == 0  # the report's own folder
    assert main(["compare", str(a), str(b), "--output", str(tmp_path / "cmp.json")]) == 0
    assert (tmp_path / "cmp.json").is_file()


def test_a_folder_output_never_writes_over_an_input_file_of_the_same_name(tmp_path, capsys):
    votes = Path(__file__).resolve().parents[2] / "tasks" / "demo" / "arena_votes_demo.jsonl"
    out = tmp_path / "arena"
    out.mkdir()
    flagged = out / "flagged.txt"
    flagged.write_text("planted-random\n")
    code = main(["arena", str(votes), "--exclude-annotators", str(flagged), "--output-dir", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "--output-dir" in err and "flagged.txt" in err, err
    assert flagged.read_text() == "planted-random\n"
    frozen = tmp_path / "frozen"
    frozen.mkdir()
    mine = frozen / "my_judge_eval.jsonl"
    mine.write_text("{}\n")
    code = main(["freeze", str(mine), "--pairs", str(votes), "--split-size", "5", "--output", str(frozen)])
    err = capsys.readouterr().err
    assert code == 2 and "--output" in err and "my_judge_eval.jsonl" in err, err
    assert mine.read_text() == "{}\n"


def test_the_python_api_refuses_the_same_outputs(tmp_path):
    """`evaluate` (and `rubric run` from Python) runs the same check as the command line: its output folder is
    neither its data file nor the run folder that file lies in; the run is intact and nothing was called."""
    from judgebench.api import evaluate
    from judgebench.core.errors import JudgebenchError

    run = make_run(tmp_path / "B", "sciarena_eval", "builtin/shorter")
    before = digest(run)
    with pytest.raises(JudgebenchError, match=r"--output-path .*inside the run folder"):
        evaluate("sciarena_eval", "builtin/longer", output_path=run, dataset_path=str(run / "samples.jsonl"))
    with pytest.raises(JudgebenchError, match=r"--output-path .*is one of this command's inputs"):
        evaluate("sciarena_eval", "builtin/longer", output_path=run / "samples.jsonl",
                 dataset_path=str(run / "samples.jsonl"))
    from judgebench.api import build_leaderboard  # an outside attack: it wrote its tables into the run it read

    for output in (run, run / "board"):
        with pytest.raises(JudgebenchError, match=r"^build_leaderboard: output_dir "):
            build_leaderboard([run], output)
    assert digest(run) == before


@pytest.mark.parametrize("recordings", ["", "/samples.jsonl"])
def test_a_replay_judge_never_writes_into_the_run_it_replays(tmp_path, capsys, recordings):
    """A new user's walkthrough: `run --judge replay/B/samples.jsonl --output-path B` replaced the CI baseline B with
    the replay run (its tokens, cost and endpoint gone; with an edited prompt every judgment FAILED and B kept no
    answer). The recordings' run folder is an input like any other, from the command line and from Python."""
    from judgebench.api import evaluate
    from judgebench.core.errors import JudgebenchError

    run = make_run(tmp_path / "B", "sciarena_eval", "builtin/shorter")
    before = digest(run)
    judge = f"replay/{run}{recordings}"
    for output in (run, run / "sub"):
        assert main(["run", "--tasks", "sciarena_eval", "--demo", "--judge", judge, "--output-path", str(output)]) == 2
        err = capsys.readouterr().err
        assert "--output-path" in err and err.count("\n") == 1
        with pytest.raises(JudgebenchError, match=r"--output-path "):
            evaluate("sciarena_eval", judge, output_path=output, demo=True)
    assert digest(run) == before
    assert main(["run", "--tasks", "sciarena_eval", "--demo", "--judge", judge, "--quiet",
                 "--output-path", str(tmp_path / "C")]) == 0  # elsewhere: replayed


def test_a_co_judges_folder_is_never_the_run_a_replay_judge_reads(tmp_path, capsys, monkeypatch):
    """An attack on the replay fix: in a several-judge run a co-judge named like the replayed run (its folder is
    OUT/<name>) wrote over it, and the replay then replayed the co-judge's answers."""
    run = make_run(tmp_path / "builtin-longer", "sciarena_eval", "builtin/longer")
    before = digest(run)
    (tmp_path / "j.yaml").write_text("- judge: builtin/random\n  name: builtin-longer\n- judge: replay/builtin-longer\n")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--tasks", "sciarena_eval", "--judges-file", "j.yaml", "--demo", "--output-path", "."]) == 2
    err = capsys.readouterr().err
    assert "--output-path (a judge's folder) builtin-longer: is one of this command's inputs" in err
    assert digest(run) == before
