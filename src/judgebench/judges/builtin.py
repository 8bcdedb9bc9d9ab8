"""Offline baseline judges: they make the papers' bias findings measurable and run without a network.

Each answers in the same text format an LLM judge is asked for ("[[A]]", or JSON in joint
mode), so its output goes through the same strict parser.

Equal features: where the task allows TIE the feature judges answer TIE; on binary tasks they
break the tie with a deterministic per-example coin, sha256("coin:<seed>:<example id>"), which
picks a side in the dataset's positions, so the same response wins in both shown orders (the
coin adds no position inconsistency). The leaderboard's data-derived baseline rows call the
same `choose_values` of these judges.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence

from judgebench.core.errors import JudgebenchError
from judgebench.core.records import JudgeReply, JudgeRequest
from judgebench.judges.base import Judge
from judgebench.tasks.features import count_citations, response_length

NO_PREFERENCE = "No preference: the two responses are equal on this judge's feature."

# A feature of the response: the judge prefers the higher value (None: no feature, fixed choice).
Feature = Callable[[str], float]


def coin_side(seed: int, example_id: str) -> str:
    """The per-example coin: 'A' or 'B' in the dataset's positions, from sha256 of seed and example id."""
    draw = hashlib.sha256(f"coin:{seed}:{example_id}".encode()).digest()[0]
    return "AB"[draw % 2]


def shown_position(original: str, order: str) -> str:
    """Where the dataset's response A or B is shown in an order."""
    return original if order == "AB" else {"A": "B", "B": "A"}[original]


class FeatureJudge(Judge):
    """Prefers the shown response with the larger feature; equal features: TIE if allowed, else the coin."""

    def __init__(self, judge_id: str, feature: Feature, seed: int = 0):
        self.id = judge_id
        self._feature = feature
        self.seed = seed

    def choose_values(self, first: float, second: float, verdicts: Sequence[str], example_id: str, order: str) -> str:
        """The verdict (shown positions) from the two shown responses' feature values."""
        if first == second:
            return "TIE" if "TIE" in verdicts else shown_position(coin_side(self.seed, example_id), order)
        return "A" if first > second else "B"

    def choose(self, request: JudgeRequest, dimension: str) -> str | None:
        first, second = self._feature(request.first), self._feature(request.second)
        return self.choose_values(first, second, request.verdicts, request.example_id, request.order)

    async def judge(self, request: JudgeRequest) -> JudgeReply:
        return JudgeReply(text=render_answer(request, lambda dim: self.choose(request, dim)))


class AlwaysFirstJudge(FeatureJudge):
    """Always picks the response shown first: pure position bias."""

    def __init__(self) -> None:
        super().__init__("builtin/always-a", lambda _text: 0.0)

    def choose_values(self, first: float, second: float, verdicts: Sequence[str], example_id: str, order: str) -> str:
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


def answer_directly(judge: FeatureJudge, requests: list[JudgeRequest]) -> list[JudgeReply]:
    """A built-in judge's answers without an event loop; each response's feature is measured once."""
    measured: dict[int, float] = {}  # id of a response text (alive in the requests) -> its feature

    def value(text: str) -> float:
        key = id(text)
        if key not in measured:
            measured[key] = judge._feature(text)
        return measured[key]

    plain = type(judge).choose is FeatureJudge.choose  # the random judge draws per dimension
    replies = []
    made: dict[str, JudgeReply] = {}  # one reply per distinct answer ("[[A]]", "[[B]]"...): never modified later
    for request in requests:
        if plain:
            verdict = judge.choose_values(
                value(request.first), value(request.second), request.verdicts, request.example_id, request.order
            )
            text = render_answer(request, lambda _dim, v=verdict: v)
        else:
            text = render_answer(request, lambda dim, r=request: judge.choose(r, dim))
        if text not in made:
            made[text] = JudgeReply(text=text)
        replies.append(made[text])
    return replies


def render_answer(request: JudgeRequest, choose: Callable[[str], str | None]) -> str:
    """'[[A]]' for one dimension; a JSON object of all dimensions in joint mode."""
    if len(request.dimensions) == 1:
        verdict = choose(request.dimensions[0])
        return f"[[{verdict}]]" if verdict else NO_PREFERENCE
    names = {"A": "A", "B": "B", "TIE": "Tie"}
    return json.dumps({dim: names.get(choose(dim) or "", "none") for dim in request.dimensions})


BUILTIN_JUDGES: dict[str, Callable[[int], Judge]] = {
    "builtin/longer": lambda seed: FeatureJudge("builtin/longer", response_length, seed),
    "builtin/shorter": lambda seed: FeatureJudge("builtin/shorter", lambda text: -response_length(text), seed),
    "builtin/more-citations": lambda seed: FeatureJudge("builtin/more-citations", count_citations, seed),
    "builtin/random": SeededRandomJudge,
    "builtin/always-a": lambda seed: AlwaysFirstJudge(),
}


def make_builtin_judge(judge_id: str, seed: int = 0) -> Judge:
    if judge_id not in BUILTIN_JUDGES:
        raise JudgebenchError(f"unknown built-in judge '{judge_id}'; built-in judges: {', '.join(BUILTIN_JUDGES)}")
    return BUILTIN_JUDGES[judge_id](seed)
