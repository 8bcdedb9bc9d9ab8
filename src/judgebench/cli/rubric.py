"""`judgebench rubric ...`: run, score, leaderboard, report, compare, agree and submit for rubric tasks.

Registered with one line in judgebench.cli.main (add_parser). Errors are JudgebenchError: one line, exit 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from judgebench.cli.flags import (
    NON_NEGATIVE_INT,
    OUTPUT_DIR,
    PATH,
    POSITIVE_FLOAT,
    POSITIVE_INT,
    add_call_flags,
    fraction,
    parse_judge_args,
    resamples,
    runner_options,
    warn,
)
from judgebench.core.errors import MESSAGE_MAX, JudgebenchError
from judgebench.core.text import term_text

EXIT_STOPPED = 1


def add_parser(sub: Any) -> None:
    p = sub.add_parser("rubric", help="rubric judges: grade answers against a rubric, calibrated against experts")
    rsub = p.add_subparsers(dest="rubric_command", required=True, parser_class=type(p))
    _add_run(rsub)
    t = rsub.add_parser("tasks", help="list the rubric tasks")
    t.add_argument("--include-path", type=PATH, action="append", default=[], help="folder of extra rubric task YAMLs")
    t.set_defaults(handler=cmd_tasks)
    s = rsub.add_parser("score", help="re-score a rubric run from its samples (no judge calls)")
    s.add_argument("run_dir", type=PATH)
    s.add_argument("--bootstrap", type=resamples, help="bootstrap resamples (default: the run's own)")
    s.set_defaults(handler=cmd_score)
    lb = rsub.add_parser("leaderboard", help="rubric leaderboard tables (md, csv, json) from run directories")
    lb.add_argument("run_dirs", nargs="+", type=PATH)
    lb.add_argument("--output-dir", type=OUTPUT_DIR, default="judgebench-leaderboard/rubric", help="folder for the tables")
    lb.set_defaults(handler=cmd_leaderboard)
    r = rsub.add_parser("report", help="report.md with scatter, per-slice bias and model-exam totals plots")
    r.add_argument("run_dir", type=PATH)
    r.add_argument("--output-dir", type=OUTPUT_DIR, help="report folder (default: RUN_DIR/report)")
    r.set_defaults(handler=cmd_report, owned_output="report")  # rundir.REPORT_DIR
    c = rsub.add_parser("compare", help="paired test on per-item absolute errors of two rubric runs")
    c.add_argument("baseline", type=PATH)
    c.add_argument("candidate", type=PATH)
    c.add_argument("--seed", type=NON_NEGATIVE_INT, default=0, help="seed of the paired test")
    c.set_defaults(handler=cmd_compare)
    a = rsub.add_parser("agree", help="judge-vs-judge agreement of two or more rubric runs of one task and data")
    a.add_argument("run_dirs", nargs="+", type=PATH)
    a.set_defaults(handler=cmd_agree)
    sb = rsub.add_parser("submit", help="verify a rubric run from its raw replies and add it to a leaderboard")
    sb.add_argument("run_dir", type=PATH)
    sb.add_argument("--leaderboard-dir", type=OUTPUT_DIR, default="leaderboards", help="the board: entries/, tables")
    sb.add_argument("--include-path", type=PATH, action="append", default=[], help="folder of extra rubric task YAMLs")
    sb.add_argument("--dataset-path", help="the data the run was graded on, when not the task's")
    sb.add_argument("--min-coverage", type=fraction, default=0.9,
                    help="refuse runs whose scored share is below this (default 0.9, as submit's; a run the judge graded nothing of is always refused)")
    sb.set_defaults(handler=cmd_submit)


def _add_run(rsub: Any) -> None:
    p = rsub.add_parser("run", help="grade every response of a rubric task and score the judge")
    p.add_argument("--task", required=True, help="rubric task name (tasks/rubric/, --include-path) or YAML path")
    p.add_argument("--judge", required=True, help="litellm model id or builtin/full-credit, builtin/length-proportional")
    p.add_argument("--judge-args", help="k=v,... passed to the judge")
    p.add_argument("--output-path", required=True, type=OUTPUT_DIR, help="run directory")
    p.add_argument("--demo", action="store_true", help="the task's bundled demo data")
    p.add_argument("--dataset-path", help="a local .jsonl/.json/.csv/.parquet file or folder, or a Hub dataset id")
    p.add_argument("--include-path", type=PATH, action="append", default=[], help="folder of extra rubric task YAMLs")
    p.add_argument("--limit", type=POSITIVE_INT, help="grade only the first N responses")
    p.add_argument("--min-coverage", type=fraction,
                   help="exit 1 when the scored share of judgments is below this (default: only when nothing was graded)")
    p.add_argument("--batch", action="store_true", help=argparse.SUPPRESS)  # refused with one line (cmd_run)
    p.add_argument("--repeats", type=POSITIVE_INT, default=1, help="grade every response N times (repeat agreement)")
    p.add_argument("--reask", type=NON_NEGATIVE_INT, default=6, help="re-ask a rejected reply up to N times (default 6)")
    p.add_argument("--within-k", type=POSITIVE_FLOAT, help="points for within-k and the system criterion (default: the task's)")
    p.add_argument("--prompt", help="prompt template file (default: the task's)")
    p.add_argument("--seed", type=NON_NEGATIVE_INT, default=0, help="seed of the judge (builtin) and of the bootstrap intervals")
    p.add_argument("--bootstrap", type=resamples, default=1000, help="bootstrap resamples for the intervals")
    add_call_flags(p)
    p.set_defaults(handler=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    from judgebench.kinds.rubric.run import RubricRunRequest, run_rubric

    if args.demo and args.dataset_path:
        raise JudgebenchError("--demo and --dataset-path exclude each other")
    if args.batch:
        raise JudgebenchError("--batch: rubric runs cannot use the batch API (a rejected reply is re-asked in its "
                              "conversation, which a batch cannot do); run without --batch")
    from judgebench.judges.config import is_config_path

    if is_config_path(args.judge):  # (taken as a model id: "unknown litellm provider 'jf'", after 4 s)
        raise JudgebenchError(f"--judge {args.judge}: rubric runs take a judge id and --judge-args, not a judge "
                              "configuration file")
    runner = runner_options(args)
    judge_args = parse_judge_args(args.judge_args)
    from judgebench.judges.args import near_misses

    for line in near_misses(judge_args):  # as `run` warns (an attack: rubric run said nothing of `temprature`)
        warn(line)
    summary = run_rubric(RubricRunRequest(
        task=args.task, judge=args.judge, output_path=args.output_path, judge_args=judge_args,
        include_paths=args.include_path, dataset_path=args.dataset_path, demo=args.demo, limit=args.limit,
        repeats=args.repeats, seed=args.seed, prompt=args.prompt, n_resamples=args.bootstrap,
        within_k=args.within_k, min_coverage=args.min_coverage, runner=runner, on_warning=warn))
    if summary.failure:  # the run's verdict leads: its figures below cover only what was scored
        print(f"judgebench: FAILED: {term_text(summary.failure, MESSAGE_MAX)}; the figures below are over the scored "
              "responses only", file=sys.stderr)  # (on stderr, as `run` says why it failed: stdout alone was missed)
    _print_summary(summary.result)
    print(f"calls sent: {summary.calls_made}; results in {summary.run_dir}")
    if summary.stopped:
        print(f"judgebench: stopped early: {term_text(summary.stopped, MESSAGE_MAX)} (partial results written)",
              file=sys.stderr)
        return EXIT_STOPPED
    return EXIT_STOPPED if summary.failure else 0


def _print_summary(result: Any) -> None:
    c = result.counts
    stated = False  # the intervals' level, said once: beside the first interval shown
    for level in ("item", "total"):
        figures = result.metrics[level]
        head = figures["normalized_mae"]
        if head.value is None:
            continue
        interval = f" [{head.ci_low:.3f}, {head.ci_high:.3f}]" if head.ci_low is not None else ""
        said = "95% bootstrap interval, " if interval and not stated else ""  # scoring.level_metrics' level
        stated = stated or bool(interval)
        extras = ", ".join(f"{n} {figures[n].value:.3f}" for n in ("mae", "bias", "within_k", "pearson")
                           if figures[n].value is not None)
        print(f"{result.config.task} {level}: normalized MAE {head.value:.3f}{interval} ({said}n={head.n}); {extras}; "
              f"over-credit {figures['over_credit'].value:.0f}")
    s = result.system
    verdict = {True: "pass", False: f"FAIL, worst {term_text(s.worst_pair)}", None: "no pairs"}[s.passed]
    if c.coverage < 1 and s.passed:  # a pass over a fraction of the responses is not a pass of the judge
        verdict = f"pass on the {100 * c.coverage:.1f}% scored"
    if not s.complete and s.passed is not None:
        verdict += " (incomplete: totals over scored responses only)"
    print(f"system level: max |judge - expert| total {s.max_abs_difference} -> {verdict} (within {s.within_k:g})")
    print(f"coverage {c.coverage:.3f}: answered {c.answered}, no answer {c.no_answer}, rejected {c.invalid}, "
          f"failed {c.failed}; replies {c.calls}")
    if result.repeat_agreement:
        from judgebench.kinds.rubric.scoring import repeat_agreement_text

        print(f"repeats: {repeat_agreement_text(result.repeat_agreement)}")


def cmd_tasks(args: argparse.Namespace) -> int:
    from judgebench.kinds.registry import get_kind, own_task_files
    from judgebench.kinds.rubric.spec import load_rubric_task_file

    for name, path in sorted(own_task_files(get_kind("rubric"), list(args.include_path)).items()):
        spec = load_rubric_task_file(path)
        print(f"{name}\tv{spec.version}\tdata {spec.dataset.path}\tdemo {'yes' if spec.demo else 'no'}\t{path}")
    return 0


def cmd_score(args: argparse.Namespace) -> int:
    from judgebench.kinds.rubric.run import rescore

    _print_summary(rescore(args.run_dir, args.bootstrap))
    return 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from judgebench.kinds.rubric.board import leaderboard_rows, write_tables
    from judgebench.kinds.rubric.run import read_rubric_run

    results = [read_rubric_run(d)[0] for d in args.run_dirs]
    for path in write_tables(leaderboard_rows(results), args.output_dir):
        print(path)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from judgebench.kinds.rubric.report import write_rubric_report

    for path in write_rubric_report(args.run_dir, args.output_dir):
        print(path)
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from judgebench.kinds.rubric.board import compare_rubric
    from judgebench.kinds.rubric.run import read_rubric_run
    from judgebench.stats.paired import format_p

    baseline, candidate = read_rubric_run(args.baseline), read_rubric_run(args.candidate)
    cmp = compare_rubric(baseline, candidate, seed=args.seed)
    coverage = {name: run[0].counts.coverage for name, run in (("baseline", baseline), ("candidate", candidate))}
    print(f"{cmp.task}: {cmp.units} rubric items scored by both (coverage: baseline {coverage['baseline']:.3f}, "
          f"candidate {coverage['candidate']:.3f})")
    _warn_of_low_coverage(coverage)
    if cmp.test is not None:
        print(f"mean normalized absolute error per item: baseline {cmp.baseline} {cmp.baseline_error:.4f}, "
              f"candidate {cmp.candidate} {cmp.candidate_error:.4f}, difference {cmp.difference:+.4f} "
              + (f"[{cmp.ci[0]:+.4f}, {cmp.ci[1]:+.4f}] (95% paired-bootstrap interval) " if cmp.ci is not None else "(one unit: no interval) ")
              + "(below 0: candidate closer to the experts)")
        t = cmp.test
        print(f"paired test and interval ({t.name}, unit = {cmp.unit}, its items' mean error; {cmp.clusters} {cmp.unit}s): "
              f"{t.n} changed, candidate error higher on {t.rose}, lower on {t.fell}; {format_p(t)}")
    figures = ", ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in cmp.judges.items())
    print(f"judge vs judge: {figures}")
    return 0


def _warn_of_low_coverage(coverage: dict[str, float]) -> None:
    """A run below submit's coverage bar, compared on the little it graded (`compare`, `agree`), is said so."""
    from judgebench.publish.verify import DEFAULT_MIN_COVERAGE

    for name, share in coverage.items():
        if share < DEFAULT_MIN_COVERAGE:
            print(f"judgebench: warning: the {name} scored {100 * share:.1f}% of its judgments (below "
                  f"{DEFAULT_MIN_COVERAGE:.0%}): the comparison is over those only", file=sys.stderr)


def cmd_agree(args: argparse.Namespace) -> int:
    from judgebench.kinds.rubric.board import judge_agreement
    from judgebench.kinds.rubric.run import read_rubric_run

    if len(args.run_dirs) < 2:
        raise JudgebenchError("rubric agree: give two or more run directories")
    if len({Path(d).resolve() for d in args.run_dirs}) < len(args.run_dirs):  # a run agrees with itself: no figure
        raise JudgebenchError("rubric agree: a run directory is given twice; give different runs")
    runs = [read_rubric_run(d) for d in args.run_dirs]
    rows = judge_agreement(runs)
    _warn_of_low_coverage({f"run {d}": run[0].counts.coverage for d, run in zip(args.run_dirs, runs)})
    for row in rows:
        print("\t".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}"
                        for k, v in row.items() if v is not None and v != ""))  # (undefined: left out, not "None")
    return 0


def cmd_submit(args: argparse.Namespace) -> int:
    from judgebench.kinds.rubric.verify import submit_rubric

    for path in submit_rubric(args.run_dir, args.leaderboard_dir, args.include_path, args.dataset_path,
                              args.min_coverage):
        print(path)
    return 0
