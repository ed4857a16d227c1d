"""Dealing the unseen cards to the places a seat cannot see, under constraints.

Every game's sampler reduces a seat's view to the same small problem: ``U`` unseen cards, ``S``
hidden places (another seat's hand, an écart, a chien, a discard pile...) each holding a known
number of them (``capacity``), and for each card the places it may be in (``allowed``, from the
voids a player showed, what a discard may hold...). A sample is one place per card.

**The rule (documented, as the samplers' docstrings promise).** A sample deals the cards one by
one in a random order, each to one of its allowed places with probability proportional to the
room left there. Without constraints this is exactly a uniform shuffle; with constraints it is
close to uniform but not exactly (a card with few allowed places is more likely to meet a full
place and force a retry). A deal that gets stuck (a card with no room left in any allowed place)
is started again, up to ``TRIES`` times; after that the sample is a feasible deal found by
augmenting paths (it exists: the true deal is one), shuffled by ``SWAPS`` random swaps of two
cards that may each go where the other is. Samples are drawn from random numbers made by the
caller's ``numpy.random.Generator`` up front, so the compiled and plain-Python paths give the
same samples for the same generator.
"""

from __future__ import annotations

import numpy as np

from tarot_env._jit import kernel

#: fresh starts of a stuck sequential deal before the fallback
TRIES = 8
#: random swaps that shuffle the fallback's feasible deal
SWAPS = 400


class NoConsistentDealError(ValueError):
    """No deal satisfies the constraints (a view that no real deal can produce: a bug upstream)."""


def feasible_deal(allowed: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """One place per card with every place filled exactly, by augmenting paths (a bipartite
    b-matching); raises :class:`NoConsistentDealError` when there is none."""
    U, S = allowed.shape
    if int(capacity.sum()) != U:
        raise NoConsistentDealError(f"{U} unseen cards for {int(capacity.sum())} hidden places")
    place = np.full(U, -1, dtype=np.int64)
    members: list[list[int]] = [[] for _ in range(S)]
    for c in range(U):
        # breadth-first search for a chain card -> place -> card in it -> another place ... -> room
        parent_card = {}  # place -> card that reaches it
        frontier = [c]
        seen_places: set[int] = set()
        found = -1
        while frontier and found < 0:
            nxt = []
            for card in frontier:
                for q in np.flatnonzero(allowed[card]).tolist():
                    if q in seen_places:
                        continue
                    seen_places.add(q)
                    parent_card[q] = card
                    if len(members[q]) < capacity[q]:
                        found = q
                        break
                    nxt.extend(members[q])
                if found >= 0:
                    break
            frontier = nxt
        if found < 0:
            raise NoConsistentDealError(f"card #{c} of the unseen cards fits no hidden place with room")
        q = found
        while True:  # shift along the chain
            card = parent_card[q]
            old = place[card]
            if old >= 0:
                members[old].remove(card)
            place[card] = q
            members[q].append(card)
            if card == c:
                break
            q = old
    return place


@kernel
def _deal(allowed, capacity, keys, picks, start, swap_cards, out):
    """Fill ``out`` (K, U) with K samples (see the module docstring). ``keys``/``picks`` (K, TRIES, U)
    uniforms order the cards and choose the places; ``start`` is the feasible deal of the fallback;
    ``swap_cards`` (K, SWAPS, 2) card pairs for its shuffle (a pair swaps when each card may go
    to the other's place)."""
    K, U = out.shape
    S = capacity.shape[0]
    room = np.empty(S, dtype=np.int64)
    for k in range(K):
        done = False
        for t in range(keys.shape[1]):
            order = np.argsort(keys[k, t])
            for q in range(S):
                room[q] = capacity[q]
            stuck = False
            for i in range(U):
                c = order[i]
                total = 0
                for q in range(S):
                    if allowed[c, q]:
                        total += room[q]
                if total == 0:
                    stuck = True
                    break
                target = picks[k, t, i] * total
                acc = 0.0
                chosen = -1
                for q in range(S):
                    if allowed[c, q] and room[q] > 0:
                        acc += room[q]
                        chosen = q
                        if target < acc:
                            break
                out[k, c] = chosen
                room[chosen] -= 1
            if not stuck:
                done = True
                break
        if not done:
            for c in range(U):
                out[k, c] = start[c]
            for j in range(swap_cards.shape[1]):
                a = swap_cards[k, j, 0]
                b = swap_cards[k, j, 1]
                qa = out[k, a]
                qb = out[k, b]
                if qa != qb and allowed[a, qb] and allowed[b, qa]:
                    out[k, a] = qb
                    out[k, b] = qa


def deal_unseen(allowed: np.ndarray, capacity: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """``k`` samples (K, U) int64 of a place per unseen card (see the module docstring).

    ``allowed`` (U, S) bool: card ``c`` may be in place ``q``; ``capacity`` (S,): how many unseen
    cards each place holds. Raises :class:`NoConsistentDealError` when no deal fits."""
    allowed = np.ascontiguousarray(allowed, dtype=np.bool_)
    capacity = np.asarray(capacity, dtype=np.int64)
    U = allowed.shape[0]
    out = np.empty((k, U), dtype=np.int64)
    if U == 0:
        return out
    start = feasible_deal(allowed, capacity)  # also checks that a deal exists
    keys = rng.random((k, TRIES, U))
    picks = rng.random((k, TRIES, U))
    swaps = rng.integers(U, size=(k, SWAPS, 2))
    _deal(allowed, capacity, keys, picks, start, swaps, out)
    return out
