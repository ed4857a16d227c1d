"""Memory flat after the tables close. The room lets go of the people nothing holds
any more (no connection, no seat), and once tables or connections have gone it gives their memory back
to the system (their cyclic garbage collected, glibc's free pages returned: tarot_env/web/memory.py).
The load test's figures, 200 connections and 50 tables a round, are in docs/web.md ("Load")."""

from __future__ import annotations

import ctypes.util
import gc
import json
import platform
import time
from pathlib import Path
from typing import Any

from helpers_web import app_for, hello, open_table, receive_until
from starlette.testclient import TestClient

from tarot_env.web import memory
from tarot_env.web import workers as workers_module
from tarot_env.web.app import Limits


def _app(tmp_path: Path, **limits: Any) -> Any:
    return app_for(tmp_path, limits=Limits(**limits))


def _wait(pred: Any, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not pred():
        assert time.monotonic() < deadline, "not within the time"
        time.sleep(0.02)


def test_a_person_nothing_holds_is_let_go_and_read_back_whole(tmp_path: Path) -> None:
    app = _app(tmp_path, table_idle=0.3)
    server = app.state.server
    with TestClient(app) as client:
        with client.websocket_connect("/ws") as ann:
            token = hello(ann, "Ann")["token"]
            ann_id = next(iter(server.users))
            assert server.users[ann_id].name == "Ann"
        _wait(lambda: not server.clients)
        assert ann_id not in server.users  # gone, and no seat holds her: let go
        with client.websocket_connect("/ws") as bob:
            hello(bob, "Bob")
            open_table(bob, "french_tarot_v0", 4, "rules")
            bob_id = next(u.id for u in server.users.values() if u.name == "Bob")
        _wait(lambda: not server.clients)
        assert bob_id in server.users  # his seat holds him while the table waits for him
        server.users[bob_id].chips += 5  # as a game's end would, in memory ...
        server.store.save_user(server.users[bob_id])  # ... and in the database
        _wait(lambda: not server.room.tables)  # his table, idle, closes
        assert bob_id not in server.users
        with client.websocket_connect("/ws") as ann_again:
            ann_again.send_text(json.dumps({"type": "hello", "token": token}))
            welcome = receive_until(ann_again, lambda m: m["type"] == "welcome")
            assert welcome["user"]["name"] == "Ann" and server.users[ann_id].name == "Ann"  # read back from the database
            with client.websocket_connect("/ws") as second_tab:
                second_tab.send_text(json.dumps({"type": "hello", "token": token}))
                receive_until(second_tab, lambda m: m["type"] == "welcome")
                mine = [c.user for c in server.clients]
                assert len(mine) == 2 and mine[0] is mine[1]  # one object for one person, whichever tab


def test_memory_is_given_back_after_tables_close_and_not_more_often_than_the_limit(tmp_path: Path, monkeypatch: Any) -> None:
    calls: list[float] = []
    monkeypatch.setattr(workers_module, "give_back", lambda: calls.append(time.monotonic()) or 0)
    app = _app(tmp_path, table_idle=0.3, trim_every=0.5)
    server = app.state.server
    with TestClient(app) as client:
        with client.websocket_connect("/ws") as ann:
            hello(ann, "Ann")
            open_table(ann, "french_tarot_v0", 3, "rules")
            time.sleep(0.8)
            assert calls == [] and server.workers.trims == 0  # nothing has gone yet: nothing to give back
            ann.send_text(json.dumps({"type": "leave"}))
            _wait(lambda: not server.room.tables)
            _wait(lambda: len(calls) == 1)
            time.sleep(1.0)
            assert len(calls) == 1  # once, for what went: not at every tick
        _wait(lambda: len(calls) == 2)  # her connection ended: once more
    assert calls[1] - calls[0] >= 0.5  # never closer than trim_every


def test_give_back_collects_the_cycles_and_trims_where_the_c_library_can() -> None:
    class Node:
        def __init__(self) -> None:
            self.me = self

    gc.collect()
    for _ in range(100):
        Node()  # unreachable but for its own cycle: only a collection frees it
    assert memory.give_back() >= 100
    glibc = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc" and ctypes.util.find_library("c") is not None
    assert memory.trim() is glibc
