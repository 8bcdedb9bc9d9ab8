"""A judge that serves recorded answers keyed by the rendered prompt's hash: regression checks without API calls.

Recordings are any JSONL whose lines carry `prompt_hash` and `raw`: a run's samples.jsonl
works as it is. A prompt whose answer was never recorded fails with "no recorded answer for
prompt <hash>" (a FAILED judgment), so a changed template, task or example shows up as such
and is never answered by a guess.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judgebench.core.errors import JudgebenchError
from judgebench.core.files import read_json_objects
from judgebench.core.records import REPLAY_PREFIX, UNRECORDED, JudgeReply, JudgeRequest
from judgebench.judges.base import Judge, JudgeCallError

PREFIX = REPLAY_PREFIX


def load_recordings(path: Path) -> dict[str, str]:
    """prompt_hash -> raw answer; lines without an answer (failed calls) are skipped; the first answer wins."""
    if path.is_dir():
        path = path / "samples.jsonl"
    answers: dict[str, str] = {}
    for number, row in read_json_objects(path, label="replay recordings "):
        if not isinstance(row.get("prompt_hash"), str):
            raise JudgebenchError(f"replay recordings {path}:{number}: field 'prompt_hash' is missing")
        if isinstance(row.get("raw"), str):
            answers.setdefault(row["prompt_hash"], row["raw"])
    return answers


class ReplayJudge(Judge):
    """Answers from recordings; never calls a model."""

    def __init__(self, path: Path):
        self.path = path
        self.id = f"{PREFIX}{path}"
        self.answers = load_recordings(path)

    def public_args(self) -> dict[str, Any]:
        return {"recordings": str(self.path), "recorded_prompts": len(self.answers)}

    async def judge(self, request: JudgeRequest) -> JudgeReply:
        raw = self.answers.get(request.prompt_hash)
        if raw is None:
            # fails this call only; the run goes on
            raise JudgeCallError(UNRECORDED.format(hash=request.prompt_hash), retryable=False, fatal=False)
        return JudgeReply(text=raw, latency_s=0.0)


def make_replay_judge(judge_id: str, judge_args: dict[str, Any]) -> ReplayJudge:
    """`replay/PATH`: PATH is a samples.jsonl, a run directory or a recordings JSONL."""
    if judge_args:
        raise JudgebenchError(f"--judge-args is not used by the replay judge {judge_id}")
    path = Path(judge_id[len(PREFIX):])
    if not str(path) or str(path) == ".":
        raise JudgebenchError("judge 'replay/': name the recordings, e.g. replay/baseline/samples.jsonl")
    return ReplayJudge(path)
