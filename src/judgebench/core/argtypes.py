"""Python callers' arguments checked against a dataclass's type hints, in one line naming the keyword.

The command line's parser gives every option its type; a Python caller can pass anything (`limit="3"`,
`seed="x"`, `judge_args=[...]`, `both_bad="bogus"`), which met a raw TypeError deep inside or, worse, was taken
(a Literal outside its values ran as the default). `check_field_types` refuses such a value before any work.
What stands for a value without loss is taken and stored in the hinted type: numpy's integers, floats and bools
(a notebook's `limit=np.int64(3)`), a str or path-like object for a Path, a tuple for a list, any mapping for a
dict. Hints it cannot resolve (names imported only for type checking) and types it does not know are not
checked.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import numbers
import operator
import os
import sys
import types
import typing
from pathlib import Path
from typing import Any

from judgebench.core.errors import JudgebenchError, one_line

_UNCHECKED = object()  # a hint that cannot be resolved here
REFUSED = object()  # a value its hint does not allow


def check_field_types(instance: Any, caller: str) -> None:
    """Refuse a dataclass instance whose field holds a value its type hint does not allow:
    `CALLER: KEYWORD must be TYPE, got TYPE VALUE`; a value that stands for an allowed one is stored as it."""
    for field in dataclasses.fields(instance):
        hint = _resolve(type(instance), field.type)
        if hint is _UNCHECKED:
            continue
        value = getattr(instance, field.name)
        fitted = fitted_or_refused(hint, value, f"{caller}: {field.name}")
        if fitted is not value:
            setattr(instance, field.name, fitted)


def fitted_or_refused(hint: Any, value: Any, where: str) -> Any:
    """`value` in the hinted type (`fit`), else `WHERE must be TYPE, got TYPE VALUE` as a JudgebenchError."""
    fitted = fit(hint, value)
    if fitted is REFUSED:
        raise JudgebenchError(f"{where} must be {describe(hint)}, got {type(value).__name__} {shown(value)}")
    return fitted


def shown(value: Any) -> str:
    """A value as a message quotes it: its repr on one line, cut to 60 characters."""
    return one_line(repr(value), 60)


def fit(hint: Any, value: Any) -> Any:
    """`value` in the hinted type (itself when it already is), or REFUSED. A list's items are fitted too; other
    containers are checked on the outside only; unknown hints allow anything."""
    origin = typing.get_origin(hint)
    if hint is Any or hint is _UNCHECKED:
        return value
    if hint is None or hint is type(None):
        return value if value is None else REFUSED
    if origin is typing.Literal:
        return value if any(value == choice and isinstance(value, type(choice)) for choice in typing.get_args(hint)) else REFUSED
    if origin in (typing.Union, types.UnionType):
        for option in typing.get_args(hint):
            fitted = fit(option, value)
            if fitted is not REFUSED:
                return fitted
        return REFUSED
    if hint in (bool, int, float):
        return _number(hint, value)
    if hint is Path:
        if isinstance(value, Path):
            return value
        text = os.fspath(value) if isinstance(value, (str, os.PathLike)) else None
        return Path(text) if isinstance(text, str) else REFUSED  # (a path-like object giving bytes: refused)
    if origin is collections.abc.Callable or hint is collections.abc.Callable:
        return value if callable(value) else REFUSED
    if origin is list or hint is list:
        return _items(typing.get_args(hint), value)
    if origin is dict or hint is dict:
        return value if isinstance(value, dict) else dict(value) if isinstance(value, collections.abc.Mapping) else REFUSED
    if origin is not None:
        return value if not isinstance(origin, type) or isinstance(value, origin) else REFUSED
    return value if not isinstance(hint, type) or isinstance(value, hint) else REFUSED


def _items(args: tuple, value: Any) -> Any:
    """A list (or tuple) as a list, each item fitted to the item hint when there is one."""
    if not isinstance(value, (list, tuple)):
        return REFUSED
    items = [fit(args[0], item) for item in value] if args else list(value)
    if any(item is REFUSED for item in items):
        return REFUSED
    same = isinstance(value, list) and all(a is b for a, b in zip(items, value))
    return value if same else items


def is_boolean(value: Any) -> bool:
    """A Python or numpy bool (numpy's checked by name: this module does not import numpy)."""
    return isinstance(value, bool) or (type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_"))


def _number(hint: type, value: Any) -> Any:
    """A bool, int or float, from Python's or numpy's (np.bool_, np.int64, np.float32): bools are no numbers here,
    and an int is a float (3 for a float stays 3)."""
    is_bool = is_boolean(value)
    if hint is bool:
        return value if isinstance(value, bool) else bool(value) if is_bool else REFUSED
    if is_bool or isinstance(value, (str, bytes)):
        return REFUSED
    if isinstance(value, numbers.Integral):
        return value if type(value) is int else operator.index(value)
    if hint is float and isinstance(value, numbers.Real):
        return value if isinstance(value, float) else float(value)
    return REFUSED


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
    if origin is list and typing.get_args(hint):
        return f"a list of {describe(typing.get_args(hint)[0])}"
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
