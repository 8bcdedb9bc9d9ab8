"""Validate the judge-assisted (PPI++) Bradley–Terry intervals by simulation (issue 33, item 4).

Synthetic truth: M models with known strengths; each pair of responses has a pair-level quality shock shared
by the human and the judge. Humans vote A with probability sigmoid(d + e) (d the strength difference, e the
shock). The estimand ("truth") is the Bradley–Terry projection of the human win probabilities: the
logistic fit to the exact expected outcomes over the pair distribution (computed once, by quadrature).

The judge sees one order (shown order random) and is biased: a position bias (log-odds +0.6 towards the
response shown first), a length bias (+1.2 log-odds per unit of normalised length difference; the models'
mean lengths differ and are unrelated to their strengths) and slice-dependent skill (it tracks d + e at
full strength on slice "easy", at 0.3 on slice "hard", where the length bias doubles). Three more judges
bracket it: "useless" (a coin flip), "good" (sigmoid(3 (d + e)), unbiased) and "perfect" (the human vote
itself, on unlabelled pairs the vote a human would have given). Labelled pairs
(n) and unlabelled pairs (N) are i.i.d. from the same pair distribution.

Per replication: human-only (labelled votes, sandwich), judge-only (the judge's verdicts on all n + N pairs,
sandwich), judge-assisted (PPI++, tuned lambda), stratified judge-assisted (one lambda per slice). Reported:
coverage of the 95% intervals of the mean-centred ratings (each model's true rating inside its interval,
over models and replications), the smallest per-model coverage, the share of replications in which every
model's true rank lies in its rank set, mean widths in Elo, the effective number of labelled pairs
(n x (human-only width / width)^2) and mean lambda.

Usage: PYTHONPATH=src python scripts/validate_ppi.py [--reps 300] [--seed 0]
       PYTHONPATH=src python scripts/validate_ppi.py --power-model [--reps 200]   (checks --votes-needed's judge model)
       PYTHONPATH=src python scripts/validate_ppi.py --arena-path [--reps 200]    (through human/arena/assisted.py)
       PYTHONPATH=src python scripts/validate_ppi.py --small-n [--reps 2000]     (40-100 voted pairs: the Hessian
           over the voted pairs (ours) or pooled with the unvoted ones (ppi_py's), the tuned lambda kept or not)
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.special import expit

from judgebench.stats.ppi import (
    bt_design,
    classical_logistic,
    elo_contrasts,
    fitted_exactly,
    ppi_logistic,
    ppi_logistic_stratified,
    rank_sets,
    separates,
    stratum,
)
from judgebench.stats.ratings import elo_scale

STRENGTH = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 2.5])  # log-odds before the pair-level shock
VERBOSITY = np.array([0.25, -0.2, 0.15, -0.25, 0.2, -0.15])  # mean normalised length advantage per model
SHOCK_SD = 2.5  # pairs differ a lot: annotators mostly agree on a given pair
SLICES = ("easy", "hard")


def draw(rng: np.random.Generator, k: int, judge: str):
    m = len(STRENGTH)
    a = rng.integers(0, m, k)
    b = (a + rng.integers(1, m, k)) % m
    d = STRENGTH[a] - STRENGTH[b]
    e = rng.normal(0, SHOCK_SD, k)
    y = (rng.random(k) < expit(d + e)).astype(float)
    hard = rng.random(k) < 0.5
    length = VERBOSITY[a] - VERBOSITY[b] + rng.normal(0, 0.15, k)
    first = np.where(rng.random(k) < 0.5, 1.0, -1.0)  # +1: A shown first
    if judge == "biased":
        skill = np.where(hard, 0.3, 1.0)
        logit = skill * (d + e) + np.where(hard, 2.4, 1.2) * length + 0.6 * first
        f = (rng.random(k) < expit(logit)).astype(float)
    elif judge == "useless":
        f = (rng.random(k) < 0.5).astype(float)
    elif judge == "perfect":  # the vote the human gave (or would have given): the best case
        f = y.copy()
    else:  # "good": tracks the pair's quality sharply, no bias
        f = (rng.random(k) < expit(3 * (d + e))).astype(float)
    return bt_design(a, b, m), y, f, np.where(hard, "hard", "easy")


def truth(c: np.ndarray, scale: float) -> np.ndarray:
    """The BT projection of the exact human win probabilities (Gauss-Hermite over the shock)."""
    m = len(STRENGTH)
    nodes, weights = np.polynomial.hermite_e.hermegauss(60)
    a, b = np.meshgrid(np.arange(m), np.arange(m), indexing="ij")
    keep = a != b
    a, b = a[keep], b[keep]
    d = STRENGTH[a] - STRENGTH[b]
    p = (expit(d[:, None] + SHOCK_SD * nodes[None, :]) * weights).sum(axis=1) / weights.sum()
    # the population M-estimate: a logistic fit to the expected outcomes, each ordered pair once
    est = classical_logistic(bt_design(a, b, m), p, l2=0.0)
    return 1000 + scale * (c @ est.params)


def replicate(rng, n: int, N: int, judge: str, c: np.ndarray, scale: float) -> dict[str, tuple]:
    x, y, f, s = draw(rng, n, judge)
    xu, _, fu, su = draw(rng, N, judge)
    out = {}
    fits = {"human-only": classical_logistic(x, y),
            "judge-only": classical_logistic(np.vstack([x, xu]), np.concatenate([f, fu])),
            "judge-assisted": ppi_logistic(x, y, f, xu, fu, contrasts=c)}
    parts = [stratum(x[s == v], y[s == v], f[s == v], xu[su == v], fu[su == v]) for v in SLICES]
    fits["stratified"] = ppi_logistic_stratified(parts, contrasts=c)
    for name, est in fits.items():
        lo, hi = est.interval(c)
        out[name] = (1000 + scale * lo, 1000 + scale * hi, est.lam)
    return out


def run(n: int, N: int, judge: str, reps: int, seed: int) -> list[str]:
    m = len(STRENGTH)
    c = elo_contrasts(m)
    scale = elo_scale()
    target = truth(c, scale)
    rng = np.random.default_rng([seed, n, N, len(judge)])
    cover = {k: np.zeros(m) for k in ("human-only", "judge-only", "judge-assisted", "stratified")}
    true_rank = np.argsort(np.argsort(-target)) + 1
    ranks = {k: 0 for k in cover}
    width = {k: 0.0 for k in cover}
    lam = {k: [] for k in cover}
    for _ in range(reps):
        res = replicate(rng, n, N, judge, c, scale)
        for k, (lo, hi, lm) in res.items():
            cover[k] += (lo <= target) & (target <= hi)
            best, worst = rank_sets(lo, hi)
            ranks[k] += bool(np.all((best <= true_rank) & (true_rank <= worst)))
            width[k] += float(np.mean(hi - lo))
            lam[k].append(np.atleast_1d(lm))
    rows = []
    human_width = width["human-only"] / reps
    for k in cover:
        cv = cover[k] / reps
        se = np.sqrt(cv.mean() * (1 - cv.mean()) / reps)  # conservative: the m models of a replication are dependent
        lam_text = ("/".join(f"{v:.2f}" for v in np.mean(lam[k], axis=0)) if k in ("judge-assisted", "stratified")
                    else "")
        eff = f"{n * (human_width / (width[k] / reps)) ** 2:.0f}" if k in ("judge-assisted", "stratified") else ""
        rows.append(f"| {judge} | {n} | {N} | {k} | {cv.mean():.3f} (±{1.96 * se:.3f}) | {cv.min():.3f} | "
                    f"{ranks[k] / reps:.3f} | {width[k] / reps:.1f} | {eff} | {lam_text} |")
    return rows


def power_model_check(reps: int, seed: int) -> list[str]:
    """Does `arena --votes-needed`'s judge model (verdicts drawn given the human outcome only, outcomes
    Bradley–Terry from the fitted ratings) reproduce the interval shrinkage PPI achieves under the true
    generative model? Width ratio (judge-assisted / human-only) both ways, n = 300, N = 5000."""
    from judgebench.stats.power import JudgeModel, _draw, _judge

    m = len(STRENGTH)
    c = elo_contrasts(m)
    a, b = np.meshgrid(np.arange(m), np.arange(m), indexing="ij")
    keep = a != b
    pa, pb = a[keep], b[keep]
    nodes, weights = np.polynomial.hermite_e.hermegauss(60)
    p_win = (expit((STRENGTH[pa] - STRENGTH[pb])[:, None] + SHOCK_SD * nodes[None, :]) * weights).sum(axis=1) / weights.sum()
    theta = np.concatenate([[0.0], classical_logistic(bt_design(pa, pb, m), p_win, l2=0.0).params])
    rows = []
    for judge in ("biased", "good", "perfect"):
        rng = np.random.default_rng([seed, 77, len(judge)])
        _, y, f, _ = draw(rng, 20000, judge)
        win = np.concatenate([f[y > 0.5], 1.0 - f[y < 0.5]])
        model = JudgeModel(win, 1.0 - win, 5000)
        true_ratio, model_ratio = [], []
        for _ in range(reps):
            x, y, f, _ = draw(rng, 300, judge)
            xu, _, fu, _ = draw(rng, 5000, judge)
            h, j = classical_logistic(x, y), ppi_logistic(x, y, f, xu, fu, contrasts=c)
            true_ratio.append(np.mean(j.se(c)) / np.mean(h.se(c)))
            x, y = _draw(rng, pa, pb, theta, 300, m)
            xu, yu = _draw(rng, pa, pb, theta, 5000, m)
            h = classical_logistic(x, y)
            j = ppi_logistic(x, y, _judge(rng, model, y), xu, _judge(rng, model, yu), contrasts=c)
            model_ratio.append(np.mean(j.se(c)) / np.mean(h.se(c)))
        agree = float(np.mean(win > 0.5))
        rows.append(f"| {judge} | {agree:.3f} | {np.mean(true_ratio):.3f} | {np.mean(model_ratio):.3f} |")
    return rows


def arena_path_check(reps: int, seed: int, votes_per_pair: int = 3, n: int = 200, N: int = 3000) -> list[str]:
    """The same coverage through the arena's code (human/arena/assisted.py): a battles table with several
    votes per voted pair (clustered: they share the pair's quality), judge verdicts as a run would give
    them, units built by make_units, the stratified section by slice."""
    from pathlib import Path

    import pandas as pd

    from judgebench.human.arena.assisted import JudgePairs, assisted_section

    m = len(STRENGTH)
    names = [f"model-{i}" for i in range(m)]
    target = dict(zip(names, truth(elo_contrasts(m), elo_scale())))
    elo = {"anchor_model": None, "anchor_rating": 1000.0, "scale": 400.0, "base": 10.0}
    rng = np.random.default_rng([seed, 88])
    hits = {k: 0.0 for k in ("human_only", "judge_only", "assisted", "stratified")}
    width = {k: 0.0 for k in hits}
    for _ in range(reps):
        k = n + N
        a = rng.integers(0, m, k)
        b = (a + rng.integers(1, m, k)) % m
        d = STRENGTH[a] - STRENGTH[b]
        e = rng.normal(0, SHOCK_SD, k)
        hard = rng.random(k) < 0.5
        length = VERBOSITY[a] - VERBOSITY[b] + rng.normal(0, 0.15, k)
        first = np.where(rng.random(k) < 0.5, 1.0, -1.0)
        logit = np.where(hard, 0.3, 1.0) * (d + e) + np.where(hard, 2.4, 1.2) * length + 0.6 * first
        f = (rng.random(k) < expit(logit)).astype(float)
        ids = [f"p{i}" for i in range(k)]
        rows = []
        for i in range(n):  # the voted pairs, votes_per_pair votes each
            for _ in range(votes_per_pair):
                rows.append({"pair_id": ids[i], "model_a": names[a[i]], "model_b": names[b[i]],
                             "outcome": float(rng.random() < expit(d[i] + e[i])),
                             "slice:subject": "hard" if hard[i] else "easy"})
        table = pd.DataFrame(rows)
        jp = JudgePairs("synthetic", {ids[i]: float(f[i]) for i in range(k)},
                        {ids[i]: (names[a[i]], names[b[i]]) for i in range(k)},
                        {ids[i]: {"subject": "hard" if hard[i] else "easy"} for i in range(k)})
        out, _ = assisted_section(table, Path("synthetic"), "overall", elo, strata_key="subject", jp=jp)
        sections = {"human_only": out["human_only"], "judge_only": out["judge_only"], "assisted": out["assisted"],
                    "stratified": out["stratified"]["ratings"]}
        for key, ratings in sections.items():
            hits[key] += np.mean([r["ci_low"] <= target[r["model"]] <= r["ci_high"] for r in ratings])
            width[key] += np.mean([r["ci_high"] - r["ci_low"] for r in ratings])
    return [f"| {key} | {hits[key] / reps:.3f} | {width[key] / reps:.1f} |" for key in hits]


def small_n_check(reps: int, seed: int) -> list[str]:
    """Few voted pairs: coverage and width against human-only of the judge-assisted intervals as `arena` computes
    them (Hessian over the voted pairs; the tuned lambda kept only when it narrows the summed variance), with
    ppi_py's pooled Hessian, and with the tuned lambda kept whatever it gives (stats/ppi.py's private steps)."""
    from judgebench.stats.ppi import _estimate, _tuned

    m = len(STRENGTH)
    c, scale = elo_contrasts(m), elo_scale()
    target = truth(c, scale)
    rows = []
    for judge, n, N in (("biased", 40, 2000), ("biased", 60, 2000), ("biased", 100, 2000), ("useless", 40, 2000),
                        ("good", 100, 2000)):
        rng = np.random.default_rng([seed, n, N, len(judge), 7])
        found: dict[str, list[tuple[float, float]]] = {}
        used = 0
        while used < reps:
            x, y, f, _ = draw(rng, n, judge)
            xu, _, fu, _ = draw(rng, N, judge)
            full = np.hstack([-x.sum(axis=1, keepdims=True), x])  # e_a - e_b over every model (0: the reference)
            a, b = full.argmax(axis=1), full.argmin(axis=1)
            if separates(a, b, y, m):  # no finite estimate from the votes: redrawn, as arena refuses them
                continue
            human = classical_logistic(x, y)
            if fitted_exactly(a, b, y, human.params):  # no interval from the votes: arena skips the section
                continue
            used += 1
            parts, w = [stratum(x, y, f, xu, fu)], np.ones(1)
            fits = {"human-only": human, "judge-assisted (ours)": ppi_logistic(x, y, f, xu, fu, contrasts=c),
                    "pooled Hessian (ppi_py's)": ppi_logistic(x, y, f, xu, fu, contrasts=c, hessian="pooled"),
                    "tuned lambda kept": _estimate(parts, w, *_tuned(parts, w, c, 1e-9, "labelled"), "labelled")}
            base = np.trace(c @ human.cov @ c.T)
            for name, est in fits.items():
                lo, hi = est.interval(c)
                covered = float(np.mean((1000 + scale * lo <= target) & (target <= 1000 + scale * hi)))
                found.setdefault(name, []).append((covered, float(np.sqrt(np.trace(c @ est.cov @ c.T) / base))))
        for name, values in found.items():
            cover, ratio = np.array(values).T
            rows.append(f"| {judge} | {n} | {N} | {name} | {cover.mean():.3f} | {ratio.mean():.3f} | "
                        f"{np.mean(ratio > 1 + 1e-9):.3f} | {ratio.max():.2f} |")
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--power-model", action="store_true",
                   help="instead: check the --votes-needed judge model against the true generative model")
    p.add_argument("--arena-path", action="store_true",
                   help="instead: coverage through human/arena/assisted.py with 3 votes per voted pair")
    p.add_argument("--small-n", action="store_true",
                   help="instead: 40-100 voted pairs, the Hessian and the tuned lambda's guard compared")
    args = p.parse_args()
    start = time.time()
    if args.small_n:
        print(f"{args.reps} replications per setting (votes that separate the models redrawn)\n")
        print("| judge | n labelled | N unlabelled | method | coverage (mean over models) | width / human-only "
              "(summed variance) | share wider than human-only | widest |")
        print("|---|---|---|---|---|---|---|---|")
        for row in small_n_check(args.reps, args.seed):
            print(row, flush=True)
        print(f"\n{time.time() - start:.0f} s")
        return
    if args.arena_path:
        print(f"{args.reps} replications, biased judge, 200 voted pairs x 3 votes, 3000 judge-only pairs\n")
        print("| method (arena code path) | coverage (mean over models) | mean width (Elo) |")
        print("|---|---|---|")
        for row in arena_path_check(args.reps, args.seed):
            print(row, flush=True)
        print(f"\n{time.time() - start:.0f} s")
        return
    if args.power_model:
        print(f"{args.reps} replications, n = 300, N = 5000\n")
        print("| judge | agreement with the vote | width ratio, true model | width ratio, votes-needed model |")
        print("|---|---|---|---|")
        for row in power_model_check(args.reps, args.seed):
            print(row, flush=True)
        print(f"\n{time.time() - start:.0f} s")
        return
    print(f"{args.reps} replications per setting, seed {args.seed}; truth (Elo, mean 1000): "
          + ", ".join(f"{v:.1f}" for v in truth(elo_contrasts(len(STRENGTH)), elo_scale())))
    print()
    print("| judge | n labelled | N unlabelled | method | coverage (mean over models, ±95% MC, conservative) | min over models "
          "| all true ranks in rank sets | mean width (Elo) | ~effective n | mean lambda (stratified: easy/hard) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for judge, n, N in (("biased", 100, 5000), ("biased", 300, 5000), ("biased", 1000, 10000), ("useless", 300, 5000), ("good", 300, 5000),
                          ("perfect", 300, 5000)):
        for row in run(n, N, judge, args.reps, args.seed):
            print(row, flush=True)
    print(f"\n{time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
