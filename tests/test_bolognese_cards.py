"""The 62-card Bolognese pack (rules/tarocchino.md §2–§3.1) and the shared trick mechanics on it (§4.2, §4.3).

Every expectation here is written out by hand from the spec, never read back from
``tarot_env/cards/bolognese.py``: the id table, the trump order of §2.2, the suit orders of
§2.3, the values of §3.1 and the flags. The trick mechanics are the test oracle's,
``tests/oracles/tricks.py``, built for this pack as the Bolognese games need them:
``TrickTables.for_deck(BOLOGNESE_DECK, must_overtrump=False, ties_to_later=True)`` — nobody
has to beat or over-trump (§4.2.3, U1), and among the equal Mori the last played wins (§4.3).
Tricks are written as the cards of seats 0, 1, 2, ... in playing order.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.tricks import TrickTables, legal_plays, play_card

from tarot_env.cards.bolognese import (
    ANGELO,
    BEGATO,
    BOLOGNESE_DECK,
    IS_ACE,
    IS_CARTA_DA_5,
    IS_CONTATORE,
    IS_MORO,
    IS_SCARTINO,
    IS_TAROCCO,
    IS_TRUMP,
    LUNA,
    MATTO,
    MONDO,
    MORI,
    NUM_CARDS,
    NUMBERED,
    SOLE,
    card,
    card_name,
    suit_card,
)
from tarot_env.cards.deck import EXCUSE_SUIT, TRUMP_SUIT

TABLES = TrickTables.for_deck(BOLOGNESE_DECK, must_overtrump=False, ties_to_later=True)
S, B, C, D = 0, 1, 2, 3  # suit codes of Spade, Bastoni, Coppe, Denari
NONE = -1  # no suit led yet

# ---------------------------------------------------------------- the spec, written out by hand

#: The id table of the pack, id 0 first: per suit S, B, C, D the A 6 7 8 9 10 J N Q K; then the
#: Bégato, the Mori, the numbered trumps 5..16, the Luna, Sole, Mondo, Angelo; the Matto last.
ID_TABLE = [
    *["AS", "6S", "7S", "8S", "9S", "10S", "JS", "NS", "QS", "KS"],
    *["AB", "6B", "7B", "8B", "9B", "10B", "JB", "NB", "QB", "KB"],
    *["AC", "6C", "7C", "8C", "9C", "10C", "JC", "NC", "QC", "KC"],
    *["AD", "6D", "7D", "8D", "9D", "10D", "JD", "ND", "QD", "KD"],
    *["BEG", "M1", "M2", "M3", "M4", "T5", "T6", "T7", "T8", "T9", "T10", "T11", "T12", "T13", "T14", "T15", "T16"],
    *["LUN", "SOL", "MON", "ANG", "MAT"],
]

#: §2.2, highest first; cards in one tier are equal in taking power (the four Mori).
TRUMP_TIERS = (
    ("ANG",),
    ("MON",),
    ("SOL",),
    ("LUN",),
    ("T16",),
    ("T15",),
    ("T14",),
    ("T13",),
    ("T12",),
    ("T11",),
    ("T10",),
    ("T9",),
    ("T8",),
    ("T7",),
    ("T6",),
    ("T5",),
    ("M1", "M2", "M3", "M4"),
    ("BEG",),
)
TRUMP_TIER = {name: i for i, tier in enumerate(TRUMP_TIERS) for name in tier}  # 0 = highest

#: §2.3, highest first: the "long" suits and the "round" suits (whose pips run backwards).
LONG_ORDER = ("K", "Q", "N", "J", "10", "9", "8", "7", "6", "A")
ROUND_ORDER = ("K", "Q", "N", "J", "A", "6", "7", "8", "9", "10")
SUIT_ORDER = {"S": LONG_ORDER, "B": LONG_ORDER, "C": ROUND_ORDER, "D": ROUND_ORDER}

#: §3.1: Re 5, Regina 4, Cavallo 3, Fante 2; the Tarocchi 5; every other card (a scartino) 1.
COURT_VALUE = {"K": 5, "Q": 4, "N": 3, "J": 2}
TAROCCHI = {"ANG", "MON", "BEG", "MAT"}
SUITS = "SBCD"


def suit_of(name: str) -> str:
    """'T' for a trump, 'X' for the Matto, else the suit letter (the notation's last letter)."""
    if name == "MAT":
        return "X"
    return "T" if name in TRUMP_TIER else name[-1]


def value_of(name: str) -> int:
    if name in TAROCCHI:
        return 5
    if suit_of(name) == "T":
        return 1
    return COURT_VALUE.get(name[:-1], 1)


def names(mask: np.ndarray) -> set[str]:
    return {ID_TABLE[c] for c in np.flatnonzero(mask)}


def hand_mask(*hands: str) -> np.ndarray:
    m = np.zeros((len(hands), NUM_CARDS), dtype=bool)
    for r, hand in enumerate(hands):
        for c in hand.split():
            m[r, card(c)] = True
    return m


def trick_state(played: str | list[str], tables: TrickTables = TABLES) -> tuple[int, int, int, int]:
    """(lead_suit, top_trump, best_key, best_seat) after the cards of ``played`` (seats 0, 1, ...)."""
    ls, tt, bk, bs = np.array([NONE]), np.array([0]), np.array([-1]), np.array([-1])
    for seat, c in enumerate(played.split() if isinstance(played, str) else played):
        ls, tt, bk, bs = play_card(tables, np.array([card(c)]), np.array([seat]), ls, tt, bk, bs)
    return int(ls[0]), int(tt[0]), int(bk[0]), int(bs[0])


def winner(played: str | list[str], tables: TrickTables = TABLES) -> int:
    return trick_state(played, tables)[3]


def two_card_winners(pairs: list[tuple[str, str]]) -> np.ndarray:
    """Winning seat of each two-card trick (seat 0 leads), all tricks in one batch call."""
    R = len(pairs)
    ls, tt, bk, bs = np.full(R, NONE), np.zeros(R, dtype=np.int64), np.full(R, -1), np.full(R, -1)
    for seat in (0, 1):
        cards = np.array([card(p[seat]) for p in pairs])
        ls, tt, bk, bs = play_card(TABLES, cards, np.full(R, seat), ls, tt, bk, bs)
    return bs


# ====================================================================== notation and ids


def test_id_table_of_the_pack():
    """The ids of the module docstring: suit cards ``suit * 10 + r``, then BEG, M1–M4, T5–T16,
    LUN, SOL, MON, ANG, MAT; 62 cards, every name once."""
    assert NUM_CARDS == 62 == BOLOGNESE_DECK.size == len(ID_TABLE) == len(set(ID_TABLE))
    assert list(BOLOGNESE_DECK.names) == ID_TABLE
    assert [card_name(i) for i in range(62)] == ID_TABLE
    assert (BEGATO, MORI, LUNA, SOLE, MONDO, ANGELO, MATTO) == (40, (41, 42, 43, 44), 57, 58, 59, 60, 61)
    assert [ID_TABLE[i] for i in NUMBERED] == [f"T{n}" for n in range(5, 17)]
    assert BOLOGNESE_DECK.excuse == MATTO == ID_TABLE.index("MAT")
    for s, suit in enumerate(SUITS):
        for r, rank in enumerate(("A", "6", "7", "8", "9", "10", "J", "N", "Q", "K")):
            assert suit_card(rank, suit) == s * 10 + r == card(rank + suit)


@pytest.mark.parametrize("cid", range(62), ids=ID_TABLE)
def test_notation_round_trip_and_case_insensitive_parse(cid):
    """interface.md §2: parsing is case-insensitive (and ignores surrounding spaces);
    formatting is canonical."""
    name = ID_TABLE[cid]
    assert card(name) == cid
    assert card_name(card(name)) == name
    for text in (name.lower(), name.swapcase(), f"  {name.lower()} "):
        assert card(text) == cid
        assert card_name(card(text)) == name
    assert BOLOGNESE_DECK.parse(name.lower()) == cid and BOLOGNESE_DECK.format(cid) == name


@pytest.mark.parametrize("text", ["", "5S", "2C", "1S", "KH", "T4", "T17", "T21", "T1", "M0", "M5", "EX", "CS", "ANGEL", "10", "S"])
def test_cards_not_in_the_pack_are_refused(text):
    """§2.1: no 2–5 pips, no hearts, trumps T5–T16 only (the top four and the Mori carry
    names), no French Excuse: each is a clear ValueError naming the text."""
    with pytest.raises(ValueError, match="not a card of the Tarocchino deck"):
        card(text)


def test_a_card_must_be_a_string():
    with pytest.raises(TypeError):
        card(13)  # type: ignore[arg-type]


def test_deck_mask_reads_notation():
    m = BOLOGNESE_DECK.mask(["ks", "MAT", 40])
    assert names(m) == {"KS", "MAT", "BEG"}


# ====================================================================== suits, order, values, flags


def test_suit_codes():
    """Four plain suits S B C D (codes 0–3), 21 trumps, and the Matto apart: it is no trump
    (U19: it never answers the duty to trump)."""
    for cid, name in enumerate(ID_TABLE):
        expected = {"S": S, "B": B, "C": C, "D": D, "T": TRUMP_SUIT, "X": EXCUSE_SUIT}[suit_of(name)]
        assert BOLOGNESE_DECK.suit[cid] == expected, name
    assert names(IS_TRUMP) == set(TRUMP_TIER) and np.count_nonzero(IS_TRUMP) == 21
    assert not IS_TRUMP[MATTO]


def test_trump_order_by_strength():
    """§2.2: ANG > MON > SOL > LUN > T16 > … > T5 > the Mori (all equal) > BEG; the Matto has
    no strength (-1) and every trump is above every suit card."""
    for a in TRUMP_TIER:
        for b in TRUMP_TIER:
            sa, sb = BOLOGNESE_DECK.strength[card(a)], BOLOGNESE_DECK.strength[card(b)]
            assert (sa > sb) == (TRUMP_TIER[a] < TRUMP_TIER[b]), (a, b)
            assert (sa == sb) == (TRUMP_TIER[a] == TRUMP_TIER[b]), (a, b)
    assert BOLOGNESE_DECK.strength[MATTO] == -1
    suit_strengths = BOLOGNESE_DECK.strength[:40]
    assert suit_strengths.min() >= 0 and suit_strengths.max() < BOLOGNESE_DECK.strength[card("BEG")]


def test_pisarri_ranks_of_the_trumps():
    """§2.2's engine rank: the Pisarri number (ANG 20, MON 19, SOL 18, LUN 17, T16…T5, the
    Mori in slots 4..1, BEG 0)."""
    expected = {"ANG": 20, "MON": 19, "SOL": 18, "LUN": 17, "M1": 4, "M2": 3, "M3": 2, "M4": 1, "BEG": 0}
    expected |= {f"T{n}": n for n in range(5, 17)}
    assert {n: int(BOLOGNESE_DECK.rank[card(n)]) for n in expected} == expected


@pytest.mark.parametrize("suit", SUITS)
def test_suit_order_by_strength(suit):
    """§2.3: Spade and Bastoni K Q N J 10 9 8 7 6 A; Coppe and Denari K Q N J A 6 7 8 9 10."""
    order = SUIT_ORDER[suit]
    strengths = [int(BOLOGNESE_DECK.strength[card(rank + suit)]) for rank in order]
    assert strengths == sorted(strengths, reverse=True) and len(set(strengths)) == 10


def test_only_the_mori_share_a_strength():
    """Ties in a trick can only come from the Mori, the one place where the tie rule of §4.3 acts."""
    st_ = BOLOGNESE_DECK.strength
    for suit in range(4):
        assert len(set(st_[BOLOGNESE_DECK.suit == suit].tolist())) == 10
    trump_strengths = st_[IS_TRUMP].tolist()
    assert len(set(trump_strengths)) == 21 - 3


@pytest.mark.parametrize("cid", range(62), ids=ID_TABLE)
def test_card_values_of_3_1(cid):
    """§3.1: Re, Angelo, Mondo, Bégato, Matto 5; Regina 4; Cavallo 3; Fante 2; every other card 1."""
    assert BOLOGNESE_DECK.value[cid] == value_of(ID_TABLE[cid])


def test_values_add_up_to_118():
    """§3.2 / TV3: 20 (Kings) + 20 (Tarocchi) + 16 (Queens) + 12 (Cavalli) + 8 (Fanti) + 42 scartini = 118."""
    v = {n: int(BOLOGNESE_DECK.value[card(n)]) for n in ID_TABLE}
    assert sum(v[f"K{s}"] for s in SUITS) == 20
    assert sum(v[t] for t in TAROCCHI) == 20
    assert sum(v[f"Q{s}"] for s in SUITS) == 16
    assert sum(v[f"N{s}"] for s in SUITS) == 12
    assert sum(v[f"J{s}"] for s in SUITS) == 8
    assert sorted(n for n in ID_TABLE if v[n] == 1) == sorted(n for n in ID_TABLE if n[:-1] not in COURT_VALUE and n not in TAROCCHI)
    assert sum(1 for n in ID_TABLE if v[n] == 1) == 42
    assert int(BOLOGNESE_DECK.value.sum()) == 118


def test_flags():
    """§1, §2.4, §3.1: 4 Tarocchi (ANG MON BEG MAT), 2 contatori (BEG MAT), 8 carte da 5
    (4 Kings + 4 Tarocchi), 42 scartini (all but the 16 figures and 4 Tarocchi), 4 Aces, 4 Mori."""
    assert names(IS_TAROCCO) == {"ANG", "MON", "BEG", "MAT"}
    assert names(IS_CONTATORE) == {"BEG", "MAT"}
    assert names(IS_CARTA_DA_5) == {"KS", "KB", "KC", "KD", "ANG", "MON", "BEG", "MAT"}
    figures = {f"{r}{s}" for r in "KQNJ" for s in SUITS}
    assert names(IS_SCARTINO) == set(ID_TABLE) - figures - TAROCCHI
    assert np.count_nonzero(IS_SCARTINO) == 42
    assert names(IS_ACE) == {"AS", "AB", "AC", "AD"}
    assert names(IS_MORO) == {"M1", "M2", "M3", "M4"}
    for flag in (IS_TRUMP, IS_TAROCCO, IS_CONTATORE, IS_MORO, IS_CARTA_DA_5, IS_SCARTINO, IS_ACE):
        assert flag.shape == (62,) and flag.dtype == bool
        with pytest.raises(ValueError):
            flag[0] = not flag[0]  # shared card facts are read-only


# ====================================================================== who wins a trick (§4.3)


def test_every_pair_of_trumps_in_the_order_of_2_2():
    """§4.3 over all 21 × 20 two-trump tricks: the higher trump wins whoever led it; between
    two Mori the one played last (seat 1) wins."""
    trumps = list(TRUMP_TIER)
    pairs = [(a, b) for a in trumps for b in trumps if a != b]
    expected = [0 if TRUMP_TIER[a] < TRUMP_TIER[b] else 1 for a, b in pairs]
    assert two_card_winners(pairs).tolist() == expected
    assert sum(1 for (a, b), w in zip(pairs, expected) if TRUMP_TIER[a] == TRUMP_TIER[b]) == 12  # the Mori pairs


def test_any_trump_beats_any_suit_card():
    """§2.3: any trump (the Bégato included) beats any suit card, led or not."""
    trumps, plain = list(TRUMP_TIER), ID_TABLE[:40]
    pairs = [(p, t) for p in plain for t in trumps] + [(t, p) for t in trumps for p in plain]
    assert two_card_winners(pairs).tolist() == [1] * (40 * 21) + [0] * (40 * 21)


@pytest.mark.parametrize("suit", SUITS)
def test_every_pair_of_one_suit_in_the_order_of_2_3(suit):
    """§4.3 with no trump: the higher card of the suit led in the §2.3 order wins."""
    order = SUIT_ORDER[suit]
    pairs = [(a + suit, b + suit) for a in order for b in order if a != b]
    expected = [0 if order.index(a[:-1]) < order.index(b[:-1]) else 1 for a, b in pairs]
    assert two_card_winners(pairs).tolist() == expected


def test_a_card_off_the_suit_led_never_wins_without_trumps():
    """A card of another suit is a discard: every King played to a lead of the lowest card of
    another suit loses."""
    lowest = {"S": "AS", "B": "AB", "C": "10C", "D": "10D"}
    pairs = [(lowest[a], f"K{b}") for a in SUITS for b in SUITS if a != b]
    assert two_card_winners(pairs).tolist() == [0] * 12


def test_the_matto_never_wins():
    """§2.4: the Matto takes nothing, played after or before any other card."""
    others = [n for n in ID_TABLE if n != "MAT"]
    pairs = [(x, "MAT") for x in others] + [("MAT", x) for x in others]
    assert two_card_winners(pairs).tolist() == [0] * 61 + [1] * 61


@pytest.mark.parametrize(
    "trick, win",
    [
        ("7C 10C AC 6C", 2),  # Coppe runs backwards: the Ace is the best pip
        ("7S 10S AS 6S", 1),  # Spade: the 10 is the best pip, the Ace the worst
        ("JD AD 10D KS", 0),  # the Fante is above every pip; KS is a discard
        ("9B KC T5 ANG", 3),  # the Angelo, the highest trump
        ("10D BEG KD 9D", 1),  # the Bégato, the lowest trump, still beats the King of the suit led
        ("MAT 8D KD T6", 3),  # the Matto led: 8D sets Denari; T6 trumps it
        ("MAT 6B AB", 1),  # Bastoni set by the 6, which is above the Ace
        ("M1 M2", 1),  # equal Mori: the later one wins
        ("M4 M3 M2 M1", 3),  # the last of four Mori
        ("M2 M3 BEG", 1),  # the last MORO played, not the last trump
        ("M1 BEG M2 MAT", 2),  # the Matto after the Mori changes nothing
        ("M3 MAT M1", 2),  # the Matto between two Mori
        ("M1 T5 M2", 1),  # T5 beats every Moro, even a later one
        ("BEG M3 KS M4 8S 7C", 3),  # six players (Mattazza): the last Moro
        ("KS QS M2 NS", 2),  # a Moro trumps the King led
    ],
)
def test_trick_winners_worked_by_hand(trick, win):
    """§4.3: ignore the Matto; the highest trump wins, the last of equal Mori; else the highest
    card of the suit led (§2.3)."""
    assert winner(trick) == win


@pytest.mark.parametrize(
    "trick, win",
    [
        ("SOL MON", 1),  # the Mondo beats the Sole
        ("MON LUN", 0),
        ("MON T5", 0),
        ("MON M1", 0),  # a Moro played after the Mondo does not take it
        ("M1 MON M2", 1),
        ("KS MON T16", 1),
        ("MON ANG", 1),  # only the Angelo beats the Mondo
    ],
)
def test_the_mondo_is_the_second_highest_trump(trick, win):
    """§2.2: the Mondo is below the Angelo only, above the Sole, the Luna, T16…T5 and the Mori."""
    assert winner(trick) == win


def test_the_mori_rule_is_what_ties_to_later_carries():
    """Without ``ties_to_later`` the first Moro would keep the trick: the flag is §4.3's rule."""
    first_wins = TrickTables.for_deck(BOLOGNESE_DECK, must_overtrump=False, ties_to_later=False)
    assert winner("M1 M2", first_wins) == 0 and winner("M1 M2") == 1
    assert winner("M4 M3 M2 M1", first_wins) == 0 and winner("M4 M3 M2 M1") == 3


def test_incremental_trick_state():
    """The lead suit is the first card that is not the Matto (§4.2.5); the top trump is the
    highest trump played so far."""
    strength = BOLOGNESE_DECK.strength
    assert trick_state("MAT")[:2] == (NONE, 0)
    assert trick_state("MAT 8D")[:2] == (D, 0)
    assert trick_state("6B KC")[:2] == (B, 0)
    assert trick_state("7S T12 T5")[:2] == (S, strength[card("T12")])
    assert trick_state("M3 MAT")[:2] == (TRUMP_SUIT, strength[card("M1")])
    assert trick_state("BEG MAT M2")[:2] == (TRUMP_SUIT, strength[card("M2")])


# ====================================================================== following rules (§4.2)

# (id, cards already in the trick, the lead suit they set, hand, legal plays), worked by hand
LEGALITY_VECTORS = [
    ("B1 follow suit", "7S", S, "KS 6S T5 MAT QC", "KS 6S MAT"),
    ("B2 void: must trump, any trump", "7S", S, "T5 ANG MAT QC", "T5 ANG MAT"),
    ("B3 never obliged to over-trump", "7S T12", S, "T5 T14 QC", "T5 T14"),
    ("B4 trump led: must trump, under-trumping allowed", "T10", TRUMP_SUIT, "BEG M1 KC T11", "BEG M1 T11"),
    ("B5 trump led, no trump: anything", "T10", TRUMP_SUIT, "KC 6D MAT", "KC 6D MAT"),
    ("B6 the Matto is no trump for the duty (U19)", "ANG", TRUMP_SUIT, "MAT KC", "MAT KC"),
    ("B7 the Ace is of its suit", "6S", S, "AS MAT T9", "AS MAT"),
    ("B8 the leader plays anything", "", NONE, "7S KS T5 ANG MAT QC", "7S KS T5 ANG MAT QC"),
    ("B9 after a led Matto: anything", "MAT", NONE, "KC T5 AD", "KC T5 AD"),
    ("B10 after a led Matto the second card sets the suit", "MAT 7C", C, "AC T5 KS", "AC"),
    ("B11 void: trump even over a partner's King", "KS 6S", S, "T5 ANG 6C", "T5 ANG"),
    ("B12 void with only the Bégato: it must be played", "7S ANG", S, "BEG 6C", "BEG"),
    ("B13 void, no trump: anything", "7S", S, "KC 6D AB", "KC 6D AB"),
    ("B14 void, only the Matto: anything", "7S", S, "MAT 6C", "MAT 6C"),
    ("B15 void in Denari with a Moro", "10D KD", D, "M4 KS", "M4"),
    ("B16 a trump led after the Matto", "MAT M2", TRUMP_SUIT, "M3 QB", "M3"),
]


@pytest.mark.parametrize("vid, trick, lead_suit, hand, expected", LEGALITY_VECTORS, ids=[v[0] for v in LEGALITY_VECTORS])
def test_legal_plays_worked_by_hand(vid, trick, lead_suit, hand, expected):
    """§4.2: follow the suit led; void → trump; trump led → trump; never obliged to beat or to
    over-trump; the Matto is always allowed. The trick state comes from ``play_card``."""
    ls, tt, _, _ = trick_state(trick)
    assert ls == lead_suit
    legal = legal_plays(TABLES, hand_mask(hand), np.array([ls]), np.array([tt]))
    assert names(legal[0]) == set(expected.split())


def test_legal_plays_in_one_batch():
    """Batch-first: all the vectors above in one call give the same rows."""
    states = [trick_state(v[1]) for v in LEGALITY_VECTORS]
    legal = legal_plays(
        TABLES,
        hand_mask(*[v[3] for v in LEGALITY_VECTORS]),
        np.array([s[0] for s in states]),
        np.array([s[1] for s in states]),
    )
    assert [names(row) for row in legal] == [set(v[4].split()) for v in LEGALITY_VECTORS]


def test_no_over_trumping_unlike_the_french_game():
    """B3 under the French duty (must_overtrump=True) would forbid the T5: the Bolognese tables
    are what allow it (U1)."""
    french_style = TrickTables.for_deck(BOLOGNESE_DECK, must_overtrump=True, ties_to_later=True)
    ls, tt, _, _ = trick_state("7S T12")
    assert names(legal_plays(french_style, hand_mask("T5 T14 QC"), np.array([ls]), np.array([tt]))[0]) == {"T14"}
    assert names(legal_plays(TABLES, hand_mask("T5 T14 QC"), np.array([ls]), np.array([tt]))[0]) == {"T5", "T14"}


# ====================================================================== against a reference written from the spec


def reference_winner(trick: list[str]) -> int:
    """§4.3 read literally: the highest trump (the last of the best tier), else the best card
    of the suit of the first card that is not the Matto."""
    trumps = [i for i, c in enumerate(trick) if suit_of(c) == "T"]
    if trumps:
        best = min(TRUMP_TIER[trick[i]] for i in trumps)
        return max(i for i in trumps if TRUMP_TIER[trick[i]] == best)
    led = next(suit_of(c) for c in trick if c != "MAT")
    order = SUIT_ORDER[led]
    followers = [i for i, c in enumerate(trick) if suit_of(c) == led]
    return min(followers, key=lambda i: order.index(trick[i][:-1]))


def reference_legal(hand: list[str], trick: list[str]) -> set[str]:
    """§4.2 read literally (U19: the Matto is no trump for the duty, and always allowed)."""
    played = [c for c in trick if c != "MAT"]
    if not played:
        return set(hand)
    led = suit_of(played[0])
    same = [c for c in hand if suit_of(c) == led]
    trumps = [c for c in hand if suit_of(c) == "T"]
    allowed = same or trumps or hand
    return set(allowed) | ({"MAT"} & set(hand))


@settings(max_examples=400, deadline=None)
@given(st.permutations(range(62)), st.integers(0, 5), st.integers(1, 20))
def test_mechanics_agree_with_the_spec_read_literally(perm, trick_len, hand_len):
    """Random tricks of up to 6 cards (Mattazza has 6 players) and random hands: ``play_card``
    and ``legal_plays`` agree with §4.2–§4.3 written as plain Python from the hand-made order
    tables above."""
    trick = [ID_TABLE[c] for c in perm[:trick_len]]
    hand = [ID_TABLE[c] for c in perm[trick_len : trick_len + hand_len]]
    ls, tt, _, best_seat = trick_state(trick)
    if trick_len >= 2 or (trick_len == 1 and trick[0] != "MAT"):
        assert best_seat == reference_winner(trick)
    legal = legal_plays(TABLES, hand_mask(" ".join(hand)), np.array([ls]), np.array([tt]))
    assert names(legal[0]) == reference_legal(hand, trick)
