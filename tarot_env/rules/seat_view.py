"""A seat's view of a state: what one player at the table may see, stated once for every game.

A state of the rules holds every card (it is the omniscient state a replay needs). What a seat
may see of it is its own cards, the public history (bids, calls, the tricks played so far and
their winners, declarations) and what was shown (a French chien turned face up, poignées, the
trumps of an écart; Tarocchino declarations). :func:`seat_view` gives exactly that, as a frozen
object per family: :class:`~tarot_env.rules.french.seat_view.FrenchSeatView`,
:class:`~tarot_env.rules.bolognese.seat_view.TarocchinoSeatView`. A seat of ``None`` is a
spectator: the public part alone.

Who reads it: the terminal's table (:mod:`tarot_env.cli.views`), the web room's deal view
(:mod:`tarot_env.web.views`) and the belief samplers (:mod:`tarot_env.belief`) build what they
show or sample from it, not from the state's hidden parts.

**The encoders are tied to it, not built on it.** The observation vectors
(:mod:`tarot_env.encoding.french`, :mod:`tarot_env.encoding.bolognese`) are compiled kernels over
the state's arrays, a few microseconds a row; building a Python object per row first would cost
the env its speed. So the seat view is their *definition* instead: the no-leak tests
(``tests/test_french_properties.py``, ``tests/test_tarocchino_properties.py``) move cards hidden
from a seat in random states of every game and player count and check that (1) the seat view
does not change (it holds no other seat's hidden card), (2) wherever the seat view is the same
the observation is the same (the encoder reads nothing the seat view does not show), and (3) a
change of the seat's own cards changes both.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import numpy as np

from tarot_env.rules.trick import Trick

__all__ = ["Trick", "differences", "of_env", "same", "seat_view"]


def same(a: Any, b: Any) -> bool:
    """Whether two seat views are the same, field by field (arrays compared by value)."""
    return type(a) is type(b) and not differences(a, b)


def differences(a: Any, b: Any) -> list[str]:
    """The names of the fields where two seat views of one family differ (a test's message)."""
    out = []
    for f in fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if not (np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y):
            out.append(f.name)
    return out


def seat_view(game: Any, state: Any, row: int, seat: int | None) -> Any:
    """What ``seat`` (``None``: a spectator) may see of row ``row`` of ``state``, a state of
    ``game`` (the rules' game and state classes of either family)."""
    from tarot_env.rules.bolognese.state import TarocchinoState
    from tarot_env.rules.french.state import FrenchTarotState

    if isinstance(state, FrenchTarotState):
        from tarot_env.rules.french.seat_view import seat_view as french

        return french(game, state, row, seat)
    if isinstance(state, TarocchinoState):
        from tarot_env.rules.bolognese.seat_view import seat_view as tarocchino

        return tarocchino(game, state, row, seat)
    raise TypeError(f"a seat view is taken of a rules state (FrenchTarotState or TarocchinoState), got {type(state).__name__}")


def of_env(env: Any, seat: int | None) -> Any:
    """:func:`seat_view` of a tarot_env env's deal (row 0 of its state) for ``seat``."""
    raw = getattr(env, "unwrapped", env)
    return seat_view(raw.game, raw.game_state, 0, seat)
