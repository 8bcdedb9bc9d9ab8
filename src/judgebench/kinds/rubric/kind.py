"""The rubric kind: pointwise grading against a rubric, calibrated against expert scores (kinds/base.py's protocol).

Each step is the rubric package's own code (spec, judging, run, board, index, verify), imported when it runs;
its command line is `judgebench rubric ...` (cli/rubric.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgebench.kinds.base import Plan, as_request, results_kind
from judgebench.kinds.rubric import spec as rubric_spec
from judgebench.kinds.rubric.hub import OWN_READER

if TYPE_CHECKING:
    from judgebench.core.records import JudgeReply
    from judgebench.kinds.rubric.records import RubricConfig, RubricRecord, RubricResult
    from judgebench.kinds.rubric.run import RubricRunSummary
    from judgebench.kinds.rubric.spec import RubricTaskSpec
    from judgebench.tasks.request import JobRequest

LOCAL_DATA = (*OWN_READER, ".parquet")  # a dataset path read from the task's folder (spec.data_path)


class RubricKind:
    name = "rubric"
    command = "judgebench rubric run --task"

    # ---- its task specs: spec.py (tasks/rubric/, and `kind: rubric` YAMLs in --include-path folders)
    def bundled_folder(self) -> Path:
        return rubric_spec.rubric_tasks_dir()

    def task_files(self, include_paths: Iterable[Path] = ()) -> dict[str, Path]:
        return rubric_spec.rubric_task_files(include_paths)

    def load_task(self, path: Path) -> RubricTaskSpec:
        return rubric_spec.load_rubric_task_file(path)

    def get_task(self, name: str, include_paths: Iterable[Path] = ()) -> RubricTaskSpec:
        return rubric_spec.get_rubric_task(name, include_paths)

    def describe(self, spec: RubricTaskSpec) -> dict[str, str]:
        d = spec.dataset
        local = not (d.name or d.revision) and (d.path.startswith((".", "/")) or Path(d.path).suffix.lower() in LOCAL_DATA)
        return {
            "name": spec.name,
            "version": spec.version,
            "dataset": d.path if local else f"{d.path}:{d.split}@{d.revision or 'unpinned'}",
            "demo": "yes" if spec.demo else "no",
            "file": str(spec.source_file),
        }

    # ---- the job: judging.py (plan, assemble), run.py (score, run)
    def plan(self, request: JobRequest) -> Plan:
        """The graded responses and one request per response and repeat (no-answer rows need none)."""
        from judgebench.judging.prompts import load_prompt
        from judgebench.kinds.rubric.judging import plan_rubric_requests
        from judgebench.kinds.rubric.run import RubricRunRequest

        run = as_request(request, RubricRunRequest)
        spec = rubric_spec.get_rubric_task(run.task, run.include_paths)
        template = load_prompt(run.prompt or spec.prompt, spec.folder)
        path = rubric_spec.data_path(spec, demo=run.demo, dataset_path=run.dataset_path)
        responses = rubric_spec.load_responses(spec, path, run.limit)
        requests, targets = plan_rubric_requests(spec, responses, template, run.repeats)
        return Plan(self.name, spec, responses, template, requests,
                    {"targets": targets, "repeats": run.repeats, "data_path": path})

    def assemble(self, plan: Plan, judge_id: str, replies: Sequence[JudgeReply | None]) -> list[RubricRecord]:
        from judgebench.kinds.rubric.judging import assemble_rubric_records

        return assemble_rubric_records(plan.spec.name, judge_id, plan.spec, plan.items, plan.requests,
                                       plan.extra["targets"], list(replies), plan.extra["repeats"])

    def score(self, plan: Plan, records: list[RubricRecord], config: RubricConfig) -> RubricResult:
        from judgebench.kinds.rubric.run import score_records

        return score_records(records, config, n_responses=len(plan.items))

    def run(self, request: JobRequest) -> RubricRunSummary:
        from judgebench.kinds.rubric.run import RubricRunRequest, run_rubric

        return run_rubric(as_request(request, RubricRunRequest))

    # ---- its runs: run.py, index.py (board rows), verify.py
    def is_run(self, run_dir: Path) -> bool:
        return results_kind(run_dir) == self.name

    def read_run(self, run_dir: Path) -> tuple[RubricResult, list[RubricRecord]]:
        from judgebench.kinds.rubric.run import read_rubric_run

        return read_rubric_run(run_dir)

    def board_rows(self, results: Sequence[Path], include_paths: Sequence[Path] = ()) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
        """Task -> rubric rows (the leaderboard's OUTPUT/rubric/ tables); rubric rows need no task file."""
        from judgebench.kinds.rubric.index import rubric_tables
        from judgebench.core.rundir import find_results

        warnings: list[str] = []
        return rubric_tables([p.parent for p in find_results(list(results))], warnings), warnings

    def verify(self, run_dir: Path, include_paths: Sequence[Path] = (), **options: Any) -> tuple[RubricResult, list[RubricRecord]]:
        """verify.verify_rubric_run; options: dataset_path, min_coverage."""
        from judgebench.kinds.rubric.verify import verify_rubric_run

        return verify_rubric_run(run_dir, list(include_paths), options.get("dataset_path"),
                                 **({"min_coverage": options["min_coverage"]} if "min_coverage" in options else {}))


RUBRIC = RubricKind()
