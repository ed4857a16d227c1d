"""Amicable cancellation (the rules page): a person proposes it, every person at the table must accept
(robots do not vote), and the game is annulled. :class:`Votes` is the table's part that owns the vote
(``table.votes``): who accepted, and when each person may propose again.

A vote stops nothing: the game goes on while it is open (the turn's clock runs, the robots play), and a
refusal gives nobody his time back. Were the table to wait for every vote, or the proposer's clock to start
again at full time after a refusal, a person short of time could propose, be refused and have his time
back, as often as he liked, while the table froze. So a person may propose again only
:data:`CANCEL_COOLDOWN` seconds after his last proposal ended.

What the vote reads of its table is :class:`VoteTable`: the seats, whether a game is in progress, the
log, and the way to annul the game."""

from __future__ import annotations

import math
from typing import Any, Protocol

from tarot_env.web.leaderboard import SOLO_WORDS
from tarot_env.web.people import RoomError, User
from tarot_env.web.seats import Seats

#: seconds a person waits, after a proposal of his ended (refused, or failed), before he may propose again
CANCEL_COOLDOWN = 30.0


class VoteTable(Protocol):
    """What a vote reads of its table."""

    @property
    def seats(self) -> Seats: ...
    @property
    def state(self) -> str: ...
    def log(self, text: str) -> None: ...
    def annul(self) -> None:
        """End the game as annulled (every person accepted)."""
        ...


class Votes:
    """The cancellation vote of a table's game: ``ballots``, user id -> accepted, while a cancellation is
    proposed (None otherwise); ``again``, user id -> when he may propose again."""

    def __init__(self, table: VoteTable) -> None:
        self.table = table
        self.ballots: dict[int, bool] | None = None
        self.again: dict[int, float] = {}

    def view(self) -> dict[str, Any] | None:
        """The vote as the page shows it: the seats that accepted and the seats that vote (None: no vote)."""
        if self.ballots is None:
            return None
        seats, voters = self.table.seats, self.table.seats.voters()
        return {"accepted": [p for p in voters if _id(seats, p) in self.ballots], "voters": voters}

    def propose(self, user: User, now: float) -> None:
        """``user`` proposes to cancel the game: his vote is counted, the others' awaited; the game goes on meanwhile."""
        seats = self.table.seats
        p = seats.seat_of(user)
        if p is None or seats[p].abandoned:
            raise RoomError("only the people seated may propose a cancellation")
        if self.table.state not in ("playing", "between"):
            raise RoomError("there is no game in progress to cancel")
        if self.ballots is not None:
            raise RoomError("a cancellation is already proposed: accept or refuse it")
        if len(seats.voters()) < 2:
            raise RoomError(f"a cancellation needs another person's vote, and no other person plays this game: finish it ({SOLO_WORDS})")
        again = self.again.get(user.id, 0.0)
        if now < again:
            raise RoomError(
                f"your last cancellation proposal ended less than {CANCEL_COOLDOWN:g} s ago: one proposal per person every "
                f"{CANCEL_COOLDOWN:g} s; propose again in {math.ceil(again - now)} s (the game goes on meanwhile)"
            )
        self.ballots = {user.id: True}
        self.again[user.id] = now + CANCEL_COOLDOWN
        self.table.log(f"{user.name} proposes to cancel the game (every person must accept; the game goes on meanwhile)")
        self.count(now)

    def answer(self, user: User, accept: bool, now: float) -> None:
        """A person's answer; one refusal ends the vote and the game goes on. Nobody's clock is touched: it ran
        through the vote, and the proposer may propose again :data:`CANCEL_COOLDOWN` seconds after the refusal."""
        p = self.table.seats.seat_of(user)
        if p is None or p not in self.table.seats.voters():
            raise RoomError("only the people seated vote on a cancellation")
        if self.ballots is None:
            raise RoomError("no cancellation is proposed")
        if not accept:
            self._ends(now)
            self.table.log(f"{user.name} refuses the cancellation: the game goes on")
            return
        self.ballots[user.id] = True
        self.table.log(f"{user.name} accepts the cancellation")
        self.count(now)

    def clear(self) -> None:
        """No vote open (a game starts, or ends)."""
        self.ballots = None

    def _ends(self, now: float) -> None:
        """The vote ends without a cancellation: its proposer (the first vote) waits the cooldown from now."""
        if self.ballots:
            proposer = next(iter(self.ballots))
            self.again[proposer] = max(self.again.get(proposer, 0.0), now + CANCEL_COOLDOWN)
        self.ballots = None

    def count(self, now: float) -> None:
        """The votes counted again (a vote cast, a person gone or away): every voter accepted, and the game is
        annulled; fewer than two voters left, and the vote fails."""
        if self.ballots is None:
            return
        voters = self.table.seats.voters()
        if len(voters) < 2:  # the other people abandoned while the vote was open: nobody else can agree
            self._ends(now)
            self.table.log(f"the cancellation fails: no other person is left to vote; the game goes on ({SOLO_WORDS})")
            return
        if {_id(self.table.seats, p) for p in voters} <= set(self.ballots):
            self.table.annul()


def _id(seats: Seats, p: int) -> int:
    """The user id of the person at seat ``p`` (a voter: a person sits there)."""
    user = seats[p].user
    assert user is not None
    return user.id
