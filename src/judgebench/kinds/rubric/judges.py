"""Built-in offline rubric judges (baselines that make the metrics' floors visible), and the factory.

builtin/full-credit          every rubric item at its maximum: the over-credit ceiling
builtin/length-proportional  every item at the same share of its maximum: the response's length over
                             the longest response to the same problem (the task's `group`, else the
                             same question), rounded to 0.01 points: a judge that only reads length
Both answer in the same JSON as an LLM judge, so their replies go through the same validation.
"""

from __future__ import annotations

import json
from typing import Any

from judgebench.core.errors import JudgebenchError
from judgebench.core.names import is_builtin
from judgebench.core.records import JudgeReply, JudgeRequest
from judgebench.judges import Judge, make_judge

EVIDENCE_CHARS = 80


class _RubricBuiltin(Judge):
    def __init__(self, judge_id: str):
        self.id = judge_id

    def share(self, request: JudgeRequest) -> float:
        raise NotImplementedError

    async def judge(self, request: JudgeRequest) -> JudgeReply:
        share = self.share(request)
        evidence = request.first.strip()[:EVIDENCE_CHARS] or "(empty)"
        items = [
            {"id": c["id"], "score": round(c["max"] * share, 2), "evidence": evidence}
            for c in request.context["rubric"]
        ]
        total = round(sum(i["score"] for i in items), 6)
        top = sum(c["max"] for c in request.context["rubric"])
        answer = {"sub_scores": items, "total_score": total, "max_score": top, "deductions": [], "confidence": 1.0}
        return JudgeReply(text=json.dumps(answer), tokens_in=0, tokens_out=0, cost_usd=0.0)


class FullCredit(_RubricBuiltin):
    def share(self, request: JudgeRequest) -> float:
        return 1.0


class LengthProportional(_RubricBuiltin):
    def share(self, request: JudgeRequest) -> float:
        longest = request.context.get("longest_chars") or 0
        return min(1.0, len(request.first.strip()) / longest) if longest else 0.0


BUILTINS = {"builtin/full-credit": FullCredit, "builtin/length-proportional": LengthProportional}


def make_rubric_judge(judge_id: str, judge_args: dict[str, Any] | None, seed: int = 0) -> Judge:
    """A built-in rubric judge, or any judge `make_judge` builds (LLM, replay)."""
    if is_builtin(judge_id):
        if judge_id not in BUILTINS:
            raise JudgebenchError(f"--judge {judge_id}: unknown built-in rubric judge (known: {', '.join(BUILTINS)})")
        if judge_args:
            raise JudgebenchError(f"--judge-args is not used by built-in judge {judge_id}")
        return BUILTINS[judge_id](judge_id)
    return make_judge(judge_id, judge_args, seed=seed)
