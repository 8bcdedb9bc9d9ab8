"""Write tasks/demo/human_votes_demo.jsonl: annotator-level votes (long layout, one row per vote) on the
pairs of the bundled SciArena-Eval demo split (texts written by the judgebench authors).

Synthetic votes with known structure, seeded: 36 pairs get three votes from a pool of six annotators,
12 pairs one vote; each vote agrees with the demo label with probability 0.8, else tie (0.1) or the
other side (0.07) or Both Bad (0.03); annotator ann-1 votes six pairs a second time (self-consistency).
Rerun to regenerate: python scripts/make_votes_demo.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "tasks" / "demo" / "sciarena_eval_demo.jsonl"
TARGET = ROOT / "tasks" / "demo" / "human_votes_demo.jsonl"
ANNOTATORS = [f"ann-{i}" for i in range(1, 7)]
KEEP = ("id", "question", "responseA", "responseB", "modelA", "modelB", "subject")


def vote(rng: np.random.Generator, label: str) -> str:
    other = "B" if label == "A" else "A"
    return str(rng.choice([label, "tie", other, "bad"], p=[0.8, 0.1, 0.07, 0.03]))


def main() -> None:
    rng = np.random.default_rng(12)
    pairs = [json.loads(line) for line in SOURCE.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows, minute = [], 0
    for index, pair in enumerate(pairs):
        annotators = list(rng.choice(ANNOTATORS, size=3 if index < 36 else 1, replace=False))
        if index < 36 and index % 6 == 0 and "ann-1" not in annotators:
            annotators[0] = "ann-1"
        if index < 36 and index % 6 == 0:
            annotators.append("ann-1")  # a repeated vote, later
        for annotator in annotators:
            minute += int(rng.integers(1, 5))
            rows.append({
                **{key: pair[key] for key in KEEP},
                "annotator": str(annotator),
                "vote": vote(rng, pair["vote"]),
                "shown_order": str(rng.choice(["AB", "BA"])),
                "timestamp": f"2026-11-{1 + minute // 1440:02d}T{minute % 1440 // 60:02d}:{minute % 60:02d}:00Z",
            })
    TARGET.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    print(f"wrote {len(rows)} votes on {len(pairs)} pairs to {TARGET.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
