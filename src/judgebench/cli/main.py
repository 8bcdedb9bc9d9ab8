"""The `judgebench` command line. Each subcommand parses its flags and calls one module.

Exit codes: 0 done; 1 a run stopped early (partial results written); 2 bad input or usage.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from judgebench.calls.options import RunnerOptions
from judgebench.cli import interrupts
from judgebench.cli.arena import add_parser as _add_arena_parser
from judgebench.cli.flags import (
    NON_NEGATIVE_FLOAT,
    NON_NEGATIVE_INT,
    OUTPUT_DIR,
    OUTPUT_FILE,
    PATH,
    POSITIVE_FLOAT,
    POSITIVE_INT,
    Parser,
    add_call_flags,
    forget_warnings,
    fraction,
    limit_value,
    normalize_aliases,
    resamples,
    run_options,
    runner_options,
    warn,
)
from judgebench.cli.rubric import add_parser as add_rubric_parser
from judgebench.cli.run_summary import format_summary
from judgebench.cli.view import add_parser as _add_view_parser
from judgebench.core import allocator, preload
from judgebench.core.errors import (
    MESSAGE_MAX,
    JudgebenchError,
    NumericError,
    describe_os_error,
    one_line,
)
from judgebench.core.secrets import command_line_secrets, scrub_error_line
from judgebench.core.text import term_text
from judgebench.core.version import __version__

EXIT_STOPPED = 1
EXIT_USAGE = 2


def _add_run_parser(sub: Any) -> None:
    p = sub.add_parser("run", help="judge every example of one or more tasks and score the judge")
    p.add_argument("--tasks", required=True, help="comma-separated task names (see `judgebench tasks`) or task YAML paths")
    p.add_argument("--judge", action="append", default=[], help="litellm model id (openai/gpt-4.1, ...), builtin/NAME, or a judge configuration CONFIG.yaml / a folder of them; repeat it for several judges (a folder each)")
    p.add_argument("--judges-file", type=PATH, help="YAML judge configurations {judge: ID, judge_args: {k: v}, name: ..., prompt: ..., price: ...}: more judges (docs/guide/running-judges.md)")
    p.add_argument("--panel", choices=["majority", "mean", "unanimous-else-tie"], help="with several judges: also build OUTPUT/panel from their runs (no new calls)")
    p.add_argument("--repeats", type=POSITIVE_INT, default=1, help="sample each judgment N times (stability figures; main metrics: repeat 0)")
    p.add_argument("--judge-args", help="k=v,... passed to the judge: temperature, max_tokens, api_base, ...")
    p.add_argument("--output-path", required=True, type=OUTPUT_DIR, help="run directory (a subfolder per task when several)")
    p.add_argument("--demo", action="store_true", help="use the task's bundled demo split (offline)")
    p.add_argument("--dataset-path", help="local jsonl/json/parquet/csv file or folder, or another Hub id")
    p.add_argument("--split", help="split to evaluate (default: the task's)")
    p.add_argument("--revision", help="Hub revision to load (default: the task's pinned one)")
    p.add_argument("--include-path", type=PATH, action="append", default=[], help="folder of extra task YAMLs")
    p.add_argument("--limit", type=limit_value, help="evaluate only the first N examples, or a fraction 0<f<1 of them (marked, never ranked among full runs)")
    p.add_argument("--no-swap", action="store_true", help="judge only the dataset's order (no A/B swap)")
    p.add_argument("--seed", type=NON_NEGATIVE_INT, default=0, help="seed for random judges and bootstrap intervals")
    p.add_argument("--prompt", help="prompt template file (default: the task's)")
    p.add_argument("--dimension-mode", choices=["separate", "joint"], help="multi-dimension tasks: one call per dimension or one for all")
    p.add_argument("--both-bad", choices=["tie", "exclude"], help="how Both Bad labels are scored (default: the task's)")
    p.add_argument("--bootstrap", type=resamples, default=1000, help="bootstrap resamples for confidence intervals")
    add_call_flags(p)
    p.add_argument("--reask", type=NON_NEGATIVE_INT, default=RunnerOptions.reask, help="ask again up to N times when an answer does not parse")
    p.add_argument("--min-coverage", type=fraction, help="exit 1 when the answered share of judgments is below this (default: fail only when nothing was answered)")
    p.add_argument("--rpm", type=POSITIVE_INT, help="requests per minute limit")
    p.add_argument("--tpm", type=POSITIVE_INT, help="tokens per minute limit")
    p.add_argument("--refresh-cache", action="store_true", help="ignore cached answers, store new ones")
    p.add_argument("--no-log-text", action="store_true", help="leave the question and responses out of samples.jsonl")
    p.add_argument("--judge-unlabelled", action="store_true",
                   help="judge examples without a label too, into unlabelled.jsonl (never scored; for arena --judge-run)")
    p.add_argument("--batch", action="store_true", help="send the calls through the provider's batch API (openai/, azure/)")
    p.add_argument("--shard", help="K/N: judge only the K-th of N contiguous blocks of examples (see `judgebench merge`)")
    p.add_argument("--batch-poll-s", type=POSITIVE_FLOAT, default=RunnerOptions.batch_poll_s, help="seconds between batch status polls")
    p.add_argument("--dry-run", action="store_true", help="print the calls, tokens and cost a run would spend; call nothing")
    p.add_argument("--max-cost", type=POSITIVE_FLOAT, help="USD: stop cleanly before the estimated spend would pass it (exit 1)")
    p.add_argument("--sweep", help="KEY=V1,V2,...: run the judge at each value of one judge argument (OUTPUT/KEY=V/, sweep.md/json/png)")
    p.set_defaults(handler=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    from judgebench.api import evaluate
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    if not tasks:
        raise JudgebenchError("--tasks: no task named")
    refuse_repeated_tasks(tasks)
    if args.demo and args.dataset_path:
        raise JudgebenchError("--demo and --dataset-path exclude each other")
    runner = runner_options(args)
    from judgebench.judging.multirun import judges_from_flags

    judges = judges_from_flags(args.judge, args.judge_args, args.judges_file)
    from dataclasses import fields

    from judgebench.judging.pipeline import RunRequest

    options = {**run_options(args, (f.name for f in fields(RunRequest))), "runner": runner, "on_warning": warn}
    if getattr(args, "sweep", None):  # issue 34: budgets as curves (cli/sweep.py)
        if len(tasks) > 1 or len(judges) > 1 or args.panel or args.dry_run:
            raise JudgebenchError("--sweep: one task and one judge, without --panel or --dry-run")
        from judgebench.cli.sweep import run_sweep

        return run_sweep(args.sweep, tasks[0], judges[0], args.output_path, options, print_run)
    if args.dry_run:
        return dry_run_command(tasks, judges, args.output_path, options)
    check_later_tasks(tasks[1:], judges, args.output_path, options)
    check_run_folders(tasks, judges, args.output_path, several=len(judges) > 1 or bool(args.panel))
    status = 0
    for task in tasks:
        run_dir = args.output_path / task if len(tasks) > 1 else args.output_path
        if len(judges) > 1 or args.panel:
            from judgebench.cli.multirun import run_several

            status = max(status, run_several(task, judges, run_dir, args.panel, options, print_run))
            continue
        one = judges[0]
        summary = evaluate(task, one.judge, output_path=run_dir, judge_args=one.judge_args, judge_name=one.name,
                           **{**options, "prompt": one.prompt or options["prompt"]})
        status = max(status, print_run(summary))
        if summary.stopped:
            break
    return status


def refuse_repeated_tasks(tasks: list[str]) -> None:
    """--tasks naming one task twice (by name, or two spellings of one YAML path) would judge it twice, paid,
    into one folder, the second run replacing the first: refused before any call."""
    seen: dict[str, str] = {}
    for task in tasks:
        key = str(Path(task).resolve()) if task.endswith((".yaml", ".yml")) and Path(task).is_file() else task
        if key in seen:
            same = "" if seen[key] == task else f" (as '{one_line(seen[key], 200)}')"
            raise JudgebenchError(f"--tasks: '{one_line(task, 200)}' is named twice{same}; each task runs once")
        seen[key] = task


def check_run_folders(tasks: list[str], judges: list[Any], output_path: Path, *, several: bool) -> None:
    """Every folder the command's runs write, before the first call: none holds files a run would wrongly replace
    (a later task's or judge's folder was refused after the earlier runs had been paid for)."""
    from judgebench.core.rundir import check_run_files
    from judgebench.judging.multirun import PANEL_DIR, judge_dir_names

    for task in tasks:
        run_dir = output_path / task if len(tasks) > 1 else output_path
        names = [*judge_dir_names([j.name or j.judge for j in judges]), PANEL_DIR] if several else [""]
        for name in names:
            check_run_files(run_dir / name if name else run_dir)


def check_later_tasks(tasks: list[str], judges: list[Any], output_path: Path, options: dict[str, Any]) -> None:
    """The tasks after the first: each one's data (every row) and every judge's prompt checked before the first
    task's calls, so a bad row or template there stops the command before anything is paid for."""
    from judgebench.api import run_request
    from judgebench.judging.pipeline import check_task

    for task in tasks:
        for index, choice in enumerate(judges):
            check_task(run_request(task=task, judge=choice.judge, judge_args=choice.judge_args, judge_name=choice.name,
                                    output_path=output_path / task, **{**options, "prompt": choice.prompt or options["prompt"]}),
                       data=index == 0)


def dry_run_command(tasks: list[str], judges: list[Any], output_path: Path, options: dict[str, Any]) -> int:
    """`run --dry-run`: print the estimate of every task's run with every judge (`multirun.JudgeChoice`s,
    `options` as `evaluate` takes them); exit 0."""
    from judgebench.api import run_request
    from judgebench.judging.dryrun import estimate_run, format_estimates

    estimates = [
        estimate_run(run_request(task=task, judge=choice.judge, judge_args=choice.judge_args, judge_name=choice.name,
                                  output_path=output_path, **{**options, "prompt": choice.prompt or options["prompt"]}))
        for task in tasks
        for choice in judges
    ]
    print(format_estimates(estimates))
    return 0


def print_run(summary: Any) -> int:
    """A finished run's summary (and stability figures) on stdout, why it stopped on stderr; its exit code."""
    from judgebench.publish.summary import stability_lines

    print("\n".join([format_summary(summary.result, summary.run_dir, summary.calls_made,
                                    getattr(summary, "collected", 0)), *stability_lines(summary.result)]))
    if summary.stopped:
        print(f"judgebench: run stopped early: {term_text(summary.stopped, MESSAGE_MAX)} (partial results written)",
              file=sys.stderr)  # (its causes quote the endpoint's error text: escaped)
        return EXIT_STOPPED
    if summary.coverage_failure:
        print(f"judgebench: {term_text(summary.coverage_failure, MESSAGE_MAX)}", file=sys.stderr)
        return EXIT_STOPPED
    return 0


def _add_score_parser(sub: Any) -> None:
    p = sub.add_parser("score", help="re-score a finished run from its samples (no judge calls)")
    p.add_argument("run_dir", type=PATH, help="a run directory (results.json + samples.jsonl)")
    p.add_argument("--include-path", type=PATH, action="append", default=[], help="folder of extra task YAMLs (default: the run's own task.yaml copy when the task is not installed)")
    p.add_argument("--bootstrap", type=resamples, help="bootstrap resamples for confidence intervals (default: the run's own)")
    p.set_defaults(handler=cmd_score, array_heavy=True)  # core/allocator.py


def cmd_score(args: argparse.Namespace) -> int:
    from judgebench.api import score_run
    from judgebench.publish.summary import stability_lines

    result = score_run(args.run_dir, include_paths=args.include_path, n_resamples=args.bootstrap)
    print("\n".join([format_summary(result, args.run_dir), *stability_lines(result)]))
    return 0


def _add_tasks_parser(sub: Any) -> None:
    p = sub.add_parser("tasks", help="list the available tasks of every kind (pairwise, rubric), with a kind column")
    p.add_argument("--include-path", type=PATH, action="append", default=[], help="folder of extra task YAMLs (any kind)")
    p.set_defaults(handler=cmd_tasks)


def cmd_tasks(args: argparse.Namespace) -> int:
    from judgebench.kinds.base import TASK_COLUMNS
    from judgebench.kinds.registry import list_tasks

    rows = [entry.row() for entry in list_tasks(args.include_path)]
    widths = {c: max(len(c), *(len(r[c]) for r in rows)) for c in TASK_COLUMNS}
    print("  ".join(c.ljust(widths[c]) for c in TASK_COLUMNS))
    for row in rows:
        print("  ".join(row[c].ljust(widths[c]) for c in TASK_COLUMNS))
    return 0


def _add_leaderboard_parser(sub: Any) -> None:
    p = sub.add_parser("leaderboard", help="build leaderboards (md, csv, json, html) from results files")
    p.add_argument("results", nargs="+", type=PATH, help="results.json files or folders containing them")
    p.add_argument("--output-dir", type=OUTPUT_DIR, default="judgebench-leaderboard", help="folder for the tables and index.html")
    p.add_argument("--include-path", type=PATH, action="append", default=[], help="folder of extra task YAMLs")
    p.set_defaults(handler=cmd_leaderboard)


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from judgebench.api import build_leaderboard

    written = build_leaderboard(args.results, args.output_dir, include_paths=args.include_path, on_warning=warn)
    for path in written:
        print(f"wrote {path}")
    return 0


def _add_report_parser(sub: Any) -> None:
    p = sub.add_parser("report", help="write a Markdown diagnostics report with plots for a run")
    p.add_argument("run_dir", type=PATH, help="a run directory (results.json + samples.jsonl)")
    p.add_argument("--output-dir", type=OUTPUT_DIR, help="report folder (default: RUN_DIR/report)")
    p.set_defaults(handler=cmd_report, owned_output="report", array_heavy=True)  # rundir.REPORT_DIR: --help stays fast


def cmd_report(args: argparse.Namespace) -> int:
    from judgebench.publish.report import samples_only_note, write_report

    path = write_report(args.run_dir, args.output_dir)
    note = samples_only_note(args.run_dir)
    if note:  # results.json is optional; what the report assumed without it is said, not left silent
        warn(note)
    print(f"wrote {path}")
    return 0


def _add_submit_parser(sub: Any) -> None:
    p = sub.add_parser("submit", help="validate a run and add it to the leaderboard (tables rebuilt by code)")
    p.add_argument("run_dir", type=PATH, help="a run directory (results.json + samples.jsonl)")
    p.add_argument("--leaderboard-dir", type=OUTPUT_DIR, default="leaderboards", help="the leaderboard folder (entries/, tasks/, prompts/ and the tables)")
    p.add_argument("--dataset-path", help="a local copy of the task's data to verify the run against")
    p.add_argument("--min-coverage", type=fraction, default=0.9, help="refuse runs whose answered share of judgments is below this (recorded in the entry)")
    # Refused with a pointer to the leaderboard's tasks/ and prompts/ folders: submit loads nothing the submitter names.
    p.add_argument("--prompt", type=PATH, help=argparse.SUPPRESS)
    p.add_argument("--include-path", type=PATH, action="append", default=[], help=argparse.SUPPRESS)
    p.set_defaults(handler=cmd_submit)


def cmd_submit(args: argparse.Namespace) -> int:
    from judgebench.judges.config import named_judge
    from judgebench.publish.submit import submit_run

    done = submit_run(
        args.run_dir,
        args.leaderboard_dir,
        include_paths=args.include_path,
        dataset_path=args.dataset_path,
        prompt_path=args.prompt,
        min_coverage=args.min_coverage,
    )
    for message in done.warnings:
        warn(message)
    config = done.verified.result.config
    labels = f" [{', '.join(map(term_text, done.verified.labels))}]" if done.verified.labels else ""
    print(f"accepted: {term_text(config.task)} / {term_text(named_judge(config.judge, config.judge_name))} / "
          f"{term_text(config.prompt_template)}"
          f"@{term_text(config.prompt_template_hash[:10])}{labels}")
    print(f"{'replaced' if done.replaced else 'stored'} {term_text(done.entry_dir)}")
    for path in done.written:
        print(f"wrote {term_text(path)}")
    return 0


def _add_compare_parser(sub: Any) -> None:
    p = sub.add_parser("compare", help="paired comparison of two runs of a task (regression gate)")
    p.add_argument("baseline", type=PATH, help="baseline run directory")
    p.add_argument("candidate", type=PATH, help="candidate run directory")
    p.add_argument(
        "--fail-if-worse-by",
        type=NON_NEGATIVE_FLOAT,
        metavar="POINTS",
        help="exit 1 when the headline drops by more than POINTS percentage points and the per-example paired test gives p < 0.05",
    )
    p.add_argument("--output", type=OUTPUT_FILE, help="write the full comparison (all flips) as JSON")
    p.add_argument("--max-flips", type=NON_NEGATIVE_INT, default=20, help="changed examples listed on screen")
    p.add_argument("--seed", type=NON_NEGATIVE_INT, default=0, help="seed of the paired bootstrap and of the Monte-Carlo sign-flip test")
    p.set_defaults(handler=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    from judgebench.api import compare_runs
    from judgebench.publish.compare import (
        format_comparison,
        gate_message,
        write_comparison,
    )

    comparison = compare_runs(args.baseline, args.candidate, seed=args.seed)
    print(format_comparison(comparison, args.max_flips))
    failed, message = gate_message(comparison, args.fail_if_worse_by) if args.fail_if_worse_by is not None else (False, "")
    if args.output:
        gate = {"fail_if_worse_by": args.fail_if_worse_by, "failed": failed, "message": message}
        write_comparison(comparison, args.output, gate if args.fail_if_worse_by is not None else None)
        print(f"wrote {args.output}")
    if args.fail_if_worse_by is None:
        return 0
    print(message, file=sys.stderr if failed else sys.stdout)
    return EXIT_STOPPED if failed else 0


def _add_export_parser(sub: Any) -> None:
    p = sub.add_parser("export", help="export a run's samples as a Hugging Face dataset with a dataset card")
    p.add_argument("run_dir", type=PATH)
    p.add_argument("--format", choices=["hf"], default="hf", help="hf: Parquet + README.md (datasets.load_dataset), disk/ (save_to_disk)")
    p.add_argument("--output", type=OUTPUT_DIR, required=True, help="output folder")
    p.add_argument("--push-to-hub", metavar="REPO", help="also upload to this Hub dataset repo (needs a token)")
    p.add_argument("--private", action="store_true", help="create the Hub repo private")
    p.set_defaults(handler=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    from judgebench.publish.export import export_hf

    if args.private and not args.push_to_hub:
        raise JudgebenchError("--private is for the Hub repo --push-to-hub creates: give --push-to-hub REPO too")
    done = export_hf(args.run_dir, args.output, push_to_hub=args.push_to_hub, private=args.private)
    print(f"wrote {done.rows} judgments to {done.output} (data/*.parquet and README.md: datasets.load_dataset; "
          "disk/: datasets.load_from_disk)")
    if done.pushed_to:
        print(f"pushed to https://huggingface.co/datasets/{done.pushed_to}")
    return 0


def _add_panel_parser(sub: Any) -> None:
    p = sub.add_parser("panel", help="build a panel of judges from finished runs (no judge calls)")
    p.add_argument("run_dirs", nargs="+", type=PATH, metavar="RUN_DIR", help="two or more finished runs of one task")
    p.add_argument("--aggregate", choices=["majority", "mean", "unanimous-else-tie"], default="majority", help="how the members' votes become the panel's verdict (docs/guide/panels-and-repeats.md)")
    p.add_argument("--output-path", required=True, type=OUTPUT_DIR, help="the panel's run directory")
    p.add_argument("--include-path", type=PATH, action="append", default=[], help="folder of extra task YAMLs")
    p.add_argument("--bootstrap", type=resamples, help="bootstrap resamples for confidence intervals (default: the first member's)")
    p.set_defaults(handler=cmd_panel)


def cmd_panel(args: argparse.Namespace) -> int:
    from judgebench.api import build_panel
    from judgebench.publish.summary import format_panel

    result = build_panel(args.run_dirs, args.output_path, aggregate=args.aggregate, include_paths=args.include_path,
                         n_resamples=args.bootstrap, on_warning=warn)
    print(format_summary(result, args.output_path))
    if result.panel is not None:
        print("\n".join(format_panel(result.panel)))
    usage = result.usage
    cost = "unpriced" if usage.cost_usd is None else f"${usage.cost_usd:.4f}"
    print(f"  members' usage: {usage.tokens_in} tokens in, {usage.tokens_out} out, cost {cost} (the panel made no calls)")
    return 0


def _add_merge_parser(sub: Any) -> None:
    p = sub.add_parser("merge", help="merge the run directories of a sharded run (--shard K/N) into one (no calls)")
    p.add_argument("shard_dirs", nargs="+", type=PATH, help="the shards' run directories (any order)")
    p.add_argument("--output-path", required=True, type=OUTPUT_DIR, help="run directory for the merged run")
    p.add_argument("--include-path", type=PATH, action="append", default=[], help="folder of extra task YAMLs")
    p.set_defaults(handler=cmd_merge)


def cmd_merge(args: argparse.Namespace) -> int:
    from judgebench.judging.shards import merge_runs

    for path in args.shard_dirs:
        if Path(path).resolve() == Path(args.output_path).resolve():
            raise JudgebenchError(f"--output-path {args.output_path}: is one of the shards; choose a new folder")
    from judgebench.publish.summary import stability_lines

    result = merge_runs(args.shard_dirs, args.output_path, args.include_path, on_warning=warn)
    print(f"merged {len(args.shard_dirs)} shards -> {term_text(str(args.output_path))}")
    print("\n".join([format_summary(result, Path(args.output_path)), *stability_lines(result)]))  # as `score` prints it
    return 1 if result.config.partial else 0  # as a run that stopped early


PARSERS: list[Callable[[Any], None]] = [
    _add_run_parser,
    _add_score_parser,
    _add_tasks_parser,
    _add_leaderboard_parser,
    _add_report_parser,
    _add_submit_parser,
    _add_compare_parser,
    _add_export_parser,
    _add_panel_parser,
    add_rubric_parser,  # rubric judges (issue 14): cli/rubric.py
    _add_arena_parser,
    _add_merge_parser,
    _add_view_parser,  # the run viewer (issue 31): cli/view.py
]


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="judgebench", description="Meta-evaluation of LLM-as-judge against human preferences.")
    parser.add_argument("--version", action="version", version=f"judgebench {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    from judgebench.cli.annotate import (
        human_side_parsers,  # pairs, annotate, freeze (issue 15)
    )

    for add in (*PARSERS, *human_side_parsers()):
        add(sub)
    return parser


NOT_INPUTS = {"cache_dir", "include_path", "help"}  # folders a command reads but never writes over from its outputs


def guard_outputs(command: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Before any work: every output flag (typed OUTPUT_DIR / OUTPUT_FILE) against every path the command was
    given (core/files.refuse_output_over_inputs). Positional path arguments and --judge-run are run folders
    (or folders of runs): nothing may be written inside the runs they hold. A command's own output folder inside
    its run (`report`'s RUN_DIR/report) is set by `owned_output` in its defaults."""
    from judgebench.core.files import refuse_output_over_inputs

    outputs: list[tuple[str, Path]] = []
    inputs: list[Path] = []
    runs: list[Path] = []
    for action in command._actions:
        value = getattr(args, action.dest, None)
        if action.dest in NOT_INPUTS or value is None:
            continue
        values = value if isinstance(value, list) else [value]
        paths = [Path(v) for v in values if isinstance(v, (str, Path)) and str(v).strip()]
        if action.type in (OUTPUT_DIR, OUTPUT_FILE):
            flag = next((o for o in action.option_strings if o.startswith("--")), action.dest)
            outputs += [(flag, path) for path in paths]
        elif not action.option_strings and action.type is PATH or action.dest == "judge_run":
            runs += paths
        else:
            inputs += paths
    runs += replayed_runs(args)
    owned = getattr(args, "owned_output", None)
    allowed = [run / owned for run in runs] if owned else []
    writes = getattr(args, "writes", None)  # (args, file name) -> whether the command writes that name in its folder
    refuse_output_over_inputs(outputs, inputs, runs, allowed, writes=(lambda name: writes(args, name)) if writes else None)


def replayed_runs(args: argparse.Namespace) -> list[Path]:
    """The run folders the `--judge replay/PATH` values read (tasks/request.replayed_run)."""
    from judgebench.tasks.request import replayed_run

    given = getattr(args, "judge", None)
    return [run for judge in (given if isinstance(given, list) else [given]) if (run := replayed_run(judge))]


def _sigterm_as_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; SIGTERM is treated like Ctrl-C (a run writes partial results and exits 1).

    Without `argv` (the `judgebench` command) an interrupt ends with 130 however many arrive (interrupts.py).
    """
    forget_warnings()  # once per command (`warn`), also for a Python caller running several
    in_main_thread = threading.current_thread() is threading.main_thread()
    process = in_main_thread and argv is None
    if process:
        interrupts.watch()
        from judgebench.calls.stopping import keep_held_until_exit

        keep_held_until_exit()  # a second Ctrl-C after a run's first is held until the process exits
    previous = signal.signal(signal.SIGTERM, _sigterm_as_interrupt) if in_main_thread else None
    given: list[str] = []
    try:
        parser, given = build_parser(), normalize_aliases(sys.argv[1:] if argv is None else argv)
        args = parser.parse_args(given)
        guard_outputs(parser._command_parser(given), args)
        if process and getattr(args, "array_heavy", False):  # arena, report, score (allocator.py)
            allocator.for_large_arrays(one_blas_thread=getattr(args, "one_blas_thread", False))
        code = args.handler(args)
        preload.stop()  # no import left running past the result (preload.py; atexit does it on the other ways out)
        return code
    except (JudgebenchError, NumericError) as exc:
        print(f"judgebench: error: {_shown(str(exc), given)}", file=sys.stderr)
        return getattr(exc, "exit_code", EXIT_USAGE)  # 2: the input or usage; errors.Stopped: 1
    except KeyboardInterrupt:
        interrupts.settle(exiting=process)
        print(interrupted_line(), file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly (an OSError: caught before the next)
        sys.stderr.close()
        return 0
    except OSError as exc:  # a folder or file the command could not read or write: one line, no traceback
        print(f"judgebench: error: {_shown(describe_os_error(exc), given)}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous)
            from judgebench.calls.stopping import interrupts_held, release_interrupts

            held = interrupts_held()
            release_interrupts(final=True)
            if process and held:  # an interrupted run wrote its results and the process exits now:
                interrupts.settle(exiting=True)  # a late Ctrl-C changes nothing (no death by SIGINT)


INTERRUPTED_AGAIN = ("judgebench: interrupted again: the results were not written; rerun the command to finish (an "
                     "LLM judge's answers received so far are in the answer cache, unless --no-cache)")


def interrupted_line() -> str:
    """What an interrupted command says last: that the results were not written when a second stop signal ended a
    run its first had stopped before they were (a SIGTERM a few milliseconds after a Ctrl-C), else `judgebench:
    interrupted` (said alone then, it read as "nothing paid for" after 60 paid calls: an outside attack)."""
    from judgebench.calls.stopping import stopped_unwritten

    return INTERRUPTED_AGAIN if stopped_unwritten() else "judgebench: interrupted"


def _shown(message: str, given: Sequence[str]) -> str:
    """An error as the terminal shows it: one line, without any secret the command line holds (a dataset URL's
    password quoted by `datasets`, a database driver's message quoting the password it could not parse)."""
    return one_line(scrub_error_line(message, command_line_secrets(given)))


def console() -> NoReturn:
    """The `judgebench` command (the console script, `python -m judgebench`): main() as the process, then its exit
    (an array-heavy command's without the interpreter's teardown: allocator.leave)."""
    allocator.leave(main())


if __name__ == "__main__":
    console()
