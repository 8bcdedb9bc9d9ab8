"""How many votes are needed: power by simulation from a fitted Bradley–Terry model (with and without a
judge's predictions, through PPI++), and pairs needed to tell two judges' accuracies apart.

Pure functions; no knowledge of judges or tasks beyond arrays.

Bradley–Terry power: units are battles between a pair drawn from a given pair distribution; the outcome
is Bernoulli(sigmoid(theta_a - theta_b)) (no ties). A target (i, j) is separated in a replication when the
Wald interval of theta_i - theta_j at the chosen level excludes 0 on the true side. With a judge, every
simulated labelled battle also gets a judge verdict drawn from the judge's empirical verdicts given the
human outcome (won / lost), and N unlabelled battles get judge verdicts only (their hidden outcomes drawn
the same way); the estimate is PPI++ with tuned lam (stats/ppi.py). The judge's errors are thus modelled
as depending on the outcome only, not on the pair: a stated simplification.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from judgebench.stats.ppi import bt_design, classical_logistic, ppi_logistic, separates, two_sided_z
from judgebench.stats.ratings import single_threaded_blas


@dataclass(frozen=True)
class JudgeModel:
    """Empirical judge verdicts (outcome scale, 1 = A wins) on battles the human outcome won / lost."""

    given_win: np.ndarray
    given_loss: np.ndarray
    unlabelled: int  # N: judge-only battles available


def _targets_matrix(targets: Sequence[tuple[int, int]], m: int) -> np.ndarray:
    c = np.zeros((len(targets), m))
    for r, (i, j) in enumerate(targets):
        c[r, i] += 1.0
        c[r, j] -= 1.0
    return c[:, 1:]


def bt_power(theta: np.ndarray, pairs: tuple[np.ndarray, np.ndarray], n_grid: Sequence[int],
             targets: Sequence[tuple[int, int]], *, judge: JudgeModel | None = None, level: float = 0.95,
             reps: int = 200, seed: int = 0, first_k: int | None = None) -> dict[str, np.ndarray]:
    """Power to separate each target (i, j) (theta_i > theta_j expected) and all of them in the same
    replication, for each number of labelled battles n in n_grid. pairs: the (a, b) model indices battles
    are drawn from (uniformly). Returns {"n", "each": len(n_grid) x len(targets), "all": len(n_grid),
    "first_k": P(the first `first_k` targets all separated in the same replication)}."""
    theta = np.asarray(theta, dtype=float)
    theta = theta - theta[0]  # the fits are reference-coded (model 0 at 0): the truth must be too (a rating scale
    # centred on 1000 made every target with model 0 look reversed, its power 0 at any n)
    m = len(theta)
    pa, pb = (np.asarray(p, dtype=int) for p in pairs)
    c = _targets_matrix(targets, m)
    truth = c @ theta[1:]
    z = two_sided_z(level)
    # a replication whose battles separate the models (every vote between two groups one way: ppi.separates) has
    # no finite estimate and its sandwich interval would collapse: it counts as not separated, without numpy's
    # overflow warnings on screen
    with single_threaded_blas(), np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _simulate(theta, pa, pb, c, truth, z, n_grid, judge, reps, seed, len(targets) if first_k is None else first_k)


def _simulate(theta, pa, pb, c, truth, z, n_grid, judge, reps, seed, k) -> dict[str, np.ndarray]:
    m = len(theta)
    rng = np.random.default_rng([seed, 33])
    each = np.zeros((len(n_grid), c.shape[0]))
    every = np.zeros(len(n_grid))
    top = np.zeros(len(n_grid))
    for g, n in enumerate(n_grid):
        for _ in range(reps):
            x, y, drawn = _draw(rng, pa, pb, theta, int(n), m)
            if separates(*drawn, y, m):  # no finite estimate from these votes: no interval separates anything
                continue
            if judge is None:
                est = classical_logistic(x, y)
            else:
                xu, yu, _ = _draw(rng, pa, pb, theta, judge.unlabelled, m)
                est = ppi_logistic(x, y, _judge(rng, judge, y), xu, _judge(rng, judge, yu), contrasts=c)
            diff, se = c @ est.params, est.se(c)
            ok = (np.abs(diff) > z * se) & (np.sign(diff) == np.sign(truth))
            each[g] += ok
            every[g] += ok.all()
            top[g] += ok[:k].all()
    return {"n": np.asarray(n_grid), "each": each / reps, "all": every / reps, "first_k": top / reps}


def _draw(rng: np.random.Generator, pa: np.ndarray, pb: np.ndarray, theta: np.ndarray, n: int,
          m: int) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    k = rng.integers(0, len(pa), n)
    a, b = pa[k], pb[k]
    swap = rng.random(n) < 0.5  # either side first
    a, b = np.where(swap, b, a), np.where(swap, a, b)
    y = (rng.random(n) < expit(theta[a] - theta[b])).astype(float)
    return bt_design(a, b, m), y, (a, b)


def _judge(rng: np.random.Generator, judge: JudgeModel, y: np.ndarray) -> np.ndarray:
    win = judge.given_win[rng.integers(0, len(judge.given_win), len(y))]
    loss = judge.given_loss[rng.integers(0, len(judge.given_loss), len(y))]
    return np.where(y > 0.5, win, loss)


def needed(n_grid: Sequence[int], power: np.ndarray, target: float) -> int | None:
    """The smallest n of the grid from which the power stays at or above target at every larger n (None: not
    within the grid). A simulated curve is noisy and small-n Wald intervals run narrow: a first point above
    target followed by a dip is not yet enough votes."""
    below = np.flatnonzero(np.asarray(power) < target)
    start = below[-1] + 1 if len(below) else 0
    return int(np.asarray(n_grid)[start]) if start < len(n_grid) else None


def judge_gap_power(accuracy: float, gap: float, n_grid: Sequence[int], *, correlation: float = 0.5,
                    level: float = 0.95, reps: int = 2000, seed: int = 0) -> np.ndarray:
    """Power to tell two judges apart on n shared labelled pairs when their accuracies are `accuracy` and
    `accuracy + gap` and their correctness is correlated (`correlation`, Pearson, on the same pairs): the
    paired Wald test of the mean difference in correctness (McNemar's asymptotic test) at `level`, counted
    when it rejects on the true side. One value per n."""
    p1, p2 = accuracy, accuracy + gap
    if not (0 < p1 < 1 and 0 < p2 < 1):
        raise ValueError("accuracies must lie strictly between 0 and 1")
    p11 = p1 * p2 + correlation * np.sqrt(p1 * (1 - p1) * p2 * (1 - p2))
    p11 = float(np.clip(p11, max(0.0, p1 + p2 - 1), min(p1, p2)))
    probs = np.array([p11, p1 - p11, p2 - p11, 1 - p1 - p2 + p11])  # both, only 1, only 2, neither
    z = two_sided_z(level)
    rng = np.random.default_rng([seed, 34])
    out = np.zeros(len(n_grid))
    for g, n in enumerate(n_grid):
        counts = rng.multinomial(int(n), probs, size=reps)
        only1, only2 = counts[:, 1], counts[:, 2]
        d = (only2 - only1) / n
        var = ((only1 + only2) / n - d ** 2) / n
        with np.errstate(divide="ignore", invalid="ignore"):
            stat = d / np.sqrt(var)
        out[g] = np.mean(np.nan_to_num(stat, nan=0.0) * np.sign(gap) > z)
    return out


def grid(lo: int, hi: int, points: int = 10) -> list[int]:
    """A geometric grid of integers from lo to hi."""
    return sorted({int(round(v)) for v in np.geomspace(max(lo, 2), max(hi, lo + 1), points)})
