"""`judgebench rubric report`: report.md with the calibration figures and three plots, from the run alone.

scatter.png        judge total vs expert total per response (normalized by the maximum), identity line
slice_bias.png     mean judge - expert points per response total, per slice value, with intervals
system_totals.png  per model and exam: the expert's summed total beside the judge's (ScienceArena's
                   calibration figure), the within-k verdict in the title
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from judgebench.core.files import is_inside, write_atomic
from judgebench.core.rundir import REPORT_DIR
from judgebench.kinds.rubric.records import RubricRecord, RubricResult
from judgebench.kinds.rubric.run import read_rubric_run
from judgebench.kinds.rubric.scoring import calibration_records, repeat_agreement_text
from judgebench.publish.figures import literal, save_png
from judgebench.publish.tables import md_escape


def write_rubric_report(run_dir: Path, output_dir: Path | None = None) -> list[Path]:
    result, records = read_rubric_run(run_dir)
    out = output_dir or run_dir / REPORT_DIR
    written = [_scatter(records, out / "scatter.png"), _slice_bias(result, out / "slice_bias.png"),
               _system(result, out / "system_totals.png")]
    written = [p for p in written if p is not None]
    path = out / "report.md"
    write_atomic(path, _markdown(result, [p.name for p in written]))
    return [path, *written]


def _worst_pair(pair: str | None, difference: float | None) -> str:
    """The pair farthest from the experts, its difference as the table below prints it (`g`: it had printed
    1.4499999999999993)."""
    return "no model pair" if pair is None or difference is None else f"worst pair {md_escape(pair)} (|difference| {difference:g})"


def _rank_agreement(spearman: float | None, kendall: float | None) -> str:
    """The model ranks' agreement, its undefined figures said in words (constant totals on either side rank
    nothing: "Spearman None" was printed)."""
    if spearman is None and kendall is None:
        return "model rank agreement undefined (the expert or the judge totals are all equal)"
    shown = [f"{name} {value:.3f}" for name, value in (("Spearman", spearman), ("Kendall", kendall)) if value is not None]
    return "model rank " + ", ".join(shown)


def _figure(width: float = 6.0, height: float = 4.0) -> tuple[Any, Any]:
    from matplotlib.figure import Figure  # imported here: keep the CLI start fast

    fig = Figure(figsize=(width, height), dpi=100)
    fig.subplots_adjust(left=0.13, right=0.97, bottom=0.2, top=0.9)
    return fig, fig.add_subplot()


def _save(fig: Any, path: Path) -> Path:
    if not is_inside(path, path.parent):
        raise ValueError(path)
    save_png(fig, path)
    return path


def _scatter(records: list[RubricRecord], path: Path) -> Path | None:
    scored = calibration_records(records)
    if not scored:
        return None
    fig, ax = _figure(5, 5)
    expert = np.array([r.expert_total / r.max_total for r in scored])
    judge = np.array([r.total / r.max_total for r in scored])
    ax.scatter(expert, judge, s=18, alpha=0.7)
    ax.plot([0, 1], [0, 1], color="grey", linewidth=1)
    ax.set(xlabel="expert total / maximum", ylabel="judge total / maximum", xlim=(-0.03, 1.03), ylim=(-0.03, 1.03),
           title=f"judge vs expert ({len(scored)} responses)")
    return _save(fig, path)


def _slice_bias(result: RubricResult, path: Path) -> Path | None:
    rows = [(f"{column}={value}", figures["bias"]) for column, values in result.slices.get("total", {}).items()
            for value, figures in values.items() if figures["bias"].value is not None]
    if not rows:
        return None
    fig, ax = _figure(6, 0.6 + 0.45 * len(rows))
    fig.subplots_adjust(left=0.35)
    values = np.array([b.value for _, b in rows])
    low = np.array([b.value - (b.ci_low if b.ci_low is not None else b.value) for _, b in rows])
    high = np.array([(b.ci_high if b.ci_high is not None else b.value) - b.value for _, b in rows])
    ax.barh([literal(name) for name, _ in rows], values, xerr=[low, high], color=["tab:red" if v > 0 else "tab:blue" for v in values])
    ax.axvline(0, color="grey", linewidth=1)
    ax.set(xlabel="mean judge - expert points per response (above 0: over-credit)", title="bias per slice")
    return _save(fig, path)


def _system(result: RubricResult, path: Path) -> Path | None:
    pairs = result.system.pairs
    if not pairs:
        return None
    fig, ax = _figure(max(6, 0.9 * len(pairs)), 4.5)
    x = np.arange(len(pairs))
    ax.bar(x - 0.2, [p.expert_total for p in pairs], 0.4, label="expert")
    ax.bar(x + 0.2, [p.judge_total for p in pairs], 0.4, label=literal(result.config.judge))
    ax.set_xticks(x, [f"{literal(p.model)}\n{literal(p.exam)}" for p in pairs], rotation=45, ha="right", fontsize=7)
    verdict = {True: "every pair within", False: "NOT every pair within", None: ""}[result.system.passed]
    ax.set(ylabel="summed points", title=f"model-exam totals: {verdict} {result.system.within_k:g} point(s)")
    ax.legend(fontsize=8)
    return _save(fig, path)


def _markdown(result: RubricResult, images: list[str]) -> str:
    c = result.counts
    lines = [f"# Rubric report: {md_escape(result.config.task)}, judge {md_escape(result.config.judge)}", "",
             f"Responses {c.responses}, judgments {c.judgments}: answered {c.answered}, no answer {c.no_answer} "
             f"(scored zero without a call), rejected after every re-ask {c.invalid}, failed {c.failed}; "
             f"replies received {c.calls}; coverage {c.coverage:.3f}.", ""]
    if c.coverage < 1:  # the coverage leads: every figure below is over the scored responses only
        lines[2:2] = [f"**Coverage {100 * c.coverage:.1f}%: every figure below is over the scored responses only**; "
                      "a low coverage is a failed run however good the figures look.", ""]
    lines += ["| level | metric | value | 95% interval | n |", "|---|---|---|---|---|"]
    for level, figures in result.metrics.items():
        for name, v in figures.items():
            interval = f"[{v.ci_low:.4f}, {v.ci_high:.4f}]" if v.ci_low is not None else ""
            value = "" if v.value is None else f"{v.value:.4f}"
            lines.append(f"| {level} | {name} | {value} | {interval} | {v.n} |")
    s = result.system
    lines += ["", f"## System level (within {s.within_k:g} point(s))", "",
              f"Passed: {'yes' if s.passed else 'no'}; {_worst_pair(s.worst_pair, s.max_abs_difference)}; "
              f"complete: {'yes' if s.complete else 'no'}; {_rank_agreement(s.rank_spearman, s.rank_kendall)}.", "",
              "| model | exam | expert | judge | difference |", "|---|---|---|---|---|"]
    lines += [f"| {md_escape(p.model)} | {md_escape(p.exam)} | {p.expert_total:g} | {p.judge_total:g} | {p.difference:+g} |"
              for p in s.pairs]
    if result.repeat_agreement:
        lines += ["", f"Repeat agreement: {repeat_agreement_text(result.repeat_agreement)}."]
    lines += ["", *[f"![{name}]({name})" for name in images], ""]
    return "\n".join(lines)
