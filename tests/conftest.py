"""Test session setup: never touch the network, keep caches out of the user's home."""

from __future__ import annotations

import os
import tempfile

# Set before huggingface_hub / datasets are imported: they read these at import time.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ.setdefault("HF_HOME", tempfile.mkdtemp(prefix="judgebench-hf-"))
os.environ.setdefault("JUDGEBENCH_CACHE_DIR", tempfile.mkdtemp(prefix="judgebench-cache-"))
