"""Whole French Tarot deals played by hand (rules/french_tarot.md §1–§11, interface.md §4–§5).

Each deal below is a fixed deal (``reset(options={"deal": ...})``) with a scripted list of
action strings from the first bid to the last card. The expected result of each deal was
worked out by hand from the spec; the comments give the arithmetic: which cards each side
won, in half-points (hp: bout/K 9, Q 7, N 5, J 3, other 1, §1), the bouts, the threshold, d,
S and the shares (§9). Every action is checked against the env's legal actions as it is
played. Then the deal's record goes through JSON and ``tarot_env.replay``, which must give
the same scores, and must refuse a record with an illegal action, with missing actions or
with wrong scores.

Seats: seat s+1 plays after seat s; the dealer's neighbour ``dealer + 1`` bids first and
leads trick 1 (the taker leads after announcing a chelem).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass

import pytest
from helpers_setup import cards

import tarot_env
from tarot_env.cards.french import FRENCH_DECK, card


def plays(*tricks: str) -> list[str]:
    """'KS 1S QS', ... -> ['play KS', 'play 1S', 'play QS', ...] (cards in the order played)."""
    return [f"play {c}" for t in tricks for c in t.split()]


def discards(text: str) -> list[str]:
    return [f"discard {c}" for c in text.split()]


@dataclass
class Deal:
    """A fixed deal, its script and the hand-worked result."""

    num_players: int
    dealer: int
    hands: list[str]
    chien: str
    actions: list[str]
    scores: list[int]
    info: dict

    def deal(self) -> dict:
        return {"dealer": self.dealer, "hands": [cards(h) for h in self.hands], "rest": cards(self.chien)}


# =====================================================================================
# Deal A: 4 players, garde, écart, taker's simple poignée (§4, §5.2, §6.3, §9)
# =====================================================================================
# Dealer seat 0: seat 1 bids first and leads trick 1. Seat 1 bids garde, the others pass.
# Chien T11 T12 KC QC 1S 1H is shown and taken; the taker discards 1S 2S 1H 4H 5D QC
# (no king, no trump: legal, §4). Écart = 5 pips + QC = 5 + 7 = 12 hp.
# Taker then holds T11..T21 (11 trumps), EX, KS KH KD KC QH 3S; at his first card he shows a
# simple poignée (10 trumps, §5.2; 4 players: 10/13/15). Defenders hold at most 4 trumps.
DEAL_A = Deal(
    num_players=4,
    dealer=0,
    hands=[
        "T7 T8 T9 T10 10S JS NS 10H JH NH 10D JD ND QD 9C 10C JC NC",  # seat 0 (defender)
        "T13..T21 EX KS KH KD QH 2S 3S 4H 5D",  # seat 1 (taker)
        "T1 T2 T3 4S 5S 6S QS 2H 3H 5H 1D 2D 3D 4D 1C 2C 3C 4C",  # seat 2 (defender)
        "T4 T5 T6 7S 8S 9S 6H 7H 8H 9H 6D 7D 8D 9D 5C 6C 7C 8C",  # seat 3 (defender)
    ],
    chien="T11 T12 KC QC 1S 1H",
    actions=[
        "bid garde",
        "pass",
        "pass",
        "pass",
        *discards("1S 2S 1H 4H 5D QC"),
        "no_chelem",
        "poignee simple",
        # Cards in play order from the leader; (hp) -> winner.
        *plays(
            "T21 T2 T4 T7",  # 1: seats 1,2,3,0. 9+1+1+1 = 12 -> taker (nobody can overtrump 21)
            "T20 T3 T5 T8",  # 2: 4 -> taker
            "T19 T1 T6 T9",  # 3: 1+9+1+1 = 12 -> taker: the Petit is caught
            "T18 1C 5C T10",  # 4: seats 2 and 3 have no trump left and discard; 4 -> taker
            "KS 4S 7S 10S",  # 5: 9+3 = 12 -> taker
            "KH 2H 6H 10H",  # 6: 12 -> taker
            "KD 1D 6D 10D",  # 7: 12 -> taker
            "KC 2C 6C 9C",  # 8: 12 -> taker
            "QH 3H 7H JH",  # 9: 7+1+1+3 = 12 -> taker (queen beats the jack)
            "3S QS 8S NS",  # 10: 1+7+1+5 = 14 -> seat 2 (QS), defence
            "4D 7D QD EX",  # 11: seats 2,3,0,1. -> seat 0 (QD); the taker's Excuse goes back to him
            #                     for one half-point (§6.3): defence 1+1+7 + 1 = 10 hp, attack 9 - 1 = 8 hp
            "NC T11 3C 7C",  # 12: seats 0,1,2,3. The taker trumps: 5+1+1+1 = 8 -> taker
            "T17 5S 9S JS",  # 13: seats 1,2,3,0. 6 -> taker
            "T16 6S 8H NH",  # 14: 8 -> taker
            "T15 5H 9H JD",  # 15: 6 -> taker
            "T14 2D 8D ND",  # 16: 8 -> taker
            "T13 3D 9D 10C",  # 17: 4 -> taker
            "T12 4C 8C JC",  # 18: 6 -> taker (no Petit in the last trick: no petit au bout)
        ),
    ],
    # Attack = tricks 1-9 (12+4+12+4+12+12+12+12+12 = 92) + tricks 12-18 (8+6+8+6+8+4+6 = 46)
    #        + écart 12 + Excuse 8 = 158 hp = 79 points; defence 14 + 10 = 24 hp; 158 + 24 = 182.
    # Bouts: T21, T1, EX = 3 -> threshold 36; won by 43.
    # S = (25 + 43) * 2 + 20 (poignée, to the winner) = 156; taker 3S = +468, each defender -156.
    scores=[-156, 468, -156, -156],
    info={"taker": 1, "partner": -1, "contract": "garde", "attack_points": 79.0, "attack_bouts": 3, "made": True,
          "petit_au_bout": 0, "chelem": "none", "unit": 156},
)  # fmt: skip


# =====================================================================================
# Deal B: 3 players, garde lost on a half-point total (33.5), petit au bout to the losing taker, his double
# poignée paid to the defence (§5.2, §7, §9.3, §11)
# =====================================================================================
# Dealer seat 0: seat 1 bids first and leads. Seat 1 bids petite, seat 2 garde (higher), seat 0
# passes: taker seat 2. Chien 3S 3H 3C 4S 4H 4C is shown, taken and discarded again:
# écart 6 hp. The taker keeps T1, T8..T21 (15 trumps: a double poignée for 3 players, 13/15/18)
# and nine low cards 1S 2S 1H 2H 1C 2C 1D 2D 3D. Seat 1 has T2 T3 T4 EX, seat 0 T5 T6 T7.
DEAL_B = Deal(
    num_players=3,
    dealer=0,
    hands=[
        "QS JS 8S 9S 10S QH JH 8H 9H 10H QC JC 8C 9C 10C QD JD 9D 6D 7D 8D T5 T6 T7",  # seat 0
        "KS NS 5S 6S 7S KH NH 5H 6H 7H KC NC 5C 6C 7C KD ND 10D 4D 5D T2 T3 T4 EX",  # seat 1
        "T1 T8..T21 1S 2S 1H 2H 1C 2C 1D 2D 3D",  # seat 2 (taker)
    ],
    chien="3S 3H 3C 4S 4H 4C",
    actions=[
        "bid petite",
        "bid garde",
        "pass",
        *discards("3S 3H 3C 4S 4H 4C"),
        "no_chelem",
        # Trick 1 is led by seat 1; the taker declares his poignée before his first card.
        "play KS",
        "poignee double",
        *plays(
            "1S QS",  # 1: seats 1,2,0: KS 1S QS = 9+1+7 = 17 -> seat 1
            "NS 2S JS",  # 2: 5+1+3 = 9 -> seat 1
            "KH 1H QH",  # 3: 17 -> seat 1
            "NH 2H JH",  # 4: 9 -> seat 1
            "KC 1C QC",  # 5: 17 -> seat 1
            "NC 2C JC",  # 6: 9 -> seat 1
            "KD 1D QD",  # 7: 17 -> seat 1
            "ND 2D JD",  # 8: 9 -> seat 1
            "10D 3D 9D",  # 9: 3 -> seat 1 (10 beats 9)
            "4D T8 6D",  # 10: the taker, out of diamonds, must trump: 3 -> taker
            "T21 T5 T2",  # 11: seats 2,0,1: 9+1+1 = 11 -> taker
            "T20 T6 T3",  # 12: 3 -> taker
            "T19 T7 T4",  # 13: 3 -> taker; the defence has no trump left
            "T18 8S EX",  # 14: T18 + 8S = 2, the Excuse goes back to seat 1, who pays 1 hp: 3 -> taker
            "T17 9S 5S",  # 15-23: 3 hp each -> taker
            "T16 10S 6S",
            "T15 8H 7S",
            "T14 9H 5H",
            "T13 10H 6H",
            "T12 8C 7H",
            "T11 9C 5C",
            "T10 10C 6C",
            "T9 7D 7C",
            "T1 8D 5D",  # 24: the Petit wins the last trick: 9+1+1 = 11 -> taker, petit au bout (§7)
        ),
    ],
    # Attack = écart 6 + trick 10: 3 + 11: 11 + 12: 3 + 13: 3 + 14: 3 + 15-23: 9*3 = 27 + 24: 11 = 67 hp = 33.5.
    # Defence = tricks 1-9 (17+9)*4 + 3 = 107, + Excuse 9 - 1 = 8: 115 hp; 67 + 115 = 182.
    # Bouts: T21 and T1 = 2 -> threshold 41; lost by 7.5 -> d = 8 (the half point goes to the
    # defence, which wins the deal, §9.3).
    # S = -(25 + 8) * 2 + 10 * 2 (petit au bout, attack) - 30 (the taker's double, paid to the
    # winners) = -66 + 20 - 30 = -76; taker 2S = -152, each defender +76.
    scores=[76, 76, -152],
    info={"taker": 2, "partner": -1, "contract": "garde", "attack_points": 33.5, "attack_bouts": 2, "made": False,
          "petit_au_bout": 1, "chelem": "none", "unit": -76},
)  # fmt: skip


# =====================================================================================
# Deal C: 5 players, called king, partner (§9.2, §10)
# =====================================================================================
# Dealer seat 4: seat 0 bids first and leads. Seat 3 bids petite, the others pass; he calls the
# KH, held by seat 1: the partner. Chien 3C 2H 3H is shown and taken; the taker discards
# 1H 2H 3H (écart 3 hp). He keeps T14..T21 (8 trumps: a simple poignée for 5 players, 8/10/13),
# EX, KS KD QS QD 2C 3C. The partner has T10..T13, KH, KC, QC; the defenders seats 0, 2, 4 have
# three trumps each among T1..T9.
DEAL_C = Deal(
    num_players=5,
    dealer=4,
    hands=[
        "1S 8S 10S 5H 6H 8H 5D 8D 10D 5C 9C 10C T1 T4 T7",  # seat 0 (defender)
        "2S 3S 4S 4H KH 1D 2D 3D 1C KC QC T10 T11 T12 T13",  # seat 1 (partner: holds KH)
        "5S 9S JS NH 7H 9H 6D 9D JD 6C 7C JC T2 T5 T8",  # seat 2 (defender)
        "T14..T21 EX KS KD QS QD 1H 2C",  # seat 3 (taker)
        "6S 7S NS QH JH 10H 4D 7D ND 4C 8C NC T3 T6 T9",  # seat 4 (defender)
    ],
    chien="3C 2H 3H",
    actions=[
        "pass",
        "pass",
        "pass",
        "bid petite",
        "pass",
        "call KH",
        *discards("1H 2H 3H"),
        "no_chelem",
        # Trick 1 is led by seat 0, not in hearts (the called suit, §10).
        *plays("1S 2S 5S"),
        "poignee simple",
        *plays(
            "KS 6S",  # 1: seats 0,1,2,3,4: 1S 2S 5S KS 6S = 13 hp -> taker
            "T21 T3 T4 T10 T2",  # 2: seats 3,4,0,1,2 (nobody can overtrump): 13 -> taker
            "T20 T6 T7 T11 T5",  # 3: 5 -> taker
            "T19 T9 T1 T12 T8",  # 4: the Petit falls: 13 -> taker
            "KD 4D 5D 1D 6D",  # 5: 13 -> taker
            "QS 7S 8S 3S 9S",  # 6: 11 -> taker
            "QD 7D 8D 2D 9D",  # 7: 11 -> taker
            "2C 4C 5C KC 6C",  # 8: the partner (seat 1) wins with KC: 13 -> partner
            "QC 7C 3C 8C 9C",  # 9: seats 1,2,3,4,0: 11 -> partner (QC is the best club left)
            "4H NH EX QH 5H",  # 10: seats 1,2,3,4,0: QH (seat 4) wins; the taker's Excuse goes back
            #                      to him for one half-point: defence 1+5+7+1 + 1 = 15 hp
            "JH 6H KH 7H T14",  # 11: seats 4,0,1,2,3: the taker, out of hearts, trumps the partner's
            #                      KH: 3+1+9+1+1 = 15 -> taker
            "T18 NS 10S T13 JS",  # 12: seats 3,4,0,1,2: 1+5+1+1+3 = 11 -> taker
            "T17 10H 8H 4S 9H",  # 13: 5 -> taker
            "T16 ND 10D 3D JD",  # 14: 11 -> taker
            "T15 NC 10C 1C JC",  # 15: 11 -> taker
        ),
    ],
    # Attack: taker's tricks 1-7 (13+13+5+13+13+11+11 = 79), 11 (15), 12-15 (11+5+11+11 = 38);
    # the partner's tricks 8-9 (13+11 = 24); écart 3; Excuse 9 - 1 = 8.
    # Total 79 + 15 + 38 + 24 + 3 + 8 = 167 hp = 83.5 points; defence 15 hp; 167 + 15 = 182.
    # Bouts: T21, T1, EX = 3 -> threshold 36; won by 47.5 -> d = 48 (the half point to the winner).
    # S = (25 + 48) * 1 + 20 (poignée) = 93: taker 2S = +186, partner +93, defenders -93 each.
    scores=[-93, 93, -93, 186, -93],
    info={"taker": 3, "partner": 1, "contract": "petite", "attack_points": 83.5, "attack_bouts": 3, "made": True,
          "petit_au_bout": 0, "chelem": "none", "unit": 93},
)  # fmt: skip


# =====================================================================================
# Deal D: 4 players, garde contre lost by a half point; the chien and its Petit count for the
# defence; poignées on both sides; a defender's Excuse changes camp on the last trick
# (§3, §4, §5.2, §6.3, §9.3)
# =====================================================================================
# Dealer seat 3: seat 0 bids first and leads. Seat 0 bids garde contre, the others pass. The
# chien T1 QH KH 9D 10D ND stays unseen and goes to the defence (9+7+9+1+1+5 = 32 hp, 1 bout).
# The taker holds T12..T21 and 1C..8C; seat 2 holds T2..T11: both show a simple poignée.
# Seat 1 holds the Excuse and no trump (§6.2: he discards freely), seat 3 no trump.
DEAL_D = Deal(
    num_players=4,
    dealer=3,
    hands=[
        "T12..T21 1C 2C 3C 4C 5C 6C 7C 8C",  # seat 0 (taker)
        "KS QS NS JS 1S 2S 3S 4S 5S 6S 7S 8S 9S 10S JH 10H NH EX",  # seat 1
        "T2..T11 1D 2D 3D 4D 5D 6D 7D 8D",  # seat 2
        "1H 2H 3H 4H 5H 6H 7H 8H 9H JD KD QD 9C 10C JC NC QC KC",  # seat 3
    ],
    chien="T1 QH KH 9D 10D ND",
    actions=[
        "bid garde_contre",
        "pass",
        "pass",
        "pass",
        "no_chelem",
        "poignee simple",
        "play T21",
        "play KS",
        "poignee simple",
        *plays(
            "T2 1H",  # 1: seats 0,1,2,3: T21 KS T2 1H = 9+9+1+1 = 20 -> taker
            "T20 QS T3 2H",  # 2: 1+7+1+1 = 10 -> taker
            "T19 NS T4 3H",  # 3: 8 -> taker
            "T18 JS T5 4H",  # 4: 6 -> taker
            "T17 JH T6 5H",  # 5: 6 -> taker
            "T16 1S T7 6H",  # 6: 4 -> taker
            "T15 2S T8 7H",  # 7: 4 -> taker
            "T14 3S T9 8H",  # 8: 4 -> taker
            "T13 4S T10 9H",  # 9: 4 -> taker
            "T12 5S T11 JD",  # 10: 1+1+1+3 = 6 -> taker; seat 2 has no trump left
            "1C 6S 1D KC",  # 11: seats 0,1,2,3 -> seat 3
            "QC 2C 7S 2D",  # 12: seats 3,0,1,2 -> seat 3
            "NC 3C 8S 3D",  # 13: -> seat 3
            "JC 4C 9S 4D",  # 14: -> seat 3
            "10C 5C 10S 5D",  # 15: -> seat 3
            "9C 6C 10H 6D",  # 16: -> seat 3
            "KD 7C NH 7D",  # 17: -> seat 3
            "QD 8C EX 8D",  # 18: seat 3 wins the last trick; seat 1's Excuse, played to the last
            #                  trick, changes camp (§6.3): it goes to the attack, with no exchange
        ),
    ],
    # Attack = tricks 1-10: 20+10+8+6+6+4+4+4+4+6 = 72 hp, + the Excuse 9 = 81 hp = 40.5 points.
    # Defence = chien 32 + tricks 11-18 without the Excuse: taker's clubs 8, seat 1's 6S..10S 10H NH
    # = 5+1+5 = 11, seat 2's 1D..8D = 8, seat 3's 9C 10C JC NC QC KC KD QD = 1+1+3+5+7+9+9+7 = 42:
    # 32 + 69 = 101 hp; 81 + 101 = 182.
    # Bouts: T21 and EX = 2 (the Petit is in the defence's chien) -> threshold 41; lost by 0.5
    # -> d = 1 (the half point goes to the defence, the winner, §9.3: 4 players too).
    # S = -(25 + 1) * 6 - (20 + 20) (both poignées, to the winning defence) = -196;
    # taker 3S = -588, each defender +196.
    scores=[-588, 196, 196, 196],
    info={"taker": 0, "partner": -1, "contract": "garde_contre", "attack_points": 40.5, "attack_bouts": 2, "made": False,
          "petit_au_bout": 0, "chelem": "none", "unit": -196},
)  # fmt: skip


# =====================================================================================
# Deal E: 4 players, garde sans with an announced chelem made: the taker leads, his Excuse
# wins the last trick, the Petit au bout is counted in the penultimate trick (§5.1, §6.3, §7)
# =====================================================================================
# Dealer seat 0: seat 1 bids first and would lead. Seat 2 bids garde sans; the chien
# QS QH QD QC 1S 1H stays unseen and counts for him. He announces a chelem and so leads trick 1.
# He holds T1, T10..T21 (13 trumps: a double poignée), EX and the four kings; the defenders
# hold T2..T9.
DEAL_E = Deal(
    num_players=4,
    dealer=0,
    hands=[
        "8H 9H 10H JH NH 1D 2D 3D 4D 5D 6D 7D 8D 9D 10D T5 T6 T7",  # seat 0
        "JS NS JD ND 1C 2C 3C 4C 5C 6C 7C 8C 9C 10C JC NC T8 T9",  # seat 1
        "T1 T10..T21 EX KS KH KD KC",  # seat 2 (taker)
        "2S 3S 4S 5S 6S 7S 8S 9S 10S 2H 3H 4H 5H 6H 7H T2 T3 T4",  # seat 3
    ],
    chien="QS QH QD QC 1S 1H",
    actions=[
        "pass",
        "bid garde_sans",
        "pass",
        "pass",
        "chelem",
        "poignee double",
        *plays(
            "T21 T2 T5 T8",  # 1: seats 2,3,0,1 -> taker
            "T20 T3 T6 T9",  # 2
            "T19 T4 T7 1C",  # 3: the defence is out of trumps
            "KS 2S 1D JS",  # 4
            "KH 2H 8H 2C",  # 5
            "KD 3S 2D JD",  # 6
            "KC 4S 3D 3C",  # 7
            "T18 5S 4D NS",  # 8-16: trumps, the defenders discard
            "T17 6S 5D ND",
            "T16 7S 6D 4C",
            "T15 8S 7D 5C",
            "T14 9S 8D 6C",
            "T13 10S 9D 7C",
            "T12 3H 10D 8C",
            "T11 4H 9H 9C",
            "T10 5H 10H 10C",
            "T1 6H JH JC",  # 17: the Petit in the penultimate trick
            "EX 7H NH NC",  # 18: the Excuse is led and wins the last trick (chelem, §6.3)
        ),
    ],
    # The attack wins all 18 tricks and has the chien: all 91 points, 3 bouts -> threshold 36, won by 55.
    # The Petit in the penultimate trick is au bout, since the chelem side played the Excuse to the last (§7).
    # S = (25 + 55) * 4 + 10 * 4 (petit au bout) + 30 (double poignée) + 400 (chelem announced and made)
    #   = 320 + 40 + 30 + 400 = 790; taker 3S = +2370, each defender -790.
    scores=[-790, -790, 2370, -790],
    info={"taker": 2, "partner": -1, "contract": "garde_sans", "attack_points": 91.0, "attack_bouts": 3, "made": True,
          "petit_au_bout": 1, "chelem": "announced_made", "unit": 790},
)  # fmt: skip

DEALS = {"4p_garde_ecart_poignee": DEAL_A, "3p_garde_lost": DEAL_B, "5p_called_king": DEAL_C, "4p_garde_contre": DEAL_D,
         "4p_garde_sans_chelem": DEAL_E}  # fmt: skip


# --------------------------------------------------------------------------- helpers
def play_deal(d: Deal):
    """Reset to the fixed deal and play its script, checking each action against the legal ones."""
    env = tarot_env.make("french_tarot_v0", num_players=d.num_players)
    env.reset(options={"deal": d.deal()})
    raw = env.unwrapped
    for i, text in enumerate(d.actions):
        assert not raw.game_over, f"the deal ended before action #{i} {text!r}"
        action = raw.string_to_action(text)
        legal = [raw.action_to_string(a) for a in raw.legal_actions()]
        assert action in raw.legal_actions(), f"action #{i} {text!r} by {env.agent_selection} is not legal; legal: {legal}"
        env.step(action)
    assert raw.game_over, "the script ended before the deal"
    return env


@pytest.fixture(scope="module", params=list(DEALS), ids=list(DEALS))
def played(request):
    d = DEALS[request.param]
    return d, play_deal(d)


# --------------------------------------------------------------------------- the deals
def test_deals_are_complete():
    """§2: each fixed deal holds all 78 cards once, with 18/24/15 cards a hand and a chien of 6/6/3."""
    sizes = {3: (24, 6), 4: (18, 6), 5: (15, 3)}
    for name, d in DEALS.items():
        hand_size, chien_size = sizes[d.num_players]
        deal = d.deal()
        all_cards = [c for h in deal["hands"] for c in h] + deal["rest"]
        assert sorted(card(c) for c in all_cards) == list(range(78)), name
        assert [len(h) for h in deal["hands"]] == [hand_size] * d.num_players, name
        assert len(deal["rest"]) == chien_size, name


def test_whole_deal_scores(played):
    """§9: the final scores worked out by hand (see each deal's comments); they sum to zero."""
    d, env = played
    assert [int(x) for x in env.unwrapped.game_state.scores[0]] == d.scores
    assert sum(d.scores) == 0
    for agent in env.possible_agents:
        assert env.infos[agent]["scores"] == d.scores
        assert env.terminations[agent]


def test_whole_deal_info(played):
    """§8, §7, §9: attack points and bouts, contract made, petit au bout, chelem, the unit S, taker
    and partner, as worked out by hand."""
    d, env = played
    info = env.infos["player_0"]
    assert info["result"] == "played"
    for key, value in d.info.items():
        assert info[key] == value, key


def test_whole_deal_rewards(played):
    """interface.md, reward="score": each player's cumulative reward is his score."""
    d, env = played
    assert [env.rewards[a] for a in env.possible_agents] == [float(s) for s in d.scores]


def test_five_player_partner_tricks_count_for_the_attack():
    """§10: the partner's tricks (8 and 9, won with KC and QC: 13 + 11 hp) count for the attack; the
    partner is the holder of the called KH and scores +S."""
    env = play_deal(DEAL_C)
    s = env.unwrapped.game_state
    assert int(s.partner[0]) == 1
    assert [int(w) for w in s.winners[0, 7:9]] == [1, 1]
    assert int(s.winners[0, 9]) == 4
    # without the partner's 24 hp the attack would have 143 hp (71.5); with them 167 hp (83.5)
    assert int(s.attack_points[0]) == 167
    assert env.infos["player_1"]["scores"][1] == 93


def test_excuse_changes_camp_on_the_last_trick_in_deal_d():
    """§6.3: a defender's Excuse played to the last trick, won by another defender, goes to the
    attack (FFT "change de camp"): the attack ends with 2 bouts and 40.5 points."""
    env = play_deal(DEAL_D)
    s = env.unwrapped.game_state
    assert int(s.winners[0, 17]) == 3
    assert env.infos["player_0"]["attack_bouts"] == 2
    assert env.infos["player_0"]["attack_points"] == 40.5


def test_announced_chelem_taker_leads():
    """§5.1, §6.1: after the chelem announcement the taker (seat 2) leads trick 1, not dealer + 1."""
    env = play_deal(DEAL_E)
    s = env.unwrapped.game_state
    assert int(s.leaders[0, 0]) == 2
    assert [int(w) for w in s.winners[0]] == [2] * 18


# --------------------------------------------------------------------------- records
def test_record_round_trips_through_json_and_replays(played):
    """interface.md §5: the record is JSON-ready; replaying it gives the same scores."""
    d, env = played
    record = env.unwrapped.record()
    assert record["env"] == "french_tarot_v0"
    assert record["config"]["num_players"] == d.num_players
    assert record["actions"] == [env.unwrapped.action_to_string(env.unwrapped.string_to_action(a)) for a in d.actions]
    assert record["scores"] == d.scores
    assert record["deal"]["dealer"] == d.dealer
    assert [sorted(map(card, h)) for h in record["deal"]["hands"]] == [sorted(map(card, h)) for h in d.deal()["hands"]]
    assert sorted(map(card, record["deal"]["rest"])) == sorted(map(card, d.deal()["rest"]))
    again = json.loads(json.dumps(record))
    assert tarot_env.replay(again) == d.scores


def test_replay_refuses_an_illegal_action(played):
    """interface.md §5: a record with an illegal action raises ReplayError.

    The first card of trick 1 is answered with a card the next player must not play: a card he
    does not hold (the leader's own card, played twice)."""
    _, env = played
    record = json.loads(json.dumps(env.unwrapped.record()))
    first = next(i for i, a in enumerate(record["actions"]) if a.startswith("play "))
    second = next(i for i in range(first + 1, len(record["actions"])) if record["actions"][i].startswith("play "))
    record["actions"][second] = record["actions"][first]
    with pytest.raises(tarot_env.ReplayError):
        tarot_env.replay(record)


def test_replay_refuses_a_revoke():
    """interface.md §5, §6.2: deal A with seat 2 discarding 2H on the KS lead of trick 5 while he
    holds spades (he must follow suit): ReplayError."""
    env = play_deal(DEAL_A)
    record = json.loads(json.dumps(env.unwrapped.record()))
    i = record["actions"].index("play KS")
    assert record["actions"][i + 1] == "play 4S"
    record["actions"][i + 1] = "play 2H"
    with pytest.raises(tarot_env.ReplayError):
        tarot_env.replay(record)


def test_replay_refuses_a_truncated_record(played):
    """interface.md §5: a record whose actions stop before the end of the deal raises ReplayError."""
    _, env = played
    record = json.loads(json.dumps(env.unwrapped.record()))
    record["actions"] = record["actions"][:-1]
    with pytest.raises(tarot_env.ReplayError):
        tarot_env.replay(record)


def test_replay_refuses_extra_actions(played):
    """interface.md §5: actions after the end of the deal raise ReplayError."""
    _, env = played
    record = json.loads(json.dumps(env.unwrapped.record()))
    record["actions"].append(record["actions"][-1])
    with pytest.raises(tarot_env.ReplayError):
        tarot_env.replay(record)


def test_replay_refuses_wrong_scores(played):
    """interface.md §5: a record whose scores differ from the rules' raises ReplayError."""
    d, env = played
    record = copy.deepcopy(env.unwrapped.record())
    record["scores"] = [-s for s in d.scores]
    with pytest.raises(tarot_env.ReplayError):
        tarot_env.replay(record)
    record["scores"] = d.scores
    assert tarot_env.replay(record) == d.scores


def test_card_values_used_in_the_comments():
    """§1: the half-point values used in this file's arithmetic: bouts and kings 9, queens 7,
    knights 5, jacks 3, other cards 1; 182 in all."""
    values = {name: int(FRENCH_DECK.value[card(name)]) for name in ("T21", "T1", "EX", "KS", "QH", "ND", "JC", "10D", "T12")}
    assert values == {"T21": 9, "T1": 9, "EX": 9, "KS": 9, "QH": 7, "ND": 5, "JC": 3, "10D": 1, "T12": 1}
    assert int(FRENCH_DECK.value.sum()) == 182
