"""The compiled twin of :meth:`FrenchTarotEncoder.encode_numpy` (numba, optional).

Same layout, same values; ``tests/test_french_encoding.py`` checks that the two agree on
random states. The NumPy version is the reference and documents the layout; this loop
version exists only because building an observation from ~30 NumPy calls costs ~100 µs at
batch size 1, while this costs a few.
"""

from __future__ import annotations

import numpy as np

from tarot_env._jit import njit
from tarot_env.rules.french.state import COLUMN

# positions of the field offsets in the ``offsets`` argument (-1: field absent)
HAND, DECISION, DEALER, BIDS, TAKER, CONTRACT, CALLED, PARTNER, ALONE, CHIEN, ECART, CHELEM = range(12)
POIGNEE, POIGNEE_CARDS, PLAYED, TRICK, LEADERS, WINNERS = range(12, 18)
NUM_OFFSETS = 18
_DONE, _BID, _PLAY = 7, 0, 6
# columns of the state's fields in their blocks (FrenchTarotState.blocks)
I_PHASE, I_CURRENT, I_DEALER, I_TAKER = COLUMN["phase"], COLUMN["current"], COLUMN["dealer"], COLUMN["taker"]
I_CONTRACT, I_CALLED, I_PARTNER = COLUMN["contract"], COLUMN["called"], COLUMN["partner"]
F_PARTNER_KNOWN, F_CHIEN_SEEN, F_CHELEM = COLUMN["partner_known"], COLUMN["chien_seen"], COLUMN["chelem"]
J_BIDS, J_POIGNEE, J_TRICK = COLUMN["bids"], COLUMN["poignee"], COLUMN["trick"]
S_HANDS, S_PLAYED, S_POIGNEE_CARDS = COLUMN["hands"], COLUMN["played"], COLUMN["poignee_cards"]
K_CHIEN, K_ECART = COLUMN["chien"], COLUMN["ecart"]
H_LEADERS, H_WINNERS = COLUMN["leaders"], COLUMN["winners"]


def _encode(out, rows, viewers, offsets, n, ints, flags, seat_ints, seat_cards, card_flags, history, is_trump, call_slot):
    C = seat_cards.shape[3]
    T = history.shape[2]
    for i in range(rows.shape[0]):
        b = rows[i]
        v = viewers[i]
        o = out[i]
        hand = seat_cards[b, S_HANDS, v]
        for c in range(C):
            o[offsets[HAND] + c] = hand[c]
        ph = ints[b, I_PHASE]
        if ints[b, I_CURRENT] == v and ph != _DONE:
            o[offsets[DECISION] + min(ph, _PLAY)] = 1
        o[offsets[DEALER] + (ints[b, I_DEALER] - v) % n] = 1
        tk = ints[b, I_TAKER]
        if tk >= 0:
            o[offsets[TAKER] + (tk - v) % n] = 1
        contract = ints[b, I_CONTRACT]
        if ph != _BID and contract > 0:
            o[offsets[CONTRACT] + contract - 1] = 1
        if offsets[CALLED] >= 0:
            cc = ints[b, I_CALLED]
            if cc >= 0:
                o[offsets[CALLED] + call_slot[cc]] = 1
                knows = flags[b, F_PARTNER_KNOWN] or hand[cc] or seat_cards[b, S_PLAYED, v, cc]
                if knows:
                    partner = ints[b, I_PARTNER]
                    if partner >= 0:
                        o[offsets[PARTNER] + (partner - v) % n] = 1
                    else:
                        o[offsets[ALONE]] = 1
        if flags[b, F_CHIEN_SEEN]:
            for c in range(C):
                o[offsets[CHIEN] + c] = card_flags[b, K_CHIEN, c]
        mine = tk == v
        for c in range(C):
            if card_flags[b, K_ECART, c] and (mine or is_trump[c]):
                o[offsets[ECART] + c] = 1
        o[offsets[CHELEM]] = flags[b, F_CHELEM]
        for k in range(n):
            seat = (v + k) % n
            bid = seat_ints[b, J_BIDS, seat]
            if bid >= 0:
                o[offsets[BIDS] + 5 * k + bid] = 1
            pg = seat_ints[b, J_POIGNEE, seat]
            if pg > 0:
                o[offsets[POIGNEE] + 3 * k + pg - 1] = 1
            for c in range(C):
                o[offsets[POIGNEE_CARDS] + C * k + c] = seat_cards[b, S_POIGNEE_CARDS, seat, c]
                o[offsets[PLAYED] + C * k + c] = seat_cards[b, S_PLAYED, seat, c]
            card = seat_ints[b, J_TRICK, seat]
            if card >= 0:
                o[offsets[TRICK] + C * k + card] = 1
        for t in range(T):
            leader = history[b, H_LEADERS, t]
            if leader >= 0:
                o[offsets[LEADERS] + n * t + (leader - v) % n] = 1
            winner = history[b, H_WINNERS, t]
            if winner >= 0:
                o[offsets[WINNERS] + n * t + (winner - v) % n] = 1


encode_kernel = njit(_encode)


def offsets_array(fields: dict) -> np.ndarray:
    names = ["hand", "decision", "dealer", "bids", "taker", "contract", "called", "partner", "alone", "chien", "ecart",
             "chelem", "poignee", "poignee_cards", "played", "trick", "leaders", "winners"]  # fmt: skip
    return np.array([fields[k].offset if k in fields else -1 for k in names], dtype=np.int64)
