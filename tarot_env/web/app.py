"""The web app of ``tarot serve``: the page, a WebSocket per browser, and the room's clock.

Every browser message is a JSON object with a ``type``; :func:`check_message` checks it against
:data:`MESSAGES` (the fields, their types and ranges, no unknown field, a size limit) before the
room sees it, and a bad one is answered ``{"type": "error", ...}`` with nothing changed. The room's
own refusals (not your turn, an illegal card, not the owner ...) are answered the same way. After
every change each browser at the table receives the table as its seat sees it
(:meth:`Table.view`): never another seat's hidden cards. A task advances the room's clock a few
times a second (robot moves, time-outs, reconnection windows, the next deal).

A browser can go without closing its socket: a page kept alive in the back-forward cache, a laptop
asleep, a network that drops silently. So the server sends every browser ``{"type": "ping"}`` every
``heartbeat`` seconds, and a connection from which nothing (a ``pong`` or any other message) has come
for ``silence`` seconds is dropped and treated as a disconnection: the robot takes the seat, and the
person coming back takes it again (the page also closes its socket itself on ``pagehide``).

The protocol is documented in docs/web.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

import tarot_env
from tarot_env.web.challenge_web import challenge_routes
from tarot_env.web.db import Store
from tarot_env.web.room import LIMITS, ROBOTS, GameResult, Room, RoomError, Table, User, check_game

STATIC = Path(__file__).parent / "static"
log = logging.getLogger("tarot_env.web")
#: the longest message a browser may send (bytes): every legal message is far shorter
MAX_MESSAGE = 4096
NAME_MAX = 24

# field: (accepted types, required). Ranges and strings are checked in check_message.
MESSAGES: dict[str, dict[str, tuple[tuple[type, ...], bool]]] = {
    "hello": {"name": ((str,), False), "token": ((str,), False)},
    "lobby": {},
    "leaderboard": {},
    "create": {"env": ((str,), True), "players": ((int,), True)},
    "join": {"table": ((int,), True), "seat": ((int,), True), "invite": ((str,), False)},
    "watch": {"table": ((int,), True), "invite": ((str,), False)},
    "leave": {},
    "robot": {"seat": ((int,), True), "robot": ((str, type(None)), True)},
    "settings": {"changes": ((dict,), True)},
    "start": {},
    "next": {},
    "move": {"action": ((int,), True)},
    "cancel": {},
    "cancel_answer": {"accept": ((bool,), True)},
    "pong": {},
}


class MessageError(ValueError):
    """A message that is not one of the protocol's: the reason, sent back as an error."""


def check_name(name: str) -> str:
    """A display name: 1 to 24 printable characters, spaces trimmed. It is shown with textContent on the
    page (never as HTML), but control characters and line breaks are refused here as well."""
    name = " ".join(name.split())
    if not 1 <= len(name) <= NAME_MAX:
        raise MessageError(f"a name has 1 to {NAME_MAX} characters, got {len(name)}")
    if not name.isprintable():
        raise MessageError("a name has printable characters only")
    return name


#: how a refusal names what a field must be
_KIND_WORDS = {int: "a whole number", str: "a string", bool: "true or false", dict: "an object", type(None): "null"}


def _given(value: Any) -> str:
    """What the browser gave, short, for the error message (JSON spelling)."""
    with contextlib.suppress(Exception):
        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= 40 else text[:37] + "..."
    return "?"


def _fields(spec: dict[str, Any]) -> str:
    return f"the fields {', '.join(spec)}" if spec else "no field but type"


def check_message(text: str | bytes) -> dict[str, Any]:
    """The message as a dict, or :class:`MessageError` saying what was given, why it is refused and what is allowed."""
    if len(text) > MAX_MESSAGE:
        raise MessageError(f"message too long ({len(text)} bytes; at most {MAX_MESSAGE})")
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise MessageError('a message is a JSON object such as {"type": "lobby"}') from None
    except RecursionError:  # [[[[...]]]]: the parser gives up (it used to end the connection)
        raise MessageError('a message is a JSON object such as {"type": "lobby"}, not nested this deep') from None
    if not isinstance(data, dict):
        raise MessageError(f"a message is a JSON object with a type, got a {type(data).__name__}")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in MESSAGES:
        raise MessageError(f"unknown message type {_given(kind)}; the types are {', '.join(MESSAGES)}")
    spec = MESSAGES[kind]
    extra = set(data) - set(spec) - {"type"}
    if extra:
        raise MessageError(
            f"{kind}: unknown field(s) {', '.join(sorted(str(k)[:20] for k in extra))}; a {kind} message has {_fields(spec)}"
        )
    for key, (types, required) in spec.items():
        if key not in data:
            if required:
                raise MessageError(f"{kind}: field {key!r} is missing; a {kind} message has {_fields(spec)}")
            continue
        value = data[key]
        wanted = " or ".join(_KIND_WORDS[t] for t in types)
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):  # JSON true is not a number here
            raise MessageError(f"{kind}: {key} has the wrong type: it is {wanted}, got {_given(value)}")
        if isinstance(value, int) and not isinstance(value, bool) and not -1 <= value <= 1_000_000:
            raise MessageError(f"{kind}: {key} {value} is out of range (-1 to 1000000)")
        if isinstance(value, str) and len(value) > 100:
            raise MessageError(f"{kind}: {key} is too long ({len(value)} characters; at most 100)")
    if kind == "hello" and "name" in data:
        data["name"] = check_name(data["name"])
    if kind == "robot" and data["robot"] is not None and data["robot"] not in ROBOTS:
        raise MessageError(f"robot: unknown robot {data['robot'][:30]!r}; the robots are {', '.join(ROBOTS)}")
    if kind == "create" and not re.fullmatch(r"[a-z_0-9]+", data["env"]):
        raise MessageError("create: env is a game id such as french_tarot_v0")
    return data


def _room_facts() -> dict[str, Any]:
    """What the page's menus offer, from the rules and the room (the page keeps no copy): the
    games (in the package's order) with their titles and player counts, the robots, and the
    numeric settings' limits."""
    from tarot_env.cli.play import title
    from tarot_env.envs.env_docs import player_counts

    return {
        "games": {env_id: list(player_counts(env_id)) for env_id in tarot_env.ENV_IDS},
        "titles": {env_id: title(env_id) for env_id in tarot_env.ENV_IDS},
        "robots": list(ROBOTS),
        "limits": {key: [low, high] for key, (_, low, high) in LIMITS.items() if low is not None},
    }


_ROOM_FACTS = _room_facts()


def _user_view(u: User) -> dict[str, Any]:
    """A person as the page shows him (his token only ever goes to his own browser, in the welcome)."""
    return {"id": u.id, "name": u.name, "chips": u.chips, "xp": u.xp}


@dataclass
class Client:
    """One browser connection: its user (after hello), the table it sits at or watches, and its address."""

    ws: WebSocket
    address: str | None
    heard: float = 0.0  # when its last message came (time.monotonic()): a silent one is dropped
    user: User | None = None
    table: Table | None = None
    invite: str | None = None  # the invitation he came with (a private table's spectators need it)


class Server:
    """The room, the database and the connections of one ``tarot serve``."""

    def __init__(
        self,
        store: Store,
        room: Room | None = None,
        records_dir: str | Path | None = None,
        tick: float = 0.05,
        heartbeat: float = 10.0,
        silence: float = 30.0,
    ) -> None:
        if not 0 < heartbeat < silence:
            raise ValueError(f"heartbeat {heartbeat!r} and silence {silence!r}: need 0 < heartbeat < silence (seconds)")
        self.store = store
        self.room = room or Room()
        self.room._next_id = max(self.room._next_id, store.next_table_id())
        self.records_dir = Path(records_dir) if records_dir else None
        self.tick = tick
        self.heartbeat = heartbeat
        self.silence = silence
        self.clients: list[Client] = []
        self.users: dict[int, User] = {}
        self.records: dict[int, list[int]] = {}  # table id -> its deal records' ids
        self.lock = asyncio.Lock()
        self._lobby_sent = ""
        self.room.on_table_created = self._table_created
        self.room.on_deal_end = self._deal_ended
        self.room.on_game_end = self._game_ended

    # ----------------------------------------------------------------------------- the room's hooks
    def _table_created(self, table: Table) -> None:
        self.store.new_table(table.id, table.env_id, table.num_players, table.owner.id if table.owner else None)

    def _deal_ended(self, table: Table, record: dict[str, Any], info: dict[str, Any]) -> None:
        rid = self.store.save_record(table.id, table.game_no, table.env_id, str(info.get("result", "?")), record)
        self.records.setdefault(table.id, []).append(rid)
        if self.records_dir is not None:
            self.records_dir.mkdir(parents=True, exist_ok=True)
            path = self.records_dir / f"table{table.id}-game{table.game_no}-record{rid}.json"
            path.write_text(json.dumps(record, indent=1) + "\n")

    def _game_ended(self, table: Table, result: GameResult) -> None:
        seats = []
        for p, s in enumerate(table.seats):
            seats.append(
                {
                    "user_id": s.user.id if s.user else None,
                    "robot": s.robot,
                    "total": round(result.totals[p]),
                    "winner": p in result.winners,
                    "xp": result.xp[p],
                    "chips_net": result.chips_net[p] if s.user else 0,
                }
            )
            if s.user is not None:
                self.store.save_user(s.user)
        self.store.save_game(table.id, table.game_no, table.env_id, asdict(table.settings), asdict(result), seats)

    # ----------------------------------------------------------------------------- sending
    async def send(self, client: Client, message: dict[str, Any]) -> None:
        with contextlib.suppress(Exception):  # a browser that has gone: its disconnect is handled by its own task
            await client.ws.send_text(json.dumps(message))

    def table_message(self, client: Client, now: float) -> dict[str, Any]:
        table = client.table
        assert table is not None
        seat = table.seat_of(client.user) if client.user else None
        view = table.view(seat, now, client.user)
        view["records"] = self.records.get(table.id, [])
        return {"type": "table", "table": view, "me": None if client.user is None else _user_view(client.user)}

    async def broadcast(self, table: Table) -> None:
        now = time.monotonic()
        for c in list(self.clients):
            if c.table is table:
                why = self.may_not_watch(c, table)
                if why:  # the owner closed the table to spectators (or made it private) while he watched
                    c.table = None
                    await self.send(c, {"type": "left", "table": table.id, "message": why})
                    await self.send(c, {"type": "lobby", "tables": self.room.lobby()})
                    continue
                await self.send(c, self.table_message(c, now))
        await self.broadcast_lobby()

    @staticmethod
    def may_not_watch(client: Client, table: Table) -> str | None:
        """Why ``client`` may not watch ``table`` now (None: he may): people seated always may."""
        if client.user is not None and table.seat_of(client.user) is not None:
            return None
        if not table.settings.spectators:
            return "this table allows no spectators"
        if table.settings.private and client.invite != table.invite:
            return "this table is private: watch with the invitation link"
        return None

    async def broadcast_lobby(self, force: bool = False) -> None:
        lobby = self.room.lobby()
        text = json.dumps(lobby)
        if text == self._lobby_sent and not force:
            return
        self._lobby_sent = text
        for c in list(self.clients):
            if c.user is not None:
                await self.send(c, {"type": "lobby", "tables": lobby})

    # ----------------------------------------------------------------------------- the clock
    async def run_clock(self) -> None:
        while True:
            try:
                async with self.lock:
                    changed = await asyncio.to_thread(self.room.advance, time.monotonic())
                    for table in changed:
                        await self.broadcast(table)
            except Exception:  # one bad tick (a bug, the database) must not stop every table's clock for good
                log.exception("tarot serve: the room's clock failed; it goes on")
            await asyncio.sleep(self.tick)

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
        """One beat: the silent connections are dropped, the others pinged (a send that does not get
        through within a second is given up: the next beat tries again, and silence ends it)."""
        for c in list(self.clients):
            if now - c.heard >= self.silence:
                await self.drop(c, f"nothing heard for {now - c.heard:.0f} s")
            else:
                with contextlib.suppress(TimeoutError):  # a client that does not read: silence will end it
                    await asyncio.wait_for(self.send(c, {"type": "ping"}), timeout=1.0)

    async def drop(self, client: Client, why: str) -> None:
        """End a connection that has gone silent: it is a disconnection (the robot takes the seat at
        once), and the socket is closed without waiting on the browser."""
        log.info("tarot serve: connection from %s dropped: %s", client.address, why)
        await self.gone(client)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.ws.close(code=1001, reason="no answer to pings"), timeout=1.0)

    async def gone(self, client: Client) -> None:
        """A connection has ended (closed, or dropped for silence; once only): when it was the person's
        last, each table where he sits learns that he is away."""
        if client not in self.clients:
            return
        self.clients.remove(client)
        user = client.user
        if user is not None and not any(c.user is not None and c.user.id == user.id for c in self.clients):
            async with self.lock:
                for table in self.room.tables.values():
                    if table.seat_of(user) is not None:
                        table.disconnect(user, time.monotonic())
                        await self.broadcast(table)

    # ----------------------------------------------------------------------------- messages
    def user_of(self, token: str | None, name: str | None) -> User:
        if token:
            user = self.store.user_by_token(token)
            if user is not None:
                user = self.users.setdefault(user.id, user)  # one object per person, shared by his tables
                if name and name != user.name:
                    user.name = name
                    self.store.save_user(user)
                return user
        user = self.store.new_user(name or "guest")
        self.users[user.id] = user
        return user

    async def handle(self, client: Client, data: dict[str, Any]) -> None:
        """One checked message. A refusal raises RoomError (answered as an error by the caller)."""
        kind = data["type"]
        now = time.monotonic()
        if kind == "pong":  # the answer to a ping: that it came is all (the connection's ``heard`` is set)
            return
        if kind == "hello":
            if client.user is not None:
                raise RoomError("hello was already said on this connection")
            client.user = self.user_of(data.get("token"), data.get("name"))
            u = client.user
            await self.send(client, {"type": "welcome", "user": _user_view(u), "token": u.token, **_ROOM_FACTS})
            for table in self.room.tables.values():  # back at a table he sits at: he takes his seat again
                if table.seat_of(u) is not None and table.reconnect(u, now, client.address):
                    client.table = table
                    await self.broadcast(table)
                    break
            await self.send(client, {"type": "lobby", "tables": self.room.lobby()})
            return
        if client.user is None:
            raise RoomError('say hello first: {"type": "hello", "name": ...}')
        user = client.user
        if kind == "lobby":
            await self.send(client, {"type": "lobby", "tables": self.room.lobby()})
            return
        if kind == "leaderboard":
            await self.send(client, {"type": "leaderboard", "rows": self.store.leaderboard()})
            return
        if kind == "create":
            check_game(data["env"], data["players"])  # refused before he leaves his table
            self._leave_current(client)
            table = self.room.create(user, data["env"], data["players"], client.address)
            client.table = table
            await self.broadcast(table)
            return
        if kind in ("join", "watch"):
            table = self.room.get(data["table"])
            if kind == "join":
                if client.table is not None and client.table is not table:
                    table.check_sit(user, data["seat"], data.get("invite"))  # refused before he leaves his table
                    self._leave_current(client)
                table.sit(user, data["seat"], client.address, data.get("invite"))
            else:
                visitor = Client(ws=client.ws, address=client.address, user=user, invite=data.get("invite"))
                why = self.may_not_watch(visitor, table)
                if why:
                    raise RoomError(why)
                if client.table is not table:
                    self._leave_current(client)
            client.invite = data.get("invite")
            client.table = table
            await self.broadcast(table)
            return
        table = client.table
        if table is None:
            raise RoomError("join or watch a table first")
        if kind == "leave":
            if table.seat_of(user) is not None:
                table.leave(user)
            client.table = None
            await self.broadcast(table)
            await self.send(client, {"type": "lobby", "tables": self.room.lobby()})
            return
        if kind == "robot":
            table.set_robot(user, data["seat"], data["robot"])
        elif kind == "settings":
            table.change_settings(user, data["changes"])
        elif kind == "start":
            table.start(user, now)
        elif kind == "next":
            table.next_deal(user, now)
        elif kind == "move":
            table.move(user, data["action"], now)
        elif kind == "cancel":
            table.propose_cancel(user)
        elif kind == "cancel_answer":
            table.answer_cancel(user, data["accept"], now)
        await self.broadcast(table)

    def _leave_current(self, client: Client) -> None:
        """Going to another table: a seat at a table waiting for its game is freed; a watcher just goes."""
        table = client.table
        if table is None or client.user is None:
            return
        if table.seat_of(client.user) is not None:
            table.leave(client.user)  # refused (RoomError) during a game
        client.table = None

    async def connection(self, ws: WebSocket) -> None:
        await ws.accept()
        client = Client(ws=ws, address=ws.client.host if ws.client else None, heard=time.monotonic())
        self.clients.append(client)
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect" or client not in self.clients:  # closed, or dropped
                    break
                client.heard = time.monotonic()
                text = message.get("text")
                if text is None:
                    text = message.get("bytes") or b""
                try:
                    data = check_message(text)
                    async with self.lock:
                        await self.handle(client, data)
                except (MessageError, RoomError) as err:
                    await self.send(client, {"type": "error", "message": str(err), "about": _about(text)})
                except Exception:  # a fault of the server's (the database ...): said, logged, and the connection goes on
                    log.exception("tarot serve: a request failed")
                    about = _about(text)
                    await self.send(
                        client,
                        {"type": "error", "message": f"the server failed to answer this {about or 'message'}; try again", "about": about},
                    )
        except WebSocketDisconnect:
            pass
        finally:
            await self.gone(client)


def _about(text: str | bytes) -> str | None:
    """The type of a refused message, when it has one (the page shows a refused move next to the hand)."""
    with contextlib.suppress(Exception):
        data = json.loads(text)
        if isinstance(data, dict) and isinstance(data.get("type"), str):
            return data["type"][:30]
    return None


def create_app(
    db: str = "runs/tarot_web.sqlite",
    *,
    room: Room | None = None,
    records_dir: str | Path | None = None,
    tick: float = 0.05,
    heartbeat: float = 10.0,
    silence: float = 30.0,
) -> Starlette:
    """The Starlette app: ``/`` the page, ``/ws`` the WebSocket, ``/api/...`` the leaderboard and the records.
    ``heartbeat``: seconds between pings to every browser; ``silence``: seconds without a word after which a
    connection is dropped and its person is away (:meth:`Server.check_silence`)."""
    server = Server(Store(db), room, records_dir, tick, heartbeat, silence)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        tasks = [asyncio.create_task(server.run_clock()), asyncio.create_task(server.run_heartbeat())]
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def leaderboard(request: Request) -> Response:
        return JSONResponse(server.store.leaderboard())

    async def record(request: Request) -> Response:
        try:
            rid = int(request.path_params["rid"])
        except ValueError:
            return JSONResponse({"error": "a record id is a number"}, status_code=400)
        rec = server.store.record(rid)
        if rec is None:
            return JSONResponse({"error": f"no record {rid}"}, status_code=404)
        return JSONResponse(rec, headers={"Content-Disposition": f'attachment; filename="record{rid}.json"'})

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api/leaderboard", leaderboard),
            Route("/api/records/{rid}", record),
            WebSocketRoute("/ws", server.connection),
            *challenge_routes(server.store),  # the duplicate challenge: /challenge, /api/challenge/...
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        lifespan=lifespan,
    )
    app.state.server = server
    return app
