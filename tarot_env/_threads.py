"""Rows of a batch stepped on several threads: every core of one machine for the vector envs.

The compiled kernels (numba, ``nogil=True``: :mod:`tarot_env._jit`) release the GIL, so threads
that each run them over their own contiguous block of table rows run at once on separate cores,
with no copy of the state: the rows of a batch are independent and each thread writes only its
own. Whatever draws random numbers (new deals, a match's next hand) stays on the calling thread,
in row order, after the threaded part: so results are identical for every number of threads
(``tests/test_threads.py``).

A block smaller than :data:`MIN_ROWS` is not worth a thread (the hand-over costs tens of µs):
small batches run on the calling thread.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any

#: the fewest rows a thread is given
MIN_ROWS = 256


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


class RowThreads:
    """Runs a function over blocks of rows on ``num_threads`` threads (see the module docstring)."""

    def __init__(self, num_threads: int) -> None:
        self.num_threads = num_threads
        self._pool: ThreadPoolExecutor | None = None

    def blocks(self, n: int) -> list[slice]:
        """Contiguous blocks covering ``0..n-1``: one per thread, none below :data:`MIN_ROWS`."""
        k = max(1, min(self.num_threads, n // MIN_ROWS))
        edges = [n * i // k for i in range(k + 1)]
        return [slice(edges[i], edges[i + 1]) for i in range(k)]

    def run(self, fn: Callable[[slice], Any], n: int) -> list[Any]:
        """``fn(block)`` for every block of ``0..n-1``, on the threads; the results in block order.
        An exception in a block is raised here (after every block has finished)."""
        if self.num_threads == 1:  # the default: nothing to split (the env's hot path)
            return [fn(slice(None))]
        blocks = self.blocks(n)
        if len(blocks) == 1:
            return [fn(blocks[0])]
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.num_threads, thread_name_prefix="tarot_env-rows")
        futures = [self._pool.submit(fn, b) for b in blocks[1:]]
        try:
            first = fn(blocks[0])  # the calling thread takes a block too
        finally:
            wait(futures)  # no block is left running, whatever raised
        return [first, *(f.result() for f in futures)]

    def encode(self, encoder: Any, state: Any, rows: Any, players: Any) -> Any:
        """``encoder.encode(state, rows, players)``, the blocks of rows encoded on the threads."""
        if self.num_threads == 1 or len(self.blocks(len(rows))) == 1:
            return encoder.encode(state, rows, players)
        import numpy as np

        out = np.empty((len(rows), encoder.size), dtype=np.int8)

        def part(b: slice) -> None:
            out[b] = encoder.encode(state, rows[b], players[b])

        self.run(part, len(rows))
        return out

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def __getstate__(self) -> dict[str, Any]:
        return {"num_threads": self.num_threads}  # a pool does not pickle: a copy makes its own

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.num_threads = state["num_threads"]
        self._pool = None
