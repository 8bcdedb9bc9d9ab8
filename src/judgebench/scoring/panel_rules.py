"""How a panel turns its members' votes into one verdict, and the panel's raw-answer format.

A vote is a member's verdict in the dataset's positions (A, B, TIE), or its abstention: INVALID,
FAILED, or MISSING (the member has no record of that judgment). Abstentions never count.
Rules (docs/panels.md), with `chair` = the first answered member in the order the members were given:
  no member answered   the panel is INVALID
  majority             the plurality of answered votes; a split (two or more verdicts share the top
                       count): TIE on a task that allows ties, else the chair's vote among the tied
  mean                 A=1, TIE=0.5, B=0 averaged over answered votes, m: with ties A when m > 2/3,
                       B when m < 1/3, else TIE; without ties A when m > 1/2, B when m < 1/2, and
                       m = 1/2 is a split broken as in majority (so binary mean = binary majority)
  unanimous-else-tie   every answered vote agrees: that verdict; else TIE, or on a task without
                       ties INVALID (the panel abstains: a disagreement scores 0)
The raw answer of a panel judgment is JSON, `{"panel": AGGREGATE, "votes": [...]}`, so re-scoring
and submit re-derive each verdict from the votes alone.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from judgebench.core.records import JudgmentRecord, swap_verdict

AGGREGATES: tuple[str, ...] = ("majority", "mean", "unanimous-else-tie")
ABSTAIN: tuple[str, ...] = ("INVALID", "FAILED", "MISSING")
VOTES: tuple[str, ...] = ("A", "B", "TIE", *ABSTAIN)
_HALVES = {"A": 2, "TIE": 1, "B": 0}  # mean scores in halves: A=1, TIE=0.5, B=0


def vote_of(record: JudgmentRecord | None) -> str:
    """A member's vote on one judgment: its mapped verdict, or why it abstains."""
    if record is None:
        return "MISSING"
    if record.status == "ANSWERED" and record.verdict is not None:
        return record.verdict
    return "FAILED" if record.status == "FAILED" else "INVALID"


def aggregate_votes(votes: Sequence[str], aggregate: str, allow_tie: bool) -> str | None:
    """The panel verdict (dataset positions) from the members' votes; None: the panel is INVALID."""
    answered = [v for v in votes if v not in ABSTAIN]
    if not answered:
        return None
    if aggregate == "majority":
        return _majority(answered, allow_tie)
    if aggregate == "mean":
        return _mean(answered, allow_tie)
    if aggregate == "unanimous-else-tie":
        if len(set(answered)) == 1:
            return answered[0]
        return "TIE" if allow_tie else None
    raise ValueError(f"unknown aggregate {aggregate!r}; known: {', '.join(AGGREGATES)}")


def _majority(answered: list[str], allow_tie: bool) -> str:
    counts = Counter(answered)
    top = max(counts.values())
    leaders = {v for v, c in counts.items() if c == top}
    if len(leaders) == 1:
        return leaders.pop()
    return "TIE" if allow_tie else _chair(answered, leaders)


def _chair(answered: list[str], leaders: set[str]) -> str:
    """The split breaker of a binary task: the first member (in the order given) voting for a leader."""
    return next(v for v in answered if v in leaders)


def _mean(answered: list[str], allow_tie: bool) -> str:
    """Exact integer comparisons of m = s / (2n), s the sum of the votes in halves."""
    s, n = sum(_HALVES[v] for v in answered), len(answered)
    if allow_tie:
        return "A" if 3 * s > 4 * n else "B" if 3 * s < 2 * n else "TIE"
    return "A" if s > n else "B" if s < n else _chair(answered, {"A", "B"})


def encode_raw(aggregate: str, votes: Sequence[str]) -> str:
    """The panel judgment's raw answer: its aggregate and the member votes, in the members' order."""
    return json.dumps({"panel": aggregate, "votes": list(votes)}, separators=(", ", ": "))


def decode_raw(raw: str | None, n_members: int) -> list[str] | None:
    """The votes in a panel raw answer; None when it is not one (wrong shape, count or vote)."""
    try:
        data = json.loads(raw or "")
    except ValueError:
        return None
    if not isinstance(data, dict) or set(data) != {"panel", "votes"}:
        return None
    votes = data["votes"]
    if not isinstance(votes, list) or len(votes) != n_members or any(v not in VOTES for v in votes):
        return None
    return votes


def rederive(record: JudgmentRecord, aggregate: str, n_members: int, allow_tie: bool) -> JudgmentRecord:
    """The panel record as its votes decide it: status, verdict, and the verdict in shown positions."""
    votes = decode_raw(record.raw, n_members)
    verdict = None if votes is None else aggregate_votes(votes, aggregate, allow_tie)
    return record.model_copy(
        update={
            "status": "ANSWERED" if verdict is not None else "INVALID",
            "verdict": verdict,
            "verdict_shown": verdict if record.order == "AB" else swap_verdict(verdict),
        }
    )
