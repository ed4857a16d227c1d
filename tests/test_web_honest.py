"""Issue 30, section 2: the leaderboard and chips mean what they say. Each test shows one finding fixed
(each failed on the room before the fix): forwarded headers trusted only from named proxies, XP and chips
that cannot be farmed without playing, the abandoned seat belonging to the robot, settings fixed once a
game starts, unique names that cannot pass for robots, bad values and URLs refused with a reason, the
Origin of ``/ws`` checked, and private tables with a renewable invitation that the lobby does not list."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from helpers_web import app_for, first_legal, hello, open_table, people, play_out, receive_until, table_with
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from tarot_env.command import build_parser
from tarot_env.web import leaderboard
from tarot_env.web.people import RoomError
from tarot_env.web.room import Room


def is_table(m: dict[str, Any]) -> bool:
    return m["type"] == "table"


# ------------------------------------------------------------------------------ forwarded headers
def _serve_config(tmp_path: Path, monkeypatch: Any, extra: list[str]) -> uvicorn.Config:
    """The uvicorn config ``tarot serve`` builds (its server's run is caught, not started)."""
    from tarot_env.web import serve

    seen: dict[str, Any] = {}

    def caught(self: uvicorn.Server, sockets: Any = None) -> None:
        seen["config"] = self.config
        for s in sockets or []:
            s.close()

    monkeypatch.setattr(uvicorn.Server, "run", caught)
    args = build_parser().parse_args(["serve", "--port", "0", "--db", str(tmp_path / "r.sqlite"), *extra])
    serve.run(args)
    return seen["config"]


def _address_seen(config: uvicorn.Config, forwarded: str) -> str | None:
    """Serve ``config``'s app on loopback and connect with ``X-Forwarded-For: forwarded``: the address the room sees."""
    from websockets.sync.client import connect

    config.port = 0
    server = uvicorn.Server(config)
    server.config.host = "127.0.0.1"
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        with connect(f"ws://127.0.0.1:{port}/ws", additional_headers={"X-Forwarded-For": forwarded}) as ws:
            ws.send(json.dumps({"type": "hello", "name": "Ann"}))
            json.loads(ws.recv(timeout=10))
            clients = config.app.state.server.clients  # type: ignore[union-attr]
            return clients[0].address
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_forwarded_headers_are_trusted_only_from_the_proxies_named(tmp_path: Path, monkeypatch: Any) -> None:
    """uvicorn trusted X-Forwarded-For from 127.0.0.1 by default: anyone on the machine (or behind any
    local proxy) chose the address the same-address rule compares."""
    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
    plain = _serve_config(tmp_path, monkeypatch, [])
    monkeypatch.undo()
    assert _address_seen(plain, "203.0.113.9") == "127.0.0.1"
    proxied = _serve_config(tmp_path, monkeypatch, ["--trusted-proxy", "127.0.0.1"])
    monkeypatch.undo()
    assert _address_seen(proxied, "203.0.113.9") == "203.0.113.9"


# ------------------------------------------------------------------------------ farming
def test_a_person_alone_with_robots_plays_for_practice_no_xp_no_chips() -> None:
    """Alone with robots, a chips game took the robots' (the bank's) stakes: 1,000 -> 4,500 chips in three games."""
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
    """With time per turn 0.1 s and no move sent at all, a person earned +240 XP in three games. And a
    person whose every deal the clock played did not play the game: he is not the second person that
    makes it official (issue 41), so Ann's game with an idle Ben is practice."""
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
    """Alone with robots a cancellation passed at once, so a losing game could always be annulled."""
    r = Room(robot_delay=1000.0, pause=0.0)
    (a,) = people(1)
    t = table_with(r, [a])
    t.start(a, 0.0)
    with pytest.raises(RoomError, match="another person"):
        t.propose_cancel(a, 1.0)
    assert t.state == "playing"


def test_a_cancellation_waits_for_a_person_who_is_away() -> None:
    """The other person disconnected: the proposer's own vote annulled the game (and its stakes) at once."""
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


# ------------------------------------------------------------------------------ the abandoned seat
def test_the_abandoned_seat_belongs_to_the_robot() -> None:
    """After the window an abandoner could still watch his table with his hand, and his moves were accepted."""
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


# ------------------------------------------------------------------------------ settings fixed in a game
def test_settings_are_fixed_once_a_game_starts() -> None:
    """The owner cut the deals from 20 to 2 between deals, when ahead."""
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


# ------------------------------------------------------------------------------ names
@pytest.mark.parametrize("second", ["alice", "ALICE", " Alice "])
def test_names_are_unique_whatever_their_case(tmp_path: Path, second: str) -> None:
    with TestClient(app_for(tmp_path)) as client, client.websocket_connect("/ws") as a, client.websocket_connect("/ws") as b:
        hello(a, "Alice")
        b.send_text(json.dumps({"type": "hello", "name": second}))
        m = json.loads(b.receive_text())
        assert m["type"] == "error" and "taken" in m["message"] and "Alice" in m["message"]
        hello(b, "Bob")  # another name is welcome


@pytest.mark.parametrize("name", ["robot 1 (rules)", "Robot", "★Alice", "Bob ☆", "rules bot"])
def test_robot_like_and_owner_like_names_are_reserved(tmp_path: Path, name: str) -> None:
    with TestClient(app_for(tmp_path)) as client, client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "hello", "name": name}))
        m = json.loads(ws.receive_text())
        assert m["type"] == "error" and "reserved" in m["message"], m


def test_a_renamed_returning_person_may_not_take_anothers_name(tmp_path: Path) -> None:
    with TestClient(app_for(tmp_path)) as client:
        with client.websocket_connect("/ws") as a, client.websocket_connect("/ws") as b:
            hello(a, "Alice")
            token = hello(b, "Bob")["token"]
        with client.websocket_connect("/ws") as b:
            b.send_text(json.dumps({"type": "hello", "name": "alice", "token": token}))
            m = json.loads(b.receive_text())
            assert m["type"] == "error" and "taken" in m["message"]


# ------------------------------------------------------------------------------ bad values, bad URLs
def test_a_huge_number_in_the_settings_is_refused_naming_it(tmp_path: Path) -> None:
    """A setting of 3,000 digits failed inside the server ("the server failed to answer this settings")."""
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


# ------------------------------------------------------------------------------ the Origin of /ws
def test_ws_refuses_another_sites_origin(tmp_path: Path) -> None:
    """Any web page could open /ws from a visitor's browser (cross-site WebSocket): the Origin was not checked."""
    with TestClient(app_for(tmp_path)) as client:
        with pytest.raises(WebSocketDisconnect), client.websocket_connect("/ws", headers={"origin": "http://evil.example"}) as ws:
            ws.send_text(json.dumps({"type": "hello", "name": "Eve"}))
            ws.receive_text()
        with client.websocket_connect("/ws", headers={"origin": "http://testserver"}) as ws:  # the room's own page
            hello(ws, "Ann")


def test_ws_admits_a_configured_origin(tmp_path: Path) -> None:
    from tarot_env.web.app import create_app

    app = create_app(str(tmp_path / "r.sqlite"), allowed_origins=["https://tarot.example"], heartbeat=3600.0, silence=7200.0)
    with TestClient(app) as client, client.websocket_connect("/ws", headers={"origin": "https://tarot.example"}) as ws:
        hello(ws, "Ann")


# ------------------------------------------------------------------------------ private tables
def test_a_private_table_is_not_listed_to_others(tmp_path: Path) -> None:
    with TestClient(app_for(tmp_path)) as client, client.websocket_connect("/ws") as owner, client.websocket_connect("/ws") as other:
        hello(owner, "Owner")
        owner.send_text(json.dumps({"type": "create", "env": "french_tarot_v0", "players": 3}))
        receive_until(owner, is_table)
        owner.send_text(json.dumps({"type": "settings", "changes": {"private": True}}))
        receive_until(owner, lambda m: is_table(m) and m["table"]["private"])
        hello(other, "Other")
        other.send_text(json.dumps({"type": "lobby"}))
        m = receive_until(other, lambda m: m["type"] == "lobby")
        assert m["tables"] == []
        owner.send_text(json.dumps({"type": "lobby"}))
        assert [t["id"] for t in receive_until(owner, lambda m: m["type"] == "lobby")["tables"]] == [1]


def test_the_owner_renews_a_private_tables_invitation(tmp_path: Path) -> None:
    with TestClient(app_for(tmp_path)) as client, client.websocket_connect("/ws") as owner, client.websocket_connect("/ws") as guest:
        hello(owner, "Owner")
        hello(guest, "Guest")
        owner.send_text(json.dumps({"type": "create", "env": "french_tarot_v0", "players": 3}))
        receive_until(owner, is_table)
        owner.send_text(json.dumps({"type": "settings", "changes": {"private": True}}))
        old = receive_until(owner, lambda m: is_table(m) and m["table"]["private"])["table"]["invite"]
        guest.send_text(json.dumps({"type": "watch", "table": 1, "invite": old}))
        receive_until(guest, is_table)
        owner.send_text(json.dumps({"type": "invite"}))
        m = receive_until(owner, lambda m: m["type"] == "error" or (is_table(m) and m["table"]["invite"] != old))
        assert is_table(m), m
        new = m["table"]["invite"]
        m = receive_until(guest, lambda m: m["type"] == "left")  # the old link no longer admits him
        assert "invitation" in m["message"]
        guest.send_text(json.dumps({"type": "join", "table": 1, "seat": 1, "invite": old}))
        assert "private" in receive_until(guest, lambda m: m["type"] == "error")["message"]
        guest.send_text(json.dumps({"type": "join", "table": 1, "seat": 1, "invite": new}))
        assert receive_until(guest, is_table)["table"]["you"] == 1


def test_only_the_owner_renews_the_invitation() -> None:
    r = Room()
    a, b = people(2)
    t = r.create(a, "french_tarot_v0", 3)
    t.sit(b, 1)
    old = t.invite
    with pytest.raises(RoomError, match="owner"):
        t.renew_invite(b)
    t.renew_invite(a)
    assert t.invite != old
