"""Where things live: the bundled tasks/ and prompts/ (in a wheel or a source checkout) and the cache folder."""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parents[1]  # judgebench/ (this file is judgebench/core/resources.py)


def _resource_dir(name: str) -> Path:
    installed = _PACKAGE_DIR / "_resources" / name  # non-editable install (wheel)
    if installed.is_dir():
        return installed
    return _PACKAGE_DIR.parents[1] / name  # source checkout / editable install


def tasks_dir() -> Path:
    return _resource_dir("tasks")


def prompts_dir() -> Path:
    return _resource_dir("prompts")


def default_cache_dir() -> Path:
    """$JUDGEBENCH_CACHE_DIR when set, else the platform's user cache dir."""
    env = os.environ.get("JUDGEBENCH_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("judgebench"))
