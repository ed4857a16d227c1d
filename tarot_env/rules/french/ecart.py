"""Chien and écart (docs/rules/french_tarot.md §4).

Petite and garde: the chien is shown to all and taken up by the taker, who discards as many
cards, one per action. Never a King or a bout; trumps 2–20 only when he has too few other
cards, and a discarded trump is shown. Garde sans: the chien stays unseen and counts for the
taker. Garde contre: it stays unseen and counts for the defence.

What happens to the chien is a row function that numba compiles (:func:`take_chien_row`), as
the play and the scoring are: some table takes up its chien at every vector step, on the
calling thread (docs/performance.md, "What the kernels replaced").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tarot_env._jit import kernel
from tarot_env.cards.french import ECART_FREE, ECART_TRUMPS
from tarot_env.rules.french.state import COLUMN
from tarot_env.rules.french.teams import defence_seat_row

if TYPE_CHECKING:
    from tarot_env.rules.french.protocol import Rules
    from tarot_env.rules.french.state import FrenchTarotState

GARDE = 2  # contracts up to garde show the chien
TAKER, PARTNER, CONTRACT, CALLED, ECART_LEFT = (COLUMN[k] for k in ("taker", "partner", "contract", "called", "ecart_left"))
CHIEN_SEEN, PARTNER_KNOWN, HANDS, CHIEN, PILE = (COLUMN[k] for k in ("chien_seen", "partner_known", "hands", "chien", "pile"))


@kernel(inline=True)
def take_chien_row(b, ints, flags, seat_cards, card_flags, card_ints, n, chien_size):
    """Deal with row ``b``'s chien once the contract (and call) is known; returns whether the
    taker now discards (petite, garde)."""
    taker = ints[b, TAKER]
    if ints[b, CONTRACT] <= GARDE:  # shown to all and taken up
        flags[b, CHIEN_SEEN] = True
        for c in range(card_flags.shape[2]):
            if card_flags[b, CHIEN, c]:
                seat_cards[b, HANDS, taker, c] = True
        ints[b, ECART_LEFT] = chien_size
        called = ints[b, CALLED]
        if called >= 0 and card_flags[b, CHIEN, called]:  # the called card in the chien shows the taker alone
            flags[b, PARTNER_KNOWN] = True
        return True
    owner = chien_owner(ints[b, CONTRACT], taker, ints[b, PARTNER], n)
    for c in range(card_flags.shape[2]):
        if card_flags[b, CHIEN, c]:
            card_ints[b, PILE, c] = owner
    return False


@kernel(inline=True)
def chien_owner(contract, taker, partner, n):
    """Whose pile an unseen chien goes to: the taker's in a garde sans, the defence's in a garde
    contre (:func:`.teams.defence_seat`)."""
    return taker if contract == GARDE + 1 else defence_seat_row(taker, partner, n)


@kernel
def take_chien_rows(rows, ints, flags, seat_cards, card_flags, card_ints, n, chien_size):
    """(R,) bool: :func:`take_chien_row` of each of ``rows``."""
    discarding = np.zeros(rows.shape[0], dtype=np.bool_)
    for i in range(rows.shape[0]):
        discarding[i] = take_chien_row(rows[i], ints, flags, seat_cards, card_flags, card_ints, n, chien_size)
    return discarding


@kernel
def chien_owners(contract, taker, partner, n):
    """(R,): :func:`chien_owner` of each row."""
    out = np.empty(contract.shape[0], dtype=np.int64)
    for i in range(contract.shape[0]):
        out[i] = chien_owner(contract[i], taker[i], partner[i], n)
    return out


def take_chien(g: Rules, s: FrenchTarotState, rows: np.ndarray) -> np.ndarray:
    """Deal with the chien of ``rows`` (:func:`take_chien_row`); returns (R,) bool: the rows
    that now discard (petite, garde)."""
    b = s.blocks
    return take_chien_rows(rows, b["ints"], b["flags"], b["seat_cards"], b["card_flags"], b["card_ints"],
                           g.num_players, g.config.chien_size)  # fmt: skip


def unseen_chien_owner(g: Rules, s: FrenchTarotState, rows: np.ndarray) -> np.ndarray:
    """(R,) whose pile an unseen chien goes to (:func:`chien_owner`)."""
    return chien_owners(s.contract[rows], s.taker[rows], s.partner[rows], g.num_players)


#: (78,) bool: the cards that, put in the écart, are shown to every player: its trumps, which the
#: taker may discard only when he has too few other cards (§4); the rest of the écart stays face down
SHOWN = ECART_TRUMPS


@kernel(inline=True)
def ecart_row(b, ints, seat_cards, out):
    """The cards the taker of row ``b`` may put in the écart next, into ``out`` (78,): neither a
    trump, the Excuse nor a King; trumps 2–20 too when he has fewer such cards than he must still
    discard."""
    hand = seat_cards[b, HANDS, ints[b, TAKER]]
    n_free = 0
    for c in range(out.shape[0]):
        out[c] = hand[c] and ECART_FREE[c]
        n_free += out[c]
    if n_free < ints[b, ECART_LEFT]:
        for c in range(out.shape[0]):
            if hand[c] and ECART_TRUMPS[c]:
                out[c] = True


def apply_discard(g: Rules, s: FrenchTarotState, rows: np.ndarray, card: np.ndarray) -> np.ndarray:
    """Discard one card per row; returns the rows whose écart is complete."""
    taker = s.taker[rows]
    s.hands[rows, taker, card] = False
    s.ecart[rows, card] = True
    s.pile[rows, card] = taker
    s.ecart_left[rows] -= 1
    return rows[s.ecart_left[rows] == 0]
