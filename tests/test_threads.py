"""The vector envs on several threads (``num_threads``): the same results for every number of threads.

Same seed, same actions (random legal ones drawn from one generator), for K = 1, 2 and 4 threads:
the observations, masks, players, rewards, terminations, the finished deals' scores, records and
final observations, the hands that ended (Tarocchino: with their scoring details) and the final
state are identical.
The batch (1,100 tables) gives every thread of numba's pool many rows.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import tarot_env.vector
from tarot_env._threads import KernelThreads, available_cores, resolve_threads

B = 1100


def trajectory(env_id: str, num_threads: int, steps: int, **options) -> list:
    venv = tarot_env.vector.make(env_id, B, num_threads=num_threads, records=True, **options)
    out = venv.reset(seed=3)
    rng = np.random.default_rng(0)
    seen = [out.observations.copy()]
    for _ in range(steps):
        actions = (rng.random(out.action_masks.shape) * out.action_masks).argmax(axis=1)
        out = venv.step(actions)
        seen += [out.observations.copy(), out.action_masks.copy(), out.players.copy(), out.rewards.copy(), out.terminations.copy()]
        seen += [out.infos["ended"].copy(), out.infos.get("scores"), out.infos.get("records"), out.infos.get("final_observations")]
        seen.append([(h.row, h.result, list(h.scores), h.info, h.match_over) for h in out.infos.get("hands", [])])
    seen.append({k: v.copy() for k, v in venv.game_state.blocks.items()})
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
     ("millone_v0", {"episode": "match"}, 150), ("mattazza_v0", {"num_players": 5}, 120), ("terziglio_v0", {}, 120)],
)  # fmt: skip
def test_every_number_of_threads_gives_the_same_trajectory(env_id, options, steps):
    one = trajectory(env_id, 1, steps, **options)
    ended = sum(len(x) for x in one[6::10] if x is not None)
    assert ended > 0  # deals finished and were dealt again on the way
    for k in (2, 4):
        other = trajectory(env_id, k, steps, **options)
        assert len(other) == len(one)
        for i, (a, b) in enumerate(zip(one, other)):
            assert same(a, b), f"{k} threads: item {i} differs"


def test_the_kernels_run_on_the_threads_asked_for_and_numbas_setting_is_put_back():
    import numba

    from tarot_env.encoding import french as french_encoding

    before = numba.get_num_threads()
    seen = []
    kernel = french_encoding.encode_rows_parallel

    def spy(*args):  # the parallel variant runs, with numba's thread count set to the env's
        seen.append(numba.get_num_threads())
        return kernel(*args)

    french_encoding.encode_rows_parallel = spy
    try:
        venv = tarot_env.vector.make("french_tarot_v0", 64, num_threads=2)
        venv.reset(seed=0)
    finally:
        french_encoding.encode_rows_parallel = kernel
    assert seen == [min(2, numba.config.NUMBA_NUM_THREADS)]
    assert numba.get_num_threads() == before
    one = KernelThreads(1)
    assert not one.parallel
    with KernelThreads(10**6):  # more than numba's pool: its every thread
        assert numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS
    assert numba.get_num_threads() == before


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
