"""Scoring of a French Tarot deal (rules/french_tarot.md §1, §7, §9, §13) at the level of the
pure functions of ``tarot_env.rules.french.scoring``: ``unit_score``, ``chelem_bonus`` and
``share_out``.

Every expected value below was worked out by hand from §9.1:

    S = sgn*(25 + d)*m + pab*10*m + sgn*H + C,   d = ceil(|P - T|),  won = P >= T

with T = 56/51/41/36 for 0/1/2/3 bouts (§1), m = 1/2/4/6 (§3), H the sum of every poignée
shown (§5.2), C the chelem points (§9.1); then the taker gets (N-1)*S, or 2S with a 5-player
partner who gets S, and each defender pays S (§9.2). Points are passed in half-points.
"""

from __future__ import annotations

import numpy as np
import pytest

import tarot_env
from tarot_env.rules.french.actions import MULTIPLIER, POIGNEE_BONUS
from tarot_env.rules.french.scoring import chelem_bonus, score_terms, share_out, unit_score, unit_terms
from tarot_env.rules.french.state import Chelem

CONTRACT = {"P": 1, "G": 2, "GS": 3, "GC": 4}
PAB = {"A": 1, "D": -1, None: 0}
#: chelem key -> (announced, attack made every trick, defence made every trick)
CHELEM = {
    None: (False, False, False),
    "announced_made": (True, True, False),
    "unannounced_made": (False, True, False),
    "announced_failed": (True, False, False),
    "defence": (False, False, True),
}


def deal_score(n, contract, pts, bouts, poignees=0, pab=None, chelem=None, partner=False, taker_seat=0, partner_seat=1):
    """Score one deal through the three scoring functions.

    Returns ``(scores, unit, made)`` with ``scores`` a list in seat order."""
    announced, attack_chelem, defence_chelem = CHELEM[chelem]
    chelem_pts, _ = chelem_bonus(np.array([announced]), np.array([attack_chelem]), np.array([defence_chelem]))
    half_points = round(2 * pts)
    assert half_points == 2 * pts
    unit, made = unit_score(
        np.array([CONTRACT[contract]]), np.array([half_points]), np.array([bouts]), np.array([PAB[pab]]), np.array([poignees]), chelem_pts
    )
    partner_arr = np.array([partner_seat if partner else -1])
    scores = share_out(n, np.array([taker_seat]), partner_arr, np.asarray(unit).reshape(1))
    return [int(x) for x in scores[0]], int(np.asarray(unit).reshape(-1)[0]), bool(np.asarray(made).reshape(-1)[0])


def check(n, contract, pts, bouts, expected_s, taker, defender, partner_score=None, made=None, **kw):
    """Assert S, the taker's, partner's and each defender's score, the zero sum and ``made``."""
    partner = partner_score is not None
    scores, unit, was_made = deal_score(n, contract, pts, bouts, partner=partner, **kw)
    assert unit == expected_s
    assert scores[0] == taker
    defenders = scores[2:] if partner else scores[1:]
    assert defenders == [defender] * len(defenders)
    if partner:
        assert scores[1] == partner_score
    assert sum(scores) == 0
    if made is not None:
        assert was_made is made


# --------------------------------------------------------------------------- §13 V1–V12
SPEC_VECTORS = [
    # id,  N, con,  pts, B, poignées, pab, chelem,            taker, defender, S
    ("V1", 4, "G", 49, 2, 20, "A", None, 318, -106, 106),
    ("V2", 4, "GS", 45, 2, 0, "D", None, 228, -76, 76),
    ("V3", 4, "P", 44, 1, 20, "A", None, -126, 42, -42),
    ("V4", 4, "G", 52, 2, 20, None, None, 276, -92, 92),
    ("V5", 4, "G", 87, 2, 20, "A", "announced_made", 1746, -582, 582),
    ("V6", 4, "G", 45, 2, 0, None, None, 174, -58, 58),
    ("V7", 4, "P", 45, 1, 0, None, None, -93, 31, -31),
    ("V8", 4, "GC", 88, 3, 40, "A", "announced_made", 2886, -962, 962),
    ("V9", 4, "GS", 81, 3, 0, "A", "announced_failed", 360, -120, 120),
    ("V10", 4, "GC", 0, 0, 0, None, "defence", -2058, 686, -686),
    ("V11", 3, "G", 40.5, 2, 0, None, None, -104, 52, -52),
    ("V12", 3, "G", 41.5, 2, 0, None, None, 104, -52, 52),
]


@pytest.mark.parametrize(
    ("vid", "n", "con", "pts", "bouts", "poignees", "pab", "chelem", "taker", "defender", "unit"),
    SPEC_VECTORS,
    ids=[v[0] for v in SPEC_VECTORS],
)
def test_spec_vectors_v1_to_v12(vid, n, con, pts, bouts, poignees, pab, chelem, taker, defender, unit):
    """§13: the spec's worked vectors (FFT-RO-2012 p. 9 examples 1–5, SEED, TarotClub, FFT p. 11)."""
    check(n, con, pts, bouts, unit, taker, defender, poignees=poignees, pab=pab, chelem=chelem)


# --------------------------------------------------------------------------- §9.2 sharing
def test_three_player_taker_gets_twice_s():
    """§9.2, §11: 3 players, taker ±2S, each of the two defenders ∓S.

    Petite, 47.5 points with 1 bout: T = 51, lost by 3.5 -> d = 4 (the half point goes to the
    defence, §9.3); S = -(25 + 4) * 1 = -29; taker -58, defenders +29."""
    check(3, "P", 47.5, 1, -29, -58, 29, made=False)


def test_three_player_garde_won_with_defender_poignee():
    """§9.2, §5.2: 3 players, a defender shows a simple poignée (13 trumps, 20) and the taker wins it.

    Garde, 60 points with 2 bouts: T = 41, won by 19; S = (25 + 19) * 2 + 20 = 108; taker +216."""
    check(3, "G", 60, 2, 108, 216, -108, poignees=20, made=True)


def test_three_player_garde_sans_lost_by_half_a_point_with_petit_au_bout():
    """§9.3, §7: 3 players, garde sans, 55.5 points with 0 bouts: T = 56, lost by 0.5 -> d = 1;
    the attack won the Petit au bout: +10 * 4.  S = -(26) * 4 + 40 = -64; taker -128, defenders +64."""
    check(3, "GS", 55.5, 0, -64, -128, 64, pab="A", made=False)


def test_five_player_with_partner_shares_2_1_1():
    """§9.2, §10: 5 players 2 vs 3: taker +2S, partner +S, three defenders -S each.

    Petite, 60.5 points with 1 bout: T = 51, won by 9.5 -> d = 10; S = 35; taker +70, partner +35."""
    check(5, "P", 60.5, 1, 35, 70, -35, partner_score=35, made=True)


def test_five_player_partner_pays_with_the_taker():
    """§9.2, §10, §5.2, §7: the partner's share follows the attack's sign, and a poignée shown by the
    partner goes to the defence when the attack loses.

    Garde, 38 points with 2 bouts: T = 41, lost by 3; S = -(28) * 2 - 10 * 2 (defence Petit au bout)
    - 20 (partner's simple poignée of 8) = -96; taker -192, partner -96, defenders +96."""
    check(5, "G", 38, 2, -96, -192, 96, partner_score=-96, pab="D", poignees=20, made=False)


def test_five_player_taker_alone_gets_four_s():
    """§9.2, §10: the taker called himself (or the called king was in the chien): 1 vs 4, +4S.

    Garde, 40 points with 3 bouts: T = 36, won by 4; S = 29 * 2 = 58; taker +232, four defenders -58."""
    check(5, "G", 40, 3, 58, 232, -58, made=True)


def test_five_player_taker_alone_garde_contre_lost_by_half_a_point():
    """§9.2, §9.3, §10: taker alone, garde contre, 50.5 points with 1 bout: T = 51, lost by 0.5
    -> d = 1; S = -(26) * 6 = -156; taker -624, four defenders +156."""
    check(5, "GC", 50.5, 1, -156, -624, 156, made=False)


def test_share_out_seats():
    """§9.2: share_out puts the taker's and partner's shares on their own seats (here taker seat 3,
    partner seat 1, S = 35) and every defender pays S."""
    scores = share_out(5, np.array([3, 2]), np.array([1, -1]), np.array([35, -20]))
    assert scores.tolist() == [[-35, 35, -35, 70, -35], [20, 20, -80, 20, 20]]
    assert share_out(4, np.array([2]), np.array([-1]), np.array([-42])).tolist() == [[42, 42, -126, 42]]
    assert share_out(3, np.array([1]), np.array([-1]), np.array([52])).tolist() == [[-52, 104, -52]]


# --------------------------------------------------------------------------- §9.1 "juste fait"
@pytest.mark.parametrize(
    ("con", "pts", "bouts", "unit"),
    [("P", 56, 0, 25), ("G", 51, 1, 50), ("GS", 41, 2, 100), ("GC", 36, 3, 150)],
    ids=["petite-56-0bout", "garde-51-1bout", "garde_sans-41-2bouts", "garde_contre-36-3bouts"],
)
def test_juste_fait_is_won_by_zero(con, pts, bouts, unit):
    """§9.1: points exactly at the threshold ("juste fait") win the contract by d = 0: S = 25 * m."""
    check(4, con, pts, bouts, unit, 3 * unit, -unit, made=True)


def test_juste_fait_collects_the_poignees():
    """§9.1, §5.2: a contract made by 0 is won, so every poignée goes to the taker.

    Garde, 41 points with 2 bouts, a defender showed a double (30): S = 25 * 2 + 30 = 80."""
    check(4, "G", 41, 2, 80, 240, -80, poignees=30, made=True)


# --------------------------------------------------------------------------- garde contre
def test_garde_contre_made():
    """§3, §9.1: garde contre multiplies by 6. 60 points with 1 bout: T = 51, won by 9;
    S = 34 * 6 = 204; taker +612."""
    check(4, "GC", 60, 1, 204, 612, -204, made=True)


def test_garde_contre_lost_with_defence_petit_au_bout():
    """§3, §7, §9.1: garde contre lost, 30 points with 0 bouts: T = 56, lost by 26;
    S = -(51) * 6 - 10 * 6 (Petit au bout to the defence) = -366; taker -1098, defenders +366."""
    check(4, "GC", 30, 0, -366, -1098, 366, pab="D", made=False)


# --------------------------------------------------------------------------- poignées
def test_several_poignees_all_go_to_the_winning_taker():
    """§5.2, §9.1: the taker shows a double (30) and a defender a simple (20): H = 50, all to the
    side that wins. Garde, 45 points with 2 bouts: won by 4; S = 29 * 2 + 50 = 108; taker +324."""
    check(4, "G", 45, 2, 108, 324, -108, poignees=50, made=True)


def test_several_poignees_all_go_to_the_winning_defence():
    """§5.2, §9.1: same poignées (50), the taker loses: Garde, 38 points with 2 bouts, lost by 3;
    S = -(28) * 2 - 50 = -106; the taker pays his own double too: -318, defenders +106."""
    check(4, "G", 38, 2, -106, -318, 106, poignees=50, made=False)


def test_three_poignees_not_multiplied():
    """§5.2, §9.4: poignées are not multiplied by the contract. Taker triple (40), two defenders
    simple (20 + 20): H = 80. Garde sans, 52 points with 1 bout: won by 1; S = 26 * 4 + 80 = 184."""
    check(4, "GS", 52, 1, 184, 552, -184, poignees=80, made=True)


# --------------------------------------------------------------------------- §7 petit au bout
def test_petit_au_bout_is_multiplied():
    """§7, §9.4: the Petit au bout is 10 * m. Garde sans, 50 points with 2 bouts: won by 9;
    S = 34 * 4 + 10 * 4 = 176; taker +528."""
    check(4, "GS", 50, 2, 176, 528, -176, pab="A", made=True)


def test_petit_au_bout_is_independent_of_the_contract():
    """§7, §9.4: the defence's Petit au bout counts against a made contract.
    Petite, 60 points with 1 bout: won by 9; S = 34 - 10 = 24; taker +72."""
    check(4, "P", 60, 1, 24, 72, -24, pab="D", made=True)


# --------------------------------------------------------------------------- chelem
def test_failed_announced_chelem_with_contract_made_scores_negative():
    """§9.1, §9.4: an announced chelem that fails costs 200 even when the contract is made.
    Petite, 60 points with 1 bout: won by 9; S = 34 - 200 = -166; made, yet the taker scores -498."""
    check(4, "P", 60, 1, -166, -498, 166, chelem="announced_failed", made=True)


def test_failed_announced_chelem_garde_three_bouts():
    """§9.1: Garde, 70 points with 3 bouts: T = 36, won by 34; S = 59 * 2 - 200 = -82; taker -246."""
    check(4, "G", 70, 3, -82, -246, 82, chelem="announced_failed", made=True)


def test_unannounced_chelem():
    """§9.1: a chelem made without announcement is worth 200. Garde, 91 points with 3 bouts:
    won by 55; S = 80 * 2 + 200 = 360; taker +1080."""
    check(4, "G", 91, 3, 360, 1080, -360, chelem="unannounced_made", made=True)


def test_defence_chelem():
    """§9.1: the defence wins every trick; each defender receives 200 more. Petite, the attack has
    only its écart (3 points, 0 bouts): T = 56, lost by 53; S = -(78) - 200 = -278; taker -834."""
    check(4, "P", 3, 0, -278, -834, 278, chelem="defence", made=False)


def test_defence_chelem_with_petit_au_bout_three_players():
    """§9.1, §7, §11: 3 players, garde, defence chelem with the Petit au bout to the defence; the
    attack has its écart (2 points, 0 bouts): lost by 54; S = -(79) * 2 - 20 - 200 = -378; taker -756."""
    check(3, "G", 2, 0, -378, -756, 378, pab="D", chelem="defence", made=False)


def test_chelem_bonus_values_and_codes():
    """§9.1, §15.5: +400 announced and made, +200 made unannounced, -200 announced and failed,
    -200 defence chelem; announced and defence chelem together -400 (default), -200 with
    ``double_penalty=False`` (as TarotClub)."""
    announced = np.array([True, False, True, False, True, False])
    attack = np.array([True, True, False, False, False, False])
    defence = np.array([False, False, False, True, True, False])
    pts, codes = chelem_bonus(announced, attack, defence)
    assert pts.tolist() == [400, 200, -200, -200, -400, 0]
    assert codes.tolist() == [
        Chelem.ANNOUNCED_MADE,
        Chelem.UNANNOUNCED_MADE,
        Chelem.ANNOUNCED_FAILED,
        Chelem.DEFENCE,
        Chelem.ANNOUNCED_FAILED_AND_DEFENCE,
        Chelem.NONE,
    ]
    pts, _ = chelem_bonus(announced, attack, defence, double_penalty=False)
    assert pts.tolist() == [400, 200, -200, -200, -200, 0]


# --------------------------------------------------------------------------- §9.3 half points
@pytest.mark.parametrize(
    ("n", "pts", "unit", "made"),
    [(3, 55.5, -26, False), (3, 56.5, 26, True), (5, 55.5, -26, False), (5, 56.5, 26, True)],
    ids=["3p-55.5-lost-by-1", "3p-56.5-won-by-1", "5p-55.5-lost-by-1", "5p-56.5-won-by-1"],
)
def test_half_point_goes_to_the_winner_3_and_5_players(n, pts, unit, made):
    """§9.3: 3 and 5 players, Petite with 0 bouts (T = 56): 55.5 is lost by 1 (-26), 56.5 won by 1 (+26)."""
    scores, s, was_made = deal_score(n, "P", pts, 0)
    assert (s, was_made) == (unit, made)
    assert scores == [(n - 1) * unit] + [-unit] * (n - 1)


def test_half_point_five_players_with_partner():
    """§9.3, §10: 5 players 2 vs 3, garde, 50.5 points with 1 bout: lost by 0.5 -> 1;
    S = -(26) * 2 = -52; taker -104, partner -52, defenders +52."""
    check(5, "G", 50.5, 1, -52, -104, 52, partner_score=-52, made=False)


@pytest.mark.parametrize(
    ("con", "pts", "bouts", "unit", "made"),
    [("P", 43.5, 2, 28, True), ("G", 43.5, 1, -66, False), ("P", 40.5, 2, -26, False)],
    ids=["petite-43.5-2bouts-won-by-3", "garde-43.5-1bout-lost-by-8", "petite-40.5-2bouts-lost-by-1"],
)
def test_half_point_four_players(con, pts, bouts, unit, made):
    """§9.3: in 4 players the attack can end on a half point (the Excuse changing camp on the last
    trick); the same rule applies. 43.5 with 2 bouts: won by 2.5 -> 3, S = 28 (petite); 43.5 with
    1 bout: lost by 7.5 -> 8, S = -(33) * 2 = -66 (garde); 40.5 with 2 bouts: lost by 1, S = -26."""
    check(4, con, pts, bouts, unit, 3 * unit, -unit, made=made)


# --------------------------------------------------------------------------- §1 thresholds
@pytest.mark.parametrize(("bouts", "threshold"), [(0, 56), (1, 51), (2, 41), (3, 36)])
def test_bout_thresholds(bouts, threshold):
    """§1: the attack needs 56 / 51 / 41 / 36 points with 0 / 1 / 2 / 3 bouts. At the threshold
    the petite is won by 0 (S = 25); half a point below it is lost by 1 (S = -26); one point below,
    lost by 1 too; one point above, won by 1 (S = 26)."""
    for pts, unit, made in [(threshold, 25, True), (threshold - 0.5, -26, False), (threshold - 1, -26, False), (threshold + 1, 26, True)]:
        _, s, was_made = deal_score(4, "P", pts, bouts)
        assert (s, was_made) == (unit, made), (pts, bouts)


def test_same_points_different_bouts():
    """§1: 41 points are won by 0 with 2 bouts (S = 25) but lost by 10 with 1 bout (S = -35), by 15
    with 0 bouts (S = -40), and won by 5 with 3 bouts (S = 30)."""
    got = [deal_score(4, "P", 41, b)[1] for b in range(4)]
    assert got == [-40, -35, 25, 30]


def test_unit_score_works_on_a_batch():
    """§9.1 over a batch: three deals at once give the same units as one at a time (V1, V3, V7)."""
    contract, half_points, bouts = np.array([2, 1, 1]), np.array([98, 88, 90]), np.array([2, 1, 1])
    unit, made = unit_score(contract, half_points, bouts, np.array([1, 1, 0]), np.array([20, 20, 0]), np.array([0, 0, 0]))
    assert unit.tolist() == [106, -42, -31]
    assert made.tolist() == [True, False, False]


# --------------------------------------------------------------------------- §9.1 term by term
@pytest.mark.parametrize(
    ("vid", "terms"),
    [
        # id: made, d, m, contract sgn*(25 + d)*m, petit au bout pab*10*m, poignées sgn*H, chelem C
        ("V1", (True, 8, 2, 66, 20, 20, 0)),
        ("V2", (True, 4, 4, 116, -40, 0, 0)),
        ("V3", (False, 7, 1, -32, 10, -20, 0)),
        ("V5", (True, 46, 2, 142, 20, 20, 400)),
        ("V10", (False, 56, 6, -486, 0, 0, -200)),
        ("V11", (False, 1, 2, -52, 0, 0, 0)),
    ],
)
def test_unit_terms_of_the_worked_vectors(vid: str, terms: tuple) -> None:
    """§9.1 term by term (what ``tarot play`` shows): the terms of the worked vectors, by hand,
    add up to their S; the poignée takes the sign of the deal's winner (V3: the taker's own
    poignée counts against him), the petit au bout its own side's (V2: the defence's, in a made
    contract)."""
    _, _, con, pts, bouts, poignees, pab, chelem, _, _, unit = next(v for v in SPEC_VECTORS if v[0] == vid)
    chelem_pts, _ = chelem_bonus(*CHELEM[chelem])
    got = unit_terms(CONTRACT[con], round(2 * pts), bouts, PAB[pab], poignees, chelem_pts)
    assert tuple(int(x) if not isinstance(x, bool) else x for x in got) == terms
    assert sum(terms[3:]) == unit


def _played_to_the_end(n: int, seed: int):
    """A French deal of ``n`` players played by random legal moves; its env."""
    env = tarot_env.make("french_tarot_v0", num_players=n)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not env.unwrapped.game_over:
        obs = env.observe(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return env


def test_score_terms_are_the_scores_own() -> None:
    """``score_terms`` reads a finished deal's S term by term from what the scoring stored: the
    terms add up to the deal's unit, agree with its result fields (made, petit au bout, chelem,
    the poignées shown), over deals with each term non-zero; a deal thrown in has none."""
    seen = set()
    for n in (3, 4, 5):
        for seed in range(40):
            env = _played_to_the_end(n, seed)
            raw = env.unwrapped
            s = raw.game_state
            info = raw.infos[raw.possible_agents[0]]
            if info["result"] != "played":
                continue
            t = score_terms(raw.game, s, 0)
            assert t["unit"] == info["unit"] == t["contract"] + t["petit_au_bout"] + t["poignees"] + t["chelem"]
            sgn = 1 if info["made"] else -1
            assert t["made"] is info["made"] and t["multiplier"] == MULTIPLIER[int(s.contract[0])]
            assert t["threshold"] == [56, 51, 41, 36][info["attack_bouts"]]
            assert t["difference"] == -(-abs(info["attack_points"] - t["threshold"]) // 1)  # the half point to the winner
            assert t["contract"] == sgn * (25 + t["difference"]) * t["multiplier"]
            assert t["petit_au_bout"] == info["petit_au_bout"] * 10 * t["multiplier"]
            assert t["poignees"] == sgn * int(POIGNEE_BONUS[s.poignee[0]].sum())
            assert (t["chelem"] != 0) == (info["chelem"] != "none")
            seen |= {k for k in ("petit_au_bout", "poignees", "chelem") if t[k]}
    assert seen == {"petit_au_bout", "poignees", "chelem"}

    env = tarot_env.make("french_tarot_v0", num_players=4)
    env.reset(seed=0)
    while not env.unwrapped.game_over:
        env.step(env.unwrapped.string_to_action("pass"))
    with pytest.raises(ValueError, match=r"holds no played, finished deal \(result all_passed\): it has no score to break down"):
        score_terms(env.unwrapped.game, env.unwrapped.game_state, 0)
