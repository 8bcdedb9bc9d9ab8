"""A new user's pass over the README and docs/: the commands they show match the command line, unknown
flags are answered by the command they were given to, every relative link resolves, the layers page
(docs/design/layers.md) names every package, and the fixes found on that pass stay fixed."""

from __future__ import annotations

import argparse
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from judgebench.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# The manual and the design pages: what they name must exist today. lab/ is the notebook, kept as written
# (its rounds name the modules of their time); its links must still resolve.
CURRENT = [ROOT / "README.md", *sorted((ROOT / "docs" / "guide").rglob("*.md")),
           *sorted((ROOT / "docs" / "design").rglob("*.md"))]
LAYERS_PAGE = ROOT / "docs" / "design" / "layers.md"
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
                    found.append((str(path.relative_to(ROOT)), command, rest))
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
    # before the fix: docs/runner.md (its sharding section, now docs/guide/scale.md) showed
    # `judgebench leaderboard runs/all --output-path lb/`
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


def unnamed_on(page: str, package: Path) -> list[str]:
    """Packages (any depth, named by their path: `human/annotate/`) and top-level modules (`api.py`) not on the page."""
    missing = []
    for path in sorted(package.rglob("__init__.py")):
        folder = path.parent.relative_to(package).as_posix()
        if folder != "." and not re.search(rf"(?<![\w/]){re.escape(folder)}/", page):
            missing.append(folder + "/")
    for path in sorted(package.glob("*.py")):  # the modules beside the packages
        if not path.name.startswith("__") and not re.search(rf"(?<![\w/]){re.escape(path.name)}", page):
            missing.append(path.name)
    return missing


def test_layers_page_names_every_package_and_module():
    # was: the README's "## Architecture" section had to name every top-level module and package; that map
    # moved to docs/design/layers.md, which must name every package at any depth and every top-level module
    assert unnamed_on(LAYERS_PAGE.read_text(encoding="utf-8"), ROOT / "src" / "judgebench") == []


def test_the_layers_check_finds_an_unnamed_package(tmp_path):
    for folder in ("core", "human", "human/annotate", "human/arena"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "api.py").write_text("")
    page = "`core/`, `human/` and `human/arena/`; the human annotate package, and no api module"
    assert unnamed_on(page, tmp_path) == ["human/annotate/", "api.py"]
    assert unnamed_on(page + " `human/annotate/` `api.py`", tmp_path) == []


def test_the_readme_has_no_merge_leftovers():
    for path in CURRENT:  # the README and every guide and design page (lab/ repeats its round headings)
        text = path.read_text(encoding="utf-8")
        paragraphs = [p.strip() for p in text.split("\n\n") if p.strip() and not p.lstrip().startswith("```")]
        assert len(paragraphs) == len(set(paragraphs)), path
        for heading in re.findall(r"^## .+$", text, flags=re.M):
            assert text.count(heading + "\n") == 1, (path, heading)
    # the README's Architecture section moved to the layers page
    assert LAYERS_PAGE.read_text(encoding="utf-8").count("`judging/pipeline.py` orders the steps") == 1
    # before the fix the rubric section's last sentences sat at the end of "Human votes and the human ceiling";
    # that paragraph moved from the README's "Rubric judges" section to the rubric guide's "In brief"
    rubric_page = (ROOT / "docs" / "guide" / "rubric.md").read_text(encoding="utf-8")
    rubric = rubric_page.split("## In brief", 1)[1].split("\n## ", 1)[0]
    assert rubric_page.count("`builtin/length-proportional`; a YAML-only path") == 1
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


@pytest.mark.slow
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
    # before the fix docs/rubric.md (now docs/guide/rubric.md) used Path(...) without importing it
    # (NameError on copy-paste)
    for path in DOCS:
        for block in python_blocks(path):
            if "Path(" in block:
                assert "from pathlib import Path" in block, path.name


LINK = re.compile(r"!?\[[^\]]*\]\(([^()\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    return {slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, flags=re.MULTILINE)}


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        resolved = (path.parent / file).resolve() if file else path
        if not resolved.exists():
            broken.append(f"{path.relative_to(root)}: {target} (no such file)")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{path.relative_to(root)}: {target} (no such heading)")
    return broken


def test_every_relative_link_resolves():
    # the README and every page under docs/, lab/ included: a file that moved leaves no dangling link
    assert len(DOCS) > 20
    links = sum(len(LINK.findall(p.read_text(encoding="utf-8"))) for p in DOCS)
    assert links > 100
    broken = [line for path in DOCS for line in broken_links(path)]
    assert broken == []


def test_the_link_check_finds_a_broken_link(tmp_path):
    (tmp_path / "b.md").write_text("# Title: with `code`\n\n## Self-preference (`self_preference`)\n")
    page = tmp_path / "a.md"
    page.write_text("[ok](b.md) [ok](b.md#title-with-code) [ok](b.md#self-preference-self_preference) "
                    "[web](https://example.org/x) ![img](b.md)\n[gone](c.md) [no heading](b.md#nothing)\n"
                    "```\n[in code](d.md)\n```\n")
    assert broken_links(page, tmp_path) == ["a.md: c.md (no such file)", "a.md: b.md#nothing (no such heading)"]


def test_the_current_pages_name_only_what_exists():
    # the manual and design pages name source paths and `judgebench.x.y` names; before the split they named
    # `judgebench.runner`, `judgebench.rubric.run` (in an example's import), src/judgebench/catalogue.py, ...
    missing = []
    for path in CURRENT:
        text = path.read_text(encoding="utf-8")
        for source in re.findall(r"src/judgebench/[\w/]*\w(?:\.py)?/?", text):
            if not (ROOT / source).exists():
                missing.append(f"{path.relative_to(ROOT)}: {source}")
        names = re.findall(r"(?<![\w.])(judgebench(?:\.[A-Za-z_]\w*)+)", text)
        for module, imported in re.findall(r"from (judgebench[\w.]*) import ([\w, ]+)", text):
            names += [f"{module}.{name.strip()}" for name in imported.split(",") if name.strip()]
        for name in sorted(set(names)):
            if not resolves(name):
                missing.append(f"{path.relative_to(ROOT)}: {name}")
    assert missing == []


def resolves(dotted: str) -> bool:
    """`judgebench.a.b.c` is a module, or an attribute of the longest module prefix."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


OUTSIDE_FILES = {"litellm/types/utils.py", "utils.py"}  # other packages' files the source names
EXAMPLE_FILES = {"kinds/multiturn.py", "kinds/multiturn/kind.py"}  # task-kinds.md: where a new kind would go


def stale_file_names(texts: dict[str, str], files: list[Path]) -> list[str]:
    """Each `name.py` (or `a/b/name.py`) a text mentions that no file of the repository is: by its name, or by
    the end of its path when it has one (`judging/repeats.py`)."""
    paths = {path.as_posix() for path in files}
    names = {path.name for path in files}
    stale = []
    for where, text in texts.items():
        for ref in sorted(set(re.findall(r"(?<![\w./-])((?:[\w.-]+/)*[\w-]+\.py)\b", text))):
            found = any(p.endswith("/" + ref) or p == ref for p in paths) if "/" in ref else ref in names
            if not found and ref not in OUTSIDE_FILES | EXAMPLE_FILES:
                stale.append(f"{where}: {ref}")
    return stale


def test_the_source_and_current_pages_name_only_files_that_exist():
    # a newcomer's audit found eleven comments naming modules long renamed or merged (stability.py,
    # panel_rules.py, value_metrics.py, verify_builtin.py, judgebench/rubric/cli.py, tests/test_ppi.py, ...)
    files = [p.relative_to(ROOT) for p in ROOT.rglob("*.py") if ".git" not in p.parts and ".venv" not in p.parts]
    texts = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
             for p in [*(ROOT / "src").rglob("*.py"), *(ROOT / "scripts").glob("*.py"), *CURRENT]}
    assert len(texts) > 150
    assert stale_file_names(texts, files) == []
    assert stale_file_names({"x": "see stability.py and judging/gone.py, not judging/repeats.py"}, files) == [
        "x: judging/gone.py", "x: stability.py"]


def test_resolves_tells_a_stale_name():
    assert resolves("judgebench.calls.RunnerOptions") and resolves("judgebench.kinds.rubric.run.run_rubric")
    assert not resolves("judgebench.runner") and not resolves("judgebench.rubric.run.run_rubric")
