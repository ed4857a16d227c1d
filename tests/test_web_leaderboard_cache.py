"""The leaderboard kept in memory (a crowd asking for it must not queue behind the database's other
work): read once for everyone asking while nothing changed it, and read again, after the
writes, once a game's results (XP, chips, games won) were queued."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from helpers_web import people, table_with

from tarot_env.web.app import create_app
from tarot_env.web.room import Room


def test_the_leaderboard_is_read_once_for_many_and_again_after_a_game(tmp_path: Path) -> None:
    app = create_app(str(tmp_path / "r.sqlite"), room=Room(robot_delay=0.0, pause=0.0), heartbeat=3600.0, silence=7200.0)
    server = app.state.server
    reads: list[int] = []
    real = server.store.leaderboard

    def counted(*args: object) -> list:
        reads.append(1)
        return real(*args)

    server.store.leaderboard = counted

    async def scenario() -> None:
        boards = await asyncio.gather(*(server.leaderboard_rows() for _ in range(30)))
        assert len(reads) == 1 and all(b == [] for b in boards)  # thirty asked, the database read once
        assert await server.leaderboard_rows() == [] and len(reads) == 1  # still nothing changed it
        # a game ends (alone with robots: practice, no XP), and a person's XP is saved as a game's end saves it
        (alice,) = people(1)
        t = table_with(server.room, [alice], robot="random")
        t.start(alice, 0.0)
        for step in range(1, 10_000):
            if t.state == "over":
                break
            t.advance(step * 100.0)  # the clock plays the person's turns
        assert t.state == "over"
        saved = server.store.new_user("Bea")
        server.db_later(server.store.save_user, replace(saved, xp=50))
        board = await server.leaderboard_rows()
        assert len(reads) == 2  # read again after the game's results ...
        assert [row["name"] for row in board] == ["Bea"]  # ... and after the write queued before it

    asyncio.run(scenario())


def test_the_rooms_database_file_writes_through_a_write_ahead_log(tmp_path: Path) -> None:
    """A person is created at each hello, in the database's one thread: with SQLite's rollback journal each
    commit waited for the disk, and a crowd arriving held up the answers queued behind it (the load test's
    first round). An in-memory database (the tests') keeps SQLite's default."""
    from tarot_env.web.db import Store

    store = Store(str(tmp_path / "room.sqlite"))
    with store.engine.connect() as c:
        assert c.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert c.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL: synced at checkpoints
    store.new_user("Alice")
    assert Store(str(tmp_path / "room.sqlite"))._names()  # the person is there for the next server
    with Store(":memory:").engine.connect() as c:
        assert c.exec_driver_sql("PRAGMA journal_mode").scalar() == "memory"
