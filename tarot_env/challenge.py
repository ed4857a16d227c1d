"""The duplicate challenge: a person plays a fixed deal in one seat, the rule-based bot at the others,
and is compared with the project's agents on the same deal and seat, and with everyone who played it.

This is the arena's duplicate (:mod:`tarot_env.arena`) for people: luck cancels out when everyone
holds the same cards in the same seat against the same opponents, so "+35 better than the search
agent on this deal" means something. The pieces, none of them web- or command-line-specific:

- **The deals**: a deal of the challenge is ``(table, deal index, seat)``. The deals are those of the
  benchmark's committed deal sets (``results/deals/<table>_v1.json``, protocol v1 of
  ``experiments/suite.py``), French Tarot for 4 players first (:data:`TABLES`), and only those with
  baselines (a person's score is compared with the agents' on the very same deal and seat).
- **Playing a deal** (:class:`ChallengeGame`, :func:`play_deal`): the seat's player against the
  protocol's opponent, the game family's rule-based bot, at every other seat; the seat's score is
  its reward with ``reward="score"``, as the arena counts it.
- **Baselines** (:func:`compute_baselines`, ``tarot challenge baselines``): the score of each agent,
  ``rules``, ``trained`` (the table's ``pretrained`` model, greedy), ``search`` (the arena's
  ``search``, the project's strongest player: plain PIMC's bidding and its card play searched over the
  table's trained network; default settings, seeded) and ``pimc`` (plain PIMC, default settings,
  seeded: the ``search`` of the challenge until 2026-12-07), in each (deal, seat), stored as
  ``results/challenge/<table>.json`` with the settings, the machine and the time it took (the search
  agent's play depends on its time budget, so on the machine: the file says which).
- **The comparison** (:func:`compare`, :func:`comparison_lines`): a person's score against each
  agent's and the mean of the other people who played the same deal and seat.
- **The data set** (:func:`write_dataset`, :func:`read_dataset`): one JSON line per finished challenge
  deal: ``table``, ``deal`` (the index in the deal set), ``seat``, ``player`` (a pseudonym),
  ``score``, and ``record``, the deal's full record as ``env.unwrapped.record()`` writes it
  (docs/interface.md §5), which ``tarot replay`` replays: every decision of the person is in it.
"""

from __future__ import annotations

import hashlib
import json
import math
import platform
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import tarot_env
from tarot_env.agents import rule_agent
from tarot_env.agents.trained import TABLES as ALL_TABLES
from tarot_env.env_facts import ENV_IDS, ENVS
from tarot_env.rules.results import NOT_PLAYED

ROOT = Path(__file__).resolve().parents[1]
#: the benchmark's committed deal sets (protocol v1), read only
DEALS_DIR = ROOT / "results" / "deals"
#: the committed baselines, one file per table
BASELINES_DIR = ROOT / "results" / "challenge"
DEAL_SET_VERSION = 1
#: the table offered first: the first env's (French Tarot) at its default count, 4 players
FIRST_TABLE = ENVS[ENV_IDS[0]].table()
#: the tables in the order the challenge offers them: French Tarot for 4 players first
TABLES: tuple[str, ...] = (FIRST_TABLE, *(t for t in ALL_TABLES if t != FIRST_TABLE))
#: the agents a person is compared with: name -> (the arena's agent spec, how a person reads it)
AGENTS: dict[str, tuple[str, str]] = {
    "rules": ("rules", "the rule-based bot"),
    "trained": ("pretrained", "the trained agent"),
    "search": ("search", "the search agent"),
    "pimc": ("pimc", "plain PIMC (the search over the bot's play)"),
}
#: the keys of a line of the data set, and their types
DATASET_FIELDS: dict[str, type | tuple[type, ...]] = {
    "table": str,
    "deal": int,
    "seat": int,
    "player": str,
    "score": (int, float),
    "record": dict,
}


class ChallengeError(ValueError):
    """A challenge request that cannot be met: an unknown table, a deal or seat out of range, a bad data set."""


# ------------------------------------------------------------------------------------------ deals
def table_env(table: str) -> tuple[str, int | None]:
    """The env id and player count of ``table`` (``ChallengeError`` naming the tables otherwise)."""
    if table not in ALL_TABLES:
        raise ChallengeError(f"unknown table {table!r}; the tables are {', '.join(TABLES)}")
    return ALL_TABLES[table]


def make_env(table: str) -> Any:
    """The table's env as the arena plays it (its default rules), scored with ``reward="score"``."""
    env_id, n = table_env(table)
    return tarot_env.make(env_id, reward="score", **({} if n is None else {"num_players": n}))


_deal_sets: dict[str, list[dict[str, Any]]] = {}


def deal_of(table: str, index: int) -> dict[str, Any]:
    """Deal ``index`` of the table's committed deal set (what ``env.reset(options={"deal": ...})`` takes)."""
    table_env(table)
    if table not in _deal_sets:
        path = DEALS_DIR / f"{table}_v{DEAL_SET_VERSION}.json"
        if not path.is_file():
            raise ChallengeError(f"the deal set {path} is missing (it is committed in a checkout of the repository)")
        _deal_sets[table] = json.loads(path.read_text())["deals"]
    deals = _deal_sets[table]
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(deals):
        raise ChallengeError(f"deal {index!r} of {table}: the deal set has deals 0 to {len(deals) - 1}")
    return deals[index]


def num_seats(table: str) -> int:
    """The number of seats at ``table``."""
    env_id, n = table_env(table)
    return n if n is not None else len(tarot_env.make(env_id).possible_agents)


# ------------------------------------------------------------------------------------------ play
@dataclass
class ChallengeGame:
    """One challenge deal in progress: ``seat`` is played by whoever calls :meth:`move` (a person, or
    :func:`play_deal`'s agent), every other seat by the rule-based bot, which answers at once.

    ``deal``: the cards, by default deal ``index`` of the table's deal set (a test gives its own, with
    two hidden cards exchanged, to show that nothing of them reaches the person)."""

    table: str
    index: int
    seat: int
    deal: dict[str, Any] | None = None
    env: Any = field(init=False, repr=False)
    score: float = field(init=False, default=0.0)
    #: the moves made so far, every seat's (public: each one is a step of the deal)
    steps: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        seats = num_seats(self.table)
        if isinstance(self.seat, bool) or not isinstance(self.seat, int) or not 0 <= self.seat < seats:
            raise ChallengeError(f"seat {self.seat!r} of {self.table}: the seats are 0 to {seats - 1}")
        deal = self.deal if self.deal is not None else deal_of(self.table, self.index)
        self.env = make_env(self.table)
        self.env.reset(options={"deal": deal})
        self.robot = rule_agent(self.env.unwrapped.metadata["name"])
        self.robots_play()

    @property
    def raw(self) -> Any:
        return self.env.unwrapped

    @property
    def over(self) -> bool:
        return bool(self.raw.game_over)

    @property
    def agent(self) -> str:
        return self.raw.possible_agents[self.seat]

    def to_play(self) -> bool:
        """Whether it is the seat's turn (the deal is not over and the robots have answered)."""
        return not self.over and self.raw.agent_selection == self.agent

    def _step(self, action: int) -> None:
        self.env.step(action)
        self.steps += 1
        self.score += float(self.raw.rewards.get(self.agent, 0.0))

    def robots_play(self) -> None:
        """The robots move until it is the seat's turn or the deal is over."""
        while not self.over and self.raw.agent_selection != self.agent:
            obs = self.env.observe(self.raw.agent_selection)
            self._step(int(self.robot.act(obs["observation"], obs["action_mask"])))

    def move(self, action: int) -> None:
        """The seat's move, then the robots' answers. An illegal action raises the env's error
        (:class:`tarot_env.errors.IllegalActionError`, naming the action and why) and changes nothing."""
        if not self.to_play():
            raise ChallengeError("the deal is over" if self.over else "it is not the seat's turn")
        self._step(action)
        self.robots_play()

    def observation(self) -> dict[str, Any]:
        """The seat's observation and mask, for an agent playing it."""
        return self.env.observe(self.agent)

    def record(self) -> dict[str, Any]:
        """The finished deal's record (docs/interface.md §5)."""
        return self.raw.record()


def play_deal(table: str, index: int, seat: int, agent: Any, deal: dict[str, Any] | None = None) -> tuple[float, dict[str, Any]]:
    """Deal ``index`` of ``table`` played with ``agent`` at ``seat`` and the rule-based bot elsewhere:
    the seat's score and the deal's record. A search agent is bound to the table's env first."""
    game = ChallengeGame(table, index, seat, deal)
    if hasattr(agent, "bind"):
        agent.bind(game.env)
    while not game.over:
        obs = game.observation()
        game.move(int(agent.act(obs["observation"], obs["action_mask"])))
    return game.score, game.record()


# ------------------------------------------------------------------------------------------ baselines
def baseline_agent(name: str, table: str, index: int, seat: int) -> Any:
    """A fresh agent of :data:`AGENTS` for one (deal, seat): the search agent is seeded by the deal and
    seat (``1000 * index + seat``), so that each of its plays is reproducible on its own."""
    env_id, _ = table_env(table)
    if name == "rules":
        return rule_agent(env_id)
    if name == "trained":
        from tarot_env.agents.trained import pretrained

        return pretrained(table, deterministic=True)
    if name in ("search", "pimc"):
        from tarot_env.agents.factory import make_agent

        return make_agent(AGENTS[name][0], env_id, seed=1000 * index + seat, num_players=num_seats(table))
    raise ChallengeError(f"unknown agent {name!r}; the agents are {', '.join(AGENTS)}")


def machine() -> str:
    """The machine a baseline was computed on (the search agent's play depends on its speed)."""
    import os

    cores = os.cpu_count() or 0
    return f"{platform.processor() or platform.machine()}, {cores} cores, {platform.python_implementation()} {platform.python_version()}"


def compute_baselines(
    table: str, deals: Iterable[int], agents: Iterable[str] = tuple(AGENTS), progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Every agent's score in every seat of every deal of ``deals``: the baselines file's content."""
    from tarot_env.agents.pimc import SEARCH_SPEC, parse_spec

    search, pimc = parse_spec(AGENTS["search"][0]), parse_spec(AGENTS["pimc"][0])
    deals = [int(d) for d in deals]
    seats = num_seats(table)
    out: dict[str, Any] = {
        **baselines_identity(table, deals),
        "opponent": "rules (the rule-based bot at every other seat)",
        "score": "the seat's reward with reward='score'",
        "agents": {},
        "machine": machine(),
        "scores": {},
        "seconds": {},
    }
    settings = {
        "rules": {"spec": "rules"},
        "trained": {"spec": "pretrained", "model": f"results/models/{table}.zip", "greedy": True},
        "search": {
            "spec": AGENTS["search"][0],
            "as": SEARCH_SPEC,
            "model": f"results/models/{table}.zip",
            "samples": search.samples,
            "time": search.time,
            "chunk": search.chunk,
            "search": search.search,
            "margin": search.margin,
            "z": search.z,
            "base": "pimc (plain PIMC's default settings: every decision not searched)",
            "seed": "1000 * deal + seat",
        },
        "pimc": {
            "spec": AGENTS["pimc"][0],
            "samples": pimc.samples,
            "time": pimc.time,
            "chunk": pimc.chunk,
            "search": pimc.search,
            "seed": "1000 * deal + seat",
        },
    }
    for name in agents:
        start = time.perf_counter()
        rows = []
        for d in deals:
            rows.append([play_deal(table, d, s, baseline_agent(name, table, d, s))[0] for s in range(seats)])
            if progress is not None:
                progress(f"{table} {name}: deal {d} {rows[-1]}")
        out["agents"][name] = settings[name]
        out["scores"][name] = rows
        out["seconds"][name] = round(time.perf_counter() - start, 1)
    return out


def keep_baselines(data: dict[str, Any], old: dict[str, Any] | None) -> list[str]:
    """Into ``data``, a baselines computation of some agents, the other agents' settings, scores and seconds
    from ``old``, the table's file before it, where ``old`` is of the same deals (an agent's scores again, the
    others' kept: the search agent's when it changes, the trained agent's when the model does). An agent of
    ``old`` is found by its spec, not its name: a file from before 2026-12-07 holds plain PIMC under
    ``search``, which is ``pimc`` now. Each kept agent keeps its machine and the command that computed it
    (``kept_from``) and its note (``<name>_note``). The names kept, in :data:`AGENTS`' order."""
    if old is None or not same_deals(data, old):
        return []
    by_spec = {entry.get("spec"): name for name, entry in old.get("agents", {}).items()}
    kept = {}
    for name, (spec, _) in AGENTS.items():
        source = by_spec.get(spec)
        if name not in data["scores"] and source is not None and source in old.get("scores", {}):
            kept[name] = source
    for name, source in kept.items():
        data["agents"][name] = {**old["agents"][source], "machine": old["agents"][source].get("machine", old.get("machine"))}
        data["scores"][name] = old["scores"][source]
        if source in old.get("seconds", {}):
            data["seconds"][name] = old["seconds"][source]
        if f"{source}_note" in old:
            data[f"{name}_note"] = old[f"{source}_note"]
    for part in ("agents", "scores", "seconds"):  # in AGENTS' order, as a whole computation writes them
        data[part] = {name: data[part][name] for name in AGENTS if name in data[part]} | {
            k: v for k, v in data[part].items() if k not in AGENTS
        }
    if kept:
        data["kept_from"] = {name: old.get("kept_from", {}).get(source, old.get("command", "")) for name, source in kept.items()}
    return list(kept)


def baselines_identity(table: str, deals: list[int]) -> dict[str, Any]:
    """What a baselines file's scores are of: the table, its env and player count, the deal set and the deals."""
    return {
        "table": table,
        "env": table_env(table)[0],
        "num_players": num_seats(table),
        "deal_set": f"{table}_v{DEAL_SET_VERSION}",
        "deals": deals,
    }


def same_deals(data: dict[str, Any], old: dict[str, Any]) -> bool:
    """Whether two baselines files are of the same table, deal set and deals (their scores can stand side by side)."""
    return all(old.get(key) == data.get(key) for key in ("table", "deal_set", "deals", "num_players"))


def baselines_path(table: str, folder: str | Path | None = None) -> Path:
    return Path(folder or BASELINES_DIR) / f"{table}.json"


def load_baselines(table: str, folder: str | Path | None = None) -> dict[str, Any] | None:
    """The table's baselines file, or None where the table has none (it is not offered)."""
    path = baselines_path(table, folder)
    return json.loads(path.read_text()) if path.is_file() else None


def baseline_scores(baselines: dict[str, Any], index: int, seat: int) -> dict[str, float]:
    """Each agent's score in (deal ``index``, ``seat``) from a baselines file's content."""
    try:
        row = baselines["deals"].index(index)
    except ValueError:
        raise ChallengeError(
            f"deal {index} of {baselines['table']} has no baselines; the deals with some are {baselines['deals']}"
        ) from None
    return {name: float(rows[row][seat]) for name, rows in baselines["scores"].items()}


def played_deals(table: str, count: int, start: int = 0) -> list[int]:
    """The first ``count`` deals of the table's deal set (from ``start``) that the rule-based bot at every
    seat plays (somebody takes; not everyone passing, not thrown in): the deals the baselines are made
    of, so that a person's deal is a deal to play, not one where everyone passes."""
    env_id, _ = table_env(table)
    out, index = [], start
    while len(out) < count:
        game = ChallengeGame(table, index, 0)  # seat 0 is played here by the bot too
        robot = rule_agent(env_id)
        while not game.over:
            obs = game.observation()
            game.move(int(robot.act(obs["observation"], obs["action_mask"])))
        if str(game.raw.infos[game.agent].get("result")) not in NOT_PLAYED:
            out.append(index)
        index += 1
    return out


def challenge_deals(folder: str | Path | None = None) -> list[tuple[str, int]]:
    """The (table, deal index) pairs the challenge offers, in order: the tables of :data:`TABLES` that
    have baselines, each deal of their baselines file."""
    out = []
    for table in TABLES:
        b = load_baselines(table, folder)
        if b is not None:
            out += [(table, d) for d in b["deals"]]
    return out


# ------------------------------------------------------------------------------------------ comparison
def compare(score: float, agents: dict[str, float], people: list[float]) -> dict[str, Any]:
    """A person's score against each agent's on the same deal and seat and the other people's mean:
    the differences (positive: the person did better)."""
    out: dict[str, Any] = {"score": float(score), "agents": {}, "people": {"n": len(people), "mean": None, "difference": None}}
    for name, s in agents.items():
        out["agents"][name] = {"score": float(s), "difference": float(score) - float(s)}
    if people:
        mean = float(np.mean(people))
        out["people"] = {"n": len(people), "mean": mean, "difference": float(score) - mean}
    return out


def _points(x: float) -> str:
    return f"{x:.0f}" if float(x).is_integer() else f"{x:.1f}"


def _difference_words(diff: float) -> str:
    if math.isclose(diff, 0.0, abs_tol=1e-9):
        return "the same as"
    points = _points(abs(diff))
    return f"{points} point{'' if points == '1' else 's'} {'better' if diff > 0 else 'worse'} than"


def comparison_lines(comparison: dict[str, Any]) -> list[str]:
    """The comparison in a player's words: "you did 35 points better than the search agent on this deal (it scored -70)"."""
    lines = []
    for name, c in comparison["agents"].items():
        who = AGENTS.get(name, (name, name))[1]
        lines.append(f"you did {_difference_words(c['difference'])} {who} on this deal (it scored {_points(c['score'])})")
    p = comparison["people"]
    if p["n"]:
        people = "the person" if p["n"] == 1 else f"the {p['n']} people"
        lines.append(f"you did {_difference_words(p['difference'])} {people} who played it before you (their mean: {_points(p['mean'])})")
    else:
        lines.append("nobody else has played this deal in this seat yet")
    return lines


# ------------------------------------------------------------------------------------------ the data set
def pseudonym(secret: str) -> str:
    """A person's id in the data set: a hash of his secret token, the same for all his results and
    not his name (only whoever holds the database can link the two)."""
    return hashlib.sha256(f"tarot-challenge:{secret}".encode()).hexdigest()[:16]


def dataset_row(table: str, deal: int, seat: int, player: str, score: float, record: dict[str, Any]) -> dict[str, Any]:
    """One line of the data set."""
    return {"table": table, "deal": int(deal), "seat": int(seat), "player": player, "score": float(score), "record": record}


def write_dataset(rows: Iterable[dict[str, Any]], path: str | Path) -> int:
    """Write the rows as JSON lines (its folder made); the number written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with path.open("w") as f:
        for row in rows:
            check_row(row, f"row {n}")
            f.write(json.dumps(row, separators=(",", ":")) + "\n")
            n += 1
    return n


def check_row(row: Any, where: str) -> dict[str, Any]:
    """A data set row, or ``ChallengeError`` saying where and what is wrong."""
    if not isinstance(row, dict):
        raise ChallengeError(f"{where}: a line is a JSON object with {', '.join(DATASET_FIELDS)}, got {type(row).__name__}")
    missing = [k for k in DATASET_FIELDS if k not in row]
    if missing:
        raise ChallengeError(f"{where}: missing {', '.join(missing)}; a line has {', '.join(DATASET_FIELDS)}")
    for key, kind in DATASET_FIELDS.items():
        if isinstance(row[key], bool) or not isinstance(row[key], kind):
            raise ChallengeError(f"{where}: {key} has the wrong type ({type(row[key]).__name__}: {json.dumps(row[key])[:40]})")
    if row["table"] not in ALL_TABLES:
        raise ChallengeError(f"{where}: unknown table {row['table']!r}; the tables are {', '.join(TABLES)}")
    if not {"env", "deal", "actions"} <= set(row["record"]):
        raise ChallengeError(f"{where}: the record is not a deal record (env, config, deal, actions, scores)")
    return row


def read_dataset(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a data set file (blank lines skipped); ``ChallengeError`` naming the line that is not one."""
    rows = []
    with Path(path).open() as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as err:
                raise ChallengeError(f"{path}:{i}: not JSON ({err.msg})") from None
            rows.append(check_row(row, f"{path}:{i}"))
    return rows
