"""Challenge results can be neither faked nor flooded. The room's deals are drawn from the operator's own
secret, kept in its database, never from the committed protocol deal sets (public: anyone could look a
deal up and play it knowing every hand); the agents' scores on them are computed on first use and stored;
and an address may make only so many new people and start only so many deals a minute and an hour (a 429
saying how long to wait), so that a script (150 new people in 0.6 s, 20 deals played in 0.9 s) is not
counted as people in the comparison and the export."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from tarot_env import challenge as C
from tarot_env.web import challenge_web
from tarot_env.web.challenge_web import ChallengeError, ChallengeService, HeldOutDeals, challenge_routes
from tarot_env.web.db import Store

FT4 = "french_tarot_v0_4p"


def play_out(service: ChallengeService, token: str, view: dict[str, Any]) -> dict[str, Any]:
    """The person passes at the bidding and plays the first move offered otherwise, to the deal's end."""
    while not view["over"]:
        moves = view["deal"]["moves"]
        action = next((m["action"] for m in moves if m["text"] == "pass"), moves[0]["action"])
        view = service.move({"token": token, "action": action})
    return service.state({"token": token})  # the comparison, once the agents' scores are known (the state waits)


def hands(deal: dict[str, Any]) -> tuple[frozenset[str], ...]:
    return tuple(frozenset(h) for h in deal["hands"])


def test_the_rooms_deals_are_its_own_and_stay_the_same_from_one_start_to_the_next(tmp_path: Path) -> None:
    service = ChallengeService(Store(str(tmp_path / "room.sqlite")), agents=())
    view = service.start({"name": "Ann"})
    assert (view["table"], view["deal_index"]) == (FT4, 0)
    held_out = service.deal_set()
    ((secret,),) = Store(str(tmp_path / "room.sqlite")).engine.connect().exec_driver_sql(
        "select value from challenge_secret where name = 'deals'"
    )
    assert len(secret) == 32 and held_out.id.startswith("held-out-") and secret not in held_out.id
    ours = [held_out(FT4, k) for k in range(5)]
    assert {c["name"] for c in view["deal"]["hand"]} == set(ours[0]["hands"][view["seat"]])  # the cards dealt are these
    committed = {hands(d) for d in json.loads((C.DEALS_DIR / f"{FT4}_v1.json").read_text())["deals"]}
    assert not any(hands(d) in committed for d in ours)  # none of the public deals
    # the same room started again (the same database): the same deals; another room: others
    again = ChallengeService(Store(str(tmp_path / "room.sqlite")), agents=())
    assert again.deal_set().id == held_out.id and again.deal_of(FT4, 3) == ours[3]
    other = ChallengeService(Store(str(tmp_path / "other.sqlite")), agents=())
    assert other.deal_set().id != held_out.id and hands(other.deal_of(FT4, 0)) != hands(ours[0])
    # every held-out deal is one the rule-based bots play (nobody throws it in), as in the committed baselines
    for deal in ours:
        assert any(a.startswith("play") for a in C.play_deal(FT4, 0, 0, C.baseline_agent("rules", FT4, 0, 0), deal)[1]["actions"])


def test_a_database_from_before_search_was_the_reference_calls_its_search_scores_pimc(tmp_path: Path) -> None:
    """Until 2026-12-07 the challenge's ``search`` was plain PIMC: a room's stored ``search`` scores from then are
    plain PIMC's and become ``pimc``'s when the room starts again, once; scores stored afterwards keep their names."""
    from sqlalchemy import delete, select

    from tarot_env.web.challenge_web import ChallengeStore, baselines, secret_table

    path = str(tmp_path / "room.sqlite")
    old = ChallengeStore(path)
    with old.engine.begin() as c:  # as the database was: no names row, a search score stored
        c.execute(delete(secret_table).where(secret_table.c.name == "agents"))
    old.save_baselines("held-out-x", FT4, 0, 1, {"rules": 5.0, "search": 40.0}, "a machine")
    # the export reads it without changing it, under the names of now
    assert ChallengeStore(path, create=False).baselines("held-out-x", FT4, 0, 1) == {"rules": 5.0, "pimc": 40.0}
    with old.engine.connect() as c:
        assert c.execute(select(baselines.c.agent).where(baselines.c.seat == 1)).scalars().all().count("search") == 1
    assert ChallengeStore(path).baselines("held-out-x", FT4, 0, 1) == {"rules": 5.0, "pimc": 40.0}  # the room's start renames
    again = ChallengeStore(path)
    again.save_baselines("held-out-x", FT4, 0, 2, {"search": 12.0}, "a machine")
    assert ChallengeStore(path).baselines("held-out-x", FT4, 0, 2) == {"search": 12.0}  # renamed once, not at every start
    assert ChallengeStore(path, create=False).baselines("held-out-x", FT4, 0, 2) == {"search": 12.0}
    with again.engine.connect() as c:
        assert c.execute(select(secret_table.c.value).where(secret_table.c.name == "agents")).scalar_one() == ",".join(C.AGENTS)
        assert c.execute(select(baselines.c.agent).where(baselines.c.seat == 1)).scalars().all().count("search") == 0
    assert ChallengeStore(str(tmp_path / "new.sqlite")).baselines("held-out-x", FT4, 0, 1) == {}


def test_the_agents_scores_are_computed_on_first_use_and_stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The four agents of the committed baselines, on the room's first deal, seat 0: computed once, while the
    person plays, stored with the machine, compared at the end, and not computed again for the next person."""
    played: list[str] = []
    real = C.play_deal
    store = Store(str(tmp_path / "room.sqlite"))
    service = ChallengeService(store, deals=1)

    def counted(table: str, index: int, seat: int, agent: Any, deal: Any = None) -> Any:
        if threading.current_thread() is service.computer.thread:  # this room's (an earlier test's room may still compute)
            played.append(f"seat {seat} {type(agent).__name__}")
        return real(table, index, seat, agent, deal)

    monkeypatch.setattr(C, "play_deal", counted)
    monkeypatch.setattr(challenge_web, "BASELINE_WAIT", 120.0)  # a busy machine: the state waits for them
    view = service.start({"name": "Ann"})
    end = play_out(service, view["token"], view)
    rows = list(store.engine.connect().exec_driver_sql("select deal_set, deal, seat, agent, score, machine from challenge_baselines"))
    assert sorted(r[3] for r in rows) == ["pimc", "rules", "search", "trained"] and len(played) == 4
    assert {(r[0], r[1], r[2]) for r in rows} == {(service.deal_set().id, 0, 0)} and all(r[5] == C.machine() for r in rows)
    scores = {r[3]: r[4] for r in rows}
    assert {n: a["score"] for n, a in end["comparison"]["agents"].items()} == scores
    assert any("the search agent" in line for line in end["lines"])
    deal = service.deal_of(FT4, 0)
    for name in ("rules", "trained"):  # the deterministic ones, played again
        assert real(FT4, 0, 0, C.baseline_agent(name, FT4, 0, 0), deal)[0] == scores[name]
    # the fifth person is in seat 0 again: the stored scores, nothing computed for seat 0 (the other seats' rule-based
    # scores are computed as their first person starts: only that agent here, the others take seconds)
    service.agents = ("rules",)
    for k in range(4):
        service.clock = lambda k=k: 1e6 + 61.0 * (k + 1)  # a minute apart: the bounds per address allow it
        view = service.start({"name": f"P{k}"})
    assert view["seat"] == 0
    end = play_out(service, view["token"], view)
    assert [p for p in played if p.startswith("seat 0")] == played[:4]  # seat 0's four, once
    assert end["comparison"]["agents"]["rules"]["score"] == scores["rules"]


def test_new_people_and_deals_are_bounded_per_address(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(challenge_web, "NEW_PEOPLE", ((2, 60.0), (3, 3600.0)))
    monkeypatch.setattr(challenge_web, "DEALS_STARTED", ((4, 60.0), (100, 3600.0)))
    store = Store(str(tmp_path / "room.sqlite"))
    service = ChallengeService(store, agents=())
    now = [1000.0]
    service.clock = lambda: now[0]
    ann = service.start({"name": "Ann"}, "203.0.113.5")
    service.start({}, "203.0.113.5")  # a guest
    with pytest.raises(ChallengeError, match="too many new people from your address: at most 2 a minute; try again in 60 s") as err:
        service.start({"name": "Cleo"}, "203.0.113.5")
    assert err.value.status == 429
    assert service.start({"name": "Cleo"}, "198.51.100.7")["name"] == "Cleo"  # another address is not held up
    now[0] += 61.0
    service.start({"name": "Dan"}, "203.0.113.5")  # a minute later: the minute's bound is free again
    with pytest.raises(ChallengeError, match=r"at most 3 an hour; try again in 59 min"):
        service.start({"name": "Eve"}, "203.0.113.5")
    names = [r[0] for r in store.engine.connect().exec_driver_sql("select name from users")]
    assert "Eve" not in names and len(names) == 4  # a refused start made nobody
    # deals: a script that starts deal after deal (here by changing tables, which leaves each unfinished)
    for table in ("ottocento_v0", FT4, "ottocento_v0"):
        service.start({"token": ann["token"], "table": table}, "203.0.113.5")
    with pytest.raises(ChallengeError, match="too many challenge deals started from your address: at most 4 a minute") as err:
        service.start({"token": ann["token"], "table": FT4}, "203.0.113.5")
    assert err.value.status == 429
    assert service.start({"token": ann["token"]}, "203.0.113.5")["table"] == "ottocento_v0"  # the deal in progress: not a new one


def test_a_flood_on_the_wire_is_answered_429_in_words(tmp_path: Path) -> None:
    """A flood of 150 new people from one address: the first few (a minute's bound) are made, the others refused in JSON."""
    client = TestClient(Starlette(routes=challenge_routes(Store(str(tmp_path / "db.sqlite")), agents=())))
    answers = [client.post("/api/challenge/start", json={}) for _ in range(150)]
    assert [r.status_code for r in answers].count(200) == challenge_web.NEW_PEOPLE[0][0]
    refused = [r for r in answers if r.status_code != 200]
    assert {r.status_code for r in refused} == {429}
    assert all("too many new people from your address" in r.json()["error"] and "try again in" in r.json()["error"] for r in refused)


def test_held_out_deals_are_drawn_from_the_secret_alone() -> None:
    a, b = HeldOutDeals("one secret"), HeldOutDeals("one secret")
    assert a("ottocento_v0", 2) == b("ottocento_v0", 2) and a.id == b.id
    assert HeldOutDeals("another")("ottocento_v0", 2) != a("ottocento_v0", 2)


def test_a_deal_that_ends_before_its_baselines_says_so_and_the_next_state_has_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    real = C.play_deal

    def held(*args: Any) -> Any:
        release.wait(30)  # the agents are still playing when the person's deal ends
        return real(*args)

    monkeypatch.setattr(C, "play_deal", held)
    monkeypatch.setattr(challenge_web, "BASELINE_WAIT", 0.05)
    service = ChallengeService(Store(str(tmp_path / "room.sqlite")), agents=("rules",))
    view = service.start({"name": "Ann"})
    end = play_out(service, view["token"], view)  # the last move's answer, then a state that waited 0.05 s
    assert end["over"] and end["comparison"] is None and "still being computed" in end["lines"][0]
    release.set()
    monkeypatch.setattr(challenge_web, "BASELINE_WAIT", 30.0)
    again = service.state({"token": view["token"]})
    assert (
        again["comparison"]["agents"]["rules"]["score"]
        == real(FT4, 0, view["seat"], C.baseline_agent("rules", FT4, 0, 0), service.deal_of(FT4, 0))[0]
    )


def test_a_rooms_database_from_before_keeps_its_results_apart(tmp_path: Path) -> None:
    """A room whose challenge was played on the committed deals: its results get the column of their set (none),
    are exported as before, and are neither compared with the held-out deals' nor count as them started."""
    import sqlite3

    db = tmp_path / "room.sqlite"
    Store(str(db))
    con = sqlite3.connect(db)
    con.execute(
        "create table challenge_results (id integer primary key, user_id integer not null, player varchar(32) not null, "
        "table_name varchar(40) not null, deal integer not null, seat integer not null, score float, record text, "
        "started varchar(32) not null, finished varchar(32))"
    )
    record = json.dumps({"env": "french_tarot_v0", "deal": {}, "actions": []})
    con.execute("insert into challenge_results values (1, 1, 'p', ?, 0, 0, 12.0, ?, 'then', 'then')", (FT4, record))
    con.commit()
    service = ChallengeService(Store(str(db)), agents=())
    assert service.results.scores(FT4, 0, 0, but=-1, deal_set=service.deal_set().id) == []
    assert service.results.scores(FT4, 0, 0, but=-1) == [12.0]
    (row,) = list(service.results.dataset())
    assert row["score"] == 12.0 and "deal_set" not in row
    view = service.start({"name": "Ann"})
    assert (view["deal_index"], view["seat"]) == (0, 0)  # the old row neither took the seat nor the deal


def test_a_stopped_room_computes_no_more_baselines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The room's shutdown (``create_app``'s lifespan) closes the challenge: the baselines being computed are given
    up before their next agent (a search agent's deal takes seconds), queued ones are cancelled, nothing partial is
    stored, and the baselines' thread ends. Before, a stopped room's thread played on, a test's room into the next."""
    service = ChallengeService(Store(str(tmp_path / "room.sqlite")), agents=("rules", "trained"))
    played: list[str] = []
    real = C.play_deal

    def stopping(table: str, index: int, seat: int, agent: Any, deal: Any = None) -> Any:
        if threading.current_thread() is service.computer.thread:
            played.append(type(agent).__name__)
            service.close()  # the room stops while the first agent plays
        return real(table, index, seat, agent, deal)

    monkeypatch.setattr(C, "play_deal", stopping)
    assert service.baselines_of(FT4, 0, 0, wait=60.0) is None  # given up: said as "not known"
    assert played == ["FrenchRuleAgent"]  # the trained agent never played
    assert service.results.baselines(service.deal_set().id, FT4, 0, 0) == {}  # nothing partial stored
    assert service.baselines_of(FT4, 1, 0, wait=5.0) is None and played == ["FrenchRuleAgent"]  # nothing new computed
    assert service.computer.thread is not None
    service.computer.thread.join(5.0)
    assert not service.computer.thread.is_alive()


def test_the_rooms_shutdown_closes_its_challenge(tmp_path: Path) -> None:
    from tarot_env.web.app import create_app

    app = create_app(str(tmp_path / "room.sqlite"), records_dir=tmp_path / "records", challenge_agents=())
    with TestClient(app) as client:
        assert client.post("/api/challenge/start", json={"name": "Ann"}).status_code == 200
        assert not app.state.challenge.computer.closed
    assert app.state.challenge.computer.closed
