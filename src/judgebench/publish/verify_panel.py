"""Verifying a submitted panel (verify.py calls this in place of the prompt check).

A panel's claims rest on its members, so every member must be in the panel's folder, under
members/<name>/ as `judgebench panel` copies it, and each is verified exactly as a submitted run
(every check of verify.py, against the same leaderboard). Then the panel must be what its verified
members make: the recorded members (judge, template hash, answers) are theirs, they share the panel's
task, data and Both-Bad rule, and the panel's samples equal the judgments `panel.combine` builds from
them, line by line (votes, verdicts, prompt hashes, tokens and cost). Verdicts and metrics are then
checked by verify.py as for any run.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from judgebench.core.errors import JudgebenchError, Rejected
from judgebench.core.files import is_inside
from judgebench.core.records import JudgmentRecord, RunResult
from judgebench.judging.panel import (
    MEMBERS_DIR,
    Member,
    answers_sha256,
    check_compatible,
    combine,
)
from judgebench.tasks.registry import TaskSpec

NAME_RE = re.compile(r"[0-9]+-[A-Za-z0-9._-]{1,60}")


def check_panel(
    run_dir: Path,
    result: RunResult,
    records: list[JudgmentRecord],
    spec: TaskSpec,
    validate: Callable[[Path], Any],
) -> None:
    """Raise Rejected("panel", ...) unless the panel follows from its verified members."""
    config = result.config
    if config.aggregate is None or len(config.members) < 2:
        raise Rejected("panel", "a panel must name its aggregate and at least two members")
    names, answers = [m.run_dir for m in config.members], [m.answers_sha256 for m in config.members]
    if len(set(names)) < len(names) or len(set(answers)) < len(answers):
        raise Rejected("panel", "two members are the same run (the same folder or the same answers): a run votes once")
    members = [_verified_member(run_dir, recorded.run_dir, validate) for recorded in config.members]
    for recorded, member in zip(config.members, members):
        claimed = member.result.config
        if (claimed.judge, claimed.prompt_template_hash) != (recorded.judge, recorded.prompt_template_hash):
            raise Rejected("panel", f"member {recorded.run_dir} is judge {claimed.judge!r}; the panel records {recorded.judge!r}")
        if answers_sha256(member.records) != recorded.answers_sha256:
            raise Rejected("panel", f"member {recorded.run_dir}: its answers are not the ones the panel recorded")
        if claimed.dataset.fingerprint != config.dataset.fingerprint or claimed.task != config.task or claimed.both_bad != config.both_bad:
            raise Rejected("panel", f"member {recorded.run_dir} is not of the panel's task, data and Both-Bad rule")
    try:
        check_compatible(members)
        expected = combine(members, config.aggregate, "TIE" in spec.verdicts)
    except JudgebenchError as exc:
        raise Rejected("panel", str(exc)) from None
    _check_same_records(records, expected)


def _verified_member(run_dir: Path, name: str, validate: Callable[[Path], Any]) -> Member:
    root = run_dir / MEMBERS_DIR
    folder = root / name
    if not NAME_RE.fullmatch(name) or not is_inside(folder, root) or not folder.is_dir():
        raise Rejected("panel", f"member {name[:80]!r} is not in {root}/: a panel is verified only with its members' run directories")
    try:
        verified = validate(folder)
    except Rejected as exc:
        raise Rejected("panel", f"member {name}: {exc.check}: {exc.reason}") from None
    if verified.result.config.kind != "run":
        raise Rejected("panel", f"member {name} is itself a panel")
    return Member(folder, name, verified.result, verified.records)


def _check_same_records(records: list[JudgmentRecord], expected: list[JudgmentRecord]) -> None:
    mine = {(r.example_id, r.dimension, r.order): r for r in records}
    theirs = {(r.example_id, r.dimension, r.order): r for r in expected}
    if set(mine) != set(theirs):
        extra = min(set(mine) ^ set(theirs))
        raise Rejected("panel", f"the panel's judgments differ from its members' at {'/'.join(extra)}")
    for key, record in mine.items():
        want = theirs[key].model_dump()
        got = record.model_dump()
        for field, value in want.items():
            if got[field] != value:
                raise Rejected("panel", f"{'/'.join(key)}: {field} is {got[field]!r}; the members give {value!r}")
