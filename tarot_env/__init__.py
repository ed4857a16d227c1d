"""tarot_env: multi-agent RL environments for the Tarot family of card games.

>>> import tarot_env
>>> env = tarot_env.make("french_tarot_v0", num_players=4)
"""

from pathlib import Path as _Path

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

# A checkout keeps agents/ and experiments/ beside this package; installs map them inside it as
# tarot_env.agents and tarot_env.experiments (pyproject's package-dir, docs/design.md "Packaging").
# Imported from a checkout that is not installed in editable mode (PYTHONPATH=., or a plain
# `pip install .` run from the repository's root), find them in the checkout too.
_checkout = _Path(__file__).resolve().parent.parent
if not (_Path(__file__).parent / "agents").is_dir() and all((_checkout / d / "__init__.py").is_file() for d in ("agents", "experiments")):
    __path__.append(str(_checkout))

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
