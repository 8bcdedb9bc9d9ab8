"""LiteLLMJudge against a real local OpenAI-compatible server, through both transports.

The litellm transport really goes through `litellm.acompletion` (no monkeypatching).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from openai_server import Behaviour, FakeOpenAIServer, judge_request, verdict_parses

from judgebench.errors import JudgebenchError
from judgebench.judges import make_judge
from judgebench.judges.base import JudgeCallError
from judgebench.judges.llm import LiteLLMJudge, convert_judge_args, cost_map_prices
from judgebench.records import JudgeReply
from judgebench.runner import RunnerOptions, run_requests

TRANSPORTS = ["direct", "litellm"]
SECRET = "sk-PLANTED-SECRET-123"


def call(judge: LiteLLMJudge, request=None) -> JudgeReply:  # type: ignore[no-untyped-def]
    async def go() -> JudgeReply:
        try:
            return await judge.judge(request or judge_request(0))
        finally:
            await judge.aclose()

    return asyncio.run(go())


def error_of(judge: LiteLLMJudge) -> JudgeCallError:
    with pytest.raises(JudgeCallError) as info:
        call(judge)
    return info.value


# -- arguments
def test_judge_args_are_converted_from_strings() -> None:
    args, headers = convert_judge_args(
        {
            "temperature": "0.7",
            "max_tokens": "256",
            "seed": "3",
            "top_p": "1",
            "drop_params": "true",
            "api_key": "12345",
            "api_base": "http://h/v1",
            "reasoning_effort": "low",
            "chat_template_kwargs": '{"enable_thinking": false}',
            "repetition_penalty": "1.05",
            "skip_special_tokens": "false",
            "stop": "END",
            "extra_headers.X-Title": "judgebench",
        }
    )
    assert args["temperature"] == 0.7 and args["max_tokens"] == 256 and args["seed"] == 3
    assert args["top_p"] == 1.0 and isinstance(args["top_p"], float)
    assert args["drop_params"] is True and args["skip_special_tokens"] is False
    assert args["api_key"] == "12345"  # secrets stay text
    assert args["chat_template_kwargs"] == {"enable_thinking": False}
    assert args["stop"] == "END" and args["reasoning_effort"] == "low"
    assert headers == {"X-Title": "judgebench"}


@pytest.mark.parametrize(
    "args, fragment",
    [
        ({"max_tokens": "many"}, "expected an integer"),
        ({"temperature": "hot"}, "expected a number"),
        ({"timeout": "5"}, "--timeout"),
        ({"num_retries": "2"}, "--max-retries"),
        ({"drop_params": "maybe"}, "true or false"),
        ({"transport": "carrier-pigeon"}, "transport"),
        ({"extra_headers": "not json"}, "JSON object"),
    ],
)
def test_bad_judge_args_are_one_line_errors(args: dict, fragment: str) -> None:
    with pytest.raises(JudgebenchError, match=fragment):
        LiteLLMJudge("openai/x", args)


def test_identity_and_public_args_hold_no_secrets() -> None:
    judge = make_judge(
        "openai/gpt-x",
        {
            "api_key": SECRET,
            "temperature": "0",
            "api_base": "http://127.0.0.1:9/v1",
            "aws_secret_access_key": "AWS-SECRET-1",
            "extra_headers.Authorization-Extra": "HDR-SECRET-1",
        },
    )
    assert isinstance(judge, LiteLLMJudge) and judge.cacheable
    text = json.dumps(judge.cache_identity()) + json.dumps(judge.public_args()) + repr(judge)
    for secret in (SECRET, "AWS-SECRET-1", "HDR-SECRET-1"):
        assert secret not in text
    assert judge.public_args()["temperature"] == 0
    assert judge.public_args()["extra_headers"] == {"Authorization-Extra": "<redacted>"}
    assert "api_key" not in judge.public_args()
    hot = LiteLLMJudge("openai/gpt-x", {"temperature": "0.5"})
    other = LiteLLMJudge("openai/gpt-y", {"temperature": "0"})
    assert len({json.dumps(j.cache_identity(), sort_keys=True) for j in (judge, hot, other)}) == 3
    with_user = LiteLLMJudge("openai/m", {"api_base": "http://bob:PASSWORD-1@host:8000/v1"})
    assert with_user.public_args()["api_base"] == "http://***@host:8000/v1"
    moved = LiteLLMJudge("openai/gpt-x", {"temperature": "0", "api_base": "http://other:8000/v1"})
    assert moved.cache_identity()["args"] == {"temperature": 0}


def test_transport_choice() -> None:
    assert LiteLLMJudge("openai/m", {"api_base": "http://h/v1"}).uses_direct_transport()
    assert LiteLLMJudge("hosted_vllm/Qwen/Qwen3-8B", {"api_base": "http://h/v1"}).uses_direct_transport()
    assert not LiteLLMJudge("openai/gpt-4.1", {}).uses_direct_transport()
    assert not LiteLLMJudge("anthropic/claude-x", {"api_base": "http://h"}).uses_direct_transport()
    assert not LiteLLMJudge("ollama/llama3", {"api_base": "http://h"}).uses_direct_transport()
    forced = LiteLLMJudge("openai/m", {"api_base": "http://h/v1", "transport": "litellm"})
    assert not forced.uses_direct_transport()
    assert forced.public_args()["transport"] == "litellm"


# -- one call through each transport
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_answer_tokens_latency_and_unpriced_cost(transport: str) -> None:
    with FakeOpenAIServer(Behaviour(latency_s=0.05, answer="[[B]]")) as server:
        judge = LiteLLMJudge(
            "openai/not-a-priced-model",
            {"api_base": server.api_base, "api_key": "sk-t", "temperature": "0", "max_tokens": "50", "transport": transport},
        )
        reply = call(judge)
        body_seen = server.stats().requests[0]
    assert reply.text == "[[B]]" and reply.error is None
    assert reply.tokens_in and reply.tokens_in > 0 and reply.tokens_out and reply.tokens_out > 0
    assert reply.cost_usd is None  # not in litellm's cost map: unknown, never 0
    assert 0.04 <= reply.latency_s < 5
    assert body_seen.model == "not-a-priced-model"


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_priced_model_gets_a_cost(transport: str) -> None:
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        judge = LiteLLMJudge(
            "openai/gpt-4o-mini", {"api_base": server.api_base, "api_key": "sk-t", "transport": transport}
        )
        reply = call(judge)
    prices = cost_map_prices("gpt-4o-mini", "openai")
    assert prices is not None
    assert reply.cost_usd == pytest.approx(reply.tokens_in * prices[0] + reply.tokens_out * prices[1])  # type: ignore[operator]
    assert reply.cost_usd > 0  # type: ignore[operator]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(
    "status, retryable",
    [(429, True), (500, True), (502, True), (503, True), (400, False), (401, False), (403, False), (404, False)],
)
def test_http_errors_become_judge_call_errors(transport: str, status: int, retryable: bool) -> None:
    with FakeOpenAIServer(Behaviour(status=status, retry_after_s=0.25)) as server:
        judge = LiteLLMJudge("openai/m", {"api_base": server.api_base, "api_key": "sk-t", "transport": transport})
        error = error_of(judge)
        seen = server.stats().total
    assert error.retryable is retryable
    assert seen == 1  # one attempt per call: litellm never retries behind the runner
    if status in (429, 503):
        assert error.retry_after_s == pytest.approx(0.25)
    if not retryable:
        assert getattr(error, "fatal", True) is True


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_connection_refused_is_retryable(transport: str) -> None:
    judge = LiteLLMJudge("openai/m", {"api_base": "http://127.0.0.1:9/v1", "api_key": "sk-t", "transport": transport})
    judge.timeout_s = 5
    assert error_of(judge).retryable


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_hang_is_a_retryable_timeout(transport: str) -> None:
    with FakeOpenAIServer(Behaviour(script=("hang",))) as server:
        judge = LiteLLMJudge("openai/m", {"api_base": server.api_base, "api_key": "sk-t", "transport": transport})
        judge.timeout_s = 0.5
        error = error_of(judge)
    assert error.retryable and "timed out" in str(error).lower()


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_key_only_in_authorization_header_and_scrubbed_from_errors(transport: str) -> None:
    with FakeOpenAIServer(Behaviour(status=401, echo_key_in_errors=True), watch_secrets=[SECRET]) as server:
        judge = LiteLLMJudge("openai/m", {"api_base": server.api_base, "api_key": SECRET, "transport": transport})
        error = error_of(judge)
        stats = server.stats()
    assert stats.leaks == []
    assert stats.requests[0].authorization == f"Bearer {SECRET}"
    assert SECRET not in str(error)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_runner_end_to_end_with_faults(tmp_path: Path, transport: str) -> None:
    requests = [judge_request(i) for i in range(12)]
    beh = Behaviour(latency_s=0.01, script=(429, 500), retry_after_s=0.01, answer="@hash")
    with FakeOpenAIServer(beh) as server:
        judge = LiteLLMJudge("openai/m", {"api_base": server.api_base, "api_key": "sk-t", "transport": transport})
        options = RunnerOptions(
            concurrency=4, timeout_s=5, backoff_base_s=0.01, backoff_max_s=0.02, cache_dir=tmp_path, progress=False
        )
        out = run_requests(requests, judge, options, verdict_parses)
        assert out.calls_made == 36 and out.stopped is None
        assert all(r is not None and r.text in ("[[A]]", "[[B]]") and r.attempts == 3 for r in out.replies)
        again = run_requests(requests, judge, options, verdict_parses)
        assert again.calls_made == 0 and server.stats().total == 36


def test_direct_transport_does_not_import_litellm() -> None:
    with FakeOpenAIServer() as server:
        code = (
            "import asyncio, sys\n"
            "from openai_server import judge_request\n"
            "from judgebench.judges import make_judge\n"
            f"j = make_judge('openai/m', {{'api_base': '{server.api_base}', 'api_key': 'k'}})\n"
            "async def go():\n"
            "    r = await j.judge(judge_request(0))\n"
            "    await j.aclose()\n"
            "    return r\n"
            "print(asyncio.run(go()).text, 'litellm' in sys.modules)\n"
        )
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["[[A]]", "False"]


def test_vllm_style_extra_args_reach_the_body() -> None:
    seen: list[dict] = []

    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        judge = LiteLLMJudge(
            "hosted_vllm/Qwen/Qwen3-8B",
            {"api_base": server.api_base, "top_k": "20", "chat_template_kwargs": '{"enable_thinking": false}'},
        )
        assert judge.uses_direct_transport()
        shape = judge._direct_shape()
        seen.append(shape["params"])
        call(judge)
        request = server.stats().requests[0]
    assert seen[0] == {"top_k": 20, "chat_template_kwargs": {"enable_thinking": False}}
    assert request.model == "Qwen/Qwen3-8B"
    assert request.authorization is None  # no key given: none sent


def test_litellm_transport_logs_no_key(capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("DEBUG")
    with FakeOpenAIServer(Behaviour(script=(500, 401), echo_key_in_errors=True)) as server:
        judge = LiteLLMJudge("openai/m", {"api_base": server.api_base, "api_key": SECRET, "transport": "litellm"})
        for _ in range(2):
            error_of(judge)
        reply = call(judge)
    assert reply.text == "[[A]]"
    captured = capfd.readouterr()
    assert SECRET not in captured.out and SECRET not in captured.err
    assert SECRET not in caplog.text
