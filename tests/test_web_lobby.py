"""The lobby sends what changed, not the whole list each time (10 tables: 9.6 KB to every person at
every change): a page gets the whole list when it comes to the lobby (``lobby``) and then only what
changed (``lobby_update``: the tables added or changed, the ids removed), private tables to the people
seated at them only. docs/web.md, "The protocol"."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from helpers_web import hello, people
from starlette.testclient import TestClient

from tarot_env.web.app import Client, Limits, create_app
from tarot_env.web.room import Room


def lobby_app(tmp_path: Path) -> Any:
    limits = Limits(lobby_every=0.05, create_burst=20.0, creates_per_minute=600.0)
    return create_app(str(tmp_path / "r.sqlite"), room=Room(robot_delay=0.0, pause=0.0), heartbeat=3600.0, silence=7200.0, limits=limits)


def texts_until(ws: Any, pred: Any) -> tuple[str, dict[str, Any], list[str]]:
    """The raw text and the message of the first message for which ``pred`` holds, and every text read."""
    seen = []
    for _ in range(2000):
        text = ws.receive_text()
        seen.append(text)
        m = json.loads(text)
        if pred(m):
            return text, m, seen
    raise AssertionError("message not received")


def test_a_change_sends_only_the_changed_table(tmp_path: Path) -> None:
    app = lobby_app(tmp_path)
    with TestClient(app) as client, client.websocket_connect("/ws") as owner, client.websocket_connect("/ws") as looker:
        hello(owner, "Owner")
        hello(looker, "Looker")
        for _ in range(10):  # ten tables: each new one leaves the one before, empty and waiting
            owner.send_text(json.dumps({"type": "create", "env": "french_tarot_v0", "players": 4}))
            texts_until(owner, lambda m: m["type"] == "table")
        time.sleep(0.5)  # every push of the setup is out
        looker.send_text(json.dumps({"type": "lobby"}))
        full, m, _ = texts_until(looker, lambda m: m["type"] == "lobby")
        assert [t["id"] for t in m["tables"]] == list(range(1, 11))
        owner.send_text(json.dumps({"type": "settings", "changes": {"deals": 3}}))  # at table 10
        text, update, seen = texts_until(looker, lambda m: m["type"] != "ping")
        assert update["type"] == "lobby_update" and seen == [text]
        assert [t["id"] for t in update["tables"]] == [10] and update["removed"] == []
        assert update["tables"][0] == app.state.server.room.tables[10].summary()  # the table whole, as it is now
        assert update["tables"][0]["settings"]["deals"] == 3
        assert len(text) < len(full) / 5, (len(text), len(full))  # one table of ten, not the list
        owner.send_text(json.dumps({"type": "settings", "changes": {"private": True}}))  # the others no longer see it
        _, update, _ = texts_until(looker, lambda m: m["type"] != "ping")
        assert update == {"type": "lobby_update", "tables": [], "removed": [10]}


def _lobby_client(user: Any) -> Client:
    return Client(ws=None, address="10.0.0.9", user=user, queue=asyncio.Queue(256))  # type: ignore[arg-type]


def _sent(c: Client) -> list[dict[str, Any]]:
    assert c.queue is not None
    out = []
    while not c.queue.empty():
        out.append(json.loads(c.queue.get_nowait()))
    return out


def test_the_lobby_push_sends_changes_removals_and_private_tables_to_their_people_only(tmp_path: Path) -> None:
    server = lobby_app(tmp_path).state.server
    ann, ben, cleo = people(3)
    looking, ann_looking, at_table = _lobby_client(ben), _lobby_client(ann), _lobby_client(cleo)
    server.connections.clients += [looking, ann_looking, at_table]
    one = server.room.create(ann, "french_tarot_v0", 4, "10.0.0.1")
    two = server.room.create(cleo, "french_tarot_v0", 3, "10.0.0.3")
    at_table.table = two
    server.push_lobby()
    assert [[t["id"] for t in m["tables"]] for m in _sent(looking)] == [[1, 2]]
    assert _sent(at_table) == []  # a person at a table gets no lobby
    _sent(ann_looking)
    server.push_lobby()  # nothing changed: nothing sent
    assert _sent(looking) == []
    one.change_settings(ann, {"private": True})
    two.change_settings(cleo, {"deals": 2})
    server.push_lobby()
    (m,) = _sent(looking)
    assert [t["id"] for t in m["tables"]] == [2] and m["removed"] == [1]  # table 1 is private now: gone for Ben
    (m,) = _sent(ann_looking)
    assert [t["id"] for t in m["tables"]] == [1, 2] and m["removed"] == []  # Ann sits there: she still sees it
    one.change_settings(ann, {"deals": 4})
    server.push_lobby()
    assert _sent(looking) == []  # a private table's change: nothing to Ben, not even its id
    assert [[t["id"] for t in m["tables"]] for m in _sent(ann_looking)] == [[1]]
    server.close_table(two, "closed for the test")
    server.push_lobby()
    assert _sent(looking) == [{"type": "lobby_update", "tables": [], "removed": [2]}]
