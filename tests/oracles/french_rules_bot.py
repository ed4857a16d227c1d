"""Test oracle: the rule-based French Tarot bot before compilation, kept verbatim.

This is ``agents/french_rules.py`` as it was before its strategy was rewritten as numba-compiled
row functions (only this docstring's first paragraph is new). ``tests/test_french_rules_compiled.py``
compares the compiled bot's decisions with this one's at every decision of thousands of deals.
It is not part of the package: no package code imports it. The original docstring follows.

A rule-based French Tarot player: the heuristics of a sensible club player, from the observation alone.

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
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from tarot_env.cards.french import CALLABLE, EXCUSE, FRENCH_DECK, IS_TRUMP, NUM_CARDS, PETIT, TWENTY_ONE
from tarot_env.encoding.french import layout
from tarot_env.rules.french import actions as A

SUIT = FRENCH_DECK.suit.astype(np.int64)  # 0..3 plain, 4 trump, 5 Excuse
RANK = FRENCH_DECK.rank.astype(np.int64)  # 1..14 plain, 1..21 trumps, 0 Excuse
STRENGTH = FRENCH_DECK.strength.astype(np.int64)  # a trump beats any plain card
VALUE = FRENCH_DECK.value.astype(np.int64)  # half-points: bouts and kings 9, queens 7, knights 5, jacks 3, others 1
KING, QUEEN, KNIGHT, JACK = 14, 13, 12, 11
HAND_SIZE = {3: 24, 4: 18, 5: 15}
PLAIN = [np.arange(s * 14, s * 14 + 14) for s in range(4)]  # the plain suits S, H, D, C by card id
TRUMPS = np.flatnonzero(IS_TRUMP)

#: Bidding thresholds on the 18-card scale, for petite, garde, garde sans, garde contre (4 players).
#: Calibrated in self-play: a petite is made about half the time at 46, a garde two times in
#: three at 52; without the chien the hand must stand alone (garde sans 61, garde contre 70).
BID_THRESHOLDS = (46.0, 52.0, 61.0, 70.0)
#: The same hand is worth more with 3 players (a third of the deck against two) and with 5
#: (a called partner): the thresholds move by these many points.
BID_OFFSET = {3: -6.0, 4: 0.0, 5: -9.0}


@cache
def _slices(num_players: int) -> dict[str, slice]:
    return {f.name: slice(f.offset, f.offset + f.length) for f in layout(num_players)}


@cache
def _players_by_size() -> dict[int, int]:
    return {sum(f.length for f in layout(n)): n for n in (3, 4, 5)}


def num_players_of(observation_size: int) -> int:
    """The player count whose observation has this many values (3: 1122, 4: 1366, 5: 1638)."""
    sizes = _players_by_size()
    if observation_size not in sizes:
        raise ValueError(f"an observation of {observation_size} values is not a French Tarot observation (sizes {sorted(sizes)})")
    return sizes[observation_size]


@dataclass
class View:
    """What one observation says, decoded: every field the bot reasons with (relative seats, slot 0 = me)."""

    n: int
    hand: np.ndarray  # (78,) bool
    mask: np.ndarray  # (205,) bool
    taker: int  # relative slot of the taker, -1 while bidding
    partner: int  # 5 players: relative slot of the taker's partner once I know it, else -1
    alone: bool  # 5 players: the taker is known to play alone
    ecart: np.ndarray  # (78,) the écart as I know it
    played: np.ndarray  # (n, 78) cards each slot has played
    trick: list[tuple[int, int]]  # (slot, card) on the current trick, in play order
    winners: np.ndarray  # (t, n) winners of the finished tricks
    out: np.ndarray  # (78,) cards still held by the other players (or unseen in a chien nobody looked at)

    def side(self, slot: int) -> int:
        """+1 a partner (or me), -1 an opponent, 0 unknown (5 players, before the partner is known)."""
        if slot == 0:
            return 1
        if self.taker < 0:
            return 0
        attack = {self.taker}
        if self.partner >= 0:
            attack.add(self.partner)
        elif self.n == 5 and not self.alone:  # the partner hides among the others
            if self.taker == 0 or slot != self.taker:
                return 0
            return -1
        return 1 if (slot in attack) == (0 in attack) else -1


def decode(observation: np.ndarray, mask: np.ndarray) -> View:
    """Decode one observation row by field name (``tarot_env.encoding.french.layout``)."""
    n = num_players_of(observation.shape[-1])
    f = _slices(n)
    o = observation
    taker = np.flatnonzero(o[f["taker"]])
    partner, alone = -1, False
    if n == 5:
        p = np.flatnonzero(o[f["partner"]])
        partner = int(p[0]) if len(p) else -1
        alone = bool(o[f["alone"]][0])
    # The players who have played to the trick are the ones just before me: slots n-k .. n-1, in that order.
    slots, cards = np.nonzero(o[f["trick"]].reshape(n, NUM_CARDS))
    on_trick = list(zip(slots.tolist(), cards.tolist()))
    hand = o[f["hand"]].astype(bool)
    played = o[f["played"]].reshape(n, NUM_CARDS).astype(bool)
    ecart = o[f["ecart"]].astype(bool)
    return View(
        n=n,
        hand=hand,
        mask=np.asarray(mask, dtype=bool),
        taker=int(taker[0]) if len(taker) else -1,
        partner=partner,
        alone=alone,
        ecart=ecart,
        played=played,
        trick=on_trick,
        winners=o[f["winners"]].reshape(-1, n).astype(bool),
        out=~hand & ~played.any(axis=0) & ~ecart,
    )


# ---------------------------------------------------------------------------------------------
# Hand evaluation and bidding
# ---------------------------------------------------------------------------------------------
def hand_points(hand: np.ndarray) -> float:
    """Club point count of a hand, scaled to 18 cards (the 4-player hand).

    Bouts win tricks and count double at the end, trumps control the play, kings and long
    suits make tricks, voids and singletons let the trumps ruff.
    """
    cards = np.flatnonzero(hand)
    trumps = [c for c in cards if IS_TRUMP[c]]
    n_trumps = len(trumps)
    pts = 0.0
    if hand[TWENTY_ONE]:
        pts += 10
    if hand[EXCUSE]:
        pts += 8
    if hand[PETIT]:  # the Petit is worth what guards it
        pts += 8 if n_trumps >= 7 else 7 if n_trumps >= 6 else 5 if n_trumps >= 5 else 0
    pts += 2 * n_trumps
    pts += sum(1.5 for t in trumps if 16 <= RANK[t] <= 20)
    for s in range(4):
        held = [c for c in cards if SUIT[c] == s]
        ranks = {RANK[c] for c in held}
        length = len(held)
        if KING in ranks:
            pts += 6
        if QUEEN in ranks:
            pts += 4 if KING in ranks else 3
        if KNIGHT in ranks:
            pts += 2
        if JACK in ranks:
            pts += 1
        pts += 9 if length >= 7 else 7 if length == 6 else 5 if length == 5 else 0
        if n_trumps >= 4:
            pts += 6 if length == 0 else 3 if length == 1 else 0
    return pts * 18.0 / max(len(cards), 1)


def choose_bid(v: View) -> int:
    """The highest legal contract the hand's point count supports, else pass."""
    pts = hand_points(v.hand)
    for contract in (4, 3, 2, 1):
        if pts >= BID_THRESHOLDS[contract - 1] + BID_OFFSET[v.n] and v.mask[A.BID + contract]:
            return A.BID + contract
    return A.BID  # pass


# ---------------------------------------------------------------------------------------------
# Call, écart, chelem, poignée, show
# ---------------------------------------------------------------------------------------------
def choose_call(v: View) -> int:
    """Call a card it does not hold (kings first): the suit where it holds the queen, then the shortest."""
    legal = [i for i in range(len(CALLABLE)) if v.mask[A.CALL + i]]
    best, best_key = legal[0], None
    for i in legal:
        c = int(CALLABLE[i])
        s = SUIT[c]
        suit_cards = [x for x in PLAIN[s] if v.hand[x]]
        holds_queen = any(RANK[x] == QUEEN for x in suit_cards)
        key = (not v.hand[c], RANK[c], holds_queen, -len(suit_cards), -i)
        if best_key is None or key > best_key:
            best, best_key = i, key
    return A.CALL + best


def choose_discard(v: View) -> int:
    """One écart card: void the shortest kingless suit (high cards first), else shed unguarded points.

    Trumps only when the mask forces them (then the lowest: they are shown to everyone).
    """
    legal = np.flatnonzero(v.mask[A.DISCARD : A.DISCARD + NUM_CARDS]).tolist()
    plain = [c for c in legal if not IS_TRUMP[c]]
    if not plain:
        return A.DISCARD + min(legal, key=lambda c: RANK[c])
    left = int(v.hand.sum()) - HAND_SIZE[v.n]  # discards still to make, this one included
    counts = {s: int(v.hand[PLAIN[s]].sum()) for s in range(4)}

    def score(c: int) -> tuple:
        s = SUIT[c]
        in_suit = counts[s]
        has_king = v.hand[s * 14 + KING - 1]
        voidable = not has_king and in_suit <= left
        # Unguarded court cards: a queen/knight/jack in a short suit without the king is likely lost.
        unguarded = not has_king and RANK[c] >= JACK and in_suit <= 3
        return (voidable, -in_suit if voidable else 0, unguarded, VALUE[c] if unguarded or voidable else 0, -in_suit, -RANK[c], -c)

    return A.DISCARD + max(plain, key=score)


def choose_chelem(v: View) -> int:
    """Announce a chelem only with an overwhelming hand: the 21 and 20, trumps for nearly
    every trick, and no plain card but kings."""
    trumps = int(v.hand[TRUMPS].sum())
    plain = [c for s in range(4) for c in PLAIN[s] if v.hand[c]]
    overwhelming = v.hand[TWENTY_ONE] and v.hand[TWENTY_ONE - 1] and all(RANK[c] == KING for c in plain) and trumps >= HAND_SIZE[v.n] - 4
    return A.CHELEM if overwhelming and v.mask[A.CHELEM] else A.NO_CHELEM


def choose_poignee(v: View) -> int:
    """The largest poignée it may declare (the bonus goes to the winning side)."""
    for k in (2, 1, 0):
        if v.mask[A.POIGNEE + k]:
            return A.POIGNEE + k
    return A.NO_POIGNEE


def choose_show(v: View) -> int:
    """Show its smallest plain trumps first; the 21, the Petit (its place would be hunted) and the Excuse last."""
    legal = [i for i in range(len(A.SHOW_CARDS)) if v.mask[A.SHOW + i]]

    def order(i: int) -> tuple:
        c = int(A.SHOW_CARDS[i])
        return (c in (TWENTY_ONE, PETIT, EXCUSE), (TWENTY_ONE, PETIT, EXCUSE).index(c) if c in (TWENTY_ONE, PETIT, EXCUSE) else RANK[c])

    return A.SHOW + min(legal, key=order)


# ---------------------------------------------------------------------------------------------
# Card play
# ---------------------------------------------------------------------------------------------
def lead_suit(trick: list[tuple[int, int]]) -> int:
    """The suit to follow: that of the first card that is not the Excuse (-1 if none yet)."""
    for _, c in trick:
        if c != EXCUSE:
            return int(SUIT[c])
    return -1


def beats(c: int, best: int, suit: int) -> bool:
    """Whether card ``c`` beats the trick's best card ``best`` (-1: no card yet) when ``suit`` is led."""
    if c == EXCUSE:
        return False
    if best < 0:
        return True
    if IS_TRUMP[c]:
        return not IS_TRUMP[best] or RANK[c] > RANK[best]
    return not IS_TRUMP[best] and SUIT[c] == suit and SUIT[best] == suit and RANK[c] > RANK[best]


def trick_winner(trick: list[tuple[int, int]]) -> tuple[int, int]:
    """(slot, card) winning the trick so far, (-1, -1) if no card but the Excuse."""
    suit = lead_suit(trick)
    slot, best = -1, -1
    for s, c in trick:
        if beats(c, best, suit):
            slot, best = s, c
    return slot, best


def is_master(v: View, c: int) -> bool:
    """No card still out can beat ``c`` in its own suit (trumps: no higher trump out)."""
    same = PLAIN[SUIT[c]] if SUIT[c] < 4 else TRUMPS
    return not (v.out[same] & (RANK[same] > RANK[c])).any()


def trumps_out(v: View) -> int:
    return int(v.out[TRUMPS].sum())


def later_slots(v: View) -> list[int]:
    """Slots still to play to this trick after me."""
    return list(range(1, v.n - len(v.trick)))


def secure(v: View, c: int, suit: int) -> bool:
    """Whether ``c``, if it wins the trick now, keeps it: nobody after me can take it from us.

    True when I play last or only partners follow; else a master trump, or a master plain card
    of the led suit while enough of that suit is out for the others to follow (no ruff likely).
    """
    later = later_slots(v)
    if all(v.side(s) == 1 for s in later):
        return True
    if IS_TRUMP[c]:
        return is_master(v, c)
    if not is_master(v, c):
        return False
    enemies = sum(1 for s in later if v.side(s) != 1)
    suit_out = int(v.out[PLAIN[suit]].sum()) if 0 <= suit < 4 else 0
    return trumps_out(v) == 0 or suit_out >= 2 * enemies


def side_won_all(v: View) -> bool:
    """Whether my side has won every trick so far (then the Excuse wins the last trick)."""
    done = np.flatnonzero(v.winners.any(axis=1))
    return len(done) > 0 and all(v.side(int(np.flatnonzero(v.winners[t])[0])) == 1 for t in done)


def cheapest(cards: list[int]) -> int:
    """The card that costs least to give away: fewest points, then lowest (the Petit kept last)."""
    return min(cards, key=lambda c: (c == PETIT, VALUE[c], STRENGTH[c], c))


def smear(cards: list[int]) -> int:
    """The card to give a trick a partner wins for sure: the Petit first (saved), then the most
    points (kings, queens...), keeping the 21, which cannot be lost and wins a trick of its own."""
    return max(cards, key=lambda c: (c == PETIT, c != TWENTY_ONE, VALUE[c], -STRENGTH[c], -c))


def excuse_now(v: View, legal: list[int]) -> bool:
    """Play the Excuse now? Before the last trick at the latest (unless it would win a chelem's
    last trick), or rather than give the opponents the Petit or a king."""
    hand_left = int(v.hand.sum())
    if hand_left == 1:
        return True
    if hand_left == 2:
        return not side_won_all(v)
    others = [c for c in legal if c != EXCUSE]
    if not v.trick or not others:
        return False
    suit = lead_suit(v.trick)
    slot, best = trick_winner(v.trick)
    if slot >= 0 and v.side(slot) == 1 and secure(v, best, suit):
        return False
    wins = [c for c in others if beats(c, best, suit) and secure(v, c, suit)]
    return not wins and VALUE[cheapest(others)] >= 7


def choose_follow(v: View, legal: list[int]) -> int:
    """A card to a trick already started."""
    suit = lead_suit(v.trick)
    slot, best = trick_winner(v.trick)
    cards = [c for c in legal if c != EXCUSE]
    trick_value = sum(VALUE[c] for _, c in v.trick)
    if slot >= 0 and v.side(slot) == 1 and secure(v, best, suit):
        keeps = [c for c in cards if not beats(c, best, suit) or secure(v, c, suit)]
        return smear(keeps or cards)
    winners = [c for c in cards if beats(c, best, suit) and secure(v, c, suit)]
    if winners:
        w = min(winners, key=lambda c: STRENGTH[c])
        cost = cheapest(cards)
        # Win when it is cheap (a plain card, the Petit saved, no cheaper card, the last seat)
        # or when the trick is worth spending a master trump on.
        if not IS_TRUMP[w] or w in (PETIT, cost) or trick_value >= 6 or len(v.trick) == v.n - 1:
            return w
        return cost
    return cheapest(cards)


def choose_lead(v: View, legal: list[int]) -> int:
    """A card to lead: the master Petit, then the taker's trump draw, masters, the longest suit."""
    cards = [c for c in legal if c != EXCUSE]
    if not cards:
        return EXCUSE
    trumps = [c for c in cards if IS_TRUMP[c]]
    plain = [c for c in cards if not IS_TRUMP[c]]
    out_trumps = trumps_out(v)
    if PETIT in cards and out_trumps == 0:
        return PETIT
    attack = v.taker == 0 or v.partner == 0  # the taker, or his partner (5 players) who knows it
    if attack and trumps and out_trumps > 0 and len(trumps) >= out_trumps:
        masters = [c for c in trumps if is_master(v, c)]
        if masters:
            return max(masters, key=lambda c: RANK[c])
        low = [c for c in trumps if c != PETIT]
        if low:
            return min(low, key=lambda c: RANK[c])
    masters = [c for c in plain if is_master(v, c) and int(v.out[PLAIN[SUIT[c]]].sum()) >= v.n - 1]
    if masters:
        return max(masters, key=lambda c: (VALUE[c], RANK[c]))
    if plain:
        length = {s: int(v.hand[PLAIN[s]].sum()) for s in range(4)}
        s = max(length, key=lambda x: (length[x], v.hand[x * 14 + KING - 1], -x))
        suited = [c for c in plain if SUIT[c] == s] or plain
        return min(suited, key=lambda c: (VALUE[c], RANK[c]))
    if EXCUSE in legal and trumps == [PETIT]:
        return EXCUSE
    low = [c for c in trumps if c != PETIT] or trumps
    top = max(low, key=lambda c: RANK[c])
    if attack and is_master(v, top):
        return top
    return min(low, key=lambda c: RANK[c])


def choose_play(v: View) -> int:
    """A card to play: the Excuse when due, else a lead or a follow."""
    legal = np.flatnonzero(v.mask[A.PLAY : A.PLAY + NUM_CARDS]).tolist()
    if len(legal) == 1:
        return A.PLAY + legal[0]
    if EXCUSE in legal and excuse_now(v, legal):
        return A.PLAY + EXCUSE
    if not [c for c in v.trick if c[1] != EXCUSE]:
        return A.PLAY + choose_lead(v, legal)
    return A.PLAY + choose_follow(v, legal)


# ---------------------------------------------------------------------------------------------
# The agent
# ---------------------------------------------------------------------------------------------
def decide(observation: np.ndarray, mask: np.ndarray) -> int:
    """The bot's action for one observation row and its mask."""
    mask = np.asarray(mask, dtype=bool)
    if not mask.any():
        raise ValueError("an action mask with no legal action was given to FrenchRuleAgent.act")
    legal = np.flatnonzero(mask)
    if len(legal) == 1:
        return int(legal[0])
    v = decode(np.asarray(observation), mask)
    first = int(legal[0])
    if first < A.DISCARD:
        return choose_play(v)
    if first < A.BID:
        return choose_discard(v)
    if first < A.CALL:
        return choose_bid(v)
    if first < A.CHELEM:
        return choose_call(v)
    if first < A.POIGNEE:
        return choose_chelem(v)
    if first < A.SHOW:
        return choose_poignee(v)
    return choose_show(v)


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
        if masks.ndim == 1:
            return decide(obs, masks)
        if obs.ndim != 2 or len(obs) != len(masks):
            raise ValueError(f"observations {obs.shape} and masks {masks.shape} must be (B, D) and (B, A)")
        return np.array([decide(o, m) for o, m in zip(obs, masks)], dtype=np.int64)
