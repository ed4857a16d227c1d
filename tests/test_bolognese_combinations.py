"""Combinations of the Tarocchino (rules/tarocchino.md §6, §7, §15 U5/U6, §16 TV4/TV6/TV9), at the
level of ``tarot_env.rules.bolognese.combinations``.

Every expected value was worked out by hand from the spec text, the arithmetic in a comment:

- a cricca (§6.1) of 3 cards scores Tarocchi 18, Re 17, Regine 14, Cavalli 13, Fanti 12; 4 cards
  twice that; the contatori never stand in; 3+ cricche double the whole cricca total (§6.2);
- a valid sequence of L cards (contatori included) scores 5·(L − 1); 3+ valid sequences double
  the sequence total (§6.2), independently of the cricche; C = contatori held, each counted in
  every valid sequence. Suit: Re + f of {Q, N, J}, f ≥ 2 or (f = 1, C ≥ 1), L = 1 + f + [A] + C.
  Grande: Angelo + h of {MON, SOL, LUN}, h ≥ 2 or (h = 1, C ≥ 1); spare = C − max(0, 2 − h)
  fills gaps of 16..5, the first unfilled gap breaks the chain; Mori only past the 5;
  L = 1 + h + numbers + Mori + C. Mori: m ≥ 3 or (m = 2, C ≥ 1), L = m + C. Aces likewise.

Each worked example is checked through the batch functions and :func:`breakdown`. Hypothesis
properties compare the batch functions with a plain-Python oracle written from the spec's
pseudo-code (below, in this file) on random sets, and check the table's shortcuts (Barilli's 148 rule, Pisarri's 105 rule)
against the direct count on random splits of the pack.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tarot_env.cards.bolognese import ANGELO, BOLOGNESE_DECK, NUM_CARDS
from tarot_env.rules.bolognese.combinations import (
    CRICCA_FAMILIES,
    GRANDE_FULL,
    MEZZO_CRICCONE,
    MORI_OPTIONS,
    SEQUENCE_FAMILIES,
    barilli_cricche,
    breakdown,
    combination_points,
    cricca_counts,
    cricche_family_points,
    cricche_points,
    pisarri_grande,
    sequence_lengths,
    sequence_points,
)

ALL = " ".join(BOLOGNESE_DECK.names)


def mask(cards: str) -> np.ndarray:
    """(62,) bool mask of cards written in the project's notation, space-separated."""
    return BOLOGNESE_DECK.mask(cards.split())


def numbers(hi: int, lo: int, skip: tuple[int, ...] = ()) -> str:
    """The scavezzo trumps hi..lo (``numbers(16, 5)`` is the whole chain), minus ``skip``."""
    return " ".join(f"T{n}" for n in range(hi, lo - 1, -1) if n not in skip)


def seq(cards: str, lengths: dict[str, int], total: int, mori: str = "both", doubling: bool = True) -> None:
    """Assert the valid sequences (family -> L, every other family none) and the sequence total,
    through the batch functions and through the breakdown."""
    m = mask(cards)
    expected = [lengths.get(name, 0) for name in SEQUENCE_FAMILIES]
    assert sequence_lengths(m[None], mori=mori, doubling=doubling)[0].tolist() == expected
    assert int(sequence_points(m[None], mori=mori, doubling=doubling)[0]) == total
    b = breakdown(m, mori=mori, doubling=doubling)
    assert [b.sequence_lengths[name] for name in SEQUENCE_FAMILIES] == expected
    assert b.sequences_total == total
    assert b.sequence_points == {name: 5 * (n - 1) if n else 0 for name, n in zip(SEQUENCE_FAMILIES, expected)}


def cricche(cards: str, points: dict[str, int], total: int, doubling: bool = True) -> None:
    """Assert the cricca points per family (before the criccone) and the cricca total, both ways."""
    m = mask(cards)
    expected = [points.get(name, 0) for name in CRICCA_FAMILIES]
    assert cricche_family_points(m[None])[0].tolist() == expected
    assert int(cricche_points(m[None], doubling=doubling)[0]) == total
    b = breakdown(m, doubling=doubling)
    assert [b.cricca_points[name] for name in CRICCA_FAMILIES] == expected
    assert b.cricche_total == total


def split(other: str) -> tuple[np.ndarray, np.ndarray]:
    """(side, other) sharing the pack: ``other`` holds the cards named, the side all the rest."""
    o = mask(other)
    return ~o, o


# =========================================================================== §16 spec vectors
def test_tv4_one_side_holds_the_whole_pack():
    # TV4: cricche 148 × 2 = 296; sequences: Grande 22 → 105, each suit K Q N J A + 2 contatori
    # = 7 → 30 (× 4 = 120), Mori 4 + 2 = 6 → 25, Aces 4 + 2 = 6 → 25; sum 275, 7 sequences → 550.
    cricche(ALL, {"tarocchi": 36, "re": 34, "regine": 28, "cavalli": 26, "fanti": 24}, 296)
    full = {"grande": 22, "spade": 7, "bastoni": 7, "coppe": 7, "denari": 7, "mori": 6, "assi": 6}
    seq(ALL, full, 550)
    assert int(combination_points(mask(ALL)[None])[0]) == 846
    # with the cards: Σv − 31 pairs = 118 − 31 = 87, + 6 for the last trick = 93; 93 + 846 = 939
    assert int(BOLOGNESE_DECK.value.sum()) - NUM_CARDS // 2 + 6 + 846 == 939


def test_tv6a_grande_broken_at_12_and_pisarri_shortcut():
    # TV6(a): the other side holds MON T14 T12 T10 T9 T7 T5 BEG (and, here, Spade, Bastoni, M1 M2).
    # The Angelo side: ANG SOL LUN (MON skipped free), T16 T15, MAT fills T14, T13, T12 missing
    # with no contatore left → stop. L = 1 + 2 + 3 + 0 + 1 = 7 → 30.
    side, other = split(f"MON T14 T12 T10 T9 T7 T5 BEG M1 M2 {' '.join(n for n in BOLOGNESE_DECK.names[:20])}")
    b = breakdown(side)
    assert b.sequence_lengths["grande"] == 7
    assert b.sequence_points["grande"] == 30
    assert b.scavezza == 12
    assert int(sequence_lengths(side[None])[0, 0]) == 7
    # shortcut: S = 12, h′ = MON, T14 = 2, c′ = BEG = 1: 105 − 5 × (12 + 2 + 1) = 30
    assert int(pisarri_grande(side[None], other[None])[0]) == 30


def test_tv6b_grande_two_contatori_in_the_chain_and_pisarri_shortcut():
    # TV6(b): the other side holds SOL T15 T12 T10 (and, here, Spade and Coppe). The Angelo side:
    # ANG MON LUN, T16, a contatore for 15, T14 T13, a contatore for 12, T11; the T10 missing
    # and no contatore left → stop. L = 1 + 2 + 4 (16 14 13 11) + 0 + 2 = 9 → 40.
    suits = " ".join(BOLOGNESE_DECK.names[0:10] + BOLOGNESE_DECK.names[20:30])
    side, other = split(f"SOL T15 T12 T10 {suits}")
    b = breakdown(side)
    assert (b.sequence_lengths["grande"], b.sequence_points["grande"], b.scavezza) == (9, 40, 10)
    # shortcut: S = 10, h′ = SOL, T15, T12 = 3, c′ = 0: 105 − 5 × (10 + 3 + 0) = 40
    assert int(pisarri_grande(side, other)) == 40


def test_tv9_declaration_of_a_primo_di_mano():
    # TV9: KS KC KB QS NS JS AS MAT ANG MON SOL T16 6C 7D 8B.
    hand = "KS KC KB QS NS JS AS MAT ANG MON SOL T16 6C 7D 8B"
    # cricche: Tarocchi (MAT ANG MON) 18 + Re (KS KC KB) 17 = 35, 2 cricche: no doubling
    cricche(hand, {"tarocchi": 18, "re": 17}, 35)
    # sequences, C = 1: Spade K Q N J A + MAT = 6 → 25; Grande ANG MON SOL (LUN skipped), T16,
    # MAT for 15, stops at 14: L = 1 + 2 + 1 + 0 + 1 = 5 → 20. 2 sequences: 45
    seq(hand, {"grande": 5, "spade": 6}, 45)
    b = breakdown(hand.split())
    assert (b.total, b.scavezza, b.criccone, b.sequences_doubled) == (80, 14, False, False)
    assert int(combination_points(mask(hand))) == 80


# =========================================================================== §6.1 cricche
@pytest.mark.parametrize(
    ("family", "cards", "points"),
    [
        ("tarocchi", "MON BEG MAT", 18),  # 3 Tarocchi, the Angelo missing: 18
        ("tarocchi", "ANG MON BEG MAT", 36),  # 4: 2 × 18
        ("re", "KS KB KD", 17),  # 3 Re: 17
        ("re", "KS KB KC KD", 34),  # 4: 2 × 17
        ("regine", "QS QC QD", 14),  # 3 Regine: 14
        ("regine", "QS QB QC QD", 28),  # 4: 2 × 14
        ("cavalli", "NB NC ND", 13),  # 3 Cavalli: 13
        ("cavalli", "NS NB NC ND", 26),  # 4: 2 × 13
        ("fanti", "JS JB JC", 12),  # 3 Fanti: 12
        ("fanti", "JS JB JC JD", 24),  # 4: 2 × 12
    ],
)
def test_cricca_of_each_family_at_three_and_four_cards(family, cards, points):
    # one cricca, with scartini around it: no criccone, the total is the family's points
    cricche(f"{cards} 7S 8B AC", {family: points}, points)
    assert cricca_counts(mask(cards))[CRICCA_FAMILIES.index(family)] == len(cards.split())


def test_two_cards_of_a_family_are_no_cricca():
    cricche("KS KB QS QB NS NB JS JB ANG MON", {}, 0)


def test_contatori_never_stand_in_for_a_missing_member():
    # Re: KS KB + BEG MAT is still 2 Re → 0; Regine QS QC + MAT → 0; and the Bégato and the Matto
    # with one other Tarocco are 3 Tarocchi (they are Tarocchi themselves): 18
    cricche("KS KB QS QC BEG MAT", {}, 0)
    cricche("KS KB QS QC BEG MAT MON", {"tarocchi": 18}, 18)


def test_criccone_doubles_the_whole_cricca_total():
    # 2 cricche: Re 17 + Regine 14 = 31, undoubled
    cricche("KS KB KC QS QB QC", {"re": 17, "regine": 14}, 31)
    # 3 cricche: 17 + 14 + 13 = 44 → criccone × 2 = 88
    cricche("KS KB KC QS QB QC NS NB NC", {"re": 17, "regine": 14, "cavalli": 13}, 88)
    assert breakdown(mask("KS KB KC QS QB QC NS NB NC")).criccone
    # a 4-card cricca is doubled again inside a criccone (§6.2): 36 + 17 + 12 = 65 → 130 (36 → 72)
    cricche("ANG MON BEG MAT KS KB KC JS JB JD", {"tarocchi": 36, "re": 17, "fanti": 12}, 130)
    # 4 cricche: 18 + 17 + 14 + 13 = 62 → 124
    cricche("ANG BEG MAT KS KB KC QS QB QC NS NB NC", {"tarocchi": 18, "re": 17, "regine": 14, "cavalli": 13}, 124)


def test_mezzo_criccone_is_148_and_doubled_296():
    # all five families complete (the 20 Carte di Valore): 36 + 34 + 28 + 26 + 24 = 148 → × 2 = 296
    valore = "ANG MON BEG MAT " + " ".join(f"{r}{s}" for r in "KQNJ" for s in "SBCD")
    assert MEZZO_CRICCONE == 148
    cricche(valore, {"tarocchi": 36, "re": 34, "regine": 28, "cavalli": 26, "fanti": 24}, 296)
    cricche(valore, {"tarocchi": 36, "re": 34, "regine": 28, "cavalli": 26, "fanti": 24}, 148, doubling=False)


# =========================================================================== §6.3 sequences
@pytest.mark.parametrize(
    ("cards", "lengths", "total"),
    [
        ("KS QS NS", {"spade": 3}, 10),  # Re + f = 2: L = 3 → 10
        ("KB NB JB", {"bastoni": 3}, 10),  # the Regina skipped, free: f = 2, L = 3 → 10
        ("KC QC JC AC", {"coppe": 4}, 15),  # f = 2 + the Ace: L = 4 → 15
        ("KD QD ND JD AD", {"denari": 5}, 20),  # f = 3 + Ace: L = 5 → 20
        ("KS QS", {}, 0),  # f = 1 and no contatore: not valid
        ("KS QS AS", {}, 0),  # the Ace cannot serve as the third figure ([PIS] p.79)
        ("QS NS JS AS", {}, 0),  # no Re, no head
        ("M1 M2 M3", {"mori": 3}, 10),  # m = 3: L = 3 → 10
        ("M1 M2 M3 M4", {"mori": 4}, 15),  # m = 4: L = 4 → 15
        ("M1 M2", {}, 0),  # m = 2, no contatore
        ("AS AB AC", {"assi": 3}, 10),  # a = 3: L = 3 → 10
        ("AS AB AC AD", {"assi": 4}, 15),  # a = 4: L = 4 → 15
        ("AS AB", {}, 0),  # a = 2, no contatore
        ("ANG MON SOL", {"grande": 3}, 10),  # h = 2, no contatore; T16 missing ends it: L = 3 → 10
        ("ANG SOL LUN", {"grande": 3}, 10),  # the Mondo skipped, free: h = 2, L = 3 → 10
        ("ANG MON SOL LUN T16 T15 T14", {"grande": 7}, 30),  # h = 3, 16 15 14, T13 ends it: L = 7 → 30
        ("MON SOL LUN T16 T15", {}, 0),  # no Angelo, no head
    ],
)
def test_sequence_families(cards, lengths, total):
    seq(cards, lengths, total)


def test_full_grande_is_22_cards_and_105():
    # ANG + MON SOL LUN + T16..T5 + M1..M4 + BEG MAT (the Bégato, last card, counted once as a
    # contatore): L = 1 + 3 + 12 + 4 + 2 = 22 → 105. The same cards make a Mori sequence
    # 4 + 2 = 6 → 25 (U5): 2 sequences, 130 undoubled.
    cards = f"ANG MON SOL LUN {numbers(16, 5)} M1 M2 M3 M4 BEG MAT"
    assert GRANDE_FULL == 105
    seq(cards, {"grande": 22, "mori": 6}, 105 + 25)


# ----------------------------------------------------------------- the contatori in every role
def test_contatore_fills_the_one_missing_member_to_reach_three():
    seq("KS QS MAT", {"spade": 3}, 10)  # Re + f = 1 + C = 1: L = 3 → 10
    seq("M1 M2 BEG", {"mori": 3}, 10)  # m = 2 + C = 1: L = 3 → 10
    seq("AS AD MAT", {"assi": 3}, 10)  # a = 2 + C = 1: L = 3 → 10
    seq("ANG LUN BEG", {"grande": 3}, 10)  # h = 1 + C = 1 (the second head gap): L = 3 → 10


def test_only_one_member_may_be_stood_in_for():
    # two contatori never make a sequence of one real member: K + 2 contatori (f = 0), one Moro,
    # one Ace, the Angelo alone (h = 0) are all invalid
    seq("KS BEG MAT", {}, 0)
    seq("M1 BEG MAT", {}, 0)
    seq("AS BEG MAT", {}, 0)
    seq(f"ANG BEG MAT {numbers(16, 5)}", {}, 0)


def test_contatori_are_added_to_a_longer_sequence():
    # K Q N J A valid alone (f = 3): + BEG + MAT = 7 → 30 (each contatore +5)
    seq("KS QS NS JS AS BEG MAT", {"spade": 7}, 30)
    # M1 M2 M3 M4 + MAT: L = 5 → 20
    seq("M1 M2 M3 M4 MAT", {"mori": 5}, 20)


def test_contatore_counts_in_several_sequences_at_once():
    # C = 1 (MAT). Spade K Q N + A + MAT = 5 → 20; Bastoni K Q N + A + MAT = 5 → 20; Aces AS AB AC
    # + MAT = 4 → 15 (the Aces count in their suit and in the Aces). 3 sequences: 55 × 2 = 110.
    # Cricche: 2 Re, 2 Regine, 2 Cavalli, 1 Tarocco: none.
    cards = "KS QS NS AS KB QB NB AB AC MAT"
    seq(cards, {"spade": 5, "bastoni": 5, "assi": 4}, 110)
    assert int(combination_points(mask(cards))) == 110


def test_contatori_fill_scavezzo_gaps():
    # h = 3, spare = 2: 16 ✓, 15 gap → BEG, 14 ✓, 13 gap → MAT, 12 ✓, 11 gap and none left → stop.
    # L = 1 + 3 + 3 (16 14 12) + 0 + 2 = 9 → 40; the T10 below the break is not counted
    seq("ANG MON SOL LUN T16 T14 T12 T10 BEG MAT", {"grande": 9}, 40)
    assert breakdown(mask("ANG MON SOL LUN T16 T14 T12 T10 BEG MAT")).scavezza == 11


def test_contatore_used_in_the_head_is_not_spare():
    # h = 1 (MON), C = 1: the Matto fills the head, spare = 0; 16 ✓, 15 gap → stop.
    # L = 1 + 1 + 1 + 0 + 1 = 4 → 15
    seq("ANG MON MAT T16 T14", {"grande": 4}, 15)


# ----------------------------------------------------------------- the Grande broken
def test_grande_broken_in_the_head_beyond_the_free_skip():
    # h = 1 and no contatore: the head misses two, only one skip is free → no Grande at all
    seq(f"ANG MON {numbers(16, 5)}", {}, 0)
    # h = 1 with a contatore: valid, spare 0; 16..14 then 13 missing: L = 1 + 1 + 3 + 0 + 1 = 6 → 25
    seq("ANG MON MAT T16 T15 T14", {"grande": 6}, 25)


def test_grande_broken_at_16():
    # h = 3, no contatore; T16 missing → the chain stops at once, T15 T14 not counted: L = 4 → 15
    seq("ANG MON SOL LUN T15 T14", {"grande": 4}, 15)
    assert breakdown(mask("ANG MON SOL LUN T15 T14")).scavezza == 16


def test_no_free_skip_among_the_scavezzo_numbers():
    # h = 3, C = 0; 16 ✓, 15 missing → stop (the free skip is for the head only): L = 5 → 20
    seq("ANG MON SOL LUN T16 T14 T13", {"grande": 5}, 20)


def test_grande_broken_in_the_middle():
    # 16..11 ✓, 10 missing → stop; T9 T8 not counted: L = 1 + 3 + 6 = 10 → 45
    seq(f"ANG MON SOL LUN {numbers(16, 11)} T9 T8", {"grande": 10}, 45)
    assert breakdown(mask(f"ANG MON SOL LUN {numbers(16, 11)} T9 T8")).scavezza == 10


def test_grande_broken_at_5_keeps_the_mori_out():
    # 16..6 ✓, 5 missing → stop: L = 1 + 3 + 11 = 15 → 70; the Mori are not reached; they make
    # their own sequence 4 → 15. 2 sequences: 85
    cards = f"ANG MON SOL LUN {numbers(16, 6)} M1 M2 M3 M4"
    seq(cards, {"grande": 15, "mori": 4}, 85)
    assert breakdown(mask(cards)).scavezza == 5


def test_grande_passes_to_the_mori():
    # 16..5 all held: L = 1 + 3 + 12 + 2 Mori = 18 → 85; two Mori without a contatore are no
    # Mori sequence
    seq(f"ANG MON SOL LUN {numbers(16, 5)} M1 M2", {"grande": 18}, 85)
    assert breakdown(mask(f"ANG MON SOL LUN {numbers(16, 5)} M1 M2")).scavezza is None
    # the 5 filled by the Matto, then 3 Mori: L = 1 + 3 + 11 + 3 + 1 = 19 → 90; Mori 3 + 1 = 4 → 15 (U5)
    seq(f"ANG MON SOL LUN {numbers(16, 6)} MAT M1 M2 M3", {"grande": 19, "mori": 4}, 105)


# =========================================================================== §6.2 doubling
def test_three_sequences_without_criccone_double_the_sequences_only():
    # Pisarri: KS QS NS 10, M1 M2 M3 10, AB AC AD 10 → 30 × 2 = 60; cricche: none
    cards = "KS QS NS M1 M2 M3 AB AC AD"
    seq(cards, {"spade": 3, "mori": 3, "assi": 3}, 60)
    cricche(cards, {}, 0)
    b = breakdown(mask(cards))
    assert (b.sequences_doubled, b.criccone, b.total) == (True, False, 60)


def test_criccone_with_two_sequences_doubles_the_cricche_only():
    # Pisarri: cricche Re 17 + Regine 14 + Fanti 12 = 43 → × 2 = 86. Sequences: Spade K Q J 10,
    # Bastoni K Q J 10, Coppe K J (f = 1, no contatore) none: 2 sequences, 20 undoubled. 106
    cards = "KS KB KC QS QB QD JS JB JC"
    cricche(cards, {"re": 17, "regine": 14, "fanti": 12}, 86)
    seq(cards, {"spade": 3, "bastoni": 3}, 20)
    b = breakdown(mask(cards))
    assert (b.criccone, b.cricche_doubled, b.sequences_doubled, b.total) == (True, True, False, 106)
    # with M1 M2 M3 a third sequence: 30 × 2 = 60; both doubled: 86 + 60 = 146
    assert int(combination_points(mask(cards + " M1 M2 M3"))) == 146


def test_doubling_false_leaves_both_undoubled():
    # U6's alternative (declarations undoubled): TV4 gives 148 + 275 = 423
    full = mask(ALL)
    assert int(cricche_points(full, doubling=False)) == 148
    assert int(sequence_points(full, doubling=False)) == 275
    assert int(combination_points(full, doubling=False)) == 423
    b = breakdown(full, doubling=False)
    assert (b.criccone, b.cricche_doubled, b.sequences_doubled, b.total) == (True, False, False, 423)


# =========================================================================== U5: the Mori
# C = 1. The Grande: 16..6, MAT for the 5, M1 M2 M3: 1 + 3 + 11 + 3 + 1 = 19 → 90, or without
# the Mori 16 → 75. The Mori sequence: 3 + 1 = 4 → 15. Spade K Q N + MAT = 4 → 15.
U5_ONE = f"ANG MON SOL LUN {numbers(16, 6)} MAT M1 M2 M3 KS QS NS"
# C = 2 (+ BEG). The Grande 20 → 95, or 17 → 80 without the Mori; Mori 3 + 2 = 5 → 20; Spade 5 → 20.
U5_TWO = f"ANG MON SOL LUN {numbers(16, 6)} MAT BEG M1 M2 M3"


@pytest.mark.parametrize(
    ("mori", "doubling", "lengths", "total"),
    [
        # in both (default): 90 + 15 + 15 = 120, 3 sequences → 240
        ("both", True, {"grande": 19, "mori": 4, "spade": 4}, 240),
        # in the Grande only: 90 + 15 = 105, 2 sequences
        ("grande", True, {"grande": 19, "spade": 4}, 105),
        # in the Mori sequence only: 75 + 15 + 15 = 105, 3 sequences → 210
        ("mori", True, {"grande": 16, "mori": 4, "spade": 4}, 210),
        # the better of the two for the side: 210 > 105
        ("best", True, {"grande": 16, "mori": 4, "spade": 4}, 210),
        # undoubled: "grande" 105 and "mori" 105 tie; the tie keeps "grande"
        ("best", False, {"grande": 19, "spade": 4}, 105),
        ("both", False, {"grande": 19, "mori": 4, "spade": 4}, 120),
    ],
)
def test_u5_mori_in_the_grande_and_in_the_mori_sequence(mori, doubling, lengths, total):
    seq(U5_ONE, lengths, total, mori=mori, doubling=doubling)


@pytest.mark.parametrize(
    ("mori", "lengths", "total"),
    [
        ("both", {"grande": 20, "mori": 5}, 115),  # 95 + 20
        ("grande", {"grande": 20}, 95),  # 95
        ("mori", {"grande": 17, "mori": 5}, 100),  # 80 + 20
        ("best", {"grande": 17, "mori": 5}, 100),  # 100 > 95, with no doubling involved
    ],
)
def test_u5_with_two_contatori(mori, lengths, total):
    seq(U5_TWO, lengths, total, mori=mori)


def test_u5_options_agree_when_the_grande_does_not_reach_the_mori():
    # the Grande stops at 16 (L = 4 → 15); M1 M2 M3 make their own sequence 3 → 10: 25 whatever U5 says
    for mori in MORI_OPTIONS:
        seq("ANG MON SOL LUN T15 M1 M2 M3", {"grande": 4, "mori": 3}, 25, mori=mori)


# =========================================================================== shapes and refusals
def test_one_set_gives_a_scalar_and_a_batch_gives_rows():
    hand = mask("KS KC KB QS NS JS AS MAT ANG MON SOL T16 6C 7D 8B")
    batch = np.stack([hand, mask(ALL), np.zeros(NUM_CARDS, dtype=bool)])
    assert combination_points(batch).tolist() == [80, 846, 0]
    assert int(combination_points(hand)) == 80
    assert sequence_lengths(hand).shape == (7,)
    assert cricche_family_points(batch).shape == (3, 5)
    assert cricca_counts(batch)[1].tolist() == [4, 4, 4, 4, 4]


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="bool masks"):
        combination_points(np.ones((2, 61), dtype=bool))
    with pytest.raises(ValueError, match="bool masks"):
        cricche_points(np.ones((2, 62), dtype=np.int8))
    with pytest.raises(ValueError, match="U5"):
        sequence_points(mask(ALL), mori="neither")
    with pytest.raises(ValueError, match="U5"):
        breakdown(["KS"], mori="neither")
    with pytest.raises(ValueError, match="distinct"):
        breakdown(["KS", "ks"])
    with pytest.raises(ValueError, match="whole pack"):
        barilli_cricche(mask("KS"), mask("KB"))
    with pytest.raises(ValueError, match="whole pack"):
        pisarri_grande(mask(ALL), mask("KS"))


def test_breakdown_takes_notation_ids_or_a_mask():
    hand = "KS KC KB QS NS JS AS MAT ANG MON SOL T16 6C 7D 8B"
    ids = BOLOGNESE_DECK.parse_many(hand.split())
    assert breakdown(hand.split()) == breakdown(ids) == breakdown(mask(hand))


# =========================================================================== the table's shortcuts
def test_barilli_shortcut_worked_example():
    # the other side holds KS KB (2 Re), QS (1 Regina), ANG MON BEG (3 Tarocchi), no Cavallo or Fante:
    # 148 − (2·17 + 1·14 + 2·18) = 148 − 84 = 64: Regine 14 + Cavalli 26 + Fanti 24 = 64, 3 cricche → 128
    side, other = split("KS KB QS ANG MON BEG")
    assert int(barilli_cricche(side, other)) == 128 == int(cricche_points(side))
    assert int(barilli_cricche(side, other, doubling=False)) == 64


def test_pisarri_shortcut_gives_nothing_without_a_grande():
    # the Angelo with the other side: this side has no Grande
    side, other = split("ANG")
    assert int(pisarri_grande(side, other)) == 0
    # this side holds the Angelo but only the Luna of the head, and no contatore: broken head
    side, other = split("MON SOL BEG MAT")
    assert int(pisarri_grande(side, other)) == 0 == int(sequence_lengths(side)[0])
    # everything: S = 0, h′ = c′ = 0: 105
    side, other = split("")
    assert int(pisarri_grande(side, other)) == 105


# =========================================================================== properties
def _dense_sets(seed: int, rows: int) -> np.ndarray:
    """Random sets of every density, some as nearly the whole pack (long Grande chains, Mori)."""
    rng = np.random.default_rng(seed)
    p = rng.choice([rng.uniform(0, 1), 0.85, 0.95], size=(rows, 1))
    return rng.random((rows, NUM_CARDS)) < p


CARD_SETS = st.one_of(
    arrays(bool, (16, NUM_CARDS)),
    st.builds(_dense_sets, st.integers(0, 2**32 - 1), st.just(32)),
)


# --------------------------------------------------------------------------- the oracle
# §6.3's pseudo-code written out in plain Python, one set at a time: the independent
# reference the batch functions are checked against.
from tarot_env.cards.bolognese import BEGATO, LUNA, MATTO, MONDO, MORI, SOLE, SUITS, card, suit_card  # noqa: E402
from tarot_env.rules.bolognese.combinations import DOUBLING_COUNT, SEQUENCE_STEP  # noqa: E402


def _reference_lengths(P: set[int], mori: str) -> tuple[dict[str, int], int | None]:
    """§6.3's pseudo-code, written out for one set (the oracle for the batch ``_lengths``)."""
    C = sum(c in P for c in (BEGATO, MATTO))
    L = dict.fromkeys(SEQUENCE_FAMILIES, 0)
    for s, name in enumerate(SEQUENCE_FAMILIES[1:5]):
        suit = SUITS[s]
        if suit_card("K", suit) in P:
            f = sum(suit_card(r, suit) in P for r in ("Q", "N", "J"))
            if f >= 2 or (f == 1 and C >= 1):
                L[name] = 1 + f + (suit_card("A", suit) in P) + C
    m = sum(c in P for c in MORI)
    mori_valid = m >= 3 or (m == 2 and C >= 1)
    if mori_valid:
        L["mori"] = m + C
    a = sum(suit_card("A", s) in P for s in SUITS)
    if a >= 3 or (a == 2 and C >= 1):
        L["assi"] = a + C
    scavezza = None
    if ANGELO in P:
        h = sum(c in P for c in (MONDO, SOLE, LUNA))
        if h >= 2 or (h == 1 and C >= 1):
            spare = C - max(0, 2 - h)
            nat, ok = 0, True
            for n in range(16, 4, -1):
                if card(f"T{n}") in P:
                    nat += 1
                elif spare > 0:
                    spare -= 1
                else:
                    ok, scavezza = False, n
                    break
            grande_mori = m if ok else 0
            if mori == "grande" and grande_mori > 0:
                L["mori"] = 0
            if mori == "mori" and mori_valid:
                grande_mori = 0
            L["grande"] = 1 + h + nat + grande_mori + C
    return L, scavezza


def _reference_sequence_total(L: dict[str, int], doubling: bool) -> int:
    total = sum(SEQUENCE_STEP * (n - 1) for n in L.values() if n)
    valid = sum(1 for n in L.values() if n)
    return 2 * total if doubling and valid >= DOUBLING_COUNT else total




def _reference_cricche(P: set[int], doubling: bool) -> tuple[list[int], int]:
    """§6.1 for one set: points per family, and the total with the criccone."""
    families = [
        (18, ("ANG", "MON", "BEG", "MAT")),
        (17, tuple(f"K{x}" for x in SUITS)),
        (14, tuple(f"Q{x}" for x in SUITS)),
        (13, tuple(f"N{x}" for x in SUITS)),
        (12, tuple(f"J{x}" for x in SUITS)),
    ]
    points, cricche = [], 0
    for value, names in families:
        held = sum(card(n) in P for n in names)
        points.append(2 * value if held == 4 else value if held == 3 else 0)
        cricche += held >= 3
    total = sum(points)
    return points, 2 * total if doubling and cricche >= DOUBLING_COUNT else total


def _reference(row: np.ndarray, mori: str, doubling: bool) -> tuple[list[int], int, list[int], int]:
    P = {int(c) for c in np.flatnonzero(row)}
    if mori == "best":
        by_grande, _ = _reference_lengths(P, "grande")
        by_mori, _ = _reference_lengths(P, "mori")
        better = _reference_sequence_total(by_mori, doubling) > _reference_sequence_total(by_grande, doubling)
        L = by_mori if better else by_grande
    else:
        L, _ = _reference_lengths(P, mori)
    cricca, cricche_total = _reference_cricche(P, doubling)
    return cricca, cricche_total, [L[name] for name in SEQUENCE_FAMILIES], _reference_sequence_total(L, doubling)


@settings(max_examples=150, deadline=None)
@given(sets=CARD_SETS, mori=st.sampled_from(MORI_OPTIONS), doubling=st.booleans())
def test_batch_functions_equal_the_plain_python_oracle(sets, mori, doubling):
    totals = combination_points(sets, mori=mori, doubling=doubling)
    lengths = sequence_lengths(sets, mori=mori, doubling=doubling)
    cricca = cricche_family_points(sets)
    crick = cricche_points(sets, doubling=doubling)
    seqs = sequence_points(sets, mori=mori, doubling=doubling)
    for r, row in enumerate(sets):
        ref_cricca, ref_cricche, ref_lengths, ref_sequences = _reference(row, mori, doubling)
        assert cricca[r].tolist() == ref_cricca
        assert crick[r] == ref_cricche
        assert lengths[r].tolist() == ref_lengths
        assert seqs[r] == ref_sequences
        assert totals[r] == ref_cricche + ref_sequences
        b = breakdown(row, mori=mori, doubling=doubling)
        assert (b.total, b.cricche_total, b.sequences_total) == (totals[r], crick[r], seqs[r])
        assert [b.sequence_lengths[name] for name in SEQUENCE_FAMILIES] == ref_lengths
        P = {int(c) for c in np.flatnonzero(row)}
        if ref_lengths[0]:
            assert b.scavezza == _reference_lengths(P, "both")[1]


@settings(max_examples=150, deadline=None)
@given(sets=CARD_SETS, doubling=st.booleans())
def test_barilli_shortcut_equals_the_direct_cricca_count(sets, doubling):
    side, other = sets, ~sets
    assert barilli_cricche(side, other, doubling=doubling).tolist() == cricche_points(side, doubling=doubling).tolist()
    assert barilli_cricche(other, side, doubling=doubling).tolist() == cricche_points(other, doubling=doubling).tolist()


@settings(max_examples=150, deadline=None)
@given(sets=CARD_SETS)
def test_pisarri_shortcut_equals_the_direct_grande_of_the_angelo_side(sets):
    # the side holding the Angelo, against the other side
    side = np.where(sets[:, [ANGELO]], sets, ~sets)
    other = ~side
    grande = sequence_lengths(side)[:, 0]
    direct = np.where(grande > 0, 5 * (grande - 1), 0)
    shortcut = pisarri_grande(side, other)
    intact = grande > 0  # the head intact: h ≥ 2, or h = 1 with a contatore
    assert shortcut[intact].tolist() == direct[intact].tolist()
    assert not shortcut[~intact].any()
