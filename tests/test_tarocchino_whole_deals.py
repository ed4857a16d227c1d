"""Whole Tarocchino hands played by hand (rules/tarocchino.md §3–§14, interface.md §4–§5).

One fixed deal per game (Ottocento, Quattro Scartate, Terziglio su and di mio, Millone,
Centocinquanta, Quindici, Mattazza with 3 and with 5 players), plus an Ottocento claim: the
deal (``reset(options={"deal": ...})``), every action from the first decision to the last card,
and the result worked out BY HAND from the spec in the comments above each deal:

- card points (§3.2): Σv − N/2 per side (pairs), Σv − N + N/n per player in Mattazza (§14.4);
  the last trick 6 (§3.3);
- cricche (§6.1: 18/17/14/13/12, doubled for 4 cards, the criccone doubles all cricche) and
  sequences (§6.3: 5 × (L − 1), contatori counted in every sequence, doubled with 3 or more);
- declarations at the first turn (§7, U6), kept by a capotted side (U7); cappotto (§4.6);
- the Matto exchange (§4.5, U3, U20), and the Matto itself given by a side with no trick;
- Terziglio's Poste and settlement (§10.6, U18), Quindici's rounding (§13), Mattazza's losers
  (§14.5).

Every action is checked against the legal actions before it is played. Then: the env's scores
and points equal the hand-worked ones, the record survives JSON and ``tarot_env.replay`` gives
the same scores, and a record with a changed score, an illegal action or a missing action is
refused with ``tarot_env.ReplayError``. A Quattro Scartate match played at random from a seed is
replayed the same way.

Card values (§3.1): K, ANG, MON, BEG, MAT 5; Q 4; N (cavallo) 3; J (fante) 2; every other card 1.
Seats are in play order: seat s + 1 plays after s; the dealer's right (dealer + 1) leads first.
In a trick written "A B C D" the cards are in play order from its leader.
"""

from __future__ import annotations

import copy
import itertools
import json
from dataclasses import dataclass, field

import numpy as np
import pytest

import tarot_env
from tarot_env.cards.bolognese import BOLOGNESE_DECK, card
from tarot_env.rules.bolognese.state import DECLARED, LAST_WINNER, PILE_OF, PL_DISCARD, PL_OUT, PL_PILE, PL_POZZO, PLACE, SHOWN

WORDS = {"declare", "no_declare", "claim", "no_claim", "pass", "posso", "di_mio", "va_bene", "oppose"}


def acts(*chunks: str) -> list[str]:
    """Action strings from compact text: a card name is ``play <card>``, ``d:<card>`` is
    ``discard <card>``, the words (declare, pass, posso, ...) stay as they are."""
    out = []
    for chunk in chunks:
        for tok in chunk.split():
            if tok in WORDS:
                out.append(tok)
            elif tok.startswith("d:"):
                out.append(f"discard {tok[2:]}")
            else:
                out.append(f"play {tok}")
    return out


def names(text: str) -> list[str]:
    return text.split()


@dataclass
class Deal:
    """A fixed deal, its script and the hand-worked result."""

    name: str
    env_id: str
    dealer: int
    hands: list[str]
    rest: str
    actions: list[str]
    scores: list[int]
    points: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)
    config: dict = field(default_factory=dict)
    totals: list[int] | None = None
    piles: dict = field(default_factory=dict)  # card -> the seat whose pile holds it at the end
    rewards: list[float] | None = None  # reward="score" (docs): own side − other side; settlement; −1 a Mattazza loser

    def deal(self) -> dict:
        return {"dealer": self.dealer, "hands": [h.split() for h in self.hands], "rest": self.rest.split()}


# =====================================================================================
# Ottocento: a cappotto with declarations (§4.6, §6, §7, §8.3, U7; TV4)
# =====================================================================================
# Dealer seat 3; seat 0 is Primo di Mano. Sides: A = seats 0 & 2, B = seats 1 & 3.
# A holds all 22 trumps: seat 0 the 11 highest, seat 2 the 10 lowest and the Matto.
# Seat 3 picks up 9B 10B (his last 2) and discards them.
# Tricks 1-11: seat 0 leads his trumps ANG..T10, seat 2 must answer with a trump (T9..BEG, then
# covers the Matto), B has no trump and throws suit cards: seat 0 wins each (his lowest, T10,
# beats seat 2's highest, T9). Tricks 12-15: seat 0 leads KS QS NS JS, B follows with lower
# spades (then a bastoni when void): seat 0 wins. B takes no trick: cappotto, and B's discard
# goes to A (§4.6). The Matto's trick was won by its own side: no exchange.
#
# Declarations at the first turn (hands after the discard):
# - seat 0: ANG MON SOL LUN T16..T10 KS QS NS JS. Cricche none (ANG MON: 2 Tarocchi; 1 King).
#   Spade K + Q N J (no AS), no contatore: L 4 -> 15. Grande: ANG + MON SOL LUN, T16..T10, the 9
#   missing and no contatore: L = 1 + 3 + 7 = 11 -> 50. Two sequences: 65.
# - seat 1: KC QC NC JC AC 6C..10C AS 6S 7S AB 6B. Coppe K Q N J A: L 5 -> 20; Aces AC AS AB:
#   L 3 -> 10. 30 (he declares; his side is capotted but keeps it, U7).
# - seat 2: T9..T5 M1..M4 BEG MAT KB QB NB JB. Contatori C = 2 (BEG, MAT): Bastoni K Q N J + 2
#   = 6 -> 25; Mori 4 + 2 = 6 -> 25. 50 (BEG + MAT alone make no Tarocchi cricca).
# - seat 3: KD QD ND JD AD 6D..10D 8S 9S 10S 7B 8B: Denari K Q N J A -> 20 (he does not declare).
#   His pickup claim window stays shut: 0 + 20 < 800.
# Side A's pile: all 62 cards = TV4: cards 118 − 31 = 87, last trick 6, cricche 148 × 2 = 296,
# sequences (Grande 22 cards 105, 4 suits K Q N J A + 2 = 7 -> 30 each = 120, Mori 6 -> 25,
# Aces 6 -> 25: 275) × 2 = 550; 87 + 6 + 296 + 550 = 939; + declarations 65 + 50 = 1054.
# Side B: nothing in its pile; declarations 30.
OTTOCENTO = Deal(
    name="ottocento_cappotto",
    env_id="ottocento_v0",
    dealer=3,
    hands=[
        "ANG MON SOL LUN T16 T15 T14 T13 T12 T11 T10 KS QS NS JS",
        "KC QC NC JC AC 6C 7C 8C 9C 10C AS 6S 7S AB 6B",
        "T9 T8 T7 T6 T5 M1 M2 M3 M4 BEG MAT KB QB NB JB",
        "KD QD ND JD AD 6D 7D 8D 9D 10D 8S 9S 10S 7B 8B 9B 10B",
    ],
    rest="",
    actions=acts(
        "d:9B d:10B",
        "declare ANG declare KC declare T9 no_declare KD",
        "MON QC T8 QD",
        "SOL NC T7 ND",
        "LUN JC T6 JD",
        "T16 AC T5 AD",
        "T15 6C M1 6D",
        "T14 7C M2 7D",
        "T13 8C M3 8D",
        "T12 9C M4 9D",
        "T11 10C BEG 10D",
        "T10 AB MAT 7B",
        "KS AS KB 8S",
        "QS 6S QB 9S",
        "NS 7S NB 10S",
        "JS 6B JB 8B",
    ),
    scores=[1054, 30, 1054, 30],
    rewards=[1024, -1024, 1024, -1024],  # 1054 − 30
    points={
        "cards": [87, 0],
        "last_trick": [6, 0],
        "combinations": [846, 0],
        "declarations": [115, 30],
        "total": [1054, 30],
        "capotted": [False, True],
    },
    info={"result": "played", "game_winner": 0},  # 1054 >= 800 (§8.4 end)
    piles={"MAT": 2},  # (B's discard counts for A in the score, §4.6; the state keeps it where it was put)
)

# =====================================================================================
# Quattro Scartate: the Matto exchange (§4.5, U3, U20), criccone and 5 doubled sequences
# =====================================================================================
# Dealer seat 3 discards QC QD (his last 2). Seat 0 leads.
# Tricks 1-11: seat 0 leads ANG..T10; seat 2 answers T9..BEG, then (void) JS; seat 1 covers the
# Matto in trick 1, which seat 0 wins: the Matto's trick goes to the other side. Tricks 12-15:
#   12  KS 10S QS 8S  -> seat 0 (KS)
#   13  6C KC 7C 8C   -> seat 1 (KC; Coppe K Q N J A 6 7 8 9 10)
#   14  KD 6D 7D 8D   -> seat 1 (seat 1 leads; KD)
#   15  AB KB 6B 7B   -> seat 2 (KB): A has the last trick.
# B's pile before the exchange: 6C KC 7C 8C, KD 6D 7D 8D, QC QD (discard), MAT = 11 cards.
# B's combinations: C = 1 (MAT); Coppe KC + QC (f = 1) + MAT: L 3 -> 10; Denari KD + QD + MAT:
# 10; 2 sequences, no cricca (2 Kings, 2 Queens): 20.
# Exchange: B gives a scartino (U3): 6C 7C 8C 6D 7D 8D all cost B exactly 1 (no combination
# uses a pip) and help A by 1 (A's combinations do not use them): the lowest card id, 6C
# (U20). B's pile (10): KC 7C 8C KD 6D 7D 8D QC QD MAT: Σv = 5+1+1+5+1+1+1+4+4+5 = 28,
# card points 28 − 10/2 = 23.
# A's pile (52): everything else. Σv = 118 − 28 = 90 -> 90 − 26 = 64 (64 + 23 = 87). Last trick 6.
# A's cricche: Tarocchi ANG MON BEG 18, Cavalli 4 = 26, Fanti 4 = 24 (Kings, Queens: 2 each);
#   3 cricche: (18 + 26 + 24) × 2 = 136. (Barilli: 148 − 18 (MAT) − 34 − 28 = 68 ✓.)
# A's sequences, C = 1 (BEG): Spade K Q N J A + 1 = 6 -> 25; Bastoni 25; Grande ANG MON SOL LUN,
#   T16..T5 all, the 4 Mori, + BEG: L = 1 + 3 + 12 + 4 + 1 = 21 -> 100; Mori 4 + 1 -> 20; Aces 4 + 1
#   -> 20; 5 sequences: 190 × 2 = 380. Combinations 516.
# Declarations: seat 0 (ANG MON SOL LUN T16..T10, KS alone: no spade sequence) Grande L 11 -> 50;
#   seat 2 (T9..T5 M1..M4 BEG JS QS 7C 6D KB) Mori 4 + 1 -> 20; seat 1 (MAT KC KD AB 10S NS 9S QB
#   NB JB 10B NC JC AC 9C: Cavalli NS NB NC 13, Coppe K N J A + MAT 20, Aces AB AC + MAT 10 = 43)
#   does not declare; seat 3 (after his discard: no King, 2 Aces, no contatore) has nothing to
#   declare, so he is not asked.
# A: 64 + 6 + 516 + 50 + 20 = 656. B: 23 + 20 = 43.
QUATTRO_SCARTATE = Deal(
    name="quattro_scartate_matto_exchange",
    env_id="quattro_scartate_v0",
    dealer=3,
    hands=[
        "ANG MON SOL LUN T16 T15 T14 T13 T12 T11 T10 KS 6C 8D 7B",
        "MAT KC KD AB 10S NS 9S QB NB JB 10B NC JC AC 9C",
        "T9 T8 T7 T6 T5 M1 M2 M3 M4 BEG JS QS 7C 6D KB",
        "7S 6S AS 9B 8B 10C ND JD AD 9D 10D 8S 8C 7D 6B QC QD",
    ],
    rest="",
    actions=acts(
        "d:QC d:QD",
        "declare ANG no_declare MAT declare T9 7S",
        "MON NS T8 6S",
        "SOL 9S T7 AS",
        "LUN QB T6 9B",
        "T16 NB T5 8B",
        "T15 JB M1 10C",
        "T14 10B M2 ND",
        "T13 NC M3 JD",
        "T12 JC M4 AD",
        "T11 AC BEG 9D",
        "T10 9C JS 10D",
        "KS 10S QS 8S",
        "6C KC 7C 8C",
        "KD 6D 7D 8D",
        "AB KB 6B 7B",
    ),
    scores=[656, 43, 656, 43],
    rewards=[613, -613, 613, -613],  # 656 − 43
    points={
        "cards": [64, 23],
        "last_trick": [6, 0],
        "combinations": [516, 20],
        "declarations": [70, 0],
        "total": [656, 43],
        "capotted": [False, False],
    },
    info={"result": "played"},
    piles={"6C": 0, "MAT": 1, "7C": 1, "QC": 3, "QD": 3},  # 6C given to the winner of the Matto's trick
)

# =====================================================================================
# Terziglio, the soloist goes up and is capotted (§10.3, §10.5, §10.6, U7, U13; TV4)
# =====================================================================================
# Dealer seat 2; seat 0 is the receiver: "posso", seats 1 and 2 "va_bene" (U12). Seat 0 takes
# the Pozzo (JC JD 10C 10D 9C 9D 8C 8D) and discards those 8 cards. He leads (U13).
# Trick 1: 7D KD ND -> seat 1 (KD). Tricks 2-12: seat 1 leads ANG..T10, seat 2 answers T9..BEG
# and covers the Matto in trick 12 (won by his own side: no exchange); the soloist, with no
# trump, throws suit cards. Tricks 13-18: seat 1 leads KS QS KB QB KC QC, each the highest left
# of its suit: the soloist takes no trick, so his 8 discards go to the opponents (§10.5), who
# then hold all 62 cards: 939 as in TV4.
# Declarations: soloist (AS 6S..10S AB 6B..10B AC 6C 7C AD 6D 7D): Aces 4 -> L 4 -> 15, declared
# and kept (U7). Seat 1 (ANG MON SOL LUN T16..T10 KS QS KB QB KC QC KD): Kings 4 -> 34, Queens 3
# -> 14 (2 cricche, no criccone); Grande L 11 -> 50 (suits K + Q only: f = 1, no contatore);
# declares 98. Seat 2 (T9..T5 M1..M4 BEG MAT QD NS NB NC ND JS JB): Cavalli 26 + Mori 4 + 2 -> 25
# = 51, does not declare.
# Soloist 0 + 15 = 15; opponents 939 + 98 = 1037: the opponents win (§10.6).
# Poste(1037) = ⌊(1037 − 5)/10⌋ = 103. He went up: −2 × 103 = −206; each opponent +103.
TERZIGLIO_SU = Deal(
    name="terziglio_su_capotted",
    env_id="terziglio_v0",
    dealer=2,
    hands=[
        "AS 6S 7S 8S 9S 10S AB 6B 7B 8B 9B 10B AC 6C 7C AD 6D 7D",
        "ANG MON SOL LUN T16 T15 T14 T13 T12 T11 T10 KS QS KB QB KC QC KD",
        "T9 T8 T7 T6 T5 M1 M2 M3 M4 BEG MAT QD NS NB NC ND JS JB",
    ],
    rest="JC JD 10C 10D 9C 9D 8C 8D",
    actions=acts(
        "posso va_bene va_bene",
        "d:JC d:JD d:10C d:10D d:9C d:9D d:8C d:8D",
        "declare 7D declare KD no_declare ND",
        "ANG T9 AB",
        "MON T8 6B",
        "SOL T7 7B",
        "LUN T6 8B",
        "T16 T5 9B",
        "T15 M1 10B",
        "T14 M2 AC",
        "T13 M3 6C",
        "T12 M4 7C",
        "T11 BEG AD",
        "T10 MAT 6D",
        "KS NS AS",
        "QS JS 6S",
        "KB NB 7S",
        "QB JB 8S",
        "KC NC 9S",
        "QC QD 10S",
    ),
    scores=[-206, 103, 103],
    rewards=[-206, 103, 103],  # the settlement
    points={  # side 0 = the soloist, side 1 = the opponents
        "cards": [0, 87],
        "last_trick": [0, 6],
        "combinations": [0, 846],
        "declarations": [15, 98],
        "total": [15, 1037],
        "capotted": [True, False],
    },
    info={"result": "played", "soloist": 0, "contract": "su", "soloist_won": False, "winner_points": 1037, "poste": 103},
)

# =====================================================================================
# Terziglio "di mio", half points (§10.3, §10.6, U13, U18)
# =====================================================================================
# Dealer seat 0; seat 1 (receiver) passes, seat 2 says "di_mio". The Pozzo (MAT T5 T6 T7 6S 6B
# 6C 6D) stays out and goes to the winner of the last trick. Seat 1 leads (U13); order 1, 2, 0.
#   1-6  seat 1 leads ANG SOL T16 T14 T12 T10, the soloist T8 M1 M2 M3 M4 BEG, seat 0 MON LUN
#        T15 T13 T11 T9: seat 1 wins all six.
#   7    KS 7S 8S -> seat 1.   8  JB KB 8B -> seat 2 (KB).
#   9-18 the soloist leads QB NB, KC QC NC, KD QD ND, QS NS; each is the highest left of its
#        suit and the others follow: the soloist wins, and the last trick brings him the Pozzo.
# Opponents (7 tricks, 21 cards): 18 trumps (all but MAT T5 T6 T7) + KS 7S 8S. Σv = 5 (ANG) + 5
#   (MON) + 5 (BEG) + 15 + 5 + 1 + 1 = 37; cards 37 − 21/2 = 26.5.
#   Cricche: Tarocchi ANG MON BEG 18. Sequences, C = 1 (BEG): Grande ANG MON SOL LUN, T16..T8 (9),
#   the 7 filled by BEG, the 6 missing: stop; L = 1 + 3 + 9 + 1 = 14 -> 65 (Pisarri: 105 − 5 ×
#   (6 + 1 + 1) = 65 ✓); Mori 4 + 1 -> 20; 2 sequences: 85. Combinations 103.
# Soloist (11 tricks + Pozzo = 41 cards): all 40 suit cards but KS 7S 8S, + MAT T5 T6 T7.
#   Σv = 118 − 37 = 81; cards 81 − 41/2 = 60.5 (60.5 + 26.5 = 87). Last trick 6.
#   Cricche: Kings 3 (KB KC KD) 17, Queens 28, Cavalli 26, Fanti 24: 4 cricche, 95 × 2 = 190.
#   Sequences, C = 1 (MAT): Bastoni, Coppe, Denari K Q N J A + 1 = 6 -> 25 each; Aces 4 + 1 -> 20;
#   4 sequences: 95 × 2 = 190. Combinations 380.
# Declarations: soloist (BEG M1..M4 T8 QS NS 7S KB QB NB KC QC NC KD QD ND): Kings 3 17, Queens 4
#   28, Cavalli 4 26: criccone (71 × 2 = 142); C = 1: Bastoni K Q N + BEG: L 4 -> 15, Coppe 15,
#   Denari 15, Mori 4 + 1 -> 20: 4 sequences, 65 × 2 = 130; 272. Seat 1 (ANG SOL T16 T14 T12 T10
#   KS JS 10S JB 10B 9B JC 10C 9C JD 10D 9D): Fanti 4 -> 24 (ANG + SOL alone, KS + JS alone: no
#   sequence without a contatore). Seat 0 (... AS AB AC AD): Aces 4 -> 15. All three declare.
# Soloist: 60.5 + 6 + 380 + 272 = 718.5; opponents: 26.5 + 103 + 24 + 15 = 168.5: he wins.
# His points rounded down: 718 (U18); Poste ⌊(718 − 5)/10⌋ = 71; di mio: +4 × 71 = 284, each
# opponent −142.
TERZIGLIO_DI_MIO = Deal(
    name="terziglio_di_mio_half_points",
    env_id="terziglio_v0",
    dealer=0,
    hands=[
        "MON LUN T15 T13 T11 T9 9S 8S AS 8B 7B AB 8C 7C AC 8D 7D AD",
        "ANG SOL T16 T14 T12 T10 KS JS 10S JB 10B 9B JC 10C 9C JD 10D 9D",
        "BEG M1 M2 M3 M4 T8 QS NS 7S KB QB NB KC QC NC KD QD ND",
    ],
    rest="MAT T5 T6 T7 6S 6B 6C 6D",
    actions=acts(
        "pass di_mio",
        "declare ANG declare T8 declare MON",
        "SOL M1 LUN",
        "T16 M2 T15",
        "T14 M3 T13",
        "T12 M4 T11",
        "T10 BEG T9",
        "KS 7S 8S",
        "JB KB 8B",
        "QB 7B 10B",
        "NB AB 9B",
        "KC 8C JC",
        "QC 7C 10C",
        "NC AC 9C",
        "KD 8D JD",
        "QD 7D 10D",
        "ND AD 9D",
        "QS 9S JS",
        "NS AS 10S",
    ),
    scores=[-142, -142, 284],
    rewards=[-142, -142, 284],
    points={
        "cards": [60.5, 26.5],
        "last_trick": [6, 0],
        "combinations": [380, 103],
        "declarations": [272, 39],
        "total": [718.5, 168.5],
        "capotted": [False, False],
    },
    info={"result": "played", "soloist": 2, "contract": "di_mio", "soloist_won": True, "winner_points": 718, "poste": 71},
    piles={"KS": 1, "AS": 2, "6S": 2, "MAT": 2},  # the Pozzo joins the last trick's winner's pile (§10.3, U25)
)

# =====================================================================================
# Millone: two deals, 10 + 10 + 2 discards, the Matto exchange (§11, U20, U22)
# =====================================================================================
# Dealer seat 1, opponent seat 0. First deal: 20 to seat 0, 22 to seat 1 (his last 2: 7B 6B).
# No claim window (nothing near 1000). Seat 0 discards 10 first (U22): QC NC JC 6C..10C 10B 9B;
# seat 1 discards 10: QD ND JD AD 6D..10D 8B. Second deal, 5 at a time from seat 0:
# KS QS NS JS 10S / 9S 8S 7S 6S AS / KC AC JB AB T10 / KB QB NB KD MAT. Seat 1 discards 7B 6B.
# Seat 0 leads. Tricks 1-11: seat 0 leads ANG..T10, seat 1 answers T9..BEG and covers the Matto
# in trick 11: seat 0 wins all. 12-16: KS QS NS JS 10S over 9S 8S 7S 6S AS: seat 0.
#   17 JB KB -> seat 1;  18 QB AB -> seat 1;  19 NB AC (void) -> seat 1;  20 KD KC -> seat 1.
# Seat 1's pile before the exchange: his 12 discards, MAT, JB KB QB AB NB AC KD KC (21 cards).
#   C = 1 (MAT). Cricche: Kings KB KD KC 17. Sequences: Bastoni K Q N J A + 1 -> 25, Denari
#   K Q N J A + 1 -> 25, Aces AD AB AC + 1 = 4 -> 15 (Coppe: KC alone); 3 sequences: 65 × 2 = 130.
#   Combinations 147. The exchange: his pips 6D..10D 8B 7B 6B cost 1 and help seat 0 by 1
#   (an Ace would cost 11 or 21); the lowest id is 6B: it goes to seat 0.
#   Σv (20 cards after the gift) = QD ND JD AD 6D..10D 15 + 8B 7B 2 + MAT 5 + JB KB QB AB NB 15
#   + AC 1 + KD KC 10 = 48; cards 48 − 10 = 38; last trick 6.
# Seat 0's pile (42): his 10 discards, 21 trumps (no MAT), the 10 spades, 6B. Σv = 118 − 48 = 70;
#   cards 70 − 21 = 49 (49 + 38 = 87). Cricche: Tarocchi ANG MON BEG 18. Sequences, C = 1:
#   Spade K Q N J A + 1 -> 25, Grande (21 cards) -> 100, Mori 4 + 1 -> 20; 3: 145 × 2 = 290.
#   Combinations 308.
# Declarations (final hands of 20): seat 0 (ANG MON SOL LUN T16..T10 KS QS NS JS 10S KC AC JB AB):
#   Spade K Q N J -> 15, Grande L 11 -> 50: 65. Seat 1 (T9..T5 M1..M4 BEG MAT 9S 8S 7S 6S AS KB QB
#   NB KD): C = 2, Bastoni K Q N + 2 = 5 -> 20, Mori 4 + 2 -> 25: 45. Both declare.
# Seat 0: 49 + 308 + 65 = 422. Seat 1: 38 + 6 + 147 + 45 = 236.
MILLONE = Deal(
    name="millone_two_deals",
    env_id="millone_v0",
    dealer=1,
    hands=[
        "ANG MON SOL LUN T16 T15 T14 T13 T12 T11 QC NC JC 6C 7C 8C 9C 10C 10B 9B",
        "T9 T8 T7 T6 T5 M1 M2 M3 M4 BEG QD ND JD AD 6D 7D 8D 9D 10D 8B 7B 6B",
    ],
    rest="KS QS NS JS 10S 9S 8S 7S 6S AS KC AC JB AB T10 KB QB NB KD MAT",
    actions=acts(
        "d:QC d:NC d:JC d:6C d:7C d:8C d:9C d:10C d:10B d:9B",
        "d:QD d:ND d:JD d:AD d:6D d:7D d:8D d:9D d:10D d:8B",
        "d:7B d:6B",
        "declare ANG declare T9",
        "MON T8",
        "SOL T7",
        "LUN T6",
        "T16 T5",
        "T15 M1",
        "T14 M2",
        "T13 M3",
        "T12 M4",
        "T11 BEG",
        "T10 MAT",
        "KS 9S",
        "QS 8S",
        "NS 7S",
        "JS 6S",
        "10S AS",
        "JB KB",
        "QB AB",
        "NB AC",
        "KD KC",
    ),
    scores=[422, 236],
    rewards=[186, -186],  # 422 − 236
    points={
        "cards": [49, 38],
        "last_trick": [0, 6],
        "combinations": [308, 147],
        "declarations": [65, 45],
        "total": [422, 236],
        "capotted": [False, False],
    },
    info={"result": "played"},
    piles={"6B": 0, "7B": 1, "MAT": 1, "QC": 0},
)

# =====================================================================================
# Centocinquanta: 32 cards in play (§12)
# =====================================================================================
# Dealer seat 0 (17 cards, last 2: 6C 7C, discarded), opponent seat 1 (15) leads; 30 out of play.
#   1-5   T16..T12 over T11..T7 -> seat 1;  6-10  KS QS NS JS 10S over 9S 8S 7S 6S AS -> seat 1
#   11    6B KB -> seat 0;  12-14  seat 0 leads QB NB JB over 7B 8B 9B -> seat 0
#   15    AB 10B -> seat 1 (Bastoni: 10 beats the Ace): the last trick.
# Seat 1 (22 cards): T16..T7 10 + spades 5 + 4 + 3 + 2 + 6 = 20 + AB 10B 2: Σv = 32; cards
#   32 − 11 = 21; last trick 6; Spade K Q N J A -> 20 (Aces AS AB: 2 without a contatore).
# Seat 0 (10 cards): 6C 7C 6B KB QB 7B NB 8B JB 9B: Σv = 20; cards 20 − 5 = 15 (21 + 15 = 36 =
#   Σv of the 32 cards in play, 52, − 16); Bastoni K Q N J (AB lost) -> 15.
# Declarations: seat 1 (T16..T12 KS QS NS JS 10S 6B..10B) Spade K Q N J -> 15; seat 0 after the
#   discard (T11..T7 9S 8S 7S 6S AS KB QB NB JB AB) Bastoni K Q N J A -> 20. No claim window:
#   0 + 20 < 150. Both declare.
# Seat 0: 15 + 15 + 20 = 50. Seat 1: 21 + 6 + 20 + 15 = 62.
CENTOCINQUANTA = Deal(
    name="centocinquanta_32_cards",
    env_id="centocinquanta_v0",
    dealer=0,
    hands=[
        "T11 T10 T9 T8 T7 9S 8S 7S 6S AS KB QB NB JB AB 6C 7C",
        "T16 T15 T14 T13 T12 KS QS NS JS 10S 6B 7B 8B 9B 10B",
    ],
    rest=("ANG MON SOL LUN T6 T5 M1 M2 M3 M4 BEG MAT KC QC NC JC AC 8C 9C 10C KD QD ND JD AD 6D 7D 8D 9D 10D"),
    actions=acts(
        "d:6C d:7C",
        "declare T16 declare T11",
        "T15 T10",
        "T14 T9",
        "T13 T8",
        "T12 T7",
        "KS 9S",
        "QS 8S",
        "NS 7S",
        "JS 6S",
        "10S AS",
        "6B KB",
        "QB 7B",
        "NB 8B",
        "JB 9B",
        "AB 10B",
    ),
    scores=[50, 62],
    rewards=[-12, 12],
    points={
        "cards": [15, 21],
        "last_trick": [0, 6],
        "combinations": [15, 20],
        "declarations": [20, 15],
        "total": [50, 62],
        "capotted": [False, False],
    },
    info={"result": "played"},
)

# =====================================================================================
# Quindici: the same play, seats swapped, rounded scores (§13, TV13)
# =====================================================================================
# Dealer seat 1 discards his last 2, QC ND; seat 0 leads and plays seat 1's part above.
# Seat 0: 21 + 6 + 20 + declared 15 = 62. Seat 1: discards QC ND (4 + 3) + 6B KB QB 7B NB 8B JB
# 9B (18): Σv 25, cards 25 − 5 = 20; Bastoni 15; he does not declare: 35.
# q(62) = ⌊67/10⌋ = 6; q(35) = ⌊40/10⌋ = 4 (a 5 rounds up). No claim window: q(20) = 2 < 15.
QUINDICI = Deal(
    name="quindici_rounding",
    env_id="quindici_v0",
    dealer=1,
    hands=[
        "T16 T15 T14 T13 T12 KS QS NS JS 10S 6B 7B 8B 9B 10B",
        "T11 T10 T9 T8 T7 9S 8S 7S 6S AS KB QB NB JB AB QC ND",
    ],
    rest=("ANG MON SOL LUN T6 T5 M1 M2 M3 M4 BEG MAT KC 6C 7C NC JC AC 8C 9C 10C KD QD 6D JD AD 7D 8D 9D 10D"),
    actions=acts(
        "d:QC d:ND",
        "declare T16 no_declare T11",
        "T15 T10",
        "T14 T9",
        "T13 T8",
        "T12 T7",
        "KS 9S",
        "QS 8S",
        "NS 7S",
        "JS 6S",
        "10S AS",
        "6B KB",
        "QB 7B",
        "NB 8B",
        "JB 9B",
        "AB 10B",
    ),
    scores=[6, 4],
    rewards=[2, -2],  # rounded points
    points={
        "cards": [21, 20],
        "last_trick": [6, 0],
        "combinations": [20, 15],
        "declarations": [15, 0],
        "total": [62, 35],
        "capotted": [False, False],
    },
    info={"result": "played", "raw": [62, 35]},
)

# =====================================================================================
# Mattazza, 3 players: the Matto exchange, everyone took a trick (§14.4, §14.5, §4.5, U16)
# =====================================================================================
# Dealer seat 2; seat 0 leads. 32 cards out of play.
#   1  KS 10S 7S -> 0     2  QS 9S MAT -> 0 (seat 2 covers the Matto)     3  NS 8S 6S -> 0
#   4  JS T16 AS -> 1 (seat 1 is void in spades: he trumps)
#   5  ANG T15 8C -> 1 (order 1, 2, 0)    6  KC QC AC -> 1    7  7C 6C JB -> 2 (Coppe: 6 beats 7)
#   8  7B KB 10B -> 0 (order 2, 0, 1)     9  QB 9B 6B -> 0    10 NB 8B AB -> 0 (last trick)
# Piles before the exchange: seat 0: 17 cards; seat 1: JS T16 AS ANG T15 8C KC QC AC; seat 2:
# MAT 7C 6C JB. Seat 2 gives seat 0 (winner of trick 2) a scartino: 6C or 7C, each worth 1 and
# in no combination: the lowest id, 6C (U20). Piles: 18, 9, 3: multiples of 3.
# Seat 0: spades K Q N + 10 9 8 7 6 (17), bastoni K Q N + 10 9 8 7 6 A (18), 6C: Σv 36; cards
#   36 − 18 + 6 = 24; last trick 6; Spade K Q N: L 3 -> 10; Bastoni K Q N A: L 4 -> 15 (no
#   cricca: 2 of each figure). 24 + 6 + 25 = 55.
# Seat 1: 2 + 1 + 1 + 5 + 1 + 1 + 5 + 4 + 1 = 21; 21 − 9 + 3 = 15 (KC QC: f = 1, no contatore;
#   ANG alone; AS AC: 2 Aces). 15.
# Seat 2: MAT 7C JB: 8 − 3 + 1 = 6 (the Matto alone makes nothing). 6.
# Every player took a trick: the highest score loses: seat 0.
MATTAZZA_3 = Deal(
    name="mattazza_3_matto_exchange",
    env_id="mattazza_v0",
    config={"num_players": 3},
    dealer=2,
    hands=[
        "KS QS NS JS KB QB NB JB AC 8C",
        "10S 9S 8S 10B 9B 8B ANG T16 KC 7C",
        "7S 6S AS 7B 6B AB MAT T15 QC 6C",
    ],
    rest=("MON SOL LUN T14 T13 T12 T11 T10 T9 T8 T7 T6 T5 M1 M2 M3 M4 BEG NC JC 9C 10C KD QD ND JD AD 6D 7D 8D 9D 10D"),
    actions=acts(
        "KS 10S 7S",
        "QS 9S MAT",
        "NS 8S 6S",
        "JS T16 AS",
        "ANG T15 8C",
        "KC QC AC",
        "7C 6C JB",
        "7B KB 10B",
        "QB 9B 6B",
        "NB 8B AB",
    ),
    scores=[55, 15, 6],
    rewards=[-1, 0, 0],  # −1 for the loser
    points={
        "cards": [24, 15, 6],
        "last_trick": [6, 0, 0],
        "combinations": [25, 0, 0],
        "declarations": [0, 0, 0],
        "total": [55, 15, 6],
        "capotted": [False, False, False],
    },
    info={"result": "played", "losers": [0]},
    piles={"6C": 0, "7C": 2, "MAT": 2},
)

# =====================================================================================
# Mattazza, 5 players: a player with no trick loses and gives the Matto itself (§14.5, §14.7)
# =====================================================================================
# Dealer seat 4; seat 0 leads; 12 trumps out (T11..T5, the Mori, BEG). Each player holds 2 cards
# of every suit, so every suit trick is followed by all five.
#   1-4  seat 0 leads KS QS KB QB: all spades and bastoni to seat 0 (20 cards)
#   5    NC KC AC 7C 9C -> seat 1; 6-8 seat 1 leads QC KD QD: all coppe and denari to seat 1
#   9    T16 ANG T13 T14 SOL -> seat 2 (ANG)
#   10   T12 MON MAT LUN T15 (order 2, 3, 4, 0, 1) -> seat 3 (MON; seat 4 covers the Matto)
# Seat 4 took no trick: he has no card to give and the Matto itself goes to seat 3 (§4.5).
# Seats 0 and 1: Σv 40 (20 cards) -> 40 − 20 + 4 = 24; two suits K Q N J A -> 20 + 20 (2 Aces of
#   each, 2 Kings: nothing else): 64 each.
# Seat 2: T16 ANG T13 T14 SOL: Σv 9 -> 9 − 5 + 1 = 5 (ANG + SOL: h = 1, no contatore): 5.
# Seat 3: T12 MON MAT LUN T15: Σv 13 -> 9; last trick 6: 15. Seat 4: 0.
# Not everyone took a trick: the player without one loses (seat 4).
MATTAZZA_5 = Deal(
    name="mattazza_5_matto_given",
    env_id="mattazza_v0",
    config={"num_players": 5},
    dealer=4,
    hands=[
        "KS QS KB QB NC JC ND JD SOL LUN",
        "NS JS NB JB KC QC KD QD T16 T15",
        "10S 9S 10B 9B AC 6C AD 6D ANG T12",
        "8S 7S 8B 7B 7C 8C 7D 8D MON T13",
        "6S AS 6B AB 9C 10C 9D 10D T14 MAT",
    ],
    rest="T11 T10 T9 T8 T7 T6 T5 M1 M2 M3 M4 BEG",
    actions=acts(
        "KS NS 10S 8S 6S",
        "QS JS 9S 7S AS",
        "KB NB 10B 8B 6B",
        "QB JB 9B 7B AB",
        "NC KC AC 7C 9C",
        "QC 6C 8C 10C JC",
        "KD AD 7D 9D ND",
        "QD 6D 8D 10D JD",
        "T16 ANG T13 T14 SOL",
        "T12 MON MAT LUN T15",
    ),
    scores=[64, 64, 5, 15, 0],
    rewards=[0, 0, 0, 0, -1],
    points={
        "cards": [24, 24, 5, 9, 0],
        "last_trick": [0, 0, 0, 6, 0],
        "combinations": [40, 40, 0, 0, 0],
        "total": [64, 64, 5, 15, 0],
        "capotted": [False, False, False, False, True],
    },
    info={"result": "played", "losers": [4]},
    piles={"MAT": 3},
)

# =====================================================================================
# Ottocento: a claim at the first turn (§7, §8.4 step 2; TV9)
# =====================================================================================
# Running totals 730 (seats 0 & 2) and 700. Dealer seat 3; his first 15 cards declare Denari
# K Q N J A 20 + Mori M1 M2 M3 10 = 30: 700 + 30 < 800, no window. He discards 8D 9D.
# The Primo (seat 0) holds TV9's hand: Tarocchi MAT ANG MON 18 + Kings KS KC KB 17 = 35; C = 1:
# Spade K Q N J A + MAT -> 25; Grande ANG MON SOL (LUN skipped), T16, MAT for the 15, the 14
# missing: L 5 -> 20; declaration 80. 730 + 80 = 810 >= 800: he claims and his side wins the
# game. The hand's score is the declaration used: 80 to side A, 0 to side B (docs).
OTTOCENTO_CLAIM = Deal(
    name="ottocento_claim",
    env_id="ottocento_v0",
    dealer=3,
    totals=[730, 700, 730, 700],
    hands=[
        "KS KC KB QS NS JS AS MAT ANG MON SOL T16 6C 7D 8B",
        "10S 9S 8S 7S 6S QB NB JB 10B 9B 7B 6B AB T5 T6",
        "QC NC JC AC 7C 8C 9C 10C LUN T15 T14 T13 T12 T11 T10",
        "KD QD ND JD AD 6D 8D 9D 10D T9 T8 T7 M1 M2 M3 M4 BEG",
    ],
    rest="",
    actions=acts("d:8D d:9D claim"),
    scores=[80, 0, 80, 0],
    rewards=[80, -80, 80, -80],
    info={"result": "claimed", "claimer": 0, "claim_value": 810, "game_winner": 0},
)

DEALS = [
    OTTOCENTO,
    QUATTRO_SCARTATE,
    TERZIGLIO_SU,
    TERZIGLIO_DI_MIO,
    MILLONE,
    CENTOCINQUANTA,
    QUINDICI,
    MATTAZZA_3,
    MATTAZZA_5,
    OTTOCENTO_CLAIM,
]
PLAYED = [d for d in DEALS if d.info.get("result") == "played"]


# --------------------------------------------------------------------------- driver
def legal_strings(raw) -> list[str]:
    return [raw.action_to_string(a) for a in raw.legal_actions()]


def play_deal(d: Deal):
    """Reset to the deal and play its script, checking every action against the legal ones."""
    env = tarot_env.make(d.env_id, **d.config)
    options = {"deal": d.deal()}
    if d.totals is not None:
        options["totals"] = d.totals
    env.reset(options=options)
    raw = env.unwrapped
    for i, action in enumerate(d.actions):
        assert not raw.game_over, f"{d.name}: the hand ended before action #{i} {action!r}"
        allowed = legal_strings(raw)
        assert action in allowed, f"{d.name}: action #{i} {action!r} by {env.agent_selection} is not legal; legal: {allowed}"
        env.step(action)
    assert raw.game_over, f"{d.name}: the script ended before the hand; legal now: {legal_strings(raw)}"
    return env, raw


def test_every_deal_uses_the_whole_pack():
    """interface.md §4: each fixed deal names every one of the 62 cards once."""
    for d in DEALS:
        names = [c for h in d.hands for c in h.split()] + d.rest.split()
        assert sorted(names) == sorted(BOLOGNESE_DECK.names), d.name


@pytest.mark.parametrize("d", DEALS, ids=lambda d: d.name)
def test_hand_worked_scores(d):
    """The env's scores, points and result equal the hand-worked ones (see each deal's comment)."""
    env, raw = play_deal(d)
    assert [int(x) for x in raw.game_state.scores[0]] == d.scores
    info = raw.infos["player_0"]
    assert info["scores"] == d.scores
    for agent in env.possible_agents:
        assert raw.infos[agent] == info
    for key, value in d.points.items():
        assert info["points"][key] == value, f"points[{key!r}]: {info['points'][key]} != {value}"
    for key, value in d.info.items():
        assert info[key] == value, f"info[{key!r}]: {info[key]!r} != {value!r}"
    for name, seat in d.piles.items():
        pile = int(raw.game_state.cards[0, PILE_OF, card(name)])
        assert pile == seat, f"{name} is in {pile}'s pile"
    assert raw.hands_played() == [d.scores]
    assert [raw._cumulative_rewards[a] for a in env.possible_agents] == d.rewards


@pytest.mark.parametrize("d", PLAYED, ids=lambda d: d.name)
def test_every_card_lies_in_a_pile_at_the_end(d):
    """§3.2, §4.5, §14.4: after a played hand the 62 cards (Centocinquanta, Quindici, Mattazza: the
    cards in play) lie in the piles, in multiples of the group size (pairs per side; n per player)."""
    _, raw = play_deal(d)
    pile = raw.game_state.cards[0, PILE_OF]
    place = raw.game_state.cards[0, PLACE]
    out = {card(c) for c in d.rest.split()} if d.env_id in ("centocinquanta_v0", "quindici_v0", "mattazza_v0") else set()
    pozzo = {card(c) for c in d.rest.split()} if d.info.get("contract") == "di_mio" else set()
    for c in range(62):
        if c in out:
            assert pile[c] < 0 and place[c] == PL_OUT, BOLOGNESE_DECK.names[c]
        elif c in pozzo:  # §10.3, U25: in the last trick's winner's pile (its place stays the Pozzo)
            assert pile[c] == raw.game_state.ints[0, LAST_WINNER] and place[c] == PL_POZZO, BOLOGNESE_DECK.names[c]
        else:
            assert pile[c] >= 0 and place[c] in (PL_PILE, PL_DISCARD), BOLOGNESE_DECK.names[c]
    n = raw.num_players
    if d.env_id == "mattazza_v0":
        sizes = np.bincount(pile[pile >= 0], minlength=n)
        assert (sizes % n == 0).all(), sizes
    elif d.env_id != "terziglio_v0":  # Terziglio's piles may be odd (U18)
        sides = [raw.game.side_of(raw.game_state, 0, s) for s in range(n)]
        per_side = np.bincount([sides[p] for p in pile if p >= 0], minlength=2)
        assert (per_side % 2 == 0).all(), per_side


@pytest.mark.parametrize("d", DEALS, ids=lambda d: d.name)
def test_record_round_trips_and_replays(d):
    """interface.md §5: the record is JSON-ready, keeps the deal and actions, and replays to the same scores."""
    _, raw = play_deal(d)
    record = raw.record()
    text = json.dumps(record)
    again = json.loads(text)
    assert again == record
    assert record["env"] == d.env_id
    assert record["actions"] == d.actions
    assert record["scores"] == d.scores
    assert sorted(map(sorted, record["deal"]["hands"])) == sorted(sorted(h.split()) for h in d.hands)
    assert tarot_env.replay(again) == d.scores


@pytest.mark.parametrize("d", PLAYED, ids=lambda d: d.name)
def test_tampered_records_are_refused(d):
    """interface.md §5: a changed score, an illegal action, a missing or an extra action: ReplayError."""
    _, raw = play_deal(d)
    record = json.loads(json.dumps(raw.record()))

    forged = copy.deepcopy(record)
    forged["scores"][0] += 1
    with pytest.raises(tarot_env.ReplayError):
        tarot_env.replay(forged)

    # an illegal action: the last card played replaced by a card already played in trick 1
    first_play = next(a for a in record["actions"] if a.startswith("play"))
    illegal = copy.deepcopy(record)
    illegal["actions"][-1] = first_play
    with pytest.raises(tarot_env.ReplayError):
        tarot_env.replay(illegal)

    # a word where a card is due
    wrong_kind = copy.deepcopy(record)
    k = record["actions"].index(first_play)
    wrong_kind["actions"][k] = "pass"
    with pytest.raises(tarot_env.ReplayError):
        tarot_env.replay(wrong_kind)

    missing_last = copy.deepcopy(record)
    missing_last["actions"].pop()
    with pytest.raises(tarot_env.ReplayError):
        tarot_env.replay(missing_last)

    missing_middle = copy.deepcopy(record)
    del missing_middle["actions"][len(record["actions"]) // 2]
    with pytest.raises(tarot_env.ReplayError):
        tarot_env.replay(missing_middle)

    extra = copy.deepcopy(record)
    extra["actions"].append(record["actions"][-1])
    with pytest.raises(tarot_env.ReplayError):
        tarot_env.replay(extra)


def test_claim_record_keeps_the_running_totals():
    """§8.4 with interface.md §5: a hand claimed at given running totals replays to the same result.
    (The claim is only legal at 730 + 80 >= 800, so the record must carry the totals it started from.)"""
    _, raw = play_deal(OTTOCENTO_CLAIM)
    record = json.loads(json.dumps(raw.record()))
    assert record["actions"] == ["discard 8D", "discard 9D", "claim"]
    assert tarot_env.replay(record) == OTTOCENTO_CLAIM.scores


def test_declaration_shows_the_declared_cards():
    """§7: a declaration shows its cards to the table: after the Ottocento cappotto's first trick the
    declared combinations of seats 0, 1 and 2 were shown, seat 3's (no_declare) were not."""
    env = tarot_env.make("ottocento_v0")
    env.reset(options={"deal": OTTOCENTO.deal()})
    raw = env.unwrapped
    for a in OTTOCENTO.actions[: 2 + 8]:  # discards and the first trick with its three declarations
        env.step(a)
    shown = {BOLOGNESE_DECK.names[c] for c in np.flatnonzero(raw.game_state.cards[0, SHOWN])}
    # seat 0: Spade K Q N J, Grande ANG MON SOL LUN T16..T10; seat 1: Coppe K Q N J A, Aces AC AS AB;
    # seat 2: Bastoni K Q N J, Mori, BEG and MAT
    expected = set(names("KS QS NS JS ANG MON SOL LUN T16 T15 T14 T13 T12 T11 T10 KC QC NC JC AC AS AB KB QB NB JB M1 M2 M3 M4 BEG MAT"))
    assert shown == expected
    assert [int(x) for x in raw.game_state.seat_ints[0, :, DECLARED]] == [65, 30, 50, 0]


# --------------------------------------------------------------------------- a match record
def test_match_record_replays():
    """interface.md §5: a Quattro Scartate match (4 hands, §9) played at random from a seed: its
    record is JSON-ready, lists the 4 deals with their actions and scores, replays to the same
    totals, and a changed hand score, a changed total or a missing action is refused."""
    env = tarot_env.make("quattro_scartate_v0", episode="match")
    env.reset(seed=2024)
    raw = env.unwrapped
    rng = np.random.default_rng(7)
    steps = 0
    while not raw.game_over:
        legal = raw.legal_actions()
        env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    record = json.loads(json.dumps(raw.record()))
    assert record["env"] == "quattro_scartate_v0"
    assert record["config"].get("episode") == "match"
    played = raw.hands_played()
    assert len(record["deals"]) == len(played) == 4  # tie="draw" (U10 default): exactly 4 hands
    assert [d["scores"] for d in record["deals"]] == played
    assert sum(len(d["actions"]) for d in record["deals"]) == steps
    totals = [sum(h[s] for h in played) for s in range(4)]
    assert record["totals"] == totals == raw.totals()
    assert totals[0] == totals[2] and totals[1] == totals[3]
    # dealers move to the dealer's right (§5.5): one deal each
    dealers = [d["deal"]["dealer"] for d in record["deals"][:4]]
    assert sorted(dealers) == [0, 1, 2, 3] and all((b - a) % 4 == 1 for a, b in itertools.pairwise(dealers))
    assert tarot_env.replay(record) == totals

    forged = copy.deepcopy(record)
    forged["deals"][1]["scores"][0] += 1
    with pytest.raises(tarot_env.ReplayError):
        tarot_env.replay(forged)
    forged = copy.deepcopy(record)
    forged["totals"][1] += 1
    with pytest.raises(tarot_env.ReplayError):
        tarot_env.replay(forged)
    forged = copy.deepcopy(record)
    forged["deals"][2]["actions"].pop()
    with pytest.raises(tarot_env.ReplayError):
        tarot_env.replay(forged)
