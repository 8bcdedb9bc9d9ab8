"""Run folders and output paths that are broken or tampered with: one line naming the file, flag or line, exit 2,
never a traceback or a hang.

A FIFO or device where a file is read, a file where an output folder is expected, a results.json with a key
given twice or a negative seed, samples.jsonl lines removed, impossible numbers in samples.jsonl, and a
provider's nonsense token counts.
"""

from __future__ import annotations

import errno
import json
import os
import signal
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers import sci_row, write_jsonl
from openai_server import Behaviour, FakeOpenAIServer

from judgebench.cli.main import main
from judgebench.core.files import NotRegularFile, regular_text
from judgebench.core.records import COUNT_MAX, reported_amount, reported_count
from judgebench.judges.prices import price

DEMO = ("run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--quiet")
TASKS = Path(__file__).resolve().parents[2] / "tasks"


def run_cli(*args: object) -> int:
    return main([str(a) for a in args])


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = [line for line in capsys.readouterr().err.strip().splitlines() if not line.startswith("judgebench: warning:")]
    assert len(err) == 1 and err[0].startswith("judgebench: error:"), err
    return err[0]


@contextmanager
def within(seconds: int):
    """Fail the test instead of hanging it (a FIFO opened for reading blocks until a writer comes)."""

    def hung(signum, frame):
        raise AssertionError(f"still blocked after {seconds} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("demo") / "run"
    assert run_cli(*DEMO, "--output-path", out) == 0
    return out


def copy_run(demo_run: Path, folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name in ("results.json", "samples.jsonl", "task.yaml", "prompt.yaml"):
        (folder / name).write_bytes((demo_run / name).read_bytes())
    return folder


def run_with_fifo(demo_run: Path, folder: Path, fifo: str) -> Path:
    """A run folder holding the demo run's results.json or samples.jsonl, and a FIFO as the other."""
    folder.mkdir(parents=True)
    other = "samples.jsonl" if fifo == "results.json" else "results.json"
    (folder / other).write_bytes((demo_run / other).read_bytes())
    os.mkfifo(folder / fifo)
    return folder


# ----------------------------------------------------------------------------- files that are not files


def test_reading_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "results.json"
    os.mkfifo(fifo)
    with within(10), pytest.raises(NotRegularFile, match="not a regular file"):
        regular_text(fifo)
    with within(10), pytest.raises(NotRegularFile):
        regular_text(tmp_path)  # a folder is not a regular file either
    (tmp_path / "plain.txt").write_text("kept")
    assert regular_text(tmp_path / "plain.txt") == "kept"


def test_leaderboard_skips_a_fifo_results_json_and_fails_when_nothing_is_left(tmp_path, demo_run, capsys):
    fifo_run = tmp_path / "runs" / "fifo"
    fifo_run.mkdir(parents=True)
    os.mkfifo(fifo_run / "results.json")
    copy_run(demo_run, tmp_path / "runs" / "real")
    with within(30):
        assert run_cli("leaderboard", tmp_path / "runs", "--output-dir", tmp_path / "lb") == 0
    err = capsys.readouterr().err
    assert f"skipped {fifo_run / 'results.json'}: cannot read (not a regular file)" in err
    assert (tmp_path / "lb" / "sciarena_eval.md").is_file()
    with within(30):
        assert run_cli("leaderboard", fifo_run, "--output-dir", tmp_path / "lb2") == 2
    assert "no leaderboard written: none of the 1 results file(s) could be used" in one_error_line(capsys)
    assert not (tmp_path / "lb2").exists()


def test_a_fifo_task_yaml_in_an_include_folder_is_one_line(tmp_path, capsys):
    (tmp_path / "tasks").mkdir()
    os.mkfifo(tmp_path / "tasks" / "x.yaml")
    with within(30):
        assert run_cli("tasks", "--include-path", tmp_path / "tasks") == 2
    assert one_error_line(capsys).endswith(f"{tmp_path / 'tasks' / 'x.yaml'}: cannot read (not a regular file)")


def test_a_fifo_samples_jsonl_is_not_a_run(tmp_path, demo_run, capsys):
    run = run_with_fifo(demo_run, tmp_path / "run", "samples.jsonl")
    with within(30):
        assert run_cli("score", run) == 2
    assert one_error_line(capsys).endswith("not a run directory (samples.jsonl is not a regular file)")


# ----------------------------------------------------------------------------- output paths


@pytest.mark.parametrize(
    ("command", "flag"),
    [
        (["report", "RUN", "--output-dir", "TAKEN"], "--output-dir"),
        (["leaderboard", "RUN", "--output-dir", "TAKEN"], "--output-dir"),
        (["arena", "sciarena_eval", "--output-dir", "TAKEN"], "--output-dir"),
        (["export", "RUN", "--output", "TAKEN"], "--output"),
        (["panel", "RUN", "RUN", "--output-path", "TAKEN"], "--output-path"),
        (["merge", "RUN", "--output-path", "TAKEN"], "--output-path"),
        (["submit", "RUN", "--leaderboard-dir", "TAKEN"], "--leaderboard-dir"),
        (["pairs", "q.jsonl", "--models", "a,b", "--output", "TAKEN"], "--output"),
        (["freeze", "votes.jsonl", "--split-size", "2", "--output", "TAKEN"], "--output"),
        (["rubric", "leaderboard", "RUN", "--output-dir", "TAKEN"], "--output-dir"),
        (["rubric", "report", "RUN", "--output-dir", "TAKEN"], "--output-dir"),
        (["rubric", "run", "--task", "t", "--judge", "j", "--output-path", "TAKEN"], "--output-path"),
        (["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--output-path", "TAKEN"], "--output-path"),
    ],
)
def test_an_output_folder_flag_naming_a_file_is_refused_before_any_work(tmp_path, capsys, command, flag):
    taken = tmp_path / "taken"
    taken.write_text("keep me")
    args = [str(taken) if a == "TAKEN" else str(tmp_path / "run") if a == "RUN" else a for a in command]
    assert main(args) == 2
    assert f"argument {flag}: {taken}: exists and is not a directory" in one_error_line(capsys)
    assert taken.read_text() == "keep me"


def test_compare_output_must_be_a_file_in_a_folder(tmp_path, demo_run, capsys):
    (tmp_path / "afile").write_text("x")
    assert run_cli("compare", demo_run, demo_run, "--output", tmp_path / "afile" / "c.json") == 2
    assert f"argument --output: {tmp_path / 'afile' / 'c.json'}: {tmp_path / 'afile'} exists and is not a directory" \
        in one_error_line(capsys)
    assert run_cli("compare", demo_run, demo_run, "--output", tmp_path) == 2
    assert f"argument --output: {tmp_path}: is a directory (name a file)" in one_error_line(capsys)
    assert run_cli("compare", demo_run, demo_run, "--output", tmp_path / "new" / "c.json") == 0
    assert json.loads((tmp_path / "new" / "c.json").read_text())


def test_report_folder_taken_by_a_file_in_the_run(tmp_path, demo_run, capsys):
    run = copy_run(demo_run, tmp_path / "run")
    (run / "report").write_text("mine")
    assert run_cli("report", run) == 2
    assert one_error_line(capsys).endswith(f"{run / 'report'}: is not a directory (remove it, or name a folder with --output-dir)")
    assert (run / "report").read_text() == "mine"


def test_an_os_error_the_command_did_not_foresee_is_one_line(tmp_path, demo_run, capsys, monkeypatch):
    import judgebench.publish.report

    def disk_full(path, text):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(judgebench.publish.report, "write_atomic", disk_full)
    run = copy_run(demo_run, tmp_path / "run")
    assert run_cli("report", run) == 2
    line = one_error_line(capsys)
    assert line.startswith(f"judgebench: error: {run / 'report'}/") and line.endswith(": No space left on device"), line


# ----------------------------------------------------------------------------- results.json


def test_a_key_given_twice_in_results_json_is_refused(tmp_path, demo_run, capsys):
    run = copy_run(demo_run, tmp_path / "run")
    text = (run / "results.json").read_text()
    assert text.count('"seed": 0,') == 1
    (run / "results.json").write_text(text.replace('"seed": 0,', '"seed": 0, "seed": 7,'))
    for command in (["score", run], ["report", run], ["compare", run, demo_run]):
        assert run_cli(*command) == 2, command
        assert one_error_line(capsys).endswith(f"{run / 'results.json'}: key 'seed' appears twice in one object")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_or_infinity_in_results_json_is_refused(tmp_path, demo_run, capsys, constant):
    """Found by the outside re-run: a hand-edited NaN reached the leaderboard's JSON (not JSON) and showed as 'nan'."""
    import re

    run = copy_run(demo_run, tmp_path / "run")
    text = (run / "results.json").read_text()
    edited = re.sub(r'("accuracy_ab": \{\s*"value": )[0-9.]+', lambda m: m.group(1) + constant, text, count=1)
    assert edited != text
    (run / "results.json").write_text(edited)
    for command in (["score", run], ["report", run], ["compare", run, demo_run]):
        assert run_cli(*command) == 2, command
        assert one_error_line(capsys).endswith(f"{run / 'results.json'}: {constant} is not a JSON number (judgebench never writes it)")
    assert run_cli("leaderboard", run, "--output-dir", tmp_path / "lb") == 2  # skipped, and nothing was left


@pytest.mark.parametrize(("field", "value", "says"), [("seed", -1, "field 'config.seed'"), ("limit", 0, "field 'config.limit'")])
def test_a_negative_seed_or_empty_limit_in_results_json_is_refused(tmp_path, demo_run, capsys, field, value, says):
    run = copy_run(demo_run, tmp_path / "run")
    data = json.loads((run / "results.json").read_text())
    data["config"][field] = value
    (run / "results.json").write_text(json.dumps(data))
    for command in (["score", run], ["report", run]):
        assert run_cli(*command) == 2, command
        assert f"{run / 'results.json'}: {says}: Input should be greater than or equal to" in one_error_line(capsys)


# ----------------------------------------------------------------------------- samples.jsonl


def test_removed_samples_lines_are_refused_not_scored_over_the_rest(tmp_path, demo_run, capsys):
    """Deleting the lines of 30 of the 48 examples used to give an accuracy over the 18 left, without a word."""
    run = copy_run(demo_run, tmp_path / "run")
    lines = (run / "samples.jsonl").read_text().splitlines()
    (run / "samples.jsonl").write_text("\n".join(lines[:36]) + "\n")
    says = f"{run / 'samples.jsonl'}: 36 judgments, but results.json counts 96: lines were removed or added after the run"
    for command in (["score", run], ["report", run], ["compare", demo_run, run], ["export", run, "--output", tmp_path / "hf"]):
        assert run_cli(*command) == 2, command
        assert says in one_error_line(capsys), command
    assert run_cli("leaderboard", run, "--output-dir", tmp_path / "lb") == 2
    assert says in capsys.readouterr().err


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("latency_s", "NaN", "a finite number"),
        ("latency_s", "-1.5", "greater than or equal to 0"),
        ("latency_s", "Infinity", "a finite number"),
        ("cost_usd", "-0.25", "greater than or equal to 0"),
        ("cost_usd", "1e400", "a finite number"),
        ("tokens_in", "-3", "greater than or equal to 0"),
        ("tokens_out", str(2**63), f"less than or equal to {COUNT_MAX}"),
        ("reasoning_tokens", "-1", "greater than or equal to 0"),
    ],
)
def test_impossible_numbers_in_samples_are_refused_naming_the_line(tmp_path, demo_run, capsys, field, value, says):
    run = copy_run(demo_run, tmp_path / "run")
    lines = (run / "samples.jsonl").read_text().splitlines()
    row = json.loads(lines[4])
    text = json.dumps(row).replace(f'"{field}": {json.dumps(row[field])}', f'"{field}": {value}')
    assert text != json.dumps(row)
    lines[4] = text
    (run / "samples.jsonl").write_text("\n".join(lines) + "\n")
    for command in (["score", run], ["report", run], ["export", run, "--output", tmp_path / "hf"]):
        assert run_cli(*command) == 2, command
        line = one_error_line(capsys)
        assert f"{run / 'samples.jsonl'}:5: field '{field}': Input should be" in line and says in line, (command, line)


# ----------------------------------------------------------------------------- a provider's figures


def test_nonsense_token_counts_from_a_provider_are_recorded_as_unknown(tmp_path):
    """A server reporting -1,000,000 prompt tokens would have priced the call below zero (and let `--max-cost`
    spend more); 2**70 completion tokens overflowed `export`. Both are kept as unknown; the answers count."""
    data = write_jsonl(tmp_path / "eval.jsonl", [sci_row(i, "A" if i % 2 else "B") for i in range(4)])
    with FakeOpenAIServer(Behaviour(usage={"prompt_tokens": -1_000_000, "completion_tokens": 2**70})) as server:
        code = run_cli(
            "run", "--tasks", "sciarena_eval", "--judge", "openai/test-judge", "--dataset-path", data,
            "--judge-args", f"api_base={server.api_base},api_key=sk-test", "--output-path", tmp_path / "out",
            "--cache-dir", tmp_path / "cache", "--quiet",
        )
    assert code == 0
    rows = [json.loads(line) for line in (tmp_path / "out" / "samples.jsonl").read_text().splitlines()]
    assert len(rows) == 8 and all(r["status"] == "ANSWERED" for r in rows)
    assert all(r["tokens_in"] is None and r["tokens_out"] is None and r["cost_usd"] is None for r in rows)
    assert run_cli("score", tmp_path / "out") == 0
    assert run_cli("export", tmp_path / "out", "--output", tmp_path / "hf") == 0


def test_reported_figures_keep_only_what_makes_sense():
    assert [reported_count(v) for v in (0, 5, COUNT_MAX, COUNT_MAX + 1, -1, True, 2.0, "3", None)] == \
        [0, 5, COUNT_MAX, None, None, None, None, None, None]
    assert [reported_amount(v) for v in (0, 0.5, 3, -0.01, float("nan"), float("inf"), 10**400, True, "1")] == \
        [0.0, 0.5, 3.0, None, None, None, None, None, None]
    prices = (2e-6, 8e-6)  # dollars per input and output token
    assert price(prices, 1_000, 500) == pytest.approx(1_000 * 2e-6 + 500 * 8e-6)  # 0.006
    assert price(prices, -1_000_000, 500) is None  # never a negative cost
    assert price(prices, 1_000, 2**70) is None
    assert price(None, 1_000, 500) is None


# ----------------------------------------------------------------------------- found by an outside attack


def test_an_integer_too_long_for_json_in_results_json_is_one_line(tmp_path, demo_run, capsys):
    run = copy_run(demo_run, tmp_path / "run")
    text = (run / "results.json").read_text()
    (run / "results.json").write_text(text.replace('"seed": 0', '"seed": ' + "9" * 5000, 1))
    assert run_cli("score", run) == 2
    assert one_error_line(capsys).startswith(f"judgebench: error: {run / 'results.json'}: field ")


@pytest.mark.parametrize("value", ['"5"', "true", "1.0"])
def test_results_json_is_read_strictly(tmp_path, demo_run, capsys, value):
    run = copy_run(demo_run, tmp_path / "run")
    text = (run / "results.json").read_text()
    (run / "results.json").write_text(text.replace('"seed": 0', f'"seed": {value}', 1))
    assert run_cli("score", run) == 2
    assert f"{run / 'results.json'}: field 'config.seed': Input should be a valid integer" in one_error_line(capsys)


@pytest.mark.slow  # measured over 1.5 s in the fast selection
def test_output_piped_into_a_closed_reader_stops_quietly(tmp_path, demo_run):
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "judgebench", "score", str(copy_run(demo_run, tmp_path / "run"))],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # like `judgebench score run | head -0`: the reader is gone before the first line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0 and err == "", err


@pytest.mark.parametrize("kind", ["fifo", "symlink", "dangling"])
def test_compare_output_never_replaces_what_is_not_a_regular_file(tmp_path, demo_run, capsys, kind):
    target = tmp_path / "target"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        (tmp_path / "elsewhere").write_text("mine")
        target.symlink_to(tmp_path / ("elsewhere" if kind == "symlink" else "nothing"))
    assert run_cli("compare", demo_run, demo_run, "--output", target) == 2
    assert f"argument --output: {target}: exists and is not a regular file" in one_error_line(capsys)
    assert target.is_symlink() or target.is_fifo()


def test_a_write_that_fails_names_the_file_not_its_temp_copy(tmp_path, monkeypatch):
    from judgebench.core.files import write_atomic

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError) as info:
        write_atomic(tmp_path / "report.md", "text")
    assert info.value.filename == str(tmp_path / "report.md") and info.value.strerror == "No space left on device"
    assert list(tmp_path.iterdir()) == []  # the temp copy is gone



def test_a_temp_copy_that_cannot_be_made_names_the_file(tmp_path, monkeypatch):
    """The second attack: `report --output-dir /proc/self` named `.diagnostics.json.XXXX.tmp` (mkstemp's name)."""
    import tempfile

    from judgebench.core.files import write_atomic

    def refused(dir, prefix, suffix):
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", f"{dir}/{prefix}abcd1234{suffix}")

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    with pytest.raises(OSError) as info:
        write_atomic(tmp_path / "report.md", "text")
    assert info.value.filename == str(tmp_path / "report.md")


def test_a_fifo_results_json_is_refused_by_report_not_taken_for_a_samples_only_folder(tmp_path, demo_run, capsys):
    run = run_with_fifo(demo_run, tmp_path / "run", "results.json")
    with within(30):
        assert run_cli("report", run) == 2
    assert one_error_line(capsys).endswith(f"{run / 'results.json'}: cannot read (not a regular file)")


def test_leaderboard_skips_a_run_whose_samples_jsonl_is_a_fifo(tmp_path, demo_run, capsys):
    run = run_with_fifo(demo_run, tmp_path / "run", "samples.jsonl")
    with within(30):
        assert run_cli("leaderboard", run, "--output-dir", tmp_path / "lb") == 2
    assert "cannot read (not a regular file)" in capsys.readouterr().err


def test_repeats_lines_removed_or_the_file_gone_are_refused(tmp_path, capsys):
    run = tmp_path / "rep"
    assert run_cli("run", "--tasks", "sciarena_eval", "--judge", "builtin/random", "--demo", "--repeats", "3",
                   "--output-path", run, "--quiet") == 0
    capsys.readouterr()
    lines = (run / "repeats.jsonl").read_text().splitlines()
    assert len(lines) == 192  # 96 judgments x repeats 1 and 2
    (run / "repeats.jsonl").write_text("\n".join(lines[100:]) + "\n")
    assert run_cli("score", run) == 2
    assert one_error_line(capsys).endswith(
        f"{run / 'repeats.jsonl'}: 92 judgments, but results.json's stability counts 192 beyond samples.jsonl: "
        "lines were removed or added after the run")
    (run / "repeats.jsonl").unlink()
    assert run_cli("score", run) == 2
    assert "repeats.jsonl: 0 judgments, but results.json's stability counts 192" in one_error_line(capsys)


def test_rubric_samples_lines_removed_are_refused(tmp_path, capsys):
    run = tmp_path / "rub"
    assert run_cli("rubric", "run", "--task", "rubric_demo", "--judge", "builtin/full-credit", "--demo",
                   "--output-path", run, "--quiet") == 0
    capsys.readouterr()
    lines = (run / "samples.jsonl").read_text().splitlines()
    (run / "samples.jsonl").write_text("\n".join(lines[10:]) + "\n")
    says = f"{run / 'samples.jsonl'}: {len(lines) - 10} judgments, but results.json counts {len(lines)}"
    for command in (["rubric", "score", run], ["rubric", "report", run]):
        assert run_cli(*command) == 2, command
        assert says in one_error_line(capsys), command


def test_costs_that_add_up_past_a_float_are_one_line(tmp_path, demo_run, capsys):
    run = copy_run(demo_run, tmp_path / "run")
    rows = [json.loads(line) for line in (run / "samples.jsonl").read_text().splitlines()]
    for row in rows:
        row["cost_usd"] = 1.7976931348623157e308  # each finite, their sum is not
    (run / "samples.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert run_cli("score", run) == 2
    assert one_error_line(capsys).endswith("samples: the calls' costs add up to more than a float holds (a cost_usd is absurdly large)")


def test_impossible_usage_in_a_results_json_alone_is_refused(tmp_path, demo_run, capsys):
    run = copy_run(demo_run, tmp_path / "run")
    (run / "samples.jsonl").unlink()  # a results file without its samples: the leaderboard shows its own figures
    data = json.loads((run / "results.json").read_text())
    data["usage"]["tokens_per_call"] = -3
    (run / "results.json").write_text(json.dumps(data))
    assert run_cli("leaderboard", run / "results.json", "--output-dir", tmp_path / "lb") == 2
    assert "field 'usage.tokens_per_call': Input should be greater than or equal to 0" in capsys.readouterr().err


def test_litellm_never_prices_token_counts_that_were_refused(tmp_path):
    """litellm's cost map priced a reported 2**60 prompt tokens at $2.3e12 a call though the count was dropped."""
    data = write_jsonl(tmp_path / "eval.jsonl", [sci_row(i, "A" if i % 2 else "B") for i in range(2)])
    with FakeOpenAIServer(Behaviour(usage={"prompt_tokens": 2**60})) as server:
        code = run_cli(
            "run", "--tasks", "sciarena_eval", "--judge", "openai/gpt-4.1-mini", "--dataset-path", data,
            "--judge-args", f"api_base={server.api_base},api_key=sk-test,transport=litellm",
            "--output-path", tmp_path / "out", "--no-cache", "--quiet",
        )
    assert code == 0
    rows = [json.loads(line) for line in (tmp_path / "out" / "samples.jsonl").read_text().splitlines()]
    assert len(rows) == 4 and all(r["status"] == "ANSWERED" for r in rows)
    assert all(r["tokens_in"] is None and r["tokens_out"] is not None and r["cost_usd"] is None for r in rows)


def test_an_output_folder_under_a_file_is_refused_before_any_work(tmp_path, demo_run, capsys):
    (tmp_path / "afile").write_text("x")
    assert run_cli("report", demo_run, "--output-dir", tmp_path / "afile" / "sub") == 2
    assert f"argument --output-dir: {tmp_path / 'afile' / 'sub'}: {tmp_path / 'afile'} exists and is not a directory" \
        in one_error_line(capsys)


def test_a_fifo_given_as_data_or_samples_says_so(tmp_path, capsys):
    os.mkfifo(tmp_path / "data.jsonl")
    with within(60):
        assert run_cli("run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--dataset-path",
                       tmp_path / "data.jsonl", "--output-path", tmp_path / "out", "--quiet") == 2
    assert one_error_line(capsys).endswith(f"{tmp_path / 'data.jsonl'}: not a regular file")
    (tmp_path / "run").mkdir()
    os.mkfifo(tmp_path / "run" / "samples.jsonl")
    with within(30):
        assert run_cli("report", tmp_path / "run") == 2
    assert f"{tmp_path / 'run' / 'samples.jsonl'}: not a regular file" in one_error_line(capsys)


def test_a_run_naming_its_task_by_a_path_is_refused_and_no_task_is_named_so(tmp_path, demo_run, capsys):
    """An outside attack: with results.json's and every judgment's `task` set to /elsewhere/x.yaml, `score` loaded and
    scored with that file. A run names its task; and a task YAML whose name is no such name (`my.task`: run took it,
    then score and leaderboard refused its run) is refused when loaded."""
    import shutil

    evil = tmp_path / "evil"
    evil.mkdir()
    shutil.copy(TASKS / "sciarena_eval.yaml", evil / "x.yaml")
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    results = json.loads((run / "results.json").read_text())
    results["config"]["task"] = str(evil / "x.yaml")
    (run / "results.json").write_text(json.dumps(results))
    rows = [json.loads(line) for line in (run / "samples.jsonl").read_text().splitlines()]
    (run / "samples.jsonl").write_text("".join(json.dumps({**r, "task": str(evil / "x.yaml")}) + "\n" for r in rows))
    assert main(["score", str(run)]) == 2
    err = capsys.readouterr().err
    assert "is not a task name" in err and err.count("\n") == 1
    dotted = tmp_path / "my.task.yaml"
    dotted.write_text((TASKS / "sciarena_eval.yaml").read_text().replace("name: sciarena_eval", "name: my.task")
                      .replace("path: demo/", f"path: {TASKS}/demo/"))
    assert main(["run", "--tasks", str(dotted), "--judge", "builtin/longer", "--demo", "--output-path",
                 str(tmp_path / "dot")]) == 2
    err = capsys.readouterr().err
    assert "field 'name'" in err and "a task name is ASCII letters" in err and not (tmp_path / "dot").exists()


def test_a_run_of_the_other_kind_is_named_with_the_commands_that_read_it(tmp_path, demo_run, capsys):
    """A walkthrough: `score`, `report`, `compare` and `export` of a rubric run said "field 'config.fingerprint': Extra
    inputs are not permitted (14 more)", `rubric compare` of a pairwise run "field 'diagnostics': ..."; and
    `run --tasks rubric_demo` "unknown task" although `judgebench tasks` lists it."""
    rubric = tmp_path / "rubric"
    assert main(["rubric", "run", "--task", "rubric_demo", "--judge", "builtin/full-credit", "--demo", "--quiet",
                 "--output-path", str(rubric)]) in (0, 1)
    capsys.readouterr()
    for argv in (["score", str(rubric)], ["report", str(rubric)], ["compare", str(demo_run), str(rubric)],
                 ["export", str(rubric), "--output", str(tmp_path / "e")]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "the results of a rubric run; read it with `judgebench rubric score|report|compare|submit`" in err, argv
        assert err.count("\n") == 1
    assert main(["rubric", "compare", str(rubric), str(demo_run)]) == 2
    assert "the results of a pairwise run; read it with `judgebench score|" in capsys.readouterr().err
    assert main(["run", "--tasks", "rubric_demo", "--judge", "builtin/longer", "--demo", "--output-path",
                 str(tmp_path / "r")]) == 2
    assert "a rubric task (kind: rubric); run it with `judgebench rubric run --task rubric_demo`" in capsys.readouterr().err
    assert main(["rubric", "run", "--task", "sciarena_eval", "--judge", "builtin/full-credit", "--demo",
                 "--output-path", str(tmp_path / "s")]) == 2  # and the reverse (an attack: "unknown rubric task")
    assert "sciarena_eval is a pairwise task; run it with `judgebench run --tasks sciarena_eval`" in capsys.readouterr().err
    dotted = tmp_path / "my.task.yaml"  # a rubric task's name is held to the same rule as a pairwise task's
    dotted.write_text((TASKS / "rubric" / "rubric_demo.yaml").read_text().replace("name: rubric_demo", "name: my.task"))
    assert main(["rubric", "run", "--task", str(dotted), "--judge", "builtin/full-credit", "--demo",
                 "--output-path", str(tmp_path / "d")]) == 2
    assert "a task name is ASCII letters" in capsys.readouterr().err


@pytest.mark.parametrize("kind", [[], {}, 3])
def test_a_kind_that_is_no_name_is_a_field_error_not_a_traceback(tmp_path, demo_run, capsys, kind):
    """An attack on the other-kind pointer: a `config.kind` list or object raised TypeError in every reader."""
    from test_submit import edit_results

    run = copy_run(demo_run, tmp_path / "run")
    edit_results(run, lambda data: data["config"].update(kind=kind), rehash=False)
    assert main(["score", str(run)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"judgebench: error: {run / 'results.json'}: field 'config.kind'") and err.count("\n") == 1
