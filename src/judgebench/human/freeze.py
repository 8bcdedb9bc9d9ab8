"""`judgebench freeze`: votes -> a frozen evaluation split, its dataset card and a task YAML `run` accepts.

The split is drawn the way SciArena-Eval was (500 pairs per discipline, 250 A / 250 B, ties excluded):
1. Votes of flagged annotators are dropped (`--exclude-annotators`: a file with one name per line, `#`
   comments allowed, as the anomalous-voter detector of `judgebench arena` lists them, or names
   separated by commas). An annotator's repeated vote on one pair counts once (the first, as in `arena`:
   three votes of one person had outvoted two others).
2. Each pair's label is votes.majority_label over the remaining votes (MAJORITY_RULE); pairs with fewer
   than `--min-votes` votes are left out. Multi-dimension votes get a label per dimension; the first
   dimension is the one balanced.
3. Ties: `--ties drop` (default, SciArena-Eval's rule) leaves out pairs labelled TIE or BOTH_BAD and makes
   a binary task (accuracy; the pair labels are decisive, single votes may still be TIE or Both Bad,
   scored as ties in the human ceiling); `--ties keep` keeps them as strata of their own (verdicts A/B/TIE, soft
   accuracy, Both Bad scored as a tie).
4. Strata are (slice values, label); the split takes pairs round-robin over the strata (seeded order
   within each), so every stratum gets the same count until it runs out.
"""

from __future__ import annotations

import argparse
import os
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgebench.core.errors import JudgebenchError
from judgebench.core.files import read_names, regular_text
from judgebench.core.records import DEFAULT_DIMENSION
from judgebench.core.text import md_cell, md_text
from judgebench.tasks.votes import MAJORITY_RULE, Vote, majority_label, pair_text_hash, votes_by_pair

TIE_RULES = {
    "drop": "pairs whose majority label is TIE or BOTH_BAD are left out (SciArena-Eval's rule: decisive labels only)",
    "keep": "pairs labelled TIE or BOTH_BAD are kept as strata of their own; Both Bad is scored as a tie",
}


@dataclass
class Frozen:
    rows: list[dict[str, Any]]
    dimensions: list[str]  # [] for single-dimension votes
    eligible: int
    excluded_votes: int
    strata: dict[str, int]
    repeated_votes: int = 0  # an annotator's later votes on a pair already voted: set aside


def read_flagged(text: str | None) -> set[str]:
    """Flagged annotators from a names file (core/files.read_names) or a comma-separated list."""
    if not text:
        return set()
    path = Path(text)
    if path.is_file():
        try:
            lines = regular_text(path).splitlines()
        except UnicodeDecodeError:
            raise JudgebenchError(f"--exclude-annotators {path}: not UTF-8 text") from None
        return set(read_names("\n".join(lines), f"--exclude-annotators {path}"))
    if "/" in text or "\\" in text or text.endswith((".txt", ".csv", ".list")):
        raise JudgebenchError(f"--exclude-annotators {text}: no such file (a file of names, e.g. arena's flagged.txt, "
                              "or names separated by commas)")
    if "," not in text and _misspelt_extension(path):  # (flagged.txtt was taken as a name)
        near = _near_file(path)
        raise JudgebenchError(f"--exclude-annotators {text}: no such file{f'; did you mean {near}?' if near else ''} "
                              "(names are separated by commas; end a single name with one: NAME,)")
    return {name.strip() for name in text.split(",")} - {""}


def _misspelt_extension(path: Path) -> bool:
    """Whether the name ends in a misspelt names-file extension (`.txtt`, `.cvs`, `.lst`); a name such as `rater.1`,
    `alice@lab.org` or `ona@vu.lt` does not."""
    import difflib

    ext, known = path.suffix[1:].lower(), ("txt", "csv", "list", "tsv")  # (two letters: a country's domain, ona@vu.lt)
    return len(ext) >= 3 and ext.isalpha() and (bool(difflib.get_close_matches(ext, known, n=1, cutoff=0.8))
                                                or any(sorted(ext) == sorted(k) for k in known))


def _near_file(path: Path) -> str | None:
    """A file beside `path` whose name is one or two letters off its name, if any."""
    import difflib

    folder = path.parent if str(path.parent) else Path(".")
    try:
        names = [p.name for p in folder.iterdir() if p.is_file()]
    except OSError:
        return None
    close = difflib.get_close_matches(path.name, names, n=1, cutoff=0.85)
    return str(folder / close[0]) if close else None


def pair_labels(votes: list[Vote], dimensions: list[str]) -> dict[str, str]:
    """dimension -> majority label over these votes (DEFAULT_DIMENSION for single-dimension votes)."""
    labels = {}
    for dimension in dimensions or [DEFAULT_DIMENSION]:
        cast = [label for v in votes if (label := v.label_for(dimension)) is not None]
        if cast:
            labels[dimension] = majority_label(cast)
    return labels


def freeze_split(votes: list[Vote], pairs: dict[str, dict[str, Any]], *, size: int, seed: int, ties: str = "drop",
                 flagged: set[str] = frozenset(), min_votes: int = 1) -> Frozen:  # type: ignore[assignment]
    """Draw the split (see the module docstring); a vote on an unknown pair or too few pairs is one error."""
    if unknown := sorted({v.pair_id for v in votes} - set(pairs)):
        raise JudgebenchError(f"votes name {len(unknown)} pairs the pairs file does not hold, e.g. {unknown[0]!r}")
    held_texts: dict[str, str] = {}  # pair -> the hash of the texts the pairs file holds (once a pair)
    for vote in votes:  # a vote's A and B are the pair's: a vote that names other models has other sides
        pair = pairs[vote.pair_id]
        named, held = (vote.model_a, vote.model_b), (pair.get("model_a"), pair.get("model_b"))
        if all(named) and all(held) and named != held:
            raise JudgebenchError(f"vote of {vote.annotator} on pair {vote.pair_id!r} names models {named[0]} vs {named[1]}; "
                                  f"the pairs file has {held[0]} vs {held[1]} (its A and B would be another pair's)")
        if vote.pair_sha256 is not None and vote.pair_id not in held_texts:
            held_texts[vote.pair_id] = pair_text_hash(pair)
        if vote.pair_sha256 is not None and vote.pair_sha256 != held_texts[vote.pair_id]:
            raise JudgebenchError(f"vote of {vote.annotator} on pair {vote.pair_id!r} was cast on other texts than the "
                                  "pairs file holds under that id (its question or responses changed since): freeze "
                                  "with the pairs file the votes were cast on")
    kept = [v for v in votes if v.annotator not in flagged]
    first = {(v.pair_id, v.annotator): v for v in reversed(kept)}  # each annotator's first vote on a pair
    repeated = len(kept) - len(first)
    kept = [v for v in kept if first[(v.pair_id, v.annotator)] is v]
    dimensions = list(dict.fromkeys(d for v in kept for d in v.choices))
    if dimensions and any(v.choice is not None for v in kept):
        raise JudgebenchError("votes mix single choices and per-dimension choices; freeze one kind at a time")
    strata: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    eligible = 0
    for pair_id, group in votes_by_pair(kept).items():
        labels = pair_labels(group, dimensions)
        primary = labels.get(dimensions[0] if dimensions else DEFAULT_DIMENSION)
        if len(group) < min_votes or primary is None or (ties == "drop" and primary in ("TIE", "BOTH_BAD")):
            continue
        eligible += 1
        row = _row(pairs[pair_id], labels, dimensions, group)
        strata.setdefault(_stratum(row, dimensions), []).append(row)
    if size > eligible:
        raise JudgebenchError(f"--split-size {size}: only {eligible} pairs are eligible (after exclusions, the ties "
                              f"rule and --min-votes {min_votes})")
    rng = random.Random(seed)
    queues = []
    for key in sorted(strata):
        members = sorted(strata[key], key=lambda r: r["id"])
        rng.shuffle(members)
        queues.append((key, members))
    chosen: list[dict[str, Any]] = []
    while len(chosen) < size:
        for _, members in queues:
            if members and len(chosen) < size:
                chosen.append(members.pop())
    counts = Counter(" ".join(_stratum(row, dimensions)) for row in chosen)
    excluded = len(votes) - len(kept) - repeated
    return Frozen(sorted(chosen, key=lambda r: r["id"]), dimensions, eligible, excluded, dict(sorted(counts.items())),
                  repeated)


def _stratum(row: dict[str, Any], dimensions: list[str]) -> tuple[str, ...]:
    """A row's stratum: its slice values and its label on the balanced (first) dimension."""
    label = row[f"label_{dimensions[0] if dimensions else DEFAULT_DIMENSION}"]
    return (*[f"{k}={v}" for k, v in sorted(row["slices"].items())], f"label={label}")


def _row(pair: dict[str, Any], labels: dict[str, str], dimensions: list[str], group: list[Vote]) -> dict[str, Any]:
    row = {key: pair.get(key) for key in ("id", "question", "response_a", "response_b", "model_a", "model_b")}
    row["slices"] = dict(pair.get("slices", {}))
    for dimension, label in labels.items():
        row[f"label_{dimension}"] = label
    row["n_votes"] = len(group)
    for dimension in labels:  # the annotator-level votes, so a run on the split gets the human row
        row[f"votes_{dimension}"] = [
            {"annotator": v.annotator, "label": label, **({"timestamp": v.timestamp} if v.timestamp else {})}
            for v in group if (label := v.label_for(dimension)) is not None]
    return row


def task_yaml(name: str, data_file: Path, frozen: Frozen, ties: str, slice_names: list[str],
              yaml_dir: Path | None = None) -> dict[str, Any]:
    """The task definition `judgebench run --tasks DIR/NAME.yaml` accepts (data: the split file beside it).

    dataset.path is relative to the folder the YAML is written to (`yaml_dir`, by default the data file's):
    the registry resolves it there, so the frozen folder runs unchanged wherever it is copied."""
    folder = (yaml_dir or data_file.parent).resolve()
    data_path = Path(os.path.relpath(data_file.resolve(), folder)).as_posix()
    binary = ties == "drop"
    spec: dict[str, Any] = {
        "name": name, "version": "1",
        "description": f"Frozen from annotator votes by judgebench freeze ({'A/B only' if binary else 'with ties'}).",
        "dataset": {"path": data_path, "split": "test", "license": "see README.md"},
        "layout": "wide",
        "columns": {"id": "id", "question": "question", "response_a": "response_a", "response_b": "response_b",
                    "model_a": "model_a", "model_b": "model_b", "slices": slice_names},
        # individual votes may be TIE / Both Bad even when the pair labels are decisive
        "labels": {"A": "A", "B": "B", "TIE": "TIE", "BOTH_BAD": "BOTH_BAD"},
        "votes": {"layout": "list", "rule": "majority"},
        "verdicts": ["A", "B"] if binary else ["A", "B", "TIE"],
        "prompt": "pairwise_generic.yaml",
        "headline": "accuracy" if binary else "soft_accuracy",
    }
    if frozen.dimensions:
        spec["dimensions"] = [{"name": d, "label_column": f"votes_{d}", "criterion": f"Which response is better on {d}?"}
                              for d in frozen.dimensions]
        spec["dimension_mode"] = "separate"
    else:
        spec["columns"]["label"] = "votes_overall"
    spec["both_bad"] = "tie"
    return spec


CARD_MARK = "frozen by `judgebench freeze`"  # how a folder's README.md reads as a card freeze wrote (cli/annotate)


def dataset_card(name: str, frozen: Frozen, args: argparse.Namespace, votes_sha: str, flagged: set[str]) -> str:
    labels = Counter(r[f"label_{frozen.dimensions[0] if frozen.dimensions else DEFAULT_DIMENSION}"] for r in frozen.rows)
    lines = [
        f"# {md_text(name)}", "", f"A pairwise human-preference evaluation split {CARD_MARK}.", "",
        f"- pairs: {len(frozen.rows)} drawn from {frozen.eligible} eligible (seed {args.seed})",
        f"- votes file: {md_text(args.votes.name)} (sha256 {votes_sha})",
        f"- label rule: {MAJORITY_RULE}",
        f"- ties rule (`--ties {args.ties}`): {TIE_RULES[args.ties]}",
        f"- minimum votes per pair: {args.min_votes}",
        f"- annotators excluded: {md_text(', '.join(sorted(flagged))) if flagged else 'none'} ({frozen.excluded_votes} votes dropped)",
        f"- labels: {md_text(', '.join(f'{label} {n}' for label, n in sorted(labels.items())))}", "", "## Strata (slice values and label)", "",
        "| stratum | pairs |", "|---|---|", *[f"| {md_cell(k)} | {n} |" for k, n in frozen.strata.items()], "",
        "## Columns", "",
        "`id`, `question`, `response_a`, `response_b`, `model_a`, `model_b`, one column per slice, "
        "`label_<dimension>` (A, B, TIE or BOTH_BAD, in the stored positions), `n_votes` and "
        "`votes_<dimension>` (the kept annotator-level votes, {annotator, label[, timestamp]}; the task derives "
        "each pair's label from them by the same majority rule, so its leaderboards carry the human row).",
    ]
    return "\n".join(lines) + "\n"
