"""Benchmark: reading a run's samples.jsonl into lean records, the two decoders side by side.

    python scripts/bench_read_samples.py RUN_DIR/samples.jsonl [--repeat 5]

Alternates fresh processes, one read each (as `score` and `report` read: a new process; alternated so a
machine whose speed drifts over minutes affects all alike):
- `pydantic`: every line validated by `JudgmentRecord` then held lean (what `score`/`report` did before),
- `canonical`: `read_samples(path, lean=True)` as it is now (msgspec for the lines `run` writes),
- `baseline`: a plain `json.loads` of every line (no validation, no records),
and prints the CPU seconds of each read (min and median; the process's imports not counted), then checks
in this process that both decoders give equal records.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from judgebench.core.files import read_models_jsonl
from judgebench.core.lean_records import LeanRecord
from judgebench.core.records import JudgmentRecord
from judgebench.core.rundir import read_samples


def _pydantic(path: Path) -> list:
    return read_models_jsonl(path, JudgmentRecord, hold=LeanRecord.of)


def _canonical(path: Path) -> list:
    return read_samples(path, lean=True)


def _baseline(path: Path) -> list:
    with path.open("rb") as handle:
        return [json.loads(line) for line in handle if not line.isspace()]


METHODS = {"pydantic": _pydantic, "canonical": _canonical, "baseline": _baseline}


def _timed_in_child(name: str, path: Path) -> float:
    """CPU seconds of one read by `name` in a fresh process (printed by the child)."""
    code = (f"import sys, time; sys.path.insert(0, {str(Path(__file__).parent)!r}); import bench_read_samples as b; "
            f"t = time.process_time(); b.METHODS[{name!r}](b.Path({str(path)!r})); print(time.process_time() - t)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("samples", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    seconds: dict[str, list[float]] = {name: [] for name in METHODS}
    for _ in range(args.repeat):
        for name in METHODS:
            seconds[name].append(_timed_in_child(name, args.samples))
    slow, fast = _pydantic(args.samples), _canonical(args.samples)
    print(f"== {args.samples}: {len(fast):,} judgments, {args.repeat} rounds alternated; CPU seconds of a read")
    for name, values in seconds.items():
        print(f"  {name:9s}  min {min(values):6.2f} s   median {statistics.median(values):6.2f} s")
    same = all(a.to_model() == b.to_model() for a, b in zip(slow, fast, strict=True))
    print("  records equal" if same else "  RECORDS DIFFER")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
