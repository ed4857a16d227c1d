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

from tarot_env.cards.french import CALLABLE

if TYPE_CHECKING:
    from tarot_env.rules.french.protocol import Rules
    from tarot_env.rules.french.state import FrenchTarotState

# CALLABLE is ordered K, Q, N, J within each suit; this is the rank slot of each call action.
_SLOT = np.tile(np.arange(4), 4)
_RANK_CARDS = CALLABLE.reshape(4, 4).T  # (rank slot K/Q/N/J, suit) -> card id


def call_mask(g: Rules, s: FrenchTarotState, rows: np.ndarray) -> np.ndarray:
    """(R, 16) bool over the callable cards in ``CALLABLE`` order."""
    hand = s.hands[rows, s.taker[rows]]
    all_of = hand[:, _RANK_CARDS].all(axis=2)  # (R, 4): holds all K, all Q, all N, all J
    allowed = np.empty((len(rows), 4), dtype=bool)
    allowed[:, 0] = True
    allowed[:, 1] = all_of[:, 0]
    allowed[:, 2] = all_of[:, 0] & all_of[:, 1]
    jack_needs = all_of[:, 2] if g.config.jack_call == "all_knights" else True
    allowed[:, 3] = allowed[:, 2] & jack_needs
    return allowed[:, _SLOT]


def apply_call(g: Rules, s: FrenchTarotState, rows: np.ndarray, slot: np.ndarray) -> None:
    card = CALLABLE[slot]
    s.called[rows] = card
    holder = np.argmax(s.hands[rows, :, card], axis=1)
    held = s.hands[rows, holder, card]
    s.partner[rows] = np.where(held & (holder != s.taker[rows]), holder, -1)
