"""annotate without a browser: safe Markdown, assignment rules, idempotent storage, tokens, export."""

from __future__ import annotations

import html
import json
import re
import sqlite3
import time
import urllib.error
import urllib.request
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from annotate_helpers import make_store, pair_rows, post_vote, served, serving

from judgebench.cli.main import main
from judgebench.human.annotate.assign import Rules, next_showing, open_for, shown_order
from judgebench.human.annotate.export import export_votes
from judgebench.human.annotate.store import Store
from judgebench.human.annotate.page import markdown
from judgebench.tasks.votes import majority_label, read_votes

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)


def test_markdown_escapes_everything_and_adds_only_its_own_tags() -> None:
    hostile = "# Title\n\n<script>alert(1)</script> **bold** `x<y`\n\n- <img src=x onerror=alert(1)>\n- two\n\n```\n<b>code</b>\n```"
    out = markdown(hostile)
    assert "<script>" not in out and "<img" not in out and "<b>" not in out
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out and "&lt;img src=x onerror=alert(1)&gt;" in out
    assert "<h3>Title</h3>" in out and "<strong>bold</strong>" in out and "<code>x&lt;y</code>" in out
    assert "<ul><li>" in out and "<pre><code>&lt;b&gt;code&lt;/b&gt;\n</code></pre>" in out
    assert "'" not in markdown("it's \"quoted\"").replace("&#x27;", "")  # quotes escaped too: no attribute break-out


def test_citation_markers_become_superscripts_in_text_only() -> None:
    """An outside attack: `[1]` was replaced after rendering everywhere, inside a code block's class attribute and
    in code too (`a[1]` in a Python answer showed a citation)."""
    out = markdown("As shown [1].\n\n```[1]\nx = a[1]\n```\n\nAlso `b[1]`.\n\n[1] Smith 2024. A.")
    assert out.count("<sup class=\"cite\">[1]</sup>") == 1 and "x = a[1]" in out and "<code>b[1]</code>" in out
    assert 'class="language-[1]"' in out


def test_math_keeps_its_styles_and_aligned_lines_and_references_a_readable_heading() -> None:
    """A physicist's walkthrough: bold vectors and upright units came out italic (the sanitiser dropped
    `mathvariant`), an `aligned` block ran its equations together with a literal `&`, and the references' heading was
    the page's smallest (h6)."""
    out = markdown("$\\mathbf r$ at $10\\,\\mathrm{Hz}$ [1].\n\n$$\\begin{aligned} a &= b \\\\ c &= d \\end{aligned}$$\n\n[1] A. B. 2020")
    assert '<mi mathvariant="bold">r</mi>' in out and '<mi mathvariant="normal">H</mi>' in out
    rows = out.split("<mtable>")[1].split("</mtable>")[0]
    assert rows.count("<mtr>") == 2 and "&amp;" not in rows and rows.count('<mtd columnalign="right">') == 2
    assert '<mtd columnalign="right"><mrow><mi>a</mi></mrow></mtd><mtd columnalign="left"><mrow><mo>=</mo><mi>b</mi>' in rows
    assert "<h5>References</h5>" in out
    assert markdown("$$\\begin{aligned} x &= \\frac{1}{ \\end{aligned}$$").count("math-source") <= 1  # (no crash)


def test_display_math_in_a_line_of_text_and_upright_letters() -> None:
    """`$$a$$ text $$b$$` on one line was one formula from the first `$$` to the last (the text drawn as letters in
    it); `$$a$$` inside a sentence ended the sentence's paragraph; `\\mathrm{d}` came out as an italic d. An attack
    on the first mend: a line break after the first formula made `$$a$$ + $$b$$` a list and `$$x$$ > $$y$$` a
    quotation, edited a code block, and the source shown for an unbalanced block was the rewritten one."""
    line = markdown("$$a=b$$ and then $$c=d$$")
    assert line.count("<math") == 2 and "</span> and then <span class=\"math display\">" in line and "<mi>$</mi>" not in line
    sentence = markdown("We have $$a=b$$ and then done.")
    assert sentence.startswith("<p>We have <span") and sentence.rstrip().endswith("done.</p>") and "<p></p>" not in sentence
    assert markdown("$$a$$$$b$$").count('<span class="math display">') == 2
    for operator in ("+", "-", ">", "1.", "# note", "*"):
        text = markdown(f"$$a$$ {operator} $$b$$")
        assert text.count("<math") == 2 and "<p>" in text and not any(t in text for t in ("<ul", "<ol", "<blockquote", "<h")), text
        assert html.unescape(f" {operator} ") in html.unescape(text)
    assert "$$a$$ and $$b$$" in markdown("```\n$$a$$ and $$b$$\n```")  # a code block keeps its line
    # a second attack: in lists and quotes the line was still one formula, an indented one left its list, and the
    # fences were not CommonMark's (a ~~~ closed a ``` block; a joiner went into code)
    for text in ("- $$a$$ text $$b$$", "1. $$x$$ is less than $$y$$", "> $$a$$ text $$b$$", "~~~\n```\n~~~\n$$a$$ text $$b$$"):
        assert "<mi>$</mi>" not in markdown(text) and markdown(text).count("<math") == 2, text
    assert "<ul><li><p>Item</p><p>" in markdown("- Item\n\n  $$a$$ and $$b$$\n- next") and markdown(
        "- Item\n\n  $$a$$ and $$b$$\n- next").count("<ul>") == 1
    fenced = markdown("````\n```\n$$a$$ x $$b$$\n```\n````")
    assert "$$a$$ x $$b$$" in fenced and "\u2060" not in fenced
    assert r"\mathrm{d}x" in markdown(r"$$\begin{aligned} \mathrm{d}x &= { \end{aligned}$$")  # the source as written
    roman = markdown("$\\mathrm{d}x + \\mathrm { e }^{x}$ and $\\begin{aligned} a \\\\\\mathrm{d} \\\\mathrm{q} \\end{aligned}$")
    assert roman.count('<mi mathvariant="normal">d</mi>') == 2 and '<mi mathvariant="normal">e</mi>' in roman
    assert '<mi mathvariant="normal">q</mi>' not in roman  # `\\mathrm{q}`: a row break, then letters


def test_latex_text_is_text_and_aligned_blocks_split_only_where_latex_does() -> None:
    """An attack on the aligned blocks: `\\text{<div class="note">...}` drew the page's own notice inside an answer
    (latex2mathml leaves text-mode `<` raw; older than the aligned blocks), `\\\\[2pt]` was read as the start of
    `\\[...\\]` display math and broke the rest, `&` and `\\\\` inside `\\text{}` or a nested `cases` split cells,
    `\\\\[A,B]` lost `[A,B]`, `\\label` and `\\tag` showed as text, and `\\hspace{300em}` pushed the answer out."""
    injected = markdown('$\\text{<div class="note">seen</div>}$ and $a < b$')
    assert "<div" not in injected and "&lt;div&nbsp;class=&quot;note&quot;&gt;seen&lt;/div&gt;" in injected
    assert "<mo>&lt;</mo>" in injected  # math-mode `<` is still a relation
    closed = markdown('$$\\begin{aligned} a &= \\text{</mtd></mtable></math><ol start="3"><li>x} \\end{aligned}$$')
    assert "<ol" not in closed and closed.count("</mtable>") == 1 and "&lt;/math&gt;&lt;ol" in closed
    spaced = markdown("$$\\begin{aligned} a &= b \\\\[2pt] [A,B] &= \\text{rock \\& roll} \\end{aligned}$$\n\nand \\(x^2\\)")
    assert spaced.count("<math") == 2 and spaced.count("<mtr>") == 2 and "2pt" not in spaced
    assert spaced.split("<mtr>")[2].count("<mtd") == 2 and '<mo stretchy="false">[</mo><mi>A</mi>' in spaced
    cases = markdown("$$\\begin{aligned} f(x) &= \\begin{cases} 1 & x>0 \\\\ 0 & x \\le 0 \\end{cases} \\end{aligned}$$")
    assert cases.count("<mtable>") == 2 and "&amp;" not in cases
    tagged = markdown("$$\\begin{align} a &= b \\label{eq:1} \\tag{3} \\\\ c &= d \\nonumber \\end{align}$$")
    assert "<mtext>(3)</mtext>" in tagged and "label" not in tagged and "nonumber" not in tagged
    unbalanced = markdown("$$\\begin{aligned} a&=b \\end{aligned} \\end{aligned}$$")
    assert "<code class=\"math-source\">" in unbalanced and "<math" not in unbalanced
    assert '<mspace width="4em">' in markdown("$a\\hspace{300em}b$")


def _formulas(text: str) -> list[str]:
    """The text of each formula markdown() draws, in order."""
    return [re.sub("<[^>]+>", "", m) for m in re.findall(r"<math[^>]*>(.*?)</math>", markdown(text), re.S)]


def test_dollar_amounts_stay_text_beside_math() -> None:
    """An outside tester: `$10. The energy is $` was drawn as math (the real formula after it left raw), and so were
    `$5 and $` and `$5 or $`; a formula could also swallow an inline code span."""
    text = markdown("It costs $5 and $10. The energy is $E=mc^2$.")
    assert _formulas("It costs $5 and $10. The energy is $E=mc^2$.") == ["E=mc2"] and "costs $5 and $10. The energy is " in text
    assert _formulas("Between $5 and $10 per unit, with $x$ units.") == ["x"]
    assert _formulas("Costs US$5 or $ 10 and $x^2$") == ["x2"]
    assert _formulas("$5,000, $3.50; $5-$10, $x $, $ x$ and $x$5 are no formulas") == []
    assert _formulas("$2$, $2x$, $x$, $5^2$, $$a+b$$ and \\( 5 + 3 \\)") == ["2", "2x", "x", "52", "a+b", "5+3"]
    code = markdown("$x` code `$ y and $a `b$` c$")
    assert "<math" not in code and "<code>code</code>" in code and "<code>b$</code>" in code


def test_an_autolink_shows_as_its_address_like_any_link() -> None:
    """An outside tester: `<https://...>` showed with its angle brackets, as the source, while `[text](url)` showed
    as its text; neither becomes a link the page leads to."""
    assert markdown("See <https://example.org/a?b=1> or <a@b.org>.") == "<p>See https://example.org/a?b=1 or a@b.org.</p>\n"
    assert markdown("<javascript:alert(1)>") == "<p>&lt;javascript:alert(1)&gt;</p>\n"  # no link at all: its source


def test_an_ordinary_link_or_image_renders_as_its_text_on_the_served_page(tmp_path: Path) -> None:
    """An outside attack: one plain Markdown link in an answer, or in --guidelines, made every page that showed it
    fail with HTTP 500 (the link rule was bound to markdown-it's renderer as a method and took one argument too
    few); the hostile-markup tests used only links markdown-it never makes (`javascript:`)."""
    out = markdown("See the [docs](https://example.org/docs) and ![a chart](https://example.org/c.png).")
    assert out == "<p>See the docs and [image: a chart].</p>\n"
    store = make_store("sqlite", tmp_path)
    store.add_pairs(pair_rows(1, response_a="See the [docs](https://example.org/docs) for X."))
    token = store.add_annotator("ann", [])
    with serving(store, guidelines="Read the [rubric](https://example.org/rubric) first.") as base:
        for path in ("/", "/guidelines"):
            request = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {token}"})
            with urllib.request.urlopen(request) as answer:
                page = answer.read().decode()
                assert answer.status == 200 and "example.org" not in page


def _vote(pair_id: str, annotator: str, round_: int = 1, at: datetime = NOW) -> dict:
    return {"pair_id": pair_id, "annotator": annotator, "round": round_, "submitted_at": at.isoformat()}


def test_assignment_fills_targets_never_repeats_and_routes_by_expertise() -> None:
    pairs = pair_rows(4)
    rules = Rules(target=2)
    votes = [_vote("p0", "x"), _vote("p0", "y"), _vote("p1", "x")]
    # p0 is at target (2 votes); ann has voted nothing -> the fewest-voted pairs p2, p3 come before p1
    first = next_showing("ann", (), pairs, votes, [], rules, "s", NOW)
    assert first is not None and first.pair_id in {"p2", "p3"} and first.round == 1
    # x voted p0 and p1 and skipped p2 -> only p3 is left for x
    assert next_showing("x", (), pairs, votes, [("x", "p2", 1)], rules, "s", NOW).pair_id == "p3"
    everything = votes + [_vote("p1", "y"), _vote("p2", "x"), _vote("p2", "y"), _vote("p3", "x"), _vote("p3", "y")]
    assert next_showing("z", (), pairs, everything, [], rules, "s", NOW) is None  # all at target
    # expertise "bio" routes the odd pairs (field=bio) only
    assert next_showing("bio-expert", ("BIO",), pairs, votes, [], rules, "s", NOW).pair_id in {"p1", "p3"}


def test_repeats_come_after_the_delay_and_only_once() -> None:
    pairs = pair_rows(3)
    rules = Rules(target=5, repeat_share=1.0, repeat_delay_s=3600)
    votes = [_vote("p0", "x", at=NOW - timedelta(minutes=30)), _vote("p1", "x", at=NOW - timedelta(hours=2))]
    showing = next_showing("x", (), pairs, votes, [], rules, "s", NOW)
    assert (showing.pair_id, showing.round) == ("p1", 2)  # p1 is due, p0 not yet
    votes.append(_vote("p1", "x", round_=2))
    assert next_showing("x", (), pairs, votes, [], rules, "s", NOW).pair_id == "p2"  # no third showing of p1
    no_repeats = Rules(target=5, repeat_share=0.0, repeat_delay_s=0)
    assert next_showing("x", (), pairs, votes[:2], [], no_repeats, "s", NOW).pair_id == "p2"


def test_a_gold_pair_is_never_repeated() -> None:
    """A walkthrough: with repeats on, every gold pair came back in round 2 (the guide: at most once per annotator),
    doubling its gold votes and counting into self-consistency."""
    pairs = pair_rows(3)
    pairs[0]["gold"] = "A"
    rules = Rules(target=5, repeat_share=1.0, repeat_delay_s=0)
    votes = [_vote("p0", "x", at=NOW - timedelta(hours=1)), _vote("p1", "x", at=NOW - timedelta(minutes=30))]
    showing = next_showing("x", (), pairs, votes, [], rules, "s", NOW)
    assert (showing.pair_id, showing.round) == ("p1", 2)  # p0, voted first, is gold: not repeated


def _walk(pairs: list[dict], rules: Rules) -> list[tuple[str, int, int]]:
    """One annotator answering every pair shown until none is left (every third new pair skipped, repeats voted):
    (pair, round, 'N left' on its page) per showing, and ('', 0, 'N left') at the end."""
    votes: list[dict] = []
    skips: list[tuple[str, str, int]] = []
    seen = []
    while (showing := next_showing("x", (), pairs, votes, skips, rules, "s", NOW)) is not None:
        seen.append((showing.pair_id, showing.round, open_for("x", (), pairs, votes, skips, rules, "s")))
        if showing.round == 1 and len(seen) % 3 == 0:
            skips.append(("x", showing.pair_id, 1))
        else:
            votes.append(_vote(showing.pair_id, "x", showing.round, NOW - timedelta(minutes=60 - len(seen))))
    return [*seen, ("", 0, open_for("x", (), pairs, votes, skips, rules, "s"))]


def test_pairs_left_drop_by_one_after_a_gold_answer_as_after_any_other() -> None:
    """An outside tester: after a vote on a gold pair "N voted" rose and "M left" stood still (the progress bar too),
    which told the annotator which pairs were gold; a skip or a repeat shifted the gold draws as well."""
    pairs = pair_rows(6) + [{**r, "id": f"g{i}", "gold": "A"} for i, r in enumerate(pair_rows(6))]
    # every new pair gold while unseen gold pairs last: the 6 gold pairs, then the 6 others; 12 to come at first
    walk = _walk(pairs, Rules(target=1, gold_share=1.0))
    assert [p[0] for p, _, _ in walk[:-1]] == ["g"] * 6 + ["p"] * 6
    assert [left for _, _, left in walk] == [12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
    # half the new pairs gold, repeats of the voted ones at once: 'left' drops by one per new pair, never per repeat
    walk = _walk(pairs, Rules(target=1, gold_share=0.5, repeat_share=1.0, repeat_delay_s=0))
    new = [(pair, left) for pair, round_, left in walk if round_ != 2]
    assert [left for _, left in new] == list(range(len(new) - 1, -1, -1))
    assert {pair[0] for pair, _ in new[:-1]} == {"g", "p"} and any(round_ == 2 for _, round_, _ in walk)
    assert all(left == after for (_, round_, left), (_, _, after) in zip(walk, walk[1:]) if round_ == 2)


def test_sides_are_random_per_annotator_and_pair_but_reproducible() -> None:
    orders = [shown_order("secret", f"ann{i}", f"p{j}", 1) for i in range(10) for j in range(20)]
    assert 70 <= orders.count("AB") <= 130  # 200 fair coins: far inside 100 +- 30
    assert shown_order("secret", "ann1", "p1", 1) == shown_order("secret", "ann1", "p1", 1)


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_votes_are_idempotent_tokens_required_and_export_reads_back(kind: str, tmp_path: Path) -> None:
    store = make_store(kind, tmp_path)
    store.add_pairs(pair_rows(3))
    token = store.add_annotator("ann", [])
    with serving(store) as base:
        for path in ("/", "/admin"):
            with pytest.raises(urllib.error.HTTPError) as denied:
                urllib.request.urlopen(base + path)
            assert denied.value.code == 403
        p0, p1 = served(store, token, "p0"), served(store, token, "p1")  # shown to ann (opaque ids on the page)
        assert post_vote(base, "wrong-token", {"pair_id": p0, "round": "1", "vote_id": "v-00000001", "choice": "LEFT"})[0] == 403
        fields = {"pair_id": p0, "round": "1", "vote_id": "v-00000001", "choice": "LEFT", "comment": "clear"}
        assert post_vote(base, token, fields) == (200, {"status": "stored"})
        assert post_vote(base, token, fields) == (200, {"status": "duplicate"})  # a resend stores nothing
        again = post_vote(base, token, {**fields, "vote_id": "v-00000002"})
        assert again[0] == 409  # a second vote by the same annotator on the same pair
        assert post_vote(base, token, {**fields, "pair_id": "nope", "vote_id": "v-00000003"})[0] == 400
        assert post_vote(base, token, {**fields, "pair_id": p1, "vote_id": "v-00000004", "choice": "MAYBE"})[0] == 400
        assert post_vote(base, token, {**fields, "pair_id": p1, "vote_id": "v-00000005", "round": "2"})[0] == 400
    rows = store.votes()
    assert len(rows) == 1
    # LEFT means response_a when the server showed the pair AB, response_b when BA
    assert rows[0]["choice"] == ("A" if shown_order(store.secret, "ann", "p0", 1) == "AB" else "B")
    done = export_votes(store, tmp_path / "votes.jsonl")
    votes = read_votes(tmp_path / "votes.jsonl")
    assert done.votes == 1 and votes[0].pair_id == "p0" and votes[0].model_a == "m1"
    assert votes[0].slices == {"field": "phys"} and votes[0].comment == "clear" and majority_label([votes[0].choice]) == rows[0]["choice"]


def test_a_mistyped_db_tag_or_link_address_is_refused_before_anything_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A new user's walkthrough: --export and --add-annotator on a misspelt --db made an empty database (0 votes
    written, or a link into a database no server reads, exit 0); a misspelt --expertise tag routed its annotator no
    pair ("All done" before any vote); links named port 0 or 0.0.0.0, which no browser opens."""
    monkeypatch.chdir(tmp_path)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps({k: v for k, v in p.items() if k != "slices"} | {"field": "Physics"}) + "\n"
                             for p in pair_rows(2)))

    def refused(*argv: str) -> str:
        assert main(["annotate", *argv]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1, err
        return err[0]

    assert "--db votes.sqllite: no such database" in refused("--db", "votes.sqllite", "--export", "x.jsonl")
    assert "no such database" in refused("--db", "votes.sqllite", "--add-annotator", "eve")
    assert "no such database" in refused("--db", "votes.sqllite")  # serving: it left an empty file behind
    assert not list(tmp_path.glob("votes.sqllite*")) and not (tmp_path / "x.jsonl").exists()
    assert main(["annotate", str(pairs), "--db", "votes.sqlite", "--add-annotator", "boss", "--admin"]) == 0
    capsys.readouterr()
    error = refused("--db", "votes.sqlite", "--add-annotator", "frank", "--expertise", "phyiscs")
    assert error.startswith("judgebench: error: --expertise phyiscs: no stored pair has it") and "did you mean physics?" in error
    assert "--port 0: " in refused("--db", "votes.sqlite", "--add-annotator", "hank", "--port", "0")
    assert "--host 0.0.0.0: " in refused("--db", "votes.sqlite", "--add-annotator", "ivy", "--host", "0.0.0.0")
    assert "--public-url ftp://x: " in refused("--db", "votes.sqlite", "--new-link", "ivy", "--public-url", "ftp://x")
    assert "--public-url goes with" in refused("--db", "votes.sqlite", "--public-url", "https://vote.example.org")
    assert [a.name for a in Store(tmp_path / "votes.sqlite").annotators()] == ["boss"]  # none added by the refusals
    assert main(["annotate", "--db", "votes.sqlite", "--add-annotator", "frank", "--expertise", "PHYSICS", "--host",
                 "0.0.0.0", "--public-url", "https://vote.example.org/lab/"]) == 0
    assert "\nhttps://vote.example.org/lab/t/" in capsys.readouterr().out
    assert main(["annotate", "--db", "votes.sqlite", "--add-annotator", "gus", "--host", "::1", "--port", "8081"]) == 0
    assert "\nhttp://[::1]:8081/t/" in capsys.readouterr().out

    # the second attack: a public URL or host urlsplit reads one way and a terminal shows another, every-address
    # forms beyond the literal 0.0.0.0, a database that is empty or another program's, an annotator added before a
    # refusal of the same command
    for url in ["https://vote.example.org/a\nb", "https://vote.exa\tmple.org/", "http://x.org?", "http://x.org#",
                "https://vote example.org/", "http://[::0]", "http://[0:0:0:0:0:0:0:0]:8080", "http://0",
                "http://0.0.0.0.", "http://[::ffff:0.0.0.0]", "http://host:0", "http://u@host", "https://x.org/\x1b[2J"]:
        assert "--public-url " in refused("--db", "votes.sqlite", "--new-link", "gus", "--public-url", url), url
    for url in ["https://bücher.example/v", "https://example.org./v", "https://my_host.corp:8080",  # (refused by
                "https://example.org/@team/vote", "https://example.org/✓", "HTTPS://Vote.Example.org/"]:  # the first mend)
        assert main(["annotate", "--db", "votes.sqlite", "--new-link", "gus", "--public-url", url]) == 0, url
        assert f"\n{url.rstrip('/')}/t/" in capsys.readouterr().out
    for host in ["0", "::0", "0:0::0", "0.0.0.0.", "00.0.0.0", "evil.org/x?", "a b", "fe80::1%eth0"]:
        assert "no address a browser can open" in refused("--db", "votes.sqlite", "--new-link", "gus", "--host", host)
    (tmp_path / "empty.sqlite").write_bytes(b"")
    assert "--db empty.sqlite: an empty database" in refused("--db", "empty.sqlite", "--add-annotator", "x")
    with sqlite3.connect(tmp_path / "cache.sqlite") as other:
        other.execute("CREATE TABLE replies (key TEXT)")
    assert "not a votes database (its tables: replies)" in refused("--db", "cache.sqlite", "--add-annotator", "x")
    with sqlite3.connect(tmp_path / "cache.sqlite") as other:  # nothing was written to it
        assert [row[0] for row in other.execute("SELECT name FROM sqlite_master")] == ["replies"]
    assert main(["annotate", "--db", "votes.sqlite", "--add-annotator", "kim", "--export", "e.jsonl"]) == 0
    capsys.readouterr()
    assert main(["annotate", str(pairs), "--db", "bare.sqlite", "--add-annotator", "a"]) == 0 and capsys.readouterr()
    with sqlite3.connect(tmp_path / "bare.sqlite") as db:  # a votes database with no pairs (an older version's)
        db.execute("DELETE FROM pairs")
    assert "holds no pairs" in refused("--db", "bare.sqlite", "--add-annotator", "kim", "--export", "e2.jsonl")
    assert [a.name for a in Store(tmp_path / "bare.sqlite").annotators()] == ["a"]  # kim was not added first


def test_cli_annotate_loads_a_pairs_file_and_exports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps({k: v for k, v in p.items() if k != "slices"} | {"field": "x"}) + "\n" for p in pair_rows(2)))
    db = str(tmp_path / "v.sqlite")
    assert main(["annotate", str(pairs), "--db", db, "--add-annotator", "ann", "--expertise", "x", "--port", "9999"]) == 0
    out = capsys.readouterr().out
    assert "2 new pairs stored" in out and "http://127.0.0.1:9999/t/" in out
    assert main(["annotate", "--db", db, "--add-annotator", "ann"]) == 2  # the name exists
    assert main(["annotate", str(pairs), "--db", db, "--dimensions", "novelty"]) == 2  # other dimensions than stored
    assert "holds pairs voted on dimensions []" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "p0", "question": "q"}\n')
    assert main(["annotate", str(bad), "--db", db]) == 2
    assert "bad.jsonl:1: 'response_a' is missing" in capsys.readouterr().err
    assert main(["annotate", "--db", db, "--export", str(tmp_path / "v.jsonl")]) == 0
    assert "wrote 0 votes" in capsys.readouterr().out
    assert main(["annotate", "--db", str(tmp_path / "no" / "v.sqlite"), "--export", str(tmp_path / "v.jsonl")]) == 2


def test_export_never_writes_over_the_pairs_file_the_database_or_the_guidelines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--export and the files written beside it (NAME.repeats.jsonl, .gold.jsonl, .quality.json, .flagged.txt)
    are refused, in one line naming --export, when one of them is an input; every input is left as it was."""
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(p) + "\n" for p in pair_rows(2)))
    db = tmp_path / "v.sqlite"
    guidelines = tmp_path / "votes.quality.json"
    guidelines.write_text("# guidelines\n")
    assert main(["annotate", str(pairs), "--db", str(db), "--add-annotator", "ann"]) == 0
    capsys.readouterr()
    before = {path: path.read_bytes() for path in (pairs, guidelines)}  # the database: read back below
    for export, extra in ((pairs, []), (db, []), (tmp_path / "votes.jsonl", ["--guidelines", str(guidelines)])):
        code = main(["annotate", str(pairs), "--db", str(db), *extra, "--export", str(export)])
        err = capsys.readouterr().err
        assert code == 2 and err.startswith("judgebench: error: --export ") and err.count("\n") == 1, err
    assert {path: path.read_bytes() for path in before} == before
    assert main(["annotate", "--db", str(db), "--export", str(tmp_path / "elsewhere.jsonl")]) == 0  # still exports
    assert "wrote 0 votes" in capsys.readouterr().out and len(Store(str(db)).pairs()) == 2
    for kind in ("repeats.jsonl", "gold.jsonl", "quality.json", "flagged.txt"):  # every file beside it, empty or not
        assert (tmp_path / f"elsewhere.{kind}").is_file(), kind


@pytest.mark.parametrize("flag", [["--gold-share", "0.1"], ["--target-votes", "5"], ["--repeat-share", "0.2"],
                                  ["--repeat-delay-hours", "1"], ["--guidelines", "g.md"]])
@pytest.mark.parametrize("doing", [["--export", "out.jsonl"], ["--add-annotator", "ann"]])
def test_the_voting_pages_flags_are_refused_where_no_page_is_served(flag: list[str], doing: list[str], tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """--export and --add-annotator serve no page: its settings given with them are refused in one line naming the
    flag (they had been taken and ignored), before the database is touched."""
    db = tmp_path / "v.sqlite"
    code = main(["annotate", "--db", str(db), *flag, *[str(tmp_path / d) if d.endswith(".jsonl") else d for d in doing]])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"judgebench: error: {flag[0]}: ") and err.count("\n") == 1, err
    assert not db.exists() and not (tmp_path / "out.jsonl").exists()


@pytest.mark.slow
@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_a_serving_page_stopped_by_a_signal_exits_130_and_says_so(tmp_path: Path, signal_name: str) -> None:
    """A lab walkthrough: Ctrl-C or SIGTERM ended `annotate` with exit 0 and no word (`view` exits 130, and the
    README says 130 for Ctrl-C or SIGTERM outside a run)."""
    import os
    import signal
    import subprocess
    import sys

    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(p) + "\n" for p in pair_rows(2)))
    db = tmp_path / "v.sqlite"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    command = [sys.executable, "-m", "judgebench", "annotate", "--db", str(db)]
    assert subprocess.run([*command[:4], str(pairs), *command[4:], "--add-annotator", "ann"], env=env,
                          capture_output=True, timeout=120).returncode == 0
    server = subprocess.Popen([*command, "--port", "0"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        assert "serving the voting page on http://127.0.0.1:" in line
        base = line.split(" on ", 1)[1].split()[0]
        for _ in range(300):  # serving: uvicorn's own signal handlers are in place (before, Ctrl-C is main's: 130 too)
            try:
                urllib.request.urlopen(base, timeout=5)
                break
            except urllib.error.HTTPError:
                break  # (a page without a token: 403, an answer all the same)
            except OSError:
                time.sleep(0.05)
        server.send_signal(getattr(signal, signal_name))
        _, err = server.communicate(timeout=60)
    finally:
        server.kill()
    assert server.returncode == 130 and err.strip().endswith("judgebench annotate: stopped")


def test_a_new_link_replaces_a_lost_or_leaked_one(tmp_path: Path, capsys) -> None:
    """A lab walkthrough: an invite link is shown once and a name cannot be added twice, so a lost or leaked link
    could only be replaced by a new name, splitting one expert's votes over two ids."""
    db = tmp_path / "v.sqlite"
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(p) + "\n" for p in pair_rows(2)))
    assert main(["annotate", str(pairs), "--db", str(db), "--add-annotator", "ann"]) == 0
    old = capsys.readouterr().out.strip().splitlines()[-1].rsplit("/t/", 1)[1]
    store = Store(db)
    assert store.annotator_for(old).name == "ann"
    assert main(["annotate", "--db", str(db), "--new-link", "ann"]) == 0
    printed = capsys.readouterr().out.strip().splitlines()
    assert printed[0] == "annotator ann: new invite link (shown once; the old one no longer works):"
    new = printed[1].rsplit("/t/", 1)[1]
    assert new != old and store.annotator_for(old) is None and store.annotator_for(new).name == "ann"
    with serving(store) as base:  # a running server takes the new token and refuses the old one (cookie or header)
        for token, status in ((new, 200), (old, 403)):
            request = urllib.request.Request(base + "/", headers={"Authorization": f"Bearer {token}"})
            try:
                with urllib.request.urlopen(request) as answer:
                    assert answer.status == status
            except urllib.error.HTTPError as error:
                assert error.code == status
    assert main(["annotate", "--db", str(db), "--new-link", "nobody"]) == 2
    assert "--new-link nobody: no annotator of that name in" in capsys.readouterr().err
    assert main(["annotate", "--db", str(db), "--new-link", "ann", "--target-votes", "5"]) == 2
    capsys.readouterr()
    assert main(["annotate", "--db", str(db), "--new-link", "ann", "--admin"]) == 2  # (taken and ignored: an attack)
    assert "--admin and --expertise go with --add-annotator" in capsys.readouterr().err
    assert main(["annotate", "--db", str(db), "--add-annotator", "", "--admin"]) == 2  # the name's own error
    assert "--add-annotator: expected a name of 1-80 printable characters" in capsys.readouterr().err
    fresh = tmp_path / "fresh.sqlite"  # refused before the database is made (or pairs are loaded into it)
    assert main(["annotate", str(pairs), "--db", str(fresh), "--add-annotator", " "]) == 2 and not fresh.exists()


def test_repeat_is_served_by_the_server_and_exported_apart(tmp_path: Path) -> None:
    store = make_store("sqlite", tmp_path)
    store.add_pairs(pair_rows(2))
    token = store.add_annotator("ann", [])
    request = urllib.request.Request  # GET / as the annotator
    with serving(store, Rules(target=1, repeat_share=1.0, repeat_delay_s=0)) as base:
        def page() -> str:
            with urllib.request.urlopen(request(base + "/", headers={"Authorization": f"Bearer {token}"})) as answer:
                return answer.read().decode()

        first = page()
        pair_id = first.split("name='pair_id' value='")[1].split("'")[0]
        assert "name='round' value='1'" in first
        assert post_vote(base, token, {"pair_id": pair_id, "round": "1", "vote_id": "first-vote", "choice": "TIE"})[0] == 200
        again = page()  # repeat share 1, no delay: the same pair, round 2, before the other pair
        assert f"name='pair_id' value='{pair_id}'" in again and "name='round' value='2'" in again and "seen this pair before" in again
        assert post_vote(base, token, {"pair_id": pair_id, "round": "2", "vote_id": "second-vote", "choice": "LEFT"})[0] == 200
        assert f"value='{pair_id}'" not in page()  # never a third time
    done = export_votes(store, tmp_path / "votes.jsonl")
    # one first vote (TIE) and one repeat (LEFT: A or B) -> 0 of 1 repeats agree
    assert (done.votes, done.repeats, done.agreement) == (1, 1, 0.0)
    assert [v.choice for v in read_votes(tmp_path / "votes.repeats.jsonl")] in (["A"], ["B"])


def test_the_annotate_command_leaves_its_votes_in_the_database_file(tmp_path: Path) -> None:
    """After the process exits, the SQLite database holds everything (its WAL checkpointed, no -wal/-shm left):
    a copy of votes.sqlite alone is the whole store. The exit must let the connections close."""
    import os
    import subprocess
    import sys

    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(p) + "\n" for p in pair_rows(2)))
    db = tmp_path / "v.sqlite"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-m", "judgebench", "annotate", str(pairs), "--db", str(db), "--add-annotator", "ann"],
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-500:]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pairs.jsonl", "v.sqlite"]
    copy = tmp_path / "copy" / "v.sqlite"
    copy.parent.mkdir()
    copy.write_bytes(db.read_bytes())
    assert len(Store(str(copy)).pairs()) == 2 and [a.name for a in Store(str(copy)).annotators()] == ["ann"]


def test_names_and_slices_show_no_control_or_bidi_character() -> None:
    """A slice value from the data (or a dimension's name) holding a right-to-left override drew the admin table's
    text reversed: the page's own text goes through the one escape (core/text.html_text), as every other page's."""
    from judgebench.human.annotate.page import admin_page

    page = admin_page({"annotators": [["ann", 1, 0, 0]], "slices": [["phys\u202ecis", 2, 1, 0]]}, "rules")
    assert "\u202e" not in page and "phys\\u202ecis" in page


def test_the_exported_quality_figures_leave_out_an_admin_who_never_voted(tmp_path: Path) -> None:
    """An outside walkthrough: the admin page left out an admin who never voted, but the export's quality file
    listed one, with 0 votes and no flag; both now take their names from quality.figured_annotators."""
    store = Store(tmp_path / "v.sqlite")
    store.add_pairs(pair_rows(2))
    store.add_annotator("ann", [])
    store.add_annotator("boss", [], admin=True)
    store.add_vote({"vote_id": "v-00000001", "pair_id": "p0", "annotator": "ann", "round": 1, "choice": "A",
                    "choices": None, "shown_order": "AB", "shown_at": None, "submitted_at": "2026-12-07T00:00:00.000Z",
                    "seconds": 2.0, "comment": None})
    export_votes(store, tmp_path / "votes.jsonl")
    figures = json.loads((tmp_path / "votes.quality.json").read_text())
    assert [f["annotator"] for f in figures] == ["ann"]
