"""Card decks as data and the card notation of docs/interface.md §2."""

from tarot_env.cards.deck import EXCUSE_SUIT, TRUMP_SUIT, Deck
from tarot_env.cards.french import FRENCH_DECK, card, card_name

__all__ = ["EXCUSE_SUIT", "FRENCH_DECK", "TRUMP_SUIT", "Deck", "card", "card_name"]
