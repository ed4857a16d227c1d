"""The evaluation arena's engine: agents play a fixed, versioned deal set in duplicate, with
confidence intervals and ratings.

Library code: the arena script (``python -m tarot_env.experiments.arena``, ``tarot arena``), the
benchmark suite, the search and training experiments and the duplicate challenge's reports call
:func:`run_arena`, :func:`load_deal_set` and the statistics here. The protocol (the deal sets,
duplicate seatings, scores, deals not played, metrics, ratings and the table rules of a move
limit and a fallback) is stated in the script's docstring, ``experiments/arena.py``, which its
``--help`` prints.

Why here and not in the script folder: other scripts and reports use the engine; as library
code below the front ends, every one of them reads one engine.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import tarot_env
from tarot_env.agents import rule_agent
from tarot_env.agents.factory import AgentCouldNotPlayError
from tarot_env.agents.random_agent import RandomAgent
from tarot_env.env_facts import ENVS
from tarot_env.rules.bolognese.game_specs import GameSpec
from tarot_env.rules.results import NOT_PLAYED

DEAL_SET_VERSION = 1
DEFAULT_SEED = 0
Z95 = 1.959963984540054
#: how many moves of one agent may still be running past the time limit (their threads abandoned);
#: beyond it the agent is not asked again, its moves are timeouts, until one of them ends
MAX_STUCK_MOVES = 4


# The agents (make_agent and its helpers) live in the agents package, tarot_env.agents.factory: the
# CLI, the suite, the room and these scripts ask for an agent the same way. Imported here for the
# arena's own use and for the scripts that import them from the arena.


class _MoveTimeoutError(Exception):
    """The move ran past the limit, or was not asked because the agent is still busy with earlier moves."""


class _AgentFailedError(Exception):
    """What the agent raised in its worker thread (any ``BaseException``), carried to the table."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(error)
        self.error = error


class _Job:
    """One call of an agent: the function, and its value or error once ``done`` is set."""

    __slots__ = ("done", "error", "fn", "value")

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None


class _Worker:
    """A daemon thread that runs jobs one at a time until it is handed ``None``."""

    def __init__(self, name: str) -> None:
        self.jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:
                return
            try:
                job.value = job.fn()
            except BaseException as e:  # an agent's SystemExit or KeyboardInterrupt is its fault: reported, not obeyed
                job.error = e
            job.done.set()
            del job


class _AgentRunner:
    """Runs one agent's moves in a worker thread of its own, reused from move to move.

    In a thread, whatever the agent raises (``SystemExit`` and ``KeyboardInterrupt`` too) is
    caught there and reported as the agent's fault, while a real Ctrl-C reaches the main thread,
    which is only waiting, and stops the run. A move past the limit abandons its worker (told to
    end once the move returns) and the next move gets a new one; at most ``MAX_STUCK_MOVES``
    abandoned workers per agent may still be running, so hung moves cannot pile up threads.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.worker: _Worker | None = None
        self.stuck: list[_Worker] = []

    def call(self, fn: Callable[[], Any], time_limit: float | None) -> Any:
        self.stuck = [w for w in self.stuck if w.thread.is_alive()]
        if len(self.stuck) >= MAX_STUCK_MOVES:
            raise _MoveTimeoutError(f"not asked: {len(self.stuck)} earlier moves still running past the limit")
        if self.worker is None:
            self.worker = _Worker(f"arena-agent-{self.name}")
        job = _Job(fn)
        self.worker.jobs.put(job)
        if not job.done.wait(time_limit):
            self.worker.jobs.put(None)  # the worker ends when (if ever) the hung move returns
            self.stuck.append(self.worker)
            self.worker = None
            raise _MoveTimeoutError(f"over {time_limit}s")
        if job.error is not None:
            raise _AgentFailedError(job.error)
        return job.value

    def close(self) -> None:
        """End the idle worker (abandoned ones end by themselves when their move returns)."""
        if self.worker is not None:
            self.worker.jobs.put(None)
            self.worker.thread.join(1.0)
            self.worker = None


def _as_action(a: Any) -> int:
    arr = np.asarray(a)
    if arr.size != 1 or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"not one action: {a!r}")
    v = arr.reshape(-1)[0]
    if float(v) != int(v):
        raise TypeError(f"not an integer action: {a!r}")
    return int(v)


# ---------------------------------------------------------------------------------------------
# Deal sets
# ---------------------------------------------------------------------------------------------
#: the committed deal sets (read, never written, unless given as ``deals_dir``); absent from an installed wheel
COMMITTED_DEALS = Path(__file__).resolve().parents[1] / "results" / "deals"
#: where a deal set that is not committed (another seed, more deals) is made when no ``deals_dir`` is given
MADE_DEALS = Path("runs") / "deals"


def table_label(env_id: str, num_players: int | None) -> str:
    """The table's name, the benchmark suite's (:data:`tarot_env.agents.trained.TABLES`): ``french_tarot_v0_4p``
    for French Tarot at its default count as at ``num_players=4``, ``ottocento_v0`` for a game of one count."""
    from tarot_env.agents.trained import table_of

    return table_of(env_id, num_players)


def deal_set_path(env_id: str, num_players: int | None = None, seed: int = DEFAULT_SEED, deals_dir: str | Path | None = None) -> Path:
    """The deal set's file in ``deals_dir`` (``None``: the committed one, :data:`COMMITTED_DEALS`)."""
    suffix = "" if seed == DEFAULT_SEED else f"_s{seed}"
    folder = COMMITTED_DEALS if deals_dir is None else Path(deals_dir)
    return folder / f"{table_label(env_id, num_players)}_v{DEAL_SET_VERSION}{suffix}.json"


def _env_options(num_players: int | None) -> dict:
    return {} if num_players is None else {"num_players": num_players}


def _generate_deal(env: Any, seed: int) -> dict:
    """The deal of ``env.reset(seed=seed)`` (played out by a seeded random agent to get the record)."""
    agent = RandomAgent(seed)
    env.reset(seed=seed)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else agent.act(obs["observation"], obs["action_mask"]))
    return env.unwrapped.record()["deal"]


def _read_deal_set(path: Path, env_id: str, seed: int) -> dict | None:
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    if data.get("version") != DEAL_SET_VERSION or data.get("env") != env_id or data.get("seed") != seed:
        raise ValueError(f"{path} is not deal set v{DEAL_SET_VERSION} of {env_id} with seed {seed}")
    return data


def load_deal_set(
    env_id: str, num_deals: int, num_players: int | None = None, seed: int = DEFAULT_SEED, deals_dir: str | Path | None = None
) -> dict:
    """The fixed deal set (made if missing, extended deterministically if too short); its first ``num_deals`` deals.

    ``deals_dir``: the folder to read the set from and to make or extend it in. ``None`` (the
    default) reads the committed set (:data:`COMMITTED_DEALS`) and writes nothing there: a set
    that is not committed, or is too short, is made or extended in ``runs/deals`` (from the
    committed deals where there are some: deal ``i`` is the same wherever it is made).
    """
    path = deal_set_path(env_id, num_players, seed, deals_dir)
    data = _read_deal_set(path, env_id, seed)
    if deals_dir is None and (data is None or len(data["deals"]) < num_deals):
        committed, path = data, MADE_DEALS / path.name
        data = _read_deal_set(path, env_id, seed)
        if committed is not None and (data is None or len(data["deals"]) < len(committed["deals"])):
            data = committed
    if data is None or len(data["deals"]) < num_deals:
        data = data or {"version": DEAL_SET_VERSION, "env": env_id, "num_players": num_players, "seed": seed, "deals": []}
        env = tarot_env.make(env_id, **_env_options(num_players))
        for i in range(len(data["deals"]), num_deals):
            data["deals"].append(_generate_deal(env, seed + i))
        data["id"] = f"{table_label(env_id, num_players)}_v{DEAL_SET_VERSION}" + ("" if seed == DEFAULT_SEED else f"_s{seed}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data))
    return {**data, "path": str(path), "deals": data["deals"][:num_deals]}


# ---------------------------------------------------------------------------------------------
# Duplicate seatings and play
# ---------------------------------------------------------------------------------------------
def seatings(names: list[str], num_seats: int) -> list[list[str]]:
    """The distinct rotations of the agents laid out round the table (``A B A B``): every agent at every seat."""
    if len(names) > num_seats:
        raise ValueError(f"{len(names)} agents do not fit {num_seats} seats")
    base = [names[i % len(names)] for i in range(num_seats)]
    out: list[list[str]] = []
    for r in range(num_seats):
        s = base[r:] + base[:r]
        if s not in out:
            out.append(s)
    return out


def _spec(env_id: str) -> GameSpec | None:
    """The Tarocchino game's row (its sides and scoring name the roles), None for French Tarot."""
    row = ENVS.get(env_id)
    return None if row is None else row.spec


def _roles(env_id: str, info: dict, num_seats: int) -> list[str]:
    spec = _spec(env_id)
    if spec is None:
        if info.get("result") != "played":
            return ["passed"] * num_seats
        return ["taker" if s == info["taker"] else "partner" if s == info.get("partner", -1) else "defender" for s in range(num_seats)]
    if spec.sides == "soloist":
        if "soloist" not in info or info.get("soloist", -1) < 0:
            return ["passed"] * num_seats
        return ["soloist" if s == info["soloist"] else "opponent" for s in range(num_seats)]
    if spec.sides == "partners":
        return [f"side_{s % 2}" for s in range(num_seats)]
    return [f"seat_{s}" for s in range(num_seats)]


def _won(env_id: str, score: float) -> bool:
    spec = _spec(env_id)
    # where a hand's loser takes a penalty (Mattazza), not losing is winning: a score of 0
    return score >= 0 if spec is not None and spec.scoring == "penalty" else score > 0


class _Table:
    """Plays fixed deals with agents at seats, replacing failed moves by the fallback and counting them."""

    def __init__(self, env_id: str, num_players: int | None, agents: dict[str, Any], fallback: Any, time_limit: float | None):
        self.env_id = env_id
        self.env = tarot_env.make(env_id, **_env_options(num_players))
        self.agents, self.fallback, self.time_limit = agents, fallback, time_limit
        for agent in agents.values():
            if hasattr(agent, "bind"):  # a search agent samples from the table's state (through its seat's beliefs)
                agent.bind(self.env)
        self.counts = {n: {"moves": 0, "exception": 0, "illegal": 0, "timeout": 0, "fallback": 0} for n in agents}
        self.first_failure: dict[str, str] = {}
        self.events: list[dict] = []
        self.runners = {n: _AgentRunner(n) for n in agents}
        self._last_resort = RandomAgent(12345)

    def close(self) -> None:
        for runner in self.runners.values():
            runner.close()

    def _move(self, name: str, obs: np.ndarray, mask: np.ndarray, where: dict) -> int:
        c = self.counts[name]
        c["moves"] += 1
        agent = self.agents[name]
        o, m = obs.copy(), mask.copy()
        kind = None
        try:
            a = _as_action(self.runners[name].call(lambda: agent.act(o, m), self.time_limit))
            if 0 <= a < len(mask) and mask[a]:
                return a
            kind, detail = "illegal", f"action {a}"
        except _MoveTimeoutError as e:
            kind, detail = "timeout", str(e)
        except _AgentFailedError as e:
            kind, detail = "exception", f"{type(e.error).__name__}: {e.error}"[:200]
        except Exception as e:  # _as_action of what the agent returned
            kind, detail = "exception", f"{type(e).__name__}: {e}"[:200]
        c[kind] += 1
        c["fallback"] += 1
        self.first_failure.setdefault(name, f"{kind}: {detail}")
        if len(self.events) < 100:
            self.events.append({"agent": name, "kind": kind, "detail": detail, **where})
        try:
            a = _as_action(self.fallback.act(obs.copy(), mask.copy()))
            if 0 <= a < len(mask) and mask[a]:
                return a
        except Exception:
            pass
        return int(self._last_resort.act(None, mask))

    def play(self, deal: dict, seating: list[str], where: dict) -> tuple[list[float], dict]:
        env = self.env
        env.reset(options={"deal": deal})
        index = {a: i for i, a in enumerate(env.possible_agents)}
        totals = [0.0] * len(env.possible_agents)
        final: dict = {}
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            seat = index[agent]
            totals[seat] += float(reward)
            if term or trunc:
                final = final or info
                env.step(None)
                continue
            mask = np.asarray(obs["action_mask"], dtype=bool)
            env.step(self._move(seating[seat], np.asarray(obs["observation"]), mask, where))
        return totals, final


# ---------------------------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------------------------
def mean_ci(values: list[float] | np.ndarray) -> dict:
    """Mean with a 95% normal-approximation confidence interval; ``values`` are independent (one per deal)."""
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n == 0:
        return {"mean": None, "lo": None, "hi": None, "n": 0}
    m = float(x.mean())
    half = Z95 * float(x.std(ddof=1)) / math.sqrt(n) if n > 1 else float("nan")
    return {"mean": m, "lo": m - half, "hi": m + half, "n": n}


#: an interval over fewer deals than this is rough (the normal approximation, and the clustered
#: variance, need more deals to hold): it is written with :func:`few_deals` beside it
FEW_DEALS = 30


def few_deals(deals: int | None) -> str:
    """The warning written beside an interval over ``deals`` deals: ``""`` from :data:`FEW_DEALS` deals on."""
    return f" (warning: {deals} deals, fewer than {FEW_DEALS}: a rough interval)" if deals and deals < FEW_DEALS else ""


def _clustered_variance(groups: list[np.ndarray], mean: float, total: int) -> float:
    """The variance of a ratio mean ``sum(y) / sum(n)`` over independent groups (linearisation):
    ``m / (m - 1) * sum((sum(y_g) - mean * n_g) ** 2) / total ** 2``, ``m`` the number of groups."""
    m = len(groups)
    residuals = np.array([g.sum() - mean * len(g) for g in groups])
    return m / (m - 1) * float((residuals**2).sum()) / total**2


def cluster_mean_ci(groups: list[list[float]]) -> dict:
    """Mean over every value, with a 95% normal-approximation interval clustered by group (deal).

    The seat-plays of one deal share its cards: they are not independent, and an interval over
    them as if they were is too narrow. The mean is over all values (each play weighs the same);
    its variance is over the deals (:func:`_clustered_variance`). With one value per deal this
    is :func:`mean_ci`. ``n``: the values; ``deals``: the groups with at least one; no interval
    (``lo``, ``hi`` ``None``) from fewer than two deals.
    """
    arrays = [np.asarray(g, dtype=float) for g in groups if len(g)]
    total = sum(len(g) for g in arrays)
    if total == 0:
        return {"mean": None, "lo": None, "hi": None, "n": 0, "deals": 0}
    mean = float(sum(g.sum() for g in arrays)) / total
    if len(arrays) < 2:
        return {"mean": mean, "lo": None, "hi": None, "n": total, "deals": len(arrays)}
    half = Z95 * math.sqrt(_clustered_variance(arrays, mean, total))
    return {"mean": mean, "lo": mean - half, "hi": mean + half, "n": total, "deals": len(arrays)}


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``successes / n``: inside [0, 1], and not of zero
    width at 0 or 1 (where the normal approximation gives ``[1, 1]``, or runs past 1 near it)."""
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def rate_ci(groups: list[list[float]]) -> dict:
    """A rate (wins among the counted plays, 0/1 values grouped by deal) with a 95% Wilson score interval.

    The plays of one deal are not independent, so the Wilson interval takes the effective sample
    size of the clustered design (Korn and Graubard, 1998): ``n_eff = p (1 - p) / v``, ``v`` the
    deal-clustered variance of the rate, at most the number of plays. At a rate of 0 or 1 the
    spread says nothing of the clustering: ``n_eff`` is then the number of deals, the independent
    unit. ``n``: the counted plays; ``deals``: the deals with one; ``mean`` ``None`` without any.
    """
    arrays = [np.asarray(g, dtype=float) for g in groups if len(g)]
    plays = sum(len(g) for g in arrays)
    if plays == 0:
        return {"mean": None, "lo": None, "hi": None, "n": 0, "deals": 0, "n_eff": 0.0}
    p = float(sum(g.sum() for g in arrays)) / plays
    n_eff = float(len(arrays))
    if 0 < p < 1 and len(arrays) > 1:
        v = _clustered_variance(arrays, p, plays)
        n_eff = float(plays) if v <= 0 else min(float(plays), max(1.0, p * (1 - p) / v))
    lo, hi = wilson(p * n_eff, n_eff)
    return {"mean": p, "lo": lo, "hi": hi, "n": plays, "deals": len(arrays), "n_eff": n_eff}


# ---------------------------------------------------------------------------------------------
# Ratings
# ---------------------------------------------------------------------------------------------
def _rate(names: list[str], per_deal: dict[str, list[float]], prior: dict[str, dict]) -> dict[str, dict]:
    """The agents' ratings after one Plackett-Luce game per deal, starting from ``prior`` (name -> rating)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {}
    for n in names:
        r = prior.get(n)
        ratings[n] = model.rating(mu=r["mu"], sigma=r["sigma"], name=n) if r else model.rating(name=n)
    games = {n: prior.get(n, {}).get("games", 0) for n in names}
    if len(names) > 1:
        for i in range(len(per_deal[names[0]])):
            new = model.rate([[ratings[n]] for n in names], scores=[per_deal[n][i] for n in names])
            for n, team in zip(names, new):
                ratings[n] = team[0]
                games[n] += 1
    return {n: {"mu": ratings[n].mu, "sigma": ratings[n].sigma, "ordinal": ratings[n].ordinal(), "games": games[n]} for n in names}


def read_ratings(path: str | Path) -> dict:
    """A ratings file (``{"model": "PlackettLuce", "tables": {table: {agent: rating}}}``); ``ValueError`` if it is not one."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise ValueError(f"cannot read the ratings file {str(path)!r}: {err}") from err
    if not (isinstance(data, dict) and data.get("model") == "PlackettLuce" and isinstance(data.get("tables"), dict)):
        raise ValueError(f"{str(path)!r} is not a ratings file of the arena (a JSON object with model 'PlackettLuce' and tables)")
    return data


def update_ratings(path: Path, label: str, names: list[str], per_deal: dict[str, list[float]], extend: bool = False) -> list[dict]:
    """Rate this run's deals (one Plackett-Luce game per deal, higher duplicate score first) and store
    the table in ``path``; the table's leaderboard.

    ``extend=False``: the ratings start fresh and replace the table's entry, so a rerun gives the
    same leaderboard (the other tables of the file are kept). ``extend=True``: they start from
    the table's ratings in the file, which keep accumulating.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "w") as lock:  # runs in parallel update the file one at a time
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = read_ratings(path) if path.exists() else {"model": "PlackettLuce", "tables": {}}
        table = dict(data["tables"].get(label, {})) if extend else {}
        table.update(_rate(names, per_deal, table))
        data["tables"][label] = table
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(data, indent=1))
        os.replace(tmp, path)  # atomic: a reader never sees half a file
    board = [{"agent": n, **v} for n, v in table.items()]
    return sorted(board, key=lambda r: -r["ordinal"])


# ---------------------------------------------------------------------------------------------
# The arena
# ---------------------------------------------------------------------------------------------
def run_arena(
    env_id: str,
    agents: dict[str, Any],
    num_deals: int,
    seed: int = DEFAULT_SEED,
    num_players: int | None = None,
    time_limit: float | None = None,
    fallback: Any = None,
    out: str | Path | None = None,
    deals_dir: str | Path | None = None,
    progress: bool = True,
    ratings: str | Path | None = None,
    strict: bool = False,
) -> dict:
    """Play ``num_deals`` deals of the fixed deal set in duplicate between ``agents`` (name -> agent); the results.

    ``out``: a folder for ``arena_<table>.json`` / ``.md`` / ``.png`` and this run's leaderboard in
    ``ratings.json``. ``ratings``: a ratings file to extend instead (made if missing). ``strict``:
    raise :class:`AgentCouldNotPlayError`, before anything is written, when every move of an agent
    fell back (it could not play this table: reporting its scores would report the fallback's).
    ``time_limit``: seconds per move, a finite number above 0, or ``None`` for no limit.
    """
    from tqdm import tqdm

    if env_id not in tarot_env.ENV_IDS:
        raise ValueError(f"unknown env id {env_id!r}; the env ids are {', '.join(tarot_env.ENV_IDS)}")
    if isinstance(num_deals, bool) or not isinstance(num_deals, int | np.integer) or num_deals < 1:
        raise ValueError(f"num_deals={num_deals!r}: the number of deals is a whole number, 1 or more")
    if time_limit is not None and not (isinstance(time_limit, int | float) and 0 < time_limit < math.inf):
        raise ValueError(f"time_limit={time_limit!r}: a time per move is a finite number of seconds above 0, or None")
    names = list(agents)
    if not names:
        raise ValueError("no agents given")
    label = table_label(env_id, num_players)
    deal_set = load_deal_set(env_id, num_deals, num_players, seed, deals_dir)
    fallback = fallback if fallback is not None else rule_agent(env_id)
    table = _Table(env_id, num_players, agents, fallback, time_limit)
    num_seats = len(table.env.possible_agents)
    seats = seatings(names, num_seats)

    per_deal: dict[str, list[float]] = {n: [] for n in names}
    wins_by_deal: dict[str, list[list[float]]] = {n: [] for n in names}
    #: agent -> role -> {"score": [[per deal]], "win": [[per deal]]}
    roles: dict[str, dict[str, dict[str, list[list[float]]]]] = {n: {} for n in names}
    not_played: Counter[str] = Counter()
    deals_not_played = 0
    deal_rows = []
    t0 = time.perf_counter()
    bar = tqdm(total=len(deal_set["deals"]) * len(seats), desc=f"arena {label}", disable=not progress)
    try:
        for d, deal in enumerate(deal_set["deals"]):
            acc: dict[str, list[float]] = {n: [] for n in names}
            wins: dict[str, list[float]] = {n: [] for n in names}
            deal_roles: dict[str, dict[str, dict[str, list[float]]]] = {n: {} for n in names}
            row = []
            for r, seating in enumerate(seats):
                scores, info = table.play(deal, seating, {"deal": d, "seating": r})
                result = info.get("result")
                played = result not in NOT_PLAYED
                if not played:
                    not_played[result] += 1
                role_of = _roles(env_id, info, num_seats)
                for s, (n, sc) in enumerate(zip(seating, scores)):
                    acc[n].append(sc)
                    role = deal_roles[n].setdefault(role_of[s], {"score": [], "win": []})
                    role["score"].append(sc)
                    if played:  # nobody lost a deal that nobody played
                        wins[n].append(float(_won(env_id, sc)))
                        role["win"].append(float(_won(env_id, sc)))
                row.append({"seating": r, "scores": scores, "result": result})
                bar.update(1)
            deals_not_played += all(p["result"] in NOT_PLAYED for p in row)
            for n in names:
                per_deal[n].append(float(np.mean(acc[n])))
                wins_by_deal[n].append(wins[n])
                for k, v in deal_roles[n].items():
                    role = roles[n].setdefault(k, {"score": [], "win": []})
                    role["score"].append(v["score"])
                    role["win"].append(v["win"])
            deal_rows.append(row)
    finally:
        bar.close()
        table.close()

    if strict:
        for n in names:
            c = table.counts[n]
            if c["moves"] and c["fallback"] == c["moves"]:
                raise AgentCouldNotPlayError(
                    f"agent {n!r} could not play {label}: all {c['moves']} of its moves fell back to the rule-based bot "
                    f"(first: {table.first_failure[n]}); no results were written"
                )
    total_plays = len(deal_set["deals"]) * len(seats)
    results: dict[str, Any] = {
        "env_id": env_id,
        "num_players": num_seats,
        "table": label,
        "settings": {
            "deals_per_match": len(deal_set["deals"]),
            "time_limit": time_limit,
            "seed": seed,
            "fallback": type(fallback).__name__,
            "ratings": None if ratings is None else str(ratings),
        },
        "deal_set": {k: deal_set[k] for k in ("id", "version", "seed", "path")} | {"num_deals": len(deal_set["deals"])},
        "deals": deal_set["deals"],
        "seatings": seats,
        "agents": {},
        "pairwise": {},
        "passed": {"plays": sum(not_played.values()), "of_plays": total_plays, "deals": deals_not_played, "by_result": dict(not_played)},
        "fallbacks": table.counts,
        "fallback_events": table.events,
        "per_deal": per_deal,
        "plays": deal_rows,
        "seconds": time.perf_counter() - t0,
    }
    for n in names:
        results["agents"][n] = {
            "score": mean_ci(per_deal[n]),
            "win_rate": rate_ci(wins_by_deal[n]),
            "roles": {k: {"score": cluster_mean_ci(v["score"]), "win_rate": rate_ci(v["win"])} for k, v in sorted(roles[n].items())},
            "fallbacks": table.counts[n],
        }
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            results["pairwise"][f"{a} - {b}"] = mean_ci(np.subtract(per_deal[a], per_deal[b]))
    if ratings is not None:
        results["leaderboard"] = update_ratings(Path(ratings), label, names, per_deal, extend=True)
    elif out is not None:
        results["leaderboard"] = update_ratings(Path(out) / "ratings.json", label, names, per_deal)
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        write_outputs(results, out)
    return results


# ---------------------------------------------------------------------------------------------
# Outputs
# ---------------------------------------------------------------------------------------------
def _has_interval(c: dict) -> bool:
    return c.get("lo") is not None and math.isfinite(c["lo"]) and math.isfinite(c["hi"])


def _fmt(c: dict, digits: int = 2) -> str:
    """A mean with its interval, and the warning of :func:`few_deals` beside an interval over few deals
    (``deals`` of a clustered mean or a rate; ``n`` of :func:`mean_ci`, one value a deal)."""
    if c["mean"] is None:
        return "-"
    if not _has_interval(c):
        return f"{c['mean']:.{digits}f}"
    return f"{c['mean']:.{digits}f} [{c['lo']:.{digits}f}, {c['hi']:.{digits}f}]" + few_deals(c.get("deals", c.get("n")))


def markdown(results: dict) -> str:
    ds = results["deal_set"]
    lines = [
        f"# Arena: {results['table']}",
        "",
        f"Deal set `{ds['id']}` (version {ds['version']}, seed {ds['seed']}), {ds['num_deals']} deals, "
        f"{len(results['seatings'])} seatings: "
        + "; ".join(" ".join(s) for s in results["seatings"])
        + f". Time limit per move: {results['settings']['time_limit']}.",
    ]
    passed = results.get("passed", {})
    if passed.get("plays"):
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(passed["by_result"].items()))
        lines.append(
            f"Not played (everyone passed, or annulled): {passed['plays']} of {passed['of_plays']} plays (deal x seating; {kinds}), "
            f"{passed['deals']} deal(s) at every seating; they count in the mean scores (as 0) and are not counted in the win rates."
        )
    rough = f" **Warning: {ds['num_deals']} deals, fewer than {FEW_DEALS}: every interval here is rough.**"
    lines += [
        "Intervals: over deals (each deal played at every seating is one independent unit); win rates: Wilson score intervals."
        + (rough if ds["num_deals"] < FEW_DEALS else ""),
        "",
        "| agent | mean score per deal [95% CI] | win rate [95% CI] | moves | fallbacks (exception / illegal / timeout) |",
        "|---|---|---|---|---|",
    ]
    for n, a in results["agents"].items():
        f = a["fallbacks"]
        lines.append(
            f"| {n} | {_fmt(a['score'])} | {_fmt(a['win_rate'], 3)} | {f['moves']} | "
            f"{f['fallback']} ({f['exception']} / {f['illegal']} / {f['timeout']}) |"
        )
    if results["pairwise"]:
        lines += ["", "| difference | mean per deal [95% CI] |", "|---|---|"]
        lines += [f"| {k} | {_fmt(v)} |" for k, v in results["pairwise"].items()]
    lines += ["", "| agent | role | plays | mean score [95% CI] | win rate [95% CI] |", "|---|---|---|---|---|"]
    for n, a in results["agents"].items():
        for role, v in a["roles"].items():
            lines.append(f"| {n} | {role} | {v['score']['n']} | {_fmt(v['score'])} | {_fmt(v['win_rate'], 3)} |")
    if "leaderboard" in results:
        extended = results["settings"].get("ratings")
        lines += ["", f"Ratings (OpenSkill Plackett-Luce): {f'extending {extended}' if extended else 'this run alone'}.", ""]
        lines += ["| rank | agent | mu | sigma | ordinal | games |", "|---|---|---|---|---|---|"]
        for i, r in enumerate(results["leaderboard"], 1):
            lines.append(f"| {i} | {r['agent']} | {r['mu']:.2f} | {r['sigma']:.2f} | {r['ordinal']:.2f} | {r['games']} |")
    return "\n".join(lines) + "\n"


def plot(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(results["agents"])
    sc = [results["agents"][n]["score"] for n in names]
    means = [c["mean"] for c in sc]
    err = [[c["mean"] - c["lo"] if _has_interval(c) else 0 for c in sc], [c["hi"] - c["mean"] if _has_interval(c) else 0 for c in sc]]
    fig, ax = plt.subplots(figsize=(1.6 * len(names) + 2, 4))
    ax.bar(range(len(names)), means, yerr=err, capsize=6, color="tab:blue")
    ax.set_xticks(range(len(names)), [n if len(n) < 24 else n[:21] + "..." for n in names])
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_ylabel("mean score per deal (95% CI)")
    ax.set_title(f"{results['table']}: {results['deal_set']['num_deals']} deals in duplicate")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def humans_vs_agents(path: str | Path, env_id: str, num_players: int | None = None, baselines_dir: str | Path | None = None) -> dict:
    """People against the agents on the same deals and seats, from the duplicate challenge's data set
    (``tarot challenge export``, :func:`tarot_env.challenge.read_dataset`): per agent, the mean of person's
    score − agent's score over the people's results, its 95% interval clustered by deal
    (:func:`cluster_mean_ci`: the results of one deal share its cards), and the number of results.

    The agents' scores come from where the deal comes from: a row of the room's held-out deals names its
    set (``deal_set``) and carries the agents' scores on that deal and seat (``agents``; a row whose scores
    were not computed yet is left out); a row of the committed protocol deal sets is compared with the
    table's baselines file (``results/challenge/<table>.json``), by its deal index."""
    from tarot_env import challenge

    label = table_label(env_id, num_players)
    baselines = challenge.load_baselines(label, baselines_dir)
    names = list(baselines["scores"]) if baselines is not None else []
    table_rows = [r for r in challenge.read_dataset(path) if r["table"] == label]
    rows, against = [], []
    for r in table_rows:
        if r.get("deal_set") is not None:
            scores = {k: float(v) for k, v in (r.get("agents") or {}).items()}
            key: tuple[str | None, int] = (str(r["deal_set"]), r["deal"])
        elif baselines is not None and r["deal"] in baselines["deals"]:
            scores = challenge.baseline_scores(baselines, r["deal"], r["seat"])
            key = (None, r["deal"])
        else:
            continue
        if scores:
            rows.append((key, r))
            against.append(scores)
    if not rows and baselines is None and not any(r.get("deal_set") is not None for r in table_rows):
        raise ValueError(f"{label} has no challenge baselines ({challenge.baselines_path(label, baselines_dir)}): no deal of it is offered")
    for scores in against:
        names += [n for n in scores if n not in names]
    groups: dict[str, dict[tuple[str | None, int], list[float]]] = {name: {} for name in names}
    for (key, r), scores in zip(rows, against):
        for name, score in scores.items():
            groups[name].setdefault(key, []).append(r["score"] - score)
    return {
        "table": label,
        "results": len(rows),
        "people": len({r["player"] for _, r in rows}),
        "deals": len({key for key, _ in rows}),
        "agents": {name: cluster_mean_ci(list(g.values())) for name, g in groups.items() if g},
    }


def humans_markdown(res: dict) -> str:
    """:func:`humans_vs_agents` as a table."""
    lines = [
        f"# People against the agents: {res['table']}",
        "",
        f"{res['results']} results of {res['people']} people on {res['deals']} deals (the duplicate challenge); "
        "interval: 95%, clustered by deal.",
        "",
        "| difference | mean per result [95% CI] | results | deals |",
        "|---|---|---|---|",
    ]
    lines += [f"| people - {n} | {_fmt(c)} | {c['n']} | {c['deals']} |" for n, c in res["agents"].items()]
    return "\n".join(lines) + "\n"


def write_outputs(results: dict, out: Path) -> dict[str, Path]:
    stem = out / f"arena_{results['table']}"
    paths = {"json": stem.with_suffix(".json"), "md": stem.with_suffix(".md"), "png": stem.with_suffix(".png")}
    paths["json"].write_text(json.dumps(results, indent=1, default=float))
    paths["md"].write_text(markdown(results))
    plot(results, paths["png"])
    return paths
