"""What `annotate` serves: pairs from a `judgebench pairs` file, or a task's examples (its labels unused).

A pair is stored as {id, question, response_a, response_b, model_a, model_b, slices[, gold]}; a
pairs-file row with a `gold` field (A, B, TIE or BOTH_BAD, or one per dimension) is a gold pair, mixed
in at --gold-share and never shown as such. A task with
several dimensions (Ideation-Arena-Eval's five) is voted per dimension.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judgebench.core.errors import JudgebenchError
from judgebench.core.files import read_json_objects, why_not_a_file

REQUIRED = ("id", "question", "response_a", "response_b")
NOT_SLICES = {*REQUIRED, "model_a", "model_b", "question_id", "slices", "gold"}
GOLD_LABELS = ("A", "B", "TIE", "BOTH_BAD")


def pairs_from_file(path: Path, slice_columns: list[str] | None = None) -> list[dict[str, Any]]:
    """Pairs from a JSON Lines pairs file; slices: the named columns, else every other text column
    (token, cost and latency columns excepted)."""
    if not path.is_file():
        raise JudgebenchError(f"pairs file {path}: {why_not_a_file(path)}")
    pairs, seen = [], set()
    for line, row in read_json_objects(path, "pairs file "):
        for key in REQUIRED:
            if not isinstance(row.get(key), (str, int)) or not str(row.get(key)).strip():  # blank: missing too
                raise JudgebenchError(f"pairs file {path}:{line}: '{key}' is missing, blank or not text")
        pair_id = str(row["id"])
        if pair_id in seen:
            raise JudgebenchError(f"pairs file {path}:{line}: duplicate id {pair_id!r}")
        seen.add(pair_id)
        columns = slice_columns if slice_columns is not None else [
            k for k, v in row.items() if k not in NOT_SLICES and isinstance(v, str)]
        pair = {
            "id": pair_id, "question": str(row["question"]), "response_a": str(row["response_a"]),
            "response_b": str(row["response_b"]), "model_a": row.get("model_a"), "model_b": row.get("model_b"),
            "slices": {c: str(row[c]) for c in columns if row.get(c) is not None},
        }
        gold = row.get("gold")
        if gold is not None:  # a gold pair: its known answer (one label, or one per dimension)
            values = gold.values() if isinstance(gold, dict) else [gold]
            if not values or any(v not in GOLD_LABELS for v in values):
                raise JudgebenchError(f"pairs file {path}:{line}: 'gold' must be one of {', '.join(GOLD_LABELS)} "
                                      "(or an object of them per dimension)")
            pair["gold"] = gold
        pairs.append(pair)
    if not pairs:
        raise JudgebenchError(f"pairs file {path}: no pairs")
    return pairs


def pairs_from_task(name: str, include_paths: list[Path], *, demo: bool, dataset_path: str | None) -> tuple[list[dict[str, Any]], list[str]]:
    """A task's examples as pairs, and its dimensions when it has more than one."""
    from judgebench.tasks.loading import load_examples
    from judgebench.tasks.registry import get_task

    spec = get_task(name, include_paths)
    loaded = load_examples(spec, demo=demo, dataset_path=dataset_path)
    pairs = [{"id": e.id, "question": e.question, "response_a": e.response_a, "response_b": e.response_b,
              "model_a": e.model_a, "model_b": e.model_b, "slices": dict(e.slices)} for e in loaded.examples]
    dimensions = list(spec.dimension_names)
    return pairs, dimensions if len(dimensions) > 1 else []
