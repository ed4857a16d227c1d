"""Who sits where at a table: the seats (a person, a robot, or empty), the owner's star, the robots' agents
made for their seats, a person's disconnection, his return, and his reconnection window.

:class:`Seats` is the table's part that owns them (``table.seats``): a sequence of :class:`~.people.Seat`
(``table.seats[p]``) with the operations on it. It knows nothing of the game: whether a seat may be taken
now (before a game or after it), and what a disconnection means for the turn in progress and for a vote,
the table decides (:class:`~tarot_env.web.room.Table`), which is why this module does not import it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, overload

from tarot_env.agents.factory import make_agents
from tarot_env.web.people import RoomError, Seat, User

#: the robots a seat can hold: the names ``tarot play --agents`` takes (``search``: the project's strongest
#: player, plain PIMC's bidding and its card play searched over the table's trained network; ``pimc``: plain PIMC)
ROBOTS = ("rules", "random", "pretrained", "pimc", "search")


class Seats(Sequence[Seat]):
    """The seats of one table, 0..N-1 in the env's order, their owner, and the people's connections to them.

    ``env_id``, ``num_players`` and ``seed`` are the table's (a robot's agent is made for them);
    ``reconnect_window``: the seconds a person away may take to come back; ``log``: the table's log."""

    def __init__(self, env_id: str, num_players: int, seed: int, reconnect_window: float, log: Callable[[str], None]) -> None:
        self.env_id = env_id
        self.num_players = num_players
        self.seed = seed
        self.reconnect_window = reconnect_window
        self._log = log
        self._seats = [Seat() for _ in range(num_players)]
        self.owner: User | None = None

    # ----------------------------------------------------------------------------- the sequence
    @overload
    def __getitem__(self, p: int) -> Seat: ...
    @overload
    def __getitem__(self, p: slice) -> list[Seat]: ...
    def __getitem__(self, p: int | slice) -> Seat | list[Seat]:
        return self._seats[p]

    def __len__(self) -> int:
        return len(self._seats)

    def __iter__(self) -> Iterator[Seat]:
        return iter(self._seats)

    # ----------------------------------------------------------------------------- who sits where
    def seat_of(self, user: User) -> int | None:
        for p, s in enumerate(self._seats):
            if s.user is not None and s.user.id == user.id:
                return p
        return None

    def player_seat(self, user: User) -> int | None:
        """The seat ``user`` plays and sees the hand of: his seat, unless he abandoned it (after his
        reconnection window the seat belongs to the robot to the end of the game)."""
        p = self.seat_of(user)
        return None if p is None or self._seats[p].abandoned else p

    def name_of(self, seat: int) -> str:
        s = self._seats[seat]
        if s.user is not None:
            return s.user.name
        return f"robot {seat} ({s.robot})" if s.robot else "(empty)"

    def people(self) -> list[int]:
        return [p for p, s in enumerate(self._seats) if s.person]

    def seated_ids(self) -> frozenset[int]:
        """The ids of the people seated (a private table is listed in their lobby only)."""
        return frozenset(s.user.id for s in self._seats if s.user is not None)

    def present(self) -> list[int]:
        """The people seated and here now: connected, and not gone (abandoned). A game started with fewer than
        two of them is practice (:meth:`~tarot_env.web.dealing.Game.start`)."""
        return [p for p, s in enumerate(self._seats) if s.person and s.connected and not s.abandoned]

    def voters(self) -> list[int]:
        """The people who vote on a cancellation: every person seated who has not abandoned (robots do
        not vote; a person away votes when he is back, and the vote waits for him)."""
        return [p for p, s in enumerate(self._seats) if s.person and not s.abandoned]

    def is_owner(self, user: User) -> bool:
        return self.owner is not None and self.owner.id == user.id

    def need_owner(self, user: User, what: str) -> None:
        if not self.is_owner(user):
            raise RoomError(f"only the table's owner ({self.owner.name if self.owner else 'nobody'}) may {what}")

    # ----------------------------------------------------------------------------- coming and going
    def check_free(self, user: User, seat: int) -> None:
        """:class:`RoomError` unless ``seat`` is a seat, empty, and ``user`` sits nowhere at this table."""
        self.check_seat(seat)
        if self.seat_of(user) is not None:
            raise RoomError("you are already seated at this table")
        if not self._seats[seat].empty:
            raise RoomError(f"seat {seat} is taken by {self.name_of(seat)}")

    def check_seat(self, seat: int) -> None:
        if not 0 <= seat < self.num_players:
            raise RoomError(f"there is no seat {seat}: the seats are 0..{self.num_players - 1}")

    def sit(self, user: User, seat: int, address: str | None = None) -> None:
        """Sit ``user`` at ``seat`` (checked by :meth:`check_free`). The first person seated owns the table."""
        self._seats[seat] = Seat(user=user, address=address, connected=True)
        if self.owner is None:
            self.owner = user
        self._log(f"{user.name} sits at seat {seat}" + (" (owner)" if self.is_owner(user) else ""))

    def leave(self, user: User, in_game: bool) -> None:
        """``user`` leaves his seat: before a game or after it (``in_game``: refused; he disconnects, and the robot plays)."""
        p = self.seat_of(user)
        if p is None:
            raise RoomError("you are not seated at this table")
        if in_game:
            raise RoomError("a game is in progress: propose a cancellation, or leave and the robot plays your seat")
        self.free(p)
        self._log(f"{user.name} leaves seat {p}")

    def free(self, p: int) -> None:
        """Empty seat ``p``; if its person owned the table, the next person seated (in seat order) takes the star."""
        user = self._seats[p].user
        self._seats[p] = Seat()
        if user is not None and self.is_owner(user):
            self.owner = next((s.user for s in self._seats if s.user is not None), None)

    def disconnect(self, user: User, now: float) -> int | None:
        """The person's last connection closed: his seat, now away (None: he sits here connected nowhere)."""
        p = self.seat_of(user)
        if p is None or not self._seats[p].connected:
            return None
        self._seats[p].connected = False
        self._seats[p].away_since = now
        return p

    def come_back(self, user: User, address: str | None = None) -> int | None:
        """The person is back: the seat he takes again (None: he sits nowhere here, is here already, or
        abandoned his seat)."""
        p = self.seat_of(user)
        if p is None:
            return None
        s = self._seats[p]
        if s.connected or s.abandoned:
            return None
        s.connected = True
        s.away_since = None
        if address:
            s.address = address
        return p

    def expired(self, now: float) -> list[int]:
        """The seats whose person's reconnection window ran out at ``now`` (away, not yet abandoned)."""
        return [
            p
            for p, s in enumerate(self._seats)
            if s.person and not s.connected and not s.abandoned and s.away_since is not None and now - s.away_since >= self.reconnect_window
        ]

    # ----------------------------------------------------------------------------- robots
    def set_robot(self, seat: int, robot: str | None, agent: Any = None) -> None:
        """A robot at the empty seat ``seat`` (``robot=None``: the seat emptied). Its agent is made now, so that a
        missing model is refused here rather than at the first move; ``agent``: made beforehand by
        :meth:`make_robots` (the server does, in a worker thread: the first ``pretrained`` robot imports
        PyTorch, seconds during which the event loop, and so the whole room, would stand still)."""
        self.check_seat(seat)
        s = self._seats[seat]
        if s.user is not None:
            raise RoomError(f"seat {seat} is {s.user.name}'s")
        if robot is None:
            self._seats[seat] = Seat()
            self._log(f"seat {seat} emptied")
            return
        if robot not in ROBOTS:
            raise RoomError(f"unknown robot {str(robot)[:40]!r}; the robots are {', '.join(ROBOTS)}")
        if agent is None:
            self.make_agent(seat, robot)  # refused now (a missing model, the train extra) rather than at the first move
        self._seats[seat] = Seat(robot=robot)
        self._log(f"robot ({robot}) at seat {seat}")

    def make_robots(self, robots: dict[int, str]) -> dict[int, tuple[str, Any]]:
        """``{seat: (robot, agent)}`` for ``{seat: robot}``: the agents made as the table makes them. It reads
        only what never changes at a table (its game, player count and seed), so that the server can call it
        in a worker thread, off the event loop, while the table goes on; :class:`RoomError` for a robot that
        cannot be made (a missing model, the train extra)."""
        return {seat: (robot, self.make_agent(seat, robot)) for seat, robot in robots.items()}

    def make_agent(self, seat: int, robot: str) -> Any:
        """The agent of a ``robot`` at ``seat``, as ``tarot play`` makes it; :class:`RoomError` when it cannot be made."""
        try:
            return make_agents([robot], self.env_id, [seat], self.seed, None, self.num_players)[seat][1]
        except SystemExit as err:  # make_agents speaks to the terminal with SystemExit
            raise RoomError(str(err.code).replace("tarot play: ", "").replace("error: ", "")) from None
