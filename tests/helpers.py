"""Small builders shared by tests: fixture rows in the SciArena source layout, task YAMLs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def sci_row(i: int, vote: str = "A", **overrides: Any) -> dict[str, Any]:
    """One row in the released SciArena-Eval column layout."""
    row = {
        "id": f"q{i}",
        "question": f"Question {i} about enzyme kinetics?",
        "responseA": f"Answer A{i} with a citation (Smith et al. 2023a)." + " detail" * (i % 3),
        "responseB": f"Answer B{i}, shorter [1].",
        "modelA": "model-x",
        "modelB": "model-y",
        "vote": vote,
        "citation_a": [{"concise_authors": "Smith et al. 2023a"}],
        "citation_b": [{"concise_authors": "Doe 2020"}],
        "question_type": "Conceptual Explanation",
        "subject": ["Natural Science", "Healthcare", "Engineering", "Humanities & Social Sciences"][i % 4],
    }
    row.update(overrides)
    return row


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- headless Chromium

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
CHROME_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
)


def start_chromium(profile: Path) -> Any:
    """A headless Chromium driven by selenium (Debian's chromium and chromedriver; never downloads a
    driver); the test is skipped when they are not installed."""
    import pytest

    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.skip("headless Chromium test: /usr/bin/chromium and /usr/bin/chromedriver are not installed")
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in CHROME_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
