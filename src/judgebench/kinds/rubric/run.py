"""The rubric job: load a rubric task, plan requests, run them on the shared runner, validate, score, write.

The run directory has the pairwise layout (rundir.py names): samples.jsonl (RubricRecord lines),
results.json (RubricResult, `config.kind` "rubric"), task.yaml and prompt.yaml copies.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from judgebench.calls import RunnerOptions, check_cache, run_requests
from judgebench.calls.stopping import written_whole
from judgebench.core.errors import JudgebenchError
from judgebench.core.files import (
    read_model_json,
    read_models_jsonl,
    write_json,
)
from judgebench.core.rundir import RESULTS_FILE, SAMPLES_FILE, check_run_files, replacing, write_run, writing_run
from judgebench.core.version import __version__
from judgebench.judging.prompts import load_prompt, reads_no_prompt
from judgebench.kinds.base import results_kind
from judgebench.kinds.rubric import scoring
from judgebench.kinds.rubric.judges import make_rubric_judge
from judgebench.kinds.rubric.judging import (
    assemble_rubric_records,
    plan_rubric_requests,
    reply_accepted,
)
from judgebench.kinds.rubric.records import RubricConfig, RubricRecord, RubricResult
from judgebench.kinds.rubric.spec import data_path, dataset_config, fingerprint, load_responses
from judgebench.tasks.request import JobRequest

DEFAULT_REASK = 6  # ScienceArena's ledger: one initial call plus at most six retries


@dataclass
class RubricRunRequest(JobRequest):
    """Everything `judgebench rubric run` needs (the shared fields and range checks: tasks.request.JobRequest)."""

    within_k: float | None = None  # default: the task's
    runner: RunnerOptions = field(default_factory=lambda: RunnerOptions(reask=DEFAULT_REASK))

    def __post_init__(self) -> None:
        super().__post_init__()  # the shared ranges; --repeats >= 1
        if self.within_k is not None and not self.within_k > 0:
            raise JudgebenchError(f"--within-k: must be > 0, got {self.within_k}")


@dataclass
class RubricRunSummary:
    result: RubricResult
    run_dir: Path
    stopped: str | None
    calls_made: int
    failure: str | None  # why the run counts as failed (nothing scored, or below --min-coverage), else None


def run_rubric(request: RubricRunRequest) -> RubricRunSummary:
    """Grade every response of a rubric task and write the run directory (one run at a time in it)."""
    request.check_outputs()
    with writing_run(request.output_path):
        return _run_rubric(request)


def _run_rubric(request: RubricRunRequest) -> RubricRunSummary:
    from judgebench.kinds.rubric.spec import get_rubric_task

    started = _now()
    check_run_files(request.output_path)  # (someone else's results.json was replaced without a word)
    spec = get_rubric_task(request.task, request.include_paths)
    template = load_prompt(request.prompt or spec.prompt, spec.folder)
    judge = make_rubric_judge(request.judge, request.judge_args, seed=request.seed)
    judge.preflight()
    check_cache(judge, request.runner)
    path = data_path(spec, demo=request.demo, dataset_path=request.dataset_path)
    responses = load_responses(spec, path, request.limit)
    requests, targets = plan_rubric_requests(spec, responses, template, request.repeats)
    if request.on_warning is not None and (message := replacing(request.output_path, spec.name, judge.id)):
        request.on_warning(f"--output-path {message}")  # (once the task, judge and data are checked)
    unshown = None if reads_no_prompt(request.judge) else template.unshown("response")
    if request.on_warning is not None and unshown:
        request.on_warning(unshown)
    outcome = run_requests(requests, judge, request.runner, reply_accepted) if requests else None
    replies = outcome.replies if outcome else []
    records = assemble_rubric_records(spec.name, judge.id, spec, responses, requests, targets, replies, request.repeats)
    config = RubricConfig(
        task=spec.name, task_version=spec.version, dataset="demo" if request.demo else str(path),
        dataset_config=None if request.demo else dataset_config(spec, path),
        fingerprint=fingerprint(responses), demo=request.demo, judge=judge.id, judge_args=judge.public_args(),
        prompt_template=template.name, prompt_template_hash=template.sha256, reask=request.runner.reask,
        repeats=request.repeats, within_k=request.within_k or spec.within_k,
        total_tolerance=spec.validation.total_tolerance, evidence_required=spec.validation.evidence_required,
        seed=request.seed, n_resamples=request.n_resamples, limit=request.limit, judgebench_version=__version__,
        started_at=started, ended_at=_now(), partial=bool(outcome and outcome.stopped),
    )
    result = score_records(records, config, n_responses=len(responses))
    write_rubric_run(request.output_path, result, records, spec.source_file, template.path)
    stopped = outcome.stopped if outcome else None
    return RubricRunSummary(result, request.output_path, stopped, outcome.calls_made if outcome else 0,
                            nothing_scored(records) or below_coverage(records, result, request.min_coverage))


def score_records(records: list[RubricRecord], config: RubricConfig, n_responses: int) -> RubricResult:
    k, n, seed = config.within_k, config.n_resamples, config.seed
    return RubricResult(
        config=config,
        metrics=scoring.calibration_metrics(records, k, n, seed),
        slices=scoring.slice_metrics(records, k, n, seed),
        system=scoring.system_level(records, k),
        repeat_agreement=scoring.repeat_agreement(records),
        counts=scoring.counts(records, n_responses),
        usage=scoring.usage(records),
    )


def nothing_scored(records: list[RubricRecord]) -> str | None:
    """Why a run scored nothing (with its most common causes), else None."""
    if any(r.status == "ANSWERED" for r in records):
        return None
    listed = _causes(records)
    return "no response was graded by the judge" + (f"; most common causes: {listed}" if listed else "")


def _causes(records: list[RubricRecord]) -> str:
    """The three most common reasons records were not scored, with their counts."""
    causes = Counter((r.error or r.reason or r.status).splitlines()[0][:100] for r in records if not r.scored)
    return "; ".join(f"{count} x {cause}" for cause, count in causes.most_common(3))


def below_coverage(records: list[RubricRecord], result: RubricResult, minimum: float | None) -> str | None:
    """Why the run's coverage (scored / judgments) is below --min-coverage, else None."""
    c = result.counts
    if minimum is None or c.coverage >= minimum:
        return None
    return (f"coverage {c.coverage:.3f} is below --min-coverage {minimum:g} (rejected {c.invalid}, failed {c.failed}"
            f" of {c.judgments} judgments); most common causes: {_causes(records)}")


def write_rubric_run(run_dir: Path, result: RubricResult, records: list[RubricRecord],
                     task_file: str | None, prompt_file: Path | None) -> None:
    """samples.jsonl, copies of the task YAML and prompt, then results.json; each atomic (rundir.write_run:
    a write failure saves the judgments to a salvage file); whole, an interrupt meanwhile raised after (as merge)."""
    with written_whole(f"the rubric run {run_dir}"):
        write_run(run_dir, result, records, task_file=task_file, prompt_file=prompt_file)


def is_rubric_run(run_dir: Path) -> bool:
    """Whether a folder holds a rubric run (results.json with config.kind "rubric")."""
    return results_kind(run_dir) == "rubric"


def read_rubric_run(run_dir: Path) -> tuple[RubricResult, list[RubricRecord]]:
    results, samples = run_dir / RESULTS_FILE, run_dir / SAMPLES_FILE
    for path in (results, samples):
        if not path.is_file():
            problem = "is not a regular file" if path.exists() else "is missing"
            raise JudgebenchError(f"{run_dir}: not a run directory ({path.name} {problem})")
    result = read_model_json(results, RubricResult)
    if result.config.kind != "rubric":
        raise JudgebenchError(f"{results}: not a rubric run")
    records = read_models_jsonl(samples, RubricRecord)
    seen: set[tuple[str, int]] = set()
    for number, r in enumerate(records, start=1):
        if (r.task, r.judge) != (result.config.task, result.config.judge):
            raise JudgebenchError(f"{samples}:{number}: task {r.task!r}, judge {r.judge!r} differ from {RESULTS_FILE}")
        if (r.item_id, r.repeat) in seen:
            raise JudgebenchError(f"{samples}:{number}: response {r.item_id} repeat {r.repeat} appears twice")
        seen.add((r.item_id, r.repeat))
    if len(records) != result.counts.judgments:  # every planned grading is a line (not attempted ones too)
        raise JudgebenchError(f"{samples}: {len(records):,} judgments, but {RESULTS_FILE} counts "
                              f"{result.counts.judgments:,}: lines were removed or added after the run")
    return result, records


def rescore(run_dir: Path, n_resamples: int | None = None) -> RubricResult:
    """Re-score a rubric run from its samples alone (no judge calls) and rewrite results.json."""
    result, records = read_rubric_run(run_dir)
    config = result.config if n_resamples is None else result.config.model_copy(update={"n_resamples": n_resamples})
    new = score_records(records, config, result.counts.responses)
    write_json(run_dir / RESULTS_FILE, new.model_dump(mode="json"))
    return new


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
