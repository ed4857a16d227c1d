"""What every vector env does the same way, over the one game interface (:class:`tarot_env.rules.game.Game`).

A vector env holds ``num_envs`` tables of one game in one state. :class:`TarotVectorEnv` checks the
options and the arguments (the tables, the actions, the fixed deals given at reset), starts the
episodes, abandons them (``redeal``) and builds what ``reset`` and ``step`` return
(:class:`.common.VectorStep`). Each family's env (:mod:`.french_tarot`, :mod:`.tarocchino`) adds how an
episode is dealt and recorded and what a step pays: a French deal is one hand; a Tarocchino episode
may be a match.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tarot_env._threads import KernelThreads, resolve_threads
from tarot_env.errors import IllegalActionError
from tarot_env.rules.options import check_seed
from tarot_env.vector.common import VectorStep, check_actions, check_rows, first_illegal


def check_num_envs(num_envs: Any) -> int:
    """``num_envs`` as a positive int, or a clear error."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
    return int(num_envs)


class TarotVectorEnv:
    """The part of a vector env that is the same for every game (see the module docstring).

    A family's env sets, in its ``__init__``, ``config``, ``game`` (a :class:`~tarot_env.rules.game.Game`),
    ``encoder``, ``env_id`` and the env options, then calls :meth:`_setup`; and implements
    :meth:`_start` (new episodes at every table, fixed deals or not) and :meth:`_deal` (new episodes
    at some tables), which return the ``infos`` of the observations they lead to."""

    env_id: str
    config: Any
    game: Any
    encoder: Any
    oracle: bool

    def _setup(self, num_envs: int, num_threads: int | None) -> None:
        """The tables, their state and the generator, once the game and its encoder are made."""
        self.num_envs = num_envs
        self.threads = KernelThreads(resolve_threads(num_threads))
        self.num_players = self.game.num_players
        self.num_actions = self.game.num_actions
        self.observation_size = self.encoder.size
        self.game_state = self.game.new_state(self.num_envs)
        self._rows = np.arange(self.num_envs)
        self._rng = np.random.default_rng()
        self._shaped = np.zeros((self.num_envs, self.num_players))
        self._started = False

    # ------------------------------------------------------------------ hooks
    def _start(self, deals: list[tuple[int, np.ndarray]] | None) -> dict[str, Any]:
        """New episodes at every table: from the parsed fixed ``deals`` (one per table), else random."""
        raise NotImplementedError

    def _deal(self, rows: np.ndarray) -> dict[str, Any]:
        """New random episodes at ``rows``."""
        raise NotImplementedError

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> VectorStep:
        """A new episode at every table. ``options={"deals": [deal, ...]}`` fixes their (first)
        deals: one docs/interface.md §4 deal per table, all checked before anything changes."""
        deals = self._parse_deals(options)
        seed = check_seed(seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._shaped[:] = 0.0
        infos = self._start(deals)
        self._started = True
        return self._result(self._rows, np.zeros((self.num_envs, self.num_players)), np.zeros(self.num_envs, bool), infos)

    def redeal(self, rows: Any) -> VectorStep:
        """Abandon the episodes at ``rows`` (no score, no reward, no record) and deal new ones;
        returns those tables' first observations. For wrappers that end an episode early, e.g. the
        SB3 adapter after an illegal action under ``illegal_action="terminate"``."""
        if not self._started:
            raise RuntimeError("call reset() before redeal()")
        rows = self._check_rows(rows)
        self._shaped[rows] = 0.0
        infos = self._deal(rows)
        return self._result(rows, np.zeros((len(rows), self.num_players)), np.zeros(len(rows), bool), infos)

    # ------------------------------------------------------------------ checks
    def _parse_deals(self, options: Any) -> list[tuple[int, np.ndarray]] | None:
        """The reset options: None, or ``{"deals": [one deal per table]}``, each parsed by the game."""
        options = {} if options is None else options
        if not isinstance(options, dict) or set(options) - {"deals"}:
            raise ValueError(f"reset options must be a dict whose only key is 'deals' (one fixed deal per table), got {options!r:.100}")
        deals = options.get("deals")
        if deals is None:
            return None
        if not isinstance(deals, (list, tuple)) or len(deals) != self.num_envs:
            raise ValueError(f"options['deals'] must list {self.num_envs} deals (one per table), got {type(deals).__name__}")
        return [self.game.parse_deal(d) for d in deals]

    def _check_rows(self, rows: Any) -> np.ndarray:
        return check_rows(rows, self.num_envs)

    def _check(self, actions: Any, rows: np.ndarray) -> np.ndarray:
        """Actions as an int64 array, one legal action per table of ``rows``, or a clear error (nothing changes)."""
        arr = check_actions(actions, len(rows), self.num_actions)
        k = first_illegal(self.game_state.legal, rows, arr)
        if k >= 0:
            raise IllegalActionError(f"table {int(rows[k])}: {self._refusal(int(rows[k]), int(arr[k]))}")
        return arr

    def _refusal(self, row: int, action: int) -> str:
        """Why ``action`` is refused at table ``row``, and what is allowed (the game's words)."""
        try:
            self.game.check_actions(self.game_state, np.array([row]), np.array([action]))
        except IllegalActionError as err:
            return str(err)
        raise AssertionError(f"action {action} at table {row} is legal")  # pragma: no cover - first_illegal found it illegal

    # ------------------------------------------------------------------ what a step returns
    def _result(self, rows: np.ndarray, rewards: np.ndarray, terminations: np.ndarray, infos: dict[str, Any]) -> VectorStep:
        s = self.game_state
        every = rows is self._rows  # plain copies are cheaper than gathers
        players = s.current.copy() if every else s.current[rows]
        obs = self.threads.encode(self.encoder, s, rows, players)
        if self.oracle:
            infos["oracle"] = self.encoder.encode_oracle(s, rows, players)
        return VectorStep(obs, s.legal.copy() if every else s.legal[rows], players, rewards, terminations, infos)
