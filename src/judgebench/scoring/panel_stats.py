"""A panel's own figures (results.json `panel`), recomputed from the panel's samples alone.

Every panel judgment records its members' votes (panel_rules), so each member's verdicts on the
panel's judgments are known without its run directory. Reported:
  cohen_kappa      pairwise Cohen's kappa (A / TIE / B), pooled over dimensions and orders, on the
                   judgments both members answered
  fleiss_kappa     Fleiss' kappa on the judgments every member answered (each judgment an item)
  versus_best      the panel against the member with the best headline (the first listed on a
                   draw): paired.py's test on per-example headline scores (unit = example: the
                   mean over orders and dimensions, as `compare`)
  figures          headline, coverage, position bias and longer-preferred rate of the panel and of
                   each member, pooled over dimensions and orders: position bias = share of decisive
                   verdicts picking the response shown first; longer-preferred = share of decisive
                   verdicts on pairs of unequal length picking the longer response
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

import numpy as np

from judgebench.core.catalogue import metric
from judgebench.core.errors import JudgebenchError
from judgebench.core.records import (
    VERDICT_SCORE,
    JudgmentRecord,
    MemberFigures,
    PanelSummary,
    PanelVersusBest,
    RunConfig,
    swap_verdict,
)
from judgebench.judges.config import member_labels
from judgebench.scoring.judgment_table import CODE, example_table
from judgebench.stats.agreement import cohen_kappa
from judgebench.stats.paired import paired_test


def fleiss_kappa(table: np.ndarray) -> float | None:
    """Fleiss' kappa of an items x categories count table (the same number of raters per item)."""
    counts = np.asarray(table, dtype=float)
    if counts.ndim != 2 or counts.shape[0] == 0:
        return None
    raters = counts.sum(axis=1)
    if raters.min() != raters.max() or raters[0] < 2:
        return None
    n, items = raters[0], counts.shape[0]
    agreement = ((counts**2).sum(axis=1) - n) / (n * (n - 1))
    shares = counts.sum(axis=0) / (items * n)
    expected = float((shares**2).sum())
    if expected >= 1.0:
        return None
    return float((agreement.mean() - expected) / (1.0 - expected))


def member_records(records: Sequence[JudgmentRecord], index: int, judges: Sequence[str]) -> list[JudgmentRecord]:
    """Member `index`'s judgments, rebuilt from the votes the panel records carry (no usage)."""
    out = []
    for record in records:
        votes = decode_raw(record.raw, len(judges))
        if votes is None:
            raise JudgebenchError(
                f"panel judgment {record.example_id}/{record.dimension}/{record.order}: raw is not the votes of {len(judges)} members"
            )
        vote = votes[index]
        answered = vote not in ABSTAIN
        out.append(
            record.model_copy(
                update={
                    "judge": judges[index],
                    "status": "ANSWERED" if answered else "FAILED" if vote == "FAILED" else "INVALID",
                    "verdict": vote if answered else None,
                    "verdict_shown": (vote if record.order == "AB" else swap_verdict(vote)) if answered else None,
                    "tokens_in": None,
                    "tokens_out": None,
                    "cost_usd": None,
                }
            )
        )
    return out


def example_scores(records: Sequence[JudgmentRecord], both_bad: str, column: str) -> dict[str, float]:
    """example id -> headline score (exact or soft), the mean over orders and then over dimensions."""
    per_example: dict[str, list[float]] = {}
    for dimension in dict.fromkeys(r.dimension for r in records):
        frame = example_table(records, dimension, both_bad)  # type: ignore[arg-type]
        for example_id, value in zip(frame["example_id"], frame[column]):
            per_example.setdefault(str(example_id), []).append(float(value))
    return {example_id: float(np.mean(values)) for example_id, values in per_example.items()}


def figures(records: Sequence[JudgmentRecord], judge: str, both_bad: str, column: str) -> MemberFigures:
    scores = example_scores(records, both_bad, column)
    answered = [r for r in records if r.status == "ANSWERED" and r.verdict is not None]
    decisive = [r for r in answered if r.verdict_shown in ("A", "B")]
    unequal = [r for r in decisive if r.length_a != r.length_b]
    longer = sum((r.verdict == "A") == (r.length_a > r.length_b) for r in unequal)
    return MemberFigures(
        judge=judge,
        headline=float(np.mean(list(scores.values()))) if scores else None,
        coverage=len(answered) / len(records) if records else None,
        position_bias=sum(r.verdict_shown == "A" for r in decisive) / len(decisive) if decisive else None,
        longer_preferred_rate=longer / len(unequal) if unequal else None,
    )


def _codes(records: Sequence[JudgmentRecord]) -> list[int]:
    return [CODE[r.verdict] if r.status == "ANSWERED" and r.verdict else -1 for r in records]


def _kappas(members: list[list[int]]) -> tuple[list[list[float | None]], list[list[int]]]:
    size = len(members)
    kappa: list[list[float | None]] = [[None] * size for _ in range(size)]
    counts = [[0] * size for _ in range(size)]
    for i in range(size):
        for j in range(size):
            a, b = np.array(members[i]), np.array(members[j])
            both = (a >= 0) & (b >= 0)
            counts[i][j] = int(both.sum())
            kappa[i][j] = cohen_kappa(a[both], b[both])
    return kappa, counts


def _fleiss(members: list[list[int]]) -> tuple[float | None, int]:
    codes = np.array(members).T  # judgments x members
    complete = codes[(codes >= 0).all(axis=1)] if codes.size else codes
    if len(complete) == 0:
        return None, 0
    table = np.stack([(complete == c).sum(axis=1) for c in range(3)], axis=1)
    return fleiss_kappa(table), len(complete)


def _versus_best(panel: dict[str, float], best: MemberFigures, best_scores: dict[str, float], seed: int) -> PanelVersusBest:
    ids = list(panel)
    base = np.array([best_scores[i] for i in ids])
    cand = np.array([panel[i] for i in ids])
    test = paired_test(base, cand, seed=seed)
    return PanelVersusBest(
        best_member=best.judge,
        best_value=float(base.mean()),
        panel_value=float(cand.mean()),
        difference=float(cand.mean() - base.mean()),
        test=test.name,
        n=test.n,
        rose=test.rose,
        fell=test.fell,
        p=test.p,
    )


def panel_summary(records: Sequence[JudgmentRecord], config: RunConfig) -> PanelSummary:
    """The `panel` section of a panel's results.json (see the module docstring)."""
    records = list(records)
    column = "soft" if metric(config.headline).credit == "soft" else "exact"
    judges = [m.judge for m in config.members]
    by_member = [member_records(records, i, judges) for i in range(len(judges))]
    labels = member_labels(list(config.members))  # names, and configurations of one model told apart
    member_figures = [figures(m, label, config.both_bad, column) for m, label in zip(by_member, labels)]
    kappa, kappa_n = _kappas([_codes(m) for m in by_member])
    fleiss, fleiss_n = _fleiss([_codes(m) for m in by_member])
    versus = None
    if records and member_figures:
        best_index = max(range(len(judges)), key=lambda i: (member_figures[i].headline or -1.0, -i))
        panel_scores = example_scores(records, config.both_bad, column)
        best_scores = example_scores(by_member[best_index], config.both_bad, column)
        versus = _versus_best(panel_scores, member_figures[best_index], best_scores, config.seed)
    return PanelSummary(
        aggregate=config.aggregate or "majority",
        judges=judges,
        cohen_kappa=kappa,
        cohen_kappa_n=kappa_n,
        fleiss_kappa=fleiss,
        fleiss_kappa_n=fleiss_n,
        versus_best=versus,
        figures=[figures(records, config.judge, config.both_bad, column), *member_figures],
    )


# How a panel turns its members' votes into one verdict, and the panel's raw-answer format.


AGGREGATES: tuple[str, ...] = ("majority", "mean", "unanimous-else-tie")
ABSTAIN: tuple[str, ...] = ("INVALID", "FAILED", "MISSING")
VOTES: tuple[str, ...] = ("A", "B", "TIE", *ABSTAIN)
_HALVES = {v: round(2 * s) for v, s in VERDICT_SCORE.items()}  # mean scores in halves: A=2, TIE=1, B=0


def vote_of(record: JudgmentRecord | None) -> str:
    """A member's vote on one judgment: its mapped verdict, or why it abstains."""
    if record is None:
        return "MISSING"
    if record.status == "ANSWERED" and record.verdict is not None:
        return record.verdict
    return "FAILED" if record.status == "FAILED" else "INVALID"


def aggregate_votes(votes: Sequence[str], aggregate: str, allow_tie: bool) -> str | None:
    """The panel verdict (dataset positions) from the members' votes; None: the panel is INVALID."""
    answered = [v for v in votes if v not in ABSTAIN]
    if not answered:
        return None
    if aggregate == "majority":
        return _majority(answered, allow_tie)
    if aggregate == "mean":
        return _mean(answered, allow_tie)
    if aggregate == "unanimous-else-tie":
        if len(set(answered)) == 1:
            return answered[0]
        return "TIE" if allow_tie else None
    raise ValueError(f"unknown aggregate {aggregate!r}; known: {', '.join(AGGREGATES)}")


def _majority(answered: list[str], allow_tie: bool) -> str:
    counts = Counter(answered)
    top = max(counts.values())
    leaders = {v for v, c in counts.items() if c == top}
    if len(leaders) == 1:
        return leaders.pop()
    return "TIE" if allow_tie else _chair(answered, leaders)


def _chair(answered: list[str], leaders: set[str]) -> str:
    """The split breaker of a binary task: the first member (in the order given) voting for a leader."""
    return next(v for v in answered if v in leaders)


def _mean(answered: list[str], allow_tie: bool) -> str:
    """Exact integer comparisons of m = s / (2n), s the sum of the votes in halves."""
    s, n = sum(_HALVES[v] for v in answered), len(answered)
    if allow_tie:
        return "A" if 3 * s > 4 * n else "B" if 3 * s < 2 * n else "TIE"
    return "A" if s > n else "B" if s < n else _chair(answered, {"A", "B"})


def encode_raw(aggregate: str, votes: Sequence[str]) -> str:
    """The panel judgment's raw answer: its aggregate and the member votes, in the members' order."""
    return json.dumps({"panel": aggregate, "votes": list(votes)}, separators=(", ", ": "))


def decode_raw(raw: str | None, n_members: int) -> list[str] | None:
    """The votes in a panel raw answer; None when it is not one (wrong shape, count or vote)."""
    try:
        data = json.loads(raw or "")
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or set(data) != {"panel", "votes"}:
        return None
    votes = data["votes"]
    if not isinstance(votes, list) or len(votes) != n_members or any(v not in VOTES for v in votes):
        return None
    return votes


def rederive(record: JudgmentRecord, aggregate: str, n_members: int, allow_tie: bool) -> JudgmentRecord:
    """The panel record as its votes decide it: status, verdict, and the verdict in shown positions."""
    votes = decode_raw(record.raw, n_members)
    verdict = None if votes is None else aggregate_votes(votes, aggregate, allow_tie)
    return record.model_copy(
        update={
            "status": "ANSWERED" if verdict is not None else "INVALID",
            "verdict": verdict,
            "verdict_shown": verdict if record.order == "AB" else swap_verdict(verdict),
        }
    )
