"""Optional numba compilation for hot kernels.

numba is an optional dependency (``pip install tarot_env[fast]``). Where a kernel has a
compiled version, the plain NumPy version stays the reference: it runs when numba is not
installed or when the environment variable ``TAROT_ENV_JIT=0`` is set, and the tests check
that both give identical results.
"""

from __future__ import annotations

import os
from collections.abc import Callable

try:
    if os.environ.get("TAROT_ENV_JIT", "1") == "0":
        raise ImportError("disabled by TAROT_ENV_JIT=0")
    import numba

    JIT_AVAILABLE = True
except ImportError:  # numba missing or disabled: the NumPy paths are used
    numba = None
    JIT_AVAILABLE = False


def njit(fn: Callable, inline: bool = False) -> Callable | None:
    """``fn`` compiled by numba (cached on disk), or None when numba is unavailable.

    ``inline=True`` compiles ``fn`` into each compiled caller (numba's ``inline="always"``):
    for the small row helpers of the hot kernels, where a call, and the reference counting of
    each array argument it passes, costs as much as the helper's own work."""
    if not JIT_AVAILABLE:
        return None
    return numba.njit(cache=True, nogil=True, inline="always" if inline else "never")(fn)
