"""Benchmark the voting server (issue 32): N annotators voting at once over loopback.

Each annotator is a thread with its own keep-alive connection that does what the page does: GET /
(the server picks the pair, records the showing and renders the page), then POST /vote with the
page's opaque pair id and vote id (Bearer token, JSON answer). The server is `judgebench annotate`
in its own process (uvicorn), on SQLite (default) or a postgresql:// URL (--db).

Printed side by side: the latency of a vote over HTTP (p50, p95, max), of a page, votes per second,
and a plain baseline, the same number of votes cast straight into the store (Store.cast: the same
transaction, the same write lock, no HTTP) from as many threads. Then the check that nothing was
lost: every acknowledged vote is stored, exactly once.

Usage: python scripts/bench_annotate.py [--annotators 50] [--votes 20] [--db postgresql://...]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from urllib.parse import urlencode

from judgebench.human.annotate.store import Store


def pairs(n: int) -> list[dict]:
    text = "A response of a few paragraphs, with **Markdown**, a list:\n\n- one\n- two\n\nand $x^2$ math. " * 6
    return [{"id": f"p{i}", "question": f"Question {i}?", "response_a": text + f" A{i}", "response_b": text + f" B{i}",
             "model_a": "m1", "model_b": "m2", "slices": {"field": "bio" if i % 2 else "phys"}} for i in range(n)]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else float("nan")


def field(page: str, name: str) -> str:
    return page.split(f"name='{name}' value='")[1].split("'")[0]


def annotator(port: int, token: str, votes: int, out: dict, lock: threading.Lock, start: threading.Barrier) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.connect()
    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as a browser does: no Nagle delay on our side
    auth = {"Authorization": f"Bearer {token}"}
    pages, latencies, acked, refused = [], [], [], []
    start.wait()
    for _ in range(votes):
        t0 = time.perf_counter()
        conn.request("GET", "/", headers=auth)
        response = conn.getresponse()
        page = response.read().decode()
        pages.append(time.perf_counter() - t0)
        if "name='pair_id'" not in page:
            break  # all done
        fields = {"pair_id": field(page, "pair_id"), "round": field(page, "round"), "vote_id": field(page, "vote_id"),
                  "choice": "LEFT"}
        t1 = time.perf_counter()
        conn.request("POST", "/vote", body=urlencode(fields), headers={
            **auth, "Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded"})
        response = conn.getresponse()
        body = json.loads(response.read() or b"{}")
        latencies.append(time.perf_counter() - t1)
        if response.status == 200:
            acked.append(fields["vote_id"])
        else:
            refused.append((response.status, body.get("error")))
    conn.close()
    with lock:
        out["pages"] += pages
        out["votes"] += latencies
        out["acked"] += acked
        out["refused"] += refused


def baseline(store: Store, names: list[str], votes: int, n_pairs: int) -> tuple[list[float], float]:
    """The same number of votes cast straight into the store from one thread per annotator."""
    latencies: list[float] = []
    lock = threading.Lock()
    start = threading.Barrier(len(names))

    def cast(k: int, name: str) -> None:
        mine = []
        start.wait()
        for i in range(votes):
            pair_id = f"p{(k * votes + i) % n_pairs}"
            t0 = time.perf_counter()
            store.cast({"vote_id": str(uuid.uuid4()), "pair_id": pair_id, "annotator": name, "round": 1, "choice": "A",
                        "choices": None, "shown_order": "AB", "shown_at": None, "submitted_at": "2026-12-01T00:00:00Z",
                        "seconds": None, "comment": None}, None)
            mine.append(time.perf_counter() - t0)
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=cast, args=(k, n)) for k, n in enumerate(names)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--votes", type=int, default=20, help="votes per annotator")
    parser.add_argument("--target", type=int, default=3)
    parser.add_argument("--db", help="postgresql:// URL (default: a SQLite file in a temporary folder)")
    args = parser.parse_args()
    n_pairs = args.annotators * args.votes // args.target + args.annotators * 2
    with tempfile.TemporaryDirectory() as tmp:
        location = args.db or str(Path(tmp) / "votes.sqlite")
        store = Store(location)
        store.add_pairs(pairs(n_pairs))
        names = [f"ann{i:03d}" for i in range(args.annotators)]
        tokens = {name: store.add_annotator(name, []) for name in names}
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
        proc = subprocess.Popen([sys.executable, "-m", "judgebench", "annotate", "--db", location, "--port", "0",
                                 "--target-votes", str(args.target)], env=env, stdout=subprocess.PIPE, text=True)
        try:
            line = proc.stdout.readline() if proc.stdout else ""
            match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            assert match, line
            port = int(match.group(1))
            out: dict = {"pages": [], "votes": [], "acked": [], "refused": []}
            lock, start = threading.Lock(), threading.Barrier(args.annotators)
            threads = [threading.Thread(target=annotator, args=(port, tokens[n], args.votes, out, lock, start)) for n in names]
            t0 = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - t0
        finally:
            proc.terminate()
            proc.wait(30)
        rows = store.votes()
        stored = [v["vote_id"] for v in rows]
        most = max(Counter(v["pair_id"] for v in rows if v["round"] == 1).values(), default=0)
        lost = set(out["acked"]) - set(stored)
        twice = len(stored) - len(set(stored))
        base_store = store if args.db else Store(Path(tmp) / "baseline.sqlite")  # PostgreSQL: the same database, other names
        base_store.add_pairs(pairs(n_pairs))
        base, base_wall = baseline(base_store, [f"base{i:03d}" for i in range(args.annotators)], args.votes, n_pairs)
    kind = "PostgreSQL" if args.db else "SQLite (WAL, synchronous=FULL)"
    ms = 1000.0
    print(f"{args.annotators} annotators x {args.votes} votes over loopback, {n_pairs} pairs, target {args.target}, {kind}, "
          f"{os.cpu_count()} CPUs")
    print(f"{'':34} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'votes/s':>8}")
    print(f"{'vote over HTTP (POST /vote)':34} {statistics.median(out['votes']) * ms:8.1f} {pct(out['votes'], .95) * ms:8.1f} "
          f"{max(out['votes']) * ms:8.1f} {len(out['votes']) / wall:8.1f}")
    print(f"{'page over HTTP (GET /, next pair)':34} {statistics.median(out['pages']) * ms:8.1f} {pct(out['pages'], .95) * ms:8.1f} "
          f"{max(out['pages']) * ms:8.1f}")
    print(f"{'baseline: Store.cast, no HTTP':34} {statistics.median(base) * ms:8.1f} {pct(base, .95) * ms:8.1f} "
          f"{max(base) * ms:8.1f} {len(base) / base_wall:8.1f}")
    refused = {}
    for status, reason in out["refused"]:
        refused[f"{status} {reason}"] = refused.get(f"{status} {reason}", 0) + 1
    print(f"acknowledged {len(out['acked'])}, stored {len(stored)}, lost {len(lost)}, stored twice {twice}, "
          f"refused {len(out['refused'])} {refused or ''}")
    print(f"most votes on one pair: {most} (target {args.target})")
    return 0 if not lost and not twice and most <= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
