"""Benchmark: score 20,000 synthetic judgments with 1,000 bootstrap resamples.

Cases: 10,000 examples x 2 orders x 1 dimension (with and without a 4-value
slice), and 2,000 examples x 5 dimensions x 2 orders. Prints wall and CPU time (best of
--repeats) and peak traced memory (tracemalloc) of one extra run. Target (TARGETS.md):
well under a second per case.

    .venv/bin/python scripts/bench_scoring.py [--resamples 1000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import resource
import time
import tracemalloc

import numpy as np

from judgebench.core.records import JudgmentRecord, swap_verdict
from judgebench.scoring.metrics import score_records

DIMENSIONS = ("overall", "novelty", "feasibility", "significance", "specificity")


def synthetic(n_examples: int, dimensions: tuple[str, ...], seed: int = 0) -> list[JudgmentRecord]:
    """A judge right ~60% of the time, 3% invalid and 1% failed judgments."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n_examples):
        for d in dimensions:
            label = str(rng.choice(["A", "B", "TIE", "BOTH_BAD"], p=[0.44, 0.44, 0.1, 0.02]))
            for order in ("AB", "BA"):
                status = str(rng.choice(["ANSWERED", "INVALID", "FAILED"], p=[0.96, 0.03, 0.01]))
                verdict = None
                if status == "ANSWERED":
                    right = label if label != "BOTH_BAD" else "TIE"
                    verdict = right if rng.random() < 0.6 else str(rng.choice(["A", "B", "TIE"]))
                out.append(JudgmentRecord(
                    task="bench", example_id=f"e{i}", dimension=d, order=order, judge="j",
                    prompt_hash=f"{i}-{d}-{order}", status=status, verdict=verdict,
                    verdict_shown=verdict if order == "AB" else swap_verdict(verdict),
                    label=label, length_a=int(rng.integers(100, 5000)),
                    length_b=int(rng.integers(100, 5000)),
                    slices={"subject": f"s{i % 4}"},
                ))
    return out


def bench(name: str, records: list[JudgmentRecord], resamples: int, repeats: int,
          slice_columns: tuple[str, ...] = ()) -> float:
    """Print and return the best wall time of score_records over `repeats` runs.

    CPU time (all threads) is printed too: on a shared machine it is the less noisy figure.
    """
    best = best_cpu = float("inf")
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        score_records(records, n_resamples=resamples, seed=0, slice_columns=slice_columns)
        best = min(best, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    tracemalloc.start()
    score_records(records, n_resamples=resamples, seed=0, slice_columns=slice_columns)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"{name:<42} {len(records):>6} judgments  wall {best:6.3f} s  cpu {best_cpu:6.3f} s"
          f"  peak {peak / 2**20:5.1f} MiB")
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    t0 = time.perf_counter()
    one_dim = synthetic(10_000, ("overall",))
    five_dim = synthetic(2_000, DIMENSIONS, seed=1)
    print(f"built {len(one_dim) + len(five_dim)} records in {time.perf_counter() - t0:.1f} s; "
          f"{args.resamples} resamples, best of {args.repeats}")
    score_records(one_dim[:200], n_resamples=10)  # warm imports (krippendorff, scipy)

    bench("1 dimension, 10,000 examples x 2 orders", one_dim, args.resamples, args.repeats)
    bench("  + slices by subject (4 values)", one_dim, args.resamples, args.repeats, ("subject",))
    bench("5 dimensions, 2,000 examples x 2 orders", five_dim, args.resamples, args.repeats)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process max RSS {rss:.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
