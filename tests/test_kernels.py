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
from tarot_env.cards.french import CALLABLE
from tarot_env.encoding import _french_kernel
from tarot_env.encoding.french import FrenchTarotEncoder
from tarot_env.rules.french import FrenchTarotConfig, FrenchTarotGame, Phase, _play_kernel, play


def test_jit_is_used_when_numba_is_installed():
    """With numba the kernels are compiled; without it they are None and NumPy runs."""
    assert (_french_kernel.encode_kernel is not None) == JIT_AVAILABLE
    assert (_play_kernel.play_cards_kernel is not None) == JIT_AVAILABLE
    assert FrenchTarotGame().use_jit == JIT_AVAILABLE
    assert not FrenchTarotGame(use_jit=False).use_jit


@pytest.mark.skipif(not JIT_AVAILABLE, reason="numba is not installed: only the NumPy path exists")
def test_play_mask_twin_matches_numpy():
    """The compiled legal-card mask equals the NumPy one (tricks.legal_plays and §10) on
    random hands and trick states, including 5-player opening leads."""
    rng = np.random.default_rng(1)
    for num_players in (4, 5):
        for options in ({}, {"excuse_opening_lead": "lapses", "called_suit_only_hand": "excuse_if_held"}):
            game = FrenchTarotGame(FrenchTarotConfig(num_players=num_players, **options), use_jit=True)
            B = 64
            s = game.new_state(B)
            for _ in range(50):
                s.hands[:] = rng.random(s.hands.shape) < rng.random() * 0.4
                s.current[:] = rng.integers(0, num_players, B)
                s.lead_suit[:] = rng.integers(-1, 5, B)
                s.top_trump[:] = np.where(rng.random(B) < 0.5, 0, rng.integers(101, 122, B))
                s.trick_no[:] = rng.integers(0, 2, B)
                s.trick_size[:] = rng.integers(0, 2, B)
                s.called[:] = rng.choice(CALLABLE, B)
                rows = np.arange(B)
                np.testing.assert_array_equal(play.play_mask(game, s, rows), play.play_mask_numpy(game, s, rows))


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


def test_french_card_ids_are_ranges_as_the_kernels_assume():
    """The compiled twins read suits and trumps as id ranges (14 cards a suit, the trumps from
    the Petit in rising order, then the Excuse): if cards/french.py changed that, this fails."""
    from tarot_env.cards.french import EXCUSE, FRENCH_DECK, PETIT, RANKS

    size = len(RANKS)
    for s in range(4):
        assert (FRENCH_DECK.suit[s * size : (s + 1) * size] == s).all()
    trumps = np.flatnonzero(FRENCH_DECK.suit == 4)
    assert trumps.tolist() == list(range(PETIT, PETIT + 21))
    assert (np.diff(FRENCH_DECK.strength[trumps]) > 0).all()
    assert EXCUSE == PETIT + 21 == FRENCH_DECK.size - 1
