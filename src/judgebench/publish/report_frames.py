"""The tables behind `report`'s plots (each also written as the plot's CSV), from one dimension's
diagnostics; and the order flips of every dimension."""

from __future__ import annotations

from typing import Any

import pandas as pd

from judgebench.core.catalogue import HEADLINES, SAMPLES_ONLY_HEADLINE


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
