"""The pairwise kind: which of two responses is better, against human preference labels.

A thin adapter: the code stays where it is (tasks.registry for the specs, judging.pipeline for the job,
judging.judgments for requests and records, scoring.score, publish.leaderboard for the board rows,
publish.verify for the checks) and is imported when a step runs, so listing tasks stays fast.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgebench.core.errors import JudgebenchError
from judgebench.kinds.base import Plan, as_request, results_kind
from judgebench.tasks import registry

if TYPE_CHECKING:
    from judgebench.core.records import JudgeReply, JudgmentRecord, RunConfig, RunResult
    from judgebench.judging.pipeline import RunSummary
    from judgebench.tasks.registry import TaskSpec
    from judgebench.tasks.request import JobRequest

RUN_KINDS = ("run", "panel")  # results.json `config.kind` of a pairwise run (a panel is built from runs)


class PairwiseKind:
    name = registry.DEFAULT_KIND  # "pairwise": also the kind of a task YAML without a `kind:` key
    command = "judgebench run --tasks"

    # ---- its task specs: tasks/registry.py
    def bundled_folder(self) -> Path:
        from judgebench.core.resources import tasks_dir

        return tasks_dir()

    def task_files(self, include_paths: Iterable[Path] = ()) -> dict[str, Path]:
        return registry.task_files(include_paths)

    def load_task(self, path: Path) -> TaskSpec:
        return registry.load_task_file(path)

    def get_task(self, name: str, include_paths: Iterable[Path] = ()) -> TaskSpec:
        return registry.get_task(name, include_paths)

    def describe(self, spec: TaskSpec) -> dict[str, str]:
        return registry.describe_task(spec)

    # ---- the job: judging/pipeline.py (run), judging/judgments.py (plan, assemble), scoring/score.py (score)
    def plan(self, request: JobRequest) -> Plan:
        """What `judgebench run` would send (the data loaded, prompts rendered; no call), as `--dry-run` plans it."""
        from judgebench.judging.judgments import plan_requests
        from judgebench.judging.pipeline import (
            RunRequest,
            run_dimension_mode,
            load_for_run,
            template_name,
        )
        from judgebench.judging.prompts import load_prompt
        from judgebench.judging.repeats import expand_repeats

        run = as_request(request, RunRequest)
        spec = registry.get_task(run.task, run.include_paths)
        mode = run_dimension_mode(spec, run.dimension_mode)
        template = load_prompt(run.prompt or template_name(spec, mode), spec.folder)
        loaded = load_for_run(spec, run)
        examples = list(loaded.examples)
        requests = expand_repeats(plan_requests(spec, examples, template, mode=mode, swap=run.swap), run.repeats)
        return Plan(self.name, spec, examples, template, requests,
                    {"mode": mode, "repeats": run.repeats, "log_text": run.log_text, "dataset": loaded.dataset})

    def assemble(self, plan: Plan, judge_id: str, replies: Sequence[JudgeReply | None]) -> list[JudgmentRecord]:
        """One record per request and dimension (every repeat's: `score` keeps repeat 0 for the metrics)."""
        from judgebench.judging.judgments import assemble_records

        return assemble_records(plan.spec.name, judge_id, plan.requests, list(replies), plan.items,
                                log_text=plan.extra.get("log_text", True))

    def score(self, plan: Plan, records: list[JudgmentRecord], config: RunConfig) -> RunResult:
        """results.json's figures, as the run scores them (repeat 0; the stability figures over every repeat)."""
        from judgebench.judging.repeats import split_repeats
        from judgebench.scoring.repeats import stability_summary
        from judgebench.scoring.score import score

        kept, others = split_repeats(records)
        result = score(kept, config, plan.spec, n_examples=len(plan.items))
        repeats = plan.extra.get("repeats", 1)
        if repeats > 1:
            result.stability = stability_summary(
                [*kept, *others], repeats, headline=plan.spec.headline, both_bad=config.both_bad,
                allow_tie="TIE" in plan.spec.verdicts, seed=config.seed, n_resamples=config.n_resamples,
                joint=config.joint,
            )
        return result

    def run(self, request: JobRequest) -> RunSummary:
        from judgebench.judging.pipeline import RunRequest, run_task

        return run_task(as_request(request, RunRequest))

    # ---- its runs: core/rundir.py, publish/leaderboard.py, publish/verify.py
    def is_run(self, run_dir: Path) -> bool:
        return results_kind(run_dir) in RUN_KINDS

    def read_run(self, run_dir: Path) -> tuple[RunResult, list[JudgmentRecord]]:
        from judgebench.core.rundir import read_run

        return read_run(run_dir)

    def board_rows(self, results: Sequence[Path], include_paths: Sequence[Path] = ()) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
        from judgebench.publish.leaderboard import collect_tables

        return collect_tables(list(results), list(include_paths))

    def verify(self, run_dir: Path, include_paths: Sequence[Path] = (), **options: Any) -> tuple[RunResult, list[JudgmentRecord]]:
        """publish.verify.validate_run; options: dataset_path, leaderboard_dir, min_coverage. Its tasks are the
        installed ones and the leaderboard's: a submission loads no task the submitter names."""
        from judgebench.publish.verify import validate_run

        if include_paths:
            raise JudgebenchError("pairwise runs are verified against the installed tasks and the leaderboard's "
                                  "own (leaderboard_dir), never an --include-path folder")
        verified = validate_run(run_dir, **options)
        return verified.result, verified.records


PAIRWISE = PairwiseKind()
