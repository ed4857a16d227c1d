"""The online room type-checks: mypy over tarot_env/web, as pyproject.toml's ``[tool.mypy]`` configures it.

Why: the room's table is made of parts, each given what it reads of the table as a Protocol
(``seats.Seats``, ``votes.VoteTable``, ``dealing.GameTable``, ``game_end.PlayedGame``), and the server's
handlers read it through ``handlers.Server``; mypy checks that the table and the server fulfil them, so a
part that reads what it was not given, or a table that stops giving it, fails here rather than at run time.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_room_type_checks() -> None:
    run = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"mypy (the test extra installs it) over tarot_env/web:\n{run.stdout}{run.stderr}"
