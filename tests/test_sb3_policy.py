"""agents/sb3_policy.py's learner network: the shared trunk, and the masked softmax computed directly
(MaskedSoftmaxPolicy) giving what sb3-contrib's MaskableActorCriticPolicy gives: the same
log-probabilities, entropies, values and gradients, draws from the same distribution, never an
illegal action. And experiments/train.py's choice of network and update threads."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from tarot_env.agents.sb3_policy import MaskedSoftmaxPolicy, SB3PolicyAgent, SharedTrunk, snapshot

OBS, ACTIONS = 1366, 205


def policy(shared: bool = True, bf16: bool = True, seed: int = 0) -> MaskedSoftmaxPolicy:
    th.manual_seed(seed)
    obs_space = spaces.Box(-1, 127, shape=(OBS,), dtype=np.int8)
    kwargs = (
        {
            "net_arch": {"pi": [], "vf": []},
            "features_extractor_class": SharedTrunk,
            "features_extractor_kwargs": {"net_arch": (64, 32), "bf16_first_layer": bf16},
            "share_features_extractor": True,
        }
        if shared
        else {"net_arch": [64, 32]}
    )
    return MaskedSoftmaxPolicy(obs_space, spaces.Discrete(ACTIONS), lambda _: 1e-3, **kwargs)


def batch(n: int = 48, seed: int = 1) -> tuple[th.Tensor, np.ndarray]:
    rng = np.random.default_rng(seed)
    obs = th.as_tensor(rng.integers(0, 2, size=(n, OBS)), dtype=th.float32)
    masks = rng.random((n, ACTIONS)) < 0.08
    masks[np.arange(n), rng.integers(ACTIONS, size=n)] = True
    masks[0] = False
    masks[0, 11] = True  # one legal action: probability 1, entropy 0
    return obs, masks


@pytest.mark.parametrize("shared", [True, False])
@pytest.mark.parametrize("bf16", [True, False])
def test_evaluate_actions_and_its_gradients_are_the_parents(shared, bf16):
    p = policy(shared, bf16)
    obs, masks = batch()
    rng = np.random.default_rng(3)
    actions = th.as_tensor([rng.choice(np.flatnonzero(m)) for m in masks])
    ours = p.evaluate_actions(obs, actions, action_masks=masks)
    theirs = MaskableActorCriticPolicy.evaluate_actions(p, obs, actions, action_masks=masks)
    for a, b in zip(ours, theirs):
        assert th.allclose(a, b, atol=1e-5, rtol=1e-5), (a, b)
    assert abs(ours[1][0].item()) < 1e-6 and abs(ours[2][0].item()) < 1e-6  # the single legal action

    def grads(out: tuple[th.Tensor, ...]) -> list[th.Tensor]:
        p.zero_grad()
        values, log_prob, entropy = out
        (values.sum() * 0.5 + log_prob.sum() + entropy.sum() * 0.1).backward()
        return [q.grad.clone() for q in p.parameters() if q.grad is not None]

    g_ours = grads(p.evaluate_actions(obs, actions, action_masks=masks))
    g_theirs = grads(MaskableActorCriticPolicy.evaluate_actions(p, obs, actions, action_masks=masks))
    assert len(g_ours) == len(g_theirs) > 0
    for a, b in zip(g_ours, g_theirs):
        assert th.allclose(a, b, atol=1e-4, rtol=1e-4)


def test_forward_is_the_parents_distribution():
    """Greedy actions and their log-probabilities are the parent's; 20,000 draws of one row follow the
    masked probabilities (within 5 standard errors) and never touch an illegal action."""
    p = policy()
    obs, masks = batch()
    with th.no_grad():
        ours = p.forward(obs, deterministic=True, action_masks=masks)
        theirs = MaskableActorCriticPolicy.forward(p, obs, deterministic=True, action_masks=masks)
        assert (ours[0] == theirs[0]).all()
        assert th.allclose(ours[1], theirs[1]) and th.allclose(ours[2], theirs[2], atol=1e-5)
        th.manual_seed(0)
        rows = obs[1:2].repeat(20_000, 1)
        row_masks = np.repeat(masks[1:2], 20_000, axis=0)
        draws, _, log_prob = p.forward(rows, action_masks=row_masks)
        probs = p.get_distribution(obs[1:2], action_masks=masks[1:2]).distribution.probs[0].numpy()
    draws = draws.numpy()
    assert row_masks[0, draws].all()
    freq = np.bincount(draws, minlength=ACTIONS) / len(draws)
    assert np.all(np.abs(freq - probs) <= 5 * np.sqrt(probs * (1 - probs) / len(draws)) + 1e-9)
    assert th.allclose(log_prob, th.log(th.as_tensor(probs[draws])), atol=1e-4)


def test_the_trunk_is_one_network_for_policy_and_value():
    """One first layer of OBS inputs (not two), and the value's loss reaches it."""
    p = policy()
    first = [q for q in p.parameters() if q.ndim == 2 and q.shape[1] == OBS]
    assert len(first) == 1
    obs, masks = batch()
    values, _, _ = p.evaluate_actions(obs, th.as_tensor([int(np.flatnonzero(m)[0]) for m in masks]), action_masks=masks)
    values.sum().backward()
    assert first[0].grad is not None and first[0].grad.abs().sum() > 0
    with pytest.raises(ValueError, match="at least one hidden layer"):
        SharedTrunk(spaces.Box(0, 1, shape=(OBS,)), net_arch=())


def test_agents_and_snapshots_play_the_shared_network():
    p = policy()
    obs, masks = batch()
    for agent in (SB3PolicyAgent(p, deterministic=True), snapshot(p, deterministic=True)):
        actions = agent.act(obs.numpy().astype(np.int8), masks)
        assert masks[np.arange(len(masks)), actions].all() and actions[0] == 11
    greedy, _ = p.predict(obs.numpy(), deterministic=True, action_masks=masks)
    assert (SB3PolicyAgent(p, deterministic=True).act(obs.numpy(), masks) == greedy).all()


@pytest.mark.parametrize(("shared", "bf16"), [(True, True), (True, False), (False, False)])
def test_integer_observations_give_the_float_observations_outputs_exactly(shared, bf16):
    """The rollouts hand the policy int8 observations, which a bfloat16 first layer takes as they are
    (no float32 copy); the updates hand it float32 ones. Both must be one function, bit for bit, or
    PPO's ratios would start away from 1; and an agent's logits (actor only) are the forward's. The
    observations span the int8 values the space allows (-1 to 127), not only 0/1 cards."""
    p = policy(shared, bf16)
    obs, masks = batch()
    rng = np.random.default_rng(7)
    counts = rng.random(obs.shape) < 0.02
    obs[th.as_tensor(counts)] = th.as_tensor(rng.integers(-1, 128, size=int(counts.sum())), dtype=th.float32)
    with th.no_grad():
        as_float = p.forward(obs, deterministic=True, action_masks=masks)
        as_int8 = p.forward(obs.to(th.int8), deterministic=True, action_masks=masks)
        for a, b in zip(as_float, as_int8):
            assert th.equal(a, b)
        logits = p.action_logits(obs.to(th.int8))
        log_probs, _ = p._log_probs(p._latents(obs)[0], masks)
        legal = th.as_tensor(masks)
        assert th.equal(th.log_softmax(th.where(legal, logits, -th.inf), dim=1)[legal], log_probs[legal])
    values, log_prob, _ = p.evaluate_actions(obs, as_float[0], action_masks=masks)
    assert th.equal(log_prob.detach(), as_float[2]) and th.equal(values.detach(), as_float[1])


# ------------------------------------------------------------------------------------- train.py
def tiny(out, **kwargs):
    from tarot_env.experiments.train import TrainConfig

    small = dict(num_envs=16, timesteps=1024, n_steps=32, batch_size=256, n_epochs=1, net_arch=[32], snapshot_every=0,
                 eval_every=0, checkpoint_every=0, eval_episodes=8, torch_threads=1, bc_deals=0, progress_bar=False)  # fmt: skip
    return TrainConfig(env_id="french_tarot_v0", out=str(out), **{**small, **kwargs})


@pytest.mark.parametrize("network", ["shared", "separate"])
def test_a_run_trains_the_network_asked_and_saves_it(tmp_path, network):
    from sb3_contrib import MaskablePPO
    from tarot_env.experiments.train import train

    final = train(tiny(tmp_path, network=network))
    model = MaskablePPO.load(final)
    shared = network == "shared"
    assert isinstance(model.policy, MaskedSoftmaxPolicy) == shared
    assert isinstance(model.policy.features_extractor, SharedTrunk) == shared


def test_the_update_runs_on_the_update_threads_and_the_rollout_on_the_torch_threads(tmp_path, monkeypatch):
    from sb3_contrib import MaskablePPO
    from tarot_env.experiments.train import train

    seen: dict[str, list[int]] = {"update": [], "rollout": []}
    train_original, forward_original = MaskablePPO.train, MaskedSoftmaxPolicy.forward

    def train_spy(self):
        seen["update"].append(th.get_num_threads())
        return train_original(self)

    def forward_spy(self, *args, **kwargs):  # the learner's forward passes in the rollouts
        seen["rollout"].append(th.get_num_threads())
        return forward_original(self, *args, **kwargs)

    monkeypatch.setattr(MaskablePPO, "train", train_spy)
    monkeypatch.setattr(MaskedSoftmaxPolicy, "forward", forward_spy)
    before = th.get_num_threads()
    try:
        train(tiny(tmp_path, update_threads=2))
    finally:
        th.set_num_threads(before)
    assert seen["update"] and set(seen["update"]) == {2}
    assert seen["rollout"] and set(seen["rollout"]) == {1}


def test_a_config_from_before_the_network_field_repeats_the_separate_network(tmp_path):
    from tarot_env.experiments.train import TrainConfig, load_config, parse_args

    old = dataclasses.asdict(TrainConfig())
    del old["network"], old["update_threads"]
    (tmp_path / "config.json").write_text(json.dumps(old))
    config = load_config(tmp_path / "config.json")
    assert config.network == "separate" and config.update_threads == config.torch_threads
    assert TrainConfig().network == "shared"
    assert parse_args(["--network", "separate"]).network == "separate"
    with pytest.raises(SystemExit):
        parse_args(["--network", "both"])
    from tarot_env.experiments.train import policy_class

    with pytest.raises(ValueError, match="network 'both' refused: the networks are shared, separate"):
        policy_class(dataclasses.replace(TrainConfig(), network="both"))
