"""The room of the rules page: tables, seats, the owner's settings, and the game driven through the envs.

A :class:`Table` holds the seats (a person, a robot, or empty), its :class:`Settings`, and the
game in progress: one AEC env per deal (``tarot_env.make``), stepped one decision at a time.
Robots are the project's agents, made as ``tarot play`` makes them (:func:`make_agents`), and a
person's move goes through ``env.step``, so an illegal one is refused by the rules with their
reason and nothing changes. The room's rules from the rules page:

* **owner**: the first person seated (a star on the page) chooses the settings; they can change
  before the game or between deals, and each setting that differs from the default is marked;
* **time per turn**: when it runs out, the rule-based bot plays that move for the person;
* **a player who disconnects** is replaced by the rule-based bot at once; he has a reconnection
  window (a few minutes) to come back and take his seat; after it he has abandoned: the bot plays
  his seat to the end and, in a chips game, his stake is forfeited;
* **amicable cancellation**: a person proposes it, every person at the table (robots do not vote)
  must accept; the game is annulled: no points, no XP, stakes returned;
* **chips and XP** at the end of a game: :mod:`.chips` and :mod:`.leaderboard`.

Nothing here waits or sleeps: time is passed in (``now``, seconds of a monotonic clock) and
:meth:`Table.advance` does what the clock makes due (a robot's move, a time-out, the end of a
reconnection window, the next deal). The web app calls it a few times a second; the tests call
it with the times they choose. Every refused request raises :class:`RoomError` before anything
changes.

The table is composed of its parts, one concern each, every one small enough to read at once:
:mod:`.seats` (seats, the owner, robots seated, disconnection and reconnection), :mod:`.settings`,
:mod:`.dealing` (the game deal by deal, the clock's turn), :mod:`.robots` (a robot's move thought apart
from the table), :mod:`.votes` (amicable cancellation) and :mod:`.game_end` (winners, chips, XP).
This module holds the table's state, its clock and its views, and the room of all tables.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from tarot_env.agents import rule_agent
from tarot_env.tables import facts
from tarot_env.web.dealing import TableDeals, check_game
from tarot_env.web.game_end import GameResult, TableGameEnd
from tarot_env.web.people import RoomError, Seat, User
from tarot_env.web.robots import ROBOT_TIMEOUT, TableRobots
from tarot_env.web.seats import TableSeats
from tarot_env.web.settings import Settings, TableSettings
from tarot_env.web.views import deal_view
from tarot_env.web.votes import TableVotes


# ------------------------------------------------------------------------------------- the table
class Table(TableSeats, TableSettings, TableDeals, TableRobots, TableVotes, TableGameEnd):
    """One table of the room. Seats 0..N-1 in the env's order (``player_<seat>``).

    ``state``: ``waiting`` (seats filling, settings open), ``playing`` (a deal in progress),
    ``between`` (between two deals of a game: settings that may change between deals are open),
    ``over`` (the game ended or was annulled; the owner may start another).
    """

    def __init__(
        self,
        table_id: int,
        env_id: str,
        num_players: int,
        *,
        robot_delay: float = 0.6,
        pause: float = 6.0,
        reconnect_window: float = 180.0,
        seed: int | None = None,
        on_deal_end: Callable[[Table, dict[str, Any], dict[str, Any]], None] | None = None,
        on_game_end: Callable[[Table, GameResult], None] | None = None,
    ) -> None:
        check_game(env_id, num_players)
        self.id = table_id
        self.env_id = env_id
        self.num_players = num_players
        self.title = f"{facts(env_id).title}, {num_players} players"
        self.seats = [Seat() for _ in range(num_players)]
        self.owner: User | None = None
        self.settings = Settings()
        self.invite = secrets.token_urlsafe(12)
        self.robot_delay = robot_delay
        self.pause = pause
        self.reconnect_window = reconnect_window
        self.seed = seed if seed is not None else secrets.randbelow(1_000_000)
        # a table without a given seed shuffles every deal from fresh secret entropy: deals drawn from
        # the table's seed would let anyone who reads a finished deal's record (it is public) search
        # the million seeds and know every hand of the deals to come
        self.seeded = seed is not None
        self.on_deal_end = on_deal_end
        self.on_game_end = on_game_end
        self.state = "waiting"
        self.version = 0  # bumped at every change: the app sends new views when it moves
        self.events: list[str] = []
        # the game
        self.game_no = 0
        self.deal_no = 0  # deals counted in this game (a deal with no card played, rules.results.NOT_PLAYED, does not count)
        self.dealt = 0  # deals dealt at this table (seeds and dealer rotation)
        self.totals = [0.0] * num_players
        self.stakes = [0] * num_players
        self.env: Any = None
        self.agents: dict[int, Any] = {}
        self.fallback = rule_agent(env_id)
        self.turn_since = 0.0
        self.next_deal_at: float | None = None
        self.last_result: dict[str, Any] | None = None
        self.game_result: GameResult | None = None
        self.deal_results: list[dict[str, Any]] = []
        self.cancel_votes: dict[int, bool] | None = None  # user id -> accepted, while a cancellation is proposed
        self.cancel_again: dict[int, float] = {}  # user id -> when he may propose a cancellation again (votes.CANCEL_COOLDOWN)
        self.timeouts: list[tuple[int, str]] = []  # (seat, move) played by the bot at a time-out
        self.solo = False  # this game started with fewer than two people present: practice (no XP, no chips)
        self.own_moves = [0] * num_players  # this deal: moves each person made himself
        self.clock_moves = [0] * num_players  # this deal: moves the clock or the robot made for a person
        self.own_deals = [0] * num_players  # this game: deals each person played himself (most of his moves his own)
        self.steps = 0  # env steps and deals so far: a robot's move thought outside the lock applies only if unchanged
        self.fallbacks: dict[int, dict[str, int]] = {}  # seat -> moves, exception, illegal, fallback (as the arena counts)
        self.due: tuple[int, str] | None = None  # a robot's move due, for the server to think (advance(play=False))
        self.deal_due = False  # the next deal is due, for the server to deal (advance(play=False))
        self.next_deal_options: dict[str, Any] | None = None  # a given deal (tests): reset(options=...)
        self._deal_views_step = -1  # the steps at which the deal views kept were made
        self._deal_views: dict[int | None, dict[str, Any]] = {}  # seat -> deal_view (None: a spectator)

    def log(self, text: str) -> None:
        self.events = [*self.events[-29:], text]
        self.version += 1

    # ----------------------------------------------------------------------------- the clock
    def advance(self, now: float, play: bool = True) -> bool:
        """Do what the clock makes due; True if anything changed. At most one move per call, so that
        the page sees each robot's card. ``play=False`` (the server): a robot's move that is due is not
        thought here but left in :attr:`due` as ``(seat, why)``, for a worker thread, and a deal that is due
        is not dealt here but flagged in :attr:`deal_due` (:meth:`deal_job`, :meth:`apply_deal`)."""
        before = self.version
        self.due = None
        self.deal_due = False
        self.expire_windows(now)
        self.run_deal_clock(now, play)
        return self.version != before

    # ----------------------------------------------------------------------------- views
    def summary(self) -> dict[str, Any]:
        """The table in the lobby's list (no invitation token)."""
        return {
            "id": self.id,
            "env": self.env_id,
            "title": self.title,
            "players": self.num_players,
            "state": self.state,
            "seats": [self._seat_view(p) for p in range(self.num_players)],
            "private": self.settings.private,
            "spectators": self.settings.spectators,
            "settings": asdict(self.settings),
        }

    def _seat_view(self, p: int) -> dict[str, Any]:
        s = self.seats[p]
        kind = "person" if s.person else "robot" if s.robot else "empty"
        return {
            "seat": p,
            "kind": kind,
            "name": self.name_of(p) if not s.empty else None,
            "robot": s.robot,
            "owner": bool(s.user is not None and self.is_owner(s.user)),
            "connected": s.connected if s.person else None,
            "abandoned": s.abandoned,
            "robot_plays": s.person and s.bot_plays,
            "user_id": s.user.id if s.user else None,
        }

    def view(self, seat: int | None, now: float, viewer: User | None = None) -> dict[str, Any]:
        """Everything the page shows to ``seat`` (``None``: a spectator): the table and, in a deal, the deal."""
        deadline = self.deadline()
        out: dict[str, Any] = {
            **self.summary(),
            "you": seat,
            "owner_is_you": bool(viewer is not None and self.is_owner(viewer)),
            "changed": self.changed_settings(),
            "game_no": self.game_no,
            "deal_no": self.deal_no,
            "totals": self.totals,
            "stakes": self.stakes,
            "events": self.events[-12:],
            "turn": self.turn,
            "time_left": None if deadline is None else max(0.0, deadline - now),
            "next_deal_in": None if self.next_deal_at is None else max(0.0, self.next_deal_at - now),
            "cancel": None
            if self.cancel_votes is None
            else {"accepted": [p for p in self.voters() if self.seats[p].user.id in self.cancel_votes], "voters": self.voters()},  # type: ignore[union-attr]
            "practice": self.practice_now(),  # why the game counts for nothing, once that is certain (None: it may count)
            "last_result": self.last_result,
            "game_result": None if self.game_result is None else vars(self.game_result),
            "deal": None,
        }
        if viewer is not None and self.is_owner(viewer):
            out["invite"] = self.invite
        if self.env is not None and self.state in ("playing", "between", "over"):
            out["deal"] = self._deal_view(seat)
        return out

    def _deal_view(self, seat: int | None) -> dict[str, Any]:
        """:func:`deal_view` of the deal as it stands, made once per seat and move: every move is sent to each
        connection at the table, and the spectators (and a person's several tabs) see the same view. The
        deal changes only by a step or a new deal, both counted in :attr:`steps`."""
        if self._deal_views_step != self.steps:
            self._deal_views_step, self._deal_views = self.steps, {}
        view = self._deal_views.get(seat)
        if view is None:
            view = self._deal_views[seat] = deal_view(self.env_id, self.env, seat)
        return view  # shared by the connections: read, never changed (the app only encodes it)


# ------------------------------------------------------------------------------------- the room
class Room:
    """All the tables and the people of one server. The app keeps one; the tests make their own."""

    def __init__(
        self, *, robot_delay: float = 0.6, pause: float = 6.0, reconnect_window: float = 180.0, robot_timeout: float = ROBOT_TIMEOUT
    ) -> None:
        if not robot_timeout > 0:
            raise ValueError(f"robot_timeout is the seconds a robot may think (> 0), got {robot_timeout!r}")
        self.tables: dict[int, Table] = {}
        self.robot_delay = robot_delay
        #: the seconds the server lets a robot think of a move before the rule-based robot moves instead
        #: (:meth:`tarot_env.web.app.Server._think`): an agent that never answers must not stop its table
        self.robot_timeout = robot_timeout
        self.pause = pause
        self.reconnect_window = reconnect_window
        self._next_id = 1
        self.on_deal_end: Callable[[Table, dict[str, Any], dict[str, Any]], None] | None = None
        self.on_game_end: Callable[[Table, GameResult], None] | None = None
        self.on_table_created: Callable[[Table], None] | None = None

    def create(self, user: User, env_id: Any, num_players: Any, address: str | None = None, seed: int | None = None) -> Table:
        """A new table (:class:`Table` checks the game); its creator sits at seat 0 and owns it."""
        table = Table(
            self._next_id,
            env_id,
            num_players,
            robot_delay=self.robot_delay,
            pause=self.pause,
            reconnect_window=self.reconnect_window,
            seed=seed,
            on_deal_end=self.on_deal_end,
            on_game_end=self.on_game_end,
        )
        self._next_id += 1
        self.tables[table.id] = table
        table.sit(user, 0, address)
        if self.on_table_created is not None:
            self.on_table_created(table)
        return table

    def get(self, table_id: Any) -> Table:
        if isinstance(table_id, bool) or not isinstance(table_id, int) or table_id not in self.tables:
            raise RoomError(f"there is no table {str(table_id)[:20]}")
        return self.tables[table_id]

    def lobby(self, viewer: User | None = None) -> list[dict[str, Any]]:
        """The tables listed to ``viewer``: the public ones, and the private ones he sits at."""
        seated = (lambda t: t.seat_of(viewer) is not None) if viewer is not None else (lambda t: False)
        return [t.summary() for t in self.tables.values() if not t.settings.private or seated(t)]

    def advance(self, now: float, play: bool = True) -> list[Table]:
        """Every table's clock; the tables that changed (``play``: as in :meth:`Table.advance`)."""
        return [t for t in list(self.tables.values()) if t.advance(now, play)]
