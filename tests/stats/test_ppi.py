"""stats/ppi.py (PPI++ for Bradley–Terry / logistic parameters and means) and stats/power.py: against
ppi_py when installed, against the paper's closed forms written out here, and on small simulations."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from judgebench.stats.power import JudgeModel, bt_power, grid, judge_gap_power, needed
from judgebench.stats.ppi import (
    bt_design,
    classical_logistic,
    effective_labels,
    elo_contrasts,
    ppi_logistic,
    ppi_logistic_stratified,
    ppi_mean,
    rank_sets,
    separates,
    stratum,
)
from judgebench.stats.ratings import elo_scale, fit_bt

STRENGTH = np.array([0.0, 0.4, 0.8, -0.4])


def _data(seed: int, k: int, judge: str = "noisy", m: int = 4):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, m, k)
    b = (a + rng.integers(1, m, k)) % m
    e = rng.normal(0, 2.0, k)  # pair-level quality shared by human and judge
    y = (rng.random(k) < expit(STRENGTH[a] - STRENGTH[b] + e)).astype(float)
    if judge == "perfect":
        f = y.copy()
    elif judge == "useless":
        f = (rng.random(k) < 0.5).astype(float)
    elif judge == "biased":  # tracks quality but prefers model 3 by a wide margin
        f = (rng.random(k) < expit(STRENGTH[a] - STRENGTH[b] + e + 1.5 * ((a == 3) * 1.0 - (b == 3)))).astype(float)
    else:
        f = expit(2 * (STRENGTH[a] - STRENGTH[b] + e) + rng.normal(0, 1, k))  # soft verdicts in (0, 1)
    return bt_design(a, b, m), y, f, a, b


def _fixed(judge: str = "noisy", n: int = 300, big: int = 3000, seed: int = 1):
    x, y, f, _, _ = _data(seed, n, judge)
    xu, _, fu, _, _ = _data(seed + 100, big, judge)
    return x, y, f, xu, fu


# ---------------------------------------------------------------- against ppi_py (optional oracle)


@pytest.mark.slow  # ppi_py's numba compilation: ~20 s
def test_logistic_and_mean_intervals_equal_ppi_py():
    ppi_py = pytest.importorskip("ppi_py")
    x, y, f, xu, fu = _fixed()
    for lam in (None, 0.0, 0.5, 1.0):  # ppi_py's H pools labelled and unlabelled units (ours: labelled only)
        est = ppi_logistic(x, y, f, xu, fu, lam=lam, hessian="pooled")
        lo, hi = ppi_py.ppi_logistic_ci(x, y, f, xu, fu, alpha=0.05, lam=lam)
        got_lo, got_hi = est.interval()
        assert np.allclose(got_lo, lo, atol=1e-6) and np.allclose(got_hi, hi, atol=1e-6), lam
    mean = ppi_mean(y, f, fu)
    lo, hi = ppi_py.ppi_mean_ci(y, f, fu, alpha=0.05)
    assert np.allclose(mean.interval(), (lo[0], hi[0]), atol=1e-10)


# ---------------------------------------------------------------- the paper's formulas, written out


def _closed_form(x, y, f, xu, fu, lam):
    """PPI++ (Angelopoulos, Duchi & Zrnic 2023, eq. for GLMs) for a fixed lam, directly: the covariance
    H^-1 (lam^2 Cov(g~)/N + Cov(g - lam ghat)/n) H^-1 at the given estimate, H the mean Hessian over the labelled
    units (ppi_py pools the unlabelled ones in: test_logistic_and_mean_intervals_equal_ppi_py)."""
    n, big = len(y), len(fu)
    theta = ppi_logistic(x, y, f, xu, fu, lam=lam).params
    p, pu = expit(x @ theta), expit(xu @ theta)
    # the rectified gradient equation holds at the estimate
    grad = x.T @ (p - y) / n + lam * (xu.T @ (pu - fu) / big - x.T @ (p - f) / n)
    g, gh, gu = x * (p - y)[:, None], x * (p - f)[:, None], xu * (pu - fu)[:, None]
    h = sum(pi * (1 - pi) * np.outer(r, r) for pi, r in zip(p, x)) / n
    hinv = np.linalg.inv(h)
    cov = hinv @ (lam ** 2 * np.cov(gu.T) / big + np.cov((g - lam * gh).T) / n) @ hinv
    # the variance-minimising lam at this estimate (trace criterion)
    cross = np.cov(g.T, gh.T)[: g.shape[1], g.shape[1]:]
    lam_star = np.trace(hinv @ cross @ hinv) / ((1 + n / big) * np.trace(hinv @ np.cov(np.vstack([gh, gu]).T) @ hinv))
    return theta, grad, cov, lam_star


def test_estimator_matches_the_closed_forms():
    x, y, f, xu, fu = _fixed()
    theta, grad, cov, _ = _closed_form(x, y, f, xu, fu, 0.7)
    assert np.max(np.abs(grad)) < 1e-9
    assert np.allclose(ppi_logistic(x, y, f, xu, fu, lam=0.7).cov, cov, rtol=1e-8)
    tuned = ppi_logistic(x, y, f, xu, fu)
    _, _, _, lam_star = _closed_form(x, y, f, xu, fu, float(tuned.lam[0]))
    # tuned lam is the minimiser at (nearly) its own estimate: ppi_py's two refinement steps
    assert 0 < tuned.lam[0] < 1 and abs(tuned.lam[0] - lam_star) < 0.02
    # and it is no worse than plain PPI (lam=1) or the classical estimate in total variance
    total = lambda e: np.trace(e.cov)  # noqa: E731
    assert total(tuned) <= total(ppi_logistic(x, y, f, xu, fu, lam=1.0)) * 1.001
    assert total(tuned) <= total(classical_logistic(x, y)) * 1.001


def test_the_interval_does_not_jump_as_lam_leaves_zero():
    """A judge weighted 1e-6 adds nothing, so the covariance is the votes' alone to about 1e-6. With ppi_py's H,
    pooled over voted and unvoted units once lam > 0, it jumped by up to 16% here (an outside audit: the pooled H
    made intervals 2-6% narrower with no help from the judge, covering 0.927-0.943 at 30-100 voted pairs)."""
    x, y, f, xu, fu = _fixed()
    human = classical_logistic(x, y)
    assert np.max(np.abs(ppi_logistic(x, y, f, xu, fu, lam=1e-6).cov / human.cov - 1)) < 1e-5
    assert np.max(np.abs(ppi_logistic(x, y, f, xu, fu, lam=1e-6, hessian="pooled").cov / human.cov - 1)) > 0.1


def test_a_tuned_lam_that_would_widen_the_intervals_gives_way_to_the_votes_alone():
    """Seed 30, 30 voted pairs, a coin-flip judge: the lam tuned at the lam = 1 fit (0.22) gives a summed rating
    variance 2.76x the votes' alone; the estimate is then the votes' (lam 0). Over 200 seeds the tuned estimate is
    never wider than the votes' alone."""
    from judgebench.stats.ppi import _estimate, _tuned

    c = elo_contrasts(4)
    x, y, f, _, _ = _data(30, 30, "useless")
    xu, _, fu, _, _ = _data(1030, 2000, "useless")
    parts, w = [stratum(x, y, f, xu, fu)], np.ones(1)
    lams, theta = _tuned(parts, w, c, 1e-9, "labelled")
    widened = _estimate(parts, w, lams, theta, "labelled")
    human = classical_logistic(x, y)
    assert lams[0] == pytest.approx(0.222, abs=0.001)
    assert np.trace(c @ widened.cov @ c.T) / np.trace(c @ human.cov @ c.T) == pytest.approx(2.757, abs=0.001)
    chosen = ppi_logistic(x, y, f, xu, fu, contrasts=c)
    assert chosen.lam[0] == 0 and np.allclose(chosen.params, human.params) and np.allclose(chosen.cov, human.cov)
    for seed in range(200):
        x, y, f, a, b = _data(seed, 30, "useless")
        if separates(a, b, y, 4):
            continue
        xu, _, fu, _, _ = _data(seed + 1000, 2000, "useless")
        tuned, human = ppi_logistic(x, y, f, xu, fu, contrasts=c), classical_logistic(x, y)
        assert np.trace(c @ tuned.cov @ c.T) <= np.trace(c @ human.cov @ c.T) * (1 + 1e-9), seed


def test_ppi_mean_closed_form():
    rng = np.random.default_rng(3)
    y = rng.random(200) < 0.7
    f = np.where(rng.random(200) < 0.8, y, ~y).astype(float)
    fu = (rng.random(5000) < 0.68).astype(float)
    y = y.astype(float)
    for lam in (0.0, 0.4, 1.0):
        est = ppi_mean(y, f, fu, lam=lam)
        assert est.value == pytest.approx(lam * fu.mean() + np.mean(y - lam * f))
        assert est.se ** 2 == pytest.approx(lam ** 2 * fu.var() / 5000 + np.var(y - lam * f) / 200)
    assert ppi_mean(y, f, fu, lam=0.0).value == pytest.approx(y.mean())
    tuned = ppi_mean(y, f, fu)
    assert tuned.se < ppi_mean(y, f, fu, lam=0.0).se and 0 < tuned.lam <= 1


# ---------------------------------------------------------------- properties


def test_lambda_zero_is_the_human_only_bradley_terry_fit():
    x, y, f, xu, fu = _fixed()
    zero, human = ppi_logistic(x, y, f, xu, fu, lam=0.0), classical_logistic(x, y)
    assert np.allclose(zero.params, human.params) and np.allclose(zero.cov, human.cov)
    # the same ratings as the arena's Bradley–Terry fit (stats/ratings.py) on the labelled battles
    _, _, _, a, b = _data(1, 300)
    bt = fit_bt((a, b, y), l2=0.0)
    c = elo_contrasts(4)
    ours = 1000 + elo_scale() * (c @ human.params)
    theirs = np.array([bt.rating(str(i)) for i in range(4)])
    assert np.allclose(ours, theirs, atol=1e-4)


def test_a_perfect_judge_shrinks_the_interval_and_a_useless_one_costs_nothing():
    x, y, f, xu, fu = _fixed("perfect", n=300, big=3000)
    c = elo_contrasts(4)
    human = classical_logistic(x, y)
    best = ppi_logistic(x, y, f, xu, fu, contrasts=c)
    ratio = np.sqrt(np.trace(c @ best.cov @ c.T) / np.trace(c @ human.cov @ c.T))
    assert best.lam[0] > 0.85 and ratio == pytest.approx(np.sqrt(300 / 3300), rel=0.2)
    assert effective_labels(300, np.trace(c @ human.cov @ c.T), np.trace(c @ best.cov @ c.T)) > 2000
    x, y, f, xu, fu = _fixed("useless", n=300, big=3000)
    useless = ppi_logistic(x, y, f, xu, fu, contrasts=c)
    human = classical_logistic(x, y)
    assert useless.lam[0] < 0.15
    assert np.trace(c @ useless.cov @ c.T) <= 1.03 * np.trace(c @ human.cov @ c.T)


def test_one_stratum_is_the_unstratified_estimator_and_strata_get_their_own_lambda():
    x, y, f, xu, fu = _fixed()
    one = ppi_logistic_stratified([stratum(x, y, f, xu, fu)])
    plain = ppi_logistic(x, y, f, xu, fu)
    assert np.allclose(one.params, plain.params) and np.allclose(one.cov, plain.cov)
    good = stratum(*_fixed("perfect", seed=5))
    bad = stratum(*_fixed("useless", seed=6))
    est = ppi_logistic_stratified([good, bad])
    assert est.lam[0] > 0.8 and est.lam[1] < 0.2
    assert np.allclose(est.weights, [0.5, 0.5])
    # fixed per-stratum lam of 0 is the stratum-weighted classical estimate
    zero = ppi_logistic_stratified([good, bad], lam=0.0)
    assert np.all(zero.lam == 0)


def test_rank_sets_from_intervals():
    best, worst = rank_sets(np.array([10.0, 5.0, 0.0]), np.array([12.0, 11.0, 1.0]))
    assert best.tolist() == [1, 1, 3] and worst.tolist() == [2, 2, 3]


def test_coverage_on_a_small_simulation():
    """100 replications, a judge biased towards one model: judge-assisted covers near 95%, judge-only does not."""
    c = elo_contrasts(4)
    # the estimand: the BT projection of the human win probabilities (large labelled sample, lam = 0)
    x, y, _, _, _ = _data(999, 200_000)
    truth = c @ classical_logistic(x, y).params
    hits = {"assisted": 0, "judge": 0, "human": 0}
    reps = 100
    for r in range(reps):
        x, y, f, xu, fu = _fixed("biased", n=200, big=2000, seed=10 + r)
        for name, est in (("assisted", ppi_logistic(x, y, f, xu, fu, contrasts=c)), ("human", classical_logistic(x, y)),
                          ("judge", classical_logistic(np.vstack([x, xu]), np.concatenate([f, fu])))):
            lo, hi = est.interval(c)
            hits[name] += np.mean((lo <= truth) & (truth <= hi))
    # the truth itself is estimated (200k battles: Elo sd ~ 1.5, widths ~ 150): loose bounds
    assert hits["assisted"] / reps > 0.88 and hits["human"] / reps > 0.88
    assert hits["judge"] / reps < 0.7


# ---------------------------------------------------------------- power


def test_power_grows_with_votes_and_with_a_perfect_judge():
    theta = np.array([0.0, 0.3, 0.6])
    pairs = np.triu_indices(3, 1)
    targets = [(2, 1), (1, 0)]
    n_grid = [60, 600]
    human = bt_power(theta, pairs, n_grid, targets, reps=40, seed=1)
    assert human["each"][1].mean() > human["each"][0].mean()
    assert np.all(human["all"] <= human["each"].min(axis=1) + 1e-12)
    judge = JudgeModel(np.array([1.0]), np.array([0.0]), 3000)  # verdict = vote
    helped = bt_power(theta, pairs, n_grid, targets, judge=judge, reps=40, seed=1)
    assert helped["all"][0] > human["all"][0] + 0.2
    assert needed(n_grid, helped["all"], 0.8) is not None and needed([1, 2], np.array([0.1, 0.2]), 0.8) is None


def test_votes_needed_is_where_the_power_stays_above_the_target():
    """A noisy curve 0.87, 0.71, 0.93, 0.98 (an outside audit's `--votes-needed` on the demo) reached 0.8 at its
    first point and dipped below it: 50 votes had been reported as enough; the first point from which the power
    stays at or above 0.8 is 189."""
    grid = [50, 97, 189, 368]
    assert needed(grid, np.array([0.87, 0.71, 0.93, 0.98]), 0.8) == 189
    assert needed(grid, np.array([0.8, 0.85, 0.9, 0.95]), 0.8) == 50  # reached exactly at the first point
    assert needed(grid, np.array([0.9, 0.9, 0.9, 0.7]), 0.8) is None  # below at the last point: not within the grid


def test_a_tuned_fit_without_a_finite_minimiser_falls_back_to_a_smaller_lam():
    """One strength t, 22 voted pairs (20 won by A, 2 by B), the judge B on 10 of them, and one unvoted pair the
    judge gives to A. The rectified loss's log1pexp terms weigh (1 - lam) + lam = 1 in all, and its linear term is
    b = mean(y - lam yhat) + lam yhat_u = 20/22 - lam 12/22 + lam: at lam = 0.5, b = 1.136 > 1, so the loss falls
    without end as t grows (only the L2 stops it), while the votes alone (b = 20/22) have their minimiser at
    log(20/2). The tuned fit had run off the same way (a strength of about 1e6); it now shrinks lam until the
    fit is finite."""
    from judgebench.stats.ppi import UNBOUNDED

    x = np.ones((22, 1))
    y = np.array([1.0] * 20 + [0.0] * 2)
    yhat = np.array([0.0] * 10 + [1.0] * 12)
    xu, yhatu = np.ones((1, 1)), np.array([1.0])
    votes_alone = ppi_logistic(x, y, yhat, xu, yhatu, lam=0.0)
    assert abs(votes_alone.params[0] - np.log(20 / 2)) < 1e-6  # log-odds of 20:2
    unbounded = ppi_logistic(x, y, yhat, xu, yhatu, lam=0.5)
    assert abs(unbounded.params[0]) > UNBOUNDED  # at a fixed lam the fit is what it is
    tuned = ppi_logistic(x, y, yhat, xu, yhatu)
    assert np.all(np.abs(tuned.params) < UNBOUNDED) and np.isfinite(tuned.se()).all()
    assert 0 <= tuned.lam[0] < 0.5


def test_units_that_leave_a_model_unbeaten_are_separating():
    """Two models: A wins all 20 pairs -> no finite estimate (the fit runs off until the L2 term stops it, and the
    sandwich standard error, every residual near 0, is tiny); 20 wins and 2 losses -> finite. Three models where
    model 0 won every battle but the others split theirs: separating (one group against the rest); one upset of
    model 0: finite. A model with a single tied battle among 10,000 pairs is no separation (an L2 probe used
    before had called it one: its estimate moves with the L2 term, having little information)."""
    alone = classical_logistic(np.ones((20, 1)), np.ones(20))
    assert alone.params[0] > 10 and alone.se()[0] < 1  # what separation does to the fit
    assert separates(np.zeros(20, int), np.ones(20, int), np.ones(20), 2)
    assert not separates(np.zeros(22, int), np.ones(22, int), np.array([1.0] * 20 + [0.0] * 2), 2)
    a, b = np.array([0, 0, 1, 1, 0, 1]), np.array([1, 2, 2, 2, 1, 2])  # 0 beat 1 and 2 always; 1 vs 2 split
    assert separates(a, b, np.array([1.0, 1.0, 1.0, 0.0, 1.0, 1.0]), 3)
    assert not separates(a, b, np.array([0.0, 1.0, 1.0, 0.0, 1.0, 1.0]), 3)
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 10, 10_000), rng.integers(0, 10, 10_000)
    keep = a != b
    a, b = np.append(a[keep], 0), np.append(b[keep], 10)  # model 10: one battle, a tie
    y = np.append((rng.random(keep.sum()) < 0.5).astype(float), 0.5)
    assert not separates(a, b, y, 11)


def test_power_does_not_depend_on_where_the_rating_scale_is_centred():
    """`arena --votes-needed` passes strengths from ratings centred on 1000: the target naming the reference model
    (the best, first) read as reversed, its power 0 at every n ("> 20000 votes" for two models 545 Elo apart)."""
    theta = np.array([0.0, -3.14, -6.0])  # the demo's top three, 545 and 497 Elo apart
    pairs = np.triu_indices(3, 1)
    targets = [(0, 1), (1, 2)]
    at_zero = bt_power(theta, pairs, [200], targets, reps=30, seed=3)
    shifted = bt_power(theta + 13.3, pairs, [200], targets, reps=30, seed=3)
    assert np.array_equal(at_zero["each"], shifted["each"]) and np.array_equal(at_zero["all"], shifted["all"])
    assert shifted["each"][0, 0] > 0.9  # 200 battles separate a 96% favourite


def test_judge_gap_power_matches_the_normal_approximation():
    from scipy.stats import norm

    acc, gap, rho, n = 0.7, 0.05, 0.5, 1000
    got = judge_gap_power(acc, gap, [n], correlation=rho, reps=4000, seed=2)[0]
    p1, p2 = acc, acc + gap
    p11 = p1 * p2 + rho * np.sqrt(p1 * (1 - p1) * p2 * (1 - p2))
    var = (p1 - p11 + p2 - p11) - gap ** 2
    expected = 1 - norm.cdf(1.96 - gap / np.sqrt(var / n))
    assert got == pytest.approx(expected, abs=0.04)
    assert grid(50, 5000, 5) == [50, 158, 500, 1581, 5000]


def test_ppi_accuracy_of_a_judge_with_a_proxy_label():
    from judgebench.stats.ppi import ppi_accuracy

    rng = np.random.default_rng(7)
    big = 20000
    human = rng.choice(["A", "B"], big)
    proxy = np.where(rng.random(big) < 0.9, human, np.where(human == "A", "B", "A"))  # a strong reference judge
    judge = np.where(rng.random(big) < 0.75, human, np.where(human == "A", "B", "A"))  # true accuracy 0.75
    n = 300
    est = ppi_accuracy(judge[:n], human[:n], proxy[:n], judge[n:], proxy[n:])
    alone = ppi_accuracy(judge[:n], human[:n], proxy[:n], judge[n:], proxy[n:], lam=0.0)
    assert alone.value == pytest.approx(np.mean(judge[:n] == human[:n]))
    assert est.se < 0.8 * alone.se and est.lam > 0.5
    lo, hi = est.interval()
    assert lo < 0.75 < hi


def test_effective_labels_is_none_when_a_variance_is_not_positive():
    """n * V_cls / V_ppi by hand, and no count (not NaN, which arena.json then held) when either variance is 0."""
    assert effective_labels(10, 2.0, 0.5) == 40.0
    assert effective_labels(10, 0.0, 0.5) is None and effective_labels(10, 2.0, 0.0) is None
    assert effective_labels(10, float("nan"), 1.0) is None
