"""Agreement coefficients, each defined here once: Cohen's kappa of two label sequences (`cohen_kappa`: a run's
judge against the labels, a panel's members, two annotators on the voting page) and Krippendorff's ordinal alpha
(the krippendorff package: `krippendorff_ordinal` for two coders, `alpha` from per-pair value counts); and, for
the human ceiling's bootstrap (ceiling.py), the same kappa (nominal or linearly weighted) from 3x3 confusion counts
and alpha from coincidence matrices, vectorised so resamples cost one array pass (tested equal)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from itertools import combinations
from typing import Any

import krippendorff
import numpy as np

LINEAR = np.abs(np.subtract.outer(np.arange(3), np.arange(3))) / 2.0  # disagreement: A-TIE 0.5, A-B 1
NOMINAL = 1.0 - np.eye(3)


def cohen_kappa(a: Sequence[Any] | np.ndarray, b: Sequence[Any] | np.ndarray) -> float | None:
    """Unweighted Cohen's kappa between two label sequences of any labels; None when undefined (none, or one
    category only on both sides)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.size == 0:
        return None
    cats, inv = np.unique(np.concatenate([a, b]), return_inverse=True)
    ia, ib = inv[: a.size], inv[a.size :]
    k = len(cats)
    cm = np.bincount(ia * k + ib, minlength=k * k).reshape(k, k) / a.size
    po = np.trace(cm)
    pe = float(cm.sum(axis=1) @ cm.sum(axis=0))
    return None if pe >= 1.0 else float((po - pe) / (1.0 - pe))


def krippendorff_ordinal(a: np.ndarray, b: np.ndarray) -> float | None:
    """Krippendorff's alpha, ordinal A < TIE < B (codes 0..2), of two coders; None if undefined."""
    if a.size == 0:
        return None
    counts = np.zeros((a.size, 3))
    np.add.at(counts, (np.arange(a.size), a), 1)
    np.add.at(counts, (np.arange(a.size), b), 1)
    value = alpha(counts)
    return value if np.isfinite(value) else None


def kappa_from_confusion(confusion: np.ndarray, weights: np.ndarray = NOMINAL) -> np.ndarray:
    """Cohen's kappa from 3x3 confusion counts (any leading axes) with disagreement weights; NaN if undefined.

    kappa = 1 - sum(w * observed) / sum(w * expected); with NOMINAL weights this is (po - pe) / (1 - pe).
    """
    confusion = np.asarray(confusion, dtype=float)
    total = confusion.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (confusion * weights).sum(axis=(-2, -1)) / total
        expected = np.einsum("...i,...j,ij->...", confusion.sum(axis=-1), confusion.sum(axis=-2), weights) / total**2
        return np.where(expected > 0, 1.0 - observed / expected, np.nan)


def kappa_weights(confusions: np.ndarray, weights: np.ndarray, min_shared: int = 2) -> np.ndarray:
    """Each annotator pair's weight in the mean kappa: its shared pairs when at least `min_shared` and
    its kappa is defined, else 0. Fixed from the data, so a resample reweighs the same annotator pairs."""
    shared = confusions.sum(axis=(-2, -1))
    return np.where((shared >= min_shared) & np.isfinite(kappa_from_confusion(confusions, weights)), shared, 0.0)


def mean_kappa(confusions: np.ndarray, weights: np.ndarray, pair_weights: np.ndarray) -> np.ndarray:
    """Kappa per annotator pair (last two axes 3x3) averaged with `pair_weights` (kappa_weights); an
    annotator pair whose kappa is undefined in a resample drops out of that resample; NaN if none."""
    kappas = kappa_from_confusion(confusions, weights)
    use = (pair_weights > 0) & np.isfinite(kappas)
    weight = np.where(use, pair_weights, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sum(np.where(use, kappas, 0.0) * weight, axis=-1) / weight.sum(axis=-1)


def alpha(counts: np.ndarray) -> float:
    """Krippendorff's alpha (the krippendorff package), ordinal A < TIE < B, from per-pair value counts."""
    if (counts.sum(axis=1) >= 2).sum() < 1:
        return float("nan")
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return float(krippendorff.alpha(value_counts=counts, value_domain=[0, 1, 2], level_of_measurement="ordinal"))
        except (ValueError, ZeroDivisionError):
            return float("nan")


def coincidences(counts: np.ndarray) -> np.ndarray:
    """(n_pairs, 9) each pair's contribution to Krippendorff's coincidence matrix (pairs with 2+ votes)."""
    m = counts.sum(axis=1)
    outer = np.einsum("ni,nj->nij", counts, counts) - np.einsum("ni,ij->nij", counts, np.eye(3))
    with np.errstate(invalid="ignore", divide="ignore"):
        per_pair = np.where((m >= 2)[:, None, None], outer / (m - 1)[:, None, None], 0.0)
    return per_pair.reshape(len(counts), 9)


def alpha_from_coincidences(o: np.ndarray) -> np.ndarray:
    """Ordinal alpha from coincidence matrices (..., 9), vectorised for bootstrap resamples: the same
    figure as the package (tested); delta^2(c, k) = (sum of n_g for g from c to k - (n_c + n_k) / 2)^2."""
    o = o.reshape(*o.shape[:-1], 3, 3)
    n_c = o.sum(axis=-1)
    n = n_c.sum(axis=-1)
    cum = np.cumsum(n_c, axis=-1)
    delta = np.zeros(o.shape)
    for c, k in combinations(range(3), 2):
        between = cum[..., k] - (cum[..., c - 1] if c else 0.0)
        delta[..., c, k] = delta[..., k, c] = (between - (n_c[..., c] + n_c[..., k]) / 2) ** 2
    observed = (o * delta).sum(axis=(-2, -1))
    expected = (np.einsum("...i,...j->...ij", n_c, n_c) * delta).sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(expected > 0, 1.0 - (n - 1) * observed / expected, np.nan)
