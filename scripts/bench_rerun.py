#!/usr/bin/env python
"""A fully cached rerun (issue 30): `judgebench run` on a finished run's reply cache (zero calls), wall time,
beside a plain baseline: a hand-written cached rerun (read the data file and every cached reply from the SQLite
cache, the accuracy and its 1,000-resample bootstrap with numpy). With --before, the same rerun on another
source tree. Interleaved rounds; min and median.

Needs a folder from `python scripts/bench_runner.py --scenario compare --workdir DIR` (DIR/compare: pairs.jsonl,
cache/, user-cache/, out1/results.json, whose api_base names the server the answers were cached under).

    python scripts/bench_rerun.py /tmp/speed_bench/compare --before /tmp/base/src --rounds 7
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from bench_start import print_rounds  # noqa: E402
PLAIN = """
import json, sqlite3, sys
import numpy as np
pairs = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
rows = sqlite3.connect(sys.argv[2]).execute("select reply from replies").fetchall()
texts = [json.loads(r[0]).get("text") or "" for r in rows]
n = min(len(pairs), len(texts))
hit = np.array([("A" in texts[i]) == (pairs[i].get("vote") == "A") for i in range(n)], dtype=float)
rng = np.random.default_rng(0)
boot = hit[rng.integers(0, n, size=(1000, n))].mean(axis=1)
json.dump({"accuracy": hit.mean(), "ci": list(np.percentile(boot, [2.5, 97.5]))}, open(sys.argv[3], "w"))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a bench_runner.py compare folder (DIR/compare)")
    parser.add_argument("--before", help="a baseline source tree (PYTHONPATH)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    folder = args.folder.resolve()
    api_base = json.loads((folder / "out1" / "results.json").read_text())["config"]["judge_args"]["api_base"]
    trees = {"after": str(ROOT / "src")}
    if args.before:
        trees = {"before": args.before, **trees}
    env = dict(os.environ, JUDGEBENCH_CACHE_DIR=str(folder / "user-cache"))
    jobs = {"plain cached rerun": ([sys.executable, "-c", PLAIN, str(folder / "pairs.jsonl"),
                                    str(folder / "cache" / "replies.sqlite3"), str(folder / "plain.json")], None)}
    for label, src in trees.items():
        out = folder / f"rerun-{label}"
        jobs[f"{label}: judgebench cached rerun"] = ([
            sys.executable, "-m", "judgebench", "run", "--tasks", "sciarena_eval", "--judge", "openai/bench-judge",
            "--judge-args", f"api_base={api_base},api_key=sk-bench", "--dataset-path", str(folder / "pairs.jsonl"),
            "--output-path", str(out), "--concurrency", "64", "--timeout", "30", "--cache-dir", str(folder / "cache"),
            "--quiet", "--no-swap", "--reask", "1"], src)
    times: dict[str, list[float]] = {name: [] for name in jobs}
    for round_ in range(args.rounds + 1):  # round 0 warms the file cache and .pyc files
        for name, (cmd, src) in jobs.items():
            for out in folder.glob("rerun-*"):
                shutil.rmtree(out)
            run_env = dict(env, PYTHONPATH=src) if src else env
            start = time.perf_counter()
            done = subprocess.run(cmd, env=run_env, capture_output=True, text=True, check=False)
            took = time.perf_counter() - start
            if done.returncode != 0:
                raise SystemExit(f"{name} failed: {done.stderr[-800:]}")
            if round_:
                times[name].append(took)
            if "judgebench" in name:
                counts = json.loads((folder / f"rerun-{name.split(':')[0]}" / "results.json").read_text())["counts"]
                assert counts["cached"] == counts["calls"] == 2000, counts
    print_rounds(times, "plain cached rerun")
    return 0


if __name__ == "__main__":
    sys.exit(main())
