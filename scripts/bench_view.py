"""Benchmark `judgebench view` on a large run (issue 31): a synthetic run of N judgments (N/2 examples, both
orders; texts of about 1.5 KB per line, like the demo's), then, each timed:

  baseline   json.loads of every samples.jsonl line (what a page that read every record whole would pay)
  index      build_view: results.json + the index fields of every line (msgspec, unneeded fields skipped)
  example    one example's details read on demand by byte offset (what the server does per page)
  bundle     write_bundle: the static bundle, every example's details in data files of at most 2 MB

Wall and CPU seconds are printed: on a shared machine the CPU figure is the one to compare.

The run has no prompt.yaml copy, so no prompt is re-rendered (a run with one pays a Jinja render and a hash
per judgment in `bundle`, not in `index`). Figures: docs/lab/viewer-scale.md.

Usage: python scripts/bench_view.py [--judgments 100000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from pathlib import Path

from judgebench.core.files import write_json
from judgebench.core.records import Counts, DatasetInfo, RunConfig, RunResult, Usage
from judgebench.publish.viewer.bundle import write_bundle
from judgebench.publish.viewer.data import build_view, example_detail

WORDS = ["the", "judge", "prefers", "a", "longer", "answer", "with", "more", "citations", "while", "experts", "weigh", "accuracy", "and", "scope"]


def text(rng: random.Random, n_chars: int) -> str:
    out, size = [], 0
    while size < n_chars:
        word = rng.choice(WORDS)
        out.append(word)
        size += len(word) + 1
    return " ".join(out)


def make_run(folder: Path, judgments: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "samples.jsonl").open("w", encoding="utf-8") as out:
        for i in range(judgments // 2):
            question, a, b = text(rng, 150), text(rng, 650), text(rng, 650)
            label = rng.choice("AABBT").replace("T", "TIE")
            votes = {f"u{k}": [rng.choice(["A", "B"])] for k in range(3)} if i % 4 == 0 else None
            for order in ("AB", "BA"):
                roll = rng.random()
                status = "ANSWERED" if roll < 0.95 else "INVALID" if roll < 0.98 else "FAILED"
                verdict = rng.choice(["A", "B", "TIE"]) if status == "ANSWERED" else None
                shown = verdict if order == "AB" or verdict in (None, "TIE") else {"A": "B", "B": "A"}[verdict]
                out.write(json.dumps({
                    "task": "bench", "example_id": f"ex-{i:06d}", "dimension": "overall", "order": order,
                    "judge": "bench/judge", "prompt_hash": f"{i:064x}", "status": status,
                    "raw": f"Reasoning first. {text(rng, 200)} [[{shown}]]" if status != "FAILED" else None,
                    "earlier_raw": [], "verdict_shown": shown, "verdict": verdict, "label": label,
                    "tokens_in": 900, "tokens_out": 60, "cost_usd": 0.0011, "latency_s": round(rng.random() * 3, 3),
                    "attempts": 1, "cached": False, "error": "timeout" if status == "FAILED" else None,
                    "failure": "error" if status == "FAILED" else None, "repeat": 0,
                    "invalid_reason": "truncated" if status == "INVALID" and roll > 0.97 else None,
                    "finish_reason": "stop", "reasoning": None, "reasoning_tokens": None, "served_model": None,
                    "model_a": f"m{i % 7}", "model_b": f"m{(i + 3) % 7}",
                    "slices": {"subject": ("bio", "cs", "physics", "law")[i % 4]},
                    "length_a": len(a), "length_b": len(b), "citations_a": None, "citations_b": None,
                    "question": question, "response_a": a, "response_b": b, "votes": votes,
                }) + "\n")
    config = RunConfig(task="bench", task_version="1", dataset=DatasetInfo(source="synthetic", split="test",
                       fingerprint="f"), judge="bench/judge", prompt_template="p", prompt_template_hash="h",
                       judgebench_version="0", started_at="2026-01-01T00:00:00Z")
    write_json(folder / "results.json", RunResult(config=config, metrics={}, usage=Usage(), counts=Counts(
        examples=judgments // 2, calls=judgments, answered=judgments, invalid=0, failed=0, coverage=1.0)).model_dump(mode="json"))


def timed(label: str, fn):
    started, cpu = time.perf_counter(), time.process_time()
    value = fn()
    print(f"{label:<44} {time.perf_counter() - started:7.2f} s wall  {time.process_time() - cpu:7.2f} s CPU")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judgments", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="write the run and bundle here and keep them")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-view-"))
    try:
        run = root / "run"
        timed(f"generate {args.judgments:,} judgments", lambda: make_run(run, args.judgments))
        size = (run / "samples.jsonl").stat().st_size
        print(f"samples.jsonl: {size / 1e6:.0f} MB")

        def baseline() -> int:
            with (run / "samples.jsonl").open(encoding="utf-8") as lines:
                return len([json.loads(line) for line in lines if line.strip()])

        timed("baseline: json.loads every line", baseline)
        view = timed("index: build_view (served page ready)", lambda: build_view([run]))
        middle = len(view.rows) // 2
        timed("one example on demand (x100, total)", lambda: [example_detail(view, middle + k) for k in range(100)])
        chunks = timed("bundle: write_bundle (2 MB chunks)", lambda: write_bundle(view, root / "bundle"))
        files = list((root / "bundle" / "data").glob("*.js"))
        sizes = [f.stat().st_size for f in files]
        print(f"bundle: {len(files)} data files ({chunks['index_chunks']} index, {chunks['example_chunks']} example), "
              f"{sum(sizes) / 1e6:.0f} MB, largest {max(sizes) / 1e6:.2f} MB; index data "
              f"{sum(f.stat().st_size for f in files if f.name.startswith('index')) / 1e6:.1f} MB")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
