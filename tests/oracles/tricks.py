"""Test oracle: the trick-taking mechanics of every game of the family, batch-first.

Both the French and the Bolognese games follow suit, trump when void, and have one card
(Excuse / Matto) that may be played at any time and never wins by strength. They differ in
whether a trump must beat the trumps already in the trick (French: yes, §6.2; Bolognese:
no, tarocchino §4.2) and in ties (the Bolognese Mori are equal and the last one played
wins). :class:`TrickTables` carries those differences.

The package runs these rules once, row by row, in the code each game plays:
``tarot_env/rules/french/play.py`` (``legal_cards``, ``_trick_state``) and
``tarot_env/rules/bolognese/tricks.py`` (``_legal_plays``, ``_play``). The functions
below state them a second, independent way (whole batches at once, NumPy arithmetic) so
that tests can check the engines against them: ``tests/test_kernels.py``,
``tests/test_french_play.py``, ``tests/test_tarocchino_engine.py``. They are not part of
the package.

The current trick is held incrementally, as each card is played:

- ``lead_suit``: the suit of the first card of the trick that is not the excuse card, or
  -1 while none has been played (a led excuse lets the second card fix the suit);
- ``top_trump``: the strength of the highest trump in the trick, 0 if none;
- ``best_key`` / ``best_seat``: the key of the card now winning the trick and its player.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tarot_env.cards.deck import EXCUSE_SUIT, TRUMP_SUIT, Deck


@dataclass(frozen=True, eq=False)
class TrickTables:
    """Per-deck lookup tables for the trick mechanics (built once per game)."""

    suit: np.ndarray  # (C,) suit code of each card
    strength: np.ndarray  # (C,) int64 trick strength
    suit_mask: np.ndarray  # (6, C) bool: cards of each suit code
    trump_mask: np.ndarray  # (C,) bool
    excuse_mask: np.ndarray  # (C,) bool
    must_overtrump: bool
    ties_to_later: bool

    @classmethod
    def for_deck(cls, deck: Deck, must_overtrump: bool, ties_to_later: bool = False) -> TrickTables:
        suit = deck.suit.astype(np.int64)
        suit_mask = np.stack([suit == s for s in range(6)])
        return cls(
            suit=suit,
            strength=deck.strength.astype(np.int64),
            suit_mask=suit_mask,
            trump_mask=suit == TRUMP_SUIT,
            excuse_mask=suit == EXCUSE_SUIT,
            must_overtrump=must_overtrump,
            ties_to_later=ties_to_later,
        )


def legal_plays(t: TrickTables, hands: np.ndarray, lead_suit: np.ndarray, top_trump: np.ndarray) -> np.ndarray:
    """Cards each player may play: ``hands`` (R, C) bool -> (R, C) bool.

    French §6.2 / Tarocchino §4.2: follow the suit led if you can; otherwise trump if you can
    (French: above the highest trump in the trick when you can, even over a partner);
    otherwise play anything. A trump lead must be answered with a trump. The excuse card is
    always allowed and never counts as a trump for these duties. Leading (nothing but
    perhaps the excuse played yet) allows the whole hand.
    """
    led = lead_suit >= 0
    follow = hands & t.suit_mask[np.where(led, lead_suit, EXCUSE_SUIT)]
    can_follow = (lead_suit < TRUMP_SUIT) & led & follow.any(axis=1)
    trumps = hands & t.trump_mask
    has_trump = trumps.any(axis=1)
    if t.must_overtrump:
        higher = trumps & (t.strength > top_trump[:, None])
        trumps = np.where(higher.any(axis=1)[:, None], higher, trumps)
    forced = np.where(can_follow[:, None], follow, np.where(has_trump[:, None], trumps, hands))
    return np.where(led[:, None], forced | (hands & t.excuse_mask), hands)


def play_card(
    t: TrickTables,
    cards: np.ndarray,
    seats: np.ndarray,
    lead_suit: np.ndarray,
    top_trump: np.ndarray,
    best_key: np.ndarray,
    best_seat: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The trick state after ``seats`` play ``cards`` (one card per row).

    Returns the new ``(lead_suit, top_trump, best_key, best_seat)``. The winning key of a
    card is its strength if it is a trump or of the suit led, else -1: a discard, or the
    excuse card, never wins by strength. With ``ties_to_later`` an equal key (the Bolognese
    Mori) takes the trick from the earlier card.
    """
    suit = t.suit[cards]
    strength = t.strength[cards]
    lead_suit = np.where((lead_suit < 0) & (suit != EXCUSE_SUIT), suit, lead_suit)
    is_trump = suit == TRUMP_SUIT
    key = np.where(is_trump | (suit == lead_suit), strength, -1)
    top_trump = np.maximum(top_trump, np.where(is_trump, strength, 0))
    better = ((key >= best_key) & (key >= 0)) if t.ties_to_later else (key > best_key)
    return lead_suit, top_trump, np.where(better, key, best_key), np.where(better, seats, best_seat)
