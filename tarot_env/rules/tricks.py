"""Trick-taking mechanics shared by every game of the family, batch-first.

Both the French and the Bolognese games follow suit, trump when void, and have one card
(Excuse / Matto) that may be played at any time and never wins by strength. They differ in
whether a trump must beat the trumps already in the trick (French: yes, §6.2; Bolognese:
no, tarocchino §4.2) and in ties (the Bolognese Mori are equal and the last one played
wins). :class:`TrickTables` carries those differences; the functions below are the one
implementation of "which cards may I play" and "who is winning this trick".

The current trick is held incrementally, as the rules layer plays each card:

- ``lead_suit``: the suit of the first card of the trick that is not the excuse card, or
  -1 while none has been played (a led excuse lets the second card fix the suit);
- ``top_trump``: the strength of the highest trump in the trick, 0 if none;
- ``best_key`` / ``best_seat``: the key of the card now winning the trick and its player.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tarot_env._jit import njit
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
    """Cards each player may play: ``hands`` (R, C) bool -> (R, C) bool (see :func:`legal_plays_numpy`)."""
    if _legal_kernel is not None:
        return _legal_kernel(hands, lead_suit, top_trump, t.suit, t.strength, t.must_overtrump)
    return legal_plays_numpy(t, hands, lead_suit, top_trump)


def legal_plays_numpy(t: TrickTables, hands: np.ndarray, lead_suit: np.ndarray, top_trump: np.ndarray) -> np.ndarray:
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
    """The trick state after ``seats`` play ``cards`` (see :func:`play_card_numpy`)."""
    if _play_kernel is not None:
        return _play_kernel(cards, seats, lead_suit, top_trump, best_key, best_seat, t.suit, t.strength, t.ties_to_later)
    return play_card_numpy(t, cards, seats, lead_suit, top_trump, best_key, best_seat)


def play_card_numpy(
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


# ---------------------------------------------------------------------------------------------
# Compiled twins (numba, optional): the same rules as the NumPy versions above, which stay the
# reference; tests/test_tricks_kernels.py checks that both agree on random trick states.


def _legal_loop(hands, lead_suit, top_trump, suit, strength, must_overtrump):
    R, C = hands.shape
    out = np.zeros((R, C), dtype=np.bool_)
    for i in range(R):
        led = lead_suit[i]
        if led < 0:
            out[i] = hands[i]
            continue
        n_follow = n_trump = n_higher = 0
        for c in range(C):
            if hands[i, c]:
                if suit[c] == led and led < TRUMP_SUIT:
                    n_follow += 1
                if suit[c] == TRUMP_SUIT:
                    n_trump += 1
                    if strength[c] > top_trump[i]:
                        n_higher += 1
        for c in range(C):
            if not hands[i, c]:
                continue
            if suit[c] == EXCUSE_SUIT:
                out[i, c] = True
            elif n_follow > 0:
                out[i, c] = suit[c] == led
            elif n_trump > 0:
                out[i, c] = suit[c] == TRUMP_SUIT and (not must_overtrump or n_higher == 0 or strength[c] > top_trump[i])
            else:
                out[i, c] = True
    return out


def _play_loop(cards, seats, lead_suit, top_trump, best_key, best_seat, suit, strength, ties_to_later):
    R = cards.shape[0]
    lead_out = lead_suit.copy()
    top_out = top_trump.copy()
    key_out = best_key.copy()
    seat_out = best_seat.copy()
    for i in range(R):
        su = suit[cards[i]]
        st = strength[cards[i]]
        if lead_out[i] < 0 and su != EXCUSE_SUIT:
            lead_out[i] = su
        key = st if (su == TRUMP_SUIT or su == lead_out[i]) else -1
        if su == TRUMP_SUIT and st > top_out[i]:
            top_out[i] = st
        better = (key >= key_out[i] and key >= 0) if ties_to_later else key > key_out[i]
        if better:
            key_out[i] = key
            seat_out[i] = seats[i]
    return lead_out, top_out, key_out, seat_out


_legal_kernel = njit(_legal_loop)
_play_kernel = njit(_play_loop)
