"""How sure a judge is of a verdict: P(A), P(B), P(TIE), from what the judge gives (issue 34).

Three sources, each a distribution over the verdicts the task allows, in the dataset's positions:

- `logprobs`: the token log-probabilities of the verdict, where the endpoint returns them (OpenAI-compatible
  `logprobs=true,top_logprobs=K`). The verdict token is the last answer token whose chosen text names the
  verdict the parser found; its top alternatives are mapped to verdicts ("A" -> A, "B" -> B, "C" / "TIE" /
  "Tie" -> TIE; brackets, spaces and asterisks stripped) and their probabilities summed per verdict, then
  normalised over the allowed verdicts (mass outside the top K, or on tokens naming no verdict, is dropped).
  The parser takes "C" as a tie only inside "[[C]]"; a token is read as "C" whatever surrounds it, because
  the brackets of "[[C]]" are tokens of their own.
- `repeats`: the share of the answered verdicts across `--repeats` samples of one judgment.
- `panel`: the share of the answered votes across a panel's members.
- `verbalised`: a confidence the judge states (parsed strictly: `verbalised_confidence`).

Shown-position distributions are mapped back to the dataset's positions (`to_dataset`); scoring averages
the two orders of an example (judgment_table.py). Pure functions: no judgebench import but records' names.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import Literal

ConfidenceSource = Literal["logprobs", "repeats", "panel", "verbalised"]
VERDICT_KEYS = ("A", "B", "TIE")
# A token's text once brackets, quotes, asterisks, spaces and punctuation are stripped -> the verdict it names
_TOKEN_VERDICT = {"A": "A", "B": "B", "C": "TIE", "TIE": "TIE"}
_STRIP = " \t\n[]()*\"'`.:,;{}<>_#"

# One token position of an answer: (chosen token, its log-probability, its top alternatives token -> logprob)
TokenLogprobs = tuple[str, float, dict[str, float]]


def token_verdict(token: str) -> str | None:
    """The verdict a single answer token names ("A", " B", "[[C" -> TIE, "Tie"), else None."""
    return _TOKEN_VERDICT.get(token.strip(_STRIP).upper())


def verdictish(token: str) -> bool:
    """Whether a token may name a verdict: the only positions a transport keeps (a reply stays small)."""
    return token_verdict(token) is not None


def from_logprobs(positions: Sequence[TokenLogprobs] | None, verdict_shown: str | None,
                  verdicts: Sequence[str]) -> dict[str, float] | None:
    """P(verdict) in the positions shown, from the verdict token's top alternatives; None when the answer
    has no verdict, no position names it, or no alternative names an allowed verdict."""
    if not positions or verdict_shown is None:
        return None
    allowed = [v for v in VERDICT_KEYS if v in verdicts]
    for chosen, chosen_lp, top in reversed(positions):
        if token_verdict(chosen) != verdict_shown:
            continue
        mass = dict.fromkeys(allowed, 0.0)
        alternatives = dict(top)
        alternatives.setdefault(chosen, chosen_lp)
        for token, lp in alternatives.items():
            v = token_verdict(token)
            if v in mass and isinstance(lp, (int, float)) and math.isfinite(lp):
                mass[v] += math.exp(min(float(lp), 0.0))
        total = sum(mass.values())
        if total <= 0:
            return None
        return {v: p / total for v, p in mass.items()}
    return None


def vote_shares(votes: Iterable[str | None], verdicts: Sequence[str]) -> dict[str, float] | None:
    """The share of each allowed verdict among the answered votes (None and other values abstain)."""
    allowed = [v for v in VERDICT_KEYS if v in verdicts]
    counted = [v for v in votes if v in allowed]
    if not counted:
        return None
    return {v: counted.count(v) / len(counted) for v in allowed}


def to_dataset(shown: dict[str, float] | None, order: str) -> dict[str, float] | None:
    """A distribution over shown positions in the dataset's positions (order BA swaps A and B)."""
    if shown is None or order == "AB":
        return shown
    swap = {"A": "B", "B": "A"}
    return {swap.get(v, v): p for v, p in shown.items()}


_VERBALISED = re.compile(r"^\s*\**\s*confidence\s*\**\s*[:=]\s*\**\s*(\d{1,3}(?:\.\d+)?)\s*(%?)\s*\**\s*$",
                         re.IGNORECASE | re.MULTILINE)


def verbalised_confidence(text: str | None, verdict_shown: str | None,
                          verdicts: Sequence[str]) -> dict[str, float] | None:
    """A stated confidence, strictly: exactly one line "Confidence: 80%" (or 0.8, or 80) in the answer; the
    rest of the mass shared equally by the other allowed verdicts. None when absent, repeated or out of range."""
    if not text or verdict_shown is None:
        return None
    found = _VERBALISED.findall(text)
    if len(found) != 1:
        return None
    number, percent = found[0]
    value = float(number)
    if percent or value > 1:
        value /= 100
    if not 0 <= value <= 1:
        return None
    allowed = [v for v in VERDICT_KEYS if v in verdicts]
    if verdict_shown not in allowed:
        return None
    rest = (1 - value) / (len(allowed) - 1) if len(allowed) > 1 else 0.0
    return {v: (value if v == verdict_shown else rest) for v in allowed}
