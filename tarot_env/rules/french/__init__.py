"""French Tarot under the FFT rules (docs/rules/french_tarot.md), batch-first."""

from tarot_env.rules.french.config import FrenchTarotConfig
from tarot_env.rules.french.game import FrenchTarotGame, IllegalActionError
from tarot_env.rules.french.state import Chelem, FrenchTarotState, Phase, Result

__all__ = ["Chelem", "FrenchTarotConfig", "FrenchTarotGame", "FrenchTarotState", "IllegalActionError", "Phase", "Result"]
