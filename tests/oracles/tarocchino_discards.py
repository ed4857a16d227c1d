"""Test oracle: the discard rules of the Tarocchino games (the Scartata, §5.3) in batch.

The envs run the discards one card at a time in ``tarot_env/rules/bolognese/discards.py``
(the ``DISCARD`` phase: who discards, how many, and that a Carta da 5 never goes). The
functions below state the same rules for whole hands at once, independently, so that
tests can check the engine against them (tests/test_bolognese_deal.py). They are not part
of the package: a rule lives once in the code that runs it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tarot_env.cards.bolognese import BOLOGNESE_DECK, IS_CARTA_DA_5, NUM_CARDS
from tarot_env.rules.bolognese.deal import GAMES, _check_option


@dataclass(frozen=True)
class DiscardStep:
    """One discard of a hand: ``who`` discards ``count`` cards, ``after`` an event.

    ``who``: ``"dealer"``; ``"opponent"`` (the dealer's opponent in a 2-player game, seat
    ``dealer + 1``); ``"soloist"`` (Terziglio: the player who went up; none if nobody did).
    ``after``: ``"pickup"`` (the dealer has picked up his last cards and no one has claimed),
    ``"pozzo"`` (the soloist has taken the Pozzo), ``"second_deal"`` (Millone's second deal is dealt).
    """

    who: str
    count: int
    after: str


def discard_steps(game: str, *, first_discarder: str = "opponent") -> tuple[DiscardStep, ...]:
    """The discards of one hand of ``game``, in order (see the module docstring).

    ``first_discarder`` (U22) orders Millone's two first discards.
    """
    if game not in GAMES:
        raise ValueError(f"unknown Tarocchino game {game!r}; the games are {', '.join(GAMES)}")
    _check_option("first_discarder", first_discarder)
    if game in ("ottocento", "quattro_scartate", "centocinquanta", "quindici"):
        return (DiscardStep("dealer", 2, "pickup"),)
    if game == "terziglio":
        return (DiscardStep("soloist", 8, "pozzo"),)
    if game == "millone":
        order = ("opponent", "dealer") if first_discarder == "opponent" else ("dealer", "opponent")
        return (*(DiscardStep(who, 10, "pickup") for who in order), DiscardStep("dealer", 2, "second_deal"))
    return ()


def discard_seats(step: DiscardStep, dealers: np.ndarray, num_players: int, soloists: np.ndarray | None = None) -> np.ndarray:
    """(R,) the seat that makes ``step`` at each table (``soloists`` (R,) for Terziglio)."""
    dealers = np.asarray(dealers, dtype=np.int64)
    if step.who == "dealer":
        return dealers.copy()
    if step.who == "opponent":
        return (dealers + 1) % num_players
    if soloists is None:
        raise ValueError("the Terziglio discard is made by the soloist who went up: give soloists")
    return np.asarray(soloists, dtype=np.int64).copy()


def discardable(hands: np.ndarray) -> np.ndarray:
    """(..., 62) bool: the cards of ``hands`` that may be discarded: all but the Carte da 5 (§5.3).

    The Kings and the Tarocchi (Angelo, Mondo, Bégato, Matto) never; trumps otherwise may.
    """
    return np.asarray(hands, dtype=bool) & ~IS_CARTA_DA_5


def discard_mask(hands: np.ndarray, left: np.ndarray | int) -> np.ndarray:
    """(R, 62) bool: the cards the discarding player may put in the Scartata next.

    ``hands`` (R, 62) his hand at each table, ``left`` (R,) (or an int) the cards he still has
    to discard; a row with nothing left to discard allows none.
    """
    left = np.asarray(left)
    return discardable(hands) & (left > 0)[..., None]


def _forbidden_reason(c: int) -> str:
    return (
        f"{BOLOGNESE_DECK.format(c)} is a Carta da 5 (the Kings and the Tarocchi: Angelo, Mondo, Bégato, Matto), "
        "which may never be discarded (docs/rules/tarocchino.md §5)"
    )


def discard_step(hands: np.ndarray, scarto: np.ndarray, left: np.ndarray, cards: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Discard one card per row: ``(hands, scarto, left)`` -> new ``(hands, scarto, left)``.

    ``hands`` (R, 62) the discarder's hand, ``scarto`` (R, 62) his discards so far, ``left`` (R,)
    the cards still to discard, ``cards`` (R,) the card ids. Nothing is changed in place; an
    illegal card in any row raises ``ValueError`` naming the row, the card, why, and the
    cards allowed there.
    """
    hands, scarto = np.asarray(hands, dtype=bool), np.asarray(scarto, dtype=bool)
    left, cards = np.asarray(left, dtype=np.int64), np.asarray(cards, dtype=np.int64)
    legal = discard_mask(hands, left)
    rows = np.arange(len(cards))
    in_range = (cards >= 0) & (cards < NUM_CARDS)
    ok = in_range & legal[rows, np.clip(cards, 0, NUM_CARDS - 1)]
    if not np.all(ok):
        r = int(np.flatnonzero(~ok)[0])
        c = int(cards[r])
        given = BOLOGNESE_DECK.format(c) if in_range[r] else str(c)
        if not in_range[r]:
            why = f"{c} is not a card id (0..{NUM_CARDS - 1})"
        elif left[r] <= 0:
            why = "no discard is due"
        elif not hands[r, c]:
            why = f"{BOLOGNESE_DECK.format(c)} is not in the hand"
        else:
            why = _forbidden_reason(c)
        allowed = " ".join(BOLOGNESE_DECK.names[i] for i in np.flatnonzero(legal[r])) or "none"
        raise ValueError(f"row {r}: cannot discard {given}: {why}; allowed: {allowed}")
    new_hands, new_scarto = hands.copy(), scarto.copy()
    new_hands[rows, cards] = False
    new_scarto[rows, cards] = True
    return new_hands, new_scarto, left - 1


def discard_errors(hands: np.ndarray, discards: np.ndarray, count: int | np.ndarray) -> list[str | None]:
    """Check whole discards at once: ``hands`` (R, 62) the hand before discarding, ``discards``
    (R, 62) the cards put down, ``count`` the cards due. One entry per row: ``None`` if legal,
    else why not."""
    hands, discards = np.asarray(hands, dtype=bool), np.asarray(discards, dtype=bool)
    count = np.broadcast_to(np.asarray(count, dtype=np.int64), (len(hands),))
    out: list[str | None] = []
    for h, d, k in zip(hands, discards, count):
        got = np.flatnonzero(d)
        if len(got) != k:
            out.append(f"{len(got)} cards discarded; {int(k)} are due")
        elif np.any(d & ~h):
            out.append(f"{' '.join(BOLOGNESE_DECK.names[c] for c in np.flatnonzero(d & ~h))} not in the hand")
        elif np.any(d & IS_CARTA_DA_5):
            out.append("; ".join(_forbidden_reason(c) for c in np.flatnonzero(d & IS_CARTA_DA_5)))
        else:
            out.append(None)
    return out


def legal_discards(hands: np.ndarray, discards: np.ndarray, count: int | np.ndarray) -> np.ndarray:
    """(R,) bool: each row's ``discards`` is a legal Scartata of ``count`` cards from ``hands``."""
    hands, discards = np.asarray(hands, dtype=bool), np.asarray(discards, dtype=bool)
    n = np.count_nonzero(discards, axis=-1)
    return (n == np.asarray(count)) & ~np.any(discards & ~discardable(hands), axis=-1)
