#!/usr/bin/env python
"""Benchmark the judge runner end to end: the real `judgebench run` CLI against a local
OpenAI-compatible server (tests/openai_server.py, in its own process) with configurable
latency and faults.

    python scripts/bench_runner.py --scenario clean     # 2,000 calls, 500 ms, concurrency 64
    python scripts/bench_runner.py --scenario faults    # 10% 429/500, 5% malformed, 2% hangs
    python scripts/bench_runner.py --scenario kill      # SIGKILL the CLI mid-run, then rerun
    python scripts/bench_runner.py --scenario rerun     # a finished run again: zero calls
    python scripts/bench_runner.py --scenario compare   # a plain openai-SDK asyncio loop vs judgebench, + cached rerun
    python scripts/bench_runner.py --scenario all
    python scripts/bench_runner.py --scenario clean --transport litellm   # force litellm.acompletion

Prints, per run: wall time of the CLI process, the server's active window (first request
to last response), the ideal N x L / C and both ratios, the calls the server saw,
duplicate answered prompts, and answered / invalid / failed from results.json.
Every option (--n, --latency, --concurrency, --error-rate, ...) overrides the scenario's.

`compare` runs, on the same server in one invocation, a plain asyncio loop on the openai
SDK (PLAIN_LOOP below, ~30 lines, in its own process) and the judgebench CLI, then the
CLI again on the finished run's cache, and prints side by side: the delay from launch to
the first request, the active window (first request to last response) against the ideal
N x L / C, the tail (last response to process exit) and the wall time. The CLI runs get a
fresh $JUDGEBENCH_CACHE_DIR, so the first one reads the data file through `datasets`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from openai_server import Behaviour, FakeOpenAIServer, ServerStats  # noqa: E402

SCENARIOS: dict[str, dict[str, float]] = {
    "clean": dict(n=2000, latency=0.5, concurrency=64, timeout=30),
    "faults": dict(
        n=2000, latency=0.5, concurrency=64, timeout=5, error_rate=0.10, malformed_rate=0.05, hang_rate=0.02
    ),
    "kill": dict(n=2000, latency=0.5, concurrency=64, timeout=30),
    "rerun": dict(n=2000, latency=0.5, concurrency=64, timeout=30),
    "compare": dict(n=2000, latency=0.5, concurrency=64, timeout=30),
}

# The baseline: what a user would write by hand with the openai SDK. Run as
# `python -c PLAIN_LOOP API_BASE DATA CONCURRENCY`; one request per pair, same server.
PLAIN_LOOP = """
import asyncio, json, sys

import openai


async def main(api_base, data, concurrency):
    client = openai.AsyncOpenAI(base_url=api_base, api_key="sk-bench", max_retries=0)
    with open(data, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    slots = asyncio.Semaphore(concurrency)

    async def one(row):
        prompt = f"{row['question']}\\n[A] {row['responseA']}\\n[B] {row['responseB']}\\nVerdict?"
        async with slots:
            reply = await client.chat.completions.create(
                model="bench-judge", messages=[{"role": "user", "content": prompt}], timeout=30
            )
        return reply.choices[0].message.content

    answers = await asyncio.gather(*(one(row) for row in rows))
    await client.close()
    print(sum(1 for a in answers if a), "answers")


asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
"""
SUBJECTS = ["Natural Science", "Healthcare", "Humanities & Social Sciences", "Engineering"]
TYPES = ["Conceptual Explanation", "State-of-the-Art Assessment", "Challenges & Limitations"]


def write_pairs(path: Path, n: int, seed: int) -> None:
    """N synthetic SciArena-format pairs (balanced A/B votes, four disciplines)."""
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as handle:
        for i in range(n):
            authors = [f"Author{rng.randrange(1000)} et al. 20{rng.randrange(10, 25)}a" for _ in range(3)]
            body = " ".join(f"Finding {k} about topic {i} is supported by ({a})." for k, a in enumerate(authors))
            row = {
                "id": f"bench-{i:05d}",
                "question": f"Synthetic research question number {i}: what does the literature say about topic {i}?",
                "responseA": f"Answer A to question {i}. {body} " + "Detail. " * rng.randrange(20, 80),
                "responseB": f"Answer B to question {i}. {body} " + "Detail. " * rng.randrange(20, 80),
                "modelA": f"model-{rng.randrange(8)}",
                "modelB": f"model-{rng.randrange(8)}",
                "vote": "A" if i % 2 == 0 else "B",
                "citation_a": [{"concise_authors": a, "title": f"Paper by {a}"} for a in authors],
                "citation_b": [{"concise_authors": a, "title": f"Paper by {a}"} for a in authors[:2]],
                "question_type": TYPES[i % len(TYPES)],
                "subject": SUBJECTS[i % len(SUBJECTS)],
            }
            handle.write(json.dumps(row) + "\n")


@dataclass
class CliRun:
    wall_s: float
    returncode: int
    stderr: str
    started_at: float  # time.time() at launch
    killed_at: float | None = None
    dead_at: float | None = None


def cli_command(args: argparse.Namespace, api_base: str, data: Path, out: Path, cache: Path) -> list[str]:
    exe = shutil.which("judgebench", path=str(Path(sys.executable).parent)) or "judgebench"
    return [
        exe,
        "run",
        "--tasks",
        "sciarena_eval",
        "--judge",
        "openai/bench-judge",
        "--judge-args",
        f"api_base={api_base},api_key=sk-bench" + (f",transport={args.transport}" if args.transport != "auto" else ""),
        "--dataset-path",
        str(data),
        "--output-path",
        str(out),
        "--concurrency",
        str(int(args.concurrency)),
        "--timeout",
        str(args.timeout),
        "--cache-dir",
        str(cache),
        "--quiet",
        "--no-swap",
        "--reask",
        str(args.reask),
    ]


def run_cli(cmd: list[str], kill_after: float | None = None) -> CliRun:
    """Run the CLI; with kill_after, SIGKILL it that many seconds after its first request."""
    started_at = time.time()
    started = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed_at = dead_at = None
    if kill_after is not None:
        time.sleep(kill_after)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            killed_at = time.time()
            proc.wait()
            dead_at = time.time()
    _, err = proc.communicate()
    return CliRun(time.monotonic() - started, proc.returncode, err, started_at, killed_at, dead_at)


def counts(out: Path) -> dict[str, int]:
    path = out / "results.json"
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    c = data.get("counts", {})
    return {k: c.get(k) for k in ("calls", "answered", "invalid", "failed", "cached")}


def phases(args: argparse.Namespace, run: CliRun, stats: ServerStats) -> dict:
    """Launch -> first request, first request -> last response (vs ideal), last response -> exit."""
    ideal = args.n * args.latency / args.concurrency
    mine = ServerStats([r for r in stats.requests if r.started >= run.started_at])
    first, last = mine.first_request(), mine.last_response()
    ended_at = run.started_at + run.wall_s
    row: dict = {"wall_s": round(run.wall_s, 2), "server_calls": mine.total, "exit": run.returncode}
    if first is not None and last is not None:
        row.update(
            first_request_s=round(first - run.started_at, 2),
            active_s=round(last - first, 2),
            ideal_over_active=round(ideal / (last - first), 3),
            tail_s=round(ended_at - last, 2),
        )
    return row


def compare(args: argparse.Namespace, server: FakeOpenAIServer, data: Path, folder: Path, cache: Path) -> bool:
    """The plain openai-SDK loop, judgebench, and judgebench's cached rerun, side by side."""
    # a fresh user cache folder: the first judgebench run reads the data through `datasets` (no stored
    # rows from an earlier invocation, example_cache.py); the cached rerun may use what it stored
    os.environ["JUDGEBENCH_CACHE_DIR"] = str(folder / "user-cache")
    rows = {}
    plain = run_cli([sys.executable, "-c", PLAIN_LOOP, server.api_base, str(data), str(int(args.concurrency))])
    rows["plain openai-SDK loop"] = phases(args, plain, server.stats())
    server.reset()
    first = run_cli(cli_command(args, server.api_base, data, folder / "out1", cache))
    rows[f"judgebench ({args.transport})"] = phases(args, first, server.stats())
    server.reset()
    again = run_cli(cli_command(args, server.api_base, data, folder / "out2", cache))
    rows["judgebench cached rerun"] = phases(args, again, server.stats())
    print(f"ideal N x L / C = {args.n * args.latency / args.concurrency:.2f} s")
    columns = ["first_request_s", "active_s", "ideal_over_active", "tail_s", "wall_s", "server_calls", "exit"]
    print(f"{'':28}" + "".join(f"{c:>18}" for c in columns))
    for name, row in rows.items():
        print(f"{name:28}" + "".join(f"{str(row.get(c, '-')):>18}" for c in columns))
    for run in (plain, first, again):
        if run.returncode != 0:
            print(run.stderr[-3000:], file=sys.stderr)
    return all(r.returncode == 0 for r in (plain, first, again)) and rows["judgebench cached rerun"]["server_calls"] == 0


def report(title: str, args: argparse.Namespace, run: CliRun, stats: ServerStats, out: Path | None) -> dict:
    ideal = args.n * args.latency / args.concurrency
    mine = ServerStats([r for r in stats.requests if r.started >= run.started_at])
    first, last = mine.first_request(), mine.last_response()
    active = (last - first) if first is not None and last is not None else None
    row = {
        "run": title,
        "wall_s": round(run.wall_s, 2),
        "ideal_s": round(ideal, 2),
        "ideal/wall": round(ideal / run.wall_s, 3) if run.wall_s else None,
        "active_s": round(active, 2) if active else None,
        "ideal/active": round(ideal / active, 3) if active else None,
        "server_calls": mine.total,
        "server_calls_all_runs": stats.total,
        "answered_calls": stats.answered(),
        "unique_prompts_answered": len(stats.answered_by_prompt()),
        "duplicate_answers": stats.duplicate_answers(),
        "outcomes": dict(stats.outcomes()),
        "exit": run.returncode,
    }
    if out is not None:
        row["results"] = counts(out)
    print(json.dumps(row))
    if run.returncode not in (0, -signal.SIGKILL):
        print(run.stderr[-3000:], file=sys.stderr)
    return row


def measure_startup(args: argparse.Namespace, server: FakeOpenAIServer, data: Path, folder: Path) -> float:
    """Seconds from launching the CLI to its first request (a 1-example run, no cache)."""
    probe = folder / "probe.jsonl"
    probe.write_text(data.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    before = len(server.stats().requests)
    run = run_cli(cli_command(args, server.api_base, probe, folder / "probe-out", folder / "probe-cache"))
    requests = server.stats().requests[before:]
    server.reset()
    return (requests[0].started - run.started_at) if requests else 5.0


def behaviour(args: argparse.Namespace) -> Behaviour:
    return Behaviour(
        latency_s=args.latency,
        jitter_s=args.jitter,
        error_rate=args.error_rate,
        retry_after_s=args.retry_after,
        hang_rate=args.hang_rate,
        malformed_rate=args.malformed_rate,
        answer="@hash",
    )


def scenario(name: str, args: argparse.Namespace, work: Path) -> bool:
    print(f"== {name}: n={args.n} latency={args.latency}s concurrency={args.concurrency} "
          f"errors={args.error_rate} malformed={args.malformed_rate} hangs={args.hang_rate} timeout={args.timeout}s "
          f"transport={args.transport}")
    folder = work / name
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "pairs.jsonl"
    write_pairs(data, args.n, args.seed)
    cache = folder / "cache"
    ok = True
    with FakeOpenAIServer(behaviour(args), mode="process", seed=args.seed) as server:
        out1 = folder / "out1"
        cmd = cli_command(args, server.api_base, data, out1, cache)
        if name == "compare":
            ok = compare(args, server, data, folder, cache)
        elif name == "kill":
            # a random point of the run: the CLI's start-up plus 10-90% of the ideal time
            startup = measure_startup(args, server, data, folder)
            delay = startup + random.Random(args.seed).uniform(0.1, 0.9) * args.n * args.latency / args.concurrency
            first = run_cli(cmd, kill_after=delay)
            killed = server.stats()
            report(f"SIGKILL after {delay:.1f}s", args, first, killed, None)
            out2 = folder / "out2"
            second = run_cli(cli_command(args, server.api_base, data, out2, cache))
            stats = server.stats()
            row = report("rerun after kill", args, second, stats, out2)
            unique = len(stats.answered_by_prompt())
            print(f"answered calls in total {stats.answered()} vs unique prompts {unique}: "
                  f"{stats.duplicate_answers()} repeated")
            if stats.duplicate_answers() and first.killed_at is not None:
                repeated = {p for p, k in stats.answered_by_prompt().items() if k > 1}
                firsts = [
                    r.ended for r in killed.requests
                    if r.prompt_hash in repeated and r.outcome == "answered" and r.ended is not None
                ]
                during = sum(1 for t in firsts if first.killed_at <= t <= (first.dead_at or t) + 0.01)
                before = sum(1 for t in firsts if t < first.killed_at)
                print(f"  of the repeated: {during} answered after the SIGKILL while the process was dying "
                      f"({(first.dead_at or 0) - first.killed_at:.3f}s), {before} answered up to "
                      f"{max((first.killed_at - t for t in firsts if t < first.killed_at), default=0):.3f}s "
                      "before the kill and not yet committed")
            ok = second.returncode == 0 and row["results"].get("answered", 0) + row["results"].get(
                "invalid", 0
            ) + row["results"].get("failed", 0) == args.n
        else:
            first = run_cli(cmd)
            row = report("run", args, first, server.stats(), out1)
            ok = first.returncode == 0
            res = row.get("results", {})
            if res:
                total = (res.get("answered") or 0) + (res.get("invalid") or 0) + (res.get("failed") or 0)
                print(f"judgments: {total} of {args.n} accounted for (answered {res.get('answered')}, "
                      f"invalid {res.get('invalid')}, failed {res.get('failed')})")
                ok = ok and total == args.n
            if name == "rerun":
                before = server.stats().total
                again = run_cli(cli_command(args, server.api_base, data, folder / "out2", cache))
                after = server.stats()
                print(json.dumps({"run": "second run", "wall_s": round(again.wall_s, 2),
                                  "server_calls": after.total - before, "exit": again.returncode,
                                  "results": counts(folder / "out2")}))
                ok = ok and again.returncode == 0 and after.total == before
    print(f"== {name}: {'OK' if ok else 'PROBLEM'}\n")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", choices=[*SCENARIOS, "all"], default="clean")
    parser.add_argument("--n", type=int)
    parser.add_argument("--latency", type=float, help="server latency, seconds")
    parser.add_argument("--jitter", type=float, default=0.0, help="latency +- jitter, seconds")
    parser.add_argument("--concurrency", type=int)
    parser.add_argument("--timeout", type=float, help="--timeout passed to the CLI")
    parser.add_argument("--error-rate", type=float, help="share of 429/500 answers")
    parser.add_argument("--retry-after", type=float, default=1.0, help="Retry-After on 429, seconds")
    parser.add_argument("--hang-rate", type=float, help="share of requests never answered")
    parser.add_argument("--malformed-rate", type=float, help="share of answers without a verdict")
    parser.add_argument("--reask", type=int, default=1)
    parser.add_argument(
        "--transport",
        choices=["auto", "openai", "litellm"],
        default="auto",
        help="judge transport (auto = the openai SDK for this OpenAI-compatible server)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, help="keep the data, runs and cache here")
    args = parser.parse_args()

    names = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    work = args.workdir or Path(tempfile.mkdtemp(prefix="judgebench-bench-"))
    ok = True
    for name in names:
        run_args = argparse.Namespace(**vars(args))
        defaults = dict(error_rate=0.0, malformed_rate=0.0, hang_rate=0.0) | SCENARIOS[name]
        for key, value in defaults.items():
            if getattr(run_args, key, None) is None:
                setattr(run_args, key, value)
        ok = scenario(name, run_args, work) and ok
    if args.workdir is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
