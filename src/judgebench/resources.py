"""Where the bundled tasks/ and prompts/ live, in a wheel or in a source checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def _resource_dir(name: str) -> Path:
    installed = _PACKAGE_DIR / "_resources" / name  # non-editable install (wheel)
    if installed.is_dir():
        return installed
    return _PACKAGE_DIR.parents[1] / name  # source checkout / editable install


def tasks_dir() -> Path:
    return _resource_dir("tasks")


def prompts_dir() -> Path:
    return _resource_dir("prompts")
