"""Shared set-up for the annotate tests: a pairs file, a store on SQLite or PostgreSQL, a server thread."""

from __future__ import annotations

import json
import os
import threading
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from judgebench.human.annotate.assign import Rules
from judgebench.human.annotate.server import make_server
from judgebench.human.annotate.store import Store

POSTGRES_ENV = "JUDGEBENCH_TEST_POSTGRES_URL"


def pair_rows(n: int, **overrides: Any) -> list[dict[str, Any]]:
    return [{"id": f"p{i}", "question": f"Question {i}?", "response_a": f"Answer A{i} **bold**", "response_b": f"Answer B{i}",
             "model_a": "m1", "model_b": "m2", "slices": {"field": "bio" if i % 2 else "phys"}, **overrides} for i in range(n)]


def shown_pair(browser: Any) -> str | None:
    """The pair id the voting page carries (None on a page without one), read in one script: finding the field and
    then reading it could meet a page replaced in between, which Chromium reports as a stale element or as "Node
    with given id does not belong to the document" (a failed CI run)."""
    return browser.execute_script(
        "const field = document.querySelector('#vote-form input[name=pair_id]'); return field ? field.value : null;")


def fresh_postgres_url() -> str:
    """A new empty database on the server named by JUDGEBENCH_TEST_POSTGRES_URL (skip when unset)."""
    base = os.environ.get(POSTGRES_ENV)
    if not base:
        pytest.skip(f"no PostgreSQL server: set {POSTGRES_ENV} (`.ci/run` starts one and sets it)")
    psycopg = pytest.importorskip("psycopg")
    name = f"jb_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as db:
        db.execute(f"CREATE DATABASE {name}")
    return base.rsplit("/", 1)[0] + "/" + name


def make_store(kind: str, tmp_path: Path) -> Store:
    return Store(fresh_postgres_url() if kind == "postgres" else tmp_path / "votes.sqlite")


@contextmanager
def serving(store: Store, rules: Rules | None = None, **options: Any) -> Iterator[str]:
    """The voting server in a thread of this process; yields its base URL (options: make_server's)."""
    server = make_server(store, rules or Rules(), port=0, **options)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def served(store: Store, token: str, pair_id: str, round_: int = 1) -> str:
    """Record that the server showed this pair to the token's annotator (as GET / would when the
    assignment rules pick it) and return the opaque id its page carries. The server accepts a vote
    only on a pair it showed (issue 27); tests that vote on chosen pairs show them first."""
    who = store.annotator_for(token)
    assert who is not None
    return store.serve(who.name, pair_id, round_)["pid"]


def post_vote(base: str, token: str, fields: dict[str, str], timeout: float = 30) -> tuple[int, dict[str, Any]]:
    """POST /vote as a script would (Bearer token, JSON answer): (status, body)."""
    data = "&".join(f"{k}={urllib.request.quote(v)}" for k, v in fields.items()).encode()
    request = urllib.request.Request(f"{base}/vote", data=data, method="POST", headers={
        "Authorization": f"Bearer {token}", "Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")
