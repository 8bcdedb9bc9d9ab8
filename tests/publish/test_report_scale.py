"""`report` at scale (issue 16, fourth round): the diagnostics' ratio bootstrap in blocks of int32 draws, its
per-example columns held compactly, and the Bradley-Terry Newton steps computed in place, each compared bit for
bit with the original computation (reached by switching the shortcut off, or by the original code kept here)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit
from test_score_scale import _records

from judgebench.scoring import diagnostics
from judgebench.stats import exact_sums, ratings, ratio_bootstrap
from judgebench.stats.resampling import batch_free, resample_batches

# ---------------------------------------------------------------- draws and compact columns


@pytest.mark.parametrize("n", [1, 3, 7, 1001, 65_537])
def test_draws_do_not_depend_on_the_batch_or_int32(n):
    """The indices of a 32-bit range come from the generator's own 32-bit stream: any batch, either dtype."""
    width = min(n, 5_000)  # the examples drawn from (n) and the row length are the same in the helper
    reference = np.vstack(list(resample_batches(width, 230, seed=11, batch=200)))
    for batch, dtype in ((50, np.int32), (7, np.int32), (1, np.int64), (230, np.int32)):
        got = np.vstack(list(resample_batches(width, 230, seed=11, batch=batch, dtype=dtype)))
        assert got.dtype == dtype and np.array_equal(got.astype(np.int64), reference)
    assert batch_free(2**31 - 1) and not batch_free(2**31)


def test_compact_columns_hold_every_value_exactly_or_stay_float64():
    counts = np.array([0.0, 1.0, 2.0, 0.25, 0.5, -0.0, 2048.0])
    assert ratio_bootstrap.compact(counts).dtype == np.float16
    assert ratio_bootstrap.compact(np.array([True, False])).dtype == np.float16
    assert ratio_bootstrap.compact(np.array([1e6 + 1, 0.0])).dtype == np.float32  # above float16's range
    for kept in ([1 / 3, 0.0], [0.1], [np.nan, 1.0], [1e300]):  # not exact in a narrower type (NaN never equal)
        assert ratio_bootstrap.compact(np.array(kept)).dtype == np.float64
    back = ratio_bootstrap.as_f64(ratio_bootstrap.compact(counts))
    assert back.dtype == np.float64 and np.array_equal(back, counts)
    assert np.signbit(back[5])  # even the sign of zero


def _original_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """The original layout: float64 columns, draws in chunks of 200 rounds of int64."""
    monkeypatch.setattr(diagnostics, "compact", lambda values: np.asarray(values, dtype=float))
    monkeypatch.setattr(ratio_bootstrap, "batch_free", lambda n: False)


@pytest.mark.parametrize("share", [None, 1.0])  # the share of distinct rows below which rows are grouped
def test_diagnostics_in_blocks_equal_the_original_chunks(monkeypatch, share):
    recs = _records(900, seed=4)
    if share is not None:
        monkeypatch.setattr(exact_sums, "_MAX_TYPE_SHARE", share)
    seen = []
    real = ratio_bootstrap.resample_batches
    monkeypatch.setattr(ratio_bootstrap, "resample_batches", lambda *a, **k: seen.append(a[3]) or real(*a, **k))
    fast = diagnostics.diagnose(recs, n_resamples=230, seed=2)  # 230: a last block and chunk shorter than the rest
    assert ratio_bootstrap.EXACT_BLOCK in seen, "the block path was not taken"
    _original_columns(monkeypatch)
    assert diagnostics.diagnose(recs, n_resamples=230, seed=2) == fast


@pytest.mark.slow  # measured over 1.5 s in the fast selection
def test_diagnostics_that_are_not_exact_keep_the_original_chunks(monkeypatch):
    recs = _records(300, seed=1, dimensions=("a", "b", "c"))
    monkeypatch.setattr(diagnostics, "sums_are_exact", lambda *args: False)
    seen = []
    real = ratio_bootstrap.resample_batches
    monkeypatch.setattr(ratio_bootstrap, "resample_batches", lambda *a, **k: seen.append(a[3]) or real(*a, **k))
    fast = diagnostics.diagnose(recs, n_resamples=120, seed=3)
    assert seen and set(seen) == {200}
    _original_columns(monkeypatch)
    assert diagnostics.diagnose(recs, n_resamples=120, seed=3) == fast


def test_a_block_above_the_cap_is_counted_per_example_like_its_chunk(monkeypatch):
    """One example drawn 300 times in a round of the second block: it counts 255 times, as in the product of the
    capped counts."""
    n, rounds = 400, 120
    num = [np.arange(n) % 2 * 1.0, np.ones(n)]
    den = [np.ones(n), np.full(n, 2.0)]
    draws = np.vstack(list(resample_batches(n, rounds, 5, 200))).astype(np.int64)
    draws[70, :300] = 0

    def fixed(self, exact=True):
        step = ratio_bootstrap.EXACT_BLOCK if exact else 200
        return iter([draws[lo : lo + step] for lo in range(0, rounds, step)])

    monkeypatch.setattr(ratio_bootstrap.Resampler, "_blocks", fixed)
    monkeypatch.setattr(exact_sums, "_MAX_TYPE_SHARE", 1.0)
    got = ratio_bootstrap.Resampler(n, rounds, 5).ratio_samples(num, den, exact=True)
    capped = np.minimum([np.bincount(row, minlength=n) for row in draws], 255).astype(float)
    want = (capped @ np.column_stack(num)) / (capped @ np.column_stack(den))
    assert np.array_equal(got, want)
    assert capped[70, 0] == 255  # the cap applied


@pytest.mark.parametrize("share", [1.0, 0.0])  # rows grouped by type, or the per-example product
@pytest.mark.parametrize("capped", [False, True])
def test_counts_converted_once_give_the_integer_counts_sums(monkeypatch, share, capped):
    """The round's counts are converted to float64 once (issue 30, sixth round): the grouped sums, the per-example
    product and the tallies equal those of the integer counts, with and without an example above the cap."""
    n, rounds = 400, 120
    num = [np.arange(n) % 2 * 1.0, np.ones(n)]
    den = [np.ones(n), np.full(n, 2.0)]
    draws = np.vstack(list(resample_batches(n, rounds, 5, 200))).astype(np.int64)
    if capped:
        draws[70, :300] = 0
    monkeypatch.setattr(ratio_bootstrap.Resampler, "_blocks", lambda self, exact=True: iter(
        [draws[lo : lo + ratio_bootstrap.EXACT_BLOCK] for lo in range(0, rounds, ratio_bootstrap.EXACT_BLOCK)]))
    monkeypatch.setattr(exact_sums, "_MAX_TYPE_SHARE", share)
    keys = np.arange(n) % 37
    resampler = ratio_bootstrap.Resampler(n, rounds, 5)
    tally = resampler.tally(keys, 37)
    got = resampler.ratio_samples(num, den, exact=True)
    counts = [np.bincount(row, minlength=n) for row in draws]  # int64, as before
    cut = np.minimum(counts, 255).astype(float)
    assert np.array_equal(got, (cut @ np.column_stack(num)) / (cut @ np.column_stack(den)))
    assert np.array_equal(tally.counts(), np.stack([np.bincount(keys, weights=c, minlength=37) for c in counts]).T)
    assert (cut.max() == 255) == capped
    row = np.bincount(draws[70], minlength=n).astype(np.float64)
    assert np.array_equal(ratio_bootstrap.capped_counts(row), np.minimum(row, 255))
    assert (ratio_bootstrap.capped_counts(row) is row) != capped  # no copy unless a count is above the cap


# ---------------------------------------------------------------- the system bootstrap counted in the ratio pass


def _unit_counts(keys: np.ndarray, n_keys: int, n: int, rounds: int, seed: int) -> np.ndarray:
    """keys x rounds: how often each key is drawn per round, from resample_batches in one batch (by hand)."""
    draws = next(resample_batches(n, rounds, seed, rounds))
    return np.stack([np.bincount(keys[row], minlength=n_keys) for row in draws]).T.astype(float)


def test_paired_bootstrap_given_the_unit_counts_of_its_draws_equals_its_own(monkeypatch):
    rng = np.random.default_rng(12)
    n = 700
    a = rng.integers(0, 7, n).astype(str)
    b = ((a.astype(int) + rng.integers(1, 7, n)) % 7).astype(str)
    judge = rng.choice([0.0, 0.5, 1.0, np.nan], n)
    monkeypatch.setattr(ratings, "_CHUNK_CELLS", 50_000)  # several chunks of rounds
    plan = ratings.PairedBootstrap.prepare(a, b, {"human": rng.choice([0.0, 1.0], n), "judge": judge},
                                           n_resamples=230, seed=5)
    assert plan.draws_as(n, 230, 5) and not plan.draws_as(n, 230, 6) and not plan.draws_as(n - 1, 230, 5)
    given = plan.fits(_unit_counts(plan.battle_unit, plan.n_units, n, 230, 5))
    own = plan.fits()
    for who in own:
        for field in ("ratings", "rating_samples", "ci_low", "ci_high"):
            assert np.array_equal(getattr(given[who], field), getattr(own[who], field), equal_nan=True), (who, field)
    with pytest.raises(ratings.NumericError, match="unit counts: shape"):
        plan.fits(np.zeros((plan.n_units, 229)))


def test_tallies_count_the_ratio_draws_with_or_without_a_ratio_pass():
    n, rounds, seed = 1_000, 130, 8
    keys = np.arange(n) % 37
    want = _unit_counts(keys, 37, n, rounds, seed)
    alone = ratio_bootstrap.Resampler(n, rounds, seed).tally(keys, 37)
    assert np.array_equal(alone.counts(), want)  # no ratio pass: one of its own
    for exact in (True, False):
        resampler = ratio_bootstrap.Resampler(n, rounds, seed)
        tally = resampler.tally(keys, 37)
        resampler.ratio_samples([np.arange(n) % 2 * 1.0], [np.ones(n)], exact=exact)
        assert tally.filled and np.array_equal(tally.counts(), want)


def test_the_system_section_counted_in_the_ratio_pass_equals_its_own_draws(monkeypatch):
    recs = [r for r in _records(600, seed=3) if r.model_a != r.model_b]  # every example a battle
    monkeypatch.setattr(ratings, "_CHUNK_CELLS", 30_000)  # the rounds solved in several chunks
    tallied = []
    real = ratio_bootstrap.Resampler.tally
    monkeypatch.setattr(ratio_bootstrap.Resampler, "tally", lambda self, *a: tallied.append(a) or real(self, *a))
    shared = diagnostics.diagnose(recs, n_resamples=230, seed=2)
    assert tallied, "the system bootstrap did not share the ratio draws"
    monkeypatch.setattr(diagnostics, "TALLY_MAX_CELLS", 0)  # its own draws, as before
    assert diagnostics.diagnose(recs, n_resamples=230, seed=2) == shared
    tallied.clear()
    diagnostics.diagnose(_records(600, seed=3), n_resamples=50, seed=2)  # self-pairs are not battles
    assert not tallied


# ---------------------------------------------------------------- Bradley-Terry Newton steps in place


def _original_loss(design, eta, n, s, params, l2):
    nll = (n * np.logaddexp(0.0, eta) - s * eta).sum(axis=0)
    return nll + 0.5 * params[: design.n_models].sum(0) ** 2 + 0.5 * l2 * (params**2).sum(0)


def _original_newton(design, n, s, start, l2, max_iter=60, tol=1e-9):
    params = start.copy()
    active = np.arange(params.shape[1])
    converged = np.zeros(params.shape[1], dtype=bool)
    for _ in range(max_iter):
        if not len(active):
            break
        cur, n_act, s_act = params[:, active], n[:, active], s[:, active]
        eta = ratings._eta(design, cur)
        prob = expit(eta)
        grad = ratings._gradient(design, n_act * prob - s_act, cur, l2)
        hess = ratings._hessian(design, n_act * prob * (1.0 - prob), l2)
        step = np.linalg.solve(hess, grad.T[..., None])[..., 0].T
        new = _original_damped(design, n_act, s_act, cur, step, eta, l2)
        params[:, active] = new
        done = np.abs(new - cur).max(axis=0) < tol
        converged[active[done]] = True
        active = active[~done]
    return params, converged


def _original_damped(design, n, s, cur, step, eta, l2, big=0.5, halvings=40):
    new = cur - step
    large = np.flatnonzero(np.abs(step).max(axis=0) > big)
    if not len(large):
        return new
    n, s, cur, step = n[:, large], s[:, large], cur[:, large], step[:, large]
    loss0 = _original_loss(design, eta[:, large], n, s, cur, l2)
    size = np.ones(len(large))
    for _ in range(halvings):
        trial = cur - size * step
        loss = _original_loss(design, ratings._eta(design, trial), n, s, trial, l2)
        worse = loss > loss0 + 1e-12 * np.abs(loss0)
        if not worse.any():
            break
        size[worse] /= 2
    new[:, large] = cur - size * step
    return new


def test_nll_in_place_equals_the_original_expression():
    rng = np.random.default_rng(3)
    for shape in ((50, 1), (300, 7), (1, 4)):
        eta = rng.normal(size=shape) * 30
        n = rng.poisson(1.0, size=shape).astype(float)
        s = n * rng.choice([0.0, 0.5, 1.0], size=shape)
        want = (n * np.logaddexp(0.0, eta) - s * eta).sum(axis=0)
        assert np.array_equal(ratings._nll(eta, n, s), want)
    column = np.arange(5.0)[:, None]
    assert np.array_equal(ratings._nll(column, np.ones(5), np.zeros(5)),
                          (np.ones(5) * np.logaddexp(0.0, column) - np.zeros(5) * column).sum(axis=0))  # broadcast


def test_separated_style_bootstrap_equals_the_original_newton(monkeypatch):
    """A judge perfectly separated by the feature (like builtin/longer): the chord iteration fails, damped
    Newton with step halving does the work; the in-place steps give the original bits."""
    rng = np.random.default_rng(9)
    n = 600
    a = rng.integers(0, 6, n).astype(str)
    b = ((a.astype(int) + rng.integers(1, 6, n)) % 6).astype(str)
    x = rng.normal(size=n)
    outcomes = {"human": rng.choice([0.0, 0.5, 1.0], n), "judge": (x > 0).astype(float)}
    halved = []
    real = ratings._damped
    monkeypatch.setattr(ratings, "_damped", lambda *a, **k: halved.append(a[4].shape[1]) or real(*a, **k))
    fast = ratings.paired_bootstrap_bt(a, b, outcomes, {"x": x}, n_resamples=150, seed=4)
    assert any(cols > 1 for cols in halved), "damped Newton was not reached on several rounds"
    monkeypatch.setattr(ratings, "_newton", _original_newton)
    monkeypatch.setattr(ratings, "_loss", _original_loss)
    slow = ratings.paired_bootstrap_bt(a, b, outcomes, {"x": x}, n_resamples=150, seed=4)
    for who in outcomes:
        for field in ("beta", "ratings", "beta_samples", "rating_samples"):
            assert np.array_equal(getattr(fast[who], field), getattr(slow[who], field), equal_nan=True), (who, field)


# ---------------------------------------------------------------- reading samples.jsonl


def test_lean_records_intern_model_names_as_intern_short_does():
    import sys

    from judgebench.core.bulk import intern_short
    from judgebench.core.lean_records import LeanRecord

    short, long = "".join(["model", "-x"]), "m" * 129  # built at run time: not interned by the compiler
    record = _records(1)[0].model_copy(update={"model_a": short, "model_b": long})
    lean = LeanRecord.of(record)
    assert lean.model_a is sys.intern(short) and lean.model_a is intern_short(short)
    assert lean.model_b == long and lean.model_b is record.model_b  # over 128 characters: kept as it is
    assert lean == record.model_copy(update=dict.fromkeys(("question", "response_a", "response_b")))


def test_fits_at_several_penalties_equal_one_fit_each():
    rng = np.random.default_rng(6)
    a, b = rng.integers(0, 5, 800).astype(str), rng.integers(5, 9, 800).astype(str)
    x = rng.normal(size=800)
    y = (x + rng.normal(size=800) > 0).astype(float)
    fits = ratings.fit_bt_penalties((a, b, y), {"x": x}, (1e-6, 1e-4))
    for fit, l2 in zip(fits, (1e-6, 1e-4)):
        alone = ratings.fit_bt((a, b, y), {"x": x}, l2=l2)
        assert np.array_equal(fit.beta, alone.beta) and np.array_equal(fit.ratings, alone.ratings)
        assert fit.mean_log_loss == alone.mean_log_loss
    assert fits[0].beta[0] != fits[1].beta[0]  # the penalty moved it: two different fits


def _original_codes(recs):
    from operator import attrgetter

    from judgebench.scoring.judgment_table import _STATUS_CODE, CODE

    _CALL = attrgetter("status", "verdict", "verdict_shown")
    out = np.full((len(recs), 3), -1, dtype=np.int64)
    for row, r in enumerate(recs):
        if r is None:
            continue
        status, verdict, shown = _CALL(r)
        out[row, 0] = _STATUS_CODE[status]
        if status == "ANSWERED" and verdict is not None:
            out[row, 1], out[row, 2] = CODE[verdict], CODE.get(shown, -1)
    return out[:, 0].copy(), out[:, 1].copy(), out[:, 2].copy()


def test_order_codes_equal_the_row_by_row_original():
    from judgebench.scoring.judgment_table import _codes

    recs = _records(300, seed=7)  # answered, invalid and failed judgments
    mixed = [None if i % 7 == 0 else r for i, r in enumerate(recs)]
    mixed[3] = recs[3].model_copy(update={"status": "ANSWERED", "verdict": None, "verdict_shown": None})
    mixed[5] = recs[5].model_copy(update={"status": "INVALID", "verdict": "A", "verdict_shown": "A"})
    for given in (mixed, [None, None], []):
        got, want = _codes(given), _original_codes(given)
        assert all(g.dtype == w.dtype and np.array_equal(g, w) for g, w in zip(got, want))
    assert set(_codes(mixed)[0].tolist()) == {-1, 0, 1, 2}


def test_reparse_with_a_memo_equals_each_parse_alone():
    from judgebench.scoring.score import reparse_record
    from judgebench.tasks.registry import get_task

    spec = get_task("sciarena_eval")
    raws = ["[[A]]", "[[B]]", "no verdict here", "[[A]]", None, "Final: [[B]]", "[[B]]"]
    recs = [r.model_copy(update={"raw": raws[i % len(raws)], "task": "sciarena_eval"})
            for i, r in enumerate(_records(40, seed=2))]
    memo: dict = {}
    with_memo = [reparse_record(r, spec, "separate", memo) for r in recs]
    alone = [reparse_record(r, spec, "separate") for r in recs]
    assert with_memo == alone
    assert any(new is not old for new, old in zip(alone, recs))  # some verdicts changed: the parse was applied
    assert 0 < len(memo) < len(recs) and set(memo.values()) >= {"A", "B", None}
