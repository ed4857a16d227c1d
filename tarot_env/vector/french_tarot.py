"""French Tarot as a vector environment: many deals stepped at once by the same rules code.

Each row is one table. A step takes one action per row — the action of the player to act
in that row — and returns, for every row, the observation and legal mask of the next player
to act, that player's seat, the rewards of every seat, and whether a deal ended. A deal
that ends is replaced in place by a new one (auto-reset); its final observations (of every
seat), scores and, on request, its game record are in ``infos``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tarot_env._threads import KernelThreads, resolve_threads
from tarot_env.encoding.french import FrenchTarotEncoder
from tarot_env.envs.french_rewards import final_rewards, trick_rewards
from tarot_env.rules.french import actions as A
from tarot_env.rules.french.config import make_config
from tarot_env.rules.french.deal import format_deal, parse_deal
from tarot_env.rules.french.game import FrenchTarotGame, IllegalActionError
from tarot_env.rules.french.state import Phase, Result
from tarot_env.rules.options import check_env_options, check_seed
from tarot_env.vector.common import VectorStep, all_seats, check_actions, check_rows, first_illegal

_RESULT_NAMES = tuple(Result.name(code) for code in range(Result.count()))


class FrenchTarotVectorEnv:
    """``num_envs`` French Tarot tables stepped together (see :func:`tarot_env.vector.make`).

    Options are those of ``french_tarot_v0`` (``num_players``, ``reward``, ``shaping``,
    ``oracle``, ``dealer`` and every rules option), plus ``records=True`` to receive the
    game record of each finished deal in ``infos["records"]``, and ``num_threads``: the
    threads the compiled kernels that step and encode the tables run on (default 1; None:
    every available core; :mod:`tarot_env._threads`), with the same results for every number.

    Deals annulled at once (a petit sec under ``petit_sec="annul"``) need no decision: the
    row is dealt again at once, and ``infos["annulled"]`` counts them.
    """

    env_id = "french_tarot_v0"

    def __init__(
        self,
        num_envs: int,
        num_players: int = 4,
        reward: str = "score",
        shaping: bool = False,
        oracle: bool = False,
        dealer: int | None = None,
        records: bool = False,
        num_threads: int | None = 1,
        **rules: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        self.config = make_config(num_players, **rules)
        check_env_options(num_players, reward, dealer, shaping=shaping, oracle=oracle, records=records)
        self.num_envs = int(num_envs)
        self.threads = KernelThreads(resolve_threads(num_threads))
        self.reward_mode, self.shaping, self.oracle, self.dealer, self.records = reward, shaping, oracle, dealer, records
        self.game = FrenchTarotGame(self.config)
        self.encoder = FrenchTarotEncoder(self.game)
        self.num_players = self.game.num_players
        self.num_actions = self.game.num_actions
        self.observation_size = self.encoder.size
        self.game_state = self.game.new_state(self.num_envs)
        self._rows = np.arange(self.num_envs)
        self._rng = np.random.default_rng()
        self._shaped = np.zeros((self.num_envs, self.num_players))
        self._deals: list[tuple[int, np.ndarray, np.ndarray]] = []
        self._actions: list[list[int]] = []
        self._started = False

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> VectorStep:
        """Deal a new deal at every table. ``options={"deals": [deal, ...]}`` fixes them
        (one docs/interface.md §4 deal per table)."""
        options = {} if options is None else options
        if not isinstance(options, dict) or set(options) - {"deals"}:
            raise ValueError(f"reset options must be a dict whose only key is 'deals' (one fixed deal per table), got {options!r:.100}")
        deals = options.get("deals")
        if deals is not None:
            if not isinstance(deals, (list, tuple)) or len(deals) != self.num_envs:
                raise ValueError(f"options['deals'] must list {self.num_envs} deals (one per table), got {type(deals).__name__}")
            parsed = [parse_deal(self.config, d) for d in deals]  # all checked before anything changes
        seed = check_seed(seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._shaped[:] = 0.0
        self._deals = [None] * self.num_envs  # type: ignore[list-item]
        self._actions = [[] for _ in range(self.num_envs)]
        if deals is None:
            annulled = self._deal(self._rows)
        else:
            dealers = np.array([p[0] for p in parsed])
            hands = np.stack([p[1] for p in parsed])
            chien = np.stack([p[2] for p in parsed])
            self.game.start_deal(self.game_state, self._rows, dealers, hands, chien)
            self._snapshot(self._rows)
            given_annulled = self._rows[self.game_state.phase == Phase.DONE]  # a fixed deal with a petit sec
            annulled = len(given_annulled) + self._deal(given_annulled)
        self._started = True
        zeros = np.zeros((self.num_envs, self.num_players))
        return self._result(self._rows, zeros, np.zeros(self.num_envs, bool), {"annulled": annulled})

    def step(self, actions: Any, rows: Any = None) -> VectorStep:
        """One action per table (the player to act's); with ``rows``, only those tables step
        (one action per listed table) and the returned arrays have one row per listed table.

        ``infos`` holds:

        - ``"ended"``: the tables whose deal ended at this step (table numbers);
        - ``"scores"`` ``(E, N)``, ``"results"`` (``"played"``, ``"all_passed"``) and
          ``"final_observations"`` ``(E, N, D)`` (every seat's last observation) of those deals;
        - ``"records"`` (with ``records=True``): their game records (docs/interface.md §5);
        - ``"annulled"``: deals annulled at once while dealing the replacements.
        """
        if not self._started:
            raise RuntimeError("call reset() before step()")
        rows = self._rows if rows is None else self._check_rows(rows)
        actions = self._check(actions, rows)
        s = self.game_state
        tricks_before = s.trick_no[rows] if self.shaping else None
        with self.threads:
            self.game.step(s, actions, rows, check=False, parallel=self.threads.parallel)
        if self.records:
            for row, action in zip(rows.tolist(), actions.tolist()):
                self._actions[row].append(action)
        rewards = np.zeros((len(rows), self.num_players))
        if self.shaping:
            completed = np.flatnonzero(s.trick_no[rows] > tricks_before)
            if len(completed):
                shaped = trick_rewards(self.game, s, rows[completed], self.reward_mode)
                rewards[completed] = shaped
                self._shaped[rows[completed]] += shaped
        done = np.flatnonzero((s.phase if rows is self._rows else s.phase[rows]) == Phase.DONE)
        ended = rows[done]
        infos: dict[str, Any] = {"ended": ended}
        terminations = np.zeros(len(rows), dtype=bool)
        if len(ended):
            terminations[done] = True
            rewards[done] += final_rewards(s.scores[ended], self.reward_mode) - self._shaped[ended]
            self._shaped[ended] = 0.0
            infos["scores"] = s.scores[ended].copy()
            infos["results"] = [_RESULT_NAMES[r] for r in s.result[ended].tolist()]
            infos["final_observations"] = all_seats(self.threads, self.encoder, s, ended, self.num_players)
            if self.records:
                infos["records"] = [self._record(row) for row in ended.tolist()]
            infos["annulled"] = self._deal(ended)
        else:
            infos["annulled"] = 0
        return self._result(rows, rewards, terminations, infos)

    def redeal(self, rows: Any) -> VectorStep:
        """Abandon the deals at ``rows`` (no score, no reward, no record) and deal new ones;
        returns those tables' first observations. For wrappers that end a deal early, e.g. the
        SB3 adapter after an illegal action under ``illegal_action="terminate"``."""
        if not self._started:
            raise RuntimeError("call reset() before redeal()")
        rows = self._check_rows(rows)
        self._shaped[rows] = 0.0
        annulled = self._deal(rows)
        return self._result(rows, np.zeros((len(rows), self.num_players)), np.zeros(len(rows), bool), {"annulled": annulled})

    def action_to_string(self, action: int) -> str:
        return A.action_to_string(action)

    def string_to_action(self, text: str) -> int:
        return A.string_to_action(text)

    # ------------------------------------------------------------------ helpers
    def _check_rows(self, rows: Any) -> np.ndarray:
        return check_rows(rows, self.num_envs)

    def _check(self, actions: Any, rows: np.ndarray) -> np.ndarray:
        """Actions as an int64 array, one legal action per table of ``rows``, or a clear error (nothing changes)."""
        arr = check_actions(actions, len(rows), self.num_actions)
        k = first_illegal(self.game_state.legal, rows, arr)
        if k >= 0:
            row = int(rows[k])
            try:
                self.game.check_actions(self.game_state, rows[k : k + 1], arr[k : k + 1])
            except IllegalActionError as err:
                raise IllegalActionError(f"table {row}: {err}") from None
        return arr

    def _deal(self, rows: np.ndarray) -> int:
        """Random deals for ``rows``, dealt again while annulled at once; returns how many were annulled."""
        annulled = 0
        while len(rows):
            dealers = self._rng.integers(self.num_players, size=len(rows)) if self.dealer is None else np.full(len(rows), self.dealer)
            self.game.shuffle_and_deal(self.game_state, rows, dealers, self._rng)
            self._snapshot(rows)
            rows = rows[self.game_state.phase[rows] == Phase.DONE]
            annulled += len(rows)
        return annulled

    def _snapshot(self, rows: np.ndarray) -> None:
        if self.records:
            s = self.game_state
            for row in rows.tolist():
                self._deals[row] = (int(s.dealer[row]), s.hands[row].copy(), s.chien[row].copy())
                self._actions[row] = []

    def _record(self, row: int) -> dict[str, Any]:
        return {
            "env": self.env_id,
            "config": self.config.to_dict(),
            "deal": format_deal(*self._deals[row]),
            "actions": [A.ACTION_STRINGS[a] for a in self._actions[row]],
            "scores": [int(x) for x in self.game_state.scores[row]],
        }

    def _result(self, rows: np.ndarray, rewards: np.ndarray, terminations: np.ndarray, infos: dict[str, Any]) -> VectorStep:
        s = self.game_state
        every = rows is self._rows  # plain copies are cheaper than gathers
        players = s.current.copy() if every else s.current[rows]
        obs = self.threads.encode(self.encoder, s, rows, players)
        if self.oracle:
            infos["oracle"] = self.encoder.encode_oracle(s, rows, players)
        return VectorStep(obs, s.legal.copy() if every else s.legal[rows], players, rewards, terminations, infos)
