"""The env ids, and their entries in PettingZoo's and Gymnasium's registries (docs/interface.md §1).

``import tarot_env`` registers every game three ways, so that each tool finds it by the names
it knows:

| tarot_env id | PettingZoo (AEC and Parallel) | Gymnasium (one learning seat) |
|---|---|---|
| ``french_tarot_v0`` | ``tarot/french_tarot-v0`` | ``tarot_env/FrenchTarot-v0`` |
| ``ottocento_v0`` | ``tarot/ottocento-v0`` | ``tarot_env/Ottocento-v0`` |
| ... | ``tarot/<game>-v0`` | ``tarot_env/<Game>-v0`` |

- ``tarot_env.make(id, **options)`` and ``pettingzoo.make("aec", "tarot/<game>-v0", **options)``
  give the AEC env. ``pettingzoo.make("parallel", ...)`` gives its Parallel form through
  PettingZoo's ``turn_based_aec_to_parallel``: at each step only the player to act's action
  is used (the others are ignored), which is sound for these strictly turn-based games.
- ``gymnasium.make("tarot_env/FrenchTarot-v0", **options)`` gives
  :class:`tarot_env.wrappers.SingleAgentEnv` (seat 0 learns, random legal opponents) with
  ``illegal_action="terminate"``, so that generic tools that sample actions without a mask
  (Gymnasium's, SB3's and RLlib's env checkers) end the episode with ``illegal_reward``
  instead of raising. Pass ``illegal_action="raise"`` to refuse illegal actions instead.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

from tarot_env.env_facts import ENVS

#: env id -> module exposing ``env()`` / ``raw_env()`` (each env's row of :mod:`tarot_env.env_facts`)
_MODULES = {env_id: row.module for env_id, row in ENVS.items()}
ENV_IDS: tuple[str, ...] = tuple(_MODULES)

#: env id -> PettingZoo registry id (``classic/texas_holdem-v4`` style)
PETTINGZOO_IDS: dict[str, str] = {env_id: f"tarot/{row.game}-v0" for env_id, row in ENVS.items()}

#: env id -> Gymnasium registry id of the single-agent view
GYMNASIUM_IDS: dict[str, str] = {
    env_id: "tarot_env/" + "".join(w.capitalize() for w in row.game.split("_")) + "-v0" for env_id, row in ENVS.items()
}


def make(env_id: str, **config: Any):
    """Make the environment ``env_id`` with its options, e.g. ``make("french_tarot_v0", num_players=5)``."""
    if env_id not in _MODULES:
        raise ValueError(f"unknown env id {env_id!r}; registered ids: {', '.join(ENV_IDS)}")
    return importlib.import_module(_MODULES[env_id]).env(**config)


def parallel_env(env_id: str, **config: Any):
    """The Parallel form of ``env_id`` (PettingZoo's ``turn_based_aec_to_parallel`` over the AEC env)."""
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    return turn_based_aec_to_parallel(make(env_id, **config))


def register_envs() -> None:
    """Put every env id in PettingZoo's registry (AEC and Parallel) and its single-agent view in
    Gymnasium's. Called by ``import tarot_env``; calling it again changes nothing."""
    import gymnasium
    import pettingzoo

    for env_id in ENV_IDS:
        pz_id = PETTINGZOO_IDS[env_id]
        if pz_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", pz_id, entry_point=f"{_MODULES[env_id]}:env")
            pettingzoo.register("parallel", pz_id, entry_point=functools.partial(parallel_env, env_id))
        gym_id = GYMNASIUM_IDS[env_id]
        if gym_id not in gymnasium.registry:
            gymnasium.register(
                id=gym_id,
                entry_point="tarot_env.wrappers.single_agent:SingleAgentEnv",
                kwargs={"env_id": env_id, "illegal_action": "terminate"},
            )
