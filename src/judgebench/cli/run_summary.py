"""The terminal summary of a finished run (what `run` and `score` print)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judgebench.core.catalogue import SUMMARY_METRICS, headline_family
from judgebench.core.text import term_text


INTERVALS = "95% bootstrap intervals"  # scoring/metrics.score_records' level (the run has no level to set)


def format_summary(result: Any, run_dir: Path, calls_made: int | None = None, collected: int = 0) -> str:
    """A short human summary of a results file. `collected`: judgments a `--batch` run took from a batch an earlier
    run submitted (a rerun said "0 from cache; 0 calls sent" of them)."""
    from judgebench.judges.config import named_judge
    from judgebench.scoring.usage import run_notes

    config, counts = result.config, result.counts
    headline = result.config.headline
    subset = ""
    if getattr(config, "limit", None) is not None:
        from judgebench.publish.leaderboard import subset_marker

        subset = f" | {subset_marker(config, counts.examples)}, not ranked among full runs"
    lines = [
        f"{term_text(config.task)} v{term_text(config.task_version)} | judge {term_text(named_judge(config.judge, getattr(config, 'judge_name', None)))}"
        f"{_hash_shown(config)} | "
        f"data {'demo' if config.dataset.demo else term_text(config.dataset.source)}"
        + (" | PARTIAL" if config.partial else "") + subset,
    ]
    level_stated = False  # the intervals' level, said once: on the first line that shows one
    for dimension, metrics in result.metrics.items():
        parts, intervals = [], False
        for name in (*headline_family(headline), *SUMMARY_METRICS):
            value = metrics.get(name)
            if value is not None and value.value is not None:
                ci = f" [{value.ci_low:.3f}, {value.ci_high:.3f}]" if value.ci_low is not None else ""
                parts.append(f"{name} {value.value:.3f}{ci}")
                intervals = intervals or bool(ci)
        level = f" ({INTERVALS})" if intervals and not level_stated else ""
        level_stated = level_stated or intervals
        shown = "; ".join(parts) or _no_figure(config)  # (an outside audit: `overall: ` and nothing after it)
        lines.append(f"  {dimension}: {shown}{level}")
    unlabelled = getattr(result, "unlabelled", None)
    stability = getattr(result, "stability", None)
    repeats = f" over all {stability.repeats} repeats" if stability and stability.repeats > 1 else ""
    made = f"; {calls_made} calls sent{repeats}" if calls_made is not None and unlabelled is None else ""
    if collected:
        made = f"; {collected} collected from a batch an earlier run submitted (no new cost){made}"
    lines.append(
        f"  judgments {counts.calls}: answered {counts.answered}, invalid {counts.invalid}, "
        f"failed {counts.failed} (coverage {counts.coverage:.3f}; {counts.cached} from cache{made})"
    )
    usage_line = format_usage(result.usage)
    if usage_line:
        lines.append(usage_line)
    lines += [f"  {note}" for note in run_notes(result.counts, result.usage)]
    from judgebench.publish.leaderboard import summary_lines

    lines += summary_lines(result)  # data with annotator-level votes: the human ceiling
    lines += _unlabelled_lines(unlabelled, calls_made)
    lines.append(f"  wrote {term_text(run_dir / 'results.json')} and {term_text(run_dir / 'samples.jsonl')}"
                 + (f" (and {term_text(run_dir / 'unlabelled.jsonl')})" if unlabelled else ""))
    return "\n".join(lines)


def _unlabelled_lines(unlabelled: Any, calls_made: int | None) -> list[str]:
    """`run --judge-unlabelled`: the unlabelled examples' judgments, counted and costed, never scored; the calls
    sent, for the whole run."""
    if unlabelled is None:
        return []
    counts = unlabelled.counts
    made = f"; {calls_made} calls sent in all" if calls_made is not None else ""
    lines = [f"  unlabelled examples {unlabelled.examples} (not scored): judgments {counts.calls}, answered "
             f"{counts.answered}, invalid {counts.invalid}, failed {counts.failed} ({counts.cached} from cache{made})"]
    usage_line = format_usage(unlabelled.usage)
    return lines + ([usage_line.replace("  ", "    ", 1)] if usage_line else [])


def format_usage(usage: Any) -> str | None:
    """`  tokens 12,345 in / 678 out; cost $0.0123 (of it $0.0100 from the cache, not paid again)`."""
    if usage is None or not hasattr(usage, "tokens_in"):
        return None
    if not (usage.tokens_in or usage.tokens_out or usage.priced_calls):  # built-in judges: no tokens, no line
        return None
    if usage.cost_usd is not None:
        cost = f"cost ${usage.cost_usd:.4f}"
    else:
        cost = f"cost unknown ({usage.unpriced_calls} calls unpriced; give a price: docs/guide/cost-and-reasoning.md)"
    cached, resumed = getattr(usage, "cached_calls", None), getattr(usage, "resumed_calls", None)
    earlier = usage.cached_cost_usd if usage.cost_usd is not None else None
    what = " and ".join(part for part in (f"{cached} answers from the cache" if cached else "",
                                          f"the earlier answers of {resumed} re-asks resumed from "
                                          f"{'it' if cached else 'the cache'}" if resumed else "") if part)
    if what and earlier is not None:
        cost += f" (of it ${earlier:.4f} for {what}, not paid again)"
    elif cached:
        cost += f" ({cached} answers from the cache, not paid again)"
    return f"  tokens {usage.tokens_in:,} in / {usage.tokens_out:,} out; {cost}"


def _no_figure(config: Any) -> str:
    """Why a dimension shows no figure: nothing scorable in it."""
    if getattr(config, "both_bad", None) == "exclude":
        return "no figure (no scorable judgment: every label Both Bad, excluded by --both-bad exclude, or none answered)"
    return "no figure (no scorable judgment)"


def _hash_shown(config: Any) -> str:
    """` #HASH8`: the judge configuration's hash, as the viewer labels it (two settings of one model under one name
    told apart on the terminal too; a walkthrough saw the name alone)."""
    from judgebench.judges.config import run_config_hash

    return f" #{run_config_hash(config)[:8]}"
