"""Amicable cancellation (the rules page): a person proposes it, every person at the table must accept
(robots do not vote), and the game is annulled. :class:`TableVotes` is that part of a
:class:`~tarot_env.web.room.Table` (state there: ``cancel_votes``, user id -> accepted)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tarot_env.web.people import RoomError, User

if TYPE_CHECKING:
    pass


class TableVotes:
    """The cancellation vote of a table's game."""

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
