"""Every core of one machine for the vector envs: the kernels' row loops on numba's threads.

The rows of a batch (the tables) are independent, and the compiled kernels that do most of a
step's work loop over them: the French play (``rules/french/play.apply_play``), the Tarocchino
engine (``rules/bolognese/engine.step_rows``), its once-a-hand declarations and automatic
Matto exchange (``claims.declarations_rows``, ``matto.auto_exchange_rows``) and both
observation encoders. Each is compiled twice from one source (:func:`tarot_env._jit.parallel_variant`): a
plain loop, and numba's parallel loop (``prange``), whose iterations numba shares among its
threads with no GIL and no copy of the state. A vector env made with ``num_threads=K > 1``
calls the parallel variants with numba's thread count set to K for the call
(:class:`KernelThreads`); the rest of a step (the NumPy phases, the small serial kernels of the
French scoring, dealing, chien, poignées and masks, and of the Tarocchino placement, side piles
and hand score) stays on the calling thread, in row order, and whatever draws random numbers
with it. So results are identical for every K (``tests/test_threads.py``).

Why numba's loops rather than Python threads over blocks of rows: waking a
sleeping thread costs tens of microseconds on a virtual machine, twice per step, and each block
paid the NumPy phases' Python again; numba's OpenMP workers wait a moment spinning before
they sleep (libgomp's default), and the Python is paid once (docs/performance.md, "Every core").

Threads that never cost: numba's OpenMP workers (libgomp) spin for a while before they sleep, which
is free on an idle machine and ruinous on a busy one. When another process (a learner, a second
experiment, a browser) holds a core, every parallel loop waits for a worker the system has
preempted: two threads ran 2 to 4 times slower than one on this 2-core machine with one core
taken. So the package starts numba's thread pool with ``OMP_WAIT_POLICY=PASSIVE`` (workers sleep
at once when idle) unless the user set ``OMP_WAIT_POLICY`` himself; only numba's own OpenMP
library reads it (the variable is set just while numba loads its pool, and removed after: torch's
bundled OpenMP, loaded before or after, keeps its own policy). The layer is numba's choice
(``NUMBA_THREADING_LAYER`` is respected). Measured, with ``workqueue`` and numba's spinning default,
in docs/performance.md ("Threads on a busy machine"; ``python -m
tarot_env.experiments.threads_policy``). A process whose numba pool was started before (by other
code of the user's) keeps the policy it started with: :func:`wait_policy` says which.

numba's thread pool has ``NUMBA_NUM_THREADS`` threads (the machine's cores by default): a
larger K runs on that many. numba's OpenMP layer cannot be used again in a process forked after
it ran: fork worker processes (SB3's ``SubprocVecEnv``) before stepping a multi-threaded env, or
use the ``spawn``/``forkserver`` start methods.
"""

from __future__ import annotations

import os
from typing import Any

from tarot_env._jit import JIT_AVAILABLE, numba


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity, where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def resolve_threads(num_threads: Any) -> int:
    """``num_threads`` as a number of threads: a positive int, or None for every available core."""
    if num_threads is None:
        return available_cores()
    if isinstance(num_threads, bool) or not isinstance(num_threads, int) or num_threads < 1:
        raise ValueError(
            f"num_threads must be a positive int, or None for every available core ({available_cores()} here), got {num_threads!r}"
        )
    return num_threads


#: the OpenMP wait policy the package starts numba's pool with, unless ``OMP_WAIT_POLICY`` is set
WAIT_POLICY = "PASSIVE"
_pool_policy: str | None = None  # what the pool was started with, once started here


def start_pool() -> None:
    """Start numba's thread pool (once a process) with :data:`WAIT_POLICY` as libgomp's wait policy,
    unless the user chose one: the variable is in the environment only while numba loads its pool.
    A pool already started (by other code) is left as it is."""
    global _pool_policy
    if _pool_policy is not None or not JIT_AVAILABLE:
        return
    mine = "OMP_WAIT_POLICY" not in os.environ
    if mine:
        os.environ["OMP_WAIT_POLICY"] = WAIT_POLICY
    try:
        numba.get_num_threads()  # numba loads its threading layer (and so libgomp, which reads the variable) here
        _pool_policy = os.environ["OMP_WAIT_POLICY"]
    finally:
        if mine:
            del os.environ["OMP_WAIT_POLICY"]


def wait_policy() -> str | None:
    """How numba's pool waits in this process, for logs: ``"omp, PASSIVE wait"``, ``"workqueue"`` ...;
    None before any parallel kernel ran (a one-thread env never starts the pool) or without numba."""
    if not JIT_AVAILABLE:
        return None
    try:
        layer = numba.threading_layer()
    except ValueError:  # no parallel loop has run yet
        return None
    if layer != "omp":
        return layer
    return f"omp, {_pool_policy or os.environ.get('OMP_WAIT_POLICY', 'default (spinning)')} wait"


class KernelThreads:
    """The number of threads a vector env's kernels run on; ``with threads:`` sets numba's for
    the calling thread (numba's setting is per thread) and puts the previous one back after.

    ``parallel`` is False for one thread, or without numba: the kernels' plain variants run."""

    def __init__(self, num_threads: int) -> None:
        self.num_threads = num_threads
        self.parallel = num_threads > 1 and JIT_AVAILABLE
        self._before: list[int] = []

    def __enter__(self) -> KernelThreads:
        if self.parallel:
            start_pool()
            self._before.append(numba.get_num_threads())
            numba.set_num_threads(min(self.num_threads, numba.config.NUMBA_NUM_THREADS))
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.parallel:
            numba.set_num_threads(self._before.pop())

    def encode(self, encoder: Any, state: Any, rows: Any, viewers: Any) -> Any:
        """``encoder.encode(state, rows, viewers)`` with its kernel on these threads (the vector
        envs' observations)."""
        with self:
            return encoder.encode(state, rows, viewers, parallel=self.parallel)


def thread_plan(torch_threads: int | None, env_threads: int | None, others: int = 0) -> tuple[int, int, str]:
    """The torch and env threads of a training process, and the line its log says of them.

    A learner and its env take turns (sample, then update), but torch's OpenMP workers spin a while
    after each update and the env's after each step, so threads that together exceed the cores
    steal them from each other. ``None`` chooses: the env's threads 1 (the default of the vector
    envs), torch's the cores left (at least 1). Given numbers are kept; when they exceed the cores
    (with ``others``: the threads of other processes of the run, such as RLlib's env runners) the
    line says so, since the user asked for them. ``env_threads=0``: no env steps in this process
    (RLlib's env runners sample in their own processes, counted in ``others``)."""
    cores = available_cores()
    env = 1 if env_threads is None else 0 if env_threads == 0 else resolve_threads(env_threads)
    torch = max(1, cores - env - others) if torch_threads is None else resolve_threads(torch_threads)
    line = f"threads: torch {torch}, env {env}" + (f", other processes {others}" if others else "") + f", of {cores} cores here"
    if torch + env + others > cores:
        line += f" (more threads than cores: they will take turns; torch {max(1, cores - env - others)} would fit)"
    return torch, env, line
