"""Prices per token from litellm's bundled cost map, read from its JSON file without
importing litellm (which takes seconds): the openai transport and the batch path."""

from __future__ import annotations

import importlib.util
import json
from functools import cache
from pathlib import Path
from typing import Any

from judgebench.core.records import reported_amount, reported_count

COST_MAP_FILE = "model_prices_and_context_window_backup.json"


@cache
def load_cost_map() -> dict[str, Any]:
    """litellm's bundled cost map ({} when litellm or its file is missing)."""
    spec = importlib.util.find_spec("litellm")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / COST_MAP_FILE
        if path.is_file():
            try:
                return dict(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                return {}
    return {}


def cost_map_prices(model: str, provider: str, *, batch: bool = False) -> tuple[float, float] | None:
    """(input, output) USD per token for `provider/model` (or the bare model name of that
    provider), at batch prices with `batch`; None when the model is not priced."""
    suffix = "_batches" if batch else ""
    cost_map = load_cost_map()
    for name in (f"{provider}/{model}", model):
        entry = cost_map.get(name)
        if not isinstance(entry, dict):
            continue
        if entry.get("litellm_provider") not in (provider, None) and name == model:
            continue
        price_in = entry.get(f"input_cost_per_token{suffix}")
        price_out = entry.get(f"output_cost_per_token{suffix}")
        if isinstance(price_in, (int, float)) and isinstance(price_out, (int, float)):
            return float(price_in), float(price_out)
    return None


def price(prices: tuple[float, float] | None, tokens_in: Any, tokens_out: Any) -> float | None:
    """The cost of one answer, or None (unknown, never 0) without prices or sensible token counts
    (`records.reported_count`: a negative or absurd count never prices a call below zero)."""
    tokens_in, tokens_out = reported_count(tokens_in), reported_count(tokens_out)
    if prices is None or tokens_in is None or tokens_out is None:
        return None
    return reported_amount(tokens_in * prices[0] + tokens_out * prices[1])
