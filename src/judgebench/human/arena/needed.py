"""How many expert votes are needed (`arena --votes-needed`): power curves by simulation from the fitted
ratings (stats/power.py), without and with each judge, and pairs needed to tell two judges apart."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from judgebench.core.errors import JudgebenchError
from judgebench.human.arena.assisted import Units, agreement
from judgebench.stats.power import JudgeModel, bt_power, grid, judge_gap_power, needed
from judgebench.stats.ratings import BTFit


@dataclass(frozen=True)
class NeededOptions:
    power: float = 0.8
    confidence: float = 0.95
    max_votes: int = 20000
    reps: int = 100
    grid_points: int = 10  # vote counts tried (geometric up to max_votes); the judge-gap grid takes 2 more
    accuracy_gap: float = 0.05
    judge_correlation: float = 0.5
    judge_battles: int | None = None  # N for the judge simulations (default: the run's unlabelled pairs)
    top_k: int = 5
    seed: int = 0


MAX_SIMULATED_BATTLES = 2_000_000_000  # each cap alone (reps, grid points, votes, judge battles) let a day through
# together; the demo votes: 2e7 at the defaults in 5 s, 4e8 in 30-40 s, so this bound is some minutes


def check_simulation_size(opts: NeededOptions, judge_battles: list[int]) -> None:
    """Refuse settings whose simulations would run for hours: every simulated fit holds up to --max-votes votes,
    and with a judge its judge-only battles too, --power-reps times at each of --grid-points counts."""
    total = opts.reps * opts.grid_points * sum(opts.max_votes + n for n in [0, *judge_battles])
    if total > MAX_SIMULATED_BATTLES:
        judged = f" + {len(judge_battles)} judge(s) x (--max-votes + their {', '.join(map(str, judge_battles))} " \
                 "judge-only battles)" if judge_battles else ""
        raise JudgebenchError(f"--votes-needed: --power-reps {opts.reps} x --grid-points {opts.grid_points} x "
                              f"(--max-votes {opts.max_votes}{judged}) = {total:,} simulated battles, above "
                              f"{MAX_SIMULATED_BATTLES:,} (hours): lower one of them, or set --judge-battles")


def votes_needed(fit: BTFit, table: pd.DataFrame, judges: list[tuple[str, Units]],
                 opts: NeededOptions) -> dict[str, Any]:
    """Power to separate adjacent models and the top k, for n votes on a grid, human-only and per judge."""
    check_simulation_size(opts, [n for _, units in judges if (n := _judge_battles(units, opts)) >= 1])
    order = np.argsort(-fit.ratings, kind="stable")
    models = [fit.models[i] for i in order]
    theta = fit.ratings[order] * math.log(fit.base) / fit.scale  # log-odds strengths, best first
    index = {m: i for i, m in enumerate(models)}
    pa = np.array([index[m] for m in table["model_a"]])
    pb = np.array([index[m] for m in table["model_b"]])
    adjacent = [(i, i + 1) for i in range(len(models) - 1)]
    k = max(1, min(opts.top_k, len(adjacent)))
    n_grid = grid(max(50, 2 * len(models)), opts.max_votes, opts.grid_points)
    curves = [_curve("human only", bt_power(theta, (pa, pb), n_grid, adjacent, level=opts.confidence,
                                            reps=opts.reps, seed=opts.seed, first_k=k), adjacent, k, models, opts)]
    gaps = []
    for name, units in judges:
        win = verdicts_given_a_win(units)
        n_unl = _judge_battles(units, opts)
        if n_unl < 1:
            continue
        jm = JudgeModel(win, 1.0 - win, int(n_unl))
        curve = _curve(f"with {name} ({n_unl} judge-only battles)",
                       bt_power(theta, (pa, pb), n_grid, adjacent, judge=jm, level=opts.confidence,
                                reps=opts.reps, seed=opts.seed, first_k=k), adjacent, k, models, opts)
        curves.append(curve)
        gaps.append(_gap(name, agreement(units.y, units.f, units.answered)[0], opts))  # (the section's figure)
    if not judges:
        gaps.append(_gap(None, None, opts))
    return {"power": opts.power, "confidence": opts.confidence, "reps": opts.reps, "grid": n_grid,
            "top_k": k, "order": models, "curves": curves, "judge_gap": gaps,
            "method": "simulation from the fitted human ratings: battles drawn from the observed pairs, "
                      "outcomes Bradley-Terry (no ties), Wald intervals of each adjacent difference; with a "
                      "judge, its verdicts drawn from its empirical verdicts given the human outcome on the "
                      "voted pairs (mirrored), PPI++ with tuned lambda"}


def verdicts_given_a_win(units: Units) -> np.ndarray:
    """The judge on the voted pairs it answered, mirrored: its outcomes where the votes say A won, and 1 - its
    outcomes where they say B won ([0.5] when there are none). A pair it never judged is left out: its 0.5 is
    made up (twelve of a simulated judge's 24 verdicts had been)."""
    seen = units.answered
    won, lost = units.f[seen & (units.y > 0.5)], units.f[seen & (units.y < 0.5)]
    return np.concatenate([won, 1.0 - lost]) if len(won) + len(lost) else np.array([0.5])


def _judge_battles(units: Units, opts: NeededOptions) -> int:
    """The judge-only battles of a judge's simulations: --judge-battles, else the run's unlabelled pairs."""
    return opts.judge_battles if opts.judge_battles is not None else len(units.fu)


def _curve(label: str, result: dict[str, np.ndarray], adjacent: list, k: int, models: list[str],
           opts: NeededOptions) -> dict[str, Any]:
    n_grid = result["n"]
    joint = result["first_k"]
    return {"label": label,
            "adjacent": [{"higher": models[i], "lower": models[j], "power": result["each"][:, r].tolist(),
                          "votes_needed": needed(n_grid, result["each"][:, r], opts.power)}
                         for r, (i, j) in enumerate(adjacent)],
            "all_adjacent": {"power": result["all"].tolist(),
                             "votes_needed": needed(n_grid, result["all"], opts.power)},
            "top_k": {"power": joint.tolist(), "votes_needed": needed(n_grid, joint, opts.power)}}


ASSUMED_ACCURACY = 0.7  # the two-judge simulation's start without a measured agreement


def _gap(name: str | None, measured: float | None, opts: NeededOptions) -> dict[str, Any]:
    """Pairs needed to tell a judge at `accuracy` from one at accuracy + gap. `accuracy` is the measured agreement
    (or ASSUMED_ACCURACY) kept within [0.05, 0.95 - gap], where both accuracies leave room for errors; the
    measured value is reported beside it."""
    start = ASSUMED_ACCURACY if measured is None else measured
    accuracy = float(np.clip(start, 0.05, 0.95 - opts.accuracy_gap))
    n_grid = grid(50, max(opts.max_votes, 1000) * 5, opts.grid_points + 2)
    power = judge_gap_power(accuracy, opts.accuracy_gap, n_grid, correlation=opts.judge_correlation,
                            level=opts.confidence, reps=2000, seed=opts.seed)
    return {"judge": name, "accuracy": accuracy, "measured_accuracy": measured, "gap": opts.accuracy_gap,
            "correlation": opts.judge_correlation,
            "grid": n_grid, "power": power.tolist(), "pairs_needed": needed(n_grid, power, opts.power)}
