"""A deck as data: one NumPy array per card attribute, indexed by card id.

Every other layer reads card facts from a :class:`Deck`; no other file hard-codes a card's
value, suit or strength, so the French and Bolognese packs go through the same code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: Suit code of the trumps in :attr:`Deck.suit`.
TRUMP_SUIT = 4
#: Suit code of the excuse card (French Excuse, Bolognese Matto) in :attr:`Deck.suit`.
EXCUSE_SUIT = 5


@dataclass(frozen=True, eq=False)
class Deck:
    """Card facts as arrays of length ``size``.

    ``strength`` orders the cards that can win a trick: within a plain suit the higher
    strength wins; every trump (strength >= 100) beats every plain card; the excuse card has
    strength -1 and never wins by strength.
    """

    name: str
    names: tuple[str, ...]
    suit: np.ndarray  # int8: 0..3 plain suits, TRUMP_SUIT, EXCUSE_SUIT
    rank: np.ndarray  # int8: rank within its suit (trump number for trumps), 0 for the excuse
    strength: np.ndarray  # int16: see class docstring
    value: np.ndarray  # int16: card value in the family's counting unit
    excuse: int  # card id of the excuse card
    index: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", {n: i for i, n in enumerate(self.names)})
        for arr in (self.suit, self.rank, self.strength, self.value):
            arr.setflags(write=False)

    @property
    def size(self) -> int:
        return len(self.names)

    @property
    def is_trump(self) -> np.ndarray:
        return self.suit == TRUMP_SUIT

    def parse(self, text: str) -> int:
        """Card id of ``text`` in the project's notation (case-insensitive)."""
        if not isinstance(text, str):
            raise TypeError(f"a card must be given as a string such as {self.names[0]!r}, got {text!r}")
        key = text.strip().upper()
        if key not in self.index:
            raise ValueError(
                f"{text!r} is not a card of the {self.name} deck; cards are written like "
                f"{', '.join(self.names[i] for i in self.examples())} (see docs/cards.md)"
            )
        return self.index[key]

    def format(self, card: int) -> str:
        """Canonical notation of card id ``card``."""
        return self.names[int(card)]

    def parse_many(self, texts: list[str] | tuple[str, ...]) -> list[int]:
        return [self.parse(t) for t in texts]

    def examples(self) -> list[int]:
        """A few card ids spread over the deck, for error messages."""
        n = self.size
        return [0, n // 4, n // 2, n - 2, n - 1]

    def mask(self, cards) -> np.ndarray:
        """Boolean card mask of length ``size`` from ids or strings."""
        m = np.zeros(self.size, dtype=bool)
        for c in cards:
            m[self.parse(c) if isinstance(c, str) else int(c)] = True
        return m

    def sort_key(self, card: int) -> tuple[int, int]:
        """Display order: by suit, then from strongest to weakest."""
        return (int(self.suit[card]), -int(self.strength[card]))
