"""French Tarot as a batch-first game: ``deal``, ``legal_action_mask``, ``step`` over arrays.

The order of a deal (docs/rules/french_tarot.md §14):

    deal -> [petit sec: annulled] -> BID (each player once) -> [all pass: thrown in]
         -> CALL (5 players) -> [CHELEM if announced before the écart]
         -> chien: ECART (petite, garde) | unseen (garde sans, garde contre)
         -> [CHELEM if announced after the écart] -> PLAY, with POIGNEE (and SHOW) at each
            player's first card -> scoring

Each phase's legality and effect live in their own module (``bidding``, ``call``, ``ecart``,
``announcements``, ``play``, ``scoring``); this module only routes actions to them and moves
deals from one phase to the next. Rows of one batch may be in different phases: each phase's
rows are selected and updated together.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tarot_env._jit import kernel
from tarot_env.cards.french import FRENCH_DECK, NUM_CARDS
from tarot_env.errors import IllegalActionError
from tarot_env.rules.french import actions as A
from tarot_env.rules.french import announcements, bidding, call, ecart, play, scoring, teams
from tarot_env.rules.french.announcements import poignee_row
from tarot_env.rules.french.bidding import bid_row
from tarot_env.rules.french.config import FrenchTarotConfig
from tarot_env.rules.french.deal import deal_destinations, deal_rows, parse_deal, petit_sec
from tarot_env.rules.french.ecart import ecart_row
from tarot_env.rules.french.play import legal_cards
from tarot_env.rules.french.state import COLUMN, FrenchTarotState, Phase, Result
from tarot_env.rules.game import HandEnd, HandEnds

# Where each phase's actions start in the action space, and how many there are.
_SPAN = {
    Phase.BID: (A.BID, 5),
    Phase.CALL: (A.CALL, A.CHELEM - A.CALL),
    Phase.ECART: (A.DISCARD, NUM_CARDS),
    Phase.CHELEM: (A.CHELEM, 2),
    Phase.POIGNEE: (A.POIGNEE, 4),
    Phase.SHOW: (A.SHOW, len(A.SHOW_CARDS)),
    Phase.PLAY: (A.PLAY, NUM_CARDS),
}
_NUM_PHASES = Phase.count()
_DONE = Phase.DONE
# for the compiled masks (plain ints: numba reads module constants, not class attributes)
_BID, _ECART, _CHELEM, _POIGNEE, _PLAY, _DONE = Phase.BID, Phase.ECART, Phase.CHELEM, Phase.POIGNEE, Phase.PLAY, Phase.DONE
PHASE, CURRENT = COLUMN["phase"], COLUMN["current"]
A_BID, A_DISCARD, A_CHELEM, A_NO_CHELEM, A_POIGNEE, A_NO_POIGNEE, A_PLAY = (
    A.BID, A.DISCARD, A.CHELEM, A.NO_CHELEM, A.POIGNEE, A.NO_POIGNEE, A.PLAY
)  # fmt: skip


@kernel
def phase_masks(rows, out, ints, seat_cards, card_flags, suit, strength, play_opts, poignee_opts):
    """The legal actions of the player to act in each of ``rows`` into ``out`` (R, A), zeroed by
    the caller, for the phases whose rule is a row function: the bid (:func:`.bidding.bid_row`),
    the écart (:func:`.ecart.ecart_row`), the chelem (announce or not), the poignée
    (:func:`.announcements.poignee_row`, or none) and the card play (:func:`.play.legal_cards`).
    Returns (R,) bool: False for the rows left to the caller (the 5-player call, the poignée's
    trumps picked one by one); a finished deal's row is done, and empty (no legal action)."""
    done = np.ones(rows.shape[0], dtype=np.bool_)
    options = np.zeros(3, dtype=np.bool_)
    C = seat_cards.shape[3]
    for i in range(rows.shape[0]):
        b = rows[i]
        phase = ints[b, PHASE]
        o = out[i]
        if phase == _BID:
            bid_row(b, ints, o[A_BID : A_BID + 5])
        elif phase == _ECART:
            ecart_row(b, ints, seat_cards, o[A_DISCARD : A_DISCARD + C])
        elif phase == _CHELEM:
            o[A_CHELEM] = True
            o[A_NO_CHELEM] = True
        elif phase == _POIGNEE:
            poignee_row(b, ints[b, CURRENT], ints, seat_cards, card_flags, poignee_opts, options)
            for k in range(3):
                o[A_POIGNEE + k] = options[k]
            o[A_NO_POIGNEE] = True
        elif phase == _PLAY:
            legal_cards(o[A_PLAY : A_PLAY + C], b, ints, seat_cards, suit, strength, play_opts)
        elif phase != _DONE:  # a finished deal has no legal action: its row stays empty
            done[i] = False
    return done


# The masks of the phases the kernel above leaves to NumPy (module functions, not lambdas, so
# that a game, and every env holding one, pickles).
def _show_mask(g: FrenchTarotGame, s: FrenchTarotState, rows: np.ndarray) -> np.ndarray:
    return announcements.show_mask(g, s, rows)[:, A.SHOW_CARDS]


class FrenchTarotGame:
    """The rules of French Tarot for one configuration, applied to a batch of deals (the interface
    every game has, :class:`tarot_env.rules.game.Game`; a deal is one hand, so ``step``'s ``rng``
    and ``deals`` are not read)."""

    family = "french"
    Phase = Phase
    action_to_string = staticmethod(A.action_to_string)
    string_to_action = staticmethod(A.string_to_action)

    def __init__(self, config: FrenchTarotConfig | None = None) -> None:
        self.config = config or FrenchTarotConfig()
        self.num_players = self.config.num_players
        self.num_tricks = self.config.num_tricks
        self.num_actions = A.NUM_ACTIONS
        self.poignee_sizes = np.array(self.config.poignee_sizes, dtype=np.int64)
        self._blank: FrenchTarotState | None = None
        self._destinations = deal_destinations(self.config)
        self._no_ends = HandEnds.none(self.num_players)  # what most steps return (read only)
        self._seats = np.arange(self.num_players, dtype=np.int64)[None, :]  # (1, N): the sides' arithmetic
        self._all_seats = np.ones(self.num_players, dtype=bool)  # every seat plays every deal
        self.play_options = play.play_options(self)  # what the play phase's row functions read of the rules
        self.scoring_options = scoring.scoring_options(self)  # and the scoring's
        self.announcement_options = announcements.announcement_options(self)  # and the poignée's
        self._mask_fns: dict[int, Callable] = {Phase.CALL: call.call_mask, Phase.SHOW: _show_mask}  # the rest: phase_masks
        self._apply_fns: dict[int, Callable] = {
            Phase.BID: self._bid,
            Phase.CALL: self._call,
            Phase.ECART: self._discard,
            Phase.CHELEM: self._chelem,
            Phase.POIGNEE: self._poignee,
            Phase.SHOW: self._show,
            Phase.PLAY: self._play,
        }

    # ------------------------------------------------------------------ teams
    def is_attack(self, s: FrenchTarotState, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Whether ``seats`` (broadcast against ``rows``) are the taker or his partner (:func:`.teams.is_attack`)."""
        return teams.is_attack(seats, s.taker[rows], s.partner[rows])

    # ------------------------------------------------------------------ deal
    def new_state(self, batch: int) -> FrenchTarotState:
        return FrenchTarotState.empty(batch, self.num_players, self.num_tricks)

    def _fresh(self, batch: int) -> FrenchTarotState:
        """An empty state of at least ``batch`` rows, kept for resetting rows (read only)."""
        if self._blank is None or self._blank.batch_size < batch:
            self._blank = self.new_state(batch)
        return self._blank

    def shuffle_and_deal(
        self, s: FrenchTarotState, rows: np.ndarray, dealers: np.ndarray, rng: np.random.Generator, deals: None = None
    ) -> HandEnds:
        """Random deals for ``rows``: uniform shuffles dealt by the pattern of §2 (:func:`.deal.deal_row`).
        Returns the deals a petit sec annulled as they were dealt (``petit_sec="annul"``; under
        ``"redeal"`` they are dealt again at once, by the next dealer)."""
        packs = rng.permuted(np.tile(np.arange(NUM_CARDS), (len(rows), 1)), axis=1)
        s.reset_rows(rows, self._fresh(len(rows)))
        b = s.blocks
        annulled = deal_rows(rows, dealers, packs, self._destinations, self.num_players, b["seat_cards"], b["card_flags"])
        self._begin(s, rows, dealers, annulled)
        if self.config.petit_sec == "redeal":
            again = rows[s.result[rows] == Result.PETIT_SEC]
            if len(again):
                self.shuffle_and_deal(s, again, (s.dealer[again] + 1) % self.num_players, rng)
            return self._no_ends
        return self.hand_ends(s, rows[annulled]) if annulled.any() else self._no_ends

    def parse_deal(self, deal: Any) -> tuple[int, np.ndarray]:
        """A fixed deal (docs/interface.md §4), checked (:func:`.deal.parse_deal`): ``(dealer, pack)``,
        the pack (N + 1, 78) bool: each seat's hand, then the chien."""
        dealer, hands, chien = parse_deal(self.config, deal)
        return dealer, np.vstack([hands, chien[None]])

    def start_deals(self, s: FrenchTarotState, rows: np.ndarray, dealers: np.ndarray, packs: np.ndarray, deals: None = None) -> HandEnds:
        """Start deals from given packs ``(R, N + 1, 78)``: each seat's hand, then the chien
        (:meth:`parse_deal`). Returns the deals a petit sec annulled at once."""
        s.reset_rows(rows, self._fresh(len(rows)))
        n = self.num_players
        s.hands[rows] = packs[:, :n]
        s.chien[rows] = packs[:, n]
        annulled = petit_sec(packs[:, :n]).any(axis=1)
        self._begin(s, rows, dealers, annulled)
        return self.hand_ends(s, rows[annulled]) if annulled.any() else self._no_ends

    def _begin(self, s: FrenchTarotState, rows: np.ndarray, dealers: np.ndarray, annulled: np.ndarray) -> None:
        """Dealt: the bidding starts at the dealer's right, unless a petit sec annuls the deal."""
        s.dealer[rows] = dealers
        s.phase[rows] = Phase.BID
        s.current[rows] = (dealers + 1) % self.num_players
        if annulled.any():
            self._throw_in(s, rows[annulled], Result.PETIT_SEC)
        s.legal[rows] = self.legal_action_mask(s, rows)

    # ------------------------------------------------------------------ masks
    def legal_action_mask(self, s: FrenchTarotState, rows: np.ndarray | None = None) -> np.ndarray:
        """(R, A) bool: the legal actions of the player to act in each row (none when done),
        computed from the state. ``s.legal`` holds the same, kept up to date by ``start_deals``
        and ``step`` (as pgx keeps the mask in its state), for callers that need it every step."""
        rows = np.arange(s.batch_size) if rows is None else np.asarray(rows, dtype=np.int64)
        mask = np.zeros((len(rows), self.num_actions), dtype=bool)
        b = s.blocks
        done = phase_masks(rows, mask, b["ints"], b["seat_cards"], b["card_flags"], play._SUIT_OF, play._STRENGTH,
                           self.play_options, self.announcement_options)  # fmt: skip
        if not done.all():  # the 5-player call, the poignée's trumps one by one
            left = np.flatnonzero(~done)
            for phase, idx in self._by_phase(s.phase[rows[left]]):
                start, length = _SPAN[phase]
                mask[left[idx], start : start + length] = self._mask_fns[phase](self, s, rows[left[idx]])
        return mask

    # ------------------------------------------------------------------ step
    def step(
        self,
        s: FrenchTarotState,
        actions: np.ndarray,
        rows: np.ndarray | None = None,
        *,
        check: bool = True,
        mask: np.ndarray | None = None,
        rng: np.random.Generator | None = None,
        deals: None = None,
        parallel: bool = False,
    ) -> HandEnds:
        """Apply one action in each of ``rows`` (default: every unfinished deal); returns the deals
        that ended (:meth:`hand_ends`).

        With ``check`` every action is first tested against the legal mask (``mask`` when the
        caller already has it for these rows); an illegal one raises
        :class:`IllegalActionError` before anything changes.

        ``parallel``: the rows playing a card (most rows of a batch) go through the variant of
        the compiled play whose row loop runs on numba's threads (:mod:`tarot_env._threads`).
        """
        if rows is None:
            rows = np.flatnonzero(s.phase != _DONE)
        if type(rows) is not np.ndarray or rows.dtype != np.int64:
            rows = np.asarray(rows, dtype=np.int64)
        if type(actions) is not np.ndarray or actions.dtype != np.int64 or actions.ndim != 1:
            actions = np.asarray(actions, dtype=np.int64).reshape(-1)
        if len(actions) != len(rows):
            raise ValueError(f"got {len(actions)} actions for {len(rows)} deals to play")
        if check:
            self.check_actions(s, rows, actions, mask)
        # Each phase's update returns the rows whose s.legal it left to refresh (None: all).
        if len(rows) == 1:  # the AEC env's case: no grouping by phase needed
            row = rows.item(0)
            phase = s.phase.item(row)
            stale = self._apply_fns[phase](s, rows, actions - _SPAN[phase][0])
            if stale is None or len(stale):
                s.legal[row] = self.legal_action_mask(s, rows)[0]
            return self.hand_ends(s, rows) if s.phase.item(row) == _DONE else self._no_ends
        else:
            parts = []
            for phase, idx in self._by_phase(s.phase[rows]):
                start, _ = _SPAN[phase]
                if phase == Phase.PLAY:
                    left = self._play(s, rows[idx], actions[idx] - start, parallel)
                else:
                    left = self._apply_fns[phase](s, rows[idx], actions[idx] - start)
                parts.append(rows[idx] if left is None else left)
            stale = np.concatenate(parts)
        if len(stale):
            s.legal[stale] = self.legal_action_mask(s, stale)
        ended = rows[s.phase[rows] == _DONE]
        return self.hand_ends(s, ended) if len(ended) else self._no_ends

    def is_terminal(self, s: FrenchTarotState) -> np.ndarray:
        """(B,) bool: the deal of each row is over (played and scored, thrown in, or annulled)."""
        return s.phase == _DONE

    def hand_ends(self, s: FrenchTarotState, rows: np.ndarray) -> HandEnds:
        """The deals at ``rows``, over: how each ended, its scores, and the sides (0 the taker and
        his partner, 1 the defence; each seat its own where nobody took)."""
        if len(rows) == 1:  # the AEC env's deal: plain ints, a tenth of the arrays' fixed costs
            return self._hand_end(s, rows)
        seats = self._seats
        taker = s.taker[rows][:, None]
        attack = teams.is_attack(seats, taker, s.partner[rows][:, None])
        sides = np.where(taker < 0, seats, 1 - attack)
        scores = s.scores[rows].astype(np.int64)
        names, active = _RESULT_NAMES, self._all_seats
        ends = [
            HandEnd(r, names[res], sc, {"result": names[res]}, True, sd, active)
            for r, res, sc, sd in zip(rows.tolist(), s.result[rows].tolist(), scores.tolist(), sides)
        ]
        return HandEnds(ends, rows, scores, sides)

    def _hand_end(self, s: FrenchTarotState, rows: np.ndarray) -> HandEnds:
        """:meth:`hand_ends` of one row."""
        r = rows.item(0)
        taker, partner = s.taker.item(r), s.partner.item(r)
        sides = [seat if taker < 0 else 1 - teams.is_attack(seat, taker, partner) for seat in range(self.num_players)]
        scores = s.scores[r].tolist()
        name = _RESULT_NAMES[s.result.item(r)]
        side_row = np.array(sides, dtype=np.int64)
        end = HandEnd(r, name, scores, {"result": name}, True, side_row, self._all_seats)
        return HandEnds([end], rows, np.array([scores], dtype=np.int64), side_row[None, :])

    def check_actions(self, s: FrenchTarotState, rows: np.ndarray, actions: np.ndarray, mask: np.ndarray | None = None) -> None:
        bad = (actions < 0) | (actions >= self.num_actions)
        if np.count_nonzero(bad):
            a = actions[bad][0]
            raise IllegalActionError(f"action {a} is out of range: French Tarot actions are 0..{self.num_actions - 1}")
        if np.count_nonzero(s.phase[rows] == _DONE):
            raise IllegalActionError("the deal is over: no action is allowed until the next deal starts")
        if mask is None:
            mask = self.legal_action_mask(s, rows)
        ok = mask[np.arange(len(rows)), actions]
        if np.count_nonzero(ok) < len(ok):
            i = int(np.flatnonzero(~ok)[0])
            legal = [A.ACTION_STRINGS[a] for a in np.flatnonzero(mask[i])]
            phase = Phase.name(int(s.phase[rows[i]]))
            raise IllegalActionError(
                f"{A.ACTION_STRINGS[actions[i]]!r} (action {actions[i]}) is not legal for seat "
                f"{int(s.current[rows[i]])} in the {phase} phase{self._why(s, int(rows[i]), int(actions[i]))}; "
                f"legal actions: {', '.join(legal)}"
            )

    def _why(self, s: FrenchTarotState, row: int, action: int) -> str:
        """A short reason for a refused action (for error messages)."""
        phase, seat = int(s.phase[row]), int(s.current[row])
        start, length = _SPAN.get(phase, (0, 0))
        if not start <= action < start + length:
            return ": that is not this phase's kind of action"
        if phase in (Phase.PLAY, Phase.ECART):
            holder = seat if phase == Phase.PLAY else int(s.taker[row])
            card = action - start
            if not s.hands[row, holder, card]:
                return f": {FRENCH_DECK.format(card)} is not in the hand"
            if phase == Phase.PLAY:
                return (
                    ": the rules of docs/rules/french_tarot.md §6.2 require following suit, trumping or overtrumping"
                    " (or §10's opening lead)"
                )
            return ": kings and bouts may never be discarded, trumps only when forced (docs/rules/french_tarot.md §4)"
        if phase == Phase.BID:
            return ": a bid must be higher than the highest bid so far"
        return ""

    # ------------------------------------------------------------------ phase flow
    def _bid(self, s: FrenchTarotState, rows: np.ndarray, choice: np.ndarray) -> None:
        ended = bidding.apply_bid(self, s, rows, choice)
        if not len(ended):
            return
        nobody = s.contract[ended] == 0
        self._throw_in(s, ended[nobody], Result.ALL_PASSED)
        taken = ended[~nobody]
        s.current[taken] = s.taker[taken]
        if self.num_players == 5:
            s.phase[taken] = Phase.CALL
        else:
            self._after_call(s, taken)

    def _call(self, s: FrenchTarotState, rows: np.ndarray, slot: np.ndarray) -> None:
        call.apply_call(self, s, rows, slot)
        self._after_call(s, rows)

    def _after_call(self, s: FrenchTarotState, rows: np.ndarray) -> None:
        if self.config.chelem_announcement == "before_ecart":
            s.phase[rows] = Phase.CHELEM
        else:
            self._to_chien(s, rows)

    def _chelem(self, s: FrenchTarotState, rows: np.ndarray, choice: np.ndarray) -> None:
        s.chelem[rows] = choice == 0
        if self.config.chelem_announcement == "before_ecart":
            self._to_chien(s, rows)
        else:
            self._start_play(s, rows)

    def _to_chien(self, s: FrenchTarotState, rows: np.ndarray) -> None:
        discarding = ecart.take_chien(self, s, rows)
        s.phase[rows[discarding]] = Phase.ECART
        self._after_ecart(s, rows[~discarding])

    def _discard(self, s: FrenchTarotState, rows: np.ndarray, card: np.ndarray) -> None:
        self._after_ecart(s, ecart.apply_discard(self, s, rows, card))

    def _after_ecart(self, s: FrenchTarotState, rows: np.ndarray) -> None:
        if self.config.chelem_announcement == "after_ecart":
            s.phase[rows] = Phase.CHELEM
        else:
            self._start_play(s, rows)

    def _start_play(self, s: FrenchTarotState, rows: np.ndarray) -> None:
        """Who may show a poignée, and the opening lead: ``dealer + 1``, or the taker after
        a chelem announcement (§5.1, §6.1)."""
        n = self.num_players
        announcements.ask_poignees(self, s, rows)
        lead = np.where(s.chelem[rows], s.taker[rows], (s.dealer[rows] + 1) % n)
        s.leader[rows] = lead
        s.current[rows] = lead
        self._to_turn(s, rows)

    def _to_turn(self, s: FrenchTarotState, rows: np.ndarray) -> None:
        """The player to act declares his poignée first, at his first card."""
        first = (s.trick_no[rows] == 0) & s.poignee_todo[rows, s.current[rows]]
        s.phase[rows] = np.where(first, Phase.POIGNEE, Phase.PLAY)

    def _poignee(self, s: FrenchTarotState, rows: np.ndarray, choice: np.ndarray) -> None:
        choosing = announcements.apply_poignee(self, s, rows, choice)
        s.phase[rows] = Phase.PLAY
        s.phase[choosing] = Phase.SHOW

    def _show(self, s: FrenchTarotState, rows: np.ndarray, slot: np.ndarray) -> None:
        complete = announcements.apply_show(self, s, rows, A.SHOW_CARDS[slot])
        s.phase[complete] = Phase.PLAY

    def _play(self, s: FrenchTarotState, rows: np.ndarray, card: np.ndarray, parallel: bool = False) -> np.ndarray:
        """Returns the rows whose ``s.legal`` is still to be computed."""
        over, stale = play.play_cards(self, s, rows, card, parallel)
        if len(stale):
            first_trick = stale[s.trick_no[stale] == 0]
            if len(first_trick):
                self._to_turn(s, first_trick)  # the next player may have a poignée to declare
        if len(over):
            scoring.score_deal(self, s, over)
            s.phase[over] = Phase.DONE
            s.result[over] = Result.PLAYED
        return stale

    def _throw_in(self, s: FrenchTarotState, rows: np.ndarray, result: Result) -> None:
        s.phase[rows] = Phase.DONE
        s.result[rows] = result
        s.scores[rows] = 0

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _by_phase(phases: np.ndarray):
        """Yield ``(phase, indices)`` for each phase present but DONE, indices ascending (a
        slice when there is one row); one compiled pass (:func:`group_by_phase`)."""
        if len(phases) == 1:
            p = int(phases[0])
            if p != _DONE:
                yield p, _ALL
            return
        order, starts = group_by_phase(phases, _NUM_PHASES)
        for p in np.flatnonzero(starts[1 : _DONE + 1] > starts[:_DONE]).tolist():
            yield p, order[starts[p] : starts[p + 1]]


_ALL = slice(None)
_RESULT_NAMES = tuple(Result.name(code) for code in range(Result.count()))


@kernel
def group_by_phase(phases, num_phases):
    """The indices of ``phases`` grouped by phase, ascending within each (a counting sort):
    ``order[starts[p]:starts[p + 1]]`` are those in phase ``p``. One pass over the batch, where a
    comparison and a ``flatnonzero`` per phase present would make one pass each
    (docs/performance.md, "What the kernels replaced")."""
    starts = np.zeros(num_phases + 1, dtype=np.int64)
    for i in range(phases.shape[0]):
        starts[phases[i] + 1] += 1
    for p in range(num_phases):
        starts[p + 1] += starts[p]
    fill = starts[:num_phases].copy()
    order = np.empty(phases.shape[0], dtype=np.int64)
    for i in range(phases.shape[0]):
        p = phases[i]
        order[fill[p]] = i
        fill[p] += 1
    return order, starts
