"""`judgebench arena VOTES_OR_TASK --output-dir DIR`: the parser, the input resolution and the handler."""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgebench.cli.flags import (
    NON_NEGATIVE_INT,
    OUTPUT_DIR,
    PATH,
    POSITIVE_FLOAT,
    POSITIVE_INT,
    fraction,
    resamples,
)
from judgebench.core.errors import MESSAGE_MAX, JudgebenchError
from judgebench.core.text import term_text
from judgebench.human.arena.defaults import DEFAULT_ALPHA, DEFAULT_REPEATS, TOP_K

if TYPE_CHECKING:
    import pandas as pd

    from judgebench.human.arena.build import ArenaOptions, ArenaResult

VOTE_SUFFIXES = (".jsonl", ".csv", ".json")


RATING_LIMIT = 1e6  # stats/ratings.ELO_RATING_MAX (not imported: --help stays fast)


def arena_writes(args: argparse.Namespace, name: str) -> bool:
    """Whether `arena` writes a file of this name into --output-dir (human/arena/write.py): guard_outputs refuses
    an input there (`--exclude-annotators OUT/flagged.txt` was overwritten by the new flagged.txt)."""
    return name.startswith("arena.") or name == "flagged.txt" or name.endswith((".csv", ".png"))


def at_most(parse: Callable[[str], int], cap: int) -> Callable[[str], int]:
    """An integer flag's type (`parse`, from cli/flags) with an upper bound: a typo of millions would never end."""
    def checked(text: str) -> int:
        value = parse(text)
        if value > cap:
            raise argparse.ArgumentTypeError(f"must be <= {cap:,}, got '{text}'")
        return value

    return checked


MAX_REPEATS = 1000  # --robustness-repeats: 60 refits at the default 20
MAX_VOTES_TRIED = 1_000_000  # --max-votes: each grid point draws and fits this many simulated votes, --power-reps
# times (a typo of 1e12 ran on for ever); --judge-battles: each simulated fit holds them all
MAX_POWER_REPS = 10_000  # --power-reps: each is a fit per grid point (100 by default); a typo of 1e8 never ended
GRID_POINTS = (3, 100)  # --grid-points: the vote counts tried (10 by default, about x1.7 apart up to 20,000)
robustness_repeats = at_most(NON_NEGATIVE_INT, MAX_REPEATS)
max_votes = at_most(POSITIVE_INT, MAX_VOTES_TRIED)
power_reps = at_most(POSITIVE_INT, MAX_POWER_REPS)
judge_battles = at_most(NON_NEGATIVE_INT, MAX_VOTES_TRIED)


def share(text: str) -> float:
    """--label-share: a fraction above 0, at most 1 (0 keeps no vote); every other value worded alike."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= 1:  # (nan too)
        raise argparse.ArgumentTypeError(f"must be a fraction above 0 and at most 1, got '{text}'")
    return value


def grid_points(text: str) -> int:
    """--grid-points: GRID_POINTS[0] to GRID_POINTS[1]."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not GRID_POINTS[0] <= value <= GRID_POINTS[1]:
        raise argparse.ArgumentTypeError(f"must be an integer from {GRID_POINTS[0]} to {GRID_POINTS[1]}, got '{text}'")
    return value


def anchor_rating(text: str) -> float:
    """--anchor-rating: a finite number within +-1e6 (nan, inf and -1e308 were written into arena.json)."""
    value = _finite(text)
    if abs(value) > RATING_LIMIT:
        raise argparse.ArgumentTypeError(f"must be between -{RATING_LIMIT:g} and {RATING_LIMIT:g}, got '{text}'")
    return value


def elo_base(text: str) -> float:
    """--base: > 1 (a base of 1 divides by ln 1 = 0)."""
    value = _finite(text)
    if not value > 1:
        raise argparse.ArgumentTypeError(f"must be > 1 (odds of BASE:1 per SCALE points), got '{text}'")
    return value


def elo_scale(text: str) -> float:
    value = POSITIVE_FLOAT(text)
    if value > RATING_LIMIT:
        raise argparse.ArgumentTypeError(f"must be <= {RATING_LIMIT:g}, got '{text}'")
    return value


def _finite(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got '{text}'") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got '{text}'")
    return value


def add_parser(sub: Any) -> None:
    p = sub.add_parser("arena", help="model leaderboard (Bradley-Terry, Elo scale) and voter quality from raw votes")
    p.add_argument("source", metavar="VOTES_OR_TASK", help="a votes file (.jsonl/.csv, see votes.py) or a task name/YAML (one vote per pair)")
    p.add_argument("--output-dir", required=True, type=OUTPUT_DIR, help="folder for arena.json/.md/.html, CSVs and PNGs")
    p.add_argument("--both-bad", choices=["tie", "exclude"], default="tie", help="Both Bad votes count as ties (default) or are left out")
    p.add_argument("--dimension", default="overall",  # records.DEFAULT_DIMENSION, not imported: --help stays fast
                   help="which dimension's votes to rate (multi-dimension votes)")
    p.add_argument("--anchor", metavar="MODEL", help="pin this model at --anchor-rating (default: the models' mean is)")
    p.add_argument("--anchor-rating", type=anchor_rating, default=1000.0, help="the anchor's (or the mean) rating (default 1000)")
    p.add_argument("--scale", type=elo_scale, default=400.0, help="Elo scale: a difference of SCALE means BASE:1 odds (default 400)")
    p.add_argument("--base", type=elo_base, default=10.0, help="Elo base (default 10)")
    p.add_argument("--n-resamples", type=resamples, default=1000, help="bootstrap rounds (default 1000, at most 100000; 0: no intervals)")
    p.add_argument("--seed", type=NON_NEGATIVE_INT, default=0, help="seed of the bootstrap, checkpoints and subsampling")
    p.add_argument("--alpha", type=fraction, default=DEFAULT_ALPHA, help=f"anomalous-voter test level (default {DEFAULT_ALPHA})")
    p.add_argument("--exclude-flagged", action="store_true", help="leave flagged voters' votes out of every rating (recorded)")
    p.add_argument("--exclude-annotators", type=PATH, metavar="FILE", help="leave out the annotators listed in FILE, one per line (e.g. a previous run's flagged.txt; recorded)")
    p.add_argument("--judge-run", type=PATH, action="append", default=[], help="a judge run directory on the same pairs: judge-induced ratings and agreement (repeatable)")
    p.add_argument("--label-share", type=share, metavar="F",
                   help="judge-assisted ratings: keep the votes of a seeded share F of the voted pairs only; the others "
                        "count as judge-only (to see what fewer votes would give)")
    p.add_argument("--strata", metavar="SLICE", help="judge-assisted ratings: also stratified PPI by this slice "
                                                     "(one power-tuning weight per slice value)")
    p.add_argument("--votes-needed", action="store_true",
                   help="simulate the votes needed to separate adjacent models and the top k, without and with "
                        "each judge, and the pairs needed to tell two judges apart (votes_needed.png)")
    p.add_argument("--power", type=fraction, help="--votes-needed: target power (default 0.8)")
    p.add_argument("--confidence", type=fraction, help="--votes-needed: interval level (default 0.95)")
    p.add_argument("--max-votes", type=max_votes, help=f"--votes-needed: largest vote count tried (default 20000, at most "
                                                       f"{MAX_VOTES_TRIED:,})")
    p.add_argument("--power-reps", type=power_reps, help=f"--votes-needed: simulations per vote count (default 100, at "
                                                        f"most {MAX_POWER_REPS:,})")
    p.add_argument("--grid-points", type=grid_points, help="--votes-needed: vote counts tried, a geometric grid up to "
                                                           "--max-votes (default 10; more: a finer answer, slower)")
    p.add_argument("--accuracy-gap", type=fraction,
                   help="--votes-needed: accuracy difference between two judges to detect (default 0.05)")
    p.add_argument("--judge-correlation", type=float,
                   help="--votes-needed: correlation of two judges' correctness on the same pairs (default 0.5)")
    p.add_argument("--judge-battles", type=judge_battles, metavar="N",
                   help="--votes-needed: judge-only battles in the simulation (default: the run's unlabelled pairs; "
                        f"at most {MAX_VOTES_TRIED:,})")
    p.add_argument("--robustness-repeats", type=robustness_repeats, default=DEFAULT_REPEATS,
                   help="repeats per annotator share (default 20, at most 1000; 0: no annotator subsampling, faster on large arenas)")
    p.add_argument("--no-plots", action="store_true", help="write no PNG plots (every other file the same; faster on large arenas)")
    p.add_argument("--top-k", type=POSITIVE_INT, default=TOP_K, help="k of the top-k overlap (default 5)")
    p.add_argument("--demo", action="store_true", help="task input: use its bundled demo split")
    p.add_argument("--dataset-path", help="task input: a local file or another Hub id")
    p.add_argument("--split", help="task input: the split (default: the task's)")
    p.add_argument("--include-path", type=PATH, action="append", default=[], help="folder of extra task YAMLs")
    p.set_defaults(handler=cmd_arena, writes=arena_writes, array_heavy=True, one_blas_thread=True)  # allocator.py


def load_source(args: argparse.Namespace) -> tuple[pd.DataFrame, str, Counter]:
    """The raw vote table from a votes file or from a task's examples (one vote per pair)."""
    from judgebench.human.arena.battles import examples_as_votes, votes_frame
    from judgebench.human.arena.reading import read_vote_table

    path = Path(args.source)
    if path.suffix.lower() in VOTE_SUFFIXES:
        _missing_votes_file(path)
        source = f"votes file {path}"
        return (*_frame(read_vote_table(path, source, args.dimension), source),)
    if path.suffix.lower() not in (".yaml", ".yml") and path.exists():
        raise JudgebenchError(f"{path}: not a votes file (.jsonl or .csv) or a task YAML")
    from judgebench.tasks.loading import load_examples
    from judgebench.tasks.registry import get_task

    spec = get_task(args.source, args.include_path)
    args.task_excluded = list(spec.exclude_annotators)
    if args.dimension not in spec.dimension_names:
        raise JudgebenchError(f"--dimension {args.dimension}: task {spec.name} has {spec.dimension_names}")
    loaded = load_examples(spec, dataset_path=args.dataset_path, split=args.split, demo=args.demo)
    votes = examples_as_votes(loaded.examples, args.dimension)
    if not votes:
        raise JudgebenchError(f"task {spec.name}: no labelled examples on dimension {args.dimension}")
    config = f", config {loaded.dataset.config}" if loaded.dataset.config else ""  # (the config read, as `run` records it)
    source = f"task {spec.name} ({loaded.dataset.source}{config})"
    return (*_frame(votes_frame(votes, source, args.dimension), source),)


def _missing_votes_file(path: Path) -> None:
    """A votes file that does not exist: one line, pointing at the installed copy when the name is a bundled
    demo file (the README's `tasks/demo/...` path exists only in a repository checkout)."""
    if path.exists():
        return
    from judgebench.core.resources import tasks_dir

    bundled = tasks_dir() / "demo" / path.name
    hint = f" (the bundled demo votes are installed at {bundled})" if bundled.is_file() else ""
    raise JudgebenchError(f"votes file {path}: no such file{hint}")


def _frame(pair: tuple, source: str) -> tuple:
    frame, dropped = pair
    return frame, source, dropped


def options(args: argparse.Namespace) -> ArenaOptions:
    from judgebench.human.arena.build import ArenaOptions
    from judgebench.human.arena.fit import FitOptions
    from judgebench.human.arena.needed import NeededOptions

    fit = FitOptions(anchor=args.anchor, anchor_rating=args.anchor_rating, scale=args.scale, base=args.base,
                     n_resamples=args.n_resamples, seed=args.seed)
    if (args.label_share is not None or args.strata is not None) and not args.judge_run:
        raise JudgebenchError("--label-share and --strata need a --judge-run (judge-assisted ratings)")
    needed = None
    given = [flag for flag in NEEDED_DEFAULTS if getattr(args, flag) is not None]
    if given and not args.votes_needed:  # (as --label-share without --judge-run: a flag that would do nothing)
        raise JudgebenchError(f"--{given[0].replace('_', '-')} is a --votes-needed setting: give --votes-needed too")
    for flag, default in NEEDED_DEFAULTS.items():
        if getattr(args, flag) is None:
            setattr(args, flag, default)
    if args.votes_needed:
        if not (0 < args.power < 1 and 0 < args.confidence < 1):
            raise JudgebenchError("--power and --confidence: must be between 0 and 1 (exclusive)")
        if not 0 < args.accuracy_gap <= 0.5:
            raise JudgebenchError(f"--accuracy-gap {args.accuracy_gap}: must be above 0 and at most 0.5")
        if not -1 <= args.judge_correlation <= 1:
            raise JudgebenchError(f"--judge-correlation {args.judge_correlation}: must be between -1 and 1")
        needed = NeededOptions(power=args.power, confidence=args.confidence, max_votes=args.max_votes,
                               reps=args.power_reps, grid_points=args.grid_points, accuracy_gap=args.accuracy_gap,
                               judge_correlation=args.judge_correlation, judge_battles=args.judge_battles,
                               top_k=args.top_k, seed=args.seed)
    return ArenaOptions(fit=fit, alpha=args.alpha, exclude_flagged=args.exclude_flagged,
                        judge_runs=list(args.judge_run), repeats=args.robustness_repeats, top_k=args.top_k,
                        label_share=args.label_share, strata=args.strata, needed=needed)


# The --votes-needed settings and their defaults (None on the parser: given without --votes-needed is refused).
NEEDED_DEFAULTS = {"power": 0.8, "confidence": 0.95, "max_votes": 20000, "power_reps": 100, "grid_points": 10,
                   "accuracy_gap": 0.05,
                   "judge_correlation": 0.5, "judge_battles": None}


def excluded_annotators(args: argparse.Namespace) -> list[str]:
    """Annotators to leave out: the task's `exclude_annotators` and the --exclude-annotators file."""
    names = list(getattr(args, "task_excluded", []))
    path = args.exclude_annotators
    if path is not None:
        from judgebench.core.files import (
            read_names,
            regular_text,  # here: the parser needs no yaml/pydantic
            why_not_a_file,
        )
        if not path.is_file():
            raise JudgebenchError(f"--exclude-annotators {path}: {why_not_a_file(path)}")
        try:
            listed = read_names(regular_text(path), f"--exclude-annotators {path}")
        except UnicodeDecodeError:
            raise JudgebenchError(f"--exclude-annotators {path}: not UTF-8 text") from None
        args.listed_out = listed  # arena_warnings names those who cast no vote here (a typo, another file's names)
        names += listed
    return sorted(set(names))


def arena(args: argparse.Namespace) -> ArenaResult:
    raw, source, dropped = load_source(args)
    from judgebench.human.arena.build import run_arena  # after the read: preloaded meanwhile (cmd_arena)

    opts = options(args)
    opts.exclude = excluded_annotators(args)
    return run_arena(raw, source, dict(dropped), opts, args.both_bad, args.dimension)


def arena_warnings(summary: dict[str, Any], listed_out: Sequence[str] = ()) -> list[str]:
    """What the ratings cannot be trusted for: repeated votes counted once, votes with one model on both sides
    left out, annotators listed to leave out (`listed_out`, --exclude-annotators) who cast no vote here, and
    what arena.md and arena.html warn of too (write.trust_warnings: groups no battle connects, orders without an
    upset)."""
    from judgebench.human.arena.battles import REPEATED_VOTE, SAME_MODEL
    from judgebench.human.arena.write import trust_warnings  # (the outputs are written by now: imported)

    lines = []
    dropped = summary["counts"]["dropped"]
    if dropped.get(REPEATED_VOTE):
        lines.append(f"{dropped[REPEATED_VOTE]} repeated votes of one annotator on one pair were counted once")
    if dropped.get(SAME_MODEL):
        lines.append(f"{dropped[SAME_MODEL]} votes with the same model on both sides were left out")
    absent = sorted(set(listed_out) - set(summary["config"]["excluded_annotators"]))
    if absent:
        shown = ", ".join(map(term_text, absent[:5])) + (", ..." if len(absent) > 5 else "")
        lines.append(f"--exclude-annotators: {len(absent)} listed annotators cast no vote here: {shown}")
    return lines + trust_warnings(summary, term_text)


def cmd_arena(args: argparse.Namespace) -> int:
    from contextlib import nullcontext

    from judgebench.core import preload
    from judgebench.core.allocator import release_free_memory
    from judgebench.core.background import prepared
    from judgebench.human.arena.plots import draw, import_plotting

    if args.alpha <= 0 or args.alpha >= 1:
        raise JudgebenchError(f"--alpha {args.alpha}: must be between 0 and 1 (exclusive)")
    # the plots' child, forked while this process is small: it imports matplotlib now, draws at the end
    with nullcontext() if args.no_plots else prepared(draw, warm=import_plotting) as plotter:
        # the computation's and outputs' imports (scipy's stats, optimize and csgraph among them) in a thread,
        # while Arrow reads the votes without the GIL (preload.py)
        preload.need_later("judgebench.human.arena.write", "scipy.optimize", "scipy.stats", "scipy.sparse.csgraph")
        preload.start()
        result = arena(args)
        release_free_memory()  # the computation's pages: the plots' child peaks next (allocator.py)
        from judgebench.human.arena.write import judge_warning, write_outputs

        written = write_outputs(result, args.output_dir, plotter)
    s = result.summary
    n = s["counts"]
    for line in arena_warnings(s, getattr(args, "listed_out", [])):
        print(f"judgebench: warning: {line}", file=sys.stderr)
    print(f"arena: {n['battles']} battles, {n['models']} models, {n['annotators']} "
          f"annotator{'' if n['annotators'] == 1 else 's'} -> {term_text(args.output_dir)}")
    if any(row["ci_low"] is not None for row in s["ratings"][:10]):  # their level, once (ratings.bootstrap_bt)
        print("  ratings (95% bootstrap intervals):")
    for row in s["ratings"][:10]:
        ci = "" if row["ci_low"] is None else f" [{row['ci_low']:.1f}, {row['ci_high']:.1f}]"
        print(f"  {row['rank']:>3}  {term_text(row['model'], 60):<30} {row['rating']:8.1f}{ci}")
    flagged = s["voters"]["flagged"]
    print(f"  flagged voters (alpha {args.alpha:g}): {', '.join(map(term_text, flagged)) or 'none'}"
          + (" (excluded)" if args.exclude_flagged and flagged else ""))
    for j in s["judges"]:
        rho, tau = (j[k]["value"] for k in ("spearman", "kendall"))
        shown = "undefined (constant judge ratings)" if rho is None else f"Spearman {rho:.3f}, Kendall {tau:.3f}"
        print(f"  judge {term_text(j['judge'])}: {shown} vs the human ranking "
              f"({j['answered_battles']}/{j['battles']} battles answered)")
        warning = judge_warning(j, term_text)
        if warning:
            print(f"    warning: {warning}")
    for a in s.get("assisted", []):
        if a.get("assisted") is None:
            print(f"  judge-assisted ({term_text(a.get('judge', a['run']))}): skipped: {term_text(a['skipped'], MESSAGE_MAX)}")
            continue
        c = a["counts"]
        width = "" if a["width_ratio"] is None else f", interval width x{a['width_ratio']:.2f} of human-only"
        used = f"{c['labelled_votes']} votes used"
        worth = (f" ({used})" if a["effective_human_pairs"] is None else  # (no such count: undefined, left out)
                 f", worth {a['effective_human_pairs']:.0f} voted pairs (~{a['effective_human_votes']:.0f} votes; {used})")
        print(f"  judge-assisted ({term_text(a['judge'])}): {c['labelled_pairs']} voted + {c['unlabelled_pairs']} "
              f"judge-only pairs, lambda {a['lambda']:.3f}{width}{worth}")
        if "stratified" in a:  # what --strata asked for (a new user read only the unstratified figure above)
            st = a["stratified"]
            worth = "" if st["effective_human_pairs"] is None else f": worth {st['effective_human_pairs']:.1f} voted pairs"
            print(f"    stratified by {term_text(st['slice'])} ({len(st['strata'])} strata){worth}")
    if "votes_needed" in s:
        v = s["votes_needed"]
        for curve in v["curves"]:
            got = curve["top_k"]["votes_needed"]
            print(f"  votes needed ({curve['label']}): top {v['top_k']} separated at power {v['power']:g}: "
                  f"{got if got is not None else '> ' + str(v['grid'][-1])}")
    print(f"  wrote {len(written)} files")
    return 0
