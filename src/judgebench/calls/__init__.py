"""The call layer: every judge call of a run, live or through a batch API.

    from judgebench.calls import RunnerOptions, run_requests
    outcome = run_requests(requests, judge, RunnerOptions(concurrency=64), is_parseable)

Modules: options (RunnerOptions, validated; RunOutcome), dispatch (run_requests: batch,
call worker or this process; signals), policy (retry, backoff, timeouts, rate limits),
live (the live run: concurrency, re-asks, claims), totals (usage over attempts, re-ask
messages), worker (the kill-safe forked call worker), batch (the provider's batch API),
state (what the live and batch runs share), progress (the progress bar), cache (the
SQLite reply cache). docs/guide/running-judges.md describes the guarantees.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judgebench.calls.dispatch import check_cache, prepared_calls, run_requests
    from judgebench.calls.options import RunnerOptions, RunOutcome
    from judgebench.calls.policy import TokenBucket
    from judgebench.calls.totals import REASK_TEMPLATE, reask_messages

# Imported when first asked for (PEP 562): the CLI's parsers import calls.options (RunnerOptions' defaults)
# and must not pull in dispatch -> batch -> cache -> records (pydantic) for `--help`.
_WHERE = {
    "check_cache": "dispatch", "prepared_calls": "dispatch", "run_requests": "dispatch",
    "RunnerOptions": "options", "RunOutcome": "options", "TokenBucket": "policy",
    "REASK_TEMPLATE": "totals", "reask_messages": "totals",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "REASK_TEMPLATE",
    "RunOutcome",
    "RunnerOptions",
    "TokenBucket",
    "check_cache",
    "prepared_calls",
    "reask_messages",
    "run_requests",
]
