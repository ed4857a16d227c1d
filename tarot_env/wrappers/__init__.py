"""Wrappers that turn the multi-agent Tarot envs into single-agent training envs.

- :class:`SingleAgentEnv`: a Gymnasium env for one learning seat of the AEC env, the other
  seats played by given agents; ``action_masks()`` for sb3-contrib's ``MaskablePPO``.
- :class:`TarotVecEnv`: a Stable-Baselines3 ``VecEnv`` over the vector env (many tables per
  step, opponents acting in batches). Importing it needs ``stable-baselines3`` (the ``train``
  extra); it is loaded on first use so that this package imports without it.
"""

from __future__ import annotations

from typing import Any

from tarot_env.wrappers.single_agent import RandomOpponent, SingleAgentEnv

__all__ = ["RandomOpponent", "SingleAgentEnv", "TarotVecEnv"]


def __getattr__(name: str) -> Any:
    if name == "TarotVecEnv":
        from tarot_env.wrappers.sb3_vec import TarotVecEnv

        return TarotVecEnv
    raise AttributeError(f"module 'tarot_env.wrappers' has no attribute {name!r}")
