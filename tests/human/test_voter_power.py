"""Voter checks with stated power (issue 28 item 5): beside SciArena's anomaly test, an annotator's agreement
with the others' majority is tested against the other annotators' pooled rate (one-sided binomial) and their
share of left votes against 1/2 (two-sided), Bonferroni over the annotators; the power against a random clicker
and an always-left voter is exact (binomial). Expected values are computed here with integers."""

from __future__ import annotations

from fractions import Fraction
from math import comb
from pathlib import Path

import pytest

from judgebench.human.arena.voters import voter_power, voter_tests


def _row(name, votes, agreement, left, ties=0.0):
    return {"annotator": name, "votes": votes, "compared": votes, "agreement": agreement, "tie_rate": ties,
            "position_votes": votes, "left_chosen": left}


def _cdf(k: int, n: int, p: Fraction) -> float:
    return float(sum(comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1)))


DECISIVE = {"A": 0.5, "B": 0.5, "TIE": 0.0, "BOTH_BAD": 0.0}  # the others' majorities: A or B, half each


def test_a_low_agreement_and_an_always_left_voter_are_flagged_with_exact_p_values():
    rows = [_row("h1", 20, 0.9, 0.5), _row("h2", 20, 0.9, 0.5), _row("bad", 20, 0.5, 1.0)]
    tests = {t["annotator"]: t for t in voter_tests(rows, alpha=0.05, shares=DECISIVE)["annotators"]}
    bad = tests["bad"]
    # the others agree 36 of 40 times: P(X <= 10 | 20, 0.9) by hand
    assert bad["honest_agreement"] == pytest.approx(0.9)
    assert bad["agreement_p"] == pytest.approx(_cdf(10, 20, Fraction(9, 10)), rel=1e-9)
    assert bad["side_p"] == pytest.approx(2 / 2**20, rel=1e-9)  # 20 of 20 left
    assert bad["flagged_by"] == ["agreement", "side"]  # both below 0.05 / 3
    # an honest voter: 18 of 20 against the others' 28 of 40 (h2 and bad) is not low; 10 of 20 left is not a side
    assert tests["h1"]["flagged_by"] == []


def _critical(n: int, honest: Fraction, level: float) -> int:
    return max((k for k in range(n + 1) if _cdf(k, n, honest) <= level), default=-1)


def test_power_against_a_random_clicker_is_the_binomial_tail_at_the_critical_value():
    rows = [_row("h1", 20, 0.9, 0.5), _row("h2", 20, 0.9, 0.5), _row("h3", 20, 0.8, 0.5)]
    level = 0.05 / 3
    honest = Fraction(18 + 18 + 16, 60)  # pooled agreement of the honest voters
    for row in voter_power(rows, level, DECISIVE):
        n = row["votes"]
        critical = _critical(n, honest, level)
        expected = _cdf(critical, n, Fraction(1, 2)) if critical >= 0 else 0.0  # A or B only: a clicker matches 1/2
        assert row["random_clicker"] == pytest.approx(expected, abs=1e-9), n
        assert row["uniform_clicker"] == row["random_clicker"] and row["uniform_choices"] == 2
        assert row["always_left"] == (1.0 if 2 / 2**n < level else 0.0)
    sizes = [row["votes"] for row in voter_power(rows, level, DECISIVE)]
    assert sizes == [20, 25, 50, 100, 200, 400]  # the data's median votes per voter joins the table


def test_a_clicker_matches_the_majority_as_often_as_the_majorities_are_of_its_labels():
    """An outside audit: with one TIE vote anywhere the clicker was taken to click three choices uniformly and to
    match any majority 1/3 of the time, and the power stated for the demo's planted A-or-B clicker was 100% at 25
    votes. Here 40% of the others' majorities are A, 40% B and 20% TIE (a shared top count is a TIE majority): an
    A-or-B clicker matches (0.4 + 0.4) / 2 = 0.4, a uniform clicker over A, B and TIE (0.4 + 0.4 + 0.2) / 3 = 1/3."""
    rows = [{**r, "tie_rate": 0.1} for r in (_row("h1", 20, 0.9, 0.5), _row("h2", 20, 0.9, 0.5),
                                              _row("h3", 20, 0.8, 0.5))]
    level, honest = 0.05 / 3, Fraction(52, 60)
    shares = {"A": 0.4, "B": 0.4, "TIE": 0.2, "BOTH_BAD": 0.0}
    row = voter_power(rows, level, shares)[1]
    critical = _critical(25, honest, level)
    assert row["votes"] == 25 and row["clicker_agreement"] == pytest.approx(0.4)
    assert row["random_clicker"] == pytest.approx(_cdf(critical, 25, Fraction(2, 5)), abs=1e-9)
    assert row["uniform_clicker_agreement"] == pytest.approx(1 / 3) and row["uniform_choices"] == 3
    assert row["uniform_clicker"] == pytest.approx(_cdf(critical, 25, Fraction(1, 3)), abs=1e-9)
    # a clicker that matches more often than the voters agree is never caught by this test, and the table says so
    low = [{**r, "agreement": 0.42} for r in rows]
    assert all(r["random_clicker"] < 0.02 for r in voter_power(low, level, {"A": 0.44, "B": 0.44, "TIE": 0.12,
                                                                           "BOTH_BAD": 0.0}))


def test_a_panel_that_only_ties_uses_one_choice():
    """An outside attack: every vote TIE, and arena.md spoke of a clicker of "the 3 choices voters use"."""
    rows = [{**_row(name, 20, 1.0, None, ties=1.0), "position_votes": 0} for name in ("h1", "h2")]
    row = voter_power(rows, 0.05 / 2, {"A": 0.0, "B": 0.0, "TIE": 1.0, "BOTH_BAD": 0.0})[0]
    assert row["uniform_choices"] == 1 and row["uniform_clicker_agreement"] == 1.0 and row["clicker_agreement"] == 0


def test_always_left_power_is_absent_when_no_vote_records_its_shown_order():
    rows = [{**_row(name, 20, 0.9, None), "position_votes": 0} for name in ("h1", "h2", "h3")]
    assert {row["always_left"] for row in voter_power(rows, 0.05 / 3, DECISIVE)} == {None}


@pytest.mark.slow
def test_arena_md_states_the_power_beside_the_verdict(tmp_path):
    from judgebench.cli.main import main

    demo = Path(__file__).resolve().parents[2] / "tasks" / "demo" / "arena_votes_demo.jsonl"
    assert main(["arena", str(demo), "--output-dir", str(tmp_path / "a"), "--n-resamples", "20"]) == 0
    text = (tmp_path / "a" / "arena.md").read_text()
    assert "Per-annotator tests (Bonferroni level" in text and "| votes per voter | A-or-B clicker flagged |" in text
    assert "not a clean bill" in text


def test_a_voter_caught_by_a_per_annotator_test_alone_is_flagged_and_excluded(tmp_path):
    """A lab walkthrough: arena.md named an always-left voter under "side preference" while flagged.txt (and so
    `freeze --exclude-annotators flagged.txt` and --exclude-flagged) listed the anomaly test's flags only."""
    import json
    import random

    from judgebench.cli.main import main

    rng, rows = random.Random(1), []
    for p in range(24):  # three voters who mostly pick the better model, one who always picks the left side
        a, b = rng.sample(["m1", "m2", "m3", "m4"], 2)
        better, worse = ("A", "B") if a < b else ("B", "A")
        for who in ("h1", "h2", "h3"):
            shown, good = rng.choice(["AB", "BA"]), rng.random() < 0.8
            rows.append({"pair_id": f"p{p}", "annotator": who, "choice": better if good else worse, "model_a": a,
                         "model_b": b, "shown_order": shown})
        shown = rng.choice(["AB", "BA"])
        rows.append({"pair_id": f"p{p}", "annotator": "lefty", "choice": "A" if shown == "AB" else "B", "model_a": a,
                     "model_b": b, "shown_order": shown})
    votes = tmp_path / "votes.jsonl"
    votes.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "a"
    assert main(["arena", str(votes), "--output-dir", str(out), "--n-resamples", "0", "--robustness-repeats", "0",
                 "--no-plots", "--exclude-flagged"]) == 0
    voters = json.loads((out / "arena.json").read_text())["voters"]
    assert [r["annotator"] for r in voters["anomaly"] if r["flagged"]] == []  # the anomaly test alone: nobody
    tests = {t["annotator"]: t["flagged_by"] for t in voters["tests"]["annotators"]}
    assert tests == {"h1": [], "h2": [], "h3": [], "lefty": ["side"]}
    assert voters["flagged"] == ["lefty"] and (out / "flagged.txt").read_text() == "lefty\n"
    assert [r["annotator"] for r in voters["annotators"] if r["flagged"]] == ["lefty"]
    assert json.loads((out / "arena.json").read_text())["config"]["excluded_annotators"] == ["lefty"]
