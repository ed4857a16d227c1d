"""Play of the cards (docs/rules/french_tarot.md §6): legal cards, tricks, the Excuse.

The duties to follow, trump and overtrump (``tests/test_kernels.py`` checks :func:`legal_cards`
and :func:`_trick_state` against the independent batch oracle ``tests/oracles/tricks.py``),
and what is French: the 5-player opening-lead
restriction (§10), and the Excuse (§6.3): it stays with its side, which pays one
half-point when the other side won the trick (booked even when it has no card to give:
the Excuse is then worth 4 points, §15.4); played to the last trick it changes camp, unless
its side won every earlier trick, when it wins that trick (§15.2, §15.3).

Each rule is a function of one row ``b`` of the state's blocks (``FrenchTarotState.blocks``),
written with plain loops as the Tarocchino engine is (:mod:`tarot_env.rules.bolognese.tricks` and its siblings):
numba compiles it (:func:`tarot_env._jit.kernel`), and the same function runs as plain Python
when the compiled path is off (``TAROT_ENV_JIT=0``); there is no second implementation.
Compiled, a card played at batch size 1 costs a few µs (a batch-wide NumPy statement of the
play would make ~100 NumPy calls, docs/performance.md). ``tests/test_kernels.py`` plays thousands of random deals
both ways and compares every state field after every action.

The names in capitals are the columns of the fields in their block; every rule option the
play reads arrives in ``opts`` (:func:`play_options`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tarot_env._jit import kernel, parallel_variant, prange
from tarot_env.cards.deck import EXCUSE_SUIT, TRUMP_SUIT
from tarot_env.cards.french import EXCUSE as EXCUSE_ID
from tarot_env.cards.french import FRENCH_DECK, PETIT, RANKS
from tarot_env.rules.french.state import COLUMN
from tarot_env.rules.french.teams import defence_seat_row, is_attack_row

if TYPE_CHECKING:
    from tarot_env.rules.french.protocol import Rules
    from tarot_env.rules.french.state import FrenchTarotState

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

_SUIT_OF = FRENCH_DECK.suit.astype(np.int64)
_STRENGTH = FRENCH_DECK.strength.astype(np.int64)
_NO_ROWS = np.zeros(0, dtype=np.int64)


def play_options(g: Rules) -> np.ndarray:
    """The ``opts`` argument of the row functions for a game (player count, tricks, rule options)."""
    c = g.config
    return np.array(
        [
            g.num_players,
            g.num_tricks,
            EXCUSE_ID,
            c.excuse_chelem_needs_announcement,
            c.excuse_chelem_defence,
            c.excuse_last_trick == "changes_camp",
            c.excuse_opening_lead == "next_player",
            c.called_suit_only_hand == "excuse_if_held",
        ],
        dtype=np.int64,
    )


# ====================================================================== the rules, one row at a time
@kernel(inline=True)
def legal_cards(out, b, ints, seat_cards, suit, strength, opts):
    """The cards the player to act in row ``b`` may play, written into ``out`` (C,): follow the
    suit led, else trump, over the highest trump in the trick when he can (§6.2, as the test
    oracle ``tests/oracles/tricks.py::legal_plays`` states it); the Excuse at any time; then §10's opening lead."""
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
    if opts[N] == 5 and ints[b, TRICK_NO] == 0 and led < 0 and (opts[OPENING_NEXT_PLAYER] or ints[b, TRICK_SIZE] == 0):
        _opening_lead(out, hand, ints[b, CALLED], suit, opts)


@kernel(inline=True)
def _opening_lead(out, hand, called, suit, opts):
    """§10: trick 1 may not be opened in the called suit, except with the called card. A hand
    with nothing else (but perhaps the Excuse) may play anything, or, with
    ``called_suit_only_hand="excuse_if_held"``, must lead the Excuse when it holds it.
    ``out`` holds the whole hand (nothing is led yet) and is narrowed here."""
    C = out.shape[0]
    excuse = opts[EXCUSE]
    banned_suit = suit[called]
    others = 0
    for c in range(C):
        if out[c] and suit[c] == banned_suit and c != called:
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


@kernel(inline=True)
def _trick_state(su, st, seat, lead_suit, top_trump, best_key, best_seat):
    """The test oracle's ``tests/oracles/tricks.py::play_card`` for one card, of suit ``su`` and strength ``st``, played by
    ``seat``: returns the new ``(lead_suit, top_trump, best_key, best_seat)``. The first card
    that is not the Excuse fixes the suit led; a card wins by strength only if it is a trump
    or of the suit led (the Excuse, a discard: never)."""
    if lead_suit < 0 and su != EXCUSE_SUIT:
        lead_suit = su
    key = st if (su == TRUMP_SUIT or su == lead_suit) else -1  # noqa: SIM109 (plain comparisons for numba)
    if su == TRUMP_SUIT and st > top_trump:
        top_trump = st
    if key > best_key:
        best_key = key
        best_seat = seat
    return lead_suit, top_trump, best_key, best_seat


@kernel(inline=True)
def complete_trick(b, ints, flags, seat_ints, card_ints, history, opts):
    """Give row ``b``'s complete trick to its winner, who leads the next; returns whether the
    deal is over."""
    n = opts[N]
    num_tricks = opts[NUM_TRICKS]
    excuse = opts[EXCUSE]
    t = ints[b, TRICK_NO]
    winner = ints[b, BEST_SEAT]
    ex_seat = ints[b, EXCUSE_SEAT]
    excuse_here = ex_seat >= 0 and card_ints[b, TRICK_OF, excuse] == t
    last = t == num_tricks - 1
    if excuse_here and last and _excuse_side_won_all(b, ex_seat, ints, flags, history, opts):
        winner = ex_seat
    history[b, WINNERS, t] = winner
    history[b, LEADERS, t] = ints[b, LEADER]
    for s in range(n):
        card_ints[b, PILE, seat_ints[b, TRICK, s]] = winner
    if excuse_here:
        _excuse_goes_home(b, winner, last, ints, card_ints, opts)
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
    return t + 1 == num_tricks


@kernel(inline=True)
def _excuse_side_won_all(b, ex_seat, ints, flags, history, opts):
    """The Excuse's side won every earlier trick, and the options let its Excuse win (§6.3)."""
    num_tricks = opts[NUM_TRICKS]
    tk = ints[b, TAKER]
    pt = ints[b, PARTNER]
    attack = is_attack_row(ex_seat, tk, pt)
    attack_tricks = 0
    for k in range(num_tricks - 1):
        if is_attack_row(history[b, WINNERS, k], tk, pt):
            attack_tricks += 1
    won_all = attack_tricks == num_tricks - 1 if attack else attack_tricks == 0
    if opts[NEEDS_ANNOUNCEMENT]:
        won_all = won_all and attack and flags[b, CHELEM]
    if not opts[EXCUSE_CHELEM_DEFENCE]:
        won_all = won_all and attack
    return won_all


@kernel(inline=True)
def _excuse_goes_home(b, winner, last, ints, card_ints, opts):
    """The Excuse returns to its side, for a half-point; on the last trick it changes camp."""
    excuse = opts[EXCUSE]
    owner = ints[b, EXCUSE_SEAT]
    tk = ints[b, TAKER]
    pt = ints[b, PARTNER]
    owner_attack = is_attack_row(owner, tk, pt)
    if last and winner != owner:  # played to the last trick, not a winning chelem Excuse
        if not opts[CHANGES_CAMP]:
            card_ints[b, PILE, excuse] = winner
        elif owner_attack:
            card_ints[b, PILE, excuse] = defence_seat_row(tk, pt, opts[N])
        else:
            card_ints[b, PILE, excuse] = tk
    else:
        card_ints[b, PILE, excuse] = owner
        winner_attack = is_attack_row(winner, tk, pt)
        if owner_attack != winner_attack:
            ints[b, EXCHANGE] += 1 if winner_attack else -1


# ====================================================================== over rows
@kernel
def play_masks(rows, ints, seat_cards, suit, strength, opts):
    """(R, C) bool: :func:`legal_cards` of each of ``rows``."""
    out = np.zeros((rows.shape[0], seat_cards.shape[3]), dtype=np.bool_)
    for i in range(rows.shape[0]):
        legal_cards(out[i], rows[i], ints, seat_cards, suit, strength, opts)
    return out


@kernel
def apply_play(rows, cards, ints, flags, seat_ints, seat_cards, card_ints, history, legal, poignee_todo, suit, strength, opts):
    """The player to act in each of ``rows`` plays his card of ``cards``; a full trick goes to
    its winner (:func:`complete_trick`); the next player's legal cards go into ``legal``.

    Returns a status per row: 0 done (``legal`` is up to date), 1 the deal is over, 2 still in
    trick 1 and the next player may declare a poignée first (``poignee_todo``: the caller moves
    the row to that decision, FrenchTarotGame._to_turn). In trick 1, a next player with no
    poignée to declare plays at once: his legal cards are written here, as in later tricks.

    (The card's play is written here rather than in a row function of its own: compiled into
    this loop as such a function, it cost a quarter more at B = 4,096.)"""
    n = opts[N]
    excuse = opts[EXCUSE]
    status = np.zeros(rows.shape[0], dtype=np.int8)
    for i in prange(rows.shape[0]):  # rows are independent: numba's threads share them (tarot_env._threads)
        b = rows[i]
        c = cards[i]
        p = ints[b, CURRENT]
        t = ints[b, TRICK_NO]
        seat_cards[b, HANDS, p, c] = False
        seat_cards[b, PLAYED, p, c] = True
        seat_ints[b, TRICK, p] = c
        card_ints[b, TRICK_OF, c] = t
        ints[b, LEAD_SUIT], ints[b, TOP_TRUMP], ints[b, BEST_KEY], ints[b, BEST_SEAT] = _trick_state(
            suit[c], strength[c], p, ints[b, LEAD_SUIT], ints[b, TOP_TRUMP], ints[b, BEST_KEY], ints[b, BEST_SEAT]
        )
        if ints[b, CALLED] >= 0 and c == ints[b, CALLED]:  # the called card shows the partner
            flags[b, PARTNER_KNOWN] = True
        if c == excuse:
            ints[b, EXCUSE_SEAT] = p
        ints[b, TRICK_SIZE] += 1
        ints[b, CURRENT] = (p + 1) % n
        if ints[b, TRICK_SIZE] < n:
            if t == 0 and poignee_todo[b, ints[b, CURRENT]]:
                status[i] = 2
                continue
        elif complete_trick(b, ints, flags, seat_ints, card_ints, history, opts):
            status[i] = 1
            continue
        # the play span of the actions is ids 0..C-1; the rest of the row is already False
        # (the row was in the play phase, whose mask has nothing else)
        legal_cards(legal[b, : seat_cards.shape[3]], b, ints, seat_cards, suit, strength, opts)
    return status


apply_play_parallel = parallel_variant(apply_play)


# ====================================================================== what the game calls
def play_mask(g: Rules, s: FrenchTarotState, rows: np.ndarray) -> np.ndarray:
    """(R, 78) bool: the cards the player to act may play (:func:`legal_cards`)."""
    return play_masks(rows, s.blocks["ints"], s.blocks["seat_cards"], _SUIT_OF, _STRENGTH, g.play_options)


def play_cards(g: Rules, s: FrenchTarotState, rows: np.ndarray, card: np.ndarray, parallel: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Play one card per row, completing the tricks that fill up (:func:`apply_play`; ``parallel``:
    its variant whose row loop runs on numba's threads, :mod:`tarot_env._threads`).

    Returns ``(over, unrefreshed)``: the rows whose deal is over, and the rows whose
    ``s.legal`` the caller must still compute (the others have their next legal cards)."""
    b = s.blocks
    run = apply_play_parallel if parallel else apply_play
    status = run(rows, card, b["ints"], b["flags"], b["seat_ints"], b["seat_cards"], b["card_ints"],
                    b["history"], b["legal"], b["poignee_todo"], _SUIT_OF, _STRENGTH, g.play_options)  # fmt: skip
    if len(rows) == 1:
        code = status.item(0)
        return (rows if code == 1 else _NO_ROWS), (_NO_ROWS if code == 0 else rows)
    return rows[status == 1], rows[status != 0]
