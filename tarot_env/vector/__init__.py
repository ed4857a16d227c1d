"""Vector environments: thousands of games stepped at once by the same rules code.

>>> import tarot_env.vector
>>> venv = tarot_env.vector.make("french_tarot_v0", num_envs=1024, num_players=4)
>>> out = venv.reset(seed=0)       # VectorStep(observations, action_masks, players, rewards, terminations, infos)
>>> out = venv.step(actions)       # one action per table, for the player to act there
"""

from __future__ import annotations

from typing import Any

from tarot_env.env_facts import ENVS
from tarot_env.vector.common import VectorStep
from tarot_env.vector.french_tarot import FrenchTarotVectorEnv
from tarot_env.vector.tarocchino import TarocchinoVectorEnv

#: every env id has its vector env (the family's class, :mod:`tarot_env.env_facts`)
VECTOR_ENV_IDS = tuple(ENVS)

__all__ = ["VECTOR_ENV_IDS", "FrenchTarotVectorEnv", "TarocchinoVectorEnv", "VectorStep", "make"]


def make(env_id: str, num_envs: int, **config: Any):
    """A vector env of ``num_envs`` tables of ``env_id`` with the env's options."""
    row = ENVS.get(env_id) if isinstance(env_id, str) else None
    if row is not None and row.french:
        return FrenchTarotVectorEnv(num_envs, **config)
    if row is not None:
        return TarocchinoVectorEnv(num_envs, row.game, **config)
    raise ValueError(f"no vector env for {env_id!r}; vector envs exist for: {', '.join(VECTOR_ENV_IDS)}")
