"""LiteLLMJudge against a real local OpenAI-compatible server, through both transports.

The openai transport really goes through `openai.AsyncOpenAI(...).chat.completions.create`
and the litellm transport through `litellm.acompletion` (no monkeypatching).
"""

from __future__ import annotations

import re

import asyncio
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from openai_server import Behaviour, FakeOpenAIServer, judge_request, verdict_parses

from judgebench.calls import RunnerOptions, run_requests
from judgebench.core.errors import JudgebenchError
from judgebench.core.records import JudgeReply
from judgebench.judges import make_judge
from judgebench.judges.args import convert_judge_args
from judgebench.judges.base import JudgeCallError
from judgebench.judges.llm import LiteLLMJudge
from judgebench.judges.openai_transport import OPENAI_CLIENTS_PER_LOOP
from judgebench.judges.prices import cost_map_prices

TRANSPORTS = ["openai", "litellm"]
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
        ({"max_tokens": "-5"}, "max_tokens=-5: expected an integer >= 1"),  # (a walkthrough: sent to the provider)
        ({"n": 0}, "n=0: expected an integer >= 1"),
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
    assert LiteLLMJudge("openai/m", {"api_base": "http://h/v1"}).uses_openai_transport()
    assert LiteLLMJudge("hosted_vllm/Qwen/Qwen3-8B", {"api_base": "http://h/v1"}).uses_openai_transport()
    assert not LiteLLMJudge("openai/gpt-4.1", {}).uses_openai_transport()
    assert not LiteLLMJudge("anthropic/claude-x", {"api_base": "http://h"}).uses_openai_transport()
    assert not LiteLLMJudge("ollama/llama3", {"api_base": "http://h"}).uses_openai_transport()
    assert LiteLLMJudge("ollama/llama3", {"api_base": "http://h/v1", "transport": "openai"}).uses_openai_transport()
    forced = LiteLLMJudge("openai/m", {"api_base": "http://h/v1", "transport": "litellm"})
    assert not forced.uses_openai_transport()
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_openai_transport_does_not_import_litellm() -> None:
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
            "print(asyncio.run(go()).text, 'litellm' in sys.modules, 'openai' in sys.modules)\n"
        )
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["[[A]]", "False", "True"]


class CaptureServer:
    """A stdlib HTTP server that records each request's headers and JSON body and answers
    with a fixed status and body (the shared fake server logs only hashes of bodies)."""

    def __init__(self, status: int = 200, body: object = None, content_type: str = "application/json"):
        self.status, self.content_type = status, content_type
        self.body = body if body is not None else {
            "id": "c1",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "[[A]]"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
        }
        self.seen: list[tuple[dict[str, str], dict]] = []

    def __enter__(self) -> CaptureServer:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.seen.append(({k.lower(): v for k, v in self.headers.items()}, json.loads(raw)))
                payload = outer.body if isinstance(outer.body, bytes) else json.dumps(outer.body).encode()
                self.send_response(outer.status)
                self.send_header("Content-Type", outer.content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.api_base = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_vllm_style_extra_args_reach_the_body(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)  # an OpenAI key must not go to a vLLM server
    monkeypatch.delenv("HOSTED_VLLM_API_KEY", raising=False)
    with CaptureServer() as server:
        judge = LiteLLMJudge(
            "hosted_vllm/Qwen/Qwen3-8B",
            {
                "api_base": server.api_base,
                "temperature": "0",
                "max_tokens": "64",
                "top_k": "20",
                "min_p": "0.05",
                "chat_template_kwargs": '{"enable_thinking": false}',
                "extra_headers.X-Title": "judgebench",
                "drop_params": "true",
            },
        )
        assert judge.uses_openai_transport()
        reply = call(judge)
    assert reply.text == "[[A]]" and (reply.tokens_in, reply.tokens_out) == (10, 3)
    (headers, body), = server.seen
    # arguments the SDK knows and the ones it does not (through extra_body) land side by side
    assert body["model"] == "Qwen/Qwen3-8B" and body["messages"] == judge_request(0).messages
    assert body["temperature"] == 0 and body["max_tokens"] == 64
    assert body["top_k"] == 20 and body["min_p"] == 0.05
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert "drop_params" not in body and "api_base" not in body and "stream" not in body
    assert "authorization" not in headers  # no key given: none sent, $OPENAI_API_KEY neither
    assert SECRET not in json.dumps(headers) + json.dumps(body)
    assert headers["x-title"] == "judgebench"


def test_openai_transport_sends_the_provider_key_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOSTED_VLLM_API_KEY", "vllm-key-1")
    with CaptureServer() as server:
        call(LiteLLMJudge("hosted_vllm/m", {"api_base": server.api_base}))
    assert server.seen[0][0]["authorization"] == "Bearer vllm-key-1"


@pytest.mark.slow
@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(
    "error",
    [
        {
            "message": "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        },
        {
            "message": "The response was filtered due to the prompt triggering Azure OpenAI's content "
            "management policy.",
            "type": "invalid_request_error",
            "code": "content_filter",
        },
    ],
    ids=["context-length", "content-policy"],
)
def test_prompt_level_400_fails_the_call_not_the_run(transport: str, error: dict) -> None:
    with CaptureServer(status=400, body={"error": error}) as server:
        judge = LiteLLMJudge("openai/m", {"api_base": server.api_base, "api_key": "sk-t", "transport": transport})
        failure = error_of(judge)
    assert not failure.retryable
    assert getattr(failure, "fatal", True) is False
    assert len(server.seen) == 1


@pytest.mark.slow
@pytest.mark.parametrize(
    "body, content_type",
    [
        (b"<html>bad gateway page</html>", "text/html"),
        (b'{"choices": [{"mess', "application/json"),
        (b'{"object": "chat.completion", "choices": []}', "application/json"),
    ],
    ids=["html", "cut-off-json", "no-choices"],
)
def test_openai_transport_malformed_answer_is_retryable(body: bytes, content_type: str) -> None:
    with CaptureServer(body=body, content_type=content_type) as server:
        judge = LiteLLMJudge("openai/m", {"api_base": server.api_base, "api_key": "sk-t"})
        error = error_of(judge)
    assert error.retryable and "malformed" in str(error)


def test_openai_transport_reuses_its_clients_per_event_loop() -> None:
    with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
        judge = LiteLLMJudge("openai/m", {"api_base": server.api_base, "api_key": "sk-t"})

        async def go() -> list[object]:
            for i in range(10):
                await judge.judge(judge_request(i))
            (_, clients), = judge._clients.values()
            await judge.aclose()
            return list(clients)

        first = asyncio.run(go())
        assert len(first) == OPENAI_CLIENTS_PER_LOOP and judge._clients == {}
        assert all(c.is_closed() for c in first)  # type: ignore[attr-defined]
        second = asyncio.run(go())  # a new event loop gets its own clients
        assert not {id(c) for c in first} & {id(c) for c in second}
        assert server.stats().total == 20


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_transport_logs_no_key(
    transport: str, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("DEBUG")
    with FakeOpenAIServer(Behaviour(script=(500, 401), echo_key_in_errors=True)) as server:
        judge = LiteLLMJudge(
            "openai/m",
            {"api_base": server.api_base, "api_key": SECRET, "extra_headers.X-Key": "HDR-SECRET-1", "transport": transport},
        )
        errors = [error_of(judge) for _ in range(2)]
        reply = call(judge)
    assert reply.text == "[[A]]"
    assert [e.retryable for e in errors] == [True, False]
    captured = capfd.readouterr()
    # litellm's own DEBUG output prints extra header values (it redacts only known auth
    # headers), so header secrets are checked on the openai transport only
    secrets = (SECRET, "HDR-SECRET-1") if transport == "openai" else (SECRET,)
    for secret in secrets:
        assert secret not in captured.out and secret not in captured.err
        assert secret not in caplog.text
        assert all(secret not in str(e) for e in errors)


# -- secrets inside URLs (userinfo, query-string values)
URL_SECRETS = ("URLPASS-1", "TOK-SECRET-7", "SIG-SECRET-8")


def test_redact_url_masks_userinfo_and_query_values() -> None:
    from judgebench.core.secrets import redact_url

    url = "https://bob:URLPASS-1@proxy.example/v1?token=TOK-SECRET-7&sig=SIG-SECRET-8&flag"
    assert redact_url(url) == "https://***@proxy.example/v1?token=***&sig=***&flag"
    assert redact_url(f"error calling {url}: refused") == (
        "error calling https://***@proxy.example/v1?token=***&sig=***&flag: refused"
    )
    assert redact_url("http://h:8000/v1") == "http://h:8000/v1"
    assert redact_url("http://h?key=abc#frag") == "http://h?key=***#frag"
    assert redact_url("no url, key=value") == "no url, key=value"


def test_url_secrets_stay_out_of_public_args_identity_and_errors() -> None:
    base = "http://bob:URLPASS-1@127.0.0.1:9/v1?token=TOK-SECRET-7&sig=SIG-SECRET-8"
    judge = LiteLLMJudge(
        "openai/m", {"api_base": base, "callback_url": "https://h/cb?secret=SIG-SECRET-8", "transport": "openai"}
    )
    judge.timeout_s = 5
    public = json.dumps(judge.public_args())
    assert judge.public_args()["api_base"] == "http://***@127.0.0.1:9/v1?token=***&sig=***"
    error = error_of(judge)  # connection refused: the message names the endpoint
    text = public + json.dumps(judge.cache_identity()) + repr(judge) + str(error)
    for secret in URL_SECRETS:
        assert secret not in text, secret
    assert judge.scrub(f"GET {base} failed; token TOK-SECRET-7") == (
        "GET http://***@127.0.0.1:9/v1?token=***&sig=*** failed; token ***"
    )
    # credential-shaped text the run does not know (a proxy echoing another header): masked too (an outside audit:
    # the transports' own scrub kept hf_, ghp_ and Bearer tokens)
    echoed = judge.scrub("401: Authorization: Bearer qwertyuiop12 rejected; hf_abcdefghij ghp_abcdefghij key-abcdef0123")
    assert echoed == "401: Authorization: *** rejected; *** *** ***"


def test_signed_api_base_keeps_its_query_on_the_openai_transport() -> None:
    """A query-string api_base (a signed proxy URL) reaches the server as a query, the
    answer comes back, and nothing reported holds the query values."""
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        base = f"{server.api_base}?token=TOK-SECRET-7&sig=SIG-SECRET-8"
        judge = LiteLLMJudge("openai/m", {"api_base": base, "api_key": "sk-t"})
        assert call(judge).text == "[[A]]"
        assert server.stats().answered() == 1


# -- credentials and authentication
def test_preflight_names_the_missing_credential_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(JudgebenchError, match="OPENAI_API_KEY"):
        LiteLLMJudge("openai/gpt-4o", {}).preflight()
    with pytest.raises(JudgebenchError, match="ANTHROPIC_API_KEY"):
        make_judge("anthropic/claude-x", {}).preflight()
    LiteLLMJudge("openai/gpt-4o", {"api_key": "sk-given"}).preflight()  # explicit key
    LiteLLMJudge("openai/m", {"api_base": "http://127.0.0.1:9/v1"}).preflight()  # self-hosted
    LiteLLMJudge("hosted_vllm/m", {"api_base": "http://127.0.0.1:9/v1"}).preflight()
    monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
    LiteLLMJudge("bedrock/anthropic.claude-x", {}).preflight()  # may use a profile or a role
    LiteLLMJudge("ollama/llama3", {}).preflight()  # local, no key
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    LiteLLMJudge("openai/gpt-4o", {}).preflight()


def test_preflight_refuses_a_self_hosted_endpoint_without_its_address(monkeypatch: pytest.MonkeyPatch) -> None:
    """hosted_vllm/openai_like/custom_openai and transport=openai have no default address: without api_base litellm
    sent hosted_vllm's calls to api.openai.com and retried each 6 times (55 s for 2 examples here)."""
    for variable in ("HOSTED_VLLM_API_BASE", "OPENAI_LIKE_API_BASE"):
        monkeypatch.delenv(variable, raising=False)
    for model, hint in (("hosted_vllm/m", "(or set HOSTED_VLLM_API_BASE)"), ("openai_like/m", "(or set OPENAI_LIKE_API_BASE)"),
                        ("custom_openai/m", "api_base=http://HOST:PORT/v1")):
        with pytest.raises(JudgebenchError, match=re.escape(f"judge {model}: a self-hosted endpoint")) as caught:
            LiteLLMJudge(model, {"api_key": "sk-t"}).preflight()
        assert str(caught.value).endswith(hint)
    with pytest.raises(JudgebenchError, match="transport=openai needs the endpoint's address"):
        LiteLLMJudge("openai/gpt-4o", {"transport": "openai", "api_key": "sk-t"}).preflight()
    monkeypatch.setenv("HOSTED_VLLM_API_BASE", "http://127.0.0.1:9/v1")  # litellm reads it
    LiteLLMJudge("hosted_vllm/m", {}).preflight()


def test_preflight_refuses_azure_without_its_address(monkeypatch: pytest.MonkeyPatch) -> None:
    """An outside attack: `azure/x` with nothing set ran 4.5 s and wrote a run of failed calls."""
    monkeypatch.delenv("AZURE_API_BASE", raising=False)
    with pytest.raises(JudgebenchError, match=re.escape("judge azure/x: the provider (azure) has no default address: "
                                                        "--judge-args api_base=https://NAME.openai.azure.com (or set AZURE_API_BASE)")):
        LiteLLMJudge("azure/x", {"api_key": "k"}).preflight()
    LiteLLMJudge("azure/x", {"api_key": "k", "api_base": "https://n.openai.azure.com"}).preflight()
    monkeypatch.setenv("AZURE_API_BASE", "https://n.openai.azure.com")
    LiteLLMJudge("azure/x", {}).preflight()  # a key or an Entra ID token: litellm's to find


def test_a_host_name_dns_does_not_know_stops_the_run_instead_of_being_retried() -> None:
    """A misspelt api_base host (EAI_NONAME) fails every attempt: permanent on both transports; a temporary
    resolver failure (EAI_AGAIN) is retried, and marked as no answer (calls/live.py counts those); an HTTP error
    whose body names the resolver came from an endpoint that is there: retried, not a missing host. Built from the
    libraries' own exception types (no lookup)."""
    import httpx
    import openai

    from judgebench.judges.providers import import_litellm

    litellm = import_litellm()  # with the local cost map (a plain import fetches it from the network)
    judge = LiteLLMJudge("openai/m", {"api_base": "http://no-such-host.example:8000/v1", "api_key": "sk-t"})
    for reason, missing in (("Name or service not known", True), ("Temporary failure in name resolution", False)):
        exc = openai.APIConnectionError(request=httpx.Request("POST", "http://no-such-host.example:8000/v1"))
        exc.__cause__ = httpx.ConnectError(f"[Errno -2] {reason}")
        direct = judge._openai_transport().classify(exc, 5.0)
        wrapped = litellm.InternalServerError(message="Cannot connect to host no-such-host.example:8000",
                                              llm_provider="hosted_vllm", model="m")
        wrapped.__context__ = httpx.ConnectError(f"Cannot connect to host no-such-host.example:8000 [{reason}]")
        for error in (direct, judge.classify_error(wrapped)):
            assert (error.retryable, error.fatal, error.unreachable) == (not missing, True, not missing), reason
            assert str(error).startswith("the endpoint's host name was not found (a misspelt api_base or proxy "
                                         "host, or no DNS here): ") is missing
    upstream = litellm.InternalServerError(message="upstream connect error: [Errno -2] Name or service not known",
                                           llm_provider="openai", model="m")  # an HTTP 5xx from a proxy that is up
    error = judge.classify_error(upstream)
    assert (error.retryable, error.unreachable) == (True, False)


def test_an_unknown_host_deep_in_the_chain_stops_the_run() -> None:
    """openai/* with no DNS: litellm's APIConnectionError wraps openai's "Connection error.", which wraps httpx's
    ConnectError, raised while handling the resolver's gaierror. Only the outermost no-answer error was read, so the
    run retried for half a minute; the root cause now rides along and is recognised."""
    import socket

    import httpx
    import openai

    from judgebench.judges.providers import import_litellm

    litellm = import_litellm()
    judge = LiteLLMJudge("openai/m", {"api_key": "sk-t"})
    resolver = socket.gaierror(-2, "Name or service not known")
    connect = httpx.ConnectError("")
    connect.__context__ = resolver
    inner = openai.APIConnectionError(request=httpx.Request("POST", "https://api.openai.com/v1"))
    inner.__cause__ = connect
    outer = litellm.APIConnectionError(message="OpenAIException - Connection error.", llm_provider="openai", model="m")
    outer.__cause__ = inner
    direct = LiteLLMJudge("openai/m", {"api_key": "sk-t", "api_base": "https://api.openai.com/v1"})
    for exc in (outer, inner):
        error = judge.classify_error(exc) if exc is outer else direct._openai_transport().classify(exc, 5.0)
        assert not error.retryable and error.fatal, str(error)
        assert str(error).startswith("the endpoint's host name was not found") and "Name or service not known" in str(error)


def test_missing_credentials_is_permanent_not_retried(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """litellm reports a missing key as an InternalServerError (500): never retried."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeOpenAIServer() as server:
        judge = LiteLLMJudge("openai/m", {"api_base": server.api_base, "transport": "litellm"})
        error = error_of(judge)
        assert not error.retryable and error.fatal and "credentials" in str(error).lower()
        options = RunnerOptions(max_retries=5, backoff_base_s=0.01, cache_dir=tmp_path, progress=False)
        out = run_requests([judge_request(i) for i in range(20)], judge, options, verdict_parses)
        assert server.stats().total == 0
    assert out.stopped is not None and "authentication failed" in out.stopped
    assert out.calls_made <= options.concurrency  # stopped at once, no retries


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(
    "status, message",
    [(401, None), (403, None), (500, "Missing credentials. Please pass an `api_key`")],
)
def test_auth_errors_stop_the_run_without_retries(
    tmp_path: Path, transport: str, status: int, message: str | None
) -> None:
    beh = Behaviour(status=status, error_message=message, latency_s=0.01)
    with FakeOpenAIServer(beh) as server:
        judge = LiteLLMJudge("openai/m", {"api_base": server.api_base, "api_key": "sk-t", "transport": transport})
        options = RunnerOptions(concurrency=2, max_retries=5, backoff_base_s=0.01, cache_dir=tmp_path, progress=False)
        out = run_requests([judge_request(i) for i in range(30)], judge, options, verdict_parses)
        seen = server.stats().total
    assert out.stopped is not None and "authentication failed" in out.stopped
    assert seen <= 2 and out.calls_made == seen  # the calls in flight, never a retry


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_signed_api_base_stays_out_of_debug_logs(
    transport: str, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("DEBUG")
    with FakeOpenAIServer(Behaviour(script=(500,))) as server:
        base = server.api_base + "?token=TOK-SECRET-7&sig=SIG-SECRET-8"
        if transport == "openai":  # (httpx refuses userinfo next to a bearer key on litellm's client)
            base = base.replace("//", "//bob:URLPASS-1@")
        judge = LiteLLMJudge("openai/m", {"api_base": base, "api_key": "sk-t", "transport": transport})
        error = error_of(judge)  # the scripted 500 (litellm: a 404, it appends paths after the query)
        if transport == "openai":  # the query travels as a query: answered
            assert error.retryable and call(judge).text is not None
    captured = capfd.readouterr()
    assert "127.0.0.1" in caplog.text  # the requests were logged, redacted
    for secret in URL_SECRETS:
        assert secret not in caplog.text, secret
        assert secret not in captured.out + captured.err, secret
        assert secret not in str(error)


def test_litellm_cost_is_read_from_the_response_when_litellm_priced_it() -> None:
    from types import SimpleNamespace

    from judgebench.judges.litellm_transport import _cost

    def completion_cost(completion_response: object) -> float:
        if getattr(completion_response, "unpriceable", False):
            raise ValueError("model not in the cost map")
        return 0.5

    litellm = SimpleNamespace(completion_cost=completion_cost)
    assert _cost(litellm, SimpleNamespace(_hidden_params={"response_cost": 0.25})) == 0.25
    assert _cost(litellm, SimpleNamespace(_hidden_params={"response_cost": None})) is None  # unknown, not 0
    assert _cost(litellm, SimpleNamespace(_hidden_params={})) == 0.5  # not priced by litellm yet: priced here
    assert _cost(litellm, SimpleNamespace(unpriceable=True)) is None


def test_ordinary_arguments_with_a_secrets_word_are_sent_typed_and_shown_and_secret_ones_are_sent() -> None:
    """An outside attack: `stop_token_ids=[1]` (a word `token`) was taken for a secret: left out of results.json,
    the configuration hash and the cache key (a run with [2] got [1]'s answers) and, on the openai transport, not
    sent at all, as no secret-named argument was (litellm sent them, as text)."""
    import http.server
    import threading

    bodies: list[dict] = []

    class Capture(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            answer = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "[[A]]"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Capture)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/v1"
        judge = LiteLLMJudge("openai/m", {"api_base": base, "stop_token_ids": "[1, 2]", "x_api_key_2": "SECRET-VALUE-9",
                                          "prompt_cache_key": "run-a"})
        assert call(judge).text == "[[A]]"
    finally:
        server.shutdown()
    assert bodies[0]["stop_token_ids"] == [1, 2] and bodies[0]["prompt_cache_key"] == "run-a"
    assert bodies[0]["x_api_key_2"] == "SECRET-VALUE-9"  # sent with the call ...
    public = judge.public_args()
    assert public["stop_token_ids"] == [1, 2] and "x_api_key_2" not in public  # ... and nowhere else
    assert "SECRET-VALUE-9" not in json.dumps(judge.cache_identity())
    other = LiteLLMJudge("openai/m", {"api_base": base, "stop_token_ids": "[3]", "x_api_key_2": "SECRET-VALUE-9"})
    assert other.cache_identity() != judge.cache_identity()


def test_a_schema_property_named_like_a_secret_is_data_not_a_secret() -> None:
    """A third attack: two response_format schemas differing only in a property named `key` had one cache
    identity and one configuration hash (the property's value was redacted); a secret in extra_body still is."""
    def schema(prop: str) -> str:
        return ('{"type":"json_schema","json_schema":{"name":"v","schema":{"type":"object","properties":{"%s":'
                '{"type":"string"}}}}}' % prop)

    base = {"api_base": "http://127.0.0.1:9/v1", "extra_body": '{"token": "NESTED-SECRET-1", "top_k": 5}'}
    with_key = LiteLLMJudge("openai/m", {**base, "response_format": schema("key")})
    with_verdict = LiteLLMJudge("openai/m", {**base, "response_format": schema("verdict")})
    public = with_key.public_args()
    assert public["response_format"]["json_schema"]["schema"]["properties"] == {"key": {"type": "string"}}
    assert public["extra_body"] == {"token": "<redacted>", "top_k": 5}
    assert with_key.cache_identity() != with_verdict.cache_identity()
    assert "NESTED-SECRET-1" not in json.dumps(with_key.cache_identity())


def test_a_judge_argument_one_letter_off_a_known_one_is_warned_of(tmp_path, capsys):
    """A walkthrough: `--judge-args temprature=0` was taken silently: sent to the provider as it is (any name may be:
    vLLM's own), recorded, in the cache key, and the temperature not set. A close miss is now said before any call;
    names far from every known one (a provider's own) pass without a word."""
    from judgebench.cli.main import main
    from judgebench.judges.args import near_misses

    assert near_misses({"temprature": "0", "max_token": "5", "chat_template_kwargs": "{}", "top_k": "3",
                        "min_tokens": "1", "top_a": "0.1",  # vLLM's and OpenRouter's own: not warned of (an attack)
                        "api_key": "x", "extra_headers.X-Key": "y"}) == [
        "--judge-args temprature: not an argument judgebench knows; did you mean temperature? (sent to the provider as given)",
        "--judge-args max_token: not an argument judgebench knows; did you mean max_tokens? (sent to the provider as given)"]
    assert main(["run", "--tasks", "sciarena_eval", "--demo", "--limit", "1", "--judge", "openai/m", "--judge-args",
                 "temprature=0,api_key=x,api_base=http://127.0.0.1:9/v1,transport=openai", "--max-retries", "0",
                 "--dry-run", "--output-path", str(tmp_path / "o")]) == 0
    assert "--judge-args temprature: not an argument judgebench knows; did you mean temperature?" in capsys.readouterr().err
    main(["rubric", "run", "--task", "rubric_demo", "--judge", "openai/m", "--judge-args",  # rubric run says it too
          "temprature=0,api_key=x,api_base=http://127.0.0.1:9/v1", "--demo", "--limit", "1", "--max-retries", "0",
          "--timeout", "1", "--output-path", str(tmp_path / "r")])
    assert "--judge-args temprature: not an argument judgebench knows" in capsys.readouterr().err


def test_a_malformed_answer_quoting_the_key_past_its_cut_keeps_no_part_of_it() -> None:
    """An outside attack: a 200 answer without choices, its text quoting the key at character ~200, was cut to 200
    characters before the scrub, so the key's start (15 of 21 characters) was no longer the whole key and was
    stored. Scrubbed whole, then cut; echoes of the key's start, cased or masked, go too."""
    key = "LocalKey0123456789XYZ"
    body = {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [], "zz": "p" * 10 + key}
    with CaptureServer(body=body) as server:
        judge = LiteLLMJudge("openai/m", {"api_base": server.api_base, "api_key": key, "transport": "openai"})
        judge.timeout_s = 5
        error = str(error_of(judge))
    assert "malformed response" in error and key[:8] not in error and "***" in error
    for echo in ("invalid key LOCALKEY0123456789XYZ", "provided: LocalKey********9XYZ", "key LocalKey01..."):
        assert key[:8].lower() not in judge.scrub(echo).lower(), echo


@pytest.mark.parametrize("name", ["api_kye", "apikye", "api_keu", "API_KYE", "access_tokn", "api-kye", "openai_api_kye",
                                  "x-api-kye", "passwrd", "client_secrt", "hf_tokn", "secert", "azure_kye",
                                  "vertex_credentails", "authorisation", "passphrse"])
def test_a_misspelt_secret_argument_is_refused_before_its_value_is_recorded(name: str, tmp_path: Path, capsys) -> None:
    """An outside attack: `api_kye=Xq7LocalKey...` was warned of, then sent as a generation argument and written in
    clear to results.json and every leaderboard file (`apikye` not even warned of)."""
    from judgebench.cli.main import main

    with pytest.raises(JudgebenchError, match=rf"^--judge-args {name}: not an argument judgebench knows; a misspelt "
                                             r"(api_key|token|secret|password|key|credentials?|authorization|passphrase)\? \(refused"):
        make_judge("openai/m", {"api_base": "http://127.0.0.1:9/v1", name: "Xq7LocalKey0123456789abcdef"})
    out = tmp_path / "run"
    code = main(["run", "--tasks", "sciarena_eval", "--demo", "--judge", "openai/m", "--judge-args",
                 f"api_base=http://127.0.0.1:9/v1,{name}=Xq7LocalKey0123456789abcdef", "--output-path", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Xq7LocalKey" not in err and not out.exists()
    # names far from a secret's stay arguments, and litellm's own (a second attack: the first rule, nearest name
    # alone, refused bedrock's aws_session_name as aws_session_token and eos_token as access_token)
    for fine in ("api_type", "top_k", "api_version", "aws_session_name", "eos_token", "max_new_tokens", "tokenizer"):
        make_judge("openai/m", {"api_base": "http://127.0.0.1:9/v1", fine: "1"})


@pytest.mark.parametrize("transport", ["openai", "litellm"])
def test_an_endpoint_answering_no_chat_completion_stops_the_run(tmp_path: Path, transport: str) -> None:
    """An outside attack: an api_base that answers 200 with a web page (not a chat API) was retried on every call to
    the end (96 x 6 attempts, 131 s on the demo; about an hour on a 2,000-example task). Such an answer is no answer:
    the run stops as for an endpoint that is not there (calls/live.py, UNREACHABLE_AFTER)."""
    from judgebench.calls.options import UNREACHABLE_AFTER

    with CaptureServer(body=b"<html><body>Welcome to nginx!</body></html>", content_type="text/html") as server:
        judge = LiteLLMJudge("openai/judge-x", {"api_base": server.api_base, "api_key": "sk-test", "transport": transport})
        options = RunnerOptions(concurrency=1, max_retries=0, cache_dir=tmp_path, progress=False)
        out = run_requests([judge_request(i) for i in range(40)], judge, options, verdict_parses)
    assert (out.stopped or "").startswith(f"{UNREACHABLE_AFTER} calls got no answer from the endpoint"), out.stopped
    assert sum(r is not None for r in out.replies) == UNREACHABLE_AFTER


@pytest.mark.parametrize("key", ["sk-abc\n", " sk-abc", "sk-a\tbc", "sk-é123", "sk-\x7fabc"])
def test_a_key_no_http_header_can_carry_is_refused_before_any_call(monkeypatch: pytest.MonkeyPatch, key: str) -> None:
    """A key pasted with its line feed failed every attempt as a connection error (6 tries, 40 s) and was echoed."""
    monkeypatch.setenv("OPENAI_API_KEY", key)
    with pytest.raises(JudgebenchError, match="the key in OPENAI_API_KEY has a space or line break") as caught:
        LiteLLMJudge("openai/m", {"api_base": "http://127.0.0.1:9/v1"}).preflight()
    assert "sk-" not in str(caught.value)
    with pytest.raises(JudgebenchError, match="the key in --judge-args api_key"):
        LiteLLMJudge("openai/m", {"api_key": key}).preflight()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fine")
    LiteLLMJudge("openai/m", {}).preflight()


def test_the_key_check_reads_only_the_variable_the_call_sends(monkeypatch: pytest.MonkeyPatch) -> None:
    """azure reads AZURE_OPENAI_API_KEY first (or sends an AD token): a stale AZURE_API_KEY refused a working setup."""
    monkeypatch.setenv("AZURE_API_KEY", "old \n")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "good-key")
    LiteLLMJudge("azure/dep", {"api_base": "https://n.openai.azure.com", "api_version": "2024-06-01"}).preflight()


@pytest.mark.parametrize("provider, variable", [("hosted_vllm", "HOSTED_VLLM_API_KEY"), ("cohere", "COHERE_API_KEY"),
                                                ("azure", "AZURE_API_KEY")])
def test_every_providers_key_variable_is_checked(monkeypatch: pytest.MonkeyPatch, provider: str, variable: str) -> None:
    """The Azure mend first read the environment for eight providers only: hosted_vllm's, cohere's and azure's keys
    with a line feed were sent again, every attempt failing as a connection error."""
    monkeypatch.delenv("AZURE_OPENAI_API_KEY", raising=False)
    monkeypatch.setenv(variable, "sk-good\n")
    with pytest.raises(JudgebenchError, match=f"the key in {variable} has a space or line break"):
        LiteLLMJudge(f"{provider}/m", {"api_base": "http://127.0.0.1:9/v1"}).preflight()
    LiteLLMJudge(f"{provider}/m", {"api_base": "http://127.0.0.1:9/v1", "azure_ad_token": "t"}).preflight()  # sent instead
