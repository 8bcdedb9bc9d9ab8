"""The runner's public names, kept here for existing imports; the code is in the `calls`
package (judgebench.calls: dispatch, policy, live, worker, batch, cache)."""

from __future__ import annotations

from .calls import (
    REASK_TEMPLATE,
    RunnerOptions,
    RunOutcome,
    TokenBucket,
    arun_requests,
    check_cache,
    reask_messages,
    run_requests,
)

__all__ = [
    "REASK_TEMPLATE",
    "RunOutcome",
    "RunnerOptions",
    "TokenBucket",
    "arun_requests",
    "check_cache",
    "reask_messages",
    "run_requests",
]
