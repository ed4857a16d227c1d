"""The names people take in the room, on the wire (the name check itself: tests/test_web_names.py):
unique whatever their case or spaces, none that passes for a robot's or bears the owner's star, and a
returning person who renames himself may not take another's name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_web import app_for, hello
from starlette.testclient import TestClient


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
