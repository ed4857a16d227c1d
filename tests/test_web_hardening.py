"""Defects found in review of the room, each with the test that shows it fixed: what the rules make
public (the trumps of the écart), deals that cannot be foreseen, bad messages that must not break a
connection, the room's clock surviving an error, the errors saying what was given and what is
allowed, spectators sent away when the owner closes the table to them, and ``tarot serve``'s
one-line errors."""

from __future__ import annotations

import json
import socket
import sqlite3
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers_web import app_for, hello, open_table, people, receive_until
from starlette.testclient import TestClient

import tarot_env
from tarot_env.cards.french import FRENCH_DECK
from tarot_env.command import build_parser
from tarot_env.web.app import MessageError, check_message, create_app
from tarot_env.web.people import RoomError
from tarot_env.web.room import Room


# ------------------------------------------------------------------------------ what is public
def test_trumps_the_taker_must_put_in_his_ecart_are_shown_to_the_defence() -> None:
    """rules/french_tarot.md §4: a trump in the écart is shown to the defence (the rest stays hidden)."""
    names = FRENCH_DECK.names
    kings = [c for c in names if c.startswith("K")]
    plain = [c for c in names if not c.startswith(("K", "T")) and c != "EX"]
    taker = kings + [f"T{k}" for k in range(1, 15)]  # nothing he may discard but trumps
    others = [*plain, "T21", "EX"]
    deal = {"dealer": 3, "hands": [taker, others[:18], others[18:36], others[36:54]], "rest": [f"T{k}" for k in range(15, 21)]}
    r = Room(robot_delay=0.0, pause=0.0)
    users = people(4)
    t = r.create(users[0], "french_tarot_v0", 4, seed=1)
    for k, u in enumerate(users[1:], 1):
        t.sit(u, k)
    t.next_deal_options = {"deal": deal}
    t.start(users[0], 0.0)
    raw = t.env.unwrapped

    def act(p: int, text: str) -> None:
        t.move(users[p], raw.string_to_action(text), 1.0)

    act(0, "bid garde")
    for p in (1, 2, 3):
        act(p, "pass")
    assert t.view(1, 1.0)["deal"]["chien"]  # garde: the chien turned up for everybody
    discards = [m["text"] for m in t.view(0, 1.0)["deal"]["moves"] if m["verb"] == "discard"]
    assert discards and all(d.split()[1].startswith("T") for d in discards)  # only trumps may go
    act(0, discards[0])
    shown = discards[0].split()[1]
    for seat in (1, 2, 3, None):
        d = t.view(seat, 1.0)["deal"]
        assert [c["name"] for c in d["ecart_trumps"]] == [shown]
        assert "ecart" not in d
    assert any(shown in e for e in t.events[-2:])  # the log names it too
    assert [c["name"] for c in t.view(0, 1.0)["deal"]["ecart"]] == [shown]


def test_the_next_deal_cannot_be_found_from_a_finished_deals_record() -> None:
    """A table's deals were shuffled from seed*1000 + deal number, with a seed below a million: one
    public record of a finished deal was enough to find the seed and know every hand to come."""
    (a,) = people(1)
    r = Room(robot_delay=0.0, pause=0.0)
    t = r.create(a, "french_tarot_v0", 3)
    for p in (1, 2):
        t.set_robot(a, p, "random")
    t.change_settings(a, {"deals": 3})
    t.start(a, 0.0)
    for seed_guess in (t.seed * 1000, t.seed * 1000 + 1):  # what the old shuffle would have dealt
        env = tarot_env.make("french_tarot_v0", num_players=3)
        env.reset(seed=seed_guess)
        foreseen = env.unwrapped.game_state.hands[0].copy()
        assert not np.array_equal(foreseen, t.env.unwrapped.game_state.hands[0])
    # a table made with a seed (the tests) still deals the same deals
    u = r.create(people(2)[1], "french_tarot_v0", 3, seed=5)
    assert u.seeded and not t.seeded


# ------------------------------------------------------------------------------ bad messages
@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 2000 + "]" * 2000, ["nested"]),  # json raised RecursionError: the connection died
        ('{"type": "move", "action": "ks"}', ["move", "action", '"ks"', "whole number"]),
        ('{"type": "move", "action": 5000000}', ["move", "action", "5000000", "0"]),
        ('{"type": "join", "table": 1, "seat": 0, "spy": 1}', ["spy", "table", "seat", "invite"]),
        ('{"type": "cancel_answer", "accept": 1}', ["accept", "true or false", "1"]),
        ('{"type": "hello", "name": ""}', ["name", "1 to 24"]),
        ('{"type": "jump"}', ['"jump"', "hello", "move"]),
    ],
)
def test_a_refusal_says_what_was_given_why_and_what_is_allowed(text: str, words: list[str]) -> None:
    with pytest.raises(MessageError) as err:
        check_message(text)
    for w in words:
        assert w in str(err.value), (w, str(err.value))


def test_a_deeply_nested_message_gets_an_error_and_the_connection_goes_on(tmp_path: Path) -> None:
    app = app_for(tmp_path, "r.sqlite", tick=0.01)
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        hello(ws, "Ann")
        ws.send_text("[" * 2000 + "]" * 2000)
        m = json.loads(ws.receive_text())
        assert m["type"] == "error" and "nested" in m["message"]
        ws.send_text(json.dumps({"type": "lobby"}))  # still connected
        assert json.loads(ws.receive_text())["type"] == "lobby"


def test_an_unexpected_failure_in_a_request_is_answered_and_the_connection_goes_on(tmp_path: Path, monkeypatch: Any) -> None:
    app = app_for(tmp_path, "r.sqlite", tick=0.01)
    server = app.state.server

    def broken() -> list[Any]:
        raise OSError("disk full")

    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        hello(ws, "Ann")
        monkeypatch.setattr(server.store, "leaderboard", broken)
        ws.send_text(json.dumps({"type": "leaderboard"}))
        m = json.loads(ws.receive_text())
        assert m["type"] == "error" and "leaderboard" in m["message"]
        ws.send_text(json.dumps({"type": "lobby"}))
        assert json.loads(ws.receive_text())["type"] == "lobby"


# ------------------------------------------------------------------------------ the clock
def test_the_rooms_clock_survives_an_error_and_goes_on(tmp_path: Path) -> None:
    room = Room(robot_delay=0.0, pause=0.0)
    app = create_app(str(tmp_path / "r.sqlite"), room=room, tick=0.01, heartbeat=3600.0, silence=7200.0)  # no ping among the messages read
    calls = {"n": 0}
    advance = room.advance

    def flaky(now: float, play: bool = True) -> list[Any]:
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("a robot's bug")
        return advance(now, play)

    room.advance = flaky  # type: ignore[method-assign]
    with TestClient(app) as client:
        with client.websocket_connect("/ws") as ws:
            hello(ws, "Ann")
            open_table(ws, "french_tarot_v0", 3, "random")
            ws.send_text(json.dumps({"type": "start"}))
            receive_until(ws, lambda m: m["type"] == "table" and m["table"]["state"] == "playing")
        # Ann has gone: the clock plays her seat and the robots' to the end of the deal
        table = app.state.server.room.tables[1]
        deadline = time.monotonic() + 60
        while table.state != "over" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert table.state == "over", "the clock stopped"
    assert calls["n"] > 2


# ------------------------------------------------------------------------------ spectators
def test_spectators_are_sent_away_when_the_owner_closes_the_table_to_them(tmp_path: Path) -> None:
    app = app_for(tmp_path, "r.sqlite", tick=0.01)
    with TestClient(app) as client, client.websocket_connect("/ws") as owner, client.websocket_connect("/ws") as spy:
        hello(owner, "Owner")
        hello(spy, "Spy")
        owner.send_text(json.dumps({"type": "create", "env": "french_tarot_v0", "players": 3}))
        receive_until(owner, lambda m: m["type"] == "table")
        spy.send_text(json.dumps({"type": "watch", "table": 1}))
        receive_until(spy, lambda m: m["type"] == "table")
        owner.send_text(json.dumps({"type": "settings", "changes": {"spectators": False}}))
        m = receive_until(spy, lambda m: m["type"] in ("error", "lobby", "left"))
        assert m["type"] == "left" and "spectators" in m["message"]
        assert app.state.server.clients[1].table is None


# ------------------------------------------------------------------------------ tarot serve
def test_tarot_serve_on_a_port_in_use_says_so_in_one_line(tmp_path: Path, capsys: Any) -> None:
    from tarot_env.web.serve import run

    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    port = busy.getsockname()[1]
    args = build_parser().parse_args(["serve", "--port", str(port), "--db", str(tmp_path / "x.sqlite")])
    try:
        with pytest.raises(SystemExit) as err:
            run(args)
    finally:
        busy.close()
    text = str(err.value.code)
    assert f"port {port}" in text and "in use" in text and "\n" not in text


def test_the_database_is_made_where_asked_even_in_a_new_folder(tmp_path: Path) -> None:
    """``tarot serve --db runs/room.sqlite`` (the help's example) failed with a traceback when runs/ did not exist."""
    path = tmp_path / "runs" / "room.sqlite"
    create_app(str(path))
    assert path.is_file()
    assert sqlite3.connect(path).execute("select count(*) from users").fetchone() == (0,)


def test_tarot_serve_says_in_one_line_when_the_database_cannot_be_opened(tmp_path: Path) -> None:
    from tarot_env.web.serve import run

    (tmp_path / "afile").write_text("not a folder")
    args = build_parser().parse_args(["serve", "--port", "0", "--db", str(tmp_path / "afile" / "x.sqlite")])
    with pytest.raises(SystemExit) as err:
        run(args)
    text = str(err.value.code)
    assert text.startswith("tarot serve: cannot open the database") and "afile" in text and "\n" not in text


# ------------------------------------------------------------------------------ settings between deals
def test_between_deals_the_deals_cannot_change_at_all() -> None:
    """Lowering the deals below those played let one more deal be dealt past the game's end, with the
    XP bonus of the new, smaller number; and cutting them when ahead ended a game early (issue 30): the
    deals are fixed once a game starts."""
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


def test_a_refused_create_or_join_leaves_the_person_in_his_seat(tmp_path: Path) -> None:
    """Going to another table freed the person's seat first, then the request was refused: a bad
    game id or a taken seat cost him his place."""
    app = app_for(tmp_path, "r.sqlite", tick=0.01)
    room = app.state.server.room
    with TestClient(app) as client, client.websocket_connect("/ws") as ann, client.websocket_connect("/ws") as bob:
        hello(ann, "Ann")
        hello(bob, "Bob")
        ann.send_text(json.dumps({"type": "create", "env": "french_tarot_v0", "players": 3}))
        receive_until(ann, lambda m: m["type"] == "table")
        bob.send_text(json.dumps({"type": "create", "env": "french_tarot_v0", "players": 3}))
        receive_until(bob, lambda m: m["type"] == "table")
        for bad, why in (
            ({"type": "create", "env": "french_tarot_v0", "players": 7}, "played by 3, 4, 5 players, not 7"),
            ({"type": "create", "env": "poker_v0", "players": 4}, "unknown game"),
            ({"type": "join", "table": 2, "seat": 0}, "seat 0 is taken by Bob"),
            ({"type": "join", "table": 2, "seat": 5}, "no seat 5"),
        ):
            ann.send_text(json.dumps(bad))
            m = receive_until(ann, lambda m: m["type"] == "error")
            assert why in m["message"]
            assert room.tables[1].seats[0].user is not None and room.tables[1].seats[0].user.name == "Ann"
            assert room.tables[1].owner is not None and len(room.tables) == 2


# ------------------------------------------------------------------------------ chips
def test_an_abandoner_loses_his_stake_even_when_the_robot_wins_his_seat_the_game() -> None:
    """The penalty for abandoning is the stake (the rules page): the robot that finished the game for him
    won it, and the whole pot was paid to him all the same. (Two people stay and play: with one, the game
    would be practice, issue 41.)"""
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
