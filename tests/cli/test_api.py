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


def test_warnings_reach_a_python_caller_without_on_warning(tmp_path):
    """evaluate, build_leaderboard and build_panel told their warnings only to an `on_warning` given: a notebook
    that passed none heard nothing (a run replacing another judge's, a run skipped by the leaderboard). Without
    one they are JudgebenchWarnings; with one, that callable alone hears them."""
    run, other = tmp_path / "run", tmp_path / "other"
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=run, demo=True, n_resamples=0)
    judgebench.evaluate("sciarena_eval", "builtin/random", output_path=other, demo=True, n_resamples=0)
    replacing = f"--output-path {run} holds a run of judge builtin/longer on task sciarena_eval: this run replaces it"
    with pytest.warns(judgebench.JudgebenchWarning) as caught:
        judgebench.evaluate("sciarena_eval", "builtin/shorter", output_path=run, demo=True, n_resamples=0)
    assert [str(w.message) for w in caught] == [replacing]
    assert caught[0].filename == __file__  # the caller's line, not judgebench's (filters by module see the caller)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "results.json").write_text("{", encoding="utf-8")
    with pytest.warns(judgebench.JudgebenchWarning, match="broken"):
        judgebench.build_leaderboard([run, broken], tmp_path / "lb")
    third = tmp_path / "third"
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=third, demo=True, n_resamples=0)
    with pytest.warns(judgebench.JudgebenchWarning, match=f"{third} holds a run of judge builtin/longer"):
        judgebench.build_panel([run, other], third, n_resamples=0)
    told: list[str] = []
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a Python warning here would raise
        judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=run, demo=True, n_resamples=0,
                            on_warning=told.append)
        judgebench.build_leaderboard([run, broken], tmp_path / "lb", on_warning=told.append)
    assert told[0] == replacing.replace("builtin/longer", "builtin/shorter") and "broken" in told[1]


def test_api_names_survive_submodule_imports():
    import judgebench.publish.leaderboard  # noqa: F401
    import judgebench.scoring.compare  # noqa: F401 - a submodule import sets a package attribute of its name

    assert callable(judgebench.compare_runs) and callable(judgebench.build_leaderboard)


def test_api_raises_the_cli_error(tmp_path):
    with pytest.raises(judgebench.JudgebenchError, match="unknown task 'sciarena'; did you mean 'sciarena_eval'"):
        judgebench.evaluate("sciarena", "builtin/longer", output_path=tmp_path / "x", demo=True)


@pytest.mark.parametrize(
    ("option", "says"),
    [({"limit": 0}, "limit (--limit): must be >= 1"), ({"n_resamples": -1}, "n_resamples (--bootstrap): must be >= 0"),
     ({"min_coverage": 1.5}, "min_coverage (--min-coverage): must be a fraction"),
     ({"seed": -1}, "seed (--seed): must be >= 0, got -1"),  # (a walkthrough: every call was made, then pydantic refused it)
     ({"dataset_path": "bad.jsonl"}, "demo and dataset_path (--demo, --dataset-path) exclude each other")],  # (the demo
    # ran, unsaid; a Python caller is told the keyword it passed, the command line's user the flag)
)
def test_api_checks_the_ranges_the_cli_checks(tmp_path, option, says):
    with pytest.raises(judgebench.JudgebenchError, match=re.escape(says)):
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
        ({"include_paths": "tasks/"}, "include_paths must be a list, got str 'tasks/' (write ['tasks/'])"),
    ],
)
def test_api_refuses_a_wrong_type_in_one_line_naming_the_keyword(tmp_path, option, says):
    """The command line's parser types every option; a Python caller's wrong type met a raw TypeError deep
    inside, or was taken (a Literal outside its values ran as the default)."""
    with pytest.raises(judgebench.JudgebenchError, match=re.escape(says)):
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


class PathLike:
    """A path-like object that is no Path (pytest's py.path, a project's own)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __fspath__(self) -> str:
        return str(self.path)


class BytesPathLike:
    """A path-like object whose path is bytes: no text path to take."""

    def __fspath__(self) -> bytes:
        return b"run"


def test_api_takes_what_stands_for_a_value_without_loss(tmp_path):
    """numpy's numbers (a notebook's np.int64), path-like objects, tuples and mappings were taken before the type
    checks came, and still are, stored as the hinted type (an outside attack found them refused)."""
    import types

    import numpy as np

    from judgebench.judging.pipeline import RunRequest

    run = judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=PathLike(tmp_path / "np"), demo=True,
                              limit=np.int64(3), seed=np.int32(2), n_resamples=np.int64(50), repeats=np.int64(1),
                              min_coverage=np.float32(0.5), swap=np.bool_(True), include_paths=(PathLike(tmp_path),))
    config = run.result.config
    assert (config.limit, config.seed, config.swap, config.n_resamples) == (3, 2, True, 50)
    assert type(config.limit) is int and type(config.seed) is int
    request = RunRequest(task="sciarena_eval", judge="builtin/longer", output_path="out/d1", demo=True, include_paths=("x",))
    assert request.output_path == Path("out/d1") and request.include_paths == [Path("x")]
    assert judgebench.score_run(PathLike(tmp_path / "np"), n_resamples=np.int64(50)).config.n_resamples == 50
    assert judgebench.compare_runs(tmp_path / "np", str(tmp_path / "np"), seed=np.int64(1)).difference == 0
    with pytest.raises(judgebench.JudgebenchError, match="--judge-args is not used by built-in judge builtin/longer"):  # a mapping is a dict
        judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=tmp_path / "mp", demo=True,
                            judge_args=types.MappingProxyType({"temperature": 0}))


@pytest.mark.parametrize(
    ("call", "says"),
    [
        (lambda d: judgebench.score_run(d, n_resamples=True), "score_run: n_resamples must be int or None, got bool True"),
        (lambda d: judgebench.score_run(d, n_resamples="1000"), "score_run: n_resamples must be int or None, got str"),
        (lambda d: judgebench.build_panel([d, d], d / "p", n_resamples=1000.0), "build_panel: n_resamples must be int or None"),
        (lambda d: judgebench.compare_runs(d, d, seed="x"), "compare_runs: seed must be int, got str 'x'"),
        (lambda d: judgebench.read_run(BytesPathLike()), "read_run: run_dir must be a path"),  # (a TypeError in Path)
        (lambda d: judgebench.compare_runs(d, d, seed=None), "compare_runs: seed must be int, got NoneType"),
        (lambda d: judgebench.evaluate_judges("sciarena_eval", [("builtin/longer", "x")], output_path=d / "j", demo=True),
         "evaluate_judges: judge_args must be a dict, got str 'x'"),
        (lambda d: judgebench.evaluate_judges("sciarena_eval", [3], output_path=d / "j", demo=True),
         "evaluate_judges: each judge must be an id, an \\(id, judge_args\\) pair, a JudgeConfig or a judgebench.Judge object, got int 3"),
        (lambda d: judgebench.evaluate_judges("sciarena_eval", ["builtin/longer"], output_path=d / "j", demo=True, on_run="x"),
         "evaluate_judges: on_run must be a function or None, got str 'x'"),
        (lambda d: judgebench.api.sweep("sciarena_eval", "openai/x", "temperature", [0, 1], output_path=3, demo=True),
         "sweep: output_path must be a path"),
        (lambda d: judgebench.api.sweep("sciarena_eval", "openai/x", "temperature", [0, 1], output_path=d / "s",
                                        judge_args=[1], demo=True), "sweep: judge_args must be a dict, got list"),
    ],
)
def test_every_api_function_refuses_a_wrong_type_before_any_work(tmp_path, call, says):
    """score_run took n_resamples=True as 1 resample and overwrote results.json; the others met a TypeError deep inside
    (evaluate_judges' on_run only after the first judge's run was written)."""
    run = tmp_path / "run"
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=run, demo=True, n_resamples=0)
    before = (run / "results.json").read_bytes()
    with pytest.raises(judgebench.JudgebenchError, match=says):
        call(run)
    assert (run / "results.json").read_bytes() == before
    assert not (run / "j").exists() and not (run / "s").exists() and not (run / "p").exists()


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ({"x"}, "--judge-args stop: a set is no JSON value"),
        (b"abc", "--judge-args stop: a bytes is no JSON value"),
        (float("nan"), "--judge-args stop: nan is not a finite number"),
        ({1: "a"}, "--judge-args stop: object keys must be text, got a key of type int"),
        (10**30, "--judge-args stop: an integer past 64 bits"),  # (10**5000 was a ValueError traceback from int-to-text)
    ],
)
def test_judge_args_must_be_json_values_before_any_call(tmp_path, value, says):
    """results.json stores the arguments as JSON and the configuration hash is taken over them: a set, bytes or NaN
    was hashed as Python printed it and stored otherwise, and the honest run was refused at submit."""
    with pytest.raises(judgebench.JudgebenchError, match=says):
        judgebench.evaluate("sciarena_eval", "openai/gpt-x", output_path=tmp_path / "x", demo=True,
                            judge_args={"api_base": "http://127.0.0.1:9/v1", "stop": value})
    assert not (tmp_path / "x").exists()


def test_numpy_and_tuple_judge_args_are_stored_as_the_json_they_are_sent_as():
    import numpy as np

    from judgebench.judges.llm import LiteLLMJudge

    judge = LiteLLMJudge("openai/gpt-x", {"api_base": "http://127.0.0.1:9/v1", "max_tokens": np.int64(16),
                                          "temperature": np.float32(0.5), "stop": ("a", "b"), "logprobs": np.bool_(True)})
    args = judge.public_args()
    assert args["stop"] == ["a", "b"] and args["temperature"] == 0.5 and args["logprobs"] is True
    assert type(args["max_tokens"]) is int and type(args["temperature"]) is float


def test_two_versions_of_one_local_file_are_never_ranked_as_one_dataset(tmp_path):
    """Local data has no revision: every run on `x.jsonl` was labelled `x.jsonl:train@unpinned`, so a run on the
    file before an edit and one after were ranked in one table. The label carries the examples' fingerprint now."""
    from helpers import sci_row, write_jsonl

    data = tmp_path / "x.jsonl"
    write_jsonl(data, [sci_row(i, "A" if i % 2 else "B") for i in range(1, 7)])
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=tmp_path / "before", dataset_path=str(data),
                        n_resamples=0)
    judgebench.evaluate("sciarena_eval", "builtin/shorter", output_path=tmp_path / "same", dataset_path=str(data),
                        n_resamples=0)
    write_jsonl(data, [sci_row(i, "B" if i % 2 else "A") for i in range(1, 7)])  # the same file, relabelled
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=tmp_path / "after", dataset_path=str(data),
                        n_resamples=0)
    judgebench.build_leaderboard([tmp_path / "before", tmp_path / "same", tmp_path / "after"], tmp_path / "lb")
    rows = json.loads((tmp_path / "lb" / "sciarena_eval.json").read_text())["rows"]
    runs = [(row["judge"], row["dataset"]) for row in rows if row["judge"].startswith("builtin/")]  # (the runs' rows)
    assert len(runs) == 3 and len({dataset for _, dataset in runs}) == 2, runs
    assert all(":train@sha256:" in dataset for _, dataset in runs), runs


def test_build_panel_onto_a_file_is_one_line(tmp_path):
    """A walkthrough: a file as the panel's output_path raised NotADirectoryError from pathlib."""
    (tmp_path / "afile").write_text("x")
    with pytest.raises(judgebench.JudgebenchError, match=r"^--output-path .*afile: exists and is not a directory$"):
        judgebench.build_panel([tmp_path / "a", tmp_path / "b"], tmp_path / "afile")


def test_runner_options_alone_turn_no_progress_bar_on(tmp_path, capfd):
    """A walkthrough: passing RunnerOptions(concurrency=2) drew a progress bar (its default was the command line's)."""
    judge = judgebench.function_judge("mylab/always-b", lambda request: "[[B]]")  # (a built-in judge draws none)
    judgebench.evaluate("sciarena_eval", judge, output_path=tmp_path / "x", demo=True, limit=4,
                        runner=judgebench.calls.RunnerOptions(concurrency=2, use_cache=False))
    assert capfd.readouterr().err == ""
