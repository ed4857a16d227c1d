"""What the phase modules (``bidding``, ``call``, ``ecart``, ``announcements``, ``play``,
``scoring``) read of the game they serve.

They are given the game (:class:`tarot_env.rules.french.game.FrenchTarotGame`, which routes
actions to them) and type it with this Protocol, so that none of them imports ``game.py``
back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np

    from tarot_env.rules.french.config import FrenchTarotConfig
    from tarot_env.rules.french.state import FrenchTarotState


class Rules(Protocol):
    """The rules of one configuration: its options, the table, and the teams."""

    config: FrenchTarotConfig
    num_players: int
    num_tricks: int
    poignee_sizes: np.ndarray  # (3,) exact trumps of a simple, double, triple poignée
    play_options: np.ndarray  # the rule options the play phase reads (play.play_options)
    scoring_options: np.ndarray  # the rule options the scoring reads (scoring.scoring_options)
    announcement_options: np.ndarray  # and the poignée's row function (announcements.announcement_options)

    def is_attack(self, s: FrenchTarotState, rows: np.ndarray, seats: np.ndarray) -> np.ndarray: ...
