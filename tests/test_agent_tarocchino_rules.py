"""The rule-based Tarocchino bot (``agents/tarocchino_rules.py``).

Three parts:

1. **Protocol**: over random hands of every env id (Mattazza with 3 to 6 players) and the
   options that add decisions (``matto_exchange="choose"``, ``wrong_claim="loses"``,
   ``episode="match"``), every action the bot picks is legal, every kind of decision is met
   (auction, claim, discard, declare, play, give), a batch gives the same actions as one row
   at a time, and the same inputs give the same outputs.
2. **Heuristics** on fixed deals: claims when a claim wins (and not below the target);
   declares; the Terziglio auction by hand strength; discards that keep cricche; throwing the
   cheapest card into a lost trick and covering the Matto to save the Mondo; smearing points
   on a partner's sure trick; Mattazza: taking a cheap first trick, refusing one full of points.
3. **Strength** with fixed seeds: Ottocento, a side of two bots against a side of two random
   players (both ways round), and Mattazza with 4 players, the bot against 3 random players.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_tarocchino import make_deal, new_env, play, seat
from tarot_env.agents.random_agent import RandomAgent
from tarot_env.agents.tarocchino_rules import TarocchinoRuleAgent

import tarot_env.vector
from tarot_env.cards.bolognese import card
from tarot_env.encoding.bolognese import layout
from tarot_env.rules.bolognese.combinations import cricche_points
from tarot_env.rules.bolognese.state import (
    A_CLAIM,
    A_DECLARE,
    A_NO_CLAIM,
    A_PASS,
    A_VA_BENE,
    AB_DISCARD,
    AB_GIVE,
    NUM_ACTIONS,
)

KINDS = ("auction", "claim", "discard", "declare", "play", "give")


def kind_of(mask: np.ndarray) -> str:
    if mask[A_PASS] or mask[A_VA_BENE] or mask[A_PASS + 1] or mask[A_PASS + 2] or mask[A_PASS + 4]:
        return "auction"
    if mask[A_CLAIM] or mask[A_NO_CLAIM]:
        return "claim"
    if mask[A_DECLARE] or mask[A_DECLARE + 1]:
        return "declare"
    if mask[AB_DISCARD : AB_DISCARD + 62].any():
        return "discard"
    if mask[AB_GIVE : AB_GIVE + 62].any():
        return "give"
    return "play"


def bot_action(env, agent: TarocchinoRuleAgent) -> str:
    """The bot's action, as a string, for the player to act in an AEC env."""
    obs = env.observe(env.agent_selection)
    a = agent.act(obs["observation"], obs["action_mask"])
    assert isinstance(a, int) and obs["action_mask"][a]
    return env.action_to_string(a)


# ====================================================================== 1. protocol
CONFIGS = [
    ("ottocento_v0", {}),
    ("ottocento_v0", {"wrong_claim": "loses", "matto_exchange": "choose"}),
    ("ottocento_v0", {"episode": "match", "target": 1000}),
    ("quattro_scartate_v0", {"matto_exchange": "choose"}),
    ("terziglio_v0", {}),
    ("terziglio_v0", {"matto_exchange": "choose", "episode": "match"}),
    ("millone_v0", {"wrong_claim": "loses"}),
    ("centocinquanta_v0", {"matto_exchange": "choose", "episode": "match"}),
    ("quindici_v0", {"wrong_claim": "loses", "episode": "match"}),
    ("mattazza_v0", {"num_players": 3, "matto_exchange": "choose"}),
    ("mattazza_v0", {"num_players": 4, "episode": "match"}),
    ("mattazza_v0", {"num_players": 5}),
    ("mattazza_v0", {"num_players": 6, "matto_exchange": "choose"}),
]


def test_legal_actions_every_decision_batch_and_determinism():
    """Random hands of every env id: the bot (in every other seat, random players in the
    others, or bots everywhere) only picks legal actions; it meets every kind of decision;
    a batch equals row-by-row calls; the same inputs give the same outputs."""
    seen: set[str] = set()
    samples: list[tuple[str, np.ndarray, np.ndarray]] = []
    for k, (env_id, config) in enumerate(CONFIGS):
        bot = TarocchinoRuleAgent(env_id, target=config.get("target"))
        rnd = RandomAgent(seed=k)
        venv = tarot_env.vector.make(env_id, 16, **config)
        n = venv.num_players
        out = venv.reset(seed=k)
        for step in range(400 if "episode" in config else 250):
            all_bots = step % 2 == 0 and k % 2 == 0
            bot_rows = np.flatnonzero((out.players % 2 == 0) | all_bots)
            actions = rnd.act(out.observations, out.action_masks)
            if len(bot_rows):
                acts = bot.act(out.observations[bot_rows], out.action_masks[bot_rows])
                assert acts.shape == (len(bot_rows),) and acts.dtype == np.int64
                assert out.action_masks[bot_rows, acts].all()
                actions[bot_rows] = acts
                seen.update(kind_of(out.action_masks[i]) for i in bot_rows)
                if step % 25 == 0:
                    samples.append((env_id, out.observations[bot_rows].copy(), out.action_masks[bot_rows].copy()))
            out = venv.step(actions)
        assert venv.observation_size == out.observations.shape[1] and n == venv.num_players
    assert seen == set(KINDS)
    for env_id, obs, masks in samples:
        bot = TarocchinoRuleAgent(env_id)
        batch = bot.act(obs, masks)
        rows = [bot.act(obs[i], masks[i]) for i in range(len(masks))]
        assert batch.tolist() == rows
        assert TarocchinoRuleAgent(env_id).act(obs, masks).tolist() == batch.tolist()
        assert all(masks[i, a] for i, a in enumerate(rows))


def test_refused_input():
    bot = TarocchinoRuleAgent("ottocento_v0")
    assert bot.name == "tarocchino_rules" and bot.target == 800
    assert TarocchinoRuleAgent("quattro_scartate").target is None
    assert TarocchinoRuleAgent("ottocento", target=1000).target == 1000
    with pytest.raises(ValueError):
        TarocchinoRuleAgent("briscola")
    with pytest.raises(ValueError):
        bot.act(np.zeros(10, dtype=np.int8), np.ones(NUM_ACTIONS, dtype=bool))  # no Tarocchino observation size
    with pytest.raises(ValueError):
        bot.act(np.zeros((1, 1334), dtype=np.int8), np.zeros((1, NUM_ACTIONS), dtype=bool))  # no legal action


# ====================================================================== 2. heuristics on fixed deals
# Ottocento, dealer 0: the Primo is seat 1, play order 1, 2, 3, 0; sides 0 & 2 against 1 & 3.
# TV9 (rules/tarocchino.md §16): the Primo's hand declares 80.
TV9 = "KS KC KB QS NS JS AS MAT ANG MON SOL T16 6C 7D 8B"


def _to_turn(env, who: int, decision: str = "play") -> None:
    """Step (no_claim, no_declare, the first legal discard or card) until ``who`` takes ``decision``."""
    while seat(env) != who or kind_of(env.legal_mask()) != decision:
        acts = [env.action_to_string(a) for a in env.legal_actions()]
        env.step(next((a for a in ("no_claim", "no_declare") if a in acts), acts[0]))


@pytest.mark.parametrize(("total", "claims"), [(730, True), (0, False)])
def test_claims_when_the_claim_wins_and_not_below_the_target(total, claims):
    """TV9: at 730 the Primo's window (810) wins: the bot claims; with wrong_claim="loses" a
    window at 0 + 80 is offered below the target: the bot says no_claim."""
    deal = make_deal("ottocento", 0, {1: TV9})
    env = new_env("ottocento_v0", deal, totals=[0, total, 0, total], wrong_claim="loses")
    bot = TarocchinoRuleAgent("ottocento")
    _to_turn(env, 1, "claim")
    assert "claim" in [env.action_to_string(a) for a in env.legal_actions()]
    assert bot_action(env, bot) == ("claim" if claims else "no_claim")
    with_target = TarocchinoRuleAgent("ottocento", target=50)  # the env would have been made with target=50
    assert bot_action(env, with_target) == "claim"


def test_declares():
    deal = make_deal("ottocento", 0, {1: TV9})
    env = new_env("ottocento_v0", deal)
    _to_turn(env, 1, "declare")
    assert [env.action_to_string(a) for a in env.legal_actions()] == ["declare", "no_declare"]
    assert bot_action(env, TarocchinoRuleAgent("ottocento")) == "declare"


MONSTER = "ANG MON SOL LUN T16 T15 T14 T13 T12 T11 T10 BEG MAT KS KB KC KD QS"
WEAK = "6S 7S 8S 9S 10S AS 6B 7B 8B 9B 10B AB 6C 7C 8C 9C M1 T5"


def test_terziglio_auction_by_hand_strength():
    """Terziglio, dealer 0: the receiver (seat 1) speaks first. A monster hand says di_mio, a
    weak one passes; a weak hand answers a posso with va_bene, a monster opposes it."""
    bot = TarocchinoRuleAgent("terziglio")
    assert bot.hand_strength(np.isin(np.arange(62), [card(c) for c in MONSTER.split()])) > bot.DI_MIO
    env = new_env("terziglio_v0", make_deal("terziglio", 0, {1: MONSTER}))
    assert bot_action(env, bot) == "di_mio"
    env = new_env("terziglio_v0", make_deal("terziglio", 0, {1: WEAK}))
    assert bot_action(env, bot) == "pass"
    env = new_env("terziglio_v0", make_deal("terziglio", 0, {1: MONSTER, 2: WEAK}))
    play(env, "posso")
    assert bot_action(env, bot) == "va_bene"
    env = new_env("terziglio_v0", make_deal("terziglio", 0, {1: WEAK, 2: MONSTER}))
    play(env, "posso")
    assert bot_action(env, bot) == "oppose"


def test_discards_never_break_a_cricca_when_another_card_breaks_none():
    """Random Ottocento and Millone hands (and a fixed one with a cricca of Regine, which may be
    discarded): at every discard, if some legal discard breaks no cricca, the bot's does not."""
    bot_o, bot_m = TarocchinoRuleAgent("ottocento"), TarocchinoRuleAgent("millone")
    envs = [(new_env("ottocento_v0", make_deal("ottocento", 0, {0: "QS QB QC NS NB NC JS JB JC 6S 7S 8S"})), bot_o)]
    envs += [(new_env("ottocento_v0", seed=s), bot_o) for s in range(12)]
    envs += [(new_env("millone_v0", seed=s), bot_m) for s in range(4)]
    checked = 0
    for env, bot in envs:
        while not env.game_over:
            obs = env.observe(env.agent_selection)
            mask = obs["action_mask"].astype(bool)
            a = bot.act(obs["observation"], mask)
            if AB_DISCARD <= a < AB_DISCARD + 62:
                hand = obs["observation"][:62].astype(bool)
                cands = np.flatnonzero(mask[AB_DISCARD : AB_DISCARD + 62])
                rows = np.repeat(hand[None], len(cands) + 1, axis=0)
                rows[np.arange(1, len(cands) + 1), cands] = False
                loss = dict(zip(cands.tolist(), (cricche_points(rows)[0] - cricche_points(rows)[1:]).tolist()))
                if min(loss.values()) == 0:
                    assert loss[a - AB_DISCARD] == 0
                    checked += 1
            env.step(a)
    assert checked > 40
    first = envs[0][0].record()["actions"][:2]
    assert not {"discard QS", "discard QB", "discard QC", "discard NS", "discard NB", "discard NC"} & set(first)


# the Primo (seat 1) leads the Angelo; the bot is seat 2, second to play, and must answer with a trump
def _angelo_led(bot_hand: str):
    deal = make_deal("ottocento", 0, {1: "ANG 6S 7S 8S 9S", 2: bot_hand, 0: "T5 T7 T8 T9 T10 T11"})
    env = new_env("ottocento_v0", deal)
    _to_turn(env, 1)
    play(env, "play ANG")
    _to_turn(env, 2)
    return env


def test_throws_the_cheapest_card_into_a_lost_trick():
    env = _angelo_led("MON MAT T6 KS QS JB 6B 7B 8B 9B 10B AB 6C 7C 8C")
    assert bot_action(env, TarocchinoRuleAgent("ottocento")) == "play T6"


def test_covers_the_matto_to_save_the_mondo():
    env = _angelo_led("MON MAT KS QS JB 6B 7B 8B 9B 10B AB 6C 7C 8C 9C")
    assert [env.action_to_string(a) for a in env.legal_actions()] == ["play MON", "play MAT"]
    assert bot_action(env, TarocchinoRuleAgent("ottocento")) == "play MAT"


def test_smears_points_on_the_partners_sure_trick():
    """The Primo (seat 1) leads the Angelo; seat 2 answers; the bot, seat 3 (his partner),
    gives the Bégato (5) rather than a low trump."""
    deal = make_deal("ottocento", 0, {1: "ANG 6S 7S 8S 9S", 3: "BEG T6 KS QS JB 6B 7B 8B 9B 10B AB 6C 7C 8C 9C"})
    env = new_env("ottocento_v0", deal)
    _to_turn(env, 1)
    play(env, "play ANG")
    _to_turn(env, 2)
    play(env, [env.action_to_string(env.legal_actions()[0])])
    _to_turn(env, 3)
    assert bot_action(env, TarocchinoRuleAgent("ottocento")) == "play BEG"


# Mattazza, 4 players, dealer 3: seat 0 leads, play order 0, 1, 2, 3; the bot is seat 3, last.
def test_mattazza_takes_a_cheap_first_trick():
    deal = make_deal("mattazza", 3, {0: "8S", 1: "7S", 2: "6S", 3: "9S AS"}, num_players=4)
    env = new_env("mattazza_v0", deal, num_players=4)
    play(env, "play 8S; play 7S; play 6S")
    assert bot_action(env, TarocchinoRuleAgent("mattazza")) == "play 9S"


def test_mattazza_refuses_a_trick_full_of_points():
    """Seats 1 and 2 hold only Spade and only Bastoni: they throw their Kings on a Denari lead
    (15 points on the table); the bot keeps its King of Denari and plays under the Queen."""
    spade = "KS QS NS JS 10S 9S 8S 7S 6S AS"
    bastoni = "KB QB NB JB 10B 9B 8B 7B 6B AB"
    deal = make_deal("mattazza", 3, {0: "QD", 1: spade, 2: bastoni, 3: "KD 10D ANG"}, num_players=4)
    env = new_env("mattazza_v0", deal, num_players=4)
    play(env, "play QD; play KS; play KB")
    assert "play KD" in [env.action_to_string(a) for a in env.legal_actions()]
    assert bot_action(env, TarocchinoRuleAgent("mattazza")) != "play KD"


def test_matto_exchange_gives_the_cheapest_card_that_breaks_nothing():
    """An observation made by hand (a give decision): the side's pile holds a cricca of Kings,
    a Queen and two scartini; the mask offers them all: the bot gives a scartino."""
    f = {x.name: x for x in layout(4)}
    obs = np.zeros(1334, dtype=np.int8)
    pile = [card(c) for c in ["KS", "KB", "KC", "QD", "7S", "6C"]]
    obs[f["won"].offset + np.array(pile)] = 1
    obs[f["decision"].offset + 5] = 1
    mask = np.zeros(NUM_ACTIONS, dtype=bool)
    mask[AB_GIVE + np.array(pile)] = True
    a = TarocchinoRuleAgent("ottocento").act(obs, mask)
    assert a - AB_GIVE in (card("7S"), card("6C"))
    # Mattazza (each for himself, lowest score wins): the card that lowers the own score most
    f = {x.name: x for x in layout(3)}
    obs = np.zeros(1047, dtype=np.int8)
    obs[f["won"].offset + np.array(pile)] = 1
    assert TarocchinoRuleAgent("mattazza").act(obs, mask) - AB_GIVE in (card("KS"), card("KB"), card("KC"))


# ====================================================================== 3. strength
def _run(env_id: str, agents: list, hands: int, seed: int, **config) -> list:
    """Plays ``hands`` hands on a vector env, ``agents[s]`` at seat ``s``; returns the ended hands."""
    venv = tarot_env.vector.make(env_id, 50, **config)
    out = venv.reset(seed=seed)
    ends = []
    while len(ends) < hands:
        actions = np.zeros(venv.num_envs, dtype=np.int64)
        for s, agent in enumerate(agents):
            rows = np.flatnonzero(out.players == s)
            if len(rows):
                actions[rows] = agent.act(out.observations[rows], out.action_masks[rows])
        out = venv.step(actions)
        ends += out.infos["hands"]
    return ends[:hands]


def test_strength_ottocento_bots_beat_random_players():
    """300 hands: the bots' side scores clearly more than the random side, either way round."""
    bot, rnd = TarocchinoRuleAgent("ottocento"), RandomAgent(seed=7)
    diff = [e.scores[0] - e.scores[1] for e in _run("ottocento_v0", [bot, rnd, bot, rnd], 150, seed=1)]
    diff += [e.scores[1] - e.scores[0] for e in _run("ottocento_v0", [rnd, bot, rnd, bot], 150, seed=2)]
    diff = np.array(diff, dtype=float)
    assert diff.mean() > 100 and diff.mean() > 5 * diff.std() / np.sqrt(len(diff))
    assert np.mean(diff > 0) > 0.65


def test_strength_mattazza_bot_loses_less_often_than_random_players():
    """Mattazza, 4 players, 800 hands (the bot in each seat in turn): the bot is among the
    losers less often than a random player."""
    bot, rnd = TarocchinoRuleAgent("mattazza"), RandomAgent(seed=8)
    bot_losses, random_losses = [], []
    for s in range(4):
        agents = [rnd] * 4
        agents[s] = bot
        for e in _run("mattazza_v0", agents, 200, seed=20 + s, num_players=4):
            lost = np.isin(np.arange(4), e.info["losers"])
            bot_losses.append(lost[s])
            random_losses.append(np.delete(lost, s).mean())
    assert np.mean(bot_losses) < np.mean(random_losses) - 0.03
