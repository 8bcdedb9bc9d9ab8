"""Test session setup: never touch the network, keep caches out of the user's home."""

from __future__ import annotations

import os
import tempfile

import pytest

# Set before huggingface_hub / datasets are imported: they read these at import time.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ.setdefault("HF_HOME", tempfile.mkdtemp(prefix="judgebench-hf-"))
os.environ.setdefault("JUDGEBENCH_CACHE_DIR", tempfile.mkdtemp(prefix="judgebench-cache-"))


# The fast selection (`python -m pytest -m "not slow"`, about a minute on 2 cores) leaves out the tests marked
# `@pytest.mark.slow` on the test itself: end-to-end runs through subprocesses, signals, the browser, multi-second
# servers, and anything measured over ~1.5 s. CI runs everything.


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: left out of the fast selection (-m 'not slow'); CI runs it")
