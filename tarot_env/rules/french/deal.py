"""The deal (docs/rules/french_tarot.md §2): packets, the chien, the petit sec, fixed deals.

Dealing a pack and the petit sec are row functions that numba compiles (:func:`tarot_env._jit.kernel`),
as the play's are (:mod:`.play`): a vector env deals some fifty tables at each step at
B = 4,096, on the calling thread, where each NumPy call has a fixed cost (docs/performance.md,
"What the kernels replaced")."""

from __future__ import annotations

from typing import Any

import numpy as np

from tarot_env._jit import kernel
from tarot_env.cards.french import EXCUSE, FRENCH_DECK, NUM_CARDS, PETIT
from tarot_env.rules.deals import check_deal_shape
from tarot_env.rules.french.config import FrenchTarotConfig
from tarot_env.rules.french.state import COLUMN

HANDS, CHIEN = COLUMN["hands"], COLUMN["chien"]


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


@kernel(inline=True)
def deal_row(b, dealer, pack, dest, n, seat_cards, card_flags):
    """Deal the shuffled ``pack`` (card ids in pack order) into row ``b``'s hands and chien:
    the card at position ``j`` goes where ``dest[j]`` says (:func:`deal_destinations`),
    counting seats from the dealer's right."""
    for j in range(pack.shape[0]):
        if dest[j] < n:
            seat_cards[b, HANDS, (dealer + 1 + dest[j]) % n, pack[j]] = True
        else:
            card_flags[b, CHIEN, pack[j]] = True


@kernel(inline=True)
def is_petit_sec(hand):
    """The player's only trump is the Petit and he lacks the Excuse (§2); ``hand`` (78,) bool."""
    if not hand[PETIT] or hand[EXCUSE]:
        return False
    for c in range(PETIT + 1, EXCUSE):  # the trumps above the Petit (cards/french.py)  # noqa: SIM110 (a loop for numba)
        if hand[c]:
            return False
    return True


@kernel
def deal_rows(rows, dealers, packs, dest, n, seat_cards, card_flags):
    """:func:`deal_row` for each of ``rows`` (blank rows: nothing in hand); returns (R,) bool:
    whether some hand has a petit sec."""
    annulled = np.zeros(rows.shape[0], dtype=np.bool_)
    for i in range(rows.shape[0]):
        b = rows[i]
        deal_row(b, dealers[i], packs[i], dest, n, seat_cards, card_flags)
        for s in range(n):
            annulled[i] |= is_petit_sec(seat_cards[b, HANDS, s])
    return annulled


@kernel
def petit_secs(hands):
    """(H,) bool: :func:`is_petit_sec` of each of ``hands`` (H, 78)."""
    out = np.zeros(hands.shape[0], dtype=np.bool_)
    for i in range(hands.shape[0]):
        out[i] = is_petit_sec(hands[i])
    return out


def deal_packs(
    config: FrenchTarotConfig, dealers: np.ndarray, packs: np.ndarray, dest: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Deal shuffled packs ``(R, 78)`` (card ids in pack order) -> hands ``(R, N, 78)``, chien
    ``(R, 78)`` (:func:`deal_row`; ``dest`` is :func:`deal_destinations` of the config, when
    the caller keeps it)."""
    n = config.num_players
    dest = deal_destinations(config) if dest is None else dest
    r = len(dealers)
    hands = np.zeros((r, HANDS + 1, n, NUM_CARDS), dtype=bool)
    chien = np.zeros((r, CHIEN + 1, NUM_CARDS), dtype=bool)
    rows = np.arange(r, dtype=np.int64)
    deal_rows(rows, np.asarray(dealers, dtype=np.int64), np.asarray(packs, dtype=np.int64), dest, n, hands, chien)
    return hands[:, HANDS], chien[:, CHIEN]


def petit_sec(hands: np.ndarray) -> np.ndarray:
    """(R, N) bool: :func:`is_petit_sec` of each hand of ``hands`` (R, N, 78)."""
    return petit_secs(np.ascontiguousarray(hands).reshape(-1, NUM_CARDS)).reshape(hands.shape[:-1])


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
