"""The compiled French Tarot bot (agents/french_rules.py) makes the decisions recorded in ``tests/data/bot_golden.json``.

The bot's strategy was rewritten as row functions that numba compiles (the same functions run as
plain Python under ``TAROT_ENV_JIT=0``), and checked against a verbatim copy of the NumPy bot it
replaced. That copy is gone: its decisions over a fixed deal set were recorded instead
(``tests/data/make_bot_golden.py --check``, every decision equal to the copy's when the file was
written; ``tests/golden_bots.py`` plays the tables). Here the same deals are played again:
thousands of deals of 3, 4 and 5 players, under several rules options, at tables that mix the
bot and random players (so that the states are varied: strange bids, discards and leads the bot
would not make itself), and strong hands (poignées shown trump by trump, chelems, écarts of
trumps); at every decision of every table the bot's batch answer must be the recorded one. The
batch call is also compared with row-by-row calls, and the errors checked.
"""

from __future__ import annotations

import json
from pathlib import Path

import golden_bots as G
import numpy as np
import pytest
from tarot_env.agents import french_rules
from tarot_env.agents.french_rules import FrenchRuleAgent

import tarot_env.vector
from tarot_env._jit import JIT_AVAILABLE
from tarot_env.rules.french import actions as A

GOLDEN = json.loads((Path(__file__).parent / "data" / "bot_golden.json").read_text())
#: the plain-Python path (TAROT_ENV_JIT=0), tens of times slower, replays the first steps of each record
SAMPLE = None if JIT_AVAILABLE else 12


def replayed(tape: G.Tape, key: str) -> None:
    """The tape equals the record (a sample: its start)."""
    got, want = tape.golden(), GOLDEN["tables"][key]
    if SAMPLE is None:
        assert got == want, f"{key}: " + G.first_difference(got, want)
    else:
        assert G.same_start(got, want), f"{key}: " + G.first_difference(got, want)


@pytest.mark.parametrize(("n", "options"), G.FRENCH_TABLES, ids=[f"{n}p-{'options' if o else 'default'}" for n, o in G.FRENCH_TABLES])
def test_compiled_bot_makes_the_recorded_decisions(n, options):
    """Random deals, until :data:`golden_bots.FRENCH_DEALS` are played; every decision of every table compared."""
    seed = 1000 * n + len(options)
    tape = G.play_french(FrenchRuleAgent().act, n, options, seed, G.FRENCH_BATCH, deals=G.FRENCH_DEALS, max_steps=SAMPLE)
    replayed(tape, G.french_key(n, options))
    if JIT_AVAILABLE:  # every decision was compared (the sample of the Python path is too small to tell)
        assert {"play", "discard", "bid", "chelem", "poignee"} | ({"call"} if n == 5 else set()) <= tape.kinds
        assert tape.counts["played"] >= G.FRENCH_DEALS
    played = tape.counts.get("played", 0)
    print(f"{n} players {options}: {played} deals played, {tape.decisions} decisions ({tape.choices} with a choice) as recorded")


@pytest.mark.parametrize("n", [3, 4, 5])
def test_compiled_bot_makes_the_recorded_decisions_with_strong_hands(n):
    """Deals where one seat holds many trumps and some kings (:func:`golden_bots.strong_deals`): the
    poignées (their trumps chosen one by one), chelems, and (with the bot making every écart, also
    for random takers who take a petite or a garde with them) écarts that must end in trumps;
    every decision of the deal compared."""
    rounds = G.STRONG_ROUNDS if JIT_AVAILABLE else 1
    for r, options in enumerate(G.STRONG_OPTIONS * rounds):
        fixed = G.strong_deals(np.random.default_rng(100 * n + r), n, G.FRENCH_BATCH)
        tape = G.play_french(
            FrenchRuleAgent().act, n, options, r, G.FRENCH_BATCH, fixed=fixed, bot_discards=True, table_offset=r, max_steps=SAMPLE
        )
        replayed(tape, G.french_key(n, options, f"strong#{r}"))
        assert {"play", "bid", "poignee", "show"} <= tape.kinds or not JIT_AVAILABLE
        print(f"{n} players, strong hands {options}: {tape.counts.get('played', 0)} deals played, {tape.decisions} decisions "
              f"({tape.choices} with a choice, {tape.counts['trump_discards']} écarts of trumps only) as recorded")  # fmt: skip


@pytest.mark.parametrize("n", [3, 4, 5])
def test_compiled_bot_makes_the_recorded_decisions_when_the_ecart_takes_trumps(n):
    """A taker (made to bid a petite, the others to pass) who must put trumps in the écart once
    his plain cards are gone: the trumps-only écart decisions, then the whole deal played by the
    bot, every decision compared."""
    answers, trumps_only = G.play_forced_ecart(FrenchRuleAgent().act, n)
    want = GOLDEN["forced_ecart"][str(n)]
    i = next((i for i, (a, b) in enumerate(zip(answers, want)) if a != b), None)
    where = f"{len(answers)} decisions, the record has {len(want)}"
    if i is not None:
        where = f"decision {i}: the bot plays {A.action_to_string(answers[i])!r}, the record {A.action_to_string(want[i])!r}"
    assert answers == want, where
    assert trumps_only > 0


def test_the_golden_file_covers_the_tables():
    """Every table the tests replay is in the file (and nothing else)."""
    french = {G.french_key(n, o) for n, o in G.FRENCH_TABLES}
    french |= {G.french_key(n, o, f"strong#{r}") for n in (3, 4, 5) for r, o in enumerate(G.STRONG_OPTIONS * G.STRONG_ROUNDS)}
    assert french <= set(GOLDEN["tables"])
    assert sum(GOLDEN["tables"][k]["decisions"] for k in french) > 100_000
    assert set(GOLDEN["forced_ecart"]) == {"3", "4", "5"}


def test_batch_equals_single_rows_and_errors():
    """A batch call gives what one call per row gives (an int each); the errors of bad inputs."""
    bot = FrenchRuleAgent()
    for n in (3, 4, 5):
        env = tarot_env.vector.make("french_tarot_v0", num_envs=16, num_players=n, poignee_trumps="choose")
        out = env.reset(seed=n)
        for _ in range(60):
            batch = bot.act(out.observations, out.action_masks)
            assert batch.dtype == np.int64 and batch.shape == (16,)
            single = [bot.act(o, m) for o, m in zip(out.observations, out.action_masks)]
            assert all(type(a) is int for a in single)
            assert batch.tolist() == single
            assert bot.act(out.observations.astype(np.float32), out.action_masks.astype(np.int64)).tolist() == single
            out = env.step(batch)
    assert len(bot.act(out.observations[:0], out.action_masks[:0])) == 0
    obs, masks = out.observations, out.action_masks
    empty = masks.copy()
    empty[3] = False
    with pytest.raises(ValueError, match="no legal action"):
        bot.act(obs, empty)
    with pytest.raises(ValueError, match="no legal action"):
        bot.act(obs[3], empty[3])
    with pytest.raises(ValueError, match="must be"):
        bot.act(obs[:3], masks)  # fewer observations than masks
    with pytest.raises(ValueError, match="must be"):
        bot.act(obs[None], masks)  # a 3-D batch
    with pytest.raises(ValueError, match="must have"):
        bot.act(obs, masks[:, :-1])  # a mask row of the wrong length
    two = np.zeros(A.NUM_ACTIONS, dtype=bool)
    two[[A.BID, A.BID + 1]] = True
    with pytest.raises(ValueError, match="not a French Tarot observation"):
        bot.act(np.zeros(100, dtype=np.int8), two)
    one = np.zeros(A.NUM_ACTIONS, dtype=bool)
    one[A.BID] = True
    assert bot.act(np.zeros(100, dtype=np.int8), one) == A.BID  # no decision to take: the observation is not read


def test_the_bot_is_compiled_when_numba_is():
    for fn in (french_rules.act_rows, french_rules._choose_play, french_rules._hand_points):
        assert hasattr(fn, "py_func") == JIT_AVAILABLE
