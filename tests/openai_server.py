"""A real OpenAI-compatible chat-completions server on 127.0.0.1 for tests and benchmarks.

No monkeypatching: clients (litellm, the CLI, a killed subprocess) talk HTTP to it.

    from openai_server import Behaviour, FakeOpenAIServer

    with FakeOpenAIServer(Behaviour(latency_s=0.05, answer="[[A]]")) as server:
        api_base = server.api_base            # http://127.0.0.1:PORT/v1
        ...
        stats = server.stats()                # every request it saw, by prompt
        assert stats.duplicate_answers() == 0

Behaviour per request, decided in this order:
  1. `status`: every request gets this HTTP status (e.g. 401) - a permanent error;
     `action_fn(messages)` (thread mode) returns a status, "hang" or "malformed" for some
     prompts, else None (then the rules below apply).
  2. `script`: for each distinct (model, prompt) pair, the first attempts follow
     the script, e.g. (429, 500) -> 429, then 500, then a normal answer. Entries are HTTP
     statuses, "hang" (no answer until the client gives up) or "malformed".
  3. random faults (seeded): `error_rate` (429/500 alternately picked from `error_statuses`),
     `hang_rate`, `malformed_rate`.
  4. the answer: `answer` is a literal text, "@hash" ("[[A]]" or "[[B]]" picked from the
     prompt hash), "@essay" (a short Markdown answer naming the model, its length varying by
     model and question: stand-in answers for `judgebench pairs`), or (thread mode only) a callable messages -> text.
429 (and 503) answers carry `Retry-After: retry_after_s` when it is set; `error_message`
replaces the error text ("fake error <status>") of every error answer.
`api_status`: every batch API request (files, batches) is answered with this status (e.g.
401) and logged as a request of model "(batch-api)".

Batch API (OpenAI-compatible): POST /v1/files (multipart upload), GET /v1/files/{id}[/content],
POST /v1/batches, GET /v1/batches/{id}, GET /v1/batches (the list, newest first, paged by `limit` and `after`;
`batch_list_status` refuses it). A batch is "in_progress" until `batch_delay_s` has
passed since its creation; the next GET processes its first `batch_answer_limit` lines (all
by default) with the same `status` / `action_fn` / `answer` rules (an int action -> an error
line in the error file, "malformed" -> the malformed text; scripts and random faults do not
apply), logs each line as a request and ends the batch `batch_status` ("completed",
"expired", ...). `batch_statuses` makes its GETs report those statuses in turn (the last repeated: a batch
stuck in "finalizing", or one with a status no client knows), never ending; `batch_age_s` dates its created_at back.

Per-model behaviour: `FakeOpenAIServer(default, models={"slow-model": Behaviour(...)})`,
matched on the request's "model" field.

Accounting: each request is logged with its model, prompt hash (sha256 of the messages),
body hash and outcome: "answered" / "malformed" only once the response was actually
written to a connected client (a client that disconnects or is killed while the server
is sleeping is logged "cancelled"), "error:<status>", "hang". Secrets given in
`watch_secrets` are searched for in the URL, the body and every header but
Authorization; any hit is logged in `leaks`.

Modes: `mode="thread"` (default) serves from a background thread of this process - tests
can pass callables and read stats directly; `mode="process"` runs `python openai_server.py`
in its own process (for benchmarks: the server then does not compete for this process's
GIL); stats come over HTTP from GET /_stats in both modes.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import hashlib
import json
import math
import os
import random
import re
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

Answer = str | Callable[[list[dict[str, Any]]], str]


@dataclass
class Behaviour:
    latency_s: float = 0.0  # mean answer latency
    jitter_s: float = 0.0  # latency uniform in [mean - jitter, mean + jitter]
    error_rate: float = 0.0  # share of requests answered with an error status
    error_statuses: tuple[int, ...] = (429, 500)
    retry_after_s: float | None = None  # Retry-After header on 429/503 answers
    hang_rate: float = 0.0  # share of requests that never answer
    hang_s: float = 3600.0
    malformed_rate: float = 0.0  # share of requests answered with a non-verdict
    malformed_text: str = "Both responses have strengths and weaknesses; I cannot decide."
    answer: Answer = "[[A]]"
    script: Sequence[int | str] = ()  # per distinct prompt, outcomes of the first attempts
    status: int | None = None  # every request answered with this status
    action_fn: Callable[[list[dict[str, Any]]], int | str | None] | None = None  # thread mode only
    echo_key_in_errors: bool = False  # error messages quote the bearer token, like some providers
    error_message: str | None = None  # the text of every error answer (default "fake error <status>")
    api_status: int | None = None  # every files/batches request answered with this status
    # batch API (/v1/files, /v1/batches): a batch ends `batch_status` once `batch_delay_s`
    # has passed since it was created; only its first `batch_answer_limit` lines get an answer
    batch_delay_s: float = 0.1
    batch_create_delay_s: float = 0.0  # POST /v1/batches answers this long after the batch is made (a slow create)
    file_content_delay_s: float = 0.0  # GET /v1/files/{id}/content answers this long after it is asked (a slow download)
    batch_status: str = "completed"
    batch_answer_limit: int | None = None
    batch_statuses: Sequence[str] = ()  # when set: the statuses successive GETs report, the last repeated; never ends
    batch_age_s: float = 0.0  # a batch's created_at this far in the past
    batch_list_status: int | None = None  # GET /v1/batches (the list) answered with this status (a provider without it)
    # reasoning judges: the answer's finish_reason; reasoning text returned as
    # message.reasoning_content (its tokens, len // 4 + 1, reported as
    # usage.completion_tokens_details.reasoning_tokens); the model snapshot served: the
    # request's model, else the last (n, name) of `served_models` whose n <= the number of
    # answers this server already gave (e.g. ((0, "m-0301"), (5, "m-0612")): a change after 5)
    finish_reason: str = "stop"
    reasoning_content: str | None = None
    served_models: Sequence[tuple[int, str]] = ()
    usage: dict[str, Any] | None = None  # replaces these usage fields of every answer (a provider's nonsense figures)
    # log-probabilities (a request with "logprobs": true): every answer token gets a logprob; the verdict token
    # (the letter inside [[X]]) gets these probabilities for its top alternatives (token -> probability; by
    # default the chosen letter 0.9 and the others 0.1 shared), `verdict_probs_fn(messages)` (thread mode)
    # overriding it per prompt; other tokens are sure (logprob 0). Cut to the request's top_logprobs.
    verdict_probs: dict[str, float] | None = None
    verdict_probs_fn: Callable[[list[dict[str, Any]]], dict[str, float] | None] | None = None
    # reasoning budgets: the reasoning text per request `reasoning_effort` (replacing reasoning_content for
    # that effort); honour_max_tokens: a request whose max_tokens is below the reasoning tokens + answer tokens
    # is cut off (finish_reason "length", the answer cut to what is left: empty once reasoning used it all)
    reasoning_by_effort: dict[str, str] | None = None
    honour_max_tokens: bool = False

    def to_json(self) -> dict[str, Any]:
        if callable(self.answer) or self.action_fn is not None or self.verdict_probs_fn is not None:
            raise ValueError("callables (answer, action_fn) work in thread mode only")
        data = dataclasses.asdict(self)
        data.pop("action_fn")
        data.pop("verdict_probs_fn")
        data["error_statuses"] = list(self.error_statuses)
        data["script"] = list(self.script)
        data["served_models"] = [list(pair) for pair in self.served_models]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Behaviour:
        data = dict(data)
        data.pop("action_fn", None)
        data.pop("verdict_probs_fn", None)
        data["error_statuses"] = tuple(data.get("error_statuses", (429, 500)))
        data["script"] = tuple(data.get("script", ()))
        data["served_models"] = tuple((int(n), str(name)) for n, name in data.get("served_models", ()))
        return cls(**data)


_TOKENS = re.compile(r"\[\[|\]\]|\w+|\s+|.", re.DOTALL)


def _logprobs(beh: Behaviour, text: str, top_n: int, messages: list[dict[str, Any]] | None) -> dict[str, Any]:
    """An OpenAI-shaped `logprobs` object for `text`: the token after "[[" gets the verdict probabilities."""
    content = []
    tokens = _TOKENS.findall(text)
    for i, token in enumerate(tokens):
        probs = {token: 1.0}
        if i > 0 and tokens[i - 1] == "[[" and token in ("A", "B", "C", "TIE"):
            probs = (beh.verdict_probs_fn(messages or []) if beh.verdict_probs_fn else None) or beh.verdict_probs
            if probs is None:
                others = [t for t in ("A", "B", "C") if t != token]
                probs = {token: 0.9, **{t: 0.1 / len(others) for t in others}}
        chosen = math.log(probs[token]) if probs.get(token, 0) > 0 else -9999.0
        top = sorted(probs.items(), key=lambda kv: -kv[1])[: max(top_n, 0)]
        content.append({
            "token": token, "logprob": chosen, "bytes": list(token.encode()),
            "top_logprobs": [{"token": t, "logprob": math.log(p) if p > 0 else -9999.0, "bytes": list(t.encode())}
                             for t, p in top],
        })
    return {"content": content}


def _completion(beh: Behaviour, model: str, text: str, prompt_chars: int, answers_before: int,
                body: dict[str, Any] | None = None) -> dict[str, Any]:
    """The chat completion fields besides id/object/created: model, choices, usage. Tokens:
    prompt_chars // 4 + 1 in (what judgebench's chars-per-token estimate counts), len(text) // 4 + 1 out."""
    served = model
    for after, name in beh.served_models:
        if answers_before >= after:
            served = name
    reasoning, finish = beh.reasoning_content, beh.finish_reason
    if beh.reasoning_by_effort and body and body.get("reasoning_effort") in beh.reasoning_by_effort:
        reasoning = beh.reasoning_by_effort[body["reasoning_effort"]]
    cap = body.get("max_tokens") if body and beh.honour_max_tokens else None
    if isinstance(cap, int):
        thought_tokens = len(reasoning) // 4 + 1 if reasoning is not None else 0
        left = cap - thought_tokens
        if len(text) // 4 + 1 > left:
            text, finish = (text[: max(left, 0) * 4] if left > 0 else ""), "length"
    beh = dataclasses.replace(beh, reasoning_content=reasoning, finish_reason=finish)
    message: dict[str, Any] = {"role": "assistant", "content": text}
    usage: dict[str, Any] = {
        "prompt_tokens": prompt_chars // 4 + 1,
        "completion_tokens": len(text) // 4 + 1,
        "total_tokens": prompt_chars // 4 + len(text) // 4 + 2,
    }
    if beh.reasoning_content is not None:
        message["reasoning_content"] = beh.reasoning_content
        thought = len(beh.reasoning_content) // 4 + 1
        usage["completion_tokens"] += thought
        usage["total_tokens"] += thought
        usage["completion_tokens_details"] = {"reasoning_tokens": thought}
    usage.update(beh.usage or {})
    choice: dict[str, Any] = {"index": 0, "message": message, "finish_reason": beh.finish_reason}
    if body and body.get("logprobs"):
        choice["logprobs"] = _logprobs(beh, text, int(body.get("top_logprobs") or 0), body.get("messages"))
    return {
        "model": served,
        "choices": [choice],
        "usage": usage,
    }


def messages_hash(messages: Any) -> str:
    return hashlib.sha256(
        json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()
    ).hexdigest()


@dataclass
class RequestLog:
    model: str
    prompt_hash: str
    body_hash: str
    outcome: str  # answered | malformed | error:<status> | hang | cancelled | bad-body
    started: float
    ended: float | None = None
    authorization: str | None = None


@dataclass
class ServerStats:
    requests: list[RequestLog]
    leaks: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.requests)

    def outcomes(self) -> Counter[str]:
        return Counter(r.outcome for r in self.requests)

    def answered_by_prompt(self) -> Counter[str]:
        """Prompt hash -> number of 200 answers delivered (answered or malformed)."""
        return Counter(
            r.prompt_hash for r in self.requests if r.outcome in ("answered", "malformed")
        )

    def answered(self) -> int:
        return sum(self.answered_by_prompt().values())

    def duplicate_answers(self) -> int:
        """Answers delivered for a prompt that had already been answered."""
        return sum(n - 1 for n in self.answered_by_prompt().values() if n > 1)

    def by_prompt(self) -> Counter[str]:
        return Counter(r.prompt_hash for r in self.requests)

    def models(self) -> Counter[str]:
        return Counter(r.model for r in self.requests)

    def first_request(self) -> float | None:
        return min((r.started for r in self.requests), default=None)

    def last_response(self) -> float | None:
        return max((r.ended for r in self.requests if r.ended), default=None)

    def max_in_flight(self) -> int:
        """Most requests the server was handling at the same moment."""
        events = []
        for r in self.requests:
            events.append((r.started, 1))
            events.append((r.ended if r.ended is not None else float("inf"), -1))
        peak = current = 0
        for _, delta in sorted(events, key=lambda e: (e[0], e[1])):
            current += delta
            peak = max(peak, current)
        return peak

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ServerStats:
        return cls([RequestLog(**r) for r in data["requests"]], list(data["leaks"]))


class _App:
    """The aiohttp application and its bookkeeping (runs inside one event loop)."""

    def __init__(
        self,
        default: Behaviour,
        models: dict[str, Behaviour],
        seed: int,
        watch_secrets: Sequence[str],
    ):
        self.default = default
        self.models = models
        self.rng = random.Random(seed)
        self.watch_secrets = [s for s in watch_secrets if s]
        self.log: list[RequestLog] = []
        self.leaks: list[str] = []
        self.script_pos: Counter[tuple[str, str]] = Counter()
        self.answers = 0  # chat answers given (served_models switches on it)
        self.lock = threading.Lock()
        self.app = web.Application(client_max_size=64 * 1024 * 1024)
        self.app.router.add_post("/v1/chat/completions", self.chat)
        self.app.router.add_post("/chat/completions", self.chat)
        self.app.router.add_get("/v1/models", self.list_models)
        self.app.router.add_post("/v1/files", self.create_file)
        self.app.router.add_get("/v1/files/{file_id}", self.get_file)
        self.app.router.add_get("/v1/files/{file_id}/content", self.file_content)
        self.app.router.add_post("/v1/batches", self.create_batch)
        self.app.router.add_get("/v1/batches/{batch_id}", self.get_batch)
        self.app.router.add_get("/v1/batches", self.list_batches)
        self.files: dict[str, tuple[dict[str, Any], bytes]] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.batch_started: dict[str, float] = {}
        self.batch_polls = 0  # GET /v1/batches/{id} requests (a run polling a batch)
        self.batch_lists = 0  # GET /v1/batches requests
        self.file_downloads: Counter[str] = Counter()  # GET /v1/files/{id}/content requests, by file id
        self.app.router.add_get("/_stats", self.stats_handler)
        self.app.router.add_post("/_reset", self.reset_handler)

    def behaviour(self, model: str) -> Behaviour:
        return self.models.get(model, self.default)

    def stats(self) -> ServerStats:
        with self.lock:
            return ServerStats([dataclasses.replace(r) for r in self.log], list(self.leaks))

    def reset(self) -> None:
        with self.lock:
            self.log.clear()
            self.leaks.clear()
            self.script_pos.clear()
            self.answers = 0

    async def stats_handler(self, request: web.Request) -> web.Response:
        stats = self.stats()
        return web.json_response(
            {"requests": [dataclasses.asdict(r) for r in stats.requests], "leaks": stats.leaks}
        )

    async def reset_handler(self, request: web.Request) -> web.Response:
        self.reset()
        return web.json_response({"ok": True})

    async def list_models(self, request: web.Request) -> web.Response:
        names = sorted(self.models) or ["fake-model"]
        return web.json_response(
            {"object": "list", "data": [{"id": n, "object": "model"} for n in names]}
        )

    def _check_leaks(self, request: web.Request, raw: bytes) -> None:
        if not self.watch_secrets:
            return
        text = raw.decode("utf-8", "replace")
        for secret in self.watch_secrets:
            where = []
            if secret in str(request.rel_url):
                where.append("url")
            if secret in text:
                where.append("body")
            for name, value in request.headers.items():
                if name.lower() != "authorization" and secret in value:
                    where.append(f"header {name}")
            if where:
                self.leaks.append(f"secret found in {', '.join(where)}")

    # -- batch API (OpenAI-compatible): files and batches, answered with the same Behaviour
    def _add_file(self, data: bytes, filename: str, purpose: str) -> dict[str, Any]:
        with self.lock:
            file_id = f"file-{len(self.files) + 1}"
            info = {
                "id": file_id,
                "object": "file",
                "bytes": len(data),
                "created_at": int(time.time()),
                "filename": filename,
                "purpose": purpose,
                "status": "processed",
            }
            self.files[file_id] = (info, data)
        return info

    def _api_refusal(self) -> web.Response | None:
        """The `api_status` answer of a batch API request (logged), when set."""
        status = self.default.api_status
        if status is None:
            return None
        now = time.time()
        with self.lock:
            self.log.append(RequestLog("(batch-api)", "", "", f"error:{status}", now, now))
        return self._error(status, self.default.error_message or f"fake error {status}", None)

    async def create_file(self, request: web.Request) -> web.Response:
        raw = await request.read()
        with self.lock:
            self._check_leaks(request, raw)
        refusal = self._api_refusal()
        if refusal is not None:
            return refusal
        fields = parse_multipart(request.headers.get("Content-Type", ""), raw)
        if "file" not in fields:
            return self._error(400, "no file in the upload", None)
        filename, data = fields["file"]
        purpose = fields.get("purpose", (None, b"batch"))[1].decode()
        return web.json_response(self._add_file(bytes(data), filename or "upload.jsonl", purpose))

    async def get_file(self, request: web.Request) -> web.Response:
        entry = self.files.get(request.match_info["file_id"])
        if entry is None:
            return self._error(404, "no such file", None)
        return web.json_response(entry[0])

    async def file_content(self, request: web.Request) -> web.Response:
        with self.lock:
            self.file_downloads[request.match_info["file_id"]] += 1
        entry = self.files.get(request.match_info["file_id"])
        if entry is None:
            return self._error(404, "no such file", None)
        if self.default.file_content_delay_s:
            await asyncio.sleep(self.default.file_content_delay_s)
        return web.Response(body=entry[1], content_type="application/octet-stream")

    async def create_batch(self, request: web.Request) -> web.Response:
        raw = await request.read()
        with self.lock:
            self._check_leaks(request, raw)
        refusal = self._api_refusal()
        if refusal is not None:
            return refusal
        body = json.loads(raw)
        entry = self.files.get(body.get("input_file_id", ""))
        if entry is None:
            return self._error(404, "no such input file", None)
        lines = [json.loads(x) for x in entry[1].decode().splitlines() if x.strip()]
        now = time.time()
        with self.lock:
            batch_id = f"batch_{len(self.batches) + 1}"
            self.batches[batch_id] = {
                "id": batch_id,
                "object": "batch",
                "endpoint": body.get("endpoint", "/v1/chat/completions"),
                "errors": None,
                "input_file_id": body["input_file_id"],
                "completion_window": body.get("completion_window", "24h"),
                "status": "validating",
                "output_file_id": None,
                "error_file_id": None,
                "created_at": int(now - self.default.batch_age_s),
                "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
                "metadata": body.get("metadata"),
                "_lines": lines,
            }
            self.batch_started[batch_id] = now
        if self.default.batch_create_delay_s:  # made at the provider, its answer slow to come
            await asyncio.sleep(self.default.batch_create_delay_s)
        return web.json_response(self._public_batch(self.batches[batch_id]))

    @staticmethod
    def _public_batch(batch: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in batch.items() if not k.startswith("_")}

    def _batch_line(self, line: dict[str, Any], beh: Behaviour) -> tuple[dict[str, Any], bool]:
        """(output line, ok) for one batch request line."""
        body = line.get("body") or {}
        messages = body.get("messages") or []
        model = str(body.get("model", ""))
        prompt_hash = messages_hash(messages)
        raw = json.dumps(body, sort_keys=True).encode()
        action: int | str = "answer"
        forced = beh.action_fn(messages) if beh.action_fn is not None else None
        if beh.status is not None:
            action = beh.status
        elif forced is not None:
            action = forced
        now = time.time()
        entry = RequestLog(model, prompt_hash, hashlib.sha256(raw).hexdigest(), "pending", now, now)
        with self.lock:
            self.log.append(entry)
        request_id = f"req_{prompt_hash[:12]}"
        if isinstance(action, int):
            entry.outcome = f"error:{action}"
            error = {"message": f"fake error {action}", "type": "server_error", "code": str(action)}
            out = {"status_code": action, "request_id": request_id, "body": {"error": error}}
            return {"id": f"batch_req_{prompt_hash[:12]}", "custom_id": line.get("custom_id"), "response": out, "error": None}, False
        if action == "malformed":
            text = beh.malformed_text
        elif callable(beh.answer):
            text = beh.answer(messages)
        elif beh.answer == "@hash":
            text = "[[A]]" if int(prompt_hash[:8], 16) % 2 == 0 else "[[B]]"
        elif beh.answer == "@essay":
            text = essay_answer(model, messages)
        else:
            text = beh.answer
        entry.outcome = "malformed" if action == "malformed" else "answered"
        prompt_chars = sum(len(str(m.get("content", ""))) for m in messages)
        with self.lock:
            answers_before = self.answers
            self.answers += 1
        completion = {
            "id": f"chatcmpl-{prompt_hash[:12]}-batch",
            "object": "chat.completion",
            "created": int(now),
            **_completion(beh, model, text, prompt_chars, answers_before),
        }
        out = {"status_code": 200, "request_id": request_id, "body": completion}
        return {"id": f"batch_req_{prompt_hash[:12]}", "custom_id": line.get("custom_id"), "response": out, "error": None}, True

    async def list_batches(self, request: web.Request) -> web.Response:
        """The batches, newest first, `limit` (default 20) after the id `after`, as OpenAI pages them."""
        with self.lock:
            self.batch_lists += 1
        if self.default.batch_list_status is not None:
            return self._error(self.default.batch_list_status, f"fake error {self.default.batch_list_status}", None)
        ordered = sorted(self.batches.values(), key=lambda b: self.batch_started[b["id"]], reverse=True)
        after = request.query.get("after")
        if after:
            ids = [b["id"] for b in ordered]
            ordered = ordered[ids.index(after) + 1:] if after in ids else []
        limit = int(request.query.get("limit", 20))
        page = [self._public_batch(b) for b in ordered[:limit]]
        return web.json_response({"object": "list", "data": page, "first_id": page[0]["id"] if page else None,
                                  "last_id": page[-1]["id"] if page else None, "has_more": len(ordered) > limit})

    async def get_batch(self, request: web.Request) -> web.Response:
        batch_id = request.match_info["batch_id"]
        with self.lock:
            self.batch_polls += 1
        batch = self.batches.get(batch_id)
        if batch is None:
            return self._error(404, "no such batch", None)
        lines = batch["_lines"]
        if batch["status"] in ("validating", "in_progress"):
            first = lines[0] if lines else {}
            beh = self.behaviour(str((first.get("body") or {}).get("model", "")))
            elapsed = time.time() - self.batch_started[batch_id]
            if beh.batch_statuses:  # a batch stuck in (or wandering through) the given statuses
                batch["_polls"] = batch.get("_polls", 0) + 1
                status = beh.batch_statuses[min(batch["_polls"], len(beh.batch_statuses)) - 1]
                return web.json_response({**self._public_batch(batch), "status": status})
            if elapsed < beh.batch_delay_s:
                batch["status"] = "in_progress"
            else:
                limit = len(lines) if beh.batch_answer_limit is None else beh.batch_answer_limit
                outputs, errors = [], []
                for line in lines[:limit]:
                    model = str((line.get("body") or {}).get("model", ""))
                    out, ok = self._batch_line(line, self.behaviour(model))
                    (outputs if ok else errors).append(json.dumps(out))
                for name, rows in (("output_file_id", outputs), ("error_file_id", errors)):
                    if rows:
                        data = ("\n".join(rows) + "\n").encode()
                        batch[name] = self._add_file(data, f"{batch_id}_{name}.jsonl", "batch_output")["id"]
                batch["request_counts"] = {"total": len(lines), "completed": len(outputs), "failed": len(errors)}
                batch["status"] = beh.batch_status
                batch[f"{beh.batch_status}_at"] = int(time.time())
        return web.json_response(self._public_batch(batch))

    @staticmethod
    def _error(status: int, message: str, retry_after: float | None) -> web.Response:
        headers = {}
        if retry_after is not None and status in (429, 503):
            headers["Retry-After"] = f"{retry_after:g}"
        kind = {
            400: "invalid_request_error",
            401: "authentication_error",
            403: "permission_error",
            404: "not_found_error",
            429: "rate_limit_error",
        }.get(status, "server_error")
        body = {"error": {"message": message, "type": kind, "code": str(status)}}
        return web.json_response(body, status=status, headers=headers)

    async def chat(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        started = time.time()
        with self.lock:
            self._check_leaks(request, raw)
        try:
            body = json.loads(raw)
            messages = body["messages"]
            model = str(body.get("model", ""))
        except (ValueError, KeyError, TypeError):
            entry = RequestLog("", "", hashlib.sha256(raw).hexdigest(), "bad-body", started, time.time())
            with self.lock:
                self.log.append(entry)
            return self._error(400, "request body is not a chat completion request", None)
        beh = self.behaviour(model)
        prompt_hash = messages_hash(messages)
        entry = RequestLog(
            model=model,
            prompt_hash=prompt_hash,
            body_hash=hashlib.sha256(raw).hexdigest(),
            outcome="pending",
            started=started,
            authorization=request.headers.get("Authorization"),
        )
        with self.lock:
            self.log.append(entry)
            step = self.script_pos[(model, prompt_hash)]
            self.script_pos[(model, prompt_hash)] += 1
            roll = self.rng.random()
            latency = beh.latency_s + (self.rng.uniform(-beh.jitter_s, beh.jitter_s) if beh.jitter_s else 0.0)
            pick = self.rng.choice(beh.error_statuses) if beh.error_statuses else 500

        # decide the outcome
        action: int | str = "answer"
        forced = beh.action_fn(messages) if beh.action_fn is not None else None
        if beh.status is not None:
            action = beh.status
        elif forced is not None:
            action = forced
        elif step < len(beh.script):
            action = beh.script[step]
        elif roll < beh.error_rate:
            action = pick
        elif roll < beh.error_rate + beh.hang_rate:
            action = "hang"
        elif roll < beh.error_rate + beh.hang_rate + beh.malformed_rate:
            action = "malformed"

        try:
            if action == "hang":
                entry.outcome = "hang"
                await asyncio.sleep(beh.hang_s)
                entry.ended = time.time()
                return self._error(504, "hung", None)
            await asyncio.sleep(max(0.0, latency))
            if isinstance(action, int):
                entry.outcome = f"error:{action}"
                entry.ended = time.time()
                message = beh.error_message or f"fake error {action}"
                if beh.echo_key_in_errors:
                    message += f" (Incorrect API key provided: {entry.authorization})"
                return self._error(action, message, beh.retry_after_s)
            if action == "malformed":
                text = beh.malformed_text
            elif callable(beh.answer):
                text = beh.answer(messages)
            elif beh.answer == "@hash":
                text = "[[A]]" if int(prompt_hash[:8], 16) % 2 == 0 else "[[B]]"
            elif beh.answer == "@essay":
                text = essay_answer(model, messages)
            else:
                text = beh.answer
            prompt_chars = sum(len(str(m.get("content", ""))) for m in messages)
            with self.lock:
                answers_before = self.answers
                self.answers += 1
            payload = {
                "id": f"chatcmpl-{prompt_hash[:12]}-{step}",
                "object": "chat.completion",
                "created": int(started),
                **_completion(beh, model, text, prompt_chars, answers_before, body),
            }
            data = json.dumps(payload).encode()
            if request.transport is None or request.transport.is_closing():
                entry.outcome = "cancelled"
                entry.ended = time.time()
                return web.Response(status=499)
            response = web.Response(body=data, content_type="application/json")
            await response.prepare(request)
            await response.write_eof()
            entry.outcome = "malformed" if action == "malformed" else "answered"
            entry.ended = time.time()
            return response
        except asyncio.CancelledError:
            # the client went away (timeout, cancellation, SIGKILL) before the answer was sent
            if entry.outcome in ("pending", "hang"):
                entry.outcome = "cancelled" if entry.outcome == "pending" else "hang"
            entry.ended = time.time()
            raise


class FakeOpenAIServer:
    """Context manager: an OpenAI-compatible server on 127.0.0.1, random free port."""

    def __init__(
        self,
        default: Behaviour | None = None,
        *,
        models: dict[str, Behaviour] | None = None,
        seed: int = 0,
        watch_secrets: Sequence[str] = (),
        mode: str = "thread",
    ):
        if mode not in ("thread", "process"):
            raise ValueError("mode is 'thread' or 'process'")
        self.default = default or Behaviour()
        self.models = dict(models or {})
        self.seed = seed
        self.watch_secrets = list(watch_secrets)
        self.mode = mode
        self.port: int | None = None
        self._app: _App | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._proc: subprocess.Popen[str] | None = None

    # -- addresses
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/v1"

    # -- lifecycle
    def __enter__(self) -> FakeOpenAIServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        if self.mode == "process":
            self._start_process()
        else:
            self._start_thread()

    def _start_thread(self) -> None:
        self._app = _App(self.default, self.models, self.seed, self.watch_secrets)
        ready = threading.Event()
        failure: list[BaseException] = []

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                runner = web.AppRunner(
                    self._app.app, handler_cancellation=True, shutdown_timeout=0.2, access_log=None
                )
                loop.run_until_complete(runner.setup())
                site = web.TCPSite(runner, "127.0.0.1", 0, backlog=1024)
                loop.run_until_complete(site.start())
                self._runner = runner
                self.port = runner.addresses[0][1]
            except BaseException as exc:  # surfaced to the caller
                failure.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(runner.cleanup())
            loop.close()

        self._thread = threading.Thread(target=serve, name="fake-openai-server", daemon=True)
        self._thread.start()
        ready.wait(10)
        if failure:
            raise failure[0]

    def _start_process(self) -> None:
        config = {
            "default": self.default.to_json(),
            "models": {k: v.to_json() for k, v in self.models.items()},
            "seed": self.seed,
            "watch_secrets": self.watch_secrets,
        }
        self._proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--config", json.dumps(config)],
            stdout=subprocess.PIPE,
            text=True,
        )
        line = self._proc.stdout.readline() if self._proc.stdout else ""
        if not line.startswith("PORT "):
            self._proc.kill()
            raise RuntimeError(f"fake server did not start: {line!r}")
        self.port = int(line.split()[1])

    def stop(self) -> None:
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
            self._loop = None
            self._thread = None

    # -- inspection
    def stats(self) -> ServerStats:
        if self._app is not None and self.mode == "thread":
            return self._app.stats()
        with urllib.request.urlopen(f"{self.base_url}/_stats", timeout=30) as resp:
            return ServerStats.from_json(json.loads(resp.read()))

    def reset(self) -> None:
        if self._app is not None and self.mode == "thread":
            self._app.reset()
            return
        req = urllib.request.Request(f"{self.base_url}/_reset", data=b"", method="POST")
        with urllib.request.urlopen(req, timeout=30):
            pass

    def set_behaviour(self, default: Behaviour | None = None, **models: Behaviour) -> None:
        """Change behaviour while serving (thread mode)."""
        if self._app is None:
            raise RuntimeError("set_behaviour works in thread mode only")
        if default is not None:
            self._app.default = default
        self._app.models.update(models)


def parse_multipart(content_type: str, raw: bytes) -> dict[str, tuple[str | None, bytes]]:
    """Form fields of a multipart/form-data body: name -> (filename, bytes)."""
    import email.parser
    import email.policy

    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + raw
    )
    fields: dict[str, tuple[str | None, bytes]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if name:
            fields[str(name)] = (part.get_filename(), part.get_payload(decode=True) or b"")
    return fields


def judge_request(i: int | str, text: str | None = None, verdicts: Sequence[str] = ("A", "B")) -> Any:
    """A JudgeRequest whose single user message is `text` (default: a question about i)."""
    from judgebench.core.records import JudgeRequest

    content = text if text is not None else f"Question {i}: which response is better? Answer [[A]] or [[B]]."
    messages = [{"role": "user", "content": content}]
    return JudgeRequest(
        example_id=str(i),
        dimensions=["overall"],
        order="AB",
        question=f"question {i}",
        first="first response",
        second="second response",
        verdicts=list(verdicts),
        messages=messages,
        prompt_hash=messages_hash(messages),
    )


def essay_answer(model: str, messages: list[dict[str, Any]]) -> str:
    """A Markdown answer that differs by model and question (length too): stand-in model answers
    for `judgebench pairs` demos."""
    question = str(messages[-1].get("content", "")) if messages else ""
    points = int(hashlib.sha256(f"{model}\0{question}".encode()).hexdigest()[:4], 16) % 4 + 1
    bullets = "".join(f"- point {i + 1} from {model}\n" for i in range(points))
    return f"**{model}** answers: {question}\n\n{bullets}"


def verdict_parses(request: Any, text: str) -> bool:
    """A stand-in strict parser for tests: exactly one of [[A]] / [[B]] / [[TIE]]."""
    found = [v for v in request.verdicts if f"[[{v}]]" in text]
    return len(found) == 1


def scripted_by_marker(script: dict[str, Sequence[str]], default: str = "") -> Callable[[list[dict[str, Any]]], str]:
    """An `answer` callable (thread mode) for multi-turn re-asks: the prompt whose first user message
    contains a marker (a key of `script`) gets script[marker][n] on its n-th ask, where n counts the
    assistant turns already in the messages (a re-ask resends them); the last entry repeats."""

    def answer(messages: list[dict[str, Any]]) -> str:
        first_user = next((m.get("content", "") for m in messages if m.get("role") == "user"), "")
        asked = sum(m.get("role") == "assistant" for m in messages)
        for marker, replies in script.items():
            if marker in str(first_user):
                return replies[min(asked, len(replies) - 1)]
        return default

    return answer


def main(argv: list[str] | None = None) -> None:
    """Serve until killed: `python openai_server.py --config JSON`; prints 'PORT n'."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="{}", help="JSON: default, models, seed, watch_secrets")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    config = json.loads(args.config)
    app = _App(
        Behaviour.from_json(config.get("default", {})),
        {k: Behaviour.from_json(v) for k, v in config.get("models", {}).items()},
        int(config.get("seed", 0)),
        config.get("watch_secrets", []),
    )

    async def serve() -> None:
        runner = web.AppRunner(app.app, handler_cancellation=True, shutdown_timeout=0.2, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", args.port, backlog=1024)
        await site.start()
        print(f"PORT {runner.addresses[0][1]}", flush=True)
        await asyncio.Event().wait()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()


def judge_once(judge: Any) -> Any:
    """One call of `judge` on judge_request(0), its clients closed after (the reply as the call layer gets it)."""

    async def go() -> Any:
        try:
            return await judge.judge(judge_request(0))
        finally:
            await judge.aclose()

    return asyncio.run(go())
