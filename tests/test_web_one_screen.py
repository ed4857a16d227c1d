"""A table you play without scrolling, in headless Chromium at a phone's size (390 x 844) and a laptop's
(1280 x 800): the felt, the trick, whose turn it is, the prompt and the hand on one screen in every phase
of a French Tarot deal (the auction, the écart, the chelem and poignée, the play, the end of the deal) and
of an Ottocento hand, with no box of the felt over another and no raised card over a card's name; then
what a guest alone with robots is shown, the chelem's confirmation, and the words of the end of a deal
and of the duplicate challenge.

Each test failed on the page before (the hand below the fold, the trick over the seats, the invitation
link to a guest alone with robots, a chelem announced in one click, "×2 for a garde" over a sum that
held the chelem's -200, "(won by seat 1 (robot))"). Needs /usr/bin/chromium and /usr/bin/chromedriver,
as tests/test_web_browser.py, whose fixtures and helpers it uses.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from helpers_web import LiveServer
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from test_web_browser import (  # noqa: F401  (fixtures)
    add_robots,
    aside_open,
    browser,
    click,
    create_table,
    enter,
    fixed_french_deal,
    my_turn,
    play_one,
    settled,
    stalled,
    start_game,
    text,
    viewport,
    wait,
    wait_my_turn,
)

#: the sizes every phase is looked at: a phone (an iPhone 12 to 15) and a laptop
SIZES = ((390, 844), (1280, 800))


@pytest.fixture
def live(tmp_path: Path) -> Any:
    # robots at once; the challenge's comparison with the rule-based bot only (the other agents take seconds a deal)
    with LiveServer(tmp_path, heartbeat=1.0, silence=8.0, challenge_agents=("rules",)) as server:
        yield server


# ------------------------------------------------------------------------------------- the measure
#: what the page shows, measured in one go: each box as [left, top, right, bottom] in the window
MEASURE = """
const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
const at = (e) => [...e.classList].filter((c) => c.startsWith('at-')).join('');
const name = (e) => (e.id ? '#' + e.id : '') + (e.dataset.card ? '[' + e.dataset.card + ']' : '')
  + (e.dataset.seat ? '.seat' + e.dataset.seat : '')
  + (e.classList.contains('played') ? '.played.' + at(e) + '(' + e.textContent + ')' : '');
const seen = (e) => e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
const S = document.scrollingElement;
const out = {width: innerWidth, height: innerHeight, scrollHeight: S.scrollHeight, scrollWidth: S.scrollWidth};
Object.assign(out, {shown: [], felt: [], faces: [], labels: []});
const must = ['#felt', '#turn', ...(document.getElementById('prompt').textContent ? ['#prompt'] : [])];
for (const sel of must) {
  const e = document.querySelector(sel);
  out.shown.push(seen(e) ? [sel, box(e)] : [sel + ' (not shown)', [0, 0, -1, -1]]);
}
const asked = '#hand .card, #trick .card, #moves button, #aside-bar button, .deal-result .headline';
for (const e of document.querySelectorAll(asked)) {
  if (seen(e)) out.shown.push([name(e) || e.tagName + ':' + e.textContent.slice(0, 20), box(e)]);
}
for (const e of document.querySelectorAll('#felt .seat, #trick .played')) if (seen(e)) out.felt.push([name(e), box(e)]);
for (const c of document.querySelectorAll('#hand .card')) {
  out.faces.push([c.dataset.card, box(c.querySelector('.face'))]);
  out.labels.push([c.dataset.card, box(c.querySelector('.name'))]);
}
return out;
"""


def overlap(a: list[float], b: list[float]) -> bool:
    """Two boxes share more than a pixel each way."""
    return min(a[2], b[2]) - max(a[0], b[0]) > 1 and min(a[3], b[3]) - max(a[1], b[1]) > 1


def one_screen(d: Any, phase: str, sizes: tuple[tuple[int, int], ...] = SIZES) -> None:
    """At each size: the page does not scroll; the felt, whose turn it is, the prompt, every card of the hand
    and of the trick, the move buttons and the end of a deal's headline are inside the window; no two boxes
    of the felt (the seats, the trick's cards) overlap; no card's face (raised when chosen) covers another
    card's name."""
    for width, height in sizes:
        viewport(d, width, height)
        m = d.execute_script(MEASURE)
        where = f"{phase} at {width} x {height}"
        assert m["scrollHeight"] <= m["height"], f"{where}: the page scrolls ({m['scrollHeight']} px in a {m['height']} px window)"
        assert m["scrollWidth"] <= m["width"], f"{where}: the page scrolls sideways ({m['scrollWidth']} px)"
        out = [
            (what, [round(v) for v in b])
            for what, b in m["shown"]
            if not (b[0] >= -0.5 and b[1] >= -0.5 and b[2] <= width + 0.5 and b[3] <= height + 0.5)
        ]
        assert not out, f"{where}: out of the window: {out[:6]}"
        felt = m["felt"]
        over = [(a[0], b[0]) for i, a in enumerate(felt) for b in felt[i + 1 :] if overlap(a[1], b[1])]
        assert not over, f"{where}: boxes of the felt overlap: {over}"
        hidden = [(f[0], lab[0]) for f in m["faces"] for lab in m["labels"] if f[0] != lab[0] and overlap(f[1], lab[1])]
        assert not hidden, f"{where}: a card covers another card's name: {hidden[:6]}"
    viewport(d, *sizes[0])


def seated(make: Any, live: LiveServer, name: str, env: str, players: int) -> Any:
    """A new window at the phone's size: ``name`` creates a table of ``env`` and seats robots at the others."""
    d = make()
    viewport(d, *SIZES[0])
    enter(d, live.url, name)
    create_table(d, env, players)
    add_robots(d, players - 1)
    return d


@contextmanager
def robots_held(table: Any) -> Iterator[None]:
    """The robots wait (the room's clock reads the table's robot delay at each tick), then play on: the
    page stays as it is while it is measured."""
    delay = table.robot_delay
    table.robot_delay = 1e9
    try:
        yield
    finally:
        table.robot_delay = delay


def play_card_and_look(d: Any, table: Any, phase: str) -> None:
    """The person plays his first legal card with the robots held: his card lies on the felt beside the
    others' while the page is measured; then the robots play on."""
    with robots_held(table):
        if play_one(d) is not None:
            wait(lambda: d.find_elements(By.CSS_SELECTOR, "#trick .played.at-bottom"), 10, what="the person's card on the felt")
            one_screen(d, phase)


def play_out(d: Any, table: Any, players: int, looks: int = 3) -> int:
    """The person makes his decisions (the first legal card or move) to the end of the deal, or until he
    has looked at ``looks`` tricks: the page on one screen at a declaration of combinations, and at his
    turns with cards on the felt (then with his own card there too, when the trick is not full with it).
    How many tricks were looked at."""
    deadline = time.monotonic() + 240
    looked = 0
    declared = False
    while not text(d, ".deal-result") and looked < looks:
        assert time.monotonic() < deadline, stalled(d, looked, table)
        if not my_turn(d):
            time.sleep(0.05)
            continue
        if not declared and d.find_elements(By.CSS_SELECTOR, '#moves button[data-verb="declare"]'):
            one_screen(d, "the declaration of combinations")
            declared = True
        on_felt = len(d.find_elements(By.CSS_SELECTOR, "#trick .card"))
        if text(d, "#prompt").startswith("Your turn: play a card") and on_felt:
            one_screen(d, f"the play, {on_felt} cards on the felt")
            if on_felt < players - 1:  # his card stays on the felt once played
                play_card_and_look(d, table, f"the play, his card and {on_felt} more on the felt")
                looked += 1
                continue
        play_one(d)
    return looked


# ------------------------------------------------------------------------------------- French Tarot
def test_a_french_deal_on_one_screen_in_every_phase(live: LiveServer, browser: Any) -> None:  # noqa: F811
    """Eve holds eleven high trumps and the Excuse: she bids garde, chooses her écart, is asked to confirm
    her chelem (one click sends nothing), shows a poignée (her seat's box grows with its trumps) and
    plays the deal out; every phase on one screen at both sizes. At the end, the chelem's -200 is a line of
    its own, not multiplied, and the sum does not say "×2"."""
    d = seated(browser, live, "Eve", "french_tarot_v0", 4)
    live.room.tables[1].next_deal_options = fixed_french_deal()
    table = start_game(d, live)
    wait_my_turn(d, table)
    assert d.find_elements(By.CSS_SELECTOR, "#moves button.move")
    one_screen(d, "the auction")

    garde = [b for b in d.find_elements(By.CSS_SELECTOR, "#moves button.move") if b.text == "Garde"]
    garde[0].click()  # the robots, with three or four low trumps each, pass
    wait(lambda: aside_open(d), 60, what="the écart")
    legal = [e.get_attribute("data-card") for e in d.find_elements(By.CSS_SELECTOR, "#hand .card.legal")]
    for card in legal[-6:]:  # the last six: at 390 px the page before put them in a second row, raised over the first's names
        click(d, f'#hand .card[data-card="{card}"]')
    wait(lambda: d.find_element(By.ID, "aside-confirm").is_enabled(), what="six chosen")
    one_screen(d, "the écart, six cards chosen")
    click(d, "#aside-confirm")

    # the chelem: its button asks for a confirmation in the page; only Yes sends it
    wait(lambda: d.find_elements(By.CSS_SELECTOR, '#moves button[data-verb="chelem"]'), 30, what="the chelem question")
    one_screen(d, "the chelem question")
    steps = table.steps
    click(d, '#moves button[data-verb="chelem"]')
    wait(lambda: d.find_elements(By.ID, "chelem-confirm"), 5, what="the chelem's confirmation")
    assert "win every trick" in text(d, "#moves")
    time.sleep(0.5)
    assert table.steps == steps and table.turn == 0, "one click on the chelem sent it"
    one_screen(d, "the chelem's confirmation")
    click(d, "#chelem-cancel")  # taken back: the question again
    wait(lambda: not d.find_elements(By.ID, "chelem-confirm"), 5, what="the confirmation taken back")
    assert table.steps == steps
    click(d, '#moves button[data-verb="chelem"]')
    click(d, "#chelem-confirm")
    wait(lambda: table.steps > steps, 10, what="the chelem sent")
    assert table.view(0, 0.0)["deal"]["contract"]["chelem"]

    # the poignée (her seat lists its trumps), then the play: her turns, and her card on the felt
    wait_my_turn(d, table)
    poignee = wait(
        lambda: [b for b in d.find_elements(By.CSS_SELECTOR, "#moves button.move") if b.text == "Show a simple poignée"],
        what="the poignée question",
    )
    one_screen(d, "the poignée question")
    poignee[0].click()
    looked = play_out(d, table, players=4, looks=99)
    assert looked >= 1
    assert "simple poignée" in text(d, '.seat[data-seat="0"]')
    settled(d)
    one_screen(d, "the end of the deal")

    rows = [r.text for r in d.find_elements(By.CSS_SELECTOR, ".deal-result table.breakdown tr")]
    chelem = [r for r in rows if r.startswith("chelem")]
    assert chelem and "not multiplied" in chelem[0], rows
    assert "×" not in rows[-1] and rows[-1].startswith("score of the attack"), rows
    score = table.view(0, 0.0)["deal"]["score"]
    assert sum(t["points"] for t in score["terms"] if t["points"] is not None) == score["unit"]


# ------------------------------------------------------------------------------------- Ottocento
def test_an_ottocento_hand_on_one_screen(live: LiveServer, browser: Any) -> None:  # noqa: F811
    """An Ottocento table: the declaration of combinations when the person has some, and the play (a trick
    on the felt, then his card on it too), on one screen at both sizes."""
    d = seated(browser, live, "Carla", "ottocento_v0", 4)
    table = start_game(d, live)
    assert play_out(d, table, players=4, looks=2) >= 1


# ------------------------------------------------------------------------------------- who is shown what
def test_a_guest_alone_with_robots_is_shown_no_invitation(live: LiveServer, browser: Any) -> None:  # noqa: F811
    """Play now seats a guest with three robots: nobody is left to invite, and no link is shown. An owner
    with an empty seat still sees it."""
    d = browser()
    d.get(live.url)
    click(d, "#play-now")
    table = wait(lambda: live.room.tables.get(1), what="the guest's table")
    wait(lambda: table.state == "playing", what="the guest's deal")
    wait(lambda: text(d, "#table-state").startswith("playing"), what="the table on the page")
    assert not d.find_element(By.ID, "invite-box").is_displayed()
    o = browser()
    enter(o, live.url, "Owner")
    create_table(o, "french_tarot_v0", 4)  # three empty seats
    wait(lambda: o.find_element(By.ID, "invite-box").is_displayed(), 10, what="the invitation link")
    assert "#table=2&invite=" in o.find_element(By.ID, "invite-link").get_attribute("value")


# ------------------------------------------------------------------------------------- the challenge's words
def test_the_challenge_names_the_seats_and_who_took(live: LiveServer, browser: Any) -> None:  # noqa: F811
    """A French challenge deal where the person bids garde if he may: the last trick is "won by" a seat's name (not
    "seat 1 (robot)" in brackets in brackets), the end says who took, and the comparison says "N points
    better" or "worse" (not "-59 worse")."""
    d = browser()
    d.get(live.url + "challenge")
    wait(lambda: d.find_element(By.ID, "name"), what="the name field").send_keys("Words", Keys.ENTER)
    wait(lambda: d.find_element(By.ID, "game").is_displayed(), what="the deal")
    public: set[str] = set()
    for _ in range(300):
        if d.find_element(By.ID, "result").is_displayed():
            break
        garde = [b for b in d.find_elements(By.CSS_SELECTOR, "#moves button") if b.text == "Garde"]
        (garde[0].click() if garde else d.switch_to.active_element.send_keys(Keys.ENTER))
        time.sleep(0.15)
        assert d.find_element(By.ID, "error").text == ""
        public.add(d.find_element(By.ID, "public").text)
    tricks = [line for p in public for line in p.splitlines() if line.startswith("Last trick")]
    assert tricks, public
    assert all(re.fullmatch(r"Last trick, won by (you|robot [1-3] \(rules\)):", t) for t in tricks), tricks
    assert "(robot)" not in " ".join(public)
    took = d.find_element(By.ID, "took").text
    # the person bids garde when he may: then he takes, unless a robot bid higher (or before him)
    assert re.match(r"(You|robot [1-3] \(rules\)) took a (petite|garde|garde sans|garde contre)(: | with )", took), took
    assert re.search(r"contract (made|lost)\.$", took)
    lines = wait(
        lambda: [li.text for li in d.find_elements(By.CSS_SELECTOR, "#lines li") if "still being computed" not in li.text],
        120,
        what="the comparison",
    )
    assert any(re.search(r"you did (\d+(\.\d)? points? (better|worse) than|the same as) the rule-based bot", line) for line in lines), lines
    assert not any(re.search(r"[−+-]\d", line.split("(")[0]) for line in lines), lines
