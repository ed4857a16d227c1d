"""The web app of ``tarot serve``: the page, a WebSocket per browser, and the room's clock.

:class:`Server` is the room of one ``tarot serve``, composed of parts a reader can take one at a time:

* :class:`~.connections.Connections` (:mod:`.connections`): the open WebSockets, their admission, the
  rate limits, the heartbeat, sending to a browser (never waiting on it) and dropping one;
* :data:`~.handlers.HANDLERS` (:mod:`.handlers`): one function a message type, after the message's check
  (:mod:`.messages`); a refusal is answered ``{"type": "error", ...}`` with nothing changed;
* :class:`~.workers.Workers` and :class:`~.workers.Database` (:mod:`.workers`): the threads beside the
  event loop (the robots' thinking, their agents made, the deals shuffled, the database in one thread,
  freed memory given back), so that nothing under the room's lock waits;
* :class:`~.lobby.Lobby` (:mod:`.lobby`): the lobby pushed to the people looking at it, changes only;
* the :class:`~.room.Room` and its tables (:mod:`.room`), driven by :meth:`Server.run_clock`.

The server itself keeps the room's lock, the people held in memory, which connection is at which table,
the room's hooks (a deal's record and a game's result written in the database's thread), and the clock: a
task advances it a few times a second (robot moves sent to think, time-outs, reconnection windows, the
next deal, idle tables closed). After every change each browser at the table receives the table as its
seat sees it (:meth:`Table.view <tarot_env.web.room.Table.view>`): never another seat's hidden cards.

The protocol is documented in docs/web.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

import tarot_env
from tarot_env.env_facts import facts
from tarot_env.web.challenge_web import ChallengeService, service_routes
from tarot_env.web.connections import Bucket, Client, Connections, Limits
from tarot_env.web.db import Store
from tarot_env.web.dealing import DealJob
from tarot_env.web.game_end import GameResult
from tarot_env.web.handlers import HANDLERS, user_view
from tarot_env.web.lobby import Lobby
from tarot_env.web.messages import MAX_MESSAGE, MESSAGES, MessageError, check_message
from tarot_env.web.people import User, check_name
from tarot_env.web.robots import RobotJob
from tarot_env.web.room import Room, Table
from tarot_env.web.seats import ROBOTS
from tarot_env.web.workers import Database, Workers

__all__ = [
    "MAX_MESSAGE",
    "MESSAGES",
    "Bucket",
    "Client",
    "Limits",
    "MessageError",
    "Server",
    "check_message",
    "check_name",
    "create_app",
    "warm_agents",
    "warm_all",
    "warm_kernels",
]

STATIC = Path(__file__).parent / "static"
#: the largest record id (SQLite's largest integer)
RECORD_ID_MAX = 2**63 - 1
log = logging.getLogger("tarot_env.web")
T = TypeVar("T")


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
        self.store = store
        self.db = Database(store)
        self.workers = Workers()
        self.connections = Connections(limits or Limits(), heartbeat, silence, allowed_origins, self.workers.spawn, self._gone)
        self.room = room or Room()
        self.room._next_id = max(self.room._next_id, store.next_table_id())
        self.lobby = Lobby(self.room, self.connections)
        self.records_dir = Path(records_dir) if records_dir else None
        self.tick = tick
        self.lock = asyncio.Lock()
        self.watchers: dict[int, list[Client]] = {}  # table id -> the connections at it (seated or watching)
        self.users: dict[int, User] = {}  # the people held by a connection or a seat (see :meth:`forget`)
        self.records: dict[int, list[int]] = {}  # table id -> its deal records' ids
        self.active: dict[int, float] = {}  # table id -> when it last changed (idle tables close)
        self.thinking: set[int] = set()  # tables whose robot is thinking now
        self.dealing: set[int] = set()  # tables whose next deal is being made now
        self._next_record = store.next_record_id()
        self.room.on_table_created = self._table_created
        self.room.on_deal_end = self._deal_ended
        self.room.on_game_end = self._game_ended

    # ----------------------------------------------------------------------------- the parts, by name
    @property
    def clients(self) -> list[Client]:
        """The open connections (:class:`~.connections.Connections`)."""
        return self.connections.clients

    @property
    def limits(self) -> Limits:
        return self.connections.limits

    @limits.setter
    def limits(self, limits: Limits) -> None:
        self.connections.limits = limits

    @property
    def heartbeat(self) -> float:
        return self.connections.heartbeat

    @property
    def silence(self) -> float:
        return self.connections.silence

    async def db_call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the database's thread, after every call queued before it (:meth:`.Database.call`)."""
        return await self.db.call(fn, *args)

    def db_later(self, fn: Callable[..., Any], *args: Any) -> None:
        """``fn(*args)`` in the database's thread, in order, not waited for (:meth:`.Database.later`)."""
        self.db.later(fn, *args)

    def db_wait(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the database's thread, waited for, from a worker thread (:meth:`.Database.wait`)."""
        return self.db.wait(fn, *args)

    async def leaderboard_rows(self) -> list[dict[str, Any]]:
        """The leaderboard, from memory while nothing changed it (:meth:`.Database.leaderboard`)."""
        return await self.db.leaderboard()

    def post(self, client: Client, message: dict[str, Any]) -> None:
        """Queue ``message`` for ``client``; never waits (:meth:`.Connections.post`)."""
        self.connections.post(client, message)

    def push_lobby(self) -> None:
        """The lobby's changes since the last push, to the people looking at it (:meth:`.Lobby.push`)."""
        self.lobby.push()

    # ----------------------------------------------------------------------------- the room's hooks
    def _table_created(self, table: Table) -> None:
        self.active[table.id] = time.monotonic()
        self.db_later(self.store.new_table, table.id, table.env_id, table.num_players, table.owner.id if table.owner else None)

    def _deal_ended(self, table: Table, record: dict[str, Any], info: dict[str, Any]) -> None:
        rid = self._next_record  # numbered here, so that the table's links are right before the row is written
        self._next_record += 1
        self.records.setdefault(table.id, []).append(rid)
        self.db_later(self._save_record, rid, table.id, table.game_no, table.env_id, str(info.get("result", "?")), record)

    def _save_record(self, rid: int, table_id: int, game_no: int, env_id: str, result: str, record: dict[str, Any]) -> None:
        self.store.save_record(table_id, game_no, env_id, result, record, record_id=rid)
        if self.records_dir is not None:
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
        self.db.changed()  # the leaderboard is read again, after these writes

    # ----------------------------------------------------------------------------- the tables' connections
    def place(self, client: Client, table: Table | None) -> None:
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
        return {"type": "table", "table": view, "me": None if client.user is None else user_view(client.user)}

    def post_table(self, table: Table) -> None:
        """The table as each of its connections sees it; the lobby is pushed later (:meth:`.Lobby.run`)."""
        now = time.monotonic()
        self.active[table.id] = now
        self.lobby.dirty = True
        for c in list(self.watchers.get(table.id, [])):
            why = self.may_not_watch(c, table)
            if why:  # the owner closed the table to spectators (or made it private) while he watched
                self.place(c, None)
                self.post(c, {"type": "left", "table": table.id, "message": why})
                self.lobby.send(c)
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

    def close_table(self, table: Table, why: str) -> None:
        """Close ``table``: its connections go back to the lobby, its deal and robots are let go."""
        for c in list(self.watchers.get(table.id, [])):
            self.place(c, None)
            self.post(c, {"type": "left", "table": table.id, "message": why})
            self.lobby.send(c)
        self.room.tables.pop(table.id, None)
        self.watchers.pop(table.id, None)
        self.records.pop(table.id, None)
        self.active.pop(table.id, None)
        table.close()
        self.lobby.dirty = True
        self.workers.trim_due = True
        for seat in table.seats:
            if seat.user is not None:
                self.forget(seat.user)

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
                        game = table.game
                        if game.due is not None and table.id not in self.thinking:
                            self.thinking.add(table.id)
                            self.workers.spawn(self._think(table, game.robot_job(*game.due)))
                        if game.deal_due and table.id not in self.dealing:
                            self.dealing.add(table.id)
                            self.workers.spawn(self._deal_later(table, game.deal_job()))
                    self.close_idle_tables(now)
                    self.workers.give_back_memory(now, self.limits.trim_every)
            except Exception:  # one bad tick (a bug, the database) must not stop every table's clock for good
                log.exception("tarot serve: the room's clock failed; it goes on")
            await asyncio.sleep(self.tick)

    async def run_lobby(self) -> None:
        """Lobby changes, coalesced: at most one push every ``lobby_every`` seconds (:meth:`.Lobby.run`)."""
        await self.lobby.run(self.lock, lambda: self.limits.lobby_every)

    async def _think(self, table: Table, job: RobotJob) -> None:
        """A robot's move thought in a worker thread (:meth:`.Workers.think`: for at most the room's
        ``robot_timeout``), then played under the lock if the table is unchanged."""
        try:
            action, failure = await self.workers.think(job, self.room.robot_timeout)
            async with self.lock:
                if table.game.apply_robot(job, action, failure, time.monotonic()):
                    self.post_table(table)
        except Exception:
            log.exception("tarot serve: a robot's move at table %s failed; the clock tries again", table.id)
        finally:
            self.thinking.discard(table.id)

    async def _deal_later(self, table: Table, job: DealJob) -> None:
        """A table's next deal made in the dealer's thread, then dealt under the lock if the table still waits for it."""
        try:
            await self.workers.deal(job)
            async with self.lock:
                if table.game.apply_deal(job, time.monotonic()):
                    self.post_table(table)
        except Exception:
            log.exception("tarot serve: dealing at table %s failed; the clock tries again", table.id)
        finally:
            self.dealing.discard(table.id)

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

    # ----------------------------------------------------------------------------- connections and messages
    async def connection(self, ws: WebSocket) -> None:
        """One browser's WebSocket, from its admission to its end (:meth:`.Connections.serve`)."""
        await self.connections.serve(ws, self.handle)

    async def handle(self, client: Client, data: dict[str, Any]) -> None:
        """One checked message, to its type's handler (:data:`~.handlers.HANDLERS`). A refusal raises
        RoomError (answered as an error by the caller)."""
        await HANDLERS[data["type"]](self, client, data)

    async def _gone(self, client: Client) -> None:
        """A connection has ended (closed, or dropped; once only): when it was the person's last, each
        table where he sits learns that he is away."""
        async with self.lock:
            self.place(client, None)
            user = client.user
            if user is not None and not any(c.user is not None and c.user.id == user.id for c in self.clients):
                for table in self.room.tables.values():
                    if table.seat_of(user) is not None:
                        table.disconnect(user, time.monotonic())
                        self.post_table(table)
                self.forget(user)
            self.workers.trim_due = True

    async def stop(self, loops: list[asyncio.Task[Any]]) -> None:
        """The room stops: its loops and spawned tasks cancelled, the worker threads shut down, and the
        database's writes queued made."""
        await self.workers.stop(loops)
        self.db.shutdown()


#: the warm-up plays deals (seeds 0, 1, ...) until WARM_PLAYED of them were played out, WARM_SEEDS at most
WARM_PLAYED, WARM_SEEDS = 3, 40


def warm_kernels(env_ids: Sequence[str] | None = None) -> None:
    """Load the numba kernels of each game (its rules and the rule-based robot) by playing deals of it with
    the rule-based bot at every seat until a few were played out (default: every game; one deal is not
    enough: French Tarot's seed 0 is thrown in, and the play's kernels would then load during the first
    games, each load holding the interpreter). The first deal of a game in a process
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
    only (the robots are made off the event loop anyway: :func:`.handlers.agents_for`). Without the train extra
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
    connection is dropped and its person is away (:meth:`.Connections.check_silence`). ``limits``: the room's
    bounds (:class:`Limits`); ``allowed_origins``: web origins besides the room's own host whose pages may
    open ``/ws`` (``https://tarot.example``). ``warm``: load every game's kernels and the trained robot's
    modules in a thread at start-up (:func:`warm_all`; ``tarot serve`` does). ``challenge_agents``: the agents
    whose scores on the challenge's deals are computed (default all four:
    :data:`~tarot_env.web.challenge_web.BASELINE_AGENTS`; the tests' rooms ask for the rule-based bot's only)."""
    server = Server(Store(db), room, records_dir, tick, heartbeat, silence, limits, allowed_origins)
    challenge = ChallengeService(server.store, db=server.db_wait, agents=challenge_agents)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        tasks = [asyncio.create_task(loop()) for loop in (server.run_clock, server.connections.run_heartbeat, server.run_lobby)]
        if warm:  # a daemon thread: nothing waits for it, and it does not keep the process alive
            threading.Thread(target=warm_all, name="tarot-warm", daemon=True).start()
        try:
            yield
        finally:
            challenge.close()  # the baselines being computed are given up: a stopped room plays no deal
            await server.stop(tasks)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def leaderboard(request: Request) -> Response:
        return JSONResponse(await server.db.leaderboard())

    async def record(request: Request) -> Response:
        try:
            rid = int(request.path_params["rid"])
        except ValueError:
            given = request.path_params["rid"][:40]
            return JSONResponse({"error": f"a record id is a whole number, got {given!r}"}, status_code=400)
        if not 1 <= rid <= RECORD_ID_MAX:  # SQLite's integers: a larger one failed inside the database (500)
            return JSONResponse({"error": f"no record {str(rid)[:40]}: record ids are 1 to {RECORD_ID_MAX}"}, status_code=404)
        rec = await server.db.call(server.store.record, rid)
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
            *service_routes(challenge),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        lifespan=lifespan,
    )
    app.state.server = server
    app.state.challenge = challenge
    return app
