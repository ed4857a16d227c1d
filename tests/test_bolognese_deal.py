"""The Tarocchino deal and Scartata (rules/tarocchino.md §5, §8–§14, U21–U22): ``tarot_env.rules.bolognese.deal``.

Dealing goes anticlockwise from the dealer's right (seat ``dealer + 1``), in packets: 5 at a
time in Ottocento (15 each, 17 for the dealer, whose last 2 come after three rounds), 6 at a
time in Terziglio (18 each, the last 8 the Pozzo), Millone 20/22 then a second deal of 20
(10 each), Centocinquanta and Quindici 15/17 with 30 out of play, Mattazza 10 each with 62 − 10n
out of play. The worked deals below use the pack in card-id order (``IDENTITY``), so pack
position i is card id i: AS 6S … KS are 0–9, Bastoni 10–19, Coppe 20–29, Denari 30–39, BEG 40,
M1–M4 41–44, T5–T16 45–56, LUN SOL MON ANG 57–60, MAT 61.

The Scartata: never a Carta da 5 (the Kings, Angelo, Mondo, Bégato, Matto); trumps may go.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.tarocchino_discards import (
    DiscardStep,
    discard_errors,
    discard_mask,
    discard_seats,
    discard_step,
    discard_steps,
    discardable,
    legal_discards,
)

from tarot_env.cards.bolognese import BOLOGNESE_DECK, IS_CARTA_DA_5, NUM_CARDS, card
from tarot_env.rules.bolognese.deal import (
    EXTRA,
    GAMES,
    HAND,
    OUT,
    PLAYER_COUNTS,
    POZZO,
    SECOND,
    check_game,
    deal_destinations,
    deal_packs,
    format_deal,
    parse_deal,
)

IDENTITY = np.arange(NUM_CARDS)[None, :]
#: every (game, player count) the module deals
TABLES = [(g, n) for g in GAMES for n in PLAYER_COUNTS[g]]


def ids(text: str) -> set[int]:
    return {card(c) for c in text.split()}


def listed(text: str) -> list[str]:
    """Card strings of a hand written on one line."""
    return text.split()


def mask(text: str) -> np.ndarray:
    m = np.zeros(NUM_CARDS, dtype=bool)
    m[list(ids(text))] = True
    return m


def held(m: np.ndarray) -> set[int]:
    return set(np.flatnonzero(m).tolist())


def names(m: np.ndarray) -> str:
    return " ".join(BOLOGNESE_DECK.names[c] for c in np.flatnonzero(m))


def span(*ranges: tuple[int, int]) -> set[int]:
    """Card ids of the pack positions ``a..b-1`` of each range, for the identity pack."""
    return {c for a, b in ranges for c in range(a, b)}


def deal_one(game: str, n: int, dealer: int, pack: np.ndarray, **kw):
    dest = deal_destinations(game, n, **kw)
    return dest, deal_packs(dest, np.array([dealer]), np.asarray(pack).reshape(1, NUM_CARDS))


# ====================================================================== the dealing pattern

#: (game, n) -> (hand sizes from the dealer's right, the dealer last; the dealer's last cards; rest size, rest place)
SIZES = {
    ("ottocento", 4): ((15, 15, 15, 17), 2, 0, None),
    ("quattro_scartate", 4): ((15, 15, 15, 17), 2, 0, None),
    ("terziglio", 3): ((18, 18, 18), 0, 8, POZZO),
    ("millone", 2): ((20, 22), 2, 20, SECOND),
    ("centocinquanta", 2): ((15, 17), 2, 30, OUT),
    ("quindici", 2): ((15, 17), 2, 30, OUT),
    ("mattazza", 3): ((10, 10, 10), 0, 32, OUT),
    ("mattazza", 4): ((10, 10, 10, 10), 0, 22, OUT),
    ("mattazza", 5): ((10, 10, 10, 10, 10), 0, 12, OUT),
    ("mattazza", 6): ((10, 10, 10, 10, 10, 10), 0, 2, OUT),
}


def test_every_table_is_covered():
    assert set(SIZES) == set(TABLES)


@pytest.mark.parametrize(("game", "n"), TABLES)
def test_hand_sizes_and_totals(game, n):
    """§5.2, §10.2, §11.2, §12.1, §14.2: the sizes of the hands, the dealer's last cards and the
    rest; every one of the 62 pack positions goes to exactly one place."""
    hands, extra, rest, rest_place = SIZES[(game, n)]
    dest = deal_destinations(game, n)
    assert dest.hand_sizes == hands
    assert (dest.extra_size, dest.rest_size, dest.rest_place) == (extra, rest, rest_place)
    assert sum(hands) + rest == NUM_CARDS
    counted = [int(np.count_nonzero((dest.seat == k) & np.isin(dest.place, (HAND, EXTRA)))) for k in range(n)]
    assert counted == list(hands)
    assert int(np.count_nonzero(dest.place == EXTRA)) == extra
    assert np.all(dest.seat[dest.place == EXTRA] == n - 1)  # the last cards are the dealer's
    assert len(dest.rest_positions) == rest
    assert dest.seat.shape == dest.place.shape == (NUM_CARDS,)


@pytest.mark.parametrize(("game", "n"), TABLES)
def test_dealt_hands_have_the_pattern_sizes(game, n):
    """The hands dealt from a pack have the sizes of the table above, seat by seat."""
    hands, extra, rest, _ = SIZES[(game, n)]
    for dealer in range(n):
        _, dealt = deal_one(game, n, dealer, IDENTITY)
        sizes = dealt.hands[0].sum(axis=1)
        assert [int(sizes[(dealer + 1 + k) % n]) for k in range(n)] == list(hands)
        assert int(dealt.extra[0].sum()) == extra and int(dealt.rest[0].sum()) == rest


def _offsets(*runs: tuple[int, int]) -> list[int]:
    return [offset for offset, size in runs for _ in range(size)]


def test_packet_order_ottocento_and_quattro_scartate():
    """§5.2: three rounds of 5 cards, from the dealer's right (offset 0) to the dealer (offset 3),
    then the last 2 cards to the dealer, apart."""
    round_ = [(0, 5), (1, 5), (2, 5), (3, 5)]
    for game in ("ottocento", "quattro_scartate"):
        dest = deal_destinations(game)
        assert dest.seat.tolist() == _offsets(*round_ * 3, (3, 2))
        assert dest.place.tolist() == [HAND] * 60 + [EXTRA] * 2


def test_packet_order_terziglio():
    """§10.2: 6 at a time anticlockwise until each has 18; the remaining 8 are the Pozzo."""
    dest = deal_destinations("terziglio")
    assert dest.seat.tolist() == _offsets(*[(0, 6), (1, 6), (2, 6)] * 3, (-1, 8))
    assert dest.place.tolist() == [HAND] * 54 + [POZZO] * 8


def test_packet_order_millone():
    """§11.2: 5 at a time alternately, 20 to the opponent (offset 0) and 22 to the dealer (four
    packets each, then his last 2); §11.5 and U22: the other 20, 5 at a time, 10 each, starting
    with the opponent (or with the dealer, ``second_deal_first="dealer"``)."""
    dest = deal_destinations("millone")
    first = _offsets(*[(0, 5), (1, 5)] * 4, (1, 2))
    assert dest.seat.tolist() == first + _offsets(*[(0, 5), (1, 5)] * 2)
    assert dest.place.tolist() == [HAND] * 40 + [EXTRA] * 2 + [SECOND] * 20
    assert dest.second_sizes == (10, 10)
    alt = deal_destinations("millone", second_deal_first="dealer")
    assert alt.seat.tolist() == first + _offsets(*[(1, 5), (0, 5)] * 2)


def test_packet_order_centocinquanta_and_quindici():
    """§12.1, §13: 5 at a time alternately, 15 to the opponent and 17 to the dealer (three
    packets each, then his last 2); the other 30 are out of play."""
    for game in ("centocinquanta", "quindici"):
        dest = deal_destinations(game)
        assert dest.seat.tolist() == _offsets(*[(0, 5), (1, 5)] * 3, (1, 2), (-1, 30))
        assert dest.place.tolist() == [HAND] * 30 + [EXTRA] * 2 + [OUT] * 30


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_packet_order_mattazza(n):
    """§14.2: 10 cards each, 5 at a time in turn (two rounds); the cards left over are out of play."""
    dest = deal_destinations("mattazza", n)
    assert dest.seat.tolist() == _offsets(*[(k, 5) for k in range(n)] * 2, (-1, 62 - 10 * n))
    assert dest.place.tolist() == [HAND] * (10 * n) + [OUT] * (62 - 10 * n)
    assert dest.tricks == 10


def test_ottocento_identity_pack_dealer_2():
    """§5.2 worked: dealer 2, pack in id order. Seat 3 (the dealer's right) gets AS-9S, seat 0
    10S-KS, seat 1 AB-9B, the dealer 10B-KB; round 2 the Coppe then Denari the same way; round 3
    seat 3 BEG M1-M4, seat 0 T5-T9, seat 1 T10-T14, the dealer T15 T16 LUN SOL MON; the last two
    cards, ANG and MAT, are the dealer's last cards."""
    _, dealt = deal_one("ottocento", 4, 2, IDENTITY)
    hands = dealt.hands[0]
    assert held(hands[3]) == ids("AS 6S 7S 8S 9S AC 6C 7C 8C 9C BEG M1 M2 M3 M4")
    assert held(hands[0]) == ids("10S JS NS QS KS 10C JC NC QC KC T5 T6 T7 T8 T9")
    assert held(hands[1]) == ids("AB 6B 7B 8B 9B AD 6D 7D 8D 9D T10 T11 T12 T13 T14")
    assert held(hands[2]) == ids("10B JB NB QB KB 10D JD ND QD KD T15 T16 LUN SOL MON ANG MAT")
    assert held(dealt.extra[0]) == ids("ANG MAT")
    assert held(hands[2] & ~dealt.extra[0]) == ids("10B JB NB QB KB 10D JD ND QD KD T15 T16 LUN SOL MON")
    assert not dealt.rest.any() and dealt.rest_order.shape == (1, 0) and not dealt.second.any()


def test_terziglio_identity_pack_dealer_0():
    """§10.2 worked: dealer 0, the receiver is seat 1. Seat 1 gets pack positions 0-5, 18-23,
    36-41; seat 2 6-11, 24-29, 42-47; the dealer 12-17, 30-35, 48-53; the Pozzo is the last 8
    cards, T14 T15 T16 LUN SOL MON ANG MAT."""
    _, dealt = deal_one("terziglio", 3, 0, IDENTITY)
    hands = dealt.hands[0]
    assert held(hands[1]) == span((0, 6), (18, 24), (36, 42))
    assert held(hands[1]) == ids("AS 6S 7S 8S 9S 10S QB KB AC 6C 7C 8C JD ND QD KD BEG M1")
    assert held(hands[2]) == span((6, 12), (24, 30), (42, 48))
    assert held(hands[0]) == span((12, 18), (30, 36), (48, 54))
    assert held(dealt.rest[0]) == ids("T14 T15 T16 LUN SOL MON ANG MAT")
    assert dealt.rest_order[0].tolist() == list(range(54, 62))
    assert not dealt.extra.any() and not dealt.second.any()


def test_millone_identity_pack_dealer_1():
    """§11.2, §11.5, U22 worked: dealer 1, opponent 0. First deal: the opponent gets positions
    0-4, 10-14, 20-24, 30-34 (20 cards), the dealer 5-9, 15-19, 25-29, 35-39 and his last 2, BEG
    M1. Second deal (positions 42-61, the rest in dealing order): the opponent 42-46 and 52-56,
    the dealer 47-51 and 57-61; with ``second_deal_first="dealer"`` the other way round."""
    _, dealt = deal_one("millone", 2, 1, IDENTITY)
    hands = dealt.hands[0]
    assert held(hands[0]) == span((0, 5), (10, 15), (20, 25), (30, 35))
    assert held(hands[1]) == span((5, 10), (15, 20), (25, 30), (35, 42))
    assert held(dealt.extra[0]) == ids("BEG M1")
    assert dealt.rest_order[0].tolist() == list(range(42, 62))
    assert held(dealt.rest[0]) == span((42, 62))
    assert held(dealt.second[0, 0]) == span((42, 47), (52, 57))
    assert held(dealt.second[0, 1]) == span((47, 52), (57, 62))
    assert held(dealt.second[0, 0]) == ids("M2 M3 M4 T5 T6 T12 T13 T14 T15 T16")
    _, alt = deal_one("millone", 2, 1, IDENTITY, second_deal_first="dealer")
    assert held(alt.second[0, 1]) == span((42, 47), (52, 57))
    assert held(alt.second[0, 0]) == span((47, 52), (57, 62))
    assert np.array_equal(alt.hands, dealt.hands)


def test_centocinquanta_identity_pack_dealer_0():
    """§12.1 worked: dealer 0, opponent 1: the opponent gets 0-4, 10-14, 20-24, the dealer 5-9,
    15-19, 25-29 and his last 2 (AD 6D); the 30 cards from 7D to MAT are out of play."""
    for game in ("centocinquanta", "quindici"):
        _, dealt = deal_one(game, 2, 0, IDENTITY)
        assert held(dealt.hands[0, 1]) == span((0, 5), (10, 15), (20, 25))
        assert held(dealt.hands[0, 0]) == span((5, 10), (15, 20), (25, 32))
        assert held(dealt.extra[0]) == ids("AD 6D")
        assert held(dealt.rest[0]) == span((32, 62))
        assert not dealt.second.any()


def test_mattazza_five_players_identity_pack_dealer_4():
    """§14.2 worked: 5 players, dealer 4: seat 0 gets 0-4 and 25-29, seat 1 5-9 and 30-34, …,
    the dealer 20-24 and 45-49; the 12 cards T10 … ANG MAT are out of play."""
    _, dealt = deal_one("mattazza", 5, 4, IDENTITY)
    for s in range(5):
        assert held(dealt.hands[0, s]) == span((5 * s, 5 * s + 5), (25 + 5 * s, 30 + 5 * s))
    assert held(dealt.rest[0]) == ids("T10 T11 T12 T13 T14 T15 T16 LUN SOL MON ANG MAT")
    assert not dealt.extra.any()


@pytest.mark.parametrize(("game", "n"), TABLES)
def test_moving_the_dealer_rotates_the_hands(game, n):
    """§4.1: the same pack dealt by the next dealer gives every hand to the next seat; rows of
    one batch with different dealers are dealt independently."""
    rng = np.random.default_rng(7)
    pack = rng.permutation(NUM_CARDS)
    dest = deal_destinations(game, n)
    batch = deal_packs(dest, np.arange(n), np.tile(pack, (n, 1)))
    for d in range(n):
        single = deal_packs(dest, np.array([d]), pack[None])
        for field in batch._fields:
            assert np.array_equal(getattr(batch, field)[d], getattr(single, field)[0]), field
        assert np.array_equal(batch.hands[d], np.roll(batch.hands[0], d, axis=0))
        assert np.array_equal(batch.rest[d], batch.rest[0])


def test_deal_packs_refuses_malformed_packs_and_dealers():
    dest = deal_destinations("ottocento")
    with pytest.raises(ValueError, match=r"shape \(R, 62\)"):
        deal_packs(dest, np.array([0]), np.arange(62))
    bad = np.arange(62)[None].copy()
    bad[0, 5] = 4
    with pytest.raises(ValueError, match=r"pack rows \[0\] are not orderings of the 62 card ids"):
        deal_packs(dest, np.array([0]), bad)
    with pytest.raises(ValueError, match=r"dealers must be 1 seats 0..3"):
        deal_packs(dest, np.array([4]), IDENTITY)
    with pytest.raises(ValueError, match=r"one per pack"):
        deal_packs(dest, np.array([0, 1]), IDENTITY)


def test_games_and_player_counts_are_checked():
    """interface.md §1: Mattazza 3 to 6 players (4 when not given), the others their one count."""
    assert check_game("ottocento") == ("ottocento", 4)
    assert check_game("mattazza", 6) == ("mattazza", 6)
    assert check_game("mattazza") == ("mattazza", 4)
    assert deal_destinations("mattazza").num_players == 4
    with pytest.raises(ValueError, match=r"unknown Tarocchino game 'tarocchino'; the games are ottocento, quattro_scartate"):
        deal_destinations("tarocchino")
    with pytest.raises(ValueError, match=r"Mattazza is played by 3 to 6 players, got num_players=7"):
        deal_destinations("mattazza", 7)
    with pytest.raises(ValueError, match=r"Ottocento is played by 4 players, got num_players=3"):
        deal_destinations("ottocento", 3)
    with pytest.raises(ValueError, match=r"Millone is played by 2 players, got num_players=True"):
        deal_destinations("millone", True)
    with pytest.raises(ValueError, match=r"second_deal_first='first' is not an option value; allowed: 'opponent', 'dealer'"):
        deal_destinations("millone", second_deal_first="first")


def test_pattern_arrays_are_read_only():
    dest = deal_destinations("terziglio")
    assert deal_destinations("terziglio") is dest
    with pytest.raises(ValueError):
        dest.seat[0] = 1
    with pytest.raises(ValueError):
        dest.place[0] = 1


# ====================================================================== fixed deals


def _random_pack(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).permutation(NUM_CARDS)


@pytest.mark.parametrize(("game", "n"), TABLES)
def test_fixed_deal_round_trip(game, n):
    """interface.md §4: a deal written by ``format_deal`` and read back by ``parse_deal`` deals the
    same hands, last cards, rest (in the same order) and second deal; writing it again gives
    the same dict."""
    dest = deal_destinations(game, n)
    for seed in range(3):
        pack, dealer = _random_pack(seed), seed % n
        written = format_deal(dest, dealer, pack)
        assert len(written["hands"]) == n and len(written["rest"]) == dest.rest_size
        dealer2, pack2 = parse_deal(dest, written)
        assert dealer2 == dealer
        a = deal_packs(dest, np.array([dealer]), pack[None])
        b = deal_packs(dest, np.array([dealer2]), pack2[None])
        for field in a._fields:
            assert np.array_equal(getattr(a, field), getattr(b, field)), field
        assert format_deal(dest, dealer2, pack2) == written


OTTOCENTO_DEAL = {
    "dealer": 1,
    "hands": [
        listed("AS 6S 7S 8S 9S AC 6C 7C 8C 9C BEG M1 M2 M3 M4"),
        # the dealer: 15, then his last 2 (ANG, MAT), listed last
        listed("AB 6B 7B 8B 9B AD 6D 7D 8D 9D T10 T11 T12 T13 T14 MAT ANG"),
        listed("10S JS NS QS KS 10C JC NC QC KC T5 T6 T7 T8 T9"),
        listed("KB QB NB JB 10B 10D JD ND QD KD T15 T16 LUN SOL MON"),
    ],
    "rest": [],
}


def test_fixed_ottocento_deal_dealers_last_cards_are_listed_last():
    """interface.md §4: hands in seat order; the last 2 cards of the dealer's list are his last
    cards, seen only after his claim window (§8.4); the order of the other cards does not
    matter, and ``format_deal`` writes them in card-id order."""
    dest = deal_destinations("ottocento")
    dealer, pack = parse_deal(dest, OTTOCENTO_DEAL)
    dealt = deal_packs(dest, np.array([dealer]), pack[None])
    for s, hand in enumerate(OTTOCENTO_DEAL["hands"]):
        assert held(dealt.hands[0, s]) == ids(" ".join(hand))
    assert held(dealt.extra[0]) == ids("ANG MAT")
    assert held(dealt.hands[0, 1] & ~dealt.extra[0]) == ids("AB 6B 7B 8B 9B AD 6D 7D 8D 9D T10 T11 T12 T13 T14")
    written = format_deal(dest, dealer, pack)
    assert written["hands"][1][-2:] == ["ANG", "MAT"]
    assert written["hands"][3] == listed("10B JB NB QB KB 10D JD ND QD KD T15 T16 LUN SOL MON")
    assert written["rest"] == []


def test_fixed_millone_deal_rest_is_the_second_deal_in_dealing_order():
    """interface.md §4, §11.5, U22: Millone's ``rest`` is the second deal's 20 cards in dealing
    order: 5 to the opponent, 5 to the dealer, 5 to the opponent, 5 to the dealer."""
    dest = deal_destinations("millone")
    pack = _random_pack(11)
    deal = format_deal(dest, 0, pack)
    rest = deal["rest"]
    _, pack2 = parse_deal(dest, deal)
    dealt = deal_packs(dest, np.array([0]), pack2[None])
    assert held(dealt.second[0, 1]) == ids(" ".join(rest[0:5] + rest[10:15]))  # seat 1 is the opponent
    assert held(dealt.second[0, 0]) == ids(" ".join(rest[5:10] + rest[15:20]))
    assert [BOLOGNESE_DECK.names[c] for c in dealt.rest_order[0]] == rest
    # the same list read with the dealer first in the second deal
    alt = deal_destinations("millone", second_deal_first="dealer")
    _, pack3 = parse_deal(alt, deal)
    dealt3 = deal_packs(alt, np.array([0]), pack3[None])
    assert held(dealt3.second[0, 0]) == ids(" ".join(rest[0:5] + rest[10:15]))


def test_fixed_deals_are_case_insensitive():
    deal = {**OTTOCENTO_DEAL, "hands": [[c.lower() for c in h] for h in OTTOCENTO_DEAL["hands"]]}
    dest = deal_destinations("ottocento")
    assert format_deal(dest, *parse_deal(dest, deal)) == format_deal(dest, *parse_deal(dest, OTTOCENTO_DEAL))


def _terziglio_deal() -> dict:
    return format_deal(deal_destinations("terziglio"), 2, np.arange(NUM_CARDS))


def _with_hand(deal: dict, seat: int, hand: list) -> dict:
    hands = [list(h) for h in deal["hands"]]
    hands[seat] = hand
    return {**deal, "hands": hands}


def _ottocento(**change) -> dict:
    return {**OTTOCENTO_DEAL, **change}


MALFORMED = [
    # (game, deal, error fragment)
    ("ottocento", _ottocento(chien=[]), r"keys \['chien', 'dealer', 'hands', 'rest'\]; a deal has exactly .* \(unknown: \['chien'\]\)"),
    ("ottocento", {"dealer": 0, "hands": OTTOCENTO_DEAL["hands"]}, r"\(missing: \['rest'\]\)"),
    ("ottocento", _ottocento(dealer=4), r"dealer 4 must be a seat number 0..3"),
    ("ottocento", _ottocento(dealer=True), r"dealer True must be a seat number 0..3"),
    ("ottocento", _ottocento(hands=OTTOCENTO_DEAL["hands"][:3]), r"'hands' must list 4 hands in seat order for Ottocento"),
    (
        "ottocento",
        _with_hand(OTTOCENTO_DEAL, 0, OTTOCENTO_DEAL["hands"][0][:14]),
        r"the hand of seat 0 has 14 cards; in Ottocento each other player is dealt 15",
    ),
    (
        "ottocento",
        _with_hand(OTTOCENTO_DEAL, 1, OTTOCENTO_DEAL["hands"][1][:16]),
        r"the hand of seat 1 \(the dealer\) has 16 cards; in Ottocento the dealer is dealt 17 \(15 \+ his last 2, listed last\)",
    ),
    (
        "ottocento",
        {**_with_hand(OTTOCENTO_DEAL, 1, OTTOCENTO_DEAL["hands"][1][:15]), "rest": ["MAT", "ANG"]},
        r"hand of seat 1 \(the dealer\) has 15 cards",
    ),
    (
        "ottocento",
        _ottocento(rest=["AS"]),
        r"the rest has 1 cards; Ottocento deals every card to a hand, so 'rest' must be empty",
    ),
    (
        "ottocento",
        _with_hand(OTTOCENTO_DEAL, 2, [*OTTOCENTO_DEAL["hands"][2][:14], "AS"]),
        r"AS is both in the hand of seat 0 and the hand of seat 2; each of the 62 cards appears once",
    ),
    (
        "ottocento",
        _with_hand(OTTOCENTO_DEAL, 2, [*OTTOCENTO_DEAL["hands"][2][:14], "ks"]),
        r"KS is listed twice in the hand of seat 2",
    ),
    (
        "ottocento",
        _with_hand(OTTOCENTO_DEAL, 3, [*OTTOCENTO_DEAL["hands"][3][:14], "1S"]),
        r"in the hand of seat 3: '1S' is not a card of the Tarocchino deck; cards are written like",
    ),
    (
        "ottocento",
        _with_hand(OTTOCENTO_DEAL, 3, [*OTTOCENTO_DEAL["hands"][3][:14], "T21"]),
        r"'T21' is not a card of the Tarocchino deck",
    ),
    ("ottocento", _with_hand(OTTOCENTO_DEAL, 0, "AS 6S"), r"the hand of seat 0 must be a list of card strings, got 'AS 6S'"),
    ("terziglio", {**_terziglio_deal(), "rest": _terziglio_deal()["rest"][:7]}, r"the rest has 7 cards; 'rest' lists the Pozzo's 8 cards"),
    (
        "terziglio",
        {**_terziglio_deal(), "rest": [*_terziglio_deal()["rest"][:7], "AS"]},
        r"AS is both in the hand of seat 0 and the rest",
    ),
    (
        "terziglio",
        _with_hand(_terziglio_deal(), 1, _terziglio_deal()["hands"][1][:17]),
        r"the hand of seat 1 has 17 cards; in Terziglio each other player is dealt 18",
    ),
    (
        "millone",
        {**format_deal(deal_destinations("millone"), 0, np.arange(62)), "rest": []},
        r"the rest has 0 cards; 'rest' lists the second deal's 20 cards in dealing order",
    ),
    (
        "millone",
        _with_hand(format_deal(deal_destinations("millone"), 0, np.arange(62)), 0, ["AS"] * 22),
        r"AS is listed twice in the hand of seat 0 \(the dealer\)",
    ),
    (
        "centocinquanta",
        {**format_deal(deal_destinations("centocinquanta"), 0, np.arange(62)), "rest": ["AS"] * 29},
        r"the rest has 29 cards; 'rest' lists the 30 cards out of play",
    ),
]


@pytest.mark.parametrize(("game", "deal", "message"), MALFORMED)
def test_malformed_deals_are_refused_with_clear_messages(game, deal, message):
    """interface.md §4, §6: a wrong key, dealer or count, a repeated or unknown card raises a
    ValueError naming what was given and what is allowed."""
    n = PLAYER_COUNTS[game][0]
    with pytest.raises(ValueError, match=message):
        parse_deal(deal_destinations(game, n), deal)


def test_mattazza_deals_name_the_cards_out_of_play():
    dest = deal_destinations("mattazza", 6)
    deal = format_deal(dest, 0, np.arange(62))
    assert deal["rest"] == ["ANG", "MAT"] and [len(h) for h in deal["hands"]] == [10] * 6
    with pytest.raises(ValueError, match=r"the rest has 3 cards; 'rest' lists the 2 cards out of play"):
        parse_deal(dest, {**deal, "rest": ["ANG", "MAT", "AS"]})
    with pytest.raises(ValueError, match=r"'hands' must list 6 hands in seat order for Mattazza"):
        parse_deal(dest, {**deal, "hands": deal["hands"][:5]})


def test_wrongly_typed_deals_raise_type_errors():
    dest = deal_destinations("ottocento")
    with pytest.raises(TypeError, match=r"a deal must be a dict with keys 'dealer', 'hands', 'rest'; got list"):
        parse_deal(dest, [OTTOCENTO_DEAL])
    with pytest.raises(TypeError, match=r"the hand of seat 0 holds 5; cards are strings"):
        parse_deal(dest, _with_hand(OTTOCENTO_DEAL, 0, [*OTTOCENTO_DEAL["hands"][0][:14], 5]))


# ====================================================================== the Scartata

#: an Ottocento dealer's 17 cards: the 4 Kings, the 4 Tarocchi, and 9 others (trumps among them)
DEALER_17 = "KS KB KC KD ANG MON BEG MAT QS NS JS AS 6C SOL LUN T16 M1"


def test_carte_da_5_are_never_discardable_trumps_are():
    """§5.3 worked: from the 17 cards above, only QS NS JS AS 6C SOL LUN T16 M1 may be discarded:
    never a King, the Angelo, the Mondo, the Bégato or the Matto; the Sole, the Luna, a
    numbered trump and a Moro may."""
    hand = mask(DEALER_17)
    assert held(discardable(hand)) == ids("QS NS JS AS 6C SOL LUN T16 M1")
    assert held(discardable(hand) & hand & IS_CARTA_DA_5) == set()


def test_exactly_the_carte_da_5_are_forbidden_over_the_whole_pack():
    """§5.3: of the 62 cards, exactly the 4 Kings and ANG MON BEG MAT are never discarded; the
    other 54 (all 18 other trumps included) may be."""
    forbidden = ~discardable(np.ones(NUM_CARDS, dtype=bool))
    assert held(forbidden) == ids("KS KB KC KD ANG MON BEG MAT")
    assert ids("SOL LUN M1 M2 M3 M4 T5 T6 T7 T8 T9 T10 T11 T12 T13 T14 T15 T16") <= held(~forbidden)


def test_discard_mask_follows_the_cards_still_to_discard():
    """The sequential form: a row with discards still due allows its discardable cards; a row
    with none due allows nothing. Rows are independent."""
    hands = np.stack([mask(DEALER_17), mask(DEALER_17), mask("KS QS AS")])
    m = discard_mask(hands, np.array([2, 0, 1]))
    assert held(m[0]) == ids("QS NS JS AS 6C SOL LUN T16 M1")
    assert not m[1].any()
    assert held(m[2]) == ids("QS AS")
    assert held(discard_mask(mask(DEALER_17), 1)) == held(m[0])  # one (62,) hand and an int


def test_a_full_scartata_card_by_card():
    """§5.3: the Ottocento dealer discards 2 from his 17, one per action; the inputs are not
    changed (pure functions), and once nothing is due nothing more may be discarded."""
    hands0 = mask(DEALER_17)[None]
    scarto0 = np.zeros((1, NUM_CARDS), dtype=bool)
    hands, scarto, left = discard_step(hands0, scarto0, np.array([2]), np.array([card("SOL")]))
    assert held(hands0[0]) == ids(DEALER_17) and not scarto0.any()
    assert (int(hands.sum()), held(scarto[0]), left.tolist()) == (16, ids("SOL"), [1])
    hands, scarto, left = discard_step(hands, scarto, left, np.array([card("QS")]))
    assert (int(hands.sum()), held(scarto[0]), left.tolist()) == (15, ids("SOL QS"), [0])
    assert not discard_mask(hands, left).any()
    with pytest.raises(ValueError, match=r"row 0: cannot discard AS: no discard is due; allowed: none"):
        discard_step(hands, scarto, left, np.array([card("AS")]))


@pytest.mark.parametrize(
    ("cards_", "message"),
    [
        ("KS", r"row 1: cannot discard KS: KS is a Carta da 5 \(the Kings and the Tarocchi: Angelo, Mondo, Bégato, Matto\)"),
        ("MAT", r"cannot discard MAT: MAT is a Carta da 5 .*may never be discarded \(docs/rules/tarocchino.md §5\); allowed: AS QS 6C"),
        ("BEG", r"cannot discard BEG: BEG is a Carta da 5"),
        ("T5", r"row 1: cannot discard T5: T5 is not in the hand; allowed: AS QS 6C"),
    ],
)
def test_illegal_discards_are_refused_naming_card_reason_and_allowed(cards_, message):
    hands = np.stack([mask(DEALER_17), mask("KS MAT BEG QS AS 6C")])
    with pytest.raises(ValueError, match=message):
        discard_step(hands, np.zeros_like(hands), np.array([2, 2]), np.array([card("QS"), card(cards_)]))


def test_discard_of_an_out_of_range_id_is_refused():
    with pytest.raises(ValueError, match=r"row 0: cannot discard 62: 62 is not a card id \(0..61\)"):
        discard_step(mask(DEALER_17)[None], np.zeros((1, NUM_CARDS), dtype=bool), np.array([1]), np.array([62]))


def test_whole_discards_checked_at_once():
    """§5.3 worked: from DEALER_17, {SOL, QS} is a legal Scartata of 2; three cards, a card not
    held, or a Carta da 5 is not."""
    hand = mask(DEALER_17)
    cases = [
        ("SOL QS", None),
        ("SOL QS AS", "3 cards discarded; 2 are due"),
        ("SOL T5", "T5 not in the hand"),
        ("SOL MAT", "MAT is a Carta da 5"),
    ]
    hands = np.stack([hand] * len(cases))
    discards = np.stack([mask(text) for text, _ in cases])
    errors = discard_errors(hands, discards, 2)
    for (text, expected), got in zip(cases, errors):
        assert (got is None) if expected is None else (expected in got), (text, got)
    assert legal_discards(hands, discards, 2).tolist() == [True, False, False, False]


#: game -> the discards of one hand, as (who, how many, after what)
STEPS = {
    "ottocento": [("dealer", 2, "pickup")],
    "quattro_scartate": [("dealer", 2, "pickup")],
    "terziglio": [("soloist", 8, "pozzo")],
    "millone": [("opponent", 10, "pickup"), ("dealer", 10, "pickup"), ("dealer", 2, "second_deal")],
    "centocinquanta": [("dealer", 2, "pickup")],
    "quindici": [("dealer", 2, "pickup")],
    "mattazza": [],
}


@pytest.mark.parametrize("game", GAMES)
def test_who_discards_how_many_and_when(game):
    """§5.3, §9, §10.3, §11.4–5, §12.2, §14.2: the dealer 2 after picking up his last cards; the
    Terziglio soloist who went up 8 after taking the Pozzo; in Millone the opponent 10, the
    dealer 10 (U22: the opponent first), the dealer 2 more after the second deal; Mattazza none."""
    assert [(s.who, s.count, s.after) for s in discard_steps(game)] == STEPS[game]


def test_millone_first_discarder_option():
    """U22 alternative: the dealer makes the first discard of 10 first."""
    steps = discard_steps("millone", first_discarder="dealer")
    assert [(s.who, s.count) for s in steps] == [("dealer", 10), ("opponent", 10), ("dealer", 2)]
    with pytest.raises(ValueError, match=r"first_discarder='both' is not an option value; allowed: 'opponent', 'dealer'"):
        discard_steps("millone", first_discarder="both")
    with pytest.raises(ValueError, match=r"unknown Tarocchino game 'scopa'"):
        discard_steps("scopa")


@pytest.mark.parametrize(("game", "n"), TABLES)
def test_every_player_plays_the_same_number_of_cards(game, n):
    """§8.2, §10.4, §11.5, §12.2, §14.3: after the deal, the second deal and the discards every
    player holds one card per trick (15, 18 for a Terziglio soloist who went up, 20, 15, 10),
    and the cards in play, the discards and the cards out of play add up to 62 (Millone: 40 in
    tricks + 10 + 12 discards, §11)."""
    dest = deal_destinations(game, n)
    held_ = {k: dest.hand_sizes[k] + dest.second_sizes[k] for k in range(n)}
    dealer, opponent = n - 1, 0
    pozzo = dest.rest_size if dest.rest_place == POZZO else 0
    discards = 0
    for step in discard_steps(game):
        k = {"dealer": dealer, "opponent": opponent, "soloist": 0}[step.who]  # the soloist: any seat, say offset 0
        if step.who == "soloist":
            held_[k] += pozzo  # he goes up: the Pozzo joins his hand
        held_[k] -= step.count
        discards += step.count
    assert list(held_.values()) == [dest.tricks] * n
    out = dest.rest_size if dest.rest_place == OUT else 0
    assert n * dest.tricks + discards + out == NUM_CARDS
    if game == "millone":
        assert (n * dest.tricks, discards) == (40, 22)


@pytest.mark.parametrize(("game", "size", "count"), [("ottocento", 17, 2), ("terziglio", 26, 8), ("millone", 20, 10), ("millone", 22, 2)])
def test_a_legal_discard_always_exists(game, size, count):
    """§5.3 needs no fallback: even a hand with all 8 Carte da 5 keeps enough other cards to
    discard (an Ottocento dealer's 17, the Terziglio soloist's 26, a Millone opponent's 20 at
    the first discard, the Millone dealer's 22 at the second)."""
    others = [c for c in range(NUM_CARDS) if not IS_CARTA_DA_5[c]][: size - 8]
    hand = IS_CARTA_DA_5.copy()
    hand[others] = True
    assert int(hand.sum()) == size
    assert int(discardable(hand).sum()) == size - 8 >= count


def test_discard_seats():
    """The dealer, the 2-player opponent (the dealer's right), or the Terziglio soloist."""
    dealers = np.array([0, 1])
    assert discard_seats(DiscardStep("dealer", 2, "pickup"), dealers, 2).tolist() == [0, 1]
    assert discard_seats(DiscardStep("opponent", 10, "pickup"), dealers, 2).tolist() == [1, 0]
    assert discard_seats(DiscardStep("soloist", 8, "pozzo"), dealers, 3, soloists=np.array([2, 0])).tolist() == [2, 0]
    with pytest.raises(ValueError, match="give soloists"):
        discard_seats(DiscardStep("soloist", 8, "pozzo"), dealers, 3)


# ====================================================================== properties


@settings(max_examples=100, deadline=None)
@given(
    table=st.sampled_from(TABLES),
    packs=st.lists(st.permutations(range(NUM_CARDS)), min_size=1, max_size=4),
    data=st.data(),
)
def test_random_packs_partition_the_62_cards(table, packs, data):
    """Every card of a random pack is in exactly one place: one hand, or the rest; the dealer's
    last cards are his and are the pack's cards at the last-card positions; Millone's second
    deal splits the rest 10/10; ``rest_order`` is the rest, in pack order."""
    game, n = table
    dest = deal_destinations(game, n)
    packs_ = np.array(packs)
    dealers = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=len(packs), max_size=len(packs))))
    dealt = deal_packs(dest, dealers, packs_)
    count = dealt.hands.sum(axis=1) + dealt.rest
    assert np.all(count == 1)
    for r, d in enumerate(dealers):
        sizes = dealt.hands[r].sum(axis=1)
        assert [int(sizes[(d + 1 + k) % n]) for k in range(n)] == list(dest.hand_sizes)
        assert held(dealt.extra[r]) == set(packs_[r, dest.place == EXTRA].tolist())
        assert not np.any(dealt.extra[r] & ~dealt.hands[r, d])
        assert dealt.rest_order[r].tolist() == packs_[r, dest.rest_positions].tolist()
        assert held(dealt.rest[r]) == set(dealt.rest_order[r].tolist())
        if game == "millone":
            assert dealt.second[r].sum(axis=1).tolist() == [10, 10]
            assert np.array_equal(dealt.second[r].sum(axis=0) == 1, dealt.rest[r])
        else:
            assert not dealt.second[r].any()


@settings(max_examples=100, deadline=None)
@given(table=st.sampled_from(TABLES), pack=st.permutations(range(NUM_CARDS)), data=st.data())
def test_random_deals_round_trip_through_the_fixed_deal_form(table, pack, data):
    """format_deal then parse_deal gives a pack that deals exactly the same cards."""
    game, n = table
    dest = deal_destinations(game, n)
    dealer = data.draw(st.integers(0, n - 1))
    pack_ = np.array(pack)
    written = format_deal(dest, dealer, pack_)
    dealer2, pack2 = parse_deal(dest, written)
    a = deal_packs(dest, np.array([dealer]), pack_[None])
    b = deal_packs(dest, np.array([dealer2]), pack2[None])
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


@settings(max_examples=100, deadline=None)
@given(pack=st.permutations(range(NUM_CARDS)), data=st.data())
def test_random_legal_scartate_card_by_card(pack, data):
    """Any choice of legal cards, one per action, makes a Scartata that the whole-discard check
    accepts, and never holds a Carta da 5; adding a Carta da 5 to it makes it illegal."""
    game = data.draw(st.sampled_from(["ottocento", "centocinquanta", "millone"]))
    dest = deal_destinations(game)
    dealt = deal_packs(dest, np.array([0]), np.array(pack)[None])
    step = discard_steps(game)[-1 if game != "millone" else 1]  # the dealer's discard after picking up
    hands0 = dealt.hands[:, 0]
    hands, scarto, left = hands0, np.zeros_like(hands0), np.array([step.count])
    while left[0] > 0:
        legal = np.flatnonzero(discard_mask(hands, left)[0])
        assert len(legal) > 0
        hands, scarto, left = discard_step(hands, scarto, left, np.array([data.draw(st.sampled_from(legal.tolist()))]))
    assert int(scarto.sum()) == step.count and not np.any(scarto & IS_CARTA_DA_5)
    assert legal_discards(hands0, scarto, step.count).tolist() == [True]
    assert discard_errors(hands0, scarto, step.count) == [None]
    assert np.array_equal(hands | scarto, hands0)
    fives = np.flatnonzero(hands0[0] & IS_CARTA_DA_5)
    if len(fives):
        bad = scarto.copy()
        bad[0, np.flatnonzero(scarto[0])[0]] = False
        bad[0, fives[0]] = True
        assert legal_discards(hands0, bad, step.count).tolist() == [False]
