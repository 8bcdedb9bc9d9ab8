"""Constants the command line's parsers need, in a module that imports nothing (no pydantic for `--help`).

`core/records.py` re-exports them; define them here only.
"""

from __future__ import annotations

MAX_RESAMPLES = 100_000  # --bootstrap above this is refused before any call (a typo would hang scoring)
BUILTIN_PREFIX, REPLAY_PREFIX, PANEL_PREFIX = "builtin/", "replay/", "panel/"


def is_builtin(judge_id: str) -> bool:
    """Whether `judge_id` names one of judgebench's own built-in judges' family (`builtin/...`), as written."""
    return judge_id.startswith(BUILTIN_PREFIX)


PROMPT_KEYS = ("name", "description", "system", "user")  # a prompt template's keys (judging/prompts.py)


def is_prompt_template(raw: object) -> bool:
    """Whether a YAML mapping is a prompt template: a `user` part and no key a template does not have. A task
    folder may hold its templates beside its tasks (a task's `prompt:` is looked up there); no task has `user`."""
    return isinstance(raw, dict) and "user" in raw and set(raw) <= set(PROMPT_KEYS)
