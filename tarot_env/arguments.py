"""Checks of command-line values, shared by the front ends (the ``tarot`` command, the room's
server, the experiment scripts and the warm-up).

A bad flag or file must be refused before anything is played or written, in one line that
names what was given, why it is refused and what is allowed: a traceback, or a value that is
quietly replaced (``--players 0`` played 4) or quietly misused (``--time-per-move nan`` let the
bot play every move), costs the user a game or an evaluation. The argparse ``type=`` functions
here refuse at parse time; :class:`OneLineParser` keeps argparse's errors on one line.

Why below the front ends: the experiment scripts and the warm-up imported these from the CLI,
so a script depended on the terminal front end; here each front end reads them side by side.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from tarot_env.env_facts import facts

#: the longest time per move accepted, in seconds (a day): beyond it a limit means nothing, and
#: ``select()`` overflows on ``inf``
MAX_SECONDS = 86_400.0


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line (``prog: error: ...``), without the usage block.

    The usage block is for ``--help``; an error line says what to fix. Subparsers made from it
    (``add_subparsers``) are of this class too.
    """

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} ({self.prog} --help)\n")


def whole_number(minimum: int, what: str) -> Callable[[str], int]:
    """An argparse type: an integer of at least ``minimum``, refused with ``what`` it is."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(f"{text!r} refused: {what} is a whole number, {minimum} or more")
        return value

    parse.__name__ = what
    return parse


#: a seed: NumPy and Gymnasium take no negative seed
seed = whole_number(0, "a seed")
#: a number of deals (a session's, or an arena match's)
deals = whole_number(1, "a number of deals")
#: a number of training steps
steps = whole_number(1, "a number of steps")
#: a number of tables stepped together
tables = whole_number(1, "a number of tables")
#: a match target or a French session's target total
target = whole_number(1, "a target")
#: a move number of a record (0: the deal)
move_number = whole_number(0, "a move number")


def seconds(text: str) -> float:
    """An argparse type: a time per move, a finite number of seconds above 0, at most :data:`MAX_SECONDS`."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (0 < value <= MAX_SECONDS):  # also refuses nan, whose comparisons are all false
        raise argparse.ArgumentTypeError(f"{text!r} refused: give a number of seconds above 0 and at most {MAX_SECONDS:g} (one day)")
    return value


def players_error(env_id: str, players: int) -> str | None:
    """Why ``--players`` cannot be ``players`` for this game, or ``None`` when it can (the counts
    are the env's row of :mod:`tarot_env.env_facts`)."""
    row = facts(env_id)
    if players in row.player_counts:
        return None
    return f"--players {players} refused: {env_id} is played by {row.players_allowed()} players"


def _nearest_existing(path: Path) -> Path:
    p = path.absolute()
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def writable_file_error(path: Path, flag: str) -> str | None:
    """Why ``path`` cannot be written as a file (checked before a game or a run, so that nothing
    is lost at its end), or ``None``. Folders that do not exist yet will be made."""
    if path.is_dir():
        return f"{flag} {str(path)!r} refused: it is a folder; give a file path such as {str(path / 'game.json')!r}"
    if path.exists():
        return None if os.access(path, os.W_OK) else f"{flag} {str(path)!r} refused: the file cannot be written (permissions)"
    return writable_folder_error(path.parent, flag, given=path)


def writable_folder_error(folder: Path, flag: str, given: Path | None = None) -> str | None:
    """Why files cannot be written in ``folder`` (made if missing), or ``None``.

    Asked of the file system itself (a folder made and removed in the nearest existing folder):
    ``os.access`` says yes to root everywhere, and a read-only mount or ``/proc`` says no only
    when a write is tried.
    """
    given = folder if given is None else given
    base = _nearest_existing(folder)
    if not base.is_dir():
        return f"{flag} {str(given)!r} refused: {str(base)!r} is a file, not a folder"
    probe = base / f".tarot-write-check-{os.getpid()}"
    try:
        probe.mkdir()
        probe.rmdir()
    except OSError as err:
        return f"{flag} {str(given)!r} refused: nothing can be written in the folder {str(base)!r} ({err.strerror})"
    return None
