"""`judgebench report RUN_DIR`: a Markdown diagnostics report with PNG plots and the
CSV behind each plot, computed from the run's samples.jsonl (never a model call).

Writes into the output folder (default RUN_DIR/report): report.md, diagnostics.json,
flips.csv (examples whose verdict changed with the order), and per dimension
<dim>_bias, <dim>_length_curve, <dim>_confusion, <dim>_accuracy, <dim>_ratings as
.png + .csv (a plot is left out, with the reason in the report, when its data is).
results.json is optional: it supplies the title, headline metric, Both Bad rule and seed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

from judgebench.core.background import Prepared, prepared
from judgebench.core.catalogue import HEADLINES, SAMPLES_ONLY_HEADLINE
from judgebench.core.errors import JudgebenchError
from judgebench.core.files import read_model_json, why_not_a_file, write_atomic, write_json
from judgebench.core.records import JudgmentRecord, RunResult
from judgebench.core.rundir import (
    MEMBERS_DIR,
    REPORT_DIR,
    RESULTS_FILE,
    SAMPLES_FILE,
    check_samples_match,
    read_judgments,
)
from judgebench.core.text import md_cell, md_text, percent, visible
from judgebench.judges.config import args_text, named_judge, run_config_hash
from judgebench.publish.confidence_report import confidence_section
from judgebench.publish.costplot import (
    PLOT_STEM,
    CostPoint,
    mark_pareto,
    markdown_lines,
    plot_points,
    run_point,
)
from judgebench.publish.figures import error_bars, figure, import_plotting, literal, save_png
from judgebench.publish.summary import format_panel, format_stability, shown_orders
from judgebench.publish.tables import frame_csv
from judgebench.scoring.diagnostics import diagnose
from judgebench.scoring.judgment_table import reuse_tables
from judgebench.scoring.score import check_run_dimensions
from judgebench.scoring.selfpref import format_self_preference, self_preference

N_RESAMPLES = 1000


# ---------------------------------------------------------------- entry point


def write_report(run_dir: Path, out_dir: Path | None = None) -> Path:
    """Write the report for a run folder; returns the path of report.md."""
    run_dir = Path(run_dir)
    default = run_dir / REPORT_DIR
    if out_dir is None and (default.is_symlink() or (default.exists() and not default.is_dir())):
        what = "a symlink" if default.is_symlink() else "not a directory"  # written only inside the run folder
        raise JudgebenchError(f"{default}: is {what} (remove it, or name a folder with --output-dir)")
    out_dir = Path(out_dir) if out_dir is not None else default
    with prepared(_dimension_sections, warm=import_plotting) as plotter:  # its imports while we read (background.py)
        results = run_dir / RESULTS_FILE  # a FIFO or folder there is read, and refused as not a regular file
        result = read_model_json(results, RunResult) if results.exists() or results.is_symlink() else None  # (first:
        # a rubric run's is named as one, where its samples' lines had been refused field by field)
        records = _read_samples(run_dir)
        with reuse_tables(records):  # the tables the diagnostics build, read again by the confidence section
            text = _report_text(run_dir, out_dir, result, records, plotter)
    path = out_dir / "report.md"
    write_atomic(path, text)
    return path


def _report_text(run_dir: Path, out_dir: Path, result: RunResult | None, records: list[JudgmentRecord],
                 plotter: Prepared) -> str:
    """The diagnostics of the records read, every file of the report but report.md, and report.md's text."""
    if result is not None:
        check_samples_match(result, records, run_dir / SAMPLES_FILE)  # as `score` reads a run
    check_run_dimensions(run_dir, records, result.config.task if result else records[0].task)  # as `score` does
    both_bad, seed = (result.config.both_bad, result.config.seed) if result else SAMPLES_ONLY_SETTINGS
    diag = diagnose(records, both_bad=both_bad, n_resamples=N_RESAMPLES, seed=seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    headline = result.config.headline if result else SAMPLES_ONLY_HEADLINE
    sections = plotter.send(out_dir, diag, headline, label_noun(run_dir))  # plots and their tables, while we write the rest
    if result is not None:  # which configuration of the judge (an audit: two temperatures' reports read alike)
        config = result.config
        diag.update(judge_name=config.judge_name, judge_args=config.judge_args, config_hash=run_config_hash(config))
    write_json(out_dir / "diagnostics.json", diag)
    _write_csv(out_dir / "flips.csv", flips_frame(diag))
    return _header(diag, result, headline) + extra_sections(out_dir, records, result, seed, N_RESAMPLES, run_dir) \
        + "\n".join(sections.result()) + confidence_section(out_dir, records, result, seed, N_RESAMPLES)


def _dimension_sections(out_dir: Path, diag: dict[str, Any], headline: str, noun: str = "human labels") -> list[str]:
    return [_dimension_section(out_dir, name, d, headline, noun) for name, d in diag["dimensions"].items()]


def label_noun(run_dir: Path) -> str:
    """"gold labels" when the run's task says its labels are objective gold answers (label_source: gold),
    else "human labels" (also when the run folder has no readable task copy)."""
    from judgebench.core.rundir import TASK_FILE
    from judgebench.tasks.registry import load_task_file

    path = run_dir / TASK_FILE
    try:
        if path.is_file() and not path.is_symlink():
            return "gold labels" if load_task_file(path).label_source == "gold" else "human labels"
    except (JudgebenchError, OSError, ValueError):
        pass
    return "human labels"


def _read_samples(run_dir: Path) -> list[JudgmentRecord]:
    path = run_dir / SAMPLES_FILE
    if not path.is_file():
        raise JudgebenchError(f"{path}: {why_not_a_file(path)} (is {run_dir} a run folder?)")
    return read_judgments(path, lean=True)


# ---------------------------------------------------------------- plots


READABLE = {  # the plots' names for the report's rates (the CSVs keep the keys)
    "position_bias": "picks the response shown first",
    "label_a_share": "labels: A share of decisive labels",
    "order_consistency": "same verdict in both orders",
    "flip_rate": "verdict flips with the order",
    "p_prefers_a": "P(prefers A), ties half",
}


def readable(name: str) -> str:
    """A metric key as a reader's label: READABLE, else the key with spaces (`accuracy_ab` -> `accuracy, order AB`)."""
    if name in READABLE:
        return READABLE[name]
    for style in ("length", "citations"):
        if name.startswith(f"{style}_preferred_larger_"):
            tag = name.rsplit("_", 1)[1]
            which = {"all": "all pairs", "gap": "clear gaps", "comparable": "comparable pairs"}.get(tag, tag)
            return f"prefers the {'longer' if style == 'length' else 'more-cited'} response ({which})"
    return name.replace("_ab", ", order AB").replace("_ba", ", order BA").replace("_", " ")


def _n_labels(ax: Any, frame: pd.DataFrame) -> None:
    """`n=…` of each horizontal bar in a column right of the 0-1 scale (the axis is widened to 1.14)."""
    for i, n in enumerate(frame["n"]):
        if n is not None and not pd.isna(n):
            ax.text(1.015, i, f"n={int(n)}", va="center", fontsize=7, color="#57606a")
    ax.set_xlim(0, 1.14)
    ax.set_xticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.axvline(1.0, color="#d0d7de", lw=0.8)


def plot_bias(frame: pd.DataFrame, path: Path, title: str) -> None:
    from matplotlib.patches import Patch

    frame = frame.dropna(subset=["value"]).iloc[::-1]
    labels = [f"{readable(m)} ({'judge' if w == 'judge' else 'labels'})" for m, w in zip(frame["metric"], frame["who"])]
    fig, ax = figure(9.0, 0.35 * len(frame) + 1.8, max(map(len, labels), default=6))
    colors = ["tab:blue" if w == "judge" else "tab:gray" for w in frame["who"]]
    ax.barh(labels, frame["value"], xerr=error_bars(frame), color=colors, capsize=3)
    ax.axvline(0.5, color="black", lw=0.8, ls="--")
    _n_labels(ax, frame)
    ax.set_xlabel("rate (share of judgments, 95% bootstrap interval)")
    ax.legend(handles=[Patch(color="tab:blue", label="judge"), Patch(color="tab:gray", label="the data's labels"),
                       Patch(facecolor="none", edgecolor="black", linestyle="--", label="0.5: no preference")],
              loc="lower right", fontsize=7)
    ax.set_title(title, fontsize=10)
    save_png(fig, path)


def plot_curve(frame: pd.DataFrame, path: Path, title: str) -> None:
    fig, ax = figure()
    for who, color in (("judge", "tab:blue"), ("human", "tab:gray")):
        part = frame[(frame["who"] == who)].dropna(subset=["value", "x_mean"])
        ax.errorbar(part["x_mean"], part["value"], yerr=error_bars(part), marker="o",
                    color=color, capsize=3, label="judge" if who == "judge" else "the data's labels")
    ax.axhline(0.5, color="black", lw=0.8, ls="--")
    ax.axvline(0.0, color="black", lw=0.5, ls=":")
    ax.set_ylim(0, 1)
    ax.set_xlabel("log(length A / length B), binned (mean of bin)")
    ax.set_ylabel("P(prefers A), ties half")
    ax.legend(fontsize=8)
    ax.set_title(title, fontsize=10)
    save_png(fig, path)


def plot_confusion(frame: pd.DataFrame, path: Path, title: str) -> None:
    fig, ax = figure(5.0, 4.0, 8)
    values = frame.to_numpy(dtype=float)
    ax.imshow(values, cmap="Blues")
    ax.set_xticks(range(values.shape[1]), list(frame.columns))
    ax.set_yticks(range(values.shape[0]), list(frame.index))
    ax.set_xlabel("judge verdict")
    ax.set_ylabel("label in the data")
    top = values.max() if values.size else 0
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            ax.text(j, i, f"{int(values[i, j])}", ha="center", va="center",
                    color="white" if values[i, j] > top / 2 else "black")
    ax.set_title(title, fontsize=10)
    save_png(fig, path)


def plot_accuracy(frame: pd.DataFrame, path: Path, title: str) -> None:
    frame = frame.dropna(subset=["value"]).iloc[::-1]
    labels = [literal(f"{g}: {s}") if g != "all" else "all" for g, s in zip(frame["group"], frame["slice"])]
    fig, ax = figure(7.5, 0.3 * len(frame) + 1.5, max(map(len, labels), default=6))
    ax.barh(labels, frame["value"], xerr=error_bars(frame), color="tab:blue", capsize=3, label="judge (95% interval)")
    ax.axvline(0.5, color="black", lw=0.8, ls="--", label="50%")
    _n_labels(ax, frame)
    name = readable(frame["metric"].iat[0]) if len(frame) else "accuracy"
    ax.set_xlabel(f"{name[:1].upper() + name[1:]} (share of judgments, 95% bootstrap interval)")
    ax.legend(loc="lower right", fontsize=7)
    ax.set_title(title, fontsize=10)
    save_png(fig, path)


def plot_ratings(frame: pd.DataFrame, path: Path, title: str, noun: str = "human labels") -> None:
    fig, ax = figure(5.5, 5.0, 5)
    x, y = frame["human_value"].astype(float), frame["judge_value"].astype(float)

    def err(who: str) -> list[list[float]]:
        part = frame.rename(columns={f"{who}_{k}": k for k in ("value", "ci_low", "ci_high")})
        return error_bars(part)

    ax.errorbar(x, y, xerr=err("human"), yerr=err("judge"), fmt="o", color="tab:blue",
                ecolor="lightgray", capsize=2)
    for model, xi, yi in zip(frame["model"], x, y):
        ax.annotate(literal(str(model)), (xi, yi), fontsize=7, xytext=(3, 3), textcoords="offset points")
    lo, hi = min(x.min(), y.min()), max(x.max(), y.max())
    ax.plot([lo, hi], [lo, hi], color="black", lw=0.8, ls="--")
    ax.set_xlabel(f"rating from {noun} (Elo)")
    ax.set_ylabel("rating from judge verdicts (Elo)")
    ax.set_title(title, fontsize=10)
    save_png(fig, path)


# ---------------------------------------------------------------- Markdown


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "dimension"


def _write_csv(path: Path, frame: pd.DataFrame, index: bool = False) -> None:
    write_atomic(path, frame_csv(frame, index=index))


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell (the one escape: core/text.md_cell)."""
    return md_cell(text)


def _fenced(lines: list[str]) -> list[str]:
    """Lines shown inside a ``` block: control characters made visible, no backquote to close the block."""
    return [visible(line).replace("`", "'") for line in lines]


def _fmt(stat: dict[str, Any] | None, pct: bool = True) -> str:
    """'52.3% [48.1, 56.0] (n=600)' or '—'."""
    if not stat or stat.get("value") is None:
        return "—"
    if stat.get("separable"):  # no maximum-likelihood estimate exists (diagnostics._penalty_bound)
        return stat["separable"] + (f" (n={stat['n']})" if stat.get("n") is not None else "")
    scale, unit = (100.0, "%") if pct else (1.0, "")
    text = f"{scale * stat['value']:.1f}{unit}" if pct else f"{stat['value']:.3f}"
    if stat.get("ci_low") is not None:
        lo, hi = scale * stat["ci_low"], scale * stat["ci_high"]
        text += f" [{lo:.1f}, {hi:.1f}]" if pct else f" [{lo:.3f}, {hi:.3f}]"
    return text + (f" (n={stat['n']})" if stat.get("n") is not None else "")


SAMPLES_ONLY_SETTINGS = ("tie", 0)  # a report without results.json: the Both-Bad rule and seed it assumes
_ASSUMED = (f"Both Bad counted as {SAMPLES_ONLY_SETTINGS[0]}, seed {SAMPLES_ONLY_SETTINGS[1]}, "
            f"headline {SAMPLES_ONLY_HEADLINE}")


def samples_only_note(run_dir: Path) -> str | None:
    """What a report of a folder without results.json assumes (None when it has one)."""
    results = Path(run_dir) / RESULTS_FILE
    if results.exists() or results.is_symlink():
        return None
    return f"{results}: no such file; the report reads samples.jsonl alone ({_ASSUMED})"


def _header(diag: dict[str, Any], result: RunResult | None, headline: str) -> str:
    judge = named_judge(diag["judge"], diag.get("judge_name"))
    lines = [f"# Judge diagnostics: {md_text(judge)} on {md_text(diag['task'])}", ""]
    if result is None:
        lines += [f"- Run settings: no {RESULTS_FILE} in the run folder; read from samples.jsonl alone ({_ASSUMED})"]
    if result:
        config = result.config
        lines += [f"- Judge configuration {diag['config_hash']}: {md_text(args_text(config.judge_args) or 'no arguments')}",
                  f"- Dataset: {md_text(config.dataset.source)} (split {md_text(config.dataset.split)}"
                  f"{', demo' if config.dataset.demo else ''})",
                  f"- Prompt: {md_text(config.prompt_template)} ({config.prompt_template_hash[:10]}), "
                  f"orders: {'both' if config.swap else 'single'}"]
    lines += [f"- Headline metric: {headline}; Both Bad counted as: {diag['both_bad']}",
              f"- Intervals: 95% percentile bootstrap, {diag['n_resamples']} resamples of the "
              f"examples, seed {diag['seed']}",
              "- Definitions: docs/guide/diagnostics.md. Data: diagnostics.json, flips.csv and a CSV "
              "next to each plot.", ""]
    if result and result.panel:  # a panel: its members' agreement, its test against the best, biases
        lines += ["## Panel", "", "```", *_fenced(format_panel(result.panel)), "```", ""]
    if result and result.stability:  # --repeats: agreement across repeats, the headline's spread, majority-of-N
        lines += ["## Repeats and stability", "", "```", *_fenced(format_stability(result.stability)), "```", ""]
    if result and result.human:  # data with votes: the ceiling and the judge on the same references
        lines += _human_lines(result, headline)
    return "\n".join(lines) + "\n"


def _human_lines(result: RunResult, headline: str) -> list[str]:
    """The human section: per dimension the humans' and the judge's figures on the same references, then
    each annotator against the others and the judge against each annotator (docs/guide/human-votes.md)."""
    pct = lambda v: "—" if v is None or v.value is None else _fmt(v.model_dump(), pct=True)  # noqa: E731
    num = lambda v: "—" if v is None or v.value is None else f"{v.value:.3f}"  # noqa: E731
    lines = ["## Humans and the judge", "",
             "Pairs with two or more annotators; the judge is scored on the same references as the people "
             "(leave one annotator out, and against each single annotator).", ""]
    for dimension, human in result.human.items():
        judge = result.metrics.get(dimension, {})
        lines += [f"### {md_text(dimension)}", "", "| figure | humans | judge |", "|---|---|---|",
                  f"| leave one annotator out (`loo_{headline}`) | {pct(human.get(f'loo_{headline}'))} | "
                  f"{pct(judge.get(f'loo_{headline}'))} |",
                  f"| against each annotator (`{headline}_vs_annotators`) | {pct(human.get(f'{headline}_vs_annotators'))} | "
                  f"{pct(judge.get(f'{headline}_vs_annotators'))} |"]
        lines += [f"| {name} | {num(human.get(name))} | — |" for name in
                  ("annotator_weighted_kappa", "annotator_alpha", "self_consistency")]
        annotators = (result.annotators or {}).get(dimension, [])
        if annotators:
            lines += ["", "| annotator | pairs | vs the others (exact) | judge vs this annotator (exact) | (soft) |",
                      "|---|---|---|---|---|"]
            lines += [f"| {md_cell(a.annotator)} | {a.pairs} | {percent(a.loo_accuracy)} | {percent(a.judge_accuracy)} | "
                      f"{percent(a.judge_soft_accuracy)} |" for a in annotators]
        lines.append("")
    return lines


def _dimension_section(out_dir: Path, name: str, d: dict[str, Any], headline: str, noun: str = "human labels") -> str:
    slug = _slug(name)
    lines = [f"## Dimension: {md_text(name)}", "",
             f"{d['n_examples']} examples, {d['n_judged_examples']} with at least one "
             "answered judgment.", ""]
    lines += _order_lines(d)
    lines += _style_lines(d, "length", "longer")
    lines += _style_lines(d, "citations", "more-cited")
    lines += _system_lines(d)
    lines += _plots(out_dir, slug, name, d, headline, noun)
    return "\n".join(lines) + "\n"


def _order_lines(d: dict[str, Any]) -> list[str]:
    order = d["order"]
    lines = ["### Order effects", "", "| measure | value [95% CI] |", "|---|---|",
             f"| position bias (first-shown share of decisive verdicts) | "
             f"{_fmt(order['position_bias'])} |",
             f"| human labels: A share of decisive labels | {_fmt(order['label_a_share'])} |"]
    if order.get("order_consistency"):
        lines += [f"| order consistency | {_fmt(order['order_consistency'])} |",
                  f"| flip rate (A<->B reversal) | {_fmt(order['flip_rate'])} |", "",
                  f"{len(order['flips'])} examples changed verdict with the order "
                  "(flips.csv)."]
    else:
        lines += ["", f"Consistency: {order.get('skipped', 'not available')}."]
    return lines + [""]


def _style_lines(d: dict[str, Any], style: str, word: str) -> list[str]:
    section = d.get(style, {})
    title = f"### {style.capitalize()} effects"
    if "skipped" in section:
        return [title, "", f"Skipped: {section['skipped']}.", ""]
    lines = [title, "", f"| share of decisive verdicts choosing the {word} response | judge | "
             "humans |", "|---|---|---|"]
    rule = _cell(section["preferred_larger_gap"]["rule"])
    for key, label in (("preferred_larger", "all battles"),
                       ("preferred_larger_gap", f"with a gap ({rule})"),
                       ("comparable", "comparable-strength battles (≤ 100 Elo apart)")):
        part = section[key]
        if "skipped" in part:
            lines.append(f"| {label} | skipped: {_cell(part['skipped'])} | |")
        else:
            lines.append(f"| {label} | {_fmt(part['judge'])} | {_fmt(part['human'])} |")
    beta = section["beta"]
    lines += ["", f"Bradley–Terry coefficient on {section['feature']} (log-odds per unit):", ""]
    if "skipped" in beta:
        lines.append(f"Skipped: {beta['skipped']}.")
    else:
        lines += ["| fitted on | beta [95% CI] |", "|---|---|",
                  f"| judge verdicts | {_fmt(beta['judge'], pct=False)} |",
                  f"| human labels | {_fmt(beta['human'], pct=False)} |",
                  f"| judge − humans (extra preference) | {_fmt(beta['excess'], pct=False)} |"]
        lines += [f"\nNote: {note}." for note in beta["notes"]]
    return lines + [""]


def _system_lines(d: dict[str, Any]) -> list[str]:
    system = d["system"]
    lines = ["### Would the judge reproduce the human leaderboard?", ""]
    if "skipped" in system:
        return lines + [f"Skipped: {system['skipped']}.", ""]
    sep = system["separability"]
    pct = lambda v: percent(v, 0)  # noqa: E731
    return lines + [
        f"{system['n_models']} response models, {system.get('n_battles_human', system['n_battles'])} "
        f"battles (human ratings), {system['n_battles']} answered by the judge.", "",
        "| measure | value [95% CI] |", "|---|---|",
        f"| Spearman (human vs judge ratings) | {_fmt(system['spearman'], pct=False)} |",
        f"| Kendall tau-b | {_fmt(system['kendall'], pct=False)} |",
        f"| top-{system['top_k']['k']} overlap | {pct(system['top_k']['overlap'])} |",
        f"| separability (pairs with disjoint CIs): humans / judge | {pct(sep['human'])} / "
        f"{pct(sep['judge'])} |", "", *_unbeaten_lines(system.get("unbeaten") or {})]


def _unbeaten_lines(unbeaten: dict[str, list[list[list[str]]]]) -> list[str]:
    """A warning per side whose battles order some models without an upset (no finite rating across them)."""
    sides = {"human": "The human labels", "judge": "The judge's verdicts"}
    return [line for key, orders in unbeaten.items() for line in (
        f"Warning: {sides[key]} order some models without an upset ({shown_orders(orders, md_text)}): a group "
        "that won, or lost, every battle against another has no finite rating, so the gaps between these groups, "
        "their intervals and the separability above are the regularisation's, not the data's.", "")]


def _plots(out_dir: Path, slug: str, name: str, d: dict[str, Any], headline: str, noun: str = "human labels") -> list[str]:
    """Write each plot and its CSV; return the Markdown that shows them."""
    lines = ["### Plots", ""]
    plots = [
        ("bias", bias_frame(d), plot_bias, "Position, length and citation rates"),
        ("length_curve", curve_frame(d), plot_curve, "P(prefers A) vs length ratio"),
        ("confusion", confusion_frame(d), plot_confusion, f"{noun[:1].upper()}{noun[1:-1]} vs judge verdict"),
        ("accuracy", accuracy_frame(d, headline), plot_accuracy, "Accuracy by slice"),
        ("ratings", ratings_frame(d), plot_ratings, f"Model ratings: {noun} vs judge"),
    ]
    for kind, frame, plot, title in plots:
        if frame is None or frame.empty:
            reason = d["system"].get("skipped") if kind == "ratings" else None
            lines += [f"- {title}: not drawn ({reason or 'no data'}).", ""]
            continue
        stem = f"{slug}_{kind}"
        _write_csv(out_dir / f"{stem}.csv", frame, index=kind == "confusion")
        plot(frame, out_dir / f"{stem}.png", f"{title} ({name})", **({"noun": noun} if kind == "ratings" else {}))
        lines += [f"![{title}]({stem}.png)", "", f"Data: [{stem}.csv]({stem}.csv)", ""]
    return lines


# The report's run-level sections of issue 13: self-preference (selfpref.py) and cost vs accuracy


def extra_sections(
    out_dir: Path, records: list[JudgmentRecord], result: RunResult | None, seed: int, n_resamples: int,
    run_dir: Path | None = None,
) -> str:
    """Self-preference (selfpref.py; the run's stored figure, computed with its task's model_families)
    and cost vs accuracy (costplot.py: the run's headline with its interval against its cost; a panel's
    members beside it, the Pareto front marked)."""
    stored = result.diagnostics.get("self_preference") if result else None
    selfpref = stored or self_preference(records, records[0].judge, n_resamples=n_resamples, seed=seed)
    points = cost_points(result, run_dir)
    png = f"{PLOT_STEM}.png" if points else None
    if points and png:
        plot_points(points, out_dir / png, f"{points[0].judge}: cost vs accuracy", result.config.headline)  # type: ignore[union-attr]
    headline = result.config.headline if result else SAMPLES_ONLY_HEADLINE
    lines = ["## Self-preference and cost", "", *format_self_preference(selfpref)]
    return "\n".join([*lines, *markdown_lines(points, headline, png)]) + "\n"


def cost_points(result: RunResult | None, run_dir: Path | None) -> list[CostPoint]:
    """The run's point; for a panel also its members' (from DIR/members/, the copies panel.py keeps),
    each with a known cost only. More than one point: the Pareto front marked."""
    point = run_point(result) if result else None
    if point is None or result is None or result.config.kind != "panel" or run_dir is None:
        return [point] if point else []
    members = [read_model_json(path, RunResult) for path in sorted((run_dir / MEMBERS_DIR).glob(f"*/{RESULTS_FILE}"))]
    return mark_pareto([point, *[p for p in map(run_point, members) if p is not None]])


# The tables behind `report`'s plots (each also written as the plot's CSV), from one dimension's


def flips_frame(diag: dict[str, Any]) -> pd.DataFrame:
    rows = [{"dimension": name, **flip}
            for name, d in diag["dimensions"].items() for flip in d["order"].get("flips", [])]
    columns = ["dimension", "example_id", "label", "verdict_ab", "verdict_ba", "kind"]
    return pd.DataFrame(rows, columns=columns)


def _stat_row(name: str, stat: dict[str, Any] | None, **extra: Any) -> dict[str, Any]:
    stat = stat or {}
    return {"metric": name, **extra, "value": stat.get("value"), "ci_low": stat.get("ci_low"),
            "ci_high": stat.get("ci_high"), "n": stat.get("n")}


def bias_frame(d: dict[str, Any]) -> pd.DataFrame:
    """Position, length and citation rates with intervals (one row per rate)."""
    order = d["order"]
    rows = [_stat_row("position_bias", order.get("position_bias"), who="judge"),
            _stat_row("label_a_share", order.get("label_a_share"), who="human")]
    if order.get("order_consistency"):
        rows += [_stat_row("order_consistency", order["order_consistency"], who="judge"),
                 _stat_row("flip_rate", order["flip_rate"], who="judge")]
    for style in ("length", "citations"):
        section = d.get(style, {})
        for key, tag in (("preferred_larger", "all"), ("preferred_larger_gap", "gap"),
                         ("comparable", "comparable")):
            if key in section and "skipped" not in section[key]:
                for who in ("judge", "human"):
                    rows.append(_stat_row(f"{style}_preferred_larger_{tag}", section[key][who],
                                          who=who))
    return pd.DataFrame(rows)


def curve_frame(d: dict[str, Any]) -> pd.DataFrame:
    """P(prefers A) by log length ratio bin, for the judge and for the humans."""
    rows = []
    for b in d["length"]["curve"]:
        for who in ("judge", "human"):
            rows.append(_stat_row("p_prefers_a", b[f"{who}_p_a"], who=who, bin=b["bin"],
                                  x_mean=b["x_mean"], n_examples=b["n_examples"]))
    return pd.DataFrame(rows)


def confusion_frame(d: dict[str, Any]) -> pd.DataFrame:
    """Human label (rows) by judge verdict (columns), judgments of both orders pooled."""
    return pd.DataFrame(d["confusion"]).T.rename_axis("label")


def accuracy_frame(d: dict[str, Any], headline: str) -> pd.DataFrame:
    """Headline accuracy overall, per slice and per length / citation bucket."""
    metric = headline if headline in HEADLINES else SAMPLES_ONLY_HEADLINE
    acc = d["accuracy"]
    rows = [_stat_row(metric, acc[metric], group="all", value_name="all")]
    for column, values in acc["by_slice"].items():
        rows += [_stat_row(metric, v[metric], group=column, value_name=k)
                 for k, v in values.items()]
    for style, group in (("length", "length_ratio"), ("citations", "citation_gap")):
        for b in d.get(style, {}).get("by_bucket", []):
            rows.append(_stat_row(metric, b[metric], group=group, value_name=b["bucket"]))
    return pd.DataFrame(rows).rename(columns={"value_name": "slice"})


def ratings_frame(d: dict[str, Any]) -> pd.DataFrame | None:
    """Response-model ratings from the human labels and from the judge, side by side."""
    system = d["system"]
    if "skipped" in system:
        return None
    return pd.DataFrame([
        {"model": r["model"], "battles": r["battles"],
         **{f"{who}_{k}": r[who][k] for who in ("human", "judge")
            for k in ("value", "ci_low", "ci_high")}}
        for r in system["ratings"]
    ])
