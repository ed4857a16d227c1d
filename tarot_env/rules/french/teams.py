"""Who plays with whom (docs/rules/french_tarot.md §4, §10): the attack and the defence.

The attack is the taker and, with 5 players, the holder of the called card (his partner,
``-1`` when he plays alone); everyone else defends. Each rule is written once, in arithmetic
that means the same on plain ints and on NumPy arrays (broadcast): the NumPy phases call these
functions on whole batches; :data:`is_attack_row` and :data:`defence_seat_row` are the same
functions compiled once for the row loops of the play, the écart and the scoring.
"""

from __future__ import annotations

from tarot_env._jit import kernel


def is_attack(seat, taker, partner):
    """Whether ``seat`` is the taker or his partner (False for no seat, ``-1``)."""
    return (seat == taker) | ((seat == partner) & (seat >= 0))


def defence_seat(taker, partner, n):
    """The defender who keeps the defence's cards (§4): the one opposite the taker, or the
    next defender after that seat when it is the 5-player partner."""
    seat = (taker + n // 2) % n
    return (seat + (seat == partner)) % n


# compiled for the row functions (plain Python without numba)
is_attack_row = kernel(is_attack, inline=True)
defence_seat_row = kernel(defence_seat, inline=True)
