"""Bradley–Terry ratings: hand-computed cases, independent implementations, bootstrap."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from judgebench.core.errors import NumericError
from judgebench.stats.ratings import (
    _build_design,
    _resample_chunks,
    bootstrap_bt,
    fit_bt,
    fit_bt_coded,
    fit_bt_coded_weights,
    paired_bootstrap_bt,
)

ELO = 400 / math.log(10)  # Elo points per unit of log-odds


def simulate(n_models: int, n_battles: int, seed: int, tie_rate: float = 0.1,
             beta: float = 0.0) -> dict[str, np.ndarray]:
    """Battles between random distinct pairs drawn from a BT model (plus a style term)."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 1, n_models)
    a = rng.integers(0, n_models, n_battles)
    b = (a + rng.integers(1, n_models, n_battles)) % n_models
    x = rng.normal(0, 0.5, n_battles)
    p = 1 / (1 + np.exp(-(strength[a] - strength[b] + beta * x)))
    y = (rng.random(n_battles) < p).astype(float)
    y[rng.random(n_battles) < tie_rate] = 0.5
    names = np.array([f"m{i:02d}" for i in range(n_models)])
    return {"a": names[a], "b": names[b], "y": y, "x": x, "ia": a, "ib": b}


def centred_elo(theta: np.ndarray) -> np.ndarray:
    return 1000 + ELO * (theta - theta.mean())


# ---------------------------------------------------------------- hand-computed


def test_two_models_three_to_one_is_log3_apart():
    # MLE: sigma(d) = 3/4  =>  d = ln 3 log-odds = 400*log10(3) = 190.8485 Elo.
    fit = fit_bt((["x", "x", "x", "y"], ["y", "y", "y", "x"], [1, 1, 1, 1]), l2=0)
    assert fit.rating("x") - fit.rating("y") == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert fit.ratings.mean() == pytest.approx(1000.0)  # no anchor model: mean 1000


def test_default_l2_shrinks_by_l2_over_curvature():
    # Gap d with strengths +-d/2: the L2 term is l2*d^2/4 (slope l2*d/2) and the
    # likelihood's curvature at d = ln 3 is 4 * (3/4)(1/4) = 0.75, so the gap shrinks by
    # (l2 * ln3 / 2) / 0.75 log-odds = 1.27e-4 Elo at l2 = 1e-6.
    fit = fit_bt((["x", "x", "x", "y"], ["y", "y", "y", "x"], [1, 1, 1, 1]))
    shrink = 400 * math.log10(3) - (fit.rating("x") - fit.rating("y"))
    assert shrink == pytest.approx(ELO * 1e-6 * math.log(3) / 1.5, rel=0.01)


def test_ties_count_half_a_win():
    # 2 wins + 2 ties = 3 of 4 points, the same MLE as 3 wins and 1 loss.
    fit = fit_bt(pd.DataFrame({"model_a": ["x"] * 4, "model_b": ["y"] * 4,
                               "outcome": [1, 1, 0.5, 0.5]}), l2=0)
    assert fit.rating("x") - fit.rating("y") == pytest.approx(400 * math.log10(3), abs=1e-6)


def test_orientation_does_not_matter():
    # "y beats x" written with y in position B is the same battle.
    one = fit_bt((["x", "y", "x"], ["y", "x", "y"], [1, 1, 0.5]))
    two = fit_bt((["y", "y", "x"], ["x", "x", "y"], [0, 1, 0.5]))
    np.testing.assert_allclose(one.ratings, two.ratings, atol=1e-6)


def test_anchor_model_and_scale():
    # Anchor y at 1500; on a natural-log scale (scale 1, base e) ratings are log-odds.
    fit = fit_bt((["x"] * 4, ["y"] * 4, [1, 1, 1, 0]), anchor_model="y", anchor_rating=1500,
                 l2=0)
    assert fit.rating("y") == 1500.0
    assert fit.rating("x") == pytest.approx(1500 + 400 * math.log10(3), abs=1e-6)
    raw = fit_bt((["x"] * 4, ["y"] * 4, [1, 1, 1, 0]), scale=1.0, base=math.e, anchor_rating=0,
                 l2=0)
    assert raw.rating("x") - raw.rating("y") == pytest.approx(math.log(3), abs=1e-9)


def test_three_models_closed_form():
    # x beats y 2-1 and y beats z 2-1, x-z never met: a chain, d(x,y) = d(y,z) = ln 2.
    a = ["x", "x", "y", "y", "y", "z"]
    b = ["y", "y", "x", "z", "z", "y"]
    fit = fit_bt((a, b, [1, 1, 1, 1, 1, 1]), l2=0)
    assert fit.rating("x") - fit.rating("y") == pytest.approx(ELO * math.log(2), abs=1e-6)
    assert fit.rating("y") - fit.rating("z") == pytest.approx(ELO * math.log(2), abs=1e-6)


def test_weights_are_frequency_weights():
    heavy = fit_bt((["x", "y"], ["y", "x"], [1, 1]), weights=[3, 1], l2=0)
    assert heavy.rating("x") - heavy.rating("y") == pytest.approx(400 * math.log10(3), abs=1e-6)


# ---------------------------------------------------------------- independent implementations


def test_matches_choix_with_ties_split():
    choix = pytest.importorskip("choix")
    sim = simulate(12, 3000, seed=3)
    fit = fit_bt((sim["a"], sim["b"], sim["y"]))
    # choix takes (winner, loser) pairs: every battle twice, a tie once each way.
    data = []
    for i, j, y in zip(sim["ia"], sim["ib"], sim["y"]):
        data += [(i, j), (i, j)] if y == 1 else [(j, i), (j, i)] if y == 0 else [(i, j), (j, i)]
    theta = choix.ilsr_pairwise(12, data, alpha=0.0, tol=1e-12, max_iter=10_000)
    np.testing.assert_allclose(fit.ratings, centred_elo(theta), atol=0.1)
    assert np.abs(fit.ratings - centred_elo(theta)).max() < 1e-3  # in fact much closer


def test_matches_sklearn_logistic_regression_with_style_feature():
    sk = pytest.importorskip("sklearn.linear_model")
    sim = simulate(10, 4000, seed=4, beta=0.7)
    fit = fit_bt((sim["a"], sim["b"], sim["y"]), {"log_length_ratio": sim["x"]})
    # +-1 design matrix, no intercept, no penalty; ties duplicated half/half.
    n = len(sim["y"])
    design = np.zeros((n, 11))
    design[np.arange(n), sim["ia"]] = 1.0
    design[np.arange(n), sim["ib"]] = -1.0
    design[:, 10] = sim["x"]
    tie = sim["y"] == 0.5
    rows = np.concatenate([np.arange(n), np.flatnonzero(tie)])
    target = np.concatenate([np.where(tie, 1, sim["y"]), np.zeros(tie.sum())])
    weight = np.where(np.concatenate([tie, np.ones(tie.sum(), bool)]), 0.5, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn's penalty=None deprecation notice
        model = sk.LogisticRegression(penalty=None, fit_intercept=False, tol=1e-12,
                                      max_iter=100_000)
        model.fit(design[rows], target, sample_weight=weight)
    theta, beta = model.coef_[0, :10], model.coef_[0, 10]
    np.testing.assert_allclose(fit.ratings, centred_elo(theta), atol=0.1)
    assert fit.beta_of("log_length_ratio") == pytest.approx(beta, abs=1e-4)


@pytest.mark.slow
def test_style_control_recovers_planted_length_coefficient():
    sim = simulate(20, 20_000, seed=5, beta=0.8)
    fit = bootstrap_bt((sim["a"], sim["b"], sim["y"]), {"log_length_ratio": sim["x"]},
                       n_resamples=100, seed=1)
    beta = fit.beta_of("log_length_ratio")
    assert beta == pytest.approx(0.8 * 0.9, abs=0.1)  # ties (10%) shrink the effect by ~10%
    assert fit.beta_ci_low[0] < beta < fit.beta_ci_high[0]
    without = fit_bt((sim["a"], sim["b"], sim["y"]))
    assert without.feature_names == () and len(without.beta) == 0


def test_style_coefficient_without_model_terms_is_plain_logistic_slope():
    # One pseudo-model on both sides: P(A) = sigmoid(beta * x); x = +-1 with 3:1 and 1:3
    # wins gives beta = ln 3.
    x = [1, 1, 1, 1, -1, -1, -1, -1]
    y = [1, 1, 1, 0, 0, 0, 0, 1]
    fit = fit_bt((["all"] * 8, ["all"] * 8, y), {"x": x})
    assert fit.beta_of("x") == pytest.approx(math.log(3), abs=1e-6)


# ---------------------------------------------------------------- bootstrap


def test_bootstrap_rounds_equal_weighted_refits():
    # Round r of the batched solver = fit_bt with that round's resampling counts as weights.
    sim = simulate(6, 400, seed=6)
    design = _build_design(sim["a"], sim["b"], sim["y"][:, None], np.zeros((400, 0)),
                           np.ones(400))
    counts = next(_resample_chunks(design, 5, seed=11, blocks_per_chunk=1))  # units x rounds
    fit = bootstrap_bt((sim["a"], sim["b"], sim["y"]), n_resamples=5, seed=11)
    first_battle_of_unit = np.unique(design.battle_unit, return_index=True)[1]
    for r in range(5):
        weights = np.zeros(400)
        weights[first_battle_of_unit] = counts[:, r]
        refit = fit_bt((sim["a"], sim["b"], sim["y"]), weights=weights)
        np.testing.assert_allclose(fit.rating_samples[r], refit.ratings, atol=1e-6)


@pytest.mark.slow
def test_bootstrap_intervals_match_a_naive_bootstrap():
    sim = simulate(8, 1000, seed=7)
    fast = bootstrap_bt((sim["a"], sim["b"], sim["y"]), n_resamples=400, seed=0)
    rng = np.random.default_rng(99)
    naive = []
    for _ in range(150):
        idx = rng.integers(0, 1000, 1000)
        naive.append(fit_bt((sim["a"][idx], sim["b"][idx], sim["y"][idx])).ratings)
    naive_sd = np.std(naive, axis=0)
    np.testing.assert_allclose(fast.rating_samples.std(axis=0), naive_sd, rtol=0.25)
    assert np.all(fast.ci_low < fast.ratings) and np.all(fast.ratings < fast.ci_high)


def test_bootstrap_is_seeded():
    sim = simulate(5, 300, seed=8)
    one = bootstrap_bt((sim["a"], sim["b"], sim["y"]), n_resamples=50, seed=3)
    two = bootstrap_bt((sim["a"], sim["b"], sim["y"]), n_resamples=50, seed=3)
    three = bootstrap_bt((sim["a"], sim["b"], sim["y"]), n_resamples=50, seed=4)
    np.testing.assert_array_equal(one.rating_samples, two.rating_samples)
    assert not np.array_equal(one.rating_samples, three.rating_samples)
    np.testing.assert_array_equal(one.ratings, fit_bt((sim["a"], sim["b"], sim["y"])).ratings)


def test_anchor_has_zero_width_interval():
    sim = simulate(5, 500, seed=9)
    fit = bootstrap_bt((sim["a"], sim["b"], sim["y"]), anchor_model="m00", anchor_rating=1200,
                       n_resamples=100)
    i = fit.models.index("m00")
    assert fit.ci_low[i] == fit.ci_high[i] == fit.ratings[i] == 1200


def test_paired_bootstrap_shares_resamples():
    sim = simulate(5, 500, seed=10)
    fits = paired_bootstrap_bt(sim["a"], sim["b"], {"h": sim["y"], "j": sim["y"]},
                               n_resamples=50, seed=0)
    np.testing.assert_allclose(fits["h"].rating_samples, fits["j"].rating_samples, atol=1e-9)
    alone = bootstrap_bt((sim["a"], sim["b"], sim["y"]), n_resamples=50, seed=0)
    np.testing.assert_allclose(fits["h"].rating_samples, alone.rating_samples, atol=1e-9)


def test_perfect_separation_stays_finite():
    # x always beats y: the MLE gap is infinite; the L2 term keeps it finite and large.
    fit = bootstrap_bt((["x"] * 20 + ["y"] * 5, ["y"] * 20 + ["z"] * 5, [1] * 20 + [0.5] * 5),
                       n_resamples=50)
    assert np.all(np.isfinite(fit.ratings)) and np.all(np.isfinite(fit.ci_low))
    assert fit.rating("x") - fit.rating("y") > 1000
    assert fit.mean_log_loss is not None


def test_model_missing_from_a_round_is_nan_in_that_round():
    # "rare" plays once among 200 battles: absent from ~37% of resamples.
    a = ["p", "q"] * 100
    b = ["q", "p"] * 100
    y = [1, 0, 1, 1] * 50
    fit = bootstrap_bt((a[:-1] + ["rare"], b[:-1] + ["p"], y), n_resamples=200, seed=0)
    absent = np.isnan(fit.rating_samples[:, fit.models.index("rare")])
    assert 0.2 < absent.mean() < 0.55
    assert not np.isnan(fit.rating_samples[:, fit.models.index("p")]).any()
    assert np.isfinite(fit.ci_low).all()


def test_as_dict_and_frame():
    fit = bootstrap_bt((["x", "x", "y"], ["y", "y", "x"], [1, 1, 1]), n_resamples=20)
    d = fit.as_dict()
    assert set(d["ratings"]) == {"x", "y"} and d["n_resamples"] == 20
    frame = fit.to_frame()
    assert list(frame["model"]) == ["x", "y"] and {"ci_low", "ci_high"} <= set(frame.columns)


@pytest.mark.parametrize(
    "battles, message",
    [
        ((["x"], ["y"], [2.0]), "outcomes must be in"),
        ((["x"], ["y"], [1.0, 0.0]), "2 outcomes for 1 battles"),
        (([], [], []), "none to fit"),
        (([None], ["y"], [1.0]), "model name is missing"),
    ],
)
def test_bad_input_is_a_user_error(battles, message):
    with pytest.raises(NumericError, match=message):
        fit_bt(battles)


def test_unknown_anchor_and_bad_features_are_user_errors():
    with pytest.raises(NumericError, match="anchor model"):
        fit_bt((["x"], ["y"], [1.0]), anchor_model="z")
    with pytest.raises(NumericError, match="features"):
        fit_bt((["x"], ["y"], [1.0]), np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]))
    with pytest.raises(NumericError, match="finite"):
        fit_bt((["x"], ["y"], [1.0]), {"len": [math.inf]})


def test_an_interrupt_while_the_design_lists_the_models_is_not_lost():
    """Iterating a numpy str array swallowed a KeyboardInterrupt raised meanwhile (numpy 2.4): a Ctrl-C or
    SIGTERM during `report` was lost and the command ran on to exit 0."""
    import signal

    n = 3_000_000
    a = np.array([f"m{i % 20}" for i in range(n)], dtype=str)
    b = np.roll(a, 1)

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.1)  # inside the listing of the models (it took over a second)
        with pytest.raises(KeyboardInterrupt):
            _build_design(a, b, np.ones((n, 1)), np.zeros((n, 0)), np.ones(n))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("seed", range(8))
def test_a_fit_on_model_positions_is_the_fit_on_their_names_to_the_bit(seed):
    """fit_bt_coded (the arena's robustness refits) builds the design fit_bt builds from the names; some models of
    the list are in no battle (a subset's fit), names sort as text (model-10 before model-9), weights are counts."""
    rng = np.random.default_rng(seed)
    names = sorted(f"model-{i}" for i in rng.choice(40, size=int(rng.integers(3, 12)), replace=False))
    n = int(rng.integers(5, 300))
    a = rng.integers(0, len(names), n)
    b = (a + rng.integers(1, len(names), n)) % len(names)
    y = rng.choice([0.0, 0.5, 1.0], n)
    w = rng.integers(1, 20, n).astype(float)
    anchor = names[int(a[0])] if seed % 2 else None
    coded = fit_bt_coded(a, b, y, names, weights=w, anchor_model=anchor, scale=300.0)
    named = fit_bt((np.array(names)[a], np.array(names)[b], y), weights=w, anchor_model=anchor, scale=300.0)
    assert coded.models == named.models and set(coded.models) <= set(names)
    assert np.array_equal(coded.ratings, named.ratings) and coded.mean_log_loss == named.mean_log_loss


@pytest.mark.parametrize("seed", range(6))
def test_fits_of_the_same_battles_weighted_in_turn_are_each_weights_own_fit_to_the_bit(seed):
    """fit_bt_coded_weights builds the design once (the arena's 60 robustness refits): each fit is fit_bt_coded's
    with that weight vector, repeated duplicates and all (several battles per unit), in the order given."""
    rng = np.random.default_rng(seed)
    names = [f"m{i}" for i in range(int(rng.integers(3, 9)))]
    n = int(rng.integers(10, 200))
    a = rng.integers(0, len(names), n)
    b = (a + rng.integers(1, len(names), n)) % len(names)
    y = rng.choice([0.0, 0.5, 1.0], n)
    weights = [rng.integers(1, 30, n).astype(float) for _ in range(4)]
    shared = list(fit_bt_coded_weights(a, b, y, names, weights, scale=300.0))
    for w, fit in zip(weights, shared, strict=True):
        alone = fit_bt_coded(a, b, y, names, weights=w, scale=300.0)
        assert np.array_equal(fit.ratings, alone.ratings) and fit.mean_log_loss == alone.mean_log_loss
        assert fit.n_battles == alone.n_battles == w.sum()
    with pytest.raises(NumericError, match="weight"):
        list(fit_bt_coded_weights(a, b, y, names, [weights[0], -weights[1]]))


def test_a_fit_on_model_positions_refuses_unsorted_names_and_positions_outside_them():
    with pytest.raises(NumericError, match="sorted"):
        fit_bt_coded(np.array([0]), np.array([1]), [1.0], ["b", "a"])
    with pytest.raises(NumericError, match="outside"):
        fit_bt_coded(np.array([0]), np.array([2]), [1.0], ["a", "b"])


@pytest.mark.parametrize("dense", [True, False])
def test_the_linear_predictor_without_features_is_the_design_product_to_the_bit(dense, monkeypatch):
    # _eta reads params[A] - params[B] for a design without features (issue 30): the same values as the product
    # with the groups x models matrix, dense (BLAS) or sparse, over many rounds, self pairs and signed zeros
    from judgebench.stats import ratings

    if not dense:
        monkeypatch.setattr(ratings, "_DENSE_CELLS", 0)
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 12, 3000), rng.integers(0, 12, 3000)  # self pairs among them
    design = ratings._coded_design(a, b, tuple(f"m{i:02d}" for i in range(12)), rng.choice([0.0, 0.5, 1.0], (3000, 1)),
                                   np.zeros((3000, 0)), np.ones(3000))
    assert design.group_a is not None and (design.group_a == design.group_b).any()
    assert isinstance(design.full, np.ndarray) == dense
    params = rng.normal(0, 3, (12, 40)) * 10.0 ** rng.integers(-300, 300, (12, 40))
    params[:, :4] = rng.choice([0.0, -0.0, 1e-310, -1e-310, 1.0, 1.0 + 2**-52], (12, 4))
    params[:3, 4] = params[3:6, 4]  # equal strengths: differences of exactly 0
    expected = design.full @ params
    got = ratings._eta(design, params)
    assert got.tobytes() == np.asarray(expected).tobytes()
    assert ratings._eta(design, params[:, 0]).tobytes() == np.asarray(design.full @ params[:, 0]).tobytes()


@pytest.mark.parametrize("bad", [{"weights": [1.0, float("nan")]}, {"weights": [1.0, float("inf")]},
                                 {"l2": -1.0}, {"l2": float("nan")}, {"l2": float("inf")}])
def test_a_weight_or_penalty_that_is_no_finite_non_negative_number_is_refused(bad):
    # they led the fit to non-finite parameters, where the design product and its shortcut differ (found attacking)
    with pytest.raises(NumericError):
        fit_bt((["x", "y"], ["y", "x"], [1.0, 0.0]), **bad)
    with pytest.raises(NumericError):
        bootstrap_bt((["x", "y"], ["y", "x"], [1.0, 0.0]), n_resamples=5, **bad)


def test_unbeaten_orders_is_zermelos_condition():
    """Took-a-point edges (winner, loser; a tie gives both): a chain 0 > 1 > 2 with no upset is three components
    in one connected group; a cycle 0 > 1 > 2 > 0 is none; two groups never compared are two orders; a model with
    no battle is in none."""
    from judgebench.stats.ratings import unbeaten_orders

    chain = unbeaten_orders(np.array([0, 1]), np.array([1, 2]), 4)
    assert [sorted(map(sorted, order)) for order in chain] == [[[0], [1], [2]]]
    assert unbeaten_orders(np.array([0, 1, 2]), np.array([1, 2, 0]), 3) == []
    apart = unbeaten_orders(np.array([0, 2, 3]), np.array([1, 3, 2]), 4)  # 0 beat 1; 2 and 3 tied
    assert [sorted(map(sorted, order)) for order in apart] == [[[0], [1]]]
