"""Why a judge disagrees with humans: order, length and citation effects, and whether
it would reproduce the human ranking of the response models.

Pure functions over ``list[JudgmentRecord]`` (one judge, one task), per dimension.
Every rate comes with a seeded 95% percentile bootstrap interval over examples (both
orders of an example move together); Bradley–Terry quantities come from
:mod:`judgebench.stats.ratings`, resampling battles (one battle per example).
See docs/guide/diagnostics.md for the definitions.

The module is long because every section reads the same per-example facts and the same
resampling draws (one set per dimension, so all intervals are coherent); split apart, those
internals would have to become a public interface.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any

import numpy as np

from judgebench.core.background import Pending, can_fork, here, in_background, later
from judgebench.core.bulk import gc_paused
from judgebench.core.deferred import Deferred, Ref, fill, then
from judgebench.core.errors import NumericError
from judgebench.core.records import DEFAULT_DIMENSION, VERDICT_SCORE, JudgmentRecord
from judgebench.scoring.judgment_table import BothBad, Table, check_both_bad, dimension_table, reuse_tables
from judgebench.scoring.metrics import confusion_matrix
from judgebench.stats.exact_sums import sums_are_exact
from judgebench.stats.ratings import (
    DEFAULT_L2,
    BTFit,
    PairedBootstrap,
    best_first,
    comparison_groups,
    fit_bt,
    fit_bt_penalties,
    paired_bootstrap_bt,
)
from judgebench.stats.ratio_bootstrap import Resampler, as_f64, compact
from judgebench.stats.resampling import MIN_UNITS, covering, percentile_interval, subsample

SCHEMA = "judgebench.diagnostics/1"
MIN_LENGTH_RATIO = 1.1  # "with a minimum length gap": longer / shorter >= this
MIN_CITATION_GAP = 2  # the same for citation counts: |difference| >= this
MAX_ELO_GAP = 100.0  # comparable-strength battles (the Ideation Arena rule)
STYLE_BOOTSTRAP_MAX = 5_000  # above: the style coefficients' intervals from an m-out-of-n subsample
TOP_K = 5
PENALTY_PROBE_L2 = 1e-4  # refit at 100x the default L2: a beta it moves is penalty-bound
LENGTH_BUCKETS = (1.0, 1.1, 1.25, 1.5, 2.0, math.inf)  # longer / shorter
LENGTH_CURVE = (-math.inf, -1.0, -0.5, -0.25, -0.1, 0.1, 0.25, 0.5, 1.0, math.inf)  # log(La/Lb)
CITATION_BUCKETS = (0, 1, 2, 4, 8, math.inf)  # |citations_a - citations_b|
CITATION_CURVE = (-math.inf, -3, -1, 0, 1, 2, 4, math.inf)  # citations_a - citations_b
_SCORE = VERDICT_SCORE
TALLY_MAX_CELLS = 4_000_000  # the system bootstrap shares the ratio draws when units x rounds is at most this


# ---------------------------------------------------------------- bootstrap of ratios


def _stat(value: float | None, samples: np.ndarray | None, n: int) -> dict[str, Any]:
    """{value, ci_low, ci_high, n}: a point estimate and its 95% percentile interval."""
    lo = hi = None
    if samples is not None and value is not None and len(samples):
        low, high = covering(value, *percentile_interval(samples))  # the one rule for undefined resamples
        if np.isfinite(low) and np.isfinite(high):
            lo, hi = float(low), float(high)
    return {"value": _num(value), "ci_low": lo, "ci_high": hi, "n": int(n)}


def _num(value: Any) -> float | None:
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


@dataclass
class _Ratios:
    """Collects named per-example (numerator, denominator) pairs, then computes every
    ratio and its interval in one pass over the shared resamples."""

    resampler: Resampler
    specs: dict[str, tuple[np.ndarray, np.ndarray]]

    def add(self, name: str, num: np.ndarray, den: np.ndarray) -> str:
        self.specs[name] = (compact(num), compact(den))
        return name

    def resolve(self) -> dict[str, dict[str, Any]]:
        names = list(self.specs)
        if not names:
            return {}
        num, den = [self.specs[k][0] for k in names], [self.specs[k][1] for k in names]
        exact = sums_are_exact([*num, *den], self.resampler.n)  # then every sum is the same in any order
        samples = self.resampler.ratio_samples(num, den, exact) if self.resampler.rounds else None
        if not exact:  # the original sums: columns of the stacked matrices
            num_m, den_m = np.column_stack([as_f64(c) for c in num]), np.column_stack([as_f64(c) for c in den])
            num, den = [num_m[:, i] for i in range(len(names))], [den_m[:, i] for i in range(len(names))]
        out = {}
        for i, name in enumerate(names):
            total = as_f64(den[i]).sum()
            value = as_f64(num[i]).sum() / total if total > 0 else None
            units = int(np.count_nonzero(as_f64(den[i])))  # the examples it is a ratio over (a slice, a bucket, a bin)
            shown = samples is not None and units >= MIN_UNITS  # (one example's resamples have no spread to show)
            out[name] = _stat(value, samples[:, i] if shown else None, round(total))
        return out


# ---------------------------------------------------------------- per-example facts


@dataclass(frozen=True)
class _Facts:
    """Per-example arrays of one dimension, from judgment_table.dimension_table (None where unknown)."""

    table: Table
    orders: tuple[str, ...]
    verdicts: dict[str, np.ndarray]  # order key -> mapped verdict (None unless answered)
    human: np.ndarray  # human outcome: 1 A, 0.5 tie (and Both Bad under "tie"), 0 B
    judge: np.ndarray  # judge outcome averaged over answered orders (NaN if none)
    judge_sum: np.ndarray  # sum of judge outcomes over answered orders
    judge_answered: np.ndarray  # number of answered orders

    @property
    def n(self) -> int:
        return len(self.table)

    def col(self, name: str) -> np.ndarray:
        return self.table.cols[name]

    def names_known(self) -> np.ndarray:
        return _known(self.col("model_a")) & _known(self.col("model_b"))

    def slice_columns(self) -> list[str]:
        return [c for c in self.table.cols if c.startswith("slice_")]


def _known(values: np.ndarray) -> np.ndarray:
    """Per entry of an object column: not None (the table's mark for unknown)."""
    return values != None  # noqa: E711 - elementwise on an object array


def _facts(records: list[JudgmentRecord], dimension: str, both_bad: BothBad) -> _Facts:
    check_both_bad(both_bad)
    table = dimension_table(records, dimension, both_bad)
    orders = table.orders
    verdicts = {o: table.cols[f"verdict_{o.lower()}"] for o in orders}
    human = _label_outcomes(table)
    scores = np.array([_verdict_outcomes(table, o) for o in orders], dtype=float).reshape(len(orders), len(table))
    answered = np.isfinite(scores).sum(axis=0).astype(float)
    total = np.nansum(scores, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        judge = np.where(answered > 0, total / answered, np.nan)
    return _Facts(table, orders, verdicts, human, judge, total, answered)


_CODE_SCORE = np.array([_SCORE["A"], _SCORE["TIE"], _SCORE["B"], np.nan])  # by code A 0, TIE 1, B 2; -1: none


def _label_outcomes(table: Table) -> np.ndarray:
    """Per example, the human outcome of its label (1 A, 0.5 TIE, 0 B): `[_SCORE[x] for x in labels]` read from
    the label codes without a loop; a label with no code is looked up as before (its KeyError)."""
    codes = table.cols["label_code"]
    if (codes < 0).any():
        return np.array([_SCORE[x] for x in table.cols["label"]], dtype=float)
    return _CODE_SCORE[codes]


def _verdict_outcomes(table: Table, order: str) -> np.ndarray:
    """Per example, the outcome of one order's mapped verdict, NaN without one: `[_SCORE[v] if v else nan ...]`
    read from the verdict codes (the verdict column is `_VERDICTS[code]`: None exactly where the code is -1)."""
    return _CODE_SCORE[table.cols[f"verdict_code_{order.lower()}"]]


def _judge_choice(facts: _Facts, size_a: np.ndarray, size_b: np.ndarray):
    """Per example: decisive judge verdicts (over orders) and how many chose the larger side."""
    decisive = np.zeros(facts.n)
    larger = np.zeros(facts.n)
    for verdicts in facts.verdicts.values():
        is_a, is_b = verdicts == "A", verdicts == "B"
        decisive += is_a | is_b
        larger += (is_a & (size_a > size_b)) | (is_b & (size_b > size_a))
    return decisive, larger


def _human_choice(facts: _Facts, size_a: np.ndarray, size_b: np.ndarray):
    """Per example: is the human label decisive, and does it choose the larger side."""
    decisive = (facts.human != 0.5).astype(float)
    larger = ((facts.human == 1) & (size_a > size_b)) | ((facts.human == 0) & (size_b > size_a))
    return decisive, larger.astype(float)


# ---------------------------------------------------------------- order effects


def _order_section(facts: _Facts, ratios: _Ratios, dimension: str) -> dict[str, Any]:
    """Position bias, order consistency, flip rate and the flipped examples."""
    t = facts.table.cols
    out: dict[str, Any] = {
        "orders": list(facts.orders),
        "position_bias": Ref(ratios.add(f"{dimension}/position_bias",
                                         t["shown_first"], t["shown_decisive"])),
        "label_a_share": Ref(ratios.add(f"{dimension}/label_a_share", facts.human == 1,
                                         facts.human != 0.5)),
    }
    if set(facts.orders) != {"AB", "BA"}:
        out.update(order_consistency=None, flip_rate=None, flips=[],
                   skipped="one order only: consistency and flips need both orders")
        return out
    ab, ba = facts.verdicts["AB"], facts.verdicts["BA"]
    both = t["both_answered"].astype(bool)
    same = both & (ab == ba)
    reversal = both & (((ab == "A") & (ba == "B")) | ((ab == "B") & (ba == "A")))
    out["order_consistency"] = Ref(ratios.add(f"{dimension}/order_consistency", same, both))
    out["flip_rate"] = Ref(ratios.add(f"{dimension}/flip_rate", reversal, both))
    ids, labels = t["example_id"], t["label"]
    out["flips"] = [
        {"example_id": str(ids[i]), "label": str(labels[i]), "verdict_ab": ab[i],
         "verdict_ba": ba[i], "kind": "reversal" if reversal[i] else "tie_change"}
        for i in np.flatnonzero(both & ~same)
    ]
    return out


# ---------------------------------------------------------------- style effects


@dataclass(frozen=True)
class _Style:
    """How one surface feature (length or citations) is measured and bucketed."""

    name: str  # "length" | "citations"
    feature: str  # the BT feature's name
    size_a: np.ndarray
    size_b: np.ndarray
    x: np.ndarray  # BT feature difference (A minus B)
    gap: np.ndarray  # bool: the sides differ by at least the minimum gap
    gap_rule: str
    buckets: list[tuple[str, np.ndarray]]  # (label, member mask) by size of difference
    curve: list[tuple[str, np.ndarray]]  # (label, member mask) by signed difference


def _length_style(facts: _Facts) -> _Style:
    la, lb = facts.col("length_a").astype(float), facts.col("length_b").astype(float)
    ratio = np.maximum(la, lb) / np.maximum(np.minimum(la, lb), 1.0)
    x = np.log((la + 1.0) / (lb + 1.0))
    return _Style(
        name="length", feature="log_length_ratio", size_a=la, size_b=lb, x=x,
        gap=ratio >= MIN_LENGTH_RATIO, gap_rule=f"longer/shorter >= {MIN_LENGTH_RATIO}",
        buckets=_bins(ratio, LENGTH_BUCKETS, "{:g}-{:g}x", "≥{:g}x"),
        curve=_bins(x, LENGTH_CURVE, "{:+g}..{:+g}", "≥{:+g}", "<{1:+g}"),
    )


def _citation_style(facts: _Facts, keep: np.ndarray) -> _Style:
    ca, cb = facts.col("citations_a").astype(float), facts.col("citations_b").astype(float)
    ca, cb = np.where(keep, ca, 0.0), np.where(keep, cb, 0.0)
    diff = ca - cb
    return _Style(
        name="citations", feature="citation_difference", size_a=ca, size_b=cb, x=diff,
        gap=np.abs(diff) >= MIN_CITATION_GAP, gap_rule=f"differ by >= {MIN_CITATION_GAP} citations",
        buckets=_bins(np.abs(diff), CITATION_BUCKETS, "{0:g}-{2:g}", "≥{:g}", single="{:g}"),
        curve=_bins(diff, CITATION_CURVE, "{0:+g}..{2:+g}", "≥{:+g}", "≤{2:+g}",
                    single="{:+g}"),
    )


def _bins(values: np.ndarray, edges: Sequence[float], fmt: str, last: str,
          first: str | None = None, single: str | None = None) -> list[tuple[str, np.ndarray]]:
    """(label, mask) for each half-open bin [lo, hi) of values.

    Labels: fmt.format(lo, hi, hi - 1), `last` for the open-ended top bin, `first` for
    an open-ended bottom bin, `single` for integer bins holding one value.
    """
    out = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        mask = (values >= lo) & (values < hi)
        if math.isinf(hi):
            label = last.format(lo)
        elif math.isinf(lo) and first:
            label = first.format(lo, hi, hi - 1)
        elif single and hi - lo == 1:
            label = single.format(lo)
        else:
            label = fmt.format(lo, hi, hi - 1)
        out.append((label, mask))
    return out


def _style_section(facts: _Facts, style: _Style, keep: np.ndarray, ratios: _Ratios,
                   strength: tuple[np.ndarray | None, str | None], dimension: str,
                   beta: dict[str, Any] | Deferred) -> dict[str, Any]:
    """Larger-side preference rates (judge vs humans), BT beta (`_beta`, begun by the caller), accuracy by
    bucket, curve. `strength`: the comparable-strength examples, or None and why (`_comparable_strength`)."""
    key = f"{dimension}/{style.name}"
    j_dec, j_larger = _judge_choice(facts, style.size_a, style.size_b)
    h_dec, h_larger = _human_choice(facts, style.size_a, style.size_b)
    differ = keep & (style.size_a != style.size_b)

    def rates(tag: str, mask: np.ndarray) -> dict[str, Any]:
        return {
            "judge": Ref(ratios.add(f"{key}/{tag}/judge", j_larger * mask, j_dec * mask)),
            "human": Ref(ratios.add(f"{key}/{tag}/human", h_larger * mask, h_dec * mask)),
        }

    out: dict[str, Any] = {
        "feature": style.feature,
        "n_examples": int(keep.sum()),
        "preferred_larger": rates("all", differ),
        "preferred_larger_gap": {**rates("gap", differ & style.gap), "rule": style.gap_rule},
    }
    close, elo_skip = strength
    if close is None:
        out["comparable"] = {"skipped": elo_skip}
    else:
        comparable = differ & close
        out["comparable"] = {**rates("comparable", comparable), "max_elo_gap": MAX_ELO_GAP,
                             "n_examples": int(comparable.sum())}
    out["beta"] = beta
    out["by_bucket"] = [_bucket(facts, ratios, f"{key}/bucket/{label}", label, keep & mask,
                                j_larger, j_dec, h_larger, h_dec)
                        for label, mask in style.buckets]
    out["curve"] = [_curve_bin(facts, ratios, f"{key}/curve/{label}", label, keep & mask,
                               style.x) for label, mask in style.curve]
    return out


def _bucket(facts, ratios, key, label, mask, j_larger, j_dec, h_larger, h_dec):
    """Accuracy and larger-side rates among the examples of one bucket."""
    soft, exact = facts.col("soft").astype(float), facts.col("exact").astype(float)
    return {
        "bucket": label,
        "n_examples": int(mask.sum()),
        "soft_accuracy": Ref(ratios.add(f"{key}/soft", soft * mask, mask)),
        "accuracy": Ref(ratios.add(f"{key}/exact", exact * mask, mask)),
        "judge_preferred_larger": Ref(ratios.add(f"{key}/jl", j_larger * mask, j_dec * mask)),
        "human_preferred_larger": Ref(ratios.add(f"{key}/hl", h_larger * mask, h_dec * mask)),
    }


def _curve_bin(facts, ratios, key, label, mask, x):
    """P(prefers A) for the judge (ties half, over answered judgments) and for humans."""
    answered, a_score = facts.judge_answered, facts.judge_sum
    return {
        "bin": label,
        "x_mean": _num(x[mask].mean()) if mask.any() else None,
        "n_examples": int(mask.sum()),
        "judge_p_a": Ref(ratios.add(f"{key}/judge", a_score * mask, answered * mask)),
        "human_p_a": Ref(ratios.add(f"{key}/human", facts.human * mask, mask)),
    }


def _comparable_strength(facts: _Facts) -> tuple[np.ndarray | None, str | None]:
    """The examples whose two models' human-derived ratings (`_human_ratings`) differ by at most MAX_ELO_GAP,
    computed once for every style section; (None, why) when there are no such ratings."""
    human_elo, elo_skip = _human_ratings(facts)
    return (None, elo_skip) if human_elo is None else (_comparable(facts, human_elo), None)


def _comparable(facts: _Facts, human_elo: dict[str, float]) -> np.ndarray:
    """Examples whose two models' human-derived ratings differ by at most MAX_ELO_GAP: the same model twice
    (named) always; two models both rated when |elo_a - elo_b| <= MAX_ELO_GAP (the same IEEE subtraction and
    absolute value as Python's floats); any other pair never."""
    a, b = facts.col("model_a"), facts.col("model_b")
    same = _known(a) & (a == b)
    with np.errstate(invalid="ignore"):  # NaN for a model without a rating: never comparable
        return same | (np.abs(_elo_of(a, human_elo) - _elo_of(b, human_elo)) <= MAX_ELO_GAP)


def _elo_of(models: np.ndarray, human_elo: dict[str, float]) -> np.ndarray:
    """Each entry's rating looked up by the dict itself (Python str equality; NaN for None or an unrated name)."""
    return np.fromiter(map(human_elo.get, models.tolist(), repeat(math.nan)), dtype=float, count=len(models))


def _beta(facts: _Facts, style: _Style, keep: np.ndarray, n_resamples: int,
          seed: int) -> dict[str, Any] | Deferred:
    """Style coefficient fitted on the judge's verdicts and on the human labels (paired); deferred on
    large runs (its bootstrap runs on the other core meanwhile: `_style_fits`)."""
    use = keep & np.isfinite(facts.judge)
    if use.sum() < 2 or np.all(style.x[use] == 0):
        return {"skipped": "fewer than 2 judged examples, or no difference in the feature"}
    model_terms = bool(facts.names_known()[use].all())
    a = facts.col("model_a")[use] if model_terms else np.full(use.sum(), "all")
    b = facts.col("model_b")[use] if model_terms else np.full(use.sum(), "all")
    probes: dict[str, float] = {}  # filled by the fits on every example when n > STYLE_BOOTSTRAP_MAX
    outcomes = {"human": facts.human[use], "judge": facts.judge[use]}
    features = {style.feature: style.x[use]}

    def summary(fits: dict[str, BTFit]) -> dict[str, Any]:
        human, judge = fits["human"], fits["judge"]
        excess = judge.beta[0] - human.beta[0]
        betas = {who: (fit.beta[0], probes[who] if who in probes else
                       fit_bt((a, b, outcomes[who]), features, l2=PENALTY_PROBE_L2).beta[0])
                 for who, fit in (("judge", judge), ("human", human))}
        stats = {
            "judge": _beta_stat(judge.beta[0], judge.beta_samples[:, 0], n_resamples, use.sum()),
            "human": _beta_stat(human.beta[0], human.beta_samples[:, 0], n_resamples, use.sum()),
            "excess": _beta_stat(excess, judge.beta_samples[:, 0] - human.beta_samples[:, 0],
                                 n_resamples, use.sum()),
        }
        for who in ("judge", "human"):
            if _penalty_bound(*betas[who]):
                stats[who]["separable"] = _infinity(betas[who][0])
        if "separable" in stats["judge"] or "separable" in stats["human"]:
            stats["excess"]["separable"] = "undefined" if all("separable" in stats[w] for w in ("judge", "human")) \
                else _infinity(excess)
        return {**stats, "model_terms": model_terms, "notes": _beta_notes(model_terms, betas)}

    return then(_start_style_fits(a, b, outcomes, features, n_resamples, seed, probes), summary)


def _style_fits(a: np.ndarray, b: np.ndarray, outcomes: dict[str, np.ndarray], features: dict[str, np.ndarray],
                n_resamples: int, seed: int, probes: dict[str, float] | None = None) -> dict[str, BTFit]:
    """The fits of `_start_style_fits`, waited for."""
    fits = _start_style_fits(a, b, outcomes, features, n_resamples, seed, probes)
    return fits.compute() if isinstance(fits, Deferred) else fits


def _start_style_fits(a: np.ndarray, b: np.ndarray, outcomes: dict[str, np.ndarray], features: dict[str, np.ndarray],
                      n_resamples: int, seed: int, probes: dict[str, float] | None = None
                      ) -> dict[str, BTFit] | Deferred:
    """Paired BT fits with style terms. Up to STYLE_BOOTSTRAP_MAX examples: the plain bootstrap. Above it
    (docs/guide/diagnostics.md): point fits on every example; the resamples come from a seeded subsample of m
    examples, rescaled to n: theta_n + sqrt(m / n) (theta*_m - theta_m), the m-out-of-n bootstrap. The
    subsample's design and fits are prepared here, once; its first chunk of rounds (ratings.PairedBootstrap.solve)
    starts in a forked child (background.py), which shares them, and the result is deferred: this process goes
    on with the other sections and, when the result is filled in, makes the point fits and solves the other
    chunks (a chunk's solves are the same in either process)."""
    n, m = len(a), STYLE_BOOTSTRAP_MAX
    if n <= m or n_resamples == 0:
        return paired_bootstrap_bt(a, b, outcomes, features, n_resamples=max(n_resamples, 1), seed=seed)
    rows = subsample(n, m, seed)
    part_args = (a[rows], b[rows], {who: y[rows] for who, y in outcomes.items()},
                 {name: x[rows] for name, x in features.items()})
    plan = PairedBootstrap.prepare(*part_args, n_resamples=n_resamples, seed=seed)
    pending = in_background(plan.solve, chunks=[0])  # the child's share: the first chunk of rounds

    def finish() -> dict[str, BTFit]:
        penalties = (DEFAULT_L2,) if probes is None else (DEFAULT_L2, PENALTY_PROBE_L2)
        both = {who: fit_bt_penalties((a, b, y), features, penalties) for who, y in outcomes.items()}
        full = {who: fits[0] for who, fits in both.items()}  # = fit_bt((a, b, y), features), one design for both L2s
        if probes is not None:  # `_beta`'s penalty probe: the first coefficient at PENALTY_PROBE_L2
            probes.update({who: fits[1].beta[0] for who, fits in both.items()})
        mine = plan.solve(chunks=range(1, plan.n_chunks))  # the other chunks of rounds, while the child solves its
        part = plan.fits_of({**pending.result(), **mine})
        scale = math.sqrt(m / n)
        out = {}
        for who, fit in full.items():
            shifted = fit.beta + scale * (part[who].beta_samples - part[who].beta)
            out[who] = dataclasses.replace(fit, beta_samples=shifted)
        return out

    return Deferred(finish)


def _beta_notes(model_terms: bool, betas: dict[str, tuple[float, float]]) -> list[str]:
    """Caveats for reading the style coefficients.

    betas: who -> (beta at the default L2, beta at a 100x larger L2). A real estimate
    barely moves; one that (quasi-)separated outcomes pushed to infinity is held only by
    the penalty and shrinks visibly."""
    notes = [] if model_terms else ["model names missing: beta fitted without model terms"]
    for who, (beta, probe) in betas.items():
        if _penalty_bound(beta, probe):
            notes.append(f"{who}: outcomes (quasi-)perfectly separated by the feature; the MLE "
                         "is infinite and the value shown is bounded only by the fit's tiny L2 "
                         f"penalty ({beta:.3g}; {probe:.3g} with a 100x larger penalty)")
    return notes


def _penalty_bound(beta: float, probe: float) -> bool:
    """A coefficient a 100x larger L2 penalty moves visibly: the outcomes are (quasi-)separated by the feature,
    the maximum-likelihood estimate does not exist (it is infinite) and the value is the penalty's."""
    return abs(beta - probe) > 0.01 * abs(beta) + 1e-3


def _infinity(beta: float) -> str:
    """How a separated coefficient is shown wherever it appears: its sign, and why there is no number."""
    return "+inf (separable)" if beta > 0 else "-inf (separable)"


def _beta_stat(value: float, samples: np.ndarray, n_resamples: int, n: int) -> dict[str, Any]:
    return _stat(value, samples if n_resamples else None, n)


# ---------------------------------------------------------------- system-level agreement


def _battles(facts: _Facts) -> np.ndarray:
    """Examples usable as rating battles: both model names, two different models."""
    known = facts.names_known()
    return known & (facts.col("model_a") != facts.col("model_b"))


def _human_ratings(facts: _Facts) -> tuple[dict[str, float] | None, str | None]:
    """Point BT ratings of the response models from all human labels, or a skip reason."""
    use = _battles(facts)
    if not use.any():
        return None, f"model names missing ({int((~facts.names_known()).sum())} of " \
                     f"{facts.n} examples without both names)"
    fit = fit_bt((facts.col("model_a")[use], facts.col("model_b")[use], facts.human[use]))
    return dict(zip(fit.models, fit.ratings.tolist())), None


def _system_section(facts: _Facts, n_resamples: int, seed: int,
                    resampler: Resampler | None = None) -> dict[str, Any] | Deferred:
    """Human vs judge BT ratings of the response models. The human ratings are fitted on
    every battle (so they are the same whichever judge is read against them); the judge's
    on the battles it answered; the bootstrap resamples all battles for both (paired).
    When every example is a battle, its resamples are the ratio bootstrap's (the same seeded
    draws): given `resampler`, the section is deferred and its rounds counted in the ratio pass."""
    use = _battles(facts)
    answered = use & np.isfinite(facts.judge)
    named = np.concatenate([facts.col("model_a")[answered], facts.col("model_b")[answered]])
    models = set(named.tolist())  # not set() of the array: see ratings._build_design
    if len(models) < 3:
        return {"skipped": f"needs battles between at least 3 named models (have {len(models)})"}
    groups = comparison_groups(facts.col("model_a")[answered].tolist(), facts.col("model_b")[answered].tolist())
    if len(groups) > 1:  # (an outside audit: a rank correlation over two unconnected pairs of models was reported)
        sizes = ", ".join(str(len(g)) for g in groups)
        return {"skipped": f"the judged battles leave {len(groups)} groups of models that no battle connects "
                           f"({sizes} models): ratings across them are not comparable"}
    plan = PairedBootstrap.prepare(
        facts.col("model_a")[use], facts.col("model_b")[use],
        {"human": facts.human[use], "judge": facts.judge[use]},  # judge NaN: not answered
        n_resamples=max(n_resamples, 1), seed=seed,
    )
    if (resampler is not None and use.all() and plan.draws_as(resampler.n, resampler.rounds, resampler.seed)
            and plan.n_units * resampler.rounds <= TALLY_MAX_CELLS):
        tally = resampler.tally(plan.battle_unit, plan.n_units)
        return Deferred(lambda: _system_summary(plan.fits(tally.counts()), facts, use, answered, n_resamples,
                                                _unbeaten(plan)))
    return _system_summary(plan.fits(), facts, use, answered, n_resamples, _unbeaten(plan))


def _unbeaten(plan: PairedBootstrap) -> dict[str, list[list[list[str]]]]:
    """Per side (human labels, judge verdicts) with any, the models its battles order without an upset."""
    found = {key: plan.unbeaten(key) for key in ("human", "judge")}
    return {key: orders for key, orders in found.items() if orders}


def _system_summary(fits: dict[str, BTFit], facts: _Facts, use: np.ndarray, answered: np.ndarray,
                    n_resamples: int, unbeaten: dict[str, list[list[list[str]]]]) -> dict[str, Any]:
    human, judge = fits["human"], fits["judge"]
    rho, tau = rank_correlations(human.ratings[None, :], judge.ratings[None, :])
    rho_s, tau_s = rank_correlations(human.rating_samples, judge.rating_samples)
    k = min(TOP_K, len(human.models) - 1)
    extra = {"unbeaten": {key: best_first(orders, dict(zip(fits[key].models, fits[key].ratings)))
                          for key, orders in unbeaten.items()}} if unbeaten else {}
    return {
        "n_battles": int(answered.sum()),
        "n_battles_human": int(use.sum()),
        "n_models": len(human.models),
        "spearman": _stat(rho[0], rho_s if n_resamples else None, len(human.models)),
        "kendall": _stat(tau[0], tau_s if n_resamples else None, len(human.models)),
        "top_k": {"k": k, "overlap": top_k_overlap(human, judge, k)},
        "separability": {"human": _separability(human) if n_resamples else None,
                         "judge": _separability(judge) if n_resamples else None},
        "ratings": _ratings_rows(human, judge, facts, use),
        **extra,  # only when a side's battles leave ratings unidentified: older results stay as they were
    }


def rank_correlations(h: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Spearman and Kendall (tau-b) per row of two rounds x models matrices; models
    missing (NaN) in a round are left out of that round."""
    rho, tau = np.full(len(h), np.nan), np.full(len(h), np.nan)
    complete = np.isfinite(h).all(axis=1) & np.isfinite(j).all(axis=1)
    if complete.any():
        rho[complete], tau[complete] = _rank_corr_complete(h[complete], j[complete])
    for r in np.flatnonzero(~complete):
        ok = np.isfinite(h[r]) & np.isfinite(j[r])
        if ok.sum() >= 3:
            (rho[r],), (tau[r],) = _rank_corr_complete(h[r : r + 1, ok], j[r : r + 1, ok])
    return rho, tau


def _average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..m per row, ties sharing their average rank (scipy's rankdata 'average')."""
    less = (x[:, None, :] < x[:, :, None]).sum(axis=2)
    equal = (x[:, None, :] == x[:, :, None]).sum(axis=2)
    return less + (equal + 1) / 2


def _rank_corr_complete(h: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised Spearman (Pearson on average ranks) and Kendall tau-b per row."""
    rh, rj = _average_ranks(h), _average_ranks(j)
    rh, rj = rh - rh.mean(1, keepdims=True), rj - rj.mean(1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = (rh * rj).sum(1) / np.sqrt((rh**2).sum(1) * (rj**2).sum(1))
        sh = np.sign(h[:, :, None] - h[:, None, :])
        sj = np.sign(j[:, :, None] - j[:, None, :])
        tau = (sh * sj).sum((1, 2)) / np.sqrt((sh != 0).sum((1, 2)) * (sj != 0).sum((1, 2)))
    return rho, tau


def top_k_overlap(human: BTFit, judge: BTFit, k: int) -> float | None:
    """Share of the human top-k models that are also in the judge's top-k."""
    if k < 1:
        return None
    top = lambda fit: set(np.array(fit.models)[np.argsort(-fit.ratings)[:k]])  # noqa: E731
    return len(top(human) & top(judge)) / k


def _separability(fit: BTFit) -> float | None:
    """Share of model pairs whose 95% rating intervals do not overlap."""
    lo, hi = fit.ci_low, fit.ci_high
    if lo is None or hi is None or len(lo) < 2:
        return None
    i, j = np.triu_indices(len(lo), k=1)
    apart = (hi[i] < lo[j]) | (hi[j] < lo[i])
    return float(apart.mean())


def _ratings_rows(human: BTFit, judge: BTFit, facts: _Facts, use: np.ndarray) -> list[dict]:
    """One row per response model: human and judge ratings with intervals, battles."""
    a, b = facts.col("model_a")[use], facts.col("model_b")[use]
    names, counts = np.unique(np.concatenate([a, b]).astype(str), return_counts=True)
    battles = dict(zip(names.tolist(), counts.tolist()))
    rows = []
    for i, model in enumerate(human.models):
        rows.append({
            "model": model,
            "battles": int(battles.get(model, 0)),
            "human": _fit_stat(human, i),
            "judge": _fit_stat(judge, i),
        })
    return sorted(rows, key=lambda r: -(r["human"]["value"] or -math.inf))


def _fit_stat(fit: BTFit, i: int) -> dict[str, Any]:
    return {"value": _num(fit.ratings[i]),
            "ci_low": None if fit.ci_low is None else _num(fit.ci_low[i]),
            "ci_high": None if fit.ci_high is None else _num(fit.ci_high[i])}


# ---------------------------------------------------------------- accuracy by slice


def _accuracy_section(facts: _Facts, ratios: _Ratios, dimension: str) -> dict[str, Any]:
    """Headline accuracies and per-slice accuracies, each with an interval."""
    soft, exact = facts.col("soft").astype(float), facts.col("exact").astype(float)
    ones = np.ones(facts.n)
    out: dict[str, Any] = {
        "soft_accuracy": Ref(ratios.add(f"{dimension}/acc/soft", soft, ones)),
        "accuracy": Ref(ratios.add(f"{dimension}/acc/exact", exact, ones)),
        "by_slice": {},
    }
    for column in facts.slice_columns():
        values = facts.col(column)
        out["by_slice"][column[len("slice_"):]] = {
            str(v): {
                "soft_accuracy": Ref(ratios.add(f"{dimension}/{column}/{v}/soft",
                                                 soft * (values == v), values == v)),
                "accuracy": Ref(ratios.add(f"{dimension}/{column}/{v}/exact",
                                            exact * (values == v), values == v)),
            }
            for v in sorted(set(values[_known(values)]), key=str)
        }
    return out


# ---------------------------------------------------------------- entry points


def diagnose_dimension(records: list[JudgmentRecord], dimension: str, *,
                       both_bad: BothBad = "tie", n_resamples: int = 1000,
                       seed: int = 0) -> dict[str, Any]:
    """All diagnostics of one dimension (JSON-serialisable); no intervals from fewer than MIN_UNITS examples (a
    bootstrap of one example printed [100.0, 100.0])."""
    facts = _facts(records, dimension, both_bad)
    n_resamples = n_resamples if facts.n >= MIN_UNITS else 0
    ratios = _Ratios(Resampler(facts.n, n_resamples, seed), {})
    length, length_keep = _length_style(facts), np.ones(facts.n, dtype=bool)
    cited = np.isfinite(facts.col("citations_a").astype(float)) & \
        np.isfinite(facts.col("citations_b").astype(float))
    citations = _citation_style(facts, cited) if cited.any() else None
    # The style coefficients first: on large runs their bootstraps start in children now (`_beta`)
    betas = {style.name: _beta(facts, style, keep, n_resamples, seed)
             for style, keep in ((length, length_keep), (citations, cited)) if style is not None}
    strength = _comparable_strength(facts)
    out: dict[str, Any] = {
        "n_examples": facts.n,
        "n_judged_examples": int(np.isfinite(facts.judge).sum()),
        "accuracy": _accuracy_section(facts, ratios, dimension),
        "order": _order_section(facts, ratios, dimension),
        "length": _style_section(facts, length, length_keep, ratios, strength, dimension, betas[length.name]),
    }
    out["citations"] = (
        _style_section(facts, citations, cited, ratios, strength, dimension, betas[citations.name])
        if citations is not None else {"skipped": "no citation counts in the records"}
    )
    out["system"] = _system_section(facts, n_resamples, seed, ratios.resampler)
    out["confusion"] = confusion_matrix(records, dimension, both_bad)
    values = ratios.resolve()
    out["system"] = fill(out["system"], values)  # its rounds now, before waiting for a child's (the style's)
    return fill(out, values)


def diagnose(records: Iterable[JudgmentRecord], *, both_bad: BothBad = "tie",
             n_resamples: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Diagnostics of one judge's run, per dimension (JSON-serialisable).

    Keys: schema, task, judge, both_bad, n_resamples, seed, dimensions
    (dimension -> accuracy, order, length, citations, system, confusion).
    """
    records = _checked(records)
    dimensions = list(dict.fromkeys(r.dimension for r in records))  # in order of appearance
    with reuse_tables(records), gc_paused():  # each table built once (judgment_table); bulk numeric work (bulk.py)
        per_dimension = {d: diagnose_dimension(records, d, both_bad=both_bad, n_resamples=n_resamples, seed=seed)
                         for d in dimensions}
    return {
        "schema": SCHEMA,
        "task": records[0].task,
        "judge": records[0].judge,
        "both_bad": both_bad,
        "n_resamples": n_resamples,
        "seed": seed,
        "dimensions": per_dimension,
    }


def _checked(records: Iterable[JudgmentRecord]) -> list[JudgmentRecord]:
    """The records as a list (the same list: scoring reuses its tables), of one task and one judge."""
    records = records if isinstance(records, list) else list(records)
    if not records:
        raise NumericError("diagnose: no records")
    for field in ("task", "judge"):
        values = sorted({getattr(r, field) for r in records})
        if len(values) > 1:
            raise NumericError(f"diagnose: records from several {field}s ({', '.join(values)});"
                                  " diagnose one run at a time")
    return records


def leaderboard_diagnostics(records: Iterable[JudgmentRecord], *, both_bad: BothBad = "tie",
                            seed: int = 0) -> dict[str, Any]:
    """`leaderboard_columns(diagnose(records, n_resamples=0))` computing only what those columns read:
    the primary dimension's position bias, longer-preferred rate, judge length coefficient and
    Spearman, by the same functions on the same arrays (what `score` stores; `report` has the rest)."""
    return start_leaderboard_diagnostics(records, both_bad=both_bad, seed=seed).result()


def start_leaderboard_diagnostics(records: Iterable[JudgmentRecord], *, both_bad: BothBad = "tie",
                                  seed: int = 0) -> Pending:
    """`leaderboard_diagnostics` begun: where a child can be forked, the per-example facts are read here and,
    above STYLE_BOOTSTRAP_MAX examples, the fits go on in a forked child (background.py) while the caller
    computes the metrics on this core; else everything waits for `.result()` (nothing held meanwhile).
    `.result()` gives the columns, the same either way."""
    if not can_fork():
        return later(_leaderboard_now, records, both_bad, seed)
    facts, dimension = _primary_facts(records, both_bad)
    where = in_background if facts.n > STYLE_BOOTSTRAP_MAX else here  # a child only reads the facts' arrays
    return where(_leaderboard_columns, facts, dimension, seed)


def _leaderboard_now(records: Iterable[JudgmentRecord], both_bad: BothBad, seed: int) -> dict[str, Any]:
    return _leaderboard_columns(*_primary_facts(records, both_bad), seed)


def _primary_facts(records: Iterable[JudgmentRecord], both_bad: BothBad) -> tuple[_Facts, str]:
    """The per-example facts of the dimension leaderboards show ("overall" when present, else the first)."""
    records = _checked(records)
    dimensions = list(dict.fromkeys(r.dimension for r in records))
    dimension = DEFAULT_DIMENSION if DEFAULT_DIMENSION in dimensions else dimensions[0]
    with reuse_tables(records), gc_paused():
        return _facts(records, dimension, both_bad), dimension


def _leaderboard_columns(facts: _Facts, dimension: str, seed: int) -> dict[str, Any]:
    with gc_paused():
        ratios = _Ratios(Resampler(facts.n, 0, seed), {})
        style, keep = _length_style(facts), np.ones(facts.n, dtype=bool)
        j_dec, j_larger = _judge_choice(facts, style.size_a, style.size_b)
        differ = keep & (style.size_a != style.size_b)
        ratios.add("position_bias", facts.col("shown_first"), facts.col("shown_decisive"))
        ratios.add("preferred_larger", j_larger * differ, j_dec * differ)
        values = ratios.resolve()
        beta = _beta_point(facts, style, keep, seed)
        system = _system_section(facts, 0, seed)
    diag = {"dimensions": {dimension: {
        "order": {"position_bias": values["position_bias"]},
        "length": {"preferred_larger": {"judge": values["preferred_larger"]}, "beta": {"judge": beta}},
        "system": system,
    }}}
    return leaderboard_columns(diag)


def _beta_point(facts: _Facts, style: _Style, keep: np.ndarray, seed: int) -> dict[str, Any] | None:
    """The judge's style coefficient as `_beta` computes it without resamples (None when skipped)."""
    use = keep & np.isfinite(facts.judge)
    if use.sum() < 2 or np.all(style.x[use] == 0):
        return None
    model_terms = bool(facts.names_known()[use].all())
    a = facts.col("model_a")[use] if model_terms else np.full(use.sum(), "all")
    b = facts.col("model_b")[use] if model_terms else np.full(use.sum(), "all")
    features = {style.feature: style.x[use]}
    fits = _style_fits(a, b, {"human": facts.human[use], "judge": facts.judge[use]}, features, 0, seed)
    stat = _beta_stat(fits["judge"].beta[0], fits["judge"].beta_samples[:, 0], 0, use.sum())
    beta, probe = fits["judge"].beta[0], fit_bt((a, b, facts.judge[use]), features, l2=PENALTY_PROBE_L2).beta[0]
    if _penalty_bound(beta, probe):
        stat["separable"] = _infinity(beta)
    return stat


def primary_dimension(diag: dict[str, Any]) -> str | None:
    """The dimension leaderboards show: "overall" when present, else the first."""
    dims = list(diag.get("dimensions", {}))
    if not dims:
        return None
    return DEFAULT_DIMENSION if DEFAULT_DIMENSION in dims else dims[0]


def leaderboard_columns(diag: dict[str, Any], dimension: str | None = None) -> dict[str, Any]:
    """Diagnostics columns for the leaderboards, for one dimension (default: primary).

    position_bias and longer_preferred_rate are in percent (0-100, 2 decimals) like the
    leaderboards' other rate columns; length_beta is the judge's BT coefficient on the
    log length ratio (log-odds per unit); spearman_to_human is the rank correlation of
    the response models' ratings from the judge's verdicts vs from the human labels.
    None where a diagnostic could not be computed.
    """
    dimension = dimension or primary_dimension(diag)
    d = diag.get("dimensions", {}).get(dimension or "", {})
    pct = lambda v: None if v is None else round(100 * v, 2)  # noqa: E731
    return {
        "position_bias": pct(_get(d, "order", "position_bias", "value")),
        "longer_preferred_rate": pct(_get(d, "length", "preferred_larger", "judge", "value")),
        "length_beta": _get(d, "length", "beta", "judge", "separable") or _round(_get(d, "length", "beta", "judge", "value"), 4),
        "spearman_to_human": _round(_get(d, "system", "spearman", "value"), 4),
    }


def _get(tree: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(tree, dict):
            return None
        tree = tree.get(key)
    return tree


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)
