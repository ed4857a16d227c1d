"""The vector benchmark measures tables spread over a deal, as a long training run has them.

After ``reset`` every table deals at once and, every deal having about as many decisions, the
tables stay in step: most steps are then pure card play. ``stagger`` (experiments/benchmark.py)
lets each table play a random number of decisions alone first; these tests check that the tables
end up in different phases and tricks, that the result is a full-batch step, and that it is
reproducible.
"""

from __future__ import annotations

import numpy as np
import pytest
from tarot_env.experiments.benchmark import stagger

import tarot_env.vector
from tarot_env.rules.bolognese.state import PHASE, TRICK_NO

B = 256


def spread(env_id: str, **options) -> tuple:
    venv = tarot_env.vector.make(env_id, B, **options)
    out = stagger(venv, venv.reset(seed=1), span=100, seed=4)
    return venv, out


def phases_and_tricks(venv) -> tuple[np.ndarray, np.ndarray]:
    s = venv.game_state
    if venv.env_id == "french_tarot_v0":
        return s.phase.copy(), s.trick_no.copy()
    return s.ints[:, PHASE].copy(), s.ints[:, TRICK_NO].copy()


@pytest.mark.parametrize(("env_id", "options"), [("french_tarot_v0", {"num_players": 4}), ("ottocento_v0", {})])
def test_the_tables_end_up_spread_over_the_deal(env_id, options):
    venv, out = spread(env_id, **options)
    phases, tricks = phases_and_tricks(venv)
    assert len(np.unique(tricks)) >= 10  # tables in many different tricks
    assert len(np.unique(phases)) >= 2  # and not all in the same phase
    assert out.observations.shape == (B, venv.observation_size)
    assert out.action_masks.shape == (B, venv.num_actions)
    assert out.action_masks.any(axis=1).all()  # every table has a decision to make


def test_staggering_is_reproducible():
    a, out_a = spread("french_tarot_v0", num_players=4)
    b, out_b = spread("french_tarot_v0", num_players=4)
    assert np.array_equal(out_a.observations, out_b.observations)
    assert np.array_equal(a.game_state.hands, b.game_state.hands)
