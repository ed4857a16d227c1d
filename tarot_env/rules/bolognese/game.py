"""A Tarocchino game over a batch of tables: deals, decisions and the end of each hand.

:class:`TarocchinoGame` routes a batch of actions to the state machine of :mod:`.engine` and
its phase modules (one implementation, compiled by numba when it is installed) and does the arithmetic that
runs once a hand in NumPy, from the tested building blocks:

- dealing (:mod:`.deal`): random packs or fixed deals, the dealer's last 2 cards, the Pozzo,
  Millone's second deal, the cards out of play;
- ``PREPARE`` (hands final, before the first card): the value of each player's declaration
  and the cards it would show (§7), and what each may use to claim (§8.4; Millone: first-deal
  cards only, §11.6), by :func:`.claims.declarations_rows`;
- ``SCORE`` (the hand is over): the automatic Matto exchange (§4.5, U3, U20; on the final
  piles, U25: :func:`.matto.auto_exchange_rows`), the hand's scores (:mod:`.scoring`; a claimed
  hand: the declarations made, U27), and in a match the running totals, the end of the game
  and the next deal.

Seats are absolute and in play order; the first player dealt to and the Primo di Mano is the
dealer's right, ``dealer + 1``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tarot_env._jit import njit
from tarot_env.cards.bolognese import NUM_CARDS
from tarot_env.rules.bolognese import engine
from tarot_env.rules.bolognese.claims import claim_values_at_deal_rows, declarations_rows, declarations_rows_parallel
from tarot_env.rules.bolognese.config import TarocchinoConfig
from tarot_env.rules.bolognese.deal import EXTRA, HAND, OUT, POZZO, SECOND, deal_destinations, format_deal, parse_deal
from tarot_env.rules.bolognese.matto import auto_exchange_rows, auto_exchange_rows_parallel
from tarot_env.rules.bolognese.scoring import (
    DRAW,
    PLAY_ON,
    TERZIGLIO_CONTRACTS,
    checked_hand_scores,
    declaration_points,
    game_result,
    mattazza_hand,
    mattazza_standing,
    quattro_scartate_result,
    quindici_round,
    terziglio_hand,
)
from tarot_env.rules.bolognese.seats import sides_rows
from tarot_env.rules.bolognese.state import (
    ACTIVE,
    CLAIM_DECL,
    CLAIM_SEAT,
    CLAIM_VALUE,
    CONTRACT,
    DEALER,
    DEALT_TO,
    DECL,
    DECLARED,
    FIRST,
    GAME_WINNER,
    HAND_NO,
    HAND_OF,
    HANDS_PLAYED,
    LAST_WINNER,
    MATCH_OVER,
    N_ACTIVE,
    NUM_ACTIONS,
    O_MORI,
    PENALTY,
    PH_DONE,
    PH_PREPARE,
    PH_SCORE,
    PHASE,
    PICKUP_DECL,
    PILE_OF,
    PL_EXTRA,
    PL_HAND,
    PL_OUT,
    PL_POZZO,
    PL_SECOND,
    PLACE,
    RAW_TOTAL,
    RESULT,
    RS_CLAIMED,
    RS_PLAYED,
    RS_THROWN_IN,
    RS_WRONG_CLAIM,
    SCORE,
    SOLOIST,
    TOTAL,
    TRICKS,
    W_FIRST_TURN,
    W_PICKUP,
    WINDOW,
    TarocchinoState,
)

_PLACE_OF_DEST = np.zeros(5, dtype=np.int64)  # deal.py place codes -> state PLACE codes
for _k, _v in {HAND: PL_HAND, EXTRA: PL_EXTRA, SECOND: PL_SECOND, POZZO: PL_POZZO, OUT: PL_OUT}.items():
    _PLACE_OF_DEST[_k] = _v


def place_cards(rows, packs, seats, offset, place, cards):
    """Each card ``packs[i, j]`` of row ``rows[i]`` goes where pack position ``j`` is dealt: to
    the seat ``seats[i, offset[j]]`` (``offset[j]``: the receiver's offset from the dealer's right,
    -1 none; ``seats[i, o]``: the seat at offset ``o`` in row ``i``) and place ``place[j]`` (a
    state PLACE code); cards dealt to a hand (first cards or extras) are held by that seat and
    are first-deal cards. A compiled loop: its NumPy version (four scatters of the whole pack)
    cost ~0.12 ms of a vector step at 4,096 tables, every step, on the calling thread, and the
    seat of each position worked out in NumPy another ~0.03 ms."""
    for i in range(rows.shape[0]):
        b = rows[i]
        for j in range(packs.shape[1]):
            c = packs[i, j]
            seat = seats[i, offset[j]] if offset[j] >= 0 else -1
            in_hand = place[j] == PL_HAND or place[j] == PL_EXTRA
            cards[b, DEALT_TO, c] = seat
            cards[b, PLACE, c] = place[j]
            cards[b, HAND_OF, c] = seat if in_hand else -1
            cards[b, FIRST, c] = in_hand


def side_piles_rows(rows, sides, cards, seat_ints, piles, tricks, decl):
    """Add up, for each of ``rows`` (``sides[i]``: the side of each seat), each side's pile (the
    cards its players won), tricks and declarations into ``piles`` (R, S, 62), ``tricks`` and
    ``decl`` (R, S), zeroed by the caller. A compiled loop: the scoring and the Matto exchange
    read it for every hand that ends, and its NumPy version cost ~0.08 ms a call at 4,096 tables."""
    for i in range(rows.shape[0]):
        b = rows[i]
        for c in range(cards.shape[2]):
            holder = cards[b, PILE_OF, c]
            if holder >= 0:
                piles[i, sides[i, holder], c] = True
        for s in range(sides.shape[1]):
            tricks[i, sides[i, s]] += seat_ints[b, s, TRICKS]
            decl[i, sides[i, s]] += seat_ints[b, s, DECLARED]


place_cards = njit(place_cards) or place_cards
side_piles_rows = njit(side_piles_rows) or side_piles_rows
#: per-hand fields reset at each new deal (match-level ones survive: totals, penalties, who is still in)
_MATCH_INTS = (DEALER, HAND_NO, MATCH_OVER, N_ACTIVE, HANDS_PLAYED)
_MATCH_SEAT = (TOTAL, RAW_TOTAL, PENALTY, ACTIVE)


@dataclass
class MatchDeals:
    """An episode's deals, per row, kept by the env that plays them (not by the rules).

    The rules read ``queued`` when a match needs its next hand (fixed deals given at reset,
    docs/interface.md §4) and append to ``dealt`` every deal they make (records need them).
    """

    #: fixed deals waiting, per row, for the next hands of a match: lists of (dealer, pack, active seats or None)
    queued: dict[int, list[tuple[int, np.ndarray, tuple[int, ...] | None]]] = field(default_factory=dict)
    #: the deals dealt, per row, in the current episode: (dealer, pack, active seats)
    dealt: dict[int, list[tuple[int, np.ndarray, tuple[int, ...]]]] = field(default_factory=dict)
    #: whether to keep the deals dealt (a vector env without records does not)
    keep: bool = True

    def clear(self, rows: Any = None) -> None:
        """Forget the deals of ``rows`` (every row when None): their episodes start again."""
        if rows is None:
            self.queued.clear()
            self.dealt.clear()
            return
        for r in rows:
            self.queued.pop(r, None)
            self.dealt.pop(r, None)


class HandEnd:
    """A hand that ended at a step: its row, how it ended, each seat's score, whether the
    match is over, the side of each seat and whether each played it (``sides``, ``active``:
    (N,) arrays), and the details an env reports (``info``).

    ``info["points"]``, the hand's score part by part (:class:`HandPoints`), is built when
    ``info`` is first read: a vector step at 4,096 tables ends about 64 hands, and building
    every one's parts as Python numbers, read or not, cost ~0.2 ms of a one-thread Ottocento
    step, most of it in the garbage collector (docs/performance.md)."""

    __slots__ = ("_info", "_points", "active", "match_over", "result", "row", "scores", "sides")

    def __init__(
        self,
        row: int,
        result: str,
        scores: list[int],
        info: dict[str, Any] | None = None,
        match_over: bool = False,
        sides: np.ndarray | None = None,
        active: np.ndarray | None = None,
        points: HandPoints | None = None,
    ) -> None:
        self.row, self.result, self.scores, self.match_over = row, result, scores, match_over
        self.sides = np.zeros(0, dtype=np.int64) if sides is None else sides
        self.active = np.zeros(0, dtype=bool) if active is None else active
        self._info = {} if info is None else info
        self._points = points

    @property
    def info(self) -> dict[str, Any]:
        """The details: ``hand``, ``result``, ``points`` (a played hand) and what each game adds."""
        if self._points is not None:  # the key is in place (TarocchinoGame._hand_points); its value now
            self._info["points"], self._points = self._points.of_hand(), None
        return self._info

    def __eq__(self, other: object) -> bool:
        """Equal when every field and every detail is (the copies of an env, two runs of one seed)."""
        if not isinstance(other, HandEnd):
            return NotImplemented
        mine = (self.row, self.result, list(self.scores), self.match_over, self.info)
        theirs = (other.row, other.result, list(other.scores), other.match_over, other.info)
        return mine == theirs and np.array_equal(self.sides, other.sides) and np.array_equal(self.active, other.active)

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it replaced

    def __repr__(self) -> str:
        return (
            f"HandEnd(row={self.row}, result={self.result!r}, scores={self.scores}, info={self.info!r}, "
            f"match_over={self.match_over}, sides={self.sides.tolist()}, active={self.active.tolist()})"
        )


class HandEnds(list):
    """The hands that ended at one step: a list of :class:`HandEnd`, in row order, with their rows,
    scores and sides also as arrays (``rows`` (E,), ``scores`` and ``sides`` (E, N)), as the step
    computed them. The vector env's rewards read the arrays: gathering them back from ~64
    objects a step at 4,096 tables cost ~0.05 ms on the calling thread."""

    def __init__(self, ends: list[HandEnd], rows: np.ndarray, scores: np.ndarray, sides: np.ndarray) -> None:
        super().__init__(ends)
        self.rows, self.scores, self.sides = rows, scores, sides

    @classmethod
    def none(cls, num_players: int) -> HandEnds:
        """No hand ended (the arrays empty, with their shapes)."""
        return cls([], np.zeros(0, dtype=np.int64), np.zeros((0, num_players), dtype=np.int64), np.zeros((0, num_players), dtype=np.int64))


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


#: the parts of a hand's score, in the order of :class:`.scoring.HandScore`'s fields
_PARTS = ("cards", "last_trick", "combinations", "declarations", "bonus", "total")


class TarocchinoGame:
    """The rules of one Tarocchino game (:class:`.config.TarocchinoConfig`) over batches of tables.

    What differs between the games is read from the game's row, ``self.spec``
    (:class:`.games.GameSpec`), never from its name."""

    def __init__(self, config: TarocchinoConfig) -> None:
        self.config = config
        self.game = config.game
        self.spec = config.spec
        self.num_players = config.num_players
        self.num_actions = NUM_ACTIONS
        self.num_tricks = config.num_tricks
        self.opts = config.kernel_options()
        self._second_first = config.options.get("second_deal_first", "opponent")
        self.dest = deal_destinations(self.spec, self.num_players, second_deal_first=self._second_first)
        self.two_sides = self.spec.two_sides
        self._fresh = TarocchinoState.new(1, self.num_players)  # a new hand's fields (broadcast to the rows dealt)
        self._mori = config.mori

    # ------------------------------------------------------------------ state
    def new_state(self, batch: int) -> TarocchinoState:
        return TarocchinoState.new(batch, self.num_players)

    def side_of(self, state: TarocchinoState, row: int, seat: int) -> int:
        """The side of ``seat`` at ``row`` (see :meth:`sides`)."""
        return int(self.sides(state, row)[seat])

    def sides(self, state: TarocchinoState, row: int) -> np.ndarray:
        """(N,) the side of each seat at ``row`` (see :meth:`_sides`)."""
        return self._sides(state, np.array([row], dtype=np.int64))[0]

    # ------------------------------------------------------------------ deals
    def destinations(self, num_active: int):
        if num_active == self.num_players:
            return self.dest
        return deal_destinations(self.spec, num_active, second_deal_first=self._second_first)

    def active_seats(self, state: TarocchinoState, row: int) -> tuple[int, ...]:
        return tuple(int(s) for s in np.flatnonzero(state.seat_ints[row, :, ACTIVE]))

    def parse_deal(self, deal: Any, active: tuple[int, ...] | None = None) -> tuple[int, np.ndarray]:
        """A fixed deal (docs/interface.md §4) checked -> ``(dealer, pack)``; seats out of a Mattazza
        match (``active`` excludes them) must have empty hands."""
        n = self.num_players
        if active is None or len(active) == n:
            return parse_deal(self.dest, deal)
        dest = self.destinations(len(active))
        if isinstance(deal, dict) and isinstance(deal.get("hands"), (list, tuple)) and len(deal["hands"]) == n:
            out = [s for s in range(n) if s not in active and deal["hands"][s]]
            if out:
                raise ValueError(f"malformed deal: seats {out} are out of the match and get no cards; give them empty hands")
            if deal.get("dealer") not in active:
                raise ValueError(f"malformed deal: the dealer must be a seat still in the match {list(active)}, got {deal.get('dealer')!r}")
            sub = dict(deal, dealer=active.index(deal["dealer"]), hands=[deal["hands"][s] for s in active])
            d, pack = parse_deal(dest, sub)
            return active[d], pack
        return parse_deal(dest, deal)  # raises the shape error

    def format_deal(self, dealer: int, pack: np.ndarray, active: tuple[int, ...]) -> dict[str, Any]:
        n = self.num_players
        if len(active) == n:
            return format_deal(self.dest, dealer, pack)
        sub = format_deal(self.destinations(len(active)), active.index(dealer), pack)
        hands: list[list[str]] = [[] for _ in range(n)]
        for i, s in enumerate(active):
            hands[s] = sub["hands"][i]
        return {"dealer": int(dealer), "hands": hands, "rest": sub["rest"]}

    def start_deals(
        self,
        state: TarocchinoState,
        rows: np.ndarray,
        dealers: np.ndarray,
        packs: np.ndarray,
        new_match: bool = True,
        totals: np.ndarray | None = None,
        deals: MatchDeals | None = None,
    ) -> HandEnds:
        """Deal ``packs`` (R, 62) from ``dealers`` at ``rows`` and run to the first decision.

        ``new_match`` clears the running totals (a new episode); False keeps them (the next
        hand of a match). Returns hands that ended before any decision (none today: every
        game asks something first), for symmetry with :meth:`step`. ``totals`` (R, N) sets
        the running totals of a new episode (a deal played at a given score, e.g. to claim).
        ``deals`` keeps the deals made and holds the fixed deals queued for the match's next hands.
        """
        rows = np.asarray(rows, dtype=np.int64)
        ints, seat_ints, cards, hist, legal = state.blocks
        if not new_match:  # the match's fields survive the fresh blocks
            keep_i = ints[rows][:, list(_MATCH_INTS)]
            keep_s = seat_ints[rows][:, :, list(_MATCH_SEAT)]
        ints[rows], seat_ints[rows], cards[rows], hist[rows], legal[rows] = self._fresh.blocks
        if not new_match:
            ints[np.ix_(rows, list(_MATCH_INTS))] = keep_i
            seat_ints[np.ix_(rows, np.arange(self.num_players), list(_MATCH_SEAT))] = keep_s
            ints[rows, HAND_NO] += 1
        else:
            if deals is not None and deals.keep:
                for r in rows.tolist():
                    deals.dealt[r] = []
            if totals is not None:
                seat_ints[rows, :, TOTAL] = totals
                if self.spec.rounded:  # totals are rounded points; their raw reading is 10 points each (U24)
                    seat_ints[rows, :, RAW_TOTAL] = 10 * np.asarray(totals)
        ints[rows, DEALER] = dealers
        full = seat_ints[rows, :, ACTIVE].all(axis=1)
        if full.any():  # every seat in the game: one vectorised placement
            self._place(state, rows[full], dealers[full], packs[full], self.dest, None)
        for i in np.flatnonzero(~full):  # a Mattazza match after players dropped out
            active = self.active_seats(state, int(rows[i]))
            pos = active.index(int(dealers[i]))
            order = np.array([active[(pos + 1 + o) % len(active)] for o in range(len(active))])  # offset -> seat, the dealer last
            self._place(state, rows[i : i + 1], dealers[i : i + 1], packs[i : i + 1], self.destinations(len(active)), order)
        if deals is not None and deals.keep:
            for i, r in enumerate(rows.tolist()):
                deals.dealt.setdefault(r, []).append((int(dealers[i]), packs[i].copy(), self.active_seats(state, r)))
        self._claim_values_at_deal(state, rows)
        if engine.start_hands(ints, seat_ints, cards, legal, rows, self.opts) == 0:
            return HandEnds.none(self.num_players)
        return self._settle(state, rows, None, deals)

    def _place(
        self, state: TarocchinoState, rows: np.ndarray, dealers: np.ndarray, packs: np.ndarray, dest: Any, order: np.ndarray | None
    ) -> None:
        """Put the cards of ``packs`` where ``dest`` deals them from ``dealers`` (offset -> seat:
        ``order``, or the dealer's right first when every seat plays)."""
        n = self.num_players
        seats = (dealers[:, None] + 1 + np.arange(n)) % n if order is None else order[None, :]  # offset o -> seat
        place_cards(rows, packs, seats, dest.seat, _PLACE_OF_DEST[dest.place], state.cards)
        state.ints[rows, N_ACTIVE] = np.count_nonzero(state.seat_ints[rows, :, ACTIVE], axis=1)

    def shuffle_and_deal(
        self, state: TarocchinoState, rows: np.ndarray, dealers: np.ndarray, rng: np.random.Generator, deals: MatchDeals | None = None
    ) -> HandEnds:
        packs = np.argsort(rng.random((len(rows), NUM_CARDS)), axis=1)
        return self.start_deals(state, rows, dealers, packs, deals=deals)

    def _claim_values_at_deal(self, state: TarocchinoState, rows: np.ndarray) -> None:
        """The declaration values of the claim windows before play (§8.4.1, §11.3, U21):
        :func:`.claims.claim_values_at_deal_rows`."""
        claim_values_at_deal_rows(state.ints, state.seat_ints, state.cards, rows, self.opts)

    def declaration_values(self, hands: np.ndarray) -> np.ndarray:
        """The value of declaring each hand (§7): combinations valued as in §6, U5 and U6.
        Without declarations (``declarations=False``, Mattazza) a hand declares nothing, and
        so nothing can serve a claim either."""
        if not self.config.options.get("declarations", False):
            return np.zeros(len(hands), dtype=np.int64)
        return declaration_points(hands, mori=self._mori, doubling=self.config.options.get("doubling", True))

    # ------------------------------------------------------------------ steps
    def step(
        self,
        state: TarocchinoState,
        rows: np.ndarray,
        actions: np.ndarray,
        rng: np.random.Generator | None = None,
        deals: MatchDeals | None = None,
        parallel: bool = False,
    ) -> HandEnds:
        """Apply one legal action per row (the caller has checked ``state.legal``), then run
        the NumPy phases the rows reached. Returns the hands that ended. A match's next hand
        is dealt from ``deals.queued`` when a fixed deal waits there, else shuffled with ``rng``.

        ``parallel``: the compiled step runs its variant whose row loop runs on numba's threads
        (:mod:`tarot_env._threads`); the NumPy phases after it (scoring, a match's next deal,
        which draws from ``rng``) stay on this thread, in row order."""
        ints, seat_ints, cards, hist, legal = state.blocks
        kernel = engine.step_rows_parallel if parallel else engine.step_rows
        if kernel(ints, seat_ints, cards, hist, legal, rows, actions, self.opts) == 0:
            return HandEnds.none(self.num_players)
        return self._settle(state, rows, rng, deals, parallel)

    def _settle(
        self,
        state: TarocchinoState,
        rows: np.ndarray,
        rng: np.random.Generator | None,
        deals: MatchDeals | None = None,
        parallel: bool = False,
    ) -> HandEnds:
        """The rows the compiled step stopped at PREPARE or SCORE (``parallel``: the compiled
        loops of both, the declarations and the Matto exchange, on numba's threads)."""
        phase = state.ints[rows, PHASE]
        if np.any(phase == PH_PREPARE):
            self._prepare(state, rows[phase == PH_PREPARE], parallel)
            phase = state.ints[rows, PHASE]
        scoring = rows[phase == PH_SCORE]
        return self._score_rows(state, scoring, rng, deals, parallel) if len(scoring) else HandEnds.none(self.num_players)

    def _prepare(self, state: TarocchinoState, rows: np.ndarray, parallel: bool = False) -> None:
        """Hands are final: each seat's declaration value, its claim value, the cards a
        declaration shows (:func:`.claims.declarations_rows`); then the first trick."""
        ints, seat_ints, cards, _, legal = state.blocks
        (declarations_rows_parallel if parallel else declarations_rows)(seat_ints, cards, rows, self.opts)
        engine.start_plays(ints, seat_ints, cards, legal, rows, self.opts)

    # ------------------------------------------------------------------ the end of a hand
    def _score_rows(
        self,
        state: TarocchinoState,
        rows: np.ndarray,
        rng: np.random.Generator | None,
        deals: MatchDeals | None,
        parallel: bool = False,
    ) -> HandEnds:
        """Score the hands that ended at ``rows`` (all at once), settle the match, deal the next hands."""
        ints, seat_ints = state.ints, state.seat_ints
        n, R = self.num_players, len(rows)
        result = ints[rows, RESULT]
        result[result == 0] = RS_PLAYED
        ints[rows, RESULT] = result
        hand_no = ints[rows, HAND_NO]
        infos: list[dict[str, Any]] = [{"hand": h} for h in hand_no.tolist()]
        scores = np.zeros((R, n), dtype=np.int64)
        points: list[HandPoints | None] = [None] * R
        played = np.flatnonzero(result == RS_PLAYED)
        if len(played):
            self._auto_exchange(state, rows[played], parallel)
            scores[played], parts = self._hand_points(state, rows[played], [infos[i] for i in played])
            for i, part in zip(played.tolist(), parts):
                points[i] = part
        for i in np.flatnonzero(result != RS_PLAYED):
            r = int(rows[i])
            if result[i] == RS_THROWN_IN:
                infos[i]["result"] = "thrown_in"
                continue
            claimer = int(ints[r, CLAIM_SEAT])
            side = self.side_of(state, r, claimer)
            ok = result[i] == RS_CLAIMED
            infos[i].update(result="claimed" if ok else "wrong_claim", claimer=claimer, claim_value=int(ints[r, CLAIM_VALUE]))
            if ok:
                scores[i] = self._claimed_scores(state, r, claimer, side)
        seat_ints[rows, :, SCORE] = scores
        sides = self._sides(state, rows)
        active = seat_ints[rows, :, ACTIVE] == 1
        over, next_dealer = self._after_hands(state, rows, result, scores, infos)
        score_list, over_list = scores.tolist(), over.tolist()
        ends = HandEnds(
            [
                HandEnd(r, info["result"], sc, info, ov, sd, ac, pt)
                for r, info, sc, ov, sd, ac, pt in zip(rows.tolist(), infos, score_list, over_list, sides, active, points)
            ],
            rows,
            scores,
            sides,
        )
        finished = over | (not self.config.match)
        done = rows[finished]
        ints[done, PHASE] = PH_DONE
        ints[done, MATCH_OVER] = 1
        state.legal[done] = False
        go_on, packs = [], []
        for i in np.flatnonzero(~finished).tolist():
            r = int(rows[i])
            queued = None if deals is None else deals.queued.get(r)
            if queued:
                pack, why = self._next_queued(state, r, int(next_dealer[i]), queued)
                if why is not None:  # a fixed deal the match cannot follow: the episode stops here
                    ends[i].info["truncated"] = why
                    ends[i].match_over = True
                    ints[r, PHASE] = PH_DONE
                    ints[r, MATCH_OVER] = 1
                    state.legal[r] = False
                    continue
            else:
                if rng is None:
                    raise RuntimeError("the next hand of a match needs a random generator (or queued fixed deals)")
                pack = np.argsort(rng.random(NUM_CARDS))
            go_on.append(i)
            packs.append(pack)
        if go_on:
            self.start_deals(state, rows[go_on], next_dealer[go_on], np.stack(packs), new_match=False, deals=deals)
        return ends

    def _claimed_scores(self, state: TarocchinoState, r: int, claimer: int, side: int) -> np.ndarray:
        """(N,) each seat's score of a hand ended by a correct claim (U27): every declaration made
        so far in the hand counts for its side, as §7 records it at once. The claiming side has
        the declaration the claimer claimed with (in Ottocento's §8.4 step 4 the Primo's is part of
        his claim, and counted once, as the Primo declared it) and what its players declared
        before; the other side what its players declared. At a Millone first turn the claim counted
        only the first-deal cards of his declaration toward the target, yet it is the declaration he
        makes there, so the whole of it is credited (U29, §11.6). Quindici: rounded (q) as a hand
        score is (§13, U15); the claimer's part is the rounded value his claim used (U24)."""
        ints, seat_ints = state.ints, state.seat_ints
        sides = self.sides(state, r)
        declared = np.bincount(sides, weights=seat_ints[r, :, DECLARED], minlength=2).astype(np.int64)
        used = int(ints[r, CLAIM_VALUE]) - int(seat_ints[r, claimer, TOTAL])
        if self.spec.rounded:  # Quindici, two players: the claimer has declared nothing yet
            credit = quindici_round(declared)
            credit[side] += used
        else:  # the declaration the claimer makes with the cards he holds at his window
            window = int(ints[r, WINDOW])
            if window == W_PICKUP:  # his first cards, before he picks up his last 2 (§8.4.1)
                own = int(ints[r, PICKUP_DECL])
            elif window == W_FIRST_TURN:  # his whole declaration, though Millone's claim counted only its first-deal cards (U29, §11.6)
                own = int(seat_ints[r, claimer, DECL])
            else:  # the opponent's right after the pickup: his hand before any discard (§11.3, U21)
                own = int(seat_ints[r, claimer, CLAIM_DECL])
            credit = declared
            credit[side] += own
        return credit[sides]

    def _next_queued(self, state: TarocchinoState, r: int, dealer: int, queued: list) -> tuple[np.ndarray, str | None]:
        """The next fixed deal of a match, and why it cannot be played (None when it can): its
        dealer and players must be those the rules name now. Where they are known in advance
        the env checks them at reset; where play decides them (the Terziglio soloist deals
        next, Mattazza players drop out) the episode is truncated here, with this reason."""
        q_dealer, pack, q_active = queued.pop(0)
        active = self.active_seats(state, r)
        if q_dealer != dealer or (q_active is not None and tuple(q_active) != active):
            return pack, (
                f"the fixed deal deals[{int(state.ints[r, HAND_NO]) + 1}] has dealer {q_dealer}"
                + (f" and players {list(q_active)}" if q_active else "")
                + f", but the rules name dealer {dealer} and players {list(active)}: later deals must follow the match"
            )
        return pack, None

    def _sides(self, state: TarocchinoState, rows: np.ndarray) -> np.ndarray:
        """(R, N) the side of each seat: partners seat % 2; Terziglio 0 the soloist, 1 the others;
        else the seat itself (the rule is :func:`.seats._side`)."""
        out = np.empty((len(rows), self.num_players), dtype=np.int64)
        sides_rows(state.ints, np.asarray(rows, dtype=np.int64), self.num_players, self.opts, out)
        return out

    def _side_piles(self, state: TarocchinoState, rows: np.ndarray, sides: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(R, S, 62) each side's pile, (R, S) tricks won and declarations (S = 2, or N in Mattazza)
        (:func:`side_piles_rows`)."""
        S = 2 if self.two_sides else self.num_players
        piles = np.zeros((len(rows), S, NUM_CARDS), dtype=bool)
        tricks = np.zeros((len(rows), S), dtype=np.int64)
        decl = np.zeros((len(rows), S), dtype=np.int64)
        side_piles_rows(np.asarray(rows, dtype=np.int64), sides, state.cards, state.seat_ints, piles, tricks, decl)
        return piles, tricks, decl

    def _auto_exchange(self, state: TarocchinoState, rows: np.ndarray, parallel: bool = False) -> None:
        """The automatic Matto exchange of the played hands ``rows`` (§4.5, U3, U20): :func:`.matto.auto_exchange_rows`."""
        kernel = auto_exchange_rows_parallel if parallel else auto_exchange_rows
        kernel(state.ints, state.cards, np.asarray(rows, dtype=np.int64), self.opts)

    def _hand_points(
        self, state: TarocchinoState, rows: np.ndarray, infos: list[dict[str, Any]]
    ) -> tuple[np.ndarray, list[HandPoints | None]]:
        """(R, N) each seat's score for the played hands (see docs/tarocchino.md for each game),
        and each hand's score part by part (:class:`HandPoints`, the details' ``"points"``)."""
        o = self.config.options
        ints = state.ints
        R, n = len(rows), self.num_players
        k = np.arange(R)
        sides = self._sides(state, rows)
        piles, tricks, decl = self._side_piles(state, rows, sides)
        last = sides[k, ints[rows, LAST_WINNER]]
        common = {"mori": self._mori}
        for info in infos:
            info["result"] = "played"
            info["points"] = None  # each hand's HandPoints, made plain numbers when its details are read (HandEnd.info)
        if self.spec.scoring == "poste":  # Terziglio (§10.6)
            contract = ints[rows, CONTRACT]
            # a "di mio" Pozzo is already in the piles: the engine put it in the last trick's
            # winner's pile before the Matto exchange (U25)
            res = terziglio_hand(
                piles, tricks, last, ints[rows, SOLOIST], contract, decl, None,
                poste_rounding=o["poste_rounding"], odd_pile=o["odd_pile"],
                keep_capotted_declarations=o["keep_capotted_declarations"], cappotto_bonus=o["cappotto_bonus"], **common,
            )  # fmt: skip
            for i, info in enumerate(infos):
                info.update(
                    soloist=int(ints[rows[i], SOLOIST]), contract=TERZIGLIO_CONTRACTS[int(contract[i])],
                    soloist_won=bool(res.soloist_won[i]), winner_points=int(res.winner_points[i]), poste=int(res.poste[i]),
                )  # fmt: skip
            return res.settlement, _breakdowns(res.hand)
        if self.two_sides:  # §8.3, §11.7, §12.4: each side counts its pile (the state's arrays need no checks)
            hs = checked_hand_scores(
                piles, tricks, last, decl, group_size=2, half_points=False, odd_alone=False, mori_code=self.opts[O_MORI],
                doubling=True, keep_capotted=o["keep_capotted_declarations"], cappotto_bonus=o["cappotto_bonus"],
            )  # fmt: skip
            side_scores = hs.total
            if self.spec.rounded:  # Quindici (§13)
                for i, info in enumerate(infos):
                    info["raw"] = [int(x) for x in side_scores[i]]
                side_scores = quindici_round(side_scores)
            return np.take_along_axis(side_scores, sides, axis=1), _breakdowns(hs)
        # Mattazza: each for himself, among the players still in the match
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
            res = mattazza_hand(piles[idx][:, active], tricks[idx][:, active], pos, full_count=o["full_count"], **common)
            out[idx[:, None], active[None, :]] = res.hand.total
            for j, (i, parts) in enumerate(zip(idx, _breakdowns(res.hand))):
                points[i] = parts
                infos[i]["losers"] = [int(active[s]) for s in np.flatnonzero(res.losers[j])]
        return out, points

    def _after_hands(
        self, state: TarocchinoState, rows: np.ndarray, result: np.ndarray, scores: np.ndarray, infos: list[dict[str, Any]]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Running totals, the end of the game and the next dealer (§8.4 end, §9, §10.7, §11–§14).
        Returns (R,) whether the match is over (a claim always ends it) and (R,) the next dealer."""
        ints, seat_ints = state.ints, state.seat_ints
        n, R = self.num_players, len(rows)
        c = self.config
        d = ints[rows, DEALER]
        next_dealer = (d + 1) % n
        over = np.zeros(R, dtype=bool)
        winner = np.full(R, -1, dtype=np.int64)
        claim = (result == RS_CLAIMED) | (result == RS_WRONG_CLAIM)
        over[claim] = True
        winner[claim] = ints[rows[claim], GAME_WINNER]
        counted = result == RS_PLAYED  # a thrown-in hand does not count (U12); a claim ends the game
        idx = np.flatnonzero(counted)
        r = rows[idx]
        ints[r, HANDS_PLAYED] += 1
        if self.spec.scoring == "penalty":  # Mattazza (§14.6)
            losers = np.zeros((len(idx), n), dtype=bool)
            for j, i in enumerate(idx):
                losers[j, infos[i]["losers"]] = True
            seat_ints[r, :, PENALTY] += losers
            standing = mattazza_standing(seat_ints[r, :, PENALTY], way=c.way, target=c.target)
            if c.way == "target":
                seat_ints[r, :, ACTIVE] = (~standing.out).astype(np.int64)
            over[idx] = standing.over
            for j, i in enumerate(idx):
                infos[i]["penalties"] = [int(x) for x in seat_ints[r[j], :, PENALTY]]
                if standing.over[j]:
                    infos[i]["match_losers"] = [int(s) for s in np.flatnonzero(standing.out[j])]
            nxt = np.full(R, -1, dtype=np.int64)
            for step in range(n, 0, -1):  # the nearest seat to the dealer's right still in
                cand = (d + step) % n
                nxt = np.where(seat_ints[rows, cand, ACTIVE] == 1, cand, nxt)
            next_dealer = nxt
        else:
            seat_ints[r, :, TOTAL] += scores[idx]
            if self.spec.rounded:
                sides = self._sides(state, r)
                raw = np.array([infos[i]["raw"] for i in idx], dtype=np.int64).reshape(len(idx), 2)
                seat_ints[r, :, RAW_TOTAL] += np.take_along_axis(raw, sides, axis=1)
            if self.spec.next_dealer == "soloist":
                next_dealer[idx] = ints[r, SOLOIST]  # §10.7: the soloist deals next
            if self.spec.scoring == "poste":  # §10.7: every hand a game, settled at once; a match is match_hands hands
                last = ints[r, HANDS_PLAYED] >= c.match_hands
                over[idx] = last
                tot = seat_ints[r, :, TOTAL]
                unique = np.count_nonzero(tot == tot.max(axis=1, keepdims=True), axis=1) == 1
                winner[idx] = np.where(unique, np.argmax(tot, axis=1), DRAW)
            else:
                totals = seat_ints[r][:, [0, 1], TOTAL]  # side 0 and side 1: seats 0 and 1 in every 2-side game here
                if self.spec.game_hands is not None:  # Quattro Scartate (§9)
                    res = quattro_scartate_result(totals, ints[r, HANDS_PLAYED], tie=c.tie, hands=self.spec.game_hands)
                else:
                    res = game_result(totals, c.target, tie=c.tie)
                over[idx] = res != PLAY_ON
                winner[idx] = res
        for info, totals_row in zip(infos, seat_ints[rows, :, TOTAL].tolist()):
            info["totals"] = totals_row
        if self.spec.scoring != "penalty":
            for i in np.flatnonzero(over).tolist():
                infos[i]["game_winner"] = "draw" if winner[i] == DRAW else int(winner[i])
                ints[rows[i], GAME_WINNER] = winner[i]
        return over & c.match, next_dealer


def _breakdowns(hs) -> list[HandPoints | None]:
    """The parts of each row's hand score (:class:`HandPoints`, made plain numbers when read)."""
    parts = np.stack([hs.cards, hs.last_trick, hs.combinations, hs.declarations, hs.bonus, hs.total], axis=1)
    return [HandPoints(parts, hs.capotted, hs.scale, i) for i in range(len(parts))]
