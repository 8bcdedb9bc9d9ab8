"""`judgebench rubric submit`: a rubric run is re-checked from its raw replies before it is stored.

Checked against the installed task (never the run's own task.yaml): the data fingerprint; one
record per response and repeat, each carrying the data's rubric and expert scores; every stored
reply re-validated (an ANSWERED record's scores are exactly its last reply's, an INVALID one's last
reply is rejected, every earlier attempt was rejected, no more attempts than --reask allows); a
no-answer response is NO_ANSWER and nothing else is; built-in judges re-run; every figure recomputed.
"""

from __future__ import annotations

import asyncio
import math
import re
import shutil
from pathlib import Path

from judgebench.core.errors import JudgebenchError, Rejected
from judgebench.core.files import is_inside
from judgebench.core.records import JudgeRequest
from judgebench.core.rundir import RESULTS_FILE, SAMPLES_FILE
from judgebench.judging.prompts import PromptTemplate
from judgebench.publish.verify import DEFAULT_MIN_COVERAGE
from judgebench.kinds.rubric.board import leaderboard_rows, write_tables
from judgebench.kinds.rubric.judges import BUILTINS, make_rubric_judge
from judgebench.kinds.rubric.judging import plan_rubric_requests
from judgebench.kinds.rubric.records import GradedResponse, RubricRecord, RubricResult
from judgebench.kinds.rubric.run import nothing_scored, read_rubric_run, score_records
from judgebench.kinds.rubric.spec import (
    RubricTaskSpec,
    data_path,
    fingerprint,
    get_rubric_task,
    load_responses,
)
from judgebench.kinds.rubric.validate import Accepted, validate_reply

ENTRIES = "rubric-entries"
SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def verify_rubric_run(run_dir: Path, include_paths: list[Path], dataset_path: str | None = None,
                      min_coverage: float = DEFAULT_MIN_COVERAGE) -> tuple[RubricResult, list[RubricRecord]]:
    result, records = read_rubric_run(run_dir)
    config = result.config
    if not SAFE_NAME.match(config.task):
        raise Rejected("task", f"task name {config.task!r} is not an installed task's name")
    spec = get_rubric_task(config.task, include_paths, allow_path=False)
    if config.limit is not None:
        raise Rejected("subset", f"run used --limit {config.limit}; submit complete runs")
    path = data_path(spec, demo=config.demo, dataset_path=dataset_path)
    responses = load_responses(spec, path)
    if fingerprint(responses) != config.fingerprint:
        raise Rejected("data", "the run's data fingerprint differs from the task's data")
    by_key = {(r.item_id, r.repeat): r for r in records}
    expected = {(resp.id, k) for resp in responses for k in range(config.repeats)}
    if set(by_key) != expected or len(records) != len(expected):
        raise Rejected("coverage", _coverage_gap(records, set(by_key), expected))
    builtin = config.judge in BUILTINS
    from judgebench.judging.prompts import load_prompt

    template = load_prompt(spec.prompt, spec.folder) if builtin else None
    for resp in responses:
        for k in range(config.repeats):
            _check_record(by_key[(resp.id, k)], resp, spec, config.reask)
    if builtin:
        _rerun_builtin(spec, responses, template, config.repeats, config.judge, by_key)
    recomputed = score_records(records, config, len(responses))
    _same_figures(result, recomputed)
    if (nothing := nothing_scored(records)) is not None:  # its figures are the no-answers scored zero without a call
        raise Rejected("coverage", nothing)
    if result.counts.coverage < min_coverage:
        raise Rejected("coverage", f"coverage {result.counts.coverage:.3f} is below {min_coverage:g}")
    return result, records


def _check_record(record: RubricRecord, resp: GradedResponse, spec: RubricTaskSpec, reask: int) -> None:
    where = f"response {resp.id} repeat {record.repeat}"
    facts = (record.rubric, record.expert_items, record.expert_total, record.model, record.group, record.exam, record.slices)
    if facts != (resp.rubric, resp.expert_items, resp.expert_total, resp.model, resp.group, resp.exam, resp.slices):
        raise Rejected("data", f"{where}: rubric, expert scores or facts differ from the task's data")
    if spec.is_no_answer(resp.response) != (record.status == "NO_ANSWER"):
        raise Rejected("no-answer", f"{where}: status {record.status} but the response is "
                       f"{'' if spec.is_no_answer(resp.response) else 'not '}a no-answer")
    if record.status == "NO_ANSWER":
        if any(v != 0 for v in (record.scores or {}).values()) or record.total != 0 or record.attempts_raw:
            raise Rejected("no-answer", f"{where}: a no-answer must score zero without a call")
        return
    if len(record.attempts_raw) > reask + 1:
        raise Rejected("ledger", f"{where}: {len(record.attempts_raw)} attempts, more than --reask {reask} allows")
    verdicts = [validate_reply(t, resp.rubric, tolerance=spec.validation.total_tolerance,
                               evidence_required=spec.validation.evidence_required) for t in record.attempts_raw]
    if any(isinstance(v, Accepted) for v in verdicts[:-1]):
        raise Rejected("ledger", f"{where}: an earlier attempt was valid, yet the judge was asked again")
    if record.status == "ANSWERED":
        last = verdicts[-1] if verdicts else None
        if record.raw != (record.attempts_raw or [None])[-1] or not isinstance(last, Accepted):
            raise Rejected("reparse", f"{where}: the stored reply does not pass validation")
        if last.scores != record.scores or not math.isclose(last.total, record.total or 0.0, abs_tol=1e-12):
            raise Rejected("reparse", f"{where}: stored scores differ from the reply's")
    elif record.status == "INVALID" and (not verdicts or isinstance(verdicts[-1], Accepted)):
        raise Rejected("reparse", f"{where}: INVALID but its last reply passes validation")


def _rerun_builtin(spec: RubricTaskSpec, responses: list[GradedResponse], template: PromptTemplate, repeats: int,
                   judge_id: str, by_key: dict[tuple[str, int], RubricRecord]) -> None:
    requests, targets = plan_rubric_requests(spec, responses, template, repeats)
    judge = make_rubric_judge(judge_id, {})

    async def answers(reqs: list[JudgeRequest]) -> list[str | None]:
        return [(await judge.judge(q)).text for q in reqs]

    for (resp, k), text in zip(targets, asyncio.run(answers(requests)), strict=True):
        if by_key[(resp.id, k)].raw != text:
            raise Rejected("builtin", f"response {resp.id}: the reply is not what {judge_id} answers")


def _same_figures(stored: RubricResult, recomputed: RubricResult) -> None:
    for part in ("metrics", "slices", "system", "repeat_agreement", "counts"):
        if getattr(stored, part) != getattr(recomputed, part):
            raise Rejected("figures", f"results.json '{part}' differs from the figures recomputed from the samples")


def submit_rubric(run_dir: Path, board_dir: Path, include_paths: list[Path], dataset_path: str | None = None,
                  min_coverage: float = DEFAULT_MIN_COVERAGE) -> list[Path]:
    """Verify, store under BOARD/rubric-entries/<task>/<judge>, rebuild BOARD/rubric/<task>.* tables."""
    result, _ = verify_rubric_run(run_dir, include_paths, dataset_path, min_coverage)
    name = result.config.judge.replace("/", "__") + ("__demo" if result.config.demo else "")
    if not SAFE_NAME.match(name) or ".." in name:
        raise Rejected("judge", f"judge id {result.config.judge!r} cannot name an entry (letters, digits, . _ - /)")
    entry = board_dir / ENTRIES / result.config.task / name
    if not is_inside(entry, board_dir):
        raise JudgebenchError(f"{entry}: outside --leaderboard-dir {board_dir}")
    entry.mkdir(parents=True, exist_ok=True)
    for file in (RESULTS_FILE, SAMPLES_FILE):
        shutil.copyfile(run_dir / file, entry / file)
    return rebuild(board_dir)


def rebuild(board_dir: Path, output_dir: Path | None = None) -> list[Path]:
    """The rubric tables (default BOARD/rubric/) rebuilt from every stored rubric entry."""
    results = [read_rubric_run(p.parent)[0] for p in sorted((board_dir / ENTRIES).glob(f"*/*/{RESULTS_FILE}"))]
    return write_tables(leaderboard_rows(results), output_dir or board_dir / "rubric")


def _coverage_gap(records: list[RubricRecord], found: set[tuple[str, int]], expected: set[tuple[str, int]]) -> str:
    """What the records lack or hold beyond the data's (response x repeat), naming one (it had said only
    '45 records for 45 expected' of a run with one unknown response)."""
    def key(k: tuple[str, int]) -> str:
        return f"response {k[0]!r} repeat {k[1]}"

    counts = f"{len(records)} records for {len(expected)} expected (response x repeat)"
    if extra := sorted(found - expected):
        return f"{counts}; {len(extra)} not in the task's data, e.g. {key(extra[0])}"
    missing = sorted(expected - found)  # (one given twice is refused when the run is read)
    return f"{counts}; {len(missing)} missing, e.g. {key(missing[0])}" if missing else counts
