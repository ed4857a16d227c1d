"""The compiled twin of :meth:`FrenchTarotEncoder.encode_numpy` (numba, optional).

Same layout, same values; ``tests/test_french_encoding.py`` checks that the two agree on
random states. The NumPy version is the reference and documents the layout; this loop
version exists only because building an observation from ~30 NumPy calls costs ~100 µs at
batch size 1, while this costs a few.
"""

from __future__ import annotations

import numpy as np

from tarot_env._jit import njit

# positions of the field offsets in the ``offsets`` argument (-1: field absent)
HAND, DECISION, DEALER, BIDS, TAKER, CONTRACT, CALLED, PARTNER, ALONE, CHIEN, ECART, CHELEM = range(12)
POIGNEE, POIGNEE_CARDS, PLAYED, TRICK, LEADERS, WINNERS = range(12, 18)
NUM_OFFSETS = 18
_DONE, _BID, _PLAY = 7, 0, 6


def _encode(out, rows, viewers, offsets, n, hands, phase, current, dealer, bids, taker, contract, called, partner,
            partner_known, chien, chien_seen, ecart, chelem, poignee, poignee_cards, played, trick, leaders, winners,
            is_trump, call_slot):  # fmt: skip
    C = hands.shape[2]
    T = leaders.shape[1]
    for i in range(rows.shape[0]):
        b = rows[i]
        v = viewers[i]
        o = out[i]
        for c in range(C):
            o[offsets[HAND] + c] = hands[b, v, c]
        ph = phase[b]
        if current[b] == v and ph != _DONE:
            o[offsets[DECISION] + min(ph, _PLAY)] = 1
        o[offsets[DEALER] + (dealer[b] - v) % n] = 1
        tk = taker[b]
        if tk >= 0:
            o[offsets[TAKER] + (tk - v) % n] = 1
        if ph != _BID and contract[b] > 0:
            o[offsets[CONTRACT] + contract[b] - 1] = 1
        if offsets[CALLED] >= 0:
            cc = called[b]
            if cc >= 0:
                o[offsets[CALLED] + call_slot[cc]] = 1
                knows = partner_known[b] or hands[b, v, cc] or played[b, v, cc]
                if knows:
                    if partner[b] >= 0:
                        o[offsets[PARTNER] + (partner[b] - v) % n] = 1
                    else:
                        o[offsets[ALONE]] = 1
        if chien_seen[b]:
            for c in range(C):
                o[offsets[CHIEN] + c] = chien[b, c]
        mine = tk == v
        for c in range(C):
            if ecart[b, c] and (mine or is_trump[c]):
                o[offsets[ECART] + c] = 1
        o[offsets[CHELEM]] = chelem[b]
        for k in range(n):
            seat = (v + k) % n
            bid = bids[b, seat]
            if bid >= 0:
                o[offsets[BIDS] + 5 * k + bid] = 1
            pg = poignee[b, seat]
            if pg > 0:
                o[offsets[POIGNEE] + 3 * k + pg - 1] = 1
            for c in range(C):
                o[offsets[POIGNEE_CARDS] + C * k + c] = poignee_cards[b, seat, c]
                o[offsets[PLAYED] + C * k + c] = played[b, seat, c]
            card = trick[b, seat]
            if card >= 0:
                o[offsets[TRICK] + C * k + card] = 1
        for t in range(T):
            if leaders[b, t] >= 0:
                o[offsets[LEADERS] + n * t + (leaders[b, t] - v) % n] = 1
            if winners[b, t] >= 0:
                o[offsets[WINNERS] + n * t + (winners[b, t] - v) % n] = 1


encode_kernel = njit(_encode)


def offsets_array(fields: dict) -> np.ndarray:
    names = ["hand", "decision", "dealer", "bids", "taker", "contract", "called", "partner", "alone", "chien", "ecart",
             "chelem", "poignee", "poignee_cards", "played", "trick", "leaders", "winners"]  # fmt: skip
    return np.array([fields[k].offset if k in fields else -1 for k in names], dtype=np.int64)
