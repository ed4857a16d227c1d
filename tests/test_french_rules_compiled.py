"""The compiled French Tarot bot (agents/french_rules.py) decides exactly as the NumPy bot it replaced.

The bot's strategy was rewritten as row functions that numba compiles (the same functions run as
plain Python under ``TAROT_ENV_JIT=0``). The bot as it was before is kept verbatim as a test
oracle, ``tests/oracles/french_rules_bot.py``. Here thousands of deals of 3, 4 and 5 players, under
several rules options, are played by tables that mix the bot and a random agent (so that the
states are varied: strange bids, discards and leads the bot would not make itself), and at every
decision of every table the compiled bot's batch answer is compared with the oracle's answer
for that row. The batch call is also compared with row-by-row calls, and the errors checked.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_setup import make_deal
from oracles.french_rules_bot import decide as oracle_decide
from tarot_env.agents import french_rules
from tarot_env.agents.french_rules import FrenchRuleAgent
from tarot_env.agents.random_agent import RandomAgent

import tarot_env.vector
from tarot_env._jit import JIT_AVAILABLE
from tarot_env.cards.french import FRENCH_DECK, IS_TRUMP, NUM_CARDS, PETIT
from tarot_env.encoding.french import layout
from tarot_env.rules.french import actions as A
from tarot_env.vector import VectorStep

#: player counts and rules options: the defaults, and options that open other decisions (the
#: poignée's trumps shown one by one, the chelem before the écart, the 5-player variants)
SETTINGS = [
    (3, {}),
    (3, {"poignee_trumps": "choose", "chelem_announcement": "before_ecart"}),
    (4, {}),
    (4, {"poignee_trumps": "choose", "excuse_last_trick": "trick_winner"}),
    (5, {}),
    (5, {"poignee_trumps": "choose", "jack_call": "all_queens", "excuse_opening_lead": "lapses"}),
    (5, {"called_suit_only_hand": "excuse_if_held", "chelem_announcement": "before_ecart"}),
]
#: played deals per setting (7 settings: 2,380 in all); the plain-Python path (TAROT_ENV_JIT=0),
#: tens of times slower, plays a sample
DEALS, TABLES = (340, 64) if JIT_AVAILABLE else (12, 8)


#: the decision an action answers, by action id (each decision has its range of ids)
DECISION = [
    "play" if a < A.DISCARD else "discard" if a < A.BID else "bid" if a < A.CALL else "call" if a < A.CHELEM
    else "chelem" if a < A.POIGNEE else "poignee" if a < A.SHOW else "show"
    for a in range(A.NUM_ACTIONS)
]  # fmt: skip


def describe(observation: np.ndarray, mask: np.ndarray, n: int) -> str:
    """A state as the bot sees it: each nonzero observation field (card fields by card name) and the legal actions."""
    names = FRENCH_DECK.names
    lines = [f"{n} players; legal: {[A.action_to_string(a) for a in np.flatnonzero(mask)]}"]
    for f in layout(n):
        values = observation[f.offset : f.offset + f.length]
        on = np.flatnonzero(values).tolist()
        if not on:
            continue
        if f.length % 78 == 0 and f.length // 78 in (1, n):
            shown = [f"{i // 78}:{names[i % 78]}" if f.length > 78 else names[i] for i in on]
        else:
            shown = on
        lines.append(f"  {f.name}: {shown}")
    return "\n".join(lines)


def bot_seats(table: int, n: int) -> np.ndarray:
    """Which seats the bot plays at a table: all, one, all but one, or none (random everywhere)."""
    kind, seat = table % 4, (table // 4) % n
    seats = np.arange(n)
    return [seats >= 0, seats == seat, seats != seat, seats < 0][kind]


def compare_step(bot, rnd, env, out: VectorStep, plays_bot, n, seen, bot_discards=False) -> VectorStep:
    """Compare the compiled bot's batch answer with the oracle's answer for every table's
    decision (failing with the first differing state), then step each table: the bot's action
    where it plays the seat to act (and, with ``bot_discards``, for every écart card), a random
    one elsewhere. Counts in ``seen``."""
    new = bot.act(out.observations, out.action_masks)
    old = np.array([oracle_decide(o, m) for o, m in zip(out.observations, out.action_masks)], dtype=np.int64)
    differ = np.flatnonzero(new != old)
    if len(differ):
        i = int(differ[0])
        pytest.fail(
            f"after {seen['decisions']} equal decisions ({seen['played']} deals played), table {i}: the compiled bot "
            f"plays {A.action_to_string(new[i])!r}, the oracle {A.action_to_string(old[i])!r} in\n"
            + describe(out.observations[i], out.action_masks[i], n)
        )
    legal = out.action_masks.sum(axis=1)
    seen["decisions"] += len(new)
    seen["choices"] += int((legal > 1).sum())
    seen["kinds"].update(DECISION[int(a)] for a in out.action_masks.argmax(axis=1)[legal > 1])
    discards = out.action_masks[:, A.DISCARD : A.BID]
    seen["trump_discards"] += int(((legal > 1) & discards.any(axis=1) & ~(discards & ~IS_TRUMP).any(axis=1)).sum())
    by_bot = plays_bot[np.arange(len(new)), out.players]
    if bot_discards:
        by_bot |= out.action_masks[:, A.DISCARD : A.BID].any(axis=1)
    out = env.step(np.where(by_bot, new, rnd.act(out.observations, out.action_masks)))
    seen["played"] += sum(result == "played" for result in out.infos.get("results", []))
    return out


def new_counts() -> dict:
    return {"decisions": 0, "choices": 0, "played": 0, "trump_discards": 0, "kinds": set()}


@pytest.mark.parametrize(("n", "options"), SETTINGS, ids=[f"{n}p-{'options' if o else 'default'}" for n, o in SETTINGS])
def test_compiled_bot_decides_as_the_oracle_at_every_decision(n, options):
    """Random deals, until :data:`DEALS` are played; every decision of every table compared."""
    env = tarot_env.vector.make("french_tarot_v0", num_envs=TABLES, num_players=n, **options)
    bot, rnd = FrenchRuleAgent(), RandomAgent(n)
    plays_bot = np.stack([bot_seats(t, n) for t in range(TABLES)])
    out = env.reset(seed=1000 * n + len(options))
    seen = new_counts()
    while seen["played"] < DEALS:
        out = compare_step(bot, rnd, env, out, plays_bot, n, seen)
    if JIT_AVAILABLE:  # every decision was compared (the sample of the Python path is too small to tell)
        assert {"play", "discard", "bid", "chelem", "poignee"} | ({"call"} if n == 5 else set()) <= seen["kinds"]
    print(f"{n} players {options}: {seen['played']} deals played, {seen['decisions']} decisions ({seen['choices']} with a choice) equal")


#: the options of the strong deals: the poignée's trumps chosen one by one, the chelem before or after the écart
STRONG_OPTIONS = [{"poignee_trumps": "choose"}, {"poignee_trumps": "choose", "chelem_announcement": "before_ecart"}]


def strong_deals(rng: np.random.Generator, n: int, tables: int) -> list[dict]:
    """Deals where one seat (table t: seat t % n) holds many trumps, often the top ones, and some
    kings: the poignées, their trumps shown one by one, chelems and trump-drawing takers that
    random deals seldom give."""
    hand_size, chien_size = {3: (24, 6), 4: (18, 6), 5: (15, 3)}[n]
    names, trumps = FRENCH_DECK.names, np.arange(PETIT, NUM_CARDS)  # the trumps and the Excuse
    kings = np.arange(4) * 14 + 13
    deals = []
    for t in range(tables):
        k = int(rng.integers(hand_size // 2, min(len(trumps), hand_size) + 1))
        among = trumps[::-1][: k + 2] if t % 2 else trumps  # half the tables: among the highest trumps
        hand = rng.choice(among, k, replace=False).tolist()
        hand += rng.permutation(kings)[: min(int(rng.integers(0, 5)), hand_size - k)].tolist()
        others = rng.permutation([c for c in range(NUM_CARDS) if c not in hand]).tolist()
        hand += [others.pop() for _ in range(hand_size - len(hand))]
        hands = [hand if s == t % n else [others.pop() for _ in range(hand_size)] for s in range(n)]
        assert len(others) == chien_size
        deals.append({"dealer": int(rng.integers(n)), "hands": [[names[c] for c in h] for h in hands], "rest": [names[c] for c in others]})
    return deals


@pytest.mark.parametrize("n", [3, 4, 5])
def test_compiled_bot_decides_as_the_oracle_with_strong_hands(n):
    """Fixed deals with one strong hand a table (:func:`strong_deals`): the poignée, show and
    chelem decisions, the attack's trump draws, and (the bot discarding for the random players
    who take a petite or a garde with them) écarts that must end in trumps; every decision of
    the deal compared."""
    rounds = 4 if JIT_AVAILABLE else 1
    for r, options in enumerate(STRONG_OPTIONS * rounds):
        rng = np.random.default_rng(100 * n + r)
        env = tarot_env.vector.make("french_tarot_v0", num_envs=TABLES, num_players=n, **options)
        bot, rnd = FrenchRuleAgent(), RandomAgent(r)
        plays_bot = np.stack([bot_seats(t + r, n) for t in range(TABLES)])
        out = env.reset(seed=r, options={"deals": strong_deals(rng, n, TABLES)})
        seen, ended = new_counts(), np.zeros(TABLES, dtype=bool)
        while not ended.all():  # until each table has played its strong deal
            out = compare_step(bot, rnd, env, out, plays_bot, n, seen, bot_discards=True)
            ended[out.infos["ended"]] = True
        assert {"play", "bid", "poignee", "show"} <= seen["kinds"] or not JIT_AVAILABLE
        print(f"{n} players, strong hands {options}: {seen['played']} deals played, {seen['decisions']} decisions "
              f"({seen['choices']} with a choice, {seen['trump_discards']} écarts of trumps only) equal")  # fmt: skip


#: a taker's hand and chien with fewer plain cards to discard than the écart takes, by player count
FORCED_ECART = {
    3: ("T1..T19 KS KH KD KC EX", "1S 2S 3S 4S T20 T21"),
    4: ("T1..T16 KS KH", "1S 2S 3S T17 T18 T19"),
    5: ("T1..T13 KS KH", "1S T14 T15"),
}


@pytest.mark.parametrize("n", [3, 4, 5])
def test_compiled_bot_decides_as_the_oracle_when_the_ecart_takes_trumps(n):
    """A taker (made to bid a petite, the others to pass) who must put trumps in the écart once
    his plain cards are gone: the trumps-only écart decisions, then the whole deal played by the
    bot, every decision compared."""
    hand, chien = FORCED_ECART[n]
    env = tarot_env.make("french_tarot_v0", num_players=n)
    env.reset(options={"deal": make_deal(n, dealer=n - 1, fixed={0: hand}, rest=chien)})
    bot, trumps_only = FrenchRuleAgent(), 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        o, m = obs["observation"], obs["action_mask"].astype(bool)
        new, old = bot.act(o, m), oracle_decide(o, m)
        differ = f"the compiled bot plays {A.action_to_string(new)!r}, the oracle {A.action_to_string(old)!r} in\n"
        assert new == old, differ + describe(o, m, n)
        discards = m[A.DISCARD : A.BID]
        trumps_only += bool(discards.sum() > 1 and not (discards & ~IS_TRUMP).any())
        if m[A.BID]:  # the bidding: seat 0 takes a petite, the others pass
            new = A.BID + 1 if agent == "player_0" else A.BID
        env.step(new)
    assert trumps_only > 0


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
