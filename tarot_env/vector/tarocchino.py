"""The Tarocchino games as vector environments: many tables stepped at once by the same rules code.

The same :class:`~tarot_env.rules.bolognese.game.TarocchinoGame` as the AEC envs, over B rows:
a step applies one action per table (the player to act's) through the compiled state
machine, then scores every hand that ended, in one batch. An episode that ends (a hand, or a
match with ``episode="match"``) is replaced in place by a new one (auto-reset); its final
observations, scores and, on request, its record are delivered in ``infos``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tarot_env.encoding.bolognese import TarocchinoEncoder
from tarot_env.envs.tarocchino_rewards import hand_rewards, match_reward, trick_points, trick_reward
from tarot_env.rules.bolognese.actions import action_to_string, string_to_action
from tarot_env.rules.bolognese.config import TarocchinoConfig
from tarot_env.rules.bolognese.game import MatchDeals, TarocchinoGame
from tarot_env.rules.bolognese.game_specs import GameSpec
from tarot_env.rules.bolognese.state import HAND_NO, PH_DONE, PHASE, TOTAL, TRICK_NO
from tarot_env.rules.game import HandEnds
from tarot_env.rules.options import check_env_options, check_illegal_action
from tarot_env.vector.base import TarotVectorEnv, check_num_envs
from tarot_env.vector.common import VectorStep, all_seats


class TarocchinoVectorEnv(TarotVectorEnv):
    """``num_envs`` tables of one Tarocchino game (see :func:`tarot_env.vector.make`).

    Options are those of the game's AEC env (``num_players`` for Mattazza, ``reward``,
    ``shaping``, ``oracle``, ``dealer`` and every rules option, ``episode="match"``
    included), plus ``records=True`` to receive each finished episode's record in
    ``infos["records"]``; and ``num_threads``, the threads that step and encode the tables
    (default 1; None: every available core; :mod:`tarot_env._threads`), with the same results
    for every number. ``game`` is a game's name or a
    :class:`~tarot_env.rules.bolognese.game_specs.GameSpec` row of one's own (a variant).
    """

    def __init__(
        self,
        num_envs: int,
        game: str | GameSpec,
        *,
        num_players: int | None = None,
        reward: str = "score",
        shaping: bool = False,
        oracle: bool = False,
        dealer: int | None = None,
        records: bool = False,
        render_mode: None = None,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        num_threads: int | None = 1,
        **rules: Any,
    ) -> None:
        num_envs = check_num_envs(num_envs)
        if not isinstance(records, bool):
            raise TypeError(f"records must be True or False, got {records!r}")
        if render_mode is not None:
            raise ValueError("a vector env does not render; make an AEC env to watch a game")
        check_illegal_action(illegal_action, illegal_reward)  # taken as the AEC env takes it; step() always raises
        self.config = TarocchinoConfig.make(game, num_players, **rules)
        check_env_options(self.config.num_players, reward, dealer, shaping=shaping, oracle=oracle)
        self.env_id = f"{self.config.game}_v0"
        self.game_name = self.config.game
        self.game = TarocchinoGame(self.config)
        self.deals = MatchDeals(keep=records)  # the episodes' deals (records need them)
        self.reward_mode, self.shaping, self.oracle, self.dealer, self.records = reward, shaping, oracle, dealer, records
        self.encoder = TarocchinoEncoder(self.game.num_players)
        self._setup(num_envs, num_threads)
        self._actions: list[list[list[int]]] = []
        self._scores: list[list[list[int]]] = []
        self._last_info: dict[int, dict[str, Any]] = {}

    action_to_string = staticmethod(action_to_string)
    string_to_action = staticmethod(string_to_action)

    # ------------------------------------------------------------------ episodes
    def _start(self, deals: list[tuple[int, np.ndarray]] | None) -> dict[str, Any]:
        """A new episode at every table (its first hand the fixed deal when given)."""
        self._actions = [[[]] for _ in range(self.num_envs)]
        self._scores = [[] for _ in range(self.num_envs)]
        self.deals.clear()
        self.game_state = self.game.new_state(self.num_envs)
        if deals is None:
            return self._deal(self._rows)
        dealers = np.array([d[0] for d in deals])
        self.game.start_deals(self.game_state, self._rows, dealers, np.stack([d[1] for d in deals]), deals=self.deals)
        return self._no_ends()

    def _no_ends(self) -> dict[str, Any]:
        """The infos of observations no hand ended before."""
        return {"ended": np.zeros(0, dtype=np.int64), "hands": HandEnds.none(self.num_players)}

    def step(self, actions: Any, rows: Any = None) -> VectorStep:
        """One action per table (the player to act's); with ``rows``, only those tables step.

        ``infos`` holds ``"ended"`` (the tables whose episode ended at this step),
        ``"scores"`` ``(E, N)`` (the last hand's scores), ``"results"``, ``"final_observations"``
        ``(E, N, D)`` and, with ``records=True``, ``"records"`` of those episodes; and
        ``"hands"``: every hand that ended at this step (``HandEnd``: row, result, scores,
        details), matches included.
        """
        if not self._started:
            raise RuntimeError("call reset() before step()")
        rows = self._rows if rows is None else self._check_rows(rows)
        actions = self._check(actions, rows)
        s = self.game_state
        tricks_before = s.ints[rows, TRICK_NO].copy() if self.shaping else None
        hands_before = s.ints[rows, HAND_NO].copy() if self.shaping else None
        with self.threads:
            ends = self.game.step(s, actions, rows, check=False, rng=self._rng, deals=self.deals, parallel=self.threads.parallel)
        if self.records:
            for row, a in zip(rows.tolist(), actions.tolist()):
                self._actions[row][-1].append(a)
        rewards = np.zeros((len(rows), self.num_players))
        if self.shaping:
            self._shape(rows, tricks_before, hands_before, rewards)
        if ends:
            if rows is self._rows:  # every table: row r is at position r
                at = ends.rows
            else:
                position = {r: i for i, r in enumerate(rows.tolist())}
                at = [position[e.row] for e in ends]
            rewards[at] += self._hand_ends(ends)
        done = np.flatnonzero((s.ints[:, PHASE] if rows is self._rows else s.ints[rows, PHASE]) == PH_DONE)
        ended = rows[done]
        infos: dict[str, Any] = {"ended": ended, "hands": ends}
        terminations = np.zeros(len(rows), dtype=bool)
        if len(ended):
            terminations[done] = True
            infos["scores"] = s.scores[ended].copy()
            last = {e.row: e.result for e in ends}
            infos["results"] = [last[r] for r in ended.tolist()]
            infos["final_observations"] = all_seats(self.threads, self.encoder, s, ended, self.num_players)
            if self.records:
                infos["records"] = [self._record(int(r)) for r in ended]
            self._deal(ended)
        return self._result(rows, rewards, terminations, infos)

    # ------------------------------------------------------------------ helpers
    def _hand_ends(self, ends: HandEnds) -> np.ndarray:
        """(E, N) the rewards the hands ``ends`` pay (minus what shaping paid), one hand per row."""
        rows = ends.rows
        if self.records:
            for e in ends:
                self._scores[e.row].append(list(e.scores))
                self._last_info[e.row] = e.info
                if not e.match_over and self.config.match and self.game_state.ints[e.row, PHASE] != PH_DONE:
                    self._actions[e.row].append([])
        if self.config.match and self.config.options["match_reward"] == "result":
            reward = np.zeros((len(ends), self.num_players))
            for i, e in enumerate(ends):
                if e.match_over:
                    reward[i] = match_reward(self.config.spec, e)
            paid = np.array([e.match_over for e in ends])
        else:
            reward = hand_rewards(self.config.spec, self.reward_mode, self.config.options.get("target", 0), ends)
            paid = np.ones(len(ends), dtype=bool)
        reward[paid] -= self._shaped[rows[paid]]
        self._shaped[rows[paid]] = 0.0
        return reward

    def _shape(self, rows: np.ndarray, tricks_before: np.ndarray, hands_before: np.ndarray, rewards: np.ndarray) -> None:
        s = self.game_state
        t = s.ints[rows, TRICK_NO]
        # a trick completed in the same hand (as the AEC env: the last trick of an episode is paid,
        # a hand of a match that gave way to the next one is paid with the hand's reward)
        done = np.flatnonzero((t > tricks_before) & (s.ints[rows, HAND_NO] == hands_before))
        if not len(done):
            return
        r = rows[done]
        last = t[done] - 1
        value = trick_points(s.cards[r], last)
        sides = self.game._sides(s, r)
        winners = s.hist[r, last]
        for k in range(len(r)):
            shaped = trick_reward(self.config.spec, self.reward_mode, float(value[k]), int(winners[k]), sides[k])
            rewards[done[k]] += shaped
            self._shaped[r[k]] += shaped

    def _refusal(self, row: int, action: int) -> str:
        what = action_to_string(action) if 0 <= action < self.num_actions else f"{action} (ids are 0..{self.num_actions - 1})"
        allowed = ", ".join(action_to_string(x) for x in np.flatnonzero(self.game_state.legal[row]))
        return f"action {what!r} is not legal for player_{int(self.game_state.current[row])}; legal: {allowed}"

    def _deal(self, rows: np.ndarray) -> dict[str, Any]:
        """New episodes at ``rows``: random deals (the dealer from the env's ``dealer`` option)."""
        if not len(rows):
            return self._no_ends()
        n = self.num_players
        dealers = self._rng.integers(n, size=len(rows)) if self.dealer is None else np.full(len(rows), self.dealer)
        for r in rows.tolist():
            self.deals.queued.pop(r, None)
            if self.records:
                self._actions[r] = [[]]
                self._scores[r] = []
        self.game.shuffle_and_deal(self.game_state, rows, dealers, self._rng, self.deals)
        return self._no_ends()

    def _record(self, row: int) -> dict[str, Any]:
        head = {"env": self.env_id, "config": self.config.to_dict()}
        entries = []
        for (dealer, pack, active), actions, scores in zip(self.deals.dealt[row], self._actions[row], self._scores[row]):
            entries.append(
                {"deal": self.game.format_deal(dealer, pack, active), "actions": [action_to_string(a) for a in actions], "scores": scores}
            )
        if not self.config.match:
            return {**head, **entries[0]}
        totals = [int(x) for x in self.game_state.seat_ints[row, :, TOTAL]]
        last = self._last_info.get(row, {})
        return {**head, "deals": entries, "totals": totals, "result": last.get("game_winner", last.get("match_losers"))}
