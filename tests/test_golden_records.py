"""Seeded play of every env gives, byte for byte, what it gave when the golden file was written.

``tests/data/golden_records.json`` holds, for each env id at each player count (Tarocchino: one deal
per episode and whole matches, and the options of the end of a hand and of a match; French
Tarot at 3, 4 and 5 players), the sha256 of every observation, mask, reward, hand detail, final
observation and record of a few hundred seeded deals, and each deal's scores (tests/golden_play.py).
A refactoring that changes no rule leaves every digest as it was; one that changes behaviour
fails here, and the scores say which deal first differs. Rewrite the file
(``tests/data/make_golden_records.py``) only for a change of behaviour that is meant.
"""

from __future__ import annotations

import json
from pathlib import Path

import golden_play
import pytest

from tarot_env._jit import JIT_AVAILABLE

GOLDEN = json.loads((Path(__file__).parent / "data" / "golden_records.json").read_text())
TABLES = GOLDEN["tables"]


def test_the_golden_file_covers_every_env_and_player_count():
    from tarot_env.rules.bolognese.game_specs import GAMES

    assert (GOLDEN["batch"], GOLDEN["hands"]) == (golden_play.BATCH, golden_play.HANDS)
    covered = {(e, o.get("num_players")) for e, o in golden_play.tables()}
    wanted = {(f"{g}_v0", n if len(s.players) > 1 else None) for g, s in GAMES.items() for n in s.players}
    wanted |= {("french_tarot_v0", n) for n in (3, 4, 5)}
    assert wanted <= covered
    expected = {"vector " + golden_play.key(e, o) for e, o in golden_play.tables()}
    assert expected <= set(TABLES)


def _first_difference(got: str, want: str) -> str:
    a, b = got.split(";"), want.split(";")
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"hand {i}: scores {x}, the golden file says {y}"
    return f"{len(a)} hands, the golden file has {len(b)}"


@pytest.mark.skipif(not JIT_AVAILABLE, reason="minutes without numba; the compiled and Python paths are compared elsewhere")
@pytest.mark.parametrize(("env_id", "options"), golden_play.tables(), ids=[golden_play.key(e, o) for e, o in golden_play.tables()])
def test_seeded_play_of_the_vector_env_is_unchanged(env_id, options):
    want = TABLES["vector " + golden_play.key(env_id, options)]
    got = golden_play.play_vector(env_id, options)
    assert got["scores"] == want["scores"], _first_difference(got["scores"], want["scores"])
    assert got == want


@pytest.mark.skipif(not JIT_AVAILABLE, reason="minutes without numba; the compiled and Python paths are compared elsewhere")
@pytest.mark.parametrize("name", sorted(k for k in TABLES if k.startswith("aec ")))
def test_seeded_play_of_the_aec_env_is_unchanged(name):
    _, env_id, *words = name.split(" ")
    options = {}
    for w in words:
        k, v = w.split("=")
        options[k] = int(v) if v.isdigit() else v
    hands = 3 if options.get("episode") == "match" else golden_play.AEC_HANDS
    want = TABLES[name]
    got = golden_play.play_aec(env_id, options, hands=hands)
    assert got["scores"] == want["scores"], _first_difference(got["scores"], want["scores"])
    assert got == want
