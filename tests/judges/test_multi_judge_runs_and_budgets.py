"""Regression tests for the issue-13 audit (docs/lab/validation-judges.md): what an outside check of multi-judge
runs, panels, repeats and --max-cost found, and the leftovers it finished. Against the local
OpenAI-compatible server; nothing here touches the network."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from openai_server import Behaviour, FakeOpenAIServer
from test_cost_estimates import chars_tokens, rendered

from judgebench.cli.main import main
from judgebench.judges.prices import cost_map_prices
from judgebench.publish.costplot import PLOT_STEM


def run(api_base: str, out: Path, *extra: str, judges: tuple[str, ...] = ("openai/gpt-4o-mini",), limit: int = 10) -> int:
    flags = [x for judge in judges for x in ("--judge", judge)]
    return main(
        ["run", "--tasks", "sciarena_eval", "--demo", "--limit", str(limit), *flags,
         "--judge-args", f"api_base={api_base},api_key=sk-t,max_tokens=64", "--output-path", str(out),
         "--cache-dir", str(out.parent / "cache"), "--quiet", "--max-retries", "0", *extra]
    )  # fmt: skip


def outcomes(server: FakeOpenAIServer) -> dict[str, int]:
    counts: dict[str, int] = {}
    for entry in server.stats().requests:
        counts[entry.outcome] = counts.get(entry.outcome, 0) + 1
    return counts


@pytest.mark.slow
def test_max_cost_with_concurrency_keeps_every_call_in_flight(tmp_path: Path, capsys) -> None:
    # finding: a call waiting for a concurrency slot when the cap was reached raised a hard stop that
    # cancelled the calls in flight. With these settings, before the fix, the server logged 12 answered and
    # 3 cancelled requests (sent, so possibly billed, and lost); after it, 15 answered, all 15 kept.
    cap = 0.002
    with FakeOpenAIServer(Behaviour(answer="@hash", latency_s=0.05, jitter_s=0.025)) as server:
        status = run(server.api_base, tmp_path / "run", "--concurrency", "4", "--max-cost", repr(cap), limit=48)
        seen = outcomes(server)
    err = capsys.readouterr().err
    assert status == 1 and "run stopped early: max cost" in err
    assert "--max-cost caps each rerun's new spend afresh, not the total" in err  # (a walkthrough: said nowhere)
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert seen.get("cancelled", 0) == 0 and seen.get("answered", 0) > 4
    assert results["counts"]["answered"] == seen["answered"]  # every call the server answered is kept
    assert results["usage"]["cost_usd"] <= cap


def test_the_cap_message_tells_the_calls_still_in_flight() -> None:
    from judgebench.calls.budget import Budget
    from judgebench.judges import make_judge

    budget = Budget(make_judge("openai/gpt-4o-mini", {"max_tokens": "64"}), max_cost=1.0)
    request = rendered(1)[0]
    one = budget.estimate(request)
    budget.cap = 2.5 * one  # two reservations fit, the third does not
    assert budget.reserve(request)[1] is None and budget.reserve(request)[1] is None
    reserved, over = budget.reserve(request)
    assert reserved == 0.0 and over is not None and "2 calls sent, $0.000000 spent so far (2 still in flight, kept)" in over
    budget.settle(one, None)  # an answer without a price: counted at its estimate
    budget.settle(one, None)
    over = budget.reserve(request)[1]
    assert over is not None and over.endswith(f"2 calls sent, ${2 * one:.6f} spent, of which 2 attempts without a "
                                              "priced answer (failed, or not priced) at their estimate")


@pytest.mark.parametrize("value", ["0", "-1", "101", "100000", "two"])
def test_repeats_out_of_range_is_one_line_exit_2(tmp_path: Path, capsys, value: str) -> None:
    # finding: --repeats 100000 was accepted and sat building 9.6 million judgments (a hang)
    status = main(["run", "--tasks", "sciarena_eval", "--demo", "--judge", "builtin/longer", "--repeats", value,
                   "--output-path", str(tmp_path / "o"), "--quiet"])  # fmt: skip
    err = capsys.readouterr().err
    assert status == 2 and "--repeats" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
@pytest.mark.parametrize("judge", ["../../etc", "openai/../x", "openai//x", "openai/.", "openai/a\\..\\b", " openai/x"])
def test_path_like_judge_ids_are_refused_before_any_call(tmp_path: Path, capsys, judge: str) -> None:
    # finding: `--judge ../../etc` was sent to litellm and stopped the run with a two-line error, exit 1
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        status = run(server.api_base, tmp_path / "o", judges=("openai/m", judge), limit=2)
        sent = server.stats().total
    err = capsys.readouterr().err
    assert status == 2 and sent == 0 and len(err.strip().splitlines()) == 1 and "judge" in err
    assert not (tmp_path / "o").exists()


def test_a_multi_line_provider_error_is_reported_on_one_line(tmp_path: Path, capsys) -> None:
    with FakeOpenAIServer(Behaviour(status=401, error_message="bad key\nsee the docs\nat https://x")) as server:
        assert run(server.api_base, tmp_path / "o", judges=("openai/m",), limit=2) == 1
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    stopped = [line for line in lines if "run stopped early" in line]
    assert len(stopped) == 1 and "see the docs" in stopped[0], lines


@pytest.mark.slow
def test_max_cost_is_a_total_over_the_judges_of_one_run(tmp_path: Path, capsys) -> None:
    # concurrency 1: calls are sent in request order. Judge 1 pays its 20 calls (answers "[[A]]": 5 chars
    # -> 5 // 4 + 1 = 2 tokens out each); judge 2 gets the cap minus that and fits exactly 3 reservations.
    requests = rendered(10)
    mini_in, mini_out = cost_map_prices("gpt-4o-mini", "openai")  # type: ignore[misc]
    paid = sum(chars_tokens(r) * mini_in + 2 * mini_out for r in requests)  # judge 1: all 20 calls
    p_in, p_out = cost_map_prices("gpt-4.1-mini", "openai")  # type: ignore[misc]
    actual = [chars_tokens(r) * p_in + 2 * p_out for r in requests]
    estimate = [chars_tokens(r) * p_in + 64 * p_out for r in requests]
    cap = paid + sum(actual[:2]) + estimate[2] + estimate[3] / 2  # judge 2: calls 1-3 fit, call 4 does not
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        status = run(server.api_base, tmp_path / "jury", "--concurrency", "1", "--max-cost", repr(cap),
                     judges=("openai/gpt-4o-mini", "openai/gpt-4.1-mini", "openai/gpt-4.1-nano"))  # fmt: skip
        sent = server.stats().total
    err = capsys.readouterr().err
    assert status == 1 and sent == 20 + 3
    assert "judges not run (an earlier judge was interrupted or reached --max-cost): openai/gpt-4.1-nano" in err
    first = json.loads((tmp_path / "jury" / "openai-gpt-4o-mini" / "results.json").read_text())
    second = json.loads((tmp_path / "jury" / "openai-gpt-4.1-mini" / "results.json").read_text())
    assert first["config"].get("partial") in (None, False) and first["counts"]["answered"] == 20
    assert second["config"]["partial"] is True and second["counts"]["answered"] == 3
    assert first["usage"]["cost_usd"] + second["usage"]["cost_usd"] <= cap
    assert abs(first["usage"]["cost_usd"] - paid) < 1e-12 and abs(second["usage"]["cost_usd"] - sum(actual[:3])) < 1e-12
    assert not (tmp_path / "jury" / "openai-gpt-4.1-nano").exists()


def test_max_cost_refuses_an_unpriced_judge_of_several_before_any_call(tmp_path: Path, capsys) -> None:
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        status = run(server.api_base, tmp_path / "jury", "--max-cost", "1", judges=("openai/gpt-4o-mini", "openai/unpriced-x"))
        sent = server.stats().total
    err = capsys.readouterr().err
    assert status == 2 and sent == 0 and "openai/unpriced-x is unpriced" in err


@pytest.mark.parametrize("prompt, why", [("nonexistent_prompt", "not found"), ("broken.yaml", "broken.yaml")])
def test_a_later_judges_bad_prompt_is_refused_before_any_call(tmp_path: Path, capsys, prompt: str, why: str) -> None:
    """A judges file whose second judge names a prompt not found (or not valid YAML): refused in one line naming
    that judge, before the first judge's calls (an outside attack saw 96 calls paid for the first judge first)."""
    (tmp_path / "broken.yaml").write_text("system: [unclosed\n")
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        judges = tmp_path / "judges.yaml"
        judges.write_text(json.dumps({"judges": [
            {"judge": "openai/m1", "judge_args": f"api_base={server.api_base},api_key=sk-t"},
            {"judge": "openai/m2", "judge_args": f"api_base={server.api_base},api_key=sk-t",
             "prompt": str(tmp_path / prompt) if prompt.endswith(".yaml") else prompt}]}))
        status = main(["run", "--tasks", "sciarena_eval", "--demo", "--limit", "4", "--judges-file", str(judges),
                       "--output-path", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache"), "--quiet"])
        sent = server.stats().total
    err = capsys.readouterr().err
    assert status == 2 and sent == 0, (status, sent, err)
    assert err.startswith("judgebench: error: judge openai/m2: ") and why in err and err.count("\n") == 1, err
    assert not (tmp_path / "out" / "openai-m1").exists()


@pytest.mark.slow
def test_sigint_in_a_multi_judge_run_keeps_finished_and_partial_judges(tmp_path: Path) -> None:
    fast, slow = Behaviour(answer="@hash"), Behaviour(answer="@hash", latency_s=0.4)
    with FakeOpenAIServer(fast, models={"judge-slow": slow}) as server:
        out = tmp_path / "jury"
        args = ["run", "--tasks", "sciarena_eval", "--demo", "--judge", "openai/judge-fast", "--judge", "openai/judge-slow",
                "--judge", "openai/judge-late", "--judge-args", f"api_base={server.api_base},api_key=sk-t",
                "--concurrency", "2", "--panel", "majority", "--output-path", str(out), "--cache-dir", str(tmp_path / "c"),
                "--quiet"]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        proc = subprocess.Popen([sys.executable, "-m", "judgebench", *args], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        deadline = time.time() + 60
        while time.time() < deadline and server.stats().models().get("judge-slow", 0) < 6:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        slow_answered = sum(1 for e in server.stats().requests if e.model == "judge-slow" and e.outcome == "answered")
    assert proc.returncode == 1, err
    assert "judges not run" in err and "openai/judge-late" in err
    first = json.loads((out / "openai-judge-fast" / "results.json").read_text())
    assert not first["config"].get("partial") and first["counts"]["answered"] == 96
    second = json.loads((out / "openai-judge-slow" / "results.json").read_text())
    assert second["config"]["partial"] is True and 0 < second["counts"]["answered"] < 96
    # the interrupted judge's answers the server sent are in its results or in the cache for a rerun
    assert second["counts"]["answered"] <= slow_answered
    assert not (out / "openai-judge-late").exists() and not (out / "panel").exists()
    summary = json.loads((out / "judges.json").read_text())
    assert summary["not_run"] == ["openai/judge-late"] and summary["judges"][1]["stopped"].startswith("interrupted")


@pytest.mark.slow
def test_stability_columns_in_the_leaderboard_and_on_the_page(tmp_path: Path, capsys) -> None:
    # the n-th ask of a prompt answers "[[A]]" for n even, "[[B]]" for n odd: with one order and concurrency 1
    # repeat 0 says A everywhere, repeat 1 B, repeat 2 A. So no judgment agrees across repeats (agreement 0%)
    # and the headline per repeat is the share of A labels, of B labels, of A labels.
    asked: dict[str, int] = {}

    def alternate(messages: list[dict]) -> str:
        key = json.dumps(messages, sort_keys=True)
        asked[key] = asked.get(key, 0) + 1
        return "[[A]]" if asked[key] % 2 == 1 else "[[B]]"

    with FakeOpenAIServer(Behaviour(answer=alternate)) as server:
        assert run(server.api_base, tmp_path / "rep", "--concurrency", "1", "--no-swap", "--repeats", "3",
                   judges=("openai/m",), limit=10) == 0  # fmt: skip
    # the cache count is repeat 0's (the judgments counted), the calls sent every repeat's: the line says so
    assert "(coverage 1.000; 0 from cache; 30 calls sent over all 3 repeats)" in capsys.readouterr().out
    labels = [json.loads(line)["label"] for line in (tmp_path / "rep" / "samples.jsonl").read_text().splitlines()]
    share_a, share_b = labels.count("A") / 10, labels.count("B") / 10
    assert main(["leaderboard", str(tmp_path / "rep"), "--output-dir", str(tmp_path / "lb")]) == 0
    capsys.readouterr()
    rows = json.loads((tmp_path / "lb" / "sciarena_eval.json").read_text())
    rows = rows["rows"] if isinstance(rows, dict) else rows
    row = next(r for r in rows if r.get("judge") == "openai/m")
    low, high = sorted([100 * share_a, 100 * share_b])
    assert row["repeats"] == 3 and row["repeat_agreement_pct"] == 0.0
    assert row["repeat_spread_pts"] == round(high - low, 2)
    assert row["repeat_headline_range"] == f"{low:.2f}-{high:.2f}"
    assert all("repeats" not in r for r in rows if r.get("judge") != "openai/m")  # runs without repeats: no cells
    page = (tmp_path / "lb" / "index.html").read_text()
    assert "repeat_agreement_pct" in page and "repeat_spread_pts" in page
    assert "repeat_agreement_pct" in (tmp_path / "lb" / "sciarena_eval.md").read_text()


@pytest.mark.slow
def test_report_on_a_panel_draws_its_members_cost_points(tmp_path: Path, capsys) -> None:
    answers = {"gpt-4o-mini": Behaviour(answer="[[A]]"), "gpt-4.1-mini": Behaviour(answer="@hash"),
               "gpt-4.1-nano": Behaviour(answer="[[B]]")}  # fmt: skip
    with FakeOpenAIServer(Behaviour(answer="[[A]]"), models=answers) as server:
        assert run(server.api_base, tmp_path / "jury", "--panel", "majority", limit=4,
                   judges=tuple(f"openai/{m}" for m in answers)) == 0  # fmt: skip
    assert main(["report", str(tmp_path / "jury" / "panel")]) == 0
    capsys.readouterr()
    report = (tmp_path / "jury" / "panel" / "report" / "report.md").read_text()
    section = report.split("### Cost vs accuracy", 1)[1].split("![", 1)[0]
    drawn = [line for line in section.splitlines() if line.startswith("- ")]
    assert len(drawn) == 4 and drawn[0].startswith("- panel/majority(")
    assert all(any(line.startswith(f"- openai/{m}:") for line in drawn) for m in answers)
    # the panel costs its members' sum, so it is never cheaper than a member: the cheapest member
    # (gpt-4.1-nano, the lowest prices) is on the Pareto front
    assert any(line.startswith("- openai/gpt-4.1-nano:") and line.endswith("(Pareto front)") for line in drawn)
    assert (tmp_path / "jury" / "panel" / "report" / f"{PLOT_STEM}.png").stat().st_size > 0


def test_a_reask_chain_resumed_from_the_cache_counts_only_its_new_answers_as_paid(tmp_path: Path, capsys) -> None:
    """Run 1 (--reask 0): every answer unparseable, 6 calls paid. Run 2 (--reask 1) resumes each chain from the
    cache and pays 6 re-asks. Run 2's records hold the whole chain's cost (what the judgment costs) with the part
    run 1 paid as `cached_cost_usd`; results.json's `cached_cost_usd` and this run's spend (which a later judge's
    --max-cost allowance is cut by) tell them apart. The resumed records had been `cached: false` with run 1's cost
    counted as paid again."""
    from judgebench.judging.multirun import new_spend

    def run_once(out: str, *extra: str) -> int:
        return main(["run", "--tasks", "sciarena_eval", "--demo", "--limit", "3", "--judge", "openai/m", "--judge-args",
                     f"api_base={server.api_base},api_key=x,input_cost_per_mtok=1000,output_cost_per_mtok=1000",
                     "--output-path", str(tmp_path / out), "--cache-dir", str(tmp_path / "cache"), "--quiet",
                     "--max-retries", "0", *extra])

    with FakeOpenAIServer(Behaviour(script=("malformed",), answer="[[A]]")) as server:
        run_once("first")
        first_calls = server.stats().total
        capsys.readouterr()
        run_once("second", "--reask", "1")
        second_calls = server.stats().total - first_calls
    assert first_calls == second_calls == 6
    first = [json.loads(line) for line in (tmp_path / "first" / "samples.jsonl").read_text().splitlines()]
    second = [json.loads(line) for line in (tmp_path / "second" / "samples.jsonl").read_text().splitlines()]
    paid_before = {(r["example_id"], r["order"]): r["cost_usd"] for r in first}
    for row in second:
        assert not row["cached"] and len(row["earlier_raw"]) == 1
        assert row["cached_cost_usd"] == pytest.approx(paid_before[(row["example_id"], row["order"])])
        assert row["cost_usd"] > row["cached_cost_usd"] > 0
    usage = json.loads((tmp_path / "second" / "results.json").read_text())["usage"]
    first_cost = json.loads((tmp_path / "first" / "results.json").read_text())["usage"]["cost_usd"]
    assert usage["cached_cost_usd"] == pytest.approx(first_cost) and usage["cached_calls"] == 0
    assert usage["resumed_calls"] == 6
    assert (f"(of it ${first_cost:.4f} for the earlier answers of 6 re-asks resumed from the cache, not paid again)"
            in capsys.readouterr().out)
    assert new_spend(tmp_path / "second") == pytest.approx(usage["cost_usd"] - first_cost)
    assert new_spend(tmp_path / "first") == pytest.approx(first_cost)
