"""Who may reach the room and its tables: ``/ws`` admits the room's own page and the origins
configured, no other site's (a cross-site WebSocket opened from a visitor's browser); a private table
is listed in the lobby to nobody else, and its owner, he alone, renews its invitation, which sends away
those the old one admitted; spectators are sent away when the owner closes the table to them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_web import app_for, hello, is_table, people, receive_until
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from tarot_env.web.people import RoomError
from tarot_env.web.room import Room


def test_ws_refuses_another_sites_origin(tmp_path: Path) -> None:
    """The Origin of /ws is checked, so that no other site's page opens /ws from a visitor's browser
    (a cross-site WebSocket); the room's own page is admitted."""
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
