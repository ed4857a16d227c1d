"""The shape of a fixed deal (docs/interface.md §4), shared by every game.

``{"dealer": d, "hands": [[card, ...] per seat], "rest": [card, ...]}``: each game's deal
module checks the cards themselves (counts, repeats, what ``rest`` means for that game).
"""

from __future__ import annotations

from typing import Any

import numpy as np

DEAL_KEYS = ("dealer", "hands", "rest")


def check_deal_shape(deal: Any, num_players: int, game: str = "") -> tuple[int, list | tuple, Any]:
    """``(dealer, hands, rest)`` of a deal dict, or a clear error naming what is wrong.

    A deal that is not a dict raises ``TypeError``; wrong keys, a dealer that is not a seat
    number, or a ``hands`` that is not one list per seat raise ``ValueError``.
    """
    if not isinstance(deal, dict):
        raise TypeError(f"a deal must be a dict with keys 'dealer', 'hands', 'rest'; got {type(deal).__name__}")
    unknown = set(deal) - set(DEAL_KEYS)
    missing = set(DEAL_KEYS) - set(deal)
    if unknown or missing:
        raise ValueError(
            f"malformed deal: keys {sorted(map(str, deal))}; a deal has exactly the keys 'dealer', 'hands', 'rest'"
            + (f" (unknown: {sorted(map(str, unknown))})" if unknown else "")
            + (f" (missing: {sorted(missing)})" if missing else "")
        )
    dealer = deal["dealer"]
    if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < num_players:
        raise ValueError(f"malformed deal: dealer {dealer!r} must be a seat number 0..{num_players - 1}")
    hands = deal["hands"]
    if not isinstance(hands, (list, tuple)) or len(hands) != num_players:
        where = f" for {game}" if game else ""
        raise ValueError(f"malformed deal: 'hands' must list {num_players} hands in seat order{where}, got {hands!r:.80}")
    return int(dealer), hands, deal["rest"]
