"""``tarot serve``: the command starts the room on localhost with the database it is given."""

from __future__ import annotations

import argparse
import re
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tarot_env.command import build_parser


def test_serve_is_a_subcommand_with_localhost_by_default() -> None:
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.db) == ("127.0.0.1", 8000, "runs/tarot_web.sqlite")
    args = build_parser().parse_args(["serve", "--port", "8123", "--db", "x.sqlite"])
    assert (args.port, args.db) == (8123, "x.sqlite")


def test_tarot_serve_serves_the_page_and_makes_the_database(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = tmp_path / "room.sqlite"
    cmd = [sys.executable, "-m", "tarot_env.command", "serve", "--port", str(port), "--db", str(db), "--records", str(tmp_path / "rec")]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
                    page = r.read().decode()
                break
            except OSError:
                assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
                assert time.monotonic() < deadline, "tarot serve did not answer"
                time.sleep(0.2)
        assert "<title>Tarot room" in page and "/static/table.js" in page
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/static/table.js", timeout=5) as r:
            assert "textContent" in r.read().decode()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/leaderboard", timeout=5) as r:
            assert r.read() == b"[]"
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    tables = {row[0] for row in sqlite3.connect(db).execute("select name from sqlite_master where type='table'")}
    assert {"users", "tables", "games", "game_players", "records"} <= tables


def test_create_app_warms_the_kernels_in_a_thread_at_start_up_only_when_asked(tmp_path: Path, monkeypatch: Any) -> None:
    """``create_app(warm=True)`` (what ``tarot serve`` asks) starts warm_kernels, then warm_agents (the trained
    robot's modules: PyTorch), in a thread of its own when the app starts; without it nothing is warmed."""
    from starlette.testclient import TestClient

    from tarot_env.web import app as web_app

    calls: list[tuple[Any, str]] = []
    warmed = threading.Event()

    def warm(env_ids: Any = None) -> None:
        calls.append((env_ids, threading.current_thread().name))

    def agents() -> None:
        calls.append(("agents", threading.current_thread().name))
        warmed.set()

    monkeypatch.setattr(web_app, "warm_kernels", warm)
    monkeypatch.setattr(web_app, "warm_agents", agents)
    with TestClient(web_app.create_app(str(tmp_path / "cold.sqlite"))):
        pass
    assert calls == []
    with TestClient(web_app.create_app(str(tmp_path / "warm.sqlite"), warm=True)):
        assert warmed.wait(30), "warm_kernels was not called"
    assert calls == [(None, "tarot-warm"), ("agents", "tarot-warm")]  # every game, then the agents, in a thread of their own


def test_tarot_serve_asks_for_the_warm_up(tmp_path: Path, monkeypatch: Any) -> None:
    import uvicorn

    from tarot_env.web import app as web_app
    from tarot_env.web import serve

    asked: list[dict[str, Any]] = []
    real = web_app.create_app

    def create_app(*args: Any, **kwargs: Any) -> Any:
        asked.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(web_app, "create_app", create_app)
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)  # served at once and stopped
    args = build_parser().parse_args(["serve", "--port", "0", "--db", str(tmp_path / "room.sqlite")])
    assert serve.run(args) == 0
    assert len(asked) == 1 and asked[0]["warm"] is True


def serve_parser() -> argparse.ArgumentParser:
    (sub,) = (a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["serve"]


def test_robot_timeout_is_the_rooms_default_and_reaches_the_room(tmp_path: Path, monkeypatch: Any) -> None:
    """``--robot-timeout`` sets ``Room(robot_timeout=...)``; without it the room's default."""
    import uvicorn

    from tarot_env.web import app as web_app
    from tarot_env.web import serve
    from tarot_env.web.robots import ROBOT_TIMEOUT

    assert build_parser().parse_args(["serve"]).robot_timeout == ROBOT_TIMEOUT
    rooms: list[Any] = []
    real = web_app.create_app

    def create_app(*args: Any, **kwargs: Any) -> Any:
        rooms.append(kwargs["room"])
        return real(*args, **kwargs)

    monkeypatch.setattr(web_app, "create_app", create_app)
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)  # served at once and stopped
    args = build_parser().parse_args(["serve", "--port", "0", "--db", str(tmp_path / "room.sqlite"), "--robot-timeout", "2.5"])
    assert serve.run(args) == 0
    assert [room.robot_timeout for room in rooms] == [2.5]


@pytest.mark.parametrize("value", ["0", "-1", "abc", "nan", "inf", ""])
def test_robot_timeout_not_a_positive_number_is_refused_in_one_line(value: str, capsys: Any) -> None:
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["serve", "--robot-timeout", value])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("tarot serve: error: argument --robot-timeout:"), err
    assert f"{value!r} refused: give a number of seconds above 0" in err, err


def test_every_serve_flag_is_in_the_flag_table_of_docs_web() -> None:
    """docs/web.md's table under "Running it" lists each of ``tarot serve``'s flags with its default."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "web.md").read_text()
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `(--[\w-]+)` \| `?([^`|]*?)`? \|", text, re.M)}
    for action in serve_parser()._actions:
        flag = next((s for s in action.option_strings if s.startswith("--")), None)
        if flag is None or flag == "--help":
            continue
        assert flag in rows, f"docs/web.md: no row for tarot serve {flag}"
        if action.default is not None:
            default = f"{action.default:g}" if isinstance(action.default, float) else str(action.default)
            assert rows[flag] == default, (flag, rows[flag], default)
