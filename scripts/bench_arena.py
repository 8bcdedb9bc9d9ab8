"""Benchmark `arena`'s rating fit at scale (issue 16): 2,000,000 votes over 100 models.

Prints, side by side in one run: the aggregated fit (battles -> (pair, outcome) counts, BT point
fit, 1,000 multinomial bootstrap rounds) with its time and peak traced memory, and a plain fit on
the raw vote rows (scikit-learn's unpenalised logistic regression on a sparse design, one row per
vote, a tie as two half-weight rows), with the largest rating difference between them.

Usage: python scripts/bench_arena.py [--votes 2000000] [--models 100] [--rounds 1000]
"""

from __future__ import annotations

import argparse
import math
import resource
import time
import tracemalloc
import warnings

import numpy as np
import pandas as pd

from judgebench.human.arena.battles import aggregate
from judgebench.human.arena.fit import FitOptions, rate_counts
from judgebench.human.arena.synthetic import bt_battles

ELO = 400 / math.log(10)


def votes(n: int, models: int, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    a, b, y = bt_battles(n, models, seed)
    names = np.array([f"model-{i:03d}" for i in range(models)])
    table = pd.DataFrame({"model_a": names[a], "model_b": names[b], "outcome": y})
    return table, a, b, y


def sklearn_raw(a: np.ndarray, b: np.ndarray, y: np.ndarray, models: int) -> np.ndarray:
    from scipy import sparse
    from sklearn.linear_model import LogisticRegression

    n = len(y)
    tie = y == 0.5
    rows = np.concatenate([np.arange(n), np.flatnonzero(tie)])
    design = sparse.csr_matrix((np.concatenate([np.ones(len(rows)), -np.ones(len(rows))]),
                                (np.tile(np.arange(len(rows)), 2), np.concatenate([a[rows], b[rows]]))),
                               shape=(len(rows), models))
    target = np.concatenate([np.where(tie, 1, y), np.zeros(tie.sum())])
    weight = np.where(np.concatenate([tie, np.ones(tie.sum(), bool)]), 0.5, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = LogisticRegression(penalty=None, fit_intercept=False, tol=1e-10, max_iter=10_000)
        model.fit(design, target, sample_weight=weight)
    theta = model.coef_[0]
    return 1000 + ELO * (theta - theta.mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--votes", type=int, default=2_000_000)
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=1000)
    args = parser.parse_args()
    table, a, b, y = votes(args.votes, args.models)
    print(f"{args.votes:,} votes over {args.models} models, 10% ties")

    start = time.perf_counter()
    agg = aggregate(table)
    agg_s = time.perf_counter() - start
    start = time.perf_counter()
    point = rate_counts(agg, FitOptions(n_resamples=0))
    point_s = time.perf_counter() - start
    start = time.perf_counter()
    boot = rate_counts(agg, FitOptions(n_resamples=args.rounds, seed=0))
    boot_s = time.perf_counter() - start
    print(f"  aggregated: {len(agg):,} (pair, outcome) rows in {agg_s:.2f} s; point fit {point_s:.2f} s; "
          f"point + {args.rounds} multinomial bootstrap rounds {boot_s:.2f} s; total {agg_s + boot_s:.2f} s")
    print(f"  median 95% CI width {np.median(boot.ci_high - boot.ci_low):.2f} Elo")
    for n in (args.votes // 20, args.votes):
        part = aggregate(table.iloc[:n])
        tracemalloc.start()
        rate_counts(part, FitOptions(n_resamples=args.rounds, seed=0))
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        print(f"  fit + bootstrap on the counts of {n:,} votes: peak traced {peak:.0f} MB")
    print(f"  (the raw vote table itself: {table.memory_usage(deep=True).sum() / 2**20:.0f} MB; "
          f"process peak RSS so far {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB)")

    start = time.perf_counter()
    raw = sklearn_raw(a, b, y, args.models)
    raw_s = time.perf_counter() - start
    order = [int(m.split("-")[1]) for m in point.models]
    print(f"  raw rows (scikit-learn logistic regression, {args.votes:,} rows, point fit only): {raw_s:.2f} s")
    print(f"  max |Elo difference| aggregated vs raw: {np.abs(point.ratings - raw[order]).max():.4f}")


if __name__ == "__main__":
    main()
