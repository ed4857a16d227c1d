"""The compiled French play phase and encoder agree with the same functions run as Python.

The play phase (``rules/french/play.py``) and the observation encoder (``encoding/french.py``)
are written once, as plain loops over one row of the state's blocks; numba compiles them when
it is available. These tests run the same functions as plain Python (each compiled function's
``py_func``, helpers included: :func:`plain_python`) beside the compiled ones, over thousands
of random decisions, so that a difference made by compilation is caught. They also check the
French legal cards and trick state against the batch trick mechanics of the test oracle
``tests/oracles/tricks.py``.
Without numba (``TAROT_ENV_JIT=0``) the functions are Python already: the comparisons are
skipped, the other checks run on the Python path.
"""

from __future__ import annotations

import contextlib
import dataclasses

import numpy as np
import pytest
from helpers_setup import plain_python as python_originals
from oracles.tricks import TrickTables, legal_plays, play_card

from tarot_env._jit import JIT_AVAILABLE
from tarot_env.cards.french import CALLABLE, EXCUSE, FRENCH_DECK
from tarot_env.encoding import french as encoding
from tarot_env.encoding.french import FrenchTarotEncoder
from tarot_env.rules.french import FrenchTarotConfig, FrenchTarotGame, Phase, play, teams
from tarot_env.rules.french import actions as A

COMPILED_MODULES = (play, encoding)
NEEDS_JIT = pytest.mark.skipif(not JIT_AVAILABLE, reason="the compiled path is off: only the Python functions exist")


def plain_python():
    """Within the block, every compiled function of the French play phase and encoder is its
    Python original: the whole path runs as Python (helpers_setup.plain_python)."""
    return python_originals(*COMPILED_MODULES)


def test_jit_is_used_when_numba_is_installed():
    """With numba the row functions are compiled; without it they are the Python functions."""
    for fn in (play.apply_play, play.play_masks, play.legal_cards, play.complete_trick, encoding.encode_rows):
        assert hasattr(fn, "py_func") == JIT_AVAILABLE
    if JIT_AVAILABLE:
        with plain_python():
            assert not hasattr(play.apply_play, "py_func") and not hasattr(play._excuse_goes_home, "py_func")
            assert not hasattr(encoding.encode_rows, "py_func")
        assert hasattr(play.apply_play, "py_func")


def _random_trick_states(rng: np.random.Generator, s, num_players: int) -> None:
    B = s.batch_size
    s.hands[:] = rng.random(s.hands.shape) < rng.random() * 0.4
    s.current[:] = rng.integers(0, num_players, B)
    s.lead_suit[:] = rng.integers(-1, 5, B)
    s.top_trump[:] = np.where(rng.random(B) < 0.5, 0, rng.integers(101, 122, B))
    s.trick_no[:] = rng.integers(0, 2, B)
    s.trick_size[:] = rng.integers(0, 2, B)
    s.called[:] = rng.choice(CALLABLE, B)


@NEEDS_JIT
def test_compiled_play_mask_matches_python():
    """The compiled legal-card mask equals the Python one on random hands and trick states,
    including 5-player opening leads (§10)."""
    rng = np.random.default_rng(1)
    for num_players in (4, 5):
        for options in ({}, {"excuse_opening_lead": "lapses", "called_suit_only_hand": "excuse_if_held"}):
            game = FrenchTarotGame(FrenchTarotConfig(num_players=num_players, **options))
            s = game.new_state(64)
            rows = np.arange(64)
            for _ in range(50):
                _random_trick_states(rng, s, num_players)
                compiled = play.play_mask(game, s, rows)
                with plain_python():
                    python = play.play_mask(game, s, rows)
                np.testing.assert_array_equal(compiled, python)


def test_legal_cards_are_the_shared_duties_of_rules_tricks():
    """Away from §10's opening lead, the French legal cards are ``tricks.legal_plays`` with
    the French settings (must overtrump), on random hands and trick states."""
    tables = TrickTables.for_deck(FRENCH_DECK, must_overtrump=True)
    rng = np.random.default_rng(2)
    game = FrenchTarotGame(FrenchTarotConfig(num_players=4))
    s = game.new_state(64)
    rows = np.arange(64)
    for _ in range(100):
        _random_trick_states(rng, s, 4)
        expected = legal_plays(tables, s.hands[rows, s.current], s.lead_suit, s.top_trump)
        np.testing.assert_array_equal(play.play_mask(game, s, rows), expected)


def _random_options(rng: np.random.Generator, num_players: int) -> FrenchTarotConfig:
    """A configuration with every option that the play phase reads drawn at random."""
    return FrenchTarotConfig(
        num_players=num_players,
        excuse_last_trick=str(rng.choice(["changes_camp", "trick_winner"])),
        excuse_chelem_needs_announcement=bool(rng.integers(2)),
        excuse_chelem_defence=bool(rng.integers(2)),
        excuse_opening_lead=str(rng.choice(["next_player", "lapses"])),
        called_suit_only_hand=str(rng.choice(["lead_anything", "excuse_if_held"])),
        chelem_announcement=str(rng.choice(["after_ecart", "before_ecart"])),
        poignee_trumps=str(rng.choice(["lowest", "highest", "choose"])),
        poignee_forced_discards=bool(rng.integers(2)),
    )


def _choose(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """A random legal action per row, the Excuse played only now and then when there is a
    choice: held to the end of the deal, it meets the rules of the last trick (§6.3)."""
    weights = rng.random(mask.shape) * mask
    weights[:, A.PLAY + EXCUSE] *= 0.02
    return weights.argmax(axis=1)


@NEEDS_JIT
@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_compiled_game_matches_python_over_whole_deals(num_players):
    """Thousands of random decisions of whole deals, played by the compiled functions and by
    the same functions as Python side by side, with the same actions: every state field is
    equal after every action, and so is the observation of the player to act."""
    rng = np.random.default_rng(10 + num_players)
    decisions = 0
    for trial in range(6):
        game = FrenchTarotGame(_random_options(rng, num_players))
        encoder = FrenchTarotEncoder(game)
        B = 64
        rows = np.arange(B)
        s_jit, s_py = game.new_state(B), game.new_state(B)
        for state, context in ((s_jit, contextlib.nullcontext()), (s_py, plain_python())):
            deal_rng = np.random.default_rng(trial)
            with context:
                game.shuffle_and_deal(state, rows, deal_rng.integers(0, num_players, B), deal_rng)
        while (s_py.phase != Phase.DONE).any():
            live = np.flatnonzero(s_py.phase != Phase.DONE)
            actions = _choose(rng, s_py.legal[live])
            game.step(s_jit, actions, live)
            obs_jit = encoder.encode(s_jit, rows, s_jit.current)
            with plain_python():
                game.step(s_py, actions, live)
                obs_py = encoder.encode(s_py, rows, s_py.current)
            for field in dataclasses.fields(s_py):
                np.testing.assert_array_equal(getattr(s_jit, field.name), getattr(s_py, field.name), err_msg=field.name)
            np.testing.assert_array_equal(obs_jit, obs_py)
            decisions += len(live)
    assert decisions > 5_000


@NEEDS_JIT
@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_compiled_last_trick_matches_python(num_players):
    """The last card of random deals, compiled and as Python, after the earlier tricks' winners
    were redrawn so that the Excuse's side often won them all (the chelem Excuse, §6.3), under
    every setting of the Excuse options: every state field is equal (the deal is scored too)."""
    rng = np.random.default_rng(30 + num_players)
    game = FrenchTarotGame(FrenchTarotConfig(num_players=num_players))
    B, T = 128, game.num_tricks
    s = game.new_state(B)
    game.shuffle_and_deal(s, np.arange(B), rng.integers(0, num_players, B), rng)
    before_last: list[dict[str, np.ndarray]] = []  # the blocks of rows about to play the deal's last card
    while (s.phase != Phase.DONE).any():
        live = np.flatnonzero(s.phase != Phase.DONE)
        at_end = live[(s.phase[live] == Phase.PLAY) & (s.trick_no[live] == T - 1) & (s.trick_size[live] == num_players - 1)]
        before_last += [{k: v[r].copy() for k, v in s.blocks.items()} for r in at_end]
        game.step(s, _choose(rng, s.legal[live]), live)
    K = len(before_last)
    assert K > 50
    base = game.new_state(K)
    for name, block in base.blocks.items():
        block[:] = np.stack([row[name] for row in before_last])
    rows = np.arange(K)
    # the earlier tricks: all to the Excuse's side, all to the other side, or as played
    seats = np.arange(num_players)
    attack = teams.is_attack(seats[None, :], base.taker[:, None], base.partner[:, None])
    ex_attack = teams.is_attack(base.excuse_seat, base.taker, base.partner)
    for r in rows:
        side = rng.integers(3)
        if side < 2 and base.excuse_seat[r] >= 0:
            pick = np.flatnonzero(attack[r] == (ex_attack[r] == (side == 0)))
            base.winners[r, : T - 1] = rng.choice(pick, T - 1)
    base.chelem[:] = rng.random(K) < 0.5
    excuse_last = np.count_nonzero(base.trick_of[:, EXCUSE] == T - 1)
    assert excuse_last > 10  # the rules of the last trick were met
    for changes_camp in (True, False):
        for needs in (True, False):
            for defence in (True, False):
                config = FrenchTarotConfig(
                    num_players=num_players,
                    excuse_last_trick="changes_camp" if changes_camp else "trick_winner",
                    excuse_chelem_needs_announcement=needs,
                    excuse_chelem_defence=defence,
                )
                game = FrenchTarotGame(config)
                s_jit, s_py = base.copy(), base.copy()
                actions = s_jit.legal.argmax(axis=1)  # the one card left
                game.step(s_jit, actions, rows)
                with plain_python():
                    game.step(s_py, actions, rows)
                assert (s_py.phase == Phase.DONE).all()
                for field in dataclasses.fields(s_py):
                    np.testing.assert_array_equal(getattr(s_jit, field.name), getattr(s_py, field.name), err_msg=field.name)


@NEEDS_JIT
@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_compiled_encoder_matches_python(num_players):
    """Every observation of every seat, at every step of random deals, is the same compiled
    and as Python."""
    game = FrenchTarotGame(FrenchTarotConfig(num_players=num_players))
    enc = FrenchTarotEncoder(game)
    B = 48
    s = game.new_state(B)
    rng = np.random.default_rng(num_players)
    game.shuffle_and_deal(s, np.arange(B), rng.integers(0, num_players, B), rng)
    rows = np.arange(B)
    while (s.phase != Phase.DONE).any():
        for v in range(num_players):
            viewers = np.full(B, v)
            compiled = enc.encode(s, rows, viewers)
            with plain_python():
                python = enc.encode(s, rows, viewers)
            np.testing.assert_array_equal(compiled, python)
        live = np.flatnonzero(s.phase != Phase.DONE)
        mask = game.legal_action_mask(s, live)
        game.step(s, (rng.random(mask.shape) * mask).argmax(axis=1), live)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_trick_state_is_the_shared_mechanics_of_rules_tricks(num_players):
    """After every card of random deals that does not complete its trick, the trick state
    (suit led, highest trump, winning key and seat) is what ``tricks.play_card`` gives."""
    tables = TrickTables.for_deck(FRENCH_DECK, must_overtrump=True)
    rng = np.random.default_rng(20 + num_players)
    game = FrenchTarotGame(FrenchTarotConfig(num_players=num_players))
    B = 64
    s = game.new_state(B)
    game.shuffle_and_deal(s, np.arange(B), rng.integers(0, num_players, B), rng)
    checked = 0
    while (s.phase != Phase.DONE).any():
        live = np.flatnonzero(s.phase != Phase.DONE)
        mask = s.legal[live]
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        playing = (s.phase[live] == Phase.PLAY) & (s.trick_size[live] < num_players - 1)
        r, card = live[playing], actions[playing]  # the play span starts at action 0
        expected = play_card(tables, card, s.current[r], s.lead_suit[r], s.top_trump[r], s.best_key[r], s.best_seat[r])
        game.step(s, actions, live)
        for want, got in zip(expected, (s.lead_suit[r], s.top_trump[r], s.best_key[r], s.best_seat[r])):
            np.testing.assert_array_equal(got, want)
        checked += len(r)
    assert checked > 1_000


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
def test_state_legal_is_the_legal_action_mask(compiled):
    """The mask kept in the state by start_deals and step equals the one computed afresh,
    at every step of random deals, for every player count (mixed phases in one batch)."""
    if compiled and not JIT_AVAILABLE:
        pytest.skip("the compiled path is off")
    with contextlib.nullcontext() if compiled else plain_python():
        for num_players in (3, 4, 5):
            game = FrenchTarotGame(FrenchTarotConfig(num_players=num_players, poignee_trumps="choose"))
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
    """The play phase and the encoder read suits and trumps as id ranges (14 cards a suit, the
    trumps from the Petit in rising order, then the Excuse): if cards/french.py changed that,
    this fails."""
    from tarot_env.cards.french import PETIT, RANKS

    size = len(RANKS)
    for s in range(4):
        assert (FRENCH_DECK.suit[s * size : (s + 1) * size] == s).all()
    trumps = np.flatnonzero(FRENCH_DECK.suit == 4)
    assert trumps.tolist() == list(range(PETIT, PETIT + 21))
    assert (np.diff(FRENCH_DECK.strength[trumps]) > 0).all()
    assert EXCUSE == PETIT + 21 == FRENCH_DECK.size - 1


def test_rows_grouped_by_phase_are_the_rows_of_each_phase_in_order():
    """The step's grouping of rows by phase (``FrenchTarotGame._by_phase``, one counting sort,
    :func:`group_by_phase`) yields, for each phase present other than DONE and in phase order,
    exactly the positions in that phase, ascending; a single row comes as a slice."""
    from tarot_env.rules.french.game import group_by_phase

    rng = np.random.default_rng(5)
    for size in (0, 2, 3, 50, 1000):
        for _ in range(20):
            present = rng.choice(Phase.count(), size=int(rng.integers(1, Phase.count() + 1)), replace=False)
            phases = rng.choice(present, size=size).astype(np.int64)  # as the state holds it
            got = list(FrenchTarotGame._by_phase(phases))
            want = [(p, np.flatnonzero(phases == p)) for p in range(Phase.count()) if p != Phase.DONE and (phases == p).any()]
            assert [p for p, _ in got] == [p for p, _ in want]
            for (_, idx), (_, expected) in zip(got, want):
                np.testing.assert_array_equal(idx, expected)
            order, starts = group_by_phase(phases, Phase.count())
            assert starts[0] == 0 and starts[-1] == size and sorted(order.tolist()) == list(range(size))
    assert list(FrenchTarotGame._by_phase(np.array([Phase.PLAY]))) == [(Phase.PLAY, slice(None))]
    assert list(FrenchTarotGame._by_phase(np.array([Phase.DONE]))) == []
