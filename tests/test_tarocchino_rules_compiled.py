"""The compiled rule-based Tarocchino bot decides exactly as the bot it was compiled from.

``agents/tarocchino_rules.py`` decides a whole batch in one compiled call (numba; plain Python
with ``TAROT_ENV_JIT=0``). Before that rewrite the bot was a Python loop over rows calling
NumPy; that bot is kept verbatim as ``tests/oracles/tarocchino_rules_bot.py``. Here both
decide every state of thousands of full hands of every game (Mattazza with 3 to 6 players),
single deals and matches, with the bot and a random player mixed at the tables so that many
kinds of states occur (claims below the target, Matto exchanges, odd discards, tricks full of
points): at every step, every row, the two must give the same action.

Also: a batch equals one row at a time, the errors still raise, the Terziglio hand strength is
the same float, a tuned instance (its class numbers changed) plays as the tuned old bot, and
the compiled kernel gives what its Python functions give.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_setup import plain_python
from oracles.tarocchino_rules_bot import TarocchinoRuleAgent as OracleBot
from tarot_env.agents import tarocchino_rules
from tarot_env.agents.random_agent import RandomAgent
from tarot_env.agents.tarocchino_rules import TarocchinoRuleAgent

import tarot_env.vector
from tarot_env._jit import JIT_AVAILABLE
from tarot_env.cards.bolognese import NUM_CARDS
from tarot_env.rules.bolognese import combinations
from tarot_env.rules.bolognese.state import (
    A_CLAIM,
    A_DECLARE,
    A_NO_CLAIM,
    A_NO_DECLARE,
    A_OPPOSE,
    A_PASS,
    AB_DISCARD,
    AB_GIVE,
    NUM_ACTIONS,
)

#: the tables: env id, options, hands to play (with numba; a tenth without, where the kernels run as Python)
TABLES = [
    ("ottocento_v0", {}, 300),
    ("ottocento_v0", {"wrong_claim": "loses", "matto_exchange": "choose"}, 200),
    ("ottocento_v0", {"episode": "match", "target": 1000}, 200),
    ("quattro_scartate_v0", {"matto_exchange": "choose", "episode": "match"}, 250),
    ("terziglio_v0", {}, 250),
    ("terziglio_v0", {"matto_exchange": "choose", "episode": "match"}, 200),
    ("millone_v0", {"wrong_claim": "loses"}, 250),
    ("centocinquanta_v0", {"matto_exchange": "choose", "episode": "match"}, 250),
    ("quindici_v0", {"wrong_claim": "loses", "episode": "match"}, 250),
    ("mattazza_v0", {"num_players": 3, "matto_exchange": "choose"}, 250),
    ("mattazza_v0", {"num_players": 4, "episode": "match"}, 250),
    ("mattazza_v0", {"num_players": 5}, 200),
    ("mattazza_v0", {"num_players": 6, "matto_exchange": "choose", "episode": "match"}, 200),
]
SCALE = 1 if JIT_AVAILABLE else 10
BATCH = 32


def _bot_seats(rows: np.ndarray, seats: np.ndarray, n: int) -> np.ndarray:
    """Which rows the bot plays at this step: every seat at a quarter of the tables, the even
    seats, the odd seats, or one seat at the others (random players in the other seats)."""
    kind = rows % 4
    return (kind == 0) | ((kind == 1) & (seats % 2 == 0)) | ((kind == 2) & (seats % 2 == 1)) | ((kind == 3) & (seats == rows % n))


def _kind(mask: np.ndarray) -> str:
    """The kind of decision a mask asks for."""
    if mask[A_PASS : A_OPPOSE + 1].any():
        return "auction"
    if mask[A_CLAIM] or mask[A_NO_CLAIM]:
        return "claim"
    if mask[A_DECLARE] or mask[A_NO_DECLARE]:
        return "declare"
    if mask[AB_DISCARD : AB_DISCARD + NUM_CARDS].any():
        return "discard"
    if mask[AB_GIVE : AB_GIVE + NUM_CARDS].any():
        return "give"
    return "play"


def _first_difference(venv, step: int, obs: np.ndarray, masks: np.ndarray, new: np.ndarray, old: np.ndarray) -> str:
    i = int(np.flatnonzero(new != old)[0])
    return (
        f"step {step}, row {i}: compiled {venv.action_to_string(int(new[i]))!r}, oracle {venv.action_to_string(int(old[i]))!r}; "
        f"legal {[venv.action_to_string(int(a)) for a in np.flatnonzero(masks[i])]}; "
        f"observation (nonzero positions) {np.flatnonzero(obs[i]).tolist()}"
    )


@pytest.mark.parametrize(("env_id", "config", "hands"), TABLES, ids=[f"{e}-{'-'.join(map(str, c.values()))}" for e, c, _ in TABLES])
def test_every_decision_of_full_hands_equals_the_oracle(env_id, config, hands):
    """Full hands at a table of the bot and random players: at every step the compiled bot's
    action equals the oracle's for every row (the rows of the random players' turns included)."""
    hands = max(20, hands // SCALE)
    target = config.get("target")
    bot, oracle = TarocchinoRuleAgent(env_id, target=target), OracleBot(env_id, target=target)
    rnd = RandomAgent(seed=len(config) + hands)
    venv = tarot_env.vector.make(env_id, BATCH, **config)
    out = venv.reset(seed=hands)
    rows = np.arange(BATCH)
    played = decisions = step = 0
    kinds: set[str] = set()
    while played < hands:
        new = bot.act(out.observations, out.action_masks)
        old = oracle.act(out.observations, out.action_masks)
        assert np.array_equal(new, old), f"{env_id} {config}: " + _first_difference(
            venv, step, out.observations, out.action_masks, new, old
        )
        decisions += len(new)
        kinds.update(_kind(m) for m in out.action_masks[out.action_masks.sum(axis=1) > 1])
        actions = np.where(_bot_seats(rows, out.players, venv.num_players), new, rnd.act(out.observations, out.action_masks))
        out = venv.step(actions)
        played += len(out.infos["hands"])
        step += 1
    assert decisions > 10 * hands
    spec = bot.spec
    expected = {"play"}
    expected |= {"discard"} if spec.discards or spec.first_discards else set()
    expected |= {"auction"} if spec.auction else set()
    expected |= {"declare"} if spec.declarations else set()
    assert kinds >= expected, f"{env_id} {config}: the decisions met were {sorted(kinds)}"


def test_the_tables_play_enough_hands():
    assert sum(h for _, _, h in TABLES) >= 3000
    assert {e for e, _, _ in TABLES} == set(tarot_env.vector.VECTOR_ENV_IDS) - {"french_tarot_v0"}
    assert {c.get("num_players") for e, c, _ in TABLES if e == "mattazza_v0"} == {3, 4, 5, 6}


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
    assert TarocchinoRuleAgent("mattazza").target == OracleBot("mattazza").target
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


def test_hand_strength_is_the_same_float():
    rng = np.random.default_rng(5)
    for _ in range(300):
        hand = rng.random(62) < rng.uniform(0.1, 0.6)
        assert TarocchinoRuleAgent.hand_strength(hand) == OracleBot.hand_strength(hand)


def test_a_tuned_bot_plays_as_the_tuned_oracle():
    """The strategy's numbers are read from the instance at each call (a tuning script may set them)."""
    knobs = {
        "DI_MIO": 22.0,
        "POSSO": 12.0,
        "OPPOSE": 15.0,
        "REST": 1.5,
        "POWER": 0.3,
        "NEED_BASE": 1.0,
        "NEED_GROWTH": 10.0,
        "KEEP_WINNERS": 0.5,
    }
    for env_id, config in (("terziglio_v0", {}), ("mattazza_v0", {"num_players": 4})):
        obs, masks = _states(env_id, 40, seed=9, **config)
        bot, oracle = TarocchinoRuleAgent(env_id), OracleBot(env_id)
        for name, value in knobs.items():
            setattr(bot, name, value)
            setattr(oracle, name, value)
        assert bot.act(obs, masks).tolist() == oracle.act(obs, masks).tolist()


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
