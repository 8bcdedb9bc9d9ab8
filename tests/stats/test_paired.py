"""Exact paired tests where they are cheap: per-example differences on a grid (quarters with both orders) get
their exact sign-flip p, not a Monte-Carlo p printed at its floor; Monte Carlo only off the grid, printed
"p < 1/(n+1)" at the floor. Unit: the example; direction: candidate - baseline."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from judgebench.stats.paired import (
    MONTE_CARLO_RESAMPLES,
    format_p,
    grid_of,
    paired_test,
    sign_flip_exact,
    sign_flip_grid_exact,
)


def _exact_by_counting(diffs: list[Fraction]) -> Fraction:
    """An independent oracle: the signed sum's distribution counted with exact fractions, pattern by pattern
    grouped by sum (a dict), as a two-sided p."""
    counts = {Fraction(0): 1}
    for d in diffs:
        nxt: dict[Fraction, int] = {}
        for s, c in counts.items():
            for t in (s + abs(d), s - abs(d)):
                nxt[t] = nxt.get(t, 0) + c
        counts = nxt
    observed = abs(sum(diffs))
    return Fraction(sum(c for s, c in counts.items() if abs(s) >= observed), 2 ** len(diffs))


def test_all_examples_rising_gives_two_patterns_in_two_to_the_m():
    # 30 examples rose by a half and 10 by a quarter, none fell: only the all-plus and all-minus patterns are
    # as extreme, so p = 2 / 2^40 = 1.8189894035e-12 (the Monte-Carlo floor was 1/10001 = 9.999e-05).
    base = np.zeros(50)
    cand = np.concatenate([np.full(30, 0.5), np.full(10, 0.25), np.zeros(10)])
    test = paired_test(base, cand)
    assert (test.name, test.n, test.rose, test.fell, test.resamples) == ("sign-flip exact", 40, 40, 0, None)
    assert test.p == pytest.approx(2 / 2**40, rel=1e-9)
    assert test.p < 1e-6
    assert format_p(test) == "p = 1.819e-12"
    same = paired_test(base, base)  # no example changed: p = 1 is exact and says nothing, and the line says so
    assert same.n == 0 and same.p == 1.0 and format_p(same) == "p = 1 (no example changed: nothing to test)"


def test_grid_p_equals_an_exact_count_with_fractions():
    rng = np.random.default_rng(7)
    quarters = rng.choice([-3, -2, -1, 1, 2, 3, 4], size=26, p=[.1, .1, .1, .2, .2, .2, .1]) / 4
    diffs = [Fraction(int(q * 4), 4) for q in quarters]
    assert grid_of(quarters) == 4
    expected = _exact_by_counting(diffs)
    assert sign_flip_grid_exact(quarters, 4) == pytest.approx(float(expected), rel=1e-9)
    base = np.zeros(len(quarters))
    assert paired_test(base, quarters).p == pytest.approx(float(expected), rel=1e-9)


def test_grid_and_full_enumeration_agree_where_both_run():
    rng = np.random.default_rng(3)
    for _ in range(25):
        d = rng.choice([-1, -0.75, -0.5, -0.25, 0.25, 0.5, 0.75, 1], size=int(rng.integers(2, 15)))
        assert sign_flip_grid_exact(d, grid_of(d)) == pytest.approx(sign_flip_exact(d), abs=1e-12)


def test_a_five_dimension_grid_is_found():
    # a mean over 5 dimensions and 2 orders moves in steps of 1/20
    d = np.array([1, 3, -2, 7, 5, 1, 1, 2, -1, 4, 6, 3, 2, 2, 1, 9, -3, 2, 1, 1, 4, 2]) / 20
    assert grid_of(d) == 20
    assert paired_test(np.zeros(len(d)), d).resamples is None  # exact


def test_off_the_grid_is_monte_carlo_and_its_floor_prints_as_a_bound():
    d = np.sqrt(2) * np.arange(1, 31) / 7  # no grid 1/G with G <= 10,000
    test = paired_test(np.zeros(30), d)
    assert test.name == "sign-flip Monte Carlo" and test.resamples == MONTE_CARLO_RESAMPLES
    assert test.p == pytest.approx(1 / (MONTE_CARLO_RESAMPLES + 1))
    assert format_p(test) == "p < 9.999e-05 (Monte Carlo, no pattern as extreme)"


def test_enumeration_itself_is_right_on_a_tiny_case():
    # differences +1, +0.5, -0.25: sums over the 8 sign patterns; observed 1.25
    d = np.array([1.0, 0.5, -0.25])
    sums = [abs(sum(s * v for s, v in zip(signs, d))) for signs in itertools.product((1, -1), repeat=3)]
    assert sign_flip_exact(d) == sum(s >= 1.25 for s in sums) / 8 == 0.5
