"""A robot's move, thought apart from the table: :class:`RobotJob` copies what the agent needs so that the
server can think in a worker thread and apply the move under the room's lock only if the table has not
moved on; :func:`robot_action` falls back to the rule-based robot where an agent fails.
:class:`TableRobots` is that part of a :class:`~tarot_env.web.room.Table` (state there: ``agents``,
``fallback``, ``steps``, ``fallbacks``, ``timeouts``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from tarot_env.web.room import Table

log = logging.getLogger("tarot_env.web")

#: the seconds a robot may think of one move (the server's default): the search robot's own budget is
#: 0.25 s a decision and the others answer in milliseconds, so past this one it is taken to hang
ROBOT_TIMEOUT = 5.0


@dataclass
class RobotJob:
    """A robot's move to think of, outside the room's lock: the seat, the observation (a copy), the agent
    and the rule-based fallback, and the table's step count when it was asked (its answer applies only
    if the table is still there)."""

    table: Table
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
        return f"table {self.table.id} seat {self.seat} ({self.robot})"

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


class TableRobots:
    """The robots' moves at a table: thought at once (the tests' clock) or by the server in a worker thread."""

    def _play_for(self, p: int, now: float, why: str) -> None:
        """A robot's move for seat ``p``, thought and played at once (the tests' clock; the server thinks
        outside its lock with :meth:`robot_job` and :meth:`apply_robot`)."""
        job = self.robot_job(p, why)
        action, failure = job.think()
        self.apply_robot(job, action, failure, now)

    def robot_job(self, p: int, why: str) -> RobotJob:
        """What a robot needs to think of seat ``p``'s move, copied, so that it can think in a worker thread."""
        obs = self.env.observe(self.env.unwrapped.agent_selection)
        obs = {k: np.array(v, copy=True) for k, v in obs.items()}
        agent = self.agents.get(p, self.fallback)
        return RobotJob(self, p, why, self.steps, agent, self.fallback, obs, self.seats[p].robot or "rules")

    def apply_robot(self, job: RobotJob, action: int, failure: str | None, now: float) -> bool:
        """Play the move ``job`` thought of, if the table has not moved on meanwhile; whether it was played."""
        p = job.seat
        if self.steps != job.steps or self.state != "playing" or self.turn != p:
            return False
        if job.why == "robot" and not self.seats[p].bot_plays:  # the person came back while it thought
            return False
        counts = self.fallbacks.setdefault(p, {"moves": 0, "exception": 0, "illegal": 0, "timeout": 0, "fallback": 0})
        counts["moves"] += 1
        if failure is not None:
            counts[failure] += 1
            counts["fallback"] += 1
        self.env.step(action)
        if self.seats[p].person:
            self.clock_moves[p] += 1
        if job.why == "time-out":
            self.timeouts.append((p, self.env.unwrapped.action_to_string(action)))
        self._after_step(p, action, now, by=job.why)
        return True
