"""Which threading layer and wait policy keep ``num_threads=K`` from costing on a busy machine (not a test).

numba runs the vector envs' parallel row loops (:mod:`tarot_env._threads`) on a threading layer:
OpenMP (``omp``: libgomp, whose idle workers spin for a while before they sleep, unless
``OMP_WAIT_POLICY=PASSIVE``), its own ``workqueue``, or TBB. A spinning worker is free on an idle
machine and ruinous on a busy one: when another process holds a core, each parallel loop waits
for a worker the system has preempted. This script measures, for each candidate setting, one and
two threads, on an idle machine and with ``--busy`` cores kept busy by spinning processes, in
fresh child processes (the benchmark's :func:`~tarot_env.experiments.benchmark.run_child`), the
candidates and thread counts alternating within each round so that the machine's drift falls on
all of them alike:

    python -m tarot_env.experiments.threads_policy --rounds 3 --batch 4096 --out results/threads/policy.json

It prints, per game, setting and load, the median env decisions/s of one and two threads and
their ratio in each round, and writes every child's result to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path

from tarot_env.experiments.benchmark import run_child

#: the candidates: a name, and the variables they set in the child (OMP_WAIT_POLICY and
#: NUMBA_THREADING_LAYER are removed from the child's environment first). omp-spin is numba's
#: default here (OpenMP where TBB is not installed; libgomp's workers spin before they sleep).
CANDIDATES: dict[str, dict[str, str]] = {
    "omp-spin": {"NUMBA_THREADING_LAYER": "omp", "OMP_WAIT_POLICY": "ACTIVE"},
    "package": {},  # the package's choice (tarot_env._threads.start_pool): OpenMP, passive wait
    "workqueue": {"NUMBA_THREADING_LAYER": "workqueue"},
    # a short spin before sleeping (libgomp's count of spins; its default is 300,000): OMP_WAIT_POLICY
    # present but empty, so that the package leaves the policy to libgomp and GOMP_SPINCOUNT decides
    "omp-spin-10k": {"NUMBA_THREADING_LAYER": "omp", "OMP_WAIT_POLICY": "", "GOMP_SPINCOUNT": "10000"},
    "omp-spin-100k": {"NUMBA_THREADING_LAYER": "omp", "OMP_WAIT_POLICY": "", "GOMP_SPINCOUNT": "100000"},
}
GAMES = {"french_tarot_v0": {"num_players": 4}, "ottocento_v0": {}}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3, help="rounds; each measures every setting, load and thread count once")
    p.add_argument("--batch", type=int, default=4096, help="tables stepped together (default 4096)")
    p.add_argument("--seconds", type=float, default=3.0, help="timed seconds per child (default 3)")
    p.add_argument("--repeats", type=int, default=3, help="timed runs per child, their median kept (default 3)")
    p.add_argument("--busy", type=int, default=1, help="cores kept busy in the loaded condition (default 1)")
    p.add_argument("--candidates", default=",".join(CANDIDATES), help="comma-separated names among: " + "; ".join(CANDIDATES))
    p.add_argument("--env", action="append", choices=list(GAMES), help="a game to measure (repeatable; default: both)")
    p.add_argument("--out", default="runs/threads_policy.json", help="JSON of every child's result")
    args = p.parse_args()
    chosen = [c.strip() for c in args.candidates.split(",") if c.strip()]
    unknown = [c for c in chosen if c not in CANDIDATES]
    if unknown:
        p.error(f"unknown candidate(s) {unknown}; the candidates are {list(CANDIDATES)}")
    for name in ("OMP_WAIT_POLICY", "NUMBA_THREADING_LAYER", "GOMP_SPINCOUNT"):  # each candidate sets its own
        os.environ.pop(name, None)
    results: list[dict] = []
    games = {env_id: GAMES[env_id] for env_id in args.env or GAMES}
    for rnd in range(args.rounds):
        for env_id, config in games.items():
            for busy in (0, args.busy):
                for name in chosen:
                    for k in (1, 2) if rnd % 2 == 0 else (2, 1):
                        r = run_child(env_id, {**config, "num_threads": k}, args.batch, args.seconds, args.repeats, 100,
                                      busy=busy, environ=CANDIDATES[name])  # fmt: skip
                        r.update(round=rnd, candidate=name)
                        results.append(r)
                        print(f"round {rnd} {env_id:<16} busy={busy} {name:<32} threads={k} "
                              f"{r['env_decisions_per_second']:>10,.0f} decisions/s  layer {r['threading_layer']}", flush=True)  # fmt: skip
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"batch": args.batch, "busy": args.busy, "results": results}, indent=1) + "\n")
    print(f"written {out}")
    print("\nratio two threads / one, per round (median over rounds):")
    for env_id in games:
        for busy in (0, args.busy):
            for name in chosen:
                ratios, ones, twos = [], [], []
                for rnd in range(args.rounds):
                    by_k = {r["config"]["num_threads"]: r["env_decisions_per_second"] for r in results
                            if r["env"] == env_id and r["busy_cores"] == busy and r["candidate"] == name and r["round"] == rnd}  # fmt: skip
                    ratios.append(by_k[2] / by_k[1])
                    ones.append(by_k[1])
                    twos.append(by_k[2])
                print(f"  {env_id:<16} {'busy' if busy else 'idle'} {name:<32} one {statistics.median(ones):>10,.0f}  "
                      f"two {statistics.median(twos):>10,.0f}  ratios {' '.join(f'{x:.2f}' for x in ratios)}  "
                      f"median {statistics.median(ratios):.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
