"""Single-agent training views: SingleAgentEnv (Gymnasium, over the AEC env), TarotVecEnv (SB3 VecEnv,
over the vector env) and SB3 policies as agents; MaskablePPO trains through both.

The SingleAgentEnv tests need only the core package; the others need the ``train`` extra
(stable-baselines3, sb3-contrib, torch) and are skipped without it.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_setup import make_deal

import tarot_env
from tarot_env import IllegalActionError
from tarot_env.wrappers import SingleAgentEnv

PETIT_SEC_HAND = "T1 1S 2S 3S 4S 5S 6S 7S 8S 9S 10S JS NS QS 1H 2H 3H 4H"


def first_legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


class Spy:
    """An opponent that plays the first legal action and calls ``hook`` (if set) before each."""

    def __init__(self, hook=None) -> None:
        self.hook = hook
        self.calls: list[int] = []  # batch size of each call

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        assert observations.ndim == 2 and masks.ndim == 2 and len(observations) == len(masks)
        if self.hook is not None:
            self.hook(observations, masks)
        self.calls.append(len(masks))
        return masks.argmax(axis=1)


# ====================================================================== SingleAgentEnv


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_single_reset_gives_the_learner_his_turn_and_view(seat):
    env = SingleAgentEnv(seat=seat)
    obs, info = env.reset(seed=seat)
    raw = env.env.unwrapped
    assert raw.agent_selection == f"player_{seat}" and not raw.game_over
    assert env.observation_space.contains(obs) and obs.dtype == np.int8
    assert np.array_equal(obs, raw.observe(f"player_{seat}")["observation"])
    assert info["seat"] == seat and info["redeals"] == 0
    assert info["action_mask"].dtype == bool and np.array_equal(info["action_mask"], raw.legal_mask())
    assert np.array_equal(env.action_masks(), raw.legal_mask())


def test_single_reward_is_what_the_learner_earned_since_his_action_and_sums_to_his_score():
    """With shaping, the reward of a step is the sum of the learner's AEC rewards from his action
    to his next turn (tricks completed by opponents included); a deal's rewards sum to his score."""
    env = SingleAgentEnv(seat=1, shaping=True)
    raw = env.env.unwrapped
    paid_since_action: list[float] = []
    # each opponent call sees the rewards of the AEC step just before it
    spy = Spy(hook=lambda obs, masks: paid_since_action.append(raw.rewards["player_1"]))
    env.set_opponents(spy)
    rng = np.random.default_rng(0)
    paid_by_opponents_steps = 0
    for deal in range(6):
        _, info = env.reset(seed=deal)
        total, terminated = 0.0, False
        while not terminated:
            paid_since_action.clear()
            _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            expected = sum(paid_since_action) + raw.rewards["player_1"]
            assert reward == pytest.approx(expected) and not truncated
            paid_by_opponents_steps += any(paid_since_action[1:])
            total += reward
        assert total == pytest.approx(info["scores"][1])
        assert not info["action_mask"].any() and not env.action_masks().any()
    assert paid_by_opponents_steps > 0  # the accumulation was exercised


def test_single_random_seat_rewards_sum_to_the_seats_score_and_reset_seed_replays():
    def play(seed: int) -> list[tuple[int, float, list[int]]]:
        env = SingleAgentEnv(seat="random", reward="score")
        out = []
        for k in range(8):
            _, info = env.reset(seed=seed if k == 0 else None)
            total, terminated = 0.0, False
            while not terminated:
                _, reward, terminated, _, info = env.step(first_legal(info["action_mask"]))
                total += reward
            assert total == info["scores"][info["seat"]]
            out.append((info["seat"], total, info["scores"]))
        return out

    a, b = play(7), play(7)
    assert a == b  # the seed fixes deals, seats and the default opponents
    assert len({seat for seat, _, _ in a}) > 1


def test_single_a_deal_ending_before_the_learner_acts_is_dealt_again():
    """A petit sec annuls the deal at once: the learner has no decision, so the env deals again."""
    env = SingleAgentEnv(seat=0)
    _, info = env.reset(seed=0, options={"deal": make_deal(4, 1, {3: PETIT_SEC_HAND}, petit_sec=True)})
    raw = env.env.unwrapped
    assert info["redeals"] == 1
    assert not raw.game_over and raw.agent_selection == "player_0" and info["action_mask"].any()
    assert (raw.game_state.hands[0].sum(axis=1) == 18).all()  # a new, full deal
    petit_sec_hand = raw._parse_reset({"deal": make_deal(4, 1, {3: PETIT_SEC_HAND}, petit_sec=True)})[1][3]
    assert not np.array_equal(raw.game_state.hands[0, 3], petit_sec_hand)


def test_single_opponents_list_plays_the_seats_after_the_learner_in_order():
    env = SingleAgentEnv(seat=2)
    raw = env.env.unwrapped
    seen: list[set[int]] = [set(), set(), set()]
    spies = [Spy(hook=lambda o, m, k=k: seen[k].add(int(raw.game_state.current[0]))) for k in range(3)]
    env.set_opponents(spies)
    _, info = env.reset(seed=1)
    terminated = False
    while not terminated:
        _, _, terminated, _, info = env.step(first_legal(info["action_mask"]))
    assert seen == [{3}, {0}, {1}]
    assert all(c == 1 for s in spies for c in s.calls)  # the AEC view asks one decision at a time
    with pytest.raises(ValueError, match="list of 3"):
        SingleAgentEnv(opponents=spies[:2])
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv(seat=4)
    with pytest.raises(TypeError, match="act"):
        SingleAgentEnv(opponents=object())


def test_single_illegal_action_raises_and_changes_nothing_and_step_after_the_end_raises():
    env = SingleAgentEnv(seat=0)
    obs, info = env.reset(seed=3)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    assert np.array_equal(env._observation(), obs) and np.array_equal(env.action_masks(), info["action_mask"])
    terminated = False
    while not terminated:
        _, _, terminated, _, info = env.step(first_legal(info["action_mask"]))
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    with pytest.raises(RuntimeError, match="reset"):
        SingleAgentEnv().step(0)


# ====================================================================== TarotVecEnv


@pytest.fixture
def sb3():
    """The training stack, with torch on one thread (small nets run faster so, and CI cores are few)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_vec_reset_puts_every_table_at_its_learners_turn(sb3):
    from tarot_env.wrappers import TarotVecEnv

    venv = TarotVecEnv(12, seat="rotate")
    venv.seed(5)
    obs = venv.reset()
    s, enc = venv.venv.game_state, venv.venv.encoder
    assert np.array_equal(venv.seats, np.arange(12) % 4)
    assert np.array_equal(s.current, venv.seats)
    assert obs.shape == (12, 1366) and obs.dtype == np.int8
    assert np.array_equal(obs, enc.encode(s, np.arange(12), venv.seats))
    assert np.array_equal(venv.action_masks(), s.legal)
    assert [i["seat"] for i in venv.reset_infos] == venv.seats.tolist()


def test_vec_masks_reach_maskable_ppo_through_get_action_masks(sb3):
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from tarot_env.wrappers import TarotVecEnv

    venv = TarotVecEnv(5, seat=3, num_players=5)
    venv.reset()
    assert is_masking_supported(venv)
    masks = get_action_masks(venv)
    assert masks.shape == (5, 205) and masks.dtype == bool
    assert np.array_equal(masks, venv.venv.game_state.legal) and np.array_equal(masks, venv.action_masks())
    assert venv.env_is_wrapped(object) == [False] * 5 and venv.get_attr("render_mode", [0, 2]) == [None, None]
    # env_method("action_masks"), what get_action_masks calls: a table's row each, for all, some or one table
    for indices, rows in ((None, [0, 1, 2, 3, 4]), ([3, 1], [3, 1]), (2, [2])):
        got = venv.env_method("action_masks", indices=indices)
        assert len(got) == len(rows) and all(np.array_equal(g, masks[r]) for g, r in zip(got, rows))
    got[0][:] = ~got[0]  # the rows are copies: the adapter's masks stay as they were
    assert np.array_equal(venv.action_masks(), masks)


def test_vec_rewards_terminal_observations_records_and_rotating_seats(sb3):
    """Random learners at 16 tables with shaping: each deal's rewards sum to the learner's score;
    terminal_observation is his last view of the deal (checked by replaying the record through the
    AEC env); the seat moves on by one at each new deal."""
    from tarot_env.wrappers import TarotVecEnv

    venv = TarotVecEnv(16, seat="rotate", shaping=True, records=True)
    venv.seed(11)
    obs = venv.reset()
    rng = np.random.default_rng(0)
    totals = np.zeros(16)
    deals = 0
    while deals < 40:
        masks = venv.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        seats_before = venv.seats.copy()
        obs, rewards, dones, infos = venv.step(actions)
        assert rewards.dtype == np.float32 and obs.dtype == np.int8
        totals += rewards
        assert np.array_equal(venv.venv.game_state.current, venv.seats)
        for t in np.flatnonzero(dones):
            info = infos[t]
            seat = info["seat"]
            assert seat == seats_before[t] and venv.seats[t] == (seat + 1) % 4
            assert totals[t] == pytest.approx(info["scores"][seat])
            assert tarot_env.replay(info["record"]) == info["scores"]
            aec = tarot_env.make("french_tarot_v0")
            aec.reset(options={"deal": info["record"]["deal"]})
            for action in info["record"]["actions"]:
                aec.step(action)
            assert np.array_equal(info["terminal_observation"], aec.observe(f"player_{seat}")["observation"])
            totals[t] = 0.0
            deals += 1
        for t in np.flatnonzero(~dones):
            assert "terminal_observation" not in infos[t]


def test_vec_opponents_act_in_batches_each_on_its_own_seats(sb3):
    """One act() call per opponent agent per round, over every table where one of its seats is to
    act, with the observations of the player to act there. (Dealer 3: seat 0 bids first at every table.)"""
    from tarot_env.wrappers import TarotVecEnv

    venv = TarotVecEnv(16, seat=0, dealer=3)
    inner = venv.venv

    def checker(k):
        def hook(observations, masks):
            s = inner.game_state
            rows = np.flatnonzero((s.current != venv.seats) & (s.current == (venv.seats + k + 1) % 4))
            assert len(rows) == len(masks)
            assert np.array_equal(observations, inner.encoder.encode(s, rows, s.current[rows]))
            assert np.array_equal(masks, s.legal[rows])

        return hook

    spies = [Spy(hook=checker(k)) for k in range(3)]
    venv.set_opponents(spies)
    venv.reset()
    assert [spy.calls for spy in spies] == [[], [], []]  # every table starts at the learner's bid
    venv.step(venv.action_masks().argmax(axis=1))
    assert [spy.calls for spy in spies] == [[16], [16], [16]]  # then every opponent bids, at all tables at once
    for _ in range(60):
        venv.step(venv.action_masks().argmax(axis=1))
    for spy in spies:
        assert len(spy.calls) < sum(spy.calls) / 4  # batches, not one table at a time

    shared = Spy()  # one agent for the three seats: one call per round, whichever seat acts
    venv.set_opponents(shared)
    venv.reset()
    venv.step(venv.action_masks().argmax(axis=1))
    assert shared.calls == [16, 16, 16]


def test_vec_illegal_learner_action_raises_and_changes_nothing(sb3):
    from tarot_env.wrappers import TarotVecEnv

    venv = TarotVecEnv(4)
    obs = venv.reset()
    masks = venv.action_masks()
    actions = masks.argmax(axis=1)
    actions[2] = int(np.flatnonzero(~masks[2])[0])
    with pytest.raises(IllegalActionError, match="table 2"):
        venv.step(actions)
    assert np.array_equal(venv._obs, obs) and np.array_equal(venv.action_masks(), masks)
    venv.step(masks.argmax(axis=1))


# ====================================================================== SB3 policies as agents and training


class CheckDeals:
    """A callback body: every finished deal's rewards sum to the learner's score (times ``scale``,
    the reward mode's unit); terminal_observation is there."""

    def __init__(self, num_envs: int, scale: float = 1.0) -> None:
        self.scale = scale
        self.totals = np.zeros(num_envs)
        self.deals = 0

    def __call__(self, local_vars, _globals) -> bool:
        self.totals += local_vars["rewards"]
        for t in np.flatnonzero(local_vars["dones"]):
            info = local_vars["infos"][t]
            assert self.totals[t] == pytest.approx(info["scores"][info["seat"]] * self.scale)
            assert info["terminal_observation"].shape == (1366,)
            self.totals[t] = 0.0
            self.deals += 1
        return True


def small_ppo(env, **kwargs):
    from sb3_contrib import MaskablePPO

    return MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=2, policy_kwargs={"net_arch": [32]}, seed=0, **kwargs)


def test_maskable_ppo_trains_through_single_agent_env(sb3):
    from tarot_env.agents.random_agent import RandomAgent

    env = SingleAgentEnv(seat="random", opponents=RandomAgent(0))
    check = CheckDeals(1)
    model = small_ppo(env).learn(2048, callback=check)
    assert model.num_timesteps == 2048 and check.deals > 50


def test_maskable_ppo_trains_through_the_vec_env_against_a_frozen_snapshot(sb3):
    import torch
    from stable_baselines3.common.vec_env import VecMonitor
    from tarot_env.agents.sb3_policy import SB3PolicyAgent, snapshot

    from tarot_env.wrappers import TarotVecEnv

    venv = TarotVecEnv(16, seat="rotate", reward="normalised", shaping=True)
    model = small_ppo(VecMonitor(venv))
    frozen = snapshot(model)
    weights = [p.detach().clone() for p in frozen.policy.parameters()]
    venv.set_opponents([frozen, SB3PolicyAgent(model), frozen])  # two past selves and the live learner
    check = CheckDeals(16, scale=1 / 300)  # normalised: score / (100 (N - 1))
    model.learn(3072, callback=check)
    assert model.num_timesteps >= 3072 and check.deals > 100
    assert len(model.ep_info_buffer) > 0  # VecMonitor saw the deals end
    assert all(torch.equal(a, b) for a, b in zip(weights, frozen.policy.parameters()))  # frozen
    assert not all(torch.equal(a, b) for a, b in zip(weights, model.policy.parameters()))  # the learner moved on


@pytest.mark.parametrize("deterministic", [False, True])
def test_policy_agents_play_only_legal_actions(sb3, deterministic):
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import PPO
    from tarot_env.agents.sb3_policy import SB3PolicyAgent, snapshot

    env = SingleAgentEnv()
    rng = np.random.default_rng(1)
    obs = rng.integers(0, 2, size=(64, 1366)).astype(np.int8)
    masks = rng.random((64, 205)) < 0.05
    masks[np.arange(64), rng.integers(205, size=64)] = True
    masks[0] = False
    masks[0, 7] = True  # a single legal action is the only choice
    for model in (MaskablePPO("MlpPolicy", env, seed=0), PPO("MlpPolicy", env, seed=0)):
        for agent in (SB3PolicyAgent(model, deterministic=deterministic), snapshot(model, deterministic=deterministic)):
            for _ in range(3):
                actions = agent.act(obs, masks)
                assert actions.shape == (64,) and masks[np.arange(64), actions].all() and actions[0] == 7
            assert agent.act(obs[0], masks[0]) == 7


@pytest.mark.parametrize("bf16", [False, True])
def test_the_agents_direct_path_is_the_policys_distribution(sb3, bf16):
    """SB3PolicyAgent asks the policy's actor for its logits directly: its greedy actions are
    predict()'s, and its draws follow the masked distribution (here: frequencies of 20,000 draws
    against the probabilities, within 5 standard errors)."""
    import torch
    from sb3_contrib import MaskablePPO
    from tarot_env.agents.sb3_policy import BFloat16FirstLayer, SB3PolicyAgent

    env = SingleAgentEnv()
    kwargs = {"net_arch": [64], "features_extractor_class": BFloat16FirstLayer, "share_features_extractor": False} if bf16 else {}
    model = MaskablePPO("MlpPolicy", env, seed=0, policy_kwargs=kwargs)
    rng = np.random.default_rng(2)
    obs = rng.integers(0, 2, size=(32, 1366)).astype(np.int8)
    masks = rng.random((32, 205)) < 0.1
    masks[np.arange(32), rng.integers(205, size=32)] = True
    greedy, _ = model.policy.predict(obs, deterministic=True, action_masks=masks)
    assert (SB3PolicyAgent(model, deterministic=True).act(obs, masks) == greedy).all()

    torch.manual_seed(0)
    agent = SB3PolicyAgent(model)
    row = np.repeat(obs[:1], 20_000, axis=0)
    row_mask = np.repeat(masks[:1], 20_000, axis=0)
    draws = agent.act(row, row_mask)
    with torch.no_grad():
        dist = model.policy.get_distribution(model.policy.obs_to_tensor(obs[:1])[0], action_masks=masks[:1])
        p = dist.distribution.probs[0].numpy()
    freq = np.bincount(draws, minlength=len(p)) / len(draws)
    assert set(np.flatnonzero(freq)) <= set(np.flatnonzero(masks[0]))
    assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / len(draws)) + 1e-9), (freq, p)
