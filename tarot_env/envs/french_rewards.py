"""Rewards of the French Tarot environments (AEC and vector alike), batch-first.

| mode | terminal reward of each seat |
|---|---|
| ``"score"`` | the deal's score |
| ``"normalised"`` | score / (100 (N - 1)) |
| ``"win_loss"`` | sign of the score |

Shaping pays after each trick its card points, + to the side that won it and - to the other,
weighted by each seat's share of the score (taker N - 1, or 2 with a partner; partner and
defenders 1), times :func:`reward_scale`; the terminal reward is reduced by what was paid,
so a deal's rewards always sum to the unshaped terminal reward.
"""

from __future__ import annotations

import numpy as np

from tarot_env.cards.french import FRENCH_DECK, TOTAL_HALF_POINTS

_VALUE = FRENCH_DECK.value.astype(np.int64)


def reward_scale(mode: str, num_players: int) -> float:
    """What one point (of score, or of card points for shaping) is worth under ``mode``."""
    if mode == "normalised":
        return 1.0 / (100.0 * (num_players - 1))
    if mode == "win_loss":
        return 1.0 / (TOTAL_HALF_POINTS / 2 * (num_players - 1))
    return 1.0


def final_rewards(scores: np.ndarray, mode: str) -> np.ndarray:
    """(R, N) terminal rewards from the deals' scores (before shaping is taken off)."""
    scores = np.asarray(scores, dtype=float)
    if mode == "win_loss":
        return np.sign(scores)
    return scores * reward_scale(mode, scores.shape[-1])


def trick_rewards(game, s, rows: np.ndarray, mode: str) -> np.ndarray:
    """(R, N) shaping rewards for the trick each row has just completed (trick ``trick_no - 1``)."""
    n = game.num_players
    t = s.trick_no[rows] - 1
    points = ((s.trick_of[rows] == t[:, None]) @ _VALUE) / 2
    seats = np.arange(n)[None, :]
    attack = game.is_attack(s, rows[:, None], seats)
    n_attack = attack.sum(axis=1)
    share = np.ones((len(rows), n))
    share[np.arange(len(rows)), s.taker[rows]] = np.where(n_attack == 1, n - 1, 2)
    winner = s.winners[rows, t]
    won = attack == attack[np.arange(len(rows)), winner][:, None]
    return np.where(won, 1.0, -1.0) * share * points[:, None] * reward_scale(mode, n)
