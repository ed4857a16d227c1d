"""A Stable-Baselines3 ``VecEnv`` over the vector env: one learning seat per table, opponents acting in batches.

``MaskablePPO`` (sb3-contrib) then trains on many deals per step in one process:

>>> from sb3_contrib import MaskablePPO
>>> from tarot_env.wrappers import TarotVecEnv
>>> venv = TarotVecEnv(64, seat="rotate", num_players=4)
>>> model = MaskablePPO("MlpPolicy", venv, n_steps=128).learn(100_000)

Each SB3 step gives every table the learner's action, then plays the opponents of all the
tables together, one ``act`` call per opponent agent over every table where one of its seats
is to act, until every table is back at the learner's turn.

Stable-Baselines3 is imported by this module only: the core package does not need it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

from tarot_env.errors import IllegalActionError
from tarot_env.rules.options import check_illegal_action
from tarot_env.vector import make as make_vector
from tarot_env.wrappers.single_agent import Agent, check_seat, opponents_list, reseed_default


class TarotVecEnv(VecEnv):
    """``num_envs`` tables of a vector env as an SB3 ``VecEnv`` for one learning seat per table.

    - ``seat``: the learner's seat at every table, ``"rotate"`` (table ``t`` starts at seat
      ``t % N`` and the seat moves on by one at each new deal) or ``"random"`` (drawn at each deal).
    - ``opponents``: as for :class:`~tarot_env.wrappers.SingleAgentEnv`: one agent for every other
      seat, or ``num_players - 1`` agents, the ``k``-th playing ``k + 1`` places after the learner.
      Default: a uniform random agent, re-seeded by the reset seed. :meth:`set_opponents` swaps them.
    - ``illegal_action``: ``"raise"`` (default: an illegal learner action raises
      :class:`~tarot_env.IllegalActionError` and nothing changes) or ``"terminate"`` (that
      table's deal ends at once: ``done``, reward ``illegal_reward``, ``info["illegal_action"]``,
      and a new deal starts there; the other tables step as usual), as for the AEC envs.
    - ``critic_oracle``: the observations SB3 sees (``reset``, ``step``, ``"terminal_observation"``)
      are the learner's observation followed by his oracle row, the hidden cards from his seat
      (the vector env is made with ``oracle=True``): ``(B, D + O)`` int8, where
      :attr:`observation_size` is ``D`` and :attr:`oracle_size` is ``O``. For an asymmetric critic
      (experiments/train.py ``--critic-oracle``): the value head reads the oracle, the policy reads
      the first ``D`` columns only. The opponents still act on the ``D`` columns alone: no agent
      ever sees the oracle. It makes the env's ``oracle`` option itself, so that option is refused beside it.
    - every other keyword is an option of the vector env (``num_players``, ``reward``, ``shaping``,
      ``records``, rules options...).

    SB3 semantics: ``reset()`` returns the learner's observations ``(B, D)`` int8 (``(B, D + O)`` with ``critic_oracle``);
    ``step(actions)`` returns ``(obs, rewards, dones, infos)``. A table's reward is what its
    learner earned from his action up to his next turn (or the deal's end), so a deal's rewards
    sum to his reward for the deal (his score with ``reward="score"``). A table whose deal ends
    is ``done``, its ``obs`` is the learner's first observation of the next deal, and its info
    holds ``"terminal_observation"`` (the learner's last observation of the finished deal),
    ``"scores"``, ``"result"``, ``"seat"`` (his seat in that deal) and, with ``records=True``,
    ``"record"``. A deal that ends before the learner had any decision (none in the French
    rules: a petit sec is redealt by the vector env itself) is skipped without a ``done``.

    :meth:`action_masks` gives the learner's legal actions ``(B, A)``; ``env_method("action_masks")``
    (what ``sb3_contrib``'s ``get_action_masks`` calls) gives them table by table. Wrap in
    ``VecMonitor`` for episode statistics. ``seed(s)`` (from ``MaskablePPO(seed=s)``) seeds the
    next ``reset``; ``get_attr``/``set_attr`` read and write the adapter's own attributes, shared
    by all tables.
    """

    def __init__(
        self,
        num_envs: int,
        env_id: str = "french_tarot_v0",
        seat: int | str = 0,
        opponents: Agent | Sequence[Agent] | None = None,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        critic_oracle: bool = False,
        **config: Any,
    ) -> None:
        check_illegal_action(illegal_action, illegal_reward)
        if critic_oracle and "oracle" in config:
            raise ValueError(
                f"critic_oracle=True makes the vector env with oracle=True itself: drop the oracle={config['oracle']!r} option "
                "(the oracle goes to the learner's critic alone, appended to his observations)"
            )
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.critic_oracle = bool(critic_oracle)
        self.venv = make_vector(env_id, num_envs, **config, **({"oracle": True} if critic_oracle else {}))
        self.num_players = self.venv.num_players
        #: the width ``D`` of an observation (the policy's and the opponents' input), and ``O`` of the
        #: oracle row appended to the learner's observations with ``critic_oracle`` (0 without)
        self.observation_size = int(self.venv.observation_size)
        self.oracle_size = int(self.venv.encoder.oracle_size) if critic_oracle else 0
        check_seat(seat, self.num_players, ("rotate", "random"))
        self.seat_option = seat
        self.render_mode = None  # read by VecEnv.__init__ through get_attr
        self.set_opponents(opponents)
        super().__init__(
            self.venv.num_envs,
            spaces.Box(0, 1, (self.observation_size + self.oracle_size,), dtype=np.int8),
            spaces.Discrete(self.venv.num_actions),
        )
        b = self.num_envs
        self._rows = np.arange(b)
        self._rng = np.random.default_rng()
        self.seats = np.zeros(b, dtype=np.int64)  # the learner's seat at each table
        self._obs = np.zeros((b, self.venv.observation_size), dtype=np.int8)  # of the player to act
        self._oracle = np.zeros((b, self.oracle_size), dtype=np.int8)  # his oracle row (critic_oracle only)
        self._masks = np.zeros((b, self.venv.num_actions), dtype=bool)
        self._players = np.zeros(b, dtype=np.int64)
        self._acted = np.zeros(b, dtype=bool)  # the learner has acted in the table's current deal
        self._earned = np.zeros(b)
        self._actions: np.ndarray | None = None
        self._started = False
        #: seconds spent in the vector env's steps and in the opponents' ``act`` calls since the
        #: adapter was made (the training script's breakdown reads and differences them)
        self.seconds = {"env": 0.0, "opponents": 0.0}

    def set_opponents(self, opponents: Agent | Sequence[Agent] | None) -> None:
        """Replace the opponents (they act from the next step on)."""
        self.opponents, self._default_opponents = opponents_list(opponents, self.num_players)
        self._group_opponents()

    def _group_opponents(self) -> None:
        # each distinct agent with the slots (places after the learner) it plays: one act() call per agent
        distinct = list({id(a): a for a in self.opponents}.values())
        self._groups = distinct
        self._slot_group = np.array([next(g for g, a in enumerate(distinct) if a is b) for b in self.opponents])

    # ------------------------------------------------------------------ VecEnv API
    def reset(self) -> np.ndarray:
        seed = self._seeds[0]
        self._reset_seeds()
        if seed is not None:
            self._rng = np.random.default_rng([seed, 1])
            if self._default_opponents:
                self.opponents = [reseed_default(seed)] * (self.num_players - 1)
                self._group_opponents()
        out = self.venv.reset(seed=seed)
        n = self.num_players
        if self.seat_option == "rotate":
            self.seats = self._rows % n
        elif self.seat_option == "random":
            self.seats = self._rng.integers(n, size=self.num_envs)
        else:
            self.seats = np.full(self.num_envs, int(self.seat_option))
        self._obs[:], self._masks[:], self._players[:] = out.observations, out.action_masks, out.players
        if self.critic_oracle:
            self._oracle[:] = out.infos["oracle"]
        self._acted[:] = False
        self._actions = None
        self._started = True
        self._play_opponents(None)
        self.reset_infos = [{"seat": int(s)} for s in self.seats]
        return self._learner_obs()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(-1)

    def step_wait(self) -> VecEnvStepReturn:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        actions, self._actions = self._actions, None
        step = _Step(self.num_envs)
        self._earned[:] = 0.0
        acted = self._acted.copy()
        rows, actions = self._rows, actions.astype(np.int64)
        if self.illegal_action == "terminate":
            legal = (actions >= 0) & (actions < self._masks.shape[1])
            legal[legal] = self._masks[rows[legal], actions[legal]]
            if not legal.all():
                self._end_on_illegal(np.flatnonzero(~legal), actions[~legal], step)
                rows, actions = rows[legal], actions[legal]
        self._acted[rows] = True
        try:
            if len(rows):
                self._apply(rows, actions, step)  # every table is at the learner's turn
        except Exception:
            self._acted[:] = acted  # an illegal action changed nothing
            raise
        self._play_opponents(step)
        rewards = np.where(step.dones, step.rewards, self._earned).astype(np.float32)
        return self._learner_obs(), rewards, step.dones, step.infos

    def _learner_obs(self) -> np.ndarray:
        """What SB3 sees of every table (each at its learner's turn): the observations, followed by
        the oracle rows with ``critic_oracle``."""
        if not self.critic_oracle:
            return self._obs.copy()
        return np.concatenate([self._obs, self._oracle], axis=1)

    def _end_on_illegal(self, tables: np.ndarray, actions: np.ndarray, step: _Step) -> None:
        """``illegal_action="terminate"``: the deals at ``tables`` end (reward ``illegal_reward``)
        and new deals start there; the learner's illegal action is never played."""
        for table, action in zip(tables.tolist(), actions.tolist()):
            step.dones[table] = True
            step.rewards[table] = self.illegal_reward
            step.infos[table] = {
                # the learner's observation at his illegal action (with his oracle row, known here)
                "terminal_observation": np.concatenate([self._obs[table], self._oracle[table]]),
                "seat": int(self.seats[table]),
                "illegal_action": {"action": int(action), "reason": "not among the learner's legal actions (action_masks())"},
            }
        out = self.venv.redeal(tables)
        self._obs[tables], self._masks[tables], self._players[tables] = out.observations, out.action_masks, out.players
        if self.critic_oracle:
            self._oracle[tables] = out.infos["oracle"]
        self._acted[tables] = False
        if self.seat_option == "rotate":
            self.seats[tables] = (self.seats[tables] + 1) % self.num_players
        elif self.seat_option == "random":
            self.seats[tables] = self._rng.integers(self.num_players, size=len(tables))

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions at every table, ``(B, A)`` bool."""
        return self._masks.copy()

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self, attr_name)  # AttributeError, as VecEnv.has_attr expects, for a missing one
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any) -> list[Any]:
        """``"action_masks"``: each table's mask; any other method of the adapter: its result, once per table."""
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(self._masks[rows])  # one copy, row by row: a list of 1,024 copies would cost a rollout step 1 ms
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in rows]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    # ------------------------------------------------------------------ the play
    def _play_opponents(self, step: _Step | None) -> None:
        """Opponents act, in batches, until every table is at its learner's turn."""
        n = self.num_players
        while True:
            rows = np.flatnonzero(self._players != self.seats)
            if not len(rows):
                return
            group = self._slot_group[(self._players[rows] - self.seats[rows]) % n - 1]
            actions = np.empty(len(rows), dtype=np.int64)
            for g, agent in enumerate(self._groups):
                mine = group == g
                if mine.any():
                    sel = rows[mine]
                    start = time.perf_counter()
                    chosen = np.asarray(agent.act(self._obs[sel], self._masks[sel])).reshape(-1).astype(np.int64)
                    self.seconds["opponents"] += time.perf_counter() - start
                    if chosen.shape != (len(sel),):
                        raise ValueError(f"opponent {agent!r} returned {chosen.size} actions for a batch of {len(sel)}")
                    legal = (chosen >= 0) & (chosen < self._masks.shape[1])
                    legal[legal] = self._masks[sel[legal], chosen[legal]]
                    if not legal.all():
                        raise IllegalActionError(f"opponent {agent!r} chose the illegal action {int(chosen[~legal][0])}")
                    actions[mine] = chosen
            self._apply(rows, actions, step)

    def _apply(self, rows: np.ndarray, actions: np.ndarray, step: _Step | None) -> None:
        """Step ``rows`` with ``actions``; pay the learners; close the deals that end."""
        start = time.perf_counter()
        out = self.venv.step(actions, rows)  # checks every action: an illegal one raises here, before any change
        self.seconds["env"] += time.perf_counter() - start
        rewards, infos = out.rewards, out.infos
        self._obs[rows], self._masks[rows], self._players[rows] = out.observations, out.action_masks, out.players
        if self.critic_oracle:
            self._oracle[rows] = infos["oracle"]
        ended = infos["ended"]
        last_obs = infos["final_observations"][np.arange(len(ended)), self.seats[ended]] if len(ended) else None
        if self.critic_oracle and len(ended):
            # The finished deal's oracle is not in the infos (only its final observations are): zeros.
            # Harmless: a deal ends by termination (gamma 1, no value after it), and SB3 reads
            # terminal_observation only to bootstrap a truncated episode ("TimeLimit.truncated"), never set here.
            last_obs = np.concatenate([last_obs, np.zeros((len(ended), self.oracle_size), dtype=np.int8)], axis=1)
        paid = self._acted[rows]
        self._earned[rows[paid]] += rewards[paid, self.seats[rows[paid]]]
        for k, table in enumerate(ended.tolist()):
            if self._acted[table] and step is not None:
                step.dones[table] = True
                step.rewards[table] = self._earned[table]
                info = {
                    "terminal_observation": last_obs[k].copy(),
                    "scores": [int(x) for x in infos["scores"][k]],
                    "result": infos["results"][k],
                    "seat": int(self.seats[table]),
                }
                if "records" in infos:
                    info["record"] = infos["records"][k]
                step.infos[table] = info
            self._earned[table] = 0.0
            self._acted[table] = False
            if self.seat_option == "rotate":
                self.seats[table] = (self.seats[table] + 1) % self.num_players
            elif self.seat_option == "random":
                self.seats[table] = self._rng.integers(self.num_players)


class _Step:
    """What one SB3 step returns besides the observations."""

    def __init__(self, num_envs: int) -> None:
        self.dones = np.zeros(num_envs, dtype=bool)
        self.rewards = np.zeros(num_envs)
        self.infos: list[dict[str, Any]] = [{} for _ in range(num_envs)]
