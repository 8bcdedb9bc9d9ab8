"""`annotate --export`: the stored votes as votes.py Vote records (the layout arena, the human ceiling
and freeze read). First votes go to the named file; self-consistency repeats (round 2) to
`<name>.repeats.jsonl` beside it, so no annotator has two votes on one pair in the main file; votes
on gold pairs (known answers, quality control only) to `<name>.gold.jsonl`. The quality figures of
each annotator (quality.py) go to `<name>.quality.json`, and the names the thresholds flag, one a
line, to `<name>.flagged.txt` (what `freeze --exclude-annotators` reads).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from judgebench.core.files import json_text, names_text, write_atomic
from judgebench.human.annotate.assign import is_gold
from judgebench.human.annotate.quality import figured_annotators, quality
from judgebench.human.annotate.store import Store
from judgebench.tasks.votes import Vote, pair_text_hash, write_votes


@dataclass
class Exported:
    votes: int
    repeats: int
    repeats_path: Path
    agreement: float | None  # share of repeats matching the first vote (self-consistency)
    gold: int = 0
    flagged: list[str] = field(default_factory=list)
    flagged_path: Path | None = None


def to_vote(row: dict[str, Any], pair: dict[str, Any]) -> Vote:
    """One stored vote as a Vote record, with the pair's models and slices."""
    return Vote(
        pair_id=row["pair_id"], annotator=row["annotator"], choice=row["choice"],
        choices=json.loads(row["choices"]) if row["choices"] else {}, model_a=pair.get("model_a"),
        model_b=pair.get("model_b"), shown_order=row["shown_order"], timestamp=row["submitted_at"],
        seconds=row["seconds"], slices=pair.get("slices", {}), comment=row["comment"], pair_sha256=pair_text_hash(pair),
    )


REPEATS, GOLD, QUALITY, FLAGGED = "repeats.jsonl", "gold.jsonl", "quality.json", "flagged.txt"
BESIDE = (REPEATS, GOLD, QUALITY, FLAGGED)  # written beside the votes NAME.jsonl: NAME.<kind>


def sibling(path: Path, kind: str) -> Path:
    return path.with_name(f"{path.name.removesuffix('.jsonl')}.{kind}")


def repeats_path(path: Path) -> Path:
    return sibling(path, REPEATS)


def exported_files(path: Path) -> list[Path]:
    """Every file `export_votes(store, path)` may write: the votes, the repeats, the gold votes, the quality
    figures and the flagged annotators (checked against the command's inputs before anything is written)."""
    return [path, *(sibling(path, kind) for kind in BESIDE)]


def export_votes(store: Store, path: Path) -> Exported:
    pairs = {p["id"]: p for p in store.pairs()}
    rows = store.votes()
    gold_rows = [r for r in rows if is_gold(pairs[r["pair_id"]])]
    study = [r for r in rows if not is_gold(pairs[r["pair_id"]])]
    first = [to_vote(r, pairs[r["pair_id"]]) for r in study if r["round"] == 1]
    again = [to_vote(r, pairs[r["pair_id"]]) for r in study if r["round"] == 2]
    write_votes(path, first)
    write_votes(repeats_path(path), again)
    write_votes(sibling(path, GOLD), [to_vote(r, pairs[r["pair_id"]]) for r in gold_rows])  # (empty without gold
    # pairs, like the repeats: every file the guide lists is there, none left from an older export)
    by_key = {(v.pair_id, v.annotator): v for v in first}
    matched = [(by_key[(v.pair_id, v.annotator)], v) for v in again if (v.pair_id, v.annotator) in by_key]
    same = sum(a.choice == b.choice and a.choices == b.choices for a, b in matched)
    figures = quality(list(pairs.values()), rows, figured_annotators(store.annotators(), rows, store.skips()))
    flagged = [q.annotator for q in figures if q.flags]
    write_atomic(sibling(path, QUALITY), json_text([asdict(q) for q in figures], indent=1) + "\n")
    flagged_path = sibling(path, FLAGGED)
    write_atomic(flagged_path, names_text(flagged))
    return Exported(len(first), len(again), repeats_path(path), same / len(matched) if matched else None,
                    len(gold_rows), flagged, flagged_path)
