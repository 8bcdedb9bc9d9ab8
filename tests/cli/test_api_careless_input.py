"""The Python API against a careless notebook user (an outside walkthrough's findings, 2026-12-07): every value
that was taken as something else, or failed deep inside, is now one JudgebenchError naming the keyword."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from openai_server import Behaviour, FakeOpenAIServer

import judgebench
from judgebench.calls import RunnerOptions

DEMO = {"demo": True, "limit": 4}


def test_shared_judge_args_reach_every_judge_given_by_id(tmp_path: Path) -> None:
    """evaluate_judges(judge_args=...) was accepted and thrown away: the key and address given were never used."""
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        done = judgebench.evaluate_judges(
            "sciarena_eval", ["openai/x", ("openai/y", {"temperature": 0.5})], output_path=tmp_path / "jury",
            judge_args={"api_base": server.api_base, "api_key": "sk-shared", "temperature": 0.0},
            runner=RunnerOptions(use_cache=False), **DEMO)
        calls = server.stats().total
    assert calls == 2 * 4 * 2  # both judges called the server: 4 examples, both orders
    args = [run.result.config.judge_args for run in done.runs]
    assert args[0]["temperature"] == 0.0 and args[1]["temperature"] == 0.5  # each judge's own wins
    assert all(a["api_base"] == server.api_base and "api_key" not in a for a in args)


def test_evaluate_judges_refuses_judge_and_one_name_for_several(tmp_path: Path) -> None:
    with pytest.raises(judgebench.JudgebenchError, match="name each judge in its JudgeConfig"):
        judgebench.evaluate_judges("sciarena_eval", ["builtin/longer", "builtin/shorter"], judge_name="mine",
                                   output_path=tmp_path / "o", **DEMO)
    with pytest.raises(judgebench.JudgebenchError, match="not `judge`"):
        judgebench.evaluate_judges("sciarena_eval", ["builtin/longer"], judge="builtin/shorter",
                                   output_path=tmp_path / "o", **DEMO)


@pytest.mark.parametrize("option, says", [
    ({"batch": "false"}, "batch: expected True or False"),  # it sent every call through the batch API
    ({"use_cache": "no"}, "use_cache: expected True or False"),
    ({"progress": "no"}, "progress: expected True or False"),
    ({"refresh_cache": 1}, "refresh_cache: expected True or False"),
    ({"cache_dir": 123}, "--cache-dir: expected a path"),
    ({"progress_label": 5}, "progress_label: expected text"),
])
def test_runner_options_refuse_what_is_not_their_type(option, says) -> None:
    with pytest.raises(judgebench.JudgebenchError, match=says):
        RunnerOptions(**option)


def test_runner_options_take_numpy_integers_and_path_text() -> None:
    options = RunnerOptions(concurrency=np.int64(4), max_failures=np.int32(2), cache_dir="/tmp/jb-cache",
                            timeout_s=np.float32(3), max_cost=np.int64(3))
    assert type(options.concurrency) is int and options.concurrency == 4 and options.max_failures == 2
    assert type(options.timeout_s) is float and options.timeout_s == 3.0 and type(options.max_cost) is float
    assert options.cache_dir == Path("/tmp/jb-cache")


@pytest.mark.parametrize("key", [1, None, ("a",), "", "  "])
def test_judge_args_names_must_be_text(tmp_path: Path, key) -> None:
    with pytest.raises(judgebench.JudgebenchError, match="each name must be non-empty text"):
        judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=tmp_path / "o", judge_args={key: "x"}, **DEMO)


@pytest.mark.parametrize("value", [12345, 1.5, True, ["k"], {"k": "v"}])
def test_an_api_key_that_is_not_text_is_one_line_without_its_value(tmp_path: Path, value) -> None:
    with pytest.raises(judgebench.JudgebenchError) as caught:  # (an int was a TypeError from the secret scrub)
        judgebench.evaluate("sciarena_eval", "openai/x", output_path=tmp_path / "o",
                            judge_args={"api_base": "http://127.0.0.1:9/v1", "api_key": value}, **DEMO)
    assert "api_key: expected text" in str(caught.value) and "12345" not in str(caught.value)


def test_a_credentials_object_stays_allowed(tmp_path: Path) -> None:
    from judgebench.judges.args import convert_judge_args

    args, _ = convert_judge_args({"vertex_credentials": {"type": "service_account"}})
    assert args["vertex_credentials"] == {"type": "service_account"}


def test_limit_one_point_zero_is_refused_as_ambiguous(tmp_path: Path) -> None:
    with pytest.raises(judgebench.JudgebenchError, match="1.0 is ambiguous"):  # it judged one example
        judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=tmp_path / "o", demo=True, limit=1.0)
    run = judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=tmp_path / "o", demo=True, limit=2.0)
    assert run.result.counts.examples == 2


def test_split_with_the_demo_is_warned_of_from_python_too(tmp_path: Path) -> None:
    told: list[str] = []
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=tmp_path / "o", split="bogus",
                        on_warning=told.append, **DEMO)
    assert any("--split is ignored with --demo" in line for line in told)


@pytest.mark.parametrize("name, text", [("samples.jsonl", '{"my": "data"}\n'), ("results.json", "{}\n"),
                                        ("samples.jsonl", "not json\n")])
def test_a_folder_holding_someone_elses_run_files_is_refused_before_any_work(tmp_path: Path, name, text) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / name).write_text(text)
    with pytest.raises(judgebench.JudgebenchError, match=f"{name} is no judgebench run's file"):
        judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=mine, **DEMO)
    assert (mine / name).read_text() == text


def test_a_rerun_over_a_finished_or_interrupted_run_is_not_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=out, **DEMO)
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=out, **DEMO)  # a finished run
    (out / "results.json").unlink()  # an interrupted one: samples.jsonl alone
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=out, **DEMO)


def test_a_results_file_of_an_unknown_layout_is_refused_everywhere(tmp_path: Path) -> None:
    out = tmp_path / "run"
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=out, **DEMO)
    data = json.loads((out / "results.json").read_text())
    (out / "results.json").write_text(json.dumps({**data, "schema_version": 99}))
    for call in (lambda: judgebench.read_run(out), lambda: judgebench.score_run(out),
                 lambda: judgebench.compare_runs(out, out)):
        with pytest.raises(judgebench.JudgebenchError, match="schema_version.*99 is not the layout this judgebench reads"):
            call()


def test_one_run_given_twice_is_not_two_rows(tmp_path: Path) -> None:
    out = tmp_path / "run"
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=out, **DEMO)
    for given in ([out, out], [out, out / "results.json"], [tmp_path, out]):
        with pytest.raises(judgebench.JudgebenchError, match="named twice, or found under two of the folders"):
            judgebench.build_leaderboard(given, tmp_path / "lb")
    with pytest.raises(judgebench.JudgebenchError, match="no results.json found under the paths given"):
        judgebench.build_leaderboard([], tmp_path / "lb")


def test_an_own_judge_named_like_a_provider_model_is_marked_on_the_board(tmp_path: Path) -> None:
    own = judgebench.function_judge("openai/gpt-x", lambda request: "[[A]]")
    judgebench.evaluate("sciarena_eval", own, output_path=tmp_path / "run", **DEMO)
    judgebench.build_leaderboard([tmp_path / "run"], tmp_path / "lb")
    rows = json.loads((tmp_path / "lb" / "sciarena_eval.json").read_text())["rows"]
    assert [r["label"] for r in rows if r["judge"] == "openai/gpt-x"] == ["openai/gpt-x (own judge)"]


def test_sweep_from_a_plain_import_with_python_values(tmp_path: Path) -> None:
    code = "import judgebench\nprint(callable(judgebench.api.sweep))\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "True", done.stderr  # `judgebench.api` was no attribute after a plain import
    runs: list = []
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:  # a dict value was sent as "{'type': ...}"
        judgebench.api.sweep("sciarena_eval", "openai/x", "response_format", [{"type": "json_object"}],
                             output_path=tmp_path / "sw", judge_args={"api_base": server.api_base, "api_key": "sk-t"},
                             on_run=runs.append, **DEMO)
    assert runs[0].result.config.judge_args["response_format"] == {"type": "json_object"}
    for key in (123, None, ""):
        with pytest.raises(judgebench.JudgebenchError, match="key must be a judge argument's name"):
            judgebench.api.sweep("sciarena_eval", "builtin/longer", key, [1, 2], output_path=tmp_path / "k", **DEMO)
    with pytest.raises(judgebench.JudgebenchError, match="each value must be text or a JSON value"):
        judgebench.api.sweep("sciarena_eval", "builtin/longer", "top_p", [{1, 2}], output_path=tmp_path / "k", **DEMO)


def test_a_judge_configuration_gets_the_argument_name_check_too(tmp_path: Path) -> None:
    from judgebench.judges.config import JudgeConfig

    with pytest.raises(judgebench.JudgebenchError, match="each name must be non-empty text"):  # {1: 2} was sent as "1"
        judgebench.evaluate_judges("sciarena_eval", [JudgeConfig("openai/x", {1: 2})], output_path=tmp_path / "o", **DEMO)


@pytest.mark.parametrize("args", [{"input_cost_per_token": 1e-6}, {"use_auth_token": True}])
def test_secret_named_arguments_other_than_api_key_keep_their_types(args) -> None:
    """The first version of the api_key check refused every secret-named argument that was not text."""
    from judgebench.judges.args import convert_judge_args

    assert convert_judge_args(args)[0] == args


def test_a_python_none_is_swept_as_null_not_as_text(tmp_path: Path) -> None:
    runs: list = []
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        judgebench.api.sweep("sciarena_eval", "openai/x", "user", [None, "x"], output_path=tmp_path / "sw",
                             judge_args={"api_base": server.api_base, "api_key": "sk-t"}, on_run=runs.append, **DEMO)
    assert [r.result.config.judge_args.get("user", "absent") for r in runs] == [None, "x"]  # it was the text "null"
    assert (tmp_path / "sw" / "user=null").is_dir()


def test_every_folder_of_a_sweep_is_checked_before_the_first_setting(tmp_path: Path) -> None:
    foreign = tmp_path / "sw" / "max_tokens=200"
    foreign.mkdir(parents=True)
    (foreign / "results.json").write_text('{"x": 1}')
    with pytest.raises(judgebench.JudgebenchError, match="is no judgebench run's file"):
        judgebench.api.sweep("sciarena_eval", "openai/x", "max_tokens", [100, 200], output_path=tmp_path / "sw",
                             judge_args={"api_base": "http://127.0.0.1:9/v1", "api_key": "sk-t"}, **DEMO)
    assert not (tmp_path / "sw" / "max_tokens=100").exists()  # the first setting was run and paid for


def test_an_lm_eval_results_file_is_not_taken_for_a_run(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "results.json").write_text('{"results": {}, "versions": {}, "config": {"model": "hf-causal"}}')
    with pytest.raises(judgebench.JudgebenchError, match="results.json is no judgebench run's file"):
        judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=mine, **DEMO)


@pytest.mark.parametrize("first", ['{"task": "sciarena_eval", "example_id": "e1", "dimen', "\n"])
def test_an_interrupted_runs_damaged_or_blank_first_line_is_still_its_own(tmp_path: Path, first) -> None:
    out = tmp_path / "run"
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=out, **DEMO)
    (out / "results.json").unlink()
    lines = (out / "samples.jsonl").read_text()
    (out / "samples.jsonl").write_text(first + ("\n" if first.strip() else "") + lines)
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=out, **DEMO)


def test_own_judge_rows_keep_their_mark_when_configurations_differ(tmp_path: Path) -> None:
    own = judgebench.function_judge("openai/gpt-x", lambda request: "[[A]]")
    judgebench.evaluate("sciarena_eval", own, output_path=tmp_path / "a", **DEMO)
    judgebench.evaluate("sciarena_eval", own, output_path=tmp_path / "b", prompt="pairwise_generic", **DEMO)
    judgebench.build_leaderboard([tmp_path / "a", tmp_path / "b"], tmp_path / "lb")
    rows = json.loads((tmp_path / "lb" / "sciarena_eval.json").read_text())["rows"]
    labels = sorted(r["label"] for r in rows if r["judge"] == "openai/gpt-x")
    assert len(labels) == 2 and all(label.startswith("openai/gpt-x (own judge) [prompt=") for label in labels), labels
    assert all("_own_judge" not in r for r in rows)


def test_numpy_values_are_swept_as_the_json_they_are_sent_as(tmp_path: Path) -> None:
    runs: list = []
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:  # np.arange's values were refused as no JSON value
        judgebench.api.sweep("sciarena_eval", "openai/x", "max_tokens", np.arange(16, 48, 16), output_path=tmp_path / "sw",
                             judge_args={"api_base": server.api_base, "api_key": "sk-t"}, on_run=runs.append, **DEMO)
    assert [r.result.config.judge_args["max_tokens"] for r in runs] == [16, 32]
    assert sorted(p.name for p in (tmp_path / "sw").iterdir() if p.is_dir()) == ["max_tokens=16", "max_tokens=32"]


def test_a_float32_value_is_swept_by_its_digits() -> None:
    from judgebench.api import _plain_value, _setting_text

    values = [_plain_value(v) for v in np.array([0.1, 0.7], dtype=np.float32)]
    assert values == [0.1, 0.7] and [_setting_text(v) for v in values] == ["0.1", "0.7"]
    assert _plain_value(np.array(["a", "b"])) == ["a", "b"] and _plain_value(np.int64(3)) == 3
