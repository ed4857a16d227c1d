"""The arena's statistics: rates get Wilson score intervals inside
[0, 1]; deals where everyone passed are counted apart and are not losses; every interval is over
the independent unit, the deal played at all its seatings (the duplicate group), not over the
correlated seat-plays inside it.

What each test rules out: normal-approximation rate intervals that run past 1
(``0.875 [0.630, 1.120]``) or have zero width (``1.000 [1.000, 1.000]``), an all-pass deal counted
as a loss for everyone, and role intervals that treat the seat-plays of one deal as independent.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from tarot_env.agents.random_agent import RandomAgent

from tarot_env import arena


def _intervals(res: dict):
    """Every (label, interval) of rates in the results: each agent's win rate and its roles' win rates."""
    for name, a in res["agents"].items():
        yield name, a["win_rate"]
        for role, v in a["roles"].items():
            yield f"{name}/{role}", v["win_rate"]


def test_wilson_interval_stays_inside_the_unit_interval_and_has_width():
    lo, hi = arena.wilson(7, 8)  # 7 of 8: the normal approximation gave [0.630, 1.120]
    assert 0 <= lo < 7 / 8 < hi <= 1
    assert (round(lo, 3), round(hi, 3)) == (0.529, 0.978)  # the textbook Wilson interval, z = 1.96
    lo, hi = arena.wilson(8, 8)  # all won: not the zero-width [1, 1]
    assert hi == 1 and lo == pytest.approx(8 / (8 + arena.Z95**2)) and lo < 1
    lo, hi = arena.wilson(0, 5)
    assert lo == 0 and 0 < hi < 1


def test_rate_intervals_in_a_run_stay_inside_the_unit_interval_with_width(tmp_path):
    agents = {"rules": arena.rule_agent("french_tarot_v0"), "random": RandomAgent(0)}
    res = arena.run_arena("french_tarot_v0", agents, 8, num_players=4, deals_dir=tmp_path, progress=False)
    seen = 0
    for label, c in _intervals(res):
        if c["n"] == 0:  # a role with no counted play (the passed role): no rate
            assert c["mean"] is None
            continue
        seen += 1
        assert 0 <= c["lo"] <= c["mean"] <= c["hi"] <= 1, (label, c)
        assert c["hi"] - c["lo"] > 0, (label, c)
    assert seen >= 4


def test_rate_ci_counts_the_deal_as_the_unit():
    # the same outcomes repeated inside each deal (perfectly correlated seat-plays) carry no more
    # information than one play per deal: the interval must not narrow
    once = [[1.0], [0.0], [1.0], [1.0], [0.0], [1.0]]
    twice = [g * 2 for g in once]
    a, b = arena.rate_ci(once), arena.rate_ci(twice)
    assert a["mean"] == b["mean"] == pytest.approx(4 / 6)
    assert (b["lo"], b["hi"]) == pytest.approx((a["lo"], a["hi"]))
    assert b["n"] == 12 and b["deals"] == 6
    # independent-looking plays (each deal half won) are worth their number: capped at the plays
    half = [[1.0, 0.0]] * 6
    c = arena.rate_ci(half)
    assert c["n_eff"] == 12 and (c["lo"], c["hi"]) == pytest.approx(arena.wilson(6, 12))
    assert arena.rate_ci([[], []])["mean"] is None  # no counted play


def test_role_score_intervals_are_clustered_by_deal():
    rng = np.random.default_rng(0)
    per_deal = [[float(x)] for x in rng.normal(10, 5, 30)]
    # the same score twice in each deal: the mean and the interval of one score per deal
    a = arena.cluster_mean_ci(per_deal)
    b = arena.cluster_mean_ci([g * 2 for g in per_deal])
    plain = arena.mean_ci([g[0] for g in per_deal])
    assert a["mean"] == b["mean"] == pytest.approx(plain["mean"])
    assert (a["lo"], a["hi"]) == pytest.approx((plain["lo"], plain["hi"]))
    assert (b["lo"], b["hi"]) == pytest.approx((plain["lo"], plain["hi"]))
    assert b["n"] == 60 and b["deals"] == 30
    # deals with different numbers of plays: the play-weighted mean
    c = arena.cluster_mean_ci([[1.0, 3.0], [5.0], [6.0, 6.0, 6.0]])
    assert c["mean"] == pytest.approx(27 / 6) and c["n"] == 6 and c["deals"] == 3
    assert math.isfinite(c["lo"]) and c["lo"] < c["mean"] < c["hi"]
    one = arena.cluster_mean_ci([[1.0, 2.0]])  # one deal: no interval
    assert one["mean"] == 1.5 and one["lo"] is None


def test_role_intervals_in_a_run_count_deals(tmp_path):
    agents = {"rules": arena.rule_agent("terziglio_v0"), "random": RandomAgent(1)}
    res = arena.run_arena("terziglio_v0", agents, 6, deals_dir=tmp_path, progress=False)
    for a in res["agents"].values():
        assert a["score"]["n"] == 6  # the agent's score: one value per deal
        for v in a["roles"].values():
            assert v["score"]["deals"] <= 6 and v["score"]["n"] >= v["score"]["deals"]


@pytest.mark.parametrize(("env_id", "players", "result"), [("french_tarot_v0", 4, "all_passed"), ("terziglio_v0", None, "thrown_in")])
def test_deals_where_everyone_passed_are_counted_apart_and_are_not_losses(tmp_path, env_id, players, result):
    # the rule-based bot under two names: it often passes a whole French deal; seed 0's Terziglio
    # deals are thrown in at some seatings
    bot = arena.rule_agent(env_id)
    deals = 12 if env_id == "french_tarot_v0" else 40
    res = arena.run_arena(env_id, {"a": bot, "b": bot}, deals, num_players=players, deals_dir=tmp_path, progress=False)
    plays = [p for deal in res["plays"] for p in deal]
    thrown = [p for p in plays if p["result"] == result]
    assert thrown, "the deal set should hold at least one deal where everyone passed"
    assert res["passed"]["plays"] == len(thrown) and res["passed"]["of_plays"] == len(plays)
    assert res["passed"]["by_result"] == {result: len(thrown)}
    assert res["passed"]["deals"] == sum(all(p["result"] == result for p in deal) for deal in res["plays"])
    # the win rate's denominator: the agent's seat-plays of the deals that were played
    for name in ("a", "b"):
        won = counted = 0
        for deal in res["plays"]:
            for p in deal:
                if p["result"] == result:
                    continue
                for seat, who in enumerate(res["seatings"][p["seating"]]):
                    if who == name:
                        counted += 1
                        won += arena._won(env_id, p["scores"][seat])
        wr = res["agents"][name]["win_rate"]
        assert wr["n"] == counted and wr["mean"] == pytest.approx(won / counted)
    # thrown-in deals still count in the mean scores (a score of 0)
    assert res["agents"]["a"]["score"]["n"] == deals
    md = arena.markdown(res)
    assert f"{len(thrown)} of {len(plays)} plays" in md and "not counted in the win rates" in md
