"""Which pair an annotator sees next, on which side each response goes, and progress (pure functions).

Rules (docs/guide/annotate.md):
- Round 1: pairs this annotator has neither voted on nor skipped, with fewer than `target` round-1
  votes; fewest votes first, then an order seeded per annotator (so annotators spread over the pairs).
  An annotator with expertise tags sees only pairs one of whose slice values is among the tags.
- Round 2 (self-consistency): a pair this annotator voted on is picked for a repeat when
  hash(secret, annotator, pair) falls below `repeat_share`; it is shown again once `repeat_delay_s`
  has passed since the first vote, before any new pair. No pair is shown twice otherwise.
- Gold pairs (a pair with a known answer, `gold`): never counted toward a target; before each new pair,
  hash(secret, annotator, new pairs answered so far) below `gold_share` shows one of this annotator's
  unseen gold pairs instead. The page shows them as any other pair, and counts the gold pairs still to
  come in 'N left' (`open_for`), so a gold vote moves the counter as any vote does.
- A pair shown and neither answered nor skipped (a reload, an undone vote) is shown again first,
  while it is still open.
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
    gold_share: float = 0.0  # share of showings that are gold pairs (when unseen gold pairs are left)


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
    return not slice_values([pair]).isdisjoint(t.casefold() for t in expertise)


def slice_values(pairs: list[dict[str, Any]]) -> set[str]:
    """Every slice value of these pairs, case-folded: what an expertise tag is matched against (`routed`)."""
    return {str(v).casefold() for pair in pairs for v in pair.get("slices", {}).values()}


def is_gold(pair: dict[str, Any]) -> bool:
    return pair.get("gold") is not None


def next_showing(annotator: str, expertise: tuple[str, ...], pairs: list[dict[str, Any]], votes: list[dict[str, Any]],
                 skips: list[tuple[str, str, int]], rules: Rules, secret: str, now: datetime,
                 pending: list[tuple[str, int]] | None = None, reserved: dict[str, int] | None = None) -> Showing | None:
    """The next pair for this annotator under the module's rules, or None when none is left.
    `pending`: (pair, round) shown to this annotator and not answered, latest first. `reserved`: pair ->
    showings to other annotators still open (recent ones): counted as votes to come when choosing, so
    annotators voting at once spread over the pairs instead of racing for the last vote of one."""
    mine = {(v["pair_id"], v["round"]): v for v in votes if v["annotator"] == annotator}
    skipped = {(p, r) for a, p, r in skips if a == annotator}
    counts = Counter(v["pair_id"] for v in votes if v["round"] == 1)
    by_id = {p["id"]: p for p in pairs}
    for pair_id, round_ in pending or []:
        pair = by_id.get(pair_id)
        if pair is None or (pair_id, round_) in mine or (pair_id, round_) in skipped or not routed(pair, expertise):
            continue
        if round_ == 2 and (pair_id, 1) in mine or round_ == 1 and (is_gold(pair) or counts[pair_id] < rules.target):
            return Showing(pair_id, round_, shown_order(secret, annotator, pair_id, round_))
    for (pair_id, round_), vote in sorted(mine.items(), key=lambda item: item[1]["submitted_at"]):
        if round_ != 1 or (pair_id, 2) in mine or (pair_id, 2) in skipped or is_gold(by_id.get(pair_id, {})):
            continue  # (a gold pair is shown at most once: a walkthrough saw all four repeated)
        first = datetime.fromisoformat(vote["submitted_at"].replace("Z", "+00:00"))
        due = (now - first).total_seconds() >= rules.repeat_delay_s
        if due and picks_repeat(secret, annotator, pair_id, rules.repeat_share):
            return Showing(pair_id, 2, shown_order(secret, annotator, pair_id, 2))
    fresh = [p for p in pairs if (p["id"], 1) not in mine and (p["id"], 1) not in skipped and routed(p, expertise)]
    candidates = [p["id"] for p in fresh if not is_gold(p) and counts[p["id"]] < rules.target]
    coming = reserved or {}
    if not candidates:
        return None
    gold = [p["id"] for p in fresh if is_gold(p)]
    if gold and gold_drawn(secret, annotator, answered_new(annotator, votes, skips), rules.gold_share):
        pick = min(gold, key=lambda pid: _unit(secret, "order", annotator, pid))
        return Showing(pick, 1, shown_order(secret, annotator, pick, 1))
    best = min(candidates, key=lambda pid: (counts[pid] + coming.get(pid, 0) >= rules.target, counts[pid] + coming.get(pid, 0),
                                           _unit(secret, "order", annotator, pid)))
    return Showing(best, 1, shown_order(secret, annotator, best, 1))


def answered_new(annotator: str, votes: list[dict[str, Any]], skips: list[tuple[str, str, int]]) -> int:
    """New (round-1) pairs this annotator voted on or skipped: the index of its next gold draw (a skip or a
    repeat left it unchanged before, so 'left' could not follow the draws)."""
    return len({v["pair_id"] for v in votes if v["annotator"] == annotator and v["round"] == 1}
               | {p for a, p, r in skips if a == annotator and r == 1})


def gold_drawn(secret: str, annotator: str, answered: int, share: float) -> bool:
    """Whether the new pair after `answered` answered ones is a gold pair (while unseen gold pairs are left)."""
    return _unit(secret, "gold", annotator, answered) < share


def gold_to_come(secret: str, annotator: str, answered: int, regular: int, gold: int, share: float) -> int:
    """How many of `gold` unseen gold pairs next_showing will mix in before this annotator's `regular` open pairs
    run out, drawing as it does from `answered` on (others' votes aside). Answering a gold pair lowers it by one,
    answering another pair leaves it: either lowers 'N left' by one."""
    shown = 0
    while share > 0 and regular > 0 and shown < gold:
        if gold_drawn(secret, annotator, answered, share):
            shown += 1
        else:
            regular -= 1
        answered += 1
    return shown


def open_for(annotator: str, expertise: tuple[str, ...], pairs: list[dict[str, Any]], votes: list[dict[str, Any]],
             skips: list[tuple[str, str, int]], rules: Rules, secret: str) -> int:
    """Pairs still to come for this annotator (progress: 'N left'): the round-1 pairs open to them and the gold pairs
    to be mixed in among those (leaving gold out told which pairs were gold: 'left' stood still after their votes)."""
    mine = {v["pair_id"] for v in votes if v["annotator"] == annotator and v["round"] == 1}
    skipped = {p for a, p, r in skips if a == annotator and r == 1}
    counts = Counter(v["pair_id"] for v in votes if v["round"] == 1)
    unseen = [p for p in pairs if p["id"] not in mine | skipped and routed(p, expertise)]
    regular = sum(1 for p in unseen if not is_gold(p) and counts[p["id"]] < rules.target)
    gold = sum(1 for p in unseen if is_gold(p))
    return regular + gold_to_come(secret, annotator, len(mine | skipped), regular, gold, rules.gold_share)
