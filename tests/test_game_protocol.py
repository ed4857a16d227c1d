"""Every game, French or Tarocchino, through the one game interface alone (tarot_env/rules/game.py).

Each table of the golden file (every env id at every player count, one deal per episode and whole
matches, the options of the end of a hand and of a match) is played here with nothing but the
interface's calls: ``new_state``, ``shuffle_and_deal``, ``legal_action_mask``, ``step`` (which checks
each action), ``is_terminal`` and the :class:`HandEnds` it returns. The deals and the random legal
actions are drawn as the vector env draws them, so the score of every hand must be the one the
golden file holds for that table (tests/golden_play.py): a family whose interface differed (its
argument order, its legality, its end of a hand) could not pass without a branch of its own here.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import golden_play
import numpy as np
import pytest

import tarot_env.vector
from tarot_env._jit import JIT_AVAILABLE
from tarot_env.errors import IllegalActionError
from tarot_env.rules.bolognese.game import TarocchinoGame
from tarot_env.rules.french.game import FrenchTarotGame
from tarot_env.rules.game import Codes, Game, GameState, HandEnds, take_rows

GOLDEN = json.loads((Path(__file__).parent / "data" / "golden_records.json").read_text())["tables"]
TABLES = golden_play.tables()


def _game(env_id: str, options: dict) -> Game:
    """The game of a golden table (the vector env is made only to read its game and options)."""
    return tarot_env.vector.make(env_id, 1, **options).game


def play(game: Game, hands: int = golden_play.HANDS, batch: int = golden_play.BATCH, seed: int = 0) -> list[list[int]]:
    """The scores of the first ``hands`` hands of ``batch`` tables, through the interface alone: random
    deals (a random dealer each), random legal actions, each finished episode dealt again."""
    deal_rng, act_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    state = game.new_state(batch)
    rows = np.arange(batch)

    def deal(rows: np.ndarray) -> None:
        while len(rows):  # a deal annulled as it is dealt (a French petit sec) is dealt again
            game.shuffle_and_deal(state, rows, deal_rng.integers(game.num_players, size=len(rows)), deal_rng)
            rows = rows[game.is_terminal(state)[rows]]

    deal(rows)
    scores: list[list[int]] = []
    while len(scores) < hands:
        mask = game.legal_action_mask(state, rows)
        assert np.array_equal(mask, state.legal[rows]) and mask.any(axis=1).all()
        actions = (act_rng.random(mask.shape) * mask).argmax(axis=1)
        ends = game.step(state, actions, rows, rng=deal_rng)
        assert isinstance(ends, HandEnds) and len(ends) == len(ends.rows) == len(ends.scores)
        assert [e.row for e in ends] == ends.rows.tolist() and all(e.scores == s for e, s in zip(ends, ends.scores.tolist()))
        scores += ends.scores.tolist()
        deal(rows[game.is_terminal(state)])
    return scores[:hands]


@pytest.mark.skipif(not JIT_AVAILABLE, reason="minutes without numba; the compiled and Python paths are compared elsewhere")
@pytest.mark.parametrize(("env_id", "options"), TABLES, ids=[golden_play.key(e, o) for e, o in TABLES])
def test_every_table_played_through_the_interface_scores_as_the_golden_file(env_id, options):
    want = GOLDEN["vector " + golden_play.key(env_id, options)]["scores"]
    got = golden_play._compact(play(_game(env_id, options)))
    assert got == want


@pytest.mark.parametrize("game", [FrenchTarotGame(), _game("ottocento_v0", {})], ids=["french", "tarocchino"])
def test_both_families_implement_the_interface_the_same_way(game):
    assert isinstance(game, Game) and isinstance(game.new_state(2), GameState)
    assert issubclass(game.Phase, Codes) and game.Phase.name(game.Phase.PLAY) == "play" and game.Phase.name(game.Phase.DONE) == "done"
    params = list(inspect.signature(game.step).parameters)
    assert params == ["state", "actions", "rows", "check", "rng", "deals", "parallel"] or params == [
        "s",
        "actions",
        "rows",
        "check",
        "mask",
        "rng",
        "deals",
        "parallel",
    ]
    assert params[1:3] == ["actions", "rows"]  # the same order in both families
    state = game.new_state(3)
    assert isinstance(state.blocks, dict) and all(isinstance(b, np.ndarray) for b in state.blocks.values())
    assert game.is_terminal(state).all()  # nothing dealt yet


@pytest.mark.parametrize(("env_id", "options"), [("french_tarot_v0", {"num_players": 4}), ("ottocento_v0", {})])
def test_step_checks_every_action_in_both_families_and_changes_nothing_when_one_is_illegal(env_id, options):
    game = _game(env_id, options)
    state = game.new_state(4)
    rows = np.arange(4)
    game.shuffle_and_deal(state, rows, np.zeros(4, dtype=np.int64), np.random.default_rng(1))
    before = {name: block.copy() for name, block in state.blocks.items()}
    actions = state.legal.argmax(axis=1)
    illegal = int(np.flatnonzero(~state.legal[2])[0])
    actions[2] = illegal
    with pytest.raises(IllegalActionError) as err:
        game.step(state, actions, rows)
    assert game.action_to_string(illegal) in str(err.value) or str(illegal) in str(err.value)
    for name, block in state.blocks.items():
        assert np.array_equal(block, before[name]), name
    game.step(state, state.legal.argmax(axis=1), rows)  # legal: it steps
    assert any(not np.array_equal(block, before[name]) for name, block in state.blocks.items())


@pytest.mark.parametrize(("env_id", "options"), [("french_tarot_v0", {"num_players": 3}), ("millone_v0", {})])
def test_take_rows_copies_rows_block_by_block(env_id, options):
    game = _game(env_id, options)
    state = game.new_state(3)
    game.shuffle_and_deal(state, np.arange(3), np.array([0, 1, 2]), np.random.default_rng(2))
    copy = take_rows(state, np.array([2, 2, 0]))
    assert type(copy) is type(state) and copy.legal.shape[0] == 3
    for name, block in copy.blocks.items():
        assert np.array_equal(block, state.blocks[name][[2, 2, 0]]), name
        assert not np.shares_memory(block, state.blocks[name])
    assert isinstance(_game("ottocento_v0", {}), TarocchinoGame)
