"""The runner against a real local OpenAI-compatible server: every fault path.

Most tests use the openai transport (fast); tests/test_llm_judge.py covers the litellm one.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from openai_server import Behaviour, FakeOpenAIServer, judge_request, verdict_parses

from judgebench.calls import REASK_TEMPLATE, RunnerOptions, TokenBucket, run_requests
from judgebench.calls.cache import CACHE_FILENAME, ReplyCache, cache_key
from judgebench.core.records import JudgeReply, JudgeRequest
from judgebench.judges.base import Judge, JudgeCallError
from judgebench.judges.llm import LiteLLMJudge

SECRET = "sk-PLANTED-SECRET-123"


def fast(cache_dir: Path, **kw: object) -> RunnerOptions:
    base: dict[str, object] = dict(
        concurrency=8,
        timeout_s=5.0,
        max_retries=3,
        backoff_base_s=0.01,
        backoff_max_s=0.05,
        cache_dir=cache_dir,
        progress=False,
    )
    base.update(kw)
    return RunnerOptions(**base)  # type: ignore[arg-type]


def judge_for(server: FakeOpenAIServer, model: str = "openai/judge-x", **args: object) -> LiteLLMJudge:
    # every fake server of these tests stands for one endpoint (a new port each time): the answer cache's
    # endpoint identity is the fingerprint, as for a server that moves (issue 29)
    return LiteLLMJudge(model, {"api_base": server.api_base, "api_key": "sk-test", "endpoint_fingerprint": "fake", **args})


def cache_rows(cache_dir: Path) -> int:
    path = cache_dir / CACHE_FILENAME
    if not path.exists():
        return 0
    with sqlite3.connect(path) as db:
        return db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]


def test_all_answered_then_rerun_makes_zero_calls(tmp_path: Path) -> None:
    requests = [judge_request(i) for i in range(40)]
    with FakeOpenAIServer(Behaviour(latency_s=0.02, answer="@hash")) as server:
        judge = judge_for(server)
        first = run_requests(requests, judge, fast(tmp_path), verdict_parses)
        assert first.stopped is None and first.calls_made == 40
        assert all(r is not None and r.text in ("[[A]]", "[[B]]") for r in first.replies)
        assert all(r is not None and not r.cached and r.tokens_in and r.tokens_out for r in first.replies)
        assert server.stats().total == 40
        second = run_requests(requests, judge, fast(tmp_path), verdict_parses)
        assert second.calls_made == 0
        assert server.stats().total == 40
        assert [r.text for r in second.replies] == [r.text for r in first.replies]  # type: ignore[union-attr]
        assert all(r is not None and r.cached for r in second.replies)
    assert cache_rows(tmp_path) == 40


def test_retry_then_success(tmp_path: Path) -> None:
    requests = [judge_request(i) for i in range(5)]
    with FakeOpenAIServer(Behaviour(script=(429, 500, 503))) as server:
        out = run_requests(requests, judge_for(server), fast(tmp_path), verdict_parses)
        stats = server.stats()
    assert out.stopped is None
    assert all(r is not None and r.text == "[[A]]" and r.attempts == 4 and r.error is None for r in out.replies)
    assert out.calls_made == 20
    assert stats.outcomes() == {"error:429": 5, "error:500": 5, "error:503": 5, "answered": 5}
    assert stats.duplicate_answers() == 0


@pytest.mark.slow
def test_retry_after_is_honoured(tmp_path: Path) -> None:
    request = judge_request(0)
    with FakeOpenAIServer(Behaviour(script=(429,), retry_after_s=0.6)) as server:
        out = run_requests([request], judge_for(server), fast(tmp_path, backoff_max_s=0.01), verdict_parses)
        log = server.stats().requests
    assert out.replies[0] is not None and out.replies[0].text == "[[A]]"
    assert [r.outcome for r in log] == ["error:429", "answered"]
    # the backoff alone would wait at most 0.01 s: the second attempt waited for Retry-After
    assert log[1].started - log[0].ended >= 0.55  # type: ignore[operator]


@pytest.mark.parametrize("worker", ["1", "0"])
def test_the_progress_bar_says_why_calls_wait(tmp_path: Path, capfd: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch, worker: str) -> None:
    """A run held up by a 429's Retry-After looked stuck: the bar now shows how many requests wait for a retry and
    why, in this process and from the call worker, and stops showing it once they were retried."""
    monkeypatch.setenv("JUDGEBENCH_CALL_WORKER", worker)
    with FakeOpenAIServer(Behaviour(script=(429,), retry_after_s=1.0)) as server:
        out = run_requests([judge_request(0)], judge_for(server), fast(tmp_path, progress=True), verdict_parses)
    assert out.replies[0] is not None and out.replies[0].text == "[[A]]"
    frames = capfd.readouterr().err.replace("\r", "\n").splitlines()
    waiting = [f for f in frames if "retrying=1 (RateLimitError; the latest waits 1.0 s)" in f]
    assert waiting and "0/1" in waiting[0], frames
    assert "retrying" not in [f for f in frames if "1/1" in f][-1], frames


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_permanent_4xx_stops_the_run_at_once(tmp_path: Path, status: int) -> None:
    requests = [judge_request(i) for i in range(200)]
    with FakeOpenAIServer(Behaviour(status=status, latency_s=0.01)) as server:
        out = run_requests(requests, judge_for(server), fast(tmp_path, concurrency=4), verdict_parses)
        seen = server.stats().total
    assert out.stopped is not None and str(status) in out.stopped
    assert seen <= 4  # no more than the calls already in flight: not hundreds
    assert out.calls_made == seen
    assert sum(r is None for r in out.replies) >= 196
    failed = [r for r in out.replies if r is not None]
    assert failed and all(r.text is None and r.error for r in failed)
    assert cache_rows(tmp_path) == 0


def test_fatal_error_mid_run_keeps_finished_replies(tmp_path: Path) -> None:
    requests = [judge_request(i) for i in range(30)]
    requests[20] = judge_request(20, "POISON: this request is rejected")
    beh = Behaviour(
        latency_s=0.01,
        action_fn=lambda messages: 400 if "POISON" in messages[0]["content"] else None,
    )
    with FakeOpenAIServer(beh) as server:
        out = run_requests(requests, judge_for(server), fast(tmp_path, concurrency=2), verdict_parses)
        assert server.stats().total <= 23
    assert out.stopped is not None and "400" in out.stopped
    assert all(r is not None and r.text == "[[A]]" for r in out.replies[:19])
    assert out.replies[20] is not None and out.replies[20].error and out.replies[20].text is None
    assert out.replies[-1] is None
    # finished answers are in the cache: a rerun after fixing the cause resumes
    assert cache_rows(tmp_path) >= 19


@pytest.mark.slow
def test_hang_times_out_and_fails_after_retries_then_run_goes_on(tmp_path: Path) -> None:
    requests = [judge_request(0, "HANG forever"), judge_request(1), judge_request(2)]
    beh = Behaviour(answer="[[B]]", action_fn=lambda m: "hang" if "HANG" in m[0]["content"] else None)
    with FakeOpenAIServer(beh) as server:
        started = time.monotonic()
        # 1 s: long enough that a normal answer never times out on a loaded 2-core machine
        out = run_requests(requests, judge_for(server), fast(tmp_path, timeout_s=1.0, max_retries=2), verdict_parses)
        elapsed = time.monotonic() - started
        stats = server.stats()
    hung = out.replies[0]
    assert hung is not None and hung.text is None and "timed out" in (hung.error or "")
    assert hung.attempts == 3  # 1 + 2 retries, each cut at 1 s
    assert [r.text for r in out.replies[1:] if r] == ["[[B]]", "[[B]]"]  # the run went on
    assert out.stopped is None and out.calls_made == 5
    assert stats.outcomes()["hang"] == 3
    assert elapsed < 8.0  # three 1 s timeouts, not the server's 3,600 s hang
    assert cache_rows(tmp_path) == 2  # failures are never cached


def test_failed_calls_are_retried_on_the_next_run(tmp_path: Path) -> None:
    requests = [judge_request(i) for i in range(6)]
    with FakeOpenAIServer(Behaviour(status=500)) as server:
        judge = judge_for(server)
        out = run_requests(requests, judge, fast(tmp_path, max_retries=1), verdict_parses)
        assert all(r is not None and r.text is None and "500" in (r.error or "") for r in out.replies)
        assert out.calls_made == 12
        server.set_behaviour(default=Behaviour())
        again = run_requests(requests, judge, fast(tmp_path), verdict_parses)
    assert again.calls_made == 6
    assert all(r is not None and r.text == "[[A]]" for r in again.replies)


@pytest.mark.slow
def test_hang_then_answer_on_retry(tmp_path: Path) -> None:
    with FakeOpenAIServer(Behaviour(script=("hang",), latency_s=0.01)) as server:
        out = run_requests(
            [judge_request(0)], judge_for(server), fast(tmp_path, timeout_s=1.0), verdict_parses
        )
        assert [r.outcome for r in server.stats().requests] == ["hang", "answered"]
    assert out.replies[0] is not None and out.replies[0].text == "[[A]]" and out.replies[0].attempts == 2


def test_malformed_is_reasked_then_invalid_with_earlier_raw_kept(tmp_path: Path) -> None:
    bad = "Both are fine, hard to say."
    with FakeOpenAIServer(Behaviour(answer=bad)) as server:
        out = run_requests([judge_request(0)], judge_for(server), fast(tmp_path, reask=2), verdict_parses)
        log = server.stats().requests
    reply = out.replies[0]
    assert reply is not None and reply.text == bad and reply.error is None
    assert reply.earlier_texts == [bad, bad]
    assert reply.attempts == 3 and out.calls_made == 3
    assert len({r.prompt_hash for r in log}) == 3  # each re-ask is a longer conversation
    # a rerun with the same settings makes no call (the INVALID answer is final)
    with FakeOpenAIServer(Behaviour(answer=bad)) as server:
        again = run_requests([judge_request(0)], judge_for(server), fast(tmp_path, reask=2), verdict_parses)
        assert server.stats().total == 0
    assert again.replies[0] is not None and again.replies[0].earlier_texts == [bad, bad]


def test_reask_conversation_and_recovery(tmp_path: Path) -> None:
    seen: list[list[dict]] = []

    def answer(messages: list[dict]) -> str:
        seen.append(messages)
        return "[[B]]" if len(messages) > 1 else "I think B is better"

    with FakeOpenAIServer(Behaviour(answer=answer)) as server:
        out = run_requests([judge_request(0)], judge_for(server), fast(tmp_path, reask=1), verdict_parses)
        assert server.stats().total == 2
    reply = out.replies[0]
    assert reply is not None and reply.text == "[[B]]" and reply.earlier_texts == ["I think B is better"]
    assert reply.tokens_in is not None and reply.tokens_in > 0  # summed over both calls
    conversation = seen[1]
    assert [m["role"] for m in conversation] == ["user", "assistant", "user"]
    assert conversation[1]["content"] == "I think B is better"
    assert conversation[2]["content"] == REASK_TEMPLATE.format(verdicts="A, B")


def test_reask_resumes_from_cached_invalid_answer(tmp_path: Path) -> None:
    def answer(messages: list[dict]) -> str:
        return "[[A]]" if len(messages) > 1 else "no verdict here"

    with FakeOpenAIServer(Behaviour(answer=answer)) as server:
        judge = judge_for(server)
        first = run_requests([judge_request(0)], judge, fast(tmp_path, reask=0), verdict_parses)
        assert first.replies[0] is not None and first.replies[0].text == "no verdict here"
        # same run with --reask 1: only the missing re-ask is sent
        second = run_requests([judge_request(0)], judge, fast(tmp_path, reask=1), verdict_parses)
        assert server.stats().total == 2
    reply = second.replies[0]
    assert reply is not None and reply.text == "[[A]]" and reply.earlier_texts == ["no verdict here"]
    assert second.calls_made == 1


def test_a_resumed_reask_chain_is_priced_at_the_judges_price_now(tmp_path: Path) -> None:
    """A second attack: the cached part of a re-ask chain resumed with a corrected price kept the first price
    (1.824 against 5.17 for the same tokens at the new one). The chain's cost is every attempt's tokens at the
    price the judge has now."""
    def answer(messages: list[dict]) -> str:
        return "[[A]]" if len(messages) > 1 else "no verdict here"

    with FakeOpenAIServer(Behaviour(answer=answer)) as server:
        cheap = judge_for(server, input_cost_per_mtok="1", output_cost_per_mtok="1")
        run_requests([judge_request(0)], cheap, fast(tmp_path, reask=0), verdict_parses)
        dear = judge_for(server, input_cost_per_mtok="1000", output_cost_per_mtok="2000")
        reply = run_requests([judge_request(0)], dear, fast(tmp_path, reask=1), verdict_parses).replies[0]
    assert reply is not None and reply.text == "[[A]]" and reply.tokens_in and reply.tokens_out
    assert reply.cost_usd == pytest.approx((reply.tokens_in * 1000 + reply.tokens_out * 2000) / 1e6)


@pytest.mark.slow
def test_cache_key_separation(tmp_path: Path) -> None:
    prompts = [judge_request(0), judge_request(1)]
    with FakeOpenAIServer(Behaviour(answer=lambda m: f"[[A]] {m[0]['content'][:10]}")) as server:
        for model in ("openai/model-one", "openai/model-two"):
            for temperature in ("0", "0.7"):
                judge = judge_for(server, model=model, temperature=temperature)
                out = run_requests(prompts, judge, fast(tmp_path), verdict_parses)
                assert out.calls_made == 2
        assert server.stats().total == 8
        assert cache_rows(tmp_path) == 8
        bodies = {(r.model, r.body_hash) for r in server.stats().requests}
        assert len(bodies) == 8
        # every combination is now served from its own entry
        for model in ("openai/model-one", "openai/model-two"):
            for temperature in ("0", "0.7"):
                judge = judge_for(server, model=model, temperature=temperature)
                out = run_requests(prompts, judge, fast(tmp_path), verdict_parses)
                assert out.calls_made == 0
        assert server.stats().total == 8
    one = LiteLLMJudge("openai/m", {"temperature": "0", "api_key": "a"}).cache_identity()
    two = LiteLLMJudge("openai/m", {"temperature": "0", "api_key": "b"}).cache_identity()
    assert one == two  # the key is not part of the identity
    assert cache_key(one, "p1") != cache_key(one, "p2")


@pytest.mark.slow
def test_no_cache_and_refresh_cache(tmp_path: Path) -> None:
    requests = [judge_request(i) for i in range(3)]
    with FakeOpenAIServer() as server:
        judge = judge_for(server)
        run_requests(requests, judge, fast(tmp_path, use_cache=False), verdict_parses)
        assert cache_rows(tmp_path) == 0
        run_requests(requests, judge, fast(tmp_path), verdict_parses)
        assert cache_rows(tmp_path) == 3
        server.set_behaviour(default=Behaviour(answer="[[B]]"))
        refreshed = run_requests(requests, judge, fast(tmp_path, refresh_cache=True), verdict_parses)
        assert refreshed.calls_made == 3 and all(r and r.text == "[[B]]" for r in refreshed.replies)
        again = run_requests(requests, judge, fast(tmp_path), verdict_parses)
        assert again.calls_made == 0 and all(r and r.text == "[[B]]" for r in again.replies)
        nocache = run_requests(requests, judge, fast(tmp_path, use_cache=False), verdict_parses)
        assert nocache.calls_made == 3
        assert server.stats().total == 12


def test_identical_requests_in_one_run_are_sent_once(tmp_path: Path) -> None:
    requests = [judge_request(0), judge_request(0), judge_request(1)]
    with FakeOpenAIServer() as server:
        out = run_requests(requests, judge_for(server), fast(tmp_path), verdict_parses)
        assert server.stats().total == 2
    assert [r.cached for r in out.replies if r] == [False, True, False]


def test_max_failures_stops_cleanly(tmp_path: Path) -> None:
    requests = [judge_request(i) for i in range(20)]
    with FakeOpenAIServer(Behaviour(status=500)) as server:
        out = run_requests(
            requests, judge_for(server), fast(tmp_path, concurrency=1, max_retries=0, max_failures=3), verdict_parses
        )
        assert server.stats().total == 3
    assert out.stopped is not None and "3 failed" in out.stopped
    assert [r is not None for r in out.replies] == [True] * 3 + [False] * 17
    assert all(r.error for r in out.replies[:3] if r)


@pytest.mark.parametrize("transport", ["openai", "litellm"])
def test_an_endpoint_that_answers_nothing_stops_the_run(tmp_path: Path, transport: str) -> None:
    """Without --max-failures, UNREACHABLE_AFTER calls with no answer to their last retry (nothing listening on
    the port) and none answered stop the run: a wrong port retried each call for about half a minute, hours for
    a task. A 429 or 5xx does not count (the endpoint is up: a throttled start goes on), nor does one answer,
    from the cache too, or --max-failures."""
    from judgebench.calls.options import UNREACHABLE_AFTER

    with FakeOpenAIServer() as server:
        closed = server.api_base  # the port of a server that is gone: connections are refused
    requests = [judge_request(i) for i in range(40)]
    judge = LiteLLMJudge("openai/judge-x", {"api_base": closed, "api_key": "sk-test", "transport": transport})
    out = run_requests(requests, judge, fast(tmp_path, concurrency=1, max_retries=0), verdict_parses)
    assert (out.stopped or "").startswith(f"{UNREACHABLE_AFTER} calls got no answer from the endpoint and none has "
                                          "been answered (the last: ")
    assert (out.stopped or "").endswith("is the endpoint up? (--max-failures N to go on longer)")
    assert [r is not None for r in out.replies] == [True] * UNREACHABLE_AFTER + [False] * (40 - UNREACHABLE_AFTER)
    out = run_requests(requests, judge, fast(tmp_path, concurrency=1, max_retries=0, max_failures=25), verdict_parses)
    assert "25 failed calls (max failures 25)" in (out.stopped or "")
    with FakeOpenAIServer(Behaviour(status=500)) as server:  # up, and failing: every call is made
        out = run_requests(requests, judge_for(server), fast(tmp_path, concurrency=1, max_retries=0), verdict_parses)
        assert server.stats().total == 40 and out.stopped is None


@pytest.mark.parametrize("transport", ["openai", "litellm"])
@pytest.mark.parametrize("status", [502, 504])
def test_a_gateway_whose_upstream_answers_nothing_stops_the_run(tmp_path: Path, transport: str, status: int) -> None:
    """An outside attack: a proxy answering 502 to every call (its backend down) was retried call by call, about 80
    minutes for a 4,000-call task in CI. A 502 or 504 is a gateway saying the endpoint behind it gave no answer: it
    counts as no answer, so UNREACHABLE_AFTER of them, none answered, stop the run; a 500 or 503 does not."""
    from judgebench.calls.options import UNREACHABLE_AFTER

    requests = [judge_request(i) for i in range(40)]
    with FakeOpenAIServer(Behaviour(status=status)) as server:
        judge = LiteLLMJudge("openai/judge-x", {"api_base": server.api_base, "api_key": "sk-test", "transport": transport})
        out = run_requests(requests, judge, fast(tmp_path, concurrency=1, max_retries=0), verdict_parses)
        assert server.stats().total == UNREACHABLE_AFTER
    assert (out.stopped or "").startswith(f"{UNREACHABLE_AFTER} calls got no answer from the endpoint"), out.stopped
    with FakeOpenAIServer(Behaviour(status=503)) as server:
        out = run_requests(requests, judge_for(server), fast(tmp_path, concurrency=1, max_retries=0), verdict_parses)
        assert server.stats().total == 40 and out.stopped is None


@pytest.mark.parametrize("worker", ["1", "0"])
def test_answers_from_the_cache_keep_a_rerun_going_when_the_endpoint_is_gone(tmp_path: Path, monkeypatch, worker) -> None:
    """The "endpoint answers nothing" stop counts answers from the cache on both call paths (the call worker's
    run did not see the parent's cache hits: the same rerun stopped there and went on in-process)."""
    from judgebench.calls.options import UNREACHABLE_AFTER

    monkeypatch.setenv("JUDGEBENCH_CALL_WORKER", worker)
    requests = [judge_request(i) for i in range(UNREACHABLE_AFTER + 20)]
    with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
        run_requests(requests[:3], judge_for(server), fast(tmp_path), verdict_parses)
        closed = server.api_base
    gone = LiteLLMJudge("openai/judge-x", {"api_base": closed, "api_key": "sk-test", "endpoint_fingerprint": "fake"})
    out = run_requests(requests, gone, fast(tmp_path, max_retries=0), verdict_parses)
    assert out.stopped is None
    assert [r.text is not None for r in out.replies if r] == [True] * 3 + [False] * (len(requests) - 3)


@pytest.mark.slow
def test_concurrency_limit_is_respected(tmp_path: Path) -> None:
    requests = [judge_request(i) for i in range(30)]
    with FakeOpenAIServer(Behaviour(latency_s=0.05)) as server:
        run_requests(requests, judge_for(server), fast(tmp_path, concurrency=3), verdict_parses)
        assert server.stats().max_in_flight() <= 3


def test_rpm_limit_spaces_requests(tmp_path: Path) -> None:
    requests = [judge_request(i) for i in range(12)]
    with FakeOpenAIServer() as server:
        started = time.monotonic()
        run_requests(requests, judge_for(server), fast(tmp_path, rpm=600), verdict_parses)
        elapsed = time.monotonic() - started
    # a bucket of 10 (one second's worth at 10/s), then 2 more at 10 per second
    assert 0.15 <= elapsed < 2.5


def test_token_bucket_tpm_waits_for_tokens() -> None:
    import asyncio

    async def go() -> float:
        bucket = TokenBucket(rate=1000.0, capacity=1000.0)
        start = time.monotonic()
        await bucket.acquire(1000)
        await bucket.acquire(500)  # refills at 1000/s: about 0.5 s
        return time.monotonic() - start

    assert 0.4 <= asyncio.run(go()) < 1.5


@pytest.mark.slow
def test_concurrency_limit_is_reached_and_never_exceeded(tmp_path: Path) -> None:
    """The runner keeps exactly C calls in flight (throughput figures: scripts/bench_runner.py)."""
    n, concurrency = 96, 16
    requests = [judge_request(i) for i in range(n)]
    with FakeOpenAIServer(Behaviour(latency_s=0.3), mode="process") as server:
        out = run_requests(requests, judge_for(server), fast(tmp_path, concurrency=concurrency), verdict_parses)
        stats = server.stats()
    assert out.calls_made == n == stats.answered()
    assert stats.max_in_flight() == concurrency


class CountingJudge(Judge):
    """A non-cacheable judge (like the built-in ones): never cached."""

    id = "test/counting"
    cacheable = False

    def __init__(self) -> None:
        self.calls = 0

    async def judge(self, request: JudgeRequest) -> JudgeReply:
        self.calls += 1
        return JudgeReply(text="[[A]]")


def test_non_cacheable_judges_are_not_cached(tmp_path: Path) -> None:
    judge = CountingJudge()
    requests = [judge_request(i) for i in range(4)]
    run_requests(requests, judge, fast(tmp_path), verdict_parses)
    run_requests(requests, judge, fast(tmp_path), verdict_parses)
    assert judge.calls == 8
    assert not (tmp_path / CACHE_FILENAME).exists()


class BrokenThenFineJudge(Judge):
    id = "test/flaky"
    cacheable = False

    def __init__(self) -> None:
        self.calls = 0

    async def judge(self, request: JudgeRequest) -> JudgeReply:
        self.calls += 1
        if self.calls == 1:
            raise JudgeCallError("flaky", retryable=True, retry_after_s=None)
        return JudgeReply(text="[[B]]")


def test_any_judge_gets_retries(tmp_path: Path) -> None:
    judge = BrokenThenFineJudge()
    out = run_requests([judge_request(0)], judge, fast(tmp_path), verdict_parses)
    assert out.replies[0] is not None and out.replies[0].text == "[[B]]" and out.replies[0].attempts == 2


@pytest.mark.parametrize("worker", ["1", "0"])
def test_the_retry_note_is_redrawn_at_most_twice_a_second(tmp_path: Path, capfd: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch, worker: str) -> None:
    """64 calls at a 429 at once redrew the bar twice per retry (a log 37 times the size, an outside attack): the note
    is passed on when the first starts and the last ends waiting, and in between at most every 0.5 s, with the
    count of then (all 64, not the first one's 1)."""
    monkeypatch.setenv("JUDGEBENCH_CALL_WORKER", worker)
    requests = [judge_request(i) for i in range(64)]
    with FakeOpenAIServer(Behaviour(script=(429,), retry_after_s=1.5)) as server:
        out = run_requests(requests, judge_for(server), fast(tmp_path, progress=True, concurrency=64), verdict_parses)
    assert all(r is not None and r.text == "[[A]]" for r in out.replies)
    frames = [f for f in capfd.readouterr().err.replace("\r", "\n").splitlines() if "retrying=" in f]
    assert 2 <= len(frames) <= 8, frames
    assert any("retrying=64 (RateLimitError; the latest waits 1.5 s)" in f for f in frames), frames


class KeyInItsErrorJudge(BrokenThenFineJudge):
    """Its first attempt fails with an error that quotes its key, as some providers' errors do."""

    def secret_values(self) -> list[str]:
        return [SECRET]

    async def judge(self, request: JudgeRequest) -> JudgeReply:
        if self.calls == 0:
            self.calls += 1
            raise JudgeCallError(f"{SECRET} is rate limited", retryable=True, retry_after_s=None)
        return await super().judge(request)


def test_the_retry_note_on_the_progress_bar_never_shows_a_key(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    out = run_requests([judge_request(0)], KeyInItsErrorJudge(), fast(tmp_path, progress=True), verdict_parses)
    assert out.replies[0] is not None and out.replies[0].text == "[[B]]"
    err = capfd.readouterr().err
    assert "retrying=1 (" in err and SECRET not in err


def test_no_secret_in_any_file_written(tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    requests = [judge_request(i) for i in range(10)]
    header_secret = "HEADER-SECRET-456"
    with FakeOpenAIServer(
        Behaviour(malformed_rate=0.3, error_rate=0.2, retry_after_s=0),
        watch_secrets=[SECRET],
    ) as server:
        judge = LiteLLMJudge(
            "openai/judge-x",
            {"api_base": server.api_base, "api_key": SECRET, "extra_headers.X-Team-Token": header_secret},
        )
        out = run_requests(requests, judge, fast(cache_dir, reask=1, max_retries=8), verdict_parses)
        stats = server.stats()
    assert all(r is not None and r.text is not None for r in out.replies)
    assert stats.leaks == []  # the key went nowhere but the Authorization header
    assert {r.authorization for r in stats.requests} == {f"Bearer {SECRET}"}
    assert SECRET not in json.dumps(judge.public_args()) and header_secret not in json.dumps(judge.public_args())
    assert SECRET not in repr(judge) and SECRET not in json.dumps(judge.cache_identity())
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written  # the cache file (and its WAL) exist
    for path in written:
        data = path.read_bytes()
        assert SECRET.encode() not in data, path
        assert header_secret.encode() not in data, path


def test_error_messages_are_scrubbed_of_the_key(tmp_path: Path) -> None:
    with FakeOpenAIServer(Behaviour(status=401, echo_key_in_errors=True)) as server:
        judge = LiteLLMJudge("openai/judge-x", {"api_base": server.api_base, "api_key": SECRET})
        out = run_requests([judge_request(0)], judge, fast(tmp_path), verdict_parses)
    assert out.stopped is not None and "401" in out.stopped
    assert SECRET not in out.stopped
    assert out.replies[0] is not None and SECRET not in (out.replies[0].error or "")


@pytest.mark.parametrize("password", ["USERPASS555", "S3cr3t/p@ss:w0rd+x"])
@pytest.mark.parametrize("worker", ["1", "0"])
def test_a_permanent_errors_stop_reason_is_scrubbed_of_the_userinfo_in_basic_form(tmp_path: Path, monkeypatch,
                                                                                  worker: str, password: str) -> None:
    """An api_base with `user:password@` is sent as HTTP Basic: a provider quoting the Authorization header echoes
    base64("user:password"). Each failed call's error was scrubbed of it, the stop reason (printed, and the
    error of every judgment never sent) was not (an outside attack found it on screen and in samples.jsonl). A
    password written percent-encoded is sent decoded: its decoded text and base64 leaked too (a second attack)."""
    import base64
    from urllib.parse import quote

    monkeypatch.setenv("JUDGEBENCH_CALL_WORKER", worker)
    userinfo = f"user:{password}"
    with FakeOpenAIServer(Behaviour(status=401, echo_key_in_errors=True)) as server:
        base = server.api_base.replace("http://", f"http://user:{quote(password, safe='')}@")
        judge = LiteLLMJudge("openai/judge-x", {"api_base": base, "api_key": SECRET})
        out = run_requests([judge_request(i) for i in range(4)], judge, fast(tmp_path, concurrency=1), verdict_parses)
    assert out.stopped is not None and "401" in out.stopped, out.stopped
    texts = [out.stopped, *(r.error or "" for r in out.replies if r is not None)]
    encoded = base64.b64encode(userinfo.encode()).decode()
    assert all(encoded not in t and password not in t and SECRET not in t for t in texts), texts


@pytest.mark.parametrize("worker", ["1", "0"])
def test_calls_cancelled_by_a_max_failures_stop_are_in_flight_not_unsent(tmp_path: Path, monkeypatch,
                                                                        worker: str) -> None:
    """Four calls at once: the first fails (500) and --max-failures 1 stops the run while the other three hang.
    Those three were sent (the server saw them) and are FAILED `in_flight`; the six never sent stay None (not
    attempted). With the call worker they had been recorded as never sent: only a drain named its calls in flight,
    not a stop."""
    from judgebench.core.records import IN_FLIGHT

    monkeypatch.setenv("JUDGEBENCH_CALL_WORKER", worker)

    def action(messages: list[dict[str, Any]]) -> int | str | None:
        return 500 if messages[-1]["content"].startswith("Question 0:") else "hang"

    with FakeOpenAIServer(Behaviour(latency_s=0.05, action_fn=action, hang_s=30)) as server:
        judge = judge_for(server)
        out = run_requests([judge_request(i) for i in range(10)], judge,
                           fast(tmp_path, concurrency=4, max_retries=0, max_failures=1), verdict_parses)
        seen = server.stats().total
    assert out.stopped is not None and "max failures 1" in out.stopped
    in_flight = [r for r in out.replies if r is not None and r.error == IN_FLIGHT]
    failed = [r for r in out.replies if r is not None and r.error != IN_FLIGHT]
    assert seen == 4 and len(failed) == 1 and len(in_flight) == 3 and out.replies.count(None) == 6, out.replies


KILL_SCRIPT = textwrap.dedent(  # the judge id below must match judge_for()
    """
    import sys
    sys.path.insert(0, {tests!r})
    from openai_server import judge_request, verdict_parses
    from judgebench.judges.llm import LiteLLMJudge
    from judgebench.calls import RunnerOptions, run_requests

    requests = [judge_request(i) for i in range({n})]
    judge = LiteLLMJudge("openai/judge-x", {{"api_base": {api_base!r}, "api_key": "sk-test", "endpoint_fingerprint": "fake"}})
    options = RunnerOptions(concurrency={c}, timeout_s=10, cache_dir={cache!r}, progress=False)
    out = run_requests(requests, judge, options, verdict_parses)
    print("DONE", out.calls_made, sum(r is not None and r.text is not None for r in out.replies))
    """
)


@pytest.mark.slow
def test_kill_and_resume_never_repeats_a_completed_call(tmp_path: Path) -> None:
    n = 240
    with FakeOpenAIServer(Behaviour(latency_s=0.1, jitter_s=0.05)) as server:
        script = KILL_SCRIPT.format(
            tests=str(Path(__file__).resolve().parents[1]), n=n, api_base=server.api_base, c=16, cache=str(tmp_path)
        )
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
        proc = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while server.stats().answered() < n // 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert proc.returncode == -signal.SIGKILL
        # the killed run's call worker sends nothing new, finishes the calls in flight
        # (already paid for), caches them and exits
        deadline = time.monotonic() + 30
        while any(r.ended is None for r in server.stats().requests) and time.monotonic() < deadline:
            time.sleep(0.02)
        before = server.stats().answered()
        assert n // 3 <= before < n
        # rerun: in a new process, as a user would
        rerun = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
        assert rerun.returncode == 0, rerun.stderr[-2000:]
        _, calls, answered = rerun.stdout.split()
        assert int(answered) == n
        stats = server.stats()
    counts = stats.answered_by_prompt()
    assert set(counts) == {judge_request(i).prompt_hash for i in range(n)}
    assert max(counts.values()) == 1  # no answered call was ever repeated
    assert stats.answered() == n
    assert int(calls) == n - before
    assert "cancelled" not in stats.outcomes()  # the kill cut no call short


@pytest.mark.slow
def test_rerun_waits_for_calls_another_process_is_making(tmp_path: Path) -> None:
    """A rerun started while the killed run's worker still finishes its calls waits for them."""
    n = 40
    with FakeOpenAIServer(Behaviour(latency_s=1.0)) as server:
        script = KILL_SCRIPT.format(
            tests=str(Path(__file__).resolve().parents[1]), n=n, api_base=server.api_base, c=n, cache=str(tmp_path)
        )
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
        proc = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while server.stats().total < n and time.monotonic() < deadline:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)  # all 40 calls are in flight
        proc.wait()
        started = time.monotonic()
        out = run_requests([judge_request(i) for i in range(n)], judge_for(server), fast(tmp_path), verdict_parses)
        stats = server.stats()
    assert time.monotonic() - started < 3
    assert out.calls_made == 0 and all(r is not None and r.cached for r in out.replies)
    assert stats.total == n and stats.answered() == n


INTERRUPT_SCRIPT = KILL_SCRIPT.replace(
    'print("DONE"', 'print("STOPPED", out.stopped, "DONE"'
)


@pytest.mark.slow
def test_ctrl_c_returns_partial_outcome_and_in_flight_calls_are_kept(tmp_path: Path) -> None:
    n = 64
    with FakeOpenAIServer(Behaviour(latency_s=0.5)) as server:
        script = INTERRUPT_SCRIPT.format(
            tests=str(Path(__file__).resolve().parents[1]), n=n, api_base=server.api_base, c=16, cache=str(tmp_path)
        )
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
        proc = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while server.stats().total < 20 and time.monotonic() < deadline:
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == 0
        assert out.startswith("STOPPED interrupted (SIGINT):"), out
        deadline = time.monotonic() + 10
        while any(r.ended is None for r in server.stats().requests) and time.monotonic() < deadline:
            time.sleep(0.02)
        stats = server.stats()
        assert stats.total < n and "cancelled" not in stats.outcomes()
        # every request the call worker sent is counted, in flight at the interrupt included
        calls = int(out.split("DONE")[1].split()[0])
        assert calls == stats.total and f"{calls} calls sent" in out
        # everything the server answered is in the cache: the rerun sends only the rest
        rerun = run_requests([judge_request(i) for i in range(n)], judge_for(server), fast(tmp_path), verdict_parses)
        assert rerun.calls_made == n - stats.answered()
        assert server.stats().duplicate_answers() == 0


def test_cache_dir_problem_is_a_clear_error(tmp_path: Path) -> None:
    from judgebench.core.errors import JudgebenchError

    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    with FakeOpenAIServer() as server:
        with pytest.raises(JudgebenchError, match="cache"):
            run_requests([judge_request(0)], judge_for(server), fast(not_a_dir), verdict_parses)
        assert server.stats().total == 0


def test_cache_survives_reopen_and_ignores_bad_rows(tmp_path: Path) -> None:
    cache = ReplyCache(tmp_path)
    cache.put("k1", JudgeReply(text="[[A]]", tokens_in=3), judge="j", prompt_hash="p")
    with pytest.raises(ValueError):
        cache.put("k2", JudgeReply(text=None, error="boom"), judge="j", prompt_hash="p")
    cache.close()
    again = ReplyCache(tmp_path)
    got = again.get("k1")
    assert got is not None and got.text == "[[A]]" and got.tokens_in == 3
    assert again.get("k2") is None
    again.close()
    assert cache_rows(tmp_path) == 1


@pytest.mark.slow
def test_cli_run_writes_no_secret_anywhere(tmp_path: Path) -> None:
    """`judgebench run` end to end with a planted key: no file it writes contains it."""
    data = tmp_path / "pairs.jsonl"
    rows = sci_rows(6)
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out, cache = tmp_path / "out", tmp_path / "cache"
    exe = Path(sys.executable).parent / "judgebench"
    if not exe.exists():
        pytest.skip("the judgebench console script is not installed in this environment")
    with FakeOpenAIServer(Behaviour(malformed_rate=0.3, error_rate=0.2, retry_after_s=0), watch_secrets=[SECRET]) as server:
        result = subprocess.run(
            [
                str(exe), "run", "--tasks", "sciarena_eval", "--judge", "openai/judge-x",
                "--judge-args", f"api_base={server.api_base},api_key={SECRET},extra_headers.X-Secret-Token=HDR-SECRET-9",
                "--dataset-path", str(data), "--output-path", str(out), "--cache-dir", str(cache),
                "--reask", "1", "--max-retries", "8", "--quiet",
            ],
            capture_output=True, text=True, timeout=300,
        )
        stats = server.stats()
    assert result.returncode == 0, result.stderr[-3000:]
    assert stats.leaks == [] and stats.total >= 12
    assert SECRET not in result.stdout + result.stderr
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p != data]
    assert any(p.name == "results.json" for p in written) and any(p.suffix == ".sqlite3" for p in written)
    for path in written:
        blob = path.read_bytes()
        assert SECRET.encode() not in blob and b"HDR-SECRET-9" not in blob, path


def sci_rows(n: int) -> list[dict]:
    return [
        {
            "id": f"p{i}",
            "question": f"Question {i}?",
            "responseA": f"Answer A {i} (Smith et al. 2020a).",
            "responseB": f"Answer B {i}.",
            "modelA": "m1",
            "modelB": "m2",
            "vote": "AB"[i % 2],
            "citation_a": [{"concise_authors": "Smith et al. 2020a", "title": "T"}],
            "citation_b": [],
            "question_type": "Conceptual Explanation",
            "subject": "Engineering",
        }
        for i in range(n)
    ]


def cli_command(tmp_path: Path, n: int) -> list[str]:
    exe = Path(sys.executable).parent / "judgebench"
    if not exe.exists():
        pytest.skip("the judgebench console script is not installed in this environment")
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in sci_rows(n)))
    return [
        str(exe), "run", "--tasks", "sciarena_eval", "--dataset-path", str(data),
        "--output-path", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache"), "--quiet",
    ]


@pytest.mark.slow
def test_cli_run_writes_no_url_secret_anywhere(tmp_path: Path) -> None:
    """Userinfo and query-string values of api_base never reach results, samples or cache."""
    secrets = ("URLPASS-1", "TOK-SECRET-7", "SIG-SECRET-8")
    with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
        base = server.api_base.replace("//", "//bob:URLPASS-1@") + "?token=TOK-SECRET-7&sig=SIG-SECRET-8"
        command = cli_command(tmp_path, 4) + ["--judge", "openai/judge-x", "--judge-args", f"api_base={base}"]
        result = subprocess.run(command, check=False, capture_output=True, text=True, timeout=300, env=cli_env())
        answered = server.stats().answered()
    assert result.returncode == 0, result.stderr[-3000:]
    assert answered == 8  # the signed URL worked: its query reached the server
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["config"]["judge_args"]["api_base"].endswith("/v1?token=***&sig=***")
    assert results["config"]["judge_args"]["api_base"].startswith("http://***@127.0.0.1:")
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.suffix == ".sqlite3" for p in written) and any(p.name == "samples.jsonl" for p in written)
    for path in written:
        blob = path.read_bytes()
        for secret in secrets:
            assert secret.encode() not in blob, (path, secret)
    for secret in secrets:
        assert secret not in result.stdout + result.stderr


def cli_env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))


@pytest.mark.slow
def test_two_concurrent_runs_on_one_cache_pay_once_per_prompt(tmp_path: Path) -> None:
    n = 240
    with FakeOpenAIServer(Behaviour(latency_s=0.05, jitter_s=0.03), mode="process") as server:
        script = KILL_SCRIPT.format(
            tests=str(Path(__file__).resolve().parents[1]), n=n, api_base=server.api_base, c=16, cache=str(tmp_path)
        )
        procs = [
            subprocess.Popen([sys.executable, "-c", script], env=cli_env(), stdout=subprocess.PIPE, text=True)
            for _ in range(2)
        ]
        outputs = [p.communicate(timeout=300)[0] for p in procs]
        stats = server.stats()
    assert [p.returncode for p in procs] == [0, 0]
    assert stats.total == n and max(stats.by_prompt().values()) == 1  # one request per prompt
    calls = [int(out.split()[1]) for out in outputs]
    answered = [int(out.split()[2]) for out in outputs]
    assert answered == [n, n] and sum(calls) == n  # each got every answer; together they paid once


TIMEOUT_SCRIPT = KILL_SCRIPT.replace("timeout_s=10,", "timeout_s=1.0, max_retries=0,").replace(
    'print("DONE"', 'print("FAILED", sum(r is None or r.text is None for r in out.replies), "DONE"'
)


@pytest.mark.slow
def test_warm_up_is_not_charged_to_the_first_calls_timeouts(tmp_path: Path) -> None:
    """800 calls at 50 ms, --timeout 1, no retries, through the call worker in a fresh
    interpreter (imports, clients and the worker start before any deadline): no failure."""
    n = 800
    with FakeOpenAIServer(Behaviour(latency_s=0.05), mode="process") as server:
        script = TIMEOUT_SCRIPT.format(
            tests=str(Path(__file__).resolve().parents[1]), n=n, api_base=server.api_base, c=64, cache=str(tmp_path)
        )
        env = dict(cli_env(), JUDGEBENCH_CALL_WORKER="1")
        result = subprocess.run([sys.executable, "-c", script], env=env, check=False, capture_output=True, text=True, timeout=300)
        stats = server.stats()
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split()[:2] == ["FAILED", "0"], result.stdout
    assert stats.answered() == n and "cancelled" not in stats.outcomes()


FULL_DISK_SCRIPT = textwrap.dedent(
    """
    import resource, signal, sys
    sys.path.insert(0, {tests!r})
    from openai_server import judge_request, verdict_parses
    from judgebench.calls.cache import ReplyCache
    from judgebench.judges.llm import LiteLLMJudge
    from judgebench.calls import RunnerOptions, run_requests

    ReplyCache({cache!r}).close()  # created while there is room
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
    resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))  # a disk that fills up
    requests = [judge_request(i) for i in range({n})]
    judge = LiteLLMJudge("openai/judge-x", {{"api_base": {api_base!r}, "api_key": "sk-test", "endpoint_fingerprint": "fake"}})
    options = RunnerOptions(timeout_s=10, cache_dir={cache!r}, progress=False, {extra})
    out = run_requests(requests, judge, options, verdict_parses)
    print(sum(r is not None and r.text is not None for r in out.replies), out.calls_made)
    print(out.stopped)
    """
)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["worker", "in-process", "batch"])
def test_full_disk_under_the_cache_stops_cleanly_and_keeps_paid_answers(tmp_path: Path, mode: str) -> None:
    n = 200
    big = "[[A]] " + "reasoning " * 300  # ~3 KB per answer: the WAL outgrows the limit
    with FakeOpenAIServer(Behaviour(latency_s=0.01, answer=big, batch_delay_s=0.01)) as server:
        script = FULL_DISK_SCRIPT.format(
            tests=str(Path(__file__).resolve().parents[1]), n=n, api_base=server.api_base, cache=str(tmp_path), limit=96 * 1024,
            extra="batch=True, batch_poll_s=0.01" if mode == "batch" else "concurrency=4",
        )
        env = dict(cli_env(), JUDGEBENCH_CALL_WORKER="0" if mode == "in-process" else "1")
        result = subprocess.run([sys.executable, "-c", script], env=env, check=False, capture_output=True, text=True, timeout=300)
        stats = server.stats()
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    counts, stopped = result.stdout.splitlines()
    kept, calls = map(int, counts.split())
    assert f"cache {tmp_path / CACHE_FILENAME}: cannot write" in stopped
    if mode != "batch":  # (a batch is answered as a whole)
        assert stats.answered() < n  # the run stopped early ...
    assert kept == stats.answered() == calls  # ... and every answer paid for is in the replies
    assert cache_rows(tmp_path) < kept


@pytest.mark.slow
def test_sigterm_writes_partial_results_and_counts_the_calls_sent(tmp_path: Path) -> None:
    n = 40  # 80 judgments (both orders)
    with FakeOpenAIServer(Behaviour(latency_s=0.3)) as server:
        command = cli_command(tmp_path, n) + [
            "--judge", "openai/judge-x", "--judge-args", f"api_base={server.api_base},api_key=sk-t",
            "--concurrency", "4",
        ]
        proc = subprocess.Popen(command, env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while server.stats().answered() < 8 and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
        deadline = time.monotonic() + 10
        while any(r.ended is None for r in server.stats().requests) and time.monotonic() < deadline:
            time.sleep(0.02)
        stats = server.stats()
    assert proc.returncode == 1, stderr[-3000:]
    assert "Traceback" not in stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["config"]["partial"] is True
    answered = results["counts"]["answered"]
    assert 8 - 4 <= answered < 2 * n, (answered, stderr)  # (a wave of 4 may be answered, not yet received)
    samples = [json.loads(line) for line in (tmp_path / "out" / "samples.jsonl").read_text().splitlines()]
    assert sum(s["status"] == "ANSWERED" for s in samples) == answered
    assert stats.total < 2 * n
    assert f"interrupted (SIGTERM): {stats.total} calls sent" in stderr, (stats.total, stderr)  # in flight included
    assert f"{stats.total} sent" in stdout or f"{stats.total} calls sent" in stdout, stdout


UNWRITABLE_SCRIPT = textwrap.dedent(
    """
    import resource, signal, sys
    sys.path.insert(0, {tests!r})
    from openai_server import judge_request, verdict_parses
    from judgebench.core.errors import JudgebenchError
    from judgebench.judges.llm import LiteLLMJudge
    from judgebench.calls import RunnerOptions, run_requests

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))  # the disk is (nearly) full
    judge = LiteLLMJudge("openai/judge-x", {{"api_base": {api_base!r}, "api_key": "sk-test", "endpoint_fingerprint": "fake"}})
    options = RunnerOptions(cache_dir={cache!r}, progress=False)
    try:
        run_requests([judge_request(i) for i in range(5)], judge, options, verdict_parses)
    except JudgebenchError as exc:
        print("ERROR", exc)
    """
)


@pytest.mark.slow  # measured over 1.5 s in the fast selection
def test_unwritable_cache_is_a_one_line_error_before_any_call(tmp_path: Path) -> None:
    ReplyCache(tmp_path).close()  # an existing cache, on a disk that then fills up
    with FakeOpenAIServer() as server:
        script = UNWRITABLE_SCRIPT.format(tests=str(Path(__file__).resolve().parents[1]), api_base=server.api_base, cache=str(tmp_path))
        result = subprocess.run([sys.executable, "-c", script], env=cli_env(), check=False, capture_output=True, text=True, timeout=120)
        assert server.stats().total == 0
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.stdout.startswith(f"ERROR cache {tmp_path / CACHE_FILENAME}: ")
    assert len(result.stdout.strip().splitlines()) == 1


@pytest.mark.slow
def test_sigterm_without_the_call_worker_drains_like_ctrl_c(tmp_path: Path) -> None:
    """In-process runs (JUDGEBENCH_CALL_WORKER=0): the first SIGTERM sends nothing new and
    waits for the calls in flight, which are kept - no paid answer is cut short."""
    n = 64
    with FakeOpenAIServer(Behaviour(latency_s=0.3)) as server:
        script = INTERRUPT_SCRIPT.format(
            tests=str(Path(__file__).resolve().parents[1]), n=n, api_base=server.api_base, c=8, cache=str(tmp_path)
        )
        env = dict(cli_env(), JUDGEBENCH_CALL_WORKER="0")
        proc = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while server.stats().answered() < 8 and time.monotonic() < deadline:
            time.sleep(0.01)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
        stats = server.stats()
    assert proc.returncode == 0, out
    assert out.startswith(f"STOPPED interrupted (SIGTERM): {stats.total} calls sent"), (stats.total, out)
    calls, answered = map(int, out.split("DONE")[1].split()[:2])
    assert calls == stats.total == answered == stats.answered() < n  # every call sent was kept
    assert "cancelled" not in stats.outcomes()


@pytest.mark.parametrize(
    ("kwargs", "flag"),
    [
        ({"concurrency": 0}, "--concurrency"),
        ({"concurrency": 2.5}, "--concurrency"),
        ({"timeout_s": 0}, "--timeout"),
        ({"timeout_s": float("inf")}, "--timeout"),
        ({"timeout_s": float("nan")}, "--timeout"),
        ({"rpm": 0}, "--rpm"),
        ({"tpm": -5}, "--tpm"),
        ({"max_retries": -1}, "--max-retries"),
        ({"reask": -1}, "--reask"),
        ({"max_failures": 0}, "--max-failures"),
        ({"batch_poll_s": -1.0}, "--batch-poll-s"),
    ],
)
def test_runner_options_validate_their_values_naming_the_flag(kwargs: dict[str, object], flag: str) -> None:
    from judgebench.core.errors import JudgebenchError

    with pytest.raises(JudgebenchError) as info:
        RunnerOptions(**kwargs)  # type: ignore[arg-type]
    assert str(info.value).startswith(f"{flag}: expected") and "\n" not in str(info.value)


def test_runner_options_accept_the_limits() -> None:
    options = RunnerOptions(concurrency=1, timeout_s=0.01, max_retries=0, reask=0, max_failures=1, rpm=1, tpm=1)
    assert (options.concurrency, options.max_failures, options.rpm) == (1, 1, 1)
    assert RunnerOptions(batch=True, concurrency=16).batch
    from judgebench.core.errors import JudgebenchError

    with pytest.raises(JudgebenchError, match="--batch: --reask cannot apply"):  # a batch is answered once
        RunnerOptions(batch=True, reask=2)


def test_cached_rerun_forks_no_call_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    requests = [judge_request(i) for i in range(12)] + [judge_request(3)]  # one repeated prompt
    with FakeOpenAIServer(Behaviour(latency_s=0.01, answer="@hash")) as server:
        judge = judge_for(server)
        first = run_requests(requests, judge, fast(tmp_path), verdict_parses)
        assert first.calls_made == 12 and server.stats().total == 12

        def no_fork() -> int:
            raise AssertionError("a fully cached run must not fork the call worker")

        monkeypatch.setattr(os, "fork", no_fork)
        second = run_requests(requests, judge, fast(tmp_path), verdict_parses)
        assert second.calls_made == 0 and second.stopped is None and server.stats().total == 12
        assert [r.text for r in second.replies] == [r.text for r in first.replies]  # type: ignore[union-attr]
        assert all(r is not None and r.cached for r in second.replies)


def test_a_partly_cached_run_sends_only_the_missing_calls_through_the_worker(tmp_path: Path) -> None:
    requests = [judge_request(i) for i in range(20)]
    with FakeOpenAIServer(Behaviour(latency_s=0.01, answer="@hash")) as server:
        judge = judge_for(server)
        run_requests(requests[::2], judge, fast(tmp_path), verdict_parses)
        out = run_requests(requests, judge, fast(tmp_path), verdict_parses)
        assert out.calls_made == 10 and server.stats().total == 20
        assert [r.cached for r in out.replies] == [i % 2 == 0 for i in range(20)]  # type: ignore[union-attr]
        assert all(r is not None and verdict_parses(requests[i], r.text or "") for i, r in enumerate(out.replies))


def test_a_prepared_call_worker_runs_the_requests_or_exits_unused(tmp_path: Path) -> None:
    from judgebench.calls import prepared_calls

    requests = [judge_request(i) for i in range(16)]
    with FakeOpenAIServer(Behaviour(latency_s=0.01, answer="@hash")) as server:
        judge = judge_for(server)
        with prepared_calls(judge, fast(tmp_path)) as worker:
            assert worker is not None and worker.pid > 0
            out = run_requests(requests, judge, fast(tmp_path), verdict_parses, worker=worker)
        assert out.calls_made == 16 and out.stopped is None and server.stats().total == 16
        with prepared_calls(judge, fast(tmp_path / "other")) as unused:
            assert unused is not None
            pid = unused.pid
        for _ in range(600):  # it exits once it sees the lifeline closed (polled, not timed)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the unused call worker did not exit")
        assert server.stats().total == 16  # the unused worker sent nothing
        with prepared_calls(judge, fast(tmp_path, use_cache=False)) as none:
            assert none is None  # no cache: no worker


def test_a_parser_that_cannot_be_pickled_keeps_the_calls_in_this_process(tmp_path: Path) -> None:
    requests = [judge_request(i) for i in range(10)]
    with FakeOpenAIServer(Behaviour(latency_s=0.01, answer="@hash")) as server:
        out = run_requests(requests, judge_for(server), fast(tmp_path), lambda r, t: verdict_parses(r, t))
        assert out.calls_made == 10 and all(r is not None and r.text for r in out.replies)


@pytest.mark.slow
def test_cli_killed_mid_run_with_the_early_call_worker_repeats_no_answered_call(tmp_path: Path) -> None:
    """`judgebench run` forks its call worker before loading the data (prepared_calls):
    a SIGKILL mid-run still loses no paid answer and the rerun repeats none."""
    from helpers import sci_row, write_jsonl

    n = 60
    data = write_jsonl(tmp_path / "pairs.jsonl", [sci_row(i, vote="AB"[i % 2]) for i in range(n)])
    with FakeOpenAIServer(Behaviour(latency_s=0.2, jitter_s=0.1, answer="@hash")) as server:

        def command(out: str) -> list[str]:
            return [
                sys.executable, "-m", "judgebench", "run", "--tasks", "sciarena_eval", "--judge", "openai/judge-x",
                "--judge-args", f"api_base={server.api_base},api_key=sk-test", "--dataset-path", str(data),
                "--output-path", str(tmp_path / out), "--cache-dir", str(tmp_path / "cache"),
                "--no-swap", "--concurrency", "8", "--timeout", "10", "--quiet",
            ]

        proc = subprocess.Popen(command("first"), env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while server.stats().answered() < n // 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.communicate()  # EOF at once: the worker lets go of the command's output when it drains
        assert proc.returncode == -signal.SIGKILL
        deadline = time.monotonic() + 60
        while not all(r.ended is not None for r in server.stats().requests) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert all(r.ended is not None for r in server.stats().requests)  # the worker finished its calls
        before = server.stats().answered()
        assert n // 3 <= before < n
        rerun = subprocess.run(command("second"), env=cli_env(), capture_output=True, text=True, timeout=300)
        assert rerun.returncode == 0, rerun.stderr[-2000:]
        stats = server.stats()
    counts = stats.answered_by_prompt()
    assert len(counts) == n and max(counts.values()) == 1  # every prompt answered exactly once
    assert "cancelled" not in stats.outcomes()
    result = json.loads((tmp_path / "second" / "results.json").read_text())
    assert result["counts"]["cached"] == before and result["counts"]["answered"] + result["counts"]["invalid"] == n


def test_the_call_worker_gets_an_llm_judge_s_requests_without_their_texts(tmp_path: Path, monkeypatch) -> None:
    """LiteLLMJudge sends only the rendered messages, so the job skips question and responses (half the
    bytes); what the worker and the server see is otherwise the request itself."""
    from judgebench.calls import worker as worker_module

    requests = [judge_request(i) for i in range(6)]
    slim = worker_module._without_texts(requests[0])
    assert (slim.question, slim.first, slim.second) == ("", "", "")
    assert slim.model_dump(exclude={"question", "first", "second"}) == requests[0].model_dump(
        exclude={"question", "first", "second"})
    sent: list[list[JudgeRequest]] = []
    real = worker_module.pickle.dumps
    monkeypatch.setattr(worker_module.pickle, "dumps",
                        lambda obj, *a: (sent.append(obj[0]) if isinstance(obj, tuple) else None) or real(obj, *a))
    with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
        outcome = run_requests(requests, judge_for(server), fast(tmp_path), verdict_parses)
    assert outcome.calls_made == 6 and all(r is not None and r.text for r in outcome.replies)
    assert len(sent) == 1 and [r.first for r in sent[0]] == [""] * 6
    assert [r.messages for r in sent[0]] == [r.messages for r in requests]


class _SlowWarmUpJudge(Judge):
    """A judge whose warm-up (the SDK import, in a real one) takes far longer than the test waits."""

    id = "test/slow-warm-up"
    cacheable = True

    async def warm_up(self) -> None:
        time.sleep(30)  # synchronous, as an import is: the worker's event loop cannot run meanwhile

    async def judge(self, request: JudgeRequest) -> JudgeReply:
        raise AssertionError("never asked")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the call worker is forked on Linux only")
def test_a_call_worker_let_go_before_a_job_exits_without_finishing_its_warm_up(tmp_path: Path) -> None:
    """A fully cached run lets its early-started worker go before sending a job: the worker exits at once
    (code 0) instead of spending seconds of CPU on an import nobody will use (issue 30)."""
    from judgebench.calls.worker import CallWorker

    worker = CallWorker(_SlowWarmUpJudge(), fast(tmp_path))
    pid = worker.pid
    time.sleep(0.3)  # the worker is in its warm-up
    worker.close()
    deadline = time.monotonic() + 10
    status = None
    while time.monotonic() < deadline:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere (background.reap_left_over): it has exited
            break
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        pytest.fail("the let-go worker was still warming up after 10 s")
    assert status is None or os.waitstatus_to_exitcode(status) == 0


def test_the_unreachable_stop_goes_once_a_chunk_has_an_answer():
    """A run's next chunk keeps the "endpoint answers nothing" stop only while nothing was answered: a failed call
    or a never-finished one is no answer; an invalid answer or a cached one is."""
    from judgebench.calls.options import UNREACHABLE_AFTER, RunOutcome

    options = RunnerOptions()
    failed = JudgeReply(error="ConnectionError: refused")
    assert options.for_next_chunk(RunOutcome([None, failed], None, 1)) is options
    for answer in (JudgeReply(text="no verdict here"), JudgeReply(text="[[A]]", cached=True)):
        after = options.for_next_chunk(RunOutcome([failed, answer], None, 1))
        assert (options.unreachable_after, after.unreachable_after) == (UNREACHABLE_AFTER, None)
        assert after.for_next_chunk(RunOutcome([failed], None, 1)) is after  # never back on


def test_a_stop_ends_the_wait_for_rate_tokens() -> None:
    """--rpm 2: a stopped run waited two minutes while its callers queued for tokens they would not use."""
    import asyncio

    async def go() -> tuple[list[bool], float]:
        bucket = TokenBucket(rate=2 / 60, capacity=1.0)
        stopped = False
        assert await bucket.acquire(1.0, lambda: stopped)  # the one token there

        async def stop_soon() -> None:
            nonlocal stopped
            await asyncio.sleep(0.3)
            stopped = True

        start = time.monotonic()
        got = await asyncio.gather(*(bucket.acquire(1.0, lambda: stopped) for _ in range(4)), stop_soon())
        return list(got[:4]), time.monotonic() - start

    got, took = asyncio.run(go())
    assert got == [False] * 4 and took < 2  # each waiter gave up at the stop (the next token was 30 s away)
