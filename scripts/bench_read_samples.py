"""Benchmark: reading a run's samples.jsonl into lean records, the two decoders side by side.

    python scripts/bench_read_samples.py RUN_DIR/samples.jsonl [--repeat 5]

Alternates, in one process (so a machine whose speed drifts over minutes affects both alike):
- `pydantic`: every line validated by `JudgmentRecord` then held lean (what `score`/`report` did before),
- `canonical`: `read_samples(path, lean=True)` as it is now (msgspec for the lines `run` writes),
- `baseline`: a plain `json.loads` of every line (no validation, no records),
and prints the CPU seconds of each (min and median), then checks that both decoders gave equal records.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from pathlib import Path

from judgebench.files import read_models_jsonl
from judgebench.lean_records import LeanRecord
from judgebench.records import JudgmentRecord
from judgebench.rundir import read_samples


def _pydantic(path: Path) -> list:
    return read_models_jsonl(path, JudgmentRecord, hold=LeanRecord.of)


def _canonical(path: Path) -> list:
    return read_samples(path, lean=True)


def _baseline(path: Path) -> list:
    with path.open("rb") as handle:
        return [json.loads(line) for line in handle if not line.isspace()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("samples", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    methods = {"pydantic": _pydantic, "canonical": _canonical, "baseline": _baseline}
    seconds: dict[str, list[float]] = {name: [] for name in methods}
    kept: dict[str, list] = {}
    for _ in range(args.repeat):
        for name, read in methods.items():
            gc.collect()
            start = time.process_time()
            rows = read(args.samples)
            seconds[name].append(time.process_time() - start)
            if name != "baseline":
                kept[name] = rows
            del rows
    n = len(kept["canonical"])
    print(f"== {args.samples}: {n:,} judgments, {args.repeat} rounds alternated; CPU seconds")
    for name, values in seconds.items():
        print(f"  {name:9s}  min {min(values):6.2f} s   median {statistics.median(values):6.2f} s")
    same = all(a.to_model() == b.to_model() for a, b in zip(kept["pydantic"], kept["canonical"], strict=True))
    print("  records equal" if same else "  RECORDS DIFFER")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
