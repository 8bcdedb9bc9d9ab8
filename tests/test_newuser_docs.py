"""A new user's pass over the README and docs/: the commands they show match the command line, unknown
flags are answered by the command they were given to, the Architecture section names every module, and the
fixes found on that pass stay fixed."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

from judgebench.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LM_EVAL_SPELLINGS = {"--output_path", "--include_path", "--model_args"}  # accepted aliases (flags.py)


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("judgebench: error:"), err
    return err[0]


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    actions = parser._subparsers._group_actions if parser._subparsers else []
    return {name: p for a in actions for name, p in getattr(a, "choices", {}).items()}


def all_parsers() -> dict[str, argparse.ArgumentParser]:
    """'run' -> its parser, 'rubric run' -> its parser, ..."""
    found = {}
    for name, parser in subparsers(build_parser()).items():
        found[name] = parser
        found.update({f"{name} {inner}": p for inner, p in subparsers(parser).items()})
    return found


def documented_commands() -> list[tuple[str, str, str]]:
    """(file, command, the text after it) for every `judgebench CMD ...` in the README and docs/, with
    shell continuation lines joined; the text stops at the next command, a comment or a closing backtick."""
    parsers = all_parsers()
    found = []
    for path in DOCS:
        text = re.sub(r"\\\n\s*", " ", path.read_text(encoding="utf-8"))
        for line in text.splitlines():
            for chunk in line.split("judgebench ")[1:]:
                words = chunk.split()
                command = " ".join(words[:2]) if " ".join(words[:2]) in parsers else (words[:1] or [""])[0]
                if command in parsers:
                    rest = re.split(r"`|#|;|\|", chunk[len(command):])[0]
                    found.append((path.name, command, rest))
    return found


def test_the_docs_show_many_commands():
    commands = {command for _, command, _ in documented_commands()}
    # every subcommand (and the rubric group's main ones) appears somewhere in the docs
    assert {"run", "score", "tasks", "leaderboard", "report", "submit", "compare", "export", "panel", "arena",
            "merge", "pairs", "annotate", "freeze", "rubric run", "rubric report", "rubric compare"} <= commands


def test_every_flag_the_docs_show_exists_on_its_command():
    parsers = all_parsers()
    wrong = []
    for file, command, rest in documented_commands():
        known = {o for a in parsers[command]._actions for o in a.option_strings}
        for flag in re.findall(r"(?<![\w-])--[a-z][a-z0-9_-]*", rest):
            if flag not in known and flag not in LM_EVAL_SPELLINGS:
                wrong.append(f"{file}: judgebench {command} {flag}")
    # before the fix: docs/runner.md showed `judgebench leaderboard runs/all --output-path lb/`
    assert wrong == []


def test_an_unknown_flag_is_answered_by_its_command_with_its_own_flag(tmp_path, capsys):
    # `--output-path` is a flag of `run`; before the fix the top-level parser answered
    # "judgebench: unrecognized arguments: --output-path lb/ (did you mean --output-path?)"
    assert main(["leaderboard", str(tmp_path), "--output-path", str(tmp_path / "lb")]) == 2
    line = one_error_line(capsys)
    assert "judgebench leaderboard: unrecognized arguments: --output-path" in line
    assert line.endswith("(did you mean --output-dir?)")


def test_a_nested_command_answers_too(tmp_path, capsys):
    assert main(["rubric", "run", "--task", "rubric_demo", "--judge", "builtin/full-credit",
                 "--output-path", str(tmp_path / "o"), "--output-dir", str(tmp_path)]) == 2
    line = one_error_line(capsys)
    assert "judgebench rubric run: unrecognized arguments: --output-dir" in line
    assert line.endswith("(did you mean --output-path?)")


def test_no_suggestion_is_the_flag_itself_or_help(tmp_path, capsys):
    assert main(["leaderboard", str(tmp_path), "--model", "x"]) == 2
    line = one_error_line(capsys)
    assert "did you mean" not in line  # `--judge` is a flag of run, `--help` is never meant


def test_help_states_each_default_once():
    for name, parser in all_parsers().items():
        formatter = parser._get_formatter()
        for action in parser._actions:
            shown = formatter._get_help_string(action) or ""
            assert not ("default" in (action.help or "") and shown != action.help), (name, action.option_strings)


def test_help_still_adds_defaults_not_stated(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "calls in flight (default: 16)" in out
    assert "split to evaluate (default: the task's)" in out and "the task's) (default: None)" not in out


def test_architecture_names_every_module_and_package():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Architecture", 1)[1].split("\n## ", 1)[0]
    globs = [g[:-1] for g in re.findall(r"\b([a-z_]+\*)\.py", section)]  # verify*.py, panel*.py
    missing = []
    for path in sorted((ROOT / "src" / "judgebench").iterdir()):
        name = path.stem if path.suffix == ".py" else path.name
        if name.startswith("__") or not (path.suffix == ".py" or (path / "__init__.py").is_file()):
            continue
        named = re.search(rf"(?<![\w/]){name}(\.py|/|\.[a-z_]+)", section)
        if not named and not any(name.startswith(g) for g in globs):
            missing.append(name)
    assert missing == []


def test_the_readme_has_no_merge_leftovers():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    paragraphs = [p.strip() for p in readme.split("\n\n") if p.strip() and not p.lstrip().startswith("```")]
    assert len(paragraphs) == len(set(paragraphs))
    assert readme.count("`pipeline.py` orders the steps") <= 1
    for heading in re.findall(r"^## .+$", readme, flags=re.M):
        assert readme.count(heading + "\n") == 1, heading
    # before the fix the rubric section's last sentences sat at the end of "Human votes and the human ceiling"
    rubric = readme.split("## Rubric judges", 1)[1].split("\n## ", 1)[0]
    assert readme.count("`builtin/length-proportional`; a YAML-only path") == 1
    assert "`builtin/length-proportional`; a YAML-only path" in rubric


def test_a_missing_demo_votes_file_points_at_the_installed_copy(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # a new user's empty folder: tasks/demo/... exists only in a checkout
    assert main(["arena", "tasks/demo/arena_votes_demo.jsonl", "--output-dir", "arena"]) == 2
    line = one_error_line(capsys)
    installed = Path(line.split("installed at ", 1)[1].rstrip(")"))
    assert line.startswith("judgebench: error: votes file tasks/demo/arena_votes_demo.jsonl: no such file")
    assert installed.is_file() and installed.name == "arena_votes_demo.jsonl"
    assert main(["arena", "nothing-here.jsonl", "--output-dir", "arena"]) == 2
    assert one_error_line(capsys).endswith("votes file nothing-here.jsonl: no such file")


def test_audit_human_script_help_runs_nothing(tmp_path):
    # before the fix `scripts/audit_human.py --help` made a folder named "--help" and ended in a traceback
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "audit_human.py"), "--help"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "work_dir" in done.stdout and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_every_flag_has_help_text():
    # before the fix 26 flags (most of `rubric run`, `pairs --id-column`, `annotate --host`, `freeze --seed`)
    # had none, so their defaults were not shown either
    bare = [f"{name} {a.option_strings[0]}" for name, parser in all_parsers().items()
            for a in parser._actions if a.option_strings and not a.help]
    assert bare == []


def test_runner_options_are_reachable_as_the_readme_writes_them():
    # README: `runner=judgebench.calls.RunnerOptions(concurrency=32, ...)` after `import judgebench`
    code = ("import judgebench; o = judgebench.calls.RunnerOptions(concurrency=32); print(o.concurrency); "
            "import sys; print('judgebench.kinds.rubric' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["32", "False"]
    with pytest.raises(AttributeError):
        import judgebench

        judgebench.no_such_thing  # noqa: B018


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


def test_python_examples_import_what_they_use():
    # before the fix docs/rubric.md used Path(...) without importing it (NameError on copy-paste)
    for path in DOCS:
        for block in python_blocks(path):
            if "Path(" in block:
                assert "from pathlib import Path" in block, path.name
