"""Verifying the data a submitted run claims: the examples reloaded, their fingerprint, the revision,
and agreement with the runs already accepted on the same data (the `data` check of verify.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from judgebench.core.errors import JudgebenchError, Rejected
from judgebench.core.records import RunResult
from judgebench.tasks.loading import LoadedTask, load_examples
from judgebench.tasks.registry import TaskSpec

SHA_RE = re.compile(r"[0-9a-f]{40}")


def check_data(result: RunResult, spec: TaskSpec, dataset_path: str | None, known: list[RunResult]) -> LoadedTask:
    """Reload the examples the run claims to have judged; fingerprints and revisions must agree."""
    info, limit = result.config.dataset, result.config.limit
    if info.demo:
        if info.revision is not None or info.resolved_revision is not None:
            raise Rejected("data", f"dataset revision {info.resolved_revision or info.revision!r} on a demo run: the bundled demo split has no revision")
        loaded = _load(spec, demo=True, limit=limit)
        where = "the task's bundled demo data"
    else:
        _check_revision(result, spec)
        if dataset_path is None and info.source != spec.dataset.path:
            raise Rejected(
                "data",
                f"the run judged {info.source!r}, not the task's dataset {spec.dataset.path!r}; "
                "a local copy can be verified with --dataset-path",
            )
        revision = info.resolved_revision or info.revision
        loaded = _load(spec, dataset_path=dataset_path, split=info.split, revision=revision, limit=limit)
        where = f"the data loaded from {dataset_path or spec.dataset.path}"
    if info.fingerprint != loaded.dataset.fingerprint:
        raise Rejected(
            "data",
            f"dataset fingerprint {info.fingerprint[:12]} does not match {where} ({loaded.dataset.fingerprint[:12]})",
        )
    if not info.demo:
        _check_known(result, spec, known)
    return loaded


def _check_revision(result: RunResult, spec: TaskSpec) -> None:
    """On the task's own dataset: a pinned commit must be the one loaded; unpinned, the commit must be recorded.

    Runs on a local copy are checked by fingerprint against accepted runs instead (_check_known).
    """
    info = result.config.dataset
    if info.source != spec.dataset.path:
        return
    pinned = spec.dataset.revision
    recorded = info.resolved_revision or info.revision
    if pinned and SHA_RE.fullmatch(pinned):
        if recorded != pinned:
            raise Rejected("data", f"dataset revision {recorded!r} is not the task's pinned revision {pinned}")
    elif not Path(info.source).exists():
        if not (recorded and SHA_RE.fullmatch(recorded)):
            raise Rejected(
                "data",
                f"dataset revision {recorded!r} is not a commit: the task is unpinned, so the run must "
                "record the resolved commit it loaded",
            )


def _check_known(result: RunResult, spec: TaskSpec, known: list[RunResult]) -> None:
    """Accepted runs on the same data (task source, revision, split, size) must share the fingerprint."""
    info = result.config.dataset
    same_source = info.source == spec.dataset.path
    peers = [
        other
        for other in known
        if not other.config.dataset.demo
        and other.config.limit == result.config.limit
        and other.config.dataset.split == info.split
        and other.config.dataset.source == spec.dataset.path
    ]
    fingerprints = {other.config.dataset.fingerprint for other in peers}
    if same_source:
        revision = info.resolved_revision or info.revision
        same_revision = {
            other.config.dataset.fingerprint
            for other in peers
            if (other.config.dataset.resolved_revision or other.config.dataset.revision) == revision
        }
        if same_revision and info.fingerprint not in same_revision:
            raise Rejected("data", f"dataset fingerprint {info.fingerprint[:12]} differs from accepted runs on {spec.dataset.path}@{revision}")
    elif info.fingerprint not in fingerprints:
        raise Rejected(
            "data",
            f"the run judged {info.source!r}, whose fingerprint {info.fingerprint[:12]} matches no accepted run "
            f"of the task's dataset {spec.dataset.path}",
        )


def _load(spec: TaskSpec, **kwargs: Any) -> LoadedTask:
    try:
        return load_examples(spec, **kwargs)
    except JudgebenchError as exc:
        raise Rejected("data", f"cannot reload the examples to verify the run ({exc}); pass a local copy with --dataset-path") from None
