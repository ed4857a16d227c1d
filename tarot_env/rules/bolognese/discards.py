"""The discards, one card per action (docs/rules/tarocchino.md §5.3, §10.3, §11.4, §11.5, §12.2).

- **What may be discarded** (:func:`_discard_legal`): any card of one's hand but a Carta da 5
  (§5.3); a discard goes to the discarder's pile and counts for his side (:func:`_discard`).
- **Who discards how many, and when** (:func:`_start_discards`), read from the game's row: first
  each player's ``first_discards`` in turn (Millone's 10, §11.4: the opponent first, unless
  U22's option says the dealer), then Millone's second deal (§11.5), then the hand's discard of
  ``discards`` cards by the ``discarder``: the dealer's (§5.3, §12.2), or in Terziglio the
  soloist's, only when he went up and took the Pozzo (§10.3).

The discards come after the dealer's pickup and its claim windows (:mod:`.engine`, :mod:`.claims`)
and before ``PREPARE``, where :mod:`.game` values the final hands. Each function works on one
row ``b`` of the state's blocks (:mod:`.state`), compiled by numba when it is on.
"""

from __future__ import annotations

import numpy as np

from tarot_env._jit import kernel
from tarot_env.cards.bolognese import IS_CARTA_DA_5, NUM_CARDS
from tarot_env.rules.bolognese.scoring import SU
from tarot_env.rules.bolognese.state import (
    CONTRACT,
    CURRENT,
    DEALER,
    DEALT_TO,
    DISCARD_STAGE,
    DISCARDER,
    DISCARDS_LEFT,
    DS_SOLOIST,
    HAND_OF,
    NONE,
    O_DEALER_DISCARDS_FIRST,
    O_DISCARDER,
    O_DISCARDS,
    O_FIRST_DISCARDS,
    O_N,
    O_SECOND_DEAL,
    PH_DISCARD,
    PH_PREPARE,
    PHASE,
    PILE_OF,
    PL_DISCARD,
    PL_HAND,
    PL_SECOND,
    PLACE,
    SOLOIST,
)

# card facts as plain arrays (numba freezes module-level arrays as constants)
CARTA_DA_5 = IS_CARTA_DA_5.astype(np.int64)


@kernel
def _start_discards(ints, seat_ints, cards, b, opts):
    """After the pickup (or the Pozzo): the game's discards (§5.3, §10.3, §11.4–5), then
    PREPARE. DISCARD_STAGE counts the discard turns done: first each player's ``O_FIRST_DISCARDS``
    in turn (Millone's 10, the opponent first unless U22's option says the dealer), then the
    second deal (Millone, §11.5), then the discarder's ``O_DISCARDS``: the dealer's, or the
    soloist's who went up (Terziglio, §10.3)."""
    d = ints[b, DEALER]
    n = opts[O_N]
    k = ints[b, DISCARD_STAGE]
    who = NONE
    count = 0
    if opts[O_FIRST_DISCARDS] > 0:
        if k < n:
            first = d if opts[O_DEALER_DISCARDS_FIRST] == 1 else (d + 1) % n
            who, count = (first + k) % n, opts[O_FIRST_DISCARDS]
        k -= n
    if k == 0:
        if opts[O_SECOND_DEAL] == 1:
            # §11.5: the second deal, 10 each; then the dealer discards 2 more
            for c in range(NUM_CARDS):
                if cards[b, PLACE, c] == PL_SECOND:
                    cards[b, PLACE, c] = PL_HAND
                    cards[b, HAND_OF, c] = cards[b, DEALT_TO, c]
        if opts[O_DISCARDS] > 0:
            if opts[O_DISCARDER] == DS_SOLOIST:
                if ints[b, CONTRACT] == SU:  # he went up: the Pozzo joined his hand
                    who, count = ints[b, SOLOIST], opts[O_DISCARDS]
            else:
                who, count = d, opts[O_DISCARDS]
    if who >= 0:
        ints[b, PHASE] = PH_DISCARD
        ints[b, DISCARDER] = who
        ints[b, DISCARDS_LEFT] = count
        ints[b, CURRENT] = who
    else:
        ints[b, PHASE] = PH_PREPARE


@kernel(inline=True)
def _discard(ints, seat_ints, cards, b, c, opts):
    """``discard c``: the card leaves the discarder's hand for his pile (§5.3); after his last,
    the next discard turn, or PREPARE."""
    p = ints[b, DISCARDER]
    cards[b, PLACE, c] = PL_DISCARD
    cards[b, HAND_OF, c] = NONE
    cards[b, PILE_OF, c] = p  # the discard counts for the discarder's side (§5.3)
    ints[b, DISCARDS_LEFT] -= 1
    if ints[b, DISCARDS_LEFT] == 0:
        ints[b, DISCARD_STAGE] += 1
        _start_discards(ints, seat_ints, cards, b, opts)


@kernel(inline=True)
def _discard_legal(cards, out, b, p):
    """§5.3: the discard actions' part of the mask, ``out`` (62,): the cards of ``p``'s hand
    but the Carte da 5. Taken as a 1-D view, the loop compiles to vector instructions."""
    hand_of, place = cards[b, HAND_OF], cards[b, PLACE]
    p8 = np.int8(p)  # the card rows are int8
    for c in range(NUM_CARDS):
        out[c] = (hand_of[c] == p8) & (place[c] == PL_HAND) & (CARTA_DA_5[c] == 0)
