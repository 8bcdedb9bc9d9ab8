"""Adding a value-only metric touches one file (catalogue.py) plus its test (issue 11, section 2).

The slow test does what the issue's check does: a scratch copy of the package gets one new catalogue
entry (nothing else edited), and the run, its summary, results.json (dimensions and slices), the
leaderboard (json, md, csv, html), the dataset card and `compare` show the new metric.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from judgebench.core.catalogue import LEADERBOARD_EXTRAS, SUMMARY_METRICS, Metric
from judgebench.core.records import JudgmentRecord
from judgebench.scoring import metrics as value_module
from judgebench.scoring.judgment_table import dimension_table

REPO = Path(__file__).resolve().parents[2]


def _decisive_share(t) -> tuple[float | None, int]:
    """Share of answered judgments (both orders pooled) whose verdict is A or B."""
    codes = np.concatenate([t.cols[f"verdict_code_{order.lower()}"] for order in t.orders])
    answered = codes[codes >= 0]
    return (float(np.isin(answered, (0, 2)).mean()) if answered.size else None), int(answered.size)


def _record(example: str, order: str, verdict: str | None, label: str, status: str = "ANSWERED") -> JudgmentRecord:
    shown = verdict if order == "AB" or verdict in (None, "TIE") else {"A": "B", "B": "A"}[verdict]
    return JudgmentRecord(
        task="t", example_id=example, dimension="overall", order=order, judge="j", prompt_hash="h",
        status=status, raw=None if status == "FAILED" else "x", verdict_shown=shown, verdict=verdict, label=label,
        length_a=1, length_b=1,
    )


def test_a_value_metric_is_computed_from_the_table_by_its_catalogue_function(monkeypatch):
    entry = Metric("decisive_verdict_share", "test-only", value=_decisive_share)
    monkeypatch.setattr(value_module, "VALUE_METRICS", (entry,))
    records = [
        _record("e1", "AB", "A", "A"), _record("e1", "BA", "TIE", "A"),
        _record("e2", "AB", "B", "TIE"), _record("e2", "BA", "B", "TIE"),
        _record("e3", "AB", None, "B", status="FAILED"), _record("e3", "BA", "TIE", "B"),
    ]
    values = value_module.value_metrics(dimension_table(records, "overall", "tie"))
    # answered: e1 A, TIE; e2 B, B; e3 TIE (the failed one is not answered) -> 5; decisive: A, B, B -> 3/5
    assert values["decisive_verdict_share"].value == pytest.approx(3 / 5)
    assert values["decisive_verdict_share"].n == 5
    assert values["decisive_verdict_share"].ci_low is None  # value-only: no interval
    assert value_module.value_metrics(dimension_table(records, "overall", "tie"), names=()) == {}


def test_an_undefined_value_is_none_not_nan(monkeypatch):
    entry = Metric("nan_metric", "test-only", value=lambda t: (float("nan"), 0))
    monkeypatch.setattr(value_module, "VALUE_METRICS", (entry,))
    values = value_module.value_metrics(dimension_table([_record("e1", "AB", "A", "A")], "overall", "tie"))
    assert values["nan_metric"].value is None and values["nan_metric"].n == 0


def test_a_value_metric_can_be_neither_a_headline_nor_a_mean_over_dimensions():
    with pytest.raises(ValueError, match="neither a headline"):
        Metric("x", "test-only", headline=True, value=_decisive_share)
    with pytest.raises(ValueError, match="neither a headline"):
        Metric("x", "test-only", mean_over_dimensions=True, value=_decisive_share)


def test_the_catalogue_flags_give_todays_columns_and_summary():
    # the leaderboard and the page showed these besides the headline family before the catalogue drove them
    # issue 34 added the judge's calibration and selective accuracy (blank for runs without a confidence)
    assert LEADERBOARD_EXTRAS == ("order_consistency", "position_bias", "cohen_kappa", "brier_score", "ece",
                                  "selective_auc")
    # brier_score and ece are printed only by runs whose judgments carry a confidence (None is never printed)
    assert SUMMARY_METRICS == ("order_consistency", "position_bias", "brier_score", "ece")


# ----------------------------------------------------------------------------- one file in a scratch copy

NEW_FUNCTION = '''

def _verdict_a_share(t) -> tuple[float | None, int]:
    """Share of answered judgments (both orders pooled) whose verdict, in the dataset's positions, is A."""
    codes = [c for order in t.orders for c in t.cols[f"verdict_code_{order.lower()}"].tolist() if c >= 0]
    return (sum(c == 0 for c in codes) / len(codes) if codes else None), len(codes)


METRICS: tuple[Metric, ...] = ('''
NEW_ENTRY = '''    Metric("verdict_a_share", "Share of answered judgments whose verdict is A (dataset positions)",
           higher_is_better=None, leaderboard=True, card=True, per_slice=True, summary=True,
           value=_verdict_a_share),
)

# Rubric judges'''


def _scratch_package(tmp_path: Path) -> Path:
    """A copy of the package whose catalogue.py alone has one more metric; returns its src folder."""
    src = tmp_path / "scratch" / "src"
    shutil.copytree(REPO / "src" / "judgebench", src / "judgebench", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("tasks", "prompts"):  # resources.py finds them beside src/ in a checkout
        (tmp_path / "scratch" / name).symlink_to(REPO / name)
    catalogue = src / "judgebench" / "core" / "catalogue.py"
    text = catalogue.read_text()
    assert text.count("\n\nMETRICS: tuple[Metric, ...] = (") == 1 and text.count("\n)\n\n# Rubric judges") == 1
    text = text.replace("\n\nMETRICS: tuple[Metric, ...] = (", NEW_FUNCTION, 1)
    catalogue.write_text(text.replace("\n)\n\n# Rubric judges", "\n" + NEW_ENTRY, 1))
    changed = [p.relative_to(src) for p in (src / "judgebench").rglob("*.py")
               if p.read_bytes() != (REPO / "src" / p.relative_to(src)).read_bytes()]
    assert changed == [Path("judgebench/core/catalogue.py")]
    return src


def _cli(src: Path, cwd: Path, *args: str) -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(src), str(REPO / "tests")]))
    done = subprocess.run([sys.executable, "-m", "judgebench", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _expected(samples: list[dict], subject: str | None = None) -> tuple[float, int]:
    """The new metric recomputed from samples.jsonl: verdicts A / answered judgments."""
    rows = [r for r in samples if subject is None or r["slices"].get("subject") == subject]
    answered = [r for r in rows if r["status"] == "ANSWERED" and r["verdict"] is not None]
    return sum(r["verdict"] == "A" for r in answered) / len(answered), len(answered)


@pytest.mark.slow
def test_a_metric_added_in_the_catalogue_alone_reaches_every_output(tmp_path):
    src = _scratch_package(tmp_path)
    name = "verdict_a_share"
    summary = _cli(src, tmp_path, "run", "--tasks", "sciarena_eval", "--judge", "builtin/random", "--demo",
                   "--output-path", "run")
    _cli(src, tmp_path, "run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo",
         "--output-path", "run2", "--quiet")
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    samples = [json.loads(line) for line in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()]
    value, n = _expected(samples)
    assert 0.3 < value < 0.7 and n == len(samples)  # builtin/random: a seeded coin per judgment, all answered
    got = results["metrics"]["overall"][name]
    assert got["value"] == pytest.approx(value) and got["n"] == n and got["ci_low"] is None
    for subject, metrics in results["slices"]["overall"]["subject"].items():
        assert metrics[name]["value"] == pytest.approx(_expected(samples, subject)[0])
    assert f"{name} {value:.3f}" in summary  # the terminal summary (summary=True)

    _cli(src, tmp_path, "leaderboard", "run", "run2", "--output-dir", "lb")
    rows = {row["judge"]: row for row in json.loads((tmp_path / "lb" / "sciarena_eval.json").read_text())["rows"]}
    assert rows["builtin/random"][name] == round(100 * value, 2)  # a share: a percentage in tables
    header = next(line for line in (tmp_path / "lb" / "sciarena_eval.md").read_text().splitlines() if "| judge |" in line)
    assert name in header
    with open(tmp_path / "lb" / "sciarena_eval.csv", newline="") as handle:
        assert name in next(csv.reader(handle))
    assert f'>{name}<' in (tmp_path / "lb" / "index.html").read_text()  # a column of the page

    _cli(src, tmp_path, "export", "run", "--output", "export")
    card = (tmp_path / "export" / "README.md").read_text()
    assert f"| overall | {name} | {value:.4f} |" in card  # the dataset card (card=True)

    other = json.loads((tmp_path / "run2" / "results.json").read_text())["metrics"]["overall"][name]["value"]
    compared = _cli(src, tmp_path, "compare", "run", "run2")  # each run's own value beside the paired headline
    assert f"{name:<17} {100 * value:.2f}% -> {100 * other:.2f}% (each whole run; no paired test)" in compared

    _cli(src, tmp_path, "score", "run")  # re-scoring from the samples gives the same value
    rescored = json.loads((tmp_path / "run" / "results.json").read_text())["metrics"]["overall"][name]
    assert rescored["value"] == pytest.approx(value)
