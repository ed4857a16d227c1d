"""The Tarocchino engine against the shared building blocks, and the docs against the code.

- The engine's trick play (legal cards, the trick's winner) equals the NumPy trick mechanics
  of the test oracle ``tests/oracles/tricks.py`` with the Bolognese settings (§4.2–4.3: no duty to
  over-trump, the last Moro played wins), over many random deals.
- The cards a declaration shows (``combination_cards``) are worth exactly the declared value.
- ``docs/tarocchino.md`` prints the observation layout and every option from the code.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.tricks import TrickTables, legal_plays, play_card

import tarot_env
from tarot_env.cards.bolognese import BOLOGNESE_DECK, NUM_CARDS
from tarot_env.encoding.bolognese import layout, layout_table, oracle_layout
from tarot_env.rules.bolognese.combinations import combination_cards, combination_points
from tarot_env.rules.bolognese.config import OPTIONS, option_names
from tarot_env.rules.bolognese.deal import GAMES
from tarot_env.rules.bolognese.state import AB_PLAY, HAND_OF, LEAD_SUIT, PH_PLAY, PHASE, PL_HAND, PLACE, TRICK_NO

DOCS = Path(__file__).resolve().parents[1] / "docs"
TABLES = TrickTables.for_deck(BOLOGNESE_DECK, must_overtrump=False, ties_to_later=True)
ENV_CONFIGS = [("ottocento_v0", {}), ("terziglio_v0", {}), ("millone_v0", {}), ("centocinquanta_v0", {})] + [
    ("mattazza_v0", {"num_players": n}) for n in (3, 4, 5, 6)
]


@pytest.mark.parametrize(("env_id", "config"), ENV_CONFIGS)
def test_engine_tricks_equal_the_shared_trick_mechanics(env_id, config):
    """Every legal-card mask and every trick winner of random games equals tests/oracles/tricks.py's."""
    env = tarot_env.make(env_id, **config).unwrapped
    rng = np.random.default_rng(7)
    tricks_checked = 0
    for episode in range(25):
        env.reset(seed=episode)
        trick: list[tuple[int, int]] = []  # (seat, card) of the trick in progress
        lead, top, best_key, best_seat = np.array([-1]), np.array([0]), np.array([-1]), np.array([-1])
        while not env.game_over:
            s = env.game_state
            p = int(s.current[0])
            if int(s.ints[0, PHASE]) == PH_PLAY:
                hand = (s.cards[0, HAND_OF] == p) & (s.cards[0, PLACE] == PL_HAND)
                assert int(s.ints[0, LEAD_SUIT]) == int(lead[0])
                expected = legal_plays(TABLES, hand[None], lead, top)[0]
                np.testing.assert_array_equal(env.legal_mask()[AB_PLAY : AB_PLAY + NUM_CARDS], expected)
                a = int(rng.choice(env.legal_actions()))
                c = a - AB_PLAY
                lead, top, best_key, best_seat = play_card(TABLES, np.array([c]), np.array([p]), lead, top, best_key, best_seat)
                trick.append((p, c))
                before = int(s.ints[0, TRICK_NO])
                env.step(a)
                if int(env.game_state.ints[0, TRICK_NO]) != before or env.game_over:
                    winner = int(env.game_state.hist[0, before])
                    assert winner == int(best_seat[0]), (trick, winner, best_seat)
                    tricks_checked += 1
                    trick = []
                    lead, top, best_key, best_seat = np.array([-1]), np.array([0]), np.array([-1]), np.array([-1])
            else:
                env.step(int(rng.choice(env.legal_actions())))
    assert tricks_checked > 100


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.15, 0.7), st.sampled_from(["both", "grande", "mori", "best"]))
def test_shown_cards_are_worth_the_declaration(seed, density, mori):
    """§7: the cards a declaration shows are its combinations: they alone score the declared value,
    and they are cards of the hand."""
    hands = np.random.default_rng(seed).random((200, NUM_CARDS)) < density
    shown = combination_cards(hands, mori=mori)
    assert not np.any(shown & ~hands)
    np.testing.assert_array_equal(combination_points(shown, mori=mori), combination_points(hands, mori=mori))
    nothing = combination_points(hands, mori=mori) == 0
    assert not np.any(shown[nothing])


def test_tv9_shows_the_declared_combinations():
    """TV9: KS KC KB QS NS JS AS MAT ANG MON SOL T16 6C 7D 8B declares 80 and shows all but 6C 7D 8B."""
    hand = np.zeros(NUM_CARDS, dtype=bool)
    for c in ["KS", "KC", "KB", "QS", "NS", "JS", "AS", "MAT", "ANG", "MON", "SOL", "T16", "6C", "7D", "8B"]:
        hand[BOLOGNESE_DECK.parse(c)] = True
    shown = {BOLOGNESE_DECK.names[c] for c in np.flatnonzero(combination_cards(hand))}
    assert shown == set(["KS", "KC", "KB", "QS", "NS", "JS", "AS", "MAT", "ANG", "MON", "SOL", "T16"])
    assert combination_points(hand) == 80


@pytest.mark.parametrize("n", [4])
def test_docs_print_the_observation_layout(n):
    text = (DOCS / "tarocchino.md").read_text()
    assert layout_table(n) in text
    assert layout_table(n, oracle=True) in text
    for k in (2, 3, 4, 5, 6):
        assert f"{k} players: {sum(f.length for f in layout(k))}" in text


def test_layouts_are_contiguous():
    for k in (2, 3, 4, 5, 6):
        for fields in (layout(k), oracle_layout(k)):
            offset = 0
            for f in fields:
                assert f.offset == offset
                offset += f.length


def test_every_option_is_documented_and_belongs_to_a_game():
    text = (DOCS / "tarocchino.md").read_text()
    for name, opt in OPTIONS.items():
        assert f"| `{name}` |" in text, name
        assert opt.games and opt.games <= set(GAMES)
    for game in GAMES:
        assert option_names(game)


def test_claim_windows_equal_the_batch_statement_of_section_8_4():
    """The engine's claim windows (claims._claim_offer) give the values and verdicts of
    tests/oracles/tarocchino_claims.ottocento_claims, the batch statement of §8.4 (steps 1-5, U8, U23), over random
    hands with random running totals. ``wrong_claim="loses"`` opens every window, so each
    step is seen; step 3 (the Primo's partner) is compared where the Primo declared what he
    held (the batch function takes one declaration per seat)."""
    from oracles.tarocchino_claims import ottocento_claims

    from tarot_env.rules.bolognese.state import CLAIM_DECL, CLAIM_OK, CLAIM_VALUE, DECL, DECLARED, PH_CLAIM, PICKUP_DECL, PRIMO

    rng = np.random.default_rng(11)
    seen = np.zeros(5, dtype=int)
    for episode in range(120):
        env = tarot_env.make("ottocento_v0", wrong_claim="loses").unwrapped
        tot = [int(x) for x in rng.integers(0, 800, size=2)]
        env.reset(seed=episode, options={"totals": [tot[0], tot[1], tot[0], tot[1]]})
        while not env.game_over:
            s = env.game_state
            if int(s.ints[0, PHASE]) == PH_CLAIM:
                d, p = int(s.dealer[0]), int(s.current[0])
                first_turn = int(s.ints[0, PRIMO]) >= 0
                step = 0 if not first_turn else {1: 1, 2: 2, 3: 3, 0: 4}[(p - d) % 4]
                dec = s.seat_ints[0, :, CLAIM_DECL].copy() if first_turn else np.zeros(4, dtype=np.int64)
                primo = (d + 1) % 4
                if step == 3:  # the Primo's partner adds the Primo's declared value
                    if s.seat_ints[0, primo, DECLARED] != s.seat_ints[0, primo, DECL]:
                        env.step("no_claim")
                        continue
                    dec[primo] = s.seat_ints[0, primo, DECLARED]
                claims = ottocento_claims(np.array([tot]), np.array([d]), s.ints[0:1, PICKUP_DECL], dec[None])
                assert int(s.ints[0, CLAIM_VALUE]) == int(claims.value[0, step]), (step, claims.value)
                assert bool(s.ints[0, CLAIM_OK]) == bool(claims.allowed[0, step])
                seen[step] += 1
                env.step("no_claim")
            else:
                env.step(int(rng.choice(env.legal_actions())))
    assert np.all(seen > 20), seen


def test_state_fields_are_named_columns_and_views():
    """Every field of the Tarocchino state's tables has its column constant (the name in capitals)
    and a view under its name into its block, and keeps both through a pickle and a deep copy;
    the engine's modules state no sentinel as a bare number (docs/design.md, state.py)."""
    import copy
    import pickle
    import re

    from tarot_env.rules.bolognese import state as S

    s = S.TarocchinoState.new(3, 4)
    for block, fields in S.BLOCK_FIELDS.items():
        k = 0
        for f in fields:
            assert getattr(S, f.name.upper()) == S.COLUMN[f.name] == k, f.name
            k += f.width
            for copied in (s, pickle.loads(pickle.dumps(s)), copy.deepcopy(s)):
                view = getattr(copied, f.name)
                assert np.shares_memory(view, getattr(copied, block)), f.name
                assert np.all(view == f.initial), f.name
        assert getattr(s, block).shape[-1 if block != "cards" else 1] == k == S.WIDTH[block]
    assert s.trick_cards.shape == (3, S.MAX_PLAYERS)
    s.dealer[1] = 2
    assert s.ints[1, S.DEALER] == 2 and np.array_equal(s.totals, s.total) and np.array_equal(s.scores, s.score)
    with pytest.raises(AttributeError):
        s.phase = np.zeros(3, dtype=np.int64)
    root = Path(__file__).resolve().parents[1] / "tarot_env" / "rules" / "bolognese"
    for name in ("engine", "auction", "claims", "discards", "matto", "seats", "tricks"):
        code = (root / f"{name}.py").read_text()
        assert not re.search(r"(?<![\w.])(101|-2)\b", code), name  # MORO_STRENGTH, MATTO_EXCHANGED


def test_kernel_caches_are_stamped_with_the_sources_they_are_built_from():
    """A compiled kernel holds the code of the phase modules it calls and the constants of
    state.py: its disk cache must go stale when any of those changes, not only its own file
    (tarot_env/_jit.py)."""
    from tarot_env import _jit
    from tarot_env.rules.bolognese import engine

    if not _jit.JIT_AVAILABLE:
        pytest.skip("the compiled path is off")
    assert _jit._FunctionCache is not None, "numba's caching internals changed: kernels fall back to numba's own stamp"
    cache = engine.step_rows._cache
    assert isinstance(cache, _jit._FunctionCache)
    assert cache._impl.locator.get_source_stamp()[1] == _jit._sources_digest()
