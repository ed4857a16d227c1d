"""Tarocchino match episodes (`episode="match"`; §5.5, §8.1, §8.4, §9, §10.7, §11.1, §12.1, §14.6, U9,
U10, U12): hand after hand to the target and the running totals every observation shows, both sides
past the target, Quattro Scartate's four hands and its tie rule, Terziglio's `match_hands` (the soloist
deals next; a thrown-in deal is dealt again and not counted), Mattazza's two ways to end, a claim
ending the match, and the dealer moving between hands.

Conventions of the fixed deals: seats are in play order, the Primo di Mano is dealer + 1, the
dealer's last 2 cards are the last 2 of his list (``helpers_tarocchino.make_deal``).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_tarocchino import MatchLog, cappotto_deal, first_choice, info, kind, legal, match_env, otto_deal

from tarot_env.rules.bolognese.state import DEALER


# ====================================================================== policies
def random_choice(rng):
    def choose(env) -> str:
        acts = legal(env)
        if kind(acts) == "auction" and len(acts) == 3:  # never pass: no thrown-in deals here
            acts = ["posso", "di_mio"]
        return acts[int(rng.integers(len(acts)))]

    return choose


def no_claim_random(rng):
    """Random legal actions, but never a claim (so that a match runs hand after hand)."""

    def choose(env) -> str:
        acts = legal(env)
        return "no_claim" if kind(acts) == "claim" else acts[int(rng.integers(len(acts)))]

    return choose


# ====================================================================== matches
def test_ottocento_match_runs_hand_after_hand_to_the_target():
    """§8.4 end, §5.5: a match to 1000 with the cappotto deal dealt by seats 0, 1, 2
    (declarations off): each hand one side scores 939 (TV4). Totals 0/939, 939/939, then side 1
    reaches 1878 >= 1000 and wins after 3 hands. The dealer moves one seat right each hand; every
    observation shows the running totals and the hand number."""
    env = match_env("ottocento_v0", [cappotto_deal(d) for d in range(3)], target=1000, declarations=False)
    m = MatchLog(env, first_choice)
    assert env.hands_played() == [[0, 939, 0, 939], [939, 0, 939, 0], [0, 939, 0, 939]]
    assert [s["dealer"] for s in m.starts] == [0, 1, 2]
    expected = [[0, 0, 0, 0], [0, 939, 0, 939], [939, 939, 939, 939]]
    for start, totals, k in zip(m.starts, expected, range(3)):
        assert start["totals"] == [totals] * 4
        assert start["hand_no"] == [k] * 4
    assert [e["totals"] for e in m.ends] == [[0, 939, 0, 939], [939, 939, 939, 939], [939, 1878, 939, 1878]]
    assert [e["match_over"] for e in m.ends] == [False, False, True]
    assert m.ends[-1]["game_winner"] == 1 and env.totals() == [939, 1878, 939, 1878]


def test_ottocento_match_default_target_800():
    """§8.1: the target is 800: 939 after the first hand ends the match."""
    env = match_env("ottocento_v0", [cappotto_deal(0)], declarations=False)
    MatchLog(env, first_choice)
    assert len(env.hands_played()) == 1 and info(env)["game_winner"] == 1 and info(env)["match_over"]


@pytest.mark.parametrize(("tie", "hands", "winner"), [("play_on", 2, 0), ("draw", 1, "draw")])
def test_u9_both_sides_past_the_target_with_equal_totals(tie, hands, winner):
    """U9: from 939/0 (target 900) side 1 capots: 939/939, both past the target and equal. By
    default another hand is played (side 0 capots: 1878/939, side 0 wins); `tie="draw"`: a draw."""
    env = match_env("ottocento_v0", [cappotto_deal(0), cappotto_deal(1)], totals=[939, 0, 939, 0], target=900, declarations=False, tie=tie)
    MatchLog(env, first_choice)
    assert len(env.hands_played()) == hands and info(env)["game_winner"] == winner


def test_both_sides_past_the_target_higher_total_wins():
    """§8.4 end: from 950/0 (target 900) side 1 scores 939: both past it, the higher (950) wins."""
    env = match_env("ottocento_v0", [cappotto_deal(0)], totals=[950, 0, 950, 0], target=900, declarations=False)
    MatchLog(env, first_choice)
    assert env.totals() == [950, 939, 950, 939] and info(env)["game_winner"] == 0


@pytest.mark.parametrize(("tie", "hands", "winner", "totals"), [("draw", 4, "draw", [1878, 1878]), ("extra_hand", 5, 1, [1878, 2817])])
def test_quattro_scartate_four_hands_then_the_tie_rule(tie, hands, winner, totals):
    """§9, U10: exactly 4 hands, each player dealing once; the cappotto deal dealt by 0, 1, 2, 3
    gives 1878 each: a draw by default; `tie="extra_hand"` plays a fifth hand (dealer 0 again,
    side 1 capots: 2817) and side 1 wins."""
    env = match_env("quattro_scartate_v0", [cappotto_deal(d % 4) for d in range(5)], declarations=False, tie=tie)
    m = MatchLog(env, first_choice)
    assert len(env.hands_played()) == hands
    assert [s["dealer"] for s in m.starts] == [d % 4 for d in range(hands)]
    assert info(env)["game_winner"] == winner and env.totals()[:2] == totals
    assert "claim" not in m.kinds  # no target, no claim (§9)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_quattro_scartate_random_match(seed):
    """§9: random play: no claim window ever (no target), 4 hands (unless tied), dealers d..d+3,
    the higher total wins; the totals are the sums of the hands."""
    env = match_env("quattro_scartate_v0", seed=seed)
    rng = np.random.default_rng(seed)

    def choose(e):
        acts = legal(e)
        assert kind(acts) != "claim"
        return acts[int(rng.integers(len(acts)))]

    m = MatchLog(env, choose)
    hp = env.hands_played()
    tot = [sum(h[s] for h in hp) for s in range(4)]
    assert env.totals() == tot
    d0 = m.starts[0]["dealer"]
    assert [s["dealer"] for s in m.starts] == [(d0 + k) % 4 for k in range(len(hp))]
    if tot[0] != tot[1]:
        assert len(hp) == 4 and info(env)["game_winner"] == int(tot[1] > tot[0])
    else:
        assert info(env)["game_winner"] == "draw"


@pytest.mark.parametrize(("match_hands", "seed"), [(3, 0), (4, 1), (2, 2)])
def test_terziglio_match_hands_and_the_soloist_deals_next(match_hands, seed):
    """§10.7: `match_hands` hands, each a game in itself; the soloist deals the next hand; each
    seat's total is the sum of his settlements; the best total wins."""
    env = match_env("terziglio_v0", seed=seed, match_hands=match_hands)
    m = MatchLog(env, random_choice(np.random.default_rng(seed)))
    hp = env.hands_played()
    assert len(hp) == match_hands
    assert [s["dealer"] for s in m.starts[1:]] == [e["soloist"] for e in m.ends[:-1]]
    assert all(sum(h) == 0 for h in hp)  # zero-sum settlements
    tot = [sum(h[s] for h in hp) for s in range(3)]
    assert env.totals() == tot
    best = max(tot)
    assert info(env)["game_winner"] == (tot.index(best) if tot.count(best) == 1 else "draw")


def test_terziglio_thrown_in_deal_is_dealt_again_and_not_counted():
    """U12, §10.7: a deal thrown in (three passes) is dealt again by the next dealer; it is not
    one of the match's hands: with `match_hands=2`, two hands are still played after it."""
    env = match_env("terziglio_v0", seed=5, match_hands=2)
    rng = np.random.default_rng(5)
    choose = random_choice(rng)
    d0 = int(env.game_state.ints[0, DEALER])
    for _ in range(3):
        env.step("pass")
    assert env.hands_played() == [[0, 0, 0]] and not env.game_over
    assert int(env.game_state.ints[0, DEALER]) == (d0 + 1) % 3
    m = MatchLog(env, choose)
    assert [e["result"] for e in m.ends] == ["played", "played"]
    assert len(env.hands_played()) == 3


@pytest.mark.parametrize(("n", "target", "seed"), [(5, 2, 0), (4, 1, 1), (6, 2, 2), (3, 2, 3)])
def test_mattazza_match_target_way(n, target, seed):
    """§14.6 (a): each loser takes a penalty point; at `target` a player drops out: his agent gets
    no cards and never acts; the match ends when two or fewer players are left. With
    match_reward="result" the only reward is at the end: -1 for those out, +1 for the others."""
    env = match_env("mattazza_v0", seed=seed, num_players=n, target=target, match_reward="result")
    m = MatchLog(env, random_choice(np.random.default_rng(seed)))
    penalties = [0] * n
    for start, actors, end in zip(m.starts, m.actors, m.ends):
        active = [s for s in range(n) if penalties[s] < target]
        assert len(active) > 2
        assert start["holding"] == active and actors == set(active)
        assert start["obs_hand"] == [10 if s in active else 0 for s in range(n)]
        assert start["dealer"] in active
        for s in end["losers"]:
            penalties[s] += 1
        assert end["penalties"] == penalties
    out = [s for s in range(n) if penalties[s] >= target]
    assert n - len(out) <= 2 and info(env)["match_losers"] == out
    assert len(m.nonzero_reward_steps) == 1
    assert m.rewards == {f"player_{s}": (-1.0 if s in out else 1.0) for s in range(n)}


@pytest.mark.parametrize(("n", "seed"), [(3, 0), (4, 1), (4, 2)])
def test_mattazza_match_first_two_way(n, seed):
    """§14.6 (b): nobody drops out; the match ends after the hand in which a second player
    reaches 3 penalty points, and those at 3 or more lose."""
    env = match_env("mattazza_v0", seed=seed, num_players=n, way="first_two")
    m = MatchLog(env, random_choice(np.random.default_rng(seed)))
    penalties = [0] * n
    for k, (start, end) in enumerate(zip(m.starts, m.ends)):
        assert start["holding"] == list(range(n))
        for s in end["losers"]:
            penalties[s] += 1
        reached = sum(p >= 3 for p in penalties)
        assert end["match_over"] == (reached >= 2), (k, penalties)
    assert info(env)["match_losers"] == [s for s in range(n) if penalties[s] >= 3]


def test_a_claim_ends_the_match():
    """§8.4: a claim ends the game at once (TV9 at 730: the Primo claims 810)."""
    env = match_env("ottocento_v0", [otto_deal()], totals=[0, 730, 0, 730], match_reward="result")
    m = MatchLog(env, lambda e: "claim" if kind(legal(e)) == "claim" else first_choice(e))
    assert env.game_over and len(m.ends) == 1
    e = m.ends[0]
    assert (e["result"], e["claimer"], e["game_winner"], e["match_over"]) == ("claimed", 1, 1, True)
    assert m.rewards == {"player_0": -1.0, "player_1": 1.0, "player_2": -1.0, "player_3": 1.0}


@pytest.mark.parametrize(("env_id", "step"), [("ottocento_v0", 1), ("millone_v0", 1), ("centocinquanta_v0", 1), ("quindici_v0", 1)])
def test_dealer_rotation_between_hands(env_id, step):
    """§5.5 (Ottocento: the Primo, dealer + 1, deals next), §11.1 and §12.1 (the two players deal
    alternately, which with 2 seats is also dealer + 1)."""
    for seed in range(3):
        env = match_env(env_id, seed=seed)
        m = MatchLog(env, no_claim_random(np.random.default_rng(seed)))
        n = env.num_players
        dealers = [s["dealer"] for s in m.starts]
        assert dealers == [(dealers[0] + step * k) % n for k in range(len(dealers))]
        hp = env.hands_played()
        assert env.totals() == [sum(h[s] for h in hp) for s in range(n)]
        assert m.ends[-1]["match_over"] and all(not e["match_over"] for e in m.ends[:-1])
