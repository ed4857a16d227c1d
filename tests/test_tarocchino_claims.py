"""Tarocchino claims through the envs (§8.4, §11, §12, §13, U8, U15, U21, U23, U24, U27, U29): when a
claim window opens, in which order, and with what value (the running total plus the declaration the
rules let the claimant use: the dealer's first 15 cards before his pickup, the Primo's declaration
for his partner, Millone's first-deal cards only, Quindici's rounding), `wrong_claim="loses"`, and a
claim winning the game for the claimant's side. A property test checks, over random deals and totals,
that a claim is offered exactly when it reaches the target. The fixed deals have their numbers worked
by hand in the comments.

Conventions of the fixed deals: seats are in play order, the Primo di Mano is dealer + 1, the
dealer's last 2 cards are the last 2 of his list (``helpers_tarocchino.make_deal``).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_tarocchino import (
    ALL_CARDS,
    S0,
    S2_12B,
    S3_0,
    Driver,
    binary,
    cards,
    cento_deal,
    field,
    hand_of,
    info,
    kind,
    legal,
    make_deal,
    match_env,
    new_env,
    obs_totals,
    seat,
    tv9_env,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tarot_env.rules.bolognese.combinations import combination_points
from tarot_env.rules.bolognese.state import DEALER, HAND_NO, PL_EXTRA, PLACE, TOTAL, TRICK_NO

# ====================================================================== fixed deals
# ---- Millone, dealer 0, opponent 1 -----------------------------------------------------------
# opponent's 20 first-deal cards: Re KS KB KC -> 17, nothing else (no Ace, no contatore, no Grande)
MIL1 = "KS KB KC 6S 7S 8S 9S 10S 6B 7B 8B 9B 10B 6C 7C 8C 9C 10C T5 T6"
# dealer's 22: first 20 hold QS QB (2 Regine), AS AB (2 Aces, no contatore), no Angelo: 0;
# his last 2 are QC LUN: with them Regine QS QB QC -> 14
MIL0 = "QS QB 6D 7D 8D 9D 10D T7 T8 T9 T10 T11 T12 T13 T14 T15 T16 AS AB SOL QC LUN"
# the second deal, 10 each: the dealer gets QD (Regine 4 -> 28 in hand, but QD may not serve a
# claim, §11.6) and cards that make nothing (JS JB, NS NB, AC AD, M1 M2 without contatore, MON alone)
MIL_SECOND_1 = "KD JC NC JD ND BEG M3 M4 ANG MAT"
MIL_SECOND_0 = "QD JS NB AC AD M1 M2 NS JB MON"
MIL_DISCARDS = {1: "6S 7S 8S 9S 10S 6B 7B 8B 9B 10B", 0: "6D 7D 8D 9D 10D AS AB T7 T8 T9 T10 T11"}


def millone_deal() -> dict:
    o, d = cards(MIL_SECOND_1), cards(MIL_SECOND_0)
    rest = " ".join(o[:5] + d[:5] + o[5:] + d[5:])  # 5 at a time, the opponent first (U22)
    return make_deal("millone", 0, {0: MIL0, 1: MIL1}, rest=rest)


@pytest.mark.parametrize(("total", "window"), [(730, True), (720, True), (719, False), (700, False)])
def test_tv9_primo_claims_when_total_plus_declaration_reaches_800(total, window):
    """TV9, §8.4 step 2: the Primo's declaration is 80; at 730 (810), and at 720 (exactly 800)
    he may claim at his first turn; at 719 (799) or 700 (780) no window opens (wrong_claim
    "refused": a claim below the target is never offered)."""
    env = tv9_env(totals=[0, total, 0, total])
    d = Driver(env, claim=(1,), declare=(1,)).run(until=lambda e: seat(e) == 1)
    assert [k for _, k, _ in d.log] == ["discard", "discard"]  # no window for the dealer (0 + 10)
    if not window:
        assert legal(env) == ["declare", "no_declare"]
        return
    assert legal(env) == ["claim", "no_claim"]
    assert binary(field(env, 1, "claim_value")) == total + 80
    assert not field(env, 0, "claim_value").any() and not field(env, 0, "decision").any()  # private
    env.step("claim")
    assert env.game_over
    i = info(env)
    assert (i["result"], i["claimer"], i["claim_value"], i["game_winner"]) == ("claimed", 1, total + 80, 1)


def test_tv9_at_700_the_primo_partner_adds_his_declaration_to_the_primo():
    """TV9 at 700, §8.4 step 4: the Primo (780) may not claim; he declares 80; the dealer's
    partner (side at 0) has no window; the Primo's partner claims with 700 + 80 + his own 27 = 807."""
    env = tv9_env(totals=[0, 700, 0, 700])
    d = Driver(env, declare=(1,), claim=(3,)).run()
    assert d.claim_values == [(3, 807)]
    assert [(s, k) for s, k, _ in d.log if s in (1, 2, 3)] == [(1, "declare"), (1, "play"), (2, "declare"), (2, "play"), (3, "claim")]
    i = info(env)
    assert (i["result"], i["claimer"], i["claim_value"], i["game_winner"]) == ("claimed", 3, 807, 1)


def test_primo_partner_adds_only_what_the_primo_declared():
    """§8.4 step 4: without the Primo's declaration his partner has only 700 + 27 = 727: no window."""
    env = tv9_env(totals=[0, 700, 0, 700])
    d = Driver(env, claim=(0, 1, 2, 3)).run()
    assert d.claim_values == []
    assert info(env)["result"] == "played"


@pytest.mark.parametrize(("needs_own", "window"), [(False, True), (True, False)])
def test_u23_partner_with_no_declaration_of_his_own(needs_own, window):
    """U23: the Primo's partner (own declaration 0) adds the Primo's 80 to 720 -> 800 by default;
    with `partner_needs_own_declaration=True` he may not (and, worth 0, is not asked to declare)."""
    env = tv9_env(totals=[0, 720, 0, 720], s2=S2_12B, s3=S3_0, partner_needs_own_declaration=needs_own)
    d = Driver(env, declare=(1,)).run(until=lambda e: e.game_state.ints[0, TRICK_NO] == 1)  # the first trick is over
    assert d.claim_values == ([(1, 800), (3, 800)] if window else [(1, 800)])
    assert (3, "declare", "no_declare") not in d.log and (3, "declare", "declare") not in d.log


def test_declarations_off_claims_use_the_total_alone():
    """§8.4 with `declarations=False` (the library's documented choice: a hand then declares
    nothing, so it has no declaration to claim with): TV9 at 730 opens no window anywhere."""
    env = tv9_env(totals=[790, 730, 790, 730], declarations=False)
    d = Driver(env).run()
    assert d.claim_values == [] and info(env)["result"] == "played"


def test_dealer_window_before_pickup_uses_his_first_15_cards():
    """§8.4 step 1: the dealer looks at his first 15 cards only (Mori M1 M2 + BEG = 10): at 790 he
    may claim 800 before picking up; a claim then wins at once."""
    env = tv9_env(totals=[790, 0, 790, 0])
    assert seat(env) == 0 and legal(env) == ["claim", "no_claim"]
    assert binary(field(env, 0, "claim_value")) == 800
    assert hand_of(env, 0) == set(cards(S0)[:15])  # M3 M4 still face down
    assert int(field(env, 0, "hand").sum()) == 15
    env.step("claim")
    i = info(env)
    assert (i["result"], i["claimer"], i["claim_value"], i["game_winner"]) == ("claimed", 0, 800, 0)


def test_dealer_last_two_cards_do_not_count_before_pickup():
    """§8.4 step 1: at 785 his first 15 give 795 (no window), although all 17 would give 805;
    he picks up, so his hand has 17 cards at his discard."""
    env = tv9_env(totals=[785, 0, 785, 0])
    assert seat(env) == 0 and kind(legal(env)) == "discard"
    assert hand_of(env, 0) == set(cards(S0)) and int(field(env, 0, "hand").sum()) == 17
    assert not (env.game_state.cards[0, PLACE] == PL_EXTRA).any()


def test_order_of_the_claim_windows():
    """§8.4 order: dealer before pickup (790 + 10), Primo (730 + 80), dealer's partner (790 + 12),
    Primo's partner (730 + 27 + the Primo's 80), dealer at his first turn with his own only
    (790 + 20 = 810, not + his partner's 12, §8.4 step 5, U8). His claim wins for side 0."""
    env = tv9_env(totals=[790, 730, 790, 730])
    d = Driver(env, declare=(0, 1, 2, 3), discards={0: "T5 T6"})
    d.run(until=lambda e: kind(legal(e)) == "claim" and len(d.claim_values) == 4)
    assert d.claim_values == [(0, 800), (1, 810), (2, 802), (3, 837)]
    assert [k for s, k, _ in d.log if s == 0] == ["claim", "discard", "discard"]
    assert seat(env) == 0 and binary(field(env, 0, "claim_value")) == 810
    env.step("claim")
    i = info(env)
    assert (i["result"], i["claimer"], i["claim_value"], i["game_winner"]) == ("claimed", 0, 810, 0)


def test_u8_dealer_does_not_claim_after_pickup():
    """U8 `dealer_claims_after_pickup=False`: the dealer keeps his window before pickup but has
    none at his first turn."""
    env = tv9_env(totals=[790, 730, 790, 730], dealer_claims_after_pickup=False)
    d = Driver(env, declare=(0, 1, 2, 3), discards={0: "T5 T6"}).run()
    assert d.claim_values == [(0, 800), (1, 810), (2, 802), (3, 837)]
    assert info(env)["result"] == "played"


def test_wrong_claim_loses_offers_a_claim_below_target_and_loses():
    """§8.4, `wrong_claim="loses"`: windows open below the target; the dealer's claim at 0 + 10
    loses the game: the other side wins."""
    env = tv9_env(wrong_claim="loses", reward="win_loss")
    assert seat(env) == 0 and legal(env) == ["claim", "no_claim"]
    assert binary(field(env, 0, "claim_value")) == 10
    env.step("claim")
    i = info(env)
    assert (i["result"], i["claimer"], i["game_winner"]) == ("wrong_claim", 0, 1)
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0, "player_2": -1.0, "player_3": 1.0}


def test_wrong_claim_loses_opens_every_window():
    """`wrong_claim="loses"`: every claim opportunity of §8.4 opens, with the values the rule
    gives: dealer first 15 (10), Primo 80, dealer's partner 12, Primo's partner 27 + 80, dealer 20."""
    env = tv9_env(wrong_claim="loses")
    d = Driver(env, declare=(0, 1, 2, 3), discards={0: "T5 T6"}).run()
    assert d.claim_values == [(0, 10), (1, 80), (2, 12), (3, 107), (0, 20)]
    assert info(env)["result"] == "played"


def _usable_value(env, pickup: bool, primo_declared: int, rounded: bool) -> int:
    """The claim value the rules allow now (§8.4, §12.3, §13 with their defaults), computed from
    the hands: the dealer's first 15 cards before his pickup; else the player's own hand, plus
    the Primo's declared value for the Primo's partner (Ottocento); Quindici adds q(declaration)."""
    st_ = env.game_state
    d = int(st_.ints[0, DEALER])
    p = seat(env)
    mask = np.zeros(62, dtype=bool)
    if pickup:
        dealt = env.game.format_deal(*env.deals.dealt[0][-1])["hands"][d][:15]  # his last 2 are at the end
        mask[[ALL_CARDS.index(c) for c in dealt]] = True
    else:
        mask[st_.hand(0, p)] = True
    own = int(combination_points(mask))
    if not pickup and env.num_players == 4 and p == (d + 3) % 4:
        own += primo_declared
    if rounded:
        own = (own + 5) // 10
    return int(st_.seat_ints[0, p, TOTAL]) + own


CLAIM_GAMES = {"ottocento_v0": (800, 720), "centocinquanta_v0": (150, 90), "quindici_v0": (15, 10)}  # target, lowest total drawn


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env_id=st.sampled_from(sorted(CLAIM_GAMES)), seed=st.integers(0, 2**31 - 1), a=st.floats(0, 1), b=st.floats(0, 1))
def test_claim_offered_exactly_when_it_reaches_the_target(env_id, seed, a, b):
    """Property (§8.4, §12.3, §13, default `wrong_claim="refused"`, U8, U21, U23, U24): over random
    deals and running totals, whenever `claim` is legal the claimant's total + usable declaration
    is >= the target (and his observation shows that value); at every opportunity where the
    value reaches the target the window opens; a claim wins for the claimant's side."""
    target, low = CLAIM_GAMES[env_id]
    ta, tb = (low + int(x * (target - 1 - low)) for x in (a, b))
    env = new_env(env_id, seed=seed, totals=[ta, tb, ta, tb] if env_id == "ottocento_v0" else [ta, tb])
    n = env.num_players
    rng = np.random.default_rng(seed)
    seen: set[int] = set()
    primo_declared = 0
    d = int(env.game_state.ints[0, DEALER])
    first = True
    windows = 0
    while not env.game_over:
        acts = legal(env)
        p = seat(env)
        k = kind(acts)
        if first or (k in ("claim", "declare", "play") and p not in seen):  # an opportunity
            value = _usable_value(env, first, primo_declared, env_id == "quindici_v0")
            assert (k == "claim") == (value >= target), (p, value, acts)
            if k == "claim":
                windows += 1
                assert binary(field(env, p, "claim_value")) == value
            if not first:
                seen.add(p)
        else:
            assert k != "claim"
        first = False
        a_ = acts[int(rng.integers(len(acts)))]
        if k == "declare" and p == (d + 1) % n:
            mask = np.zeros(62, dtype=bool)
            mask[env.game_state.hand(0, p)] = True
            primo_declared = int(combination_points(mask)) if a_ == "declare" else 0
        env.step(a_)
        if a_ == "claim":
            i = info(env)
            assert i["result"] == "claimed" and i["game_winner"] == p % 2
    assert windows <= (5 if n == 4 else 3)


@pytest.mark.parametrize(("total", "window"), [(983, True), (982, False)])
def test_millone_opponent_window_right_after_the_pickup(total, window):
    """§11.3: once the dealer has picked up (22 cards), the opponent may claim with his 20 cards
    (Re KS KB KC = 17): 983 + 17 = 1000 opens the window, 982 does not. U29: having said
    no_claim, he has a second window at his first turn, with the first-deal cards he still holds
    (the Kings cannot be discarded: 17 again)."""
    env = new_env("millone_v0", millone_deal(), totals=[0, total])
    if window:
        assert seat(env) == 1 and legal(env) == ["claim", "no_claim"]
        assert binary(field(env, 1, "claim_value")) == 1000
        assert len(hand_of(env, 0)) == 22 and len(hand_of(env, 1)) == 20  # after the pickup, before any discard
    d = Driver(env, discards=MIL_DISCARDS).run()
    assert d.claim_values == ([(1, 1000), (1, 1000)] if window else [])
    first_discard = next(s for s, k, _ in d.log if k == "discard")
    assert first_discard == 1  # the opponent discards first (U22)


def test_millone_second_deal_goes_five_at_a_time_from_the_opponent():
    """§11.5, U22: after the first discards (10 each) the 20 cards are dealt 5 at a time,
    the opponent first: each gets 10; the dealer (22) then discards 2 more."""
    env = new_env("millone_v0", millone_deal())
    d = Driver(env, discards=MIL_DISCARDS)
    d.run(until=lambda e: len(d.decisions("discard")) == 20)
    assert seat(env) == 0 and kind(legal(env)) == "discard"
    assert hand_of(env, 0) == set(cards("QS QB QC T10 T11 T12 T13 T14 T15 T16 SOL LUN") + cards(MIL_SECOND_0))
    assert hand_of(env, 1) == set(cards("KS KB KC 6C 7C 8C 9C 10C T5 T6") + cards(MIL_SECOND_1))


@pytest.mark.parametrize(("total", "window"), [(986, True), (985, False)])
def test_millone_claims_use_only_first_deal_cards(total, window):
    """§11.6: the dealer's first 20 cards are worth 0 (no window before pickup at 986); at his
    first turn his hand holds Regine QS QB QC QD = 28, but QD came in the second deal, so his
    claim uses QS QB QC = 14: 986 + 14 = 1000 opens the window, 985 does not. His declaration
    is still worth 28 and counts in the hand (§11.6)."""
    env = new_env("millone_v0", millone_deal(), totals=[total, 0])
    d = Driver(env, discards=MIL_DISCARDS, declare=(0,))
    d.run(until=lambda e: seat(e) == 0 and kind(legal(e)) in ("claim", "declare"))
    assert d.claim_values == []
    if window:
        assert legal(env) == ["claim", "no_claim"] and binary(field(env, 0, "claim_value")) == 1000
        env.step("no_claim")
    assert legal(env) == ["declare", "no_declare"]
    assert binary(field(env, 0, "my_declaration")) == 28
    d.run()
    assert info(env)["points"]["declarations"] == [28, 0]
    assert d.claim_values == []  # no other window: the opponent, at 0 + 17, is far from 1000


def test_millone_dealer_first_turn_claim_credits_the_whole_declaration():
    """U29 with U27: a claim at a player's first turn is made with the declaration he makes
    there; only its first-deal cards count toward the target (§11.6), and the hand's score
    credits the whole of it. The opponent leads and declares 162 (tests/test_tarocchino_decisions.py
    works it out); the dealer then claims at 986 with Regine QS QB QC (14: QD came in the second
    deal) and his hand scores his whole 28, not the first-deal 14 (which would give [14, 162]).
    (The opponent's first-turn claim: test_u29_the_opponent_claims_at_his_first_turn.)"""
    env = new_env("millone_v0", millone_deal(), totals=[986, 0])
    d = Driver(env, discards=MIL_DISCARDS, declare=(0, 1), claim=(0,))
    d.run()
    assert d.claim_values == [(0, 1000)] and d.log[-1] == (0, "claim", "claim")
    i = info(env)
    assert (i["result"], i["claimer"], i["claim_value"], i["game_winner"]) == ("claimed", 0, 1000, 0)
    assert i["scores"] == [28, 162]


@pytest.mark.parametrize("early", [False, True])
def test_centocinquanta_opponent_claim_timing(early):
    """U21: the opponent's window comes at his first turn (default: after the dealer's discard),
    or with `opponent_claim="before_discard"` right after the dealer picks up. Opponent at 80 with
    the Grande to T6 (70): 150."""
    env = new_env("centocinquanta_v0", cento_deal(), totals=[0, 80], opponent_claim="before_discard" if early else "first_turn")
    d = Driver(env, discards={0: "6C 7C"}, declare=(1,)).run(until=lambda e: seat(e) == 1 and kind(legal(e)) == "play")
    if early:
        assert [(s, k) for s, k, _ in d.log] == [(1, "claim"), (0, "discard"), (0, "discard"), (1, "declare")]
    else:
        assert [(s, k) for s, k, _ in d.log] == [(0, "discard"), (0, "discard"), (1, "claim"), (1, "declare")]
    assert d.claim_values == [(1, 150)]


def test_centocinquanta_dealer_window_before_pickup():
    """§12.3: the dealer claims with his first 15 cards (Spade K Q N + MAT = 15): 135 + 15 = 150."""
    env = new_env("centocinquanta_v0", cento_deal(), totals=[135, 0])
    assert seat(env) == 0 and legal(env) == ["claim", "no_claim"]
    assert binary(field(env, 0, "claim_value")) == 150
    env.step("claim")
    assert (info(env)["result"], info(env)["game_winner"]) == ("claimed", 0)


@pytest.mark.parametrize(("totals", "who", "window"), [([0, 8], 1, True), ([0, 7], 1, False), ([13, 0], 0, True), ([12, 0], 0, False)])
def test_quindici_claim_adds_the_rounded_declaration(totals, who, window):
    """§13, U15, U24 (default): claim when total + q(declaration) >= 15, q(p) = floor((p + 5)/10).
    Opponent: q(70) = 7, so 8 + 7 = 15 opens, 7 + 7 = 14 does not; dealer's first 15: q(15) = 2,
    so 13 + 2 = 15 opens, 12 + 2 does not."""
    env = new_env("quindici_v0", cento_deal(), totals=totals)
    d = Driver(env, discards={0: "6C 7C"}).run(until=lambda e: seat(e) == 1 and kind(legal(e)) == "play")
    assert d.claim_values == ([(who, 15)] if window else [])


def test_quindici_raw_sum_counts_the_running_totals_given_at_reset():
    """U24 `claim_rounding="raw_sum"` with running totals set by the `totals` reset option: the
    opponent stands at 14 (of 15) and holds the Grande (70). A rounded total of 14 means at least
    135 raw points (q(p) = 14 needs p >= 135), so q(raw + 70) >= q(205) = 20 >= 15: whatever raw
    points the 14 stands for, his claim reaches the target and the window must open (it does
    with the default rounding: 14 + q(70) = 21)."""
    for rounding in ("declaration", "raw_sum"):
        env = new_env("quindici_v0", cento_deal(), totals=[0, 14], claim_rounding=rounding)
        d = Driver(env, discards={0: "6C 7C"}).run(until=lambda e: seat(e) == 1 and kind(legal(e)) == "play")
        assert [s for s, _ in d.claim_values] == [1], rounding


# hand 2 of the Quindici match below: dealer 1, whose first 15 cards hold Regine QS QB QC (14) and
# nothing else; the opponent (seat 0) holds 2 Aces, 2 Fanti, 2 Cavalli: nothing
Q2_DEALER = "QS QB QC 6S 7S 8S 9S 10S 6B 7B 8B 9B 10B 6D 7D 8D 9D"
Q2_OPP = "AC 6C 7C 8C 9C 10C AD 10D JS JB NC ND T5 T6 T7"


@pytest.mark.parametrize(("rounding", "window"), [("declaration", False), ("raw_sum", True)])
def test_quindici_claim_rounding_raw_sum(rounding, window):
    """U24: hand 1 (the Centocinquanta cappotto of tests/test_tarocchino_outcomes.py, both
    declaring) scores raw 15 and 221, rounded 2 and 22. In hand 2 (target 24) the dealer (seat 1)
    holds Regine = 14 in his first 15 cards: default 22 + q(14) = 23 < 24, no window;
    `claim_rounding="raw_sum"`: q(221 + 14) = q(235) = 24."""
    env = match_env("quindici_v0", [cento_deal(), make_deal("quindici", 1, {1: Q2_DEALER, 0: Q2_OPP})], target=24, claim_rounding=rounding)
    d = Driver(env, declare=(0, 1), discards={0: "6C 7C"}).run(until=lambda e: int(e.game_state.ints[0, HAND_NO]) == 1)
    assert env.hands_played() == [[2, 22]]
    assert info(env)["points"]["total"] == [15, 221] and info(env)["raw"] == [15, 221]
    assert obs_totals(env, 0) == [2, 22] and obs_totals(env, 1) == [2, 22]
    assert seat(env) == 1
    if not window:
        assert kind(legal(env)) == "discard"
        return
    assert legal(env) == ["claim", "no_claim"] and binary(field(env, 1, "claim_value")) == 24
    env.step("claim")
    assert env.game_over and info(env)["game_winner"] == 1 and info(env)["match_over"]
    assert d.claim_values == []  # no window in hand 1 (q(15), q(70) are far from 24)
