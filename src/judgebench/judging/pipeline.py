"""The main job: load a task, plan the judge calls, run them, turn replies into records, score, write.

Each step lives in its own module (tasks, judgments, runner, scoring, rundir); this one orders them
and checks everything checkable before the first call.
"""

from __future__ import annotations

import importlib.metadata
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from judgebench.calls import RunnerOptions, check_cache, run_requests
from judgebench.calls.stopping import interrupts_held, noting_interrupts, release_interrupts, results_written
from judgebench.core.allocator import release_free_memory
from judgebench.core.errors import JudgebenchError
from judgebench.core.names import is_builtin
from judgebench.core.records import JudgmentRecord, RunConfig, RunResult, failure_of, is_retries_cut
from judgebench.core.rundir import SAMPLES_FILE, check_run_files, recorded_config, replacing, writing_run
from judgebench.core.version import __version__
from judgebench.judges import make_judge
from judgebench.judges.args import near_misses
from judgebench.judges.config import configuration_hash
from judgebench.judging.fastpath import fast_path
from judgebench.judging.prompts import load_prompt, reads_no_prompt
from judgebench.judging.repeats import MAX_REPEATS
from judgebench.judging.shards import parse_shard, shard_examples, shard_text
from judgebench.judging.streaming import finish_run, stream_judgments
from judgebench.scoring.repeats import stability_summary
from judgebench.scoring.score import coverage_failure, score
from judgebench.scoring.usage import summarize_unlabelled
from judgebench.tasks.loading import LoadedTask, load_examples
from judgebench.tasks.registry import TaskSpec, get_task
from judgebench.tasks.request import (
    JobRequest,  # the shared fields (it lived here before)
    replayed_run,
)

if TYPE_CHECKING:
    from judgebench.judges.base import Judge
    from judgebench.judging.prompts import PromptTemplate
    from judgebench.judging.streaming import StreamOutcome

WRITING_FIRST = "judgebench: interrupted after the last judgment: writing the results first (Ctrl-\\ ends the process now)"


@dataclass
class RunRequest(JobRequest):
    """Everything `judgebench run` needs for one task (the shared fields: tasks.request.JobRequest)."""

    max_repeats: ClassVar[int | None] = MAX_REPEATS
    fractional_limit: ClassVar[bool] = True  # --limit 0.1: lm-eval's convention (tasks/loading.py)

    split: str | None = None
    revision: str | None = None
    swap: bool = True
    dimension_mode: Literal["separate", "joint"] | None = None
    both_bad: Literal["tie", "exclude"] | None = None
    runner: RunnerOptions = field(default_factory=RunnerOptions)
    log_text: bool = True  # question and responses in samples.jsonl
    judge_unlabelled: bool = False  # examples without a label judged too, into unlabelled.jsonl (never scored)
    shard: str | None = None  # "K/N": judge only the K-th of N contiguous blocks of examples (shards.py)
    judge_object: Judge | None = None  # the caller's own judge (Python API, judges/own.py); `judge` is its id

    def __post_init__(self) -> None:
        super().__post_init__()  # the shared ranges; --repeats up to max_repeats
        if self.shard is not None:
            self.shard = shard_text(*parse_shard(self.shard))


@dataclass
class RunSummary:
    result: RunResult
    run_dir: Path
    stopped: str | None  # why the run stopped early, if it did
    calls_made: int
    coverage_failure: str | None = None  # why the answered share is too low (the run still wrote results)
    warnings: list[str] = field(default_factory=list)
    collected: int = 0  # --batch: judgments answered by a batch an earlier run submitted (no new cost)


def run_task(request: RunRequest) -> RunSummary:
    """Judge every example of one task and write the run directory.

    Everything checkable is checked before data is loaded and before the first call: the output
    folder, the task, the prompt template, the judge's credentials and the answer cache.
    """
    request.check_outputs()
    with writing_run(request.output_path):  # one run at a time in a folder
        return _run_task(request)


def _run_task(request: RunRequest) -> RunSummary:
    started = _now()
    check_run_files(request.output_path)
    spec, mode, template = run_template(request)
    warn_of_setup(request, spec, mode, template)
    judge = request.judge_object or make_judge(request.judge, request.judge_args, seed=request.seed)
    judge.preflight()
    check_cache(judge, request.runner)
    if request.runner.batch:  # a judge no batch API takes: before the data is loaded
        from judgebench.calls.batch import check_batch_judge

        check_batch_judge(judge)
    warn_of_replacing(request, spec.name, judge.id, configuration_hash(judge, template.sha256, request.runner.reask))
    try:
        with fast_path(judge, request.runner) as plan:  # performance only: judging/fastpath.py
            loaded = plan.load(lambda: load_for_run(spec, request))
            outcome = plan.judge(lambda worker: stream_judgments(  # chunk by chunk, appended to samples.jsonl
                spec, judge, loaded.examples, template, mode=mode, swap=request.swap, runner=request.runner,
                samples_path=request.output_path / SAMPLES_FILE, worker=worker, log_text=request.log_text,
                call=run_requests, repeats=request.repeats,
            ))
            with noting_interrupts(not interrupts_held(), say=WRITING_FIRST) as interrupted:  # the first interrupt
                summary = _score_and_write(request, spec, mode, template, judge, started, loaded, outcome)
                results_written()
            del outcome  # the records go before the collector resumes (fastpath.py)
    finally:
        release_interrupts()  # an interrupted run held further Ctrl-C until its results were written
    if interrupted():  # after the last judgment: the results are written, complete; the command ends as interrupted
        raise KeyboardInterrupt
    return summary


def _score_and_write(
    request: RunRequest, spec: TaskSpec, mode: str, template: PromptTemplate, judge: Judge, started: str,
    loaded: LoadedTask, outcome: StreamOutcome,
) -> RunSummary:
    """Score the judged records, write results.json (and repeats.jsonl), sum the run up."""
    records, n_examples = outcome.records, outcome.examples - outcome.unlabelled_examples
    loaded.examples = []  # the texts are in samples.jsonl: scoring needs only the lean records
    release_free_memory()  # the chunks' pages, freed between the lean records, before scoring's own (allocator.py)
    config = RunConfig(
        task=spec.name,
        task_version=spec.version,
        dataset=loaded.dataset,
        judge=judge.id,
        judge_args=judge.public_args(),
        judge_name=request.judge_name or None,
        judge_config_hash=configuration_hash(judge, template.sha256, request.runner.reask),
        prompt_template=template.name,
        prompt_template_hash=template.sha256,
        dimension_mode=mode,
        both_bad=request.both_bad or spec.both_bad,
        swap=request.swap,
        seed=request.seed,
        limit=loaded.limit if loaded.limit is not None else _int_limit(request.limit),
        limit_fraction=request.limit if isinstance(request.limit, float) else None,
        judgebench_version=__version__,
        litellm_version=_version("litellm"),
        datasets_version=_version("datasets"),
        started_at=started,
        ended_at=_now(),
        partial=outcome.stopped is not None,
        headline=spec.headline,
        n_resamples=request.n_resamples,
        shard=request.shard,
        own_judge=True if request.judge_object is not None else None,
        reask=request.runner.reask or None,
    )
    result = score(records, config, spec, n_examples=n_examples)
    result.unlabelled = summarize_unlabelled(outcome.unlabelled, outcome.unlabelled_examples, joint=config.joint)
    if request.repeats > 1:
        result.stability = stability_summary(
            [*records, *outcome.repeats], request.repeats, headline=spec.headline, both_bad=config.both_bad,
            allow_tie="TIE" in spec.verdicts, seed=request.seed, n_resamples=request.n_resamples, joint=config.joint,
        )
    finish_run(
        request.output_path, result, task_file=spec.source_file, prompt_file=template.path, repeats=outcome.repeats
    )
    warnings = _warnings(spec, request, loaded)
    if result.counts.cached:  # answers recorded under another endpoint (a shared endpoint_fingerprint): said so
        from judgebench.calls.dispatch import cache_endpoint_note

        note = cache_endpoint_note(judge, request.runner, sorted({r.prompt_hash for r in records if r.cached}))
        if note:
            warnings.append(note)
            if request.on_warning:
                request.on_warning(note)
    return RunSummary(
        result,
        request.output_path,
        _stopped(outcome, [*records, *outcome.repeats, *outcome.unlabelled], request.runner.use_cache),
        outcome.calls_made,
        coverage_failure=_coverage_failure(records, result, outcome, request.min_coverage),
        warnings=warnings,
        collected=outcome.collected,
    )


def _stopped(outcome: StreamOutcome, records: list[JudgmentRecord], cached: bool) -> str | None:
    """Why the run stopped early, with how many of its judgments (`records`: every repeat's, unlabelled ones too)
    were never sent and how many were sent and not waited for (the summary counts both as failed, beside the calls
    sent; with the cache, an answer that came after the stop is there for the rerun); None when it did not stop."""
    if outcome.stopped is None:
        return None
    # (a call whose retry the stop cut short: the runner's line counts it, "not retried"; it was counted twice, "in
    # flight at the stop, not waited for" beside "waited for and kept")
    kinds = Counter(failure_of(r) for r in records if r.status == "FAILED" and not is_retries_cut(r.error))
    parts = [f"{kinds[kind]} {what}" for kind, what in (("not_attempted", "judgments not attempted"),
                                                         ("in_flight", "in flight at the stop, not waited for"))
             if kinds[kind]]
    rerun = ("rerun the command to finish them, answers already received come from the cache" if cached
             else "rerun the command to ask them again (--no-cache: every call is sent again)")
    if outcome.stopped.startswith("max cost"):  # (a walkthrough: following the advice twice spent twice the cap)
        rerun += "; --max-cost caps each rerun's new spend afresh, not the total"
    return f"{outcome.stopped}; {', '.join(parts)} (counted as failed; {rerun})" if parts else outcome.stopped


def _coverage_failure(records: list[JudgmentRecord], result: RunResult, outcome: StreamOutcome,
                      min_coverage: float | None) -> str | None:
    """Why the answered share is too low: of the scored judgments, or of the unlabelled examples' (their verdicts
    are what `--judge-unlabelled` is run for), each with its most common causes."""
    failures = [coverage_failure(records, result.counts.coverage, min_coverage)]
    stability = result.stability
    if stability is not None and failures[0] is not None:  # the figures are repeat 0's: say so
        others = "repeat 1" if stability.repeats == 2 else f"repeats 1-{stability.repeats - 1}"
        failures[0] = (f"in repeat 0 (the run's figures; {stability.answered_all - result.counts.answered} "
                       f"judgments of {others} answered): {failures[0]}")
    if result.unlabelled is not None:
        first = [r for r in outcome.unlabelled if r.repeat == 0]
        failure = coverage_failure(first, result.unlabelled.counts.coverage, min_coverage)
        failures.append(f"unlabelled examples: {failure}" if failure else None)
    return "; ".join(f for f in failures if f) or None


def _int_limit(limit: int | float | None) -> int | None:
    return limit if isinstance(limit, int) else None


def load_for_run(spec: TaskSpec, request: RunRequest) -> LoadedTask:
    """The task's examples; warnings about the data and inapplicable flags go to `on_warning` now."""
    loaded = load_examples(
        spec,
        dataset_path=request.dataset_path,
        split=request.split,
        revision=request.revision,
        demo=request.demo,
        limit=request.limit,
        lazy=True,  # examples built chunk by chunk while judging (stream_load.py)
        unlabelled=request.judge_unlabelled,
    )
    if request.shard is not None:
        loaded.examples = shard_examples(loaded, *parse_shard(request.shard))
    if not loaded.examples:
        raise JudgebenchError(f"task {spec.name}: the dataset has no examples" + (f" in shard {request.shard}" if request.shard else ""))
    for message in _warnings(spec, request, loaded):
        if request.on_warning:
            request.on_warning(message)
    return loaded


def _warnings(spec: TaskSpec, request: RunRequest, loaded: LoadedTask) -> list[str]:
    extra = []
    if request.dimension_mode and len(spec.dimension_names) == 1:
        extra.append(f"--dimension-mode is ignored: task {spec.name} has one dimension")
    if request.repeats > 1 and _is_zero(request.judge_args.get("temperature")):
        extra.append(f"--repeats {request.repeats} at temperature 0: the repeats run anyway (providers are not deterministic at temperature 0)")
    if request.repeats > 1 and isinstance(request.judge, str) and is_builtin(request.judge):
        extra.append(f"--repeats {request.repeats}: built-in judge {request.judge} answers alike every time, so its repeats "
                     "agree by construction (their stability and confidence figures say nothing of it)")
    return [*loaded.warnings, *extra]


def _is_zero(value: Any) -> bool:
    try:
        return value is not None and float(value) == 0
    except (TypeError, ValueError):
        return False


def run_dimension_mode(spec: TaskSpec, override: str | None) -> Literal["single", "separate", "joint"]:
    if len(spec.dimension_names) == 1:
        return "single"
    mode = override or spec.dimension_mode
    if mode == "joint" and not spec.joint_prompt:
        raise JudgebenchError(f"task {spec.name} has no joint_prompt; use --dimension-mode separate")
    return "separate" if mode == "single" else mode


def warn_of_setup(request: RunRequest, spec: TaskSpec, mode: str, template: PromptTemplate) -> None:
    """What a run's setup asks that is likely not meant, said before any call (`--dry-run` too): a judge argument
    one letter off a known one, a split or revision with the demo data, a replay of a run made with another prompt
    template, a prompt that leaves out a response, a separate-mode prompt that names no dimension."""
    if request.on_warning is None:
        return
    for line in near_misses(request.judge_args):
        request.on_warning(line)
    for flag, value in (("--split", request.split), ("--revision", request.revision)):
        if request.demo and value:
            request.on_warning(f"{flag} is ignored with --demo (the bundled demo split has no splits or revisions)")
    if (run := replayed_run(request.judge)) is not None and (used := _replayed_template(run, template, request)):
        request.on_warning(f"--judge {request.judge}: that run's prompt template is {used}, this run renders "
                           f"{template.name}@{template.sha256[:10]}: the prompts they render differently have no "
                           "recorded answer (a run made with --prompt FILE is replayed with the same --prompt)")
    if not reads_no_prompt(request.judge) and (unshown := template.unshown("response_first", "response_second")):
        request.on_warning(unshown)
    if mode == "separate" and not template.names_dimension():
        request.on_warning(f"prompt {template.name} does not name the dimension ({{{{ dimension }}}}, {{{{ criterion }}}}): "
                           f"each of task {spec.name}'s {len(spec.dimension_names)} dimensions is asked the same "
                           "question (one call each): their verdicts are one overall preference, not the dimension's")


def _replayed_template(run: Path, template: PromptTemplate, request: RunRequest) -> str | None:
    """NAME@HASH of the prompt template a replayed run's results.json records, when its text is not `template`'s
    and this run either names no --prompt (a baseline made with one, replayed without it, had every prompt
    unrecorded) or another template's; else None. An edited template of the same name, given as --prompt, is
    what a replay gate is for: not warned of."""
    config = recorded_config(run) or {}
    used, hashed = config.get("prompt_template"), config.get("prompt_template_hash")
    if not isinstance(used, str) or not isinstance(hashed, str) or hashed == template.sha256:
        return None
    return f"{used}@{hashed[:10]}" if request.prompt is None or used != template.name else None


def warn_of_replacing(request: RunRequest, task: str, judge: str, config_hash: str) -> None:
    """A line before any call when --output-path holds a finished run of another task, judge or configuration of
    it, which this run replaces (a walkthrough: a paid run was replaced without a word). A rerun of the same
    (resuming from the cache) is not warned of."""
    message = replacing(request.output_path, task, judge, config_hash)
    if message and request.on_warning:
        request.on_warning(f"--output-path {message}")


def run_template(request: RunRequest) -> tuple[TaskSpec, str, PromptTemplate]:
    """The run's task, dimension mode and prompt template (a template not found or not valid is one error)."""
    spec = get_task(request.task, request.include_paths)
    mode = run_dimension_mode(spec, request.dimension_mode)
    return spec, mode, load_prompt(request.prompt or template_name(spec, mode), spec.folder)


def check_task(request: RunRequest, *, data: bool = True) -> None:
    """What a later task of a multi-task run has checked before the first task's calls: the task, its prompt
    template and (`data`) every row of its data, read and let go (read again at its turn)."""
    spec, _, _ = run_template(request)
    if data:
        load_for_run(spec, request)


def template_name(spec: TaskSpec, mode: str) -> str:
    return spec.joint_prompt if mode == "joint" and spec.joint_prompt else spec.prompt


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


