"""The vector envs on several threads (``num_threads``): the same results for every number of threads.

Same seed, same actions (random legal ones drawn from one generator), for K = 1, 2 and 4 threads:
the observations, masks, players, rewards, terminations, the finished deals' scores and records,
and the final state are identical. The batch is large enough (1,100 tables) for 4 blocks of rows.
"""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest

import tarot_env.vector
from tarot_env._threads import MIN_ROWS, RowThreads, available_cores, resolve_threads

B = 4 * MIN_ROWS + 76


def trajectory(env_id: str, num_threads: int, steps: int, **options) -> list:
    venv = tarot_env.vector.make(env_id, B, num_threads=num_threads, records=True, **options)
    out = venv.reset(seed=3)
    rng = np.random.default_rng(0)
    seen = [out.observations.copy()]
    for _ in range(steps):
        actions = (rng.random(out.action_masks.shape) * out.action_masks).argmax(axis=1)
        out = venv.step(actions)
        seen += [out.observations.copy(), out.action_masks.copy(), out.players.copy(), out.rewards.copy(), out.terminations.copy()]
        seen += [out.infos["ended"].copy(), out.infos.get("scores"), out.infos.get("records")]
    seen.append(
        {
            k: v.copy()
            for k, v in (venv.game_state.blocks.items() if isinstance(venv.game_state.blocks, dict) else enumerate(venv.game_state.blocks))
        }
    )
    return seen


def same(a, b) -> bool:
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


@pytest.mark.parametrize(
    ("env_id", "options", "steps"),
    [("french_tarot_v0", {"num_players": 4}, 120), ("french_tarot_v0", {"num_players": 5}, 120), ("ottocento_v0", {}, 120),
     ("millone_v0", {"episode": "match"}, 150), ("mattazza_v0", {"num_players": 5}, 120)],
)  # fmt: skip
def test_every_number_of_threads_gives_the_same_trajectory(env_id, options, steps):
    one = trajectory(env_id, 1, steps, **options)
    ended = sum(len(x) for x in one[6::8] if x is not None)
    assert ended > 0  # deals finished and were dealt again on the way
    for k in (2, 4):
        other = trajectory(env_id, k, steps, **options)
        assert len(other) == len(one)
        for i, (a, b) in enumerate(zip(one, other)):
            assert same(a, b), f"{k} threads: item {i} differs"


def test_blocks_cover_the_rows_and_small_batches_stay_on_one_thread():
    threads = RowThreads(4)
    assert threads.blocks(100) == [slice(0, 100)]
    blocks = threads.blocks(10 * MIN_ROWS + 3)
    assert len(blocks) == 4 and blocks[0].start == 0 and blocks[-1].stop == 10 * MIN_ROWS + 3
    assert all(a.stop == b.start for a, b in itertools.pairwise(blocks))
    assert threads.run(lambda b: b.stop - b.start, 10 * MIN_ROWS + 3) == [b.stop - b.start for b in blocks]


def test_an_exception_in_a_block_is_raised_after_every_block_ends():
    threads = RowThreads(2)

    def fail_second(b: slice) -> None:
        if b.start > 0:
            raise RuntimeError("block failed")

    with pytest.raises(RuntimeError, match="block failed"):
        threads.run(fail_second, 4 * MIN_ROWS)


def test_num_threads_is_checked_and_none_means_every_core():
    assert resolve_threads(None) == available_cores() >= 1
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="num_threads must be a positive int"):
            tarot_env.vector.make("ottocento_v0", 8, num_threads=bad)


def test_a_threaded_vector_env_pickles_and_plays_on_the_same():
    venv = tarot_env.vector.make("french_tarot_v0", B, num_threads=2)
    out = venv.reset(seed=1)
    copy = pickle.loads(pickle.dumps(venv))
    actions = out.action_masks.argmax(axis=1)
    a, b = venv.step(actions), copy.step(actions)
    assert np.array_equal(a.observations, b.observations) and copy.threads.num_threads == 2
