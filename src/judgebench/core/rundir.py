"""The layout of a run directory: which files a run writes and reads back.

results.json   the run's config, metrics, counts and usage (RunResult)
samples.jsonl  one JudgmentRecord per judgment: the source of truth for every re-score
repeats.jsonl  `run --repeats N`: the judgments of repeats 1..N-1 (samples.jsonl holds repeat 0)
unlabelled.jsonl  `run --judge-unlabelled`: the judgments of examples without a human label (every repeat),
               never scored; `arena --judge-run` reads them with samples.jsonl
task.yaml      a copy of the resolved task definition, so the run can be re-scored alone
prompt.yaml    a copy of the prompt template the run rendered
report/        `judgebench report` output
members/       a panel's member runs (results.json, samples.jsonl, ...), one folder each

A run's own task.yaml and prompt.yaml are conveniences for the user who made the run
(`score`, `report`, `leaderboard`). `submit` never loads them: it verifies against the
tasks and templates the leaderboard already holds.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from operator import attrgetter
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from judgebench.core.allocator import release_free_memory
from judgebench.core.errors import JudgebenchError
from judgebench.core.files import (
    atomic_path,
    make_folders,
    open_regular,
    read_model_json,
    read_models_jsonl,
    regular_text,
    remove_empty,
    write_atomic,
    write_json,
    write_models_jsonl,
)
from judgebench.core.lean_records import LeanRecord
from judgebench.core.records import JudgmentRecord, RunResult
from judgebench.core.resources import default_cache_dir

RESULTS_FILE = "results.json"
SAMPLES_FILE = "samples.jsonl"
REPEATS_FILE = "repeats.jsonl"
UNLABELLED_FILE = "unlabelled.jsonl"
TASK_FILE = "task.yaml"
PROMPT_FILE = "prompt.yaml"
REPORT_DIR = "report"
MEMBERS_DIR = "members"  # a panel's copies of its member runs: members/<n>-<name>/
STALE_FILES = (RESULTS_FILE, REPEATS_FILE, UNLABELLED_FILE)  # an earlier run's, removed when a new run writes
TEXT_FIELDS = ("question", "response_a", "response_b")  # in samples.jsonl for people; scoring never reads them


def write_run(
    run_dir: Path,
    result: BaseModel,
    records: Sequence[BaseModel],
    *,
    task_file: str | Path | None = None,
    prompt_file: str | Path | None = None,
    repeats: Sequence[BaseModel] | None = None,
    unlabelled: Sequence[BaseModel] | None = None,
) -> None:
    """samples.jsonl first (and repeats.jsonl, unlabelled.jsonl), then copies of the task YAML and prompt, then
    results.json; each atomic. Pairwise and rubric runs alike (any record model).

    A write failure is one line naming the path; the judgments are then saved to a salvage
    file in the temp folder (named in the message) so nothing paid for is lost.
    """
    try:
        clear_previous_run(run_dir)
        write_models_jsonl(run_dir / SAMPLES_FILE, records)
        if repeats:
            write_models_jsonl(run_dir / REPEATS_FILE, repeats)
        if unlabelled:
            write_models_jsonl(run_dir / UNLABELLED_FILE, unlabelled)
        finish_run(run_dir, result, task_file=task_file, prompt_file=prompt_file)
    except OSError as exc:
        where = getattr(exc, "filename", None) or run_dir
        saved = salvage([*records, *(repeats or []), *(unlabelled or [])])
        raise JudgebenchError(f"cannot write {where} ({exc.strerror or exc}); {saved}") from None


@contextmanager
def writing_run(run_dir: Path, flag: str = "--output-path") -> Iterator[None]:
    """Hold the run folder for one run while it writes: an exclusive lock on the folder itself (flock, released
    by the system when the process ends, so a killed run leaves none). A second run into the same folder, in this
    process or another, is refused at once with one line naming `flag`: two runs there left one's results.json
    beside the other's samples.jsonl, both reporting success. Folders made for it are removed again when it ends
    with them empty (a run refused before writing leaves nothing). No lock where flock is missing (not POSIX)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    made: list[Path] = []
    try:
        made = make_folders(run_dir)
        handle = os.open(run_dir, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as exc:
        remove_empty(made)
        raise JudgebenchError(f"{flag} {run_dir}: cannot write there ({exc.strerror or exc})") from None
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise JudgebenchError(f"{flag} {run_dir}: another judgebench run is writing this folder; wait for it to "
                                  f"end, or give another {flag}") from None
        yield
    finally:
        os.close(handle)
        remove_empty(made)


def check_run_files(run_dir: Path, flag: str = "--output-path") -> None:
    """Before any call: none of the files a run writes is a folder in `run_dir` (it would fail the run after every
    call was paid for), else one line naming it."""
    for name in (SAMPLES_FILE, *STALE_FILES, TASK_FILE, PROMPT_FILE):
        target = run_dir / name
        if target.is_dir() and not target.is_symlink():
            raise JudgebenchError(f"{flag} {run_dir}: {target} is a folder; a run writes a file there")
    foreign = not_a_runs_file(run_dir)
    if foreign is not None:  # (someone's own samples.jsonl and results.json were replaced without a word)
        raise JudgebenchError(f"{flag} {run_dir}: {foreign} is no judgebench run's file and a run would replace it; "
                              "choose another folder or move the file")


def not_a_runs_file(run_dir: Path) -> Path | None:
    """A file of `run_dir` that a run would replace or remove and that is not a run's: a results.json whose config
    names no task and judge; without results.json, a samples.jsonl whose first line is no judgment; without either,
    any other file of a run's names (repeats.jsonl, unlabelled.jsonl, task.yaml, prompt.yaml). An interrupted run's
    samples.jsonl (no results.json yet; its first line cut short or blank too) is a run's: a rerun resumes it. A
    link is not looked at: a run replaces the link, never what it points to."""
    import json

    results, samples = run_dir / RESULTS_FILE, run_dir / SAMPLES_FILE
    if results.exists() and not results.is_symlink():
        config = recorded_config(run_dir)  # (lm-eval's results.json has a `config` too: a model's settings)
        ours = config is not None and all(isinstance(config.get(key), str) for key in ("task", "judge"))
        return None if ours else results
    if samples.is_symlink() or not samples.is_file():  # no run's samples: a run's other files are someone else's
        return next((run_dir / name for name in (*STALE_FILES, TASK_FILE, PROMPT_FILE)
                     if (run_dir / name).is_file() and not (run_dir / name).is_symlink()), None)
    try:
        with samples.open("rb") as handle:  # the first line that is not blank (at most 64 MB of it)
            first = next((line for line in iter(lambda: handle.readline(64 << 20), b"") if line.strip()), b"")
    except OSError:
        return samples
    if not first:
        return None
    try:
        record = json.loads(first)
    except (ValueError, RecursionError):  # a judgment's line cut short by a kill (its first key) is the run's
        return None if first.startswith(b'{"task":') else samples
    return None if isinstance(record, dict) and ("example_id" in record or "item_id" in record) else samples


def recorded_config(run_dir: Path) -> dict[str, Any] | None:
    """The `config` object of the finished run a folder holds (its results.json, read leniently: a warning's
    source, never a figure's), else None."""
    import json

    results = run_dir / RESULTS_FILE
    if not results.is_file():
        return None
    try:
        config = json.loads(regular_text(results)).get("config")
    except (OSError, ValueError, JudgebenchError, AttributeError, RecursionError):
        return None  # not ours to read: nothing said
    return config if isinstance(config, dict) else None


def earlier_run(run_dir: Path) -> tuple[str, str, str | None] | None:
    """(task, judge, configuration hash) of the finished run a folder holds (`recorded_config`), else None: a
    command about to write its own run there says it replaces that one."""
    config = recorded_config(run_dir)
    if config is None:
        return None
    hashed = config.get("judge_config_hash")
    return str(config.get("task")), str(config.get("judge")), hashed if isinstance(hashed, str) else None


def replacing(run_dir: Path, task: str, judge: str | None = None, config_hash: str | None = None) -> str | None:
    """The warning for writing a run of `task` (and `judge`, and its configuration, when given) into a folder
    holding another one (two configurations of one model are two judges)."""
    found = earlier_run(run_dir)
    if found is None:
        return None
    other_config = config_hash is not None and found[2] is not None and found[2] != config_hash
    if found[0] == task and (judge is None or found[1] == judge) and not other_config:
        return None
    return replaced(run_dir, found, another_configuration=found[:2] == (task, judge))


def replaced(run_dir: Path, found: tuple[str, str, str | None], another_configuration: bool = False) -> str:
    """The words for a run that writing into `run_dir` replaces (`found`: earlier_run's)."""
    what = "another configuration of judge" if another_configuration else "a run of judge"
    return f"{run_dir} holds {what} {found[1]} on task {found[0]}: this run replaces it"


REPORT_OUTPUTS = ("report.md", "diagnostics.json", "*.png", "*.csv")  # the names `report` and `rubric report` write


def clear_previous_run(run_dir: Path) -> None:
    """Remove what an earlier run in this folder wrote that would no longer match the new samples:
    results.json, repeats.jsonl, unlabelled.jsonl and its report (`clear_stale_report`)."""
    for stale in STALE_FILES:
        (run_dir / stale).unlink(missing_ok=True)
    clear_stale_report(run_dir)


def clear_stale_report(run_dir: Path) -> None:
    """An earlier run's report/: in a folder `report` made (it holds report.md), the files of the names `report`
    writes (REPORT_OUTPUTS, at the top; a link among them loses the link only), then the folder if nothing else
    is left; anything else in it stays (an outside attack saw a user's own files under report/ deleted with
    it). A symlinked report/ loses the link only."""
    report = run_dir / REPORT_DIR
    if report.is_symlink():
        report.unlink()  # the link only: `report` writes a real folder here next time
        return
    marker = report / "report.md"
    if not marker.is_file() or marker.is_symlink():
        return
    for path in report.iterdir():
        if (path.is_symlink() or path.is_file()) and any(fnmatch.fnmatchcase(path.name, p) for p in REPORT_OUTPUTS):
            path.unlink()
    try:
        report.rmdir()
    except OSError:  # not empty: what is left is not ours
        pass


def finish_run(
    run_dir: Path, result: BaseModel, *, task_file: str | Path | None = None, prompt_file: str | Path | None = None
) -> None:
    """The copies of the task YAML and prompt, then results.json, each atomic (OSError propagates). results.json
    comes last: it marks a run whole (a second SIGTERM between them left results.json without prompt.yaml)."""
    for source, name in ((task_file, TASK_FILE), (prompt_file, PROMPT_FILE)):
        if source is not None and Path(source).is_file():
            write_atomic(run_dir / name, regular_text(source))
    write_json(run_dir / RESULTS_FILE, result.model_dump(mode="json"))


UNKNOWN_CACHE = Path("<unknown>")  # salvage(cache=...): the caller does not know whether the run cached its answers


def salvage(records: Sequence[BaseModel], cache: Path | None = UNKNOWN_CACHE) -> str:
    """Write the judgments (answers kept, texts dropped: they are in the data) to a fresh folder: in the temp
    folder, else in the answer cache folder (even with --no-cache), else the home folder, else the current one.
    The message says where they are, and when no place took them, the truth about the answer cache: `cache` is
    the folder the run's answers were cached in, None when they were not (--no-cache, an uncached judge)."""
    lean = [_without_texts(r) for r in records]
    failures: list[str] = []
    for base in _salvage_places():
        folder = None
        try:
            base.mkdir(parents=True, exist_ok=True)
            folder = Path(tempfile.mkdtemp(prefix="judgebench-salvage-", dir=base))
            write_models_jsonl(folder / SAMPLES_FILE, lean)
            return f"the {len(records)} judgments were saved to {folder / SAMPLES_FILE}"
        except OSError as exc:
            failures.append(f"{base}: {exc.strerror or exc}")
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
    tried = "; ".join(dict.fromkeys(failures))
    if cache is None:
        return (f"no salvage file could be written either ({tried}), and this run cached no answer (--no-cache): "
                f"the answers of its {len(records)} judgments are lost")
    if cache == UNKNOWN_CACHE:
        return (f"no salvage file could be written either ({tried}); unless the run used --no-cache, the answers "
                "of its calls are in the answer cache: a rerun with the same flags reuses them")
    return (f"no salvage file could be written either ({tried}); the answers of its calls are in the answer "
            f"cache {cache}: a rerun with the same flags reuses them")


def _salvage_places() -> list[Path]:
    places = [Path(tempfile.gettempdir())]
    try:
        places.append(default_cache_dir() / "salvage")
    except Exception:  # noqa: BLE001 - platformdirs without a home: one place fewer
        pass
    for where in (Path.home, Path.cwd):
        try:
            places.append(where())
        except (OSError, RuntimeError):
            continue
    return list(dict.fromkeys(places))


def _without_texts(record: BaseModel) -> BaseModel:
    texts = {name: None for name in TEXT_FIELDS if name in type(record).model_fields}
    return record.model_copy(update=texts) if texts else record


def read_run(run_dir: Path, *, lean: bool = False) -> tuple[RunResult, list[JudgmentRecord]]:
    """A run's results and samples; samples of another task or judge than results.json names, or more or fewer
    of them than it counts, are refused (`check_samples_match`).

    `lean`: the records without question and responses (scoring never reads them; a large run fits).
    """
    results_path, samples_path = run_dir / RESULTS_FILE, run_dir / SAMPLES_FILE
    for path in (results_path, samples_path):
        if not path.is_file():
            problem = "is not a regular file" if path.exists() else "is missing"
            raise JudgebenchError(f"{run_dir}: not a run directory ({path.name} {problem})")
    result, records = read_model_json(results_path, RunResult), read_judgments(samples_path, lean=lean)
    check_samples_match(result, records, samples_path)
    return result, records


def check_samples_match(result: RunResult, records: Sequence[JudgmentRecord], samples_path: Path) -> None:
    """The samples are the run's: each of its task and judge, and as many as results.json counts (every planned
    call is a line, answered or not: records.NOT_ATTEMPTED), else one error naming the file."""
    expected = (result.config.task, result.config.judge)
    for number, task_judge in enumerate(map(attrgetter("task", "judge"), records), start=1):
        if task_judge != expected:
            record = records[number - 1]
            raise JudgebenchError(
                f"{samples_path}: judgment {number} is task {record.task!r}, judge {record.judge!r}; "
                f"{RESULTS_FILE} says task {result.config.task!r}, judge {result.config.judge!r}"
            )
    if len(records) != result.counts.calls:
        raise JudgebenchError(
            f"{samples_path}: {len(records):,} judgments, but {RESULTS_FILE} counts {result.counts.calls:,}: "
            "lines were removed or added after the run (rerun it, or restore the file)"
        )


class DuplicateJudgment(JudgebenchError):
    """samples.jsonl holds one judgment (example, dimension, order) more than once."""




def read_samples(path: Path, *, lean: bool = False) -> list[JudgmentRecord]:
    """samples.jsonl, validated; a judgment (example, dimension, order) given twice is an error naming it.

    `lean`: each record held as a `lean_records.LeanRecord` (read line by line; the TEXT_FIELDS dropped, the
    values in slots: 200,000 records in about 0.1 GB instead of 0.25 GB as compact pydantic models).
    """
    records = (read_models_jsonl(path, JudgmentRecord, hold=LeanRecord.of, fast=LeanRecord.of_canonical_line) if lean
               else read_models_jsonl(path, JudgmentRecord))
    if lean:
        release_free_memory()  # the validated full records' pages, freed between the lean ones (allocator.py)
    _check_labels(records, path, labelled=True)
    keys = set(map(attrgetter("example_id", "dimension", "order"), records))  # (example, dimension, order)
    if len(keys) == len(records):  # the usual case, in one set; else find the first repeated one below
        return records
    where: dict[tuple[str, str, str], list[int]] = {}
    for number, record in enumerate(records, start=1):
        where.setdefault((record.example_id, record.dimension, record.order), []).append(number)
    repeated = next(((key, numbers) for key, numbers in where.items() if len(numbers) > 1), None)
    if repeated is not None:
        (example, dimension, order), numbers = repeated
        raise DuplicateJudgment(
            f"{path}: duplicated sample: the judgment of example {example}, dimension {dimension}, order {order} "
            f"appears {len(numbers)} times (judgments {', '.join(map(str, numbers))}): each must appear once"
        )
    return records


def read_judgments(path: Path, *, lean: bool = False) -> list[JudgmentRecord]:
    """`read_samples` of a run's samples.jsonl, which must hold at least one judgment (else one error naming it)."""
    records = read_samples(path, lean=lean)
    if not records:
        raise JudgebenchError(f"{path}: no judgments")
    return records


def _check_labels(records: Sequence[JudgmentRecord], path: Path, *, labelled: bool) -> None:
    """samples.jsonl and repeats.jsonl hold labelled judgments only, unlabelled.jsonl unlabelled ones: a line
    in the wrong file is one error naming it (scoring never meets a judgment without a label)."""
    if labelled and None not in map(attrgetter("label"), records):  # the usual case, in one pass
        return
    wrong = next(((n, r) for n, r in enumerate(records, start=1) if (r.label is None) == labelled), None)
    if wrong is not None:
        number, record = wrong
        where = f"{path}: judgment {number} ({record.example_id}/{record.dimension}/{record.order})"
        if labelled:
            raise JudgebenchError(f"{where} has no label: a judgment without one belongs in {UNLABELLED_FILE}")
        raise JudgebenchError(f"{where} has a label: {UNLABELLED_FILE} holds judgments of unlabelled examples only")


def read_unlabelled(run_dir: Path, result: RunResult, labelled: Sequence[JudgmentRecord]) -> list[JudgmentRecord]:
    """unlabelled.jsonl (`run --judge-unlabelled`), or nothing when the run has none: each line must be an
    unlabelled judgment of the run's task and judge, on a dimension of its `labelled` judgments (samples.jsonl),
    of an example not among them, of a repeat the run made, given once, and as many as results.json's
    `unlabelled` counts of repeat 0 (else one error naming the file and line)."""
    path = run_dir / UNLABELLED_FILE
    there = path.exists() or path.is_symlink()  # a FIFO or folder there is read, and refused as not a regular file
    expected = result.unlabelled.counts.calls if result.unlabelled is not None else 0
    if not there:
        if expected:
            raise JudgebenchError(f"{run_dir}: {RESULTS_FILE} counts {expected:,} unlabelled judgments, but {UNLABELLED_FILE} is missing")
        return []
    records = read_models_jsonl(path, JudgmentRecord)
    _check_labels(records, path, labelled=False)
    task, judge = result.config.task, result.config.judge
    scored = set(map(attrgetter("example_id"), labelled))
    dimensions = set(map(attrgetter("dimension"), labelled))
    repeats = result.stability.repeats if result.stability is not None else 1
    seen: set[tuple[str, str, str, int]] = set()
    for number, r in enumerate(records, start=1):
        key = (r.example_id, r.dimension, r.order, r.repeat)
        problem = (f"is task {r.task!r}, judge {r.judge!r}, not the run's" if (r.task, r.judge) != (task, judge)
                   else f"is of example {r.example_id!r}, which {SAMPLES_FILE} holds as labelled" if r.example_id in scored
                   else f"is on dimension {r.dimension!r}, which {SAMPLES_FILE} does not have" if r.dimension not in dimensions
                   else f"is a repeat the run did not make (it made {repeats})" if r.repeat >= repeats
                   else "repeats an earlier judgment" if key in seen else None)
        if problem:
            raise JudgebenchError(f"{path}: judgment {number} ({r.example_id}/{r.dimension}/{r.order}, repeat {r.repeat}) {problem}")
        seen.add(key)
    first = sum(1 for r in records if r.repeat == 0)  # `unlabelled.counts` counts repeat 0, as `counts` does
    if first != expected:
        raise JudgebenchError(f"{path}: {first:,} judgments of repeat 0, but {RESULTS_FILE} counts {expected:,}: "
                              "lines were removed or added after the run (rerun it, or restore the file)")
    return records


def read_verdicts(run_dir: Path) -> tuple[RunResult, list[JudgmentRecord]]:
    """A run's judgments of repeat 0, labelled (samples.jsonl) and unlabelled (unlabelled.jsonl): every verdict
    the judge gave once per (example, dimension, order), for readers that need no label (arena's judge runs)."""
    result, records = read_run(run_dir)
    return result, [*records, *(r for r in read_unlabelled(run_dir, result, records) if r.repeat == 0)]


def read_repeats(run_dir: Path, task: str, judge: str, expected: int | None = None) -> list[JudgmentRecord]:
    """repeats.jsonl (repeats 1..N-1 of `run --repeats N`), or nothing when the run has none; a record of
    repeat 0, of another task or judge, or given twice is a one-line error naming it, and so is a count other
    than `expected` (what results.json's stability says: lines removed would change the stability figures)."""
    path = run_dir / REPEATS_FILE
    there = path.exists() or path.is_symlink()  # a FIFO or folder there is read, and refused as not a regular file
    records = read_models_jsonl(path, JudgmentRecord) if there else []
    _check_labels(records, path, labelled=True)
    seen: set[tuple[str, str, str, int]] = set()
    for number, r in enumerate(records, start=1):
        key = (r.example_id, r.dimension, r.order, r.repeat)
        problem = (
            "has repeat 0 (repeat 0 belongs in samples.jsonl)" if r.repeat < 1
            else f"is task {r.task!r}, judge {r.judge!r}, not the run's" if (r.task, r.judge) != (task, judge)
            else "repeats an earlier judgment" if key in seen else None
        )
        if problem:
            raise JudgebenchError(f"{path}: judgment {number} ({r.example_id}/{r.dimension}/{r.order}, repeat {r.repeat}) {problem}")
        seen.add(key)
    if expected is not None and len(records) != expected:
        raise JudgebenchError(f"{path}: {len(records):,} judgments, but {RESULTS_FILE}'s stability counts {expected:,} "
                              "beyond samples.jsonl: lines were removed or added after the run")
    return records


def rewrite_samples(path: Path, records: list[JudgmentRecord]) -> None:
    """Replace samples.jsonl by `records` (read lean from it, in its order), keeping each line's texts."""
    import json

    # lines split at line feeds only, as read_samples splits them (not at a carriage return between tokens)
    with atomic_path(path) as tmp, open_regular(path, encoding="utf-8", newline="\n") as old, \
            tmp.open("w", encoding="utf-8") as new:
        lines = (line for line in old if line.strip())
        for record, line in zip(records, lines, strict=True):
            texts = {k: v for k, v in json.loads(line).items() if k in TEXT_FIELDS}
            new.write((record.model_copy(update=texts) if texts else record).model_dump_json() + "\n")
        new.flush()
        os.fsync(new.fileno())


def find_results(paths: list[Path]) -> list[Path]:
    """results.json files named directly or found under the given folders (`leaderboard`'s and `view`'s reading of a
    folder that holds runs: a multi-judge run's, a sweep's, a folder of runs)."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():  # a panel's copies of its members are not rows of their own (unless asked for)
            found.extend(p for p in sorted(path.rglob(RESULTS_FILE)) if not is_member_copy(p, path))
        elif path.exists():  # a file (a FIFO or device too: reading it says it is not a regular file)
            found.append(path)
        else:
            raise JudgebenchError(f"{path}: no such file or directory")
    if not found:
        raise JudgebenchError(f"no results.json found under {', '.join(map(str, paths)) or 'the paths given (none)'}")
    seen: dict[Path, Path] = {}
    for path in found:  # (one run given twice was two identical rows)
        if (first := seen.setdefault(path.resolve(), path)) is not path:
            same = "given twice" if str(first) == str(path) else f"the same file as {first}"
            raise JudgebenchError(f"{path}: {same} (named twice, or found under two of the folders given): a run is "
                                  "read once")
    return found


def is_member_copy(results_path: Path, searched: Path) -> bool:
    """A results.json in a panel's members/ folder, found by searching above that folder (a copy, not a run)."""
    folder = results_path.parent.parent
    if folder.name != MEMBERS_DIR or not (folder.parent / RESULTS_FILE).is_file():
        return False
    return not searched.resolve().is_relative_to(folder.resolve())
