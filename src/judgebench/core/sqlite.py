"""SQLite files that several processes and threads open at once (the reply cache, the voting store).

SQLite answers `PRAGMA journal_mode=WAL` with "database is locked" at once, without waiting on its busy timeout,
while another connection is switching the same new file to WAL: two runs starting on one new cache failed
that way (24 of 30 simultaneous starts here). `use_wal` retries the switch until the busy timeout has passed.
"""

from __future__ import annotations

import sqlite3
import time

RETRY_S = 0.02


def use_wal(db: sqlite3.Connection, timeout_s: float) -> None:
    """Put the database in WAL mode, waiting up to `timeout_s` for a concurrent switch (then its error)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL").fetchall()
            return
        except sqlite3.OperationalError as exc:
            if str(exc) != "database is locked" or time.monotonic() >= deadline:  # (SQLITE_BUSY's message)
                raise
            time.sleep(RETRY_S)
