"""judgebench: meta-evaluation of LLM-as-judge against human pairwise preferences.

The Python API (`evaluate`, `evaluate_judges`, `score_run`, `read_run`, `build_leaderboard`, `compare_runs`,
`build_panel`) is in `judgebench.api` and re-exported here, with `Judge`, `JudgeCallError` and `function_judge`
for your own judge (judges/own.py); they and `judgebench.calls` (RunnerOptions) are imported on first use so
`import judgebench` stays fast. `JudgebenchError` is what bad input raises; `JudgebenchWarning` what a call warns
of when given no `on_warning`.
"""

from __future__ import annotations

from typing import Any

from judgebench.core.errors import JudgebenchError, JudgebenchWarning
from judgebench.core.version import __version__

__all__ = ["Judge", "JudgeCallError", "JudgebenchError", "JudgebenchWarning", "build_leaderboard", "build_panel",
           "compare_runs", "evaluate", "evaluate_judges", "function_judge", "read_run", "score_run", "__version__"]

_API = {"evaluate", "evaluate_judges", "score_run", "read_run", "build_leaderboard", "compare_runs", "build_panel"}
_JUDGES = {"Judge": "base", "JudgeCallError": "base", "function_judge": "own"}  # your own judge (judges/own.py)
_SUBMODULES = {"calls", "api"}  # `judgebench.calls.RunnerOptions(...)`, `judgebench.api.sweep(...)` after a plain `import judgebench`


def __getattr__(name: str) -> Any:
    if name in _API:
        from judgebench import api

        return getattr(api, name)
    if name in _JUDGES:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.judges.{_JUDGES[name]}"), name)
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'judgebench' has no attribute {name!r}")
