"""tarot_env: multi-agent RL environments for the Tarot family of card games.

>>> import tarot_env
>>> env = tarot_env.make("french_tarot_v0", num_players=4)
"""

from tarot_env import french_tarot_v0
from tarot_env.records import ReplayError, replay
from tarot_env.registry import ENV_IDS, make
from tarot_env.rules.french.game import IllegalActionError

__version__ = "0.1.0"
__all__ = ["ENV_IDS", "IllegalActionError", "ReplayError", "__version__", "french_tarot_v0", "make", "replay"]
