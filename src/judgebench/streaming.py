"""A run in bounded memory: examples judged chunk by chunk, each chunk's records appended to samples.jsonl.

    outcome = stream_judgments(spec, judge, examples, template, mode=..., swap=..., runner=...,
                               samples_path=run_dir / "samples.jsonl")
    ... score(outcome.records, ...); finish_run(run_dir, result, task_file=..., prompt_file=...)

Per chunk: plan and render its requests (plan_requests), answer them (built-in judges directly, no
event loop; every other judge through run_requests, so cache, worker, retries and signals behave
as before), assemble its records (assemble_records) and append them to samples.jsonl, flushed. Only
lean copies of the records stay in memory for scoring (question and responses dropped: they are in
samples.jsonl). Chunks are processed in plan order, so the finished samples.jsonl has today's
schema and today's order: nothing is re-sorted. A killed run leaves samples.jsonl with every chunk it
finished (the last line may be cut short) and no results.json; rerunning the command rewrites the
run, taking every answer already paid for from the answer cache.

LLM judges get chunks of CHUNK_REQUESTS_LLM requests (one chunk for every run of normal size, so the
runner's throughput is untouched: each chunk boundary waits for the chunk's slowest call).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from .errors import JudgebenchError
from .files import write_atomic, write_json
from .judges.builtin import FeatureJudge, render_answer
from .judgments import assemble_records, parses_fully, plan_requests
from .records import JudgeReply, JudgeRequest, JudgmentRecord, PairExample, RunResult
from .rundir import PROMPT_FILE, RESULTS_FILE, TASK_FILE

if TYPE_CHECKING:
    from .calls import RunnerOptions
    from .calls.worker import CallWorker
    from .judges.base import Judge
    from .prompts import PromptTemplate
    from .tasks import TaskSpec

CHUNK_REQUESTS_BUILTIN = 4_000  # requests per chunk for built-in judges (bounded memory, no network)
CHUNK_REQUESTS_LLM = 50_000  # requests per chunk for every other judge


@dataclass
class StreamOutcome:
    records: list[JudgmentRecord]  # lean: question and responses dropped (samples.jsonl has them)
    stopped: str | None
    calls_made: int


def stream_judgments(
    spec: TaskSpec,
    judge: Judge,
    examples: list[PairExample],
    template: PromptTemplate,
    *,
    mode: str,
    swap: bool,
    runner: RunnerOptions,
    samples_path: Path,
    worker: CallWorker | None = None,
    log_text: bool = True,
) -> StreamOutcome:
    """Judge the examples chunk by chunk, appending each chunk's records to samples_path."""
    from .calls import run_requests

    per_example = len(plan_requests(spec, examples[:1], template, mode=mode, swap=swap)) or 1
    builtin = isinstance(judge, FeatureJudge) and not runner.batch  # a batch of a built-in judge is refused there
    chunk = max(1, (CHUNK_REQUESTS_BUILTIN if builtin else CHUNK_REQUESTS_LLM) // per_example)
    kept: list[JudgmentRecord] = []
    stopped: str | None = None
    calls = 0
    with _appender(samples_path) as sink:
        for start in range(0, len(examples), chunk):
            part = examples[start : start + chunk]
            requests = plan_requests(spec, part, template, mode=mode, swap=swap)
            replies: list[JudgeReply | None]
            if stopped is not None:
                replies = [None] * len(requests)
            elif builtin:
                replies = list(builtin_replies(judge, requests))  # type: ignore[arg-type]
                calls += len(requests)  # one call each, as the runner counts them
            else:
                outcome = run_requests(requests, judge, runner, parses_fully, worker=worker)
                worker = None  # run_requests let it go; a later chunk forks its own when needed
                replies, stopped, calls = outcome.replies, outcome.stopped, calls + outcome.calls_made
            records = assemble_records(spec.name, judge.id, requests, replies, part, stopped, log_text=log_text)
            sink("".join(r.model_dump_json() + "\n" for r in records))
            kept.extend(lean(r) for r in records)
    return StreamOutcome(kept, stopped, calls)


def builtin_replies(judge: FeatureJudge, requests: list[JudgeRequest]) -> Iterator[JudgeReply]:
    """A built-in judge's answers without an event loop; each response's feature is measured once."""
    feature = judge._feature
    measured: dict[int, float] = {}  # id of the response text (alive in the requests) -> feature

    def value(text: str) -> float:
        key = id(text)
        if key not in measured:
            measured[key] = feature(text)
        return measured[key]

    plain = type(judge).choose is FeatureJudge.choose
    for request in requests:
        if plain:
            first, second = value(request.first), value(request.second)
            verdict = judge.choose_values(first, second, request.verdicts, request.example_id, request.order)
            text = render_answer(request, lambda _dim, v=verdict: v)
        else:  # the random judge draws per dimension
            text = render_answer(request, lambda dim, r=request: judge.choose(r, dim))
        yield JudgeReply(text=text)


def lean(record: JudgmentRecord) -> JudgmentRecord:
    """The record without the texts scoring never reads."""
    if record.question is None and record.response_a is None and record.response_b is None:
        return record
    return record.model_copy(update={"question": None, "response_a": None, "response_b": None})


@contextmanager
def _appender(path: Path) -> Iterator[Callable[[str], None]]:
    """Append text to `path`, created (replacing an older file) at the first write; flushed each time."""
    handle: IO[str] | None = None

    def write(text: str) -> None:
        nonlocal handle
        try:
            if handle is None:
                path.parent.mkdir(parents=True, exist_ok=True)
                (path.parent / RESULTS_FILE).unlink(missing_ok=True)  # the old results no longer match
                handle = path.open("w", encoding="utf-8")
            handle.write(text)
            handle.flush()
        except OSError as exc:
            raise JudgebenchError(
                f"cannot write {path} ({exc.strerror or exc}); the answers of cached judges are in the answer "
                "cache: a rerun with the same flags reuses them"
            ) from None

    try:
        yield write
    finally:
        if handle is not None:
            handle.close()


def finish_run(
    run_dir: Path, result: RunResult, *, task_file: str | Path | None = None, prompt_file: str | Path | None = None
) -> None:
    """results.json and the copies of the task YAML and prompt, each atomic (samples.jsonl is written)."""
    try:
        write_json(run_dir / RESULTS_FILE, result.model_dump(mode="json"))
        for source, name in ((task_file, TASK_FILE), (prompt_file, PROMPT_FILE)):
            if source is not None and Path(source).is_file():
                write_atomic(run_dir / name, Path(source).read_text(encoding="utf-8"))
    except OSError as exc:
        where = getattr(exc, "filename", None) or run_dir
        raise JudgebenchError(f"cannot write {where} ({exc.strerror or exc}); the judgments are in samples.jsonl") from None
