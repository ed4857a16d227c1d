"""Who sits where at a table, and coming and going: sitting, leaving, the owner's star and robots, a
person's disconnection, his return within the reconnection window, and his seat abandoned to the robot
after it. :class:`TableSeats` is that part of a :class:`~tarot_env.web.room.Table` (state there:
``seats``, ``owner``, ``reconnect_window``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tarot_env.agents.factory import make_agents
from tarot_env.web.leaderboard import SOLO_WORDS
from tarot_env.web.people import RoomError, Seat, User

if TYPE_CHECKING:
    from tarot_env.web.room import Table

#: the robots a seat can hold: the names ``tarot play --agents`` takes
ROBOTS = ("rules", "random", "pretrained", "pimc")


class TableSeats:
    """The seats of a table and the people's connections to them."""

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

    def seated_ids(self) -> frozenset[int]:
        """The ids of the people seated (a private table is listed in their lobby only)."""
        return frozenset(s.user.id for s in self.seats if s.user is not None)

    def present(self) -> list[int]:
        """The people seated and here now: connected, and not gone (abandoned). A game started with fewer than
        two of them is practice (:meth:`~tarot_env.web.dealing.TableDeals.start`)."""
        return [p for p, s in enumerate(self.seats) if s.person and s.connected and not s.abandoned]

    def is_owner(self, user: User) -> bool:
        return self.owner is not None and self.owner.id == user.id

    def _need_owner(self, user: User, what: str) -> None:
        if not self.is_owner(user):
            raise RoomError(f"only the table's owner ({self.owner.name if self.owner else 'nobody'}) may {what}")

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

    def set_robot(self, user: User, seat: int, robot: str | None, agent: Any = None) -> None:
        """The owner puts a robot at an empty seat (or removes one: ``robot=None``), before a game. Its agent is
        made now, so that a missing model is refused here rather than at the first move; ``agent``: made
        beforehand by :meth:`make_robots` (the server does, in a worker thread: the first ``pretrained``
        robot imports PyTorch, seconds during which the event loop, and so the whole room, stood still)."""
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
        if agent is None:
            self._make_agent(seat, robot)  # refused now (a missing model, the train extra) rather than at the first move
        self.seats[seat] = Seat(robot=robot)
        self.log(f"robot ({robot}) at seat {seat}")

    def make_robots(self, robots: dict[int, str]) -> dict[int, tuple[str, Any]]:
        """``{seat: (robot, agent)}`` for ``{seat: robot}``: the agents made as the table makes them. It reads
        only what never changes at a table (its game, player count and seed), so that the server can call it
        in a worker thread, off the event loop, while the table goes on; :class:`RoomError` for a robot that
        cannot be made (a missing model, the train extra)."""
        return {seat: (robot, self._make_agent(seat, robot)) for seat, robot in robots.items()}

    def _make_agent(self, seat: int, robot: str) -> Any:
        try:
            return make_agents([robot], self.env_id, [seat], self.seed, None, self.num_players)[seat][1]
        except SystemExit as err:  # make_agents speaks to the terminal with SystemExit
            raise RoomError(str(err.code).replace("tarot play: ", "").replace("error: ", "")) from None

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
            self._count_votes(now)
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

    def expire_windows(self: Table, now: float) -> None:
        """The reconnection windows run out: in a game the seat is abandoned to the robot; before one it is freed."""
        for p, s in enumerate(self.seats):
            away = s.person and not s.connected and not s.abandoned and s.away_since is not None
            if away and now - s.away_since >= self.reconnect_window:  # type: ignore[operator]
                if self.state in ("playing", "between"):
                    s.abandoned = True
                    self.log(f"{s.user.name} did not come back in time: abandoned, the robot plays the seat to the end")  # type: ignore[union-attr]
                    if len(self.voters()) < 2 and not self.solo and not self.settings.practice:
                        self.log(f"no second person plays this game now: it is practice ({SOLO_WORDS})")
                    self._count_votes(now)
                else:  # before a game: the seat is freed
                    self._free(p)
                    self.log(f"{s.user.name} left (disconnected)")  # type: ignore[union-attr]
