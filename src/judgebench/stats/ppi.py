"""Prediction-powered inference (PPI++) for logistic-regression (Bradley–Terry) parameters and means.

Pure functions, no knowledge of judges or tasks. The setting: n labelled units (covariates X, a gold
outcome Y and a prediction Yhat) and N unlabelled units (X~, Yhat~) drawn from the same distribution.

Logistic M-estimation (PPI++, Angelopoulos, Duchi & Zrnic 2023, arXiv:2311.01453, section 4): with the
loss l(theta; x, y) = -y x.theta + log(1 + exp(x.theta)) (y in [0, 1]: ties are 0.5), the estimate
solves the rectified gradient equation

    (1/n) sum_i x_i (s_i - y_i)  +  lam [ (1/N) sum_j x~_j (s~_j - yhat~_j) - (1/n) sum_i x_i (s_i - yhat_i) ] = 0,

s = sigmoid(x.theta), i.e. it minimises the rectified loss (convex for lam in [0, 1]; solved by Newton).
Its covariance is the sandwich

    Sigma = H^-1 [ lam^2 Cov(g~) / N + Cov(g - lam ghat) / n ] H^-1,

g = x (s - y), ghat = x (s - yhat), g~ = x~ (s~ - yhat~), H the mean Hessian s(1-s) x x' over the labelled
units. The power-tuning weight lam minimises the total variance of the reported contrasts C theta:

    lam = tr(A Cov(g, ghat) A') / ((1 + n/N) tr(A Var(ghat) A')),  A = C H^-1,  clipped to [0, 1],

with Var(ghat) over the labelled and unlabelled predictions together: lam from the fit at lam = 1, refit, lam
again, refit (ppi_py's `ppi_logistic_ci` order). lam = 0 is the labelled-only estimate (the predictions cost
nothing); a useless prediction gives lam ~ 0, a perfect one lam ~ N/(n+N).

Two choices depart from ppi_py, each measured (docs/lab/ppi-validation.md): (1) H over the labelled units only,
where ppi_py pools labelled and unlabelled units once lam > 0 (`hessian="pooled"` gives its figures): the pooled H
made the intervals jump 2-6% narrower as lam left 0, with no help from the predictions, and cover 0.927-0.943
instead of 0.95 at 30-100 labelled units; (2) the tuned lam is kept only when its estimate's total contrast variance
is below the labelled-only one's, else lam = 0 (the same criterion over the two candidates): a lam tuned at a poor
lam = 1 fit made intervals up to 12x wider than the votes' alone at 40 labelled units.

Stratified PPI (Fisch et al. 2024, "Stratified Prediction-Powered Inference for Hybrid Language Model
Evaluation"): strata k with population weights w_k (their share of all units), each with its own lam_k;
the loss is sum_k w_k * (the rectified loss of stratum k), and

    Sigma = H^-1 [ sum_k w_k^2 ( lam_k^2 Cov_k(g~) / N_k + Cov_k(g - lam_k ghat) / n_k ) ] H^-1,
    H = sum_k w_k H_k,   lam_k = tr(A C_k A') / ((1 + n_k/N_k) tr(A V_k A')).

One stratum is exactly the unstratified estimator.

Means (PPI++ for a mean, e.g. a judge's accuracy): theta = lam mean(yhat~) + mean(y - lam yhat),
Var = lam^2 Var(yhat~)/N + Var(y - lam yhat)/n, lam = Cov(y, yhat) / ((1 + n/N) Var(yhat)).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy.special import expit

from judgebench.core.errors import NumericError
from judgebench.stats.ratings import single_threaded_blas, unbeaten_orders

DEFAULT_L2 = 1e-9  # keeps Newton finite under separation; negligible otherwise
# A fit with a strength past this (log-odds; about 17,000 Elo points) found no finite minimiser: only the tiny
# L2 stopped it. With a tuned lam that happens when the judge's errors on the voted pairs outweigh its
# predictions on the unvoted ones along some direction (a finite-sample accident of the rectified loss)
UNBOUNDED = 100.0


def two_sided_z(level: float) -> float:
    """The standard normal quantile at 0.5 + level / 2 (a two-sided interval's z). scipy.stats is imported here,
    on first use (about 0.5 s): `arena` imports this module, and needs it only for judge-assisted ratings."""
    from scipy.stats import norm

    return norm.ppf(0.5 + level / 2)


@dataclass(frozen=True)
class Stratum:
    """One stratum's data: labelled X, Y, Yhat and unlabelled Xu, Yhatu (rows are units)."""

    X: np.ndarray
    Y: np.ndarray
    Yhat: np.ndarray
    Xu: np.ndarray
    Yhatu: np.ndarray

    @property
    def n(self) -> int:
        return int(len(self.Y))

    @property
    def N(self) -> int:
        return int(len(self.Yhatu))


@dataclass(frozen=True)
class PPIEstimate:
    """Parameters, their covariance, the power-tuning weight(s) and the sample sizes."""

    params: np.ndarray  # d
    cov: np.ndarray  # d x d
    lam: np.ndarray  # one per stratum
    n: int
    N: int
    weights: np.ndarray  # stratum weights (sum 1)

    def se(self, contrasts: np.ndarray | None = None) -> np.ndarray:
        """Standard errors of C params (C: rows are contrasts; default the parameters themselves)."""
        c = np.eye(len(self.params)) if contrasts is None else np.atleast_2d(contrasts)
        return np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", c, self.cov, c), 0.0))

    def interval(self, contrasts: np.ndarray | None = None, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Normal (Wald) intervals of C params."""
        c = np.eye(len(self.params)) if contrasts is None else np.atleast_2d(contrasts)
        z = two_sided_z(level)
        centre, half = c @ self.params, z * self.se(c)
        return centre - half, centre + half


def _as(a, name: str, ndim: int) -> np.ndarray:
    out = np.ascontiguousarray(a, dtype=float)  # strided views would miss BLAS in the Newton products
    if ndim == 2 and out.ndim == 1:
        out = out[:, None]
    if out.ndim != ndim or not np.isfinite(out).all():
        raise NumericError(f"{name}: expected a finite {ndim}-d array")
    return out


def stratum(X, Y, Yhat, Xu, Yhatu) -> Stratum:
    """A validated stratum (X: n x d, Y, Yhat: n; Xu: N x d, Yhatu: N)."""
    s = Stratum(_as(X, "X", 2), _as(Y, "Y", 1), _as(Yhat, "Yhat", 1), _as(Xu, "X_unlabelled", 2),
                _as(Yhatu, "Yhat_unlabelled", 1))
    if len(s.X) != s.n or len(s.Yhat) != s.n or len(s.Xu) != s.N:
        raise NumericError("labelled (X, Y, Yhat) and unlabelled (X, Yhat) lengths disagree")
    if s.X.shape[1] != s.Xu.shape[1]:
        raise NumericError("labelled and unlabelled X have different columns")
    return s


# ---------------------------------------------------------------- the logistic M-estimator


def _solve(strata: Sequence[Stratum], w: np.ndarray, lam: np.ndarray, l2: float,
           start: np.ndarray | None = None) -> np.ndarray:
    """Minimise sum_k w_k [(1-lam_k)/n_k sum log1pexp(X theta) + lam_k/N_k sum log1pexp(Xu theta)] - theta.b."""
    d = strata[0].X.shape[1]
    blocks, b = [], np.zeros(d)
    for s, wk, lk in zip(strata, w, lam):
        if s.n:
            blocks.append((s.X, wk * (1 - lk) / s.n))
            b += wk * (s.X.T @ (s.Y - lk * s.Yhat)) / s.n
        if s.N and lk != 0:
            blocks.append((s.Xu, wk * lk / s.N))
            b += wk * lk * (s.Xu.T @ s.Yhatu) / s.N

    def value(theta: np.ndarray) -> float:
        return sum(c * np.logaddexp(0.0, X @ theta).sum() for X, c in blocks) - theta @ b + l2 / 2 * theta @ theta

    theta = np.zeros(d) if start is None else start.copy()
    f = value(theta)
    for _ in range(200):
        grad, hess = -b + l2 * theta, l2 * np.eye(d)
        for X, c in blocks:
            p = expit(X @ theta)
            grad += c * (X.T @ p)
            hess += c * (X.T * (p * (1 - p))) @ X
        try:
            step = np.linalg.solve(hess, grad)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(hess, grad, rcond=None)[0]
        if np.max(np.abs(grad)) < 1e-12 or grad @ step < 1e-24:  # Newton decrement: converged
            break
        t = 1.0
        while t > 1e-10:
            new = theta - t * step
            fn = value(new)
            if fn <= f + 1e-14 * abs(f):
                break
            t /= 2
        if t <= 1e-10:
            break
        converged = np.max(np.abs(new - theta)) < 1e-12
        theta, f = new, fn
        if converged:
            break
    return theta


Hessian = Literal["labelled", "pooled"]  # the units the sandwich's H averages over (module docstring)


def _grads(s: Stratum, theta: np.ndarray, pooled: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(g, ghat, g~, H_k) of one stratum at theta; H_k over labelled + unlabelled units when pooled."""
    p = expit(s.X @ theta)
    pu = expit(s.Xu @ theta)
    g = s.X * (p - s.Y)[:, None]
    gh = s.X * (p - s.Yhat)[:, None]
    gu = s.Xu * (pu - s.Yhatu)[:, None]
    if pooled and s.N:
        h = ((s.X.T * (p * (1 - p))) @ s.X + (s.Xu.T * (pu * (1 - pu))) @ s.Xu) / (s.n + s.N)
    else:
        h = (s.X.T * (p * (1 - p))) @ s.X / s.n
    return g, gh, gu, h


def _cov(a: np.ndarray) -> np.ndarray:
    d = a.shape[1]
    if len(a) < 2:
        return np.zeros((d, d))
    return np.cov(a.T).reshape(d, d)


def _stats(strata: Sequence[Stratum], w: np.ndarray, theta: np.ndarray, lam: np.ndarray | None, hessian: Hessian):
    """Per-stratum gradients and the weighted Hessian inverse at theta (pooled H: ppi_py's, where lam is not 0)."""
    pooled = hessian == "pooled"
    parts = [_grads(s, theta, pooled and (lam is None or lk != 0)) for s, lk in
             zip(strata, lam if lam is not None else [None] * len(strata))]
    h = sum(wk * part[3] for wk, part in zip(w, parts))
    try:
        hinv = np.linalg.inv(h)
    except np.linalg.LinAlgError:
        hinv = np.linalg.pinv(h)
    return parts, hinv


def _tuned_lam(strata: Sequence[Stratum], parts, hinv: np.ndarray, contrasts: np.ndarray | None) -> np.ndarray:
    a = hinv if contrasts is None else contrasts @ hinv
    out = []
    for s, (g, gh, gu, _) in zip(strata, parts):
        if s.N == 0 or s.n < 2:
            out.append(0.0)
            continue
        gc, ghc = g - g.mean(axis=0), gh - gh.mean(axis=0)
        cross = (gc.T @ ghc + ghc.T @ gc) / s.n
        var = _cov(np.concatenate([gh, gu]))
        denom = 2 * (1 + s.n / s.N) * np.trace(a @ var @ a.T)
        lam = np.trace(a @ cross @ a.T) / denom if denom > 0 else 0.0
        out.append(float(np.clip(lam, 0.0, 1.0)))
    return np.array(out)


def _sandwich(strata: Sequence[Stratum], w: np.ndarray, lam: np.ndarray, parts, hinv: np.ndarray) -> np.ndarray:
    d = hinv.shape[0]
    middle = np.zeros((d, d))
    for s, wk, lk, (g, gh, gu, _) in zip(strata, w, lam, parts):
        term = _cov(g - lk * gh) / s.n
        if s.N and lk != 0:
            term = term + lk ** 2 * _cov(gu) / s.N
        middle += wk ** 2 * term
    return hinv @ middle @ hinv


def ppi_logistic_stratified(strata: Sequence[Stratum], *, lam: float | Sequence[float] | None = None,
                            weights: Sequence[float] | None = None, contrasts: np.ndarray | None = None,
                            l2: float = DEFAULT_L2, hessian: Hessian = "labelled") -> PPIEstimate:
    """Stratified PPI++ logistic regression. lam: None tunes one lam per stratum (minimising the total
    variance of `contrasts @ params`, default the parameters; kept only when that variance is below lam = 0's);
    a number or one per stratum fixes it. weights: stratum weights (default each stratum's share of all
    labelled + unlabelled units). hessian: "pooled" for ppi_py's (module docstring), tuning included."""
    strata = list(strata)
    if not strata:
        raise NumericError("no strata")
    if any(s.n < 1 for s in strata):
        raise NumericError("every stratum needs labelled units")
    sizes = np.array([s.n + s.N for s in strata], dtype=float)
    w = sizes / sizes.sum() if weights is None else np.asarray(weights, dtype=float) / np.sum(weights)
    if contrasts is not None:
        contrasts = np.atleast_2d(np.asarray(contrasts, dtype=float))
    with single_threaded_blas():  # many small products: BLAS threads only contend (10-30x slower on 2 cores)
        if lam is not None:
            lams = np.broadcast_to(np.asarray(lam, dtype=float), (len(strata),)).copy()
            return _estimate(strata, w, lams, _solve(strata, w, lams, l2), hessian)
        tuned = _estimate(strata, w, *_tuned(strata, w, contrasts, l2, hessian), hessian)
        if not tuned.lam.any():
            return tuned
        zero = np.zeros(len(strata))
        labelled = _estimate(strata, w, zero, _solve(strata, w, zero, l2), hessian)
        return tuned if _total_variance(tuned, contrasts) < _total_variance(labelled, contrasts) else labelled


def _tuned(strata: list[Stratum], w: np.ndarray, contrasts: np.ndarray | None, l2: float,
           hessian: Hessian) -> tuple[np.ndarray, np.ndarray]:
    """The tuned lams and the fit at them: lam at the lam = 1 fit, refit, lam again, refit (ppi_py's order)."""
    theta = _solve(strata, w, np.ones(len(strata)), l2)
    if not _bounded(theta):  # no finite plain-PPI fit to tune at (few unvoted pairs): start from the votes'
        theta = _solve(strata, w, np.zeros(len(strata)), l2)
    lams = np.ones(len(strata))
    for _ in range(2):
        parts, hinv = _stats(strata, w, theta, None, hessian)
        lams = _tuned_lam(strata, parts, hinv, contrasts)
        theta = _solve(strata, w, lams, l2, start=theta)
    theta, lams = _shrunk_until_bounded(strata, w, lams, theta, l2)
    return lams, theta


def _estimate(strata: list[Stratum], w: np.ndarray, lams: np.ndarray, theta: np.ndarray,
              hessian: Hessian) -> PPIEstimate:
    """The estimate at `theta`, fitted at `lams`, with its sandwich covariance."""
    parts, hinv = _stats(strata, w, theta, lams, hessian)
    cov = _sandwich(strata, w, lams, parts, hinv)
    return PPIEstimate(theta, cov, lams, int(sum(s.n for s in strata)), int(sum(s.N for s in strata)), w)


def _total_variance(est: PPIEstimate, contrasts: np.ndarray | None) -> float:
    """The summed variance of the reported contrasts (the parameters themselves by default): what lam minimises."""
    c = np.eye(len(est.params)) if contrasts is None else contrasts
    return float(np.trace(c @ est.cov @ c.T))


def _bounded(theta: np.ndarray) -> bool:
    return bool(np.max(np.abs(theta), initial=0.0) < UNBOUNDED)


def _shrunk_until_bounded(strata: list[Stratum], w: np.ndarray, lams: np.ndarray, theta: np.ndarray,
                          l2: float) -> tuple[np.ndarray, np.ndarray]:
    """The tuned fit, or, when it has no finite minimiser and the votes alone have one, the fit at the largest
    lam * 2^-k that has (lam 0 at last: the votes alone). Any lam in [0, 1] gives a valid estimate; this one is
    chosen from the data, as the tuned lam is, and asymptotically the event has probability 0."""
    if _bounded(theta) or not lams.any():
        return theta, lams
    classical = _solve(strata, w, np.zeros(len(strata)), l2)
    if not _bounded(classical):  # separated by the votes themselves: nothing for lam to mend
        return theta, lams
    for _ in range(10):
        lams = lams / 2
        theta = _solve(strata, w, lams, l2, start=classical)
        if _bounded(theta):
            return theta, lams
    return classical, np.zeros(len(strata))


def ppi_logistic(X, Y, Yhat, Xu, Yhatu, *, lam: float | None = None, contrasts: np.ndarray | None = None,
                 l2: float = DEFAULT_L2, hessian: Hessian = "labelled") -> PPIEstimate:
    """PPI++ logistic regression (one stratum). lam=None tunes it; lam=0 is the classical labelled-only
    estimate with its sandwich covariance; lam=1 is plain PPI."""
    return ppi_logistic_stratified([stratum(X, Y, Yhat, Xu, Yhatu)], lam=lam, contrasts=contrasts, l2=l2,
                                   hessian=hessian)


def classical_logistic(X, Y, *, l2: float = DEFAULT_L2) -> PPIEstimate:
    """Labelled-only logistic regression with the sandwich (robust) covariance: PPI with lam = 0."""
    X = _as(X, "X", 2)
    Y = _as(Y, "Y", 1)
    return ppi_logistic(X, Y, Y, X[:0], Y[:0], lam=0.0, l2=l2)


def effective_labels(n: int, classical_var: float, ppi_var: float) -> float | None:
    """How many labelled units the classical estimate would need for the PPI variance: n * V_cls / V_ppi (None when
    either variance is not a positive number: no such count)."""
    if not (ppi_var > 0 and classical_var > 0 and math.isfinite(classical_var) and math.isfinite(ppi_var)):
        return None
    return float(n * classical_var / ppi_var)


# ---------------------------------------------------------------- Bradley–Terry on the Elo scale


def bt_design(a: np.ndarray, b: np.ndarray, m: int) -> np.ndarray:
    """Rows e_a - e_b over models 1..m-1 (model 0 is the reference, strength 0): units x (m-1)."""
    a, b = np.asarray(a, dtype=int), np.asarray(b, dtype=int)
    x = np.zeros((len(a), m))
    rows = np.arange(len(a))
    x[rows, a] += 1.0
    x[rows, b] -= 1.0
    return np.ascontiguousarray(x[:, 1:])


def separates(a: np.ndarray, b: np.ndarray, y: np.ndarray, m: int) -> bool:
    """Whether Bradley-Terry units (model indices a, b below m; outcomes y for a in [0, 1]) leave some model
    unbeaten (ratings.unbeaten_orders): then the votes alone have no finite estimate, the fit runs off until the
    L2 term stops it, and its sandwich variance, every residual near 0, collapses (six voted pairs gave
    intervals of +-160 points around ratings 3,800 points apart)."""
    a, b, y = np.asarray(a), np.asarray(b), np.asarray(y, dtype=float)
    took = np.concatenate([a[y > 0], b[y < 1]])
    gave = np.concatenate([b[y > 0], a[y < 1]])
    return bool(unbeaten_orders(took, gave, m))


def fitted_exactly(a: np.ndarray, b: np.ndarray, y: np.ndarray, params: np.ndarray, tol: float = 1e-6) -> list[int]:
    """The models (indices) every one of whose Bradley-Terry units (a, b, outcome y) the fit's `params` (bt_design's
    reference coding) predict exactly: their units leave the sandwich no residual to estimate a variance from, so
    their intervals collapse to the width of their neighbours' or to nothing (every voted pair split evenly, all
    ties, or a model in one voted pair only, gave [1000.0, 1000.0] as a 95% interval)."""
    a, b, y = np.asarray(a, dtype=int), np.asarray(b, dtype=int), np.asarray(y, dtype=float)
    strength = np.concatenate([[0.0], np.asarray(params, dtype=float)])
    residual = np.abs(y - 1.0 / (1.0 + np.exp(strength[b] - strength[a])))
    m = len(strength)
    worst = np.zeros(m)
    np.maximum.at(worst, a, residual)
    np.maximum.at(worst, b, residual)
    seen = np.zeros(m, dtype=bool)
    seen[a] = seen[b] = True
    return [int(k) for k in np.flatnonzero(seen & (worst <= tol))]


def elo_contrasts(m: int, anchor: int | None = None) -> np.ndarray:
    """m x (m-1) matrix turning reference-coded strengths into strengths centred on their mean (or
    relative to the anchor model)."""
    full = np.eye(m)
    if anchor is None:
        full = full - 1.0 / m
    else:
        full = full - np.eye(m)[anchor][None, :]
    return full[:, 1:]


def rank_sets(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each model's set of plausible ranks from its interval: best = 1 + models wholly above it, worst =
    m - models wholly below it."""
    above = (low[None, :] > high[:, None]).sum(axis=1)
    below = (high[None, :] < low[:, None]).sum(axis=1)
    return 1 + above, len(low) - below


# ---------------------------------------------------------------- means


@dataclass(frozen=True)
class MeanEstimate:
    value: float
    se: float
    lam: float
    n: int
    N: int

    def interval(self, level: float = 0.95) -> tuple[float, float]:
        z = two_sided_z(level)
        return self.value - z * self.se, self.value + z * self.se


def ppi_mean(Y, Yhat, Yhatu, *, lam: float | None = None) -> MeanEstimate:
    """PPI++ estimate of E[Y] from n labelled (Y, Yhat) and N unlabelled Yhat; lam=None tunes it (ppi_py's
    `ppi_mean_ci` conventions), lam=0 is the labelled mean."""
    y, f, fu = _as(Y, "Y", 1), _as(Yhat, "Yhat", 1), _as(Yhatu, "Yhat_unlabelled", 1)
    n, N = len(y), len(fu)
    if n < 2 or len(f) != n:
        raise NumericError("ppi_mean: at least two labelled units with one prediction each")
    if N == 0:
        lam = 0.0  # nothing to rectify: the labelled mean
    if lam is None:
        if N == 0:
            lam = 0.0
        else:
            cross = 2 * np.mean((y - y.mean()) * (f - f.mean()))
            var = np.var(np.concatenate([f, fu]), ddof=1)
            lam = float(np.clip(cross / (2 * (1 + n / N) * var), 0, 1)) if var > 0 else 0.0
    value = lam * (fu.mean() if N else 0.0) + np.mean(y - lam * f)
    var = np.var(y - lam * f) / n + (lam ** 2 * np.var(fu) / N if N and lam else 0.0)  # ppi_py: ddof 0
    return MeanEstimate(float(value), float(math.sqrt(var)), float(lam), n, N)


def ppi_accuracy(judge_labelled, human_labelled, proxy_labelled, judge_unlabelled, proxy_unlabelled, *,
                 lam: float | None = None) -> MeanEstimate:
    """A judge's accuracy against humans on a large set, from a small labelled set: PPI++ mean estimation
    with Y = 1{judge == human} on the labelled pairs and the prediction Yhat = 1{judge == proxy}, where the
    proxy is a label available everywhere (a stronger judge, a panel's majority). Verdicts are any
    comparable codes (e.g. "A", "B", "TIE"). lam=0: the labelled accuracy alone."""
    judge_l, human_l, proxy_l = (np.asarray(v, dtype=object) for v in (judge_labelled, human_labelled, proxy_labelled))
    judge_u, proxy_u = np.asarray(judge_unlabelled, dtype=object), np.asarray(proxy_unlabelled, dtype=object)
    if not (len(judge_l) == len(human_l) == len(proxy_l)) or len(judge_u) != len(proxy_u):
        raise NumericError("ppi_accuracy: one judge verdict, human label and proxy label per pair")
    return ppi_mean((judge_l == human_l).astype(float), (judge_l == proxy_l).astype(float),
                    (judge_u == proxy_u).astype(float), lam=lam)
