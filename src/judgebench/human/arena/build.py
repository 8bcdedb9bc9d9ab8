"""The arena computation: battles -> one result dict (what arena.json holds), plus the tables."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from judgebench.core.background import here, in_background
from judgebench.core.errors import JudgebenchError
from judgebench.core.text import look_alike_groups
from judgebench.human.arena.assisted import (
    assisted_section,
    check_voted_texts,
    mean_judge,
    read_judge_pairs,
)
from judgebench.human.arena.battles import Battles, comparison_groups, make_battles, unbeaten_groups
from judgebench.human.arena.coded import Coded
from judgebench.human.arena.compare import judge_agreement, robustness
from judgebench.human.arena.defaults import DEFAULT_ALPHA, DEFAULT_REPEATS, TOP_K
from judgebench.human.arena.fit import (
    FitOptions,
    matrices,
    rate,
    rating_rows,
    slice_sections,
    style_section,
)
from judgebench.human.arena.needed import NeededOptions, votes_needed
from judgebench.human.arena.voters import annotator_table, anomalies, majority_codes, majority_shares, voter_tests
from judgebench.stats.ratings import best_first

BACKGROUND_MIN_VOTES = 50_000  # from here on, the voter checks and robustness run in forked children (issue 30)


@dataclass
class ArenaOptions:
    fit: FitOptions = field(default_factory=FitOptions)
    alpha: float = DEFAULT_ALPHA
    exclude_flagged: bool = False
    judge_runs: list[Path] = field(default_factory=list)
    repeats: int = DEFAULT_REPEATS
    top_k: int = TOP_K
    exclude: list[str] = field(default_factory=list)  # annotators left out from the start (task / file)
    label_share: float | None = None  # judge-assisted: keep votes on this share of the voted pairs only
    strata: str | None = None  # judge-assisted: stratify by this slice
    needed: NeededOptions | None = None  # --votes-needed


@dataclass
class ArenaResult:
    summary: dict[str, Any]  # JSON-ready
    ratings: list[dict[str, Any]]
    winrate: pd.DataFrame
    counts: pd.DataFrame
    fit: Any  # BTFit of the main ratings (for plots)


def run_arena(raw: pd.DataFrame, source: str, dropped: dict[str, int], opts: ArenaOptions,
              both_bad: str, dimension: str) -> ArenaResult:
    """Everything `judgebench arena` reports, from the raw vote table."""
    coded = Coded(raw)  # the raw votes factorised once, for both make_battles calls
    everyone = make_battles(raw, source, both_bad, dimension, dropped, exclude=opts.exclude,  # type: ignore[arg-type]
                            coded=coded)
    aside = in_background if len(raw) >= BACKGROUND_MIN_VOTES else here  # the second core (background.py)
    everyone.coded.compute("cells")  # the sorted pairs and cells: used by both children and by this process
    voters = aside(voter_checks, everyone, opts.alpha, opts.fit.seed)
    battles = everyone
    if opts.exclude_flagged and voters.result()[0]:
        battles = make_battles(raw, source, both_bad, dimension, dropped,  # type: ignore[arg-type]
                               exclude=[*opts.exclude, *voters.result()[0]], coded=coded)
    table, codes = battles.table, battles.coded
    a, b, names = codes.models
    if opts.fit.anchor is not None and opts.fit.anchor not in set(names[np.unique(np.concatenate([a, b]))]):
        raise JudgebenchError(f"--anchor {opts.fit.anchor}: no such model in the votes")
    robust = aside(robustness, table, battles.slice_keys, opts.fit, opts.repeats, codes)
    groups = comparison_groups(table, codes)
    fit = rate(table, opts.fit, anchor=opts.fit.anchor, coded=codes)
    ratings = rating_rows(fit, table, codes)
    style = style_section(table, opts.fit, codes)
    style.pop("fit", None)
    winrate, counts = matrices(table, [r["model"] for r in ratings], codes)
    flagged, voters_section = voters.result()
    summary = {
        "config": _config(battles, opts, flagged),
        "counts": {"votes_read": int(len(raw)), "battles": int(len(table)), "models": len(fit.models),
                   "annotators": _voters(battles), "pairs": _distinct(codes.pairs),
                   "dropped": battles.dropped},
        "comparison_groups": groups if len(groups) > 1 else [],  # disconnected: ranks across groups mean nothing
        # models the votes order without an upset: the gaps between them are the regularisation's
        "unbeaten_groups": best_first(unbeaten_groups(codes), {r["model"]: r["rating"] for r in ratings}),
        "ratings": ratings,
        "style_control": style,
        "slices": slice_sections(table, battles.slice_keys, opts.fit, codes),
        "voters": voters_section,
        "robustness": robust.result(),
        "judges": [_judge_section(path, battles, opts) for path in opts.judge_runs],
    }
    alike = _look_alikes(fit.models, everyone.coded.annotators[1])  # (the rated models: no pass over the battles)
    if alike:  # (absent when none: arena.json as before)
        summary["look_alike_names"] = alike
    assisted, units = [], []
    read = [(path, read_judge_pairs(path, battles.dimension)) for path in opts.judge_runs]
    if len(read) > 1:  # every judge's mean verdict as one more predictor
        read.append((Path(" + ".join(str(path) for path, _ in read)), mean_judge([jp for _, jp in read])))
    for path, jp in read:
        section, unit = _assisted(table, path, battles.dimension, opts, jp)
        assisted.append(section)
        if unit is not None and section.get("assisted") is not None:
            units.append((section["judge"], unit))
    summary["assisted"] = assisted
    if opts.needed is not None:
        summary["votes_needed"] = votes_needed(fit, table, units, opts.needed)
    return ArenaResult(summary, ratings, winrate, counts, fit)


def _assisted(table: pd.DataFrame, path: Path, dimension: str, opts: ArenaOptions,
              jp: Any) -> tuple[dict[str, Any], Any]:
    """The judge-assisted section of one judge run (or of several judges' mean); when not asked for
    explicitly (--label-share, --strata), a failure is recorded as skipped instead of stopping the arena."""
    try:
        return assisted_section(table, path, dimension, opts.fit.elo(opts.fit.anchor), label_share=opts.label_share,
                                seed=opts.fit.seed, strata_key=opts.strata, jp=jp)
    except JudgebenchError as exc:
        if opts.label_share is not None or opts.strata is not None:
            raise
        return {"judge": jp.judge, "run": str(path), "assisted": None, "skipped": str(exc)}, None


def _look_alikes(models: Any, annotators: np.ndarray) -> dict[str, list[list[str]]]:
    """Models and annotators whose names differ only in case, Unicode normal form, an invisible character or a
    look-alike letter (core/text.skeleton): each is rated, or tested, as a voter of its own."""
    found = {"models": look_alike_groups(map(str, models)), "annotators": look_alike_groups(map(str, annotators))}
    return {kind: groups for kind, groups in found.items() if groups}


def _voters(battles: Battles) -> int:
    """The number of distinct annotators among the battles."""
    return _distinct(battles.coded.annotators[0])


def _distinct(codes: np.ndarray) -> int:
    """The number of distinct codes."""
    return int(np.count_nonzero(np.bincount(codes))) if len(codes) else 0


def voter_checks(everyone: Battles, alpha: float, seed: int) -> tuple[list[str], dict[str, Any]]:
    """(the flagged annotators, the voters section): the anomaly test as SciArena states it, the
    per-annotator table, and the tests with stated power, on every battle before any exclusion by flag. An
    annotator is flagged by the anomaly test or by either per-annotator test (agreement, side): flagged.txt and
    --exclude-flagged take them all (an always-left voter, caught by the side test, had stayed in a frozen split)."""
    if _voters(everyone) <= 1:
        return [], {"alpha": alpha, "anomaly": [], "flagged": [], "annotators": [],
                    "skipped": "one annotator: no voter statistics"}
    flags = anomalies(everyone.table, alpha, seed, everyone.coded)
    majority = majority_codes(everyone.coded)
    rows = annotator_table(everyone.table, set(), everyone.coded, majority)
    tests = voter_tests(rows, alpha, majority_shares(majority))
    flagged = sorted({r["annotator"] for r in flags if r["flagged"]}
                     | {t["annotator"] for t in tests["annotators"] if t["flagged_by"]})
    for row in rows:
        row["flagged"] = row["annotator"] in flagged
    return flagged, {"alpha": alpha, "anomaly": flags, "flagged": flagged, "annotators": rows, "tests": tests}


def _config(battles: Battles, opts: ArenaOptions, flagged: list[str]) -> dict[str, Any]:
    f = opts.fit
    return {"source": battles.source, "dimension": battles.dimension, "both_bad": battles.both_bad,
            "anchor_model": f.anchor, "anchor_rating": f.anchor_rating, "scale": f.scale, "base": f.base,
            "n_resamples": f.n_resamples, "seed": f.seed, "alpha": opts.alpha,
            "exclude_flagged": opts.exclude_flagged, "excluded_annotators": battles.excluded_annotators,
            "flagged_annotators": flagged, "ties": "half a win to each side",
            "method": "Bradley-Terry MLE on battles aggregated to (pair, outcome) counts; bootstrap rounds "
                      "are multinomial draws on the counts; ranks by 95% interval overlap"}


def judge_outcomes(run_dir: Path, dimension: str, table: pd.DataFrame) -> tuple[str, dict[str, float], dict[str, tuple]]:
    """(judge id, pair id -> outcome averaged over the answered orders, pair id -> (model_a, model_b)), over the
    run's labelled and unlabelled judgments (assisted.read_judge_pairs), its texts the votes' (check_voted_texts)."""
    pairs = read_judge_pairs(run_dir, dimension)
    check_voted_texts(table, pairs, run_dir)
    return pairs.judge, {k: v for k, v in pairs.outcome.items() if math.isfinite(v)}, pairs.models


def _judge_section(run_dir: Path, battles: Battles, opts: ArenaOptions) -> dict[str, Any]:
    judge, outcomes, names = judge_outcomes(run_dir, battles.dimension, battles.table)
    table = battles.table
    values = np.full(len(table), np.nan)
    for i, (pair, a, b) in enumerate(zip(table["pair_id"], table["model_a"], table["model_b"])):
        if pair not in outcomes:
            continue
        ja, jb = names[pair]
        if ja is not None and (ja, jb) == (b, a):
            values[i] = 1.0 - outcomes[pair]  # the run stored the pair the other way round
        elif ja is not None and (ja, jb) != (a, b):
            raise JudgebenchError(f"{run_dir}: pair {pair} is {ja} vs {jb} in the run but {a} vs {b} in the votes")
        else:
            values[i] = outcomes[pair]
    if not np.isfinite(values).any():
        raise JudgebenchError(f"{run_dir}: the judge answered none of the voted pairs (pair ids must match)")
    return {"judge": judge, "run": str(run_dir), **judge_agreement(table, values, opts.fit, opts.top_k)}
