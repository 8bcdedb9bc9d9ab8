"""Prompt tokens before a call, and a judge's prices and output budget: what `--dry-run` and
`--max-cost` estimate with.

Input tokens: litellm's `token_counter` when litellm is importable and the judge's model is in its
bundled cost map (a model litellm knows; OpenAI models are counted with tiktoken, message overhead
included), else the characters-per-token estimate `chars // 4 + 1` per call, chars being the
characters of every message's content (4 characters per token is the usual rule of thumb for
English text; the test server counts prompt tokens the same way). Output: the judge's max_tokens
(or max_completion_tokens), else DEFAULT_OUTPUT_BUDGET per call: a budget, so the cost estimate is
an upper bound for the output side.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from judgebench.judges.base import Judge
from judgebench.judges.prices import cost_map_prices, load_cost_map

CHARS_PER_TOKEN = 4
DEFAULT_OUTPUT_BUDGET = 1024  # tokens per call when the judge sets no max_tokens
CHARS_METHOD = f"estimate: characters / {CHARS_PER_TOKEN} + 1 per call"

Messages = Sequence[dict[str, Any]]


def chars_tokens(messages: Messages) -> int:
    """The characters-per-token estimate of one call's prompt."""
    return sum(len(str(m.get("content", ""))) for m in messages) // CHARS_PER_TOKEN + 1


def _provider_model(judge: Judge) -> tuple[str, str] | None:
    split = getattr(judge, "split_provider", None)
    return split() if callable(split) else None


def token_counter(judge: Judge) -> tuple[Callable[[Messages], int], str]:
    """(count(messages) -> tokens, how they are counted) for this judge."""
    pair = _provider_model(judge)
    cost_map = load_cost_map()
    model = getattr(judge, "model", judge.id)
    if pair is not None and (model in cost_map or pair[1] in cost_map):
        try:
            from judgebench.judges.providers import import_litellm

            litellm = import_litellm()
        except ImportError:
            return chars_tokens, CHARS_METHOD
        name = pair[1] if pair[1] in cost_map else model

        def count(messages: Messages) -> int:
            return int(litellm.token_counter(model=name, messages=list(messages)))

        return count, f"litellm token_counter ({name})"
    return chars_tokens, CHARS_METHOD


def judge_prices(judge: Judge, *, batch: bool = False) -> tuple[float, float] | None:
    """(input, output) USD per token of this judge from litellm's cost map (batch prices with
    `batch`, as the batch path charges); None: unpriced. A price given with the judge
    (input_cost_per_mtok / output_cost_per_mtok) wins, batch or not."""
    override = getattr(judge, "price_override", None)
    if override is not None:
        return override
    pair = _provider_model(judge)
    return cost_map_prices(pair[1], pair[0], batch=batch) if pair is not None else None


def output_budget(judge: Judge) -> tuple[int, str]:
    """(output tokens per call, where the figure comes from)."""
    args = judge.public_args()
    for name in ("max_tokens", "max_completion_tokens"):
        if isinstance(args.get(name), int):
            return int(args[name]), name
    return DEFAULT_OUTPUT_BUDGET, f"default {DEFAULT_OUTPUT_BUDGET} (no max_tokens)"


def is_paid(judge: Judge) -> bool:
    """An LLM judge (its calls cost money); built-in and replay judges do not."""
    return _provider_model(judge) is not None
