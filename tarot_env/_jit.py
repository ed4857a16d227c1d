"""numba compilation for the hot kernels, with the plain-Python reference paths as fallback.

numba is a core dependency: the compiled kernels are the fast path. Each kernel is written once
as plain Python over array rows; :func:`njit` compiles it when numba is importable and
``TAROT_ENV_JIT`` is not ``0``. Otherwise the same Python function runs (the reference path,
which the tests compare with the compiled one). Running without the compiled path is legal but
slow (the Tarocchino vector env about 50 times slower), so it is said once, with a
:class:`PerformanceWarning`, when the package is imported.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable


class PerformanceWarning(UserWarning):
    """tarot_env runs without its compiled kernels (correct, but tens of times slower)."""


_DISABLED = os.environ.get("TAROT_ENV_JIT", "1") == "0"
try:
    if _DISABLED:
        raise ImportError("disabled by TAROT_ENV_JIT=0")
    import numba

    JIT_AVAILABLE = True
    WHY_NOT_JIT = ""
except ImportError as exc:  # numba missing, broken or disabled: the reference paths are used
    numba = None
    JIT_AVAILABLE = False
    WHY_NOT_JIT = (
        "TAROT_ENV_JIT=0 is set"
        if _DISABLED
        else f"numba cannot be imported ({exc}); install it with `pip install numba`"
    )
    warnings.warn(
        f"tarot_env runs its plain-Python reference paths because {WHY_NOT_JIT}: the rules are the same, "
        "but the vector envs run tens of times slower",
        PerformanceWarning,
        stacklevel=2,
    )


def njit(fn: Callable, inline: bool = False) -> Callable | None:
    """``fn`` compiled by numba (cached on disk), or None when the compiled path is off.

    ``inline=True`` compiles ``fn`` into each compiled caller (numba's ``inline="always"``):
    for the small row helpers of the hot kernels, where a call, and the reference counting of
    each array argument it passes, costs as much as the helper's own work."""
    if not JIT_AVAILABLE:
        return None
    return numba.njit(cache=True, nogil=True, inline="always" if inline else "never")(fn)
