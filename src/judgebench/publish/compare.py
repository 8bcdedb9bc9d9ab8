"""`compare`'s text, regression gate and output file, from scoring/compare.py's paired comparison."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judgebench.core.catalogue import (
    metric,
)
from judgebench.core.errors import JudgebenchError
from judgebench.core.text import UNDEFINED, percent, term_text
from judgebench.scoring.compare import Comparison, Flip
from judgebench.stats.paired import (
    ALPHA,
    format_p,
)


def describe_test(comparison: Comparison) -> str:
    """The test in one phrase: name, unit, n, p (and the resample count for Monte Carlo)."""
    t = comparison.test
    drawn = f", {t.resamples} seeded sign patterns" if t.resamples else ""
    return f"{t.name}, unit example, n = {t.n} changed examples ({t.rose} rose, {t.fell} fell){drawn}, {format_p(t)}"


def format_comparison(comparison: Comparison, max_flips: int = 20) -> str:
    """A human summary: figures, the paired test, deltas, hashes, flips."""
    if max_flips < 0:
        raise JudgebenchError(f"--max-flips: expected a non-negative count, got {max_flips}")
    c, base, cand = comparison, comparison.baseline, comparison.candidate
    template_changed = "changed" if base.prompt_template_hash != cand.prompt_template_hash else "same"
    verdict = f"significant at {ALPHA:g}" if c.significant else f"not significant at {ALPHA:g}"
    lines = [
        f"compare {term_text(c.task)}: baseline {term_text(base.run_dir)} ({term_text(base.judge_label)}) vs candidate "
        f"{term_text(cand.run_dir)} ({term_text(cand.judge_label)})",
        f"  prompt template   baseline {base.prompt_template}@{base.prompt_template_hash[:10]}, "
        f"candidate {cand.prompt_template}@{cand.prompt_template_hash[:10]} ({template_changed})",
        f"  configuration     {_changes(c.config_changes)}",
        f"  paired            {c.examples} examples, {c.judgments} judgments "
        "(unit: the example, its orders and dimensions averaged)",
        f"  {c.headline + ' (' + c.scope + ')':<17} {_pct(base.value)} -> {_pct(cand.value)}: {_points(c.difference)}"
        + (f", 95% paired-bootstrap CI [{100 * c.ci_low:+.2f}, {100 * c.ci_high:+.2f}]"
           if c.ci_low is not None and c.ci_high is not None else " (one shared example: no interval)"),
        f"  paired test       {describe_test(c)} ({verdict})",
        *_order_consistency_line(base.order_consistency, cand.order_consistency),
        f"  invalid rate      {_pct(base.invalid_rate)} -> {_pct(cand.invalid_rate)} ({_points(cand.invalid_rate - base.invalid_rate)})",
        f"  failed rate       {_pct(base.failed_rate)} -> {_pct(cand.failed_rate)} ({_points(cand.failed_rate - base.failed_rate)})",
    ]
    if c.per_dimension:
        lines.append(f"  per dimension     {c.headline}, baseline -> candidate (descriptive; the test is per example)")
    for dimension, values in c.per_dimension.items():
        lines.append(
            f"    {dimension}: {_pct(values['baseline'])} -> {_pct(values['candidate'])} ({_points(values['difference'])})"
        )
    lines.extend(comparison_lines(c.value_metrics))  # value-only catalogue metrics (scoring/metrics.value_metrics)
    if cand.unrecorded or base.unrecorded:
        lines.append(
            f"  unrecorded prompts: candidate {cand.unrecorded}, baseline {base.unrecorded} "
            "(replay had no recorded answer: the rendered prompt changed)"
        )
    lines.extend(_flip_lines(c.flips, max_flips))
    lines.extend(f"  note: {note}" for note in c.notes)
    return "\n".join(lines)


def _order_consistency_line(base: float | None, cand: float | None) -> list[str]:
    """Left out when neither run defines it (no judgment answered in both orders, or a --no-swap run); an
    undefined side shows as —."""
    if base is None and cand is None:
        return []
    change = f" ({_points(cand - base)})" if base is not None and cand is not None else ""
    return [f"  order consistency {_pct(base)} -> {_pct(cand)}{change}"]


def _changes(changes: list[str]) -> str:
    return f"{'; '.join(map(term_text, changes))} (baseline -> candidate)" if changes else "the same"


def _flip_lines(flips: list[Flip], max_flips: int) -> list[str]:
    counts = {kind: sum(f.change == kind for f in flips) for kind in ("fixed", "broken", "changed")}
    lines = [
        f"  flips             {len(flips)} examples changed: {counts['fixed']} fixed (score rose), "
        f"{counts['broken']} broken (score fell), {counts['changed']} other (verdicts changed, same score)"
    ]
    shown = sorted(flips, key=lambda f: ({"broken": 0, "fixed": 1}.get(f.change, 2), f.example_id))[:max_flips]
    if shown:
        lines.append("    example | label | score baseline -> candidate | change | verdicts baseline -> candidate")
        lines.extend(
            f"    {f.example_id} | {f.label} | {f.baseline:.2f} -> {f.candidate:.2f} | {f.change} | {', '.join(f.judgments)}"
            for f in shown
        )
    if len(flips) > len(shown):
        lines.append(f"    ... {len(flips) - len(shown)} more (all in --output FILE)")
    lines += ["    read them side by side: judgebench view BASELINE CANDIDATE, filter 'runs differ'"] if flips else []  # issue 31
    return lines


def gate_message(comparison: Comparison, worse_by_points: float) -> tuple[bool, str]:
    """(failed, one line) for --fail-if-worse-by, worded from `Comparison.gate_failure`'s decision."""
    change = 100 * comparison.difference
    test = describe_test(comparison)
    failure = comparison.gate_failure(worse_by_points)
    if failure == "missing_units":
        return True, (
            f"gate failed: the candidate lacks {comparison.missing_units} of the baseline's {comparison.baseline_units} "
            f"(example, dimension) units (a gate vouches only for what it compared: run the candidate on the baseline's examples)"
        )
    if failure == "unrecorded":
        return True, (
            f"gate failed: {comparison.candidate.unrecorded} of the candidate's judgments had no recorded answer (replay: "
            "their rendered prompts changed, and no recording says what the judge answers now; after an intended "
            "prompt change, make a new baseline with the real judge)"
        )
    if failure == "regression":
        return True, (
            f"regression: {comparison.headline} dropped {-change:.2f} points (> {worse_by_points:g}), "
            f"significant ({test})"
        )
    if change >= 0:
        why = "not a drop"
    elif -change <= worse_by_points:
        why = "not more than the threshold"
    else:
        why = f"not significant: {test}"
    return False, f"gate passed: change {change:+.2f} points ({why}; threshold {worse_by_points:g} " \
                  f"point{'' if worse_by_points == 1 else 's'})"


def write_comparison(comparison: Comparison, path: Path, gate: dict[str, Any] | None = None) -> None:
    """The full comparison as JSON; with the gate's decision too when there was one (`gate`: fail_if_worse_by,
    failed, message)."""
    from judgebench.core.files import json_text, write_atomic

    data = comparison.to_json() | ({"gate": gate} if gate is not None else {})
    write_atomic(path, json_text(data, indent=2) + "\n")


def _pct(value: float | None) -> str:
    return percent(value, 2)


def _points(value: float) -> str:
    """A difference in points, signed; one that rounds to zero is `+0.00` (a tiny drop printed `-0.00`)."""
    return f"{round(100 * value, 2) + 0.0:+.2f} points"  # (+ 0.0: a -0.0 is 0.0)


def comparison_lines(values: dict[str, dict[str, float | None]]) -> list[str]:
    """`compare`'s text lines for run_values: baseline -> candidate, percentages for shares; a figure neither run
    defines (ECE of judges that give no confidence) is left out, not printed as n/a -> n/a; a side that does not
    define it shows as —."""

    def shown(name: str, v: float | None) -> str:
        if v is None:
            return UNDEFINED
        return f"{100 * v:.2f}%" if metric(name).percent else f"{v:.4f}"

    return [f"  {name:<17} {shown(name, pair['baseline'])} -> {shown(name, pair['candidate'])} "
            "(each whole run; no paired test)" for name, pair in values.items()
            if pair["baseline"] is not None or pair["candidate"] is not None]
