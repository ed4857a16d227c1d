"""Cards as a player reads them: the display order of a hand and a hand written by suit.

One statement for the terminal's table (:mod:`tarot_env.cli.views`) and the web room's
(:mod:`tarot_env.web.views`), which show cards in the same order.
"""

from __future__ import annotations

from typing import Any

from tarot_env.cards.bolognese import SUIT_NAMES as BOLOGNESE_SUITS
from tarot_env.cards.deck import EXCUSE_SUIT, TRUMP_SUIT, Deck
from tarot_env.cards.french import FRENCH_DECK
from tarot_env.cards.french import SUIT_NAMES as FRENCH_SUITS


def sort_cards(deck: Deck, cards: Any) -> list[int]:
    """Display order: the plain suits in their order, then the trumps, then the Excuse / Matto;
    strongest first within each group (so the trumps read T21 … T1, ANG MON SOL …)."""
    return sorted((int(c) for c in cards), key=lambda c: (int(deck.suit[c]), -int(deck.strength[c])))


def format_hand(deck: Deck, cards: Any) -> str:
    """``pique: KS 7S | cœur: … | atouts: T21 T6 | EX``, groups by suit in :func:`sort_cards` order."""
    suit_names = FRENCH_SUITS if deck is FRENCH_DECK else BOLOGNESE_SUITS
    trump_word = "atouts" if deck is FRENCH_DECK else "trumps"
    groups: dict[int, list[str]] = {}
    for c in sort_cards(deck, cards):
        groups.setdefault(int(deck.suit[c]), []).append(deck.names[c])
    parts = []
    for suit, names in groups.items():
        label = suit_names[suit] if suit < TRUMP_SUIT else trump_word if suit == TRUMP_SUIT else ""
        parts.append(f"{label}: {' '.join(names)}" if suit != EXCUSE_SUIT else " ".join(names))
    return " | ".join(parts) if parts else "(no cards)"


def card_names(deck: Deck, cards: Any) -> str:
    """The names of ``cards`` in display order, separated by spaces."""
    return " ".join(deck.names[c] for c in sort_cards(deck, cards))
