"""A game is official only with two people who played it: a person away or gone is not the second
person, and what the room says is what it counts. Ann and Ben sit with two robots, Ben leaves 0.3 s after
the start and never comes back: that game and the next two are practice (not 5 XP each for Ann and "3
games" on the board), as the room tells Ann when it says a cancellation is pointless."""

from __future__ import annotations

from typing import Any

import pytest
from helpers_web import first_legal, people, table_with

from tarot_env.web.leaderboard import SOLO_REASON
from tarot_env.web.people import RoomError, User
from tarot_env.web.room import Room, Table


def play_ann(t: Table, ann: User, now: float, said: list[Any]) -> float:
    """Ann plays each of her turns at once, the robots (and Ben's, while he is away) theirs on the clock,
    to the game's end; what the table said of its counting at each step goes into ``said``."""
    for _ in range(10_000):
        said.append(t.view(0, now)["practice"])
        if t.state == "over":
            return now
        now += 1.0
        if t.state == "playing" and t.turn == 0:
            t.move(ann, first_legal(t, 0), now)
        else:
            t.advance(now)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("window", [5.0, 10_000.0])  # Ben abandons during the game; Ben is still away at its end
def test_a_person_who_left_at_the_start_is_not_the_second_person(window: float) -> None:
    r = Room(robot_delay=0.0, pause=0.0, reconnect_window=window)
    ann, ben = people(2)
    t = table_with(r, [ann, ben])
    assert t.view(0, 0.0)["practice"] is None  # two people here: a game started now may count
    t.start(ann, 0.0)
    t.disconnect(ben, 0.3)
    said: list[Any] = []
    now = play_ann(t, ann, 0.3, said)
    g = t.game_result
    assert g is not None and not g.official and g.reason == SOLO_REASON
    assert ann.xp == 0 and g.xp == [0, 0, 0, 0]
    if window == 5.0:  # once Ben abandoned, the room said the game was practice, and it was
        assert SOLO_REASON in said
    # the next two games: Ben is still seated and still away; they are practice from their start
    for game in (2, 3):
        t.start(ann, now)
        assert t.solo and t.view(0, now)["practice"] == SOLO_REASON
        assert any(f"game {game} starts" in e and "practice" in e for e in t.events)
        now = play_ann(t, ann, now, [])
        assert t.game_result is not None and not t.game_result.official
    assert ann.xp == 0


def test_the_cancellation_refused_as_pointless_is_pointless() -> None:
    """The refusal says "alone with robots it is practice": the game then counts for nothing, as said."""
    r = Room(robot_delay=0.0, pause=0.0, reconnect_window=5.0)
    ann, ben = people(2)
    t = table_with(r, [ann, ben])
    t.change_settings(ann, {"chips": True, "stake": 100})
    t.start(ann, 0.0)
    t.disconnect(ben, 0.3)
    now = 0.3
    while not t.seats[1].abandoned:
        now += 1.0
        if t.state == "playing" and t.turn == 0:
            t.move(ann, first_legal(t, 0), now)
        else:
            t.advance(now)
    assert any("no second person plays this game now: it is practice" in e for e in t.events)
    with pytest.raises(RoomError, match="it is practice: it counts for nothing"):
        t.propose_cancel(ann, now)
    assert t.view(0, now)["practice"] == SOLO_REASON
    play_ann(t, ann, now, [])
    g = t.game_result
    assert g is not None and not g.official and ann.xp == 0
    assert ann.chips == 1000 and ben.chips == 900  # Ann's stake back; the abandoner's is forfeited


def test_two_people_who_play_make_an_official_game_and_the_room_never_said_otherwise() -> None:
    r = Room(robot_delay=0.0, pause=0.0)
    ann, ben = people(2)
    t = table_with(r, [ann, ben])
    t.start(ann, 0.0)
    said = []
    now = 0.0
    while t.state != "over":
        said.append(t.view(1, now)["practice"])
        now += 1.0
        if t.state == "playing" and t.turn in (0, 1):
            t.move((ann, ben)[t.turn], first_legal(t, t.turn), now)
        else:
            t.advance(now)
    assert t.game_result is not None and t.game_result.official
    assert set(said) == {None} and ann.xp > 0 and ben.xp > 0


def test_a_person_away_at_the_start_makes_it_practice_and_the_start_says_so() -> None:
    r = Room(robot_delay=0.0, pause=0.0, reconnect_window=600.0)
    ann, ben = people(2)
    t = table_with(r, [ann, ben])
    t.change_settings(ann, {"chips": True, "stake": 100})
    t.disconnect(ben, 0.0)
    assert t.view(0, 0.0)["practice"] == SOLO_REASON  # said before the start
    t.start(ann, 1.0)
    assert t.stakes == [0, 0, 0, 0] and "practice" in t.events[-2]
    t.reconnect(ben, 2.0)  # back at once: the game was decided practice at its start, as said
    assert t.view(0, 2.0)["practice"] == SOLO_REASON
