"""French Tarot before the play: the deal, petit sec, bidding, the 5-player call, chien and
écart, the chelem announcement and the poignée (rules/french_tarot.md §2–§5, §10, §15).

Every expected score below is worked out by hand from §9.1: ``S = sgn*(25+d)*m + pab*10*m
+ sgn*H + C``; the taker gets ``(N-1)*S`` (alone in a 5-player game ``4S``), each defender ``-S``.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_setup import (
    ALL_CARDS,
    act,
    card_set,
    cards,
    field,
    hand,
    highest_first,
    legal,
    make_deal,
    new_env,
    phase,
    play_out,
    seat,
    start,
)

from tarot_env import IllegalActionError
from tarot_env.cards.french import card
from tarot_env.rules.french.config import FrenchTarotConfig
from tarot_env.rules.french.deal import deal_destinations, deal_packs
from tarot_env.rules.french.game import FrenchTarotGame
from tarot_env.rules.french.state import Result

BIDS = {"pass", "bid petite", "bid garde", "bid garde_sans", "bid garde_contre"}


def ids(text: str) -> set[int]:
    return {card(c) for c in cards(text)}


def names(text: str) -> set[str]:
    return set(cards(text))


def suit_cards(k: int, avoid: str = "") -> str:
    """The first ``k`` suit cards in id order that are not kings (nor in ``avoid``)."""
    skip = names(avoid)
    pool = [c for c in ALL_CARDS[:56] if not c.startswith("K") and c not in skip]
    return " ".join(pool[:k])


def policy_for(player: int):
    """``player`` leads his highest card each time (used for a player holding only high trumps,
    kings and queens); everyone else plays the default of :func:`play_out`."""

    def policy(env):
        if seat(env) == player and phase(env) == "play":
            return highest_first(env)
        return None

    return policy


# ====================================================================== §2 the deal


@pytest.mark.parametrize(("n", "packet", "hand_size", "chien_size"), [(3, 4, 24, 6), (4, 3, 18, 6), (5, 3, 15, 3)])
def test_deal_packets_hand_and_chien_sizes(n, packet, hand_size, chien_size):
    """§2 table: 3 players are dealt 4 by 4 (24 cards, chien 6), 4 players 3 by 3 (18, chien 6),
    5 players 3 by 3 (15, chien 3); the packets go round the table in seat order."""
    config = FrenchTarotConfig(num_players=n)
    dest = deal_destinations(config)
    assert len(dest) == 78
    assert [int(np.count_nonzero(dest == k)) for k in range(n + 1)] == [hand_size] * n + [chien_size]
    to_hands = dest[dest < n]
    expected = [(i // packet) % n for i in range(n * hand_size)]  # packet after packet, seat after seat
    assert to_hands.tolist() == expected


@pytest.mark.parametrize(
    ("n", "chien_positions"),
    [(3, [8, 21, 34, 47, 60, 73]), (4, [6, 19, 32, 45, 58, 71]), (5, [15, 37, 59])],
)
def test_default_chien_pattern_never_first_or_last_card(n, chien_positions):
    """§2: one chien card after packets #2, 5, 8, 11, 14, 17 (3 players, packets of 4),
    #2, 6, 10, 14, 18, 22 (4 players), #5, 12, 19 (5 players); the card after packet k with j chien
    cards before it is pack position packet*k + j. The first and last cards never go to the chien."""
    dest = deal_destinations(FrenchTarotConfig(num_players=n))
    assert np.flatnonzero(dest == n).tolist() == chien_positions
    assert dest[0] != n and dest[-1] != n


def test_dealing_starts_at_the_dealers_right_four_players():
    """§2: dealing starts with dealer+1 and goes in seat order. Pack = card ids 0..77 in order,
    dealer 3: seat 0 gets packet 1 (1S 2S 3S) and packet 5 (KS 1H 2H), seat 1 packet 2 (4S 5S 6S),
    the 7th card (7S) goes to the chien, seat 2 packet 3 (8S 9S 10S), the dealer packet 4
    (JS NS QS) and the last packet (T20 T21 EX)."""
    config = FrenchTarotConfig(num_players=4)
    hands, chien = deal_packs(config, np.array([3]), np.arange(78)[None, :])
    assert ids("1S 2S 3S KS 1H 2H") <= set(np.flatnonzero(hands[0, 0]))
    assert ids("4S 5S 6S 3H 4H 5H") <= set(np.flatnonzero(hands[0, 1]))
    assert ids("8S 9S 10S") <= set(np.flatnonzero(hands[0, 2]))
    assert ids("JS NS QS T20 T21 EX") <= set(np.flatnonzero(hands[0, 3]))
    assert set(np.flatnonzero(chien[0])) == ids("7S 6H 5D 4C T3 T16")
    assert hands[0].sum(axis=1).tolist() == [18] * 4


def test_dealing_starts_at_the_dealers_right_three_and_five_players():
    """§2, §11, §10. Pack = card ids 0..77 in order. 3 players (packets of 4), dealer 0: seat 1 gets
    1S-4S, seat 2 5S-8S, the 9th card (9S) goes to the chien, the dealer gets 10S JS NS QS and the
    last packet (T19 T20 T21 EX). 5 players (packets of 3), dealer 2: seat 3 gets 1S 2S 3S and
    packet 6 (3H 4H 5H), seat 4 4S 5S 6S, the dealer packet 5 (QS KS 1H) and the last packet
    (T20 T21 EX); the chien gets pack positions 15, 37, 59 (2H 10D T4)."""
    h3, c3 = deal_packs(FrenchTarotConfig(num_players=3), np.array([0]), np.arange(78)[None, :])
    assert ids("1S 2S 3S 4S") <= set(np.flatnonzero(h3[0, 1]))
    assert ids("5S 6S 7S 8S") <= set(np.flatnonzero(h3[0, 2]))
    assert ids("10S JS NS QS T19 T20 T21 EX") <= set(np.flatnonzero(h3[0, 0]))
    assert set(np.flatnonzero(c3[0])) == ids("9S 8H 7D 6C T5 T18")
    assert h3[0].sum(axis=1).tolist() == [24] * 3
    h5, c5 = deal_packs(FrenchTarotConfig(num_players=5), np.array([2]), np.arange(78)[None, :])
    assert ids("1S 2S 3S 3H 4H 5H") <= set(np.flatnonzero(h5[0, 3]))
    assert ids("4S 5S 6S") <= set(np.flatnonzero(h5[0, 4]))
    assert ids("QS KS 1H T20 T21 EX") <= set(np.flatnonzero(h5[0, 2]))
    assert set(np.flatnonzero(c5[0])) == ids("2H 10D T4")
    assert h5[0].sum(axis=1).tolist() == [15] * 5


@pytest.mark.parametrize("n", [3, 4, 5])
def test_random_deals_have_the_right_sizes_and_every_card_once(n):
    """§2: a random deal gives each player 24/18/15 cards and the chien 6/6/3, every card once."""
    env = new_env(n)
    hand_size, chien_size = {3: (24, 6), 4: (18, 6), 5: (15, 3)}[n]
    for seed in range(5):
        env.reset(seed=seed)
        s = env.unwrapped.game_state
        if s.result[0] == Result.PETIT_SEC:
            continue
        assert s.hands[0].sum(axis=1).tolist() == [hand_size] * n
        assert int(s.chien[0].sum()) == chien_size
        assert (s.hands[0].sum(axis=0) + s.chien[0]).tolist() == [1] * 78


def test_chien_after_packets_custom_pattern():
    """§2 / §15.10: option chien_after_packets. After packets 1..6 (4 players) the chien gets pack
    positions 3, 7, 11, 15, 19, 23; after packets 18..23 positions 54, 58, 62, 66, 70, 74 (the last
    packet, 75-77, still goes to a hand)."""
    early = FrenchTarotConfig(num_players=4, chien_after_packets=(1, 2, 3, 4, 5, 6))
    assert np.flatnonzero(deal_destinations(early) == 4).tolist() == [3, 7, 11, 15, 19, 23]
    late = FrenchTarotConfig(num_players=4, chien_after_packets=(18, 19, 20, 21, 22, 23))
    assert np.flatnonzero(deal_destinations(late) == 4).tolist() == [54, 58, 62, 66, 70, 74]
    _, chien = deal_packs(late, np.array([0]), np.arange(78)[None, :])
    assert set(np.flatnonzero(chien[0])) == {54, 58, 62, 66, 70, 74}
    env = new_env(4, chien_after_packets=(18, 19, 20, 21, 22, 23))
    env.reset(seed=1)
    assert env.unwrapped.game_state.hands[0].sum(axis=1).tolist() == [18] * 4
    three = FrenchTarotConfig(num_players=3, chien_after_packets=(1, 3, 5, 7, 9, 17))
    assert np.flatnonzero(deal_destinations(three) == 3).tolist() == [4, 13, 22, 31, 40, 73]


@pytest.mark.parametrize(
    ("n", "pattern", "allowed"),
    [
        (4, (1, 2, 3, 4, 5), "1..23"),  # wrong count
        (4, (1, 2, 3, 4, 5, 6, 7), "1..23"),  # wrong count
        (4, (0, 2, 6, 10, 14, 18), "1..23"),  # the first card of the pack
        (4, (2, 6, 10, 14, 18, 24), "1..23"),  # after the last packet: the last card
        (4, (2, 2, 10, 14, 18, 22), "1..23"),  # twice after the same packet
        (3, (2, 5, 8, 11, 14, 18), "1..17"),
        (5, (5, 12, 25), "1..24"),
        (5, (0, 12, 19), "1..24"),
    ],
)
def test_chien_after_packets_illegal_pattern_raises(n, pattern, allowed):
    """§2: a pattern that puts the first or last card of the pack in the chien, or has the wrong
    number of chien cards, is refused with a message naming the pattern and what is allowed."""
    with pytest.raises(ValueError) as err:
        FrenchTarotConfig(num_players=n, chien_after_packets=pattern)
    message = str(err.value)
    assert "chien_after_packets" in message and repr(pattern) in message and allowed in message
    with pytest.raises(ValueError, match="chien_after_packets"):
        new_env(n, chien_after_packets=pattern)


# ====================================================================== §2 petit sec

PETIT_SEC_HAND = "T1 1S 2S 3S 4S 5S 6S 7S 8S 9S 10S JS NS QS 1H 2H 3H 4H"


@pytest.mark.parametrize("excuse_in", ["chien", "hand of seat 0"])
def test_petit_sec_annuls_the_deal_at_once(excuse_in):
    """§2 / §15.14: a player whose only trump is the Petit, without the Excuse, annuls the deal:
    the env ends at reset, every score 0, result 'petit_sec', no decision asked (the Excuse
    elsewhere, in the chien or another hand)."""
    fixed = {3: PETIT_SEC_HAND}
    if excuse_in == "chien":
        deal = make_deal(4, 1, fixed, "EX T2 T3 T4 T5 T6", petit_sec=True)
    else:
        fixed[0] = "EX T2..T18"
        deal = make_deal(4, 1, fixed, petit_sec=True)
    env = start(4, deal)
    raw = env.unwrapped
    assert raw.game_over
    assert raw.legal_actions() == []
    assert all(env.terminations.values())
    for agent in raw.possible_agents:
        assert env.infos[agent] == {"scores": [0, 0, 0, 0], "result": "petit_sec"}
        assert env.rewards[agent] == 0
        assert not raw.observe(agent)["action_mask"].any()
    assert raw.record()["actions"] == [] and raw.record()["scores"] == [0, 0, 0, 0]


@pytest.mark.parametrize("n", [3, 5])
def test_petit_sec_three_and_five_players(n):
    """§2: the petit sec rule holds for every player count."""
    size = {3: 24, 5: 15}[n]
    deal = make_deal(n, 0, {1: "T1 " + suit_cards(size - 1)}, petit_sec=True)
    env = start(n, deal)
    assert env.unwrapped.game_over
    assert env.infos["player_0"] == {"scores": [0] * n, "result": "petit_sec"}


def test_petit_with_excuse_is_not_petit_sec():
    """§2: Petit + Excuse and no other trump is not a petit sec: the bidding starts at dealer+1."""
    deal = make_deal(4, 1, {3: "T1 EX " + suit_cards(16)})
    env = start(4, deal)
    assert not env.unwrapped.game_over
    assert phase(env) == "bid" and seat(env) == 2
    assert legal(env) == BIDS


def test_petit_with_another_trump_is_not_petit_sec():
    """§2: the Petit with one other trump is an ordinary hand."""
    env = start(4, make_deal(4, 1, {3: "T1 T2 " + suit_cards(16)}))
    assert phase(env) == "bid" and seat(env) == 2


def _petit_sec_seed(dealer: int) -> int:
    """A seed whose random deal (env with a fixed dealer) has a petit sec, found with the rules layer."""
    game = FrenchTarotGame(FrenchTarotConfig(num_players=4))
    for seed in range(20000):
        s = game.new_state(1)
        game.shuffle_and_deal(s, np.zeros(1, dtype=np.int64), np.array([dealer]), np.random.default_rng(seed))
        if s.result[0] == Result.PETIT_SEC:
            return seed
    raise AssertionError("no petit sec found")


def test_petit_sec_redeal_option_deals_again_with_the_next_dealer():
    """§2 / §15.14 option petit_sec="redeal": a random deal with a petit sec is replaced at once by
    the next dealer's deal (dealer+1, who is then followed by dealer+2 in the bidding)."""
    dealer = 1
    seed = _petit_sec_seed(dealer)
    annul = new_env(4, dealer=dealer)
    annul.reset(seed=seed)
    assert annul.unwrapped.game_over and annul.infos["player_0"]["result"] == "petit_sec"
    assert int(annul.unwrapped.game_state.dealer[0]) == dealer
    annulled = annul.unwrapped.game_state.hands[0].copy()

    env = new_env(4, dealer=dealer, petit_sec="redeal")
    env.reset(seed=seed)
    s = env.unwrapped.game_state
    assert not env.unwrapped.game_over
    assert int(s.dealer[0]) == (dealer + 1) % 4
    assert phase(env) == "bid" and seat(env) == (dealer + 2) % 4
    assert not np.array_equal(s.hands[0], annulled)
    assert s.hands[0].sum(axis=1).tolist() == [18] * 4
    play_out(env)
    assert env.unwrapped.record()["deal"]["dealer"] == (dealer + 1) % 4


def test_petit_sec_redeal_option_still_annuls_a_fixed_deal():
    """§15.14 (config docstring): a fixed deal cannot be redealt, so it is annulled."""
    env = start(4, make_deal(4, 1, {3: PETIT_SEC_HAND}, petit_sec=True), petit_sec="redeal")
    assert env.unwrapped.game_over and env.infos["player_3"]["result"] == "petit_sec"


# ====================================================================== §3 bidding


@pytest.mark.parametrize(("n", "dealer"), [(3, 2), (4, 0), (4, 3), (5, 4), (5, 1)])
def test_bidding_starts_right_of_dealer_each_player_once(n, dealer):
    """§3: dealer+1 speaks first, then in seat order, the dealer last; each player exactly once."""
    env = new_env(n, dealer=dealer)
    env.reset(options={"deal": make_deal(n, dealer, {})})
    assert int(env.unwrapped.game_state.dealer[0]) == dealer
    order = [(dealer + 1 + k) % n for k in range(n)]
    act(env, *["pass"] * n, by=order)
    assert env.unwrapped.game_over


def test_bids_must_be_strictly_higher():
    """§3: a bid names a contract strictly higher than the highest so far; pass is always allowed."""
    env = start(4, make_deal(4, 0, {}))
    assert legal(env) == BIDS
    act(env, "bid petite")
    assert legal(env) == {"pass", "bid garde", "bid garde_sans", "bid garde_contre"}
    act(env, "bid garde_sans")
    assert legal(env) == {"pass", "bid garde_contre"}
    with pytest.raises(IllegalActionError):
        env.step("bid garde")
    act(env, "bid garde_contre")
    assert legal(env) == {"pass"}


def test_highest_bidder_becomes_taker_and_nobody_speaks_twice():
    """§3: seat 1 petite, seat 2 garde, seats 3 and 0 pass: the bidding ends (seat 1 may not
    overcall), seat 2 is the taker at garde and takes up the chien."""
    env = start(4, make_deal(4, 0, {}))
    act(env, "bid petite", "bid garde", "pass", "pass", by=[1, 2, 3, 0])
    s = env.unwrapped.game_state
    assert int(s.taker[0]) == 2 and int(s.contract[0]) == 2
    assert s.bids[0].tolist() == [0, 1, 2, 0]
    assert phase(env) == "ecart" and seat(env) == 2
    # the taker, one-hot at relative seat 0 for himself and at (2 - v) % 4 for viewer v
    for v in range(4):
        assert field(env, v, "taker").tolist() == [int(k == (2 - v) % 4) for k in range(4)]


@pytest.mark.parametrize("n", [3, 4, 5])
def test_all_pass_throws_the_deal_in(n):
    """§3: if everybody passes the deal is thrown in: every score 0, result 'all_passed'."""
    env = new_env(n, dealer=0)
    env.reset(options={"deal": make_deal(n, 0, {})})
    act(env, *["pass"] * n)
    raw = env.unwrapped
    assert raw.game_over and all(env.terminations.values())
    for agent in raw.possible_agents:
        assert env.infos[agent] == {"scores": [0] * n, "result": "all_passed"}
        assert env.rewards[agent] == 0
    assert raw.game_state.scores[0].tolist() == [0] * n


# ====================================================================== §10 the 5-player call

KINGS = {"call KS", "call KH", "call KD", "call KC"}
QUEENS = {"call QS", "call QH", "call QD", "call QC"}
KNIGHTS = {"call NS", "call NH", "call ND", "call NC"}
JACKS = {"call JS", "call JH", "call JD", "call JC"}


@pytest.mark.parametrize(
    ("taker_hand", "jack_call", "expected"),
    [
        ("QS QH QD QC NS NH ND NC JS JH JD JC 1S 2S 3S", "all_knights", KINGS),
        ("KS KH KD QS QH QD QC 1S 2S 3S 4S 5S 6S 7S 8S", "all_knights", KINGS),
        ("KS KH KD KC QS QH QD NS NH ND NC 1S 2S 3S 4S", "all_knights", KINGS | QUEENS),
        ("KS KH KD KC QS QH QD QC NS NH ND 1S 2S 3S 4S", "all_knights", KINGS | QUEENS | KNIGHTS),
        ("KS KH KD KC QS QH QD QC JS JH JD JC 1S 2S 3S", "all_knights", KINGS | QUEENS | KNIGHTS),
        ("KS KH KD KC QS QH QD QC NS NH ND NC 1S 2S 3S", "all_knights", KINGS | QUEENS | KNIGHTS | JACKS),
        ("KS KH KD KC QS QH QD QC 1S 2S 3S 4S 5S 6S 7S", "all_queens", KINGS | QUEENS | KNIGHTS | JACKS),
        ("KS KH KD KC QS QH QD NS NH ND NC 1S 2S 3S 4S", "all_queens", KINGS | QUEENS),
    ],
)
def test_callable_cards(taker_hand, jack_call, expected):
    """§10 / §15.7: a King can always be called; a Queen with all four Kings; a Knight with all
    Kings and Queens; a Jack with all Kings, Queens and Knights (default) or with all Kings and
    Queens (jack_call="all_queens")."""
    env = start(5, make_deal(5, 0, {1: taker_hand}), jack_call=jack_call)
    act(env, "bid garde", "pass", "pass", "pass", "pass")
    assert phase(env) == "call" and seat(env) == 1
    assert legal(env) == expected


def _assert_alone_scores(env, taker: int) -> None:
    """§9.2: a taker alone against four gets 4S, each defender pays S."""
    scores = env.infos["player_0"]["scores"]
    unit = env.infos["player_0"]["unit"]
    assert unit != 0
    assert env.infos["player_0"]["partner"] == -1
    assert scores[taker] == 4 * unit
    assert [x for k, x in enumerate(scores) if k != taker] == [-unit] * 4


def test_calling_a_card_of_ones_own_hand_plays_alone():
    """§10: the taker may call a King of his own hand and play alone (1 vs 4: taker 4S); he knows
    it, the others cannot."""
    env = start(5, make_deal(5, 0, {1: "KS " + suit_cards(14)}))
    act(env, "bid garde_sans", "pass", "pass", "pass", "pass", "call KS")
    s = env.unwrapped.game_state
    assert int(s.partner[0]) == -1 and int(s.called[0]) == card("KS")
    assert field(env, 1, "alone").tolist() == [1]
    for v in (0, 2, 3, 4):
        assert field(env, v, "alone").tolist() == [0]
        assert not field(env, v, "partner").any()
    play_out(env)
    _assert_alone_scores(env, 1)


@pytest.mark.parametrize("contract", ["bid petite", "bid garde_sans"])
def test_called_card_in_the_chien_means_playing_alone(contract):
    """§10: a called card lying in the chien leaves the taker alone (4S). At petite the chien is
    shown, so everyone knows it; at garde sans it stays unseen but the deal is scored alone."""
    env = start(5, make_deal(5, 0, {}, "KH 1S 2S"))
    act(env, contract, "pass", "pass", "pass", "pass", "call KH")
    assert int(env.unwrapped.game_state.partner[0]) == -1
    if contract == "bid petite":
        for v in range(5):
            assert field(env, v, "alone").tolist() == [1]
    play_out(env)
    _assert_alone_scores(env, 1)


def test_holder_of_the_called_card_is_the_partner():
    """§10 / §9.2: the holder of the called King is the secret partner: taker 2S, partner S,
    the three defenders -S each."""
    env = start(5, make_deal(5, 0, {3: "KD " + suit_cards(14, "KD")}))
    act(env, "bid garde", "pass", "pass", "pass", "pass", "call KD")
    assert int(env.unwrapped.game_state.partner[0]) == 3
    assert field(env, 3, "partner").tolist() == [1, 0, 0, 0, 0]  # the holder knows: himself, relative seat 0
    for v in (0, 1, 2, 4):  # nobody else, not even the taker, knows before KD is played
        assert not field(env, v, "partner").any()
    play_out(env)
    info = env.infos["player_0"]
    unit = info["unit"]
    assert info["partner"] == 3 and unit != 0
    assert info["scores"] == [-unit, 2 * unit, -unit, unit, -unit]


# ====================================================================== §4 chien and écart

# Deal A (4 players, dealer 0): seat 1 holds the 11 top trumps and the Kings and Queens of S, H, D;
# seat 2 the 10 low trumps; the Excuse and QC are in the chien; seats 3 and 0 hold suit cards only.
# Seat 1 leading from the top wins every trick whatever the others play: the 10 trump leads draw
# seat 2's trumps, then nobody can trump his Kings and Queens.
DEAL_A = make_deal(4, 0, {1: "T11..T21 KS KH KD KC QS QH QD", 2: "T1..T10 1S 2S 3S 4S 5S 6S 7S 8S"}, "EX QC 1C 2C 3C 4C")
# Deal E (4 players, dealer 0): as deal A but the Excuse is with seat 3 (who, playing the lowest
# card id he may, keeps it for the last trick) and the chien holds six free cards (QC NC JC 1C 2C 3C,
# 9 points).
DEAL_E = make_deal(
    4,
    0,
    {
        1: "T11..T21 KS KH KD KC QS QH QD",
        2: "T1..T10 1S 2S 3S 4S 5S 6S 7S 8S",
        3: "EX 1D 2D 3D 4D 5D 6D 7D 8D 9D 10D JD ND 4C 5C 6C 7C 8C",
    },
    "QC NC JC 1C 2C 3C",
)


def test_petite_chien_shown_to_all_taken_up_and_six_discarded():
    """§4: at petite/garde the chien is turned face up for everyone (obs field 'chien'), the
    taker adds it to his hand (24 cards) and discards 6, one per action, back to 18."""
    env = start(4, DEAL_E)
    chien = names("QC NC JC 1C 2C 3C")
    act(env, "bid petite", "pass", "pass")
    for v in range(4):
        assert not field(env, v, "chien").any()  # not before the bidding is over
    act(env, "pass")
    for v in range(4):
        assert card_set(field(env, v, "chien")) == chien
    assert phase(env) == "ecart" and seat(env) == 1
    assert hand(env, 1) == names("T11..T21 KS KH KD KC QS QH QD") | chien
    for k, c in enumerate(sorted(chien)):
        assert len(hand(env, 1)) == 24 - k
        act(env, f"discard {c}", by=[1])
    assert hand(env, 1) == names("T11..T21 KS KH KD KC QS QH QD")
    assert card_set(env.unwrapped.game_state.ecart[0]) == chien
    assert phase(env) == "chelem"
    for v in range(4):
        assert card_set(field(env, v, "chien")) == chien  # still known to all


def test_five_player_ecart_is_three_cards():
    """§10: 5 players discard 3 after taking up a chien of 3 (15 + 3 = 18 -> 15)."""
    env = start(5, make_deal(5, 0, {}, "1S 2S 3S"))
    act(env, "bid garde", "pass", "pass", "pass", "pass", "call KS")
    assert phase(env) == "ecart" and len(hand(env, 1)) == 18
    for v in range(5):
        assert card_set(field(env, v, "chien")) == {"1S", "2S", "3S"}
    act(env, "discard 1S", "discard 2S")
    assert phase(env) == "ecart"
    act(env, "discard 3S")
    assert phase(env) == "chelem" and len(hand(env, 1)) == 15


def test_ecart_never_kings_or_bouts_and_no_trump_when_not_forced():
    """§4: with enough free cards the écart is chosen among them: never a King or a bout, no trump."""
    env = start(4, make_deal(4, 0, {1: "KS KH KD KC T1 T21 EX T2..T6 1S 2S 3S 4S 5S 6S"}, "7S 8S 9S 10S JS NS"))
    act(env, "bid garde", "pass", "pass", "pass")
    assert legal(env) == {f"discard {c}" for c in cards("1S 2S 3S 4S 5S 6S 7S 8S 9S 10S JS NS")}
    for refused in ("discard KS", "discard T1", "discard T21", "discard EX", "discard T2"):
        with pytest.raises(IllegalActionError):
            env.step(refused)


def test_forced_trump_discards_are_shown_to_the_defence():
    """§4: with only 4 free cards (1S-4S) for an écart of 6, the taker must put in all four and
    exactly two trumps 2-20; those trumps are shown to the defenders (obs field 'ecart'), the
    suit cards of the écart are not. Kings and bouts stay forbidden."""
    deal = make_deal(4, 0, {1: "KS KH KD KC T1 T21 EX T2..T12"}, "1S 2S 3S 4S T13 T14")
    env = start(4, deal)
    act(env, "bid garde", "pass", "pass", "pass")
    assert legal(env) == {f"discard {c}" for c in cards("1S 2S 3S 4S T2..T14")}
    act(env, "discard T2", "discard 1S")
    assert card_set(field(env, 1, "ecart")) == {"T2", "1S"}
    for v in (0, 2, 3):
        assert card_set(field(env, v, "ecart")) == {"T2"}
    act(env, "discard T3")
    assert legal(env) == {"discard 2S", "discard 3S", "discard 4S"}  # two trumps are enough
    with pytest.raises(IllegalActionError):
        env.step("discard T4")
    act(env, "discard 2S", "discard 3S", "discard 4S")
    assert card_set(env.unwrapped.game_state.ecart[0]) == names("T2 T3 1S 2S 3S 4S")
    for v in (0, 2, 3):
        assert card_set(field(env, v, "ecart")) == {"T2", "T3"}
    assert card_set(field(env, 1, "ecart")) == names("T2 T3 1S 2S 3S 4S")


def test_ecart_counts_for_the_attack():
    """§4, §8: the écart counts with the taker's tricks. Deal E at petite, the taker discards the
    chien (QC NC JC 1C 2C 3C, 9 points) and wins every trick; seat 3 keeps the Excuse for the last
    trick, where it changes camp (§6.3). Attack: all 91 points and 3 bouts (T21, T1 captured,
    EX): d = 91 - 36 = 55, unannounced chelem +200: S = (25 + 55)*1 + 200 = 280, taker +840.
    (Without the écart: 82 points, S = 25 + 46 + 200 = 271.)"""
    env = start(4, DEAL_E)
    act(env, "bid petite", "pass", "pass", "pass")
    act(env, *[f"discard {c}" for c in cards("QC NC JC 1C 2C 3C")], "no_chelem")
    play_out(env, policy_for(1))
    info = env.infos["player_0"]
    assert info["attack_points"] == 91 and info["attack_bouts"] == 3 and info["chelem"] == "unannounced_made"
    assert info["unit"] == 280
    assert info["scores"] == [-280, 840, -280, -280]


def test_garde_sans_chien_unseen_and_counts_for_the_taker():
    """§4: at garde sans the chien stays unseen (no 'chien' field for anyone, no écart) and counts
    for the taker, a bout in it as the taker's bout. Deal A: the taker wins every trick; with
    the chien (EX QC 1C-4C, 10 points) the attack has 91 points and 3 bouts (T21, T1 captured,
    EX in the chien): S = (25 + 55)*4 + 200 = 520, taker +1560.
    (Chien not counted: 81 points, 2 bouts, S = (25 + 40)*4 + 200 = 460.)"""
    env = start(4, DEAL_A)
    act(env, "bid garde_sans", "pass", "pass", "pass")
    assert phase(env) == "chelem"  # no écart
    assert len(hand(env, 1)) == 18
    for v in range(4):
        assert not field(env, v, "chien").any()
    act(env, "no_chelem")
    play_out(env, policy_for(1))
    for v in range(4):
        assert not field(env, v, "chien").any()
    info = env.infos["player_0"]
    assert info["attack_points"] == 91 and info["attack_bouts"] == 3
    assert info["unit"] == 520
    assert info["scores"] == [-520, 1560, -520, -520]


def test_garde_contre_chien_counts_for_the_defence():
    """§4: at garde contre the chien stays unseen and counts for the defence, with its bout.
    Deal A: the taker wins every trick but the chien's 10 points and the Excuse go to the defence:
    81 points, 2 bouts (T21, T1): d = 81 - 41 = 40, S = (25 + 40)*6 + 200 = 590, taker +1770."""
    env = start(4, DEAL_A)
    act(env, "bid garde_contre", "pass", "pass", "pass", "no_chelem")
    for v in range(4):
        assert not field(env, v, "chien").any()
    play_out(env, policy_for(1))
    info = env.infos["player_0"]
    assert info["attack_points"] == 81 and info["attack_bouts"] == 2
    assert info["unit"] == 590
    assert info["scores"] == [-590, 1770, -590, -590]


# ====================================================================== §5.1 chelem timing


def _phases_until_play(env) -> list[str]:
    """Take the first legal écart cards, 'no_chelem' and 'no_poignee'; list the phases met."""
    seen = []
    while phase(env) not in ("play", "poignee"):
        p = phase(env)
        if not seen or seen[-1] != p:
            seen.append(p)
        raw = env.unwrapped
        env.step("no_chelem" if p == "chelem" else raw.legal_actions()[0])
    return seen


@pytest.mark.parametrize(
    ("timing", "contract", "expected"),
    [
        ("after_ecart", "bid petite", ["ecart", "chelem"]),
        ("after_ecart", "bid garde_sans", ["chelem"]),
        ("before_ecart", "bid garde", ["chelem", "ecart"]),
        ("before_ecart", "bid garde_contre", ["chelem"]),
        ("never", "bid petite", ["ecart"]),
        ("never", "bid garde_sans", []),
    ],
)
def test_chelem_announcement_timing(timing, contract, expected):
    """§5.1 / §15.6, §15.13 option chelem_announcement: after the écart (or right after the
    bidding at garde sans/contre), before the chien is taken up, or never; always the taker's
    decision and before the opening lead."""
    env = start(4, make_deal(4, 0, {}), chelem_announcement=timing)
    act(env, "pass", contract, "pass", "pass")
    if expected and expected[0] == "chelem":
        assert seat(env) == 2 and legal(env) == {"chelem", "no_chelem"}
        if timing == "before_ecart":
            for v in range(4):
                assert not field(env, v, "chien").any()  # before the chien is turned up
    assert _phases_until_play(env) == expected


def test_chelem_before_ecart_five_players_comes_after_the_call():
    """§5.1, §10: with chelem_announcement="before_ecart" the 5-player taker calls, then announces,
    then takes up the chien."""
    env = start(5, make_deal(5, 0, {}), chelem_announcement="before_ecart")
    act(env, "bid garde", "pass", "pass", "pass", "pass")
    assert phase(env) == "call"
    act(env, "call KH")
    assert _phases_until_play(env) == ["chelem", "ecart"]


@pytest.mark.parametrize("timing", ["after_ecart", "before_ecart"])
def test_taker_leads_after_announcing_a_chelem(timing):
    """§5.1: if the taker announces a chelem he leads to the first trick, whoever the dealer is
    (dealer 0, taker seat 2: seat 2 leads instead of seat 1). Everyone sees the announcement."""
    env = start(4, make_deal(4, 0, {}), chelem_announcement=timing)
    act(env, "pass", "bid garde_sans", "pass", "pass", "chelem", by=[1, 2, 3, 0, 2])
    assert phase(env) == "play" and seat(env) == 2
    for v in range(4):
        assert field(env, v, "chelem").tolist() == [1]
    env.step(env.unwrapped.legal_actions()[0])
    assert seat(env) == 3


def test_without_chelem_dealer_right_leads():
    """§6.1: without a chelem announcement dealer+1 leads (dealer 0, taker seat 2: seat 1)."""
    env = start(4, make_deal(4, 0, {}))
    act(env, "pass", "bid garde_sans", "pass", "pass", "no_chelem")
    assert phase(env) == "play" and seat(env) == 1
    assert field(env, 1, "chelem").tolist() == [0]


# ====================================================================== §5.2 poignée

POIGNEE = {1: "poignee simple", 2: "poignee double", 3: "poignee triple"}


def _leader_with_trumps(n: int, count: int, excuse: bool = False, **options):
    """Seat 1 (dealer 0: he leads) holds the ``count`` highest trumps (and the Excuse), takes
    at garde sans, and reaches his first card."""
    size = {3: 24, 4: 18, 5: 15}[n]
    trumps = f"T{22 - count}..T21" + (" EX" if excuse else "")
    held = len(cards(trumps))
    env = start(n, make_deal(n, 0, {1: trumps + " " + suit_cards(size - held)}), **options)
    act(env, "bid garde_sans", *["pass"] * (n - 1))
    if n == 5:
        act(env, "call KS")
    act(env, "no_chelem")
    assert seat(env) == 1
    return env


@pytest.mark.parametrize(("n", "sizes"), [(3, (13, 15, 18)), (4, (10, 13, 15)), (5, (8, 10, 13))])
def test_poignee_sizes_per_player_count(n, sizes):
    """§5.2, §10, §11: simple/double/triple need exactly 13/15/18 trumps (3 players), 10/13/15
    (4), 8/10/13 (5); one trump short of a simple, the player is not asked."""
    assert FrenchTarotConfig(num_players=n).poignee_sizes == sizes
    env = _leader_with_trumps(n, sizes[0] - 1)
    assert phase(env) == "play"
    for k, count in enumerate(sizes, start=1):
        env = _leader_with_trumps(n, count)
        assert phase(env) == "poignee"
        assert legal(env) == {POIGNEE[j] for j in range(1, k + 1)} | {"no_poignee"}


def test_poignee_asked_only_of_a_qualifying_player_at_his_first_card():
    """§5.2: the poignée is declared just before the player's first card, in trick 1, and only a
    player who can show one is asked. Seat 3 (10 trumps) is asked when his turn comes in trick 1,
    after seats 1 and 2 have played without being asked; never again later."""
    deal = make_deal(4, 0, {3: "T12..T21 " + suit_cards(8)})
    env = start(4, deal)
    act(env, "bid garde_sans", "pass", "pass", "pass", "no_chelem")
    assert phase(env) == "play" and seat(env) == 1
    env.step(env.unwrapped.legal_actions()[0])
    assert phase(env) == "play" and seat(env) == 2
    env.step(env.unwrapped.legal_actions()[0])
    assert phase(env) == "poignee" and seat(env) == 3
    assert legal(env) == {"poignee simple", "no_poignee"}
    act(env, "poignee simple")
    assert phase(env) == "play" and seat(env) == 3
    assert int(env.unwrapped.game_state.trick_size[0]) == 2  # still trick 1, his first card
    decisions = play_out(env)
    assert not [a for _, a in decisions if a.startswith(("poignee", "no_poignee"))]


def test_excuse_completes_a_poignee_of_nine_trumps():
    """§5.2 example 1 (4 players): 9 trumps + Excuse is a valid simple poignée of 10, and every
    trump is shown with the Excuse."""
    env = _leader_with_trumps(4, 9, excuse=True)
    assert legal(env) == {"poignee simple", "no_poignee"}
    act(env, "poignee simple")
    shown = names("T13..T21 EX")
    assert card_set(env.unwrapped.game_state.poignee_cards[0, 1]) == shown
    for v in range(4):  # shown to all: seat 1 is relative seat (1 - v) % 4
        rel = (1 - v) % 4
        assert card_set(field(env, v, "poignee_cards")[rel * 78 : (rel + 1) * 78]) == shown
        assert field(env, v, "poignee")[rel * 3 : rel * 3 + 3].tolist() == [1, 0, 0]


@pytest.mark.parametrize(("declared", "shown"), [("poignee double", "T10..T21 EX"), ("poignee simple", "T10..T19")])
def test_twelve_trumps_and_excuse(declared, shown):
    """§5.2 example 2: 12 trumps + Excuse -> either the double of 13 with the Excuse (all trumps
    shown) or a simple of 10 trumps without the Excuse; no triple."""
    env = _leader_with_trumps(4, 12, excuse=True)
    assert legal(env) == {"poignee simple", "poignee double", "no_poignee"}
    act(env, declared)
    assert card_set(env.unwrapped.game_state.poignee_cards[0, 1]) == names(shown)


def test_ten_trumps_and_excuse_shows_ten_trumps_only():
    """§5.2 example 3: 10 trumps + Excuse -> a simple of the 10 trumps; showing the Excuse would
    hide a trump; no double (10 + Excuse is 11, not 13)."""
    env = _leader_with_trumps(4, 10, excuse=True)
    assert legal(env) == {"poignee simple", "no_poignee"}
    act(env, "poignee simple")
    assert card_set(env.unwrapped.game_state.poignee_cards[0, 1]) == names("T12..T21")


@pytest.mark.parametrize(("mode", "shown"), [("lowest", "T10..T19"), ("highest", "T12..T21")])
def test_surplus_trumps_hidden_automatically(mode, shown):
    """§5.2 / option poignee_trumps: with 12 trumps a simple poignée shows exactly 10; the surplus
    is hidden, the lowest or the highest shown as the option says."""
    env = _leader_with_trumps(4, 12, excuse=True, poignee_trumps=mode)
    act(env, "poignee simple")
    assert card_set(env.unwrapped.game_state.poignee_cards[0, 1]) == names(shown)
    assert phase(env) == "play"


def test_surplus_trumps_chosen_one_by_one():
    """§5.2 ("il doit en cacher un ou plus de son choix") with poignee_trumps="choose": the player
    picks the 10 trumps with 'show <card>' actions, among his trumps only (not the Excuse, which
    would hide a trump), each once; then plays. Everyone sees exactly the chosen trumps."""
    env = _leader_with_trumps(4, 12, excuse=True, poignee_trumps="choose")
    act(env, "poignee simple")
    assert phase(env) == "show" and seat(env) == 1
    assert legal(env) == {f"show {c}" for c in cards("T10..T21")}
    chosen = cards("T21 T20 T18 T17 T16 T15 T14 T13 T12 T10")
    for k, c in enumerate(chosen):
        act(env, f"show {c}", by=[1])
        if k < 9:
            assert phase(env) == "show"
            assert f"show {c}" not in legal(env) and "show T19" in legal(env) and "show T11" in legal(env)
    assert phase(env) == "play" and seat(env) == 1
    for v in range(4):
        rel = (1 - v) % 4
        assert card_set(field(env, v, "poignee_cards")[rel * 78 : (rel + 1) * 78]) == set(chosen)


def test_choose_mode_double_with_excuse_needs_no_choice():
    """§5.2: 12 trumps + Excuse as a double shows everything, so nothing is left to choose."""
    env = _leader_with_trumps(4, 12, excuse=True, poignee_trumps="choose")
    act(env, "poignee double")
    assert phase(env) == "play"
    assert card_set(env.unwrapped.game_state.poignee_cards[0, 1]) == names("T10..T21 EX")


# The FFT example (§5.2): 4 Kings and 15 trumps after the chien, one trump must be discarded.
DEAL_FORCED = make_deal(4, 0, {1: "KS KH KD KC T2..T15"}, "T16 1S 2S 3S 4S 5S")


@pytest.mark.parametrize("forced_count", [True, False])
def test_forced_discarded_trump_counts_toward_the_takers_poignee(forced_count):
    """§5.2 / §15.9: the taker with 4 Kings and 15 trumps (after the chien) must discard one trump;
    he shows it again with his 14 others as a triple (poignee_forced_discards, default). Without
    the option only 14 trumps count: simple or double."""
    env = start(4, DEAL_FORCED, poignee_forced_discards=forced_count)
    act(env, "bid garde", "pass", "pass", "pass")
    assert legal(env) == {f"discard {c}" for c in cards("1S 2S 3S 4S 5S T2..T16")}
    act(env, "discard T2", "discard 1S", "discard 2S", "discard 3S", "discard 4S", "discard 5S", "no_chelem")
    assert phase(env) == "poignee" and seat(env) == 1
    if forced_count:
        assert legal(env) == {"poignee simple", "poignee double", "poignee triple", "no_poignee"}
        act(env, "poignee triple")
        assert card_set(env.unwrapped.game_state.poignee_cards[0, 1]) == names("T2..T16")
    else:
        assert legal(env) == {"poignee simple", "poignee double", "no_poignee"}
        act(env, "poignee double")
        assert card_set(env.unwrapped.game_state.poignee_cards[0, 1]) == names("T3..T15")


def _simple_poignee_by(shown_by, then):
    """A policy: the seats in ``shown_by`` show a simple poignée, others decline; ``then`` plays."""

    def policy(env):
        if phase(env) == "poignee":
            return "poignee simple" if seat(env) in shown_by else "no_poignee"
        return then(env)

    return policy


@pytest.mark.parametrize(
    ("shown_by", "unit"),
    [
        ((2,), 540),  # a defender shows a simple, the attack wins: S = 320 + 20 + 200
        ((1, 2), 560),  # both show a simple: both bonuses to the attack, S = 320 + 40 + 200
        ((1,), 540),  # the taker shows a simple and wins: S = 320 + 20 + 200
    ],
)
def test_poignee_bonus_goes_to_the_winning_side(shown_by, unit):
    """§5.2, §9.1: the bonus (20, not multiplied) goes to the side that wins the deal, whoever
    showed it. Deal A at garde sans, taker seat 1 wins every trick: 91 points, 3 bouts,
    unannounced chelem: S = (25 + 55)*4 + H + 200."""
    env = start(4, DEAL_A)
    act(env, "bid garde_sans", "pass", "pass", "pass", "no_chelem")

    play_out(env, _simple_poignee_by(shown_by, then=policy_for(1)))
    info = env.infos["player_0"]
    assert info["made"] and info["attack_points"] == 91
    assert info["unit"] == unit
    assert info["scores"] == [-unit, 3 * unit, -unit, -unit]


@pytest.mark.parametrize(
    ("shown_by", "unit"),
    [
        ((2,), -484),  # the taker shows a simple and loses: he pays it, S = -264 - 20 - 200
        ((1, 2), -504),  # taker and a defender show: both bonuses to the defence
        ((1,), -484),  # a defender shows and the defence wins
    ],
)
def test_poignee_bonus_paid_by_a_losing_taker(shown_by, unit):
    """§5.2, §9.1: if the attack loses, every poignée bonus goes to the defence. Deal A with seat 2
    (T1-T10) taking at garde sans and seat 1 leading and winning every trick: the attack has only
    the chien (EX QC 1C-4C: 10 points, 1 bout): d = 51 - 10 = 41, defence chelem -200:
    S = -(25 + 41)*4 - H - 200."""
    env = start(4, DEAL_A)
    act(env, "pass", "bid garde_sans", "pass", "pass", "no_chelem")

    play_out(env, _simple_poignee_by(shown_by, then=policy_for(1)))
    info = env.infos["player_0"]
    assert info["taker"] == 2 and not info["made"]
    assert info["attack_points"] == 10 and info["attack_bouts"] == 1 and info["chelem"] == "defence"
    assert info["unit"] == unit
    assert info["scores"] == [-unit, -unit, 3 * unit, -unit]
