"""A Gymnasium single-agent view of a Tarot AEC env: one learning seat, the others played by given agents.

Single-agent RL libraries (Stable-Baselines3, sb3-contrib's ``MaskablePPO``) need one agent
that acts at every step. :class:`SingleAgentEnv` hands the learner the turn and plays every
other seat with its opponents (any object with the batch ``act(observations, masks)`` of the ``agents`` package) until the
learner is to act again or the deal is over.

>>> from tarot_env.wrappers import SingleAgentEnv
>>> env = SingleAgentEnv("french_tarot_v0", seat="random", num_players=4)
>>> obs, info = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].nonzero()[0][0]))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import gymnasium
import numpy as np
from gymnasium import spaces

from tarot_env.registry import make

#: a guard against a rules set that could end every deal before the learner acts
MAX_REDEALS = 1000


class Agent(Protocol):
    """What an opponent must provide: one legal action per row of a batch."""

    def act(self, observations: np.ndarray, masks: np.ndarray) -> Any:
        """``observations`` ``(B, D)`` int8 and ``masks`` ``(B, A)`` bool -> actions ``(B,)``."""
        ...


class RandomOpponent:
    """The default opponent: a uniformly random legal action per row (the same rule as ``tarot_env.agents.RandomAgent``;
    defined here because the installed ``tarot_env`` package does not ship ``agents``)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        noise = self.rng.random(masks.shape)
        return np.where(masks, noise, -1.0).argmax(axis=1)


def opponents_list(opponents: Agent | Sequence[Agent] | None, num_players: int) -> tuple[list[Agent], bool]:
    """The ``num_players - 1`` opponents in play order after the learner, and whether they are the default.

    One agent plays every other seat; a list gives one agent per other seat, ``opponents[k]``
    playing the seat ``k + 1`` places after the learner (the next player, then the one after...),
    so that the same list means the same thing whatever the learner's seat.
    """
    if opponents is None:
        return [RandomOpponent()] * (num_players - 1), True
    if isinstance(opponents, (list, tuple)):
        agents = list(opponents)
        if len(agents) != num_players - 1:
            raise ValueError(
                f"opponents must be one agent or a list of {num_players - 1} (one per other seat, in play order after the learner), "
                f"got a list of {len(agents)}"
            )
    else:
        agents = [opponents] * (num_players - 1)
    for agent in agents:
        if not callable(getattr(agent, "act", None)):
            raise TypeError(f"an opponent must have act(observations, masks) -> actions, got {agent!r}")
    return agents, False


def reseed_default(seed: int) -> Agent:
    """A default opponent seeded from a reset seed, so that ``reset(seed=...)`` replays the same games."""
    return RandomOpponent(int(np.random.SeedSequence([seed, 0x7A707]).generate_state(1)[0]))


def check_seat(seat: int | str, num_players: int, allowed: tuple[str, ...]) -> None:
    if isinstance(seat, str):
        if seat not in allowed:
            raise ValueError(f"seat={seat!r}: give a seat 0..{num_players - 1} or one of {', '.join(map(repr, allowed))}")
    elif isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < num_players:
        raise ValueError(f"seat={seat!r}: give a seat 0..{num_players - 1} or one of {', '.join(map(repr, allowed))}")


class SingleAgentEnv(gymnasium.Env):
    """One seat of a Tarot AEC env as a Gymnasium env; the other seats are played by ``opponents``.

    - ``seat``: the learner's seat, or ``"random"`` for a seat drawn (from the reset seed) at each episode.
    - ``opponents``: one agent for every other seat, or a list of ``num_players - 1`` agents, the
      ``k``-th playing the seat ``k + 1`` places after the learner. Default: a uniform random agent
      (re-seeded by ``reset(seed=...)``; agents you give keep their own random state).
      :meth:`set_opponents` swaps them between episodes (e.g. for frozen snapshots of the learner).
    - every other keyword is an option of the env (``num_players``, ``reward``, ``shaping``, rules options...).

    An episode is one deal. ``reset`` deals and plays the opponents until the learner's turn.
    A deal can end before the learner acts (a petit sec annuls it at once); such a deal gives
    the learner no decision, so it is skipped: the table is dealt again (random deal) until the
    learner has a decision; ``info["redeals"]`` counts the skipped deals.

    ``step(action)`` plays the learner's action, then the opponents until the learner's turn or
    the deal's end. The reward is what the learner earned from his action up to now (the AEC
    env's ``_cumulative_rewards`` for his seat), so an episode's rewards sum to his reward for
    the deal (his score with ``reward="score"``, shaping or not). ``terminated`` is True at the
    deal's end; ``truncated`` is always False. ``info`` holds ``"action_mask"`` (bool, all False
    at the end), ``"seat"``, and at the end the AEC env's result info (``"scores"``, ``"result"``...).

    An illegal action raises :class:`tarot_env.IllegalActionError` and changes nothing:
    use :meth:`action_masks` (what ``MaskablePPO`` calls) to choose legal ones. With the env
    option ``illegal_action="terminate"`` (what the Gymnasium ids ``tarot_env/<Game>-v0`` set, so
    that tools sampling unmasked actions run), an illegal action ends the episode instead:
    ``terminated``, reward ``illegal_reward`` (default -1), ``info["illegal_action"]`` says why.
    """

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(
        self,
        env_id: str = "french_tarot_v0",
        seat: int | str = 0,
        opponents: Agent | Sequence[Agent] | None = None,
        **env_options: Any,
    ) -> None:
        self.env = make(env_id, **env_options)
        raw = self.env.unwrapped
        self.num_players = raw.game.num_players
        check_seat(seat, self.num_players, ("random",))
        self.seat_option = seat
        self.render_mode = env_options.get("render_mode")
        self.observation_space = spaces.Box(0, 1, (raw.encoder.size,), dtype=np.int8)
        self.action_space = spaces.Discrete(raw.game.num_actions)
        self.set_opponents(opponents)
        self.seat = 0 if seat == "random" else int(seat)
        self._name = raw.possible_agents[self.seat]
        self._done = True
        self._reset_called = False

    def set_opponents(self, opponents: Agent | Sequence[Agent] | None) -> None:
        """Replace the opponents (they take over at once; normally called between episodes)."""
        self.opponents, self._default_opponents = opponents_list(opponents, self.num_players)

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal (``options={"deal": ...}`` fixes the deal, as in the AEC env) and play up to the learner's turn."""
        super().reset(seed=seed)
        if seed is not None and self._default_opponents:
            self.opponents = [reseed_default(seed)] * (self.num_players - 1)
        if self.seat_option == "random":
            self.seat = int(self.np_random.integers(self.num_players))
        self._name = self.env.unwrapped.possible_agents[self.seat]
        self.env.reset(seed=seed, options=options)
        redeals = 0
        while True:
            self._play_opponents()
            if not self.env.unwrapped.game_over:
                break
            redeals += 1  # the deal ended before the learner had a decision: deal again
            if redeals > MAX_REDEALS:
                raise RuntimeError(f"{MAX_REDEALS} deals in a row ended before seat {self.seat} had a decision")
            self.env.reset()
        self._done = False
        self._reset_called = True
        return self._observation(), {"action_mask": self.action_masks(), "seat": self.seat, "redeals": redeals}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("call reset() first: " + ("the deal is over" if self._reset_called else "no deal has been dealt yet"))
        self.env.step(action)  # an illegal action raises here, before any change (or ends the deal: illegal_action="terminate")
        self._play_opponents()
        raw = self.env.unwrapped
        reward = float(raw._cumulative_rewards[self._name])
        info: dict[str, Any] = {"seat": self.seat}
        if raw.game_over:
            self._done = True
            info.update(raw.infos[self._name])
        info["action_mask"] = self.action_masks()
        return self._observation(), reward, self._done, False, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (bool ``(A,)``; all False once the deal is over)."""
        if self._done:
            return np.zeros(self.action_space.n, dtype=bool)
        return self.env.unwrapped.legal_mask().copy()

    def render(self) -> str | None:
        return self.env.render()

    def close(self) -> None:
        self.env.close()

    # ------------------------------------------------------------------ helpers
    def _observation(self) -> np.ndarray:
        return self.env.unwrapped.observe(self._name)["observation"].copy()

    def _play_opponents(self) -> None:
        """Opponents act (one at a time, a batch of one) until the learner's turn or the deal's end."""
        raw = self.env.unwrapped
        n = self.num_players
        while not raw.game_over:
            current = int(raw.game_state.current[0])
            if current == self.seat:
                return
            agent = self.opponents[(current - self.seat) % n - 1]
            obs = raw.observe(raw.possible_agents[current])["observation"]
            action = np.asarray(agent.act(obs[None], raw.legal_mask()[None])).reshape(-1)
            if action.shape != (1,):
                raise ValueError(f"opponent {agent!r} returned {action.size} actions for a batch of 1")
            self.env.step(int(action[0]))
