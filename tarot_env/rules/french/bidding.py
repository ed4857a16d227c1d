"""Bidding (docs/rules/french_tarot.md §3).

The dealer's right-hand neighbour (``dealer + 1``) speaks first; each player speaks exactly
once, passing or bidding a contract strictly higher than the highest so far. The highest
bidder becomes the taker; if everybody passes the deal is thrown in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tarot_env._jit import kernel
from tarot_env.rules.french.state import COLUMN

if TYPE_CHECKING:
    from tarot_env.rules.french.protocol import Rules
    from tarot_env.rules.french.state import FrenchTarotState

CONTRACT = COLUMN["contract"]


@kernel(inline=True)
def bid_row(b, ints, out):
    """The bids the player to act in row ``b`` may make, into ``out`` (5,) over ``pass, petite,
    garde, garde_sans, garde_contre``: passing, or a contract higher than the highest so far."""
    out[0] = True
    for k in range(1, 5):
        out[k] = k > ints[b, CONTRACT]


def apply_bid(g: Rules, s: FrenchTarotState, rows: np.ndarray, bid: np.ndarray) -> np.ndarray:
    """Record each row's bid (0 = pass); returns the rows whose bidding is over."""
    seat = s.current[rows]
    s.bids[rows, seat] = bid
    higher = bid > 0  # legal bids are strictly higher than the contract so far
    s.contract[rows] = np.where(higher, bid, s.contract[rows])
    s.taker[rows] = np.where(higher, seat, s.taker[rows])
    s.n_spoken[rows] += 1
    s.current[rows] = (seat + 1) % g.num_players
    return rows[s.n_spoken[rows] == g.num_players]
