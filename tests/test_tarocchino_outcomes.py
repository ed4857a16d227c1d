"""How a Tarocchino hand ends and scores (§4.6, §12.4, §13, §14.4-5, TV4, TV13, U7, U16): the cappotto
in Ottocento and Centocinquanta (the capotted side keeps its declarations or not), Quindici rounding
each hand's score, and who loses a Mattazza hand, with fixed deals whose numbers are worked by hand.

Conventions of the fixed deals: seats are in play order, the Primo di Mano is dealer + 1, the
dealer's last 2 cards are the last 2 of his list (``helpers_tarocchino.make_deal``).
"""

from __future__ import annotations

import pytest
from helpers_tarocchino import Driver, cappotto_deal, cento_deal, info, make_deal, new_env

# ====================================================================== fixed deals
# ---- Mattazza, 3 players, dealer 0 (seat 1 leads) ----------------------------------------------
MAT_TIE = {0: "QD 6D 7D 8D 10D JD ND 9D AC AD", 1: "T16 T15 T14 T13 AS 6S 7S AB 6B 7B", 2: "10S 9S 8S 10B 10C 8B 6C 7C 8C 9C"}
# the 30 cards played trick by trick (leader first): seat 1 wins 1-4, seat 2 wins 5-8, seat 0 wins 9-10
MAT_TIE_PLAY = (
    "play T16; play 6C; play QD; play T15; play 7C; play 6D; play T14; play 8C; play 7D; play T13; play 9C; play 8D;"
    " play AS; play 10S; play 10D; play 9S; play JD; play 6S; play 8S; play ND; play 7S; play 10B; play 9D; play AB;"
    " play 10C; play AC; play 6B; play AD; play 7B; play 8B"
)


@pytest.mark.parametrize(("keep", "declarations"), [(True, [257, 90]), (False, [0, 90])])
def test_ottocento_cappotto(keep, declarations):
    """§4.6, TV4, U7: seat 1 wins all 15 tricks. The capotted dealer's side loses its 2
    discards and the Matto (covered by the dealer), so side 1 ends with all 62 cards: cards 87,
    last trick 6, combinations 296 + 550 = 846 (TV4: 939). Declarations: side 0 = dealer 35 +
    partner 222 = 257, kept by default (U7), cancelled with `keep_capotted_declarations=False`;
    side 1 = 70 + 20 = 90."""
    env = new_env("ottocento_v0", cappotto_deal(0), keep_capotted_declarations=keep)
    Driver(env, declare=(0, 1, 2, 3), discards={0: "9B 10B"}).run()
    p = info(env)["points"]
    assert [int(w) for w in env.game_state.hist[0, :15]] == [1] * 15
    assert p["capotted"] == [True, False]
    assert p["cards"] == [0, 87] and p["last_trick"] == [0, 6] and p["combinations"] == [0, 846]
    assert p["declarations"] == declarations
    assert p["total"] == [declarations[0], 939 + 90]
    assert info(env)["scores"] == [declarations[0], 1029, declarations[0], 1029]


@pytest.mark.parametrize(("keep", "dealer_total"), [(True, 15), (False, 0)])
def test_centocinquanta_cappotto(keep, dealer_total):
    """§4.6, §12.4: the opponent wins all 15 tricks and gets all 32 cards in play (the dealer's 2
    discards and the Matto, covered in the last trick, included): Σv 53 - 16 = 37 card points,
    last trick 6; Tarocchi ANG MON MAT 18; Grande ANG MON SOL LUN T16..T6 + MAT (for the 5) = 16
    cards -> 75, Spade K Q N + MAT -> 15: 90; combinations 108; declaration 70: total 221. The
    capotted dealer keeps his declared 15 (U7) or not."""
    env = new_env("centocinquanta_v0", cento_deal(), keep_capotted_declarations=keep)
    Driver(env, declare=(0, 1), discards={0: "6C 7C"}).run()
    p = info(env)["points"]
    assert p["capotted"] == [True, False]
    assert p["cards"] == [0, 37] and p["last_trick"] == [0, 6] and p["combinations"] == [0, 108]
    assert p["declarations"] == [dealer_total, 70]
    assert p["total"] == [dealer_total, 221] and info(env)["scores"] == [dealer_total, 221]


@pytest.mark.parametrize(("declare", "raw", "scores"), [((0, 1), [15, 221], [2, 22]), ((), [0, 151], [0, 15])])
def test_quindici_rounds_each_hand_score(declare, raw, scores):
    """§13, TV13: the Centocinquanta hand above, each score rounded q(p) = floor((p + 5)/10):
    q(15) = 2, q(221) = 22; without declarations q(0) = 0, q(151) = 15."""
    env = new_env("quindici_v0", cento_deal())
    Driver(env, declare=declare, discards={0: "6C 7C"}).run()
    assert info(env)["raw"] == raw
    assert info(env)["scores"] == scores


@pytest.mark.parametrize(("full_count", "losers"), [(False, [1, 2]), (True, [0])])
def test_mattazza_everybody_took_a_trick(full_count, losers):
    """§14.4-5: everybody took a trick, so the highest score loses, all of those tied for it.
    Card points per trick: Σv - N + N/3. Seat 1 (tricks 1-4: T16..T13, 6C..9C, QD 6D 7D 8D):
    15 - 12 + 4 = 7; seat 2 (tricks 5-8, JD and ND among 10 scartini): 15 - 12 + 4 = 7; seat 0
    (tricks 9-10, 6 scartini): 6 - 6 + 2 = 2. Card points only (U16 off): 1 and 2 tie -> both
    lose. Full count: seat 0 adds the last trick, 8 (no combination anywhere): he alone loses."""
    env = new_env("mattazza_v0", make_deal("mattazza", 0, MAT_TIE, num_players=3), num_players=3, full_count=full_count)
    Driver(env, script=[a.strip() for a in MAT_TIE_PLAY.split(";")]).run()
    i = info(env)
    assert [int(w) for w in env.game_state.hist[0, :10]] == [1, 1, 1, 1, 2, 2, 2, 2, 0, 0]
    assert i["points"]["total"] == ([2, 7, 7] if not full_count else [8, 7, 7])
    assert i["losers"] == losers


def test_mattazza_players_without_a_trick_lose():
    """§14.5: when somebody took no trick, every player with no trick loses (and the one who
    took them all, with the highest score, does not). Seat 1 holds the 10 top trumps."""
    deal = make_deal("mattazza", 0, {1: "ANG MON SOL LUN T16 T15 T14 T13 T12 T11"}, num_players=3)
    env = new_env("mattazza_v0", deal, num_players=3)
    Driver(env).run()
    i = info(env)
    assert [int(w) for w in env.game_state.hist[0, :10]] == [1] * 10
    assert i["losers"] == [0, 2]
    assert i["scores"][0] == 0 and i["scores"][2] == 0 and i["scores"][1] > 0
