"""Annotator quality (gold accuracy, self-consistency, kappa against the others, side preference,
seconds per vote), the flags its thresholds raise, durations in human units, and the export's gold,
quality and flagged files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from annotate_helpers import pair_rows

from judgebench.cli.main import main
from judgebench.human.annotate.assign import Rules
from judgebench.human.annotate.quality import admin_tables, human_duration, quality, shared_kappa
from judgebench.stats.agreement import cohen_kappa
from judgebench.human.annotate.store import Store
from judgebench.human.freeze import read_flagged
from judgebench.tasks.votes import read_votes


def test_durations_read_in_human_units() -> None:
    assert human_duration(14 * 24 * 3600.0) == "14 days"  # the default repeat delay, was "1.2096e+06 s"
    assert [human_duration(s) for s in (86400, 7200, 3600, 90, 0)] == ["1 day", "2 hours", "1 hour", "90 s", "0 s"]
    assert human_duration(20 * 7 * 86400) == "20 weeks"


def test_cohen_kappa_matches_the_textbook_values() -> None:
    assert cohen_kappa(list("AABB"), list("AABB")) == pytest.approx(1.0)
    assert cohen_kappa(list("ABAB"), list("AABB")) == pytest.approx(0.0)
    # observed 0.8; chance (4 * 4 + 6 * 6) / 100 = 0.52 -> (0.8 - 0.52) / 0.48
    assert cohen_kappa(list("AAAABBBBBB"), list("AAABBBBBBA")) == pytest.approx((0.8 - 0.52) / 0.48)
    assert cohen_kappa(["A"], ["A"]) is None and cohen_kappa(list("AA"), list("AA")) is None
    # the voting page's one definition is the judge metric's (a newcomer's audit: three copies, disagreeing on one
    # shared pair); the page shows none from fewer than two shared pairs
    assert cohen_kappa(["A"], ["B"]) == 0.0 and shared_kappa(["A"], ["B"]) is None


def _v(annotator: str, pair_id: str, choice: str, *, round_: int = 1, order: str = "AB", seconds: float = 30.0) -> dict:
    return {"vote_id": f"{annotator}-{pair_id}-{round_}", "annotator": annotator, "pair_id": pair_id, "round": round_,
            "choice": choice, "choices": None, "shown_order": order, "seconds": seconds, "submitted_at": "2026-12-01T00:00:00Z"}


def test_quality_flags_each_threshold_it_crosses() -> None:
    pairs = pair_rows(12) + [{**r, "id": f"g{i}", "gold": "A"} for i, r in enumerate(pair_rows(3))]
    truth = {f"p{i}": "AB"[i % 2] for i in range(12)}
    votes = []
    for name in ("good1", "good2", "good3"):
        votes += [_v(name, p, c, order="AB" if i % 4 < 2 else "BA") for i, (p, c) in enumerate(truth.items())]
        votes += [_v(name, f"g{i}", "A") for i in range(3)]
        votes += [_v(name, p, truth[p], round_=2) for p in ("p0", "p1", "p2")]
    # "lefty": always the left response, fast, wrong on gold, inconsistent on repeats
    votes += [_v("lefty", p, "A", order="AB", seconds=2.0) for p in truth]
    votes += [_v("lefty", f"g{i}", "B", order="BA", seconds=2.0) for i in range(3)]
    votes += [_v("lefty", p, "B", round_=2) for p in ("p0", "p2", "p4")]
    figures = {q.annotator: q for q in quality(pairs, votes, ["good1", "good2", "good3", "lefty"])}
    assert figures["good1"].flags == [] and figures["good1"].kappa == pytest.approx(1.0)
    assert figures["good1"].gold_accuracy == 1.0 and figures["good1"].self_consistency == 1.0
    assert figures["good1"].left_share == pytest.approx(9 / 15)  # 6 of 12 study votes, and the 3 gold ones shown AB
    lefty = figures["lefty"]
    assert lefty.gold_accuracy == 0.0 and lefty.self_consistency == 0.0 and lefty.left_share == 1.0
    assert lefty.seconds_per_vote == 2.0 and lefty.kappa == pytest.approx(0.0)
    assert lefty.flags == ["gold accuracy", "self-consistency", "agreement", "side preference", "too fast"]


def test_the_admin_progress_leaves_gold_pairs_out_of_votes_and_skips() -> None:
    """An outside tester: the admin page's skips counted skips of gold pairs, which the guide leaves out of progress."""
    pairs = pair_rows(3) + [{**r, "id": f"g{i}", "gold": "A"} for i, r in enumerate(pair_rows(2))]
    votes = [_v("ann", "p0", "A"), _v("ann", "g0", "A"), _v("ann", "p0", "B", round_=2)]
    skips = [("ann", "p1", 1), ("ann", "g1", 1), ("other", "p2", 1)]
    tables = admin_tables(pairs, votes, skips, ["ann", "other"], Rules(target=1))
    # ann: 1 study vote (p0; g0 is gold), 1 repeat, 1 skip (p1; g1 is gold); other: 1 skip
    assert tables["annotators"] == [["ann", 1, 1, 1], ["other", 0, 0, 1]]
    assert tables["slices"][0] == ["(all)", 3, 1, 1]  # p0, p1, p2; one vote, on p0, at target


def test_export_writes_gold_votes_quality_and_flagged_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = Store(tmp_path / "v.sqlite")
    store.add_pairs(pair_rows(2) + [{**r, "id": f"g{i}", "gold": "A"} for i, r in enumerate(pair_rows(3))])
    for name in ("ann", "bad"):
        store.add_annotator(name, [])
        for pair_id in ("p0", "g0", "g1", "g2"):
            store.serve(name, pair_id, 1)
            choice = "A" if name == "ann" else "B"
            assert store.cast({**_v(name, pair_id, choice), "shown_at": None, "comment": None}, 3) == "stored"
    out = tmp_path / "votes.jsonl"
    assert main(["annotate", "--db", str(tmp_path / "v.sqlite"), "--export", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "wrote 2 votes" in printed and "6 votes on gold pairs" in printed and "flagged by the quality thresholds: bad" in printed
    assert {v.pair_id for v in read_votes(out)} == {"p0"}  # gold votes are not study votes
    assert len(read_votes(tmp_path / "votes.gold.jsonl")) == 6
    assert read_flagged(str(tmp_path / "votes.flagged.txt")) == {"bad"}  # straight into freeze --exclude-annotators
    figures = {q["annotator"]: q for q in json.loads((tmp_path / "votes.quality.json").read_text())}
    assert figures["bad"]["gold_accuracy"] == 0.0 and figures["ann"]["gold_accuracy"] == 1.0


def test_pairs_file_gold_column_is_validated_and_guidelines_must_be_readable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from judgebench.human.annotate.source import pairs_from_file

    rows = [{k: v for k, v in r.items() if k != "slices"} for r in pair_rows(3)]
    rows[1]["gold"], rows[2]["gold"] = "B", {"novelty": "A", "clarity": "TIE"}
    good = tmp_path / "pairs.jsonl"
    good.write_text("".join(json.dumps(r) + "\n" for r in rows))
    pairs = pairs_from_file(good)
    assert [p.get("gold") for p in pairs] == [None, "B", {"novelty": "A", "clarity": "TIE"}]
    assert all("gold" not in p["slices"] for p in pairs)  # the known answer is not a slice shown anywhere
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**rows[0], "gold": "LEFT"}) + "\n")
    db = str(tmp_path / "v.sqlite")
    assert main(["annotate", str(bad), "--db", db]) == 2
    assert "bad.jsonl:1: 'gold' must be one of A, B, TIE, BOTH_BAD" in capsys.readouterr().err
    assert main(["annotate", str(good), "--db", db, "--port", "0", "--gold-share", "0.1",
                 "--guidelines", str(tmp_path / "missing.md")]) == 2
    assert "--guidelines" in capsys.readouterr().err
    plain = tmp_path / "plain.jsonl"  # no gold rows: --gold-share would be shown on the admin page and do nothing
    plain.write_text("".join(json.dumps(r) + "\n" for r in rows[:1]))
    assert main(["annotate", str(plain), "--db", str(tmp_path / "p.sqlite"), "--port", "0", "--gold-share", "0.05"]) == 2
    assert "--gold-share 0.05: " in (err := capsys.readouterr().err) and "holds no gold pairs" in err
