"""Progress and annotator quality for the admin page and the export (pure functions over stored rows).

Per annotator: gold accuracy (votes on gold pairs matching the known answer), self-consistency
(repeats matching the first vote), agreement with the others (Cohen's kappa between this annotator's
label and the other annotators' majority on the pairs they share; pairs whose others tie are left
out), side preference (share of decisive votes for the response shown on the left) and the median
seconds per vote. A figure is computed once it rests on MIN_N items; an annotator is flagged when a
computed figure crosses its threshold (Thresholds).
"""

from __future__ import annotations

import json
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from judgebench.human.annotate.assign import Rules, is_gold
from judgebench.stats.agreement import cohen_kappa


@dataclass(frozen=True)
class Thresholds:
    min_gold_accuracy: float = 0.6
    min_self_consistency: float = 0.5
    min_kappa: float = 0.2
    max_side_bias: float = 0.25  # |left share - 0.5| above this is flagged
    min_seconds: float = 5.0  # median seconds per vote below this is flagged (clicking through)
    min_n: int = 3  # items a figure needs before it can flag (side preference and kappa: 3 x min_n)


def human_duration(seconds: float) -> str:
    """A duration in the unit a person would say: '14 days', '3 hours', '90 s'."""
    for unit, size in (("week", 7 * 86400), ("day", 86400), ("hour", 3600), ("minute", 60)):
        count = seconds / size
        if count >= 1 and (abs(count - round(count)) < 1e-9 or (unit != "week" and count >= 2)):
            if unit == "week" and round(count) * 7 < 100:  # two weeks reads better as 14 days
                continue
            value = round(count) if abs(count - round(count)) < 1e-9 else round(count, 1)
            return f"{value:g} {unit}{'' if value == 1 else 's'}"
    return f"{seconds:g} s"


def _label(vote: dict[str, Any]) -> str:
    """One comparable label for a vote: its choice, or its per-dimension choices as one JSON text."""
    if vote.get("choice") is not None:
        return str(vote["choice"])
    choices = vote.get("choices")
    return json.dumps(json.loads(choices), sort_keys=True) if isinstance(choices, str) else str(choices)


def _gold_matches(vote: dict[str, Any], gold: Any) -> bool:
    if isinstance(gold, dict):
        picked = json.loads(vote["choices"]) if vote.get("choices") else {}
        return all(picked.get(d) == g for d, g in gold.items())
    if vote.get("choice") is not None:
        return vote["choice"] == gold
    picked = json.loads(vote["choices"]) if vote.get("choices") else {}
    return bool(picked) and all(v == gold for v in picked.values())


def shared_kappa(xs: list[str], ys: list[str]) -> float | None:
    """Cohen's kappa of an annotator's and the others' choices on shared pairs; none from fewer than two pairs (one
    pair's kappa is 0 or undefined: it says nothing of the annotator)."""
    return cohen_kappa(xs, ys) if len(xs) >= 2 else None


@dataclass
class Quality:
    annotator: str
    votes: int
    gold_n: int
    gold_accuracy: float | None
    repeats_n: int
    self_consistency: float | None
    shared_n: int
    kappa: float | None
    decisive_n: int
    left_share: float | None
    seconds_per_vote: float | None
    flags: list[str]

    def row(self) -> list[str]:
        def pct(x: float | None, n: int) -> str:
            return "-" if x is None else f"{x:.0%} (n={n})"

        return [self.annotator, str(self.votes), pct(self.gold_accuracy, self.gold_n), pct(self.self_consistency, self.repeats_n),
                "-" if self.kappa is None else f"{self.kappa:.2f} (n={self.shared_n})", pct(self.left_share, self.decisive_n),
                "-" if self.seconds_per_vote is None else f"{self.seconds_per_vote:.1f}", ", ".join(self.flags) or "ok"]


QUALITY_HEADER = ["annotator", "votes", "gold accuracy", "self-consistency", "kappa vs others", "left share",
                  "seconds per vote", "flags"]


def figured_annotators(annotators: list[Any], votes: list[dict[str, Any]], skips: list[tuple[str, str, int]]) -> list[str]:
    """The names the quality figures are of (the admin page's and the export's): every annotator but an admin who
    never voted or skipped, who is no annotator (a walkthrough saw such an admin listed with the flag "ok")."""
    active = {v["annotator"] for v in votes} | {who for who, _, _ in skips}
    return [a.name for a in annotators if not a.is_admin or a.name in active]


def quality(pairs: list[dict[str, Any]], votes: list[dict[str, Any]], annotators: list[str],
            thresholds: Thresholds = Thresholds()) -> list[Quality]:
    """The quality figures of each annotator, with the flags their thresholds raise."""
    by_pair = {p["id"]: p for p in pairs}
    first = [v for v in votes if v["round"] == 1]
    firsts = {(v["annotator"], v["pair_id"]): v for v in first}
    on_pair: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for vote in first:
        if not is_gold(by_pair.get(vote["pair_id"], {})):
            on_pair[vote["pair_id"]].append(vote)
    out = []
    t = thresholds
    for name in annotators:
        mine = [v for v in first if v["annotator"] == name]
        gold = [v for v in mine if is_gold(by_pair.get(v["pair_id"], {}))]
        gold_hits = sum(_gold_matches(v, by_pair[v["pair_id"]]["gold"]) for v in gold)
        repeats = [(firsts[(name, v["pair_id"])], v) for v in votes
                   if v["annotator"] == name and v["round"] == 2 and (name, v["pair_id"]) in firsts]
        same = sum(_label(a) == _label(b) for a, b in repeats)
        xs, ys = [], []
        for vote in mine:
            others = Counter(_label(o) for o in on_pair.get(vote["pair_id"], []) if o["annotator"] != name)
            top = others.most_common(2)
            if top and (len(top) == 1 or top[0][1] > top[1][1]):
                xs.append(_label(vote))
                ys.append(top[0][0])
        decisive = [v for v in mine if v.get("choice") in ("A", "B")]
        left = sum((v["choice"] == "A") == (v["shown_order"] == "AB") for v in decisive)
        seconds = [v["seconds"] for v in mine if v.get("seconds") is not None]
        q = Quality(name, len(mine), len(gold), gold_hits / len(gold) if gold else None, len(repeats),
                    same / len(repeats) if repeats else None, len(xs), shared_kappa(xs, ys), len(decisive),
                    left / len(decisive) if decisive else None, statistics.median(seconds) if seconds else None, [])
        if q.gold_accuracy is not None and q.gold_n >= t.min_n and q.gold_accuracy < t.min_gold_accuracy:
            q.flags.append("gold accuracy")
        if q.self_consistency is not None and q.repeats_n >= t.min_n and q.self_consistency < t.min_self_consistency:
            q.flags.append("self-consistency")
        if q.kappa is not None and q.shared_n >= 3 * t.min_n and q.kappa < t.min_kappa:
            q.flags.append("agreement")
        if q.left_share is not None and q.decisive_n >= 3 * t.min_n and abs(q.left_share - 0.5) > t.max_side_bias:
            q.flags.append("side preference")
        if q.seconds_per_vote is not None and len(seconds) >= t.min_n and q.seconds_per_vote < t.min_seconds:
            q.flags.append("too fast")
        out.append(q)
    return out


def admin_tables(pairs: list[dict[str, Any]], votes: list[dict[str, Any]], skips: list[tuple[str, str, int]],
                 annotators: list[str], rules: Rules, thresholds: Thresholds = Thresholds()) -> dict[str, list[list[Any]]]:
    """Progress per annotator (votes, repeats, skips), per slice value (pairs, votes, pairs at target) and the quality
    table. Gold pairs are left out of progress, their skips too."""
    gold_ids = {p["id"] for p in pairs if is_gold(p)}
    per_annotator = []
    for name in annotators:
        mine = [v for v in votes if v["annotator"] == name and v["pair_id"] not in gold_ids]
        per_annotator.append([name, sum(v["round"] == 1 for v in mine), sum(v["round"] == 2 for v in mine),
                              sum(a == name and pair_id not in gold_ids for a, pair_id, _ in skips)])
    counts = Counter(v["pair_id"] for v in votes if v["round"] == 1)
    regular = [p for p in pairs if p["id"] not in gold_ids]
    groups: dict[str, list[str]] = {"(all)": [p["id"] for p in regular]}
    for pair in regular:
        for key, value in sorted(pair.get("slices", {}).items()):
            groups.setdefault(f"{key}={value}", []).append(pair["id"])
    per_slice = [[name, len(ids), sum(counts[i] for i in ids), sum(counts[i] >= rules.target for i in ids)]
                 for name, ids in groups.items()]
    rows = [q.row() for q in quality(pairs, votes, annotators, thresholds)]
    return {"annotators": per_annotator, "slices": per_slice, "quality": rows}
