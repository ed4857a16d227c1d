"""Terziglio's auction and its Pozzo (docs/rules/tarocchino.md §10.3, U12, U25).

- **The auction** (:func:`_auction`): from the receiver, on the dealer's right (§10.1), each
  player in turn passes (*passo*), asks to go up with the Pozzo (*posso*), or plays alone with
  his own cards (*faccio di mio*). A *posso* is answered by the two others in play order from the
  bidder's right (U12): both *va bene*, and the bidder takes the Pozzo and discards 8
  (:mod:`.discards`); a *no, faccio di mio* makes the answerer the soloist, alone. A passed player
  may still oppose (U12); three passes throw the deal in (the next dealer deals, U12).
- **The unused Pozzo** (:func:`_unused_pozzo`): after a *di mio* hand it goes, unseen, to the
  pile of the last trick's winner, before the Matto exchange, which is then made on the final
  piles (U25; the exchange is :mod:`.matto`'s).

Which seat is the soloist and the contract (``scoring.SU``, ``scoring.DI_MIO``) are the fields
``soloist`` and ``contract``; the stakes are scored by :mod:`.scoring` (§10.6). Each function works
on one row ``b`` of the state's blocks (:mod:`.state`), compiled by numba when it is on.
"""

from __future__ import annotations

from tarot_env._jit import kernel
from tarot_env.cards.bolognese import NUM_CARDS
from tarot_env.rules.bolognese.discards import _start_discards
from tarot_env.rules.bolognese.scoring import DI_MIO, SU
from tarot_env.rules.bolognese.state import (
    A_DI_MIO,
    A_OPPOSE,
    A_PASS,
    A_POSSO,
    A_VA_BENE,
    ANSWERS,
    BIDDER,
    CONTRACT,
    CURRENT,
    HAND_OF,
    O_N,
    PASSES,
    PH_PREPARE,
    PH_SCORE,
    PHASE,
    PILE_OF,
    PL_HAND,
    PL_POZZO,
    PLACE,
    RESULT,
    RS_THROWN_IN,
    SOLOIST,
    SPEAKER,
)


@kernel(inline=True)
def _auction_legal(ints, row, b):
    """The words a player may say: with no bid yet, pass, posso or di mio; to a posso, va
    bene or "no, faccio di mio"."""
    if ints[b, BIDDER] < 0:
        row[A_PASS] = True
        row[A_POSSO] = True
        row[A_DI_MIO] = True
    else:
        row[A_VA_BENE] = True
        row[A_OPPOSE] = True


@kernel
def _auction(ints, seat_ints, cards, b, a, opts):
    """Terziglio's auction (§10.3, U12): one word by the player to speak."""
    p = ints[b, CURRENT]
    n = opts[O_N]
    if a == A_PASS:
        ints[b, PASSES] += 1
        if ints[b, PASSES] == n:
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
        if ints[b, ANSWERS] < n - 1:  # the other answerer has still to speak
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


@kernel(inline=True)
def _unused_pozzo(ints, cards, b, w):
    """§10.3, U25: after a *di mio* hand the unused Pozzo goes, unseen, to the pile of ``w``,
    the last trick's winner (its cards keep PL_POZZO as their place, as discards keep
    PL_DISCARD). Called before the Matto exchange, so that the exchange is made on the final piles."""
    if ints[b, CONTRACT] == DI_MIO:  # only an auction sets a contract
        for c in range(NUM_CARDS):
            if cards[b, PLACE, c] == PL_POZZO:
                cards[b, PILE_OF, c] = w
