#!/usr/bin/env python
"""`judgebench arena` end to end on a large votes file (issue 30), wall time and peak RSS of the process,
beside an independent plain pipeline (pyarrow reads the JSON Lines, counts aggregated once per
(model_a, model_b, outcome), scipy fits the Bradley-Terry point ratings) and, with --before, the same
command on another source tree. Interleaved rounds; min and median; arena.json compared between trees.

    python scripts/bench_arena_cli.py --votes 200000 --before /tmp/base/src --rounds 3
    python scripts/bench_arena_cli.py --votes 2000000 --before /tmp/base/src --rounds 1 --point --plain-rounds 1000
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLAIN = """
import sys
import numpy as np, pyarrow.json as pj, pyarrow.compute as pc
from scipy.optimize import minimize
t = pj.read_json(sys.argv[1]).select(["model_a", "model_b", "choice"])
g = t.group_by(["model_a", "model_b", "choice"]).aggregate([([], "count_all")])
names = sorted(set(pc.unique(g["model_a"]).to_pylist()) | set(pc.unique(g["model_b"]).to_pylist()))
index = {n: i for i, n in enumerate(names)}
a = np.array([index[x] for x in g["model_a"].to_pylist()]); b = np.array([index[x] for x in g["model_b"].to_pylist()])
ch = g["choice"].to_pylist(); n = g["count_all"].to_numpy().astype(float)
y = np.array([1.0 if c == "A" else 0.0 if c == "B" else 0.5 for c in ch])
def f(theta):
    d = theta[a] - theta[b]; p = 1 / (1 + np.exp(-d))
    loss = -(n * (y * np.log(p) + (1 - y) * np.log1p(-p))).sum()
    r = n * (p - y); grad = np.bincount(a, r, len(names)) - np.bincount(b, r, len(names))
    return loss, grad
theta = minimize(f, np.zeros(len(names)), jac=True, method="L-BFGS-B").x
ratings = 1000 + 400 / np.log(10) * (theta - theta.mean())
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 0  # bootstrap: multinomial draws on the counts, refits
rng, counts, samples = np.random.default_rng(0), n, []
for _ in range(rounds):
    n = rng.multinomial(int(counts.sum()), counts / counts.sum()).astype(float)
    t = minimize(f, theta, jac=True, method="L-BFGS-B").x
    samples.append(1000 + 400 / np.log(10) * (t - t.mean()))
if rounds:
    low, high = np.percentile(np.array(samples), [2.5, 97.5], axis=0)
print(len(names), round(float(ratings.max()), 1))
"""


def write_votes(path: Path, n: int, models: int) -> None:
    import numpy as np

    sys.path.insert(0, str(ROOT / "src"))
    from judgebench.human.arena.synthetic import bt_battles

    a, b, y = bt_battles(n, models, 0)
    annotators = np.random.default_rng(1).integers(0, 500, n)
    with path.open("w", encoding="utf-8") as handle:
        for i in range(n):
            choice = "A" if y[i] == 1 else ("B" if y[i] == 0 else "TIE")
            handle.write(json.dumps({"pair_id": f"p{i}", "annotator": f"u{annotators[i]:03d}", "choice": choice,
                                     "model_a": f"model-{a[i]:03d}", "model_b": f"model-{b[i]:03d}"}) + "\n")


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one child."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - start
    err = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{cmd[:4]} failed: {err[-800:]}")
    return took, usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--votes", type=int, default=200_000)
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--before", help="a baseline source tree (PYTHONPATH)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--point", action="store_true",
                        help="also, after: --no-plots; --n-resamples 0 --no-plots; and that with --robustness-repeats 0")
    parser.add_argument("--plain-rounds", type=int, default=0,
                        help="also: the plain pipeline with this many bootstrap rounds (multinomial redraws, refits)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/judgebench-bench-arena"))
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    votes = args.workdir / f"votes-{args.votes}-{args.models}.jsonl"
    if not votes.exists():
        write_votes(votes, args.votes, args.models)
    trees = {"after": str(ROOT / "src")}
    if args.before:
        trees = {"before": args.before, **trees}
    jobs = {"plain pyarrow+scipy BT": ([sys.executable, "-c", PLAIN, str(votes)], dict(os.environ))}
    if args.plain_rounds:
        jobs[f"plain, {args.plain_rounds} rounds"] = ([sys.executable, "-c", PLAIN, str(votes), str(args.plain_rounds)],
                                                   dict(os.environ))
    for label, src in trees.items():
        out = args.workdir / f"arena-{label}"
        jobs[f"{label}: judgebench arena"] = ([sys.executable, "-m", "judgebench", "arena", str(votes),
                                              "--output-dir", str(out)], dict(os.environ, PYTHONPATH=src))
    if args.point:  # no plots; point ratings only (what the plain pipeline computes, and more); no subsampling
        for name, extra in (("after: arena, no plots", ["--no-plots"]),
                            ("after: arena, point, no plots", ["--n-resamples", "0", "--no-plots"]),
                            ("after: point, no plots/subsampling", ["--n-resamples", "0", "--no-plots",
                                                                    "--robustness-repeats", "0"])):
            jobs[name] = ([sys.executable, "-m", "judgebench", "arena", str(votes), "--output-dir",
                           str(args.workdir / f"arena-{len(jobs)}"), *extra], dict(os.environ, PYTHONPATH=trees["after"]))
    walls: dict[str, list[float]] = {name: [] for name in jobs}
    peaks: dict[str, list[float]] = {name: [] for name in jobs}
    for _ in range(args.rounds):
        for name, (cmd, env) in jobs.items():
            if "--output-dir" in cmd:  # this job's own folder, written afresh
                shutil.rmtree(cmd[cmd.index("--output-dir") + 1], ignore_errors=True)
            wall, peak = timed(cmd, env)
            walls[name].append(wall)
            peaks[name].append(peak)
    base = statistics.median(walls["plain pyarrow+scipy BT"])
    print(f"{args.votes:,} votes over {args.models} models; load average {os.getloadavg()[0]:.2f}; {args.rounds} interleaved rounds")
    print(f"{'command':36} {'min s':>7} {'median s':>9} {'x plain':>8} {'peak MB':>8}")
    for name in jobs:
        med = statistics.median(walls[name])
        print(f"{name:36} {min(walls[name]):7.2f} {med:9.2f} {med / base:8.2f} {max(peaks[name]):8.0f}")
    if args.before:
        same = [(args.workdir / f"arena-{t}" / "arena.json").read_bytes() for t in ("before", "after")]
        print("arena.json byte-identical before/after:", same[0] == same[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
