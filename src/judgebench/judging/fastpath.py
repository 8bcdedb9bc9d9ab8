"""The run's performance plan, in one place, so the pipeline reads as its steps (pipeline.run_task).

What it does, and why (each measured in docs/lab):
- the scoring modules are imported in a background thread while the calls are in flight (core/preload.py);
- the call worker starts before the data loads, so it imports the SDK and makes its clients meanwhile
  (calls/dispatch.py prepared_calls);
- the cyclic collector is off while the rows become objects (they hold no cycles), and, for a built-in
  judge judged in this thread, from the first chunk to results.json: the records are built, held and let
  go once, never walked by the collector (core/bulk.py);
- the records are dropped before the collector resumes.

Nothing here changes a figure: a run with every step of this plan turned off writes the same files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, TypeVar

from judgebench.calls import RunnerOptions, prepared_calls
from judgebench.core import preload
from judgebench.core.bulk import gc_paused
from judgebench.judges.builtin import FeatureJudge

if TYPE_CHECKING:
    from judgebench.calls.worker import CallWorker
    from judgebench.judges.base import Judge

T = TypeVar("T")

# scoring.score's own imports (it imports them lazily, on every run), preloaded while the calls are in flight
SCORING_IMPORTS = ("judgebench.core.bulk", "judgebench.scoring.ceiling", "judgebench.scoring.diagnostics",
                   "judgebench.scoring.judgment_table", "judgebench.scoring.metrics", "judgebench.scoring.selfpref",
                   "judgebench.scoring.usage",
                   "scipy.optimize")  # every Bradley-Terry point fit of the stored diagnostics starts with L-BFGS


class FastPath:
    """The steps of one run under the plan above: `load`, then `judge`; scoring follows inside `fast_path`."""

    def __init__(self, judge: Judge, runner: RunnerOptions, held: ExitStack) -> None:
        self._judge, self._runner, self._held = judge, runner, held
        self._in_thread = isinstance(judge, FeatureJudge) and not runner.batch  # judged here (streaming.py)
        self._calls = held.enter_context(ExitStack())
        self.worker: CallWorker | None = self._calls.enter_context(prepared_calls(judge, runner))

    def load(self, step: Callable[[], T]) -> T:
        """Load the data (the call worker warms up meanwhile); no collector while the rows become objects."""
        with gc_paused():
            return step()

    def judge(self, step: Callable[[CallWorker | None], T]) -> T:
        """Judge every example; the call worker is let go after it."""
        if self._in_thread:
            self._held.enter_context(gc_paused())  # until finish: the records are built, held, let go
        with self._calls:
            return step(self.worker)


@contextmanager
def fast_path(judge: Judge, runner: RunnerOptions) -> Iterator[FastPath]:
    """The plan for one run: the scoring imports named for the preload thread, the call worker started."""
    preload.need_later(*SCORING_IMPORTS)
    with ExitStack() as held:
        yield FastPath(judge, runner, held)
