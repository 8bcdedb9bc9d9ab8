"""`judgebench panel`: a panel of judges built from finished runs, with no new calls.

A panel is a run directory like any other (config.kind "panel"): one JudgmentRecord per
(example, dimension, order), its verdict aggregated from the members' votes (scoring/panel_stats.aggregate_votes), its
raw answer the votes, its prompt hash a hash of the members' prompt hashes, its tokens and cost the
members' sums. The members are copied into DIR/members/<n>-<name>/ (results.json, samples.jsonl, and
their task.yaml/prompt.yaml) so `submit` can verify them. Members must be runs (not panels) of one
task and task version, data fingerprint, Both-Bad rule, headline, --limit and dimension set, with the
same human labels; the orders judged are those every member ran; a judgment a member lacks is its
abstention (MISSING). Rules and reasons: docs/guide/panels-and-repeats.md.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from judgebench.calls.stopping import written_whole
from judgebench.core.confidence import VERDICT_KEYS, vote_shares
from judgebench.core.errors import JudgebenchError
from judgebench.core.files import check_output_dir, is_inside, regular_text, write_atomic
from judgebench.core.records import (
    ORDERS,
    PANEL_PREFIX,
    JudgmentRecord,
    PanelMember,
    RunConfig,
    RunResult,
    check_resamples,
    swap_verdict,
)
from judgebench.core.rundir import (
    MEMBERS_DIR,
    PROMPT_FILE,
    REPEATS_FILE,
    RESULTS_FILE,
    SAMPLES_FILE,
    TASK_FILE,
    UNLABELLED_FILE,
    check_run_files,
    earlier_run,
    read_run,
    replaced,
    write_run,
)
from judgebench.judges.config import public_config_hash, run_config_hash
from judgebench.scoring.panel_stats import (
    AGGREGATES,
    aggregate_votes,
    encode_raw,
    vote_of,
)
from judgebench.scoring.score import score
from judgebench.tasks.registry import run_task_spec

Key = tuple[str, str, str]  # example, dimension, order
SAME = (  # (what, how to read it from a member) that every member must share
    ("task", lambda r: r.config.task),
    ("task version", lambda r: r.config.task_version),
    ("data fingerprint", lambda r: r.config.dataset.fingerprint),
    ("Both-Bad rule", lambda r: r.config.both_bad),
    ("headline", lambda r: r.config.headline),
    ("--limit", lambda r: r.config.limit),
)


@dataclass
class Member:
    """A finished run taken into a panel."""

    run_dir: Path
    name: str  # its folder under DIR/members/
    result: RunResult
    records: list[JudgmentRecord]


def answers_sha256(records: Sequence[JudgmentRecord]) -> str:
    """sha256 of every judgment's key, raw answer and verdict (as submit's answers fingerprint)."""
    rows = sorted((r.example_id, r.dimension, r.order, r.status, r.raw, r.verdict) for r in records)
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode()).hexdigest()


def normalized_answer(raw: str | None) -> str | None:
    """A raw answer reduced to its words, case-folded: whitespace, punctuation and markup do not count."""
    return None if raw is None else " ".join(re.findall(r"\w+", raw.casefold()))


def identity_sha256(records: Sequence[JudgmentRecord]) -> str:
    """The identity of a set of answers: sha256 over every judgment's key, status, verdicts and normalized raw answer.

    Two runs with the same identity are the same answers, whatever the judge name and however the
    raw texts were re-spaced, re-cased or re-punctuated (`[[A]]`, `[[ a ]] `, `**[[A]]**`).
    """
    rows = sorted(
        (r.example_id, r.dimension, r.order, r.status, normalized_answer(r.raw), r.verdict_shown, r.verdict)
        for r in records
    )
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode()).hexdigest()


def panel_id(aggregate: str, judges: Sequence[str]) -> str:
    return f"{PANEL_PREFIX}{aggregate}({','.join(judges)})"


def combined_hash(hashes: Sequence[str | None]) -> str:
    """sha256 of the members' hashes in order ("-" for a member without one)."""
    return hashlib.sha256("\n".join(h or "-" for h in hashes).encode()).hexdigest()


def member_name(index: int, run_dir: Path) -> str:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", run_dir.resolve().name).strip("-.")[:60] or "run"
    return f"{index + 1}-{slug}"


def load_members(run_dirs: Sequence[Path]) -> list[Member]:
    """Read and check the members: runs, at least two, distinct, compatible (one-line errors)."""
    if len(run_dirs) < 2:
        raise JudgebenchError("panel: give at least two run directories")
    resolved = [Path(d).resolve() for d in run_dirs]
    for i, path in enumerate(resolved):
        if path in resolved[:i]:
            raise JudgebenchError(f"panel: {run_dirs[i]} is given twice (a member votes once)")
    members = [Member(Path(d), member_name(i, Path(d)), *read_run(Path(d))) for i, d in enumerate(run_dirs)]
    check_compatible(members)
    answers = [identity_sha256(m.records) for m in members]
    for i, member in enumerate(members):
        if answers[i] in answers[:i]:
            twin = members[answers.index(answers[i])].run_dir
            raise JudgebenchError(f"panel: {member.run_dir} holds the same answers as {twin} (a run votes once)")
    return members


def check_compatible(members: Sequence[Member]) -> None:
    first = members[0]
    for member in members:
        if member.result.config.kind != "run":
            raise JudgebenchError(f"panel: {member.run_dir} is itself a panel; build one panel from the runs")
        for what, read in SAME:
            if read(member.result) != read(first.result):
                raise JudgebenchError(
                    f"panel: {member.run_dir} differs from {first.run_dir} in {what} "
                    f"({read(member.result)!r} vs {read(first.result)!r}): members must judge the same data the same way"
                )
        dims, first_dims = {r.dimension for r in member.records}, {r.dimension for r in first.records}
        if dims != first_dims:
            raise JudgebenchError(f"panel: {member.run_dir} judged dimensions {sorted(dims)}, {first.run_dir} {sorted(first_dims)}")
        examples, first_examples = {r.example_id for r in member.records}, {r.example_id for r in first.records}
        if examples != first_examples:  # two shards of one run: a panel of half the examples each, never one vote
            common = len(examples & first_examples)
            raise JudgebenchError(
                f"panel: {member.run_dir} judged {len(examples)} examples and {first.run_dir} {len(first_examples)}, "
                f"{common} of them in common: members must judge the same examples (merge shards first: `judgebench merge`)"
            )


def common_orders(members: Sequence[Member]) -> tuple[str, ...]:
    """The orders every member ran: both, or AB when any member ran --no-swap."""
    return ORDERS if all(m.result.config.swap for m in members) else ORDERS[:1]


def combine(members: Sequence[Member], aggregate: str, allow_tie: bool) -> list[JudgmentRecord]:
    """The panel's judgments: one per (example, dimension, order) any member has, in the orders all ran."""
    orders = common_orders(members)
    by_member = [{(r.example_id, r.dimension, r.order): r for r in m.records} for m in members]
    keys = list(dict.fromkeys(key for table in by_member for key in table if key[2] in orders))
    judge = panel_id(aggregate, [m.result.config.judge for m in members])
    task = members[0].result.config.task
    return [_panel_record(key, [t.get(key) for t in by_member], aggregate, allow_tie, judge, task) for key in keys]


def _panel_record(
    key: Key, votes_of: list[JudgmentRecord | None], aggregate: str, allow_tie: bool, judge: str, task: str
) -> JudgmentRecord:
    present = [r for r in votes_of if r is not None]
    labels = {r.label for r in present}
    if len(labels) > 1:
        raise JudgebenchError(f"panel: example {key[0]} ({key[1]}) has different human labels in the members: not the same data")
    votes = [vote_of(r) for r in votes_of]
    verdict = aggregate_votes(votes, aggregate, allow_tie)
    # as usage.py counts a run: every member's call with what it cost when made, the part paid before (answers
    # from the cache, a resumed chain's earlier answers) told apart as cached_cost_usd (a panel of rerun members
    # had left their cached calls out, so its usage was not its members' sum)
    costs = [r.cost_usd for r in present if r.cost_usd is not None]
    unpriced = any(r.cost_usd is None and r.tokens_in is not None and r.status != "FAILED" for r in present)
    cost = sum(costs) if costs and not unpriced else None
    paid_before = sum((r.cost_usd or 0.0) if r.cached else (r.cached_cost_usd or 0.0) for r in present)
    base = present[0]
    return base.model_copy(
        update={
            "task": task,
            "judge": judge,
            "prompt_hash": combined_hash([r.prompt_hash if r else None for r in votes_of]),
            "status": "ANSWERED" if verdict is not None else "INVALID",
            "raw": encode_raw(aggregate, votes),
            "earlier_raw": [],
            "verdict": verdict,
            "verdict_shown": verdict if key[2] == "AB" else swap_verdict(verdict),
            "tokens_in": _total([r.tokens_in for r in present]),
            "tokens_out": _total([r.tokens_out for r in present]),
            "cost_usd": cost,
            "latency_s": max((r.latency_s for r in present), default=0.0),
            "attempts": 1,
            "cached": all(r.cached for r in present),
            "cached_cost_usd": paid_before if cost is not None and paid_before and not all(r.cached for r in present) else None,
            "error": None,
            # the share of the members' answered votes (issue 34, core/confidence.py)
            **_panel_confidence(votes, allow_tie),
        }
    )


def _panel_confidence(votes: list[str], allow_tie: bool) -> dict[str, object]:
    """The share of each verdict the task allows among the members' answered votes (an A/B task's has no TIE)."""
    shares = vote_shares(votes, VERDICT_KEYS if allow_tie else VERDICT_KEYS[:2])
    return {"confidence": shares, "confidence_source": "panel" if shares is not None else None}


def _total(values: list[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def panel_config(members: Sequence[Member], aggregate: str) -> RunConfig:
    """The panel's configuration: the first member's, with the panel's judge, prompt, members and their hashes,
    and a configuration hash of its own (it carried the first member's: two panels sharing it shared a board
    identity)."""
    first = members[0].result.config
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    config = first.model_copy(
        update={
            "judge": panel_id(aggregate, [m.result.config.judge for m in members]),
            "judge_args": {},
            "judge_name": None,  # (the first member's name had labelled the panel as that member: an attack)
            "prompt_template": "panel",
            "prompt_template_hash": combined_hash([m.result.config.prompt_template_hash for m in members]),
            "swap": common_orders(members) == ORDERS,
            "started_at": now,
            "ended_at": now,
            "partial": any(m.result.config.partial for m in members),
            "kind": "panel",
            "aggregate": aggregate,
            "members": [
                PanelMember(
                    judge=m.result.config.judge,
                    run_dir=m.name,
                    prompt_template=m.result.config.prompt_template,
                    prompt_template_hash=m.result.config.prompt_template_hash,
                    answers_sha256=answers_sha256(m.records),
                    name=m.result.config.judge_name,
                    config_hash=run_config_hash(m.result.config) if m.result.config.kind == "run" else None,
                )
                for m in members
            ],
        }
    )
    return config.model_copy(update={"judge_config_hash": public_config_hash(config)})


def build_panel(
    run_dirs: Sequence[Path],
    aggregate: str,
    output_path: Path,
    *,
    include_paths: Sequence[Path] = (),
    n_resamples: int | None = None,
    on_warning: Callable[[str], None] | None = None,
) -> RunResult:
    """Build, score and write a panel run directory from finished runs; its results.

    `n_resamples` (default: the first member's) is the panel's bootstrap resample count. `on_warning` is told,
    once the members are read and checked, when `output_path` holds another run that the panel replaces.
    """
    if aggregate not in AGGREGATES:
        raise JudgebenchError(f"panel: --aggregate must be one of {', '.join(AGGREGATES)}, got {aggregate!r}")
    check_output_dir(output_path)  # (a walkthrough: a file there failed deep in pathlib, after the members were read)
    check_run_files(output_path)  # (someone else's results.json was replaced without a word)
    members = load_members(run_dirs)
    for member in members:
        if is_inside(output_path, member.run_dir) or is_inside(member.run_dir, output_path):
            raise JudgebenchError(f"panel: --output-path {output_path} overlaps the member {member.run_dir}")
    spec = run_task_spec(members[0].run_dir, members[0].result.config.task, list(include_paths))
    records = combine(members, aggregate, "TIE" in spec.verdicts)
    config = panel_config(members, aggregate)
    if n_resamples is not None:
        config = config.model_copy(update={"n_resamples": check_resamples(n_resamples)})
    n_examples = max(m.result.counts.examples for m in members)
    result = score(records, config, spec, n_examples=n_examples)
    task_copy = members[0].run_dir / TASK_FILE
    if on_warning is not None and (message := _replacing(output_path, members[0].result.config.task)):
        on_warning(f"--output-path {message}")
    with written_whole(f"the panel {output_path}"):
        copy_members(members, output_path)
        write_run(output_path, result, records, task_file=task_copy if task_copy.is_file() else None)
    return result


def _replacing(output_path: Path, task: str) -> str | None:
    """The warning for a panel written over another run: a panel of the same task may be rebuilt in its folder
    (its judge id and configuration change with its members: not said); any other run there is."""
    found = earlier_run(output_path)
    if found is None or (found[0] == task and found[1].startswith("panel/")):
        return None
    return replaced(output_path, found)


MEMBER_FILES = (RESULTS_FILE, SAMPLES_FILE, REPEATS_FILE, UNLABELLED_FILE, TASK_FILE, PROMPT_FILE)


def copy_members(members: Sequence[Member], output_path: Path) -> None:
    """Each member's files into DIR/members/<name>/, atomically; every path stays under DIR (a symlinked
    members/ is refused: an outside attack had the copies written through it). An earlier panel's members that
    are not this one's lose their copies (report reads every members/* folder)."""
    root = output_path / MEMBERS_DIR
    if root.is_symlink() or not is_inside(root, output_path):
        raise JudgebenchError(f"--output-path {output_path}: {root} is a symbolic link; panel writes its members' "
                              "copies only under its own folder")
    _clear_earlier_members(root, {member.name for member in members})
    for member in members:
        folder = root / member.name
        for name in MEMBER_FILES:
            source = member.run_dir / name
            if not source.is_file():
                continue
            target = folder / name
            root.mkdir(parents=True, exist_ok=True)
            if not is_inside(target, root):
                raise JudgebenchError(f"panel: {target} resolves outside {root}")
            write_atomic(target, regular_text(source))


def _clear_earlier_members(root: Path, keep: set[str]) -> None:
    """The copies an earlier panel in this folder made of members this one does not have (their files only; a
    folder left with anything else stays, a link loses the link only)."""
    if not root.is_dir():
        return
    for folder in root.iterdir():
        if folder.name in keep:
            continue
        if folder.is_symlink():
            folder.unlink()
            continue
        if not folder.is_dir():
            continue
        for name in MEMBER_FILES:
            (folder / name).unlink(missing_ok=True)
        try:
            folder.rmdir()
        except OSError:  # not empty: what is left is not ours
            pass
