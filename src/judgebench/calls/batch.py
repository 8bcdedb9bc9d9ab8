"""`judgebench run --batch`: the judge calls go through the provider's batch API (litellm).

    outcome = run_batch(requests, judge, RunnerOptions(batch=True, batch_poll_s=30), is_parseable)

Called by dispatch.run_requests when `options.batch` is set. Same cache and records as the
normal path:
- Requests are grouped by cache key (judge identity + prompt hash, see cache.py); cache
  hits are never sent (unless --refresh-cache), and identical requests are sent once.
- The missing ones become one JSONL file (custom_id = the cache key, an OpenAI chat
  completions body), uploaded with `litellm.acreate_file(purpose="batch")`, submitted
  with `litellm.acreate_batch`, polled with `litellm.aretrieve_batch` every
  `batch_poll_s` seconds (a tqdm bar follows the batch's request_counts), and the output
  (and error) files are downloaded with `litellm.afile_content`.
- Each output line becomes a JudgeReply (text, tokens, cost from the batch prices of
  litellm's cost map, else None) and is written to the cache as soon as the output is
  downloaded. A line with an error becomes a FAILED reply carrying that error. A batch
  that ends failed, expired or cancelled marks its calls without an output line FAILED,
  with the batch status as the error. Failed calls are not cached: a rerun sends them
  again.
- Unparseable answers are INVALID as usual; there is no re-ask in batch mode.
  `--reask`, `--concurrency`, `--rpm`, `--tpm`, `--max-failures` and `--max-cost` are refused
  (RunnerOptions). `--timeout` and `--max-retries` apply to each API call (upload,
  create, poll, download), retried under the same policy as live calls (policy.py).
- `latency_s` of a batch reply is the batch's wall time (submission to download).
- Providers: BATCH_PROVIDERS (OpenAI's JSONL format through litellm). Anything else, and
  the builtin judges, is a usage error.
- Not kill safe across runs: a run killed while polling leaves its batch running at the
  provider, and a rerun submits the still-missing requests in a new batch.

No file is written besides the cache: the JSONL is uploaded from memory. Secrets (api_key,
header values) are passed to litellm for the calls only, never put in the JSONL. The
judge is used through its public API: split_provider, request_body, client_args,
classify_error, scrub.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from judgebench.calls.cache import cache_key
from judgebench.calls.options import INTERRUPTED, RunnerOptions, RunOutcome
from judgebench.calls.policy import with_retries
from judgebench.calls.progress import Progress
from judgebench.calls.state import RunState, run_to_completion
from judgebench.core.errors import JudgebenchError, squeezed
from judgebench.core.files import jsonl_lines
from judgebench.core.records import JudgeReply, JudgeRequest, reported_count
from judgebench.judges.base import Judge, JudgeCallError
from judgebench.judges.providers import import_litellm
from judgebench.judges.llm import LiteLLMJudge
from judgebench.judges.prices import cost_map_prices, price
from judgebench.judges.reasoning import response_details

# providers whose batch API litellm reaches with OpenAI's batch JSONL format
BATCH_PROVIDERS = ("openai", "azure")
TERMINAL = {"completed", "failed", "expired", "cancelled"}
ENDPOINT = "/v1/chat/completions"


def check_batch_judge(judge: Judge) -> LiteLLMJudge:
    """`judge` if it can go through a batch API, else a one-line JudgebenchError."""
    if not isinstance(judge, LiteLLMJudge):
        raise JudgebenchError(
            f"--batch: judge {judge.id} makes no API calls; --batch needs an LLM judge "
            f"of a provider with a batch API ({', '.join(p + '/' for p in BATCH_PROVIDERS)})"
        )
    provider, _ = judge.split_provider()
    if provider not in BATCH_PROVIDERS:
        raise JudgebenchError(
            f"--batch: provider {provider!r} of judge {judge.id} is not supported "
            f"(batch APIs are used for {', '.join(p + '/' for p in BATCH_PROVIDERS)} only)"
        )
    return judge


def run_batch(
    requests: list[JudgeRequest],
    judge: Judge,
    options: RunnerOptions,
    is_parseable: Callable[[JudgeRequest, str], bool],
) -> RunOutcome:
    """Sync entry point (see module docstring)."""
    run = _BatchRun(requests, check_batch_judge(judge), options, is_parseable)
    try:
        run_to_completion(run.main)
    except KeyboardInterrupt:
        run.stopped = run.stopped or INTERRUPTED
    return run.outcome()


class _BatchStop(Exception):
    """A permanent batch API error: the run stops, requests without a reply stay None."""


class _BatchRun(RunState):
    judge: LiteLLMJudge

    def __init__(
        self,
        requests: list[JudgeRequest],
        judge: LiteLLMJudge,
        options: RunnerOptions,
        is_parseable: Callable[[JudgeRequest, str], bool],
    ):
        super().__init__(requests, judge, options, is_parseable)
        self.provider, self.model_name = judge.split_provider()
        override = getattr(judge, "price_override", None)
        self.prices = override if override is not None else cost_map_prices(self.model_name, self.provider, batch=True)
        judge.timeout_s = options.timeout_s

    async def _call(self, what: str, fn: Callable[..., Awaitable[Any]], **kwargs: Any) -> Any:
        """One litellm call under the retry policy; a permanent error (or the last retry)
        raises _BatchStop, which stops the run with the scrubbed message."""
        try:
            return await with_retries(lambda: fn(**kwargs), self.judge.classify_error, self.options)
        except JudgeCallError as error:
            raise _BatchStop(f"batch API error ({what}): {error}") from None

    # -- the run
    async def main(self) -> None:
        try:
            await self._main()
        except _BatchStop as stop:
            self.stopped = str(stop)
        finally:
            self.close_state()

    def _take_cached(self, groups: dict[str, list[int]]) -> list[str]:
        """Record the cached answers; the keys still to send."""
        cache = self.open_cache()
        found: dict[str, JudgeReply] = {}
        if cache is not None and not self.options.refresh_cache:
            found = {k: r for k, r in cache.get_many(list(groups)).items() if r.text is not None}
        for key, reply in found.items():
            self.record(groups[key], reply, cached=True)
        return [key for key in groups if key not in found]

    def _jsonl(self, groups: dict[str, list[int]], pending: list[str]) -> bytes:
        lines = []
        for key in pending:
            body = self.judge.request_body(self.requests[groups[key][0]].messages)
            line = {"custom_id": key, "method": "POST", "url": ENDPOINT, "body": body}
            lines.append(json.dumps(line, ensure_ascii=False))
        return ("\n".join(lines) + "\n").encode("utf-8")

    async def _main(self) -> None:
        identity = self.judge.cache_identity()
        groups: dict[str, list[int]] = {}
        for i, request in enumerate(self.requests):
            groups.setdefault(cache_key(identity, request.prompt_hash, request.repeat), []).append(i)
        pending = self._take_cached(groups)
        if not pending:
            return
        data = self._jsonl(groups, pending)
        bar = Progress(len(pending), desc="batch") if self.options.progress else None
        try:
            await self._submit_and_collect(groups, pending, data, bar)
        finally:
            if bar is not None:
                bar.close()

    async def _submit_and_collect(
        self, groups: dict[str, list[int]], pending: list[str], data: bytes, bar: Progress | None
    ) -> None:
        litellm = import_litellm()
        kwargs = {**self.judge.client_args(), "timeout": self.options.timeout_s}
        started = time.monotonic()
        uploaded = await self._call(
            "upload",
            litellm.acreate_file,
            file=("judgebench-batch.jsonl", data, "application/jsonl"),
            purpose="batch",
            **kwargs,
        )
        batch = await self._call(
            "create",
            litellm.acreate_batch,
            completion_window="24h",
            endpoint=ENDPOINT,
            input_file_id=uploaded.id,
            metadata={"created_by": "judgebench"},
            **kwargs,
        )
        self.calls_made = len(pending)
        while _get(batch, "status") not in TERMINAL:
            await asyncio.sleep(self.options.batch_poll_s)
            batch = await self._call("retrieve", litellm.aretrieve_batch, batch_id=batch.id, **kwargs)
            if bar is not None:
                counts = _get(batch, "request_counts")
                done = (_get(counts, "completed") or 0) + (_get(counts, "failed") or 0)
                bar.advance_to(done, status=_get(batch, "status"))
        latency = time.monotonic() - started
        results: dict[str, JudgeReply] = {}
        for file_id in (_get(batch, "output_file_id"), _get(batch, "error_file_id")):
            if not file_id:
                continue
            content = await self._call("download", litellm.afile_content, file_id=file_id, **kwargs)
            for raw in jsonl_lines(_content_bytes(content).decode("utf-8")):
                parsed = self._parse_line(raw, latency)
                if parsed is None or parsed[0] not in groups or parsed[0] in results:
                    continue
                key, reply = parsed
                results[key] = reply
                self.store(key, reply, self.requests[groups[key][0]])
        status = _get(batch, "status")
        for key in pending:
            reply = results.get(key) or JudgeReply(
                text=None,
                error=f"batch {batch.id} ended {status} without an answer for this request",
                latency_s=latency,
                attempts=1,
            )
            self.record(groups[key], reply)
        if bar is not None:
            failed = sum(1 for k in pending if results.get(k) is None or results[k].text is None)
            bar.advance_to(len(pending), status=status, failed=failed)

    def _parse_line(self, raw: str, latency: float) -> tuple[str, JudgeReply] | None:
        """(custom_id, reply) of one output or error line; None for a line without an id."""
        raw = raw.strip()
        if not raw:
            return None
        try:
            line = json.loads(raw)
            key = str(line["custom_id"])
        except (ValueError, KeyError, TypeError):
            return None
        scrub = self.judge.scrub
        response = line.get("response") or {}
        body = response.get("body") if isinstance(response, dict) else None
        status = response.get("status_code") if isinstance(response, dict) else None
        error = line.get("error")
        if error or status != 200 or not isinstance(body, dict):
            detail = error or (body.get("error") if isinstance(body, dict) else None) or body
            if isinstance(detail, dict):
                detail = detail.get("message") or json.dumps(detail)
            prefix = f"HTTP {status}: " if isinstance(status, int) and status != 200 else ""
            return key, JudgeReply(
                text=None, error=scrub(f"batch line error: {prefix}{detail}"), latency_s=latency, attempts=1
            )
        try:
            text = body["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            return key, JudgeReply(
                text=None,
                error=squeezed(scrub(f"batch line error: malformed response {raw[:10_000]!r}"), 300),  # (scrubbed, then cut)
                latency_s=latency,
                attempts=1,
            )
        usage = body.get("usage") or {}
        tokens_in = usage.get("prompt_tokens")
        tokens_out = usage.get("completion_tokens")
        return key, JudgeReply(
            text=text if isinstance(text, str) else "",
            tokens_in=reported_count(tokens_in),
            tokens_out=reported_count(tokens_out),
            cost_usd=price(self.prices, tokens_in, tokens_out),
            latency_s=latency,
            attempts=1,
            **response_details(body),
        )


def _get(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _content_bytes(content: Any) -> bytes:
    if isinstance(content, bytes):
        return content
    data = getattr(content, "content", None)
    if isinstance(data, bytes):
        return data
    read = getattr(content, "read", None)
    if read is not None:
        return bytes(read())
    return str(content).encode("utf-8")
