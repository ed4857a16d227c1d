"""Vector environments: thousands of games stepped at once by the same rules code.

>>> import tarot_env.vector
>>> venv = tarot_env.vector.make("french_tarot_v0", num_envs=1024, num_players=4)
>>> out = venv.reset(seed=0)       # VectorStep(observations, action_masks, players, rewards, terminations, infos)
>>> out = venv.step(actions)       # one action per table, for the player to act there
"""

from __future__ import annotations

from typing import Any

from tarot_env.vector.french_tarot import FrenchTarotVectorEnv, VectorStep

_VECTOR_ENVS = {"french_tarot_v0": FrenchTarotVectorEnv}

__all__ = ["FrenchTarotVectorEnv", "VectorStep", "make"]


def make(env_id: str, num_envs: int, **config: Any):
    """A vector env of ``num_envs`` tables of ``env_id`` with the env's options."""
    if env_id not in _VECTOR_ENVS:
        raise ValueError(f"no vector env for {env_id!r}; vector envs exist for: {', '.join(_VECTOR_ENVS)}")
    return _VECTOR_ENVS[env_id](num_envs, **config)
