"""Reading typed lines with an optional deadline, for the time per move of ``tarot play``.

``select()`` on the file descriptor waits for input up to the deadline; the bytes are read
with ``os.read`` into our own buffer. ``sys.stdin.readline()`` is not used after ``select``:
its buffer may hold a second typed line that ``select`` cannot see, and a deadline would then
fire although the answer is already there. Works on a terminal, a pseudo-terminal and a pipe.
"""

from __future__ import annotations

import codecs
import os
import select
import sys
import time
from typing import TextIO


class LineReader:
    """Lines from ``stream`` (stdin by default), each within an optional number of seconds."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdin
        self.fd = self.stream.fileno()
        self.buffer = ""
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.closed = False

    def readline(self, timeout: float | None = None) -> str | None:
        """The next line without its newline; ``None`` when the time ran out.

        Raises ``EOFError`` when the input is closed (Ctrl-D on an empty line, end of a pipe).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while "\n" not in self.buffer:
            if self.closed:
                if self.buffer:  # a last line without a newline
                    line, self.buffer = self.buffer, ""
                    return line
                raise EOFError
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.fd], [], [], wait)
            if not ready:
                return None
            data = os.read(self.fd, 4096)
            if not data:
                self.closed = True
                self.buffer += self.decoder.decode(b"", final=True)
                continue
            self.buffer += self.decoder.decode(data)
        line, self.buffer = self.buffer.split("\n", 1)
        return line.rstrip("\r")

    def discard_pending(self) -> None:
        """Drop what was typed but not yet sent (after a deadline: a half-typed move must not count
        for the next decision)."""
        self.buffer = ""
        try:
            import termios

            if os.isatty(self.fd):
                termios.tcflush(self.fd, termios.TCIFLUSH)
        except (ImportError, OSError):
            pass
