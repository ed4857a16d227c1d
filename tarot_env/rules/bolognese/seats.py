"""Who plays with whom, and who plays next (docs/rules/tarocchino.md §4.1, §5.1, §10, §14).

- **The sides** (:func:`_side`): partners sit opposite, seat % 2 (§5.1: Ottocento, Quattro
  Scartate); in Terziglio the soloist plays against the other two (§10); in the two-player
  games and Mattazza each player is his own side (§11–§14). The game's row says which
  (``GameSpec.sides``, the ``O_SIDES`` column). The NumPy code asks the same function, through
  :func:`sides_rows`.
- **The next player** (:func:`_next_active`): play goes to the right (§4.1), skipping the
  players a Mattazza match has dropped (§14.6).

The lowest of the engine's modules: every phase that needs a side or the next seat imports it.
Like all of them, each function works on one row ``b`` of the state's blocks (:mod:`.state`),
compiled by numba when it is on and run as plain Python otherwise (``tarot_env._jit``).
"""

from __future__ import annotations

import numpy as np

from tarot_env._jit import kernel
from tarot_env.rules.bolognese.state import ACTIVE, O_SIDES, SD_PARTNERS, SD_SOLOIST, SOLOIST


@kernel(inline=True)
def _side(ints, b, seat, opts):
    """The side of ``seat``: seat % 2 with partners, 0 the soloist / 1 the opponents in
    Terziglio, the seat itself where each plays for himself (the game's ``sides``)."""
    k = opts[O_SIDES]
    if k == SD_PARTNERS:
        return seat % 2
    if k == SD_SOLOIST:
        return 0 if seat == ints[b, SOLOIST] else 1
    return seat


@kernel
def sides_rows(ints: np.ndarray, rows: np.ndarray, n: int, opts: np.ndarray, out: np.ndarray) -> None:
    """:func:`_side` of every seat of ``rows`` into ``out`` (R, n): the one rule, for the NumPy code too."""
    for i in range(rows.shape[0]):
        for s in range(n):
            out[i, s] = _side(ints, rows[i], s, opts)


@kernel(inline=True)
def _next_active(seat_ints, b, p, n):
    """The next player to the right (play order) still in the game (Mattazza matches drop players)."""
    q = (p + 1) % n
    while seat_ints[b, q, ACTIVE] == 0:
        q = (q + 1) % n
    return q
