"""Where a run's calls are made: the provider's batch API (batch.py), the forked call
worker (worker.py: Linux, with a cache), or this process (live.py); plus SIGINT/SIGTERM
handling and the cache check before any call.

    outcome = run_requests(requests, judge, RunnerOptions(concurrency=64), is_parseable)

    with prepared_calls(judge, options) as calls:  # the call worker warms up meanwhile
        requests = ...  # load the data, render the prompts
        outcome = run_requests(requests, judge, options, is_parseable, worker=calls)

Ctrl-C, and SIGTERM while run_requests runs (main thread only): returns what finished so
far with `stopped="interrupted (SIGINT|SIGTERM): N calls sent; ..."`. Without the worker,
the first signal drains (the calls in flight finish and are kept), a second one cancels.
JUDGEBENCH_CALL_WORKER=0 keeps the calls in this process.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from judgebench.calls.batch import batch_stop_line, run_batch
from judgebench.calls.batch_records import identity_hash, matching_records, note, records_folder
from judgebench.calls.budget import check_cap
from judgebench.calls.cache import ReplyCache
from judgebench.calls.live import LiveRun
from judgebench.calls.options import INTERRUPTED, RunnerOptions, RunOutcome
from judgebench.calls.progress import Progress
from judgebench.calls.state import in_event_loop, run_to_completion, uses_cache
from judgebench.calls.stopping import hold_interrupts
from judgebench.calls.worker import CallWorker
from judgebench.core import preload
from judgebench.core.errors import JudgebenchError
from judgebench.core.records import IN_FLIGHT, JudgeRequest, is_retries_cut
from judgebench.judges.base import Judge
from judgebench.judges.builtin import FeatureJudge, answer_directly


def check_cache(judge: Judge, options: RunnerOptions) -> None:
    """Open the cache the run will use (writability probe included) before any call:
    a one-line JudgebenchError naming the path when it cannot be used."""
    if uses_cache(judge, options):
        cache = ReplyCache(options.cache_dir)
        cache.close()
        if not options.batch:
            _note_recorded_batches(judge, cache.directory)


def _note_recorded_batches(judge: Judge, cache_dir: Path) -> None:
    """Say, before any call, that batches an earlier --batch run of this judge left recorded (calls/batch_records.py)
    are collected only by a --batch run: a rerun without --batch sent their requests again as calls, paid twice,
    without a word (an outside attack)."""
    try:
        folder = records_folder(cache_dir)
    except JudgebenchError:  # (a link: the --batch path refuses it)
        return
    records = matching_records(folder, identity_hash(judge.cache_identity()), None)
    if records:
        requests = sum(len(record.requests) for _, record in records)
        note(f"{len(records)} batch{'es' if len(records) > 1 else ''} of this judge that an earlier --batch run "
             f"submitted {'are' if len(records) > 1 else 'is'} recorded in {folder} ({requests} requests): only a "
             "--batch run collects them; this run sends any of their requests again as calls (paid again)")


def cache_endpoint_note(judge: Judge, options: RunnerOptions, prompt_hashes: list[str]) -> str | None:
    """A line when answers taken from the cache were recorded under another endpoint than the judge's
    api_base (possible only when judges share an endpoint_fingerprint); None otherwise, and when the cache cannot
    be opened any more (a disk that filled as the run ended: the note turned a written run into exit 2)."""
    from judgebench.calls.cache import cache_key
    from judgebench.calls.state import served_endpoint

    if not prompt_hashes or not uses_cache(judge, options):
        return None
    identity = judge.cache_identity()
    here = served_endpoint(judge)
    try:
        with ReplyCache(options.cache_dir) as cache:
            found = cache.endpoints([cache_key(identity, h) for h in prompt_hashes])
    except JudgebenchError:
        return None
    other = {endpoint: n for endpoint, n in found.items() if endpoint is not None and endpoint != here}
    if not other:
        return None
    where = ", ".join(f"{endpoint} ({n})" for endpoint, n in sorted(other.items()))
    return (f"{sum(other.values())} answers from the cache were recorded under another endpoint than "
            f"{here or 'the default'}: {where} (same endpoint_fingerprint)")


@contextmanager
def prepared_calls(judge: Judge, options: RunnerOptions) -> Iterator[CallWorker | None]:
    """Start the call worker now, when the run will use one, so that it imports the SDK
    and makes its clients while the caller loads the data; pass it to run_requests. It
    is let go on leaving (unused: it exits without a call)."""
    worker = None
    if not options.batch and not in_event_loop() and _use_worker(judge, options):
        worker = CallWorker(judge, options)
    try:
        yield worker
    finally:
        if worker is not None:
            worker.close()


def run_requests(
    requests: list[JudgeRequest],
    judge: Judge,
    options: RunnerOptions,
    is_parseable: Callable[[JudgeRequest, str], bool],
    *,
    worker: CallWorker | None = None,
) -> RunOutcome:
    """Run every request through the judge (see the module docstring); sync. `worker`:
    a call worker from prepared_calls (for this judge and options), else one is forked
    when the run uses one."""
    judge.preflight()  # credentials (the pipeline may have called it already: cheap)
    check_cap(judge, options.max_cost)  # an unpriced judge cannot be capped: refused before any call
    if options.batch:  # the provider's batch API: same cache and records
        with _SigtermAsInterrupt() as signals:
            outcome = run_batch(requests, judge, options, is_parseable)
        return _name_interrupt(outcome, signals, options)
    if isinstance(judge, FeatureJudge):  # deterministic, no network: answered here, no event loop
        return RunOutcome(list(answer_directly(judge, requests)), None, len(requests))
    check_cache(judge, options)
    if in_event_loop():  # called from inside an event loop (e.g. a notebook): in a thread
        return _run_here(requests, judge, options, is_parseable)
    with _SigtermAsInterrupt() as signals:
        here = not (_use_worker(judge, options) and _picklable(is_parseable))
        if here:
            outcome = _run_here(requests, judge, options, is_parseable, signals)
        else:
            outcome = _run_with_worker(requests, judge, options, is_parseable, worker)
    return _name_interrupt(outcome, signals, options, here=here)


def _run_with_worker(
    requests: list[JudgeRequest],
    judge: Judge,
    options: RunnerOptions,
    is_parseable: Callable[[JudgeRequest, str], bool],
    worker: CallWorker | None,
) -> RunOutcome:
    """Cache hits here, the rest in the call worker (forked now unless given). The
    progress bar (a tqdm thread) starts after any fork."""
    run = LiveRun(requests, judge, replace(options, progress=False), is_parseable)
    try:
        pending = sorted(i for item in run.take_cached() for i in item.indices)
        if run.cache is not None:  # the worker opens its own; none crosses a fork
            run.cache.close()
            run.cache = None
        if pending and worker is None:
            worker = CallWorker(judge, options)
        if options.progress:
            run.progress = Progress(len(requests), options.progress_label)
            _show_finished(run)
        if not pending:
            return run.outcome()
        assert worker is not None
        preload.start()  # the main process waits from here: imports for after the calls (preload.py)
        return worker.run(run, pending)
    finally:
        run.close_state()
        if worker is not None:
            worker.close()


def _show_finished(run: LiveRun) -> None:
    """Count the replies already in the run (the cache hits) on its progress bar."""
    if run.progress is None:
        return
    for request, reply in zip(run.requests, run.replies):
        if reply is not None:
            parseable = reply.text is not None and run.is_parseable(request, reply.text)
            run.progress.add(reply, parseable)


def _picklable(is_parseable: Callable[[JudgeRequest, str], bool]) -> bool:
    """The parser goes to the call worker pickled (by reference: a module-level function)."""
    try:
        pickle.dumps(is_parseable)
    except Exception:  # a lambda or a local function: the calls stay here
        return False
    return True


def _name_interrupt(outcome: RunOutcome, signals: _SigtermAsInterrupt, options: RunnerOptions, *,
                    here: bool = False) -> RunOutcome:
    """An interrupted outcome says which signal, how many calls were sent, and where the answers in flight go
    (nowhere with --no-cache: the outside re-run found the message claiming the cache then; nowhere either when
    a second signal cancelled them in this process (`here`): the call worker finishes its own into the cache)."""
    if outcome.stopped == INTERRUPTED:
        signal_name = signals.received or "SIGINT"
        if options.batch:  # a batch left running is recorded in the cache: a rerun collects it (batch.py)
            outcome.stopped = batch_stop_line(signal_name, outcome)
            return outcome
        outcome.stopped = f"interrupted ({signal_name}): {outcome.calls_made} calls sent{_in_flight_fate(outcome, options, here)}"
    return outcome


def _in_flight_fate(outcome: RunOutcome, options: RunnerOptions, here: bool) -> str:
    """What became of the answers in flight at an interrupt, for the stop line; nothing when none was (it said they
    "go to the cache" with none sent, and so with the calls it had waited for without the worker)."""
    errors = [reply.error or "" for reply in outcome.replies if reply is not None and reply.text is None]
    in_flight = sum(error == IN_FLIGHT for error in errors)  # sent, not waited for (or cancelled)
    cut = sum(map(is_retries_cut, errors))  # a retry the stop cut short
    retries = f"; {cut} calls waiting for a retry were not retried" if cut else ""
    if not here:  # the call worker finishes its own into the cache
        return (f"; {in_flight} answers still in flight go to the cache" if in_flight else "") + retries
    if in_flight:
        return f"; {in_flight} calls in flight were cancelled by the second signal: their answers are not kept{retries}"
    if not outcome.calls_made:
        return retries
    return "; calls under way at the stop were waited for and kept in this run" + (
        "" if options.use_cache else " (--no-cache: not cached)") + retries


class _SigtermAsInterrupt:
    """While active (main thread only), SIGTERM does what Ctrl-C does: the current SIGINT
    handler runs (asyncio's, or the one raising KeyboardInterrupt)."""

    def __init__(self) -> None:
        self.received: str | None = None
        self.previous: Any = None

    def _handle(self, signum: int, frame: Any) -> None:
        self.received = "SIGTERM"
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler):
            handler(signal.SIGINT, frame)
        else:
            raise KeyboardInterrupt

    def __enter__(self) -> _SigtermAsInterrupt:
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGTERM, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGTERM, self.previous)


def _run_here(
    requests: list[JudgeRequest],
    judge: Judge,
    options: RunnerOptions,
    is_parseable: Callable[[JudgeRequest, str], bool],
    signals: _SigtermAsInterrupt | None = None,
) -> RunOutcome:
    """The run in this process. In the main thread, the first Ctrl-C or SIGTERM drains
    (nothing new is sent, the calls in flight finish and are kept); a second one cancels."""
    run = LiveRun(requests, judge, options, is_parseable)

    async def main() -> None:
        _drain_on_signals(run, signals)
        try:
            await run.run()
        finally:
            await run.close()

    try:
        run_to_completion(main)
    except (KeyboardInterrupt, asyncio.CancelledError):  # a second signal cancels the calls in flight
        run.stopped = run.stopped or INTERRUPTED
    if run.draining and run.stopped is None:
        run.stopped = INTERRUPTED
    if run.stopped == INTERRUPTED:
        hold_interrupts()  # a further Ctrl-C must not stop the partial results being written (stopping.py)
    return run.outcome()


def _drain_on_signals(run: LiveRun, signals: _SigtermAsInterrupt | None) -> None:
    """SIGINT/SIGTERM: drain the run the first time, cancel it the second time."""
    if signals is None or threading.current_thread() is not threading.main_thread():
        return
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()

    def on_signal(name: str) -> None:
        if run.draining and task is not None:
            task.cancel()  # a second signal: stop waiting for the calls in flight
            return
        signals.received = signals.received or name
        run.start_draining()
        print(f"judgebench: {name}: stopping; waiting for the calls in flight (at most --timeout each, "
              f"{run.options.timeout_s:g} s); Ctrl-C or SIGTERM again stops them now", file=sys.stderr, flush=True)

    for signum, name in ((signal.SIGINT, "SIGINT"), (signal.SIGTERM, "SIGTERM")):
        if signal.getsignal(signum) == signal.SIG_IGN:  # ignored by whoever started us (a background job): it stays
            continue  # ignored, as on the call worker's path
        try:
            loop.add_signal_handler(signum, on_signal, name)
        except (NotImplementedError, RuntimeError, ValueError):
            return


def _use_worker(judge: Judge, options: RunnerOptions) -> bool:
    if os.environ.get("JUDGEBENCH_CALL_WORKER", "1") == "0":
        return False
    return (
        sys.platform.startswith("linux")  # fork without exec is unsafe on macOS
        and hasattr(os, "fork")
        and uses_cache(judge, options)
        and threading.current_thread() is threading.main_thread()
    )
