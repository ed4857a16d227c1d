"""Throughput of the environments through the PettingZoo AEC API and the vector API (not a test).

**AEC** (``--api aec``): random legal deals are played with the standard AEC loop
(``agent_iter``, ``last``, ``step``): every decision builds the acting player's observation
vector and action mask, exactly as a learning agent would pay for them. The random choice
itself is included.

**Vector** (``--api vector``): ``B`` tables are stepped together through
``tarot_env.vector.make(env_id, B)``; every step is one decision per table and returns the
observations ``(B, D)`` and legal masks ``(B, A)`` of the players to act, finished deals being
dealt again in place (all timed as env time). The random agent's time is measured apart, so
that both the env-only and the with-agent decisions per second are reported. Each batch size
runs in a fresh child process (``python -m tarot_env.experiments.benchmark --child ...``) whose peak
resident memory is read at the end (see :func:`peak_rss`); memory per game is computed from
the arrays themselves (see :func:`bench_vector`). A PNG of throughput against ``B`` is drawn.

    python -m tarot_env.experiments.benchmark                      # both APIs, every env id (AEC: every player count; vector: 4 players)
    python -m tarot_env.experiments.benchmark --seconds 10 --env french_tarot_v0 --players 4
    python -m tarot_env.experiments.benchmark --api vector --batch 1,256,4096 --players 4

Prints a line per configuration and writes JSON (default ``runs/benchmark.json``; results
already in the file for configurations not measured again are kept) and, when the vector API
was measured, the plot (default ``runs/vector_throughput.png``). The committed figures
(``results/benchmark.json``, ``results/vector_throughput.png``, quoted by docs/performance.md
and the README) are rewritten only when asked for: ``make bench`` passes ``--out`` and ``--plot``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import tarot_env
from tarot_env._jit import JIT_AVAILABLE

#: configurations measured per env id through the AEC API
CONFIGS: dict[str, list[dict]] = {
    "french_tarot_v0": [{"num_players": 3}, {"num_players": 4}, {"num_players": 5}],
    "mattazza_v0": [{"num_players": 3}, {"num_players": 4}, {"num_players": 5}, {"num_players": 6}],
}
#: configurations measured per env id through the vector API by default (``--players`` picks among CONFIGS):
#: the issue's target is 4 players, and a sweep of every player count would triple the run time
VECTOR_CONFIGS: dict[str, list[dict]] = {
    "french_tarot_v0": [{"num_players": 4}],
    "ottocento_v0": [{}],
    "quattro_scartate_v0": [{}],
    "terziglio_v0": [{}],
    "millone_v0": [{}],
    "centocinquanta_v0": [{}],
    "quindici_v0": [{}],
    "mattazza_v0": [{"num_players": 4}],
}
DEFAULT_BATCHES = (1, 16, 256, 1024, 4096, 16384)
#: the vector target of the issue (French Tarot, 4 players, best B, one core)
TARGET_DECISIONS_PER_SECOND = 1_000_000
ROOT = Path(__file__).resolve().parents[1]


def bench_aec(env_id: str, config: dict, seconds: float, repeats: int = 5, seed: int = 0) -> dict:
    """Play random legal deals for about ``seconds`` in ``repeats`` timed runs.

    Reports the median and the best run's decisions per second: on a shared machine the
    speed of one core varies from minute to minute, and the median of several runs is the
    steadier figure.
    """
    env = tarot_env.make(env_id, **config)
    rng = np.random.default_rng(seed)
    uniforms = iter(rng.random(20_000_000))  # the random agent's draws, made up front: the env is measured

    def play_deal() -> int:
        n = 0
        for _ in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[int(next(uniforms) * len(legal))]))
            n += 1
        return n

    env.reset(seed=seed)
    for _ in range(3):  # warm-up: compiled kernels load (or compile) on first use
        play_deal()
        env.reset()
    runs = []
    for _ in range(repeats):
        decisions = deals = 0
        start = time.perf_counter()
        while True:
            decisions += play_deal()
            deals += 1
            env.reset()
            elapsed = time.perf_counter() - start
            if elapsed >= seconds / repeats:
                break
        runs.append((decisions / elapsed, deals / elapsed, decisions, deals))
    runs.sort()
    median = runs[len(runs) // 2]
    return {
        "env": env_id,
        "config": config,
        "api": "aec",
        "repeats": repeats,
        "seconds": seconds,
        "deals": sum(r[3] for r in runs),
        "decisions": sum(r[2] for r in runs),
        "decisions_per_second": round(median[0], 1),
        "decisions_per_second_best": round(runs[-1][0], 1),
        "deals_per_second": round(median[1], 2),
        "decisions_per_deal": round(sum(r[2] for r in runs) / sum(r[3] for r in runs), 1),
    }


class PermutationAgent:
    """A random legal action per row, uniform up to the pool's sampling error, at the least
    cost we found (about 0.25 µs a row).

    A pool of ``B + spare_rows`` rows is drawn once, each row a random permutation of
    ``1..A`` (``A`` ≤ 255 actions, so it fits in uint8). At each step a random window of
    ``B`` rows of the pool (a view: no copy) is multiplied into a preallocated uint8 buffer by
    the mask, and ``argmax`` picks, in each row, the legal action of highest rank: the ranks
    are distinct, so there are no ties, and illegal actions score 0 while every rank is ≥ 1,
    so the pick is always legal. Under a uniformly random permutation the highest-ranked legal
    action is a uniform legal choice; with a finite pool, table ``i`` draws from the
    ``spare_rows + 1`` permutations of its window, so the choice is uniform up to that
    sample's error (measured: under 1% with the default 16,384 spare rows, 1–2% with 1,024).
    The window offsets are drawn up front too. Nothing of size ``B×A`` is allocated per step (the cumulative-count
    alternative, ``cumsum`` of the mask, costs about ten times as much at large B;
    :class:`tarot_env.agents.random_agent.RandomAgent` draws a float matrix per step).
    """

    def __init__(self, batch: int, num_actions: int, seed: int = 0, spare_rows: int = 16384) -> None:
        if num_actions > 255:
            raise ValueError(f"PermutationAgent needs at most 255 actions (uint8 ranks), got {num_actions}")
        rng = np.random.default_rng(seed)
        ranks = np.tile(np.arange(1, num_actions + 1, dtype=np.uint8), (batch + spare_rows, 1))
        self.pool = rng.permuted(ranks, axis=1)
        self.offsets = rng.integers(0, spare_rows + 1, size=1 << 16).tolist()
        self.buffer = np.empty((batch, num_actions), dtype=np.uint8)
        self.batch = batch
        self.calls = 0

    def act(self, masks: np.ndarray) -> np.ndarray:
        """One action per row of ``masks`` ``(B, A)`` bool (each row with a legal action)."""
        o = self.offsets[self.calls & 0xFFFF]
        self.calls += 1
        np.multiply(masks.view(np.uint8), self.pool[o : o + self.batch], out=self.buffer)
        return self.buffer.argmax(axis=1)


def peak_rss() -> int:
    """Peak resident memory of this process in bytes.

    ``VmHWM`` of ``/proc/self/status`` on Linux: the high-water mark of this process's own
    address space, which starts afresh at ``exec``. ``resource.getrusage().ru_maxrss`` is not
    used there: Linux carries it across ``fork``/``exec``, so a child started by a parent that
    once held 500 MB reports at least 500 MB (checked). Elsewhere ``ru_maxrss`` is the fallback
    (kilobytes on Linux, bytes on macOS).
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return maxrss if sys.platform == "darwin" else maxrss * 1024


def bench_vector(env_id: str, config: dict, batch: int, seconds: float, repeats: int = 5, min_steps: int = 100, seed: int = 0) -> dict:
    """Step ``batch`` tables with random legal actions in ``repeats`` timed runs after a warm-up.

    Each run lasts at least ``seconds / repeats`` and at least ``min_steps`` steps: the cost
    of a step depends on the phase the tables are in (the tables of a batch stay nearly in
    step, since every 4-player deal has 4 bids and 72 card plays), so a run must span about a
    deal (≈77 steps for 4 players) to be representative. The warm-up (kernels loaded, tables
    past their first deal) is ``min_steps`` steps and at least half a second.

    Env time is ``step()`` (rules, auto-reset of finished deals, observations and masks);
    agent time is :class:`PermutationAgent`. Medians of the runs are reported, as for AEC.

    Memory per game: the bytes of the state blocks (``venv.game_state.blocks``) plus the arrays of
    one ``VectorStep`` (observations, masks, players, rewards, terminations), divided by ``B``.
    The vector env keeps no observation buffer of its own: each step returns fresh arrays.
    """
    import tarot_env.vector

    rss_before = peak_rss()
    venv = tarot_env.vector.make(env_id, batch, **config)
    agent = PermutationAgent(batch, venv.num_actions, seed=seed + 1)
    out = venv.reset(seed=seed)
    perf = time.perf_counter
    start, steps = perf(), 0
    while steps < min_steps or perf() - start < 0.5:
        out = venv.step(agent.act(out.action_masks))
        steps += 1
    runs = []
    for _ in range(repeats):
        env_time = agent_time = 0.0
        steps = deals = 0
        start = perf()
        while steps < min_steps or perf() - start < seconds / repeats:
            t0 = perf()
            actions = agent.act(out.action_masks)
            t1 = perf()
            out = venv.step(actions)
            t2 = perf()
            agent_time += t1 - t0
            env_time += t2 - t1
            deals += len(out.infos["ended"])
            steps += 1
        decisions = steps * batch
        runs.append({"env": decisions / env_time, "total": decisions / (env_time + agent_time), "decisions": decisions,
                     "deals": deals, "steps": steps, "env_time": env_time, "agent_time": agent_time})  # fmt: skip
    blocks = venv.game_state.blocks
    state_bytes = sum(block.nbytes for block in (blocks.values() if isinstance(blocks, dict) else blocks))
    step_bytes = sum(a.nbytes for a in (out.observations, out.action_masks, out.players, out.rewards, out.terminations))
    env_dps = sorted(r["env"] for r in runs)
    total_dps = sorted(r["total"] for r in runs)
    decisions, deals = sum(r["decisions"] for r in runs), sum(r["deals"] for r in runs)
    env_time, agent_time = sum(r["env_time"] for r in runs), sum(r["agent_time"] for r in runs)
    return {
        "env": env_id,
        "config": config,
        "api": "vector",
        "batch_size": batch,
        "repeats": repeats,
        "seconds": seconds,
        "steps": sum(r["steps"] for r in runs),
        "deals": deals,
        "decisions": decisions,
        "decisions_per_second": round(total_dps[len(runs) // 2], 1),
        "decisions_per_second_best": round(total_dps[-1], 1),
        "env_decisions_per_second": round(env_dps[len(runs) // 2], 1),
        "env_decisions_per_second_best": round(env_dps[-1], 1),
        "agent_share": round(agent_time / (env_time + agent_time), 3),
        "deals_per_second": round(deals / (env_time + agent_time), 2),
        "decisions_per_deal": round(decisions / deals, 1) if deals else None,
        "env_us_per_step": round(env_time / sum(r["steps"] for r in runs) * 1e6, 1),
        "peak_rss_bytes": peak_rss(),
        "rss_before_env_bytes": rss_before,
        "state_bytes_per_game": round(state_bytes / batch, 1),
        "step_output_bytes_per_game": round(step_bytes / batch, 1),
        "memory_per_game_bytes": round((state_bytes + step_bytes) / batch, 1),
        "observation_size": venv.observation_size,
        "num_actions": venv.num_actions,
    }


def run_child(env_id: str, config: dict, batch: int, seconds: float, repeats: int, min_steps: int) -> dict:
    """:func:`bench_vector` in a fresh interpreter, so that its peak memory is its own."""
    spec = {"env": env_id, "config": config, "batch": batch, "seconds": seconds, "repeats": repeats, "min_steps": min_steps}
    proc = subprocess.run(
        [sys.executable, "-m", "tarot_env.experiments.benchmark", "--child", json.dumps(spec)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def plot_vector(results: list[dict], path: Path) -> None:
    """Decisions per second against B (log-log), env-only and with the agent, one colour per
    configuration; the AEC figure of the same configuration and the issue's target as lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.8), dpi=120)
    vector = [r for r in results if r.get("api") == "vector"]
    keys = sorted({(r["env"], json.dumps(r["config"], sort_keys=True)) for r in vector})
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (env_id, config) in enumerate(keys):
        rows = sorted((r for r in vector if (r["env"], json.dumps(r["config"], sort_keys=True)) == (env_id, config)),
                      key=lambda r: r["batch_size"])  # fmt: skip
        label = f"{env_id} {_config_label(json.loads(config))}"
        bs = [r["batch_size"] for r in rows]
        c = colours[k % len(colours)]
        ax.plot(bs, [r["env_decisions_per_second"] for r in rows], "o-", color=c, label=f"{label}: env only")
        ax.plot(bs, [r["decisions_per_second"] for r in rows], "s--", color=c, label=f"{label}: env + random agent")
        aec = [r for r in results if r.get("api") == "aec" and r["env"] == env_id and json.dumps(r["config"], sort_keys=True) == config]
        if aec:
            ax.axhline(aec[0]["decisions_per_second"], color=c, linestyle=":", label=f"{label}: AEC API")
    ax.axhline(TARGET_DECISIONS_PER_SECOND, color="grey", linestyle="-.", label="target: 1,000,000 decisions/s")
    ax.set_xscale("log", base=2)
    ticks = sorted({r["batch_size"] for r in vector})
    ax.set_xticks(ticks, [f"{b:,}" for b in ticks])
    ax.minorticks_off()
    ax.set_yscale("log")
    ax.set_xlabel("B (tables stepped together)")
    ax.set_ylabel("decisions per second (median, one core)")
    ax.set_title("Vector API throughput, random legal play (observations and masks included)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def _config_label(config: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in config.items()).replace("num_players=", "players=") or "-"


def _batches(text: str) -> list[int]:
    sizes = [int(x) for x in text.replace(" ", "").split(",") if x]
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"batch sizes must be positive ints separated by commas, got {text!r}")
    return sizes


def _key(r: dict) -> tuple:
    return (r.get("api"), r["env"], json.dumps(r["config"], sort_keys=True), r.get("batch_size"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--api", choices=("vector", "aec", "all"), default="all", help="which API to measure (default: all)")
    parser.add_argument("--env", action="append", help="env id (repeatable; default: all)")
    parser.add_argument("--players", type=int, action="append",
                        help="player counts (repeatable; default: all of the env through AEC, 4 through the vector API)")  # fmt: skip
    parser.add_argument("--batch", type=_batches, action="append",
                        help="vector batch sizes, comma-separated (repeatable; default 1,16,256,1024,4096,16384)")  # fmt: skip
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per configuration (default 10)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per configuration; the median is reported (default 5)")
    parser.add_argument("--min-steps", type=int, default=100, help="vector: fewest steps per timed run, about a deal (default 100)")
    parser.add_argument(
        "--out",
        default="runs/benchmark.json",
        help="JSON output file (default runs/benchmark.json; other configurations' results in it are kept)",
    )
    parser.add_argument(
        "--plot", default="runs/vector_throughput.png", help="vector plot, PNG (default runs/vector_throughput.png; '' for none)"
    )
    parser.add_argument(
        "--threads", type=_batches, default=None,
        help="vector: the env's num_threads to measure, comma-separated, alternating at each batch size (default: the env's default, 1)",
    )  # fmt: skip
    parser.add_argument("--child", help=argparse.SUPPRESS)  # internal: one vector configuration, JSON on stdout
    args = parser.parse_args()

    if args.child:
        spec = json.loads(args.child)
        r = bench_vector(spec["env"], spec["config"], spec["batch"], spec["seconds"], spec["repeats"], spec["min_steps"])
        print(json.dumps(r))
        return

    load_before = os.getloadavg() if hasattr(os, "getloadavg") else None  # other processes share the cores
    results = []
    env_ids = args.env or tarot_env.ENV_IDS
    if args.api in ("aec", "all"):
        for env_id in env_ids:
            for config in CONFIGS.get(env_id, [{}]):
                if args.players and config.get("num_players") not in args.players:
                    continue
                r = bench_aec(env_id, config, args.seconds, args.repeats)
                results.append(r)
                print(
                    f"aec    {env_id:<20} players={config.get('num_players', '-')!s:<3} "
                    f"{r['decisions_per_second']:>10,.0f} decisions/s (median of {r['repeats']}; best "
                    f"{r['decisions_per_second_best']:,.0f})  {r['deals_per_second']:>7,.1f} deals/s  "
                    f"({r['decisions_per_deal']:.1f} decisions per deal)",
                    flush=True,
                )
    if args.api in ("vector", "all"):
        batches = [b for sizes in args.batch for b in sizes] if args.batch else list(DEFAULT_BATCHES)
        for env_id in env_ids:
            if env_id not in VECTOR_CONFIGS:
                print(f"vector {env_id:<20} skipped: no vector env", flush=True)
                continue
            configs = VECTOR_CONFIGS[env_id]
            if args.players:
                configs = [c for c in CONFIGS.get(env_id, [{}]) if c.get("num_players") in args.players]
            threads = args.threads or [None]
            for config in configs:
                for batch, k in ((b, k) for b in batches for k in threads):
                    child_config = config if k is None else {**config, "num_threads": k}
                    r = run_child(env_id, child_config, batch, args.seconds, args.repeats, args.min_steps)
                    results.append(r)
                    print(
                        f"vector {env_id:<20} players={config.get('num_players', '-')!s:<3} B={batch:<6} "
                        + ("" if k is None else f"threads={k} ")
                        + f"env {r['env_decisions_per_second']:>10,.0f} decisions/s, with agent {r['decisions_per_second']:>10,.0f} "
                        f"(medians of {r['repeats']})  peak RSS {r['peak_rss_bytes'] / 2**20:>6,.0f} MiB  "
                        f"{r['memory_per_game_bytes']:,.0f} B/game",
                        flush=True,
                    )

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    today = datetime.date.today().isoformat()
    for r in results:
        r["date"] = today
    measured = {_key(r) for r in results}
    kept = []
    if out.exists():
        try:
            kept = [r for r in json.loads(out.read_text()).get("results", []) if _key(r) not in measured]
        except (json.JSONDecodeError, KeyError, TypeError):
            kept = []
    merged = sorted(kept + results, key=lambda r: (r.get("api") != "aec", *_key(r)[1:3], r.get("batch_size") or 0))
    machine = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "jit": JIT_AVAILABLE,
        "load_average_before": [round(x, 2) for x in load_before] if load_before else None,
        "note": "one process, one core; vector: one fresh child process per batch size",
    }
    out.write_text(json.dumps({"machine": machine, "results": merged}, indent=2) + "\n")
    print(f"written {out}")
    if args.plot and any(r["api"] == "vector" for r in results):
        plot_vector(merged, Path(args.plot))
        print(f"written {args.plot}")


if __name__ == "__main__":
    main()
