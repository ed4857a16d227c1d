"""What every vector env returns, and the checks they share."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from tarot_env._jit import JIT_AVAILABLE, kernel
from tarot_env.errors import IllegalActionError


class VectorStep(NamedTuple):
    """What ``reset`` and ``step`` return (arrays with one row per table)."""

    observations: np.ndarray  # (B, D) int8: observation of the player to act
    action_masks: np.ndarray  # (B, A) bool: his legal actions
    players: np.ndarray  # (B,) seat of the player to act
    rewards: np.ndarray  # (B, N) float: every seat's reward from this step
    terminations: np.ndarray  # (B,) bool: a deal ended in this row at this step (the row holds a new deal)
    infos: dict[str, Any]  # see FrenchTarotVectorEnv.step


def all_seats(threads: Any, encoder: Any, state: Any, rows: np.ndarray, num_players: int) -> np.ndarray:
    """(R, N, D): every seat's observation of ``rows`` (a finished deal's ``final_observations``),
    encoded on the env's threads (:class:`tarot_env._threads.KernelThreads`)."""
    n = num_players
    return threads.encode(encoder, state, np.repeat(rows, n), np.tile(np.arange(n), len(rows))).reshape(len(rows), n, -1)


def check_rows(rows: Any, num_envs: int) -> np.ndarray:
    """``rows`` as distinct table numbers (int64), or a clear error."""
    arr = np.asarray(rows)
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer) or len(np.unique(arr)) != len(arr):
        raise ValueError(f"rows must be distinct table numbers (a 1-D int array), got {rows!r:.100}")
    if len(arr) and (arr.min() < 0 or arr.max() >= num_envs):
        raise ValueError(f"rows must be table numbers in 0..{num_envs - 1}, got {rows!r:.100}")
    return arr.astype(np.int64, copy=False)


def check_actions(actions: Any, num_rows: int, num_actions: int | None = None) -> np.ndarray:
    """``actions`` as an int64 array of shape ``(num_rows,)``, or a clear error (legality aside).

    Unsigned ids beyond int64 (``2**63`` and up) would wrap to negative numbers in the cast:
    they are refused here, with the value given, as out of range."""
    arr = np.asarray(actions)
    if arr.shape != (num_rows,) or arr.dtype.kind not in "iu":
        raise ValueError(f"step() needs one int action per table: an int array of shape ({num_rows},), got {arr.dtype} {arr.shape}")
    if arr.dtype.kind == "u" and arr.dtype.itemsize == 8 and len(arr) and arr.max() > np.iinfo(np.int64).max:
        i = int(np.argmax(arr > np.iinfo(np.int64).max))
        allowed = f"action ids are 0..{num_actions - 1}" if num_actions else "action ids are small non-negative ints"
        raise IllegalActionError(f"table {i}: action {int(arr[i])} is out of range: {allowed}")
    return arr.astype(np.int64, copy=False)


def first_illegal_numpy(legal: np.ndarray, rows: np.ndarray, actions: np.ndarray) -> int:
    """The position in ``rows`` of the first action that is out of range or not legal there
    (``legal[rows[i], actions[i]]`` False), -1 when every one is legal. ``legal`` is the
    state's ``(B, A)`` mask, C-contiguous."""
    num_actions = legal.shape[1]
    in_range = (actions >= 0) & (actions < num_actions)
    # one flat gather: legal[rows[i], actions[i]] for every i
    ok = in_range & legal.ravel()[rows * num_actions + np.where(in_range, actions, 0)]
    bad = np.flatnonzero(~ok)
    return int(bad[0]) if len(bad) else -1


@kernel
def _first_illegal(legal, rows, actions):
    """:func:`first_illegal_numpy` as one loop (compiled: one pass, no temporary arrays)."""
    num_actions = legal.shape[1]
    for i in range(rows.shape[0]):
        a = actions[i]
        if a < 0 or a >= num_actions or not legal[rows[i], a]:
            return i
    return -1


def first_illegal(legal: np.ndarray, rows: np.ndarray, actions: np.ndarray) -> int:
    """:func:`first_illegal_numpy`, compiled when numba is available (the same answer); the
    NumPy passes otherwise, which beat the loop run as Python."""
    if JIT_AVAILABLE:
        return _first_illegal(legal, rows, actions)
    return first_illegal_numpy(legal, rows, actions)
