"""Stable-Baselines3 policies as agents: a trained (Maskable)PPO plays a seat, or a frozen copy of it does.

>>> from tarot_env.agents.sb3_policy import SB3PolicyAgent, snapshot
>>> agent = SB3PolicyAgent(model)               # follows the model as it keeps training
>>> rival = snapshot(model)                     # a frozen copy: self-play against past selves
>>> env.set_opponents(rival)                    # SingleAgentEnv / TarotVecEnv

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib).
"""

from __future__ import annotations

import copy
import inspect
from typing import Any

import numpy as np
import torch as th


class SB3PolicyAgent:
    """An agent (``act(observations (B, D), masks (B, A)) -> actions (B,)``) from an SB3 model or policy.

    ``model`` is a ``MaskablePPO``/``PPO`` (its ``.policy`` is used, so the agent follows the
    model's training) or a policy itself. Actions are drawn from the policy's distribution
    restricted to the legal actions (``deterministic=True``: the most probable legal one). A
    ``MaskablePPO`` policy takes the masks itself; for other policies the illegal actions'
    logits are set to ``-inf`` here, so that the agent never plays an illegal action either.
    Sampling uses torch's random generator (``torch.manual_seed`` to reproduce).
    """

    name = "sb3"

    def __init__(self, model: Any, deterministic: bool = False) -> None:
        self.policy = getattr(model, "policy", model)
        self.deterministic = deterministic
        self._maskable = "action_masks" in inspect.signature(self.policy.predict).parameters

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray | int:
        """One action per row (an int for a single observation and mask of shape ``(A,)``, as ``RandomAgent``)."""
        obs = np.asarray(observations)
        masks = np.asarray(masks, dtype=bool)
        single = masks.ndim == 1
        if single:
            obs, masks = obs[None], masks[None]
        if not masks.any(axis=1).all():
            raise ValueError("an action mask with no legal action was given to SB3PolicyAgent.act")
        if self._maskable:
            actions, _ = self.policy.predict(obs, deterministic=self.deterministic, action_masks=masks)
        else:
            actions = self._masked_predict(obs, masks)
        actions = np.asarray(actions, dtype=np.int64).reshape(-1)
        return int(actions[0]) if single else actions

    def _masked_predict(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """A policy without masking: its categorical logits with the illegal actions at ``-inf``."""
        self.policy.set_training_mode(False)
        obs_tensor, _ = self.policy.obs_to_tensor(obs)
        with th.no_grad():
            logits = self.policy.get_distribution(obs_tensor).distribution.logits
            logits = logits.masked_fill(~th.as_tensor(masks, device=logits.device), -th.inf)
            if self.deterministic:
                actions = logits.argmax(dim=1)
            else:
                actions = th.distributions.Categorical(logits=logits).sample()
        return actions.cpu().numpy()


def snapshot(model: Any, deterministic: bool = False) -> SB3PolicyAgent:
    """A frozen copy of ``model``'s current policy as an agent: later training does not change it."""
    source = getattr(model, "policy", model)
    # A new policy from the same constructor parameters with the weights copied (as BasePolicy.load
    # does): deepcopy fails on the distribution tensors a policy keeps from its last forward pass.
    policy = type(source)(**source._get_constructor_parameters())
    policy.load_state_dict(copy.deepcopy(source.state_dict()))
    policy.to(source.device)
    policy.set_training_mode(False)
    for parameter in policy.parameters():
        parameter.requires_grad_(False)
    agent = SB3PolicyAgent(policy, deterministic=deterministic)
    agent.name = "snapshot"
    return agent
