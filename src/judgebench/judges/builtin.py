"""Offline baseline judges: they make the papers' bias findings measurable and run without a network.

Each answers in the same text format an LLM judge is asked for ("[[A]]", or JSON in joint
mode), so its output goes through the same strict parser.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

from ..errors import JudgebenchError
from ..features import count_citations, response_length
from ..records import JudgeReply, JudgeRequest
from .base import Judge

NO_PREFERENCE = "No preference: the two responses are equal on this judge's feature."

# A feature of the response: the judge prefers the higher value (None: no feature, fixed choice).
Feature = Callable[[str], float]


class FeatureJudge(Judge):
    """Prefers the shown response with the larger feature; equal features give a tie, or no answer."""

    def __init__(self, judge_id: str, feature: Feature):
        self.id = judge_id
        self._feature = feature

    def choose(self, request: JudgeRequest, dimension: str) -> str | None:
        first, second = self._feature(request.first), self._feature(request.second)
        if first == second:
            return "TIE" if "TIE" in request.verdicts else None
        return "A" if first > second else "B"

    async def judge(self, request: JudgeRequest) -> JudgeReply:
        return JudgeReply(text=render_answer(request, lambda dim: self.choose(request, dim)))


class AlwaysFirstJudge(FeatureJudge):
    """Always picks the response shown first: pure position bias."""

    def __init__(self) -> None:
        super().__init__("builtin/always-a", lambda _text: 0.0)

    def choose(self, request: JudgeRequest, dimension: str) -> str | None:
        return "A"


class SeededRandomJudge(FeatureJudge):
    """Uniform over the allowed verdicts, from a hash of (seed, example, order, dimension): no global RNG."""

    def __init__(self, seed: int) -> None:
        super().__init__("builtin/random", lambda _text: 0.0)
        self.seed = seed

    def choose(self, request: JudgeRequest, dimension: str) -> str | None:
        key = f"{self.seed}:{request.example_id}:{request.order}:{dimension}".encode()
        draw = int.from_bytes(hashlib.sha256(key).digest()[:8], "big")
        return request.verdicts[draw % len(request.verdicts)]


def render_answer(request: JudgeRequest, choose: Callable[[str], str | None]) -> str:
    """'[[A]]' for one dimension; a JSON object of all dimensions in joint mode."""
    if len(request.dimensions) == 1:
        verdict = choose(request.dimensions[0])
        return f"[[{verdict}]]" if verdict else NO_PREFERENCE
    names = {"A": "A", "B": "B", "TIE": "Tie"}
    return json.dumps({dim: names.get(choose(dim) or "", "none") for dim in request.dimensions})


BUILTIN_JUDGES: dict[str, Callable[[int], Judge]] = {
    "builtin/longer": lambda seed: FeatureJudge("builtin/longer", response_length),
    "builtin/shorter": lambda seed: FeatureJudge("builtin/shorter", lambda text: -response_length(text)),
    "builtin/more-citations": lambda seed: FeatureJudge("builtin/more-citations", count_citations),
    "builtin/random": SeededRandomJudge,
    "builtin/always-a": lambda seed: AlwaysFirstJudge(),
}


def make_builtin_judge(judge_id: str, seed: int = 0) -> Judge:
    if judge_id not in BUILTIN_JUDGES:
        raise JudgebenchError(f"unknown built-in judge '{judge_id}'; built-in judges: {', '.join(BUILTIN_JUDGES)}")
    return BUILTIN_JUDGES[judge_id](seed)
