"""The asymmetric critic (experiments/train.py ``--critic-oracle``): the learner's value head reads the
hidden cards (the env's oracle) through a trunk of its own, the policy never does.

The SB3 adapter gives the learner [observation, oracle] and the opponents the observation alone; the
policy's outputs do not move when the oracle columns change while the value's do; each loss reaches
its own trunk only; a tiny run warm-starts, trains, saves, reloads, plays width-D observations and
resumes; the separate networks are refused beside it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import torch as th
from tarot_env.agents.sb3_policy import OracleCriticPolicy, OracleCriticTrunks, SB3PolicyAgent, snapshot

from tarot_env import vector
from tarot_env.wrappers import TarotVecEnv

HAND = 78  # French Tarot: the observation's first field is the observer's hand, the oracle's first his hand too


class Recorder:
    """An opponent that plays its first legal action and keeps the widths of the observations it is given."""

    def __init__(self) -> None:
        self.widths: set[int] = set()
        self.calls = 0

    def act(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        self.widths.add(obs.shape[1])
        self.calls += 1
        return np.argmax(masks, axis=1)


def widths(env_id: str, num_players: int) -> tuple[int, int]:
    raw = vector.make(env_id, 1, num_players=num_players, oracle=True)
    return raw.observation_size, raw.encoder.oracle_size


# ---------------------------------------------------------------------- the adapter
@pytest.mark.parametrize(("env_id", "num_players"), [("french_tarot_v0", 4), ("ottocento_v0", 4)])
def test_the_learner_sees_observation_and_oracle_and_the_opponents_the_observation_alone(env_id, num_players):
    """The same deals with and without the oracle: the first D columns are the plain adapter's
    observations, step by step (rewards, dones too); the opponents only ever get D columns."""
    d, o = widths(env_id, num_players)
    seen, plain_opponent = Recorder(), Recorder()
    venv = TarotVecEnv(8, env_id=env_id, seat="rotate", num_players=num_players, opponents=seen, critic_oracle=True)
    plain = TarotVecEnv(8, env_id=env_id, seat="rotate", num_players=num_players, opponents=plain_opponent)
    assert venv.observation_space.shape == (d + o,) and plain.observation_space.shape == (d,)
    assert (venv.observation_size, venv.oracle_size) == (d, o) and (plain.observation_size, plain.oracle_size) == (d, 0)
    venv.seed(3)
    plain.seed(3)
    obs, ref = venv.reset(), plain.reset()
    ended = 0
    for _ in range(60):
        assert obs.shape == (8, d + o) and obs.dtype == np.int8
        assert np.array_equal(obs[:, :d], ref)
        assert obs[:, d:].any(axis=1).all()  # every learner gets his oracle row (hands at least)
        if env_id == "french_tarot_v0":
            assert np.array_equal(obs[:, d : d + HAND], obs[:, :HAND])  # from his seat: relative seat 0 is his hand
        actions = np.argmax(venv.action_masks(), axis=1)
        obs, rewards, dones, infos = venv.step(actions)
        ref, ref_rewards, ref_dones, ref_infos = plain.step(actions)
        assert np.array_equal(rewards, ref_rewards) and np.array_equal(dones, ref_dones)
        for t in np.flatnonzero(dones):
            last = infos[t]["terminal_observation"]
            assert last.shape == (d + o,) and last.dtype == np.int8
            assert np.array_equal(last[:d], ref_infos[t]["terminal_observation"]) and not last[d:].any()  # no oracle at a deal's end
            ended += 1
    assert ended > 0
    assert seen.calls > 0 and seen.widths == {d}


def test_an_illegal_action_ends_the_deal_with_the_learners_observation_and_oracle():
    d, o = widths("french_tarot_v0", 4)
    venv = TarotVecEnv(4, num_players=4, opponents=Recorder(), critic_oracle=True, illegal_action="terminate")
    venv.seed(0)
    obs = venv.reset()
    actions = np.argmax(venv.action_masks(), axis=1)
    actions[1] = int(np.flatnonzero(~venv.action_masks()[1])[0])
    new, _, dones, infos = venv.step(actions)
    assert dones[1] and np.array_equal(infos[1]["terminal_observation"], obs[1]) and new.shape == (4, d + o)
    assert new[1, d:].any()  # the new deal's oracle


def test_the_oracle_option_is_refused_beside_critic_oracle():
    with pytest.raises(ValueError, match="critic_oracle=True makes the vector env with oracle=True itself: drop the oracle"):
        TarotVecEnv(2, num_players=4, critic_oracle=True, oracle=True)


# ---------------------------------------------------------------------- the policy
def oracle_policy(d: int, o: int, bf16: bool = True, seed: int = 0, actions: int = 205) -> OracleCriticPolicy:
    from gymnasium import spaces

    th.manual_seed(seed)
    return OracleCriticPolicy(
        spaces.Box(0, 1, (d + o,), dtype=np.int8),
        spaces.Discrete(actions),
        lambda _: 1e-3,
        net_arch={"pi": [], "vf": []},
        features_extractor_class=OracleCriticTrunks,
        features_extractor_kwargs={"observation_size": d, "net_arch": (32, 16), "bf16_first_layer": bf16},
        share_features_extractor=True,
    )


def played_observations(n: int = 16, steps: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """Learner observations with oracle rows and masks from real French Tarot deals (4 players)."""
    venv = TarotVecEnv(n, num_players=4, seat="rotate", opponents=Recorder(), critic_oracle=True)
    venv.seed(1)
    obs = venv.reset()
    rows, masks = [], []
    for _ in range(steps):
        rows.append(obs)
        masks.append(venv.action_masks())
        obs, _, _, _ = venv.step(np.argmax(masks[-1], axis=1))
    return np.concatenate(rows), np.concatenate(masks)


@pytest.mark.parametrize("bf16", [True, False])
def test_the_oracle_does_not_leak_into_the_policy_but_reaches_the_value(bf16):
    """For the same observations, other oracle rows (random 0/1, or two opponents' hands swapped) leave
    the logits, the distribution, the actions and the log-probabilities exactly as they were, and
    observations without the oracle columns give the same logits; the values change."""
    d, o = widths("french_tarot_v0", 4)
    p = oracle_policy(d, o, bf16)
    obs, masks = played_observations()
    rng = np.random.default_rng(5)
    noisy = obs.copy()
    noisy[:, d:] = rng.integers(0, 2, size=(len(obs), o))
    swapped = obs.copy()
    first, second = slice(d + HAND, d + 2 * HAND), slice(d + 2 * HAND, d + 3 * HAND)
    swapped[:, first], swapped[:, second] = obs[:, second], obs[:, first]
    assert (swapped != obs).any()
    with th.no_grad():
        x = th.as_tensor(obs)
        logits = p.action_logits(x)
        assert th.equal(p.action_logits(x[:, :d]), logits)  # width D, as opponents, snapshots and the arena give
        actions, values, log_prob = p.forward(x, deterministic=True, action_masks=masks)
        probs = p.get_distribution(x, action_masks=masks).distribution.probs
        taken = th.as_tensor(np.argmax(masks, axis=1))
        ev = p.evaluate_actions(x.float(), taken, action_masks=masks)
        for other in (noisy, swapped):
            y = th.as_tensor(other)
            assert th.equal(p.action_logits(y), logits)
            a2, v2, lp2 = p.forward(y, deterministic=True, action_masks=masks)
            assert th.equal(a2, actions) and th.equal(lp2, log_prob)
            assert th.equal(p.get_distribution(y, action_masks=masks).distribution.probs, probs)
            ev2 = p.evaluate_actions(y.float(), taken, action_masks=masks)
            assert th.equal(ev2[1], ev[1]) and th.equal(ev2[2], ev[2])
            assert not th.allclose(v2, values) and not th.allclose(ev2[0], ev[0])  # the critic reads the oracle
            assert th.equal(p.predict_values(y), v2)
        # and the observation alone: the critic's part of the network moves the values only
        assert (SB3PolicyAgent(p, deterministic=True).act(obs[:, :d], masks) == actions.numpy()).all()


@pytest.mark.parametrize("bf16", [True, False])
def test_each_loss_reaches_its_own_trunk_only(bf16):
    d, o = widths("french_tarot_v0", 4)
    p = oracle_policy(d, o, bf16)
    obs, masks = played_observations(8, 6)
    x = th.as_tensor(obs).float()
    taken = th.as_tensor(np.argmax(masks, axis=1))
    actor = [q for q in p.features_extractor.actor.parameters()] + list(p.action_net.parameters())
    critic = [q for q in p.features_extractor.critic.parameters()] + list(p.value_net.parameters())
    assert len(set(map(id, actor + critic))) == len(list(p.parameters()))  # every parameter is one side's
    assert p.features_extractor.actor.features_dim == p.features_extractor.critic.features_dim == 16

    def grads(loss: th.Tensor) -> tuple[list[float], list[float]]:
        p.zero_grad(set_to_none=True)
        loss.backward()
        norm = [0.0 if q.grad is None else float(q.grad.abs().sum()) for q in actor]
        return norm, [0.0 if q.grad is None else float(q.grad.abs().sum()) for q in critic]

    values, log_prob, entropy = p.evaluate_actions(x, taken, action_masks=masks)
    on_actor, on_critic = grads(-(log_prob.mean() + 0.01 * entropy.mean()))  # PPO's policy terms
    assert all(g > 0 for g in on_actor) and all(g == 0 for g in on_critic)
    values, _, _ = p.evaluate_actions(x, taken, action_masks=masks)
    on_actor, on_critic = grads(((values.flatten() - 1.0) ** 2).mean())  # the value loss
    assert all(g == 0 for g in on_actor) and all(g > 0 for g in on_critic)


def test_the_policy_takes_integer_observations_as_floats_and_refuses_other_widths():
    d, o = widths("french_tarot_v0", 4)
    p = oracle_policy(d, o, bf16=True)
    obs, masks = played_observations(8, 4)
    with th.no_grad():
        as_int = p.forward(th.as_tensor(obs), deterministic=True, action_masks=masks)
        as_float = p.forward(th.as_tensor(obs).float(), deterministic=True, action_masks=masks)
    for a, b in zip(as_int, as_float):
        assert th.equal(a, b)
    with pytest.raises(ValueError, match=f"the policy takes {d} .* or {d + o}"):
        p.action_logits(th.as_tensor(obs[:, : d + 1]))
    with pytest.raises(ValueError, match="needs features_extractor_class=OracleCriticTrunks"):
        OracleCriticPolicy(p.observation_space, p.action_space, lambda _: 1e-3)


def test_snapshots_of_the_policy_play_observations_alone():
    d, o = widths("french_tarot_v0", 4)
    p = oracle_policy(d, o)
    frozen = snapshot(p, deterministic=True)
    assert isinstance(frozen.policy, OracleCriticPolicy) and frozen.policy.features_extractor.observation_size == d
    obs, masks = played_observations(8, 4)
    greedy = SB3PolicyAgent(p, deterministic=True).act(obs, masks)
    assert (frozen.act(obs[:, :d], masks) == greedy).all() and masks[np.arange(len(masks)), greedy].all()
    assert (p.predict(obs, deterministic=True, action_masks=masks)[0] == greedy).all()


# ---------------------------------------------------------------------- train.py
def tiny(out, **kwargs):
    from tarot_env.experiments.train import TrainConfig

    small = dict(num_envs=16, num_players=4, timesteps=512, n_steps=32, batch_size=256, n_epochs=1, net_arch=[32],
                 snapshot_every=512, eval_every=512, checkpoint_every=512, eval_episodes=8, torch_threads=1,
                 bc_deals=20, progress_bar=False, critic_oracle=True)  # fmt: skip
    return TrainConfig(env_id="french_tarot_v0", out=str(out), **{**small, **kwargs})


def test_a_tiny_run_with_the_oracle_critic_saves_a_model_that_plays_and_resumes(tmp_path, capsys):
    import json

    from sb3_contrib import MaskablePPO
    from tarot_env.agents.factory import make_agent
    from tarot_env.experiments.train import main, read_csv, train

    d, o = widths("french_tarot_v0", 4)
    final = train(tiny(tmp_path, pool_weights={"random": 0.0, "rules": 1e-6, "snapshot": 1.0}))
    assert final.exists() and (tmp_path / "model_512.zip").exists() and (tmp_path / "warm_start.csv").exists()
    assert json.loads((tmp_path / "config.json").read_text())["critic_oracle"] is True
    assert [r["steps"] for r in read_csv(tmp_path / "log.csv")] == [0, 512]
    assert "warm start: cloned the rule-based bot" in capsys.readouterr().out

    model = MaskablePPO.load(final, device="cpu")
    assert isinstance(model.policy, OracleCriticPolicy) and model.observation_space.shape == (d + o,)
    assert model.policy.features_extractor.observation_size == d and model.policy.actor_observation_shape == (d,)
    for agent in (SB3PolicyAgent(model, deterministic=True), make_agent(f"sb3:{final}", "french_tarot_v0", num_players=4)):
        venv = TarotVecEnv(8, seat="rotate", num_players=4, opponents=agent)  # the model at every seat, width D
        obs = venv.reset()
        for _ in range(30):
            masks = venv.action_masks()
            actions = agent.act(obs, masks)
            assert obs.shape == (8, d) and masks[np.arange(8), actions].all()
            obs, _, _, _ = venv.step(actions)

    (tmp_path / "model_final.zip").unlink()  # as if it had stopped after its checkpoint
    main(["--resume", str(tmp_path), "--timesteps", "1024", "--no-progress-bar"])  # against the snapshot of step 512
    assert "from model_512.zip (512 steps; 1 snapshots, 2 log rows)" in capsys.readouterr().out
    assert [r["steps"] for r in read_csv(tmp_path / "log.csv")] == [0, 512, 1024]
    again = MaskablePPO.load(tmp_path / "model_final.zip", device="cpu")
    assert again.num_timesteps == 1024 and isinstance(again.policy, OracleCriticPolicy)


def test_the_warm_start_collects_the_oracle_after_the_observations():
    from tarot_env.agents.french_rules import FrenchRuleAgent
    from tarot_env.experiments.imitation import collect

    d, o = widths("french_tarot_v0", 4)
    plain = collect("french_tarot_v0", 12, FrenchRuleAgent(), num_envs=12, seed=2, num_players=4, reward="score")
    both = collect("french_tarot_v0", 12, FrenchRuleAgent(), num_envs=12, seed=2, num_players=4, reward="score", with_oracle=True)
    assert plain.observations.shape[1] == d and both.observations.shape[1] == d + o
    assert np.array_equal(both.observations[:, :d], plain.observations) and np.array_equal(both.actions, plain.actions)
    assert np.array_equal(both.returns, plain.returns)
    assert np.array_equal(both.observations[:, d : d + HAND], plain.observations[:, :HAND])  # each decider's own hand first


def test_the_separate_networks_are_refused_beside_the_oracle_critic_and_the_flag_parses(tmp_path):
    from tarot_env.experiments.train import TrainConfig, new_model, parse_args, policy_kwargs, train

    with pytest.raises(ValueError, match="critic_oracle needs network='shared', not 'separate'"):
        train(tiny(tmp_path / "run", network="separate"))
    assert not (tmp_path / "run").exists()  # refused before anything is written
    assert parse_args(["--players", "4", "--critic-oracle"]).critic_oracle is True
    assert parse_args(["--no-critic-oracle"]).critic_oracle is False and TrainConfig().critic_oracle is False
    with pytest.raises(ValueError, match="the model's env must give the oracle too"):
        new_model(tiny(tmp_path), TarotVecEnv(2, num_players=4))
    with pytest.raises(ValueError, match="give the observation's width"):
        policy_kwargs(tiny(tmp_path))


@pytest.mark.parametrize("network", ["shared", "separate"])
def test_the_evaluation_of_a_plain_model_plays_what_predict_plays(network):
    """learner_scores plays the model as an SB3PolicyAgent (which takes observations without the
    oracle): for a model without the oracle critic the same greedy actions as model.predict, so the
    same scores as before."""
    from tarot_env.agents import rule_agent
    from tarot_env.experiments.train import _eval_scores, learner_scores, new_model

    config = dataclasses.replace(tiny("unused"), critic_oracle=False, network=network)
    model = new_model(config, TarotVecEnv(4, num_players=4), device="cpu")
    bot = rule_agent("french_tarot_v0")
    before = _eval_scores(lambda obs, masks: model.predict(obs, action_masks=masks, deterministic=True)[0], config, bot, 24, seed=1)
    assert np.array_equal(learner_scores(model, config, bot, 24), before)
    obs, masks = played_observations(8, 6)
    plain = obs[:, : obs.shape[1] - widths("french_tarot_v0", 4)[1]]
    assert (
        SB3PolicyAgent(model, deterministic=True).act(plain, masks) == model.predict(plain, action_masks=masks, deterministic=True)[0]
    ).all()
