"""A table's settings (the rules page, "Impostazioni del tavolo"): their ranges, the check of the
owner's changes, and what may change when. :class:`TableOptions` is the table's part that owns them and
its invitation link (``table.options``); the table checks that the one changing them is its owner."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from tarot_env.web.people import RoomError


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
#: time per turn, what the game is played for) are fixed from the game's start to its end, so that an owner
#: ahead after two deals cannot cut a 20-deal game short
BETWEEN_DEALS = ("private", "spectators")


#: the largest magnitude a number in the settings may have before its range is checked: a number of
#: thousands of digits is refused by its size (numpy's isfinite overflows on it)
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


class TableOptions:
    """A table's settings and its invitation link (``log``: the table's log)."""

    def __init__(self, log: Callable[[str], None]) -> None:
        self._log = log
        self.settings = Settings()
        self.invite = secrets.token_urlsafe(12)

    def changed(self) -> list[str]:
        """The settings the owner set away from the defaults: marked on the page (the rules page's red icon)."""
        default = Settings()
        return [f.name for f in fields(Settings) if getattr(self.settings, f.name) != getattr(default, f.name)]

    def change(self, changes: Any, state: str) -> None:
        """The owner's ``changes``, checked, at a table in ``state``: before a game, between games, or (some of
        them) between deals; :class:`RoomError` (nothing changed) otherwise."""
        new = check_settings(changes)
        if state == "playing":
            raise RoomError("the settings change before a game or between deals, not during a deal")
        if state == "between":
            locked = [k for k in new if k not in BETWEEN_DEALS and new[k] != getattr(self.settings, k)]
            if locked:
                raise RoomError(
                    f"settings: {', '.join(locked)} are fixed once a game starts (the game ends as it began); "
                    f"between its deals only {' and '.join(BETWEEN_DEALS)} may change"
                )
        changed = {k: v for k, v in new.items() if getattr(self.settings, k) != v}
        self.settings = replace(self.settings, **new)
        if changed:
            self._log("the owner changed " + ", ".join(f"{k} to {v}" for k, v in changed.items()))

    def renew_invite(self) -> None:
        """A new invitation: the old link no longer admits anyone (the people seated stay)."""
        self.invite = secrets.token_urlsafe(12)
        self._log("the owner renewed the invitation link")
