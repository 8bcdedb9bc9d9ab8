"""The Python API: the README's example runs as written, and the API returns what the files hold."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import judgebench

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_python_example() -> str:
    section = README.read_text().split("## Python API", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.mark.slow
def test_readme_example_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    exec(compile(readme_python_example(), "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    accuracy = results["metrics"]["overall"]["accuracy"]
    assert printed[0] == f"accuracy {accuracy['value']:.3f} [{accuracy['ci_low']:.3f}, {accuracy['ci_high']:.3f}]"
    assert printed[1] == "0.0"  # a run compared with itself
    assert (tmp_path / "lb" / "sciarena_eval.md").is_file()
    assert json.loads((tmp_path / "panel" / "results.json").read_text())["config"]["kind"] == "panel"


@pytest.mark.slow
def test_api_matches_the_run_directory(tmp_path):
    run = judgebench.evaluate("ideation_arena_eval", "builtin/shorter", output_path=tmp_path / "run", demo=True)
    result, records = judgebench.read_run(tmp_path / "run")
    assert result == run.result
    assert len(records) == result.counts.calls == 36 * 5 * 2
    assert judgebench.score_run(tmp_path / "run").metrics == result.metrics


def test_api_names_survive_submodule_imports():
    import judgebench.publish.leaderboard  # noqa: F401
    import judgebench.scoring.compare  # noqa: F401 - a submodule import sets a package attribute of its name

    assert callable(judgebench.compare_runs) and callable(judgebench.build_leaderboard)


def test_api_raises_the_cli_error(tmp_path):
    with pytest.raises(judgebench.JudgebenchError, match="unknown task 'sciarena'; did you mean 'sciarena_eval'"):
        judgebench.evaluate("sciarena", "builtin/longer", output_path=tmp_path / "x", demo=True)


@pytest.mark.parametrize(
    ("option", "says"),
    [({"limit": 0}, "--limit: must be >= 1"), ({"n_resamples": -1}, "--bootstrap: must be >= 0"),
     ({"min_coverage": 1.5}, "--min-coverage: must be a fraction")],
)
def test_api_checks_the_ranges_the_cli_checks(tmp_path, option, says):
    with pytest.raises(judgebench.JudgebenchError, match=says):
        judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=tmp_path / "x", demo=True, **option)
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    ("option", "says"),
    [
        ({"limit": "3"}, "RunRequest: limit must be int or float or None, got str '3'"),
        ({"seed": "x"}, "seed must be int, got str 'x'"),
        ({"repeats": 2.0}, "repeats must be int, got float 2.0"),
        ({"swap": "no"}, "swap must be bool, got str 'no'"),
        ({"runner": {"concurrency": 4}}, "runner must be RunnerOptions, got dict"),
        ({"both_bad": "bogus"}, "both_bad must be 'tie' or 'exclude' or None, got str 'bogus'"),
        ({"dimension_mode": "bogus"}, "dimension_mode must be 'separate' or 'joint' or None"),  # it ran as the default
        ({"judge_args": [("temperature", 0)]}, "judge_args must be a dict, got list"),
        ({"include_paths": "tasks/"}, r"include_paths must be a list, got str 'tasks/' \(write \['tasks/'\]\)"),
    ],
)
def test_api_refuses_a_wrong_type_in_one_line_naming_the_keyword(tmp_path, option, says):
    """The command line's parser types every option; a Python caller's wrong type met a raw TypeError deep
    inside, or was taken (a Literal outside its values ran as the default)."""
    with pytest.raises(judgebench.JudgebenchError, match=says):
        judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=tmp_path / "x", demo=True, **option)
    assert not (tmp_path / "x").exists()


def test_api_refuses_a_bare_string_for_a_list_and_an_unknown_panel_rule(tmp_path):
    with pytest.raises(judgebench.JudgebenchError, match=r"judges must be a list, got str 'builtin/longer'"):
        judgebench.evaluate_judges("sciarena_eval", "builtin/longer", output_path=tmp_path / "m", demo=True)
    with pytest.raises(judgebench.JudgebenchError, match="panel must be one of 'majority', 'mean', 'unanimous-else-tie'"):
        judgebench.evaluate_judges("sciarena_eval", ["builtin/longer", "builtin/shorter"], output_path=tmp_path / "m",
                                   demo=True, panel="bogus")
    with pytest.raises(judgebench.JudgebenchError, match="build_leaderboard: results must be a list"):
        judgebench.build_leaderboard(str(tmp_path / "run"), tmp_path / "lb")
    with pytest.raises(judgebench.JudgebenchError, match="build_panel: run_dirs must be a list"):
        judgebench.build_panel("abc", tmp_path / "p")
    assert not (tmp_path / "m").exists() and not (tmp_path / "lb").exists()


def test_api_leaderboard_onto_a_file_is_refused_before_reading_runs(tmp_path):
    run = tmp_path / "run"
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=run, demo=True, n_resamples=0)
    target = tmp_path / "board.md"
    target.write_text("mine")
    with pytest.raises(judgebench.JudgebenchError, match=r"build_leaderboard: output_dir .*board.md: exists and is not a directory"):
        judgebench.build_leaderboard([run], target)
    assert target.read_text() == "mine"
    assert judgebench.build_leaderboard([Path(run)], tmp_path / "lb")  # a Path or a str, in a list
