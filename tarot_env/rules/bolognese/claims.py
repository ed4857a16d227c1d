"""A player's first turn and the claim windows, *Chiamarsi Fuori* (docs/rules/tarocchino.md §7, §8.4, §11.3, §12.3).

- **The first turn** (:func:`_begin_turn`): before his first card a player has his claim
  window (§8.4), then declares the combinations in his hand, or not (§7, :func:`_declare`: the
  value counts for his side and the cards are shown to the table).
- **The windows** (:func:`_claim_offer`): the dealer's before he picks up his last 2 cards
  (§8.4.1), with his first cards only; Millone's opponent's right after that pickup (§11.3), as
  Centocinquanta's and Quindici's with U21's alternative (else at his first turn, U21); each
  player's at his first turn: the dealer's only if U8 allows, the Primo's partner adding the
  Primo's declaration (§8.4 step 4, U23), Millone's with first-deal cards only (U29, §11.6).
  A window opens only for a claim made with a declaration worth more than 0 (U28); the claim
  value is the running total plus the declaration, Quindici's rounded (U15, U24); a claim
  below the target is offered only when ``wrong_claim="loses"``.
- **The answer** (:func:`_claim`): a claim ends the game, won at or past the target and lost
  below it. Where play goes after ``no_claim`` is the phase order's (:mod:`.engine`).
- **The claimed hand's score** (:func:`claimed_hand`, U27): every declaration made so far counts
  for its side, the claimer's with the declaration he claimed with; a wrong claim scores
  nothing. It runs in NumPy at SCORE, beside the played hands (:mod:`.hand_end`).

Which games have claims, and when the windows open, are fields of the game's row
(:mod:`.game_specs`: ``claims``, ``opponent_pickup_window``, ``primo_partner_adds``, ``rounded``), and
the claim's options (U8, U21, U23, U24, ``wrong_claim``) are :mod:`.config`'s; both reach the
kernels as the ``opts`` columns (``O_CLAIMS``, ``O_TARGET``, ...) of
:meth:`.config.TarocchinoConfig.kernel_options`.

What a declaration is worth (§6, §7, :func:`_declaration_value`) is counted by the combinations'
row functions (:mod:`.combinations`) twice a hand, over the rows that reach that point:
:func:`claim_values_at_deal_rows` after the deal (the windows before play) and
:func:`declarations_rows` once the hands are final (each seat's declaration, its claim value and
the cards it would show); the windows and the declaration then read the values (``decl``,
``claim_decl``, ``pickup_decl``, ``combo``). Each function works on one row ``b`` of the
state's blocks (:mod:`.state`), compiled by numba when it is on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from tarot_env._jit import kernel, parallel_variant, prange, share, shares
from tarot_env.cards.bolognese import NUM_CARDS
from tarot_env.rules.bolognese.combinations import SEQUENCE_FAMILIES, combination_cards_row, combination_points_row, pair_scratch
from tarot_env.rules.bolognese.hand_end import seat_sides
from tarot_env.rules.bolognese.scoring import quindici_q, quindici_round
from tarot_env.rules.bolognese.seats import _side
from tarot_env.rules.bolognese.state import (
    A_CLAIM,
    A_DECLARE,
    CLAIM_DECL,
    CLAIM_OK,
    CLAIM_SEAT,
    CLAIM_VALUE,
    COMBO,
    CURRENT,
    DEALER,
    DECL,
    DECLARED,
    FIRST,
    GAME_WINNER,
    HAND_OF,
    O_CLAIM_RAW_SUM,
    O_CLAIMS,
    O_DEALER_AGAIN,
    O_DECLARATIONS,
    O_DECLARED_DOUBLED,
    O_MORI,
    O_N,
    O_OPP_CLAIM_EARLY,
    O_PARTNER_NEEDS_OWN,
    O_PRIMO_PARTNER_ADDS,
    O_ROUNDED,
    O_SECOND_DEAL,
    O_TARGET,
    O_WRONG_LOSES,
    PH_CLAIM,
    PH_DECLARE,
    PH_PLAY,
    PH_SCORE,
    PHASE,
    PICKUP_DECL,
    PL_HAND,
    PLACE,
    PRIMO,
    RAW_TOTAL,
    RESULT,
    RS_CLAIMED,
    RS_WRONG_CLAIM,
    SHOWN,
    ST_CLAIM,
    ST_DECLARE,
    ST_DONE,
    STAGE,
    TOTAL,
    W_FIRST_TURN,
    W_PICKUP,
    WINDOW,
)

if TYPE_CHECKING:
    from tarot_env.rules.bolognese.hand_end import EndOfHand
    from tarot_env.rules.bolognese.state import TarocchinoState

_qround = kernel(quindici_q, inline=True)


@kernel
def _claim_offer(ints, seat_ints, b, p, window, opts):
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
        elif opts[O_PRIMO_PARTNER_ADDS] == 1 and p == (d + 3) % opts[O_N]:  # the Primo (d + 1)'s partner
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


@kernel
def _open_claim(ints, seat_ints, b, p, window, opts):
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


@kernel
def _begin_turn(ints, seat_ints, b, opts):
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


@kernel(inline=True)
def _claim(ints, b, a, opts):
    """A claim window's answer (§8.4): True when ``a`` claims, which ends the game: won when the
    value reaches the target, lost otherwise (only offered then with ``wrong_claim="loses"``)."""
    if a != A_CLAIM:
        return False
    p = ints[b, CURRENT]
    ints[b, CLAIM_SEAT] = p
    side = _side(ints, b, p, opts)
    if ints[b, CLAIM_OK] == 1:
        ints[b, RESULT] = RS_CLAIMED
        ints[b, GAME_WINNER] = side
    else:
        ints[b, RESULT] = RS_WRONG_CLAIM
        ints[b, GAME_WINNER] = 1 - side
    ints[b, PHASE] = PH_SCORE
    return True


@kernel(inline=True)
def _declare(ints, seat_ints, cards, b, a):
    """The declaration at the first turn (§7): ``declare`` counts his combinations' value for
    his side and shows their cards to the table; then he plays his card."""
    p = ints[b, CURRENT]
    if a == A_DECLARE:
        seat_ints[b, p, DECLARED] = seat_ints[b, p, DECL]
        for c in range(NUM_CARDS):  # the cards of his combinations are shown to the table (§7)
            if cards[b, COMBO, c] == 1 and cards[b, HAND_OF, c] == p:
                cards[b, SHOWN, c] = 1
    ints[b, PHASE] = PH_PLAY


# ====================================================================== what a declaration is worth
@kernel(inline=True)
def _declaration_value(cards, b, seat, place, first_only, opts, m, L, L2):
    """The value of declaring ``seat``'s cards at row ``b`` (§7): their cricche and sequences as
    §6 counts them, with U5 (``mori``) and U6 (declarations doubled or not); 0 in a game
    without declarations (nothing can then serve a claim either). The cards: those ``seat``
    holds, only in ``place`` unless it is -1, only first-deal ones with ``first_only`` (§11.6);
    they are left in ``m`` (62,) bool. ``L``, ``L2``: (7,) int64 scratch."""
    for c in range(NUM_CARDS):
        m[c] = cards[b, HAND_OF, c] == seat and (place < 0 or cards[b, PLACE, c] == place) and (not first_only or cards[b, FIRST, c] == 1)
    if opts[O_DECLARATIONS] == 0:
        return 0
    return combination_points_row(m, opts[O_MORI], opts[O_DECLARED_DOUBLED] == 1, L, L2)


@kernel
def claim_values_at_deal_rows(ints, seat_ints, cards, rows, opts):
    """The declaration values of the claim windows before play, at the deal (§8.4.1, §11.3,
    U21): the dealer's first cards (before his pickup), and the whole hand of the player on his
    right (the opponent of the two-player games, whose window may open right after the pickup)."""
    if opts[O_CLAIMS] == 0:  # no target, no claims
        return
    n = opts[O_N]
    m = np.zeros(NUM_CARDS, dtype=np.bool_)
    L = np.zeros(len(SEQUENCE_FAMILIES), dtype=np.int64)
    L2 = np.zeros(len(SEQUENCE_FAMILIES), dtype=np.int64)
    for i in range(rows.shape[0]):
        b = rows[i]
        d = ints[b, DEALER]
        ints[b, PICKUP_DECL] = _declaration_value(cards, b, d, PL_HAND, False, opts, m, L, L2)
        opp = (d + 1) % n
        seat_ints[b, opp, CLAIM_DECL] = _declaration_value(cards, b, opp, -1, False, opts, m, L, L2)


@kernel(inline=True)
def _declarations_row(seat_ints, cards, b, opts, m, shown, L, L2):
    """The hands of row ``b`` are final (PREPARE): each seat's declaration value (``decl``, §7),
    the value his claim may use (``claim_decl``: the same, or Millone's first-deal cards only,
    §11.6) and the cards of the combinations a declaration shows (``combo``, every seat's).
    ``m``, ``shown`` (62,) bool and ``L``, ``L2`` (7,) int64 are scratch rows."""
    mori, doubled = opts[O_MORI], opts[O_DECLARED_DOUBLED] == 1
    for c in range(NUM_CARDS):
        cards[b, COMBO, c] = 0
    for p in range(opts[O_N]):
        if opts[O_SECOND_DEAL] == 1:
            seat_ints[b, p, CLAIM_DECL] = _declaration_value(cards, b, p, PL_HAND, True, opts, m, L, L2)
        value = _declaration_value(cards, b, p, PL_HAND, False, opts, m, L, L2)
        seat_ints[b, p, DECL] = value
        if opts[O_SECOND_DEAL] == 0:
            seat_ints[b, p, CLAIM_DECL] = value
        shown[:] = False
        combination_cards_row(m, mori, doubled, L, L2, shown)
        for c in range(NUM_CARDS):
            if shown[c]:
                cards[b, COMBO, c] = 1


@kernel
def declarations_rows(seat_ints, cards, rows, opts):
    """:func:`_declarations_row` for each of ``rows``. Compiled because every vector step
    brings hands to the play, on the calling thread (docs/performance.md, "What the kernels
    replaced"); ``declarations_rows_parallel``
    shares the rows among numba's threads (:mod:`tarot_env._threads`) by shares of
    :data:`tarot_env._jit.ROWS_PER_SHARE`, each with its own scratch rows."""
    for k in prange(shares(rows.shape[0])):  # shares are independent
        m, shown, L, L2 = pair_scratch()
        first, end = share(k, rows.shape[0])
        for i in range(first, end):
            _declarations_row(seat_ints, cards, rows[i], opts, m, shown, L, L2)


declarations_rows_parallel = parallel_variant(declarations_rows)


# =========================================================================== the score of a claimed hand (U27)
# The windows and the verdict above run in the compiled state machine; once a claim has ended the
# hand (``RESULT`` RS_CLAIMED or RS_WRONG_CLAIM), ``TarocchinoGame`` scores it at SCORE here, in
# NumPy, with the played hands (:func:`.hand_end.played_hands`); the match then ends
# (:func:`.settlement.settle_matches`: a claim always ends it, won by ``GAME_WINNER``).


def claimed_hand(rules: EndOfHand, state: TarocchinoState, r: int, info: dict[str, Any]) -> np.ndarray:
    """(N,) each seat's score of row ``r``'s hand, ended by a claim; ``info`` (the hand's
    details) gets the result (``"claimed"`` or ``"wrong_claim"``), the claimer and the claim's
    value. A wrong claim (U27, ``wrong_claim="loses"``) scores nothing: it loses the game."""
    ints = state.ints
    claimer = int(ints[r, CLAIM_SEAT])
    ok = ints[r, RESULT] == RS_CLAIMED
    info.update(result="claimed" if ok else "wrong_claim", claimer=claimer, claim_value=int(ints[r, CLAIM_VALUE]))
    if not ok:
        return np.zeros(rules.num_players, dtype=np.int64)
    return claimed_scores(rules, state, r, claimer)


def claimed_scores(rules: EndOfHand, state: TarocchinoState, r: int, claimer: int) -> np.ndarray:
    """(N,) each seat's score of a hand ended by a correct claim (U27): every declaration made
    so far in the hand counts for its side, as §7 records it at once. The claiming side has
    the declaration the claimer claimed with (in Ottocento's §8.4 step 4 the Primo's is part of
    his claim, and counted once, as the Primo declared it) and what its players declared
    before; the other side what its players declared. At a Millone first turn the claim counted
    only the first-deal cards of his declaration toward the target, yet it is the declaration he
    makes there, so the whole of it is credited (U29, §11.6). Quindici: rounded (q) as a hand
    score is (§13, U15); the claimer's part is the rounded value his claim used (U24)."""
    ints, seat_ints = state.ints, state.seat_ints
    sides = seat_sides(rules, state, np.array([r], dtype=np.int64))[0]
    side = int(sides[claimer])
    declared = np.bincount(sides, weights=seat_ints[r, :, DECLARED], minlength=2).astype(np.int64)
    used = int(ints[r, CLAIM_VALUE]) - int(seat_ints[r, claimer, TOTAL])
    if rules.spec.rounded:  # Quindici, two players: the claimer has declared nothing yet
        credit = quindici_round(declared)
        credit[side] += used
    else:  # the declaration the claimer makes with the cards he holds at his window
        window = int(ints[r, WINDOW])
        if window == W_PICKUP:  # his first cards, before he picks up his last 2 (§8.4.1)
            own = int(ints[r, PICKUP_DECL])
        elif window == W_FIRST_TURN:  # his whole declaration, though Millone's claim counted only its first-deal cards (U29, §11.6)
            own = int(seat_ints[r, claimer, DECL])
        else:  # the opponent's right after the pickup: his hand before any discard (§11.3, U21)
            own = int(seat_ints[r, claimer, CLAIM_DECL])
        credit = declared
        credit[side] += own
    return credit[sides]
