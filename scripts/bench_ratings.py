"""Benchmark the Bradley–Terry module and the diagnostics on the TARGETS.md workloads.

Ratings workload: 50 models with strengths from N(0, 1), 20,000 battles between random
distinct pairs, 10% ties, the rest drawn from the BT probability. Prints the point-fit
time, the 1,000-round bootstrap time, peak memory, and the largest rating difference
against an independent implementation (choix's ILSR, ties split into one win each
way; and scikit-learn's unpenalised logistic regression when installed).

Diagnostics workload: 20,000 judgments (10,000 examples x 2 orders, 24 response models,
lengths and citation counts), timed for diagnose() at 1,000 and at 200 resamples.

Usage: .venv/bin/python scripts/bench_ratings.py [--rounds 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import math
import resource
import time
import tracemalloc
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from judgebench.core.records import JudgmentRecord, swap_verdict
from judgebench.human.arena.synthetic import bt_battles
from judgebench.scoring.diagnostics import diagnose
from judgebench.stats.ratings import bootstrap_bt, fit_bt

ELO = 400 / math.log(10)


def ratings_workload(seed: int = 0, n_models: int = 50, n_battles: int = 20_000):
    """(model_a, model_b, outcome, index_a, index_b) arrays."""
    a, b, y = bt_battles(n_battles, n_models, seed)
    names = np.array([f"model-{i:02d}" for i in range(n_models)])
    return names[a], names[b], y, a, b


def timed(fn: Callable[[], Any], repeat: int) -> tuple[Any, float, float, float]:
    """(result, first-call wall s, best-of-repeat wall s, best-of-repeat CPU s).

    CPU time is shown too because other processes on a shared 2-core machine stretch
    wall time; the fits themselves run single-threaded."""
    times, cpu, result = [], [], None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = fn()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return result, times[0], min(times), min(cpu)


def peak_traced_mb(fn: Callable[[], Any]) -> float:
    """Peak Python-allocated memory (numpy buffers included) during fn, in MB."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def choix_elo(a: np.ndarray, b: np.ndarray, y: np.ndarray, n_models: int) -> np.ndarray | None:
    try:
        import choix
    except ImportError:
        return None
    data = []
    for i, j, v in zip(a, b, y):
        data += [(i, j), (i, j)] if v == 1 else [(j, i), (j, i)] if v == 0 else [(i, j), (j, i)]
    theta = choix.ilsr_pairwise(n_models, data, alpha=0.0, tol=1e-12, max_iter=10_000)
    return 1000 + ELO * (theta - theta.mean())


def sklearn_elo(a: np.ndarray, b: np.ndarray, y: np.ndarray, n_models: int) -> np.ndarray | None:
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        return None
    n = len(y)
    design = np.zeros((n, n_models))
    design[np.arange(n), a], design[np.arange(n), b] = 1.0, -1.0
    tie = y == 0.5
    rows = np.concatenate([np.arange(n), np.flatnonzero(tie)])
    target = np.concatenate([np.where(tie, 1, y), np.zeros(tie.sum())])
    weight = np.where(np.concatenate([tie, np.ones(tie.sum(), bool)]), 0.5, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = LogisticRegression(penalty=None, fit_intercept=False, tol=1e-12, max_iter=100_000)
        model.fit(design[rows], target, sample_weight=weight)
    theta = model.coef_[0]
    return 1000 + ELO * (theta - theta.mean())


def judgments_workload(n_examples: int = 10_000, n_models: int = 24,
                       seed: int = 0) -> list[JudgmentRecord]:
    """Human labels from a length-adjusted BT model; a judge that agrees ~65% and
    prefers the first-shown and the longer response somewhat."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 0.6, n_models)
    out = []
    for i in range(n_examples):
        a, b = rng.choice(n_models, 2, replace=False)
        la, lb = (int(v) for v in rng.lognormal(7, 0.5, 2))
        x = math.log(la / lb)
        p = 1 / (1 + math.exp(-(strength[a] - strength[b] + 0.2 * x)))
        u = rng.random()
        label = "BOTH_BAD" if u < 0.03 else "TIE" if u < 0.12 else "A" if rng.random() < p else "B"
        for order in ("AB", "BA"):
            first_bonus = 0.3 if order == "AB" else -0.3
            q = 1 / (1 + math.exp(-(1.5 * (strength[a] - strength[b]) + 0.5 * x + first_bonus)))
            verdict = "TIE" if rng.random() < 0.05 else "A" if rng.random() < q else "B"
            shown = verdict if order == "AB" else swap_verdict(verdict)
            out.append(JudgmentRecord(
                task="bench", example_id=f"e{i}", dimension="overall", order=order,
                judge="bench/judge", prompt_hash="h", status="ANSWERED", verdict=verdict,
                verdict_shown=shown, label=label, model_a=f"m{a}", model_b=f"m{b}",
                length_a=la, length_b=lb, citations_a=int(rng.poisson(3)),
                citations_b=int(rng.poisson(3)), slices={"subject": f"s{i % 4}"},
            ))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    ma, mb, y, ia, ib = ratings_workload()
    battles = (ma, mb, y)
    point, point_first, point_best, point_cpu = timed(lambda: fit_bt(battles), args.repeat)
    boot, boot_first, boot_best, boot_cpu = timed(
        lambda: bootstrap_bt(battles, n_resamples=args.rounds, seed=0), args.repeat)
    traced = peak_traced_mb(lambda: bootstrap_bt(battles, n_resamples=args.rounds, seed=0))
    print("Ratings: 50 models, 20,000 battles, 10% ties")
    print(f"  point fit            first {point_first:.3f} s   best of {args.repeat} "
          f"{point_best:.3f} s wall, {point_cpu:.3f} s CPU")
    print(f"  {args.rounds} bootstrap rounds first {boot_first:.3f} s   best of {args.repeat} "
          f"{boot_best:.3f} s wall, {boot_cpu:.3f} s CPU (includes the point fit)")
    print(f"  peak memory          {traced:.0f} MB traced during one bootstrap")
    print(f"  CI width (median)    {np.median(boot.ci_high - boot.ci_low):.1f} Elo")
    for name, other in (("choix ILSR", choix_elo(ia, ib, y, 50)),
                        ("sklearn logistic", sklearn_elo(ia, ib, y, 50))):
        if other is None:
            print(f"  vs {name:17s} not installed")
            continue
        order = [int(m.split("-")[1]) for m in point.models]
        gap = np.abs(point.ratings - other[order]).max()
        print(f"  vs {name:17s} max |Elo difference| {gap:.2e}")

    records = judgments_workload()
    print(f"\nDiagnostics: {len(records):,} judgments (10,000 examples x 2 orders, 24 models)")
    for rounds in (1000, 200):
        diag, first, best, cpu = timed(lambda: diagnose(records, n_resamples=rounds, seed=0),
                                       max(1, args.repeat - 1))
        print(f"  diagnose, {rounds:4d} resamples  first {first:.2f} s   best {best:.2f} s wall, "
              f"{cpu:.2f} s CPU")
    traced = peak_traced_mb(lambda: diagnose(records, n_resamples=1000, seed=0))
    print(f"  peak memory          {traced:.0f} MB traced during diagnose(1000)")
    d = diag["dimensions"]["overall"]
    print(f"  (position bias {d['order']['position_bias']['value']:.3f}, longer preferred "
          f"{d['length']['preferred_larger']['judge']['value']:.3f} vs human "
          f"{d['length']['preferred_larger']['human']['value']:.3f}, Spearman "
          f"{d['system']['spearman']['value']:.3f})")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\nProcess peak RSS {rss:.0f} MB")


if __name__ == "__main__":
    main()
