"""Synthetic votes with known structure (written by us): the demo votes file and the tests' data.

Models have fixed strengths; honest annotators vote by Bradley–Terry with a small length effect
(P(A) = sigmoid(s_A - s_B + 0.3 * normalised length difference)), with some ties and Both Bad votes;
two planted voters: `planted-random` picks A or B at random and `planted-always-a` always picks the
response shown on the left. Every vote records a shown order, a timestamp, seconds on the page, a
discipline slice, lengths and citation counts, so every arena path runs offline.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np

from judgebench.tasks.votes import Vote

MODELS = ("atlas-7b", "borealis-70b", "cirrus-mini", "delta-pro", "ember-8b", "fjord-large")
STRENGTHS = (0.0, 8.0, -4.0, 4.0, -8.0, 12.0)  # consistent voters: neighbours 98 : 2
SUBJECTS = ("Natural Science", "Healthcare", "Humanities & Social Science", "Engineering")
RANDOM_VOTER, ALWAYS_A_VOTER = "planted-random", "planted-always-a"


def demo_votes(seed: int = 0, n_pairs: int = 1000, votes_per_pair: int = 3, honest: int = 10,
               planted_votes: int = 300) -> list[Vote]:
    """n_pairs pairs with votes_per_pair honest votes each, plus planted_votes from each planted voter."""
    rng = np.random.default_rng(seed)
    start = datetime(2026, 11, 1, tzinfo=timezone.utc)
    clock = {f"ann-{i:02d}": start for i in range(honest)}
    clock.update({RANDOM_VOTER: start, ALWAYS_A_VOTER: start})
    votes, pairs = [], []
    for p in range(n_pairs):
        i, j = rng.choice(len(MODELS), 2, replace=False)
        la, lb = (int(v) for v in rng.lognormal(7.3, 0.35, 2))
        pairs.append((f"pair-{p:04d}", i, j, la, lb, int(rng.poisson(4)), int(rng.poisson(4)),
                      SUBJECTS[p % len(SUBJECTS)]))
        for who in rng.choice(honest, votes_per_pair, replace=False):
            votes.append(_vote(rng, pairs[-1], f"ann-{who:02d}", clock, _honest_choice(rng, i, j, la, lb)))
    for voter in (RANDOM_VOTER, ALWAYS_A_VOTER):
        for k in rng.choice(n_pairs, planted_votes, replace=False):
            votes.append(_vote(rng, pairs[k], voter, clock, None))
    votes.sort(key=lambda v: v.timestamp or "")
    return votes


def _honest_choice(rng: np.random.Generator, i: int, j: int, la: int, lb: int) -> str:
    u = rng.random()
    if u < 0.002:
        return "BOTH_BAD"
    if u < 0.007:
        return "TIE"
    x = STRENGTHS[i] - STRENGTHS[j] + 0.3 * (la - lb) / (la + lb)
    return "A" if rng.random() < 1 / (1 + np.exp(-x)) else "B"


def _vote(rng: np.random.Generator, pair: tuple, who: str, clock: dict, choice: str | None) -> Vote:
    pair_id, i, j, la, lb, ca, cb, subject = pair
    shown = "AB" if rng.random() < 0.5 else "BA"
    if choice is None:  # planted voters
        left = "A" if shown == "AB" else "B"
        choice = left if who == ALWAYS_A_VOTER else ("A" if rng.random() < 0.5 else "B")
    seconds = float(np.round(rng.lognormal(3.6 if who.startswith("ann") else 1.5, 0.4), 1))
    clock[who] += timedelta(seconds=seconds + float(rng.integers(5, 600)))
    return Vote(pair_id=pair_id, annotator=who, choice=choice, model_a=MODELS[i], model_b=MODELS[j],
                shown_order=shown, timestamp=clock[who].strftime("%Y-%m-%dT%H:%M:%SZ"), seconds=seconds,
                slices={"subject": subject}, length_a=la, length_b=lb, citations_a=ca, citations_b=cb)


def bt_battles(n: int, models: int, seed: int = 0, tie_share: float = 0.1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """n battles between distinct random models of normal(0, 1) strengths, won by Bradley–Terry, a
    `tie_share` of them turned into ties: (index_a, index_b, outcome 1 A / 0 B / 0.5 tie), for benchmarks and tests."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0.0, 1.0, models)
    a = rng.integers(0, models, n)
    b = (a + rng.integers(1, models, n)) % models
    y = (rng.random(n) < 1 / (1 + np.exp(-(strength[a] - strength[b])))).astype(float)
    y[rng.random(n) < tie_share] = 0.5
    return a, b, y
