"""A rule-based bot for the seven Tarocchino games: one observation and mask in, one action out.

``TarocchinoRuleAgent(game)`` reads nothing but the observation vector (decoded by field name
with :func:`tarot_env.encoding.bolognese.layout`) and the action mask: its own hand, the cards
seen on the table and in piles, the cards others showed in declarations, who leads, who is
partner. It never sees another hand. It is deterministic (ties go to the lower card id).

Strategy, decision by decision:

- **Claims**: always claim when a window opens, unless the window's ``claim_value`` is below
  the target (a window that ``wrong_claim="loses"`` may offer below it).
- **Declarations**: always declare (the points count; hiding them is not worth it here).
- **Discards**: keep what makes combinations (each candidate is scored with
  ``combination_points`` of the hand without it) and keep trumps; among the rest, throw the
  low scartini of the shortest suits, voiding a suit where possible, and prefer a lone,
  unprotected figure (it is safe in the discarder's own pile) to a low card of a long suit.
- **Terziglio auction**: a hand strength from trumps (high trumps weigh more), Kings, figures,
  voids and the hand's combinations; ``di_mio`` from a very strong hand, ``posso`` from a
  strong one, else ``pass``; a ``posso`` is opposed (``oppose``) only with a very strong hand.
- **Card play, point games** (every game but Mattazza): each legal card gets an expected value
  ``(2P - 1) x (points in the trick + the card's worth) - the card's power``, where ``P`` is
  the chance that the player's side takes the trick (the chance that no opponent still to play
  can beat the winning card, from the unseen cards: a hypergeometric estimate of holding a
  higher card, or being void and holding a trump), a card's worth is its value plus the
  combinations it makes or breaks in the side's cards (so combination cards are protected),
  and power is what a high trump or the top card of a suit is worth for later tricks. This
  takes tricks with points cheaply, smears points on a partner's safe trick, throws low
  scartini into lost tricks, cashes sure winners (high trumps, Kings in fresh suits) when
  leading, else leads low from long suits. The Matto is covered where the side loses a trick
  and every other card would cost points, and is not kept for the last trick.
- **Mattazza** (lowest score with at least one trick): while the player has no trick, taking a
  trick is worth a bonus that grows as the hand goes on, so a cheap safe trick is taken early;
  afterwards each card's cost is the chance of winning times the trick's points (with the
  combinations the player's pile would gain), and a card that cannot win is worth throwing the
  more it is worth and the more likely it is to win a later trick: high cards are dumped on
  others' tricks. The Matto is the escape from a trick that would be won with points.
- **The Matto exchange** (``give <card>``): the lowest-value card whose loss breaks no
  combination of the side's pile (Mattazza: the card that lowers the player's score most).

**Compiled.** The bot is the opponent of training (experiments/train.py), so its decisions are
the rollouts' hot path: :meth:`TarocchinoRuleAgent.act` decides a whole batch in one call of
:func:`_act_rows`, a loop over the rows written once as plain Python (the functions below,
over one observation row and mask) and compiled by numba (:func:`tarot_env._jit.kernel`);
with ``TAROT_ENV_JIT=0`` the same functions run as Python. The kernel reads the observation's
fields at the offsets of the encoder's layout, looked up by name (``off[F_HAND]``, the
``F_*`` indices of :mod:`tarot_env.encoding.bolognese`), and what tells the games apart as
ints of the game's :class:`~tarot_env.rules.bolognese.game_specs.GameSpec` row (the ``G_*``
entries: the sides, penalty scoring, the tricks, the target). It values piles with
:func:`~tarot_env.rules.bolognese.combinations.combination_points_row`, the one count of
cricche and sequences that ``combination_points`` runs too. Sorted strength lists and their
``bisect`` (the bot's first, NumPy form) became counts of the cards above or below a card
(the same numbers); the float expressions are kept in the same order, so the decisions are
the same bit for bit (tests/test_tarocchino_rules_compiled.py replays the decisions of that
first form, recorded over a fixed deal set in ``tests/data/bot_golden.json``).
"""

from __future__ import annotations

import numpy as np

from tarot_env._jit import kernel
from tarot_env.cards.bolognese import ANGELO, BOLOGNESE_DECK, IS_TRUMP, LUNA, MATTO, MONDO, MORO_STRENGTH, NUM_CARDS, SOLE, SUIT_SIZE
from tarot_env.cards.deck import TRUMP_SUIT
from tarot_env.encoding.bolognese import (
    F_ACTIVE,
    F_CLAIM_VALUE,
    F_DISCARD,
    F_HAND,
    F_LEADER,
    F_PLAYED,
    F_SHOWN,
    F_SOLOIST,
    F_TRICK,
    F_TRICKS_WON,
    F_WON,
    FIELDS,
    TRICKS_BITS,
    field_offsets,
    layout,
)
from tarot_env.rules.bolognese.combinations import MORI_CODE, SEQUENCE_FAMILIES, combination_points_row
from tarot_env.rules.bolognese.game_specs import GAMES, GameSpec
from tarot_env.rules.bolognese.state import (
    A_CLAIM,
    A_DECLARE,
    A_DI_MIO,
    A_NO_CLAIM,
    A_NO_DECLARE,
    A_OPPOSE,
    A_PASS,
    A_POSSO,
    A_VA_BENE,
    AB_DISCARD,
    AB_GIVE,
    AB_PLAY,
    NUM_ACTIONS,
)

# ---------------------------------------------------------------------- the cards, as plain arrays (numba freezes them)
VALUE = BOLOGNESE_DECK.value.astype(np.float64)
PTS = VALUE - 1.0  # what a card adds to a pile's card points, scartini 0 (Σv − N + groups)
STRENGTH = BOLOGNESE_DECK.strength.astype(np.int64)
SUIT = BOLOGNESE_DECK.suit.astype(np.int64)
RANK = BOLOGNESE_DECK.rank.astype(np.int64)
TRUMP = IS_TRUMP.copy()  # the 21 numbered trumps (not the Matto)
MORO = MORO_STRENGTH  # the four Mori are equal (cards/bolognese.py)
#: a small extra worth for cards that make cricche (figures, Tarocchi) and sequences (trumps, Aces)
EXTRA = np.where((VALUE > 1) | (np.arange(NUM_CARDS) == MATTO), 0.5, np.where(TRUMP | (RANK == 0), 0.15, 0.0))
#: the combinations are counted as at the end of a hand (U5 "both", with the §6.2 doubling)
MORI = MORI_CODE["both"]
DOUBLING = True
N_SEQUENCES = len(SEQUENCE_FAMILIES)


def _hand_worth(c: int) -> float:
    """What card ``c`` adds to the Terziglio hand strength: trumps (the high ones more), the
    Matto, figures by value (the voids and combinations are added for the whole hand)."""
    if TRUMP[c]:
        return 1.0 + {ANGELO: 3.0, MONDO: 2.5, SOLE: 1.5, LUNA: 1.2}.get(c, 0.0) + (0.08 * (RANK[c] - 8) if RANK[c] > 8 else 0.0)
    if c == MATTO:
        return 1.5
    return {5: 2.0, 4: 0.8, 3: 0.4, 2: 0.2}.get(int(VALUE[c]), 0.0)


HAND_WORTH = np.array([_hand_worth(c) for c in range(NUM_CARDS)], dtype=np.float64)

#: the groups a card is beaten within: the four suits (0..3) and the trumps (TRUMP_SUIT); each
#: group's cards, padded with -1, so that the cards above a card are counted over its group only
N_GROUPS = TRUMP_SUIT + 1
GROUP_CARDS = np.full((N_GROUPS, NUM_CARDS), -1, dtype=np.int64)
GROUP_SIZE = np.zeros(N_GROUPS, dtype=np.int64)
GROUP = np.full(NUM_CARDS, -1, dtype=np.int64)  # each card's group, -1 for the Matto
for _g in range(N_GROUPS):
    _ids = np.flatnonzero(TRUMP) if _g == TRUMP_SUIT else np.flatnonzero(_g == SUIT)
    GROUP_CARDS[_g, : len(_ids)] = _ids
    GROUP_SIZE[_g] = len(_ids)
    GROUP[_ids] = _g

# ---------------------------------------------------------------------- the kernel's parameters, by name
#: the game's row (GameSpec) as the ints the kernel reads: ``game[G_SIDES]`` ...
G_SIDES, G_PENALTY, G_TRICKS, G_HAS_TARGET, G_TARGET = range(5)
#: GameSpec.sides as an int
SIDES = {"partners": 0, "soloist": 1, "each": 2}
SIDES_PARTNERS, SIDES_SOLOIST = SIDES["partners"], SIDES["soloist"]
#: the strategy's tunable numbers (the agent's class attributes) as floats: ``knobs[K_POWER]`` ...
K_REST, K_POWER, K_NEED_BASE, K_NEED_GROWTH, K_KEEP_WINNERS, K_DI_MIO, K_POSSO, K_OPPOSE = range(8)
#: what the kernel knows of the trick in progress, one int64 row: ``trick[T_LEAD]`` ...
T_LEAD, T_BEST, T_BEST_SEAT, T_CARDS, T_AFTER, T_UNSEEN, T_IN_HAND = range(7)
N_TRICK = 7
#: the seats of a table (Mattazza plays up to 6)
MAX_SEATS = 6


# ====================================================================== reading the observation row
@kernel(inline=True)
def _on(obs, at):
    """Whether the observation's value at ``at`` is set (the bot reads it as a bool)."""
    return obs[at] != 0


@kernel(inline=True)
def _one_hot(obs, at, length, default):
    """The index a one-hot field marks (the first largest value), ``default`` when it is all 0."""
    best = 0
    marked = False
    for i in range(length):
        if obs[at + i] != 0:
            marked = True
        if obs[at + i] > obs[at + best]:
            best = i
    return best if marked else default


@kernel(inline=True)
def _number(obs, at, bits):
    """A number the encoder wrote in binary, least significant bit first."""
    v = 0
    for i in range(bits):
        v += int(obs[at + i]) * (1 << i)
    return v


@kernel
def _partners(obs, off, n, sides, partner):
    """Marks the player's partners (relative seats) in ``partner``: the seat opposite in a game of
    two sides of two, the other two against a soloist, nobody where each plays for himself or
    before a soloist is known."""
    for s in range(partner.shape[0]):
        partner[s] = False
    if sides == SIDES_PARTNERS and n == 4:
        partner[2] = True
    elif sides == SIDES_SOLOIST:
        soloist = _one_hot(obs, off[F_SOLOIST], n, -1)
        if soloist > 0:
            for s in range(1, 3):
                if s != soloist:
                    partner[s] = True


@kernel
def _pile(obs, off, n, partner, pile):
    """The side's pile into ``pile``: the player's own discards and the cards he and his partners won."""
    for c in range(NUM_CARDS):
        pile[c] = _on(obs, off[F_DISCARD] + c) or _on(obs, off[F_WON] + c)
        for p in range(1, n):
            if partner[p] and _on(obs, off[F_WON] + p * NUM_CARDS + c):
                pile[c] = True


# ====================================================================== combinations
@kernel(inline=True)
def _points(cards, L, L2):
    """The combination points of ``cards`` (cricche and sequences, §6), as a hand's end counts them."""
    return combination_points_row(cards, MORI, DOUBLING, L, L2)


@kernel
def _points_if(cards, c, held, L, L2):
    """The combination points of ``cards`` were card ``c`` held (``held=True``) or not
    (``False``); ``cards`` is left as it was."""
    had = cards[c]
    cards[c] = held
    v = _points(cards, L, L2)
    cards[c] = had
    return v


# ====================================================================== claims, declarations, auction
@kernel(inline=True)
def _first_legal(mask):
    """The first legal action."""
    for a in range(mask.shape[0]):
        if mask[a]:
            return a
    return -1


@kernel
def _claim(mask, claim_value, game):
    """Claim, unless the window offers less than the target (``wrong_claim="loses"`` may)."""
    ok = game[G_HAS_TARGET] == 0 or claim_value >= game[G_TARGET]
    if ok and mask[A_CLAIM]:
        return A_CLAIM
    return A_NO_CLAIM if mask[A_NO_CLAIM] else A_CLAIM


@kernel
def _hand_strength(hand, L, L2):
    """Terziglio hand strength: trumps (the high ones more), Kings, figures, voids, combinations."""
    s = 0.0
    for c in range(NUM_CARDS):
        if hand[c]:
            s += HAND_WORTH[c]
    for su in range(4):
        k = 0
        for c in range(NUM_CARDS):
            if hand[c] and SUIT[c] == su:
                k += 1
        if k == 0:
            s += 1.0
        elif k == 1:
            s += 0.4
    s += float(_points(hand, L, L2)) / 12.0
    return s


@kernel
def _auction(mask, hand, knobs, L, L2):
    """Terziglio: ``di_mio`` from a very strong hand, ``posso`` from a strong one, else pass; a
    ``posso`` is opposed only with a very strong hand."""
    s = _hand_strength(hand, L, L2)
    if mask[A_VA_BENE] or mask[A_OPPOSE]:
        if s >= knobs[K_OPPOSE] and mask[A_OPPOSE]:
            return A_OPPOSE
        return A_VA_BENE if mask[A_VA_BENE] else A_OPPOSE
    if s >= knobs[K_DI_MIO] and mask[A_DI_MIO]:
        return A_DI_MIO
    if s >= knobs[K_POSSO] and mask[A_POSSO]:
        return A_POSSO
    if mask[A_PASS]:
        return A_PASS
    return _first_legal(mask)


# ====================================================================== discards, the Matto exchange
@kernel
def _discard(mask, hand, L, L2):
    """The card to discard: breaking a combination costs 2.5 a point, a trump 20 and more; among
    the rest, a low card of a short suit (voiding it) or a lone unprotected figure goes first."""
    whole = _points(hand, L, L2)
    best = -1
    best_cost = np.inf
    for c in range(NUM_CARDS):
        if not mask[AB_DISCARD + c]:
            continue
        if best < 0:
            best = c
        # a cricca (12 points or more) is never broken for a trump or a long suit
        cost = 2.5 * float(whole - _points_if(hand, c, False, L, L2))
        if TRUMP[c]:
            cost += 20.0 + 0.4 * RANK[c]
        else:
            k = 0
            for d in range(NUM_CARDS):
                if hand[d] and SUIT[d] == SUIT[c]:
                    k += 1
            king = hand[SUIT[c] * SUIT_SIZE + SUIT_SIZE - 1]
            cost += 1.5 * k + (-2.0 if k == 1 else 0.0)
            if VALUE[c] > 1 and not king:
                cost -= 0.6 * PTS[c]  # an unprotected figure is safe in the own pile
            elif VALUE[c] > 1:
                cost += 1.0 * PTS[c]
            cost += 0.05 * STRENGTH[c]
        if cost < best_cost - 1e-9:
            best, best_cost = c, cost
    return best


@kernel
def _give(mask, pile, penalty, L, L2):
    """The Matto exchange: the card whose value and combinations the side's ``pile`` misses least
    (with penalty scoring, most: the card that lowers the player's own score most); the first
    such card on a tie."""
    whole = _points(pile, L, L2)
    best = -1
    best_cost = 0.0
    for c in range(NUM_CARDS):
        if not mask[AB_GIVE + c]:
            continue
        cost = VALUE[c] + float(whole - _points_if(pile, c, False, L, L2))
        if best < 0 or (penalty and cost > best_cost) or (not penalty and cost < best_cost):
            best, best_cost = c, cost
    return best


# ====================================================================== the trick: who can beat what
@kernel(inline=True)
def _p_none(x, h, u):
    """Chance that a hand of ``h`` cards drawn from ``u`` unseen cards holds none of ``x`` given ones."""
    if x <= 0 or h <= 0:
        return 1.0
    if u - x < h:
        return 0.0
    p = 1.0
    for i in range(h):
        p *= (u - x - i) / (u - i)
    return p


@kernel(inline=True)
def _beats(c, best, lead):
    """Whether card ``c`` played after ``best`` (the winning card, lead suit ``lead``) takes the lead."""
    if c == MATTO:
        return False
    if best < 0:
        return True
    if TRUMP[c]:
        if not TRUMP[best]:
            return True
        return STRENGTH[c] > STRENGTH[best] or (STRENGTH[c] == MORO and STRENGTH[best] == MORO)
    return (not TRUMP[best]) and SUIT[c] == lead and STRENGTH[c] > STRENGTH[best]


@kernel(inline=True)
def _n_stronger(cards, g, c):
    """How many of ``cards`` of group ``g`` beat card ``c`` played before them (a later Moro beats a Moro)."""
    k = STRENGTH[c]
    moro = TRUMP[c] and k == MORO
    n = 0
    for i in range(GROUP_SIZE[g]):
        d = GROUP_CARDS[g, i]
        if cards[d] and (STRENGTH[d] >= MORO if moro else STRENGTH[d] > k):
            n += 1
    return n


@kernel(inline=True)
def _n_weaker(cards, g, k):
    """How many of ``cards`` of group ``g`` have a strength below ``k``."""
    n = 0
    for i in range(GROUP_SIZE[g]):
        d = GROUP_CARDS[g, i]
        if cards[d] and STRENGTH[d] < k:
            n += 1
    return n


@kernel(inline=True)
def _clip01(p):
    """``min(1.0, max(0.0, p))`` as Python computes it."""
    q = 0.0
    if p > q:
        q = p
    r = 1.0
    if q < r:
        r = q
    return r


@kernel
def _cant_beat(j, c, lead, view):
    """Chance that seat ``j`` (still to play) cannot beat card ``c``, the winning card, lead suit
    ``lead``: from the cards he is known to hold (shown in a declaration), else a hypergeometric
    draw of his other cards from the unseen ``pool``."""
    _, pool, known, n_known, _, _, _, _, trick, pool_groups, known_groups, _ = view
    h = max(0, trick[T_IN_HAND] - n_known[j])
    u = trick[T_UNSEEN]
    kn = known[j]
    if lead == TRUMP_SUIT:  # trumps led: a higher trump beats
        p = 0.0 if _n_stronger(kn, TRUMP_SUIT, c) else _p_none(_n_stronger(pool, TRUMP_SUIT, c), h, u)
    else:
        su = pool_groups[lead]
        kn_suit = known_groups[j, lead] > 0
        if TRUMP[c]:  # a trump on a suit: a void player with a higher trump beats it
            if kn_suit:
                p = 1.0
            else:
                void = _p_none(su, h, u)
                if _n_stronger(kn, TRUMP_SUIT, c):
                    p = 1.0 - void
                else:
                    p = 1.0 - (void - _p_none(su + _n_stronger(pool, TRUMP_SUIT, c), h, u))
        else:  # a suit card: a higher card of the suit, or a void player with a trump
            if _n_stronger(kn, lead, c):
                p = 0.0
            else:
                no_higher = _p_none(_n_stronger(pool, lead, c), h, u)
                if kn_suit:
                    p = no_higher
                elif known_groups[j, TRUMP_SUIT]:
                    p = no_higher - _p_none(su, h, u)
                else:
                    void = _p_none(su, h, u)
                    p = no_higher - (void - _p_none(su + pool_groups[TRUMP_SUIT], h, u))
    return _clip01(p)


@kernel
def _hold(c, lead, opponents_only, view):
    """Chance that none of the seats still to play (the opponents among them only, with
    ``opponents_only``) can beat card ``c``."""
    after, partner, trick = view[6], view[7], view[8]
    p = 1.0
    for k in range(trick[T_AFTER]):
        j = after[k]
        if not (opponents_only and partner[j]):
            p *= _cant_beat(j, c, lead, view)
    return p


@kernel
def _side_win(c, seat, view):
    """Chance that the player's side takes the trick when ``c`` (played by ``seat``) is winning:
    no opponent still to play beats it, or, for an opponent's card, the first partner still to
    play beats it (and keeps it, 0.6)."""
    after, partner, trick = view[6], view[7], view[8]
    if c < 0:
        return 0.0
    lead = trick[T_LEAD] if trick[T_LEAD] >= 0 else SUIT[c]
    if seat == 0 or partner[seat]:
        return _hold(c, lead, True, view)
    for k in range(trick[T_AFTER]):
        if partner[after[k]]:
            return 0.6 * (1.0 - _cant_beat(after[k], c, lead, view))
    return 0.0


@kernel
def _power(c, pool, pool_groups):
    """What card ``c`` is worth for winning later tricks: a trump by how many unseen trumps it
    beats, a suit card if it is the suit's top card (or the second) among the unseen ones."""
    if TRUMP[c]:
        t = pool_groups[TRUMP_SUIT]
        if t == 0:
            return 0.5
        return 0.3 + 2.5 * _n_weaker(pool, TRUMP_SUIT, STRENGTH[c]) / t
    higher = _n_stronger(pool, SUIT[c], c)
    return 1.0 if higher == 0 else 0.4 if higher == 1 else 0.0


@kernel(inline=True)
def _suit_count(hand, s):
    """The cards of suit ``s`` in the hand."""
    k = 0
    for c in range(s * SUIT_SIZE, s * SUIT_SIZE + SUIT_SIZE):
        if hand[c]:
            k += 1
    return k


@kernel
def _read_trick(obs, off, n, view):
    """The trick in progress and the unseen cards, seen from the player to act (relative seat 0).

    Fills ``view`` (the tuple :func:`_act_rows` makes): ``hand``; the unseen cards nobody is
    known to hold (``pool``) and the cards each other seat is known to hold (``known``: shown
    in a declaration and unseen; their number ``n_known``), with their counts in each group
    (``pool_groups``, ``known_groups``); the trick's cards in play order from the leader
    (``trick_seats``, ``trick_cards``, the player's own excluded); the seats still to play
    (``after``: the active seats without a card on the table; ``table``: the card each seat has
    there, -1 for none); and ``trick``: the lead suit,
    the winning card and its seat (-1 before a card that is not the Matto), the counts. One
    pass over the cards reads every card field (``|``, not ``or``: no branch per field)."""
    hand, pool, known, n_known, trick_seats, trick_cards, after, _, trick, pool_groups, known_groups, table = view
    for s in range(n):
        table[s] = -1
        n_known[s] = 0
        for g in range(N_GROUPS):
            known_groups[s, g] = 0
    for g in range(N_GROUPS):
        pool_groups[g] = 0
    in_hand = 0
    unseen = 0
    for c in range(NUM_CARDS):
        hand[c] = _on(obs, off[F_HAND] + c)
        seen = hand[c] | _on(obs, off[F_DISCARD] + c)
        for s in range(n):
            on_table = _on(obs, off[F_TRICK] + s * NUM_CARDS + c)
            if on_table and table[s] < 0:
                table[s] = c
            seen = seen | _on(obs, off[F_PLAYED] + s * NUM_CARDS + c) | on_table
        if hand[c]:
            in_hand += 1
        held = False
        known[0, c] = False
        for j in range(1, n):
            known[j, c] = (not seen) and _on(obs, off[F_SHOWN] + j * NUM_CARDS + c)
            if known[j, c]:
                held = True
                n_known[j] += 1
                if GROUP[c] >= 0:
                    known_groups[j, GROUP[c]] += 1
        pool[c] = not seen and not held
        if pool[c]:
            unseen += 1
            if GROUP[c] >= 0:
                pool_groups[GROUP[c]] += 1
    leader = _one_hot(obs, off[F_LEADER], n, 0)
    n_cards = 0
    for k in range(n):
        s = (leader + k) % n
        if s != 0 and table[s] >= 0:
            trick_seats[n_cards] = s
            trick_cards[n_cards] = table[s]
            n_cards += 1
    everyone = True  # the active field is all 0 outside a Mattazza match: everyone plays
    for s in range(n):
        if _on(obs, off[F_ACTIVE] + s):
            everyone = False
    n_after = 0
    for s in range(1, n):
        if (everyone or _on(obs, off[F_ACTIVE] + s)) and table[s] < 0:
            after[n_after] = s
            n_after += 1
    lead, best, best_seat = -1, -1, -1
    for k in range(n_cards):
        s, c = trick_seats[k], trick_cards[k]
        if c == MATTO:
            continue
        if lead < 0:
            lead, best, best_seat = SUIT[c], c, s
        elif _beats(c, best, lead):
            best, best_seat = c, s
    trick[T_LEAD] = lead
    trick[T_BEST] = best
    trick[T_BEST_SEAT] = best_seat
    trick[T_CARDS] = n_cards
    trick[T_AFTER] = n_after
    trick[T_UNSEEN] = unseen
    trick[T_IN_HAND] = in_hand


# ====================================================================== card play
@kernel
def _play_points(mask, obs, off, n, game, knobs, view, scratch):
    """Point games: the card of the highest expected value ``(2P - 1) x (trick points + the
    card's worth) - late x power`` (see the module docstring)."""
    hand, pool, _, _, trick_seats, trick_cards, _, partner, trick, pool_groups, _, _ = view
    side, worth, L, L2 = scratch
    # the side's cards, the partners' cards on the table included: what each card makes or breaks there
    _pile(obs, off, n, partner, side)
    for c in range(NUM_CARDS):
        if hand[c]:
            side[c] = True
    for k in range(trick[T_CARDS]):
        if partner[trick_seats[k]] and trick_cards[k] != MATTO:
            side[trick_cards[k]] = True
    whole = _points(side, L, L2)
    for c in range(NUM_CARDS):
        if mask[AB_PLAY + c] and c != MATTO:
            worth[c] = PTS[c] + EXTRA[c] + float(whole - _points_if(side, c, False, L, L2))
    trick_value = 0.0
    for k in range(trick[T_CARDS]):  # the partners' cards: their worth to the side
        c = trick_cards[k]
        if partner[trick_seats[k]] and c != MATTO:
            worth[c] = PTS[c] + EXTRA[c] + float(whole - _points_if(side, c, False, L, L2))
            trick_value += worth[c]
    for k in range(trick[T_CARDS]):  # the opponents' cards: what the side would gain with them
        c = trick_cards[k]
        if not partner[trick_seats[k]] and c != MATTO:
            trick_value += PTS[c] + EXTRA[c] + float(_points_if(side, c, True, L, L2) - whole)
    tricks_left = trick[T_IN_HAND]
    if tricks_left == 1:
        trick_value += 6.0
    rest = knobs[K_REST] * trick[T_AFTER]
    late = knobs[K_POWER] * (tricks_left - 1) / max(1, game[G_TRICKS] - 1)
    p_kept = -1.0  # the side's chance if the winning card stays winning: the same for each card that does not beat it
    best_card, best_ev = -1, -np.inf
    for c in range(NUM_CARDS):
        if not mask[AB_PLAY + c]:
            continue
        if best_card < 0:
            best_card = c
        if c == MATTO:
            if p_kept < 0:
                p_kept = _side_win(trick[T_BEST], trick[T_BEST_SEAT], view)
            p = p_kept
            reserve = -8.0 if tricks_left <= 2 else 1.0 + 2.0 * late
            ev = (2 * p - 1) * (trick_value + rest) - (1 - p) * 1.0 - reserve
            if trick[T_CARDS] == 0 and tricks_left > 2:
                ev -= 10.0  # no Matto lead by choice, but it is not kept for the last trick
        else:
            if trick[T_LEAD] < 0 or _beats(c, trick[T_BEST], trick[T_LEAD]):
                p = _side_win(c, 0, view)
            else:
                if p_kept < 0:
                    p_kept = _side_win(trick[T_BEST], trick[T_BEST_SEAT], view)
                p = p_kept
            ev = (2 * p - 1) * (trick_value + worth[c] + rest) - late * _power(c, pool, pool_groups)
            if trick[T_CARDS] == 0 and not TRUMP[c]:
                ev += 0.05 * _suit_count(hand, SUIT[c])  # lead from long suits
        if ev > best_ev + 1e-9:
            best_card, best_ev = c, ev
    return best_card


@kernel(inline=True)
def _keep(c, sign, late, pool, pool_groups):
    """Mattazza, a card that does not win: throw points and high cards, but keep winners while a trick is needed."""
    return -0.5 * PTS[c] + sign * late * (1.5 * _power(c, pool, pool_groups))


@kernel
def _play_mattazza(mask, obs, off, n, game, knobs, view, scratch):
    """Mattazza (the lowest score with at least one trick): the card of the lowest cost, the chance
    of winning times the trick's points less the bonus of a first trick, else what keeping it costs."""
    _, pool, _, _, _, trick_cards, _, _, trick, pool_groups, _, _ = view
    pile, _, L, L2 = scratch
    for c in range(NUM_CARDS):
        pile[c] = _on(obs, off[F_WON] + c)
    mine = _points(pile, L, L2)
    card_points = 0.0
    for k in range(trick[T_CARDS]):
        c = trick_cards[k]
        if c != MATTO:
            pile[c] = True
            card_points += PTS[c]
    with_trick = _points(pile, L, L2)
    trick_pts = card_points + float(with_trick - mine)
    tricks_left = trick[T_IN_HAND]
    if tricks_left == 1:
        trick_pts += 6.0
    unseen_points = 0.0
    for c in range(NUM_CARDS):
        if pool[c]:
            unseen_points += PTS[c]
    avg = unseen_points / trick[T_UNSEEN] if trick[T_UNSEEN] else 0.0
    rest = (avg + 0.3) * trick[T_AFTER]
    no_trick = _number(obs, off[F_TRICKS_WON], TRICKS_BITS) == 0
    need = 0.0
    if no_trick:
        need = knobs[K_NEED_BASE] * n + knobs[K_NEED_GROWTH] * (1.0 - (tricks_left - 1) / max(1, game[G_TRICKS] - 1))
    late = (tricks_left - 1) / max(1, game[G_TRICKS] - 1)
    sign = -1.0 if need == 0 else knobs[K_KEEP_WINNERS]
    best_card, best_cost = -1, np.inf
    for c in range(NUM_CARDS):
        if not mask[AB_PLAY + c]:
            continue
        if best_card < 0:
            best_card = c
        if c == MATTO:
            cost = 1.5 * late if tricks_left > 1 else 0.0
            if trick[T_CARDS] == 0:
                cost += 5.0
            if no_trick:
                cost += 2.0  # without a trick the Matto itself goes
        elif trick[T_LEAD] < 0 or _beats(c, trick[T_BEST], trick[T_LEAD]):
            lead = trick[T_LEAD] if trick[T_LEAD] >= 0 else SUIT[c]
            p = _hold(c, lead, False, view)
            value = trick_pts + PTS[c] + float(_points_if(pile, c, True, L, L2) - with_trick) + rest
            cost = p * (value - need) + (1 - p) * _keep(c, sign, late, pool, pool_groups)
        else:
            cost = _keep(c, sign, late, pool, pool_groups)
        if cost < best_cost - 1e-9:
            best_card, best_cost = c, cost
    return best_card


# ====================================================================== one decision, a batch of them
@kernel
def _act_row(obs, mask, off, width, n, game, knobs, view, scratch):
    """The bot's action for one observation row and its mask. ``view`` holds what the player
    sees of the table (:func:`_read_trick`), ``scratch`` a card set, a value per card and the
    combination count's rows: buffers of :func:`_act_rows`, overwritten."""
    hand, partner = view[0], view[7]
    cards, _, L, L2 = scratch
    n_legal = 0
    for a in range(NUM_ACTIONS):
        if mask[a]:
            n_legal += 1
    if n_legal == 0:
        return -1  # refused: act() raises
    if n_legal == 1:
        return _first_legal(mask)
    if mask[A_CLAIM] or mask[A_NO_CLAIM]:
        return _claim(mask, _number(obs, off[F_CLAIM_VALUE], width[F_CLAIM_VALUE]), game)
    if mask[A_DECLARE] or mask[A_NO_DECLARE]:
        return A_DECLARE if mask[A_DECLARE] else A_NO_DECLARE
    if mask[A_PASS] or mask[A_POSSO] or mask[A_DI_MIO] or mask[A_VA_BENE] or mask[A_OPPOSE]:
        for c in range(NUM_CARDS):
            hand[c] = _on(obs, off[F_HAND] + c)
        return _auction(mask, hand, knobs, L, L2)
    discards = False
    gifts = False
    plays = False
    for c in range(NUM_CARDS):
        discards = discards or mask[AB_DISCARD + c]
        gifts = gifts or mask[AB_GIVE + c]
        plays = plays or mask[AB_PLAY + c]
    if discards:
        for c in range(NUM_CARDS):
            hand[c] = _on(obs, off[F_HAND] + c)
        return AB_DISCARD + _discard(mask, hand, L, L2)
    _partners(obs, off, n, game[G_SIDES], partner)
    if gifts:
        _pile(obs, off, n, partner, cards)
        return AB_GIVE + _give(mask, cards, game[G_PENALTY] != 0, L, L2)
    if plays:
        _read_trick(obs, off, n, view)
        if game[G_PENALTY]:
            return AB_PLAY + _play_mattazza(mask, obs, off, n, game, knobs, view, scratch)
        return AB_PLAY + _play_points(mask, obs, off, n, game, knobs, view, scratch)
    return _first_legal(mask)


@kernel
def _act_rows(obs, masks, off, width, n, game, knobs, out):
    """:func:`_act_row` for every row of a batch of one table size, into ``out``; returns the
    number of rows refused (a mask with no legal action)."""
    refused = 0
    view = (
        np.zeros(NUM_CARDS, dtype=np.bool_),  # hand
        np.zeros(NUM_CARDS, dtype=np.bool_),  # pool: the unseen cards nobody is known to hold
        np.zeros((n, NUM_CARDS), dtype=np.bool_),  # known: the cards each seat is known to hold
        np.zeros(n, dtype=np.int64),  # n_known
        np.zeros(n, dtype=np.int64),  # trick_seats: the trick in play order
        np.zeros(n, dtype=np.int64),  # trick_cards
        np.zeros(n, dtype=np.int64),  # after: the seats still to play
        np.zeros(MAX_SEATS, dtype=np.bool_),  # partner
        np.zeros(N_TRICK, dtype=np.int64),  # trick: T_LEAD ...
        np.zeros(N_GROUPS, dtype=np.int64),  # pool_groups: the pool's cards of each suit, of trumps
        np.zeros((n, N_GROUPS), dtype=np.int64),  # known_groups
        np.zeros(n, dtype=np.int64),  # table: the card each seat has on the table
    )
    scratch = (
        np.zeros(NUM_CARDS, dtype=np.bool_),  # a card set: the side's cards, the pile
        np.zeros(NUM_CARDS, dtype=np.float64),  # a card's worth
        np.zeros(N_SEQUENCES, dtype=np.int64),  # the combination count's rows
        np.zeros(N_SEQUENCES, dtype=np.int64),
    )
    for b in range(obs.shape[0]):
        out[b] = _act_row(obs[b], masks[b], off, width, n, game, knobs, view, scratch)
        if out[b] < 0:
            refused += 1
    return refused


# ====================================================================== the agent
def _layouts() -> dict[int, tuple[int, np.ndarray, np.ndarray]]:
    """Per observation size: the table size, and the offset and length of each field in
    :data:`~tarot_env.encoding.bolognese.FIELDS` order (the kernel reads ``off[F_HAND]``)."""
    out = {}
    for n in range(2, MAX_SEATS + 1):
        fields = layout(n)
        last = fields[-1]
        lengths = {f.name: f.length for f in fields}
        out[last.offset + last.length] = (n, field_offsets(fields, FIELDS), np.array([lengths[name] for name in FIELDS], dtype=np.int64))
    return out


_LAYOUTS = _layouts()


def game_row(spec: GameSpec, target: int | None) -> np.ndarray:
    """The game's row as the ints the kernel reads (``G_*``): the sides, penalty scoring (the
    hand's loser takes a penalty point: take as few points as possible), the tricks in a hand,
    and the claim target (none: every window is claimed)."""
    row = np.zeros(5, dtype=np.int64)
    row[G_SIDES] = SIDES[spec.sides]
    row[G_PENALTY] = spec.scoring == "penalty"
    row[G_TRICKS] = spec.tricks
    row[G_HAS_TARGET] = target is not None
    row[G_TARGET] = 0 if target is None else target
    return row


class TarocchinoRuleAgent:
    """A rule-based Tarocchino player for ``game`` (a game name or env id, e.g. ``"ottocento"``
    or ``"mattazza_v0"``); see the module docstring for the strategy.

    ``act(observations (B, D), masks (B, A)) -> actions (B,)``, or one observation and mask of
    shape ``(A,)`` -> an int. ``target``: the claim target (default: the game's, from
    its :class:`~tarot_env.rules.bolognese.game_specs.GameSpec` row); give the env's when it was made with another ``target``.
    """

    name = "tarocchino_rules"

    #: point games: the points expected from each player still to play, and the weight of a card's power for later tricks
    REST = 0.0
    POWER = 1.0

    #: Mattazza: what the first trick is worth, in points, per player at the table and by the end of the hand
    NEED_BASE = 2.5
    NEED_GROWTH = 30.0
    KEEP_WINNERS = 2.0

    #: hand-strength thresholds of the Terziglio auction (measured with bots in every seat)
    DI_MIO = 29.0
    POSSO = 17.0
    OPPOSE = 25.0

    def __init__(self, game: str, target: int | None = None) -> None:
        g = game[: -len("_v0")] if game.endswith("_v0") else game
        if g not in GAMES:
            raise ValueError(f"unknown Tarocchino game {game!r}; the games are {', '.join(GAMES)}")
        self.game = g
        self.spec = GAMES[g]
        self.target = self.spec.target if target is None else int(target)
        self.total_tricks = self.spec.tricks
        #: the hand's loser takes a penalty point (Mattazza, §14.5): take as few points as possible
        self.avoid_points = self.spec.scoring == "penalty"
        self._key: tuple | None = None  # what the kernel's parameters were made from (_parameters)

    def _parameters(self) -> tuple[np.ndarray, np.ndarray]:
        """The kernel's ``game`` row and ``knobs`` (the strategy's numbers), made again whenever
        an attribute they come from changed since the last call: a tuning script may set
        ``target`` or ``DI_MIO`` on the instance, and the bot then plays as tuned."""
        numbers = (self.REST, self.POWER, self.NEED_BASE, self.NEED_GROWTH, self.KEEP_WINNERS, self.DI_MIO, self.POSSO, self.OPPOSE)
        key = (self.spec, self.target, numbers)
        if key != self._key:
            knobs = np.zeros(8, dtype=np.float64)
            for k, value in zip((K_REST, K_POWER, K_NEED_BASE, K_NEED_GROWTH, K_KEEP_WINNERS, K_DI_MIO, K_POSSO, K_OPPOSE), numbers):
                knobs[k] = value
            self._key, self._game_row, self._knobs = key, game_row(self.spec, self.target), knobs
        return self._game_row, self._knobs

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray | int:
        """The bot's actions for a batch (B, D) and (B, A) -> (B,) int64, or for one row -> an int."""
        obs = np.asarray(observations)
        mask = np.asarray(masks, dtype=bool)
        single = mask.ndim == 1
        if single:
            obs, mask = obs[None], mask[None]
        if mask.ndim != 2 or obs.ndim != 2 or mask.shape[1] != NUM_ACTIONS or obs.shape[0] != mask.shape[0]:
            raise ValueError(f"observations (B, D) and masks (B, {NUM_ACTIONS}) expected, got {obs.shape} and {mask.shape}")
        if obs.shape[1] not in _LAYOUTS:
            raise ValueError(f"an observation of size {obs.shape[1]} is no Tarocchino observation (sizes: {sorted(_LAYOUTS)})")
        n, off, width = _LAYOUTS[obs.shape[1]]
        out = np.empty(len(mask), dtype=np.int64)
        game, knobs = self._parameters()
        if _act_rows(np.ascontiguousarray(obs), np.ascontiguousarray(mask), off, width, n, game, knobs, out):
            raise ValueError("an action mask with no legal action was given to TarocchinoRuleAgent.act")
        return int(out[0]) if single else out

    @staticmethod
    def hand_strength(hand: np.ndarray) -> float:
        """Terziglio hand strength of a (62,) card mask: trumps (the high ones more), Kings, figures, voids, combinations."""
        m = np.ascontiguousarray(hand, dtype=bool)
        if m.shape != (NUM_CARDS,):
            raise ValueError(f"a hand is a card mask of shape ({NUM_CARDS},), got {m.shape}")
        return float(_hand_strength(m, np.zeros(N_SEQUENCES, dtype=np.int64), np.zeros(N_SEQUENCES, dtype=np.int64)))
