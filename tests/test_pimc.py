"""The PIMC search agent (tarot_env.agents.pimc): legal, reproducible, within its time, in the arena."""

from __future__ import annotations

import numpy as np
import pytest
from tarot_env.agents.french_rules import FrenchRuleAgent
from tarot_env.agents.pimc import PIMCAgent, parse_spec

import tarot_env
from tarot_env.rules.french.state import Phase


def decisions(env, seed: int):
    """Deal ``seed`` and yield ``(seat, phase, obs)`` at every decision; the caller steps the env."""
    env.reset(seed=seed)
    raw = env.unwrapped
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        yield raw.possible_agents.index(name), int(raw.game_state.phase[0]), obs


def play(env, agents: dict[int, object], seed: int) -> list[int]:
    """One deal; returns the actions taken."""
    taken = []
    for seat, _, obs in decisions(env, seed):
        a = int(agents[seat].act(obs["observation"], obs["action_mask"]))
        assert obs["action_mask"][a]
        taken.append(a)
        env.step(a)
    return taken


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_pimc_plays_whole_french_deals_legally_and_searches_the_card_play(num_players):
    env = tarot_env.make("french_tarot_v0", num_players=num_players)
    # a time limit no decision reaches: the samples searched must not depend on the machine's speed
    # (a kernel compiled on a fresh clone's first search takes seconds)
    pimc = PIMCAgent(samples=4, chunk=2, seed=1, search="play", time=60).bind(env)
    bot = FrenchRuleAgent()
    searched = 0
    for seed in range(40):  # the bot passes many deals: enough deals for some card play
        if searched > 20:
            break
        agents = {p: pimc if p % 2 == 0 else bot for p in range(num_players)}
        for seat, phase, obs in decisions(env, seed):
            a = int(agents[seat].act(obs["observation"], obs["action_mask"]))
            assert obs["action_mask"][a]
            if agents[seat] is pimc:
                if phase == Phase.PLAY and obs["action_mask"].sum() > 1:
                    assert pimc.searched == 4
                    searched += 1
                else:  # the bot's decision, or the only legal one: no search
                    assert pimc.searched == 0 and a == bot.act(obs["observation"], obs["action_mask"])
            env.step(a)
    assert searched > 20


def test_by_default_every_decision_with_a_choice_is_searched():
    env = tarot_env.make("french_tarot_v0", num_players=5)
    pimc = PIMCAgent(samples=3, chunk=3, seed=2, time=60).bind(env)
    phases = set()
    for seed in range(3):
        for _, phase, obs in decisions(env, seed):
            a = pimc.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][a] and pimc.searched == (3 if obs["action_mask"].sum() > 1 else 0)
            if pimc.searched:
                phases.add(phase)
            env.step(a)
    assert {Phase.BID, Phase.PLAY} <= phases


TAROCCHINO = [
    ("ottocento_v0", {}), ("quattro_scartate_v0", {}), ("terziglio_v0", {}), ("millone_v0", {}), ("centocinquanta_v0", {}),
    ("quindici_v0", {}), ("mattazza_v0", {"num_players": 3}), ("mattazza_v0", {"num_players": 6}),
    ("ottocento_v0", {"episode": "match", "target": 300}),
]  # fmt: skip


@pytest.mark.parametrize(("env_id", "options"), TAROCCHINO)
def test_pimc_plays_whole_tarocchino_hands_legally(env_id, options):
    from tarot_env.agents.tarocchino_rules import TarocchinoRuleAgent

    env = tarot_env.make(env_id, **options)
    n = env.unwrapped.num_players
    pimc = PIMCAgent(samples=3, chunk=3, seed=1, time=60).bind(env)
    bot = TarocchinoRuleAgent(env_id)
    searched = 0
    for seed in range(2):
        for seat, _, obs in decisions(env, seed):
            agent = pimc if seat % 2 == 0 or n % 2 else bot
            a = int(agent.act(obs["observation"], obs["action_mask"]))
            assert obs["action_mask"][a]
            searched += agent is pimc and pimc.searched > 0
            env.step(a)
    assert searched > 5


def test_the_same_seed_gives_the_same_game():
    env = tarot_env.make("french_tarot_v0", num_players=4)
    runs = []
    for _ in range(2):
        pimc = PIMCAgent(samples=6, seed=5, time=60).bind(env)
        runs.append(play(env, {0: pimc, 1: FrenchRuleAgent(), 2: pimc, 3: FrenchRuleAgent()}, seed=11))
    assert runs[0] == runs[1]


def _first_card_position(env):
    """``env`` at the first card of a played deal with a choice of cards (the bot bids)."""
    raw, bot = env.unwrapped, FrenchRuleAgent()
    for seed in range(40):
        env.reset(seed=seed)
        while raw.game_state.phase[0] < Phase.PLAY or (raw.game_state.phase[0] == Phase.PLAY and raw.game_state.legal[0].sum() == 1):
            obs = env.observe(env.agent_selection)
            env.step(int(bot.act(obs["observation"], obs["action_mask"])))
        if raw.game_state.phase[0] == Phase.PLAY:
            return env.observe(env.agent_selection)
    raise AssertionError("no played deal in 40 seeds")


@pytest.mark.parametrize(("cost", "searched", "elapsed"), [(1 / 64, 12, 0.1875), (1 / 4, 2, 0.5)])
def test_the_time_limit_fits_the_chunks_to_the_time_left(cost, searched, elapsed):
    """A fake clock that only the play-outs move, ``cost`` seconds a sample (binary fractions: exact).
    The chunks are planned to fill 80% of the 0.25 s limit, 0.2 s. 1/64 s a sample: a first chunk of
    2 (1/32 s), then 8 (the chunk size), then the 2 that still fit in the budget (12.8 samples):
    12 samples in 0.1875 s. 1/4 s a sample: the first chunk alone overruns (the one case that can),
    and the search stops there."""

    class Clock:
        now = 0.0

        def __call__(self) -> float:
            return self.now

    clock = Clock()
    env = tarot_env.make("french_tarot_v0", num_players=4)
    pimc = PIMCAgent(samples=1000, time=0.25, chunk=8, clock=clock).bind(env)
    real_play_out = pimc.play_out

    def timed_play_out(sampled, seat, legal):
        clock.now += cost * sampled.current.shape[0]
        return real_play_out(sampled, seat, legal)

    pimc.play_out = timed_play_out
    obs = _first_card_position(env)
    pimc.act(obs["observation"], obs["action_mask"])
    assert (pimc.searched, clock.now) == (searched, elapsed)


def test_pimc_refuses_bad_settings_and_an_unbound_use():
    for bad, match in (({"samples": 0}, "samples must be a positive int"), ({"time": -1}, "time must be a positive"),
                       ({"chunk": 1.5}, "chunk must be a positive int")):  # fmt: skip
        with pytest.raises(ValueError, match=match):
            PIMCAgent(**bad)
    with pytest.raises(RuntimeError, match="bind"):
        PIMCAgent().act(np.zeros(10), np.ones(3, bool))
    with pytest.raises(TypeError, match="tarot_env AEC env"):
        PIMCAgent().bind(object())
    with pytest.raises(ValueError, match="parameters are samples="):
        parse_spec("pimc:depth=3")
    with pytest.raises(ValueError, match="is not a number"):
        parse_spec("pimc:samples=many")
    agent = parse_spec("pimc:samples=12,time=0.5,chunk=3")
    assert (agent.samples, agent.time, agent.chunk) == (12, 0.5, 3)


def test_pimc_in_the_arena_and_its_agents_list(tmp_path):
    from tarot_env.agents.factory import make_agent, split_agents

    from tarot_env.arena import run_arena

    assert split_agents("pimc:samples=8,time=0.1,rules") == ["pimc:samples=8,time=0.1", "rules"]
    assert split_agents("rules, pimc ,random") == ["rules", "pimc", "random"]
    agents = {"pimc": make_agent("pimc:samples=4", "french_tarot_v0"), "rules": make_agent("rules", "french_tarot_v0")}
    res = run_arena("french_tarot_v0", agents, 4, 0, 4, progress=False, strict=True, deals_dir=tmp_path)
    assert res["agents"]["pimc"]["fallbacks"]["fallback"] == 0 and res["agents"]["pimc"]["fallbacks"]["moves"] > 0
