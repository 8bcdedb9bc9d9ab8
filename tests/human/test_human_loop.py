"""The voting loop joined to the human side, without a browser: votes posted over HTTP with
tokens -> `annotate --export` -> `arena` on the exported file -> arena's flagged.txt straight into
`freeze --exclude-annotators` -> a judge run on the frozen task, whose results carry the human ceiling."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from annotate_helpers import pair_rows, post_vote, served, serving

from judgebench.cli.main import main
from judgebench.core.errors import JudgebenchError
from judgebench.human.annotate.assign import Rules, shown_order
from judgebench.human.annotate.store import Store
from judgebench.human.freeze import read_flagged

# p -> the three honest annotators' votes (T: tie); "spam" votes on every pair as well
PLANNED = {"p0": "AAB", "p1": "BBA", "p2": "ABT", "p3": "AAA", "p4": "BBB", "p5": "BAB"}


def _cast(store: Store, base: str, tokens: dict[str, str]) -> None:
    for pair_id, choices in PLANNED.items():
        for name, want in zip(("u1", "u2", "u3"), choices):
            left = "A" if shown_order(store.secret, name, pair_id, 1) == "AB" else "B"
            page = "TIE" if want == "T" else ("LEFT" if want == left else "RIGHT")
            status, _ = post_vote(base, tokens[name], {"pair_id": served(store, tokens[name], pair_id), "round": "1", "vote_id": f"{name}-{pair_id}-vote", "choice": page})
            assert status == 200
        status, _ = post_vote(base, tokens["spam"], {"pair_id": served(store, tokens["spam"], pair_id), "round": "1", "vote_id": f"spam-{pair_id}-vote", "choice": "LEFT"})
        assert status == 200


@pytest.mark.slow
def test_exported_votes_feed_arena_freeze_and_a_run_with_the_human_row(tmp_path: Path) -> None:
    rows = [{**r, "model_a": f"m{i % 3}", "model_b": f"m{(i + 1) % 3}"} for i, r in enumerate(pair_rows(6))]
    store = Store(tmp_path / "v.sqlite")
    store.add_pairs(rows)
    tokens = {name: store.add_annotator(name, []) for name in ("u1", "u2", "u3", "spam")}
    with serving(store, Rules(target=4)) as base:
        _cast(store, base, tokens)
    votes = tmp_path / "votes.jsonl"
    assert main(["annotate", "--db", str(tmp_path / "v.sqlite"), "--export", str(votes)]) == 0
    assert len(votes.read_text().splitlines()) == 24  # 6 pairs x 4 voters, every acknowledged vote once

    arena = tmp_path / "arena"
    assert main(["arena", str(votes), "--output-dir", str(arena), "--n-resamples", "20"]) == 0
    summary = json.loads((arena / "arena.json").read_text())
    assert summary["counts"]["battles"] == 24 and len(summary["ratings"]) == 3
    # too few votes for the chi-square test to fire: flagged.txt is empty but is read as a names file
    assert read_flagged(str(arena / "flagged.txt")) == set()
    flagged = arena / "flagged.txt"
    flagged.write_text("spam\n")  # the same one-name-per-line format arena writes

    out = tmp_path / "frozen"
    pairs_file = tmp_path / "pairs.jsonl"
    pairs_file.write_text("".join(json.dumps({**{k: v for k, v in p.items() if k != "slices"}, **p["slices"]}) + "\n" for p in rows))
    assert main(["freeze", str(votes), "--pairs", str(pairs_file), "--split-size", "4", "--name", "mine",
                 "--exclude-annotators", str(flagged), "--output", str(out)]) == 0
    assert "annotators excluded: spam (6 votes dropped)" in (out / "README.md").read_text()
    split = [json.loads(line) for line in (out / "mine.jsonl").read_text().splitlines()]
    assert all(len(r["votes_overall"]) == 3 and "spam" not in {v["annotator"] for v in r["votes_overall"]} for r in split)

    run = tmp_path / "run"
    assert main(["run", "--tasks", str(out / "mine.yaml"), "--judge", "builtin/always-a", "--output-path", str(run),
                 "--bootstrap", "10", "--quiet"]) == 0
    results = json.loads((run / "results.json").read_text())
    assert results["config"]["dataset"]["label_rule"].startswith("majority")
    human = results["human"]["overall"]
    # split: p0 AAB, p3 AAA, p4 BBB and one of p1 BBA / p5 BAB (strata phys A, phys B, bio A, bio B).
    # leave-one-out exact: AAB -> holding an A leaves {A,B}, a split: no reference (twice); holding B leaves
    # A (0) -> 0; AAA, BBB -> 1; BBA -> 0. Mean (0 + 1 + 1 + 0) / 4 = 0.5.
    # soft: AAB -> B vs A 0; AAA, BBB -> 1; BBA -> A vs B 0. Mean (0 + 1 + 1 + 0) / 4 = 1/2.
    assert human["loo_accuracy"]["value"] == pytest.approx(0.5) and human["loo_accuracy"]["n"] == 4
    assert human["loo_soft_accuracy"]["value"] == pytest.approx(1 / 2)


def test_a_mistyped_flagged_file_is_an_error_not_an_annotator_name(tmp_path: Path) -> None:
    with pytest.raises(JudgebenchError, match="no such file"):
        read_flagged(str(tmp_path / "flaged.txt"))
    assert read_flagged("spam, eggs") == {"spam", "eggs"}


def test_a_task_vote_with_a_malformed_timestamp_is_an_error_naming_the_row(tmp_path: Path) -> None:
    """Audit finding: the votes-file path rejected 'yesterday' but a task YAML kept it as text."""
    rows = [{"id": "p1", "q": "Q?", "ra": "x", "rb": "y", "who": who, "when": when, "v": "A"}
            for who, when in (("u1", "2026-03-01T10:00:00Z"), ("u2", ""), ("u3", "not a time"))]
    (tmp_path / "votes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "tv.yaml").write_text(
        "name: tv\nversion: '1'\ndescription: d\ndataset: {path: votes.jsonl, split: train}\nlayout: wide\n"
        "columns: {id: id, question: q, response_a: ra, response_b: rb, label: v}\n"
        "votes: {layout: long, annotator: who, timestamp: when}\nlabels: {A: A, B: B}\nverdicts: [A, B]\n"
        "prompt: pairwise_generic.yaml\nheadline: accuracy\n")
    assert main(["run", "--tasks", str(tmp_path / "tv.yaml"), "--judge", "builtin/always-a",
                 "--output-path", str(tmp_path / "run"), "--quiet"]) == 2
