"""The end of a Tarocchino hand read from the game's state (docs/rules/tarocchino.md §§4.6, 7–14, U27).

The rows of a batch whose hand ended at a step are read from the state's named columns
(:mod:`.state`): each side's pile, tricks and declarations (:func:`side_piles`, a compiled
loop), then scored by the counts of :mod:`.scoring` (:func:`played_hands`). How a game scores
a played hand is data, its row's ``scoring`` looked up in :data:`HAND_SCORES` (two sides,
Terziglio's Poste, Mattazza's penalties), not a branch on the game; the game's options are read
once into :class:`EndOfHand`. A hand ended by a claim is scored with the claim
(:func:`.claims.claimed_hand`); the match that follows is :mod:`.settlement`'s.
``TarocchinoGame`` (:mod:`.game`) calls them at SCORE, after the Matto exchange.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tarot_env._jit import kernel
from tarot_env.cards.bolognese import NUM_CARDS
from tarot_env.rules.bolognese.game_specs import GameSpec
from tarot_env.rules.bolognese.scoring import (
    TERZIGLIO_CONTRACTS,
    HandScore,
    checked_hand_scores,
    mattazza_hand,
    quindici_round,
    terziglio_hand,
)
from tarot_env.rules.bolognese.seats import sides_rows
from tarot_env.rules.bolognese.state import (
    ACTIVE,
    CONTRACT,
    DECLARED,
    LAST_WINNER,
    O_MORI,
    PILE_OF,
    SOLOIST,
    TRICKS,
)

if TYPE_CHECKING:
    from tarot_env.rules.bolognese.config import TarocchinoConfig
    from tarot_env.rules.bolognese.state import TarocchinoState


@dataclass(frozen=True)
class EndOfHand:
    """What the end of a hand reads of one game's rules, read once from its config: the game's
    row, the player count, whether an episode is a match, and the options of the count (U5, U7,
    U11, U14, U16, U18) and of the end of the game (target, U9/U10 tie, §10.7 match hands, §14.6
    way). ``opts`` are the kernels' options (the sides' rule reads them). Options a game does
    not have are None."""

    spec: GameSpec
    num_players: int
    match: bool
    opts: np.ndarray
    mori: str
    keep_capotted: bool
    cappotto_bonus: int
    poste_rounding: str | None
    odd_pile: str | None
    full_count: bool | None
    target: int | None
    tie: str | None
    match_hands: int | None
    way: str | None

    @classmethod
    def of(cls, config: TarocchinoConfig) -> EndOfHand:
        o = config.options
        return cls(
            spec=config.spec, num_players=config.num_players, match=config.match, opts=config.kernel_options(),
            mori=o["mori"], keep_capotted=o.get("keep_capotted_declarations", True), cappotto_bonus=o.get("cappotto_bonus", 0),
            poste_rounding=o.get("poste_rounding"), odd_pile=o.get("odd_pile"), full_count=o.get("full_count"),
            target=o.get("target"), tie=o.get("tie"), match_hands=o.get("match_hands"), way=o.get("way"),
        )  # fmt: skip


class HandPoints:
    """The parts of one hand's score (by side, or by seat in Mattazza), kept as the batch's arrays
    until :meth:`of_hand` makes them plain numbers (half-points, Terziglio, as halves)."""

    __slots__ = ("capotted", "i", "parts", "scale")

    def __init__(self, parts: np.ndarray, capotted: np.ndarray, scale: int, i: int) -> None:
        self.parts, self.capotted, self.scale, self.i = parts, capotted, scale, i

    def of_hand(self) -> dict[str, Any]:
        values = self.parts[self.i] / self.scale if self.scale > 1 else self.parts[self.i]
        points = dict(zip(_PARTS, values.tolist()))
        points["capotted"] = self.capotted[self.i].tolist()
        return points


#: the parts of a hand's score, in the order of :class:`HandScore`'s fields
_PARTS = ("cards", "last_trick", "combinations", "declarations", "bonus", "total")


def _breakdowns(hs: HandScore) -> list[HandPoints | None]:
    """The parts of each row's hand score (:class:`HandPoints`, made plain numbers when read)."""
    parts = np.stack([hs.cards, hs.last_trick, hs.combinations, hs.declarations, hs.bonus, hs.total], axis=1)
    return [HandPoints(parts, hs.capotted, hs.scale, i) for i in range(len(parts))]


def seat_sides(rules: EndOfHand, state: TarocchinoState, rows: np.ndarray) -> np.ndarray:
    """(R, N) the side of each seat: partners seat % 2; Terziglio 0 the soloist, 1 the others;
    else the seat itself (the rule is :func:`.seats._side`)."""
    out = np.empty((len(rows), rules.num_players), dtype=np.int64)
    sides_rows(state.ints, np.asarray(rows, dtype=np.int64), rules.num_players, rules.opts, out)
    return out


@kernel
def side_piles_rows(rows, sides, cards, seat_ints, piles, tricks, decl):
    """Add up, for each of ``rows`` (``sides[i]``: the side of each seat), each side's pile (the
    cards its players won), tricks and declarations into ``piles`` (R, S, 62), ``tricks`` and
    ``decl`` (R, S), zeroed by the caller. A compiled loop: the scoring and the Matto exchange
    read it for every hand that ends (docs/performance.md, "What the kernels replaced")."""
    for i in range(rows.shape[0]):
        b = rows[i]
        for c in range(cards.shape[2]):
            holder = cards[b, PILE_OF, c]
            if holder >= 0:
                piles[i, sides[i, holder], c] = True
        for s in range(sides.shape[1]):
            tricks[i, sides[i, s]] += seat_ints[b, s, TRICKS]
            decl[i, sides[i, s]] += seat_ints[b, s, DECLARED]


def side_piles(rules: EndOfHand, state: TarocchinoState, rows: np.ndarray, sides: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(R, S, 62) each side's pile, (R, S) tricks won and declarations (S = 2, or N in Mattazza)
    (:func:`side_piles_rows`)."""
    S = 2 if rules.spec.two_sides else rules.num_players
    piles = np.zeros((len(rows), S, NUM_CARDS), dtype=bool)
    tricks = np.zeros((len(rows), S), dtype=np.int64)
    decl = np.zeros((len(rows), S), dtype=np.int64)
    side_piles_rows(np.asarray(rows, dtype=np.int64), sides, state.cards, state.seat_ints, piles, tricks, decl)
    return piles, tricks, decl


# --------------------------------------------------------------------------- a played hand, by mode
def played_hands(
    rules: EndOfHand, state: TarocchinoState, rows: np.ndarray, infos: list[dict[str, Any]]
) -> tuple[np.ndarray, list[HandPoints | None]]:
    """(R, N) each seat's score for the played hands ``rows`` (their Matto exchange made; see
    docs/tarocchino.md for each game), and each hand's score part by part (:class:`HandPoints`,
    the details' ``"points"``), by the game's row's ``scoring`` (:data:`HAND_SCORES`)."""
    for info in infos:
        info["result"] = "played"
        info["points"] = None  # each hand's HandPoints, made plain numbers when its details are read (HandEnd.info)
    sides = seat_sides(rules, state, rows)
    piles, tricks, decl = side_piles(rules, state, rows, sides)
    return HAND_SCORES[rules.spec.scoring](rules, state, rows, infos, sides, piles, tricks, decl)


def _poste_hand(
    rules: EndOfHand,
    state: TarocchinoState,
    rows: np.ndarray,
    infos: list[dict[str, Any]],
    sides: np.ndarray,
    piles: np.ndarray,
    tricks: np.ndarray,
    decl: np.ndarray,
) -> tuple[np.ndarray, list[HandPoints | None]]:
    """Terziglio (§10.6): the soloist against the other two, the winner's points in Poste, settled
    at once. A "di mio" Pozzo is already in the piles: the engine put it in the last trick's
    winner's pile before the Matto exchange (U25)."""
    ints = state.ints
    last = sides[np.arange(len(rows)), ints[rows, LAST_WINNER]]
    contract = ints[rows, CONTRACT]
    res = terziglio_hand(
        piles, tricks, last, ints[rows, SOLOIST], contract, decl, None,
        poste_rounding=rules.poste_rounding, odd_pile=rules.odd_pile, keep_capotted_declarations=rules.keep_capotted,
        cappotto_bonus=rules.cappotto_bonus, mori=rules.mori,
    )  # fmt: skip
    for i, info in enumerate(infos):
        info.update(
            soloist=int(ints[rows[i], SOLOIST]), contract=TERZIGLIO_CONTRACTS[int(contract[i])],
            soloist_won=bool(res.soloist_won[i]), winner_points=int(res.winner_points[i]), poste=int(res.poste[i]),
        )  # fmt: skip
    return res.settlement, _breakdowns(res.hand)


def _sides_hand(
    rules: EndOfHand,
    state: TarocchinoState,
    rows: np.ndarray,
    infos: list[dict[str, Any]],
    sides: np.ndarray,
    piles: np.ndarray,
    tricks: np.ndarray,
    decl: np.ndarray,
) -> tuple[np.ndarray, list[HandPoints | None]]:
    """Two sides, each counting its pile (§8.3, §11.7, §12.4; the state's arrays need no checks);
    Quindici rounds each side's score (§13) and keeps the raw one in the details."""
    last = sides[np.arange(len(rows)), state.ints[rows, LAST_WINNER]]
    hs = checked_hand_scores(
        piles, tricks, last, decl, group_size=2, half_points=False, odd_alone=False, mori_code=rules.opts[O_MORI],
        doubling=True, keep_capotted=rules.keep_capotted, cappotto_bonus=rules.cappotto_bonus,
    )  # fmt: skip
    side_scores = hs.total
    if rules.spec.rounded:
        for i, info in enumerate(infos):
            info["raw"] = [int(x) for x in side_scores[i]]
        side_scores = quindici_round(side_scores)
    return np.take_along_axis(side_scores, sides, axis=1), _breakdowns(hs)


def _penalty_hand(
    rules: EndOfHand,
    state: TarocchinoState,
    rows: np.ndarray,
    infos: list[dict[str, Any]],
    sides: np.ndarray,
    piles: np.ndarray,
    tricks: np.ndarray,
    decl: np.ndarray,
) -> tuple[np.ndarray, list[HandPoints | None]]:
    """Mattazza (§14.4–5): each for himself, among the players still in the match; the details
    name the hand's losers."""
    ints = state.ints
    R, n = len(rows), rules.num_players
    out = np.zeros((R, n), dtype=np.int64)
    points: list[HandPoints | None] = [None] * R  # every row is in one group below
    full = state.seat_ints[rows, :, ACTIVE].all(axis=1)
    groups = [(np.flatnonzero(full), np.arange(n))]
    groups += [(np.array([i]), np.flatnonzero(state.seat_ints[rows[i], :, ACTIVE])) for i in np.flatnonzero(~full)]
    for idx, active in groups:
        if not len(idx):
            continue
        lw = ints[rows[idx], LAST_WINNER]
        pos = np.searchsorted(active, lw)
        res = mattazza_hand(piles[idx][:, active], tricks[idx][:, active], pos, full_count=rules.full_count, mori=rules.mori)
        out[idx[:, None], active[None, :]] = res.hand.total
        for j, (i, parts) in enumerate(zip(idx, _breakdowns(res.hand))):
            points[i] = parts
            infos[i]["losers"] = [int(active[s]) for s in np.flatnonzero(res.losers[j])]
    return out, points


#: How each game scores a played hand, by its row's ``scoring`` (:data:`.game_specs.Scoring`): (R, N)
#: each seat's score of the hands and their parts.
HAND_SCORES: dict[str, Callable[..., tuple[np.ndarray, list[HandPoints | None]]]] = {
    "sides": _sides_hand,
    "poste": _poste_hand,
    "penalty": _penalty_hand,
}
