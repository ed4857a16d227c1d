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
import functools
import json
import logging
import re
import socket
import struct
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

import tarot_env
from tarot_env.tables import facts
from tarot_env.web.challenge_web import challenge_routes
from tarot_env.web.db import Store
from tarot_env.web.dealing import DealJob, check_game
from tarot_env.web.game_end import GameResult
from tarot_env.web.memory import give_back
from tarot_env.web.people import RoomError, User, check_name
from tarot_env.web.robots import RobotJob
from tarot_env.web.room import Room, Table
from tarot_env.web.seats import ROBOTS
from tarot_env.web.settings import LIMITS

STATIC = Path(__file__).parent / "static"
#: the largest record id (SQLite's largest integer)
RECORD_ID_MAX = 2**63 - 1
log = logging.getLogger("tarot_env.web")
#: the longest message a browser may send (bytes): every legal message is far shorter
MAX_MESSAGE = 4096

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
    "invite": {},  # the owner renews a private table's invitation (the old link no longer admits)
    "start": {},
    "next": {},
    "move": {"action": ((int,), True)},
    "cancel": {},
    "cancel_answer": {"accept": ((bool,), True)},
    "pong": {},
}


class MessageError(ValueError):
    """A message that is not one of the protocol's: the reason, sent back as an error."""


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
    if kind == "hello" and "name" in data:  # the one check of a name (:func:`~tarot_env.web.people.check_name`)
        try:
            data["name"] = check_name(data["name"])
        except RoomError as err:
            raise MessageError(f"hello: {err}") from None
    if kind == "robot" and data["robot"] is not None and data["robot"] not in ROBOTS:
        raise MessageError(f"robot: unknown robot {data['robot'][:30]!r}; the robots are {', '.join(ROBOTS)}")
    if kind == "create" and not re.fullmatch(r"[a-z_0-9]+", data["env"]):
        raise MessageError("create: env is a game id such as french_tarot_v0")
    return data


def _room_facts() -> dict[str, Any]:
    """What the page's menus offer, from the rules and the room (the page keeps no copy): the
    games (in the package's order) with their titles and player counts, the robots, and the
    numeric settings' limits."""
    return {
        "games": {env_id: list(facts(env_id).player_counts) for env_id in tarot_env.ENV_IDS},
        "titles": {env_id: facts(env_id).title for env_id in tarot_env.ENV_IDS},
        "robots": list(ROBOTS),
        "limits": {key: [low, high] for key, (_, low, high) in LIMITS.items() if low is not None},
    }


_ROOM_FACTS = _room_facts()


def _user_view(u: User) -> dict[str, Any]:
    """A person as the page shows him (his token only ever goes to his own browser, in the welcome)."""
    return {"id": u.id, "name": u.name, "chips": u.chips, "xp": u.xp}


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


@dataclass(frozen=True)
class _LobbyEntry:
    """A table as the lobby was last pushed: its summary's JSON, whether it is private, and the ids of the
    people seated (a private table is in their lobby only)."""

    text: str
    private: bool
    seated: frozenset[int]

    def seen_by(self, uid: int | None) -> bool:
        return not self.private or (uid is not None and uid in self.seated)


class Server:
    """The room, the database and the connections of one ``tarot serve``.

    Nothing under the room's lock waits on anything: a message to a browser goes into its bounded queue
    (:meth:`post`), a robot thinks in a worker thread (:meth:`_think`, for at most the room's
    ``robot_timeout``) and its move is applied under the lock only if the table has not moved on, and the
    database is called in its own single thread (:meth:`db_call`, :meth:`db_later`: in order, off the
    event loop)."""

    def __init__(
        self,
        store: Store,
        room: Room | None = None,
        records_dir: str | Path | None = None,
        tick: float = 0.05,
        heartbeat: float = 10.0,
        silence: float = 30.0,
        limits: Limits | None = None,
        allowed_origins: Sequence[str] = (),
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
        self.limits = limits or Limits()
        self.allowed_origins = {o.rstrip("/").lower() for o in allowed_origins}
        self.clients: list[Client] = []
        self.watchers: dict[int, list[Client]] = {}  # table id -> the connections at it (seated or watching)
        self.users: dict[int, User] = {}  # the people held by a connection or a seat (see :meth:`forget`)
        self.records: dict[int, list[int]] = {}  # table id -> its deal records' ids
        self.active: dict[int, float] = {}  # table id -> when it last changed (idle tables close)
        self.lock = asyncio.Lock()
        self.db = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tarot-db")  # one: calls in order
        self.robots = ThreadPoolExecutor(max_workers=4, thread_name_prefix="tarot-robot")
        self.thinking: set[int] = set()  # tables whose robot is thinking now
        # the rule-based robot's moves for agents that did not answer in time: a thread of its own, free
        # when every robot's thread is held by an agent that hangs
        self.rescue = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tarot-rescue")
        self.hung: set[int] = set()  # id() of the agents whose move timed out and has not returned yet
        # the robots' agents, made off the event loop (the first ``pretrained`` robot imports PyTorch and loads its
        # model: 2 s during which the whole room stood still, issue 41)
        self.loader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tarot-agents")
        # the tables' deals: built and shuffled off the event loop (the first of a game in a process loads its kernels)
        self.dealer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tarot-deal")
        self.dealing: set[int] = set()  # tables whose next deal is being made now
        # the leaderboard kept in memory (:meth:`leaderboard_rows`): read again only after a write that can
        # change it was queued (board_writes counts them), so a crowd asking for it does not queue behind
        # the database's other work
        self.board_writes = 0
        self.board: tuple[int, list[dict[str, Any]]] | None = None
        self.board_reading: tuple[int, asyncio.Future[Any]] | None = None
        self.per_address: dict[str | None, int] = {}
        self.address_buckets: dict[str | None, Bucket] = {}
        self.create_buckets: dict[str | None, Bucket] = {}
        self.lobby_dirty = False
        # the lobby as last pushed, table id -> its entry (its summary's JSON, private, the people seated): a push
        # sends each person looking at the lobby the tables that changed since, not the whole list
        self.lobby_pushed: dict[int, _LobbyEntry] = {}
        # freed memory returned to the system once tables or connections have gone (glibc keeps it otherwise)
        self.trim_due = False
        self.trimmed_at = 0.0
        self.trims = 0
        self._next_record = store.next_record_id()
        self._tasks: set[asyncio.Task[Any]] = set()
        self.room.on_table_created = self._table_created
        self.room.on_deal_end = self._deal_ended
        self.room.on_game_end = self._game_ended

    # ----------------------------------------------------------------------------- the database, off the loop
    async def db_call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in the database's thread, after every call queued before it; its result."""
        return await asyncio.get_running_loop().run_in_executor(self.db, functools.partial(fn, *args))

    def db_wait(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in the database's thread, waited for: for a worker thread (the challenge's requests),
        never the event loop's."""
        self.board_writes += 1  # may write (a challenge played): the leaderboard is read again
        return self.db.submit(fn, *args).result()

    async def leaderboard_rows(self) -> list[dict[str, Any]]:
        """The leaderboard: from memory when no write that can change it (a game's results, a person's
        chips or XP, a renaming) was queued since it was read; else read in the database's thread, after
        those writes, once for everyone asking meanwhile."""
        writes = self.board_writes
        if self.board is not None and self.board[0] == writes:
            return self.board[1]
        if self.board_reading is None or self.board_reading[0] != writes:
            self.board_reading = (writes, asyncio.ensure_future(self.db_call(self.store.leaderboard)))
        reading = self.board_reading
        rows = await asyncio.shield(reading[1])
        if self.board is None or self.board[0] < reading[0]:
            self.board = (reading[0], rows)
        return rows

    def db_later(self, fn: Callable[..., Any], *args: Any) -> None:
        """``fn(*args)`` in the database's thread, in order, not waited for (a failure is logged)."""

        def run() -> None:
            try:
                fn(*args)
            except Exception:
                log.exception("tarot serve: a database write failed (%s)", getattr(fn, "__name__", fn))

        self.db.submit(run)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ----------------------------------------------------------------------------- the room's hooks
    def _table_created(self, table: Table) -> None:
        self.active[table.id] = time.monotonic()
        self.db_later(self.store.new_table, table.id, table.env_id, table.num_players, table.owner.id if table.owner else None)

    def _deal_ended(self, table: Table, record: dict[str, Any], info: dict[str, Any]) -> None:
        rid = self._next_record  # numbered here, so that the table's links are right before the row is written
        self._next_record += 1
        self.records.setdefault(table.id, []).append(rid)
        args = (table.id, table.game_no, table.env_id, str(info.get("result", "?")), record)
        self.db_later(self._save_record, rid, args)

    def _save_record(self, rid: int, args: tuple[Any, ...]) -> None:
        self.store.save_record(*args, record_id=rid)
        if self.records_dir is not None:
            table_id, game_no, _, _, record = args
            self.records_dir.mkdir(parents=True, exist_ok=True)
            path = self.records_dir / f"table{table_id}-game{game_no}-record{rid}.json"
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
                self.db_later(self.store.save_user, replace(s.user))  # a copy: the values of now
        self.db_later(self.store.save_game, table.id, table.game_no, table.env_id, asdict(table.settings), asdict(result), seats)
        self.board_writes += 1  # the leaderboard is read again, after these writes

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

    async def send(self, client: Client, message: dict[str, Any]) -> None:
        """:meth:`post` (kept for callers that await it)."""
        self.post(client, message)

    async def _write(self, client: Client) -> None:
        """The connection's writer: its queue onto its socket, one message after the other."""
        assert client.queue is not None
        with contextlib.suppress(Exception):  # the socket has gone: its reader learns it
            while True:
                text = await client.queue.get()
                client.sending_since = time.monotonic()
                await client.ws.send_text(text)
                client.sending_since = None

    def _place(self, client: Client, table: Table | None) -> None:
        """Put ``client`` at ``table`` (None: the lobby), keeping the index of each table's connections."""
        if client.table is not None:
            at = self.watchers.get(client.table.id, [])
            if client in at:
                at.remove(client)
        client.table = table
        if table is not None:
            self.watchers.setdefault(table.id, []).append(client)

    def table_message(self, client: Client, now: float) -> dict[str, Any]:
        table = client.table
        assert table is not None
        seat = table.player_seat(client.user) if client.user else None  # an abandoner sees what a spectator sees
        view = table.view(seat, now, client.user)
        view["records"] = self.records.get(table.id, [])
        return {"type": "table", "table": view, "me": None if client.user is None else _user_view(client.user)}

    def lobby_message(self, client: Client) -> dict[str, Any]:
        return {"type": "lobby", "tables": self.room.lobby(client.user)}

    def send_lobby(self, client: Client) -> None:
        """The whole lobby, to a person who comes to it (his hello, his asking, his leaving a table); the
        changes after it come in ``lobby_update`` messages (:meth:`push_lobby`)."""
        self.post(client, self.lobby_message(client))

    async def broadcast(self, table: Table) -> None:
        """:meth:`post_table` (kept for callers that await it)."""
        self.post_table(table)

    def post_table(self, table: Table) -> None:
        """The table as each of its connections sees it; the lobby is pushed later (:meth:`push_lobby`)."""
        now = time.monotonic()
        self.active[table.id] = now
        self.lobby_dirty = True
        for c in list(self.watchers.get(table.id, [])):
            why = self.may_not_watch(c, table)
            if why:  # the owner closed the table to spectators (or made it private) while he watched
                self._place(c, None)
                self.post(c, {"type": "left", "table": table.id, "message": why})
                self.send_lobby(c)
                continue
            self.post(c, self.table_message(c, now))

    @staticmethod
    def may_not_watch(client: Client, table: Table) -> str | None:
        """Why ``client`` may not watch ``table`` now (None: he may): people seated always may."""
        if client.user is not None and table.seat_of(client.user) is not None:
            return None
        if not table.settings.spectators:
            return "this table allows no spectators"
        if table.settings.private and client.invite != table.invite:
            return "this table is private: watch with the invitation link (the owner may have renewed it)"
        return None

    def push_lobby(self) -> None:
        """The lobby's changes since the last push, to the connections looking at it (not at a table): one
        ``lobby_update`` with the tables added or changed (whole: a table's summary) and the ids of those gone.

        The whole list went to everyone at every change (10 tables: 9.6 KB to every person in the lobby,
        issue 41); a page now gets it once, when it comes to the lobby (:meth:`send_lobby`), and then what
        changed. A change is sent as the table now is, so a page that got the whole list after the last push
        and then the change applies the same table twice, to the same effect; a removal of a table it never
        had changes nothing. A private table is sent only to the people seated at it, and its removal only to
        those who could see it at the last push (nobody else learns that it exists)."""
        now = {t.id: _LobbyEntry(json.dumps(t.summary()), t.settings.private, t.seated_ids()) for t in self.room.tables.values()}
        before, self.lobby_pushed = self.lobby_pushed, now
        changed = [i for i, entry in now.items() if i not in before or before[i].text != entry.text]
        touched = [*changed, *(i for i in before if i not in now)]
        if not touched:
            return
        # the people seated at a private table that changed or went: their lobby differs from the others'
        private = {uid for i in touched for e in (now.get(i), before.get(i)) if e is not None and e.private for uid in e.seated}
        shared: str | None = None
        for c in list(self.clients):
            if c.user is None or c.table is not None or c.dropped:
                continue
            if c.user.id in private:
                text = self._lobby_update(c.user.id, touched, now, before)
            else:
                if shared is None:
                    shared = self._lobby_update(None, touched, now, before)
                text = shared
            if text:
                self.post_text(c, text)

    @staticmethod
    def _lobby_update(uid: int | None, touched: list[int], now: dict[int, _LobbyEntry], before: dict[int, _LobbyEntry]) -> str:
        """The ``lobby_update`` for the person ``uid`` (None: anyone seated at no private table among those
        ``touched``): the tables he sees that changed, and the ones he saw that he no longer sees (gone, or
        made private); "" when there is nothing for him. The tables' JSON is made once per push, and shared."""
        tables = [i for i in touched if i in now and now[i].seen_by(uid)]
        removed = [i for i in touched if i not in tables and i in before and before[i].seen_by(uid)]
        if not tables and not removed:
            return ""
        return (
            '{"type": "lobby_update", "tables": [' + ", ".join(now[i].text for i in tables) + '], "removed": ' + json.dumps(removed) + "}"
        )

    async def run_lobby(self) -> None:
        """Lobby changes, coalesced: at most one push every ``lobby_every`` seconds."""
        while True:
            await asyncio.sleep(self.limits.lobby_every)
            if self.lobby_dirty:
                self.lobby_dirty = False
                try:
                    async with self.lock:
                        self.push_lobby()
                except Exception:
                    log.exception("tarot serve: the lobby push failed; it goes on")

    # ----------------------------------------------------------------------------- the clock
    async def run_clock(self) -> None:
        """Every tick: what the clock makes due at each table, robots' moves sent to think in worker
        threads (never under the lock), idle tables closed."""
        while True:
            try:
                async with self.lock:
                    now = time.monotonic()
                    for table in self.room.advance(now, play=False):
                        self.post_table(table)
                    for table in list(self.room.tables.values()):
                        if table.due is not None and table.id not in self.thinking:
                            self.thinking.add(table.id)
                            self._spawn(self._think(table.robot_job(*table.due)))
                        if table.deal_due and table.id not in self.dealing:
                            self.dealing.add(table.id)
                            self._spawn(self._deal_later(table.deal_job()))
                    self.close_idle_tables(now)
                    self.give_back_memory(now)
            except Exception:  # one bad tick (a bug, the database) must not stop every table's clock for good
                log.exception("tarot serve: the room's clock failed; it goes on")
            await asyncio.sleep(self.tick)

    async def _think(self, job: RobotJob) -> None:
        """A robot's move thought in a worker thread, then played under the lock if the table is unchanged.

        An agent that has not answered after the room's ``robot_timeout`` seconds is left thinking in its
        thread (a thread cannot be stopped) and the rule-based robot moves instead, in a thread of its own,
        as when an agent raises; until that agent answers, its seat's next moves go to the rule-based robot
        at once, so that one agent that hangs holds at most one worker thread."""
        loop = asyncio.get_running_loop()
        try:
            if id(job.agent) in self.hung:
                log.warning("tarot serve: %s has still not answered its last move; the rule-based robot moves for it", job.who)
                action, failure = await loop.run_in_executor(self.rescue, job.fall_back)
            else:
                thought = loop.run_in_executor(self.robots, job.think)
                try:
                    action, failure = await asyncio.wait_for(asyncio.shield(thought), self.room.robot_timeout)
                except TimeoutError:
                    self._hangs(job, thought)
                    action, failure = await loop.run_in_executor(self.rescue, job.fall_back)
            async with self.lock:
                if job.table.apply_robot(job, action, failure, time.monotonic()):
                    self.post_table(job.table)
        except Exception:
            log.exception("tarot serve: a robot's move at table %s failed; the clock tries again", job.table.id)
        finally:
            self.thinking.discard(job.table.id)

    async def _deal_later(self, job: DealJob) -> None:
        """A table's next deal made in the dealer's thread, then dealt under the lock if the table still waits for it."""
        try:
            await asyncio.get_running_loop().run_in_executor(self.dealer, job.make)
            async with self.lock:
                if job.table.apply_deal(job, time.monotonic()):
                    self.post_table(job.table)
        except Exception:
            log.exception("tarot serve: dealing at table %s failed; the clock tries again", job.table.id)
        finally:
            self.dealing.discard(job.table.id)

    def _hangs(self, job: RobotJob, thought: asyncio.Future[Any]) -> None:
        """``job``'s agent did not answer in time: logged, and marked until its thread returns."""
        log.error("tarot serve: %s did not answer within %g s; the rule-based robot moves for it", job.who, self.room.robot_timeout)
        key = id(job.agent)
        self.hung.add(key)

        def answered(future: asyncio.Future[Any]) -> None:  # on the loop, when (if ever) the agent's thread returns
            self.hung.discard(key)
            if not future.cancelled():
                future.exception()  # retrieved: a late failure is not reported as never retrieved

        thought.add_done_callback(answered)

    def close_idle_tables(self, now: float) -> None:
        """Close the tables out of a game that nobody changed for ``table_idle`` seconds and that are
        empty of connected people or whose game is over: their connections go back to the lobby."""
        idle = self.limits.table_idle
        for table in list(self.room.tables.values()):
            if table.state in ("playing", "between") or table.id in self.thinking:
                continue
            if now - self.active.get(table.id, now) < idle:
                continue
            present = any(s.person and s.connected for s in table.seats)
            if present and table.state != "over":
                continue
            self.close_table(table, f"table {table.id} closed: unchanged for {idle:g} s with no game in progress")

    def give_back_memory(self, now: float) -> None:
        """Once tables or connections have gone, and at most every ``trim_every`` seconds: their memory given
        back to the system (:func:`~tarot_env.web.memory.give_back`: their cyclic garbage collected, the
        allocator's free pages returned), in the dealer's thread, not waited for. Without it the room's
        memory rose a few MB each time 50 tables came and went."""
        if not self.trim_due or now - self.trimmed_at < self.limits.trim_every:
            return
        self.trim_due = False
        self.trimmed_at = now
        self.trims += 1
        with contextlib.suppress(RuntimeError):  # the dealer shut down: the room is closing
            self.dealer.submit(give_back)

    def forget(self, user: User) -> None:
        """Let go of ``user``'s object once no connection of his and no seat holds him: he stays in the
        database and his next hello reads him back. The people in memory are then those present, not
        everyone who ever came. (His chips and XP are written at each game's end, in the database's
        thread, in order: a hello after it reads them.)"""
        if any(c.user is not None and c.user.id == user.id for c in self.clients):
            return
        if any(t.seat_of(user) is not None for t in self.room.tables.values()):
            return
        self.users.pop(user.id, None)

    def close_table(self, table: Table, why: str) -> None:
        for c in list(self.watchers.get(table.id, [])):
            self._place(c, None)
            self.post(c, {"type": "left", "table": table.id, "message": why})
            self.send_lobby(c)
        self.room.tables.pop(table.id, None)
        self.watchers.pop(table.id, None)
        self.records.pop(table.id, None)
        self.active.pop(table.id, None)
        table.env = None
        table.agents = {}
        self.lobby_dirty = True
        self.trim_due = True
        for seat in table.seats:
            if seat.user is not None:
                self.forget(seat.user)

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
        buffer first, and it never flushes: the socket stayed ESTABLISHED, its descriptor and its data
        held, for as long as the client kept the connection open (issue 41: minutes, 82 MB). The close
        frame itself waits for the buffer to drain (the wait below then timed out). When asyncio's buffer
        happened to be empty, the close did go out, and the kernel then kept the orphaned socket in
        FIN_WAIT1 with megabytes unsent. So the socket is reset: ``SO_LINGER`` 0 (the kernel drops what it
        holds) and ``transport.abort()`` (asyncio drops its buffer and closes the socket now, without the
        flush ``close()`` waits for). A client that does not read has no use for what was queued for it; a
        page that does read gets the close frame first when it could go out at once, and reconnects."""
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
        """A connection has ended (closed, or dropped; once only): when it was the person's last, each
        table where he sits learns that he is away."""
        if client not in self.clients:
            return
        self.clients.remove(client)
        self.per_address[client.address] = self.per_address.get(client.address, 1) - 1
        if self.per_address[client.address] <= 0:
            self.per_address.pop(client.address, None)
            self.address_buckets.pop(client.address, None)
        if client.writer is not None and not client.dropped:
            client.writer.cancel()
        async with self.lock:
            self._place(client, None)
            user = client.user
            if user is not None and not any(c.user is not None and c.user.id == user.id for c in self.clients):
                for table in self.room.tables.values():
                    if table.seat_of(user) is not None:
                        table.disconnect(user, time.monotonic())
                        self.post_table(table)
                self.forget(user)
            self.trim_due = True

    # ----------------------------------------------------------------------------- messages
    def user_of(self, token: str | None, name: str | None) -> User:
        """The person of ``token`` (renamed to ``name`` if given), or a new one: in the database's thread."""
        if token:
            user = self.store.user_by_token(token)
            if user is not None:
                user = self.users.setdefault(user.id, user)  # one object per person, shared by his tables
                if name and name != user.name:
                    self.store.rename(user, name)  # refused (RoomError) when another person has the name
                return user
        return self.store.new_user(name) if name else self.store.new_guest()  # kept by _hello

    def _limited(self, client: Client, kind: str, now: float) -> str | None:
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

    def _check_create(self, client: Client, now: float) -> None:
        """:class:`RoomError` when the room holds its most tables or the address creates too fast."""
        lim = self.limits
        if len(self.room.tables) >= lim.max_tables:
            raise RoomError(
                f"create: the room holds at most {lim.max_tables} tables and has {len(self.room.tables)}: "
                "join a table, or try again when one closes"
            )
        bucket = self.create_buckets.setdefault(client.address, Bucket(lim.creates_per_minute / 60.0, lim.create_burst))
        if not bucket.take(now):
            raise RoomError(
                f"create: too many tables created from your address: at most {lim.creates_per_minute:g} a minute "
                f"(bursts of {lim.create_burst:g}); try again in a minute"
            )

    async def handle(self, client: Client, data: dict[str, Any]) -> None:
        """One checked message. A refusal raises RoomError (answered as an error by the caller). The
        database is asked before the lock is taken; under the lock nothing waits."""
        kind = data["type"]
        if kind == "pong":  # the answer to a ping: that it came is all (the connection's ``heard`` is set)
            return
        if kind == "hello":
            if client.user is not None:
                raise RoomError("hello was already said on this connection")
            if data.get("token") and data.get("name"):
                self.board_writes += 1  # a renaming, perhaps: the leaderboard is read again
            user = await self.db_call(self.user_of, data.get("token"), data.get("name"))
            async with self.lock:
                self._hello(client, user, time.monotonic())
            return
        if client.user is None:
            raise RoomError('say hello first: {"type": "hello", "name": ...}')
        if kind == "leaderboard":
            rows = await self.leaderboard_rows()
            self.post(client, {"type": "leaderboard", "rows": rows})
            return
        deal = await self.deal_for(client, kind)
        agents = await self.agents_for(client, data)
        async with self.lock:
            self._handle_room(client, data, time.monotonic(), deal, agents)

    async def deal_for(self, client: Client, kind: str) -> DealJob | None:
        """For the owner's start or next: the deal, made in the dealer's thread before the lock is taken
        (the table deals it if it still fits; else, or for anyone else, None: the table deals its own)."""
        table, user = client.table, client.user
        if table is None or user is None or not table.is_owner(user):
            return None
        if not (kind == "start" and table.state in ("waiting", "over")) and not (kind == "next" and table.state == "between"):
            return None
        return await asyncio.get_running_loop().run_in_executor(self.dealer, table.deal_job().make)

    async def agents_for(self, client: Client, data: dict[str, Any]) -> dict[int, tuple[str, Any]] | None:
        """For the owner's ``robot`` (a robot seated) or ``start``: the robots' agents, made in the loader's
        thread before the lock is taken (:meth:`~tarot_env.web.seats.TableSeats.make_robots`), so that loading a
        model never holds the event loop; None where the message makes none (the table refuses it, or makes
        what it needs itself). A robot that cannot be made is refused from here, with the table's words."""
        table, user, kind = client.table, client.user, data["type"]
        if table is None or user is None or not table.is_owner(user) or table.state not in ("waiting", "over"):
            return None
        if kind == "robot":
            seat, robot = data["seat"], data["robot"]
            if robot is None or not 0 <= seat < table.num_players or table.seats[seat].person:
                return None
            wanted = {seat: robot}
        elif kind == "start":
            wanted = {p: s.robot for p, s in enumerate(table.seats) if s.robot}
        else:
            return None
        if not wanted:
            return None
        return await asyncio.get_running_loop().run_in_executor(self.loader, table.make_robots, wanted)

    def _hello(self, client: Client, user: User, now: float) -> None:
        # the one object of this person: another connection of his (or his seat) may hold it already, or it
        # was let go (:meth:`forget`) while this hello was read from the database
        user = self.users.setdefault(user.id, user)
        client.user = user
        self.post(client, {"type": "welcome", "user": _user_view(user), "token": user.token, **_ROOM_FACTS})
        for table in self.room.tables.values():  # back at a table he sits at: he takes his seat again
            if table.seat_of(user) is not None and table.reconnect(user, now, client.address):
                self._place(client, table)
                self.post_table(table)
                break
        self.send_lobby(client)

    def _handle_room(
        self,
        client: Client,
        data: dict[str, Any],
        now: float,
        deal: DealJob | None = None,
        agents: dict[int, tuple[str, Any]] | None = None,
    ) -> None:
        kind = data["type"]
        user = client.user
        assert user is not None
        if kind == "lobby":
            self.send_lobby(client)
            return
        if kind == "create":
            check_game(data["env"], data["players"])  # refused before he leaves his table
            self._check_create(client, now)
            self._leave_current(client)
            table = self.room.create(user, data["env"], data["players"], client.address)
            self._place(client, table)
            self.post_table(table)
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
            if client.table is not table:
                self._place(client, table)
            self.post_table(table)
            return
        table = client.table
        if table is None:
            raise RoomError("join or watch a table first")
        if kind == "leave":
            if table.seat_of(user) is not None and not table.seats[table.seat_of(user)].abandoned:  # type: ignore[index]
                table.leave(user)
            self._place(client, None)
            self.post_table(table)
            self.send_lobby(client)
            return
        if kind == "robot":
            made = (agents or {}).get(data["seat"])
            table.set_robot(user, data["seat"], data["robot"], made[1] if made and made[0] == data["robot"] else None)
        elif kind == "settings":
            table.change_settings(user, data["changes"])
        elif kind == "invite":
            table.renew_invite(user)
        elif kind == "start":
            table.start(user, now, deal, agents)
        elif kind == "next":
            table.next_deal(user, now, deal)
        elif kind == "move":
            table.move(user, data["action"], now)
        elif kind == "cancel":
            table.propose_cancel(user, now)
        elif kind == "cancel_answer":
            table.answer_cancel(user, data["accept"], now)
        self.post_table(table)

    def _leave_current(self, client: Client) -> None:
        """Going to another table: a seat at a table waiting for its game is freed; a watcher just goes."""
        table = client.table
        if table is None or client.user is None:
            return
        p = table.seat_of(client.user)
        if p is not None and not table.seats[p].abandoned:
            table.leave(client.user)  # refused (RoomError) during a game
        self._place(client, None)

    # ----------------------------------------------------------------------------- connections
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

    async def connection(self, ws: WebSocket) -> None:
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
            await self._read(client)
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

    async def _read(self, client: Client) -> None:
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
                limited = self._limited(client, data["type"], now)
                if limited:
                    raise RoomError(limited)
                await self.handle(client, data)
            except (MessageError, RoomError) as err:
                self.post(client, {"type": "error", "message": str(err), "about": _about(text)})
            except Exception:  # a fault of the server's (the database ...): said, logged, and the connection goes on
                log.exception("tarot serve: a request failed")
                about = _about(text)
                failed = f"the server failed to answer this {about or 'message'}; try again"
                self.post(client, {"type": "error", "message": failed, "about": about})


def _transport(ws: WebSocket) -> Any:
    """The asyncio transport under ``ws``, or None where there is none to be found (Starlette's TestClient).
    ASGI gives an application no handle on its socket; uvicorn's WebSocket protocols (``websockets``,
    ``websockets-sansio`` and ``wsproto``) pass their own bound method as ``receive`` and keep the
    connection's transport as their ``transport``: :meth:`Server._end` aborts it."""
    owner = getattr(getattr(ws, "_receive", None), "__self__", None)
    transport = getattr(owner, "transport", None)
    if callable(getattr(transport, "abort", None)) and callable(getattr(transport, "get_write_buffer_size", None)):
        return transport
    return None


def _about(text: str | bytes) -> str | None:
    """The type of a refused message, when it has one (the page shows a refused move next to the hand)."""
    with contextlib.suppress(Exception):
        data = json.loads(text)
        if isinstance(data, dict) and isinstance(data.get("type"), str):
            return data["type"][:30]
    return None


#: the warm-up plays deals (seeds 0, 1, ...) until WARM_PLAYED of them were played out, WARM_SEEDS at most
WARM_PLAYED, WARM_SEEDS = 3, 40


def warm_kernels(env_ids: Sequence[str] | None = None) -> None:
    """Load the numba kernels of each game (its rules and the rule-based robot) by playing deals of it with
    the rule-based bot at every seat until a few were played out (default: every game; one deal was not
    enough: French Tarot's seed 0 is thrown in, and the play's kernels then loaded during the first games,
    each load holding the interpreter). The first deal of a game in a process
    loads them (about 2 s on 2 cores from numba's cache, far more when it is cold), and a table's deal is
    dealt on the event loop: ``tarot serve`` does it in a thread at start-up, before anyone starts a game.
    A failure is logged (the game's first table then loads them itself)."""
    from tarot_env.agents import rule_agent
    from tarot_env.warmup import make_env, play_aec

    for env_id in tarot_env.ENV_IDS if env_ids is None else env_ids:
        try:
            env, bot = make_env(env_id, facts(env_id).default_players), rule_agent(env_id)
            played = 0
            for seed in range(WARM_SEEDS):  # until a few deals were played out: a thrown-in deal loads only the bidding's kernels
                played += len(play_aec(env, bot, seed=seed)["actions"]) > 2 * env.unwrapped.num_players
                if played >= WARM_PLAYED:
                    break
        except Exception:
            log.exception("tarot serve: warming the kernels of %s failed", env_id)


def warm_agents() -> None:
    """Import what the ``pretrained`` robot plays with (PyTorch, stable-baselines3, sb3-contrib) ahead, in the
    warm-up thread of ``tarot serve``: the room offers that robot, and its first one then loads its model
    only (the robots are made off the event loop anyway: :meth:`Server.agents_for`). Without the train extra
    there is nothing to import: the robot is refused with the extra's name when someone asks for it."""
    from tarot_env.agents.trained import maskable_ppo

    try:
        maskable_ppo()
    except ModuleNotFoundError as err:
        log.info("tarot serve: the pretrained robot is not offered here: %s", err)
    except Exception:
        log.exception("tarot serve: importing the pretrained robot's modules failed")


def warm_all() -> None:
    """The warm-up of ``tarot serve``, in a thread of its own: every game's kernels, then the trained agents' modules."""
    warm_kernels()
    if "pretrained" in ROBOTS:
        warm_agents()


def create_app(
    db: str = "runs/tarot_web.sqlite",
    *,
    room: Room | None = None,
    records_dir: str | Path | None = None,
    tick: float = 0.05,
    heartbeat: float = 10.0,
    silence: float = 30.0,
    limits: Limits | None = None,
    allowed_origins: Sequence[str] = (),
    warm: bool = False,
    challenge_agents: Sequence[str] | None = None,
) -> Starlette:
    """The Starlette app: ``/`` the page, ``/ws`` the WebSocket, ``/api/...`` the leaderboard and the records.
    ``heartbeat``: seconds between pings to every browser; ``silence``: seconds without a word after which a
    connection is dropped and its person is away (:meth:`Server.check_silence`). ``limits``: the room's
    bounds (:class:`Limits`); ``allowed_origins``: web origins besides the room's own host whose pages may
    open ``/ws`` (``https://tarot.example``). ``warm``: load every game's kernels and the trained robot's
    modules in a thread at start-up (:func:`warm_all`; ``tarot serve`` does). ``challenge_agents``: the agents
    whose scores on the challenge's deals are computed (default all three:
    :data:`~tarot_env.web.challenge_web.BASELINE_AGENTS`; the tests' rooms ask for the rule-based bot's only)."""
    server = Server(Store(db), room, records_dir, tick, heartbeat, silence, limits, allowed_origins)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        tasks = [asyncio.create_task(loop()) for loop in (server.run_clock, server.run_heartbeat, server.run_lobby)]
        if warm:  # a daemon thread: nothing waits for it, and it does not keep the process alive
            threading.Thread(target=warm_all, name="tarot-warm", daemon=True).start()
        try:
            yield
        finally:
            # the clock's loops and the robots' thinking tasks they spawned: none may submit to the
            # executors once they are shut down (that raised "cannot schedule new futures" at exit)
            spawned = [*tasks, *server._tasks]
            for task in spawned:
                task.cancel()
            for task in spawned:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            server.robots.shutdown(wait=False, cancel_futures=True)
            server.rescue.shutdown(wait=False, cancel_futures=True)
            server.dealer.shutdown(wait=False, cancel_futures=True)
            server.loader.shutdown(wait=False, cancel_futures=True)
            server.db.shutdown(wait=True)  # the writes queued are made

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def leaderboard(request: Request) -> Response:
        return JSONResponse(await server.leaderboard_rows())

    async def record(request: Request) -> Response:
        try:
            rid = int(request.path_params["rid"])
        except ValueError:
            given = request.path_params["rid"][:40]
            return JSONResponse({"error": f"a record id is a whole number, got {given!r}"}, status_code=400)
        if not 1 <= rid <= RECORD_ID_MAX:  # SQLite's integers: a larger one failed inside the database (500)
            return JSONResponse({"error": f"no record {str(rid)[:40]}: record ids are 1 to {RECORD_ID_MAX}"}, status_code=404)
        rec = await server.db_call(server.store.record, rid)
        if rec is None:
            return JSONResponse({"error": f"no record {rid}"}, status_code=404)
        return JSONResponse(rec, headers={"Content-Disposition": f'attachment; filename="record{rid}.json"'})

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api/leaderboard", leaderboard),
            Route("/api/records/{rid}", record),
            WebSocketRoute("/ws", server.connection),
            # the duplicate challenge: /challenge, /api/challenge/...
            *challenge_routes(server.store, db=server.db_wait, agents=challenge_agents),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        lifespan=lifespan,
    )
    app.state.server = server
    return app
