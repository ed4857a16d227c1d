"""End-of-hand scoring and game-level rules of the Tarocchino games (rules/tarocchino.md §§4.6, 7–14):
``tarot_env.rules.bolognese.scoring`` (the counts) and ``.settlement`` (the ends of a game).

Worked examples are counted by hand from the spec's text, with the arithmetic in comments; the
spec's vectors TV4, TV9, TV12 and TV13 are checked as written in §16; properties check, over
random end-of-hand piles, what holds for every hand (card points 87/93, zero-sum settlements,
the losers' rule of Mattazza, claims in order).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.tarocchino_claims import (
    DUEL_CLAIMS,
    FACCIO_DI_MIO,
    OTTOCENTO_CLAIMS,
    PASSO,
    POSSO,
    VA_BENE,
    claim_outcome,
    duel_claims,
    ottocento_claims,
    quindici_claims,
    terziglio_auction,
)
from oracles.tarocchino_scoring import (
    CENTOCINQUANTA_TARGETS,
    MILLONE_TARGET,
    OTTOCENTO_TARGETS,
    QUINDICI_TARGETS,
    apply_cappotto,
    centocinquanta_hand_scores,
    millone_hand_scores,
    ottocento_hand_scores,
    quindici_hand_scores,
)

from tarot_env.cards.bolognese import BOLOGNESE_DECK, NUM_CARDS
from tarot_env.rules.bolognese.combinations import combination_points
from tarot_env.rules.bolognese.counting import CARD_VALUE
from tarot_env.rules.bolognese.scoring import (
    DI_MIO,
    NO_CONTRACT,
    SU,
    TERZIGLIO_STAKE,
    declaration_points,
    hand_scores,
    mattazza_hand,
    mattazza_losers,
    quindici_round,
    terziglio_hand,
    terziglio_poste,
    terziglio_settlement,
)
from tarot_env.rules.bolognese.settlement import (
    DRAW,
    PLAY_ON,
    QUATTRO_SCARTATE_HANDS,
    game_result,
    mattazza_standing,
    quattro_scartate_result,
)

ALL = " ".join(BOLOGNESE_DECK.names)


def mask(cards: str) -> np.ndarray:
    """(62,) bool mask of cards in the project's notation, space-separated."""
    return BOLOGNESE_DECK.mask(cards.split()) if cards else np.zeros(NUM_CARDS, dtype=bool)


def piles(*sides: str) -> np.ndarray:
    """(1, S, 62) piles, one string per side."""
    return np.stack([mask(s) for s in sides])[None]


def two_sides(side0: str) -> np.ndarray:
    """(1, 2, 62): side 0 holds the cards named, side 1 the rest of the pack."""
    m = mask(side0)
    return np.stack([m, ~m])[None]


# ====================================================================== Ottocento: one hand (§8.3)


def test_tv4_capotto_one_side_holds_everything():
    """§16 TV4: one side holds all 62 cards and the last trick: cards 87 + 6 = 93, cricche
    148 × 2 = 296, sequences 275 × 2 = 550: 939. The capotted side keeps its declarations (U7)."""
    s = ottocento_hand_scores(two_sides(ALL), [[15, 0]], [0], [[0, 45]])
    assert s.cards.tolist() == [[87, 0]]
    assert s.last_trick.tolist() == [[6, 0]]
    assert s.combinations.tolist() == [[296 + 550, 0]]
    assert s.total.tolist() == [[939, 45]]
    assert s.capotted.tolist() == [[False, True]]


def test_tv4_capotted_dealer_side_loses_its_discard_and_the_matto():
    """§4.6: side 1 dealt (its 2 discards 6S 7S in its pile) and covered the Matto, but took
    no trick: both go to the opponents, who then hold the 62 cards: 939 as in TV4. The same
    hand with the sides swapped gives the mirror image."""
    capotted = "6S 7S MAT"
    p = np.stack([~mask(capotted), mask(capotted)])[None]
    s = ottocento_hand_scores(p, [[15, 0]], [0])
    assert s.total.tolist() == [[939, 0]]
    s = ottocento_hand_scores(p[:, ::-1], [[0, 15]], [1])
    assert s.total.tolist() == [[0, 939]]


SIDE_A = "KS QS NS JS ANG BEG AS 6S 7S 8S 9S 10S AB 6B 7B 8B"


def test_a_hand_worked_by_hand():
    """An Ottocento hand, both sides counted by hand (§8.3).

    Side 0 (4 tricks, 16 cards, and the last trick): KS QS NS JS ANG BEG AS 6S 7S 8S 9S 10S AB 6B 7B 8B.
      cards: Σv = 5+4+3+2+5+5 + 10 scartini = 34; 34 − 16/2 = 26; last trick +6.
      cricche: Tarocchi ANG BEG (2) no; Re KS alone no: 0.
      sequences, C = 1 (BEG): Spade K + Q N J (f = 3) + AS + BEG: L = 6 → 25; Aces AS AB + BEG:
      L = 3 → 10; Grande ANG without Mondo/Sole/Luna: none. 2 sequences, no doubling: 35.
      declared 35. Total 26 + 6 + 35 + 35 = 102.
    Side 1 (the dealer's side: 11 tricks + 2 discards = 46 cards): the rest.
      cards: Σv = 118 − 34 = 84; 84 − 23 = 61.
      cricche: Re KB KC KD 17, Regine 14, Cavalli 13, Fanti 12 (Tarocchi MON MAT: no): 4 cricche
      = 56, criccone × 2 = 112.
      sequences, C = 1 (MAT): Bastoni K Q N J + MAT (AB is side 0's) L = 5 → 20; Coppe K Q N J
      AC + MAT L = 6 → 25; Denari the same 25; Mori 4 + MAT L = 5 → 20; Aces AC AD + MAT L = 3 → 10.
      5 sequences: 100 × 2 = 200.
      declared 45. Total 61 + 112 + 200 + 45 = 418.
    """
    s = ottocento_hand_scores(two_sides(SIDE_A), [[4, 11]], [0], [[35, 45]])
    assert s.cards.tolist() == [[26, 61]]
    assert s.last_trick.tolist() == [[6, 0]]
    assert s.combinations.tolist() == [[35, 312]]
    assert s.declarations.tolist() == [[35, 45]]
    assert s.total.tolist() == [[102, 418]]
    assert s.capotted.tolist() == [[False, False]]
    assert s.scale == 1


def test_rows_are_independent():
    """A batch of different hands gives each row its own score (TV4 and the worked hand)."""
    p = np.concatenate([two_sides(SIDE_A), two_sides(ALL), two_sides(SIDE_A)[:, ::-1]])
    s = ottocento_hand_scores(p, [[4, 11], [15, 0], [11, 4]], [0, 0, 1], [[35, 45], [0, 0], [45, 35]])
    assert s.total.tolist() == [[102, 418], [939, 0], [418, 102]]


def test_u7_capotted_declarations_cancelled_on_request():
    """U7's alternative: the capotted side's declarations are cancelled; the others' stay."""
    p = np.concatenate([two_sides(ALL), two_sides(SIDE_A)])
    s = ottocento_hand_scores(p, [[15, 0], [4, 11]], [0, 0], [[10, 45], [35, 45]], keep_capotted_declarations=False)
    assert s.total.tolist() == [[949, 0], [102, 418]]


def test_u11_cappotto_bonus_is_an_option_and_off_by_default():
    """U11: no bonus by default; ``cappotto_bonus=40`` adds 40 to the side that took every trick only."""
    p = np.concatenate([two_sides(ALL), two_sides(SIDE_A)])
    s = ottocento_hand_scores(p, [[15, 0], [4, 11]], [0, 0], cappotto_bonus=40)
    assert s.bonus.tolist() == [[40, 0], [0, 0]]
    assert s.total.tolist() == [[979, 0], [67, 373]]
    assert ottocento_hand_scores(p, [[15, 0], [4, 11]], [0, 0]).bonus.tolist() == [[0, 0], [0, 0]]


def test_u5_and_doubling_options_reach_the_combinations():
    """The combination options (U5, §6.2) are passed on: without doubling TV4's side scores
    93 + 148 + 275 = 516; the worked hand's side 1 61 + 56 + 100 = 217."""
    p = np.concatenate([two_sides(ALL), two_sides(SIDE_A)])
    s = ottocento_hand_scores(p, [[15, 0], [4, 11]], [0, 0], doubling=False)
    assert s.total.tolist() == [[516, 0], [67, 217]]
    # U5 "grande": the Mori counted in the full Grande make no Mori sequence: 550 − 2 × 25 = 500
    s = ottocento_hand_scores(two_sides(ALL), [[15, 0]], [0], mori="grande")
    assert s.total.tolist() == [[93 + 296 + 500, 0]]


def test_apply_cappotto_moves_only_a_trickless_sides_pile():
    p = np.concatenate([np.stack([~mask("6S 7S MAT"), mask("6S 7S MAT")])[None], two_sides(SIDE_A)])
    out, capotted = apply_cappotto(p, np.array([[15, 0], [4, 11]]))
    assert capotted.tolist() == [[False, True], [False, False]]
    assert out[0, 0].all() and not out[0, 1].any()
    assert (out[1] == p[1]).all()  # both sides took tricks: nothing moves


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"piles": np.stack([mask(ALL), mask("KS")])[None]}, "two piles"),
        ({"piles": np.stack([mask("KS QS"), mask("6S 7S")])[None]}, "all 62"),
        ({"tricks_won": [[4, 10]]}, "add up to 15"),
        ({"tricks_won": [[15, 0]], "last_trick": [1]}, "at least one trick"),
        ({"last_trick": [2]}, "side index"),
        ({"declarations": [[-5, 0]]}, "negative"),
        ({"piles": two_sides(SIDE_A + " 9B")}, "groups"),  # 17 cards: no whole pairs
        ({"mori": "some"}, "U5"),
    ],
)
def test_ottocento_refuses_impossible_hands(kwargs, message):
    args = {"piles": two_sides(SIDE_A), "tricks_won": [[4, 11]], "last_trick": [0], **kwargs}
    with pytest.raises(ValueError, match=message):
        ottocento_hand_scores(**args)


# ---------------------------------------------------------------------- random hands
def random_hands(seed: int, rows: int, *, tricks: int = 15, trick_size: int = 4, discards: int = 2, discard_side: int | None = None):
    """End-of-hand piles of a two-side game: ``discards`` cards to ``discard_side`` (None: a random side), then each
    trick's cards to its winner; a quarter of the rows are cappotti. Returns piles (R, 2, 62),
    tricks_won (R, 2), last_trick (R,), declarations (R, 2)."""
    rng = np.random.default_rng(seed)
    perm = np.argsort(rng.random((rows, NUM_CARDS)), axis=1)
    t0 = rng.integers(0, tricks + 1, rows)
    t0 = np.where(rng.random(rows) < 0.25, rng.choice([0, tricks], rows), t0)
    discard_side = rng.integers(0, 2, rows) if discard_side is None else np.full(rows, discard_side)
    pos = np.arange(NUM_CARDS)[None]
    side_by_pos = np.where(pos < discards, discard_side[:, None], np.where(pos < discards + trick_size * t0[:, None], 0, 1))
    side_of = np.empty_like(side_by_pos)
    np.put_along_axis(side_of, perm, side_by_pos, axis=1)
    p = np.stack([side_of == 0, side_of == 1], axis=1)
    tw = np.stack([t0, tricks - t0], axis=1)
    last = np.where(t0 == 0, 1, np.where(t0 == tricks, 0, rng.integers(0, 2, rows)))
    decl = rng.choice([0, 0, 20, 35, 80, 150], (rows, 2))
    return p, tw, last, decl


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_ottocento_card_points_always_add_up_to_87_and_93(seed):
    """§8.3 [DERIVED]: the two sides' card points add up to 87, and to 93 with the last trick,
    whatever the split and whether or not a side was capotted; the total is the sum of its parts."""
    p, tw, last, decl = random_hands(seed, 64)
    s = ottocento_hand_scores(p, tw, last, decl)
    assert (s.cards.sum(axis=1) == 87).all()
    assert ((s.cards + s.last_trick).sum(axis=1) == 93).all()
    assert (s.last_trick.sum(axis=1) == 6).all()
    assert (s.total == s.cards + s.last_trick + s.combinations + s.declarations + s.bonus).all()
    assert (s.declarations == decl).all()  # U7: kept, capotted or not
    assert (s.capotted == (tw == 0)).all()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_capotted_side_scores_only_its_declarations(seed):
    """§4.6: the capotted side's pile goes to the opponents, who are scored on the whole pack
    (939 with TV4's count); the capotted side keeps only what it declared (U7)."""
    p, tw, last, decl = random_hands(seed, 64)
    s = ottocento_hand_scores(p, tw, last, decl)
    cap = s.capotted
    assert (s.total[cap] == decl[cap]).all()
    winners = cap[:, ::-1]
    assert (s.total[winners] - decl[winners] == 939).all()
    # cappotto moves the pile; the piles still share the pack
    moved, _ = apply_cappotto(p, tw)
    assert (moved.sum(axis=1) == 1).all()
    again, _ = apply_cappotto(moved, tw)
    assert (again == moved).all()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_hand_score_combinations_are_those_of_the_piles(seed):
    """The combination part is §6's count of each side's final pile (no cappotto rows here:
    the piles are scored as given)."""
    p, tw, last, _ = random_hands(seed, 32)
    keep = (tw > 0).all(axis=1)
    p, tw, last = p[keep], tw[keep], last[keep]
    s = ottocento_hand_scores(p, tw, last)
    assert (s.combinations == combination_points(p.reshape(-1, NUM_CARDS)).reshape(-1, 2)).all()
    assert (s.cards == (p @ CARD_VALUE) - p.sum(axis=2) // 2).all()


# ====================================================================== Ottocento: claims (§8.4)

TV9_HAND = "KS KC KB QS NS JS AS MAT ANG MON SOL T16 6C 7D 8B"


def test_tv9_declaration_value():
    """§16 TV9: cricche 18 + 17 = 35, sequences 25 + 20 = 45: 80 (§7 values as §6, U6)."""
    assert int(declaration_points(mask(TV9_HAND))) == 80


def test_tv9_primo_claims_at_730():
    """§16 TV9: the Primo di Mano (seat 0, the dealer is seat 3) declares 80 with his side at
    730: 730 + 80 = 810 ≥ 800, he claims at step 2 and wins at once."""
    c = ottocento_claims([[730, 500]], [3], [0], [[80, 0, 0, 0]])
    assert c.names == OTTOCENTO_CLAIMS
    assert c.value.tolist() == [[500, 810, 500, 810, 500]]
    assert c.allowed.tolist() == [[False, True, False, True, False]]
    assert c.first().tolist() == [1]
    assert claim_outcome(c, c.first()).tolist() == [0]


def test_tv9_at_700_the_partner_adds_his_declaration():
    """§16 TV9 at 700: 780 < 800, the Primo cannot claim; his partner (seat 2, third to play)
    adds his own declaration: with 20 it is 700 + 80 + 20 = 800, enough (≥); with 19, 799 is not."""
    c = ottocento_claims([[700, 500], [700, 500]], [3, 3], [0, 0], [[80, 0, 20, 0], [80, 0, 19, 0]])
    assert c.value[:, 1].tolist() == [780, 780]
    assert c.value[:, 3].tolist() == [800, 799]
    assert c.allowed[:, 1].tolist() == [False, False]
    assert c.allowed[:, 3].tolist() == [True, False]
    assert c.first().tolist() == [3, -1]


def test_claim_steps_follow_the_seats_for_every_dealer():
    """§8.4 order: the dealer (before picking up), the Primo (dealer + 1), the dealer's
    partner (dealer + 2), the Primo's partner (dealer + 3), the dealer; sides are seat % 2."""
    for d in range(4):
        c = ottocento_claims([[0, 0]], [d], [0], [[0, 0, 0, 0]])
        assert c.side.tolist() == [[d % 2, (d + 1) % 2, d % 2, (d + 1) % 2, d % 2]]


def test_the_dealer_claims_first_with_his_first_15_cards():
    """§8.4.1: the dealer's side at 760 with 40 in his first 15 cards claims before anyone,
    even though the Primo's side could claim too (750 + 60)."""
    c = ottocento_claims([[750, 760]], [1], [40], [[0, 0, 60, 0]])  # dealer 1, Primo seat 2
    assert c.allowed.tolist() == [[True, True, False, True, False]]
    assert c.first().tolist() == [0]
    assert claim_outcome(c, c.first()).tolist() == [1]


def test_the_dealer_never_adds_his_partners_declaration():
    """§8.4.5: dealer seat 0 and his partner seat 2 each declared 60 with their side at 700:
    700 + 60 + 60 = 820 would do, but neither may add the other's (760, 760). With 100 of his
    own the dealer claims alone (U8), unless ``dealer_claims_after_pickup=False``."""
    c = ottocento_claims([[700, 0], [700, 0]], [0, 0], [0, 0], [[60, 0, 60, 0], [100, 0, 60, 0]])
    assert c.value[:, [2, 4]].tolist() == [[760, 760], [760, 800]]
    assert c.first().tolist() == [-1, 4]
    c = ottocento_claims([[700, 0]], [0], [0], [[100, 0, 60, 0]], dealer_claims_after_pickup=False)
    assert c.first().tolist() == [-1]


def test_u23_the_primos_partner_may_add_nothing():
    """U23: at 700 the Primo (seat 1, dealer 0) declared 100 and did not claim; his partner
    (seat 3) declared nothing and still claims with the Primo's declaration: 700 + 100 + 0.
    With ``partner_needs_own_declaration=True`` he cannot."""
    c = ottocento_claims([[0, 700]], [0], [0], [[0, 100, 0, 0]])
    assert c.allowed[0, [1, 3]].tolist() == [True, True]
    c = ottocento_claims([[0, 700]], [0], [0], [[0, 100, 0, 0]], partner_needs_own_declaration=True)
    assert c.allowed[0, [1, 3]].tolist() == [True, False]


@pytest.mark.parametrize("target", OTTOCENTO_TARGETS)
def test_claim_targets(target):
    """§8.1: 800, or 1000 or 1500 at some tables: a claim needs total + declaration ≥ target."""
    c = ottocento_claims([[target - 80, 0], [target - 81, 0]], [2, 2], [0, 0], [[80, 0, 0, 0]] * 2, target=target)
    assert c.allowed[:, 2].tolist() == [True, False]  # seat 0 is the dealer's partner (dealer 2)
    assert c.target == target


def test_claim_outcome_right_and_wrong():
    """A correct claim ends the game for the claimant's side; nobody claiming plays on; a
    wrong claim (below the target) is refused by default and loses the game with
    ``wrong_claim="loses"``."""
    c = ottocento_claims([[730, 500]] * 3, [3, 3, 3], [0, 0, 0], [[80, 0, 0, 0]] * 3)
    claimed = np.array([1, -1, 2])  # correct; nobody; the dealer's partner at 500 + 0: wrong
    assert claim_outcome(c, claimed).tolist() == [0, PLAY_ON, PLAY_ON]
    assert claim_outcome(c, claimed, wrong_claim="loses").tolist() == [0, PLAY_ON, 0]
    with pytest.raises(ValueError, match="opportunity"):
        claim_outcome(c, np.array([5, 0, 0]))
    with pytest.raises(ValueError, match="wrong_claim"):
        claim_outcome(c, claimed, wrong_claim="penalty")


@settings(max_examples=60, deadline=None)
@given(
    totals=st.lists(st.integers(0, 799), min_size=2, max_size=2),
    dealer=st.integers(0, 3),
    pickup=st.integers(0, 300),
    decl=st.lists(st.integers(0, 300), min_size=4, max_size=4),
)
def test_claims_are_total_plus_the_declaration_each_step_may_use(totals, dealer, pickup, decl):
    c = ottocento_claims([totals], [dealer], [pickup], [decl])
    d = dealer
    side = lambda seat: seat % 2  # noqa: E731
    expected = [
        totals[side(d)] + pickup,
        totals[side(d + 1)] + decl[(d + 1) % 4],
        totals[side(d)] + decl[(d + 2) % 4],
        totals[side(d + 1)] + decl[(d + 1) % 4] + decl[(d + 3) % 4],
        totals[side(d)] + decl[d],
    ]
    assert c.value[0].tolist() == expected
    assert c.allowed[0].tolist() == [v >= 800 for v in expected]
    first = int(c.first()[0])
    assert first == next((k for k, v in enumerate(expected) if v >= 800), -1)
    outcome = int(claim_outcome(c, c.first())[0])
    assert outcome == (PLAY_ON if first < 0 else c.side[0, first])


# ====================================================================== end of game


def test_game_result_u9():
    """§8.4 end: nobody at 800 plays on; one side at or over it wins; both over: the higher
    wins; equal and over: another hand (U9), or a draw on request."""
    totals = np.array([[799, 500], [800, 500], [790, 1020], [850, 820], [900, 900], [700, 700]])
    assert game_result(totals, 800).tolist() == [PLAY_ON, 0, 1, 0, PLAY_ON, PLAY_ON]
    assert game_result(totals, 800, tie="draw").tolist() == [PLAY_ON, 0, 1, 0, DRAW, PLAY_ON]
    assert game_result(totals, 1000).tolist() == [PLAY_ON, PLAY_ON, 1, PLAY_ON, PLAY_ON, PLAY_ON]


@pytest.mark.parametrize("target", [MILLONE_TARGET, *CENTOCINQUANTA_TARGETS, *QUINDICI_TARGETS])
def test_game_result_for_the_two_player_targets(target):
    """§11.7, §12.3, §13: the first player to reach the target (or more) wins."""
    totals = np.array([[target - 1, 0], [target, target - 1], [0, target + 5]])
    assert game_result(totals, target).tolist() == [PLAY_ON, 0, 1]


def test_quattro_scartate_four_hands_then_the_higher_total():
    """§9: no target: 2000 points after 3 hands do not end it; after the 4th the higher total
    wins. Equal totals (U10): a draw by default, or extra hands until the totals differ."""
    totals = np.array([[2000, 10], [500, 600], [500, 500], [500, 500], [510, 500]])
    hands = np.array([3, QUATTRO_SCARTATE_HANDS, 4, 4, 5])
    assert quattro_scartate_result(totals, hands).tolist() == [PLAY_ON, 1, DRAW, DRAW, 0]
    assert quattro_scartate_result(totals, hands, tie="extra_hand").tolist() == [PLAY_ON, 1, PLAY_ON, PLAY_ON, 0]


# ====================================================================== Terziglio (§10)


@pytest.mark.parametrize("points, poste", [(0, 0), (14, 0), (15, 1), (24, 1), (25, 2), (34, 2), (35, 3), (44, 3), (131, 12), (208, 20)])
def test_tv12_poste(points, poste):
    """§16 TV12: 0–14 → 0, 15–24 → 1, 25–34 → 2, 35–44 → 3, …; 208 → 20."""
    assert int(terziglio_poste(points)) == poste


def test_u14_nearest_ten_rounding():
    """U14's alternative: ⌊(p + 5)/10⌋: 4 → 0, 5 → 1, 14 → 1, 15 → 2, 208 → 21."""
    assert terziglio_poste(np.array([4, 5, 14, 15, 208]), rounding="nearest").tolist() == [0, 1, 1, 2, 21]


def test_tv12_settlements():
    """§16 TV12: went up, won with 208 (20 poste): +40, −20 each. Di mio, lost, the opponents
    208: −80, +40 each. Di mio, won with 131 (12 poste): +48, −24 each. Seats as given."""
    s = terziglio_settlement(np.array([0, 1, 2]), np.array([SU, DI_MIO, DI_MIO]), np.array([True, False, True]), np.array([20, 20, 12]))
    assert s.tolist() == [[40, -20, -20], [40, -80, 40], [-24, -24, 48]]
    assert TERZIGLIO_STAKE.tolist() == [0, 2, 4]


def test_all_pass_settles_nothing():
    s = terziglio_settlement(np.array([-1]), np.array([NO_CONTRACT]), np.array([False]), np.array([7]))
    assert s.tolist() == [[0, 0, 0]]


@pytest.mark.parametrize(
    "calls, receiver, outcome",
    [
        ([PASSO, PASSO, PASSO], 0, (-1, NO_CONTRACT)),  # U12: all pass, redeal
        ([POSSO, VA_BENE, VA_BENE], 0, (0, SU)),  # both accept: he goes up
        ([POSSO, FACCIO_DI_MIO], 1, (2, DI_MIO)),  # the first to answer refuses: he plays di mio
        ([POSSO, VA_BENE, FACCIO_DI_MIO], 1, (0, DI_MIO)),  # the second refuses
        ([FACCIO_DI_MIO], 2, (2, DI_MIO)),
        ([PASSO, FACCIO_DI_MIO], 2, (0, DI_MIO)),  # the right passes to seat 2 + 1 = 0
        ([PASSO, POSSO, VA_BENE, VA_BENE], 0, (1, SU)),
        ([PASSO, POSSO, VA_BENE, FACCIO_DI_MIO], 0, (0, DI_MIO)),  # U12: the receiver passed, still refuses
        ([PASSO, PASSO, POSSO, VA_BENE, VA_BENE], 1, (0, SU)),
        (["Passo", " POSSO ", "va bene", "Va Bene"], 0, (1, SU)),
    ],
)
def test_terziglio_auction(calls, receiver, outcome):
    """§10.3 and U12: who plays alone, and how (the contract sets the stake: SU 2, DI_MIO 4)."""
    assert terziglio_auction(calls, receiver) == outcome


@pytest.mark.parametrize(
    "calls, message",
    [
        ([PASSO, PASSO], "not finished"),
        ([POSSO, VA_BENE], "not finished"),
        ([POSSO, PASSO, VA_BENE], "answered"),
        ([VA_BENE], "speaker says"),
        ([FACCIO_DI_MIO, PASSO], "ended"),
    ],
)
def test_terziglio_auction_refuses_what_cannot_be_said(calls, message):
    with pytest.raises(ValueError, match=message):
        terziglio_auction(calls)


SCARTINI_15 = "6S 7S 8S 9S 10S 6B 7B 8B 9B 10B 6C 7C 8C 9C 10C"
POZZO = "AS AB AC AD 6D 7D 8D 9D"


def test_terziglio_hand_di_mio_with_an_odd_pile():
    """§10.6 and U18, worked by hand. Seat 1 plays di mio and takes 5 tricks: 15 scartini
    (6–10 of Spade, Bastoni, Coppe). The opponents take 13 tricks (39 cards) and the last, so
    the 8 Pozzo cards become theirs: 47 cards.
      soloist: cards Σv 15 − 15/2 = 7.5 (15 half-points); no combinations (no Ace, no figure).
      opponents: cards Σv 103 − 47/2 = 79.5 (159 half); last trick 6 (12); they hold every
      Carta di Valore and every trump: cricche 148 × 2 = 296, sequences 275 × 2 = 550 (as
      TV4): 79.5 + 6 + 846 = 931.5 (1863 half). 7.5 + 931.5 = 939.
      The opponents win; 931.5 rounded down 931; poste ⌊(931 − 5)/10⌋ = 92; di mio, lost:
      soloist −4 × 92 = −368, each opponent +184.
    """
    opp = ~mask(SCARTINI_15) & ~mask(POZZO)
    p = np.stack([mask(SCARTINI_15), opp])[None]
    r = terziglio_hand(p, [[5, 13]], [1], [1], [DI_MIO], pozzo=mask(POZZO)[None])
    assert r.hand.scale == 2
    assert r.hand.cards.tolist() == [[15, 159]]
    assert r.hand.total.tolist() == [[15, 1863]]
    assert r.soloist_won.tolist() == [False]
    assert (r.winner_points.tolist(), r.poste.tolist()) == ([931], [92])
    assert r.settlement.tolist() == [[184, -368, 184]]


def test_u18_odd_card_counted_alone():
    """U18's alternative, the same hand: the odd card counted alone at its value. Soloist
    15 − ⌊15/2⌋ = 8; opponents 103 − 23 = 80: the sides total 88 (not 87)."""
    opp = ~mask(SCARTINI_15) & ~mask(POZZO)
    p = np.stack([mask(SCARTINI_15), opp])[None]
    r = terziglio_hand(p, [[5, 13]], [1], [1], [DI_MIO], pozzo=mask(POZZO)[None], odd_pile="odd_alone")
    assert r.hand.cards.tolist() == [[16, 160]]
    # the opponents: 80 + 6 + 846 = 932 → poste ⌊927/10⌋ = 92
    assert (r.winner_points.tolist(), r.poste.tolist()) == ([932], [92])


def test_terziglio_went_up_and_capotted_loses_the_discards():
    """§10.5: the soloist went up, took no trick; his 8 discards go to the opponents, who hold
    the 62 cards: 939 (TV4) → 93 poste; going up he loses 2 × 93 = 186, each opponent +93.
    The mirror hand (he takes all 18 tricks, discards his) wins 186."""
    discards = "AS 6S 7S 8S 9S 10S AB 6B"
    p = np.concatenate([np.stack([mask(discards), ~mask(discards)])[None], np.stack([mask(ALL), mask("")])[None]])
    r = terziglio_hand(p, [[0, 18], [18, 0]], [1, 0], [2, 0], [SU, SU])
    assert r.hand.total.tolist() == [[0, 2 * 939], [2 * 939, 0]]
    assert r.poste.tolist() == [93, 93]
    assert r.settlement.tolist() == [[93, 93, -186], [186, -93, -93]]


def test_terziglio_tie_goes_against_the_soloist():
    """§10.6 [WP]: equal points, the soloist loses. The worked di mio hand, with the soloist
    declaring 924 (an extreme value, for the rule's sake): 7.5 + 924 = 931.5 = the opponents'."""
    opp = ~mask(SCARTINI_15) & ~mask(POZZO)
    p = np.stack([mask(SCARTINI_15), opp])[None]
    r = terziglio_hand(p, [[5, 13]], [1], [1], [DI_MIO], [[924, 0]], pozzo=mask(POZZO)[None])
    assert r.hand.total.tolist() == [[1863, 1863]]
    assert r.soloist_won.tolist() == [False]
    r = terziglio_hand(p, [[5, 13]], [1], [1], [DI_MIO], [[925, 0]], pozzo=mask(POZZO)[None])
    assert r.soloist_won.tolist() == [True]
    assert r.settlement.tolist() == [[-184, 368, -184]]  # 932.5 → 932 → 92 poste × 4 = 368


def test_terziglio_refusals():
    opp = ~mask(SCARTINI_15) & ~mask(POZZO)
    p = np.stack([mask(SCARTINI_15), opp])[None]
    with pytest.raises(ValueError, match="all 62"):
        terziglio_hand(p, [[5, 13]], [1], [1], [DI_MIO])  # the Pozzo is missing
    with pytest.raises(ValueError, match="redeal"):
        terziglio_hand(p, [[5, 13]], [1], [1], [NO_CONTRACT], pozzo=mask(POZZO)[None])
    with pytest.raises(ValueError, match="declarations_allowed"):
        terziglio_hand(p, [[5, 13]], [1], [1], [DI_MIO], [[10, 0]], pozzo=mask(POZZO)[None], declarations_allowed=False)
    with pytest.raises(ValueError, match="8 cards"):
        terziglio_hand(p, [[5, 13]], [1], [1], [DI_MIO], pozzo=mask("AS")[None])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), poste_rounding=st.sampled_from(["floor", "nearest"]))
def test_terziglio_properties(seed, poste_rounding):
    """Over random hands (soloist who went up, 3-card tricks, odd piles allowed): the card
    parts add up to 87 (174 half-points), 93 with the last trick; the settlement is zero-sum,
    the soloist's share ±stake × poste, the winner the higher side (ties to the opponents)."""
    p, tw, last, decl = random_hands(seed, 64, tricks=18, trick_size=3, discards=8, discard_side=0)
    rows = len(p)
    rng = np.random.default_rng(seed)
    soloist = rng.integers(0, 3, rows)
    contract = np.full(rows, SU)
    r = terziglio_hand(p, tw, last, soloist, contract, decl, poste_rounding=poste_rounding)
    h = r.hand
    assert (h.cards.sum(axis=1) == 174).all()
    assert ((h.cards + h.last_trick).sum(axis=1) == 186).all()
    assert (r.soloist_won == (h.total[:, 0] > h.total[:, 1])).all()
    assert (r.settlement.sum(axis=1) == 0).all()
    assert (r.settlement[np.arange(rows), soloist] == np.where(r.soloist_won, 2, -2) * r.poste).all()
    winner_half = np.where(r.soloist_won, h.total[:, 0], h.total[:, 1])
    assert (r.poste == terziglio_poste(winner_half // 2, rounding=poste_rounding)).all()


@settings(max_examples=100, deadline=None)
@given(p=st.integers(0, 3000))
def test_poste_formula_and_monotony(p):
    """§10.6: the table 0–14 → 0, then one posta per 10 points from 15."""
    q = int(terziglio_poste(p))
    assert q == (0 if p < 15 else (p - 5) // 10)
    assert q <= int(terziglio_poste(p + 1)) <= q + 1
    if p >= 15:
        assert int(terziglio_poste(p + 10)) == q + 1


# ====================================================================== Millone (§11)


def test_millone_individual_piles_and_cappotto():
    """§11.7, §4.6. Row 0: the worked Ottocento split on individual piles: player 0 (the
    opponent) 16 cards = his 10 discards + 3 tricks of 2, and the last trick; player 1 (the
    dealer) 46 cards = his 12 discards + 17 tricks. Counted as in Ottocento: 26 + 6 + 35 = 67
    and 61 + 112 + 200 = 373. Row 1: player 1 (here the opponent, 10 discards) covered the
    Matto and took no trick: his discards and the Matto go to player 0, who holds all: 939."""
    his = "6S 7S 8S 9S 10S 6B 7B 8B 9B 10B MAT"
    p = np.concatenate([two_sides(SIDE_A), np.stack([~mask(his), mask(his)])[None]])
    s = millone_hand_scores(p, [[3, 17], [20, 0]], [0, 0])
    assert s.total.tolist() == [[67, 373], [939, 0]]
    with pytest.raises(ValueError, match="add up to 20"):
        millone_hand_scores(p, [[3, 16], [20, 0]], [0, 0])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_millone_card_points_add_up_to_93(seed):
    """§11: 40 cards in 20 tricks of 2 + 22 discards = 62: the count is Ottocento's, 87 + 6."""
    p, tw, last, decl = random_hands(seed, 32, tricks=20, trick_size=2, discards=22)
    s = millone_hand_scores(p, tw, last, decl)
    assert ((s.cards + s.last_trick).sum(axis=1) == 93).all()


def test_millone_claims():
    """§11.3: the dealer (player 1) at 900 claims with 100 in his first 20 cards; otherwise the
    opponent at 960 claims with 40 in his 20; the dealer again with his own (U8)."""
    c = duel_claims([[0, 900], [960, 900], [0, 950]], [1, 1, 1], [100, 99, 0], [[0, 0], [40, 0], [0, 50]], target=MILLONE_TARGET)
    assert c.names == DUEL_CLAIMS
    assert c.value.tolist() == [[1000, 0, 900], [999, 1000, 900], [950, 0, 1000]]
    assert c.first().tolist() == [0, 1, 2]
    assert claim_outcome(c, c.first()).tolist() == [1, 0, 1]
    c = duel_claims([[0, 950]], [1], [0], [[0, 50]], target=MILLONE_TARGET, dealer_claims_after_pickup=False)
    assert c.first().tolist() == [-1]


# ====================================================================== Centocinquanta (§12), Quindici (§13)

CC_A = "KS QS NS ANG MON SOL BEG 6S 7S 8S"
CC_B = "KB QB NB JB AB 6B 7B 8B 9B 10B KC QC NC JC AC 6C 7C 8C 9C 10C MAT T16"


def test_centocinquanta_hand_worked_by_hand():
    """§12.4, the 32 cards in play. Player A (5 tricks, 10 cards): KS QS NS ANG MON SOL BEG 6S 7S 8S.
      cards: Σv = 5+4+3+5+5+1+5+1+1+1 = 31; 31 − 5 = 26.
      cricche: Tarocchi ANG MON BEG 18.
      sequences, C = 1: Spade K Q N + BEG L = 4 → 15; Grande ANG MON SOL (h = 2), spare 1:
      T16 missing → BEG; T15 missing → stop: L = 1 + 2 + 0 + 0 + 1 = 4 → 15. 30.
      Total 26 + 18 + 30 = 74.
    Player B, the dealer (10 tricks + 2 discards = 22 cards, and the last trick):
      KB QB NB JB AB 6B–10B KC QC NC JC AC 6C–10C MAT T16.
      cards: Σv = 20 + 20 + 5 + 1 = 46; 46 − 11 = 35; last trick 6.
      cricche: two of each family at most: 0.
      sequences, C = 1: Bastoni K Q N J A + MAT L = 6 → 25; Coppe 25; Aces AB AC + MAT L = 3 → 10.
      3 sequences: 60 × 2 = 120. Total 35 + 6 + 120 = 161.
    Card points 26 + 35 = 61 = Σv(32 cards) 77 − 16.
    """
    p = piles(CC_A, CC_B)
    s = centocinquanta_hand_scores(p, [[5, 10]], [1])
    assert s.cards.tolist() == [[26, 35]]
    assert s.total.tolist() == [[74, 161]]
    # from 0 – 0 the dealer is over 150 (and 151), not 200
    assert [int(game_result(s.total, t)[0]) for t in CENTOCINQUANTA_TARGETS] == [1, 1, PLAY_ON]
    # Quindici: q(74) = 7, q(161) = 16 ≥ 15
    q = quindici_hand_scores(p, [[5, 10]], [1])
    assert q.tolist() == [[7, 16]]
    assert [int(game_result(q, t)[0]) for t in QUINDICI_TARGETS] == [1, PLAY_ON, PLAY_ON]


def test_centocinquanta_needs_the_32_cards_in_play():
    with pytest.raises(ValueError, match="32"):
        centocinquanta_hand_scores(piles(CC_A, CC_B + " T15 T14"), [[5, 10]], [1])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_centocinquanta_card_points_depend_on_the_deal(seed):
    """§12.4: the players' card points add up to Σv(the 32 cards) − 16, and 6 more with the last trick."""
    rng = np.random.default_rng(seed)
    rows = 32
    p = np.zeros((rows, 2, NUM_CARDS), dtype=bool)
    t0 = rng.integers(1, 15, rows)
    tw = np.stack([t0, 15 - t0], axis=1)
    last = rng.integers(0, 2, rows)
    decl = rng.choice([0, 10, 45], (rows, 2))
    for r in range(rows):  # 32 of the 62 cards: the dealer's 2 discards, then 15 tricks of 2
        cards = rng.permutation(NUM_CARDS)[:32]
        p[r, rng.integers(0, 2), cards[:2]] = True
        p[r, 0, cards[2 : 2 + 2 * t0[r]]] = True
        p[r, 1, cards[2 + 2 * t0[r] :]] = True
    s = centocinquanta_hand_scores(p, tw, last, decl)
    in_play = p.any(axis=1)
    assert ((s.cards + s.last_trick).sum(axis=1) == in_play @ CARD_VALUE - 16 + 6).all()


@pytest.mark.parametrize("points, q", [(0, 0), (4, 0), (5, 1), (14, 1), (15, 2), (24, 2), (25, 3), (37, 4), (150, 15)])
def test_tv13_quindici_rounding(points, q):
    """§16 TV13."""
    assert int(quindici_round(points)) == q


@settings(max_examples=100, deadline=None)
@given(p=st.integers(0, 3000))
def test_quindici_rounding_is_to_the_nearest_ten_halves_up(p):
    """§13: q(p) is p/10 rounded half up; it moves by 0 or 1 per point."""
    q = int(quindici_round(p))
    assert abs(10 * q - p) <= 5 and (10 * q - p != -5)
    assert q <= int(quindici_round(p + 1)) <= q + 1


def test_quindici_claims_u15_u24():
    """U15/U24: the dealer at 12 with 25 in his first 15 cards: 12 + q(25) = 12 + 3 = 15 ≥ 15;
    with 24: 12 + 2 = 14, no. The opponent at 13 with 15: 13 + 2 = 15. ``raw_sum``: q(raw
    total + declaration): raw 118 + 25 = 143 → 14, no; raw 125 + 25 = 150 → 15, yes."""
    c = quindici_claims([[12, 0], [12, 13], [12, 0]], [0, 0, 0], [25, 24, 24], [[0, 0], [0, 15], [0, 0]])
    assert c.value.tolist() == [[15, 0, 12], [14, 15, 12], [14, 0, 12]]
    assert c.first().tolist() == [0, 1, -1]
    c = quindici_claims([[12, 0], [12, 0]], [0, 0], [25, 25], [[0, 0], [0, 0]], claim_rounding="raw_sum", raw_totals=[[118, 0], [125, 0]])
    assert c.value[:, 0].tolist() == [14, 15]
    with pytest.raises(ValueError, match="raw_totals"):
        quindici_claims([[12, 0]], [0], [25], [[0, 0]], claim_rounding="raw_sum")


# ====================================================================== Mattazza (§14)

MZ = (
    "KS QS NS JS AS 6S 7S 8S 9S 10S 6B 7B 8B 9B 10B AB",
    "KB QB NB JB ANG MON SOL LUN T16 T15 T14 BEG",
    "KC QC NC JC AC 6C 7C 8C KD QD ND JD",
    "",
)


def test_mattazza_hand_worked_by_hand():
    """§14.4–5, 4 players, tricks (4, 3, 3, 0); player 1 took the last trick. Per trick of 4:
    card points Σv − N + N/4.
      P0: Σv = 5+4+3+2 + 12 scartini = 26; 26 − 16 + 4 = 14. Spade K Q N J A (C = 0): L = 5 → 20. 34.
      P1: Σv = 5+4+3+2 + 5+5+1+1+1+1+1 + 5 = 34; 34 − 12 + 3 = 25; last trick 6. Cricca
          Tarocchi ANG MON BEG 18. C = 1: Bastoni K Q N J + BEG L = 5 → 20; Grande ANG MON SOL
          LUN, T16 T15 T14, BEG fills 13, 12 missing → stop: L = 1 + 3 + 3 + 0 + 1 = 8 → 35.
          25 + 6 + 18 + 55 = 104.
      P2: Σv = 14 + 4 + 14 = 32; 32 − 12 + 3 = 23. Coppe K Q N J A L = 5 → 20, Denari K Q N J
          L = 4 → 15: 35. 58.
      P3: no trick, 0.
    P3 took no trick: he alone loses, though P1 scored most. With ``full_count=False`` (U16's
    alternative) only the card points: 14, 25, 23, 0; P3 still loses.
    """
    p = piles(*MZ)
    r = mattazza_hand(p, [[4, 3, 3, 0]], [1])
    assert r.hand.cards.tolist() == [[14, 25, 23, 0]]
    assert r.hand.total.tolist() == [[34, 104, 58, 0]]
    assert r.losers.tolist() == [[False, False, False, True]]
    r = mattazza_hand(p, [[4, 3, 3, 0]], [1], full_count=False)
    assert r.hand.total.tolist() == [[14, 25, 23, 0]]
    assert r.losers.tolist() == [[False, False, False, True]]


def test_mattazza_piles_must_be_whole_tricks():
    """§4.5: after the Matto exchange each pile is n cards per trick; a pile of 13 with 3
    tricks means the exchange was not made."""
    with pytest.raises(ValueError, match="Matto exchange"):
        mattazza_hand(piles(MZ[0], MZ[1] + " MAT", MZ[2], MZ[3]), [[4, 3, 3, 0]], [1])


def test_mattazza_losers_rule():
    """§14.5: everyone took a trick → the highest score loses (ties: all of them); otherwise
    every player without a trick loses, and only they."""
    scores = np.array([[10, 40, 20], [40, 40, 20], [10, 40, 0], [0, 90, 0]])
    tricks = np.array([[3, 3, 4], [3, 3, 4], [5, 5, 0], [0, 10, 0]])
    assert mattazza_losers(scores, tricks).tolist() == [
        [False, True, False],
        [True, True, False],
        [False, False, True],
        [True, False, True],
    ]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 6))
def test_mattazza_properties(seed, n):
    """Over random hands of n players: card points add up to Σv(10n cards) − 10n + 10; there
    is always a loser; the losers are the trickless players if any, else the top scorers."""
    rng = np.random.default_rng(seed)
    rows = 16
    p = np.zeros((rows, n, NUM_CARDS), dtype=bool)
    tw = np.zeros((rows, n), dtype=np.int64)
    last = np.zeros(rows, dtype=np.int64)
    for r in range(rows):
        cards = rng.permutation(NUM_CARDS)[: 10 * n]
        winners = rng.integers(0, n, 10) if rng.random() < 0.5 else rng.integers(0, max(1, n - 1), 10)
        for k, w in enumerate(winners):
            p[r, w, cards[k * n : (k + 1) * n]] = True
            tw[r, w] += 1
        last[r] = winners[-1]
    res = mattazza_hand(p, tw, last)
    h = res.hand
    in_play = p.any(axis=1)
    assert (h.cards.sum(axis=1) == in_play @ CARD_VALUE - 10 * n + 10).all()
    assert (h.last_trick.sum(axis=1) == 6).all()
    assert res.losers.any(axis=1).all()
    none = tw == 0
    top = h.total == h.total.max(axis=1, keepdims=True)
    assert (res.losers == np.where(none.any(axis=1, keepdims=True), none, top)).all()


def test_mattazza_standing():
    """§14.6 (a): a player reaching the target drops out; the game ends when two are left.
    (b), 3–4 players: it ends when two players have 3 points."""
    pen = np.array([[3, 0, 1, 2], [3, 3, 0, 1], [2, 2, 2, 2], [3, 4, 3, 0]])
    st_a = mattazza_standing(pen)
    assert st_a.out.tolist() == [[True, False, False, False], [True, True, False, False], [False] * 4, [True, True, True, False]]
    assert st_a.over.tolist() == [False, True, False, True]
    st_5 = mattazza_standing(pen, target=4)
    assert st_5.over.tolist() == [False, False, False, False]
    st_b = mattazza_standing(pen, way="first_two")
    assert st_b.over.tolist() == [False, True, False, True]
    with pytest.raises(ValueError, match="3 or 4"):
        mattazza_standing(np.zeros((1, 5), dtype=np.int64), way="first_two")


# ====================================================================== the generic function


def test_hand_scores_checks_its_options():
    with pytest.raises(ValueError, match="U18"):
        hand_scores(two_sides(SIDE_A), [[4, 11]], [0], odd_pile="round")
    with pytest.raises(ValueError, match="U9"):
        game_result(np.array([[0, 0]]), 800, tie="coin")
    with pytest.raises(ValueError, match="U10"):
        quattro_scartate_result(np.array([[0, 0]]), 4, tie="coin")
    with pytest.raises(ValueError, match="U14"):
        terziglio_poste(10, rounding="up")


def test_hand_scores_refuses_piles_that_do_not_split_into_groups():
    """A pile of 3 cards counted in pairs (whole points) is no whole number of groups: refused,
    naming the row, never rounded; U18's odd card alone is a rule of pairs only."""
    piles = np.zeros((2, 2, NUM_CARDS), dtype=bool)
    piles[:, 0, :4] = True
    piles[:, 1, 4:] = True
    piles[1, 0, 4] = True  # row 1: 5 cards and 57
    piles[1, 1, 4] = False
    with pytest.raises(ValueError, match=r"row 1: piles of \[5, 57\] cards do not split into whole groups of 2"):
        hand_scores(piles, [[1, 1], [1, 1]], [0, 0])
    with pytest.raises(ValueError, match="U18"):
        hand_scores(piles, [[1, 1], [1, 1]], [0, 0], group_size=3, half_points=True, odd_pile="odd_alone")


@pytest.mark.parametrize("sides", [2, 3, 4, 6])
def test_compiled_hand_score_equals_the_count_part_by_part(sides):
    """The compiled hand score (``hand_score_rows``) gives, on random piles and random options,
    what the batch functions give part by part: the piles after the cappotto counted in groups
    (or half-groups), 6 for the last trick, cricche and sequences, the declarations (U7), the
    cappotto bonus (U11)."""
    from tarot_env.rules.bolognese.counting import odd_alone_half_points, pile_half_points, pile_points

    rng = np.random.default_rng(sides)
    R = 300
    group = 2 if sides == 2 else sides
    for _ in range(4):
        owner = rng.integers(sides, size=(R, NUM_CARDS))
        owner[:, rng.permutation(NUM_CARDS)[: NUM_CARDS % group]] = -1  # out of play: the rest splits into groups
        piles = owner[:, None, :] == np.arange(sides)[None, :, None]
        tricks = rng.integers(0, 4, size=(R, sides)) * (rng.random((R, sides)) < 0.8)
        tricks[np.arange(R), rng.integers(sides, size=R)] += 1  # somebody took a trick
        last = np.array([rng.choice(np.flatnonzero(t)) for t in tricks])
        decl = rng.integers(0, 90, size=(R, sides))
        half = sides == 2 and bool(rng.integers(2))  # half-points: the pair count of Terziglio (U18)
        odd_alone = half and sides == 2 and bool(rng.integers(2))
        if not half:  # whole groups only: move cards until every pile splits
            for r in range(R):
                for s in range(sides - 1):
                    while piles[r, s].sum() % group:
                        c = rng.choice(np.flatnonzero(piles[r, s]))
                        piles[r, s, c], piles[r, s + 1, c] = False, True
        mori = str(rng.choice(["both", "grande", "mori", "best"]))
        options = dict(
            mori=mori, doubling=bool(rng.integers(2)), keep_capotted_declarations=bool(rng.integers(2)),
            cappotto_bonus=int(rng.integers(0, 3)) * 25, half_points=half, odd_pile="odd_alone" if odd_alone else "exact",
        )  # fmt: skip
        hs = hand_scores(piles, tricks, last, decl, group_size=group, **options)
        p, capotted = apply_cappotto(piles, tricks) if sides == 2 else (piles, tricks == 0)
        flat = p.reshape(-1, NUM_CARDS)
        scale = 2 if half else 1
        if odd_alone:
            cards = odd_alone_half_points(flat @ CARD_VALUE, flat.sum(axis=1))
        else:
            cards = pile_half_points(flat, group) if half else pile_points(flat, group)
        np.testing.assert_array_equal(hs.cards, cards.reshape(R, sides))
        np.testing.assert_array_equal(hs.last_trick, scale * 6 * (np.arange(sides)[None, :] == last[:, None]))
        combos = combination_points(flat, mori=mori, doubling=options["doubling"]).reshape(R, sides)
        np.testing.assert_array_equal(hs.combinations, scale * combos)
        kept = decl if options["keep_capotted_declarations"] else np.where(capotted, 0, decl)
        np.testing.assert_array_equal(hs.declarations, scale * kept)
        bonus = scale * options["cappotto_bonus"] * capotted[:, ::-1] if sides == 2 else np.zeros((R, sides))
        np.testing.assert_array_equal(hs.bonus, bonus)
        np.testing.assert_array_equal(hs.total, hs.cards + hs.last_trick + hs.combinations + hs.declarations + hs.bonus)
        np.testing.assert_array_equal(hs.capotted, capotted)
        assert hs.scale == scale
