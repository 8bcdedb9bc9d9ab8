"""The battle table factorised once (human/arena/coded.py, issue 30): the battles, the voter statistics, the
record counts and matrices and the comparison groups computed from the codes equal the earlier pandas
computations (kept here as references) on the demo votes and on odd tables: repeated votes, ties, Both Bad
under either rule, excluded annotators, self pairs, slices, missing and shared timestamps."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chi2

from judgebench.core.records import LABELS, VERDICT_SCORE
from judgebench.human.arena.battles import aggregate, comparison_groups, make_battles, votes_frame
from judgebench.human.arena.coded import Coded
from judgebench.human.arena.fit import matrices, record_counts
from judgebench.human.arena.synthetic import demo_votes
from judgebench.human.arena.voters import (
    N_CHECKPOINTS,
    annotator_table,
    anomalies,
    checkpoints,
    leave_one_out_majority,
    p_values,
)

# --- the earlier computations (pandas over the string columns), as references ---------------------------------


def old_battles(raw: pd.DataFrame, both_bad: str, exclude: list[str]) -> tuple[pd.DataFrame, dict]:
    from collections import Counter

    dropped: Counter = Counter()
    table = raw.copy()
    repeated = table.duplicated(subset=["pair_id", "annotator"], keep="first")
    dropped["repeated"] += int(repeated.sum())
    table = table[~repeated]
    out = table["annotator"].isin(exclude)
    dropped["excluded"] += int(out.sum())
    table = table[~out]
    same = table["model_a"] == table["model_b"]
    dropped["same"] += int(same.sum())
    table = table[~same]
    bad = table["choice"] == "BOTH_BAD"
    if both_bad == "exclude":
        dropped["bad"] += int(bad.sum())
        table = table[~bad]
    table = table.assign(outcome=table["choice"].map(lambda c: VERDICT_SCORE.get(c, 0.5)).astype(float))
    return table.reset_index(drop=True), {k: v for k, v in dropped.items() if v}


def old_anomalies(table: pd.DataFrame, alpha: float, seed: int) -> list[dict]:
    a, b = table["model_a"].to_numpy(str), table["model_b"].to_numpy(str)
    swap = a > b
    mirror = {"A": "B", "B": "A"}
    choice = table["choice"].to_numpy(dtype=object)
    votes = pd.DataFrame({"annotator": table["annotator"].to_numpy(), "action": np.where(swap, b + "|" + a, a + "|" + b),
                          "value": np.where(swap, [mirror.get(c, c) for c in choice], choice),
                          "time": table["time"].to_numpy(), "order": table["order"].to_numpy()})
    votes["p"] = p_values(votes)
    out = []
    for annotator, mine in votes.groupby("annotator", sort=True):
        mine = mine.sort_values(["time", "order"], na_position="last", kind="stable")
        m = -2 * np.cumsum(np.log(mine["p"].to_numpy()))
        js = checkpoints(str(annotator), len(m), seed)
        ratio = m[js - 1] / chi2.ppf(1 - alpha / N_CHECKPOINTS, 2 * js)
        hit = js[ratio >= 1]
        out.append({"annotator": str(annotator), "votes": len(m), "checkpoints": js.tolist(),
                    "max_ratio": float(ratio.max()), "flagged": bool(len(hit)),
                    "flagged_at": int(hit[0]) if len(hit) else None})
    return out


def old_majority(table: pd.DataFrame) -> pd.Series:
    codes = pd.Categorical(table["choice"], categories=LABELS).codes
    pair, _ = pd.factorize(table["pair_id"])
    annotator, names = pd.factorize(table["annotator"])
    own, _ = pd.factorize(pair.astype(np.int64) * max(len(names), 1) + annotator)
    k = len(LABELS)
    per_pair = np.bincount(pair * k + codes, minlength=(pair.max() + 1) * k).reshape(-1, k)
    per_own = np.bincount(own * k + codes, minlength=(own.max() + 1) * k).reshape(-1, k)
    others = per_pair[pair] - per_own[own]
    top = others.max(axis=1)
    label = np.where((others == top[:, None]).sum(axis=1) == 1, np.array(LABELS, dtype=object)[others.argmax(axis=1)],
                     "TIE")
    return pd.Series(np.where(others.sum(axis=1) > 0, label, None), index=table.index, dtype=object)


def old_annotator_sums(table: pd.DataFrame) -> pd.DataFrame:
    choice, shown = table["choice"], table["shown_order"]
    majority = old_majority(table)
    known = majority.notna()
    decisive = choice.isin(["A", "B"]) & shown.isin(["AB", "BA"])
    left = ((choice == "A") & (shown == "AB")) | ((choice == "B") & (shown == "BA"))
    frame = pd.DataFrame({"annotator": table["annotator"].astype(str), "known": known,
                          "agree": known & (choice == majority), "tie": choice == "TIE",
                          "bad": choice == "BOTH_BAD", "decisive": decisive, "left": left & decisive,
                          "seconds": table["seconds"]})
    return frame.groupby("annotator", sort=True).agg(
        votes=("tie", "size"), compared=("known", "sum"), agree=("agree", "sum"), tie=("tie", "sum"),
        bad=("bad", "sum"), decisive=("decisive", "sum"), left=("left", "sum"), seconds=("seconds", "median"))


def old_record_counts(table: pd.DataFrame) -> pd.DataFrame:
    a, b, y = table["model_a"].to_numpy(), table["model_b"].to_numpy(), table["outcome"].to_numpy()
    g = pd.DataFrame({"model": np.concatenate([a, b]), "score": np.concatenate([y, 1 - y])}).groupby("model")["score"]
    return pd.DataFrame({"battles": g.size(), "wins": g.apply(lambda s: int((s == 1).sum())),
                         "ties": g.apply(lambda s: int((s == 0.5).sum())), "losses": g.apply(lambda s: int((s == 0).sum()))})


def old_matrices(table: pd.DataFrame, models: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    a, b, y = table["model_a"].to_numpy(), table["model_b"].to_numpy(), table["outcome"].to_numpy()
    g = pd.DataFrame({"row": np.concatenate([a, b]), "col": np.concatenate([b, a]),
                      "score": np.concatenate([y, 1 - y])}).groupby(["row", "col"])["score"]
    battles = g.size().unstack().reindex(index=models, columns=models).fillna(0).astype(int)
    wins = g.sum().unstack().reindex(index=models, columns=models)
    with np.errstate(invalid="ignore", divide="ignore"):
        return wins / battles.where(battles > 0), battles


def old_groups(table: pd.DataFrame) -> list[list[str]]:
    parent: dict[str, str] = {}

    def root(m: str) -> str:
        while parent.setdefault(m, m) != m:
            m = parent[m]
        return m

    for a, b in zip(table["model_a"], table["model_b"]):
        parent[root(a)] = root(b)
    groups: dict[str, list[str]] = {}
    for m in parent:
        groups.setdefault(root(m), []).append(m)
    return sorted((sorted(g) for g in groups.values()), key=lambda g: (-len(g), g))


# --- the inputs ---------------------------------------------------------------------------------------------


def odd_raw(seed: int) -> pd.DataFrame:
    """The demo votes with repeated votes, self pairs, Both Bad votes, slices, and timestamps only on some votes
    (several equal), in shuffled order."""
    rng = np.random.default_rng(seed)
    raw, _ = votes_frame(demo_votes(seed, n_pairs=120, planted_votes=40), "demo")
    repeats = raw.sample(25, random_state=seed).assign(choice="BOTH_BAD")  # second votes: dropped
    raw = pd.concat([raw, repeats], ignore_index=True)
    raw.loc[rng.choice(len(raw), 15, replace=False), "model_b"] = raw["model_a"].iloc[0]
    raw.loc[rng.choice(len(raw), 40, replace=False), "choice"] = "BOTH_BAD"
    raw.loc[rng.choice(len(raw), 60, replace=False), "timestamp"] = None
    raw.loc[rng.choice(len(raw), 30, replace=False), "timestamp"] = "2026-11-01T00:00:00Z"
    raw["slice:kind"] = rng.choice(["x", "y", "z"], len(raw))
    raw = raw.sample(frac=1, random_state=seed).reset_index(drop=True)
    raw["order"] = np.arange(1, len(raw) + 1)
    return raw


CASES = [(seed, both_bad, exclude) for seed in (0, 1) for both_bad in ("tie", "exclude")
         for exclude in ([], ["ann-03", "planted-random", "nobody"])]


@pytest.mark.parametrize(("seed", "both_bad", "exclude"), CASES)
def test_the_coded_computations_equal_the_earlier_ones(seed, both_bad, exclude):
    raw = odd_raw(seed)
    battles = make_battles(raw, "odd", both_bad, exclude=exclude)
    table = battles.table
    expected, dropped = old_battles(raw, both_bad, exclude)
    columns = ["pair_id", "annotator", "model_a", "model_b", "choice", "outcome", "order", "slice:kind"]
    pd.testing.assert_frame_equal(table[columns], expected[columns])
    assert list(battles.dropped.values()) == list(dropped.values())  # the same counts, in the same order
    assert battles.excluded_annotators == sorted(set(exclude) & set(raw["annotator"]))

    assert anomalies(table, 0.05, seed) == old_anomalies(table, 0.05, seed)
    old_majority_ = old_majority(table)
    assert leave_one_out_majority(table).tolist() == old_majority_.tolist()
    sums = old_annotator_sums(table)
    rows = annotator_table(table, {"planted-random"})
    assert [r["annotator"] for r in rows] == sums.index.tolist()
    for row, (_, old) in zip(rows, sums.iterrows()):
        assert (row["votes"], row["compared"], row["position_votes"]) == (old["votes"], old["compared"], old["decisive"])
        assert row["agreement"] == (float(old["agree"] / old["compared"]) if old["compared"] else None)
        assert row["tie_rate"] == float(old["tie"] / old["votes"])
        assert row["both_bad_rate"] == float(old["bad"] / old["votes"])
        assert row["left_chosen"] == (float(old["left"] / old["decisive"]) if old["decisive"] else None)

    pd.testing.assert_frame_equal(record_counts(table), old_record_counts(table), check_index_type=False)
    models = sorted(set(table["model_a"]) | set(table["model_b"]))[::-1] + ["never-battled"]
    for new, old in zip(matrices(table, models), old_matrices(table, models)):
        pd.testing.assert_frame_equal(new, old)
    assert comparison_groups(table) == old_groups(table)


@pytest.mark.parametrize("outcomes", [(0.0, 0.5, 1.0), (0.0, 0.25, 0.5, 1.0)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_record_counts_and_matrices_from_the_cells_equal_the_sums_over_the_battles(seed, outcomes):
    # both orientations of each pair and self pairs; an outcome that is no loss, tie or win: the per-battle sums
    rng = np.random.default_rng(seed)
    names = np.array(["m0", "m1", "m2", "m3", "m4"])
    table = pd.DataFrame({"model_a": names[rng.integers(0, 5, 400)], "model_b": names[rng.integers(0, 5, 400)],
                          "outcome": rng.choice(outcomes, 400)})
    assert (table["model_a"] == table["model_b"]).any()
    assert (Coded(table).outcome_counts() is None) == (0.25 in outcomes)  # (5 models: 75 cells for 400 battles)
    pd.testing.assert_frame_equal(record_counts(table), old_record_counts(table), check_index_type=False)
    models = [*names[::-1], "never-battled"]
    for new, old in zip(matrices(table, models), old_matrices(table, models)):
        pd.testing.assert_frame_equal(new, old)


def test_a_few_battles_of_many_models_are_counted_per_battle():
    # a slice of few votes among many models: at 3,000 models a 27,000,000-cell array per call took 0.2 s (found
    # attacking); here 200 battles of 400 models, 480,000 cells
    names = np.array([f"m{i:04d}" for i in range(3000)])
    table = pd.DataFrame({"model_a": names[:200], "model_b": names[200:400], "outcome": np.full(200, 1.0)})
    assert Coded(table).outcome_counts() is None
    pd.testing.assert_frame_equal(record_counts(table), old_record_counts(table), check_index_type=False)


def test_codes_taken_for_a_subset_equal_the_subsets_own():
    raw = odd_raw(2)
    raw["outcome"] = np.random.default_rng(1).choice([0.0, 0.5, 1.0], len(raw))
    coded = Coded(raw)
    coded.compute("models", "annotators", "pairs", "pair_annotators", "choices", "cells")
    keep = np.random.default_rng(0).random(len(raw)) < 0.5
    part = raw[keep].reset_index(drop=True)
    taken, own = coded.subset(keep, part), Coded(part)
    a, b, names = taken.models
    a2, b2, names2 = own.models
    assert np.array_equal(names[a], names2[a2]) and np.array_equal(names[b], names2[b2])
    assert np.array_equal(taken.annotators[1][taken.annotators[0]], own.annotators[1][own.annotators[0]])
    assert np.array_equal(taken.choices[1][taken.choices[0]], own.choices[1][own.choices[0]])
    assert np.array_equal(pd.factorize(taken.pairs)[0], own.pairs)  # the same pairs, first appearance order
    assert np.array_equal(pd.factorize(taken.pair_annotators)[0], own.pair_annotators)
    lo, hi, swap, names = taken.canonical()
    lo2, hi2, swap2, names2 = own.canonical()
    assert np.array_equal(names[lo], names2[lo2]) and np.array_equal(names[hi], names2[hi2])
    assert np.array_equal(swap, swap2)
    pair, outcome = np.divmod(taken.cells, 3)
    pair2, outcome2 = np.divmod(own.cells, 3)
    assert np.array_equal(outcome, outcome2)
    assert np.array_equal(names[pair // len(names)], names2[pair2 // len(names2)])
    assert np.array_equal(names[pair % len(names)], names2[pair2 % len(names2)])


def test_with_one_vote_per_pair_the_pair_codes_are_the_pair_annotator_codes():
    for raw in (odd_raw(3), odd_raw(3).drop_duplicates("pair_id").reset_index(drop=True)):
        coded = Coded(raw)
        annotator, names = coded.annotators
        expected, _ = pd.factorize(coded.pairs * len(names) + annotator)
        assert np.array_equal(coded.pair_annotators, expected)


def old_aggregate(table: pd.DataFrame) -> pd.DataFrame:
    """Battles as counts per (sorted pair, outcome) by a groupby over the canonical names."""
    swap = table["model_a"].to_numpy(dtype=str) > table["model_b"].to_numpy(dtype=str)
    y = table["outcome"].to_numpy()
    frame = pd.DataFrame({"model_a": np.where(swap, table["model_b"], table["model_a"]),
                          "model_b": np.where(swap, table["model_a"], table["model_b"]),
                          "outcome": np.where(swap, 1.0 - y, y)})
    return frame.groupby(["model_a", "model_b", "outcome"], sort=True).size().rename("count").reset_index()


@pytest.mark.parametrize(("seed", "both_bad", "exclude"), CASES)
def test_counting_the_cells_aggregates_as_the_groupby_did(seed, both_bad, exclude):
    """aggregate's counts of battle cells (issue 30: the groupby took 0.4 s at 2,000,000 votes) are the groupby's
    rows in its sorted order, with its dtypes; with features or extra columns the groupby still runs."""
    table = make_battles(odd_raw(seed), "odd", both_bad, exclude=exclude).table
    new, old = aggregate(table), old_aggregate(table)
    pd.testing.assert_frame_equal(new.astype({"model_a": object, "model_b": object}),
                                  old.astype({"model_a": object, "model_b": object}))
    assert new["count"].dtype == np.int64 and new["outcome"].dtype == np.float64
    grouped = aggregate(table, features=pd.DataFrame(index=table.index))  # no feature columns: the groupby path
    pd.testing.assert_frame_equal(new, grouped)
    judge = np.where(np.arange(len(table)) % 3 == 0, np.nan, table["outcome"].to_numpy())
    assert aggregate(table, extra={"judge": judge})["count"].sum() == len(table)


def test_one_vote_per_pair_has_no_leave_one_out_majority_as_before():
    """Every pair voted once (an arena's battles): the shortcut (nobody else voted) equals the earlier counts."""
    raw = odd_raw(3)
    raw = raw.assign(pair_id=[f"battle-{i}" for i in range(len(raw))])
    table = make_battles(raw, "odd", "tie").table
    coded = Coded(table)
    assert coded.one_vote_per_pair()  # the shortcut's case
    assert leave_one_out_majority(table, coded).tolist() == old_majority(table).tolist()
    assert set(leave_one_out_majority(table).tolist()) == {None}


def test_the_votes_time_order_is_the_lexsort_of_annotator_time_and_file_order():
    """voters._time_order: one radix sort of the annotator codes when there are no times and the votes are in file
    order (0.13 -> 0.01 s at 2,000,000 votes); the lexsort otherwise (times, shuffled order, 70,000 annotators)."""
    from judgebench.human.arena.voters import _time_order

    rng = np.random.default_rng(0)
    for case in range(40):
        n = int(rng.integers(1, 3000))
        people = 70_000 if case % 10 == 9 else int(rng.integers(1, 50))
        annotator = rng.integers(0, people, n)
        time = np.full(n, np.nan) if case % 2 else np.where(rng.random(n) < 0.3, np.nan, rng.integers(0, 20, n) * 1.0)
        order = np.arange(1, n + 1) if case % 4 < 2 else rng.permutation(n) + 1
        assert np.array_equal(_time_order(annotator, time, order), np.lexsort((order, time, annotator)))


def arrow_strings(values: list[str], *, large: bool = False, chunks: int = 1, offset: int = 0) -> pd.Series:
    """`values` as an Arrow-backed string column: in `chunks` chunks, each a slice of a longer array (starting
    `offset` values in: a slice's bytes lie inside its parent's data buffer)."""
    import pyarrow as pa

    kind = pa.large_string() if large else pa.string()
    bounds = np.linspace(0, len(values), chunks + 1).astype(int)
    parts = [pa.array(["pad"] * offset + values[lo:hi] + ["pad"], type=kind).slice(offset, hi - lo)
             for lo, hi in zip(bounds[:-1], bounds[1:])]
    array = pd.arrays.ArrowStringArray(pa.chunked_array(parts, type=kind))
    return pd.Series(array, dtype=pd.StringDtype("pyarrow", na_value=np.nan))


STRING_CASES = [
    ["p1", "p2", "p3"],
    ["p1", "p2", "p1"],  # repeated
    ["", "a", "a\0"],  # the empty string; one value the other's bytes and a NUL
    ["a", "a\0", "a"],
    ["x" * 8, "x" * 8 + "y", "x" * 16, "x" * 15 + "y", "x" * 17],  # differing only past the first 8 bytes
    ["same-prefix-" + "z" * 30 + "1", "same-prefix-" + "z" * 30 + "2"],
    ["same-prefix-" + "z" * 30 + "1", "same-prefix-" + "z" * 30 + "1"],
    ["é", "e\u0301", "日本", "日本語", "🙂"],  # multi-byte UTF-8, one composed and one decomposed
    [f"pair-{i}" for i in range(5000)],
    [f"pair-{i % 4999}" for i in range(5000)],  # the last one repeats the first
    ["abc", "a-value-longer-than-one-word", "abc", "x", "y", "z"],  # a repeat in chunks of different longest values
    ["x" * 9, "y" * 40, "p", "q", "p", "r"],
]


@pytest.mark.parametrize("values", STRING_CASES)
@pytest.mark.parametrize(("large", "chunks", "offset"), [(False, 1, 0), (True, 1, 0), (False, 3, 5), (True, 2, 7)])
def test_the_pair_hash_says_distinct_exactly_when_the_values_are(values, large, chunks, offset):
    """`Coded.pairs` numbers the votes in order without a hash table when `_distinct_strings` says every pair id
    differs (issue 30): never for repeated values, whatever the chunking, slicing and string width."""
    from judgebench.human.arena.coded import _distinct_strings

    column = arrow_strings(values, large=large, chunks=min(chunks, len(values)), offset=offset)
    assert column.tolist() == values  # the column is what it should be
    assert _distinct_strings(column) == (len(set(values)) == len(values))
    codes = Coded(pd.DataFrame({"pair_id": column})).pairs
    assert np.array_equal(codes, pd.factorize(np.array(values, dtype=object))[0])


def test_a_values_hash_is_its_own_whatever_its_neighbours():
    """Each value's hash is a function of its bytes alone: the same alone, beside longer or shorter values, and at
    any offset in a sliced chunk (a hash that mixed a round per 8 bytes of the chunk's longest value gave the
    same id in two chunks two hashes, and a repeated pair id was taken for distinct)."""
    import pyarrow as pa

    from judgebench.human.arena.coded import _string_hashes

    values = ["", "a", "abc", "x" * 8, "x" * 9, "é" * 7, "z" * 40]
    alone = {v: int(_string_hashes(pa.array([v]), pa)[0]) for v in values}
    for neighbours in ([], ["q" * 200], ["w" * 17, ""], ["pad"] * 3):
        for offset in (0, 2):
            chunk = pa.array(["o"] * offset + neighbours + values).slice(offset)
            hashes = _string_hashes(chunk, pa)[len(neighbours):]
            assert [int(h) for h in hashes] == [alone[v] for v in values]
    assert len(set(alone.values())) == len(values)


def test_the_pair_hash_is_not_used_where_it_cannot_be():
    """Columns not held by Arrow, or with a missing id, are factorised (a missing id is a pair of its own)."""
    from judgebench.human.arena.coded import _distinct_strings

    assert not _distinct_strings(pd.Series(["a", "b"], dtype=object))
    with_missing = arrow_strings(["a", "b", "c"])
    with_missing.iloc[1] = np.nan
    assert not _distinct_strings(with_missing)
    assert Coded(pd.DataFrame({"pair_id": with_missing})).pairs.tolist() == [0, 1, 2]
    assert _distinct_strings(arrow_strings([])) and Coded(pd.DataFrame({"pair_id": arrow_strings([])})).pairs.tolist() == []


def test_a_pair_id_longer_than_the_hashed_length_is_factorised():
    """The hash reads a value 8 bytes a round: a column holding a value past _LONGEST_HASHED bytes (one 1 MB id in a
    file) is factorised instead, whatever its chunking, with the same codes."""
    from judgebench.human.arena.coded import _LONGEST_HASHED, _distinct_strings

    values = [f"p{i}" for i in range(50)]
    for long_value in ("x" * _LONGEST_HASHED, "x" * (_LONGEST_HASHED + 1), "y" * 1_000_000):
        column = arrow_strings([*values, long_value], chunks=3)
        assert _distinct_strings(column) == (len(long_value) <= _LONGEST_HASHED)
        assert Coded(pd.DataFrame({"pair_id": column})).pairs.tolist() == list(range(51))


def test_the_pair_hash_reads_only_offsets_and_bytes():
    """An Arrow string held otherwise (a string view, whose buffers are not offsets) is never hashed: the column is
    factorised."""
    import pyarrow as pa

    from judgebench.human.arena.coded import _string_hashes

    assert _string_hashes(pa.array(["a", "a"], type=pa.string_view()), pa) is None
    assert len(_string_hashes(pa.array(["a", "a"], type=pa.string()), pa)) == 2
