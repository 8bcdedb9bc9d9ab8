"""The columnar read of a votes file (issue 30): Arrow's table gives the same vote table as the line-by-line
reader, or leaves the file to it (which gives the same errors and validations as before)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from judgebench.core.errors import JudgebenchError
from judgebench.human.arena import reading

REPO = Path(__file__).resolve().parents[2]


def _both(path: Path, monkeypatch) -> tuple[object, object, bool]:
    """(columnar result or error text, line-by-line result or error text, whether Arrow took the file)."""
    def read() -> object:
        try:
            return reading.read_vote_table(path, "votes", "overall")
        except JudgebenchError as exc:
            return str(exc)
        except UnicodeError as exc:  # a lone surrogate: what the line-by-line reader raised before, unchanged
            return f"{type(exc).__name__}: {exc}"

    taken = reading._read_columnar(path) is not None
    fast = read()
    with monkeypatch.context() as patch:
        patch.setattr(reading, "_read_columnar", lambda path: None)
        slow = read()
    return fast, slow, taken


def _same(fast: object, slow: object) -> None:
    if isinstance(slow, str):
        assert fast == slow
        return
    assert not isinstance(fast, str), fast
    pd.testing.assert_frame_equal(fast[0], slow[0], check_exact=True)  # type: ignore[index]
    assert list(fast[0].columns) == list(slow[0].columns)  # type: ignore[index]
    assert fast[1] == slow[1]  # type: ignore[index]


def _write(tmp_path: Path, rows: list[dict | str], name: str = "votes.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def vote(i: int, **extra: object) -> dict:
    return {"pair_id": f"p{i}", "annotator": f"u{i % 3}", "choice": "ABT"[i % 3].replace("T", "TIE"),
            "model_a": f"m{i % 4}", "model_b": f"m{(i + 1) % 4}", **extra}


def test_the_demo_votes_are_read_by_arrow_into_the_same_table(monkeypatch):
    fast, slow, taken = _both(REPO / "tasks" / "demo" / "arena_votes_demo.jsonl", monkeypatch)
    assert taken
    _same(fast, slow)


def test_plain_votes_with_every_optional_field_give_the_same_table(tmp_path, monkeypatch):
    rows = [vote(i, seconds=[1, 2.5, None, 0][i % 4], shown_order=[None, "AB", "BA"][i % 3],
                 timestamp="2026-01-02T03:04:05Z", comment=None if i % 2 else "fine", length_a=i, length_b=None,
                 slices={"subject": "x" if i % 2 else "y", "kind": "z"})
            for i in range(40)]
    path = _write(tmp_path, [*rows[:20], "", "  ", *rows[20:]])
    fast, slow, taken = _both(path, monkeypatch)
    assert taken
    _same(fast, slow)
    only_ints = _write(tmp_path, [vote(i, seconds=i) for i in range(9)], "ints.jsonl")
    fast, slow, taken = _both(only_ints, monkeypatch)
    assert taken
    _same(fast, slow)


@pytest.mark.parametrize("odd", [
    '{"pair_id": "p1", "pair_id": "p2", "annotator": "u", "choice": "A", "model_a": "a", "model_b": "b"}',  # twice
    '{"pair_id": "p1", "annotator": "u", "choice": "A", "model_a": "a"}',  # no model_b
    '{"pair_id": "p1", "annotator": "u", "choice": "A", "model_a": "", "model_b": "b"}',
    '{"pair_id": 7, "annotator": "u", "choice": "A", "model_a": "a", "model_b": "b"}',
    '{"pair_id": "p1", "annotator": "u", "choice": "A", "model_a": "a", "model_b": "b", "seconds": true}',
    '{"pair_id": "p1", "annotator": "u", "choice": "A", "model_a": "a", "model_b": "b", "seconds": -1}',
    '{"pair_id": "p1", "annotator": "u", "choice": "A", "model_a": "a", "model_b": "b", "length_a": 2.0}',
    '{"pair_id": "p1", "annotator": "u", "choice": "maybe", "model_a": "a", "model_b": "b"}',
    '{"pair_id": "p1", "annotator": "u", "choice": "A", "model_a": "a", "model_b": "b", "shown_order": "XY"}',
    '{"pair_id": "p1", "annotator": "u", "choices": {"overall": "A"}, "model_a": "a", "model_b": "b"}',
    '{"pair_id": "p1", "annotator": "u", "choice": "A", "model_a": "a", "model_b": "b", "extra": 1}',
    '{"pair_id": "p1", "annotator": "u", "choice": "A", "model_a": "a\\ud800", "model_b": "b"}',
    '{"pair_id": "p1", "annotator": "u", "choice": "A", "model_a": "a", "model_b": "b", "slices": {"k": null}}',
    '{"pair_id": "p1", "annotator": "u", "choice": "A", "model_a": "a", "model_b": "b", "slices": {"other": "v"}}',
    '{"pair_id": "p1", "annotator": "u", "choice": "A", "model_a": "a", "model_b": "b"',  # malformed
    '[1, 2]',
])
def test_anything_not_plain_is_read_line_by_line_as_before(tmp_path, monkeypatch, odd):
    rows = [vote(i, slices={"k": "v"}) for i in range(6)]
    path = _write(tmp_path, [*rows[:3], odd, *rows[3:]])
    fast, slow, taken = _both(path, monkeypatch)
    assert not taken
    _same(fast, slow)


def test_comparison_groups_from_distinct_pairs_are_the_groups_of_every_battle(monkeypatch):
    """comparison_groups joins each distinct (model_a, model_b) once (issue 30): the same groups as every row."""
    import numpy as np

    from judgebench.human.arena import battles

    rng = np.random.default_rng(0)
    for _ in range(40):
        n, m = int(rng.integers(1, 300)), int(rng.integers(2, 40))
        table = pd.DataFrame({"model_a": [f"m{x}" for x in rng.integers(0, m, n)],
                              "model_b": [f"m{x}" for x in rng.integers(0, m, n)]})
        fast = battles.comparison_groups(table)
        with monkeypatch.context() as patch:
            patch.setattr(battles, "_distinct_pairs", lambda coded: list(zip(coded.table["model_a"],
                                                                             coded.table["model_b"])))
            assert fast == battles.comparison_groups(table)


def test_p_values_by_counting_equal_the_merged_ones_to_the_bit():
    """voters.p_values counts with arrays (issue 30); the merged computation stays for tables with missing keys."""
    import numpy as np

    from judgebench.human.arena import voters

    rng = np.random.default_rng(0)
    for round in range(120):  # names, or integer codes (action_values' own) spread over a small or large key space
        n, people, actions = int(rng.integers(1, 400)), int(rng.integers(1, 30)), int(rng.integers(1, 20))
        who, what = rng.integers(0, people, n), rng.integers(0, actions, n) * int(rng.choice([1, 7, 1000]))
        named = round % 2 == 0
        votes = pd.DataFrame({"annotator": [f"u{x}" for x in who] if named else who,
                              "action": [f"a{x}" for x in what] if named else what,
                              "value": rng.choice(["A", "B", "TIE", "BOTH_BAD"][: int(rng.integers(1, 5))], n)})
        if round % 3 == 1:  # action_values' label codes: small integers, not every one used
            votes["value"] = votes["value"].map({"A": 0, "B": 3, "TIE": 1, "BOTH_BAD": 5})
        fast, merged = voters._p_values_counted(votes), voters._p_values_merged(votes)
        assert fast.dtype == merged.dtype and np.array_equal(fast, merged)


def _vote_line(i: int, **fields: str) -> bytes:
    row = {"pair_id": f"p{i}", "annotator": f"u{i % 3}", "choice": "AB"[i % 2], "model_a": "m1", "model_b": "m2"}
    return json.dumps({**row, **fields}).encode() + b"\n"


def _votes_with(tmp_path: Path, last: bytes) -> Path:
    path = tmp_path / "votes.jsonl"
    path.write_bytes(b"".join(_vote_line(i) for i in range(40)) + last)
    return path


@pytest.mark.parametrize("last", [
    b'{"pair_id": "q", "annotator": "a", "choice": "A", "model_a": "x\xc3", "model_b": "y"}\n',  # cut UTF-8
    b'{"pair_id": "p\xff", "annotator": "a", "choice": "A", "model_a": "x", "model_b": "y"}\n',
    b'{"pair_id": "q", "annotator": "a", "choice": "A", "model_a": "caf\xe9", "model_b": "y"}\n',  # Latin-1
])
def test_bytes_that_are_not_utf8_are_refused_whatever_the_column(tmp_path, last):
    # Arrow's reader took them into its strings (a traceback, or a name silently re-decoded; found attacking)
    with pytest.raises(JudgebenchError, match="not UTF-8 text"):
        reading.read_vote_table(_votes_with(tmp_path, last), "votes", "overall")


def test_a_lone_surrogate_escape_is_refused_with_its_line(tmp_path):
    last = b'{"pair_id": "q\\ud800", "annotator": "a", "choice": "A", "model_a": "x", "model_b": "y"}\n'
    with pytest.raises(JudgebenchError, match=r"votes.jsonl:41: .*lone UTF-16 surrogate"):
        reading.read_vote_table(_votes_with(tmp_path, last), "votes", "overall")
    paired = b'{"pair_id": "q\\ud83d\\ude00", "annotator": "a", "choice": "A", "model_a": "x", "model_b": "y"}\n'
    frame, _ = reading.read_vote_table(_votes_with(tmp_path, paired), "votes", "overall")
    assert frame["pair_id"].iloc[-1] == "q\U0001f600"  # a pair of escapes is one character


@pytest.mark.parametrize(("last", "message"), [
    (_vote_line(40).rstrip(b"\n") + _vote_line(41), "votes.jsonl:41: malformed JSON"),  # two objects, one line
    (json.dumps(json.loads(_vote_line(40)), indent=1).encode() + b"\n", "votes.jsonl:41: malformed JSON"),
])
def test_a_line_that_is_not_one_object_is_refused_as_the_line_reader_does(tmp_path, last, message):
    with pytest.raises(JudgebenchError, match=message):  # Arrow read them as votes (found attacking)
        reading.read_vote_table(_votes_with(tmp_path, last), "votes", "overall")


@pytest.mark.parametrize(("text", "message"), [
    ("pair_id,annotator,choice,model_a,model_b,model_a\np1,a1,A,x,y,z\n", "'model_a' appears twice"),
    ("pair_id,annotator,choice,model_a,model_b\np1,a1,A,x,y\np2,a2,B,x,y,extra\n", "votes.csv:3: 6 fields"),
    # a stray quote: csv.DictReader read on to the next quote, one vote's model taking the next rows
    ('pair_id,annotator,choice,model_a,model_b\np1,a1,A,"x,y\np2,a2,B,x,"y"\np3,a3,A,x,y\n',
     r"votes.csv:2: a quoted cell ends mid-cell"),
    ('pair_id,annotator,choice,model_a,model_b\np1,a1,A,x,y\np2,a2,B,x,"y\np3,a3,A,x,y\n',
     r"votes.csv:3: a quoted cell that begins in this row never closes"),
    ('pair_id,annotator,choice,model_a,model_b\np1,a1,A,"x\nx",y\np2,a2,B,x,y,z\n', "votes.csv:4: 6 fields"),
])
def test_a_csv_whose_rows_and_header_disagree_is_refused(tmp_path, text, message):
    path = tmp_path / "votes.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(JudgebenchError, match=message):  # the last column won, an extra value was dropped
        reading.read_vote_table(path, "votes", "overall")


def test_a_csv_row_without_its_last_cells_and_a_blank_line_before_the_header_are_read(tmp_path):
    """A row that ends before its slice cell was refused as "field 'slices.subject': Input should be a valid
    string" (the cell is absent, as a JSON Lines vote without the key); a blank first line was an empty header."""
    path = tmp_path / "votes.csv"
    path.write_text("\npair_id,annotator,choice,model_a,model_b,slice_subject\np1,a1,A,x,y,Bio\np2,a2,B,x,y\n",
                    encoding="utf-8")
    frame, _ = reading.read_vote_table(path, "votes", "overall")
    assert list(frame["pair_id"]) == ["p1", "p2"] and list(frame["slice:subject"].fillna("-")) == ["Bio", "-"]


def test_absent_columns_share_one_array_yet_change_apart(tmp_path):
    """The absent columns of a read, and the all-missing number columns of its battles, share one array each
    (issue 30: 16 MB apiece at 2,000,000 votes); a change to one column in place leaves the others as they were."""
    import numpy as np

    from judgebench.human.arena.battles import make_battles

    path = tmp_path / "votes.jsonl"
    path.write_text("".join(json.dumps({"pair_id": f"p{i}", "annotator": f"u{i % 2}", "choice": "A",
                                        "model_a": "m1", "model_b": "m2"}) + "\n" for i in range(4)))
    assert reading._read_columnar(path) is not None  # the columnar read
    raw, _ = reading.read_vote_table(path, "votes", "overall")
    assert np.shares_memory(raw["timestamp"].to_numpy(), raw["seconds"].to_numpy())
    raw.loc[0, "timestamp"] = "2026-01-01T00:00:00Z"
    assert raw["seconds"].isna().all() and raw["shown_order"].isna().all()
    table = make_battles(raw, "votes", "tie").table
    assert np.shares_memory(table["length_a"].to_numpy(), table["citations_b"].to_numpy())
    table.loc[1, "length_a"] = 5
    table["seconds"] += 1
    assert np.isnan(table["length_a"].iloc[0]) and table["length_a"].iloc[1] == 5
    assert table[["length_b", "citations_a", "citations_b", "seconds"]].isna().all().all()
