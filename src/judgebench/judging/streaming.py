"""A run in bounded memory: examples judged chunk by chunk, each chunk's records appended to samples.jsonl.

    outcome = stream_judgments(spec, judge, examples, template, mode=..., swap=..., runner=...,
                               samples_path=run_dir / "samples.jsonl")
    ... score(outcome.records, ...); finish_run(run_dir, result, task_file=..., prompt_file=...)

Per chunk: plan and render its requests (plan_requests), answer them through run_requests (built-in
judges are answered there directly, without an event loop; every other judge keeps its cache, worker,
retries and signals as before), assemble its records (assemble_records) and append them to samples.jsonl, flushed. Only
lean copies of the records stay in memory for scoring (question and responses dropped: they are in
samples.jsonl). Chunks are processed in plan order, so the finished samples.jsonl has today's
schema and today's order: nothing is re-sorted. The judgments of unlabelled examples (`run --judge-unlabelled`)
go to unlabelled.jsonl instead, every repeat, and are held apart (`StreamOutcome.unlabelled`): never scored. A killed run leaves samples.jsonl with every chunk it
finished (the last line may be cut short) and no results.json; rerunning the command rewrites the
run, taking every answer already paid for from the answer cache.

A built-in judge's run (judged in this process, nothing in flight) takes Ctrl-C and SIGTERM between chunks: it
ends after the chunk the signal landed in and is scored as a partial run of the examples judged so far (an
interrupt used to leave samples.jsonl alone, exit 130; writing the rest as not attempted took as long as judging
it). A second SIGTERM still ends the process, a second Ctrl-C only says the run is stopping (calls/stopping.py).

LLM judges get chunks of CHUNK_REQUESTS_LLM requests (one chunk for every run of normal size, so the
runner's throughput is untouched: each chunk boundary waits for the chunk's slowest call).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from judgebench.calls.stopping import noting_interrupts
from judgebench.core.bulk import gc_paused
from judgebench.core.errors import JudgebenchError
from judgebench.core.files import write_models_jsonl
from judgebench.core.lean_records import LeanRecord
from judgebench.core.records import JudgeReply, JudgmentRecord, PairExample, RunResult
from judgebench.core.rundir import REPEATS_FILE, STALE_FILES, UNLABELLED_FILE, clear_stale_report, salvage
from judgebench.core.rundir import finish_run as write_results
from judgebench.judges.builtin import FeatureJudge
from judgebench.judging.judgments import assemble_records, parses_fully, plan_requests
from judgebench.tasks.stream_load import chunked

if TYPE_CHECKING:
    from judgebench.calls import RunnerOptions, RunOutcome
    from judgebench.calls.worker import CallWorker
    from judgebench.judges.base import Judge
    from judgebench.judging.prompts import PromptTemplate
    from judgebench.tasks.registry import TaskSpec

CHUNK_REQUESTS_BUILTIN = 4_000  # requests per chunk for built-in judges (bounded memory, no network)
CHUNK_REQUESTS_LLM = 50_000  # requests per chunk for every other judge


@dataclass
class StreamOutcome:
    records: list[JudgmentRecord] = field(default_factory=list)  # repeat 0, lean: question and responses dropped
    stopped: str | None = None
    calls_made: int = 0
    collected: int = 0  # --batch: judgments answered by a batch an earlier run submitted (no new cost)
    repeats: list[JudgmentRecord] = field(default_factory=list)  # --repeats: repeats 1..N-1, for repeats.jsonl
    unlabelled: list[JudgmentRecord] = field(default_factory=list)  # lean, every repeat: unlabelled.jsonl's
    unlabelled_examples: int = 0  # examples without labels among those judged
    examples: int = 0  # examples judged or recorded as not attempted (fewer when a built-in judge's run stopped)

    def every_judgment(self) -> list[JudgmentRecord]:
        """Every judgment so far, listed only for a salvage file."""
        return [*self.records, *self.repeats, *self.unlabelled]


Sink = Callable[[str, Callable[[], list[JudgmentRecord]]], None]  # _appender's write


def stream_judgments(
    spec: TaskSpec,
    judge: Judge,
    examples: Sequence[PairExample],
    template: PromptTemplate,
    *,
    mode: str,
    swap: bool,
    runner: RunnerOptions,
    samples_path: Path,
    worker: CallWorker | None = None,
    log_text: bool = True,
    call: Callable[..., RunOutcome] | None = None,
    repeats: int = 1,
) -> StreamOutcome:
    """Judge the examples chunk by chunk, appending each chunk's records to samples_path.

    `call`: what answers a chunk (default calls.run_requests; the pipeline passes its own reference).
    `repeats`: each judgment asked that many times (judging/repeats.py, scored by scoring/repeats.py); repeat 0 goes to samples.jsonl,
    the others are returned for repeats.jsonl.
    """
    from judgebench.calls import run_requests
    from judgebench.judging.repeats import expand_repeats

    call = call or run_requests
    builtin = isinstance(judge, FeatureJudge) and not runner.batch  # a batch of a built-in judge is refused there
    chunk = _chunk_examples(spec, examples, template, mode=mode, swap=swap, builtin=builtin, repeats=repeats)
    paused = gc_paused() if builtin else nullcontext()  # bulk building, the chunks' examples too (bulk.py); LLM runs keep the collector
    cached_in = _cache_folder(judge, runner)  # for a salvage message
    done = StreamOutcome()
    with _appender(samples_path, cached_in, STALE_FILES) as sink, \
            _appender(samples_path.parent / UNLABELLED_FILE, cached_in) as unlabelled_sink, paused, \
            noting_interrupts(builtin) as interrupted:  # a built-in judge's run: between chunks
        for part in chunked(examples, chunk):  # a lazy load builds only this chunk's examples (stream_load.py)
            if done.records and interrupted():  # a built-in judge's run ends here: the examples judged are its results
                done.stopped = interrupted()
                break
            done.examples += len(part)
            requests = expand_repeats(plan_requests(spec, part, template, mode=mode, swap=swap), repeats)
            replies: list[JudgeReply | None] = [None] * len(requests)
            if done.stopped is None:  # built-in judges are answered directly by run_requests (no event loop)
                outcome = call(requests, judge, runner, parses_fully, worker=worker)
                worker = None  # run_requests let it go; a later chunk forks its own when needed
                replies, done.stopped, done.calls_made = outcome.replies, outcome.stopped, done.calls_made + outcome.calls_made
                done.collected += outcome.collected
                runner = runner.for_next_chunk(outcome)
            records = assemble_records(spec.name, judge.id, requests, replies, part, done.stopped, log_text=log_text)
            _keep_chunk(done, records, part, spec.verdicts, sink, unlabelled_sink)
    return done


def _chunk_examples(spec: TaskSpec, examples: Sequence[PairExample], template: PromptTemplate, *, mode: str,
                    swap: bool, builtin: bool, repeats: int) -> int:
    """Examples per chunk: a chunk's requests (every order, dimension and repeat) near the judge's chunk size."""
    per_example = len(plan_requests(spec, list(examples[:1]), template, mode=mode, swap=swap)) or 1
    return max(1, (CHUNK_REQUESTS_BUILTIN if builtin else CHUNK_REQUESTS_LLM) // (per_example * repeats))


def _cache_folder(judge: Judge, runner: RunnerOptions) -> Path | None:
    """The answer cache the run writes to, if it uses one."""
    from judgebench.calls.state import uses_cache  # deferred: the call layer's imports are heavier
    from judgebench.core.resources import default_cache_dir

    return (runner.cache_dir or default_cache_dir()) if uses_cache(judge, runner) else None


def _keep_chunk(done: StreamOutcome, records: list[JudgmentRecord], part: Sequence[PairExample],
                verdicts: Sequence[str], sink: Sink, unlabelled_sink: Sink) -> None:
    """A chunk's records: repeat 0 of the labelled examples to samples.jsonl, their other repeats held for
    repeats.jsonl, every judgment of the unlabelled ones to unlabelled.jsonl; lean copies kept for scoring."""
    from judgebench.judging.repeats import split_repeats, with_repeat_confidence

    records, again = split_repeats(records)
    records = with_repeat_confidence(records, again, verdicts)  # --repeats: the share of votes (issue 34)
    done.unlabelled_examples += sum(1 for example in part if not example.labels)
    records, judged_only = _split_unlabelled(records)
    again, judged_only_again = _split_unlabelled(again)
    text = "".join(r.model_dump_json() + "\n" for r in records)
    done.records.extend(_drop_texts(r) for r in records)  # slotted copies; the pydantic records go with the chunk
    done.repeats.extend(again)
    sink(text, done.every_judgment)  # first: its first write removes an earlier run's files (unlabelled.jsonl too)
    if judged_only:
        lines = _judgment_major(judged_only, judged_only_again)
        done.unlabelled.extend(map(_drop_texts, lines))
        unlabelled_sink("".join(r.model_dump_json() + "\n" for r in lines), done.every_judgment)


def _judgment_major(first: list[JudgmentRecord], again: list[JudgmentRecord]) -> list[JudgmentRecord]:
    """Each judgment's repeat 0, then its repeats 1..N-1: the same order however the run was chunked or sharded."""
    if not again:
        return first
    position = {(r.example_id, r.dimension, r.order): i for i, r in enumerate(first)}
    return sorted([*first, *again], key=lambda r: (position[(r.example_id, r.dimension, r.order)], r.repeat))


def _split_unlabelled(records: list[JudgmentRecord]) -> tuple[list[JudgmentRecord], list[JudgmentRecord]]:
    """(labelled, unlabelled) judgments, each in its order; the list itself when every one has a label."""
    if all(r.label is not None for r in records):
        return records, []
    return [r for r in records if r.label is not None], [r for r in records if r.label is None]


def lean(record: JudgmentRecord) -> JudgmentRecord:
    """The record without the texts scoring never reads."""
    if record.question is None and record.response_a is None and record.response_b is None:
        return record
    return record.model_copy(update={"question": None, "response_a": None, "response_b": None})


def _drop_texts(record: JudgmentRecord) -> JudgmentRecord:
    """The record held for scoring: its values without the texts, in slots (lean_records.py: about a third of a
    compact pydantic record), read by scoring under the same attribute names."""
    return LeanRecord.of(record)  # type: ignore[return-value]  # duck-typed JudgmentRecord


@contextmanager
def _appender(path: Path, cache: Path | None = None, stale: tuple[str, ...] = ()) -> Iterator[Sink]:
    """Append text to `path`, created (replacing an older file, and removing the `stale` files beside it) at the
    first write; flushed each time. A write failure is one line naming the file; every judgment so far goes to a
    salvage file, and the file is cut back to its last whole line (a full disk left a line cut in the middle)."""
    handle: IO[str] | None = None
    whole = 0  # bytes of the file written whole

    def write(text: str, so_far: Callable[[], list[JudgmentRecord]]) -> None:
        nonlocal handle, whole
        try:
            if handle is None:
                path.parent.mkdir(parents=True, exist_ok=True)
                for name in stale:  # an earlier run's results no longer match
                    (path.parent / name).unlink(missing_ok=True)
                if stale:
                    clear_stale_report(path.parent)  # and its report (as write_run's clear_previous_run)
                path.unlink(missing_ok=True)  # a symlink is replaced, never written through
                handle = path.open("x", encoding="utf-8")
            handle.write(text)
            handle.flush()
            whole = os.fstat(handle.fileno()).st_size
        except OSError as exc:
            where = exc.filename or path  # a stale file that cannot be removed names itself
            cut = _cut_back(handle, path, whole) if handle is not None else ""
            handle = None
            raise JudgebenchError(f"cannot write {where} ({exc.strerror or exc}){cut}; "
                                  f"{salvage(so_far(), cache)}") from None

    try:
        yield write
    finally:
        if handle is not None:
            handle.close()


def _cut_back(handle: IO[str], path: Path, whole: int) -> str:
    """Close a file whose last write failed and cut it back to its `whole` bytes; what the message adds."""
    try:
        handle.close()  # its buffered rest cannot be written either
    except OSError:
        pass
    try:
        os.truncate(path, whole)
    except OSError:
        return f" ({path.name} may end in a cut line)"
    return f" ({path.name} keeps its {whole:,} bytes of whole lines)"


def finish_run(
    run_dir: Path,
    result: RunResult,
    *,
    task_file: str | Path | None = None,
    prompt_file: str | Path | None = None,
    repeats: list[JudgmentRecord] | None = None,
) -> None:
    """repeats.jsonl (with --repeats), results.json and the copies of the task YAML and prompt, each atomic
    (samples.jsonl is written)."""
    try:
        if repeats:
            write_models_jsonl(run_dir / REPEATS_FILE, repeats)
        write_results(run_dir, result, task_file=task_file, prompt_file=prompt_file)
    except OSError as exc:
        where = getattr(exc, "filename", None) or run_dir
        saved = f"; {salvage(repeats)}" if repeats else ""
        raise JudgebenchError(f"cannot write {where} ({exc.strerror or exc}); the judgments are in samples.jsonl{saved}") from None
