"""Beliefs: deals consistent with everything one seat knows, for search and for analysis.

A seat sees its own cards and what the table shows: the cards played and by whom (so the suits a
player has shown he lacks), the chien or Pozzo when turned up, declarations and poignées shown, its
own discards, the public counts. :func:`sample` draws full deals that agree with all of it, as
states of the game that the rules can play on (the search agent, :mod:`tarot_env.agents.pimc`,
plays each sample out); :func:`sample_hands` gives the hands alone. Each family has its module
with its constraints written down: :mod:`.french`, :mod:`.tarocchino`; the dealing rule shared by
both is :mod:`.deal` (uniform without constraints; documented weighting with them).

    >>> import numpy as np, tarot_env
    >>> from tarot_env.belief import sample_hands
    >>> env = tarot_env.make("french_tarot_v0", num_players=4); env.reset(seed=1)
    >>> hands = sample_hands(env, seat=0, k=100, rng=np.random.default_rng(0))   # (100, 4, 78) bool

The samplers read only what the seat may see: ``tests/test_belief.py`` and
``tests/test_belief_tarocchino.py`` swap hidden cards in the real state and check that the samples
do not change.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tarot_env.belief.deal import NoConsistentDealError
from tarot_env.env_facts import facts

__all__ = ["NoConsistentDealError", "family", "sample", "sample_hands", "view"]


def family(env: Any) -> Any:
    """The belief module of ``env``'s game family (:mod:`.french` or :mod:`.tarocchino`)."""
    env = getattr(env, "unwrapped", env)
    if not hasattr(env, "game_state") or not hasattr(env, "metadata"):
        raise TypeError(f"beliefs are sampled from a tarot_env AEC env (tarot_env.make(...)), got {type(env).__name__}")
    if facts(env.metadata["name"]).french:  # the env's row of the one table of env facts
        from tarot_env.belief import french

        return french
    from tarot_env.belief import tarocchino

    return tarocchino


def _check(env: Any, seat: int) -> Any:
    raw = getattr(env, "unwrapped", env)
    family(raw)  # a tarot_env env, or a clear error
    n = raw.num_players
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
        raise ValueError(f"seat must be a seat number 0..{n - 1}, got {seat!r}")
    return raw


def view(env: Any, seat: int) -> Any:
    """What ``seat`` knows of the hidden cards now: the unseen cards, the hidden places and their
    sizes, and where each card may be (a frozen dataclass; see the family's module)."""
    raw = _check(env, seat)
    return family(raw).view(raw.game, raw.game_state, 0, int(seat))


def sample(env: Any, seat: int, k: int, rng: np.random.Generator | int | None = None) -> Any:
    """``k`` deals consistent with what ``seat`` knows now, as a game state of ``k`` rows (the
    rules' state class: play on it with ``env.game.step``). ``rng``: a generator or a seed."""
    raw = _check(env, seat)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive number of samples, got {k!r}")
    return family(raw).sample(raw.game, raw.game_state, 0, int(seat), int(k), np.random.default_rng(rng))


def sample_hands(env: Any, seat: int, k: int, rng: np.random.Generator | int | None = None) -> np.ndarray:
    """``(k, N, C)`` bool: every seat's hand in each of ``k`` sampled deals (``seat``'s own is its
    real hand in all of them)."""
    raw = _check(env, seat)
    states = sample(raw, seat, k, rng)
    return family(raw).hands_of(states)
