"""Task rows carrying annotator-level votes -> PairExamples whose labels are derived from the votes.

Three mappings (the task YAML's `votes:` key, tasks.VotesMapping), both on layout wide:
  long  one row per vote with an annotator id column (optional timestamp and shown-order columns);
        rows sharing an id are one pair and must agree on question and responses
  list  each label column holds the pair's votes: a list of labels (annotators named by position,
        #1, #2, ...) or a list of {annotator, label[, timestamp]} objects
  columns  one column per annotator (single dimension; an empty cell is no vote)
Each dimension's pair label is `votes.majority_label` of each annotator's first vote on it (MAJORITY_RULE: a
shared top count is TIE; an annotator's later votes on the pair enter only self-consistency); Both Bad stays a label of its own here and the run's Both-Bad rule applies later,
as it does to one-label data. Bad rows are one error naming the file, row and field.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import date, datetime
from typing import Any

from judgebench.core.errors import JudgebenchError
from judgebench.core.records import DEFAULT_DIMENSION, Label, PairExample, PairVote
from judgebench.tasks.registry import Dimension, TaskSpec
from judgebench.tasks.votes import MAJORITY_RULE, majority_label

LIST_VOTE_KEYS = ("annotator", "label", "timestamp")
LabelMapper = Callable[[Any, str, str], Label]  # (raw value, row reference, column) -> label


def label_rule(spec: TaskSpec) -> str | None:
    """The rule recorded in results (DatasetInfo.label_rule) for a task mapping votes."""
    if spec.votes is None:
        return None
    if spec.exclude_annotators:
        return f"{MAJORITY_RULE}; votes by excluded annotators left out: {', '.join(sorted(spec.exclude_annotators))}"
    return MAJORITY_RULE


def vote_columns(spec: TaskSpec) -> dict[str, str]:
    """Source columns the votes mapping adds (column -> task key), for existence checks."""
    if spec.votes is None:
        return {}
    keys = ("annotator", "timestamp", "shown_order")
    mapped = {getattr(spec.votes, key): f"votes.{key}" for key in keys if getattr(spec.votes, key)}
    mapped.update({column: f"votes.annotator_columns.{a}" for a, column in spec.votes.annotator_columns.items()})
    return mapped


def _label_columns(spec: TaskSpec) -> dict[str, str]:
    """Dimension -> its label column."""
    dims = spec.dimensions or [Dimension(name=DEFAULT_DIMENSION)]
    return {d.name: d.label_column or spec.columns.label for d in dims}  # type: ignore[misc]


def votes_to_examples(
    spec: TaskSpec, rows: list[dict[str, Any]], source: str, row_id: Callable, base_example: Callable,
    map_label: LabelMapper,
) -> list[PairExample]:
    """The task's rows as PairExamples with `votes` and majority labels (loading.py passes its helpers)."""
    assert spec.votes is not None
    grouped: dict[str, dict[str, Any]] = {}
    for index, row in enumerate(rows):
        example_id = row_id(row, spec, index, source)
        ref = f"row {index + 1} (id {example_id})"
        base = base_example(spec, row, example_id, source)
        if spec.votes.layout in ("list", "columns"):
            if example_id in grouped:
                raise JudgebenchError(f"{source}: row {index + 1}: duplicate id '{example_id}'")
            read = _list_votes if spec.votes.layout == "list" else _column_votes
            grouped[example_id] = {**base, "votes": read(spec, row, ref, source, map_label)}
            continue
        entry = grouped.setdefault(example_id, {**base, "votes": []})
        if any(entry[k] != base[k] for k in ("question", "response_a", "response_b", "model_a", "model_b")):
            raise JudgebenchError(f"{source}: {ref}: question, responses or models differ from an earlier row with this id")
        entry["votes"].append(_long_vote(spec, row, ref, source, map_label))
    return [
        PairExample(**entry, labels=_majority_labels(spec, entry["votes"]))
        for entry in _without_excluded(spec, grouped.values(), source)
    ]


def _without_excluded(spec: TaskSpec, entries: Iterable[dict[str, Any]], source: str) -> list[dict[str, Any]]:
    """Leave out the votes of the task's `exclude_annotators` (flagged voters; recorded in label_rule).
    A pair left with no vote cannot have a label: that is an error naming it, never a silent drop."""
    excluded = set(spec.exclude_annotators)
    kept = []
    for entry in entries:
        votes = [v for v in entry["votes"] if v.annotator not in excluded]
        if not votes:
            raise JudgebenchError(
                f"{source}: pair '{entry['id']}' has only votes by excluded annotators (exclude_annotators); "
                "remove the pair from the data or keep one of its voters"
            )
        kept.append({**entry, "votes": votes})
    return kept


def _majority_labels(spec: TaskSpec, votes: list[PairVote]) -> dict[str, Label]:
    """Each dimension's label from each annotator's first vote on the pair (their later votes enter only
    self-consistency, as in the ceiling, `arena` and `freeze`: three votes of one person had outvoted two)."""
    labels = {}
    for dim in _label_columns(spec):
        first: dict[str, Label] = {}
        for vote in votes:
            first.setdefault(vote.annotator, vote.labels[dim])
        labels[dim] = majority_label(list(first.values()))
    return labels


def _long_vote(spec: TaskSpec, row: dict[str, Any], ref: str, source: str, map_label: LabelMapper) -> PairVote:
    mapping = spec.votes
    annotator = row.get(mapping.annotator)
    if annotator is None or isinstance(annotator, bool) or not isinstance(annotator, (str, int)) or not str(annotator).strip():
        raise JudgebenchError(f"{source}: {ref}: field '{mapping.annotator}' (votes.annotator) must be a non-empty id, got {annotator!r}")
    shown = row.get(mapping.shown_order) if mapping.shown_order else None
    if shown is not None and shown not in ("AB", "BA"):
        raise JudgebenchError(f"{source}: {ref}: field '{mapping.shown_order}' (votes.shown_order) must be AB or BA, got {shown!r}")
    stamp = _timestamp(row.get(mapping.timestamp), f"{source}: {ref}: field '{mapping.timestamp}' (votes.timestamp)") if mapping.timestamp else None
    labels = {dim: map_label(row.get(col), ref, col) for dim, col in _label_columns(spec).items()}
    return PairVote(annotator=str(annotator), labels=labels, timestamp=stamp, shown_order=shown)


def _list_votes(spec: TaskSpec, row: dict[str, Any], ref: str, source: str, map_label: LabelMapper) -> list[PairVote]:
    """Votes from list columns (one per dimension); position i of every column is the same vote."""
    per_dim: dict[str, list[tuple[str, Label, str | None]]] = {}
    for dim, col in _label_columns(spec).items():
        value = row.get(col)
        if not isinstance(value, list) or not value:
            raise JudgebenchError(f"{source}: {ref}: field '{col}' must be a non-empty list of votes, got {type(value).__name__}")
        per_dim[dim] = [_list_item(item, i, ref, col, source, map_label) for i, item in enumerate(value)]
    lengths = {len(v) for v in per_dim.values()}
    if len(lengths) > 1:
        raise JudgebenchError(f"{source}: {ref}: the vote lists of the dimensions differ in length ({sorted(lengths)})")
    first = next(iter(per_dim.values()))
    votes = []
    for i, (annotator, _, stamp) in enumerate(first):
        others = {per_dim[dim][i][0] for dim in per_dim}
        if others != {annotator}:
            raise JudgebenchError(f"{source}: {ref}: vote {i + 1} names different annotators across dimensions ({sorted(others)})")
        votes.append(PairVote(annotator=annotator, labels={dim: per_dim[dim][i][1] for dim in per_dim}, timestamp=stamp))
    return votes


def _column_votes(spec: TaskSpec, row: dict[str, Any], ref: str, source: str, map_label: LabelMapper) -> list[PairVote]:
    """Votes from one column per annotator (single dimension); an empty cell is no vote."""
    votes = [
        PairVote(annotator=annotator, labels={DEFAULT_DIMENSION: map_label(row.get(column), ref, column)})
        for annotator, column in spec.votes.annotator_columns.items()
        if row.get(column) not in (None, "")
    ]
    if not votes:
        raise JudgebenchError(f"{source}: {ref}: no votes (every column of votes.annotator_columns is empty)")
    return votes


def _list_item(item: Any, i: int, ref: str, col: str, source: str, map_label: LabelMapper) -> tuple[str, Label, str | None]:
    where = f"{ref}, vote {i + 1}"
    if not isinstance(item, dict):
        return f"#{i + 1}", map_label(item, where, col), None
    if extra := sorted(set(item) - set(LIST_VOTE_KEYS)):
        raise JudgebenchError(f"{source}: {where}: field '{col}' has unknown vote keys {extra}; allowed {list(LIST_VOTE_KEYS)}")
    annotator = item.get("annotator")
    if annotator is None or isinstance(annotator, bool) or not isinstance(annotator, (str, int)) or not str(annotator).strip():
        raise JudgebenchError(f"{source}: {where}: field '{col}' needs a non-empty 'annotator', got {annotator!r}")
    stamp = _timestamp(item.get("timestamp"), f"{source}: {where}: field '{col}' timestamp")
    return str(annotator), map_label(item.get("label"), where, col), stamp


def _timestamp(value: Any, where: str) -> str | None:
    """An ISO 8601 date-time (or a date-time cell) as text; anything else is one error (never kept
    as text that arena or the annotator table would later fail on or misorder)."""
    if value is None or value == "" or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, str) and value.strip():
        try:
            datetime.fromisoformat(value.strip().replace("Z", "+00:00").replace("z", "+00:00"))
            return value
        except ValueError:
            pass
    raise JudgebenchError(f"{where}: {value!r} is not an ISO 8601 date-time")
