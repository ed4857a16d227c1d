"""The compiled (numba) twins agree with the NumPy reference implementations.

Where numba is installed, ``tarot_env`` uses compiled versions of a few hot kernels; the
NumPy versions stay the reference. These tests compare the two on random states, so a
difference in either is caught. Without numba they check that the fallback is the reference.
"""

from __future__ import annotations

import numpy as np
import pytest

from tarot_env._jit import JIT_AVAILABLE
from tarot_env.cards.french import FRENCH_DECK
from tarot_env.encoding import _french_kernel
from tarot_env.encoding.french import FrenchTarotEncoder
from tarot_env.rules import tricks
from tarot_env.rules.french import FrenchTarotConfig, FrenchTarotGame, Phase


def test_jit_is_used_when_numba_is_installed():
    """With numba the kernels are compiled; without it they are None and NumPy runs."""
    assert (tricks._legal_kernel is not None) == JIT_AVAILABLE
    assert (tricks._play_kernel is not None) == JIT_AVAILABLE
    assert (_french_kernel.encode_kernel is not None) == JIT_AVAILABLE


@pytest.mark.parametrize("must_overtrump", [True, False])
def test_legal_plays_twin_matches_numpy(must_overtrump):
    """Random hands and trick states (any suit led, any top trump): same legal cards."""
    t = tricks.TrickTables.for_deck(FRENCH_DECK, must_overtrump=must_overtrump)
    rng = np.random.default_rng(1)
    for _ in range(400):
        R = 16
        hands = rng.random((R, 78)) < rng.random() * 0.4
        lead = rng.integers(-1, 5, R)
        top = np.where(rng.random(R) < 0.5, 0, rng.integers(101, 122, R))
        expected = tricks.legal_plays_numpy(t, hands, lead, top)
        np.testing.assert_array_equal(tricks.legal_plays(t, hands, lead, top), expected)
    # the test can fail: the reference does depend on the overtrump duty
    hand = np.zeros((1, 78), bool)
    hand[0, [FRENCH_DECK.parse("T5"), FRENCH_DECK.parse("T12")]] = True
    legal = tricks.legal_plays(t, hand, np.array([4]), np.array([109]))[0]
    assert legal[FRENCH_DECK.parse("T5")] == (not must_overtrump)


@pytest.mark.parametrize("ties_to_later", [True, False])
def test_play_card_twin_matches_numpy(ties_to_later):
    t = tricks.TrickTables.for_deck(FRENCH_DECK, must_overtrump=True, ties_to_later=ties_to_later)
    rng = np.random.default_rng(2)
    for _ in range(400):
        R = 16
        args = (
            rng.integers(0, 78, R),
            rng.integers(0, 4, R),
            rng.integers(-1, 5, R),
            np.where(rng.random(R) < 0.5, 0, rng.integers(101, 122, R)),
            rng.integers(-1, 122, R),
            rng.integers(-1, 4, R),
        )
        for got, want in zip(tricks.play_card(t, *args), tricks.play_card_numpy(t, *args)):
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_encoder_twin_matches_numpy(num_players):
    """Every observation of every seat, at every step of random deals, is the same."""
    game = FrenchTarotGame(FrenchTarotConfig(num_players=num_players))
    enc = FrenchTarotEncoder(game)
    B = 64
    s = game.new_state(B)
    rng = np.random.default_rng(num_players)
    game.shuffle_and_deal(s, np.arange(B), rng.integers(0, num_players, B), rng)
    rows = np.arange(B)
    while (s.phase != Phase.DONE).any():
        for v in range(num_players):
            viewers = np.full(B, v)
            np.testing.assert_array_equal(enc.encode(s, rows, viewers), enc.encode_numpy(s, rows, viewers))
        live = np.flatnonzero(s.phase != Phase.DONE)
        mask = game.legal_action_mask(s, live)
        game.step(s, (rng.random(mask.shape) * mask).argmax(axis=1), live)
