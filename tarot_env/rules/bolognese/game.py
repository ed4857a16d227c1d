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
  piles, U25: :func:`.matto.auto_exchange_rows`), the hand's scores and in a match the running
  totals and the end of the game (:func:`.hand_end.played_hands` over :mod:`.scoring`'s counts,
  :func:`.claims.claimed_hand` for a claim, U27, :func:`.settlement.settle_matches`, each
  game's way read from its row's ``scoring``), then the next deal.

Seats are absolute and in play order; the first player dealt to and the Primo di Mano is the
dealer's right, ``dealer + 1``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tarot_env._jit import kernel
from tarot_env.cards.bolognese import NUM_CARDS
from tarot_env.errors import IllegalActionError
from tarot_env.rules.bolognese import engine
from tarot_env.rules.bolognese.actions import action_to_string, refusal, string_to_action
from tarot_env.rules.bolognese.claims import claim_values_at_deal_rows, claimed_hand, declarations_rows, declarations_rows_parallel
from tarot_env.rules.bolognese.config import TarocchinoConfig
from tarot_env.rules.bolognese.deal import EXTRA, HAND, OUT, POZZO, SECOND, deal_destinations, format_deal, parse_deal
from tarot_env.rules.bolognese.hand_end import EndOfHand, HandPoints, played_hands, seat_sides
from tarot_env.rules.bolognese.matto import auto_exchange_rows, auto_exchange_rows_parallel
from tarot_env.rules.bolognese.scoring import declaration_points
from tarot_env.rules.bolognese.settlement import settle_matches
from tarot_env.rules.bolognese.state import (
    ACTIVE,
    DEALER,
    DEALT_TO,
    FIRST,
    HAND_NO,
    HAND_OF,
    HANDS_PLAYED,
    MATCH_OVER,
    N_ACTIVE,
    NUM_ACTIONS,
    PENALTY,
    PH_DONE,
    PH_PREPARE,
    PH_SCORE,
    PHASE,
    PL_EXTRA,
    PL_HAND,
    PL_OUT,
    PL_POZZO,
    PL_SECOND,
    PLACE,
    RAW_TOTAL,
    RESULT,
    RS_PLAYED,
    RS_THROWN_IN,
    SCORE,
    TOTAL,
    Phase,
    TarocchinoState,
)
from tarot_env.rules.game import HandEnd, HandEnds

_PLACE_OF_DEST = np.zeros(5, dtype=np.int64)  # deal.py place codes -> state PLACE codes
for _k, _v in {HAND: PL_HAND, EXTRA: PL_EXTRA, SECOND: PL_SECOND, POZZO: PL_POZZO, OUT: PL_OUT}.items():
    _PLACE_OF_DEST[_k] = _v


@kernel
def place_cards(rows, packs, seats, offset, place, cards):
    """Each card ``packs[i, j]`` of row ``rows[i]`` goes where pack position ``j`` is dealt: to
    the seat ``seats[i, offset[j]]`` (``offset[j]``: the receiver's offset from the dealer's right,
    -1 none; ``seats[i, o]``: the seat at offset ``o`` in row ``i``) and place ``place[j]`` (a
    state PLACE code); cards dealt to a hand (first cards or extras) are held by that seat and
    are first-deal cards. A compiled loop, one pass over the pack: a vector step deals new hands
    at every step, on the calling thread (docs/performance.md, "What the kernels replaced")."""
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


class TarocchinoGame:
    """The rules of one Tarocchino game (:class:`.config.TarocchinoConfig`) over batches of tables.

    What differs between the games is read from the game's row, ``self.spec``
    (:class:`.game_specs.GameSpec`), never from its name. The interface is every game's
    (:class:`tarot_env.rules.game.Game`)."""

    family = "tarocchino"
    Phase = Phase
    action_to_string = staticmethod(action_to_string)
    string_to_action = staticmethod(string_to_action)

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
        self.end_of_hand = EndOfHand.of(config)  # what scoring reads of the rules, once

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
        ints, seat_ints, cards, hist, legal = state.ints, state.seat_ints, state.cards, state.hist, state.legal
        if not new_match:  # the match's fields survive the fresh blocks
            keep_i = ints[rows][:, list(_MATCH_INTS)]
            keep_s = seat_ints[rows][:, :, list(_MATCH_SEAT)]
        f = self._fresh
        ints[rows], seat_ints[rows], cards[rows], hist[rows], legal[rows] = f.ints, f.seat_ints, f.cards, f.hist, f.legal
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
        actions: np.ndarray,
        rows: np.ndarray | None = None,
        *,
        check: bool = True,
        rng: np.random.Generator | None = None,
        deals: MatchDeals | None = None,
        parallel: bool = False,
    ) -> HandEnds:
        """Apply one action in each of ``rows`` (default: every row not done), then run the NumPy
        phases the rows reached. Returns the hands that ended. A match's next hand is dealt from
        ``deals.queued`` when a fixed deal waits there, else shuffled with ``rng``.

        With ``check`` every action is first tested against ``state.legal``; an illegal one raises
        :class:`IllegalActionError` (:func:`.actions.refusal`: what, why, what is allowed) before
        anything changes. The envs check first themselves and pass ``check=False``.

        ``parallel``: the compiled step runs its variant whose row loop runs on numba's threads
        (:mod:`tarot_env._threads`); the NumPy phases after it (scoring, a match's next deal,
        which draws from ``rng``) stay on this thread, in row order."""
        if rows is None:
            rows = np.flatnonzero(state.ints[:, PHASE] != PH_DONE)
        if check:
            rows, actions = np.asarray(rows, dtype=np.int64), np.asarray(actions, dtype=np.int64).reshape(-1)
            if len(actions) != len(rows):
                raise ValueError(f"got {len(actions)} actions for {len(rows)} tables to play")
            self.check_actions(state, rows, actions)
        run = engine.step_rows_parallel if parallel else engine.step_rows
        if run(state.ints, state.seat_ints, state.cards, state.hist, state.legal, rows, actions, self.opts) == 0:
            return HandEnds.none(self.num_players)
        return self._settle(state, rows, rng, deals, parallel)

    def check_actions(self, state: TarocchinoState, rows: np.ndarray, actions: np.ndarray, mask: np.ndarray | None = None) -> None:
        """Raise :class:`IllegalActionError` for the first action of ``actions`` that is not legal at
        its row of ``rows`` (``mask``: the rows' legal masks, default ``state.legal``)."""
        legal = state.legal[rows] if mask is None else mask
        for i, (r, a) in enumerate(zip(np.asarray(rows).tolist(), np.asarray(actions).tolist())):
            if not (0 <= a < self.num_actions and legal[i, a]):
                if state.ints[r, PHASE] == PH_DONE:
                    raise IllegalActionError("the hand is over: no action is allowed until the next deal starts")
                raise IllegalActionError(refusal(self, state, a, r))

    def legal_action_mask(self, state: TarocchinoState, rows: np.ndarray | None = None) -> np.ndarray:
        """(R, A) bool: the legal actions of the player to act at ``rows`` (none when done). The
        compiled state machine keeps them in ``state.legal`` at every step: a copy of it."""
        return state.legal.copy() if rows is None else state.legal[np.asarray(rows, dtype=np.int64)]

    def is_terminal(self, state: TarocchinoState) -> np.ndarray:
        """(B,) bool: the episode of each row (a hand, or a match with ``episode="match"``) is over."""
        return state.ints[:, PHASE] == PH_DONE

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
        ints, seat_ints, cards, legal = state.ints, state.seat_ints, state.cards, state.legal
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
        """Score the hands that ended at ``rows`` (all at once: the Matto exchange, then
        :func:`.hand_end.played_hands`), settle the match (:func:`.settlement.settle_matches`), deal the next hands."""
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
            scores[played], parts = played_hands(self.end_of_hand, state, rows[played], [infos[i] for i in played])
            for i, part in zip(played.tolist(), parts):
                points[i] = part
        for i in np.flatnonzero(result != RS_PLAYED):
            r = int(rows[i])
            if result[i] == RS_THROWN_IN:
                infos[i]["result"] = "thrown_in"
                continue
            scores[i] = claimed_hand(self.end_of_hand, state, r, infos[i])
        seat_ints[rows, :, SCORE] = scores
        sides = self._sides(state, rows)
        active = seat_ints[rows, :, ACTIVE] == 1
        over, next_dealer = settle_matches(self.end_of_hand, state, rows, result, scores, infos)
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
        """(R, N) the side of each seat (:func:`.hand_end.seat_sides`)."""
        return seat_sides(self.end_of_hand, state, rows)

    def _auto_exchange(self, state: TarocchinoState, rows: np.ndarray, parallel: bool = False) -> None:
        """The automatic Matto exchange of the played hands ``rows`` (§4.5, U3, U20): :func:`.matto.auto_exchange_rows`."""
        run = auto_exchange_rows_parallel if parallel else auto_exchange_rows
        run(state.ints, state.cards, np.asarray(rows, dtype=np.int64), self.opts)
