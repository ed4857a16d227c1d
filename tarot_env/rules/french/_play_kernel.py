"""Compiled twins (numba, optional) of the play phase: :mod:`tarot_env.rules.french.play`.

``play.py`` is the reference: it states each rule once, in NumPy, and runs when numba is
absent (or ``TAROT_ENV_JIT=0``, or ``FrenchTarotGame(use_jit=False)``). These loops do the
same thing row by row, because at batch size 1 the ~100 NumPy calls of a card play cost
~150 µs while this costs a few. ``tests/test_kernels.py`` plays thousands of random deals
through both and compares every state field after every action.
"""

from __future__ import annotations

import numpy as np

from tarot_env._jit import njit
from tarot_env.cards.deck import EXCUSE_SUIT, TRUMP_SUIT


def _is_attack_py(seat, taker, partner):
    return seat >= 0 and (seat == taker or seat == partner)  # noqa: SIM109 (plain comparisons for numba)


_is_attack = njit(_is_attack_py) or _is_attack_py


def _legal_cards_py(out, b, hands, current, lead_suit, top_trump, trick_no, trick_size, called, suit, strength, n,
                    opening_next_player, excuse_if_held, excuse):  # fmt: skip
    """play.play_mask for row ``b``, written into ``out`` (C,): the shared duties
    (tricks.legal_plays) and §10's opening lead."""
    C = hands.shape[2]
    p = current[b]
    led = lead_suit[b]
    top = top_trump[b]
    if led < 0:
        for c in range(C):
            out[c] = hands[b, p, c]
    else:
        n_follow = n_trump = n_higher = 0
        for c in range(C):
            if hands[b, p, c]:
                if suit[c] == led and led < TRUMP_SUIT:
                    n_follow += 1
                if suit[c] == TRUMP_SUIT:
                    n_trump += 1
                    if strength[c] > top:
                        n_higher += 1
        for c in range(C):
            if not hands[b, p, c]:
                out[c] = False
            elif suit[c] == EXCUSE_SUIT:
                out[c] = True
            elif n_follow > 0:
                out[c] = suit[c] == led
            elif n_trump > 0:
                out[c] = suit[c] == TRUMP_SUIT and (n_higher == 0 or strength[c] > top)
            else:
                out[c] = True
    # §10: trick 1 may not be opened in the called suit, except with the called card
    if n == 5 and trick_no[b] == 0 and led < 0 and (opening_next_player or trick_size[b] == 0):
        cc = called[b]
        banned_suit = suit[cc]
        others = 0
        for c in range(C):
            if out[c] and suit[c] == banned_suit and c != cc:
                out[c] = False
            if out[c] and c != excuse:
                others += 1
        if others == 0:  # nothing but the called suit (and perhaps the Excuse)
            if excuse_if_held and hands[b, p, excuse]:
                for c in range(C):
                    out[c] = c == excuse
            else:
                for c in range(C):
                    out[c] = hands[b, p, c]


_legal_cards = njit(_legal_cards_py) or _legal_cards_py


def _play_mask(rows, hands, current, lead_suit, top_trump, trick_no, trick_size, called, suit, strength,
               n, opening_next_player, excuse_if_held, excuse):  # fmt: skip
    """play.play_mask: (R, C) legal cards of the seat to act."""
    out = np.zeros((rows.shape[0], hands.shape[2]), dtype=np.bool_)
    for i in range(rows.shape[0]):
        _legal_cards(out[i], rows[i], hands, current, lead_suit, top_trump, trick_no, trick_size, called, suit, strength,
                     n, opening_next_player, excuse_if_held, excuse)  # fmt: skip
    return out


def _play_cards(rows, cards, hands, played, trick, trick_of, lead_suit, top_trump, best_key, best_seat, trick_size,
                current, partner_known, called, excuse_seat, trick_no, leader, leaders, winners, pile, exchange, taker,
                partner, chelem, suit, strength, n, num_tricks, excuse, needs_announcement, excuse_chelem_defence,
                changes_camp, legal, opening_next_player, excuse_if_held):  # fmt: skip
    """play.apply_play then play.complete_trick, then the next seat's legal cards into ``legal``.

    Returns a status per row: 0 done (``legal`` is up to date), 1 the deal is over, 2 still in
    trick 1 (the next seat may have a poignée to declare first: the caller decides)."""
    R = rows.shape[0]
    status = np.zeros(R, dtype=np.int8)
    for i in range(R):
        b = rows[i]
        c = cards[i]
        p = current[b]
        # apply_play
        hands[b, p, c] = False
        played[b, p, c] = True
        trick[b, p] = c
        trick_of[b, c] = trick_no[b]
        su = suit[c]
        if lead_suit[b] < 0 and su != EXCUSE_SUIT:
            lead_suit[b] = su
        key = strength[c] if (su == TRUMP_SUIT or su == lead_suit[b]) else -1
        if su == TRUMP_SUIT and strength[c] > top_trump[b]:
            top_trump[b] = strength[c]
        if key > best_key[b]:
            best_key[b] = key
            best_seat[b] = p
        if called[b] >= 0 and c == called[b]:
            partner_known[b] = True
        if c == excuse:
            excuse_seat[b] = p
        trick_size[b] += 1
        current[b] = (p + 1) % n
        if trick_size[b] < n:
            status[i] = 2 if trick_no[b] == 0 else 0
            if status[i] == 0:
                _next_legal(legal, b, hands, current, lead_suit, top_trump, trick_no, trick_size, called, suit, strength, n,
                            opening_next_player, excuse_if_held, excuse)  # fmt: skip
            continue
        # complete_trick
        t = trick_no[b]
        winner = best_seat[b]
        tk = taker[b]
        pt = partner[b]
        ex_seat = excuse_seat[b]
        excuse_here = ex_seat >= 0 and trick_of[b, excuse] == t
        last = t == num_tricks - 1
        if excuse_here and last:
            ex_attack = _is_attack(ex_seat, tk, pt)
            attack_tricks = 0
            for k in range(num_tricks - 1):
                if _is_attack(winners[b, k], tk, pt):
                    attack_tricks += 1
            won_all = attack_tricks == num_tricks - 1 if ex_attack else attack_tricks == 0
            if needs_announcement:
                won_all = won_all and ex_attack and chelem[b]
            if not excuse_chelem_defence:
                won_all = won_all and ex_attack
            if won_all:
                winner = ex_seat
        winners[b, t] = winner
        leaders[b, t] = leader[b]
        for s in range(n):
            pile[b, trick[b, s]] = winner
        if excuse_here:
            owner_attack = _is_attack(ex_seat, tk, pt)
            winner_attack = _is_attack(winner, tk, pt)
            lost_last = last and winner != ex_seat
            if lost_last:
                if changes_camp:
                    if owner_attack:
                        seat = (tk + n // 2) % n
                        pile[b, excuse] = (seat + 1) % n if seat == pt else seat
                    else:
                        pile[b, excuse] = tk
                else:
                    pile[b, excuse] = winner
            else:
                pile[b, excuse] = ex_seat
                if owner_attack != winner_attack:
                    exchange[b] += 1 if winner_attack else -1
        for s in range(n):
            trick[b, s] = -1
        trick_size[b] = 0
        trick_no[b] = t + 1
        leader[b] = winner
        current[b] = winner
        lead_suit[b] = -1
        top_trump[b] = 0
        best_key[b] = -1
        best_seat[b] = -1
        if t + 1 == num_tricks:
            status[i] = 1
        else:
            _next_legal(legal, b, hands, current, lead_suit, top_trump, trick_no, trick_size, called, suit, strength, n,
                        opening_next_player, excuse_if_held, excuse)  # fmt: skip
    return status


def _next_legal_py(legal, b, hands, current, lead_suit, top_trump, trick_no, trick_size, called, suit, strength, n,
                   opening_next_player, excuse_if_held, excuse):  # fmt: skip
    """The row's legal actions: its play span (ids 0..C-1) from the cards, nothing else."""
    C = hands.shape[2]
    for a in range(C, legal.shape[1]):
        legal[b, a] = False
    _legal_cards(legal[b, :C], b, hands, current, lead_suit, top_trump, trick_no, trick_size, called, suit, strength, n,
                 opening_next_player, excuse_if_held, excuse)  # fmt: skip


_next_legal = njit(_next_legal_py) or _next_legal_py


play_mask_kernel = njit(_play_mask)
play_cards_kernel = njit(_play_cards)
