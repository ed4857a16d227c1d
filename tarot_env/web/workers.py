"""The threads the room works in beside its event loop, so that nothing under the room's lock waits.

* :class:`Database`: the database's one thread (its calls made in order, off the event loop) and the
  leaderboard kept in memory between the writes that can change it;
* :class:`Workers`: the robots' thinking (four threads, and one more for the rule-based robot when an
  agent does not answer in time), the robots' agents made (a thread: the first ``pretrained`` robot
  imports PyTorch), the deals made and shuffled (a thread: the first deal of a game in a process loads
  its kernels), the freed memory given back to the system, and the tasks the server spawns.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from tarot_env.web.db import Store
from tarot_env.web.dealing import DealJob
from tarot_env.web.memory import give_back
from tarot_env.web.robots import RobotJob

log = logging.getLogger("tarot_env.web")
T = TypeVar("T")


class Database:
    """The store's calls in one thread, in order (:meth:`call`, :meth:`later`, :meth:`wait`), and the
    leaderboard kept in memory (:meth:`leaderboard`): read again only after a write that can change it was
    queued (:meth:`changed` counts them), so that a crowd asking for it does not queue behind the
    database's other work."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tarot-db")  # one: calls in order
        self.writes = 0
        self.board: tuple[int, list[dict[str, Any]]] | None = None
        self.board_reading: tuple[int, asyncio.Future[Any]] | None = None

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the database's thread, after every call queued before it; its result."""
        return await asyncio.get_running_loop().run_in_executor(self.pool, functools.partial(fn, *args))

    def wait(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the database's thread, waited for: for a worker thread (the challenge's requests),
        never the event loop's."""
        self.changed()  # may write (a challenge played): the leaderboard is read again
        return self.pool.submit(fn, *args).result()

    def later(self, fn: Callable[..., Any], *args: Any) -> None:
        """``fn(*args)`` in the database's thread, in order, not waited for (a failure is logged)."""

        def run() -> None:
            try:
                fn(*args)
            except Exception:
                log.exception("tarot serve: a database write failed (%s)", getattr(fn, "__name__", fn))

        self.pool.submit(run)

    def changed(self) -> None:
        """A write that can change the leaderboard (a game's results, a person's chips or XP, a renaming) was
        queued: the next :meth:`leaderboard` reads it again, after that write."""
        self.writes += 1

    async def leaderboard(self) -> list[dict[str, Any]]:
        """The leaderboard: from memory when no write that can change it was queued since it was read; else
        read in the database's thread, after those writes, once for everyone asking meanwhile."""
        writes = self.writes
        if self.board is not None and self.board[0] == writes:
            return self.board[1]
        if self.board_reading is None or self.board_reading[0] != writes:
            self.board_reading = (writes, asyncio.ensure_future(self.call(self.store.leaderboard)))
        reading = self.board_reading
        rows: list[dict[str, Any]] = await asyncio.shield(reading[1])
        if self.board is None or self.board[0] < reading[0]:
            self.board = (reading[0], rows)
        return rows

    def shutdown(self) -> None:
        """The writes queued are made, then the thread ends."""
        self.pool.shutdown(wait=True)


class Workers:
    """The room's worker threads and spawned tasks (the database's are :class:`Database`'s)."""

    def __init__(self) -> None:
        self.robots = ThreadPoolExecutor(max_workers=4, thread_name_prefix="tarot-robot")
        # the rule-based robot's moves for agents that did not answer in time: a thread of its own, free
        # when every robot's thread is held by an agent that hangs
        self.rescue = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tarot-rescue")
        self.hung: set[int] = set()  # id() of the agents whose move timed out and has not returned yet
        # the robots' agents, made off the event loop: the first ``pretrained`` robot imports PyTorch and loads
        # its model, seconds during which the whole room would stand still
        self.loader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tarot-agents")
        # the tables' deals: built and shuffled off the event loop (the first of a game in a process loads its kernels)
        self.dealer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tarot-deal")
        self.tasks: set[asyncio.Task[Any]] = set()
        # freed memory returned to the system once tables or connections have gone (glibc keeps it otherwise)
        self.trim_due = False
        self.trimmed_at = 0.0
        self.trims = 0

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` as a task of the room's, cancelled when the server stops (:meth:`stop`)."""
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def think(self, job: RobotJob, timeout: float) -> tuple[int, str | None]:
        """A robot's move thought in a worker thread: the action, and how the agent failed (None: it did not).

        An agent that has not answered after ``timeout`` seconds is left thinking in its thread (a thread
        cannot be stopped) and the rule-based robot moves instead, in a thread of its own, as when an agent
        raises; until that agent answers, its seat's next moves go to the rule-based robot at once, so that
        one agent that hangs holds at most one worker thread."""
        loop = asyncio.get_running_loop()
        if id(job.agent) in self.hung:
            log.warning("tarot serve: %s has still not answered its last move; the rule-based robot moves for it", job.who)
            return await loop.run_in_executor(self.rescue, job.fall_back)
        thought = loop.run_in_executor(self.robots, job.think)
        try:
            return await asyncio.wait_for(asyncio.shield(thought), timeout)
        except TimeoutError:
            self._hangs(job, thought, timeout)
            return await loop.run_in_executor(self.rescue, job.fall_back)

    def _hangs(self, job: RobotJob, thought: asyncio.Future[Any], timeout: float) -> None:
        """``job``'s agent did not answer in time: logged, and marked until its thread returns."""
        log.error("tarot serve: %s did not answer within %g s; the rule-based robot moves for it", job.who, timeout)
        key = id(job.agent)
        self.hung.add(key)

        def answered(future: asyncio.Future[Any]) -> None:  # on the loop, when (if ever) the agent's thread returns
            self.hung.discard(key)
            if not future.cancelled():
                future.exception()  # retrieved: a late failure is not reported as never retrieved

        thought.add_done_callback(answered)

    async def deal(self, job: DealJob) -> DealJob:
        """``job``'s deal made (built and shuffled) in the dealer's thread."""
        return await asyncio.get_running_loop().run_in_executor(self.dealer, job.make)

    async def load(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the loader's thread: the robots' agents made, off the event loop."""
        return await asyncio.get_running_loop().run_in_executor(self.loader, functools.partial(fn, *args))

    def give_back_memory(self, now: float, every: float) -> None:
        """Once tables or connections have gone (``trim_due``), and at most every ``every`` seconds: their
        memory given back to the system (:func:`~tarot_env.web.memory.give_back`: their cyclic garbage
        collected, the allocator's free pages returned), in the dealer's thread, not waited for. Without it
        the room's memory rises a few MB each time 50 tables come and go."""
        if not self.trim_due or now - self.trimmed_at < every:
            return
        self.trim_due = False
        self.trimmed_at = now
        self.trims += 1
        with contextlib.suppress(RuntimeError):  # the dealer shut down: the room is closing
            self.dealer.submit(give_back)

    async def stop(self, loops: list[asyncio.Task[Any]]) -> None:
        """The server stops: ``loops`` (its clock's) and the tasks they spawned cancelled, so that none submits
        to a thread pool once it is shut down, then the pools shut down."""
        spawned = [*loops, *self.tasks]
        for task in spawned:
            task.cancel()
        for task in spawned:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for pool in (self.robots, self.rescue, self.dealer, self.loader):
            pool.shutdown(wait=False, cancel_futures=True)
