"""A run's figures as text lines, shared by the terminal summary and report.md: repeats' stability, a
panel's agreement, and models ordered without an upset (shown_orders, also arena's)."""

from __future__ import annotations

import json
from collections.abc import Callable

from judgebench.core.records import PanelSummary, RepeatStability, RunResult
from judgebench.core.text import UNDEFINED, percent
from judgebench.stats.paired import MONTE_CARLO_RESAMPLES, PairedTest, format_p


def stability_lines(result: RunResult) -> list[str]:
    """A run's stability figures as text lines; none for a run without --repeats."""
    return format_stability(result.stability) if result.stability is not None else []


def format_stability(s: RepeatStability) -> list[str]:
    """The stability figures as text lines (the run's summary and report.md)."""
    cost = f"${s.cost_usd_all:.4f}" if s.cost_usd_all is not None else (
        "unpriced" if s.tokens_in_all or s.tokens_out_all else "none (no tokens reported, e.g. a built-in judge)")
    ci = f", 95% CI of the mean [{percent(s.headline_ci_low)}, {percent(s.headline_ci_high)}]" if s.headline_ci_low is not None else ""
    return [
        f"Repeats: {s.repeats} samples per judgment (main metrics: repeat 0)",
        f"  exact agreement across repeats: mean over examples {percent(s.agreement_mean)}; "
        f"{percent(s.judgments_agreeing)} of {s.n_judgments} judgments",
        f"  examples whose verdict flips between repeats: {percent(s.flip_rate)}",
        f"  {s.headline} per repeat: {', '.join(percent(v) for v in s.headline_per_repeat)} "
        f"(min {percent(s.headline_min)}, max {percent(s.headline_max)}, mean {percent(s.headline_mean)}{ci})",
        f"  majority-of-{s.repeats}: {s.headline} {percent(s.majority_headline)} (coverage {percent(s.majority_coverage)})",
        f"  all repeats: {s.judgments_all} judgments (answered {s.answered_all}, invalid {s.invalid_all}, "
        f"failed {s.failed_all}); {s.tokens_in_all} tokens in, {s.tokens_out_all} out, cost {cost}",
    ]


def format_panel(summary: PanelSummary) -> list[str]:
    """The panel section as text lines (CLI summary and report.md): agreement, test, biases."""
    num = lambda v: UNDEFINED if v is None else f"{v:.3f}"  # noqa: E731
    lines = [f"Panel ({summary.aggregate}) of {len(summary.judges)} judges; Cohen's kappa (judgments both answered):"]
    labels = [f.judge for f in summary.figures[1:]]  # the members' labels, told apart (judges.config.member_labels)
    for i, judge in enumerate(labels if len(labels) == len(summary.judges) else summary.judges):
        cells = " ".join(f"{num(k):>7}" for k in summary.cohen_kappa[i])
        lines.append(f"  [{i + 1}] {cells}  {judge}")
    n = summary.fleiss_kappa_n
    if summary.fleiss_kappa is not None:
        lines.append(f"Fleiss' kappa {summary.fleiss_kappa:.3f} (n = {n} judgments every member answered)")
    elif n == 0:  # a sentence leaves an undefined figure out and says why
        lines.append("Fleiss' kappa: undefined (no judgment all members answered)")
    else:  # scoring/panel_stats.fleiss_kappa: all votes one verdict, so chance agreement is 1
        lines.append(f"Fleiss' kappa: undefined (one verdict throughout the n = {n} judgments every member answered)")
    v = summary.versus_best
    if v is not None:
        lines.append(
            f"Panel vs best member {v.best_member}: {percent(v.panel_value)} vs {percent(v.best_value)} "
            f"({100 * v.difference:+.2f} points); {v.test}, unit example, n = {v.n} ({v.rose} rose, {v.fell} fell), "
            f"{format_p(PairedTest(v.test, 'example', v.n, v.rose, v.fell, v.p, MONTE_CARLO_RESAMPLES if 'Monte' in v.test else None))}"
        )
    lines.append("judge | headline | coverage | position bias | longer preferred")
    lines.extend(
        f"{f.judge} | {percent(f.headline)} | {percent(f.coverage)} | {percent(f.position_bias)} | {percent(f.longer_preferred_rate)}"
        for f in summary.figures
    )
    return lines


def shown_orders(orders: list[list[list[str]]], text: Callable[[str], str]) -> str:
    """`{a} > {b, c}; {d} > {e}`: at most 5 orders of 6 groups (`shown_group`)."""

    def order(groups: list[list[str]]) -> str:
        return " > ".join(shown_group(g, text) for g in groups[:6]) + (" > ..." if len(groups) > 6 else "")

    return "; ".join(map(order, orders[:5])) + ("; ..." if len(orders) > 5 else "")


def shown_group(models: list[str], text: Callable[[str], str]) -> str:
    """`{a, b, c}`: at most 5 models, `text` escaping each name, and a name holding one of the separators in quotes
    (`a} > {b` would read as two models)."""

    def name(model: str) -> str:
        shown = text(model)
        return json.dumps(shown, ensure_ascii=False) if any(c in shown for c in '{},>;"') else shown

    return "{" + ", ".join(map(name, models[:5])) + (", ..." if len(models) > 5 else "") + "}"
