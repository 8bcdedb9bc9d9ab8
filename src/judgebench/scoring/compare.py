"""`judgebench compare`: a paired comparison of two runs of one task on the same examples.

The unit of every paired figure is the example: its headline score is the mean over the orders run and the
dimensions (as in the run's headline); the comparison works on the per-example differences candidate - baseline.
Reported: their mean with a paired-bootstrap CI, one significance test of that same difference (`paired_test`),
the flips (score or verdicts changed), order-consistency and invalid/failed-rate deltas, template hashes, and
each run's value-only catalogue metrics. The test and the interval are in stats/paired.py. The gate's decision
(`--fail-if-worse-by X`, percentage points: `Comparison.gate_failure`) fails on a difference that is negative,
larger than X, with that test giving p < ALPHA, and on a candidate that lacks units of the baseline or holds
unrecorded replay prompts; its words and the output file are in publish/compare.py.
"""

from __future__ import annotations

import json
import numbers
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from judgebench.core.catalogue import metric
from judgebench.core.errors import JudgebenchError
from judgebench.core.records import JudgmentRecord, RunResult, failure_of
from judgebench.judges.config import named_judge, run_config_hash
from judgebench.scoring.metrics import run_values
from judgebench.stats.paired import (
    ALPHA,
    BOOTSTRAP_RESAMPLES,
    DECIMALS,
    MONTE_CARLO_RESAMPLES,
    PairedTest,
    paired_bootstrap_ci,
    paired_test,
)

Key = tuple[str, str]  # (example_id, dimension)
GateFailure = Literal["missing_units", "unrecorded", "regression"]
Pair = tuple[str, str, str, str, str, str]  # example, dimension, order, label, baseline, candidate


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
    unrecorded: int  # replay judgments of the paired examples that had no recorded answer
    judge_name: str | None = None  # the configuration's display name, and its hash (judges/config.py)
    config_hash: str | None = None

    @property
    def judge_label(self) -> str:
        """The model id, with the configuration's name when it has one."""
        return named_judge(self.judge, self.judge_name)


@dataclass
class Flip:
    """One example whose headline score or any verdict changed between the runs."""

    example_id: str
    label: str  # human label ("dimension=label ..." for several dimensions)
    baseline: float  # the example's headline score
    candidate: float
    change: str  # fixed (score rose), broken (score fell), changed (verdicts changed, same score)
    judgments: list[str] = field(default_factory=list)  # "[dimension ]order: baseline -> candidate"


@dataclass
class Comparison:
    task: str
    headline: str  # accuracy or soft_accuracy
    scope: str  # the dimension the headline is over ("overall", or "mean" of several)
    examples: int  # paired examples
    judgments: int  # paired judgments
    baseline: Side
    candidate: Side
    difference: float  # candidate - baseline, as a fraction (mean per-example difference)
    ci_low: float | None  # None from fewer than two shared examples (stats.paired.paired_bootstrap_ci)
    ci_high: float | None
    test: PairedTest
    flips: list[Flip] = field(default_factory=list)
    per_dimension: dict[str, dict[str, float]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    value_metrics: dict[str, dict[str, float | None]] = field(default_factory=dict)  # value_metrics.run_values
    config_changes: list[str] = field(default_factory=list)  # "judge_args.temperature: 0.0 -> 0.7", ... (config_changes)
    paired_units: int = 0  # (example, dimension) units both runs hold
    baseline_units: int = 0  # the baseline's units, paired or not

    @property
    def missing_units(self) -> int:
        """The baseline's (example, dimension) units the candidate does not hold: no gate can vouch for them."""
        return self.baseline_units - self.paired_units

    @property
    def significant(self) -> bool:
        """The paired test of the difference gives p < ALPHA."""
        return self.test.p < ALPHA

    def regressed(self, worse_by_points: float) -> bool:
        """The headline fell by more than the threshold (percentage points) and the test is significant."""
        return self.difference < 0 and -100 * self.difference > worse_by_points and self.significant

    def gate_failure(self, worse_by_points: float) -> GateFailure | None:
        """Why `compare --fail-if-worse-by` fails, in the order it checks, else None (the gate passes):
        "missing_units" (the candidate lacks some of the baseline's units: a gate vouches only for what it
        compared), "unrecorded" (replay had no recorded answer for some of the candidate's prompts: the rendered
        prompt changed, and no recording says what the judge answers now), "regression" (`regressed`)."""
        if isinstance(worse_by_points, bool) or not isinstance(worse_by_points, numbers.Real) or not worse_by_points >= 0:
            raise JudgebenchError(f"gate_failure: worse_by_points must be a number of percentage points >= 0, "
                                  f"got {worse_by_points!r}")
        if self.missing_units:
            return "missing_units"
        if self.candidate.unrecorded:
            return "unrecorded"
        return "regression" if self.regressed(worse_by_points) else None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        if self.ci_low is None or self.ci_high is None:  # undefined: left out, as compare's other figures
            del data["ci_low"], data["ci_high"]
        data["significant"] = self.significant
        data["missing_units"] = self.missing_units
        data["alpha"] = ALPHA
        return data


# ----------------------------------------------------------------------------- computing


def compare_runs(
    baseline_dir: Path,
    candidate_dir: Path,
    *,
    seed: int = 0,
    n_resamples: int = BOOTSTRAP_RESAMPLES,
    mc_resamples: int = MONTE_CARLO_RESAMPLES,
) -> Comparison:
    """Pair two runs of one task on their common examples and compare them."""
    from judgebench.core.rundir import read_run

    if seed < 0:
        raise JudgebenchError(f"compare: --seed must be a non-negative integer, got {seed}")
    if n_resamples < 1 or mc_resamples < 1:
        raise JudgebenchError("compare: resample counts must be positive")
    base_result, base_records = read_run(baseline_dir)
    cand_result, cand_records = read_run(candidate_dir)
    _check_comparable(base_result, cand_result)
    both_bad = base_result.config.both_bad
    headline = base_result.config.headline
    base_table = _per_example(base_records, both_bad)
    cand_table = _per_example(cand_records, both_bad)
    common = [key for key in base_table if key in cand_table]
    if not common:
        raise JudgebenchError("compare: the two runs share no (example, dimension) to pair")
    _check_labels(base_table, cand_table, common)
    column = "soft" if metric(headline).credit == "soft" else "exact"
    ids, base_values, cand_values = _example_scores(base_table, cand_table, common, column)
    diffs = cand_values - base_values
    low, high = paired_bootstrap_ci(diffs, seed=seed, n_resamples=n_resamples) or (None, None)
    pairs = _judgment_pairs(base_records, cand_records, common, both_bad)
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
        test=paired_test(base_values, cand_values, seed=seed, resamples=mc_resamples),
        flips=_flips(ids, base_values, cand_values, pairs, multi=len(dimensions) > 1),
        per_dimension=_per_dimension(base_table, cand_table, common, column, dimensions),
        notes=_notes(base_result, cand_result, base_table, cand_table, common),
        value_metrics=run_values(base_result, cand_result, dimensions[0] if len(dimensions) == 1 else "mean"),
        config_changes=config_changes(base_result, cand_result),
        paired_units=len(common),
        baseline_units=len(base_table),
    )


def _check_comparable(base: RunResult, cand: RunResult) -> None:
    if base.config.task != cand.config.task:
        raise JudgebenchError(f"compare: different tasks ({base.config.task} vs {cand.config.task})")
    if base.config.both_bad != cand.config.both_bad:
        raise JudgebenchError("compare: the runs score Both Bad labels differently (--both-bad)")
    base_headline, cand_headline = base.config.headline, cand.config.headline
    if base_headline != cand_headline:
        raise JudgebenchError(f"compare: different headlines ({base_headline} vs {cand_headline})")


def _per_example(records: list[JudgmentRecord], both_bad: str) -> dict[Key, dict[str, Any]]:
    """(example_id, dimension) -> per-example row of metrics.example_table (scores over the orders run)."""
    from judgebench.scoring.judgment_table import example_table

    rows: dict[Key, dict[str, Any]] = {}
    for dimension in dict.fromkeys(r.dimension for r in records):
        table = example_table(records, dimension, both_bad)  # type: ignore[arg-type]
        for row in table.to_dict("records"):
            rows[(str(row["example_id"]), dimension)] = row
    return rows


def _check_labels(base: dict, cand: dict, common: list[Key]) -> None:
    for key in common:
        if base[key]["label"] != cand[key]["label"]:
            raise JudgebenchError(f"compare: example {key[0]} ({key[1]}) has different labels in the two runs: not the same data")


def _example_scores(base: dict, cand: dict, common: list[Key], column: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Example ids and both runs' per-example headline scores (mean over orders, then over dimensions)."""
    by_example: dict[str, list[tuple[float, float]]] = {}
    for key in common:
        by_example.setdefault(key[0], []).append((float(base[key][column]), float(cand[key][column])))
    base_values = np.array([np.mean([b for b, _ in pairs]) for pairs in by_example.values()])
    cand_values = np.array([np.mean([c for _, c in pairs]) for pairs in by_example.values()])
    return list(by_example), np.round(base_values, DECIMALS), np.round(cand_values, DECIMALS)


# ----------------------------------------------------------------------------- judgments and flips


def _outcome(record: JudgmentRecord | None) -> str:
    if record is None:
        return "MISSING"
    if record.status == "ANSWERED" and record.verdict is not None:
        return record.verdict
    return record.status


def _scored_label(label: str, both_bad: str) -> str:
    return "TIE" if label == "BOTH_BAD" and both_bad == "tie" else label


def _judgment_pairs(base: list[JudgmentRecord], cand: list[JudgmentRecord], common: list[Key], both_bad: str) -> list[Pair]:
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


def _flips(ids: list[str], base_values: np.ndarray, cand_values: np.ndarray, pairs: list[Pair], *, multi: bool) -> list[Flip]:
    """Examples whose headline score or any verdict changed, with the judgments of the changed dimensions."""
    by_example: dict[str, list[Pair]] = {}
    for pair in pairs:
        by_example.setdefault(pair[0], []).append(pair)
    flips = []
    for example_id, before, after in zip(ids, base_values.tolist(), cand_values.tolist()):
        judged = by_example.get(example_id, [])
        changed = {dim for _, dim, _, _, b, c in judged if b != c}
        if before == after and not changed:
            continue
        shown = [pair for pair in judged if pair[1] in changed] or judged
        labels = dict.fromkeys((dim, label) for _, dim, _, label, _, _ in judged)
        label = " ".join(f"{dim}={lab}" for dim, lab in labels) if multi else " ".join(lab for _, lab in labels)
        flips.append(
            Flip(
                example_id=example_id,
                label=label,
                baseline=before,
                candidate=after,
                change="fixed" if after > before else "broken" if after < before else "changed",
                judgments=_verdict_changes(shown, multi=multi),
            )
        )
    return flips


def _verdict_changes(pairs: list[Pair], *, multi: bool) -> list[str]:
    """"[dimension ]AB: A -> B", orders with the same change joined ("AB+BA: TIE -> B")."""
    orders: dict[tuple[str, str, str], list[str]] = {}
    for _, dim, order, _, before, after in pairs:
        orders.setdefault((dim, before, after), []).append(order)
    return [f"{dim + ' ' if multi else ''}{'+'.join(o)}: {b} -> {c}" for (dim, b, c), o in orders.items()]


def _side(run_dir: Path, result: RunResult, records: list[JudgmentRecord], table: dict, common: list[Key], value: float) -> Side:
    """One run's figures over the paired examples (unrecorded replay answers too: a candidate on more examples than
    the baseline has no recording for the others, and is compared on the baseline's)."""
    rows = [table[key] for key in common]
    paired = set(common)
    expected = sum(int(row["n_expected"]) for row in rows)
    both = sum(bool(row.get("both_answered")) for row in rows)
    agree = sum(float(row["agree"]) for row in rows if row.get("both_answered"))
    return Side(
        run_dir=str(run_dir),
        judge=result.config.judge,
        prompt_template=result.config.prompt_template,
        prompt_template_hash=result.config.prompt_template_hash,
        value=value,
        order_consistency=agree / both if both else None,
        invalid_rate=sum(int(row["n_invalid"]) for row in rows) / expected if expected else 0.0,
        failed_rate=sum(int(row["n_failed"]) for row in rows) / expected if expected else 0.0,
        unrecorded=sum(failure_of(r) == "unrecorded" for r in records if (r.example_id, r.dimension) in paired),
        judge_name=result.config.judge_name,
        config_hash=run_config_hash(result.config),
    )


def _per_dimension(base: dict, cand: dict, common: list[Key], column: str, dimensions: list[str]) -> dict[str, dict[str, float]]:
    """dimension -> baseline, candidate, difference (only for multi-dimension tasks; descriptive, untested)."""
    if len(dimensions) < 2:
        return {}
    out = {}
    for dimension in dimensions:
        keys = [key for key in common if key[1] == dimension]
        b = float(np.mean([base[key][column] for key in keys]))
        c = float(np.mean([cand[key][column] for key in keys]))
        out[dimension] = {"baseline": b, "candidate": c, "difference": c - b}
    return out


CONFIG_FIELDS = ("judge", "judge_name", "judge_config_hash", "prompt_template", "prompt_template_hash", "reask", "swap",
                 "dimension_mode", "seed", "limit", "limit_fraction", "shard")  # what makes two runs differ, beside
# judge_args and repeats (the configuration hash also covers what results.json does not show: header values)


def config_changes(base: RunResult, cand: RunResult) -> list[str]:
    """How the candidate's judge configuration differs from the baseline's, one "field: old -> new" per
    difference (judge arguments one by one, as results.json shows them: secrets are never there)."""
    fields = [(name, getattr(base.config, name), getattr(cand.config, name)) for name in CONFIG_FIELDS]
    fields.append(("repeats", _repeats(base), _repeats(cand)))
    old_args, new_args = base.config.judge_args or {}, cand.config.judge_args or {}
    fields += [(f"judge_args.{key}", old_args.get(key, _ABSENT), new_args.get(key, _ABSENT))
               for key in sorted(set(old_args) | set(new_args))]
    return [f"{name}: {' -> '.join(_shown_pair(old, new, whole=name.endswith('_hash')))}"  # (a hash cut is no use)
            for name, old, new in fields if old != new]


_ABSENT = object()
SHOWN_CHARS = 60


def _shown_pair(old: Any, new: Any, *, whole: bool = False) -> tuple[str, str]:
    """Two differing values as text, each cut to SHOWN_CHARS around where they first differ (two long names
    that differ at their end were both cut before it, and read alike); `whole`: never cut (a hash)."""
    old_text, new_text = _shown(old), _shown(new)
    if whole or max(len(old_text), len(new_text)) <= SHOWN_CHARS:
        return old_text, new_text
    same = next((i for i, (a, b) in enumerate(zip(old_text, new_text)) if a != b), min(len(old_text), len(new_text)))
    start = max(0, same - SHOWN_CHARS // 3)
    return _window(old_text, start), _window(new_text, start)


def _window(text: str, start: int) -> str:
    end = start + SHOWN_CHARS
    return ("..." if start else "") + text[start:end] + ("..." if end < len(text) else "")


def _repeats(result: RunResult) -> int:
    return result.stability.repeats if result.stability else 1


def _shown(value: Any) -> str:
    if value is _ABSENT or value is None:
        return "(not set)"
    return json.dumps(value, sort_keys=True, default=str) if not isinstance(value, str) else value


def _notes(base: RunResult, cand: RunResult, base_table: dict, cand_table: dict, common: list) -> list[str]:
    notes = []
    if base.config.dataset.fingerprint != cand.config.dataset.fingerprint:
        notes.append("the runs' dataset fingerprints differ: paired on the examples they share")
    if len(common) < max(len(base_table), len(cand_table)):
        notes.append(
            f"paired {len(common)} (example, dimension) units; baseline has {len(base_table)}, candidate {len(cand_table)}"
        )
    if base.config.swap != cand.config.swap:
        notes.append("one run judged a single order: each example's score is the mean over the orders its run judged")
    for side, result in (("baseline", base), ("candidate", cand)):
        if result.config.partial:  # (an outside attack: an interrupted candidate read as a significant drop)
            notes.append(f"the {side} is PARTIAL (it stopped early): the judgments it did not make count as failed")
    return notes


# ----------------------------------------------------------------------------- output


