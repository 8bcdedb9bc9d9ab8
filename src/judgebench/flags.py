"""Flag types and spellings of the command line: range-checked numbers, judge arguments, lm-eval aliases,
and an argparse parser whose usage errors are one line with a did-you-mean (exit 2)."""

from __future__ import annotations

import argparse
import difflib
import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .errors import JudgebenchError

# Spellings users type from lm-eval habit -> ours (accepted as aliases: rewritten before parsing).
LM_EVAL_ALIASES = {"--output_path": "--output-path", "--include_path": "--include-path", "--model_args": "--judge-args"}
# lm-eval flags whose meaning differs here: answered with ours.
LM_EVAL_HINTS = {"--model": "--judge", "--batch_size": "--concurrency", "--batch-size": "--concurrency"}


class Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line with exit code 2, with a did-you-mean."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)  # '--model' must not silently mean '--model_args'
        kwargs.setdefault("formatter_class", argparse.ArgumentDefaultsHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        raise JudgebenchError(f"{self.prog}: {message}{self._suggestion(message)}")

    def _suggestion(self, message: str) -> str:
        match = re.match(r"unrecognized arguments: (\S+)", message)
        if not match:
            return ""
        flag = match.group(1).split("=")[0]
        if flag in LM_EVAL_HINTS:
            return f" (did you mean {LM_EVAL_HINTS[flag]}?)"
        known = [o for action in self._actions for o in action.option_strings if action.help != argparse.SUPPRESS]
        for sub in self._subparsers._group_actions if self._subparsers else []:
            for parser in getattr(sub, "choices", {}).values():
                known += [o for a in parser._actions for o in a.option_strings if a.help != argparse.SUPPRESS]
        close = difflib.get_close_matches(flag.replace("_", "-"), known, n=1, cutoff=0.6)
        return f" (did you mean {close[0]}?)" if close else ""


def _number(kind: type, minimum: float, *, strict: bool = False) -> Callable[[str], Any]:
    """An argparse type: a finite int/float >= minimum (> minimum when strict), else a one-line error."""
    bound = f"> {minimum:g}" if strict else f">= {minimum:g}"

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {'an integer' if kind is int else 'a number'}, got '{text}'") from None
        if not math.isfinite(value) or value < minimum or (strict and value == minimum):
            raise argparse.ArgumentTypeError(f"must be {bound}, got '{text}'")
        return value

    parse.__name__ = kind.__name__
    return parse


def fraction(text: str) -> float:
    value = _number(float, 0.0)(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be a fraction between 0 and 1, got '{text}'")
    return value


POSITIVE_INT = _number(int, 1)
NON_NEGATIVE_INT = _number(int, 0)
POSITIVE_FLOAT = _number(float, 0.0, strict=True)
NON_NEGATIVE_FLOAT = _number(float, 0.0)


def PATH(text: str) -> Path:  # noqa: N802 - an argparse type, named like the others
    """A path flag: an empty value would silently mean the current folder."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a path, got an empty value")
    return Path(text)


def parse_judge_args(text: str | None) -> dict[str, str]:
    """'temperature=0,max_tokens=512' -> {'temperature': '0', 'max_tokens': '512'} (typed by the judge)."""
    args: dict[str, str] = {}
    for part in filter(None, (text or "").split(",")):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise JudgebenchError(f"--judge-args: expected key=value, got '{part}'")
        if key.strip() in args:
            raise JudgebenchError(f"--judge-args: key '{key.strip()}' is given twice")
        args[key.strip()] = value.strip()
    return args


def normalize_aliases(argv: Sequence[str]) -> list[str]:
    """Rewrite lm-eval spellings (`--output_path x`, `--model_args=...`) to ours."""
    out = []
    for token in argv:
        flag, sep, value = token.partition("=")
        out.append(LM_EVAL_ALIASES.get(flag, flag) + sep + value if flag in LM_EVAL_ALIASES else token)
    return out
