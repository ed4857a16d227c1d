"""Rewards of the Tarocchino envs (AEC and vector alike), from a finished hand's scores.

See ``docs/tarocchino.md`` ("Scores and rewards"): a hand's reward is the seat's side's score
minus the other side's (two sides), the settlement (Terziglio), or −1 for a loser
(Mattazza); ``normalised`` divides by the game's ``reward_scale`` (its row in
:data:`tarot_env.rules.bolognese.game_specs.GAMES`; :data:`REWARD_SCALE` by name), ``win_loss``
takes the sign; a match with ``match_reward="result"`` pays only its result. Shaping pays each
trick's card points as it is won; the hand's final reward subtracts what shaping paid.

``game`` is a game's name or its :class:`~tarot_env.rules.bolognese.game_specs.GameSpec` row (a
variant): what the rewards depend on is read from the row (``scoring``, ``reward_scale``).
"""

from __future__ import annotations

import numpy as np

from tarot_env.cards.bolognese import BOLOGNESE_DECK
from tarot_env.rules.bolognese.game_specs import GAMES, GameSpec, game_spec
from tarot_env.rules.bolognese.state import TRICK_OF
from tarot_env.rules.game import HandEnd, HandEnds

_VALUE = BOLOGNESE_DECK.value.astype(np.int64)

#: the ``normalised`` reward's divisor per game: about one ordinary hand's margin (the rows' ``reward_scale``)
REWARD_SCALE = {name: spec.reward_scale for name, spec in GAMES.items()}
#: Mattazza's shaping divisor (points are bad there; a hand's reward is −1, 0 or +1 in every mode)
MATTAZZA_SHAPING = 8  # a power of 2: the shaped rewards of a hand sum exactly


def hand_reward(game: str | GameSpec, mode: str, target: int, end: HandEnd) -> np.ndarray:
    """(N,) each seat's reward for one finished hand (before shaping is subtracted)."""
    return hand_rewards(game, mode, target, [end])[0]


def hand_rewards(game: str | GameSpec, mode: str, target: int, ends: list[HandEnd]) -> np.ndarray:
    """(E, N) each seat's reward for each of the finished hands ``ends`` (before shaping is subtracted)."""
    spec = game_spec(game)
    if isinstance(ends, HandEnds):  # a step's hands: their arrays as the step computed them
        scores, sides = ends.scores.astype(float), ends.sides
    else:
        scores, sides = np.array([e.scores for e in ends], dtype=float), np.stack([e.sides for e in ends])
    E, n = scores.shape
    result = np.array([e.result for e in ends])
    scale = spec.reward_scale if mode == "normalised" else 1
    if spec.scoring == "penalty":  # Mattazza: −1 for a loser of the hand
        losers = np.zeros((E, n), dtype=bool)
        for i, e in enumerate(ends):
            losers[i, e.info.get("losers", [])] = True
        if mode == "win_loss":
            out = np.where(np.stack([e.active for e in ends]), np.where(losers, -1.0, 1.0), 0.0)
        else:
            out = -losers.astype(float)
    else:
        if spec.scoring == "poste":  # Terziglio: the settlement
            values = scores
        else:  # own side's hand score minus the other side's (partners hold equal scores)
            side_score = np.zeros((E, 2))
            np.put_along_axis(side_score, sides, scores, axis=1)  # partners write the same value
            values = scores - np.take_along_axis(side_score, 1 - sides, axis=1)
        out = np.sign(values) if mode == "win_loss" else values / scale
        for i in np.flatnonzero((result == "claimed") | (result == "wrong_claim")):
            e = ends[i]
            sign = np.where(sides[i] == sides[i, e.info["claimer"]], 1.0, -1.0) * (1.0 if e.result == "claimed" else -1.0)
            if mode == "win_loss":
                out[i] = sign
            elif e.result == "wrong_claim":
                out[i] = sign * target / scale
    out[result == "thrown_in"] = 0.0
    return out


def match_reward(game: str | GameSpec, end: HandEnd) -> np.ndarray:
    """(N,) the result of a finished match: +1 the winners, −1 the losers, 0 a draw."""
    spec = game_spec(game)
    n = len(end.scores)
    if spec.scoring == "penalty":
        losers = end.info.get("match_losers", [])
        return np.array([-1.0 if s in losers else 1.0 for s in range(n)])
    w = end.info.get("game_winner", "draw")
    if w == "draw":
        return np.zeros(n)
    if end.result in ("claimed", "wrong_claim"):
        return np.where(end.sides == w, 1.0, -1.0)
    if spec.scoring == "poste":  # the seat with the highest sum of settlements
        return np.array([1.0 if s == w else -1.0 for s in range(n)])
    return np.where(end.sides == w, 1.0, -1.0)


def trick_points(cards: np.ndarray, tricks: np.ndarray) -> np.ndarray:
    """(R,) the card points of trick ``tricks[r]`` of each row's card block ``cards`` (R, NC, 62),
    counted as one group (§3.2: Σv − cards + 1): what shaping pays for it."""
    in_trick = cards[:, TRICK_OF] == np.asarray(tricks)[:, None]
    return (in_trick * _VALUE).sum(axis=1) - in_trick.sum(axis=1) + 1


def trick_reward(game: str | GameSpec, mode: str, value: float, winner: int, sides: np.ndarray) -> np.ndarray:
    """(N,) shaping for one trick worth ``value`` card points, won by ``winner``."""
    spec = game_spec(game)
    n = len(sides)
    if spec.scoring == "penalty":
        out = np.zeros(n)
        out[winner] = -value / MATTAZZA_SHAPING  # every mode: a hand's reward is of the order of 1 in each
        return out
    scale = spec.reward_scale if mode != "score" else 1
    return np.where(sides == sides[winner], value, -value) / scale
