"""Several judges in one run (`run --judge A --judge B ...` or `--judges-file`), and `run --panel`.

    OUT/<judge-name>/   one ordinary run directory per judge (results.json, samples.jsonl, ...)
    OUT/judges.json     the summary: each judge, its folder, headline, counts, usage, why it stopped
    OUT/panel/          with --panel AGGREGATE: a panel of the judges' runs (panel.py; no new calls)

Each judge's folder name comes from its id (`openai/gpt-4.1` -> `openai-gpt-4.1`; characters
outside [A-Za-z0-9._-] become `-`, a name given twice gets `-2`, `-3`, ...), is never `panel` or
empty, and is checked to stay under OUT. Every judge is built and preflighted (credentials) before
the first call of any of them.

The judges share one answer cache and take turns: each judge's run gets the whole --concurrency
(and --rpm / --tpm) in its turn, so the calls in flight never exceed the flag and no judge waits
behind another's queue for more than its turn. Turns keep each judge's run exactly what a
single-judge run is (the kill-safe call worker, Ctrl-C handling, partial results); the cost is that
judges on different providers do not overlap (scripts/bench_multi.py measures it). An interrupted
judge ends the run (the judges after it are listed as not run); a judge stopped for --max-failures
or low coverage does not stop the others.

--max-cost caps the whole multi-judge run, not each judge: every judge must be priced (checked
before any call), each judge's run gets the cap minus what the judges before it paid (their
non-cached calls' recorded cost), and the judge that reaches it ends the run like an interruption
(its partial results written, the judges after it not run, no panel, exit 1).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from judgebench.core.errors import JudgebenchError
from judgebench.core.files import (
    check_output_dir,
    is_inside,
    refuse_output_over_inputs,
    write_json,
)
from judgebench.core.records import Aggregate, RunResult
from judgebench.core.rundir import REPEATS_FILE, SAMPLES_FILE, UNLABELLED_FILE, check_run_files, writing_run
from judgebench.judges.args import parse_judge_args
from judgebench.judges.config import JudgeConfig, is_config_path, read_judge_configs
from judgebench.tasks.request import replayed_run

SUMMARY_FILE = "judges.json"
PANEL_DIR = "panel"
JUDGE_KEYS = ("judge", "judge_args")


JudgeChoice = JudgeConfig  # one judge of a multi-judge run: its id, `--judge-args`, name, prompt (judges/config.py)


@dataclass
class MultiSummary:
    """What a multi-judge run did: one RunSummary per judge that ran, the panel, the summary file."""

    runs: list[Any]  # pipeline.RunSummary, in the judges' order
    not_run: list[str]  # judges never started (an earlier judge was interrupted)
    summary_path: Path
    panel: RunResult | None = None
    panel_dir: Path | None = None
    panel_skipped: str | None = None  # why --panel built nothing


def judges_from_flags(judges: Sequence[str], judge_args: str | None, judges_file: Path | None) -> list[JudgeChoice]:
    """The judges named by repeated --judge (ids, with --judge-args; or configuration files and folders,
    --judge-args under their own arguments) and by --judges-file, in that order."""
    shared = parse_judge_args(judge_args)
    chosen: list[JudgeChoice] = []
    for value in judges:
        if is_config_path(value):
            chosen += [replace(c, judge_args={**shared, **c.judge_args}) for c in read_judge_configs(Path(value))]
        else:
            chosen.append(JudgeChoice(value, dict(shared)))
    if judges_file is not None:
        chosen += read_judges_file(judges_file)
    if not chosen:
        raise JudgebenchError("run: give a judge (--judge, repeatable, or --judges-file)")
    return chosen


def read_judges_file(path: Path) -> list[JudgeChoice]:
    """Judge configurations (judges/config.py: one, a list, or a folder of files); one-line errors naming
    the file and entry."""
    return read_judge_configs(path, "--judges-file")


def judge_dir_names(judges: Sequence[str]) -> list[str]:
    """A distinct, safe folder name per judge id (see the module docstring)."""
    names: list[str] = []
    for judge in judges:
        slug = re.sub(r"[^A-Za-z0-9._-]+", "-", judge).strip("-.")[:80] or "judge"
        if slug.lower() == PANEL_DIR:
            slug = f"judge-{slug}"
        name, n = slug, 1
        while name.lower() in (x.lower() for x in names):
            n += 1
            name = f"{slug}-{n}"
        names.append(name)
    return names


def run_judges(
    base: Any,
    judges: Sequence[JudgeChoice],
    *,
    panel: Aggregate | None = None,
    on_run: Callable[[Any], None] | None = None,
) -> MultiSummary:
    """Run `base` (a pipeline.RunRequest; its judge is replaced) once per judge under base.output_path."""
    if panel is not None and len(judges) < 2:  # (before any call: it ran the judge, then said "no panel")
        raise JudgebenchError(f"--panel needs at least two judges, got {len(judges)}: a panel of one judge is that judge")
    check_output_dir(base.output_path)
    with writing_run(base.output_path):  # one run at a time writes judges.json and panel/ (and each judge's folder)
        return _run_judges(base, judges, panel, on_run)


def _run_judges(base: Any, judges: Sequence[JudgeChoice], panel: Aggregate | None,
                on_run: Callable[[Any], None] | None) -> MultiSummary:
    from judgebench.calls.budget import check_cap
    from judgebench.judges import make_judge
    from judgebench.judging.pipeline import run_task, run_template

    root = base.output_path
    names = judge_dir_names([j.name or j.judge for j in judges])
    replayed = [run for choice in judges if (run := replayed_run(choice.judge)) is not None]  # a judge's folder is
    # never a run a replay judge reads (an attack: a co-judge named like the replayed run wrote over it)
    refuse_output_over_inputs([("--output-path (a judge's folder)", root / name) for name in [*names, PANEL_DIR]], [],
                              replayed)
    for name in [*names, PANEL_DIR]:  # every folder this run writes, before any judge's calls (the second judge's
        check_run_files(root / name)  # was refused after the first had been paid for)
    cap = base.runner.max_cost
    # before any call: every judge buildable, priced under --max-cost, its credentials present, its prompt read
    for choice in judges:
        judge = choice.judge_object or make_judge(choice.judge, choice.judge_args, seed=base.seed)
        check_cap(judge, cap)
        judge.preflight()
        try:
            run_template(replace(base, prompt=choice.prompt or base.prompt))
        except JudgebenchError as exc:
            raise JudgebenchError(f"judge {choice.name or choice.judge}: {exc}") from None
    runs: list[Any] = []
    spent = 0.0
    for choice, name in zip(judges, names):
        folder = root / name
        if not is_inside(folder, root):
            raise JudgebenchError(f"--output-path {root}: judge {choice.judge!r} would write outside it")
        if cap is not None and cap - spent <= 0:
            break  # the cap is spent: the judges left are listed as not run
        runner = base.runner if cap is None else replace(base.runner, max_cost=cap - spent)
        one = replace(base, judge=choice.judge, judge_args=dict(choice.judge_args), output_path=folder, runner=runner,
                      judge_object=choice.judge_object, judge_name=choice.name or base.judge_name,
                      prompt=choice.prompt or base.prompt)
        summary = run_task(one)
        runs.append(summary)
        spent += new_spend(folder)
        if on_run is not None:
            on_run(summary)
        if summary.stopped and summary.stopped.startswith(("interrupted", "max cost")):
            break
    not_run = [j.name or j.judge for j in judges[len(runs):]]
    done = MultiSummary(runs, not_run, root / SUMMARY_FILE)
    if panel is not None:
        _add_panel(done, panel, root, base)
    write_json(done.summary_path, summary_json(done, names))
    return done


def new_spend(run_dir: Path) -> float:
    """USD paid by this run's calls (samples, repeats and unlabelled judgments; answers from the cache cost nothing,
    and a re-ask chain resumed from the cache only its new answers)."""
    from judgebench.core.files import read_json_objects

    total = 0.0
    for name in (SAMPLES_FILE, REPEATS_FILE, UNLABELLED_FILE):
        path = run_dir / name
        if path.exists():
            rows = (row for _, row in read_json_objects(path))
            total += sum(max(0.0, float(row.get("cost_usd") or 0.0) - float(row.get("cached_cost_usd") or 0.0))
                         for row in rows if not row.get("cached"))
    return total


def _add_panel(done: MultiSummary, aggregate: Aggregate, root: Path, base: Any) -> None:
    """The panel of the judges' runs (no calls); skipped, with the reason, when a judge did not run."""
    from judgebench.judging.panel import build_panel

    if done.not_run or len(done.runs) < 2:
        done.panel_skipped = "--panel needs every judge's run" + (
            f" ({len(done.not_run)} judges were not run)" if done.not_run else ""
        )
        return
    try:
        done.panel = build_panel(
            [run.run_dir for run in done.runs], aggregate, root / PANEL_DIR,
            include_paths=base.include_paths, n_resamples=base.n_resamples, on_warning=base.on_warning,
        )
        done.panel_dir = root / PANEL_DIR
    except JudgebenchError as exc:  # e.g. two judges gave the same answers: the runs stay, the reason is told
        done.panel_skipped = str(exc)


def summary_json(done: MultiSummary, names: Sequence[str]) -> dict[str, Any]:
    """judges.json: per judge its folder, headline, counts, usage and stop reason; the panel's folder."""
    rows = []
    for run, name in zip(done.runs, names):
        result = run.result
        headline = result.config.headline
        scope = "mean" if "mean" in result.metrics else next(iter(result.metrics), None)
        value = result.metrics.get(scope or "", {}).get(headline)
        rows.append(
            {
                "judge": result.config.judge,
                "name": result.config.judge_name,
                "config_hash": result.config.judge_config_hash,
                "run_dir": name,
                "headline": headline,
                "headline_value": value.value if value else None,  # over "mean" of several dimensions
                "counts": result.counts.model_dump(mode="json"),
                "usage": result.usage.model_dump(mode="json"),
                "calls_made": run.calls_made,
                "stopped": run.stopped,
                "coverage_failure": run.coverage_failure,
            }
        )
    return {
        "judges": rows,
        "not_run": done.not_run,
        "panel": None if done.panel_dir is None else {"run_dir": PANEL_DIR, "aggregate": done.panel.config.aggregate if done.panel else None},
        "panel_skipped": done.panel_skipped,
    }
