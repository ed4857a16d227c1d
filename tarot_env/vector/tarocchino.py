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

from tarot_env._threads import KernelThreads, resolve_threads
from tarot_env.encoding.bolognese import TarocchinoEncoder
from tarot_env.envs.tarocchino_rewards import hand_rewards, match_reward, trick_points, trick_reward
from tarot_env.errors import IllegalActionError
from tarot_env.rules.bolognese.actions import action_to_string, string_to_action
from tarot_env.rules.bolognese.config import TarocchinoConfig
from tarot_env.rules.bolognese.game import HandEnds, MatchDeals, TarocchinoGame
from tarot_env.rules.bolognese.game_specs import GameSpec
from tarot_env.rules.bolognese.state import HAND_NO, NUM_ACTIONS, PH_DONE, PHASE, TOTAL, TRICK_NO
from tarot_env.rules.options import check_env_options, check_illegal_action, check_seed
from tarot_env.vector.common import VectorStep, all_seats, check_actions, check_rows, first_illegal


class TarocchinoVectorEnv:
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
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
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
        self.num_envs = int(num_envs)
        self.threads = KernelThreads(resolve_threads(num_threads))
        self.num_players = self.game.num_players
        self.num_actions = NUM_ACTIONS
        self.encoder = TarocchinoEncoder(self.num_players)
        self.observation_size = self.encoder.size
        self.game_state = self.game.new_state(self.num_envs)
        self._rows = np.arange(self.num_envs)
        self._rng = np.random.default_rng()
        self._shaped = np.zeros((self.num_envs, self.num_players))
        self._actions: list[list[list[int]]] = []
        self._scores: list[list[list[int]]] = []
        self._last_info: dict[int, dict[str, Any]] = {}
        self._started = False

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> VectorStep:
        """A new episode at every table. ``options={"deals": [deal, ...]}`` fixes the first
        hand of each (one docs/interface.md §4 deal per table)."""
        options = {} if options is None else options
        if not isinstance(options, dict) or set(options) - {"deals"}:
            raise ValueError(f"reset options must be a dict whose only key is 'deals' (one fixed deal per table), got {options!r:.100}")
        deals = options.get("deals")
        if deals is not None:
            if not isinstance(deals, (list, tuple)) or len(deals) != self.num_envs:
                raise ValueError(f"options['deals'] must list {self.num_envs} deals (one per table), got {type(deals).__name__}")
            parsed = [self.game.parse_deal(d) for d in deals]  # all checked before anything changes
        seed = check_seed(seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._shaped[:] = 0.0
        self._actions = [[[]] for _ in range(self.num_envs)]
        self._scores = [[] for _ in range(self.num_envs)]
        self.deals.clear()
        self.game_state = self.game.new_state(self.num_envs)
        if deals is None:
            self._deal(self._rows)
        else:
            dealers = np.array([p[0] for p in parsed])
            packs = np.stack([p[1] for p in parsed])
            self.game.start_deals(self.game_state, self._rows, dealers, packs, deals=self.deals)
        self._started = True
        zeros = np.zeros((self.num_envs, self.num_players))
        return self._result(
            self._rows,
            zeros,
            np.zeros(self.num_envs, bool),
            {"ended": np.zeros(0, dtype=np.int64), "hands": HandEnds.none(self.num_players)},
        )

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
            ends = self.game.step(s, rows, actions, self._rng, self.deals, parallel=self.threads.parallel)
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

    action_to_string = staticmethod(action_to_string)
    string_to_action = staticmethod(string_to_action)

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

    def redeal(self, rows: Any) -> VectorStep:
        """Abandon the episodes at ``rows`` (no score, no reward, no record) and start new ones;
        returns those tables' first observations. For wrappers that end an episode early, e.g.
        the SB3 adapter after an illegal action under ``illegal_action="terminate"``."""
        if not self._started:
            raise RuntimeError("call reset() before redeal()")
        rows = self._check_rows(rows)
        self._shaped[rows] = 0.0
        self._deal(rows)
        infos = {"ended": np.zeros(0, dtype=np.int64), "hands": HandEnds.none(self.num_players)}
        return self._result(rows, np.zeros((len(rows), self.num_players)), np.zeros(len(rows), bool), infos)

    def _check_rows(self, rows: Any) -> np.ndarray:
        return check_rows(rows, self.num_envs)

    def _check(self, actions: Any, rows: np.ndarray) -> np.ndarray:
        """Actions as an int64 array, one legal action per table of ``rows``, or a clear error (nothing changes)."""
        arr = check_actions(actions, len(rows), self.num_actions)
        k = first_illegal(self.game_state.legal, rows, arr)
        if k >= 0:
            row, a = int(rows[k]), int(arr[k])
            what = action_to_string(a) if 0 <= a < self.num_actions else f"{a} (ids are 0..{self.num_actions - 1})"
            allowed = ", ".join(action_to_string(x) for x in np.flatnonzero(self.game_state.legal[row]))
            who = f"player_{int(self.game_state.current[row])}"
            raise IllegalActionError(f"table {row}: action {what!r} is not legal for {who}; legal: {allowed}")
        return arr

    def _deal(self, rows: np.ndarray) -> None:
        """New episodes at ``rows``: random deals (the dealer from the env's ``dealer`` option)."""
        if not len(rows):
            return
        n = self.num_players
        dealers = self._rng.integers(n, size=len(rows)) if self.dealer is None else np.full(len(rows), self.dealer)
        for r in rows.tolist():
            self.deals.queued.pop(r, None)
            if self.records:
                self._actions[r] = [[]]
                self._scores[r] = []
        self.game.shuffle_and_deal(self.game_state, rows, dealers, self._rng, self.deals)

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

    def _result(self, rows: np.ndarray, rewards: np.ndarray, terminations: np.ndarray, infos: dict[str, Any]) -> VectorStep:
        s = self.game_state
        every = rows is self._rows
        players = s.current.copy() if every else s.current[rows]
        obs = self.threads.encode(self.encoder, s, rows, players)
        if self.oracle:
            infos["oracle"] = self.encoder.encode_oracle(s, rows, players)
        return VectorStep(obs, s.legal.copy() if every else s.legal[rows], players, rewards, terminations, infos)
