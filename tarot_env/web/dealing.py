"""A table's game, deal by deal: the game started, each deal dealt (made apart from the table by
:class:`DealJob`, so that the server can shuffle in a worker thread), a person's move through ``env.step``,
a robot's move (thought apart by :class:`~tarot_env.web.robots.RobotJob`), the clock's turn (a robot's
move or a time-out), the end of a deal and of the game.

:class:`Game` is the table's part that owns the game's state (``table.game``): the table's state
(``waiting``, ``playing``, ``between``, ``over``), the deal's env, the deals and their totals, the stakes,
the moves each person made himself. What it reads of its table is :class:`GameTable`: the seats, the
robots, the vote, the settings, the clock's delays, the log and the hooks of a deal's and a game's end."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

import tarot_env
from tarot_env.env_facts import facts
from tarot_env.errors import IllegalActionError
from tarot_env.moves import refusal
from tarot_env.rules.results import NOT_PLAYED
from tarot_env.web.game_end import GameResult, settle
from tarot_env.web.leaderboard import SOLO_WORDS
from tarot_env.web.people import RoomError, User
from tarot_env.web.robots import RobotJob, Robots
from tarot_env.web.seats import Seats
from tarot_env.web.settings import Settings
from tarot_env.web.views import current_seat, dealer_seat, discard_text, refusal_words, result_view
from tarot_env.web.votes import Votes


def check_game(env_id: Any, num_players: Any) -> None:
    """:class:`RoomError` unless ``env_id`` is a game played by ``num_players``."""
    if not isinstance(env_id, str):
        raise RoomError("create: env is a game id such as french_tarot_v0")
    if isinstance(num_players, bool) or not isinstance(num_players, int):
        raise RoomError("create: players is a whole number")
    if env_id not in tarot_env.ENV_IDS:
        raise RoomError(f"unknown game {env_id[:40]!r}; the games are {', '.join(tarot_env.ENV_IDS)}")
    counts = facts(env_id).player_counts
    if num_players not in counts:
        raise RoomError(f"{env_id} is played by {', '.join(map(str, counts))} players, not {num_players}")


@dataclass
class DealJob:
    """A deal to deal, made (:meth:`make`: the env built and its cards shuffled) apart from the table, so that
    the server can make it in a worker thread and deal it under the room's lock. It fits the game it was
    asked for only while that game has dealt nothing since and its given deal (``next_deal_options``) is the same."""

    game: Game
    dealt: int  # the game's count of deals dealt when it was asked
    env_id: str
    num_players: int
    dealer: int
    seed: int
    options: dict[str, Any] | None
    env: Any = None

    def make(self) -> DealJob:
        """Build the env and shuffle (or lay out the given deal); touches nothing of the game's."""
        env = tarot_env.make(self.env_id, num_players=self.num_players, dealer=self.dealer)
        if self.options is not None:
            env.reset(options=self.options)
        else:
            env.reset(seed=self.seed)
        self.env = env
        return self

    def made(self) -> Any:
        return self.env if self.env is not None else self.make().env

    def fits(self, game: Game) -> bool:
        return self.game is game and self.dealt == game.dealt and self.options is game.next_deal_options


class GameTable(Protocol):
    """What a table's game reads of the table."""

    @property
    def id(self) -> int: ...
    @property
    def env_id(self) -> str: ...
    @property
    def num_players(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def seeded(self) -> bool: ...  # the deals are drawn from the seed (else from fresh secret entropy)
    @property
    def robot_delay(self) -> float: ...  # seconds before a robot moves
    @property
    def pause(self) -> float: ...  # seconds between two deals
    @property
    def seats(self) -> Seats: ...
    @property
    def robots(self) -> Robots: ...
    @property
    def votes(self) -> Votes: ...
    @property
    def settings(self) -> Settings: ...
    def log(self, text: str) -> None: ...
    def deal_ended(self, record: dict[str, Any], info: dict[str, Any]) -> None: ...
    def game_ended(self, result: GameResult) -> None: ...


class Game:
    """A table's game, deal by deal, and the table's state: ``waiting`` (seats filling, settings open),
    ``playing`` (a deal in progress), ``between`` (between two deals of a game), ``over`` (the game ended
    or was annulled; the owner may start another)."""

    def __init__(self, table: GameTable) -> None:
        self.table = table
        self.env_id = table.env_id
        self.num_players = n = table.num_players
        self.state = "waiting"
        self.game_no = 0
        self.deal_no = 0  # deals counted in this game (a deal with no card played, rules.results.NOT_PLAYED, does not count)
        self.dealt = 0  # deals dealt at this table (seeds and dealer rotation)
        self.totals = [0.0] * n
        self.stakes = [0] * n
        self.env: Any = None
        self.turn_since = 0.0
        self.next_deal_at: float | None = None
        self.last_result: dict[str, Any] | None = None
        self.game_result: GameResult | None = None
        self.deal_results: list[dict[str, Any]] = []
        self.solo = False  # this game started with fewer than two people present: practice (no XP, no chips)
        self.own_moves = [0] * n  # this deal: moves each person made himself
        self.clock_moves = [0] * n  # this deal: moves the clock or the robot made for a person
        self.own_deals = [0] * n  # this game: deals each person played himself (most of his moves his own)
        self.steps = 0  # env steps and deals so far: a robot's move thought outside the lock applies only if unchanged
        self.due: tuple[int, str] | None = None  # a robot's move due, for the server to think (run_clock(play=False))
        self.deal_due = False  # the next deal is due, for the server to deal (run_clock(play=False))
        self.next_deal_options: dict[str, Any] | None = None  # a given deal (tests): reset(options=...)

    @property
    def in_game(self) -> bool:
        """A game in progress (a deal, or between two)."""
        return self.state in ("playing", "between")

    def start(self, user: User, now: float, deal: DealJob | None = None, agents: dict[int, tuple[str, Any]] | None = None) -> None:
        """The owner starts a game: every seat filled, stakes taken, the first deal dealt (``deal``: made
        beforehand, in a worker thread, by :meth:`deal_job`; ``agents``: the robots' agents, ``{seat: (robot,
        agent)}``, made beforehand in a worker thread by :meth:`~tarot_env.web.seats.Seats.make_robots`;
        a seat whose robot is not the one made gets its agent made here)."""
        seats = self.table.seats
        seats.need_owner(user, "start the game")
        if self.state not in ("waiting", "over"):
            raise RoomError("a game is already in progress")
        empty = [p for p, s in enumerate(seats) if s.empty]
        if empty:
            raise RoomError(f"seats {', '.join(map(str, empty))} are empty: seat people or robots there")
        st = self.table.settings
        # alone with robots (a person seated but away is not there): practice, and the robots' stakes are the bank's
        self.solo = len(seats.present()) < 2
        paying = st.chips and not st.practice and not self.solo
        if paying:
            short = [s.user.name for s in seats if s.user is not None and s.user.chips < st.stake]
            if short:
                raise RoomError(f"not enough chips to cover the stake of {st.stake}: {', '.join(short)}")
        self.game_no += 1
        self.deal_no = 0
        self.totals = [0.0] * self.num_players
        self.deal_results = []
        self.own_deals = [0] * self.num_players
        self.game_result = None
        self.table.votes.clear()
        self.stakes = [st.stake if paying else 0 for _ in seats]
        for s in seats:  # robots stake from the bank; people from their own chips
            if s.user is not None and paying:
                s.user.chips -= st.stake
            s.abandoned = False
        made = agents or {}
        self.table.robots.agents = {
            p: made[p][1] if p in made and made[p][0] == s.robot else seats.make_agent(p, s.robot) for p, s in enumerate(seats) if s.robot
        }
        practice = f" (practice: {SOLO_WORDS})" if self.solo and not st.practice else ""
        self.table.log(f"game {self.game_no} starts: {st.deals} deal(s)" + (f", stake {st.stake} chips" if paying else "") + practice)
        self._deal(now, deal)

    def deal_job(self) -> DealJob:
        """The next deal to deal, its cards not yet shuffled: :meth:`DealJob.make` shuffles them, in a worker
        thread for the server (the first deal of a game in a process loads its kernels)."""
        seed = self.table.seed
        shuffle = seed * 1000 + self.dealt if self.table.seeded else secrets.randbits(63)
        dealer = (seed + self.dealt) % self.num_players
        return DealJob(self, self.dealt, self.env_id, self.num_players, dealer, shuffle, self.next_deal_options)

    def apply_deal(self, job: DealJob, now: float) -> bool:
        """Deal the deal ``job`` made, if the game still waits for it (between two deals); whether it did."""
        if self.state != "between" or not job.fits(self):
            return False
        self._deal(now, job)
        return True

    def _deal(self, now: float, job: DealJob | None = None) -> None:
        """Deal the next deal: ``job``'s, made in a worker thread, when it is still this game's next, else made here."""
        if job is None or not job.fits(self):
            job = self.deal_job()
        self.env = job.made()
        if job.options is not None:
            self.next_deal_options = None
        self.dealt += 1
        self.steps += 1
        self.own_moves = [0] * self.num_players
        self.clock_moves = [0] * self.num_players
        self.table.robots.bind(self.env.unwrapped)  # the search agent samples from this deal, through its seat's beliefs
        self.state = "playing"
        self.next_deal_at = None
        self.last_result = None
        self.turn_since = now
        dealer = dealer_seat(self.env.unwrapped)  # a given deal names its own dealer
        self.table.log(f"deal {self.deal_no + 1} of {self.table.settings.deals}: {self.table.seats.name_of(dealer)} deals")
        if self.env.unwrapped.game_over:  # over as it is dealt (a French petit sec annulled): ended now, dealt again
            self._end_deal(now)

    @property
    def turn(self) -> int | None:
        """The seat to play, or None outside a deal."""
        if self.state != "playing" or self.env is None:
            return None
        return current_seat(self.env.unwrapped)

    def deadline(self) -> float | None:
        """When the person to play runs out of time (None: a robot plays, or no deal)."""
        p = self.turn
        if p is None or self.table.seats[p].bot_plays:  # a vote stops no clock (:mod:`.votes`)
            return None
        return self.turn_since + self.table.settings.time_per_turn

    def move(self, user: User, action: Any, now: float) -> None:
        """A person's move: his turn, a legal action id (the env checks it and gives its reason)."""
        seats = self.table.seats
        p = seats.seat_of(user)
        if p is None:
            raise RoomError("you are not seated at this table")
        if seats[p].abandoned:
            raise RoomError("you abandoned this game (your reconnection window ran out): the robot plays your seat to its end")
        if self.state != "playing":
            raise RoomError("no deal is in progress")
        turn = self.turn
        if turn != p:
            raise RoomError(f"it is not your turn: {seats.name_of(turn)} is to play" if turn is not None else "no one is to play")
        if isinstance(action, bool) or not isinstance(action, int):
            raise RoomError("move: action is an action id (a whole number)")
        n_actions = int(np.asarray(self.env.unwrapped.legal_mask()).shape[-1])
        if not 0 <= action < n_actions:
            raise RoomError(f"move: action {action} is not an action id 0..{n_actions - 1}")
        try:
            self.env.step(action)
        except IllegalActionError as err:
            raise RoomError(refusal_words(self.env_id, self.env.unwrapped, action, refusal(err))) from None
        self.own_moves[p] += 1
        self._after_step(p, action, now, by="")

    def _after_step(self, p: int, action: int, now: float, by: str) -> None:
        raw = self.env.unwrapped
        text = raw.action_to_string(action)
        if text.startswith("discard"):  # the écart and the discards are face down, but for a French trump
            text = discard_text(self.env_id, text.split()[1])
        self.table.log(f"{self.table.seats.name_of(p)}: {text}" + (f" ({by}: the robot played)" if by == "time-out" else ""))
        self.turn_since = now
        self.steps += 1
        if raw.game_over:
            self._end_deal(now)

    def _end_deal(self, now: float) -> None:
        raw = self.env.unwrapped
        info = dict(raw.infos[raw.possible_agents[0]])
        record = raw.record()
        scores = [float(x) for x in info.get("scores", [0] * self.num_players)]
        redeal = info.get("result") in NOT_PLAYED
        self.last_result = result = {**result_view(self.env_id, info), "redeal": redeal}
        self.table.deal_ended(record, info)
        if redeal:  # no card played: dealt again, the deal does not count
            self.table.log(f"{result['summary']}: the cards are dealt again")
        else:
            self.deal_no += 1
            for p in self.table.seats.people():  # his own deal: he made at least as many of his moves as the clock did
                if self.own_moves[p] > 0 and self.own_moves[p] >= self.clock_moves[p]:
                    self.own_deals[p] += 1
            self.totals = [t + s for t, s in zip(self.totals, scores)]
            self.deal_results.append(info)
            self.table.log(result["summary"])  # the one-line summary of how it ended (result_view)
        if self.deal_no >= self.table.settings.deals:
            self.end(cancelled=False)
        else:
            self.state = "between"
            self.next_deal_at = now + self.table.pause

    def next_deal(self, user: User, now: float, deal: DealJob | None = None) -> None:
        """The owner deals the next deal now rather than at the end of the pause (``deal``: as in :meth:`start`)."""
        self.table.seats.need_owner(user, "deal the next deal")
        if self.state != "between":
            raise RoomError("the next deal is dealt between two deals of a game")
        self._deal(now, deal)

    def end(self, cancelled: bool) -> None:
        """The game ends (``cancelled``: annulled by agreement): settled (:func:`~.game_end.settle`), said, and
        handed to the table's hook."""
        self.game_result = result = settle(self, self.table.seats, self.table.settings, cancelled)
        self.state = "over"
        self.env = None if cancelled else self.env
        self.table.votes.clear()
        self.next_deal_at = None
        if cancelled:
            self.table.log(f"game {self.game_no} annulled by agreement: no points, no XP, stakes returned")
        else:
            names = ", ".join(self.table.seats.name_of(p) for p in result.winners)
            self.table.log(f"game {self.game_no} over: won by {names}" + ("" if result.official else f" ({result.reason}: no XP)"))
        self.table.game_ended(result)

    # ----------------------------------------------------------------------------- the clock and the robots
    def run_clock(self, now: float, play: bool) -> None:
        """What the clock makes due in the game: the next deal after the pause, or the move of a robot (after
        its delay) or of a person out of time. ``play=False`` (the server): a robot's move that is due is not
        thought here but left in :attr:`due` as ``(seat, why)``, for a worker thread, and a deal that is due
        is not dealt here but flagged in :attr:`deal_due` (:meth:`deal_job`, :meth:`apply_deal`)."""
        self.due = None
        self.deal_due = False
        if self.state == "between" and self.next_deal_at is not None and now >= self.next_deal_at:
            if play:
                self._deal(now)
            else:
                self.deal_due = True
        elif self.state == "playing":  # a cancellation vote open or not: the game goes on
            p = self.turn
            if p is not None:
                why = None
                if self.table.seats[p].bot_plays:
                    if now - self.turn_since >= self.table.robot_delay:
                        why = "robot"
                elif now - self.turn_since >= self.table.settings.time_per_turn:
                    why = "time-out"
                if why is not None and play:
                    self._play_for(p, now, why)
                elif why is not None:
                    self.due = (p, why)

    def _play_for(self, p: int, now: float, why: str) -> None:
        """A robot's move for seat ``p``, thought and played at once (the tests' clock; the server thinks
        outside its lock with :meth:`robot_job` and :meth:`apply_robot`)."""
        job = self.robot_job(p, why)
        action, failure = job.think()
        self.apply_robot(job, action, failure, now)

    def robot_job(self, p: int, why: str) -> RobotJob:
        """What a robot needs to think of seat ``p``'s move, copied, so that it can think in a worker thread."""
        return self.table.robots.job(self.table.id, p, why, self.steps, self.env, self.table.seats[p].robot)

    def apply_robot(self, job: RobotJob, action: int, failure: str | None, now: float) -> bool:
        """Play the move ``job`` thought of, if the game has not moved on meanwhile; whether it was played."""
        p = job.seat
        seat = self.table.seats[p]
        if self.steps != job.steps or self.state != "playing" or self.turn != p:
            return False
        if job.why == "robot" and not seat.bot_plays:  # the person came back while it thought
            return False
        robots = self.table.robots
        robots.count(p, failure)
        self.env.step(action)
        if seat.person:
            self.clock_moves[p] += 1
        if job.why == "time-out":
            robots.timeouts.append((p, self.env.unwrapped.action_to_string(action)))
        self._after_step(p, action, now, by=job.why)
        return True
