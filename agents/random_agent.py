"""The uniform random agent: a legal action drawn uniformly from the mask.

The policy itself lives in the library (``tarot_env.wrappers.single_agent.RandomOpponent``,
the default opponent of the training wrappers); this agent adds the conveniences of the
agents package: one mask of shape ``(A,)`` as well as a batch, and a clear error for a row
with no legal action.
"""

from __future__ import annotations

import numpy as np

from tarot_env.wrappers.single_agent import RandomOpponent


class RandomAgent(RandomOpponent):
    """Plays a uniformly random legal action.

    ``act`` takes a batch: masks of shape ``(B, A)`` (or one mask of shape ``(A,)``) and
    returns one action per row.
    """

    name = "random"

    def act(self, observation: np.ndarray | None, action_mask: np.ndarray) -> np.ndarray | int:
        mask = np.asarray(action_mask, dtype=bool)
        single = mask.ndim == 1
        masks = mask[None] if single else mask
        if not masks.any(axis=1).all():
            raise ValueError("an action mask with no legal action was given to RandomAgent.act")
        actions = super().act(observation, masks)
        return int(actions[0]) if single else actions
