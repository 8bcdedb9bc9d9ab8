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
