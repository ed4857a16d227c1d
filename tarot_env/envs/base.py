"""A thin PettingZoo AEC environment over a batch-first game at batch size 1.

The env holds one state row, asks the game for masks and transitions, and asks the encoder
for observations. It contains no rule. Subclasses name the game, its config class, its
encoder, how to start, render and record a deal, and what a hand that ends pays.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from tarot_env.errors import IllegalActionError
from tarot_env.rules.game import HandEnds
from tarot_env.rules.options import check_illegal_action, check_seed

#: the rows argument of the game and encoder calls: the env is row 0 of a batch of one
ROW = np.zeros(1, dtype=np.int64)


class TarotAECEnv(AECEnv):
    """Common AEC machinery: spaces, reset/step/observe, rewards, records, ``render()``,
    PettingZoo's ``state()`` and the ``illegal_action="terminate"`` ending.

    Subclasses set ``metadata`` and implement the hooks below and ``render_text()``. What a
    hand that ends pays goes through ``_pay``: from ``_finish`` when an episode is one deal
    (French Tarot), from ``_hands_ended`` for each hand that ``_apply`` reports when an
    episode may hold several (a Tarocchino match).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "is_parallelizable": False}
    #: the reset options, and how the warning about an unknown one describes them
    _reset_options: tuple[str, ...] = ("deal",)
    _reset_options_text = "the only reset option is 'deal' (a fixed deal, docs/interface.md §4)"
    #: what an episode is called in messages
    _episode = "deal"
    illegal_action: str = "raise"
    illegal_reward: float = -1.0
    #: set when the episode was ended by an illegal action (``illegal_action="terminate"``)
    illegal_end: dict[str, Any] | None = None
    #: why the episode was truncated (a fixed deal a match could not follow), else None
    _truncated: str | None = None
    #: the deals of a match, which the game's step reads (a Tarocchino env's; None: an episode is one deal)
    deals: Any = None

    def __init__(
        self,
        config: Any,
        render_mode: str | None = None,
        reward: str = "score",
        shaping: bool = False,
        oracle: bool = False,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not supported; choose one of {self.metadata['render_modes']} or None")
        check_illegal_action(illegal_action, illegal_reward)
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.config = config
        self.render_mode = render_mode
        self.reward_mode = reward
        self.shaping = shaping
        self.oracle = oracle
        self.game = self._make_game(config)
        self._done_phase = self.game.Phase.DONE
        self.encoder = self._make_encoder(self.game)
        self.num_players = n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self._agent_index = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = {
            "observation": spaces.Box(0, 1, (self.encoder.size,), dtype=np.int8),
            "action_mask": spaces.Box(0, 1, (self.game.num_actions,), dtype=np.int8),
        }
        if oracle:
            obs_space["oracle"] = spaces.Box(0, 1, (self.encoder.oracle_size,), dtype=np.int8)
        self.observation_spaces = {a: spaces.Dict(obs_space) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.game.num_actions) for a in self.possible_agents}
        self._rng: np.random.Generator | None = None
        self.game_state = self.game.new_state(1)
        self._started = False
        #: the hands of the episode: {"deal": snapshot, "actions": [...], then "scores" (and "info")}
        self._deals: list[dict[str, Any]] = []
        self._actions: list[int] = []  # the current hand's actions (its entry's list)
        self._last_record: tuple | None = None
        self._cache: dict[int, dict[str, np.ndarray]] = {}
        self._shaped = np.zeros(n)
        self._viewers = [np.array([i], dtype=np.int64) for i in range(n)]
        self._over = False
        self._paid = True  # whether self.rewards may hold a nonzero reward
        self._action_buf = np.zeros(1, dtype=np.int64)

    # ------------------------------------------------------------------ hooks
    def _make_game(self, config: Any) -> Any:
        raise NotImplementedError

    def _make_encoder(self, game: Any) -> Any:
        raise NotImplementedError

    def _parse_reset(self, options: dict[str, Any]) -> Any:
        """Check the reset options (a fixed deal: docs/interface.md §4) before anything changes;
        raise a clear error for a malformed one. What it returns goes to ``_start``."""
        raise NotImplementedError

    def _start(self, start: Any, rng: np.random.Generator) -> None:
        """Start an episode in ``self.game_state``: as the parsed reset options say, else a random deal."""
        raise NotImplementedError

    def _apply(self, action: int) -> HandEnds:
        """Apply a legal action (checked by :meth:`step`); return the hands that it ended (passed to
        ``_hands_ended``). The game's step, as every game has it (:class:`tarot_env.rules.game.Game`);
        ``deals`` are a match's (a Tarocchino env's; None where an episode is one deal)."""
        self._action_buf[0] = action
        if self.deals is None:  # an episode of one deal: no next hand to deal (and no keywords to pass, at ~15 µs a step)
            return self.game.step(self.game_state, self._action_buf, ROW, check=False)
        return self.game.step(self.game_state, self._action_buf, ROW, check=False, rng=self._rng, deals=self.deals)

    def _refuse(self, action: int) -> None:
        """Raise the ``IllegalActionError`` that says why ``action`` is illegal now, and what is
        allowed: the game's words (``game.check_actions``)."""
        self.game.check_actions(self.game_state, ROW, np.array([action]))  # any int: a huge id is refused by value

    def _deal_snapshot(self) -> Any:
        """What the record needs of the deal just dealt (copied; formatted only on demand)."""
        raise NotImplementedError

    def _deal_record(self, snapshot: Any) -> dict[str, Any]:
        """The docs/interface.md §4 form of a deal snapshot."""
        raise NotImplementedError

    def _trick_rewards(self) -> np.ndarray | None:
        """Per-seat shaping rewards of the trick completed by the last step, or None."""
        raise NotImplementedError

    def _hands_ended(self, ends: Any) -> None:
        """Pay the hands that the last step ended (see ``_apply``) with ``_pay``."""
        raise NotImplementedError

    def render_text(self) -> str:
        raise NotImplementedError

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise TypeError(f"reset options must be a dict such as {{'deal': ...}}, got {options!r} ({type(options).__name__})")
        unknown = set(options) - set(self._reset_options)
        if unknown:
            # Warned, not refused: PettingZoo's api_test requires reset to accept any options.
            warnings.warn(f"unknown reset option(s) {sorted(unknown)} ignored; {self._reset_options_text}", UserWarning, stacklevel=2)
        seed = check_seed(seed)
        start = self._parse_reset(options)  # checked before anything changes
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        elif self._rng is None:
            self._rng = np.random.default_rng()
        self._start(start, self._rng)
        self._deals = []
        self._new_hand()
        self._started = True
        self.illegal_end = None
        self._truncated = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._paid = False
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._shaped[:] = 0.0
        self._changed()
        if self.game_over:
            self._finish()
            self._accumulate_rewards()
        else:
            self.agent_selection = self.possible_agents[self._current]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._started:
            raise RuntimeError("call reset() before observe(): no deal has been dealt yet")
        seat = self._agent_index.get(agent) if isinstance(agent, str) else None
        if seat is None:
            raise ValueError(f"unknown agent {agent!r}: the agents are {', '.join(self.possible_agents)}")
        obs = self._cache.get(seat)
        if obs is None:
            viewer = self._viewers[seat]
            if not self._over and seat == self._current:
                mask = self.legal_mask().astype(np.int8)
            else:
                mask = np.zeros(self.game.num_actions, dtype=np.int8)
            obs = {"observation": self.encoder.encode(self.game_state, ROW, viewer)[0], "action_mask": mask}
            if self.oracle:
                obs["oracle"] = self.encoder.encode_oracle(self.game_state, ROW, viewer)[0]
            self._cache[seat] = obs
        return obs

    def step(self, action: Any) -> None:
        if not self._started:
            raise RuntimeError("call reset() before step(): no deal has been dealt yet")
        if not self.agents:
            raise RuntimeError(
                f"step({action!r}) refused: the {self._episode} is over and every agent has been removed; call reset() to start the next"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(
                    f"action {action!r} refused: the {self._episode} is over and {agent} is done; step(None) removes each "
                    f"finished agent (as agent_iter does), and reset() starts the next {self._episode}"
                )
            self._was_dead_step(action)
            return
        action = self._parse_action(action)
        mask = self.legal_mask()
        if not (0 <= action < len(mask) and mask[action]):
            try:
                self._refuse(action)  # says why, before any change
            except IllegalActionError as err:
                if self.illegal_action == "raise":
                    raise
                self._end_on_illegal(agent, action, str(err))
                return
        ends = self._apply(action)
        self._actions.append(action)
        self._changed()
        self._cumulative_rewards[agent] = 0.0
        if self._paid:  # rewards of the last step are cleared (most steps pay nothing)
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._paid = False
        if self.shaping:
            shaped = self._trick_rewards()
            if shaped is not None:
                self._shaped += shaped
                for i, a in enumerate(self.possible_agents):
                    self.rewards[a] = float(shaped[i])
                self._paid = True
        if ends:
            self._hands_ended(ends)
        if self._over:
            self._finish()
        else:
            self.agent_selection = self.possible_agents[self._current]
        if self._paid:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def state(self) -> np.ndarray:
        """The full state, for centralised critics (PettingZoo's ``state()``; its space is
        ``state_space``): seat 0's observation followed by the oracle block, which adds every
        hidden card, so that nothing of the deal is missing. Seats are absolute (seat 0's view)."""
        if not self._started:
            raise RuntimeError("call reset() before state(): no deal has been dealt yet")
        observation = self.encoder.encode(self.game_state, ROW, ROW)[0]
        return np.concatenate([observation, self.encoder.encode_oracle(self.game_state, ROW, ROW)[0]])

    @property
    def state_space(self) -> spaces.Box:
        return spaces.Box(0, 1, (self.encoder.size + self.encoder.oracle_size,), dtype=np.int8)

    def render(self) -> str | None:
        if self.render_mode is None:
            raise ValueError("render() needs a render_mode: make the env with render_mode='ansi' or 'human'")
        text = self.render_text()
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ helpers
    @property
    def game_over(self) -> bool:
        """Whether the episode is over (cached with the state's last change)."""
        return self._over

    def legal_mask(self) -> np.ndarray:
        """Legal actions of the player to act (bool; a view of the game's state, which the
        next step changes: copy it to keep it)."""
        return self.game_state.legal[0]

    def legal_actions(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.legal_mask())]

    def _changed(self) -> None:
        """The state changed: drop cached observations and mask, note whose turn it is."""
        self._cache.clear()
        self._over = self.game_state.phase.item(0) == self._done_phase
        self._current = self.game_state.current.item(0)

    def _parse_action(self, action: Any) -> int:
        if type(action) is int:
            return action
        if isinstance(action, str):
            return self.string_to_action(action)
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
                return int(action)
            raise TypeError(
                f"action {action!r} ({type(action).__name__}) is not an action id: give an int in "
                f"0..{self.game.num_actions - 1} or an action string (see action_to_string)"
            )
        return int(action)

    def _new_hand(self) -> None:
        """Open the record entry of the hand just dealt."""
        self._actions = []
        self._deals.append({"deal": self._deal_snapshot(), "actions": self._actions})

    def _pay(self, reward: np.ndarray, info: dict[str, Any]) -> None:
        """A hand ended: add its per-seat ``reward`` (less what shaping paid) to this step's, and
        give every agent its ``info`` (its ``scores`` included)."""
        for i, a in enumerate(self.possible_agents):
            self.rewards[a] += float(reward[i])
            self.infos[a] = dict(info, scores=list(info["scores"]))
        self._paid = True

    def _finish(self) -> None:
        """The episode is over: every agent is terminated; its record is kept (made into a dict by record())."""
        truncated = self._truncated is not None
        for a in self.possible_agents:
            self.truncations[a] = truncated
            self.terminations[a] = not truncated
            if truncated:
                self.infos[a] = dict(self.infos[a], truncated=self._truncated)
        self._last_record = self._record_args()
        self.agent_selection = self.possible_agents[self._current]

    def _record_args(self) -> tuple:
        """What ``_make_record`` needs of the episode that just ended."""
        return (self._deals,)

    def _end_on_illegal(self, agent: str, action: int, reason: str) -> None:
        """``illegal_action="terminate"``: the episode ends at once, as PettingZoo's
        ``TerminateIllegalWrapper`` ends it: every agent is terminated, the offender is rewarded
        ``illegal_reward`` and the others 0. The game state is left as it was before the action;
        the deal has no record. ``infos[agent]["illegal_action"]`` says what was refused and why."""
        warnings.warn(
            "an illegal action ended the episode (illegal_action='terminate'); infos[agent]['illegal_action'] says which and why",
            UserWarning,
            stacklevel=3,
        )
        self.illegal_end = {"agent": agent, "action": int(action), "reason": reason}
        self._over = True
        self._cache.clear()
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = float(self.illegal_reward)
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.terminations[a] = True
            self.infos[a] = {"illegal_action": dict(self.illegal_end)}
        self._accumulate_rewards()

    def record(self) -> dict[str, Any]:
        """The JSON-ready record of the last finished episode (docs/interface.md §5)."""
        if self.illegal_end is not None:
            raise RuntimeError(f"the last {self._episode} was ended by an illegal action ({self.illegal_end['reason']}): it has no record")
        if self._last_record is None:
            raise RuntimeError(f"no {self._episode} has finished yet: record() describes the last finished {self._episode}")
        return self._make_record(*self._last_record)

    def _make_record(self, deals: list[dict[str, Any]]) -> dict[str, Any]:
        return {"env": self.metadata["name"], "config": self.config.to_dict(), **self._hand_record(deals[0])}

    def _hand_record(self, entry: dict[str, Any]) -> dict[str, Any]:
        """One hand's deal, actions and scores in the record's form."""
        return {
            "deal": self._deal_record(entry["deal"]),
            "actions": [self.action_to_string(a) for a in entry["actions"]],
            "scores": list(entry["scores"]),
        }
