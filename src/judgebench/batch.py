"""`judgebench run --batch`: the judge calls go through the provider's batch API (litellm).

    outcome = run_batch(requests, judge, RunnerOptions(batch=True, batch_poll_s=30), is_parseable)

Called by runner.run_requests when `options.batch` is set. Same cache and records as the
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
- Unparseable answers are INVALID as usual; there is no re-ask in batch mode (`--reask`
  is ignored), nor `--concurrency`, `--rpm`, `--tpm` or `--max-failures`. `--timeout` and
  `--max-retries` apply to each API call (upload, create, poll, download).
- `latency_s` of a batch reply is the batch's wall time (submission to download).
- Providers: BATCH_PROVIDERS (OpenAI's JSONL format through litellm). Anything else, and
  the builtin judges, is a usage error.
- Not kill safe across runs: a run killed while polling leaves its batch running at the
  provider, and a rerun submits the still-missing requests in a new batch.

No file is written besides the cache: the JSONL is uploaded from memory. Secrets (api_key,
header values) are passed to litellm for the calls only, never put in the JSONL.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import random
import sqlite3
import time
from collections.abc import Callable
from typing import Any

from .errors import JudgebenchError
from .judges.base import Judge, JudgeCallError
from .records import JudgeReply, JudgeRequest

# providers whose batch API litellm reaches with OpenAI's batch JSONL format
BATCH_PROVIDERS = ("openai", "azure")
TERMINAL = {"completed", "failed", "expired", "cancelled"}
ENDPOINT = "/v1/chat/completions"


def check_batch_judge(judge: Judge) -> None:
    """Raise a one-line JudgebenchError unless `judge` can go through a batch API."""
    from .judges.llm import LiteLLMJudge

    if not isinstance(judge, LiteLLMJudge):
        raise JudgebenchError(
            f"--batch: judge {judge.id} makes no API calls; --batch needs an LLM judge "
            f"of a provider with a batch API ({', '.join(p + '/' for p in BATCH_PROVIDERS)})"
        )
    provider, _ = judge._split_provider()
    if provider not in BATCH_PROVIDERS:
        raise JudgebenchError(
            f"--batch: provider {provider!r} of judge {judge.id} is not supported "
            f"(batch APIs are used for {', '.join(p + '/' for p in BATCH_PROVIDERS)} only)"
        )


def batch_prices(model: str, provider: str) -> tuple[float, float] | None:
    """(input, output) USD per token at batch prices from litellm's cost map, or None."""
    from .judges.llm import _load_cost_map

    cost_map = _load_cost_map()
    for name in (f"{provider}/{model}", model):
        entry = cost_map.get(name)
        if not isinstance(entry, dict):
            continue
        price_in = entry.get("input_cost_per_token_batches")
        price_out = entry.get("output_cost_per_token_batches")
        if isinstance(price_in, (int, float)) and isinstance(price_out, (int, float)):
            return float(price_in), float(price_out)
    return None


def run_batch(
    requests: list[JudgeRequest],
    judge: Judge,
    options: Any,
    is_parseable: Callable[[JudgeRequest, str], bool],
) -> Any:
    """Sync entry point (see module docstring); returns a runner.RunOutcome."""
    check_batch_judge(judge)
    try:
        asyncio.get_running_loop()
        in_loop = True
    except RuntimeError:
        in_loop = False
    run = _BatchRun(requests, judge, options, is_parseable)  # type: ignore[arg-type]
    if in_loop:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, run.main()).result()
    else:
        try:
            asyncio.run(run.main())
        except KeyboardInterrupt:
            run.stopped = run.stopped or "interrupted"
    return run.outcome()


class _BatchRun:
    def __init__(
        self,
        requests: list[JudgeRequest],
        judge: Any,
        options: Any,
        is_parseable: Callable[[JudgeRequest, str], bool],
    ):
        self.requests = requests
        self.judge = judge
        self.options = options
        self.is_parseable = is_parseable
        self.replies: list[JudgeReply | None] = [None] * len(requests)
        self.stopped: str | None = None
        self.calls_made = 0
        self.cache: Any = None
        self.cache_error: str | None = None
        self.provider, self.model_name = judge._split_provider()

    def outcome(self) -> Any:
        from .runner import RunOutcome

        return RunOutcome(list(self.replies), self.stopped, self.calls_made)

    # -- litellm arguments
    def _call_kwargs(self) -> dict[str, Any]:
        """Connection arguments for every litellm files/batches call (secrets included)."""
        args = self.judge._args
        kwargs: dict[str, Any] = {"custom_llm_provider": self.provider}
        for name in ("api_base", "api_version", "organization"):
            if args.get(name):
                kwargs[name] = args[name]
        key = self.judge._api_key or os.environ.get(f"{self.provider.upper()}_API_KEY")
        if key:
            kwargs["api_key"] = key
        elif self.provider == "openai" and args.get("api_base"):
            kwargs["api_key"] = "no-key"  # a keyless OpenAI-compatible server
        if self.judge._headers:
            kwargs["extra_headers"] = dict(self.judge._headers)
        kwargs["timeout"] = self.options.timeout_s
        return kwargs

    def _body(self, request: JudgeRequest) -> dict[str, Any]:
        from .judges.llm import CLIENT_ARGS

        body: dict[str, Any] = {"model": self.model_name, "messages": request.messages}
        for name, value in self.judge._args.items():
            if name in CLIENT_ARGS:
                continue
            if name == "extra_body" and isinstance(value, dict):
                body.update(value)
            else:
                body[name] = value
        return body

    async def _call(self, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """One litellm call, retried on transient errors (429, 5xx, timeouts) up to
        --max-retries; a permanent error (or the last retry) raises _BatchStop, which stops
        the run with the scrubbed message."""
        retry = 0
        while True:
            try:
                return await fn(*args, **kwargs)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                error: JudgeCallError = self.judge._convert_litellm_error(exc)
            if not error.retryable or retry >= self.options.max_retries:
                raise _BatchStop(f"batch API error ({what}): {error}")
            retry += 1
            delay = random.uniform(
                0.0, min(self.options.backoff_max_s, self.options.backoff_base_s * 2**retry)
            )
            if error.retry_after_s is not None:
                delay = max(delay, min(error.retry_after_s, 600.0))
            await asyncio.sleep(delay)

    # -- the run
    async def main(self) -> None:
        try:
            await self._main()
        except _BatchStop as stop:
            self.stopped = str(stop)
        finally:
            if self.cache_error is not None:
                self.stopped = self.stopped or self.cache_error
            if self.cache is not None:
                self.cache.close()
                self.cache = None

    async def _main(self) -> None:
        from .cache import ReplyCache, cache_key

        options = self.options
        identity = self.judge.cache_identity()
        groups: dict[str, list[int]] = {}
        for i, request in enumerate(self.requests):
            groups.setdefault(cache_key(identity, request.prompt_hash), []).append(i)
        if options.use_cache:
            self.cache = ReplyCache(options.cache_dir)
        found: dict[str, JudgeReply] = {}
        if self.cache is not None and not options.refresh_cache:
            found = {k: r for k, r in self.cache.get_many(list(groups)).items() if r.text is not None}
        for key, reply in found.items():
            for index in groups[key]:
                self.replies[index] = reply.model_copy(update={"cached": True})
        pending = [key for key in groups if key not in found]
        if not pending:
            return
        lines = []
        for key in pending:
            request = self.requests[groups[key][0]]
            line = {"custom_id": key, "method": "POST", "url": ENDPOINT, "body": self._body(request)}
            lines.append(json.dumps(line, ensure_ascii=False))
        data = ("\n".join(lines) + "\n").encode("utf-8")

        from .judges.llm import _import_litellm

        litellm = _import_litellm()
        kwargs = self._call_kwargs()
        bar = None
        if options.progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(pending), desc="batch", unit="call", dynamic_ncols=True)
        started = time.monotonic()
        try:
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
                await asyncio.sleep(max(0.0, options.batch_poll_s))
                batch = await self._call("retrieve", litellm.aretrieve_batch, batch_id=batch.id, **kwargs)
                if bar is not None:
                    counts = _get(batch, "request_counts")
                    done = (_get(counts, "completed") or 0) + (_get(counts, "failed") or 0)
                    bar.update(max(0, min(len(pending), done) - bar.n))
                    bar.set_postfix(status=_get(batch, "status"), refresh=False)
            latency = time.monotonic() - started
            results: dict[str, JudgeReply] = {}
            for file_id in (_get(batch, "output_file_id"), _get(batch, "error_file_id")):
                if not file_id:
                    continue
                content = await self._call("download", litellm.afile_content, file_id=file_id, **kwargs)
                for raw in _content_bytes(content).decode("utf-8").splitlines():
                    parsed = self._parse_line(raw, latency)
                    if parsed is None:
                        continue
                    key, reply = parsed
                    if key not in groups or key in results:
                        continue
                    results[key] = reply
                    self._store(key, reply, self.requests[groups[key][0]])
            status = _get(batch, "status")
            for key in pending:
                reply = results.get(key)
                if reply is None:
                    reply = JudgeReply(
                        text=None,
                        error=f"batch {batch.id} ended {status} without an answer for this request",
                        latency_s=latency,
                        attempts=1,
                    )
                for position, index in enumerate(groups[key]):
                    self.replies[index] = reply.model_copy(update={"cached": True}) if position else reply
            if bar is not None:
                bar.update(len(pending) - bar.n)
                failed = sum(1 for k in pending if results.get(k) is None or results[k].text is None)
                bar.set_postfix(status=status, failed=failed, refresh=False)
        finally:
            if bar is not None:
                bar.close()

    def _store(self, key: str, reply: JudgeReply, request: JudgeRequest) -> None:
        """Cache an answer; a failed write (disk full) keeps the answers in the replies and
        stops the run once they are all collected."""
        if self.cache is None or reply.text is None or self.cache_error is not None:
            return
        try:
            self.cache.put(key, reply, judge=self.judge.id, prompt_hash=request.prompt_hash)
        except (sqlite3.Error, OSError) as exc:
            self.cache_error = (
                f"cache {self.cache.path}: cannot write ({exc}); stopped, the answers received "
                "are kept in this run's results"
            )

    def _parse_line(self, raw: str, latency: float) -> tuple[str, JudgeReply] | None:
        raw = raw.strip()
        if not raw:
            return None
        try:
            line = json.loads(raw)
            key = str(line["custom_id"])
        except (ValueError, KeyError, TypeError):
            return None
        scrub = self.judge._scrub
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
                error=scrub(f"batch line error: malformed response {raw[:200]!r}"),
                latency_s=latency,
                attempts=1,
            )
        usage = body.get("usage") or {}
        tokens_in = usage.get("prompt_tokens")
        tokens_out = usage.get("completion_tokens")
        cost = None
        prices = batch_prices(self.model_name, self.provider)
        if prices is not None and isinstance(tokens_in, int) and isinstance(tokens_out, int):
            cost = tokens_in * prices[0] + tokens_out * prices[1]
        return key, JudgeReply(
            text=text if isinstance(text, str) else "",
            tokens_in=tokens_in if isinstance(tokens_in, int) else None,
            tokens_out=tokens_out if isinstance(tokens_out, int) else None,
            cost_usd=cost,
            latency_s=latency,
            attempts=1,
        )


class _BatchStop(Exception):
    """A permanent batch API error: the run stops, requests without a reply stay None."""


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
        return read()
    return str(content).encode("utf-8")
