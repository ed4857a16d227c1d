"""French Tarot: the play of the cards (rules/french_tarot.md §6, §7, §10, §13.1, §15).

The legality vectors L1–L10 and the trick-winner vectors of §13.1 are checked on the shared
trick mechanics of the test oracle (``tests/oracles/tricks.py``) and through the real environment. The Excuse,
the petit au bout and the chelem outcomes are checked on whole fixed deals whose play is
forced or simple. Each hand is written in the order its holder plays (see
``tests/helpers_play.py``); the comments follow the deal trick by trick, and every expected
score is worked out from the formula of §9.1:

    S = sgn*(25 + d)*m + pab*10*m + sgn*H + C ;  taker (N-1)*S (5 players: 2S, partner S), defenders -S
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_play import (
    answer_poignees,
    cards,
    fixed_deal,
    info,
    legal_cards,
    new_env,
    pile_of,
    play,
    play_out,
    start,
    trick_cards,
    winners,
)
from oracles.tricks import TrickTables, legal_plays, play_card

from tarot_env import IllegalActionError
from tarot_env.cards.deck import TRUMP_SUIT
from tarot_env.cards.french import EXCUSE, FRENCH_DECK, NUM_CARDS, card
from tarot_env.rules.french import actions as A

TABLES = TrickTables.for_deck(FRENCH_DECK, must_overtrump=True)
S, H, D, C = 0, 1, 2, 3  # suit codes
NONE = -1  # no suit led yet


def strength(c: str) -> int:
    return int(FRENCH_DECK.strength[card(c)])


def hand_mask(hand: str) -> np.ndarray:
    m = np.zeros((1, NUM_CARDS), dtype=bool)
    for c in cards(hand):
        m[0, card(c)] = True
    return m


def names(mask: np.ndarray) -> set[str]:
    return {FRENCH_DECK.names[c] for c in np.flatnonzero(mask)}


def trick_state(played: str, play_fn=play_card) -> tuple[int, int, int, int]:
    """(lead_suit, top_trump, best_key, best_seat) after the cards of ``played`` (seats 0, 1, ...)."""
    ls, tt, bk, bs = np.array([-1]), np.array([0]), np.array([-1]), np.array([-1])
    for seat, c in enumerate(cards(played)):
        ls, tt, bk, bs = play_fn(TABLES, np.array([card(c)]), np.array([seat]), ls, tt, bk, bs)
    return int(ls[0]), int(tt[0]), int(bk[0]), int(bs[0])


# the dispatching functions (compiled kernel when numba is there) and the NumPy reference
LEGAL_FNS = pytest.mark.parametrize("legal_fn", [legal_plays], ids=["legal_plays"])
PLAY_FNS = pytest.mark.parametrize("play_fn", [play_card], ids=["play_card"])


# ====================================================================== §13.1 legality, rules level

# (id, cards already in the trick, lead_suit and top_trump as the incremental trick state holds
#  them after those cards, hand, legal plays) -- the table of §13.1
LEGALITY_VECTORS = [
    ("L1", "7S", S, 0, "KS 2S T5 EX QH", "KS 2S EX"),
    ("L2", "7S T9", S, "T9", "T5 T12 EX QH", "T12 EX"),
    ("L3", "7S T9", S, "T9", "T5 T8 EX QH", "T5 T8 EX"),
    ("L4", "T10", TRUMP_SUIT, "T10", "T3 T15 KC", "T15"),
    ("L5", "T10 T14", TRUMP_SUIT, "T14", "T3 T11 QD", "T3 T11"),
    ("L6", "EX", NONE, 0, "3D T2 KH", "3D T2 KH"),
    ("L7", "EX 5H", H, 0, "9H T4", "9H"),
    ("L8", "4C", C, 0, "EX KS 2D", "EX KS 2D"),
    ("L9", "T6", TRUMP_SUIT, "T6", "KS 2D", "KS 2D"),
    ("L10", "", NONE, 0, "7S KS 2S T5 T21 EX QH 1C", "7S KS 2S T5 T21 EX QH 1C"),
]


@LEGAL_FNS
@pytest.mark.parametrize("vid, trick, lead_suit, top, hand, expected", LEGALITY_VECTORS, ids=[v[0] for v in LEGALITY_VECTORS])
def test_legal_plays_vectors_of_13_1(legal_fn, vid, trick, lead_suit, top, hand, expected):
    """§6.2 / §13.1 L1–L10: follow suit, else trump, overtrumping when possible (even a
    partner's trump), else anything; the Excuse is always allowed and never a trump; after a
    led Excuse the second card is free and sets the suit."""
    top_trump = strength(top) if isinstance(top, str) else top
    legal = legal_fn(TABLES, hand_mask(hand), np.array([lead_suit]), np.array([top_trump]))
    assert names(legal[0]) == set(cards(expected))


@PLAY_FNS
@pytest.mark.parametrize("vid, trick, lead_suit, top, hand, expected", LEGALITY_VECTORS, ids=[v[0] for v in LEGALITY_VECTORS])
def test_incremental_trick_state_of_the_legality_vectors(play_fn, vid, trick, lead_suit, top, hand, expected):
    """§6.2: the lead suit is the first card that is not the Excuse; the top trump is the
    highest trump in the trick. play_card keeps exactly the state the vectors above feed in."""
    top_trump = strength(top) if isinstance(top, str) else top
    ls, tt, _, _ = trick_state(trick, play_fn)
    assert (ls, tt) == (lead_suit, top_trump)


@pytest.mark.parametrize(
    "trick, winner",
    [
        ("7S KS 2S KH", 1),  # KS; KH is a discard
        ("EX 4D 10D T1", 3),  # the Petit wins, being a trump
        ("5C T2 T21 T8", 2),  # T21
        ("EX 5H 9H KD", 2),  # hearts set by the second card; KD is a discard
        ("4D T3 T2 1D", 1),  # a lower trump played later (undertrump) does not win
    ],
)
@PLAY_FNS
def test_trick_winner_vectors_of_13_1(play_fn, trick, winner):
    """§6.4 / §13.1: the highest trump wins, else the highest card of the suit led; the
    Excuse and discards never win by strength."""
    assert trick_state(trick, play_fn)[3] == winner


# ====================================================================== §13.1 legality through the env

# 4 players, dealer 3: seat 0 speaks first and leads trick 1. Seat 3 holds 16 trumps.
E1_HANDS = [
    "7S 1S 3S 4S 5S 6S T3 T15 KC 1C 2C 3C 4C 5C 6C 7C 8C 9C",
    "KS 2S T5 T11 EX QH 1H 2H 3H 4H 5H 6H 7H 8H 9H 10H JH NH",
    "T9 KH 1D 2D 3D 4D 5D 6D 7D 8D 9D 10D JD ND QD KD 10C JC",
    "NC QC T1 T2 T4 T6 T7 T8 T10 T12 T13 T14 T16 T17 T18 T19 T20 T21",
]
E1_CHIEN = "8S 9S 10S JS NS QS"


def test_env_follow_trump_and_overtrump():
    """§6.2 through the env: L10 (leader free), L1 (follow suit, Excuse allowed), must trump
    when void, L2 (must overtrump), L4 (overtrump a trump lead), L3/L5 (cannot overtrump:
    still a trump), L9 (no trump: anything)."""
    env = new_env()
    start(env, fixed_deal(3, E1_HANDS, E1_CHIEN), taker=0, contract="garde_sans")
    assert legal_cards(env) == set(cards(E1_HANDS[0]))  # L10
    play(env, "7S")
    assert legal_cards(env) == {"KS", "2S", "EX"}  # L1
    with pytest.raises(IllegalActionError):
        env.step("play QH")
    play(env, "2S")
    assert legal_cards(env) == {"T9"}  # void in spades: must trump
    play(env, "T9")
    # seat 3 (asked for his poignée first): void in spades, must beat T9 (L2)
    assert legal_cards(env) == {"T10", "T12", "T13", "T14", "T16", "T17", "T18", "T19", "T20", "T21"}
    play(env, "T12")
    assert winners(env)[0] == 3
    play(env, "T10")  # seat 3 leads a trump
    assert legal_cards(env) == {"T15"}  # L4: T3, T15, KC -> T15
    play(env, "T15")
    assert legal_cards(env) == {"T5", "T11", "EX"}  # L3 / L5: cannot beat T15, must still trump
    play(env, "T5")
    s2_hand = set(cards(E1_HANDS[2])) - {"T9"}
    assert legal_cards(env) == s2_hand  # L9: no trump left, anything


# Dealer 3: seat 0 leads the Excuse to trick 1.
E2_HANDS = [
    "EX 10H JH NH QH 1D 2D 4D 5D 6D 7D 8D 9D 10D JD ND QD KD",
    "5H KH 3D T2 1H 2H 3H 4H 6H 7H 8H T11 T12 T13 T14 T15 T16 T17",
    "9H T4 5C 6C 7C 8C 9C 10C JC NC QC KC T5 T6 T7 T8 T9 T10",
    "1S 2S 3S 4S 5S 6S 7S 8S 9S 10S JS NS QS KS 1C 2C 3C 4C",
]
E2_CHIEN = "T1 T3 T18 T19 T20 T21"


def test_env_excuse_led_second_card_sets_the_suit():
    """§6.2 / §6.3 through the env: L6 (after a led Excuse the next card is free), L7 (that
    card fixes the suit: hearts must be followed), L8 (no suit, no trump: anything)."""
    env = new_env()
    start(env, fixed_deal(3, E2_HANDS, E2_CHIEN), taker=0, contract="garde_sans")
    play(env, "EX")
    assert legal_cards(env) == set(cards(E2_HANDS[1]))  # L6
    play(env, "5H")
    assert legal_cards(env) == {"9H"}  # L7: 9H, not T4
    play(env, "9H")
    assert legal_cards(env) == set(cards(E2_HANDS[3]))  # L8: no heart, no trump


# ====================================================================== deal A1: taker T1 T5..T21
# Dealer 1: seats 2, 3, 0, 1 bid in that order, seat 2 leads trick 1 unless a chelem is announced.
# The taker (seat 0) bids garde and puts the chien (six low spades) back in the écart.
# The defence holds T2, T3, T4 and the Excuse; seat 3 plays the Excuse at once.

A1_HANDS = [
    "T21 T20 T19 T18 T17 T16 T15 T14 T13 T12 T11 T10 T9 T8 T7 T6 T5 T1",
    "T2 7S 8S 9S 10S JS NS QS KS 1H 2H 3H 4H 5H 6H 7H 8H 9H",
    "T3 10H JH NH QH KH 1D 2D 3D 4D 5D 6D 7D 8D 9D 10D JD ND",
    "EX T4 QD KD 1C 2C 3C 4C 5C 6C 7C 8C 9C 10C JC NC QC KC",
]
A1_CHIEN = "1S 2S 3S 4S 5S 6S"
A1_DEAL = fixed_deal(1, A1_HANDS, A1_CHIEN)


def a1(chelem: bool, prefs=A1_HANDS, poignees=None, **rules):
    env = new_env(**rules)
    start(env, A1_DEAL, taker=0, contract="garde", discards=A1_CHIEN, chelem=chelem)
    play_out(env, prefs, poignees=poignees)
    return env


def test_taker_leads_trick_1_after_announcing_a_chelem():
    """§5.1 / §6.1: trick 1 is led by dealer+1, but by the taker if he announced a chelem."""
    env = new_env()
    start(env, A1_DEAL, taker=0, contract="garde", discards=A1_CHIEN, chelem=False)
    assert env.agent_selection == "player_2"
    start(env, A1_DEAL, taker=0, contract="garde", discards=A1_CHIEN, chelem=True)
    assert env.agent_selection == "player_0"  # asked for his poignée, then leads
    answer_poignees(env)
    assert env.agent_selection == "player_0"
    assert int(env.unwrapped.game_state.leader[0]) == 0


def test_v5_announced_chelem_excuse_worth_4_points():
    """§6.3 unpaid debt, §9.1, §13 V5: the defence played its Excuse (trick 1) and won no
    trick, so it never pays the half point back: the Excuse is worth 4 to it and the attack
    has 87. Garde, 2 bouts (21, Petit), poignée 20 (taker), petit au bout to the attack,
    chelem announced and made:
    d = 87 - 41 = 46; S = (25 + 46)*2 + 10*2 + 20 + 400 = 582; taker 3*582 = 1746."""
    env = a1(chelem=True, poignees={0: "poignee simple"})
    assert trick_cards(env, 0) == ["T21", "T2", "T3", "EX"]
    assert winners(env) == [0] * 18
    assert trick_cards(env, 17)[0] == "T1"
    assert pile_of(env, "EX") == 3  # the Excuse went back to its owner's side
    assert int(env.unwrapped.game_state.exchange[0]) == 1  # the debt is booked: +1/2 to the attack
    i = info(env)
    assert i["attack_points"] == 87 and i["attack_bouts"] == 2
    assert i["petit_au_bout"] == 1 and i["chelem"] == "announced_made"
    assert i["unit"] == 582
    assert i["scores"] == [1746, -582, -582, -582]


def test_unpaid_excuse_debt_option_excuse_keeps_value():
    """§15.4, option unpaid_excuse_debt="excuse_keeps_value": the Excuse keeps its 4.5, the
    attack has 86.5; the leftover half point goes to the winner (§9.3): d = ceil(45.5) = 46,
    so S is still (25 + 46)*2 + 20 + 20 + 400 = 582."""
    env = a1(chelem=True, poignees={0: "poignee simple"}, unpaid_excuse_debt="excuse_keeps_value")
    i = info(env)
    assert i["attack_points"] == 86.5
    assert i["unit"] == 582
    assert i["scores"] == [1746, -582, -582, -582]


def test_unannounced_chelem_made():
    """§9.1: a chelem made without announcement is worth +200. Seat 2 leads T3 to trick 1,
    seat 3 plays the Excuse, the taker takes every trick and the Petit last:
    attack 87 (Excuse worth 4), 2 bouts, d = 46; S = (25 + 46)*2 + 10*2 + 200 = 362."""
    env = a1(chelem=False)
    assert trick_cards(env, 0) == ["T3", "EX", "T21", "T2"]
    assert winners(env) == [0] * 18
    i = info(env)
    assert i["attack_points"] == 87 and i["petit_au_bout"] == 1
    assert i["chelem"] == "unannounced_made"
    assert i["unit"] == 362
    assert i["scores"] == [1086, -362, -362, -362]


def test_announced_chelem_failed_and_excuse_exchange():
    """§9.1 failed chelem (-200), §6.3 exchange. The taker announces, then leads the Petit:
    T1 T2 T3 T4 goes to seat 3, who leads the Excuse to trick 2, which the taker wins with
    the 21: the defence gives back a half point (exchange +1 half-point to the attack).
    Attack = 91 - (4.5 + .5 + .5 + .5) - 4.5 (Excuse) + .5 = 81 with 1 bout (21):
    d = 81 - 51 = 30; S = (25 + 30)*2 - 200 = -90: made, but the deal scores negative."""
    taker = "T1 " + " ".join(f"T{k}" for k in range(21, 4, -1))
    seat3 = "T4 EX QD KD 1C 2C 3C 4C 5C 6C 7C 8C 9C 10C JC NC QC KC"
    env = new_env()
    start(env, A1_DEAL, taker=0, contract="garde", discards=A1_CHIEN, chelem=True)
    play_out(env, [taker, A1_HANDS[1], A1_HANDS[2], seat3], tricks=1)
    assert trick_cards(env, 0) == ["T1", "T2", "T3", "T4"] and winners(env)[0] == 3
    assert int(env.unwrapped.game_state.exchange[0]) == 0
    play_out(env, [taker, A1_HANDS[1], A1_HANDS[2], seat3], tricks=2)
    assert trick_cards(env, 1) == ["EX", "T21", "7S", "10H"] and winners(env)[1] == 0
    assert int(env.unwrapped.game_state.exchange[0]) == 1
    assert pile_of(env, "EX") == 3
    play_out(env, [taker, A1_HANDS[1], A1_HANDS[2], seat3])
    i = info(env)
    assert i["attack_points"] == 81 and i["attack_bouts"] == 1 and i["made"]
    assert i["chelem"] == "announced_failed" and i["petit_au_bout"] == 0
    assert i["unit"] == -90
    assert i["scores"] == [-270, 90, 90, 90]


# ====================================================================== deal A2: taker T1 EX T6..T21
# Dealer 1, garde; the taker plays his trumps from the top, the Petit to trick 17 and the
# Excuse to the last trick, where the defenders play 4D, 10D, 1S (§13.1's chelem vector).

A2_HANDS = [
    "T21 T20 T19 T18 T17 T16 T15 T14 T13 T12 T11 T10 T9 T8 T7 T6 T1 EX",
    "T3 T2 1H 2H 3H 4H 5H 6H 7H 8H 9H 10H JH NH QH KH 1D 4D",
    "T4 T5 8S 9S 10S JS 2D 3D 5D 6D 7D 8D 9D JD ND QD KD 10D",
    "NS QS KS 1C 2C 3C 4C 5C 6C 7C 8C 9C 10C JC NC QC KC 1S",
]
A2_CHIEN = "2S 3S 4S 5S 6S 7S"
A2_DEAL = fixed_deal(1, A2_HANDS, A2_CHIEN)


def a2(chelem: bool, **rules):
    env = new_env(**rules)
    start(env, A2_DEAL, taker=0, contract="garde", discards=A2_CHIEN, chelem=chelem)
    play_out(env, A2_HANDS)
    return env


def test_excuse_wins_the_last_trick_of_an_announced_chelem_with_petit_au_bout_shift():
    """§6.3 / §13.1: last trick EX (taker), 4D, 10D, 1S after the attack won the 17 earlier
    tricks: the Excuse wins it. §7: the Petit, in the penultimate trick, counts au bout.
    Attack 91 with 3 bouts: d = 91 - 36 = 55; S = (25 + 55)*2 + 10*2 + 400 = 580."""
    env = a2(chelem=True)
    assert trick_cards(env, 16) == ["T1", "1D", "KD", "KC"]
    assert trick_cards(env, 17) == ["EX", "4D", "10D", "1S"]
    assert winners(env) == [0] * 18
    assert pile_of(env, "EX") == 0
    i = info(env)
    assert i["attack_points"] == 91 and i["attack_bouts"] == 3
    assert i["petit_au_bout"] == 1 and i["chelem"] == "announced_made"
    assert i["unit"] == 580
    assert i["scores"] == [1740, -580, -580, -580]


def test_excuse_wins_the_last_trick_without_announcement():
    """§15.3 default (excuse_chelem_needs_announcement=False): the Excuse wins the last trick
    for a side that won every earlier trick, announced or not: unannounced chelem +200.
    Seat 2 leads T4 to trick 1 (taker T21). S = (25 + 55)*2 + 10*2 + 200 = 380."""
    env = a2(chelem=False)
    assert trick_cards(env, 0) == ["T4", "NS", "T21", "T3"]
    assert trick_cards(env, 17) == ["EX", "4D", "10D", "1S"]
    assert winners(env) == [0] * 18
    i = info(env)
    assert i["petit_au_bout"] == 1 and i["chelem"] == "unannounced_made"
    assert i["unit"] == 380
    assert i["scores"] == [1140, -380, -380, -380]


def test_excuse_chelem_needs_announcement_option():
    """§15.3, option excuse_chelem_needs_announcement=True, no announcement: the Excuse does
    not win the last trick; 10D (seat 2) wins it, the Excuse changes camp to the defence
    (§6.3), there is no chelem and so no petit au bout shift (§7).
    Attack 91 - (4.5 + .5 + .5 + .5) = 85 with 2 bouts: d = 44; S = (25 + 44)*2 = 138."""
    env = a2(chelem=False, excuse_chelem_needs_announcement=True)
    assert trick_cards(env, 17) == ["EX", "4D", "10D", "1S"]
    assert winners(env) == [0] * 17 + [2]
    assert pile_of(env, "EX") == 2
    i = info(env)
    assert i["attack_points"] == 85 and i["attack_bouts"] == 2
    assert i["petit_au_bout"] == 0 and i["chelem"] == "none"
    assert i["unit"] == 138
    assert i["scores"] == [414, -138, -138, -138]
    # announced, the Excuse wins again: the same 580 as the default rules
    env = a2(chelem=True, excuse_chelem_needs_announcement=True)
    assert winners(env) == [0] * 18
    assert info(env)["unit"] == 580


# ====================================================================== deal X: the Excuse changes camp
# Dealer 3, garde sans (chien 1C 2C 4C..7C counts for the taker). The taker wins 16 trump
# tricks, loses trick 17 (3C) to seat 2's KC; trick 18 is §13.1's vector 9D (defender A),
# EX (defender B), 2D (taker), KD (defender C).

X_HANDS = [
    "T21 T20 T19 T18 T17 T16 T15 T14 T13 T12 T11 T10 T9 T8 T7 T6 3C 2D",
    "T2 T1 1S 1H 2H 3H 4H 5H 6H 7H 8H 9H 10H JH NH QH KH KD",
    "T3 T4 2S 3S 4S 5S 6S 7S 8S 9S 10S JS NS QS KS 1D KC 9D",
    "T5 8C 9C 10C JC NC QC 3D 4D 5D 6D 7D 8D 10D JD ND QD EX",
]
X_CHIEN = "1C 2C 4C 5C 6C 7C"


def x_deal(**rules):
    env = new_env(**rules)
    start(env, fixed_deal(3, X_HANDS, X_CHIEN), taker=0, contract="garde_sans")
    play_out(env, X_HANDS)
    return env


def test_excuse_on_the_last_trick_changes_camp():
    """§6.3 / §13.1 / §15.2 default: the Excuse played to the last trick outside a chelem goes
    to the side opposite its player, whoever wins the trick: defender C wins 9D EX 2D KD,
    the Excuse goes to the attack, with no exchange. Attack = 91 - (3C .5 + KH 4.5 + KC 4.5 +
    QD 3.5) - (9D .5 + 2D .5 + KD 4.5) = 72.5 with 3 bouts (21, Petit of trick 2, Excuse):
    won by 36.5 -> d = 37 (§9.3: the half point to the winner); S = (25 + 37)*4 = 248."""
    env = x_deal()
    assert trick_cards(env, 16) == ["3C", "KH", "KC", "QD"] and winners(env)[16] == 2
    assert trick_cards(env, 17) == ["9D", "EX", "2D", "KD"]
    assert winners(env) == [0] * 16 + [2, 1]
    assert pile_of(env, "EX") == 0
    assert int(env.unwrapped.game_state.exchange[0]) == 0
    i = info(env)
    assert i["attack_points"] == 72.5 and i["attack_bouts"] == 3
    assert i["unit"] == 248
    assert i["scores"] == [744, -248, -248, -248]


def test_excuse_on_the_last_trick_goes_to_the_trick_winner_option():
    """§15.2 option excuse_last_trick="trick_winner": the Excuse stays with the defence
    (defender C won the trick). Attack 72.5 - 4.5 = 68 with 2 bouts: d = 27; S = 52*4 = 208."""
    env = x_deal(excuse_last_trick="trick_winner")
    assert winners(env)[17] == 1
    assert pile_of(env, "EX") == 1
    i = info(env)
    assert i["attack_points"] == 68 and i["attack_bouts"] == 2
    assert i["unit"] == 208
    assert i["scores"] == [624, -208, -208, -208]


# ====================================================================== deal P: petit au bout
# Dealer 3, garde sans. Seat 1 holds T1..T9: he sheds T9..T2 under the taker's trumps, then
# follows diamonds and clubs, wins trick 17 with 5C and leads the Petit to the last trick.
# Seat 2 plays the Excuse to trick 3, before the defence has won any trick.

P_TAKER = "T21 T20 T19 T18 T17 T16 T15 T14 KD QD ND JD 10D KC QC NC 2C"
P_HANDS = [
    None,
    "T9 T8 T7 T6 T5 T4 T3 T2 1D 2D 3D 4D 5D 1C 3C 4C 5C T1",
    "T10 T11 EX 1S 2S 3S 4S 5S 6D 6S 7S 8S 9S 10S JS NS QS KS",
    "T12 1H 2H 3H 4H 5H 6H 7H 7D 8D 9D 8H 9H 10H JH NH QH KH",
]


def p_deal(taker_last: str, chien: str, **rules):
    hands = [f"{P_TAKER} {taker_last}", *P_HANDS[1:]]
    env = new_env(**rules)
    start(env, fixed_deal(3, hands, chien), taker=0, contract="garde_sans")
    play_out(env, hands, tricks=3)
    # §6.3: the Excuse's side had won no trick yet; the half point is booked at once
    assert trick_cards(env, 2) == ["T19", "T7", "EX", "2H"] and winners(env)[:3] == [0, 0, 0]
    assert int(env.unwrapped.game_state.exchange[0]) == 1 and pile_of(env, "EX") == 2
    play_out(env, hands)
    assert trick_cards(env, 16) == ["2C", "5C", "QS", "QH"] and winners(env)[16] == 1
    return env


def test_petit_au_bout_defender_petit_overtrumped_by_the_taker():
    """§7: the Petit in the last trick earns the bonus for the side that wins that trick,
    whoever played it: seat 1 leads T1, the taker takes it with T13.
    Attack = 91 - (2C .5 + 5C .5 + QS 3.5 + QH 3.5) - 4.5 (Excuse) + .5 (exchange) = 79 with
    2 bouts: d = 38; S = (25 + 38)*4 + 10*4 = 292."""
    env = p_deal("T13", "6C 7C 8C 9C 10C JC")
    assert trick_cards(env, 17) == ["T1", "KS", "KH", "T13"] and winners(env)[17] == 0
    i = info(env)
    assert i["attack_points"] == 79 and i["attack_bouts"] == 2
    assert i["petit_au_bout"] == 1
    assert i["unit"] == 292
    assert i["scores"] == [876, -292, -292, -292]


def test_petit_au_bout_to_the_defence():
    """§7: the defence wins the last trick with the Petit in it (the taker has no trump
    left): the bonus counts against the attack, which still makes its contract.
    Attack = 91 - 8 (trick 17) - (T1 4.5 + KS 4.5 + KH 4.5 + 6C .5) - 4.5 + .5 = 65, 1 bout:
    d = 14; S = (25 + 14)*4 - 10*4 = 116."""
    env = p_deal("6C", "T13 7C 8C 9C 10C JC")
    assert trick_cards(env, 17) == ["T1", "KS", "KH", "6C"] and winners(env)[17] == 1
    i = info(env)
    assert i["attack_points"] == 65 and i["attack_bouts"] == 1 and i["made"]
    assert i["petit_au_bout"] == -1
    assert i["unit"] == 116
    assert i["scores"] == [348, -116, -116, -116]


def test_exchange_is_kept_when_the_excuse_side_wins_a_trick_later():
    """§15.4: unpaid_excuse_debt only matters when the Excuse's side wins no trick; here the
    defence wins trick 17 and pays, so "excuse_keeps_value" scores as the default (79)."""
    env = p_deal("T13", "6C 7C 8C 9C 10C JC", unpaid_excuse_debt="excuse_keeps_value")
    i = info(env)
    assert i["attack_points"] == 79
    assert i["unit"] == 292


# ====================================================================== deal D0: defence chelem (V10)
# Dealer 3, seat 0 bids garde contre with nothing but low spades and hearts; the chien goes to
# the defence. Seat 2 wins tricks 1-2, seat 1 the rest; seat 2 keeps the Excuse for the end.

D0_HANDS = [
    "1S 2S 3S 4S 5S 6S 7S 8S 9S 1H 2H 3H 4H 5H 6H 7H 8H 9H",
    "T19 T18 T17 T16 T15 T14 T13 T12 T11 T10 T9 T8 T7 T6 T5 T4 T3 T2",
    "T20 T21 T1 1D 2D 3D 4D 5D 6D 7D 8D 9D 10D JD ND QD KD EX",
    "10S JS NS QS KS 10H JH NH QH KH 7C 8C 9C 10C JC NC QC KC",
]
D0_CHIEN = "1C 2C 3C 4C 5C 6C"


def d0(chelem: bool = False, hands=D0_HANDS, **rules):
    env = new_env(**rules)
    start(env, fixed_deal(3, hands, D0_CHIEN), taker=0, contract="garde_contre", chelem=chelem)
    play_out(env, hands)
    return env


def test_v10_defence_chelem():
    """§9.1 / §13 V10: garde contre, attack 0 points and 0 bouts, defence chelem (the
    defence's Excuse wins the last trick, §15.3): d = 56; S = -(25 + 56)*6 - 200 = -686."""
    env = d0()
    assert trick_cards(env, 0) == ["1S", "T19", "T20", "10S"]
    assert trick_cards(env, 17) == ["T2", "EX", "KC", "9H"]
    assert winners(env) == [2, 2] + [1] * 15 + [2]
    i = info(env)
    assert i["attack_points"] == 0 and i["attack_bouts"] == 0
    assert i["chelem"] == "defence"
    assert i["unit"] == -686
    assert i["scores"] == [-2058, 686, 686, 686]


@pytest.mark.parametrize("double, unit", [(True, -886), (False, -686)])
def test_announced_chelem_and_defence_chelem_double_penalty_option(double, unit):
    """§9.1 / §15.5: a chelem announced by the taker while the defence makes one:
    default -200 - 200 -> S = -486 - 400 = -886; double_chelem_penalty=False -> -486 - 200."""
    env = d0(chelem=True, double_chelem_penalty=double)
    assert winners(env)[0] == 2  # the taker led (his 1S) and lost
    i = info(env)
    assert i["chelem"] == "announced_failed_and_defence"
    assert i["unit"] == unit
    assert i["scores"] == [3 * unit, -unit, -unit, -unit]


# Same deal, but the taker holds the Excuse (9H goes to seat 2) and plays it to trick 2.
D2_HANDS = [
    "1S EX 2S 3S 4S 5S 6S 7S 8S 9S 1H 2H 3H 4H 5H 6H 7H 8H",
    D0_HANDS[1],
    "T20 T21 T1 1D 2D 3D 4D 5D 6D 7D 8D 9D 10D JD ND QD KD 9H",
    D0_HANDS[3],
]


@pytest.mark.parametrize("debt, points", [("four_points", 4), ("excuse_keeps_value", 4.5)])
def test_taker_excuse_in_a_defence_chelem(debt, points):
    """§6.3 / §15.4 applied to the attack: the taker's Excuse falls in a trick the defence
    wins (exchange -1/2) and the attack wins no trick: it keeps the Excuse worth 4 (or 4.5
    with excuse_keeps_value), 1 bout: d = ceil(51 - 4) = 47 either way;
    S = -(25 + 47)*6 - 200 = -632."""
    env = d0(hands=D2_HANDS, unpaid_excuse_debt=debt)
    assert trick_cards(env, 1) == ["T21", "JS", "EX", "T18"] and winners(env)[1] == 2
    assert int(env.unwrapped.game_state.exchange[0]) == -1
    assert pile_of(env, "EX") == 0
    assert winners(env).count(0) == 0
    i = info(env)
    assert i["attack_points"] == points and i["attack_bouts"] == 1
    assert i["chelem"] == "defence"
    assert i["unit"] == -632
    assert i["scores"] == [-1896, 632, 632, 632]


# ====================================================================== deal D1: defence chelem, Excuse last
# Dealer 0: seat 1 leads every trick: T21..T6, the Petit (trick 17), the Excuse (trick 18).
# The taker (seat 0, garde contre) keeps KD for the last trick: EX, 2D, KC, KD.

D1_HANDS = [
    "1S 2S 3S 4S 5S 6S 7S 8S 9S 1H 2H 3H 4H 5H 6H 7H 8H KD",
    "T21 T20 T19 T18 T17 T16 T15 T14 T13 T12 T11 T10 T9 T8 T7 T6 T1 EX",
    "T5 T4 T3 T2 1C 2C 3C 4C 5C 6C 7C 8C 9C 10C JC NC QC 2D",
    "8D 9D 10D JD ND QD 10S JS NS QS KS 9H 10H JH NH QH KH KC",
]
D1_CHIEN = "1D 3D 4D 5D 6D 7D"


def d1(**rules):
    env = new_env(**rules)
    start(env, fixed_deal(0, D1_HANDS, D1_CHIEN), taker=0, contract="garde_contre")
    play_out(env, D1_HANDS)
    assert trick_cards(env, 16) == ["T1", "QC", "KH", "8H"]
    assert trick_cards(env, 17) == ["EX", "2D", "KC", "KD"]
    return env


def test_defence_excuse_wins_last_trick_and_petit_au_bout_shift():
    """§6.3 / §15.3 (the Excuse rule applies to the defence) and §7 / §15.12 (chelem shift in
    a defence chelem): the Excuse wins the last trick for the defence, the Petit in trick 17
    is au bout for the defence: S = -(25 + 56)*6 - 10*6 - 200 = -746."""
    env = d1()
    assert winners(env) == [1] * 18
    assert pile_of(env, "EX") == 1
    i = info(env)
    assert i["attack_points"] == 0
    assert i["petit_au_bout"] == -1 and i["chelem"] == "defence"
    assert i["unit"] == -746
    assert i["scores"] == [-2238, 746, 746, 746]


def test_petit_au_bout_defence_chelem_shift_option():
    """§15.12, petit_au_bout_defence_chelem_shift=False: no petit au bout for the defence's
    chelem: S = -(25 + 56)*6 - 200 = -686."""
    env = d1(petit_au_bout_defence_chelem_shift=False)
    i = info(env)
    assert i["petit_au_bout"] == 0 and i["chelem"] == "defence"
    assert i["unit"] == -686


def test_excuse_chelem_defence_option():
    """§15.3, excuse_chelem_defence=False: the defence's Excuse does not win the last trick;
    the taker's KD wins it (2D set diamonds) and the Excuse changes camp to him (§6.3). No
    chelem, no petit au bout. Attack = EX 4.5 + 2D .5 + KC 4.5 + KD 4.5 = 14 with 1 bout:
    d = 51 - 14 = 37; S = -(25 + 37)*6 = -372."""
    env = d1(excuse_chelem_defence=False)
    assert winners(env) == [1] * 17 + [0]
    assert pile_of(env, "EX") == 0
    i = info(env)
    assert i["attack_points"] == 14 and i["attack_bouts"] == 1
    assert i["petit_au_bout"] == 0 and i["chelem"] == "none"
    assert i["unit"] == -372
    assert i["scores"] == [-1116, 372, 372, 372]


# ====================================================================== 5 players (§10)
# Dealer 4: seat 0 speaks first and leads. Seat 1 takes garde sans (chien 10H JH NH, unseen,
# counts for him). Seat 0 holds KH and 3H with thirteen spades; seat 3 holds KS.

F_HANDS = [
    "KH 1S 2S 3S 4S 5S 6S 7S 8S 9S 10S JS NS QS 3H",
    "1H T21 T20 T19 T18 T17 T16 T15 T14 T13 T12 T11 T10 T9 2H",
    "4H EX T3 T2 T1 1D 2D 3D 4D 5D 6D 7D 8D 9D QH",
    "5H KS T6 T5 T4 10D JD ND QD KD 1C 2C 3C 4C 5C",
    "6H T8 T7 7H 8H 9H 6C 7C 8C 9C 10C JC NC QC KC",
]
F_CHIEN = "10H JH NH"


def f_env(called: str, dealer: int = 4, **rules):
    env = new_env(5, **rules)
    start(env, fixed_deal(dealer, F_HANDS, F_CHIEN), taker=1, contract="garde_sans", call=called)
    return env


def test_5p_opening_lead_not_in_the_called_suit():
    """§6.1 / §10: trick 1 may not be led in the called card's suit (KS called: seat 0 may
    not lead any of his thirteen spades)."""
    env = f_env("KS")
    assert int(env.unwrapped.game_state.partner[0]) == 3
    assert legal_cards(env) == {"KH", "3H"}
    with pytest.raises(IllegalActionError):
        env.step("play 1S")


def test_5p_opening_lead_with_the_called_card_itself():
    """§10: the called card itself may open trick 1 (KH called, seat 0 holds it: KH and the
    spades are allowed, not 3H)."""
    env = f_env("KH")
    assert legal_cards(env) == set(cards(F_HANDS[0])) - {"3H"}


def test_5p_partner_revealed_when_the_called_card_is_played():
    """§10: the partner is secret until the called card is played."""
    env = f_env("KH")
    s = env.unwrapped.game_state
    assert int(s.partner[0]) == 0 and not s.partner_known[0]
    play(env, "KH")
    assert s.partner_known[0]


@pytest.mark.parametrize(
    "option, seat3",
    [
        ("next_player", set(cards(F_HANDS[3])) - {"5H"}),
        ("lapses", set(cards(F_HANDS[3]))),
    ],
)
def test_5p_excuse_opening_lead(option, seat3):
    """§10 / §15.8: seat 2 leads the Excuse to trick 1; by default the called-suit restriction
    passes to the next player (seat 3 may not play 5H); with "lapses" he may."""
    env = f_env("KH", dealer=1, excuse_opening_lead=option)
    assert env.agent_selection == "player_2"
    assert legal_cards(env) == set(cards(F_HANDS[2])) - {"4H", "QH"}
    play(env, "EX")
    assert legal_cards(env) == seat3


@pytest.mark.parametrize(
    "option, with_excuse, expected",
    [
        ("lead_anything", False, "1S 2S 3S 4S 5S 6S 7S 8S 9S 10S JS NS QS"),
        ("lead_anything", True, "1S 2S 3S 4S 5S 6S 7S 8S 9S 10S JS NS QS EX"),
        ("excuse_if_held", True, "EX"),
        ("excuse_if_held", False, "1S 2S 3S 4S 5S 6S 7S 8S 9S 10S JS NS QS"),
    ],
)
def test_5p_leader_with_only_called_suit_cards(option, with_excuse, expected):
    """§15.11: an opening leader holding nothing but cards of the called suit (and perhaps
    the Excuse) may lead anything, or with called_suit_only_hand="excuse_if_held" must lead
    the Excuse if he holds it. With 15 cards such a hand cannot be dealt (13 cards of the
    suit besides the called one, plus the Excuse, make 14), so the rules layer is checked on
    an edited state: seat 0 keeps only his thirteen spades (KS called)."""
    env = f_env("KS", called_suit_only_hand=option)
    s, game = env.unwrapped.game_state, env.unwrapped.game
    s.hands[0, 0, [card("KH"), card("3H")]] = False
    if with_excuse:
        s.hands[0, 2, EXCUSE] = False
        s.hands[0, 0, EXCUSE] = True
    mask = game.legal_action_mask(s, np.zeros(1, dtype=np.int64))[0]
    assert names(mask[A.PLAY : A.PLAY + NUM_CARDS]) == set(cards(expected))


def test_5p_partner_tricks_count_for_the_attack():
    """§10 / §9.2: the partner's tricks count for the attack; taker 2S, partner S, defenders
    -S. Seat 0 wins trick 1 with the called KH; the taker wins tricks 2-14 (the Excuse of
    seat 2 falls in trick 2: exchange +1/2); seat 2 wins trick 15 (2H QH 5C KC 3H).
    Attack = 91 - (.5 + 3.5 + .5 + 4.5 + .5) - 4.5 + .5 = 77.5 with 2 bouts (21, Petit of
    trick 5): won by 36.5 -> d = 37 (§9.3); S = (25 + 37)*4 = 248."""
    env = f_env("KH")
    play_out(env, F_HANDS)
    assert trick_cards(env, 0) == ["KH", "1H", "4H", "5H", "6H"]
    assert trick_cards(env, 1) == ["1S", "T21", "EX", "KS", "T8"]
    assert trick_cards(env, 14) == ["2H", "QH", "5C", "KC", "3H"]
    assert winners(env) == [0] + [1] * 13 + [2]
    assert pile_of(env, "KH") == 0 and pile_of(env, "T1") == 1
    i = info(env)
    assert i["partner"] == 0
    assert i["attack_points"] == 77.5 and i["attack_bouts"] == 2
    assert i["chelem"] == "none" and i["petit_au_bout"] == 0
    assert i["unit"] == 248
    assert i["scores"] == [248, 496, -248, -248, -248]
