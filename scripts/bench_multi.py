#!/usr/bin/env python
"""How a multi-judge run shares --concurrency: judgebench's turns against a plain baseline.

Three judges (models with different latencies on one local OpenAI-compatible server,
tests/openai_server.py in its own process) judge the same N pairs (2N calls each):

  turns     judgebench.evaluate_judges: the judges take turns, each with the whole --concurrency C
  split     the plain alternative: the three single-judge runs at once (threads), C/3 slots each
  ideal     the work divided by the slots: sum over judges of 2N x latency / C (a perfect
            dispatcher over the union of the requests cannot do better while C binds)

Printed side by side: wall time, the server's active window (first request to last response),
the ideal, most calls the server saw in flight, and calls seen. Each scenario gets a fresh cache.

    python scripts/bench_multi.py                     # N=150, latencies 0.02/0.05/0.2 s, C=16
    python scripts/bench_multi.py --n 300 --concurrency 32
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "src"))

from helpers import sci_row, write_jsonl  # noqa: E402
from openai_server import Behaviour, FakeOpenAIServer  # noqa: E402

from judgebench.api import evaluate, evaluate_judges  # noqa: E402
from judgebench.calls import RunnerOptions  # noqa: E402

MODELS = {"fast": 0.02, "medium": 0.05, "slow": 0.2}


def _judges(server: FakeOpenAIServer) -> list[tuple[str, dict[str, str]]]:
    return [(f"openai/{m}", {"api_base": server.api_base, "api_key": "sk-bench"}) for m in MODELS]


def _turns(server: FakeOpenAIServer, data: Path, out: Path, c: int) -> None:
    runner = RunnerOptions(concurrency=c, progress=False, cache_dir=out / "cache")
    evaluate_judges("sciarena_eval", _judges(server), output_path=out / "runs", dataset_path=str(data),
                    runner=runner, n_resamples=0)


def _split(server: FakeOpenAIServer, data: Path, out: Path, c: int) -> None:
    share = max(1, c // len(MODELS))
    runner = RunnerOptions(concurrency=share, progress=False, cache_dir=out / "cache")
    threads = [
        threading.Thread(target=evaluate, args=("sciarena_eval", judge), kwargs=dict(
            output_path=out / judge.replace("/", "-"), judge_args=args, dataset_path=str(data),
            runner=runner, n_resamples=0))
        for judge, args in _judges(server)
    ]
    for judge, _ in _judges(server):  # made beforehand: the runs' write checks would race on a shared parent
        (out / judge.replace("/", "-")).mkdir(parents=True)
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=150, help="pairs (2 calls each per judge)")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency-scale", type=float, default=1.0, help="multiply every model's latency")
    args = parser.parse_args()
    latencies = {m: latency * args.latency_scale for m, latency in MODELS.items()}
    models = {m: Behaviour(latency_s=latency) for m, latency in latencies.items()}
    ideal = sum(2 * args.n * latency for latency in latencies.values()) / args.concurrency
    print(f"{len(MODELS)} judges x {2 * args.n} calls, latencies {latencies} s, --concurrency {args.concurrency}")
    print(f"{'scenario':<8} {'wall s':>8} {'active s':>9} {'ideal s':>8} {'max in flight':>14} {'calls':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        data = write_jsonl(Path(tmp) / "eval.jsonl", [sci_row(i, "A" if i % 2 else "B") for i in range(args.n)])
        for name, scenario in (("turns", _turns), ("split", _split)):
            with FakeOpenAIServer(Behaviour(status=404), models=models, mode="process") as server:
                started = time.perf_counter()
                scenario(server, data, Path(tmp) / name, args.concurrency)
                wall = time.perf_counter() - started
                stats = server.stats()
            active = (stats.last_response() or 0) - (stats.first_request() or 0)
            print(f"{name:<8} {wall:>8.2f} {active:>9.2f} {ideal:>8.2f} {stats.max_in_flight():>14} {stats.total:>6}")


if __name__ == "__main__":
    main()
