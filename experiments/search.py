"""The PIMC search agent's numbers: its time per decision, its strength as the samples grow, and
its games against the trained agents (not a test).

    python -m tarot_env.experiments.search speed --table french_tarot_v0_4p --deals 20
    python -m tarot_env.experiments.search samples --table french_tarot_v0_4p --samples 4,16,64,256 --deals 300
    python -m tarot_env.experiments.search versus --table ottocento_v0 --deals 300

- **speed**: PIMC at its default settings (``pimc``: 64 samples, 0.25 s a decision) holds every
  seat of the table's first ``--deals`` deals of the versioned deal set; each searched decision (a
  card to play with a choice) is timed around ``act``. Reports the median, 95th percentile and
  largest seconds per decision, the share over the limit, and the samples searched. One process,
  one thread: one core.
- **samples**: PIMC with ``samples=K`` and no practical time limit (``time=60``) against the rule-based
  bot under the benchmark's protocol (:mod:`.suite`: duplicate seatings of the deal set) on
  ``--deals`` deals, for each K: the difference PIMC − bot per deal with its 95% interval, and a plot.
- **versus**: PIMC at its defaults against the table's trained agent (``pretrained``), duplicate, on
  ``--deals`` deals: the difference PIMC − trained with its interval.

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
    agent = parse_spec(spec).bind(env)
    times, searched = [], []
    for deal in tqdm(
        load_deal_set(env_id, deals, num_players=num_players, deals_dir=deals_dir)["deals"], desc=f"{table} speed", disable=not progress
    ):
        env.reset(options={"deal": deal})
        for _name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            start = time.perf_counter()
            action = agent.act(obs["observation"], obs["action_mask"])
            seconds = time.perf_counter() - start
            if agent.searched:
                times.append(seconds)
                searched.append(agent.searched)
            env.step(action)
    t = np.array(times)
    return {
        "table": table,
        "agent": spec,
        "limit": agent.time,
        "samples": agent.samples,
        "deals": deals,
        "decisions": len(t),
        "median_s": float(np.median(t)) if len(t) else None,
        "p95_s": float(np.percentile(t, 95)) if len(t) else None,
        "max_s": float(t.max()) if len(t) else None,
        "over_limit": float((t > agent.time).mean()) if len(t) else None,
        "mean_samples": float(np.mean(searched)) if searched else None,
        "min_samples": int(np.min(searched)) if searched else None,
        "hardware": _hardware(),
        "command": f"python -m tarot_env.experiments.search speed --table {table} --deals {deals}",
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


def versus(table: str, deals: int, spec: str = "pimc", deals_dir: str | Path | None = None, progress: bool = True) -> dict:
    """PIMC against the table's trained agent, duplicate."""
    from tarot_env.agents.factory import make_agent

    from tarot_env.arena import run_arena

    env_id, num_players = TABLES[table]
    agents = {spec: make_agent(spec, env_id, num_players=num_players), "trained": make_agent("pretrained", env_id, num_players=num_players)}
    res = run_arena(env_id, agents, deals, 0, num_players, deals_dir=deals_dir, progress=progress, strict=True)
    return {
        "table": table,
        "deals": deals,
        "difference": res["pairwise"][f"{spec} - trained"],
        "scores": {name: res["agents"][name]["score"] for name in agents},
        "fallbacks": {name: res["agents"][name]["fallbacks"] for name in agents},
        "seconds": round(res["seconds"], 1),
        "hardware": _hardware(),
        "command": f"python -m tarot_env.experiments.search versus --table {table} --deals {deals}",
    }


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
    p.add_argument("mode", choices=["speed", "samples", "versus"])
    p.add_argument("--table", required=True, help=f"one of {', '.join(TABLES)}")
    p.add_argument("--deals", type=arguments.deals, default=100, help="deals of the table's deal set (default 100)")
    p.add_argument("--samples", type=_ks, default=[4, 16, 64, 256], help="samples mode: the K to try (default 4,16,64,256)")
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
        result = speed(args.table, args.deals, deals_dir=args.deals_dir, progress=progress)
        print(
            f"{args.table}: {result['decisions']} searched decisions, median {result['median_s']:.3f} s, 95th percentile "
            f"{result['p95_s']:.3f} s, largest {result['max_s']:.3f} s (limit {result['limit']} s; {result['over_limit']:.1%} over); "
            f"{result['mean_samples']:.1f} samples on average (fewest {result['min_samples']})"
        )
    elif args.mode == "samples":
        result = samples(args.table, args.samples, args.deals, deals_dir=args.deals_dir, progress=progress)
        plot_samples(result, out / f"samples_{args.table}.png")
    else:
        result = versus(args.table, args.deals, deals_dir=args.deals_dir, progress=progress)
        d = result["difference"]
        print(f"{args.table}: pimc - trained {_ci(d, 2)} per deal over {args.deals} deals")
    path = out / f"{args.mode}_{args.table}.json"
    path.write_text(json.dumps(result, indent=1))
    print(f"written {path}")
    return result


if __name__ == "__main__":
    main()
