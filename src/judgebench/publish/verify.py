"""Verifying a submitted run: every claim recomputed here without a model call (see submit.py).

Every submission is treated as hostile: no task or prompt template is loaded by a path the run names,
the run's own task.yaml/prompt.yaml copies are never loaded, and templates render in the jinja2 sandbox.
The checks, in order (the first that fails rejects the run with a one-line reason):
  schema      results.json and every samples.jsonl line validate (pydantic, unknown fields rejected)
  task        a registered task name (never a path) at its current version; samples name the same task and judge;
              reserved judge ids (builtin/, panel/, replay/ and lookalikes) only as check_builtin_answers allows
  data        the examples are loaded again (the bundled demo; the task's dataset at the recorded
              revision; or a local copy given with --dataset-path) and their fingerprint must equal
              the recorded one; a pinned task revision must match; runs of the same task, revision
              and size already on the leaderboard must share the fingerprint
  coverage    every example x dimension x order exactly once (--no-swap: order AB only); no --limit
              subset; answered / calls at least min_coverage (default 0.9)
  labels      each sample's human label and example facts (lengths, models, slices, and the texts
              when the run logged them) equal the task's data
  prompts     the template with the recorded hash re-renders every sample's prompt hash; for a panel
              instead, every member in members/ passes these checks and the panel follows from them
  verdicts    each verdict follows from its raw answer through the parser (a panel's: from its votes);
              a built-in judge's raw answers are re-run and must be exactly what it answers
  metrics     metrics, counts, usage and diagnostics recomputed from the samples equal results.json
  identity    no other entry of the task holds the same answers (a resubmission under another judge
              name); an existing entry is never replaced by one on fewer examples/judgments or a partial one
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgebench.core.errors import JudgebenchError, Rejected
from judgebench.core.files import is_inside, load_yaml, regular_bytes
from judgebench.core.names import is_builtin
from judgebench.core.records import (
    ORDERS,
    PANEL_PREFIX,
    REPLAY_PREFIX,
    RESERVED_ID,
    STOPPED_FAILURES,
    JudgeRequest,
    JudgmentRecord,
    PairExample,
    RunConfig,
    RunResult,
    failure_of,
)
from judgebench.core.rundir import (
    REPEATS_FILE,
    DuplicateJudgment,
    read_repeats,
    read_run,
)
from judgebench.core.text import display_name_error, reads_as_reserved, skeleton, spelled_out
from judgebench.judges.builtin import BUILTIN_JUDGES, make_builtin_judge
from judgebench.judges.config import public_config_hash, run_config_hash
from judgebench.judging.judgments import plan_requests
from judgebench.judging.panel import (
    MEMBERS_DIR,
    Member,
    answers_sha256,
    check_compatible,
    combine,
)
from judgebench.judging.prompts import PromptTemplate, load_prompt
from judgebench.publish.board import (
    PROMPTS_DIR,
    known_results,
    registered_task,
    registered_templates,
)
from judgebench.scoring.score import rederive_record, score
from judgebench.tasks.loading import LoadedTask, load_examples
from judgebench.tasks.registry import TaskSpec
from judgebench.tasks.votes import dimension_votes

DEFAULT_MIN_COVERAGE = 0.9
CHECKS = ["schema", "task", "data", "coverage", "labels", "prompts", "verdicts", "metrics", "identity"]
TOLERANCE = 1e-9
MIN_RESAMPLES = 1000  # bootstrap resamples behind an interval shown on a leaderboard


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
    leaderboard_dir: Path | None = None,
    min_coverage: float = DEFAULT_MIN_COVERAGE,
) -> Verified:
    """Run every check on a run directory; raise Rejected with the first failure.

    `leaderboard_dir`: its registered tasks and templates are known, and its accepted entries are
    the known fingerprints of the task's data. Without it, only the installed tasks and templates.
    """
    _check_min_coverage_value(min_coverage)
    result, records = _read(run_dir)
    check_answer_sizes(records, run_dir)
    spec = _check_task(result, records, leaderboard_dir)
    known = known_results(leaderboard_dir, spec.name) if leaderboard_dir else []
    _check_subset(result, min_coverage)
    loaded = check_data(result, spec, dataset_path, known)
    examples = {example.id: example for example in loaded.examples}
    _check_coverage(result, records, spec, examples)
    _check_labels(records, examples)
    if result.config.kind == "panel":  # its members are verified in place of its prompts (check_panel)
        again = dict(dataset_path=dataset_path, leaderboard_dir=leaderboard_dir, min_coverage=min_coverage)
        check_panel(run_dir, result, records, spec, lambda member: validate_run(member, **again))
    else:
        template = _find_template(result, spec, leaderboard_dir)
        requests = _plan(result, spec, loaded.examples, template)
        _check_prompts(records, _expected_hashes(requests), template)
        if is_builtin(result.config.judge):
            check_builtin_answers(result, records, requests)
    _check_verdicts(records, spec, result.config)
    _check_metrics(result, records, spec)
    check_stability(run_dir, result, records, spec)
    return Verified(result, records, spec, _labels(result, records))


RAW_ANSWER_MAX = 200_000  # characters of one stored answer (raw, each earlier raw, reasoning) a board takes


def check_answer_sizes(records: list[JudgmentRecord], run_dir: Path) -> None:
    """A board holds every raw answer of every entry: one answer above RAW_ANSWER_MAX characters (a 40 MB
    answer was accepted) is refused, naming the judgment. A verdict needs a few words; the longest answers
    of reasoning judges are tens of thousands of characters."""
    for number, record in enumerate(records, start=1):
        for field_name, text in (("raw", record.raw), ("reasoning", record.reasoning),
                                 *(("earlier_raw", t) for t in record.earlier_raw)):
            if text is not None and len(text) > RAW_ANSWER_MAX:
                raise Rejected("schema", f"{run_dir / 'samples.jsonl'}:{number}: judgment {record.example_id[:80]!r} "
                                         f"({record.order}, {record.dimension[:40]}): {field_name} holds {len(text):,} "
                                         f"characters, above the limit of {RAW_ANSWER_MAX:,} a leaderboard stores")


def _check_min_coverage_value(min_coverage: float) -> None:
    if not 0.0 <= min_coverage <= 1.0:
        raise JudgebenchError(f"--min-coverage {min_coverage}: must be between 0 and 1")


def _read(run_dir: Path) -> tuple[RunResult, list[JudgmentRecord]]:
    try:
        return read_run(run_dir)
    except DuplicateJudgment as exc:
        raise Rejected("coverage", str(exc)) from None
    except JudgebenchError as exc:
        raise Rejected("schema", str(exc)) from None


def _check_task(result: RunResult, records: list[JudgmentRecord], leaderboard_dir: Path | None) -> TaskSpec:
    config = result.config
    check_judge_name(result)
    check_config_hash(result)
    spec = registered_task(config.task, leaderboard_dir)
    if config.task_version != spec.version:
        raise Rejected("task", f"task {spec.name} is at version {spec.version}; the run used version {config.task_version}")
    if result.unlabelled is not None:
        raise Rejected("data", f"the run judged {result.unlabelled.examples} example(s) without a label (run "
                               "--judge-unlabelled): a leaderboard result is a run of the task's labelled data")
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
    unfinished = sum(failure_of(r) in STOPPED_FAILURES for r in records)
    if unfinished and not config.partial:
        raise Rejected("coverage", f"{unfinished} samples were left unfinished by a stop (never sent, or not waited "
                                   "for) but results.json does not mark the run partial")


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
            "votes": dimension_votes(example, record.dimension),  # annotator-level votes (the human ceiling)
        }
        for name in ("question", "response_a", "response_b"):  # logged texts (absent with --no-log-text)
            logged = getattr(record, name, None)
            if logged is not None:
                facts[name] = getattr(example, name)
        for name, value in facts.items():
            if getattr(record, name, None) != value:
                raise Rejected("labels", f"{name} of example {record.example_id} in the samples differs from the task's data")


def _find_template(result: RunResult, spec: TaskSpec, leaderboard_dir: Path | None) -> PromptTemplate:
    """The registered template whose file hash is the recorded one (the recorded name is never loaded). The board's
    labels show the recorded name, so it is checked: a template that declares a `name:` must be recorded under it;
    one without is named after the run's own file (a maintainer may register it under another), and its recorded
    name may not be a registered template's it is not."""
    config = result.config
    registered = {path: hashlib.sha256(regular_bytes(path)).hexdigest()
                  for path in registered_templates(spec, leaderboard_dir)}
    for path, sha in registered.items():
        if sha == config.prompt_template_hash:
            try:
                template = load_prompt(str(path))
            except JudgebenchError as exc:
                raise Rejected("prompts", str(exc)) from None
            declared = _declared_name(path)
            if declared is not None and declared != config.prompt_template:
                raise Rejected("prompts", f"the run names its prompt template {config.prompt_template[:80]!r}, but the "
                                          f"registered template of hash {config.prompt_template_hash[:12]} is "
                                          f"{declared[:80]!r}")
            if declared is None:
                _refuse_a_borrowed_name(config.prompt_template, config.prompt_template_hash, registered)
            return template
    where = f"{leaderboard_dir / PROMPTS_DIR}/" if leaderboard_dir is not None else "LEADERBOARD_DIR/prompts/"
    raise Rejected(
        "prompts",
        f"prompt template {config.prompt_template[:80]!r} (hash {config.prompt_template_hash[:12]}) is not registered on "
        f"this leaderboard: only installed templates, the task's own and those in {where} are verified, "
        "and a template the run merely names is never loaded",
    )


def _declared_name(path: Path) -> str | None:
    """The `name:` a template file declares, else None (it is then named after its file)."""
    try:
        data = load_yaml(regular_bytes(path))
    except JudgebenchError:
        return None
    name = data.get("name") if isinstance(data, dict) else None
    return str(name) if name else None


def _refuse_a_borrowed_name(recorded: str, recorded_hash: str, registered: dict[Path, str]) -> None:
    """An unnamed template recorded under the name of another registered template (`sciarena_pairwise` for a custom
    one), or under one that reads as it (case, spaces, a look-alike letter: `skeleton`): the board's label would say
    it is that template. A name a label cannot show as itself (a control or invisible character, space at an end, the
    `@` of the board's `name@hash` tags) is refused too. `registered`: each registered file's hash."""
    why = display_name_error(recorded) or ("has a space at an end" if recorded != recorded.strip() else None) or \
        ("holds '@', which the board's labels use to tag a name with its hash" if "@" in recorded else None)
    if why:
        raise Rejected("prompts", f"the run names its prompt template {spelled_out(recorded)[:80]!r}: the name {why}")
    for path, sha in registered.items():
        if sha != recorded_hash and skeleton(_declared_name(path) or path.stem) == skeleton(recorded):
            raise Rejected("prompts", f"the run names its prompt template {spelled_out(recorded)[:80]!r}, the name of "
                                      f"another registered template; its own (hash {recorded_hash[:12]}) declares no name")


def _plan(result: RunResult, spec: TaskSpec, examples: list[PairExample], template: PromptTemplate) -> list[JudgeRequest]:
    config = result.config
    try:
        return plan_requests(spec, examples, template, mode=config.dimension_mode, swap=config.swap)
    except JudgebenchError as exc:
        raise Rejected("prompts", f"cannot re-render the prompts ({exc})") from None


def _expected_hashes(requests: list[JudgeRequest]) -> dict[tuple[str, str, str], str]:
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


def _check_verdicts(records: list[JudgmentRecord], spec: TaskSpec, config: RunConfig) -> None:
    """Status and verdicts follow from the raw answer (the run's parser; a panel's votes) and the order."""
    for record in records:
        where = _key((record.example_id, record.dimension, record.order))
        if record.status == "FAILED" or record.error is not None:
            if record.status != "FAILED" or record.error is None or record.verdict is not None:
                raise Rejected("verdicts", f"{where}: a failed call must have status FAILED, an error and no verdict")
            continue
        expected = rederive_record(record, spec, config)
        if (record.status, record.verdict_shown, record.verdict) != (
            expected.status, expected.verdict_shown, expected.verdict,
        ):
            raise Rejected(
                "verdicts",
                f"{where}: recorded {record.status} {record.verdict_shown}->{record.verdict}, but its raw answer "
                f"parses to {expected.status} {expected.verdict_shown}->{expected.verdict}",
            )


def _check_metrics(result: RunResult, records: list[JudgmentRecord], spec: TaskSpec) -> None:
    """Everything in results.json recomputed from the samples, with the run's own seed and resample count."""
    resamples = result.config.n_resamples
    if resamples < MIN_RESAMPLES:
        raise Rejected(
            "metrics",
            f"intervals from {resamples} bootstrap resamples; the leaderboard needs at least {MIN_RESAMPLES} "
            f"(re-score with `judgebench score RUN_DIR --bootstrap {MIN_RESAMPLES}`)",
        )
    for record in records:  # the part of a cost paid before is part of it
        earlier, cost = record.cached_cost_usd, record.cost_usd
        if earlier is not None and (cost is None or earlier > cost * (1 + 1e-9)):
            raise Rejected("metrics", f"{_key((record.example_id, record.dimension, record.order))}: cached_cost_usd "
                                      f"{earlier:g} is more than its cost_usd {cost}")
    recomputed = score(records, result.config, spec, n_examples=result.counts.examples)
    claimed = result.model_dump(mode="json", exclude={"config", "stability"})  # --repeats figures: not verified
    fresh = recomputed.model_dump(mode="json", exclude={"config", "stability"})
    difference = first_difference(claimed, fresh)
    if difference is not None:
        path, a, b = difference
        raise Rejected(
            "metrics",
            f"{path} is {a!r} in results.json but {b!r} recomputed from the samples "
            f"(seed {result.config.seed}, {resamples} bootstrap resamples, as recorded in the run)",
        )


def check_stability(run_dir: Path, result: RunResult, records: list[JudgmentRecord], spec: TaskSpec) -> None:
    """A `stability` block (--repeats N) is recomputed from the samples and repeats.jsonl, each answer re-parsed,
    or refused: a forged block on a single-sample run showed "repeats 5, agreement 100.00" on a board."""
    stability = result.stability
    if stability is None:
        return
    config = result.config
    if result.config.kind == "panel":
        raise Rejected("metrics", "results.json has a stability block, but a panel has no repeats")
    expected = stability.judgments_all - len(records) if stability.judgments_all else None
    try:
        repeats = read_repeats(run_dir, config.task, config.judge, expected)
    except JudgebenchError as exc:
        raise Rejected("metrics", str(exc)) from None
    if not repeats or stability.repeats < 2:
        raise Rejected("metrics", f"results.json has a stability block ({stability.repeats} repeats) but the run has no "
                                  f"{REPEATS_FILE} to recompute it from: nothing shows the run was repeated")
    n = 1 + max(r.repeat for r in repeats)
    planned = {(r.example_id, r.dimension, r.order) for r in records}
    for r in repeats:
        if (r.example_id, r.dimension, r.order) not in planned:
            raise Rejected("coverage", f"{REPEATS_FILE}: {_key((r.example_id, r.dimension, r.order))} (repeat {r.repeat}) "
                                       "is not a judgment of samples.jsonl")
    if n != stability.repeats or len(repeats) != len(records) * (n - 1):
        raise Rejected("coverage", f"{REPEATS_FILE}: {len(repeats):,} judgments over repeats 1..{n - 1}; "
                                   f"{stability.repeats} repeats of {len(records):,} judgments need "
                                   f"{len(records) * (stability.repeats - 1):,}")
    again = [rederive_record(r, spec, config) for r in repeats]
    for before, after in zip(repeats, again):
        if (before.status, before.verdict) != (after.status, after.verdict):
            raise Rejected("verdicts", f"{REPEATS_FILE}: {_key((before.example_id, before.dimension, before.order))} "
                                       f"repeat {before.repeat}: recorded {before.status} {before.verdict}, but its raw "
                                       f"answer parses to {after.status} {after.verdict}")
    from judgebench.scoring.repeats import stability_summary

    fresh = stability_summary([*records, *again], n, headline=config.headline, both_bad=config.both_bad,
                              allow_tie="TIE" in spec.verdicts, seed=config.seed, n_resamples=config.n_resamples,
                              joint=config.joint)
    difference = first_difference(stability.model_dump(mode="json"), fresh.model_dump(mode="json"), "stability")
    if difference is not None:
        path, a, b = difference
        raise Rejected("metrics", f"{path} is {a!r} in results.json but {b!r} recomputed from samples.jsonl and "
                                  f"{REPEATS_FILE}")


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


def _labels(result: RunResult, records: list[JudgmentRecord] | None = None) -> list[str]:
    """The entry's labels. `partial` is the run's flag or what its samples show: any judgment that failed
    (an error, a timeout, never attempted) makes the entry partial, whatever results.json says, since the
    cause written in a sample is the submitter's text (not-attempted lines relabelled as timeouts hid it)."""
    config = result.config
    labels = []
    if not config.swap:
        labels.append("single-order")
    failed = sum(r.status == "FAILED" for r in records or [])
    if config.partial or failed:
        labels.append("partial")
    if config.dataset.demo:
        labels.append("demo data")
    return labels


# Verifying a built-in judge's run and reserving judge-id prefixes (part of verify.py's `task` and `verdicts`).




def check_config_hash(result: RunResult) -> None:
    """The recorded configuration hash is the hash of the judge, arguments, prompt and reask results.json shows, a
    panel's that of its id, members' hashes and prompts (it names the entry and decides a replacement: a third
    attack took another entry's place with a copied hash). A run that sent headers folds their values' hash in,
    which cannot be checked: its board identity is the derived hash (judges/config.run_config_hash)."""
    config = result.config
    derived = public_config_hash(config)
    if run_config_hash(config) != derived:  # (the identity a board gives it: the recorded hash, when checkable)
        what = ("id, members' hashes and prompts (a panel built before judgebench recorded its own hash carried its "
                "first member's: rebuild it with `judgebench panel`, no calls)") if config.kind == "panel" else \
            "judge, judge_args, prompt and reask"
        raise Rejected("identity", f"results.json config.judge_config_hash {config.judge_config_hash} is not the hash of its "
                                   f"{what} ({derived})")


def check_judge_name(result: RunResult) -> None:
    """A reserved prefix only in its exact form and for the runs it names."""
    config = result.config
    judge = config.judge
    if judge.startswith(REPLAY_PREFIX):
        raise Rejected("task", f"judge {judge} replays recorded answers: a regression check, not a judge result")
    if is_builtin(judge):
        if judge not in BUILTIN_JUDGES:
            raise Rejected("task", f"judge {judge[:80]!r} is not a built-in judge ({', '.join(BUILTIN_JUDGES)})")
        if config.kind == "panel" or config.judge_args:
            raise Rejected("task", f"built-in judge {judge} takes no judge_args and is not a panel")
        return
    if judge.startswith(PANEL_PREFIX):
        if config.kind != "panel":
            raise Rejected("task", f"judge {judge[:80]!r}: the panel/ prefix is reserved for panel runs")
        return
    if RESERVED_ID.match(judge):
        raise Rejected(
            "task",
            f"judge {judge[:80]!r} looks like a reserved judge id (builtin/, panel/, replay/): choose another name",
        )
    if reads_as_reserved(judge):
        raise Rejected("task", f"judge {ascii(judge[:80])} imitates a reserved judge id (builtin/, panel/, replay/) "
                               "with look-alike characters: choose another name")


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
        if failure_of(record) in STOPPED_FAILURES and result.config.partial:
            continue
        if record.raw != expected.get(key):
            raise Rejected(
                "verdicts",
                f"example {key[0]}, dimension {key[1]}, order {key[2]}: raw answer {str(record.raw)[:40]!r} is not "
                f"what built-in judge {result.config.judge} answers ({str(expected.get(key))[:40]!r}); "
                "a built-in judge's run is re-run on submission",
            )


# Verifying the data a submitted run claims: the examples reloaded, their fingerprint, the revision,


SHA_RE = re.compile(r"[0-9a-f]{40}")


def check_data(result: RunResult, spec: TaskSpec, dataset_path: str | None, known: list[RunResult]) -> LoadedTask:
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
    elif not _local_data(spec):
        if not (recorded and SHA_RE.fullmatch(recorded)):
            raise Rejected(
                "data",
                f"dataset revision {recorded!r} is not a commit: the task is unpinned, so the run must "
                "record the resolved commit it loaded",
            )


def _local_data(spec: TaskSpec) -> bool:
    """Whether the task's dataset is a local file or folder (beside its YAML, whatever the working folder), not a
    Hub id; a local path that is missing is refused naming the task file and where it looked."""
    try:
        return Path(spec.data_location()).exists()
    except JudgebenchError as exc:
        raise Rejected("data", str(exc)) from None


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


# Verifying a submitted panel (verify.py calls this in place of the prompt check).


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
        expected = run_config_hash(claimed) if claimed.kind == "run" else None  # (panel_config's rule)
        if recorded.config_hash != expected:
            raise Rejected("panel", f"member {recorded.run_dir}: configuration hash {recorded.config_hash} recorded, "
                                    f"{expected} in its results.json")
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
        for name, value in want.items():
            if got[name] != value:
                raise Rejected("panel", f"{'/'.join(key)}: {name} is {got[name]!r}; the members give {value!r}")
