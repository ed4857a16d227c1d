"""The compiled twin of :meth:`FrenchTarotEncoder.encode_numpy` (numba, optional).

Same layout, same values; ``tests/test_french_encoding.py`` checks that the two agree on
random states. The NumPy version is the reference and documents the layout; this loop
version exists only because building an observation from ~30 NumPy calls costs ~100 µs at
batch size 1, while this costs a few.
"""

from __future__ import annotations

import numpy as np

from tarot_env._jit import njit
from tarot_env.cards.french import IS_TRUMP, PETIT
from tarot_env.rules.french.state import COLUMN

# positions of the field offsets in the ``offsets`` argument (-1: field absent)
HAND, DECISION, DEALER, BIDS, TAKER, CONTRACT, CALLED, PARTNER, ALONE, CHIEN, ECART, CHELEM = range(12)
POIGNEE, POIGNEE_CARDS, PLAYED, TRICK, LEADERS, WINNERS = range(12, 18)
NUM_OFFSETS = 18
_DONE, _BID, _PLAY = 7, 0, 6
# the trumps are one range of ids from the Petit (cards/french.py)
FIRST_TRUMP, N_TRUMPS = PETIT, int(IS_TRUMP.sum())
# columns of the state's fields in their blocks (FrenchTarotState.blocks)
I_PHASE, I_CURRENT, I_DEALER, I_TAKER = COLUMN["phase"], COLUMN["current"], COLUMN["dealer"], COLUMN["taker"]
I_CONTRACT, I_CALLED, I_PARTNER = COLUMN["contract"], COLUMN["called"], COLUMN["partner"]
F_PARTNER_KNOWN, F_CHIEN_SEEN, F_CHELEM = COLUMN["partner_known"], COLUMN["chien_seen"], COLUMN["chelem"]
J_BIDS, J_POIGNEE, J_TRICK = COLUMN["bids"], COLUMN["poignee"], COLUMN["trick"]
S_HANDS, S_PLAYED, S_POIGNEE_CARDS = COLUMN["hands"], COLUMN["played"], COLUMN["poignee_cards"]
K_CHIEN, K_ECART = COLUMN["chien"], COLUMN["ecart"]
H_LEADERS, H_WINNERS = COLUMN["leaders"], COLUMN["winners"]


def _rel(seat, viewer, n):
    """The relative slot of ``seat`` seen from ``viewer`` ((seat - viewer) mod n, seat >= 0)."""
    r = seat - viewer
    return r + n if r < 0 else r


_rel_jit = njit(_rel, inline=True) or _rel


def _copy_py(dst, src):
    """``dst[:] = src`` for a destination slice: a plain loop over ``range`` that LLVM turns
    into vector instructions. Indexing the whole row with ``o[offset + c]`` instead kept the
    copies scalar (numba must allow a negative index there), which cost ~0.3 µs per row."""
    for c in range(dst.shape[0]):
        dst[c] = src[c]


_copy = njit(_copy_py, inline=True) or _copy_py


def _encode(out, rows, viewers, offsets, n, ints, flags, seat_ints, seat_cards, card_flags, history, is_trump, call_slot):
    C = seat_cards.shape[3]
    T = history.shape[2]
    # offsets as locals: read once, so that the inner copy loops can be vectorised
    o_hand, o_decision, o_dealer, o_bids = offsets[HAND], offsets[DECISION], offsets[DEALER], offsets[BIDS]
    o_taker, o_contract, o_called, o_partner = offsets[TAKER], offsets[CONTRACT], offsets[CALLED], offsets[PARTNER]
    o_alone, o_chien, o_ecart, o_chelem = offsets[ALONE], offsets[CHIEN], offsets[ECART], offsets[CHELEM]
    o_poignee, o_poignee_cards, o_played = offsets[POIGNEE], offsets[POIGNEE_CARDS], offsets[PLAYED]
    o_trick, o_leaders, o_winners = offsets[TRICK], offsets[LEADERS], offsets[WINNERS]
    for i in range(rows.shape[0]):
        b = rows[i]
        v = viewers[i]
        o = out[i]
        o[:] = 0  # here rather than np.zeros: the row is zeroed while it is in cache
        hand = seat_cards[b, S_HANDS, v]
        _copy(o[o_hand : o_hand + C], hand)
        ph = ints[b, I_PHASE]
        if ints[b, I_CURRENT] == v and ph != _DONE:
            o[o_decision + min(ph, _PLAY)] = 1
        o[o_dealer + _rel_jit(ints[b, I_DEALER], v, n)] = 1
        tk = ints[b, I_TAKER]
        if tk >= 0:
            o[o_taker + _rel_jit(tk, v, n)] = 1
        contract = ints[b, I_CONTRACT]
        if ph != _BID and contract > 0:
            o[o_contract + contract - 1] = 1
        if o_called >= 0:
            cc = ints[b, I_CALLED]
            if cc >= 0:
                o[o_called + call_slot[cc]] = 1
                knows = flags[b, F_PARTNER_KNOWN] or hand[cc] or seat_cards[b, S_PLAYED, v, cc]
                if knows:
                    partner = ints[b, I_PARTNER]
                    if partner >= 0:
                        o[o_partner + _rel_jit(partner, v, n)] = 1
                    else:
                        o[o_alone] = 1
        if flags[b, F_CHIEN_SEEN]:
            _copy(o[o_chien : o_chien + C], card_flags[b, K_CHIEN])
        ecart = card_flags[b, K_ECART]
        if tk == v:
            _copy(o[o_ecart : o_ecart + C], ecart)
        else:  # the others see the écart's trumps only (the row is zero elsewhere)
            at = o_ecart + FIRST_TRUMP
            _copy(o[at : at + N_TRUMPS], ecart[FIRST_TRUMP : FIRST_TRUMP + N_TRUMPS])
        o[o_chelem] = flags[b, F_CHELEM]
        for k in range(n):
            seat = v + k
            if seat >= n:
                seat -= n
            bid = seat_ints[b, J_BIDS, seat]
            if bid >= 0:
                o[o_bids + 5 * k + bid] = 1
            pg = seat_ints[b, J_POIGNEE, seat]
            if pg > 0:  # a seat without a poignée has shown no card: its block stays zero
                o[o_poignee + 3 * k + pg - 1] = 1
                base = o_poignee_cards + C * k
                _copy(o[base : base + C], seat_cards[b, S_POIGNEE_CARDS, seat])
            base = o_played + C * k
            _copy(o[base : base + C], seat_cards[b, S_PLAYED, seat])
            card = seat_ints[b, J_TRICK, seat]
            if card >= 0:
                o[o_trick + C * k + card] = 1
        for t in range(T):
            leader = history[b, H_LEADERS, t]
            if leader < 0:
                break  # tricks are recorded in order: the rest are still to come
            o[o_leaders + n * t + _rel_jit(leader, v, n)] = 1
            o[o_winners + n * t + _rel_jit(history[b, H_WINNERS, t], v, n)] = 1


encode_kernel = njit(_encode)


def offsets_array(fields: dict) -> np.ndarray:
    names = ["hand", "decision", "dealer", "bids", "taker", "contract", "called", "partner", "alone", "chien", "ecart",
             "chelem", "poignee", "poignee_cards", "played", "trick", "leaders", "winners"]  # fmt: skip
    return np.array([fields[k].offset if k in fields else -1 for k in names], dtype=np.int64)
