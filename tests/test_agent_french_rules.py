"""The rule-based French Tarot bot (agents/french_rules.py): legal, deterministic, sensible, stronger than random.

- Legality: the bot answers every decision of whole deals (3, 4, 5 players, several rules
  options, all seats or some seats, fixed deals that reach the poignée, show and chelem
  decisions) with an action of its mask.
- Interface: a batch gives what row-by-row calls give; the action depends only on
  ``(observation, mask)`` (same inputs, same output, whatever came before; inputs unchanged).
- Heuristics, on fixed deals: bids with a strong hand and passes with a weak one, never
  under the highest bid; calls a king it lacks; voids a short suit in the écart; follows
  with its lowest card when it cannot win; smears a king onto a partner's sure trick; wins
  with the Petit when it plays last; announces a chelem and a poignée with an overwhelming
  hand; never keeps the Excuse for the last trick.
- Strength: over 400 four-player deals, the bot's seat scores far more than random seats.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_setup import make_deal
from tarot_env.agents.french_rules import FrenchRuleAgent, num_players_of
from tarot_env.agents.random_agent import RandomAgent

import tarot_env
import tarot_env.vector
from tarot_env.encoding.french import layout
from tarot_env.rules.french import actions as A
from tarot_env.rules.french.state import Phase

KINDS = [(A.PLAY, "play"), (A.DISCARD, "discard"), (A.BID, "bid"), (A.CALL, "call"), (A.CHELEM, "chelem"), (A.POIGNEE, "poignee")]


def kind(action: int) -> str:
    """The decision an action answers."""
    if action >= A.SHOW:
        return "show"
    return next(name for start, name in reversed(KINDS) if action >= start)


def play_deal(env, bot, bot_seats, other=None, seen=None, pairs=None, reset=None) -> dict:
    """Play one deal to the end; the bot plays ``bot_seats`` (checked legal), ``other`` the rest.

    Returns the final info; ``seen`` counts the bot's decisions by kind, ``pairs`` collects its
    ``(observation, mask, action)``."""
    env.reset(**(reset or {}))
    last = {}
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            last = info
            env.step(None)
            continue
        seat = int(agent.split("_")[1])
        mask = obs["action_mask"].astype(bool)
        if seat in bot_seats:
            action = bot.act(obs["observation"], mask)
            assert isinstance(action, int) and mask[action], f"illegal {env.unwrapped.action_to_string(action)!r}"
            if seen is not None:
                seen[kind(action)] = seen.get(kind(action), 0) + 1
            if pairs is not None:
                pairs.append((obs["observation"].copy(), mask.copy(), action))
        else:
            action = int(other.act(obs["observation"], mask))
        env.step(action)
    return last


def bot_action(env, bot=None) -> str:
    """The bot's answer to the current decision, as a string (checked legal)."""
    obs, _, _, _, _ = env.last()
    mask = obs["action_mask"].astype(bool)
    action = (bot or FrenchRuleAgent()).act(obs["observation"], mask)
    assert mask[action]
    return env.unwrapped.action_to_string(action)


def start(n: int, deal: dict, *actions: str, **options):
    env = tarot_env.make("french_tarot_v0", num_players=n, **options)
    env.reset(options={"deal": deal})
    for a in actions:
        env.step(a)
    return env


# A hand that takes every trick: 14 trumps from the 21 down and the four kings (4 players).
CHELEM_HAND = "T8..T21 KS KH KD KC"


# ---------------------------------------------------------------------------------------------
# Legality and interface
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize(
    "options",
    [{}, {"poignee_trumps": "choose"}, {"chelem_announcement": "before_ecart", "excuse_last_trick": "trick_winner"}],
    ids=["default", "choose", "before_ecart"],
)
def test_legal_for_every_decision_of_random_deals(n, options):
    env = tarot_env.make("french_tarot_v0", num_players=n, **options)
    bot, other = FrenchRuleAgent(), RandomAgent(n)
    seen: dict[str, int] = {}
    for d in range(30):
        seats = set(range(n)) if d % 2 == 0 else {d % n, (d + 2) % n}  # all seats, or two of them among random players
        play_deal(env, bot, seats, other, seen, reset={"seed": 100 * n + d})
    assert seen.get("bid", 0) > 0 and seen.get("play", 0) > 0
    assert seen.get("discard", 0) > 0 and seen.get("chelem", 0) > 0
    if n == 5:
        assert seen.get("call", 0) > 0


@pytest.mark.parametrize("n", [3, 4, 5])
def test_legal_on_deals_with_poignee_show_and_chelem_decisions(n):
    """A seat with a huge hand: the bot bids, announces, shows its poignée trump by trump and plays it out."""
    size = {3: 24, 4: 18, 5: 15}[n]
    big = {3: "T2..T21 KS KH KD KC", 4: "T4..T21", 5: "T8..T21 KS"}[n]
    deal = make_deal(n, dealer=n - 1, fixed={0: big})
    assert len(deal["hands"][0]) == size
    seen: dict[str, int] = {}
    env = tarot_env.make("french_tarot_v0", num_players=n, poignee_trumps="choose")
    info = play_deal(env, FrenchRuleAgent(), set(range(n)), seen=seen, reset={"options": {"deal": deal}})
    assert info["result"] == "played"
    assert {"bid", "chelem", "poignee", "show", "play"} <= set(seen)


def test_batch_act_equals_row_by_row_act():
    bot = FrenchRuleAgent()
    for n in (3, 4, 5):
        pairs: list = []
        env = tarot_env.make("french_tarot_v0", num_players=n)
        for d in range(3):
            play_deal(env, bot, set(range(n)), pairs=pairs, reset={"seed": 7 + d})
        obs = np.stack([p[0] for p in pairs])
        masks = np.stack([p[1] for p in pairs])
        batch = bot.act(obs, masks)
        assert batch.shape == (len(pairs),)
        assert batch.tolist() == [p[2] for p in pairs] == [bot.act(o, m) for o, m in zip(obs, masks)]
        assert num_players_of(obs.shape[1]) == n and obs.shape[1] == sum(f.length for f in layout(n))


def test_action_depends_only_on_observation_and_mask():
    """Same inputs, same output: for a fresh agent, another seed, in another order, after other
    games; and the inputs are left as they were (it keeps no state between calls)."""
    pairs: list = []
    for n in (3, 4, 5):
        env = tarot_env.make("french_tarot_v0", num_players=n)
        play_deal(env, FrenchRuleAgent(), set(range(n)), pairs=pairs, reset={"seed": 11})
    rows = [(o, m, a) for o, m, a in pairs]
    other = FrenchRuleAgent(seed=123)
    for o, m, a in reversed(rows):
        o0, m0 = o.copy(), m.copy()
        assert other.act(o, m) == a
        assert np.array_equal(o, o0) and np.array_equal(m, m0)
    # A mask with one legal action gets that action.
    o, m, _ = rows[0]
    only = np.zeros_like(m)
    only[int(np.flatnonzero(m)[-1])] = True
    assert other.act(o, only) == int(np.flatnonzero(m)[-1])


def test_hidden_cards_do_not_change_the_action():
    """Swapping cards between two other players' hands changes the state but not the bot's
    observation, hence not its action (it sees nothing but the observation)."""
    env = tarot_env.make("french_tarot_v0", num_players=4)
    bot, checked, seed = FrenchRuleAgent(), 0, 0
    while checked == 0:  # until a deal that is played (not thrown in)
        env.reset(seed=seed)
        seed += 1
        checked += swap_and_compare(env, bot)
    assert checked > 50


def swap_and_compare(env, bot) -> int:
    """Play the deal out with the bot; at each card, check its action against a swap of hidden cards."""
    raw, checked = env.unwrapped, 0
    while not raw.game_over:
        obs, _, _, _, _ = env.last()
        me = int(env.agent_selection.split("_")[1])
        action = bot.act(obs["observation"], obs["action_mask"].astype(bool))
        a, b = (me + 1) % 4, (me + 2) % 4
        hands = raw.game_state.hands[0]
        if raw.game_state.phase[0] == Phase.PLAY and hands[a].any() and hands[b].any():  # swap a card between the next two players
            ca, cb = int(np.flatnonzero(hands[a])[0]), int(np.flatnonzero(hands[b])[0])
            hands[a, ca], hands[b, cb], hands[a, cb], hands[b, ca] = False, False, True, True
            again = raw.observe(env.agent_selection)
            assert np.array_equal(again["observation"], obs["observation"])
            assert bot.act(again["observation"], again["action_mask"].astype(bool)) == action
            hands[a, ca], hands[b, cb], hands[a, cb], hands[b, ca] = True, True, False, False
            checked += 1
        env.step(action)
    return checked


def test_errors():
    bot = FrenchRuleAgent()
    with pytest.raises(ValueError, match="no legal action"):
        bot.act(np.zeros(1366, dtype=np.int8), np.zeros(A.NUM_ACTIONS, dtype=bool))
    mask = np.zeros(A.NUM_ACTIONS, dtype=bool)
    mask[[A.BID, A.BID + 1]] = True
    with pytest.raises(ValueError, match="not a French Tarot observation"):
        bot.act(np.zeros(100, dtype=np.int8), mask)
    assert FrenchRuleAgent.name == "french_rules"


# ---------------------------------------------------------------------------------------------
# Heuristics on fixed deals
# ---------------------------------------------------------------------------------------------
def test_bidding_strong_weak_and_above_the_highest_bid():
    strong = "T13..T21 EX T1 KS KH KD KC QS QH 2S"
    weak = "1S 2S 3S 4S 1H 2H 3H 4H 1D 2D 3D 4D 1C 2C 3C T2 T3 T4"
    garde_hand = "T21 T8..T10 T17 T18 KS QS KH 2H 3H 4H 5H 6H 1D KC 2C NC"
    env = start(4, make_deal(4, dealer=3, fixed={0: strong}, rest="5S 6S 7S 8S 9S 10S"))
    assert bot_action(env) in ("bid garde", "bid garde_sans", "bid garde_contre")
    env = start(4, make_deal(4, dealer=3, fixed={0: weak}))
    assert bot_action(env) == "pass"
    # The garde hand bids garde over a petite, and passes over a garde sans (it cannot bid lower).
    env = start(4, make_deal(4, dealer=3, fixed={1: garde_hand}), "bid petite")
    assert bot_action(env) == "bid garde"
    env = start(4, make_deal(4, dealer=3, fixed={1: garde_hand}), "bid garde_sans")
    assert bot_action(env) == "pass"


def test_call_a_king_it_lacks_where_it_holds_the_queen():
    # 5 players, seat 0 takes and calls: it holds KS and KH, the queen of diamonds, no club.
    hand = "KS QS KH 2H QD 2D T21 T20 T19 T18 T17 T16 T15 EX T14"
    env = start(5, make_deal(5, dealer=4, fixed={0: hand}), "bid garde", "pass", "pass", "pass", "pass")
    assert bot_action(env) == "call KD"


def test_ecart_voids_a_short_suit_and_keeps_trumps_and_kings():
    hand = "KS QS 2S 3S 5S KH 2H 3H 5H 6H KD 2D 3D 4C 7C T21 T20 T1"
    env = start(4, make_deal(4, dealer=3, fixed={0: hand}, rest="8S 9S 8H 9H 8D 9D"), "bid garde", "pass", "pass", "pass")
    bot = FrenchRuleAgent()
    discarded = []
    for _ in range(6):
        a = bot_action(env, bot)
        assert a.startswith("discard ")
        discarded.append(a.split()[1])
        env.step(a)
    assert {"4C", "7C"} <= set(discarded)  # clubs voided
    assert not any(c.startswith(("T", "K")) or c == "EX" for c in discarded)


# Seat 0 (garde sans, leads trick 1): the hearts and a long run of trumps.
TAKER = "3H KH QH NH JH 1H 2H T12..T20 EX T11"


def test_follows_with_its_lowest_card_when_it_cannot_win():
    taker = "KS T21 T20 T19 T18 T17 T16 T15 T14 KH KD KC QH QD QC NH ND NC"
    defender = "2S 5S QS 1H 2H 3H 1D 2D 3D 1C 2C 3C T1 T3 T10 5H 5D 5C"
    deal = make_deal(4, dealer=3, fixed={0: taker, 1: defender})
    env = start(4, deal, "bid garde_sans", "pass", "pass", "pass", "no_chelem", "play KS")
    assert bot_action(env) == "play 2S"  # not the queen
    env = start(4, deal, "bid garde_sans", "pass", "pass", "pass", "no_chelem", "play T21")
    assert bot_action(env) == "play T3"  # the lowest trump, keeping the Petit


def test_smears_a_king_onto_a_partners_sure_trick():
    ruffer = "T21 T2 T3 T4 3S 4S 5S 6S 3D 4D 5D 6D 3C 4C 5C 6C 7C 8C"  # void in hearts
    smearer = "KS QS NS JS 1S 2S KD QD ND JD 1D 2D KC QC NC JC 1C 2C"  # void in hearts, no trump
    deal = make_deal(4, dealer=3, fixed={0: TAKER, 1: ruffer, 2: smearer})
    env = start(4, deal, "bid garde_sans", "pass", "pass", "pass", "no_chelem", "no_poignee", "play 3H", "play T21")
    assert bot_action(env) in ("play KS", "play KD", "play KC")


def test_wins_with_the_petit_when_it_plays_last():
    last = "T1 T5 T9 1S 2S 3S 4S 5S 6S 7S 4H 5H 6H 7H 1D 2D 3D 4D"  # void in clubs
    deal = make_deal(4, dealer=3, fixed={0: "KC " + TAKER.replace(" EX", ""), 3: last}, rest="8S 9S 10S 8H 9H 10H")
    env = start(4, deal, "bid garde_sans", "pass", "pass", "pass", "no_chelem", "no_poignee", "play KC")
    bot = FrenchRuleAgent()
    for _ in range(2):  # the other two defenders follow in clubs
        env.step(bot_action(env, bot))
    assert bot_action(env, bot) == "play T1"


def test_chelem_and_poignee_with_an_overwhelming_hand():
    env = start(4, make_deal(4, dealer=3, fixed={0: CHELEM_HAND}))
    bot = FrenchRuleAgent()
    assert bot_action(env, bot) == "bid garde_contre"
    env.step("bid garde_contre")
    for _ in range(3):
        env.step("pass")
    assert bot_action(env, bot) == "chelem"
    env.step("chelem")
    assert bot_action(env, bot) == "poignee double"  # 14 trumps: the double (13) is the largest it may show


def test_never_keeps_the_excuse_for_the_last_trick():
    """Over whole deals of bots, the Excuse reaches the last trick only for a side that won every trick (it then wins it)."""
    for n in (3, 4, 5):
        env = tarot_env.make("french_tarot_v0", num_players=n)
        bot = FrenchRuleAgent()
        for d in range(15):
            info = play_deal(env, bot, set(range(n)), reset={"seed": 500 + d})
            if info["result"] != "played":
                continue
            last_trick = [a for a in env.unwrapped.record()["actions"] if a.startswith("play ")][-n:]
            assert "play EX" not in last_trick or info["chelem"] != "none"


# ---------------------------------------------------------------------------------------------
# Strength
# ---------------------------------------------------------------------------------------------
def test_stronger_than_random():
    """4 players, 400 deals at 64 tables: the bot sits at seat ``table % 4`` (so every seat in
    turn), random agents at the others. The bot's mean score per deal beats the random seats' by far."""
    tables, n = 64, 4
    env = tarot_env.vector.make("french_tarot_v0", num_envs=tables, num_players=n)
    bot, rnd = FrenchRuleAgent(), RandomAgent(0)
    bot_seat = np.arange(tables) % n
    out = env.reset(seed=2024)
    bot_scores: list[float] = []
    random_scores: list[float] = []
    while len(bot_scores) < 400:
        is_bot = out.players == bot_seat
        actions = np.zeros(tables, dtype=np.int64)
        if is_bot.any():
            actions[is_bot] = bot.act(out.observations[is_bot], out.action_masks[is_bot])
        if (~is_bot).any():
            actions[~is_bot] = rnd.act(out.observations[~is_bot], out.action_masks[~is_bot])
        out = env.step(actions)
        for table, scores in zip(out.infos["ended"], out.infos.get("scores", [])):
            seat = bot_seat[table]
            bot_scores.append(scores[seat])
            random_scores.extend(np.delete(scores, seat))
    bot_mean, random_mean = np.mean(bot_scores), np.mean(random_scores)
    assert bot_mean > 100 and bot_mean - random_mean > 200, (bot_mean, random_mean)
