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


JUDGE_ID = "synthetic/length-biased"


def demo_judge_run(run_dir, votes: list[Vote], extra_pairs: int = 4000, seed: int = 0,
                   judge_id: str = JUDGE_ID) -> int:
    """Write a run directory of a synthetic, biased judge (written by us) over the voted pairs of `votes` and
    `extra_pairs` more pairs nobody voted on (same models, lengths and subjects as demo_votes draws), for the
    judge-assisted ratings (`arena --judge-run`). The judge sees one order (random) and prefers the response
    shown first (+0.5 log-odds), the longer one (+3 per unit of normalised length difference) and, on
    Healthcare, is half as sensitive to the models' strengths. A voted pair's `label` is its majority vote; the
    others are unlabelled judgments (unlabelled.jsonl, as `run --judge-unlabelled` writes them). Returns the number
    of pairs judged."""
    from pathlib import Path

    from judgebench.core.records import (
        Counts,
        DatasetInfo,
        JudgmentRecord,
        RunConfig,
        RunResult,
        UnlabelledJudgments,
        Usage,
    )
    from judgebench.core.rundir import write_run
    from judgebench.core.version import __version__

    rng = np.random.default_rng([seed, 36])
    extra_rng = np.random.default_rng([0, 37])  # the unvoted pairs are the same whatever the judge's seed
    pairs: dict[str, dict] = {}
    tally: dict[str, dict[str, int]] = {}
    for v in votes:
        pairs.setdefault(v.pair_id, {"a": v.model_a, "b": v.model_b, "la": v.length_a, "lb": v.length_b,
                                     "subject": v.slices.get("subject", SUBJECTS[0])})
        if v.annotator.startswith("ann-"):
            counts = tally.setdefault(v.pair_id, {})
            counts[v.choice] = counts.get(v.choice, 0) + 1
    for p in range(extra_pairs):
        i, j = extra_rng.choice(len(MODELS), 2, replace=False)
        la, lb = (int(x) for x in extra_rng.lognormal(7.3, 0.35, 2))
        pairs[f"unvoted-{p:05d}"] = {"a": MODELS[i], "b": MODELS[j], "la": la, "lb": lb,
                                     "subject": SUBJECTS[p % len(SUBJECTS)]}
    strength = dict(zip(MODELS, STRENGTHS))
    records = []
    for pair_id, q in pairs.items():
        skill = 0.5 if q["subject"] == "Healthcare" else 1.0
        shown = "AB" if rng.random() < 0.5 else "BA"
        x = (skill * (strength[q["a"]] - strength[q["b"]]) + 3.0 * (q["la"] - q["lb"]) / (q["la"] + q["lb"])
             + (0.5 if shown == "AB" else -0.5))
        verdict = "A" if rng.random() < 1 / (1 + np.exp(-x)) else "B"
        shown_verdict = verdict if shown == "AB" else {"A": "B", "B": "A"}[verdict]
        votes_here = tally.get(pair_id)
        label = max(sorted(votes_here), key=votes_here.get) if votes_here else None
        records.append(JudgmentRecord(
            task="arena_demo", example_id=pair_id, dimension="overall", order=shown, judge=judge_id,
            prompt_hash="synthetic", status="ANSWERED", raw=shown_verdict, verdict_shown=shown_verdict,
            verdict=verdict, label=label, model_a=q["a"], model_b=q["b"], slices={"subject": q["subject"]},
            length_a=int(q["la"] or 0), length_b=int(q["lb"] or 0)))
    config = RunConfig(task="arena_demo", task_version="1",
                       dataset=DatasetInfo(source="synthetic", split="demo", fingerprint="synthetic"),
                       judge=judge_id, prompt_template="none", prompt_template_hash="synthetic", swap=False,
                       seed=seed, judgebench_version=__version__, started_at="2026-12-01T00:00:00Z",
                       ended_at="2026-12-01T00:00:00Z", n_resamples=0)
    labelled = [r for r in records if r.label is not None]
    unlabelled = [r for r in records if r.label is None]

    def counts(n: int) -> Counts:  # one judgment per pair, every one answered
        return Counts(examples=n, calls=n, answered=n, invalid=0, failed=0, coverage=1.0)

    result = RunResult(config=config, metrics={}, counts=counts(len(labelled)), usage=Usage(),
                       unlabelled=UnlabelledJudgments(examples=len(unlabelled), counts=counts(len(unlabelled)),
                                                      usage=Usage()) if unlabelled else None)
    write_run(Path(run_dir), result, labelled, unlabelled=unlabelled)
    return len(pairs)
