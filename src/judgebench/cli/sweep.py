"""`run --sweep KEY=V1,V2,...`: one judge run at each setting of one judge argument (publish/sweep.py writes
the curves). Every setting is an ordinary run in OUT/<KEY>=<V>/ through the shared answer cache."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from judgebench.core.errors import JudgebenchError
from judgebench.core.names import is_builtin
from judgebench.core.text import term_text
from judgebench.judges.args import RUNNER_ARGS


def parse_sweep(text: str) -> tuple[str, list[str]]:
    """'reasoning_effort=low,medium,high' -> ('reasoning_effort', ['low', 'medium', 'high'])."""
    key, sep, values = text.partition("=")
    key = key.strip()
    settings = [v.strip() for v in _top_level_items(values) if v.strip()]
    if not sep or not key or not settings:
        raise JudgebenchError(f"--sweep: expected KEY=V1,V2,..., got {text!r}")
    if key in RUNNER_ARGS:
        raise JudgebenchError(f"--sweep: {key} belongs to the runner ({RUNNER_ARGS[key]}), not the judge")
    if len(set(settings)) != len(settings):
        raise JudgebenchError(f"--sweep: a value of {key} is given twice")
    return key, settings


def _top_level_items(text: str) -> list[str]:
    """`text` split at the commas outside JSON brackets and strings: `{"top_k":1,"min_p":0.1},{"top_k":2}` is two
    values (a comma inside one had cut it in two)."""
    items, depth, quoted, escaped, start = [], 0, False, False, 0
    for i, char in enumerate(text):
        if quoted:
            escaped, quoted = (not escaped and char == "\\"), quoted and not (char == '"' and not escaped)
        elif char == '"':
            quoted = True
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth = max(depth - 1, 0)
        elif char == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    return [*items, text[start:]]


def run_sweep(sweep: str, task: str, judge: Any, output_path: Path, options: dict[str, Any],
              print_run: Callable[[Any], int]) -> int:
    """Run `judge` at each setting (api.sweep), printing each run; the worst exit code."""
    from judgebench.api import sweep as run_settings

    key, settings = parse_sweep(sweep)
    if key in judge.judge_args:
        given = f"its configuration file {judge.source}" if judge.source else "--judge-args"  # (an attack: a file's
        raise JudgebenchError(f"--sweep: {key} is also in {given} (give it once)")  # was worded as --judge-args)
    if is_builtin(judge.judge):  # (else refused as `--judge-args is not used ...`, a flag not given)
        raise JudgebenchError(f"--sweep: built-in judge {term_text(judge.judge)} takes no arguments to sweep")
    statuses: list[int] = []
    rows = run_settings(task, judge.judge, key, settings, output_path=output_path, judge_args=judge.judge_args,
                        on_run=lambda summary: statuses.append(print_run(summary)), judge_name=judge.name,
                        **{**options, "prompt": judge.prompt or options["prompt"]})  # (a configuration file's: an
    # audit found a sweep of a named configuration run under no name and with the task's prompt)
    print(f"wrote {term_text(output_path)}/sweep.json, sweep.md and sweep.png ({len(rows)} of {len(settings)} settings)")
    return max(statuses, default=0)
