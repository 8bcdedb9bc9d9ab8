"""The Markdown report: files written, plots readable, CSVs equal to the diagnostics."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from judgebench.core.errors import JudgebenchError
from judgebench.core.files import write_json, write_models_jsonl
from judgebench.core.records import (
    Counts,
    DatasetInfo,
    JudgmentRecord,
    RunConfig,
    RunResult,
    Usage,
    swap_verdict,
)
from judgebench.publish import report

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def fewer_resamples(monkeypatch):
    monkeypatch.setattr(report, "N_RESAMPLES", 100)


def records(n: int = 60, *, policy: str = "first", names: bool = True,
            dimensions: tuple[str, ...] = ("overall",)) -> list[JudgmentRecord]:
    """Synthetic judgments: 'first' always picks the first-shown response, 'longer' the
    longer one; labels alternate A/B/TIE; four models, two subjects, citation counts."""
    rng = np.random.default_rng(0)
    out = []
    for i in range(n):
        la, lb = (int(v) for v in rng.integers(100, 2000, 2))
        label = ("A", "B", "TIE")[i % 3]
        for dimension in dimensions:
            for order in ("AB", "BA"):
                if policy == "first":
                    shown = "A"
                    verdict = shown if order == "AB" else swap_verdict(shown)
                else:
                    verdict = "A" if la > lb else "B"
                    shown = verdict if order == "AB" else swap_verdict(verdict)
                out.append(JudgmentRecord(
                    task="demo", example_id=f"e{i}", dimension=dimension, order=order,
                    judge="builtin/test", prompt_hash="h", status="ANSWERED",
                    verdict=verdict, verdict_shown=shown, label=label,
                    model_a=f"m{i % 4}" if names else None,
                    model_b=f"m{(i + 1 + i // 4) % 4}" if names else None,
                    length_a=la, length_b=lb, citations_a=i % 5, citations_b=(i * 3) % 5,
                    slices={"subject": ("bio", "cs")[i % 2]},
                ))
    return out


def run_dir(tmp_path: Path, recs: list[JudgmentRecord], with_result: bool = False) -> Path:
    folder = tmp_path / "run"
    write_models_jsonl(folder / "samples.jsonl", recs)
    if with_result:
        config = RunConfig(
            task="demo", task_version="1",
            dataset=DatasetInfo(source="org/demo-set", split="test", fingerprint="f"),
            judge="builtin/test", prompt_template="pairwise", prompt_template_hash="abcdef1234567",
            judgebench_version="0.1.0", started_at="2026-01-01T00:00:00Z", seed=3,
        )
        result = RunResult(config=config, metrics={},
                           counts=Counts(examples=1, calls=len(recs), answered=len(recs), invalid=0, failed=0,
                                         coverage=1.0),
                           usage=Usage(), diagnostics={"headline": "accuracy"})
        write_json(folder / "results.json", result.model_dump(mode="json"))
    return folder


@pytest.mark.slow
def test_report_files_from_samples_alone(tmp_path):
    folder = run_dir(tmp_path, records())
    path = report.write_report(folder)
    out = folder / "report"
    assert path == out / "report.md"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# Judge diagnostics: builtin/test on demo")
    for kind in ("bias", "length_curve", "confusion", "accuracy", "ratings"):
        assert (out / f"overall_{kind}.png").read_bytes().startswith(PNG_MAGIC)
        assert (out / f"overall_{kind}.csv").is_file()
    for target in re.findall(r"\]\(([^)]+)\)", text):  # every image and CSV link resolves
        assert (out / target).is_file(), target
    assert (out / "diagnostics.json").is_file() and (out / "flips.csv").is_file()


@pytest.mark.slow
def test_csvs_carry_the_diagnostics_values(tmp_path):
    folder = run_dir(tmp_path, records())
    report.write_report(folder)
    out = folder / "report"
    diag = json.loads((out / "diagnostics.json").read_text())["dimensions"]["overall"]
    bias = pd.read_csv(out / "overall_bias.csv").set_index(["metric", "who"])
    # Always-first-shown judge: position bias 1, every example reversed with the order.
    assert bias.loc[("position_bias", "judge"), "value"] == 1.0
    assert bias.loc[("flip_rate", "judge"), "value"] == 1.0
    assert bias.loc[("length_preferred_larger_all", "human"), "value"] == pytest.approx(
        diag["length"]["preferred_larger"]["human"]["value"])
    confusion = pd.read_csv(out / "overall_confusion.csv", index_col="label")
    assert confusion.loc["A", "A"] == diag["confusion"]["A"]["A"]
    assert int(confusion.to_numpy().sum()) == 120  # 60 examples x 2 orders
    flips = pd.read_csv(out / "flips.csv")
    assert len(flips) == 60 and set(flips["kind"]) == {"reversal"}
    ratings = pd.read_csv(out / "overall_ratings.csv")
    assert sorted(ratings["model"]) == ["m0", "m1", "m2", "m3"]
    accuracy = pd.read_csv(out / "overall_accuracy.csv")
    assert set(accuracy["group"]) >= {"all", "subject", "length_ratio", "citation_gap"}
    assert accuracy.loc[accuracy["group"] == "all", "value"].item() == pytest.approx(
        diag["accuracy"]["soft_accuracy"]["value"])


@pytest.mark.slow
def test_length_curve_for_an_always_longer_judge(tmp_path):
    folder = run_dir(tmp_path, records(policy="longer"))
    report.write_report(folder, tmp_path / "elsewhere")
    curve = pd.read_csv(tmp_path / "elsewhere" / "overall_length_curve.csv")
    judge = curve[(curve["who"] == "judge") & curve["value"].notna()]
    # A is preferred exactly when it is longer: P(A) is 0 left of 0 and 1 right of it.
    assert set(judge.loc[judge["x_mean"] < -0.1, "value"]) == {0.0}
    assert set(judge.loc[judge["x_mean"] > 0.1, "value"]) == {1.0}
    assert not (folder / "report").exists()


@pytest.mark.slow
def test_results_json_supplies_title_headline_and_seed(tmp_path):
    folder = run_dir(tmp_path, records(), with_result=True)
    text = report.write_report(folder).read_text(encoding="utf-8")
    assert "org/demo-set" in text and "Headline metric: accuracy" in text
    assert "seed 3" in text
    accuracy = pd.read_csv(folder / "report" / "overall_accuracy.csv")
    assert set(accuracy["metric"]) == {"accuracy"}


@pytest.mark.slow
def test_missing_model_names_leave_out_the_ratings_plot_with_a_reason(tmp_path):
    folder = run_dir(tmp_path, records(names=False, dimensions=("overall", "novelty")))
    text = report.write_report(folder).read_text(encoding="utf-8")
    assert "## Dimension: overall" in text and "## Dimension: novelty" in text
    assert not (folder / "report" / "overall_ratings.png").exists()
    assert "not drawn (needs battles between at least 3 named models" in text
    assert "Skipped: model names missing" not in text  # length section says it per row
    assert "comparable-strength battles (≤ 100 Elo apart) | skipped: model names missing" in text


def test_names_with_control_characters_and_dollars_are_drawn_as_text(tmp_path):
    """An outside attack: a model name or slice value holding ESC made matplotlib warn `Glyph 27 (\\x1b) missing` with
    the raw byte on the terminal; the report's names and slices were also drawn without `literal`'s `$` escape."""
    import warnings

    name = "m1\x1b[31m$x$"
    ratings = pd.DataFrame({"model": [name, "m2"], "human_value": [1010.0, 990.0], "judge_value": [1005.0, 995.0],
                            **{f"{who}_{k}": [None, None] for who in ("human", "judge") for k in ("ci_low", "ci_high")}})
    accuracy = pd.DataFrame({"group": ["subject", "all"], "slice": ["bio\x1b", "all"], "value": [0.6, 0.5],
                             "ci_low": [0.5, 0.4], "ci_high": [0.7, 0.6], "n": [10, 20], "metric": ["accuracy"] * 2})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report.plot_ratings(ratings, tmp_path / "ratings.png", "t")
        report.plot_accuracy(accuracy, tmp_path / "accuracy.png", "t")
    assert not [w for w in caught if "Glyph" in str(w.message) or "\x1b" in str(w.message)], [str(w.message) for w in caught]
    assert (tmp_path / "ratings.png").read_bytes().startswith(PNG_MAGIC)


def test_missing_samples_is_a_user_error(tmp_path):
    with pytest.raises(JudgebenchError, match="samples.jsonl"):
        report.write_report(tmp_path)


@pytest.mark.slow
def test_report_has_a_human_section_and_results_store_each_annotator(tmp_path):
    """Data with annotator votes: report.md shows the humans and the judge on the same references, and each
    annotator against the others and the judge (results.json `annotators`, recomputed by submit like the rest)."""
    from judgebench.cli.main import main

    run = tmp_path / "run"
    assert main(["run", "--tasks", "human_votes_demo", "--judge", "builtin/longer", "--demo", "--quiet",
                 "--output-path", str(run)]) == 0
    result = json.loads((run / "results.json").read_text())
    annotators = result["annotators"]["overall"]
    assert len(annotators) >= 3 and all(a["pairs"] > 0 for a in annotators)
    assert main(["report", str(run)]) == 0
    text = (run / "report" / "report.md").read_text()
    section = text.split("## Humans and the judge", 1)[1].split("\n## ", 1)[0]
    loo = result["human"]["overall"]["loo_soft_accuracy"]["value"]
    judge_loo = result["metrics"]["overall"]["loo_soft_accuracy"]["value"]
    assert f"| {100 * loo:.1f}% [" in section and f"| {100 * judge_loo:.1f}% [" in section
    for a in annotators:
        assert f"| {a['annotator']} | {a['pairs']} |" in section


def test_report_warns_of_models_ordered_without_an_upset():
    """diagnostics' `system.unbeaten` becomes one warning per side in the report's system section."""
    from judgebench.publish.report import _system_lines

    system = {"n_models": 4, "n_battles": 60, "n_battles_human": 60, "spearman": {"value": 0.4}, "kendall": {"value": 0.3},
              "top_k": {"k": 3, "overlap": 1.0}, "separability": {"human": 0.0, "judge": 0.5},
              "unbeaten": {"judge": [[["m0"], ["m1", "m2", "m3"]]]}}
    lines = "\n".join(_system_lines({"system": system}))
    assert "Warning: The judge's verdicts order some models without an upset ({m0} > {m1, m2, m3})" in lines
    assert "human labels order" not in lines


def test_a_model_name_holding_the_separators_is_quoted_in_an_order():
    """`a} > {b` shown bare read as two models ({a} > {b} ...)."""
    from judgebench.publish.summary import shown_orders

    assert shown_orders([[["a} > {b"], ["c", "d"]]], str) == '{"a} > {b"} > {c, d}'
