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


def check_rows(rows: Any, num_envs: int) -> np.ndarray:
    """``rows`` as distinct table numbers (int64), or a clear error."""
    arr = np.asarray(rows)
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer) or len(np.unique(arr)) != len(arr):
        raise ValueError(f"rows must be distinct table numbers (a 1-D int array), got {rows!r:.100}")
    if len(arr) and (arr.min() < 0 or arr.max() >= num_envs):
        raise ValueError(f"rows must be table numbers in 0..{num_envs - 1}, got {rows!r:.100}")
    return arr.astype(np.int64, copy=False)
