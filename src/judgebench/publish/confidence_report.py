"""The report's confidence section (issue 34): a reliability diagram and accuracy vs coverage / humans-in-the-
loop plots with their CSVs, from scoring/calibration.py. Left out when no judgment carries a confidence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judgebench.core.files import write_atomic
from judgebench.core.records import JudgmentRecord, MetricValue, RunResult
from judgebench.core.text import percent
from judgebench.publish.figures import save_png
from judgebench.scoring.calibration import calibration_curves


def _interval(low: float | None, high: float | None) -> str:
    """` [low, high]`, or nothing when the interval is undefined (one example, or no resample defined it)."""
    return "" if low is None or high is None else f" [{percent(low)}, {percent(high)}]"


def _num(m: MetricValue) -> str:
    ci = f" [{m.ci_low:.3f}, {m.ci_high:.3f}]" if m.ci_low is not None and m.ci_high is not None else ""
    return f"{m.value:.3f}{ci}"


def plot_reliability(curve: dict[str, Any], path: Path, title: str) -> None:
    from matplotlib.figure import Figure

    votes = curve.get("vote_curve") or []
    fig = Figure(figsize=(10.0 if votes else 5.0, 4.6), dpi=100)
    ax = fig.add_subplot(1, 2 if votes else 1, 1)
    if votes:  # the judge's P(A) against the share of experts who chose A
        vx = fig.add_subplot(1, 2, 2)
        vx.plot([0, 1], [0, 1], color="black", lw=0.8, ls="--", label="as split as the experts")
        vx.plot([b[3] for b in votes], [b[4] for b in votes], marker="o", color="tab:green", label="judge")
        vx.set_xlim(0, 1), vx.set_ylim(0, 1.02)
        vx.set_xlabel("judge's P(A) (bin mean)"), vx.set_ylabel("share of annotators choosing A")
        vx.set_title("against the experts' vote shares", fontsize=9), vx.legend(loc="upper left", fontsize=8)
    ax.plot([0, 1], [0, 1], color="black", lw=0.8, ls="--", label="perfect calibration")
    bins = curve["reliability"]
    ax.plot([b[3] for b in bins], [b[4] for b in bins], marker="o", label="judge")
    for b in bins:
        ax.annotate(str(b[2]), (b[3], b[4]), textcoords="offset points", xytext=(4, -10), fontsize=7)
    ax.set_xlim(0, 1), ax.set_ylim(0, 1.02)
    ax.set_xlabel("confidence in its verdict (bin mean)"), ax.set_ylabel("top label's accuracy in the bin")
    ax.set_title(title, fontsize=9), ax.legend(loc="upper left", fontsize=8)
    save_png(fig, path)


def plot_selective(curve: dict[str, Any], path: Path, title: str) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9.0, 4.0), dpi=100)
    left, right = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    left.plot([p[0] for p in curve["selective"]], [p[1] for p in curve["selective"]])
    left.set_xlabel("coverage (most confident share kept)"), left.set_ylabel("verdict accuracy on the kept examples")
    left.set_xlim(0, 1), left.set_ylim(0, 1.02), left.set_title("judge abstains below a threshold", fontsize=9)
    shares = [p[0] for p in curve["handoff"]]
    right.plot([100 * s for s in shares], [p[1] for p in curve["handoff"]], marker="o")
    right.set_xlabel("least confident % sent to humans"), right.set_ylabel("verdict accuracy of judge + humans")
    right.set_ylim(0, 1.02), right.set_title("humans take the least confident", fontsize=9)
    fig.suptitle(title, fontsize=10)
    save_png(fig, path)


ACCURACIES = ("Two accuracies appear here, over the same examples (those with a confidence and a label) and "
              "against the same majority label, both exact (a tie against a decisive label scores 0, also where the "
              "headline is soft accuracy): the reliability diagram and ECE score the confidence's **top label** (the "
              "largest of P(A), P(TIE), P(B): 1 or 0 per example), what the confidence is a confidence in; accuracy "
              "vs coverage and the handoff table score the judge's **verdicts**, per example the mean over its "
              "orders (a pair whose orders split scores 0.5), as the `accuracy` metric does. Where its orders "
              "disagree (or one went unanswered) the two differ, so the handoff table's 0% row need not match the "
              "diagram.")


def confidence_section(out_dir: Path, records: list[JudgmentRecord], result: RunResult | None, seed: int,
                       n_resamples: int) -> str:
    """The Markdown section, its plots and CSVs; "" when no judgment has a confidence."""
    both_bad = result.config.both_bad if result else "tie"
    curves = calibration_curves(records, both_bad=both_bad, n_resamples=n_resamples, seed=seed)
    if not curves:
        return ""
    lines = ["## Confidence and calibration", "",
             ("How sure the judge is (docs/guide/confidence.md): its P(A), P(Tie), P(B) per example, the mean of "
              "the orders' confidence. Calibration is against the majority label; `brier_vs_votes` against the "
              "annotators' vote shares. " + ACCURACIES), ""]
    for dimension, c in curves.items():
        slug = "".join(ch if ch.isalnum() else "_" for ch in dimension)
        metrics = result.metrics.get(dimension, {}) if result else {}
        lines += [f"### {dimension}", "",
                  f"- examples with a confidence: {c['n']} (source: {', '.join(c['sources']) or 'none named'})",
                  (f"- top-label accuracy (the reliability diagram's, all bins): {percent(c['top_label_accuracy'])}; "
                   f"verdict accuracy (the handoff table's 0% row): {percent(c['handoff'][0][1])}"),
                  (f"- ECE ({c['bins']} equal-width bins): {percent(c['ece'])}"
                   f"{_interval(c['ece_ci_low'], c['ece_ci_high'])}"),
                  (f"- area under accuracy vs coverage: {percent(c['selective_auc'])}"
                   f"{_interval(c['selective_auc_ci_low'], c['selective_auc_ci_high'])}")]
        for name in ("brier_score", "log_loss", "brier_vs_votes", "selective_accuracy",
                     "handoff_accuracy"):
            if name in metrics and metrics[name].value is not None:  # (an undefined figure is left out)
                lines.append(f"- {name}: {_num(metrics[name])}")
        rel, sel = f"reliability_{slug}", f"selective_{slug}"
        plot_reliability(c, out_dir / f"{rel}.png", f"Reliability diagram ({dimension})")
        plot_selective(c, out_dir / f"{sel}.png", f"Selective accuracy ({dimension})")
        write_atomic(out_dir / f"{rel}.csv", "low,high,n,mean_confidence,accuracy\n"
                     + "".join(",".join(f"{v:.6g}" for v in b) + "\n" for b in c["reliability"]))
        write_atomic(out_dir / f"{sel}.csv", "coverage,accuracy\n"
                     + "".join(f"{a:.6g},{b:.6g}\n" for a, b in c["selective"]))
        if c["vote_curve"]:
            write_atomic(out_dir / f"vote_shares_{slug}.csv", "low,high,n,mean_judge_p_a,mean_vote_share_a\n"
                         + "".join(",".join(f"{v:.6g}" for v in b) + "\n" for b in c["vote_curve"]))
        write_atomic(out_dir / f"handoff_{slug}.csv", "share_to_humans,accuracy\n"
                     + "".join(f"{a:.6g},{b:.6g}\n" for a, b in c["handoff"]))
        lines += ["", f"![Reliability diagram]({rel}.png)", "", f"![Selective accuracy]({sel}.png)", "",
                  "| least confident sent to humans | verdict accuracy of judge + humans |", "|---|---|",
                  *[f"| {100 * s:.0f}% | {percent(a)} |" for s, a in c["handoff"]], ""]
    return "\n".join(lines) + "\n"
