"""Every env pickles mid-deal, and the copy plays on exactly as the original.

An env (AEC, every player count, and vector) is played part way by random legal actions, then
copied by ``pickle``, ``cloudpickle`` and ``copy.deepcopy``. Original and copy are then given
the same actions to the end of the deal and through two more episodes, one after a seeded
``reset`` and one after an unseeded one (the random generator travels with the copy): every
observation, legal mask, reward, termination, info and record must be equal.

The French state's fields are views into a few blocks (``FrenchTarotState.blocks``): the
compiled kernels write the blocks, NumPy code writes the fields. A copy whose fields were cut
loose from its blocks would play on wrongly, so the views must be rebuilt on unpickling.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any

import cloudpickle
import numpy as np
import pytest

import tarot_env
import tarot_env.vector
from tarot_env.rules.bolognese.state import CURRENT, PHASE, SCORE, TOTAL
from tarot_env.rules.french.state import _GROUPS, COLUMN, FrenchTarotState

TAROCCHINO_IDS = ("ottocento_v0", "quattro_scartate_v0", "terziglio_v0", "millone_v0", "centocinquanta_v0", "quindici_v0")
CASES = [
    *(("french_tarot_v0", n) for n in (3, 4, 5)),
    *((env_id, None) for env_id in TAROCCHINO_IDS),
    *(("mattazza_v0", n) for n in (3, 4, 5, 6)),
]
CASE_IDS = [f"{env_id}-{n or 'default'}" for env_id, n in CASES]


def _pickle(obj: Any) -> Any:
    return pickle.loads(pickle.dumps(obj))


def _cloudpickle(obj: Any) -> Any:
    return cloudpickle.loads(cloudpickle.dumps(obj))


COPIERS = {"pickle": _pickle, "cloudpickle": _cloudpickle, "deepcopy": copy.deepcopy}


def _options(num_players: int | None) -> dict[str, Any]:
    # shaping and oracle: more of the env's own state (shaped rewards, tricks seen) must travel
    options: dict[str, Any] = {"shaping": True, "oracle": True}
    if num_players is not None:
        options["num_players"] = num_players
    return options


def assert_same(a: Any, b: Any, where: str = "") -> None:
    """Deep equality of env outputs: arrays (dtype, shape, values), containers, dataclasses."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, f"{where}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"
        assert np.array_equal(a, b), f"{where}: arrays differ"
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{where}: keys {list(a)} != {list(b)}"
        for k in a:
            assert_same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{where}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]")
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            assert_same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


# ---------------------------------------------------------------------------- AEC
def _aec_snapshot(env) -> dict[str, Any]:
    """Everything an agent or a trainer can read of an AEC env at this moment."""
    return {
        "agent_selection": env.agent_selection,
        "agents": list(env.agents),
        "observations": {a: env.observe(a) for a in env.possible_agents},
        "rewards": dict(env.rewards),
        "cumulative": dict(env._cumulative_rewards),
        "terminations": dict(env.terminations),
        "truncations": dict(env.truncations),
        "infos": env.infos,
    }


def _aec_play(env, rng: np.random.Generator, max_steps: int) -> list[int]:
    """Up to ``max_steps`` random legal actions (fewer when the episode ends); returns them."""
    actions = []
    for _ in range(max_steps):
        if env.terminations[env.agent_selection]:
            break
        mask = env.observe(env.agent_selection)["action_mask"]
        action = int(rng.choice(np.flatnonzero(mask)))
        env.step(action)
        actions.append(action)
    return actions


def _aec_lockstep(a, b, rng: np.random.Generator, where: str) -> None:
    """Play ``a`` and ``b`` with the same random legal actions to the end of the episode,
    comparing them after every step, and their records at the end."""
    assert_same(_aec_snapshot(a), _aec_snapshot(b), f"{where}: start")
    for k in range(10_000):
        if a.terminations[a.agent_selection]:
            break
        mask = a.observe(a.agent_selection)["action_mask"]
        action = int(rng.choice(np.flatnonzero(mask)))
        a.step(action)
        b.step(action)
        assert_same(_aec_snapshot(a), _aec_snapshot(b), f"{where}: step {k}")
    else:
        raise AssertionError(f"{where}: the episode did not end")
    assert all(b.terminations.values()), f"{where}: the copy did not end with the original"
    assert_same(a.unwrapped.record(), b.unwrapped.record(), f"{where}: record")


@pytest.mark.parametrize("how", COPIERS)
@pytest.mark.parametrize(("env_id", "num_players"), CASES, ids=CASE_IDS)
def test_aec_env_copy_plays_on_like_the_original(env_id: str, num_players: int | None, how: str) -> None:
    env = tarot_env.make(env_id, **_options(num_players))
    env.reset(seed=11)
    rng = np.random.default_rng(5)
    assert len(_aec_play(env, rng, 9)) == 9, "the deal ended before the copy"
    env.observe(env.possible_agents[0])  # a cached observation travels too
    twin = COPIERS[how](env)
    assert twin is not env and twin.unwrapped.game_state is not env.unwrapped.game_state
    _aec_lockstep(env, twin, rng, f"{env_id} {how}: the deal copied")
    env.reset(seed=3)
    twin.reset(seed=3)
    _aec_lockstep(env, twin, rng, f"{env_id} {how}: after reset(seed=3)")
    env.reset()  # no seed: the copy's generator is the original's
    twin.reset()
    _aec_lockstep(env, twin, rng, f"{env_id} {how}: after reset()")


@pytest.mark.parametrize("how", COPIERS)
def test_aec_copy_is_independent_of_the_original(how: str) -> None:
    """Stepping the copy leaves the original as it was (no block is shared)."""
    env = tarot_env.make("french_tarot_v0")
    env.reset(seed=0)
    before = copy.deepcopy(_aec_snapshot(env))
    twin = COPIERS[how](env)
    _aec_play(twin, np.random.default_rng(0), 30)
    assert_same(_aec_snapshot(env), before, "the original after the copy played")
    for name, block in env.unwrapped.game_state.blocks.items():
        assert not np.shares_memory(block, twin.unwrapped.game_state.blocks[name]), name


# ---------------------------------------------------------------------------- vector
def _vector_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int64)


def _vector_lockstep(a, b, out_a, rng: np.random.Generator, where: str) -> Any:
    """Step ``a`` and ``b`` with the same random legal actions until every table has ended an
    episode, comparing every output; returns ``a``'s last output."""
    ended = np.zeros(a.num_envs, dtype=bool)
    for k in range(10_000):
        if ended.all():
            return out_a
        actions = _vector_actions(out_a.action_masks, rng)
        out_a = a.step(actions)
        out_b = b.step(actions)
        assert_same(out_a, out_b, f"{where}: step {k}")
        ended |= out_a.terminations
    raise AssertionError(f"{where}: the episodes did not end")


@pytest.mark.parametrize("how", COPIERS)
@pytest.mark.parametrize(("env_id", "num_players"), CASES, ids=CASE_IDS)
def test_vector_env_copy_plays_on_like_the_original(env_id: str, num_players: int | None, how: str) -> None:
    venv = tarot_env.vector.make(env_id, num_envs=3, records=True, **_options(num_players))
    out = venv.reset(seed=11)
    rng = np.random.default_rng(5)
    for _ in range(9):
        out = venv.step(_vector_actions(out.action_masks, rng))
    twin = COPIERS[how](venv)
    assert twin.game_state is not venv.game_state
    out = _vector_lockstep(venv, twin, out, rng, f"{env_id} {how}: the deals copied")
    # only some tables step (the others wait)
    rows = np.array([2, 0])
    actions = _vector_actions(out.action_masks[rows], rng)
    assert_same(venv.step(actions, rows=rows), twin.step(actions, rows=rows), f"{env_id} {how}: step with rows")
    out_a, out_b = venv.reset(seed=3), twin.reset(seed=3)
    assert_same(out_a, out_b, f"{env_id} {how}: reset(seed=3)")
    _vector_lockstep(venv, twin, out_a, rng, f"{env_id} {how}: after reset(seed=3)")
    out_a, out_b = venv.reset(), twin.reset()  # no seed: the copy's generator is the original's
    assert_same(out_a, out_b, f"{env_id} {how}: reset()")
    _vector_lockstep(venv, twin, out_a, rng, f"{env_id} {how}: after reset()")


# ---------------------------------------------------------------------------- views
def _french_field_blocks(state: FrenchTarotState) -> dict[str, str]:
    """Each field of a French state and the block it must be a view of."""
    owner = {name: block for block, names in _GROUPS.items() for name in names}
    return {f.name: owner.get(f.name, f.name) for f in dataclasses.fields(state)}


@pytest.mark.parametrize("how", COPIERS)
@pytest.mark.parametrize("kind", ["aec", "vector"])
def test_french_fields_are_views_of_the_blocks_after_a_copy(how: str, kind: str) -> None:
    if kind == "aec":
        env = tarot_env.make("french_tarot_v0", num_players=5)
        env.reset(seed=1)
    else:
        env = tarot_env.vector.make("french_tarot_v0", num_envs=4, num_players=5)
        env.reset(seed=1)
    twin = COPIERS[how](env)
    s = twin.unwrapped.game_state if kind == "aec" else twin.game_state
    blocks = _french_field_blocks(s)
    assert set(blocks.values()) == set(s.blocks)
    for name, block in blocks.items():
        assert np.shares_memory(getattr(s, name), s.blocks[block]), f"{name} is not a view of blocks[{block!r}]"
    # writing a field writes its block, and the reverse
    hands = s.hands[0, 1].copy()
    s.hands[0, 1, :] = ~hands
    assert np.array_equal(s.blocks["seat_cards"][0, COLUMN["hands"], 1], ~hands)
    s.blocks["ints"][0, COLUMN["current"]] = 3
    assert s.current[0] == 3
    # the game and its helpers were copied with the env: one game, bound to the copy
    game = twin.unwrapped.game if kind == "aec" else twin.game
    assert all(fn.__self__ is game for fn in game._apply_fns.values())
    assert twin.encoder.game is game


@pytest.mark.parametrize("how", ["pickle", "cloudpickle"])
def test_french_state_pickles_its_blocks_only(how: str) -> None:
    """A state's pickle holds the blocks once, not every field again beside them."""
    state = FrenchTarotState.empty(64, 5, 15)
    data = (pickle if how == "pickle" else cloudpickle).dumps(state)
    assert len(data) < 1.2 * sum(b.nbytes for b in state.blocks.values())
    back = COPIERS[how](state)
    for name, block in state.blocks.items():
        assert_same(back.blocks[name], block, name)


def test_french_state_deepcopy_keeps_shared_references() -> None:
    """``copy.deepcopy`` of an object holding a state and one of its fields keeps the field
    a view of the copied state's block."""
    state = FrenchTarotState.empty(2, 4, 18)
    holder = {"state": state, "hands": state.hands, "ints": state.blocks["ints"]}
    twin = copy.deepcopy(holder)
    assert twin["hands"] is twin["state"].hands
    assert twin["ints"] is twin["state"].blocks["ints"]
    assert not np.shares_memory(twin["hands"], state.hands)


@pytest.mark.parametrize("how", COPIERS)
def test_tarocchino_state_views_after_a_copy(how: str) -> None:
    """The Bolognese state is its blocks; its named fields are views of them."""
    env = tarot_env.make("mattazza_v0", num_players=5)
    env.reset(seed=2)
    twin = COPIERS[how](env)
    s = twin.unwrapped.game_state
    for field in ("phase", "current", "dealer"):
        assert np.shares_memory(getattr(s, field), s.ints), field
    for field in ("scores", "totals"):
        assert np.shares_memory(getattr(s, field), s.seat_ints), field
    s.current[0] = 4
    s.totals[0, 2] = 7
    assert s.ints[0, CURRENT] == 4 and s.seat_ints[0, 2, TOTAL] == 7
    s.ints[0, PHASE] = 5
    s.seat_ints[0, 1, SCORE] = -3
    assert s.phase[0] == 5 and s.scores[0, 1] == -3
    for mine, theirs in zip(s.blocks, env.unwrapped.game_state.blocks):
        assert not np.shares_memory(mine, theirs)
