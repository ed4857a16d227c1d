"""The PIMC search agent's numbers: its time per decision, its strength as the samples grow, and
its games against the trained agents (not a test).

    python -m tarot_env.experiments.search speed --table french_tarot_v0_4p --deals 20
    python -m tarot_env.experiments.search samples --table french_tarot_v0_4p --samples 4,16,64,256 --deals 300
    python -m tarot_env.experiments.search versus --table ottocento_v0 --deals 300
    python -m tarot_env.experiments.search versus --table french_tarot_v0_4p --agent pimc:rollout=pretrained --against pimc --seed 700001
    python -m tarot_env.experiments.search classes --table french_tarot_v0_4p --deals 200

- **speed**: PIMC at its default settings (``pimc``: 64 samples, 0.25 s a decision) holds every
  seat of the table's first ``--deals`` deals of the versioned deal set; each searched decision (a
  card to play with a choice) is timed around ``act``. Reports the median, 95th percentile and
  largest seconds per decision, the share over the limit, and the samples searched. One process,
  one thread: one core.
- **samples**: PIMC with ``samples=K`` and no practical time limit (``time=60``) against the rule-based
  bot under the benchmark's protocol (:mod:`.suite`: duplicate seatings of the deal set) on
  ``--deals`` deals, for each K: the difference PIMC − bot per deal with its 95% interval, and a plot.
- **versus**: ``--agent`` (default ``pimc``, PIMC at its defaults) against ``--against`` (default the
  table's trained agent, ``pretrained``), duplicate, on ``--deals`` deals of the deal set of ``--seed``
  (default the protocol's, 0; another seed's deals are made in ``--deals-dir``): the difference with its
  interval, and the seconds per searched decision of each search agent.
- **classes**: where the search's lead over the trained agent is. For each class of decisions of the
  table's family (:data:`tarot_env.agents.pimc.CLASSES`), the hybrid ``pimc:search=<class>,base=pretrained``
  (the network decides, the search takes that class) against the network alone, duplicate; and
  ``pimc:base=pretrained`` (every class searched) for the whole lead. Each cell is written as it
  ends (``classes_<table>/<class>.json``) and a run that is started again skips the cells done, so a
  long measurement resumes; a class the table never asks is reported with 0 decisions searched.

Results go to ``--out`` (default ``runs/search``; the committed ones, quoted by docs/results.md, are
in ``results/search``) as ``<mode>_<table>.json`` (and ``samples_<table>.png``).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np
from tarot_env.agents.trained import TABLES
from tarot_env.experiments.suite import _ci


def _hardware() -> str:
    return f"{platform.processor() or platform.machine()}, {platform.python_implementation()} {platform.python_version()}, one core"


def speed(table: str, deals: int, spec: str = "pimc", deals_dir: str | Path | None = None, progress: bool = True) -> dict:
    """Seconds per searched decision of ``spec`` holding every seat (see the module docstring)."""
    from tarot_env.agents.pimc import parse_spec
    from tqdm import tqdm

    import tarot_env
    from tarot_env.arena import _env_options, load_deal_set

    env_id, num_players = TABLES[table]
    env = tarot_env.make(env_id, **_env_options(num_players))
    agent = parse_spec(spec)
    timer = _DecisionTimer(agent).bind(env)
    for deal in tqdm(
        load_deal_set(env_id, deals, num_players=num_players, deals_dir=deals_dir)["deals"], desc=f"{table} speed", disable=not progress
    ):
        env.reset(options={"deal": deal})
        for _name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else timer.act(obs["observation"], obs["action_mask"]))
    t, searched = np.array(timer.seconds), timer.samples
    return {
        "table": table,
        "agent": spec,
        "limit": agent.time,
        "samples": agent.samples,
        "deals": deals,
        **{k: v for k, v in timer.summary().items() if k != "decisions"},
        "decisions": len(t),
        "over_limit": float((t > agent.time).mean()) if len(t) else None,
        "min_samples": int(np.min(searched)) if searched else None,
        "hardware": _hardware(),
        "command": f"python -m tarot_env.experiments.search speed --table {table} --deals {deals}"
        + ("" if spec == "pimc" else f" --agent {spec}"),
    }


def samples(table: str, ks: list[int], deals: int, deals_dir: str | Path | None = None, progress: bool = True) -> dict:
    """PIMC − bot per deal for each number of samples (time limit lifted)."""
    from tarot_env.experiments.suite import evaluate

    rows = []
    for k in ks:
        row = evaluate(table, f"pimc:samples={k},time=60", name=f"pimc K={k}", deals=deals, deals_dir=deals_dir, progress=progress)
        rows.append(
            {"samples": k, "difference": row["difference"], "score": row["score"], "win_rate": row["win_rate"], "seconds": row["seconds"]}
        )
        print(f"{table}: K={k}: {_ci(row['difference'], 2)} ({row['seconds']:.0f} s)")
    ks_text = ",".join(str(k) for k in ks)
    return {"table": table, "deals": deals, "rows": rows, "hardware": _hardware(),
            "command": f"python -m tarot_env.experiments.search samples --table {table} --samples {ks_text} --deals {deals}"}  # fmt: skip


def versus(
    table: str,
    deals: int,
    spec: str = "pimc",
    deals_dir: str | Path | None = None,
    progress: bool = True,
    against: str = "pretrained",
    seed: int = 0,
) -> dict:
    """``spec`` against ``against`` (by default PIMC against the table's trained agent), duplicate, on the
    first ``deals`` deals of the deal set of ``seed``."""
    from tarot_env.agents.factory import make_agent

    from tarot_env.arena import run_arena

    env_id, num_players = TABLES[table]
    if spec == against:
        raise ValueError(f"--agent and --against are both {spec!r}: a duplicate match needs two different agents")
    agents = {spec: make_agent(spec, env_id, num_players=num_players), against: make_agent(against, env_id, num_players=num_players)}
    timers = {name: _DecisionTimer(agent) for name, agent in agents.items() if hasattr(agent, "decisions")}
    res = run_arena(
        env_id, {name: timers.get(name, agent) for name, agent in agents.items()}, deals, seed, num_players,
        deals_dir=deals_dir, progress=progress, strict=True,
    )  # fmt: skip
    command = f"python -m tarot_env.experiments.search versus --table {table} --deals {deals}"
    if spec != "pimc" or against != "pretrained" or seed != 0:
        command += f" --agent {spec} --against {against} --seed {seed}"
    return {
        "table": table,
        "deals": deals,
        "seed": seed,
        "agent": spec,
        "against": against,
        "difference": res["pairwise"][f"{spec} - {against}"],
        "scores": {name: res["agents"][name]["score"] for name in agents},
        "fallbacks": {name: res["agents"][name]["fallbacks"] for name in agents},
        "search": {name: t.summary() for name, t in timers.items()},
        "seconds": round(res["seconds"], 1),
        "hardware": _hardware(),
        "command": command,
    }


class _DecisionTimer:
    """A search agent as the arena plays it, timing each decision it searched (its ``decisions`` counter moved)."""

    def __init__(self, agent: Any) -> None:
        self.agent, self.seconds, self.samples = agent, [], []
        self.name = getattr(agent, "name", "pimc")

    def bind(self, env: Any) -> _DecisionTimer:
        self.agent.bind(env)
        return self

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        before = sum(self.agent.decisions.values())
        start = time.perf_counter()
        action = self.agent.act(observation, mask)
        if sum(self.agent.decisions.values()) > before:
            self.seconds.append(time.perf_counter() - start)
            self.samples.append(self.agent.searched)
        return action

    def summary(self) -> dict:
        t = np.array(self.seconds)
        return {
            "decisions": dict(self.agent.decisions),
            "median_s": float(np.median(t)) if len(t) else None,
            "p95_s": float(np.percentile(t, 95)) if len(t) else None,
            "max_s": float(t.max()) if len(t) else None,
            "mean_samples": float(np.mean(self.samples)) if self.samples else None,
        }


def classes(
    table: str,
    deals: int,
    out: Path,
    seed: int = 0,
    only: list[str] | None = None,
    deals_dir: str | Path | None = None,
    progress: bool = True,
) -> dict:
    """Section 1 of the search's measurements: the hybrid searching one class against the trained agent,
    per class (module docstring); cells already in ``out/classes_<table>/`` are read, not played again."""
    from tarot_env.agents.pimc import CLASSES

    from tarot_env.env_facts import facts

    env_id, _ = TABLES[table]
    family = "french" if facts(env_id).french else "tarocchino"
    names = [*CLASSES[family], "all"] if only is None else only
    if unknown := [c for c in names if c not in (*CLASSES[family], "all")]:
        raise ValueError(f"classes {unknown} are not decisions of {table}; its classes are {', '.join(CLASSES[family])}, or all")
    folder = out / f"classes_{table}"
    folder.mkdir(parents=True, exist_ok=True)
    cells = {}
    for name in names:
        path = folder / f"{name}_seed{seed}_{deals}.json"
        if path.is_file():
            cells[name] = json.loads(path.read_text())
            continue
        spec = "pimc:base=pretrained" if name == "all" else f"pimc:search={name},base=pretrained"
        cell = versus(table, deals, spec, deals_dir=deals_dir, progress=progress, seed=seed)
        cell["class"] = name
        path.write_text(json.dumps(cell, indent=1))
        cells[name] = cell
        print(f"{table}: search {name} - trained {_ci(cell['difference'], 2)}; decisions searched {cell['search'][spec]['decisions']}")
    whole = cells.get("all", {}).get("difference", {}).get("mean")
    rows = []
    for name, cell in cells.items():
        d = cell["difference"]
        spec = cell["agent"]
        share = None if whole in (None, 0) or name == "all" else d["mean"] / whole
        rows.append({"class": name, "difference": d, "share": share, "decisions": sum(cell["search"][spec]["decisions"].values()),
                     "median_s": cell["search"][spec]["median_s"], "seconds": cell["seconds"]})  # fmt: skip
    return {"table": table, "deals": deals, "seed": seed, "rows": rows, "hardware": _hardware(),
            "command": f"python -m tarot_env.experiments.search classes --table {table} --deals {deals} --seed {seed}"}  # fmt: skip


def classes_markdown(result: dict) -> str:
    """The table docs/results.md shows: each class's lead and its share of the whole search's."""
    lines = [
        "| searched by PIMC (the rest: the trained network) | hybrid − trained per deal [95% CI] | share of the whole lead "
        "| decisions searched | median s |",
        "|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        share = "" if r["share"] is None else f"{r['share']:.0%}"
        median = "" if r["median_s"] is None else f"{r['median_s']:.3f}"
        lines.append(f"| {r['class']} | {_ci(r['difference'], 1)} | {share} | {r['decisions']} | {median} |")
    return "\n".join(lines)


def plot_samples(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = [r["samples"] for r in result["rows"]]
    mean = np.array([r["difference"]["mean"] for r in result["rows"]])
    low = mean - np.array([r["difference"]["lo"] for r in result["rows"]])
    high = np.array([r["difference"]["hi"] for r in result["rows"]]) - mean
    fig, ax = plt.subplots(figsize=(5.5, 3.5))
    ax.errorbar(ks, mean, yerr=[low, high], marker="o", capsize=4)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("samples per decision (K)")
    ax.set_ylabel("PIMC − rule-based bot per deal")
    ax.set_title(f"{result['table']}: strength against K ({result['deals']} duplicate deals, 95% CI)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _slug(text: str) -> str:
    """A file name's part from agent names (``pimc:rollout=pretrained`` -> ``pimc-rollout-pretrained``)."""
    return "".join(c if c.isalnum() or c in "_." else "-" for c in text)


def _ks(text: str) -> list[int]:
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"samples must be positive ints separated by commas, got {text!r}") from None
    if not ks or min(ks) < 1:
        raise argparse.ArgumentTypeError(f"samples must be positive ints separated by commas, got {text!r}")
    return ks


def main(argv: list[str] | None = None) -> dict[str, Any]:
    from tarot_env import arguments

    p = arguments.OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=["speed", "samples", "versus", "classes"])
    p.add_argument("--table", required=True, help=f"one of {', '.join(TABLES)}")
    p.add_argument("--deals", type=arguments.deals, default=100, help="deals of the table's deal set (default 100)")
    p.add_argument("--samples", type=_ks, default=[4, 16, 64, 256], help="samples mode: the K to try (default 4,16,64,256)")
    p.add_argument("--agent", default="pimc", help="speed and versus modes: the search agent measured (default pimc)")
    p.add_argument("--against", default="pretrained", help="versus mode: its opponent (default pretrained, the table's trained agent)")
    p.add_argument("--seed", type=int, default=0, help="versus and classes modes: the deal set's seed (default 0, the protocol's)")
    p.add_argument("--classes", default=None, help="classes mode: the classes to measure, comma-separated (default every class, and all)")
    p.add_argument("--out", default="runs/search", help="folder for the JSON (and plot); default runs/search")
    p.add_argument("--deals-dir", default=None, help="folder of the deal sets (default: the committed ones; others made in runs/deals)")
    p.add_argument("--no-progress-bar", action="store_true")
    args = p.parse_args(argv)
    if args.table not in TABLES:
        p.error(f"argument --table: unknown table {args.table!r}; the tables are {', '.join(TABLES)}")
    out = Path(args.out)
    if why := arguments.writable_folder_error(out, "--out"):
        p.error(why)
    out.mkdir(parents=True, exist_ok=True)
    progress = not args.no_progress_bar
    if args.mode == "speed":
        result = speed(args.table, args.deals, args.agent, deals_dir=args.deals_dir, progress=progress)
        print(
            f"{args.table}: {result['decisions']} searched decisions, median {result['median_s']:.3f} s, 95th percentile "
            f"{result['p95_s']:.3f} s, largest {result['max_s']:.3f} s (limit {result['limit']} s; {result['over_limit']:.1%} over); "
            f"{result['mean_samples']:.1f} samples on average (fewest {result['min_samples']})"
        )
    elif args.mode == "samples":
        result = samples(args.table, args.samples, args.deals, deals_dir=args.deals_dir, progress=progress)
        plot_samples(result, out / f"samples_{args.table}.png")
    elif args.mode == "classes":
        only = None if args.classes is None else [c.strip() for c in args.classes.split(",") if c.strip()]
        try:
            result = classes(args.table, args.deals, out, args.seed, only, deals_dir=args.deals_dir, progress=progress)
        except ValueError as err:
            p.error(f"argument --classes: {err}")
        print(classes_markdown(result))
    else:
        from tarot_env.agents.factory import split_agents

        if len(split_agents(args.agent)) != 1 or len(split_agents(args.against)) != 1:
            p.error(f"--agent {args.agent!r} and --against {args.against!r}: one agent each")
        try:
            result = versus(
                args.table, args.deals, args.agent, deals_dir=args.deals_dir, progress=progress, against=args.against, seed=args.seed
            )
        except ValueError as err:
            p.error(str(err))
        d = result["difference"]
        print(f"{args.table}: {args.agent} - {args.against} {_ci(d, 2)} per deal over {args.deals} deals (seed {args.seed})")
        for name, summary in result["search"].items():
            print(f"  {name}: median {summary['median_s']} s a searched decision, {summary['decisions']}")
    suffix = (
        ""
        if args.mode != "versus" or (args.agent, args.against, args.seed) == ("pimc", "pretrained", 0)
        else "_" + _slug(f"{args.agent}_vs_{args.against}_seed{args.seed}")
    )
    if args.mode == "speed" and args.agent != "pimc":
        suffix = "_" + _slug(args.agent)
    path = out / f"{args.mode}_{args.table}{suffix}.json"
    path.write_text(json.dumps(result, indent=1))
    print(f"written {path}")
    return result


if __name__ == "__main__":
    main()
