"""A table's robots: their agents, their moves thought apart from the table, and how they fared.

:class:`RobotJob` copies what an agent needs so that the server can think in a worker thread and apply the
move under the room's lock only if the table has not moved on; :func:`robot_action` falls back to the
rule-based robot where an agent fails. :class:`Robots` is the table's part that owns the agents of a game
(``table.robots``), the rule-based fallback, and the counts of the moves the fallback made."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from tarot_env.agents import rule_agent

log = logging.getLogger("tarot_env.web")

#: the seconds a robot may think of one move (the server's default): the search robots' own budgets are
#: 0.25 s (``pimc``) and 1 s (``search``) a decision and the others answer in milliseconds, so past this
#: one it is taken to hang
ROBOT_TIMEOUT = 5.0


@dataclass
class RobotJob:
    """A robot's move to think of, outside the room's lock: the seat, the observation (a copy), the agent
    and the rule-based fallback, and the table's step count when it was asked (its answer applies only
    if the table is still there)."""

    table_id: int
    seat: int
    why: str  # "robot" (a robot's seat, or a person away) or "time-out"
    steps: int
    agent: Any
    fallback: Any
    obs: dict[str, np.ndarray]
    robot: str

    def think(self) -> tuple[int, str | None]:
        """The action, and how the agent failed when the fallback moved instead (None: it did not)."""
        return robot_action(self.agent, self.fallback, self.obs, self.who)

    @property
    def who(self) -> str:
        return f"table {self.table_id} seat {self.seat} ({self.robot})"

    def fall_back(self) -> tuple[int, str | None]:
        """The rule-based robot's action, for an agent that did not answer in time (``"timeout"``)."""
        return robot_action(self.fallback, self.fallback, self.obs, self.who)[0], "timeout"


def robot_action(agent: Any, fallback: Any, obs: dict[str, np.ndarray], who: str = "a robot") -> tuple[int, str | None]:
    """An agent's action, or the rule-based bot's where the agent raises (``"exception"``, logged with its
    traceback) or answers an illegal move (``"illegal"``), as the arena counts its fallbacks. One that does
    not answer at all is the server's to catch (``"timeout"``, :meth:`RobotJob.fall_back`)."""
    mask = np.asarray(obs["action_mask"], dtype=bool)
    failure: str | None = None
    if agent is not fallback:
        try:
            a = int(np.asarray(agent.act(obs["observation"], obs["action_mask"])).reshape(-1)[0])
            if 0 <= a < len(mask) and mask[a]:
                return a, None
            failure = "illegal"
            log.warning("tarot serve: %s answered the illegal action %s; the rule-based robot moves for it", who, a)
        except Exception:  # a failing agent must not end the people's game: logged, and the rule-based bot moves
            failure = "exception"
            log.exception("tarot serve: %s failed; the rule-based robot moves for it", who)
    return int(np.asarray(fallback.act(obs["observation"], obs["action_mask"])).reshape(-1)[0]), failure


class Robots:
    """The robots' agents of a table's game, seat -> agent (a person away plays with the rule-based
    ``fallback``), and ``fallbacks``, seat -> its moves and how often the fallback moved instead (as the
    arena counts them), and ``timeouts``: (seat, move) played at a person's time-out."""

    def __init__(self, env_id: str) -> None:
        self.agents: dict[int, Any] = {}
        self.fallback: Any = rule_agent(env_id)
        self.fallbacks: dict[int, dict[str, int]] = {}
        self.timeouts: list[tuple[int, str]] = []

    def bind(self, raw: Any) -> None:
        """A new deal: the search agents sample from it, through their seats' beliefs."""
        for agent in (*self.agents.values(), self.fallback):
            if hasattr(agent, "bind"):
                agent.bind(raw)

    def job(self, table_id: int, seat: int, why: str, steps: int, env: Any, robot: str | None) -> RobotJob:
        """What a robot needs to think of ``seat``'s move in ``env``, copied, so that it can think in a worker thread."""
        obs = env.observe(env.unwrapped.agent_selection)
        obs = {k: np.array(v, copy=True) for k, v in obs.items()}
        agent = self.agents.get(seat, self.fallback)
        return RobotJob(table_id, seat, why, steps, agent, self.fallback, obs, robot or "rules")

    def count(self, seat: int, failure: str | None) -> None:
        """One move of ``seat``'s robot, and how its agent failed when the fallback moved instead."""
        counts = self.fallbacks.setdefault(seat, {"moves": 0, "exception": 0, "illegal": 0, "timeout": 0, "fallback": 0})
        counts["moves"] += 1
        if failure is not None:
            counts[failure] += 1
            counts["fallback"] += 1
