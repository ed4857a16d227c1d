"""Amicable cancellation (the rules page): a person proposes it, every person at the table must accept
(robots do not vote), and the game is annulled. :class:`TableVotes` is that part of a
:class:`~tarot_env.web.room.Table` (state there: ``cancel_votes``, user id -> accepted, and
``cancel_again``, user id -> when he may propose again).

A vote stops nothing: the game goes on while it is open (the turn's clock runs, the robots play), and a
refusal gives nobody his time back. A table used to wait for every vote, and the proposer's clock started
again at full time after a refusal: a person short of time proposed, was refused, and had his time back,
as often as he liked, while the table froze (issue 41). A person may propose again only
:data:`CANCEL_COOLDOWN` seconds after his last proposal ended."""

from __future__ import annotations

import math

from tarot_env.web.leaderboard import SOLO_WORDS
from tarot_env.web.people import RoomError, User

#: seconds a person waits, after a proposal of his ended (refused, or failed), before he may propose again
CANCEL_COOLDOWN = 30.0


class TableVotes:
    """The cancellation vote of a table's game."""

    def voters(self) -> list[int]:
        """The people who vote on a cancellation: every person seated who has not abandoned (robots do
        not vote; a person away votes when he is back, and the vote waits for him)."""
        return [p for p, s in enumerate(self.seats) if s.person and not s.abandoned]

    def propose_cancel(self, user: User, now: float) -> None:
        """``user`` proposes to cancel the game: his vote is counted, the others' awaited; the game goes on meanwhile."""
        p = self.seat_of(user)
        if p is None or self.seats[p].abandoned:
            raise RoomError("only the people seated may propose a cancellation")
        if self.state not in ("playing", "between"):
            raise RoomError("there is no game in progress to cancel")
        if self.cancel_votes is not None:
            raise RoomError("a cancellation is already proposed: accept or refuse it")
        if len(self.voters()) < 2:
            raise RoomError(f"a cancellation needs another person's vote, and no other person plays this game: finish it ({SOLO_WORDS})")
        again = self.cancel_again.get(user.id, 0.0)
        if now < again:
            raise RoomError(
                f"your last cancellation proposal ended less than {CANCEL_COOLDOWN:g} s ago: one proposal per person every "
                f"{CANCEL_COOLDOWN:g} s; propose again in {math.ceil(again - now)} s (the game goes on meanwhile)"
            )
        self.cancel_votes = {user.id: True}
        self.cancel_again[user.id] = now + CANCEL_COOLDOWN
        self.log(f"{user.name} proposes to cancel the game (every person must accept; the game goes on meanwhile)")
        self._count_votes(now)

    def answer_cancel(self, user: User, accept: bool, now: float) -> None:
        """A person's answer; one refusal ends the vote and the game goes on. Nobody's clock is touched: it ran
        through the vote, and the proposer may propose again :data:`CANCEL_COOLDOWN` seconds after the refusal."""
        p = self.seat_of(user)
        if p is None or p not in self.voters():
            raise RoomError("only the people seated vote on a cancellation")
        if self.cancel_votes is None:
            raise RoomError("no cancellation is proposed")
        if not accept:
            self._vote_ends(now)
            self.log(f"{user.name} refuses the cancellation: the game goes on")
            return
        self.cancel_votes[user.id] = True
        self.log(f"{user.name} accepts the cancellation")
        self._count_votes(now)

    def _vote_ends(self, now: float) -> None:
        """The vote ends without a cancellation: its proposer (the first vote) waits the cooldown from now."""
        if self.cancel_votes:
            proposer = next(iter(self.cancel_votes))
            self.cancel_again[proposer] = max(self.cancel_again.get(proposer, 0.0), now + CANCEL_COOLDOWN)
        self.cancel_votes = None

    def _count_votes(self, now: float) -> None:
        if self.cancel_votes is None:
            return
        voters = self.voters()
        if len(voters) < 2:  # the other people abandoned while the vote was open: nobody else can agree
            self._vote_ends(now)
            self.log(f"the cancellation fails: no other person is left to vote; the game goes on ({SOLO_WORDS})")
            return
        needed = {self.seats[p].user.id for p in voters}  # type: ignore[union-attr]
        if needed <= set(self.cancel_votes):
            self._end_game(cancelled=True)
