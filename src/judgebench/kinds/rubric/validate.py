"""Strict validation of a rubric judge's reply: accepted as given, or rejected with a reason.

Nothing is ever clamped, rounded or coerced: a score of 2.5 on a 2-point item, a string "1", a
missing item, a total that is not the sum of the items or a repeated JSON key (which value would
count?) rejects the whole reply (the runner then
re-asks, up to --reask). The reply must be one JSON object, optionally inside one ```json fence:

    {"sub_scores": [{"id": "a", "score": 1.5, "evidence": "quoted text"}, ...],
     "total_score": 3.5, "max_score": 4, "deductions": ["..."], "confidence": 0.8}
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from judgebench.kinds.rubric.records import Criterion

_FENCE = re.compile(r"^```(?:json)?\s*\n(.*)\n```$", re.DOTALL)


@dataclass(frozen=True)
class Accepted:
    scores: dict[str, float]  # rubric item id -> points
    total: float


def validate_reply(
    text: str, rubric: list[Criterion], *, tolerance: float = 0.01, evidence_required: bool = True
) -> Accepted | str:
    """The reply's scores, or the reason it is rejected (one line)."""
    data = _json_object(text)
    if isinstance(data, str):
        return data
    items = data.get("sub_scores")
    if not isinstance(items, list):
        return "no 'sub_scores' list"
    by_id: dict[str, dict[str, Any]] = {}
    for entry in items:
        item_id = entry.get("id") if isinstance(entry, dict) else None
        if isinstance(item_id, int) and not isinstance(item_id, bool):  # rubric ids "1", "2" may come back as numbers
            item_id = str(item_id)
        if not isinstance(item_id, str):
            return "a 'sub_scores' entry is not an object with an 'id'"
        if item_id in by_id:
            return f"item '{item_id}' given twice"
        by_id[item_id] = entry
    known = {c.id for c in rubric}
    extra = [i for i in by_id if i not in known]
    if extra:
        return f"extra item '{extra[0]}' (not in the rubric)"
    scores: dict[str, float] = {}
    for criterion in rubric:
        entry = by_id.get(criterion.id)
        if entry is None:
            return f"missing item '{criterion.id}'"
        checked = _item_score(entry, criterion, evidence_required)
        if isinstance(checked, str):
            return checked
        scores[criterion.id] = checked
    return _check_totals(data, scores, rubric, tolerance)


def _json_object(text: str) -> dict[str, Any] | str:
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        data = json.loads(body, object_pairs_hook=_unique_keys)
    except _RepeatedKey as exc:
        return f"repeated key '{exc.args[0]}' (ambiguous: which value counts?)"
    except (json.JSONDecodeError, RecursionError) as exc:
        return f"not JSON ({getattr(exc, 'msg', 'too deeply nested')})"
    if not isinstance(data, dict):
        return f"not a JSON object (got {type(data).__name__})"
    return data


class _RepeatedKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose key repeats ({"total_score": 9, "total_score": 3}) is rejected, not last-wins."""
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise _RepeatedKey(key)
        data[key] = value
    return data


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _item_score(entry: dict[str, Any], criterion: Criterion, evidence_required: bool) -> float | str:
    score = entry.get("score")
    if not _is_number(score):
        return f"item '{criterion.id}': score {score!r} is not a number"
    if not 0 <= score <= criterion.max:
        return f"item '{criterion.id}': score {score:g} is outside [0, {criterion.max:g}]"
    evidence = entry.get("evidence")
    if evidence_required and score > 0 and not (isinstance(evidence, str) and evidence.strip()):
        return f"item '{criterion.id}': score {score:g} above zero without evidence"
    return float(score)


def _check_totals(data: dict[str, Any], scores: dict[str, float], rubric: list[Criterion], tolerance: float) -> Accepted | str:
    total = data.get("total_score")
    if not _is_number(total):
        return f"total_score {total!r} is not a number"
    summed = sum(scores.values())
    if abs(total - summed) > tolerance + 1e-9:
        return f"total_score {total:g} is not the sum of the item scores ({summed:g})"
    top = sum(c.max for c in rubric)
    if "max_score" in data and not (_is_number(data["max_score"]) and abs(data["max_score"] - top) <= tolerance + 1e-9):
        return f"max_score {data['max_score']!r} is not the rubric's maximum ({top:g})"
    return Accepted(scores, float(total))
