"""The evaluation arena: agents play a fixed, versioned deal set in duplicate, with confidence intervals and ratings.

    python -m tarot_env.experiments.arena --env ottocento_v0 --agents random,rules --deals 200      # outputs in runs/arena
    python -m tarot_env.experiments.arena --env french_tarot_v0 --players 4 --agents rules,sb3:model.zip --time-limit 0.5

- **Deal set**: ``results/deals/<env_id>[_<n>p]_v1.json`` (``_s<seed>`` added for a seed other than
  the default), made once from the seed and reused (extended deterministically when more deals are
  asked for: deal ``i`` is the deal of ``env.reset(seed=seed + i)``). Version and seed are in the file.
- **Duplicate play**: the agents are laid out round the table (``A B A B`` for two agents at four
  seats) and every deal is played at each rotation of that layout, so every agent sits at every
  seat, hence in every role, of every deal, and the luck of the cards cancels.
- **Scores**: a seat's score is its reward of the deal (``reward="score"``): French Tarot the
  deal's score; Ottocento, Quattro Scartate and the two-player games own side minus the other
  side; Terziglio the settlement; Mattazza −1 for a loser, else 0. An agent's score of a deal is
  the mean over the seats it held in all rotations. "Won": a positive score (Mattazza: not losing).
- **Metrics**: means with 95% normal-approximation confidence intervals over deals (the unit of
  independence), the paired differences between agents, and per role (French: taker, partner,
  defender, passed; Terziglio: soloist, opponent, passed; partnership games: side; others: seat;
  role intervals are over seat-plays).
- **Ratings**: OpenSkill Plackett-Luce, one rating game per deal (agents ranked by their duplicate
  score), kept per table in ``<out>/ratings.json`` and updated by later runs.
- **Table rules**: a move limit in seconds; an agent that raises, returns an illegal action or runs
  past the limit is replaced for that move by the fallback (the rule-based bot of the game
  family), and each such case is counted.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import math
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from tarot_env.agents.random_agent import RandomAgent

import tarot_env

DEAL_SET_VERSION = 1
DEFAULT_SEED = 0
Z95 = 1.959963984540054
PARTNERSHIP = ("ottocento_v0", "quattro_scartate_v0")


# ---------------------------------------------------------------------------------------------
# Agents
# ---------------------------------------------------------------------------------------------
def rule_agent(env_id: str) -> Any:
    """The rule-based bot of the env's game family."""
    if env_id.startswith("french"):
        from tarot_env.agents.french_rules import FrenchRuleAgent

        return FrenchRuleAgent()
    from tarot_env.agents.tarocchino_rules import TarocchinoRuleAgent

    return TarocchinoRuleAgent(env_id)


def make_agent(spec: str, env_id: str, seed: int = 0) -> Any:
    """An agent from its CLI name: ``random``, ``rules`` or ``sb3:<path-to-zip>``.

    A saved model plays greedily (its most probable legal action), as trained agents are evaluated:
    sampling would add noise to every comparison. ``SB3PolicyAgent(model)`` samples, in the Python API.
    """
    if spec == "random":
        return RandomAgent(seed)
    if spec == "rules":
        return rule_agent(env_id)
    if spec.startswith("sb3:"):
        from sb3_contrib import MaskablePPO
        from tarot_env.agents.sb3_policy import SB3PolicyAgent

        return SB3PolicyAgent(MaskablePPO.load(spec[4:], device="cpu"), deterministic=True)
    raise ValueError(f"unknown agent {spec!r}: use random, rules or sb3:<path-to-zip>")


class _MoveTimeoutError(Exception):
    pass


def _call(fn: Callable[[], Any], time_limit: float | None) -> Any:
    """``fn()``, in a daemon thread when there is a time limit (raises ``_MoveTimeoutError`` past it)."""
    if time_limit is None:
        return fn()
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as e:
            box["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(time_limit)
    if t.is_alive():
        raise _MoveTimeoutError
    if "error" in box:
        raise box["error"]
    return box["value"]


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
def table_label(env_id: str, num_players: int | None) -> str:
    return env_id if num_players is None else f"{env_id}_{num_players}p"


def deal_set_path(env_id: str, num_players: int | None = None, seed: int = DEFAULT_SEED, deals_dir: str | Path = "results/deals") -> Path:
    suffix = "" if seed == DEFAULT_SEED else f"_s{seed}"
    return Path(deals_dir) / f"{table_label(env_id, num_players)}_v{DEAL_SET_VERSION}{suffix}.json"


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


def load_deal_set(
    env_id: str, num_deals: int, num_players: int | None = None, seed: int = DEFAULT_SEED, deals_dir: str | Path = "results/deals"
) -> dict:
    """The fixed deal set (made if missing, extended deterministically if too short); its first ``num_deals`` deals."""
    path = deal_set_path(env_id, num_players, seed, deals_dir)
    data = None
    if path.exists():
        data = json.loads(path.read_text())
        if data.get("version") != DEAL_SET_VERSION or data.get("env") != env_id or data.get("seed") != seed:
            raise ValueError(f"{path} is not deal set v{DEAL_SET_VERSION} of {env_id} with seed {seed}")
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


def _roles(env_id: str, info: dict, num_seats: int) -> list[str]:
    if env_id.startswith("french"):
        if info.get("result") != "played":
            return ["passed"] * num_seats
        return ["taker" if s == info["taker"] else "partner" if s == info.get("partner", -1) else "defender" for s in range(num_seats)]
    if env_id == "terziglio_v0":
        if "soloist" not in info or info.get("soloist", -1) < 0:
            return ["passed"] * num_seats
        return ["soloist" if s == info["soloist"] else "opponent" for s in range(num_seats)]
    if env_id in PARTNERSHIP:
        return [f"side_{s % 2}" for s in range(num_seats)]
    return [f"seat_{s}" for s in range(num_seats)]


def _won(env_id: str, score: float) -> bool:
    return score >= 0 if env_id == "mattazza_v0" else score > 0


class _Table:
    """Plays fixed deals with agents at seats, replacing failed moves by the fallback and counting them."""

    def __init__(self, env_id: str, num_players: int | None, agents: dict[str, Any], fallback: Any, time_limit: float | None):
        self.env_id = env_id
        self.env = tarot_env.make(env_id, **_env_options(num_players))
        self.agents, self.fallback, self.time_limit = agents, fallback, time_limit
        self.counts = {n: {"moves": 0, "exception": 0, "illegal": 0, "timeout": 0, "fallback": 0} for n in agents}
        self.events: list[dict] = []
        self._last_resort = RandomAgent(12345)

    def _move(self, name: str, obs: np.ndarray, mask: np.ndarray, where: dict) -> int:
        c = self.counts[name]
        c["moves"] += 1
        agent = self.agents[name]
        o, m = obs.copy(), mask.copy()
        kind = None
        try:
            a = _as_action(_call(lambda: agent.act(o, m), self.time_limit))
            if 0 <= a < len(mask) and mask[a]:
                return a
            kind, detail = "illegal", f"action {a}"
        except _MoveTimeoutError:
            kind, detail = "timeout", f"over {self.time_limit}s"
        except Exception as e:
            kind, detail = "exception", f"{type(e).__name__}: {e}"[:200]
        c[kind] += 1
        c["fallback"] += 1
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
    """Mean with a 95% normal-approximation confidence interval."""
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n == 0:
        return {"mean": None, "lo": None, "hi": None, "n": 0}
    m = float(x.mean())
    half = Z95 * float(x.std(ddof=1)) / math.sqrt(n) if n > 1 else float("nan")
    return {"mean": m, "lo": m - half, "hi": m + half, "n": n}


# ---------------------------------------------------------------------------------------------
# Ratings
# ---------------------------------------------------------------------------------------------
def update_ratings(path: Path, label: str, names: list[str], per_deal: dict[str, list[float]]) -> list[dict]:
    """One Plackett-Luce game per deal (higher duplicate score ranks first); the table's leaderboard."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "w") as lock:  # runs in parallel update the file one at a time
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = json.loads(path.read_text()) if path.exists() else {"model": "PlackettLuce", "tables": {}}
        table = data["tables"].setdefault(label, {})
        ratings = {}
        for n in names:
            r = table.get(n)
            ratings[n] = model.rating(mu=r["mu"], sigma=r["sigma"], name=n) if r else model.rating(name=n)
        games = {n: table.get(n, {}).get("games", 0) for n in names}
        if len(names) > 1:
            for i in range(len(per_deal[names[0]])):
                new = model.rate([[ratings[n]] for n in names], scores=[per_deal[n][i] for n in names])
                for n, team in zip(names, new):
                    ratings[n] = team[0]
                    games[n] += 1
        for n in names:
            table[n] = {"mu": ratings[n].mu, "sigma": ratings[n].sigma, "ordinal": ratings[n].ordinal(), "games": games[n]}
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
    deals_dir: str | Path = "results/deals",
    progress: bool = True,
) -> dict:
    """Play ``num_deals`` deals of the fixed deal set in duplicate between ``agents`` (name -> agent); the results.

    ``out``: a folder for ``arena_<table>.json`` / ``.md`` / ``.png`` and the ``ratings.json`` leaderboard.
    """
    from tqdm import tqdm

    if env_id not in tarot_env.ENV_IDS:
        raise ValueError(f"unknown env id {env_id!r}; the env ids are {', '.join(tarot_env.ENV_IDS)}")
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
    per_deal_win: dict[str, list[float]] = {n: [] for n in names}
    roles: dict[str, dict[str, dict[str, list[float]]]] = {n: {} for n in names}
    deal_rows = []
    t0 = time.perf_counter()
    bar = tqdm(total=len(deal_set["deals"]) * len(seats), desc=f"arena {label}", disable=not progress)
    for d, deal in enumerate(deal_set["deals"]):
        acc = {n: [] for n in names}
        wins = {n: [] for n in names}
        row = []
        for r, seating in enumerate(seats):
            scores, info = table.play(deal, seating, {"deal": d, "seating": r})
            for s, (n, sc) in enumerate(zip(seating, scores)):
                acc[n].append(sc)
                wins[n].append(float(_won(env_id, sc)))
                role = roles[n].setdefault(_roles(env_id, info, num_seats)[s], {"score": [], "win": []})
                role["score"].append(sc)
                role["win"].append(float(_won(env_id, sc)))
            row.append({"seating": r, "scores": scores, "result": info.get("result")})
            bar.update(1)
        for n in names:
            per_deal[n].append(float(np.mean(acc[n])))
            per_deal_win[n].append(float(np.mean(wins[n])))
        deal_rows.append(row)
    bar.close()

    results: dict[str, Any] = {
        "env_id": env_id,
        "num_players": num_seats,
        "table": label,
        "settings": {
            "deals_per_match": len(deal_set["deals"]),
            "time_limit": time_limit,
            "seed": seed,
            "fallback": type(fallback).__name__,
        },
        "deal_set": {k: deal_set[k] for k in ("id", "version", "seed", "path")} | {"num_deals": len(deal_set["deals"])},
        "deals": deal_set["deals"],
        "seatings": seats,
        "agents": {},
        "pairwise": {},
        "fallbacks": table.counts,
        "fallback_events": table.events,
        "per_deal": per_deal,
        "plays": deal_rows,
        "seconds": time.perf_counter() - t0,
    }
    for n in names:
        results["agents"][n] = {
            "score": mean_ci(per_deal[n]),
            "win_rate": mean_ci(per_deal_win[n]),
            "roles": {k: {"score": mean_ci(v["score"]), "win_rate": mean_ci(v["win"])} for k, v in sorted(roles[n].items())},
            "fallbacks": table.counts[n],
        }
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            results["pairwise"][f"{a} - {b}"] = mean_ci(np.subtract(per_deal[a], per_deal[b]))
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        results["leaderboard"] = update_ratings(out / "ratings.json", label, names, per_deal)
        write_outputs(results, out)
    return results


# ---------------------------------------------------------------------------------------------
# Outputs
# ---------------------------------------------------------------------------------------------
def _fmt(c: dict, digits: int = 2) -> str:
    if c["mean"] is None:
        return "-"
    if c["n"] < 2:
        return f"{c['mean']:.{digits}f}"
    return f"{c['mean']:.{digits}f} [{c['lo']:.{digits}f}, {c['hi']:.{digits}f}]"


def markdown(results: dict) -> str:
    ds = results["deal_set"]
    lines = [
        f"# Arena: {results['table']}",
        "",
        f"Deal set `{ds['id']}` (version {ds['version']}, seed {ds['seed']}), {ds['num_deals']} deals, "
        f"{len(results['seatings'])} seatings: "
        + "; ".join(" ".join(s) for s in results["seatings"])
        + f". Time limit per move: {results['settings']['time_limit']}.",
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
        lines += ["", "| rank | agent | mu | sigma | ordinal | games |", "|---|---|---|---|---|---|"]
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
    err = [[c["mean"] - c["lo"] if c["n"] > 1 else 0 for c in sc], [c["hi"] - c["mean"] if c["n"] > 1 else 0 for c in sc]]
    fig, ax = plt.subplots(figsize=(1.6 * len(names) + 2, 4))
    ax.bar(range(len(names)), means, yerr=err, capsize=6, color="tab:blue")
    ax.set_xticks(range(len(names)), [n if len(n) < 24 else n[:21] + "..." for n in names])
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_ylabel("mean score per deal (95% CI)")
    ax.set_title(f"{results['table']}: {results['deal_set']['num_deals']} deals in duplicate")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_outputs(results: dict, out: Path) -> dict[str, Path]:
    stem = out / f"arena_{results['table']}"
    paths = {"json": stem.with_suffix(".json"), "md": stem.with_suffix(".md"), "png": stem.with_suffix(".png")}
    paths["json"].write_text(json.dumps(results, indent=1, default=float))
    paths["md"].write_text(markdown(results))
    plot(results, paths["png"])
    return paths


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", required=True, help="env id, e.g. french_tarot_v0, ottocento_v0")
    p.add_argument("--players", type=int, default=None, help="player count (French Tarot 3-5, Mattazza 3-6)")
    p.add_argument("--agents", default="random,rules", help="comma-separated: random, rules, sb3:<path-to-zip>")
    p.add_argument("--deals", type=int, default=200, help="deals per match")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the deal set (and of random agents)")
    p.add_argument("--time-limit", type=float, default=None, help="seconds per move (default: none)")
    p.add_argument("--out", default="runs/arena", help="output folder (default runs/arena; make arena writes results/arena)")
    p.add_argument("--deals-dir", default="results/deals", help="folder of the deal sets")
    args = p.parse_args(argv)
    specs = [s.strip() for s in args.agents.split(",") if s.strip()]
    if len(set(specs)) != len(specs):
        raise SystemExit("agent names must differ")
    agents = {s: make_agent(s, args.env, args.seed + i) for i, s in enumerate(specs)}
    res = run_arena(args.env, agents, args.deals, args.seed, args.players, args.time_limit, out=args.out, deals_dir=args.deals_dir)
    print(markdown(res))
    return res


if __name__ == "__main__":
    main()
