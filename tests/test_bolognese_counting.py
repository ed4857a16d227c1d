"""The Conto degli Scartini (rules/tarocchino.md §3): ``tarot_env.rules.bolognese.counting``.

A group of k cards scores Σv − (k − 1) (§3.2); a pile of N cards cut into G groups, however
cut, scores Σv − N + G. Pairs (Ottocento and the games built on it): Σv − N/2; Mattazza with
n players: one group per trick, Σv − N + N/n. The test vectors TV1–TV3 of §16 and the card
part of TV4 are checked as written there; the properties check that the way a pile is split
never changes its total.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarot_env.cards.bolognese import BOLOGNESE_DECK, IS_SCARTINO, NUM_CARDS, card
from tarot_env.rules.bolognese import (
    CARD_VALUE,
    DECK_VALUE,
    HAND_CARD_TOTAL,
    LAST_TRICK_BONUS,
    PAIR_COUNT_TOTAL,
    card_points,
    group_points,
    pile_half_points,
    pile_points,
    value_sum,
)


def mask(*piles: str) -> np.ndarray:
    """(R, 62) bool masks from piles written in notation."""
    m = np.zeros((len(piles), NUM_CARDS), dtype=bool)
    for r, pile in enumerate(piles):
        for c in pile.split():
            m[r, card(c)] = True
    return m


def ids_mask(ids) -> np.ndarray:
    m = np.zeros(NUM_CARDS, dtype=bool)
    m[list(ids)] = True
    return m


WHOLE_PACK = np.ones((1, NUM_CARDS), dtype=bool)


# ====================================================================== constants


def test_constants_of_3():
    """§3.2–§3.3: Σv = 118; the pack in pairs 87; with the last trick 93; the last trick is 6."""
    assert (DECK_VALUE, PAIR_COUNT_TOTAL, HAND_CARD_TOTAL, LAST_TRICK_BONUS) == (118, 87, 93, 6)
    assert CARD_VALUE.dtype == np.int64 and CARD_VALUE.shape == (62,)
    assert not CARD_VALUE.flags.writeable


# ====================================================================== TV1, TV2: explicit groups


@pytest.mark.parametrize(
    "pair, points",
    [
        (("BEG", "NS"), 7),  # Bégato + Cavallo = 5 + 3 - 1
        (("BEG", "ND"), 7),
        (("KS", "6S"), 5),  # Re + 6: the Carta di Valore keeps its value
        (("7C", "AB"), 1),  # 7 + Asso: two scartini score 1
        (("ANG", "MON"), 9),  # 5 + 5 - 1
    ],
)
def test_tv1_pair_counting(pair, points):
    """§16 TV1 [B2], through every entry point: ids, notation, a mask, a pile of one pair."""
    assert group_points(list(pair)) == points
    assert group_points([card(c) for c in pair]) == points
    assert group_points(tuple(reversed(pair))) == points
    assert group_points(mask(" ".join(pair))[0]) == points
    assert pile_points(mask(" ".join(pair)), 2).tolist() == [points]


@pytest.mark.parametrize(
    "group, points, by_hand",
    [
        ("ANG 6S T5 M1", 5, 5),  # a Tarocco + 3 scartini: 8 - 3; the scartini add nothing
        ("BEG 7D SOL AC", 5, 5),
        ("BEG KC NS JD", 12, 5 + 4 + 2 + 1),  # Tarocco, Re, Cavallo, Fante: 15 - 3 = 5 + 4 + 2 + 1
        ("MAT KS QS JB", 13, 5 + 4 + 3 + 1),
        ("6S 7S 8S 9S", 1, 1),  # four scartini score 1
    ],
)
def test_tv2_group_counting(group, points, by_hand):
    """§16 TV2 [ACC] and the seed's rule for Mattazza ("the first keeps its value, for the
    others the value is decreased by one"), the source's own working in ``by_hand``."""
    assert group_points(group.split()) == points == by_hand
    assert pile_points(mask(group), 4).tolist() == [points]


def test_group_points_on_a_batch_of_masks():
    """Groups given as (R, 62) masks: one score per row, groups of different sizes allowed."""
    groups = mask("BEG NS", "KS 6S", "ANG 6S T5 M1", "BEG KC NS JD", "MAT")
    assert group_points(groups).tolist() == [7, 5, 5, 12, 5]


def test_barilli_pair_rules_over_every_pair():
    """§3.2 [B2] over all 1891 pairs of the pack: a Carta di Valore with a scartino scores its
    own value; two scartini score 1; two Carte di Valore the sum of their values minus 1."""
    for a, b in itertools.combinations(range(NUM_CARDS), 2):
        va, vb = int(BOLOGNESE_DECK.value[a]), int(BOLOGNESE_DECK.value[b])
        if IS_SCARTINO[a] and IS_SCARTINO[b]:
            expected = 1
        elif IS_SCARTINO[a] or IS_SCARTINO[b]:
            expected = vb if IS_SCARTINO[a] else va
        else:
            expected = va + vb - 1
        assert group_points([a, b]) == expected, (BOLOGNESE_DECK.names[a], BOLOGNESE_DECK.names[b])


@pytest.mark.parametrize("bad", [[], ["KS", "ks"], [5, 5], [62], [-1]])
def test_group_points_refuses_what_is_not_a_group(bad):
    with pytest.raises(ValueError):
        group_points(bad)


def test_group_points_refuses_an_empty_mask():
    with pytest.raises(ValueError):
        group_points(np.zeros((2, NUM_CARDS), dtype=bool))


# ====================================================================== TV3, TV4: deck totals


def test_tv3_deck_totals():
    """§16 TV3: Σv = 118; in 31 pairs 118 - 31 = 87; with the last trick 93."""
    assert value_sum(WHOLE_PACK).tolist() == [118]
    assert pile_points(WHOLE_PACK, 2).tolist() == [87]
    assert card_points(WHOLE_PACK, np.array([True])).tolist() == [93]
    assert pile_points(WHOLE_PACK[0]) == 87  # one (62,) mask gives a scalar


def test_tv3_historical_count_in_fours():
    """§16 TV3 [ACC]: 60 cards in 15 groups of 4, 2 scartini left out: 116 - 60 + 15 = 71, and
    77 with the last trick; whichever 2 scartini are left out (all 861 choices, one batch)."""
    scartini = np.flatnonzero(IS_SCARTINO)
    left_out = list(itertools.combinations(scartini, 2))
    piles = np.ones((len(left_out), NUM_CARDS), dtype=bool)
    for r, (a, b) in enumerate(left_out):
        piles[r, [a, b]] = False
    assert len(left_out) == 861
    assert set(pile_points(piles, 4).tolist()) == {71}
    assert set(card_points(piles, np.ones(len(left_out), dtype=bool), 4).tolist()) == {77}
    two_spades_out = mask(" ".join(n for n in BOLOGNESE_DECK.names if n not in ("6S", "7S")))
    assert pile_points(two_spades_out, 4).tolist() == [71]


def test_tv4_card_part_of_a_capotto():
    """§16 TV4 (its card part; cricche and sequences belong to §6): one side holds all 62
    cards (its discard included) and the last trick: 87 + 6 = 93; the capotted side has an
    empty pile and scores no card points."""
    piles = np.stack([np.ones(NUM_CARDS, dtype=bool), np.zeros(NUM_CARDS, dtype=bool)])
    assert card_points(piles, np.array([True, False])).tolist() == [93, 0]


# ====================================================================== piles, sides, games


def test_a_hand_worked_out():
    """An Ottocento split worked by hand. Side A: KS QS NS JS ANG BEG + 10 scartini (16 cards):
    Σv = 5+4+3+2+5+5+10 = 34, pairs 34 - 8 = 26, +6 for the last trick = 32. Side B holds the
    other 46 cards: Σv = 118 - 34 = 84, 84 - 23 = 61. 26 + 61 = 87; 32 + 61 = 93."""
    side_a = "KS QS NS JS ANG BEG AS 6S 7S 8S 9S 10S AB 6B 7B 8B"
    piles = mask(side_a)
    piles = np.vstack([piles, ~piles])
    assert value_sum(piles).tolist() == [34, 84]
    assert pile_points(piles).tolist() == [26, 61]
    assert card_points(piles, np.array([True, False])).tolist() == [32, 61]


def test_mattazza_piles_worked_out():
    """§14.4, 4 players (groups of 4 per trick). A pile of two tricks, "ANG KS 6S 7S" and
    "QC 8S 9S 10S": 5 + (5 - 1) + 0 + 0 = 9 and 4 + 0 + 0 + 0 = 4 by the group rule, 13 in all;
    Σv - N + N/4 = 19 - 8 + 2 = 13."""
    pile = mask("ANG KS 6S 7S QC 8S 9S 10S")
    assert group_points(["ANG", "KS", "6S", "7S"]) == 9
    assert group_points(["QC", "8S", "9S", "10S"]) == 4
    assert pile_points(pile, 4).tolist() == [13]
    # the same 8 cards in pairs (Ottocento) lose one point per pair instead: Σv - N/2 = 19 - 4
    assert pile_points(pile, 2).tolist() == [15]


def test_group_size_per_row():
    """``group_size`` may differ per row (tables of different sizes in one batch)."""
    piles = np.ones((3, NUM_CARDS), dtype=bool)
    piles[1, 60:] = False  # 60 cards
    piles[2, 50:] = False  # 50 cards
    assert pile_points(piles, np.array([2, 3, 5])).tolist() == [118 - 62 + 31, 108 - 60 + 20, value_sum(piles[2]) - 50 + 10]


def test_terziglio_odd_piles_in_half_points():
    """U18: a Terziglio side of 15 cards counted exactly in pairs. KS QS NS JS + 11 scartini:
    Σv = 25, 25 - 7.5 = 17.5 → 35 half-points; the other 47 cards 93 - 23.5 = 69.5 → 139;
    35 + 139 = 174 = 2 × 87. pile_points refuses the odd piles instead of rounding them."""
    side = mask("KS QS NS JS AS 6S 7S 8S 9S 10S AB 6B 7B 8B 9B")
    piles = np.vstack([side, ~side])
    assert pile_half_points(piles).tolist() == [35, 139]
    with pytest.raises(ValueError, match="U18"):
        pile_points(piles)
    assert pile_half_points(WHOLE_PACK).tolist() == [174]


def test_mattazza_pile_before_the_matto_exchange_is_refused():
    """§4.5, §14.4: a Mattazza pile that is not whole tricks (the Matto exchange not yet made)
    has no count in groups of n."""
    with pytest.raises(ValueError, match="Matto exchange"):
        pile_points(mask("ANG KS 6S 7S QC"), 4)


@pytest.mark.parametrize(
    "piles, group_size",
    [
        (np.ones((1, NUM_CARDS), dtype=np.int64), 2),  # not a bool mask
        (np.ones((1, 78), dtype=bool), 2),  # a French-sized mask
        (np.ones((1, 2, NUM_CARDS), dtype=bool), 2),
        (np.ones((1, NUM_CARDS), dtype=bool), 0),
        (np.ones((1, NUM_CARDS), dtype=bool), 2.0),
    ],
)
def test_pile_points_refuses_malformed_input(piles, group_size):
    with pytest.raises(ValueError):
        pile_points(piles, group_size)
    with pytest.raises(ValueError):
        pile_half_points(piles, group_size)


def test_empty_pile_scores_nothing():
    empty = np.zeros((2, NUM_CARDS), dtype=bool)
    assert pile_points(empty).tolist() == [0, 0]
    assert pile_points(empty, 5).tolist() == [0, 0]
    assert pile_half_points(empty).tolist() == [0, 0]


# ====================================================================== properties


def split(seq: list[int], cuts: list[int]) -> list[list[int]]:
    bounds = [0, *sorted(set(cuts)), len(seq)]
    return [seq[a:b] for a, b in itertools.pairwise(bounds) if b > a]


@settings(max_examples=300, deadline=None)
@given(st.permutations(range(NUM_CARDS)), st.integers(1, NUM_CARDS), st.lists(st.integers(1, NUM_CARDS - 1), max_size=61))
def test_any_split_of_a_pile_gives_sigma_v_minus_n_plus_g(perm, n, cuts):
    """§3.2 [DERIVED]: cut any pile into any G non-empty groups, of any sizes: the group
    scores add up to Σv - N + G."""
    pile = list(perm[:n])
    groups = split(pile, [c for c in cuts if c < n])
    total = sum(group_points(g) for g in groups)
    assert total == int(CARD_VALUE[pile].sum()) - n + len(groups)
    assert total == int(group_points(np.stack([ids_mask(g) for g in groups])).sum())


@settings(max_examples=200, deadline=None)
@given(st.permutations(range(NUM_CARDS)), st.integers(2, 6), st.integers(0, 12))
def test_pile_points_equals_any_grouping_into_equal_groups(perm, g, groups):
    """``pile_points(pile, g)`` = the sum of the group scores of any cut of the pile into
    groups of g (the order of the cards, hence the grouping, is random)."""
    n = min(g * groups, NUM_CARDS - NUM_CARDS % g)
    pile = list(perm[:n])
    by_groups = sum(group_points(pile[i : i + g]) for i in range(0, n, g))
    assert pile_points(ids_mask(pile), g) == by_groups


@settings(max_examples=100, deadline=None)
@given(st.permutations(range(NUM_CARDS)))
def test_any_pairing_of_the_whole_pack_gives_87(perm):
    """TV3: however the 62 cards fall into 31 pairs, the pairs add up to 87."""
    assert sum(group_points(list(perm[i : i + 2])) for i in range(0, NUM_CARDS, 2)) == 87


@settings(max_examples=200, deadline=None)
@given(st.permutations(range(NUM_CARDS)), st.integers(0, 31), st.booleans())
def test_two_sides_always_share_87_and_93(perm, pairs_a, a_last):
    """§8.3 [DERIVED]: whatever the two sides of an Ottocento hand took (even piles), their card
    points add up to 87, and to 93 with the last trick."""
    a = ids_mask(perm[: 2 * pairs_a])
    piles = np.stack([a, ~a])
    assert int(pile_points(piles).sum()) == 87
    assert int(card_points(piles, np.array([a_last, not a_last])).sum()) == 93


@settings(max_examples=200, deadline=None)
@given(st.permutations(range(NUM_CARDS)), st.integers(0, NUM_CARDS))
def test_terziglio_sides_share_174_half_points(perm, n):
    """U18: with piles of any size, odd included, the two sides' half-points add up to 2 × 87,
    and each is twice the exact Σv - N/2."""
    a = ids_mask(perm[:n])
    piles = np.stack([a, ~a])
    half = pile_half_points(piles)
    assert int(half.sum()) == 174
    assert half.tolist() == [2 * int(value_sum(p)) - int(p.sum()) for p in piles]


@settings(max_examples=200, deadline=None)
@given(st.integers(3, 6), st.permutations(range(NUM_CARDS)), st.lists(st.integers(0, 5), min_size=10, max_size=10))
def test_mattazza_players_share_sigma_v_minus_ten_n_plus_ten(n, perm, trick_winners):
    """§14.4: n players, 10 tricks of n cards from the 10n cards dealt, each trick to some
    player: the players' card points add up to Σv(dealt) - 10n + 10, and each player's equals
    the sum of the group scores of his tricks."""
    dealt = list(perm[: 10 * n])
    tricks = [dealt[i : i + n] for i in range(0, 10 * n, n)]
    piles = np.zeros((n, NUM_CARDS), dtype=bool)
    per_player = [0] * n
    for trick, w in zip(tricks, trick_winners):
        piles[w % n, trick] = True
        per_player[w % n] += group_points(trick)
    points = pile_points(piles, n)
    assert points.tolist() == per_player
    assert int(points.sum()) == int(CARD_VALUE[dealt].sum()) - 10 * n + 10
