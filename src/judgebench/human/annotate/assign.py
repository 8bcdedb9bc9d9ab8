"""Which pair an annotator sees next, on which side each response goes, and progress (pure functions).

Rules (docs/guide/annotate.md):
- Round 1: pairs this annotator has neither voted on nor skipped, with fewer than `target` round-1
  votes; fewest votes first, then an order seeded per annotator (so annotators spread over the pairs).
  An annotator with expertise tags sees only pairs one of whose slice values is among the tags.
- Round 2 (self-consistency): a pair this annotator voted on is picked for a repeat when
  hash(secret, annotator, pair) falls below `repeat_share`; it is shown again once `repeat_delay_s`
  has passed since the first vote, before any new pair. No pair is shown twice otherwise.
- Sides: which stored response is on the left is hash(secret, annotator, pair, round) - random per
  annotator and pair, reproducible, recorded with the vote as shown_order (AB: response_a on the left).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from judgebench.core.records import Order


@dataclass(frozen=True)
class Rules:
    target: int = 3  # round-1 votes wanted per pair
    repeat_share: float = 0.0  # share of an annotator's voted pairs shown again
    repeat_delay_s: float = 14 * 24 * 3600.0  # SciArena repeats after two weeks


@dataclass(frozen=True)
class Showing:
    pair_id: str
    round: int
    shown_order: Order


def _unit(secret: str, *parts: object) -> float:
    digest = hashlib.sha256(":".join([secret, *map(str, parts)]).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def shown_order(secret: str, annotator: str, pair_id: str, round_: int) -> Order:
    return "AB" if _unit(secret, "side", annotator, pair_id, round_) < 0.5 else "BA"


def picks_repeat(secret: str, annotator: str, pair_id: str, share: float) -> bool:
    return _unit(secret, "repeat", annotator, pair_id) < share


def routed(pair: dict[str, Any], expertise: tuple[str, ...]) -> bool:
    """Whether a pair is routed to an annotator with these expertise tags (none: every pair)."""
    if not expertise:
        return True
    tags = {t.casefold() for t in expertise}
    return any(str(v).casefold() in tags for v in pair.get("slices", {}).values())


def next_showing(annotator: str, expertise: tuple[str, ...], pairs: list[dict[str, Any]], votes: list[dict[str, Any]],
                 skips: list[tuple[str, str, int]], rules: Rules, secret: str, now: datetime) -> Showing | None:
    """The next pair for this annotator under the module's rules, or None when none is left."""
    mine = {(v["pair_id"], v["round"]): v for v in votes if v["annotator"] == annotator}
    skipped = {(p, r) for a, p, r in skips if a == annotator}
    for (pair_id, round_), vote in sorted(mine.items(), key=lambda item: item[1]["submitted_at"]):
        if round_ != 1 or (pair_id, 2) in mine or (pair_id, 2) in skipped:
            continue
        first = datetime.fromisoformat(vote["submitted_at"].replace("Z", "+00:00"))
        due = (now - first).total_seconds() >= rules.repeat_delay_s
        if due and picks_repeat(secret, annotator, pair_id, rules.repeat_share):
            return Showing(pair_id, 2, shown_order(secret, annotator, pair_id, 2))
    counts = Counter(v["pair_id"] for v in votes if v["round"] == 1)
    candidates = [
        p["id"] for p in pairs
        if (p["id"], 1) not in mine and (p["id"], 1) not in skipped and counts[p["id"]] < rules.target and routed(p, expertise)
    ]
    if not candidates:
        return None
    best = min(candidates, key=lambda pid: (counts[pid], _unit(secret, "order", annotator, pid)))
    return Showing(best, 1, shown_order(secret, annotator, best, 1))


def open_for(annotator: str, expertise: tuple[str, ...], pairs: list[dict[str, Any]], votes: list[dict[str, Any]],
             skips: list[tuple[str, str, int]], rules: Rules) -> int:
    """Round-1 pairs still open to this annotator (progress: 'N left')."""
    mine = {v["pair_id"] for v in votes if v["annotator"] == annotator and v["round"] == 1}
    skipped = {p for a, p, r in skips if a == annotator and r == 1}
    counts = Counter(v["pair_id"] for v in votes if v["round"] == 1)
    return sum(1 for p in pairs if p["id"] not in mine | skipped and counts[p["id"]] < rules.target and routed(p, expertise))


def admin_tables(pairs: list[dict[str, Any]], votes: list[dict[str, Any]], skips: list[tuple[str, str, int]],
                 annotators: list[str], rules: Rules) -> dict[str, list[list[Any]]]:
    """Progress per annotator (votes, repeats, skips) and per slice value (pairs, votes, pairs at target)."""
    per_annotator = []
    for name in annotators:
        mine = [v for v in votes if v["annotator"] == name]
        per_annotator.append([name, sum(v["round"] == 1 for v in mine), sum(v["round"] == 2 for v in mine),
                              sum(a == name for a, _, _ in skips)])
    counts = Counter(v["pair_id"] for v in votes if v["round"] == 1)
    groups: dict[str, list[str]] = {"(all)": [p["id"] for p in pairs]}
    for pair in pairs:
        for key, value in sorted(pair.get("slices", {}).items()):
            groups.setdefault(f"{key}={value}", []).append(pair["id"])
    per_slice = [[name, len(ids), sum(counts[i] for i in ids), sum(counts[i] >= rules.target for i in ids)]
                 for name, ids in groups.items()]
    return {"annotators": per_annotator, "slices": per_slice}
