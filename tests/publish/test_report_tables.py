"""`report` reads each dimension's per-example table once (issue 30, sixth round): the confidence section reuses
the tables the diagnostics built, and every file it writes is the same as with tables built afresh for it."""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np
import pytest

from judgebench.core.files import write_models_jsonl
from judgebench.core.records import JudgmentRecord, swap_verdict
from judgebench.publish import confidence_report, report
from judgebench.scoring import judgment_table


def _records(n: int = 40) -> list[JudgmentRecord]:
    """Two dimensions, both orders, four models; a confidence on most judgments (so the confidence section is
    written) and none on every fifth example."""
    rng = np.random.default_rng(5)
    out = []
    for i in range(n):
        la, lb = (int(v) for v in rng.integers(100, 2000, 2))
        label = ("A", "B", "TIE")[i % 3]
        for dimension in ("overall", "clarity"):
            for order in ("AB", "BA"):
                verdict = ("A" if la > lb else "B") if rng.random() < 0.7 else ("A", "B", "TIE")[i % 3]
                p = float(rng.uniform(0.4, 0.95))
                confidence = None if i % 5 == 0 else {verdict: p, swap_verdict(verdict) if verdict != "TIE" else "A": 1 - p}
                out.append(JudgmentRecord(
                    task="demo", example_id=f"e{i}", dimension=dimension, order=order, judge="builtin/test",
                    prompt_hash="h", status="ANSWERED", verdict=verdict,
                    verdict_shown=verdict if order == "AB" else swap_verdict(verdict), label=label,
                    model_a=f"m{i % 4}", model_b=f"m{(i + 1 + i // 4) % 4}", length_a=la, length_b=lb,
                    citations_a=i % 5, citations_b=(i * 3) % 5, slices={"subject": ("bio", "cs")[i % 2]},
                    confidence=confidence, confidence_source="logprobs" if confidence else None,
                ))
    return out


def _files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def _counted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[Path, list[int]]:
    """A run folder of `_records`, fewer resamples, everything in this process, and the extractions counted."""
    monkeypatch.setattr(report, "N_RESAMPLES", 20)
    monkeypatch.setenv("JUDGEBENCH_BACKGROUND", "0")  # every table is built in this process, where it is counted
    run = tmp_path / "run"
    write_models_jsonl(run / "samples.jsonl", _records())
    built: list[int] = []
    real = judgment_table.extract
    monkeypatch.setattr(judgment_table, "extract", lambda by_key: built.append(len(by_key)) or real(by_key))
    return run, built


def test_the_confidence_section_reads_the_diagnostics_tables(tmp_path, monkeypatch):
    run, built = _counted(monkeypatch, tmp_path)
    monkeypatch.setattr(report, "_dimension_sections", lambda *args: [])  # no plots: the tables alone
    monkeypatch.setattr(confidence_report, "plot_reliability", lambda *args: None)
    monkeypatch.setattr(confidence_report, "plot_selective", lambda *args: None)
    text = report.write_report(run).read_text(encoding="utf-8")
    assert "## Confidence and calibration" in text and "### clarity" in text
    assert len(built) == 2, "one extraction per dimension for the whole report"


@pytest.mark.slow  # two whole reports with their plots: about 4 s
def test_the_report_builds_each_table_once_and_writes_what_separate_tables_write(tmp_path, monkeypatch):
    run, built = _counted(monkeypatch, tmp_path)
    shared = report.write_report(run, tmp_path / "shared").parent
    assert len(built) == 2, "one extraction per dimension for the whole report"
    assert (shared / "reliability_overall.png").is_file() and (shared / "reliability_clarity.csv").is_file()

    built.clear()
    monkeypatch.setattr(report, "reuse_tables", lambda records: contextlib.nullcontext())  # the report before
    alone = report.write_report(run, tmp_path / "alone").parent
    assert len(built) == 4, "the diagnostics' tables, then the confidence section's own"
    assert _files(shared) == _files(alone)  # every file byte for byte, the plots too


def test_an_undefined_calibration_interval_is_left_out_and_its_point_kept(tmp_path, monkeypatch):
    # one example with a confidence: no bootstrap interval of the ECE or of the area under accuracy vs
    # coverage (it was printed "100.0% [n/a, n/a]"); with 40 examples both intervals are shown
    monkeypatch.setattr(confidence_report, "plot_reliability", lambda *args: None)
    monkeypatch.setattr(confidence_report, "plot_selective", lambda *args: None)
    one = [r for r in _records(2) if r.example_id == "e1" and r.dimension == "overall"]
    lines = confidence_report.confidence_section(tmp_path, one, None, seed=0, n_resamples=20).splitlines()
    ece = next(line for line in lines if line.startswith("- ECE (10 equal-width bins): "))
    auc = next(line for line in lines if line.startswith("- area under accuracy vs coverage: "))
    assert ece.endswith("%") and auc.endswith("%") and "[" not in ece + auc and "n/a" not in ece + auc
    many = [r for r in _records() if r.dimension == "overall"]
    text = confidence_report.confidence_section(tmp_path, many, None, seed=0, n_resamples=20)
    assert "\n- ECE (10 equal-width bins): " in text and "n/a" not in text
    assert all(line.endswith("%]") for line in text.splitlines() if line.startswith(("- ECE", "- area under")))


def test_the_confidence_section_says_which_accuracy_each_figure_is(tmp_path, monkeypatch):
    """A walkthrough: the section said "Accuracy in this section is exact" yet its reliability diagram (the top label
    per bin) and its handoff table's 0% row (each example's verdicts averaged over both orders) showed two figures.
    Here e0's orders split (verdicts A and B: 0.5) while its mean confidence's top label is A, the label (1): 100%
    against 75%, each named for what it is."""
    monkeypatch.setattr(confidence_report, "plot_reliability", lambda *args: None)
    monkeypatch.setattr(confidence_report, "plot_selective", lambda *args: None)
    judged = {("e0", "AB"): ("A", {"A": 0.8, "B": 0.2}), ("e0", "BA"): ("B", {"A": 0.4, "B": 0.6}),
              ("e1", "AB"): ("A", {"A": 0.9, "B": 0.1}), ("e1", "BA"): ("A", {"A": 0.9, "B": 0.1})}
    records = [JudgmentRecord(task="demo", example_id=example, dimension="overall", order=order, judge="builtin/test",
                              prompt_hash="h", status="ANSWERED", verdict=verdict,
                              verdict_shown=verdict if order == "AB" else swap_verdict(verdict), label="A",
                              model_a="m0", model_b="m1", length_a=10, length_b=20, confidence=confidence,
                              confidence_source="logprobs")
               for (example, order), (verdict, confidence) in judged.items()]
    text = confidence_report.confidence_section(tmp_path, records, None, seed=0, n_resamples=10)
    assert "Accuracy in this section is exact" not in text
    assert ("the reliability diagram and ECE score the confidence's **top label** (the largest of P(A), P(TIE), "
            "P(B): 1 or 0 per example)") in text
    assert ("the handoff table score the judge's **verdicts**, per example the mean over its orders (a pair whose "
            "orders split scores 0.5)") in text
    assert ("- top-label accuracy (the reliability diagram's, all bins): 100.0%; verdict accuracy (the handoff "
            "table's 0% row): 75.0%") in text
    assert "| 0% | 75.0% |" in text
