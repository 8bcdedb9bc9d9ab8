"""The terminal summary of a finished run (what `run` and `score` print)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judgebench.core.catalogue import SUMMARY_METRICS, headline_family
from judgebench.core.text import term_text


def format_summary(result: Any, run_dir: Path, calls_made: int | None = None) -> str:
    """A short human summary of a results file."""
    from judgebench.scoring.usage import run_notes

    config, counts = result.config, result.counts
    headline = result.config.headline
    lines = [
        f"{term_text(config.task)} v{term_text(config.task_version)} | judge {term_text(config.judge)} | "
        f"data {'demo' if config.dataset.demo else term_text(config.dataset.source)}"
        + (" | PARTIAL" if config.partial else ""),
    ]
    for dimension, metrics in result.metrics.items():
        parts = []
        for name in (*headline_family(headline), *SUMMARY_METRICS):
            value = metrics.get(name)
            if value is not None and value.value is not None:
                ci = f" [{value.ci_low:.3f}, {value.ci_high:.3f}]" if value.ci_low is not None else ""
                parts.append(f"{name} {value.value:.3f}{ci}")
        lines.append(f"  {dimension}: " + "; ".join(parts))
    made = f"; {calls_made} calls sent" if calls_made is not None else ""
    lines.append(
        f"  judgments {counts.calls}: answered {counts.answered}, invalid {counts.invalid}, "
        f"failed {counts.failed} (coverage {counts.coverage:.3f}; {counts.cached} from cache{made})"
    )
    lines += [f"  {note}" for note in run_notes(result.counts, result.usage)]
    from judgebench.publish.leaderboard import summary_lines

    lines += summary_lines(result)  # data with annotator-level votes: the human ceiling
    lines.append(f"  wrote {run_dir / 'results.json'} and {run_dir / 'samples.jsonl'}")
    return "\n".join(lines)
