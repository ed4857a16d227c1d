"""The benchmark's thread-scaling figure (experiments/benchmark.py ``thread_scaling``).

On this machine two threads run fast or slow for stretches of seconds to a minute, so the runs of
one child process are not independent and the speed-up's 95% interval resamples child processes,
not runs. These tests feed made-up results: the speed-up is the ratio of the pooled medians, busy
runs are left out, the interval holds the estimate, is reproducible, needs enough children, and
widens when the children disagree while the runs pooled are the same.
"""

from __future__ import annotations

import numpy as np
from tarot_env.experiments.benchmark import CI_MIN_CHILDREN, CLEAN_LOAD, speedup_interval, thread_scaling


def child(threads: int, speeds: list[float], loads: list[float] | None = None, batch: int = 4096) -> dict:
    """One child process's result, as the benchmark writes it."""
    return {
        "api": "vector",
        "env": "ottocento_v0",
        "config": {"num_threads": threads},
        "batch_size": batch,
        "tables": "staggered over 128 decisions",
        "env_decisions_per_second_per_run": speeds,
        "other_load_per_run": loads if loads is not None else [0.0] * len(speeds),
    }


def two_thread_row(results: list[dict]) -> dict:
    (row,) = [r for r in thread_scaling(results) if r["threads"] == 2]
    return row


def test_the_speedup_is_the_ratio_of_the_pooled_medians_of_clean_runs():
    busy = CLEAN_LOAD + 0.5
    results = [child(1, [1.0e6, 1.1e6, 0.9e6]), child(1, [1.0e6, 5.0e6], [0.0, busy]),
               child(2, [1.5e6, 1.6e6]), child(2, [1.4e6, 0.1e6], [0.0, busy])]  # fmt: skip
    row = two_thread_row(results)
    assert row["speedup"] == round(np.median([1.5e6, 1.6e6, 1.4e6]) / np.median([1.0e6, 1.1e6, 0.9e6, 1.0e6]), 3)
    assert row["runs"] == 3 and row["children"] == 2 and row["clean"]
    assert row["speedup_ci95"] is None  # two children a side: too few for an interval


def test_the_interval_holds_the_estimate_and_is_reproducible():
    rng = np.random.default_rng(1)
    results = [child(1, list(rng.normal(1.0e6, 5e4, 3))) for _ in range(6)]
    results += [child(2, list(rng.normal(1.5e6, 1e5, 3))) for _ in range(6)]
    row = two_thread_row(results)
    low, high = row["speedup_ci95"]
    assert low < row["speedup"] < high
    assert low > 1.2 and high < 1.8
    assert two_thread_row(results)["speedup_ci95"] == [low, high]
    assert row["children"] == 6 and row["runs"] == 18


def test_the_interval_resamples_children_not_runs():
    """The same 24 two-thread runs, once spread evenly over the children, once with each child
    all fast or all slow (the machine's swing): the second interval is the wider."""
    one = [[1.0e6] * 3 for _ in range(8)]
    runs = np.linspace(1.3e6, 2.0e6, 24).tolist()
    mixed = [runs[i::8] for i in range(8)]  # every child has a slow, a middling and a fast run
    by_process = [runs[3 * i : 3 * i + 3] for i in range(8)]  # each child its own speed
    assert sorted(x for c in mixed for x in c) == sorted(x for c in by_process for x in c) == runs
    even = speedup_interval(mixed, one)
    split = speedup_interval(by_process, one)
    assert even is not None and split is not None
    assert split[1] - split[0] > 2 * (even[1] - even[0])


def test_too_few_children_give_no_interval():
    children = [[1.5e6, 1.6e6]] * (CI_MIN_CHILDREN - 1)
    assert speedup_interval(children, [[1.0e6]] * 10) is None
    assert speedup_interval([[1.0e6]] * 10, children) is None
    assert speedup_interval([[1.5e6, 1.6e6]] * CI_MIN_CHILDREN, [[1.0e6]] * CI_MIN_CHILDREN) == [1.55, 1.55]
