"""The play of a Tarocchino hand, decision by decision (docs/rules/tarocchino.md §4–§14), one row at a time.

This module is the state machine of the seven games: the Terziglio auction, the claim
windows (*Chiamarsi Fuori*), the discards, the declarations at a player's first turn, the
tricks with the Matto, and the Matto exchange when it is the player's choice. Each function
works on one row ``b`` of the state's blocks (:mod:`.state`) with plain loops, so that the
same code runs as Python (the reference, and the fallback without numba) and compiled by
numba (``tarot_env[fast]``): there is no second implementation to keep in step.

What needs whole-hand arithmetic, and runs once or twice a hand, stays in NumPy in
:mod:`.game`: the values of declarations (§7, from :mod:`.combinations`), the end-of-hand
scores (:mod:`.scoring`) and the automatic Matto exchange (U20). The kernel hands those
over by stopping a row in the phases ``PREPARE`` (hands are final: value the declarations)
and ``SCORE`` (the hand is over).

Every rule choice arrives in ``opts`` (see :func:`.config.TarocchinoConfig.kernel_options`),
and so does everything that tells the games apart: the code never asks which game it plays,
it reads the columns made from the game's row (:class:`.games.GameSpec`): the sides
(``O_SIDES``), the auction, the claim windows, Quindici's rounding, who discards how many.
"""

from __future__ import annotations

import numpy as np

from tarot_env._jit import njit
from tarot_env.cards.bolognese import BEGATO as FIRST_TRUMP
from tarot_env.cards.bolognese import BOLOGNESE_DECK, IS_CARTA_DA_5, IS_SCARTINO, MATTO, NUM_CARDS
from tarot_env.cards.deck import TRUMP_SUIT
from tarot_env.rules.bolognese.state import (
    A_CLAIM,
    A_DECLARE,
    A_DI_MIO,
    A_NO_CLAIM,
    A_NO_DECLARE,
    A_OPPOSE,
    A_PASS,
    A_POSSO,
    A_VA_BENE,
    AB_DISCARD,
    AB_GIVE,
    AB_PLAY,
    ACTIVE,
    ANSWERS,
    BEST_CARD,
    BEST_SEAT,
    BEST_STR,
    BIDDER,
    CLAIM_DECL,
    CLAIM_OK,
    CLAIM_SEAT,
    CLAIM_VALUE,
    COMBO,
    CONTRACT,
    CURRENT,
    DEALER,
    DEALT_TO,
    DECL,
    DECLARED,
    DISCARD_STAGE,
    DISCARDER,
    DISCARDS_LEFT,
    DS_SOLOIST,
    GAME_WINNER,
    HAND_OF,
    LAST_WINNER,
    LEAD_SUIT,
    LEADER,
    MATTO_SEAT,
    MATTO_TRICK,
    MATTO_WINNER,
    N_ACTIVE,
    O_AUCTION,
    O_CLAIM_RAW_SUM,
    O_CLAIMS,
    O_DEALER_AGAIN,
    O_DEALER_DISCARDS_FIRST,
    O_DECLARATIONS,
    O_DISCARDER,
    O_DISCARDS,
    O_EXCHANGE_CHOOSE,
    O_FIRST_DISCARDS,
    O_FIRST_LEAD_SOLOIST,
    O_GIFT_ANY,
    O_MATTO_IS_TRUMP,
    O_MATTO_LAST_LOST,
    O_MATTO_LEAD,
    O_MUST_OVERTRUMP,
    O_N,
    O_OPP_AFTER_PICKUP,
    O_OPP_CLAIM_EARLY,
    O_PARTNER_NEEDS_OWN,
    O_PRIMO_PARTNER_ADDS,
    O_ROUNDED,
    O_SECOND_DEAL,
    O_SIDES,
    O_TARGET,
    O_TRICKS,
    O_WRONG_LOSES,
    PASSES,
    PH_AUCTION,
    PH_CLAIM,
    PH_DECLARE,
    PH_DISCARD,
    PH_GIVE,
    PH_PLAY,
    PH_PREPARE,
    PH_SCORE,
    PHASE,
    PICKUP_DECL,
    PILE_OF,
    PL_DISCARD,
    PL_EXTRA,
    PL_HAND,
    PL_PILE,
    PL_POZZO,
    PL_SECOND,
    PL_TABLE,
    PLACE,
    PLAYED_BY,
    PRIMO,
    RAW_TOTAL,
    RESULT,
    RS_CLAIMED,
    RS_THROWN_IN,
    RS_WRONG_CLAIM,
    SD_PARTNERS,
    SD_SOLOIST,
    SHOWN,
    SOLOIST,
    SPEAKER,
    STAGE,
    TC0,
    TOTAL,
    TRICK_NO,
    TRICK_OF,
    TRICK_SIZE,
    TRICKS,
    WINDOW,
)

# card facts as plain arrays (numba freezes module-level arrays as constants)
SUIT = BOLOGNESE_DECK.suit.astype(np.int64)
STRENGTH = BOLOGNESE_DECK.strength.astype(np.int64)
MORO_STRENGTH = 101
CARTA_DA_5 = IS_CARTA_DA_5.astype(np.int64)
SCARTINO = IS_SCARTINO.astype(np.int64)

# sides: which seats play together (the O_SIDES column; state.SD_*)
PARTNERS, SOLO = SD_PARTNERS, SD_SOLOIST
# claim windows (WINDOW)
W_PICKUP, W_AFTER_PICKUP, W_FIRST_TURN = 0, 1, 2
# Terziglio contracts (scoring.py codes)
NO_CONTRACT, SU, DI_MIO = 0, 1, 2
# stages of a player's first turn (STAGE)
ST_CLAIM, ST_DECLARE, ST_DONE = 0, 1, 2


def _side_py(ints, b, seat, opts):
    """The side of ``seat``: seat % 2 with partners, 0 the soloist / 1 the opponents in
    Terziglio, the seat itself where each plays for himself (the game's ``sides``)."""
    k = opts[O_SIDES]
    if k == PARTNERS:
        return seat % 2
    if k == SOLO:
        return 0 if seat == ints[b, SOLOIST] else 1
    return seat


_side = njit(_side_py, inline=True) or _side_py


def sides_rows_py(ints, rows, n, opts, out):
    """:func:`_side` of every seat of ``rows`` into ``out`` (R, n): the one rule, for the NumPy code too."""
    for i in range(rows.shape[0]):
        for s in range(n):
            out[i, s] = _side(ints, rows[i], s, opts)


sides_rows = njit(sides_rows_py) or sides_rows_py


def _next_active_py(seat_ints, b, p, n):
    """The next player to the right (play order) still in the game (Mattazza matches drop players)."""
    q = (p + 1) % n
    while seat_ints[b, q, ACTIVE] == 0:
        q = (q + 1) % n
    return q


_next_active = njit(_next_active_py, inline=True) or _next_active_py


def _quindici_round_py(x):
    return (x + 5) // 10


_qround = njit(_quindici_round_py, inline=True) or _quindici_round_py


# ====================================================================== legal actions
def _set_legal_py(ints, seat_ints, cards, legal, b, opts):
    """Write the row's legal mask for the player to act (all False once the row leaves the
    decision phases).

    The mask row and the card rows are taken as 1-D views once (``row = legal[b]``): loops
    over ``range`` into them compile to vector instructions, where ``legal[b, a]`` (an index
    numba must check for negative values) kept them scalar."""
    row = legal[b]
    for a in range(row.shape[0]):
        row[a] = False
    phase = ints[b, PHASE]
    p = ints[b, CURRENT]
    if phase == PH_AUCTION:
        if ints[b, BIDDER] < 0:
            row[A_PASS] = True
            row[A_POSSO] = True
            row[A_DI_MIO] = True
        else:
            row[A_VA_BENE] = True
            row[A_OPPOSE] = True
    elif phase == PH_CLAIM:
        row[A_CLAIM] = True
        row[A_NO_CLAIM] = True
    elif phase == PH_DECLARE:
        row[A_DECLARE] = True
        row[A_NO_DECLARE] = True
    elif phase == PH_DISCARD:
        hand_of, place = cards[b, HAND_OF], cards[b, PLACE]
        discard = row[AB_DISCARD : AB_DISCARD + NUM_CARDS]
        p8 = np.int8(p)  # the card rows are int8
        for c in range(NUM_CARDS):
            discard[c] = (hand_of[c] == p8) & (place[c] == PL_HAND) & (CARTA_DA_5[c] == 0)
    elif phase == PH_PLAY:
        _legal_plays(ints, cards, row[AB_PLAY : AB_PLAY + NUM_CARDS], b, p, opts)
    elif phase == PH_GIVE:
        side = _side(ints, b, p, opts)
        only_scartini = _gift_scartini_only(ints, cards, b, side, opts)
        for c in range(NUM_CARDS):
            row[AB_GIVE + c] = _giftable(ints, cards, b, c, side, only_scartini, opts)


def _gift_scartini_only_py(ints, cards, b, side, opts):
    """U3: True when the card given for the Matto must be a scartino (``matto_gift="scartino"``
    and ``side``'s pile holds one besides the Matto)."""
    if opts[O_GIFT_ANY] == 1:
        return False
    for c in range(NUM_CARDS):
        o = cards[b, PILE_OF, c]
        if o >= 0 and c != MATTO and SCARTINO[c] == 1 and _side(ints, b, o, opts) == side:
            return True
    return False


_gift_scartini_only = njit(_gift_scartini_only_py, inline=True) or _gift_scartini_only_py


def _giftable_py(ints, cards, b, c, side, only_scartini, opts):
    """§4.5, U3: may card ``c`` be given for the Matto by ``side``: a card of its pile (its
    discards and, U25, a Pozzo it took included), not the Matto, a scartino if it must be."""
    o = cards[b, PILE_OF, c]
    if o < 0 or c == MATTO or _side(ints, b, o, opts) != side:
        return False
    return SCARTINO[c] == 1 or not only_scartini


_giftable = njit(_giftable_py, inline=True) or _giftable_py


def _legal_plays_py(ints, cards, out, b, p, opts):
    """§4.2: follow the suit led; void, trump; a trump led is answered with a trump; nobody
    must beat or over-trump (U1, unless ``must_overtrump``); the Matto may be covered at any
    turn (§2.4). Leading: any card (U2: the Matto only where allowed). Writes the play
    actions' part of the mask, ``out`` (62,), which is all False on entry.

    The Bolognese ids put each suit in one range (``suit * 10`` to ``suit * 10 + 9``), the
    trumps at 40..60 and the Matto at 61 (cards/bolognese.py), so only the ranges that
    matter are read."""
    hand_of, place = cards[b, HAND_OF], cards[b, PLACE]
    p8 = np.int8(p)  # the card rows are int8
    led = ints[b, LEAD_SUIT]
    if ints[b, TRICK_SIZE] == 0 or led < 0:  # leading, or only the Matto is on the table
        n_held = 0
        for c in range(NUM_CARDS):  # no branch: one vector loop when compiled
            held = (hand_of[c] == p8) & (place[c] == PL_HAND)
            out[c] = held
            n_held += held
        if ints[b, TRICK_SIZE] == 0 and opts[O_MATTO_LEAD] == 0 and n_held > 1:
            out[MATTO] = False  # U2 "never led": unless it is the last card
        return
    held_matto = hand_of[MATTO] == p8 and place[MATTO] == PL_HAND
    matto_trump = opts[O_MATTO_IS_TRUMP] == 1 and held_matto  # U19's alternative
    has_trump = matto_trump
    for c in range(FIRST_TRUMP, MATTO):
        if hand_of[c] == p8 and place[c] == PL_HAND:
            has_trump = True
            break
    has_suit = False
    if led == TRUMP_SUIT:
        has_suit = has_trump
    else:
        for c in range(10 * led, 10 * led + 10):
            if hand_of[c] == p8 and place[c] == PL_HAND:
                has_suit = True
                out[c] = True
    if not has_suit or led == TRUMP_SUIT:
        if has_trump:
            top = ints[b, BEST_STR] if SUIT[ints[b, BEST_CARD]] == TRUMP_SUIT else -1
            must_beat = False
            if opts[O_MUST_OVERTRUMP] == 1:  # U1's alternative: a trump played must beat the trumps in the trick when it can
                for c in range(FIRST_TRUMP, MATTO):
                    if (
                        hand_of[c] == p8
                        and place[c] == PL_HAND
                        and (STRENGTH[c] > top or (STRENGTH[c] == MORO_STRENGTH and top == MORO_STRENGTH))
                    ):
                        must_beat = True
                        break
            for c in range(FIRST_TRUMP, MATTO):
                if hand_of[c] == p8 and place[c] == PL_HAND:
                    if not must_beat or STRENGTH[c] > top or (STRENGTH[c] == MORO_STRENGTH and top == MORO_STRENGTH):
                        out[c] = True
            if matto_trump and not must_beat:
                out[MATTO] = True
        else:
            for c in range(NUM_CARDS):
                out[c] = (hand_of[c] == p8) & (place[c] == PL_HAND)
    if held_matto:
        out[MATTO] = True


_legal_plays = njit(_legal_plays_py, inline=True) or _legal_plays_py
_set_legal = njit(_set_legal_py) or _set_legal_py


# ====================================================================== turns and windows
def _claim_offer_py(ints, seat_ints, b, p, window, opts):
    """The claim value ``p`` could call at ``window`` (§8.4, U8, U21, U23, U15/U24, U28, U29),
    and whether the window opens: (-1, 0) when it does not.

    U28: a claim is made *with* declared combinations, so a window opens only when the
    declaration it would use is worth more than 0 (a total already past the target, after U9's
    tie, is not enough on its own). U29: in Millone each player also has his first-turn window,
    with the first-deal cards of his hand (``CLAIM_DECL``, §11.6)."""
    if opts[O_CLAIMS] == 0:
        return -1, 0
    d = ints[b, DEALER]
    target = opts[O_TARGET]
    own = ints[b, PICKUP_DECL] if window == W_PICKUP else seat_ints[b, p, CLAIM_DECL]
    if window == W_FIRST_TURN:
        if p == d:
            if opts[O_DEALER_AGAIN] == 0:
                return -1, 0  # U8's alternative
        elif opts[O_OPP_CLAIM_EARLY] == 1:
            return -1, 0  # U21's alternative: the opponent's window came right after the dealer picked up
        elif opts[O_PRIMO_PARTNER_ADDS] == 1 and p == (d + 3) % opts[O_N]:
            if not (opts[O_PARTNER_NEEDS_OWN] == 1 and own == 0):
                own += seat_ints[b, ints[b, PRIMO], DECLARED]  # §8.4 step 4: the Primo's declaration too (U23)
    if own <= 0:
        return -1, 0  # U28: nothing declared, nothing to claim with
    if opts[O_ROUNDED] == 1:  # Quindici (U15, U24)
        if opts[O_CLAIM_RAW_SUM] == 1:
            value = _qround(seat_ints[b, p, RAW_TOTAL] + own)
        else:
            value = seat_ints[b, p, TOTAL] + _qround(own)
    else:
        value = seat_ints[b, p, TOTAL] + own
    ok = 1 if value >= target else 0
    if ok == 0 and opts[O_WRONG_LOSES] == 0:
        return -1, 0
    return value, ok


_claim_offer = njit(_claim_offer_py) or _claim_offer_py


def _open_claim_py(ints, seat_ints, b, p, window, opts):
    """Open a claim window for ``p`` if the rules give him one; True when opened."""
    value, ok = _claim_offer(ints, seat_ints, b, p, window, opts)
    if value < 0:
        return False
    ints[b, PHASE] = PH_CLAIM
    ints[b, CURRENT] = p
    ints[b, WINDOW] = window
    ints[b, CLAIM_VALUE] = value
    ints[b, CLAIM_OK] = ok
    return True


_open_claim = njit(_open_claim_py) or _open_claim_py


def _begin_turn_py(ints, seat_ints, b, opts):
    """The player to act in the play: his first turn's claim and declaration (§7, §8.4)
    come before his card."""
    p = ints[b, CURRENT]
    if seat_ints[b, p, STAGE] == ST_CLAIM:
        seat_ints[b, p, STAGE] = ST_DECLARE
        if _open_claim(ints, seat_ints, b, p, W_FIRST_TURN, opts):
            return
    if seat_ints[b, p, STAGE] == ST_DECLARE:
        seat_ints[b, p, STAGE] = ST_DONE
        if opts[O_DECLARATIONS] == 1 and seat_ints[b, p, DECL] > 0:
            ints[b, PHASE] = PH_DECLARE
            return
    ints[b, PHASE] = PH_PLAY


_begin_turn = njit(_begin_turn_py) or _begin_turn_py


def _start_discards_py(ints, seat_ints, cards, b, opts):
    """After the pickup (or the Pozzo): the game's discards (§5.3, §10.3, §11.4–5), then
    PREPARE. DISCARD_STAGE counts the discards made: first each player's ``O_FIRST_DISCARDS``
    in turn (Millone's 10, the opponent first unless U22's option says the dealer), then the
    second deal (Millone, §11.5), then the discarder's ``O_DISCARDS``: the dealer's, or the
    soloist's who went up (Terziglio, §10.3)."""
    d = ints[b, DEALER]
    n = opts[O_N]
    k = ints[b, DISCARD_STAGE]
    who = -1
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


_start_discards = njit(_start_discards_py) or _start_discards_py


def _pickup_py(ints, seat_ints, cards, b, opts):
    """The dealer picks up his last 2 cards (§8.4.1); Millone's opponent may then claim with
    his 20 cards (§11.3), as may Centocinquanta's with U21's alternative; then the discards."""
    for c in range(NUM_CARDS):
        if cards[b, PLACE, c] == PL_EXTRA:
            cards[b, PLACE, c] = PL_HAND
    if opts[O_OPP_AFTER_PICKUP] == 1:
        opp = (ints[b, DEALER] + 1) % opts[O_N]
        if _open_claim(ints, seat_ints, b, opp, W_AFTER_PICKUP, opts):
            return
    _start_discards(ints, seat_ints, cards, b, opts)


_pickup = njit(_pickup_py) or _pickup_py


def start_hand_py(ints, seat_ints, cards, legal, b, opts):
    """A freshly dealt row (cards placed, PICKUP_DECL and the after-pickup CLAIM_DECL set by
    the caller): the auction, the dealer's claim window, or the pickup (which, with no last
    cards to pick up and no discard, as in Mattazza, goes straight to PREPARE)."""
    d = ints[b, DEALER]
    n = opts[O_N]
    if opts[O_AUCTION] == 1:
        ints[b, PHASE] = PH_AUCTION
        ints[b, SPEAKER] = (d + 1) % n  # the receiver, on the dealer's right (§10.1)
        ints[b, CURRENT] = ints[b, SPEAKER]
        ints[b, BIDDER] = -1
    elif not _open_claim(ints, seat_ints, b, d, W_PICKUP, opts):
        _pickup(ints, seat_ints, cards, b, opts)
    _set_legal(ints, seat_ints, cards, legal, b, opts)


start_hand = njit(start_hand_py) or start_hand_py


def start_play_py(ints, seat_ints, cards, legal, b, opts):
    """Hands are final and DECL / CLAIM_DECL set (PREPARE done): the first trick (§5.4,
    §10.4 with U13, §11.5, §12.2)."""
    n = opts[O_N]
    d = ints[b, DEALER]
    first = _next_active(seat_ints, b, d, n)
    if opts[O_FIRST_LEAD_SOLOIST] == 1:  # U13's alternative (an auction game's option)
        first = ints[b, SOLOIST]
    ints[b, PRIMO] = first
    ints[b, LEADER] = first
    ints[b, CURRENT] = first
    ints[b, TRICK_NO] = 0
    ints[b, TRICK_SIZE] = 0
    ints[b, LEAD_SUIT] = -1
    ints[b, BEST_SEAT] = -1
    ints[b, BEST_STR] = -1
    ints[b, BEST_CARD] = -1
    _begin_turn(ints, seat_ints, b, opts)
    _set_legal(ints, seat_ints, cards, legal, b, opts)


start_play = njit(start_play_py) or start_play_py


# ====================================================================== the tricks
def _end_trick_py(ints, seat_ints, cards, hist, b, opts):
    """The trick is complete: the Matto to its owner's pile, the rest to the winner's (§4.5);
    the winner leads next (§4.3); after the last trick, the Matto exchange or the score."""
    t = ints[b, TRICK_NO]
    w = ints[b, BEST_SEAT]
    last = t == opts[O_TRICKS] - 1
    for k in range(ints[b, TRICK_SIZE]):
        c = ints[b, TC0 + k]
        cards[b, PLACE, c] = PL_PILE
        if c == MATTO and not (last and opts[O_MATTO_LAST_LOST] == 1):
            cards[b, PILE_OF, c] = cards[b, PLAYED_BY, c]
        else:
            cards[b, PILE_OF, c] = w
    if ints[b, MATTO_TRICK] == t:
        ints[b, MATTO_WINNER] = w
        if last and opts[O_MATTO_LAST_LOST] == 1:
            ints[b, MATTO_SEAT] = -1  # U4's alternative: lost to the winner, nothing to exchange
    seat_ints[b, w, TRICKS] += 1
    hist[b, t] = w
    ints[b, TRICK_NO] = t + 1
    ints[b, TRICK_SIZE] = 0
    ints[b, LEAD_SUIT] = -1
    ints[b, BEST_SEAT] = -1
    ints[b, BEST_STR] = -1
    ints[b, BEST_CARD] = -1
    ints[b, LEADER] = w
    ints[b, CURRENT] = w
    if not last:
        _begin_turn(ints, seat_ints, b, opts)
        return
    ints[b, LAST_WINNER] = w
    ints[b, PHASE] = PH_SCORE
    if ints[b, CONTRACT] == DI_MIO:  # only an auction sets a contract
        # §10.3, U25: the unused Pozzo goes, unseen, to the pile of the last trick's winner, before
        # the Matto exchange, which is then made on the final piles (its cards keep PL_POZZO as
        # their place, as discards keep PL_DISCARD)
        for c in range(NUM_CARDS):
            if cards[b, PLACE, c] == PL_POZZO:
                cards[b, PILE_OF, c] = w
    m = ints[b, MATTO_SEAT]
    if m < 0 or _side(ints, b, ints[b, MATTO_WINNER], opts) == _side(ints, b, m, opts):
        return
    # §4.5: the owner's side gives a card to the side that won the Matto's trick; with no
    # trick of its own it has none to give, and the Matto itself goes
    side = _side(ints, b, m, opts)
    won = 0
    for s in range(opts[O_N]):
        if _side(ints, b, s, opts) == side:
            won += seat_ints[b, s, TRICKS]
    if won == 0:
        cards[b, PILE_OF, MATTO] = ints[b, MATTO_WINNER]
        ints[b, MATTO_SEAT] = -1
    elif opts[O_EXCHANGE_CHOOSE] == 1:
        only_scartini = _gift_scartini_only(ints, cards, b, side, opts)
        count = 0
        gift = -1
        for c in range(NUM_CARDS):
            if _giftable(ints, cards, b, c, side, only_scartini, opts):
                count += 1
                gift = c
        if count == 1:
            _give(ints, cards, b, gift)  # U30: a decision with one possible answer is not asked
        else:
            ints[b, PHASE] = PH_GIVE
            ints[b, CURRENT] = m


_end_trick = njit(_end_trick_py, inline=True) or _end_trick_py


def _give_py(ints, cards, b, c):
    """§4.5: card ``c`` goes to the winner of the Matto's trick; the hand is then scored."""
    cards[b, PILE_OF, c] = ints[b, MATTO_WINNER]
    ints[b, MATTO_SEAT] = -2  # exchange made
    ints[b, PHASE] = PH_SCORE


_give = njit(_give_py, inline=True) or _give_py


def _play_py(ints, seat_ints, cards, hist, b, c, opts):
    p = ints[b, CURRENT]
    t = ints[b, TRICK_NO]
    cards[b, PLACE, c] = PL_TABLE
    cards[b, PLAYED_BY, c] = p
    cards[b, TRICK_OF, c] = t
    ints[b, TC0 + ints[b, TRICK_SIZE]] = c
    if c == MATTO:  # covered (§2.4): no suit, never wins
        ints[b, MATTO_SEAT] = p
        ints[b, MATTO_TRICK] = t
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
                if not best_trump or k > ints[b, BEST_STR] or (k == MORO_STRENGTH and ints[b, BEST_STR] == MORO_STRENGTH):
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


_play = njit(_play_py, inline=True) or _play_py


# ====================================================================== one decision
def _auction_py(ints, seat_ints, cards, b, a, opts):
    """Terziglio's auction (§10.3, U12)."""
    p = ints[b, CURRENT]
    n = opts[O_N]
    if a == A_PASS:
        ints[b, PASSES] += 1
        if ints[b, PASSES] == 3:
            ints[b, RESULT] = RS_THROWN_IN  # all passed: the deal is thrown in
            ints[b, PHASE] = PH_SCORE
            return
        ints[b, SPEAKER] = (p + 1) % n
        ints[b, CURRENT] = ints[b, SPEAKER]
    elif a == A_POSSO:
        ints[b, BIDDER] = p
        ints[b, ANSWERS] = 0
        ints[b, CURRENT] = (p + 1) % n  # answers in play order from the bidder's right (U12)
    elif a == A_VA_BENE:
        ints[b, ANSWERS] += 1
        if ints[b, ANSWERS] < 2:
            ints[b, CURRENT] = (p + 1) % n
            return
        s = ints[b, BIDDER]
        ints[b, SOLOIST] = s
        ints[b, CONTRACT] = SU  # he goes up: the Pozzo joins his hand, then he discards 8
        for c in range(NUM_CARDS):
            if cards[b, PLACE, c] == PL_POZZO:
                cards[b, PLACE, c] = PL_HAND
                cards[b, HAND_OF, c] = s
        _start_discards(ints, seat_ints, cards, b, opts)
    else:  # DI_MIO by the speaker, or OPPOSE ("No! Faccio di mio") by an answerer
        ints[b, SOLOIST] = p
        ints[b, CONTRACT] = DI_MIO
        ints[b, PHASE] = PH_PREPARE


_auction = njit(_auction_py) or _auction_py


def _claim_py(ints, seat_ints, cards, b, a, opts):
    """A claim window's answer (§8.4). A claim ends the game: won when the value reaches
    the target, lost otherwise (only offered then with ``wrong_claim="loses"``)."""
    p = ints[b, CURRENT]
    window = ints[b, WINDOW]
    if a == A_CLAIM:
        ints[b, CLAIM_SEAT] = p
        side = _side(ints, b, p, opts)
        if ints[b, CLAIM_OK] == 1:
            ints[b, RESULT] = RS_CLAIMED
            ints[b, GAME_WINNER] = side
        else:
            ints[b, RESULT] = RS_WRONG_CLAIM
            ints[b, GAME_WINNER] = 1 - side
        ints[b, PHASE] = PH_SCORE
        return
    if window == W_PICKUP:
        _pickup(ints, seat_ints, cards, b, opts)
    elif window == W_AFTER_PICKUP:
        _start_discards(ints, seat_ints, cards, b, opts)
    else:
        _begin_turn(ints, seat_ints, b, opts)


_claim = njit(_claim_py) or _claim_py


def step_row_py(ints, seat_ints, cards, hist, legal, b, a, opts):
    """Apply the legal action ``a`` to row ``b`` and write the next mask. The caller checks
    legality (``legal[b, a]``) first, so a refused action changes nothing."""
    phase = ints[b, PHASE]
    if phase == PH_AUCTION:
        _auction(ints, seat_ints, cards, b, a, opts)
    elif phase == PH_CLAIM:
        _claim(ints, seat_ints, cards, b, a, opts)
    elif phase == PH_DECLARE:
        p = ints[b, CURRENT]
        if a == A_DECLARE:
            seat_ints[b, p, DECLARED] = seat_ints[b, p, DECL]
            for c in range(NUM_CARDS):  # the cards of his combinations are shown to the table (§7)
                if cards[b, COMBO, c] == 1 and cards[b, HAND_OF, c] == p:
                    cards[b, SHOWN, c] = 1
        ints[b, PHASE] = PH_PLAY
    elif phase == PH_DISCARD:
        c = a - AB_DISCARD
        p = ints[b, DISCARDER]
        cards[b, PLACE, c] = PL_DISCARD
        cards[b, HAND_OF, c] = -1
        cards[b, PILE_OF, c] = p  # the discard counts for the discarder's side (§5.3)
        ints[b, DISCARDS_LEFT] -= 1
        if ints[b, DISCARDS_LEFT] == 0:
            ints[b, DISCARD_STAGE] += 1
            _start_discards(ints, seat_ints, cards, b, opts)
    elif phase == PH_PLAY:
        c = a - AB_PLAY
        cards[b, HAND_OF, c] = -1
        _play(ints, seat_ints, cards, hist, b, c, opts)
    elif phase == PH_GIVE:
        _give(ints, cards, b, a - AB_GIVE)
    _set_legal(ints, seat_ints, cards, legal, b, opts)


step_row = njit(step_row_py, inline=True) or step_row_py


def step_rows_py(ints, seat_ints, cards, hist, legal, rows, actions, opts):
    """:func:`step_row` for each of ``rows`` with ``actions`` (legal, checked by the caller).
    Returns how many rows stopped in PREPARE or SCORE, for the NumPy code to finish."""
    pending = 0
    for i in range(rows.shape[0]):
        step_row(ints, seat_ints, cards, hist, legal, rows[i], actions[i], opts)
        ph = ints[rows[i], PHASE]
        if ph == PH_PREPARE or ph == PH_SCORE:
            pending += 1
    return pending


step_rows = njit(step_rows_py) or step_rows_py


def start_hands_py(ints, seat_ints, cards, legal, rows, opts):
    """:func:`start_hand` for each of ``rows``; returns how many stopped in PREPARE or SCORE."""
    pending = 0
    for i in range(rows.shape[0]):
        start_hand(ints, seat_ints, cards, legal, rows[i], opts)
        ph = ints[rows[i], PHASE]
        if ph == PH_PREPARE or ph == PH_SCORE:
            pending += 1
    return pending


start_hands = njit(start_hands_py) or start_hands_py


def start_plays_py(ints, seat_ints, cards, legal, rows, opts):
    """:func:`start_play` for each of ``rows``."""
    for i in range(rows.shape[0]):
        start_play(ints, seat_ints, cards, legal, rows[i], opts)


start_plays = njit(start_plays_py) or start_plays_py
