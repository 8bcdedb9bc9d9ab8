"""arena: hand-computed ratings, ranks, matrices, p-values and annotator figures on small tables;
the planted-voter test; aggregated vs raw fits; an independent fit (choix); judge agreement."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from judgebench.human.arena.battles import make_battles, votes_frame
from judgebench.human.arena.compare import displacement, judge_agreement
from judgebench.human.arena.fit import FitOptions, ci_ranks, matrices, rate
from judgebench.human.arena.synthetic import (
    ALWAYS_A_VOTER,
    RANDOM_VOTER,
    bt_battles,
    demo_votes,
)
from judgebench.human.arena.voters import (
    action_values,
    annotator_table,
    anomalies,
    p_values,
)
from judgebench.stats.ratings import BTFit, fit_bt
from judgebench.tasks.votes import Vote

ELO = 400 / math.log(10)


def battles(rows, both_bad="tie"):
    votes = [Vote(pair_id=p, annotator=a, choice=c, model_a=ma, model_b=mb, **extra)
             for p, a, c, ma, mb, *rest in rows for extra in [rest[0] if rest else {}]]
    raw, dropped = votes_frame(votes, "test")
    return make_battles(raw, "test", both_bad, dropped=dropped)


def test_two_models_rating_gap_by_hand():
    # x wins 2, ties 2, loses 0 -> 3 of 4 wins (ties half): odds 3, gap = 400 * log10(3) = 190.85 Elo,
    # the mean pinned at 1000: 1095.42 and 904.58. Both Bad counts as a tie under "tie".
    t = battles([("p1", "u", "A", "x", "y"), ("p2", "u", "A", "x", "y"), ("p3", "u", "TIE", "x", "y"),
                 ("p4", "u", "BOTH_BAD", "y", "x")]).table
    fit = rate(t, FitOptions(n_resamples=0))
    assert fit.rating("x") == pytest.approx(1000 + 400 * math.log10(3) / 2, abs=1e-3)
    assert fit.rating("y") == pytest.approx(1000 - 400 * math.log10(3) / 2, abs=1e-3)
    # excluded Both Bad: x wins 2, ties 1 -> 2.5 of 3: odds 5, gap 400 * log10(5) = 279.59
    t2 = battles([("p1", "u", "A", "x", "y"), ("p2", "u", "A", "x", "y"), ("p3", "u", "TIE", "x", "y"),
                  ("p4", "u", "BOTH_BAD", "y", "x")], both_bad="exclude")
    assert t2.dropped == {"Both Bad (excluded by rule)": 1}
    gap = rate(t2.table, FitOptions(n_resamples=0, anchor="y"), anchor="y").rating("x") - 1000
    assert gap == pytest.approx(400 * math.log10(5), abs=1e-3)


def test_ranks_by_interval_overlap_by_hand():
    # intervals: a [10, 20], b [5, 15] (overlaps a), c [0, 4] (below both), d [-10, 6] (overlaps c, below a)
    fit = BTFit(models=("a", "b", "c", "d"), ratings=np.array([15.0, 10, 2, -2]),
                ci_low=np.array([10.0, 5, 0, -10]), ci_high=np.array([20.0, 15, 4, 6]))
    # rank = 1 + #models whose low > my high: a 1, b 1, c 1 + 2 (a, b), d 1 + 1 (a: 10 > 6)
    assert ci_ranks(fit).tolist() == [1, 1, 3, 2]


def test_win_rate_and_battle_matrices_by_hand():
    t = battles([("p1", "u", "A", "x", "y"), ("p2", "u", "TIE", "y", "x"), ("p3", "u", "B", "x", "z")]).table
    rate_, count = matrices(t, ["x", "y", "z"])
    assert count.loc["x", "y"] == 2 and count.loc["x", "z"] == 1 and count.loc["y", "z"] == 0
    assert rate_.loc["x", "y"] == pytest.approx(0.75)  # (1 win + 0.5 tie) / 2
    assert rate_.loc["z", "x"] == 1.0 and math.isnan(rate_.loc["y", "z"])


def test_p_values_by_hand():
    # action (x, y): others voted A, A, A, B; u votes B -> outcomes at most as frequent as B (count 1)
    # in the history: just B -> p = (1 + 1) / (4 + 1) = 0.4; v votes A -> all 4 -> p = 1
    rows = [(f"p{i}", f"o{i}", c, "x", "y") for i, c in enumerate("AAAB")]
    t = battles(rows + [("q1", "u", "B", "x", "y"), ("q2", "v", "A", "y", "x")]).table
    # (with v added: v votes A on (y, x), i.e. B on the sorted pair (x, y), so the history changes)
    votes = action_values(t).reset_index(drop=True)
    p = p_values(votes)
    # u: history = o0..o3 + v (B on the sorted pair): A 3, B 2 -> p = (2 + 1) / (5 + 1) = 0.5
    # v: history = o0..o3 + u: A 3, B 2 -> the same 0.5; o3 (B): history A 3, B 2 (u, v) -> (2+1)/(5+1)
    # o0 (A): history A 2, B 3 -> outcomes with count <= 2: A -> (2 + 1) / (5 + 1) = 0.5
    assert p.tolist() == pytest.approx([0.5, 0.5, 0.5, 0.5, 0.5, 0.5])
    t2 = battles(rows + [("q1", "u", "B", "x", "y")]).table
    p2 = p_values(action_values(t2).reset_index(drop=True))
    assert p2[-1] == pytest.approx(0.4)  # u against A A A B
    assert p2[0] == pytest.approx(1.0)  # o0 (A) against A A B B: counts 2 and 2, both <= 2 -> (4 + 1) / (4 + 1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_planted_random_and_always_a_voters_are_flagged_and_no_honest_one(seed):
    raw, _ = votes_frame(demo_votes(seed), "demo")
    table = make_battles(raw, "demo", "tie").table
    flagged = {r["annotator"] for r in anomalies(table, alpha=0.01, seed=seed) if r["flagged"]}
    assert flagged == {RANDOM_VOTER, ALWAYS_A_VOTER}


def test_votes_of_p_value_one_give_a_zero_statistic_not_minus_zero():
    """Two ties on one pair: each vote's p-value is 1, so M_j = -2 sum(log 1) = 0; it was written as -0.0 in
    arena.json and "-0.000" in arena.html (an outside audit)."""
    rows = [("p1", "u1", "TIE", "m1", "m2", {}), ("p1", "u2", "TIE", "m1", "m2", {})]
    ratios = [r["max_ratio"] for r in anomalies(battles(rows).table)]
    assert ratios == [0.0, 0.0] and all(math.copysign(1.0, r) == 1.0 for r in ratios)


def test_one_vote_has_no_interval_and_identical_votes_keep_their_point_inside():
    """An outside audit: one vote gave m1 2044.2 [2044.2, 2044.2] (a bootstrap of one battle shows no spread), and
    two identical votes a rating 2.5e-9 above its interval's upper end in arena.json."""
    one = rate(battles([("p1", "u1", "A", "m1", "m2")]).table, FitOptions(n_resamples=50))
    assert one.ci_low is None and one.ci_high is None
    two = rate(battles([("p1", "u1", "A", "m1", "m2"), ("p2", "u2", "A", "m1", "m2")]).table, FitOptions(n_resamples=50))
    assert np.all(two.ci_low <= two.ratings) and np.all(two.ratings <= two.ci_high)


def test_annotator_table_by_hand():
    rows = [("p1", "u", "A", "x", "y", {"shown_order": "AB", "seconds": 10}),
            ("p1", "v", "A", "x", "y", {"shown_order": "BA"}),
            ("p1", "w", "B", "x", "y", {"shown_order": "AB"}),
            ("p2", "u", "TIE", "x", "y", {"shown_order": "BA", "seconds": 20}),
            ("p2", "v", "B", "x", "y", {"shown_order": "BA", "timestamp": "2026-01-01T00:00:00Z"}),
            ("p3", "v", "B", "x", "y", {"timestamp": "2026-01-01T00:01:40Z"})]
    by = {r["annotator"]: r for r in annotator_table(battles(rows).table, {"w"})}
    # u: p1 others v=A, w=B -> majority TIE (tie for top) -> A disagrees; p2 others v=B -> TIE disagrees: 0/2
    assert by["u"]["agreement"] == 0.0 and by["u"]["compared"] == 2
    assert by["u"]["tie_rate"] == 0.5 and by["u"]["median_seconds"] == 15.0  # median of 10, 20
    assert by["u"]["left_chosen"] == 1.0  # one decisive vote with a shown order: A shown left
    # v: p1 others u=A, w=B -> TIE, v=A disagrees; p2 other u=TIE -> v=B disagrees; p3 alone: 0/2
    # left chosen: p1 A shown BA (right), p2 B shown BA (left) -> 1/2; seconds: no field -> timestamps
    # 00:00:00 and 00:01:40 -> one gap of 100 s
    assert by["v"]["left_chosen"] == 0.5 and by["v"]["median_seconds"] == 100.0
    assert by["w"]["flagged"] and not by["u"]["flagged"]


def _workload(seed=0, n=4000, models=8):
    a, b, y = bt_battles(n, models, seed)
    names = np.array([f"m{i}" for i in range(models)])
    table = pd.DataFrame({"model_a": names[a], "model_b": names[b], "outcome": y, "annotator": "u",
                          "pair_id": [f"p{i}" for i in range(n)]})
    return table, a, b, y


def test_aggregated_fit_equals_the_raw_vote_fit_and_choix():
    choix = pytest.importorskip("choix")
    table, a, b, y = _workload()
    aggregated = rate(table, FitOptions(n_resamples=0))
    raw = fit_bt((table["model_a"], table["model_b"], table["outcome"]))  # one row per vote
    assert np.abs(aggregated.ratings - raw.ratings).max() < 0.01
    data = []  # choix: a tie is one win each way, a decisive vote two wins (so ties count half)
    for i, j, v in zip(a, b, y):
        data += [(i, j), (i, j)] if v == 1 else [(j, i), (j, i)] if v == 0 else [(i, j), (j, i)]
    theta = choix.ilsr_pairwise(8, data, alpha=0.0, tol=1e-12, max_iter=10_000)
    independent = 1000 + ELO * (theta - theta.mean())
    order = [int(m[1:]) for m in aggregated.models]
    assert np.abs(aggregated.ratings - independent[order]).max() < 0.1


def test_multinomial_bootstrap_matches_the_raw_bootstrap_in_distribution():
    table, *_ = _workload(seed=1)
    agg = rate(table, FitOptions(n_resamples=400, seed=0))
    from judgebench.stats.ratings import bootstrap_bt
    raw = bootstrap_bt((table["model_a"], table["model_b"], table["outcome"]), n_resamples=400, seed=0)
    width_agg, width_raw = agg.ci_high - agg.ci_low, raw.ci_high - raw.ci_low
    assert np.abs(width_agg / width_raw - 1).max() < 0.2  # same distribution, different draws


def test_judge_agreement_uses_every_vote_for_the_human_ratings():
    table, *_ = _workload(seed=2, n=3000)
    full = rate(table, FitOptions(n_resamples=0))
    perfect = judge_agreement(table, table["outcome"].to_numpy(), FitOptions(n_resamples=50))
    assert perfect["spearman"]["value"] == 1.0 and perfect["rank_displacement"]["value"] == 0.0
    judge = np.where(np.arange(len(table)) % 2 == 0, 1.0 - table["outcome"].to_numpy(), np.nan)  # half, reversed
    half = judge_agreement(table, judge, FitOptions(n_resamples=50))
    assert half["answered_battles"] == 1500 and half["spearman"]["value"] < -0.9
    human = {r["model"]: r["human"] for r in half["ratings"]}
    assert max(abs(human[m] - full.rating(m)) for m in full.models) < 1e-6


def test_rank_displacement_by_hand():
    # ranks (1 = best): h = [1, 2, 3, 4]; j = [2, 1, 3, 4] -> |diff| = 1, 1, 0, 0: mean 0.5, max 1
    mean, worst = displacement(np.array([[4.0, 3, 2, 1]]), np.array([[3.0, 4, 2, 1]]))
    assert mean[0] == 0.5 and worst[0] == 1.0


@pytest.mark.slow
def test_style_control_recovers_a_planted_length_effect():
    # votes drawn from P(A) = sigmoid(s_A - s_B + 0.5 * d / sd(d)), d = (len_a - len_b) / (len_a + len_b)
    # rounded to 0.01 as arena does: the fitted length coefficient (per standard deviation) must cover 0.5,
    # citations (no effect planted) must cover 0
    from judgebench.human.arena.fit import STYLE_GRID, style_section

    rng = np.random.default_rng(5)
    n, strengths = 20_000, np.array([0.0, 0.5, -0.5, 1.0])
    a = rng.integers(0, 4, n)
    b = (a + rng.integers(1, 4, n)) % 4
    la, lb = rng.integers(200, 2000, n), rng.integers(200, 2000, n)
    d = np.round((la - lb) / (la + lb) / STYLE_GRID) * STYLE_GRID
    y = (rng.random(n) < 1 / (1 + np.exp(-(strengths[a] - strengths[b] + 0.5 * d / d.std())))).astype(float)
    names = np.array(["m0", "m1", "m2", "m3"])
    table = pd.DataFrame({"model_a": names[a], "model_b": names[b], "outcome": y, "length_a": la.astype(float),
                          "length_b": lb.astype(float), "citations_a": rng.poisson(3, n).astype(float),
                          "citations_b": rng.poisson(3, n).astype(float)})
    style = style_section(table, FitOptions(n_resamples=200, seed=0))
    length, citations = style["coefficients"]["length"], style["coefficients"]["citations"]
    assert length["ci_low"] < 0.5 < length["ci_high"] and length["ci_high"] - length["ci_low"] < 0.15
    assert citations["ci_low"] < 0 < citations["ci_high"]


def test_slice_ratings_are_the_fit_on_that_slice():
    from judgebench.human.arena.fit import slice_sections

    table, *_ = _workload(seed=3, n=2000)
    table["slice:subject"] = np.where(np.arange(len(table)) % 3 == 0, "physics", "biology")
    sections = {e["value"]: e for e in slice_sections(table, ["subject"], FitOptions(n_resamples=0))}
    physics = table[table["slice:subject"] == "physics"]
    alone = fit_bt((physics["model_a"], physics["model_b"], physics["outcome"]))
    for row in sections["physics"]["ratings"]:
        assert row["rating"] == pytest.approx(alone.rating(row["model"]), abs=0.01)
    assert sections["physics"]["votes"] == 667 and sections["biology"]["votes"] == 1333


def test_a_tasks_annotator_level_votes_become_one_vote_each():
    # PairExample.votes arrives with the ceiling branch; a stand-in object with the same fields
    from types import SimpleNamespace

    from judgebench.human.arena.battles import examples_as_votes

    pair_vote = lambda who, label: SimpleNamespace(annotator=who, labels={"overall": label},  # noqa: E731
                                                   timestamp=None, shown_order="BA")
    ex = SimpleNamespace(id="p1", model_a="x", model_b="y", slices={"subject": "s"}, response_a="aa (Li 2020)",
                         response_b="b", labels={"overall": "A"},
                         votes=[pair_vote("u", "A"), pair_vote("v", "B"), pair_vote("w", "A")])
    votes = examples_as_votes([ex], "overall")
    assert [(v.annotator, v.choice, v.shown_order) for v in votes] == [("u", "A", "BA"), ("v", "B", "BA"), ("w", "A", "BA")]
    assert (votes[0].length_a, votes[0].length_b, votes[0].citations_a, votes[0].citations_b) == (12, 1, 1, 0)
    plain = SimpleNamespace(**{**vars(ex), "votes": None})
    assert [(v.annotator, v.choice) for v in examples_as_votes([plain], "overall")] == [("label", "A")]


def test_streaming_reader_equals_the_vote_record_path(tmp_path):
    from pathlib import Path

    from judgebench.human.arena.reading import read_vote_table
    from judgebench.tasks.votes import read_votes, write_votes

    votes = demo_votes(4, n_pairs=60, planted_votes=10)
    path = tmp_path / "votes.jsonl"
    write_votes(path, votes)
    # lines the fast path leaves to the Vote record: a multi-dimension vote (then every line goes through the
    # line reader), an integer for the float seconds (taken: a JSON number; "12", a string, is refused)
    with path.open("a") as handle:
        handle.write('{"pair_id": "m1", "annotator": "u", "choices": {"overall": "B", "novelty": "A"}, '
                     '"model_a": "x", "model_b": "y"}\n')
        handle.write('{"pair_id": "m2", "annotator": "u", "choice": "A", "model_a": "x", "model_b": "y", '
                     '"seconds": 12}\n')
    fast, _ = read_vote_table(Path(path), "v", "overall")
    slow, _ = votes_frame(read_votes(path), "v")
    slow = slow[fast.columns]
    as_obj = lambda f: f.astype(object).where(f.notna(), None)  # noqa: E731
    pd.testing.assert_frame_equal(as_obj(fast), as_obj(slow), check_dtype=False)
    assert fast["choice"].tolist()[-2:] == ["B", "A"] and fast["seconds"].tolist()[-1] == 12.0


@pytest.mark.slow
def test_vectorised_leave_one_out_majority_equals_the_stated_rule_per_vote():
    from judgebench.human.arena.voters import leave_one_out_majority
    from judgebench.tasks.votes import majority_label

    raw, _ = votes_frame(demo_votes(6, n_pairs=150, planted_votes=40), "demo")
    table = make_battles(raw, "demo", "tie").table
    fast = leave_one_out_majority(table)
    for i, row in table.iterrows():
        others = table[(table["pair_id"] == row["pair_id"]) & (table["annotator"] != row["annotator"])]
        expected = majority_label(others["choice"].tolist()) if len(others) else None
        assert fast[i] == expected, (i, fast[i], expected)


@pytest.mark.parametrize("models", [6, 160])  # 160: more cells than 16 bits count (the sort is not a radix sort)
def test_the_annotators_cell_matrix_counts_each_subsets_battles_per_cell(models):
    """_Cells.by_annotator lists each battle's annotator under its cell (repeats unsummed): a product with a
    subset's indicator is that subset's count per cell, as counting its votes' cells gives it."""
    from judgebench.human.arena.compare import _Cells
    from judgebench.human.arena.coded import Coded

    rng = np.random.default_rng(models)
    n = 3000
    a = rng.integers(0, models, n)
    b = (a + rng.integers(1, models, n)) % models
    who = rng.integers(0, 9, n)  # 9 annotators, many repeated (cell, annotator)
    table = pd.DataFrame({"model_a": [f"m{i:03d}" for i in a], "model_b": [f"m{i:03d}" for i in b],
                          "outcome": rng.choice([0.0, 0.5, 1.0], n)})
    cells = _Cells(table, Coded(table))
    matrix = cells.by_annotator(who, 9)
    for chosen in (np.ones(9, dtype=bool), rng.random(9) < 0.5, np.zeros(9, dtype=bool)):
        expected = np.bincount(cells.key[chosen[who]], minlength=matrix.shape[0])
        assert np.array_equal(matrix @ chosen.astype(np.int64), expected)


def test_robustness_subset_fits_equal_fits_on_the_subset_and_full_data_correlates_perfectly():
    from judgebench.human.arena.compare import _Cells, robustness

    table, *_ = _workload(seed=4, n=3000)
    table["annotator"] = [f"u{i % 7}" for i in range(len(table))]
    table["slice:subject"] = np.where(np.arange(len(table)) % 2 == 0, "a", "b")
    mask = table["annotator"].isin(["u1", "u2", "u5"]).to_numpy()
    cells = _Cells(table)
    coded = cells.fit(mask, FitOptions())
    direct = rate(table[mask], FitOptions(n_resamples=0))
    assert np.abs(coded.ratings - direct.ratings).max() < 1e-6
    who, names = pd.factorize(table["annotator"])
    chosen = np.isin(names, ["u1", "u2", "u5"])
    per_cell = cells.by_annotator(who, len(names))
    everyone = np.ones(len(names), dtype=bool)
    fits = cells.fit_annotators(per_cell, [chosen, everyone, chosen], FitOptions())
    assert np.array_equal(fits[0].ratings, coded.ratings)  # the same counts, so the same fit
    assert np.array_equal(fits[1].ratings, cells.fit_all(FitOptions()).ratings)  # every cell: the shared design
    assert np.array_equal(fits[2].ratings, coded.ratings)  # in the order given
    rob = robustness(table, ["subject"], FitOptions(), repeats=4)
    assert [r["annotators"] for r in rob["subsampling"]] == [4, 5, 6]  # round(0.5 * 7) = 4 (banker's), 5.25, 6.3
    assert {r["left_out"] for r in rob["leave_one_slice_out"]} == {"a", "b"}
    assert all(-1 <= r["spearman"]["mean"] <= 1 for r in rob["subsampling"])
    # four annotators: 90% of them is round(3.6) = 4, every one: no subsample, no figure (it read 1.000 [1.000, 1.000])
    four = table[table["annotator"].isin(["u0", "u1", "u2", "u3"])].reset_index(drop=True)
    rob4 = robustness(four, [], FitOptions(), repeats=4)
    assert [(r["annotators"], r.get("skipped")) for r in rob4["subsampling"]] == [(2, None), (3, None), (4, "every annotator")]
    assert "spearman" not in rob4["subsampling"][2]


def test_the_win_rate_matrix_of_many_models_is_one_block():
    """With 160 models the win-rate frame was 160 column blocks: writing arena.html printed pandas'
    PerformanceWarning on stderr (found attacking)."""
    import warnings

    rng = np.random.default_rng(0)
    a = rng.integers(0, 160, 5000)
    b = (a + rng.integers(1, 160, 5000)) % 160
    table = pd.DataFrame({"model_a": [f"m{i:03d}" for i in a], "model_b": [f"m{i:03d}" for i in b],
                          "outcome": rng.choice([0.0, 0.5, 1.0], 5000)})
    models = sorted(set(table["model_a"]) | set(table["model_b"]))
    rate_, battles = matrices(table, models)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rate_.reset_index(), battles.reset_index()
    both = battles.to_numpy() > 0
    assert np.allclose(rate_.to_numpy()[both] + rate_.to_numpy().T[both], 1.0)  # a pair's two rates sum to 1
    assert np.isnan(rate_.to_numpy()[~both]).all()
