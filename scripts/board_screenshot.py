"""Build a small leaderboard (built-in judges, two configurations of one stub model on the local fake server,
a --limit run) and save a 1,400 px screenshot of its index.html from headless Chromium (issue 29 item 5).

    PYTHONPATH=src python scripts/board_screenshot.py docs/guide/img/leaderboard-1400.png
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from helpers import start_chromium  # noqa: E402
from openai_server import Behaviour, FakeOpenAIServer  # noqa: E402

from judgebench.cli.main import main  # noqa: E402


def build(folder: Path) -> Path:
    base = ["run", "--tasks", "sciarena_eval", "--demo", "--quiet", "--cache-dir", str(folder / "cache")]
    for judge in ("builtin/longer", "builtin/always-a", "builtin/random"):
        main([*base, "--judge", judge, "--output-path", str(folder / "runs" / judge.replace("/", "-"))])
    main([*base, "--limit", "0.2", "--judge", "builtin/shorter", "--output-path", str(folder / "runs" / "subset")])
    with FakeOpenAIServer(Behaviour(answer="@hash")) as low, FakeOpenAIServer(Behaviour(answer="[[A]]")) as high:
        for effort, server in (("low", low), ("high", high)):
            main([*base, "--judge", "openai/o4-mini-stub", "--judge-args",
                  f"api_base={server.api_base},api_key=sk-t,reasoning_effort={effort},input_cost_per_mtok=1.1,output_cost_per_mtok=4.4",
                  "--output-path", str(folder / "runs" / f"o4-{effort}")])
    main(["leaderboard", str(folder / "runs"), "--output-dir", str(folder / "board")])
    return folder / "board" / "index.html"


def main_(out: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        page = build(Path(tmp))
        driver = start_chromium(Path(tmp) / "profile")
        try:
            driver.set_window_size(1400, 900)
            driver.get(page.as_uri())
            driver.save_screenshot(str(out))
        finally:
            driver.quit()
    print(f"wrote {out}")


if __name__ == "__main__":
    main_(Path(sys.argv[1]))
