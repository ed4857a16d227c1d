"""The deal's driving: a game started, each deal dealt (made apart from the table by :class:`DealJob`, so
that the server can shuffle in a worker thread), a person's move through ``env.step``, the clock's turn
(a robot's move or a time-out), and the end of a deal. :class:`TableDeals` is that part of a
:class:`~tarot_env.web.room.Table` (state there: ``env``, ``dealt``, ``deal_no``, ``turn_since``,
``next_deal_at``, ``totals`` ...)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

import tarot_env
from tarot_env.errors import IllegalActionError
from tarot_env.moves import refusal
from tarot_env.rules.results import NOT_PLAYED
from tarot_env.tables import facts
from tarot_env.web.leaderboard import SOLO_WORDS
from tarot_env.web.people import RoomError, User
from tarot_env.web.views import current_seat, dealer_seat, discard_text, refusal_words, result_view

if TYPE_CHECKING:
    from tarot_env.web.room import Table


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


class TableDeals:
    """A table's game, deal by deal."""

    def start(self, user: User, now: float, deal: DealJob | None = None, agents: dict[int, tuple[str, Any]] | None = None) -> None:
        """The owner starts a game: every seat filled, stakes taken, the first deal dealt (``deal``: made
        beforehand, in a worker thread, by :meth:`deal_job`; ``agents``: the robots' agents, ``{seat: (robot,
        agent)}``, made beforehand in a worker thread by :meth:`~tarot_env.web.seats.TableSeats.make_robots`;
        a seat whose robot is not the one made gets its agent made here)."""
        self._need_owner(user, "start the game")
        if self.state not in ("waiting", "over"):
            raise RoomError("a game is already in progress")
        empty = [p for p, s in enumerate(self.seats) if s.empty]
        if empty:
            raise RoomError(f"seats {', '.join(map(str, empty))} are empty: seat people or robots there")
        st = self.settings
        # alone with robots (a person seated but away is not there): practice, and the robots' stakes are the bank's
        self.solo = len(self.present()) < 2
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
        made = agents or {}
        self.agents = {
            p: made[p][1] if p in made and made[p][0] == s.robot else self._make_agent(p, s.robot)
            for p, s in enumerate(self.seats)
            if s.robot
        }
        practice = f" (practice: {SOLO_WORDS})" if self.solo and not st.practice else ""
        self.log(f"game {self.game_no} starts: {st.deals} deal(s)" + (f", stake {st.stake} chips" if paying else "") + practice)
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
        if p is None or self.seats[p].bot_plays:  # a vote stops no clock (:mod:`.votes`)
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

    def _after_step(self, p: int, action: int, now: float, by: str) -> None:
        raw = self.env.unwrapped
        text = raw.action_to_string(action)
        if text.startswith("discard"):  # the écart and the discards are face down, but for a French trump
            text = discard_text(self.env_id, text.split()[1])
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
            self.log(f"{self.last_result['summary']}: the cards are dealt again")
        else:
            self.deal_no += 1
            for p in self.people():  # his own deal: he made at least as many of his moves as the clock did
                if self.own_moves[p] > 0 and self.own_moves[p] >= self.clock_moves[p]:
                    self.own_deals[p] += 1
            self.totals = [t + s for t, s in zip(self.totals, scores)]
            self.deal_results.append(info)
            self.log(self.last_result["summary"])  # the one-line summary of how it ended (result_view)
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

    def run_deal_clock(self: Table, now: float, play: bool) -> None:
        """What the clock makes due in the game (:meth:`~tarot_env.web.room.Table.advance`): the next deal
        after the pause, or the move of a robot (after its delay) or of a person out of time."""
        if self.state == "between" and self.next_deal_at is not None and now >= self.next_deal_at:
            if play:
                self._deal(now)
            else:
                self.deal_due = True
        elif self.state == "playing":  # a cancellation vote open or not: the game goes on
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
