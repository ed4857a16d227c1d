"""experiments/imitation.py: the teacher's demonstrations are his real decisions and returns; cloning learns them."""

from __future__ import annotations

import csv

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from tarot_env.agents.french_rules import FrenchRuleAgent
from tarot_env.experiments.imitation import clone, collect


def test_demonstrations_hold_the_teachers_legal_decisions_and_each_seats_deal_score():
    teacher = FrenchRuleAgent()
    data = collect("french_tarot_v0", 40, teacher, num_envs=16, seed=3, num_players=4, reward="score")
    assert len(data) == len(data.observations) == len(data.masks) == len(data.returns) == len(data.players)
    assert len(set(data.episodes.tolist())) >= 40  # the finished deals (those still running at the end are dropped)
    assert data.masks[np.arange(len(data)), data.actions].all()  # every action was legal
    # the teacher is deterministic: it would take the same decisions again
    assert np.array_equal(np.asarray(teacher.act(data.observations, data.masks)), data.actions)
    for e in set(data.episodes.tolist()):
        mine = data.episodes == e
        seats = {}
        for p, r in zip(data.players[mine].tolist(), data.returns[mine].tolist()):
            assert seats.setdefault(p, r) == r  # one return per seat and deal
        assert sorted(seats) == [0, 1, 2, 3]  # every seat bids at least
        assert sum(seats.values()) == 0  # French Tarot scores sum to zero
        values = sorted(seats.values(), key=abs)
        # all passed (every score 0), or a played deal: three defenders score d each and the taker -3d
        assert values[0] == values[1] == values[2] and values[3] == -3 * values[0]


def test_returns_follow_the_reward_mode():
    teacher = FrenchRuleAgent()
    score = collect("french_tarot_v0", 20, teacher, num_envs=8, seed=5, num_players=4, reward="score")
    normalised = collect("french_tarot_v0", 20, teacher, num_envs=8, seed=5, num_players=4, reward="normalised")
    assert np.array_equal(score.actions, normalised.actions)
    np.testing.assert_allclose(normalised.returns, score.returns / 300, rtol=1e-6)  # score / (100 (N - 1))


def test_cloning_learns_the_teachers_decisions():
    from sb3_contrib import MaskablePPO

    from tarot_env.wrappers import TarotVecEnv

    data = collect("french_tarot_v0", 60, FrenchRuleAgent(), num_envs=32, seed=1, num_players=4, reward="normalised")
    model = MaskablePPO("MlpPolicy", TarotVecEnv(2, num_players=4), policy_kwargs={"net_arch": [64]}, seed=0)
    history = clone(model.policy, data, epochs=6, batch_size=128, learning_rate=3e-3)
    assert [h["epoch"] for h in history] == [1, 2, 3, 4, 5, 6]
    assert history[-1]["policy_loss"] < history[0]["policy_loss"] / 2
    assert history[-1]["value_loss"] < history[0]["value_loss"]
    # most decisions now agree with the teacher (a uniform guess over the legal actions agrees on far fewer)
    agree = model.policy.predict(data.observations, action_masks=data.masks, deterministic=True)[0] == data.actions
    uniform = float(np.mean(1.0 / data.masks.sum(axis=1)))
    assert agree.mean() > 0.8 > uniform + 0.3


@pytest.mark.parametrize("env_id", ["french_tarot_v0", "ottocento_v0"])
def test_a_warm_started_run_writes_its_cloning_log(tmp_path, env_id):
    """Both families' rule-based bots serve as teachers (the default TrainConfig clones 10,000 deals)."""
    from tarot_env.experiments.train import TrainConfig, train

    assert TrainConfig().bc_deals > 0
    config = TrainConfig(
        env_id=env_id, num_envs=8, timesteps=512, n_steps=64, batch_size=256, n_epochs=1, net_arch=[32], snapshot_every=0,
        eval_every=512, checkpoint_every=0, eval_episodes=4, out=str(tmp_path), torch_threads=1,
        bc_deals=10, bc_epochs=2,
    )  # fmt: skip
    assert train(config).exists()
    with open(tmp_path / "warm_start.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["epoch"]) for r in rows] == [1, 2]
    assert all(0 <= float(r["accuracy"]) <= 1 for r in rows)
    with open(tmp_path / "log.csv") as f:
        log = list(csv.DictReader(f))
    assert [int(r["steps"]) for r in log] == [0, 512]  # the cloned policy is evaluated before PPO starts
