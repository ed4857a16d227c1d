"""The room on the wire (Starlette's TestClient, real WebSockets through the app): each browser
receives only what its seat may see, bad messages are answered with an error and change nothing,
records are saved and replay, and the database is a plain SQLite file."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers_web import app_for, hello, open_table, receive_until
from starlette.testclient import TestClient

import tarot_env
from tarot_env.cards.french import FRENCH_DECK
from tarot_env.records import replay
from tarot_env.web.app import create_app

#: what depends on the clock or on the table's identity, not on the cards
VOLATILE = ("time_left", "next_deal_in", "invite", "id")


def is_table(m: dict[str, Any]) -> bool:
    return m["type"] == "table"


def play_until_over(ws: Any, choose: Any) -> dict[str, Any]:
    """Send ``choose(deal)`` as this seat's move whenever it has moves, until the game is over;
    returns the last table."""
    while True:
        t = receive_until(ws, is_table)["table"]
        if t["state"] == "over":
            return t
        d = t["deal"]
        if d and d["moves"]:
            ws.send_text(json.dumps({"type": "move", "action": choose(d)}))


def french_deal(seed: int, shuffle_others: int | None) -> dict[str, Any]:
    """A 4-player deal, dealer seat 3 (seat 0 speaks first); ``shuffle_others``: the other hands and the
    chien dealt again at random, seat 0's hand kept."""
    rng = np.random.default_rng(seed)
    cards = [str(c) for c in rng.permutation(np.array(FRENCH_DECK.names, dtype=object))]
    hands = [cards[18 * p : 18 * (p + 1)] for p in range(4)]
    rest = cards[72:]
    if shuffle_others is not None:
        others = [
            str(c) for c in np.random.default_rng(shuffle_others).permutation(np.array(hands[1] + hands[2] + hands[3] + rest, dtype=object))
        ]
        hands = [hands[0], others[:18], others[18:36], others[36:54]]
        rest = others[54:]
    return {"dealer": 3, "hands": hands, "rest": rest}


def strip(m: dict[str, Any]) -> dict[str, Any]:
    """A message without what depends on the clock or the table's identity."""
    if m["type"] == "table":
        return {"type": "table", "table": {k: v for k, v in m["table"].items() if k not in VOLATILE}}
    if m["type"] == "lobby":
        return {"type": "lobby", "tables": [{k: v for k, v in t.items() if k not in VOLATILE} for t in m["tables"]]}
    return m


def session(tmp_path: Path, deal: dict[str, Any], name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[str]]:
    """Seat 0 a person who bids garde contre (the others can then only pass: their robots' moves do not
    depend on their cards) and leads a card; a spectator watches. Every message to seat 0 and to the
    spectator up to seat 0's first card, and the cards seat 0 led with."""
    app = app_for(tmp_path, name)
    with TestClient(app) as client, client.websocket_connect("/ws") as ws, client.websocket_connect("/ws") as spy:
        hello(ws, "Ann")
        hello(spy, "Watcher")
        open_table(ws, "french_tarot_v0", 4, "rules")
        spy.send_text(json.dumps({"type": "watch", "table": 1}))
        receive_until(spy, is_table)
        app.state.server.room.tables[1].next_deal_options = {"deal": deal}
        seen: list[dict[str, Any]] = []
        watched: list[dict[str, Any]] = []
        ws.send_text(json.dumps({"type": "start"}))
        played = []
        while True:
            m = receive_until(ws, is_table, seen)
            d = m["table"]["deal"]
            if not d or not d["moves"]:
                continue
            texts = {mv["text"]: mv["action"] for mv in d["moves"]}
            if "bid garde_contre" in texts:
                ws.send_text(json.dumps({"type": "move", "action": texts["bid garde_contre"]}))
            elif d["phase"] == "play":
                mv = d["moves"][0]
                played.append(mv["card"])
                ws.send_text(json.dumps({"type": "move", "action": mv["action"]}))
                receive_until(ws, lambda m: is_table(m) and m["table"]["deal"]["trick"], seen)
                break
            else:  # chelem, poignée: the first choice (no chelem, no poignée)
                ws.send_text(json.dumps({"type": "move", "action": d["moves"][0]["action"]}))
        receive_until(spy, lambda m: is_table(m) and m["table"]["deal"] and m["table"]["deal"]["trick"], watched)
    return seen, watched, played


def test_messages_to_a_seat_do_not_depend_on_the_other_hands(tmp_path: Path) -> None:
    deal_a = french_deal(11, None)
    deal_b = french_deal(11, 99)
    assert deal_a["hands"][0] == deal_b["hands"][0]
    assert deal_a["hands"][1] != deal_b["hands"][1] and deal_a["rest"] != deal_b["rest"]
    seen_a, watched_a, played_a = session(tmp_path, deal_a, "a.sqlite")
    seen_b, watched_b, played_b = session(tmp_path, deal_b, "b.sqlite")
    assert played_a == played_b
    # the bidding (robots forced to pass), the chelem and poignée choices and seat 0's lead: the same
    # messages, to the byte, whatever the other hands and the chien
    assert len(seen_a) > 5
    assert [strip(m) for m in seen_a] == [strip(m) for m in seen_b]
    assert [strip(m) for m in watched_a] == [strip(m) for m in watched_b]
    # seat 0 sees his own hand: the 18 cards dealt to him, less the one he led
    hands = [m["table"]["deal"]["hand"] for m in seen_a if is_table(m) and m["table"]["deal"]]
    assert {c["name"] for c in hands[0]} == set(deal_a["hands"][0])
    # no card of another hand, nor of the chien (garde contre: never turned up), in any message to seat 0
    hidden_a = {c for hand in deal_a["hands"][1:] for c in hand} | set(deal_a["rest"])
    for m in seen_a:
        assert not hidden_a & set(card_names(m)), m
    # the spectator sees no hand at all
    for m in watched_a:
        if is_table(m) and m["table"]["deal"]:
            assert "hand" not in m["table"]["deal"] and m["table"]["deal"]["moves"] == []
            assert not (set(deal_a["hands"][0]) - set(played_a)) & set(card_names(m))


def card_names(obj: Any) -> list[str]:
    """Every card named in a message (the dicts with id, name and suit)."""
    out = []
    if isinstance(obj, dict):
        if {"id", "name", "suit"} <= set(obj):
            out.append(obj["name"])
        for v in obj.values():
            out += card_names(v)
    elif isinstance(obj, list):
        for v in obj:
            out += card_names(v)
    return out


def test_whole_deal_on_the_wire_record_saved_and_replayed_database_readable(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        hello(ws, "<img src=x onerror=1>")
        open_table(ws, "french_tarot_v0", 3, "random")
        ws.send_text(json.dumps({"type": "start"}))

        def last_move_of_a_hand_that_holds_its_cards(d: dict[str, Any]) -> int:
            hand = {c["name"] for c in d["hand"]}
            assert all(mv["card"] in hand for mv in d["moves"] if mv["verb"] == "play")  # every playable card is in the hand
            return d["moves"][-1]["action"]

        t = play_until_over(ws, last_move_of_a_hand_that_holds_its_cards)
        assert not t["game_result"]["official"] and "second person" in t["game_result"]["reason"]  # alone: practice
        rid = t["records"][-1]
        record = client.get(f"/api/records/{rid}").json()
        assert replay(record) == record["scores"]
        assert client.get("/api/records/999").status_code == 404
        assert client.get("/api/leaderboard").json() == []  # practice gives no XP
    files = sorted((tmp_path / "records").glob("*.json"))
    assert files
    assert all(replay(json.loads(f.read_text())) == json.loads(f.read_text())["scores"] for f in files)
    # and `tarot replay FILE` steps through it to the end, as the docs say
    from tarot_env.command import main as tarot

    assert tarot(["replay", str(files[0]), "--to-end"]) == 0
    con = sqlite3.connect(tmp_path / "room.sqlite")
    assert con.execute("select count(*) from records").fetchone()[0] == len(files)
    assert con.execute("select official, cancelled from games").fetchall() == [(0, 0)]
    assert con.execute("select name, xp from users").fetchone() == ("<img src=x onerror=1>", 0)  # kept as typed
    con.close()


def test_bad_messages_get_an_error_and_change_nothing(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    server = app.state.server
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "create", "env": "french_tarot_v0", "players": 4}))
        assert "hello first" in json.loads(ws.receive_text())["message"]
        hello(ws, "Ann")
        ws.send_text(json.dumps({"type": "create", "env": "french_tarot_v0", "players": 4}))
        receive_until(ws, is_table)
        ws.send_text(json.dumps({"type": "lobby"}))
        receive_until(ws, lambda m: m["type"] == "lobby")  # the lobby lists the new table
        table = server.room.tables[1]
        before = json.dumps(table.view(0, 0.0))
        for bad in (
            "{",
            json.dumps({"type": "settings", "changes": {"deals": 0}}),
            json.dumps({"type": "settings", "changes": {"deals": 2}, "owner": True}),
            json.dumps({"type": "robot", "seat": 9, "robot": "rules"}),
            json.dumps({"type": "robot", "seat": 1, "robot": "<script>"}),
            json.dumps({"type": "move", "action": 3}),
            json.dumps({"type": "start"}),
            json.dumps({"type": "join", "table": 42, "seat": 0}),
            json.dumps({"type": "x" * 5000}),
        ):
            ws.send_text(bad)
            m = json.loads(ws.receive_text())
            assert m["type"] == "error" and m["message"], bad
        assert json.dumps(table.view(0, 0.0)) == before
        assert len(server.room.tables) == 1


def test_private_table_spectators_and_invitations_on_the_wire(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    with TestClient(app) as client, client.websocket_connect("/ws") as owner, client.websocket_connect("/ws") as guest:
        hello(owner, "Owner")
        hello(guest, "Guest")
        owner.send_text(json.dumps({"type": "create", "env": "ottocento_v0", "players": 4}))
        receive_until(owner, is_table)
        owner.send_text(json.dumps({"type": "settings", "changes": {"private": True, "spectators": False}}))
        m = receive_until(owner, lambda m: is_table(m) and m["table"]["private"])
        invite = m["table"]["invite"]
        assert m["table"]["changed"] == ["private", "spectators"]
        guest.send_text(json.dumps({"type": "watch", "table": 1}))
        assert "no spectators" in receive_until(guest, lambda m: m["type"] == "error")["message"]
        guest.send_text(json.dumps({"type": "join", "table": 1, "seat": 2}))
        assert "private" in receive_until(guest, lambda m: m["type"] == "error")["message"]
        guest.send_text(json.dumps({"type": "join", "table": 1, "seat": 2, "invite": invite}))
        m = receive_until(guest, is_table)
        assert m["table"]["you"] == 2 and "invite" not in m["table"]
        assert m["table"]["seats"][0]["owner"] and not m["table"]["seats"][2]["owner"]


@pytest.mark.parametrize("env", ["ottocento_v0"])
def test_spectator_of_a_tarocchino_game_sees_no_hand(tmp_path: Path, env: str) -> None:
    app = app_for(tmp_path)
    with TestClient(app) as client, client.websocket_connect("/ws") as ws, client.websocket_connect("/ws") as spy:
        hello(ws, "Ann")
        hello(spy, "Spy")
        open_table(ws, env, 4, "rules")
        spy.send_text(json.dumps({"type": "watch", "table": 1}))
        receive_until(spy, is_table)
        ws.send_text(json.dumps({"type": "start"}))
        log: list[dict[str, Any]] = []
        play_until_over(ws, lambda d: d["moves"][0]["action"])
        receive_until(spy, lambda m: is_table(m) and m["table"]["state"] == "over", log)
    deals = [m["table"]["deal"] for m in log if is_table(m) and m["table"]["deal"]]
    assert len(deals) > 20
    for d in deals:
        assert "hand" not in d and "discards" not in d and "extra" not in d and d["moves"] == []


def test_the_welcome_gives_the_page_its_menus_from_the_rules_and_the_room(tmp_path: Path) -> None:
    with TestClient(app_for(tmp_path)) as client, client.websocket_connect("/ws") as ws:
        welcome = hello(ws, "Ann")
    assert list(welcome["games"]) == list(tarot_env.ENV_IDS)  # the package's order, French Tarot first
    assert welcome["games"]["french_tarot_v0"] == [3, 4, 5]
    assert welcome["games"]["mattazza_v0"] == [3, 4, 5, 6]
    assert welcome["games"]["millone_v0"] == [2] and welcome["games"]["ottocento_v0"] == [4]
    assert welcome["titles"]["french_tarot_v0"] == "French Tarot" and welcome["titles"]["quattro_scartate_v0"] == "Quattro Scartate"
    assert welcome["robots"] == ["rules", "random", "pretrained", "pimc", "search"]
    assert welcome["limits"]["deals"] == [1, 20] and "chips" not in welcome["limits"]
    static = Path(create_app.__code__.co_filename).parent / "static"
    page = (static / "table.js").read_text() + (static / "index.html").read_text()
    # the page keeps no copy (French Tarot's id names its card notation, and its rules are on the page)
    copies = [*tarot_env.ENV_IDS[1:], *list(welcome["titles"].values())[1:], *(f'"{robot}"' for robot in welcome["robots"])]
    assert [name for name in copies if name in page] == []
