"""A crash-safe cache of judge replies: SQLite in WAL mode, one row per answered request.

Key: sha256 over the judge's cache identity (model id, every generation argument, the endpoint
(api_base without secrets, or the judge's endpoint_fingerprint) and one sha256 of the header
values; never API keys, never a header value in clear) and the rendered prompt's hash (and the repeat index r of
`--repeats`, for r > 0 only), so an answer can never be
served for another model, setting or prompt.

Each answered call is committed the moment it returns (WAL + synchronous=NORMAL: a
committed row survives the process being killed, SIGKILL included). Only replies that
carry text are stored; a failed call is never cached, so the next run retries it.
The row holds the reply only (text, earlier unparseable texts, tokens, cost, latency,
attempts) plus the judge id, prompt hash and the endpoint it was answered by (api_base
redacted) for inspection: no keys, no headers.

Claims (table `inflight`): before a call, the process making it claims the key (its pid,
an expiry). Another process (a second run on the same cache, a rerun while a killed run's
worker finishes) that finds a live claim waits for it and takes the answer instead of
paying twice; a claim whose process is dead or whose expiry has passed is free. The
directory is checked writable (a probe write) when the cache is opened, before any call.

The cache lives outside the package: `--cache-dir`, else $JUDGEBENCH_CACHE_DIR, else
`platformdirs.user_cache_dir("judgebench")`.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judgebench.core.errors import JudgebenchError
from judgebench.core.records import JudgeReply
from judgebench.core.resources import default_cache_dir
from judgebench.core.sqlite import use_wal

CACHE_FILENAME = "replies.sqlite3"
SCHEMA_VERSION = 1


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (on this machine, in this pid namespace)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def cache_key(identity: dict[str, Any], prompt_hash: str, repeat: int = 0) -> str:
    """sha256 over the canonical JSON of (judge identity, prompt hash[, repeat index]).

    Repeat 0 (every run without --repeats) keeps the key it always had, so existing caches stay
    valid; repeat r > 0 is its own answer (judging/repeats.py)."""
    fields: dict[str, Any] = {"identity": identity, "prompt_hash": prompt_hash}
    if repeat:
        fields["repeat"] = repeat
    blob = json.dumps(
        fields,
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


BUSY_S = 30.0  # how long a writer waits for another process's write (and a new file's switch to WAL)


class ReplyCache:
    """One SQLite file of replies. Use from one thread; several processes may share it."""

    def __init__(self, directory: Path | str | None = None):
        self.directory = Path(directory) if directory is not None else default_cache_dir()
        self.path = self.directory / CACHE_FILENAME
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=BUSY_S, isolation_level=None)
            use_wal(self._db, BUSY_S)
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(f"PRAGMA busy_timeout={int(BUSY_S * 1000)}")
            self._db.execute("BEGIN IMMEDIATE")  # the schema, one process at a time: two starting together both
            try:  # found no `endpoint` column and both added it ("duplicate column name")
                version = self._db.execute("PRAGMA user_version").fetchone()[0]
                if version not in (0, SCHEMA_VERSION):
                    raise JudgebenchError(
                        f"cache {self.path} has schema version {version}, this judgebench "
                        f"expects {SCHEMA_VERSION}: use another --cache-dir or delete the file"
                    )
                self._db.execute(
                    "CREATE TABLE IF NOT EXISTS replies ("
                    " key TEXT PRIMARY KEY,"
                    " judge TEXT NOT NULL,"
                    " prompt_hash TEXT NOT NULL,"
                    " reply TEXT NOT NULL,"
                    " created REAL NOT NULL,"
                    " updated REAL NOT NULL)"
                )
                columns = {row[1] for row in self._db.execute("PRAGMA table_info(replies)")}
                if "endpoint" not in columns:  # added by issue 29: where each answer was recorded (no secrets)
                    self._db.execute("ALTER TABLE replies ADD COLUMN endpoint TEXT")
                self._db.execute(
                    "CREATE TABLE IF NOT EXISTS inflight ("
                    " key TEXT PRIMARY KEY, pid INTEGER NOT NULL, expires REAL NOT NULL)"
                )
                self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            self._probe_write()
            self._db.execute("DELETE FROM inflight WHERE expires < ?", (time.time(),))  # stale claims
        except sqlite3.DatabaseError as exc:
            raise JudgebenchError(
                f"cache {self.path}: {exc} (use another --cache-dir, --no-cache, or delete the file)"
            ) from None
        except OSError as exc:
            if self.directory.exists() and not self.directory.is_dir():  # ("File exists", from making the folder)
                raise JudgebenchError(f"cache folder {self.directory} (--cache-dir, or JUDGEBENCH_CACHE_DIR): a file, "
                                      "not a folder") from None
            raise JudgebenchError(f"cache directory {self.directory}: {exc.strerror}") from None

    def _probe_write(self) -> None:
        """A committed write (then undone) so that a read-only or full location fails now,
        before any call, not once answers are paid for."""
        try:
            if not os.access(self.directory, os.W_OK):
                raise OSError("the directory is not writable")
            self._db.execute("INSERT OR REPLACE INTO inflight (key, pid, expires) VALUES ('', 0, 0)")
            self._db.execute("DELETE FROM inflight WHERE key = ''")
        except (sqlite3.Error, OSError) as exc:
            raise JudgebenchError(
                f"cache {self.path}: cannot write ({exc}); free some space, or use another "
                "--cache-dir, or --no-cache"
            ) from None

    def get(self, key: str) -> JudgeReply | None:
        row = self._db.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return JudgeReply.model_validate_json(row[0])
        except ValueError:
            return None  # an unreadable row is a miss; the next answer overwrites it

    def get_many(self, keys: list[str]) -> dict[str, JudgeReply]:
        found: dict[str, JudgeReply] = {}
        for marks, chunk in _key_chunks(keys):
            for key, text in self._db.execute(
                f"SELECT key, reply FROM replies WHERE key IN ({marks})", chunk
            ):
                try:
                    found[key] = JudgeReply.model_validate_json(text)
                except ValueError:
                    continue
        return found

    def put(self, key: str, reply: JudgeReply, *, judge: str, prompt_hash: str, endpoint: str | None = None) -> None:
        """Store (or replace) an answered reply and commit at once. `endpoint`: where it was answered
        (api_base with its secrets redacted; None: the provider's default), for `endpoints`."""
        if reply.text is None:
            raise ValueError("only replies with text are cached")
        stored = reply.model_copy(update={"cached": False, "error": None, "cached_cost_usd": None})
        now = time.time()
        self._db.execute(
            "INSERT INTO replies (key, judge, prompt_hash, reply, created, updated, endpoint)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT(key) DO UPDATE SET reply = excluded.reply, updated = excluded.updated,"
            " endpoint = excluded.endpoint",
            (key, judge, prompt_hash, stored.model_dump_json(), now, now, endpoint),
        )

    def endpoints(self, keys: list[str]) -> dict[str | None, int]:
        """Where the answers under these keys were recorded: endpoint -> how many (None: not recorded)."""
        counts: dict[str | None, int] = {}
        for marks, chunk in _key_chunks(keys):
            for endpoint, n in self._db.execute(
                f"SELECT endpoint, COUNT(*) FROM replies WHERE key IN ({marks}) GROUP BY endpoint", chunk
            ):
                counts[endpoint] = counts.get(endpoint, 0) + int(n)
        return counts

    # -- claims: the process making a call for a key holds it; others wait for its answer
    def try_claim(self, key: str, pid: int, expires: float) -> tuple[int, float] | None:
        """Claim `key` for `pid` unless another live process holds an unexpired claim on it.
        None: claimed (or renewed); else the holder's (pid, expires)."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            row = self._db.execute("SELECT pid, expires FROM inflight WHERE key = ?", (key,)).fetchone()
            if row is not None and int(row[0]) != pid and float(row[1]) > time.time() and pid_alive(int(row[0])):
                self._db.execute("COMMIT")
                return int(row[0]), float(row[1])
            self._db.execute(
                "INSERT OR REPLACE INTO inflight (key, pid, expires) VALUES (?, ?, ?)", (key, pid, expires)
            )
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise
        return None

    def release_all(self, pid: int) -> None:
        """Drop every claim of `pid` (its run is over)."""
        self._db.execute("DELETE FROM inflight WHERE pid = ?", (pid,))

    def release(self, key: str, pid: int) -> None:
        self._db.execute("DELETE FROM inflight WHERE key = ? AND pid = ?", (key, pid))

    def holder(self, key: str) -> tuple[int, float] | None:
        row = self._db.execute("SELECT pid, expires FROM inflight WHERE key = ?", (key,)).fetchone()
        return (int(row[0]), float(row[1])) if row else None

    def close(self) -> None:
        try:
            self._db.close()
        except sqlite3.Error:
            pass

    def __enter__(self) -> ReplyCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _key_chunks(keys: list[str], size: int = 500) -> Iterator[tuple[str, list[str]]]:
    """The distinct keys in chunks of `size` (SQLite's bound on variables), each with its `?,?,...` marks."""
    unique = list(dict.fromkeys(keys))
    for start in range(0, len(unique), size):
        chunk = unique[start : start + size]
        yield ",".join("?" * len(chunk)), chunk
