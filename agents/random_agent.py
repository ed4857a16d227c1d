"""The uniform random agent: a legal action drawn uniformly from the mask."""

from __future__ import annotations

import numpy as np


class RandomAgent:
    """Plays a uniformly random legal action.

    ``act`` takes a batch: masks of shape ``(B, A)`` (or one mask of shape ``(A,)``) and
    returns one action per row.
    """

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray | None, action_mask: np.ndarray) -> np.ndarray | int:
        mask = np.asarray(action_mask, dtype=bool)
        single = mask.ndim == 1
        masks = mask[None] if single else mask
        if not masks.any(axis=1).all():
            raise ValueError("an action mask with no legal action was given to RandomAgent.act")
        # the argmax of uniform noise over the legal actions is a uniform legal choice
        noise = self.rng.random(masks.shape)
        actions = np.where(masks, noise, -1.0).argmax(axis=1)
        return int(actions[0]) if single else actions
