"""What every vector env returns."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np


class VectorStep(NamedTuple):
    """What ``reset`` and ``step`` return (arrays with one row per table)."""

    observations: np.ndarray  # (B, D) int8: observation of the player to act
    action_masks: np.ndarray  # (B, A) bool: his legal actions
    players: np.ndarray  # (B,) seat of the player to act
    rewards: np.ndarray  # (B, N) float: every seat's reward from this step
    terminations: np.ndarray  # (B,) bool: a deal ended in this row at this step (the row holds a new deal)
    infos: dict[str, Any]  # see FrenchTarotVectorEnv.step
