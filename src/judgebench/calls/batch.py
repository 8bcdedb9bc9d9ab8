"""`judgebench run --batch`: the judge calls go through the provider's batch API (litellm).

    outcome = run_batch(requests, judge, RunnerOptions(batch=True, batch_poll_s=30), is_parseable)

Called by dispatch.run_requests when `options.batch` is set. Same cache and records as the
normal path:
- Requests are grouped by cache key (judge identity + prompt hash, see cache.py); cache
  hits are never sent (unless --refresh-cache), and identical requests are sent once.
- The missing ones become one JSONL file (custom_id = the cache key, an OpenAI chat
  completions body), uploaded with `litellm.acreate_file(purpose="batch")`, submitted
  with `litellm.acreate_batch`, polled with `litellm.aretrieve_batch` every
  `batch_poll_s` seconds (a tqdm bar follows the batch's request_counts; a status outside
  RUNNING and TERMINAL, or a batch running over OVERDUE_S past its completion window,
  stops the run: _check_running), and the output
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
- Resumable across runs (batch_records.py): a batch is recorded in the cache folder
  (`batches/`) before its create as an intent (a run tag, sent as the batch's metadata,
  and its input file), completed with the batch id once created, and removed once its
  answers are stored. A rerun finding an intent looks for its batch in the provider's
  list (_resolve_intent): found, it is collected; not made, the requests are submitted;
  no list, the run stops (nothing submitted twice silently). One run of a judge
  identity at a time reads the records and submits (batch_records.SubmissionLock,
  waited for: _turn), so a run started beside another collects its batch. A run
  first collects every recorded batch of the same judge identity holding one of its
  pending keys (polled to its end, every answer stored, this run's recorded), then
  submits a new batch for the keys still pending only. A run stopped or killed while
  polling keeps the record: its requests are FAILED in_flight, and the rerun collects
  the batch instead of paying for it again. A recorded batch the provider does not know
  (a 404 for the batch: gone, or a key of another project or organisation) stops the run
  with one line naming the batch and its record, which is kept; one whose output file is
  gone (404) is dropped, said in one line, and its requests submitted again. With
  --no-cache nothing is recorded: a stop leaves the batch's answers uncollected.

No file is written besides the cache folder (the replies, the batch records): the JSONL
is uploaded from memory. Secrets (api_key, header values) are passed to litellm for the
calls only, never put in the JSONL or a record. The judge is used through its public
API: split_provider, request_body, client_args, classify_error, scrub.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from judgebench.calls.batch_records import (
    PLAIN_ID,
    BatchRecord,
    SubmissionLock,
    drop_record,
    note,
    identity_hash,
    matching_records,
    records_folder,
    write_record,
)
from judgebench.calls.cache import cache_key
from judgebench.calls.options import INTERRUPTED, RunnerOptions, RunOutcome
from judgebench.calls.policy import with_retries
from judgebench.calls.progress import Progress
from judgebench.calls.state import RunState, run_to_completion
from judgebench.core.errors import JudgebenchError, squeezed
from judgebench.core.files import jsonl_lines
from judgebench.core.records import IN_FLIGHT, JudgeReply, JudgeRequest, reported_count
from judgebench.core.text import term_text
from judgebench.judges.base import Judge, JudgeCallError
from judgebench.judges.providers import import_litellm
from judgebench.judges.llm import LiteLLMJudge
from judgebench.judges.prices import cost_map_prices, price
from judgebench.judges.reasoning import response_details

# providers whose batch API litellm reaches with OpenAI's batch JSONL format
BATCH_PROVIDERS = ("openai", "azure")
TERMINAL = {"completed", "failed", "expired", "cancelled"}
RUNNING = ("validating", "in_progress", "finalizing", "cancelling")  # OpenAI's other batch statuses
OVERDUE_S = 3600.0  # a batch still running this long past its completion window is no longer polled
TAG_KEY = "judgebench_run"  # the batch metadata key holding the tag of its record (an intent before the create)
LIST_PAGES = 50  # pages of 100 batches read looking for a batch a killed run was creating
LIST_SLACK_S = 3600.0  # listed back to this long before the intent (the provider's clock may differ)
ENDPOINT = "/v1/chat/completions"
LOCK_POLL_S = 0.2  # how often a run waiting for another's SubmissionLock tries it again


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
    base = str(judge.public_args().get("api_base") or "")
    if "?" in base:  # (litellm puts the path after the query: the upload failed with a 404 once the data was loaded)
        raise JudgebenchError(f"--batch: api_base {base} has a query string, which the batch API's calls (through "
                              "litellm) put before the path they add; leave it out for --batch")
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


def batch_stop_line(signal_name: str, outcome: RunOutcome) -> str:
    """The stop line of an interrupted batch run: the requests it sent, and what becomes of each batch it left
    at the provider (recorded in the cache: a rerun collects its answers; else they are lost)."""
    sent = f"{outcome.calls_made} requests sent in a batch" if outcome.calls_made else "no new batch submitted"
    fates = [batch_fate(batch_id, why, outcome.batches_ended.get(batch_id))
             for batch_id, why in outcome.left_running.items()]
    if outcome.create_unanswered:
        sent, fates = f"{sent} create that got no answer before the stop", [outcome.create_unanswered, *fates]
    return "; ".join([f"interrupted ({signal_name}): {sent}", *fates])


def batch_fate(batch_id: str, why: str | None, ended: str | None) -> str:
    """What becomes of a batch a stopped run leaves at the provider: still running, or `ended` (its final status)
    with its results not downloaded yet (a stop during the download said "keeps running"); recorded (`why` None: a
    rerun collects it at no new cost) or not (`why`)."""
    if ended is None:
        if why is None:
            return (f"batch {batch_id} keeps running at the provider (recorded in the cache): a rerun collects its "
                    "answers instead of submitting them again")
        return (f"batch {batch_id} keeps running at the provider, unrecorded ({why}): its answers are not collected, "
                "rerunning submits them again")
    done = f"batch {batch_id} has finished at the provider ({ended}), its results not downloaded"
    if why is None:
        return f"{done} (recorded in the cache): a rerun downloads them without new cost"
    return f"{done}, unrecorded ({why}): rerunning submits its requests again"


@dataclass(frozen=True)
class _Submitted:
    """A batch this run created: the cache keys it holds (with their prompt hashes), their request indices, its
    record (None: unrecorded) and when its upload began."""

    batch: Any
    requests: dict[str, str]
    indices: list[int]
    path: Path | None
    started: float


class _BatchStop(Exception):
    """A permanent batch API error: the run stops, requests without a reply stay None."""


class _UnknownBatch(JudgeCallError):
    """A 404 for a recorded batch (the run stops: _retrieve_recorded) or its output file (its record is dropped)."""


class _UnknownStatus(JudgeCallError):
    """A batch reports a status litellm's batch object refuses (not one OpenAI documents): the run stops."""


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
        self.identity = judge.cache_identity()
        self.digest = identity_hash(self.identity)
        self.in_batch: dict[int, str] = {}  # request index -> the batch it waits in
        self.left_running: dict[str, str | None] = {}  # batch polled -> None: recorded, else why not
        self.ended: dict[str, str] = {}  # batch polled to its end, its results not downloaded yet -> its status
        self.unrecorded_why = ""
        self.collected = 0  # requests answered by a batch an earlier run submitted
        self.collected_batches: set[str] = set()  # recorded batches this run polled to their end (never again)
        self.create_unanswered: str | None = None  # a stop came during a create that got no answer: what to do

    def _client_kwargs(self) -> dict[str, Any]:
        """litellm's connection arguments (secrets for the call only) and the timeout."""
        return {**self.judge.client_args(), "timeout": self.options.timeout_s}

    async def _call(self, what: str, fn: Callable[..., Awaitable[Any]], *, unknown: bool = False,
                    retries: bool = True, **kwargs: Any) -> Any:
        """One litellm call under the retry policy; a permanent error (or the last retry)
        raises _BatchStop, which stops the run with the scrubbed message. `unknown`: a 404
        (a batch or file the provider does not know, or no longer) raises _UnknownBatch."""

        def classify(exc: Exception) -> JudgeCallError:
            if unknown and getattr(exc, "status_code", None) == 404:
                return _UnknownBatch(f"{what}: HTTP 404", retryable=False)
            status = _refused_status(exc)
            if status is not None:
                return _UnknownStatus(_unknown_status_line(kwargs.get("batch_id"), status), retryable=False)
            return self.judge.classify_error(exc)

        try:
            options = self.options if retries else replace(self.options, max_retries=0)
            return await with_retries(lambda: fn(**kwargs), classify, options)
        except _UnknownBatch:
            raise
        except _UnknownStatus as error:
            raise _BatchStop(str(error)) from None
        except JudgeCallError as error:
            raise _BatchStop(f"batch API error ({what}): {error}") from None

    # -- the run
    async def main(self) -> None:
        try:
            await self._main()
        except _BatchStop as stop:
            self.stopped = str(stop) + "".join(f"; {batch_fate(b, why, self.ended.get(b))}"
                                               for b, why in self.left_running.items() if why is None)
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
        groups: dict[str, list[int]] = {}
        for i, request in enumerate(self.requests):
            groups.setdefault(cache_key(self.identity, request.prompt_hash, request.repeat), []).append(i)
        pending = self._take_cached(groups)
        if not pending:
            return
        bar = Progress(len(pending), desc="batch") if self.options.progress else None
        try:
            left = pending
            while left:  # recorded batches collected until none holds a pending request; then one new batch
                async with self._turn():
                    left = self._take_cached({key: groups[key] for key in left})  # another run stored them meanwhile
                    records = await self._records_holding(set(left))
                    submitted = None
                    if left and not records and self.cache_error is None:  # (no new batch once the cache fails:
                        submitted = await self._submit(groups, left)       # its answers could not be kept)
                done = len(pending) - len(left)
                if submitted is not None:
                    await self._collect_own(submitted, groups, bar, done)
                    return
                if not records:
                    return
                left = await self._collect_records(records, groups, left, bar, done)
        finally:
            if bar is not None:
                bar.close()

    @contextlib.asynccontextmanager
    async def _turn(self) -> AsyncIterator[None]:
        """This judge's SubmissionLock, waited for (batch_records.py): one run of it at a time reads the records and
        submits, so that of two runs started together the second collects the first's batch (both submitted one)."""
        folder = self._records_folder()
        lock = SubmissionLock(folder, self.digest) if folder is not None else None
        told = False
        while lock is not None and not lock.acquire():
            if not told:
                pid = lock.holder()
                note(f"another --batch run of this judge{f' (pid {pid})' if pid else ''} is reading its batch records "
                     "or submitting a batch: waiting for it (a batch it submits is then collected, not paid again)")
                told = True
            await asyncio.sleep(LOCK_POLL_S)
        try:
            yield
        finally:
            if lock is not None:
                lock.release()

    # -- batches an earlier run left running (batch_records.py)
    def _records_folder(self) -> Path | None:
        """Where this run records its batches: None without a cache (--no-cache)."""
        cache = self.open_cache()
        return None if cache is None else records_folder(cache.directory)

    async def _records_holding(self, pending: set[str]) -> list[tuple[Path, BatchRecord]]:
        """The recorded batches of this judge holding a pending key, oldest first; an intent is resolved first
        (found among the provider's batches: recorded; never made: dropped, left out)."""
        folder = self._records_folder()
        if folder is None:
            return []
        found = []
        records = self._without_settled(matching_records(folder, self.digest, None), pending)  # (read once: a bad
        for path, record in records:  # record was reported twice)
            if not pending.intersection(record.requests) or record.batch_id in self.collected_batches:
                continue  # (one collected already stays when it cannot be removed: it was collected again forever)
            if record.intent:  # a run killed while creating its batch
                resolved = await self._resolve_intent(path, record)
                if resolved is None or resolved.batch_id in self.collected_batches:  # (its id known only now: an
                    continue  # intent whose record could not be rewritten was collected again and again)
                record = resolved
            found.append((path, record))
        return found

    async def _collect_records(self, records: list[tuple[Path, BatchRecord]], groups: dict[str, list[int]],
                               pending: list[str], bar: Progress | None, done: int) -> list[str]:
        """Collect each of `records` still holding a pending key; the keys still pending after. `done`: the
        requests of this run settled before (the bar's position)."""
        left = set(pending)
        for path, record in records:
            if not left.intersection(record.requests):  # answered by a batch collected before
                continue
            answered = await self._collect_record(path, record, groups, left, bar, done + len(pending) - len(left))
            if answered is None or self.cache_error is None:  # kept if its answers could not be stored
                drop_record(path)
            left -= answered or set()
        return [key for key in pending if key in left]

    def _without_settled(self, records: list[tuple[Path, BatchRecord]],
                         pending: set[str]) -> list[tuple[Path, BatchRecord]]:
        """`records` less those none of whose keys is missing from the cache, dropped (a run stopped between
        storing a batch's answers and removing its record)."""
        kept = []
        for path, record in records:
            keys = list(record.requests)
            if self.cache is not None and pending.isdisjoint(keys) and len(self.cache.get_many(keys)) == len(keys):
                drop_record(path)
            else:
                kept.append((path, record))
        return kept

    async def _collect_record(
        self, path: Path, record: BatchRecord, groups: dict[str, list[int]], left: set[str], bar: Progress | None,
        base: int,
    ) -> set[str] | None:
        """Poll a recorded batch to its end and store all its answers; record this run's (the pending keys in
        `left`). The keys it settled (answered, or a line error); None when the provider no longer has its output."""
        mine = [key for key in record.requests if key in left]
        self.collected_batches.add(record.batch_id)
        batch = await self._retrieve_recorded(path, record)
        try:
            batch = await self._poll(batch, [i for key in mine for i in groups[key]], bar, base, len(mine), recorded=True)
            results = await self._download(batch, record.requests, time.time() - record.created, recorded=True)
        except _UnknownBatch as unknown:
            note(f"the output of batch {record.batch_id} of an earlier run is unknown to the provider ({unknown}): "
                 f"its record is dropped and its {len(mine)} requests of this run are submitted again")
            self._not_waiting([i for key in mine for i in groups[key]], record.batch_id)
            return None
        for key in mine:
            if key in results:
                self.record(groups[key], results[key])
                self.collected += len(groups[key])
        missing = len(mine) - sum(key in results for key in mine)
        self._not_waiting([i for key in mine if key not in results for i in groups[key]], record.batch_id)
        if bar is not None:
            bar.advance_to(base + len(mine) - missing, status=_get(batch, "status"))
        if missing:
            note(f"batch {record.batch_id} of an earlier run ended {_get(batch, 'status')} without an answer for "
                  f"{missing} requests of this run: they are submitted again")
        return set(results)

    async def _resolve_intent(self, path: Path, intent: BatchRecord) -> BatchRecord | None:
        """The record of the batch an earlier run was creating when it was killed (found among the provider's
        batches by its tag or input file, and recorded), or None when the provider has none: the intent is dropped
        and its requests submitted again. A list that cannot be read stops the run (_find_tagged)."""
        batch_id = await self._find_tagged(path, intent)
        if batch_id is None:
            await self._check_input_file(path, intent)
            drop_record(path)
            note(f"the batch an earlier run was creating (record {path}) is not among the provider's batches (no "
                 f"{TAG_KEY}={intent.tag}, no input file {intent.input_file}): it was not made, and its requests are "
                 "submitted again")
            return None
        found = replace(intent, batch_id=batch_id)
        try:
            write_record(path.parent, found)
        except OSError as exc:  # the intent stays: a rerun finds the batch again
            note(f"batch {batch_id}: its record could not be written in {path.parent} ({exc.strerror})")
        return found

    async def _find_tagged(self, path: Path, intent: BatchRecord) -> str | None:
        """The id of the provider's batch made from `intent` (its metadata tag, or its input file), None when the
        provider lists none back to an hour before the intent; a list that cannot be read (or goes on past
        LIST_PAGES pages) stops the run, the intent kept: no silent resubmission."""
        after = None
        for _ in range(LIST_PAGES):
            try:
                page = await self._call("list", import_litellm().alist_batches, limit=100, after=after,
                                        **self._client_kwargs())
            except _BatchStop as stop:
                why = f"its list of batches could not be read: {stop}"
                raise _BatchStop(_unlisted_line(path, intent, why)) from None
            batches = list(_get(page, "data") or [])
            for batch in batches:
                if _made_from(batch, intent):
                    return _check_id(batch.id, "batch")
            times = [t for t in (_get(b, "created_at") for b in batches) if isinstance(t, (int, float))]
            if not batches or not _get(page, "has_more") or (times and min(times) < intent.created - LIST_SLACK_S):
                return None
            after = _get(batches[-1], "id")
        raise _BatchStop(_unlisted_line(path, intent, f"it is not among its {LIST_PAGES * 100} newest batches"))

    async def _check_input_file(self, path: Path, intent: BatchRecord) -> None:
        """Stop, the intent kept, when the provider does not know the intent's input file either: the list was read
        with a key of another project or organisation (it holds none of the first project's batches, and the batch
        was taken for never made: its requests were paid for again)."""
        try:
            await self._call("input file", import_litellm().afile_retrieve, unknown=True, file_id=intent.input_file,
                             **self._client_kwargs())
        except _UnknownBatch:
            why = ("the provider does not know its input file either (HTTP 404): the api key may belong to another "
                   "project or organisation than the one that uploaded it")
            raise _BatchStop(_unlisted_line(path, intent, why)) from None

    async def _retrieve(self, batch_id: str, *, unknown: bool = False) -> Any:
        """The batch as the provider has it now. litellm's own success logging is turned off for it: finding the
        batch completed, it downloaded the output file a second time to price it, in a task the run's end cancelled
        ("coroutine 'OpenAIFilesAPI.afile_content' was never awaited")."""
        return await self._call("retrieve", import_litellm().aretrieve_batch, unknown=unknown, batch_id=batch_id,
                                litellm_metadata={"batch_ignore_default_logging": True}, **self._client_kwargs())

    async def _retrieve_recorded(self, path: Path, record: BatchRecord) -> Any:
        """The recorded batch, as the provider has it now. A 404 stops the run and keeps the record: it may mean a
        key of another project or organisation as well as a batch gone (it was dropped and its requests paid for
        again)."""
        try:
            return await self._retrieve(record.batch_id, unknown=True)
        except _UnknownBatch:
            raise _BatchStop(f"batch {record.batch_id} recorded in {path} is unknown to the provider (HTTP 404): the "
                             "api key may belong to another project or organisation than the one that created it; "
                             f"rerun with that key to collect it, or delete {path} to submit its requests again "
                             "(paid again)") from None

    def _not_waiting(self, indices: list[int], batch_id: str) -> None:
        """These requests no longer wait in `batch_id` (it ended, or is unknown): they are pending again."""
        self.in_flight.difference_update(indices)
        for index in indices:
            self.in_batch.pop(index, None)
        self.left_running.pop(batch_id, None)
        self.ended.pop(batch_id, None)

    # -- a new batch
    async def _submit(self, groups: dict[str, list[int]], pending: list[str]) -> _Submitted:
        """Upload the pending requests, record the intent, create the batch (once) and record it."""
        litellm = import_litellm()
        kwargs = self._client_kwargs()
        data = self._jsonl(groups, pending)
        started = time.monotonic()
        uploaded = await self._call(
            "upload",
            litellm.acreate_file,
            file=("judgebench-batch.jsonl", data, "application/jsonl"),
            purpose="batch",
            **kwargs,
        )
        hashes = {key: self.requests[groups[key][0]].prompt_hash for key in pending}
        indices = [i for key in pending for i in groups[key]]
        intent = BatchRecord("", self.digest, hashes, time.time(), self.judge.id, uuid.uuid4().hex, uploaded.id)
        intended = self._write_record(intent) is not None
        create = asyncio.ensure_future(self._create(litellm, intent, intended, kwargs))
        try:
            batch = await asyncio.shield(create)
        except asyncio.CancelledError:  # a stop while the provider creates the batch: its answer is waited for
            # (at most --timeout) and recorded, so that a rerun collects it (it was created unrecorded, and paid twice)
            batch = await self._created_after_stop(create)
            self.calls_made += len(pending)
            if batch is not None:
                recorded = self._write_record(replace(intent, batch_id=batch.id)) is not None
                self._left_at_stop(batch, indices, recorded=recorded)
            else:  # (it said "no new batch submitted", and its requests "not attempted": rerun, --no-cache paid twice)
                self.in_flight.update(indices)
                self.create_unanswered = (
                    f"the provider may have created a batch of them (input file {intent.input_file}, metadata "
                    f"{TAG_KEY}={intent.tag}): " + ("a rerun looks for it among the provider's batches before "
                    "submitting them again" if intended else "look at its batches before rerunning, which submits "
                    "them again"))
            raise
        self.calls_made += len(pending)
        _check_id(batch.id, "batch")
        path = self._write_record(replace(intent, batch_id=batch.id))
        return _Submitted(batch, hashes, indices, path, started)

    async def _collect_own(self, submitted: _Submitted, groups: dict[str, list[int]], bar: Progress | None,
                           base: int) -> None:
        """Poll the batch this run submitted to its end and record every request's reply."""
        pending = list(submitted.requests)
        batch = await self._poll(submitted.batch, submitted.indices, bar, base, len(pending),
                                 recorded=submitted.path is not None)
        latency = time.monotonic() - submitted.started
        results = await self._download(batch, submitted.requests, latency)
        status = _get(batch, "status")
        for key in pending:
            reply = results.get(key) or JudgeReply(
                text=None,
                error=f"batch {batch.id} ended {status} without an answer for this request",
                latency_s=latency,
                attempts=1,
            )
            self.record(groups[key], reply)
        if submitted.path is not None and self.cache_error is None:
            drop_record(submitted.path)
        if bar is not None:
            failed = sum(1 for k in pending if results.get(k) is None or results[k].text is None)
            bar.advance_to(base + len(pending), status=status, failed=failed)

    async def _create(self, litellm: Any, intent: BatchRecord, recorded: bool, kwargs: dict[str, Any]) -> Any:
        """Create the batch of `intent` (its input file, tagged in its metadata): once, never retried (a create that
        timed out may have made a batch at the provider, and each retry made another, all paid: an outside attack
        saw three from one run). A failure stops the run and says the batch may exist; with the intent `recorded`,
        a rerun looks for it (_resolve_intent)."""
        try:
            return await self._call("create", litellm.acreate_batch, retries=False, completion_window="24h",
                                    endpoint=ENDPOINT, input_file_id=intent.input_file,
                                    metadata={"created_by": "judgebench", TAG_KEY: intent.tag},
                                    **{**kwargs, "max_retries": 0})  # (the SDK under litellm retried it too)
        except _BatchStop as stop:
            then = ("a rerun looks for it among the provider's batches before submitting the requests again" if recorded
                    else "look at its batches before rerunning, which submits the requests again")
            raise _BatchStop(f"{stop}; the provider may have created the batch anyway (input file "
                             f"{intent.input_file}, metadata {TAG_KEY}={intent.tag}): {then}") from None

    async def _created_after_stop(self, create: asyncio.Future[Any]) -> Any:
        """The batch a create under way at a stop made, or None (it failed, or took longer than --timeout)."""
        try:
            return await asyncio.wait_for(create, self.options.timeout_s)
        except (asyncio.TimeoutError, asyncio.CancelledError, _BatchStop):
            return None

    def _left_at_stop(self, batch: Any, indices: list[int], *, recorded: bool) -> None:
        """A batch created as the run stopped: its requests wait in it, in flight, and it is named as left running."""
        self.in_flight.update(indices)
        for index in indices:
            self.in_batch[index] = batch.id
        self.left_running[batch.id] = None if recorded else self.unrecorded_why

    def _write_record(self, record: BatchRecord) -> Path | None:
        """Record a new batch (or the intent to create one) in the cache folder (None: no cache, or the write
        failed, said in one line)."""
        folder = self._records_folder()
        if folder is None:
            self.unrecorded_why = "--no-cache: no record of it is kept"
            return None
        try:
            return write_record(folder, record)
        except OSError as exc:
            self.unrecorded_why = f"its record could not be written: {exc.strerror}"
            what = "the batch about to be created" if record.intent else f"batch {record.batch_id}"
            note(f"{what}: its record could not be written in {folder} ({exc.strerror}); the run goes on, but a stop "
                 "now leaves its answers uncollected")
            return None

    # -- one batch: polled to its end, its output downloaded
    async def _poll(self, batch: Any, indices: list[int], bar: Progress | None, base: int, mine: int, *,
                    recorded: bool) -> Any:
        """Retrieve `batch` every batch_poll_s until it ends; its requests of this run (`indices`) are in flight
        meanwhile (a stop labels them so, and names the batch as left running)."""
        self._left_at_stop(batch, indices, recorded=recorded)
        since = time.time()
        while _get(batch, "status") not in TERMINAL:
            await asyncio.sleep(self.options.batch_poll_s)
            batch = await self._retrieve(batch.id)
            if bar is not None:
                counts = _get(batch, "request_counts")
                done = (_get(counts, "completed") or 0) + (_get(counts, "failed") or 0)
                bar.advance_to(base + min(done, mine), status=_get(batch, "status"))
            if _get(batch, "status") not in TERMINAL:
                _check_running(batch, since)
        self.ended[batch.id] = str(_get(batch, "status"))  # (a stop from here on: finished, not "keeps running")
        return batch

    async def _download(self, batch: Any, requests: dict[str, str], latency: float, *,
                        recorded: bool = False) -> dict[str, JudgeReply]:
        """The replies in the output and error files of an ended batch, by key (`requests`: key -> prompt hash);
        each answer is stored in the cache as it is read, this run's or not (it is paid for). `recorded`: a batch
        of an earlier run, whose files the provider may have dropped (_UnknownBatch)."""
        results: dict[str, JudgeReply] = {}
        for file_id in (_get(batch, "output_file_id"), _get(batch, "error_file_id")):
            if not file_id:
                continue
            content = await self._call("download", import_litellm().afile_content, unknown=recorded,
                                       file_id=file_id, **self._client_kwargs())
            for raw in jsonl_lines(_content_bytes(content).decode("utf-8")):
                parsed = self._parse_line(raw, latency)
                if parsed is None or parsed[0] not in requests or parsed[0] in results:
                    continue
                key, reply = parsed
                results[key] = reply
                self.store_answer(key, reply, requests[key])
        self.left_running.pop(batch.id, None)
        self.ended.pop(batch.id, None)
        return results

    def final_replies(self) -> list[JudgeReply | None]:
        """As RunState's; a request in a batch left running at the provider says so (a rerun collects it)."""
        replies = super().final_replies()
        for index, batch_id in self.in_batch.items():
            reply = replies[index]
            if reply is not None and reply.error == IN_FLIGHT and self.left_running.get(batch_id, "") is None:
                fate = ("has finished at the provider: a rerun downloads its answer without new cost"
                        if batch_id in self.ended else "keeps running at the provider: a rerun collects its answer")
                replies[index] = JudgeReply(error=f"{IN_FLIGHT}; batch {batch_id} {fate}")
        return replies

    def outcome(self, stopped: str | None = None) -> RunOutcome:
        result = super().outcome(stopped)
        result.left_running = dict(self.left_running)
        result.batches_ended = {b: status for b, status in self.ended.items() if b in self.left_running}
        result.collected = self.collected
        result.create_unanswered = self.create_unanswered
        return result

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


def _check_running(batch: Any, since: float) -> None:
    """Stop polling (_BatchStop) a batch whose status judgebench does not know (it was polled forever), or one
    still running an hour past its completion window (the provider should have ended it by then: completed or
    expired; one stuck in "finalizing" was polled forever). `since`: when this run began polling it, for a batch
    without a creation time or with one ahead of this machine's clock."""
    status = _get(batch, "status")
    if status not in RUNNING:
        raise _BatchStop(_unknown_status_line(batch.id, status))
    created = _get(batch, "created_at")
    known = isinstance(created, (int, float)) and not isinstance(created, bool) and created <= time.time()
    age = time.time() - (created if known else since)  # (a time ahead of this clock, milliseconds: polled forever)
    window = _window_s(_get(batch, "completion_window"))
    if age > window + OVERDUE_S:
        raise _BatchStop(f"batch {batch.id} is still {status} {age / 3600:.1f} h after its creation, over an hour "
                         f"past its {window / 3600:g} h completion window: polling stopped (a rerun polls it again)")


def _check_id(value: Any, what: str) -> str:
    """A provider's id, which judgebench records and prints: letters, digits and `_.:-` (a batch renamed to hold escape
    codes, a line break and the api key reached the stop line and samples.jsonl). Else the run stops, the id shown
    escaped (and scrubbed on the way out, as every stop reason is)."""
    if not isinstance(value, str) or not PLAIN_ID.fullmatch(value):
        raise _BatchStop(f"the provider gave a {what} id that is no plain id ({term_text(repr(value), 80)}): not "
                         "recorded or followed; look at its batches")
    return value


def _made_from(batch: Any, intent: BatchRecord) -> bool:
    """Whether a listed batch is the one `intent` was creating: its metadata tag, or its input file."""
    return _get(_get(batch, "metadata"), TAG_KEY) == intent.tag or _get(batch, "input_file_id") == intent.input_file


def _unlisted_line(path: Path, intent: BatchRecord, why: str) -> str:
    return (f"an earlier run got no answer to its batch create (killed, stopped or failed; record {path}: input file "
            f"{intent.input_file}, metadata {TAG_KEY}={intent.tag}) and whether the provider made the batch is unknown "
            f"({why}): look for it among the provider's batches; delete {path} to submit its requests again")


def _unknown_status_line(batch_id: Any, status: Any) -> str:
    return (f"batch {batch_id} reports status {str(status)[:100]!r}, which judgebench does not know (known: "
            f"{', '.join([*RUNNING, *sorted(TERMINAL)])}): polling stopped (a rerun polls it again)")


def _refused_status(exc: Exception) -> str | None:
    """The status of a batch litellm's batch object refused (a pydantic ValidationError on `status`), else None."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return None
    try:
        found = [e for e in errors() if tuple(e.get("loc") or ()) == ("status",)]
    except Exception:  # another `errors` than pydantic's
        return None
    return str(found[0].get("input")) if found else None


def _window_s(window: Any) -> float:
    """A batch's completion window ("24h") in seconds; 24 h when it says none this reads."""
    match = re.fullmatch(r"\s*(\d{1,4})\s*h\s*", window) if isinstance(window, str) else None
    return float(match.group(1)) * 3600 if match else 24 * 3600.0


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
