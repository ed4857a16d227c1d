"""Who a new person is. One name check (``tarot_env.web.people.check_name``: NFKC, case folding,
look-alike letters and digits read as the Latin letters they pass for) on every path that makes a person:
the room's hello (the *Play now* button's), the challenge's start and the database. A challenge started
without a name gets a guest name nobody has, a taken name is a 409 that names it, and the challenge's page
shows the server's words, never a JSON parse error."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers_web import app_for, hello
from starlette.testclient import TestClient

from tarot_env.web.db import Store
from tarot_env.web.people import RoomError, check_name, name_skeleton

STATIC = Path(__file__).resolve().parent.parent / "tarot_env" / "web" / "static"

#: names that pass for a robot ("robot 1 (rules)" is how the page shows one) or are decorated with a
#: symbol (★ marks a table's owner): the first two were refused before, the others got through
REFUSED = [
    "robot 1 (rules)",
    "★Alice",
    "robot1 (rules)",
    "robot_1 (rules)",
    "Rоbot 1 (rules)",  # a Cyrillic о
    "r0bot 1",
    "Ｒobot 1",  # a full-width R
    "⭑Alice",
    "✦Alice",
    "R.o-b_o t",
    "b0t",
]
ORDINARY = ["Zoé", "Jean-Luc", "Anna 2", "O'Brien", "Abbott", "Talbot", "<b>Bob</b>"]


def hello_answer(ws: Any, name: str) -> dict[str, Any]:
    ws.send_text(json.dumps({"type": "hello", "name": name}))
    return json.loads(ws.receive_text())


@pytest.mark.parametrize("name", REFUSED)
def test_robot_like_and_decorated_names_are_refused_on_every_path(tmp_path: Path, name: str) -> None:
    """The same refusal, saying what was given, why and what is allowed, from the check, the room's hello,
    the challenge's start and the database; nobody is made."""
    with pytest.raises(RoomError) as err:
        check_name(name)
    words = str(err.value)
    assert repr(name) in words and "reserved" in words, words  # what was given, and why
    assert ("a name has letters, digits" in words) or ("choose another name" in words), words  # what is allowed
    app = app_for(tmp_path)
    with TestClient(app) as client:
        with client.websocket_connect("/ws") as ws:
            m = hello_answer(ws, name)
            assert m["type"] == "error" and "reserved" in m["message"] and repr(name) in m["message"], m
        r = client.post("/api/challenge/start", json={"name": name})
        assert r.status_code == 400 and "reserved" in r.json()["error"] and repr(name) in r.json()["error"], r.text
        store = app.state.server.store
        with pytest.raises(RoomError, match="reserved"):
            store.new_user(name)
        with store.engine.connect() as c:
            assert c.exec_driver_sql("select count(*) from users").scalar() == 0  # nobody was made


@pytest.mark.parametrize("name", ORDINARY)
def test_ordinary_names_are_still_welcome(tmp_path: Path, name: str) -> None:
    assert check_name(f"  {name} ") == name
    with TestClient(app_for(tmp_path)) as client:
        with client.websocket_connect("/ws") as ws:
            assert hello(ws, name)["user"]["name"] == name
        r = client.post("/api/challenge/start", json={"name": name.upper() + "x"})
        assert r.status_code == 200 and r.json()["name"] == name.upper() + "x", r.text


def test_the_skeleton_reads_look_alikes_as_latin_letters() -> None:
    assert {name_skeleton(n) for n in ("Rоbot", "Ｒobot", "r0b0t", "R.o-b_o t", "ROBOT", "Rοbοt")} == {"robot"}
    assert name_skeleton("Zoé 2") == "zoez"


@pytest.mark.parametrize("taken", ["ALICE", "Ａlice"])
def test_a_taken_name_in_another_spelling_is_refused_naming_it(tmp_path: Path, taken: str) -> None:
    with TestClient(app_for(tmp_path)) as client:
        with client.websocket_connect("/ws") as a, client.websocket_connect("/ws") as b:
            hello(a, "Alice")
            m = hello_answer(b, taken)
            assert m["type"] == "error" and "taken" in m["message"] and "'Alice'" in m["message"], m
        r = client.post("/api/challenge/start", json={"name": taken})
        assert r.status_code == 409 and "taken" in r.json()["error"] and "'Alice'" in r.json()["error"], r.text


# ------------------------------------------------------------------------------ the challenge's new visitors
def test_a_new_visitor_plays_the_challenge_without_typing_a_name(tmp_path: Path) -> None:
    """The page sent "guest" when nothing was typed: the second visitor got a 500 (the database's refusal
    was not caught) that the page showed as a JSON parse error. No name (or a blank one) is now a guest
    with a name nobody has; a name typed and taken is a 409 that names it, in JSON."""
    with TestClient(app_for(tmp_path)) as client:
        views = [client.post("/api/challenge/start", json=body) for body in ({}, {"name": ""}, {"name": "   "})]
        assert [r.status_code for r in views] == [200, 200, 200], [r.text for r in views]
        names = [r.json()["name"] for r in views]
        assert all(n.startswith("Guest ") for n in names) and len(set(names)) == 3, names
        assert len({r.json()["token"] for r in views}) == 3
        first = client.post("/api/challenge/start", json={"name": "guest"})
        assert first.status_code == 200, first.text
        again = client.post("/api/challenge/start", json={"name": "guest"})
        assert again.status_code == 409, again.text
        error = again.json()["error"]
        assert "'guest' is taken" in error and "leave the name empty" in error, error
        # a move or a state never makes a person: a missing token is still refused
        assert client.post("/api/challenge/state", json={"token": ""}).status_code == 403


def test_a_fault_of_the_challenges_server_is_answered_in_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = app_for(tmp_path)

    def broken(*args: Any) -> Any:
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(Store, "new_user", broken)
    with TestClient(app, raise_server_exceptions=False) as client:
        r = client.post("/api/challenge/start", json={"name": "Ann"})
    assert r.status_code == 500 and r.json() == {"error": "the server failed to answer this start; try again", "about": "start"}


NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="needs Node.js to run the page's answer.js")
def test_the_challenge_page_shows_the_servers_words_never_a_parse_error(tmp_path: Path) -> None:
    """The page's reading of an answer (static/answer.js, which challenge.js calls for every request) run
    in Node: a refusal's JSON error as it is, a non-JSON 500 as its status and text, an answer as its JSON."""
    (tmp_path / "answer.mjs").write_text((STATIC / "answer.js").read_text())
    script = """
import { answerOf } from "./answer.mjs";
const said = async (response) => {
  try { return await answerOf(response); } catch (err) { return { message: err.message, status: err.status }; }
};
const out = [
  await said(new Response("Internal Server Error", { status: 500, statusText: "Internal Server Error" })),
  await said(new Response(JSON.stringify({ error: "start: the name 'guest' is taken" }), { status: 409 })),
  await said(new Response("<html>bad gateway</html>", { status: 502 })),
  await said(new Response("", { status: 503 })),
  await said(new Response(JSON.stringify({ seat: 1 }), { status: 200 })),
  await said(new Response("not json", { status: 200 })),
];
console.log(JSON.stringify(out));
"""
    (tmp_path / "run.mjs").write_text(script)
    done = subprocess.run([NODE, str(tmp_path / "run.mjs")], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    plain, refused, proxy, empty, answer, garbled = json.loads(done.stdout)
    assert plain == {"message": "the server answered 500 Internal Server Error: Internal Server Error", "status": 500}
    assert refused == {"message": "start: the name 'guest' is taken", "status": 409}
    assert proxy["message"] == "the server answered 502: <html>bad gateway</html>"
    assert empty["message"] == "the server answered 503 with nothing"
    assert answer == {"seat": 1}
    assert garbled["message"] == "the server answered 200: not json"
    assert not any("JSON" in m.get("message", "") for m in (plain, refused, proxy, empty, garbled))
    page = (STATIC / "challenge.js").read_text()
    assert 'from "./answer.js"' in page and ".json()" not in page  # every request of the page is read by answerOf
    assert '|| "guest"' not in page  # no name typed: the server gives a guest name


# ------------------------------------------------------------------------------ the room's Play now
def test_play_now_gets_a_guest_name_nobody_has(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """*Play now* drew "Guest 1000-9999" in the page and said hello with it: a number already drawn was
    refused as taken, and a returning person's token was renamed to it. The page now says hello without a
    name unless one was typed, and the server draws a guest name nobody has (even when its draw collides)."""
    page = (STATIC / "table.js").read_text()
    play_now = page[page.index("function playNow()") : page.index("function quickStep(")]
    assert "Math.random" not in play_now and "Guest" not in play_now, play_now
    assert "...(typed ? { name: typed } : {})" in play_now
    import tarot_env.web.db as db

    draws = iter([1234, 1234, 1234, 5678])
    monkeypatch.setattr(db.secrets, "randbelow", lambda n: next(draws))
    with TestClient(app_for(tmp_path)) as client, client.websocket_connect("/ws") as a, client.websocket_connect("/ws") as b:
        a.send_text(json.dumps({"type": "hello"}))
        first = json.loads(a.receive_text())
        b.send_text(json.dumps({"type": "hello"}))
        second = json.loads(b.receive_text())
    assert (first["user"]["name"], second["user"]["name"]) == ("Guest 1234", "Guest 5678")
