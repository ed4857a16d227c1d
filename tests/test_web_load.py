"""Nothing one client does can stall the others. Raw WebSocket clients on uvicorn on loopback (as
``tarot serve`` runs): a client that never reads its socket is dropped and nobody waits on it; a robot
that thinks long, or a slow database call, holds up nobody else; the lobby goes only to those looking at
it; idle tables close; the rate limits and bounds refuse with a reason. The load test
(tests/load_room.py) runs here scaled down: 40 connections, 10 tables (its full size, 200 connections and
50 tables, takes longer than the suite should on a 2-core machine; its figures are in docs/web.md)."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import threading
import time
import urllib.error
import urllib.request
from dataclasses import replace
from pathlib import Path
from typing import Any

import load_room
import pytest
from helpers_web import LiveServer, app_for, first_legal, hello, open_table, people, receive_until, table_with
from starlette.testclient import TestClient
from websockets.sync.client import connect

from tarot_env.web.app import Limits, create_app
from tarot_env.web.dealing import DealJob
from tarot_env.web.room import Room


def within(seconds: float) -> Any:
    """Run the test in a thread and fail it if it has not finished after ``seconds`` (pytest-timeout is not a
    dependency): a hang fails instead of blocking the suite (the thread, a daemon, is left behind)."""

    def wrap(test: Any) -> Any:
        @functools.wraps(test)
        def bounded(*args: Any, **kwargs: Any) -> None:
            outcome: list[BaseException | None] = []

            def body() -> None:
                try:
                    test(*args, **kwargs)
                    outcome.append(None)
                except BaseException as err:  # handed to the test's thread
                    outcome.append(err)

            thread = threading.Thread(target=body, daemon=True)
            thread.start()
            thread.join(seconds)
            assert outcome, f"{test.__name__} did not finish in {seconds:g} s"
            if outcome[0] is not None:
                raise outcome[0]

        return bounded

    return wrap


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
    m = until(ws, lambda m: m["type"] in ("leaderboard", "error") and m.get("about", "leaderboard") == "leaderboard")
    assert m["type"] == "leaderboard", m
    return time.monotonic() - sent


def warm() -> None:
    """One deal played out in this process before a timing is measured: the first deal of a process loads
    the game's numba kernels (about 2 s on 2 cores, docs/performance.md), once."""
    r = Room(robot_delay=0.0, pause=0.0)
    (a,) = people(1)
    t = table_with(r, [a], n=3)
    t.start(a, 0.0)
    now = 0.0
    while t.state != "over":
        now += 1.0
        if t.turn == 0:
            t.move(a, first_legal(t, 0), now)
        else:
            t.advance(now)


@within(300)
def test_load_many_clients_and_one_that_never_reads(tmp_path: Path) -> None:
    """40 connections, 10 tables for four with robots playing, one client that watches a table in play and
    never reads: every other client is answered within a second throughout; the tables close afterwards,
    the people are let go and their memory given back, and a second round leaves the memory where the
    first left it (within 8 MB here; at the full size, in docs/web.md, it grew 0.2-0.6 MB a round)."""
    figures = load_room.run(connections=40, tables=10, deals=1, rounds=2)
    for r in ("round1", "round2"):
        f = figures[r]
        assert f["games_over"] == 10, figures
        assert f["answers"] >= 20, figures
        assert f["wait_max_s"] < 1.0, figures  # every other client answered within a second
        assert f["tables_left"] == 0 and f["clients_left"] == 0, figures
        assert f["people_in_memory"] == 0 and f["trims"] >= 1, figures  # let go, and their memory given back
    assert figures["round2"]["rss_after_mb"] - figures["round1"]["rss_after_mb"] < 8, figures  # flat: no growth per round


@within(60)
def test_a_client_that_never_reads_is_dropped_and_its_seat_goes_to_the_robot(tmp_path: Path) -> None:
    warm()
    limits = Limits(out_queue=8)
    with LiveServer(tmp_path, heartbeat=0.5, silence=3.0, limits=limits) as live, connect(live.ws_url) as other:
        server = live.app.state.server
        sleeper = load_room.non_reader(live.port, 1)  # watches table 1, which does not exist yet: refused, unread
        other.send(json.dumps({"type": "hello", "name": "Other"}))
        until(other, lambda m: m["type"] == "lobby")
        other.send(json.dumps({"type": "create", "env": "french_tarot_v0", "players": 3}))
        until(other, lambda m: m["type"] == "table")
        sleeper.sendall(load_room._frame(json.dumps({"type": "watch", "table": 1}).encode()))
        for p in (1, 2):
            other.send(json.dumps({"type": "robot", "seat": p, "robot": "rules"}))
        other.send(json.dumps({"type": "start"}))
        deadline = time.monotonic() + 30
        while any(c.user is not None and c.user.name == "Sleeper" for c in server.clients):
            assert time.monotonic() < deadline, "the client that never reads was not dropped"
            assert answer_time(other) < 1.0
            time.sleep(0.1)  # about 10 messages a second: under the rate limit (20 a second on one connection)
            if (m := server.room.tables[1]).state == "playing" and m.turn == 0:
                other.send(json.dumps({"type": "move", "action": first_legal(m, 0)}))
        sleeper.close()
        assert answer_time(other) < 1.0


FLOOD = Limits(  # one connection may ask as fast as it likes: the test is about what its answers leave behind
    messages_per_second=1e6, message_burst=1e6, address_messages_per_second=1e6, address_message_burst=1e6,
    creates_per_minute=6000.0, create_burst=100.0,
)  # fmt: skip


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads the server's sockets in /proc/net/tcp (Linux)")
@pytest.mark.parametrize("reason", ["queue overflowed", "silent"])
@within(60)
def test_a_dropped_non_reader_is_closed_at_once_on_the_servers_side(tmp_path: Path, reason: str) -> None:
    """A client that asks for the lobby (10 tables: 10 KB each) 600-1600 times and never reads is
    dropped (its queue of 1,000 overflows, or it is silent for 2 s with a send stuck), and within 3 s the
    server's side of its connection is gone: no socket left in /proc/net/tcp and no descriptor held. A
    ``close()`` would not do: it waits to flush what the client never reads, and the socket would stay
    ESTABLISHED with its descriptor and megabytes queued (or, when asyncio's buffer happened to be empty,
    FIN_WAIT1 in the kernel with them), for as long as the client stayed."""
    if reason == "queue overflowed":
        limits, silence, asks = replace(FLOOD, out_queue=1000), 3600.0, 1600
    else:
        limits, silence, asks = replace(FLOOD, out_queue=100_000), 2.0, 600
    with LiveServer(tmp_path, heartbeat=0.5, silence=silence, limits=limits) as live:
        server = live.app.state.server
        with connect(live.ws_url, max_queue=None) as owner:  # reads all: the owner is not the one dropped
            owner.send(json.dumps({"type": "hello", "name": "Owner"}))
            for k in range(10):
                owner.send(json.dumps({"type": "create", "env": "french_tarot_v0", "players": 5}))
                until(owner, lambda m, k=k: m["type"] == "table" and m["table"]["id"] == k + 1)
        sleeper = load_room.non_reader(live.port, 1)
        peer = sleeper.getsockname()[1]
        deadline = time.monotonic() + 5
        while not any(c.user is not None and c.user.name == "Sleeper" for c in server.clients):
            assert time.monotonic() < deadline, "the non-reader's hello was not answered"
            time.sleep(0.05)
        inode = load_room.tcp_sockets(live.port)[peer][2]
        assert inode in load_room.open_fds()["socket_inodes"]
        with contextlib.suppress(OSError):  # reset by the server once it drops the client
            for _ in range(0, asks, 50):
                sleeper.sendall(load_room._frame(b'{"type": "lobby"}') * 50)
                time.sleep(0.01)  # the room's reader gives way to the connection's writer now and then
        deadline = time.monotonic() + 15
        while any(c.user is not None and c.user.name == "Sleeper" for c in server.clients):
            assert time.monotonic() < deadline, "the client that never reads was not dropped"
            time.sleep(0.05)
        dropped = time.monotonic()
        while peer in load_room.tcp_sockets(live.port) or inode in load_room.open_fds()["socket_inodes"]:
            state, unsent, _ = load_room.tcp_sockets(live.port).get(peer, ("gone", 0, 0))
            assert time.monotonic() - dropped < 3.0, (
                f"dropped ({reason}) {time.monotonic() - dropped:.1f} s ago, the server's side is still {state} with "
                f"{unsent} bytes unsent; the server holds its descriptor: {inode in load_room.open_fds()['socket_inodes']}"
            )
            time.sleep(0.05)
        sleeper.close()


@within(60)
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


@within(60)
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


@within(120)
def test_the_challenges_database_calls_take_the_rooms_database_thread_off_the_loop(tmp_path: Path, monkeypatch: Any) -> None:
    """The challenge's endpoints called SQLite beside the room's database thread (the Store's name index and
    an in-memory database's connection shared by two threads): they take their turn in the room's one
    database thread, and a challenge request held there holds up no other client."""
    with LiveServer(tmp_path, heartbeat=5.0, silence=30.0, challenge_agents=("rules",)) as live, connect(live.ws_url) as ben:
        store = live.app.state.server.store
        ben.send(json.dumps({"type": "hello", "name": "Ben"}))
        until(ben, lambda m: m["type"] == "lobby")
        real = store.new_user
        held, release = threading.Event(), threading.Event()
        threads: list[str] = []

        def slow(name: str) -> Any:
            threads.append(threading.current_thread().name)
            held.set()
            release.wait(60)
            return real(name)

        monkeypatch.setattr(store, "new_user", slow)
        answers: list[dict[str, Any]] = []

        def challenge() -> None:
            request = urllib.request.Request(live.url + "api/challenge/start", data=b'{"name": "Cleo"}', method="POST")
            try:
                with urllib.request.urlopen(request, timeout=60) as r:
                    answers.append(json.loads(r.read()))
            except urllib.error.HTTPError as err:  # an installed wheel has no baselines: a 503, after the person was made
                answers.append(json.loads(err.read()))

        thread = threading.Thread(target=challenge, daemon=True)
        thread.start()
        assert held.wait(30), "the challenge's request did not reach the database"
        ben.send('{"type": "lobby"}')  # answered while the challenge's database call is held
        until(ben, lambda m: m["type"] == "lobby")
        release.set()
        thread.join(60)
        assert len(threads) == 1 and threads[0].startswith("tarot-db"), threads
        assert answers and ("deal" in answers[0] or "no baselines" in answers[0].get("error", "")), answers


@within(120)
def test_a_tables_deals_are_made_off_the_loop(tmp_path: Path, monkeypatch: Any) -> None:
    """A table's deal was dealt on the event loop (the first of a game in a process loads its kernels, seconds
    on a cold cache): the owner's start and the clock's next deal are made in the dealer's thread, and a deal
    held there holds up no other client."""
    made = DealJob.make
    threads: list[str] = []
    held, release = threading.Event(), threading.Event()

    def make(job: DealJob) -> DealJob:
        threads.append(threading.current_thread().name)
        if len(threads) == 1:
            held.set()
            release.wait(60)
        return made(job)

    monkeypatch.setattr(DealJob, "make", make)
    app = create_app(str(tmp_path / "r.sqlite"), room=Room(robot_delay=0.0, pause=0.0), tick=0.005, heartbeat=3600.0, silence=7200.0)
    with TestClient(app) as client, client.websocket_connect("/ws") as ann, client.websocket_connect("/ws") as ben:
        hello(ann, "Ann")
        hello(ben, "Ben")
        open_table(ann, "french_tarot_v0", 3, "rules")
        ann.send_text(json.dumps({"type": "settings", "changes": {"time_per_turn": 0.1, "deals": 2}}))  # the clock plays her turns
        ann.send_text(json.dumps({"type": "start"}))
        assert held.wait(30), "the first deal was not made in a thread"
        ben.send_text('{"type": "lobby"}')  # answered while the first deal is held in the dealer's thread
        receive_until(ben, lambda m: m["type"] == "lobby")
        release.set()
        receive_until(ann, lambda m: m["type"] == "table" and m["table"]["game_result"] is not None, limit=50000)
    assert len(threads) >= 2 and all(name.startswith("tarot-deal") for name in threads), threads


@within(60)
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


@within(90)
def test_a_robot_that_never_answers_is_replaced_by_the_rule_based_robot(tmp_path: Path, caplog: Any) -> None:
    """A robot whose agent never returned left its table "thinking" forever: past the room's robot_timeout
    the rule-based robot moves for it (logged), and the hung agent is not asked again while it hangs."""
    release = threading.Event()
    asked: list[int] = []

    class Hung:
        def act(self, obs: Any, mask: Any) -> int:
            asked.append(1)
            release.wait(120)  # a model that never answers (released at the end, so its thread ends)
            return int(mask.nonzero()[0][0])

    room = Room(robot_delay=0.0, pause=0.0, robot_timeout=0.2)
    app = create_app(str(tmp_path / "r.sqlite"), room=room, tick=0.005, heartbeat=3600.0, silence=7200.0)
    try:
        with caplog.at_level(logging.WARNING, logger="tarot_env.web"), TestClient(app) as client, client.websocket_connect("/ws") as ann:
            hello(ann, "Ann")
            open_table(ann, "french_tarot_v0", 3, "rules")
            table = room.tables[1]
            made = table.seats.make_agent
            table.seats.make_agent = lambda seat, robot: Hung() if seat == 1 else made(seat, robot)  # type: ignore[method-assign]
            ann.send_text(json.dumps({"type": "settings", "changes": {"time_per_turn": 0.1}}))  # the clock plays her turns
            ann.send_text(json.dumps({"type": "start"}))
            m = receive_until(ann, lambda m: m["type"] == "table" and m["table"]["game_result"] is not None, limit=20000)
            assert m["table"]["state"] == "over"
            counts = table.fallbacks[1]
            assert counts["moves"] > 1 and counts["timeout"] == counts["fallback"] == counts["moves"], counts
            assert asked == [1]  # asked once: its next moves went to the rule-based robot at once
            assert table.fallbacks[2]["fallback"] == 0
            assert "table 1 seat 1 (rules) did not answer within 0.2 s" in caplog.text
    finally:
        release.set()


# ------------------------------------------------------------------------------ the lobby, idle tables
@within(60)
def test_the_lobby_goes_only_to_those_looking_at_it(tmp_path: Path) -> None:
    """Every lobby change went to every person connected, in full."""
    app = create_app(str(tmp_path / "r.sqlite"), room=Room(robot_delay=0.0, pause=0.0), heartbeat=3600.0, silence=7200.0,
                     limits=Limits(lobby_every=0.05))  # fmt: skip
    with TestClient(app) as client, client.websocket_connect("/ws") as seated, client.websocket_connect("/ws") as looking:
        hello(seated, "Seated")
        hello(looking, "Looking")
        open_table(seated, "french_tarot_v0", 3, "rules")
        m = receive_until(looking, lambda m: m["type"] == "lobby_update" and m["tables"] and m["tables"][0]["seats"][2]["kind"] == "robot")
        assert [t["id"] for t in m["tables"]] == [1]
        seated.send_text(json.dumps({"type": "lobby"}))  # asked: answered
        log: list[dict[str, Any]] = []
        receive_until(seated, lambda m: m["type"] == "lobby", log)
        looking.send_text(json.dumps({"type": "create", "env": "french_tarot_v0", "players": 4}))
        receive_until(looking, lambda m: m["type"] == "table")
        seated.send_text(json.dumps({"type": "settings", "changes": {"deals": 2}}))
        receive_until(seated, lambda m: m["type"] == "table" and m["table"]["settings"]["deals"] == 2, log)
        assert [m["type"] for m in log if m["type"].startswith("lobby")] == ["lobby"]  # nothing pushed to a person at a table


@within(60)
def test_an_idle_table_out_of_a_game_closes(tmp_path: Path) -> None:
    app = create_app(str(tmp_path / "r.sqlite"), room=Room(robot_delay=0.0, pause=0.0), heartbeat=3600.0, silence=7200.0,
                     limits=Limits(table_idle=0.3))  # fmt: skip
    server = app.state.server
    with TestClient(app) as client, client.websocket_connect("/ws") as ann:
        hello(ann, "Ann")
        open_table(ann, "french_tarot_v0", 3, "rules")
        time.sleep(0.6)
        assert 1 in server.room.tables  # its owner is there, setting it up: it stays
        ann.send_text(json.dumps({"type": "settings", "changes": {"time_per_turn": 0.1}}))  # the clock plays her turns
        ann.send_text(json.dumps({"type": "start"}))
        m = receive_until(ann, lambda m: m["type"] == "left", limit=20000)  # played out, then idle: closed
        assert "closed" in m["message"] and server.room.tables == {} and server.records == {}


# ------------------------------------------------------------------------------ limits
@within(60)
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


@within(60)
def test_tables_created_over_the_bounds_are_refused_with_the_bound(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    server = app.state.server
    server.limits = Limits(max_tables=2, create_burst=10.0)
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        hello(ws, "Ann")
        for _ in range(3):
            ws.send_text(json.dumps({"type": "create", "env": "french_tarot_v0", "players": 3}))
            m = receive_until(ws, lambda m: m["type"] in ("table", "error"))
        assert m["type"] == "error" and "at most 2 tables" in m["message"]
        server.limits = Limits(max_tables=50, creates_per_minute=1.0, create_burst=1.0)
        server.connections.create_buckets.clear()  # the address's bucket was filled under the limits before
        ws.send_text(json.dumps({"type": "create", "env": "french_tarot_v0", "players": 3}))
        receive_until(ws, lambda m: m["type"] == "table")
        ws.send_text(json.dumps({"type": "create", "env": "french_tarot_v0", "players": 3}))
        m = receive_until(ws, lambda m: m["type"] in ("table", "error"))
        assert m["type"] == "error" and "at most 1 a minute" in m["message"]


@pytest.mark.parametrize(
    ("limits", "words"), [(Limits(per_address=2), "at most 2 at once"), (Limits(max_connections=2), "at most 2 connections")]
)
@within(60)
def test_connections_over_the_bounds_are_refused_with_the_bound(tmp_path: Path, limits: Limits, words: str) -> None:
    app = app_for(tmp_path)
    app.state.server.limits = limits
    with TestClient(app) as client, client.websocket_connect("/ws") as a, client.websocket_connect("/ws") as b:
        hello(a, "A")
        hello(b, "B")
        with client.websocket_connect("/ws") as c:
            m = json.loads(c.receive_text())
            assert m["type"] == "error" and words in m["message"] and m["about"] == "connect"
