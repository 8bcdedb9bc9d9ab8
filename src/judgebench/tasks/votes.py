"""Annotator-level votes: the record one human vote is, reading and writing votes files, and the
rule that turns a pair's votes into its label.

A votes file is JSON Lines (or CSV with the flat fields), one vote per line:

    {"pair_id": "p1", "annotator": "ann-3", "choice": "A", "model_a": "gpt-4.1", "model_b": "o3",
     "shown_order": "BA", "timestamp": "2026-11-30T10:02:11Z", "seconds": 41.5,
     "slices": {"subject": "physics"}}

`choice` is one of A, B, TIE, BOTH_BAD in the pair's stored positions (never the shown ones);
multi-dimension votes give `choices` ({dimension: label}) instead. `shown_order` says which response
the annotator saw on the left: AB (response_a on the left) or BA. Optional `length_a/b` (characters) and
`citations_a/b` carry the responses' style features for arena's style control. The voting page (`annotate`)
exports this layout; `arena`, the human ceiling and task YAMLs read it.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator, model_validator

from judgebench.core.errors import JudgebenchError
from judgebench.core.files import (
    atomic_path,
    csv_dict_rows,
    describe_validation_error,
    open_regular,
    read_json_objects,
    why_not_a_file,
)
from judgebench.core.records import (
    DEFAULT_DIMENSION,
    LABELS,
    Label,
    Order,
    PairExample,
    Strict,
)

MAJORITY_RULE = (
    "majority: the label with the most votes; when two or more labels share the most votes "
    "(e.g. one A and one B) the pair's label is TIE"
)
FLAT_FIELDS = ("pair_id", "annotator", "choice", "model_a", "model_b", "shown_order", "timestamp", "seconds", "comment",
               "pair_sha256", "length_a", "length_b", "citations_a", "citations_b")


COUNT_MAX = 2**63 - 1  # a length or citation count is a 64-bit integer (a larger one overflowed arena's tables)


PAIR_TEXTS = ("question", "response_a", "response_b")  # what a voter reads of a pair
PAIR_HASH = r"^[0-9a-f]{64}$"  # a vote's pair_sha256: a sha256 hex digest


def pair_text_hash(pair: dict[str, Any]) -> str:
    """sha256 of the texts a voter reads of a pair (question, response A, response B): votes are on these."""
    return hashlib.sha256(json.dumps([pair.get(k) for k in PAIR_TEXTS], ensure_ascii=False).encode("utf-8")).hexdigest()


class Vote(Strict):
    """One annotator's vote on one pair, in the pair's stored A/B positions."""

    pair_id: str = Field(min_length=1)
    annotator: str = Field(min_length=1)
    choice: Label | None = None  # single-dimension vote
    choices: dict[str, Label] = Field(default_factory=dict)  # dimension -> label
    model_a: str | None = None
    model_b: str | None = None
    shown_order: Order | None = None  # AB: response_a was shown on the left
    timestamp: str | None = None  # ISO 8601
    seconds: float | None = Field(default=None, ge=0, allow_inf_nan=False)  # time on the page
    slices: dict[str, str] = Field(default_factory=dict)
    comment: str | None = None
    # sha256 of the texts the vote was cast on (`pair_text_hash`; the voting page's export writes it), so that a
    # pairs file holding other texts under the pair's id is refused where votes and pairs are joined (freeze)
    pair_sha256: str | None = Field(default=None, pattern=PAIR_HASH)
    # style features of the two responses (arena's style control); optional
    length_a: int | None = Field(default=None, ge=0, le=COUNT_MAX)  # characters
    length_b: int | None = Field(default=None, ge=0, le=COUNT_MAX)
    citations_a: int | None = Field(default=None, ge=0, le=COUNT_MAX)  # in-text citations
    citations_b: int | None = Field(default=None, ge=0, le=COUNT_MAX)

    @field_validator("pair_id", "annotator", "model_a", "model_b")
    @classmethod
    def _not_blank(cls, value: str | None) -> str | None:
        if value is not None and value.isspace():  # (an empty one: min_length, or no name given)
            raise ValueError("is blank (whitespace only)")
        return value

    @model_validator(mode="after")
    def _one_form(self) -> Vote:
        if (self.choice is None) == (not self.choices):
            raise ValueError("give exactly one of choice (one dimension) or choices (per dimension)")
        return self

    def label_for(self, dimension: str = DEFAULT_DIMENSION) -> Label | None:
        """This vote's label on one dimension (None when the vote does not cover it)."""
        if self.choice is not None:
            return self.choice if dimension == DEFAULT_DIMENSION or not self.choices else None
        return self.choices.get(dimension)


def majority_label(labels: Sequence[str]) -> Label:
    """The pair label from its votes under MAJORITY_RULE (a shared top count is a TIE)."""
    if not labels:
        raise ValueError("no votes")
    counts = Counter(labels).most_common()
    top = counts[0][1]
    leaders = [label for label, count in counts if count == top]
    return leaders[0] if len(leaders) == 1 else "TIE"  # type: ignore[return-value]


def read_votes(path: Path | str) -> list[Vote]:
    """Read a votes file (.jsonl or .csv); a bad row is one error naming the file and line."""
    path = Path(path)
    if not path.is_file():
        raise JudgebenchError(f"votes file {path}: {why_not_a_file(path)}")
    csv_file = path.suffix.lower() == ".csv"  # (votes.CSV had been read as JSON Lines)
    if csv_file:
        rows = _csv_rows(path)
    else:
        rows = read_json_objects(path, "votes file ")
    votes = []
    strict = not csv_file  # a JSON value of its own type ("12" or true for seconds refused); CSV is text
    for line, row in rows:
        try:
            votes.append(Vote.model_validate(row, strict=strict))
        except ValidationError as exc:
            raise JudgebenchError(f"votes file {path}:{line}: {describe_validation_error(exc, Vote)}") from None
    if not votes:
        raise JudgebenchError(f"votes file {path}: no votes")
    return votes


def _csv_rows(path: Path) -> list[tuple[int, dict[str, object]]]:
    try:
        with open_regular(path, newline="", encoding="utf-8-sig") as handle:  # (Excel's "CSV UTF-8" starts with a BOM)
            records = csv_dict_rows(handle, f"votes file {path}")
            rows = []
            for line, row in records:
                slices = {key[len("slice_"):]: value for key, value in row.items()  # (a row's missing last cells:
                          if key and key.startswith("slice_") and value is not None}  # absent, as in JSON Lines)
                flat = {key: value for key, value in row.items() if key in FLAT_FIELDS and value not in ("", None)}
                if extra := sorted(k for k in row if k and k not in FLAT_FIELDS and not k.startswith("slice_")):
                    raise JudgebenchError(f"votes file {path}: unknown columns {extra}; allowed {list(FLAT_FIELDS)} and slice_*")
                rows.append((line, {**flat, "slices": slices}))
            return rows
    except UnicodeDecodeError:
        raise JudgebenchError(f"votes file {path}: not UTF-8 text") from None


def write_votes(path: Path, votes: Iterable[Vote]) -> None:
    """Write votes as JSON Lines, atomically."""
    with atomic_path(path) as tmp, tmp.open("w", encoding="utf-8") as handle:
        for vote in votes:
            handle.write(json.dumps(vote.model_dump(exclude_defaults=True), ensure_ascii=False) + "\n")


def votes_by_pair(votes: Iterable[Vote]) -> dict[str, list[Vote]]:
    """Group votes by pair id, in first-seen order."""
    grouped: dict[str, list[Vote]] = {}
    for vote in votes:
        grouped.setdefault(vote.pair_id, []).append(vote)
    return grouped


def dimension_votes(example: PairExample, dimension: str) -> dict[str, list[Label]] | None:
    """A pair's votes on one dimension, compact (annotator -> labels in data order), for JudgmentRecord.votes."""
    if not example.votes:
        return None
    out: dict[str, list[Label]] = {}
    for vote in example.votes:
        if dimension in vote.labels:
            out.setdefault(vote.annotator, []).append(vote.labels[dimension])
    return out


def votes_of_examples(examples: Iterable[PairExample]) -> list[Vote]:
    """A task's annotator-level votes (examples loaded with a `votes:` mapping) as Vote records."""
    out = []
    for example in examples:
        for vote in example.votes or []:
            single = list(vote.labels) == [DEFAULT_DIMENSION]
            out.append(Vote(
                pair_id=example.id, annotator=vote.annotator, model_a=example.model_a, model_b=example.model_b,
                shown_order=vote.shown_order, timestamp=vote.timestamp, slices=example.slices,
                **({"choice": vote.labels[DEFAULT_DIMENSION]} if single else {"choices": vote.labels}),
            ))
    return out


__all__ = ["LABELS", "MAJORITY_RULE", "Vote", "dimension_votes", "majority_label", "read_votes", "votes_by_pair",
           "votes_of_examples", "write_votes"]
