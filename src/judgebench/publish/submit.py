"""`judgebench submit`: validate a run directory, store it as a leaderboard entry, rebuild the tables.

Every submission is treated as hostile. submit never loads a task or a prompt template the run
names by path, never loads the run's own task.yaml/prompt.yaml copies, and renders templates only
in the jinja2 sandbox. It verifies against what the leaderboard already holds:
  tasks      the installed tasks and LEADERBOARD_DIR/tasks/*.yaml (a registered task of the same name wins)
  templates  the installed prompts/, LEADERBOARD_DIR/prompts/*.yaml and the registered task's own
             prompt/joint_prompt files, matched by the recorded file hash (the recorded name is only a label)
Every path it writes is resolved and must stay under LEADERBOARD_DIR.

A run is accepted only when everything it claims can be recomputed here without a model call: the
checks (schema, task, data, coverage, labels, prompts, verdicts, metrics) are listed and made in
verify.py; identity is checked here: no other entry of the task holds the same answers (a
resubmission under another judge name; panel.identity_sha256: verdicts and normalized raw answers,
so whitespace, case and markup do not make a copy new), and an existing entry is never replaced by one on fewer
examples or judgments, or by a partial one.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path

from judgebench.core.errors import JudgebenchError, Rejected
from judgebench.core.files import regular_text, write_atomic, write_json
from judgebench.core.records import JudgmentRecord, RunResult
from judgebench.core.rundir import RESULTS_FILE, SAMPLES_FILE, read_samples
from judgebench.core.secrets import redact_value
from judgebench.judges.config import answer_args, run_config_hash
from judgebench.judging.panel import answers_sha256, identity_sha256
from judgebench.publish.board import (
    ENTRIES,
    SUBMISSION_FILE,
    TASK_NAME_RE,
    TASKS_DIR,
    entries,
    safe_path,
)
from judgebench.publish.verify import (
    CHECKS,
    DEFAULT_MIN_COVERAGE,
    PROMPTS_DIR,
    Submission,
    Verified,
    validate_run,
)

__all__ = ["Rejected", "Submission", "entry_name", "rebuild_tables", "submit_run", "validate_run"]


def entry_name(result: RunResult) -> str:
    """`<judge-slug>-<hash8>__<prompt-hash10>` (+ `__demo`): one folder per judge configuration and prompt.

    hash8: the judge configuration's hash (judges/config.run_config_hash), the one `run` prints after the judge
    (`builtin/longer #480630f4`): two reasoning efforts of one model are two entries, and lookalike ids
    (`openai:gpt-4.1`, `openai/gpt-4.1`) never share a folder. `__demo` keeps a demo run from ever replacing a
    real one. A board's entry under its earlier name is still the one replaced (`legacy_entry_name`).
    """
    return _named(result, run_config_hash(result.config)[:8])


def legacy_entry_name(result: RunResult) -> str | None:
    """The entry's name before the tenth session of 2026-12-07 for a judge with no answer-changing arguments, no
    --reask and no panel: the sha256 of the exact judge id as hash8 (`builtin-longer-d1ecae08__...`), not the hash
    the run printed; None for every other judge (its name was already `entry_name`'s)."""
    config = result.config
    if answer_args(config.judge_args) or config.reask or config.kind == "panel":
        return None
    return _named(result, hashlib.sha256(config.judge.encode()).hexdigest()[:8])


def _named(result: RunResult, digest: str) -> str:
    """`<judge-slug>-<digest>__<prompt-hash10>`, `__demo` appended for demo data."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", result.config.judge).strip("-.")[:60].strip("-.") or "judge"
    prompt = re.sub(r"[^0-9a-f]", "", result.config.prompt_template_hash.lower())[:10] or "noprompt"
    name = f"{slug}-{digest}__{prompt}"
    return f"{name}__demo" if result.config.dataset.demo else name


def _entry_dir(entries: Path, result: RunResult) -> Path:
    """Where the run is stored: its `entry_name`, or the entry of the same judge under its legacy name when the board
    has that one and not the new one (committed boards and earlier submissions stay replaceable, not doubled)."""
    task = entries / result.config.task
    legacy = legacy_entry_name(result)
    current = task / entry_name(result)
    if legacy and not current.exists() and (task / legacy).is_dir():
        return safe_path(task / legacy, entries)
    return safe_path(current, entries)


def answers_fingerprint(records: Iterable[JudgmentRecord]) -> str:
    """sha256 of every judgment's key, exact raw answer and verdict (stored in submission.json)."""
    return answers_sha256(list(records))


def identity_fingerprint(records: Iterable[JudgmentRecord]) -> str:
    """The answers' identity (panel.identity_sha256): equal for the same answers under any judge name,
    however their raw texts were re-spaced, re-cased or re-punctuated."""
    return identity_sha256(list(records))


def _check_identity(verified: Verified, leaderboard_dir: Path, entry_dir: Path) -> list[str]:
    """No copy of another entry's answers; no replacement by a smaller or partial run. Returns what a replacement
    changes that the board's readers see (its display name)."""
    result, mine, notes = verified.result, identity_fingerprint(verified.records), []
    for folder, other in entries(leaderboard_dir, result.config.task):
        if folder.resolve() == entry_dir.resolve():
            _check_replacement(result, other, folder)
            if other.config.judge_name != result.config.judge_name:  # (an audit: a rename went unsaid)
                notes.append(f"entry {folder.name} was shown as {other.config.judge_name or other.config.judge!r}; "
                             f"this run of the same configuration shows it as "
                             f"{result.config.judge_name or result.config.judge!r}")
            continue
        try:
            theirs = identity_fingerprint(read_samples(folder / SAMPLES_FILE))
        except JudgebenchError:
            continue
        if theirs == mine:
            raise Rejected(
                "identity",
                f"the samples carry the same answers as the entry {folder.name} (judge {other.config.judge!r}): "
                "a run is ranked once, under the judge that made it",
            )
    return notes


def _check_replacement(new: RunResult, old: RunResult, folder: Path) -> None:
    if answer_args(new.config.judge_args) and run_config_hash(new.config) != run_config_hash(old.config):
        raise Rejected(
            "identity",
            f"entry {folder.name} holds judge configuration {run_config_hash(old.config)}, this run "
            f"{run_config_hash(new.config)}: an entry is replaced only by a run of the same configuration",
        )
    if new.counts.examples < old.counts.examples or new.counts.calls < old.counts.calls:
        raise Rejected(
            "identity",
            f"entry {folder.name} holds {old.counts.examples} examples / {old.counts.calls} judgments; this run has "
            f"{new.counts.examples} / {new.counts.calls}: an entry is never replaced by a run on fewer",
        )
    if new.config.partial and not old.config.partial:
        raise Rejected("identity", f"entry {folder.name} is a complete run; a partial run does not replace it")


def submit_run(
    run_dir: Path,
    leaderboard_dir: Path,
    *,
    include_paths: Iterable[Path] = (),
    dataset_path: str | None = None,
    prompt_path: Path | None = None,
    min_coverage: float = DEFAULT_MIN_COVERAGE,
) -> Submission:
    """Validate, store under DIR/entries/<task>/<entry>/, and rebuild every table from the entries.

    `include_paths` and `prompt_path` exist only to refuse them: register tasks in DIR/tasks/ and
    templates in DIR/prompts/ instead.
    """
    if list(include_paths):
        raise JudgebenchError(
            f"submit --include-path: submit verifies only registered tasks; copy the task YAML to {leaderboard_dir / TASKS_DIR}/"
        )
    if prompt_path is not None:
        raise JudgebenchError(
            f"submit --prompt: submit verifies only registered templates; copy the template to {leaderboard_dir / PROMPTS_DIR}/"
        )
    verified = validate_run(
        run_dir,
        dataset_path=dataset_path,
        leaderboard_dir=leaderboard_dir,
        min_coverage=min_coverage,
    )
    entries = safe_path(leaderboard_dir / ENTRIES, leaderboard_dir)
    entry_dir = _entry_dir(entries, verified.result)
    notes = _check_identity(verified, leaderboard_dir, entry_dir)
    _check_planned_writes(leaderboard_dir, entry_dir, verified.result.config.task)
    replaced = (entry_dir / RESULTS_FILE).exists()
    written = []
    for name in (SAMPLES_FILE, RESULTS_FILE):
        target = safe_path(entry_dir / name, entry_dir)
        text = regular_text(run_dir / name)
        write_atomic(target, _public_results(text, partial="partial" in verified.labels) if name == RESULTS_FILE else text)
        written.append(target)
    write_json(
        safe_path(entry_dir / SUBMISSION_FILE, entry_dir),
        {
            "accepted_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "labels": verified.labels,
            "checks": CHECKS,
            "min_coverage": min_coverage,
            "coverage": verified.result.counts.coverage,
            "answers_sha256": answers_fingerprint(verified.records),
            "identity_sha256": identity_fingerprint(verified.records),
        },
    )
    written.append(entry_dir / SUBMISSION_FILE)
    tables, warnings = rebuild_board(leaderboard_dir)
    return Submission(verified, entry_dir, replaced, written + tables, [*notes, *warnings])


def _check_planned_writes(leaderboard_dir: Path, entry_dir: Path, task: str) -> None:
    """Every path submit may write (the entry's files, every task's tables and cost plot, index.html) stays under
    the board and is no symlink, checked before anything is written: a refusal leaves the board as it was."""
    from judgebench.publish.costplot import PLOT_STEM

    planned = [entry_dir / name for name in (SAMPLES_FILE, RESULTS_FILE, SUBMISSION_FILE)]
    tasks = {task} | {p.name for p in (leaderboard_dir / ENTRIES).glob("*") if TASK_NAME_RE.fullmatch(p.name)}
    names = [f"{name}{suffix}" for name in sorted(tasks) for suffix in (".md", ".csv", ".json", f"_{PLOT_STEM}.csv",
                                                                       f"_{PLOT_STEM}.png")]
    planned += [leaderboard_dir / name for name in names]
    planned.append(leaderboard_dir / "index.html")
    for path in planned:
        safe_path(path, leaderboard_dir)
        if path.is_symlink():
            raise Rejected("storage", f"{path} is a symbolic link: submit writes only regular files under the leaderboard directory")


def _public_results(text: str, partial: bool = False) -> str:
    """results.json as stored: its self-reported judge_args without secrets (secrets.redact_value), and
    marked partial when its samples show failed judgments (verify._labels), whatever it said."""
    data = json.loads(text)
    args = data.get("config", {}).get("judge_args") or {}
    public = redact_value(args)
    if public == args and (not partial or data["config"].get("partial")):
        return text  # stored byte for byte
    data["config"]["judge_args"] = public
    data["config"]["partial"] = bool(data["config"].get("partial")) or partial
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def rebuild_board(leaderboard_dir: Path) -> tuple[list[Path], list[str]]:
    """Markdown, CSV, JSON and HTML for every task from the accepted entries only; (written, warnings)."""
    from judgebench.publish.leaderboard import collect_tables
    from judgebench.publish.tables import write_leaderboards

    folder = leaderboard_dir / TASKS_DIR
    tables, warnings = collect_tables(
        [leaderboard_dir / ENTRIES], [folder] if folder.is_dir() else [], use_run_task_copy=False
    )
    return write_leaderboards(tables, leaderboard_dir, managed=True), warnings


def rebuild_tables(leaderboard_dir: Path) -> list[Path]:
    """The tables rebuilt from DIR/entries/ (see rebuild_board); the paths written."""
    return rebuild_board(leaderboard_dir)[0]
