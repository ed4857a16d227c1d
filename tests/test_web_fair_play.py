"""The room's results mean what they say: XP and chips are earned by playing, and a result cannot be
dodged. A person alone with robots plays for practice; a deal the clock played for a person earns him
nothing; a cancellation needs another person's vote, and waits for one who is away; after the
reconnection window the abandoned seat belongs to the robot, and the abandoner loses his stake even
when the robot wins; what a game is played for (its deals, its time per turn) is fixed once it starts.
The room runs on a clock the tests hold (``Table.advance``), and on the wire where what a person sees
matters."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from helpers_web import app_for, first_legal, hello, is_table, open_table, people, play_out, receive_until, table_with
from starlette.testclient import TestClient

from tarot_env.web import leaderboard
from tarot_env.web.people import RoomError
from tarot_env.web.room import Room


def test_a_person_alone_with_robots_plays_for_practice_no_xp_no_chips() -> None:
    """Alone with robots a game is practice: played for chips, it would take the robots' (the bank's)
    stakes, 1,000 -> 4,500 chips in three games."""
    r = Room(robot_delay=0.0, pause=0.0)
    (a,) = people(1)
    t = table_with(r, [a])
    t.change_settings(a, {"chips": True, "stake": 500})
    t.start(a, 0.0)
    assert t.stakes == [0, 0, 0, 0] and a.chips == 1000
    play_out(t, [a])
    g = t.game_result
    assert g is not None and not g.official and "second person" in g.reason
    assert (a.xp, a.chips) == (0, 1000)


def _two_people_one_idle(deals: int, ben_plays: int | None = None) -> tuple[Any, Any, Any]:
    """Ann plays every move herself; Ben never moves (the clock plays each of his turns: a time-out), but
    in deal ``ben_plays`` (counted from 0), which he plays himself."""
    r = Room(robot_delay=0.0, pause=0.0)
    a, b = people(2)
    t = table_with(r, [a, b])
    t.change_settings(a, {"chips": True, "stake": 100, "deals": deals, "time_per_turn": 0.5})
    t.start(a, 0.0)
    now = 0.0
    while t.state != "over":
        now += 1.0
        if t.state == "playing" and (t.turn == 0 or (t.turn == 1 and t.deal_no == ben_plays)):
            t.move((a, b)[t.turn], first_legal(t, t.turn), now)
        else:
            t.advance(now)
    return t, a, b


def test_deals_the_clock_played_for_a_person_earn_him_nothing() -> None:
    """A deal the clock played for a person (each of his turns a time-out) earns him nothing: else, with
    time per turn 0.1 s and no move sent at all, a person would earn XP (+240 in three games). And a
    person whose every deal the clock played did not play the game: he is not the second person that
    makes it official (tests/test_web_official.py), so Ann's game with an idle Ben is practice."""
    t, a, b = _two_people_one_idle(1)
    g = t.game_result
    assert g is not None and not g.official and "second person" in g.reason
    assert g.xp == [0, 0, 0, 0] and (a.xp, b.xp) == (0, 0)
    assert (a.chips, b.chips) == (1000, 1000)  # not official: the stakes go back
    t, a, b = _two_people_one_idle(2, ben_plays=1)  # Ben plays the second deal himself: the game counts
    g = t.game_result
    assert g is not None and g.official
    full = leaderboard.game_xp(4, 2, g.winners)
    assert g.xp[1] == full[1] // 2 and b.xp == g.xp[1]  # the deal the clock played for him earns nothing
    assert g.xp[0] == full[0] and a.xp == g.xp[0]  # Ann played both: her XP counts whole


def test_a_cancellation_needs_another_persons_vote() -> None:
    """Alone with robots the proposer's own vote would pass a cancellation at once, and a losing game
    could always be annulled: it needs another person's vote."""
    r = Room(robot_delay=1000.0, pause=0.0)
    (a,) = people(1)
    t = table_with(r, [a])
    t.start(a, 0.0)
    with pytest.raises(RoomError, match="another person"):
        t.propose_cancel(a, 1.0)
    assert t.state == "playing"


def test_a_cancellation_waits_for_a_person_who_is_away() -> None:
    """With the other person disconnected, the vote waits for him: the proposer's own vote does not
    annul the game (and its stakes)."""
    r = Room(robot_delay=1000.0, pause=0.0, reconnect_window=60.0)
    a, b = people(2)
    t = table_with(r, [a, b])
    t.change_settings(a, {"chips": True, "stake": 40})
    t.start(a, 0.0)
    t.disconnect(b, 1.0)
    t.propose_cancel(a, 1.0)
    assert t.state == "playing" and t.game_result is None  # Ben votes when he is back
    t.reconnect(b, 2.0)
    t.answer_cancel(b, True, 2.0)
    g = t.game_result
    assert g is not None and g.cancelled and (a.chips, b.chips) == (1000, 1000)


def test_a_cancellation_fails_when_the_only_other_person_abandons() -> None:
    r = Room(robot_delay=1000.0, pause=0.0, reconnect_window=5.0)
    a, b = people(2)
    t = table_with(r, [a, b])
    t.change_settings(a, {"chips": True, "stake": 40})
    t.start(a, 0.0)
    t.disconnect(b, 1.0)
    t.propose_cancel(a, 1.0)
    t.advance(7.0)  # Ben's window ran out while the vote was open
    assert t.seats[1].abandoned and t.cancel_votes is None and t.state == "playing"


def test_the_abandoned_seat_belongs_to_the_robot() -> None:
    """After the reconnection window the seat is the robot's: the abandoner watching his table sees no
    hand, and his moves are refused."""
    r = Room(robot_delay=1000.0, pause=0.0, reconnect_window=5.0)
    a, b = people(2)
    t = table_with(r, [a, b])
    t.start(a, 0.0)
    t.disconnect(b, 0.0)
    t.advance(6.0)
    assert t.seats[1].abandoned
    assert t.player_seat(b) is None and t.player_seat(a) == 0
    view = t.view(t.player_seat(b), 6.0, b)
    assert view["you"] is None and "hand" not in view["deal"]
    while t.turn != 1:  # to the abandoner's turn: the robot's move, not his
        if t.turn == 0:
            t.move(a, first_legal(t, 0), 6.0)
        else:
            t.robot_delay = 0.0
            t.advance(7.0)
            t.robot_delay = 1000.0
    with pytest.raises(RoomError, match="abandoned"):
        t.move(b, first_legal(t, 1), 7.0)


def test_an_abandoner_watching_his_table_on_the_wire_gets_no_hand(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    app.state.server.room.reconnect_window = 0.3
    app.state.server.room.robot_delay = 1000.0
    with TestClient(app) as client:
        with client.websocket_connect("/ws") as ann, client.websocket_connect("/ws") as ben:
            hello(ann, "Ann")
            token = hello(ben, "Ben")["token"]
            open_table(ann, "french_tarot_v0", 3, "rules")
            ann.send_text(json.dumps({"type": "robot", "seat": 1, "robot": None}))
            receive_until(ann, lambda m: is_table(m) and m["table"]["seats"][1]["kind"] == "empty")
            ben.send_text(json.dumps({"type": "join", "table": 1, "seat": 1}))
            receive_until(ben, is_table)
            ann.send_text(json.dumps({"type": "start"}))
            receive_until(ben, lambda m: is_table(m) and m["table"]["state"] == "playing")
        table = app.state.server.room.tables[1]
        deadline = time.monotonic() + 20
        while not table.seats[1].abandoned:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        with client.websocket_connect("/ws") as ben:
            ben.send_text(json.dumps({"type": "hello", "token": token}))
            receive_until(ben, lambda m: m["type"] == "lobby")
            ben.send_text(json.dumps({"type": "watch", "table": 1}))
            m = receive_until(ben, lambda m: m["type"] in ("table", "error"))
            assert m["type"] == "table" and m["table"]["you"] is None and "hand" not in m["table"]["deal"]
            ben.send_text(json.dumps({"type": "move", "action": 0}))
            assert receive_until(ben, lambda m: m["type"] == "error")["about"] == "move"


def test_an_abandoner_loses_his_stake_even_when_the_robot_wins_his_seat_the_game() -> None:
    """The penalty for abandoning is the stake (the rules page): when the robot that finished the game
    for him wins it, the pot is not paid to him. (Two people stay and play: with one, the game would be
    practice.)"""
    r = Room(robot_delay=0.0, pause=0.0, reconnect_window=5.0)
    a, b, c = people(3)
    t = r.create(a, "french_tarot_v0", 3, address="10.0.0.1", seed=4)
    t.sit(b, 1, address="10.0.0.2")
    t.sit(c, 2, address="10.0.0.3")
    t.change_settings(a, {"chips": True, "stake": 40})
    t.start(a, 0.0)
    t.disconnect(b, 0.0)
    t.advance(6.0)
    assert t.seats[1].abandoned
    now = 6.0
    while t.state != "over":
        now += 1.0
        if t.state == "playing" and t.turn in (0, 2):
            t.move((a, b, c)[t.turn], t.view(t.turn, now)["deal"]["moves"][0]["action"], now)
        else:
            t.advance(now)
    g = t.game_result
    assert g is not None and g.official and g.winners == [1]  # b's seat, played by the robot, took and won
    assert b.chips == 960 and a.chips == 960 and c.chips == 960  # b's winnings forfeited; a and c lost as defenders
    assert g.chips_paid == [0, 0, 0] and g.bank == 120


def test_settings_are_fixed_once_a_game_starts() -> None:
    """Between deals the owner may not change what the game is played for (cut the deals from 20 to 2
    when ahead, say); who may watch, he may."""
    r = Room(robot_delay=0.0, pause=100.0)
    (a,) = people(1)
    t = table_with(r, [a])
    t.change_settings(a, {"deals": 20})
    t.start(a, 0.0)
    now = 0.0
    while t.state == "playing":
        now += 1.0
        if t.turn == 0:
            t.move(a, first_legal(t, 0), now)
        else:
            t.advance(now)
    assert t.state == "between"
    for change in ({"deals": 2}, {"time_per_turn": 5}):
        with pytest.raises(RoomError, match="fixed"):
            t.change_settings(a, change)
    assert (t.settings.deals, t.settings.time_per_turn) == (20, 30.0)
    t.change_settings(a, {"spectators": False})  # who may watch is not what the game is played for


def test_between_deals_the_deals_cannot_change_at_all() -> None:
    """The deals are fixed once a game starts: lowered below those played, they would let one more deal
    be dealt past the game's end, with the XP bonus of the new, smaller number; cut when ahead, they
    would end a game early."""
    (a,) = people(1)
    r = Room(robot_delay=0.0, pause=100.0)
    t = r.create(a, "french_tarot_v0", 3, seed=3)
    for p in (1, 2):
        t.set_robot(a, p, "rules")
    t.change_settings(a, {"deals": 3})
    t.start(a, 0.0)
    now = 0.0
    while t.state == "playing" or t.deal_no < 2:
        now += 1.0
        if t.turn == 0:
            t.move(a, t.view(0, now)["deal"]["moves"][0]["action"], now)
        elif t.state == "between":
            t.next_deal(a, now)
        else:
            t.advance(now)
    assert t.state == "between" and t.deal_no == 2
    for deals in (1, 2, 4):
        with pytest.raises(RoomError, match=r"deals are fixed once a game starts"):
            t.change_settings(a, {"deals": deals})
    assert t.settings.deals == 3
