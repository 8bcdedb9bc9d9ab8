"""`report` refuses what `score` refuses about a run's samples (scoring.check_dimensions, one check)."""

from __future__ import annotations

import json

from test_bad_input import DEMO, one_error_line, run_cli


def test_report_refuses_a_dimension_the_task_lacks_as_score_does(tmp_path, capsys):
    out = tmp_path / "run"
    assert run_cli(*DEMO, "--output-path", out) == 0
    lines = (out / "samples.jsonl").read_text().splitlines()
    extra = json.loads(lines[0]) | {"dimension": "novelty"}
    (out / "samples.jsonl").write_text("\n".join([*lines[1:], json.dumps(extra)]) + "\n")  # as many lines
    capsys.readouterr()
    assert run_cli("score", out) == 2
    refused = one_error_line(capsys)
    assert "task sciarena_eval has no dimension 'novelty'" in refused
    assert run_cli("report", out) == 2
    assert one_error_line(capsys) == refused
    assert not (out / "report").exists()
    (out / "results.json").unlink()  # samples alone: the task named on their lines
    assert run_cli("report", out) == 2
    assert one_error_line(capsys) == refused
    assert not (out / "report").exists()


def test_a_report_of_samples_alone_says_what_it_assumed(tmp_path, capsys):
    """results.json is optional; without it the Both-Bad rule, seed and headline are assumed, and that is said on
    stderr and in report.md (it was silent)."""
    out = tmp_path / "run"
    assert run_cli(*DEMO, "--output-path", out) == 0
    assert run_cli("report", out) == 0
    assert "warning" not in capsys.readouterr().err
    assert "Run settings" not in (out / "report" / "report.md").read_text()
    (out / "results.json").unlink()
    assert run_cli("report", out) == 0
    assert ("results.json: no such file; the report reads samples.jsonl alone (Both Bad counted as tie, seed 0, "
            "headline soft_accuracy)") in capsys.readouterr().err
    assert "- Run settings: no results.json in the run folder" in (out / "report" / "report.md").read_text()
