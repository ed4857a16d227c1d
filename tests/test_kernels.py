"""The compiled (numba) twins agree with the NumPy reference implementations.

Where numba is installed, ``tarot_env`` uses compiled versions of a few hot kernels; the
NumPy versions stay the reference. These tests compare the two on random states, so a
difference in either is caught. Without numba they check that the fallback is the reference.
"""

from __future__ import annotations

import dataclasses

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


def _random_options(rng: np.random.Generator, num_players: int) -> FrenchTarotConfig:
    """A configuration with every option that the play kernels read drawn at random."""
    return FrenchTarotConfig(
        num_players=num_players,
        excuse_last_trick=str(rng.choice(["changes_camp", "trick_winner"])),
        excuse_chelem_needs_announcement=bool(rng.integers(2)),
        excuse_chelem_defence=bool(rng.integers(2)),
        excuse_opening_lead=str(rng.choice(["next_player", "lapses"])),
        called_suit_only_hand=str(rng.choice(["lead_anything", "excuse_if_held"])),
        chelem_announcement=str(rng.choice(["after_ecart", "before_ecart"])),
    )


@pytest.mark.skipif(not JIT_AVAILABLE, reason="numba is not installed: only the NumPy path exists")
@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_compiled_play_phase_matches_numpy_over_whole_deals(num_players):
    """Thousands of random deals played by the compiled and the NumPy game side by side,
    with the same actions: every state field is equal after every action."""
    rng = np.random.default_rng(10 + num_players)
    for trial in range(8):
        config = _random_options(rng, num_players)
        jit, ref = FrenchTarotGame(config, use_jit=True), FrenchTarotGame(config, use_jit=False)
        assert jit.use_jit and not ref.use_jit
        B = 128
        s_jit, s_ref = jit.new_state(B), ref.new_state(B)
        for game, state in ((jit, s_jit), (ref, s_ref)):
            deal_rng = np.random.default_rng(trial)
            game.shuffle_and_deal(state, np.arange(B), deal_rng.integers(0, num_players, B), deal_rng)
        while (s_ref.phase != Phase.DONE).any():
            live = np.flatnonzero(s_ref.phase != Phase.DONE)
            mask = s_ref.legal[live]
            actions = (rng.random(mask.shape) * mask).argmax(axis=1)
            jit.step(s_jit, actions, live)
            ref.step(s_ref, actions, live)
            for field in dataclasses.fields(s_ref):
                np.testing.assert_array_equal(getattr(s_jit, field.name), getattr(s_ref, field.name), err_msg=field.name)


@pytest.mark.parametrize("use_jit", [True, False])
def test_state_legal_is_the_legal_action_mask(use_jit):
    """The mask kept in the state by start_deal and step equals the one computed afresh,
    at every step of random deals, for every player count (mixed phases in one batch)."""
    for num_players in (3, 4, 5):
        game = FrenchTarotGame(FrenchTarotConfig(num_players=num_players, poignee_trumps="choose"), use_jit=use_jit)
        B = 96
        s = game.new_state(B)
        rng = np.random.default_rng(num_players)
        game.shuffle_and_deal(s, np.arange(B), rng.integers(0, num_players, B), rng)
        steps = 0
        while (s.phase != Phase.DONE).any():
            np.testing.assert_array_equal(s.legal, game.legal_action_mask(s))
            live = np.flatnonzero(s.phase != Phase.DONE)
            mask = s.legal[live]
            game.step(s, (rng.random(mask.shape) * mask).argmax(axis=1), live)
            steps += 1
        np.testing.assert_array_equal(s.legal, game.legal_action_mask(s))
        assert not s.legal.any() and steps > 80
