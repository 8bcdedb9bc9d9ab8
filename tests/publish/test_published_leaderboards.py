"""The committed leaderboards/ tables are exactly what the code rebuilds from the stored entries."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import sci_row, write_jsonl

from judgebench.cli.main import main
from judgebench.core.records import JudgmentRecord
from judgebench.core.rundir import read_run
from judgebench.publish.leaderboard import (
    BASELINE_JUDGES,
    baseline_metrics,
    collect_tables,
)
from judgebench.publish.protocols import protocol_figure
from judgebench.publish.submit import rebuild_tables
from judgebench.publish.tables import to_markdown
from judgebench.tasks.registry import get_task

PUBLISHED = Path(__file__).resolve().parents[2] / "leaderboards"


def test_published_tables_are_rebuilt_by_code_not_edited_by_hand(tmp_path):
    if not (PUBLISHED / "entries").is_dir():
        pytest.skip("no published entries in this checkout")
    shutil.copytree(PUBLISHED / "entries", tmp_path / "entries")
    rebuild_tables(tmp_path)
    tables = sorted(p.name for p in PUBLISHED.iterdir() if p.is_file())
    assert tables == sorted(p.name for p in tmp_path.iterdir() if p.is_file())
    for name in tables:
        assert (tmp_path / name).read_text() == (PUBLISHED / name).read_text(), (
            f"leaderboards/{name} differs from a rebuild: regenerate with scripts/publish_demo_baselines.sh"
        )


@pytest.mark.slow
def test_published_entries_are_what_the_scoring_code_gives_now(tmp_path):
    """Each committed entry re-scored from its samples by today's code, the tables rebuilt: the same tables. The
    rebuild test above reads the entries' stored figures, so an entry scored by older code (a separable length
    coefficient printed as the penalty's 39.17 where scoring now says +inf) kept the committed tables stale."""
    if not (PUBLISHED / "entries").is_dir():
        pytest.skip("no published entries in this checkout")
    shutil.copytree(PUBLISHED / "entries", tmp_path / "entries")
    runs = sorted(results.parent for results in (tmp_path / "entries").glob("*/*/results.json"))
    assert runs
    for run in runs:
        assert main(["score", str(run)]) == 0
    rebuild_tables(tmp_path)
    for name in sorted(p.name for p in PUBLISHED.iterdir() if p.is_file()):
        assert (tmp_path / name).read_text() == (PUBLISHED / name).read_text(), (
            f"leaderboards/{name} differs from its entries re-scored: regenerate with scripts/publish_demo_baselines.sh"
        )


# ----------------------------------------------------------------------------- data-derived baselines

REPO = PUBLISHED.parent


def _local_task(tmp_path: Path, name: str, rows: list[dict], *, ternary: bool = False) -> Path:
    """A SciArena-layout task on a local file; ternary: TIE allowed and tie labels, headline still accuracy."""
    data = write_jsonl(tmp_path / f"{name}.jsonl", rows)
    spec = (REPO / "tasks" / "sciarena_eval.yaml").read_text()
    spec = spec.replace("name: sciarena_eval", f"name: {name}").replace("path: yale-nlp/SciArena-Eval", f"path: {data}")
    spec = spec.replace("revision: main ", f"revision: {'ab' * 20} ").replace("path: demo/sciarena_eval_demo.jsonl", "path: none.jsonl")
    if ternary:
        spec = spec.replace("verdicts: [A, B]", "verdicts: [A, B, TIE]").replace("  B: B\n", "  B: B\n  tie: TIE\n")
    folder = tmp_path / f"tasks_{name}"
    folder.mkdir()
    (folder / f"{name}.yaml").write_text(spec)
    return folder


def _run(tmp_path: Path, task: str, judge: str, *extra: str) -> Path:
    out = tmp_path / f"{task}-{judge.replace('/', '_')}"
    assert main(["run", "--tasks", task, "--judge", judge, "--output-path", str(out), "--quiet", *extra]) == 0
    return out


def _assert_baselines_equal_builtin_runs(tmp_path: Path, task: str, *extra: str, include: list[Path] | None = None) -> dict:
    runs = {judge_id: _run(tmp_path, task, judge_id, *extra) for judge_id in BASELINE_JUDGES.values()}
    spec = get_task(task, include or [])
    for name, judge_id in BASELINE_JUDGES.items():
        result, _ = read_run(runs[judge_id])
        _, records = read_run(runs["builtin/always-a"])  # the baseline is computed from another run's samples
        derived = baseline_metrics(records, spec, judge_id, result.config.both_bad)
        for dimension, metrics in result.metrics.items():
            assert round(derived[dimension][spec.headline].value, 4) == round(metrics[spec.headline].value, 4), (name, dimension)
    tables, warnings = collect_tables([runs["builtin/always-a"], runs["builtin/longer"]], include or [])
    assert warnings == []
    rows = {row["judge"]: row for row in tables[task]}
    column = spec.headline if len(spec.dimension_names) == 1 else f"mean.{spec.headline}"
    assert rows["always-longer"][column] == rows["builtin/longer"][column]
    assert rows["always-first (both orders)"][column] == rows["builtin/always-a"][column]
    return rows


@pytest.mark.slow
def test_baseline_rows_equal_builtin_runs_on_a_set_with_ties(tmp_path):
    _assert_baselines_equal_builtin_runs(tmp_path, "ideation_arena_eval", "--demo")


def test_baseline_rows_equal_builtin_runs_on_a_binary_set_with_equal_lengths(tmp_path):
    rows = [sci_row(i, "AB"[i % 3 == 0]) for i in range(12)]
    for row in rows[:5]:  # equal lengths: the built-in judge tosses its per-example coin
        row["responseB"] = "x" * len(row["responseA"])
    folder = _local_task(tmp_path, "equal_lengths", rows)
    table = _assert_baselines_equal_builtin_runs(tmp_path, "equal_lengths", "--include-path", str(folder), include=[folder])
    _, records = read_run(tmp_path / "equal_lengths-builtin_longer")
    assert all(r.status == "ANSWERED" for r in records)  # no INVALID non-answers on equal lengths
    assert table["random (label distribution)"]["accuracy"] == round(100 * ((4 / 12) ** 2 + (8 / 12) ** 2), 2) == 55.56


def test_random_row_follows_the_headline_and_ties_answer_tie(tmp_path):
    # 12 labels: 6 A, 4 B, 2 TIE. Exact-match random: (36 + 16 + 4) / 144 = 38.89%;
    # the soft figure (ties half credit) would be (56 + 20) / 144 = 52.78%, not this task's headline.
    votes = ["A"] * 6 + ["B"] * 4 + ["tie"] * 2
    rows = [sci_row(i, vote) for i, vote in enumerate(votes)]
    rows[0]["responseB"] = "y" * len(rows[0]["responseA"])  # equal lengths where TIE is allowed: TIE
    folder = _local_task(tmp_path, "with_ties", rows, ternary=True)
    table = _assert_baselines_equal_builtin_runs(tmp_path, "with_ties", "--include-path", str(folder), include=[folder])
    assert table["random (label distribution)"]["accuracy"] == 38.89
    _, records = read_run(tmp_path / "with_ties-builtin_longer")
    assert {r.verdict for r in records if r.example_id == "q0"} == {"TIE"}


# ----------------------------------------------------------------------------- the reported rows' protocol


def _record(example_id: str, order: str, status: str, verdict: str | None, label: str, dimension: str = "overall") -> JudgmentRecord:
    return JudgmentRecord(
        task="t", example_id=example_id, dimension=dimension, order=order, judge="j", prompt_hash="h",
        status=status, verdict=verdict, verdict_shown=verdict, label=label, length_a=1, length_b=1,
        error="boom" if status == "FAILED" else None,
    )


def test_protocol_figure_by_hand():
    records = [
        # order AB: e1 right, e2 wrong, e3 invalid, e4 failed, e5 right
        _record("e1", "AB", "ANSWERED", "A", "A"),
        _record("e2", "AB", "ANSWERED", "B", "A"),
        _record("e3", "AB", "INVALID", None, "A"),
        _record("e4", "AB", "FAILED", None, "B"),
        _record("e5", "AB", "ANSWERED", "B", "B"),
        # order BA (verdicts mapped back): e1 wrong, e2 right, e3 right, e4 invalid, e5 right
        _record("e1", "BA", "ANSWERED", "B", "A"),
        _record("e2", "BA", "ANSWERED", "A", "A"),
        _record("e3", "BA", "ANSWERED", "A", "A"),
        _record("e4", "BA", "INVALID", None, "B"),
        _record("e5", "BA", "ANSWERED", "B", "B"),
    ]
    # SciArena's protocol: order AB, invalid excluded: agree / (agree + disagree) = 2 / 3, coverage 3 / 5
    assert protocol_figure(records, "overall", orders="AB", invalid="excluded", soft=False) == (2 / 3, 3 / 5)
    # invalid counted wrong: 2 / 5
    assert protocol_figure(records, "overall", orders="AB", invalid="wrong", soft=False) == (2 / 5, 3 / 5)
    # both orders, invalid excluded: (2 + 3) / (3 + 4) = 5 / 7, coverage 7 / 10
    assert protocol_figure(records, "overall", orders="both", invalid="excluded", soft=False) == (5 / 7, 7 / 10)
    ties = [
        _record("t1", "AB", "ANSWERED", "A", "TIE"),  # soft 0.5
        _record("t2", "AB", "ANSWERED", "TIE", "BOTH_BAD"),  # both bad = tie: 1
        _record("t3", "AB", "ANSWERED", "B", "A"),  # 0
    ]
    assert protocol_figure(ties, "overall", orders="AB", invalid="excluded", soft=True) == (1.5 / 3, 1.0)
    assert protocol_figure(ties, "overall", orders="AB", invalid="excluded", soft=False) == (1 / 3, 1.0)
    # both bad excluded: t1 and t3 only: 0.5 / 2
    assert protocol_figure(ties, "overall", orders="AB", invalid="excluded", soft=True, both_bad="exclude") == (0.25, 1.0)
    assert protocol_figure([], "overall", orders="AB", invalid="excluded", soft=False) == (None, None)


@pytest.mark.slow
def test_reported_rows_rank_only_against_the_protocol_column_and_never_beside_demo_runs(tmp_path):
    run = _run(tmp_path, "sciarena_eval", "builtin/longer", "--demo")
    tables, _ = collect_tables([run])
    rows = tables["sciarena_eval"]
    o3 = next(row for row in rows if row["judge"] == "o3")
    assert o3["accuracy_ab_answered"] == 65.1 and "accuracy" not in o3
    assert "one order (as given)" in o3["protocol"] and "invalid answers excluded" in o3["protocol"]
    mine = next(row for row in rows if row["judge"] == "builtin/longer")
    _, records = read_run(run)
    ab = [r for r in records if r.order == "AB"]
    right = sum(r.verdict == r.label for r in ab if r.status == "ANSWERED")
    answered = sum(r.status == "ANSWERED" for r in ab)
    assert mine["accuracy_ab_answered"] == round(100 * right / answered, 2)
    assert mine["coverage_ab"] == round(100 * answered / len(ab), 2)
    assert "vs_reported" not in mine  # demo data: never ranked against published figures
    markdown = to_markdown("sciarena_eval", rows)
    reported_section = markdown.split("## Reported in the papers")[1]
    assert "builtin/longer" not in reported_section and "| reported | o3 |" in reported_section
    ideation = collect_tables([_run(tmp_path, "ideation_arena_eval", "builtin/longer", "--demo")])[0]["ideation_arena_eval"]
    gemini = next(row for row in ideation if row["judge"] == "Gemini 3 Pro Preview")
    assert gemini["overall_quality.reported_soft_accuracy"] == 72.56 and "overall_quality.soft_accuracy" not in gemini
    assert "orders not stated" in gemini["protocol"]


def test_run_on_the_released_data_is_ranked_beside_the_reported_rows(tmp_path):
    rows = [sci_row(i, "AB"[i % 2]) for i in range(12)]
    folder = _local_task(tmp_path, "released", rows)
    spec_file = folder / "released.yaml"
    data = str(tmp_path / "released.jsonl")
    spec_file.write_text(spec_file.read_text().replace("dataset: yale-nlp/SciArena-Eval", f"dataset: {data}").replace("size: 2000", "size: 12"))
    run = _run(tmp_path, "released", "builtin/longer", "--include-path", str(folder))
    tables, _ = collect_tables([run], [folder])
    mine = next(row for row in tables["released"] if row["judge"] == "builtin/longer")
    assert mine["vs_reported"] is True
    section = to_markdown("released", tables["released"]).split("## Reported in the papers")[1]
    assert "builtin/longer" in section


def test_unknown_task_uses_the_run_directory_task_copy_for_leaderboard_only(tmp_path):
    rows = [sci_row(i, "AB"[i % 2]) for i in range(8)]
    folder = _local_task(tmp_path, "mine", rows)
    run = _run(tmp_path, "mine", "builtin/longer", "--include-path", str(folder))
    tables, warnings = collect_tables([run])  # not registered anywhere
    if not (run / "task.yaml").is_file():
        assert "mine" not in tables and any("unknown task 'mine'" in w for w in warnings)
        shutil.copy(folder / "mine.yaml", run / "task.yaml")  # what the run directory will hold
        tables, warnings = collect_tables([run])
    assert "mine" in tables and warnings == []
    tables, warnings = collect_tables([run], use_run_task_copy=False)  # submit's rebuild never uses it
    assert "mine" not in tables and any("unknown task 'mine'" in w for w in warnings)
