"""SQLite files opened by several processes at once (core/sqlite.py): a new reply cache's switch to WAL."""

from __future__ import annotations

import multiprocessing
import sys
from pathlib import Path

import pytest

from judgebench.calls.cache import ReplyCache
from judgebench.core.errors import JudgebenchError


def _open_at_once(folder: str, barrier, results) -> None:  # type: ignore[no-untyped-def]
    barrier.wait()
    try:
        ReplyCache(folder).close()
        results.put("ok")
    except JudgebenchError as exc:
        results.put(str(exc))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork: the processes start from this one")
def test_runs_starting_together_on_a_new_cache_all_open_it(tmp_path: Path) -> None:
    # SQLite refused the second switch of a new file to WAL at once ("database is locked", no busy wait): two
    # runs on one new --cache-dir failed 24 times in 30 simultaneous starts
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    for round_ in range(12):
        barrier = context.Barrier(3)
        children = [context.Process(target=_open_at_once, args=(str(tmp_path / str(round_)), barrier, results))
                    for _ in range(3)]
        for child in children:
            child.start()
        for child in children:
            child.join(60)
    outcomes = [results.get(timeout=10) for _ in range(36)]
    assert outcomes == ["ok"] * 36
