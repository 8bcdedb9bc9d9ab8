"""Many annotators voting at once against a server process on SQLite and on PostgreSQL, the server
killed with SIGKILL mid-stream, restarted, and every unacknowledged vote resent: each vote the
server acknowledged is stored, and every vote is stored exactly once."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest
from annotate_helpers import make_store, pair_rows, post_vote, served

from judgebench.human.annotate.assign import shown_order


def _start(location: str) -> tuple[subprocess.Popen[str], str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.Popen([sys.executable, "-m", "judgebench", "annotate", "--db", location, "--port", "0",
                             "--target-votes", "8"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    assert match, (line, proc.stderr.read() if proc.stderr else "")
    return proc, f"http://127.0.0.1:{match.group(1)}"


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_concurrent_votes_survive_a_server_kill_exactly_once(kind: str, tmp_path: Path) -> None:
    store = make_store(kind, tmp_path)
    pairs = pair_rows(40)
    store.add_pairs(pairs)
    names = [f"ann{i}" for i in range(8)]
    tokens = {name: store.add_annotator(name, []) for name in names}
    # each annotator's votes, made once; two threads per annotator send the SAME votes (a double submit race)
    planned = {name: [(f"{name}-{uuid.uuid4()}", p["id"], "LEFT RIGHT TIE BOTH_BAD".split()[i % 4]) for i, p in enumerate(pairs)]
               for name in names}
    # the server takes votes only on pairs it showed: every pair is shown to every annotator first
    pids = {(name, p["id"]): served(store, tokens[name], p["id"]) for name in names for p in pairs}
    acked: Counter[str] = Counter()
    errors: list[object] = []  # an assert inside a thread only warns: collect and check after the join
    lock = threading.Lock()
    proc, base = _start(store.location)

    def voter(name: str) -> None:
        for vote_id, pair_id, choice in planned[name]:
            fields = {"pair_id": pids[(name, pair_id)], "round": "1", "vote_id": vote_id, "choice": choice}
            try:
                status, body = post_vote(base, tokens[name], fields, timeout=10)
            except OSError:  # the server was killed: this vote is unacknowledged
                return
            if status != 200:  # never a conflict: both threads send one vote id per pair
                with lock:
                    errors.append((vote_id, status, body))
                return
            with lock:
                acked[vote_id] += 1

    threads = [threading.Thread(target=voter, args=(name,)) for name in names for _ in range(2)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 120
    while len(acked) < 150 and time.monotonic() < deadline:
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)  # mid-stream: requests in flight on all 16 threads
    proc.wait()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors[:3]
    all_votes = {vote_id: (name, pair_id) for name in names for vote_id, pair_id, _ in planned[name]}
    assert 150 <= len(acked) < len(all_votes)
    stored = Counter(row["vote_id"] for row in store.votes())
    assert set(acked) <= set(stored)  # every acknowledged vote survived the kill
    assert max(stored.values()) == 1

    proc, base = _start(store.location)  # restart on the same database and resend what was not acknowledged
    try:
        for name in names:
            for vote_id, pair_id, choice in planned[name]:
                if vote_id not in acked:
                    status, body = post_vote(base, tokens[name], {"pair_id": pids[(name, pair_id)], "round": "1", "vote_id": vote_id,
                                                                  "choice": choice})
                    assert status == 200 and body["status"] in ("stored", "duplicate")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    rows = store.votes()
    assert Counter(r["vote_id"] for r in rows) == Counter(set(all_votes))  # 8 x 40 = 320 votes, each exactly once
    assert len({(r["annotator"], r["pair_id"]) for r in rows}) == 320
    # and each stored vote is the one sent (page side -> stored position through the recorded order)
    sent = {vote_id: (name, pair_id, choice) for name in names for vote_id, pair_id, choice in planned[name]}
    for row in rows:
        name, pair_id, choice = sent[row["vote_id"]]
        left = "A" if row["shown_order"] == "AB" else "B"
        want = {"LEFT": left, "RIGHT": "B" if left == "A" else "A"}.get(choice, choice)
        assert (row["annotator"], row["pair_id"], row["choice"]) == (name, pair_id, want)
        assert row["shown_order"] == shown_order(store.secret, name, pair_id, 1)
