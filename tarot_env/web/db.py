"""The room's database: users, tables, games, deal records and the leaderboard, in SQLite.

Through SQLAlchemy Core (a well-kept library; any database it speaks would do, SQLite by default:
one file, ``tarot_web.sqlite``, that anyone can open with ``sqlite3`` and query). The schema is
plain: the JSON columns hold the deal records exactly as ``env.unwrapped.record()`` writes them
(docs/interface.md §5), so a record read back replays with ``tarot replay``.

    sqlite3 tarot_web.sqlite "select name, xp, chips from users order by xp desc"
"""

from __future__ import annotations

import datetime
import json
import secrets
import unicodedata
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    cast,
    create_engine,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import CursorResult
from sqlalchemy.pool import StaticPool

from tarot_env.web.people import START_CHIPS, RoomError, User, check_name

metadata = MetaData()

users = Table(
    "users",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(40), nullable=False),
    Column("token", String(64), nullable=False, unique=True),
    Column("chips", Integer, nullable=False, default=START_CHIPS),
    Column("xp", Integer, nullable=False, default=0),
    Column("created", String(32), nullable=False),
)
tables = Table(
    "tables",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("env", String(40), nullable=False),
    Column("players", Integer, nullable=False),
    Column("owner_id", Integer, ForeignKey("users.id")),
    Column("created", String(32), nullable=False),
)
games = Table(
    "games",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("table_id", Integer, ForeignKey("tables.id"), nullable=False),
    Column("game_no", Integer, nullable=False),
    Column("env", String(40), nullable=False),
    Column("deals", Integer, nullable=False),
    Column("settings", Text, nullable=False),  # JSON: the table's settings at the game's end
    Column("official", Boolean, nullable=False),
    Column("reason", String(80), nullable=False),  # why it counts or not (practice, cancelled, shared address)
    Column("cancelled", Boolean, nullable=False),
    Column("result", Text, nullable=False),  # JSON: totals, winners, chips, xp
    Column("ended", String(32), nullable=False),
)
game_players = Table(
    "game_players",
    metadata,
    Column("game_id", Integer, ForeignKey("games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id")),  # NULL for a robot
    Column("robot", String(20)),
    Column("total", Integer, nullable=False),
    Column("winner", Boolean, nullable=False),
    Column("xp", Integer, nullable=False),
    Column("chips_net", Integer, nullable=False),
)
records = Table(
    "records",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("table_id", Integer, ForeignKey("tables.id"), nullable=False),
    Column("game_no", Integer, nullable=False),
    Column("env", String(40), nullable=False),
    Column("result", String(40), nullable=False),
    Column("record", Text, nullable=False),  # JSON: the deal record, replayable with `tarot replay`
    Column("created", String(32), nullable=False),
)


def name_key(name: str) -> str:
    """What makes two names the same name: case, width and spacing aside ("Alice", " ALICE", "Ａlice")."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def _write_ahead(dbapi_connection: Any, _record: Any) -> None:
    """SQLite's write-ahead log, synced at checkpoints (``synchronous=NORMAL``): a commit does not wait
    for the disk, so a crowd arriving (a person created at each hello, in the one database thread) does
    not hold up the answers queued behind it; about 3x faster commits here. A killed server still leaves
    the database whole (the log is replayed); only a power cut may lose the last commits."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _new_id(result: CursorResult[Any]) -> int:
    """The primary key of the row an ``insert`` made."""
    key = result.inserted_primary_key
    assert key is not None, "an insert made no row"
    return int(key[0])


class Store:
    """The database of one server. ``url``: a SQLAlchemy URL or a file path (``tarot_web.sqlite``)."""

    def __init__(self, url: str = "tarot_web.sqlite") -> None:
        if "://" not in url:
            if url != ":memory:":  # the file where asked: its folder is made (as --records' is)
                Path(url).expanduser().parent.mkdir(parents=True, exist_ok=True)
                url = str(Path(url).expanduser())
            url = f"sqlite:///{url}"
        kwargs: dict[str, Any] = {}
        if url in ("sqlite://", "sqlite:///:memory:"):  # one in-memory database shared by every connection
            kwargs = {"poolclass": StaticPool, "connect_args": {"check_same_thread": False}}
        elif url.startswith("sqlite"):
            kwargs = {"connect_args": {"check_same_thread": False}}
        self.engine = create_engine(url, **kwargs)
        if url.startswith("sqlite") and url not in ("sqlite://", "sqlite:///:memory:"):
            event.listen(self.engine, "connect", _write_ahead)
        metadata.create_all(self.engine)
        self._name_index: dict[str, tuple[int, str]] | None = None

    # ----------------------------------------------------------------------------- users
    def _names(self) -> dict[str, tuple[int, str]]:
        """Every name's key (:func:`name_key`) -> (user id, name), read once from the table and kept."""
        if self._name_index is None:
            with self.engine.connect() as c:
                rows = c.execute(select(users.c.id, users.c.name).order_by(users.c.id)).all()
            self._name_index = {}
            for uid, name in rows:
                self._name_index.setdefault(name_key(name), (uid, name))
        return self._name_index

    def check_name_free(self, name: str, user_id: int | None = None) -> None:
        """:class:`RoomError` when another person (not ``user_id``) has ``name``, whatever its case."""
        holder = self._names().get(name_key(name))
        if holder is not None and holder[0] != user_id:
            raise RoomError(f"the name {name!r} is taken (by {holder[1]!r}: names are unique, whatever their case); choose another")

    def new_user(self, name: str) -> User:
        """A new person; :class:`RoomError` when his name is refused (:func:`~tarot_env.web.people.check_name`:
        checked here too, so that no caller makes a person the room's hello would refuse) or another's."""
        name = check_name(name)
        self.check_name_free(name)
        token = secrets.token_urlsafe(24)
        with self.engine.begin() as c:
            uid = _new_id(c.execute(insert(users).values(name=name, token=token, chips=START_CHIPS, xp=0, created=_now())))
        self._names()[name_key(name)] = (int(uid), name)
        return User(id=int(uid), name=name, token=token)

    def new_guest(self) -> User:
        """A new person who gave no name: "Guest" and a number nobody has."""
        for _ in range(1000):
            name = f"Guest {secrets.randbelow(1_000_000)}"
            if name_key(name) not in self._names():
                return self.new_user(name)
        raise RoomError("no free guest name was found: say hello with a name")

    def rename(self, user: User, name: str) -> None:
        """``user`` takes ``name`` (:class:`RoomError` when it is refused or another's); his old name is free again."""
        name = check_name(name)
        self.check_name_free(name, user.id)
        names = self._names()
        if names.get(name_key(user.name), (None,))[0] == user.id:
            del names[name_key(user.name)]
        user.name = name
        names[name_key(name)] = (user.id, name)
        self.save_user(user)

    def user_by_token(self, token: str) -> User | None:
        with self.engine.connect() as c:
            row = c.execute(select(users).where(users.c.token == token)).first()
        return None if row is None else User(id=row.id, name=row.name, token=row.token, chips=row.chips, xp=row.xp)

    def save_user(self, user: User) -> None:
        with self.engine.begin() as c:
            c.execute(update(users).where(users.c.id == user.id).values(name=user.name, chips=user.chips, xp=user.xp))

    # ----------------------------------------------------------------------------- tables and games
    def new_table(self, table_id: int, env: str, players: int, owner_id: int | None) -> None:
        with self.engine.begin() as c:
            c.execute(insert(tables).values(id=table_id, env=env, players=players, owner_id=owner_id, created=_now()))

    def next_table_id(self) -> int:
        with self.engine.connect() as c:
            return (c.execute(select(func.max(tables.c.id))).scalar() or 0) + 1

    def next_record_id(self) -> int:
        with self.engine.connect() as c:
            return (c.execute(select(func.max(records.c.id))).scalar() or 0) + 1

    def save_record(self, table_id: int, game_no: int, env: str, result: str, record: dict[str, Any], record_id: int | None = None) -> int:
        """One finished deal's record; ``record_id``: the id the server gave it (None: the next one)."""
        values = dict(table_id=table_id, game_no=game_no, env=env, result=result, record=json.dumps(record), created=_now())
        if record_id is not None:
            values["id"] = record_id
        with self.engine.begin() as c:
            rid = _new_id(c.execute(insert(records).values(**values)))
        return int(rid)

    def record(self, record_id: int) -> dict[str, Any] | None:
        with self.engine.connect() as c:
            row = c.execute(select(records.c.record).where(records.c.id == record_id)).first()
        return None if row is None else json.loads(row.record)

    def save_game(
        self,
        table_id: int,
        game_no: int,
        env: str,
        settings: dict[str, Any],
        result: dict[str, Any],
        seats: list[dict[str, Any]],
    ) -> int:
        """One finished or annulled game, with a row per seat (``seats``: user_id or robot, total, winner, xp, chips_net)."""
        with self.engine.begin() as c:
            row = insert(games).values(
                table_id=table_id,
                game_no=game_no,
                env=env,
                deals=settings["deals"],
                settings=json.dumps(settings),
                official=result["official"],
                reason=result["reason"],
                cancelled=result["cancelled"],
                result=json.dumps(result),
                ended=_now(),
            )
            gid = _new_id(c.execute(row))
            for p, s in enumerate(seats):
                c.execute(insert(game_players).values(game_id=gid, seat=p, **s))
        return int(gid)

    def leaderboard(self, limit: int = 50) -> list[dict[str, Any]]:
        """The points leaderboard: people by XP, with their official games and wins."""
        official = (  # per person: official games played and won
            select(game_players.c.user_id, func.count().label("games"), func.sum(cast(game_players.c.winner, Integer)).label("wins"))
            .join(games, games.c.id == game_players.c.game_id)
            .where(games.c.official.is_(True))
            .group_by(game_players.c.user_id)
            .subquery()
        )
        query = (
            select(users.c.name, users.c.xp, users.c.chips, func.coalesce(official.c.games, 0), func.coalesce(official.c.wins, 0))
            .select_from(users.outerjoin(official, official.c.user_id == users.c.id))
            .where(users.c.xp > 0)
            .order_by(users.c.xp.desc(), users.c.id)
            .limit(limit)
        )
        with self.engine.connect() as c:
            rows = c.execute(query).all()
        return [{"name": r[0], "xp": r[1], "chips": r[2], "games": int(r[3]), "wins": int(r[4])} for r in rows]
