"""A seat's legal moves in the card notation, and a refused move's reason in a player's words.

Both front ends show a player his legal moves in the order of his hand and tell him why a move
was refused; the terminal (``tarot play``) and the web room must say the same thing, so they read
it here rather than one from the other. Below the front ends, above the envs: it reads an env's
``legal_actions`` and ``action_to_string`` and the deck of :mod:`tarot_env.env_facts`.
"""

from __future__ import annotations

import re
from typing import Any

from tarot_env.cards.deck import Deck
from tarot_env.env_facts import facts

#: the action verbs that take a card: a card typed alone gets the verb of the decision
CARD_VERBS = ("play", "discard", "call", "show", "give")


def action_sort_key(deck: Deck, text: str, action: int) -> tuple:
    """Legal moves in the order of the hand: card actions by suit, strongest first within a suit
    (the trumps read T21 … T1), then the other actions by id."""
    words = text.split()
    if len(words) == 2 and words[0] in CARD_VERBS:
        c = deck.index[words[1]]
        return (0, CARD_VERBS.index(words[0]), int(deck.suit[c]), -int(deck.strength[c]))
    return (1, action)


def legal_moves(env_id: str, raw: Any) -> list[tuple[int, str]]:
    """The legal moves of the player to act in ``raw`` (the unwrapped env) as ``(action, string)``,
    in the order of the hand (the numbers the player types, the buttons the room shows)."""
    deck = facts(env_id).deck
    moves = [(a, raw.action_to_string(a)) for a in raw.legal_actions()]
    return sorted(moves, key=lambda m: action_sort_key(deck, m[1], m[0]))


def refusal(err: Exception) -> str:
    """The env's reason for refusing an action, without its list of legal actions (printed apart, numbered)."""
    return re.sub(r";\s*legal (actions|now):.*$", "", str(err), flags=re.S)
