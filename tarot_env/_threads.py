"""Every core of one machine for the vector envs: the kernels' row loops on numba's threads.

The rows of a batch (the tables) are independent, and the compiled kernels that do most of a
step's work loop over them: the French play (``rules/french/play.apply_play``), the Tarocchino
engine (``rules/bolognese/engine.step_rows``), its once-a-hand declarations and automatic
Matto exchange (``claims.declarations_rows``, ``matto.auto_exchange_rows``) and both
observation encoders. Each is compiled twice from one source (:func:`tarot_env._jit.njit`): a
plain loop, and numba's parallel loop (``prange``), whose iterations numba shares among its
threads with no GIL and no copy of the state. A vector env made with ``num_threads=K > 1``
calls the parallel variants with numba's thread count set to K for the call
(:class:`KernelThreads`); the rest of a step (the NumPy phases, the small serial kernels of the
French scoring, dealing, chien, poignées and masks, and of the Tarocchino placement, side piles
and hand score) stays on the calling thread, in row order, and whatever draws random numbers
with it. So results are identical for every K (``tests/test_threads.py``).

Why numba's loops rather than Python threads over blocks of rows (the first version): waking a
sleeping thread costs tens of microseconds on a virtual machine, twice per step, and each block
paid the NumPy phases' Python again; numba's OpenMP workers wait a moment spinning before
they sleep (libgomp's default), and the Python is paid once (docs/performance.md, "Every core").

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
