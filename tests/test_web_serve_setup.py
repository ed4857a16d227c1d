"""What ``tarot serve`` sets up before the room opens (starting the room: tests/test_web_serve.py):
forwarded headers trusted only from the proxies named with ``--trusted-proxy``, the database made where
asked (its folder too), and one line, never a traceback, when the port is in use or the database
cannot be opened."""

from __future__ import annotations

import json
import socket
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from tarot_env.command import build_parser
from tarot_env.web.app import create_app


def _serve_config(tmp_path: Path, monkeypatch: Any, extra: list[str]) -> uvicorn.Config:
    """The uvicorn config ``tarot serve`` builds (its server's run is caught, not started)."""
    from tarot_env.web import serve

    seen: dict[str, Any] = {}

    def caught(self: uvicorn.Server, sockets: Any = None) -> None:
        seen["config"] = self.config
        for s in sockets or []:
            s.close()

    monkeypatch.setattr(uvicorn.Server, "run", caught)
    args = build_parser().parse_args(["serve", "--port", "0", "--db", str(tmp_path / "r.sqlite"), *extra])
    serve.run(args)
    return seen["config"]


def _address_seen(config: uvicorn.Config, forwarded: str) -> str | None:
    """Serve ``config``'s app on loopback and connect with ``X-Forwarded-For: forwarded``: the address the room sees."""
    from websockets.sync.client import connect

    config.port = 0
    server = uvicorn.Server(config)
    server.config.host = "127.0.0.1"
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        with connect(f"ws://127.0.0.1:{port}/ws", additional_headers={"X-Forwarded-For": forwarded}) as ws:
            ws.send(json.dumps({"type": "hello", "name": "Ann"}))
            json.loads(ws.recv(timeout=10))
            clients = config.app.state.server.clients  # type: ignore[union-attr]
            return clients[0].address
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_forwarded_headers_are_trusted_only_from_the_proxies_named(tmp_path: Path, monkeypatch: Any) -> None:
    """uvicorn trusts X-Forwarded-For from 127.0.0.1 by default: anyone on the machine (or behind any
    local proxy) would choose the address the same-address rule compares. ``tarot serve`` trusts only
    the proxies named with ``--trusted-proxy``."""
    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
    plain = _serve_config(tmp_path, monkeypatch, [])
    monkeypatch.undo()
    assert _address_seen(plain, "203.0.113.9") == "127.0.0.1"
    proxied = _serve_config(tmp_path, monkeypatch, ["--trusted-proxy", "127.0.0.1"])
    monkeypatch.undo()
    assert _address_seen(proxied, "203.0.113.9") == "203.0.113.9"


def test_tarot_serve_on_a_port_in_use_says_so_in_one_line(tmp_path: Path, capsys: Any) -> None:
    from tarot_env.web.serve import run

    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    port = busy.getsockname()[1]
    args = build_parser().parse_args(["serve", "--port", str(port), "--db", str(tmp_path / "x.sqlite")])
    try:
        with pytest.raises(SystemExit) as err:
            run(args)
    finally:
        busy.close()
    text = str(err.value.code)
    assert f"port {port}" in text and "in use" in text and "\n" not in text


def test_the_database_is_made_where_asked_even_in_a_new_folder(tmp_path: Path) -> None:
    """``tarot serve --db runs/room.sqlite`` (the help's example) makes runs/ when it does not exist."""
    path = tmp_path / "runs" / "room.sqlite"
    create_app(str(path))
    assert path.is_file()
    assert sqlite3.connect(path).execute("select count(*) from users").fetchone() == (0,)


def test_tarot_serve_says_in_one_line_when_the_database_cannot_be_opened(tmp_path: Path) -> None:
    from tarot_env.web.serve import run

    (tmp_path / "afile").write_text("not a folder")
    args = build_parser().parse_args(["serve", "--port", "0", "--db", str(tmp_path / "afile" / "x.sqlite")])
    with pytest.raises(SystemExit) as err:
        run(args)
    text = str(err.value.code)
    assert text.startswith("tarot serve: cannot open the database") and "afile" in text and "\n" not in text
