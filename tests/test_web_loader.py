"""Making a robot's agent holds up nobody: the server makes the robots' agents in a worker thread
(handlers.agents_for) and the room answers everyone meanwhile. Made on the event loop, the first
``pretrained`` robot (PyTorch imported, the model loaded) would freeze the whole room for 2 s, when the
owner seated it and again when he started the game. The agent factory is made slow here (1.5 s, as an
import of PyTorch on 2 cores), and another person's hello and lobby must come back well before it is done."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from helpers_web import app_for, hello, receive_until
from starlette.testclient import TestClient

from tarot_env.web import seats

SLOW = 1.5  # seconds the factory takes to make a pretrained robot here


def slow_factory(monkeypatch: Any) -> list[str]:
    """The room's agent factory, slow for ``pretrained`` (which then plays as the rule-based robot); the
    names of the threads it ran in."""
    real = seats.make_agents
    threads: list[str] = []

    def make_agents(specs: list[str], env_id: str, where: list[int], seed: int, target: Any, num_players: Any = None) -> Any:
        import threading

        if "pretrained" in specs:
            threads.append(threading.current_thread().name)
            time.sleep(SLOW)
            return {p: ("pretrained", a) for p, (_, a) in real(["rules"], env_id, where, seed, target, num_players).items()}
        return real(specs, env_id, where, seed, target, num_players)

    monkeypatch.setattr(seats, "make_agents", make_agents)
    return threads


def answered_while(client: TestClient, owner: Any, request: dict[str, Any], name: str) -> float:
    """Send the owner's ``request`` (which makes a pretrained robot), then open a connection and say hello
    and ask for the lobby: the seconds those two answers took."""
    owner.send_text(json.dumps(request))
    time.sleep(0.2)  # the owner's request is being handled: the slow robot is being made
    start = time.monotonic()
    with client.websocket_connect("/ws") as other:  # its handshake is the loop's too
        hello(other, name)  # the welcome and the lobby
        other.send_text(json.dumps({"type": "lobby"}))
        receive_until(other, lambda m: m["type"] == "lobby")
        return time.monotonic() - start


def test_the_room_answers_while_a_pretrained_robot_is_made(tmp_path: Path, monkeypatch: Any) -> None:
    threads = slow_factory(monkeypatch)
    with TestClient(app_for(tmp_path)) as client, client.websocket_connect("/ws") as ann:
        hello(ann, "Ann")
        ann.send_text(json.dumps({"type": "create", "env": "french_tarot_v0", "players": 4}))
        receive_until(ann, lambda m: m["type"] == "table")
        took = answered_while(client, ann, {"type": "robot", "seat": 1, "robot": "pretrained"}, "Ben")
        assert took < SLOW / 3, f"the room did not answer for {took:.2f} s while a robot was made"
        m = receive_until(ann, lambda m: m["type"] == "table" and m["table"]["seats"][1]["kind"] == "robot")
        assert m["table"]["seats"][1]["robot"] == "pretrained"
        for p in (2, 3):
            ann.send_text(json.dumps({"type": "robot", "seat": p, "robot": "rules"}))
            receive_until(ann, lambda m, p=p: m["type"] == "table" and m["table"]["seats"][p]["kind"] == "robot")
        took = answered_while(client, ann, {"type": "start"}, "Cleo")  # the game's agents are made again
        assert took < SLOW / 3, f"the room did not answer for {took:.2f} s while the game's robots were made"
        receive_until(ann, lambda m: m["type"] == "table" and m["table"]["state"] in ("playing", "between", "over"))
    assert threads == ["tarot-agents_0", "tarot-agents_0"]  # never on the event loop's thread


def test_a_robot_that_cannot_be_made_is_refused_with_its_reason(tmp_path: Path, monkeypatch: Any) -> None:
    def make_agents(*args: Any, **kwargs: Any) -> Any:
        raise SystemExit("tarot play: agent 'pretrained' needs torch, from the train extra")

    monkeypatch.setattr(seats, "make_agents", make_agents)
    with TestClient(app_for(tmp_path)) as client, client.websocket_connect("/ws") as ann:
        hello(ann, "Ann")
        ann.send_text(json.dumps({"type": "create", "env": "french_tarot_v0", "players": 4}))
        receive_until(ann, lambda m: m["type"] == "table")
        ann.send_text(json.dumps({"type": "robot", "seat": 1, "robot": "pretrained"}))
        err = receive_until(ann, lambda m: m["type"] == "error")
        assert err["about"] == "robot" and "needs torch, from the train extra" in err["message"]
        assert client.app.state.server.room.tables[1].seats[1].empty  # type: ignore[attr-defined]
