"""Judgments: the requests planned from a task's examples, and the records assembled from the replies.

task -> requests (plan_requests) -> calls (runner) -> records (assemble_records) -> scores (scoring.py)
"""

from __future__ import annotations

from judgebench.core.bulk import trusted, trusts
from judgebench.core.confidence import from_logprobs, to_dataset, verbalised_confidence
from judgebench.core.parsing import parse_reply
from judgebench.core.records import (
    NOT_ATTEMPTED,
    ORDERS,
    JudgeReply,
    JudgeRequest,
    JudgmentRecord,
    PairExample,
    failure_from_error,
    reported_amount,
    reported_count,
    swap_verdict,
)
from judgebench.judges.reasoning import is_truncated
from judgebench.judging.prompts import PromptTemplate, build_request
from judgebench.tasks.features import count_citations
from judgebench.tasks.registry import TaskSpec
from judgebench.tasks.votes import dimension_votes

# Records are built from validated parts (the example, the request, the reply, literals chosen here): without
# validating them again (bulk.trusted; equal to the validated record: tests/judging/test_run_path.py).
_TRUSTED = trusts(JudgmentRecord)
_RECORD_FIELDS = frozenset(JudgmentRecord.model_fields)


def plan_requests(
    spec: TaskSpec, examples: list[PairExample], template: PromptTemplate, *, mode: str, swap: bool
) -> list[JudgeRequest]:
    """One request per example x order x dimension (x order only, in joint mode).

    Order AB shows the dataset's response A first; BA swaps them. Which responses are shown
    first depends only on this rule, never on random state.
    """
    criteria = [(d.name, d.criterion) for d in spec.dimensions] or [(spec.dimension_names[0], "")]
    groups = [criteria] if mode == "joint" else [[c] for c in criteria]
    orders = ORDERS if swap else ORDERS[:1]
    return [
        build_request(template, example, order, group, list(spec.verdicts), checked=True)
        for example in examples
        for group in groups
        for order in orders
    ]


def parses_fully(request: JudgeRequest, text: str) -> bool:
    verdicts = parse_reply(text, request.dimensions, request.verdicts, joint=len(request.dimensions) > 1)
    return all(v is not None for v in verdicts.values())


def assemble_records(
    task: str,
    judge_id: str,
    requests: list[JudgeRequest],
    replies: list[JudgeReply | None],
    examples: list[PairExample],
    stopped: str | None = None,
    *,
    log_text: bool = True,
) -> list[JudgmentRecord]:
    """Turn each (request, reply) into one record per dimension: ANSWERED, INVALID or FAILED.

    In joint mode one call answers every dimension: its tokens and cost go on the first
    dimension's record only, so summing samples.jsonl gives the true usage.
    """
    by_id = {example.id: example for example in examples}
    facts: dict[str, tuple[int, int, int, int]] = {}  # example id -> lengths and citation counts, measured once
    records = []
    for request, reply in zip(requests, replies, strict=True):
        if reply is None:
            reply = JudgeReply(error=NOT_ATTEMPTED.format(reason=stopped or "interrupted"), attempts=0)
        example = by_id[request.example_id]
        parsed = (
            parse_reply(reply.text, request.dimensions, request.verdicts, joint=len(request.dimensions) > 1)
            if reply.error is None
            else {}
        )
        for index, dimension in enumerate(request.dimensions):
            if example.id not in facts:
                facts[example.id] = _measure(example)
            record = _record(
                task, judge_id, request, reply, example, dimension, parsed.get(dimension), log_text, facts[example.id]
            )
            if index > 0:
                record = record.model_copy(
                    update={"tokens_in": None, "tokens_out": None, "cost_usd": None, "cached_cost_usd": None,
                            "reasoning_tokens": None}
                )
            records.append(record)
    return records


def _record(
    task: str,
    judge_id: str,
    request: JudgeRequest,
    reply: JudgeReply,
    example: PairExample,
    dimension: str,
    verdict_shown: str | None,
    log_text: bool = True,
    measured: tuple[int, int, int, int] | None = None,
) -> JudgmentRecord:
    length_a, length_b, citations_a, citations_b = measured or _measure(example)
    truncated = reply.error is None and is_truncated(reply)
    if truncated:
        verdict_shown = None  # a cut-off answer is never scored, whatever it began with
    if reply.error is not None:
        status = "FAILED"
    else:
        status = "ANSWERED" if verdict_shown is not None else "INVALID"
    values = {  # in JudgmentRecord's field order
        "task": task,
        "example_id": example.id,
        "dimension": dimension,
        "order": request.order,
        "judge": judge_id,
        "prompt_hash": request.prompt_hash,
        "status": status,
        "raw": reply.text,
        "earlier_raw": list(reply.earlier_texts),
        "verdict_shown": verdict_shown,
        "verdict": verdict_shown if request.order == "AB" else swap_verdict(verdict_shown),
        "label": example.labels[dimension] if example.labels else None,  # None: an unlabelled example (run --judge-unlabelled)
        "tokens_in": reported_count(reply.tokens_in),  # the provider's figures, kept only when they make sense
        "tokens_out": reported_count(reply.tokens_out),
        "cost_usd": reported_amount(reply.cost_usd),
        "latency_s": reported_amount(reply.latency_s) or 0.0,
        "attempts": reply.attempts,
        "cached": reply.cached,
        "cached_cost_usd": reported_amount(reply.cached_cost_usd),
        "error": reply.error,
        "failure": failure_from_error(reply.error) if reply.error is not None else None,
        "repeat": request.repeat,
        "invalid_reason": "truncated" if truncated else None,
        "finish_reason": reply.finish_reason,
        "reasoning": reply.reasoning,
        "reasoning_tokens": reported_count(reply.reasoning_tokens),
        "served_model": reply.served_model,
        "model_a": example.model_a,
        "model_b": example.model_b,
        "slices": dict(example.slices),
        "length_a": length_a,
        "length_b": length_b,
        "citations_a": citations_a,
        "citations_b": citations_b,
        "question": example.question if log_text else None,
        "response_a": example.response_a if log_text else None,
        "response_b": example.response_b if log_text else None,
        "votes": dimension_votes(example, dimension),
        **_confidence(request, reply, verdict_shown),
    }
    if _TRUSTED and len(values) == len(_RECORD_FIELDS):  # every value comes from validated models
        return trusted(JudgmentRecord, values, set(_RECORD_FIELDS))
    return JudgmentRecord(**values)


def _confidence(request: JudgeRequest, reply: JudgeReply, verdict_shown: str | None) -> dict[str, object]:
    """`confidence` (dataset positions) and `confidence_source` of one judgment (core/confidence.py): the
    verdict token's log-probabilities when the reply has them, else a confidence the answer states; a joint
    answer (several dimensions in one call) has one verdict token per dimension, so only a single-dimension
    request reads log-probabilities."""
    shown = None
    source = None
    if verdict_shown is not None and len(request.dimensions) == 1:
        shown = from_logprobs(reply.top_logprobs, verdict_shown, request.verdicts)
        source = "logprobs" if shown is not None else None
    if shown is None and verdict_shown is not None:
        shown = verbalised_confidence(reply.text, verdict_shown, request.verdicts)
        source = "verbalised" if shown is not None else None
    return {"confidence": to_dataset(shown, request.order), "confidence_source": source}


def _measure(example: PairExample) -> tuple[int, int, int, int]:
    """The example's response lengths (characters) and citation counts, the same for every judgment of it."""
    a, b = example.response_a, example.response_b
    return len(a), len(b), count_citations(a), count_citations(b)
