#!/usr/bin/env python
"""Start-up of the command line (issue 30): `judgebench --help` and `judgebench tasks`, wall time of a fresh
process, beside the plain baseline (the interpreter printing an argparse help) and, with --before, the
same commands on another source tree. Runs are interleaved (one of each per round) so load swings hit all
alike; prints min and median per command and the ratios to the baseline.

    python scripts/bench_start.py --before /tmp/base/src --rounds 15
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLAIN = "import argparse; p = argparse.ArgumentParser(prog='plain'); p.add_argument('--x'); p.parse_args(['--help'])"


def timed(cmd: list[str], src: str | None) -> float:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = src
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{cmd} failed: {done.stderr[-500:]}")
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="a baseline source tree (PYTHONPATH), e.g. the previous commit's src")
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    trees = {"after": str(ROOT / "src")}
    if args.before:
        trees = {"before": args.before, **trees}
    jobs: dict[str, tuple[list[str], str | None]] = {"plain argparse --help": ([sys.executable, "-c", PLAIN], None)}
    for label, src in trees.items():
        jobs[f"{label}: judgebench --help"] = ([sys.executable, "-m", "judgebench", "--help"], src)
        jobs[f"{label}: judgebench tasks"] = ([sys.executable, "-m", "judgebench", "tasks"], src)
    times: dict[str, list[float]] = {name: [] for name in jobs}
    for name, (cmd, src) in jobs.items():  # warm the file cache and .pyc files once
        timed(cmd, src)
    for _ in range(args.rounds):
        for name, (cmd, src) in jobs.items():
            times[name].append(timed(cmd, src))
    print_rounds(times, "plain argparse --help")
    return 0


def print_rounds(times: dict[str, list[float]], plain: str) -> None:
    """The load, then min, median and median / the plain baseline's median of each command's wall times."""
    base = statistics.median(times[plain])
    width = max(map(len, times)) + 2
    print(f"load average {os.getloadavg()[0]:.2f}; {len(times[plain])} interleaved rounds")
    print(f"{'command':{width}} {'min s':>7} {'median s':>9} {'x plain':>8}")
    for name, values in times.items():
        med = statistics.median(values)
        print(f"{name:{width}} {min(values):7.3f} {med:9.3f} {med / base:8.2f}")


if __name__ == "__main__":
    sys.exit(main())
