"""The env options every game shares besides its rules options (``reward``, ``shaping``,
``oracle``, ``dealer``, ``illegal_action``), checked once for the AEC and vector envs of both
families.

Each family's config module parses its rules options (:func:`.french.config.make_config`,
:meth:`.bolognese.config.TarocchinoConfig.make`); the envs call both, so that an option is
refused with the same message wherever it is given.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: the reward modes of every env (the rewards modules of tarot_env/envs/ compute them)
REWARD_MODES = ("score", "normalised", "win_loss")


def check_env_options(num_players: int, reward: str, dealer: int | None, **flags: bool) -> None:
    """The env-level options shared by the AEC and vector envs, refused with clear errors."""
    if reward not in REWARD_MODES:
        raise ValueError(f"reward={reward!r} is not a reward mode; choose one of {', '.join(map(repr, REWARD_MODES))}")
    for name, value in flags.items():
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True or False, got {value!r}")
    if dealer is not None and (isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < num_players):
        raise ValueError(f"dealer={dealer!r} must be None (random) or a seat 0..{num_players - 1}")


#: what ``step`` does with an illegal action (``illegal_action=`` of every env)
ILLEGAL_ACTION_MODES = ("raise", "terminate")


def check_illegal_action(illegal_action: Any, illegal_reward: Any) -> None:
    """Refuse an unknown ``illegal_action`` mode or a non-numeric ``illegal_reward``."""
    if illegal_action not in ILLEGAL_ACTION_MODES:
        raise ValueError(
            f"illegal_action={illegal_action!r} is not a mode; choose 'raise' (refuse the action with IllegalActionError, "
            "state unchanged) or 'terminate' (end the episode, the offender rewarded illegal_reward)"
        )
    if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float, np.integer, np.floating)):
        raise TypeError(f"illegal_reward must be a number, got {illegal_reward!r}")
    try:
        finite = bool(np.isfinite(float(illegal_reward)))
    except OverflowError:  # an int beyond float range
        finite = False
    if not finite:
        raise ValueError(f"illegal_reward must be finite (a number), got {illegal_reward!r:.60}")


def check_seed(seed: Any) -> int | None:
    """``seed`` as an int (or None), or a clear error: NumPy's generators take non-negative
    integers only, and a bool is refused (``seed=True`` is almost surely a mistake)."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be a non-negative int or None, got {seed!r} ({type(seed).__name__})")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative int or None, got {seed}: NumPy's generators take seeds >= 0")
    return int(seed)
