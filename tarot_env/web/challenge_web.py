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
has not started, of the first table with baselines (French Tarot for 4 players first); its seat is
the one fewest people have started in, so people pile up on the same (deal, seat) and can be
compared. A deal counts as the person's once started (a person who leaves a bad deal does not get it
again), and its result is stored when it ends (:data:`results`, ``challenge_results``) and answered
with the comparison against the agents and the other people.
"""

from __future__ import annotations

import datetime
import functools
import json
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import Column, Float, Integer, MetaData, String, Table, Text, create_engine, insert, inspect, select, update
from sqlalchemy.engine import Engine
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from tarot_env import challenge as C
from tarot_env.errors import IllegalActionError
from tarot_env.moves import refusal
from tarot_env.tables import facts
from tarot_env.web.people import RoomError, check_name
from tarot_env.web.views import deal_view, refusal_words

STATIC = Path(__file__).parent / "static"
log = logging.getLogger("tarot_env.web")
MAX_BODY = 4096
#: the most deals in progress kept in memory: past it the oldest is dropped (it stays started: not offered again)
MAX_SESSIONS = 1000
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
)


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


class ChallengeError(ValueError):
    """A refused request: its message, and the HTTP status it is answered with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class ChallengeStore:
    """The ``challenge_results`` table, on the room's engine (``tarot serve``) or on a database file (the export)."""

    def __init__(self, db: str | Engine, create: bool = True) -> None:
        self.engine = db if isinstance(db, Engine) else create_engine(f"sqlite:///{Path(db).expanduser()}")
        if create:
            metadata.create_all(self.engine)

    def start(self, user_id: int, player: str, table: str, deal: int, seat: int) -> int:
        with self.engine.begin() as c:
            row = insert(results).values(user_id=user_id, player=player, table_name=table, deal=deal, seat=seat, started=_now())
            return int(c.execute(row).inserted_primary_key[0])

    def finish(self, rid: int, score: float, record: dict[str, Any]) -> None:
        with self.engine.begin() as c:
            c.execute(update(results).where(results.c.id == rid).values(score=score, record=json.dumps(record), finished=_now()))

    def started(self, user_id: int) -> set[tuple[str, int]]:
        """The (table, deal) pairs the person has started, in any seat (he knows their cards)."""
        with self.engine.connect() as c:
            rows = c.execute(select(results.c.table_name, results.c.deal).where(results.c.user_id == user_id)).all()
        return {(r[0], int(r[1])) for r in rows}

    def seat_counts(self, table: str, deal: int) -> dict[int, int]:
        """How many people started each seat of the deal."""
        with self.engine.connect() as c:
            rows = c.execute(select(results.c.seat).where(results.c.table_name == table, results.c.deal == deal)).all()
        out: dict[int, int] = {}
        for (seat,) in rows:
            out[int(seat)] = out.get(int(seat), 0) + 1
        return out

    def scores(self, table: str, deal: int, seat: int, but: int) -> list[float]:
        """The finished scores of (deal, seat), but row ``but``'s (the person's own)."""
        query = select(results.c.score).where(
            results.c.table_name == table, results.c.deal == deal, results.c.seat == seat, results.c.score.is_not(None), results.c.id != but
        )
        with self.engine.connect() as c:
            return [float(r[0]) for r in c.execute(query).all()]

    def dataset(self) -> Iterator[dict[str, Any]]:
        """The finished challenge deals as data set rows (:func:`tarot_env.challenge.dataset_row`), in the order played."""
        query = select(results).where(results.c.score.is_not(None)).order_by(results.c.id)
        if not inspect(self.engine).has_table(results.name):  # a room where nobody took the challenge
            return
        with self.engine.connect() as c:
            rows = c.execute(query).all()
        for r in rows:
            yield C.dataset_row(r.table_name, r.deal, r.seat, r.player, r.score, json.loads(r.record))


@dataclass
class Session:
    """A person's challenge deal in progress."""

    game: C.ChallengeGame
    rid: int
    comparison: dict[str, Any] | None = None  # set when the deal ends


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


class ChallengeService:
    """The challenge sessions of one server: who plays which deal, the moves, the results.

    ``deal_source(table, index)``: the cards of a deal (default: the committed deal set; a test gives
    one with two hidden cards exchanged). ``baselines``: the folder of the baselines files."""

    def __init__(
        self,
        store: Any,
        baselines: str | Path | None = None,
        deal_source: Callable[[str, int], dict[str, Any]] | None = None,
        db: Callable[..., Any] | None = None,
    ) -> None:
        self.store = store  # the room's Store: its users and its engine
        self.results = ChallengeStore(store.engine)
        # ``db(fn, *args)``: ``fn(*args)`` in the room's database thread (:meth:`Server.db_wait`), so that the
        # challenge's calls take their turn with the room's, one at a time (the Store's name index and an
        # in-memory database's one connection are not for two threads at once); by default called here
        self.db: Callable[..., Any] = db or (lambda fn, *args: fn(*args))
        self.folder = baselines
        self.deal_source = deal_source or C.deal_of
        self.sessions: dict[int, Session] = {}
        self.max_sessions = MAX_SESSIONS
        self.lock = threading.Lock()  # requests run in worker threads: one change at a time

    # ----------------------------------------------------------------------------- people
    def person(self, data: dict[str, Any], new: bool = False) -> tuple[Any, str | None]:
        """The person of the request, and his token when he was made now (``new``: a start without a token).

        A start with a name makes a person of that name, checked as the room's hello checks it
        (:func:`~tarot_env.web.people.check_name`; refused: 400) and free (taken: 409, naming it); a start
        with no name (or a blank one) makes a guest with a name nobody has (:meth:`Store.new_guest`), so a
        new visitor who types nothing just plays (the page used to send "guest", taken after the first)."""
        token = data.get("token")
        if token or not new:
            user = self.db(self.store.user_by_token, token) if token else None
            if user is None:
                raise ChallengeError("unknown token: open the room's page to get one, or start with a name instead", 403)
            return user, None
        name = (data.get("name") or "").strip()
        if not name:
            user = self.db(self.store.new_guest)
            return user, user.token
        try:
            name = check_name(name)
        except RoomError as err:
            raise ChallengeError(f"start: {err}") from None
        try:
            user = self.db(self.store.new_user, name)
        except RoomError as err:  # taken (the name was checked above)
            raise ChallengeError(f"start: {err}, or leave the name empty to play as a new guest", 409) from None
        return user, user.token

    # ----------------------------------------------------------------------------- deals
    def next_deal(self, user_id: int, table: str | None) -> tuple[str, int, int]:
        """The first (table, deal) the person has not started (of ``table`` if given), in its least-played seat."""
        offered = C.challenge_deals(self.folder)
        if not offered:
            where = self.folder or C.BASELINES_DIR
            raise ChallengeError(f"the challenge has no deals here: no baselines in {where} (a checkout of the repository has one)", 503)
        tables = list(dict.fromkeys(t for t, _ in offered))
        if table is not None and table not in tables:
            raise ChallengeError(f"start: table {table!r} is not in the challenge; its tables are {', '.join(tables)}")
        done = self.db(self.results.started, user_id)
        for t, d in offered:
            if (t, d) in done or (table is not None and t != table):
                continue
            counts = self.db(self.results.seat_counts, t, d)
            seat = min(range(C.num_seats(t)), key=lambda s: (counts.get(s, 0), s))
            return t, d, seat
        raise ChallengeError("you have played every deal of the challenge" + (f" at {table}" if table else ""), 409)

    def start(self, data: dict[str, Any]) -> dict[str, Any]:
        user, new_token = self.person(data, new=True)
        with self.lock:
            session = self.sessions.get(user.id)
            if session is None or session.game.over or (data.get("table") not in (None, session.game.table)):
                table, index, seat = self.next_deal(user.id, data.get("table"))
                game = C.ChallengeGame(table, index, seat, self.deal_source(table, index))
                rid = self.db(self.results.start, user.id, C.pseudonym(user.token), table, index, seat)
                session = Session(game, rid)
                self.sessions.pop(user.id, None)
                self.sessions[user.id] = session  # the newest last: the dict's order is the sessions' age
                while len(self.sessions) > self.max_sessions:
                    del self.sessions[next(iter(self.sessions))]
                self._finish_if_over(session)
            out = self.view(session)
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
        with self.lock:
            return self.view(self.session_of(data))

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
            return self.view(session)

    def _finish_if_over(self, session: Session) -> None:
        game = session.game
        if game.over and session.comparison is None:
            people = self.db(functools.partial(self.results.scores, but=session.rid), game.table, game.index, game.seat)
            self.db(self.results.finish, session.rid, game.score, game.record())
            baselines = C.load_baselines(game.table, self.folder)
            agents = C.baseline_scores(baselines, game.index, game.seat) if baselines else {}
            session.comparison = C.compare(game.score, agents, people)

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
            "seats": ["you" if s == game.seat else "robot (rules)" for s in range(seats)],
            "steps": game.steps,
            "over": game.over,
            "deal": deal_view(env_id, game.env, game.seat),
        }
        if game.over:
            comparison = session.comparison or {}
            out["score"] = game.score
            out["comparison"] = comparison
            out["lines"] = C.comparison_lines(comparison)
        return out


def challenge_routes(
    store: Any,
    baselines: str | Path | None = None,
    deal_source: Callable[[str, int], dict[str, Any]] | None = None,
    db: Callable[..., Any] | None = None,
) -> list[Route]:
    """The challenge's routes over the room's :class:`~tarot_env.web.db.Store` (``create_app`` mounts them,
    with ``db`` its server's database thread: :class:`ChallengeService`). Each request is answered from a
    worker thread: neither its database calls nor its robots' moves run on the event loop."""
    service = ChallengeService(store, baselines, deal_source, db)

    def endpoint(kind: str) -> Callable[[Request], Any]:
        method = getattr(service, kind)

        async def answer(request: Request) -> Response:
            try:
                data = check_request(kind, await request.body())
                return JSONResponse(await run_in_threadpool(method, data))  # the database and the robots off the event loop
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
