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
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

import numpy as np

import tarot_env
from tarot_env.cli import views as cli_views
from tarot_env.cli.play import make_agents, refusal, rule_agent, title
from tarot_env.errors import IllegalActionError
from tarot_env.rules.bolognese.state import Result as TarocchinoResult
from tarot_env.rules.french import teams
from tarot_env.rules.french.state import Result as FrenchResult
from tarot_env.web import chips as chip_rules
from tarot_env.web import leaderboard
from tarot_env.web.views import current_seat, deal_view, dealer_seat, refusal_words, result_view

log = logging.getLogger("tarot_env.web")

#: the robots a seat can hold: the names ``tarot play --agents`` takes
ROBOTS = ("rules", "random", "pretrained", "pimc")
#: the seconds a robot may think of one move (the server's default): the search robot's own budget is
#: 0.25 s a decision and the others answer in milliseconds, so past this one it is taken to hang
ROBOT_TIMEOUT = 5.0
#: chips a new user starts with (the page: chips are needed to cover a table's stake)
START_CHIPS = 1000


class RoomError(ValueError):
    """A request the room refuses (not your turn, not the owner, a bad setting ...): the reason, for the player."""


# ------------------------------------------------------------------------------------- settings
@dataclass(frozen=True)
class Settings:
    """The table's settings (the rules page, "Impostazioni del tavolo"), chosen by the owner."""

    time_per_turn: float = 30.0  # seconds; when it runs out the rule-based bot plays the move
    deals: int = 1  # deals (hands) per game
    chips: bool = False  # play for chips (a stake per game) rather than for points only
    stake: int = 10  # chips each seat stakes per game (chips games)
    practice: bool = False  # a practice game counts for nothing (no XP, no chips)
    private: bool = False  # only people with the invitation link may sit or watch
    spectators: bool = True  # other people may watch (they see no hidden hand)


#: the range of each setting: (type, low, high); booleans have none
LIMITS: dict[str, tuple[type, float | None, float | None]] = {
    "time_per_turn": (float, 0.1, 600.0),
    "deals": (int, 1, 20),
    "chips": (bool, None, None),
    "stake": (int, 1, 10_000),
    "practice": (bool, None, None),
    "private": (bool, None, None),
    "spectators": (bool, None, None),
}
#: what may change between two deals of a game: who may watch or join later. The others (the deals, the
#: time per turn, what the game is played for) are fixed from the game's start to its end: an owner ahead
#: after two deals could otherwise cut a 20-deal game short (issue 30)
BETWEEN_DEALS = ("private", "spectators")
#: the largest magnitude a number in the settings may have before its range is checked: a number of
#: thousands of digits is refused by its size (numpy's isfinite overflowed on it: "the server failed")
_HUGE = 10**12


def check_settings(changes: Any) -> dict[str, Any]:
    """The changes as typed values, or :class:`RoomError` naming the first bad one (nothing is applied)."""
    if not isinstance(changes, dict) or not changes:
        raise RoomError("settings: give a non-empty object of setting: value")
    out: dict[str, Any] = {}
    for key, value in changes.items():
        if key not in LIMITS:
            raise RoomError(f"settings: unknown setting {str(key)[:40]!r}; the settings are {', '.join(LIMITS)}")
        kind, low, high = LIMITS[key]
        if kind is bool:
            if not isinstance(value, bool):
                raise RoomError(f"settings: {key} is true or false, got {str(value)[:40]!r}")
        else:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise RoomError(f"settings: {key} is a number, got {str(value)[:40]!r}")
            if isinstance(value, int) and abs(value) > _HUGE:
                digits = len(str(abs(value)))
                raise RoomError(f"settings: {key} must be between {low:g} and {high:g}, got a number of {digits} digits")
            if not np.isfinite(value):
                raise RoomError(f"settings: {key} is a finite number between {low:g} and {high:g}, got {value}")
            if kind is int and value != int(value):
                raise RoomError(f"settings: {key} is a whole number, got {value}")
            if not low <= value <= high:  # type: ignore[operator]
                raise RoomError(f"settings: {key} must be between {low:g} and {high:g}, got {value:g}")
            value = kind(value)
        out[key] = value
    return out


#: how a deal ends with no card played, in the env's ``infos["result"]`` (the rules' result codes'
#: names): all passed or a petit sec (French Tarot), all passed in Terziglio (thrown in). The room
#: deals again; it is not one of the game's deals (the Tarocchino rules count only played hands,
#: rules/bolognese/scoring.py settle_matches: a thrown-in hand does not count, U12).
NOT_PLAYED = (
    FrenchResult.name(FrenchResult.ALL_PASSED),
    FrenchResult.name(FrenchResult.PETIT_SEC),
    TarocchinoResult.name(TarocchinoResult.THROWN_IN),
)


def check_game(env_id: Any, num_players: Any) -> None:
    """:class:`RoomError` unless ``env_id`` is a game played by ``num_players``."""
    if not isinstance(env_id, str):
        raise RoomError("create: env is a game id such as french_tarot_v0")
    if isinstance(num_players, bool) or not isinstance(num_players, int):
        raise RoomError("create: players is a whole number")
    if env_id not in tarot_env.ENV_IDS:
        raise RoomError(f"unknown game {env_id[:40]!r}; the games are {', '.join(tarot_env.ENV_IDS)}")
    from tarot_env.envs.env_docs import player_counts

    if num_players not in player_counts(env_id):
        raise RoomError(f"{env_id} is played by {', '.join(map(str, player_counts(env_id)))} players, not {num_players}")


# ------------------------------------------------------------------------------------- people
@dataclass
class User:
    """A person of the room: a name, a secret token (kept by the browser), chips and XP."""

    id: int
    name: str
    token: str
    chips: int = START_CHIPS
    xp: int = 0


@dataclass
class Seat:
    """A seat: empty, a person's (``user``), or a robot's (``robot``: an agent name of :data:`ROBOTS`)."""

    user: User | None = None
    robot: str | None = None
    address: str | None = None  # the person's network address (two equal ones void the XP)
    connected: bool = False
    away_since: float | None = None  # when the person disconnected (the reconnection window runs from it)
    abandoned: bool = False  # the window ran out: the bot plays the seat to the end of the game

    @property
    def empty(self) -> bool:
        return self.user is None and self.robot is None

    @property
    def person(self) -> bool:
        return self.user is not None

    @property
    def bot_plays(self) -> bool:
        """A robot moves for this seat now: a robot seat, or a person away (disconnected or gone)."""
        return self.robot is not None or (self.user is not None and (not self.connected or self.abandoned))


@dataclass
class GameResult:
    """The end of a game, as saved and shown: totals, winners, chips and XP, or why it counts for nothing."""

    totals: list[float]
    winners: list[int]
    official: bool
    reason: str
    cancelled: bool = False
    chips_paid: list[int] = field(default_factory=list)
    chips_net: list[int] = field(default_factory=list)
    bank: int = 0
    xp: list[int] = field(default_factory=list)


# ------------------------------------------------------------------------------------- the table
class Table:
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
        self.title = f"{title(env_id)}, {num_players} players"
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
        self.deal_no = 0  # deals counted in this game (a deal with no card played, NOT_PLAYED, does not count)
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
        self.timeouts: list[tuple[int, str]] = []  # (seat, move) played by the bot at a time-out
        self.solo = False  # this game has fewer than two people: practice (no XP, no chips), decided at its start
        self.own_moves = [0] * num_players  # this deal: moves each person made himself
        self.clock_moves = [0] * num_players  # this deal: moves the clock or the robot made for a person
        self.own_deals = [0] * num_players  # this game: deals each person played himself (most of his moves his own)
        self.steps = 0  # env steps and deals so far: a robot's move thought outside the lock applies only if unchanged
        self.fallbacks: dict[int, dict[str, int]] = {}  # seat -> moves, exception, illegal, fallback (as the arena counts)
        self.due: tuple[int, str] | None = None  # a robot's move due, for the server to think (advance(play=False))
        self.deal_due = False  # the next deal is due, for the server to deal (advance(play=False))
        self.next_deal_options: dict[str, Any] | None = None  # a given deal (tests): reset(options=...)

    # ----------------------------------------------------------------------------- helpers
    def log(self, text: str) -> None:
        self.events = [*self.events[-29:], text]
        self.version += 1

    def seat_of(self, user: User) -> int | None:
        for p, s in enumerate(self.seats):
            if s.user is not None and s.user.id == user.id:
                return p
        return None

    def player_seat(self, user: User) -> int | None:
        """The seat ``user`` plays and sees the hand of: his seat, unless he abandoned it (after his
        reconnection window the seat belongs to the robot to the end of the game)."""
        p = self.seat_of(user)
        return None if p is None or self.seats[p].abandoned else p

    def name_of(self, seat: int) -> str:
        s = self.seats[seat]
        if s.user is not None:
            return s.user.name
        return f"robot {seat} ({s.robot})" if s.robot else "(empty)"

    def people(self) -> list[int]:
        return [p for p, s in enumerate(self.seats) if s.person]

    def is_owner(self, user: User) -> bool:
        return self.owner is not None and self.owner.id == user.id

    def changed_settings(self) -> list[str]:
        """The settings the owner set away from the defaults: marked on the page (the rules page's red icon)."""
        default = Settings()
        return [f.name for f in fields(Settings) if getattr(self.settings, f.name) != getattr(default, f.name)]

    def _need_owner(self, user: User, what: str) -> None:
        if not self.is_owner(user):
            raise RoomError(f"only the table's owner ({self.owner.name if self.owner else 'nobody'}) may {what}")

    # ----------------------------------------------------------------------------- seats
    def sit(self, user: User, seat: int, address: str | None = None, invite: str | None = None) -> None:
        """Sit ``user`` at an empty seat. The first person seated owns the table."""
        self.check_sit(user, seat, invite)
        self.seats[seat] = Seat(user=user, address=address, connected=True)
        if self.owner is None:
            self.owner = user
        self.log(f"{user.name} sits at seat {seat}" + (" (owner)" if self.is_owner(user) else ""))

    def check_sit(self, user: User, seat: int, invite: str | None = None) -> None:
        """:class:`RoomError` if ``user`` may not sit at ``seat`` now (nothing changes either way)."""
        if self.state not in ("waiting", "over"):
            raise RoomError("the game has started: seats can be taken before a game or after it")
        if self.settings.private and invite != self.invite and not self.is_owner(user):
            raise RoomError("this table is private: sit with the invitation link")
        if not 0 <= seat < self.num_players:
            raise RoomError(f"there is no seat {seat}: the seats are 0..{self.num_players - 1}")
        if self.seat_of(user) is not None:
            raise RoomError("you are already seated at this table")
        if not self.seats[seat].empty:
            raise RoomError(f"seat {seat} is taken by {self.name_of(seat)}")
        if self.settings.chips and not self.settings.practice and user.chips < self.settings.stake:
            raise RoomError(f"this table plays for {self.settings.stake} chips and you have {user.chips}")

    def leave(self, user: User) -> None:
        """Leave a seat before the game or after it (during a game: disconnect, and the bot plays)."""
        p = self.seat_of(user)
        if p is None:
            raise RoomError("you are not seated at this table")
        if self.state in ("playing", "between"):
            raise RoomError("a game is in progress: propose a cancellation, or leave and the robot plays your seat")
        self._free(p)
        self.log(f"{user.name} leaves seat {p}")

    def _free(self, p: int) -> None:
        """Empty seat ``p``; if its person owned the table, the next person seated (in seat order) takes the star."""
        user = self.seats[p].user
        self.seats[p] = Seat()
        if user is not None and self.is_owner(user):
            self.owner = next((s.user for s in self.seats if s.user is not None), None)

    def set_robot(self, user: User, seat: int, robot: str | None) -> None:
        """The owner puts a robot at an empty seat (or removes one: ``robot=None``), before a game."""
        self._need_owner(user, "seat robots")
        if self.state not in ("waiting", "over"):
            raise RoomError("robots are seated before a game")
        if not 0 <= seat < self.num_players:
            raise RoomError(f"there is no seat {seat}: the seats are 0..{self.num_players - 1}")
        s = self.seats[seat]
        if s.person:
            raise RoomError(f"seat {seat} is {s.user.name}'s")  # type: ignore[union-attr]
        if robot is None:
            self.seats[seat] = Seat()
            self.log(f"seat {seat} emptied")
            return
        if robot not in ROBOTS:
            raise RoomError(f"unknown robot {str(robot)[:40]!r}; the robots are {', '.join(ROBOTS)}")
        self._make_agent(seat, robot)  # refused now (a missing model, the train extra) rather than at the first move
        self.seats[seat] = Seat(robot=robot)
        self.log(f"robot ({robot}) at seat {seat}")

    def _make_agent(self, seat: int, robot: str) -> Any:
        try:
            return make_agents([robot], self.env_id, [seat], self.seed, None, self.num_players)[seat][1]
        except SystemExit as err:  # make_agents speaks to the terminal with SystemExit
            raise RoomError(str(err.code).replace("tarot play: ", "").replace("error: ", "")) from None

    # ----------------------------------------------------------------------------- settings
    def change_settings(self, user: User, changes: Any) -> None:
        """The owner changes settings before a game, between games, or (some of them) between deals."""
        self._need_owner(user, "change the settings")
        new = check_settings(changes)
        if self.state == "playing":
            raise RoomError("the settings change before a game or between deals, not during a deal")
        if self.state == "between":
            locked = [k for k in new if k not in BETWEEN_DEALS and new[k] != getattr(self.settings, k)]
            if locked:
                raise RoomError(
                    f"settings: {', '.join(locked)} are fixed once a game starts (the game ends as it began); "
                    f"between its deals only {' and '.join(BETWEEN_DEALS)} may change"
                )
        changed = {k: v for k, v in new.items() if getattr(self.settings, k) != v}
        self.settings = replace(self.settings, **new)
        if changed:
            self.log("the owner changed " + ", ".join(f"{k} to {v}" for k, v in changed.items()))

    def renew_invite(self, user: User) -> None:
        """The owner makes a new invitation: the old link no longer admits anyone (the people seated stay)."""
        self._need_owner(user, "renew the invitation")
        self.invite = secrets.token_urlsafe(12)
        self.log("the owner renewed the invitation link")

    # ----------------------------------------------------------------------------- the game
    def start(self, user: User, now: float, deal: DealJob | None = None) -> None:
        """The owner starts a game: every seat filled, stakes taken, the first deal dealt (``deal``: made
        beforehand, in a worker thread, by :meth:`deal_job`)."""
        self._need_owner(user, "start the game")
        if self.state not in ("waiting", "over"):
            raise RoomError("a game is already in progress")
        empty = [p for p, s in enumerate(self.seats) if s.empty]
        if empty:
            raise RoomError(f"seats {', '.join(map(str, empty))} are empty: seat people or robots there")
        st = self.settings
        self.solo = len(self.people()) < 2  # alone with robots: practice (the robots' stakes are the bank's)
        paying = st.chips and not st.practice and not self.solo
        if paying:
            short = [s.user.name for s in self.seats if s.user is not None and s.user.chips < st.stake]
            if short:
                raise RoomError(f"not enough chips to cover the stake of {st.stake}: {', '.join(short)}")
        self.game_no += 1
        self.deal_no = 0
        self.totals = [0.0] * self.num_players
        self.deal_results = []
        self.own_deals = [0] * self.num_players
        self.game_result = None
        self.cancel_votes = None
        self.stakes = [st.stake if paying else 0 for _ in self.seats]
        for s in self.seats:  # robots stake from the bank; people from their own chips
            if s.user is not None and paying:
                s.user.chips -= st.stake
            s.abandoned = False
        self.agents = {p: self._make_agent(p, s.robot) for p, s in enumerate(self.seats) if s.robot}
        self.log(f"game {self.game_no} starts: {st.deals} deal(s)" + (f", stake {st.stake} chips" if paying else ""))
        self._deal(now, deal)

    def deal_job(self) -> DealJob:
        """The next deal to deal, its cards not yet shuffled: :meth:`DealJob.make` shuffles them, in a worker
        thread for the server (the first deal of a game in a process loads its kernels)."""
        seed = self.seed * 1000 + self.dealt if self.seeded else secrets.randbits(63)
        dealer = (self.seed + self.dealt) % self.num_players
        return DealJob(self, self.dealt, self.env_id, self.num_players, dealer, seed, self.next_deal_options)

    def apply_deal(self, job: DealJob, now: float) -> bool:
        """Deal the deal ``job`` made, if the table still waits for it (between two deals); whether it did."""
        if self.state != "between" or not job.fits(self):
            return False
        self._deal(now, job)
        return True

    def _deal(self, now: float, job: DealJob | None = None) -> None:
        """Deal the next deal: ``job``'s, made in a worker thread, when it is still this table's next, else made here."""
        if job is None or not job.fits(self):
            job = self.deal_job()
        self.env = job.made()
        if job.options is not None:
            self.next_deal_options = None
        self.dealt += 1
        self.steps += 1
        self.own_moves = [0] * self.num_players
        self.clock_moves = [0] * self.num_players
        for agent in self.agents.values():
            if hasattr(agent, "bind"):  # the search agent samples from this deal, through its seat's beliefs
                agent.bind(self.env.unwrapped)
        if hasattr(self.fallback, "bind"):
            self.fallback.bind(self.env.unwrapped)
        self.state = "playing"
        self.next_deal_at = None
        self.last_result = None
        self.turn_since = now
        dealer = dealer_seat(self.env.unwrapped)  # a given deal names its own dealer
        self.log(f"deal {self.deal_no + 1} of {self.settings.deals}: {self.name_of(dealer)} deals")

    @property
    def turn(self) -> int | None:
        """The seat to play, or None outside a deal."""
        if self.state != "playing" or self.env is None:
            return None
        return current_seat(self.env.unwrapped)

    def deadline(self) -> float | None:
        """When the person to play runs out of time (None: a robot plays, or no deal)."""
        p = self.turn
        if p is None or self.seats[p].bot_plays or self.cancel_votes is not None:  # the game waits while a vote is open
            return None
        return self.turn_since + self.settings.time_per_turn

    def move(self, user: User, action: Any, now: float) -> None:
        """A person's move: his turn, a legal action id (the env checks it and gives its reason)."""
        p = self.seat_of(user)
        if p is None:
            raise RoomError("you are not seated at this table")
        if self.seats[p].abandoned:
            raise RoomError("you abandoned this game (your reconnection window ran out): the robot plays your seat to its end")
        if self.state != "playing":
            raise RoomError("no deal is in progress")
        if self.turn != p:
            raise RoomError(f"it is not your turn: {self.name_of(self.turn)} is to play" if self.turn is not None else "no one is to play")
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

    def _play_for(self, p: int, now: float, why: str) -> None:
        """A robot's move for seat ``p``, thought and played at once (the tests' clock; the server thinks
        outside its lock with :meth:`robot_job` and :meth:`apply_robot`)."""
        job = self.robot_job(p, why)
        action, failure = job.think()
        self.apply_robot(job, action, failure, now)

    def robot_job(self, p: int, why: str) -> RobotJob:
        """What a robot needs to think of seat ``p``'s move, copied, so that it can think in a worker thread."""
        obs = self.env.observe(self.env.unwrapped.agent_selection)
        obs = {k: np.array(v, copy=True) for k, v in obs.items()}
        agent = self.agents.get(p, self.fallback)
        return RobotJob(self, p, why, self.steps, agent, self.fallback, obs, self.seats[p].robot or "rules")

    def apply_robot(self, job: RobotJob, action: int, failure: str | None, now: float) -> bool:
        """Play the move ``job`` thought of, if the table has not moved on meanwhile; whether it was played."""
        p = job.seat
        if self.steps != job.steps or self.state != "playing" or self.turn != p or self.cancel_votes is not None:
            return False
        if job.why == "robot" and not self.seats[p].bot_plays:  # the person came back while it thought
            return False
        counts = self.fallbacks.setdefault(p, {"moves": 0, "exception": 0, "illegal": 0, "timeout": 0, "fallback": 0})
        counts["moves"] += 1
        if failure is not None:
            counts[failure] += 1
            counts["fallback"] += 1
        self.env.step(action)
        if self.seats[p].person:
            self.clock_moves[p] += 1
        if job.why == "time-out":
            self.timeouts.append((p, self.env.unwrapped.action_to_string(action)))
        self._after_step(p, action, now, by=job.why)
        return True

    def _after_step(self, p: int, action: int, now: float, by: str) -> None:
        raw = self.env.unwrapped
        text = raw.action_to_string(action)
        if text.startswith("discard"):  # the écart and the discards are face down, but for a French trump
            text = cli_views.discard_text(self.env_id, text.split()[1])
        self.log(f"{self.name_of(p)}: {text}" + (f" ({by}: the robot played)" if by == "time-out" else ""))
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
        self.last_result = {**result_view(self.env_id, info), "redeal": redeal}
        if self.on_deal_end is not None:
            self.on_deal_end(self, record, info)
        if redeal:  # no card played: dealt again, the deal does not count
            self.log(f"{cli_views.result_line(self.env_id, info)}: the cards are dealt again")
        else:
            self.deal_no += 1
            for p in self.people():  # his own deal: he made at least as many of his moves as the clock did
                if self.own_moves[p] > 0 and self.own_moves[p] >= self.clock_moves[p]:
                    self.own_deals[p] += 1
            self.totals = [t + s for t, s in zip(self.totals, scores)]
            self.deal_results.append(info)
            self.log(cli_views.result_line(self.env_id, info))
        if self.deal_no >= self.settings.deals:
            self._end_game(cancelled=False)
        else:
            self.state = "between"
            self.next_deal_at = now + self.pause

    def next_deal(self, user: User, now: float, deal: DealJob | None = None) -> None:
        """The owner deals the next deal now rather than at the end of the pause (``deal``: as in :meth:`start`)."""
        self._need_owner(user, "deal the next deal")
        if self.state != "between":
            raise RoomError("the next deal is dealt between two deals of a game")
        self._deal(now, deal)

    # ----------------------------------------------------------------------------- the end
    def winners(self) -> list[int]:
        """Who won the game: the side that won a one-deal French game; else the best total.

        Mattazza scores count points against: there, the players with the fewest lost hands win.
        """
        if _penalty_scoring(self.env_id):
            lost = [0] * self.num_players
            for info in self.deal_results:
                for p in info.get("losers", []):
                    lost[p] += 1
            best = min(lost)
            return [p for p in range(self.num_players) if lost[p] == best]
        one_deal = self._one_deal()
        if one_deal is not None:
            attack, made = one_deal
            return attack if made else [p for p in range(self.num_players) if p not in attack]
        best = max(self.totals)
        return [p for p in range(self.num_players) if self.totals[p] == best]

    def _one_deal(self) -> tuple[list[int], bool] | None:
        """A one-deal French game's attack (:func:`tarot_env.rules.french.teams.is_attack`) and
        whether it made its contract: the page's special rule decides such a game; None otherwise."""
        if not (cli_views.is_french(self.env_id) and len(self.deal_results) == 1):
            return None
        info = self.deal_results[0]
        taker, partner = info["taker"], info.get("partner", -1)
        return [p for p in range(self.num_players) if teams.is_attack(p, taker, partner)], bool(info.get("made"))

    def _end_game(self, cancelled: bool) -> None:
        st = self.settings
        addresses = [self.seats[p].address for p in self.people()]
        official, reason = leaderboard.counts_for_leaderboard(st.practice, cancelled, addresses, solo=self.solo)
        winners = [] if cancelled else self.winners()
        paying = any(self.stakes)
        forfeited = [p for p, s in enumerate(self.seats) if s.abandoned]
        if not paying or cancelled or not official:  # no stakes, annulled, or voided by a shared address: stakes back
            payout = chip_rules.refund(self.stakes)
        elif (one_deal := self._one_deal()) is not None:
            payout = chip_rules.one_deal_pot(self.stakes, *one_deal)
        else:
            payout = chip_rules.split_pot(self.stakes, winners)
        payout = chip_rules.forfeit(payout, forfeited)  # an abandoner's share is lost, even if his robot won
        own = self._own_shares()
        payout = chip_rules.cap_gains(payout, self.stakes, own)  # what the clock won for a person goes to the bank
        for p, s in enumerate(self.seats):
            if s.user is not None:
                s.user.chips += payout.paid[p]
        xp = leaderboard.game_xp(self.num_players, st.deals, winners) if official else [0] * self.num_players
        xp = [x if self.seats[p].person and not self.seats[p].abandoned else 0 for p, x in enumerate(xp)]
        xp = [x * own[p][0] // own[p][1] for p, x in enumerate(xp)]  # only the deals he played himself earn
        for p, s in enumerate(self.seats):
            if s.user is not None:
                s.user.xp += xp[p]
        self.game_result = GameResult(
            totals=list(self.totals),
            winners=winners,
            official=official,
            reason=reason,
            cancelled=cancelled,
            chips_paid=list(payout.paid),
            chips_net=list(payout.net(self.stakes)),
            bank=payout.bank,
            xp=xp,
        )
        self.state = "over"
        self.env = None if cancelled else self.env
        self.cancel_votes = None
        self.next_deal_at = None
        if cancelled:
            self.log(f"game {self.game_no} annulled by agreement: no points, no XP, stakes returned")
        else:
            names = ", ".join(self.name_of(p) for p in winners)
            self.log(f"game {self.game_no} over: won by {names}" + ("" if official else f" ({reason}: no XP)"))
        if self.on_game_end is not None:
            self.on_game_end(self, self.game_result)

    def _own_shares(self) -> list[tuple[int, int]]:
        """Each seat's share of the game that counts for it, as (numerator, denominator): a person's
        deals played himself over the game's deals (the deals the clock played for him earn nothing);
        a robot's seat is whole (what it wins goes back to the bank anyway)."""
        deals = max(self.deal_no, 1)
        return [(self.own_deals[p], deals) if s.person else (1, 1) for p, s in enumerate(self.seats)]

    # ----------------------------------------------------------------------------- cancellation
    def voters(self) -> list[int]:
        """The people who vote on a cancellation: every person seated who has not abandoned (robots do
        not vote; a person away votes when he is back, and the vote waits for him)."""
        return [p for p, s in enumerate(self.seats) if s.person and not s.abandoned]

    def propose_cancel(self, user: User) -> None:
        p = self.seat_of(user)
        if p is None or self.seats[p].abandoned:
            raise RoomError("only the people seated may propose a cancellation")
        if self.state not in ("playing", "between"):
            raise RoomError("there is no game in progress to cancel")
        if self.cancel_votes is not None:
            raise RoomError("a cancellation is already proposed: accept or refuse it")
        if len(self.voters()) < 2:
            raise RoomError(
                "a cancellation needs another person's vote, and no other person plays this game: "
                "finish it (alone with robots it is practice: it counts for nothing)"
            )
        self.cancel_votes = {user.id: True}
        self.log(f"{user.name} proposes to cancel the game (every person must accept)")
        self._count_votes()

    def answer_cancel(self, user: User, accept: bool, now: float | None = None) -> None:
        """A person's answer; one refusal ends the vote and the game goes on (the clock of the turn starts again at ``now``)."""
        p = self.seat_of(user)
        if p is None or p not in self.voters():
            raise RoomError("only the people seated vote on a cancellation")
        if self.cancel_votes is None:
            raise RoomError("no cancellation is proposed")
        if not accept:
            self.cancel_votes = None
            if now is not None:
                self.turn_since = now
            self.log(f"{user.name} refuses the cancellation: the game goes on")
            return
        self.cancel_votes[user.id] = True
        self.log(f"{user.name} accepts the cancellation")
        self._count_votes()

    def _count_votes(self) -> None:
        if self.cancel_votes is None:
            return
        voters = self.voters()
        if len(voters) < 2:  # the other people abandoned while the vote was open: nobody else can agree
            self.cancel_votes = None
            self.log("the cancellation fails: no other person is left to vote; the game goes on")
            return
        needed = {self.seats[p].user.id for p in voters}  # type: ignore[union-attr]
        if needed <= set(self.cancel_votes):
            self._end_game(cancelled=True)

    # ----------------------------------------------------------------------------- connections
    def disconnect(self, user: User, now: float) -> None:
        """The person's last connection closed: in a game a robot takes the seat at once."""
        p = self.seat_of(user)
        if p is None:
            return
        s = self.seats[p]
        if not s.connected:
            return
        s.connected = False
        s.away_since = now
        if self.state in ("playing", "between"):
            self.log(f"{user.name} is disconnected: a robot plays the seat; {self.reconnect_window:g} s to come back")
            if self.turn == p:
                self.turn_since = now  # the robot plays this turn after its delay
            self._count_votes()  # a vote no longer waits for him
        else:
            self.log(f"{user.name} is disconnected")

    def reconnect(self, user: User, now: float, address: str | None = None) -> bool:
        """The person is back: he takes his seat again (unless he abandoned). Whether he is seated here."""
        p = self.seat_of(user)
        if p is None:
            return False
        s = self.seats[p]
        if s.connected:
            return True
        if s.abandoned:
            return False
        s.connected = True
        s.away_since = None
        if address:
            s.address = address
        if self.turn == p:
            self.turn_since = now  # his time runs from his return
        self.log(f"{user.name} is back and takes the seat again")
        return True

    # ----------------------------------------------------------------------------- the clock
    def advance(self, now: float, play: bool = True) -> bool:
        """Do what the clock makes due; True if anything changed. At most one move per call, so that
        the page sees each robot's card. ``play=False`` (the server): a robot's move that is due is not
        thought here but left in :attr:`due` as ``(seat, why)``, for a worker thread, and a deal that is due
        is not dealt here but flagged in :attr:`deal_due` (:meth:`deal_job`, :meth:`apply_deal`)."""
        before = self.version
        self.due = None
        self.deal_due = False
        for p, s in enumerate(self.seats):
            away = s.person and not s.connected and not s.abandoned and s.away_since is not None
            if away and now - s.away_since >= self.reconnect_window:  # type: ignore[operator]
                if self.state in ("playing", "between"):
                    s.abandoned = True
                    self.log(f"{s.user.name} did not come back in time: abandoned, the robot plays the seat to the end")  # type: ignore[union-attr]
                    self._count_votes()
                else:  # before a game: the seat is freed
                    self._free(p)
                    self.log(f"{s.user.name} left (disconnected)")  # type: ignore[union-attr]
        if self.state == "between" and self.next_deal_at is not None and now >= self.next_deal_at:
            if play:
                self._deal(now)
            else:
                self.deal_due = True
        elif self.state == "playing" and self.cancel_votes is None:
            p = self.turn
            if p is not None:
                why = None
                if self.seats[p].bot_plays:
                    if now - self.turn_since >= self.robot_delay:
                        why = "robot"
                elif now - self.turn_since >= self.settings.time_per_turn:
                    why = "time-out"
                if why is not None and play:
                    self._play_for(p, now, why)
                elif why is not None:
                    self.due = (p, why)
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
            "last_result": self.last_result,
            "game_result": None if self.game_result is None else vars(self.game_result),
            "deal": None,
        }
        if viewer is not None and self.is_owner(viewer):
            out["invite"] = self.invite
        if self.env is not None and self.state in ("playing", "between", "over"):
            out["deal"] = deal_view(self.env_id, self.env, seat)
        return out


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


def _penalty_scoring(env_id: str) -> bool:
    """Whether the game's hands count against the players who lose them (Mattazza,
    docs/rules/tarocchino.md §14.6: the game's ``scoring`` field is ``"penalty"``)."""
    if cli_views.is_french(env_id):
        return False
    from tarot_env.rules.bolognese.games import game_spec

    return game_spec(env_id.removesuffix("_v0")).scoring == "penalty"


@dataclass
class DealJob:
    """A deal to deal, made (:meth:`make`: the env built and its cards shuffled) apart from the table, so that
    the server can make it in a worker thread and deal it under the room's lock. It fits the table only while
    the table has dealt nothing since and its given deal (``next_deal_options``) is the same."""

    table: Table
    dealt: int  # the table's count of deals dealt when it was asked
    env_id: str
    num_players: int
    dealer: int
    seed: int
    options: dict[str, Any] | None
    env: Any = None

    def make(self) -> DealJob:
        """Build the env and shuffle (or lay out the given deal); touches nothing of the table's."""
        env = tarot_env.make(self.env_id, num_players=self.num_players, dealer=self.dealer)
        if self.options is not None:
            env.reset(options=self.options)
        else:
            env.reset(seed=self.seed)
        self.env = env
        return self

    def made(self) -> Any:
        return self.env if self.env is not None else self.make().env

    def fits(self, table: Table) -> bool:
        return self.table is table and self.dealt == table.dealt and self.options is table.next_deal_options


@dataclass
class RobotJob:
    """A robot's move to think of, outside the room's lock: the seat, the observation (a copy), the agent
    and the rule-based fallback, and the table's step count when it was asked (its answer applies only
    if the table is still there)."""

    table: Table
    seat: int
    why: str  # "robot" (a robot's seat, or a person away) or "time-out"
    steps: int
    agent: Any
    fallback: Any
    obs: dict[str, np.ndarray]
    robot: str

    def think(self) -> tuple[int, str | None]:
        """The action, and how the agent failed when the fallback moved instead (None: it did not)."""
        return robot_action(self.agent, self.fallback, self.obs, self.who)

    @property
    def who(self) -> str:
        return f"table {self.table.id} seat {self.seat} ({self.robot})"

    def fall_back(self) -> tuple[int, str | None]:
        """The rule-based robot's action, for an agent that did not answer in time (``"timeout"``)."""
        return robot_action(self.fallback, self.fallback, self.obs, self.who)[0], "timeout"


def robot_action(agent: Any, fallback: Any, obs: dict[str, np.ndarray], who: str = "a robot") -> tuple[int, str | None]:
    """An agent's action, or the rule-based bot's where the agent raises (``"exception"``, logged with its
    traceback) or answers an illegal move (``"illegal"``), as the arena counts its fallbacks. One that does
    not answer at all is the server's to catch (``"timeout"``, :meth:`RobotJob.fall_back`)."""
    mask = np.asarray(obs["action_mask"], dtype=bool)
    failure: str | None = None
    if agent is not fallback:
        try:
            a = int(np.asarray(agent.act(obs["observation"], obs["action_mask"])).reshape(-1)[0])
            if 0 <= a < len(mask) and mask[a]:
                return a, None
            failure = "illegal"
            log.warning("tarot serve: %s answered the illegal action %s; the rule-based robot moves for it", who, a)
        except Exception:  # a failing agent must not end the people's game: logged, and the rule-based bot moves
            failure = "exception"
            log.exception("tarot serve: %s failed; the rule-based robot moves for it", who)
    return int(np.asarray(fallback.act(obs["observation"], obs["action_mask"])).reshape(-1)[0]), failure
