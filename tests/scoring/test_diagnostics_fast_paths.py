"""The diagnostics' per-example loops replaced by array operations give what the loops gave, bit for bit:
the outcomes read from the table's codes, the comparable-strength mask, the confidence columns of runs
without confidences or votes, and the compact columns of masks."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from judgebench.core.records import VERDICT_SCORE, JudgmentRecord, swap_verdict
from judgebench.scoring import diagnostics as D
from judgebench.scoring.judgment_table import dimension_table, extract
from judgebench.stats.ratio_bootstrap import compact


def _records(seed: int, n: int = 300) -> list[JudgmentRecord]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        label = rng.choice(["A", "B", "TIE", "BOTH_BAD"])
        names = rng.choice([("m1", "m2"), ("m2", "m3"), ("m3", "m3"), (None, "m1"), (None, None), ("m4", "m1")])
        for order in ("AB", "BA"):
            verdict = rng.choice(["A", "B", "TIE", None])
            out.append(JudgmentRecord(
                task="t", example_id=f"e{i}", dimension="overall", order=order, judge="j", prompt_hash="h",
                status="ANSWERED" if verdict else rng.choice(["INVALID", "FAILED"]), verdict=verdict,
                verdict_shown=verdict if order == "AB" else swap_verdict(verdict), label=label,
                model_a=names[0], model_b=names[1], length_a=rng.randint(1, 50), length_b=rng.randint(1, 50),
            ))
    return out


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("both_bad", ["tie", "exclude"])
def test_outcomes_from_codes_equal_the_lookups(seed, both_bad):
    table = dimension_table(_records(seed), "overall", both_bad)
    human = np.array([VERDICT_SCORE[x] for x in table.cols["label"]], dtype=float)
    assert np.array_equal(D._label_outcomes(table), human)
    for order in table.orders:
        loop = np.array([VERDICT_SCORE[v] if v else np.nan for v in table.cols[f"verdict_{order.lower()}"]])
        assert np.array_equal(D._verdict_outcomes(table, order), loop, equal_nan=True)


def _comparable_loop(facts, human_elo):
    """The per-example loop `_comparable` was."""
    a, b = facts.col("model_a"), facts.col("model_b")
    gap = np.array([0.0 if x == y and x is not None
                    else abs(human_elo[x] - human_elo[y]) if x in human_elo and y in human_elo
                    else math.inf for x, y in zip(a, b)])
    return gap <= D.MAX_ELO_GAP


@pytest.mark.parametrize("seed", range(4))
def test_comparable_equals_the_loop(seed):
    facts = D._facts(_records(seed), "overall", "tie")
    rng = random.Random(seed)
    for elo in ({"m1": 1000.0, "m2": 1099.9999999999999, "m3": 1100.0},  # m4 unrated; gaps around 100
                {"m1": 1000.0, "m2": 1000.0 + rng.uniform(0, 200), "m3": math.nan, "m4": math.inf},
                {}):
        assert np.array_equal(D._comparable(facts, elo), _comparable_loop(facts, elo))
    mask, skip = D._comparable_strength(facts)
    human_elo, _ = D._human_ratings(facts)
    assert skip is None and np.array_equal(mask, _comparable_loop(facts, human_elo))


def test_confidence_columns_of_a_run_without_confidences_or_votes():
    records = _records(0, 50)
    by_key = {(r.example_id, r.order): r for r in records}
    plain = extract(by_key).confidence
    assert all(np.isnan(plain[c]).all() for c in ("conf_a", "conf_tie", "conf_b", "vote_share_a"))
    assert not plain["n_annotators"].any()
    first = records[0].model_copy(update={"confidence": {"A": 0.75, "B": 0.25}})  # one given: the loop runs
    given = extract({**by_key, (first.example_id, first.order): first}).confidence
    assert given["conf_a"][0] == 0.75 and np.isnan(given["conf_a"][1:]).all()


def test_compact_masks_as_the_general_path_does():
    rng = np.random.default_rng(0)
    for mask in (rng.random(1000) < 0.3, np.zeros(0, dtype=bool), np.ones(7, dtype=bool)):
        fast, general = compact(mask), compact(mask.astype(float))
        assert fast.dtype == general.dtype == np.float16 and np.array_equal(fast, general)
