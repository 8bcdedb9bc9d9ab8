"""One options object per layer: the run's options (RunRequest), the call layer's (RunnerOptions), and the CLI
flags and `evaluate` keywords that map onto them, with one name and one default each."""

from __future__ import annotations

import argparse
import dataclasses
import inspect

import pytest

from judgebench.api import evaluate
from judgebench.calls import RunnerOptions
from judgebench.cli.flags import RUNNER_FLAGS, runner_options
from judgebench.cli.main import build_parser
from judgebench.judging.pipeline import RunRequest

INTERNAL = {"judge_object"}  # set by evaluate from a Judge object, not a keyword of its own


def _subparser(*names: str) -> argparse.ArgumentParser:
    parser = build_parser()
    for name in names:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = action.choices[name]
    return parser


def _flag(parser: argparse.ArgumentParser, flag: str) -> argparse.Action:
    return next(a for a in parser._actions if flag in a.option_strings)


def test_evaluate_keywords_are_the_run_requests_fields():
    keywords = set(inspect.signature(evaluate).parameters)
    fields = {f.name for f in dataclasses.fields(RunRequest)} - INTERNAL
    assert keywords == fields


@pytest.mark.parametrize("command", [("run",), ("rubric", "run"), ("pairs",)])
def test_call_flags_have_one_name_and_the_runner_options_defaults(command):
    parser = _subparser(*command)
    assert _flag(parser, "--concurrency").default == RunnerOptions.concurrency == 16
    assert _flag(parser, "--timeout").default == RunnerOptions.timeout_s == 120.0
    assert _flag(parser, "--max-retries").default == RunnerOptions.max_retries == 5
    assert _flag(parser, "--quiet") is _flag(parser, "--no-progress")  # one flag, the older spelling kept


@pytest.mark.parametrize("command", [["run", "--tasks", "t", "--output-path", "o", "--judge", "j"],
                                     ["pairs", "q.jsonl", "--models", "a,b", "--output", "o"]])
def test_runner_options_are_built_in_one_place_from_any_commands_flags(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = build_parser().parse_args([*command, "--concurrency", "3", "--timeout", "7.5", "--no-progress",
                                      "--no-cache", "--max-failures", "2"])
    options = runner_options(args)
    assert (options.concurrency, options.timeout_s, options.progress, options.use_cache, options.max_failures) == (
        3, 7.5, False, False, 2)


def test_every_runner_flag_names_a_runner_option_and_run_defines_each():
    fields = {f.name for f in dataclasses.fields(RunnerOptions)}
    assert set(RUNNER_FLAGS) <= fields
    run = _subparser("run")
    dests = {a.dest for a in run._actions}
    assert set(RUNNER_FLAGS.values()) <= dests
    # the rest are the two negated flags, the backoff settings, the unreachable stop (Python only; the command
    # line sets the stop with --max-failures) and the progress bar's label (set by the command: `pairs` answers)
    assert fields - set(RUNNER_FLAGS) == {"use_cache", "progress", "backoff_base_s", "backoff_max_s", "unreachable_after",
                                          "progress_label"}


def test_every_run_option_has_its_run_flag_and_is_mapped_in_one_place(tmp_path, monkeypatch):
    from judgebench.cli.flags import PER_JUDGE, RUN_FLAG_NAMES, RUN_NEGATED, run_options

    run = _subparser("run")
    dests = {a.dest for a in run._actions}
    fields = {f.name for f in dataclasses.fields(RunRequest)}
    for name in fields - PER_JUDGE:
        assert RUN_NEGATED.get(name, RUN_FLAG_NAMES.get(name, name)) in dests, name
    monkeypatch.chdir(tmp_path)
    args = build_parser().parse_args(["run", "--tasks", "t", "--output-path", "o", "--judge", "j", "--no-swap",
                                      "--bootstrap", "200", "--limit", "0.5", "--include-path", str(tmp_path)])
    options = run_options(args, fields)
    assert set(options) == fields - PER_JUDGE
    assert (options["swap"], options["n_resamples"], options["limit"], options["include_paths"]) == (
        False, 200, 0.5, [tmp_path])
