"""The Matto (docs/rules/tarocchino.md §2.4, §4.5, §14.7, U2–U4, U19, U20, U25, U30).

Everything the Matto does, in the order of a hand:

- **Played** (:func:`_may_play_matto`, :func:`_cover`): its holder may cover it at any turn,
  excused from following suit and trumping (§2.4); it may be led, the next card then setting
  the suit (U2; the alternative: never led, unless it is his last card); for the duty to trump
  it is not a trump (U19; the alternative makes it one, :func:`_matto_is_trump`). It has no suit
  and never wins the trick.
- **Kept** (:func:`_matto_trick_won`): when its trick is complete it goes back to its owner's
  pile, the other cards to the winner's (§4.5); U4's alternative loses it to the winner when
  it was covered in the last trick.
- **The exchange** at the end of the hand (:func:`_exchange`, §4.5): if the winner of the
  Matto's trick is not on the owner's side, the owner's side gives him one card of its pile,
  a scartino if it has one (U3; the alternative: any card, :func:`_giftable`), on the final
  piles (a Terziglio "di mio" Pozzo already added, U25, :mod:`.auction`). A side that won no
  trick has nothing to give: the Matto itself goes (§4.5, §14.7). The owner chooses
  (``give <card>``, :func:`_give`) with ``matto_exchange="choose"``, unless one card is
  possible, which is given without asking (U30); by default the choice is automatic
  (:func:`auto_exchange_rows`, U20: the card that costs the giver least, then the one that
  helps the receiver least, then the lowest id).

The row functions (``_*``) work on one row ``b`` of the state's blocks (:mod:`.state`) and
are compiled by numba when it is on; the tricks (:mod:`.tricks`) call them where the Matto
takes part; :func:`auto_exchange_rows` runs once a hand on the rows being scored.
"""

from __future__ import annotations

import numpy as np

from tarot_env._jit import kernel, parallel_variant, prange, share, shares
from tarot_env.cards.bolognese import IS_SCARTINO, MATTO, NUM_CARDS
from tarot_env.rules.bolognese.combinations import IN_COMBINATION, combination_points_row, pair_scratch
from tarot_env.rules.bolognese.counting import CARD_VALUE
from tarot_env.rules.bolognese.seats import _side
from tarot_env.rules.bolognese.state import (
    AB_GIVE,
    CURRENT,
    MATTO_EXCHANGED,
    MATTO_SEAT,
    MATTO_TRICK,
    MATTO_WINNER,
    NONE,
    O_EXCHANGE_CHOOSE,
    O_GIFT_ANY,
    O_MATTO_IS_TRUMP,
    O_MATTO_LAST_LOST,
    O_MATTO_LEAD,
    O_MORI,
    O_N,
    PH_GIVE,
    PH_SCORE,
    PHASE,
    PILE_OF,
    PLAYED_BY,
    TRICKS,
)

# card facts as plain arrays (numba freezes module-level arrays as constants)
SCARTINO = IS_SCARTINO.astype(np.int64)


# ====================================================================== in the tricks
@kernel(inline=True)
def _may_play_matto(opts, leading, n_held):
    """May its holder play the Matto now: at any turn (§2.4); when ``leading``, unless the
    Matto is never led (U2's alternative) and he holds ``n_held`` > 1 cards."""
    return not leading or opts[O_MATTO_LEAD] == 1 or n_held <= 1


@kernel(inline=True)
def _matto_is_trump(opts):
    """U19: the Matto is not a trump for the duty to trump, unless ``matto_is_trump``."""
    return opts[O_MATTO_IS_TRUMP] == 1


@kernel(inline=True)
def _cover(ints, b, p, t):
    """``p`` covers the Matto in trick ``t`` (§2.4): no suit, it never wins; his side may owe
    a card for it at the end of the hand."""
    ints[b, MATTO_SEAT] = p
    ints[b, MATTO_TRICK] = t


@kernel(inline=True)
def _matto_trick_won(ints, cards, b, w, last, opts):
    """The Matto's trick is complete, won by ``w`` (whose pile took its cards): the Matto goes
    back to the pile of who covered it (§4.5); U4's alternative, in the last trick: it stays
    with the winner, and nothing is owed for it."""
    ints[b, MATTO_WINNER] = w
    if last and opts[O_MATTO_LAST_LOST] == 1:
        ints[b, MATTO_SEAT] = NONE
    else:
        cards[b, PILE_OF, MATTO] = cards[b, PLAYED_BY, MATTO]


# ====================================================================== the exchange
@kernel(inline=True)
def _pile_side(ints, cards, b, c, opts):
    """The side whose pile holds card ``c`` (its players' won tricks and discards), -1 none."""
    o = cards[b, PILE_OF, c]
    return _side(ints, b, o, opts) if o >= 0 else -1


@kernel(inline=True)
def _gift_scartini_only(ints, cards, b, side, opts):
    """U3: True when the card given for the Matto must be a scartino (``matto_gift="scartino"``
    and ``side``'s pile holds one besides the Matto)."""
    if opts[O_GIFT_ANY] == 1:
        return False
    for c in range(NUM_CARDS):  # noqa: SIM110 (a loop numba compiles; any() over a generator it does not)
        if c != MATTO and SCARTINO[c] == 1 and _pile_side(ints, cards, b, c, opts) == side:
            return True
    return False


@kernel(inline=True)
def _giftable(ints, cards, b, c, side, only_scartini, opts):
    """§4.5, U3: may card ``c`` be given for the Matto by ``side``: a card of its pile (its
    discards and, U25, a Pozzo it took included), not the Matto, a scartino if it must be."""
    if c == MATTO or _pile_side(ints, cards, b, c, opts) != side:
        return False
    return SCARTINO[c] == 1 or not only_scartini


@kernel(inline=True)
def _give_legal(ints, cards, row, b, p, opts):
    """The ``give`` actions of ``p``, the Matto's owner, in the mask ``row`` (A,): the cards
    his side may give (U3)."""
    side = _side(ints, b, p, opts)
    only_scartini = _gift_scartini_only(ints, cards, b, side, opts)
    for c in range(NUM_CARDS):
        row[AB_GIVE + c] = _giftable(ints, cards, b, c, side, only_scartini, opts)


@kernel(inline=True)
def _give(ints, cards, b, c):
    """§4.5: card ``c`` goes to the winner of the Matto's trick; the hand is then scored."""
    cards[b, PILE_OF, c] = ints[b, MATTO_WINNER]
    ints[b, MATTO_SEAT] = MATTO_EXCHANGED
    ints[b, PHASE] = PH_SCORE


@kernel(inline=True)
def _exchange(ints, seat_ints, cards, b, opts):
    """The hand is over (phase SCORE, the piles final): the Matto exchange, when it is due
    (§4.5). With no trick won the owner's side gives the Matto itself; with the owner's choice
    (U20's alternative) he is asked, unless one card is possible (U30); else the automatic
    exchange is made at SCORE (:func:`auto_exchange_rows`)."""
    m = ints[b, MATTO_SEAT]
    if m < 0 or _side(ints, b, ints[b, MATTO_WINNER], opts) == _side(ints, b, m, opts):
        return  # no Matto owed (not played, lost, U4), or his own side won its trick
    side = _side(ints, b, m, opts)
    won = 0
    for s in range(opts[O_N]):
        if _side(ints, b, s, opts) == side:
            won += seat_ints[b, s, TRICKS]
    if won == 0:  # no trick of its own, no card to give: the Matto itself goes (§4.5, §14.7)
        cards[b, PILE_OF, MATTO] = ints[b, MATTO_WINNER]
        ints[b, MATTO_SEAT] = NONE
    elif opts[O_EXCHANGE_CHOOSE] == 1:
        only_scartini = _gift_scartini_only(ints, cards, b, side, opts)
        count = 0
        gift = NONE
        for c in range(NUM_CARDS):
            if _giftable(ints, cards, b, c, side, only_scartini, opts):
                count += 1
                gift = c
        if count == 1:
            _give(ints, cards, b, gift)  # U30: a decision with one possible answer is not asked
        else:
            ints[b, PHASE] = PH_GIVE
            ints[b, CURRENT] = m


@kernel
def _auto_exchange_row(ints, cards, b, opts, mine, theirs, L, L2):
    """§4.5 with U3 and U20 at row ``b``, at SCORE: when the exchange is due, the Matto's owner's
    side gives the winner of the Matto's trick the card (:func:`_giftable`: a scartino if it
    has one, U3) that costs the giver least: its card values and combinations (§6, the
    end-of-hand count) lost with the card; then the one that helps the receiver least (the same,
    gained); then the lowest card id. ``mine``, ``theirs`` (62,) bool and ``L``, ``L2`` (7,) int64
    are scratch rows. The piles are the final ones: a Terziglio "di mio" Pozzo is already in the
    last trick's winner's pile (U25, :mod:`.auction`). Not due (no Matto owed, the owner's side
    won its trick, or it was given already, :data:`.state.MATTO_EXCHANGED`): nothing changes."""
    m = ints[b, MATTO_SEAT]
    if m < 0:
        return
    w = ints[b, MATTO_WINNER]
    giver = _side(ints, b, m, opts)
    receiver = _side(ints, b, max(w, 0), opts)
    if giver == receiver:
        return
    mine_value = 0
    theirs_value = 0
    for c in range(NUM_CARDS):
        side = _pile_side(ints, cards, b, c, opts)
        mine[c] = side == giver
        theirs[c] = side == receiver
        if side == giver:
            mine_value += CARD_VALUE[c]
        elif side == receiver:
            theirs_value += CARD_VALUE[c]
    only_scartini = _gift_scartini_only(ints, cards, b, giver, opts)
    mori = opts[O_MORI]
    # a card of no combination family leaves both sides' combinations as they are: counted once
    kept_combos = combination_points_row(mine, mori, True, L, L2)
    their_combos = combination_points_row(theirs, mori, True, L, L2)
    best, best_cost, best_help = NONE, 0, 0
    for c in range(NUM_CARDS):  # by card id: a tie keeps the lowest
        if not _giftable(ints, cards, b, c, giver, only_scartini, opts):
            continue
        mine_after, theirs_after = kept_combos, their_combos
        if IN_COMBINATION[c]:
            mine[c] = False
            theirs[c] = True
            mine_after = combination_points_row(mine, mori, True, L, L2)
            theirs_after = combination_points_row(theirs, mori, True, L, L2)
            mine[c] = True
            theirs[c] = False
        # what the giver keeps, negated (the less it keeps, the more the card costs), and what the receiver then holds
        cost = CARD_VALUE[c] - mine_value - mine_after
        help_ = theirs_value + CARD_VALUE[c] + theirs_after
        if best == NONE or cost < best_cost or (cost == best_cost and help_ < best_help):
            best, best_cost, best_help = c, cost, help_
    if best != NONE:
        cards[b, PILE_OF, best] = w
    ints[b, MATTO_SEAT] = MATTO_EXCHANGED


@kernel
def auto_exchange_rows(ints, cards, rows, opts):
    """:func:`_auto_exchange_row` for each of the played hands ``rows``, at SCORE. Compiled
    because every vector step ends hands and counts each candidate card's combinations twice
    (docs/performance.md, "What the kernels replaced"); ``auto_exchange_rows_parallel``
    shares the rows among numba's threads (:mod:`tarot_env._threads`) by shares of
    :data:`tarot_env._jit.ROWS_PER_SHARE`, each with its own scratch rows."""
    for k in prange(shares(rows.shape[0])):  # shares are independent
        mine, theirs, L, L2 = pair_scratch()
        first, end = share(k, rows.shape[0])
        for i in range(first, end):
            _auto_exchange_row(ints, cards, rows[i], opts, mine, theirs, L, L2)


auto_exchange_rows_parallel = parallel_variant(auto_exchange_rows)
