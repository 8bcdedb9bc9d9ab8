"""Benchmark: a synthetic YAML-only task at N pairs through the real CLI with builtin/longer.

Writes a generated data file and task YAML to a temp folder, then runs, each in its own process:
`judgebench run` (wall, peak RSS; with --phases, also wall and RSS per pipeline phase),
`judgebench score` and `judgebench report` on the run, and side by side a plain baseline: one pass
of json + numpy over the same data file computing the longer-response judge's accuracy. The run's
accuracy must equal the baseline's (printed as "metrics agree").

    python scripts/bench_scale.py --pairs 10000 100000 [--phases] [--bootstrap 1000] [--keep DIR]

Peak RSS is the child's ru_maxrss from os.wait4 (whole process, Linux KiB).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TASK_YAML = """\
name: scale_synth
version: "1"
description: Synthetic pairs for the scale benchmark.
dataset:
  path: data.jsonl
  split: test
columns:
  id: id
  question: question
  response_a: response_a
  response_b: response_b
  label: label
  model_a: model_a
  model_b: model_b
  slices: [category]
labels: {A: A, B: B}
verdicts: [A, B]
prompt: pairwise_generic.yaml
headline: accuracy
"""

WORDS = "the of model judge answer pair length human expert vote data result method paper study".split()


def make_data(path: Path, pairs: int, seed: int = 0) -> None:
    """N pairs with distinct response lengths (no coin), 20 models, 4 categories, labels ~60% 'longer'."""
    rng = random.Random(seed)
    text = " ".join(rng.choice(WORDS) for _ in range(400))
    with path.open("w", encoding="utf-8") as out:
        for i in range(pairs):
            la = rng.randint(40, 1500)
            lb = la + rng.choice([-1, 1]) * rng.randint(1, 400)
            lb = max(1, lb) if lb != la else la + 1
            longer = "A" if la > lb else "B"
            label = longer if rng.random() < 0.6 else ("B" if longer == "A" else "A")
            ma, mb = rng.sample(range(20), 2)
            row = {
                "id": f"p{i}",
                "question": f"Question {i}: explain {rng.choice(WORDS)}.",
                "response_a": (text * 4)[:la],
                "response_b": (text * 4)[:lb],
                "label": label,
                "model_a": f"m{ma}",
                "model_b": f"m{mb}",
                "category": f"c{i % 4}",
            }
            out.write(json.dumps(row) + "\n")


def baseline_accuracy(path: Path) -> float:
    """The plain one-pass figure: share of (example, order) judgments where the longer response is the label."""
    import numpy as np

    la, lb, lab = [], [], []
    with path.open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            la.append(len(row["response_a"]))
            lb.append(len(row["response_b"]))
            lab.append(row["label"] == "A")
    longer_a = np.array(la) > np.array(lb)
    return float(np.mean(longer_a == np.array(lab)))  # both orders give the same verdict


def type_check_cpu(path: Path) -> float | None:
    """CPU seconds of the run's cell-type pass (cell_types.py) over the task's mapped text columns, in this
    process (pyarrow may use both cores: process time counts them all); None before that pass existed."""
    try:
        from judgebench.tasks.cell_types import _all_text
    except ImportError:
        return None
    import pyarrow.json  # noqa: F401  (imported before timing, as a run has it already)

    t0 = time.process_time()
    assert _all_text(path, ["id", "question", "response_a", "response_b", "label", "model_a", "model_b", "category"])
    return time.process_time() - t0


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, int, str]:
    """Wall seconds, CPU seconds (user + sys: the steadier figure on a shared machine), peak RSS (MB)
    and exit code of one child process; its stderr tail."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err = proc.stderr.read() if proc.stderr else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return time.perf_counter() - t0, cpu, usage.ru_maxrss / 1024, proc.returncode, err.strip()[-2000:]


PHASES_CHILD = r"""
import json, resource, sys, time
from judgebench.judging import pipeline
from judgebench.cli.main import main
marks = []
def rss():
    with open('/proc/self/statm') as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20
def wrap(name):
    fn = getattr(pipeline, name)
    def inner(*a, **k):
        t0 = time.perf_counter(); out = fn(*a, **k)
        marks.append((name, time.perf_counter() - t0, rss(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
        return out
    setattr(pipeline, name, inner)
for name in sys.argv[1].split(','):
    if hasattr(pipeline, name):
        wrap(name)
code = main(sys.argv[2:])
sys.stderr.write('PHASES ' + json.dumps(marks) + '\n')
sys.exit(code)
"""

PHASE_NAMES = "_load,plan_requests,run_requests,assemble_records,stream_judgments,score,write_run,finish_run"


def bench(pairs: int, folder: Path, bootstrap: int, phases: bool) -> dict[str, object]:
    data = folder / "data.jsonl"
    (folder / "tasks").mkdir(exist_ok=True)
    (folder / "tasks" / "scale_synth.yaml").write_text(TASK_YAML, encoding="utf-8")
    t0 = time.perf_counter()
    make_data(data, pairs)
    print(f"  generated {pairs:,} pairs ({data.stat().st_size / 2**20:.0f} MB) in {time.perf_counter() - t0:.1f} s")
    env = {**os.environ, "JUDGEBENCH_CACHE_DIR": str(folder / "cache")}
    run_dir = folder / "run"
    run = [
        "run", "--tasks", "scale_synth", "--include-path", str(folder / "tasks"), "--dataset-path", str(data),
        "--judge", "builtin/longer", "--output-path", str(run_dir), "--bootstrap", str(bootstrap),
    ]
    out: dict[str, object] = {}
    if phases:
        wall, cpu, rss, code, err = timed([sys.executable, "-c", PHASES_CHILD, PHASE_NAMES, *run], env)
        line = next((x for x in err.splitlines() if x.startswith("PHASES ")), "PHASES []")
        out["phases"] = json.loads(line[7:])
    else:
        wall, cpu, rss, code, err = timed([sys.executable, "-m", "judgebench", *run], env)
    if code != 0 or not (run_dir / "results.json").is_file():
        raise SystemExit(f"run failed ({code}): {err}")
    out["run"] = (wall, cpu, rss)
    for command in ("score", "report"):
        wall, cpu, rss, code, err = timed([sys.executable, "-m", "judgebench", command, str(run_dir)], env)
        if code != 0:
            raise SystemExit(f"{command} failed ({code}): {err}")
        out[command] = (wall, cpu, rss)
    t0 = time.perf_counter()
    wall, cpu, rss, code, err = timed(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
         f"import bench_scale as b, pathlib; print(b.baseline_accuracy(pathlib.Path({str(data)!r})))"], env)
    out["baseline"] = (wall, cpu, rss)
    out["type_check"] = type_check_cpu(data)
    base = baseline_accuracy(data)
    got = json.loads((run_dir / "results.json").read_text())["metrics"]["overall"]["accuracy"]["value"]
    out["accuracy"], out["baseline_accuracy"] = got, base
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, nargs="+", default=[10_000])
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--phases", action="store_true", help="also time the pipeline's phases (in-process wrappers)")
    parser.add_argument("--keep", type=Path, help="keep the generated data and runs under this folder")
    args = parser.parse_args()
    for pairs in args.pairs:
        print(f"== {pairs:,} pairs ({2 * pairs:,} judgments), builtin/longer, --bootstrap {args.bootstrap}")
        with tempfile.TemporaryDirectory(prefix="judgebench-scale-") as tmp:
            folder = args.keep / str(pairs) if args.keep else Path(tmp)
            folder.mkdir(parents=True, exist_ok=True)
            res = bench(pairs, folder, args.bootstrap, args.phases)
        for name, (wall, cpu, rss) in ((k, res[k]) for k in ("run", "score", "report", "baseline")):
            print(f"  {name:<9} wall {wall:7.2f} s   CPU {cpu:7.2f} s   peak RSS {rss:7.0f} MB")
        if res["type_check"] is not None:
            print(f"  of the run: the cell-type check (cell_types.py) CPU {res['type_check']:7.2f} s")
        for name, wall, rss, peak in res.get("phases", []):
            print(f"    phase {name:<17} {wall:7.2f} s   RSS after {rss:6.0f} MB   peak so far {peak:6.0f} MB")
        agree = abs(res["accuracy"] - res["baseline_accuracy"]) < 1e-12
        print(f"  accuracy run {res['accuracy']:.6f} baseline {res['baseline_accuracy']:.6f}: "
              f"{'metrics agree' if agree else 'MISMATCH'}")


if __name__ == "__main__":
    main()
