"""Model ratings from battles: Bradley–Terry on the Elo scale (ratings.py) fitted on aggregated
counts, ranks by interval overlap, style control, per-slice ratings, win-rate and battle matrices."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from judgebench.human.arena.battles import SLICE, aggregate
from judgebench.human.arena.coded import Coded
from judgebench.stats.ratings import BTFit, bootstrap_bt, fit_bt
from judgebench.stats.resampling import MIN_UNITS

STYLE_GRID = 0.01  # style features (normalised differences) are rounded to this before aggregating
MIN_SLICE_MODELS = 2


@dataclass(frozen=True)
class FitOptions:
    anchor: str | None = None
    anchor_rating: float = 1000.0
    scale: float = 400.0
    base: float = 10.0
    n_resamples: int = 1000
    seed: int = 0

    def elo(self, anchor: str | None) -> dict[str, Any]:
        return {"anchor_model": anchor, "anchor_rating": self.anchor_rating, "scale": self.scale, "base": self.base}


def rate(table: pd.DataFrame, opts: FitOptions, features: pd.DataFrame | None = None,
         bootstrap: bool = True, anchor: str | None = None, coded: Coded | None = None) -> BTFit:
    """BT fit (with intervals when bootstrap) on the battles aggregated to counts (`coded`: the table's codes,
    when the caller has them)."""
    names = list(features.columns) if features is not None else None
    return rate_counts(aggregate(table, features, coded=coded), opts, names, bootstrap, anchor)


def rate_counts(agg: pd.DataFrame, opts: FitOptions, names: list[str] | None = None,
                bootstrap: bool = True, anchor: str | None = None) -> BTFit:
    """BT fit on aggregated battles (model_a, model_b, outcome, count[, feature columns])."""
    battles = (agg["model_a"], agg["model_b"], agg["outcome"])
    x = agg[names] if names else None
    elo = opts.elo(anchor)
    if not bootstrap or opts.n_resamples == 0 or agg["count"].sum() < MIN_UNITS:  # (one vote: no interval to show)
        return fit_bt(battles, x, weights=agg["count"], **elo)
    return bootstrap_bt(battles, x, weights=agg["count"], n_resamples=opts.n_resamples, seed=opts.seed, **elo)


def ci_ranks(fit: BTFit) -> np.ndarray:
    """Rank of each model: 1 + the number of models whose interval lies wholly above its own
    (Chatbot Arena's rule), so models with overlapping intervals share ranks; without
    intervals, the plain order (1 = best)."""
    if fit.ci_low is None or fit.ci_high is None:
        order = np.argsort(-fit.ratings, kind="stable")
        ranks = np.empty(len(order), dtype=int)
        ranks[order] = np.arange(1, len(order) + 1)
        return ranks
    return 1 + (fit.ci_low[None, :] > fit.ci_high[:, None]).sum(axis=1)


def record_counts(table: pd.DataFrame, coded: Coded | None = None) -> pd.DataFrame:
    """Per model (that battled): battles, wins, ties (incl. Both Bad counted as ties), losses."""
    coded = coded if coded is not None else Coded(table)
    a, b, names = coded.models
    per_cell = coded.outcome_counts()
    if per_cell is not None:  # from the cells' counts (a sorted pair's first model: [..., 0] lost, [..., 2] won)
        loss, tie, win = (per_cell[..., i] for i in range(3))
        battles, wins = per_cell.sum(axis=(1, 2)) + per_cell.sum(axis=(0, 2)), win.sum(1) + loss.sum(0)
        ties, losses = tie.sum(1) + tie.sum(0), loss.sum(1) + win.sum(0)
    else:  # an outcome that is no loss, tie or win: per battle
        y = table["outcome"].to_numpy()

        def count(score: float) -> np.ndarray:  # battles the model scored `score` in, as model_a or model_b
            return (np.bincount(a[y == score], minlength=len(names))
                    + np.bincount(b[1 - y == score], minlength=len(names)))

        battles = np.bincount(a, minlength=len(names)) + np.bincount(b, minlength=len(names))
        wins, ties, losses = count(1), count(0.5), count(0)
    frame = pd.DataFrame({"battles": battles, "wins": wins, "ties": ties, "losses": losses},
                         index=pd.Index(names, name="model"))
    return frame[battles > 0]


def rating_rows(fit: BTFit, table: pd.DataFrame, coded: Coded | None = None) -> list[dict[str, Any]]:
    """One row per model, best first: rank (by CI overlap), rating, interval, battle record."""
    counts = record_counts(table, coded)
    ranks = ci_ranks(fit)
    rows = []
    for i, model in enumerate(fit.models):
        rows.append({
            "rank": int(ranks[i]), "model": model, "rating": _num(fit.ratings[i]),
            "ci_low": None if fit.ci_low is None else _num(fit.ci_low[i]),
            "ci_high": None if fit.ci_high is None else _num(fit.ci_high[i]),
            **{k: int(counts.at[model, k]) for k in ("battles", "wins", "ties", "losses")},
        })
    return sorted(rows, key=lambda r: (-(r["rating"] if r["rating"] is not None else -math.inf), r["model"]))


def style_features(table: pd.DataFrame) -> tuple[pd.DataFrame | None, list[str]]:
    """Normalised differences (A - B) / (A + B) of length and citation count (0 when both are 0),
    rounded to STYLE_GRID and divided by their standard deviation over the battles (so a
    coefficient is log-odds per standard deviation). A feature missing on any battle is left out."""
    columns, notes = {}, []
    for name in ("length", "citations"):
        a, b = table[f"{name}_a"].to_numpy(dtype=float), table[f"{name}_b"].to_numpy(dtype=float)
        if not np.isfinite(a).all() or not np.isfinite(b).all():
            notes.append(f"{name}: not recorded on every battle; left out of style control")
            continue
        total = a + b
        diff = np.divide(a - b, total, out=np.zeros_like(total), where=total > 0)
        diff = np.round(diff / STYLE_GRID) * STYLE_GRID
        sd = float(diff.std())
        if sd == 0:
            notes.append(f"{name}: no difference between the responses; left out of style control")
            continue
        columns[name] = diff / sd
    return (pd.DataFrame(columns, index=table.index) if columns else None), notes


def style_section(table: pd.DataFrame, opts: FitOptions, coded: Coded | None = None) -> dict[str, Any]:
    """Style-controlled ratings and the style coefficients, with intervals."""
    features, notes = style_features(table)
    if features is None:
        return {"skipped": "; ".join(notes) or "no style features"}
    fit = rate(table, opts, features, anchor=opts.anchor, coded=coded)
    coef = {f: {"value": _num(fit.beta[j]),
                "ci_low": None if fit.beta_ci_low is None else _num(fit.beta_ci_low[j]),
                "ci_high": None if fit.beta_ci_high is None else _num(fit.beta_ci_high[j])}
            for j, f in enumerate(fit.feature_names)}
    return {"features": list(fit.feature_names), "coefficients": coef, "notes": notes,
            "ratings": rating_rows(fit, table, coded), "fit": fit}


def slice_sections(table: pd.DataFrame, slice_keys: list[str], opts: FitOptions,
                   coded: Coded | None = None) -> list[dict[str, Any]]:
    """Ratings per slice value (e.g. discipline); the anchor applies where the slice has it."""
    coded = coded if coded is not None else Coded(table)
    out = []
    for key in slice_keys:
        for value, rows in table.groupby(SLICE + key, sort=True).indices.items():
            part = table.iloc[rows]
            part_coded = coded.subset(rows, part)
            a, b, names = part_coded.models
            models = set(names[np.unique(np.concatenate([a, b]))])
            entry: dict[str, Any] = {"slice": key, "value": str(value), "votes": int(len(part))}
            if len(models) < MIN_SLICE_MODELS:
                out.append({**entry, "skipped": f"fewer than {MIN_SLICE_MODELS} models"})
                continue
            anchor = opts.anchor if opts.anchor in models else None
            fit = rate(part, opts, anchor=anchor, coded=part_coded)
            out.append({**entry, "anchor": anchor, "ratings": rating_rows(fit, part, part_coded)})
    return out


def matrices(table: pd.DataFrame, models: list[str], coded: Coded | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Win rate of the row model against the column model (ties half; NaN when they never met)
    and the number of battles between them, in the given model order."""
    coded = coded if coded is not None else Coded(table)
    a, b, names = coded.models
    y = table["outcome"].to_numpy()
    n = len(names)
    per_cell = coded.outcome_counts()

    def cells(points: bool) -> np.ndarray:  # (row, col) battles, or the row model's points, the row on either side
        if per_cell is not None:  # the sorted pairs' counts: (lo, hi) holds lo's points, (hi, lo) hi's
            loss, tie, win = (per_cell[..., i] for i in range(3))
            first, second = (win + 0.5 * tie, loss + 0.5 * tie) if points else (per_cell.sum(axis=2),) * 2
            return first + second.T
        weights = y.astype(float) if points else None
        first = np.bincount(a * n + b, weights=weights, minlength=n * n)
        second = np.bincount(b * n + a, weights=None if weights is None else 1 - weights, minlength=n * n)
        return (first + second).reshape(n, n)

    index = {name: i for i, name in enumerate(names)}
    where = np.array([index.get(m, n) for m in models], dtype=np.int64)  # n: a model that never battled

    def ordered(values: np.ndarray, fill: float) -> np.ndarray:  # in the given model order
        return np.pad(values, ((0, 1), (0, 1)), constant_values=fill)[np.ix_(where, where)]

    def framed(values: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame(values, index=pd.Index(models, name="row"), columns=pd.Index(models, name="col"))

    battles = ordered(cells(points=False), 0).astype(int)
    wins = ordered(cells(points=True), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate_ = wins / np.where(battles > 0, battles, np.nan)  # one array (the frames' division made a column each)
    return framed(rate_), framed(battles)


def _num(value: float) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None
