"""`annotate --export`: the stored votes as votes.py Vote records (the layout arena, the human ceiling
and freeze read). First votes go to the named file; self-consistency repeats (round 2) to
`<name>.repeats.jsonl` beside it, so no annotator has two votes on one pair in the main file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgebench.human.annotate.store import Store
from judgebench.tasks.votes import Vote, write_votes


@dataclass
class Exported:
    votes: int
    repeats: int
    repeats_path: Path
    agreement: float | None  # share of repeats matching the first vote (self-consistency)


def to_vote(row: dict[str, Any], pair: dict[str, Any]) -> Vote:
    """One stored vote as a Vote record, with the pair's models and slices."""
    return Vote(
        pair_id=row["pair_id"], annotator=row["annotator"], choice=row["choice"],
        choices=json.loads(row["choices"]) if row["choices"] else {}, model_a=pair.get("model_a"),
        model_b=pair.get("model_b"), shown_order=row["shown_order"], timestamp=row["submitted_at"],
        seconds=row["seconds"], slices=pair.get("slices", {}), comment=row["comment"],
    )


def repeats_path(path: Path) -> Path:
    return path.with_name(f"{path.name.removesuffix('.jsonl')}.repeats.jsonl")


def export_votes(store: Store, path: Path) -> Exported:
    pairs = {p["id"]: p for p in store.pairs()}
    rows = store.votes()
    first = [to_vote(r, pairs[r["pair_id"]]) for r in rows if r["round"] == 1]
    again = [to_vote(r, pairs[r["pair_id"]]) for r in rows if r["round"] == 2]
    write_votes(path, first)
    write_votes(repeats_path(path), again)
    by_key = {(v.pair_id, v.annotator): v for v in first}
    matched = [by_key[(v.pair_id, v.annotator)] for v in again if (v.pair_id, v.annotator) in by_key]
    same = sum(a.choice == b.choice and a.choices == b.choices for a, b in zip(matched, [v for v in again if (v.pair_id, v.annotator) in by_key]))
    return Exported(len(first), len(again), repeats_path(path), same / len(matched) if matched else None)
