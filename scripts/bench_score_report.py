"""Benchmark: `score` and `report` of one kept run, two source trees side by side (before / after).

    python scripts/bench_scale.py --pairs 100000 --keep /tmp/scale        # makes /tmp/scale/100000/{data.jsonl,run}
    python scripts/bench_score_report.py /tmp/scale/100000 --before /work/main/src --after src --repeat 3

Each round runs `score` then `report` with the `before` tree, then with the `after` tree (PYTHONPATH), each
command in its own process, alternating so that both sides meet the same load; CPU (user + sys) and peak RSS
come from os.wait4 (the steadier figures on a shared machine: compare those, not wall). Each side works on its
own copy of the run folder. The plain baseline (bench_scale.baseline_accuracy: one json + numpy pass over the
data file) is printed beside them, and both sides' results.json (timestamps aside) and every report file must
be identical ("figures identical") or the script says which differ.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_scale import baseline_accuracy, timed  # noqa: E402

COMMANDS = ("score", "report")


def _results(run: Path) -> dict:
    """results.json without its timestamps."""
    data = json.loads((run / "results.json").read_text(encoding="utf-8"))
    for key in ("started_at", "ended_at"):
        data.get("config", {}).pop(key, None)
        data.pop(key, None)
    return data


def _differences(a: Path, b: Path) -> list[str]:
    """Names of the output files that differ between the two copies of the run."""
    out = [] if _results(a) == _results(b) else ["results.json"]
    names = sorted({p.name for p in (a / "report").iterdir()} | {p.name for p in (b / "report").iterdir()})
    for name in names:
        x, y = a / "report" / name, b / "report" / name
        if not (x.is_file() and y.is_file() and x.read_bytes() == y.read_bytes()):
            out.append(f"report/{name}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a bench_scale.py --keep folder of one size (data.jsonl, run/)")
    parser.add_argument("--before", required=True, help="the baseline source tree (PYTHONPATH), e.g. /work/main/src")
    parser.add_argument("--after", required=True, help="the changed source tree (PYTHONPATH)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sides = {"before": str(Path(args.before).resolve()), "after": str(Path(args.after).resolve())}
    figures: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="judgebench-sr-") as tmp:
        runs = {side: Path(tmp) / side for side in sides}
        for run in runs.values():
            shutil.copytree(args.folder / "run", run)
        for _ in range(args.repeat):
            for command in COMMANDS:
                for side, src in sides.items():
                    env = {**os.environ, "PYTHONPATH": src, "JUDGEBENCH_CACHE_DIR": str(Path(tmp) / "cache")}
                    wall, cpu, rss, code, err = timed([sys.executable, "-m", "judgebench", command, str(runs[side])], env)
                    if code != 0:
                        raise SystemExit(f"{side} {command} failed ({code}): {err}")
                    figures.setdefault((side, command), []).append((wall, cpu, rss))
        differ = _differences(runs["before"], runs["after"])
        got = _results(runs["after"])["metrics"]["overall"]["accuracy"]["value"]
    t0, c0 = time.perf_counter(), time.process_time()
    base = baseline_accuracy(args.folder / "data.jsonl")
    print(f"== {args.folder}: {args.repeat} rounds; median (min-max) of each")
    for command in COMMANDS:
        for side in sides:
            rows = figures[(side, command)]
            cpu = [r[1] for r in rows]
            print(f"  {command:<7}{side:<7} wall {statistics.median(r[0] for r in rows):6.2f} s   CPU "
                  f"{statistics.median(cpu):6.2f} s ({min(cpu):.2f}-{max(cpu):.2f})   peak RSS "
                  f"{statistics.median(r[2] for r in rows):6.0f} MB")
    print(f"  baseline       wall {time.perf_counter() - t0:6.2f} s   CPU {time.process_time() - c0:6.2f} s   "
          f"accuracy {base:.6f}; after's {got:.6f}: {'metrics agree' if abs(got - base) < 1e-12 else 'MISMATCH'}")
    print("  figures identical" if not differ else "  DIFFER: " + ", ".join(differ))


if __name__ == "__main__":
    main()
