"""`run --sweep KEY=V1,V2,...`: one judge at several settings as curves (issue 34; docs/guide/confidence.md).

    OUT/<KEY>=<V>/   one ordinary run directory per setting (the shared answer cache: a setting run before
                     is not called again)
    OUT/sweep.json   one row per setting, in the order given (`sweep_rows`)
    OUT/sweep.md     the same as a table, and sweep.png: headline (with its interval), truncation rate, cost
                     and latency, and thinking vs answer tokens against the setting

Truncation is the share of judgments cut off by the token cap (results.json counts.truncated, the
judges/reasoning.py rule); thinking tokens are the provider-reported reasoning tokens, answer tokens the
output tokens besides them (providers count reasoning inside completion tokens).
"""

from __future__ import annotations

import math

import re
from pathlib import Path
from typing import Any

import numpy as np

from judgebench.core.files import write_atomic, write_json
from judgebench.core.records import JudgmentRecord, RunResult
from judgebench.core.text import UNDEFINED, md_cell, md_text
from judgebench.judges.config import named_judge, run_config_hash
from judgebench.publish.figures import save_png

SWEEP_FILE = "sweep.json"


def setting_folder(key: str, value: str) -> str:
    """The folder of one setting: KEY=VALUE with characters outside [A-Za-z0-9._=-] as '-'."""
    name = re.sub(r"[^A-Za-z0-9._=-]", "-", f"{key}={value}").strip(".")
    return name or "setting"


def _record_figures(records: list[JudgmentRecord]) -> dict[str, float | None]:
    """What a setting costs per judgment, cached answers included (a sweep run again from the cache draws the
    same curves): recorded cost (None when an answered call was unpriced), latency p50/p95 of the calls
    (cached answers cost no time now: left out unless every answer is cached), thinking and answer tokens."""
    n = len(records) or None
    answered = [r for r in records if r.status != "FAILED"]
    unpriced = any(r.cost_usd is None and r.tokens_in is not None for r in answered)
    cost = None if unpriced or not answered else sum(r.cost_usd or 0.0 for r in answered)
    live = [r.latency_s for r in records if not r.cached] or [r.latency_s for r in records]
    quantile = (lambda q: float(np.quantile(live, q)) if live else None)  # noqa: E731
    reasoning = [r.reasoning_tokens for r in records if r.reasoning_tokens is not None]
    out_tokens = sum(r.tokens_out or 0 for r in records)
    thinking = sum(reasoning) if reasoning else None
    return {
        "cost_usd": cost, "latency_p50_s": quantile(0.5), "latency_p95_s": quantile(0.95),
        "reasoning_tokens_per_call": None if thinking is None or not n else thinking / n,
        "answer_tokens_per_call": None if not n else (out_tokens - (thinking or 0)) / n,
    }


def sweep_row(key: str, value: str, folder: str, result: RunResult, stopped: str | None = None,
              records: list[JudgmentRecord] | None = None) -> dict[str, Any]:
    """One setting's figures from its results.json (None where unknown); with its `records`, cost, latency and
    tokens counted over every judgment, cached ones included (`_record_figures`)."""
    dims = [d for d in result.metrics if d != "mean"]
    scope = "mean" if "mean" in result.metrics else dims[0]
    head = result.metrics.get(scope, {}).get(result.config.headline)
    counts, usage = result.counts, result.usage
    calls = counts.calls or None
    reasoning = usage.reasoning_tokens
    answer_tokens = usage.tokens_out - reasoning if reasoning is not None else usage.tokens_out
    per = (lambda x: None if x is None or not calls else x / calls)  # noqa: E731
    config = result.config
    return {
        "key": key, "value": value, "folder": folder, "task": config.task, "judge": config.judge,
        "judge_name": config.judge_name, "config_hash": run_config_hash(config), "headline": config.headline,
        "headline_value": head.value if head else None,
        "ci_low": head.ci_low if head else None, "ci_high": head.ci_high if head else None,
        "coverage": counts.coverage, "truncation_rate": per(counts.truncated), "invalid_rate": per(counts.invalid),
        "cost_usd": usage.cost_usd, "latency_p50_s": usage.latency_p50_s, "latency_p95_s": usage.latency_p95_s,
        "reasoning_tokens_per_call": per(reasoning), "answer_tokens_per_call": per(answer_tokens),
        "judgments": counts.calls, "stopped": stopped,
    } | (_record_figures(records) if records is not None else {})


def _fmt(x: Any, pct: bool = False, digits: int = 3) -> str:
    """A cell: a share as a percentage, a number to `digits` significant digits (whole from 100 on: 1,536,
    never 1.54e+03), anything else as text."""
    if x is None:
        return UNDEFINED
    if pct:
        return f"{100 * x:.1f}%"
    if isinstance(x, float):
        return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.{digits}g}"
    return str(x)


def sweep_markdown(rows: list[dict[str, Any]]) -> str:
    key = rows[0]["key"] if rows else "setting"
    head = rows[0]["headline"] if rows else "headline"
    title = f"# Sweep over {md_text(key)}"
    if rows:  # which judge, on which task (an audit: the table named neither, and a judges file's name was lost)
        first = rows[0]
        title += f": {md_text(named_judge(first['judge'], first.get('judge_name')))} on {md_text(first['task'])}"
    lines = [title, "",
             (f"| {md_cell(key)} | {head} [95% CI] | coverage | truncated | cost (USD) | latency p50 (s) | thinking "
              "tokens / call | answer tokens / call | configuration |"), "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ci = f" [{_fmt(r['ci_low'], True)}, {_fmt(r['ci_high'], True)}]" if r["ci_low"] is not None else ""
        lines.append(f"| {md_cell(r['value'])} | {_fmt(r['headline_value'], True)}{ci} | {_fmt(r['coverage'], True)} | "
                     f"{_fmt(r['truncation_rate'], True)} | {_fmt(r['cost_usd'])} | {_fmt(r['latency_p50_s'])} | "
                     f"{_fmt(r['reasoning_tokens_per_call'])} | {_fmt(r['answer_tokens_per_call'])} | "
                     f"{(r.get('config_hash') or '—')[:8]} |")
    return "\n".join([*lines, "", "![sweep](sweep.png)", ""])


def plot_sweep(rows: list[dict[str, Any]], path: Path) -> None:
    """Four panels against the setting (in the order given): headline with its interval, truncation rate,
    cost and latency p50, thinking vs answer tokens per call (stacked)."""
    from matplotlib.figure import Figure

    x = list(range(len(rows)))
    labels = [r["value"] for r in rows]
    nan = float("nan")
    val = lambda name: [nan if r[name] is None else r[name] for r in rows]  # noqa: E731
    fig = Figure(figsize=(10.0, 7.0), dpi=100)
    axes = [fig.add_subplot(2, 2, i) for i in range(1, 5)]
    head = val("headline_value")
    low = [h - lo if lo is not None else 0 for h, lo in zip(head, val("ci_low"))]
    high = [hi - h if hi is not None else 0 for h, hi in zip(head, val("ci_high"))]
    axes[0].errorbar(x, head, yerr=[low, high], marker="o", capsize=3)
    axes[0].set_ylabel(rows[0]["headline"] if rows else "headline"), axes[0].set_ylim(0, 1.02)
    axes[1].plot(x, val("truncation_rate"), marker="o", color="tab:red")
    axes[1].set_ylabel("truncated share"), axes[1].set_ylim(0, 1.02)
    _cost_and_latency(axes[2], x, val("cost_usd"), val("latency_p50_s"))
    thinking = [0 if r["reasoning_tokens_per_call"] is None else r["reasoning_tokens_per_call"] for r in rows]
    answer = [0 if r["answer_tokens_per_call"] is None else r["answer_tokens_per_call"] for r in rows]
    axes[3].bar(x, thinking, label="thinking", color="tab:orange")
    axes[3].bar(x, answer, bottom=thinking, label="answer", color="tab:blue")
    axes[3].set_ylabel("tokens per judgment"), axes[3].legend(fontsize=8)
    for ax in axes:
        ax.set_xticks(x, labels)
        ax.set_xlabel(rows[0]["key"] if rows else "setting")
    fig.subplots_adjust(hspace=0.35, wspace=0.6, left=0.08, right=0.92, top=0.96, bottom=0.08)
    save_png(fig, path)


def _cost_and_latency(ax: Any, x: list[int], cost: list[float], latency: list[float]) -> None:
    """Cost (left axis) and latency p50 (right axis); latency alone, titled so, when no setting has a cost (an
    unpriced judge: an audit found an empty cost axis from -0.04 to 0.04)."""
    if all(math.isnan(c) for c in cost):
        ax.plot(x, latency, marker="s", color="tab:purple")
        ax.set_ylabel("latency p50 (s)", color="tab:purple")
        ax.set_title("cost: not priced for this judge", fontsize=9)
        return
    lines = ax.plot(x, cost, marker="o", color="tab:green", label="cost (USD, left)")
    ax.set_ylabel("cost (USD)", color="tab:green")
    twin = ax.twinx()  # (a walkthrough: the two lines were told apart by nothing)
    lines += twin.plot(x, latency, marker="s", color="tab:purple", label="latency p50 (s, right)")
    twin.set_ylabel("latency p50 (s)", color="tab:purple")
    ax.legend(handles=lines, fontsize=8)


def write_sweep(out: Path, rows: list[dict[str, Any]]) -> None:
    write_json(out / SWEEP_FILE, {"key": rows[0]["key"] if rows else None, "settings": rows})
    write_atomic(out / "sweep.md", sweep_markdown(rows))
    if rows:
        plot_sweep(rows, out / "sweep.png")
