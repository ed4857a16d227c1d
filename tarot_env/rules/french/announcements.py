"""Announcements (docs/rules/french_tarot.md §5): the chelem and the poignée.

Chelem: only the taker may announce one, once (option ``chelem_announcement`` says when);
he then leads to the first trick.

Poignée: any player may show one just before his first card. It must hold exactly 10, 13 or
15 trumps (4 players; 13/15/18 for 3, 8/10/13 for 5). The Excuse may stand in for one
missing trump, but only when every trump of the hand is shown with it. Trumps the taker was
forced to put in the écart count too (option ``poignee_forced_discards``, §15.9). Which
trumps are shown when the player has more than the size is option ``poignee_trumps``.

Which trumps a player may show is one row function that numba compiles (:func:`showable_row`),
as the play's rules are. Who may declare which poignée (:func:`poignee_row`) counts them: it is
asked of every player when the play starts, at every vector step on the calling thread
(docs/performance.md, "What the kernels replaced"). The declaration itself (:func:`apply_poignee`) and the trumps picked one by one
read them as a batch (:func:`showable_trumps`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tarot_env._jit import kernel
from tarot_env.cards.french import EXCUSE, PETIT
from tarot_env.rules.french.state import COLUMN

if TYPE_CHECKING:
    from tarot_env.rules.french.protocol import Rules
    from tarot_env.rules.french.state import FrenchTarotState

TAKER, HANDS, ECART = COLUMN["taker"], COLUMN["hands"], COLUMN["ecart"]
FORCED_DISCARDS, SIZES = 0, 1  # the ``opts`` argument (:func:`announcement_options`)


@kernel(inline=True)
def showable_row(b, seat, c, ints, seat_cards, card_flags, opts):
    """Whether ``seat`` of row ``b`` may show card ``c`` in a poignée: a trump (the Excuse is
    not one) in his hand, or one he was forced to put in the écart when he is the taker and
    the option ``poignee_forced_discards`` says so (§15.9). The one statement of the rule:
    :func:`poignee_row` counts it, :func:`showable_trumps` lists it."""
    if c < PETIT or c >= EXCUSE:  # the trumps (cards/french.py)
        return False
    # In the bitwise form rather than with ``and``/``or``: numba compiles the short-circuit
    # form into branches that made the poignée questions at the start of the play 30 times
    # slower (~65 µs of a vector step at B = 4,096).
    forced = (opts[FORCED_DISCARDS] == 1) & (seat == ints[b, TAKER]) & (card_flags[b, ECART, c] == 1)
    return seat_cards[b, HANDS, seat, c] | forced


@kernel
def showable_rows(rows, seats, ints, seat_cards, card_flags, opts, out):
    """:func:`showable_row` of every card for each ``(rows[i], seats[i])`` into ``out`` (R, 78)."""
    for i in range(rows.shape[0]):
        for c in range(out.shape[1]):
            out[i, c] = showable_row(rows[i], seats[i], c, ints, seat_cards, card_flags, opts)


@kernel(inline=True)
def poignee_row(b, seat, ints, seat_cards, card_flags, opts, out):
    """Which of simple, double, triple ``seat`` of row ``b`` can show exactly, into ``out`` (3,):
    his showable trumps (:func:`showable_row`) reach the size, or fall one short with the
    Excuse in hand (shown with all his trumps)."""
    n_trumps = 0
    for c in range(PETIT, EXCUSE):
        n_trumps += showable_row(b, seat, c, ints, seat_cards, card_flags, opts)
    excuse = seat_cards[b, HANDS, seat, EXCUSE]
    for k in range(3):
        size = opts[SIZES + k]
        out[k] = n_trumps >= size or (excuse and n_trumps + 1 == size)


@kernel
def poignee_rows(rows, seats, ints, seat_cards, card_flags, opts):
    """(R, 3) bool: :func:`poignee_row` of each ``(rows[i], seats[i])``."""
    out = np.zeros((rows.shape[0], 3), dtype=np.bool_)
    for i in range(rows.shape[0]):
        poignee_row(rows[i], seats[i], ints, seat_cards, card_flags, opts, out[i])
    return out


@kernel
def may_declare_rows(rows, ints, seat_cards, card_flags, poignee_todo, n, opts):
    """Write ``poignee_todo`` of every seat of ``rows``: whether he can show some poignée."""
    options = np.zeros(3, dtype=np.bool_)
    for i in range(rows.shape[0]):
        for seat in range(n):
            poignee_row(rows[i], seat, ints, seat_cards, card_flags, opts, options)
            poignee_todo[rows[i], seat] = options[0] or options[1] or options[2]


def showable_trumps(g: Rules, s: FrenchTarotState, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(R, 78) bool: the trumps each seat may show (:func:`showable_row`: the hand's, plus the
    forced écart trumps); ``rows`` and ``seats`` (R,) each."""
    rows, seats = np.asarray(rows, dtype=np.int64), np.asarray(seats, dtype=np.int64)
    out = np.zeros((len(rows), s.hands.shape[-1]), dtype=bool)
    b = s.blocks
    showable_rows(rows, seats, b["ints"], b["seat_cards"], b["card_flags"], g.announcement_options, out)
    return out


def announcement_options(g: Rules) -> np.ndarray:
    """The ``opts`` argument of :func:`poignee_row`: the forced-discards option, the 3 sizes."""
    return np.array([g.config.poignee_forced_discards, *g.poignee_sizes.tolist()], dtype=np.int64)


def may_declare_poignee(g: Rules, s: FrenchTarotState, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Whether each seat can show some poignée (:func:`poignee_row`; ``rows`` and ``seats``
    broadcast together): the players who are asked at their first card (``poignee_todo``)."""
    rows, seats = np.broadcast_arrays(np.asarray(rows, dtype=np.int64), np.asarray(seats, dtype=np.int64))
    b = s.blocks
    out = poignee_rows(rows.ravel(), seats.ravel(), b["ints"], b["seat_cards"], b["card_flags"], g.announcement_options)
    return out.any(axis=-1).reshape(rows.shape)


def ask_poignees(g: Rules, s: FrenchTarotState, rows: np.ndarray) -> None:
    """``poignee_todo`` of every seat of ``rows`` (:func:`may_declare_rows`), when the play starts."""
    b = s.blocks
    may_declare_rows(rows, b["ints"], b["seat_cards"], b["card_flags"], b["poignee_todo"], g.num_players, g.announcement_options)


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
