"""The vote record, votes files and the majority rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgebench.core.errors import JudgebenchError
from judgebench.tasks.votes import (
    Vote,
    majority_label,
    read_votes,
    votes_by_pair,
    write_votes,
)


def test_majority_rule_and_shared_top_count_is_a_tie() -> None:
    assert majority_label(["A", "A", "B"]) == "A"  # 2 A vs 1 B
    assert majority_label(["B", "TIE", "B", "BOTH_BAD"]) == "B"
    assert majority_label(["A", "B"]) == "TIE"  # 1 vs 1: no single leader
    assert majority_label(["A", "BOTH_BAD", "B", "BOTH_BAD", "A"]) == "TIE"  # A 2, BOTH_BAD 2
    assert majority_label(["BOTH_BAD", "BOTH_BAD", "A"]) == "BOTH_BAD"
    with pytest.raises(ValueError):
        majority_label([])


def test_votes_round_trip_through_jsonl_and_csv(tmp_path: Path) -> None:
    votes = [
        Vote(pair_id="p1", annotator="u1", choice="A", shown_order="BA", seconds=12.5, slices={"subject": "bio"}),
        Vote(pair_id="p1", annotator="u2", choice="TIE"),
        Vote(pair_id="p2", annotator="u1", choices={"novelty": "B", "feasibility": "BOTH_BAD"}),
    ]
    write_votes(tmp_path / "votes.jsonl", votes)
    assert read_votes(tmp_path / "votes.jsonl") == votes
    (tmp_path / "votes.csv").write_text(
        "pair_id,annotator,choice,shown_order,seconds,slice_subject\np1,u1,A,BA,12.5,bio\np1,u2,TIE,,,\n"
    )
    assert read_votes(tmp_path / "votes.csv")[0] == votes[0]
    assert [v.annotator for v in votes_by_pair(votes)["p1"]] == ["u1", "u2"]
    assert votes[2].label_for("novelty") == "B" and votes[2].label_for("clarity") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"pair_id": "p1", "annotator": "u1", "choice": "C"}\n', "votes.jsonl:1: field 'choice'"),
        ('{"pair_id": "p1", "annotator": "u1"}\n', "exactly one of choice"),
        ('{"pair_id": "p1", "annotator": "u1", "choice": "A", "choices": {"x": "B"}}\n', "exactly one of choice"),
        ('{"pair_id": "p1", "annotator": "", "choice": "A"}\n', "annotator"),
        ('{"pair_id": "p1", "annotator": "u1", "choice": "A", "rating": 3}\n', "rating"),
        ("not json\n", "malformed JSON"),
        ("\n", "no votes"),
    ],
)
def test_bad_votes_are_one_line_errors_naming_file_and_line(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "votes.jsonl"
    path.write_text(text)
    with pytest.raises(JudgebenchError) as caught:
        read_votes(path)
    message = str(caught.value)
    assert expected in message and "votes.jsonl" in message and "\n" not in message


def test_csv_with_an_unknown_column_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "votes.csv"
    path.write_text("pair_id,annotator,choice,score\np1,u1,A,3\n")
    with pytest.raises(JudgebenchError, match="unknown columns"):
        read_votes(path)


def test_a_csv_saved_with_a_byte_order_mark_reads_as_without(tmp_path: Path) -> None:
    """A third attack: Excel's "CSV UTF-8" starts with a BOM, and the votes reader refused it as an unknown column
    `\ufeffpair_id` (the same file without the mark reads)."""
    plain, marked = tmp_path / "plain.csv", tmp_path / "marked.csv"
    text = "pair_id,annotator,choice,model_a,model_b\np1,u1,A,x,y\np1,u2,B,x,y\n"
    plain.write_text(text, encoding="utf-8")
    marked.write_text("\ufeff" + text, encoding="utf-8")
    assert read_votes(marked) == read_votes(plain) and len(read_votes(marked)) == 2


def test_an_upper_case_csv_suffix_is_csv(tmp_path: Path, capsys) -> None:
    """A fourth attack: `votes.CSV` was read as JSON Lines ("malformed JSON"); arena refused it as no votes file."""
    from judgebench.cli.main import main

    text = "pair_id,annotator,choice,model_a,model_b\n" + "".join(
        f"p{i},u{i % 3},{'AB'[i % 2]},x{i % 3},y{i % 2}\n" for i in range(12))
    upper, lower = tmp_path / "votes.CSV", tmp_path / "votes.csv"
    upper.write_text(text, encoding="utf-8")
    lower.write_text(text, encoding="utf-8")
    assert read_votes(upper) == read_votes(lower)
    assert main(["arena", str(upper), "--output-dir", str(tmp_path / "a"), "--no-plots", "--n-resamples", "0",
                 "--robustness-repeats", "0"]) == 0


def test_a_votes_file_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "votes.jsonl"
    path.write_bytes(b'{"pair_id": "p\xff", "annotator": "u", "choice": "A"}\n')
    with pytest.raises(JudgebenchError, match="votes.jsonl: not UTF-8 text"):
        read_votes(path)


def test_a_csv_of_votes_may_carry_their_texts_hash(tmp_path: Path) -> None:
    """A third attack: the export's `pair_sha256`, flattened to CSV, was refused as an unknown column by freeze and
    arena, though a votes file may be CSV."""
    digest = "ab" * 32
    (tmp_path / "votes.csv").write_text(f"pair_id,annotator,choice,pair_sha256\np1,u1,A,{digest}\np2,u1,B,\n")
    assert [v.pair_sha256 for v in read_votes(tmp_path / "votes.csv")] == [digest, None]
