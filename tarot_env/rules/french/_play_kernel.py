"""Compiled twins (numba, optional) of the play phase: :mod:`tarot_env.rules.french.play`.

``play.py`` is the reference: it states each rule once, in NumPy, and runs when numba is
absent (or ``TAROT_ENV_JIT=0``, or ``FrenchTarotGame(use_jit=False)``). These loops do the
same thing row by row, because at batch size 1 the ~100 NumPy calls of a card play cost
~150 µs while this costs a few. ``tests/test_kernels.py`` plays thousands of random deals
through both and compares every state field after every action.

The kernels read and write the state's blocks (``FrenchTarotState.blocks``); the names in
capitals are the columns of the fields in their block.
"""

from __future__ import annotations

import numpy as np

from tarot_env._jit import njit
from tarot_env.cards.deck import EXCUSE_SUIT, TRUMP_SUIT
from tarot_env.cards.french import EXCUSE as EXCUSE_ID
from tarot_env.cards.french import PETIT, RANKS
from tarot_env.rules.french.state import COLUMN

# ints
CURRENT, CALLED, TAKER, PARTNER = COLUMN["current"], COLUMN["called"], COLUMN["taker"], COLUMN["partner"]
TRICK_SIZE, TRICK_NO, LEADER, LEAD_SUIT = COLUMN["trick_size"], COLUMN["trick_no"], COLUMN["leader"], COLUMN["lead_suit"]
TOP_TRUMP, BEST_KEY, BEST_SEAT = COLUMN["top_trump"], COLUMN["best_key"], COLUMN["best_seat"]
EXCUSE_SEAT, EXCHANGE = COLUMN["excuse_seat"], COLUMN["exchange"]
# flags, seat_ints, seat_cards, card_ints, history
PARTNER_KNOWN, CHELEM = COLUMN["partner_known"], COLUMN["chelem"]
TRICK = COLUMN["trick"]
HANDS, PLAYED = COLUMN["hands"], COLUMN["played"]
TRICK_OF, PILE = COLUMN["trick_of"], COLUMN["pile"]
LEADERS, WINNERS = COLUMN["leaders"], COLUMN["winners"]
# the French id ranges (cards/french.py): one range a suit, then the trumps from the Petit, then the Excuse
SUIT_SIZE, FIRST_TRUMP = len(RANKS), PETIT
# the ``opts`` argument
N, NUM_TRICKS, EXCUSE, NEEDS_ANNOUNCEMENT, EXCUSE_CHELEM_DEFENCE, CHANGES_CAMP, OPENING_NEXT_PLAYER, EXCUSE_IF_HELD = range(8)


def play_options(game) -> np.ndarray:
    """The ``opts`` argument of the kernels for a game (player count, tricks, rule options)."""
    c = game.config
    return np.array(
        [
            game.num_players,
            game.num_tricks,
            EXCUSE_ID,
            c.excuse_chelem_needs_announcement,
            c.excuse_chelem_defence,
            c.excuse_last_trick == "changes_camp",
            c.excuse_opening_lead == "next_player",
            c.called_suit_only_hand == "excuse_if_held",
        ],
        dtype=np.int64,
    )


def _is_attack_py(seat, taker, partner):
    return seat >= 0 and (seat == taker or seat == partner)  # noqa: SIM109 (plain comparisons for numba)


_is_attack = njit(_is_attack_py, inline=True) or _is_attack_py


def _legal_cards_py(out, b, ints, seat_cards, suit, strength, opts):
    """play.play_mask for row ``b``, written into ``out`` (C,): the shared duties
    (tricks.legal_plays) and §10's opening lead."""
    C = out.shape[0]
    p = ints[b, CURRENT]
    led = ints[b, LEAD_SUIT]
    top = ints[b, TOP_TRUMP]
    hand = seat_cards[b, HANDS, p]
    if led < 0:
        for c in range(C):
            out[c] = hand[c]
    else:
        # The French ids put each suit in one range (14 cards a suit, the trumps 56-76 in
        # rising order, the Excuse 77: cards/french.py), so only the ranges that matter are read.
        for c in range(C):
            out[c] = False
        excuse = opts[EXCUSE]
        out[excuse] = hand[excuse]
        n_follow = 0
        if led < TRUMP_SUIT:
            for c in range(led * SUIT_SIZE, (led + 1) * SUIT_SIZE):
                n_follow += hand[c]
        if n_follow > 0:
            for c in range(led * SUIT_SIZE, (led + 1) * SUIT_SIZE):
                out[c] = hand[c]
        else:
            n_trump = 0
            n_higher = 0
            for c in range(FIRST_TRUMP, excuse):  # no branch: compiled, a few vector instructions
                n_trump += hand[c]
                n_higher += hand[c] & (strength[c] > top)
            if n_trump == 0:
                for c in range(C):
                    out[c] = hand[c]
            else:
                for c in range(FIRST_TRUMP, excuse):
                    out[c] = hand[c] & ((n_higher == 0) | (strength[c] > top))
    # §10: trick 1 may not be opened in the called suit, except with the called card
    if opts[N] == 5 and ints[b, TRICK_NO] == 0 and led < 0 and (opts[OPENING_NEXT_PLAYER] or ints[b, TRICK_SIZE] == 0):
        cc = ints[b, CALLED]
        excuse = opts[EXCUSE]
        banned_suit = suit[cc]
        others = 0
        for c in range(C):
            if out[c] and suit[c] == banned_suit and c != cc:
                out[c] = False
            if out[c] and c != excuse:
                others += 1
        if others == 0:  # nothing but the called suit (and perhaps the Excuse)
            if opts[EXCUSE_IF_HELD] and hand[excuse]:
                for c in range(C):
                    out[c] = c == excuse
            else:
                for c in range(C):
                    out[c] = hand[c]


_legal_cards = njit(_legal_cards_py, inline=True) or _legal_cards_py


def _play_mask(rows, ints, seat_cards, suit, strength, opts):
    """play.play_mask: (R, C) legal cards of the seat to act."""
    out = np.zeros((rows.shape[0], seat_cards.shape[3]), dtype=np.bool_)
    for i in range(rows.shape[0]):
        _legal_cards(out[i], rows[i], ints, seat_cards, suit, strength, opts)
    return out


def _play_cards(rows, cards, ints, flags, seat_ints, seat_cards, card_ints, history, legal, poignee_todo, suit, strength, opts):
    """play.apply_play then play.complete_trick, then the next seat's legal cards into ``legal``.

    Returns a status per row: 0 done (``legal`` is up to date), 1 the deal is over, 2 still in
    trick 1 and the next seat may declare a poignée first (``poignee_todo``: the caller moves
    the row to that decision, FrenchTarotGame._to_turn). In trick 1, a next seat with no
    poignée to declare plays at once: its legal cards are written here, as in later tricks."""
    n = opts[N]
    num_tricks = opts[NUM_TRICKS]
    excuse = opts[EXCUSE]
    status = np.zeros(rows.shape[0], dtype=np.int8)
    for i in range(rows.shape[0]):
        b = rows[i]
        c = cards[i]
        p = ints[b, CURRENT]
        t = ints[b, TRICK_NO]
        # apply_play
        seat_cards[b, HANDS, p, c] = False
        seat_cards[b, PLAYED, p, c] = True
        seat_ints[b, TRICK, p] = c
        card_ints[b, TRICK_OF, c] = t
        su = suit[c]
        if ints[b, LEAD_SUIT] < 0 and su != EXCUSE_SUIT:
            ints[b, LEAD_SUIT] = su
        key = strength[c] if (su == TRUMP_SUIT or su == ints[b, LEAD_SUIT]) else -1
        if su == TRUMP_SUIT and strength[c] > ints[b, TOP_TRUMP]:
            ints[b, TOP_TRUMP] = strength[c]
        if key > ints[b, BEST_KEY]:
            ints[b, BEST_KEY] = key
            ints[b, BEST_SEAT] = p
        if ints[b, CALLED] >= 0 and c == ints[b, CALLED]:
            flags[b, PARTNER_KNOWN] = True
        if c == excuse:
            ints[b, EXCUSE_SEAT] = p
        ints[b, TRICK_SIZE] += 1
        ints[b, CURRENT] = (p + 1) % n
        if ints[b, TRICK_SIZE] < n:
            if t == 0 and poignee_todo[b, ints[b, CURRENT]]:
                status[i] = 2
            else:
                _next_legal(legal, b, ints, seat_cards, suit, strength, opts)
            continue
        # complete_trick
        winner = ints[b, BEST_SEAT]
        tk = ints[b, TAKER]
        pt = ints[b, PARTNER]
        ex_seat = ints[b, EXCUSE_SEAT]
        excuse_here = ex_seat >= 0 and card_ints[b, TRICK_OF, excuse] == t
        last = t == num_tricks - 1
        if excuse_here and last:
            ex_attack = _is_attack(ex_seat, tk, pt)
            attack_tricks = 0
            for k in range(num_tricks - 1):
                if _is_attack(history[b, WINNERS, k], tk, pt):
                    attack_tricks += 1
            won_all = attack_tricks == num_tricks - 1 if ex_attack else attack_tricks == 0
            if opts[NEEDS_ANNOUNCEMENT]:
                won_all = won_all and ex_attack and flags[b, CHELEM]
            if not opts[EXCUSE_CHELEM_DEFENCE]:
                won_all = won_all and ex_attack
            if won_all:
                winner = ex_seat
        history[b, WINNERS, t] = winner
        history[b, LEADERS, t] = ints[b, LEADER]
        for s in range(n):
            card_ints[b, PILE, seat_ints[b, TRICK, s]] = winner
        if excuse_here:
            owner_attack = _is_attack(ex_seat, tk, pt)
            winner_attack = _is_attack(winner, tk, pt)
            if last and winner != ex_seat:  # played to the last trick, not a winning chelem Excuse
                if not opts[CHANGES_CAMP]:
                    card_ints[b, PILE, excuse] = winner
                elif owner_attack:
                    seat = (tk + n // 2) % n
                    card_ints[b, PILE, excuse] = (seat + 1) % n if seat == pt else seat
                else:
                    card_ints[b, PILE, excuse] = tk
            else:
                card_ints[b, PILE, excuse] = ex_seat
                if owner_attack != winner_attack:
                    ints[b, EXCHANGE] += 1 if winner_attack else -1
        for s in range(n):
            seat_ints[b, TRICK, s] = -1
        ints[b, TRICK_SIZE] = 0
        ints[b, TRICK_NO] = t + 1
        ints[b, LEADER] = winner
        ints[b, CURRENT] = winner
        ints[b, LEAD_SUIT] = -1
        ints[b, TOP_TRUMP] = 0
        ints[b, BEST_KEY] = -1
        ints[b, BEST_SEAT] = -1
        if t + 1 == num_tricks:
            status[i] = 1
        else:
            _next_legal(legal, b, ints, seat_cards, suit, strength, opts)
    return status


def _next_legal_py(legal, b, ints, seat_cards, suit, strength, opts):
    """The row's legal actions: its play span (ids 0..C-1) from the cards. The rest of the
    row is already False: the row was in the play phase, whose mask has nothing else."""
    _legal_cards(legal[b, : seat_cards.shape[3]], b, ints, seat_cards, suit, strength, opts)


_next_legal = njit(_next_legal_py, inline=True) or _next_legal_py

play_mask_kernel = njit(_play_mask)
play_cards_kernel = njit(_play_cards)
