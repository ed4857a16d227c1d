"""numba compilation for the hot kernels, with the plain-Python reference paths as fallback.

numba is a core dependency: the compiled kernels are the fast path. Each kernel is written once
as plain Python over array rows and decorated with :func:`kernel`, which compiles it when numba
is importable and ``TAROT_ENV_JIT`` is not ``0``. Otherwise the same Python function runs (the
reference path, which the tests compare with the compiled one; :func:`python_of` gives it from
a compiled kernel). Running without the compiled path is legal but
slow (the Tarocchino vector env about 50 times slower), so it is said once, with a
:class:`PerformanceWarning`, when the package is imported.

The compiled kernels are cached on disk (``cache=True``). numba checks a cached kernel against
its own source file only, but a kernel also holds the code of the kernels it calls (inlined or
linked) and the module constants it reads (the state's columns, the cards' arrays), which live
in other modules: the Tarocchino engine is one module per phase (``rules/bolognese/``), its
columns are ``state.py``'s. So the cache stamp here also covers the sources the kernels are
built from (:func:`_sources_digest`): an edit to any of them recompiles the kernels instead of
running stale code.

Compiling is the first run's cost (seconds to tens of seconds a game, docs/performance.md): a
kernel whose cache holds no machine code for it calls :func:`cold_cache` before it compiles
(one line on stderr, once a process), and ``python -m tarot_env.warmup``
(run by ``make``'s set-up) compiles every kernel ahead. :data:`KERNELS` lists the kernels made,
for the warm-up to check that none is left to compile.
"""

from __future__ import annotations

import hashlib
import os
import sys
import types
import warnings
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, TypeVar, overload


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
    WHY_NOT_JIT = "TAROT_ENV_JIT=0 is set" if _DISABLED else f"numba cannot be imported ({exc}); install it with `pip install numba`"
    warnings.warn(
        f"tarot_env runs its plain-Python reference paths because {WHY_NOT_JIT}: the rules are the same, "
        "but the vector envs run tens of times slower",
        PerformanceWarning,
        stacklevel=2,
    )


#: the folders (and files) of the package whose modules hold kernels or what kernels read
_KERNEL_SOURCES = ("_jit.py", "cards", "encoding", "rules", "vector")


@cache
def _sources_digest() -> str:
    """A digest of the sources the kernels are built from (:data:`_KERNEL_SOURCES`), read once
    a process: part of every cached kernel's stamp, so that editing a module a kernel calls or
    reads constants from invalidates the kernel's cache too (numba alone watches only the
    kernel's own file)."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in _KERNEL_SOURCES:
        path = root / name
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            digest.update(str(file.relative_to(root)).encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()


# ------------------------------------------------------------------------------------- the first run
# The notice lives here, with the cache it watches, rather than in the warm-up (which plays deals
# with the envs and the bots): the base layer tells of a cold cache, the warm-up reads the count.

#: the kernels compiled in this process (their cache held nothing for them)
compiled = 0
#: True while the warm-up runs (its progress line says what compiles)
_quiet = False
#: True once the notice was given in this process
_told = False


def cold_cache(cache_path: str) -> None:
    """A kernel found nothing in its cache (``cache_path``, its folder) and compiles now: counted,
    and the first of a process says so on stderr in one line (how long, where it is cached, how
    to compile ahead); later ones say nothing."""
    global compiled, _told
    compiled += 1
    if _told or _quiet:
        return
    _told = True
    print(
        "tarot_env: compiling the game's numba kernels on first use, 10-15 s for French Tarot and 30-50 s for a Tarocchino game on "
        f"2 cores (once: numba caches them in {cache_location(cache_path)}); `python -m tarot_env.warmup` compiles every game's ahead",
        file=sys.stderr,
        flush=True,
    )


def cache_location(cache_path: str) -> str:
    """Where numba caches the kernels, told from one kernel's cache folder ``cache_path``: the
    package's ``__pycache__`` folders, ``NUMBA_CACHE_DIR`` when set, else that folder."""
    package = Path(__file__).resolve().parent
    path = Path(cache_path).resolve()
    if path.name == "__pycache__" and path.is_relative_to(package):
        return f"the __pycache__ folders of {package}"
    cache_dir = numba.config.CACHE_DIR if numba is not None else ""
    return f"NUMBA_CACHE_DIR={cache_dir}" if cache_dir else str(path)


def quiet(on: bool) -> None:
    """Silence the notice (``on``) while the warm-up runs, whose progress line says what compiles."""
    global _quiet
    _quiet = on


def _package_cache() -> type | None:
    """numba's function cache with :func:`_sources_digest` added to its source stamp, or None
    where numba's caching internals differ from those this was written for (the plain
    ``cache=True`` is used then). A cache miss is told to :func:`cold_cache`."""
    try:
        from numba.core import caching

        class _Stamp:
            def get_source_stamp(self) -> tuple:
                return (super().get_source_stamp(), _sources_digest())  # type: ignore[misc]

        class _ColdNotice:
            def load_overload(self, sig: object, target_context: object) -> object:
                compiled = super().load_overload(sig, target_context)  # type: ignore[misc]
                if compiled is None:  # nothing cached for this kernel: numba compiles it next
                    cold_cache(self._cache_path)  # type: ignore[attr-defined]
                return compiled

        locators = [type(f"Package{c.__name__}", (_Stamp, c), {}) for c in caching.CompileResultCacheImpl._locator_classes]
        impl = type("PackageCacheImpl", (caching.CompileResultCacheImpl,), {"_locator_classes": locators})
        return type("PackageFunctionCache", (_ColdNotice, caching.FunctionCache), {"_impl_class": impl})
    except (ImportError, AttributeError, TypeError):
        return None


_FunctionCache = _package_cache() if JIT_AVAILABLE else None

#: every kernel :func:`kernel` and :func:`parallel_variant` made (numba dispatchers), in the order
#: the modules made them
KERNELS: list = []

#: a function as written, or a kernel made from one
F = TypeVar("F", bound=Callable[..., Any])


def _compile(fn: Callable, inline: bool, parallel: bool) -> Callable:
    """``fn`` compiled by numba, cached on disk with the package's stamp (see the module
    docstring), and listed in :data:`KERNELS`."""
    inlining = "always" if inline else "never"
    if _FunctionCache is None:
        dispatcher = numba.njit(cache=True, nogil=True, inline=inlining, parallel=parallel)(fn)
    else:
        dispatcher = numba.njit(nogil=True, inline=inlining, parallel=parallel)(fn)
        dispatcher._cache = _FunctionCache(dispatcher.py_func)  # what cache=True does, with the package's stamp
    KERNELS.append(dispatcher)
    return dispatcher


@overload
def kernel(fn: F, *, inline: bool = False) -> F: ...
@overload
def kernel(fn: None = None, *, inline: bool = False) -> Callable[[F], F]: ...
def kernel(fn: F | None = None, *, inline: bool = False) -> F | Callable[[F], F]:
    """Decorate a row function as a kernel: compiled by numba (cached on disk, see the module
    docstring), or ``fn`` itself, unchanged, when the compiled path is off (``TAROT_ENV_JIT=0``
    or numba missing). The function as written stays reachable as :func:`python_of` of the
    kernel (numba's ``py_func``): the reference the tests compare the compiled kernel with.

    ``@kernel(inline=True)`` compiles ``fn`` into each compiled caller (numba's
    ``inline="always"``): for the small row helpers of the hot kernels, where a call, and the
    reference counting of each array argument it passes, costs as much as the helper's own work.

    ``kernel(f)`` called on a function that must also stay plain Python (the scalar rules that
    NumPy callers apply to whole arrays) gives a compiled copy under another name."""

    def make(f: F) -> F:
        return _compile(f, inline, parallel=False) if JIT_AVAILABLE else f  # type: ignore[return-value]

    return make if fn is None else make(fn)


def parallel_variant(fn: F) -> F:
    """The variant of the kernel ``fn`` (or of its Python function) whose :data:`prange` loop
    over rows runs on numba's threads, as many as :class:`tarot_env._threads.KernelThreads` sets
    (the vector envs' ``num_threads``); ``fn`` itself when the compiled path is off."""
    if not JIT_AVAILABLE:
        return fn
    # a name of its own: numba's disk cache files a kernel by its name, not its options
    return _compile(_renamed(python_of(fn), "__parallel"), inline=False, parallel=True)  # type: ignore[return-value]


def python_of(fn: F) -> F:
    """The Python function a kernel was made from (``fn`` itself when the compiled path is off,
    or for a plain function): what runs as the reference."""
    return getattr(fn, "py_func", fn)


def _renamed(fn: Callable, suffix: str) -> Callable:
    """A copy of ``fn`` (the same code) under the name ``fn.__name__ + suffix``. numba names a
    kernel's cache files after its qualified name and keys its entries by signature only: a
    serial and a parallel variant of one function would load each other's machine code."""
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + suffix, fn.__defaults__, fn.__closure__)
    copy.__qualname__ = fn.__qualname__ + suffix
    copy.__module__, copy.__doc__ = fn.__module__, fn.__doc__
    return copy


#: the loop over a batch's rows in a kernel: numba's parallel loop (one compiled kernel, two
#: variants: in the :func:`parallel_variant` its iterations are shared among numba's threads,
#: otherwise it is a plain ``range``); ``range`` itself without numba
prange = numba.prange if JIT_AVAILABLE else range

#: rows per share of a row loop whose rows need scratch arrays: the loop runs over shares of this
#: many rows (``prange(shares(R))``, then ``range(*share(k, R))``), each share making its scratch
#: once, not once a row
ROWS_PER_SHARE = 16


@kernel(inline=True)
def shares(n: int) -> int:
    """How many shares of :data:`ROWS_PER_SHARE` rows ``n`` rows make."""
    return (n + ROWS_PER_SHARE - 1) // ROWS_PER_SHARE


@kernel(inline=True)
def share(k: int, n: int) -> tuple[int, int]:
    """The first row and the end of share ``k`` of ``n`` rows."""
    return k * ROWS_PER_SHARE, min((k + 1) * ROWS_PER_SHARE, n)
