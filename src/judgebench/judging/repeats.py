"""--repeats N: every judgment sampled N times. Planning the repeated requests and splitting their records
(repeat 0 feeds the main metrics; scoring/repeats.py turns the others into stability figures)."""

from __future__ import annotations

from collections.abc import Sequence

from judgebench.core.confidence import vote_shares
from judgebench.core.records import JudgeRequest, JudgmentRecord

MAX_REPEATS = 100  # --repeats above this is refused (exit 2): a typo, not a stability study


def expand_repeats(requests: Sequence[JudgeRequest], repeats: int) -> list[JudgeRequest]:
    """Every request `repeats` times, repeat-major (repeat 0's requests are the ones given)."""
    out = list(requests)
    for r in range(1, repeats):
        out += [request.model_copy(update={"repeat": r}) for request in requests]
    return out


def split_repeats(records: Sequence[JudgmentRecord]) -> tuple[list[JudgmentRecord], list[JudgmentRecord]]:
    """(repeat 0's records, the other repeats' records), each in the order given."""
    return [r for r in records if r.repeat == 0], [r for r in records if r.repeat != 0]


def with_repeat_confidence(records: Sequence[JudgmentRecord], others: Sequence[JudgmentRecord],
                           verdicts: Sequence[str]) -> list[JudgmentRecord]:
    """Repeat 0's records, each without a confidence of its own (log-probabilities, a stated one) given the
    share of every repeat's answered verdicts of its judgment as `confidence` (source "repeats"; issue 34), over
    the `verdicts` the task allows (an A/B task's has no TIE).
    A judgment no repeat answered keeps none. Without repeats the records are returned as they are."""
    if not others:
        return list(records)
    given: dict[tuple[str, str, str], list[str | None]] = {}
    for r in others:
        given.setdefault((r.example_id, r.dimension, r.order), []).append(
            r.verdict if r.status == "ANSWERED" else None)
    out = []
    for r in records:
        if r.confidence is None:
            votes = [r.verdict if r.status == "ANSWERED" else None,
                     *given.get((r.example_id, r.dimension, r.order), [])]
            shares = vote_shares(votes, verdicts)
            if shares is not None:
                r = r.model_copy(update={"confidence": shares, "confidence_source": "repeats"})
        out.append(r)
    return out
