"""The human-side validation (docs/lab/validation-human.md), reproducible: write an annotated set the tests never saw (90 pairs,
6 models, 8 annotators: six honest ones who follow a per-pair truth 88% of the time, a random voter and
an always-left voter, three votes per pair, timestamps, shown orders, two slices), run it through a
YAML-only task (`run` with a built-in judge, `arena --judge-run`), and print judgebench's figures beside
independent computations: leave-one-out and pairwise agreement by hand, Cohen's kappa / weighted kappa
from scikit-learn, Krippendorff's alpha from the krippendorff package, Bradley-Terry from scikit-learn's
LogisticRegression. Usage: python scripts/audit_human.py [WORK_DIR]  (needs scikit-learn, krippendorff)
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import itertools
import json
import math
import random
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

import krippendorff
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import cohen_kappa_score

MODELS = {"m-alpha": 1.2, "m-beta": 0.7, "m-gamma": 0.3, "m-delta": 0.0, "m-eps": -0.5, "m-zeta": -1.0}
TASK = """name: audit_votes
version: "1.0"
description: the human-side validation set (synthetic, never seen by the tests)
dataset: {path: VOTES, split: train}
layout: wide
columns: {id: pid, question: q, response_a: ra, response_b: rb, label: verdict, model_a: ma, model_b: mb, slices: [area]}
votes: {layout: long, annotator: who, timestamp: when, shown_order: order, rule: majority}
labels: {a: A, b: B, tie: TIE, both_bad: BOTH_BAD}
verdicts: [A, B, TIE]
prompt: pairwise_generic.yaml
headline: soft_accuracy
both_bad: tie
"""
CODE = {"a": 0, "tie": 1, "both_bad": 1, "b": 2}  # A < TIE < B; Both Bad as a tie (both_bad: tie)


def make_votes(seed: int = 20261201, n_pairs: int = 90) -> list[dict]:
    rng = random.Random(seed)
    honest = [f"h{i}" for i in range(1, 7)]
    clock = {a: dt.datetime(2026, 3, 1, 9) + dt.timedelta(hours=i) for i, a in enumerate(honest + ["rnd", "alwaysA"])}
    rows = []
    for k in range(n_pairs):
        a, b = rng.sample(list(MODELS), 2)
        truth = "a" if rng.random() < 1 / (1 + math.exp(-1.5 * (MODELS[a] - MODELS[b]))) else "b"
        voters = rng.sample(honest, 3)
        voters[2] = {0: "rnd", 1: "alwaysA"}.get(k % 3, voters[2])
        for who in voters:
            shown = rng.choice(["AB", "BA"])
            if who == "rnd":
                choice = rng.choice(["a", "b"])
            elif who == "alwaysA":
                choice = "a" if shown == "AB" else "b"  # always the left response
            else:
                u = rng.random()
                choice = "tie" if u < 0.07 else "both_bad" if u < 0.09 else (truth if rng.random() < 0.88 else "ab".replace(truth, ""))
            clock[who] += dt.timedelta(seconds=rng.randint(40, 200))
            rows.append({"pid": f"p{k:03d}", "q": f"Question {k}?", "ra": f"Answer by {a} to {k}", "rb": f"Answer by {b} to {k}",
                         "ma": a, "mb": b, "area": "physics" if k % 2 else "history", "who": who,
                         "when": clock[who].isoformat() + "Z", "order": shown, "verdict": choice})
    return rows


def ceiling_by_hand(rows: list[dict]) -> dict[str, float]:
    pairs: dict[str, dict[str, int]] = defaultdict(dict)
    for r in rows:
        pairs[r["pid"]].setdefault(r["who"], CODE[r["verdict"]])

    def majority(votes: list[int]) -> int:
        counts = Counter(votes)
        leaders = [v for v, n in counts.items() if n == max(counts.values())]
        return leaders[0] if len(leaders) == 1 else 1

    def soft(x: int, y: int) -> float:
        return 1.0 if x == y else 0.5 if 1 in (x, y) else 0.0

    loo, loo_soft, pw = [], [], []
    for votes in pairs.values():
        rest = {a: majority([w for b, w in votes.items() if b != a]) for a in votes}
        loo.append(np.mean([v == rest[a] for a, v in votes.items()]))
        loo_soft.append(np.mean([soft(v, rest[a]) for a, v in votes.items()]))
        pw.append(np.mean([x == y for x, y in itertools.combinations(votes.values(), 2)]))
    names = sorted({a for votes in pairs.values() for a in votes})
    kappas, weighted, weights = [], [], []
    for a, b in itertools.combinations(names, 2):
        shared = [v for v in pairs.values() if a in v and b in v]
        if len(shared) < 2:
            continue
        x, y = [v[a] for v in shared], [v[b] for v in shared]
        k, wk = cohen_kappa_score(x, y, labels=[0, 1, 2]), cohen_kappa_score(x, y, labels=[0, 1, 2], weights="linear")
        if not (np.isnan(k) or np.isnan(wk)):
            kappas.append(k), weighted.append(wk), weights.append(len(shared))
    matrix = np.array([[pairs[p].get(a, np.nan) for p in sorted(pairs)] for a in names], dtype=float)
    return {"loo_accuracy": float(np.mean(loo)), "loo_soft_accuracy": float(np.mean(loo_soft)),
            "accuracy_vs_annotators": float(np.mean(pw)), "annotator_kappa": float(np.average(kappas, weights=weights)),
            "annotator_weighted_kappa": float(np.average(weighted, weights=weights)),
            "annotator_alpha": float(krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal"))}


def bt_by_logistic_regression(rows: list[dict]) -> dict[str, float]:
    models = sorted(MODELS)
    X, y, w = [], [], []
    for r in rows:
        x = np.zeros(len(models))
        x[models.index(r["ma"])], x[models.index(r["mb"])] = 1, -1
        outcomes = {"a": [(1, 1.0)], "b": [(0, 1.0)]}.get(r["verdict"], [(1, 0.5), (0, 0.5)])  # a tie is half a win each
        for label, weight in outcomes:
            X.append(x), y.append(label), w.append(weight)
    fit = LogisticRegression(fit_intercept=False, C=1e9, tol=1e-12, max_iter=10000).fit(np.array(X), y, sample_weight=w)
    beta = fit.coef_[0] * 400 / math.log(10)
    return dict(zip(models, beta - beta.mean() + 1000))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("work_dir", nargs="?", help="folder for the set and the runs (default: a new temp folder)")
    work = Path(parser.parse_args().work_dir or tempfile.mkdtemp(prefix="audit_human_"))
    work.mkdir(parents=True, exist_ok=True)
    rows = make_votes()
    (work / "votes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (work / "audit_votes.yaml").write_text(TASK.replace("VOTES", str((work / "votes.jsonl").resolve())))
    jb = [sys.executable, "-m", "judgebench"]
    subprocess.run([*jb, "run", "--tasks", str(work / "audit_votes.yaml"), "--judge", "builtin/longer",
                    "--output-path", str(work / "run"), "--quiet"], check=True)
    subprocess.run([*jb, "arena", str(work / "audit_votes.yaml"), "--output-dir", str(work / "arena"),
                    "--judge-run", str(work / "run"), "--n-resamples", "200"], check=True, stdout=subprocess.DEVNULL)
    human = json.loads((work / "run" / "results.json").read_text())["human"]["overall"]
    print(f"{len(rows)} votes in {work}\nfigure                      judgebench    independent")
    for name, value in ceiling_by_hand(rows).items():
        print(f"{name:27s} {human[name]['value']:.6f}      {value:.6f}")
    ratings = {r["model"]: float(r["rating"]) for r in csv.DictReader((work / "arena" / "ratings.csv").open())}
    for model, value in bt_by_logistic_regression(rows).items():
        print(f"BT {model:24s} {ratings[model]:.2f}      {value:.2f}")
    for row in csv.DictReader((work / "arena" / "anomaly.csv").open()):
        print(f"anomaly {row['annotator']:8s} max M_j/bar {float(row['max_ratio']):.3f} flagged {row['flagged']}")


if __name__ == "__main__":
    main()
