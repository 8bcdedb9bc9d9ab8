"""The run viewer's data: runs read for the index (only the fields it needs), one example's details read on
demand by byte offset, the filters and their counts, the judge-vs-human confusion matrix.

An index row is one (example, dimension). For each run it carries a two-letter code, the verdict of the AB
order then of the BA order, each mapped back to the dataset's positions: A, B, T (tie), i (invalid),
f (failed), - (no judgment in that order). The filters (docs/guide/viewer.md):

disagree_label     an answered verdict in either order differs from the human label (BOTH_BAD counts as TIE;
                   a run scored with --both-bad exclude never disagrees on a BOTH_BAD pair)
disagree_majority  the same against the majority of the annotators' votes (each annotator's last vote;
                   tasks/votes.MAJORITY_RULE); rows without votes never match
flip               both orders answered and their verdicts differ
invalid / failed   some order is INVALID / FAILED; `reason` narrows to one reason (truncated, unparseable,
                   error, not_attempted, in_flight, unrecorded)
runs_differ        two runs' codes differ (side by side)
slice, dimension, text (case-insensitive, in the id, the question's start and slice values), cell (label, verdict)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from judgebench.core.errors import JudgebenchError, one_line
from judgebench.core.files import read_model_json, regular_bytes
from judgebench.core.records import Label, Order, RunResult, Status, Verdict
from judgebench.judges.config import named_judge, run_config_hash
from judgebench.core.rundir import (
    MEMBERS_DIR,
    PROMPT_FILE,
    REPEATS_FILE,
    RESULTS_FILE,
    SAMPLES_FILE,
    TASK_FILE,
    find_results,
)

SNIPPET = 160  # characters of the question kept in the index for the text search and the list
VERDICT_CODE = {"A": "A", "B": "B", "TIE": "T"}
LABEL_CODE = {"A": "A", "B": "B", "TIE": "T", "BOTH_BAD": "X"}
REASONS = ("truncated", "unparseable", "error", "not_attempted", "in_flight", "unrecorded")
FLAGS = ("disagree_label", "disagree_majority", "flip", "invalid", "failed", "runs_differ")


class _IndexFields(msgspec.Struct):
    """The fields of a samples.jsonl line the index reads (msgspec skips every other field unparsed)."""

    example_id: str
    dimension: str
    order: Order  # the record's own types: a line every other reader refuses is refused here too
    status: Status
    label: Label
    verdict: Verdict | None = None
    invalid_reason: str | None = None
    failure: str | None = None
    error: str | None = None
    slices: dict[str, str] = {}
    question: str | None = None
    votes: dict[str, list[str]] | None = None
    repeat: int = 0


class _KeyFields(msgspec.Struct):
    example_id: str
    dimension: str
    order: str
    status: str
    verdict: str | None = None
    repeat: int = 0


_INDEX_DECODER = msgspec.json.Decoder(_IndexFields)
_KEY_DECODER = msgspec.json.Decoder(_KeyFields)


def _lines(data: bytes) -> Iterable[tuple[int, int]]:
    """(start, end) of each non-blank line of a JSONL file's bytes, split at line feeds only."""
    start, size = 0, len(data)
    while start < size:
        end = data.find(b"\n", start)
        end = size if end < 0 else end
        if data[start:end].strip():
            yield start, end
        start = end + 1


@dataclass
class JsonlFile:
    """A JSONL file held as bytes, with the lines of each (example, dimension): details read on demand."""

    path: Path
    data: bytes = b""
    where: dict[tuple[str, str], list[tuple[int, int]]] = field(default_factory=dict)

    def records(self, key: tuple[str, str]) -> list[dict[str, Any]]:
        return [_line(self.path, self.data[s:e]) for s, e in self.where.get(key, ())]


def _line(path: Path, line: bytes) -> dict[str, Any]:
    """One judgment line, whole; a line Python's reader cannot take (an integer of thousands of digits) is one
    error naming the file."""
    try:
        return json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise JudgebenchError(f"{path}: a judgment cannot be read ({one_line(str(exc) or type(exc).__name__, 120)})") from None


def _key_file(path: Path) -> JsonlFile | None:
    """A members' or repeats' file keyed by (example, dimension); None when absent."""
    if not path.is_file():
        return None
    file = JsonlFile(path, regular_bytes(path))
    for start, end in _lines(file.data):
        try:
            k = _KEY_DECODER.decode(file.data[start:end])
        except msgspec.DecodeError as exc:
            raise JudgebenchError(f"{path}: a line is not a judgment ({exc})") from None
        file.where.setdefault((k.example_id, k.dimension), []).append((start, end))
    return file


@dataclass
class Run:
    """One run directory as the viewer reads it."""

    folder: Path
    name: str
    result: RunResult
    samples: JsonlFile
    members: list[tuple[str, JsonlFile]] = field(default_factory=list)
    repeats: JsonlFile | None = None
    template: Any = None  # judging.prompts.PromptTemplate, when the run's prompt.yaml copy loads
    criteria: list[tuple[str, str]] = field(default_factory=list)
    verdicts: list[str] = field(default_factory=list)
    prompt_note: str = ""  # why the prompt cannot be shown, when it cannot


@dataclass
class View:
    """One or more runs of the same task: the index rows and where each example's lines are."""

    runs: list[Run]
    rows: list[dict[str, Any]]
    slice_columns: list[str]
    dimensions: list[str]
    both_bad: str

    def meta(self) -> dict[str, Any]:
        first = self.runs[0].result.config
        slices: dict[str, set[str]] = {c: set() for c in self.slice_columns}
        for row in self.rows:
            for column, value in zip(self.slice_columns, row["sl"]):
                if value:
                    slices[column].add(value)
        return {
            "task": first.task,
            "both_bad": self.both_bad,
            "runs": [{"name": r.name, "judge": r.result.config.judge, **_configuration(r.result),
                      "kind": r.result.config.kind, "members": [m for m, _ in r.members],
                      "repeats": r.repeats is not None, "prompt_note": r.prompt_note} for r in self.runs],
            "dimensions": self.dimensions,
            "slices": {c: sorted(v) for c, v in slices.items()},
            "rows": len(self.rows),
            "warnings": [f"{r.name} was run on other data than {self.runs[0].name} (dataset fingerprints differ): "
                         "examples only one run has show '-' for the other" for r in self.runs[1:]
                         if r.result.config.dataset.fingerprint != first.dataset.fingerprint],
        }


def _configuration(result: RunResult) -> dict[str, Any]:
    """Which configuration of its judge a run is (an audit: two temperatures under one display name read as the
    folders they sat in): its display name, hash and a label `MODEL (NAME) #HASH8` for the page."""
    config = result.config
    digest = run_config_hash(config)
    label = f"{named_judge(config.judge, config.judge_name)} #{digest[:8]}"
    return {"judge_name": config.judge_name, "config_hash": digest, "label": label}


def _reason(f: _IndexFields) -> str:
    if f.status == "INVALID":
        return f.invalid_reason or "unparseable"
    if f.status == "FAILED":
        if f.failure:
            return f.failure
        from judgebench.core.records import failure_from_error

        return failure_from_error(f.error or "")
    return ""


def _code(f: _IndexFields) -> str:
    if f.status == "ANSWERED":
        return VERDICT_CODE.get(f.verdict or "", "-")
    return "i" if f.status == "INVALID" else "f"


def _majority(votes: dict[str, list[str]] | None) -> str:
    if not votes:
        return ""
    from judgebench.tasks.votes import majority_label

    first = [labels[0] for labels in votes.values() if labels]  # each annotator's first vote, as the pair label
    return LABEL_CODE[majority_label(first)] if first else ""  # counts them (an attack: last votes contradicted it)


def read_run_for_view(folder: Path, name: str | None = None) -> tuple[Run, list[_IndexFields]]:
    """results.json (validated) and samples.jsonl's index fields, with each line's offsets."""
    results, samples = folder / RESULTS_FILE, folder / SAMPLES_FILE
    for path in (results, samples):
        if not path.is_file():
            raise JudgebenchError(f"{folder}: not a run directory ({path.name} is missing)")
    result = read_model_json(results, RunResult)
    file = JsonlFile(samples, regular_bytes(samples))
    fields: list[_IndexFields] = []
    expected = (result.config.task, result.config.judge)
    for number, (start, end) in enumerate(_lines(file.data), start=1):
        try:
            f = _INDEX_DECODER.decode(file.data[start:end])
        except (msgspec.DecodeError, RecursionError) as exc:  # (nested too deeply for msgspec to skip)
            raise JudgebenchError(f"{samples}: judgment {number} cannot be read ({exc or 'nested too deeply'})") from None
        fields.append(f)
        file.where.setdefault((f.example_id, f.dimension), []).append((start, end))
    if not fields:
        raise JudgebenchError(f"{samples}: no judgments")
    task_judge = _line(samples, file.data[: file.data.find(b"\n")] or file.data)
    if (task_judge.get("task"), task_judge.get("judge")) != expected:
        raise JudgebenchError(f"{samples}: its judgments are not of the task and judge {RESULTS_FILE} names")
    run = Run(folder=folder, name=name or folder.name, result=result, samples=file)
    members = folder / MEMBERS_DIR
    if result.config.kind == "panel" and members.is_dir():
        for member in result.config.members:
            file_ = _key_file(members / member.run_dir / SAMPLES_FILE)
            if file_ is not None:
                run.members.append((member.judge, file_))
    run.repeats = _key_file(folder / REPEATS_FILE)
    _load_prompt(run)
    return run, fields


def _load_prompt(run: Run) -> None:
    """The run's prompt.yaml and task.yaml copies, to re-render a prompt as the judge saw it."""
    prompt, task = run.folder / PROMPT_FILE, run.folder / TASK_FILE
    if not prompt.is_file() or not task.is_file():
        run.prompt_note = "not stored: the run folder has no prompt.yaml / task.yaml copy to re-render it from"
        return
    try:
        from judgebench.judging.prompts import load_prompt
        from judgebench.tasks.registry import load_task_file

        spec = load_task_file(task)
        run.template = load_prompt(str(prompt))
        run.criteria = [(d.name, d.criterion) for d in spec.dimensions] or [(spec.dimension_names[0], "")]
        run.verdicts = list(spec.verdicts)
    except (JudgebenchError, OSError) as exc:
        run.template = None
        run.prompt_note = f"not stored: the run's prompt copy does not load ({str(exc)[:200]})"


def build_view(folders: Sequence[Path]) -> View:
    """The index over one or more runs of the same task (rows in the first run's order, then any others')."""
    if not folders:
        raise JudgebenchError("name at least one run directory")
    folders = run_folders(folders)
    runs, per_run = [], []
    names = _names(folders)
    for folder, name in zip(folders, names):
        run, fields = read_run_for_view(Path(folder), name)
        runs.append(run)
        per_run.append(fields)
    task = runs[0].result.config.task
    for run in runs[1:]:
        if run.result.config.task != task:
            raise JudgebenchError(f"{run.folder}: task {run.result.config.task!r}, but {runs[0].folder} is "
                                  f"task {task!r}: runs side by side must be of the same task")
    rows: list[dict[str, Any]] = []
    at: dict[tuple[str, str], dict[str, Any]] = {}
    columns: dict[str, None] = {}
    dimensions: dict[str, None] = {}
    n_runs = len(runs)
    for r, fields in enumerate(per_run):
        for f in fields:
            if f.repeat:
                continue
            key = (f.example_id, f.dimension)
            row = at.get(key)
            if row is None:
                row = {"id": f.example_id, "dim": f.dimension, "label": LABEL_CODE.get(f.label, "?"),
                       "maj": _majority(f.votes), "slices": f.slices,
                       "q": (f.question or "")[:SNIPPET], "v": [["-", "-"] for _ in range(n_runs)],
                       "why": [[] for _ in range(n_runs)]}
                at[key] = row
                rows.append(row)
                dimensions.setdefault(f.dimension)
                for column in f.slices:
                    columns.setdefault(column)
            row["v"][r][0 if f.order == "AB" else 1] = _code(f)
            reason = _reason(f)
            if reason and reason not in row["why"][r]:
                row["why"][r].append(reason)
    slice_columns = list(columns)
    for n, row in enumerate(rows):
        row["n"] = n
        row["v"] = ["".join(pair) for pair in row["v"]]
        row["why"] = [",".join(w) for w in row["why"]]
        row["sl"] = [row["slices"].get(c, "") for c in slice_columns]
        del row["slices"]
    return View(runs=runs, rows=rows, slice_columns=slice_columns, dimensions=list(dimensions),
                both_bad=runs[0].result.config.both_bad)


def run_folders(folders: Sequence[Path]) -> list[Path]:
    """The runs named, a folder that is no run standing for the runs under it, as `leaderboard` reads it: a
    multi-judge run's folder, a panel's or a sweep's (it was refused as "not a run directory", and so was each of
    its files when given by a wildcard). A run's own folder is that run, whatever it holds; one run reached twice is
    refused (`find_results`)."""
    for folder in map(Path, folders):
        if folder.exists() and not folder.is_dir():
            raise JudgebenchError(f"{folder}: not a run directory (a run is a folder holding {RESULTS_FILE})")
    named = [folder / RESULTS_FILE if (folder / RESULTS_FILE).is_file() else folder for folder in map(Path, folders)]
    return [path.parent for path in find_results(named)]  # (a run's folder is that run alone, not the runs in it)


def _names(folders: Sequence[Path]) -> list[str]:
    """Short distinct names: the folder name, with its parent when two share one."""
    plain = [Path(f).resolve().name for f in folders]
    names = [f"{Path(f).resolve().parent.name}/{n}" if plain.count(n) > 1 else n for f, n in zip(folders, plain)]
    return [f"{n} ({i + 1})" if names.count(n) > 1 else n for i, n in enumerate(names)]


# ----------------------------------------------------------------------------- filters and counts


def _against(label: str, both_bad: str) -> str:
    """What a verdict is compared with: BOTH_BAD as TIE, or nothing under --both-bad exclude."""
    if label == "X":
        return "" if both_bad == "exclude" else "T"
    return label if label in ("A", "B", "T") else ""


def row_flags(row: dict[str, Any], run: int, both_bad: str = "tie") -> set[str]:
    """The flags one row has for one run (FLAGS)."""
    code, flags = row["v"][run], set()
    answered = [c for c in code if c in "ABT"]
    target = _against(row["label"], both_bad)
    if target and any(c != target for c in answered):
        flags.add("disagree_label")
    majority = _against(row["maj"], both_bad) if row["maj"] else ""
    if majority and any(c != majority for c in answered):
        flags.add("disagree_majority")
    if code[0] in "ABT" and code[1] in "ABT" and code[0] != code[1]:
        flags.add("flip")
    if "i" in code:
        flags.add("invalid")
    if "f" in code:
        flags.add("failed")
    if len(set(row["v"])) > 1:
        flags.add("runs_differ")
    return flags


@dataclass(frozen=True)
class Filters:
    """Filters that combine (all must hold). `run`: the run the verdict filters look at."""

    run: int = 0
    flags: tuple[str, ...] = ()
    reason: str = ""
    slice_column: str = ""
    slice_value: str = ""
    dimension: str = ""
    text: str = ""
    cell: tuple[str, str] | None = None  # (label code, verdict code) of the confusion matrix

    def matches(self, row: dict[str, Any], columns: Sequence[str], both_bad: str = "tie") -> bool:
        if self.flags and not set(self.flags) <= row_flags(row, self.run, both_bad):
            return False
        if self.reason and self.reason not in row["why"][self.run].split(","):
            return False
        if self.slice_column and row["sl"][list(columns).index(self.slice_column)] != self.slice_value:
            return False
        if self.dimension and row["dim"] != self.dimension:
            return False
        if self.cell and not (row["label"] == self.cell[0] and self.cell[1] in row["v"][self.run]):
            return False
        if self.text:
            needle = self.text.lower()
            hay = " ".join([row["id"], row["q"], *row["sl"]]).lower()
            if needle not in hay:
                return False
        return True


def filter_rows(view: View, filters: Filters) -> list[dict[str, Any]]:
    return [row for row in view.rows if filters.matches(row, view.slice_columns, view.both_bad)]


def flag_counts(view: View, filters: Filters) -> dict[str, int]:
    """For each flag: the rows matching the other filters and that flag too (what ticking it would leave)."""
    base = filter_rows(view, filters)
    return {flag: sum(flag in row_flags(row, filters.run, view.both_bad) for row in base) for flag in FLAGS}


def confusion(view: View, run: int = 0) -> dict[str, dict[str, int]]:
    """Human label (A, B, T, X) x judge verdict per judgment (A, B, T, i, f): counts over every row."""
    table = {label: {v: 0 for v in "ABTif"} for label in "ABTX"}
    for row in view.rows:
        if row["label"] in table:
            for c in row["v"][run]:
                if c in "ABTif":
                    table[row["label"]][c] += 1
    return table


def index_row(row: dict[str, Any]) -> list[Any]:
    """A row as the page holds it: [n, id, dimension, label, majority, slice values, question start, codes, reasons]."""
    return [row["n"], row["id"], row["dim"], row["label"], row["maj"], row["sl"], row["q"], row["v"], row["why"]]


# ----------------------------------------------------------------------------- one example, on demand

_SHOWN = ("status", "raw", "earlier_raw", "verdict_shown", "verdict", "invalid_reason", "error", "failure",
          "finish_reason", "reasoning", "reasoning_tokens", "tokens_in", "tokens_out", "cost_usd", "latency_s",
          "attempts", "cached", "served_model", "prompt_hash")


def example_detail(view: View, n: int) -> dict[str, Any]:
    """Everything the page shows of row `n`: texts, votes, and per run each order's judgment, prompt,
    members' and repeats' verdicts."""
    if not 0 <= n < len(view.rows):
        raise JudgebenchError(f"no example {n}")
    row = view.rows[n]
    key = (row["id"], row["dim"])
    detail: dict[str, Any] = {"n": n, "id": row["id"], "dimension": row["dim"], "label": row["label"],
                              "majority": row["maj"], "runs": []}
    for run in view.runs:
        records = run.samples.records(key)
        per_run: dict[str, Any] = {"name": run.name, "judge": run.result.config.judge,
                                   "label": _configuration(run.result)["label"], "orders": {}}
        for record in records:
            if "question" not in detail and record.get("question") is not None:
                detail.update({k: record.get(k) for k in ("question", "response_a", "response_b", "model_a",
                                                           "model_b", "slices", "votes")})
            order = record["order"]
            shown = {k: record.get(k) for k in _SHOWN}
            shown["prompt"] = _prompt(run, record)
            per_run["orders"][order] = shown
        if run.members:
            per_run["members"] = [{"name": name, **_verdicts(file.records(key))} for name, file in run.members]
        if run.repeats is not None:
            by_repeat: dict[int, list[dict[str, Any]]] = {}
            for record in run.repeats.records(key):
                by_repeat.setdefault(record.get("repeat", 0), []).append(record)
            per_run["repeats"] = [{"repeat": k, **_verdicts(v)} for k, v in sorted(by_repeat.items())]
        detail["runs"].append(per_run)
    if "question" not in detail and view.runs:
        first = view.runs[0].samples.records(key)
        if first:
            detail.update({k: first[0].get(k) for k in ("model_a", "model_b", "slices", "votes")})
    return detail


def _verdicts(records: list[dict[str, Any]]) -> dict[str, str]:
    out = {}
    for record in records:
        status = record.get("status")
        out[record["order"]] = (VERDICT_CODE.get(record.get("verdict") or "", "-") if status == "ANSWERED"
                                else "i" if status == "INVALID" else "f")
    return out


def _prompt(run: Run, record: dict[str, Any]) -> dict[str, Any]:
    """The messages as the judge saw them, re-rendered from the run's prompt copy and checked against the
    record's prompt hash; else why they cannot be shown."""
    if run.template is None:
        return {"note": run.prompt_note}
    if record.get("question") is None or record.get("response_a") is None:
        return {"note": "not stored: the run was made with --no-log-text (no texts to render the prompt from)"}
    from judgebench.core.records import PairExample
    from judgebench.judging.prompts import build_request

    mode = run.result.config.dimension_mode
    dims = run.criteria if mode == "joint" else [c for c in run.criteria if c[0] == record["dimension"]]
    try:
        example = PairExample(id=record["example_id"], question=record["question"], response_a=record["response_a"],
                              response_b=record["response_b"], labels={})
        request = build_request(run.template, example, record["order"], dims or [(record["dimension"], "")],
                                run.verdicts or ["A", "B", "TIE"])
    except (JudgebenchError, ValueError) as exc:
        return {"note": f"not stored: cannot re-render ({str(exc)[:200]})"}
    if request.prompt_hash != record.get("prompt_hash"):
        return {"note": "not stored: re-rendering from prompt.yaml gives another prompt than the judge saw "
                        "(the template uses data samples.jsonl does not keep, such as citations)"}
    return {"messages": request.messages}
