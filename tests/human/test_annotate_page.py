"""The issue-32 voting page in headless Chromium: five dimensions by keyboard, undo, a gold pair feeding
the admin page's quality table, guidelines on a first visit, full Markdown with math and citations
(hostile markup inert), the narrow layout, and the issue-27 cross-port forged vote. With JUDGEBENCH_SCREENSHOTS=1 the screenshots go to
docs/guide/img/ (referenced from docs/guide/annotate.md)."""

from __future__ import annotations

import json
import os
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from annotate_helpers import pair_rows, serving, shown_pair
from helpers import start_chromium

from judgebench.human.annotate.assign import Rules
from judgebench.human.annotate.store import Store

# the guide's screenshots are remade with JUDGEBENCH_SCREENSHOTS=1; otherwise they go to a temporary folder
IMG = (Path(__file__).resolve().parents[2] / "docs" / "guide" / "img" if os.environ.get("JUDGEBENCH_SCREENSHOTS")
       else Path(tempfile.gettempdir()) / "judgebench-annotate-screenshots")
LONG = ("## Approach\n\nThe answer has a table, a formula and citations [1], [2].\n\n"
        "| method | accuracy | cost |\n|---|---:|---:|\n| pairwise | 0.81 | $1.20 |\n| pointwise | 0.74 | $0.60 |\n\n"
        "1. First, a list introduced by a sentence:\n   - nested item with `code`\n   - another, with $x^2 + y^2 = z^2$\n"
        "2. Second\n\n> A quoted claim from a paper.\n\n---\n\n$$\\frac{1}{n}\\sum_{i=1}^{n} x_i$$\n\n"
        + "".join(f"Paragraph {i}: a long answer keeps going so that the column scrolls on its own. " * 3 + "\n\n"
                  for i in range(12))
        + "```python\nprint('code block')\n```\n\n[1] Smith et al. 2024. Judging the judges.\n[2] Doe 2025. Arena notes.")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = start_chromium(tmp_path_factory.mktemp("chromium-annotate-page"))
    driver.set_window_size(1400, 900)
    IMG.mkdir(parents=True, exist_ok=True)
    yield driver
    driver.quit()


def _by():
    from selenium.webdriver.common.by import By

    return By


def _key(browser, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(browser).send_keys(key).perform()


def _wait(browser, condition, timeout: float = 10) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, timeout, ignored_exceptions=(StaleElementReferenceException,)).until(condition)


def test_five_dimensions_by_keyboard_with_undo_and_the_guidelines_on_a_first_visit(browser, tmp_path: Path) -> None:
    store = Store(tmp_path / "v.sqlite")
    rows = pair_rows(3, response_a=LONG)
    store.add_pairs(rows)
    dims = ["novelty", "feasibility", "clarity", "rigor", "impact"]
    store.put_setting("dimensions", json.dumps(dims))
    token = store.add_annotator("ann", [])
    guidelines = "# How to vote\n\nJudge **substance**, not length. Press `g` to open this panel again."
    with serving(store, Rules(target=1), guidelines=guidelines) as base:
        browser.get(f"{base}/t/{token}")
        panel = browser.find_element(_by().ID, "guidelines")
        assert panel.get_attribute("open") is not None and "Judge substance" in panel.text  # open on a first visit
        _key(browser, "g")  # closes it
        first = shown_pair(browser)
        for key in "1234":
            _key(browser, key)
        _key(browser, "\ue003")  # Backspace: the fourth answer is taken back
        assert browser.find_element(_by().CSS_SELECTOR, "fieldset.current").get_attribute("data-dimension") == "rigor"
        _key(browser, "2")
        _key(browser, "1")
        browser.save_screenshot(str(IMG / "annotate-vote.png"))
        header_y = browser.find_element(_by().CSS_SELECTOR, "header.top").rect["y"]
        _key(browser, "\ue007")  # Enter submits
        _wait(browser, lambda b: shown_pair(b) not in (None, first) or b.title == "All done")
        assert browser.find_element(_by().ID, "guidelines").get_attribute("open") is None  # not a first visit now
        assert header_y == 0
        [vote] = store.votes()
        order = vote["shown_order"]
        side = {"LEFT": "A" if order == "AB" else "B", "RIGHT": "B" if order == "AB" else "A"}
        assert json.loads(vote["choices"]) == {"novelty": side["LEFT"], "feasibility": side["RIGHT"], "clarity": "TIE",
                                               "rigor": side["RIGHT"], "impact": side["LEFT"]}
        second = shown_pair(browser)
        _key(browser, "u")  # undo: the vote is taken back and its pair comes back
        _wait(browser, lambda b: b.find_elements(_by().ID, "undone"))
        assert shown_pair(browser) == first and store.votes() == []
        for key in "33333\ue007":
            _key(browser, key)
        _wait(browser, lambda b: shown_pair(b) == second)
        assert [json.loads(v["choices"]) for v in store.votes()] == [dict.fromkeys(dims, "TIE")]


def test_a_gold_pair_is_not_marked_and_feeds_the_admin_quality_table(browser, tmp_path: Path) -> None:
    store = Store(tmp_path / "v.sqlite")
    gold = [{**r, "id": f"g{i}", "gold": "A", "response_a": "Correct answer", "response_b": "Wrong answer"}
            for i, r in enumerate(pair_rows(3))]
    store.add_pairs(pair_rows(3) + gold)
    token = store.add_annotator("careless", [])
    admin = store.add_annotator("boss", [], admin=True)
    with serving(store, Rules(target=2, gold_share=1.0, repeat_delay_s=14 * 86400)) as base:
        browser.get(f"{base}/t/{token}")
        for i in range(3):  # gold share 1: the three gold pairs come first; the annotator picks the wrong one
            # "left" counts the gold pairs to come as well: it drops after a gold vote as after any other
            assert f"careless: {i} voted, {6 - i} left" in browser.find_element(_by().ID, "progress").text
            assert browser.find_element(_by().ID, "progress-bar").get_attribute("value") == str(i)
            pid = shown_pair(browser)
            assert "gold" not in browser.page_source.lower()
            left = browser.find_element(_by().ID, "left").text
            _key(browser, "2" if "Correct" in left else "1")
            _wait(browser, lambda b, pid=pid: shown_pair(b) != pid)
        assert {v["pair_id"] for v in store.votes()} == {"g0", "g1", "g2"}
        # to the annotator a gold vote is a vote like any other
        assert "careless: 3 voted, 3 left" in browser.find_element(_by().ID, "progress").text
        browser.get(f"{base}/t/{admin}")
        browser.get(f"{base}/admin")
        assert "after 14 days" in browser.find_element(_by().ID, "rules").text
        quality = {r.find_elements(_by().TAG_NAME, "td")[0].text: r for r in browser.find_elements(_by().CSS_SELECTOR, "#quality tbody tr")}
        careless = [c.text for c in quality["careless"].find_elements(_by().TAG_NAME, "td")]
        assert careless[2] == "0% (n=3)" and "gold accuracy" in careless[-1]
        assert quality["careless"].get_attribute("class") == "flagged"
        browser.save_screenshot(str(IMG / "annotate-admin.png"))


class _Attacker(BaseHTTPRequestHandler):
    target = ""
    fields: dict[str, str] = {}

    def do_GET(self) -> None:  # noqa: N802
        inputs = "".join(f"<input name='{k}' value='{v}'>" for k, v in self.fields.items())
        body = (f"<form id=f method=post action='{self.target}/vote'>{inputs}</form>"
                "<script>document.getElementById('f').submit()</script>").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_a_page_on_another_port_cannot_vote_with_the_annotators_cookie(browser, tmp_path: Path) -> None:
    store = Store(tmp_path / "v.sqlite")
    store.add_pairs(pair_rows(2))
    token = store.add_annotator("ann", [])
    with serving(store) as base:
        browser.get(f"{base}/t/{token}")  # the annotator's session cookie is set
        pid = shown_pair(browser)  # even knowing the pair's id (the CSRF token it cannot read)
        handler = type("Attacker", (_Attacker,), {"target": base, "fields": {
            "pair_id": pid, "round": "1", "vote_id": "forged-vote-1", "choice": "LEFT"}})
        evil = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=evil.serve_forever, daemon=True).start()
        try:
            browser.get(f"http://127.0.0.1:{evil.server_address[1]}/")
            _wait(browser, lambda b: b.current_url.startswith(base))
            assert "another site" in browser.page_source
        finally:
            evil.shutdown()
            evil.server_close()
    assert store.votes() == []


def test_full_markdown_math_citations_render_and_hostile_markup_stays_inert(browser, tmp_path: Path) -> None:
    store = Store(tmp_path / "v.sqlite")
    hostile = ("| a | b |\n|---|---|\n| <img src=x onerror=\"window.pwned='img'\"> | [x](javascript:window.pwned='link') |\n\n"
               "$\\text{<script>window.pwned='math'</script>}$ and ![i](x onerror=alert(1))\n\n"
               "<iframe src=javascript:window.pwned='frame'></iframe>")
    store.add_pairs(pair_rows(1, response_a=LONG, response_b=hostile))
    token = store.add_annotator("ann", [])
    with serving(store) as base:
        browser.get(f"{base}/t/{token}")
        assert browser.execute_script("return window.pwned === undefined")
        assert browser.find_elements(_by().CSS_SELECTOR, "main img, main a, main script, main iframe") == []
        long_side = "left" if "Approach" in browser.find_element(_by().ID, "left").text else "right"
        article = f"#{long_side}"
        assert len(browser.find_elements(_by().CSS_SELECTOR, f"{article} table tr")) == 3
        assert browser.find_elements(_by().CSS_SELECTOR, f"{article} ol li ul li")  # nested, introduced list
        assert browser.find_elements(_by().CSS_SELECTOR, f"{article} blockquote")
        assert browser.find_elements(_by().CSS_SELECTOR, f"{article} hr")
        assert len(browser.find_elements(_by().CSS_SELECTOR, f"{article} math")) >= 2  # inline and display LaTeX
        assert len(browser.find_elements(_by().CSS_SELECTOR, f"{article} sup.cite")) == 2
        refs = [li.text for li in browser.find_elements(_by().CSS_SELECTOR, f"{article} .references li")]
        assert refs == ["Smith et al. 2024. Judging the judges.", "Doe 2025. Arena notes."]
        assert browser.find_element(_by().ID, "choice-LEFT").text == "Left is better [1]"
        scroller = browser.find_element(_by().CSS_SELECTOR, article)
        assert browser.execute_script("return arguments[0].scrollHeight > arguments[0].clientHeight", scroller)
        browser.set_window_size(480, 900)  # a narrow screen: the answers stack
        try:
            left, right = browser.find_element(_by().ID, "left").rect, browser.find_element(_by().ID, "right").rect
            assert right["y"] > left["y"] and abs(right["x"] - left["x"]) < 2
            # (a walkthrough: the stacked answers were still called left and right)
            assert browser.find_element(_by().ID, "choice-LEFT").text == "Top is better [1]"
            assert browser.find_element(_by().CSS_SELECTOR, "#right h2").text == "Response 2 (bottom)"
            browser.save_screenshot(str(IMG / "annotate-narrow.png"))
        finally:
            browser.set_window_size(1400, 900)
