"""Vector environments: thousands of games stepped at once by the same rules code.

>>> import tarot_env.vector
>>> venv = tarot_env.vector.make("french_tarot_v0", num_envs=1024, num_players=4)
>>> out = venv.reset(seed=0)       # VectorStep(observations, action_masks, players, rewards, terminations, infos)
>>> out = venv.step(actions)       # one action per table, for the player to act there
"""

from __future__ import annotations

from typing import Any

from tarot_env.rules.bolognese.deal import GAMES
from tarot_env.vector.common import VectorStep
from tarot_env.vector.french_tarot import FrenchTarotVectorEnv
from tarot_env.vector.tarocchino import TarocchinoVectorEnv

VECTOR_ENV_IDS = ("french_tarot_v0", *(f"{g}_v0" for g in GAMES))

__all__ = ["VECTOR_ENV_IDS", "FrenchTarotVectorEnv", "TarocchinoVectorEnv", "VectorStep", "make"]


def make(env_id: str, num_envs: int, **config: Any):
    """A vector env of ``num_envs`` tables of ``env_id`` with the env's options."""
    if env_id == "french_tarot_v0":
        return FrenchTarotVectorEnv(num_envs, **config)
    if env_id in VECTOR_ENV_IDS:
        return TarocchinoVectorEnv(num_envs, env_id[: -len("_v0")], **config)
    raise ValueError(f"no vector env for {env_id!r}; vector envs exist for: {', '.join(VECTOR_ENV_IDS)}")
