"""Throughput of the environments through the PettingZoo AEC API (not a test).

Random legal deals are played with the standard AEC loop (``agent_iter``, ``last``,
``step``): every decision builds the acting player's observation vector and action mask,
exactly as a learning agent would pay for them. The random choice itself is included.

    python -m experiments.benchmark                      # every env id and player count
    python -m experiments.benchmark --seconds 10 --env french_tarot_v0 --players 4

Prints a table and writes JSON (default ``results/benchmark.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

import tarot_env
from tarot_env._jit import JIT_AVAILABLE

#: configurations measured per env id
CONFIGS: dict[str, list[dict]] = {
    "french_tarot_v0": [{"num_players": 3}, {"num_players": 4}, {"num_players": 5}],
}


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", action="append", help="env id (repeatable; default: all)")
    parser.add_argument("--players", type=int, action="append", help="player counts (repeatable; default: all of the env)")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per configuration (default 10)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per configuration; the median is reported (default 5)")
    parser.add_argument("--out", default="results/benchmark.json", help="JSON output file")
    args = parser.parse_args()

    results = []
    for env_id in args.env or tarot_env.ENV_IDS:
        for config in CONFIGS.get(env_id, [{}]):
            if args.players and config.get("num_players") not in args.players:
                continue
            r = bench_aec(env_id, config, args.seconds, args.repeats)
            results.append(r)
            print(
                f"{env_id:<20} players={config.get('num_players', '-')!s:<3} "
                f"{r['decisions_per_second']:>10,.0f} decisions/s (median of {r['repeats']}; best "
                f"{r['decisions_per_second_best']:,.0f})  {r['deals_per_second']:>7,.1f} deals/s  "
                f"({r['decisions_per_deal']:.1f} decisions per deal)",
                flush=True,
            )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    machine = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "jit": JIT_AVAILABLE,
        "note": "one process, one core",
    }
    out.write_text(json.dumps({"machine": machine, "results": results}, indent=2) + "\n")
    print(f"written {out}")


if __name__ == "__main__":
    main()
