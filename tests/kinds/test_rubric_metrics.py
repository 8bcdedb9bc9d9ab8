"""Rubric calibration metrics hand-computed on a small table (judgebench.kinds.rubric.metrics / scoring)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from judgebench.kinds.rubric import metrics as m
from judgebench.kinds.rubric.records import Criterion, RubricRecord
from judgebench.kinds.rubric.scoring import (
    BATCH,
    _bootstrap,
    agreement,
    calibration_metrics,
    counts,
    repeat_agreement,
    system_level,
    units,
)
from judgebench.stats.resampling import resample_batches

RUBRIC = [Criterion(id="a", max=2.0), Criterion(id="b", max=1.0)]

# response: model, group, expert (a, b), judge (a, b)
TABLE = {
    "R1": ("m1", "g1", (2.0, 1.0), (2.0, 0.5)),
    "R2": ("m2", "g1", (1.0, 0.0), (2.0, 0.0)),
    "R3": ("m1", "g2", (0.0, 0.0), (0.5, 0.0)),
    "R4": ("m2", "g2", (1.5, 1.0), (1.0, 1.0)),
}


def record(rid: str, judge: tuple[float, float] | None, repeat: int = 0, status: str = "ANSWERED",
           name: str = "j") -> RubricRecord:
    model, group, expert, _ = TABLE[rid]
    scores = None if judge is None else {"a": judge[0], "b": judge[1]}
    return RubricRecord(task="t", item_id=rid, judge=name, repeat=repeat, status=status, rubric=RUBRIC,
                        expert_items={"a": expert[0], "b": expert[1]}, expert_total=sum(expert), model=model,
                        group=group, exam="E", scores=scores, total=None if judge is None else sum(judge))


def table_records() -> list[RubricRecord]:
    return [record(rid, row[3]) for rid, row in TABLE.items()]


def test_item_level_metrics_by_hand():
    u = units(table_records(), "item")
    # item units (judge, expert, max): R1a 2,2,2  R1b .5,1,1  R2a 2,1,2  R2b 0,0,1
    #                                  R3a .5,0,2  R3b 0,0,1  R4a 1,1.5,2  R4b 1,1,1
    # d = judge - expert: 0, -.5, 1, 0, .5, 0, -.5, 0
    figures = m.calibration(u.judge, u.expert, u.top, k=0.5)
    assert figures["mae"] == pytest.approx(2.5 / 8)  # |d| sums to 2.5 over 8 items
    # |d| / max: 0 + .5 + .5 + 0 + .25 + 0 + .25 + 0 = 1.5 over 8
    assert figures["normalized_mae"] == pytest.approx(1.5 / 8)
    assert figures["bias"] == pytest.approx(0.5 / 8)  # d sums to 0.5
    assert figures["within_k"] == pytest.approx(7 / 8)  # only R2a (|d| = 1) is beyond 0.5
    assert figures["over_credit"] == 2  # d >= 0.5: R2a (1.0) and R3a (0.5)
    # Pearson: mean judge 7/8, mean expert 6.5/8; sum dx*dy = 3.3125, sum dx^2 = 4.375, sum dy^2 = 3.96875
    assert figures["pearson"] == pytest.approx(3.3125 / math.sqrt(4.375 * 3.96875))


def test_total_level_metrics_and_rank_correlations_by_hand():
    u = units(table_records(), "total")
    # totals (judge, expert), max 3 each: R1 2.5,3  R2 2,1  R3 .5,0  R4 2,2.5; d = -.5, 1, .5, -.5
    figures = m.calibration(u.judge, u.expert, u.top, k=1.0)
    assert figures["mae"] == pytest.approx(2.5 / 4)
    assert figures["normalized_mae"] == pytest.approx(2.5 / 4 / 3)
    assert figures["bias"] == pytest.approx(0.5 / 4)
    assert figures["within_k"] == 1.0  # every |d| <= 1
    assert figures["over_credit"] == 2  # R2 (+1) and R3 (+.5)
    # Kendall tau-b: pairs (6) 12 C, 13 C, 14 C, 23 C, 24 tied in judge (2 = 2), 34 C -> 5 concordant, 0 discordant;
    # tau_b = (5 - 0) / sqrt((6 - 1) * (6 - 0))
    assert figures["kendall"] == pytest.approx(5 / math.sqrt(30))
    # Spearman: judge ranks 4, 2.5, 1, 2.5; expert ranks 4, 2, 1, 3; centred: (1.5, 0, -1.5, 0), (1.5, -.5, -1.5, .5)
    # rho = 4.5 / sqrt(4.5 * 5)
    assert figures["spearman"] == pytest.approx(4.5 / math.sqrt(4.5 * 5))


def test_correlation_of_a_constant_side_is_none():
    same = np.array([1.0, 1.0, 1.0])
    assert m.pearson(same, np.array([0.0, 1.0, 2.0])) is None
    assert m.kendall(np.array([1.0]), np.array([2.0])) is None


def test_system_level_pass_fail_names_the_worst_pair_and_ranks_models():
    records = table_records()
    # m1/E: judge 2.5 + .5 = 3, expert 3 + 0 = 3 -> 0;  m2/E: judge 2 + 2 = 4, expert 1 + 2.5 = 3.5 -> +.5
    system = system_level(records, k=1.0)
    assert [(p.model, p.judge_total, p.expert_total) for p in system.pairs] == [("m1", 3.0, 3.0), ("m2", 4.0, 3.5)]
    assert system.max_abs_difference == pytest.approx(0.5)
    assert system.passed is True and system.worst_pair == "m2 / E"
    strict = system_level(records, k=0.4)
    assert strict.passed is False and strict.worst_pair == "m2 / E"
    # models ranked by judge (m1 3 < m2 4) and by expert (m1 3 < m2 3.5): the same order
    assert system.rank_spearman == pytest.approx(1.0) and system.rank_kendall == pytest.approx(1.0)


def test_an_unscored_response_is_left_out_of_calibration_and_marks_the_system_level_incomplete():
    records = table_records()
    records[1] = record("R2", None, status="INVALID")
    figures = calibration_metrics(records, k=1.0, n_resamples=0, seed=0)
    # totals without R2: |d| = .5, .5, .5 over 3
    assert figures["total"]["mae"].value == pytest.approx(0.5) and figures["total"]["mae"].n == 3
    assert system_level(records, 1.0).complete is False
    c = counts(records, 4)
    assert (c.answered, c.invalid, c.coverage) == (3, 1, 0.75)


def test_repeat_agreement_over_records_grouped_by_repeat():
    first = table_records()
    second = [record("R1", (2.0, 1.0), 1), record("R2", (2.0, 0.0), 1), record("R3", (0.0, 0.0), 1),
              record("R4", (1.0, 1.0), 1)]
    # items differing between repeats: R1b (.5 vs 1) and R3a (.5 vs 0): exact agreement 6 / 8
    # within-judge normalized MAE: (.5 / 1 + .5 / 2) / 8 = .75 / 8
    agree = repeat_agreement(first + second)
    assert agree["repeats"] == 2 and agree["exact_item_agreement"] == pytest.approx(6 / 8)
    assert agree["normalized_mae"] == pytest.approx(0.75 / 8)
    assert repeat_agreement(first) is None  # one repeat: nothing to agree with
    from judgebench.kinds.rubric.scoring import repeat_agreement_text

    assert repeat_agreement_text(agree) == ("2 repeats (1 pair of them): exact item agreement 0.750, normalized MAE "
                                            "between repeats 0.094 (means over the pairs)")  # (the summary printed a dict)


def test_judge_versus_judge_on_the_items_both_scored():
    other = [record(rid, row[2], name="k") for rid, row in TABLE.items()]  # a judge that grades like the expert
    versus = agreement(table_records(), other)
    assert versus["items"] == 8
    assert versus["normalized_mae"] == pytest.approx(1.5 / 8)  # the first judge's own error against the expert
    assert versus["exact_item_agreement"] == pytest.approx(4 / 8)  # d = 0 on R1a, R2b, R3b, R4b


def test_cluster_bootstrap_equals_a_naive_expanded_sample_bootstrap():
    u = units(table_records(), "item")
    draws = _bootstrap(u, 0.5, 200, seed=3)
    clusters = sorted(set(u.cluster))
    naive = []
    for batch in resample_batches(len(clusters), 200, 3, BATCH):
        for row in batch:
            idx = np.concatenate([[i for i, c in enumerate(u.cluster) if c == clusters[j]] for j in row])
            naive.append(m.calibration(u.judge[idx], u.expert[idx], u.top[idx], 0.5))
    for name in ("normalized_mae", "mae", "bias", "within_k"):
        assert np.allclose(draws[name], [d[name] for d in naive])
    pearson = np.array([np.nan if d["pearson"] is None else d["pearson"] for d in naive])
    assert np.allclose(draws["pearson"], pearson, equal_nan=True)


def test_usage_counts_answers_from_the_cache_and_states_their_share():
    """A rerun from the cache reports what the run costs, as a pairwise run's usage does (it reported $0 and 0
    tokens: cached records were left out); a record without a call (no prompt) or without a reply is not a call."""
    from judgebench.kinds.rubric.scoring import usage

    def call(rid: str, cost: float, cached: bool, tokens: int) -> RubricRecord:
        return record(rid, TABLE[rid][3]).model_copy(update={
            "prompt_hash": "h" + rid, "attempts_raw": ["{}"], "cost_usd": cost, "cached": cached,
            "tokens_in": tokens, "tokens_out": 1, "latency_s": 2.0})

    records = [call("R1", 0.25, False, 10), call("R2", 0.5, True, 20), call("R3", 1.0, True, 30),
               record("R4", TABLE["R4"][3])]  # no call
    u = usage(records)
    assert (u.tokens_in, u.tokens_out, u.priced_calls) == (60, 3, 3)
    assert u.cost_usd == pytest.approx(1.75) and u.cached_calls == 2 and u.cached_cost_usd == pytest.approx(1.5)
    assert u.cost_per_100_calls == pytest.approx(100 * 1.75 / 3) and u.latency_p50_s == 2.0
