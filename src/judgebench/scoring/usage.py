"""Counts and usage of a run: judgments answered / invalid / failed, tokens, cost and latency per call."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

import numpy as np

from judgebench.core.errors import JudgebenchError
from judgebench.core.records import STOPPED_FAILURES, Counts, JudgmentRecord, UnlabelledJudgments, Usage, failure_of
from judgebench.scoring.judgment_table import group_by_dimension, is_answered


def summarize_counts(records: Iterable[JudgmentRecord], n_examples: int) -> Counts:
    """Judgment counts; calls = n_examples x dimensions x orders seen (duplicates: last wins)."""
    grouped = group_by_dimension(records)
    recs = [r for by_key in grouped.values() for r in by_key.values()]
    orders = {r.order for r in recs}
    expected = max(n_examples * len(grouped) * len(orders), len(recs))
    statuses = Counter(r.status for r in recs)
    answered = sum(is_answered(r) for r in recs) if statuses["ANSWERED"] else 0
    return Counts(
        examples=n_examples,
        calls=expected,
        answered=answered,
        invalid=statuses["INVALID"],
        failed=statuses["FAILED"],
        cached=sum(r.cached for r in recs),
        coverage=answered / expected if expected else 0.0,
        truncated=sum(r.invalid_reason == "truncated" for r in recs if r.status == "INVALID") if statuses["INVALID"] else 0,
    )


def summarize_unlabelled(records: Iterable[JudgmentRecord], n_examples: int, *,
                         joint: bool) -> UnlabelledJudgments | None:
    """results.json `unlabelled`: the counts of the unlabelled examples' judgments of repeat 0 (as `counts` counts
    samples.jsonl's) and the usage of every repeat's calls (no other figure costs them: `stability`'s cover the
    labelled examples); None when the run judged no unlabelled example."""
    records = list(records)
    first = [r for r in records if r.repeat == 0]
    if not first and not n_examples:
        return None
    return UnlabelledJudgments(examples=n_examples, counts=summarize_counts(first, n_examples),
                               usage=usage_of_every_repeat(records, joint=joint))


def summarize_usage(records: Iterable[JudgmentRecord], *, joint: bool) -> Usage:
    """Tokens, cost and latency of this run's calls.

    `joint` (the run's dimension_mode is "joint"): one call per distinct (example_id, order, prompt_hash), the
    records of all dimensions sharing it counted once; otherwise one call per judgment (in separate mode two
    dimensions whose prompts render alike were still two calls: counting them once had undercounted). Duplicate records
    of one judgment: the last wins, as in scoring. Answers from the cache count
    with the tokens, cost and latency recorded when they were first made, so a
    rerun from the cache reports what the run costs (issue 29); `cached_calls`
    and `cached_cost_usd` say how much of it was not paid again. cost_usd is
    None when any call that got a reply (status not FAILED) has no price.
    """
    return _usage(*_calls(records, joint))


def usage_of_every_repeat(records: Iterable[JudgmentRecord], *, joint: bool) -> Usage:
    """`summarize_usage` of the calls of every repeat (`--repeats`: each repeat's calls are distinct)."""
    by_repeat: dict[int, list[JudgmentRecord]] = {}
    for r in records:
        by_repeat.setdefault(r.repeat, []).append(r)
    calls: list[list[JudgmentRecord]] = []
    served: list[str | None] = []
    for repeat in sorted(by_repeat):
        more_calls, more_served = _calls(by_repeat[repeat], joint)
        calls += more_calls
        served += more_served
    return _usage(calls, served)


def _calls(records: Iterable[JudgmentRecord], joint: bool) -> tuple[list[list[JudgmentRecord]], list[str | None]]:
    """The run's calls (each its records) and each call's served model."""
    recs = [r for by_key in group_by_dimension(records).values() for r in by_key.values()]
    keys = [(r.example_id, r.order, r.prompt_hash) for r in recs]
    if not joint or len(set(keys)) == len(recs):  # one record per call: the same figures, no grouping
        return [[r] for r in recs], [r.served_model or None for r in recs]
    calls: dict[tuple[str, str, str], list[JudgmentRecord]] = {}
    for key, r in zip(keys, recs):
        calls.setdefault(key, []).append(r)
    return list(calls.values()), [next((r.served_model for r in g if r.served_model), None) for g in calls.values()]


def _usage(live: list[list[JudgmentRecord]], served_per_call: list[str | None]) -> Usage:
    """Usage from every call (each its records; cached ones counted and told apart) and every call's served model."""
    t_in = t_out = with_tokens = priced = unpriced = 0
    cost = cached_cost = 0.0
    cached_calls = resumed = 0
    latencies = []
    for group in live:
        cached = any(x.cached for x in group)
        if len(group) == 1:  # the usual call: its one record (the same choices as the general case)
            one = group[0]
            tok = one if one.tokens_in is not None or one.tokens_out is not None else None
            cost_r, replied, latency = one.cost_usd, one.status != "FAILED", one.latency_s
            earlier = one.cached_cost_usd
        else:
            tok = next((x for x in group if x.tokens_in is not None or x.tokens_out is not None), None)
            cost_r = next((x.cost_usd for x in group if x.cost_usd is not None), None)
            replied, latency = any(x.status != "FAILED" for x in group), max(x.latency_s for x in group)
            earlier = next((x.cached_cost_usd for x in group if x.cached_cost_usd is not None), None)
        if tok is not None:
            with_tokens += 1
            t_in += tok.tokens_in or 0
            t_out += tok.tokens_out or 0
        if cost_r is not None:
            priced += 1
            cost += cost_r
            cached_cost += cost_r if cached else min(earlier or 0.0, cost_r)  # a resumed chain: its earlier answers
        elif replied:
            unpriced += 1
        if not all(failure_of(x) in STOPPED_FAILURES for x in group):  # a call a stop left unanswered has no
            latencies.append(latency)  # latency to count (0 had pulled a stopped run's median down)
        cached_calls += cached
        resumed += not cached and bool(earlier) and any(x.attempts > 1 for x in group)  # a re-ask chain (a panel
        # judgment's earlier part is its members' answers from the cache, no chain: it made up 96 re-asks)
    total_cost = None if unpriced else cost
    per_100 = 100 * total_cost / len(live) if live and total_cost is not None else None
    check_cost_sums(total_cost, per_100)
    reasoning = [r.reasoning_tokens for g in live for r in g if r.reasoning_tokens is not None]
    served = Counter(served_per_call)
    served.pop(None, None)
    lat = np.asarray(latencies, dtype=float)
    return Usage(
        tokens_in=t_in,
        tokens_out=t_out,
        cost_usd=total_cost,
        priced_calls=priced,
        unpriced_calls=unpriced,
        tokens_per_call=_per_call(t_in + t_out, with_tokens),
        cost_per_100_calls=per_100,
        latency_p50_s=float(np.percentile(lat, 50)) if lat.size else None,
        latency_p95_s=float(np.percentile(lat, 95)) if lat.size else None,
        reasoning_tokens=sum(reasoning) if reasoning else None,
        served_models=dict(sorted(served.items())),
        cached_calls=cached_calls,
        cached_cost_usd=None if total_cost is None else cached_cost,
        resumed_calls=resumed or None,
    )


def check_cost_sums(*figures: float | None) -> None:
    """Sums of per-call costs (each finite) that overflowed a float: a crafted samples file, one line not a traceback."""
    if not all(math.isfinite(x) for x in figures if x is not None):
        raise JudgebenchError("samples: the calls' costs add up to more than a float holds (a cost_usd is absurdly large)")


def _per_call(tokens: int, calls: int) -> float | None:
    """Mean tokens per call (each record's count is at most records.COUNT_MAX, so every total fits a float)."""
    return tokens / calls if calls else None


def served_model_change(usage: Usage) -> str | None:
    """'served snapshot changed mid-run: X (n calls), Y (m calls)' when the provider served more than one."""
    if len(usage.served_models) < 2:
        return None
    seen = ", ".join(f"{model} ({n} calls)" for model, n in usage.served_models.items())
    return f"the served model snapshot changed mid-run: {seen}"


def run_notes(counts: Counts, usage: Usage) -> list[str]:
    """Terminal lines about truncated answers (with the fix) and a served-snapshot change."""
    from judgebench.judges.reasoning import TRUNCATED_FIX

    notes = []
    if counts.truncated:
        notes.append(f"truncated {counts.truncated} of {counts.invalid} invalid: the token cap cut the answer off; fix: {TRUNCATED_FIX}")
    change = served_model_change(usage)
    if change:
        notes.append(f"warning: {change}")
    return notes
