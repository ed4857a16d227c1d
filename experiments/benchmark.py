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
from tarot_env._threads import wait_policy
from tarot_env.env_facts import ENVS, facts

#: configurations measured per env id through the AEC API: every player count of a game of several
#: (the others are measured at their one count, ``[{}]``)
CONFIGS: dict[str, list[dict]] = {
    env_id: [{"num_players": n} for n in row.player_counts] for env_id, row in ENVS.items() if len(row.player_counts) > 1
}
#: configurations measured per env id through the vector API by default (``--players`` picks among CONFIGS):
#: the issue's target is 4 players (the default count), and a sweep of every player count would triple the run time
VECTOR_CONFIGS: dict[str, list[dict]] = {
    env_id: [{"num_players": row.default_players}] if len(row.player_counts) > 1 else [{}] for env_id, row in ENVS.items()
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


#: a run during which other processes kept more than this share of a core busy is not "clean"
#: (:func:`other_load`): on this 2-core machine a second busy process takes the core a second
#: thread would use, so a thread-scaling figure is read from clean runs only
CLEAN_LOAD = 0.1


def busy_seconds() -> float | None:
    """CPU seconds the whole machine (every core, every process) has spent busy since boot, from
    ``/proc/stat`` (user, nice, system, irq, softirq, steal); None where there is no such file."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle and iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def is_clean(load: float | None) -> bool:
    """A run during which other processes used at most :data:`CLEAN_LOAD` of a core (measured)."""
    return load is not None and load <= CLEAN_LOAD


def other_load(busy_before: float | None, own_before: float, wall: float) -> float | None:
    """The cores other processes kept busy (on average) since ``busy_before`` / ``own_before``:
    the machine's busy time minus this process's own CPU time (every thread), over ``wall``."""
    busy = busy_seconds()
    if busy is None or busy_before is None or wall <= 0:
        return None
    t = os.times()
    return round(max(0.0, (busy - busy_before) - (t.user + t.system - own_before)) / wall, 3)


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


#: how many decisions the tables are spread over before a vector run (:func:`stagger`): more
#: than a deal of every game at 4 players (French Tarot ≈ 80, Ottocento ≈ 70 decisions)
STAGGER_SPAN = 128


def stagger(venv, out, span: int = STAGGER_SPAN, seed: int = 0):
    """Spread the tables over the phases of a deal, as they are in a long run: table ``i`` first
    plays ``offset_i`` decisions alone (random legal ones, ``offset_i`` uniform in ``0..span-1``),
    through the vector env's ``rows`` argument. Returns the full-batch step result after.

    Why: after ``reset`` every table deals at once and, every deal having about as many
    decisions, the tables stay in step for thousands of steps. Then most steps are pure card
    play, the cheapest kind, and every ~80th step scores and deals everything. In training the
    tables drift apart until every step holds some bidding, some écarts, some scoring and some
    dealing: each phase's NumPy code then runs at every step. Lock-step tables make a step look
    cheaper than in training, and change what threads gain (docs/performance.md, "French Tarot
    through the vector API")."""
    rng = np.random.default_rng(seed + 2)
    offsets = rng.integers(span, size=venv.num_envs)
    masks = out.action_masks.copy()
    for t in range(span):
        rows = np.flatnonzero(offsets > t)
        if not len(rows):
            break
        actions = (rng.random((len(rows), masks.shape[1])) * masks[rows]).argmax(axis=1)
        masks[rows] = venv.step(actions, rows=rows).action_masks
    # one plain step of every table: a full-batch result again (its masks are those of every table)
    actions = (rng.random(masks.shape) * masks).argmax(axis=1)
    return venv.step(actions)


def bench_vector(
    env_id: str, config: dict, batch: int, seconds: float, repeats: int = 5, min_steps: int = 100, seed: int = 0, lockstep: bool = False
) -> dict:
    """Step ``batch`` tables with random legal actions in ``repeats`` timed runs after a warm-up.

    The tables are first spread over a deal (:func:`stagger`; ``lockstep=True`` skips it and
    measures tables that all started together). Each
    run lasts at least ``seconds / repeats`` and at least ``min_steps`` steps. The warm-up
    (kernels loaded) is ``min_steps`` steps and at least half a second.

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
    if not lockstep:
        out = stagger(venv, out, seed=seed)
    perf = time.perf_counter
    start, steps = perf(), 0
    while steps < min_steps or perf() - start < 0.5:
        out = venv.step(agent.act(out.action_masks))
        steps += 1
    runs = []
    for _ in range(repeats):
        env_time = agent_time = 0.0
        steps = deals = 0
        busy_before, own_before = busy_seconds(), sum(os.times()[:2])
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
                     "deals": deals, "steps": steps, "env_time": env_time, "agent_time": agent_time,
                     "other_load": other_load(busy_before, own_before, perf() - start)})  # fmt: skip
    blocks = venv.game_state.blocks
    state_bytes = sum(block.nbytes for block in blocks.values())
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
        # per run: the cores other processes kept busy (is_clean) and the env speed
        "other_load_per_run": [r["other_load"] for r in runs],
        "env_decisions_per_second_per_run": [round(r["env"], 1) for r in runs],
        "agent_share": round(agent_time / (env_time + agent_time), 3),
        "deals_per_second": round(deals / (env_time + agent_time), 2),
        "decisions_per_deal": round(decisions / deals, 1) if deals else None,
        "env_us_per_step": round(env_time / sum(r["steps"] for r in runs) * 1e6, 1),
        "peak_rss_bytes": peak_rss(),
        "rss_before_env_bytes": rss_before,
        "state_bytes_per_game": round(state_bytes / batch, 1),
        "step_output_bytes_per_game": round(step_bytes / batch, 1),
        "memory_per_game_bytes": round((state_bytes + step_bytes) / batch, 1),
        "tables": "lockstep" if lockstep else f"staggered over {STAGGER_SPAN} decisions",
        "threading_layer": wait_policy(),  # numba's layer and, for OpenMP, its wait (None: one thread, no pool)
        "observation_size": venv.observation_size,
        "num_actions": venv.num_actions,
    }


def run_child(
    env_id: str,
    config: dict,
    batch: int,
    seconds: float,
    repeats: int,
    min_steps: int,
    lockstep: bool = False,
    busy: int = 0,
    environ: dict[str, str] | None = None,
) -> dict:
    """:func:`bench_vector` in a fresh interpreter, so that its peak memory is its own; ``busy``
    other processes spin on a core each meanwhile (:class:`BusyCores`: the machine as a learner or a
    second experiment leaves it), and ``environ`` adds variables to the child's environment (a
    threading layer, a wait policy)."""
    spec = {"env": env_id, "config": config, "batch": batch, "seconds": seconds, "repeats": repeats, "min_steps": min_steps,
            "lockstep": lockstep}  # fmt: skip
    with BusyCores(busy):
        proc = subprocess.run(
            [sys.executable, "-m", "tarot_env.experiments.benchmark", "--child", json.dumps(spec)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
            check=True,
            env={**os.environ, **(environ or {})},
        )
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    r["busy_cores"] = busy
    return r


class BusyCores:
    """``count`` child processes that each keep a core busy (a plain Python loop) while the block
    runs, killed at its end: a loaded machine on demand (``--busy``), for measuring what threads
    cost when a core is taken."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.procs: list[subprocess.Popen] = []

    def __enter__(self) -> BusyCores:
        for _ in range(self.count):
            self.procs.append(subprocess.Popen([sys.executable, "-c", "while True: pass"]))
        return self

    def __exit__(self, *exc: object) -> None:
        for proc in self.procs:
            proc.kill()
        for proc in self.procs:
            proc.wait()
        self.procs = []


def _loads(r: dict) -> str:
    """The other processes' load during each run, in cores, and how many runs were clean."""
    loads = r.get("other_load_per_run") or []
    shown = "/".join("?" if x is None else f"{x:.2f}" for x in loads)
    return f"{shown} cores ({sum(map(is_clean, loads))} of {len(loads)} runs clean)"


#: bootstrap resamples of the child processes for a speed-up's confidence interval, and the
#: fewest children a side it is computed from (with fewer, a bootstrap says little)
CI_RESAMPLES = 2000
CI_MIN_CHILDREN = 4


def thread_scaling(results: list[dict]) -> list[dict]:
    """For each configuration and batch size measured with several ``num_threads``: the env-only
    speed-up of each thread count over one thread. The runs of every measurement of a thread count
    (``--threads 1,2,1,2`` measures each twice, alternating) are pooled, and the medians of the
    clean runs compared (every run's, marked ``clean: False``, where either side has no clean run).

    ``speedup_ci95``: a 95% interval for the speed-up, resampling the child processes of each side
    (a percentile bootstrap, :data:`CI_RESAMPLES` resamples, a fixed seed): on this machine two
    threads run fast or slow for stretches of seconds to a minute, so the runs of one child are
    not independent and the child, not the run, is the unit resampled. None with fewer than
    :data:`CI_MIN_CHILDREN` children a side (``--threads 1,2,1,2,1,2,1,2`` gives four)."""
    pooled: dict[tuple, dict[int, tuple[list, list]]] = {}
    for r in results:
        k = r["config"].get("num_threads")
        if r.get("api") != "vector" or k is None or "env_decisions_per_second_per_run" not in r:
            continue
        base = {key: v for key, v in r["config"].items() if key != "num_threads"}
        key = (r["env"], json.dumps(base, sort_keys=True), r["batch_size"], tables(r), r.get("busy_cores", 0))
        every, clean = pooled.setdefault(key, {}).setdefault(k, ([], []))
        runs = list(zip(r["env_decisions_per_second_per_run"], r["other_load_per_run"]))
        every.append([speed for speed, _ in runs])
        clean.append([speed for speed, load in runs if is_clean(load)])
    out = []
    for (env_id, config, batch, spread, busy), by_k in sorted(pooled.items()):
        if 1 not in by_k:
            continue
        one_every, one_clean = by_k[1]
        for k, (every, clean) in sorted(by_k.items()):
            use_clean = any(clean) and any(one_clean)
            mine, base = (clean, one_clean) if use_clean else (every, one_every)
            mine, base = [c for c in mine if c], [c for c in base if c]
            speed, speed_one = float(np.median(_flat(mine))), float(np.median(_flat(base)))
            ci = None if k == 1 else speedup_interval(mine, base)
            out.append({"env": env_id, "config": json.loads(config), "batch_size": batch, "threads": k, "tables": spread,
                        "env_decisions_per_second": round(speed, 1), "speedup": round(speed / speed_one, 3),
                        "speedup_ci95": ci, "runs": sum(len(c) for c in mine), "children": len(mine),
                        "clean": use_clean, "busy_cores": busy})  # fmt: skip
    return out


def _flat(children: list[list[float]]) -> list[float]:
    return [x for runs in children for x in runs]


def speedup_interval(children: list[list[float]], children_one: list[list[float]]) -> list[float] | None:
    """A 95% percentile-bootstrap interval of median(runs) / median(runs of one thread), each
    side's child processes resampled with replacement (their runs pooled as measured); None
    with fewer than :data:`CI_MIN_CHILDREN` children on either side."""
    if min(len(children), len(children_one)) < CI_MIN_CHILDREN:
        return None
    rng = np.random.default_rng(0)  # the same interval for the same results
    ratios = np.empty(CI_RESAMPLES)
    for i in range(CI_RESAMPLES):
        mine = _flat([children[j] for j in rng.integers(len(children), size=len(children))])
        base = _flat([children_one[j] for j in rng.integers(len(children_one), size=len(children_one))])
        ratios[i] = np.median(mine) / np.median(base)
    low, high = np.percentile(ratios, [2.5, 97.5])
    return [round(float(low), 3), round(float(high), 3)]


def tables(r: dict) -> str:
    """How a vector result's tables were started: ``lockstep`` (results measured before the
    benchmark staggered them carry no such field) or staggered (:func:`stagger`)."""
    return r.get("tables", "lockstep")


def print_thread_scaling(results: list[dict]) -> None:
    for row in thread_scaling(results):
        if row["threads"] != 1:
            note = "" if row["clean"] else "  (no clean run: other processes were busy)"
            if row.get("busy_cores"):
                note = f"  ({row['busy_cores']} core(s) kept busy by --busy)"
            speedup = f"{row['threads']} threads vs 1: {row['speedup']:.2f}x over {row['runs']} runs"
            ci = row["speedup_ci95"]
            if ci is not None:
                speedup += f" (95% interval over child processes: {ci[0]:.2f}-{ci[1]:.2f}x)"
            print(f"  B={row['batch_size']:<6} {speedup} (tables: {row['tables']}){note}", flush=True)


def plot_thread_scaling(scaling: list[dict], path: Path, machine: dict) -> None:
    """Each env's speed-up on K threads over one thread (env time, :func:`thread_scaling`) against
    B, with the ideal (K) and the 1.6x target of two threads as lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=120)
    curves: dict[tuple[str, str, int, str], list[dict]] = {}
    for r in sorted(scaling, key=lambda r: r["batch_size"]):
        if r["threads"] != 1:
            curves.setdefault((r["env"], json.dumps(r["config"], sort_keys=True), r["threads"], r["tables"]), []).append(r)
    for (env_id, config, k, spread), rows in sorted(curves.items()):
        label = f"{env_id} {_config_label(json.loads(config))}".removesuffix(" -") + f", {k} threads"
        label += ", tables in lockstep" if spread == "lockstep" else ", tables spread over a deal"
        xs, ys = [r["batch_size"] for r in rows], [r["speedup"] for r in rows]
        (line,) = ax.plot(xs, ys, "o--" if spread == "lockstep" else "o-", label=label)
        for x, y, r in zip(xs, ys, rows):  # the 95% interval over child processes, where measured
            if r.get("speedup_ci95"):
                low, high = r["speedup_ci95"]
                ax.errorbar([x], [y], yerr=[[y - low], [high - y]], color=line.get_color(), capsize=3, linewidth=1)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.axhline(1.6, color="grey", linestyle="-.", label="target: 1.6x on 2 threads at B = 4,096")
    ax.axhline(2.0, color="grey", linestyle=":", label="ideal on 2 threads")
    ax.set_xscale("log", base=2)
    ticks = sorted({r["batch_size"] for r in scaling})
    ax.set_xticks(ticks, [f"{b:,}" for b in ticks])
    ax.set_xlabel("tables per batch (B)")
    ax.set_ylabel("env decisions/s, relative to 1 thread")
    ax.set_ylim(0, 2.2)
    bars = "; bars: 95% over processes" if any(r.get("speedup_ci95") for r in scaling) else ""
    title = f"Vector envs on numba's threads ({machine.get('cpus')} cores; medians of clean runs{bars})"
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


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
    spread = tables(r) if r.get("api") == "vector" else None
    return (r.get("api"), r["env"], json.dumps(r["config"], sort_keys=True), r.get("batch_size"), spread, r.get("busy_cores", 0))


def _players(env_id: str, config: dict) -> int:
    """The player count a configuration measures: its ``num_players``, else the game's only count."""
    return config.get("num_players", facts(env_id).player_counts[0])


#: the flags that only the vector API reads (their dest and how the command line writes them)
VECTOR_FLAGS = {"batch": "--batch", "threads": "--threads", "lockstep": "--lockstep", "min_steps": "--min-steps",
                "scaling_plot": "--scaling-plot", "busy": "--busy"}  # fmt: skip


def check_plan(args: argparse.Namespace, parser: argparse.ArgumentParser) -> list[str]:
    """The env ids to measure, after refusing every flag that would measure nothing or be ignored.

    A benchmark that measures nothing and still writes its file (``--api aec --env ottocento_v0
    --players 3``: Ottocento has no 3-player table) reads as a result; so does a vector flag
    given to an AEC run. Either is refused here, in one line, before anything is measured. Without
    ``--env``, the envs that no ``--players`` count fits are skipped, and the run says so.
    """
    from tarot_env import arguments

    for env_id in args.env or []:
        if env_id not in tarot_env.ENV_IDS:
            parser.error(f"argument --env: unknown env id {env_id!r}; the env ids are {', '.join(tarot_env.ENV_IDS)}")
    if args.api == "aec":
        given = [flag for dest, flag in VECTOR_FLAGS.items() if getattr(args, dest) not in (None, False)]
        if args.plot not in ("", parser.get_default("plot")):
            given.append("--plot")
        if given:
            parser.error(f"{', '.join(given)} refused with --api aec: only the vector API reads them (give --api vector or all)")
    env_ids = list(args.env or tarot_env.ENV_IDS)
    if args.players:
        for n in args.players:
            if args.env:
                for env_id in env_ids:
                    if why := arguments.players_error(env_id, n):
                        parser.error(why)
            elif not any(n in facts(e).player_counts for e in env_ids):
                parser.error(f"--players {n} refused: no game is played by {n} players (tarot list shows each game's counts)")
        fitting = [e for e in env_ids if set(args.players) & set(facts(e).player_counts)]
        for env_id in env_ids:
            if env_id not in fitting:
                counts = "/".join(map(str, facts(env_id).player_counts))
                print(f"{env_id:<20} skipped: played by {counts} players, not --players {'/'.join(map(str, args.players))}", flush=True)
        env_ids = fitting
    return env_ids


def learner(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """``--api learner``: the learner's settings side by side (experiments/learner_speed.py)."""
    from tarot_env.experiments import learner_speed

    from tarot_env import arguments

    given = [flag for dest, flag in VECTOR_FLAGS.items() if getattr(args, dest) not in (None, False, 0)]
    given += [f for f, dest in (("--plot", "plot"), ("--seconds", "seconds")) if getattr(args, dest) != parser.get_default(dest)]
    if given:
        parser.error(f"{', '.join(given)} refused with --api learner: it reads --env, --players, --repeats, --learner-* and --out")
    envs = args.env or ["french_tarot_v0"]
    if len(envs) != 1:
        parser.error(f"--api learner measures one env id, {len(envs)} were given ({', '.join(envs)})")
    env_id = envs[0]
    if env_id not in tarot_env.ENV_IDS:
        parser.error(f"argument --env: unknown env id {env_id!r}; the env ids are {', '.join(tarot_env.ENV_IDS)}")
    row = facts(env_id)
    players = args.players or ([row.default_players] if row.french else [None])
    if len(players) != 1:
        parser.error("--api learner measures one player count")
    if players[0] is not None and (why := arguments.players_error(env_id, players[0])):
        parser.error(why)
    steps = 65_536 if args.learner_steps is None else args.learner_steps
    if steps < 8_192 or args.repeats < 1:
        parser.error(f"--learner-steps {steps} and --repeats {args.repeats}: need at least 8,192 steps (a rollout) and 1 repeat")
    out = Path("runs/learner_speed.json" if args.out == parser.get_default("out") else args.out)
    learner_speed.run(env_id, players[0], steps, args.repeats, out, pool=args.learner_pool or "default")


def main() -> None:
    from tarot_env import arguments

    parser = arguments.OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--api", choices=("vector", "aec", "all", "learner"), default="all",
                        help="what to measure (default: all: AEC and vector; learner: PPO's steps/s, settings side by side)")  # fmt: skip
    parser.add_argument("--env", action="append", help="env id (repeatable; default: all)")
    parser.add_argument("--players", type=int, action="append",
                        help="player counts (repeatable; default: all of the env through AEC, 4 through the vector API)")  # fmt: skip
    parser.add_argument("--batch", type=_batches, action="append",
                        help="vector batch sizes, comma-separated (repeatable; default 1,16,256,1024,4096,16384)")  # fmt: skip
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per configuration (default 10)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per configuration; the median is reported (default 5)")
    parser.add_argument("--min-steps", type=int, default=None, help="vector: fewest steps per timed run, about a deal (default 100)")
    parser.add_argument(
        "--out",
        default="runs/benchmark.json",
        help="JSON output file (default runs/benchmark.json; other configurations' results in it are kept)",
    )
    parser.add_argument(
        "--plot", default="runs/vector_throughput.png", help="vector plot, PNG (default runs/vector_throughput.png; '' for none)"
    )
    parser.add_argument(
        "--scaling-plot", default=None, metavar="PNG",
        help="with --threads: plot each thread count's speed-up over one thread against B, for every env in --out",
    )  # fmt: skip
    parser.add_argument(
        "--threads", type=_batches, default=None,
        help="vector: the env's num_threads to measure, comma-separated, alternating at each batch size (default: the env's default, 1)",
    )  # fmt: skip
    parser.add_argument(
        "--lockstep", action="store_true",
        help="vector: measure tables that all started together instead of tables spread over a deal",
    )  # fmt: skip
    parser.add_argument(
        "--busy", type=int, default=0, metavar="N",
        help="vector: keep N cores busy with spinning processes while each child measures (a loaded machine; default 0)",
    )  # fmt: skip
    parser.add_argument(
        "--learner-steps", type=int, default=None, metavar="N",
        help="learner: PPO steps per child run (default 65,536; experiments/learner_speed.py)",
    )  # fmt: skip
    parser.add_argument(
        "--learner-pool", choices=("default", "rules"), default=None,
        help="learner: the opponents, the training's pool with snapshots (default) or the bot alone (rules)",
    )  # fmt: skip
    parser.add_argument("--child", help=argparse.SUPPRESS)  # internal: one vector configuration, JSON on stdout
    args = parser.parse_args()
    if args.api == "learner":
        return learner(args, parser)
    for flag in ("learner_steps", "learner_pool"):
        if getattr(args, flag) is not None:
            parser.error(f"--{flag.replace('_', '-')} refused without --api learner: only the learner's benchmark reads it")

    if args.child:
        spec = json.loads(args.child)
        r = bench_vector(spec["env"], spec["config"], spec["batch"], spec["seconds"], spec["repeats"], spec["min_steps"],
                         lockstep=spec.get("lockstep", False))  # fmt: skip
        print(json.dumps(r))
        return

    env_ids = check_plan(args, parser)
    min_steps = 100 if args.min_steps is None else args.min_steps
    load_before = os.getloadavg() if hasattr(os, "getloadavg") else None  # other processes share the cores
    results = []
    if args.api in ("aec", "all"):
        for env_id in env_ids:
            for config in CONFIGS.get(env_id, [{}]):
                if args.players and _players(env_id, config) not in args.players:
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
                configs = [c for c in CONFIGS.get(env_id, [{}]) if _players(env_id, c) in args.players]
            threads = args.threads or [None]
            for config in configs:
                for batch, k in ((b, k) for b in batches for k in threads):
                    child_config = config if k is None else {**config, "num_threads": k}
                    r = run_child(env_id, child_config, batch, args.seconds, args.repeats, min_steps, args.lockstep, args.busy)
                    results.append(r)
                    print(
                        f"vector {env_id:<20} players={config.get('num_players', '-')!s:<3} B={batch:<6} "
                        + ("" if k is None else f"threads={k} ")
                        + f"env {r['env_decisions_per_second']:>10,.0f} decisions/s, with agent {r['decisions_per_second']:>10,.0f} "
                        f"(medians of {r['repeats']})  peak RSS {r['peak_rss_bytes'] / 2**20:>6,.0f} MiB  "
                        f"{r['memory_per_game_bytes']:,.0f} B/game  other load {_loads(r)}",
                        flush=True,
                    )
            if args.threads and len(set(args.threads)) > 1:
                print_thread_scaling([r for r in results if r["env"] == env_id])

    if not results:  # check_plan leaves something to measure; a file of nothing must never read as a result
        parser.error("nothing was measured: no configuration fits the flags given; nothing written")
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
        "note": "AEC: one process, one core; vector: one fresh child process per batch size and thread count",
        "clean_load": CLEAN_LOAD,
    }
    document = {"machine": machine, "results": merged}
    scaling = thread_scaling(merged)
    if scaling:
        document["thread_scaling"] = scaling
    out.write_text(json.dumps(document, indent=2) + "\n")
    print(f"written {out}")
    if args.plot and any(r["api"] == "vector" for r in results):
        plot_vector(merged, Path(args.plot))
        print(f"written {args.plot}")
    if args.scaling_plot and scaling:
        plot_thread_scaling(scaling, Path(args.scaling_plot), machine)
        print(f"written {args.scaling_plot}")
    elif args.scaling_plot:  # said, not dropped: the flag was given and nothing fits it
        print(f"not written {args.scaling_plot}: {out} holds no configuration measured at two thread counts (give --threads 1,2)")


if __name__ == "__main__":
    main()
