"""Voter quality: anomalous voters (SciArena App. A.5, after Chatbot Arena) and a per-annotator table.

Anomaly test. An action is a model pair (put in sorted order, the vote mirrored). For annotator u's
i-th vote y on action a, the history H is every other annotator's votes on a, and

    p_i = (#{h in H : h >= y} + 1) / (|H| + 1),      M_j = -2 * sum_{i <= j} log p_i,

and u is flagged when M_j >= the chi-square quantile with 2j degrees of freedom at 1 - alpha/5 at any
of five checkpoints j drawn at random (seeded per annotator) from 1..n_u, the votes taken in time
order (file order when no timestamps). "h >= y" orders votes by how unusual they are on that action:
h >= y when h's outcome is at most as frequent in H as y's (a conformal p-value with the
nonconformity score "rarity of the outcome"). The numeric order A > TIE > B would make the test
one-sided: a voter who picks at random, or always the left side, would only be caught on half the
pairs and, with 85/15 honest splits, stays below the chi-square bar (about 1.0 per vote against
the 2 per vote needed). docs/guide/arena.md works the numbers.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import pandas as pd

from judgebench.core.records import LABELS
from judgebench.human.arena.coded import Coded
from judgebench.human.arena.defaults import DEFAULT_ALPHA  # noqa: F401 (re-exported)

N_CHECKPOINTS = 5
_MIRROR = {"A": "B", "B": "A"}


def action_values(table: pd.DataFrame, coded: Coded | None = None) -> pd.DataFrame:
    """annotator, action (sorted pair), value (the vote's label on the sorted pair), time, order: the keys as
    integer codes (`coded`: the table's, when the caller has them); a missing choice's value is NaN."""
    coded = coded if coded is not None else Coded(table)
    lo, hi, swap, names = coded.canonical()
    choice, labels = coded.choices
    labels = list(labels)
    labels += [m for m in (_MIRROR.get(c, c) for c in labels) if m not in labels]  # a mirror no vote chose
    mirror = np.array([labels.index(_MIRROR.get(c, c)) for c in labels], dtype=np.int64)
    value = np.where(swap & (choice >= 0), mirror[choice], choice)
    return pd.DataFrame({"annotator": coded.annotators[0], "action": lo * len(names) + hi,
                         "value": np.where(choice >= 0, value, np.nan) if (choice < 0).any() else value,
                         "time": table["time"].to_numpy(), "order": table["order"].to_numpy()},
                        copy=False)  # columns kept apart: joining the int and float columns into 2-D blocks copied
    # 2,000,000 values five times (0.3 s at 2,000,000 votes)


def p_values(votes: pd.DataFrame) -> np.ndarray:
    """Per vote, the p-value against the other annotators' votes on the same action."""
    if len(votes) and not any(votes[c].isna().any() for c in ("annotator", "action", "value")):  # (column by
        # column: the three as one frame were first joined into a 2-D block, 0.05-0.1 s at 2,000,000 votes)
        return _p_values_counted(votes)
    return _p_values_merged(votes)


def _p_values_counted(votes: pd.DataFrame) -> np.ndarray:
    """`_p_values_merged` by counting arrays (issue 30: the merges took seconds at millions of votes): per vote
    and outcome h, n_h = the action's votes for h less the annotator's own; the p-value sums the n_h no larger
    than n_y (y the vote's own outcome). An outcome no vote on the action took adds 0 to either sum, so every
    outcome is counted; the sums are integers, so the result is the same to the bit. One outcome column at a
    time, in int32 while the counts fit (a third of the memory traffic of the votes x outcomes table)."""
    action, annotator, value = (_compact(votes[c]) for c in ("action", "annotator", "value"))
    k, n_actions = int(value.max()) + 1, int(action.max()) + 1
    mine = _pair_codes(annotator, action, n_actions)
    kind = np.int32 if len(votes) < 2**31 else np.int64
    total = np.bincount(action * k + value, minlength=n_actions * k).astype(kind).reshape(n_actions, k)
    own = np.bincount(mine * k + value, minlength=(int(mine.max()) + 1) * k).astype(kind).reshape(-1, k)
    n_y = total.ravel()[action * k + value] - own.ravel()[mine * k + value]
    size, at_least = np.zeros(len(votes), dtype=np.int64), np.zeros(len(votes), dtype=np.int64)
    for h in range(k):
        n_h = total[:, h][action] - own[:, h][mine]
        size += n_h
        at_least += np.where(n_h <= n_y, n_h, 0)
    return (at_least + 1) / (size + 1)


def _pair_codes(first: np.ndarray, second: np.ndarray, n_second: int) -> np.ndarray:
    """A code per distinct (first, second) of two small non-negative code arrays (which rows share one is all
    that is used): numbered through a dense table when the key space is small, else factorised."""
    key = first.astype(np.int64) * n_second + second
    space = (int(first.max()) + 1) * n_second
    if space > 4 * len(key):
        return pd.factorize(key)[0]
    seen = np.zeros(space, dtype=bool)
    seen[key] = True
    codes = np.cumsum(seen, dtype=np.int32 if space < 2**31 else np.int64)  # (half the fresh memory of int64)
    codes -= 1
    return codes[key].astype(np.int64, copy=False)


def _compact(column: pd.Series) -> np.ndarray:
    """The column as codes 0..n-1 for counting: small non-negative ints (action_values' codes) as they are (only
    which votes share a key matters), anything else factorised."""
    values = column.to_numpy()
    if values.dtype.kind in "iu" and len(values) and values.min() >= 0 and values.max() < 4 * len(values):
        return values.astype(np.int64, copy=False)
    return pd.factorize(column)[0]


def _p_values_merged(votes: pd.DataFrame) -> np.ndarray:
    """The p-values by merging the group counts (any table, missing keys included)."""
    total = votes.groupby(["action", "value"]).size().rename("total")
    own = votes.groupby(["annotator", "action", "value"]).size().rename("own")
    # history counts for every (vote, candidate outcome h) on the vote's action
    cand = votes[["annotator", "action", "value"]].reset_index(names="vote")
    hist = cand.merge(total.reset_index().rename(columns={"value": "h"}), on="action")
    hist = hist.merge(own.reset_index().rename(columns={"value": "h"}), on=["annotator", "action", "h"], how="left")
    hist["n_h"] = hist["total"] - hist["own"].fillna(0)
    n_y = hist.loc[hist["h"] == hist["value"], ["vote", "n_h"]].set_index("vote")["n_h"]
    hist["n_y"] = hist["vote"].map(n_y).fillna(0)
    size = hist.groupby("vote")["n_h"].sum()
    at_least = hist[hist["n_h"] <= hist["n_y"]].groupby("vote")["n_h"].sum()
    size = size.reindex(votes.index.rename(None), fill_value=0).to_numpy()
    at_least = at_least.reindex(votes.index, fill_value=0).to_numpy()
    return (at_least + 1) / (size + 1)


def checkpoints(annotator: str, n: int, seed: int) -> np.ndarray:
    """Five checkpoints j in 1..n (all of them when n <= 5), seeded by the seed and the name."""
    rng = np.random.default_rng([seed, zlib.crc32(annotator.encode("utf-8"))])
    return np.sort(rng.choice(np.arange(1, n + 1), size=min(N_CHECKPOINTS, n), replace=False))


def anomalies(table: pd.DataFrame, alpha: float = DEFAULT_ALPHA, seed: int = 0,
              coded: Coded | None = None) -> list[dict[str, Any]]:
    """Per annotator: votes, checkpoints, the largest M_j / threshold, flagged. Each annotator's votes in time
    order (file order among equal or missing times) come from one sort of every vote."""
    from scipy.stats import chi2  # here: `arena` runs the voter checks in a child, which imports it (0.5 s)

    coded = coded if coded is not None else Coded(table)
    votes = action_values(table, coded)
    p = p_values(votes)
    annotator, names = coded.annotators
    order = _time_order(annotator, votes["time"].to_numpy(), votes["order"].to_numpy())
    starts = np.searchsorted(annotator[order], np.arange(len(names) + 1))
    log_p = np.log(p[order])
    voted = [code for code in range(len(names)) if starts[code] < starts[code + 1]]  # (all dropped: none)
    js_of = [checkpoints(str(names[code]), int(starts[code + 1] - starts[code]), seed) for code in voted]
    every_js = np.concatenate(js_of) if js_of else np.zeros(0, dtype=np.int64)
    bars_of = np.split(chi2.ppf(1 - alpha / N_CHECKPOINTS, 2 * every_js),  # one call for all (elementwise: the
                       np.cumsum([len(js) for js in js_of])[:-1])  # same values as a call per annotator)
    out = []
    for code, js, bars in zip(voted, js_of, bars_of):
        name = names[code]
        m = 0.0 - 2 * np.cumsum(log_p[starts[code]:starts[code + 1]])  # (0.0 -: no -0.0 from votes of p = 1)
        ratio = m[js - 1] / bars
        hit = js[ratio >= 1]
        out.append({"annotator": str(name), "votes": len(m), "checkpoints": js.tolist(),
                    "max_ratio": float(ratio.max()), "flagged": bool(len(hit)),
                    "flagged_at": int(hit[0]) if len(hit) else None})
    return out


def _time_order(annotator: np.ndarray, time: np.ndarray, order: np.ndarray) -> np.ndarray:
    """The votes sorted by annotator, then time (NaN last), then file order: without times and with the votes in
    file order, one stable sort of the annotator codes (a radix sort when they fit 16 bits: 0.13 -> 0.01 s at
    2,000,000 votes)."""
    if len(order) and np.isnan(time).all() and (order[1:] > order[:-1]).all() and annotator.max() < 2**16:
        return np.argsort(annotator.astype(np.uint16), kind="stable")
    return np.lexsort((order, time, annotator))


def annotator_table(table: pd.DataFrame, flagged: set[str], coded: Coded | None = None,
                    majority: np.ndarray | None = None) -> list[dict[str, Any]]:
    """Per annotator: votes, agreement with the majority of the other annotators' votes on the same
    pairs, tie and Both Bad rates, position preference, median seconds per vote, flagged.
    Counted per annotator code (`np.bincount`), so it scales to millions of votes. `majority`: the votes'
    majority_codes when the caller has them."""
    coded = coded if coded is not None else Coded(table)
    annotator, names = coded.annotators
    majority = majority if majority is not None else majority_codes(coded)
    choice = _label_codes(coded)
    shown = table["shown_order"]
    a, b, tie, both_bad = (LABELS.index(label) for label in ("A", "B", "TIE", "BOTH_BAD"))
    if shown.isna().all():  # never recorded (comparing millions of Nones to a string: 0.05 s)
        ab = ba = np.zeros(len(shown), dtype=bool)
    else:
        ab, ba = (shown == "AB").to_numpy(), (shown == "BA").to_numpy()
    decisive = ((choice == a) | (choice == b)) & (ab | ba)  # shown in a known order
    left = ((choice == a) & ab) | ((choice == b) & ba)

    def total(mask: np.ndarray | None = None) -> np.ndarray:
        return np.bincount(annotator, weights=mask, minlength=len(names)).astype(np.int64)

    known = majority >= 0
    votes, compared, agree = total(), total(known), total(known & (choice == majority))
    ties, bad, shown_known, lefts = total(choice == tie), total(choice == both_bad), total(decisive), total(left & decisive)
    medians = pd.Series(table["seconds"].to_numpy(dtype=float)).groupby(annotator).median()
    gaps = _timestamp_gaps(table)
    rows = []
    for code in np.flatnonzero(votes):
        name = str(names[code])
        seconds = medians.get(code, np.nan)
        seconds = seconds if pd.notna(seconds) else gaps.get(name)
        rows.append({
            "annotator": name, "votes": int(votes[code]), "compared": int(compared[code]),
            "agreement": _ratio(agree[code], compared[code]), "tie_rate": _ratio(ties[code], votes[code]),
            "both_bad_rate": _ratio(bad[code], votes[code]), "position_votes": int(shown_known[code]),
            "left_chosen": _ratio(lefts[code], shown_known[code]),
            "median_seconds": None if seconds is None or pd.isna(seconds) else float(seconds),
            "flagged": name in flagged,
        })
    return rows


def leave_one_out_majority(table: pd.DataFrame, coded: Coded | None = None) -> pd.Series:
    """For each vote, votes.majority_label of the other annotators' votes on its pair (a shared top
    count is TIE); NaN when nobody else voted on the pair."""
    majority = majority_codes(coded if coded is not None else Coded(table))
    labels = np.array([*LABELS, None], dtype=object)
    return pd.Series(labels[majority], index=table.index, dtype=object)  # -1: the None at the end


def _label_codes(coded: Coded) -> np.ndarray:
    """Each vote's choice as its index in LABELS (-1: another value or none)."""
    choice, labels = coded.choices
    index = np.array([LABELS.index(c) if c in LABELS else -1 for c in labels] + [-1], dtype=np.int64)
    return index[choice]  # a missing choice (-1) takes the -1 at the end


def majority_shares(majority: np.ndarray) -> dict[str, float]:
    """The share of each label among the others' majorities (majority_codes) of the votes that have one: what a
    clicker ignoring the pair matches, whichever labels it clicks (empty when no vote has one)."""
    known = majority[majority >= 0]
    counts = np.bincount(known, minlength=len(LABELS))
    return {label: float(counts[i] / len(known)) for i, label in enumerate(LABELS)} if len(known) else {}


def majority_codes(coded: Coded) -> np.ndarray:
    """leave_one_out_majority as an index in LABELS (-1: nobody else voted on the pair). Counts per (pair,
    label) minus the annotator's own counts on that pair."""
    pair, own = coded.pairs, coded.pair_annotators
    if coded.one_vote_per_pair():  # nobody else voted on any pair (two bincounts of every vote: 0.2 s at 2,000,000)
        return np.full(len(pair), -1, dtype=np.int64)
    codes = _label_codes(coded)
    n_labels = len(LABELS)
    counted = codes >= 0  # a choice outside LABELS is no label's count (as pd.Categorical left it)
    per_pair = np.bincount(pair[counted] * n_labels + codes[counted],
                           minlength=(int(pair.max(initial=-1)) + 1) * n_labels).reshape(-1, n_labels)
    per_own = np.bincount(own[counted] * n_labels + codes[counted],
                          minlength=(int(own.max(initial=-1)) + 1) * n_labels).reshape(-1, n_labels)
    shared = np.flatnonzero(per_pair.sum(axis=1)[pair] > per_own.sum(axis=1)[own])  # others voted on the pair
    others = per_pair[pair[shared]] - per_own[own[shared]]  # (an arena's battles: one vote per pair, none)
    top = others.max(axis=1, initial=0)
    leaders = (others == top[:, None]).sum(axis=1)
    majority = np.full(len(pair), -1, dtype=np.int64)
    majority[shared] = np.where(leaders == 1, others.argmax(axis=1), LABELS.index("TIE"))
    return majority


def _timestamp_gaps(table: pd.DataFrame) -> dict[str, float]:
    """Per annotator, the median gap between consecutive timestamps (where there are two or more)."""
    timed = table.loc[table["time"].notna(), ["annotator", "time"]].sort_values(["annotator", "time"], kind="stable")
    gaps = timed.groupby("annotator")["time"].diff()
    return timed.assign(gap=gaps).groupby("annotator")["gap"].median().dropna().to_dict()


def _ratio(num: float, den: float) -> float | None:
    return float(num / den) if den else None


# Voter checks with power on the per-annotator evidence (beside SciArena's anomaly test, which keeps its
# definition): an annotator's agreement with the others' majority against the other annotators' pooled rate
# (one-sided binomial, low), and the share of left votes against 1/2 (two-sided binomial); Bonferroni over the
# annotators. Their power at this data's size is exact (binomial), for three planted voters: a random A-or-B
# clicker (never TIE or Both Bad: the demo's planted-random), a uniform clicker over the k choices the data's votes
# use, and an always-left voter. A clicker matches the others' majority as often as the majorities are of the labels
# it clicks (majority_shares), not 1/k: with ties among the majorities, an A-or-B clicker matches less than 1/2.
POWER_VOTES = (25, 50, 100, 200, 400)


def voter_tests(rows: list[dict[str, Any]], alpha: float, shares: dict[str, float]) -> dict[str, Any]:
    """Per annotator (annotator_table rows): the agreement and side tests' p-values and flags; the honest rate
    each is tested against; and their power at POWER_VOTES and at the median votes per annotator (`shares`: the
    others' majorities' label shares, majority_shares)."""
    from scipy.stats import binom, binomtest

    level = alpha / max(len(rows), 1)
    rated = [r for r in rows if r["agreement"] is not None]
    total_n = sum(r["compared"] for r in rated)
    total_agree = sum(r["agreement"] * r["compared"] for r in rated)
    tests = []
    for row in rows:
        own = row["agreement"] is not None  # the others' pooled rate: the totals less this annotator's own
        agree_n = total_n - (row["compared"] if own else 0)
        base = (total_agree - (row["agreement"] * row["compared"] if own else 0)) / agree_n if agree_n else None
        agree_p = (float(binom.cdf(round(row["agreement"] * row["compared"]), row["compared"], base))
                   if base is not None and row["compared"] and row["agreement"] is not None else None)
        side_p = (float(binomtest(round(row["left_chosen"] * row["position_votes"]), row["position_votes"]).pvalue)
                  if row["position_votes"] and row["left_chosen"] is not None else None)
        flags = [name for name, p in (("agreement", agree_p), ("side", side_p)) if p is not None and p < level]
        tests.append({"annotator": row["annotator"], "agreement_p": agree_p, "honest_agreement": base,
                      "side_p": side_p, "flagged_by": flags})
    return {"level": level, "annotators": tests, "power": voter_power(rows, level, shares)}


def voter_power(rows: list[dict[str, Any]], level: float, shares: dict[str, float]) -> list[dict[str, Any]]:
    """Exact power of the two tests against the planted voters, at POWER_VOTES and the data's median votes. The
    always-left voter's is None when no vote records its shown order (the side test cannot run)."""
    from scipy.stats import binom

    compared = sum(r["compared"] for r in rows if r["agreement"] is not None)
    if not compared or not shares:
        return []
    honest = sum(r["agreement"] * r["compared"] for r in rows if r["agreement"] is not None) / compared
    decisive = any((r.get("tie_rate") or 0) + (r.get("both_bad_rate") or 0) < 1 for r in rows)
    used = (["A", "B"] if decisive else []) + [label for label, rate in (("TIE", "tie_rate"),
                                                                          ("BOTH_BAD", "both_bad_rate"))
                                               if any(r.get(rate) for r in rows)]  # (all TIE: "3 choices" said)
    clickers = {"random_clicker": (shares["A"] + shares["B"]) / 2,  # A or B, each half the time
                "uniform_clicker": sum(shares[label] for label in used) / len(used)}
    sided = any(r["position_votes"] for r in rows)
    sizes = sorted({*POWER_VOTES, int(np.median([r["votes"] for r in rows]))} - {0})
    out = []
    for n in sizes:
        critical = int(binom.ppf(level, n, honest))  # largest k with P(X <= k) <= level, found below
        while critical >= 0 and binom.cdf(critical, n, honest) > level:
            critical -= 1
        row: dict[str, Any] = {"votes": n}
        for name, rate in clickers.items():
            row[name] = float(binom.cdf(critical, n, rate)) if critical >= 0 else 0.0
        row["always_left"] = (1.0 if 2 * 0.5**n < level else 0.0) if sided else None  # all n decisive votes left
        out.append({**row, "honest_agreement": honest, "clicker_agreement": clickers["random_clicker"],
                    "uniform_clicker_agreement": clickers["uniform_clicker"], "uniform_choices": len(used)})
    return out
