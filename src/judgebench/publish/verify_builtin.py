"""Verifying a built-in judge's run and reserving judge-id prefixes (part of verify.py's `task` and `verdicts`).

Built-in judges (judges/builtin.py) are deterministic and make no model call, so their answers are
not self-reported: every sample's raw answer must be exactly what the built-in judge renders for
that example, order and dimension with the run's seed. A run renamed to `builtin/longer` (an LLM's
answers, or a built-in run's answers with whitespace added) is rejected.

Reserved prefixes: `builtin/` (a known built-in judge, verified as above), `panel/` (only a panel
run, verified from its members), `replay/` (a regression check, never a judge result). Lookalikes
of these (`Builtin/longer`, `builtin:longer`, ` builtin/longer`, `replay:x`) are refused too, so no
submitted name can pass for a baseline.
"""

from __future__ import annotations

import asyncio
import re

from judgebench.core.errors import Rejected
from judgebench.core.records import JudgeRequest, JudgmentRecord, RunResult
from judgebench.judges.builtin import BUILTIN_JUDGES, make_builtin_judge

RESERVED = re.compile(r"\W*(builtin|replay|panel)\W", re.IGNORECASE)


def check_judge_name(result: RunResult) -> None:
    """A reserved prefix only in its exact form and for the runs it names."""
    config = result.config
    judge = config.judge
    if judge.startswith("replay/"):
        raise Rejected("task", f"judge {judge} replays recorded answers: a regression check, not a judge result")
    if judge.startswith("builtin/"):
        if judge not in BUILTIN_JUDGES:
            raise Rejected("task", f"judge {judge[:80]!r} is not a built-in judge ({', '.join(BUILTIN_JUDGES)})")
        if config.kind == "panel" or config.judge_args:
            raise Rejected("task", f"built-in judge {judge} takes no judge_args and is not a panel")
        return
    if judge.startswith("panel/"):
        if config.kind != "panel":
            raise Rejected("task", f"judge {judge[:80]!r}: the panel/ prefix is reserved for panel runs")
        return
    if RESERVED.match(judge):
        raise Rejected(
            "task",
            f"judge {judge[:80]!r} looks like a reserved judge id (builtin/, panel/, replay/): choose another name",
        )


def check_builtin_answers(result: RunResult, records: list[JudgmentRecord], requests: list[JudgeRequest]) -> None:
    """Every sample of a built-in judge's run carries exactly the answer that judge renders."""
    judge = make_builtin_judge(result.config.judge, seed=result.config.seed)
    expected: dict[tuple[str, str, str], str | None] = {}

    async def answer_all() -> list[str | None]:
        return [(await judge.judge(request)).text for request in requests]

    for request, text in zip(requests, asyncio.run(answer_all())):
        for dimension in request.dimensions:
            expected[(request.example_id, dimension, request.order)] = text
    for record in records:
        key = (record.example_id, record.dimension, record.order)
        if record.status == "FAILED" and (record.error or "").startswith("not attempted") and result.config.partial:
            continue
        if record.raw != expected.get(key):
            raise Rejected(
                "verdicts",
                f"example {key[0]}, dimension {key[1]}, order {key[2]}: raw answer {str(record.raw)[:40]!r} is not "
                f"what built-in judge {result.config.judge} answers ({str(expected.get(key))[:40]!r}); "
                "a built-in judge's run is re-run on submission",
            )
