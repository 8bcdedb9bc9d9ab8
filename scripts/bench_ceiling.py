"""Human-ceiling intervals (ceiling.py): the vectorised bootstrap beside a plain one.

Plain baseline: for every resample, build the resampled list of pairs and recompute every figure
(each annotator pair's kappa, the krippendorff package's alpha, the leave-one-out loop) from scratch,
as a straightforward implementation would. judgebench: per-pair arrays computed once, each resample a
weighting of pairs (one matrix product per figure family per batch of 100 resamples).

Usage: python scripts/bench_ceiling.py [--pairs 2000] [--annotators 3] [--rounds 1000] [--plain-rounds 50]
The plain bootstrap runs --plain-rounds rounds and is scaled to --rounds (printed as such).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from judgebench.scoring.ceiling import Pair, human_ceiling
from judgebench.stats.resampling import resample_batches


def workload(n: int, pool: int, seed: int = 0) -> list[Pair]:
    """Pairs with three votes from a pool of annotators: a true preference, 70% agreement."""
    rng = np.random.default_rng(seed)
    pairs = []
    for i in range(n):
        truth = str(rng.choice(["A", "B", "TIE"], p=[0.45, 0.45, 0.1]))
        annotators = rng.choice([f"a{k}" for k in range(pool)], size=min(3, pool), replace=False)
        votes = {str(a): [truth if rng.random() < 0.7 else str(rng.choice(["A", "B", "TIE"]))] for a in annotators}
        pairs.append(Pair(f"p{i}", votes, truth, {"AB": "A"}))
    return pairs


def plain(pairs: list[Pair], rounds: int, seed: int) -> float:
    start = time.perf_counter()
    for batch in resample_batches(len(pairs), rounds, seed, 100):
        for row in batch:
            resampled = [Pair(f"r{j}", pairs[i].votes, pairs[i].label, pairs[i].verdicts) for j, i in enumerate(row)]
            human_ceiling(resampled, n_resamples=0)  # every figure from scratch, no resampling inside
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--annotators", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--plain-rounds", type=int, default=50)
    args = parser.parse_args()
    pairs = workload(args.pairs, args.annotators)
    start = time.perf_counter()
    figures = human_ceiling(pairs, n_resamples=args.rounds, seed=0)
    ours = time.perf_counter() - start
    baseline = plain(pairs, args.plain_rounds, 0) * args.rounds / args.plain_rounds
    print(f"workload: {args.pairs} pairs, 3 votes each from {args.annotators} annotators, {args.rounds} bootstrap rounds")
    print(f"{'implementation':<36} {'seconds':>9}")
    print(f"{'plain (recompute per resample)':<36} {baseline:>9.2f}   (scaled from {args.plain_rounds} rounds)")
    print(f"{'judgebench ceiling.py':<36} {ours:>9.2f}")
    value = figures["annotator_alpha"]
    print(f"alpha {value.value:.4f} [{value.ci_low:.4f}, {value.ci_high:.4f}]; "
          f"loo_soft_accuracy {figures['loo_soft_accuracy'].value:.4f}")


if __name__ == "__main__":
    main()
