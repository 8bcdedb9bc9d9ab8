"""Arena outputs: arena.json, CSV tables, arena.md, an HTML page section and PNG plots, all written
atomically under the output folder."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from judgebench.core.background import Prepared
from judgebench.core.errors import one_line
from judgebench.core.files import names_text, write_atomic, write_json
from judgebench.core.text import html_text, md_cell, md_text, spelled_out
from judgebench.human.arena.build import ArenaResult
from judgebench.human.arena.plots import assisted_methods
from judgebench.publish.html import CSS
from judgebench.publish.summary import shown_group, shown_orders
from judgebench.publish.tables import frame_csv


def write_outputs(result: ArenaResult, out: Path, plotter: Prepared | None = None) -> list[Path]:
    """Write every output file into `out`; returns the paths written. The PNGs are drawn by `plotter` (a child
    prepared with plots.draw draws them while this process writes the rest; without a child, they are drawn
    here last); without a plotter (`--no-plots`: seconds of matplotlib on a large arena) there are none, and
    every other file is the same."""
    out.mkdir(parents=True, exist_ok=True)
    s = result.summary
    plots = (out, result.ratings, result.winrate, s)
    pending = plotter.send(*plots) if plotter is not None and plotter.forked else None  # drawn meanwhile
    tables = _tables(result)
    written = []
    for name, frame in tables.items():
        path = out / f"{name}.csv"
        write_atomic(path, frame_csv(frame, index=name in ("winrate", "battle_counts")))
        written.append(path)
    write_json(out / "arena.json", {**s, "winrate": _matrix_json(result.winrate),
                                    "battle_counts": _matrix_json(result.counts)})
    write_atomic(out / "flagged.txt", names_text(s["voters"]["flagged"]))
    written.append(out / "flagged.txt")
    md = markdown(s)
    write_atomic(out / "arena.md", md)
    write_atomic(out / "arena.html", page(s, tables))
    if plotter is not None and pending is None:  # no child: the PNGs last, as before
        pending = plotter.send(*plots)
    pngs = pending.result() if pending is not None else []
    return [out / "arena.json", out / "arena.md", out / "arena.html", *pngs, *written]


def _matrix_json(frame: pd.DataFrame) -> dict[str, dict[str, float | None]]:
    return {str(r): {str(c): (None if pd.isna(v) else float(v)) for c, v in row.items()}
            for r, row in frame.iterrows()}


def _tables(result: ArenaResult) -> dict[str, pd.DataFrame]:
    s = result.summary
    tables = {"ratings": pd.DataFrame(result.ratings), "winrate": result.winrate, "battle_counts": result.counts}
    style = s["style_control"]
    if "ratings" in style:
        tables["ratings_style_controlled"] = pd.DataFrame(style["ratings"])
        tables["style_coefficients"] = pd.DataFrame(
            [{"feature": f, **v} for f, v in style["coefficients"].items()])
    slices = [{"slice": e["slice"], "value": e["value"], **r} for e in s["slices"] for r in e.get("ratings", [])]
    if slices:
        tables["slices"] = pd.DataFrame(slices)
    voters = s["voters"]
    if voters["annotators"]:
        tables["annotators"] = pd.DataFrame(voters["annotators"])
        tables["anomaly"] = pd.DataFrame(voters["anomaly"]).assign(
            checkpoints=lambda f: f["checkpoints"].map(lambda js: " ".join(map(str, js))))
    rob = s["robustness"]
    if rob["subsampling"]:
        tables["robustness_subsampling"] = pd.DataFrame([_flat(r) for r in rob["subsampling"]])
    if rob["leave_one_slice_out"]:
        tables["robustness_leave_one_slice_out"] = pd.DataFrame(rob["leave_one_slice_out"])
    if s["judges"]:
        tables["judges"] = pd.DataFrame([_flat({k: v for k, v in j.items() if k not in ("ratings", "unbeaten")})
                                          for j in s["judges"]])
    assisted = [{"judge": a["judge"], "method": method, **row} for a in s.get("assisted", [])
                if a.get("assisted") is not None for method, rows in assisted_methods(a) for row in rows]
    if assisted:
        tables["assisted"] = pd.DataFrame(assisted)
    if "votes_needed" in s:
        v = s["votes_needed"]
        rows = []
        for curve in v["curves"]:
            rows += [{"setting": curve["label"], "target": f"{r['higher']} > {r['lower']}",
                      "votes_needed": r["votes_needed"]} for r in curve["adjacent"]]
            rows.append({"setting": curve["label"], "target": f"top {v['top_k']} ordered",
                         "votes_needed": curve["top_k"]["votes_needed"]})
        rows += [{"setting": f"two judges, accuracy {g['accuracy']:.3f} vs +{g['gap']:g}", "target": "pairs",
                  "votes_needed": g["pairs_needed"]} for g in v["judge_gap"]]
        tables["votes_needed"] = pd.DataFrame(rows)
    return tables


def _flat(row: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in row.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}_"))
        else:
            out[prefix + k] = v
    return out


def _f(v: Any, digits: int = 1) -> str:
    return "—" if v is None or (isinstance(v, float) and not math.isfinite(v)) else f"{v:.{digits}f}"


def _ci(row: dict[str, Any], key: str = "rating", digits: int = 1) -> str:
    value = row.get(key, row.get("value"))
    if row.get("ci_low") is None:
        return _f(value, digits)
    return f"{_f(value, digits)} [{_f(row['ci_low'], digits)}, {_f(row['ci_high'], digits)}]"


def trust_warnings(s: dict[str, Any], show: Callable[[str], str]) -> list[str]:
    """What the ratings of an arena summary cannot be trusted for, one sentence each (the terminal, arena.md and
    arena.html say the same): groups of models no battle connects (at most 5, of 5 names each: arena.json has
    them all), models the votes order without an upset, and models or annotators whose names look alike (at most
    5 groups of 5 names each, cut to 60 characters: arena.json's `look_alike_names` has them all). `show` makes a
    name safe where it is shown."""
    lines = []
    groups = s.get("comparison_groups") or []
    if len(groups) > 1:
        shown = "; ".join(shown_group(g, show) for g in groups[:5]) + ("; ..." if len(groups) > 5 else "")
        lines.append(f"the models fall into {len(groups)} groups that no battle connects: {shown}; "
                     "ranks across groups are not comparable")
    unbeaten = s.get("unbeaten_groups") or []
    if unbeaten:
        lines.append(f"the votes order some models without an upset ({shown_orders(unbeaten, show)}): a group "
                     "that won, or lost, every battle against another has no finite rating; the gaps between these "
                     "groups and their intervals are the regularisation's, not the votes'")
    for kind, groups in (s.get("look_alike_names") or {}).items():
        shown = "; ".join(" / ".join([*("'" + show(one_line(spelled_out(name), 60)) + "'" for name in g[:5]),
                                      *([f"{len(g) - 5} more"] if len(g) > 5 else [])]) for g in groups[:5])
        lines.append(f"{len(groups)} group{'s' if len(groups) > 1 else ''} of {kind} whose names look alike are "
                     f"counted apart: {shown}{'; ...' if len(groups) > 5 else ''} (arena.json's look_alike_names lists "
                     "them all; rename them in the votes file if they are one)")
    return lines


def judge_warning(judge: dict[str, Any], show: Callable[[str], str]) -> str | None:
    """The judge-induced ranking's models its verdicts order without an upset, in words (None when there are none)."""
    if not judge.get("unbeaten"):
        return None
    return (f"the judge's verdicts order some models without an upset ({shown_orders(judge['unbeaten'], show)}): "
            "its ratings across these groups are the regularisation's, not its verdicts'")


def markdown(s: dict[str, Any]) -> str:
    c, n = s["config"], s["counts"]
    lines = [f"# Arena: model ratings from votes ({md_text(c['source'])})", "",
             f"{n['battles']} battles ({n['votes_read']} votes read) over {n['models']} models, "
             f"{n['pairs']} pairs, {n['annotators']} annotators. Both Bad: {c['both_bad']}; ties half a win; "
             f"{c['n_resamples']} bootstrap rounds (seed {c['seed']}); Elo scale {c['scale']:g}/ln {c['base']:g}, "
             f"{'anchor ' + md_text(c['anchor_model']) if c['anchor_model'] else 'mean'} = {c['anchor_rating']:g}.",
             f"Dropped votes: {md_text(n['dropped']) if n['dropped'] else 'none'}. Excluded annotators: "
             f"{md_text(', '.join(map(str, c['excluded_annotators']))) if c['excluded_annotators'] else 'none'}.", "",
             *(line for warning in trust_warnings(s, md_text) for line in (f"Warning: {warning}.", "")),
             "| rank | model | rating [95% CI] | battles | W/T/L |", "|---|---|---|---|---|"]
    lines += [f"| {r['rank']} | {md_cell(r['model'])} | {_ci(r)} | {r['battles']} | {r['wins']}/{r['ties']}/{r['losses']} |"
              for r in s["ratings"]]
    style = s["style_control"]
    lines += ["", "## Style control", ""]
    if "skipped" in style:
        lines.append(f"Skipped: {md_text(style['skipped'])}.")
    else:
        lines += [f"- {md_text(f)}: {_ci(v, 'value', 3)} log-odds per standard deviation" for f, v in style["coefficients"].items()]
        lines += [f"- {md_text(note)}" for note in style["notes"]]
        lines += ["", "| rank | model | style-controlled rating [95% CI] |", "|---|---|---|"]
        lines += [f"| {r['rank']} | {md_cell(r['model'])} | {_ci(r)} |" for r in style["ratings"]]
    v = s["voters"]
    lines += ["", f"## Voters (anomaly test at alpha {v['alpha']:g})", ""]
    if v.get("skipped"):
        lines.append(f"Skipped: {md_text(v['skipped'])}.")
    else:
        lines += [f"Flagged: {md_text(', '.join(map(str, v['flagged']))) if v['flagged'] else 'none'}.", "",
                  "| annotator | votes | agreement with others' majority | tie rate | left chosen | median s | flagged |",
                  "|---|---|---|---|---|---|---|"]
        lines += [f"| {md_cell(a['annotator'])} | {a['votes']} | {_f(a['agreement'], 3)} | {_f(a['tie_rate'], 3)} | "
                  f"{_f(a['left_chosen'], 3)} | {_f(a['median_seconds'])} | {'yes' if a['flagged'] else ''} |"
                  for a in v["annotators"]]
        lines += _voter_test_lines(v.get("tests"))
    rob = s["robustness"]
    lines += ["", "## Robustness of the ranking (Spearman to the full ranking)", ""]
    lines += [f"- {int(r['fraction'] * 100)}% of annotators ({r['annotators']}): every annotator, so no subsample"
              if "skipped" in r else
              f"- {int(r['fraction'] * 100)}% of annotators ({r['annotators']}), {rob['repeats']} repeats: "
              f"mean {_f(r['spearman']['mean'], 3)} [{_f(r['spearman']['ci_low'], 3)}, {_f(r['spearman']['ci_high'], 3)}]"
              for r in rob["subsampling"]]
    lines += [f"- without {md_text(r['slice'])} = {md_cell(r['left_out'])}: {_f(r['spearman'], 3)}" for r in rob["leave_one_slice_out"]]
    for j in s["judges"]:
        lines += ["", f"## Judge-induced ranking: {md_text(j['judge'])}", "",
                  f"{j['answered_battles']} of {j['battles']} battles answered; human ratings on all battles.", "",
                  f"- Spearman {_ci(j['spearman'], 'value', 3)}; Kendall {_ci(j['kendall'], 'value', 3)}",
                  f"- top-{j['top_k']['k']} overlap {_f(j['top_k']['overlap'], 2)}; mean rank displacement "
                  f"{_ci(j['rank_displacement'], 'value', 2)} (max {_f(j['rank_displacement']['max'], 0)})"]
        warning = judge_warning(j, md_text)
        if warning:
            lines += ["", f"Warning: {warning}."]
    lines += _assisted_markdown(s)
    return "\n".join(lines) + "\n"


def _voter_test_lines(tests: dict[str, Any] | None) -> list[str]:
    """The per-annotator tests with their power at this data's size (voters.voter_tests)."""
    if not tests:
        return []
    by = {name: [md_text(a["annotator"]) for a in tests["annotators"] if name in a["flagged_by"]] for name in ("agreement", "side")}
    lines = ["", f"Per-annotator tests (Bonferroni level {tests['level']:.2g}): low agreement with the others' majority: "
             f"{', '.join(by['agreement']) or 'none'}; side preference: {', '.join(by['side']) or 'none'}.", ""]
    if tests["power"]:
        first = tests["power"][0]
        k = first["uniform_choices"]
        lines += ["Power at these tests' level (exact binomial; the anomaly test's own power is not computed, so "
                  "its 'none' is not a clean bill). A clicker matches the others' majority as often as the "
                  f"majorities are of the labels it clicks: {first['clicker_agreement']:.2f} for one clicking A or B, "
                  f"{first['uniform_clicker_agreement']:.2f} for one clicking the {_choices(k)} voters use, against "
                  f"the voters' {first['honest_agreement']:.2f}:", "",
                  f"| votes per voter | A-or-B clicker flagged | uniform clicker ({_choices(k)}) flagged | "
                  "always-left flagged |", "|---|---|---|---|"]
        lines += [f"| {row['votes']} | {100 * row['random_clicker']:.1f}% | {100 * row['uniform_clicker']:.1f}% | "
                  f"{_percent(row['always_left'])} |" for row in tests["power"]]
    return lines


def _choices(k: int) -> str:
    return f"{k} choice" if k == 1 else f"{k} choices"


def _percent(share: float | None) -> str:
    """A power as a whole percentage; "—" when undefined (the always-left voter without shown orders)."""
    return "—" if share is None else f"{100 * share:.0f}%"


def _needed(v: Any, grid: list[int]) -> str:
    return f"> {grid[-1]}" if v is None else str(v)


def _assisted_markdown(s: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for a in s.get("assisted", []):
        lines += ["", f"## Judge-assisted ratings: {a.get('judge', a['run'])}", ""]
        if a.get("assisted") is None:
            lines.append(f"Skipped: {a['skipped']}.")
            continue
        c = a["counts"]
        lines += [f"{c['labelled_pairs']} voted pairs (labelled) and {c['unlabelled_pairs']} judge-only pairs; "
                  f"power-tuning lambda {a['lambda']:.3f}; judge agreement with the votes {_f(a['judge_agreement'], 3)} (over the "
                  f"{a.get('judge_agreement_pairs', 0)} voted pairs it answered that the votes decide). "
                  f"Intervals {_f(a['width_ratio'], 2)} x the human-only width: the judge was worth "
                  f"{_f(a['effective_human_pairs'], 0)} voted pairs (vs {c['labelled_pairs']}), about "
                  f"{_f(a['effective_human_votes'], 0)} votes (vs {c['labelled_votes']}). "
                  f"Method: {a['method']}. Judge-only: {a['judge_only_note']}.", "",
                  "| model | human only [95% CI] (ranks) | judge only, not valid [95% CI] | judge-assisted [95% CI] (ranks) |",
                  "|---|---|---|---|"]
        by = {name: {r["model"]: r for r in rows} for name, rows in assisted_methods(a)}
        for r in a["assisted"]:
            m = r["model"]
            h, j = by["human_only"][m], by["judge_only (not valid for the human ranking)"][m]
            lines.append(f"| {m} | {_ci(h)} ({h['rank_best']}-{h['rank_worst']}) | {_ci(j)} | "
                         f"{_ci(r)} ({r['rank_best']}-{r['rank_worst']}) |")
        if "stratified" in a:
            st = a["stratified"]
            lines += ["", f"Stratified by {st['slice']} (worth {_f(st['effective_human_pairs'], 1)} voted pairs):", ""]
            lines += [f"- {x['stratum']}: {x['labelled']} voted + {x['unlabelled']} judge-only, lambda "
                      f"{x['lambda']:.3f}, agreement {_f(x['judge_agreement'], 3)}" for x in st["strata"]]
            lines += ["", "| model | stratified judge-assisted [95% CI] (ranks) |", "|---|---|"]
            lines += [f"| {r['model']} | {_ci(r)} ({r['rank_best']}-{r['rank_worst']}) |" for r in st["ratings"]]
    if "votes_needed" in s:
        v = s["votes_needed"]
        lines += ["", f"## Votes needed (power {v['power']:g}, {v['confidence']:g} intervals, {v['reps']} simulations per count)",
                  "", f"Method: {v['method']}.", ""]
        for curve in v["curves"]:
            lines.append(f"- {curve['label']}: top {v['top_k']} ordered: {_needed(curve['top_k']['votes_needed'], v['grid'])} "
                         f"votes; every adjacent pair: {_needed(curve['all_adjacent']['votes_needed'], v['grid'])}; "
                         + "; ".join(f"{r['higher']} > {r['lower']}: {_needed(r['votes_needed'], v['grid'])}"
                                     for r in curve["adjacent"]))
        for g in v["judge_gap"]:
            lines.append(f"- two judges at accuracy {g['accuracy']:.3f} and {g['accuracy'] + g['gap']:.3f} "
                         f"(correctness correlation {g['correlation']:g}{_measured(g)}): "
                         f"{_needed(g['pairs_needed'], g['grid'])} labelled pairs")
    return lines


def _measured(gap: dict[str, Any]) -> str:
    """Where the simulated accuracy is not the judge's measured agreement, the measured one and why."""
    measured = gap.get("measured_accuracy")
    if measured is None:
        return "; no judge: an assumed accuracy" if gap["judge"] is None else "; no decisive vote to measure it"
    if abs(measured - gap["accuracy"]) > 1e-12:
        return f"; measured {measured:.3f}, simulated at {gap['accuracy']:.3f} to leave room for the gap"
    return ""


def page(s: dict[str, Any], tables: dict[str, pd.DataFrame]) -> str:
    """A self-contained HTML page with the arena section (the leaderboard page's CSS)."""
    blocks = []
    for name, frame in tables.items():
        shown = frame.reset_index() if name in ("winrate", "battle_counts") else frame
        head = "".join(f"<th>{html_text(str(c))}</th>" for c in shown.columns)
        formats = [_column_format(shown[c]) for c in shown.columns]
        body = "\n".join("<tr>" + "".join(f"<td>{html_text(_cell(v, f))}</td>" for v, f in zip(row, formats)) + "</tr>"
                         for row in shown.itertuples(index=False, name=None))  # plain tuples: model names
        # as field names failed (two names that are one identifier once NFKC-normalised: 'é', 'e\u0301')
        blocks.append(f"<h3>{html_text(name.replace('_', ' '))}</h3>\n<div class=\"scroll\"><table>"
                      f"<thead><tr>{head}</tr></thead>\n<tbody>{body}</tbody></table></div>")
    title = html_text(f"Arena: model ratings from votes ({s['config']['source']})")
    warnings = [*trust_warnings(s, str), *filter(None, (judge_warning(j, str) for j in s["judges"]))]
    shown = "".join(f'<p class="warning">Warning: {html_text(w)}.</p>\n' for w in warnings)
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>"
            f"<style>{CSS}</style></head>\n<body>\n<section id=\"arena\" class=\"arena\">\n<h2>{title}</h2>\n"
            f"<p class=\"legend\">Generated by judgebench arena; Bradley–Terry ratings on the Elo scale with 95% bootstrap "
            f"intervals; ranks by interval overlap. Plots: ratings.png, winrate.png (and assisted.png, votes_needed.png "
            f"when computed). The judge-only ratings in the assisted table estimate the judge's own ranking, not the human one.</p>\n"
            + shown + "\n".join(blocks) + "\n</section>\n</body></html>\n")


def _column_format(column: pd.Series) -> str:
    """One number format per column: counts as integers, shares and correlations (all within [-1, 1]) with three
    decimals, ratings and other figures with one (the page mixed 2312 / 746.2 / 0.004975)."""
    values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
    values = values[np.isfinite(values)]
    if not len(values):
        return "{}"
    if np.all(values == np.round(values)) and np.abs(values).max() > 1:
        return "{:.0f}"
    return "{:.3f}" if np.abs(values).max() <= 1 else "{:.1f}"


def _cell(value: Any, number_format: str = "{:.4g}") -> str:
    if isinstance(value, (float, int, np.integer, np.floating)) and not isinstance(value, bool):
        return "" if not math.isfinite(float(value)) else number_format.format(float(value))
    return "" if value is None else str(value)


