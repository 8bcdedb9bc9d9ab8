"""The run viewer in headless Chromium: the static bundle opened from disk (file://) and the served page.

JUDGEBENCH_SCREENSHOTS=DIR saves the guide's two screenshots (docs/guide/img/) while the test runs."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from helpers import start_chromium
from test_viewer import hostile_run

from judgebench.publish.viewer.bundle import write_bundle
from judgebench.publish.viewer.data import Filters, build_view, filter_rows, flag_counts
from judgebench.publish.viewer.serve import make_server


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = start_chromium(tmp_path_factory.mktemp("chromium-viewer"))
    driver.set_window_size(1400, 1000)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def demo_runs(tmp_path_factory):
    from judgebench.cli.main import main

    out = tmp_path_factory.mktemp("demo-runs")
    assert main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--judge", "builtin/random",
                 "--demo", "--repeats", "2", "--output-path", str(out), "--bootstrap", "0"]) == 0
    return [out / "builtin-longer", out / "builtin-random"]


def _wait(browser, condition, timeout: float = 10):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, timeout).until(lambda d: condition(d))


def _ready(browser) -> None:
    _wait(browser, lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "1")


def _shown(browser) -> int:
    script = 'const e = document.querySelector("#exview .ex[data-n]"); return e ? e.getAttribute("data-n") : null;'
    return int(_wait(browser, lambda d: d.execute_script(script)))  # read in the page: the node may be redrawn


def _press(browser, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(browser).send_keys(key).perform()


def _screenshot(browser, name: str) -> None:
    folder = os.environ.get("JUDGEBENCH_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(Path(folder) / name))


@pytest.mark.slow
def test_bundle_from_disk_filters_opens_navigates_and_compares(browser, demo_runs, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    view = build_view(demo_runs)
    out = tmp_path / "bundle"
    write_bundle(view, out)
    browser.get((out / "index.html").as_uri())
    _ready(browser)
    assert browser.find_element(By.ID, "status").text.startswith(f"{len(view.rows)} of {len(view.rows)} examples")

    Select(browser.find_element(By.ID, "slice")).select_by_value("subject=Healthcare")
    in_slice = Filters(slice_column="subject", slice_value="Healthcare")
    expected_count = flag_counts(view, in_slice)["disagree_label"]
    assert browser.find_element(By.ID, "count-disagree_label").text == str(expected_count)
    browser.find_element(By.ID, "flag-disagree_label").click()
    wanted = filter_rows(view, Filters(flags=("disagree_label",), slice_column="subject", slice_value="Healthcare"))
    assert len(wanted) == expected_count >= 2
    rows = browser.find_elements(By.CSS_SELECTOR, "#list tbody tr")
    assert [int(r.get_attribute("data-n")) for r in rows] == [r["n"] for r in wanted]
    _screenshot(browser, "viewer-index.png")

    rows[0].click()
    assert _shown(browser) == wanted[0]["n"]
    text = browser.find_element(By.ID, "exview").text
    assert "Raw reply" in text and "Prompt as the judge saw it (AB)" in text and "Repeats" in text
    _press(browser, "j")
    _wait(browser, lambda d: _shown(d) == wanted[1]["n"])
    _press(browser, "k")
    _wait(browser, lambda d: _shown(d) == wanted[0]["n"])
    _press(browser, "n")  # every row of this list disagrees: the next one
    _wait(browser, lambda d: _shown(d) == wanted[1]["n"])

    browser.find_element(By.ID, "sidebyside").click()
    _wait(browser, lambda d: d.find_elements(By.ID, "runs-compare"))
    sections = browser.find_elements(By.CSS_SELECTOR, "#exview .cols > section")
    assert [s.get_attribute("data-run") for s in sections] == ["0", "1"]
    compare_rows = browser.find_elements(By.CSS_SELECTOR, "#runs-compare tr")
    assert len(compare_rows) == 3 and "builtin-longer" in compare_rows[1].text
    _screenshot(browser, "viewer-example.png")

    _press(browser, "u")
    _wait(browser, lambda d: d.find_element(By.ID, "listview").is_displayed())
    cell = browser.find_element(By.CSS_SELECTOR, '#matrix a[data-cell="AB"]')
    cell.click()  # the cell filter joins the others
    _wait(browser, lambda d: d.find_element(By.ID, "cell").text.startswith("cell: label A, judge B"))
    both = filter_rows(view, Filters(flags=("disagree_label",), slice_column="subject", slice_value="Healthcare",
                                     cell=("A", "B")))
    rows = browser.find_elements(By.CSS_SELECTOR, "#list tbody tr")
    assert [int(r.get_attribute("data-n")) for r in rows] == [r["n"] for r in both]
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def _no_markup_ran(browser) -> None:
    from selenium.webdriver.common.by import By

    _shown(browser)
    _wait(browser, lambda d: "Raw reply" in d.find_element(By.ID, "exview").text)
    assert browser.execute_script("return window.__pwned === undefined")
    box = browser.find_element(By.ID, "exview")
    assert not box.find_elements(By.CSS_SELECTOR, "script, img, iframe, b")
    assert not [a for a in box.find_elements(By.TAG_NAME, "a") if "javascript" in (a.get_attribute("href") or "")]
    assert "<script>window.__pwned=1</script>" in box.text and 'onerror="window.__pwned=2"' in box.text
    assert "</pre><script>window.__pwned=4</script>[[A]]" in box.text
    assert box.find_element(By.CSS_SELECTOR, ".md strong").text == "bold"


@pytest.mark.slow
def test_hostile_text_stays_text_in_the_bundle_and_the_served_page(browser, tmp_path):
    view = build_view([hostile_run(tmp_path)])
    write_bundle(view, tmp_path / "bundle")
    browser.get((tmp_path / "bundle" / "index.html").as_uri() + "#ex/0")
    _ready(browser)
    _no_markup_ran(browser)
    server = make_server(view, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://127.0.0.1:{server.server_address[1]}/#ex/0")
        _ready(browser)
        _no_markup_ran(browser)
    finally:
        server.shutdown()
        server.server_close()
