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

from tarot_env.encoding.french import FrenchTarotEncoder
from tarot_env.envs.french_rewards import final_rewards, trick_rewards
from tarot_env.rules.french import actions as A
from tarot_env.rules.french.config import make_config
from tarot_env.rules.french.deal import format_deal
from tarot_env.rules.french.game import FrenchTarotGame
from tarot_env.rules.french.state import Phase, Result
from tarot_env.rules.options import check_env_options
from tarot_env.vector.base import TarotVectorEnv, check_num_envs
from tarot_env.vector.common import VectorStep, all_seats

_RESULT_NAMES = tuple(Result.name(code) for code in range(Result.count()))


class FrenchTarotVectorEnv(TarotVectorEnv):
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
        num_envs = check_num_envs(num_envs)
        self.config = make_config(num_players, **rules)
        check_env_options(num_players, reward, dealer, shaping=shaping, oracle=oracle, records=records)
        self.reward_mode, self.shaping, self.oracle, self.dealer, self.records = reward, shaping, oracle, dealer, records
        self.game = FrenchTarotGame(self.config)
        self.encoder = FrenchTarotEncoder(self.game)
        self._setup(num_envs, num_threads)
        self._deals: list[tuple[int, np.ndarray, np.ndarray]] = []
        self._actions: list[list[int]] = []

    action_to_string = staticmethod(A.action_to_string)
    string_to_action = staticmethod(A.string_to_action)

    # ------------------------------------------------------------------ episodes
    def _start(self, deals: list[tuple[int, np.ndarray]] | None) -> dict[str, Any]:
        """Deal at every table (the fixed ``deals`` when given); a deal a petit sec annuls is dealt again."""
        self._deals = [None] * self.num_envs  # type: ignore[list-item]
        self._actions = [[] for _ in range(self.num_envs)]
        if deals is None:
            return self._deal(self._rows)
        dealers = np.array([d[0] for d in deals])
        self.game.start_deals(self.game_state, self._rows, dealers, np.stack([d[1] for d in deals]))
        self._snapshot(self._rows)
        given_annulled = self._rows[self.game_state.phase == Phase.DONE]  # a fixed deal with a petit sec
        return {"annulled": len(given_annulled) + self._deal(given_annulled)["annulled"]}

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
            infos["annulled"] = self._deal(ended)["annulled"]
        else:
            infos["annulled"] = 0
        return self._result(rows, rewards, terminations, infos)

    # ------------------------------------------------------------------ helpers
    def _deal(self, rows: np.ndarray) -> dict[str, Any]:
        """Random deals for ``rows``, dealt again while annulled at once; ``annulled``: how many were."""
        annulled = 0
        while len(rows):
            dealers = self._rng.integers(self.num_players, size=len(rows)) if self.dealer is None else np.full(len(rows), self.dealer)
            self.game.shuffle_and_deal(self.game_state, rows, dealers, self._rng)
            self._snapshot(rows)
            rows = rows[self.game_state.phase[rows] == Phase.DONE]
            annulled += len(rows)
        return {"annulled": annulled}

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
