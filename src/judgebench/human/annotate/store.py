"""Vote storage: SQLite (WAL, the default) or PostgreSQL (a `postgresql://` URL, psycopg), one SQL dialect.

Every request runs its own transactions (on a connection kept per thread) and commits before it answers, so a vote the page
acknowledged is on disk (SQLite WAL with synchronous=FULL; PostgreSQL's commit) and survives a
kill -9 of the server. A vote carries a vote id made when its page was served: submitting it again
(a retry, a double click, a resend after a lost answer) stores nothing new (INSERT ... ON CONFLICT
DO NOTHING), and (annotator, pair, round) is unique, so no annotator's vote on a pair is stored twice.
Tokens are stored as sha256 digests only and compared in constant time (hmac.compare_digest).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from judgebench.core.errors import JudgebenchError
from judgebench.core.text import term_text
from judgebench.core.secrets import redact_url
from judgebench.core.sqlite import use_wal

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS pairs (id TEXT PRIMARY KEY, position INTEGER NOT NULL, data TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS annotators (name TEXT PRIMARY KEY, token_hash TEXT NOT NULL, "
    "expertise TEXT NOT NULL, is_admin INTEGER NOT NULL, created TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS votes (vote_id TEXT PRIMARY KEY, pair_id TEXT NOT NULL, annotator TEXT NOT NULL, "
    "round INTEGER NOT NULL, choice TEXT, choices TEXT, shown_order TEXT NOT NULL, shown_at TEXT, "
    "submitted_at TEXT NOT NULL, seconds DOUBLE PRECISION, comment TEXT, UNIQUE (annotator, pair_id, round))",
    "CREATE TABLE IF NOT EXISTS skips (annotator TEXT NOT NULL, pair_id TEXT NOT NULL, round INTEGER NOT NULL, "
    "at TEXT NOT NULL, reason TEXT, PRIMARY KEY (annotator, pair_id, round))",
    # what the server showed to whom: a vote is accepted only on a showing (issue 27)
    "CREATE TABLE IF NOT EXISTS servings (annotator TEXT NOT NULL, pair_id TEXT NOT NULL, round INTEGER NOT NULL, "
    "pid TEXT NOT NULL, shown_at TEXT NOT NULL, PRIMARY KEY (annotator, pair_id, round))",
)
KEYS = ("secret", "pid_key", "csrf_key")  # per-database random keys: sides and repeats; opaque pair ids; CSRF tokens
VOTE_COLUMNS = ("vote_id", "pair_id", "annotator", "round", "choice", "choices", "shown_order", "shown_at",
                "submitted_at", "seconds", "comment")


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Annotator:
    name: str
    expertise: tuple[str, ...]
    is_admin: bool


BOOKKEEPING = ("tokens_out_", "cost_usd_", "latency_s_")  # a pair's generation figures: not what a voter sees


def changed_fields(stored: dict[str, Any], given: dict[str, Any]) -> list[str]:
    """The fields of a pair (but its generation figures) whose values differ between two versions of it."""
    keys = [k for k in dict.fromkeys([*stored, *given]) if not k.startswith(BOOKKEEPING)]
    return [k for k in keys if stored.get(k) != given.get(k)]


_LIKE_A_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:(/|.*@)")  # a scheme of two letters or more (C:/ is a Windows
# path) and a path or a user@
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:/*")


def shown_url(location: str) -> str:
    """A database URL as messages show it: everything between the scheme and the last @ (user and password, whatever
    characters the password holds: a / or an @ split it before) as ***, and query values hidden (redact_url)."""
    if "@" not in location:
        return redact_url(location)
    scheme, tail = _SCHEME.match(location), location[location.rindex("@"):]
    if "?" in tail:
        path, query = tail.split("?", 1)
        tail = f"{path}?{re.sub(r'=[^&]*', '=***', query)}"
    return (scheme.group(0) if scheme else "") + "***" + tail


def _check_votes_database(path: Path) -> None:
    """Refuse a SQLite path that holds no votes database (no file, an empty one, another program's database: the
    reply cache got annotate's tables and an annotator), read only, before anything is written to it."""
    made = f"a votes database is made by loading pairs into it (judgebench annotate PAIRS.jsonl --db {path})"
    if not path.exists():
        raise JudgebenchError(f"--db {path}: no such database; {made}")
    if path.is_dir():
        raise JudgebenchError(f"--db {path}: a folder; give the votes database's file")
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error as exc:
        raise JudgebenchError(f"--db {path}: not a usable SQLite database ({exc})") from None
    if not tables:
        raise JudgebenchError(f"--db {path}: an empty database; {made}")
    if "pairs" not in tables:
        raise JudgebenchError(f"--db {path}: not a votes database (its tables: {term_text(', '.join(sorted(tables)[:6]))}); give "
                              "the path of the one `annotate` made")


class Store:
    """One votes database; `location` is a SQLite file path or a postgresql:// URL."""

    def __init__(self, location: str | Path, *, must_exist: bool = False):
        """must_exist: refuse a SQLite path that names no file rather than make an empty database there (a typo in
        `--db` of `--export` or `--add-annotator` wrote 0 votes, or printed a link into a database no server reads)."""
        self.location = str(location)
        self.postgres = self.location.startswith(("postgresql://", "postgres://"))
        self.shown = shown_url(self.location) if self.postgres else self.location
        if _LIKE_A_URL.match(self.location) and not self.postgres:  # (a misspelt scheme, `postgressql://` or
            # `postgresql:/`, was taken as a file path, and the error that said its folder was missing showed the
            # URL's password)
            raise JudgebenchError(f"--db {shown_url(self.location)}: a database URL starts with postgresql:// (or "
                                  "postgres://); anything else is a SQLite file path")
        if must_exist and not self.postgres:
            _check_votes_database(Path(self.location))
        self._pairs: tuple[int, list[dict[str, Any]], dict[str, dict[str, Any]]] | None = None
        self._local = threading.local()
        with self.connect(exclusive="schema") as db:  # one process at a time: two opening an older database
            for statement in SCHEMA:  # together could both add the same column
                db.execute(statement)
            if self.postgres:
                db.execute("ALTER TABLE skips ADD COLUMN IF NOT EXISTS reason TEXT")
            elif not any(row[1] == "reason" for row in db.all("PRAGMA table_info(skips)", ())):
                db.execute("ALTER TABLE skips ADD COLUMN reason TEXT")  # a database made before skip reasons
            for key in KEYS:
                db.execute(self._sql("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT DO NOTHING"),
                           (key, secrets.token_hex(16)))
        self.secret = self.setting("secret") or ""
        self.pid_key = (self.setting("pid_key") or "").encode()
        self.csrf_key = (self.setting("csrf_key") or "").encode()

    def _sql(self, statement: str) -> str:
        return statement.replace("?", "%s") if self.postgres else statement

    @contextmanager
    def connect(self, *, exclusive: str | None = None) -> Iterator[Any]:
        """A connection in one transaction: committed on leaving, rolled back on an error. `exclusive`
        (a lock name): the transaction holds a lock from its start, so a check and the write it allows
        cannot interleave with another holding the same lock (SQLite: BEGIN IMMEDIATE, the database's
        one write lock; PostgreSQL: a transaction-scoped advisory lock on the name's hash)."""
        db = self._connection()
        try:
            if exclusive is not None:
                if self.postgres:
                    db.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (exclusive,))
                else:
                    db.execute("BEGIN IMMEDIATE")
            yield _Cursor(db, self._sql)
            db.commit()
        except BaseException:
            try:
                db.rollback()
            finally:
                if self.postgres and (db.closed or db.broken):  # a lost server: reconnect next time
                    self._local.db = None
            raise

    def _connection(self) -> Any:
        """This thread's connection, opened once (opening one costs more than a short transaction:
        about 4 ms for SQLite, more for PostgreSQL, where a connection is a server process)."""
        db = getattr(self._local, "db", None)
        if db is None or (self.postgres and db.closed):
            db = self._local.db = self._open()
        return db

    def _open(self) -> Any:
        if self.postgres:
            try:
                import psycopg
            except ImportError:
                raise JudgebenchError("a PostgreSQL --db needs psycopg: pip install 'psycopg[binary]'") from None
            try:
                return psycopg.connect(self.location, connect_timeout=10)
            except psycopg.Error as exc:
                raise JudgebenchError(f"--db {self.shown}: cannot connect ({str(exc).splitlines()[0]})") from None
        path = Path(self.location)
        if not path.parent.is_dir():
            raise JudgebenchError(f"--db {path}: folder {path.parent} does not exist")
        try:
            db = sqlite3.connect(path, timeout=60, isolation_level="DEFERRED", check_same_thread=False)
            use_wal(db, 60.0)
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA busy_timeout=60000")
        except sqlite3.DatabaseError as exc:
            raise JudgebenchError(f"--db {path}: not a usable SQLite database ({exc})") from None
        return db

    # settings and pairs

    def setting(self, key: str) -> str | None:
        with self.connect() as db:
            row = db.one("SELECT value FROM settings WHERE key = ?", (key,))
        return row[0] if row else None

    def put_setting(self, key: str, value: str) -> None:
        with self.connect() as db:
            db.execute("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                       (key, value))

    def add_pairs(self, pairs: list[dict[str, Any]]) -> int:
        """Store pairs (new ids only; a stored pair is never changed, so its votes keep their meaning). A pair whose
        id is stored with other content (texts, models, gold answer, slices) is refused, naming what differs: it
        was ignored, and the votes on the stored texts were later joined to the new ones."""
        with self.connect() as db:
            start = (db.one("SELECT COUNT(*) FROM pairs", ()) or (0,))[0]
            added = 0
            for offset, pair in enumerate(pairs):
                stored = db.one("SELECT data FROM pairs WHERE id = ?", (pair["id"],))
                if stored is None:
                    db.execute("INSERT INTO pairs (id, position, data) VALUES (?, ?, ?)",
                               (pair["id"], start + offset, json.dumps(pair, ensure_ascii=False)))
                    added += 1
                elif differing := changed_fields(json.loads(stored[0]), pair):
                    raise JudgebenchError(f"pair {pair['id']!r} (row {offset + 1}) is stored in {self.shown} with another "
                                          f"{', '.join(differing)}; votes on it were cast on the stored one: give the "
                                          "changed pair an id of its own")
        return added

    def pairs(self) -> list[dict[str, Any]]:
        """Every pair, in load order. Pairs are only ever added (never changed), so the decoded list is
        kept and read again only when the count of stored pairs changed (another process loaded more)."""
        with self.connect() as db:
            count = (db.one("SELECT COUNT(*) FROM pairs", ()) or (0,))[0]
            cached = self._pairs
            if cached is not None and cached[0] == count:
                return list(cached[1])
            pairs = [json.loads(row[0]) for row in db.all("SELECT data FROM pairs ORDER BY position", ())]
        self._pairs = (len(pairs), pairs, {p["id"]: p for p in pairs})
        return list(pairs)

    def pair(self, pair_id: str) -> dict[str, Any] | None:
        cached = self._pairs
        if cached is not None and pair_id in cached[2]:
            return cached[2][pair_id]
        with self.connect() as db:
            row = db.one("SELECT data FROM pairs WHERE id = ?", (pair_id,))
        return json.loads(row[0]) if row else None

    # annotators

    def add_annotator(self, name: str, expertise: list[str], *, admin: bool = False) -> str:
        """Create an annotator and return its token (shown once; only its digest is stored)."""
        token = secrets.token_urlsafe(24)
        with self.connect() as db:
            if db.one("SELECT 1 FROM annotators WHERE name = ?", (name,)) is not None:
                raise JudgebenchError(f"--add-annotator {name}: an annotator of that name exists")
            db.execute("INSERT INTO annotators (name, token_hash, expertise, is_admin, created) VALUES (?, ?, ?, ?, ?)",
                       (name, token_digest(token), json.dumps(sorted(expertise)), int(admin), now_iso()))
        return token

    def new_token(self, name: str) -> str:
        """A new token for an existing annotator (a lost or leaked invite link): the old link, and every session
        opened with it, stops working at once. Their votes stay theirs."""
        token = secrets.token_urlsafe(24)
        with self.connect() as db:
            if db.one("SELECT 1 FROM annotators WHERE name = ?", (name,)) is None:
                known = [row[0] for row in db.all("SELECT name FROM annotators ORDER BY name", ())]
                raise JudgebenchError(f"--new-link {name}: no annotator of that name in {self.shown}"
                                      + (f" (annotators: {', '.join(known[:10])}{', ...' if len(known) > 10 else ''})" if known else ""))
            db.execute("UPDATE annotators SET token_hash = ? WHERE name = ?", (token_digest(token), name))
        return token

    def annotator_for(self, token: str | None) -> Annotator | None:
        """The annotator holding this token, compared in constant time against every stored digest."""
        if not token:
            return None
        digest = token_digest(token)
        found = None
        with self.connect() as db:
            rows = db.all("SELECT name, token_hash, expertise, is_admin FROM annotators", ())
        for name, stored, expertise, is_admin in rows:
            if hmac.compare_digest(stored, digest):  # no early exit: every digest is compared
                found = Annotator(name, tuple(json.loads(expertise)), bool(is_admin))
        return found

    def annotators(self) -> list[Annotator]:
        with self.connect() as db:
            rows = db.all("SELECT name, expertise, is_admin FROM annotators ORDER BY name", ())
        return [Annotator(n, tuple(json.loads(e)), bool(a)) for n, e, a in rows]

    # votes and skips

    def add_vote(self, vote: dict[str, Any]) -> str:
        """Store a vote once: 'stored', 'duplicate' (this vote id is stored already: an idempotent
        resend) or 'conflict' (this annotator already voted on this pair in this round)."""
        values = tuple(vote.get(c) for c in VOTE_COLUMNS)
        with self.connect() as db:
            inserted = db.execute(f"INSERT INTO votes ({', '.join(VOTE_COLUMNS)}) VALUES "
                                  f"({', '.join('?' * len(VOTE_COLUMNS))}) ON CONFLICT DO NOTHING", values)
            if inserted:
                return "stored"
            row = db.one("SELECT annotator FROM votes WHERE vote_id = ?", (vote["vote_id"],))
        return "duplicate" if row is not None and row[0] == vote["annotator"] else "conflict"

    def pid(self, annotator: str, pair_id: str) -> str:
        """The opaque id a pair has on this annotator's page: a keyed HMAC (per-database key), so it
        reveals neither the stored id nor the models, and differs between annotators."""
        return hmac.new(self.pid_key, f"{annotator}\0{pair_id}".encode(), hashlib.sha256).hexdigest()[:20]

    def serve(self, annotator: str, pair_id: str, round_: int) -> dict[str, Any]:
        """Record that this pair (round) was shown to this annotator (the first showing's time is kept)."""
        pid = self.pid(annotator, pair_id)
        with self.connect() as db:  # a page shown again (a reload) is a read, not a write
            row = db.one("SELECT shown_at FROM servings WHERE annotator = ? AND pair_id = ? AND round = ?",
                         (annotator, pair_id, round_))
            if row is not None:
                return {"pid": pid, "shown_at": row[0]}
        with self.connect() as db:
            db.execute("INSERT INTO servings (annotator, pair_id, round, pid, shown_at) VALUES (?, ?, ?, ?, ?) "
                       "ON CONFLICT DO NOTHING", (annotator, pair_id, round_, pid, now_iso()))
            row = db.one("SELECT shown_at FROM servings WHERE annotator = ? AND pair_id = ? AND round = ?",
                         (annotator, pair_id, round_))
        return {"pid": pid, "shown_at": row[0] if row else now_iso()}

    def servings(self, annotator: str, pid: str) -> dict[int, tuple[str, str]]:
        """round -> (pair id, shown_at) of what was shown to this annotator under this opaque id."""
        with self.connect() as db:
            rows = db.all("SELECT round, pair_id, shown_at FROM servings WHERE annotator = ? AND pid = ?", (annotator, pid))
        return {r: (p, at) for r, p, at in rows}

    def pending(self, annotator: str) -> list[tuple[str, int]]:
        """(pair, round) shown to this annotator, neither voted nor skipped; latest first."""
        with self.connect() as db:
            rows = db.all(
                "SELECT s.pair_id, s.round FROM servings s WHERE s.annotator = ? AND NOT EXISTS (SELECT 1 FROM votes v "
                "WHERE v.annotator = s.annotator AND v.pair_id = s.pair_id AND v.round = s.round) AND NOT EXISTS "
                "(SELECT 1 FROM skips k WHERE k.annotator = s.annotator AND k.pair_id = s.pair_id AND k.round = s.round) "
                "ORDER BY s.shown_at DESC", (annotator,))
        return [(r[0], r[1]) for r in rows]

    def reserved(self, since: str) -> dict[str, list[str]]:
        """pair -> annotators it was shown to in round 1 since `since` and not yet answered or skipped."""
        with self.connect() as db:
            rows = db.all(
                "SELECT s.pair_id, s.annotator FROM servings s WHERE s.round = 1 AND s.shown_at >= ? AND NOT EXISTS "
                "(SELECT 1 FROM votes v WHERE v.annotator = s.annotator AND v.pair_id = s.pair_id AND v.round = 1) "
                "AND NOT EXISTS (SELECT 1 FROM skips k WHERE k.annotator = s.annotator AND k.pair_id = s.pair_id "
                "AND k.round = 1)", (since,))
        out: dict[str, list[str]] = {}
        for pair_id, name in rows:
            out.setdefault(pair_id, []).append(name)
        return out

    def cast(self, vote: dict[str, Any], target: int | None) -> str:
        """Store a vote under its pair's lock: 'duplicate' (this vote, under its id, is stored already),
        'id_taken' (the vote id holds another vote, or someone else's), 'conflict' (this annotator has a vote on
        this pair and round), 'was_skipped' (this annotator skipped it: a Skip from another tab sent at the same moment,
        both were stored), 'full' (a round-1 vote on a pair that has `target` votes), else 'stored'."""
        values = tuple(vote.get(c) for c in VOTE_COLUMNS)
        with self.connect(exclusive=f"pair:{vote['pair_id']}") as db:  # a vote id belongs to one pair
            row = db.one("SELECT annotator, pair_id, round, choice, choices FROM votes WHERE vote_id = ?", (vote["vote_id"],))
            if row is not None:  # a resend of the same vote is a duplicate; anything else under its id is refused
                same = tuple(row) == (vote["annotator"], vote["pair_id"], vote["round"], vote["choice"], vote["choices"])
                mine = tuple(row[:3]) == (vote["annotator"], vote["pair_id"], vote["round"])  # another choice, resent
                return "duplicate" if same else "conflict" if mine else "id_taken"
            if db.one("SELECT 1 FROM votes WHERE annotator = ? AND pair_id = ? AND round = ?",
                      (vote["annotator"], vote["pair_id"], vote["round"])) is not None:
                return "conflict"
            if db.one("SELECT 1 FROM skips WHERE annotator = ? AND pair_id = ? AND round = ?",
                      (vote["annotator"], vote["pair_id"], vote["round"])) is not None:
                return "was_skipped"
            if vote["round"] == 1 and target is not None:
                count = (db.one("SELECT COUNT(*) FROM votes WHERE pair_id = ? AND round = 1", (vote["pair_id"],)) or (0,))[0]
                if count >= target:
                    return "full"
            inserted = db.execute(f"INSERT INTO votes ({', '.join(VOTE_COLUMNS)}) VALUES "
                                  f"({', '.join('?' * len(VOTE_COLUMNS))}) ON CONFLICT DO NOTHING", values)
        # nothing inserted: the same vote id sent at once for another pair (under another pair's lock)
        return "stored" if inserted else "id_taken"

    def add_skip(self, annotator: str, pair_id: str, round_: int, reason: str | None = None) -> str:
        """Record a skip under its pair's lock: 'conflict' when this annotator has a vote on this pair and round (a
        page left open in another tab: the vote stands), else 'skipped'."""
        with self.connect(exclusive=f"pair:{pair_id}") as db:
            if db.one("SELECT 1 FROM votes WHERE annotator = ? AND pair_id = ? AND round = ?",
                      (annotator, pair_id, round_)) is not None:
                return "conflict"
            db.execute("INSERT INTO skips (annotator, pair_id, round, at, reason) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                       (annotator, pair_id, round_, now_iso(), reason))
        return "skipped"

    def skipped(self, annotator: str, pair_id: str, round_: int) -> bool:
        with self.connect() as db:
            return db.one("SELECT 1 FROM skips WHERE annotator = ? AND pair_id = ? AND round = ?",
                          (annotator, pair_id, round_)) is not None

    def skip_reasons(self) -> list[tuple[str, str, int, str | None]]:
        with self.connect() as db:
            return [tuple(r) for r in db.all("SELECT annotator, pair_id, round, reason FROM skips ORDER BY at", ())]  # type: ignore[misc]

    def undo(self, annotator: str, vote_id: str, window_s: float) -> bool:
        """Delete this annotator's vote if it is their latest and at most `window_s` seconds old; its
        showing stays and becomes the latest, so the pair comes back to them next."""
        with self.connect(exclusive=f"annotator:{annotator}") as db:
            row = db.one("SELECT vote_id, submitted_at FROM votes WHERE annotator = ? ORDER BY submitted_at DESC, vote_id DESC",
                         (annotator,))
            if row is None or row[0] != vote_id:
                return False
            age = (datetime.now(timezone.utc) - datetime.fromisoformat(row[1].replace("Z", "+00:00"))).total_seconds()
            if age > window_s:
                return False
            pair = db.one("SELECT pair_id, round FROM votes WHERE vote_id = ?", (vote_id,))
            db.execute("DELETE FROM votes WHERE vote_id = ?", (vote_id,))
            if pair is not None:  # shown again now: first in line, timed afresh
                db.execute("UPDATE servings SET shown_at = ? WHERE annotator = ? AND pair_id = ? AND round = ?",
                           (now_iso(), annotator, pair[0], pair[1]))
        return True

    def votes(self) -> list[dict[str, Any]]:
        with self.connect() as db:
            rows = db.all(f"SELECT {', '.join(VOTE_COLUMNS)} FROM votes ORDER BY submitted_at, vote_id", ())
        return [dict(zip(VOTE_COLUMNS, row)) for row in rows]

    def skips(self) -> list[tuple[str, str, int]]:
        with self.connect() as db:
            return [tuple(r) for r in db.all("SELECT annotator, pair_id, round FROM skips", ())]  # type: ignore[misc]


class _Cursor:
    """execute / one / all with ?-placeholders on either database."""

    def __init__(self, db: Any, sql: Any):
        self.db, self.sql = db, sql

    def execute(self, statement: str, params: tuple[Any, ...] = ()) -> int:
        """Run one statement; the number of rows it changed."""
        return self.db.execute(self.sql(statement), params).rowcount

    def one(self, statement: str, params: tuple[Any, ...]) -> tuple[Any, ...] | None:
        return self.db.execute(self.sql(statement), params).fetchone()

    def all(self, statement: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        return list(self.db.execute(self.sql(statement), params).fetchall())
