"""The count of card points, the *Conto degli Scartini* (docs/rules/tarocchino.md §3), batch-first.

Card values v are those of §3.1 (``BOLOGNESE_DECK.value``, whole points): Re, Angelo, Mondo,
Bégato, Matto 5; Regina 4; Cavallo 3; Fante 2; every scartino 1. Σ v over the pack = 118.

Cards are never counted one by one but in **groups** (§3.2): pairs in Ottocento and the games
built on it, one group per trick of n cards in Mattazza (§14.4). A group of k cards scores

    group score = Σ v − (k − 1)

which is Barilli's pair rule (a Carta di Valore with a scartino scores its own value, two
scartini 1, two Carte di Valore their sum minus 1: Bégato + Cavallo = 7) and the seed's
"the first keeps its value, the others lose one" (Mattazza): since a scartino is worth 1,
Σ v − (k − 1) = v(first Carta di Valore) + Σ (v − 1) over the other Carte di Valore, the
scartini adding nothing, or 1 for a group of scartini only.

Summed over a pile of N cards cut into G groups, the −(k − 1) terms add up to −N + G, so

    pile points = Σ v − N + G

whatever cards went into which group: the grouping step can be skipped (§3.2 [DERIVED]).
Pairs: G = N/2, so Σ v − N/2; Mattazza with n players: G = N/n. The whole pack in pairs is
118 − 31 = 87, and 93 with the 6 points of the last trick (§3.3, §16 TV3).

A pile that does not split into whole groups (a Terziglio side with an odd number of cards,
U18) is counted exactly in half-points by :func:`pile_half_points`; :func:`pile_points`
refuses it, so an odd pile is never rounded silently.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tarot_env._jit import kernel
from tarot_env.cards.bolognese import BOLOGNESE_DECK, NUM_CARDS

#: v of each card id (§3.1), as int64 for matrix products with card masks.
CARD_VALUE = BOLOGNESE_DECK.value.astype(np.int64)
CARD_VALUE.setflags(write=False)
#: Σ v over the 62 cards: 118 (§3.2, §16 TV3).
DECK_VALUE = int(CARD_VALUE.sum())
#: Points of the *Ultima Presa*: the side that wins the last trick scores 6 (§3.3).
LAST_TRICK_BONUS = 6
#: The whole pack counted in pairs: 118 − 31 = 87 (§3.2); the card points of the two sides of
#: an Ottocento hand always add up to this (§8.3).
PAIR_COUNT_TOTAL = DECK_VALUE - NUM_CARDS // 2
#: Everything a hand's cards are worth in pairs, last trick included: 87 + 6 = 93 (§16 TV3).
HAND_CARD_TOTAL = PAIR_COUNT_TOTAL + LAST_TRICK_BONUS


def groups_points(value_sum, cards, group_size):
    """Σ v − N + N/group_size: the count of a pile of ``cards`` cards worth ``value_sum`` in groups
    (§3.2), unchecked. The one statement of the count, on ints (the compiled hand score,
    :func:`.scoring.hand_score_rows`) and on arrays (:func:`pile_points`)."""
    return value_sum - cards + cards // group_size


def groups_half_points(value_sum, cards, group_size):
    """2·(Σ v − N) + 2N/group_size: the same count in half-points, exact for a pile that leaves
    part of a group over (U18), unchecked (:func:`pile_half_points`)."""
    return 2 * (value_sum - cards) + (2 * cards) // group_size


def odd_alone_half_points(value_sum, cards):
    """U18's alternative, in half-points: pairs, the odd card counted alone at its value,
    2·(Σ v − ⌊N/2⌋) (the two sides of a Terziglio hand then total 88)."""
    return 2 * (value_sum - cards // 2)


_groups_points = kernel(groups_points, inline=True)
_groups_half_points = kernel(groups_half_points, inline=True)
_odd_alone_half_points = kernel(odd_alone_half_points, inline=True)


def _masks(piles: np.ndarray) -> np.ndarray:
    piles = np.asarray(piles)
    if piles.dtype != bool or piles.ndim not in (1, 2) or piles.shape[-1] != NUM_CARDS:
        raise ValueError(f"card masks must be bool arrays of shape (R, {NUM_CARDS}) or ({NUM_CARDS},), got {piles.dtype} {piles.shape}")
    return piles


def value_sum(piles: np.ndarray) -> np.ndarray:
    """Σ v of each pile (§3.1): ``piles`` (R, 62) bool -> (R,) int64 (or a scalar for (62,))."""
    return _masks(piles) @ CARD_VALUE


def pile_points(piles: np.ndarray, group_size: int | np.ndarray = 2) -> np.ndarray:
    """Card points of each pile counted in groups of ``group_size`` (§3.2): Σ v − N + N/group_size.

    ``piles`` (R, 62) bool (or one (62,) mask); ``group_size`` 2 for the pair count (Ottocento,
    Quattro Scartate, Millone, Centocinquanta, Quindici, Terziglio) or n, the number of players,
    for Mattazza's count per trick (§14.4); an int or an (R,) array. Returns (R,) int64.

    Raises ``ValueError`` if a pile's size is not a multiple of ``group_size``: the count is
    then not a whole number of points (use :func:`pile_half_points`, U18), and in Mattazza it
    means the Matto exchange of §4.5 has not been made yet.
    """
    piles = _masks(piles)
    g = np.asarray(group_size)
    if not np.issubdtype(g.dtype, np.integer) or np.any(g < 1):
        raise ValueError(f"group_size must be a positive integer, got {group_size!r}")
    n = np.count_nonzero(piles, axis=-1)
    if np.any(n % g):
        raise ValueError(
            f"piles of {n.tolist()} cards do not split into groups of {g.tolist()}: count them in half-points "
            "with pile_half_points (docs/rules/tarocchino.md U18), or make the Matto exchange first (§4.5)"
        )
    return groups_points(piles @ CARD_VALUE, n, g)


def pile_half_points(piles: np.ndarray, group_size: int | np.ndarray = 2) -> np.ndarray:
    """Card points of each pile in **half-points**, exact for piles that leave part of a group
    over: 2·(Σ v − N + N/group_size) (§3.2 and U18).

    Terziglio's tricks have 3 cards, so a side may hold an odd pile; counting it in pairs
    leaves half a pair, worth half a point, and both sides still total 87 (174 half-points).
    ``piles`` (R, 62) bool; returns (R,) int64. Raises ``ValueError`` where 2N/group_size is
    not a whole number (no such pile arises with pairs).
    """
    piles = _masks(piles)
    g = np.asarray(group_size)
    if not np.issubdtype(g.dtype, np.integer) or np.any(g < 1):
        raise ValueError(f"group_size must be a positive integer, got {group_size!r}")
    n = np.count_nonzero(piles, axis=-1)
    if np.any((2 * n) % g):
        raise ValueError(f"piles of {n.tolist()} cards are not a whole number of half-groups of {g.tolist()}")
    return groups_half_points(piles @ CARD_VALUE, n, g)


def card_points(piles: np.ndarray, won_last_trick: np.ndarray, group_size: int | np.ndarray = 2) -> np.ndarray:
    """The card part of a side's hand score: :func:`pile_points` + 6 for the last trick (§3.3, §8.3).

    ``won_last_trick`` (R,) bool. Cricche, sequences and declarations (§6, §7) are not card
    points and are added elsewhere.
    """
    return pile_points(piles, group_size) + LAST_TRICK_BONUS * np.asarray(won_last_trick, dtype=np.int64)


def group_points(cards: Sequence[int | str] | np.ndarray) -> int | np.ndarray:
    """Score of one explicit group of cards (§3.2): Σ v − (size − 1).

    ``cards`` is one group as card ids or notation (``group_points(["BEG", "NS"]) == 7``), or
    groups as bool masks, (62,) or (R, 62), which give an int or an (R,) array. An empty group
    or a repeated card is an error: neither is a group the count can meet.
    """
    arr = np.asarray(cards)
    if arr.dtype == bool:
        masks = _masks(arr)
        size = np.count_nonzero(masks, axis=-1)
        if np.any(size == 0):
            raise ValueError("an empty group has no score")
        return masks @ CARD_VALUE - (size - 1)
    ids = [BOLOGNESE_DECK.parse(c) if isinstance(c, str) else int(c) for c in cards]
    if not ids:
        raise ValueError("an empty group has no score")
    if len(set(ids)) != len(ids) or min(ids) < 0 or max(ids) >= NUM_CARDS:
        raise ValueError(f"a group holds distinct card ids 0..{NUM_CARDS - 1}, got {ids}")
    return int(CARD_VALUE[ids].sum()) - (len(ids) - 1)
