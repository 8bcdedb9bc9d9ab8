"""Rankings against rankings: a judge's induced ratings vs the human ones (on the full vote set), and
the robustness of the human ranking to annotator subsampling and to leaving a slice out.

Spearman, Kendall tau-b and top-k overlap are diagnostics.py's definitions (one definition each);
rank displacement is the mean (and largest) absolute difference of a model's rank (1 = best) in the
two rankings, over the models both rank.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
import pandas as pd

from judgebench.human.arena.battles import SLICE, aggregate, cell_counts
from judgebench.human.arena.coded import OUTCOMES, Coded
from judgebench.human.arena.defaults import DEFAULT_REPEATS, FRACTIONS, TOP_K  # noqa: F401
from judgebench.human.arena.fit import FitOptions
from judgebench.scoring.diagnostics import rank_correlations, top_k_overlap
from judgebench.stats.ratings import BTFit, PairedBootstrap, best_first, fit_bt_coded_weights


def ordinal_ranks(x: np.ndarray) -> np.ndarray:
    """Per row, the rank of each entry (1 = largest); NaN entries get NaN."""
    x = np.atleast_2d(x)
    filled = np.where(np.isfinite(x), x, -np.inf)
    ranks = np.argsort(np.argsort(-filled, axis=1, kind="stable"), axis=1) + 1.0
    return np.where(np.isfinite(x), ranks, np.nan)


def displacement(h: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mean, max) |rank difference| per row over the models present in both rows."""
    both = np.isfinite(h) & np.isfinite(j)
    h, j = np.where(both, h, np.nan), np.where(both, j, np.nan)
    diff = np.abs(ordinal_ranks(h) - ordinal_ranks(j))
    with np.errstate(all="ignore"):
        return np.nanmean(diff, axis=1), np.nanmax(diff, axis=1)


def _interval(value: float, samples: np.ndarray | None) -> dict[str, Any]:
    finite = samples[np.isfinite(samples)] if samples is not None else np.zeros(0)
    lo, hi = (np.percentile(finite, [2.5, 97.5]) if len(finite) else (np.nan, np.nan))
    clean = lambda v: float(v) if np.isfinite(v) else None  # noqa: E731
    return {"value": clean(value), "ci_low": clean(lo), "ci_high": clean(hi)}


def judge_agreement(table: pd.DataFrame, judge: np.ndarray, opts: FitOptions,
                    top_k: int = TOP_K) -> dict[str, Any]:
    """Judge-induced vs human ratings on the same battles (one per vote). The human ratings use
    every battle; the judge's the battles whose pair it answered (judge NaN elsewhere); the
    bootstrap rounds are multinomial draws on the shared counts, so the statistics are paired."""
    agg = aggregate(table, extra={"judge": judge})
    plan = PairedBootstrap.prepare(agg["model_a"], agg["model_b"], {"human": agg["outcome"], "judge": agg["judge"]},
                                   weights=agg["count"], n_resamples=max(opts.n_resamples, 1), seed=opts.seed,
                                   **opts.elo(None))
    fits = plan.fits()
    human, induced = fits["human"], fits["judge"]
    rho, tau = rank_correlations(human.ratings[None, :], induced.ratings[None, :])
    rho_s, tau_s = rank_correlations(human.rating_samples, induced.rating_samples)
    mean_d, max_d = displacement(human.ratings[None, :], induced.ratings[None, :])
    mean_s, _ = displacement(human.rating_samples, induced.rating_samples)
    k = max(1, min(top_k, len(human.models) - 1))
    answered = np.isfinite(judge)
    return {
        "battles": int(len(table)), "answered_battles": int(answered.sum()),
        "coverage": float(answered.mean()), "models": len(human.models),
        "spearman": _interval(rho[0], rho_s), "kendall": _interval(tau[0], tau_s),
        "top_k": {"k": k, "overlap": top_k_overlap(human, induced, k)},
        "rank_displacement": {**_interval(mean_d[0], mean_s), "max": float(max_d[0])},
        "ratings": [{"model": m, "human": _num(human.ratings[i]), "judge": _num(induced.ratings[i]),
                     "judge_ci_low": _num(induced.ci_low[i]), "judge_ci_high": _num(induced.ci_high[i])}
                    for i, m in enumerate(human.models)],
        "unbeaten": best_first(plan.unbeaten("judge"), dict(zip(induced.models, induced.ratings))),  # no upset
    }


def _num(v: float) -> float | None:
    return float(v) if np.isfinite(v) else None


class _Cells:
    """Battles as integer cells (Coded.cells), so a subset's counts are one bincount, and an annotator
    subset's one sparse product over the annotators' cell counts (built once)."""

    def __init__(self, table: pd.DataFrame, coded: Coded | None = None):
        coded = coded if coded is not None else Coded(table)
        self.names = coded.canonical()[3]
        self.m = len(self.names)
        self.key = coded.cells
        self.cells, self.counts = cell_counts(self.key, self.m)  # the cells of every battle

    def fit(self, mask: np.ndarray, opts: FitOptions) -> BTFit:
        """The fit on the battles where mask."""
        return self._fit(*cell_counts(self.key[mask], self.m), opts)

    def fit_all(self, opts: FitOptions) -> BTFit:
        """The fit on every battle."""
        return self._fit(self.cells, self.counts, opts)

    def by_annotator(self, who: np.ndarray, n: int) -> Any:
        """Per cell (rows) and annotator (columns, codes `who` < n), the count of battles: a sparse matrix whose rows
        list each battle's annotator (a repeated one is summed by a product, like an explicit count; building it by
        one stable sort of the cells, a radix sort when they fit 16 bits, halves scipy's build with summing)."""
        from scipy.sparse import csr_matrix

        rows = self.m * self.m * len(OUTCOMES)
        order = np.argsort(self.key.astype(np.uint16) if rows <= 2**16 else self.key, kind="stable")
        starts = np.zeros(rows + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.key, minlength=rows), out=starts[1:])
        return csr_matrix((np.ones(len(who), dtype=np.int64), who[order], starts), shape=(rows, n))

    def fit_annotators(self, per_annotator: Any, chosen: list[np.ndarray], opts: FitOptions) -> list[BTFit]:
        """The fit on each chosen set of annotators' battles (the same counts as `fit` on their votes' mask). The
        sets whose battles fill every cell of the whole data are the same battles weighted otherwise: their fits
        share one design (fit_bt_coded_weights)."""
        counts = [per_annotator @ mask.astype(np.int64) for mask in chosen]  # one pass over the matrix each
        fits: list[BTFit | None] = [None] * len(counts)
        filled = [i for i, c in enumerate(counts) if c[self.cells].all()]  # (a subset's cells are among them)
        shared = self._fits(self.cells, (counts[i][self.cells] for i in filled), opts)
        for i, fit in zip(filled, shared):
            fits[i] = fit
        for i, c in enumerate(counts):
            if fits[i] is None:
                cells = np.flatnonzero(c)
                fits[i] = self._fit(cells, c[cells], opts)
        return fits  # type: ignore[return-value]

    def _fit(self, cells: np.ndarray, counts: np.ndarray, opts: FitOptions) -> BTFit:
        return next(self._fits(cells, [counts], opts))

    def _fits(self, cells: np.ndarray, counts: Iterable[np.ndarray], opts: FitOptions) -> Iterator[BTFit]:
        pair, outcome = np.divmod(cells, len(OUTCOMES))
        lo, hi = np.divmod(pair, self.m)
        return fit_bt_coded_weights(lo, hi, OUTCOMES[outcome], self.names, counts, **opts.elo(None))


def _aligned(fit: BTFit, models: tuple[str, ...]) -> np.ndarray:
    index = {m: i for i, m in enumerate(fit.models)}
    return np.array([fit.ratings[index[m]] if m in index else np.nan for m in models])


def _correlation_summary(full: np.ndarray, rows: np.ndarray) -> dict[str, Any]:
    rho, tau = rank_correlations(np.repeat(full[None, :], len(rows), axis=0), rows)
    summary = {}
    for name, values in (("spearman", rho), ("kendall", tau)):
        finite = values[np.isfinite(values)]
        summary[name] = {"mean": float(finite.mean()) if len(finite) else None,
                         "ci_low": float(np.percentile(finite, 2.5)) if len(finite) else None,
                         "ci_high": float(np.percentile(finite, 97.5)) if len(finite) else None}
    return summary


def robustness(table: pd.DataFrame, slice_keys: list[str], opts: FitOptions,
               repeats: int = DEFAULT_REPEATS, coded: Coded | None = None) -> dict[str, Any]:
    """Rank correlation of the full human ranking with the ranking from (a) a random share of the
    annotators (each share `repeats` times; mean and 2.5-97.5 percentile range over the repeats)
    and (b) the votes without one slice value (one figure per left-out value). repeats=0: no subsampling."""
    coded = coded if coded is not None else Coded(table)
    cells = _Cells(table, coded)
    full_fit = cells.fit_all(opts)
    full = full_fit.ratings
    who, _ = pd.factorize(coded.annotators[0])  # in order of first appearance, as the draws have always used
    annotators = np.arange(int(who.max()) + 1 if len(who) else 0)
    out: dict[str, Any] = {"repeats": repeats, "subsampling": [], "leave_one_slice_out": []}
    if repeats == 0:  # asked for none: the subset fits take seconds whatever the vote count
        out["subsampling_skipped"] = "--robustness-repeats 0"
    elif len(annotators) < 2:
        out["subsampling_skipped"] = "fewer than 2 annotators"
    else:
        rng = np.random.default_rng([opts.seed, 12])
        per_annotator = cells.by_annotator(who, len(annotators))
        for fraction in FRACTIONS:
            size = max(1, int(round(fraction * len(annotators))))
            chosen = []
            for _ in range(repeats):
                keep = rng.choice(annotators, size=size, replace=False)
                chosen.append(np.zeros(len(annotators), dtype=bool))
                chosen[-1][keep] = True
            if size == len(annotators):  # every annotator: the full ranking, a correlation of 1 by construction
                out["subsampling"].append({"fraction": fraction, "annotators": size, "skipped": "every annotator"})
                continue  # (drawn all the same: the other shares' draws stay the seed's)
            rows = [_aligned(fit, full_fit.models) for fit in cells.fit_annotators(per_annotator, chosen, opts)]
            out["subsampling"].append({"fraction": fraction, "annotators": size,
                                       **_correlation_summary(full, np.array(rows))})
    for key in slice_keys:
        for value in sorted(table[SLICE + key].dropna().unique()):
            keep = (table[SLICE + key] != value).to_numpy()
            if not keep.any():
                continue
            row = _aligned(cells.fit(keep, opts), full_fit.models)[None, :]
            rho, tau = rank_correlations(full[None, :], row)
            out["leave_one_slice_out"].append({"slice": key, "left_out": str(value), "votes_left": int(keep.sum()),
                                               "spearman": _num(rho[0]), "kendall": _num(tau[0])})
    return out
