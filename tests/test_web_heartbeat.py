"""The room notices a person whose browser has gone without closing its socket (a page kept in the
back-forward cache, a laptop asleep, a network that drops silently): the server pings every browser
every ``heartbeat`` seconds, and a connection silent for ``silence`` seconds is dropped as a
disconnection, so the robot takes the seat; coming back gives the seat back. Raw WebSocket clients
against uvicorn on loopback, as ``tarot serve`` runs it (the browser side: tests/test_web_browser.py).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers_web import LiveServer
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tarot_env.web.app import create_app

HEARTBEAT = 0.2
SILENCE = 1.0


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path, heartbeat=HEARTBEAT, silence=SILENCE) as server:
        yield server


@pytest.fixture
def opened() -> Iterator[contextlib.ExitStack]:
    """Where the test's WebSocket clients are opened (``opened.enter_context(connect(url))``), closed at its end."""
    with contextlib.ExitStack() as stack:
        yield stack


def send(ws: Any, **message: Any) -> None:
    ws.send(json.dumps(message))


def until(ws: Any, pred: Any, timeout: float = 20.0, answer_pings: bool = True) -> dict[str, Any]:
    """The first message for which ``pred`` holds, answering pings meanwhile (as the page does) unless told not to."""
    deadline = time.monotonic() + timeout
    while True:
        m = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        if m["type"] == "ping" and answer_pings:
            send(ws, type="pong")
        if pred(m):
            return m


def seated_in_a_game(live: LiveServer, opened: contextlib.ExitStack, name: str) -> tuple[Any, str]:
    """A raw client says hello, creates a French Tarot table for four with three robots and starts it;
    the socket and the person's token."""
    ws = opened.enter_context(connect(live.ws_url))
    send(ws, type="hello", name=name)
    token = until(ws, lambda m: m["type"] == "welcome")["token"]
    send(ws, type="create", env="french_tarot_v0", players=4)
    until(ws, lambda m: m["type"] == "table")
    for p in range(1, 4):
        send(ws, type="robot", seat=p, robot="rules")
        until(ws, lambda m, p=p: m["type"] == "table" and m["table"]["seats"][p]["kind"] == "robot")
    send(ws, type="start")
    until(ws, lambda m: m["type"] == "table" and m["table"]["state"] == "playing")
    return ws, token


def wait_for(pred: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_the_server_pings_and_a_client_that_answers_keeps_its_seat(live: LiveServer, opened: contextlib.ExitStack) -> None:
    ws, _ = seated_in_a_game(live, opened, "Ada")
    table = live.room.tables[1]
    pings = 0
    deadline = time.monotonic() + 3 * SILENCE
    while time.monotonic() < deadline:  # three silences long, answering every ping (and reading the table)
        with contextlib.suppress(TimeoutError):
            pings += until(ws, lambda m: m["type"] == "ping", timeout=0.3)["type"] == "ping"
    assert pings >= 3, f"{pings} pings in {3 * SILENCE} s, one every {HEARTBEAT} s expected"
    assert table.seats[0].connected and not table.seats[0].bot_plays
    assert len(live.app.state.server.clients) == 1


def test_a_client_that_stops_answering_is_dropped_and_the_robot_takes_the_seat(live: LiveServer, opened: contextlib.ExitStack) -> None:
    ws, token = seated_in_a_game(live, opened, "Bea")
    table = live.room.tables[1]
    assert table.seats[0].connected
    # silence: the socket stays open (the client's library still answers WebSocket-level pings), but
    # nothing is read or sent by the page any more
    start = time.monotonic()
    wait_for(lambda: table.seats[0].bot_plays, timeout=SILENCE + 3 * HEARTBEAT + 5.0, what="the robot in Bea's seat")
    took = time.monotonic() - start
    assert took >= SILENCE - HEARTBEAT, f"dropped after {took:.2f} s, before {SILENCE} s of silence"
    assert not table.seats[0].connected and any("Bea is disconnected" in e for e in table.events)
    assert live.app.state.server.clients == []
    # the server closed the socket
    with pytest.raises(ConnectionClosed):
        for _ in range(10_000):
            ws.recv(timeout=5.0)
    # she comes back with her token: her seat again
    back = opened.enter_context(connect(live.ws_url))
    send(back, type="hello", token=token)
    view = until(back, lambda m: m["type"] == "table")
    assert view["table"]["seats"][0]["name"] == "Bea"
    assert table.seats[0].connected and not table.seats[0].bot_plays
    assert any("Bea is back" in e for e in table.events)


def test_a_person_with_two_connections_stays_while_one_answers(live: LiveServer, opened: contextlib.ExitStack) -> None:
    _silent, token = seated_in_a_game(live, opened, "Cid")
    other = opened.enter_context(connect(live.ws_url))
    send(other, type="hello", token=token)
    until(other, lambda m: m["type"] == "table")
    table = live.room.tables[1]
    deadline = time.monotonic() + 3 * SILENCE
    while time.monotonic() < deadline:  # ``ws`` is silent, ``other`` answers
        with pytest.raises(TimeoutError):
            until(other, lambda m: False, timeout=0.2)
    assert len(live.app.state.server.clients) == 1  # the silent one was dropped
    assert table.seats[0].connected and not table.seats[0].bot_plays
    other.close()


def test_heartbeat_and_silence_are_checked(tmp_path: Path) -> None:
    for heartbeat, silence in ((0.0, 1.0), (2.0, 1.0), (1.0, 1.0), (-1.0, 5.0)):
        with pytest.raises(ValueError, match="0 < heartbeat < silence"):
            create_app(str(tmp_path / "x.sqlite"), heartbeat=heartbeat, silence=silence)
