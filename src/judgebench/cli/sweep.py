"""`run --sweep KEY=V1,V2,...`: one judge run at each setting of one judge argument (publish/sweep.py writes
the curves). Every setting is an ordinary run in OUT/<KEY>=<V>/ through the shared answer cache."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from judgebench.core.errors import JudgebenchError
from judgebench.judges.args import RUNNER_ARGS


def parse_sweep(text: str) -> tuple[str, list[str]]:
    """'reasoning_effort=low,medium,high' -> ('reasoning_effort', ['low', 'medium', 'high'])."""
    key, sep, values = text.partition("=")
    key = key.strip()
    settings = [v.strip() for v in values.split(",") if v.strip()]
    if not sep or not key or not settings:
        raise JudgebenchError(f"--sweep: expected KEY=V1,V2,..., got {text!r}")
    if key in RUNNER_ARGS:
        raise JudgebenchError(f"--sweep: {key} belongs to the runner ({RUNNER_ARGS[key]}), not the judge")
    if len(set(settings)) != len(settings):
        raise JudgebenchError(f"--sweep: a value of {key} is given twice")
    return key, settings


def run_sweep(sweep: str, task: str, judge: Any, output_path: Path, options: dict[str, Any],
              print_run: Callable[[Any], int]) -> int:
    """Run `judge` at each setting, then write sweep.json, sweep.md and sweep.png; the worst exit code."""
    from judgebench.api import evaluate
    from judgebench.core.rundir import SAMPLES_FILE, read_samples
    from judgebench.publish.sweep import setting_folder, sweep_row, write_sweep

    key, settings = parse_sweep(sweep)
    if key in judge.judge_args:
        raise JudgebenchError(f"--sweep: {key} is also in --judge-args (give it once)")
    status, rows = 0, []
    for value in settings:
        folder = setting_folder(key, value)
        summary = evaluate(task, judge.judge, output_path=output_path / folder,
                           judge_args={**judge.judge_args, key: value}, **options)
        status = max(status, print_run(summary))
        records = read_samples(output_path / folder / SAMPLES_FILE, lean=True)
        rows.append(sweep_row(key, value, folder, summary.result, summary.stopped, records))
        if summary.stopped:
            break
    write_sweep(output_path, rows)
    print(f"wrote {output_path / 'sweep.md'} ({len(rows)} of {len(settings)} settings)")
    return status
