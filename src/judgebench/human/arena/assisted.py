"""Judge-assisted model ratings: human votes on some pairs, a judge's verdicts on those and many more,
Bradley–Terry ratings with prediction-powered (PPI++) intervals (stats/ppi.py), side by side with the
human-only and the judge-only ratings, optionally stratified by a slice; and the votes needed
(stats/power.py).

Units are pairs: a voted pair's outcome is the mean of its votes (ties half, Both Bad per the rule), a
judge's outcome on a pair is its verdict averaged over the answered orders; a pair the judge did not
answer gets 0.5 on both sides of the rectifier (any fixed rule keeps PPI valid). Labelled units are the
voted pairs, unlabelled ones the pairs of the judge run without votes. Unlabelled pairs with a model that
no vote involves are left out (nothing rectifies them) and counted. The three methods use the same pairs
and the same sandwich (Wald) intervals, so their widths compare like with like; they differ from the
arena's main ratings (one unit per vote, bootstrap intervals).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from judgebench.core.errors import JudgebenchError
from judgebench.core.records import VERDICT_SCORE
from judgebench.core.rundir import read_verdicts
from judgebench.human.arena.battles import SLICE
from judgebench.stats.ppi import (
    PPIEstimate,
    bt_design,
    classical_logistic,
    effective_labels,
    elo_contrasts,
    fitted_exactly,
    ppi_logistic,
    ppi_logistic_stratified,
    rank_sets,
    separates,
    stratum,
)
from judgebench.stats.ratings import elo_scale
from judgebench.tasks.votes import pair_text_hash

JUDGE_ONLY_NOTE = "the judge's own ranking: not a valid interval for the human ranking"
MIN_STRATUM_LABELLED = 2


@dataclass
class JudgePairs:
    judge: str
    outcome: dict[str, float]  # pair -> judge outcome (NaN: not answered), in the run's model order
    models: dict[str, tuple[str | None, str | None]]
    slices: dict[str, dict[str, str]]
    texts: dict[str, str] = field(default_factory=dict)  # pair -> votes.pair_text_hash of the texts judged


@dataclass
class Units:
    """Labelled (voted) and unlabelled (judge-only) pairs as model indices and outcomes."""

    models: list[str]
    a: np.ndarray
    b: np.ndarray
    y: np.ndarray
    f: np.ndarray
    au: np.ndarray
    bu: np.ndarray
    fu: np.ndarray
    strata: np.ndarray  # labelled stratum labels ('' when not stratified)
    strata_u: np.ndarray
    counts: dict[str, int]
    answered: np.ndarray  # per labelled unit: the judge answered the pair (else its outcome is the 0.5 it is given)


def agreement(y: np.ndarray, f: np.ndarray, answered: np.ndarray) -> tuple[float | None, int]:
    """The judge's agreement with the votes and over how many pairs: the voted pairs it answered whose mean vote is
    not an even split, agreeing when its outcome falls on the votes' side of 0.5 (its orders split, 0.5: not).
    A pair it never judged is no disagreement (it had been counted as one: 0.167 for a judge that agreed on 2 of 3)."""
    decisive = answered & (np.abs(y - 0.5) > 1e-9)
    if not decisive.any():
        return None, 0
    return float((np.sign(f[decisive] - 0.5) == np.sign(y[decisive] - 0.5)).mean()), int(decisive.sum())


def read_judge_pairs(run_dir: Path, dimension: str) -> JudgePairs:
    """The run's verdicts per pair on one dimension, labelled pairs (samples.jsonl) and unlabelled ones
    (unlabelled.jsonl, `run --judge-unlabelled`): the mean outcome over the answered orders, NaN when none was."""
    result, records = read_verdicts(run_dir)
    sums: dict[str, list[float]] = {}
    models: dict[str, tuple] = {}
    slices: dict[str, dict[str, str]] = {}
    texts: dict[str, str] = {}
    for r in records:
        if r.dimension != dimension:
            continue
        models.setdefault(r.example_id, (r.model_a, r.model_b))
        slices.setdefault(r.example_id, dict(r.slices or {}))
        if r.question is not None and r.response_a is not None and r.response_b is not None and r.example_id not in texts:
            texts[r.example_id] = pair_text_hash({"question": r.question, "response_a": r.response_a,
                                                  "response_b": r.response_b})
        if r.status == "ANSWERED" and r.verdict in VERDICT_SCORE:
            sums.setdefault(r.example_id, []).append(VERDICT_SCORE[r.verdict])
    if not models:
        raise JudgebenchError(f"{run_dir}: no judgments on dimension {dimension}")
    outcome = {k: (float(np.mean(sums[k])) if k in sums else math.nan) for k in models}
    return JudgePairs(result.config.judge, outcome, models, slices, texts)


def check_voted_texts(table: pd.DataFrame, jp: JudgePairs, run: Path | str) -> None:
    """Refuse a judge run that judged other texts than a vote was cast on (the vote's `pair_sha256`, written by the
    voting page's export, against the run's texts; either missing: not checked): `pairs` run again gives the same
    ids to its new answers, and the votes were joined to texts nobody had voted on."""
    if "pair_sha256" not in table.columns or not jp.texts:
        return
    voted = table.loc[table["pair_sha256"].notna(), ["pair_id", "pair_sha256"]].drop_duplicates()  # (per pair)
    for pair, digest in zip(voted["pair_id"], voted["pair_sha256"]):
        held = jp.texts.get(pair)
        if held is not None and held != digest:
            raise JudgebenchError(f"{run}: the votes on pair {pair!r} were cast on other texts than the run judged (its "
                                  "question or responses changed since: pair_sha256); judge the pairs the votes were "
                                  "cast on")


def mean_judge(judges: list[JudgePairs]) -> JudgePairs:
    """Several judges as one predictor: per pair, the mean outcome of the judges that answered it (each
    oriented to the first run's model order), NaN when none did."""
    models: dict[str, tuple] = {}
    slices: dict[str, dict[str, str]] = {}
    sums: dict[str, list[float]] = {}
    for jp in judges:
        for pair, names in jp.models.items():
            first = models.setdefault(pair, names)
            slices.setdefault(pair, jp.slices.get(pair, {}))
            value = jp.outcome.get(pair, math.nan)
            if not math.isfinite(value):
                continue
            flipped = names[0] is not None and names != first and names == (first[1], first[0])
            sums.setdefault(pair, []).append(1.0 - value if flipped else value)
    outcome = {p: (float(np.mean(sums[p])) if p in sums else math.nan) for p in models}
    texts = {pair: digest for jp in reversed(judges) for pair, digest in jp.texts.items()}  # (each run checked alone too)
    return JudgePairs("mean of " + ", ".join(j.judge for j in judges), outcome, models, slices, texts)


def _judge_value(jp: JudgePairs, pair: str, a: str, b: str, run: Path) -> float:
    """The judge's outcome on a pair in the (a, b) orientation; 0.5 when it did not answer."""
    if pair not in jp.outcome or not math.isfinite(jp.outcome[pair]):
        return 0.5
    ja, jb = jp.models[pair]
    if ja is not None and (ja, jb) == (b, a):
        return 1.0 - jp.outcome[pair]
    if ja is not None and (ja, jb) != (a, b):
        raise JudgebenchError(f"{run}: pair {pair} is {ja} vs {jb} in the run but {a} vs {b} in the votes")
    return jp.outcome[pair]


def more_votes(label_share: float | None) -> str:
    """The advice when the labelled pairs are too few: a --label-share below 1 held voted pairs back, so raising it
    helps; without one every voted pair is already labelled (it had said "raise --label-share" to a user who never
    passed it), so only more votes do."""
    if label_share is not None and label_share < 1:
        return f"more voted pairs are needed (raise --label-share from {label_share:g}, or vote on more pairs)"
    return "more voted pairs are needed (every voted pair is already used: vote on more pairs)"


def make_units(table: pd.DataFrame, jp: JudgePairs, run: Path, label_share: float | None, seed: int,
               strata_key: str | None) -> Units:
    """Voted pairs (mean outcome per pair) and the judge's unlabelled pairs; `label_share` keeps the votes
    of a seeded random share of the voted pairs only, the rest becoming unlabelled (judge verdicts)."""
    first = table.groupby("pair_id", sort=True).first()
    a_of, b_of = first["model_a"], first["model_b"]
    same = (table["model_a"].to_numpy() == a_of.loc[table["pair_id"]].to_numpy())
    y_row = np.where(same, table["outcome"].to_numpy(), 1.0 - table["outcome"].to_numpy())
    y_pair = pd.Series(y_row).groupby(table["pair_id"].to_numpy()).mean()
    votes_on = table.groupby("pair_id", sort=True).size()
    pairs = list(first.index)
    counts = {"voted_pairs": len(pairs)}
    keep = np.ones(len(pairs), dtype=bool)
    if label_share is not None:
        rng = np.random.default_rng([seed, 35])
        keep = rng.random(len(pairs)) < label_share
        counts["voted_pairs_kept_as_labelled"] = int(keep.sum())
    if strata_key is not None and SLICE + strata_key not in first.columns:
        raise JudgebenchError(f"--strata {strata_key}: the votes have no slice {strata_key!r}")
    sl = (lambda p: str(first.at[p, SLICE + strata_key])) if strata_key else (lambda p: "")
    lab = [(p, a_of[p], b_of[p], float(y_pair[p]), _judge_value(jp, p, a_of[p], b_of[p], run), sl(p))
           for p, k in zip(pairs, keep) if k]
    voted = set(pairs)
    unl = [(p, a_of[p], b_of[p], _judge_value(jp, p, a_of[p], b_of[p], run), sl(p))
           for p, k in zip(pairs, keep) if not k and p in jp.models]
    missing_slice = 0
    for p, (ma, mb) in jp.models.items():
        if p in voted:
            continue
        if ma is None or mb is None or ma == mb:
            continue
        s = ""
        if strata_key:
            s = jp.slices.get(p, {}).get(strata_key)
            if s is None:
                missing_slice += 1
                continue
        unl.append((p, ma, mb, _judge_value(jp, p, ma, mb, run), str(s)))
    if not lab:
        raise JudgebenchError(f"judge-assisted ratings: no voted pairs left as labelled; {more_votes(label_share)}")
    models = sorted({m for u in lab for m in u[1:3]})
    index = {m: i for i, m in enumerate(models)}
    usable = [u for u in unl if u[1] in index and u[2] in index]
    counts.update({"labelled_pairs": len(lab), "labelled_votes": int(sum(votes_on[u[0]] for u in lab)),
                   "unlabelled_pairs": len(usable),
                   "unlabelled_left_out_unvoted_model": len(unl) - len(usable),
                   "labelled_unanswered_by_judge": sum(1 for u in lab if u[0] not in jp.outcome
                                                      or not math.isfinite(jp.outcome[u[0]])),
                   "unlabelled_unanswered_by_judge": sum(1 for u in usable if not math.isfinite(
                       jp.outcome.get(u[0], math.nan)))})
    if strata_key:
        counts["unlabelled_left_out_no_slice"] = missing_slice
    arr = lambda rows, k, dtype=float: np.array([r[k] for r in rows], dtype=dtype)  # noqa: E731
    return Units(models, np.array([index[u[1]] for u in lab], dtype=int), np.array([index[u[2]] for u in lab], dtype=int),
                 arr(lab, 3), arr(lab, 4),
                 np.array([index[u[1]] for u in usable], dtype=int), np.array([index[u[2]] for u in usable], dtype=int),
                 arr(usable, 3), arr(lab, 5, object), arr(usable, 4, object), counts,
                 np.array([u[0] in jp.outcome and math.isfinite(jp.outcome[u[0]]) for u in lab], dtype=bool))


def _rows(est: PPIEstimate, c: np.ndarray, models: list[str], elo: dict[str, Any]) -> list[dict[str, Any]]:
    s = elo_scale(elo["scale"], elo["base"])
    centre = elo["anchor_rating"] + s * (c @ est.params)
    low, high = est.interval(c)
    low, high = elo["anchor_rating"] + s * low, elo["anchor_rating"] + s * high
    best, worst = rank_sets(low, high)
    order = np.argsort(-centre, kind="stable")
    return [{"model": models[i], "rating": float(centre[i]), "ci_low": float(low[i]), "ci_high": float(high[i]),
             "rank_best": int(best[i]), "rank_worst": int(worst[i])} for i in order]


def _strata(u: Units) -> tuple[list, list[str], dict[str, str]]:
    """Strata (labelled and unlabelled units per value); values with fewer than MIN_STRATUM_LABELLED
    labelled units are merged into one 'other' stratum."""
    values = sorted(set(u.strata) | set(u.strata_u))
    small = {v for v in values if int((u.strata == v).sum()) < MIN_STRATUM_LABELLED}
    merge = {v: ("(other)" if v in small else v) for v in values}
    lab, unl = np.array([merge[v] for v in u.strata]), np.array([merge[v] for v in u.strata_u], dtype=object)
    names = sorted(set(lab) | set(unl))  # (a stratum of judge-only pairs is one: its pairs had been left out silently)
    if "(other)" in names and int((lab == "(other)").sum()) < MIN_STRATUM_LABELLED:
        listed = ", ".join(sorted(small)[:5]) + (", ..." if len(small) > 5 else "")
        raise JudgebenchError(f"--strata: the slice values with fewer than {MIN_STRATUM_LABELLED} voted pairs ({listed}; "
                              f"{int((unl == '(other)').sum())} judge-only pairs) hold {int((lab == '(other)').sum())} "
                              f"voted pairs together, fewer than {MIN_STRATUM_LABELLED}: too few to stratify (vote on "
                              "some of their pairs, or stratify by another slice)")
    m = len(u.models)
    out = []
    for v in names:
        li, ui = lab == v, unl == v
        out.append(stratum(bt_design(u.a[li], u.b[li], m), u.y[li], u.f[li],
                           bt_design(u.au[ui], u.bu[ui], m), u.fu[ui]))
    dropped = {v: merge[v] for v in values if merge[v] != v}
    return out, names, dropped


def assisted_section(table: pd.DataFrame, run: Path, dimension: str, elo: dict[str, Any], *,
                     label_share: float | None = None, seed: int = 0, strata_key: str | None = None,
                     jp: JudgePairs | None = None) -> tuple[dict[str, Any], Units]:
    """Human-only, judge-only and judge-assisted (PPI++, and stratified when strata_key) ratings."""
    jp = jp or read_judge_pairs(run, dimension)
    check_voted_texts(table, jp, run)
    u = make_units(table, jp, run, label_share, seed, strata_key)
    m = len(u.models)
    if m < 2:
        raise JudgebenchError("judge-assisted ratings: the labelled pairs involve fewer than 2 models")
    anchor = elo["anchor_model"]
    c = elo_contrasts(m, u.models.index(anchor) if anchor in u.models else None)
    x, xu = bt_design(u.a, u.b, m), bt_design(u.au, u.bu, m)
    if separates(u.a, u.b, u.y, m):
        raise JudgebenchError(f"judge-assisted ratings: the {len(u.y)} labelled pairs separate the models (every vote "
                              "between some of them goes one way), so the votes alone give no finite rating and "
                              f"no interval to rectify; {more_votes(label_share)}")
    human = classical_logistic(x, u.y)
    exact = fitted_exactly(u.a, u.b, u.y, human.params)
    if exact:
        named = ", ".join(str(u.models[k]) for k in exact[:5]) + (f" and {len(exact) - 5} more" if len(exact) > 5 else "")
        raise JudgebenchError(f"judge-assisted ratings: the ratings predict every voted pair of {named} exactly (all "
                              "ties, every pair split evenly, or a model in one voted pair only), so the votes leave "
                              f"no spread to estimate an interval from; {more_votes(label_share)}")
    judge = classical_logistic(np.vstack([x, xu]), np.concatenate([u.f, u.fu]))
    out: dict[str, Any] = {"judge": jp.judge, "run": str(run), "counts": u.counts,
                           "anchor_model": anchor if anchor in u.models else None,
                           "method": "Bradley-Terry logistic M-estimation on pairs (mean vote per pair); "
                                     "sandwich (Wald) 95% intervals, Hessian over the voted pairs; PPI++ with "
                                     "lambda tuned to minimise the summed variance of the ratings (Angelopoulos, "
                                     "Duchi & Zrnic 2023), 0 when the tuned one would not narrow it",
                           "human_only": _rows(human, c, u.models, elo),
                           "judge_only": _rows(judge, c, u.models, elo), "judge_only_note": JUDGE_ONLY_NOTE}
    trace = lambda e: float(np.trace(c @ e.cov @ c.T))  # noqa: E731
    if len(u.fu) == 0:
        out["assisted"] = None
        out["skipped"] = "no unlabelled pairs: the judge run covers only voted pairs (try --label-share)"
        return out, u
    ppi = ppi_logistic(x, u.y, u.f, xu, u.fu, contrasts=c)
    out["assisted"] = _rows(ppi, c, u.models, elo)
    out["lambda"] = float(ppi.lam[0])
    out["effective_human_pairs"] = effective_labels(len(u.y), trace(human), trace(ppi))
    # in votes, at the voted pairs' mean number of votes per pair
    effective = out["effective_human_pairs"]
    out["effective_human_votes"] = None if effective is None else effective * u.counts["labelled_votes"] / len(u.y)
    out["width_ratio"] = math.sqrt(trace(ppi) / trace(human)) if trace(human) > 0 else None
    out["judge_agreement"], out["judge_agreement_pairs"] = agreement(u.y, u.f, u.answered)
    if strata_key:
        parts, names, merged = _strata(u)
        strat = ppi_logistic_stratified(parts, contrasts=c)
        per = []
        labels = np.array([merged.get(v, v) for v in u.strata], dtype=object)
        for name, part, lam in zip(names, parts, strat.lam):
            inside = labels == name
            acc, _ = agreement(u.y[inside], u.f[inside], u.answered[inside])
            per.append({"stratum": name, "labelled": part.n, "unlabelled": part.N, "lambda": float(lam),
                        "judge_agreement": acc})
        out["stratified"] = {"slice": strata_key, "strata": per, "merged_into_other": merged,
                             "ratings": _rows(strat, c, u.models, elo),
                             "effective_human_pairs": effective_labels(len(u.y), trace(human), trace(strat))}
    return out, u
