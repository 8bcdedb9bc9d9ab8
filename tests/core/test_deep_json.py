"""JSON nested thousands deep (an outside attack): Arrow's JSON reader, behind `datasets`' JSON loader and
`arena`'s columnar read, overflowed its thread's stack, and `run` and `arena` died by SIGSEGV (exit 139); Python's
own reader raised RecursionError where only ValueError was caught (a `leaderboard` traceback). Each is now one
line, exit 2, naming the file and line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import sci_row, write_jsonl

from judgebench.core.files import MAX_JSON_NESTING, first_too_deep, too_deep
from judgebench.human.arena.reading import _line_facts

DEEP = 20_000  # Arrow's reader crashed on 20,000 levels here (it read 5,000)


def _deep_line(depth: int = DEEP) -> str:
    return '{"pair_id": "p", "x": ' + "[" * depth + "]" * depth + "}"


@pytest.mark.parametrize(("data", "expected"), [
    (b'{"a": [1, {"b": [2]}]}\n' * 3, (None, 0)),
    (b'{"a":' + b"[" * 2000 + b"]" * 2000 + b"}\n", (1004, 0)),  # the '[' that holds 1,001 open
    (b"\n" + b"[" * 600, (None, 600)),  # a line left open at the end
    (b'"' + b"[" * 5 + b'"\n' * 1000, (None, 0)),  # many lines, each shallow: no line is deep
])
def test_too_deep_finds_the_first_bracket_past_the_limit(data: bytes, expected: tuple[int | None, int]) -> None:
    assert too_deep(data) == expected


def test_a_line_continued_across_blocks_is_measured_whole() -> None:
    assert too_deep(b"[" * 600, 600) == (400, 1200)  # 600 open from the block before: the 401st here is too deep
    line = b"x\n" + b"[" * 700 + b"]" * 700 + b"\n" + b"[" * (MAX_JSON_NESTING + 1)
    assert first_too_deep(line, block=64) == len(line) - 1
    assert first_too_deep(line[:-1], block=64) is None


@pytest.mark.parametrize("block", [7, 64, 1 << 22])
def test_line_facts_count_the_feeds_and_list_the_long_lines(block: int) -> None:
    data = b"x" * 1500 + b"\n" + b"y" * 10 + b"\n\n" + b"z" * 1001
    assert _line_facts(data, block) == (3, [(0, 1500), (1513, 2514)])  # the z line: after 1,500 + 1 + 10 + 2 bytes
    assert _line_facts(b"a\nbb\n", block) == (2, [])


def _cli(args: list[str]) -> subprocess.CompletedProcess[str]:
    """In a subprocess: a crash is an exit status, not the end of the test run."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run([sys.executable, "-m", "judgebench", *args], capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.slow
def test_run_and_arena_refuse_a_deep_line_in_one_line(tmp_path: Path) -> None:
    rows = write_jsonl(tmp_path / "data.jsonl", [sci_row(i, vote="A") for i in range(3)])
    with rows.open("a") as handle:
        handle.write(_deep_line() + "\n")
    run = _cli(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--dataset-path", str(rows),
                "--output-path", str(tmp_path / "out")])
    assert (run.returncode, run.stderr.strip()) == (
        2, f"judgebench: error: {rows}:4: JSON nested more than {MAX_JSON_NESTING} levels deep (brackets left open on one line)")
    votes = tmp_path / "votes.jsonl"
    votes.write_text('{"pair_id": "q", "annotator": "u", "choice": "A", "model_a": "m", "model_b": "n"}\n' + _deep_line() + "\n")
    arena = _cli(["arena", str(votes), "--output-dir", str(tmp_path / "arena")])
    assert (arena.returncode, arena.stderr.strip()) == (2, f"judgebench: error: votes file {votes}:2: JSON nested too deeply to read")


def test_a_deep_results_file_is_skipped_by_the_leaderboard(tmp_path: Path, capsys) -> None:
    from judgebench.cli.main import main

    bad = tmp_path / "runs" / "bad"
    bad.mkdir(parents=True)
    (bad / "samples.jsonl").write_text("")
    (bad / "results.json").write_text("[" * DEEP + "]" * DEEP)
    assert main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--quiet",
                 "--output-path", str(tmp_path / "runs" / "good")]) == 0
    assert main(["leaderboard", str(tmp_path / "runs"), "--output-dir", str(tmp_path / "lb")]) == 0
    assert f"skipped {bad / 'results.json'}" in capsys.readouterr().err


def _alias_bomb(levels: int = 9) -> str:
    """Each anchor a list of ten of the one before: 10**levels values once expanded, a few hundred bytes."""
    lines = ["  a: &a [x, x, x, x, x, x, x, x, x, x]"]
    names = "abcdefghijklmnop"
    for before, name in zip(names, names[1:levels]):
        lines.append(f"  {name}: &{name} [" + ", ".join([f"*{before}"] * 10) + "]")
    return "defs:\n" + "\n".join(lines) + f"\njudge: openai/m\njudge_args:\n  api_base: http://127.0.0.1:9/v1\n  zz: *{names[levels - 1]}\n"


def test_yaml_nested_too_deeply_or_expanding_too_far_is_a_yaml_error() -> None:
    """The second attack: a task YAML nested 100,000 deep was a RecursionError traceback (`run`, `tasks`); a judges
    file of nested aliases (10**9 values in 600 bytes) kept `run` at full CPU until killed."""
    import yaml

    from judgebench.core.files import YAML_NODES_MAX, load_yaml

    with pytest.raises(yaml.YAMLError, match="nested too deeply"):
        load_yaml("x: " + "[" * DEEP + "]" * DEEP)
    with pytest.raises(yaml.YAMLError, match=f"more than {YAML_NODES_MAX:,} values once its aliases are expanded"):
        load_yaml(_alias_bomb())
    assert load_yaml(_alias_bomb(5))["judge_args"]["zz"][0][0][0][0] == ["x"] * 10  # 100,000 values: read


@pytest.mark.slow
def test_a_bomb_in_a_judges_file_or_a_deep_task_yaml_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "bomb.yaml").write_text(_alias_bomb())
    bomb = _cli(["run", "--tasks", "sciarena_eval", "--judge", str(tmp_path / "bomb.yaml"), "--demo",
                 "--output-path", str(tmp_path / "out")])
    assert bomb.returncode == 2 and "values once its aliases are expanded" in bomb.stderr, bomb.stderr
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "deep.yaml").write_text("name: deep\nx: " + "[" * DEEP + "]" * DEEP + "\n")
    listed = _cli(["tasks", "--include-path", str(tasks)])
    assert (listed.returncode, listed.stderr.strip()) == (2, f"judgebench: error: {tasks / 'deep.yaml'}: invalid YAML (nested too deeply)")


def test_an_integer_past_64_bits_in_the_data_names_its_line_and_key(tmp_path: Path, capsys) -> None:
    """The second attack: a 50-digit `vote` was `cannot load (ValueError: Value is too big! at position 2605)`."""
    from judgebench.cli.main import main

    rows = [sci_row(i, vote="A") for i in range(4)]
    rows[2]["vote"] = 10**50
    data = write_jsonl(tmp_path / "data.jsonl", rows)
    assert main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--dataset-path", str(data),
                 "--output-path", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.strip() == (f"judgebench: error: {data}:3: 'vote' is an integer of 51 digits, past 64 "
                                               "bits (Arrow's reader takes no larger one)")


def test_a_number_past_a_floats_range_in_the_data_names_its_line_and_key(tmp_path: Path, capsys) -> None:
    """`1e999` is a JSON number no float holds (Python reads it as infinity): it was `cannot load
    (DatasetGenerationError ...)` with no line (a third attack)."""
    from judgebench.cli.main import main

    rows = [sci_row(i, vote="A") for i in range(4)]
    data = write_jsonl(tmp_path / "data.jsonl", rows)
    lines = data.read_text().splitlines()
    lines[1] = lines[1][:-1] + ', "score": 1e999}'
    data.write_text("\n".join(lines) + "\n")
    assert main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--dataset-path", str(data),
                 "--output-path", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.strip() == f"judgebench: error: {data}:2: 'score' is a number too large for a float"


def test_an_unquoted_jinja_expression_as_a_yaml_key_is_one_line(tmp_path) -> None:
    """A prompt file holding `{{ x }}` unquoted is a mapping whose key is a mapping: the duplicate-key check hashed it
    and `run --prompt` printed a TypeError traceback."""
    import pytest
    import yaml

    from judgebench.cli.main import main
    from judgebench.core.files import load_yaml

    for text in ("{{ self.__init__.__globals__ }}", "? [a, b]\n: 1\n"):
        with pytest.raises(yaml.YAMLError, match="a key that is a list or mapping"):
            load_yaml(text)
    prompt = tmp_path / "p.yaml"
    prompt.write_text("{{ self.__init__.__globals__ }}")
    assert main(["run", "--tasks", "sciarena_eval", "--demo", "--judge", "builtin/longer", "--prompt", str(prompt),
                 "--output-path", str(tmp_path / "o")]) == 2
