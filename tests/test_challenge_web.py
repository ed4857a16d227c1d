"""The duplicate challenge in the room (tarot_env/web/challenge_web.py): the page and its endpoints,
the results stored and compared, bad requests refused with nothing changed, the export command, and
no hidden card of another seat in any answer (the same deal with two of them exchanged)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers_web import app_for
from starlette.applications import Starlette
from starlette.testclient import TestClient

from tarot_env import challenge as C
from tarot_env.web.challenge_web import challenge_routes
from tarot_env.web.db import Store

FT4 = "french_tarot_v0_4p"


def choose(view: dict[str, Any]) -> int:
    """A person's scripted move: pass at the bidding, else the first move offered."""
    moves = view["deal"]["moves"]
    return next((m["action"] for m in moves if m["text"] == "pass"), moves[0]["action"])


def play_to_end(client: TestClient, token: str, view: dict[str, Any], log: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The deal played to its end, then its state: the comparison once the agents' scores are known (the move
    that ends a deal does not wait for them, the state does, a few seconds)."""
    while not view["over"]:
        r = client.post("/api/challenge/move", json={"token": token, "action": choose(view)})
        assert r.status_code == 200, r.text
        view = r.json()
        if log is not None:
            log.append(view)
    view = client.post("/api/challenge/state", json={"token": token}).json()
    assert view["comparison"] is not None, view["lines"]
    return view


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """The room's challenge with the rule-based bot's baselines only (the trained and search agents' take seconds
    a deal: tests/test_challenge_held_out.py computes them) and room for five new people from the test's address."""
    from tarot_env.web import challenge_web

    monkeypatch.setattr(challenge_web, "BASELINE_AGENTS", ("rules",))
    monkeypatch.setattr(challenge_web, "NEW_PEOPLE", ((10, 60.0),))
    monkeypatch.setattr(challenge_web, "DEALS_STARTED", ((20, 60.0),))


def stored(tmp_path: Path, query: str) -> list[Any]:
    return list(Store(str(tmp_path / "room.sqlite")).engine.connect().exec_driver_sql(query))


def test_the_page_and_a_whole_challenge_in_the_room(tmp_path: Path, quick: None) -> None:
    """Through create_app: the page, five people on the first deal (four seats, then the first again),
    the results stored, the comparison with the agents and with the person before in the same seat."""
    with TestClient(app_for(tmp_path)) as client:
        assert 'href="/challenge"' in client.get("/").text  # reachable from the room's first page
        page = client.get("/challenge")
        assert page.status_code == 200 and "challenge.js" in page.text
        assert client.get("/static/challenge.js").status_code == 200
        scores, seats, tokens = [], [], []
        for k in range(5):
            r = client.post("/api/challenge/start", json={"name": f"P{k}"})
            assert r.status_code == 200, r.text
            view = r.json()
            assert (view["table"], view["deal_index"]) == (FT4, 0)  # the first deal of the room's own set
            assert view["seats"][view["seat"]] == "you" and view["seats"].count("you") == 1
            seats.append(view["seat"])
            tokens.append(view["token"])
            end = play_to_end(client, view["token"], view)
            assert end["over"] and "score" in end and end["lines"]
            scores.append(end["score"])
            deals = [json.loads(r[0])["deal"] for r in stored(tmp_path, "select record from challenge_results where score is not null")]
            deal = deals[0]
            assert all(d == deal for d in deals)  # the same cards for everyone
            rules = C.play_deal(FT4, 0, view["seat"], C.baseline_agent("rules", FT4, 0, view["seat"]), deal)[0]
            assert end["comparison"]["agents"] == {"rules": {"score": rules, "difference": end["score"] - rules}}
            assert any("the rule-based bot" in line for line in end["lines"])
        assert seats == [0, 1, 2, 3, 0]  # people are spread over the seats of the same deal
        assert end["comparison"]["people"] == {"n": 1, "mean": scores[0], "difference": scores[4] - scores[0]}
        again = client.post("/api/challenge/start", json={"token": tokens[0]}).json()
        assert again["deal_index"] == 1  # a deal played is not offered again
        state = client.post("/api/challenge/state", json={"token": tokens[0]}).json()
        assert state["deal_index"] == again["deal_index"] and not state["over"]
    rows = stored(tmp_path, "select deal, seat, score from challenge_results")
    assert [r[2] for r in rows[:5]] == scores and rows[5][2] is None  # the deal in progress has no score yet
    # the rule-based bot's scores were computed once per (deal, seat) and stored
    assert sorted(stored(tmp_path, "select seat, agent from challenge_baselines where deal = 0")) == [(p, "rules") for p in range(4)]


def test_the_export_command(tmp_path: Path, capsys: pytest.CaptureFixture[str], quick: None) -> None:
    from tarot_env.command import main
    from tarot_env.web.challenge_web import HeldOutDeals

    with TestClient(app_for(tmp_path)) as client:
        view = client.post("/api/challenge/start", json={"name": "Zoé"}).json()
        end = play_to_end(client, view["token"], view)
        client.post("/api/challenge/start", json={"token": view["token"]})  # started, not finished: not exported
    out = tmp_path / "humans.jsonl"
    assert main(["challenge", "export", "--db", str(tmp_path / "room.sqlite"), "--out", str(out)]) == 0
    assert "1 finished challenge deal(s)" in capsys.readouterr().out
    (row,) = C.read_dataset(out)
    assert (row["table"], row["deal"], row["seat"], row["score"]) == (FT4, view["deal_index"], view["seat"], end["score"])
    assert row["player"] == C.pseudonym(view["token"]) and "Zo" not in out.read_text()
    ((secret,),) = stored(tmp_path, "select value from challenge_secret where name = 'deals'")
    held_out = HeldOutDeals(secret)
    assert row["record"]["env"] == "french_tarot_v0" and row["record"]["deal"] == held_out(FT4, view["deal_index"])
    assert row["deal_set"] == held_out.id and secret not in out.read_text()  # the set is named, its secret kept
    assert row["agents"] == {"rules": end["comparison"]["agents"]["rules"]["score"]}  # the agents' scores on that deal
    assert main(["challenge", "export", "--db", str(tmp_path / "none.sqlite"), "--out", str(out)]) == 1
    assert "no database" in capsys.readouterr().err


def test_bad_requests_are_refused_and_change_nothing(tmp_path: Path, quick: None) -> None:
    with TestClient(app_for(tmp_path)) as client:
        view = client.post("/api/challenge/start", json={"name": "Al"}).json()
        token = view["token"]
        before = client.post("/api/challenge/state", json={"token": token}).json()
        illegal = next(c["action"] for c in hand_actions(view))
        cases = [
            ({"token": token, "action": illegal}, 400, "You cannot play"),
            ({"token": token, "action": True}, 400, "action is a whole number, got true"),
            ({"token": token, "action": "pass"}, 400, 'action is a whole number, got "pass"'),
            ({"token": token, "action": 99999}, 400, "not an action id 0.."),
            ({"token": token, "action": 0, "cheat": 1}, 400, "unknown field(s) cheat"),
            ({"token": token}, 400, "field 'action' is missing"),
            ({"token": "nobody", "action": 0}, 403, "unknown token"),
        ]
        for body, status, words in cases:
            r = client.post("/api/challenge/move", json=body)
            assert r.status_code == status and words in r.json()["error"], (body, r.text)
        r = client.post("/api/challenge/move", json={"token": token, "action": illegal})
        assert "The moves now are pass" in r.json()["error"]  # what is allowed
        r = client.post("/api/challenge/move", content=b"[1, 2")
        assert r.status_code == 400 and "JSON object" in r.json()["error"]
        r = client.post("/api/challenge/start", json={"name": "x" * 30})
        assert r.status_code == 400 and "1 to 24" in r.json()["error"]
        r = client.post("/api/challenge/start", json={"token": token, "table": "poker"})
        assert r.status_code == 400 and "not in the challenge" in r.json()["error"]
        assert client.get("/api/challenge/move").status_code == 405
        assert client.post("/api/challenge/state", json={"token": token}).json() == before
        other = client.post("/api/challenge/start", json={"name": "Bo"}).json()
        assert client.post("/api/challenge/state", json={"token": other["token"]}).json()["seat"] == 1


def hand_actions(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The hand's cards as the view gives them, with an action id (at the bidding they are not legal)."""
    import tarot_env

    raw = tarot_env.make("french_tarot_v0", num_players=4).unwrapped
    return [{"action": int(raw.string_to_action(f"play {c['name']}"))} for c in view["deal"]["hand"]]


# ------------------------------------------------------------------------------------------ no leak
def swap(deal: dict[str, Any], x: str, y: str) -> dict[str, Any]:
    def sw(c: str) -> str:
        return y if c == x else x if c == y else c

    return {**deal, "hands": [[sw(c) for c in h] for h in deal["hands"]], "rest": [sw(c) for c in deal["rest"]]}


def scripted_actions(table: str, deal: dict[str, Any]) -> list[str]:
    """The whole deal's actions, the person at seat 0 playing :func:`choose`'s moves (through the library)."""
    from tarot_env.web.views import deal_view

    game = C.ChallengeGame(table, 0, 0, deal)
    while not game.over:
        game.move(choose({"deal": deal_view("french_tarot_v0", game.env, 0)}))
    return game.record()["actions"]


def swapped_pair(table: str, deal: dict[str, Any]) -> tuple[str, str, int]:
    """Two plain cards of one suit, in the hands of seats 1 and 2 (hidden from seat 0), whose exchange
    exchanges them in the robots' play and changes nothing else; and the index of the first action that
    plays one of them (from then on seat 0 may see it)."""
    base = scripted_actions(table, deal)
    one, two = deal["hands"][1], deal["hands"][2]
    for x in one:
        for y in two:
            if x[-1] != y[-1] or x[:-1] not in {str(k) for k in range(1, 11)} or y[:-1] not in {str(k) for k in range(1, 11)}:
                continue
            other = scripted_actions(table, swap(deal, x, y))
            want = [" ".join([a.split()[0], {x: y, y: x}.get(a.split()[1], a.split()[1])]) if " " in a else a for a in base]
            if other == want:
                first = next(i for i, a in enumerate(base) if a in (f"play {x}", f"play {y}"))
                return x, y, first
    raise AssertionError("no pair of hidden cards to exchange")


def messages(tmp_path: Path, deal: dict[str, Any]) -> list[dict[str, Any]]:
    """Every answer the person at seat 0 receives over one challenge deal (``deal``'s cards)."""
    b = C.load_baselines(FT4)
    assert b is not None
    folder = tmp_path / f"b{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    (folder / f"{FT4}.json").write_text(json.dumps({**b, "deals": b["deals"][:1], "scores": {k: v[:1] for k, v in b["scores"].items()}}))
    store = Store(str(folder / "db.sqlite"))
    app = Starlette(routes=challenge_routes(store, baselines=folder, deal_source=lambda t, i: deal, agents=("rules",)))
    client = TestClient(app)
    start = client.post("/api/challenge/start", json={"name": "Eve"}).json()
    token = start.pop("token")
    log = [start]
    bad = client.post("/api/challenge/move", json={"token": token, "action": 99999}).json()  # refusals too
    log.append(bad)
    play_to_end(client, token, start, log)
    return log


def test_no_hidden_card_of_another_seat_reaches_the_person(tmp_path: Path) -> None:
    """The same challenge deal with two cards of other seats' hands exchanged (the robots' moves exchanged
    with them): every answer is the same, byte for byte, until one of the two cards is played; after that
    the answers differ (so the comparison can fail)."""
    b = C.load_baselines(FT4)
    assert b is not None
    for index in b["deals"]:  # a deal where, the person passing, the robots take and play
        deal = C.deal_of(FT4, index)
        if any(a.startswith("play") for a in scripted_actions(FT4, deal)):
            break
    x, y, first = swapped_pair(FT4, deal)
    plain, exchanged = messages(tmp_path, deal), messages(tmp_path, swap(deal, x, y))
    assert len(plain) == len(exchanged)
    hidden = [(a, e) for a, e in zip(plain, exchanged) if a.get("steps", 0) <= first]
    assert len(hidden) >= 3
    for a, e in hidden:
        assert json.dumps(a, sort_keys=True) == json.dumps(e, sort_keys=True)
    shown = [(a, e) for a, e in zip(plain, exchanged) if a.get("steps", 0) > first]
    assert any(json.dumps(a) != json.dumps(e) for a, e in shown)


def test_deals_in_progress_are_bounded(tmp_path: Path, quick: None) -> None:
    """Past ``max_sessions`` the oldest deal in progress is dropped; it stays started (not offered again)."""
    from tarot_env.web.challenge_web import ChallengeError, ChallengeService

    service = ChallengeService(Store(str(tmp_path / "db.sqlite")), agents=("rules",))
    service.max_sessions = 2
    views = [service.start({"name": f"N{k}"}) for k in range(3)]
    assert len(service.sessions) == 2
    with pytest.raises(ChallengeError, match="no challenge deal in progress") as err:
        service.state({"token": views[0]["token"]})
    assert err.value.status == 404
    assert service.state({"token": views[2]["token"]})["seat"] == 2
    again = service.start({"token": views[0]["token"]})
    assert again["deal_index"] != views[0]["deal_index"]


def test_the_export_of_a_room_without_challenges_writes_nothing_to_it(tmp_path: Path) -> None:
    from sqlalchemy import inspect

    from tarot_env.command import main

    Store(str(tmp_path / "room.sqlite"))  # the room's tables only
    assert main(["challenge", "export", "--db", str(tmp_path / "room.sqlite"), "--out", str(tmp_path / "h.jsonl")]) == 0
    assert C.read_dataset(tmp_path / "h.jsonl") == []
    assert not inspect(Store(str(tmp_path / "room.sqlite")).engine).has_table("challenge_results")


def test_without_baselines_the_challenge_says_so(tmp_path: Path) -> None:
    client = TestClient(Starlette(routes=challenge_routes(Store(str(tmp_path / "db.sqlite")), baselines=tmp_path / "none")))
    r = client.post("/api/challenge/start", json={"name": "Ann"})
    assert r.status_code == 503 and "no baselines in" in r.json()["error"]
