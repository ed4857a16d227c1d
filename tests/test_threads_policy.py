"""Threads that never cost (docs/performance.md, "Threads on a busy machine"): numba's pool starts
with OpenMP's passive wait unless the user chose a policy or a layer, the variable does not stay in
the environment, the training scripts' thread plan fits the cores, and the benchmark's ``--busy``
load comes and goes with each measurement. The speeds themselves are measured by
``python -m tarot_env.experiments.threads_policy``, never in tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tarot_env import _threads
from tarot_env._jit import JIT_AVAILABLE

pytestmark = pytest.mark.skipif(not JIT_AVAILABLE, reason="numba's threads need numba (TAROT_ENV_JIT=0 runs no thread)")

#: a child that steps a two-thread vector env, then sleeps half a second, and prints how numba's pool
#: waits, whether the variable stayed in its environment, and the CPU time its threads burned asleep
CHILD = """
import json, os, time
import numpy as np
import tarot_env.vector
from tarot_env import _threads
venv = tarot_env.vector.make("french_tarot_v0", 64, num_players=4, num_threads=2)
out = venv.reset(seed=0)
rng = np.random.default_rng(0)
for _ in range(20):
    out = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in out.action_masks]))
before = sum(os.times()[:2])
time.sleep(0.5)
print(json.dumps({"policy": _threads.wait_policy(), "left": os.environ.get("OMP_WAIT_POLICY"),
                  "idle_cpu": sum(os.times()[:2]) - before}))
"""


def child(**env: str) -> dict:
    environ = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "NUMBA_THREADING_LAYER")}
    done = subprocess.run([sys.executable, "-c", CHILD], env={**environ, **env}, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_pool_starts_with_a_passive_wait_and_leaves_no_variable_behind() -> None:
    r = child(NUMBA_THREADING_LAYER="omp")
    assert r["policy"] == "omp, PASSIVE wait"
    assert r["left"] is None  # set only while numba loaded its pool
    # libgomp read it: its worker sleeps instead of spinning while the process sleeps
    assert r["idle_cpu"] < 0.15, r


def test_a_users_wait_policy_and_layer_are_kept() -> None:
    r = child(NUMBA_THREADING_LAYER="omp", OMP_WAIT_POLICY="ACTIVE")
    assert r["policy"] == "omp, ACTIVE wait" and r["left"] == "ACTIVE"
    assert r["idle_cpu"] > 0.2, r  # the spinning the package's default avoids: a worker burns its core asleep
    assert child(NUMBA_THREADING_LAYER="workqueue")["policy"] == "workqueue"


def test_one_thread_starts_no_pool() -> None:
    code = (
        "import tarot_env.vector; from tarot_env import _threads; v = tarot_env.vector.make('ottocento_v0', 8);"
        " v.reset(seed=0); print(_threads.wait_policy())"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "None"


def test_the_thread_plan_fits_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_threads, "available_cores", lambda: 2)
    assert _threads.thread_plan(1, 1) == (1, 1, "threads: torch 1, env 1, of 2 cores here")
    assert _threads.thread_plan(None, None)[:2] == (1, 1)  # torch takes what the env leaves, at least one
    assert _threads.thread_plan(None, 2)[:2] == (1, 2)
    assert _threads.thread_plan(None, 0)[:2] == (2, 0)  # no env in this process (RLlib's runners)
    torch, env, line = _threads.thread_plan(2, 2)
    assert (torch, env) == (2, 2) and "more threads than cores" in line and "torch 1 would fit" in line
    _, _, line = _threads.thread_plan(1, 0, others=1)
    assert line == "threads: torch 1, env 0, other processes 1, of 2 cores here"
    monkeypatch.setattr(_threads, "available_cores", lambda: 16)
    assert _threads.thread_plan(None, 4)[:2] == (12, 4)
    with pytest.raises(ValueError, match="num_threads must be a positive int"):
        _threads.thread_plan(1, -1)


def test_the_benchmarks_busy_cores_come_and_go() -> None:
    from tarot_env.experiments.benchmark import BusyCores

    with BusyCores(2) as busy:
        procs = list(busy.procs)
        assert len(procs) == 2 and all(p.poll() is None for p in procs)
    assert all(p.poll() is not None for p in procs)
    with BusyCores(0) as none:
        assert none.procs == []
