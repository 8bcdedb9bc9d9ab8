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
