"""A load test of the room (issue 30): many raw WebSocket clients on a loopback ``tarot serve``-like server,
tables with robots playing, and one client that says hello, watches a table in play and never reads its
socket. Every other client asks the leaderboard about once a second and the time to its answer is kept.

    .venv/bin/python tests/load_room.py --connections 200 --tables 50     # the issue's figures, by hand

tests/test_web_load.py runs it smaller in the suite. Prints one JSON object of the figures."""

from __future__ import annotations

import argparse
import asyncio
import base64
import gc
import json
import os
import resource
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from helpers_web import LiveServer
from websockets.asyncio.client import connect

from tarot_env.web.app import Limits, warm_kernels
from tarot_env.web.room import Room


def rss_mb() -> float:
    """The process's resident memory now (MB), from /proc (ru_maxrss is the peak)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def non_reader(port: int, table: int) -> socket.socket:
    """A raw socket that shakes hands, says hello, watches ``table`` and never reads again (a small
    receive buffer, so that the server's messages pile up on its side)."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(
        (
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    for message in ({"type": "hello", "name": "Sleeper"}, {"type": "watch", "table": table}):
        s.sendall(_frame(json.dumps(message).encode()))
    return s


def _frame(payload: bytes) -> bytes:
    """One masked text frame (a client's frames are masked)."""
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big"))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def player(url: str, k: int, deals: int, ready: asyncio.Event, done: list[int]) -> None:
    """A person who creates a French Tarot table for four with three robots, starts it and plays his
    first legal move at each turn, until the game is over."""
    async with connect(url, max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "name": f"Player {k}"}))
        await ws.send(json.dumps({"type": "create", "env": "french_tarot_v0", "players": 4}))
        for p in range(1, 4):
            await ws.send(json.dumps({"type": "robot", "seat": p, "robot": "rules"}))
        await ws.send(json.dumps({"type": "settings", "changes": {"deals": deals}}))
        await ws.send(json.dumps({"type": "start"}))
        started = False
        async for text in ws:
            m = json.loads(text)
            if m["type"] == "ping":
                await ws.send('{"type": "pong"}')
            if m["type"] != "table":
                continue
            t = m["table"]
            if t["state"] == "playing" and not started:
                started = True
                ready.set()
            if t["state"] == "over" and t["game_no"] >= 1:
                done.append(k)
                return
            d = t.get("deal") or {}
            if t["turn"] == t["you"] and d.get("moves"):
                await ws.send(json.dumps({"type": "move", "action": d["moves"][0]["action"]}))


async def prober(url: str, k: int, stop: asyncio.Event, waits: list[float], watch: int | None) -> None:
    """A person in the lobby (or watching ``watch``) who asks the leaderboard about once a second and
    keeps the time to each answer."""
    async with connect(url, max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "name": f"Probe {k}"}))
        if watch is not None:
            await ws.send(json.dumps({"type": "watch", "table": watch}))
        await asyncio.sleep((k % 10) / 10)
        while not stop.is_set():
            sent = time.monotonic()
            await ws.send('{"type": "leaderboard"}')
            while True:
                m = json.loads(await ws.recv())
                if m["type"] == "ping":
                    await ws.send('{"type": "pong"}')
                if m["type"] in ("leaderboard", "error"):
                    break
            waits.append(time.monotonic() - sent)
            await asyncio.sleep(1.0)


async def one_round(url: str, port: int, connections: int, tables: int, deals: int, first_table: int) -> dict[str, Any]:
    ready, stop = asyncio.Event(), asyncio.Event()
    done: list[int] = []
    waits: list[float] = []
    players = [asyncio.create_task(player(url, first_table + k, deals, ready, done)) for k in range(tables)]
    await asyncio.wait_for(ready.wait(), 60)
    sleeper = non_reader(port, first_table)
    probes = [
        asyncio.create_task(prober(url, k, stop, waits, first_table + k % tables if k % 2 else None))
        for k in range(connections - tables - 1)
    ]
    start = time.monotonic()
    await asyncio.wait_for(asyncio.gather(*players), 600)
    stop.set()
    await asyncio.gather(*probes)
    sleeper.close()
    waits.sort()
    return {
        "seconds": round(time.monotonic() - start, 1),
        "games_over": len(done),
        "answers": len(waits),
        "wait_median_s": round(waits[len(waits) // 2], 3),
        "wait_p99_s": round(waits[int(len(waits) * 0.99)], 3),
        "wait_max_s": round(waits[-1], 3),
    }


async def main_async(live: LiveServer, connections: int, tables: int, deals: int, rounds: int) -> dict[str, Any]:
    out: dict[str, Any] = {"connections": connections, "tables": tables, "deals": deals, "rss_start_mb": round(rss_mb(), 1)}
    server = live.app.state.server
    for r in range(rounds):
        figures = await one_round(live.ws_url, live.port, connections, tables, deals, 1 + r * tables)
        deadline = time.monotonic() + 60
        while (server.room.tables or server.clients) and time.monotonic() < deadline:
            await asyncio.sleep(0.2)  # the tables close once idle; the connections end
        gc.collect()
        figures["tables_left"] = len(server.room.tables)
        figures["clients_left"] = len(server.clients)
        figures["sleeper_dropped"] = not any(c.user is not None and c.user.name == "Sleeper" for c in server.clients)
        figures["rss_after_mb"] = round(rss_mb(), 1)
        out[f"round{r + 1}"] = figures
    out["rss_peak_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return out


def run(connections: int, tables: int, deals: int = 1, rounds: int = 2, robot_delay: float = 0.05) -> dict[str, Any]:
    """Serve a room on loopback and load it; the figures."""
    limits = Limits(
        out_queue=64, per_address=connections + 10, max_connections=connections + 10, max_tables=tables + 10,
        creates_per_minute=60.0 * tables, create_burst=float(tables), address_messages_per_second=100.0 * connections,
        address_message_burst=100.0 * connections, table_idle=1.0, lobby_every=0.5,
    )  # fmt: skip
    warm_kernels(["french_tarot_v0"])  # as tarot serve does at start-up (create_app(warm=True))
    with tempfile.TemporaryDirectory() as tmp:
        room = Room(robot_delay=robot_delay, pause=0.5, reconnect_window=2.0)
        with LiveServer(Path(tmp), room=room, heartbeat=1.0, silence=5.0, limits=limits) as live:
            return asyncio.run(main_async(live, connections, tables, deals, rounds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--deals", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print(json.dumps(run(args.connections, args.tables, args.deals, args.rounds), indent=1))


if __name__ == "__main__":
    main()
