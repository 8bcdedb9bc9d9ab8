"""Rubric records -> calibration figures with bootstrap intervals, system level, repeats, coverage.

Calibration uses repeat 0 of every scored record (ANSWERED, or NO_ANSWER at zero); INVALID and
FAILED records are left out of the error figures and counted in coverage beside them. Two levels:
`item` (every rubric item of responses with expert item scores; maximum = the item's) and `total`
(every response; maximum = the rubric's total). Intervals resample problems (`group`) when the task
maps one, else responses, through resampling.py; the units of a drawn problem come along together.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from judgebench.core.records import MetricValue, Usage
from judgebench.core.text import UNDEFINED
from judgebench.kinds.rubric import metrics as m
from judgebench.kinds.rubric.records import (
    RubricCounts,
    RubricRecord,
    SystemLevel,
    SystemPair,
)
from judgebench.scoring.usage import check_cost_sums
from judgebench.stats.resampling import MIN_UNITS, percentile_interval, resample_batches

LEVELS = ("item", "total")
SLICE_METRICS = ("normalized_mae", "bias", "within_k")
BATCH = 200


@dataclass
class Units:
    """Aligned arrays of one level: judge and expert points, maxima, and each unit's cluster."""

    judge: np.ndarray
    expert: np.ndarray
    top: np.ndarray
    cluster: list[str]


def calibration_records(records: Iterable[RubricRecord]) -> list[RubricRecord]:
    return [r for r in records if r.repeat == 0 and r.scored]


def units(records: Iterable[RubricRecord], level: str) -> Units:
    rows: list[tuple[float, float, float, str]] = []
    for r in records:
        cluster = r.group or r.item_id
        if level == "total":
            rows.append((r.total, r.expert_total, r.max_total, cluster))
        elif r.expert_items is not None:
            rows.extend((r.scores[c.id], r.expert_items[c.id], c.max, cluster) for c in r.rubric)
    if not rows:
        return Units(np.zeros(0), np.zeros(0), np.zeros(0), [])
    judge, expert, top, cluster = zip(*rows, strict=True)
    return Units(np.array(judge, float), np.array(expert, float), np.array(top, float), list(cluster))


def level_metrics(u: Units, k: float, n_resamples: int, seed: int) -> dict[str, MetricValue]:
    """Every calibration metric of one level; intervals for the metrics in BOOTSTRAPPED."""
    point = m.calibration(u.judge, u.expert, u.top, k)
    draws = _bootstrap(u, k, n_resamples, seed)
    out = {}
    for name, value in point.items():
        low = high = None
        if name in draws and value is not None:
            lo, hi = percentile_interval(draws[name])  # the one rule for undefined resamples (resampling.py)
            if np.isfinite(lo) and np.isfinite(hi):
                low, high = float(lo), float(hi)
        out[name] = MetricValue(value=value, ci_low=low, ci_high=high, n=len(u.judge))
    return out


BOOTSTRAPPED = ("normalized_mae", "mae", "bias", "within_k", "pearson")


def _bootstrap(u: Units, k: float, n_resamples: int, seed: int) -> dict[str, np.ndarray]:
    """Cluster bootstrap: each resample draws clusters with replacement (resampling.py) and weighs
    every unit by its cluster's draw count, which equals computing on the expanded sample."""
    names = sorted(set(u.cluster))
    if len(names) < MIN_UNITS or n_resamples < 1:  # (one problem's items are one unit: no spread to show)
        return {}
    position = {c: i for i, c in enumerate(names)}
    of_unit = np.array([position[c] for c in u.cluster])
    d = u.judge - u.expert
    x, y = u.judge, u.expert
    columns = np.stack([np.abs(d) / u.top, np.abs(d), d, (np.abs(d) <= k + m.EPS).astype(float), x, y, x * y, x * x, y * y], 1)
    sums = []
    for batch in resample_batches(len(names), n_resamples, seed, BATCH):
        counts = np.zeros((len(batch), len(names)))
        np.add.at(counts, (np.repeat(np.arange(len(batch)), batch.shape[1]), batch.ravel()), 1.0)
        weights = counts[:, of_unit]
        sums.append(np.column_stack([weights.sum(1), weights @ columns]))
    total = np.concatenate(sums)
    s = total[:, 0]
    mean = total[:, 1:] / s[:, None]
    mx, my = mean[:, 4], mean[:, 5]
    vx, vy = mean[:, 7] - mx * mx, mean[:, 8] - my * my
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where((vx > 1e-12) & (vy > 1e-12), (mean[:, 6] - mx * my) / np.sqrt(vx * vy), np.nan)
    return {"normalized_mae": mean[:, 0], "mae": mean[:, 1], "bias": mean[:, 2], "within_k": mean[:, 3], "pearson": r}


def calibration_metrics(records: list[RubricRecord], k: float, n_resamples: int, seed: int) -> dict[str, dict[str, MetricValue]]:
    scored = calibration_records(records)
    return {level: level_metrics(units(scored, level), k, n_resamples, seed) for level in LEVELS}


def slice_metrics(records: list[RubricRecord], k: float, n_resamples: int, seed: int) -> dict:
    """level -> slice column -> value -> the per-slice metrics (with intervals)."""
    scored = calibration_records(records)
    out: dict = {}
    columns = sorted({c for r in scored for c in r.slices} | ({"exam"} if any(r.exam for r in scored) else set()))
    for level in LEVELS:
        for column in columns:
            values = sorted({_slice_value(r, column) for r in scored} - {None})
            for value in values:
                part = [r for r in scored if _slice_value(r, column) == value]
                full = level_metrics(units(part, level), k, n_resamples, seed)
                if full["normalized_mae"].value is None:
                    continue
                out.setdefault(level, {}).setdefault(column, {})[value] = {n: full[n] for n in SLICE_METRICS}
    return out


def _slice_value(r: RubricRecord, column: str) -> str | None:
    return r.exam if column == "exam" and column not in r.slices else r.slices.get(column)


def system_level(records: list[RubricRecord], k: float) -> SystemLevel:
    """Per model and exam: summed judge totals vs summed expert totals (repeat 0)."""
    first = [r for r in records if r.repeat == 0]
    pairs: dict[tuple[str, str], list[RubricRecord]] = {}
    for r in first:
        pairs.setdefault((r.model, r.exam or "all"), []).append(r)
    rows, complete = [], True
    for (model, exam), group in sorted(pairs.items()):
        scored = [r for r in group if r.scored]
        complete &= len(scored) == len(group)
        judge, expert = sum(r.total for r in scored), sum(r.expert_total for r in scored)
        rows.append(SystemPair(model=model, exam=exam, expert_total=expert, judge_total=judge,
                               difference=judge - expert, responses=len(scored)))
    worst = max(rows, key=lambda p: abs(p.difference), default=None)
    by_model: dict[str, list[float]] = {}
    for p in rows:
        by_model.setdefault(p.model, [0.0, 0.0])
        by_model[p.model][0] += p.judge_total
        by_model[p.model][1] += p.expert_total
    judge_t = np.array([v[0] for v in by_model.values()])
    expert_t = np.array([v[1] for v in by_model.values()])
    return SystemLevel(
        pairs=rows,
        max_abs_difference=abs(worst.difference) if worst else None,
        worst_pair=f"{worst.model} / {worst.exam}" if worst else None,
        within_k=k,
        passed=bool(all(abs(p.difference) <= k + m.EPS for p in rows)) if rows else None,
        complete=complete,
        rank_spearman=m.spearman(judge_t, expert_t),
        rank_kendall=m.kendall(judge_t, expert_t),
    )


def item_scores(records: Iterable[RubricRecord]) -> dict[tuple[str, str], tuple[float, float]]:
    """(response id, rubric item id) -> (judge points, maximum) over scored records."""
    return {(r.item_id, c.id): (r.scores[c.id], c.max) for r in records if r.scored for c in r.rubric}


def agreement(a: list[RubricRecord], b: list[RubricRecord]) -> dict[str, float | int | None]:
    """Two gradings of the same responses (two repeats, or two judges), on the rubric items both scored."""
    sa, sb = item_scores(a), item_scores(b)
    keys = sorted(set(sa) & set(sb))
    x = np.array([sa[key][0] for key in keys], float)
    y = np.array([sb[key][0] for key in keys], float)
    top = np.array([sa[key][1] for key in keys], float)
    return {
        "items": len(keys),
        "exact_item_agreement": m.exact_agreement(x, y),
        "normalized_mae": m.normalized_mae(x, y, top) if len(keys) else None,
        "pearson": m.pearson(x, y),
        "spearman": m.spearman(x, y),
        "kendall": m.kendall(x, y),
    }


def repeat_agreement(records: list[RubricRecord]) -> dict[str, float | int | None] | None:
    """Mean over pairs of repeats of the exact item agreement and the within-judge normalized MAE."""
    by_repeat: dict[int, list[RubricRecord]] = {}
    for r in records:
        by_repeat.setdefault(r.repeat, []).append(r)
    if len(by_repeat) < 2:
        return None
    pairs = [agreement(by_repeat[i], by_repeat[j]) for i, j in combinations(sorted(by_repeat), 2)]
    return {
        "repeats": len(by_repeat),
        "pairs": len(pairs),
        "exact_item_agreement": m.mean_pairwise([p["exact_item_agreement"] for p in pairs]),
        "normalized_mae": m.mean_pairwise([p["normalized_mae"] for p in pairs]),
    }


def repeat_agreement_text(agreement: dict[str, float | int | None]) -> str:
    """`repeat_agreement` in words (the run's summary and its report printed the dict)."""
    def share(name: str) -> str:
        value = agreement.get(name)
        return UNDEFINED if value is None else f"{value:.3f}"

    pairs = agreement["pairs"]
    return (f"{agreement['repeats']} repeats ({pairs} pair{'' if pairs == 1 else 's'} of them): exact item agreement "
            f"{share('exact_item_agreement')}, normalized MAE between repeats {share('normalized_mae')} (means over the pairs)")


def counts(records: list[RubricRecord], n_responses: int) -> RubricCounts:
    n = len(records)
    scored = sum(r.scored for r in records)
    return RubricCounts(
        responses=n_responses, judgments=n,
        answered=sum(r.status == "ANSWERED" for r in records),
        no_answer=sum(r.status == "NO_ANSWER" for r in records),
        invalid=sum(r.status == "INVALID" for r in records),
        failed=sum(r.status == "FAILED" for r in records),
        calls=sum(len(r.attempts_raw) for r in records),
        cached=sum(r.cached for r in records),
        coverage=scored / n if n else 0.0,
    )


def usage(records: list[RubricRecord]) -> Usage:
    """Tokens, cost and latency of the calls that got a reply. As a pairwise run's (scoring/usage.py), an answer
    from the cache counts with what was recorded when it was made, so a rerun reports what the run costs, and the
    cached share is stated beside it (`cached_calls`, `cached_cost_usd`: not paid again)."""
    live = [r for r in records if r.prompt_hash is not None and r.attempts_raw]
    t_in = sum(r.tokens_in or 0 for r in live)
    t_out = sum(r.tokens_out or 0 for r in live)
    unpriced = sum(r.cost_usd is None for r in live)
    cost = None if unpriced else float(sum(r.cost_usd or 0.0 for r in live))
    cached = [r for r in live if r.cached]
    lat = np.array([r.latency_s for r in live], float)
    per_100 = 100 * cost / len(live) if live and cost is not None else None
    check_cost_sums(cost, per_100)
    return Usage(
        tokens_in=t_in, tokens_out=t_out, cost_usd=cost, priced_calls=len(live) - unpriced, unpriced_calls=unpriced,
        tokens_per_call=(t_in + t_out) / len(live) if live else None,
        cost_per_100_calls=per_100,
        latency_p50_s=float(np.percentile(lat, 50)) if lat.size else None,
        latency_p95_s=float(np.percentile(lat, 95)) if lat.size else None,
        cached_calls=len(cached),
        cached_cost_usd=None if cost is None else float(sum(r.cost_usd or 0.0 for r in cached)),
    )
