"""Reasoning judges (issue 13 §4) against the local OpenAI-compatible server: finish_reason, reasoning
text and tokens, the served snapshot, truncated answers, reasoning arguments in the cache key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openai_server import Behaviour, FakeOpenAIServer, judge_once

from judgebench.calls.cache import cache_key
from judgebench.cli.main import main
from judgebench.core.records import JudgeReply, JudgmentRecord
from judgebench.judges.llm import LiteLLMJudge
from judgebench.judges.reasoning import is_truncated, response_details
from judgebench.scoring.score import rescore_run

THOUGHT = "Let me weigh both. Response B looks better at first: [[B]]. On reflection, A."


call = judge_once  # one call, clients closed after (openai_server.judge_once)


@pytest.mark.parametrize("transport", ["openai", "litellm"])
def test_both_transports_record_finish_reason_reasoning_and_served_model(transport: str) -> None:
    beh = Behaviour(answer="[[A]]", finish_reason="length", reasoning_content=THOUGHT, served_models=((0, "m-2025-03-01"),))
    with FakeOpenAIServer(beh) as server:
        judge = LiteLLMJudge("openai/m", {"api_base": server.api_base, "api_key": "sk-t", "transport": transport})
        reply = call(judge)
    assert reply.text == "[[A]]"  # the answer alone: the reasoning text is kept apart
    assert reply.reasoning == THOUGHT
    assert reply.reasoning_tokens == len(THOUGHT) // 4 + 1  # the server reports len // 4 + 1 = 19
    assert reply.finish_reason == "length"
    assert reply.served_model == "m-2025-03-01"
    assert is_truncated(reply)


def test_details_from_a_batch_line_body_and_anthropic_thinking_blocks() -> None:
    body = {
        "model": "claude-x-20250101",
        "choices": [
            {
                "finish_reason": "stop",
                "message": {"content": "[[A]]", "thinking_blocks": [{"type": "thinking", "thinking": "first"}, {"thinking": "second"}]},
            }
        ],
        "usage": {"completion_tokens_details": {"reasoning_tokens": 7}},
    }
    assert response_details(body) == {
        "finish_reason": "stop",
        "reasoning": "first\n\nsecond",
        "reasoning_tokens": 7,
        "served_model": "claude-x-20250101",
        "top_logprobs": None,  # no logprobs in the body (issue 34)
    }
    assert response_details({}) == {"finish_reason": None, "reasoning": None, "reasoning_tokens": None, "served_model": None,
                                      "top_logprobs": None}


@pytest.mark.parametrize(
    "reply, truncated",
    [
        (JudgeReply(text="[[A]]", finish_reason="length"), True),
        (JudgeReply(text="[[A]]", finish_reason="max_tokens"), True),
        (JudgeReply(text="  ", reasoning="long thought"), True),  # reasoning used the whole budget
        (JudgeReply(text="", reasoning_tokens=512), True),
        (JudgeReply(text="", finish_reason="stop"), False),  # empty, no reasoning: just an invalid answer
        (JudgeReply(text="[[A]]", finish_reason="stop", reasoning="x"), False),
        (JudgeReply(error="boom"), False),
    ],
)
def test_truncation_rule(reply: JudgeReply, truncated: bool) -> None:
    assert is_truncated(reply) is truncated


def run_cli(server: FakeOpenAIServer, out: Path, cache: Path, *extra: str, limit: int = 3) -> int:
    return main(
        [
            "run", "--tasks", "sciarena_eval", "--demo", "--limit", str(limit), "--judge", "openai/m",
            "--judge-args", f"api_base={server.api_base},api_key=sk-t,max_tokens=64",
            "--output-path", str(out), "--cache-dir", str(cache), "--quiet", "--max-retries", "0", *extra,
        ]
    )  # fmt: skip


def samples(run_dir: Path) -> list[JudgmentRecord]:
    lines = (run_dir / "samples.jsonl").read_text().splitlines()
    return [JudgmentRecord.model_validate_json(line) for line in lines]


@pytest.mark.slow
def test_length_limited_server_gives_truncated_invalid_judgments_with_the_fix(tmp_path: Path, capsys) -> None:
    with FakeOpenAIServer(Behaviour(answer="[[A]] because response A", finish_reason="length")) as server:
        status = run_cli(server, tmp_path / "run", tmp_path / "cache")
    out, err = capsys.readouterr()
    assert status == 1  # nothing answered
    records = samples(tmp_path / "run")
    assert len(records) == 6  # 3 examples x 2 orders
    assert all(r.status == "INVALID" and r.invalid_reason == "truncated" and r.verdict is None for r in records)
    assert all(r.raw == "[[A]] because response A" and r.finish_reason == "length" for r in records)
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["counts"]["invalid"] == 6 and results["counts"]["truncated"] == 6
    assert "truncated 6 of 6 invalid" in out and "raise max_tokens" in out
    # the exit line names the cause (it said "6 x invalid answer: '[[A]] because response A'")
    assert "no judgment was answered; most common causes: 6 x invalid answer: truncated by the token cap" in err
    # re-scoring keeps a cut-off answer INVALID although its text begins with a verdict
    assert rescore_run(tmp_path / "run").counts.truncated == 6


@pytest.mark.slow
def test_reasoning_text_is_recorded_apart_and_never_parsed(tmp_path: Path) -> None:
    with FakeOpenAIServer(Behaviour(answer="[[A]]", reasoning_content=THOUGHT)) as server:
        assert run_cli(server, tmp_path / "run", tmp_path / "cache") == 0
    records = samples(tmp_path / "run")
    assert {r.verdict_shown for r in records} == {"A"}  # the [[B]] inside the reasoning is ignored
    assert all(r.reasoning == THOUGHT and r.raw == "[[A]]" and r.status == "ANSWERED" for r in records)
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["usage"]["reasoning_tokens"] == 6 * (len(THOUGHT) // 4 + 1)  # 6 calls x 19


@pytest.mark.slow
def test_a_served_model_change_mid_run_is_reported(tmp_path: Path, capsys) -> None:
    beh = Behaviour(answer="@hash", served_models=((0, "m-0301"), (4, "m-0612")))
    with FakeOpenAIServer(beh) as server:
        status = run_cli(server, tmp_path / "run", tmp_path / "cache", "--concurrency", "1")
    out, _ = capsys.readouterr()
    assert status == 0
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["usage"]["served_models"] == {"m-0301": 4, "m-0612": 2}  # 6 calls, the change after 4
    assert "served model snapshot changed mid-run: m-0301 (4 calls), m-0612 (2 calls)" in out
    assert sorted({r.served_model for r in samples(tmp_path / "run")}) == ["m-0301", "m-0612"]


@pytest.mark.slow
def test_one_snapshot_is_not_reported_as_a_change(tmp_path: Path, capsys) -> None:
    with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
        assert run_cli(server, tmp_path / "run", tmp_path / "cache") == 0
    out, _ = capsys.readouterr()
    assert "changed mid-run" not in out
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["usage"]["served_models"] == {"m": 6}  # the server echoes the requested model


def test_reasoning_arguments_are_typed_recorded_and_in_the_cache_key() -> None:
    base = {"api_base": "http://127.0.0.1:9/v1"}
    plain = LiteLLMJudge("anthropic/claude-x", base)
    effort = LiteLLMJudge("anthropic/claude-x", {**base, "reasoning_effort": "High"})
    budget = LiteLLMJudge("anthropic/claude-x", {**base, "thinking_budget": "2048"})
    same = LiteLLMJudge("anthropic/claude-x", {**base, "thinking": '{"type": "enabled", "budget_tokens": 2048}'})
    keys = {cache_key(j.cache_identity(), "h") for j in (plain, effort, budget)}
    assert len(keys) == 3
    assert cache_key(budget.cache_identity(), "h") == cache_key(same.cache_identity(), "h")
    assert effort.public_args()["reasoning_effort"] == "high"
    assert budget.public_args()["thinking"] == {"type": "enabled", "budget_tokens": 2048}


@pytest.mark.parametrize(
    "args, fragment",
    [
        ("reasoning_effort=max", "reasoning_effort='max': expected one of none, minimal, low, medium, high"),
        ("thinking_budget=lots", "thinking_budget='lots': expected an integer"),
        ("thinking_budget=0", "budget_tokens must be an integer >= 1, got 0"),
        ('thinking=[1]', "thinking: expected a JSON object"),
        ("thinking_budget=10,thinking={}", "thinking is given twice"),
    ],
)
def test_bad_reasoning_arguments_are_one_line_errors(tmp_path: Path, capsys, args: str, fragment: str) -> None:
    status = main(["run", "--tasks", "sciarena_eval", "--demo", "--judge", "anthropic/claude-x", "--judge-args", args,
                   "--output-path", str(tmp_path / "run")])  # fmt: skip
    err = capsys.readouterr().err
    assert status == 2 and fragment in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_the_batch_path_records_the_same_reasoning_fields(tmp_path: Path, capsys) -> None:
    beh = Behaviour(answer="[[A]] but", finish_reason="length", reasoning_content=THOUGHT,
                    served_models=((0, "m-batch-0301"),), batch_delay_s=0.05)  # fmt: skip
    with FakeOpenAIServer(beh) as server:
        status = run_cli(server, tmp_path / "run", tmp_path / "cache", "--batch", "--batch-poll-s", "0.02")
    out, _ = capsys.readouterr()
    assert status == 1  # every answer cut off: nothing answered
    records = samples(tmp_path / "run")
    assert len(records) == 6 and all(r.invalid_reason == "truncated" and r.status == "INVALID" for r in records)
    assert all(r.reasoning == THOUGHT and r.served_model == "m-batch-0301" and r.finish_reason == "length" for r in records)
    assert all(r.reasoning_tokens == len(THOUGHT) // 4 + 1 for r in records)
    assert "truncated 6 of 6 invalid" in out
