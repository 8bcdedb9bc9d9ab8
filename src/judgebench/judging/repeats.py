"""--repeats N: every judgment sampled N times. Planning the repeated requests and splitting their records
(repeat 0 feeds the main metrics; scoring/repeats.py turns the others into stability figures)."""

from __future__ import annotations

from collections.abc import Sequence

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
