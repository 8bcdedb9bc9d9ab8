"""Judges: built-in offline baselines and LLM judges through litellm."""

from __future__ import annotations

from typing import Any

from judgebench.core.errors import JudgebenchError
from judgebench.core.names import REPLAY_PREFIX, is_builtin
from judgebench.judges.base import Judge, JudgeCallError

__all__ = ["Judge", "JudgeCallError", "make_judge"]


def make_judge(judge_id: str, judge_args: dict[str, Any] | None = None, seed: int = 0) -> Judge:
    """Build a judge from its id: `builtin/NAME`, `replay/RECORDINGS`, or any litellm model id."""
    judge_args = dict(judge_args or {})
    if judge_id.startswith(REPLAY_PREFIX):
        from judgebench.judges.replay import make_replay_judge

        return make_replay_judge(judge_id, judge_args)
    if is_builtin(judge_id):
        from judgebench.judges.builtin import make_builtin_judge

        if judge_args:
            raise JudgebenchError(f"--judge-args is not used by built-in judge {judge_id}")
        return make_builtin_judge(judge_id, seed=seed)
    from judgebench.judges.providers import folder_note  # (for the errors below; not on --help's path)

    if "/" not in judge_id:
        raise JudgebenchError(
            f"judge '{judge_id}': expected a litellm model id such as 'openai/gpt-4.1' "
            f"or a built-in judge such as 'builtin/longer'{folder_note(judge_id)}"
        )
    if "," in judge_id:  # no model id holds one: two judges in one flag
        raise JudgebenchError(f"judge {judge_id!r}: one judge per --judge (repeat the flag for several: "
                              f"--judge {judge_id.split(',')[0].strip()} --judge ...)")
    segments = judge_id.split("/")
    if any(seg.strip() in ("", ".", "..") or seg != seg.strip() for seg in segments) or any(
        not ch.isprintable() or ch == "\\" for ch in judge_id
    ):
        raise JudgebenchError(
            f"judge {judge_id!r}: a litellm model id is PROVIDER/MODEL with no empty, '.' or '..' part, "
            f"no backslash and no surrounding spaces{folder_note(judge_id)}"
        )
    from judgebench.judges.llm import (
        LiteLLMJudge,  # imported lazily: litellm takes seconds to import
    )

    return LiteLLMJudge(judge_id, judge_args)
