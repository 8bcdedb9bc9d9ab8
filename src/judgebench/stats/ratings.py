"""Bradley–Terry ratings on the Elo scale, with style control and bootstrap intervals.

Model: P(A beats B) = sigmoid(theta_A - theta_B + x . beta), where x holds optional
per-battle style-feature differences (A minus B, e.g. the log length ratio) and beta
their coefficients ("style control", as in SciArena and Chatbot Arena).

* Outcomes are in [0, 1]: 1 = A wins, 0 = B wins, 0.5 = tie (Both Bad counts as a tie).
  A tie contributes half a win to each side, exactly as duplicating the battle with
  half weight for each winner; fractional outcomes (e.g. a judge's verdict averaged
  over both orders) are handled the same way.
* Identifiability: the likelihood only sees strength differences, so the objective
  (a summed negative log-likelihood) adds ``(sum of strengths)^2 / 2``, which pins the
  mean log-strength to 0 without touching any difference, plus a tiny L2 penalty
  ``l2/2 * ||params||^2`` (default 1e-6) that keeps the fit finite under perfect
  separation and for comparison graphs in several pieces. The L2 term shrinks a
  difference by about l2 / (its curvature): 1e-4 Elo with four battles, under 1e-6
  Elo with thousands; ``l2=0`` gives the exact MLE on a connected graph.
* Elo scale: rating = anchor_rating + scale / ln(base) * (theta - theta_ref), where
  theta_ref is the anchor model's strength, or the mean strength when no anchor model
  is given (then the models average ``anchor_rating``).
* Point fit: L-BFGS (scipy) with an analytic gradient over deduplicated battles,
  polished by Newton steps.
* Bootstrap: battles are deduplicated into unique (pair, features, outcome) units with
  counts; each round resamples the battles with replacement (multinomial unit counts)
  and all rounds are solved together, warm-started at the point fit: Newton steps
  whose per-round Hessian is refreshed for the first two steps and then kept (a chord
  iteration: one batched matrix product per step); rounds that fail to converge fall
  back to damped Newton, then L-BFGS. Intervals are the 2.5th/97.5th percentiles of
  the rounds; the point estimate stays the full-data fit.
* BLAS runs single-threaded during fits (threadpoolctl, when installed).

The module is long because the point fit, the batched chord bootstrap and the design
matrices share private numerics that are only correct together.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
from scipy import sparse
from scipy.special import expit

from judgebench.core.errors import NumericError
from judgebench.core.preload import imported
from judgebench.stats.resampling import batch_free, covering, multinomial_counts

if TYPE_CHECKING:  # imported where a frame is made: a run's scoring never needs pandas
    import pandas as pd

DEFAULT_L2 = 1e-6
_CHUNK_CELLS = 4_000_000  # rounds x groups per Newton batch (memory bound)
_REFRESH = 2  # bootstrap: Newton steps with a fresh Hessian before it is kept fixed
_BLOCK = 100  # bootstrap rounds drawn per block (memory- and cache-friendly)
_DENSE_CELLS = 4_000_000  # design matrices up to this size are kept dense
_COMPACT = 0.9  # chord: compact the active rounds once fewer than this share remain

Battles: TypeAlias = "pd.DataFrame | tuple[Sequence[Any], Sequence[Any], Sequence[float]]"
Solved = dict[int, list[tuple[np.ndarray, np.ndarray]]]  # bootstrap chunk -> per column (params, presence)
Features: TypeAlias = "np.ndarray | pd.DataFrame | Mapping[str, Sequence[float]] | None"


@dataclass(frozen=True)
class BTFit:
    """Ratings (Elo scale) per model and style coefficients, optionally with 95% CIs."""

    models: tuple[str, ...]
    ratings: np.ndarray  # Elo, aligned with models
    feature_names: tuple[str, ...] = ()
    beta: np.ndarray = field(default_factory=lambda: np.zeros(0))  # log-odds per unit feature
    n_battles: float = 0.0
    mean_log_loss: float | None = None  # per battle at the fit; ~0 means perfect separation
    anchor_model: str | None = None
    anchor_rating: float = 1000.0
    scale: float = 400.0
    base: float = 10.0
    ci_low: np.ndarray | None = None
    ci_high: np.ndarray | None = None
    beta_ci_low: np.ndarray | None = None
    beta_ci_high: np.ndarray | None = None
    rating_samples: np.ndarray | None = None  # rounds x models (NaN: model absent that round)
    beta_samples: np.ndarray | None = None  # rounds x features
    n_resamples: int = 0
    seed: int | None = None

    def rating(self, model: str) -> float:
        """The Elo rating of one model."""
        return float(self.ratings[self.models.index(model)])

    def beta_of(self, name: str) -> float:
        """The coefficient of one style feature (log-odds per unit of the feature)."""
        return float(self.beta[self.feature_names.index(name)])

    def to_frame(self) -> pd.DataFrame:
        """One row per model, best first: model, rating, ci_low, ci_high."""
        import pandas as pd

        frame = pd.DataFrame({"model": list(self.models), "rating": self.ratings})
        if self.ci_low is not None and self.ci_high is not None:
            frame["ci_low"], frame["ci_high"] = self.ci_low, self.ci_high
        return frame.sort_values("rating", ascending=False, ignore_index=True)

    def as_dict(self) -> dict[str, Any]:
        """JSON-serialisable summary (no bootstrap samples)."""

        def num(values: np.ndarray | None, i: int) -> float | None:
            return None if values is None else _finite(values[i])

        return {
            "ratings": {
                m: {"rating": num(self.ratings, i), "ci_low": num(self.ci_low, i),
                    "ci_high": num(self.ci_high, i)}
                for i, m in enumerate(self.models)
            },
            "beta": {
                f: {"value": num(self.beta, j), "ci_low": num(self.beta_ci_low, j),
                    "ci_high": num(self.beta_ci_high, j)}
                for j, f in enumerate(self.feature_names)
            },
            "n_battles": float(self.n_battles),
            "mean_log_loss": None if self.mean_log_loss is None else _finite(self.mean_log_loss),
            "anchor_model": self.anchor_model,
            "anchor_rating": self.anchor_rating,
            "scale": self.scale,
            "base": self.base,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
        }


_CONTROLLER: Any = None  # threadpoolctl controller, created on first use


@contextlib.contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Run BLAS/LAPACK single-threaded (via threadpoolctl, when installed).

    The fits make many tiny BLAS calls (L-BFGS updates, 50 x 50 solves); on a
    2-core machine OpenBLAS's thread hand-offs made each call up to 25x slower.
    """
    global _CONTROLLER
    if _CONTROLLER is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # optional: without it the fits are only slower
            _CONTROLLER = False
        else:
            _CONTROLLER = ThreadpoolController()  # scans the loaded libraries once
    if not _CONTROLLER:
        yield
        return
    with _CONTROLLER.limit(limits=1, user_api="blas"):
        yield


def _finite(value: float) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


# ---------------------------------------------------------------- input normalisation


def _battle_arrays(battles: Battles) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(model_a, model_b, outcome) arrays from a DataFrame or a 3-tuple of sequences."""
    if _is_frame(battles):
        missing = {"model_a", "model_b", "outcome"} - set(battles.columns)
        if missing:
            raise NumericError(f"battles: missing column(s) {sorted(missing)}")
        a, b, y = battles["model_a"], battles["model_b"], battles["outcome"]
    else:
        a, b, y = battles
    return _models_array(a), _models_array(b), _outcome_array(y, len(a))


def _is_frame(value: Any) -> bool:
    """Whether `value` is a pandas DataFrame (none can exist before its caller imported pandas)."""
    pandas = imported("pandas")
    return pandas is not None and isinstance(value, pandas.DataFrame)


def _missing(values: np.ndarray) -> np.ndarray:
    """pandas' isna where pandas is loaded (only then can its own markers, NA and NaT, exist); else None
    and float NaN, the only missing markers there are without it."""
    pandas = imported("pandas")
    if pandas is not None:
        return pandas.isna(values)
    return np.fromiter((v is None or (isinstance(v, float) and math.isnan(v)) for v in values.ravel()),
                       dtype=bool, count=values.size)


def _models_array(values: Sequence[Any]) -> np.ndarray:
    array = np.asarray(values, dtype=object)
    if _missing(array).any():
        raise NumericError("battles: a model name is missing")
    return array.astype(str)


def _outcome_array(values: Sequence[float], n: int, missing: bool = False) -> np.ndarray:
    """Outcomes in [0, 1]; with missing=True a NaN marks a battle this column did not see."""
    y = np.asarray(values, dtype=float).reshape(-1)
    if len(y) != n:
        raise NumericError(f"battles: {len(y)} outcomes for {n} battles")
    if not np.all(((y >= 0) & (y <= 1)) | (missing & np.isnan(y))):
        raise NumericError("battles: outcomes must be in [0, 1] (1 = A wins, 0.5 = tie)")
    return y


def _feature_matrix(
    features: Features, n: int, names: Sequence[str] | None
) -> tuple[np.ndarray, tuple[str, ...]]:
    """An n x k float matrix of feature differences and its column names."""
    if features is None:
        return np.zeros((n, 0)), ()
    if _is_frame(features):
        names = names or [str(c) for c in features.columns]
        matrix = features.to_numpy(dtype=float)
    elif isinstance(features, Mapping):
        names = names or [str(k) for k in features]
        matrix = np.column_stack([np.asarray(v, dtype=float) for v in features.values()])
    else:
        matrix = np.asarray(features, dtype=float)
        matrix = matrix.reshape(n, -1) if matrix.ndim == 1 else matrix
    names = tuple(names or (f"x{j}" for j in range(matrix.shape[1])))
    if matrix.shape != (n, len(names)):
        raise NumericError(f"features: shape {matrix.shape}, expected ({n}, {len(names)})")
    if not np.all(np.isfinite(matrix)):
        raise NumericError("features: values must be finite")
    return matrix, names


# ---------------------------------------------------------------- deduplicated design
#
# Per-round arrays are laid out groups x rounds (one column per bootstrap round), so
# that every sparse product is a CSR matrix times a C-contiguous dense matrix.


@dataclass(frozen=True)
class _Design:
    """Battles deduplicated into groups (pair, features) and units (group, outcomes).

    Orientation is canonical (index of A < index of B); swapped battles have their
    outcome mirrored (1 - y) and their features negated.
    """

    models: tuple[str, ...]
    x: np.ndarray  # groups x features
    battle_unit: np.ndarray  # battle -> unit
    unit_y: np.ndarray  # units x outcome columns
    unit_count: np.ndarray  # base weight of each unit
    to_group: sparse.csr_matrix  # groups x units (0/1)
    signed: sparse.csr_matrix  # models x groups: +1 at A, -1 at B (0 for self-pairs)
    full: np.ndarray | sparse.csr_matrix  # groups x params: the design [signed.T | x]
    full_t: np.ndarray | sparse.csr_matrix  # params x groups
    touches: sparse.csr_matrix  # models x groups: 1 at A and at B (0 for self-pairs)
    pair_matrix: sparse.csr_matrix  # distinct pairs x groups (0/1), self-pairs dropped
    pair_a: np.ndarray
    pair_b: np.ndarray
    observed: np.ndarray | None = None  # units x columns (False: outcome missing); None: all seen
    multinomial: bool = False  # bootstrap: multinomial draws on unit counts (frequency weights)
    group_a: np.ndarray | None = None  # without features: each group's A and B model (its row of `full`: +1, -1)
    group_b: np.ndarray | None = None

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def n_params(self) -> int:
        return len(self.models) + self.x.shape[1]

    def group_stats(self, counts: np.ndarray, column: int) -> tuple[np.ndarray, np.ndarray]:
        """Per-group weight n and weighted wins S (groups x rounds) from unit counts."""
        if self.observed is not None:  # a column that did not see a battle gives it no weight
            counts = counts * self.observed[:, column : column + 1]
        wins = counts * self.unit_y[:, column : column + 1]
        if self.to_group.shape[0] == self.to_group.shape[1]:  # one unit per group, in order
            return counts, wins
        return self.to_group @ counts, self.to_group @ wins


def unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(rows, axis=0, return_inverse=True) for a finite float matrix, by a stable lexsort of
    its columns (numpy sorts the rows as one structured value, 10-30x slower on 100,000 rows). The
    same rows in the same order; -0.0 and 0.0 are equal to both, and written 0.0 here."""
    rows = rows + 0.0  # -0.0 -> 0.0: np.unique kept whichever of two equal rows its sort met first
    if len(rows) == 0 or rows.shape[1] == 0:
        return np.unique(rows, axis=0, return_inverse=True)
    if _strictly_increasing(rows):  # already the sorted distinct rows (counts of sorted cells): no sort needed
        return rows, np.arange(len(rows), dtype=np.int64)
    order = np.lexsort(rows.T[::-1])
    ordered = rows[order]
    starts = np.empty(len(rows), dtype=bool)
    starts[0] = True
    starts[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    inverse = np.empty(len(rows), dtype=np.int64)
    inverse[order] = np.cumsum(starts) - 1
    return ordered[starts], inverse


def _strictly_increasing(rows: np.ndarray) -> bool:
    """Whether each row is lexicographically above the one before it."""
    earlier, later = rows[:-1], rows[1:]
    differ = earlier != later
    first = differ.argmax(axis=1)  # the first column where two neighbours differ
    at = np.arange(len(first))
    return bool(differ.any(axis=1).all() and (later[at, first] > earlier[at, first]).all())


def _build_design(
    a: np.ndarray, b: np.ndarray, ys: np.ndarray, x: np.ndarray, weights: np.ndarray
) -> _Design:
    """Deduplicate battles (ys: battles x outcome columns) into groups and units."""
    models = tuple(sorted(set(a.tolist()) | set(b.tolist())))  # not set(a): iterating a numpy str array
    # swallows a KeyboardInterrupt raised meanwhile (numpy 2.4), so a Ctrl-C or SIGTERM was lost
    names = np.array(models, dtype=str) if models else np.zeros(0, dtype=str)
    ia = np.searchsorted(names, a).astype(np.int64)  # a, b are str arrays (_models_array): exact positions
    ib = np.searchsorted(names, b).astype(np.int64)
    return _coded_design(ia, ib, models, ys, x, weights)


def _coded_design(
    ia: np.ndarray, ib: np.ndarray, models: tuple[str, ...], ys: np.ndarray, x: np.ndarray, weights: np.ndarray
) -> _Design:
    """`_build_design` on battles given as positions in `models` (sorted names, each one in some battle)."""
    swap = ia > ib
    ia, ib = np.where(swap, ib, ia), np.where(swap, ia, ib)
    ys = np.where(swap[:, None], 1.0 - ys, ys)
    ys = np.where(np.isnan(ys), -1.0, ys)  # a missing outcome: its own unit, never counted
    x = np.where(swap[:, None], -x, x)
    k = x.shape[1]
    units, unit_of = unique_rows(np.column_stack([ia, ib, x, ys]))
    groups, unit_group = unique_rows(units[:, : 2 + k])
    g_a, g_b = groups[:, 0].astype(np.int64), groups[:, 1].astype(np.int64)
    pairs, pair_of = unique_rows(groups[:, :2])
    proper = (g_a != g_b).astype(float)
    n_groups, n_units = len(groups), len(units)
    rows = np.arange(n_groups)
    cols, both = np.concatenate([g_a, g_b]), np.concatenate([rows, rows])
    signed = sparse.csr_matrix(
        (np.concatenate([proper, -proper]), (cols, both)), shape=(len(models), n_groups)
    )
    full = sparse.hstack([signed.T, sparse.csr_matrix(groups[:, 2 : 2 + k])]).tocsr()
    if full.shape[0] * full.shape[1] <= _DENSE_CELLS:  # BLAS beats CSR products 2-3x here
        full = full.toarray()
    unit_y = units[:, 2 + k :]
    return _Design(
        observed=None if (unit_y >= 0).all() else unit_y >= 0,
        models=models,
        x=groups[:, 2 : 2 + k],
        battle_unit=unit_of.astype(np.int32),
        unit_y=np.maximum(unit_y, 0.0),
        unit_count=_unit_counts(unit_of, weights, n_units),
        to_group=sparse.csr_matrix(
            (np.ones(n_units), (unit_group, np.arange(n_units))), shape=(n_groups, n_units)
        ),
        signed=signed,
        full=full,
        full_t=np.ascontiguousarray(full.T) if isinstance(full, np.ndarray) else full.T.tocsr(),
        touches=abs(signed).tocsr(),
        pair_matrix=sparse.csr_matrix(
            (proper, (pair_of.reshape(-1), rows)), shape=(len(pairs), n_groups)
        ),
        pair_a=pairs[:, 0].astype(np.int64),
        pair_b=pairs[:, 1].astype(np.int64),
        group_a=g_a if k == 0 else None,
        group_b=g_b if k == 0 else None,
    )


def _unit_counts(unit_of: np.ndarray, weights: np.ndarray, n_units: int) -> np.ndarray:
    """Each unit's weight: its battles' weights summed."""
    return np.bincount(unit_of, weights=weights, minlength=n_units)


def _weighted(design: _Design, weights: np.ndarray) -> _Design:
    """The same battles' design with other weights (one per battle)."""
    return replace(design, unit_count=_unit_counts(design.battle_unit, weights, len(design.unit_count)))


# ---------------------------------------------------------------- objective (params x rounds)


def _eta(design: _Design, params: np.ndarray) -> np.ndarray:
    """Linear predictor, groups x rounds. Without features a group's row of `full` is +1 at A and -1 at B (none for
    a self-pair), so its product is params[A] - params[B], the same value (the zeros add exactly, the one rounding is
    the same; `+ 0.0` gives the product's 0.0 where the difference is -0.0), read from two rows instead of the whole
    groups x models matrix (issue 30: a tenth of the arena's robustness refits). Finite parameters (the fits')."""
    if design.group_a is None:
        return design.full @ params
    eta = params[design.group_a] - params[design.group_b]
    eta += 0.0
    return eta


def _loss(design: _Design, eta: np.ndarray, n: np.ndarray, s: np.ndarray, params: np.ndarray,
          l2: float) -> np.ndarray:
    """Summed negative log-likelihood plus the gauge and L2 terms, per round."""
    return _nll(eta, n, s) + 0.5 * params[: design.n_models].sum(0) ** 2 + 0.5 * l2 * (params**2).sum(0)


def _nll(eta: np.ndarray, n: np.ndarray, s: np.ndarray) -> np.ndarray:
    """(n * logaddexp(0, eta) - s * eta).sum(axis=0): the same operations on the same values, in place when the
    shapes allow (a large bootstrap batch allocated three arrays of rounds x groups per call)."""
    if not (eta.shape == n.shape == s.shape and eta.dtype == n.dtype == s.dtype == np.float64):
        return (n * np.logaddexp(0.0, eta) - s * eta).sum(axis=0)
    terms = np.logaddexp(0.0, eta)
    terms *= n  # n * t == t * n: multiplication is commutative in IEEE arithmetic
    terms -= np.multiply(s, eta, out=np.empty_like(eta))
    return terms.sum(axis=0)


def _gradient(design: _Design, resid: np.ndarray, params: np.ndarray, l2: float) -> np.ndarray:
    """Gradient (params x rounds) from residuals n*p - S (groups x rounds)."""
    grad = design.full_t @ resid
    grad[: design.n_models] += params[: design.n_models].sum(0)
    grad += l2 * params
    return grad


def _hessian(design: _Design, h: np.ndarray, l2: float) -> np.ndarray:
    """Hessian (rounds x params x params) from curvature weights h = n*p*(1-p)."""
    rounds, m, k = h.shape[1], design.n_models, design.x.shape[1]
    out = np.zeros((rounds, m + k, m + k))
    per_pair = (design.pair_matrix @ h).T
    out[:, design.pair_a, design.pair_b] = -per_pair
    out[:, design.pair_b, design.pair_a] = -per_pair
    out[:, np.arange(m), np.arange(m)] = (design.touches @ h).T
    out[:, :m, :m] += 1.0  # the gauge term (sum of strengths)^2 / 2
    if k:
        cross = np.stack([(design.signed @ (h * design.x[:, j : j + 1])).T for j in range(k)],
                         axis=2)
        out[:, :m, m:] = cross
        out[:, m:, :m] = cross.transpose(0, 2, 1)
        out[:, m:, m:] = np.einsum("gr,gi,gj->rij", h, design.x, design.x)
    out[:, np.arange(m + k), np.arange(m + k)] += l2
    return out


def _newton(
    design: _Design, n: np.ndarray, s: np.ndarray, start: np.ndarray, l2: float,
    max_iter: int = 60, tol: float = 1e-9,
) -> tuple[np.ndarray, np.ndarray]:
    """Damped Newton for many rounds at once (columns). Returns (params, converged)."""
    params = start.copy()
    active = np.arange(params.shape[1])
    converged = np.zeros(params.shape[1], dtype=bool)
    for _ in range(max_iter):
        if not len(active):
            break
        whole = len(active) == params.shape[1]  # every round still active: no copies of n and s
        cur = params[:, active]
        n_act, s_act = (n, s) if whole else (n[:, active], s[:, active])
        eta = _eta(design, cur)
        prob = expit(eta)
        weighted = n_act * prob  # computed once for the gradient and the curvature (the same values)
        grad = _gradient(design, weighted - s_act, cur, l2)
        weighted *= np.subtract(1.0, prob, out=prob)  # n * p * (1 - p), evaluated left to right as before
        hess = _hessian(design, weighted, l2)
        del weighted, prob
        step = np.linalg.solve(hess, grad.T[..., None])[..., 0].T
        new = _damped(design, n_act, s_act, cur, step, eta, l2)
        params[:, active] = new
        done = np.abs(new - cur).max(axis=0) < tol
        converged[active[done]] = True
        active = active[~done]
    return params, converged


def _damped(design, n, s, cur, step, eta, l2, big: float = 0.5, halvings: int = 40):
    """Full Newton steps; rounds with a large step (> big in log-odds) are halved
    until the loss does not increase (small steps near the optimum are safe, and any
    round that still fails to converge falls back to L-BFGS)."""
    new = cur - step
    large = np.flatnonzero(np.abs(step).max(axis=0) > big)
    if not len(large):
        return new
    if len(large) < cur.shape[1]:  # else every round: the arrays themselves, not copies
        n, s, cur, step, eta = n[:, large], s[:, large], cur[:, large], step[:, large], eta[:, large]
    loss0 = _loss(design, eta, n, s, cur, l2)
    size = np.ones(len(large))
    for _ in range(halvings):
        trial = cur - size * step
        loss = _loss(design, _eta(design, trial), n, s, trial, l2)
        worse = loss > loss0 + 1e-12 * np.abs(loss0)
        if not worse.any():
            break
        size[worse] /= 2
    new[:, large] = cur - size * step
    return new


def _lbfgs(design: _Design, n: np.ndarray, s: np.ndarray, start: np.ndarray,
           l2: float) -> np.ndarray:
    """Single-round L-BFGS fit with an analytic gradient (objective scaled by 1/total).

    n, s: per-group weight and wins (groups,); start: (params,).
    """
    total = max(float(n.sum()), 1.0)
    n, s = n[:, None], s[:, None]

    def fun(vec: np.ndarray) -> tuple[float, np.ndarray]:
        params = vec[:, None]
        eta = _eta(design, params)
        loss = _loss(design, eta, n, s, params, l2)[0]
        grad = _gradient(design, n * expit(eta) - s, params, l2)[:, 0]
        return loss / total, grad / total

    # imported here (~0.3 s): a run preloads it while its calls are in flight (preload.py)
    from scipy import optimize

    result = optimize.minimize(
        fun, start, jac=True, method="L-BFGS-B",
        options={"maxiter": 20000, "maxcor": 30, "ftol": 1e-15, "gtol": 1e-11},
    )
    return result.x


# ---------------------------------------------------------------- Elo conversion


ELO_RATING_MAX = 1e6  # |anchor rating|: beyond it a rating's digits are lost to rounding (1e308 + 400 == 1e308)
ELO_SCALE_MAX = 1e6


def comparison_groups(first: Iterable[str], second: Iterable[str]) -> list[list[str]]:
    """The models of battles (`first[i]` against `second[i]`) in groups that no battle connects, each sorted,
    largest group first: ratings of models in different groups are related only by the regularisation, so
    neither their order nor a rank correlation across groups means anything."""
    parent: dict[str, str] = {}

    def root(model: str) -> str:
        while parent.setdefault(model, model) != model:
            parent[model] = parent[parent[model]]
            model = parent[model]
        return model

    for a, b in zip(first, second):
        parent[root(a)] = root(b)
    groups: dict[str, list[str]] = {}
    for model in parent:
        groups.setdefault(root(model), []).append(model)
    return sorted((sorted(g) for g in groups.values()), key=lambda g: (-len(g), g))


def unbeaten_orders(took: np.ndarray, gave: np.ndarray, n: int) -> list[list[list[int]]]:
    """Zermelo's condition: Bradley-Terry has a finite estimate when, in each group of models the battles connect,
    every model took a point (a win, or half of a tie) from every other through some chain of battles. `took[i]`
    took a point from `gave[i]` (model indices below n; repeats allowed). Where that fails, the strongly connected
    components of that graph order one another without an upset, and the fit's gaps between them are its L2
    term's: one list per such connected group, of its components (model indices, each sorted)."""
    from scipy.sparse.csgraph import connected_components

    graph = sparse.csr_matrix((np.ones(len(took)), (took, gave)), shape=(n, n))
    weak = connected_components(graph, directed=True, connection="weak")[1]
    strong = connected_components(graph, directed=True, connection="strong")[1]
    present = np.zeros(n, dtype=bool)
    present[took] = present[gave] = True
    orders: dict[int, dict[int, list[int]]] = {}
    for model in np.flatnonzero(present).tolist():
        orders.setdefault(int(weak[model]), {}).setdefault(int(strong[model]), []).append(model)
    return [list(components.values()) for components in orders.values() if len(components) > 1]


def best_first(orders: list[list[list[str]]], rating: Mapping[str, float]) -> list[list[list[str]]]:
    """`unbeaten_orders` by model name, each order's groups by their best rating, highest first, and the orders
    by their best group."""
    best = lambda group: -max(rating.get(m, -math.inf) for m in group)  # noqa: E731
    return sorted((sorted(order, key=best) for order in orders), key=lambda order: best(order[0]))


def check_elo_scale(anchor_rating: float, scale: float, base: float) -> None:
    """The Elo conversion's constants, else NumericError: a base of 1 divides by ln 1 = 0, a NaN or infinite
    anchor writes NaN ratings, and an anchor of -1e308 leaves no digit of the differences."""
    for name, value in (("anchor rating", anchor_rating), ("scale", scale), ("base", base)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise NumericError(f"Elo {name} must be a finite number, got {value!r}")
    if abs(anchor_rating) > ELO_RATING_MAX:
        raise NumericError(f"Elo anchor rating must be between -{ELO_RATING_MAX:g} and {ELO_RATING_MAX:g}, got {anchor_rating:g}")
    if not 0 < scale <= ELO_SCALE_MAX:
        raise NumericError(f"Elo scale must be > 0 and <= {ELO_SCALE_MAX:g}, got {scale:g}")
    if not base > 1:
        raise NumericError(f"Elo base must be > 1 (odds of BASE:1 per SCALE points), got {base:g}")


def elo_scale(scale: float = 400.0, base: float = 10.0) -> float:
    """Elo points per unit of log-odds strength (a difference of SCALE points means BASE:1 odds)."""
    return scale / math.log(base)


def _to_elo(
    theta: np.ndarray, present: np.ndarray, models: tuple[str, ...], anchor_model: str | None,
    anchor_rating: float, scale: float, base: float,
) -> np.ndarray:
    """Elo ratings (rounds x models) from theta (models x rounds); NaN where absent."""
    check_elo_scale(anchor_rating, scale, base)
    theta = np.where(present, theta, np.nan).T
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ref = (theta[:, models.index(anchor_model)] if anchor_model is not None
               else np.nanmean(theta, axis=1))
    return anchor_rating + elo_scale(scale, base) * (theta - ref[:, None])


def _presence(design: _Design, n: np.ndarray) -> np.ndarray:
    """Which models have positive battle weight in each round (models x rounds)."""
    return (design.touches @ n) > 0


# ---------------------------------------------------------------- public API


def fit_bt(
    battles: Battles,
    features: Features = None,
    *,
    feature_names: Sequence[str] | None = None,
    weights: Sequence[float] | None = None,
    anchor_model: str | None = None,
    anchor_rating: float = 1000.0,
    scale: float = 400.0,
    base: float = 10.0,
    l2: float = DEFAULT_L2,
) -> BTFit:
    """Fit Bradley–Terry ratings (Elo scale) and optional style coefficients.

    battles: DataFrame with columns model_a, model_b, outcome, or a tuple of three
    sequences; outcome 1 = A wins, 0 = B wins, 0.5 = tie (any value in [0, 1]).
    features: optional n_battles x k feature differences (A minus B).
    weights: optional non-negative weight per battle (frequency weights).
    """
    return fit_bt_penalties(battles, features, (l2,), feature_names=feature_names, weights=weights,
                            anchor_model=anchor_model, anchor_rating=anchor_rating, scale=scale, base=base)[0]


def fit_bt_penalties(
    battles: Battles,
    features: Features,
    l2s: Sequence[float],
    *,
    feature_names: Sequence[str] | None = None,
    weights: Sequence[float] | None = None,
    anchor_model: str | None = None,
    anchor_rating: float = 1000.0,
    scale: float = 400.0,
    base: float = 10.0,
) -> list[BTFit]:
    """`fit_bt(battles, features, l2=l2, ...)` for each L2 penalty of `l2s`, the design built once."""
    a, b, y = _battle_arrays(battles)
    x, names = _feature_matrix(features, len(a), feature_names)
    design = _prepare(a, b, y[:, None], x, _battle_weights(weights, len(a)), anchor_model)
    return _point_fits(design, names, l2s, _elo(anchor_model, anchor_rating, scale, base))


def fit_bt_coded(
    a: np.ndarray,
    b: np.ndarray,
    outcome: Sequence[float],
    models: Sequence[str],
    *,
    weights: Sequence[float] | None = None,
    anchor_model: str | None = None,
    anchor_rating: float = 1000.0,
    scale: float = 400.0,
    base: float = 10.0,
    l2: float = DEFAULT_L2,
) -> BTFit:
    """`fit_bt((models[a], models[b], outcome), weights=weights, ...)` for battles given as positions in `models`
    (distinct names, sorted): the same design, so the same fit, without a name per battle (issue 30: the arena's
    robustness refits spent half their time turning names back into positions)."""
    return next(fit_bt_coded_weights(a, b, outcome, models, [weights], anchor_model=anchor_model,
                                     anchor_rating=anchor_rating, scale=scale, base=base, l2=l2))


def fit_bt_coded_weights(
    a: np.ndarray,
    b: np.ndarray,
    outcome: Sequence[float],
    models: Sequence[str],
    weights: Iterable[Sequence[float] | None],
    *,
    anchor_model: str | None = None,
    anchor_rating: float = 1000.0,
    scale: float = 400.0,
    base: float = 10.0,
    l2: float = DEFAULT_L2,
) -> Iterator[BTFit]:
    """`fit_bt_coded(a, b, outcome, models, weights=w, ...)` for each w of `weights`, one at a time: the same
    battles weighted in turn. The design (groups, units, matrices) depends on the battles, not on their weights,
    so it is built once (issue 30: the arena's 60 robustness refits of the same cells built it 60 times)."""
    names = np.asarray(models, dtype=str)
    if len(names) > 1 and not (names[:-1] < names[1:]).all():
        raise NumericError("models: distinct names in sorted order")
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    used = np.unique(np.concatenate([a, b]))  # a design's models are its battles' (fit_bt's are)
    if len(used) and (used[0] < 0 or used[-1] >= len(names)):
        raise NumericError("battles: a model position outside the models")
    x, _ = _feature_matrix(None, len(a), None)
    y = _outcome_array(outcome, len(a))
    elo = _elo(anchor_model, anchor_rating, scale, base)
    design = None
    for w in weights:
        w = _battle_weights(w, len(a))
        if design is None:
            design = _prepare(np.searchsorted(used, a), np.searchsorted(used, b), y[:, None], x, w, anchor_model,
                              models=tuple(names[used].tolist()))
        else:
            design = _weighted(design, w)
        yield _point_fits(design, (), (l2,), elo)[0]


def _elo(anchor_model: str | None, anchor_rating: float, scale: float, base: float) -> dict[str, Any]:
    """The Elo conversion's arguments, as a fit carries them (`_make_fit`, `_to_elo`)."""
    return {"anchor_model": anchor_model, "anchor_rating": anchor_rating, "scale": scale, "base": base}


def _battle_weights(weights: Sequence[float] | None, n: int) -> np.ndarray:
    """One non-negative weight per battle (1 each when none are given)."""
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    if len(w) != n or not np.all((w >= 0) & np.isfinite(w)):  # (NaN and infinity: no weight; found attacking)
        raise NumericError("weights: one non-negative finite weight per battle")
    return w


def _point_fits(design: _Design, names: tuple[str, ...], l2s: Sequence[float], elo: dict[str, Any]) -> list[BTFit]:
    """The full-data fit of the design's first outcome column for each L2 penalty."""
    with single_threaded_blas():
        return [_make_fit(design, 0, _point_params(design, 0, l2), names, elo) for l2 in l2s]


def bootstrap_bt(
    battles: Battles,
    features: Features = None,
    *,
    feature_names: Sequence[str] | None = None,
    anchor_model: str | None = None,
    anchor_rating: float = 1000.0,
    scale: float = 400.0,
    base: float = 10.0,
    l2: float = DEFAULT_L2,
    n_resamples: int = 1000,
    seed: int = 0,
    weights: Sequence[float] | None = None,
) -> BTFit:
    """fit_bt plus 95% percentile intervals from resampling battles with replacement
    (weights: integer counts of aggregated battles, see paired_bootstrap_bt)."""
    a, b, y = _battle_arrays(battles)
    fits = paired_bootstrap_bt(
        a, b, {"outcome": y}, features, feature_names=feature_names, anchor_model=anchor_model,
        anchor_rating=anchor_rating, scale=scale, base=base, l2=l2,
        n_resamples=n_resamples, seed=seed, weights=weights,
    )
    return fits["outcome"]


def paired_bootstrap_bt(
    model_a: Sequence[Any],
    model_b: Sequence[Any],
    outcomes: Mapping[str, Sequence[float]],
    features: Features = None,
    *,
    feature_names: Sequence[str] | None = None,
    anchor_model: str | None = None,
    anchor_rating: float = 1000.0,
    scale: float = 400.0,
    base: float = 10.0,
    l2: float = DEFAULT_L2,
    n_resamples: int = 1000,
    seed: int = 0,
    weights: Sequence[float] | None = None,
) -> dict[str, BTFit]:
    """Bootstrap several outcome columns over the same battles with the same resamples.

    E.g. human labels and judge verdicts on the same comparisons: round r of every
    returned fit uses the same resampled battles, so per-round statistics comparing
    the fits (rank correlations, coefficient differences) are paired. A NaN outcome
    marks a battle one column did not see (e.g. a judge that did not answer): that
    column's fits leave it out, the other columns keep it, the resamples stay shared.
    weights: optional integer frequency weights (battles aggregated into counts); the
    rounds are then multinomial draws on the counts, the same distribution as
    resampling the expanded battles, with memory independent of their number.
    """
    return PairedBootstrap.prepare(
        model_a, model_b, outcomes, features, feature_names=feature_names, anchor_model=anchor_model,
        anchor_rating=anchor_rating, scale=scale, base=base, l2=l2, n_resamples=n_resamples, seed=seed,
        weights=weights,
    ).fits()


@dataclass(frozen=True)
class PairedBootstrap:
    """`paired_bootstrap_bt` in two steps: the design and the full-data fits (`prepare`), then the rounds
    (`fits`, or `solve` chunk by chunk, possibly in several processes, joined by `fits_of`). In between, a
    caller that draws the same resamples of the same battles for its own statistics (diagnostics.py) can
    count each round's battles per unit itself (`battle_unit`) and hand the counts over, so the seeded
    draws are made and counted once."""

    design: _Design
    keys: tuple[str, ...]
    names: tuple[str, ...]
    starts: tuple[np.ndarray, ...]
    elo: dict[str, Any]
    l2: float
    n_resamples: int
    seed: int

    @classmethod
    def prepare(cls, model_a: Sequence[Any], model_b: Sequence[Any], outcomes: Mapping[str, Sequence[float]],
                features: Features = None, *, feature_names: Sequence[str] | None = None,
                anchor_model: str | None = None, anchor_rating: float = 1000.0, scale: float = 400.0,
                base: float = 10.0, l2: float = DEFAULT_L2, n_resamples: int = 1000, seed: int = 0,
                weights: Sequence[float] | None = None) -> PairedBootstrap:
        """The design and every column's full-data fit (the arguments of `paired_bootstrap_bt`)."""
        if n_resamples < 1:
            raise NumericError("n_resamples must be at least 1")
        a, b = _models_array(model_a), _models_array(model_b)
        keys = tuple(outcomes)
        ys = np.column_stack([_outcome_array(outcomes[k], len(a), missing=True) for k in keys])
        x, names = _feature_matrix(features, len(a), feature_names)
        w = np.ones(len(a)) if weights is None else _frequency_weights(weights, len(a))
        design = _prepare(a, b, ys, x, w, anchor_model)
        if weights is not None:
            design = replace(design, multinomial=True)
        elo = _elo(anchor_model, anchor_rating, scale, base)
        with single_threaded_blas():
            starts = tuple(_point_params(design, column, l2) for column in range(len(keys)))
        return cls(design, keys, names, starts, elo, l2, n_resamples, seed)

    @property
    def battle_unit(self) -> np.ndarray:
        """The unit (row of the counts `fits` takes) of each battle, in the battles' order."""
        return self.design.battle_unit

    @property
    def n_units(self) -> int:
        return len(self.design.unit_count)

    def draws_as(self, n: int, rounds: int, seed: int) -> bool:
        """Whether round r resamples the battles that row r of `resample_batches(n, rounds, seed, ...)` indexes
        (battle i = the caller's row i): then the caller's per-round counts of those indices, summed per
        `battle_unit`, are these rounds' unit counts."""
        return (not self.design.multinomial and len(self.design.battle_unit) == n and batch_free(n)
                and (self.n_resamples, self.seed) == (rounds, seed))

    @property
    def n_chunks(self) -> int:
        """How many chunks of rounds the bootstrap is solved in (`solve`)."""
        return -(-self.n_resamples // _chunk_rounds(self.design))

    def solve(self, chunks: Collection[int] | None = None, unit_counts: np.ndarray | None = None) -> Solved:
        """The rounds of the chunks named (all by default), drawn here or given as unit counts (n_units x
        n_resamples, for a caller whose draws are this bootstrap's: `draws_as`). A chunk's solves are the
        same in any process, so processes may share the chunks (diagnostics.py) and `fits_of` joins them."""
        with single_threaded_blas():
            return _bootstrap_chunks(self.design, list(self.starts), self.n_resamples, self.seed, self.l2,
                                     unit_counts, chunks)

    def fits_of(self, solved: Solved) -> dict[str, BTFit]:
        """The fits with the bootstrap rounds of every chunk (`solve`'s results, joined)."""
        if sorted(solved) != list(range(self.n_chunks)):
            raise NumericError(f"bootstrap: chunks {sorted(solved)} solved of {self.n_chunks}")
        boots = [(np.hstack([solved[i][column][0] for i in range(self.n_chunks)]),
                  np.hstack([solved[i][column][1] for i in range(self.n_chunks)])) for column in range(len(self.keys))]
        return {
            key: _with_intervals(self.design, samples, present,
                                 _make_fit(self.design, column, self.starts[column], self.names, self.elo),
                                 self.seed)
            for column, (key, (samples, present)) in enumerate(zip(self.keys, boots))
        }

    def fits(self, unit_counts: np.ndarray | None = None) -> dict[str, BTFit]:
        """The fits with their bootstrap rounds (see `solve`)."""
        return self.fits_of(self.solve(unit_counts=unit_counts))

    def unbeaten(self, key: str) -> list[list[list[str]]]:
        """`unbeaten_orders` of one outcome column's battles, by model name: where its fit has no finite estimate."""
        d = self.design
        signed = d.signed.tocoo()
        a_of, b_of = np.zeros(d.full.shape[0], dtype=np.int64), np.zeros(d.full.shape[0], dtype=np.int64)
        a_of[signed.col[signed.data > 0]] = signed.row[signed.data > 0]
        b_of[signed.col[signed.data < 0]] = signed.row[signed.data < 0]
        to_group = d.to_group.tocoo()
        group = np.zeros(len(d.unit_count), dtype=np.int64)
        group[to_group.col] = to_group.row
        column = self.keys.index(key)
        y = d.unit_y[:, column]
        seen = np.isfinite(y) if d.observed is None else d.observed[:, column] & np.isfinite(y)
        real = seen & (a_of[group] != b_of[group])  # a self-pair (no +1/-1 in its column) takes nothing
        a, b, y = a_of[group][real], b_of[group][real], y[real]
        took = np.concatenate([a[y > 0], b[y < 1]])
        gave = np.concatenate([b[y > 0], a[y < 1]])
        return [[sorted(d.models[m] for m in component) for component in order]
                for order in unbeaten_orders(took, gave, d.n_models)]


def _frequency_weights(weights: Sequence[float], n: int) -> np.ndarray:
    w = np.asarray(weights, dtype=float).reshape(-1)
    if len(w) != n or not np.all((w >= 0) & (w == np.round(w)) & np.isfinite(w)):
        raise NumericError("weights: one non-negative integer count per battle")
    return w


def _prepare(a, b, ys, x, w, anchor_model, models: tuple[str, ...] | None = None) -> _Design:
    """The design of the battles (a, b: names; or positions in `models`, _coded_design's)."""
    if len(a) == 0:
        raise NumericError("battles: none to fit")
    design = _build_design(a, b, ys, x, w) if models is None else _coded_design(a, b, models, ys, x, w)
    if anchor_model is not None and anchor_model not in design.models:
        raise NumericError(f"anchor model {anchor_model!r} is not in the battles")
    return design


def _point_params(design: _Design, column: int, l2: float) -> np.ndarray:
    """Full-data parameters (theta then beta) for one outcome column: L-BFGS with an
    analytic gradient, polished by Newton steps to a step size below 1e-9."""
    if not (l2 >= 0 and math.isfinite(l2)):  # (the fits assume finite parameters: _eta; found attacking)
        raise NumericError(f"l2: {l2!r}; the penalty is a finite number, 0 or above")
    n, s = design.group_stats(design.unit_count[:, None], column)
    start = _lbfgs(design, n[:, 0], s[:, 0], np.zeros(design.n_params), l2)
    polished, ok = _newton(design, n, s, start[:, None], l2)
    return polished[:, 0] if ok[0] else start


def _make_fit(design: _Design, column: int, params: np.ndarray, names: tuple[str, ...],
              elo: dict[str, Any]) -> BTFit:
    """A BTFit from full-data params; elo holds anchor_model, anchor_rating, scale, base."""
    m = design.n_models
    n, _ = design.group_stats(design.unit_count[:, None], column)
    ratings = _to_elo(params[:m, None], _presence(design, n), design.models, **elo)[0]
    _, s = design.group_stats(design.unit_count[:, None], column)
    eta = _eta(design, params[:, None])
    nll = float((n * np.logaddexp(0.0, eta) - s * eta).sum())
    seen = float(n.sum())
    return BTFit(models=design.models, ratings=ratings, feature_names=names, beta=params[m:],
                 n_battles=seen, mean_log_loss=float(nll / max(seen, 1e-300)), **elo)


def _resample_chunks(design: _Design, n_resamples: int, seed: int, blocks_per_chunk: int):
    """Yield unit counts (units x rounds) for successive chunks of rounds.

    Each round resamples the battles with replacement (uniform battle indices, so the
    unit counts are multinomial). Rounds are drawn in fixed blocks of _BLOCK from one
    seeded stream, so round r is the same whatever the chunk size.
    """
    if n_resamples < 1:
        raise NumericError("n_resamples must be at least 1")
    if not np.allclose(design.unit_count, np.round(design.unit_count)):
        raise NumericError("bootstrap needs unweighted battles")
    rng = np.random.default_rng(seed)
    step = _BLOCK * blocks_per_chunk
    for lo in range(0, n_resamples, step):
        rounds = min(step, n_resamples - lo)
        draw = _draw_multinomial if design.multinomial else _draw_block
        yield np.hstack([draw(design, rng, min(_BLOCK, rounds - b))
                         for b in range(0, rounds, _BLOCK)])


def _draw_block(design: _Design, rng: np.random.Generator, rounds: int) -> np.ndarray:
    """Unit counts (units x rounds) of `rounds` resamples of the battles."""
    n_battles, n_units = len(design.battle_unit), len(design.unit_count)
    if batch_free(n_battles):  # a round at a time: the same indices (resampling.batch_free), one round in memory
        counts = np.empty((rounds, n_units), dtype=np.int64)
        for r in range(rounds):
            drawn = rng.integers(0, n_battles, size=n_battles, dtype=np.int32)
            counts[r] = np.bincount(design.battle_unit[drawn], minlength=n_units)
        return counts.T.astype(float)
    kind = np.int32 if n_units * rounds < 2**31 else np.int64
    units = design.battle_unit.astype(kind)[
        rng.integers(0, n_battles, size=(rounds, n_battles), dtype=np.int32)
    ]
    counts = np.empty((rounds, n_units), dtype=np.int64)
    for r in range(rounds):  # one bincount per round: many times faster than one over (round, unit) cells
        counts[r] = np.bincount(units[r], minlength=n_units)
    return counts.T.astype(float)


def _draw_multinomial(design: _Design, rng: np.random.Generator, rounds: int) -> np.ndarray:
    """Unit counts (units x rounds): multinomial draws on the aggregated counts."""
    return multinomial_counts(rng, design.unit_count, rounds).T.astype(float)


def _chunk_rounds(design: _Design) -> int:
    """Rounds per bootstrap chunk: a multiple of _BLOCK bounded by _CHUNK_CELLS (the solves' bits depend on it)."""
    cells = _BLOCK * max(design.to_group.shape[0], len(design.unit_count) // 4)
    return _BLOCK * max(1, _CHUNK_CELLS // cells)


def _bootstrap_chunks(design: _Design, starts: list[np.ndarray], n_resamples: int, seed: int, l2: float,
                      unit_counts: np.ndarray | None = None, chunks: Collection[int] | None = None) -> Solved:
    """Per chunk of rounds (all, or those named): each outcome column's fitted params (params x rounds) and
    presence (models x rounds). The rounds come from the seeded draws (drawn for every chunk up to the last one
    named, so that each chunk's are its own) or from the given unit counts of the same rounds (units x rounds)."""
    step = _chunk_rounds(design)
    source = (_resample_chunks(design, n_resamples, seed, step // _BLOCK) if unit_counts is None
              else _given_chunks(design, unit_counts, n_resamples, step))
    wanted = None if chunks is None else set(chunks)
    solved: Solved = {}
    for index, counts in enumerate(source):
        if wanted is not None and index not in wanted:
            if index > max(wanted, default=-1):
                break
            continue
        solved[index] = []
        for column, start in enumerate(starts):
            n, s = design.group_stats(counts, column)
            solved[index].append((_solve_rounds(design, n, s, start, l2), _presence(design, n)))
    return solved


def _given_chunks(design: _Design, unit_counts: np.ndarray, n_resamples: int, step: int) -> Iterator[np.ndarray]:
    """Chunks of given unit counts laid out as `_resample_chunks` yields them (C-contiguous float64)."""
    if unit_counts.shape != (len(design.unit_count), n_resamples):
        raise NumericError(f"unit counts: shape {unit_counts.shape}, expected ({len(design.unit_count)}, {n_resamples})")
    for lo in range(0, n_resamples, step):
        yield np.ascontiguousarray(unit_counts[:, lo : lo + step], dtype=np.float64)


def _solve_rounds(design: _Design, n: np.ndarray, s: np.ndarray, start: np.ndarray,
                  l2: float) -> np.ndarray:
    """Fit every round (columns of n, s), warm-started at the full-data fit.

    Newton steps whose per-round Hessian is only recomputed for the first few steps
    and then kept fixed (a Shamanskii / chord iteration: each later step is one small
    matrix product; it converges fast because the start is close). Rounds that do
    not converge get damped Newton, and any still left L-BFGS.
    """
    params = np.repeat(start[:, None], n.shape[1], axis=1)
    fitted, ok = _chord(design, n, s, params, l2)
    left = np.flatnonzero(~ok)
    if len(left):
        fitted[:, left], ok_newton = _newton(design, n[:, left], s[:, left], params[:, left], l2)
        for r in left[~ok_newton]:
            fitted[:, r] = _lbfgs(design, n[:, r], s[:, r], start, l2)
    return fitted


def _chord(design: _Design, n: np.ndarray, s: np.ndarray, params: np.ndarray, l2: float,
           refresh: int = _REFRESH, max_iter: int = 50,
           tol: float = 1e-9) -> tuple[np.ndarray, np.ndarray]:
    """Newton steps with the Hessian recomputed for the first `refresh` steps only.

    Returns (params, converged); a round whose step exceeds 1 (log-odds) or that has
    not converged after max_iter is reported as not converged, its params unchanged."""
    out = params.copy()
    converged = np.zeros(params.shape[1], dtype=bool)
    index = np.arange(params.shape[1])
    cur = params.copy()
    for iteration in range(max_iter):
        eta = _eta(design, cur)
        prob = expit(eta, out=eta)
        if iteration < refresh:
            inverse = np.linalg.inv(_hessian(design, n * prob * (1.0 - prob), l2))
        resid = np.multiply(prob, n, out=prob)  # in place: these arrays are large
        resid -= s
        grad = _gradient(design, resid, cur, l2)
        step = np.einsum("rij,jr->ir", inverse, grad)
        cur -= step
        size = np.abs(step).max(axis=0)
        done, failed = size < tol, ~(size < 1.0)
        out[:, index[done]] = cur[:, done]
        converged[index[done]] = True
        keep = ~(done | failed) & ~converged[index]
        if not keep.any():
            break
        if keep.mean() < _COMPACT:  # drop finished rounds (copies cost about half a step)
            index, cur, n, s, inverse = index[keep], cur[:, keep], n[:, keep], s[:, keep], \
                inverse[keep]
    return out, converged


def _with_intervals(design: _Design, samples: np.ndarray, present: np.ndarray, point: BTFit,
                    seed: int) -> BTFit:
    """Add bootstrap samples and percentile intervals to a full-data fit."""
    m = design.n_models
    elo = _to_elo(samples[:m], present, design.models, point.anchor_model,
                  point.anchor_rating, point.scale, point.base)
    beta = samples[m:].T
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lo, hi = covering(point.ratings, *np.nanpercentile(elo, [2.5, 97.5], axis=0))
        b_lo, b_hi = covering(point.beta, *np.percentile(beta, [2.5, 97.5], axis=0))
    return replace(point, ci_low=lo, ci_high=hi, beta_ci_low=b_lo, beta_ci_high=b_hi,
                   rating_samples=elo, beta_samples=beta, n_resamples=elo.shape[0], seed=seed)
