"""Bad flags, bad data files and bad task YAMLs: one line naming the flag, file or row, exit 2, nothing written.

Also the run-level checks that fail loudly: an output path that cannot be written, a run that answers
nothing or too little, and the conveniences around them (lm-eval spellings, warnings, umask).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from helpers import sci_row, write_jsonl
from openai_server import Behaviour, FakeOpenAIServer

from judgebench.cli.main import main
from judgebench.core.files import read_models_jsonl
from judgebench.core.records import JudgmentRecord
from judgebench.core.resources import prompts_dir, tasks_dir

DEMO = ("run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--quiet")


def run_cli(*args: object) -> int:
    return main([str(a) for a in args])


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("judgebench: error:"), err
    return err[0]


# ----------------------------------------------------------------------------- flags


@pytest.mark.parametrize(
    ("flag", "value", "says"),
    [
        ("--limit", "0", "--limit: must be >= 1"),
        ("--limit", "-3", "--limit: must be >= 1"),
        ("--timeout", "0", "--timeout: must be > 0"),
        ("--timeout", "nan", "--timeout: must be a finite number > 0"),
        ("--timeout", "inf", "--timeout: must be a finite number > 0"),
        ("--rpm", "-5", "--rpm: must be >= 1"),
        ("--rpm", "0", "--rpm: must be >= 1"),
        ("--tpm", "0", "--tpm: must be >= 1"),
        ("--concurrency", "0", "--concurrency: must be >= 1"),
        ("--max-retries", "-1", "--max-retries: must be >= 0"),
        ("--reask", "-1", "--reask: must be >= 0"),
        ("--bootstrap", "-1", "--bootstrap: must be >= 0"),
        ("--max-failures", "0", "--max-failures: must be >= 1"),
        ("--min-coverage", "1.5", "--min-coverage: must be a fraction"),
        ("--limit", "ten", "--limit: expected an integer"),
        ("--seed", "-1", "--seed: must be >= 0"),
    ],
)
def test_bad_numeric_flags_are_one_line_exit_2(tmp_path, capsys, flag, value, says):
    out = tmp_path / "out"
    assert run_cli(*DEMO, "--output-path", out, flag, value) == 2
    assert says in one_error_line(capsys)
    assert not out.exists()


def test_duplicate_judge_args_key_is_refused(tmp_path, capsys):
    code = run_cli("run", "--tasks", "sciarena_eval", "--judge", "openai/x", "--demo",
                   "--judge-args", "temperature=0,temperature=1", "--output-path", tmp_path / "o")
    assert code == 2 and "key 'temperature' is given twice" in one_error_line(capsys)


def test_lm_eval_spellings_are_accepted(tmp_path, capsys):
    out = tmp_path / "out"
    assert run_cli(*DEMO, "--output_path", out, "--include_path", tmp_path) == 0
    assert (out / "results.json").is_file()


@pytest.mark.parametrize(("typed", "meant"), [("--model", "--judge"), ("--concurency", "--concurrency")])
def test_unknown_flag_gets_did_you_mean(tmp_path, capsys, typed, meant):
    assert run_cli(*DEMO, "--output-path", tmp_path / "o", typed, "x") == 2
    assert f"did you mean {meant}?" in one_error_line(capsys)


def test_a_required_flag_given_misspelt_is_named(tmp_path, capsys):
    """An outside check: `run --task X` and `--output DIR` said only that --tasks and --output-path were missing."""
    base = ["run", "--judge", "builtin/longer", "--demo"]
    assert main([*base, "--task", "sciarena_eval", "--output-path", str(tmp_path / "o")]) == 2
    assert one_error_line(capsys).endswith("required: --tasks (--task is not a flag of this command: did you mean --tasks?)")
    assert main([*base, "--tasks", "sciarena_eval", "--output=" + str(tmp_path / "o")]) == 2
    assert one_error_line(capsys).endswith("(--output is not a flag of this command: did you mean --output-path?)")
    assert main([*base, "--output-path", str(tmp_path / "o")]) == 2
    assert one_error_line(capsys).endswith("the following arguments are required: --tasks")


def test_flags_that_do_not_apply_warn(tmp_path, capsys):
    assert run_cli(*DEMO, "--output-path", tmp_path / "o", "--split", "test", "--dimension-mode", "joint") == 0
    err = capsys.readouterr().err
    assert "warning: --split is ignored with --demo" in err
    assert "warning: --dimension-mode is ignored: task sciarena_eval has one dimension" in err


def test_a_warning_about_the_data_is_said_once_for_several_judges(tmp_path, capsys):
    """Each judge's run loads the same file: the single-file --split warning came once per judge."""
    data = Path(__file__).resolve().parents[2] / "tasks" / "demo" / "sciarena_eval_demo.jsonl"
    assert run_cli("run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--judge", "builtin/shorter", "--quiet",
                   "--dataset-path", data, "--split", "nosuch", "--output-path", tmp_path / "o") == 0
    assert capsys.readouterr().err.count("warning: --split nosuch: ") == 1


def test_help_shows_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["leaderboard", "--help"])
    assert "(default: judgebench-leaderboard)" in " ".join(capsys.readouterr().out.split())
    with pytest.raises(SystemExit):  # a new user's walkthrough: the required --output said "(default: None)"
        main(["export", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--output OUTPUT output folder --push" in text and "default: None" not in text and "default: False" not in text
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: 0)" in text and "default: []" not in text  # a default of 0 is still stated


# ----------------------------------------------------------------------------- data files


def _run_on(tmp_path: Path, data: Path) -> int:
    return run_cli("run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--dataset-path", data,
                   "--output-path", tmp_path / "out", "--quiet")


def test_malformed_json_line_names_file_and_line(tmp_path, capsys):
    data = tmp_path / "bad.jsonl"
    data.write_text(json.dumps(sci_row(0)) + "\n" + json.dumps(sci_row(1)) + "\n" + '{"id": "q2", oops\n')
    assert _run_on(tmp_path, data) == 2
    assert "bad.jsonl:3: malformed JSON" in one_error_line(capsys)
    assert not (tmp_path / "out" / "results.json").exists()


def test_empty_file_says_it_is_empty(tmp_path, capsys):
    data = tmp_path / "empty.jsonl"
    data.write_text("\n\n")
    assert _run_on(tmp_path, data) == 2
    assert "empty.jsonl: the file is empty" in one_error_line(capsys)


def test_non_utf8_file_names_byte_offset(tmp_path, capsys):
    data = tmp_path / "latin.jsonl"
    good = (json.dumps(sci_row(0)) + "\n").encode()
    data.write_bytes(good + b'{"id": "caf\xe9"}\n')
    assert _run_on(tmp_path, data) == 2
    assert f"latin.jsonl: not UTF-8 text (invalid byte at offset {len(good) + 11})" in one_error_line(capsys)


@pytest.mark.parametrize("bad_id", [{"a": 1}, [1, 2], True, 1.5])
def test_non_scalar_id_is_rejected(tmp_path, capsys, bad_id):
    data = write_jsonl(tmp_path / "ids.jsonl", [sci_row(0), sci_row(1, id=bad_id)])
    assert _run_on(tmp_path, data) == 2
    assert "row 2: field 'id' (id) must be text or an integer" in one_error_line(capsys)


def test_empty_response_is_reported_with_count(tmp_path, capsys):
    rows = [sci_row(i) for i in range(4)]
    rows[1]["responseB"] = ""
    rows[3]["responseA"] = "   "
    assert _run_on(tmp_path, write_jsonl(tmp_path / "d.jsonl", rows)) == 0
    assert "2 example(s) have an empty response (first: id q1)" in capsys.readouterr().err


def test_missing_split_with_one_split_names_the_flag(tmp_path, capsys):
    folder = tmp_path / "hub_like"
    write_jsonl(folder / "test.jsonl", [sci_row(i) for i in range(3)])
    code = run_cli("run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--dataset-path", folder,
                   "--output-path", tmp_path / "out", "--quiet")
    assert code == 2
    assert "split 'train' does not exist; the dataset has one split, 'test': use --split test" in one_error_line(capsys)


# ----------------------------------------------------------------------------- task YAML


def _task_copy(tmp_path: Path, edit) -> Path:
    folder = tmp_path / "tasks"
    folder.mkdir()
    text = (tasks_dir() / "sciarena_eval.yaml").read_text()
    target = folder / "sciarena_eval.yaml"
    target.write_text(edit(text))
    return folder


def test_duplicate_yaml_key_is_an_error(tmp_path, capsys):
    folder = _task_copy(tmp_path, lambda t: t.replace("labels:\n  A: A\n  B: B\n", "labels:\n  A: A\n  B: B\nlabels:\n  A: B\n  B: A\n"))
    code = run_cli(*DEMO, "--include-path", folder, "--output-path", tmp_path / "o")
    assert code == 2
    line = one_error_line(capsys)
    assert "sciarena_eval.yaml" in line and "duplicate key 'labels'" in line


def test_misspelled_yaml_key_gets_did_you_mean(tmp_path, capsys):
    folder = _task_copy(tmp_path, lambda t: t.replace("headline: accuracy", "headlin: accuracy"))
    assert run_cli(*DEMO, "--include-path", folder, "--output-path", tmp_path / "o") == 2
    assert "field 'headlin': unknown key; did you mean 'headline'?" in one_error_line(capsys)


def test_misspelled_nested_yaml_key_gets_did_you_mean(tmp_path, capsys):
    folder = _task_copy(tmp_path, lambda t: t.replace("  response_b: responseB", "  respons_b: responseB"))
    assert run_cli(*DEMO, "--include-path", folder, "--output-path", tmp_path / "o") == 2
    assert "did you mean 'response_b'?" in one_error_line(capsys)


def test_tasks_path_gets_the_name_check(tmp_path, capsys):
    folder = _task_copy(tmp_path, lambda t: t)
    renamed = folder / "other_name.yaml"
    (folder / "sciarena_eval.yaml").rename(renamed)
    code = run_cli("run", "--tasks", renamed, "--judge", "builtin/longer", "--demo", "--output-path", tmp_path / "o")
    assert code == 2
    assert "key 'name' is 'sciarena_eval' but the file is other_name.yaml" in one_error_line(capsys)


# ----------------------------------------------------------------------------- output


def test_output_path_that_is_a_file_fails_before_judging(tmp_path, capsys):
    target = tmp_path / "taken"
    target.write_text("keep me")
    assert run_cli(*DEMO, "--output-path", target) == 2
    assert f"argument --output-path: {target}: exists and is not a directory" in one_error_line(capsys)
    assert target.read_text() == "keep me"


def test_output_path_under_a_file_fails_before_judging(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    assert run_cli(*DEMO, "--output-path", tmp_path / "file" / "run") == 2
    assert f"argument --output-path: {tmp_path / 'file' / 'run'}: {tmp_path / 'file'} exists and is not a directory" \
        in one_error_line(capsys)


def test_output_files_follow_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        assert run_cli(*DEMO, "--output-path", tmp_path / "out") == 0
        assert run_cli("leaderboard", tmp_path / "out", "--output-dir", tmp_path / "lb") == 0
    finally:
        os.umask(old)
    for path in [tmp_path / "out" / "results.json", tmp_path / "out" / "samples.jsonl", tmp_path / "lb" / "index.html"]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path


# ----------------------------------------------------------------------------- runs that answer too little


def test_run_that_answers_nothing_exits_1_with_causes(tmp_path, capsys):
    data = write_jsonl(tmp_path / "d.jsonl", [sci_row(i) for i in range(4)])
    with FakeOpenAIServer(Behaviour(answer="Both are fine.")) as server:  # never parses
        code = run_cli("run", "--tasks", "sciarena_eval", "--judge", "openai/bare", "--judge-args",
                       f"api_base={server.api_base}", "--dataset-path", data, "--output-path", tmp_path / "out",
                       "--no-cache", "--quiet")
    assert code == 1
    err = capsys.readouterr().err
    assert "no judgment was answered; most common causes: 8 x invalid answer: 'Both are fine.'" in err
    assert json.loads((tmp_path / "out" / "results.json").read_text())["counts"]["invalid"] == 8


def test_min_coverage_bar(tmp_path, capsys):
    data = write_jsonl(tmp_path / "d.jsonl", [sci_row(i) for i in range(4)])

    def answer(messages):
        return "[[A]]" if "Question 0 " in messages[-1]["content"] else "no idea"

    with FakeOpenAIServer(Behaviour(answer=answer)) as server:
        args = ("run", "--tasks", "sciarena_eval", "--judge", "openai/half", "--judge-args", f"api_base={server.api_base}",
                "--dataset-path", data, "--output-path", tmp_path / "out", "--no-cache", "--quiet")
        assert run_cli(*args) == 0  # default bar: something was answered (2 of 8)
        assert run_cli(*args, "--min-coverage", "0.5") == 1
    assert "coverage 0.250 is below --min-coverage 0.5; most common causes: 6 x invalid answer: 'no idea'" in capsys.readouterr().err


# ----------------------------------------------------------------------------- the run directory alone


def test_samples_carry_texts_unless_no_log_text(tmp_path):
    data = write_jsonl(tmp_path / "d.jsonl", [sci_row(i) for i in range(3)])
    for flag, out in (((), tmp_path / "with"), (("--no-log-text",), tmp_path / "without")):
        assert run_cli("run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--dataset-path", data,
                       "--output-path", out, "--quiet", *flag) == 0
    with_text = read_models_jsonl(tmp_path / "with" / "samples.jsonl", JudgmentRecord)
    first = next(r for r in with_text if r.example_id == "q1")
    assert (first.question, first.response_a, first.response_b) == (
        sci_row(1)["question"], sci_row(1)["responseA"], sci_row(1)["responseB"])
    without = read_models_jsonl(tmp_path / "without" / "samples.jsonl", JudgmentRecord)
    assert all(r.question is None and r.response_a is None and r.response_b is None for r in without)


@pytest.mark.slow
def test_user_task_run_scores_from_its_own_copy(tmp_path, capsys):
    folder = _task_copy(tmp_path, lambda t: t.replace("name: sciarena_eval", "name: my_task"))
    (folder / "sciarena_eval.yaml").rename(folder / "my_task.yaml")
    (folder / "demo").mkdir()
    demo = tasks_dir() / "demo" / "sciarena_eval_demo.jsonl"
    (folder / "demo" / "sciarena_eval_demo.jsonl").write_text(demo.read_text())
    prompt = prompts_dir() / "sciarena_pairwise.yaml"
    out = tmp_path / "out"
    assert run_cli("run", "--tasks", "my_task", "--include-path", folder, "--judge", "builtin/longer", "--demo",
                   "--output-path", out, "--quiet") == 0
    assert (out / "task.yaml").read_text() == (folder / "my_task.yaml").read_text()
    assert (out / "prompt.yaml").read_text() == prompt.read_text()
    before = json.loads((out / "results.json").read_text())["metrics"]
    assert run_cli("score", out) == 0  # no --include-path: the run's own copy of its task
    assert json.loads((out / "results.json").read_text())["metrics"] == before
    assert run_cli("report", out) == 0


@pytest.mark.slow
def test_output_write_failure_keeps_the_judgments(tmp_path):
    """A full disk under the output (a file-size limit: writes past it fail with EFBIG) after judging:
    one line naming the file, exit 2, and the judgments saved to a salvage file."""
    import subprocess
    import sys

    # The disk "fills up" once judging is done: the child lowers its file-size limit then.
    script = (
        "import resource, sys\n"
        "import judgebench.judging.pipeline as p\n"
        "judge = p.run_requests\n"
        "def judge_then_fill_disk(*a, **k):\n"
        "    out = judge(*a, **k)\n"
        "    resource.setrlimit(resource.RLIMIT_FSIZE, (120_000, resource.RLIM_INFINITY))\n"
        "    return out\n"
        "p.run_requests = judge_then_fill_disk\n"
        "from judgebench.cli.main import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-c", script, *DEMO, "--output-path", str(tmp_path / "out")],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot write" in lines[0] and "samples.jsonl" in lines[0], lines
    salvage = next(tmp_path.glob("judgebench-salvage-*/samples.jsonl"))
    saved = read_models_jsonl(salvage, JudgmentRecord)
    assert len(saved) == 96 and all(r.status == "ANSWERED" for r in saved)
    assert f"the 96 judgments were saved to {salvage}" in lines[0]
    assert not (tmp_path / "out" / "results.json").exists()


def test_a_run_refused_after_the_output_check_leaves_no_folder(tmp_path, capsys):
    out = tmp_path / "new" / "run"
    assert run_cli("run", "--tasks", "no_such_task", "--judge", "builtin/longer", "--demo", "--output-path", out) == 2
    assert "unknown task 'no_such_task'" in one_error_line(capsys)
    assert not (tmp_path / "new").exists()


def test_a_judgment_twice_in_samples_is_refused_everywhere(tmp_path, capsys):
    """An appended copy of 'correct' judgments raised accuracy 45.83 -> 59.38 while the output said 96 judgments."""
    out = tmp_path / "run"
    assert run_cli(*DEMO, "--output-path", out) == 0
    lines = (out / "samples.jsonl").read_text().splitlines()
    (out / "samples.jsonl").write_text("\n".join(lines + lines[:3]) + "\n")
    capsys.readouterr()
    for command in (["score", out], ["compare", out, out], ["report", out],
                    ["leaderboard", out, "--output-dir", tmp_path / "lb"]):
        code = run_cli(*command)
        err = capsys.readouterr().err
        assert "duplicated sample: the judgment of example" in err and f"appears 2 times (judgments 1, {len(lines) + 1})" in err, (command, err)
        assert code == 2, command  # the leaderboard skips it with a warning, and then has no run left


def test_a_dimension_the_task_lacks_is_refused(tmp_path, capsys):
    out = tmp_path / "run"
    assert run_cli(*DEMO, "--output-path", out) == 0
    lines = (out / "samples.jsonl").read_text().splitlines()
    extra = json.loads(lines[0]) | {"dimension": "novelty"}
    (out / "samples.jsonl").write_text("\n".join([*lines[1:], json.dumps(extra)]) + "\n")  # as many lines
    capsys.readouterr()
    assert run_cli("score", out) == 2
    assert "task sciarena_eval has no dimension 'novelty'" in one_error_line(capsys)


@pytest.mark.parametrize(
    ("template", "says"),
    [
        ("{% include '/etc/hostname' %}", "'include' is not allowed"),
        ("{% import 'x' as y %}", "'import' is not allowed"),
        ("{% extends 'base' %}", "'extends' is not allowed"),
        ("{{ range(10**8) | list | length }}", "cannot render template (TemplateBudget: a number above 10,000,000 given to a call"),
        ("{{ question + 1 }}", "cannot render template (TypeError"),
        ("{{ cycler.__init__.__globals__.os.system('true') }}", "cannot render template (SecurityError"),
        # found when the template is read, before any call (a later judge's had been found at its turn, paid)
        ("{{ question | nofilter }}", "key 'user' line 1: no filter named 'nofilter'"),
        ("{% if allow_tie is notatest %}x{% endif %}", "key 'user' line 1: no test named 'notatest'"),
        ("{% if allow_tie %}{{ question | nofilter }}{% endif %}", "key 'user' line 1: no filter named 'nofilter'"),
    ],
)
def test_a_hostile_or_broken_template_is_one_line(tmp_path, capsys, template, says):
    prompt = tmp_path / "t.yaml"
    shown = "{{ response_first }}{{ response_second }}"  # (a template that shows no response is warned of: not here)
    prompt.write_text(f"user: {json.dumps(template + shown)}\n")
    assert run_cli(*DEMO, "--output-path", tmp_path / "out", "--prompt", prompt) == 2
    line = one_error_line(capsys)
    assert "t.yaml" in line and says in line, line
    assert not (tmp_path / "out").exists()


def test_a_response_too_long_for_a_prompt_names_the_example_and_field_not_the_template(tmp_path, capsys):
    """A 30-million-character response was "/.../prompts/sciarena_pairwise.yaml: cannot render template
    (TemplateBudget ...)": the bundled template blamed, no row named (a built-in judge too: every judge's prompt is
    rendered, its hash is in every record)."""
    from judgebench.judging.prompts import OUTPUT_MAX

    data = write_jsonl(tmp_path / "big.jsonl", [sci_row(1), sci_row(2, responseB="x" * (OUTPUT_MAX + 1))])
    assert run_cli("run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--quiet", "--dataset-path", data,
                   "--output-path", tmp_path / "out") == 2
    assert one_error_line(capsys) == (f"judgebench: error: example id q2: field 'response_b' holds {OUTPUT_MAX + 1:,} "
                                      f"characters, more than a prompt may hold ({OUTPUT_MAX:,}); shorten it or leave "
                                      "the example out")


@pytest.mark.parametrize(
    ("text", "says"),
    [("user: a\nuser: b\n", "duplicate key 'user'"), ("usr: a\n", "unknown key 'usr'; did you mean 'user'?"),
     ("system: s\n", "key 'user' (the user message template) is missing")],
)
def test_prompt_yaml_mistakes_are_named(tmp_path, capsys, text, says):
    prompt = tmp_path / "p.yaml"
    prompt.write_text(text)
    assert run_cli(*DEMO, "--output-path", tmp_path / "out", "--prompt", prompt) == 2
    assert says in one_error_line(capsys)


@pytest.mark.parametrize(("flag", "value"), [("--output-path", ""), ("--output-path", "  "), ("--cache-dir", "")])
def test_an_empty_path_is_refused(tmp_path, monkeypatch, capsys, flag, value):
    """--output-path "" meant the current folder, silently."""
    monkeypatch.chdir(tmp_path)
    args = [*DEMO, "--output-path", "out"] if flag != "--output-path" else list(DEMO)
    assert run_cli(*args, flag, value) == 2
    assert f"argument {flag}: expected a path, got an empty value" in one_error_line(capsys)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_gate_threshold_must_be_a_finite_non_negative_number(tmp_path, capsys, value):
    """--fail-if-worse-by nan made a gate that could never fail."""
    out = tmp_path / "run"
    assert run_cli(*DEMO, "--output-path", out) == 0
    capsys.readouterr()
    assert run_cli("compare", out, out, "--fail-if-worse-by", value) == 2
    says = "must be >= 0" if value == "-1" else "must be a finite number >= 0"  # ("must be >= 0, got 'inf'": an attack)
    assert f"argument --fail-if-worse-by: {says}, got '{value}'" in one_error_line(capsys)


@pytest.mark.slow
def test_report_plots_follow_the_umask(tmp_path):
    out = tmp_path / "run"
    old = os.umask(0o022)
    try:
        assert run_cli(*DEMO, "--output-path", out) == 0
        assert run_cli("report", out) == 0
    finally:
        os.umask(old)
    pngs = list((out / "report").glob("*.png"))
    assert pngs and all(stat.S_IMODE(p.stat().st_mode) == 0o644 for p in pngs)


def test_failed_judgments_say_why_in_a_typed_field(tmp_path):
    """'not attempted' and 'unrecorded' were error texts matched by prefix; now a typed `failure`."""
    data = write_jsonl(tmp_path / "d.jsonl", [sci_row(i) for i in range(4)])
    with FakeOpenAIServer(Behaviour(status=500)) as server:
        code = run_cli("run", "--tasks", "sciarena_eval", "--judge", "openai/x", "--judge-args", f"api_base={server.api_base}",
                       "--dataset-path", data, "--output-path", tmp_path / "stopped", "--no-cache", "--quiet",
                       "--max-retries", "0", "--max-failures", "2", "--concurrency", "1")
    assert code == 1
    kinds = [r.failure for r in read_models_jsonl(tmp_path / "stopped" / "samples.jsonl", JudgmentRecord)]
    assert kinds.count("error") == 2 and kinds.count("not_attempted") == 6
    recordings = tmp_path / "stopped" / "samples.jsonl"
    code = run_cli("run", "--tasks", "sciarena_eval", "--judge", f"replay/{recordings}", "--dataset-path", data,
                   "--output-path", tmp_path / "replayed", "--quiet", "--max-retries", "0")
    assert code == 1  # nothing recorded to replay: nothing answered
    replayed = read_models_jsonl(tmp_path / "replayed" / "samples.jsonl", JudgmentRecord)
    assert {r.failure for r in replayed} == {"unrecorded"} and {r.status for r in replayed} == {"FAILED"}


def test_a_blank_provider_key_fails_before_any_call(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "  ")
    assert run_cli("run", "--tasks", "sciarena_eval", "--judge", "openai/gpt-4o", "--demo",
                   "--output-path", tmp_path / "out", "--no-cache") == 2
    assert "judge openai/gpt-4o: no credentials: OPENAI_API_KEY is set but empty" in one_error_line(capsys)
    assert not (tmp_path / "out").exists()


def test_a_missing_provider_key_is_refused_before_litellm_is_imported(tmp_path):
    """`--judge openai/gpt-4.1x` without OPENAI_API_KEY took 6.4 s to say so (litellm imported to ask it): the
    variable a named provider reads is looked at first, the same one litellm names."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    code = ("import sys; from judgebench.cli.main import main; "
            f"status = main(['run', '--tasks', 'sciarena_eval', '--judge', 'anthropic/claude-x', '--demo', "
            f"'--output-path', {str(tmp_path / 'out')!r}]); print(status, 'litellm' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["2", "False"], done.stderr
    assert "judge anthropic/claude-x: no credentials: set ANTHROPIC_API_KEY (or pass --judge-args api_key=...)" in done.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [("temperature=nan", "temperature='nan': expected a number"), ("top_p=inf", "top_p='inf': expected a number"),
     ("api_base=http://127.0.0.1:9/v1,base_url=http://127.0.0.1:9/v1", "api_base is given twice")],
)
def test_judge_arguments_that_cannot_be_sent_are_refused_first(tmp_path, capsys, args, says):
    base = "" if "api_base" in args else "api_base=http://127.0.0.1:9/v1,"
    assert run_cli("run", "--tasks", "sciarena_eval", "--judge", "openai/x", "--judge-args", base + args, "--demo",
                   "--output-path", tmp_path / "out") == 2
    assert says in one_error_line(capsys)


# ----------------------------------------------------------------------------- crafted run folders


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory) -> Path:
    """One demo run directory (builtin/longer), copied by each test that edits it."""
    out = tmp_path_factory.mktemp("demo") / "run"
    assert run_cli(*DEMO, "--output-path", out) == 0
    return out


def _edited_run(demo_run: Path, tmp_path: Path, edit) -> Path:
    """A copy of the demo run whose samples.jsonl lines are `edit(lines)`."""
    import shutil

    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    path = run / "samples.jsonl"
    lines = path.read_text(encoding="utf-8").split("\n")[:-1]
    path.write_text("\n".join(edit(lines)) + "\n", encoding="utf-8")
    return run


def _set(line: str, **raw_json: str) -> str:
    """A samples line with some fields' JSON replaced by the given text (kept in place)."""
    obj = json.loads(line)
    return "{" + ",".join(f"{json.dumps(k)}:{raw_json.get(k, json.dumps(v))}" for k, v in obj.items()) + "}"


@pytest.mark.parametrize(("field", "value", "says"), [
    ("length_a", str(2**63), "samples.jsonl:2: field 'length_a': Input should be less than or equal to"),
    ("citations_b", "-1", "samples.jsonl:2: field 'citations_b': Input should be greater than or equal to 0"),
    ("tokens_in", "1" + "0" * 309, "samples.jsonl:2: field 'tokens_in': Input should be less than or equal to 9007199254740992"),
])
def test_out_of_range_counts_in_samples_are_one_line_exit_2(demo_run, tmp_path, capsys, field, value, says):
    """Integers the arrays of scoring cannot hold (int64, float) are refused, not a traceback."""
    run = _edited_run(demo_run, tmp_path, lambda lines: [lines[0], _set(lines[1], **{field: value}), *lines[2:]])
    assert run_cli("score", run) == 2
    assert says in one_error_line(capsys)


def test_crafted_keys_in_samples_give_one_printable_line(demo_run, tmp_path, capsys):
    """An unknown key with a newline and a terminal escape, a megabyte long: one line, escaped, cut short."""
    key = "evil\nsecond line\x1b[31mRED" + "x" * 1_000_000
    run = _edited_run(demo_run, tmp_path, lambda lines: [lines[0][:-1] + f",{json.dumps(key)}:1}}", *lines[1:]])
    for command in ("score", "report"):
        assert run_cli(command, run) == 2
        line = one_error_line(capsys)
        assert "samples.jsonl:1: field 'evil\\nsecond line\\x1b[31mRED" in line and "\x1b" not in line
        assert len(line) < 500


def test_line_separators_inside_answers_are_not_line_ends(demo_run, tmp_path, capsys):
    """U+2028, U+2029 and NEL are legal raw inside JSON strings and `run` writes them raw: every reader
    (lean and full) splits samples at line feeds only, so compare and score read the same judgments."""
    from judgebench.core.rundir import read_samples

    odd = '"[[A]] because\u2028first\u2029second\x85third"'
    run = _edited_run(demo_run, tmp_path, lambda lines: [_set(line, raw=odd) if i % 2 == 0 else line
                                                            for i, line in enumerate(lines)])
    path = run / "samples.jsonl"
    full, lean = read_samples(path), read_samples(path, lean=True)
    assert len(full) == len(lean) == 96 and [r.raw for r in full] == [r.raw for r in lean]
    assert "\u2028" in full[0].raw
    assert run_cli("score", run) == 0 and run_cli("compare", run, demo_run) == 0


def test_a_rescore_keeps_lines_with_carriage_returns_between_tokens(demo_run, tmp_path):
    """A line with a raw CR between its JSON tokens (JSON whitespace) reads as one line; when a re-score
    rewrites samples.jsonl (a verdict parsed anew), it splits the file the same way and keeps every text."""
    from judgebench.core.rundir import read_samples

    def edit(lines: list[str]) -> list[str]:
        first = _set(lines[0], verdict='"B"' if json.loads(lines[0])["verdict"] == "A" else '"A"')
        return [first.replace(',"dimension"', ',\r"dimension"'), *lines[1:]]

    run = _edited_run(demo_run, tmp_path, edit)
    before = read_samples(run / "samples.jsonl")
    assert run_cli("score", run) == 0
    after = read_samples(run / "samples.jsonl")
    assert len(after) == len(before) == 96
    assert [(r.question, r.response_a, r.response_b) for r in after] == \
        [(r.question, r.response_a, r.response_b) for r in before]
    assert after[0].verdict == json.loads(demo_run.joinpath("samples.jsonl").read_text().split("\n")[0])["verdict"]


def test_an_empty_samples_file_names_itself(demo_run, tmp_path, capsys):
    run = _edited_run(demo_run, tmp_path, lambda lines: ["   "])
    assert run_cli("score", run) == 2
    assert one_error_line(capsys).endswith("samples.jsonl: no judgments")


@pytest.mark.parametrize("extra", [[], ["--judge-unlabelled"]])
def test_a_nan_vote_is_refused_not_read_as_a_missing_label(tmp_path, capsys, extra):
    """`"vote": NaN` (Python's json writes it; JSON has no NaN): Arrow's reader made it null, so the row read as
    unlabelled, and with --judge-unlabelled was judged and left out of the scores (exit 0). Now one line naming
    the file and line; the text "NaN" inside a string is no such value and loads."""
    rows = [sci_row(0, "A"), sci_row(1, "B"), sci_row(2, "A")]
    rows[1]["vote"] = float("nan")
    rows[2]["question"] = "Is NaN, or Infinity, a JSON value?"
    data = write_jsonl(tmp_path / "nan.jsonl", rows)
    code = main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--dataset-path", str(data),
                 "--output-path", str(tmp_path / "out"), "--quiet", *extra])
    err = capsys.readouterr().err
    assert code == 2 and err == f"judgebench: error: {data}:2: NaN is not a JSON value (a label or number must be given, or null for none)\n"
    # the same lines in a .json file (`datasets` reads JSON Lines from one) and in a dataset folder
    for path, given in ((tmp_path / "nan.json", tmp_path / "nan.json"), (tmp_path / "folder" / "train.jsonl", tmp_path / "folder")):
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data.read_bytes())
        code = main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--dataset-path", str(given),
                     "--output-path", str(tmp_path / "out"), "--quiet", *extra])
        assert code == 2 and f"{path}:2: NaN is not a JSON value" in capsys.readouterr().err
    rows[1]["vote"] = "B"
    write_jsonl(data, rows)
    assert main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--dataset-path", str(data),
                 "--output-path", str(tmp_path / "out"), "--quiet", *extra]) == 0


def test_a_later_tasks_bad_row_is_found_before_the_first_tasks_calls(tmp_path, capsys):
    """`--tasks sciarena_eval,badtask --demo` where badtask's demo rows hold a label no mapping takes: every later
    task's data is read before the first task's calls (an outside attack saw 96 calls paid, sciarena_eval's run
    written, then exit 2 naming the row)."""
    data = write_jsonl(tmp_path / "bad.jsonl", [sci_row(0, "A"), sci_row(1, "C")])
    folder = tmp_path / "tasks"
    folder.mkdir()
    task = (tasks_dir() / "sciarena_eval.yaml").read_text()
    assert "path: demo/sciarena_eval_demo.jsonl" in task
    (folder / "badtask.yaml").write_text(task.replace("name: sciarena_eval", "name: badtask", 1)
                                         .replace("path: demo/sciarena_eval_demo.jsonl", f"path: {data}"))
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        code = main(["run", "--tasks", "sciarena_eval,badtask", "--include-path", str(folder), "--demo",
                     "--judge", "openai/m", "--judge-args", f"api_base={server.api_base},api_key=x",
                     "--output-path", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache"), "--quiet"])
        sent = server.stats().total
    err = capsys.readouterr().err
    assert code == 2 and sent == 0 and "row id q1" in err and "'C'" in err and err.count("\n") == 1, err
    assert not (tmp_path / "out").exists()


def test_an_endpoints_error_text_reaches_the_terminal_escaped(tmp_path, capsys):
    """An outside attack: a 401 whose message held ESC and BEL sequences (colour, a hidden OSC 8 link, a window
    title) was printed raw in `run`'s stop line and in `pairs`' unanswered lines; a proxy or a third-party endpoint
    could write to the user's terminal. `score`, `report` and `view` had shown the same stored errors escaped."""
    evil = "bad key \x1b[31mRED\x1b[0m\x1b]8;;http://evil.example\x1b\\LINK\x1b]8;;\x1b\\ \x1b]0;PWNED\x07"
    questions = write_jsonl(tmp_path / "q.jsonl", [{"id": "q1", "question": "What?"}])
    with FakeOpenAIServer(Behaviour(status=401, error_message=evil)) as server:
        args = f"api_base={server.api_base},api_key=sk-t"
        assert main(["run", "--tasks", "sciarena_eval", "--demo", "--limit", "2", "--quiet", "--max-retries", "0",
                     "--judge", "openai/m", "--judge-args", args, "--output-path", str(tmp_path / "o")]) == 1
        run_out = capsys.readouterr()
        assert main(["pairs", str(questions), "--models", "openai/a,openai/b", "--model-args", f"openai/a={args}",
                     "--model-args", f"openai/b={args}", "--max-retries", "0", "--output", str(tmp_path / "p"),
                     "--cache-dir", str(tmp_path / "cache"), "--quiet"]) == 1
        pairs_out = capsys.readouterr()
    for printed in (run_out.out + run_out.err, pairs_out.out + pairs_out.err):
        assert "RED" in printed and "\\x1b[31m" in printed  # said, escaped
        assert "\x1b" not in printed and "\x07" not in printed


def test_a_second_run_into_a_folder_a_run_is_writing_is_refused(tmp_path: Path, capsys) -> None:
    """An outside attack: two runs into one --output-path left one's results.json beside the other's samples.jsonl,
    both exiting 0, and every reader then refused the folder. A run holds its folder while it writes: a second one
    is one line and exit 2 before its data loads (a pairwise run and a rubric run alike); the folder it would have
    made is not left behind; once the first ends the same command runs."""
    from judgebench.core.rundir import writing_run

    out = tmp_path / "runs" / "shared"
    pairwise = ["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--quiet", "--output-path",
                str(out)]
    rubric = ["rubric", "run", "--task", "rubric_demo", "--judge", "builtin/full-credit", "--demo", "--output-path",
              str(out)]
    with writing_run(out):
        for command in (pairwise, rubric):
            capsys.readouterr()
            assert main(command) == 2
            err = capsys.readouterr().err.strip()
            assert err == (f"judgebench: error: --output-path {out}: another judgebench run is writing this folder; "
                           "wait for it to end, or give another --output-path"), err
            assert list(out.iterdir()) == []
    assert not out.exists()  # the held folder was made for the holder, empty: removed with the lock
    assert main(pairwise) == 0 and (out / "results.json").is_file()


def test_a_refused_run_removes_no_folder_it_did_not_make(tmp_path: Path, capsys) -> None:
    """A second outside attack: `--output-path runs/new/../shared` while another run held runs/shared, still empty:
    the output check took the path's text for the folders it made (runs/new/.., runs/new/../shared) and removed
    runs/shared, the first run's folder; a third run then wrote there beside it, both exiting 0. Only the folders a
    command made are removed (runs/new here), and the held one stays."""
    from judgebench.core.rundir import writing_run

    held = tmp_path / "runs" / "shared"
    held.mkdir(parents=True)
    spelled = tmp_path / "runs" / "new" / ".." / "shared"
    with writing_run(held):
        assert main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--quiet",
                     "--output-path", str(spelled)]) == 2
        assert "another judgebench run is writing this folder" in capsys.readouterr().err
        assert held.is_dir() and not (tmp_path / "runs" / "new").exists()
        assert main(["run", "--tasks", "nope_task", "--judge", "builtin/longer", "--demo", "--quiet",
                     "--output-path", str(tmp_path / "runs" / "other" / ".." / "mine")]) == 2
        assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["shared"]
    assert held.is_dir()  # the user's own folder, made before the run: kept
    (tmp_path / "runs" / "a-file").write_text("")
    assert main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--quiet",
                 "--output-path", str(tmp_path / "runs" / "new" / ".." / "a-file")]) == 2
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["a-file", "shared"]  # (`new` was left behind)


def test_several_judges_or_a_sweep_into_a_folder_a_run_is_writing_are_refused(tmp_path: Path, capsys) -> None:
    """A second outside attack: two `--judge X --judge Y --panel` runs into one folder both exited 0, judges.json and
    panel/ holding the second's judges only (each judge's folder was held, the top one not); a sweep's sweep.json
    the same. The top folder is held too."""
    from judgebench.core.rundir import writing_run

    out = tmp_path / "jury"
    several = ["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--judge", "builtin/shorter", "--demo",
               "--quiet", "--panel", "majority", "--output-path", str(out)]
    with writing_run(out):
        assert main(several) == 2
        assert "another judgebench run is writing this folder" in capsys.readouterr().err
        with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
            assert main(["run", "--tasks", "sciarena_eval", "--judge", "openai/m", "--judge-args",
                         f"api_base={server.api_base},api_key=sk-t", "--demo", "--limit", "2", "--quiet", "--sweep",
                         "temperature=0,1", "--output-path", str(out), "--cache-dir", str(tmp_path / "cache")]) == 2
            assert server.stats().total == 0
        assert "another judgebench run is writing this folder" in capsys.readouterr().err
        assert list(out.iterdir()) == []
    assert main(several) == 0 and (out / "judges.json").is_file() and (out / "panel" / "results.json").is_file()
