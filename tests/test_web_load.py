"""Issue 30, section 1: nothing one client does can stall the others. Raw WebSocket clients on uvicorn
on loopback (as ``tarot serve`` runs): a robot that thinks long, or a slow database call, holds up nobody
else; an agent's failure is logged and the rule-based robot moves; the lobby goes only to those looking
at it; the rate limits and connection bounds refuse with a reason."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest
from helpers_web import LiveServer, app_for, first_legal, hello, open_table, people, receive_until, table_with
from starlette.testclient import TestClient
from websockets.sync.client import connect

from tarot_env.web.app import Limits, create_app
from tarot_env.web.room import Room


def until(ws: Any, pred: Any, timeout: float = 20.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        m = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        if m["type"] == "ping":
            ws.send('{"type": "pong"}')
        if pred(m):
            return m


def answer_time(ws: Any) -> float:
    sent = time.monotonic()
    ws.send('{"type": "leaderboard"}')
    until(ws, lambda m: m["type"] == "leaderboard")
    return time.monotonic() - sent


def test_a_robot_that_thinks_long_holds_up_nobody(tmp_path: Path) -> None:
    """The clock held the room's lock while a robot thought: every message of every table waited."""

    class Slow:
        def act(self, obs: Any, mask: Any) -> int:
            time.sleep(2.0)
            return int(mask.nonzero()[0][0])

    with LiveServer(tmp_path, heartbeat=5.0, silence=30.0) as live, connect(live.ws_url) as ann, connect(live.ws_url) as ben:
        ann.send(json.dumps({"type": "hello", "name": "Ann"}))
        ben.send(json.dumps({"type": "hello", "name": "Ben"}))
        until(ben, lambda m: m["type"] == "lobby")
        ann.send(json.dumps({"type": "create", "env": "french_tarot_v0", "players": 3}))
        for p in (1, 2):
            ann.send(json.dumps({"type": "robot", "seat": p, "robot": "rules"}))
        until(ann, lambda m: m["type"] == "table" and m["table"]["seats"][2]["kind"] == "robot")
        table = live.room.tables[1]
        table.start(table.owner, time.monotonic())
        table.agents = {1: Slow(), 2: Slow()}
        table.fallback = Slow()  # the person's time-outs too
        time.sleep(0.5)
        waits = [answer_time(ben) for _ in range(5)]
        assert max(waits) < 1.0, waits


def test_a_slow_database_call_holds_up_nobody(tmp_path: Path, monkeypatch: Any) -> None:
    with LiveServer(tmp_path, heartbeat=5.0, silence=30.0) as live, connect(live.ws_url) as ann, connect(live.ws_url) as ben:
        store = live.app.state.server.store
        real = store.leaderboard
        for ws, name in ((ann, "Ann"), (ben, "Ben")):
            ws.send(json.dumps({"type": "hello", "name": name}))
            until(ws, lambda m: m["type"] == "lobby")

        def slow(limit: int = 50) -> list[dict[str, Any]]:
            time.sleep(2.0)
            return real(limit)

        monkeypatch.setattr(store, "leaderboard", slow)
        ann.send('{"type": "leaderboard"}')
        time.sleep(0.2)
        sent = time.monotonic()
        ben.send('{"type": "lobby"}')
        until(ben, lambda m: m["type"] == "lobby")
        assert time.monotonic() - sent < 1.0
        until(ann, lambda m: m["type"] == "leaderboard")


def test_an_agents_failure_is_logged_and_the_rule_based_robot_moves(caplog: Any) -> None:
    """agent_move swallowed an agent's exception without a word."""

    class Broken:
        def act(self, obs: Any, mask: Any) -> int:
            raise RuntimeError("the model's file is corrupt")

    r = Room(robot_delay=0.0, pause=0.0)
    (a,) = people(1)
    t = table_with(r, [a], n=3)
    t.start(a, 0.0)
    t.agents[1] = Broken()
    now = 0.0
    with caplog.at_level(logging.ERROR, logger="tarot_env.web"):
        while t.state != "over":
            now += 1.0
            if t.turn == 0:
                t.move(a, first_legal(t, 0), now)
            else:
                t.advance(now)
    assert t.fallbacks[1]["exception"] > 0 and t.fallbacks[1]["fallback"] == t.fallbacks[1]["exception"]
    assert t.fallbacks[2]["fallback"] == 0
    assert "the model's file is corrupt" in caplog.text and "seat 1" in caplog.text


# ------------------------------------------------------------------------------ the lobby, idle tables
def test_the_lobby_goes_only_to_those_looking_at_it(tmp_path: Path) -> None:
    """Every lobby change went to every person connected, in full."""
    app = create_app(str(tmp_path / "r.sqlite"), room=Room(robot_delay=0.0, pause=0.0), heartbeat=3600.0, silence=7200.0,
                     limits=Limits(lobby_every=0.05))  # fmt: skip
    with TestClient(app) as client, client.websocket_connect("/ws") as seated, client.websocket_connect("/ws") as looking:
        hello(seated, "Seated")
        hello(looking, "Looking")
        open_table(seated, "french_tarot_v0", 3, "rules")
        m = receive_until(looking, lambda m: m["type"] == "lobby" and m["tables"] and m["tables"][0]["seats"][2]["kind"] == "robot")
        assert [t["id"] for t in m["tables"]] == [1]
        seated.send_text(json.dumps({"type": "lobby"}))  # asked: answered
        log: list[dict[str, Any]] = []
        receive_until(seated, lambda m: m["type"] == "lobby", log)
        looking.send_text(json.dumps({"type": "create", "env": "french_tarot_v0", "players": 4}))
        receive_until(looking, lambda m: m["type"] == "table")
        seated.send_text(json.dumps({"type": "settings", "changes": {"deals": 2}}))
        receive_until(seated, lambda m: m["type"] == "table" and m["table"]["settings"]["deals"] == 2, log)
        assert [m["type"] for m in log].count("lobby") == 1  # nothing pushed to a person at a table


# ------------------------------------------------------------------------------ limits
def test_messages_over_the_rate_are_refused_with_the_limit(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    app.state.server.limits = Limits(messages_per_second=2.0, message_burst=5.0)
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        hello(ws, "Ann")
        for _ in range(10):
            ws.send_text('{"type": "lobby"}')
        answers = [json.loads(ws.receive_text()) for _ in range(10)]
        refused = [m for m in answers if m["type"] == "error"]
        assert refused and "at most 2 a second" in refused[0]["message"] and refused[0]["about"] == "lobby"


@pytest.mark.parametrize(
    ("limits", "words"), [(Limits(per_address=2), "at most 2 at once"), (Limits(max_connections=2), "at most 2 connections")]
)
def test_connections_over_the_bounds_are_refused_with_the_bound(tmp_path: Path, limits: Limits, words: str) -> None:
    app = app_for(tmp_path)
    app.state.server.limits = limits
    with TestClient(app) as client, client.websocket_connect("/ws") as a, client.websocket_connect("/ws") as b:
        hello(a, "A")
        hello(b, "B")
        with client.websocket_connect("/ws") as c:
            m = json.loads(c.receive_text())
            assert m["type"] == "error" and words in m["message"] and m["about"] == "connect"
