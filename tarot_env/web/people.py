"""The people of the room: a person (:class:`User`), a seat (:class:`Seat`), and the room's refusal
(:class:`RoomError`), which every part of a table raises before it changes anything."""

from __future__ import annotations

from dataclasses import dataclass

#: chips a new user starts with (the page: chips are needed to cover a table's stake)
START_CHIPS = 1000


class RoomError(ValueError):
    """A request the room refuses (not your turn, not the owner, a bad setting ...): the reason, for the player."""


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
