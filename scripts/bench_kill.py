"""Kill a large built-in run mid-way, then rerun it: what is kept, what the rerun does, how long it takes.

Uses a folder left by `scripts/bench_scale.py --keep DIR` (DIR/N holds data.jsonl, tasks/ and the
finished run/ as the reference):

    python scripts/bench_kill.py DIR/1000000 --after 120 --signal KILL

Starts the benchmark's `judgebench run` into DIR/N/killed, sends the signal once `--after` seconds have
passed and samples.jsonl exists, and reports: the exit code, the lines kept in samples.jsonl (and whether
the last one is cut short), whether results.json exists, what `judgebench score` says about the folder.
Then reruns the same command into the same folder (wall, CPU, peak RSS) and compares its results.json
and samples.jsonl with the reference run (timestamps aside).
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_scale import timed  # noqa: E402


def run_command(folder: Path, out: Path) -> list[str]:
    return [
        sys.executable, "-m", "judgebench", "run", "--tasks", "scale_synth", "--include-path", str(folder / "tasks"),
        "--dataset-path", str(folder / "data.jsonl"), "--judge", "builtin/longer", "--output-path", str(out),
        "--bootstrap", "1000",
    ]


def kill_mid_run(folder: Path, out: Path, after: float, sig: signal.Signals, env: dict[str, str]) -> dict[str, object]:
    proc = subprocess.Popen(run_command(folder, out), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    t0 = time.perf_counter()
    samples = out / "samples.jsonl"
    while proc.poll() is None and (time.perf_counter() - t0 < after or not samples.is_file()):
        time.sleep(0.5)
    if proc.poll() is not None:
        raise SystemExit(f"the run ended before the signal (exit {proc.returncode}); use a smaller --after")
    proc.send_signal(sig)
    err = proc.stderr.read().strip() if proc.stderr else ""
    code = proc.wait()
    whole, last_cut = 0, False
    if samples.is_file():
        with samples.open("rb") as handle:
            for line in handle:
                if line.endswith(b"\n") and _parses(line):
                    whole += 1
                else:
                    last_cut = True  # text after the last newline (or an unreadable line): cut short
    return {"after_s": round(time.perf_counter() - t0, 1), "exit": code, "stderr": err[-300:], "lines": whole,
            "last_line_cut": last_cut, "results_json": (out / "results.json").is_file()}


def _parses(line: bytes) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def comparable(path: Path) -> dict:
    result = json.loads((path / "results.json").read_text())
    for key in ("started_at", "ended_at"):
        result["config"].pop(key, None)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="DIR/N from bench_scale.py --keep DIR")
    parser.add_argument("--after", type=float, default=60.0, help="seconds before the signal")
    parser.add_argument("--signal", choices=["KILL", "TERM"], default="KILL")
    parser.add_argument("--no-rerun", action="store_true", help="only the kill and what it left")
    args = parser.parse_args()
    folder = args.folder.resolve()
    env = {**os.environ, "JUDGEBENCH_CACHE_DIR": str(folder / "cache")}
    out = folder / "killed"
    killed = kill_mid_run(folder, out, args.after, getattr(signal, f"SIG{args.signal}"), env)
    print(f"SIG{args.signal} after {killed['after_s']} s: exit {killed['exit']}, samples.jsonl {killed['lines']:,} whole "
          f"lines (last line cut short: {killed['last_line_cut']}), results.json: {killed['results_json']}")
    if killed["stderr"]:
        print(f"  stderr: {killed['stderr']}")
    score = subprocess.run([sys.executable, "-m", "judgebench", "score", str(out)], env=env, capture_output=True, text=True)
    print(f"score on the killed folder: exit {score.returncode}: {score.stderr.strip()[-300:]}")
    if args.no_rerun:
        return
    wall, cpu, rss, code, err = timed(run_command(folder, out), env)
    print(f"rerun: exit {code}, wall {wall:.1f} s, CPU {cpu:.1f} s, peak RSS {rss:.0f} MB {err[-200:] if code else ''}")
    reference = folder / "run"
    if code == 0 and (reference / "results.json").is_file():
        same_results = comparable(out) == comparable(reference)
        same_samples = filecmp.cmp(out / "samples.jsonl", reference / "samples.jsonl", shallow=False)
        print(f"rerun vs the uninterrupted run: results.json identical: {same_results}; samples.jsonl identical: {same_samples}")


if __name__ == "__main__":
    main()
