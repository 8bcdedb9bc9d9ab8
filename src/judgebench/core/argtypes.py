"""Python callers' arguments checked against a dataclass's type hints, in one line naming the keyword.

The command line's parser gives every option its type; a Python caller can pass anything (`limit="3"`,
`seed="x"`, `judge_args=[...]`, `both_bad="bogus"`), which met a raw TypeError deep inside or, worse, was taken
(a Literal outside its values ran as the default). `check_field_types` refuses such a value before any work.
Hints it cannot resolve (names imported only for type checking) and types it does not know are not checked.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import sys
import types
import typing
from pathlib import Path
from typing import Any

from judgebench.core.errors import JudgebenchError

_UNCHECKED = object()  # a hint that cannot be resolved here


def check_field_types(instance: Any, caller: str) -> None:
    """Refuse a dataclass instance whose field holds a value its type hint does not allow:
    `CALLER: KEYWORD must be TYPE, got TYPE VALUE`."""
    for field in dataclasses.fields(instance):
        hint = _resolve(type(instance), field.type)
        if hint is _UNCHECKED:
            continue
        value = getattr(instance, field.name)
        if not allows(hint, value):
            shown = repr(value)
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            raise JudgebenchError(f"{caller}: {field.name} must be {describe(hint)}, got {type(value).__name__} {shown}")


def allows(hint: Any, value: Any) -> bool:
    """Whether `value` fits `hint` (unknown hints allow anything; containers are checked on the outside only)."""
    origin = typing.get_origin(hint)
    if hint is Any or hint is _UNCHECKED:
        return True
    if hint is None or hint is type(None):
        return value is None
    if origin is typing.Literal:
        return any(value == choice and type(value) is type(choice) for choice in typing.get_args(hint))
    if origin in (typing.Union, types.UnionType):
        return any(allows(option, value) for option in typing.get_args(hint))
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is Path:
        return isinstance(value, Path)
    if origin is collections.abc.Callable or hint is collections.abc.Callable:
        return callable(value)
    if origin is not None:
        return isinstance(value, origin) if isinstance(origin, type) else True
    return isinstance(value, hint) if isinstance(hint, type) else True


def describe(hint: Any) -> str:
    """A hint as a reader says it: `int or None`, `'tie' or 'exclude' or None`, `a dict`."""
    origin = typing.get_origin(hint)
    if hint is None or hint is type(None):
        return "None"
    if origin is typing.Literal:
        return " or ".join(repr(choice) for choice in typing.get_args(hint))
    if origin in (typing.Union, types.UnionType):
        return " or ".join(describe(option) for option in typing.get_args(hint))
    if origin is collections.abc.Callable or hint is collections.abc.Callable:
        return "a function"
    if origin is not None:
        return f"a {getattr(origin, '__name__', str(origin))}"
    return getattr(hint, "__name__", str(hint))


def _resolve(owner: type, hint: Any) -> Any:
    """A field's hint as a type: a string hint (`from __future__ import annotations`) evaluated in the module
    of the class that declared it; _UNCHECKED when it names what that module imports only for type checking."""
    if not isinstance(hint, str):
        return hint
    for cls in owner.__mro__:
        module = sys.modules.get(cls.__module__)
        if module is None or hint not in _own_hints(cls):
            continue
        try:
            return eval(hint, vars(typing) | vars(module))  # noqa: S307 - our own source's annotations, not input
        except Exception:  # a name imported only under TYPE_CHECKING
            return _UNCHECKED
    return _UNCHECKED


def _own_hints(cls: type) -> set[str]:
    return {hint for hint in getattr(cls, "__annotations__", {}).values() if isinstance(hint, str)}
