"""A scripted annotator: opens the voting page in headless Chromium with an invite link and votes
until no pair is left, pressing the keyboard shortcuts as a person would. Policy `longer` prefers the
longer response (a tie when the lengths are within 10%), with `--noise` of its votes drawn at random;
`random` votes at random. For demos and the README loop; needs /usr/bin/chromium and chromedriver.

    python scripts/browser_voter.py http://127.0.0.1:8080/t/TOKEN --policy longer --seed 1
"""

from __future__ import annotations

import argparse
import random
import sys

CHROME_FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("invite", help="the invite link printed by `judgebench annotate --add-annotator`")
    parser.add_argument("--policy", choices=["longer", "random"], default="longer")
    parser.add_argument("--noise", type=float, default=0.2, help="share of random votes (policy longer)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-votes", type=int, default=10_000)
    args = parser.parse_args()
    from selenium import webdriver
    from selenium.common.exceptions import (
        NoSuchElementException,
        StaleElementReferenceException,
    )
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in CHROME_FLAGS:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    rng = random.Random(args.seed)
    votes = 0
    try:
        driver.get(args.invite)
        while driver.title == "judgebench vote" and votes < args.max_votes:
            showing = driver.find_element(By.CSS_SELECTOR, "#vote-form input[name=vote_id]").get_attribute("value")  # (not
            # the pair: a repeat due at once shows the same pair again, and the wait never ended)
            left, right = (len(driver.find_element(By.ID, side).text) for side in ("left", "right"))
            if args.policy == "random" or rng.random() < args.noise:
                key = rng.choice("1234")
            else:
                key = "3" if abs(left - right) <= 0.1 * max(left, right) else ("1" if left > right else "2")
            ActionChains(driver).send_keys(key).perform()
            WebDriverWait(driver, 10, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)).until(
                lambda d: d.title != "judgebench vote"
                or d.find_element(By.CSS_SELECTOR, "#vote-form input[name=vote_id]").get_attribute("value") != showing)
            votes += 1
        if driver.title == "No access":
            print("the invite link was refused", file=sys.stderr)
            return 2
    finally:
        driver.quit()
    print(f"{votes} votes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
