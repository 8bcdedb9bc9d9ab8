"""Rubric records: a graded response (task side), one judgment of it (samples.jsonl), the run's results.

GradedResponse  one candidate response with its rubric (items with point maxima) and expert scores
RubricRecord    one line of samples.jsonl: one judgment (of one repeat) of one graded response,
                with every attempt's raw text (the ledger), the judge's item scores and the expert's
RubricResult    results.json of a rubric run: config, metrics with intervals, system level, counts

Every new field must be optional with a default, so older run directories still read.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from judgebench.core.records import RESULTS_SCHEMA, Amount, Count, MetricValue, SchemaVersion, Strict, Usage

RubricStatus = Literal["ANSWERED", "INVALID", "FAILED", "NO_ANSWER"]
TOTAL = "total"  # the one rubric item of a task that gives only a total maximum


class Criterion(Strict):
    """One rubric item: its id, what earns the points, and the maximum points."""

    id: str
    criterion: str = ""
    max: float = Field(gt=0)


class GradedResponse(Strict):
    """One candidate response to grade, with the expert's scores (per item and/or total)."""

    id: str
    question: str
    response: str
    model: str
    rubric: list[Criterion]
    expert_items: dict[str, float] | None = None  # rubric item id -> expert points
    expert_total: float
    reference_answer: str | None = None
    solution: str | None = None
    group: str | None = None  # the problem the response answers (bootstrap cluster)
    exam: str | None = None  # system level: model x exam totals
    slices: dict[str, str] = Field(default_factory=dict)

    @property
    def max_total(self) -> float:
        return sum(c.max for c in self.rubric)


class RubricRecord(Strict):
    """One judgment of one graded response (one repeat). `attempts_raw` is the ledger: every
    reply received, in order, the last one deciding the status."""

    task: str
    item_id: str  # the graded response's id
    judge: str
    repeat: int = 0
    prompt_hash: str | None = None  # None: no call was made (NO_ANSWER, built-in judges)
    status: RubricStatus
    reason: str | None = None  # why the last reply was rejected (INVALID) or no call made
    error: str | None = None  # FAILED: the call's error
    raw: str | None = None  # the last reply
    attempts_raw: list[str] = Field(default_factory=list)  # every reply, the last included
    rejections: list[str] = Field(default_factory=list)  # the reason each rejected reply failed
    scores: dict[str, float] | None = None  # ANSWERED / NO_ANSWER: rubric item id -> points
    total: float | None = None
    rubric: list[Criterion]
    expert_items: dict[str, float] | None = None
    expert_total: float
    model: str
    group: str | None = None
    exam: str | None = None
    slices: dict[str, str] = Field(default_factory=dict)
    tokens_in: Count | None = None  # as the provider reported them (judging.py: anything else is None)
    tokens_out: Count | None = None
    cost_usd: Amount | None = None
    latency_s: Amount = 0.0
    attempts: int = 0
    cached: bool = False
    response_chars: int = 0

    @property
    def max_total(self) -> float:
        return sum(c.max for c in self.rubric)

    @property
    def scored(self) -> bool:
        return self.status in ("ANSWERED", "NO_ANSWER")


class RubricConfig(Strict):
    kind: Literal["rubric"] = "rubric"
    task: str
    task_version: str
    dataset: str  # the data file (or "demo")
    dataset_config: str | None = None  # the config a data folder or Hub dataset was read in (spec.dataset_config)
    fingerprint: str  # sha256 over the graded responses
    demo: bool = False
    judge: str
    judge_args: dict[str, Any] = Field(default_factory=dict)  # secrets removed
    prompt_template: str
    prompt_template_hash: str
    reask: int = 0
    repeats: int = 1
    within_k: float = 1.0
    total_tolerance: float = 0.01
    evidence_required: bool = True
    seed: int = 0
    n_resamples: int = 1000
    limit: int | None = None
    judgebench_version: str
    started_at: str
    ended_at: str | None = None
    partial: bool = False
    headline: str = "normalized_mae"  # catalogue.RUBRIC_HEADLINE, on the item level


class RubricCounts(Strict):
    responses: int  # graded responses in the task
    judgments: int  # responses x repeats
    answered: int
    no_answer: int  # scored zero without a call
    invalid: int  # rejected after every re-ask
    failed: int
    calls: int  # replies received (every attempt of the ledger)
    cached: int = 0
    coverage: float  # (answered + no_answer) / judgments


class SystemPair(Strict):
    model: str
    exam: str
    expert_total: float
    judge_total: float
    difference: float  # judge - expert
    responses: int


class SystemLevel(Strict):
    """Per candidate model and exam: judge total vs expert total; the within-k pass/fail."""

    pairs: list[SystemPair]
    max_abs_difference: float | None
    worst_pair: str | None  # "model / exam"
    within_k: float
    passed: bool | None  # every pair within k (None: no pair)
    complete: bool  # every response of every pair scored (else the totals are partial)
    rank_spearman: float | None  # models ranked by judge total vs by expert total
    rank_kendall: float | None


class RubricResult(Strict):
    schema_version: SchemaVersion = RESULTS_SCHEMA
    config: RubricConfig
    metrics: dict[str, dict[str, MetricValue]]  # level (item / total) -> metric -> value
    slices: dict[str, dict[str, dict[str, dict[str, MetricValue]]]] = Field(default_factory=dict)
    system: SystemLevel
    repeat_agreement: dict[str, float | int | None] | None = None
    counts: RubricCounts
    usage: Usage
