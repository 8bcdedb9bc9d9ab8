"""Flag types and spellings of the command line: range-checked numbers, judge arguments, lm-eval aliases,
and an argparse parser whose usage errors are one line with a did-you-mean (exit 2)."""

from __future__ import annotations

import argparse
import difflib
import math
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from judgebench.calls.options import RunnerOptions
from judgebench.core.errors import JudgebenchError
from judgebench.core.names import MAX_RESAMPLES
from judgebench.core.text import term_text
from judgebench.judges.args import parse_judge_args  # noqa: F401  (flags' users import it from here)

# Spellings users type from lm-eval habit -> ours (accepted as aliases: rewritten before parsing).
LM_EVAL_ALIASES = {"--output_path": "--output-path", "--include_path": "--include-path", "--model_args": "--judge-args"}
# lm-eval flags whose meaning differs here: answered with ours.
LM_EVAL_HINTS = {"--model": "--judge", "--batch_size": "--concurrency", "--batch-size": "--concurrency"}


class _DefaultsFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Adds "(default: X)" to a flag's help unless the help already states its default, or there is none to state
    (a required flag; an unset one, "(default: None)"; a switch that is off, "(default: False)"; a repeatable flag
    given no value, "(default: [])")."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if "default" in text.lower() or action.required or action.default is None or action.default is False \
                or action.default == []:  # (`is`: a default of 0 is stated)
            return text
        return super()._get_help_string(action)


_GIVEN: ContextVar[Sequence[str]] = ContextVar("given", default=())  # the arguments being parsed: a missing
# required flag looks for its misspelling there (one per thread or task: no parse sees another's arguments)


class Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line with exit code 2, with a did-you-mean."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)  # '--model' must not silently mean '--model_args'
        kwargs.setdefault("formatter_class", _DefaultsFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        raise JudgebenchError(f"{self.prog}: {message}{self._suggestion(message)}")

    def parse_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:  # type: ignore[override]
        """As argparse, but an unknown flag is reported by the (sub)command it was given to, with that
        command's own did-you-mean (`judgebench leaderboard --output-path` -> `--output-dir`)."""
        _GIVEN.set(list(sys.argv[1:] if args is None else args))  # (read by a subcommand's parser: _misspelt_required)
        namespace, extras = self.parse_known_args(args, namespace)
        if extras:
            self._command_parser(sys.argv[1:] if args is None else args)._unrecognized(extras)
        return namespace

    def _command_parser(self, argv: Sequence[str]) -> Parser:
        """The innermost subcommand parser named in argv (this parser when none is)."""
        parser: Parser = self
        for token in argv:
            choices = parser._subcommands()
            if token in choices:
                parser = choices[token]
        return parser

    def _subcommands(self) -> dict[str, Parser]:
        actions = self._subparsers._group_actions if self._subparsers else []
        return {name: p for action in actions for name, p in getattr(action, "choices", {}).items()}

    def _unrecognized(self, extras: Sequence[str]) -> None:
        self.error(f"unrecognized arguments: {' '.join(extras)}")

    def _suggestion(self, message: str) -> str:
        required = re.match(r"the following arguments are required: (.+)", message)
        if required:
            return self._misspelt_required(required.group(1).split(", "))
        match = re.match(r"unrecognized arguments: (\S+)", message)
        if not match:
            return ""
        flag = match.group(1).split("=")[0]
        parsers = [self, *self._subcommands().values()]
        known = [o for p in parsers for a in p._actions for o in a.option_strings if a.help != argparse.SUPPRESS]
        if LM_EVAL_HINTS.get(flag) in known:
            return f" (did you mean {LM_EVAL_HINTS[flag]}?)"
        others = [o for o in known if o not in (flag, "--help")]  # another command's flag never suggests itself
        close = difflib.get_close_matches(flag.replace("_", "-"), others, n=1, cutoff=0.6)
        return f" (did you mean {close[0]}?)" if close else ""

    def _misspelt_required(self, missing: list[str]) -> str:
        """A missing required flag given misspelt (`--task` for `--tasks`): argparse says only that it is missing."""
        known = {option for action in self._actions for option in action.option_strings}
        typed = [t.split("=")[0] for t in _GIVEN.get() if t.startswith("--") and t.split("=")[0] not in known]
        for flag in missing:
            close = difflib.get_close_matches(flag, typed, n=1, cutoff=0.6)
            if close:
                return f" ({close[0]} is not a flag of this command: did you mean {flag}?)"
        return ""


def _number(kind: type, minimum: float, *, strict: bool = False) -> Callable[[str], Any]:
    """An argparse type: a finite int/float >= minimum (> minimum when strict), else a one-line error."""
    bound = f"> {minimum:g}" if strict else f">= {minimum:g}"

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {'an integer' if kind is int else 'a number'}, got '{text}'") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number {bound}, got '{text}'")
        if value < minimum or (strict and value == minimum):
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


def limit_value(text: str) -> int | float:
    """--limit: N examples (an integer >= 1) or a fraction 0 < f < 1 of them (lm-eval's convention)."""
    try:
        return POSITIVE_INT(text)
    except argparse.ArgumentTypeError as exc:
        if re.fullmatch(r"\s*[+-]?\d+\s*", text):  # an integer below 1
            raise argparse.ArgumentTypeError(f"{exc} (or a fraction between 0 and 1)") from None
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1 or a fraction between 0 and 1, got '{text}'") from None
    if not (math.isfinite(value) and 0 < value < 1):
        raise argparse.ArgumentTypeError(f"must be an integer >= 1 or a fraction between 0 and 1, got '{text}'")
    return value
NON_NEGATIVE_INT = _number(int, 0)


def port_number(text: str) -> int:
    """A TCP port, 0-65535 (argparse type: a bad value is one usage line)."""
    if not (text.isascii() and text.isdigit()) or int(text) > 65535:  # (٨٠٨٠ read as 8080)
        raise argparse.ArgumentTypeError(f"expected a port number 0-65535, got {text!r}")
    return int(text)


POSITIVE_FLOAT = _number(float, 0.0, strict=True)
NON_NEGATIVE_FLOAT = _number(float, 0.0)


def resamples(text: str) -> int:
    """--bootstrap: bootstrap resamples, 0 to MAX_RESAMPLES."""
    value = NON_NEGATIVE_INT(text)
    if value > MAX_RESAMPLES:
        raise argparse.ArgumentTypeError(f"must be <= {MAX_RESAMPLES}, got '{text}'")
    return value


def PATH(text: str) -> Path:  # noqa: N802 - an argparse type, named like the others
    """A path flag: an empty value would silently mean the current folder."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a path, got an empty value")
    return Path(text)


def OUTPUT_DIR(text: str) -> Path:  # noqa: N802
    """A folder to write into: refused at once when something other than a folder is already there, or the
    nearest existing path above it is not a folder (the folder could never be made)."""
    path = PATH(text)
    if _kind(path, text) not in ("missing", "dir"):
        raise argparse.ArgumentTypeError(f"{text}: exists and is not a directory")
    _check_parent(path, text)
    return path


def OUTPUT_FILE(text: str) -> Path:  # noqa: N802
    """A file to write: refused at once when it is a folder, a symlink or anything but a regular file (a FIFO,
    /dev/null: the atomic write would replace it), or the nearest existing folder above it is not one."""
    path = PATH(text)
    kind = _kind(path, text)
    if kind == "dir":
        raise argparse.ArgumentTypeError(f"{text}: is a directory (name a file)")
    if kind == "other" and (path.is_symlink() or not path.is_file()):
        raise argparse.ArgumentTypeError(f"{text}: exists and is not a regular file (name a new or regular file)")
    _check_parent(path, text)
    return path


def _check_parent(path: Path, text: str) -> None:
    parent = next((folder for folder in path.parents if _kind(folder, text) != "missing"), None)
    if parent is not None and _kind(parent, text) != "dir":
        raise argparse.ArgumentTypeError(f"{text}: {parent} exists and is not a directory")


def _kind(path: Path, text: str) -> str:
    """"missing", "dir" or "other" (a file, FIFO, device); an unusable path (too long, ...) is a usage error."""
    try:  # a dangling symlink is "other": writing through it would fail or land elsewhere
        return "dir" if path.is_dir() else "other" if path.exists() or path.is_symlink() else "missing"
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"{text[:80]}: {exc.strerror or exc}") from None


def add_call_flags(p: argparse.ArgumentParser) -> None:
    """The call layer's flags every command that calls a model takes (`run`, `rubric run`, `pairs`): one name
    and one default each, the defaults being RunnerOptions' own."""
    p.add_argument("--concurrency", type=POSITIVE_INT, default=RunnerOptions.concurrency, help="calls in flight")
    p.add_argument("--timeout", type=POSITIVE_FLOAT, default=RunnerOptions.timeout_s, help="seconds per call attempt")
    p.add_argument("--max-retries", type=NON_NEGATIVE_INT, default=RunnerOptions.max_retries,
                   help="retries on 429/5xx/timeouts/connection errors")
    p.add_argument("--max-failures", type=POSITIVE_INT, help="stop cleanly after K failed calls")
    p.add_argument("--cache-dir", type=PATH, help="answer cache folder (default: the user cache dir)")
    p.add_argument("--no-cache", action="store_true", help="neither read nor write the answer cache")
    p.add_argument("--quiet", "--no-progress", dest="quiet", action="store_true", help="no progress bar (CI)")


# RunnerOptions field <- the flag's argparse name, for the call flags a command may define (add_call_flags and
# `run`'s own); `use_cache` and `progress` are the negations of --no-cache and --quiet.
RUNNER_FLAGS = {"concurrency": "concurrency", "timeout_s": "timeout", "max_retries": "max_retries", "reask": "reask",
                "max_failures": "max_failures", "rpm": "rpm", "tpm": "tpm", "refresh_cache": "refresh_cache",
                "cache_dir": "cache_dir", "batch": "batch", "batch_poll_s": "batch_poll_s", "max_cost": "max_cost"}


# A run's options (judging.pipeline.RunRequest's fields) <- the `run` flags: the same names but for these two, and
# two negations; PER_JUDGE fields are set per task and judge, not from one flag.
RUN_FLAG_NAMES = {"include_paths": "include_path", "n_resamples": "bootstrap"}
RUN_NEGATED = {"swap": "no_swap", "log_text": "no_log_text"}
PER_JUDGE = {"task", "judge", "output_path", "judge_args", "judge_object", "judge_name", "runner", "on_warning"}


def run_options(args: argparse.Namespace, fields: Iterable[str]) -> dict[str, Any]:
    """The one place the `run` flags become the run's options (RunRequest's field names, as `evaluate` takes them)."""
    return {name: (not getattr(args, RUN_NEGATED[name])) if name in RUN_NEGATED else getattr(args, RUN_FLAG_NAMES.get(name, name))
            for name in fields if name not in PER_JUDGE}


def runner_options(args: argparse.Namespace) -> RunnerOptions:
    """The one place a command's flags become RunnerOptions (the flags it does not define keep the defaults)."""
    values: dict[str, Any] = {name: getattr(args, flag) for name, flag in RUNNER_FLAGS.items() if hasattr(args, flag)}
    if hasattr(args, "no_cache"):
        values["use_cache"] = not args.no_cache
    values["progress"] = not getattr(args, "quiet", False)  # (RunnerOptions' own default is a library's: off)
    return RunnerOptions(**values)


def normalize_aliases(argv: Sequence[str]) -> list[str]:
    """Rewrite lm-eval spellings (`--output_path x`, `--model_args=...`) to ours."""
    out = []
    for token in argv:
        flag, sep, value = token.partition("=")
        out.append(LM_EVAL_ALIASES.get(flag, flag) + sep + value if flag in LM_EVAL_ALIASES else token)
    return out


_warned: set[str] = set()


def warn(message: str) -> None:
    """A one-line warning on stderr (the run goes on), once per command: several judges' runs of one task load the
    same data and would each say the same thing."""
    line = f"judgebench: warning: {term_text(message, 2000)}"
    if line not in _warned:
        _warned.add(line)
        print(line, file=sys.stderr)


def forget_warnings() -> None:
    """A new command: every warning may be said again."""
    _warned.clear()
