"""The conventions of the ecosystem: PettingZoo's and Gymnasium's registries, the env checkers of
Gymnasium, Stable-Baselines3 and RLlib, PettingZoo's ``state()``, and ``illegal_action``.

The checkers sample actions without a mask; the registered Gymnasium ids use
``illegal_action="terminate"`` so that they run, and ``"raise"`` (the default) is shown to make
them fail, so the setting is what these tests check, not luck.
"""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, parallel_api_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import tarot_env
from tarot_env import ENV_IDS, GYMNASIUM_IDS, PETTINGZOO_IDS, IllegalActionError

pytestmark = pytest.mark.filterwarnings("ignore:an illegal action ended the episode")


def first_illegal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(np.asarray(mask) == 0)[0])


def snapshot(env) -> list[np.ndarray]:
    """Copies of every block of the env's game state (a dict of blocks, in either family)."""
    blocks = env.unwrapped.game_state.blocks
    return [b.copy() for b in blocks.values()]


# ---------------------------------------------------------------------- registries


def test_every_env_id_is_in_pettingzoos_registries_in_its_style():
    assert PETTINGZOO_IDS["french_tarot_v0"] == "tarot/french_tarot-v0"
    assert PETTINGZOO_IDS["quattro_scartate_v0"] == "tarot/quattro_scartate-v0"
    for env_id in ENV_IDS:
        pz_id = PETTINGZOO_IDS[env_id]
        assert pz_id in pettingzoo.aec_registry and pz_id in pettingzoo.parallel_registry
        env = pettingzoo.make("aec", pz_id)
        assert type(env.unwrapped) is type(tarot_env.make(env_id).unwrapped)
        assert env.metadata["name"] == env_id
        par = pettingzoo.make("parallel", pz_id)
        assert isinstance(par, pettingzoo.ParallelEnv)


def test_pettingzoo_make_passes_options():
    env = pettingzoo.make("aec", "tarot/french_tarot-v0", num_players=5)
    assert len(env.possible_agents) == 5
    env = pettingzoo.make("aec", "tarot/mattazza-v0", num_players=6)
    assert len(env.possible_agents) == 6


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_pettingzoo_api_test_on_the_registered_aec_env(env_id):
    api_test(pettingzoo.make("aec", PETTINGZOO_IDS[env_id]), num_cycles=300)


@pytest.mark.parametrize("env_id", ["french_tarot_v0", "ottocento_v0", "terziglio_v0", "mattazza_v0"])
def test_pettingzoo_parallel_api_test_on_the_registered_parallel_env(env_id):
    parallel_api_test(pettingzoo.make("parallel", PETTINGZOO_IDS[env_id]), num_cycles=300)


def test_every_env_id_is_in_gymnasiums_registry_with_its_spec():
    assert GYMNASIUM_IDS["french_tarot_v0"] == "tarot_env/FrenchTarot-v0"
    assert GYMNASIUM_IDS["quattro_scartate_v0"] == "tarot_env/QuattroScartate-v0"
    for env_id in ENV_IDS:
        env = gymnasium.make(GYMNASIUM_IDS[env_id])
        assert env.spec is not None and env.spec.id == GYMNASIUM_IDS[env_id]
        assert env.unwrapped.env.metadata["name"] == env_id
        obs, info = env.reset(seed=0)
        assert env.observation_space.contains(obs)
        assert info["action_mask"].any()


def test_gymnasium_make_passes_options_and_tarot_env_make_stays():
    env = gymnasium.make("tarot_env/FrenchTarot-v0", num_players=3, seat=2)
    assert env.unwrapped.num_players == 3 and env.unwrapped.seat == 2
    assert tarot_env.make("french_tarot_v0").metadata["name"] == "french_tarot_v0"


def test_importing_twice_registers_nothing_twice():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PettingZoo and Gymnasium warn when an id is overridden
        tarot_env.register_envs()


# ---------------------------------------------------------------------- the three env checkers


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_gymnasiums_env_checker(env_id):
    from gymnasium.utils.env_checker import check_env

    check_env(gymnasium.make(GYMNASIUM_IDS[env_id]).unwrapped, skip_render_check=True)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_stable_baselines3s_env_checker(env_id):
    from stable_baselines3.common.env_checker import check_env

    check_env(gymnasium.make(GYMNASIUM_IDS[env_id]).unwrapped, warn=False)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_rllibs_env_pre_check(env_id):
    """RLlib's pre-check of a multi-agent env, on the AEC env through RLlib's own PettingZoo wrapper."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    check_multiagent_environments(PettingZooEnv(tarot_env.make(env_id, illegal_action="terminate")))


def test_the_checkers_fail_with_illegal_action_raise():
    """Why the setting exists: sampled actions are mostly illegal, and "raise" stops the checkers."""
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("tarot_env/FrenchTarot-v0", illegal_action="raise").unwrapped
    with pytest.raises(IllegalActionError):
        check_env(env, skip_render_check=True)


# ---------------------------------------------------------------------- illegal_action on the AEC envs


@pytest.mark.parametrize("env_id", ["french_tarot_v0", "ottocento_v0", "mattazza_v0"])
def test_terminate_ends_the_episode_with_the_penalty_for_the_offender_only(env_id):
    env = tarot_env.make(env_id, illegal_action="terminate", illegal_reward=-7)
    env.reset(seed=3)
    offender = env.agent_selection
    before = snapshot(env)
    bad = first_illegal(env.observe(offender)["action_mask"])
    with pytest.warns(UserWarning, match="illegal action ended the episode"):
        env.step(bad)
    for x, y in zip(before, snapshot(env)):
        np.testing.assert_array_equal(x, y)  # the action was never played
    seen = {}
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        assert termination and not truncation
        assert not obs["action_mask"].any()
        assert info["illegal_action"]["agent"] == offender and info["illegal_action"]["action"] == bad
        assert "not" in info["illegal_action"]["reason"] or "refused" in info["illegal_action"]["reason"]
        seen[agent] = reward
        env.step(None)
    assert seen == {a: (-7.0 if a == offender else 0.0) for a in env.possible_agents}
    with pytest.raises(RuntimeError, match="illegal action"):
        env.unwrapped.record()
    env.reset(seed=3)  # a new episode starts normally
    assert not any(env.terminations.values()) and env.observe(env.agent_selection)["action_mask"].any()


@pytest.mark.parametrize("env_id", ["french_tarot_v0", "ottocento_v0"])
def test_raise_is_the_default_and_changes_nothing(env_id):
    env = tarot_env.make(env_id)
    env.reset(seed=3)
    agent = env.agent_selection
    before = snapshot(env)
    with pytest.raises(IllegalActionError):
        env.step(first_illegal(env.observe(agent)["action_mask"]))
    for x, y in zip(before, snapshot(env)):
        np.testing.assert_array_equal(x, y)
    assert env.agent_selection == agent and not any(env.terminations.values())


@pytest.mark.parametrize("env_id", ["french_tarot_v0", "ottocento_v0"])
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"illegal_action": "ignore"}, ValueError, "illegal_action='ignore' is not a mode"),
        ({"illegal_action": "terminate", "illegal_reward": "big"}, TypeError, "illegal_reward must be a number"),
        ({"illegal_action": "terminate", "illegal_reward": float("nan")}, ValueError, "must be finite"),
    ],
)
def test_bad_illegal_action_settings_are_refused(env_id, kwargs, error, match):
    with pytest.raises(error, match=match):
        tarot_env.make(env_id, **kwargs)


def test_single_agent_env_terminates_on_an_illegal_action():
    from tarot_env.wrappers import SingleAgentEnv

    env = SingleAgentEnv("french_tarot_v0", illegal_action="terminate", illegal_reward=-3)
    _, info = env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(first_illegal(info["action_mask"]))
    assert (reward, terminated, truncated) == (-3.0, True, False)
    assert "illegal_action" in info and not env.action_masks().any()
    with pytest.raises(IllegalActionError):
        strict = SingleAgentEnv("french_tarot_v0")
        _, info = strict.reset(seed=0)
        strict.step(first_illegal(info["action_mask"]))


@pytest.mark.parametrize("env_id", ["french_tarot_v0", "ottocento_v0"])
def test_sb3_vec_env_terminates_only_the_offending_tables(env_id):
    from tarot_env.wrappers import TarotVecEnv

    venv = TarotVecEnv(6, env_id=env_id, seat="rotate", illegal_action="terminate", illegal_reward=-2)
    venv.seed(1)
    venv.reset()
    masks = venv.action_masks()
    actions = masks.argmax(axis=1)
    actions[[1, 4]] = [first_illegal(masks[1]), first_illegal(masks[4])]
    obs, rewards, dones, infos = venv.step(actions)
    assert dones.tolist() == [False, True, False, False, True, False]
    assert rewards[1] == rewards[4] == -2.0
    assert infos[1]["illegal_action"]["action"] == actions[1]
    assert infos[1]["terminal_observation"].shape == obs[1].shape
    assert venv.action_masks()[[1, 4]].any(axis=1).all()  # new deals, at the learner's turn
    strict = TarotVecEnv(2, env_id=env_id)
    strict.reset()
    with pytest.raises(IllegalActionError):
        strict.step(np.array([first_illegal(strict.action_masks()[0]), 0]))


# ---------------------------------------------------------------------- state() for centralised critics


@pytest.mark.parametrize("env_id", ["french_tarot_v0", "ottocento_v0", "millone_v0"])
def test_state_through_the_parallel_conversion(env_id):
    par = turn_based_aec_to_parallel(tarot_env.make(env_id))
    par.reset(seed=0)
    state = par.state()
    assert state.dtype == np.int8 and par.state_space.contains(state)
    raw = par.unwrapped
    assert state.shape == (raw.encoder.size + raw.encoder.oracle_size,)


def test_state_holds_the_hidden_cards_that_seat_0_cannot_see():
    """Two deals that differ only in cards swapped between seats 1 and 2: seat 0's observation is
    the same, the full state is not."""
    env = tarot_env.make("french_tarot_v0")
    env.reset(seed=5)
    record_deal = env.unwrapped._deal_record(env.unwrapped._deals[0]["deal"])
    hands = [list(h) for h in record_deal["hands"]]
    hands[1][0], hands[2][0] = hands[2][0], hands[1][0]
    other = tarot_env.make("french_tarot_v0")
    other.reset(options={"deal": dict(record_deal, hands=hands)})
    env.reset(options={"deal": record_deal})
    np.testing.assert_array_equal(env.observe("player_0")["observation"], other.observe("player_0")["observation"])
    assert not np.array_equal(env.state(), other.state())


def test_state_before_reset_says_so():
    with pytest.raises(RuntimeError, match="reset"):
        tarot_env.make("ottocento_v0").state()
    with pytest.raises(RuntimeError, match="reset"):
        tarot_env.make("french_tarot_v0").state()
