"""A Tarocchino match's settlement: running totals, the end of the game, the next dealer.

The rules: docs/rules/tarocchino.md §8.4 end, §9, §10.7, §11–§14.

Two layers, in this order in the module:

- **The ends of a game**, pure functions over the running totals or penalties:
  :func:`game_result` (to a target, §8.4 end, §11.7, §12.3, §13; a tie U9),
  :func:`quattro_scartate_result` (a number of hands, §9; a tie U10),
  :func:`mattazza_standing` (the penalties' ways to end a game, §14.6).
- **On the game's state**: :func:`settle_matches` adds the scores of the hands that ended at a
  step (:mod:`.hand_end`) to the match, says whether it is over, who won and who deals next.
  How a game ends a match is data, its row's ``scoring`` looked up in :data:`MATCH_ENDS`, not a
  branch on the game.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tarot_env.rules.bolognese.game_specs import GAMES
from tarot_env.rules.bolognese.hand_end import seat_sides
from tarot_env.rules.bolognese.scoring import _check_option, _int_rows
from tarot_env.rules.bolognese.state import (
    ACTIVE,
    DEALER,
    GAME_WINNER,
    HANDS_PLAYED,
    PENALTY,
    RAW_TOTAL,
    RS_CLAIMED,
    RS_PLAYED,
    RS_WRONG_CLAIM,
    SOLOIST,
    TOTAL,
)

if TYPE_CHECKING:
    from tarot_env.rules.bolognese.hand_end import EndOfHand
    from tarot_env.rules.bolognese.state import TarocchinoState

#: Hands in a game of Quattro Scartate: each of the four players deals once (§9).
QUATTRO_SCARTATE_HANDS = GAMES["quattro_scartate"].game_hands
#: :func:`game_result` and friends: no winner yet, play another hand.
PLAY_ON = -1
#: :func:`game_result` and friends: the game ends drawn.
DRAW = -2
MATTAZZA_WAYS = ("target", "first_two")


# --------------------------------------------------------------------------- end of game
def game_result(totals: np.ndarray, target: int, *, tie: str = "play_on") -> np.ndarray:
    """End of game after a hand (§8.4 end, §11.7, §12.3, §13): (R,) winning side, or PLAY_ON / DRAW.

    ``totals`` (R, S) running totals after the hand. Nobody at the ``target``: play on. One
    side at or over it: that side wins. Several: the highest total wins; a tie for the highest
    is U9: ``tie="play_on"`` (default: play another hand) or ``"draw"``.
    """
    _check_option(tie, ("play_on", "draw"), "tie", "U9")
    tot = np.asarray(totals)
    if tot.ndim != 2 or not np.issubdtype(tot.dtype, np.integer):
        raise ValueError(f"totals must be integers of shape (R, S), got {tot.dtype} {tot.shape}")
    top = tot.max(axis=1)
    n_top = np.count_nonzero(tot == top[:, None], axis=1)
    reached = top >= target
    tied = DRAW if tie == "draw" else PLAY_ON
    return np.where(~reached, PLAY_ON, np.where(n_top > 1, tied, np.argmax(tot, axis=1))).astype(np.int64)


def quattro_scartate_result(
    totals: np.ndarray, hands_played: np.ndarray | int, *, tie: str = "draw", hands: int | None = QUATTRO_SCARTATE_HANDS
) -> np.ndarray:
    """End of a game of Quattro Scartate (§9): (R,) winning side, PLAY_ON or DRAW.

    There is no target and no claim: the game lasts ``hands`` hands (the game's row,
    :data:`QUATTRO_SCARTATE_HANDS`: each player deals once); then the higher total wins. On
    equal totals (U10): ``tie="draw"`` (default) or ``"extra_hand"``: play on, one hand at a
    time, until the totals differ.
    """
    _check_option(tie, ("draw", "extra_hand"), "tie", "U10")
    tot = np.asarray(totals)
    if tot.ndim != 2 or tot.shape[1] != 2 or not np.issubdtype(tot.dtype, np.integer):
        raise ValueError(f"totals must be integers of shape (R, 2), got {tot.dtype} {tot.shape}")
    h = _int_rows(hands_played, "hands_played", (len(tot),))
    done = h >= (QUATTRO_SCARTATE_HANDS if hands is None else hands)
    equal = tot[:, 0] == tot[:, 1]
    tied = DRAW if tie == "draw" else PLAY_ON
    return np.where(~done, PLAY_ON, np.where(equal, tied, np.argmax(tot, axis=1))).astype(np.int64)


@dataclass(frozen=True)
class MattazzaStanding:
    """The state of a Mattazza game after a hand (§14.6): ``out`` (R, n) bool, the players who
    have lost (and, with the target way, dropped out); ``over`` (R,) bool, whether the game
    has ended; the players not ``out`` when it is over are its winners."""

    out: np.ndarray
    over: np.ndarray


def mattazza_standing(penalties: np.ndarray, *, way: str = "target", target: int = 3) -> MattazzaStanding:
    """Where a Mattazza game stands (§14.6, [BY p.49]), from each player's penalty points (R, n).

    ``way="target"`` (a): a player who reaches ``target`` (usually 2–6; the spec names no
    default, 3 here) loses and drops out; the rest play on until only two are left (or fewer,
    when several drop out on one hand). ``way="first_two"`` (b), 3 or 4 players: the game ends
    when 2 players have reached 3 points, and they lose (all of them, if more reach it on the
    same hand); ``target`` is then 3 regardless (the rest of that rule is cut off in the source).
    """
    _check_option(way, MATTAZZA_WAYS, "way", "§14.6 (no U-number)")
    pen = np.asarray(penalties)
    if pen.ndim != 2 or not np.issubdtype(pen.dtype, np.integer):
        raise ValueError(f"penalties must be integers of shape (R, n), got {pen.dtype} {pen.shape}")
    if way == "target":
        out = pen >= target
        return MattazzaStanding(out, np.count_nonzero(~out, axis=1) <= 2)
    if pen.shape[1] not in (3, 4):
        raise ValueError("way='first_two' is the rule for 3 or 4 players")
    out = pen >= 3
    return MattazzaStanding(out, np.count_nonzero(out, axis=1) >= 2)


# --------------------------------------------------------------------------- the match
def settle_matches(
    rules: EndOfHand, state: TarocchinoState, rows: np.ndarray, result: np.ndarray, scores: np.ndarray, infos: list[dict[str, Any]]
) -> tuple[np.ndarray, np.ndarray]:
    """Running totals, the end of the game and the next dealer (§8.4 end, §9, §10.7, §11–§14), by
    the game's row's ``scoring`` (:data:`MATCH_ENDS`). Returns (R,) whether the match is over (a claim always ends
    it; with one deal per episode, never) and (R,) the next dealer."""
    ints = state.ints
    n, R = rules.num_players, len(rows)
    d = ints[rows, DEALER]
    next_dealer = (d + 1) % n
    over = np.zeros(R, dtype=bool)
    winner = np.full(R, -1, dtype=np.int64)
    claim = (result == RS_CLAIMED) | (result == RS_WRONG_CLAIM)
    over[claim] = True
    winner[claim] = ints[rows[claim], GAME_WINNER]
    idx = np.flatnonzero(result == RS_PLAYED)  # a thrown-in hand does not count (U12); a claim ends the game
    ints[rows[idx], HANDS_PLAYED] += 1
    end = MATCH_ENDS[rules.spec.scoring]
    end.match(rules, state, rows, idx, scores, infos, over, winner, next_dealer)
    for info, totals_row in zip(infos, state.seat_ints[rows, :, TOTAL].tolist()):
        info["totals"] = totals_row
    if end.names_winner:
        for i in np.flatnonzero(over).tolist():
            infos[i]["game_winner"] = "draw" if winner[i] == DRAW else int(winner[i])
            ints[rows[i], GAME_WINNER] = winner[i]
    return over & rules.match, next_dealer


def _add_totals(
    rules: EndOfHand,
    state: TarocchinoState,
    rows: np.ndarray,
    idx: np.ndarray,
    scores: np.ndarray,
    infos: list[dict[str, Any]],
    next_dealer: np.ndarray,
) -> np.ndarray:
    """A counted hand's scores added to the running totals (Quindici: the raw ones too, U24); the
    soloist deals next where the game's row says so (§10.7). Returns the rows counted."""
    ints, seat_ints = state.ints, state.seat_ints
    r = rows[idx]
    seat_ints[r, :, TOTAL] += scores[idx]
    if rules.spec.rounded:
        sides = seat_sides(rules, state, r)
        raw = np.array([infos[i]["raw"] for i in idx], dtype=np.int64).reshape(len(idx), 2)
        seat_ints[r, :, RAW_TOTAL] += np.take_along_axis(raw, sides, axis=1)
    if rules.spec.next_dealer == "soloist":
        next_dealer[idx] = ints[r, SOLOIST]
    return r


def _sides_match(
    rules: EndOfHand,
    state: TarocchinoState,
    rows: np.ndarray,
    idx: np.ndarray,
    scores: np.ndarray,
    infos: list[dict[str, Any]],
    over: np.ndarray,
    winner: np.ndarray,
    next_dealer: np.ndarray,
) -> None:
    """To a target (§8.4 end, §11.7, §12.3, §13; a tie U9), or a fixed number of hands (Quattro
    Scartate, §9; a tie U10)."""
    r = _add_totals(rules, state, rows, idx, scores, infos, next_dealer)
    totals = state.seat_ints[r][:, [0, 1], TOTAL]  # side 0 and side 1: seats 0 and 1 in every 2-side game here
    if rules.spec.game_hands is not None:
        res = quattro_scartate_result(totals, state.ints[r, HANDS_PLAYED], tie=rules.tie, hands=rules.spec.game_hands)
    else:
        res = game_result(totals, rules.target, tie=rules.tie)
    over[idx] = res != PLAY_ON
    winner[idx] = res


def _poste_match(
    rules: EndOfHand,
    state: TarocchinoState,
    rows: np.ndarray,
    idx: np.ndarray,
    scores: np.ndarray,
    infos: list[dict[str, Any]],
    over: np.ndarray,
    winner: np.ndarray,
    next_dealer: np.ndarray,
) -> None:
    """Terziglio (§10.7): every hand a game, settled at once; a match is ``match_hands`` hands,
    won by the highest total (a tie for it: a draw)."""
    r = _add_totals(rules, state, rows, idx, scores, infos, next_dealer)
    over[idx] = state.ints[r, HANDS_PLAYED] >= rules.match_hands
    tot = state.seat_ints[r, :, TOTAL]
    unique = np.count_nonzero(tot == tot.max(axis=1, keepdims=True), axis=1) == 1
    winner[idx] = np.where(unique, np.argmax(tot, axis=1), DRAW)


def _penalty_match(
    rules: EndOfHand,
    state: TarocchinoState,
    rows: np.ndarray,
    idx: np.ndarray,
    scores: np.ndarray,
    infos: list[dict[str, Any]],
    over: np.ndarray,
    winner: np.ndarray,
    next_dealer: np.ndarray,
) -> None:
    """Mattazza (§14.6): each loser of a hand takes a penalty point; players drop out at the target
    (or the first two to 3 lose); the nearest seat to the dealer's right still in deals next."""
    ints, seat_ints = state.ints, state.seat_ints
    n = rules.num_players
    r = rows[idx]
    losers = np.zeros((len(idx), n), dtype=bool)
    for j, i in enumerate(idx):
        losers[j, infos[i]["losers"]] = True
    seat_ints[r, :, PENALTY] += losers
    standing = mattazza_standing(seat_ints[r, :, PENALTY], way=rules.way, target=rules.target)
    if rules.way == "target":
        seat_ints[r, :, ACTIVE] = (~standing.out).astype(np.int64)
    over[idx] = standing.over
    for j, i in enumerate(idx):
        infos[i]["penalties"] = [int(x) for x in seat_ints[r[j], :, PENALTY]]
        if standing.over[j]:
            infos[i]["match_losers"] = [int(s) for s in np.flatnonzero(standing.out[j])]
    d = ints[rows, DEALER]
    nxt = np.full(len(rows), -1, dtype=np.int64)
    for step in range(n, 0, -1):  # the nearest seat to the dealer's right still in
        cand = (d + step) % n
        nxt = np.where(seat_ints[rows, cand, ACTIVE] == 1, cand, nxt)
    next_dealer[:] = nxt


@dataclass(frozen=True)
class MatchEnd:
    """How a game ends a match (its row's ``scoring``): ``match`` adds a counted hand to the
    match and says whether it is over, who won and who deals next; ``names_winner``: whether a
    match ends with a winner (``GAME_WINNER``, the details' ``"game_winner"``), as the sides'
    and the Poste's do, not Mattazza's, which ends with losers."""

    match: Callable[..., None]
    names_winner: bool


#: How each game ends a match, by its row's ``scoring`` (:data:`.game_specs.Scoring`).
MATCH_ENDS: dict[str, MatchEnd] = {
    "sides": MatchEnd(_sides_match, names_winner=True),
    "poste": MatchEnd(_poste_match, names_winner=True),
    "penalty": MatchEnd(_penalty_match, names_winner=False),
}
