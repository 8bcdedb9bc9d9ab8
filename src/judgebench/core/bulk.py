"""Bulk object building: without the cyclic garbage collector's passes; records sharing what repeats.

Reading 200,000 records (or assembling them) allocates millions of container objects and no
reference cycles; each allocation burst triggers collections that walk the whole growing heap,
which cost as much as the reading itself (5.6 s against 2.5 s for 200,000 lean records). Inside
`gc_paused()` the collector is off; it is restored (and collects whatever cycles appeared) on exit.
Nothing is freed later than it would be: reference counting still frees every acyclic object at once.

After such a phase, `allocator.release_free_memory()` hands the heap's free pages back to the system (the
chunks' texts and objects were freed, but the C allocator kept their pages between the lean records still held).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic collector off for the block (nesting-safe: only the outermost block turns it back on)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


_FIELD_SETS: dict[frozenset[str], set[str]] = {}


INTERN_MAX = 128  # strings up to this length are interned (lean_records inlines the same rule)


def intern_short(value: object) -> object:
    """A string of up to INTERN_MAX characters interned (names and codes that repeat across records), else the value."""
    return sys.intern(value) if type(value) is str and len(value) <= INTERN_MAX else value


def shared_field_set(given: set[str]) -> set[str]:
    """The one set object kept for this set of field names (at most 1,000 distinct sets kept).

    A pydantic instance keeps its own set of the names of the fields it was given (2.3 KB for a 37-field
    record); that set is only read (`exclude_unset` dumps, `model_fields_set`) and `model_copy` copies it,
    so records given the same fields can share one. Records are never modified in place.
    """
    key = frozenset(given)
    shared = _FIELD_SETS.get(key)
    if shared is None:
        shared = _FIELD_SETS.setdefault(key, set(key)) if len(_FIELD_SETS) < 1_000 else given
    return shared


_MAPS: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}


def shared_map(value: dict[str, str]) -> dict[str, str]:
    """One dict object per distinct small str -> str map (slices); at most 10,000 kept."""
    key = tuple(value.items())
    found = _MAPS.get(key)
    if found is None and len(_MAPS) < 10_000:
        found = _MAPS[key] = value
    return found if found is not None else value


_set = object.__setattr__


def trusted(cls: type[M], values: dict[str, Any], fields_set: set[str]) -> M:
    """An instance of `cls` holding `values` (every field, in the model's field order, each already of its
    field's type: taken from validated models) with `fields_set` as the names given; no validation.

    What `cls.model_construct(_fields_set=fields_set, **values)` builds for a plain model (no aliases,
    extra fields, private attributes or post-init: `trusts(cls)`), without its per-field walk over
    aliases and defaults in Python, which in this pydantic takes longer than validating (a
    JudgeRequest: 4 us against 3 us; 0.7 us here). Used where 200,000 requests and records are built
    from validated parts per 100,000 pairs; tests/judging/test_run_path.py checks the result equals validation's.
    """
    model = cls.__new__(cls)
    _set(model, "__dict__", values)
    _set(model, "__pydantic_fields_set__", fields_set)
    _set(model, "__pydantic_extra__", None)
    _set(model, "__pydantic_private__", None)
    return model


def trusts(cls: type[BaseModel]) -> bool:
    """Whether `trusted` builds what `model_construct` would for this model."""
    plain_fields = all(f.alias is None and f.validation_alias is None for f in cls.model_fields.values())
    return (
        plain_fields
        and not cls.__private_attributes__
        and not cls.__pydantic_post_init__
        and not cls.__pydantic_root_model__
        and cls.model_config.get("extra") != "allow"
    )
