"""Announcements (docs/rules/french_tarot.md §5): the chelem and the poignée.

Chelem: only the taker may announce one, once (option ``chelem_announcement`` says when);
he then leads to the first trick.

Poignée: any player may show one just before his first card. It must hold exactly 10, 13 or
15 trumps (4 players; 13/15/18 for 3, 8/10/13 for 5). The Excuse may stand in for one
missing trump, but only when every trump of the hand is shown with it. Trumps the taker was
forced to put in the écart count too (option ``poignee_forced_discards``, §15.9). Which
trumps are shown when the player has more than the size is option ``poignee_trumps``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tarot_env.cards.french import EXCUSE, IS_TRUMP

if TYPE_CHECKING:
    from tarot_env.rules.french.protocol import Rules
    from tarot_env.rules.french.state import FrenchTarotState


def showable_trumps(g: Rules, s: FrenchTarotState, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(R, 78) bool: the trumps each seat may show (hand, plus forced écart trumps).

    ``rows`` and ``seats`` broadcast together (``(R,)`` each, or ``(R, 1)`` and ``(1, N)`` for
    every seat of each row: ``(R, N, 78)``)."""
    trumps = s.hands[rows, seats] & IS_TRUMP
    if g.config.poignee_forced_discards:
        trumps |= (s.ecart[rows] & IS_TRUMP) & (seats == s.taker[rows])[..., None]
    return trumps


def poignee_options(g: Rules, s: FrenchTarotState, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(R, 3) bool: which of simple, double, triple each seat can show exactly (``rows`` and
    ``seats`` broadcast as in :func:`showable_trumps`, with the 3 options last)."""
    n_trumps = np.count_nonzero(showable_trumps(g, s, rows, seats), axis=-1)[..., None]
    excuse = s.hands[rows, seats, EXCUSE][..., None]
    sizes = g.poignee_sizes
    return (n_trumps >= sizes) | (excuse & (n_trumps + 1 == sizes))


def may_declare_poignee(g: Rules, s: FrenchTarotState, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Whether each seat can show some poignée (:func:`poignee_options`): the players who are
    asked at their first card (``poignee_todo``)."""
    return poignee_options(g, s, rows, seats).any(axis=-1)


def poignee_mask(g: Rules, s: FrenchTarotState, rows: np.ndarray) -> np.ndarray:
    """(R, 4) bool over ``poignee simple, double, triple, no_poignee``."""
    mask = np.ones((len(rows), 4), dtype=bool)
    mask[:, :3] = poignee_options(g, s, rows, s.current[rows])
    return mask


def apply_poignee(g: Rules, s: FrenchTarotState, rows: np.ndarray, choice: np.ndarray) -> np.ndarray:
    """Declare (``choice`` 0..2) or not (3). Returns the rows where the player now picks
    his trumps one by one (``poignee_trumps="choose"``)."""
    seat = s.current[rows]
    s.poignee_todo[rows, seat] = False
    declared = choice < 3
    rows, seat, choice = rows[declared], seat[declared], choice[declared]
    s.poignee[rows, seat] = choice + 1
    size = g.poignee_sizes[choice]
    trumps = showable_trumps(g, s, rows, seat)
    n_trumps = np.count_nonzero(trumps, axis=1)
    with_excuse = n_trumps < size  # legal only as "all trumps + Excuse"
    choose = n_trumps > size if g.config.poignee_trumps == "choose" else np.zeros(len(rows), bool)
    auto = ~choose
    shown = _pick(g, s, rows[auto], trumps[auto], size[auto])
    shown[:, EXCUSE] = with_excuse[auto]
    s.poignee_cards[rows[auto], seat[auto]] = shown
    s.show_left[rows[choose]] = size[choose]
    return rows[choose]


def _pick(g: Rules, s: FrenchTarotState, rows: np.ndarray, trumps: np.ndarray, size: np.ndarray) -> np.ndarray:
    """The ``size`` trumps shown automatically: trumps already shown in the écart first, then
    the lowest (or highest) of the hand."""
    known = trumps & s.ecart[rows]
    rest = trumps & ~known
    need = (size - np.count_nonzero(known, axis=1))[:, None]
    if g.config.poignee_trumps == "highest":
        order = np.cumsum(rest[:, ::-1], axis=1)[:, ::-1]
    else:
        order = np.cumsum(rest, axis=1)
    return known | (rest & (order <= need))


def show_mask(g: Rules, s: FrenchTarotState, rows: np.ndarray) -> np.ndarray:
    """(R, 78) bool: trumps the player may still add to his poignée."""
    seat = s.current[rows]
    return showable_trumps(g, s, rows, seat) & ~s.poignee_cards[rows, seat]


def apply_show(g: Rules, s: FrenchTarotState, rows: np.ndarray, card: np.ndarray) -> np.ndarray:
    """Show one trump; returns the rows whose poignée is complete."""
    s.poignee_cards[rows, s.current[rows], card] = True
    s.show_left[rows] -= 1
    return rows[s.show_left[rows] == 0]
