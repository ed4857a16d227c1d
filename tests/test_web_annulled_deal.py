"""A deal that ends as it is dealt (French Tarot's petit sec, annulled at once: docs/rules/french_tarot.md
§2, ``petit_sec="annul"``) is dealt again by the room. Found by the load test (tests/load_room.py): about one
deal in a hundred has a petit sec, and the table stayed "playing" with no one to play, its person waiting
for ever."""

from __future__ import annotations

from helpers_setup import make_deal
from helpers_web import people, table_with

from tarot_env.web.room import Room

#: seat 1 holds the Petit and no other trump nor the Excuse: a petit sec
PETIT_SEC = "T1 1S 2S 3S 4S 5S 6S 7S 8S 9S 10S JS NS QS KS 1H 2H 3H"


def annulled_table() -> tuple:
    users = people(1)
    t = table_with(Room(robot_delay=0.0, pause=0.0), users)
    t.next_deal_options = {"deal": make_deal(4, 3, {1: PETIT_SEC}, petit_sec=True)}
    return t, users


def test_a_deal_annulled_as_it_is_dealt_is_dealt_again_not_left_waiting() -> None:
    t, users = annulled_table()
    t.start(users[0], 0.0)
    assert t.env.unwrapped.game_over  # the petit sec ended the deal at once
    assert t.state == "between" and t.last_result is not None and t.last_result["redeal"], (t.state, t.events)
    assert t.deal_no == 0  # it is not one of the game's deals
    assert any("dealt again" in e for e in t.events)
    t.next_deal(users[0], 1.0)  # the next deal (seeded: no petit sec) is played
    assert t.state == "playing" and t.turn is not None


def test_the_clock_deals_again_after_an_annulled_deal() -> None:
    t, users = annulled_table()
    t.start(users[0], 0.0)
    for step in range(1, 50):  # the clock, as the server runs it: the pause (0 s) then the next deal
        t.advance(float(step))
        if t.state == "playing" and t.turn is not None:
            break
    assert t.state == "playing" and t.turn is not None, (t.state, t.events)
