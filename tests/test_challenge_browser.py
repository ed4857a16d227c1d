"""The duplicate challenge's page in headless Chromium: a person plays a whole challenge deal with the
keyboard alone (Enter on the move the page focuses) and sees his score against the agents.

Needs /usr/bin/chromium and /usr/bin/chromedriver, as tests/test_web_browser.py (whose fixtures it uses)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from test_web_browser import IMG, browser, live, wait  # noqa: F401  (fixtures)


def comparison(d: Any) -> list[str] | None:
    """The comparison's lines once the agents' scores are known (the page asks for them until they are)."""
    lines = [li.text for li in d.find_elements(By.CSS_SELECTOR, "#lines li")]
    return None if any("still being computed" in line for line in lines) else lines


def test_a_person_plays_a_challenge_deal_with_the_keyboard(live, browser, tmp_path: Path) -> None:  # noqa: F811
    d = browser()
    d.get(live.url + "challenge")
    name = wait(lambda: d.find_element(By.ID, "name"), what="the name field")
    name.send_keys("Keyboard", Keys.ENTER)
    wait(lambda: d.find_element(By.ID, "game").is_displayed(), what="the deal")
    title = d.find_element(By.ID, "title").text
    assert "deal 0 of the challenge" in title and "French Tarot, 4 players" in title  # the room's own held-out deals
    assert len(d.find_elements(By.CSS_SELECTOR, "#hand .card")) == 18
    for _ in range(200):  # each Enter plays the focused move (the bidding's first button, the first legal card)
        if d.find_element(By.ID, "result").is_displayed():
            break
        d.switch_to.active_element.send_keys(Keys.ENTER)
        time.sleep(0.15)
        assert d.find_element(By.ID, "error").text == ""
    assert d.find_element(By.ID, "result").is_displayed()
    assert d.find_element(By.ID, "score").text.startswith("Your score on this deal: ")
    lines = wait(lambda: comparison(d), 120, what="the agents' scores on the room's deal (computed on its first play)")
    assert any("the search agent on this deal" in line for line in lines), lines  # "35 points better than", "the same as" ...
    for who in ("the rule-based bot", "the trained agent"):
        assert any(f"{who} on this deal" in line for line in lines), lines
    d.save_screenshot(str(IMG / "challenge-result.png"))
    d.find_element(By.ID, "next").send_keys(Keys.ENTER)  # the next deal of the challenge
    wait(lambda: not d.find_element(By.ID, "result").is_displayed(), what="the next deal")
    assert "deal 1 of the challenge" in d.find_element(By.ID, "title").text


def test_an_ottocento_challenge_deal_on_a_phone(live, browser) -> None:  # noqa: F811
    """``/challenge?table=ottocento_v0`` at 390 px wide: the Bolognese cards, the sides, declarations, the
    score by side, and the comparison."""
    d = browser()
    d.set_window_size(390, 844)
    d.get(live.url + "challenge?table=ottocento_v0")
    wait(lambda: d.find_element(By.ID, "name"), what="the name field").send_keys("Phone", Keys.ENTER)
    wait(lambda: d.find_element(By.ID, "game").is_displayed(), what="the deal")
    assert "Ottocento, 4 players: deal 0 of the challenge" in d.find_element(By.ID, "title").text
    assert "Sides: you and robot 2 (rules) against" in d.find_element(By.ID, "public").text
    assert d.execute_script("return document.documentElement.scrollWidth") <= 390
    for _ in range(200):
        if d.find_element(By.ID, "result").is_displayed():
            break
        d.switch_to.active_element.send_keys(Keys.ENTER)
        time.sleep(0.15)
        assert d.find_element(By.ID, "error").text == ""
    lines = wait(lambda: comparison(d), 120, what="the agents' scores on the room's deal (computed on its first play)")
    assert any("the search agent on this deal" in line for line in lines), lines
    terms = [li.text for li in d.find_elements(By.CSS_SELECTOR, "#terms li")]
    assert any(t.startswith("cards: ") for t in terms) and any(t.startswith("total: ") for t in terms), terms
    d.save_screenshot(str(IMG / "challenge-phone-ottocento.png"))
