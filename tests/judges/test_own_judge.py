"""Your own judge (issue 11: "adding a throwaway judge ... counting the files touched").

A Judge object or a function from Python touches no file of the package (judges/own.py); a new built-in
baseline is one entry of `BUILTIN_JUDGES` (judges/builtin.py), proven on a scratch copy of the package.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import judgebench
from judgebench.judges.builtin import response_length

REPO = Path(__file__).resolve().parents[2]


class LongerByHand(judgebench.Judge):
    """builtin/longer written by a user: the longer response (the same length measure) wins."""

    id = "mylab/longer-by-hand"

    async def judge(self, request):
        first, second = response_length(request.first), response_length(request.second)
        return "[[A]]" if first > second else "[[B]]" if second > first else "no preference"


def _samples(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]


def _verdicts(folder: Path) -> dict[tuple[str, str, str], str | None]:
    return {(r["example_id"], r["dimension"], r["order"]): r["verdict"] for r in _samples(folder)}


def test_a_judge_object_runs_like_a_built_in_judge(tmp_path):
    own = judgebench.evaluate("sciarena_eval", LongerByHand(), output_path=tmp_path / "own", demo=True)
    builtin = judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=tmp_path / "builtin", demo=True)
    assert own.result.config.judge == "mylab/longer-by-hand"
    assert _verdicts(tmp_path / "own") == _verdicts(tmp_path / "builtin")  # every judgment, both orders
    ours, theirs = own.result.metrics["overall"]["accuracy"], builtin.result.metrics["overall"]["accuracy"]
    assert (ours.value, ours.ci_low, ours.ci_high) == (theirs.value, theirs.ci_low, theirs.ci_high)
    assert ours.value == pytest.approx(29 / 48)  # the demo's length-bias baseline: 29 of 48 pairs
    assert {r["judge"] for r in _samples(tmp_path / "own")} == {"mylab/longer-by-hand"}


def test_a_function_judge_accounts_for_every_call(tmp_path):
    def flaky(request):
        if request.order == "BA":
            raise ValueError("no second look")
        return 7 if request.example_id.endswith("1") else "Verdict: A"

    run = judgebench.evaluate("sciarena_eval", judgebench.function_judge("mylab/flaky", flaky),
                              output_path=tmp_path, demo=True)
    counts, samples = run.result.counts, _samples(tmp_path)
    assert counts.calls == 96 and counts.answered + counts.invalid + counts.failed == 96
    ab_numbered_1 = sum(1 for s in samples if s["order"] == "AB" and s["example_id"].endswith("1"))
    assert counts.failed == 48 + ab_numbered_1 and counts.answered == 48 - ab_numbered_1
    errors = {s["error"] for s in samples if s["status"] == "FAILED"}
    assert errors == {"judge mylab/flaky raised ValueError: no second look",
                      "judge mylab/flaky returned int; expected the raw text (str) or a JudgeReply"}
    assert all(s["attempts"] == 1 for s in samples)  # the caller's errors are not retried


def test_an_async_function_judge_and_a_judge_that_answers_nothing(tmp_path):
    async def nothing(request):
        return "I cannot decide."

    run = judgebench.evaluate("sciarena_eval", judgebench.function_judge("mylab/undecided", nothing),
                              output_path=tmp_path, demo=True)
    assert run.result.counts.invalid == 96 and run.result.counts.answered == 0
    assert run.coverage_failure is not None  # the CLI exits non-zero on it


@pytest.mark.parametrize("judge_id, says", [
    ("builtin/longer", "name judgebench's own judges"),
    ("Replay/x", "name judgebench's own judges"),
    # a second outside attack: these ran (paid) and only `submit` refused them afterwards
    ("panel/x", "name judgebench's own judges"), ("panel-x", "name judgebench's own judges"),
    ("builtin-x", "name judgebench's own judges"), ("replay.v2", "name judgebench's own judges"),
    # a fourth: ASCII look-alikes (a one for an l, a capital I)
    ("bui1tin/x", "in look-alike letters"), ("buiItin/x", "in look-alike letters"), ("pane1-x", "in look-alike letters"),
    ("../up", "use letters, digits"),
    ("a//b", "use letters, digits"),
    ("lab/x y", "use letters, digits"),
    ("x" * 201, "at most 200"),
    ("", "non-empty string"),
])
def test_an_id_that_could_pose_or_escape_is_refused(judge_id, says):
    with pytest.raises(judgebench.JudgebenchError, match=says):
        judgebench.function_judge(judge_id, lambda r: "[[A]]")


def test_ids_the_leaderboard_takes_are_taken():
    for judge_id in ("builtin_x", "mylab/builtin", "panels/x", "replays", "bu1ld/x", "pane/x", "lab/bui1tin"):
        assert judgebench.function_judge(judge_id, lambda r: "[[A]]").id == judge_id


def test_what_is_not_a_judge_is_refused_in_one_line(tmp_path):
    class NoId(judgebench.Judge):
        async def judge(self, request):
            return "[[A]]"

    for judge, kwargs, says in [
        (5, {}, "expected a judge id \\(str\\) or a judgebench.Judge object, got int"),
        (LongerByHand(), {"judge_args": {"temperature": 0}}, "judge_args: not used with a Judge object"),
        (judgebench.function_judge("mylab/f", lambda r: "[[A]]"), {"judge_args": {"t": 1}}, "judge_args: not used"),
        (NoId(), {}, "your judge's id must be a non-empty string"),
    ]:
        with pytest.raises(judgebench.JudgebenchError, match=says):
            judgebench.evaluate("sciarena_eval", judge, output_path=tmp_path, demo=True, **kwargs)
    assert not (tmp_path / "samples.jsonl").exists()


class CountingCachedJudge(judgebench.Judge):
    """A cacheable judge: each call appends a line to a file (the calls run in a forked call worker)."""

    id = "mylab/cached"
    cacheable = True

    def __init__(self, calls_file: Path):
        self.calls_file = calls_file

    def cache_identity(self):
        return {"judge": self.id, "version": 1}

    async def judge(self, request):
        assert request.first and request.second and request.question  # needs_texts: the worker sends them
        with self.calls_file.open("a") as handle:
            handle.write(request.prompt_hash + "\n")
        return "[[B]]"


def test_a_cacheable_judge_object_is_cached_and_rerun_from_the_cache(tmp_path):
    calls = tmp_path / "calls.txt"
    runner = judgebench.calls.RunnerOptions(progress=False, cache_dir=tmp_path / "cache")
    first = judgebench.evaluate("sciarena_eval", CountingCachedJudge(calls), output_path=tmp_path / "a",
                                demo=True, runner=runner)
    assert first.result.counts.answered == 96 and len(calls.read_text().splitlines()) == 96
    again = judgebench.evaluate("sciarena_eval", CountingCachedJudge(calls), output_path=tmp_path / "b",
                                demo=True, runner=runner)
    assert again.result.counts.cached == 96 and len(calls.read_text().splitlines()) == 96  # no new call
    assert again.result.metrics["overall"]["accuracy"].value == first.result.metrics["overall"]["accuracy"].value


def test_evaluate_judges_takes_judge_objects_beside_ids(tmp_path):
    multi = judgebench.evaluate_judges("sciarena_eval", [LongerByHand(), "builtin/longer"], output_path=tmp_path,
                                       demo=True)
    assert [r.result.config.judge for r in multi.runs] == ["mylab/longer-by-hand", "builtin/longer"]
    folders = sorted(p.name for p in tmp_path.iterdir() if (p / "results.json").exists())
    assert folders == ["builtin-longer", "mylab-longer-by-hand"]  # one folder per judge, named by its id
    assert _verdicts(multi.runs[0].run_dir) == _verdicts(multi.runs[1].run_dir)


NEW_BUILTIN = '''    "builtin/always-a": lambda seed: AlwaysFirstJudge(),
    "builtin/fewer-citations": lambda seed: FeatureJudge("builtin/fewer-citations", lambda text: -count_citations(text), seed),
}'''


@pytest.mark.slow
def test_a_new_built_in_judge_is_one_entry_in_builtin_py(tmp_path):
    """The scratch copy differs from the package in judges/builtin.py alone; the new judge runs from the
    command line, is listed in the run's results, and `submit` verifies it by recomputing it."""
    src = tmp_path / "scratch" / "src"
    shutil.copytree(REPO / "src" / "judgebench", src / "judgebench", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("tasks", "prompts"):  # resources.py finds them beside src/ in a checkout
        (tmp_path / "scratch" / name).symlink_to(REPO / name)
    builtin = src / "judgebench" / "judges" / "builtin.py"
    text = builtin.read_text()
    old = '''    "builtin/always-a": lambda seed: AlwaysFirstJudge(),\n}'''
    assert text.count(old) == 1
    builtin.write_text(text.replace(old, NEW_BUILTIN, 1))
    changed = [p.relative_to(src) for p in (src / "judgebench").rglob("*.py")
               if p.read_bytes() != (REPO / "src" / p.relative_to(src)).read_bytes()]
    assert changed == [Path("judgebench/judges/builtin.py")]
    env = dict(os.environ, PYTHONPATH=str(src))

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "judgebench", *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)

    for judge, folder in (("builtin/fewer-citations", "fewer"), ("builtin/more-citations", "more")):
        done = cli("run", "--tasks", "sciarena_eval", "--judge", judge, "--demo", "--output-path", folder, "--quiet")
        assert done.returncode == 0, done.stderr[-2000:]
    fewer, more = _samples(tmp_path / "fewer"), _samples(tmp_path / "more")
    flip = {"A": "B", "B": "A", None: None, "TIE": "TIE"}
    by_key = {(r["example_id"], r["order"]): r["verdict"] for r in more}
    assert all(r["verdict"] == flip[by_key[(r["example_id"], r["order"])]] for r in fewer)  # the mirror image
    assert json.loads((tmp_path / "fewer" / "results.json").read_text())["config"]["judge"] == "builtin/fewer-citations"
    done = cli("submit", "fewer", "--leaderboard-dir", "board")
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_readme_own_judge_example_runs(tmp_path, monkeypatch):
    import re

    section = (REPO / "README.md").read_text().split("## Python API", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 2 and "judgebench.Judge" in blocks[1]
    monkeypatch.chdir(tmp_path)
    exec(compile("import judgebench\n" + blocks[1], "README.md", "exec"), {})
    mine = json.loads((tmp_path / "mine" / "results.json").read_text())
    always_b = _samples(tmp_path / "always-b")
    assert mine["config"]["judge"] == "mylab/longer-by-words" and mine["counts"]["answered"] == 96
    assert {s["verdict_shown"] for s in always_b} == {"B"}  # shown second, in both orders


def _run_one(tmp_path, fn, name="mylab/t"):
    judgebench.evaluate("sciarena_eval", judgebench.function_judge(name, fn), output_path=tmp_path, demo=True, limit=2)
    return _samples(tmp_path)


_UNCOUNTABLE = "returned a JudgeReply with a negative, infinite or NaN token count, cost or latency"


@pytest.mark.parametrize("answer, says", [
    (lambda r: judgebench_reply(text=None, error="upstream said no"), "returned a JudgeReply without text: upstream said no"),
    (lambda r: judgebench_reply(text="[[A]]", cost_usd=-5.0), _UNCOUNTABLE),
    (lambda r: judgebench_reply(text="[[A]]", tokens_in=-3), _UNCOUNTABLE),
    (lambda r: judgebench_reply(text="[[A]]", cost_usd=float("inf")), _UNCOUNTABLE),
    (lambda r: judgebench_reply(text="[[A]]", latency_s=float("inf")), _UNCOUNTABLE),
    (lambda r: judgebench_reply(text="[[A]]", cost_usd=float("nan")), _UNCOUNTABLE),
])
def test_a_reply_that_cannot_be_accounted_for_fails_that_call(tmp_path, answer, says):
    samples = _run_one(tmp_path, answer)
    assert {s["status"] for s in samples} == {"FAILED"} and {s["error"] for s in samples} == {f"judge mylab/t {says}"}
    assert json.loads((tmp_path / "results.json").read_text())["usage"]["cost_usd"] in (None, 0, 0.0)


def judgebench_reply(**fields):
    from judgebench.core.records import JudgeReply

    return JudgeReply(**fields)


def test_cancelled_error_and_system_exit_from_the_judge_fail_the_call_not_the_run(tmp_path):
    import asyncio

    def raiser(exc):
        def fn(request):
            raise exc
        return fn

    for name, exc, says in (("cancel", asyncio.CancelledError(), "raised CancelledError"),
                            ("exit", SystemExit(2), "raised SystemExit: 2")):
        samples = _run_one(tmp_path / name, raiser(exc), f"mylab/{name}")
        assert {s["error"] for s in samples} == {f"judge mylab/{name} {says}"}
        assert {s["attempts"] for s in samples} == {1}  # attempted once, never retried


def test_an_error_message_is_one_line_without_secrets(tmp_path):
    def leaky(request):
        raise ValueError("line one\nline two sk-ABCDEF1234567890SECRET at https://user:pw@host/v1?key=abcd1234")

    samples = _run_one(tmp_path, leaky)
    error = samples[0]["error"]
    assert "\n" not in error and "SECRET" not in error and "pw@" not in error and "abcd1234" not in error
    assert error.startswith("judge mylab/t raised ValueError: line one line two ")
    assert "SECRET" not in (tmp_path / "results.json").read_text() + (tmp_path / "samples.jsonl").read_text()


class _SyncJudge(judgebench.Judge):
    id = "mylab/sync"

    def judge(self, request):  # not async
        return "[[A]]"


class _CachedWithoutIdentity(judgebench.Judge):
    id = "mylab/cached-anyhow"
    cacheable = True

    async def judge(self, request):
        return "[[A]]"


class _Args(judgebench.Judge):
    id = "mylab/args"

    def __init__(self, args):
        self.args = args

    def public_args(self):
        return self.args

    async def judge(self, request):
        return "[[A]]"


class _IdRaises(judgebench.Judge):
    @property
    def id(self):
        raise ValueError("no id today")

    async def judge(self, request):
        return "[[A]]"


@pytest.mark.parametrize("judge, says", [
    (_SyncJudge(), "judge\\(\\) must be 'async def'"),
    (_CachedWithoutIdentity(), "cacheable = True needs cache_identity\\(\\)"),
    (_Args({"f": object()}), "public_args\\(\\) must return a dict of JSON values"),
    (_Args(["x"]), "public_args\\(\\) must return a dict of JSON values"),
    (_IdRaises(), "your judge's id could not be read: ValueError: no id today"),
])
def test_what_can_be_checked_is_checked_before_any_call(tmp_path, judge, says):
    with pytest.raises(judgebench.JudgebenchError, match=says):
        judgebench.evaluate("sciarena_eval", judge, output_path=tmp_path, demo=True)
    assert not (tmp_path / "samples.jsonl").exists()


def test_public_args_are_redacted_and_the_run_is_marked_as_your_own_judge(tmp_path):
    judgebench.evaluate("sciarena_eval", _Args({"temperature": 0, "api_key": "sk-PLANTED123456"}),
                        output_path=tmp_path / "own", demo=True, limit=2)
    config = json.loads((tmp_path / "own" / "results.json").read_text())["config"]
    assert config["judge_args"] == {"temperature": 0, "api_key": "<redacted>"} and config["own_judge"] is True
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=tmp_path / "builtin", demo=True, limit=2)
    assert "own_judge" not in json.loads((tmp_path / "builtin" / "results.json").read_text())["config"]  # written only when set


def test_evaluate_judges_takes_pairs_as_lists_and_refuses_two_objects_named_alike(tmp_path):
    multi = judgebench.evaluate_judges("sciarena_eval", [["builtin/longer", {}], (LongerByHand(), {})],
                                       output_path=tmp_path / "ok", demo=True, limit=2)
    assert [r.result.config.judge for r in multi.runs] == ["builtin/longer", "mylab/longer-by-hand"]
    twin = judgebench.function_judge("MyLab/Longer-By-Hand", lambda r: "[[B]]")
    for judges, says in (([LongerByHand(), twin], "judge id 'mylab/longer-by-hand' is given twice"),
                         ([(LongerByHand(), {"temperature": 0})], "judge_args: not used with a Judge object")):
        with pytest.raises(judgebench.JudgebenchError, match=says):
            judgebench.evaluate_judges("sciarena_eval", judges, output_path=tmp_path / "bad", demo=True)
    assert not (tmp_path / "bad").exists()


class _Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no text for you")


def test_an_exception_whose_text_cannot_be_read_fails_that_call_only(tmp_path):
    def fn(request):
        raise _Unprintable()

    samples = _run_one(tmp_path, fn)
    assert {s["status"] for s in samples} == {"FAILED"}
    assert {s["error"] for s in samples} == {"judge mylab/t raised _Unprintable: (its message could not be read)"}


def test_the_values_of_secret_named_environment_variables_are_scrubbed(tmp_path, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "AIzaSyExampleExampleExample1234567")
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-abcdefgh")

    def leaky(request):
        raise ValueError("denied for AIzaSyExampleExampleExample1234567 and tok-abcdefgh")

    samples = _run_one(tmp_path, leaky)
    assert samples[0]["error"] == "judge mylab/t raised ValueError: denied for *** and ***"
    written = (tmp_path / "results.json").read_text() + (tmp_path / "samples.jsonl").read_text()
    assert "AIzaSy" not in written and "tok-abcdefgh" not in written
