"""Small builders shared by tests: fixture rows in the SciArena source layout, task YAMLs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def sci_row(i: int, vote: str = "A", **overrides: Any) -> dict[str, Any]:
    """One row in the released SciArena-Eval column layout."""
    row = {
        "id": f"q{i}",
        "question": f"Question {i} about enzyme kinetics?",
        "responseA": f"Answer A{i} with a citation (Smith et al. 2023a)." + " detail" * (i % 3),
        "responseB": f"Answer B{i}, shorter [1].",
        "modelA": "model-x",
        "modelB": "model-y",
        "vote": vote,
        "citation_a": [{"concise_authors": "Smith et al. 2023a"}],
        "citation_b": [{"concise_authors": "Doe 2020"}],
        "question_type": "Conceptual Explanation",
        "subject": ["Natural Science", "Healthcare", "Engineering", "Humanities & Social Sciences"][i % 4],
    }
    row.update(overrides)
    return row


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path
