"""Regenerate tests/recordings/<task>/ (results.json + samples.jsonl) for the replay regression check.

Each recording is a demo run of a deterministic fake LLM: a real OpenAI-compatible server on
127.0.0.1 (tests/openai_server.py) reached through the litellm judge, exactly as a hosted judge
would be. Its answer depends only on the rendered prompt (sha256 of the messages): an explanation
and a verdict, sometimes a tie where the task offers one, sometimes no usable verdict.

    python tests/recordings/make_recordings.py        # from the repository root, test extras installed

Regenerate after an intended change of a prompt template, a task's prompt-relevant fields, or the
verdict parser; the replay tests in tests/test_compare.py fail until then, by design.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/: openai_server

from openai_server import Behaviour, FakeOpenAIServer  # noqa: E402

from judgebench.cli.main import main  # noqa: E402

TASKS = ("sciarena_eval", "ideation_arena_eval")


def fake_answer(messages: list[dict[str, Any]]) -> str:
    """An answer picked from the prompt's hash: 6% give no verdict, 15% a tie where ties are offered, else A or B."""
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).digest()
    draw = int.from_bytes(digest[:4], "big") % 100
    ties = "[[TIE]]" in messages[-1]["content"]
    if draw < 6:
        return "Both answers have strengths and weaknesses, so I cannot decide between them."
    if ties and draw < 21:
        return "The two are about equally good on this criterion.\n\n[[TIE]]"
    verdict = "A" if draw % 2 == 0 else "B"
    return f"Answer {verdict} is more specific and better supported by its sources.\n\n[[{verdict}]]"


def record(folder: Path = HERE) -> None:
    with FakeOpenAIServer(Behaviour(answer=fake_answer)) as server:
        for task in TASKS:
            status = main(
                [
                    "run", "--tasks", task, "--demo", "--quiet", "--no-cache",
                    "--judge", "openai/fake-deterministic-judge",
                    "--judge-args", f"api_base={server.api_base},api_key=sk-recordings,temperature=0",
                    "--output-path", str(folder / task),
                ]
            )  # fmt: skip
            if status != 0:
                raise SystemExit(f"recording {task} failed (exit {status})")
            print(f"recorded {folder / task}")


if __name__ == "__main__":
    record()
