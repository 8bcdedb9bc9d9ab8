"""Votes -> battles: one row per usable vote (a pandas table), and battles aggregated into counts.

The battles table has one row per vote that enters the ratings, with columns pair_id, annotator,
model_a, model_b, choice (A, B, TIE, BOTH_BAD in the pair's stored positions), outcome (1 A wins,
0 B wins, 0.5 tie; Both Bad per the rule), shown_order, time (seconds since the epoch, NaN when not
recorded), seconds, length_a/b, citations_a/b (NaN when not recorded), order (the vote's position
in the input) and one `slice:<name>` column per slice. Votes that cannot be battles are counted by
reason in `dropped`, never silently lost.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import InitVar, dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from judgebench.core.errors import JudgebenchError
from judgebench.core.records import DEFAULT_DIMENSION, VERDICT_SCORE, PairExample
from judgebench.human.arena.coded import OUTCOMES, Coded
from judgebench.stats.ratings import comparison_groups as connected_groups
from judgebench.stats.ratings import unbeaten_orders
from judgebench.tasks.features import count_citations, response_length
from judgebench.tasks.votes import Vote

BothBadRule = Literal["tie", "exclude"]
OUTCOME = VERDICT_SCORE
SLICE = "slice:"
STYLE_COLUMNS = ("length_a", "length_b", "citations_a", "citations_b")
REPEATED_VOTE = "repeated vote of one annotator on one pair (the first counted)"
SAME_MODEL = "same model on both sides"
TASK_ANNOTATOR = "label"  # the one "annotator" of a task's single label per pair


@dataclass
class Battles:
    table: pd.DataFrame
    source: str
    both_bad: BothBadRule
    dimension: str
    dropped: dict[str, int] = field(default_factory=dict)  # reason -> votes
    excluded_annotators: list[str] = field(default_factory=list)
    codes: InitVar[Coded | None] = None  # the table's codes when the caller has them (make_battles does)
    coded: Coded = field(init=False, repr=False)  # the table's codes (each column factorised on first use)

    def __post_init__(self, codes: Coded | None) -> None:
        self.coded = codes if codes is not None else Coded(self.table)

    @property
    def slice_keys(self) -> list[str]:
        return [c[len(SLICE):] for c in self.table.columns if c.startswith(SLICE)]

    @property
    def has_style(self) -> dict[str, bool]:
        t = self.table
        return {"length": bool(t[["length_a", "length_b"]].notna().all(axis=1).any()),
                "citations": bool(t[["citations_a", "citations_b"]].notna().all(axis=1).any())}


def votes_frame(votes: Sequence[Vote], source: str, dimension: str = DEFAULT_DIMENSION) -> tuple[pd.DataFrame, Counter]:
    """The raw vote table (before the Both-Bad rule); votes lacking the dimension are counted."""
    rows, dropped = [], Counter()
    for i, vote in enumerate(votes, start=1):
        if not vote.model_a or not vote.model_b:
            raise JudgebenchError(f"{source}: vote {i} (pair {vote.pair_id}, annotator {vote.annotator}) "
                                  "has no model_a/model_b; arena needs both model names")
        choice = vote.label_for(dimension)
        if choice is None:
            dropped[f"no vote on dimension {dimension}"] += 1
            continue
        row = {"pair_id": vote.pair_id, "annotator": vote.annotator, "model_a": vote.model_a,
               "model_b": vote.model_b, "choice": choice, "shown_order": vote.shown_order,
               "timestamp": vote.timestamp, "seconds": vote.seconds, "pair_sha256": vote.pair_sha256, "order": i}
        row.update({c: getattr(vote, c) for c in STYLE_COLUMNS})
        row.update({SLICE + k: v for k, v in vote.slices.items()})
        rows.append(row)
    if not rows:
        raise JudgebenchError(f"{source}: no votes on dimension {dimension}")
    return pd.DataFrame(rows), dropped


def examples_as_votes(examples: Iterable[PairExample], dimension: str) -> list[Vote]:
    """A task's votes, with length and citation counts measured from the texts: each example's
    annotator-level votes when it carries them (`PairExample.votes`, a task YAML `votes:` mapping),
    else one vote per example (its label) by the annotator `label`."""
    votes = []
    for ex in examples:
        style = {"length_a": response_length(ex.response_a), "length_b": response_length(ex.response_b),
                 "citations_a": count_citations(ex.response_a), "citations_b": count_citations(ex.response_b)}
        common = {"pair_id": ex.id, "model_a": ex.model_a, "model_b": ex.model_b, "slices": ex.slices, **style}
        annotated = getattr(ex, "votes", None) or []  # annotator-level votes (the ceiling branch's field)
        for vote in annotated:
            label = vote.labels.get(dimension)
            if label is not None:
                votes.append(Vote(**common, annotator=vote.annotator, choice=label, timestamp=vote.timestamp,
                                  shown_order=getattr(vote, "shown_order", None)))
        label = ex.labels.get(dimension)
        if not annotated and label is not None:
            votes.append(Vote(**common, annotator=TASK_ANNOTATOR, choice=label))
    return votes


def make_battles(raw: pd.DataFrame, source: str, both_bad: BothBadRule, dimension: str = DEFAULT_DIMENSION,
                 dropped: Counter | None = None, exclude: Iterable[str] = (), coded: Coded | None = None) -> Battles:
    """Apply the Both-Bad rule, annotator exclusions and the self-pair rule to a raw vote table. Each rule is a
    mask over the raw votes' codes (`coded`: the raw table's, when the caller has them), counted in turn and
    applied once; the battles keep the codes of their rows."""
    dropped = Counter(dropped or {})
    coded = coded if coded is not None else Coded(raw)
    table = raw.copy(deep=False)  # columns are added and replaced, never changed in place: raw stays as it is
    for column in ("shown_order", "timestamp", "seconds", *STYLE_COLUMNS):
        if column not in table:
            table[column] = None
    if "order" not in table:
        table["order"] = _held(table, np.arange(1, len(table) + 1))
    table["time"] = _held(table, _times(table, source))
    keep = np.ones(len(table), dtype=bool)

    def drop(out: np.ndarray, reason: str) -> None:  # the votes still kept that this rule leaves out
        out = out & keep
        if out.any():
            dropped[reason] += int(out.sum())
            keep[out] = False

    # one annotator's second vote on one pair (a double submit, a forged file): counted once
    drop(_repeated(coded), REPEATED_VOTE)
    codes, names = coded.annotators
    wanted_out = set(exclude)  # the annotators' distinct names, not every vote's, are compared (issue 30)
    excluded = sorted(wanted_out & set(names[np.unique(codes)])) if wanted_out else []
    if excluded:
        drop(np.isin(names, excluded)[codes], "annotator excluded (listed or flagged)")
    a, b, _ = coded.models
    drop(a == b, SAME_MODEL)
    if both_bad == "exclude":
        drop(coded.choice_is("BOTH_BAD"), "Both Bad (excluded by rule)")
    if not keep.all():
        table = table[keep]
    choice, labels = coded.choices
    outcome = np.array([OUTCOME.get(c, 0.5) for c in labels], dtype=float)[choice[keep]]
    table = table.assign(outcome=_held(table, np.where(choice[keep] < 0, 0.5, outcome)))  # a missing choice: 0.5
    missing = None  # every all-missing number column: one column of NaNs, shared (pandas copies it before a change)
    for column in ("seconds", *STYLE_COLUMNS):
        values = _numbers(table[column])
        if values is None and missing is None:
            missing = _held(table, np.full(len(table), np.nan))
        table[column] = missing if values is None else _held(table, values)
    if table.empty:
        raise JudgebenchError(f"{source}: no votes left to rate (dropped: {dict(dropped)})")
    table = table.reset_index(drop=True)
    return Battles(table, source, both_bad, dimension, dict(dropped), excluded, coded.subset(keep, table))


def _held(table: pd.DataFrame, values: np.ndarray) -> pd.Series:
    """A new column's array as a Series the table can hold without copying (a DataFrame copies an array it is
    given: 16 copies of 2,000,000 values were a third of make_battles)."""
    return pd.Series(values, index=table.index, copy=False)


def _repeated(coded: Coded) -> np.ndarray:
    """Whether each vote repeats an earlier vote of its annotator on its pair: its (pair, annotator) code is not
    new (codes are numbered in order of first appearance, so a new one is above every earlier one)."""
    codes = coded.pair_annotators
    if not len(codes):
        return np.zeros(0, dtype=bool)
    earlier = np.maximum.accumulate(np.concatenate([[-1], codes[:-1]]))
    return codes <= earlier


def _numbers(column: pd.Series) -> np.ndarray | None:
    """The column as floats (NaN where not a number); None for an all-missing column (without converting each
    value: the caller shares one column of NaNs among them, 16 MB each at 2,000,000 votes, issue 30)."""
    if column.dtype == object and column.isna().all():
        return None
    return pd.to_numeric(column, errors="coerce").astype(float).to_numpy()


def _times(table: pd.DataFrame, source: str) -> np.ndarray:
    """Timestamps as float seconds (NaN when absent); a malformed one is an error naming the vote."""
    raw = table["timestamp"]
    if not raw.notna().any():  # no timestamps (without turning millions of Nones into text)
        return np.full(len(raw), np.nan)
    present = raw.notna() & (raw.astype(str) != "")
    parsed = pd.to_datetime(raw.where(present), utc=True, errors="coerce", format="ISO8601")
    broken = present & parsed.isna()
    if broken.any():
        i = int(np.flatnonzero(broken.to_numpy())[0])
        raise JudgebenchError(f"{source}: vote {int(table['order'].iloc[i])}: timestamp "
                              f"{raw.iloc[i]!r} is not an ISO 8601 date-time")
    seconds = (parsed - pd.Timestamp(0, tz="UTC")).dt.total_seconds()
    return seconds.to_numpy(dtype=float)


def aggregate(table: pd.DataFrame, features: pd.DataFrame | None = None,
              extra: dict[str, np.ndarray] | None = None, coded: Coded | None = None) -> pd.DataFrame:
    """Battles as counts per (pair, outcome[, features][, extra outcome columns]).

    Pairs are put in sorted order (outcome mirrored, features negated), so the table has at most
    (pairs x outcomes x distinct feature rows) rows whatever the number of votes. Extra columns
    (e.g. a judge's outcome, NaN where it has none) are mirrored too and kept as keys. `coded`: the
    table's codes, when the caller has them.
    """
    coded = coded if coded is not None else Coded(table)
    if features is None and not extra and np.isin(table["outcome"].to_numpy(), OUTCOMES).all():
        return _cell_frame(coded)
    lo, hi, swap, names = coded.canonical()
    data = {"model_a": lo, "model_b": hi,
            "outcome": np.where(swap, 1.0 - table["outcome"].to_numpy(), table["outcome"].to_numpy())}
    for name, values in (extra or {}).items():
        data[name] = np.where(swap, 1.0 - values, values)
    keys = list(data)
    if features is not None:
        for name in features.columns:
            data[name] = np.where(swap, -features[name].to_numpy(), features[name].to_numpy())
        keys += list(features.columns)
    frame = pd.DataFrame(data)
    counts = frame.groupby(keys, dropna=False, sort=True).size().rename("count").reset_index()
    counts["model_a"], counts["model_b"] = names[counts["model_a"]], names[counts["model_b"]]
    return counts


def cell_counts(keys: np.ndarray, n_models: int) -> tuple[np.ndarray, np.ndarray]:
    """(cells, counts): the cells (Coded.cells) that hold a battle, ascending, and how many each holds."""
    counts = np.bincount(keys, minlength=n_models * n_models * len(OUTCOMES))
    cells = np.flatnonzero(counts)
    return cells, counts[cells]


def _cell_frame(coded: Coded) -> pd.DataFrame:
    """`aggregate` without features or extra columns, by counting the battles' cells: the cells in key order are
    the groupby's rows in its sorted order (model_a, model_b codes, then the outcome)."""
    names = coded.canonical()[3]
    cells, counts = cell_counts(coded.cells, len(names))
    pair, index = np.divmod(cells, len(OUTCOMES))
    frame = pd.DataFrame({"model_a": pair // len(names), "model_b": pair % len(names), "outcome": OUTCOMES[index],
                          "count": counts})
    frame["model_a"], frame["model_b"] = names[frame["model_a"]], names[frame["model_b"]]
    return frame


def comparison_groups(table: pd.DataFrame, coded: Coded | None = None) -> list[list[str]]:
    """The models in groups that no battle connects (stats.ratings.comparison_groups, over each battled pair once)."""
    pairs = _distinct_pairs(coded if coded is not None else Coded(table))
    return connected_groups((a for a, _ in pairs), (b for _, b in pairs))


def unbeaten_groups(coded: Coded) -> list[list[list[str]]]:
    """Models the votes order without an upset (stats.ratings.unbeaten_orders: Bradley-Terry has no finite estimate
    across them), per group of models the battles connect, each group of models sorted; empty when there is none.
    From each (sorted pair, outcome) cell once: a pair's repeats add no edge."""
    names = coded.canonical()[3]
    n = len(names)
    cells, space = coded.cells, n * n * len(OUTCOMES)  # (lo * n + hi) * 3 + outcome index for lo: 0 loss, 1 tie, 2 win
    if space <= max(4 * len(cells), 1 << 20):  # the cells present, by counting
        cells = np.flatnonzero(np.bincount(cells, minlength=space))
    else:  # by sorting (np.unique's hashing took 0.7 s at 2,000,000 votes over 3,000 models)
        cells = np.sort(cells)
        cells = cells[np.r_[True, cells[1:] != cells[:-1]]]
    pair, index = np.divmod(cells, len(OUTCOMES))
    first, second = np.divmod(pair, max(n, 1))
    took = np.concatenate([first[index > 0], second[index < 2]])  # lo took a point from hi; hi took one from lo
    gave = np.concatenate([second[index > 0], first[index < 2]])
    return [[sorted(str(names[m]) for m in component) for component in order]
            for order in unbeaten_orders(took, gave, n)]


def _distinct_pairs(coded: Coded) -> list[tuple[str, str]]:
    """Each (model_a, model_b) of the table once: the groups depend only on which pairs battled (and are
    sorted), so this is the loop's input without its millions of repeats."""
    a, b, names = coded.models
    keys, space = a * len(names) + b, len(names) ** 2
    if space <= max(4 * len(keys), 1 << 20):  # the keys present, ascending: by counting (np.unique sorts them)
        keys = np.flatnonzero(np.bincount(keys, minlength=space))
    else:
        keys = np.unique(keys)
    first, second = np.divmod(keys, max(len(names), 1))
    return list(zip(names[first].tolist(), names[second].tolist()))
