"""Issue 27 item 7: Markdown and terminal injection. Every Markdown writer escapes through core/text.md_cell /
md_text, every terminal print of a user-supplied id through core/text.term_text."""

from __future__ import annotations

import json
import re
from pathlib import Path

from test_submit import make_run

from judgebench.cli.main import main
from judgebench.core.text import md_cell, md_text, term_text

DEMO_VOTES = Path(__file__).resolve().parents[2] / "tasks" / "demo" / "arena_votes_demo.jsonl"
EVIL = ["<img src=x onerror=alert(1)>", "a|b\n| forged | row |", "[click](javascript:alert(1))", "\x1b]0;pwn\x07red\x1b[31m"]


def assert_safe_markdown(text: str) -> None:
    assert "<img" not in text and not re.search(r"(?<!\\)\]\(javascript", text) and "\x1b" not in text and "\x07" not in text, text
    assert "| forged | row |" not in text


def test_the_escapes():
    for value in EVIL:
        for escape in (md_cell, md_text):
            out = escape(value)
            assert_safe_markdown(out)
            assert "\n" not in out and "|" not in out.replace("&#124;", "")
        shown = term_text(value)
        assert shown.isprintable() and "\n" not in shown
    assert md_text("# title").startswith("\\#") and md_text("1. item").startswith("\\1.")


def test_arena_md_escapes_model_and_annotator_names(tmp_path):
    votes = tmp_path / "votes.jsonl"
    lines = DEMO_VOTES.read_text().splitlines()[:600]
    names = {}
    out_lines = []
    for line in lines:
        row = json.loads(line)
        for side in ("model_a", "model_b"):
            names.setdefault(row[side], EVIL[len(names) % len(EVIL)] + str(len(names)))
            row[side] = names[row[side]]
        row["annotator"] = EVIL[hash(row["annotator"]) % 2] + row["annotator"]
        out_lines.append(json.dumps(row))
    votes.write_text("\n".join(out_lines) + "\n")
    assert main(["arena", str(votes), "--output-dir", str(tmp_path / "arena"), "--n-resamples", "0",
                 "--robustness-repeats", "1"]) == 0
    text = (tmp_path / "arena" / "arena.md").read_text()
    assert_safe_markdown(text)
    table = [line for line in text.splitlines() if line.startswith("| ") and "rating [95% CI]" not in line]
    assert all(line.count(" | ") == line.split("|", 1)[1].count(" | ") for line in table)


def test_report_title_and_submit_print_escape_the_judge_id(tmp_path, capsys):
    run = make_run(tmp_path / "run", "sciarena_eval")
    results = json.loads((run / "results.json").read_text())
    evil = "builtin/longer\n| forged | row |\x1b[2J\x07"
    results["config"]["judge"] = evil
    (run / "results.json").write_text(json.dumps(results))
    samples = [json.loads(line) for line in (run / "samples.jsonl").read_text().splitlines()]
    (run / "samples.jsonl").write_text("".join(json.dumps({**r, "judge": evil}) + "\n" for r in samples))
    assert main(["report", str(run)]) == 0
    report = (run / "report" / "report.md").read_text()
    assert_safe_markdown(report)
    assert report.splitlines()[0].startswith("# Judge diagnostics: builtin/longer ")
    capsys.readouterr()
    main(["score", str(run)])
    out = capsys.readouterr()
    assert "\x1b" not in out.out + out.err and "\x07" not in out.out + out.err
    assert not re.search(r"\n\| forged", out.out + out.err)
