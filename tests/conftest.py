"""Test session setup: never touch the network, keep caches out of the user's home."""

from __future__ import annotations

import os
import tempfile

import pytest

# Set before huggingface_hub / datasets are imported: they read these at import time.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
# litellm fetches its cost map from GitHub at import unless told not to; judgebench's own import of it says so
# (providers.import_litellm), but a test importing litellm first did not (3 attempts, a warning)
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ.setdefault("HF_HOME", tempfile.mkdtemp(prefix="judgebench-hf-"))
os.environ.setdefault("JUDGEBENCH_CACHE_DIR", tempfile.mkdtemp(prefix="judgebench-cache-"))


# The fast selection (`python -m pytest -m "not slow"`, about a minute on 2 cores) leaves out the tests marked
# `@pytest.mark.slow` on the test itself: end-to-end runs through subprocesses, signals, the browser, multi-second
# servers, and anything measured over ~1.5 s. CI runs everything.


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: left out of the fast selection (-m 'not slow'); CI runs it")


@pytest.fixture(autouse=True)
def no_threads_left():
    """Every test leaves a single-threaded process, so later tests that fork do (core/background.can_fork): wait
    for the preload thread a run with the call worker starts, and stop any tqdm monitor thread."""
    yield
    import sys
    import threading

    preload = sys.modules.get("judgebench.core.preload")
    if preload is not None:
        preload.settle()
    monitor = sys.modules.get("tqdm._monitor")
    if monitor is not None:
        for thread in threading.enumerate():
            if isinstance(thread, monitor.TMonitor):
                thread.exit()
