"""A rule-based French Tarot player: the heuristics of a sensible club player, from the observation alone.

:class:`FrenchRuleAgent` reads nothing but its observation vector (decoded field by field with
:func:`tarot_env.encoding.french.layout`) and its action mask, so it never sees hidden
information, and it is deterministic: the same ``(observation, mask)`` always gives the same
action. It plays 3, 4 and 5 players (the player count is read from the observation size).

Strategy, decision by decision:

- **Bidding**: a club point count of the hand (21: 10, Excuse: 8, Petit: 0 to 8 by how well
  it is guarded, 2 per trump and more for the big ones, kings 6, queens 3 (4 with the king),
  knights 2, jacks 1, long suits 5 to 9, voids 6 and singletons 3 with trumps to ruff), scaled
  to an 18-card hand. With 4 players 46 points take a petite, 52 a garde, 61 a garde sans, 70
  a garde contre (6 fewer with 3 players, 9 fewer with 5, where the taker has a partner:
  thresholds calibrated in self-play). It bids the highest legal contract the count supports,
  and passes otherwise.
- **Call** (5 players): the king of a suit it does not hold, preferring the suit where it holds
  the queen, then the shortest; a queen (then knight, jack) only when it holds every king.
- **Écart**: never trumps unless forced (then the lowest), never kings or bouts (the rules);
  it voids its shortest kingless suits, discarding their high cards first (points go safely
  into the écart), then discards unguarded court cards and the low cards of short suits.
- **Chelem**: announced only with an overwhelming hand (the 21, the 20, trumps for almost
  every trick and no plain card but kings). **Poignée**: the largest one it may declare.
  **Show** (the poignée's trumps, one by one): the smallest plain trumps first, then the 21,
  the Petit and the Excuse.
- **Card play**: it works out who wins the trick so far, which cards are masters (no higher
  card left out), and who is a partner (the taker's side; with 5 players only once the
  partner is known). When a partner wins the trick for sure it smears points (the Petit
  first, then kings, queens...); otherwise it wins with the cheapest card that wins for sure
  when the trick is worth it, else it plays its cheapest card (lowest points, lowest trump,
  keeping the Petit). It saves the Petit (plays it when it wins for sure, leads it once no
  trump is left out) and plays the Excuse rather than give away the Petit, a king or a queen; never to
  the last trick (unless its side has won every trick, when the Excuse wins it). Leading: the
  Petit when it is master; the taker draws trumps when he holds at least as many as are left
  out; masters (kings first) of suits the others can still follow; else the lowest card of
  its longest suit; defenders lead trumps only when they must.

The bot plays in the training rollouts, many tables at once, so it is compiled as the engine is
(:mod:`tarot_env._jit`): each decision is a function of one observation row and its mask,
written once with plain loops over the card ids, which numba compiles (:func:`act_rows` decides
a whole batch in one compiled call, a few µs a decision, docs/performance.md), and
which runs as plain Python when the compiled path is off (``TAROT_ENV_JIT=0``). The kernels read
the observation's fields at the offsets :func:`tarot_env.encoding.french.layout` gives them by
name (:func:`field_offsets`). A set of cards (the legal cards, the cards still out) is a bool
array over the 78 card ids, and every choice scans the ids in increasing order, keeping the
first best card (the lowest id among equals): the decisions are those recorded in
``tests/data/bot_golden.json``, which ``tests/test_french_rules_compiled.py`` checks these against.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from tarot_env._jit import kernel
from tarot_env.cards.french import CALLABLE, EXCUSE, FRENCH_DECK, IS_TRUMP, NUM_CARDS, PETIT, RANKS, TWENTY_ONE
from tarot_env.encoding.french import layout
from tarot_env.rules.french import actions as A

SUIT = FRENCH_DECK.suit.astype(np.int64)  # 0..3 plain, 4 trump, 5 Excuse
RANK = FRENCH_DECK.rank.astype(np.int64)  # 1..14 plain, 1..21 trumps, 0 Excuse
STRENGTH = FRENCH_DECK.strength.astype(np.int64)  # a trump beats any plain card
VALUE = FRENCH_DECK.value.astype(np.int64)  # half-points: bouts and kings 9, queens 7, knights 5, jacks 3, others 1
KING, QUEEN, KNIGHT, JACK = 14, 13, 12, 11
HAND_SIZE = {3: 24, 4: 18, 5: 15}
# the card ids are ranges (cards/french.py): plain suit s is SUIT_SIZE * s .. SUIT_SIZE * s + 13,
# the trumps run from the Petit to the 21
SUIT_SIZE, FIRST_TRUMP, LAST_TRUMP = len(RANKS), PETIT, TWENTY_ONE
# the action ids (rules/french/actions.py), as names the kernels read as constants
PLAY, DISCARD, BID, CALL = A.PLAY, A.DISCARD, A.BID, A.CALL
CHELEM, NO_CHELEM, POIGNEE, NO_POIGNEE, SHOW = A.CHELEM, A.NO_CHELEM, A.POIGNEE, A.NO_POIGNEE, A.SHOW
SHOW_CARDS = np.asarray(A.SHOW_CARDS, dtype=np.int64)

#: Bidding thresholds on the 18-card scale, for petite, garde, garde sans, garde contre (4 players).
#: Calibrated in self-play: a petite is made about half the time at 46, a garde two times in
#: three at 52; without the chien the hand must stand alone (garde sans 61, garde contre 70).
BID_THRESHOLDS = (46.0, 52.0, 61.0, 70.0)
#: The same hand is worth more with 3 players (a third of the deck against two) and with 5
#: (a called partner): the thresholds move by these many points.
BID_OFFSET = {3: -6.0, 4: 0.0, 5: -9.0}
# the same as arrays for the kernels: thresholds by contract - 1, offsets by player count
_THRESHOLD = np.array(BID_THRESHOLDS, dtype=np.float64)
_OFFSET = np.array([BID_OFFSET.get(n, 0.0) for n in range(6)], dtype=np.float64)

#: the observation fields the bot reads, in the order of the ``offsets`` array the kernels take
#: (:func:`field_offsets`); the kernels read field ``x``'s offset as ``offsets[F_X]``
FIELDS = ("hand", "taker", "partner", "alone", "ecart", "played", "trick", "winners")
F_HAND, F_TAKER, F_PARTNER, F_ALONE, F_ECART, F_PLAYED, F_TRICK, F_WINNERS = range(len(FIELDS))


@cache
def field_offsets(num_players: int) -> np.ndarray:
    """The offset of each of :data:`FIELDS` in the observation of ``num_players``, looked up by
    name in :func:`tarot_env.encoding.french.layout` (-1 for a field the table lacks: ``partner``
    and ``alone`` exist with 5 players only). Read-only: it is shared by every call."""
    fields = {f.name: f for f in layout(num_players)}
    offsets = np.array([fields[name].offset if name in fields else -1 for name in FIELDS], dtype=np.int64)
    offsets.setflags(write=False)
    return offsets


@cache
def _num_tricks(num_players: int) -> int:
    """The tricks of a deal: the rows of the ``winners`` field (one slot per relative seat)."""
    return next(f.length for f in layout(num_players) if f.name == "winners") // num_players


@cache
def _players_by_size() -> dict[int, int]:
    return {sum(f.length for f in layout(n)): n for n in (3, 4, 5)}


def num_players_of(observation_size: int) -> int:
    """The player count whose observation has this many values (3: 1122, 4: 1366, 5: 1638)."""
    sizes = _players_by_size()
    if observation_size not in sizes:
        raise ValueError(f"an observation of {observation_size} values is not a French Tarot observation (sizes {sorted(sizes)})")
    return sizes[observation_size]


# ---------------------------------------------------------------------------------------------
# Cards and seats
# ---------------------------------------------------------------------------------------------
@kernel(inline=True)
def _suit_range(s):
    """The card ids of suit ``s`` (``lo``, ``hi`` exclusive): a plain suit, else the trumps (the
    Excuse's suit is read as the trumps': :func:`_is_master` judges the Excuse against the
    trumps still out, as the recorded decisions do)."""
    if s < 4:
        return s * SUIT_SIZE, s * SUIT_SIZE + SUIT_SIZE
    return FIRST_TRUMP, LAST_TRUMP + 1


@kernel(inline=True)
def _count(cards, lo, hi):
    """How many of the card ids ``lo`` .. ``hi - 1`` are in ``cards`` (any nonzero value)."""
    k = 0
    for c in range(lo, hi):
        if cards[c] != 0:
            k += 1
    return k


@kernel(inline=True)
def _side(slot, seats):
    """+1 a partner (or me), -1 an opponent, 0 unknown (5 players, before the partner is known).

    ``seats`` is ``(n, taker, partner, alone)`` in relative slots (slot 0 = me; -1: no taker yet,
    partner not known)."""
    n, taker, partner, alone = seats
    if slot == 0:
        return 1
    if taker < 0:
        return 0
    if partner >= 0:
        slot_attacks, i_attack = slot == taker or slot == partner, taker == 0 or partner == 0
    elif n == 5 and alone == 0:  # the partner hides among the others
        if taker == 0 or slot != taker:
            return 0
        return -1
    else:
        slot_attacks, i_attack = slot == taker, taker == 0
    return 1 if slot_attacks == i_attack else -1


@kernel(inline=True)
def _is_master(c, out):
    """No card still out can beat ``c`` in its own suit (trumps: no higher trump out)."""
    lo, hi = _suit_range(SUIT[c])
    higher = 0
    for x in range(lo, hi):
        if out[x] and RANK[x] > RANK[c]:
            higher += 1
    return higher == 0


@kernel(inline=True)
def _lead_suit(trick):
    """The suit to follow: that of the first card that is not the Excuse (-1 if none yet).
    ``trick`` holds the ``(slot, card)`` rows of the current trick, in play order."""
    for j in range(trick.shape[0]):
        if trick[j, 1] != EXCUSE:
            return SUIT[trick[j, 1]]
    return -1


@kernel(inline=True)
def _beats(c, best, suit):
    """Whether card ``c`` beats the trick's best card ``best`` (-1: no card yet) when ``suit`` is led."""
    if c == EXCUSE:
        return False
    if best < 0:
        return True
    if IS_TRUMP[c]:
        return not IS_TRUMP[best] or RANK[c] > RANK[best]
    return not IS_TRUMP[best] and SUIT[c] == suit and SUIT[best] == suit and RANK[c] > RANK[best]


@kernel(inline=True)
def _trick_winner(trick):
    """(slot, card) winning the trick so far, (-1, -1) if no card but the Excuse."""
    suit = _lead_suit(trick)
    slot, best = -1, -1
    for j in range(trick.shape[0]):
        if _beats(trick[j, 1], best, suit):
            slot, best = trick[j, 0], trick[j, 1]
    return slot, best


@kernel
def _secure(c, suit, seats, on_trick, out):
    """Whether ``c``, if it wins the trick now, keeps it: nobody after me can take it from us.

    True when I play last or only partners follow (``on_trick`` cards are down, the slots
    1 .. n - on_trick - 1 are still to play); else a master trump, or a master plain card of the
    led suit while enough of that suit is out for the others to follow (no ruff likely)."""
    enemies = 0
    for s in range(1, seats[0] - on_trick):
        if _side(s, seats) != 1:
            enemies += 1
    if enemies == 0:
        return True
    if IS_TRUMP[c]:
        return _is_master(c, out)
    if not _is_master(c, out):
        return False
    suit_out = _count(out, suit * SUIT_SIZE, suit * SUIT_SIZE + SUIT_SIZE) if 0 <= suit < 4 else 0
    return _count(out, FIRST_TRUMP, LAST_TRUMP + 1) == 0 or suit_out >= 2 * enemies


@kernel
def _side_won_all(winners, num_tricks, seats):
    """Whether my side has won every trick so far (then the Excuse wins the last trick);
    ``winners`` is the observation's field (one row of relative slots per trick)."""
    n = seats[0]
    any_done = False
    for t in range(num_tricks):
        for s in range(n):
            if winners[t * n + s] != 0:  # the first slot marked is the trick's winner
                any_done = True
                if _side(s, seats) != 1:
                    return False
                break
    return any_done


@kernel
def _cheapest(cards):
    """The card of ``cards`` that costs least to give away: fewest points, then lowest (the Petit kept last)."""
    best, best_key = -1, (0, 0, 0, 0)
    for c in range(NUM_CARDS):
        if cards[c]:
            key = (int(c == PETIT), VALUE[c], STRENGTH[c], c)
            if best < 0 or key < best_key:
                best, best_key = c, key
    return best


@kernel
def _smear(cards):
    """The card of ``cards`` to give a trick a partner wins for sure: the Petit first (saved),
    then the most points (kings, queens...), keeping the 21, which cannot be lost and wins a
    trick of its own."""
    best, best_key = -1, (0, 0, 0, 0, 0)
    for c in range(NUM_CARDS):
        if cards[c]:
            key = (int(c == PETIT), int(c != TWENTY_ONE), VALUE[c], -STRENGTH[c], -c)
            if best < 0 or key > best_key:
                best, best_key = c, key
    return best


# ---------------------------------------------------------------------------------------------
# Hand evaluation and bidding
# ---------------------------------------------------------------------------------------------
@kernel
def _hand_points(hand):
    """Club point count of a hand, scaled to 18 cards (the 4-player hand).

    Bouts win tricks and count double at the end, trumps control the play, kings and long
    suits make tricks, voids and singletons let the trumps ruff. Every term is a multiple of
    one half, so the float64 sum is exact, and the scaling is ``pts * 18.0 / cards`` in that
    order: the thresholds compare exactly the numbers the recorded decisions were made with."""
    n_cards = _count(hand, 0, NUM_CARDS)
    n_trumps = _count(hand, FIRST_TRUMP, LAST_TRUMP + 1)
    pts = 0.0
    if hand[TWENTY_ONE] != 0:
        pts += 10
    if hand[EXCUSE] != 0:
        pts += 8
    if hand[PETIT] != 0:  # the Petit is worth what guards it
        pts += 8 if n_trumps >= 7 else 7 if n_trumps >= 6 else 5 if n_trumps >= 5 else 0
    pts += 2 * n_trumps
    big = 0.0
    for t in range(FIRST_TRUMP, LAST_TRUMP + 1):
        if hand[t] != 0 and 16 <= RANK[t] <= 20:
            big += 1.5
    pts += big
    for s in range(4):
        lo = s * SUIT_SIZE
        has_king, has_queen = hand[lo + KING - 1] != 0, hand[lo + QUEEN - 1] != 0
        length = _count(hand, lo, lo + SUIT_SIZE)
        if has_king:
            pts += 6
        if has_queen:
            pts += 4 if has_king else 3
        if hand[lo + KNIGHT - 1] != 0:
            pts += 2
        if hand[lo + JACK - 1] != 0:
            pts += 1
        pts += 9 if length >= 7 else 7 if length == 6 else 5 if length == 5 else 0
        if n_trumps >= 4:
            pts += 6 if length == 0 else 3 if length == 1 else 0
    return pts * 18.0 / max(n_cards, 1)


@kernel
def _choose_bid(hand, m, n):
    """The highest legal contract the hand's point count supports, else pass."""
    pts = _hand_points(hand)
    for contract in range(4, 0, -1):
        if pts >= _THRESHOLD[contract - 1] + _OFFSET[n] and m[BID + contract]:
            return BID + contract
    return BID  # pass


# ---------------------------------------------------------------------------------------------
# Call, écart, chelem, poignée, show
# ---------------------------------------------------------------------------------------------
@kernel
def _choose_call(hand, m):
    """Call a card it does not hold (kings first): the suit where it holds the queen, then the shortest."""
    best, best_key = -1, (0, 0, 0, 0, 0)
    for i in range(CALLABLE.shape[0]):
        if not m[CALL + i]:
            continue
        c = CALLABLE[i]
        lo = SUIT[c] * SUIT_SIZE
        holds_queen = hand[lo + QUEEN - 1] != 0
        key = (int(hand[c] == 0), RANK[c], int(holds_queen), -_count(hand, lo, lo + SUIT_SIZE), -i)
        if best < 0 or key > best_key:
            best, best_key = i, key
    return CALL + best


@kernel
def _choose_discard(hand, m, hand_size):
    """One écart card: void the shortest kingless suit (high cards first), else shed unguarded points.

    Trumps only when the mask forces them (then the lowest: they are shown to everyone)."""
    plain_legal = False
    lowest = -1
    for c in range(NUM_CARDS):
        if m[DISCARD + c]:
            if not IS_TRUMP[c]:
                plain_legal = True
            elif lowest < 0 or RANK[c] < RANK[lowest]:
                lowest = c
    if not plain_legal:
        return DISCARD + lowest
    left = _count(hand, 0, NUM_CARDS) - hand_size  # discards still to make, this one included
    best, best_key = -1, (0, 0, 0, 0, 0, 0, 0)
    for c in range(NUM_CARDS):
        if not m[DISCARD + c] or IS_TRUMP[c]:
            continue
        s = SUIT[c]
        in_suit = _count(hand, s * SUIT_SIZE, s * SUIT_SIZE + SUIT_SIZE) if s < 4 else 0
        has_king = s < 4 and hand[s * SUIT_SIZE + KING - 1] != 0
        voidable = not has_king and in_suit <= left
        # Unguarded court cards: a queen/knight/jack in a short suit without the king is likely lost.
        unguarded = not has_king and RANK[c] >= JACK and in_suit <= 3
        key = (
            int(voidable),
            -in_suit if voidable else 0,
            int(unguarded),
            VALUE[c] if unguarded or voidable else 0,
            -in_suit,
            -RANK[c],
            -c,
        )
        if best < 0 or key > best_key:
            best, best_key = c, key
    return DISCARD + best


@kernel
def _choose_chelem(hand, m, hand_size):
    """Announce a chelem only with an overwhelming hand: the 21 and 20, trumps for nearly
    every trick, and no plain card but kings."""
    kings_only = True
    for c in range(FIRST_TRUMP):
        if hand[c] != 0 and RANK[c] != KING:
            kings_only = False
    trumps = _count(hand, FIRST_TRUMP, LAST_TRUMP + 1)
    overwhelming = hand[TWENTY_ONE] != 0 and hand[TWENTY_ONE - 1] != 0 and kings_only and trumps >= hand_size - 4
    return CHELEM if overwhelming and m[CHELEM] else NO_CHELEM


@kernel
def _choose_poignee(m):
    """The largest poignée it may declare (the bonus goes to the winning side)."""
    for k in range(2, -1, -1):
        if m[POIGNEE + k]:
            return POIGNEE + k
    return NO_POIGNEE


@kernel
def _choose_show(m):
    """Show its smallest plain trumps first; the 21, the Petit (its place would be hunted) and the Excuse last."""
    best, best_key = -1, (0, 0)
    for i in range(SHOW_CARDS.shape[0]):
        if not m[SHOW + i]:
            continue
        c = SHOW_CARDS[i]
        if c == TWENTY_ONE:
            key = (1, 0)
        elif c == PETIT:
            key = (1, 1)
        elif c == EXCUSE:
            key = (1, 2)
        else:
            key = (0, RANK[c])
        if best < 0 or key < best_key:
            best, best_key = i, key
    return SHOW + best


# ---------------------------------------------------------------------------------------------
# Card play
# ---------------------------------------------------------------------------------------------
@kernel
def _excuse_now(cards, hand, trick, seats, out, winners, num_tricks):
    """Play the Excuse now? Before the last trick at the latest (unless it would win a chelem's
    last trick), or rather than give the opponents the Petit or a king. ``cards``: the legal
    cards but the Excuse."""
    hand_left = _count(hand, 0, NUM_CARDS)
    if hand_left == 1:
        return True
    if hand_left == 2:
        return not _side_won_all(winners, num_tricks, seats)
    if trick.shape[0] == 0 or _count(cards, 0, NUM_CARDS) == 0:
        return False
    suit = _lead_suit(trick)
    slot, best = _trick_winner(trick)
    on_trick = trick.shape[0]
    if slot >= 0 and _side(slot, seats) == 1 and _secure(best, suit, seats, on_trick, out):
        return False
    for c in range(NUM_CARDS):
        if cards[c] and _beats(c, best, suit) and _secure(c, suit, seats, on_trick, out):
            return False  # a card wins the trick for sure: the Excuse is kept
    return VALUE[_cheapest(cards)] >= 7


@kernel
def _choose_follow(cards, trick, seats, out):
    """A card to a trick already started (``cards``: the legal cards but the Excuse)."""
    suit = _lead_suit(trick)
    slot, best = _trick_winner(trick)
    on_trick = trick.shape[0]
    trick_value = 0
    for j in range(on_trick):
        trick_value += VALUE[trick[j, 1]]
    if slot >= 0 and _side(slot, seats) == 1 and _secure(best, suit, seats, on_trick, out):
        # A partner's sure trick: smear, but not with a card that would take it and could lose it.
        keeps = np.zeros(NUM_CARDS, dtype=np.bool_)
        any_keep = False
        for c in range(NUM_CARDS):
            if cards[c] and (not _beats(c, best, suit) or _secure(c, suit, seats, on_trick, out)):
                keeps[c] = True
                any_keep = True
        return _smear(keeps if any_keep else cards)
    w = -1  # the weakest card that wins the trick for sure
    for c in range(NUM_CARDS):
        if cards[c] and _beats(c, best, suit) and _secure(c, suit, seats, on_trick, out):
            if w < 0 or STRENGTH[c] < STRENGTH[w]:
                w = c
    cost = _cheapest(cards)
    if w >= 0:
        # Win when it is cheap (a plain card, the Petit saved, no cheaper card, the last seat)
        # or when the trick is worth spending a master trump on.
        if not IS_TRUMP[w] or w == PETIT or w == cost or trick_value >= 6 or on_trick == seats[0] - 1:
            return w
    return cost


@kernel(inline=True)
def _lowest_trump(cards, skip_petit):
    """The lowest trump of ``cards`` (but the Petit when ``skip_petit``), -1 if none."""
    for c in range(FIRST_TRUMP, LAST_TRUMP + 1):
        if cards[c] and not (skip_petit and c == PETIT):
            return c
    return -1


@kernel
def _choose_lead(cards, excuse_legal, hand, seats, out):
    """A card to lead (``cards``: the legal cards but the Excuse): the master Petit, then the
    taker's trump draw, masters, the longest suit."""
    n, taker, partner = seats[0], seats[1], seats[2]
    n_trumps = _count(cards, FIRST_TRUMP, LAST_TRUMP + 1)
    n_plain = _count(cards, 0, FIRST_TRUMP)
    if n_trumps + n_plain == 0:
        return EXCUSE
    out_trumps = _count(out, FIRST_TRUMP, LAST_TRUMP + 1)
    if cards[PETIT] and out_trumps == 0:
        return PETIT
    attack = taker == 0 or partner == 0  # the taker, or his partner (5 players) who knows it
    if attack and n_trumps > 0 and out_trumps > 0 and n_trumps >= out_trumps:
        top = -1  # the highest master trump (the trump ids rise with the rank)
        for c in range(FIRST_TRUMP, LAST_TRUMP + 1):
            if cards[c] and _is_master(c, out):
                top = c
        if top >= 0:
            return top
        low = _lowest_trump(cards, True)
        if low >= 0:
            return low
    # The masters of suits the others can still follow: the most points, then the highest.
    best, best_key = -1, (0, 0)
    for c in range(FIRST_TRUMP):
        if cards[c] and _is_master(c, out):
            lo = SUIT[c] * SUIT_SIZE
            if _count(out, lo, lo + SUIT_SIZE) >= n - 1:
                key = (VALUE[c], RANK[c])
                if best < 0 or key > best_key:
                    best, best_key = c, key
    if best >= 0:
        return best
    if n_plain > 0:
        # The lowest card of the longest suit in hand (the suit of the king, then the first, on a tie).
        longest, longest_key = -1, (0, 0, 0)
        for s in range(4):
            lo = s * SUIT_SIZE
            key = (_count(hand, lo, lo + SUIT_SIZE), int(hand[lo + KING - 1] != 0), -s)
            if longest < 0 or key > longest_key:
                longest, longest_key = s, key
        lo = longest * SUIT_SIZE
        suited = _count(cards, lo, lo + SUIT_SIZE) > 0  # else any plain card (a suit it may not lead)
        low, low_key = -1, (0, 0)
        for c in range(FIRST_TRUMP):
            if cards[c] and (not suited or SUIT[c] == longest):
                key = (VALUE[c], RANK[c])
                if low < 0 or key < low_key:
                    low, low_key = c, key
        return low
    if excuse_legal and n_trumps == 1 and cards[PETIT]:
        return EXCUSE
    # Trumps only: the highest one if the attack can draw with a master, else the lowest.
    skip_petit = n_trumps > 1 or not cards[PETIT]
    top = -1
    for c in range(FIRST_TRUMP, LAST_TRUMP + 1):
        if cards[c] and not (skip_petit and c == PETIT):
            top = c
    if attack and _is_master(top, out):
        return top
    return _lowest_trump(cards, skip_petit)


# ---------------------------------------------------------------------------------------------
# One observation row, and a batch of them
# ---------------------------------------------------------------------------------------------
@kernel(inline=True)
def _first_slot(o, at, n):
    """The first relative slot marked in the one-hot field of ``n`` slots at offset ``at``, -1 if none."""
    for s in range(n):
        if o[at + s] != 0:
            return s
    return -1


@kernel(inline=True)
def _seats(o, offsets, n):
    """``(n, taker, partner, alone)`` as the observation tells them (relative slots, -1 unknown;
    ``partner`` and ``alone`` only with 5 players, where the observation has them)."""
    taker = _first_slot(o, offsets[F_TAKER], n)
    partner, alone = -1, 0
    if offsets[F_PARTNER] >= 0:
        partner = _first_slot(o, offsets[F_PARTNER], n)
        alone = 1 if o[offsets[F_ALONE]] != 0 else 0
    return n, taker, partner, alone


@kernel
def _read_trick(o, offsets, n):
    """The current trick as ``(slot, card)`` rows in play order: the players who have played to it
    are the ones just before me, slots n-k .. n-1, so the rows go by slot, then by card."""
    at = offsets[F_TRICK]
    k = _count(o, at, at + n * NUM_CARDS)
    trick = np.empty((k, 2), dtype=np.int64)
    j = 0
    for x in range(n * NUM_CARDS):
        if o[at + x] != 0:
            trick[j, 0], trick[j, 1] = x // NUM_CARDS, x % NUM_CARDS
            j += 1
    return trick


@kernel
def _cards_out(o, offsets, n):
    """The cards still held by the other players (or unseen in a chien nobody looked at): not in
    my hand, not played by anyone, not in the écart as I know it."""
    hand, ecart, played = offsets[F_HAND], offsets[F_ECART], offsets[F_PLAYED]
    out = np.empty(NUM_CARDS, dtype=np.bool_)
    for c in range(NUM_CARDS):
        seen = o[hand + c] != 0 or o[ecart + c] != 0
        for s in range(n):
            if o[played + s * NUM_CARDS + c] != 0:
                seen = True
        out[c] = not seen
    return out


@kernel
def _choose_play(o, m, offsets, n, num_tricks):
    """A card to play: the Excuse when due, else a lead or a follow."""
    cards = np.zeros(NUM_CARDS, dtype=np.bool_)  # the legal cards but the Excuse
    legal = 0
    for c in range(NUM_CARDS):
        if m[PLAY + c]:
            legal += 1
            cards[c] = c != EXCUSE
    if legal == 1:
        for c in range(NUM_CARDS):
            if m[PLAY + c]:
                return PLAY + c
    seats = _seats(o, offsets, n)
    trick = _read_trick(o, offsets, n)
    out = _cards_out(o, offsets, n)
    at = offsets[F_HAND]
    hand = o[at : at + NUM_CARDS]
    at = offsets[F_WINNERS]
    winners = o[at : at + num_tricks * n]
    if m[PLAY + EXCUSE] and _excuse_now(cards, hand, trick, seats, out, winners, num_tricks):
        return PLAY + EXCUSE
    if _lead_suit(trick) < 0:  # no card on the trick but (perhaps) the Excuse
        return PLAY + _choose_lead(cards, m[PLAY + EXCUSE], hand, seats, out)
    return PLAY + _choose_follow(cards, trick, seats, out)


@kernel
def _decide_row(o, m, offsets, n, hand_size, num_tricks):
    """The bot's action for one observation row ``o`` and its mask ``m``; -1 for a mask with no
    legal action. The decision asked is told by the first legal action (each phase has its range)."""
    first, legal = -1, 0
    for a in range(m.shape[0]):
        if m[a]:
            if first < 0:
                first = a
            legal += 1
    if legal <= 1:
        return first
    at = offsets[F_HAND]
    hand = o[at : at + NUM_CARDS]
    if first < DISCARD:
        return _choose_play(o, m, offsets, n, num_tricks)
    if first < BID:
        return _choose_discard(hand, m, hand_size)
    if first < CALL:
        return _choose_bid(hand, m, n)
    if first < CHELEM:
        return _choose_call(hand, m)
    if first < POIGNEE:
        return _choose_chelem(hand, m, hand_size)
    if first < SHOW:
        return _choose_poignee(m)
    return _choose_show(m)


@kernel
def act_rows(obs, masks, offsets, n, hand_size, num_tricks):
    """The bot's action for every row of ``obs`` (B, D) int8 and ``masks`` (B, A) bool, as (B,)
    int64 (-1 for a row with no legal action). ``offsets``: :func:`field_offsets` of the ``n``
    players' observation; ``hand_size`` the cards a player is dealt; ``num_tricks`` the tricks
    of a deal."""
    actions = np.empty(obs.shape[0], dtype=np.int64)
    for i in range(obs.shape[0]):
        actions[i] = _decide_row(obs[i], masks[i], offsets, n, hand_size, num_tricks)
    return actions


# ---------------------------------------------------------------------------------------------
# The agent
# ---------------------------------------------------------------------------------------------
class FrenchRuleAgent:
    """A rule-based French Tarot player (see the module docstring for its strategy).

    ``act(observations (B, D) int8, masks (B, A) bool) -> actions (B,)``; one observation of
    shape ``(D,)`` and one mask of shape ``(A,)`` give an int. Deterministic: the action
    depends only on the observation and the mask (``seed`` is accepted for the agents'
    common constructor and not used).
    """

    name = "french_rules"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray | int:
        obs = np.asarray(observations)
        masks = np.asarray(masks, dtype=bool)
        single = masks.ndim == 1
        if single:
            obs, masks = obs.reshape(1, -1), masks[None]
        elif obs.ndim != 2 or len(obs) != len(masks):
            raise ValueError(f"observations {obs.shape} and masks {masks.shape} must be (B, D) and (B, A)")
        if masks.ndim != 2 or masks.shape[1] != A.NUM_ACTIONS:
            raise ValueError(f"masks {masks.shape} must have {A.NUM_ACTIONS} actions a row")
        actions = _act_checked(obs, masks)
        if single:
            action = int(actions[0])
            if action < 0:
                raise ValueError(_NO_LEGAL_ACTION)
            return action
        if len(actions) and actions.min() < 0:
            raise ValueError(_NO_LEGAL_ACTION)
        return actions


_NO_LEGAL_ACTION = "an action mask with no legal action was given to FrenchRuleAgent.act"


@cache
def _tables(observation_size: int) -> tuple[int, np.ndarray, int, int] | None:
    """What :func:`act_rows` needs to read observations of this size: the player count, the
    fields' offsets, the hand size and the tricks of a deal; None for a size no table has."""
    n = _players_by_size().get(observation_size)
    return None if n is None else (n, field_offsets(n), HAND_SIZE[n], _num_tricks(n))


def _act_checked(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """:func:`act_rows` on shape-checked inputs, with what the compiled code cannot do: the
    observation's values as int8 (any nonzero value is a 1), contiguous rows, and the error for
    an observation of no French Tarot table (-1 is returned for a mask with no legal action)."""
    if obs.dtype != np.int8:
        obs = (obs != 0).view(np.int8)
    tables = _tables(obs.shape[1])
    if tables is None:
        # Only a real decision reads the observation: rows of one legal action (or none) get
        # their answer whatever it is, as the NumPy bot gave them; the others raise.
        if masks.sum(axis=1).max(initial=0) > 1:
            num_players_of(obs.shape[1])  # raises the ValueError
        size = next(iter(_players_by_size()))  # any table's size: nothing is read
        tables, obs = _tables(size), np.zeros((len(obs), size), dtype=np.int8)
    n, offsets, hand_size, num_tricks = tables
    return act_rows(np.ascontiguousarray(obs), np.ascontiguousarray(masks), offsets, n, hand_size, num_tricks)
