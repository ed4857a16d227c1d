"""The play of a Tarocchino hand, decision by decision (docs/rules/tarocchino.md §4–§14): the order of its phases.

The rules are in one module per phase of a hand, named in the game's words; this module only
sends each decision to its phase and moves a hand from one phase to the next:

| module | the rules |
|---|---|
| :mod:`.auction` | Terziglio's auction, the Pozzo (§10.3, U12, U25) |
| :mod:`.claims` | claim windows, first-turn declarations, a claimed hand's score (§7, §8.4, §11.3, U8, U15, U21, U23, U24, U27–U29) |
| :mod:`.discards` | who discards how many, and what (§5.3, §10.3, §11.4, §11.5, §12.2, U22) |
| :mod:`.tricks` | the first lead, the legal cards, the trick and its winner, the won cards (§4, §5.4, U1, U13) |
| :mod:`.matto` | the Matto: played, kept, exchanged (§2.4, §4.5, U2–U4, U19, U20, U25, U30) |
| :mod:`.seats` | the sides, the next player (§4.1, §5.1) |

A hand goes: the auction (Terziglio) or the dealer's claim window before his pickup (§8.4.1);
the pickup of his last 2 cards (:func:`_pickup`) and the opponent's window after it (§11.3,
U21); the discards; ``PREPARE``; the tricks, each player's first turn before his first card;
the Matto exchange; ``SCORE``.

Each function works on one row ``b`` of the state's blocks (:mod:`.state`) with plain loops,
so that the same code runs as Python (the reference, and the fallback without numba) and
compiled by numba (``tarot_env._jit``): there is no second implementation to keep in step. The
functions of the phase modules are compiled at their import, the small ones inlined into their
callers (``inline=True``), so that a step compiles to the code one module would give.

What runs once a hand over whole hands is called by :mod:`.game` on the rows this kernel
stops in the phases ``PREPARE`` (hands are final: value the declarations, §7,
:func:`.claims.declarations_rows`) and ``SCORE`` (the hand is over: the automatic Matto
exchange, U20, :func:`.matto.auto_exchange_rows`, then the hand's score, :mod:`.scoring`, and
the match's bookkeeping in NumPy). The first two are compiled row loops as well, with
variants on numba's threads like this kernel's (:mod:`tarot_env._threads`).

Every rule choice arrives in ``opts`` (see :func:`.config.TarocchinoConfig.kernel_options`),
and so does everything that tells the games apart: the code never asks which game it plays,
it reads the columns made from the game's row (:class:`.game_specs.GameSpec`): the sides
(``O_SIDES``), the auction, the claim windows, Quindici's rounding, who discards how many.
"""

from __future__ import annotations

import numpy as np

from tarot_env._jit import kernel, parallel_variant, prange
from tarot_env.cards.bolognese import NUM_CARDS
from tarot_env.rules.bolognese.auction import _auction, _auction_legal
from tarot_env.rules.bolognese.claims import _begin_turn, _claim, _declare, _open_claim
from tarot_env.rules.bolognese.discards import _discard, _discard_legal, _start_discards
from tarot_env.rules.bolognese.matto import _give, _give_legal
from tarot_env.rules.bolognese.seats import sides_rows
from tarot_env.rules.bolognese.state import (
    A_CLAIM,
    A_DECLARE,
    A_NO_CLAIM,
    A_NO_DECLARE,
    AB_DISCARD,
    AB_GIVE,
    AB_PLAY,
    BIDDER,
    CURRENT,
    DEALER,
    NONE,
    O_AUCTION,
    O_N,
    O_OPP_AFTER_PICKUP,
    PH_AUCTION,
    PH_CLAIM,
    PH_DECLARE,
    PH_DISCARD,
    PH_GIVE,
    PH_PLAY,
    PH_PREPARE,
    PH_SCORE,
    PHASE,
    PL_EXTRA,
    PL_HAND,
    PLACE,
    SPEAKER,
    W_AFTER_PICKUP,
    W_FIRST_TURN,
    W_PICKUP,
    WINDOW,
)
from tarot_env.rules.bolognese.tricks import _first_trick, _legal_plays, _play

__all__ = [
    "W_AFTER_PICKUP",
    "W_FIRST_TURN",
    "W_PICKUP",
    "sides_rows",
    "start_hand",
    "start_hands",
    "start_play",
    "start_plays",
    "step_row",
    "step_rows",
]


# ====================================================================== legal actions
@kernel
def _set_legal(ints, seat_ints, cards, legal, b, opts):
    """Write the row's legal mask for the player to act (all False once the row leaves the
    decision phases), from the phase modules' rules.

    The mask row is taken as a 1-D view once (``row = legal[b]``), and so is each action
    range: loops over ``range`` into them compile to vector instructions, where ``legal[b, a]``
    (an index numba must check for negative values) kept them scalar."""
    row = legal[b]
    for a in range(row.shape[0]):
        row[a] = False
    phase = ints[b, PHASE]
    p = ints[b, CURRENT]
    if phase == PH_AUCTION:
        _auction_legal(ints, row, b)
    elif phase == PH_CLAIM:
        row[A_CLAIM] = True
        row[A_NO_CLAIM] = True
    elif phase == PH_DECLARE:
        row[A_DECLARE] = True
        row[A_NO_DECLARE] = True
    elif phase == PH_DISCARD:
        _discard_legal(cards, row[AB_DISCARD : AB_DISCARD + NUM_CARDS], b, p)
    elif phase == PH_PLAY:
        _legal_plays(ints, cards, row[AB_PLAY : AB_PLAY + NUM_CARDS], b, p, opts)
    elif phase == PH_GIVE:
        _give_legal(ints, cards, row, b, p, opts)


# ====================================================================== from one phase to the next
@kernel
def _pickup(ints, seat_ints, cards, b, opts):
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


@kernel
def _answer_window(ints, seat_ints, cards, b, a, opts):
    """A claim window's answer: a claim ends the game (:func:`.claims._claim`); after
    ``no_claim`` the hand goes on where the window stood: the dealer's pickup, the discards,
    or the rest of the player's first turn."""
    if _claim(ints, b, a, opts):
        return
    window = ints[b, WINDOW]
    if window == W_PICKUP:
        _pickup(ints, seat_ints, cards, b, opts)
    elif window == W_AFTER_PICKUP:
        _start_discards(ints, seat_ints, cards, b, opts)
    else:
        _begin_turn(ints, seat_ints, b, opts)


@kernel
def start_hand(ints, seat_ints, cards, legal, b, opts):
    """A freshly dealt row (cards placed, PICKUP_DECL and the after-pickup CLAIM_DECL set by
    the caller): the auction, the dealer's claim window, or the pickup (which, with no last
    cards to pick up and no discard, as in Mattazza, goes straight to PREPARE)."""
    d = ints[b, DEALER]
    n = opts[O_N]
    if opts[O_AUCTION] == 1:
        ints[b, PHASE] = PH_AUCTION
        ints[b, SPEAKER] = (d + 1) % n  # the receiver, on the dealer's right (§10.1)
        ints[b, CURRENT] = ints[b, SPEAKER]
        ints[b, BIDDER] = NONE
    elif not _open_claim(ints, seat_ints, b, d, W_PICKUP, opts):
        _pickup(ints, seat_ints, cards, b, opts)
    _set_legal(ints, seat_ints, cards, legal, b, opts)


@kernel
def start_play(ints, seat_ints, cards, legal, b, opts):
    """Hands are final and DECL / CLAIM_DECL set (PREPARE done): the first trick (§5.4,
    §10.4 with U13, §11.5, §12.2), its leader's first turn first."""
    _first_trick(ints, seat_ints, b, opts)
    _begin_turn(ints, seat_ints, b, opts)
    _set_legal(ints, seat_ints, cards, legal, b, opts)


# ====================================================================== one decision
@kernel(inline=True)
def step_row(ints, seat_ints, cards, hist, legal, b, a, opts):
    """Apply the legal action ``a`` to row ``b`` and write the next mask. The caller checks
    legality (``legal[b, a]``) first, so a refused action changes nothing."""
    phase = ints[b, PHASE]
    if phase == PH_AUCTION:
        _auction(ints, seat_ints, cards, b, a, opts)
    elif phase == PH_CLAIM:
        _answer_window(ints, seat_ints, cards, b, a, opts)
    elif phase == PH_DECLARE:
        _declare(ints, seat_ints, cards, b, a)
    elif phase == PH_DISCARD:
        _discard(ints, seat_ints, cards, b, a - AB_DISCARD, opts)
    elif phase == PH_PLAY:
        _play(ints, seat_ints, cards, hist, b, a - AB_PLAY, opts)
    elif phase == PH_GIVE:
        _give(ints, cards, b, a - AB_GIVE)
    _set_legal(ints, seat_ints, cards, legal, b, opts)


# ====================================================================== batches
@kernel
def step_rows(
    ints: np.ndarray,
    seat_ints: np.ndarray,
    cards: np.ndarray,
    hist: np.ndarray,
    legal: np.ndarray,
    rows: np.ndarray,
    actions: np.ndarray,
    opts: np.ndarray,
) -> int:
    """:func:`step_row` for each of ``rows`` with ``actions`` (legal, checked by the caller).
    Returns how many rows stopped in PREPARE or SCORE, for the NumPy code to finish."""
    pending = 0
    for i in prange(rows.shape[0]):  # rows are independent: numba's threads share them (tarot_env._threads)
        step_row(ints, seat_ints, cards, hist, legal, rows[i], actions[i], opts)
        ph = ints[rows[i], PHASE]
        if ph == PH_PREPARE or ph == PH_SCORE:
            pending += 1
    return pending


step_rows_parallel = parallel_variant(step_rows)


@kernel
def start_hands(ints: np.ndarray, seat_ints: np.ndarray, cards: np.ndarray, legal: np.ndarray, rows: np.ndarray, opts: np.ndarray) -> int:
    """:func:`start_hand` for each of ``rows``; returns how many stopped in PREPARE or SCORE."""
    pending = 0
    for i in range(rows.shape[0]):
        start_hand(ints, seat_ints, cards, legal, rows[i], opts)
        ph = ints[rows[i], PHASE]
        if ph == PH_PREPARE or ph == PH_SCORE:
            pending += 1
    return pending


@kernel
def start_plays(ints: np.ndarray, seat_ints: np.ndarray, cards: np.ndarray, legal: np.ndarray, rows: np.ndarray, opts: np.ndarray) -> None:
    """:func:`start_play` for each of ``rows``."""
    for i in range(rows.shape[0]):
        start_play(ints, seat_ints, cards, legal, rows[i], opts)
