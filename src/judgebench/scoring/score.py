"""Scores: records -> metrics, counts, usage and diagnostics; re-scoring a finished run; coverage checks.

Pure functions over records, except `rescore_run`, which reads and rewrites a run directory.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from judgebench.core.errors import JudgebenchError
from judgebench.core.files import write_json, write_models_jsonl
from judgebench.core.parsing import parse_reply
from judgebench.core.records import (
    JudgmentRecord,
    RunConfig,
    RunResult,
    UnlabelledJudgments,
    check_resamples,
    swap_verdict,
)
from judgebench.core.rundir import (
    REPEATS_FILE,
    RESULTS_FILE,
    SAMPLES_FILE,
    UNLABELLED_FILE,
    read_repeats,
    read_run,
    read_unlabelled,
    rewrite_samples,
)
from judgebench.tasks.registry import TaskSpec, run_task_spec


def score(
    records: list[JudgmentRecord], config: RunConfig, spec: TaskSpec, *, n_examples: int
) -> RunResult:
    """Metrics, counts, usage and diagnostics of a run: pure functions over its records.

    Intervals use the config's seed and n_resamples. The diagnostics stored here are the leaderboard's
    point values (position bias, longer-preferred rate, length coefficient, Spearman), which need no
    resampling; their intervals are in `report`.
    """
    from judgebench.core.bulk import gc_paused
    from judgebench.scoring.ceiling import annotator_figures, human_figures
    from judgebench.scoring.diagnostics import start_leaderboard_diagnostics
    from judgebench.scoring.judgment_table import reuse_tables
    from judgebench.scoring.metrics import score_records
    from judgebench.scoring.selfpref import self_preference
    from judgebench.scoring.usage import summarize_counts, summarize_usage

    check_dimensions(records, spec)
    with reuse_tables(records), gc_paused():  # metrics, confusion matrix and diagnostics read the same tables
        leaderboard = start_leaderboard_diagnostics(records, both_bad=config.both_bad, seed=config.seed)
        metrics, slices = score_records(  # on a large run the leaderboard's fits meanwhile in a child
            records,
            both_bad=config.both_bad,
            n_resamples=config.n_resamples,
            seed=config.seed,
            slice_columns=tuple(spec.columns.slices),
        )
        human = human_figures(records, spec.dimension_names, metrics, both_bad=config.both_bad,
                              n_resamples=config.n_resamples, seed=config.seed)
        annotators = annotator_figures(records, spec.dimension_names, both_bad=config.both_bad) if human else None
        counts, usage = summarize_counts(records, n_examples), summarize_usage(records, joint=config.joint)
    panel = None
    if config.kind == "panel":
        from judgebench.scoring.panel_stats import panel_summary

        panel = panel_summary(records, config)
    return RunResult(
        config=config,
        metrics=metrics,
        slices=slices,
        counts=counts,
        usage=usage,
        diagnostics={
            "leaderboard": leaderboard.result(),
            "self_preference": self_preference(
                records, config.judge, overrides=spec.model_families, n_resamples=config.n_resamples, seed=config.seed
            ),
        },
        panel=panel,
        human=human,
        annotators=annotators,
    )


def check_dimensions(records: list[JudgmentRecord], spec: TaskSpec) -> None:
    """Refuse samples that name a dimension the task does not have (one line; `score` and `report`)."""
    unknown = sorted({r.dimension for r in records} - set(spec.dimension_names))
    if unknown:
        raise JudgebenchError(f"samples: task {spec.name} has no dimension {unknown[0]!r} (its dimensions: "
                              f"{', '.join(spec.dimension_names)})")


def check_run_dimensions(run_dir: Path, records: list[JudgmentRecord], task: str) -> None:
    """`check_dimensions` against the run's task (installed, else its task.yaml copy), for a command that
    can do without the task (`report`): nothing to check when neither is found."""
    try:
        spec = run_task_spec(run_dir, task, [])
    except JudgebenchError:
        return
    check_dimensions(records, spec)


_UNPARSED = object()  # reparse_record's memo: not parsed yet (None is a parse: no verdict)


def rederive_record(record: JudgmentRecord, spec: TaskSpec, config: RunConfig,
                    memo: dict[tuple[str | None, str], Any] | None = None) -> JudgmentRecord:
    """The record as its raw answer decides it: the parser for a run, the member votes for a panel.
    `memo`: a dict kept across the records of one run (reparse_record's parses)."""
    if config.kind == "panel":
        from judgebench.scoring.panel_stats import rederive

        if config.aggregate is None:
            raise JudgebenchError("results.json: a panel (config.kind 'panel') must name its config.aggregate")
        return rederive(record, config.aggregate, len(config.members), "TIE" in spec.verdicts)
    return reparse_record(record, spec, config.dimension_mode, memo)


def reparse_record(record: JudgmentRecord, spec: TaskSpec, mode: str,
                   memo: dict[tuple[str | None, str], Any] | None = None) -> JudgmentRecord:
    """The record as the current parser reads its raw answer (failed calls stay as they are).

    `memo`: a dict kept across the records of one run (one spec and mode): the parse of each distinct
    (raw answer, dimension), which is all the parse depends on, is computed once (a pure function)."""
    if record.status == "FAILED" or record.invalid_reason == "truncated":
        return record  # a cut-off answer stays INVALID, whatever it began with
    key = (record.raw, record.dimension)
    shown = _UNPARSED if memo is None else memo.get(key, _UNPARSED)
    if shown is _UNPARSED:
        joint = mode == "joint"
        asked = spec.dimension_names if joint else [record.dimension]
        shown = parse_reply(record.raw, asked, list(spec.verdicts), joint=joint).get(record.dimension)
        if memo is not None:
            memo[key] = shown
    status = "ANSWERED" if shown is not None else "INVALID"
    if (record.status, record.verdict_shown) == (status, shown) and record.verdict == (
        shown if record.order == "AB" else swap_verdict(shown)
    ):
        return record  # unchanged: no copy (a large run re-scores in bounded memory)
    return record.model_copy(
        update={
            "status": "ANSWERED" if shown is not None else "INVALID",
            "verdict_shown": shown,
            "verdict": shown if record.order == "AB" else swap_verdict(shown),
        }
    )


def rescore_run(run_dir: Path, include_paths: list[Path] | None = None, n_resamples: int | None = None) -> RunResult:
    """Re-parse the raw answers and recompute the metrics of a finished run: no calls.

    Picks up a new parser or metric; samples.jsonl is rewritten only when a verdict changed. A panel's
    verdicts are re-derived from the member votes its raw answers record (panel_stats.aggregate_votes).
    `n_resamples` (default: the run's own) replaces the run's bootstrap resample count.
    """
    previous, records = read_run(run_dir, lean=True)
    unlabelled = read_unlabelled(run_dir, previous, records)  # checked before anything is rewritten
    spec = run_task_spec(run_dir, previous.config.task, include_paths or [])
    memo: dict[tuple[str | None, str], Any] = {}  # one run: one spec and mode
    reparsed = [rederive_record(record, spec, previous.config, memo) for record in records]
    config = previous.config
    if n_resamples is not None:
        config = config.model_copy(update={"n_resamples": check_resamples(n_resamples)})
    result = score(reparsed, config, spec, n_examples=previous.counts.examples)
    if any(new is not old and new != old for new, old in zip(reparsed, records)):  # unchanged: the same object
        rewrite_samples(run_dir / SAMPLES_FILE, reparsed)
    stability = previous.stability  # judgments_all is 0 in files written before it was counted: nothing to check
    expected = stability.judgments_all - len(records) if stability is not None and stability.judgments_all else None
    repeats = read_repeats(run_dir, config.task, config.judge, expected)
    if repeats:  # --repeats: the other repeats re-parsed too, and the stability figures recomputed
        from judgebench.scoring.repeats import stability_summary

        again = [rederive_record(record, spec, config) for record in repeats]
        if again != repeats:
            write_models_jsonl(run_dir / REPEATS_FILE, again)
        result.stability = stability_summary(
            [*reparsed, *again], 1 + max(r.repeat for r in again), headline=config.headline,
            both_bad=config.both_bad, allow_tie="TIE" in spec.verdicts, seed=config.seed, n_resamples=config.n_resamples,
            joint=config.joint,
        )
    result.unlabelled = _rescore_unlabelled(run_dir, unlabelled, previous, spec, config)
    write_json(run_dir / RESULTS_FILE, result.model_dump(mode="json"))
    return result


def _rescore_unlabelled(run_dir: Path, records: list[JudgmentRecord], previous: RunResult, spec: TaskSpec,
                        config: RunConfig) -> UnlabelledJudgments | None:
    """`run --judge-unlabelled`: unlabelled.jsonl re-parsed as samples.jsonl is (rewritten only when a verdict
    changed) and its counts and usage summed again."""
    from judgebench.scoring.usage import summarize_unlabelled

    if previous.unlabelled is None:
        return None
    memo: dict[tuple[str | None, str], Any] = {}  # one run: one spec and mode
    again = [rederive_record(record, spec, config, memo) for record in records]
    if any(new is not old for new, old in zip(again, records)):  # unchanged: the same object
        write_models_jsonl(run_dir / UNLABELLED_FILE, again)
    return summarize_unlabelled(again, previous.unlabelled.examples, joint=config.joint)


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
        elif record.status == "INVALID" and record.invalid_reason == "truncated":
            reasons["invalid answer: truncated by the token cap (raise max_tokens)"] += 1
        elif record.status == "INVALID":
            reasons[f"invalid answer: {_opening(record.raw)}"] += 1
    return reasons.most_common(n)


_HASH = re.compile(r"\b[0-9a-f]{16,}\b")  # prompt hashes etc. would make every cause unique


def _opening(text: str | None) -> str:
    if not text or not text.strip():
        return "(empty)"
    flat = " ".join(text.split())
    return repr(flat[:60] + ("..." if len(flat) > 60 else ""))
