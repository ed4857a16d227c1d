"""tarot_env: multi-agent RL environments for the Tarot family of card games.

>>> import tarot_env
>>> env = tarot_env.make("french_tarot_v0", num_players=4)
"""

from tarot_env import (
    centocinquanta_v0,
    french_tarot_v0,
    mattazza_v0,
    millone_v0,
    ottocento_v0,
    quattro_scartate_v0,
    quindici_v0,
    terziglio_v0,
)
from tarot_env._jit import PerformanceWarning
from tarot_env._version import __version__
from tarot_env.errors import IllegalActionError
from tarot_env.records import ReplayError, replay
from tarot_env.registry import ENV_IDS, GYMNASIUM_IDS, PETTINGZOO_IDS, make, parallel_env, register_envs

register_envs()

__all__ = [
    "ENV_IDS",
    "GYMNASIUM_IDS",
    "PETTINGZOO_IDS",
    "IllegalActionError",
    "PerformanceWarning",
    "ReplayError",
    "__version__",
    "centocinquanta_v0",
    "french_tarot_v0",
    "make",
    "mattazza_v0",
    "millone_v0",
    "ottocento_v0",
    "parallel_env",
    "quattro_scartate_v0",
    "quindici_v0",
    "replay",
    "terziglio_v0",
]
