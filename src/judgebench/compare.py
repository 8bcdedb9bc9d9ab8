"""`judgebench compare`: a paired comparison of two runs of one task on the same examples.

Headline difference with a paired-bootstrap CI over examples (both orders and all dimensions of
an example move together), McNemar's exact test on the judgments whose correctness changed, the
flip table, order-consistency and invalid/failed-rate deltas, and both prompt-template hashes.
The gate (`--fail-if-worse-by X`, in percentage points) fails only when the candidate's headline
is lower by more than X AND the drop is significant: McNemar p < alpha and the CI's upper end < 0.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .errors import JudgebenchError
from .records import JudgmentRecord, RunResult

BOOTSTRAP_RESAMPLES = 2000
ALPHA = 0.05


@dataclass
class Side:
    """One run as the comparison sees it."""

    run_dir: str
    judge: str
    prompt_template: str
    prompt_template_hash: str
    value: float  # headline on the paired examples
    order_consistency: float | None
    invalid_rate: float
    failed_rate: float
    unrecorded: int  # replay judgments that had no recorded answer


@dataclass
class Flip:
    """One judgment (example, dimension, order) whose outcome changed between the runs."""

    example_id: str
    dimension: str
    order: str
    label: str
    baseline: str  # verdict, or INVALID / FAILED
    candidate: str
    change: str  # fixed (wrong -> right), broken (right -> wrong), changed (wrong -> other wrong)


@dataclass
class Comparison:
    task: str
    headline: str  # accuracy or soft_accuracy
    scope: str  # the dimension the headline is over ("overall", or "mean" of several)
    examples: int  # paired examples
    judgments: int  # paired judgments
    baseline: Side
    candidate: Side
    difference: float  # candidate - baseline, as a fraction
    ci_low: float
    ci_high: float
    baseline_only_right: int  # McNemar discordant pairs
    candidate_only_right: int
    mcnemar_p: float
    flips: list[Flip] = field(default_factory=list)
    per_dimension: dict[str, dict[str, float]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def significant(self) -> bool:
        """McNemar p < ALPHA and the paired CI excludes zero."""
        return self.mcnemar_p < ALPHA and (self.ci_high < 0 or self.ci_low > 0)

    def regressed(self, worse_by_points: float) -> bool:
        """The drop exceeds the threshold (percentage points) and is significant."""
        return -100 * self.difference > worse_by_points and self.significant and self.ci_high < 0

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["significant"] = self.significant
        return data


# ----------------------------------------------------------------------------- computing


def compare_runs(baseline_dir: Path, candidate_dir: Path, *, seed: int = 0, n_resamples: int = BOOTSTRAP_RESAMPLES) -> Comparison:
    """Pair two runs of one task on their common examples and compare them."""
    from .pipeline import read_run

    base_result, base_records = read_run(baseline_dir)
    cand_result, cand_records = read_run(candidate_dir)
    _check_comparable(base_result, cand_result)
    both_bad = base_result.config.both_bad
    headline = str(base_result.diagnostics.get("headline") or "accuracy")
    base_table = _per_example(base_records, both_bad)
    cand_table = _per_example(cand_records, both_bad)
    common = [key for key in base_table if key in cand_table]
    if not common:
        raise JudgebenchError("compare: the two runs share no (example, dimension) to pair")
    _check_labels(base_table, cand_table, common)
    column = "soft" if headline == "soft_accuracy" else "exact"
    diffs, base_values, cand_values = _example_scores(base_table, cand_table, common, column)
    low, high = paired_bootstrap_ci(diffs, seed=seed, n_resamples=n_resamples)
    pairs = _judgment_pairs(base_records, cand_records, common, both_bad)
    b, c = _discordant(pairs)
    dimensions = sorted({dim for _, dim in common})
    return Comparison(
        task=base_result.config.task,
        headline=headline,
        scope=dimensions[0] if len(dimensions) == 1 else "mean",
        examples=len(diffs),
        judgments=len(pairs),
        baseline=_side(baseline_dir, base_result, base_records, base_table, common, float(base_values.mean())),
        candidate=_side(candidate_dir, cand_result, cand_records, cand_table, common, float(cand_values.mean())),
        difference=float(diffs.mean()),
        ci_low=low,
        ci_high=high,
        baseline_only_right=b,
        candidate_only_right=c,
        mcnemar_p=mcnemar_exact(b, c),
        flips=_flips(pairs),
        per_dimension=_per_dimension(base_table, cand_table, common, column, dimensions),
        notes=_notes(base_result, cand_result, base_table, cand_table, common),
    )


def _check_comparable(base: RunResult, cand: RunResult) -> None:
    if base.config.task != cand.config.task:
        raise JudgebenchError(f"compare: different tasks ({base.config.task} vs {cand.config.task})")
    if base.config.both_bad != cand.config.both_bad:
        raise JudgebenchError("compare: the runs score Both Bad labels differently (--both-bad)")


def _per_example(records: list[JudgmentRecord], both_bad: str) -> dict[tuple[str, str], dict[str, Any]]:
    """(example_id, dimension) -> per-example row of metrics.example_table (scores over the orders run)."""
    from .metrics import example_table

    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for dimension in dict.fromkeys(r.dimension for r in records):
        table = example_table(records, dimension, both_bad)  # type: ignore[arg-type]
        for row in table.to_dict("records"):
            rows[(str(row["example_id"]), dimension)] = row
    return rows


def _check_labels(base: dict, cand: dict, common: list[tuple[str, str]]) -> None:
    for key in common:
        if base[key]["label"] != cand[key]["label"]:
            raise JudgebenchError(f"compare: example {key[0]} ({key[1]}) has different labels in the two runs: not the same data")


def _example_scores(
    base: dict, cand: dict, common: list[tuple[str, str]], column: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-example scores (mean over dimensions) of both runs and their differences."""
    by_example: dict[str, list[tuple[float, float]]] = {}
    for key in common:
        by_example.setdefault(key[0], []).append((float(base[key][column]), float(cand[key][column])))
    base_values = np.array([np.mean([b for b, _ in pairs]) for pairs in by_example.values()])
    cand_values = np.array([np.mean([c for _, c in pairs]) for pairs in by_example.values()])
    return cand_values - base_values, base_values, cand_values


def paired_bootstrap_ci(
    diffs: np.ndarray, *, seed: int = 0, n_resamples: int = BOOTSTRAP_RESAMPLES, confidence: float = 0.95
) -> tuple[float, float]:
    """Percentile CI of the mean per-example difference, resampling examples (seeded)."""
    rng = np.random.default_rng(seed)
    n = len(diffs)
    means = np.empty(n_resamples)
    chunk = max(1, 2_000_000 // max(n, 1))
    for start in range(0, n_resamples, chunk):
        stop = min(start + chunk, n_resamples)
        means[start:stop] = diffs[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
    tail = 100 * (1 - confidence) / 2
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)


def mcnemar_exact(baseline_only: int, candidate_only: int) -> float:
    """Two-sided exact McNemar p-value: a binomial test on the discordant pairs."""
    from scipy.stats import binomtest

    total = baseline_only + candidate_only
    return 1.0 if total == 0 else float(binomtest(candidate_only, total, 0.5).pvalue)


def _outcome(record: JudgmentRecord | None) -> str:
    if record is None:
        return "MISSING"
    if record.status == "ANSWERED" and record.verdict is not None:
        return record.verdict
    return record.status


def _scored_label(label: str, both_bad: str) -> str:
    return "TIE" if label == "BOTH_BAD" and both_bad == "tie" else label


def _judgment_pairs(
    base: list[JudgmentRecord], cand: list[JudgmentRecord], common: list[tuple[str, str]], both_bad: str
) -> list[tuple[str, str, str, str, str, str]]:
    """(example, dimension, order, label, baseline outcome, candidate outcome) for the paired judgments."""
    base_by = {(r.example_id, r.dimension, r.order): r for r in base}
    cand_by = {(r.example_id, r.dimension, r.order): r for r in cand}
    keep = set(common)
    pairs = []
    for key, record in base_by.items():
        if (key[0], key[1]) not in keep or key not in cand_by:
            continue
        label = _scored_label(record.label, both_bad)
        pairs.append((*key, label, _outcome(record), _outcome(cand_by[key])))
    return sorted(pairs)


def _discordant(pairs: list[tuple[str, str, str, str, str, str]]) -> tuple[int, int]:
    baseline_only = sum(b == label and c != label for *_, label, b, c in pairs)
    candidate_only = sum(c == label and b != label for *_, label, b, c in pairs)
    return baseline_only, candidate_only


def _flips(pairs: list[tuple[str, str, str, str, str, str]]) -> list[Flip]:
    flips = []
    for example_id, dimension, order, label, before, after in pairs:
        if before == after:
            continue
        change = "fixed" if after == label else "broken" if before == label else "changed"
        flips.append(Flip(example_id, dimension, order, label, before, after, change))
    return flips


def _side(
    run_dir: Path,
    result: RunResult,
    records: list[JudgmentRecord],
    table: dict,
    common: list[tuple[str, str]],
    value: float,
) -> Side:
    """One run's figures over the paired examples."""
    from .judges.replay import UNRECORDED

    rows = [table[key] for key in common]
    expected = sum(int(row["n_expected"]) for row in rows)
    both = sum(bool(row.get("both_answered")) for row in rows)
    agree = sum(float(row["agree"]) for row in rows if row.get("both_answered"))
    marker = UNRECORDED.split("{")[0]
    return Side(
        run_dir=str(run_dir),
        judge=result.config.judge,
        prompt_template=result.config.prompt_template,
        prompt_template_hash=result.config.prompt_template_hash,
        value=value,
        order_consistency=agree / both if both else None,
        invalid_rate=sum(int(row["n_invalid"]) for row in rows) / expected if expected else 0.0,
        failed_rate=sum(int(row["n_failed"]) for row in rows) / expected if expected else 0.0,
        unrecorded=sum((r.error or "").startswith(marker) for r in records),
    )


def _per_dimension(
    base: dict, cand: dict, common: list[tuple[str, str]], column: str, dimensions: list[str]
) -> dict[str, dict[str, float]]:
    """dimension -> baseline, candidate, difference (only for multi-dimension tasks)."""
    if len(dimensions) < 2:
        return {}
    out = {}
    for dimension in dimensions:
        keys = [key for key in common if key[1] == dimension]
        b = float(np.mean([base[key][column] for key in keys]))
        c = float(np.mean([cand[key][column] for key in keys]))
        out[dimension] = {"baseline": b, "candidate": c, "difference": c - b}
    return out


def _notes(base: RunResult, cand: RunResult, base_table: dict, cand_table: dict, common: list) -> list[str]:
    notes = []
    if base.config.dataset.fingerprint != cand.config.dataset.fingerprint:
        notes.append("the runs' dataset fingerprints differ: paired on the examples they share")
    if len(common) < max(len(base_table), len(cand_table)):
        notes.append(
            f"paired {len(common)} (example, dimension) units; baseline has {len(base_table)}, candidate {len(cand_table)}"
        )
    if base.config.swap != cand.config.swap:
        notes.append("one run judged a single order: judgments are paired on the orders both ran")
    return notes


# ----------------------------------------------------------------------------- output


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}%"


def _points(value: float) -> str:
    return f"{100 * value:+.2f} points"


def format_comparison(comparison: Comparison, max_flips: int = 20) -> str:
    """A human summary: figures, test, deltas, hashes, flips."""
    c, base, cand = comparison, comparison.baseline, comparison.candidate
    template_changed = "changed" if base.prompt_template_hash != cand.prompt_template_hash else "same"
    lines = [
        f"compare {c.task}: baseline {base.run_dir} ({base.judge}) vs candidate {cand.run_dir} ({cand.judge})",
        f"  prompt template   baseline {base.prompt_template}@{base.prompt_template_hash[:10]}, "
        f"candidate {cand.prompt_template}@{cand.prompt_template_hash[:10]} ({template_changed})",
        f"  paired            {c.examples} examples, {c.judgments} judgments",
        f"  {c.headline + ' (' + c.scope + ')':<17} {_pct(base.value)} -> {_pct(cand.value)}: {_points(c.difference)}, "
        f"95% paired-bootstrap CI [{100 * c.ci_low:+.2f}, {100 * c.ci_high:+.2f}]",
        f"  McNemar exact     baseline-only right {c.baseline_only_right}, candidate-only right "
        f"{c.candidate_only_right}, p = {c.mcnemar_p:.4g}" + (" (significant)" if c.significant else ""),
        f"  order consistency {_pct(base.order_consistency)} -> {_pct(cand.order_consistency)}"
        + (
            f" ({_points(cand.order_consistency - base.order_consistency)})"
            if base.order_consistency is not None and cand.order_consistency is not None
            else ""
        ),
        f"  invalid rate      {_pct(base.invalid_rate)} -> {_pct(cand.invalid_rate)} ({_points(cand.invalid_rate - base.invalid_rate)})",
        f"  failed rate       {_pct(base.failed_rate)} -> {_pct(cand.failed_rate)} ({_points(cand.failed_rate - base.failed_rate)})",
    ]
    if c.per_dimension:
        lines.append(f"  per dimension     {c.headline}, baseline -> candidate")
    for dimension, values in c.per_dimension.items():
        lines.append(
            f"    {dimension}: {_pct(values['baseline'])} -> {_pct(values['candidate'])} ({_points(values['difference'])})"
        )
    if cand.unrecorded or base.unrecorded:
        lines.append(
            f"  unrecorded prompts: candidate {cand.unrecorded}, baseline {base.unrecorded} "
            "(replay had no recorded answer: the rendered prompt changed)"
        )
    lines.extend(_flip_lines(c.flips, max_flips))
    lines.extend(f"  note: {note}" for note in c.notes)
    return "\n".join(lines)


def _flip_lines(flips: list[Flip], max_flips: int) -> list[str]:
    counts = {kind: sum(f.change == kind for f in flips) for kind in ("fixed", "broken", "changed")}
    lines = [
        f"  flips             {len(flips)} judgments changed: {counts['fixed']} fixed (wrong -> right), "
        f"{counts['broken']} broken (right -> wrong), {counts['changed']} other"
    ]
    shown = sorted(flips, key=lambda f: ({"broken": 0, "fixed": 1}.get(f.change, 2), f.example_id))[:max_flips]
    if shown:
        lines.append("    example | dimension | order | label | baseline -> candidate | change")
        lines.extend(
            f"    {f.example_id} | {f.dimension} | {f.order} | {f.label} | {f.baseline} -> {f.candidate} | {f.change}"
            for f in shown
        )
    if len(flips) > len(shown):
        lines.append(f"    ... {len(flips) - len(shown)} more (all in --output FILE)")
    return lines


def gate_message(comparison: Comparison, worse_by_points: float) -> tuple[bool, str]:
    """(failed, one line) for --fail-if-worse-by."""
    drop = -100 * comparison.difference
    if comparison.regressed(worse_by_points):
        return True, (
            f"regression: {comparison.headline} dropped {drop:.2f} points (> {worse_by_points:g}), "
            f"significant (McNemar p = {comparison.mcnemar_p:.3g}, CI upper end {100 * comparison.ci_high:+.2f})"
        )
    why = "not more than the threshold" if drop <= worse_by_points else "not significant"
    return False, f"gate passed: change {-drop:+.2f} points ({why}; threshold {worse_by_points:g} points)"


def write_comparison(comparison: Comparison, path: Path) -> None:
    from .files import write_atomic

    write_atomic(path, json.dumps(comparison.to_json(), indent=2) + "\n")
