"""`judgebench leaderboard` given pairwise and rubric runs: pairwise tables as before, rubric tables
under OUTPUT/rubric/, and both kinds shown in index.html (the rubric task linked in the nav)."""

from __future__ import annotations

import json

import pytest

from judgebench.cli.main import main


@pytest.mark.slow
def test_leaderboard_shows_rubric_runs_beside_pairwise_ones(tmp_path, capsys):
    runs = tmp_path / "runs"
    assert main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/random", "--demo", "--quiet", "--limit", "10",
                 "--bootstrap", "20", "--output-path", str(runs / "pairwise")]) == 0
    for judge in ("full-credit", "length-proportional"):
        assert main(["rubric", "run", "--task", "rubric_demo", "--judge", f"builtin/{judge}", "--demo", "--quiet",
                     "--bootstrap", "20", "--output-path", str(runs / judge)]) == 0
    capsys.readouterr()
    board = tmp_path / "board"
    assert main(["leaderboard", str(runs), "--output-dir", str(board)]) == 0
    captured = capsys.readouterr()
    assert "skipped" not in captured.err  # rubric runs are no longer "unreadable pairwise runs"
    assert (board / "sciarena_eval.md").is_file()
    rows = json.loads((board / "rubric" / "rubric_demo.json").read_text())
    assert [r["judge"] for r in rows] == ["builtin/full-credit", "builtin/length-proportional"]  # 0.404 < 0.418
    page = (board / "index.html").read_text()
    assert '<a href="#sciarena_eval">' in page and '<a href="#rubric-rubric_demo">rubric_demo (rubric)</a>' in page
    assert '<h2 id="rubric-rubric_demo">' in page and 'href="rubric/rubric_demo.html"' in page
    assert page.index('id="sciarena_eval"') < page.index('id="rubric-rubric_demo"')
    assert "builtin/length-proportional" in page

    only = tmp_path / "only-rubric"
    assert main(["leaderboard", str(runs / "full-credit"), "--output-dir", str(only)]) == 0
    assert (only / "index.html").is_file() and (only / "rubric" / "rubric_demo.md").is_file()
    assert not list(only.glob("*.md"))  # no pairwise table
