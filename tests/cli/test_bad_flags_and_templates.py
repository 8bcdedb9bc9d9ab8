"""Issue 27 item 8: tracebacks and hangs on flags, templates and files: each attack is one line, exit 2."""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import pytest
from test_submit import edit_samples, honest, rejected  # noqa: F401
from test_submit_forgeries import llm_run, renamed

from judgebench.cli.main import main
from judgebench.core.errors import NumericError
from judgebench.stats.ratings import check_elo_scale

DEMO = Path(__file__).resolve().parents[2] / "tasks" / "demo"
VOTES = DEMO / "arena_votes_demo.jsonl"


def one_line_error(capsys, code: int) -> str:
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("judgebench: error:") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("flag", ["--base=1", "--base=0.5", "--anchor-rating=nan", "--anchor-rating=inf",
                                  "--anchor-rating=-1e308", "--scale=1e300"])
def test_arena_elo_flags(tmp_path, capsys, flag):
    err = one_line_error(capsys, main(["arena", str(VOTES), "--output-dir", str(tmp_path / "a"), flag]))
    assert flag.split("=")[0] in err
    assert not (tmp_path / "a").exists()


def test_elo_constants_checked_in_the_library():
    for args in ((1000.0, 400.0, 1.0), (float("nan"), 400.0, 10.0), (-1e308, 400.0, 10.0)):
        with pytest.raises(NumericError):
            check_elo_scale(*args)


def test_nested_range_template_stops_with_one_line(tmp_path, capsys):
    prompt = tmp_path / "hang.yaml"
    prompt.write_text("user: |\n  {% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
                      "{{ question }}{{ response_first }}{{ response_second }}\n")  # (shows both: no warning line)
    start = time.monotonic()
    err = one_line_error(capsys, main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo",
                                       "--prompt", str(prompt), "--output-path", str(tmp_path / "out"), "--quiet"]))
    assert time.monotonic() - start < 30
    assert str(prompt) in err and "loop iterations" in err
    huge = tmp_path / "huge.yaml"
    huge.write_text("user: \"{{ 'x' * 1000000000 }}{{ question }}{{ response_first }}{{ response_second }}\"\n")
    err = one_line_error(capsys, main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo",
                                       "--prompt", str(huge), "--output-path", str(tmp_path / "out"), "--quiet"]))
    assert str(huge) in err


MEMORY_BOMBS = {  # each built gigabytes before any check on the output (found by the outside re-run)
    "doubling ~": "{% set ns = namespace(s='x') %}{% for i in range(30) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}",
    "doubling +": "{% set ns = namespace(s='x') %}{% for i in range(30) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s }}",
    "center filter": "{{ 'x'|center(3000000000) }}",
    "format filter": "{{ '%0*d'|format(2000000000, 1) }}",
    "str method": "{{ 'x'.center(3000000000) }}",
    "% operator": "{{ '%0*d' % (2000000000, 1) }}",
}


@pytest.mark.parametrize("bomb", sorted(MEMORY_BOMBS))
def test_a_template_cannot_build_a_huge_text(tmp_path, capsys, bomb):
    import resource

    prompt = tmp_path / "bomb.yaml"
    prompt.write_text(json.dumps({"user": MEMORY_BOMBS[bomb] + "{{ question }}{{ response_first }}{{ response_second }}"}))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    err = one_line_error(capsys, main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo",
                                       "--limit", "2", "--prompt", str(prompt), "--output-path", str(tmp_path / "out"),
                                       "--quiet"]))
    assert str(prompt) in err and "TemplateBudget" in err
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 200_000  # refused before the memory is taken (each bomb wanted 1.6 to 3 GB)


def test_header_only_csv_and_duplicate_json_key(tmp_path, capsys):
    row = json.loads((DEMO / "sciarena_eval_demo.jsonl").read_text().splitlines()[0])
    header = tmp_path / "header.csv"
    with header.open("w", newline="") as handle:
        csv.writer(handle).writerow(list(row))
    err = one_line_error(capsys, main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--dataset-path",
                                       str(header), "--output-path", str(tmp_path / "o"), "--quiet"]))
    assert str(header) in err and "no data rows" in err
    dup = tmp_path / "dup.jsonl"
    lines = (DEMO / "sciarena_eval_demo.jsonl").read_text().splitlines()[:5]
    lines[2] = lines[2][:-1] + ', "vote": "B"}'
    dup.write_text("\n".join(lines) + "\n")
    err = one_line_error(capsys, main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--dataset-path",
                                       str(dup), "--output-path", str(tmp_path / "o"), "--quiet"]))
    assert f"{dup}:3" in err and "'vote' appears twice" in err


def test_huge_raw_answer_refused_by_submit(tmp_path):
    run = llm_run(tmp_path)

    def grow(rows):
        rows[0]["raw"] = rows[0]["raw"] + " " * 40_000_000

    edit_samples(run, grow)
    rejected(run, "schema", "above the limit", "samples.jsonl:1")


@pytest.mark.parametrize("name", ["bu\u0456ltin/longer",  # a Cyrillic і
                                  "\u0299uiltin/longer",  # a Latin small capital B
                                  "bui1tin/longer", "buiItin/longer", "rep1ay/x", "\u0253uiltin/x"])  # ASCII's own, ɓ
def test_homoglyph_of_a_reserved_prefix_refused(honest, tmp_path, name):  # noqa: F811
    copy = renamed(honest, tmp_path / "homoglyph", name)
    rejected(copy, "task", "look-alike")
