"""The tricks (docs/rules/tarocchino.md §4.1–§4.4, §5.4, U1, U13).

- **The first lead** (:func:`_first_trick`): the Primo di Mano, the dealer's right (§5.4, and
  §11.5, §12.2, §14.3 with the players still in), or in Terziglio the soloist with U13's
  alternative (§10.4).
- **The legal cards** (:func:`_legal_plays`, §4.2): lead any card; follow the suit led; void,
  trump; to a trump led, a trump; nobody must beat or overtrump (U1, unless ``must_overtrump``).
  The Matto's part (it may be covered at any turn, led or not, a trump or not: §2.4, U2, U19)
  is :mod:`.matto`'s.
- **The trick** (:func:`_play`, §4.3): the highest trump wins; among Mori, equal, the last
  played (:func:`_beats_trump`); without a trump, the highest card of the suit led (the order
  of §2.3 is the cards' ``strength``, cards/bolognese.py). The winner leads the next trick;
  before each player's card comes his first turn (:mod:`.claims`).
- **Won cards** (:func:`_end_trick`, §4.4): to the winner's pile (the Matto back to its owner,
  :mod:`.matto`); after the last trick, the unused Pozzo (:mod:`.auction`, U25), then the Matto
  exchange, and the hand goes to ``SCORE``.

The trick in progress is kept incrementally (``lead_suit``, ``best_seat``, ``best_str``,
``best_card``, and its cards ``trick_cards``), so a card costs no scan of the trick. The
Bolognese ids put each suit in one range (``suit * SUIT_SIZE`` on), the trumps at 40..60 and
the Matto at 61 (cards/bolognese.py), so the legal cards read only the ranges that matter.
Each function works on one row ``b`` of the state's blocks (:mod:`.state`), compiled by numba
when it is on; ``tests/oracles/tricks.py`` states the same mechanics independently.
"""

from __future__ import annotations

import numpy as np

from tarot_env._jit import kernel
from tarot_env.cards.bolognese import BEGATO as FIRST_TRUMP
from tarot_env.cards.bolognese import BOLOGNESE_DECK, MATTO, MORO_STRENGTH, NUM_CARDS, SUIT_SIZE
from tarot_env.cards.deck import TRUMP_SUIT
from tarot_env.rules.bolognese.auction import _unused_pozzo
from tarot_env.rules.bolognese.claims import _begin_turn
from tarot_env.rules.bolognese.matto import _cover, _exchange, _matto_is_trump, _matto_trick_won, _may_play_matto
from tarot_env.rules.bolognese.seats import _next_active
from tarot_env.rules.bolognese.state import (
    BEST_CARD,
    BEST_SEAT,
    BEST_STR,
    CURRENT,
    DEALER,
    HAND_OF,
    LAST_WINNER,
    LEAD_SUIT,
    LEADER,
    MATTO_TRICK,
    MAX_PLAYERS,
    N_ACTIVE,
    NONE,
    O_FIRST_LEAD_SOLOIST,
    O_MUST_OVERTRUMP,
    O_N,
    O_TRICKS,
    PH_SCORE,
    PHASE,
    PILE_OF,
    PL_HAND,
    PL_PILE,
    PL_TABLE,
    PLACE,
    PLAYED_BY,
    PRIMO,
    SOLOIST,
    TRICK_CARDS,
    TRICK_NO,
    TRICK_OF,
    TRICK_SIZE,
    TRICKS,
)

# card facts as plain arrays (numba freezes module-level arrays as constants)
SUIT = BOLOGNESE_DECK.suit.astype(np.int64)
STRENGTH = BOLOGNESE_DECK.strength.astype(np.int64)


@kernel(inline=True)
def _beats_trump(k, top):
    """§4.3: does a trump of strength ``k`` beat the best trump so far, of strength ``top``:
    higher, or a Moro after a Moro (the Mori are equal, and the last played wins)."""
    return k > top or (k == MORO_STRENGTH and top == MORO_STRENGTH)


@kernel(inline=True)
def _first_trick(ints, seat_ints, b, opts):
    """The play starts (hands final): the first leader, the Primo di Mano, and an empty trick."""
    first = _next_active(seat_ints, b, ints[b, DEALER], opts[O_N])
    if opts[O_FIRST_LEAD_SOLOIST] == 1:  # U13's alternative (an auction game's option)
        first = ints[b, SOLOIST]
    ints[b, PRIMO] = first
    ints[b, LEADER] = first
    ints[b, CURRENT] = first
    ints[b, TRICK_NO] = 0
    ints[b, TRICK_SIZE] = 0
    ints[b, LEAD_SUIT] = NONE
    ints[b, BEST_SEAT] = NONE
    ints[b, BEST_STR] = NONE
    ints[b, BEST_CARD] = NONE


@kernel(inline=True)
def _legal_plays(ints, cards, out, b, p, opts):
    """§4.2: follow the suit led; void, trump; a trump led is answered with a trump; nobody
    must beat or over-trump (U1, unless ``must_overtrump``); the Matto as :mod:`.matto` says.
    Leading: any card. Writes the play actions' part of the mask, ``out`` (62,), which is all
    False on entry. The card rows are taken as 1-D views once: loops over ``range`` into them
    compile to vector instructions."""
    hand_of, place = cards[b, HAND_OF], cards[b, PLACE]
    p8 = np.int8(p)  # the card rows are int8
    led = ints[b, LEAD_SUIT]
    held_matto = hand_of[MATTO] == p8 and place[MATTO] == PL_HAND
    if ints[b, TRICK_SIZE] == 0 or led < 0:  # leading, or only the Matto is on the table
        n_held = 0
        for c in range(NUM_CARDS):  # no branch: one vector loop when compiled
            held = (hand_of[c] == p8) & (place[c] == PL_HAND)
            out[c] = held
            n_held += held
        if held_matto:
            out[MATTO] = _may_play_matto(opts, ints[b, TRICK_SIZE] == 0, n_held)
        return
    has_trump = held_matto and _matto_is_trump(opts)  # U19's alternative
    for c in range(FIRST_TRUMP, MATTO):
        if hand_of[c] == p8 and place[c] == PL_HAND:
            has_trump = True
            break
    has_suit = False
    if led == TRUMP_SUIT:
        has_suit = has_trump
    else:
        for c in range(SUIT_SIZE * led, SUIT_SIZE * led + SUIT_SIZE):
            if hand_of[c] == p8 and place[c] == PL_HAND:
                has_suit = True
                out[c] = True
    if not has_suit or led == TRUMP_SUIT:
        if has_trump:
            top = ints[b, BEST_STR] if SUIT[ints[b, BEST_CARD]] == TRUMP_SUIT else -1  # -1: no trump in the trick yet
            must_beat = False
            if opts[O_MUST_OVERTRUMP] == 1:  # U1's alternative: a trump played must beat the trumps in the trick when it can
                for c in range(FIRST_TRUMP, MATTO):
                    if hand_of[c] == p8 and place[c] == PL_HAND and _beats_trump(STRENGTH[c], top):
                        must_beat = True
                        break
            for c in range(FIRST_TRUMP, MATTO):
                if hand_of[c] == p8 and place[c] == PL_HAND:
                    if not must_beat or _beats_trump(STRENGTH[c], top):
                        out[c] = True
        else:
            for c in range(NUM_CARDS):
                out[c] = (hand_of[c] == p8) & (place[c] == PL_HAND)
    if held_matto:
        out[MATTO] = _may_play_matto(opts, False, 0)


@kernel(inline=True)
def _end_trick(ints, seat_ints, cards, hist, b, opts):
    """The trick is complete: its cards to the winner's pile, the Matto back to its owner's
    (§4.5); the winner leads next (§4.3); after the last trick, the unused Pozzo and the Matto
    exchange, then the score."""
    t = ints[b, TRICK_NO]
    w = ints[b, BEST_SEAT]
    last = t == opts[O_TRICKS] - 1
    trick = ints[b, TRICK_CARDS : TRICK_CARDS + MAX_PLAYERS]
    for k in range(ints[b, TRICK_SIZE]):
        c = trick[k]
        cards[b, PLACE, c] = PL_PILE
        cards[b, PILE_OF, c] = w
    if ints[b, MATTO_TRICK] == t:
        _matto_trick_won(ints, cards, b, w, last, opts)
    seat_ints[b, w, TRICKS] += 1
    hist[b, t] = w
    ints[b, TRICK_NO] = t + 1
    ints[b, TRICK_SIZE] = 0
    ints[b, LEAD_SUIT] = NONE
    ints[b, BEST_SEAT] = NONE
    ints[b, BEST_STR] = NONE
    ints[b, BEST_CARD] = NONE
    ints[b, LEADER] = w
    ints[b, CURRENT] = w
    if not last:
        _begin_turn(ints, seat_ints, b, opts)
        return
    ints[b, LAST_WINNER] = w
    ints[b, PHASE] = PH_SCORE
    _unused_pozzo(ints, cards, b, w)  # U25: before the exchange, which is made on the final piles
    _exchange(ints, seat_ints, cards, b, opts)


@kernel(inline=True)
def _play(ints, seat_ints, cards, hist, b, c, opts):
    """``play c`` by the player to act: the card joins the trick, which it may win (§4.3); the
    next player's turn, or the end of the trick."""
    p = ints[b, CURRENT]
    t = ints[b, TRICK_NO]
    cards[b, HAND_OF, c] = NONE
    cards[b, PLACE, c] = PL_TABLE
    cards[b, PLAYED_BY, c] = p
    cards[b, TRICK_OF, c] = t
    trick = ints[b, TRICK_CARDS : TRICK_CARDS + MAX_PLAYERS]
    trick[ints[b, TRICK_SIZE]] = c
    if c == MATTO:  # covered (§2.4): no suit, never wins
        _cover(ints, b, p, t)
    else:
        s = SUIT[c]
        k = STRENGTH[c]
        if ints[b, LEAD_SUIT] < 0:
            ints[b, LEAD_SUIT] = s  # the Carta Dominante (after a led Matto, the next card: U2)
            ints[b, BEST_SEAT] = p
            ints[b, BEST_STR] = k
            ints[b, BEST_CARD] = c
        else:
            best_trump = SUIT[ints[b, BEST_CARD]] == TRUMP_SUIT
            if s == TRUMP_SUIT:
                # §4.3: the highest trump; among Mori (equal) the last played
                if not best_trump or _beats_trump(k, ints[b, BEST_STR]):
                    ints[b, BEST_SEAT] = p
                    ints[b, BEST_STR] = k
                    ints[b, BEST_CARD] = c
            elif s == ints[b, LEAD_SUIT] and not best_trump and k > ints[b, BEST_STR]:
                ints[b, BEST_SEAT] = p
                ints[b, BEST_STR] = k
                ints[b, BEST_CARD] = c
    ints[b, TRICK_SIZE] += 1
    if ints[b, TRICK_SIZE] == ints[b, N_ACTIVE]:
        _end_trick(ints, seat_ints, cards, hist, b, opts)
    else:
        ints[b, CURRENT] = _next_active(seat_ints, b, p, opts[O_N])
        _begin_turn(ints, seat_ints, b, opts)
