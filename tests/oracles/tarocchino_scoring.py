"""Test oracles: a hand's score stated game by game, and the cappotto stated on its own.

The package scores a hand one way for every game, from the game's row (``GameSpec``: its
tricks, its sides, its count): ``hand_scores`` and the compiled ``hand_score_rows``. The tests
check worked examples game by game, so the per-game entry points they call live here, beside
the other oracles: each checks what a finished hand of its game holds (the whole pack, or the 32
cards in play) and calls ``hand_scores`` with the game's tricks. :func:`apply_cappotto` says the
cappotto (§4.6) a second, independent way, to check the package's count against. They are not
part of the package: the code reads a game's row, never its name.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tarot_env.cards.bolognese import NUM_CARDS
from tarot_env.rules.bolognese.game_specs import GAMES
from tarot_env.rules.bolognese.scoring import HandScore, _piles, hand_scores, quindici_round

#: Ottocento's target and the longer games some tables play (§8.1, seed 4.1.1).
OTTOCENTO_TARGET = GAMES["ottocento"].target
OTTOCENTO_TARGETS = GAMES["ottocento"].targets
MILLONE_TARGET = GAMES["millone"].target
#: Centocinquanta's targets: the variants of §12.3.
CENTOCINQUANTA_TARGETS = GAMES["centocinquanta"].targets
#: Quindici's target, in rounded points, and the variants of §13.
QUINDICI_TARGET = GAMES["quindici"].target
QUINDICI_TARGETS = GAMES["quindici"].targets
#: Tricks in a hand (§8.2, §11.5, §12.2).
OTTOCENTO_TRICKS = GAMES["ottocento"].tricks
MILLONE_TRICKS = GAMES["millone"].tricks
CENTOCINQUANTA_TRICKS = GAMES["centocinquanta"].tricks
#: Cards in play in Centocinquanta and Quindici: 15 + 17; the other 30 are out of the count (§12.1).
CENTOCINQUANTA_CARDS = NUM_CARDS - GAMES["centocinquanta"].out_of_play(2)


def apply_cappotto(piles: np.ndarray, tricks_won: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Move a capotted side's pile to the other side (§4.6, §4.5, §10.5): ``(R, 2, 62)`` -> the same.

    A side that took no trick loses its discard and the Matto it covered: its whole pile goes to
    the other side. Returns the new piles and ``capotted`` (R, 2) bool, the sides with no trick.
    Side by side: side ``s`` keeps its pile unless capotted, and receives the other's if that
    one is."""
    p = np.asarray(piles)
    t = np.asarray(tricks_won)
    if p.dtype != bool or p.ndim != 3 or p.shape[1:] != (2, NUM_CARDS) or t.shape != p.shape[:2]:
        raise ValueError(f"piles (R, 2, {NUM_CARDS}) bool and tricks_won (R, 2), got {p.shape} and {t.shape}")
    capotted = t == 0
    out = np.empty_like(p)
    for s in (0, 1):
        keep = p[:, s] & ~capotted[:, s, None]
        gets = p[:, 1 - s] & capotted[:, 1 - s, None]
        out[:, s] = keep | gets
    return out, capotted


def _whole_pack(p: np.ndarray, game: str) -> None:
    missing = ~p.any(axis=1)
    if np.any(missing):
        rows = np.flatnonzero(missing.any(axis=1))
        raise ValueError(f"in {game} the piles hold all {NUM_CARDS} cards at the end of a hand; rows {rows.tolist()} miss some")


def ottocento_hand_scores(piles, tricks_won, last_trick, declarations=None, **options: Any) -> HandScore:
    """Both sides' scores for one hand of Ottocento or Quattro Scartate (§8.3, §9): (R, 2) fields.
    ``piles`` (R, 2, 62), together the 62 cards; 15 tricks. Options as in ``hand_scores``."""
    p = _piles(piles, 2)
    _whole_pack(p, "Ottocento")
    return hand_scores(p, tricks_won, last_trick, declarations, num_tricks=OTTOCENTO_TRICKS, **options)


def millone_hand_scores(piles, tricks_won, last_trick, declarations=None, **options: Any) -> HandScore:
    """Both players' scores for one hand of Millone (§11.7), on individual piles (his tricks and
    his own discards): 40 cards in 20 tricks + 22 discards = 62."""
    p = _piles(piles, 2)
    _whole_pack(p, "Millone")
    return hand_scores(p, tricks_won, last_trick, declarations, num_tricks=MILLONE_TRICKS, **options)


def centocinquanta_hand_scores(piles, tricks_won, last_trick, declarations=None, **options: Any) -> HandScore:
    """Both players' scores for one hand of Centocinquanta (§12.4), over the 32 cards in play
    (15 tricks of 2 + the dealer's 2 discards); the 30 cards out of the hand are in no pile."""
    p = _piles(piles, 2)
    n = np.count_nonzero(p, axis=(1, 2))
    if np.any(n != CENTOCINQUANTA_CARDS):
        raise ValueError(f"in Centocinquanta the piles hold the {CENTOCINQUANTA_CARDS} cards in play, got {n.tolist()}")
    return hand_scores(p, tricks_won, last_trick, declarations, num_tricks=CENTOCINQUANTA_TRICKS, **options)


def quindici_hand_scores(piles, tricks_won, last_trick, declarations=None, **options: Any) -> np.ndarray:
    """Each player's rounded hand score in Quindici (§13): q(the Centocinquanta score), (R, 2)."""
    return quindici_round(centocinquanta_hand_scores(piles, tricks_won, last_trick, declarations, **options).total)
