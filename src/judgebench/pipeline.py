"""The main job: load a task, plan the judge calls, run them, turn replies into records, score, write.

Also re-scoring a finished run from its samples (no calls).
"""

from __future__ import annotations

import importlib.metadata
import os
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from . import __version__
from .errors import JudgebenchError
from .features import count_citations
from .files import write_json, write_models_jsonl
from .judges import Judge, make_judge
from .parsing import parse_reply
from .prompts import PromptTemplate, build_request, load_prompt
from .records import (
    ORDERS,
    JudgeReply,
    JudgeRequest,
    JudgmentRecord,
    PairExample,
    RunConfig,
    RunResult,
    swap_verdict,
)
from .rundir import RESULTS_FILE, SAMPLES_FILE, read_run, run_task_spec, write_run
from .runner import RunnerOptions, run_requests
from .tasks import TaskSpec, get_task, load_examples

NOT_ATTEMPTED = "not attempted: the run stopped before this call ({reason})"


@dataclass
class RunRequest:
    """Everything `judgebench run` needs for one task."""

    task: str
    judge: str
    output_path: Path
    judge_args: dict[str, Any] = field(default_factory=dict)
    include_paths: list[Path] = field(default_factory=list)
    dataset_path: str | None = None
    split: str | None = None
    revision: str | None = None
    demo: bool = False
    limit: int | None = None
    swap: bool = True
    seed: int = 0
    prompt: str | None = None
    dimension_mode: Literal["separate", "joint"] | None = None
    both_bad: Literal["tie", "exclude"] | None = None
    n_resamples: int = 1000
    runner: RunnerOptions = field(default_factory=RunnerOptions)
    min_coverage: float | None = None  # None: the run fails only when nothing was answered
    log_text: bool = True  # question and responses in samples.jsonl
    on_warning: Callable[[str], None] | None = None  # told about inapplicable flags, empty responses


@dataclass
class RunSummary:
    result: RunResult
    run_dir: Path
    stopped: str | None  # why the run stopped early, if it did
    calls_made: int
    coverage_failure: str | None = None  # why the answered share is too low (the run still wrote results)
    warnings: list[str] = field(default_factory=list)


def run_task(request: RunRequest) -> RunSummary:
    """Judge every example of one task and write results.json and samples.jsonl.

    Everything checkable is checked before the first call: task, data, prompt, judge
    credentials and that the output folder can be written.
    """
    started = _now()
    check_output_dir(request.output_path)
    spec = get_task(request.task, request.include_paths)
    warnings: list[str] = []
    loaded = load_examples(
        spec,
        dataset_path=request.dataset_path,
        split=request.split,
        revision=request.revision,
        demo=request.demo,
        limit=request.limit,
    )
    if not loaded.examples:
        raise JudgebenchError(f"task {spec.name}: the dataset has no examples")
    warnings.extend(loaded.warnings)
    if request.dimension_mode and len(spec.dimension_names) == 1:
        warnings.append(f"--dimension-mode is ignored: task {spec.name} has one dimension")
    for message in warnings:
        if request.on_warning:
            request.on_warning(message)
    mode = _dimension_mode(spec, request.dimension_mode)
    template = load_prompt(request.prompt or _template_name(spec, mode), spec.folder)
    judge = make_judge(request.judge, request.judge_args, seed=request.seed)
    judge.preflight()
    requests = plan_requests(spec, loaded.examples, template, mode=mode, swap=request.swap)
    outcome = run_requests(requests, judge, request.runner, is_parseable=_parses_fully)
    records = assemble_records(
        spec.name, judge.id, requests, outcome.replies, loaded.examples, outcome.stopped, log_text=request.log_text
    )
    config = RunConfig(
        task=spec.name,
        task_version=spec.version,
        dataset=loaded.dataset,
        judge=judge.id,
        judge_args=_public_args(judge),
        prompt_template=template.name,
        prompt_template_hash=template.sha256,
        dimension_mode=mode,
        both_bad=request.both_bad or spec.both_bad,
        swap=request.swap,
        seed=request.seed,
        limit=request.limit,
        judgebench_version=__version__,
        litellm_version=_version("litellm"),
        datasets_version=_version("datasets"),
        started_at=started,
        ended_at=_now(),
        partial=outcome.stopped is not None,
    )
    result = score(records, config, spec, n_examples=len(loaded.examples), n_resamples=request.n_resamples)
    write_run(request.output_path, result, records, task_file=spec.source_file, prompt_file=template.path)
    return RunSummary(
        result,
        request.output_path,
        outcome.stopped,
        outcome.calls_made,
        coverage_failure=coverage_failure(records, result.counts.coverage, request.min_coverage),
        warnings=warnings,
    )


def check_output_dir(path: Path) -> None:
    """The run directory can be created and written: checked before any call is paid for."""
    if path.exists() and not path.is_dir():
        raise JudgebenchError(f"--output-path {path}: exists and is not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".judgebench-write-check-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise JudgebenchError(f"--output-path {path}: cannot write there ({exc.strerror or exc})") from None


def coverage_failure(records: list[JudgmentRecord], coverage: float, min_coverage: float | None) -> str | None:
    """Why a run's answered share is too low, with its most common causes; None when it is fine."""
    answered = any(r.status == "ANSWERED" for r in records)
    if min_coverage is None and answered:
        return None
    if min_coverage is not None and coverage >= min_coverage:
        return None
    bar = "no judgment was answered" if min_coverage is None else f"coverage {coverage:.3f} is below --min-coverage {min_coverage:g}"
    causes = "; ".join(f"{count} x {cause}" for cause, count in top_causes(records))
    return f"{bar}; most common causes: {causes}" if causes else bar


def top_causes(records: list[JudgmentRecord], n: int = 3) -> list[tuple[str, int]]:
    """The n most common reasons a judgment is not answered (errors; the invalid answers' openings)."""
    reasons: Counter[str] = Counter()
    for record in records:
        if record.status == "FAILED":
            first_line = (record.error or "unknown error").splitlines()[0]
            reasons[f"failed: {_HASH.sub('<hash>', first_line)[:120]}"] += 1
        elif record.status == "INVALID":
            reasons[f"invalid answer: {_opening(record.raw)}"] += 1
    return reasons.most_common(n)


_HASH = re.compile(r"\b[0-9a-f]{16,}\b")  # prompt hashes etc. would make every cause unique


def _opening(text: str | None) -> str:
    if not text or not text.strip():
        return "(empty)"
    flat = " ".join(text.split())
    return repr(flat[:60] + ("..." if len(flat) > 60 else ""))


def _dimension_mode(spec: TaskSpec, override: str | None) -> Literal["single", "separate", "joint"]:
    if len(spec.dimension_names) == 1:
        return "single"
    mode = override or spec.dimension_mode
    if mode == "joint" and not spec.joint_prompt:
        raise JudgebenchError(f"task {spec.name} has no joint_prompt; use --dimension-mode separate")
    return "separate" if mode == "single" else mode


def _template_name(spec: TaskSpec, mode: str) -> str:
    return spec.joint_prompt if mode == "joint" and spec.joint_prompt else spec.prompt


def plan_requests(
    spec: TaskSpec, examples: list[PairExample], template: PromptTemplate, *, mode: str, swap: bool
) -> list[JudgeRequest]:
    """One request per example x order x dimension (x order only, in joint mode).

    Order AB shows the dataset's response A first; BA swaps them. Which responses are shown
    first depends only on this rule, never on random state.
    """
    criteria = [(d.name, d.criterion) for d in spec.dimensions] or [(spec.dimension_names[0], "")]
    groups = [criteria] if mode == "joint" else [[c] for c in criteria]
    orders = ORDERS if swap else ORDERS[:1]
    return [
        build_request(template, example, order, group, list(spec.verdicts))
        for example in examples
        for group in groups
        for order in orders
    ]


def _parses_fully(request: JudgeRequest, text: str) -> bool:
    verdicts = parse_reply(text, request.dimensions, request.verdicts, joint=len(request.dimensions) > 1)
    return all(v is not None for v in verdicts.values())


def assemble_records(
    task: str,
    judge_id: str,
    requests: list[JudgeRequest],
    replies: list[JudgeReply | None],
    examples: list[PairExample],
    stopped: str | None = None,
    *,
    log_text: bool = True,
) -> list[JudgmentRecord]:
    """Turn each (request, reply) into one record per dimension: ANSWERED, INVALID or FAILED.

    In joint mode one call answers every dimension: its tokens and cost go on the first
    dimension's record only, so summing samples.jsonl gives the true usage.
    """
    by_id = {example.id: example for example in examples}
    records = []
    for request, reply in zip(requests, replies, strict=True):
        if reply is None:
            reply = JudgeReply(error=NOT_ATTEMPTED.format(reason=stopped or "interrupted"), attempts=0)
        example = by_id[request.example_id]
        parsed = (
            parse_reply(reply.text, request.dimensions, request.verdicts, joint=len(request.dimensions) > 1)
            if reply.error is None
            else {}
        )
        for index, dimension in enumerate(request.dimensions):
            record = _record(task, judge_id, request, reply, example, dimension, parsed.get(dimension), log_text)
            if index > 0:
                record = record.model_copy(update={"tokens_in": None, "tokens_out": None, "cost_usd": None})
            records.append(record)
    return records


def _record(
    task: str,
    judge_id: str,
    request: JudgeRequest,
    reply: JudgeReply,
    example: PairExample,
    dimension: str,
    verdict_shown: str | None,
    log_text: bool = True,
) -> JudgmentRecord:
    if reply.error is not None:
        status = "FAILED"
    else:
        status = "ANSWERED" if verdict_shown is not None else "INVALID"
    return JudgmentRecord(
        task=task,
        example_id=example.id,
        dimension=dimension,
        order=request.order,
        judge=judge_id,
        prompt_hash=request.prompt_hash,
        status=status,
        raw=reply.text,
        earlier_raw=reply.earlier_texts,
        verdict_shown=verdict_shown,
        verdict=verdict_shown if request.order == "AB" else swap_verdict(verdict_shown),
        label=example.labels[dimension],
        tokens_in=reply.tokens_in,
        tokens_out=reply.tokens_out,
        cost_usd=reply.cost_usd,
        latency_s=reply.latency_s,
        attempts=reply.attempts,
        cached=reply.cached,
        error=reply.error,
        model_a=example.model_a,
        model_b=example.model_b,
        slices=example.slices,
        length_a=len(example.response_a),
        length_b=len(example.response_b),
        citations_a=count_citations(example.response_a),
        citations_b=count_citations(example.response_b),
        question=example.question if log_text else None,
        response_a=example.response_a if log_text else None,
        response_b=example.response_b if log_text else None,
    )


def score(
    records: list[JudgmentRecord], config: RunConfig, spec: TaskSpec, *, n_examples: int, n_resamples: int = 1000
) -> RunResult:
    """Metrics, counts, usage and diagnostics of a run: pure functions over its records."""
    from .diagnostics import diagnose, leaderboard_columns
    from .metrics import score_records, summarize_counts, summarize_usage

    metrics, slices = score_records(
        records,
        both_bad=config.both_bad,
        n_resamples=n_resamples,
        seed=config.seed,
        slice_columns=tuple(spec.columns.slices),
    )
    diagnostics = diagnose(records, both_bad=config.both_bad, n_resamples=min(n_resamples, 200), seed=config.seed)
    return RunResult(
        config=config,
        metrics=metrics,
        slices=slices,
        counts=summarize_counts(records, n_examples),
        usage=summarize_usage(records),
        diagnostics={"headline": spec.headline, "leaderboard": leaderboard_columns(diagnostics)},
    )


def reparse_record(record: JudgmentRecord, spec: TaskSpec, mode: str) -> JudgmentRecord:
    """The record as the current parser reads its raw answer (failed calls stay as they are)."""
    if record.status == "FAILED":
        return record
    joint = mode == "joint"
    asked = spec.dimension_names if joint else [record.dimension]
    shown = parse_reply(record.raw, asked, list(spec.verdicts), joint=joint).get(record.dimension)
    return record.model_copy(
        update={
            "status": "ANSWERED" if shown is not None else "INVALID",
            "verdict_shown": shown,
            "verdict": shown if record.order == "AB" else swap_verdict(shown),
        }
    )


def rescore_run(run_dir: Path, include_paths: list[Path] | None = None, n_resamples: int = 1000) -> RunResult:
    """Re-parse the raw answers and recompute the metrics of a finished run: no calls.

    Picks up a new parser or metric; samples.jsonl is rewritten only when a verdict changed.
    """
    previous, records = read_run(run_dir)
    spec = run_task_spec(run_dir, previous.config.task, include_paths or [])
    reparsed = [reparse_record(record, spec, previous.config.dimension_mode) for record in records]
    result = score(reparsed, previous.config, spec, n_examples=previous.counts.examples, n_resamples=n_resamples)
    if reparsed != records:
        write_models_jsonl(run_dir / SAMPLES_FILE, reparsed)
    write_json(run_dir / RESULTS_FILE, result.model_dump(mode="json"))
    return result


def _public_args(judge: Judge) -> dict[str, Any]:
    public = getattr(judge, "public_args", None)
    return public() if callable(public) else {}


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


