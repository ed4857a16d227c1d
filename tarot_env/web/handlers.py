"""What the room does with each message: :data:`HANDLERS`, one function a message type.

A handler is given the server, the connection and the message, checked (:func:`~.messages.check_message`:
its fields are there and of their types). A refusal raises :class:`~.people.RoomError`, answered as an
error by the connection's reader with nothing changed. What may wait (the database, a deal shuffled, a
robot's agent made) is awaited before the room's lock is taken; under the lock nothing waits. After a
change, the table is sent to each of its connections as its seat sees it (``server.post_table``). What a
handler may read of the server is :class:`Server`, a Protocol the app's server fulfils (this module does
not import the app: the app imports it).

Every type but ``pong`` and ``hello`` needs a person (his hello said first); the types that act on a
table need the connection to be at one (it joined or watches it).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import tarot_env
from tarot_env.env_facts import facts
from tarot_env.web.connections import Client, Connections
from tarot_env.web.db import Store
from tarot_env.web.dealing import DealJob, check_game
from tarot_env.web.lobby import Lobby
from tarot_env.web.people import RoomError, User
from tarot_env.web.room import Room, Table
from tarot_env.web.seats import ROBOTS
from tarot_env.web.settings import LIMITS
from tarot_env.web.workers import Database, Workers


class Server(Protocol):
    """What a handler reads of the server (:class:`tarot_env.web.app.Server` is one)."""

    room: Room
    store: Store
    lock: asyncio.Lock
    users: dict[int, User]  # the people held in memory, one object a person
    db: Database
    workers: Workers
    connections: Connections
    lobby: Lobby

    def post(self, client: Client, message: dict[str, Any]) -> None: ...
    def post_table(self, table: Table) -> None: ...
    def place(self, client: Client, table: Table | None) -> None: ...
    def may_not_watch(self, client: Client, table: Table) -> str | None: ...


#: a message type's handler: ``handler(server, client, message)``
Handler = Callable[[Server, Client, dict[str, Any]], Awaitable[None]]
HANDLERS: dict[str, Handler] = {}


def handles(kind: str) -> Callable[[Handler], Handler]:
    """Register the decorated function as the handler of ``kind``."""

    def register(fn: Handler) -> Handler:
        HANDLERS[kind] = fn
        return fn

    return register


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


#: sent in every welcome
ROOM_FACTS = _room_facts()


def user_view(u: User) -> dict[str, Any]:
    """A person as the page shows him (his token only ever goes to his own browser, in the welcome)."""
    return {"id": u.id, "name": u.name, "chips": u.chips, "xp": u.xp}


def said_hello(client: Client) -> User:
    """The connection's person; :class:`RoomError` before his hello."""
    if client.user is None:
        raise RoomError('say hello first: {"type": "hello", "name": ...}')
    return client.user


async def at_table(server: Server, client: Client, act: Callable[[Table, float], None]) -> None:
    """``act(table, now)`` under the room's lock at the connection's table, then the table sent to its connections."""
    async with server.lock:
        table = client.table
        if table is None:
            raise RoomError("join or watch a table first")
        act(table, time.monotonic())
        server.post_table(table)


# ------------------------------------------------------------------------------------- the connection
@handles("pong")
async def pong(server: Server, client: Client, data: dict[str, Any]) -> None:
    """The answer to a ping: that it came is all (the connection's ``heard`` is set)."""


@handles("hello")
async def hello(server: Server, client: Client, data: dict[str, Any]) -> None:
    """The person of the token (renamed if a name is given), or a new one; welcomed, back at the table where
    he sits, and sent the lobby."""
    if client.user is not None:
        raise RoomError("hello was already said on this connection")
    if data.get("token") and data.get("name"):
        server.db.changed()  # a renaming, perhaps: the leaderboard is read again
    user = await server.db.call(user_of, server, data.get("token"), data.get("name"))
    async with server.lock:
        # the one object of this person: another connection of his (or his seat) may hold it already, or it
        # was let go (:meth:`Server.forget`) while this hello was read from the database
        user = server.users.setdefault(user.id, user)
        client.user = user
        server.post(client, {"type": "welcome", "user": user_view(user), "token": user.token, **ROOM_FACTS})
        now = time.monotonic()
        for table in server.room.tables.values():  # back at a table he sits at: he takes his seat again
            if table.seat_of(user) is not None and table.reconnect(user, now, client.address):
                server.place(client, table)
                server.post_table(table)
                break
        server.lobby.send(client)


def user_of(server: Server, token: str | None, name: str | None) -> User:
    """The person of ``token`` (renamed to ``name`` if given), or a new one: in the database's thread."""
    store = server.store
    if token:
        user = store.user_by_token(token)
        if user is not None:
            user = server.users.setdefault(user.id, user)  # one object per person, shared by his tables
            if name and name != user.name:
                store.rename(user, name)  # refused (RoomError) when another person has the name
            return user
    return store.new_user(name) if name else store.new_guest()  # kept by hello


# ------------------------------------------------------------------------------------- the lobby
@handles("leaderboard")
async def leaderboard(server: Server, client: Client, data: dict[str, Any]) -> None:
    said_hello(client)
    server.post(client, {"type": "leaderboard", "rows": await server.db.leaderboard()})


@handles("lobby")
async def lobby(server: Server, client: Client, data: dict[str, Any]) -> None:
    said_hello(client)
    async with server.lock:
        server.lobby.send(client)


@handles("create")
async def create(server: Server, client: Client, data: dict[str, Any]) -> None:
    """A new table, its creator at seat 0: he leaves the table he was at."""
    user = said_hello(client)
    async with server.lock:
        check_game(data["env"], data["players"])  # refused before he leaves his table
        server.connections.check_create(client, time.monotonic(), len(server.room.tables))
        leave_current(server, client)
        table = server.room.create(user, data["env"], data["players"], client.address)
        server.place(client, table)
        server.post_table(table)


@handles("join")
async def join(server: Server, client: Client, data: dict[str, Any]) -> None:
    """A seat taken at a table (with its invitation if it is private); he leaves the table he was at."""
    user = said_hello(client)
    async with server.lock:
        table = server.room.get(data["table"])
        if client.table is not None and client.table is not table:
            table.check_sit(user, data["seat"], data.get("invite"))  # refused before he leaves his table
            leave_current(server, client)
        table.sit(user, data["seat"], client.address, data.get("invite"))
        _come_to(server, client, table, data.get("invite"))


@handles("watch")
async def watch(server: Server, client: Client, data: dict[str, Any]) -> None:
    """A table watched (a spectator: no hidden hand); he leaves the table he was at."""
    user = said_hello(client)
    async with server.lock:
        table = server.room.get(data["table"])
        visitor = Client(ws=client.ws, address=client.address, user=user, invite=data.get("invite"))
        why = server.may_not_watch(visitor, table)
        if why:
            raise RoomError(why)
        if client.table is not table:
            leave_current(server, client)
        _come_to(server, client, table, data.get("invite"))


def _come_to(server: Server, client: Client, table: Table, invite: str | None) -> None:
    client.invite = invite
    if client.table is not table:
        server.place(client, table)
    server.post_table(table)


def leave_current(server: Server, client: Client) -> None:
    """Going to another table: a seat at a table waiting for its game is freed; a watcher just goes."""
    table = client.table
    if table is None or client.user is None:
        return
    p = table.seat_of(client.user)
    if p is not None and not table.seats[p].abandoned:
        table.leave(client.user)  # refused (RoomError) during a game
    server.place(client, None)


# ------------------------------------------------------------------------------------- at a table
@handles("leave")
async def leave(server: Server, client: Client, data: dict[str, Any]) -> None:
    """Back to the lobby: his seat freed (refused during a game, where he disconnects instead), or he stops watching."""
    user = said_hello(client)
    async with server.lock:
        table = client.table
        if table is None:
            raise RoomError("join or watch a table first")
        p = table.seat_of(user)
        if p is not None and not table.seats[p].abandoned:
            table.leave(user)
        server.place(client, None)
        server.post_table(table)
        server.lobby.send(client)


@handles("robot")
async def robot(server: Server, client: Client, data: dict[str, Any]) -> None:
    """The owner seats a robot (its agent made beforehand, in the loader's thread) or empties a seat."""
    user = said_hello(client)
    seat, name = data["seat"], data["robot"]
    made = (await agents_for(server, client, data) or {}).get(seat)
    await at_table(server, client, lambda table, now: table.set_robot(user, seat, name, made[1] if made and made[0] == name else None))


@handles("settings")
async def settings(server: Server, client: Client, data: dict[str, Any]) -> None:
    user = said_hello(client)
    await at_table(server, client, lambda table, now: table.change_settings(user, data["changes"]))


@handles("invite")
async def invite(server: Server, client: Client, data: dict[str, Any]) -> None:
    """The owner renews a private table's invitation (the old link no longer admits)."""
    user = said_hello(client)
    await at_table(server, client, lambda table, now: table.renew_invite(user))


@handles("start")
async def start(server: Server, client: Client, data: dict[str, Any]) -> None:
    """The owner starts a game: its first deal and the robots' agents made beforehand, in worker threads."""
    user = said_hello(client)
    deal = await deal_for(server, client, "start")
    agents = await agents_for(server, client, data)
    await at_table(server, client, lambda table, now: table.start(user, now, deal, agents))


@handles("next")
async def next_deal(server: Server, client: Client, data: dict[str, Any]) -> None:
    """The owner deals the next deal before the pause ends (the deal made beforehand, in the dealer's thread)."""
    user = said_hello(client)
    deal = await deal_for(server, client, "next")
    await at_table(server, client, lambda table, now: table.next_deal(user, now, deal))


@handles("move")
async def move(server: Server, client: Client, data: dict[str, Any]) -> None:
    user = said_hello(client)
    await at_table(server, client, lambda table, now: table.move(user, data["action"], now))


@handles("cancel")
async def cancel(server: Server, client: Client, data: dict[str, Any]) -> None:
    user = said_hello(client)
    await at_table(server, client, lambda table, now: table.propose_cancel(user, now))


@handles("cancel_answer")
async def cancel_answer(server: Server, client: Client, data: dict[str, Any]) -> None:
    user = said_hello(client)
    await at_table(server, client, lambda table, now: table.answer_cancel(user, data["accept"], now))


# ------------------------------------------------------------------------------------- made beforehand
async def deal_for(server: Server, client: Client, kind: str) -> DealJob | None:
    """For the owner's start or next: the deal, made in the dealer's thread before the lock is taken
    (the table deals it if it still fits; else, or for anyone else, None: the table deals its own)."""
    table, user = client.table, client.user
    if table is None or user is None or not table.seats.is_owner(user):
        return None
    if not (kind == "start" and table.state in ("waiting", "over")) and not (kind == "next" and table.state == "between"):
        return None
    return await server.workers.deal(table.game.deal_job())


async def agents_for(server: Server, client: Client, data: dict[str, Any]) -> dict[int, tuple[str, Any]] | None:
    """For the owner's ``robot`` (a robot seated) or ``start``: the robots' agents, made in the loader's
    thread before the lock is taken (:meth:`~tarot_env.web.seats.Seats.make_robots`), so that loading a
    model never holds the event loop; None where the message makes none (the table refuses it, or makes
    what it needs itself). A robot that cannot be made is refused from here, with the table's words."""
    table, user, kind = client.table, client.user, data["type"]
    if table is None or user is None or not table.seats.is_owner(user) or table.state not in ("waiting", "over"):
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
    return await server.workers.load(table.seats.make_robots, wanted)
