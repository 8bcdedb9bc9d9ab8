"""Sharding a huge task across machines and merging the shard runs back into one run directory.

    judgebench run ... --shard 1/4 --output-path runs/s1     # on machine 1 (2/4, 3/4, 4/4 elsewhere)
    judgebench merge runs/s1 runs/s2 runs/s3 runs/s4 --output-path runs/all

`--shard K/N` keeps the K-th of N contiguous blocks of the task's examples (after `--limit`), in
the data's order: block K is examples [floor((K-1) n / N), floor(K n / N)). Contiguous blocks, not
a hash of the id, so that concatenating the shards' samples in shard order gives exactly the
single run's samples in the single run's order, and every figure (bootstrap intervals included,
which resample examples in table order) equals the single run's. `merge` checks that the shards are
the N shards of one run configuration (same task, judge, arguments, prompt, data, seed, ...), each
exactly once, then re-scores the concatenated samples (no calls) and writes one run directory; the shards'
repeats.jsonl (`--repeats`, with the stability figures recomputed) and unlabelled.jsonl (`--judge-unlabelled`)
are concatenated in shard order too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from judgebench.calls.stopping import written_whole
from judgebench.core.errors import JudgebenchError

if TYPE_CHECKING:  # the CLI imports this module for its parser: keep `judgebench --help` light
    from judgebench.core.records import JudgmentRecord, PairExample, RunConfig, RunResult
    from judgebench.tasks.loading import LoadedTask

T = TypeVar("T")

# Config fields allowed to differ between the shards of one run.
_PER_SHARD = {"shard", "started_at", "ended_at", "partial"}


def parse_shard(text: str) -> tuple[int, int]:
    """'K/N' -> (K, N) with 1 <= K <= N; anything else is one line naming --shard."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not match:
        raise JudgebenchError(f"--shard: expected K/N (e.g. 1/4), got {text!r}")
    k, n = int(match.group(1)), int(match.group(2))
    if n < 1 or not 1 <= k <= n:
        raise JudgebenchError(f"--shard: K must be between 1 and N (N >= 1), got {k}/{n}")
    return k, n


def shard_text(k: int, n: int) -> str:
    return f"{k}/{n}"


def select_shard(examples: list[T], k: int, n: int) -> list[T]:
    """The K-th of N contiguous blocks (1-based); sizes differ by at most one."""
    size = len(examples)
    return examples[(k - 1) * size // n : k * size // n]


def shard_examples(loaded: LoadedTask, k: int, n: int) -> Sequence[PairExample]:
    """The examples of shard K/N: the K-th contiguous block; with unlabelled examples (`--judge-unlabelled`), the
    K-th block of the labelled examples and the K-th block of the unlabelled ones, in the data's order, so that
    every shard has labelled examples to score and the shards' files concatenated are the single run's."""
    from judgebench.tasks.stream_load import pick_examples

    if not loaded.unlabelled:
        return select_shard(loaded.examples, k, n)  # type: ignore[arg-type]  # a list or a lazy view
    labelled = [i for i, flag in enumerate(loaded.labelled) if flag]
    if len(labelled) < n:
        raise JudgebenchError(f"--shard {k}/{n}: the data has {len(labelled)} labelled example(s); each shard takes its "
                              f"block of the labelled examples and of the unlabelled ones: use at most {len(labelled)} shards")
    unlabelled = [i for i, flag in enumerate(loaded.labelled) if not flag]
    return pick_examples(loaded.examples, sorted(select_shard(labelled, k, n) + select_shard(unlabelled, k, n)))


def _shard_of(result: RunResult, where: Path) -> tuple[int, int]:
    shard = getattr(result.config, "shard", None)
    if shard is None:
        raise JudgebenchError(f"{where}: not a shard (results.json has no config.shard; run with --shard K/N)")
    return parse_shard(shard)


def _comparable(config: RunConfig) -> dict[str, Any]:
    return {k: v for k, v in config.model_dump(mode="json").items() if k not in _PER_SHARD}


def _repeats(result: RunResult) -> int:
    """How many times the run asked each judgment (`--repeats`; its stability figures say, 1 without them)."""
    return result.stability.repeats if result.stability is not None else 1


def check_shards(shards: list[tuple[Path, RunResult]]) -> list[tuple[Path, RunResult]]:
    """The N shards of one run configuration, each once; returned in shard order."""
    if not shards:
        raise JudgebenchError("merge: no shard run directory given")
    numbered = sorted(((_shard_of(result, path), path, result) for path, result in shards), key=lambda t: t[0])
    first_path, first = numbered[0][1], numbered[0][2]
    n = numbered[0][0][1]
    reference = _comparable(first.config)
    seen: dict[int, Path] = {}
    for (k, total), path, result in numbered:
        if total != n:
            raise JudgebenchError(f"{path}: shard {k}/{total}, but {first_path} is a shard of {n}")
        if k in seen:
            raise JudgebenchError(f"{path}: shard {k}/{n} given twice (also {seen[k]})")
        seen[k] = path
        differs = sorted((key for key, value in _comparable(result.config).items() if reference.get(key) != value),
                         key=lambda key: (key == "judge_config_hash", key))  # the field, before the hash made of it
        if differs:
            raise JudgebenchError(
                f"{path}: not a shard of the same run as {first_path} (config.{differs[0]} differs)"
            )
        if _repeats(result) != _repeats(first):
            raise JudgebenchError(f"{path}: not a shard of the same run as {first_path} (--repeats {_repeats(result)} "
                                  f"against {_repeats(first)})")
    missing = [str(k) for k in range(1, n + 1) if k not in seen]
    if missing:
        raise JudgebenchError(f"merge: shard(s) {', '.join(m + '/' + str(n) for m in missing)} missing")
    return [(path, result) for _, path, result in numbered]


def merge_runs(
    shard_dirs: list[Path], output_path: Path, include_paths: list[Path] | None = None,
    on_warning: Callable[[str], None] | None = None,
) -> RunResult:
    """Concatenate the shards' samples in shard order, re-score them (no calls) and write one run. `on_warning` is
    told, once the shards are read and checked, when `output_path` holds another run that the merged one replaces."""
    from judgebench.core.rundir import (
        PROMPT_FILE,
        TASK_FILE,
        check_run_files,
        read_run,
        read_unlabelled,
        replacing,
        write_run,
    )
    from judgebench.scoring.repeats import stability_summary
    from judgebench.scoring.score import score
    from judgebench.scoring.usage import summarize_unlabelled
    from judgebench.tasks.registry import run_task_spec

    check_run_files(output_path)  # (someone else's results.json was replaced without a word)
    runs = [(Path(d), *read_run(Path(d))) for d in shard_dirs]
    ordered = check_shards([(path, result) for path, result, _ in runs])
    unlabelled_of = {path: read_unlabelled(path, result, records) for path, result, records in runs}
    repeats_of = {path: _shard_repeats(path, result, len(records)) for path, result, records in runs}
    records_of = {path: records for path, _, records in runs}
    records: list[JudgmentRecord] = []
    unlabelled: list[JudgmentRecord] = []
    repeats: list[JudgmentRecord] = []
    for path, _ in ordered:
        records.extend(records_of[path])
        unlabelled.extend(unlabelled_of[path])
        repeats.extend(repeats_of[path])
    _check_disjoint([path for path, _ in ordered], {path: [*records_of[path], *unlabelled_of[path]] for path in records_of})
    first_path, first = ordered[0]
    configs = [result.config for _, result in ordered]
    config = first.config.model_copy(
        update={
            "shard": None,
            "started_at": min(c.started_at for c in configs),
            "ended_at": max((c.ended_at for c in configs if c.ended_at), default=None),
            "partial": any(c.partial for c in configs),
        }
    )
    spec = run_task_spec(first_path, config.task, include_paths or [])
    result = score(records, config, spec, n_examples=sum(r.counts.examples for _, r in ordered))
    result.unlabelled = summarize_unlabelled(unlabelled, sum(r.unlabelled.examples for _, r in ordered if r.unlabelled),
                                             joint=config.joint)
    if repeats:
        result.stability = stability_summary(
            [*records, *repeats], 1 + max(r.repeat for r in repeats), headline=config.headline,
            both_bad=config.both_bad, allow_tie="TIE" in spec.verdicts, seed=config.seed, n_resamples=config.n_resamples,
            joint=config.joint,
        )
    partial = [f"{path} (shard {result.config.shard})" for path, result in ordered if result.config.partial]
    if on_warning is not None and partial:  # (the header said PARTIAL, and nothing named the shard)
        on_warning(f"partial shards: {', '.join(partial)}: their runs stopped early, so the merged run is partial; "
                   "rerun each into its folder to finish it, then merge again")
    if on_warning is not None and (message := replacing(output_path, config.task, config.judge, config.judge_config_hash)):
        on_warning(f"--output-path {message}")
    try:
        output_path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise JudgebenchError(f"--output-path {output_path}: cannot write there ({exc.strerror or exc})") from None
    with written_whole(f"the merged run {output_path}"):
        write_run(output_path, result, records, task_file=first_path / TASK_FILE, prompt_file=first_path / PROMPT_FILE,
                  repeats=repeats, unlabelled=unlabelled)
    return result


def _shard_repeats(path: Path, result: RunResult, judgments: int) -> list[JudgmentRecord]:
    """A shard's repeats.jsonl (`--repeats`), as many as its stability figures count beyond its samples."""
    from judgebench.core.rundir import read_repeats

    stability = result.stability
    expected = stability.judgments_all - judgments if stability is not None and stability.judgments_all else None
    return read_repeats(path, result.config.task, result.config.judge, expected)


def _check_disjoint(order: list[Path], records_of: dict[Path, list[JudgmentRecord]]) -> None:
    """No example is judged in two shards (shards of one run never overlap)."""
    owner: dict[str, Path] = {}
    for path in order:
        for record in records_of[path]:
            other = owner.setdefault(record.example_id, path)
            if other != path:
                raise JudgebenchError(f"{path}: example {record.example_id} is also in shard {other}")
