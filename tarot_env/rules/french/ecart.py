"""Chien and écart (docs/rules/french_tarot.md §4).

Petite and garde: the chien is shown to all and taken up by the taker, who discards as many
cards, one per action. Never a King or a bout; trumps 2–20 only when he has too few other
cards, and a discarded trump is shown. Garde sans: the chien stays unseen and counts for the
taker. Garde contre: it stays unseen and counts for the defence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tarot_env.cards.french import ECART_FREE, ECART_TRUMPS

if TYPE_CHECKING:
    from tarot_env.rules.french.protocol import Rules
    from tarot_env.rules.french.state import FrenchTarotState

GARDE = 2  # contracts up to garde show the chien


def take_chien(g: Rules, s: FrenchTarotState, rows: np.ndarray) -> np.ndarray:
    """Deal with the chien once the contract (and call) is known; returns the rows that
    now discard (petite, garde)."""
    shown = s.contract[rows] <= GARDE
    up = rows[shown]
    s.chien_seen[up] = True
    s.hands[up, s.taker[up]] |= s.chien[up]
    s.ecart_left[up] = g.config.chien_size
    called = s.called[up]
    s.partner_known[up] |= (called >= 0) & s.chien[up, np.maximum(called, 0)]
    unseen = rows[~shown]
    s.pile[unseen] = np.where(s.chien[unseen], unseen_chien_owner(g, s, unseen)[:, None], s.pile[unseen])
    return up


def unseen_chien_owner(g: Rules, s: FrenchTarotState, rows: np.ndarray) -> np.ndarray:
    """(R,) whose pile an unseen chien goes to: the taker's in a garde sans, the defence's in a
    garde contre."""
    return np.where(s.contract[rows] == GARDE + 1, s.taker[rows], g.defence_seat(s, rows))


#: (78,) bool: the cards that, put in the écart, are shown to every player: its trumps, which the
#: taker may discard only when he has too few other cards (§4); the rest of the écart stays face down
SHOWN = ECART_TRUMPS


def ecart_mask(g: Rules, s: FrenchTarotState, rows: np.ndarray) -> np.ndarray:
    """(R, 78) bool: the cards the taker may put in the écart next."""
    hand = s.hands[rows, s.taker[rows]]
    free = hand & ECART_FREE
    short = np.count_nonzero(free, axis=1) < s.ecart_left[rows]
    return np.where(short[:, None], free | (hand & ECART_TRUMPS), free)


def apply_discard(g: Rules, s: FrenchTarotState, rows: np.ndarray, card: np.ndarray) -> np.ndarray:
    """Discard one card per row; returns the rows whose écart is complete."""
    taker = s.taker[rows]
    s.hands[rows, taker, card] = False
    s.ecart[rows, card] = True
    s.pile[rows, card] = taker
    s.ecart_left[rows] -= 1
    return rows[s.ecart_left[rows] == 0]
