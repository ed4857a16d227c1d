"""Errors in the room. A refused request says what was given, why, and what is allowed (a bad message,
a huge number in the settings; a bad record URL is a 4xx), and leaves everything as it was (a refused
create or join leaves the person in his seat). An unexpected failure, in a request or in the room's
clock, is answered or passed over and the room goes on: the connection stays open, the clock keeps
playing."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from helpers_web import app_for, hello, is_table, open_table, receive_until
from starlette.testclient import TestClient

from tarot_env.web.app import MessageError, check_message, create_app
from tarot_env.web.room import Room


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 2000 + "]" * 2000, ["nested"]),  # json.loads would raise RecursionError and end the connection
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


def test_a_huge_number_in_the_settings_is_refused_naming_it(tmp_path: Path) -> None:
    """A setting of 3,000 digits is refused with its name and its bounds, not failed inside the server."""
    with TestClient(app_for(tmp_path)) as client, client.websocket_connect("/ws") as ws:
        hello(ws, "Ann")
        ws.send_text(json.dumps({"type": "create", "env": "french_tarot_v0", "players": 3}))
        receive_until(ws, is_table)
        for key in ("deals", "time_per_turn", "stake"):
            ws.send_text(json.dumps({"type": "settings", "changes": {key: 10**3000 - 1}}))
            m = receive_until(ws, lambda m: m["type"] == "error")
            assert key in m["message"] and "failed" not in m["message"] and "between" in m["message"], m


@pytest.mark.parametrize("path", ["/api/records/99999999999999999999999", "/api/records/-1", "/api/records/0", "/api/records/1e3"])
def test_every_bad_record_url_is_a_4xx(tmp_path: Path, path: str) -> None:
    with TestClient(app_for(tmp_path)) as client:
        r = client.get(path)
    assert 400 <= r.status_code < 500 and r.json()["error"]


def test_a_refused_create_or_join_leaves_the_person_in_his_seat(tmp_path: Path) -> None:
    """A request to go to another table is checked before the person's seat is freed: a bad game id or
    a taken seat does not cost him his place."""
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
