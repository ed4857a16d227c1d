"""The room of the rules page: tables, seats, the owner's settings, and the game driven through the envs.

A :class:`Table` holds the seats (a person, a robot, or empty), its :class:`Settings`, and the
game in progress: one AEC env per deal (``tarot_env.make``), stepped one decision at a time.
Robots are the project's agents, made as ``tarot play`` makes them (:func:`make_agents`), and a
person's move goes through ``env.step``, so an illegal one is refused by the rules with their
reason and nothing changes. The room's rules from the rules page:

* **owner**: the first person seated (a star on the page) chooses the settings before the game (once
  it starts only privacy and spectators may change, between deals), and each setting that differs
  from the default is marked;
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

The table is made of parts, each a class that owns its own state and one concern, and is given only
what it reads of the rest (explicit arguments, or a small :class:`~typing.Protocol` the table fulfils,
checked by mypy):

* ``table.seats``, :class:`~.seats.Seats`: who sits where, the owner, robots seated and their agents
  made, disconnection, return and the reconnection window;
* ``table.options``, :class:`~.settings.TableOptions`: the settings and the invitation link;
* ``table.game``, :class:`~.dealing.Game`: the table's state and its game deal by deal (the env, moves,
  the clock's turn, the end of a deal; the end of the game is :func:`.game_end.settle`);
* ``table.robots``, :class:`~.robots.Robots`: the robots' agents, the fallback and its counts;
* ``table.votes``, :class:`~.votes.Votes`: amicable cancellation.

No part imports this module. :class:`Table` itself keeps what the parts share (the game's facts, the
log, the hooks), the operations that involve several parts (sitting checks the game's state and the
settings; a disconnection moves the turn's clock and counts the votes again), the clock and the views,
and names the parts' state that the server and the tests read (``table.state``, ``table.settings`` ...).
This module also holds the room of all tables.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from tarot_env.env_facts import facts
from tarot_env.web.dealing import DealJob, Game, check_game
from tarot_env.web.game_end import GameResult, practice_now
from tarot_env.web.leaderboard import SOLO_WORDS
from tarot_env.web.people import RoomError, User
from tarot_env.web.robots import ROBOT_TIMEOUT, Robots
from tarot_env.web.seats import Seats
from tarot_env.web.settings import Settings, TableOptions
from tarot_env.web.views import deal_view
from tarot_env.web.votes import Votes


# ------------------------------------------------------------------------------------- the table
class Table:
    """One table of the room. Seats 0..N-1 in the env's order (``player_<seat>``).

    ``state`` (:class:`~.dealing.Game`'s): ``waiting`` (seats filling, settings open), ``playing`` (a deal in
    progress), ``between`` (between two deals of a game: settings that may change between deals are open),
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
        self.robot_delay = robot_delay
        self.pause = pause
        self.seed = seed if seed is not None else secrets.randbelow(1_000_000)
        # a table without a given seed shuffles every deal from fresh secret entropy: deals drawn from
        # the table's seed would let anyone who reads a finished deal's record (it is public) search
        # the million seeds and know every hand of the deals to come
        self.seeded = seed is not None
        self.on_deal_end = on_deal_end
        self.on_game_end = on_game_end
        self.version = 0  # bumped at every change: the app sends new views when it moves
        self.events: list[str] = []
        self.seats = Seats(env_id, num_players, self.seed, reconnect_window, self.log)
        self.options = TableOptions(self.log)
        self.robots = Robots(env_id)
        self.votes = Votes(self)
        self.game = Game(self)
        self._deal_views_step = -1  # the steps at which the deal views kept were made
        self._deal_views: dict[int | None, dict[str, Any]] = {}  # seat -> deal_view (None: a spectator)

    def log(self, text: str) -> None:
        self.events = [*self.events[-29:], text]
        self.version += 1

    # ----------------------------------------------------------------------------- the parts' hooks
    def deal_ended(self, record: dict[str, Any], info: dict[str, Any]) -> None:
        if self.on_deal_end is not None:
            self.on_deal_end(self, record, info)

    def game_ended(self, result: GameResult) -> None:
        if self.on_game_end is not None:
            self.on_game_end(self, result)

    def annul(self) -> None:
        """Every person accepted the cancellation (:class:`~.votes.Votes`)."""
        self.game.end(cancelled=True)

    # ----------------------------------------------------------------------------- what the parts hold
    # The table's names for its parts' state, as its callers (the server, the tests) read it: each is the
    # part's own (``table.state`` is ``table.game.state``); the few a test sets to lay out a deal or
    # replace an agent have a setter.
    @property
    def state(self) -> str:
        return self.game.state

    @property
    def turn(self) -> int | None:
        return self.game.turn

    @property
    def env(self) -> Any:
        """The deal's AEC env (None before the first deal, and after a game annulled or the table closed)."""
        return self.game.env

    @property
    def settings(self) -> Settings:
        return self.options.settings

    @property
    def invite(self) -> str:
        return self.options.invite

    @property
    def owner(self) -> User | None:
        return self.seats.owner

    @property
    def game_no(self) -> int:
        return self.game.game_no

    @property
    def deal_no(self) -> int:
        return self.game.deal_no

    @property
    def steps(self) -> int:
        return self.game.steps

    @property
    def stakes(self) -> list[int]:
        return self.game.stakes

    @property
    def solo(self) -> bool:
        return self.game.solo

    @property
    def last_result(self) -> dict[str, Any] | None:
        return self.game.last_result

    @property
    def deal_results(self) -> list[dict[str, Any]]:
        return self.game.deal_results

    @property
    def game_result(self) -> GameResult | None:
        return self.game.game_result

    @property
    def next_deal_options(self) -> dict[str, Any] | None:
        """A given deal for the next deal (``env.reset(options=...)``): the tests lay out the cards they need."""
        return self.game.next_deal_options

    @next_deal_options.setter
    def next_deal_options(self, options: dict[str, Any] | None) -> None:
        self.game.next_deal_options = options

    @property
    def agents(self) -> dict[int, Any]:
        return self.robots.agents

    @agents.setter
    def agents(self, agents: dict[int, Any]) -> None:
        self.robots.agents = agents

    @property
    def fallback(self) -> Any:
        return self.robots.fallback

    @fallback.setter
    def fallback(self, agent: Any) -> None:
        self.robots.fallback = agent

    @property
    def fallbacks(self) -> dict[int, dict[str, int]]:
        return self.robots.fallbacks

    @property
    def timeouts(self) -> list[tuple[int, str]]:
        return self.robots.timeouts

    @property
    def cancel_votes(self) -> dict[int, bool] | None:
        return self.votes.ballots

    def seat_of(self, user: User) -> int | None:
        return self.seats.seat_of(user)

    def player_seat(self, user: User) -> int | None:
        return self.seats.player_seat(user)

    def name_of(self, seat: int) -> str:
        return self.seats.name_of(seat)

    def deadline(self) -> float | None:
        return self.game.deadline()

    # ----------------------------------------------------------------------------- people's requests
    def check_sit(self, user: User, seat: int, invite: str | None = None) -> None:
        """:class:`RoomError` if ``user`` may not sit at ``seat`` now (nothing changes either way)."""
        if self.state not in ("waiting", "over"):
            raise RoomError("the game has started: seats can be taken before a game or after it")
        if self.settings.private and invite != self.invite and not self.seats.is_owner(user):
            raise RoomError("this table is private: sit with the invitation link")
        self.seats.check_free(user, seat)
        st = self.settings
        if st.chips and not st.practice and user.chips < st.stake:
            raise RoomError(f"this table plays for {st.stake} chips and you have {user.chips}")

    def sit(self, user: User, seat: int, address: str | None = None, invite: str | None = None) -> None:
        """Sit ``user`` at an empty seat. The first person seated owns the table."""
        self.check_sit(user, seat, invite)
        self.seats.sit(user, seat, address)

    def leave(self, user: User) -> None:
        """Leave a seat before the game or after it (during a game: disconnect, and the bot plays)."""
        self.seats.leave(user, in_game=self.game.in_game)

    def set_robot(self, user: User, seat: int, robot: str | None, agent: Any = None) -> None:
        """The owner puts a robot at an empty seat (or removes one: ``robot=None``), before a game
        (:meth:`~.seats.Seats.set_robot`)."""
        self.seats.need_owner(user, "seat robots")
        if self.state not in ("waiting", "over"):
            raise RoomError("robots are seated before a game")
        self.seats.set_robot(seat, robot, agent)

    def change_settings(self, user: User, changes: Any) -> None:
        """The owner changes settings before a game, between games, or (some of them) between deals."""
        self.seats.need_owner(user, "change the settings")
        self.options.change(changes, self.state)

    def renew_invite(self, user: User) -> None:
        """The owner makes a new invitation: the old link no longer admits anyone (the people seated stay)."""
        self.seats.need_owner(user, "renew the invitation")
        self.options.renew_invite()

    def start(self, user: User, now: float, deal: DealJob | None = None, agents: dict[int, tuple[str, Any]] | None = None) -> None:
        """The owner starts a game (:meth:`~.dealing.Game.start`)."""
        self.game.start(user, now, deal, agents)

    def next_deal(self, user: User, now: float, deal: DealJob | None = None) -> None:
        self.game.next_deal(user, now, deal)

    def move(self, user: User, action: Any, now: float) -> None:
        self.game.move(user, action, now)

    def propose_cancel(self, user: User, now: float) -> None:
        self.votes.propose(user, now)

    def answer_cancel(self, user: User, accept: bool, now: float) -> None:
        self.votes.answer(user, accept, now)

    def disconnect(self, user: User, now: float) -> None:
        """The person's last connection closed: in a game a robot takes the seat at once."""
        p = self.seats.disconnect(user, now)
        if p is None:
            return
        if self.game.in_game:
            self.log(f"{user.name} is disconnected: a robot plays the seat; {self.seats.reconnect_window:g} s to come back")
            if self.turn == p:
                self.game.turn_since = now  # the robot plays this turn after its delay
            self.votes.count(now)
        else:
            self.log(f"{user.name} is disconnected")

    def reconnect(self, user: User, now: float, address: str | None = None) -> bool:
        """The person is back: he takes his seat again (unless he abandoned). Whether he is seated here."""
        p = self.seats.come_back(user, address)
        if p is None:
            q = self.seats.seat_of(user)
            return q is not None and self.seats[q].connected
        if self.turn == p:
            self.game.turn_since = now  # his time runs from his return
        self.log(f"{user.name} is back and takes the seat again")
        return True

    def close(self) -> None:
        """The table is closed: its deal and its robots let go."""
        self.game.env = None
        self.robots.agents = {}

    # ----------------------------------------------------------------------------- the clock
    def advance(self, now: float, play: bool = True) -> bool:
        """Do what the clock makes due; True if anything changed. At most one move per call, so that
        the page sees each robot's card. ``play=False`` (the server): a robot's move or a deal that is due is
        left to the server's worker threads (:meth:`.dealing.Game.run_clock`: ``game.due``, ``game.deal_due``)."""
        before = self.version
        self._expire_windows(now)
        self.game.run_clock(now, play)
        return self.version != before

    def _expire_windows(self, now: float) -> None:
        """The reconnection windows run out: in a game the seat is abandoned to the robot; before one it is freed."""
        for p in self.seats.expired(now):
            s = self.seats[p]
            name = s.user.name if s.user is not None else "?"
            if self.game.in_game:
                s.abandoned = True
                self.log(f"{name} did not come back in time: abandoned, the robot plays the seat to the end")
                if len(self.seats.voters()) < 2 and not self.solo and not self.settings.practice:
                    self.log(f"no second person plays this game now: it is practice ({SOLO_WORDS})")
                self.votes.count(now)
            else:  # before a game: the seat is freed
                self.seats.free(p)
                self.log(f"{name} left (disconnected)")

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
            "owner": bool(s.user is not None and self.seats.is_owner(s.user)),
            "connected": s.connected if s.person else None,
            "abandoned": s.abandoned,
            "robot_plays": s.person and s.bot_plays,
            "user_id": s.user.id if s.user else None,
        }

    def view(self, seat: int | None, now: float, viewer: User | None = None) -> dict[str, Any]:
        """Everything the page shows to ``seat`` (``None``: a spectator): the table and, in a deal, the deal."""
        deadline = self.deadline()
        game = self.game
        out: dict[str, Any] = {
            **self.summary(),
            "you": seat,
            "owner_is_you": bool(viewer is not None and self.seats.is_owner(viewer)),
            "changed": self.options.changed(),
            "game_no": game.game_no,
            "deal_no": game.deal_no,
            "totals": game.totals,
            "stakes": game.stakes,
            "events": self.events[-12:],
            "turn": self.turn,
            "time_left": None if deadline is None else max(0.0, deadline - now),
            "next_deal_in": None if game.next_deal_at is None else max(0.0, game.next_deal_at - now),
            "cancel": self.votes.view(),
            # why the game counts for nothing, once that is certain (None: it may count)
            "practice": practice_now(self.settings, game.in_game, game.solo, self.seats),
            "last_result": game.last_result,
            "game_result": None if game.game_result is None else vars(game.game_result),
            "deal": None,
        }
        if viewer is not None and self.seats.is_owner(viewer):
            out["invite"] = self.invite
        if game.env is not None and self.state in ("playing", "between", "over"):
            out["deal"] = self._deal_view(seat)
        return out

    def _deal_view(self, seat: int | None) -> dict[str, Any]:
        """:func:`deal_view` of the deal as it stands, made once per seat and move: every move is sent to each
        connection at the table, and the spectators (and a person's several tabs) see the same view. The
        deal changes only by a step or a new deal, both counted in ``game.steps``."""
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
        #: (:meth:`tarot_env.web.workers.Workers.think`): an agent that never answers must not stop its table
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
