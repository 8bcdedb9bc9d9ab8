"""`judgebench submit`: validate a run directory, store it as a leaderboard entry, rebuild the tables.

Every submission is treated as hostile. submit never loads a task or a prompt template the run
names by path, never loads the run's own task.yaml/prompt.yaml copies, and renders templates only
in the jinja2 sandbox. It verifies against what the leaderboard already holds:
  tasks      the installed tasks and LEADERBOARD_DIR/tasks/*.yaml (a registered task of the same name wins)
  templates  the installed prompts/, LEADERBOARD_DIR/prompts/*.yaml and the registered task's own
             prompt/joint_prompt files, matched by the recorded file hash (the recorded name is only a label)
Every path it writes is resolved and must stay under LEADERBOARD_DIR.

A run is accepted only when everything it claims can be recomputed here without a model call:
  schema      results.json and every samples.jsonl line validate (pydantic, unknown fields rejected)
  task        a registered task name (never a path) at its current version; samples name the same task and judge
  data        the examples are loaded again (the bundled demo; the task's dataset at the recorded
              revision; or a local copy given with --dataset-path) and their fingerprint must equal
              the recorded one; a pinned task revision must match; runs of the same task, revision
              and size already on the leaderboard must share the fingerprint
  coverage    every example x dimension x order exactly once (--no-swap: order AB only); no --limit
              subset; answered / calls at least min_coverage (default 0.9)
  labels      each sample's human label and example facts (lengths, models, slices, and the texts
              when the run logged them) equal the task's data
  prompts     the template with the recorded hash re-renders every sample's prompt hash
  verdicts    each verdict follows from its raw answer through the parser
  metrics     metrics, counts, usage and diagnostics recomputed from the samples equal results.json
  identity    no other entry of the task holds the same answers (a resubmission under another judge
              name); an existing entry is never replaced by one on fewer examples/judgments or a partial one
The first failed check rejects the run with a one-line reason.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .errors import JudgebenchError
from .files import read_model_json, read_models_jsonl, write_atomic, write_json
from .judgments import plan_requests
from .loading import LoadedTask, load_examples
from .prompts import PromptTemplate, load_prompt
from .records import ORDERS, JudgmentRecord, PairExample, RunResult
from .resources import prompts_dir
from .rundir import RESULTS_FILE, SAMPLES_FILE, read_run
from .scoring import reparse_record, score
from .tasks import TaskSpec, load_task_file, task_files

ENTRIES = "entries"
TASKS_DIR = "tasks"  # LEADERBOARD_DIR/tasks/*.yaml: tasks registered on this leaderboard
PROMPTS_DIR = "prompts"  # LEADERBOARD_DIR/prompts/*.yaml: prompt templates registered on this leaderboard
DEFAULT_MIN_COVERAGE = 0.9
TASK_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,99}")  # a name, never a path
CHECKS = ["schema", "task", "data", "coverage", "labels", "prompts", "verdicts", "metrics", "identity"]
SUBMISSION_FILE = "submission.json"
NOT_ATTEMPTED_PREFIX = "not attempted"
SHA_RE = re.compile(r"[0-9a-f]{40}")
TOLERANCE = 1e-9


class Rejected(JudgebenchError):
    """A submission that failed a check; the message is the reason."""

    def __init__(self, check: str, reason: str):
        super().__init__(f"submission rejected ({check}): {reason}")
        self.check = check
        self.reason = reason


@dataclass
class Verified:
    """A run that passed every check, with how it should be labelled."""

    result: RunResult
    records: list[JudgmentRecord]
    spec: TaskSpec
    labels: list[str] = field(default_factory=list)  # "single-order", "partial", "demo data"


@dataclass
class Submission:
    verified: Verified
    entry_dir: Path
    replaced: bool
    written: list[Path]  # every file written: the entry's three files, then the rebuilt tables
    warnings: list[str] = field(default_factory=list)  # entries skipped while rebuilding the tables


# ----------------------------------------------------------------------------- checks


def validate_run(
    run_dir: Path,
    *,
    dataset_path: str | None = None,
    n_resamples: int = 1000,
    leaderboard_dir: Path | None = None,
    min_coverage: float = DEFAULT_MIN_COVERAGE,
) -> Verified:
    """Run every check on a run directory; raise Rejected with the first failure.

    `leaderboard_dir`: its registered tasks and templates are known, and its accepted entries are
    the known fingerprints of the task's data. Without it, only the installed tasks and templates.
    """
    _check_min_coverage_value(min_coverage)
    result, records = _read(run_dir)
    spec = _check_task(result, records, leaderboard_dir)
    known = known_results(leaderboard_dir, spec.name) if leaderboard_dir else []
    _check_subset(result, min_coverage)
    loaded = _check_data(result, spec, dataset_path, known)
    examples = {example.id: example for example in loaded.examples}
    _check_coverage(result, records, spec, examples)
    _check_labels(records, examples)
    template = _find_template(result, spec, leaderboard_dir)
    expected = _expected_hashes(result, spec, loaded.examples, template)
    _check_prompts(records, expected, template)
    _check_verdicts(records, spec, result.config.dimension_mode)
    _check_metrics(result, records, spec, n_resamples)
    return Verified(result, records, spec, _labels(result))


def _check_min_coverage_value(min_coverage: float) -> None:
    if not 0.0 <= min_coverage <= 1.0:
        raise JudgebenchError(f"--min-coverage {min_coverage}: must be between 0 and 1")


def _read(run_dir: Path) -> tuple[RunResult, list[JudgmentRecord]]:
    try:
        return read_run(run_dir)
    except JudgebenchError as exc:
        raise Rejected("schema", str(exc)) from None


def registered_task(name: str, leaderboard_dir: Path | None) -> TaskSpec:
    """A task by name from the installed tasks and LEADERBOARD_DIR/tasks/; never a path, never the run's copy."""
    if not TASK_NAME_RE.fullmatch(name):
        raise Rejected("task", f"task {name[:80]!r} is not a task name (letters, digits, _ and -): submit never loads a task by path")
    folder = leaderboard_dir / TASKS_DIR if leaderboard_dir is not None else None
    files = task_files([folder] if folder is not None and folder.is_dir() else [])
    if name not in files:
        where = f"installed or in {folder}" if folder is not None else "installed"
        raise Rejected("task", f"unknown task '{name}' (registered tasks, {where}: {', '.join(sorted(files))})")
    try:
        spec = load_task_file(files[name])
    except JudgebenchError as exc:
        raise Rejected("task", str(exc)) from None
    if spec.name != name:
        raise Rejected("task", f"{files[name]}: key 'name' is '{spec.name}' but the file is {name}.yaml")
    return spec


def _check_task(result: RunResult, records: list[JudgmentRecord], leaderboard_dir: Path | None) -> TaskSpec:
    config = result.config
    if config.judge.startswith("replay/"):
        raise Rejected("task", f"judge {config.judge} replays recorded answers: a regression check, not a judge result")
    spec = registered_task(config.task, leaderboard_dir)
    if config.task_version != spec.version:
        raise Rejected("task", f"task {spec.name} is at version {spec.version}; the run used version {config.task_version}")
    for number, record in enumerate(records, start=1):
        if record.task != config.task or record.judge != config.judge:
            raise Rejected(
                "samples",
                f"samples.jsonl line {number} is task {record.task!r}, judge {record.judge!r}; "
                f"results.json says task {config.task!r}, judge {config.judge!r}",
            )
        if record.dimension not in spec.dimension_names:
            raise Rejected("samples", f"samples.jsonl line {number}: task {spec.name} has no dimension {record.dimension!r}")
    return spec


def _check_subset(result: RunResult, min_coverage: float) -> None:
    """No --limit subsets; answered / calls at least the leaderboard's bar."""
    counts = result.counts
    if result.config.limit is not None:
        raise Rejected("coverage", f"the run judged only the first {result.config.limit} examples (--limit): subsets are not ranked")
    if counts.calls <= 0 or counts.answered / counts.calls < min_coverage:
        share = counts.answered / counts.calls if counts.calls > 0 else 0.0
        raise Rejected(
            "coverage",
            f"{counts.answered} of {counts.calls} judgments answered ({share:.1%}), below the leaderboard's "
            f"minimum coverage of {min_coverage:.0%} (--min-coverage)",
        )


def _check_data(result: RunResult, spec: TaskSpec, dataset_path: str | None, known: list[RunResult]) -> LoadedTask:
    """Reload the examples the run claims to have judged; fingerprints and revisions must agree."""
    info, limit = result.config.dataset, result.config.limit
    if info.demo:
        if info.revision is not None or info.resolved_revision is not None:
            raise Rejected("data", f"dataset revision {info.resolved_revision or info.revision!r} on a demo run: the bundled demo split has no revision")
        loaded = _load(spec, demo=True, limit=limit)
        where = "the task's bundled demo data"
    else:
        _check_revision(result, spec)
        if dataset_path is None and info.source != spec.dataset.path:
            raise Rejected(
                "data",
                f"the run judged {info.source!r}, not the task's dataset {spec.dataset.path!r}; "
                "a local copy can be verified with --dataset-path",
            )
        revision = info.resolved_revision or info.revision
        loaded = _load(spec, dataset_path=dataset_path, split=info.split, revision=revision, limit=limit)
        where = f"the data loaded from {dataset_path or spec.dataset.path}"
    if info.fingerprint != loaded.dataset.fingerprint:
        raise Rejected(
            "data",
            f"dataset fingerprint {info.fingerprint[:12]} does not match {where} ({loaded.dataset.fingerprint[:12]})",
        )
    if not info.demo:
        _check_known(result, spec, known)
    return loaded


def _check_revision(result: RunResult, spec: TaskSpec) -> None:
    """On the task's own dataset: a pinned commit must be the one loaded; unpinned, the commit must be recorded.

    Runs on a local copy are checked by fingerprint against accepted runs instead (_check_known).
    """
    info = result.config.dataset
    if info.source != spec.dataset.path:
        return
    pinned = spec.dataset.revision
    recorded = info.resolved_revision or info.revision
    if pinned and SHA_RE.fullmatch(pinned):
        if recorded != pinned:
            raise Rejected("data", f"dataset revision {recorded!r} is not the task's pinned revision {pinned}")
    elif not Path(info.source).exists():
        if not (recorded and SHA_RE.fullmatch(recorded)):
            raise Rejected(
                "data",
                f"dataset revision {recorded!r} is not a commit: the task is unpinned, so the run must "
                "record the resolved commit it loaded",
            )


def _check_known(result: RunResult, spec: TaskSpec, known: list[RunResult]) -> None:
    """Accepted runs on the same data (task source, revision, split, size) must share the fingerprint."""
    info = result.config.dataset
    same_source = info.source == spec.dataset.path
    peers = [
        other
        for other in known
        if not other.config.dataset.demo
        and other.config.limit == result.config.limit
        and other.config.dataset.split == info.split
        and other.config.dataset.source == spec.dataset.path
    ]
    fingerprints = {other.config.dataset.fingerprint for other in peers}
    if same_source:
        revision = info.resolved_revision or info.revision
        same_revision = {
            other.config.dataset.fingerprint
            for other in peers
            if (other.config.dataset.resolved_revision or other.config.dataset.revision) == revision
        }
        if same_revision and info.fingerprint not in same_revision:
            raise Rejected("data", f"dataset fingerprint {info.fingerprint[:12]} differs from accepted runs on {spec.dataset.path}@{revision}")
    elif info.fingerprint not in fingerprints:
        raise Rejected(
            "data",
            f"the run judged {info.source!r}, whose fingerprint {info.fingerprint[:12]} matches no accepted run "
            f"of the task's dataset {spec.dataset.path}",
        )


def _load(spec: TaskSpec, **kwargs: Any) -> LoadedTask:
    try:
        return load_examples(spec, **kwargs)
    except JudgebenchError as exc:
        raise Rejected("data", f"cannot reload the examples to verify the run ({exc}); pass a local copy with --dataset-path") from None


def _check_coverage(
    result: RunResult, records: list[JudgmentRecord], spec: TaskSpec, examples: dict[str, PairExample]
) -> None:
    """Every example x dimension x order exactly once; counts and the partial flag agree."""
    config = result.config
    orders = ORDERS if config.swap else ORDERS[:1]
    expected = {(eid, dim, order) for eid in examples for dim in spec.dimension_names for order in orders}
    seen = Counter((r.example_id, r.dimension, r.order) for r in records)
    for key, times in seen.items():
        if times > 1:
            raise Rejected("coverage", f"duplicated sample: {_key(key)} appears {times} times")
    for key in seen:
        if key not in expected:
            why = "its order is not run by a single-order run" if key[0] in examples else "the example is not in the task's data"
            raise Rejected("coverage", f"unexpected sample: {_key(key)} ({why})")
    missing = sorted(expected - set(seen))
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise Rejected("coverage", f"missing sample: {_key(missing[0])}{more}")
    if result.counts.examples != len(examples):
        raise Rejected("coverage", f"results.json counts {result.counts.examples} examples; the data has {len(examples)}")
    unattempted = sum((r.error or "").startswith(NOT_ATTEMPTED_PREFIX) for r in records)
    if unattempted and not config.partial:
        raise Rejected("coverage", f"{unattempted} samples were never attempted but results.json does not mark the run partial")


def _key(key: tuple[str, str, str]) -> str:
    return f"example {key[0]}, dimension {key[1]}, order {key[2]}"


def _check_labels(records: list[JudgmentRecord], examples: dict[str, PairExample]) -> None:
    """Human labels and the example facts scoring uses must be the task's own."""
    for record in records:
        example = examples[record.example_id]
        truth = example.labels[record.dimension]
        if record.label != truth:
            raise Rejected(
                "labels",
                f"label of {_key((record.example_id, record.dimension, record.order))} is {record.label} "
                f"in the samples but {truth} in the task's data",
            )
        facts = {
            "length_a": len(example.response_a),
            "length_b": len(example.response_b),
            "model_a": example.model_a,
            "model_b": example.model_b,
            "slices": example.slices,
        }
        for name in ("question", "response_a", "response_b"):  # logged texts (absent with --no-log-text)
            logged = getattr(record, name, None)
            if logged is not None:
                facts[name] = getattr(example, name)
        for name, value in facts.items():
            if getattr(record, name, None) != value:
                raise Rejected("labels", f"{name} of example {record.example_id} in the samples differs from the task's data")


def registered_templates(spec: TaskSpec, leaderboard_dir: Path | None) -> list[Path]:
    """Template files submit may load: installed prompts/, LEADERBOARD_DIR/prompts/, the task's own."""
    found: list[Path] = []
    folders = [prompts_dir()] + ([leaderboard_dir / PROMPTS_DIR] if leaderboard_dir is not None else [])
    for folder in folders:
        if folder.is_dir():
            found += sorted(folder.glob("*.yaml")) + sorted(folder.glob("*.yml"))
    for name in filter(None, [spec.prompt, spec.joint_prompt]):
        for folder in (spec.folder, prompts_dir()):  # the task is registered: its own references are trusted
            path = folder / name
            if path.is_file() and _is_inside(path, folder):
                found.append(path)
                break
    return list(dict.fromkeys(path.resolve() for path in found))


def _find_template(result: RunResult, spec: TaskSpec, leaderboard_dir: Path | None) -> PromptTemplate:
    """The registered template whose file hash is the recorded one; the recorded name is never loaded."""
    config = result.config
    for path in registered_templates(spec, leaderboard_dir):
        if hashlib.sha256(path.read_bytes()).hexdigest() == config.prompt_template_hash:
            try:
                return load_prompt(str(path))
            except JudgebenchError as exc:
                raise Rejected("prompts", str(exc)) from None
    where = f"{leaderboard_dir / PROMPTS_DIR}/" if leaderboard_dir is not None else "LEADERBOARD_DIR/prompts/"
    raise Rejected(
        "prompts",
        f"prompt template {config.prompt_template[:80]!r} (hash {config.prompt_template_hash[:12]}) is not registered on "
        f"this leaderboard: only installed templates, the task's own and those in {where} are verified, "
        "and a template the run merely names is never loaded",
    )


def _expected_hashes(
    result: RunResult, spec: TaskSpec, examples: list[PairExample], template: PromptTemplate
) -> dict[tuple[str, str, str], str]:
    config = result.config
    try:
        requests = plan_requests(spec, examples, template, mode=config.dimension_mode, swap=config.swap)
    except JudgebenchError as exc:
        raise Rejected("prompts", f"cannot re-render the prompts ({exc})") from None
    return {
        (request.example_id, dimension, request.order): request.prompt_hash
        for request in requests
        for dimension in request.dimensions
    }


def _check_prompts(
    records: list[JudgmentRecord], expected: dict[tuple[str, str, str], str], template: PromptTemplate
) -> None:
    for record in records:
        key = (record.example_id, record.dimension, record.order)
        if record.prompt_hash != expected[key]:
            raise Rejected(
                "prompts",
                f"prompt hash of {_key(key)} is {record.prompt_hash[:12]}; template {template.name} renders "
                f"{expected[key][:12]} for it",
            )


def _check_verdicts(records: list[JudgmentRecord], spec: TaskSpec, mode: str) -> None:
    """Status and verdicts follow from the raw answer (the same parser as the run) and the order."""
    for record in records:
        where = _key((record.example_id, record.dimension, record.order))
        if record.status == "FAILED" or record.error is not None:
            if record.status != "FAILED" or record.error is None or record.verdict is not None:
                raise Rejected("verdicts", f"{where}: a failed call must have status FAILED, an error and no verdict")
            continue
        expected = reparse_record(record, spec, mode)
        if (record.status, record.verdict_shown, record.verdict) != (
            expected.status, expected.verdict_shown, expected.verdict,
        ):
            raise Rejected(
                "verdicts",
                f"{where}: recorded {record.status} {record.verdict_shown}->{record.verdict}, but its raw answer "
                f"parses to {expected.status} {expected.verdict_shown}->{expected.verdict}",
            )


def _check_metrics(result: RunResult, records: list[JudgmentRecord], spec: TaskSpec, n_resamples: int) -> None:
    recomputed = score(records, result.config, spec, n_examples=result.counts.examples, n_resamples=n_resamples)
    claimed = result.model_dump(mode="json", exclude={"config"})
    fresh = recomputed.model_dump(mode="json", exclude={"config"})
    difference = first_difference(claimed, fresh)
    if difference is not None:
        path, a, b = difference
        raise Rejected(
            "metrics",
            f"{path} is {a!r} in results.json but {b!r} recomputed from the samples "
            f"(with {n_resamples} bootstrap resamples; a run made with --bootstrap N is checked with --bootstrap N)",
        )


def first_difference(a: Any, b: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """The first (path, a, b) where two JSON values differ (floats within TOLERANCE), else None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            found = first_difference(a.get(key), b.get(key), f"{path}.{key}" if path else str(key))
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}[{index}]")
            if found:
                return found
        return None
    if _is_number(a) and _is_number(b):
        return None if math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE) else (path, a, b)
    return None if a == b else (path, a, b)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _labels(result: RunResult) -> list[str]:
    config = result.config
    labels = []
    if not config.swap:
        labels.append("single-order")
    if config.partial:
        labels.append("partial")
    if config.dataset.demo:
        labels.append("demo data")
    return labels


# ----------------------------------------------------------------------------- storing


def entry_name(result: RunResult) -> str:
    """`<judge-slug>-<judge-hash8>__<prompt-hash10>` (+ `__demo`): one folder per exact judge id and prompt.

    The hash of the exact judge id keeps lookalikes (`openai:gpt-4.1`, `openai/gpt-4.1`) apart;
    `__demo` keeps a demo run from ever replacing a real one.
    """
    judge = result.config.judge
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", judge).strip("-.")[:60].strip("-.") or "judge"
    digest = hashlib.sha256(judge.encode()).hexdigest()[:8]
    prompt = re.sub(r"[^0-9a-f]", "", result.config.prompt_template_hash.lower())[:10] or "noprompt"
    name = f"{slug}-{digest}__{prompt}"
    return f"{name}__demo" if result.config.dataset.demo else name


def _is_inside(path: Path, root: Path) -> bool:
    return path.resolve().is_relative_to(root.resolve())


def _safe_path(path: Path, root: Path) -> Path:
    """The path, if it resolves (symlinks followed) under root; otherwise the submission is refused."""
    if not _is_inside(path, root):
        raise Rejected("storage", f"{path} resolves outside the leaderboard directory {root}")
    return path


def known_results(leaderboard_dir: Path, task: str) -> list[RunResult]:
    """Accepted results of a task (unreadable entries are skipped: the tables report them)."""
    return [result for _, result in _entries(leaderboard_dir, task)]


def _entries(leaderboard_dir: Path, task: str) -> list[tuple[Path, RunResult]]:
    folder = leaderboard_dir / ENTRIES / task
    found = []
    for path in sorted(folder.glob("*/results.json")):
        try:
            found.append((path.parent, read_model_json(path, RunResult)))
        except JudgebenchError:
            continue
    return found


def answers_fingerprint(records: Iterable[JudgmentRecord]) -> str:
    """sha256 of every judgment's key, raw answer and verdict: equal for the same answers under any judge name."""
    rows = sorted((r.example_id, r.dimension, r.order, r.status, r.raw, r.verdict) for r in records)
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode()).hexdigest()


def _check_identity(verified: Verified, leaderboard_dir: Path, entry_dir: Path) -> None:
    """No copy of another entry's answers; no replacement by a smaller or partial run."""
    result, mine = verified.result, answers_fingerprint(verified.records)
    for folder, other in _entries(leaderboard_dir, result.config.task):
        if folder.resolve() == entry_dir.resolve():
            _check_replacement(result, other, folder)
            continue
        try:
            theirs = answers_fingerprint(read_models_jsonl(folder / SAMPLES_FILE, JudgmentRecord))
        except JudgebenchError:
            continue
        if theirs == mine:
            raise Rejected(
                "identity",
                f"the samples carry the same answers as the entry {folder.name} (judge {other.config.judge!r}): "
                "a run is ranked once, under the judge that made it",
            )


def _check_replacement(new: RunResult, old: RunResult, folder: Path) -> None:
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
    n_resamples: int = 1000,
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
        n_resamples=n_resamples,
        leaderboard_dir=leaderboard_dir,
        min_coverage=min_coverage,
    )
    entries = _safe_path(leaderboard_dir / ENTRIES, leaderboard_dir)
    entry_dir = _safe_path(entries / verified.result.config.task / entry_name(verified.result), entries)
    _check_identity(verified, leaderboard_dir, entry_dir)
    replaced = (entry_dir / RESULTS_FILE).exists()
    written = []
    for name in (SAMPLES_FILE, RESULTS_FILE):
        target = _safe_path(entry_dir / name, entry_dir)
        write_atomic(target, (run_dir / name).read_text(encoding="utf-8"))
        written.append(target)
    write_json(
        _safe_path(entry_dir / SUBMISSION_FILE, entry_dir),
        {
            "accepted_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "labels": verified.labels,
            "checks": CHECKS,
            "min_coverage": min_coverage,
            "coverage": verified.result.counts.coverage,
            "answers_sha256": answers_fingerprint(verified.records),
        },
    )
    written.append(entry_dir / SUBMISSION_FILE)
    tables, warnings = rebuild_board(leaderboard_dir)
    return Submission(verified, entry_dir, replaced, written + tables, warnings)


def rebuild_board(leaderboard_dir: Path) -> tuple[list[Path], list[str]]:
    """Markdown, CSV, JSON and HTML for every task from the accepted entries only; (written, warnings)."""
    from .leaderboard import collect_tables
    from .tables import write_leaderboards

    folder = leaderboard_dir / TASKS_DIR
    tables, warnings = collect_tables(
        [leaderboard_dir / ENTRIES], [folder] if folder.is_dir() else [], use_run_task_copy=False
    )
    return write_leaderboards(tables, leaderboard_dir, managed=True), warnings


def rebuild_tables(leaderboard_dir: Path) -> list[Path]:
    """The tables rebuilt from DIR/entries/ (see rebuild_board); the paths written."""
    return rebuild_board(leaderboard_dir)[0]
