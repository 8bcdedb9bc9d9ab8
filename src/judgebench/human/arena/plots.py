"""The arena's PNG plots: ratings, win rates, judge-assisted ratings, votes needed. `draw` makes every one of
them; `judgebench arena` runs it in a child forked before the votes are read (core/background.py's
`prepared`), which imports matplotlib meanwhile and draws while its parent writes the other files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from judgebench.publish.figures import error_bars, figure, import_plotting, literal, save_png

__all__ = ["assisted_methods", "draw", "import_plotting"]


def draw(out: Path, ratings: list[dict[str, Any]], winrate: pd.DataFrame, summary: dict[str, Any]) -> list[Path]:
    """Every plot of the arena into `out` (ratings, win rates, and the assisted and votes-needed ones when
    computed); returns the paths written, in that order."""
    plot_ratings(ratings, out / "ratings.png")
    plot_winrate(winrate, out / "winrate.png")
    extra = []
    for i, section in enumerate(a for a in summary.get("assisted", []) if a.get("assisted") is not None):
        path = out / (f"assisted_{i + 1}.png" if i else "assisted.png")
        plot_assisted(section, path)
        extra.append(path)
    if "votes_needed" in summary:
        plot_votes_needed(summary["votes_needed"], out / "votes_needed.png")
        extra.append(out / "votes_needed.png")
    return [out / "ratings.png", out / "winrate.png", *extra]


def plot_ratings(rows: list[dict[str, Any]], path: Path) -> None:
    frame = pd.DataFrame(rows).iloc[::-1].rename(columns={"rating": "value"})
    fig, ax = figure(7.0, 0.3 * len(frame) + 1.5, max(map(len, frame["model"]), default=6))
    ax.errorbar(frame["value"], [literal(m) for m in frame["model"]], xerr=error_bars(frame), fmt="o", capsize=3)
    ax.set_xlabel("rating (Elo, 95% bootstrap CI)")
    ax.set_title("Model ratings from votes", fontsize=10)
    save_png(fig, path)


def plot_winrate(frame: pd.DataFrame, path: Path) -> None:
    size = 0.45 * len(frame) + 2.5
    fig, ax = figure(size, size, max(map(len, map(str, frame.index)), default=6))
    image = ax.imshow(frame.to_numpy(dtype=float), vmin=0, vmax=1, cmap="RdBu")
    fig.colorbar(image, ax=ax, shrink=0.8, label="win rate")
    ticks = np.arange(len(frame))
    ax.set_xticks(ticks, [literal(str(c)) for c in frame.columns], rotation=90, fontsize=7)
    ax.set_yticks(ticks, [literal(str(r)) for r in frame.index], fontsize=7)
    if len(frame) <= 20:  # the values in the cells, readable up to 20 models
        values = frame.to_numpy(dtype=float)
        for i, j in np.ndindex(values.shape):
            if np.isfinite(values[i, j]):
                ax.text(j, i, f"{values[i, j]:.2f}", ha="center", va="center", fontsize=6,
                        color="white" if abs(values[i, j] - 0.5) > 0.3 else "black")
    ax.set_title("Win rate, row vs column model\n(ties count half)", fontsize=9)
    save_png(fig, path)


def plot_assisted(a: dict[str, Any], path: Path) -> None:
    methods = assisted_methods(a)
    models = [r["model"] for r in a["assisted"]][::-1]
    fig, ax = figure(7.5, 0.45 * len(models) + 1.8, max(map(len, models), default=6))
    for k, (name, rows) in enumerate(methods):
        by = {r["model"]: r for r in rows}
        y = np.arange(len(models)) + (k - (len(methods) - 1) / 2) * 0.18
        frame = pd.DataFrame([by[m] for m in models]).rename(columns={"rating": "value"})
        ax.errorbar(frame["value"], y, xerr=error_bars(frame), fmt="o", capsize=2, markersize=3,
                    label=name.replace("_", " "))
    ax.set_yticks(np.arange(len(models)), [literal(m) for m in models])
    ax.set_xlabel("rating (Elo, 95% sandwich CI)")
    ax.legend(fontsize=6, loc="best")
    ax.set_title(literal(f"Human-only, judge-only and judge-assisted: {a['judge']}"), fontsize=10)
    save_png(fig, path)


def plot_votes_needed(v: dict[str, Any], path: Path) -> None:
    fig, (left, right) = _two_panels()
    for curve in v["curves"]:
        line = left.plot(v["grid"], curve["top_k"]["power"], marker="o", label=literal(f"{curve['label']}: top {v['top_k']}"))
        for r in curve["adjacent"]:
            left.plot(v["grid"], r["power"], color=line[0].get_color(), alpha=0.25, linewidth=0.8)
    left.axhline(v["power"], color="grey", linestyle=":")
    left.set_xscale("log")
    left.set_xlabel("expert votes")
    left.set_ylabel("power (thin: each adjacent pair)")
    left.legend(fontsize=6)
    left.set_title("Separating models", fontsize=9)
    for g in v["judge_gap"]:
        right.plot(g["grid"], g["power"], marker="o",
                   label=literal(f"{g['judge'] or 'judges'}: {g['accuracy']:.2f} vs {g['accuracy'] + g['gap']:.2f}"))
    right.axhline(v["power"], color="grey", linestyle=":")
    right.set_xscale("log")
    right.set_xlabel("labelled pairs")
    right.legend(fontsize=6)
    right.set_title("Telling two judges apart", fontsize=9)
    save_png(fig, path)


def _two_panels():
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 4), dpi=100)
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.14, top=0.9, wspace=0.25)
    return fig, fig.subplots(1, 2)


def assisted_methods(a: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    """A judge-assisted section's ratings by method (name, rows), as plotted and tabled."""
    out = [("human_only", a["human_only"]), ("judge_only (not valid for the human ranking)", a["judge_only"]),
           ("judge_assisted", a["assisted"])]
    if "stratified" in a:
        out.append((f"judge_assisted_stratified_by_{a['stratified']['slice']}", a["stratified"]["ratings"]))
    return out
