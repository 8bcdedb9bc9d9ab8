"""Diagnostics of large runs: the style coefficients' intervals from an m-out-of-n subsample."""

from __future__ import annotations

import math

import numpy as np
import pytest

from judgebench.scoring import diagnostics
from judgebench.stats.ratings import fit_bt, paired_bootstrap_bt
from judgebench.stats.resampling import percentile_interval, subsample


def _battles(n: int, seed: int = 1):
    """n battles of 8 models; the outcome depends on strength and on a style feature (beta 0.8)."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 0.5, 8)
    a, b = rng.integers(0, 8, n), rng.integers(0, 8, n)
    b = np.where(a == b, (b + 1) % 8, b)
    x = rng.normal(0, 1, n)
    p = 1 / (1 + np.exp(-(strength[a] - strength[b] + 0.8 * x)))
    human = (rng.random(n) < p).astype(float)
    judge = (rng.random(n) < 1 / (1 + np.exp(-(strength[a] - strength[b] + 1.2 * x)))).astype(float)
    names = np.array([f"m{i}" for i in range(8)], dtype=object)
    return names[a], names[b], {"human": human, "judge": judge}, {"length": x}


def test_small_runs_use_the_plain_bootstrap():
    a, b, ys, xs = _battles(300)
    assert 300 <= diagnostics.STYLE_BOOTSTRAP_MAX
    got = diagnostics._style_fits(a, b, ys, xs, n_resamples=50, seed=0)
    want = paired_bootstrap_bt(a, b, ys, xs, n_resamples=50, seed=0)
    for who in ys:
        assert np.array_equal(got[who].beta_samples, want[who].beta_samples)


@pytest.mark.slow
def test_large_runs_keep_the_full_point_and_rescale_the_subsample(monkeypatch):
    n, m = 4000, 1000
    monkeypatch.setattr(diagnostics, "STYLE_BOOTSTRAP_MAX", m)
    a, b, ys, xs = _battles(n)
    got = diagnostics._style_fits(a, b, ys, xs, n_resamples=200, seed=0)
    rows = subsample(n, m, 0)
    assert len(rows) == m == len(set(rows.tolist()))
    part = paired_bootstrap_bt(a[rows], b[rows], {k: y[rows] for k, y in ys.items()},
                               {"length": xs["length"][rows]}, n_resamples=200, seed=0)
    full_plain = paired_bootstrap_bt(a, b, ys, xs, n_resamples=200, seed=0)
    for who, y in ys.items():
        full = fit_bt((a, b, y), xs)
        assert got[who].beta[0] == full.beta[0]  # the point uses every example
        # theta_n + sqrt(m/n) (theta*_m - theta_m), m/n = 1/4: the subsample's spread halved
        expected = full.beta[0] + math.sqrt(m / n) * (part[who].beta_samples[:, 0] - part[who].beta[0])
        assert np.allclose(got[who].beta_samples[:, 0], expected)
        # and it estimates the width of the plain bootstrap over all n examples
        lo, hi = percentile_interval(got[who].beta_samples[:, 0])
        plo, phi = percentile_interval(full_plain[who].beta_samples[:, 0])
        assert 0.7 < (hi - lo) / (phi - plo) < 1.4, (who, hi - lo, phi - plo)


def test_the_subsample_rounds_split_between_child_and_parent_equal_one_process(monkeypatch):
    """The child solves the first chunk of rounds, this process the others: the same bits as one bootstrap."""
    from judgebench.stats import ratings

    n, m = 3000, 1000
    monkeypatch.setattr(diagnostics, "STYLE_BOOTSTRAP_MAX", m)
    monkeypatch.setattr(ratings, "_CHUNK_CELLS", 100_000)  # chunks of 100 rounds: 3 of them here
    a, b, ys, xs = _battles(n, seed=4)
    rows = subsample(n, m, 0)
    args = (a[rows], b[rows], {k: y[rows] for k, y in ys.items()}, {"length": xs["length"][rows]})
    plan = ratings.PairedBootstrap.prepare(*args, n_resamples=250, seed=0)
    assert plan.n_chunks == 3
    part = paired_bootstrap_bt(*args, n_resamples=250, seed=0)
    got = diagnostics._style_fits(a, b, ys, xs, n_resamples=250, seed=0)
    for who, y in ys.items():
        full = fit_bt((a, b, y), xs)
        want = full.beta + math.sqrt(m / n) * (part[who].beta_samples - part[who].beta)
        assert np.array_equal(got[who].beta_samples, want), who
    with np.testing.assert_raises_regex(ratings.NumericError, r"chunks \[0, 2\] solved of 3"):
        plan.fits_of({**plan.solve([0]), **plan.solve([2])})
