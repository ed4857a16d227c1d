"""The Bolognese Tarocchino games (docs/rules/tarocchino.md), batch-first."""

from tarot_env.rules.bolognese.counting import (
    CARD_VALUE,
    DECK_VALUE,
    HAND_CARD_TOTAL,
    LAST_TRICK_BONUS,
    PAIR_COUNT_TOTAL,
    card_points,
    group_points,
    pile_half_points,
    pile_points,
    value_sum,
)

__all__ = [
    "CARD_VALUE",
    "DECK_VALUE",
    "HAND_CARD_TOTAL",
    "LAST_TRICK_BONUS",
    "PAIR_COUNT_TOTAL",
    "card_points",
    "group_points",
    "pile_half_points",
    "pile_points",
    "value_sum",
]
