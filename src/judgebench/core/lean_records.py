"""A judgment held for scoring in a third of a compact pydantic record's memory: a slotted read-only copy.

A run of 1,000,000 pairs holds 2,000,000 records for scoring. A `JudgmentRecord` with its field-name set
shared (bulk.shared_field_set) still costs about 1.3 KB: a pydantic instance keeps an attribute dict of 37 entries. `LeanRecord` keeps
the same 37 values in slots (about 0.4 KB with the shared strings), under the same attribute names, so
scoring reads it exactly as it reads a `JudgmentRecord` (score() takes records by attribute). The texts
(question, responses) are None: they are in samples.jsonl.

Anything that needs the pydantic model gets one: `model_copy(update=...)` returns a `JudgmentRecord` (the
validated values, unchanged fields set), `model_dump`/`model_dump_json` dump it, `to_model()` gives it.
A `LeanRecord` equals the `JudgmentRecord` it came from without its texts.

Reading samples.jsonl (`rundir.read_samples(lean=True)`): a line as `run` writes it is decoded by msgspec
straight to its lean record (`LeanRecord.of_canonical_line`, 2x faster than pydantic's validation); any
other line goes to the pydantic model, which gives its value or its error.
"""

from __future__ import annotations

import sys
import types
import typing
from collections.abc import Collection
from typing import Any

import annotated_types
import msgspec

from judgebench.core.bulk import INTERN_MAX, shared_field_set, shared_map
from judgebench.core.records import JudgmentRecord

_FIELDS = tuple(JudgmentRecord.model_fields)
_TEXTS = {"question": None, "response_a": None, "response_b": None}


def _slot_filler(source: str, interned: Collection[str]) -> Any:
    """`fill(lean, values)`: every slot set by one generated statement each (three times faster than a loop
    of setattr and calls; 2,000,000 records at 1,000,000 pairs), the texts None. `source` reads a field of
    `values` ("values[{name!r}]" from a dict, "values.{name}" from a struct); the short strings of the
    `interned` fields are interned as `bulk.intern_short` does."""
    def statement(name: str) -> str:
        if name in _TEXTS:
            return f"    lean.{name} = None\n"
        if name in interned:
            return (f"    v = {source.format(name=name)}\n"
                    f"    lean.{name} = intern(v) if type(v) is str and len(v) <= {INTERN_MAX} else v\n")
        return f"    lean.{name} = {source.format(name=name)}\n"

    namespace: dict[str, Any] = {"intern": sys.intern}
    exec("def fill(lean, values):\n" + "".join(map(statement, _FIELDS)), namespace)  # the model's own field names
    return namespace["fill"]


_fill = _slot_filler("values[{name!r}]", ("model_a", "model_b"))  # from a validated model's __dict__
_EVERY_FIELD = shared_field_set(set(_FIELDS))
_NO_EARLIER: list[str] = []  # the earlier_raw of every record without re-asked answers (200,000 lists fewer at 100,000 pairs)


class LeanRecord:
    """A `JudgmentRecord`'s values without its texts, in slots. Read-only by convention (as records are)."""

    __slots__ = (*_FIELDS, "_fields_set")
    model_fields = JudgmentRecord.model_fields  # what readers of `type(record).model_fields` expect

    @classmethod
    def of(cls, record: JudgmentRecord) -> LeanRecord:
        """The lean copy of a record: the field-name set shared, the model names interned and equal slice
        maps shared (what repeats from example to example; bulk.py); the texts dropped."""
        lean = object.__new__(cls)
        values = record.__dict__
        _fill(lean, values)  # the model names interned inside (intern_short's rule)
        lean.slices = shared_map(values["slices"])
        if not values["earlier_raw"]:  # almost every record: one shared empty list (read only, as records are)
            lean.earlier_raw = _NO_EARLIER
        given = record.__pydantic_fields_set__
        lean._fields_set = _EVERY_FIELD if len(given) == len(_FIELDS) else shared_field_set(given)
        return lean

    @classmethod
    def of_canonical_line(cls, line: bytes) -> LeanRecord:
        """The lean record of a line as `run` writes it (every field given, each of its exact JSON type),
        decoded without building the pydantic model first; any other line raises `NotCanonical` (then
        `JudgmentRecord` validates it: its value or its error). See `_CANONICAL`."""
        try:
            wire = _decode_canonical(line)
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            raise NotCanonical(str(exc)) from None
        lean = object.__new__(cls)
        _fill_canonical(lean, wire)
        lean.slices = shared_map(wire.slices)
        if not wire.earlier_raw:
            lean.earlier_raw = _NO_EARLIER
        lean._fields_set = _EVERY_FIELD
        return lean

    def to_model(self) -> JudgmentRecord:
        """The `JudgmentRecord` (without texts) these values came from; they were validated when built."""
        values = {name: getattr(self, name) for name in _FIELDS}
        return JudgmentRecord.model_construct(_fields_set=set(self._fields_set), **values)

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> JudgmentRecord:
        return self.to_model().model_copy(update=update, deep=deep)

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        return self.to_model().model_dump(**kwargs)

    def model_dump_json(self, **kwargs: Any) -> str:
        return self.to_model().model_dump_json(**kwargs)

    @property
    def model_fields_set(self) -> set[str]:
        return set(self._fields_set)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LeanRecord):
            other = other.to_model()
        if isinstance(other, JudgmentRecord):
            return self.to_model() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # like a pydantic model: mutable values, no hash

    def __repr__(self) -> str:
        return f"LeanRecord({self.example_id!r}, {self.dimension!r}, {self.order!r}, {self.status})"


class NotCanonical(ValueError):
    """A samples.jsonl line the canonical decoder does not take (the pydantic model decides about it)."""


def _canonical_struct() -> type[msgspec.Struct]:
    """msgspec's mirror of `JudgmentRecord` for the lines `run` writes: every field required (a line
    missing one is not canonical), each of the model's types taken exactly (no coercion: "3" for an int is
    not canonical), unknown keys refused. What it accepts the model accepts with the same values
    (tests/core/test_lean_records.py checks the edge cases); what it refuses goes to the model."""
    fields = [(name, _mirrored(field.annotation, field.metadata, name))
              for name, field in JudgmentRecord.model_fields.items()]
    return msgspec.defstruct("CanonicalJudgment", fields, kw_only=True, forbid_unknown_fields=True, gc=False)


_BOUNDS = {annotated_types.Ge: "ge", annotated_types.Gt: "gt", annotated_types.Le: "le", annotated_types.Lt: "lt"}


def _mirrored(annotation: Any, constraints: list[Any], field: str) -> Any:
    """The msgspec type of a model field: its annotation with the model's bounds (`Field(ge=..., le=...)`, at
    the top or inside `Annotated[...] | None`) as msgspec.Meta. Any other constraint is an error here, at
    import: the mirror must never take a value the model refuses."""
    if typing.get_origin(annotation) is typing.Annotated:
        base, *extras = typing.get_args(annotation)
        nested = [c for extra in extras for c in getattr(extra, "metadata", [extra])]
        return _mirrored(base, [*nested, *constraints], field)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = tuple(_mirrored(a, [], field) for a in typing.get_args(annotation))
        annotation = typing.Union[args]  # noqa: UP007  (a tuple of types, built at run time)
    if not constraints:
        return annotation
    bounds = {}
    for constraint in constraints:
        if getattr(constraint, "allow_inf_nan", None) is False:  # AllowInfNan, or pydantic<2.14's general metadata
            continue  # msgspec's JSON floats are always finite: 1e400 is "out of range", NaN is not JSON
        if type(constraint) not in _BOUNDS:
            raise TypeError(f"lean_records: cannot mirror {constraint!r} of JudgmentRecord.{field} in msgspec")
        key = _BOUNDS[type(constraint)]
        bounds[key] = getattr(constraint, key)
    return typing.Annotated[annotation, msgspec.Meta(**bounds)]


_CANONICAL = _canonical_struct()
_decode_canonical = msgspec.json.Decoder(_CANONICAL).decode


def _is_str(annotation: Any) -> bool:
    """str or str | None: names, hashes and short answers that repeat from record to record."""
    return annotation is str or (typing.get_origin(annotation) in (typing.Union, types.UnionType)
                                 and set(typing.get_args(annotation)) == {str, type(None)})


# From the decoded struct: the short values of the str fields that repeat interned (msgspec gives each record
# its own copies, where pydantic's parser shared them; a Literal's values are msgspec's shared objects
# already). A prompt's hash and reasoning are distinct per judgment: interning them would only grow the table.
_DISTINCT = {"prompt_hash", "reasoning"}
_fill_canonical = _slot_filler("values.{name}", [n for n, f in JudgmentRecord.model_fields.items()
                                                 if _is_str(f.annotation) and n not in _DISTINCT])
