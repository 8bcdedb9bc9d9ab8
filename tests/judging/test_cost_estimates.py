"""Cost before the spend (issue 13 §5): `run --dry-run` figures against the rendered prompts and a real
run's own token counts, and `--max-cost` stopping at the cap, against the local OpenAI-compatible server."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from openai_server import Behaviour, FakeOpenAIServer

from judgebench.cli.main import main
from judgebench.core.records import JudgeRequest
from judgebench.judges.prices import cost_map_prices
from judgebench.judges.tokens import DEFAULT_OUTPUT_BUDGET
from judgebench.judging.judgments import plan_requests
from judgebench.judging.prompts import load_prompt
from judgebench.tasks.loading import load_examples
from judgebench.tasks.registry import get_task


def rendered(limit: int) -> list[JudgeRequest]:
    """The sciarena_eval demo prompts a run renders for its first `limit` examples, both orders."""
    spec = get_task("sciarena_eval")
    examples = load_examples(spec, demo=True, limit=limit).examples
    return plan_requests(spec, examples, load_prompt(spec.prompt, spec.folder), mode="single", swap=True)


def chars_tokens(request: JudgeRequest) -> int:
    # the documented estimate, computed here by hand: characters of the message contents // 4 + 1
    return sum(len(m["content"]) for m in request.messages) // 4 + 1


def run(api_base: str, out: Path, cache: Path, *extra: str, judge: str = "openai/m", limit: int = 3) -> int:
    return main(
        ["run", "--tasks", "sciarena_eval", "--demo", "--limit", str(limit), "--judge", judge,
         "--judge-args", f"api_base={api_base},api_key=sk-t,max_tokens=64", "--output-path", str(out),
         "--cache-dir", str(cache), "--quiet", "--max-retries", "0", *extra]
    )  # fmt: skip


def figure(out: str, pattern: str) -> int:
    match = re.search(pattern, out)
    assert match, out
    return int(match.group(1))


@pytest.mark.slow
def test_dry_run_tokens_equal_the_rendered_prompts_and_the_runs_own_count(tmp_path: Path, capsys) -> None:
    with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
        assert run(server.api_base, tmp_path / "dry", tmp_path / "cache", "--dry-run") == 0
        dry = capsys.readouterr().out
        assert server.stats().total == 0 and not (tmp_path / "dry").exists()  # nothing called, nothing written
        assert run(server.api_base, tmp_path / "run", tmp_path / "cache") == 0
        capsys.readouterr()
    expected = sum(chars_tokens(r) for r in rendered(3))
    assert figure(dry, r"input tokens: (\d+) \(estimate: characters / 4") == expected
    assert "calls: 6 planned, 0 from the cache, 6 to send" in dry
    assert "output budget: 384 tokens (6 calls x 64, max_tokens)" in dry
    assert "estimated cost: unpriced" in dry
    # the server counts prompt tokens the same way: the real run's tokens_in is the dry-run figure
    assert json.loads((tmp_path / "run" / "results.json").read_text())["usage"]["tokens_in"] == expected


@pytest.mark.slow
def test_dry_run_subtracts_cached_calls(tmp_path: Path, capsys) -> None:
    with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
        assert run(server.api_base, tmp_path / "run", tmp_path / "cache", limit=3) == 0
        capsys.readouterr()
        assert run(server.api_base, tmp_path / "dry", tmp_path / "cache", "--dry-run", limit=5) == 0
        dry = capsys.readouterr().out
    new = rendered(5)[6:]  # examples 4 and 5, both orders: the calls not in the cache
    assert "calls: 10 planned, 6 from the cache, 4 to send" in dry
    assert figure(dry, r"input tokens: (\d+)") == sum(chars_tokens(r) for r in new)


@pytest.mark.slow
def test_dry_run_uses_litellm_token_counter_and_prices_for_a_known_model(tmp_path: Path, capsys) -> None:
    import litellm

    assert run("http://127.0.0.1:9/v1", tmp_path / "dry", tmp_path / "cache", "--dry-run", judge="openai/gpt-4o-mini") == 0
    dry = capsys.readouterr().out
    requests = rendered(3)
    tokens = sum(litellm.token_counter(model="gpt-4o-mini", messages=r.messages) for r in requests)
    assert "litellm token_counter (gpt-4o-mini)" in dry
    assert figure(dry, r"input tokens: (\d+)") == tokens
    price_in, price_out = cost_map_prices("gpt-4o-mini", "openai")  # type: ignore[misc]
    cost = tokens * price_in + 6 * 64 * price_out
    assert f"estimated cost: ${cost:.4f}" in dry


def test_dry_run_without_max_tokens_uses_the_documented_default(tmp_path: Path, capsys) -> None:
    status = main(["run", "--tasks", "sciarena_eval", "--demo", "--limit", "2", "--judge", "openai/m",
                   "--judge-args", "api_base=http://127.0.0.1:9/v1", "--output-path", str(tmp_path / "o"), "--dry-run",
                   "--no-cache"])  # fmt: skip
    out = capsys.readouterr().out
    assert status == 0 and f"{4 * DEFAULT_OUTPUT_BUDGET} tokens (4 calls x {DEFAULT_OUTPUT_BUDGET}" in out


@pytest.mark.slow
def test_max_cost_stops_at_the_cap_with_partial_results(tmp_path: Path, capsys) -> None:
    price_in, price_out = cost_map_prices("gpt-4o-mini", "openai")  # type: ignore[misc]
    requests = rendered(10)
    # what each call costs: the server answers "[[A]]"/"[[B]]" (5 chars -> 5 // 4 + 1 = 2 tokens out);
    # what the cap reserves before each call: the prompt estimate plus the whole max_tokens=64 budget
    actual = [chars_tokens(r) * price_in + 2 * price_out for r in requests]
    estimate = [chars_tokens(r) * price_in + 64 * price_out for r in requests]
    cap = sum(actual[:5]) + estimate[5] - 1e-9  # call 6 no longer fits: exactly 5 calls are sent
    with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
        status = run(server.api_base, tmp_path / "run", tmp_path / "cache", "--concurrency", "1",
                     "--max-cost", repr(cap), judge="openai/gpt-4o-mini", limit=10)  # fmt: skip
        sent = server.stats().total
    err = capsys.readouterr().err
    assert status == 1 and sent == 5
    assert "run stopped early: max cost" in err and "5 calls sent" in err and "(partial results written)" in err
    assert "; 15 judgments not attempted (counted as failed; rerun" in err  # never sent: 5 calls for 20
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["config"]["partial"] is True
    assert results["counts"]["answered"] == 5 and results["counts"]["failed"] == 15
    assert results["usage"]["cost_usd"] <= cap
    assert abs(results["usage"]["cost_usd"] - sum(actual[:5])) < 1e-12


@pytest.mark.slow
def test_max_cost_with_an_unpriced_judge_is_refused_before_any_call(tmp_path: Path, capsys) -> None:
    with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
        status = run(server.api_base, tmp_path / "run", tmp_path / "cache", "--max-cost", "5")
        sent = server.stats().total
    err = capsys.readouterr().err
    assert status == 2 and sent == 0
    assert err.strip() == (
        "judgebench: error: --max-cost: judge openai/m is unpriced (not in litellm's cost map), "
        "so its spend cannot be estimated; give it a price (--judge-args input_cost_per_mtok=USD,output_cost_per_mtok=USD, "
        "or price: in its configuration) or leave --max-cost out"  # issue 29: the way to give a price is named
    )


def test_a_prompt_blind_to_the_dimension_is_warned_of_and_each_call_counted(tmp_path: Path, capsys) -> None:
    """Separate mode with a prompt that names no dimension (pairwise_confidence on ideation_arena_eval's five): every
    dimension is asked the same question, one call each. An audit saw the server log 40 calls where results.json's
    usage said 8 (its calls were told apart by prompt, which only joint mode's share); and no word warned of it."""
    with FakeOpenAIServer(Behaviour(answer="[[A]]\nConfidence: 70%")) as server:
        status = main(["run", "--tasks", "ideation_arena_eval", "--demo", "--limit", "2", "--judge", "openai/m",
                       "--judge-args", f"api_base={server.api_base},api_key=sk-t,max_tokens=64,input_cost_per_mtok=1,"
                       "output_cost_per_mtok=1", "--prompt", "pairwise_confidence", "--no-cache",
                       "--output-path", str(tmp_path / "o"), "--quiet"])  # fmt: skip
        sent = server.stats().total
    err = capsys.readouterr().err
    assert status == 0 and sent == 2 * 2 * 5  # examples x orders x dimensions
    assert "prompt pairwise_confidence does not name the dimension" in err and "5 dimensions" in err
    usage = json.loads((tmp_path / "o" / "results.json").read_text())["usage"]
    records = [json.loads(line) for line in (tmp_path / "o" / "samples.jsonl").read_text().splitlines()]
    assert usage["priced_calls"] == sent == len(records)
    assert usage["tokens_in"] == sum(r["tokens_in"] for r in records)
    assert usage["cost_usd"] == pytest.approx(sum(r["cost_usd"] for r in records))
    assert main(["run", "--tasks", "ideation_arena_eval", "--demo", "--limit", "1", "--judge", "builtin/longer",
                 "--output-path", str(tmp_path / "d"), "--quiet"]) == 0  # the task's own prompt names it: no warning
    assert "does not name the dimension" not in capsys.readouterr().err


@pytest.mark.parametrize("user, warned", [
    ("Q: {{ question }}\nWhich is better? [[A]] or [[B]]", "never shows {{ response_first }} or {{ response_second }}: "
                                                            "the judge is asked to judge them without seeing them"),
    ("Q: {{ question }}\nA: {{ response_first }}\n[[A]] or [[B]]", "never shows {{ response_second }}: the judge is "
                                                                 "asked to judge it without seeing it"),
    ("{% if false %}{{ response_first }}{% endif %}{{ response_second }}", None),  # read somewhere: not judged here
])
def test_a_prompt_that_never_shows_the_responses_is_warned_of_before_any_call(tmp_path: Path, capsys, user, warned) -> None:
    """A template edited so that it lost `{{ response_second }}` ran without a word: every verdict was a guess."""
    prompt = tmp_path / "p.yaml"
    prompt.write_text(f"name: edited\nuser: {json.dumps(user)}\n")
    assert main(["run", "--tasks", "sciarena_eval", "--demo", "--judge", "openai/m", "--judge-args",
                 "api_base=http://127.0.0.1:9/v1,api_key=sk-t,max_tokens=64", "--prompt", str(prompt),
                 "--output-path", str(tmp_path / "o"), "--dry-run"]) == 0
    err = capsys.readouterr().err
    assert (f"warning: prompt edited {warned}" in err) if warned else "never shows" not in err
    # a built-in judge never reads its prompt: nothing to warn of (an outside attack saw the warning for it)
    assert main(["run", "--tasks", "sciarena_eval", "--demo", "--judge", "builtin/longer", "--prompt", str(prompt),
                 "--output-path", str(tmp_path / "o"), "--dry-run"]) == 0
    assert "never shows" not in capsys.readouterr().err


def test_a_rubric_prompt_that_never_shows_the_response_is_warned_of(tmp_path: Path, capsys) -> None:
    prompt = tmp_path / "p.yaml"
    prompt.write_text("name: blind\nuser: 'Grade the answer to {{ question }} against {{ rubric }}'\n")
    with FakeOpenAIServer(Behaviour(answer="not a grade")) as server:
        main(["rubric", "run", "--task", "rubric_demo", "--judge", "openai/m", "--judge-args",
              f"api_base={server.api_base},api_key=sk-t", "--demo", "--limit", "1", "--prompt", str(prompt),
              "--output-path", str(tmp_path / "o"), "--max-retries", "0"])
    assert "warning: prompt blind never shows {{ response }}: the judge is asked to judge it" in capsys.readouterr().err
    assert main(["rubric", "run", "--task", "rubric_demo", "--judge", "builtin/full-credit", "--demo", "--prompt",
                 str(prompt), "--output-path", str(tmp_path / "o2")]) == 0  # a built-in judge reads no prompt
    assert "never shows" not in capsys.readouterr().err
