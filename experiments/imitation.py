"""Behaviour cloning: a warm start for PPO from a teacher agent (the rule-based bot).

    data = collect(env_id, deals=4000, teacher=FrenchRuleAgent(), num_players=4, reward="normalised")
    clone(model.policy, data, epochs=3)

Why: PPO from scratch learns quickly to beat random players but spends hundreds of thousands of
steps reaching the level of a sensible club player. Cloning that player's decisions first
(supervised, cross-entropy over the legal actions) puts the policy near its level in a minute;
the value head is fitted at the same time to the returns of the teacher's own games, so that the
first PPO updates have a sensible baseline and do not throw the cloned policy away. PPO then
improves on the teacher from there: it is the same ``MaskablePPO`` model, trained further.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class Demonstrations:
    """The teacher's decisions: observations ``(S, D)`` int8 (``(S, D + O)``, each followed by its oracle row, from
    ``collect(..., with_oracle=True)``), masks ``(S, A)`` bool, actions ``(S,)``,
    each decision's return ``(S,)`` (the deciding seat's reward for the whole deal), the deciding
    seat ``(S,)`` and the deal it belongs to ``(S,)`` (numbered from 0 in the order the deals started);
    optionally ``targets`` ``(S, A)``, a distribution over the legal actions per decision to fit instead of
    the one action (soft targets: a teacher's preferences, experiments/distill.py ``--soft-temperature``)."""

    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    players: np.ndarray
    episodes: np.ndarray
    targets: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.actions)


def collect(
    env_id: str,
    deals: int,
    teacher: Any,
    num_envs: int = 256,
    seed: int = 0,
    progress: bool = False,
    with_oracle: bool = False,
    **options: Any,
) -> Demonstrations:
    """Every decision of ``deals`` whole deals played by ``teacher`` at every seat (vector env ``options``:
    ``num_players``, ``reward``...). Deals still running when ``deals`` have ended are dropped.

    ``with_oracle``: each observation is followed by the deciding player's oracle row (the hidden cards:
    the vector env's ``oracle=True``), as ``TarotVecEnv(critic_oracle=True)`` gives them to a learner
    with an oracle critic; the teacher still acts on the observations alone."""
    from tarot_env import vector

    if with_oracle:
        options = {**options, "oracle": True}
    venv = vector.make(env_id, min(num_envs, deals), **options)
    b = venv.num_envs
    step = venv.reset(seed=seed)
    episode = np.arange(b)  # the deal each table is playing (numbered as they start)
    next_episode = b
    parts: list[tuple[np.ndarray, ...]] = []
    finals: dict[int, np.ndarray] = {}
    bar = _bar(deals, progress, "demonstrations (deals)")
    while len(finals) < deals:
        actions = np.asarray(teacher.act(step.observations, step.action_masks), dtype=np.int64)
        seen = np.concatenate([step.observations, step.infos["oracle"]], axis=1) if with_oracle else step.observations.copy()
        parts.append((seen, step.action_masks.copy(), actions, step.players.copy(), episode.copy()))
        step = venv.step(actions)
        for row in np.flatnonzero(step.terminations).tolist():
            finals[int(episode[row])] = step.rewards[row].copy()
            episode[row] = next_episode
            next_episode += 1
            bar.update(1)
    bar.close()
    obs, masks, acts, players, episodes = (np.concatenate(x) for x in zip(*parts))
    done = np.array([e in finals for e in episodes.tolist()])
    returns = np.array([finals[e][p] if d else 0.0 for e, p, d in zip(episodes.tolist(), players.tolist(), done.tolist())])
    return Demonstrations(obs[done], masks[done], acts[done], returns[done].astype(np.float32), players[done], episodes[done])


def clone(
    policy: Any,
    data: Demonstrations,
    epochs: int = 3,
    batch_size: int = 1024,
    learning_rate: float = 1e-3,
    value_coef: float = 0.5,
    seed: int = 0,
    progress: bool = False,
) -> list[dict[str, float]]:
    """Fit a ``MaskableActorCriticPolicy`` to ``data``: cross-entropy of the teacher's action under the
    masked policy (of ``data.targets`` where given: ``-sum_a target_a log p_a``, the same loss for a one-hot
    target), plus ``value_coef`` times the value head's squared error to the returns.

    Returns one row per epoch: the mean loss terms and the share of decisions where the policy's most
    probable legal action is the teacher's (its accuracy).
    """
    import torch as th

    rng = np.random.default_rng(seed)
    optimizer = th.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    history = []
    n = len(data)
    for epoch in range(epochs):
        order = rng.permutation(n)
        sums = {"policy_loss": 0.0, "value_loss": 0.0, "accuracy": 0.0}
        bar = _bar(n, progress, f"behaviour cloning, epoch {epoch + 1}/{epochs}")
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            obs = th.as_tensor(data.observations[idx], device=policy.device)
            actions = th.as_tensor(data.actions[idx], device=policy.device)
            returns = th.as_tensor(data.returns[idx], device=policy.device)
            targets = None if data.targets is None else data.targets[idx]
            values, policy_loss = losses(policy, obs, actions, data.masks[idx], targets)
            value_loss = th.nn.functional.mse_loss(values.flatten(), returns)
            loss = policy_loss + value_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            with th.no_grad():
                best = policy.get_distribution(obs, action_masks=data.masks[idx]).distribution.probs.argmax(dim=1)
            k = len(idx)
            sums["policy_loss"] += policy_loss.item() * k
            sums["value_loss"] += value_loss.item() * k
            sums["accuracy"] += float((best == actions).float().sum())
            bar.update(k)
        bar.close()
        history.append({key: value / n for key, value in sums.items()} | {"epoch": epoch + 1})
    policy.set_training_mode(False)
    return history


def losses(policy: Any, obs: Any, actions: Any, masks: np.ndarray, targets: np.ndarray | None = None) -> tuple[Any, Any]:
    """The value head's outputs and the policy's loss on one batch: the mean negative log-probability of
    ``actions``, or with ``targets`` (rows of distributions over the actions) ``-sum_a target_a log p_a``
    averaged, which is the same for one-hot targets."""
    import torch as th

    values, log_prob, _ = policy.evaluate_actions(obs, actions, action_masks=masks)
    if targets is None:
        return values, -log_prob.mean()
    target = th.as_tensor(targets, dtype=th.float32, device=policy.device)
    log_p = policy.get_distribution(obs, action_masks=masks).distribution.logits
    # the illegal actions (target 0, log-probability -inf or a huge negative) are left out, not multiplied
    return values, -th.where(target > 0, target * log_p, th.zeros_like(log_p)).sum(dim=1).mean()


def _bar(total: int, enabled: bool, desc: str) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, disable=not enabled, leave=False)
