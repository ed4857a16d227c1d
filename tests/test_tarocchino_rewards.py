"""Tarocchino rewards: the `reward` modes on one deal (`score`, `normalised`, `win_loss`), `match_reward`
in a match ("deals": each hand's reward as it ends; "result": +1 / -1, 0 for a draw, at the end), and
a property test that the trick rewards of `shaping=True` add up, over an episode, to the unshaped
rewards, in every game, for deals and matches alike.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_tarocchino import Driver, MatchLog, cappotto_deal, first_choice, info, match_env, new_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tarot_env


@pytest.mark.parametrize(
    ("match_reward", "steps", "total"),
    [
        # each hand pays own side minus the other side: +939, -939, +939 for side 1
        ("deals", [939.0, -939.0, 939.0], 939.0),
        # only the result, at the end: side 1 won
        ("result", [1.0], 1.0),
    ],
)
def test_match_reward_deals_or_result(match_reward, steps, total):
    """Match rewards: `match_reward="deals"` pays each hand's reward as the hand ends; `"result"`
    pays only +1 / -1 (0 for a draw) when the match ends."""
    env = match_env("ottocento_v0", [cappotto_deal(d) for d in range(3)], target=1000, declarations=False, match_reward=match_reward)
    m = MatchLog(env, first_choice)
    assert [r["player_1"] for r in m.nonzero_reward_steps] == steps
    assert all(r["player_1"] == r["player_3"] == -r["player_0"] == -r["player_2"] for r in m.nonzero_reward_steps)
    assert m.rewards["player_1"] == total and m.rewards["player_0"] == -total


def test_match_result_reward_of_a_draw_is_zero():
    """Match rewards: a drawn match (U9 `tie="draw"`) pays 0 to everybody."""
    env = match_env(
        "ottocento_v0", [cappotto_deal(0)], totals=[939, 0, 939, 0], target=900, declarations=False, tie="draw", match_reward="result"
    )
    m = MatchLog(env, first_choice)
    assert info(env)["game_winner"] == "draw" and m.rewards == dict.fromkeys(env.possible_agents, 0.0)


@pytest.mark.parametrize(("mode", "value"), [("score", 939.0), ("normalised", 9.39), ("win_loss", 1.0)])
def test_reward_modes_on_one_deal(mode, value):
    """Rewards of one deal (side 1 capots, 939 to 0, declarations off): `score` own side minus the
    other (939), `normalised` divided by 100 in Ottocento, `win_loss` the sign."""
    env = new_env("ottocento_v0", cappotto_deal(0), declarations=False, reward=mode)
    d = Driver(env).run()
    assert d.rewards["player_1"] == pytest.approx(value) and d.rewards["player_3"] == pytest.approx(value)
    assert d.rewards["player_0"] == pytest.approx(-value) and d.rewards["player_2"] == pytest.approx(-value)
    assert sum(1 for r in d.steps_rewards if any(r.values())) == 1


GAMES = [
    ("ottocento_v0", {}),
    ("quattro_scartate_v0", {}),
    ("terziglio_v0", {}),
    ("millone_v0", {}),
    ("centocinquanta_v0", {}),
    ("quindici_v0", {}),
    ("mattazza_v0", {"num_players": 4}),
    ("mattazza_v0", {"num_players": 6}),
]


def _episode_rewards(env_id, config, seed, shaping):
    env = tarot_env.make(env_id, shaping=shaping, **config)
    env.reset(seed=seed)
    env = env.unwrapped
    rng = np.random.default_rng(seed)
    total = dict.fromkeys(env.possible_agents, 0.0)
    per_step = []
    while not env.game_over:
        env.step(int(rng.choice(env.legal_actions())))
        per_step.append(dict(env.rewards))
        for a, r in env.rewards.items():
            total[a] += r
    return total, per_step


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from(GAMES),
    seed=st.integers(0, 2**31 - 1),
    reward=st.sampled_from(["score", "normalised", "win_loss"]),
    episode=st.sampled_from([("deal", "deals"), ("match", "deals"), ("match", "result")]),
)
def test_shaping_sums_to_the_unshaped_rewards(game, seed, reward, episode):
    """Property: with `shaping=True` (trick rewards along the way) each agent's rewards over an
    episode add up to the unshaped rewards (same game, same actions), deals and matches alike."""
    env_id, config = game
    config = dict(config, reward=reward, episode=episode[0], match_reward=episode[1])
    if episode[0] == "match" and env_id == "millone_v0":
        config["target"] = 300  # a shorter match
    plain, plain_steps = _episode_rewards(env_id, config, seed, False)
    shaped, shaped_steps = _episode_rewards(env_id, config, seed, True)
    assert len(plain_steps) == len(shaped_steps)
    for a in plain:
        if reward != "score":  # trick rewards are divided by the scale: float sums
            assert shaped[a] == pytest.approx(plain[a], abs=1e-9)
        else:
            assert shaped[a] == plain[a]
    assert any(any(r.values()) for r in shaped_steps[:-1]) or len(shaped_steps) < 2 or all(v == 0 for v in plain.values())
