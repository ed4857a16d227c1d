"""A Tarocchino game over a batch of tables: deals, decisions and the end of each hand.

:class:`TarocchinoGame` routes a batch of actions to the state machine of :mod:`.engine`
(one implementation, compiled by numba when it is installed) and does the arithmetic that
runs once a hand in NumPy, from the tested building blocks:

- dealing (:mod:`.deal`): random packs or fixed deals, the dealer's last 2 cards, the Pozzo,
  Millone's second deal, the cards out of play;
- ``PREPARE`` (hands final, before the first card): the value of each player's declaration
  and the cards it would show (:mod:`.combinations`, §7), and what each may use to claim
  (§8.4; Millone: first-deal cards only, §11.6);
- ``SCORE`` (the hand is over): the automatic Matto exchange (§4.5, U3, U20), the hand's
  scores (:mod:`.scoring`), and in a match the running totals, the end of the game and the
  next deal.

Seats are absolute and in play order; the first player dealt to and the Primo di Mano is the
dealer's right, ``dealer + 1``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tarot_env.cards.bolognese import IS_SCARTINO, MATTO, NUM_CARDS
from tarot_env.rules.bolognese import engine
from tarot_env.rules.bolognese.combinations import combination_cards, combination_points
from tarot_env.rules.bolognese.config import TarocchinoConfig
from tarot_env.rules.bolognese.counting import CARD_VALUE
from tarot_env.rules.bolognese.deal import EXTRA, HAND, OUT, POZZO, SECOND, deal_destinations, format_deal, parse_deal
from tarot_env.rules.bolognese.scoring import (
    DRAW,
    PLAY_ON,
    centocinquanta_hand_scores,
    game_result,
    mattazza_hand,
    mattazza_standing,
    millone_hand_scores,
    ottocento_hand_scores,
    quattro_scartate_result,
    quindici_round,
    terziglio_hand,
)
from tarot_env.rules.bolognese.state import (
    ACTIVE,
    CLAIM_DECL,
    CLAIM_SEAT,
    CLAIM_VALUE,
    COMBO,
    CONTRACT,
    DEALER,
    DEALT_TO,
    DECL,
    DECLARED,
    FIRST,
    GAME_WINNER,
    HAND_NO,
    HAND_OF,
    LAST_WINNER,
    MATCH_OVER,
    MATTO_SEAT,
    MATTO_WINNER,
    N_ACTIVE,
    NUM_ACTIONS,
    O_CLAIMS,
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
    TarocchinoState,
)

_PLACE_CODE = {HAND: PL_HAND, EXTRA: PL_EXTRA, SECOND: PL_SECOND, POZZO: PL_POZZO, OUT: PL_OUT}
#: per-hand fields reset at each new deal (match-level ones survive: totals, penalties, who is still in)
_MATCH_INTS = (DEALER, HAND_NO, MATCH_OVER, N_ACTIVE)
_MATCH_SEAT = (TOTAL, RAW_TOTAL, PENALTY, ACTIVE)


@dataclass
class HandEnd:
    """A hand that ended at a step: its row, how it ended, each seat's score, and the details
    an env reports (``info``)."""

    row: int
    result: str
    scores: list[int]
    info: dict[str, Any] = field(default_factory=dict)
    match_over: bool = False


class TarocchinoGame:
    """The rules of one Tarocchino game (:class:`.config.TarocchinoConfig`) over batches of tables."""

    def __init__(self, config: TarocchinoConfig) -> None:
        self.config = config
        self.game = config.game
        self.num_players = config.num_players
        self.num_actions = NUM_ACTIONS
        self.num_tricks = config.num_tricks
        self.opts = config.kernel_options()
        self._second_first = config.options.get("second_deal_first", "opponent")
        self.dest = deal_destinations(self.game, self.num_players, second_deal_first=self._second_first)
        self.two_sides = self.game != "mattazza"
        self._mori = config.mori
        #: fixed deals waiting, per row, for the next hands of a match: lists of (dealer, pack, active seats or None)
        self.queued: dict[int, list[tuple[int, np.ndarray, tuple[int, ...] | None]]] = {}
        #: the deals dealt, per row, in the current episode: (dealer, pack, active seats)
        self.dealt: dict[int, list[tuple[int, np.ndarray, tuple[int, ...]]]] = {}

    # ------------------------------------------------------------------ state
    def new_state(self, batch: int) -> TarocchinoState:
        return TarocchinoState.new(batch, self.num_players)

    def side_of(self, state: TarocchinoState, row: int, seat: int) -> int:
        """The side of ``seat`` at ``row``: partners seat % 2, Terziglio 0 the soloist / 1 the others, else the seat."""
        return int(engine._side(state.ints, row, seat, self.opts))

    def sides(self, state: TarocchinoState, row: int) -> np.ndarray:
        return np.array([self.side_of(state, row, s) for s in range(self.num_players)])

    # ------------------------------------------------------------------ deals
    def destinations(self, num_active: int):
        if num_active == self.num_players:
            return self.dest
        return deal_destinations(self.game, num_active, second_deal_first=self._second_first)

    def active_seats(self, state: TarocchinoState, row: int) -> tuple[int, ...]:
        return tuple(int(s) for s in np.flatnonzero(state.seat_ints[row, :, ACTIVE]))

    def parse_deal(self, deal: Any, active: tuple[int, ...] | None = None) -> tuple[int, np.ndarray]:
        """A fixed deal (interface.md §4) checked -> ``(dealer, pack)``; seats out of a Mattazza
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
    ) -> list[HandEnd]:
        """Deal ``packs`` (R, 62) from ``dealers`` at ``rows`` and run to the first decision.

        ``new_match`` clears the running totals (a new episode); False keeps them (the next
        hand of a match). Returns hands that ended before any decision (none today: every
        game asks something first), for symmetry with :meth:`step`. ``totals`` (R, N) sets
        the running totals of a new episode (a deal played at a given score, e.g. to claim).
        """
        rows = np.asarray(rows, dtype=np.int64)
        ints, seat_ints, cards, hist, legal = state.blocks
        keep_i = ints[rows][:, list(_MATCH_INTS)].copy()
        keep_s = seat_ints[rows][:, :, list(_MATCH_SEAT)].copy()
        fresh = TarocchinoState.new(len(rows), self.num_players)
        ints[rows], seat_ints[rows], cards[rows], hist[rows], legal[rows] = fresh.blocks
        if not new_match:
            ints[np.ix_(rows, list(_MATCH_INTS))] = keep_i
            seat_ints[np.ix_(rows, np.arange(self.num_players), list(_MATCH_SEAT))] = keep_s
            ints[rows, HAND_NO] += 1
        else:
            for r in rows:
                self.dealt[int(r)] = []
            if totals is not None:
                seat_ints[rows, :, TOTAL] = totals
        ints[rows, DEALER] = dealers
        for i, r in enumerate(rows):
            r = int(r)
            active = self.active_seats(state, r)
            k = len(active)
            ints[r, N_ACTIVE] = k
            dest = self.destinations(k)
            d = int(dealers[i])
            pos = active.index(d)
            order = np.array([active[(pos + 1 + o) % k] for o in range(k)])  # offset -> seat, the dealer last
            seat_of_pos = np.where(dest.seat >= 0, order[np.maximum(dest.seat, 0)], -1)
            pack = packs[i]
            place = np.array([_PLACE_CODE[int(p)] for p in dest.place])
            cards[r, DEALT_TO, pack] = seat_of_pos
            cards[r, PLACE, pack] = place
            in_hand = (place == PL_HAND) | (place == PL_EXTRA)
            cards[r, HAND_OF, pack] = np.where(in_hand, seat_of_pos, -1)
            cards[r, FIRST, pack] = in_hand
            self.dealt.setdefault(r, []).append((d, pack.copy(), active))
        self._claim_values_at_deal(state, rows)
        for r in rows:
            engine.start_hand(ints, seat_ints, cards, legal, int(r), self.opts)
        return self._settle(state, rows, None)

    def shuffle_and_deal(self, state: TarocchinoState, rows: np.ndarray, dealers: np.ndarray, rng: np.random.Generator) -> list[HandEnd]:
        packs = np.argsort(rng.random((len(rows), NUM_CARDS)), axis=1)
        return self.start_deals(state, rows, dealers, packs)

    def _claim_values_at_deal(self, state: TarocchinoState, rows: np.ndarray) -> None:
        """The declaration values of the claim windows before play (§8.4.1, §11.3, U21)."""
        if not self.opts[O_CLAIMS]:  # no target, no claims
            return
        cards = state.cards
        d = state.ints[rows, DEALER]
        mine = (cards[rows, HAND_OF] == d[:, None]) & (cards[rows, PLACE] == PL_HAND)  # his first cards only
        opp = (d + 1) % self.num_players
        theirs = cards[rows, HAND_OF] == opp[:, None]
        values = self.declaration_values(np.concatenate([mine, theirs]))
        state.ints[rows, PICKUP_DECL] = values[: len(rows)]
        state.seat_ints[rows, opp, CLAIM_DECL] = values[len(rows) :]

    def declaration_values(self, hands: np.ndarray) -> np.ndarray:
        """The value of declaring each hand (§7): combinations valued as in §6, U5 and U6."""
        return combination_points(hands, mori=self._mori, doubling=self.config.options.get("doubling", True))

    # ------------------------------------------------------------------ steps
    def step(self, state: TarocchinoState, rows: np.ndarray, actions: np.ndarray, rng: np.random.Generator | None = None) -> list[HandEnd]:
        """Apply one legal action per row (the caller has checked ``state.legal``), then run
        the NumPy phases the rows reached. Returns the hands that ended."""
        ints, seat_ints, cards, hist, legal = state.blocks
        if engine.step_rows(ints, seat_ints, cards, hist, legal, rows, actions, self.opts) == 0:
            return []
        return self._settle(state, rows, rng)

    def _settle(self, state: TarocchinoState, rows: np.ndarray, rng: np.random.Generator | None) -> list[HandEnd]:
        ended: list[HandEnd] = []
        phase = state.ints[rows, PHASE]
        if np.any(phase == PH_PREPARE):
            self._prepare(state, rows[phase == PH_PREPARE])
            phase = state.ints[rows, PHASE]
        if np.any(phase == PH_SCORE):
            for r in rows[phase == PH_SCORE]:
                ended.append(self._score(state, int(r), rng))
        return ended

    def _prepare(self, state: TarocchinoState, rows: np.ndarray) -> None:
        """Hands are final: each seat's declaration value, its claim value, the cards a
        declaration shows; then the first trick."""
        ints, seat_ints, cards, _, legal = state.blocks
        n = self.num_players
        hands = (cards[rows, HAND_OF][:, None, :] == np.arange(n)[None, :, None]) & (cards[rows, PLACE] == PL_HAND)[:, None, :]
        flat = hands.reshape(-1, NUM_CARDS)
        values = self.declaration_values(flat).reshape(len(rows), n)
        seat_ints[rows, :, DECL] = values
        if self.game == "millone":  # §11.6: only first-deal cards serve a claim
            first = flat & (cards[rows, FIRST].astype(bool)[:, None, :].repeat(n, axis=1).reshape(-1, NUM_CARDS))
            seat_ints[rows, :, CLAIM_DECL] = self.declaration_values(first).reshape(len(rows), n)
        else:
            seat_ints[rows, :, CLAIM_DECL] = values
        shown = combination_cards(flat, mori=self._mori).reshape(len(rows), n, NUM_CARDS).any(axis=1)
        cards[rows, COMBO] = shown
        for r in rows:
            engine.start_play(ints, seat_ints, cards, legal, int(r), self.opts)

    # ------------------------------------------------------------------ the end of a hand
    def _score(self, state: TarocchinoState, r: int, rng: np.random.Generator | None) -> HandEnd:
        ints, seat_ints = state.ints, state.seat_ints
        n = self.num_players
        result = int(ints[r, RESULT]) or RS_PLAYED
        ints[r, RESULT] = result
        info: dict[str, Any] = {"hand": int(ints[r, HAND_NO])}
        scores = np.zeros(n, dtype=np.int64)
        if result == RS_THROWN_IN:
            info["result"] = "thrown_in"
        elif result in (RS_CLAIMED, RS_WRONG_CLAIM):
            claimer = int(ints[r, CLAIM_SEAT])
            side = self.side_of(state, r, claimer)
            info.update(result="claimed" if result == RS_CLAIMED else "wrong_claim", claimer=claimer, claim_value=int(ints[r, CLAIM_VALUE]))
            if result == RS_CLAIMED:
                used = int(ints[r, CLAIM_VALUE]) - int(seat_ints[r, claimer, TOTAL])
                scores[:] = [used if self.side_of(state, r, s) == side else 0 for s in range(n)]
        else:
            info["result"] = "played"
            self._auto_exchange(state, r)
            scores = self._hand_points(state, r, info)
        seat_ints[r, :, SCORE] = scores
        match_over = self._after_hand(state, r, result, scores, info)
        end = HandEnd(r, info["result"], [int(x) for x in scores], info, match_over)
        if match_over or not self.config.match:
            ints[r, PHASE] = PH_DONE
            ints[r, MATCH_OVER] = 1
            state.legal[r] = False
            return end
        # the next hand of the match
        dealer = int(info.pop("next_dealer"))
        queued = self.queued.get(r)
        if queued:
            q_dealer, pack, q_active = queued.pop(0)
            active = self.active_seats(state, r)
            if q_dealer != dealer or (q_active is not None and tuple(q_active) != active):
                raise RuntimeError(
                    f"the fixed deal for hand {int(state.ints[r, HAND_NO]) + 1} has dealer {q_dealer}"
                    + (f" and players {list(q_active)}" if q_active else "")
                    + f", but the rules name dealer {dealer} and players {list(active)}: later deals must follow the match"
                )
        else:
            if rng is None:
                raise RuntimeError("the next hand of a match needs a random generator (or queued fixed deals)")
            pack = np.argsort(rng.random(NUM_CARDS))
        self.start_deals(state, np.array([r]), np.array([dealer]), pack[None], new_match=False)
        return end

    def _side_masks(self, state: TarocchinoState, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(S, 62) piles, (S,) tricks won and declarations by side (2 sides, or each seat)."""
        n = self.num_players
        cards, seat_ints = state.cards[r], state.seat_ints[r]
        sides = self.sides(state, r)
        S = 2 if self.two_sides else n
        piles = np.zeros((S, NUM_CARDS), dtype=bool)
        tricks = np.zeros(S, dtype=np.int64)
        decl = np.zeros(S, dtype=np.int64)
        for s in range(n):
            piles[sides[s]] |= cards[PILE_OF] == s
            tricks[sides[s]] += seat_ints[s, TRICKS]
            decl[sides[s]] += seat_ints[s, DECLARED]
        return piles, tricks, decl

    def _auto_exchange(self, state: TarocchinoState, r: int) -> None:
        """§4.5 with U3 and U20: the Matto's owner's side gives one card to the side that won
        the Matto's trick: a scartino if it has one (U3), the one that costs the giver least,
        then the one that helps the receiver least, then the lowest card id."""
        m = int(state.ints[r, MATTO_SEAT])
        if m < 0:
            return
        w = int(state.ints[r, MATTO_WINNER])
        giver, receiver = self.side_of(state, r, m), self.side_of(state, r, w)
        if giver == receiver:
            return
        piles, _, _ = self._side_masks(state, r)
        mine = piles[giver].copy()
        mine[MATTO] = False
        candidates = np.flatnonzero(mine)
        if self.config.matto_gift == "scartino" and np.any(IS_SCARTINO[candidates]):
            candidates = candidates[IS_SCARTINO[candidates]]
        k = len(candidates)
        without = np.repeat(piles[giver][None], k, axis=0)
        without[np.arange(k), candidates] = False
        with_ = np.repeat(piles[receiver][None], k, axis=0)
        with_[np.arange(k), candidates] = True
        cost = -(without.astype(np.int64) @ CARD_VALUE + combination_points(without, mori=self._mori))
        help_ = with_.astype(np.int64) @ CARD_VALUE + combination_points(with_, mori=self._mori)
        best = candidates[np.lexsort((candidates, help_, cost))[0]]
        state.cards[r, PILE_OF, best] = w
        state.ints[r, MATTO_SEAT] = -2

    def _hand_points(self, state: TarocchinoState, r: int, info: dict[str, Any]) -> np.ndarray:
        """Each seat's score for the played hand (see the env docs for what it is in each game)."""
        c = self.config
        o = c.options
        n = self.num_players
        ints = state.ints
        piles, tricks, decl = self._side_masks(state, r)
        sides = self.sides(state, r)
        last = self.side_of(state, r, int(ints[r, LAST_WINNER]))
        common = {"mori": self._mori}
        if self.game in ("ottocento", "quattro_scartate", "millone", "centocinquanta", "quindici"):
            fn = {"millone": millone_hand_scores, "centocinquanta": centocinquanta_hand_scores, "quindici": centocinquanta_hand_scores}.get(
                self.game, ottocento_hand_scores
            )
            hs = fn(
                piles[None], tricks[None], np.array([last]), decl[None],
                keep_capotted_declarations=o["keep_capotted_declarations"], cappotto_bonus=o["cappotto_bonus"], **common,
            )  # fmt: skip
            side_scores = hs.total[0]
            info.update(_breakdown(hs, 0))
            if self.game == "quindici":
                info["raw"] = [int(x) for x in side_scores]
                side_scores = quindici_round(side_scores)
            return side_scores[sides]
        if self.game == "terziglio":
            pozzo = (state.cards[r, PLACE] == PL_POZZO)[None]
            contract = int(ints[r, CONTRACT])
            res = terziglio_hand(
                piles[None], tricks[None], np.array([last]), np.array([ints[r, SOLOIST]]), np.array([contract]), decl[None],
                pozzo if contract == 2 else None, poste_rounding=o["poste_rounding"], odd_pile=o["odd_pile"],
                keep_capotted_declarations=o["keep_capotted_declarations"], cappotto_bonus=o["cappotto_bonus"], **common,
            )  # fmt: skip
            info.update(_breakdown(res.hand, 0))
            info.update(
                soloist=int(ints[r, SOLOIST]), contract=("su", "di_mio")[contract - 1], soloist_won=bool(res.soloist_won[0]),
                winner_points=int(res.winner_points[0]), poste=int(res.poste[0]),
            )  # fmt: skip
            return res.settlement[0]
        # Mattazza: the players still in the match
        active = np.array(self.active_seats(state, r))
        res = mattazza_hand(
            piles[active][None],
            tricks[active][None],
            np.array([list(active).index(int(ints[r, LAST_WINNER]))]),
            full_count=o["full_count"],
            **common,
        )
        out = np.zeros(n, dtype=np.int64)
        out[active] = res.hand.total[0]
        losers = np.zeros(n, dtype=bool)
        losers[active] = res.losers[0]
        info.update(_breakdown(res.hand, 0, active))
        info["losers"] = [int(s) for s in np.flatnonzero(losers)]
        return out

    def _after_hand(self, state: TarocchinoState, r: int, result: int, scores: np.ndarray, info: dict[str, Any]) -> bool:
        """Running totals, the end of the game and the next dealer (§8.4 end, §9, §10.7, §11–§14).
        Returns whether the match is over (always True for claims)."""
        ints, seat_ints = state.ints, state.seat_ints
        n = self.num_players
        c = self.config
        d = int(ints[r, DEALER])
        next_dealer = (d + 1) % n
        over = False
        winner = -1
        if result == RS_THROWN_IN:
            pass  # U12: deal again with the next dealer; the hand does not count
        elif result in (RS_CLAIMED, RS_WRONG_CLAIM):
            over, winner = True, int(ints[r, GAME_WINNER])
        elif self.game == "mattazza":
            losers = info["losers"]
            seat_ints[r, losers, PENALTY] += 1
            standing = mattazza_standing(seat_ints[r, :, PENALTY][None], way=c.way, target=c.target)
            out = standing.out[0]
            if c.way == "target":
                seat_ints[r, :, ACTIVE] = (~out).astype(np.int64)
            over = bool(standing.over[0])
            info["penalties"] = [int(x) for x in seat_ints[r, :, PENALTY]]
            if over:
                info["match_losers"] = [int(s) for s in np.flatnonzero(out)]
            nxt = (d + 1) % n
            while not seat_ints[r, nxt, ACTIVE]:
                nxt = (nxt + 1) % n
            next_dealer = nxt
        else:
            seat_ints[r, :, TOTAL] += scores
            if self.game == "quindici":
                raw = np.array(info["raw"])[self.sides(state, r)]
                seat_ints[r, :, RAW_TOTAL] += raw
            if self.game == "terziglio":
                next_dealer = int(ints[r, SOLOIST])  # §10.7: the soloist deals next
                over = int(ints[r, HAND_NO]) + 1 >= c.match_hands
                if over:
                    tot = seat_ints[r, :, TOTAL]
                    winner = int(np.argmax(tot)) if np.count_nonzero(tot == tot.max()) == 1 else DRAW
            else:
                totals = seat_ints[r, [0, 1], TOTAL][None]  # side 0 and side 1 (seats 0 and 1 in every 2-side game here)
                if self.game == "quattro_scartate":
                    res = int(quattro_scartate_result(totals, int(ints[r, HAND_NO]) + 1, tie=c.tie)[0])
                else:
                    res = int(game_result(totals, c.target, tie=c.tie)[0])
                if res != PLAY_ON:
                    over, winner = True, res
        info["totals"] = [int(x) for x in seat_ints[r, :, TOTAL]]
        if over and self.game != "mattazza":
            info["game_winner"] = "draw" if winner == DRAW else winner
            ints[r, GAME_WINNER] = winner
        info["next_dealer"] = next_dealer
        if not c.match:
            info.pop("next_dealer")
        return over and c.match


def _breakdown(hs, row: int, seats: np.ndarray | None = None) -> dict[str, Any]:
    """The parts of a hand score (by side, or by seat in Mattazza), as ints; half-points halved."""
    k = hs.scale
    parts = {}
    for name in ("cards", "last_trick", "combinations", "declarations", "bonus", "total"):
        v = getattr(hs, name)[row]
        parts[name] = [x / k if k > 1 else int(x) for x in v.tolist()]
    parts["capotted"] = [bool(x) for x in hs.capotted[row]]
    return {"points": parts}
