"""Helpers shared by the room's tests (tests/test_web_*.py): people, a table with robots, a game
played out on the room's clock; and on the wire, the hello and waiting for a message."""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn

from tarot_env.web.app import Limits, create_app
from tarot_env.web.people import User
from tarot_env.web.room import Room, Table


def people(k: int) -> list[User]:
    return [User(id=i + 1, name=f"p{i + 1}", token=f"t{i + 1}") for i in range(k)]


def table_with(room: Room, users: list[User], env: str = "french_tarot_v0", n: int = 4, robot: str = "rules") -> Table:
    """A table: the users at seats 0.., robots elsewhere; addresses all different."""
    t = room.create(users[0], env, n, address="10.0.0.1", seed=7)
    for k, u in enumerate(users[1:], 1):
        t.sit(u, k, address=f"10.0.0.{k + 1}")
    for p in range(len(users), n):
        t.set_robot(users[0], p, robot)
    return t


def first_legal(t: Table, seat: int) -> int:
    view = t.view(seat, 0.0)
    return view["deal"]["moves"][0]["action"]


def play_out(t: Table, users: list[User], now: float = 0.0, step: float = 1.0) -> float:
    """Every person plays his first legal move at once, robots move as the clock goes; to the end of the game."""
    by_seat = {t.seat_of(u): u for u in users}
    for _ in range(10_000):
        if t.state == "over":
            return now
        now += step
        p = t.turn
        if t.state == "playing" and p in by_seat and not t.seats[p].bot_plays:
            t.move(by_seat[p], first_legal(t, p), now)
        else:
            t.advance(now)
    raise AssertionError("the game did not end")


# ------------------------------------------------------------------------------------- on the wire
def hello(ws: Any, name: str) -> dict[str, Any]:
    """Say hello as ``name``; returns the welcome (the lobby that follows is read too)."""
    ws.send_text(json.dumps({"type": "hello", "name": name}))
    welcome = json.loads(ws.receive_text())
    assert welcome["type"] == "welcome"
    assert json.loads(ws.receive_text())["type"] == "lobby"
    return welcome


def receive_until(ws: Any, pred: Any, log: list[dict[str, Any]] | None = None, limit: int = 2000) -> dict[str, Any]:
    """The first message for which ``pred`` holds (every message read is added to ``log``)."""
    for _ in range(limit):
        m = json.loads(ws.receive_text())
        if log is not None:
            log.append(m)
        if pred(m):
            return m
    raise AssertionError("message not received")


def app_for(tmp_path: Path, name: str = "room.sqlite", tick: float = 0.005, limits: Limits | None = None) -> Any:
    """The app over a room whose robots play at once, its database and records under ``tmp_path``. Its
    heartbeat is an hour apart: these tests read the messages one by one, and a ping would be one more
    (tests/test_web_heartbeat.py tests the heartbeat). Its challenge computes the rule-based bot's scores
    only (the trained and search agents take seconds a deal: tests/test_challenge_held_out.py has them)."""
    return create_app(
        str(tmp_path / name),
        room=Room(robot_delay=0.0, pause=0.0),
        records_dir=tmp_path / "records",
        tick=tick,
        heartbeat=3600.0,
        silence=7200.0,
        limits=limits,
        challenge_agents=("rules",),
    )


class LiveServer:
    """The room served by uvicorn on a free loopback port, in a thread of this process (as ``tarot serve``
    serves it), for browsers and raw WebSocket clients. ``heartbeat``, ``silence`` and ``challenge_agents`` as
    in create_app."""

    def __init__(
        self,
        tmp: Path,
        *,
        room: Room | None = None,
        heartbeat: float = 10.0,
        silence: float = 30.0,
        limits: Limits | None = None,
        challenge_agents: tuple[str, ...] | None = None,
    ) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.room = room or Room(robot_delay=0.05, pause=1.0, reconnect_window=120.0)
        self.app = create_app(
            str(tmp / "room.sqlite"),
            room=self.room,
            records_dir=tmp / "records",
            tick=0.02,
            heartbeat=heartbeat,
            silence=silence,
            limits=limits,
            challenge_agents=challenge_agents,
        )
        self.server = uvicorn.Server(
            uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning", ws="websockets-sansio")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def open_table(ws: Any, env: str, players: int, robot: str) -> None:
    """Create a table and seat a ``robot`` in every other seat, waiting for each."""
    ws.send_text(json.dumps({"type": "create", "env": env, "players": players}))
    receive_until(ws, lambda m: m["type"] == "table")
    for p in range(1, players):
        ws.send_text(json.dumps({"type": "robot", "seat": p, "robot": robot}))
        receive_until(ws, lambda m, p=p: m["type"] == "table" and m["table"]["seats"][p]["kind"] == "robot")


def is_table(m: dict[str, Any]) -> bool:
    """Whether a message is a table state (a predicate for ``receive_until``)."""
    return m["type"] == "table"
