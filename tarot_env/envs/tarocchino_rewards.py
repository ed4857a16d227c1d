"""Rewards of the Tarocchino envs (AEC and vector alike), from a finished hand's scores.

See ``docs/tarocchino.md`` ("Scores and rewards"): a hand's reward is the seat's side's score
minus the other side's (two sides), the settlement (Terziglio), or −1 for a loser
(Mattazza); ``normalised`` divides by :data:`REWARD_SCALE`, ``win_loss`` takes the sign; a
match with ``match_reward="result"`` pays only its result. Shaping pays each trick's card
points as it is won; the hand's final reward subtracts what shaping paid.
"""

from __future__ import annotations

import numpy as np

from tarot_env.rules.bolognese.game import HandEnd

REWARD_MODES = ("score", "normalised", "win_loss")
#: the ``normalised`` reward's divisor per game: about one ordinary hand's margin
REWARD_SCALE = {
    "ottocento": 100,
    "quattro_scartate": 100,
    "terziglio": 20,
    "millone": 100,
    "centocinquanta": 50,
    "quindici": 5,
    "mattazza": 1,
}
#: Mattazza's shaping divisor (points are bad there; a hand's reward is −1, 0 or +1 in every mode)
MATTAZZA_SHAPING = 8  # a power of 2: the shaped rewards of a hand sum exactly


def _same_side(end: HandEnd, seat: int) -> np.ndarray:
    return end.sides == end.sides[seat]


def hand_reward(game: str, mode: str, target: int, end: HandEnd) -> np.ndarray:
    """(N,) each seat's reward for one finished hand (before shaping is subtracted)."""
    n = len(end.scores)
    scale = REWARD_SCALE[game] if mode == "normalised" else 1
    if end.result == "thrown_in":
        return np.zeros(n)
    if game == "mattazza":
        losers = np.zeros(n, dtype=bool)
        losers[end.info.get("losers", [])] = True
        if mode == "win_loss":
            return np.where(end.active, np.where(losers, -1.0, 1.0), 0.0)
        return -losers.astype(float)
    if end.result in ("claimed", "wrong_claim"):
        mine = _same_side(end, end.info["claimer"])
        sign = np.where(mine, 1.0, -1.0) * (1.0 if end.result == "claimed" else -1.0)
        if mode == "win_loss":
            return sign
        if end.result == "wrong_claim":
            return sign * target / scale
    scores = np.asarray(end.scores, dtype=float)
    if game == "terziglio":
        values = scores
    else:  # own side's hand score minus the other side's (partners hold equal scores)
        other = np.array([scores[end.sides != end.sides[s]][0] for s in range(n)])
        values = scores - other
    if mode == "win_loss":
        return np.sign(values)
    return values / scale


def match_reward(game: str, end: HandEnd) -> np.ndarray:
    """(N,) the result of a finished match: +1 the winners, −1 the losers, 0 a draw."""
    n = len(end.scores)
    if game == "mattazza":
        losers = end.info.get("match_losers", [])
        return np.array([-1.0 if s in losers else 1.0 for s in range(n)])
    w = end.info.get("game_winner", "draw")
    if w == "draw":
        return np.zeros(n)
    if end.result in ("claimed", "wrong_claim"):
        return np.where(end.sides == w, 1.0, -1.0)
    if game == "terziglio":
        return np.array([1.0 if s == w else -1.0 for s in range(n)])
    return np.where(end.sides == w, 1.0, -1.0)


def trick_reward(game: str, mode: str, value: float, winner: int, sides: np.ndarray) -> np.ndarray:
    """(N,) shaping for one trick worth ``value`` card points, won by ``winner``."""
    n = len(sides)
    if game == "mattazza":
        out = np.zeros(n)
        out[winner] = -value / MATTAZZA_SHAPING  # every mode: a hand's reward is of the order of 1 in each
        return out
    scale = REWARD_SCALE[game] if mode != "score" else 1
    return np.where(sides == sides[winner], value, -value) / scale
