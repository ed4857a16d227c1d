"""The deal (docs/rules/french_tarot.md §2): packets, the chien, the petit sec, fixed deals."""

from __future__ import annotations

from typing import Any

import numpy as np

from tarot_env.cards.french import EXCUSE, FRENCH_DECK, IS_TRUMP, NUM_CARDS, PETIT
from tarot_env.rules.deals import check_deal_shape
from tarot_env.rules.french.config import FrenchTarotConfig


def deal_destinations(config: FrenchTarotConfig) -> np.ndarray:
    """Where each card of the pack goes, in pack order.

    Returns an array of length 78: ``k`` in ``0..N-1`` means the hand of seat
    ``dealer + 1 + k`` (dealing starts at the dealer's right and goes in play order);
    ``N`` means the chien. Packets of 3 (4 for 3 players) go round the table; after each
    packet numbered in ``config.chien_pattern`` (1-based) one card goes to the chien, so the
    first and last cards of the pack never do (§2).
    """
    n, size = config.num_players, config.packet_size
    n_packets = n * config.hand_size // size
    out: list[int] = []
    for k in range(1, n_packets + 1):
        out += [(k - 1) % n] * size
        if k in config.chien_pattern:
            out.append(n)
    assert len(out) == NUM_CARDS and out[0] != n and out[-1] != n
    return np.array(out, dtype=np.int64)


def deal_packs(
    config: FrenchTarotConfig, dealers: np.ndarray, packs: np.ndarray, dest: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Deal shuffled packs ``(R, 78)`` (card ids in pack order) -> hands ``(R, N, 78)``, chien.

    ``dest`` is :func:`deal_destinations` of the config, when the caller keeps it."""
    n = config.num_players
    dest = deal_destinations(config) if dest is None else dest
    r = len(dealers)
    seat_of_pos = np.where(dest[None, :] < n, (dealers[:, None] + 1 + dest[None, :]) % n, n)
    owners = np.empty((r, NUM_CARDS), dtype=np.int64)
    # owners[i, packs[i, j]] = seat_of_pos[i, j], as one flat scatter (put_along_axis costs several times as much)
    owners.ravel()[(np.arange(r)[:, None] * NUM_CARDS + packs).ravel()] = seat_of_pos.ravel()
    hands = owners[:, None, :] == np.arange(n)[None, :, None]
    return hands, owners == n


def petit_sec(hands: np.ndarray) -> np.ndarray:
    """(R, N) bool: the player's only trump is the Petit and he lacks the Excuse (§2)."""
    return hands[..., PETIT] & (np.count_nonzero(hands & IS_TRUMP, axis=-1) == 1) & ~hands[..., EXCUSE]


def parse_deal(config: FrenchTarotConfig, deal: Any) -> tuple[int, np.ndarray, np.ndarray]:
    """Check a fixed deal (docs/interface.md §4) -> ``(dealer, hands (N, 78), chien (78,))``.

    ``deal`` is ``{"dealer": d, "hands": [[card, ...] x N], "rest": [chien cards]}``.
    """
    n = config.num_players
    dealer, hands_in, rest = check_deal_shape(deal, n)
    seen: dict[int, str] = {}
    hands = np.zeros((n, NUM_CARDS), dtype=bool)
    chien = np.zeros(NUM_CARDS, dtype=bool)
    places = [(f"hand of seat {s}", h, hands[s], config.hand_size) for s, h in enumerate(hands_in)]
    places.append(("chien ('rest')", rest, chien, config.chien_size))
    for where, cards, mask, size in places:
        if not isinstance(cards, (list, tuple)):
            raise ValueError(f"malformed deal: the {where} must be a list of card strings, got {cards!r:.80}")
        if len(cards) != size:
            raise ValueError(f"malformed deal: the {where} has {len(cards)} cards; {n} players need {size}")
        for text in cards:
            c = FRENCH_DECK.parse(text)
            if c in seen:
                raise ValueError(f"malformed deal: {FRENCH_DECK.format(c)} is both in the {seen[c]} and the {where}")
            seen[c] = where
            mask[c] = True
    return int(dealer), hands, chien


def format_deal(dealer: int, hands: np.ndarray, chien: np.ndarray) -> dict[str, Any]:
    """The docs/interface.md §4 form of a deal (cards in id order)."""
    names = FRENCH_DECK.names
    return {
        "dealer": int(dealer),
        "hands": [[names[c] for c in np.flatnonzero(h)] for h in hands],
        "rest": [names[c] for c in np.flatnonzero(chien)],
    }
