"""The record shapes that flow from task loading to runner to scorer to leaderboard.

PairExample   one human-labelled comparison (labels per dimension)
JudgeRequest  one call to a judge: an example, a dimension (or all, in joint mode), an order
JudgeReply    what a judge returned for one request (raw text, usage, timing, error)
JudgmentRecord one line of samples.jsonl: one (example, dimension, order) judgment
RunResult     results.json: config, metrics with CIs, per-slice metrics, counts, usage
PanelSummary  results.json `panel`: a panel's agreement, its test against its best member, biases

The samples file is the source of truth: scoring, reports, submission checks,
regression comparisons and exports read it and never call a model.
"""

from __future__ import annotations

import re
import sys
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_serializer,
    model_validator,
)

from judgebench.core.catalogue import DEFAULT_HEADLINE, check_headline
from judgebench.core.confidence import ConfidenceSource
from judgebench.core.errors import JudgebenchError
from judgebench.core.names import (  # defined there, for the CLI's parsers (no pydantic for --help)
    BUILTIN_PREFIX,
    MAX_RESAMPLES,
    PANEL_PREFIX,
    REPLAY_PREFIX,
)


def check_resamples(n_resamples: int) -> int:
    """A bootstrap resample count given to a run, a re-score or a panel: 0 to MAX_RESAMPLES."""
    if n_resamples < 0:
        raise JudgebenchError(f"n_resamples (--bootstrap): must be >= 0, got {n_resamples}")
    if n_resamples > MAX_RESAMPLES:
        raise JudgebenchError(f"n_resamples (--bootstrap): must be <= {MAX_RESAMPLES}, got {n_resamples}")
    return n_resamples

Label = Literal["A", "B", "TIE", "BOTH_BAD"]
Verdict = Literal["A", "B", "TIE"]
# One vocabulary: what a verdict is worth to the response in position A (a tie is half), and the judge-id
# prefixes judgebench reserves for its own judges (built-in baselines, replays of recorded answers, panels).
VERDICT_SCORE: dict[str, float] = {"A": 1.0, "TIE": 0.5, "B": 0.0}
RESERVED_PREFIXES = (BUILTIN_PREFIX, REPLAY_PREFIX, PANEL_PREFIX)
# An id that reads as one of them (any case, any separator: `Builtin/x`, `panel-x`, `replay.v2`): refused for a
# caller's own judge (judges/own.py) and on a leaderboard (publish/verify.py) alike
RESERVED_ID = re.compile(r"\W*(" + "|".join(p.rstrip("/") for p in RESERVED_PREFIXES) + r")\W", re.IGNORECASE)
Status = Literal["ANSWERED", "INVALID", "FAILED"]
# Why a FAILED judgment has no answer: its call failed, it was never sent (the run stopped first), it was sent
# and the run stopped without waiting for its answer, or a replay judge had no recorded answer for its prompt.
Failure = Literal["error", "not_attempted", "in_flight", "unrecorded"]
NOT_ATTEMPTED = "not attempted: the run stopped before this call ({reason})"
IN_FLIGHT = "in flight when the run stopped: sent, its answer not waited for"
RETRIES_CUT = IN_FLIGHT + " (the stop cut its retries short; last error: {error})"  # in flight too: its wait
STOPPED_FAILURES = ("not_attempted", "in_flight")  # a stopped (partial) run's unfinished judgments
UNRECORDED = "no recorded answer for prompt {hash}"
Order = Literal["AB", "BA"]

COUNT_MAX = 2**53  # a count we measure (characters, citations, attempts, repeats) above this is refused
Count = Annotated[int, Field(ge=0, le=COUNT_MAX)]  # so scoring's int64 and float arrays hold every value exactly
Amount = Annotated[float, Field(ge=0, allow_inf_nan=False)]  # a cost or latency: finite and not negative
RESULTS_SCHEMA = 1  # the results.json layout this judgebench writes and reads


def _known_schema(version: int) -> int:
    if version != RESULTS_SCHEMA:  # (99 was read as if it were 1)
        raise ValueError(f"{version} is not the layout this judgebench reads ({RESULTS_SCHEMA}): written by another "
                         "version of judgebench; read it with that version, or rerun")
    return version


SchemaVersion = Annotated[int, AfterValidator(_known_schema)]


def reported_count(value: Any) -> int | None:
    """A token count as a provider (or a cache entry) reported it: kept when it is a Count, else unknown (None),
    so a nonsense figure never prices a call below zero, overflows a sum or makes a record unreadable."""
    return value if type(value) is int and 0 <= value <= COUNT_MAX else None


def reported_amount(value: Any) -> float | None:
    """A cost or latency as reported: a finite number >= 0 (as a float), else unknown (None)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= sys.float_info.max:
        return None  # NaN fails the comparison; an int too large for a float is refused before converting
    return float(value)
# Why an INVALID judgment has no verdict besides an unparseable answer: it was cut off by the token cap.
InvalidReason = Literal["truncated"]

LABELS: tuple[str, ...] = ("A", "B", "TIE", "BOTH_BAD")
ORDERS: tuple[Order, ...] = ("AB", "BA")
DEFAULT_DIMENSION = "overall"


class Strict(BaseModel):
    """Base model: unknown fields are an error, never silently dropped."""

    model_config = ConfigDict(extra="forbid")


class PairVote(Strict):
    """One annotator's vote on a pair (tasks mapping annotator-level votes), in the stored positions."""

    annotator: str
    labels: dict[str, Label]  # dimension -> this annotator's label
    timestamp: str | None = None
    shown_order: Order | None = None  # AB: response_a was shown on the left


class PairExample(Strict):
    """One comparison with its human label(s), in the dataset's original A/B positions."""

    id: str
    question: str
    response_a: str
    response_b: str
    labels: dict[str, Label]  # dimension -> human label; {} for an unlabelled example (run --judge-unlabelled)
    model_a: str | None = None
    model_b: str | None = None
    slices: dict[str, str] = Field(default_factory=dict)  # e.g. subject, question_type
    context: dict[str, Any] = Field(default_factory=dict)  # e.g. citations, references
    votes: list[PairVote] | None = None  # annotator-level votes, in data order (labels derived from them)


def swap_verdict(verdict: str | None) -> str | None:
    """Map a verdict between shown and original positions (A<->B; TIE stays)."""
    return _SWAPPED.get(verdict, verdict) if verdict else verdict


_SWAPPED = {"A": "B", "B": "A"}


class JudgeRequest(Strict):
    """One judge call. `first`/`second` are the responses in the order shown."""

    example_id: str
    dimensions: list[str]  # one dimension, or all of them in joint mode
    order: Order
    question: str
    first: str
    second: str
    context: dict[str, Any] = Field(default_factory=dict)
    verdicts: list[Verdict]  # verdicts the judge may give
    messages: list[dict[str, str]]  # rendered chat messages
    prompt_hash: str  # sha256 of the rendered messages
    reask_reminder: str | None = None  # the re-ask message, when not the verdict reminder (rubric tasks)
    repeat: int = 0  # --repeats: which sample of this judgment (0 keeps the cache key of a single-sample run)


class JudgeReply(Strict):
    """What a judge returned for one request (before verdict parsing)."""

    text: str | None = None  # raw output; None when the call failed
    error: str | None = None  # set when the call failed after all retries
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None  # None: not priced (litellm's cost map has no entry)
    latency_s: float = 0.0
    attempts: int = 1
    earlier_texts: list[str] = Field(default_factory=list)  # unparseable answers before a re-ask
    cached: bool = False
    cached_cost_usd: float | None = None  # of cost_usd, the part an earlier run paid (a re-ask chain resumed from the cache)
    # reasoning judges (judges/reasoning.py): never parsed for the verdict
    finish_reason: str | None = None  # the provider's, e.g. "stop", "length"
    reasoning: str | None = None  # provider-returned reasoning text (reasoning_content, thinking blocks)
    reasoning_tokens: int | None = None  # when the provider reports them
    served_model: str | None = None  # the response's `model`: the snapshot actually served
    # logprobs=true (issue 34, core/confidence.py): the answer's verdict-like token positions, each
    # (chosen token, its logprob, top alternatives token -> logprob); None when not requested or not returned
    top_logprobs: list[tuple[str, float, dict[str, float]]] | None = None


class JudgmentRecord(Strict):
    """One line of samples.jsonl: one judgment of one example, dimension and order.

    Carries the human label and the example facts scoring and diagnostics need,
    so a run directory can be re-scored without reloading the dataset.
    """

    task: str
    example_id: str
    dimension: str
    order: Order
    judge: str
    prompt_hash: str
    status: Status
    raw: str | None = None
    earlier_raw: list[str] = Field(default_factory=list)
    verdict_shown: Verdict | None = None  # in the positions the judge saw
    verdict: Verdict | None = None  # mapped back to the dataset's positions
    label: Label | None  # None only in unlabelled.jsonl (run --judge-unlabelled); samples.jsonl always has one
    tokens_in: Count | None = None  # as the provider reported them (judgments.py: anything else is None)
    tokens_out: Count | None = None
    cost_usd: Amount | None = None
    latency_s: Amount = 0.0
    attempts: Count = 1
    cached: bool = False
    cached_cost_usd: Amount | None = None  # of cost_usd, the part an earlier run paid (a re-ask chain resumed from the
    # cache: its earlier answers were paid then); None when none (a whole answer from the cache is `cached`)
    error: str | None = None
    failure: Failure | None = None  # set on FAILED judgments; see failure_of for older files
    repeat: Count = 0  # --repeats: samples.jsonl holds repeat 0, repeats.jsonl the others (judging/repeats.py)
    invalid_reason: InvalidReason | None = None  # INVALID only: "truncated" (cut off), else None (no verdict)
    finish_reason: str | None = None
    reasoning: str | None = None  # kept apart from `raw`, never parsed
    reasoning_tokens: Count | None = None
    served_model: str | None = None
    model_a: str | None = None
    model_b: str | None = None
    slices: dict[str, str] = Field(default_factory=dict)
    length_a: Count  # characters
    length_b: Count
    citations_a: Count | None = None  # in-text citation counts, where the task has them
    citations_b: Count | None = None
    # The texts judged, in the dataset's positions (None with --no-log-text), so a disagreement
    # can be read without the dataset.
    question: str | None = None
    response_a: str | None = None
    response_b: str | None = None
    # Annotator-level votes on this dimension (annotator -> labels, in data order; two or more when the
    # annotator voted the pair again), for the human ceiling and judge-vs-annotator agreement.
    votes: dict[str, list[Label]] | None = None
    # How sure the judge is (core/confidence.py, docs/guide/confidence.md): P(verdict) over the verdicts the
    # task allows, in the dataset's positions, and where it came from; None when the judge gave nothing to
    # read it from.
    confidence: dict[str, float] | None = None
    confidence_source: ConfidenceSource | None = None


def failure_from_error(error: str) -> Failure:
    """The kind of failure an error text names (the runner passes errors on as text)."""
    if error.startswith(NOT_ATTEMPTED.split(":")[0]):
        return "not_attempted"
    if error.startswith(IN_FLIGHT):
        return "in_flight"
    return "unrecorded" if error.startswith(UNRECORDED.split("{")[0]) else "error"


def is_retries_cut(error: str | None) -> bool:
    """Whether an error is RETRIES_CUT's: a call a stop found waiting for its retry (an in_flight failure)."""
    return (error or "").startswith(RETRIES_CUT.split("{")[0])


def failure_of(record: JudgmentRecord) -> Failure | None:
    """A FAILED judgment's kind of failure (files written before `failure` existed: from the error text)."""
    if record.status != "FAILED":
        return None
    return record.failure or failure_from_error(record.error or "")


class MetricValue(Strict):
    """A point estimate with its seeded 95% bootstrap interval."""

    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int = 0


class DatasetInfo(Strict):
    source: str  # Hub id or local path
    config: str | None = None
    split: str
    revision: str | None = None  # as pinned in the task (or overridden)
    resolved_revision: str | None = None  # commit actually loaded, when known
    fingerprint: str  # sha256 over the canonical examples
    demo: bool = False
    license: str | None = None
    label_rule: str | None = None  # how pair labels were derived from annotator votes (votes.MAJORITY_RULE)


Aggregate = Literal["majority", "mean", "unanimous-else-tie"]


class PanelMember(Strict):
    """One finished run a panel was built from (see panel.py)."""

    judge: str
    run_dir: str  # the member's folder name under the panel's members/
    prompt_template: str
    prompt_template_hash: str
    answers_sha256: str  # sha256 of the member's (example, dimension, order, status, raw, verdict) rows
    name: str | None = None  # the member run's judge configuration name (judges/config.py), when it had one
    config_hash: str | None = Field(None, pattern=r"^[0-9a-f]{16}$")  # the member's judge configuration hash

    @model_serializer(mode="wrap")
    def _without_unset(self, handler: Any) -> dict[str, Any]:
        """name and config_hash are written only when set: older panels' results.json stay as they were."""
        data = handler(self)
        for key in ("name", "config_hash"):
            if data.get(key) is None:
                data.pop(key, None)
        return data


class RunConfig(Strict):
    task: str
    task_version: str
    dataset: DatasetInfo
    judge: str
    judge_args: dict[str, Any] = Field(default_factory=dict)  # secrets removed
    judge_name: str | None = Field(None, max_length=120)  # the configuration's display name (judges/config.py)
    judge_config_hash: str | None = Field(None, pattern=r"^[0-9a-f]{16}$")  # what changes answers (judges/config.py)
    prompt_template: str
    prompt_template_hash: str
    dimension_mode: Literal["single", "separate", "joint"] = "single"
    both_bad: Literal["tie", "exclude"] = "tie"
    swap: bool = True
    seed: int = Field(0, ge=0)  # numpy's generators take no negative seed
    limit: int | None = Field(None, ge=1)
    limit_fraction: float | None = Field(None, gt=0, lt=1)  # --limit 0.1: the share of the examples asked for
    judgebench_version: str
    litellm_version: str | None = None
    datasets_version: str | None = None
    started_at: str
    ended_at: str | None = None
    partial: bool = False  # stopped early (max failures, interrupted)
    headline: str = DEFAULT_HEADLINE  # the task's headline metric, one of catalogue.HEADLINES
    n_resamples: int = Field(1000, ge=0, le=MAX_RESAMPLES)  # bootstrap resamples behind every interval (--bootstrap)
    kind: Literal["run", "panel"] = "run"  # panel: verdicts aggregated from finished runs (no calls)
    own_judge: bool | None = None  # True: the caller's own Judge object from Python (judges/own.py); else not written
    aggregate: Aggregate | None = None  # panels only
    members: list[PanelMember] = Field(default_factory=list)  # panels only, in the order given
    shard: str | None = None  # "K/N": this run judged the K-th of N blocks of examples (shards.py)
    reask: int | None = Field(None, ge=1)  # --reask N: an unparseable answer asked again up to N times (answers change)

    _known_headline = field_validator("headline")(check_headline)

    @field_validator("shard")
    @classmethod
    def _k_of_n(cls, value: str | None) -> str | None:
        """"K/N" with 1 <= K <= N, as `run --shard` writes it (a hand-edited one was taken, or blamed on --shard)."""
        parts = value.split("/") if value is not None else ["1", "1"]
        if len(parts) != 2 or not all(p.isascii() and p.isdigit() for p in parts) or not 1 <= int(parts[0]) <= int(parts[1]):
            raise ValueError(f"expected K/N with 1 <= K <= N, got {value!r}")
        return value

    @model_serializer(mode="wrap")
    def _without_unset_markers(self, handler: Any) -> dict[str, Any]:
        """own_judge, judge_name, judge_config_hash, limit_fraction and reask are written only when set: every
        other run's results.json stays as it was."""
        data = handler(self)
        for name in ("own_judge", "judge_name", "judge_config_hash", "limit_fraction", "reask"):
            if data.get(name) is None:
                data.pop(name, None)
        return data

    @property
    def joint(self) -> bool:
        """Whether one call answered every dimension of a judgment (its records share that call's usage)."""
        return self.dimension_mode == "joint"


class Counts(Strict):
    examples: int
    calls: int  # judgments expected (examples x dimensions x orders)
    answered: int
    invalid: int
    failed: int
    cached: int = 0
    coverage: float  # answered / calls
    truncated: int = 0  # of the invalid: cut off by the token cap (raise max_tokens)


class Usage(Strict):
    """results.json `usage` (usage.py); every figure finite and not negative, also when read back."""

    tokens_in: int = Field(0, ge=0)  # sums of Counts: may exceed COUNT_MAX
    tokens_out: int = Field(0, ge=0)
    cost_usd: Amount | None = None  # None when any answered call was unpriced
    priced_calls: int = Field(0, ge=0)
    unpriced_calls: int = Field(0, ge=0)
    tokens_per_call: Amount | None = None
    cost_per_100_calls: Amount | None = None
    latency_p50_s: Amount | None = None
    latency_p95_s: Amount | None = None
    reasoning_tokens: int | None = Field(None, ge=0)  # None: no call reported any
    served_models: dict[str, int] = Field(default_factory=dict)  # snapshot served -> calls; >1 key: it changed mid-run
    cached_calls: int | None = Field(None, ge=0)  # of the calls summed above, answered from the cache (None: older runs, which left them out)
    cached_cost_usd: Amount | None = None  # the recorded cost of those cached answers, and of the answers a re-ask chain
    # resumed from the cache had before (not paid again)
    resumed_calls: int | None = Field(None, ge=1)  # calls that resumed a re-ask chain from the cache (None: none)


class MemberFigures(Strict):
    """One judge of a panel (or the panel itself) on the panel's judgments; biases are fractions."""

    judge: str
    headline: float | None  # the task's headline over the panel's judgments
    coverage: float | None
    position_bias: float | None  # share of decisive verdicts picking the response shown first
    longer_preferred_rate: float | None  # share of decisive verdicts picking the longer response


class PanelVersusBest(Strict):
    """The panel against its best member: a paired test, unit = example (paired.py)."""

    best_member: str
    best_value: float
    panel_value: float
    difference: float  # panel - best member
    test: str  # "McNemar exact", "sign-flip exact", "sign-flip Monte Carlo"
    n: int  # examples whose score changed
    rose: int  # examples where the panel scored higher
    fell: int
    p: float


class PanelSummary(Strict):
    """results.json `panel`: agreement between the members, the panel vs its best member, biases.

    Recomputed from the panel's samples alone (each panel judgment records its members' votes).
    """

    aggregate: Aggregate
    judges: list[str]  # the members' judge ids, in the order given
    cohen_kappa: list[list[float | None]]  # pairwise, over judgments both members answered
    cohen_kappa_n: list[list[int]]
    fleiss_kappa: float | None  # over judgments every member answered
    fleiss_kappa_n: int
    versus_best: PanelVersusBest | None
    figures: list[MemberFigures]  # the panel first, then each member


class AnnotatorAgreement(Strict):
    """One annotator on the pairs with 2+ annotators (ceiling.py): against the others (leave one out) and the
    judge against this annotator."""

    annotator: str
    pairs: int  # pairs this annotator voted among the ceiling's pairs
    loo_accuracy: float | None  # this annotator's vote against the others' label (a split rest: left out)
    loo_soft_accuracy: float | None
    judge_accuracy: float | None  # the judge's verdict against this annotator's vote, mean over the orders run
    judge_soft_accuracy: float | None


class RepeatStability(Strict):
    """results.json `stability`: a run with --repeats N > 1 (scoring/repeats.py; docs/guide/running-judges.md).

    Shares are fractions; the run's main metrics are repeat 0's."""

    repeats: int
    headline: str
    headline_per_repeat: list[float | None]  # the headline of each repeat alone
    headline_min: float | None
    headline_max: float | None
    headline_mean: float | None
    headline_ci_low: float | None = None  # percentile interval of the mean over repeats resampled with replacement
    headline_ci_high: float | None = None
    majority_headline: float | None  # the headline of majority-of-N verdicts (ties: panel_rules majority)
    majority_coverage: float | None
    agreement_mean: float | None  # mean over examples of the per-example exact agreement
    agreement_per_example: dict[str, float] = Field(default_factory=dict)  # example id -> share of its judgments identical in every repeat
    judgments_agreeing: float | None = None  # share of judgments identical in every repeat
    flip_rate: float | None  # share of examples with a judgment whose answered verdicts differ between repeats
    n_judgments: int = 0
    # every repeat's judgments and calls (results.json `counts` and `usage` are repeat 0's)
    judgments_all: int = 0
    answered_all: int = 0
    invalid_all: int = 0
    failed_all: int = 0
    tokens_in_all: int = 0
    tokens_out_all: int = 0
    cost_usd_all: float | None = None  # None when any repeat has an unpriced call


class UnlabelledJudgments(Strict):
    """results.json `unlabelled` (run --judge-unlabelled): the judgments of examples without a human label, kept
    in unlabelled.jsonl for arena's judge-assisted ratings and never scored; counted and costed here."""

    examples: int = Field(ge=0)
    counts: Counts  # repeat 0's judgments
    usage: Usage  # every repeat's calls (--repeats)


class RunResult(Strict):
    """results.json, modelled on lm-eval's results file."""

    @model_validator(mode="before")
    @classmethod
    def _headline_into_config(cls, data: Any) -> Any:
        """Files written before config.headline existed kept it in diagnostics.headline."""
        if isinstance(data, dict) and isinstance(data.get("config"), dict) and "headline" not in data["config"]:
            legacy = (data.get("diagnostics") or {}).get("headline")
            if legacy:
                data = {**data, "config": {**data["config"], "headline": legacy}}
        return data

    schema_version: SchemaVersion = RESULTS_SCHEMA
    config: RunConfig
    metrics: dict[str, dict[str, MetricValue]]  # dimension -> metric name -> value
    slices: dict[str, dict[str, dict[str, dict[str, MetricValue]]]] = Field(
        default_factory=dict
    )  # dimension -> slice column -> slice value -> metric -> value
    counts: Counts
    usage: Usage
    diagnostics: dict[str, Any] = Field(default_factory=dict)
    panel: PanelSummary | None = None  # panels only
    stability: RepeatStability | None = None  # runs with --repeats N > 1 only
    human: dict[str, dict[str, MetricValue]] | None = None  # data with votes: dimension -> ceiling.py figures
    annotators: dict[str, list[AnnotatorAgreement]] | None = None  # data with votes: dimension -> per annotator
    # run --judge-unlabelled only; written only when set: every other run's results.json stays as it was
    unlabelled: UnlabelledJudgments | None = Field(None, exclude_if=lambda value: value is None)
