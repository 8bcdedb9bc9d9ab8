"""`judgebench run` with several judges or --panel: each judge's summary as it finishes, then the panel."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from judgebench.core.errors import MESSAGE_MAX
from judgebench.core.text import term_text
from judgebench.judging.multirun import JudgeChoice

EXIT_STOPPED = 1


def run_several(
    task: str,
    judges: Sequence[JudgeChoice],
    output_path: Path,
    panel: Any,
    options: dict[str, Any],
    print_run: Callable[[Any], int],
) -> int:
    """Run every judge on `task` under `output_path` (multirun.py); the exit code (1: a judge stopped
    early or answered too little, or the panel could not be built)."""
    from judgebench.api import evaluate_judges
    from judgebench.publish.summary import format_panel

    codes: list[int] = []
    done = evaluate_judges(
        task, list(judges), output_path=output_path, panel=panel,
        on_run=lambda summary: codes.append(print_run(summary)), **options,
    )
    if done.not_run:
        print(f"judgebench: judges not run (an earlier judge was interrupted or reached --max-cost): {', '.join(done.not_run)}", file=sys.stderr)
        codes.append(EXIT_STOPPED)
    if done.panel is not None and done.panel_dir is not None:
        print(f"panel {done.panel.config.judge} -> {done.panel_dir} (no new calls)")
        if done.panel.panel is not None:
            print("\n".join(format_panel(done.panel.panel)))
    elif done.panel_skipped:
        print(f"judgebench: no panel: {term_text(done.panel_skipped, MESSAGE_MAX)}", file=sys.stderr)
        codes.append(EXIT_STOPPED)
    print(f"wrote {done.summary_path} ({len(done.runs)} judges)")
    return max(codes, default=0)
