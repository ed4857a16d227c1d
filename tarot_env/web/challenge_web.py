"""The duplicate challenge in the room: HTTP endpoints, its results in the room's database, and the page.

A challenge deal is a session of its own, apart from the room's tables (:mod:`tarot_env.web.room` is
not involved): one person in one seat of a fixed deal (:mod:`tarot_env.challenge`), the rule-based
bot at the other seats answering at once. So it needs no clock and no WebSocket: each request is
answered with the deal as the person's seat sees it, built by :func:`tarot_env.web.views.deal_view`
(never another seat's hidden cards).

    POST /api/challenge/start  {"token"?, "name"?, "table"?}          a deal (the one in progress, or the next)
    POST /api/challenge/move   {"token": ..., "action": <action id>}  a move; the robots answer at once
    POST /api/challenge/state  {"token": ...}                         the deal in progress
    GET  /challenge                                                   the page

A person is his room token (the page keeps it in localStorage as the room's page does); with a name
and no token a new person is made (the room's name check; a taken name is a 409 that names it), with
neither a guest with a name nobody has, and the new person's token and name are returned. The deal offered is the first the person
has not started, of the first table offered (French Tarot for 4 players first); its seat is
the one fewest people have started in, so people pile up on the same (deal, seat) and can be
compared. A deal counts as the person's once started (a person who leaves a bad deal does not get it
again), and its result is stored when it ends (:data:`results`, ``challenge_results``) and answered
with the comparison against the agents and the other people.

**Held-out deals** (issue 41). The room's deals are not the committed protocol deal sets, which are
public (anyone could look a deal up and play it knowing every hand): they are drawn from the operator's
own secret (:class:`HeldOutDeals`), made at the room's first start and kept in its database
(``challenge_secret``), never in the repository; the deals the rule-based bots throw in are skipped, as
the committed baselines skip them. The agents' scores on them are computed on first use, in a thread
of their own, when a person starts a (deal, seat) nobody started before, and stored
(``challenge_baselines``): the comparison at the deal's end reads them. A table is offered when the
repository has its committed baselines file (``results/challenge``), with as many deals.

**Bounds per address** (:data:`NEW_PEOPLE`, :data:`DEALS_STARTED`): 150 new people from one address
in 0.6 s, and a script that played 20 deals in 0.9 s, all counted as people in the comparison and the
export; a start past a bound is answered 429, saying which bound and how long to wait.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import json
import logging
import math
import queue
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import Column, Float, Integer, MetaData, String, Table, Text, create_engine, insert, inspect, select, text, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from tarot_env import challenge as C
from tarot_env.agents import rule_agent
from tarot_env.env_facts import facts
from tarot_env.errors import IllegalActionError
from tarot_env.moves import refusal
from tarot_env.rules.results import NOT_PLAYED
from tarot_env.web.people import RoomError, check_name
from tarot_env.web.views import deal_view, refusal_words

STATIC = Path(__file__).parent / "static"
log = logging.getLogger("tarot_env.web")
MAX_BODY = 4096
#: the most deals in progress kept in memory: past it the oldest is dropped (it stays started: not offered again)
MAX_SESSIONS = 1000
#: new people one address may make through the challenge: (how many, in how many seconds), each bound checked
NEW_PEOPLE: tuple[tuple[int, float], ...] = ((5, 60.0), (20, 3600.0))
#: challenge deals one address may start, as :data:`NEW_PEOPLE` (a person takes a minute or more to play one)
DEALS_STARTED: tuple[tuple[int, float], ...] = ((6, 60.0), (40, 3600.0))
#: the most addresses whose starts are remembered (the oldest forgotten first): memory bounded under a flood
MAX_ADDRESSES = 10_000
#: the agents a held-out deal's baselines are computed for (:data:`tarot_env.challenge.AGENTS`)
BASELINE_AGENTS: tuple[str, ...] = tuple(C.AGENTS)
#: seconds a ``state`` request at the end of a deal waits for its baselines still being computed (a worker
#: thread's wait, never the event loop's, and short: Starlette's worker threads are shared). The move that ends
#: the deal does not wait (its answer says they are being computed); the page then asks (``state``) every few
#: seconds until they are known
BASELINE_WAIT = 5.0
#: the most candidate deals tried to find one the rule-based bots play (not thrown in, not everyone passing)
MAX_TRIES = 100_000
#: the fields of each request: name -> (types, required)
REQUESTS: dict[str, dict[str, tuple[tuple[type, ...], bool]]] = {
    "start": {"token": ((str,), False), "name": ((str,), False), "table": ((str,), False)},
    "move": {"token": ((str,), True), "action": ((int,), True)},
    "state": {"token": ((str,), True)},
}

metadata = MetaData()
#: one row per challenge deal started: score and record are set when it ends (NULL: not finished)
results = Table(
    "challenge_results",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("user_id", Integer, nullable=False),  # users.id of the room's database
    Column("player", String(32), nullable=False),  # the pseudonym of the data set (a hash of the token)
    Column("table_name", String(40), nullable=False),
    Column("deal", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("score", Float),
    Column("record", Text),  # JSON: the deal record (docs/interface.md §5)
    Column("started", String(32), nullable=False),
    Column("finished", String(32)),
    Column("deal_set", String(40)),  # the held-out deal set (HeldOutDeals.id); NULL: the committed protocol deal set
)
#: the operator's secret the held-out deals are drawn from, made at the first start (the row named "deals"), and the
#: agents' names the stored baselines use (the row named "agents", :meth:`ChallengeStore._rename_plain_pimc`)
secret_table = Table(
    "challenge_secret",
    metadata,
    Column("name", String(20), primary_key=True),
    Column("value", String(64), nullable=False),
    Column("created", String(32), nullable=False),
)
#: the agents' scores on the held-out deals, computed on first use: one row per (deal, seat, agent)
baselines = Table(
    "challenge_baselines",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("deal_set", String(40), nullable=False),
    Column("table_name", String(40), nullable=False),
    Column("deal", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("agent", String(20), nullable=False),
    Column("score", Float, nullable=False),
    Column("machine", String(120), nullable=False),  # the search agent's play depends on its speed
    Column("computed", String(32), nullable=False),
)


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


class ChallengeError(ValueError):
    """A refused request: its message, and the HTTP status it is answered with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class ChallengeStore:
    """The challenge's tables, on the room's engine (``tarot serve``) or on a database file (the export).

    ``deal_set``: which deals the rows are of, the held-out set's id (:attr:`HeldOutDeals.id`) or None
    for the committed protocol deal set (a room's rows from before the held-out deals): results of two
    sets are never compared with each other, and a deal started in one is not one started in the other."""

    def __init__(self, db: str | Engine, create: bool = True) -> None:
        self.engine = db if isinstance(db, Engine) else create_engine(f"sqlite:///{Path(db).expanduser()}")
        # a database from before ``search`` was the search over the network, read without being changed (the
        # export): its ``search`` scores are read as ``pimc``'s (:meth:`_rename_plain_pimc` renames them at a start)
        self.old_names = False
        if create:
            metadata.create_all(self.engine)
            self._add_deal_set()
            self._rename_plain_pimc()
        elif inspect(self.engine).has_table(secret_table.name):
            with self.engine.connect() as c:
                self.old_names = c.execute(select(secret_table.c.name).where(secret_table.c.name == "agents")).first() is None

    def _add_deal_set(self) -> None:
        """A room's database from before the held-out deals: its results get their ``deal_set`` column (NULL:
        the committed deal set they were played on)."""
        columns = {c["name"] for c in inspect(self.engine).get_columns(results.name)}
        if "deal_set" not in columns:
            with self.engine.begin() as c:
                c.execute(text(f"ALTER TABLE {results.name} ADD COLUMN deal_set VARCHAR(40)"))

    def _rename_plain_pimc(self) -> None:
        """A room's database from before ``search`` was the search over the trained network (2026-12-07): its
        stored ``search`` scores are plain PIMC's, which the challenge now calls ``pimc``. Renamed once; the row
        ``agents`` of ``challenge_secret`` says that the database's names are the new ones (a new one's too)."""
        try:
            with self.engine.begin() as c:
                if c.execute(select(secret_table.c.value).where(secret_table.c.name == "agents")).first() is None:
                    c.execute(update(baselines).where(baselines.c.agent == "search").values(agent="pimc"))
                    c.execute(insert(secret_table).values(name="agents", value=",".join(C.AGENTS), created=_now()))
        except IntegrityError:  # another process renamed them first (its row is there): nothing left to do
            pass

    def secret(self) -> str:
        """The operator's secret the held-out deals are drawn from: made (random, 128 bits) at the first call and
        kept in this database, so that the room offers the same deals from one start to the next."""
        with self.engine.begin() as c:
            row = c.execute(select(secret_table.c.value).where(secret_table.c.name == "deals")).first()
            if row is not None:
                return str(row[0])
            value = secrets.token_hex(16)
            c.execute(insert(secret_table).values(name="deals", value=value, created=_now()))
            return value

    def start(self, user_id: int, player: str, table: str, deal: int, seat: int, deal_set: str | None = None) -> int:
        with self.engine.begin() as c:
            row = insert(results).values(
                user_id=user_id, player=player, table_name=table, deal=deal, seat=seat, started=_now(), deal_set=deal_set
            )
            key = c.execute(row).inserted_primary_key
            if key is None:  # an insert of one row always has it; say so if the database did not
                raise RuntimeError("the database returned no id for a new challenge result")
            return int(key[0])

    def finish(self, rid: int, score: float, record: dict[str, Any]) -> None:
        with self.engine.begin() as c:
            c.execute(update(results).where(results.c.id == rid).values(score=score, record=json.dumps(record), finished=_now()))

    def started(self, user_id: int, deal_set: str | None = None) -> set[tuple[str, int]]:
        """The (table, deal) pairs of ``deal_set`` the person has started, in any seat (he knows their cards)."""
        with self.engine.connect() as c:
            query = select(results.c.table_name, results.c.deal).where(results.c.user_id == user_id, _of_set(deal_set))
            rows = c.execute(query).all()
        return {(r[0], int(r[1])) for r in rows}

    def seat_counts(self, table: str, deal: int, deal_set: str | None = None) -> dict[int, int]:
        """How many people started each seat of the deal."""
        with self.engine.connect() as c:
            query = select(results.c.seat).where(results.c.table_name == table, results.c.deal == deal, _of_set(deal_set))
            rows = c.execute(query).all()
        out: dict[int, int] = {}
        for (seat,) in rows:
            out[int(seat)] = out.get(int(seat), 0) + 1
        return out

    def scores(self, table: str, deal: int, seat: int, but: int, deal_set: str | None = None) -> list[float]:
        """The finished scores of (deal, seat), but row ``but``'s (the person's own)."""
        query = select(results.c.score).where(
            results.c.table_name == table,
            results.c.deal == deal,
            results.c.seat == seat,
            results.c.score.is_not(None),
            results.c.id != but,
            _of_set(deal_set),
        )
        with self.engine.connect() as c:
            return [float(r[0]) for r in c.execute(query).all()]

    def baselines(self, deal_set: str, table: str, deal: int, seat: int) -> dict[str, float]:
        """The agents' stored scores in (deal, seat) of the held-out set: agent -> score."""
        query = select(baselines.c.agent, baselines.c.score).where(
            baselines.c.deal_set == deal_set, baselines.c.table_name == table, baselines.c.deal == deal, baselines.c.seat == seat
        )
        with self.engine.connect() as c:
            rows = c.execute(query).all()
        return {("pimc" if self.old_names and r[0] == "search" else str(r[0])): float(r[1]) for r in rows}

    def save_baselines(self, deal_set: str, table: str, deal: int, seat: int, scores: dict[str, float], machine: str) -> None:
        keep = dict(deal_set=deal_set, table_name=table, deal=deal, seat=seat, machine=machine[:120], computed=_now())
        with self.engine.begin() as c:
            for agent, score in scores.items():
                c.execute(insert(baselines).values(agent=agent, score=float(score), **keep))

    def dataset(self) -> Iterator[dict[str, Any]]:
        """The finished challenge deals as data set rows (:func:`tarot_env.challenge.dataset_row`), in the order
        played. A held-out deal's row also names its set (``deal_set``) and carries the agents' scores on it
        (``agents``): its deal index is in that set, not in the committed deal sets, whose baselines files
        do not describe it (its cards are in its ``record``)."""
        if not inspect(self.engine).has_table(results.name):  # a room where nobody took the challenge
            return
        held_out = "deal_set" in {c["name"] for c in inspect(self.engine).get_columns(results.name)}
        query = select(results).where(results.c.score.is_not(None)).order_by(results.c.id)
        if not held_out:  # a room's database from before the held-out deals, only read
            query = select(*(c for c in results.c if c.name != "deal_set")).where(results.c.score.is_not(None)).order_by(results.c.id)
        with self.engine.connect() as c:
            rows = c.execute(query).all()
        scored = inspect(self.engine).has_table(baselines.name)
        for r in rows:
            row = C.dataset_row(r.table_name, r.deal, r.seat, r.player, r.score, json.loads(r.record))
            deal_set = getattr(r, "deal_set", None)
            if deal_set is not None:
                row["deal_set"] = deal_set
                row["agents"] = self.baselines(deal_set, r.table_name, r.deal, r.seat) if scored else {}
            yield row


def _of_set(deal_set: str | None) -> Any:
    """The rows of ``deal_set`` (None: the committed deal set's, whose rows have none)."""
    return results.c.deal_set.is_(None) if deal_set is None else results.c.deal_set == deal_set


# ------------------------------------------------------------------------------------------ held-out deals
class HeldOutDeals:
    """The room's own challenge deals, drawn from the operator's ``secret`` (never committed): deal ``index`` of
    a table is the ``index``-th of the deals seeded ``sha256(secret, table, j)``, j = 0, 1, ..., that the
    rule-based bot at every seat plays (somebody takes; thrown-in deals skipped, as
    :func:`tarot_env.challenge.played_deals` skips them in the committed sets). Deterministic, so the room offers
    the same deals from one start to the next; found once and kept (a few milliseconds each)."""

    def __init__(self, secret: str) -> None:
        self.secret = secret
        #: the set's name in the database and the data set: not the secret, from which nothing can be drawn back
        self.id = "held-out-" + hashlib.sha256(f"tarot-challenge-set:{secret}".encode()).hexdigest()[:12]
        self.found: dict[str, list[dict[str, Any]]] = {}
        self.tried: dict[str, int] = {}
        self.lock = threading.Lock()

    def seed(self, table: str, j: int) -> int:
        digest = hashlib.sha256(f"tarot-challenge-deal:{self.secret}:{table}:{j}".encode()).digest()
        return int.from_bytes(digest[:8], "big") >> 1

    def __call__(self, table: str, index: int) -> dict[str, Any]:
        """Deal ``index`` of ``table`` (what ``env.reset(options={"deal": ...})`` takes)."""
        C.table_env(table)
        with self.lock:
            found = self.found.setdefault(table, [])
            j = self.tried.get(table, 0)
            while len(found) <= index:
                if j >= MAX_TRIES:
                    raise C.ChallengeError(f"{table}: no deal the bots play among {MAX_TRIES} tried")
                deal, played = self._candidate(table, j)
                j += 1
                if played:
                    found.append(deal)
            self.tried[table] = j
            return found[index]

    def _candidate(self, table: str, j: int) -> tuple[dict[str, Any], bool]:
        """Candidate ``j``: its cards, and whether the rule-based bot at every seat plays it."""
        env = C.make_env(table)
        env.reset(seed=self.seed(table, j))
        raw = env.unwrapped
        bot = rule_agent(raw.metadata["name"])
        while not raw.game_over:
            obs = env.observe(raw.agent_selection)
            env.step(int(bot.act(obs["observation"], obs["action_mask"])))
        return raw.record()["deal"], str(raw.infos[raw.possible_agents[0]].get("result")) not in NOT_PLAYED


# ------------------------------------------------------------------------------------------ bounds per address
@dataclass
class Window:
    """At most ``count`` events in any ``seconds``: the times of the last ``count`` ones."""

    count: int
    seconds: float
    times: deque[float] = field(default_factory=deque)

    def wait(self, now: float) -> float:
        """Seconds until one more event is allowed (0: now)."""
        while self.times and now - self.times[0] >= self.seconds:
            self.times.popleft()
        return 0.0 if len(self.times) < self.count else self.times[0] + self.seconds - now


def _duration(seconds: float) -> str:
    seconds = max(1, math.ceil(seconds))
    return f"{seconds} s" if seconds < 120 else f"{math.ceil(seconds / 60)} min"


class AddressLimits:
    """How many of one kind of request each address may make (:data:`NEW_PEOPLE`, :data:`DEALS_STARTED`); the
    addresses remembered are bounded (:data:`MAX_ADDRESSES`, the least recent forgotten first)."""

    def __init__(self, what: str, bounds: Sequence[tuple[int, float]]) -> None:
        self.what = what
        self.bounds = tuple(bounds)
        self.windows: OrderedDict[str | None, list[Window]] = OrderedDict()

    def _windows(self, address: str | None) -> list[Window]:
        windows = self.windows.pop(address, None) or [Window(n, s) for n, s in self.bounds]
        self.windows[address] = windows  # the most recent last
        while len(self.windows) > MAX_ADDRESSES:
            self.windows.popitem(last=False)
        return windows

    def check(self, address: str | None, now: float) -> None:
        """:class:`ChallengeError` 429 when ``address`` may make no more now, saying which bound and how long to wait."""
        for w in self._windows(address):
            wait = w.wait(now)
            if wait > 0:
                per = "a minute" if w.seconds == 60 else "an hour" if w.seconds == 3600 else f"in {w.seconds:g} s"
                raise ChallengeError(
                    f"start: too many {self.what} from your address: at most {w.count} {per}; try again in {_duration(wait)}", 429
                )

    def count(self, address: str | None, now: float) -> None:
        """One more made by ``address``."""
        for w in self._windows(address):
            w.times.append(now)


@dataclass
class Session:
    """A person's challenge deal in progress."""

    game: C.ChallengeGame
    rid: int
    people: list[float] | None = None  # the other people's scores on its (deal, seat), read when it ends
    comparison: dict[str, Any] | None = None  # set when it ends and the agents' scores are known


def check_request(kind: str, body: bytes) -> dict[str, Any]:
    """The request's JSON object, or :class:`ChallengeError` naming what was given and what is allowed."""
    if len(body) > MAX_BODY:
        raise ChallengeError(f"request too long ({len(body)} bytes; at most {MAX_BODY})")
    try:
        data = json.loads(body or b"{}")
    except (ValueError, RecursionError):
        raise ChallengeError('a request is a JSON object such as {"token": "..."}') from None
    spec = REQUESTS[kind]
    if not isinstance(data, dict):
        raise ChallengeError(f"a request is a JSON object with the fields {', '.join(spec)}, got a {type(data).__name__}")
    extra = sorted(str(k)[:20] for k in set(data) - set(spec))
    if extra:
        raise ChallengeError(f"{kind}: unknown field(s) {', '.join(extra)}; a {kind} request has the fields {', '.join(spec)}")
    for key, (types, required) in spec.items():
        if key not in data:
            if required:
                raise ChallengeError(f"{kind}: field {key!r} is missing; a {kind} request has the fields {', '.join(spec)}")
            continue
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, types):
            wanted = "a whole number" if int in types else "a string"
            raise ChallengeError(f"{kind}: {key} is {wanted}, got {json.dumps(value)[:40]}")
        if isinstance(value, str) and len(value) > 100:
            raise ChallengeError(f"{kind}: {key} is too long ({len(value)} characters; at most 100)")
    return data


def _nothing() -> None:
    """The job that wakes a closed :class:`Worker` (cancelled: never run)."""


class Worker:
    """One daemon thread that runs the jobs given to it in order (the baselines' computations: the search agent
    uses a core). Not a ThreadPoolExecutor, whose threads the interpreter joins at exit: ``tarot serve`` stopped
    would wait for every computation queued, a minute or more. :meth:`close` (the room's shutdown) cancels the
    queued jobs; a running one reads :attr:`closed` between its steps (:meth:`ChallengeService._compute`)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.jobs: queue.SimpleQueue[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]] = queue.SimpleQueue()
        self.thread: threading.Thread | None = None
        self.lock = threading.Lock()
        self.closed = False

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        job: Future[Any] = Future()
        with self.lock:
            if self.closed:
                job.cancel()  # a request answered while the room stops: nothing computed (its caller reads None)
                return job
            self.jobs.put((job, fn, args))
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self.thread.start()
        return job

    def close(self) -> None:
        """No job after this: the queued ones cancelled, the thread ends after the running one."""
        with self.lock:
            self.closed = True
            while True:
                try:
                    job, _, _ = self.jobs.get_nowait()
                except queue.Empty:
                    break
                job.cancel()
            if self.thread is not None:  # wakes the thread if it waits for a job: it reads ``closed`` and ends
                stop: Future[Any] = Future()
                stop.cancel()
                self.jobs.put((stop, _nothing, ()))

    def _run(self) -> None:
        while not self.closed:
            job, fn, args = self.jobs.get()
            if not job.set_running_or_notify_cancel():
                continue
            try:
                job.set_result(fn(*args))
            except BaseException as err:  # the job's failure is its caller's to read (Future.result)
                job.set_exception(err)


class ChallengeService:
    """The challenge sessions of one server: who plays which deal, the moves, the results.

    ``deal_source(table, index)``: the cards of a deal (default: the room's held-out deals,
    :class:`HeldOutDeals`, from the secret in its database; a test gives its own, with two hidden cards
    exchanged, to show that nothing of them reaches the person). ``baselines``: the folder of the committed
    baselines files, which say which tables are offered and how many deals each (``deals``: as many for
    every table). ``agents``: the agents the deals' baselines are computed for (default
    :data:`BASELINE_AGENTS`)."""

    def __init__(
        self,
        store: Any,
        baselines: str | Path | None = None,
        deal_source: Callable[[str, int], dict[str, Any]] | None = None,
        db: Callable[..., Any] | None = None,
        *,
        deals: int | None = None,
        agents: Sequence[str] | None = None,
    ) -> None:
        self.store = store  # the room's Store: its users and its engine
        self.results = ChallengeStore(store.engine)
        # ``db(fn, *args)``: ``fn(*args)`` in the room's database thread (:meth:`Server.db_wait`), so that the
        # challenge's calls take their turn with the room's, one at a time (the Store's name index and an
        # in-memory database's one connection are not for two threads at once); by default called here
        self.db: Callable[..., Any] = db or (lambda fn, *args: fn(*args))
        self.folder = baselines
        self.given = deal_source
        self.held_out: HeldOutDeals | None = None  # made on first use, from the database's secret
        self.deals = deals
        self.agents = tuple(BASELINE_AGENTS if agents is None else agents)
        unknown = [a for a in self.agents if a not in C.AGENTS]
        if unknown:
            raise ValueError(f"challenge agents: unknown {', '.join(unknown)}; the agents are {', '.join(C.AGENTS)}")
        self.sessions: dict[int, Session] = {}
        self.max_sessions = MAX_SESSIONS
        self.lock = threading.Lock()  # requests run in worker threads: one change at a time (sessions, bounds)
        self.jobs_lock = threading.RLock()  # the held-out set made once, and the baselines being computed
        self.clock: Callable[[], float] = time.monotonic  # the bounds' clock (a test moves it)
        self.new_people = AddressLimits("new people", NEW_PEOPLE)
        self.deals_started = AddressLimits("challenge deals started", DEALS_STARTED)
        # the held-out deals' baselines, computed on first use in a thread of their own (the search agent
        # thinks 0.25 s a move): (table, deal, seat) -> its computation, while it runs
        self.computer = Worker("tarot-baselines")
        self.computing: dict[tuple[str, int, int], Future[dict[str, float]]] = {}

    def close(self) -> None:
        """The room stops: no baselines computed after this (the queued ones cancelled, the running one given up
        before its next agent); what was stored stays, and is computed again by the next start where missing."""
        self.computer.close()

    # ----------------------------------------------------------------------------- deals and their set
    def deal_set(self) -> HeldOutDeals:
        """The room's held-out deals (its secret read, or made, on first use)."""
        with self.jobs_lock:
            if self.held_out is None:
                self.held_out = HeldOutDeals(self.db(self.results.secret))
            return self.held_out

    def deal_of(self, table: str, index: int) -> dict[str, Any]:
        return self.given(table, index) if self.given is not None else self.deal_set()(table, index)

    def offered(self) -> list[tuple[str, int]]:
        """The (table, deal index) pairs offered, in order: each table that has a committed baselines file,
        as many held-out deals as it has (or ``deals``)."""
        out = []
        for table in C.TABLES:
            b = C.load_baselines(table, self.folder)
            if b is not None:
                out += [(table, k) for k in range(self.deals if self.deals is not None else len(b["deals"]))]
        return out

    # ----------------------------------------------------------------------------- people
    def person(self, data: dict[str, Any], new: bool = False, address: str | None = None) -> tuple[Any, str | None]:
        """The person of the request, and his token when he was made now (``new``: a start without a token).

        A start with a name makes a person of that name, checked as the room's hello checks it
        (:func:`~tarot_env.web.people.check_name`; refused: 400) and free (taken: 409, naming it); a start
        with no name (or a blank one) makes a guest with a name nobody has (:meth:`Store.new_guest`), so a
        new visitor who types nothing just plays (the page used to send "guest", taken after the first).
        An address that made :data:`NEW_PEOPLE` people lately is refused (429)."""
        token = data.get("token")
        if token or not new:
            user = self.db(self.store.user_by_token, token) if token else None
            if user is None:
                raise ChallengeError("unknown token: open the room's page to get one, or start with a name instead", 403)
            return user, None
        name = (data.get("name") or "").strip()
        if name:
            try:
                name = check_name(name)
            except RoomError as err:
                raise ChallengeError(f"start: {err}") from None
        with self.lock:  # both bounds before anything is made: a refused start makes nobody
            self.new_people.check(address, self.clock())
            self.deals_started.check(address, self.clock())
        if not name:
            user = self.db(self.store.new_guest)
        else:
            try:
                user = self.db(self.store.new_user, name)
            except RoomError as err:  # taken (the name was checked above)
                raise ChallengeError(f"start: {err}, or leave the name empty to play as a new guest", 409) from None
        with self.lock:
            self.new_people.count(address, self.clock())
        return user, user.token

    # ----------------------------------------------------------------------------- deals
    def next_deal(self, user_id: int, table: str | None) -> tuple[str, int, int]:
        """The first (table, deal) the person has not started (of ``table`` if given), in its least-played seat."""
        offered = self.offered()
        if not offered:
            where = self.folder or C.BASELINES_DIR
            raise ChallengeError(f"the challenge has no deals here: no baselines in {where} (a checkout of the repository has one)", 503)
        tables = list(dict.fromkeys(t for t, _ in offered))
        if table is not None and table not in tables:
            raise ChallengeError(f"start: table {table!r} is not in the challenge; its tables are {', '.join(tables)}")
        deal_set = self.deal_set().id
        done = self.db(self.results.started, user_id, deal_set)
        for t, d in offered:
            if (t, d) in done or (table is not None and t != table):
                continue
            counts = self.db(self.results.seat_counts, t, d, deal_set)
            seat = min(range(C.num_seats(t)), key=lambda s: (counts.get(s, 0), s))
            return t, d, seat
        raise ChallengeError("you have played every deal of the challenge" + (f" at {table}" if table else ""), 409)

    def start(self, data: dict[str, Any], address: str | None = None) -> dict[str, Any]:
        user, new_token = self.person(data, new=True, address=address)
        with self.lock:
            session = self.sessions.get(user.id)
            fresh = session is None or session.game.over or (data.get("table") not in (None, session.game.table))
            if fresh:
                if new_token is None:  # a new person's start was checked with him (:meth:`person`)
                    self.deals_started.check(address, self.clock())
                table, index, seat = self.next_deal(user.id, data.get("table"))
                game = C.ChallengeGame(table, index, seat, self.deal_of(table, index))
                rid = self.db(self.results.start, user.id, C.pseudonym(user.token), table, index, seat, self.deal_set().id)
                self.deals_started.count(address, self.clock())
                session = Session(game, rid)
                self.sessions.pop(user.id, None)
                self.sessions[user.id] = session  # the newest last: the dict's order is the sessions' age
                while len(self.sessions) > self.max_sessions:
                    del self.sessions[next(iter(self.sessions))]
                self._finish_if_over(session)
        assert session is not None
        if fresh:  # its agents' scores computed now, while the person plays, if nobody started this (deal, seat) before
            self.baselines_of(session.game.table, session.game.index, session.game.seat)
        out = self._answer(session)
        if new_token is not None:  # a new person: his token (the page keeps it) and the name he got
            out["token"] = new_token
            out["name"] = user.name
        return out

    def session_of(self, data: dict[str, Any]) -> Session:
        user, _ = self.person(data)  # a move or a state: a known token, never a new person
        session = self.sessions.get(user.id)
        if session is None:
            raise ChallengeError("no challenge deal in progress: start one (POST /api/challenge/start)", 404)
        return session

    def state(self, data: dict[str, Any]) -> dict[str, Any]:
        return self._answer(self.session_of(data), wait=BASELINE_WAIT)

    def move(self, data: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            session = self.session_of(data)
            game = session.game
            action = data["action"]
            if game.over:
                raise ChallengeError("move: the deal is over; start the next one")
            raw = game.raw
            allowed = [raw.action_to_string(int(a)) for a in np.flatnonzero(raw.legal_mask())]
            n_actions = int(np.asarray(raw.legal_mask()).shape[-1])
            if not 0 <= action < n_actions:
                raise ChallengeError(
                    f"move: action {action} is not an action id 0..{n_actions - 1}; the moves now are {', '.join(allowed)}"
                )
            try:
                game.move(action)
            except IllegalActionError as err:
                words = refusal_words(game.env.unwrapped.metadata["name"], raw, action, refusal(err))
                raise ChallengeError(f"{words} The moves now are {', '.join(allowed)}.") from None
            self._finish_if_over(session)
        return self._answer(session)

    def _finish_if_over(self, session: Session) -> None:
        """A deal that has ended: its result stored, and the other people's scores read (under the lock)."""
        game = session.game
        if game.over and session.people is None:
            deal_set = self.deal_set().id
            session.people = self.db(
                functools.partial(self.results.scores, but=session.rid, deal_set=deal_set), game.table, game.index, game.seat
            )
            self.db(self.results.finish, session.rid, game.score, game.record())

    def _answer(self, session: Session, wait: float = 0.0) -> dict[str, Any]:
        """The view of ``session``; at the end of its deal, once the agents' scores are known (waited for at
        most ``wait`` seconds, outside the lock, in the request's worker thread), the comparison."""
        game = session.game
        if game.over and session.comparison is None and session.people is not None:
            agents = self.baselines_of(game.table, game.index, game.seat, wait=wait)
            with self.lock:
                if agents is not None and session.comparison is None:
                    session.comparison = C.compare(game.score, agents, session.people)
        with self.lock:
            return self.view(session)

    # ----------------------------------------------------------------------------- the agents' scores
    def baselines_of(self, table: str, index: int, seat: int, wait: float | None = None) -> dict[str, float] | None:
        """The agents' scores in (deal ``index``, ``seat``) of the held-out set, from the database; where some are
        missing they are computed in the baselines' thread (once, whoever asks) and stored. ``wait``: seconds to
        wait for them (None: none, the computation goes on); None when they are not known by then."""
        deal_set = self.deal_set().id
        stored = self.db(self.results.baselines, deal_set, table, index, seat)
        if all(a in stored for a in self.agents):
            return {a: stored[a] for a in self.agents}
        key = (table, index, seat)
        with self.jobs_lock:
            job = self.computing.get(key)
            if job is None:
                missing = [a for a in self.agents if a not in stored]
                job = self.computing[key] = self.computer.submit(self._compute, deal_set, table, index, seat, missing, stored)
                job.add_done_callback(self._done_callback(key))
        if wait is None:
            return None
        try:
            return job.result(timeout=wait)
        except (TimeoutError, CancelledError):  # not known yet, or the room is stopping
            return None
        except Exception:
            log.exception("tarot serve: the baselines of %s deal %s seat %s failed", table, index, seat)
            return None

    def _done_callback(self, key: tuple[str, int, int]) -> Callable[[Future[Any]], None]:
        """What a finished computation calls (a future passes itself; the key is this one's)."""

        def done(_: Future[Any]) -> None:
            self._computed(key)

        return done

    def _computed(self, key: tuple[str, int, int]) -> None:
        with self.jobs_lock:
            self.computing.pop(key, None)

    def _compute(self, deal_set: str, table: str, index: int, seat: int, missing: list[str], stored: dict[str, float]) -> dict[str, float]:
        """The missing agents' scores, each played on the deal from the seat as :func:`tarot_env.challenge.compute_baselines`
        plays them on the committed deals, then stored: the agents' scores in that (deal, seat)."""
        deal = self.deal_of(table, index)
        scores: dict[str, float] = {}
        for a in missing:
            if self.computer.closed:  # the room stops: the rest is not played (a search agent's deal takes seconds)
                raise CancelledError(f"the room stopped while the baselines of {table} deal {index} seat {seat} were computed")
            scores[a] = C.play_deal(table, index, seat, C.baseline_agent(a, table, index, seat), deal)[0]
        self.db(self.results.save_baselines, deal_set, table, index, seat, scores, C.machine())
        return {a: {**stored, **scores}[a] for a in self.agents}

    # ----------------------------------------------------------------------------- what is sent
    def view(self, session: Session) -> dict[str, Any]:
        """The deal as the person's seat sees it (:func:`deal_view`), and at its end the score and the comparison."""
        game = session.game
        env_id = game.raw.metadata["name"]
        seats = len(game.raw.possible_agents)
        out: dict[str, Any] = {
            "table": game.table,
            "env": env_id,
            "title": f"{facts(env_id).title}, {seats} players",
            "deal_index": game.index,
            "seat": game.seat,
            "seats": ["you" if s == game.seat else f"robot {s} (rules)" for s in range(seats)],  # named as the room names them
            "steps": game.steps,
            "over": game.over,
            "deal": deal_view(env_id, game.env, game.seat),
        }
        if game.over:
            out["score"] = game.score
            if session.comparison is not None:
                out["comparison"] = session.comparison
                out["lines"] = C.comparison_lines(session.comparison)
            else:  # the agents' scores are still being computed: the next state request asks again
                out["comparison"] = None
                out["lines"] = ["the agents' scores on this deal are still being computed: this page asks for them again in a moment"]
        return out


def challenge_routes(
    store: Any,
    baselines: str | Path | None = None,
    deal_source: Callable[[str, int], dict[str, Any]] | None = None,
    db: Callable[..., Any] | None = None,
    *,
    deals: int | None = None,
    agents: Sequence[str] | None = None,
) -> list[Route]:
    """The challenge's routes over the room's :class:`~tarot_env.web.db.Store`, with ``db`` the room's database
    thread (:class:`ChallengeService`; ``create_app`` makes its service and mounts :func:`service_routes`)."""
    return service_routes(ChallengeService(store, baselines, deal_source, db, deals=deals, agents=agents))


def service_routes(service: ChallengeService) -> list[Route]:
    """The challenge's page and its requests, answered by ``service``. Each request is answered from a worker
    thread: neither its database calls nor its robots' moves run on the event loop."""

    def endpoint(kind: str) -> Callable[[Request], Any]:
        method = getattr(service, kind)

        async def answer(request: Request) -> Response:
            try:
                data = check_request(kind, await request.body())
                args = (data, request.client.host if request.client else None) if kind == "start" else (data,)
                return JSONResponse(await run_in_threadpool(method, *args))  # the database and the robots off the event loop
            except (ChallengeError, C.ChallengeError) as err:
                return JSONResponse({"error": str(err), "about": kind}, status_code=getattr(err, "status", 400))
            except Exception:  # a fault of the server's: said in words and in JSON (a bare 500 was not JSON), and logged
                log.exception("tarot serve: a challenge %s failed", kind)
                return JSONResponse({"error": f"the server failed to answer this {kind}; try again", "about": kind}, status_code=500)

        return answer

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "challenge.html")

    return [
        Route("/challenge", page),
        *(Route(f"/api/challenge/{kind}", endpoint(kind), methods=["POST"]) for kind in REQUESTS),
    ]
