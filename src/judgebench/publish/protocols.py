"""Published figures compared like with like: each `reported:` row of a task states its protocol
(orders, invalid rule, metric, prompt, data), and every run is re-scored from its samples under that
protocol into its own column (e.g. `accuracy_ab_answered` and `coverage_ab` for SciArena-Eval)."""

from __future__ import annotations

from typing import Any

from judgebench.core.catalogue import as_percent, metric
from judgebench.core.records import JudgmentRecord
from judgebench.tasks.registry import ReportedProtocol, TaskSpec


def reported_protocols(spec: TaskSpec) -> list[ReportedProtocol]:
    """The distinct stated protocols of the task's reported rows."""
    found: list[ReportedProtocol] = []
    for reported in spec.reported:
        if reported.protocol is not None and reported.protocol.stated and reported.protocol not in found:
            found.append(reported.protocol)
    return found


def protocol_columns(protocol: ReportedProtocol, dimension: str | None = None) -> tuple[str, str]:
    """(figure, coverage) column names, e.g. ('accuracy_ab_answered', 'coverage_ab')."""
    orders = "ab" if protocol.orders == "AB" else "both"
    rule = "answered" if protocol.invalid == "excluded" else "all"
    prefix = f"{dimension}." if dimension else ""
    return f"{prefix}{protocol.metric}_{orders}_{rule}", f"{prefix}coverage_{orders}"


def protocol_figure(
    records: list[JudgmentRecord], dimension: str, *, orders: str, invalid: str, soft: bool, both_bad: str = "tie"
) -> tuple[float | None, float | None]:
    """(score, coverage) of one dimension's judgments under a published protocol, as fractions.

    orders "AB": only the judgments in the order as given; "both": all. invalid "excluded": the mean
    score over answered judgments, agree / (agree + disagree); "wrong": over all, an unanswered one
    scoring 0. coverage = answered / judgments considered. A BOTH_BAD label counts as TIE, or is left
    out with both_bad "exclude". None when nothing is left.
    """
    from judgebench.scoring.metrics import exact_score, soft_score

    score = soft_score if soft else exact_score
    considered, answered, total = 0, 0, 0.0
    for record in records:
        if record.dimension != dimension or (orders == "AB" and record.order != "AB"):
            continue
        label = record.label
        if label == "BOTH_BAD":
            if both_bad == "exclude":
                continue
            label = "TIE"
        considered += 1
        if record.status == "ANSWERED" and record.verdict is not None:
            answered += 1
            total += score(record.verdict, label)
    if not considered:
        return None, None
    denominator = answered if invalid == "excluded" else considered
    return (total / denominator if denominator else None), answered / considered


def protocol_cells(records: list[JudgmentRecord], spec: TaskSpec, both_bad: str) -> dict[str, Any]:
    """A run's figures under each stated protocol of the task's reported rows, in percent."""
    cells: dict[str, Any] = {}
    single = len(spec.dimension_names) == 1
    for protocol in reported_protocols(spec):
        dimensions = {d for r in spec.reported if r.protocol == protocol for d in r.metrics}
        for dimension in [d for d in spec.dimension_names if d in dimensions]:
            figure, coverage = protocol_figure(
                records, dimension, orders=protocol.orders, invalid=protocol.invalid,
                soft=metric(protocol.metric).credit == "soft", both_bad=both_bad,
            )
            value_column, coverage_column = protocol_columns(protocol, None if single else dimension)
            cells[value_column], cells[coverage_column] = as_percent(figure), as_percent(coverage)
    return cells


def describe_protocol(protocol: ReportedProtocol | None) -> str:
    """One line for the tables: how the reported figures were computed."""
    if protocol is None:
        return "protocol not recorded"
    orders = {"AB": "one order (as given)", "both": "mean of both orders", "unstated": "orders not stated"}[protocol.orders]
    invalid = {
        "excluded": "invalid answers excluded (agree / (agree + disagree))",
        "wrong": "invalid answers counted wrong",
        "unstated": "invalid rule not stated",
    }[protocol.invalid]
    size = f", {protocol.size} examples" if protocol.size else ""
    note = f"; {protocol.note}" if protocol.note else ""
    return f"{protocol.metric}, {orders}, {invalid}, prompt: {protocol.prompt}, data: {protocol.dataset} {protocol.split}{size}{note}"
