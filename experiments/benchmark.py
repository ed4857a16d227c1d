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

#: configurations measured per env id
CONFIGS: dict[str, list[dict]] = {
    "french_tarot_v0": [{"num_players": 3}, {"num_players": 4}, {"num_players": 5}],
}


def bench_aec(env_id: str, config: dict, seconds: float, seed: int = 0) -> dict:
    """Play random legal deals for about ``seconds``; return decisions and deals per second."""
    env = tarot_env.make(env_id, **config)
    rng = np.random.default_rng(seed)
    uniforms = iter(rng.random(10_000_000))  # the random agent's draws, made up front: the env is measured
    env.reset(seed=seed)
    decisions = deals = 0
    start = time.perf_counter()
    while True:
        for _ in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[int(next(uniforms) * len(legal))]))
            decisions += 1
        deals += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
        env.reset()
    return {
        "env": env_id,
        "config": config,
        "api": "aec",
        "deals": deals,
        "decisions": decisions,
        "seconds": round(elapsed, 3),
        "decisions_per_second": round(decisions / elapsed, 1),
        "deals_per_second": round(deals / elapsed, 2),
        "decisions_per_deal": round(decisions / deals, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", action="append", help="env id (repeatable; default: all)")
    parser.add_argument("--players", type=int, action="append", help="player counts (repeatable; default: all of the env)")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per configuration (default 5)")
    parser.add_argument("--out", default="results/benchmark.json", help="JSON output file")
    args = parser.parse_args()

    results = []
    for env_id in args.env or tarot_env.ENV_IDS:
        for config in CONFIGS.get(env_id, [{}]):
            if args.players and config.get("num_players") not in args.players:
                continue
            r = bench_aec(env_id, config, args.seconds)
            results.append(r)
            print(
                f"{env_id:<20} players={config.get('num_players', '-')!s:<3} "
                f"{r['decisions_per_second']:>10,.0f} decisions/s  {r['deals_per_second']:>8,.1f} deals/s  "
                f"({r['decisions_per_deal']:.1f} decisions per deal, {r['deals']} deals)",
                flush=True,
            )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    machine = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "note": "one process, one core",
    }
    out.write_text(json.dumps({"machine": machine, "results": results}, indent=2) + "\n")
    print(f"written {out}")


if __name__ == "__main__":
    main()
