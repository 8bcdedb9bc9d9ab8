"""The voting page in headless Chromium: an annotator votes with the mouse and the keyboard, per
dimension, skips; sides are recorded as shown; HTML in a response stays inert; no token, no page."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest
from annotate_helpers import pair_rows, serving, shown_pair
from helpers import start_chromium

from judgebench.human.annotate.assign import Rules
from judgebench.human.annotate.store import Store


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = start_chromium(tmp_path_factory.mktemp("chromium-annotate"))
    yield driver
    driver.quit()


def _by():
    from selenium.webdriver.common.by import By

    return By


def _after(browser, action, previous: str | None) -> None:
    """Do `action`, then wait for the next page (another pair, or the end)."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    action()
    # the page may be replaced between finding the pair field and reading it: that read is retried
    WebDriverWait(browser, 10, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda b: b.title == "judgebench vote" and shown_pair(b) != previous or b.title == "All done")


def _key(browser, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(browser).send_keys(key).perform()


def _shown_left(browser, pairs: dict[str, dict]) -> str:
    """Which stored response the page shows on the left: 'a' or 'b' (read from the page's text)."""
    pair = pairs[shown_pair(browser)]
    left = browser.find_element(_by().ID, "left").text
    a, b = (pair[k].replace("**", "") for k in ("response_a", "response_b"))  # as rendered: **x** is bold x
    assert (a in left) != (b in left)
    return "a" if a in left else "b"


@pytest.mark.slow
def test_annotator_votes_with_mouse_and_keyboard_and_sides_are_recorded(browser, tmp_path: Path) -> None:
    store = Store(tmp_path / "v.sqlite")
    rows = pair_rows(5)
    store.add_pairs(rows)
    pairs = {store.pid("ann", p["id"]): p for p in rows}  # the page carries opaque ids
    token = store.add_annotator("ann", [])
    seen: dict[str, tuple[str, str]] = {}  # pair -> (side shown on the left, what the annotator picked)
    with serving(store, Rules(target=1)) as base:
        browser.get(f"{base}/t/{token}")
        assert "ann: 0 voted, 5 left" in browser.find_element(_by().ID, "progress").text
        steps = [
            ("LEFT", lambda: browser.find_element(_by().ID, "choice-LEFT").click()),  # mouse
            ("RIGHT", lambda: _key(browser, "2")),  # keyboard
            ("TIE", lambda: _key(browser, "3")),
            ("SKIP", lambda: _key(browser, "s")),
            ("BOTH_BAD", lambda: (browser.find_element(_by().ID, "comment").send_keys("1234 typed, not shortcuts"),
                                  browser.execute_script("document.activeElement.blur()"), _key(browser, "4"))),
        ]
        for picked, action in steps:
            pid = shown_pair(browser)
            seen[pairs[pid]["id"]] = (_shown_left(browser, pairs), picked)
            _after(browser, action, pid)
        assert browser.title == "All done"
    votes = {v["pair_id"]: v for v in store.votes()}
    assert len(votes) == 4 and [p for p, (_, k) in seen.items() if k == "SKIP"] == [s[1] for s in store.skips()]
    for pair_id, (left, picked) in seen.items():
        if picked == "SKIP":
            continue
        vote = votes[pair_id]
        assert vote["shown_order"] == ("AB" if left == "a" else "BA")  # the side recorded is the side shown
        expected = {"LEFT": left.upper(), "RIGHT": "B" if left == "a" else "A"}.get(picked, picked)
        assert vote["choice"] == expected, (pair_id, left, picked)
        assert vote["seconds"] is not None and vote["seconds"] >= 0
    assert [v["comment"] for v in votes.values() if v["choice"] == "BOTH_BAD"] == ["1234 typed, not shortcuts"]


@pytest.mark.slow
def test_per_dimension_voting_with_keys_and_mouse(browser, tmp_path: Path) -> None:
    store = Store(tmp_path / "v.sqlite")
    rows = pair_rows(2)
    store.add_pairs(rows)
    store.put_setting("dimensions", json.dumps(["novelty", "feasibility"]))
    pairs = {store.pid("ann", p["id"]): p for p in rows}
    token = store.add_annotator("ann", [])
    with serving(store, Rules(target=1)) as base:
        browser.get(f"{base}/t/{token}")
        first = shown_pair(browser)
        left_first = _shown_left(browser, pairs)
        _key(browser, "1")  # novelty: left
        _key(browser, "2")  # feasibility: right
        _after(browser, lambda: _key(browser, "\ue007"), first)  # Enter
        second = shown_pair(browser)
        left_second = _shown_left(browser, pairs)
        browser.find_element(_by().CSS_SELECTOR, "input[name='dim:novelty'][value='TIE']").click()
        browser.find_element(_by().CSS_SELECTOR, "input[name='dim:feasibility'][value='LEFT']").click()
        _after(browser, lambda: browser.find_element(_by().ID, "submit").click(), second)
    first, second = pairs[first]["id"], pairs[second]["id"]
    votes = {v["pair_id"]: v for v in store.votes()}
    a_or_b = {"a": "A", "b": "B"}
    other = {"a": "B", "b": "A"}
    assert json.loads(votes[first]["choices"]) == {"novelty": a_or_b[left_first], "feasibility": other[left_first]}
    assert json.loads(votes[second]["choices"]) == {"novelty": "TIE", "feasibility": a_or_b[left_second]}
    assert all(v["choice"] is None for v in votes.values())


@pytest.mark.slow
def test_script_and_img_onerror_in_a_response_are_inert(browser, tmp_path: Path) -> None:
    store = Store(tmp_path / "v.sqlite")
    hostile = ("<script>window.pwned = 'script'</script> and <img src=x onerror=\"window.pwned = 'img'\"> "
               "and <a href=\"javascript:window.pwned='link'\">click</a>")
    store.add_pairs(pair_rows(1, response_a=hostile, response_b=hostile, question="**Q** <svg onload=\"window.pwned='svg'\">"))
    token = store.add_annotator("ann", [])
    with serving(store) as base:
        browser.get(f"{base}/t/{token}")
        assert browser.title == "judgebench vote"
        assert browser.execute_script("return window.pwned === undefined")
        assert browser.find_elements(_by().CSS_SELECTOR, "main img, main a, section svg, main script") == []
        assert "<script>window.pwned = 'script'</script>" in browser.find_element(_by().ID, "left").text  # shown as text
        with urllib.request.urlopen(urllib.request.Request(f"{base}/", headers={"Authorization": f"Bearer {token}"})) as page:
            csp = page.headers["Content-Security-Policy"]
            body = page.read().decode()
    assert "script-src 'self'" in csp and "default-src 'none'" in csp
    assert "<script>window" not in body and "&lt;img src=x onerror=" in body


@pytest.mark.slow
def test_math_as_an_expert_reads_it(browser, tmp_path: Path) -> None:
    """A walkthrough saw Chromium start every aligned cell at its column's left edge (it ignores `columnalign`: the
    equals signs did not line up), `\\mathrm{d}` drawn italic, and `$$x$$` inside a sentence end its paragraph."""
    store = Store(tmp_path / "v.sqlite")
    answer = ("We have $$a=b$$ and then done.\n\n"
              "$$\\begin{aligned} f(x) &= x^2 + 2x + 1 \\\\ g &= 1 \\end{aligned}$$\n\n$$\\mathrm{d}x$$")
    store.add_pairs(pair_rows(1, response_a=answer, response_b=answer))
    with serving(store) as base:
        browser.get(f"{base}/t/{store.add_annotator('ann', [])}")
        cells = browser.execute_script("""return [...document.querySelectorAll('#left mtr')].map(r => [...r.children].map(
            td => [td.getBoundingClientRect().right, td.firstElementChild.getBoundingClientRect().right,
                   td.firstElementChild.getBoundingClientRect().left]))""")
        upright = browser.execute_script("return getComputedStyle(document.querySelector('#left mi[mathvariant=normal]')).textTransform")
        sentence = browser.execute_script("return document.querySelector('#left p').textContent")
    (f_right, f_text_right, f_left), (g_right, g_text_right, g_left) = (row[0] for row in cells)
    assert f_right == g_right and abs(f_text_right - g_text_right) < 1 and g_left > f_left + 10  # right-aligned
    assert abs(cells[0][1][2] - cells[1][1][2]) < 1  # the equals signs start one column
    assert upright == "none" and "and then done." in sentence


@pytest.mark.slow
def test_no_page_without_a_token_and_admin_needs_an_admin_token(browser, tmp_path: Path) -> None:
    store = Store(tmp_path / "v.sqlite")
    store.add_pairs(pair_rows(4))
    token = store.add_annotator("ann", ["bio"])
    admin = store.add_annotator("boss", [], admin=True)
    with serving(store, Rules(target=2)) as base:
        browser.delete_all_cookies()
        for path in ("/", "/admin", "/t/not-a-token"):
            browser.get(base + path)
            assert browser.title == "No access" and "Question" not in browser.page_source
        browser.get(f"{base}/t/{token}")
        assert browser.title == "judgebench vote"
        assert shown_pair(browser) in (store.pid("ann", "p1"), store.pid("ann", "p3"))  # expertise bio: only field=bio pairs
        voted = shown_pair(browser)
        _after(browser, lambda: browser.find_element(_by().ID, "choice-TIE").click(), voted)
        browser.get(f"{base}/admin")
        assert browser.title == "No access"  # an annotator's token does not open the admin view
        browser.get(f"{base}/t/{admin}")
        browser.get(f"{base}/admin")
        rows = [r.text for r in browser.find_elements(_by().CSS_SELECTOR, "#annotators tbody tr")]
        assert rows == ["ann 1 0 0"]  # (the admin, who never voted, is no annotator: a walkthrough saw it listed)
        slices = [r.text for r in browser.find_elements(_by().CSS_SELECTOR, "#slices tbody tr")]
        assert slices[0] == "(all) 4 1 0" and "field=bio 2 1 0" in slices  # ann (expertise bio) voted a bio pair


def _comment(browser, text: str) -> None:
    """Put `text` in the comment box as typing would leave it (a script sets it whole: typing 4,000 characters
    takes seconds; the browser still sends its line breaks as CRLF)."""
    browser.execute_script("document.getElementById('comment').value = arguments[0]", text)


def _until(browser, condition) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 10, ignored_exceptions=(StaleElementReferenceException,)).until(condition)


@pytest.mark.slow
def test_a_full_comment_over_many_lines_is_stored_and_a_refused_vote_leads_back(browser, tmp_path: Path) -> None:
    """An outside tester: 4,000 characters over 40 lines (what the box holds, a line break counted as one) arrived
    as 4,038 (CRLF) and were refused on a page with no way back; after the browser's Back, keys and buttons did
    nothing until a reload."""
    store = Store(tmp_path / "v.sqlite")
    store.add_pairs(pair_rows(4))
    token = store.add_annotator("ann", [])
    full = ("x" * 99 + "\n") * 39 + "y" * 100  # 4,000 characters, 39 line breaks
    with serving(store, Rules(target=1)) as base:
        browser.get(f"{base}/t/{token}")
        _comment(browser, full)
        _after(browser, lambda: browser.find_element(_by().ID, "choice-LEFT").click(), shown_pair(browser))
        assert [v["comment"] for v in store.votes()] == [full]  # stored whole, its line breaks LF
        refused = shown_pair(browser)
        _comment(browser, full + "z")  # one over: refused, on a page leading back
        browser.find_element(_by().ID, "choice-LEFT").click()
        _until(browser, lambda b: b.title == "Not recorded")
        assert "4,001 characters" in browser.find_element(_by().TAG_NAME, "body").text
        browser.back()  # the browser's Back: the same page, usable again
        _until(browser, lambda b: shown_pair(b) == refused)
        _comment(browser, "shorter")
        _after(browser, lambda: _key(browser, "1"), refused)
        assert [v["comment"] for v in store.votes()][-1] == "shorter"
        refused = shown_pair(browser)
        _comment(browser, full + "z")
        _key(browser, "2")
        _until(browser, lambda b: b.title == "Not recorded")
        browser.find_element(_by().ID, "back").click()  # the page's own way back
        _until(browser, lambda b: shown_pair(b) == refused)
        assert len(store.votes()) == 2


@pytest.mark.slow
def test_the_page_keys_work_from_the_skip_reason_list(browser, tmp_path: Path) -> None:
    """An outside tester: with a reason chosen from the list (still focused), `s` picked "something else (see
    comment)" instead of skipping, `1` did nothing and Esc did not leave the list."""
    from selenium.webdriver.common.keys import Keys

    store = Store(tmp_path / "v.sqlite")
    store.add_pairs(pair_rows(3))
    token = store.add_annotator("ann", [])
    with serving(store, Rules(target=1)) as base:
        browser.get(f"{base}/t/{token}")
        reason = browser.find_element(_by().ID, "skip-reason")
        reason.click()
        _key(browser, Keys.ARROW_DOWN)
        _key(browser, Keys.ENTER)  # "I cannot judge this topic", the list keeping the focus
        assert browser.execute_script("return document.activeElement.id") == "skip-reason"
        _after(browser, lambda: _key(browser, "s"), shown_pair(browser))
        browser.find_element(_by().ID, "skip-reason").click()
        _key(browser, Keys.ESCAPE)  # closes the list; it keeps the focus
        _after(browser, lambda: _key(browser, "1"), shown_pair(browser))
        browser.find_element(_by().ID, "skip-reason").click()
        _key(browser, Keys.ESCAPE)
        _key(browser, Keys.ESCAPE)  # leaves the list
        assert browser.execute_script("return document.activeElement.id") != "skip-reason"
        _after(browser, lambda: _key(browser, "3"), shown_pair(browser))
        assert browser.title == "All done"
    assert [r[3] for r in store.skip_reasons()] == ["I cannot judge this topic"]
    first, second = store.votes()  # 1: left, as shown
    assert first["choice"] == ("A" if first["shown_order"] == "AB" else "B") and second["choice"] == "TIE"


@pytest.mark.slow
def test_a_stale_tab_and_a_late_undo_lead_back_and_undo_goes_when_its_window_does(browser, tmp_path: Path) -> None:
    """An outside tester: a vote from a second tab on a pair voted in the first, and an Undo past its window, ended on
    "Not recorded" pages with no way back, the first not saying the other tab's vote was kept; the Undo button
    stayed after its window (and was refused)."""
    store = Store(tmp_path / "v.sqlite")
    store.add_pairs(pair_rows(3))
    token = store.add_annotator("ann", [])
    with serving(store, Rules(target=1), undo_window_s=3.0) as base:
        browser.get(f"{base}/t/{token}")
        first, stale = shown_pair(browser), browser.current_window_handle
        browser.switch_to.new_window("tab")
        browser.get(f"{base}/")
        assert shown_pair(browser) == first
        _after(browser, lambda: _key(browser, "1"), first)  # voted in the second tab
        browser.close()
        browser.switch_to.window(stale)
        _key(browser, "2")  # the first tab still shows the pair
        _until(browser, lambda b: b.title == "Not recorded")
        assert "that first vote is stored, this one was not" in browser.find_element(_by().TAG_NAME, "body").text
        browser.find_element(_by().ID, "back").click()
        _until(browser, lambda b: shown_pair(b) not in (None, first))
        assert browser.find_elements(_by().ID, "undo")  # the vote of a moment ago can be taken back ...
        _until(browser, lambda b: not b.find_elements(_by().ID, "undo"))  # ... for 3 s, less a second for the trip
        second = shown_pair(browser)
        _key(browser, "u")  # nothing left to press
        _key(browser, "1")
        _until(browser, lambda b: shown_pair(b) != second)
        assert [v["choice"] is not None for v in store.votes()] == [True, True]


@pytest.mark.slow
def test_a_right_to_left_paragraph_reads_from_the_right(browser, tmp_path: Path) -> None:
    """An expert's hour: Arabic and Hebrew paragraphs were laid out left to right, their closing punctuation on the
    wrong side. Each paragraph, list item and cell takes its direction from its own first strong letter (CSS
    `unicode-bidi: plaintext`): an Arabic one ends at the box's right edge, an English one beside it at its left."""
    store = Store(tmp_path / "v.sqlite")
    answer = "هذا نص عربي قصير.\n\nShort English text.\n\n- שלום עולם.\n- an item"
    store.add_pairs(pair_rows(1, response_a=answer, response_b=answer))
    with serving(store) as base:
        browser.get(f"{base}/t/{store.add_annotator('ann', [])}")
        gaps = browser.execute_script("""return [...document.querySelectorAll('#left p, #left li')].map(p => {
            const r = document.createRange(); r.selectNodeContents(p);
            const text = r.getBoundingClientRect(), box = p.getBoundingClientRect();
            return [Math.round(text.left - box.left), Math.round(box.right - text.right)]; })""")
    (ar_left, ar_right), (en_left, en_right), (he_left, he_right), (item_left, item_right) = gaps
    assert ar_right == 0 and ar_left > 50 and he_right == 0 and he_left > 50, gaps
    assert en_left == 0 and en_right > 50 and item_left == 0 and item_right > 50, gaps
