"""A load test of the room (issue 30): many raw WebSocket clients on a loopback ``tarot serve``-like server,
tables with robots playing, and clients that never read their socket (``--non-readers``, 3 by default:
they say hello and watch a table in play, and every other one also asks for the lobby five times a
second). Every other client asks the leaderboard about once a second and the time to its answer is kept.

The server runs in a process of its own (uvicorn in a thread there, as ``tarot serve``), the clients in this
one: a browser is another program, and clients sharing the server's GIL would measure their own delays.
A client the server drops (its queue overflowed, or it was silent) is counted, not waited on. Once the
server has dropped the non-readers, and before they close their own sockets, the script reads the server's
side of their connections (issue 41): each one's TCP state from /proc/net/tcp ("gone": the server's socket
is closed and released; ESTABLISHED or FIN_WAIT1 with data queued: it is still held), how many of them
the server still holds a descriptor for, and the server's open descriptors (/proc/PID/fd).

    .venv/bin/python tests/load_room.py --connections 200 --tables 50     # the issue's figures, by hand

tests/test_web_load.py runs it smaller in the suite. Prints one JSON object of the figures."""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import logging
import multiprocessing
import os
import socket
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

ROUND_TIMEOUT = 600.0  # seconds a round's players have to see their games over
ROUND_START = [0.0]  # when the round's players started (time.monotonic())
SLOW: list[tuple[float, float]] = []  # (seconds into the round when asked, seconds to the answer) of answers over 1 s


#: the kernel's TCP states, as /proc/net/tcp numbers them
TCP_STATES = {
    1: "ESTABLISHED", 2: "SYN_SENT", 3: "SYN_RECV", 4: "FIN_WAIT1", 5: "FIN_WAIT2", 6: "TIME_WAIT",
    7: "CLOSE", 8: "CLOSE_WAIT", 9: "LAST_ACK", 10: "LISTEN", 11: "CLOSING",
}  # fmt: skip


def tcp_sockets(port: int) -> dict[int, tuple[str, int, int]]:
    """The sockets of this machine whose local port is ``port`` (a server's side of its connections), by the
    peer's port: (TCP state, bytes queued to send, inode; 0 once no process holds it), from /proc/net/tcp
    and tcp6 (Linux; empty elsewhere)."""
    out: dict[int, tuple[str, int, int]] = {}
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name) as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            field = line.split()
            local, peer = int(field[1].rsplit(":", 1)[1], 16), int(field[2].rsplit(":", 1)[1], 16)
            if local == port and int(field[3], 16) != 10:  # not the listening socket
                out[peer] = (TCP_STATES.get(int(field[3], 16), field[3]), int(field[4].split(":")[0], 16), int(field[9]))
    return out


def open_fds(pid: int | str = "self") -> dict[str, Any]:
    """A process's open file descriptors: how many, how many are sockets, and the sockets' inodes."""
    inodes: set[int] = set()
    count = 0
    folder = Path(f"/proc/{pid}/fd")
    for fd in folder.iterdir() if folder.is_dir() else ():
        count += 1
        try:
            target = os.readlink(fd)
        except OSError:  # closed meanwhile
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    return {"fds": count, "socket_fds": len(inodes), "socket_inodes": inodes}


def server_side(port: int, peers: list[int], pid: int | str = "self") -> dict[str, Any]:
    """The server's side of the connections from the local ports ``peers`` to ``port``: their TCP states
    ("gone": no socket left), the bytes the kernel still holds for them, how many the server process still
    holds a descriptor for, and its open descriptors."""
    sockets, fds = tcp_sockets(port), open_fds(pid)
    states: dict[str, int] = {}
    for peer in peers:
        state = sockets.get(peer, ("gone", 0, 0))[0]
        states[state] = states.get(state, 0) + 1
    return {
        "server_tcp_states": states,
        "server_bytes_unsent": sum(sockets[p][1] for p in peers if p in sockets),
        "server_fds_holding_them": sum(1 for p in peers if p in sockets and sockets[p][2] in fds["socket_inodes"]),
        "server_fds": fds["fds"],
        "server_socket_fds": fds["socket_fds"],
    }


def rss_mb(pid: int | str = "self") -> float:
    """A process's resident memory now (MB), from /proc (ru_maxrss is the peak)."""
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_mb(pid: int) -> float:
    """A process's peak resident memory (MB): VmHWM in /proc/PID/status."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


class _Drops(logging.Handler):
    """Counts the server's "connection ... dropped: why" lines by their reason."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.reasons: dict[str, int] = {}

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if " dropped: " in text:
            why = text.split(" dropped: ", 1)[1]
            key = "queue overflowed" if "messages waiting" in why else "silent" if "nothing heard" in why else why[:40]
            self.reasons[key] = self.reasons.get(key, 0) + 1


def _table_state(t: Any, now: float) -> dict[str, Any]:
    """What a table left after its round is doing (a stuck one says why)."""
    return {
        "id": t.id,
        "state": t.state,
        "turn": t.turn,
        "game_no": t.game_no,
        "deal_no": t.deal_no,
        "seats": [(s.user.name if s.user is not None else None, s.robot) for s in t.seats],
        "events": t.events[-6:],
        "idle_s": round(now - t.game.turn_since, 1),
    }


def serve(port: int, db: str, connections: int, tables: int, robot_delay: float, conn: Any) -> None:
    """The server's process: the room on ``port``, and a thread that answers the parent's questions about it
    on ``conn`` ("figures": its tables and clients left, the drops by reason; "stop")."""
    import threading

    import uvicorn

    from tarot_env.web.app import Limits, create_app, warm_kernels
    from tarot_env.web.room import Room

    drops = _Drops()
    logging.getLogger("tarot_env.web").addHandler(drops)
    logging.getLogger("tarot_env.web").setLevel(logging.INFO)
    limits = Limits(
        out_queue=64, per_address=connections + 10, max_connections=connections + 10, max_tables=tables + 10,
        creates_per_minute=60.0 * tables, create_burst=float(tables), address_messages_per_second=100.0 * connections,
        address_message_burst=100.0 * connections, table_idle=1.0, lobby_every=0.5,
    )  # fmt: skip
    warm_kernels(["french_tarot_v0"])  # as tarot serve does at start-up (create_app(warm=True))
    room = Room(robot_delay=robot_delay, pause=0.5, reconnect_window=2.0)
    app = create_app(db, room=room, records_dir=Path(db).parent / "records", tick=0.02, heartbeat=1.0, silence=5.0, limits=limits)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", ws="websockets-sansio"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    conn.send("started")
    while True:
        ask = conn.recv()
        if ask == "stop":
            server.should_exit = True
            thread.join(timeout=10)
            conn.send("stopped")
            return
        state = app.state.server
        now = time.monotonic()
        conn.send(
            {
                "tables_left": len(state.room.tables),
                "tables_left_states": [_table_state(t, now) for t in list(state.room.tables.values())[:5]],
                "clients_left": len(state.clients),
                "memory_pending": state.workers.trim_due,  # freed memory not yet given back (Workers.give_back_memory)
                "trims": state.workers.trims,
                "people_in_memory": len(state.users),
                "sleeper_dropped": not any(c.user is not None and c.user.name.startswith("Sleeper") for c in state.clients),
                "drops": dict(drops.reasons),
            }
        )


def non_reader(port: int, table: int, name: str = "Sleeper") -> socket.socket:
    """A raw socket that shakes hands, says hello as ``name``, watches ``table`` and never reads again (a
    small receive buffer, so that the server's messages pile up on its side)."""
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
    for message in ({"type": "hello", "name": name}, {"type": "watch", "table": table}):
        s.sendall(_frame(json.dumps(message).encode()))
    return s


def _frame(payload: bytes) -> bytes:
    """One masked text frame (a client's frames are masked)."""
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big"))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def player(url: str, k: int, deals: int, ready: asyncio.Event, done: list[int], dropped: list[int]) -> None:
    """A person who creates a French Tarot table for four with three robots, starts it and plays his
    first legal move at each turn, until the game is over (or the server drops him: counted in ``dropped``)."""
    try:
        await _play(url, k, deals, ready, done)
    except ConnectionClosed:
        dropped.append(k)
        ready.set()


async def _play(url: str, k: int, deals: int, ready: asyncio.Event, done: list[int]) -> None:
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


async def ask_lobby(sock: socket.socket, stop: asyncio.Event) -> None:
    """A non-reader that also asks for the lobby five times a second (never reading the answers), until
    ``stop`` or the server ends its connection."""
    sock.setblocking(False)
    loop = asyncio.get_running_loop()
    with contextlib.suppress(OSError):
        while not stop.is_set():
            await loop.sock_sendall(sock, _frame(b'{"type": "lobby"}'))
            await asyncio.sleep(0.2)


async def _loop_lag(out: list[tuple[float, float]]) -> None:
    """The clients' own event loop's lateness, every 50 ms: an answer late because this process was busy
    is the script's, not the server's."""
    while True:
        before = time.monotonic()
        await asyncio.sleep(0.05)
        out.append((round(before - ROUND_START[0], 1), time.monotonic() - before - 0.05))


async def prober(url: str, k: int, stop: asyncio.Event, waits: list[float], watch: int | None, dropped: list[int]) -> None:
    """A person in the lobby (or watching ``watch``) who asks the leaderboard about once a second and
    keeps the time to each answer (or is dropped by the server: counted in ``dropped``)."""
    try:
        await _probe(url, k, stop, waits, watch)
    except ConnectionClosed:
        dropped.append(k)


async def _probe(url: str, k: int, stop: asyncio.Event, waits: list[float], watch: int | None) -> None:
    async with connect(url, max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "name": f"Probe {k} of {ROUND_START[0]:.0f}"}))  # a new person each round
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
            SLOW.extend([(round(sent - ROUND_START[0], 1), round(waits[-1], 2))] if waits[-1] >= 1.0 else [])
            await asyncio.sleep(1.0)


async def one_round(
    url: str, port: int, connections: int, tables: int, deals: int, first_table: int, non_readers: int = 3, server: Any = None
) -> dict[str, Any]:
    """One round; ``server``: (the server's pid, the pipe to its process) for the figures on the non-readers'
    connections once it dropped them (none without it)."""
    ready, stop = asyncio.Event(), asyncio.Event()
    done: list[int] = []
    waits: list[float] = []
    players_dropped: list[int] = []
    probes_dropped: list[int] = []
    ROUND_START[0] = time.monotonic()
    lags: list[tuple[float, float]] = []
    monitor = asyncio.create_task(_loop_lag(lags))
    players = [asyncio.create_task(player(url, first_table + k, deals, ready, done, players_dropped)) for k in range(tables)]
    await asyncio.wait_for(ready.wait(), 60)
    sleepers = [non_reader(port, first_table + k % tables, f"Sleeper {k} of {first_table}") for k in range(non_readers)]
    askers = [asyncio.create_task(ask_lobby(s, stop)) for s in sleepers[1::2]]
    probes = [
        asyncio.create_task(prober(url, k, stop, waits, first_table + k % tables if k % 2 else None, probes_dropped))
        for k in range(connections - tables - non_readers)
    ]
    start = time.monotonic()
    _, unfinished = await asyncio.wait(players, timeout=ROUND_TIMEOUT)
    for task in unfinished:  # a player who never saw his game over: counted, and the round ends
        task.cancel()
    stop.set()
    await asyncio.gather(*probes, *askers)
    dropped = await _non_readers_dropped(port, sleepers, server)
    for s in sleepers:
        s.close()
    monitor.cancel()
    waits.sort()
    slow = sorted(SLOW)
    SLOW.clear()
    return {
        "seconds": round(time.monotonic() - start, 1),
        "games_over": len(done),
        "players_dropped": len(players_dropped),
        "players_unfinished": len(unfinished),
        "probes_dropped": len(probes_dropped),
        "answers": len(waits),
        "wait_median_s": round(waits[len(waits) // 2], 3),
        "wait_p99_s": round(waits[int(len(waits) * 0.99)], 3),
        "wait_max_s": round(waits[-1], 3),
        "slow_answers": len(slow),
        "client_loop_lag_max_s": round(max((lag for _, lag in lags), default=0.0), 3),
        "client_loop_lags_over_0_2s_at": [t for t, lag in lags if lag > 0.2][:20],
        "slow_asked_at_s": sorted({t for t, _ in slow})[:20],
        "non_readers": dropped,
    }


async def _non_readers_dropped(port: int, sleepers: list[socket.socket], server: Any, wait: float = 30.0) -> dict[str, Any]:
    """Once the server has dropped every non-reader (it is asked through ``server``: (pid, pipe); at most
    ``wait`` seconds) and a second later, before they close their own sockets: the server's side of their
    connections (:func:`server_side`). A socket the server dropped but still holds shows here as ESTABLISHED
    or FIN_WAIT1, with the bytes it still has to send; a closed one is "gone"."""
    out: dict[str, Any] = {"count": len(sleepers)}
    if server is None or not sleepers:
        return out
    pid, conn = server
    deadline = time.monotonic() + wait
    while True:
        conn.send("figures")
        if conn.recv()["sleeper_dropped"]:
            break
        if time.monotonic() > deadline:
            out["not_dropped_after_s"] = wait
            break
        await asyncio.sleep(0.2)
    await asyncio.sleep(1.0)
    out.update(server_side(port, [s.getsockname()[1] for s in sleepers], pid))
    return out


async def main_async(
    port: int, pid: int, conn: Any, connections: int, tables: int, deals: int, rounds: int, robot_delay: float, non_readers: int = 3
) -> dict[str, Any]:
    out: dict[str, Any] = {"connections": connections, "tables": tables, "deals": deals, "robot_delay_s": robot_delay}
    out["rss_start_mb"] = round(rss_mb(pid), 1)
    url = f"ws://127.0.0.1:{port}/ws"
    for r in range(rounds):
        figures = await one_round(url, port, connections, tables, deals, 1 + r * tables, non_readers, (pid, conn))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            conn.send("figures")
            server = conn.recv()
            if not server["tables_left"] and not server["clients_left"] and not server["memory_pending"]:
                break
            await asyncio.sleep(0.2)  # the tables close once idle; the connections end; the freed memory is given back
        await asyncio.sleep(0.5)  # the last give-back runs in the room's dealer thread
        figures.update(server)
        figures["rss_after_mb"] = round(rss_mb(pid), 1)
        out[f"round{r + 1}"] = figures
    out["rss_peak_mb"] = round(peak_mb(pid), 1)
    return out


def run(connections: int, tables: int, deals: int = 1, rounds: int = 2, robot_delay: float = 0.05, non_readers: int = 3) -> dict[str, Any]:
    """Serve a room on loopback in a process of its own and load it from this one; the figures (the memory
    is the server's process's)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe()
    with tempfile.TemporaryDirectory() as tmp:
        proc = ctx.Process(target=serve, args=(port, str(Path(tmp) / "room.sqlite"), connections, tables, robot_delay, child), daemon=True)
        proc.start()
        try:
            if not parent.poll(300):
                raise RuntimeError("the room's process did not start in 300 s")
            parent.recv()
            assert proc.pid is not None
            return asyncio.run(main_async(port, proc.pid, parent, connections, tables, deals, rounds, robot_delay, non_readers))
        finally:
            if proc.is_alive():
                parent.send("stop")
                parent.poll(15)
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()


def main() -> None:
    global ROUND_TIMEOUT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--deals", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--robot-delay", type=float, default=0.8, help="a robot's pause before its move (default 0.8 s, as tarot serve)")
    parser.add_argument("--non-readers", type=int, default=3, help="clients that never read (every other one asks for the lobby)")
    parser.add_argument("--round-timeout", type=float, default=ROUND_TIMEOUT, help="seconds a round's players have to finish")
    args = parser.parse_args()
    ROUND_TIMEOUT = args.round_timeout
    print(json.dumps(run(args.connections, args.tables, args.deals, args.rounds, args.robot_delay, args.non_readers), indent=1))


if __name__ == "__main__":
    main()
