"""The static leaderboard page: layout in Python, then rendering, sorting and values in headless Chromium."""

from __future__ import annotations

import json
import re

import pytest
from helpers import start_chromium

from judgebench.publish.html import (
    dimensions_of,
    format_value,
    headline_of,
    table_views,
    to_html,
)
from judgebench.publish.tables import write_leaderboards


def _run_row(judge: str, acc: float, kind: str = "run", **extra) -> dict:
    row = {
        "kind": kind,
        "judge": judge,
        "dataset": "demo",
        "task_version": "1.0",
        "prompt": "sciarena_pairwise@0123456789",
        "orders": "both",
        "partial": False,
        "accuracy": acc,
        "accuracy_ci": [round(acc - 7.5, 2), round(acc + 7.25, 2)],
        "accuracy_ab": acc + 1,
        "accuracy_ba": acc - 1,
        "accuracy_consistent": acc - 10,
        "order_consistency": 80.0,
        "order_consistency_ci": [70.0, 90.0],
        "position_bias": 52.5,
        "random_baseline": 50.0,
        "cohen_kappa": 0.2231,
        "subject=Healthcare": 55.0,
        "examples": 40,
        "calls": 80,
        "invalid_rate_pct": 1.25,
        "failed_rate_pct": 0.0,
        "tokens_per_call": None,
        "length_coef": 0.1234,
    }
    row.update(extra)
    return row


def sciarena_rows() -> list[dict]:
    return [
        _run_row("openai/gpt-x", 61.25),
        _run_row("builtin/longer", 55.0, kind="baseline"),
        _run_row("hosted/model-z", 58.5, partial=True),
        {"kind": "baseline", "judge": "random (label distribution)", "dataset": "demo", "accuracy": 50.0},
        {"kind": "reported", "judge": "o3", "dataset": "SciArena paper", "accuracy": 65.1},
        {"kind": "reported", "judge": "GPT-4.1", "dataset": "SciArena paper", "accuracy": 61.9},
    ]


def ideation_rows() -> list[dict]:
    def run(judge: str, base: float, kind: str = "run") -> dict:
        row = {"kind": kind, "judge": judge, "dataset": "demo", "prompt": "ideation_pairwise@abcdef0123", "orders": "both"}
        for offset, dim in enumerate(["overall_quality", "novelty"]):
            value = base + offset
            row[f"{dim}.soft_accuracy"] = value
            row[f"{dim}.soft_accuracy_ci"] = [value - 5, value + 5]
            row[f"{dim}.order_consistency"] = 70.0 + offset
            row[f"{dim}.position_bias"] = 51.0
        row["mean.soft_accuracy"] = base + 0.5
        row["mean.soft_accuracy_ci"] = [base - 4.5, base + 5.5]
        row["examples"] = 30
        return row

    return [
        run("openai/gpt-x", 60.0),
        run("builtin/longer", 52.0, kind="baseline"),
        {"kind": "reported", "judge": "Gemini 3 Pro Preview", "dataset": "Ideation Arena paper", "overall_quality.soft_accuracy": 72.56},
    ]


def test_layout_one_table_per_dimension_with_diagnostics_optional():
    assert headline_of(sciarena_rows()) == "accuracy" and dimensions_of(sciarena_rows()) == []
    assert headline_of(ideation_rows()) == "soft_accuracy"
    assert dimensions_of(ideation_rows()) == ["mean", "overall_quality", "novelty"]
    (view,) = table_views("sciarena_eval", sciarena_rows())
    columns = {c.key: c for c in view.columns}
    assert not columns["accuracy"].diagnostic and columns["accuracy"].visible
    assert columns["cohen_kappa"].diagnostic and not columns["cohen_kappa"].visible
    assert columns["subject=Healthcare"].diagnostic and columns["length_coef"].diagnostic
    assert "accuracy_ci" not in columns
    views = {v.dimension: v for v in table_views("ideation_arena_eval", ideation_rows())}
    assert [r for _, r in views["novelty"].rows if r["kind"] == "reported"] == []  # no novelty figure
    assert any(r["kind"] == "reported" for _, r in views["overall_quality"].rows)
    assert {c.label for c in views["novelty"].columns} >= {"soft_accuracy", "order_consistency", "position_bias"}


def test_page_is_self_contained():
    page = to_html({"sciarena_eval": sciarena_rows(), "ideation_arena_eval": ideation_rows()})
    assert not re.search(r"<link|<script[^>]+src=|@import|url\(|https?://", page)
    assert page.count('<section class="board"') == 1 + 3
    assert format_value(61.25) == "61.25" and format_value(0.22310) == "0.2231" and format_value(None) == ""


# ----------------------------------------------------------------------------- Chromium


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = start_chromium(tmp_path_factory.mktemp("chromium-profile"))
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("board")
    write_leaderboards({"sciarena_eval": sciarena_rows(), "ideation_arena_eval": ideation_rows()}, folder)
    return folder


def _table(browser, section_id: str):
    from selenium.webdriver.common.by import By

    return browser.find_element(By.ID, section_id)


def _column_texts(section, label: str) -> list[str]:
    from selenium.webdriver.common.by import By

    heads = section.find_elements(By.CSS_SELECTOR, "thead th")
    index = next(h.get_attribute("data-col") for h in heads if h.get_attribute("textContent").strip() == label)
    cells = section.find_elements(By.CSS_SELECTOR, f'tbody td[data-col="{index}"]')
    return [c.get_attribute("textContent") for c in cells]


@pytest.mark.slow
def test_page_renders_in_chromium(browser, page):
    from selenium.webdriver.common.by import By

    browser.get((page / "index.html").as_uri())
    assert browser.title == "judgebench leaderboard"
    sections = browser.find_elements(By.CSS_SELECTOR, "section.board")
    assert [s.get_attribute("id") for s in sections] == [
        "sciarena_eval--overall",
        "ideation_arena_eval--mean",
        "ideation_arena_eval--overall_quality",
        "ideation_arena_eval--novelty",
    ]
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    board = _table(browser, "sciarena_eval--overall")
    rows = board.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert len(rows) == len(sciarena_rows())
    marked = {r.get_attribute("class") for r in rows}
    assert marked == {"kind-run", "kind-baseline", "kind-reported"}
    reported = board.find_element(By.CSS_SELECTOR, "tr.kind-reported")
    assert reported.value_of_css_property("font-style") == "italic"
    assert board.find_element(By.CSS_SELECTOR, "tr.kind-run td .ci").text.startswith("[")


@pytest.mark.slow
def test_displayed_values_match_json(browser, page):
    from selenium.webdriver.common.by import By

    browser.get((page / "index.html").as_uri())
    for task in ("sciarena_eval", "ideation_arena_eval"):
        rows = json.loads((page / f"{task}.json").read_text())["rows"]
        for section in browser.find_elements(By.CSS_SELECTOR, f'section.board[data-task="{task}"]'):
            dimension = section.get_attribute("data-dimension")
            prefix = f"{dimension}." if dimension else ""
            heads = section.find_elements(By.CSS_SELECTOR, "thead th")
            keys = {h.get_attribute("data-col"): h.get_attribute("textContent").strip() for h in heads}
            checked = 0
            for tr in section.find_elements(By.CSS_SELECTOR, "tbody tr"):
                row = rows[int(tr.get_attribute("data-row"))]
                for td in tr.find_elements(By.CSS_SELECTOR, "td"):
                    label = keys[td.get_attribute("data-col")]
                    key = prefix + label if prefix + label in row else label
                    text = td.get_attribute("textContent")
                    value = row.get(key)
                    if isinstance(value, float) and not isinstance(value, bool):
                        shown = float(text.split(" [")[0])
                        assert shown == pytest.approx(value, abs=5e-5), (task, key)
                        ci = row.get(f"{key}_ci")
                        if ci:
                            low, high = re.search(r"\[(.+), (.+)\]", text).groups()
                            assert (float(low), float(high)) == pytest.approx(tuple(ci), abs=5e-5)
                        checked += 1
                    elif isinstance(value, str) and key != "kind":
                        assert text == value
            assert checked > 0


@pytest.mark.slow
def test_clicking_a_header_sorts(browser, page):
    from selenium.webdriver.common.by import By

    browser.get((page / "index.html").as_uri())
    board = _table(browser, "sciarena_eval--overall")

    def header(label: str):
        return next(h for h in board.find_elements(By.CSS_SELECTOR, "thead th") if h.text.strip() == label)

    before = [float(t.split(" [")[0]) for t in _column_texts(board, "accuracy")]
    header("accuracy").find_element(By.TAG_NAME, "button").click()
    values = [float(t.split(" [")[0]) for t in _column_texts(board, "accuracy")]
    assert values == sorted(before, reverse=True) and header("accuracy").get_attribute("aria-sort") == "descending"
    header("accuracy").find_element(By.TAG_NAME, "button").click()
    assert [float(t.split(" [")[0]) for t in _column_texts(board, "accuracy")] == sorted(before)
    header("judge").find_element(By.TAG_NAME, "button").click()
    judges = _column_texts(board, "judge")
    assert judges == sorted(judges, key=str.lower) or judges == sorted(judges)
    assert header("accuracy").get_attribute("aria-sort") == "none"
    # empty cells stay last whichever way a column is sorted
    header("order_consistency").find_element(By.TAG_NAME, "button").click()
    consistency = _column_texts(board, "order_consistency")
    assert consistency[-1] == "" and consistency[0] != ""


@pytest.mark.slow
def test_column_chooser_shows_diagnostics(browser, page):
    from selenium.webdriver.common.by import By

    browser.get((page / "index.html").as_uri())
    board = _table(browser, "sciarena_eval--overall")
    kappa = next(h for h in board.find_elements(By.CSS_SELECTOR, "thead th") if h.get_attribute("textContent").strip() == "cohen_kappa")
    assert not kappa.is_displayed()
    board.find_element(By.CSS_SELECTOR, "details.chooser summary").click()
    box = board.find_element(By.CSS_SELECTOR, f'.chooser input[data-col="{kappa.get_attribute("data-col")}"]')
    box.click()
    assert kappa.is_displayed()
    cells = board.find_elements(By.CSS_SELECTOR, f'tbody td[data-col="{kappa.get_attribute("data-col")}"]')
    assert any(c.text == "0.2231" for c in cells)
    box.click()
    assert not kappa.is_displayed()


# ----------------------------------------------------------------------------- hostile cells


HOSTILE = "evil|judge\n| forged | row |\n<script>alert(1)</script><img src=x onerror=alert(2)>"


def test_markdown_cells_escape_pipes_newlines_and_html():
    from judgebench.publish.tables import md_escape, to_markdown

    rows = [_run_row(HOSTILE, 61.25, **{"subject=<b>x|y</b>": 50.0}), {"kind": "reported", "judge": HOSTILE, "dataset": "paper", "source": "a|b"}]
    markdown = to_markdown("sciarena_eval", rows)
    table_lines = [line for line in markdown.splitlines() if line.startswith("|")]
    header_cells = table_lines[0].count(" | ")
    # every line of the run table has the header's number of cells: no forged cell, no forged row
    _, rule, row = table_lines[:3]
    assert row.count(" | ") == header_cells and rule.count("---|") == header_cells + 1
    assert table_lines[3].startswith("| kind |")  # next: the reported table's header, not a forged row
    assert "<script>" not in markdown and "<img" not in markdown and "<b>" not in markdown
    assert "| forged |" not in markdown
    assert md_escape("a|b\nc") == "a&#124;b c" and md_escape("<i>") == "&lt;i&gt;" and md_escape("x\\|") == "x&#92;&#124;"


def test_markdown_headline_table_marks_a_partial_run():
    """A partial run is marked in the headline table, not only in "All columns" (a reader of the first table
    alone had ranked it as complete)."""
    from judgebench.publish.tables import to_markdown

    headline = to_markdown("sciarena_eval", sciarena_rows()).split("### All columns")[0]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in headline.splitlines() if line.startswith("|")]
    kinds = {cells[1]: cells[-1] for cells in rows[2:] if cells[1] in ("hosted/model-z", "openai/gpt-x", "builtin/longer")}
    assert kinds == {"hosted/model-z": "run (partial)", "openai/gpt-x": "run", "builtin/longer": "baseline"}


def test_equal_headline_values_share_a_rank_on_the_page_and_in_markdown():
    """Three baselines at 60.4 were ranked 1, 2, 3 in the order of their rows (a new user's walkthrough): equal
    values share a rank, the next rank counts every row above it (1, 1, 3); reported rows and subsets get none."""
    from judgebench.publish.html import ranks
    from judgebench.publish.tables import to_markdown

    rows = [_run_row("a", 60.4), _run_row("b", 60.4), _run_row("c", 55.0), _run_row("d", 55.0), _run_row("e", 50.0),
            {"kind": "reported", "judge": "o3", "dataset": "paper", "accuracy": 65.1}]
    assert ranks(list(enumerate(rows)), "accuracy") == {0: 1, 1: 1, 2: 3, 3: 3, 4: 5}
    table = [[c.strip() for c in line.strip("|").split("|")] for line in to_markdown("sciarena_eval", rows).splitlines()
             if line.startswith("| ") and line.split("|")[2].strip() in "abcde"]
    assert [(cells[0], cells[1]) for cells in table[:5]] == [("1", "a"), ("1", "b"), ("3", "c"), ("3", "d"), ("5", "e")]


def test_html_escapes_hostile_cells_and_marks_self_reported_columns():
    rows = [_run_row(HOSTILE, 61.25, judge_args="{'x': '</td><script>'}")]
    page = to_html({"sciarena_eval": rows})
    body = page.split("<script>(function")[0]
    assert "<script>alert" not in body and "<img" not in body and "</td><script>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    judge_header = re.search(r'<th data-col="\d+" aria-sort="none"( class="self-reported"[^>]*)?><button[^>]*>judge</button>', page)
    assert judge_header and judge_header.group(1), "the judge column is marked self-reported"
    accuracy_header = re.search(r'<th data-col="\d+" aria-sort="none"( class="self-reported"[^>]*)?><button[^>]*>accuracy</button>', page)
    assert accuracy_header and not accuracy_header.group(1)
    assert "Self-reported (recorded by the submitter" in page and "Verified on submission" in page


def test_html_pages_show_control_and_bidi_characters_as_escapes(tmp_path):
    """An outside attack: index.html, the rubric board's page and arena.html kept a U+202E (read right to left: the
    name `safe\u202etxt.exe` shows as `safeexe.txt`) and raw ESC, where the Markdown outputs escape them."""
    from judgebench.cli.main import main
    from judgebench.kinds.rubric.board import table_html

    name = "atlas\x1b[31m safe\u202etxt.exe"
    page = to_html({"sciarena_eval": [_run_row(name, 61.25)]}).split("<script>(function")[0]
    assert "\u202e" not in page and "\x1b" not in page and "atlas\\x1b[31m safe\\u202etxt.exe" in page
    assert "\u202e" not in table_html([{"judge": name, "task": "t"}])
    votes = tmp_path / "votes.jsonl"
    models = [name, "beta", "gamma"]
    votes.write_text("".join(json.dumps({"pair_id": f"p{i}", "annotator": f"u{i % 3}", "choice": "AB"[i % 2],
                                         "model_a": models[i % 3], "model_b": models[(i + 1) % 3]}) + "\n"
                             for i in range(30)))
    assert main(["arena", str(votes), "--output-dir", str(tmp_path / "a"), "--no-plots", "--n-resamples", "0",
                 "--robustness-repeats", "0"]) == 0
    arena = (tmp_path / "a" / "arena.html").read_text()
    assert "\u202e" not in arena and "\x1b" not in arena and "safe\\u202etxt.exe" in arena


def test_reported_view_ranks_published_rows_only_beside_runs_on_the_released_data():
    rows = [
        _run_row("demo-run", 70.0, accuracy_ab_answered=90.0, coverage_ab=100.0),
        _run_row("released-run", 60.0, dataset="yale-nlp/SciArena-Eval:test@abc", accuracy_ab_answered=63.0, coverage_ab=98.0, vs_reported=True),
        {"kind": "reported", "judge": "o3", "dataset": "yale-nlp/SciArena-Eval:released", "source": "SciArena paper", "accuracy_ab_answered": 65.1, "protocol": "one order"},
        {"kind": "reported", "judge": "GPT-4.1", "dataset": "yale-nlp/SciArena-Eval:released", "source": "SciArena paper", "accuracy_ab_answered": 61.9, "protocol": "one order"},
    ]
    views = {view.dimension: view for view in table_views("sciarena_eval", rows)}
    reported = views["reported"]
    assert [row["judge"] for _, row in reported.rows] == ["o3", "released-run", "GPT-4.1"]  # by accuracy_ab_answered
    assert reported.headline == "accuracy_ab_answered"
    assert [c.key for c in reported.columns][:5] == ["kind", "judge", "source", "accuracy_ab_answered", "coverage_ab"]
    overall = {c.key: c for c in views[None].columns}
    assert overall["accuracy_ab_answered"].visible and "vs_reported" not in overall and "protocol" not in overall
    assert all(row["kind"] != "reported" for _, row in views[None].rows)  # never in the headline ranking
    page = to_html({"sciarena_eval": rows})
    assert 'id="sciarena_eval--reported"' in page


def test_csv_text_cells_cannot_be_spreadsheet_formulas():
    import csv
    import io

    from judgebench.publish.tables import to_csv

    text = to_csv([_run_row("=HYPERLINK(\"http://x\")", 61.25), _run_row("@SUM(1)", 50.0, position_bias=-0.5)])
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [row["judge"] for row in rows] == ["'=HYPERLINK(\"http://x\")", "'@SUM(1)"]
    assert rows[1]["position_bias"] == "-0.5"  # numbers are written as numbers


PHISH = "[verified by OpenAI](https://evil.example/phish) ![x](https://evil.example/track.png)"


def test_markdown_cells_form_no_link_image_autolink_or_emphasis():
    from judgebench.publish.tables import md_escape, to_markdown

    names = [PHISH, "<https://evil.example>", "www.evil.example", "mail me@evil.example", "**bold** _em_ ~~gone~~", "[x]: https://evil.example"]
    markdown = to_markdown("sciarena_eval", [_run_row(name, 61.25) for name in names])
    cells = [line.split(" | ")[1] for line in markdown.splitlines() if line.startswith("| run |")]
    assert len(cells) == len(names) and not [c for c in cells if re.search(r"(?<!\\)[\[\]*~!@]", c)]  # all escaped
    assert "](" not in markdown.replace("\\](", "") and "![" not in markdown
    assert not re.search(r"(?<!\\)://", markdown) and "www." not in markdown and "<https" not in markdown
    assert md_escape("a_b") == "a_b" and md_escape("_a_") == "\\_a\\_"  # intraword underscores stay readable
    assert md_escape(PHISH).startswith("\\[verified by OpenAI\\](https\\://evil.example/phish) \\!\\[x\\]")


def test_csv_line_breaks_cannot_forge_a_row_or_a_formula():
    import csv
    import io

    from judgebench.publish.tables import to_csv

    names = ["nice-judge\r=2+2", "a\n=HYPERLINK(1)", "b\r\n@SUM(1)", "c\u2028-1+1", " =1+1", "\uff1d1+1"]
    text = to_csv([_run_row(name, 61.25) for name in names])
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert len(rows) == 1 + len(names) and {len(row) for row in rows} == {len(rows[0])}
    judges = [row[rows[0].index("judge")] for row in rows[1:]]
    assert judges == ["nice-judge =2+2", "a =HYPERLINK(1)", "b @SUM(1)", "c -1+1", "' =1+1", "'\uff1d1+1"]
    for row in rows[1:]:
        assert not any(cell and cell[0] in "=+-@\t\r" and not _is_number(cell) for cell in row), row
    assert "\r" not in text


def test_report_and_arena_tables_get_the_same_formula_guard(tmp_path):
    """An outside attack: report's and arena's CSVs (written from data frames) kept `=HYPERLINK(...)` model names,
    `@SUM(...)` slice values and annotator ids as they were; the leaderboard's CSV guarded them."""
    import csv
    import io

    import pandas as pd

    from judgebench.publish.tables import frame_csv

    frame = pd.DataFrame({"model": ["=HYPERLINK(\"http://evil.example\")", "ok"], "bin": ["-1..-0.5", "+0.1..+0.25"],
                          "value": [-0.5, 1.0]}, index=["@SUM(1)", "b"])
    frame.columns = ["model", "bin", "+value"]
    rows = list(csv.reader(io.StringIO(frame_csv(frame, index=True))))
    assert rows[0] == ["", "model", "bin", "'+value"]
    assert rows[1] == ["'@SUM(1)", "'=HYPERLINK(\"http://evil.example\")", "-1..-0.5", "-0.5"]  # bins and numbers kept
    assert rows[2] == ["b", "ok", "+0.1..+0.25", "1"]
    from judgebench.cli.main import main

    votes = tmp_path / "votes.jsonl"
    names = ["=HYPERLINK(\"http://evil.example\",\"x\")", "beta", "gamma"]
    votes.write_text("".join(json.dumps({"pair_id": f"p{i}", "annotator": f"@u{i % 3}", "choice": "AB"[i % 2],
                                         "model_a": names[i % 3], "model_b": names[(i + 1) % 3]}) + "\n" for i in range(30)))
    assert main(["arena", str(votes), "--output-dir", str(tmp_path / "a"), "--no-plots", "--n-resamples", "0",
                 "--robustness-repeats", "0"]) == 0
    for name in ("ratings", "winrate", "battle_counts", "annotators", "anomaly"):
        for row in csv.reader(io.StringIO((tmp_path / "a" / f"{name}.csv").read_text())):
            assert not any(cell[:1] in ("=", "@") for cell in row), (name, row)


def test_the_cost_table_csv_and_plot_take_the_same_guards():
    """A second attack: the cost-vs-accuracy CSV kept `=HYPERLINK(...)`, its HTML table a U+202E, and its plot drew a
    name `a$\\frac{x$` as math (a ValueError ended `leaderboard`) and an ESC (a raw byte in matplotlib's warning)."""
    import warnings

    from judgebench.core.text import csv_text
    from judgebench.publish.costplot import CostPoint, html_section, points_csv

    points = [CostPoint("=HYPERLINK(\"http://evil.example\")", 60.0, 50.0, 70.0, 0.5),
              CostPoint("evil\u202etxt.exe \x1b[31m a$\\frac{x$", 55.0, None, None, 0.2, pareto=True)]
    assert points_csv(points).splitlines()[1].startswith('"\'=HYPERLINK(')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        section = html_section("sciarena_eval", points, "accuracy")
    assert "\u202e" not in section and "\x1b" not in section and "evil\\u202etxt.exe" in section
    assert not [w for w in caught if "Glyph" in str(w.message)]
    assert [csv_text(v) for v in ("-1..-0.5", "+0.1..+0.25", "-0.5", "-5", "+3", "-1e-3", "-2+3", "+1-1", "1 2",
                                  "-\u0663", "-\uff11..1", "-1e", "-.5.", "-5 ", "-inf", "-nan")] == [
        "-1..-0.5", "+0.1..+0.25", "-0.5", "-5", "+3", "-1e-3", "'-2+3", "'+1-1", "1 2", "'-\u0663", "'-\uff11..1",
        "'-1e", "'-.5.", "'-5 ", "'-inf", "'-nan"]  # an ASCII number, or a bin of two (report's length bins), computes
    # nothing; anything else starting like a formula is guarded (a slice value `-5` had become `'-5`)


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def test_a_local_build_says_nothing_was_verified_and_a_submitted_board_says_what_was(tmp_path):
    rows = {"sciarena_eval": sciarena_rows()}
    local = write_leaderboards(rows, tmp_path / "local")
    submitted = write_leaderboards(rows, tmp_path / "board", managed=True)
    for path in local:
        if path.suffix in (".md", ".html"):
            text = path.read_text()
            assert "nothing was verified" in text and "Verified on submission" not in text
    for path in submitted:
        if path.suffix in (".md", ".html"):
            assert "Verified on submission" in path.read_text()


def test_protocol_columns_are_percentages_with_two_decimals():
    """A new user's walkthrough: the board showed the paper's `accuracy_ab_answered` as 65.1000 (four decimals, as
    a ratio would be) where the guide says percentages get two."""
    from judgebench.publish.html import metric_format

    assert metric_format("accuracy_ab_answered", 65.1) == "65.10"
    assert metric_format("overall.soft_accuracy_both_all", 55.0) == "55.00"
    assert metric_format("coverage_ab", 100.0) == "100.00"
    assert metric_format("cohen_kappa", 0.12345) == "0.1235" and metric_format("accuracy", 61.25) == "61.25"


def test_markdown_point_and_interval_share_one_precision():
    """An outside audit: the human row showed `33.33 [33.3, 33.3]`, the point above its printed upper bound (two
    decimals for the point, one for the interval)."""
    from judgebench.publish.tables import to_markdown

    row = _run_row("a", 100 / 3, accuracy_ci=[100 / 3, 100 / 3])
    assert "| 33.33 [33.33, 33.33] |" in to_markdown("sciarena_eval", [row])
