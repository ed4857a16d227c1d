"""The 62-card Bolognese Tarocchino pack (docs/rules/tarocchino.md §2–§3) and its notation.

Card ids:

| ids | cards |
|---|---|
| 0–39 | suit cards, ``suit * 10 + r``: suits Spade (S), Bastoni (B), Coppe (C), Denari (D); r = 0..9 for |
| | A, 6, 7, 8, 9, 10, J (fante), N (cavallo), Q (regina), K (re) |
| 40 | BEG, the Bégato (lowest trump) |
| 41–44 | M1–M4, the four Mori (equal in taking power: the last played wins) |
| 45–56 | T5–T16 |
| 57–60 | LUN, SOL, MON, ANG (the Angelo is the highest trump) |
| 61 | MAT, the Matto (the excuse card) |

``strength`` orders cards within a suit and among trumps (trumps >= 100): Spade and Bastoni
rank K Q N J 10 9 8 7 6 A, Coppe and Denari K Q N J A 6 7 8 9 10 (§2.3); the Mori share one
strength. ``rank`` is the Pisarri number of a trump (ANG 20 … T5 5, Mori 4–1, BEG 0), the
rank index r of a suit card. ``value`` is the card value v of §3.1 (not half-points): Re,
Angelo, Mondo, Bégato, Matto 5; Regina 4; Cavallo 3; Fante 2; every scartino 1. Σ v = 118.
"""

from __future__ import annotations

import numpy as np

from tarot_env.cards.deck import EXCUSE_SUIT, TRUMP_SUIT, Deck

SUITS = ("S", "B", "C", "D")
SUIT_NAMES = ("spade", "bastoni", "coppe", "denari")
RANKS = ("A", "6", "7", "8", "9", "10", "J", "N", "Q", "K")
#: Suits whose pips run backwards: the "round" suits Coppe and Denari (§2.3).
ROUND_SUITS = (2, 3)

NUM_CARDS = 62
#: cards of a suit: suit card ids run ``suit * SUIT_SIZE + r``, one range per suit
SUIT_SIZE = len(RANKS)
BEGATO = 40
MORI = (41, 42, 43, 44)
LUNA, SOLE, MONDO, ANGELO = 57, 58, 59, 60
MATTO = 61
#: the trump numbers 5..16 at ids 45..56
NUMBERED = tuple(range(45, 57))
#: the strength of a trump is TRUMP_STRENGTH + its Pisarri number (the Bégato 100 ... the Angelo
#: 120): every trump is above every suit card (strength 1..10)
TRUMP_STRENGTH = 100
#: the strength shared by the four Mori, which are equal in taking power: among Mori the last
#: played wins (§2.2, §4.3), the one tie of the trick
MORO_STRENGTH = TRUMP_STRENGTH + 1

_TRUMPS = ["BEG", "M1", "M2", "M3", "M4", *[f"T{n}" for n in range(5, 17)], "LUN", "SOL", "MON", "ANG"]
_TRUMP_RANK = [0, 4, 3, 2, 1, *range(5, 17), 17, 18, 19, 20]


def _build() -> Deck:
    names: list[str] = []
    suit, rank, strength, value = [], [], [], []
    court_value = {"J": 2, "N": 3, "Q": 4, "K": 5}
    for s, sname in enumerate(SUITS):
        for r, rname in enumerate(RANKS):
            names.append(f"{rname}{sname}")
            suit.append(s)
            rank.append(r)
            if r >= 6 or s not in ROUND_SUITS:  # courts, and every card of Spade and Bastoni
                strength.append(r + 1)
            else:  # Coppe, Denari: A 6 7 8 9 10 rank 6 5 4 3 2 1 (the Ace highest of the pips)
                strength.append(6 - r)
            value.append(court_value.get(rname, 1))
    for name, trump_rank in zip(_TRUMPS, _TRUMP_RANK):
        names.append(name)
        suit.append(TRUMP_SUIT)
        rank.append(trump_rank)
        strength.append(MORO_STRENGTH if name in ("M1", "M2", "M3", "M4") else TRUMP_STRENGTH + trump_rank)  # the four Mori are equal
        value.append(5 if name in ("BEG", "MON", "ANG") else 1)
    names.append("MAT")
    suit.append(EXCUSE_SUIT)
    rank.append(0)
    strength.append(-1)
    value.append(5)
    return Deck(
        name="Tarocchino",
        names=tuple(names),
        suit=np.array(suit, dtype=np.int8),
        rank=np.array(rank, dtype=np.int8),
        strength=np.array(strength, dtype=np.int16),
        value=np.array(value, dtype=np.int16),
        excuse=MATTO,
    )


BOLOGNESE_DECK = _build()

_ids = np.arange(NUM_CARDS)
IS_TRUMP = BOLOGNESE_DECK.suit == TRUMP_SUIT
#: the Tarocchi: Angelo, Mondo, Bégato, Matto (a cricca family, §6.1)
IS_TAROCCO = np.isin(_ids, (ANGELO, MONDO, BEGATO, MATTO))
#: the contatori, stand-ins in sequences (§6.3)
IS_CONTATORE = np.isin(_ids, (BEGATO, MATTO))
IS_MORO = np.isin(_ids, MORI)
#: cards worth 5, which may never be discarded (§5)
IS_CARTA_DA_5 = BOLOGNESE_DECK.value == 5
IS_SCARTINO = BOLOGNESE_DECK.value == 1
IS_ACE = (BOLOGNESE_DECK.suit < 4) & (BOLOGNESE_DECK.rank == 0)
for _a in (IS_TRUMP, IS_TAROCCO, IS_CONTATORE, IS_MORO, IS_CARTA_DA_5, IS_SCARTINO, IS_ACE):
    _a.setflags(write=False)


def card(text: str) -> int:
    """Card id from notation, e.g. ``card("KS")``, ``card("ang")``, ``card("M3")``."""
    return BOLOGNESE_DECK.parse(text)


def card_name(card_id: int) -> str:
    """Canonical notation of a card id."""
    return BOLOGNESE_DECK.format(card_id)


def suit_card(rank_name: str, suit_name: str) -> int:
    """Card id of a suit card from its rank and suit letters (``suit_card("K", "S")``)."""
    return SUITS.index(suit_name) * SUIT_SIZE + RANKS.index(rank_name)
