"""Repeats and stability (`run --repeats N`): each judgment sampled N times, and how much the N agree.

A run with N > 1 plans every request N times (judging/repeats.py) (repeat 0, then 1, ...: an interrupted run has its first
repeat whole first). The cache key of repeat r > 0 includes r (calls/cache.py), so a rerun reuses every
repeat and a larger N pays only for the new ones. samples.jsonl holds repeat 0 and the run's main
metrics are repeat 0's (the same figures as a single-sample run, so leaderboards, `compare`, `panel`
and `submit` read the run as before); repeats.jsonl holds repeats 1..N-1. results.json `stability`
(RepeatStability) reports, over all N repeats:

  agreement      a judgment (example, dimension, order) agrees when its N votes are identical (a vote:
                 A / B / TIE, or INVALID / FAILED / MISSING, panel_rules.vote_of; a judgment with a
                 repeat never sent, in a stopped run, does not agree); per example the
                 share of its judgments that agree; `agreement_mean` the mean over examples
                 (ScienceArena's exact N-repeat agreement when an example is one judgment)
  flip_rate      share of examples with a judgment whose answered verdicts differ between repeats
  spread         the headline of each repeat alone (undefined for a repeat a stopped run left a judgment of
                 unjudged), its min / max / mean over the defined ones (when two or more are), and a 95%
                 percentile interval of the mean from resampling the repeats (resampling.py; only when every
                 repeat's is defined)
  majority-of-N  the headline of the per-judgment majority of the N votes (panel_rules' majority:
                 abstentions do not count, a split is TIE where ties are allowed, else repeat
                 0's vote among the tied - the lowest answered repeat), and its coverage
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from judgebench.core.catalogue import metric
from judgebench.core.records import (
    JudgmentRecord,
    STOPPED_FAILURES,
    RepeatStability,
    failure_of,
    swap_verdict,
)
from judgebench.scoring.panel_stats import (
    ABSTAIN,
    aggregate_votes,
    example_scores,
    vote_of,
)
from judgebench.scoring.usage import summarize_usage
from judgebench.stats.resampling import percentile_interval, resample_batches

Key = tuple[str, str, str]  # example, dimension, order
RESAMPLE_BATCH = 500


def stability_summary(
    records: Sequence[JudgmentRecord],
    repeats: int,
    *,
    headline: str,
    both_bad: str,
    allow_tie: bool,
    joint: bool,
    seed: int = 0,
    n_resamples: int = 1000,
) -> RepeatStability:
    """results.json `stability` from the records of every repeat (see the module docstring); `joint`: the run's
    calls answered every dimension at once (usage.summarize_usage)."""
    column = "soft" if metric(headline).credit == "soft" else "exact"
    by_repeat = [[r for r in records if r.repeat == i] for i in range(repeats)]
    per_repeat = [None if _cut_short(rs) else _headline(rs, both_bad, column) for rs in by_repeat]
    votes = _votes(records, repeats)
    known = [v for v in per_repeat if v is not None]
    low, high = _repeat_interval(per_repeat, seed, n_resamples)
    majority = _majority_records(by_repeat[0], votes, allow_tie)
    per_example, agreeing = _agreement(votes, _unsent(records))
    answered = sum(r.status == "ANSWERED" for r in majority)
    return RepeatStability(
        repeats=repeats,
        headline=headline,
        headline_per_repeat=per_repeat,
        headline_min=min(known) if len(known) > 1 else None,  # a spread of one repeat is no spread
        headline_max=max(known) if len(known) > 1 else None,
        headline_mean=float(np.mean(known)) if len(known) > 1 else None,
        headline_ci_low=low,
        headline_ci_high=high,
        majority_headline=_headline(majority, both_bad, column),
        majority_coverage=answered / len(majority) if majority else None,
        agreement_mean=float(np.mean(list(per_example.values()))) if per_example else None,
        agreement_per_example=per_example,
        judgments_agreeing=agreeing,
        flip_rate=_flip_rate(votes),
        n_judgments=len(votes),
        **_totals(by_repeat, joint),
    )


def _totals(by_repeat: list[list[JudgmentRecord]], joint: bool) -> dict[str, Any]:
    """Judgments and usage summed over every repeat (usage.py per repeat: its calls are distinct)."""
    usages = [summarize_usage(rs, joint=joint) for rs in by_repeat if rs]
    costs = [u.cost_usd for u in usages]
    every = [r for rs in by_repeat for r in rs]
    return {
        "judgments_all": len(every),
        "answered_all": sum(r.status == "ANSWERED" for r in every),
        "invalid_all": sum(r.status == "INVALID" for r in every),
        "failed_all": sum(r.status == "FAILED" for r in every),
        "tokens_in_all": sum(u.tokens_in for u in usages),
        "tokens_out_all": sum(u.tokens_out for u in usages),
        "cost_usd_all": None if any(c is None for c in costs) else float(sum(costs)),  # type: ignore[arg-type]
    }


def _cut_short(records: Sequence[JudgmentRecord]) -> bool:
    """Whether a stopped run left a judgment of this repeat unanswered (never sent, or not waited for): its headline
    is undefined, not a share with those counted wrong (an interrupted run showed `52.1%, 0.0%, 0.0%` per repeat,
    and a repeat with 2 of 12 judged 8.3%, which made a 50-point spread)."""
    return any(failure_of(r) in STOPPED_FAILURES for r in records)


def _headline(records: Sequence[JudgmentRecord], both_bad: str, column: str) -> float | None:
    scores = example_scores(records, both_bad, column) if records else {}
    return float(np.mean(list(scores.values()))) if scores else None


def _votes(records: Sequence[JudgmentRecord], repeats: int) -> dict[Key, list[str]]:
    """judgment -> its vote in each repeat (MISSING where a repeat has no record of it)."""
    table: dict[Key, list[str]] = {}
    for record in records:
        key = (record.example_id, record.dimension, record.order)
        table.setdefault(key, ["MISSING"] * repeats)[record.repeat] = vote_of(record)
    return table


def _unsent(records: Sequence[JudgmentRecord]) -> set[Key]:
    """The judgments with a repeat a stopped run left without an answer (never sent, or not waited for)."""
    return {(r.example_id, r.dimension, r.order) for r in records if failure_of(r) in STOPPED_FAILURES}


def _agreement(votes: dict[Key, list[str]], unsent: set[Key]) -> tuple[dict[str, float], float | None]:
    """(example id -> share of its judgments whose N votes are identical, that share over all judgments). A
    judgment with a repeat never sent does not agree (its repeats all unsent included): a stopped run's
    agreement is a lower bound."""
    same: dict[str, list[bool]] = {}
    for key, row in votes.items():
        same.setdefault(key[0], []).append(len(set(row)) == 1 and key not in unsent)
    per_example = {example: sum(flags) / len(flags) for example, flags in same.items()}
    flat = [flag for flags in same.values() for flag in flags]
    return per_example, (sum(flat) / len(flat) if flat else None)


def _flip_rate(votes: dict[Key, list[str]]) -> float | None:
    """Share of examples with a judgment whose answered votes are not all the same."""
    flips: dict[str, bool] = {}
    for (example, _, _), row in votes.items():
        answered = {v for v in row if v not in ABSTAIN}
        flips[example] = flips.get(example, False) or len(answered) > 1
    return sum(flips.values()) / len(flips) if flips else None


def _majority_records(
    firsts: Sequence[JudgmentRecord], votes: dict[Key, list[str]], allow_tie: bool
) -> list[JudgmentRecord]:
    """Repeat 0's records with the majority-of-N verdict (INVALID when no repeat answered)."""
    out = []
    for record in firsts:
        verdict = aggregate_votes(votes[(record.example_id, record.dimension, record.order)], "majority", allow_tie)
        out.append(
            record.model_copy(
                update={
                    "status": "ANSWERED" if verdict is not None else "INVALID",
                    "verdict": verdict,
                    "verdict_shown": verdict if record.order == "AB" else swap_verdict(verdict),
                }
            )
        )
    return out


def _repeat_interval(per_repeat: list[float | None], seed: int, n_resamples: int) -> tuple[float | None, float | None]:
    """95% percentile interval of the mean headline over repeats drawn with replacement."""
    if len(per_repeat) < 2 or any(v is None for v in per_repeat) or n_resamples < 1:
        return None, None
    values = np.array(per_repeat, dtype=float)
    means = np.concatenate(
        [values[rows].mean(axis=1) for rows in resample_batches(len(values), n_resamples, seed, RESAMPLE_BATCH)]
    )
    low, high = percentile_interval(means)
    return float(low), float(high)


