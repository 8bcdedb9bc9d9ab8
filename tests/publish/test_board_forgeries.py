"""Issue 27 item 9: numbers on a verified board that nobody verified. Each test performs the attack."""

from __future__ import annotations

import json
from pathlib import Path

from test_submit import edit_results, edit_samples, honest, make_run, rejected, tampered  # noqa: F401
from test_submit_forgeries import llm_run

from judgebench.cli.main import main
from judgebench.publish.submit import validate_run

DEMO_VOTES = Path(__file__).resolve().parents[2] / "tasks" / "demo" / "arena_votes_demo.jsonl"


def test_forged_stability_on_a_single_sample_run_is_refused(honest, tmp_path):  # noqa: F811
    run = tampered(honest, tmp_path)

    def forge(data):
        data["stability"] = {"repeats": 5, "headline": "accuracy", "headline_per_repeat": [0.5] * 5,
                             "headline_min": 0.5, "headline_max": 0.5, "headline_mean": 0.5,
                             "majority_headline": 0.5, "majority_coverage": 1.0, "agreement_mean": 1.0,
                             "flip_rate": 0.0}

    edit_results(run, forge)
    rejected(run, "metrics", "stability", "repeats.jsonl")


def test_relabelled_not_attempted_lines_still_make_the_entry_partial(tmp_path):
    run = llm_run(tmp_path)

    def fail_some(rows):
        for row in rows[:4]:  # "never attempted" relabelled as timeouts, and partial: false kept
            row.update(status="FAILED", raw=None, verdict_shown=None, verdict=None, tokens_in=None, tokens_out=None,
                       error="timeout after 120 s", attempts=3)

    edit_samples(run, fail_some)
    assert main(["score", str(run), "--bootstrap", "1000"]) == 0  # results.json made consistent by the forger
    assert json.loads((run / "results.json").read_text())["config"]["partial"] is False
    verified = validate_run(run, min_coverage=0.5)
    assert "partial" in verified.labels
    board = tmp_path / "board"
    assert main(["submit", str(run), "--leaderboard-dir", str(board), "--min-coverage", "0.5"]) == 0
    entry = next(board.glob("entries/*/*/results.json"))
    assert json.loads(entry.read_text())["config"]["partial"] is True


def test_panel_of_disjoint_shards_is_refused(tmp_path, capsys):
    one = make_run(tmp_path / "s1", "sciarena_eval", "builtin/longer", "--shard", "1/2")
    two = make_run(tmp_path / "s2", "sciarena_eval", "builtin/shorter", "--shard", "2/2")
    capsys.readouterr()
    assert main(["panel", str(one), str(two), "--output-path", str(tmp_path / "p")]) == 2
    err = capsys.readouterr().err
    assert "must judge the same examples" in err and err.count("\n") == 1


def test_arena_counts_a_repeated_vote_once_and_warns_on_disconnected_models(tmp_path, capsys):
    rows = [json.loads(line) for line in DEMO_VOTES.read_text().splitlines()[:300]]
    votes = tmp_path / "votes.jsonl"
    island = [{**rows[0], "pair_id": f"island-{i}", "model_a": "island-x", "model_b": "island-y",
               "choice": "A" if i % 3 else "B"} for i in range(6)]
    votes.write_text("".join(json.dumps(r) + "\n" for r in [*rows, rows[5], rows[5], *island]))
    assert main(["arena", str(votes), "--output-dir", str(tmp_path / "a"), "--n-resamples", "0",
                 "--robustness-repeats", "1"]) == 0
    out = capsys.readouterr()
    summary = json.loads((tmp_path / "a" / "arena.json").read_text())
    assert summary["counts"]["battles"] == 306  # 300 + the island's 6; the two repeats of one vote counted once
    assert sum(v for k, v in summary["counts"]["dropped"].items() if "repeated vote" in k) == 2
    assert "2 repeated votes" in out.err
    assert summary["comparison_groups"][-1] == ["island-x", "island-y"]
    assert "groups that no battle connects" in out.err and "island-x" in out.err
    assert "groups that no battle connects" in (tmp_path / "a" / "arena.md").read_text()
    page = (tmp_path / "a" / "arena.html").read_text()
    assert '<p class="warning">Warning: the models fall into 2 groups that no battle connects' in page
    assert "island-x, island-y}; ranks across groups are not comparable.</p>" in page
