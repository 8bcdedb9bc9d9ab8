"""Rubric requests (one per graded response and repeat) and records (replies validated, ledger kept).

A response the task calls "no answer" (empty, or one of its sentinels) gets no request: its
record is NO_ANSWER with every item at zero. A request carries the rubric in its context, so
the runner's re-ask check (`reply_accepted`, picklable for the call worker) and the record
assembly validate a reply the same way.
"""

from __future__ import annotations

from judgebench.core.records import (
    JudgeReply,
    JudgeRequest,
    reported_amount,
    reported_count,
)
from judgebench.judging.prompts import PromptTemplate, hash_messages, render_example
from judgebench.kinds.rubric.records import GradedResponse, RubricRecord
from judgebench.kinds.rubric.spec import RubricTaskSpec
from judgebench.kinds.rubric.validate import Accepted, validate_reply

REASK_REMINDER = (
    "Your reply was rejected: it must be one JSON object listing every marking-scheme item once "
    "(by its id) with a numeric score from 0 to that item's maximum{evidence}, and a total_score "
    "equal to the sum of the item scores. Answer again in exactly that format."
)
NO_ANSWER_REASON = "no answer: scored zero without a call"


def plan_rubric_requests(
    spec: RubricTaskSpec, responses: list[GradedResponse], template: PromptTemplate, repeats: int = 1
) -> tuple[list[JudgeRequest], list[tuple[GradedResponse, int]]]:
    """The requests, and the (response, repeat) each one judges, in the same order."""
    requests, targets = [], []
    evidence = spec.validation.evidence_required
    reminder = REASK_REMINDER.format(evidence=" and an evidence quote for any score above zero" if evidence else "")
    longest: dict[str, int] = {}  # per problem: the longest response's characters (length-proportional baseline)
    for response in responses:
        key = response.group or response.question
        longest[key] = max(longest.get(key, 0), len(response.response.strip()))
    for response in responses:
        if spec.is_no_answer(response.response):
            continue
        texts = {"question": response.question, "response": response.response,
                 "reference_answer": response.reference_answer, "solution": response.solution}
        messages = render_example(template, _variables(response, evidence), response.id, texts)
        for repeat in range(repeats):
            # a repeat is another sample of the same prompt: its own hash, so its own call and cache entry
            digest = hash_messages(messages if repeat == 0 else [*messages, {"role": "repeat", "content": str(repeat)}])
            context = {
                "rubric": [c.model_dump() for c in response.rubric],
                "tolerance": spec.validation.total_tolerance,
                "evidence_required": evidence,
                "solution": response.solution,
                "reference_answer": response.reference_answer,
                "longest_chars": longest[response.group or response.question],
            }
            requests.append(
                JudgeRequest(
                    example_id=response.id, dimensions=["rubric"], order="AB", question=response.question,
                    first=response.response, second="", context=context, verdicts=["A", "B"],
                    messages=messages, prompt_hash=digest, reask_reminder=reminder,
                )
            )
            targets.append((response, repeat))
    return requests, targets


def _variables(response: GradedResponse, evidence_required: bool) -> dict[str, object]:
    return {
        "question": response.question,
        "response": response.response,
        "reference_answer": response.reference_answer,
        "solution": response.solution,
        "rubric": [c.model_dump() for c in response.rubric],
        "max_total": f"{response.max_total:g}",
        "evidence_required": evidence_required,
    }


def check_reply(request: JudgeRequest, text: str) -> Accepted | str:
    from judgebench.kinds.rubric.records import Criterion

    rubric = [Criterion.model_validate(c) for c in request.context["rubric"]]
    return validate_reply(
        text, rubric, tolerance=request.context["tolerance"], evidence_required=request.context["evidence_required"]
    )


def reply_accepted(request: JudgeRequest, text: str) -> bool:
    """The runner's re-ask test: False re-asks (up to --reask)."""
    return isinstance(check_reply(request, text), Accepted)


def judged_record(task: str, judge: str, request: JudgeRequest, response: GradedResponse, repeat: int,
                  reply: JudgeReply | None) -> RubricRecord:
    """A record from a reply; every attempt's text goes to the ledger with its rejection reason."""
    base = _base(task, judge, response, repeat) | {"prompt_hash": request.prompt_hash}
    if reply is None:
        return RubricRecord(**base, status="FAILED", error="not attempted: the run stopped before this call")
    texts = [*reply.earlier_texts, *([reply.text] if reply.text is not None else [])]
    verdicts = [check_reply(request, t) for t in texts]
    usage = {"tokens_in": reported_count(reply.tokens_in), "tokens_out": reported_count(reply.tokens_out),
             "cost_usd": reported_amount(reply.cost_usd), "latency_s": reported_amount(reply.latency_s) or 0.0,
             "attempts": reply.attempts, "cached": reply.cached}
    ledger = {"attempts_raw": texts, "rejections": [v for v in verdicts if isinstance(v, str)], "raw": reply.text}
    if reply.text is None:
        return RubricRecord(**base, **usage, **ledger, status="FAILED", error=reply.error or "no answer text")
    last = verdicts[-1]
    if isinstance(last, str):
        return RubricRecord(**base, **usage, **ledger, status="INVALID", reason=last)
    return RubricRecord(**base, **usage, **ledger, status="ANSWERED", scores=last.scores, total=last.total)


def no_answer_record(task: str, judge: str, response: GradedResponse, repeat: int) -> RubricRecord:
    zeros = {c.id: 0.0 for c in response.rubric}
    return RubricRecord(**_base(task, judge, response, repeat), status="NO_ANSWER", reason=NO_ANSWER_REASON,
                        scores=zeros, total=0.0)


def _base(task: str, judge: str, response: GradedResponse, repeat: int) -> dict[str, object]:
    return {
        "task": task, "item_id": response.id, "judge": judge, "repeat": repeat, "rubric": response.rubric,
        "expert_items": response.expert_items, "expert_total": response.expert_total, "model": response.model,
        "group": response.group, "exam": response.exam, "slices": response.slices,
        "response_chars": len(response.response),
    }


def assemble_rubric_records(task: str, judge: str, spec: RubricTaskSpec, responses: list[GradedResponse],
                            requests: list[JudgeRequest], targets: list[tuple[GradedResponse, int]],
                            replies: list[JudgeReply | None], repeats: int) -> list[RubricRecord]:
    """One record per response and repeat, in the data's order."""
    judged = {(r.id, k): judged_record(task, judge, q, r, k, reply)
              for q, (r, k), reply in zip(requests, targets, replies, strict=True)}
    records = []
    for response in responses:
        for repeat in range(repeats):
            if spec.is_no_answer(response.response):
                records.append(no_answer_record(task, judge, response, repeat))
            else:
                records.append(judged[(response.id, repeat)])
    return records
