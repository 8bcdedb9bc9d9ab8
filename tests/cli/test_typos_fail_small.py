"""Typos and failures that were slow, silent or loud (an outside attack on the command line, 2026-12-07): each is
now one line naming the flag or file, exit 2, before any work."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from judgebench.cli.main import main


def run_demo(out: Path, judge: str = "builtin/longer") -> Path:
    assert main(["run", "--tasks", "sciarena_eval", "--judge", judge, "--demo", "--limit", "4", "--output-path",
                 str(out), "--quiet", "--bootstrap", "0"]) == 0
    return out


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("judgebench: error: ") and "\n" not in err and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("port", ["65536", "99999", "-1", "\u0668\u0660\u0668\u0660"])
def test_view_refuses_a_port_out_of_range_in_one_line(tmp_path, capsys, port):
    run = run_demo(tmp_path / "run")
    capsys.readouterr()
    assert main(["view", str(run), "--port", port]) == 2  # 65536 was an OverflowError traceback
    assert "--port: expected a port number 0-65535" in one_line_error(capsys)


def test_view_on_a_port_in_use_names_the_flag(tmp_path, capsys):
    run = run_demo(tmp_path / "run")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        capsys.readouterr()
        assert main(["view", str(run), "--port", str(port)]) == 2
    assert f"--port {port}: cannot listen on 127.0.0.1" in one_line_error(capsys)


@pytest.mark.parametrize("db", ["postgressql://user:s3cretpw@127.0.0.1:9/db", "postgresql:/user:s3cretpw@h/db",
                                "postgres:user:s3cretpw@h/db", "postgres:user:s3cret/pw@h/db",
                                "postgresql:/user:s3cret@pw@h/db", "postgressql://user:s3cret/pw@h/db"])
def test_a_misspelt_database_scheme_is_refused_without_its_password(tmp_path, capsys, db):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("")
    assert main(["annotate", str(pairs), "--db", db, "--export", str(tmp_path / "v.jsonl")]) == 2
    err = one_line_error(capsys)
    assert "a database URL starts with postgresql://" in err and "s3cret" not in err and "pw@" not in err


@pytest.mark.parametrize("command", [["score", "{run}"], ["panel", "{run}", "{other}", "--output-path", "{out}"]])
def test_a_missing_include_path_is_refused_by_every_command_that_reads_tasks(tmp_path, capsys, command):
    run, other = run_demo(tmp_path / "run"), run_demo(tmp_path / "other", "builtin/shorter")
    capsys.readouterr()
    argv = [part.format(run=run, other=other, out=tmp_path / "panel") for part in command]
    assert main([*argv, "--include-path", str(tmp_path / "nope")]) == 2  # it fell back to the run's task copy
    assert "--include-path" in one_line_error(capsys)


def test_pairs_refuses_judgebenchs_own_judges_as_answering_models(tmp_path, capsys):
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id": "q1", "question": "why?"}\n')
    assert main(["pairs", str(questions), "--models", "builtin/longer,builtin/random", "--output",
                 str(tmp_path / "p")]) == 2  # they "answered" every question with [[A]]
    assert "--models: builtin/longer is one of judgebench's own judges" in one_line_error(capsys)
    assert not (tmp_path / "p").exists()


def test_rubric_run_says_a_configuration_file_is_not_taken(tmp_path, capsys):
    config = tmp_path / "judge.yaml"
    config.write_text("- judge: openai/x\n")
    assert main(["rubric", "run", "--task", "rubric_demo", "--judge", str(config), "--demo",
                 "--output-path", str(tmp_path / "r")]) == 2  # "unknown litellm provider", after 4 s
    assert "rubric runs take a judge id and --judge-args, not a judge configuration file" in one_line_error(capsys)


@pytest.mark.parametrize("text, says", [
    ("- judge: openai/x\n  judge_args: {temperature: hot}\n", "entry 1: --judge-args temperature='hot': expected a number"),
    ("- builtin/longr\n", "entry 1: unknown built-in judge 'builtin/longr'"),
    ("- builtin/longer\n- {judge: builtin/longr}\n", "entry 2: unknown built-in judge 'builtin/longr'"),
])
def test_an_error_inside_a_judge_configuration_names_its_file_and_entry(tmp_path, capsys, text, says):
    config = tmp_path / "judges.yaml"
    config.write_text(text)
    assert main(["run", "--tasks", "sciarena_eval", "--demo", "--judge", str(config), "--output-path",
                 str(tmp_path / "o")]) == 2
    assert f"--judge {config}: {says}" in one_line_error(capsys)


def test_a_prompt_given_as_a_folder_is_said_to_be_one(tmp_path, capsys):
    assert main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--output-path",
                 str(tmp_path / "o"), "--prompt", str(tmp_path)]) == 2  # it said "not found"
    assert "is a folder; give a template's YAML file or name" in one_line_error(capsys)


def foreign_folder(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "results.json").write_text('{"my": "data"}')
    return folder


def test_panel_merge_and_rubric_run_do_not_write_over_someone_elses_files(tmp_path, capsys):
    run, other = run_demo(tmp_path / "run"), run_demo(tmp_path / "other", "builtin/shorter")
    for argv in (["panel", str(run), str(other), "--output-path", "{f}"],
                 ["merge", str(run), "--output-path", "{f}"],
                 ["rubric", "run", "--task", "rubric_demo", "--judge", "builtin/full-credit", "--demo",
                  "--output-path", "{f}"]):
        folder = foreign_folder(tmp_path / f"out-{argv[0]}")
        capsys.readouterr()
        assert main([part.format(f=folder) for part in argv]) == 2, argv
        assert "results.json is no judgebench run's file" in one_line_error(capsys)
        assert (folder / "results.json").read_text() == '{"my": "data"}'


def test_a_later_judges_or_tasks_folder_is_checked_before_any_call(tmp_path, capsys):
    foreign_folder(tmp_path / "jury" / "builtin-shorter")
    assert main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--judge", "builtin/shorter",
                 "--demo", "--output-path", str(tmp_path / "jury")]) == 2
    assert "builtin-shorter/results.json is no judgebench run's file" in one_line_error(capsys)
    assert not (tmp_path / "jury" / "builtin-longer").exists()  # the first judge had been run and paid for
    foreign_folder(tmp_path / "tasks" / "ideation_arena_eval")
    assert main(["run", "--tasks", "sciarena_eval,ideation_arena_eval", "--judge", "builtin/longer", "--demo",
                 "--output-path", str(tmp_path / "tasks")]) == 2
    assert "ideation_arena_eval/results.json is no judgebench run's file" in one_line_error(capsys)
    assert not (tmp_path / "tasks" / "sciarena_eval").exists()


def test_a_model_id_that_names_a_folder_by_chance_is_still_a_model_id(tmp_path, monkeypatch):
    """`rubric run --judge hosted_vllm/qwen` was refused as a configuration file when a folder hosted_vllm/qwen
    existed (and `run` read it as a folder of configurations); a folder is one only when it holds a .yaml file."""
    from judgebench.judges.config import is_config_path

    monkeypatch.chdir(tmp_path)
    (tmp_path / "hosted_vllm" / "qwen").mkdir(parents=True)
    assert not is_config_path("hosted_vllm/qwen")
    (tmp_path / "hosted_vllm" / "qwen" / "a.yaml").write_text("- builtin/longer\n")
    assert is_config_path("hosted_vllm/qwen") and is_config_path("judges.yaml")


@pytest.mark.parametrize("name, text", [("samples.jsonl", '{"task": "summarize", "text": "mine"}\n'),
                                        ("repeats.jsonl", "mine\n"), ("task.yaml", "mine: 1\n")])
def test_a_run_refuses_a_folder_of_someone_elses_files_of_its_names(tmp_path, capsys, name, text):
    """A compact JSON line starting {"task": passed for a judgment, and a user's repeats.jsonl or task.yaml (no run's
    samples beside it) was deleted or replaced without a word."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / name).write_text(text)
    assert main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--output-path",
                 str(folder)]) == 2
    assert f"{name} is no judgebench run's file" in one_line_error(capsys) and (folder / name).read_text() == text


def test_pairs_checks_its_output_folder_before_any_call(tmp_path, capsys):
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id": "q1", "question": "why?"}\n')
    out = tmp_path / "p"
    (out / "pairs.jsonl").mkdir(parents=True)  # it failed with "Is a directory" after every answer was paid for
    argv = ["pairs", str(questions), "--models", "openai/a,openai/b", "--model-args",
            "openai/a=api_base=http://127.0.0.1:9/v1", "--output", str(out)]
    assert main(argv) == 2 and "pairs.jsonl is a folder" in one_line_error(capsys)
    (out / "pairs.jsonl").rmdir()
    (out / "manifest.json").write_text('{"mine": true}')
    assert main(argv) == 2 and "is not from an earlier `pairs`" in one_line_error(capsys)
    assert (out / "manifest.json").read_text() == '{"mine": true}'


@pytest.mark.parametrize("judge", ["jf/empty", "jf/empty/", "./jf/empty"])
def test_an_empty_folder_given_as_judge_is_said_to_be_one(tmp_path, capsys, monkeypatch, judge):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "jf" / "empty").mkdir(parents=True)
    assert main(["run", "--tasks", "sciarena_eval", "--demo", "--judge", judge, "--output-path", "o"]) == 2
    assert "is also a folder, with no .yaml judge configuration in it" in one_line_error(capsys)
