"""The 5-player call (docs/rules/french_tarot.md §10).

After the bidding and before the chien is turned over the taker calls a King; with all four
Kings he may call a Queen, with all Kings and Queens a Knight, and a Jack with all Kings,
Queens and Knights (option ``jack_call``, §15.7). He may call a card of his own hand and play
alone. The holder of the called card is his secret partner; a called card in the chien, or
in the taker's hand, leaves him alone against four.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tarot_env.cards.french import CALLABLE, NUM_CARDS

if TYPE_CHECKING:
    from tarot_env.rules.french.protocol import Rules
    from tarot_env.rules.french.state import FrenchTarotState

# CALLABLE is ordered K, Q, N, J within each suit; this is the rank slot of each call action.
_SLOT = np.tile(np.arange(4), 4)
_RANK_CARDS = CALLABLE.reshape(4, 4).T  # (rank slot K/Q/N/J, suit) -> card id


def ranks_needed(g: Rules, slot: int) -> list[int]:
    """The rank slots (0 K, 1 Q, 2 N, 3 J) of which the taker must hold all four cards to call a
    card of rank slot ``slot``: none for a King, the Kings for a Queen, Kings and Queens for a
    Knight, and for a Jack the Knights too (``jack_call="all_knights"``) or not."""
    if slot == 3 and g.config.jack_call != "all_knights":
        return [0, 1]
    return list(range(slot))


def cards_shown_by_call(g: Rules, called: int) -> np.ndarray:
    """(78,) bool: the cards a call of ``called`` shows were in the taker's hand when he called."""
    out = np.zeros(NUM_CARDS, dtype=bool)
    out[_RANK_CARDS[ranks_needed(g, int(_SLOT[np.flatnonzero(called == CALLABLE)[0]]))].ravel()] = True
    return out


def call_mask(g: Rules, s: FrenchTarotState, rows: np.ndarray) -> np.ndarray:
    """(R, 16) bool over the callable cards in ``CALLABLE`` order."""
    hand = s.hands[rows, s.taker[rows]]
    all_of = hand[:, _RANK_CARDS].all(axis=2)  # (R, 4): holds all K, all Q, all N, all J
    allowed = np.stack([all_of[:, ranks_needed(g, slot)].all(axis=1) for slot in range(4)], axis=1)
    return allowed[:, _SLOT]


def partner_of(held: np.ndarray, taker: np.ndarray) -> np.ndarray:
    """(R,) the taker's partner: the seat whose ``held`` (R, N) marks the called card, unless that is
    the taker himself or nobody (the card in the chien): -1, the taker plays alone."""
    holder = np.argmax(held, axis=1)
    return np.where(held[np.arange(len(held)), holder] & (holder != taker), holder, -1)


def apply_call(g: Rules, s: FrenchTarotState, rows: np.ndarray, slot: np.ndarray) -> None:
    card = CALLABLE[slot]
    s.called[rows] = card
    s.partner[rows] = partner_of(s.hands[rows, :, card], s.taker[rows])
