"""The batches a `--batch` run left running at the provider, recorded in the cache folder so that a rerun
collects their answers instead of submitting (and paying for) the same requests again.

    folder = records_folder(cache.directory)
    intent = BatchRecord("", identity_hash(judge.cache_identity()), {key: prompt_hash}, time.time(), tag=tag,
                         input_file="file-1")
    path = write_record(folder, intent)            # before the create: a batch being created, its id unknown yet
    write_record(folder, replace(intent, batch_id="batch_abc"))  # once created: the same file, replaced
    for path, record in matching_records(folder, digest, pending_keys): ...
    drop_record(path)                              # once collected (or unknown to the provider)

One small JSON file per batch under `<cache dir>/batches/`, written atomically (core/files.write_atomic): the batch
id, the judge id and the sha256 of its cache identity (only the same judge configuration reuses a batch), the cache
keys it holds with their prompt hashes, the creation time, the run tag sent as the batch's metadata and its input
file. No key, no header: the identity is hashed, as in the cache. A record without a batch id is an intent: written
before the create, so that a kill before the provider's answer is recorded leaves the tag to find the batch by.
Several runs may share the cache: reading tolerates a record removed meanwhile, and removing one already removed is
not an error (two runs collecting the same batch both store the same answers, neither pays again). One run of a judge
configuration at a time reads the records and submits (`SubmissionLock`, a `<identity>.lock` file beside them): two
runs started together both found no record and both submitted the same requests, paid twice.

    lock = SubmissionLock(folder, digest)
    if lock.acquire(): ... read the records, submit, record ...; lock.release()
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgebench.core.errors import JudgebenchError
from judgebench.core.files import write_atomic

FOLDER = "batches"
VERSION = 1


@dataclass(frozen=True)
class BatchRecord:
    """A batch submitted and not collected yet: `requests` maps each cache key it holds to its prompt hash."""

    batch_id: str
    identity: str
    requests: dict[str, str]
    created: float
    judge: str = ""
    tag: str = ""  # the batch's metadata judgebench_run (records written before it have none)
    input_file: str = ""  # the uploaded file the batch was created from

    @property
    def intent(self) -> bool:
        """Written before the create, the batch id not known yet (a run killed then left it)."""
        return not self.batch_id


def records_folder(cache_dir: Path) -> Path:
    """`<cache>/batches`; a link there is refused (records went wherever it pointed, outside the cache folder)."""
    folder = cache_dir / FOLDER
    if folder.is_symlink():
        raise JudgebenchError(f"{folder}: a link; batch records are written only inside the cache folder (remove it)")
    return folder


PLAIN_ID = re.compile(r"[A-Za-z0-9_.:-]{1,200}")  # a provider's batch or file id as judgebench records and shows it
_TAG = re.compile(r"[0-9a-f]{32}")  # a run tag (uuid4 hex)


def identity_hash(identity: dict[str, Any]) -> str:
    """sha256 over the canonical JSON of a judge's cache identity (as cache.cache_key writes it)."""
    blob = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def record_path(folder: Path, name: str) -> Path:
    """The record's file: named by a hash of its tag, else its batch id (a provider's id may hold any character)."""
    return folder / f"{hashlib.sha256(name.encode('utf-8')).hexdigest()[:32]}.json"


def write_record(folder: Path, record: BatchRecord) -> Path:
    """Write `record` atomically; an OSError (a full disk) is the caller's to report."""
    path = record_path(folder, record.tag or record.batch_id)
    data = {"version": VERSION, "batch_id": record.batch_id, "judge": record.judge, "identity": record.identity,
            "created": record.created, "requests": record.requests, "tag": record.tag,
            "input_file": record.input_file}
    write_atomic(path, json.dumps(data, ensure_ascii=False, sort_keys=True) + "\n")
    return path


RECORD_MAX_BYTES = 64 << 20  # a batch API takes at most 50,000 requests: about 7 MB of keys and prompt hashes


def read_record(path: Path) -> BatchRecord | None:
    """The record in `path`; None when it is gone (another run collected it) or unreadable (said in one line). A
    link or a file larger than any record this judgebench writes is not read (an attack planted a link to
    /etc/shadow, and a 200 MB record cost 19 s)."""
    try:
        if path.is_symlink() or path.stat().st_size > RECORD_MAX_BYTES:
            note(f"batch record {path} is a link or larger than {RECORD_MAX_BYTES >> 20} MB: ignored")
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        note(f"batch record {path} is unreadable ({type(exc).__name__}): ignored")
        return None
    record = _parse(data)
    if record is None:
        note(f"batch record {path} is not a batch record of this judgebench: ignored")
    return record


def _parse(data: Any) -> BatchRecord | None:
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return None
    batch_id, identity, requests, created = (data.get(k) for k in ("batch_id", "identity", "requests", "created"))
    tag, input_file = (data.get(k) or "" for k in ("tag", "input_file"))
    if not (isinstance(batch_id, str) and isinstance(identity, str) and isinstance(requests, dict)):
        return None
    if not (isinstance(tag, str) and isinstance(input_file, str) and (batch_id or tag)):  # (an intent has a tag)
        return None
    if not all(PLAIN_ID.fullmatch(v) for v in (batch_id, input_file) if v) or (tag and not _TAG.fullmatch(tag)):
        return None  # (a hand-edited tag reached stderr raw: escape codes, a forged line, 30 MB in one line)
    if not isinstance(created, (int, float)) or not all(isinstance(v, str) for v in requests.values()):
        return None
    return BatchRecord(batch_id, identity, {str(k): v for k, v in requests.items()}, float(created),
                       str(data.get("judge") or ""), tag, input_file)


def matching_records(folder: Path, identity: str, keys: set[str] | None) -> list[tuple[Path, BatchRecord]]:
    """The records of this judge identity holding any of `keys` (None: every one), oldest first."""
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob("*.json")):
        record = read_record(path)
        if record is not None and record.identity == identity and (keys is None or keys.intersection(record.requests)):
            found.append((path, record))
    return sorted(found, key=lambda item: item[1].created)


def drop_record(path: Path) -> None:
    """Remove a collected record; one another run removed already is fine."""
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        note(f"batch record {path} could not be removed ({exc.strerror}); a rerun collects it again (no new cost)")


class SubmissionLock:
    """An exclusive lock on one judge configuration's batch records (`<folder>/<identity[:32]>.lock`, flock): held
    from reading the records to recording the batch a run submits, so that a second run started meanwhile finds that
    record and collects the batch instead of submitting its requests again. The system releases it when its
    process ends (a killed run leaves no stale lock); the file itself stays. Runs on one machine only (as the cache's
    claims: calls/cache.py); where flock is missing (not POSIX), or the file cannot be opened (said in one line), it
    is always free."""

    def __init__(self, folder: Path, identity: str):
        self.path = folder / f"{identity[:32]}.lock"
        self._fd: int | None = None

    def acquire(self) -> bool:
        """Take the lock if it is free (True); False at once while another process (or open file) holds it."""
        try:
            import fcntl
        except ImportError:
            return True
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0), 0o600)  # (never
        except OSError as exc:  # a link; a FIFO opened without waiting for a writer)
            return self._unusable(exc.strerror or str(exc))
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # (a FIFO failed the run: "OSError: Invalid argument")
            os.close(fd)
            return self._unusable("not a regular file")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return True

    def _unusable(self, why: str) -> bool:
        """Said in one line; the lock is then taken as free (True)."""
        note(f"batch lock {self.path} cannot be used ({why}): runs of this judge started together may each submit "
             "the same requests")
        return True

    def holder(self) -> str:
        """The pid the holder wrote, or "" (unreadable, or not written yet)."""
        try:
            text = self.path.read_bytes()[:32].decode("ascii").strip()
        except (OSError, UnicodeDecodeError):
            return ""
        return text if text.isdigit() else ""

    def release(self) -> None:
        """Let the lock go (closing the file releases it)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def note(line: str) -> None:
    """One line on stderr, as judgebench's notes are written (the batch path's)."""
    print(f"judgebench: {line}", file=sys.stderr, flush=True)
