"""Issue 27 item 5: two Ctrl-C 0.3 s apart during the calls, sent to the whole process group as a terminal
does. With or without the call worker, the run must write its partial results (samples.jsonl with every
planned judgment, results.json marked partial) and exit 1, with no traceback. Every judgment is accounted for:
a call the server saw is answered or FAILED `in_flight` (sent, its answer not waited for), never `not_attempted`
(which had been recorded for the calls in flight too); one it never saw is `not_attempted`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from openai_server import Behaviour, FakeOpenAIServer

import judgebench


@pytest.mark.parametrize("worker, repeats", [("1", 1), ("0", 1), ("1", 2)])
def test_two_interrupts_still_write_partial_results(tmp_path, worker, repeats):
    out = tmp_path / "out"
    src = str(Path(judgebench.__file__).parents[1])
    with FakeOpenAIServer(Behaviour(latency_s=1.5, answer="[[A]]")) as server:
        proc = subprocess.Popen(
            [sys.executable, "-m", "judgebench", "run", "--tasks", "sciarena_eval", "--judge", "openai/fake-model",
             "--judge-args", f"api_base={server.api_base},api_key=sk-test", "--demo", "--limit", "10",
             "--concurrency", "2", "--output-path", str(out), "--cache-dir", str(tmp_path / "cache"), "--quiet",
             "--repeats", str(repeats)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
            env={**os.environ, "PYTHONPATH": src, "JUDGEBENCH_CALL_WORKER": worker},
        )
        try:
            deadline = time.monotonic() + 120
            while server.stats().total < 1 and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.05)
            os.killpg(proc.pid, signal.SIGINT)
            time.sleep(0.3)
            os.killpg(proc.pid, signal.SIGINT)
            _, err = proc.communicate(timeout=120)
            seen = server.stats().total
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    assert "Traceback" not in err and "CancelledError" not in err, err
    assert proc.returncode == 1, (proc.returncode, err)
    samples = (out / "samples.jsonl").read_text().splitlines()
    assert len(samples) == 20  # every planned judgment is a line, answered or not
    result = json.loads((out / "results.json").read_text())
    assert result["config"]["partial"] is True and result["counts"]["calls"] == 20
    assert "interrupted" in err
    if repeats > 1:  # repeats 1.. in repeats.jsonl; the stop line counts every repeat's judgments
        samples += (out / "repeats.jsonl").read_text().splitlines()
    planned = 20 * repeats
    kinds = Counter(json.loads(line).get("failure") or json.loads(line)["status"] for line in samples)
    assert kinds["in_flight"] >= 1 and set(kinds) <= {"ANSWERED", "in_flight", "not_attempted"}, kinds
    assert kinds["ANSWERED"] + kinds["in_flight"] == seen and kinds["not_attempted"] == planned - seen, (kinds, seen)
    assert f"; {kinds['not_attempted']} judgments not attempted, {kinds['in_flight']} in flight at the stop, not waited for" in err, err
