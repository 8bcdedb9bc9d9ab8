"""Deferred values in a nested result: `Ref` placeholders for statistics resolved later and `Deferred` parts
computed when the tree is filled (e.g. while a forked child computes a bootstrap, core/background.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


def fill(tree: Any, values: dict[str, dict[str, Any]]) -> Any:
    """Replace Ref placeholders in a nested structure by resolved statistics, and Deferred ones by their
    results."""
    if isinstance(tree, Ref):
        return values[tree.name]
    if isinstance(tree, Deferred):
        return fill(tree.compute(), values)
    if isinstance(tree, dict):
        return {k: fill(v, values) for k, v in tree.items()}
    if isinstance(tree, list):
        return [fill(v, values) for v in tree]
    return tree


@dataclass(frozen=True)
class Ref:
    name: str


@dataclass(frozen=True)
class Deferred:
    """A section part computed when the tree is filled (after the ratios), e.g. while a child computes its
    bootstrap (background.py)."""

    compute: Callable[[], Any]


def then(value: Any, step: Callable[[Any], Any]) -> Any:
    """step(value), deferred when value is."""
    return Deferred(lambda: step(value.compute())) if isinstance(value, Deferred) else step(value)
