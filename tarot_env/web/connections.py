"""The room's connections: one WebSocket per browser, from its admission to its end.

:class:`Connections` owns the open connections (:class:`Client`) and what bounds them (:class:`Limits`):

* **admission**: an Origin from another site is refused (cross-site WebSocket hijacking), and so is a
  connection past the room's or an address's most;
* **rate limits**: messages per connection and per address, and tables created per address, each a token
  bucket (:class:`Bucket`); every refusal names the bound it met;
* **reading**: each message checked (:func:`~.messages.check_message`), rate-limited and handed to the
  server's handler; a refusal (:class:`~.messages.MessageError`, :class:`~.people.RoomError`) is
  answered ``{"type": "error", ...}`` and the connection goes on;
* **sending**: :meth:`Connections.post` queues a message in the connection's bounded queue, emptied onto
  the socket by the connection's own writer task, so that nothing waits on a browser; a connection whose
  queue overflows does not read, and is dropped;
* **the heartbeat**: a browser can go without closing its socket (a page kept in the back-forward
  cache, a laptop asleep, a network that drops silently). So every browser is sent ``{"type": "ping"}``
  every ``heartbeat`` seconds, and a connection from which nothing (a ``pong`` or any other message) has
  come for ``silence`` seconds, or on which one send has been stuck as long, is dropped;
* **the end**: a connection closed or dropped leaves the room once (:meth:`Connections.gone`), and the
  server learns it (``on_gone``: the person is away at his tables, and a robot takes his seat).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import struct
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass, fields
from typing import Any
from urllib.parse import urlsplit

from starlette.websockets import WebSocket, WebSocketDisconnect

from tarot_env.web.messages import MessageError, about, check_message
from tarot_env.web.people import RoomError, User
from tarot_env.web.room import Table

log = logging.getLogger("tarot_env.web")


@dataclass(frozen=True)
class Limits:
    """The room's bounds, so that no client (and no address) can take the room from the others.

    Every refusal names the bound it met. Per connection and per address, messages are counted with a
    token bucket (``rate`` a second, bursts of ``burst``); table creation per address likewise, per minute.
    """

    out_queue: int = 256  # messages waiting for one browser; one more and it is dropped (it does not read)
    max_connections: int = 1000  # open WebSockets in the room
    per_address: int = 50  # open WebSockets from one network address
    max_tables: int = 200  # tables in the room at once
    messages_per_second: float = 20.0  # per connection (bursts of message_burst)
    message_burst: float = 60.0
    address_messages_per_second: float = 200.0  # per address, all its connections together
    address_message_burst: float = 600.0
    creates_per_minute: float = 10.0  # tables created per address (bursts of create_burst)
    create_burst: float = 5.0
    table_idle: float = 300.0  # seconds a table out of a game (empty, or its game over) stays unchanged before it closes
    lobby_every: float = 0.5  # seconds between two lobby pushes (changes coalesced)
    trim_every: float = 10.0  # at most one return of freed memory to the system (memory.give_back) in this many seconds

    def __post_init__(self) -> None:
        for f in fields(self):
            if not getattr(self, f.name) > 0:
                raise ValueError(f"room limits: {f.name} must be > 0, got {getattr(self, f.name)!r}")


@dataclass
class Bucket:
    """A token bucket: ``rate`` tokens a second up to ``burst``; :meth:`take` spends one if there is one."""

    rate: float
    burst: float
    tokens: float = -1.0
    at: float = 0.0

    def take(self, now: float) -> bool:
        if self.tokens < 0:  # first use: a full bucket
            self.tokens, self.at = self.burst, now
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True


@dataclass(eq=False)  # one object per connection: compared by identity
class Client:
    """One browser connection: its user (after hello), the table it sits at or watches, its address, and
    its outgoing queue, emptied onto the socket by its own writer task (nothing waits on a browser)."""

    ws: WebSocket
    address: str | None
    heard: float = 0.0  # when its last message came (time.monotonic()): a silent one is dropped
    user: User | None = None
    table: Table | None = None
    invite: str | None = None  # the invitation he came with (a private table's spectators need it)
    queue: asyncio.Queue[str] | None = None
    writer: asyncio.Task[None] | None = None
    reader: asyncio.Task[Any] | None = None
    dropped: bool = False  # ended by the server (silent, or its queue overflowed): its tasks stop
    sending_since: float | None = None  # when the send now under way began (a send stuck this long: dropped)
    bucket: Bucket | None = None


#: a checked message's handler: the connection and the message (a refusal raises RoomError)
Handle = Callable[[Client, dict[str, Any]], Awaitable[None]]


class Connections:
    """The open connections of the room and their bounds.

    ``heartbeat``, ``silence``: seconds between pings, and of silence after which a connection is dropped;
    ``allowed_origins``: web origins besides the room's own host whose pages may connect; ``spawn``: runs a
    coroutine as a task the server cancels when it stops; ``on_gone``: the server's part of a connection's
    end (awaited once per connection, after it left this list)."""

    def __init__(
        self,
        limits: Limits,
        heartbeat: float,
        silence: float,
        allowed_origins: Iterable[str],
        spawn: Callable[[Coroutine[Any, Any, None]], None],
        on_gone: Callable[[Client], Awaitable[None]],
    ) -> None:
        if not 0 < heartbeat < silence:
            raise ValueError(f"heartbeat {heartbeat!r} and silence {silence!r}: need 0 < heartbeat < silence (seconds)")
        self.limits = limits
        self.heartbeat = heartbeat
        self.silence = silence
        self.allowed_origins = {o.rstrip("/").lower() for o in allowed_origins}
        self._spawn = spawn
        self._on_gone = on_gone
        self.clients: list[Client] = []
        self.per_address: dict[str | None, int] = {}
        self.address_buckets: dict[str | None, Bucket] = {}
        self.create_buckets: dict[str | None, Bucket] = {}

    # ----------------------------------------------------------------------------- admission
    def origin_allowed(self, ws: WebSocket) -> bool:
        """A browser's WebSocket from another site is refused (cross-site WebSocket hijacking): the Origin
        must be this host's, or one the operator allowed. A client that sends no Origin is not a browser
        (it could send any Origin anyway) and is let in."""
        origin = ws.headers.get("origin")
        if origin is None:
            return True
        origin = origin.rstrip("/").lower()
        if origin in self.allowed_origins:
            return True
        host = (ws.headers.get("host") or "").lower()
        return bool(host) and urlsplit(origin).netloc == host

    def admission(self, address: str | None) -> str | None:
        """Why a new connection from ``address`` is refused (None: it is admitted)."""
        lim = self.limits
        if len(self.clients) >= lim.max_connections:
            return f"the room is full: it takes at most {lim.max_connections} connections; try again later"
        if self.per_address.get(address, 0) >= lim.per_address:
            return f"too many connections from your address: at most {lim.per_address} at once; close one and try again"
        return None

    async def serve(self, ws: WebSocket, handle: Handle) -> None:
        """One WebSocket from its handshake to its end: admitted or refused, then its messages read and each
        given to ``handle`` until it closes or is dropped."""
        if not self.origin_allowed(ws):
            log.info("tarot serve: a WebSocket from the origin %s refused", ws.headers.get("origin"))
            await ws.close(code=1008)  # before accepting: the handshake is answered 403
            return
        address = ws.client.host if ws.client else None
        await ws.accept()
        why = self.admission(address)
        if why is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.send_text(json.dumps({"type": "error", "message": why, "about": "connect"})), timeout=1.0)
                await asyncio.wait_for(ws.close(code=1013, reason=why[:100]), timeout=1.0)
            return
        client = Client(ws=ws, address=address, heard=time.monotonic(), queue=asyncio.Queue(self.limits.out_queue))
        client.writer = asyncio.get_running_loop().create_task(self._write(client))
        client.reader = asyncio.current_task()
        self.clients.append(client)
        self.per_address[address] = self.per_address.get(address, 0) + 1
        try:
            await self._read(client, handle)
        except asyncio.CancelledError:
            if not client.dropped:
                raise
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
        except WebSocketDisconnect:
            pass
        finally:
            await self.gone(client)
            if client.writer is not None:
                client.writer.cancel()

    async def _read(self, client: Client, handle: Handle) -> None:
        ws = client.ws
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect" or client not in self.clients:  # closed, or dropped
                return
            now = time.monotonic()
            client.heard = now
            text = message.get("text")
            if text is None:
                text = message.get("bytes") or b""
            try:
                data = check_message(text)
                limited = self.limited(client, data["type"], now)
                if limited:
                    raise RoomError(limited)
                await handle(client, data)
            except (MessageError, RoomError) as err:
                self.post(client, {"type": "error", "message": str(err), "about": about(text)})
            except Exception:  # a fault of the server's (the database ...): said, logged, and the connection goes on
                log.exception("tarot serve: a request failed")
                kind = about(text)
                failed = f"the server failed to answer this {kind or 'message'}; try again"
                self.post(client, {"type": "error", "message": failed, "about": kind})

    # ----------------------------------------------------------------------------- rate limits
    def limited(self, client: Client, kind: str, now: float) -> str | None:
        """Why this message is over a rate limit (None: it is not). Pongs are never limited."""
        lim = self.limits
        if kind == "pong":
            return None
        if client.bucket is None:
            client.bucket = Bucket(lim.messages_per_second, lim.message_burst)
        if not client.bucket.take(now):
            return (
                f"too many messages: at most {lim.messages_per_second:g} a second on one connection "
                f"(bursts of {lim.message_burst:g}); this {kind} was not handled: send it again in a moment"
            )
        bucket = self.address_buckets.setdefault(client.address, Bucket(lim.address_messages_per_second, lim.address_message_burst))
        if not bucket.take(now):
            return (
                f"too many messages from your address: at most {lim.address_messages_per_second:g} a second from "
                f"one address (bursts of {lim.address_message_burst:g}); this {kind} was not handled"
            )
        return None

    def check_create(self, client: Client, now: float, tables: int) -> None:
        """:class:`RoomError` when the room holds its most tables (it has ``tables``) or the address creates too fast."""
        lim = self.limits
        if tables >= lim.max_tables:
            raise RoomError(
                f"create: the room holds at most {lim.max_tables} tables and has {tables}: join a table, or try again when one closes"
            )
        bucket = self.create_buckets.setdefault(client.address, Bucket(lim.creates_per_minute / 60.0, lim.create_burst))
        if not bucket.take(now):
            raise RoomError(
                f"create: too many tables created from your address: at most {lim.creates_per_minute:g} a minute "
                f"(bursts of {lim.create_burst:g}); try again in a minute"
            )

    # ----------------------------------------------------------------------------- sending
    def post(self, client: Client, message: dict[str, Any]) -> None:
        """Queue ``message`` for ``client``; never waits. A client whose queue is full does not read its
        socket: it is dropped (a disconnection: the robot takes his seat), and nobody else waits on it."""
        self.post_text(client, json.dumps(message))

    def post_text(self, client: Client, text: str) -> None:
        if client.dropped or client.queue is None:
            return
        try:
            client.queue.put_nowait(text)
        except asyncio.QueueFull:
            client.dropped = True
            self._spawn(self._end(client, f"{client.queue.qsize()} messages waiting: it does not read them"))

    async def _write(self, client: Client) -> None:
        """The connection's writer: its queue onto its socket, one message after the other."""
        assert client.queue is not None
        with contextlib.suppress(Exception):  # the socket has gone: its reader learns it
            while True:
                text = await client.queue.get()
                client.sending_since = time.monotonic()
                await client.ws.send_text(text)
                client.sending_since = None

    # ----------------------------------------------------------------------------- the heartbeat
    async def run_heartbeat(self) -> None:
        """Ping every browser every ``heartbeat`` seconds; drop those silent for ``silence`` seconds."""
        while True:
            await asyncio.sleep(self.heartbeat)
            try:
                await self.check_silence(time.monotonic())
            except Exception:
                log.exception("tarot serve: the heartbeat failed; it goes on")

    async def check_silence(self, now: float) -> None:
        """One beat: the silent connections, and those on which one send has been stuck for ``silence``
        seconds (a browser that does not read), are dropped; the others pinged."""
        for c in list(self.clients):
            if now - c.heard >= self.silence:
                await self.drop(c, f"nothing heard for {now - c.heard:.0f} s")
            elif c.sending_since is not None and now - c.sending_since >= self.silence:
                await self.drop(c, f"a message not taken for {now - c.sending_since:.0f} s")
            else:
                self.post(c, {"type": "ping"})

    # ----------------------------------------------------------------------------- the end
    async def drop(self, client: Client, why: str) -> None:
        """End a connection (silent, or not reading): it is a disconnection (the robot takes the seat at
        once), and the socket is closed at once (:meth:`_end`)."""
        if client.dropped:
            return
        client.dropped = True
        await self._end(client, why)

    async def _end(self, client: Client, why: str) -> None:
        """Every drop ends here (a queue that overflowed, a silent connection, a send stuck): the person is
        away, the connection's tasks stop, and its socket is closed, aborted rather than closed.

        Why abort: a client that does not read leaves the server's data in its kernel send buffer (up to
        4 MB here) and then in asyncio's own write buffer. ``transport.close()`` (what the server stack calls
        once the handler returns, uvicorn whichever its WebSocket implementation) waits to flush that
        buffer first, and it never flushes: the socket would stay ESTABLISHED, its descriptor and its data
        held, for as long as the client kept the connection open (minutes, tens of MB). The close frame
        itself waits for the buffer to drain. When asyncio's buffer happens to be empty, the close does go
        out, and the kernel then keeps the orphaned socket in FIN_WAIT1 with megabytes unsent. So the socket
        is reset: ``SO_LINGER`` 0 (the kernel drops what it holds) and ``transport.abort()`` (asyncio drops
        its buffer and closes the socket now, without the flush ``close()`` waits for). A client that does
        not read has no use for what was queued for it; a page that does read gets the close frame first
        when it can go out at once, and reconnects."""
        transport = _transport(client.ws)
        if transport is not None:  # first, before anything awaits: whichever close comes next resets
            sock = transport.get_extra_info("socket")  # (ours below, or the server stack's once the handler returns)
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        log.info("tarot serve: connection from %s dropped: %s", client.address, why)
        await self.gone(client)
        if client.writer is not None:
            client.writer.cancel()
        if client.reader is not None and client.reader is not asyncio.current_task():
            client.reader.cancel()
        if transport is None or not transport.get_write_buffer_size():
            # nothing waits in asyncio's buffer: the close frame (with why) goes out at once
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.ws.close(code=1001, reason=why[:100]), timeout=1.0)
        if transport is not None:
            transport.abort()

    async def gone(self, client: Client) -> None:
        """A connection has ended (closed, or dropped; once only): it leaves the room's list and its address's
        count, and the server does the rest (``on_gone``)."""
        if client not in self.clients:
            return
        self.clients.remove(client)
        self.per_address[client.address] = self.per_address.get(client.address, 1) - 1
        if self.per_address[client.address] <= 0:
            self.per_address.pop(client.address, None)
            self.address_buckets.pop(client.address, None)
        if client.writer is not None and not client.dropped:
            client.writer.cancel()
        await self._on_gone(client)


def _transport(ws: WebSocket) -> Any:
    """The asyncio transport under ``ws``, or None where there is none to be found (Starlette's TestClient).
    ASGI gives an application no handle on its socket; uvicorn's WebSocket protocols (``websockets``,
    ``websockets-sansio`` and ``wsproto``) pass their own bound method as ``receive`` and keep the
    connection's transport as their ``transport``: :meth:`Connections._end` aborts it."""
    owner = getattr(getattr(ws, "_receive", None), "__self__", None)
    transport = getattr(owner, "transport", None)
    if callable(getattr(transport, "abort", None)) and callable(getattr(transport, "get_write_buffer_size", None)):
        return transport
    return None
