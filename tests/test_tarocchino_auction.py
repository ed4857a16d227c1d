"""The Terziglio auction through the env (§10.3, §10.6, U12, U13, U18, TV4, TV12): the speaker's pass,
posso or di mio and the answers to a posso; three passes throw the deal in; a posso accepted takes
the bidder up with the Pozzo (and his discards); a refusal or a di mio makes the soloist play with
his 18 cards; who leads the first trick; and whole di mio hands settled by hand.

Conventions of the fixed deals: seats are in play order, the Primo di Mano is dealer + 1, the
dealer's last 2 cards are the last 2 of his list (``helpers_tarocchino.make_deal``).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_tarocchino import ALL_CARDS, Driver, cards, field, hand_of, info, kind, legal, make_deal, new_env, seat

import tarot_env
from tarot_env.rules.bolognese.state import PL_POZZO, PLACE, SOLOIST

# ====================================================================== fixed deals
# ---- Terziglio, dealer 0, receiver 1 ------------------------------------------------------------
# the receiver: 17 trumps ANG MON SOL LUN T16..T5 M1 and the 6S. Declaration: Grande ANG + MON SOL
# LUN + T16..T5 (12) + M1 (past the 5) = 17 cards -> 80; nothing else (ANG MON: 2 Tarocchi).
TERZ1 = "ANG MON SOL LUN T16 T15 T14 T13 T12 T11 T10 T9 T8 T7 T6 T5 M1 6S"
TERZ_POZZO = "MAT BEG M2 M3 M4 KS KB KC"


def terz_deal() -> dict:
    # the opponents hold only suit cards; seat 2's lowest card id is AS, seat 0's is 7S
    return make_deal("terziglio", 0, {1: TERZ1, 2: "AS", 0: "7S"}, rest=TERZ_POZZO)


def terz_env(**config):
    return new_env("terziglio_v0", terz_deal(), **config)


def one_hot(env, viewer: int, name: str) -> list[int]:
    return [int(x) for x in field(env, viewer, name)]


def test_terziglio_auction_actions():
    """§10.3: the speaker says pass, posso or di_mio; a posso is answered va_bene or oppose."""
    env = terz_env()
    assert seat(env) == 1 and legal(env) == ["pass", "posso", "di_mio"]  # the receiver (dealer's right) speaks first
    env.step("posso")
    assert seat(env) == 2 and legal(env) == ["va_bene", "oppose"]
    with pytest.raises(tarot_env.IllegalActionError):
        env.step("pass")
    env.step("va_bene")
    assert seat(env) == 0 and legal(env) == ["va_bene", "oppose"]


def test_terziglio_three_passes_throw_the_deal_in():
    """§10.3, U12: three passes: the deal is thrown in, nobody scores."""
    env = terz_env()
    for s in (1, 2, 0):
        assert seat(env) == s
        env.step("pass")
    assert env.game_over
    assert info(env)["result"] == "thrown_in" and info(env)["scores"] == [0, 0, 0]
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 0.0}


def test_terziglio_posso_accepted_goes_up_with_the_pozzo():
    """§10.3: posso + va_bene + va_bene: the bidder goes up, takes the 8 Pozzo cards (26) and
    discards 8 (never a King or a Tarocco), then the receiver leads."""
    env = terz_env()
    play_ = ["posso", "va_bene", "va_bene"]
    for a in play_:
        env.step(a)
    assert hand_of(env, 1) == set(cards(TERZ1) + cards(TERZ_POZZO))
    assert int(field(env, 1, "hand").sum()) == 26
    assert not (env.game_state.cards[0, PLACE] == PL_POZZO).any()
    allowed = set(cards(TERZ1) + cards(TERZ_POZZO)) - set(cards("ANG MON MAT BEG KS KB KC"))
    assert set(legal(env)) == {f"discard {c}" for c in allowed}
    assert one_hot(env, 0, "soloist") == [0, 1, 0] and one_hot(env, 0, "contract") == [1, 0]
    for c in cards("6S T5 T6 T7 T8 T9 T10 T11"):
        assert seat(env) == 1
        env.step(f"discard {c}")
    assert len(hand_of(env, 1)) == 18
    assert set(cards("6S T5 T6 T7 T8 T9 T10 T11")) == {ALL_CARDS[c] for c in np.flatnonzero(field(env, 1, "discard"))}
    assert seat(env) == 1 and kind(legal(env)) in ("declare", "play")


@pytest.mark.parametrize(
    ("calls", "soloist"),
    [
        (["posso", "oppose"], 2),  # the first answerer refuses
        (["posso", "va_bene", "oppose"], 0),  # the second answerer refuses
        (["pass", "posso", "va_bene", "oppose"], 1),  # the receiver passed, then refuses the posso (U12)
        (["di_mio"], 1),
        (["pass", "pass", "di_mio"], 0),
    ],
)
def test_terziglio_di_mio_paths(calls, soloist):
    """§10.3, U12: "No! Faccio di mio" makes the refuser (even one who passed) the soloist, who
    plays with his 18 cards; "faccio di mio" at one's turn to speak does the same. The Pozzo
    stays aside (8 cards), nobody discards, and the receiver (seat 1) leads (U13)."""
    env = terz_env()
    for a in calls:
        env.step(a)
    assert int(env.game_state.ints[0, SOLOIST]) == soloist
    assert one_hot(env, 1, "soloist") == [int((soloist - 1) % 3 == r) for r in range(3)]
    assert one_hot(env, 1, "contract") == [0, 1]
    assert int((env.game_state.cards[0, PLACE] == PL_POZZO).sum()) == 8
    assert all(len(hand_of(env, s)) == 18 for s in range(3))
    assert seat(env) == 1 and kind(legal(env)) in ("declare", "play")


@pytest.mark.parametrize(("first_lead", "leader"), [("receiver", 1), ("soloist", 2)])
def test_terziglio_first_lead(first_lead, leader):
    """U13: the receiver leads the first trick by default; `first_lead="soloist"`: the soloist.
    Here the receiver passes and seat 2 goes up."""
    env = terz_env(first_lead=first_lead)
    for a in ["pass", "posso", "va_bene", "va_bene"]:
        env.step(a)
    for _ in range(8):
        assert seat(env) == 2
        env.step(legal(env)[0])
    assert seat(env) == leader and kind(legal(env)) in ("declare", "play")
    Driver(env).run(until=lambda e: kind(legal(e)) == "play")
    assert seat(env) == leader
    assert one_hot(env, 0, "primo") == [int((leader - 0) % 3 == r) for r in range(3)]


@pytest.mark.parametrize(
    ("declare", "points", "settlement"),
    [
        # soloist 61.5 + 376 + 80 = 517.5 -> 517 -> poste (517 - 5) // 10 = 51 -> 4 x 51 = 204
        ((1,), {"total": [517.5, 68.5], "declarations": [80, 0]}, [-102, 204, -102]),
        # without the declaration: 437.5 -> 437 -> poste 43 -> 172
        ((), {"total": [437.5, 68.5], "declarations": [0, 0]}, [-86, 172, -86]),
    ],
)
def test_terziglio_di_mio_whole_hand(declare, points, settlement):
    """§10.3, §10.6, U18, TV12 on a whole hand. The receiver plays di mio with 17 trumps and the
    6S; everybody plays his highest card id: he wins tricks 1-17 with trumps, then leads the 6S
    and loses the last trick to seat 0's 7S (seat 2 has the AS). The Pozzo (MAT BEG M2 M3 M4 KS
    KB KC) goes unseen to the opponents, who won the last trick.

    Opponents (11 cards: 6S AS 7S + Pozzo): Σv 31, cards 31 - 11/2 = 25.5; last trick 6; Re KS KB
    KC 17; Mori M2 M3 M4 + 2 contatori -> 5 cards -> 20 (AS alone, no King with a figure): 37.
    Total 68.5. Soloist (51 cards): cards 87 - 25.5 = 61.5; criccone Regine 28 + Cavalli 26 +
    Fanti 24 = 78 x 2 = 156; Grande ANG MON SOL LUN T16..T5 + M1 = 17 cards -> 80, Denari K Q N F
    A -> 20, Aces AB AC AD -> 10, 3 sequences doubled: 220; combinations 376. Di mio: stake 4 x
    poste to the soloist, half of it from each opponent (TV12)."""
    env = terz_env()
    env.step("di_mio")
    d = Driver(env, declare=declare, order="last").run()
    i = info(env)
    assert i["points"]["cards"] == [61.5, 25.5]
    assert i["points"]["last_trick"] == [0, 6]
    assert i["points"]["combinations"] == [376, 37]
    for key, value in points.items():
        assert i["points"][key] == value
    assert (i["soloist"], i["contract"], i["soloist_won"]) == (1, "di_mio", True)
    assert i["winner_points"] == int(points["total"][0]) and i["poste"] == (int(points["total"][0]) - 5) // 10
    assert i["scores"] == settlement
    assert d.rewards == {f"player_{s}": float(settlement[s]) for s in range(3)}
    assert [w for w in env.game_state.hist[0, :18]] == [1] * 17 + [0]


@pytest.mark.parametrize(("declare", "total", "settlement"), [((1,), 1024, [-202, 404, -202]), ((), 939, [-186, 372, -186])])
def test_terziglio_di_mio_soloist_takes_the_last_trick_and_the_pozzo(declare, total, settlement):
    """§10.3, §10.6, TV4, TV12: the receiver plays di mio with the 18 trumps ANG MON SOL LUN
    T16..T5 M1 M2; the opponents hold only suit cards, so he wins all 18 tricks, the last one
    too, and the Pozzo (M3 M4 BEG MAT and 4 suit cards) goes to him: all 62 cards, 87 + 6 +
    846 = 939 (TV4). Declaration: Grande with M1 M2 past the 5 = 18 cards -> 85. Declared:
    1024 -> poste (1024 - 5) // 10 = 101 -> 4 x 101 = 404; undeclared: 939 -> 93 -> 372."""
    deal = make_deal(
        "terziglio", 0, {1: "ANG MON SOL LUN T16 T15 T14 T13 T12 T11 T10 T9 T8 T7 T6 T5 M1 M2"}, rest="M3 M4 BEG MAT AS AB AC AD"
    )
    env = new_env("terziglio_v0", deal)
    env.step("di_mio")
    Driver(env, declare=declare, order="last").run()
    i = info(env)
    assert [int(w) for w in env.game_state.hist[0, :18]] == [1] * 18
    p = i["points"]
    assert p["cards"] == [87, 0] and p["last_trick"] == [6, 0] and p["combinations"] == [846, 0]
    assert p["declarations"] == [total - 939, 0] and p["total"] == [total, 0] and p["capotted"] == [False, True]
    assert (i["soloist_won"], i["winner_points"], i["poste"]) == (True, total, (total - 5) // 10)
    assert i["scores"] == settlement
