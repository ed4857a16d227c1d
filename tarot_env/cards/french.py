"""The 78-card French Tarot deck (docs/rules/french_tarot.md §1) and its notation (docs/interface.md §2).

Card ids: plain suits first, ``suit * 14 + rank - 1`` for suits pique (S), cœur (H),
carreau (D), trèfle (C) and ranks 1..10, J = 11, N (cavalier) = 12, Q = 13, K = 14; then the
trumps T1..T21 at ids 56..76; the Excuse ``EX`` at id 77.

Values are integer **half-points** (the spec's engine recommendation): bouts and kings 9,
queens 7, knights 5, jacks 3, every other card 1; 182 half-points = 91 points in all.
"""

from __future__ import annotations

import numpy as np

from tarot_env.cards.deck import EXCUSE_SUIT, TRUMP_SUIT, Deck

SUITS = ("S", "H", "D", "C")
SUIT_NAMES = ("pique", "cœur", "carreau", "trèfle")
RANKS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "N", "Q", "K")

NUM_CARDS = 78
PETIT = 56  # T1
TWENTY_ONE = 76  # T21
EXCUSE = 77
BOUTS = (PETIT, TWENTY_ONE, EXCUSE)
#: Total card points in half-points (91 points).
TOTAL_HALF_POINTS = 182


def _build() -> Deck:
    names: list[str] = []
    suit, rank, strength, value = [], [], [], []
    court_value = {11: 3, 12: 5, 13: 7, 14: 9}
    for s, sname in enumerate(SUITS):
        for r in range(1, 15):
            names.append(f"{RANKS[r - 1]}{sname}")
            suit.append(s)
            rank.append(r)
            strength.append(r)
            value.append(court_value.get(r, 1))
    for t in range(1, 22):
        names.append(f"T{t}")
        suit.append(TRUMP_SUIT)
        rank.append(t)
        strength.append(100 + t)
        value.append(9 if t in (1, 21) else 1)
    names.append("EX")
    suit.append(EXCUSE_SUIT)
    rank.append(0)
    strength.append(-1)
    value.append(9)
    return Deck(
        name="French Tarot",
        names=tuple(names),
        suit=np.array(suit, dtype=np.int8),
        rank=np.array(rank, dtype=np.int8),
        strength=np.array(strength, dtype=np.int16),
        value=np.array(value, dtype=np.int16),
        excuse=EXCUSE,
    )


FRENCH_DECK = _build()

IS_TRUMP = FRENCH_DECK.suit == TRUMP_SUIT
IS_BOUT = np.zeros(NUM_CARDS, dtype=bool)
IS_BOUT[list(BOUTS)] = True
IS_KING = (FRENCH_DECK.suit < 4) & (FRENCH_DECK.rank == 14)
#: Court cards that can be called in the 5-player game, in call-action order:
#: for each suit S, H, D, C the K, Q, N, J.
CALLABLE = np.array([s * 14 + r - 1 for s in range(4) for r in (14, 13, 12, 11)], dtype=np.int64)
#: Cards that may go to the écart freely: neither trump, Excuse nor king (§4).
ECART_FREE = ~IS_TRUMP & ~IS_KING & (np.arange(NUM_CARDS) != EXCUSE)
#: Trumps 2..20, the only trumps that may be discarded, and only when forced (§4).
ECART_TRUMPS = IS_TRUMP & ~IS_BOUT
#: Trumps and the Excuse: the cards a poignée can show (§5.2).
POIGNEE_CARDS = np.flatnonzero(IS_TRUMP | (np.arange(NUM_CARDS) == EXCUSE))
for _a in (IS_TRUMP, IS_BOUT, IS_KING, CALLABLE, ECART_FREE, ECART_TRUMPS, POIGNEE_CARDS):
    _a.setflags(write=False)


def card(text: str) -> int:
    """Card id from notation, e.g. ``card("KS")``, ``card("t21")``, ``card("EX")``."""
    return FRENCH_DECK.parse(text)


def card_name(card_id: int) -> str:
    """Canonical notation of a card id."""
    return FRENCH_DECK.format(card_id)
