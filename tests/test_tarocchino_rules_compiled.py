"""The compiled rule-based Tarocchino bot makes the decisions recorded in ``tests/data/bot_golden.json``.

``agents/tarocchino_rules.py`` decides a whole batch in one compiled call (numba; plain Python
with ``TAROT_ENV_JIT=0``). Before that rewrite the bot was a Python loop over rows calling
NumPy, and a verbatim copy of it was the oracle here. That copy is gone: its decisions over a
fixed set of seeded hands were recorded instead (``tests/data/make_bot_golden.py --check``,
every decision equal to the copy's when the file was written; ``tests/golden_bots.py`` plays
the tables). Here the bot decides every state of thousands of full hands of every game
(Mattazza with 3 to 6 players), single deals and matches, with the bot and a random player mixed
at the tables so that many kinds of states occur (claims below the target, Matto exchanges, odd
discards, tricks full of points): at every step, every row, its action must be the recorded one.

Also: a batch equals one row at a time, the errors still raise, the Terziglio hand strength is
the recorded float, a tuned instance (its class numbers changed) plays as recorded for the tuned
bot, and the compiled kernel gives what its Python functions give.
"""

from __future__ import annotations

import json
from pathlib import Path

import golden_bots as G
import numpy as np
import pytest
from helpers_setup import plain_python
from tarot_env.agents import tarocchino_rules
from tarot_env.agents.random_agent import RandomAgent
from tarot_env.agents.tarocchino_rules import TarocchinoRuleAgent

import tarot_env.vector
from tarot_env._jit import JIT_AVAILABLE
from tarot_env.rules.bolognese import combinations
from tarot_env.rules.bolognese.game_specs import GAMES
from tarot_env.rules.bolognese.state import NUM_ACTIONS

GOLDEN = json.loads((Path(__file__).parent / "data" / "bot_golden.json").read_text())
#: the plain-Python path (TAROT_ENV_JIT=0), where the kernels run as Python, replays the first steps of each record
SAMPLE = None if JIT_AVAILABLE else 40


@pytest.mark.parametrize(
    ("env_id", "config", "hands"), G.TAROCCHINO_TABLES, ids=[f"{e}-{'-'.join(map(str, c.values()))}" for e, c, _ in G.TAROCCHINO_TABLES]
)
def test_every_decision_of_full_hands_is_the_recorded_one(env_id, config, hands):
    """Full hands at a table of the bot and random players: at every step the compiled bot's
    action for every row (the rows of the random players' turns included) is the recorded one."""
    bot = TarocchinoRuleAgent(env_id, target=config.get("target"))
    tape = G.play_tarocchino(bot.act, env_id, config, hands, max_steps=SAMPLE)
    got, want = tape.golden(), GOLDEN["tables"][G.tarocchino_key(env_id, config)]
    if SAMPLE is not None:
        assert G.same_start(got, want), f"{env_id} {config}: " + G.first_difference(got, want)
        return
    assert got == want, f"{env_id} {config}: " + G.first_difference(got, want)
    assert tape.decisions > 10 * hands
    spec = bot.spec
    expected = {"play"}
    expected |= {"discard"} if spec.discards or spec.first_discards else set()
    expected |= {"auction"} if spec.auction else set()
    expected |= {"declare"} if spec.declarations else set()
    assert tape.kinds >= expected, f"{env_id} {config}: the decisions met were {sorted(tape.kinds)}"


def test_the_tables_play_enough_hands():
    assert sum(h for _, _, h in G.TAROCCHINO_TABLES) >= 3000
    assert {e for e, _, _ in G.TAROCCHINO_TABLES} == set(tarot_env.vector.VECTOR_ENV_IDS) - {"french_tarot_v0"}
    assert {c.get("num_players") for e, c, _ in G.TAROCCHINO_TABLES if e == "mattazza_v0"} == {3, 4, 5, 6}
    assert {G.tarocchino_key(e, c) for e, c, _ in G.TAROCCHINO_TABLES} <= set(GOLDEN["tables"])


def _states(env_id: str, steps: int, seed: int, **config) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of random play (every kind of decision of the game)."""
    venv = tarot_env.vector.make(env_id, 16, **config)
    rnd = RandomAgent(seed=seed)
    out = venv.reset(seed=seed)
    obs, masks = [], []
    for _ in range(steps):
        obs.append(out.observations)
        masks.append(out.action_masks)
        out = venv.step(rnd.act(out.observations, out.action_masks))
    return np.concatenate(obs), np.concatenate(masks)


@pytest.mark.parametrize(
    ("env_id", "config"), [("ottocento_v0", {"matto_exchange": "choose"}), ("terziglio_v0", {}), ("mattazza_v0", {"num_players": 5})]
)
def test_a_batch_equals_one_row_at_a_time(env_id, config):
    obs, masks = _states(env_id, 40, seed=3, **config)
    bot = TarocchinoRuleAgent(env_id)
    batch = bot.act(obs, masks)
    assert batch.dtype == np.int64 and batch.shape == (len(obs),)
    rows = [bot.act(obs[i], masks[i]) for i in range(len(obs))]
    assert all(isinstance(a, int) for a in rows)
    assert batch.tolist() == rows
    assert masks[np.arange(len(obs)), batch].all()
    assert bot.act(obs[:0], masks[:0]).shape == (0,)


def test_refused_input():
    bot = TarocchinoRuleAgent("ottocento_v0")
    assert (bot.name, bot.game, bot.spec.name, bot.target) == ("tarocchino_rules", "ottocento", "ottocento", 800)
    assert TarocchinoRuleAgent("mattazza").target == GAMES["mattazza"].target == 3  # the game's row, as the old bot read it
    with pytest.raises(ValueError, match="unknown Tarocchino game"):
        TarocchinoRuleAgent("briscola")
    with pytest.raises(ValueError, match="no Tarocchino observation"):
        bot.act(np.zeros(10, dtype=np.int8), np.ones(NUM_ACTIONS, dtype=bool))
    with pytest.raises(ValueError, match="no legal action"):
        bot.act(np.zeros((1, 1334), dtype=np.int8), np.zeros((1, NUM_ACTIONS), dtype=bool))
    with pytest.raises(ValueError, match="expected"):
        bot.act(np.zeros((2, 1334), dtype=np.int8), np.ones((2, NUM_ACTIONS - 1), dtype=bool))
    with pytest.raises(ValueError, match="expected"):
        bot.act(np.zeros((3, 1334), dtype=np.int8), np.ones((2, NUM_ACTIONS), dtype=bool))


def test_hand_strength_is_the_recorded_float():
    strengths = [TarocchinoRuleAgent.hand_strength(h) for h in G.strength_hands()]
    assert strengths == GOLDEN["hand_strength"]


def test_a_tuned_bot_plays_as_recorded_for_the_tuned_bot():
    """The strategy's numbers are read from the instance at each call (a tuning script may set them)."""
    tuned = G.tuned_golden(lambda env_id: TarocchinoRuleAgent(env_id))
    assert tuned == GOLDEN["tuned"]
    plain = {k: ",".join(map(str, TarocchinoRuleAgent(e).act(*G.tarocchino_states(e, 40, seed=9, **c)).tolist())) for (e, c), k in
             zip(G.TUNED_TABLES, tuned)}  # fmt: skip
    assert plain != tuned  # the numbers were read: the untuned bot plays otherwise


@pytest.mark.skipif(not JIT_AVAILABLE, reason="the compiled path is off: only the Python functions exist")
def test_the_compiled_kernel_equals_its_python_functions():
    assert hasattr(tarocchino_rules._act_rows, "py_func") and hasattr(combinations.combination_points_row, "py_func")
    obs, masks = _states("ottocento_v0", 12, seed=4, matto_exchange="choose")
    bot = TarocchinoRuleAgent("ottocento")
    compiled = bot.act(obs, masks)
    with plain_python(tarocchino_rules, combinations):  # the bot and the combination count it calls
        assert not hasattr(tarocchino_rules._act_rows, "py_func")
        assert bot.act(obs, masks).tolist() == compiled.tolist()
    assert hasattr(tarocchino_rules._act_rows, "py_func")
