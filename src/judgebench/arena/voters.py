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
the 2 per vote needed). docs/arena.md works the numbers.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import chi2

from ..votes import majority_label
from .battles import canonical
from .defaults import DEFAULT_ALPHA  # noqa: F401 (re-exported)

N_CHECKPOINTS = 5
_MIRROR = {"A": "B", "B": "A"}


def action_values(table: pd.DataFrame) -> pd.DataFrame:
    """annotator, action (sorted pair), value (the vote's label on the sorted pair), time, order."""
    a, b, swap = canonical(table)
    choice = table["choice"].to_numpy(dtype=object)
    value = np.where(swap, [_MIRROR.get(c, c) for c in choice], choice)
    return pd.DataFrame({"annotator": table["annotator"].to_numpy(), "action": np.char.add(np.char.add(a, "\x1f"), b),
                         "value": value, "time": table["time"].to_numpy(), "order": table["order"].to_numpy()})


def p_values(votes: pd.DataFrame) -> np.ndarray:
    """Per vote, the p-value against the other annotators' votes on the same action."""
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


def anomalies(table: pd.DataFrame, alpha: float = DEFAULT_ALPHA, seed: int = 0) -> list[dict[str, Any]]:
    """Per annotator: votes, checkpoints, the largest M_j / threshold, flagged."""
    votes = action_values(table).reset_index(drop=True)
    votes["p"] = p_values(votes)
    out = []
    for annotator, mine in votes.groupby("annotator", sort=True):
        mine = mine.sort_values(["time", "order"], na_position="last", kind="stable")
        m = -2 * np.cumsum(np.log(mine["p"].to_numpy()))
        js = checkpoints(str(annotator), len(m), seed)
        bars = chi2.ppf(1 - alpha / N_CHECKPOINTS, 2 * js)
        ratio = m[js - 1] / bars
        hit = js[ratio >= 1]
        out.append({"annotator": str(annotator), "votes": int(len(m)), "checkpoints": js.tolist(),
                    "max_ratio": float(ratio.max()), "flagged": bool(len(hit)),
                    "flagged_at": int(hit[0]) if len(hit) else None})
    return out


def annotator_table(table: pd.DataFrame, flagged: set[str]) -> list[dict[str, Any]]:
    """Per annotator: votes, agreement with the majority of the other annotators' votes on the same
    pairs, tie and Both Bad rates, position preference, median seconds per vote, flagged."""
    others = _leave_one_out_majority(table)
    rows = []
    for annotator, mine in table.groupby("annotator", sort=True):
        majority = others.reindex(mine.index)
        known = majority.notna()
        decisive = mine["choice"].isin(["A", "B"]) & mine["shown_order"].isin(["AB", "BA"])
        left = ((mine["choice"] == "A") & (mine["shown_order"] == "AB")) | \
               ((mine["choice"] == "B") & (mine["shown_order"] == "BA"))
        rows.append({
            "annotator": str(annotator), "votes": int(len(mine)),
            "compared": int(known.sum()),
            "agreement": _share((mine["choice"] == majority)[known]),
            "tie_rate": _share(mine["choice"] == "TIE"), "both_bad_rate": _share(mine["choice"] == "BOTH_BAD"),
            "position_votes": int(decisive.sum()), "left_chosen": _share(left[decisive]),
            "median_seconds": _median_seconds(mine), "flagged": str(annotator) in flagged,
        })
    return rows


def _leave_one_out_majority(table: pd.DataFrame) -> pd.Series:
    """For each vote, the majority label (votes.majority_label) of the other annotators' votes on
    the pair; NaN when nobody else voted on it."""
    result = pd.Series(np.nan, index=table.index, dtype=object)
    for _, group in table.groupby("pair_id", sort=False):
        if group["annotator"].nunique() < 2:
            continue
        for idx, who in zip(group.index, group["annotator"]):
            rest = group.loc[group["annotator"] != who, "choice"].tolist()
            result.at[idx] = majority_label(rest)
    return result


def _median_seconds(mine: pd.DataFrame) -> float | None:
    """Median of the recorded seconds per vote, else of the gaps between consecutive timestamps."""
    seconds = mine["seconds"].dropna()
    if len(seconds):
        return float(seconds.median())
    times = np.sort(mine["time"].dropna().to_numpy())
    return float(np.median(np.diff(times))) if len(times) >= 2 else None


def _share(mask: pd.Series) -> float | None:
    return float(mask.mean()) if len(mask) else None
