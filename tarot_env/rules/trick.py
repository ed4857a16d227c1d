"""A completed trick as every seat saw it: the one record of a trick the seat views of both families
hold (:mod:`tarot_env.rules.seat_view`), in a module of its own so that the families' seat views
import it without importing the module that dispatches to them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Trick:
    """A completed trick as every seat saw it: its leader, its cards in play order, its winner."""

    leader: int
    cards: tuple[tuple[int, int], ...]  # (seat, card) from the leader on
    winner: int
