"""Giving the memory of closed tables and connections back to the system.

Two things kept it after a crowd of tables came and went (docs/web.md, "Load": the room's resident
memory rose 3-9 MB a round of 50 tables and 200 connections while the Python objects it could see
stayed level):

- about 21,000 objects a round were garbage held in reference cycles (connections, their tasks and
  closing exceptions), freed only at Python's next full collection, which a quiet room may not reach
  for a long time: :func:`give_back` collects them (about 0.1 s on this machine);
- glibc's allocator keeps freed pages for reuse instead of returning them: ``malloc_trim(0)`` returns
  them. It is glibc's, so elsewhere (musl, macOS, Windows) :func:`trim` does nothing and says so.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
from collections.abc import Callable


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        fn = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_size_t]
    fn.restype = ctypes.c_int
    return fn


def trim() -> bool:
    """Return the allocator's free pages to the system; True if the C library can (glibc), else False.
    It takes a few milliseconds and locks the allocator's arenas in turn: call it off the event loop."""
    fn = _malloc_trim()
    if fn is None:
        return False
    fn(0)
    return True


def give_back() -> int:
    """A full garbage collection, then :func:`trim`; the number of unreachable objects found. It holds
    Python's interpreter lock for the collection (about 0.1 s with the load test's garbage): the room
    calls it at most every ``Limits.trim_every`` seconds, and only after tables or connections went."""
    found = gc.collect()
    trim()
    return found
