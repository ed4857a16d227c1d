"""The search over a learned policy (``pimc:rollout=...``) and the hybrid agents (``pimc:search=<classes>,base=...``):
the classes searched, the base policy's decisions, the paired statistics and the significance rule, the
successive elimination, one batched call of the rollout policy a step, and no hidden card read."""

from __future__ import annotations

import numpy as np
import pytest
from tarot_env.agents.french_rules import FrenchRuleAgent
from tarot_env.agents.pimc import CLASSES, MIN_PAIRED, SEARCH_SPEC, PIMCAgent, parse_spec
from test_belief import _swap_hidden

import tarot_env
from tarot_env.rules.french.state import Phase

pytest.importorskip("sb3_contrib", reason="the trained network plays with the train extra (make test installs it)")


def positions(env, seeds, bot=None):
    """(seat, phase, obs) at every decision with a choice of deals ``seeds`` played by the rule-based bot;
    the caller may act on the env before the bot's move is played."""
    bot = bot or FrenchRuleAgent()
    raw = env.unwrapped
    for seed in seeds:
        env.reset(seed=seed)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            if obs["action_mask"].sum() > 1:
                yield raw.possible_agents.index(name), int(raw.game_state.phase[0]), obs
            env.step(int(bot.act(obs["observation"], obs["action_mask"])))


def test_the_arena_names_classes_base_and_rollout_and_refuses_what_cannot_play():
    agent = parse_spec("pimc:search=auction+ecart,base=pretrained,samples=8")
    assert (agent.classes, agent.base, agent.rollout, agent.paired, agent.time) == (
        {"auction", "ecart"},
        "pretrained",
        "rules",
        False,
        0.25,
    )
    learned = parse_spec("pimc:rollout=pretrained")
    assert (learned.base, learned.paired, learned.margin, learned.z, learned.time) == ("pretrained", True, 1.0, 2.0, 1.0)
    assert parse_spec("pimc:rollout=pretrained,margin=3,z=1.5,time=2").margin == 3.0
    mixed = parse_spec("pimc:rollout=pretrained,others=rules,search=play,base=pimc")
    assert (mixed.rollout, mixed.others, mixed.base, mixed.paired) == ("pretrained", "rules", "pimc", True)
    assert parse_spec("pimc:rollout=pretrained").others == "pretrained"  # by default the rollout policy plays every seat
    for spec, match in (
        ("pimc:search=bidding", "'bidding' is not a class of decisions"),
        ("pimc:rollout=pimc", "cannot play the sampled worlds out"),
        ("pimc:rollout=random", "cannot play the sampled worlds out"),
        ("pimc:base=pimc:rollout=pretrained", "a base that searches must be plain PIMC"),
        ("pimc:base=pimc:search=play", "a base that searches must be plain PIMC"),
        ("pimc:base=pimc:others=pretrained", "a base that searches must be plain PIMC"),
        ("pimc:rollout=pretrained,others=random", "others='random' cannot play the sampled worlds out"),
        ("pimc:others=", "others must name an agent"),
        ("pimc:margin=-1", "margin must be a number of points >= 0"),
        ("pimc:z=nan", "z must be a number of standard errors >= 0"),
        ("pimc:time=inf", "time must be a positive number"),
    ):
        with pytest.raises(ValueError, match=match):
            parse_spec(spec)
    with pytest.raises(ValueError, match="not a decision of ottocento_v0; its classes are auction, discard"):
        parse_spec("pimc:search=ecart").bind(tarot_env.make("ottocento_v0"))
    from tarot_env.agents.factory import split_agents

    assert split_agents("pimc:rollout=sb3:runs/x.zip,margin=2,rules") == ["pimc:rollout=sb3:runs/x.zip,margin=2", "rules"]


@pytest.mark.parametrize("searched", ["auction", "ecart", "play", "auction+announce"])
def test_a_hybrid_searches_its_classes_and_leaves_the_rest_to_the_base(searched):
    env = tarot_env.make("french_tarot_v0", num_players=4)
    hybrid = PIMCAgent(samples=2, chunk=2, time=60, search=searched, base="pretrained").bind(env)
    network = tarot_env.agents.pretrained("french_tarot_v0_4p")
    classes = set(searched.split("+"))
    names = hybrid.phase_classes
    seen = 0
    for _, phase, obs in positions(env, range(40)):
        if seen > 12:
            break
        a = hybrid.act(obs["observation"], obs["action_mask"])
        if names[phase] in classes:
            assert hybrid.searched == 2
            seen += 1
        else:
            assert hybrid.searched == 0 and a == network.act(obs["observation"], obs["action_mask"])
    assert seen > 0 and set(hybrid.decisions) <= classes and sum(hybrid.decisions.values()) == seen


def test_base_pimc_bids_as_plain_pimc_and_the_card_play_starts_from_the_network():
    """``pimc:rollout=pretrained,search=play,base=pimc``: plain PIMC (same seed, same samples) takes every
    decision but the card play; a card decision is searched over the network, from the network's card."""
    env = tarot_env.make("french_tarot_v0", num_players=4)
    mixed = parse_spec("pimc:rollout=pretrained,search=play,base=pimc:samples=4", seed=7).bind(env)
    plain = PIMCAgent(samples=4, seed=7).bind(env)
    assert isinstance(mixed.base_agent, PIMCAgent) and mixed.default_agent is mixed.rollout_agent
    network = tarot_env.agents.pretrained("french_tarot_v0_4p")
    bids = cards = 0
    for _, phase, obs in positions(env, range(40)):
        if bids >= 6 and cards >= 3:
            break
        if phase == Phase.PLAY and cards < 3:
            mixed.act(obs["observation"], obs["action_mask"])
            legal = np.flatnonzero(obs["action_mask"])
            assert mixed.last is not None and legal[mixed.last.default] == network.act(obs["observation"], obs["action_mask"])
            cards += 1
        elif phase != Phase.PLAY and bids < 6:
            mixed.base_agent.rng, plain.rng = np.random.default_rng(bids), np.random.default_rng(bids)
            assert mixed.act(obs["observation"], obs["action_mask"]) == plain.act(obs["observation"], obs["action_mask"])
            assert mixed.last is None and mixed.base_agent.searched == plain.searched > 0
            bids += 1
    assert bids == 6 and cards == 3 and set(mixed.decisions) == {"play"}


def test_the_play_outs_see_what_the_network_was_trained_on():
    """The rollout policy is asked with the encoder's observations: the AEC env's own, row for row."""
    env = tarot_env.make("french_tarot_v0", num_players=4)
    raw = env.unwrapped
    for seat, _, obs in positions(env, range(2)):
        s = raw.game_state
        assert seat == int(s.current[0])
        assert np.array_equal(raw.encoder.encode(s, np.array([0]), s.current[:1])[0], obs["observation"])


def _paired_by_hand(agent, s, legal, default, rng_seed, chunks):
    """The paired gains and standard errors recomputed from the agent's own play-outs, outside its loop."""
    rng = np.random.default_rng(rng_seed)
    seat = int(s.current[0])
    values = np.concatenate([agent.play_out(agent.belief.sample(agent.game, s, 0, seat, k, rng), seat, legal) for k in chunks])
    diff = values - values[:, [default]]
    return diff.mean(axis=0), diff.std(axis=0, ddof=1) / np.sqrt(len(diff))


def test_every_candidate_is_scored_on_the_same_worlds_as_the_base_choice():
    env = tarot_env.make("french_tarot_v0", num_players=4)
    # 8 samples in chunks of 2 then 6: no candidate can be dropped before the last chunk (MIN_PAIRED worlds)
    assert MIN_PAIRED == 8
    agent = PIMCAgent(samples=8, chunk=6, time=60, seed=3, rollout="pretrained").bind(env)
    checked = 0
    for _, phase, obs in positions(env, range(3)):
        if phase not in (Phase.BID, Phase.PLAY) or checked >= 4:
            continue
        s = env.unwrapped.game_state.copy()
        agent.rng = np.random.default_rng(11)
        agent.act(obs["observation"], obs["action_mask"])
        last, legal = agent.last, np.flatnonzero(obs["action_mask"])
        assert legal[last.default] == agent.base_agent.act(obs["observation"], obs["action_mask"])
        assert (last.worlds == 8).all()
        gain, se = _paired_by_hand(agent, s, legal, last.default, 11, [2, 6])
        np.testing.assert_allclose(last.gain, gain, atol=1e-9)
        np.testing.assert_allclose(last.se, se, atol=1e-9)
        checked += 1
    assert checked == 4


def test_the_base_choice_stands_unless_a_gain_is_significant_and_clearly_worse_candidates_are_dropped():
    env = tarot_env.make("french_tarot_v0", num_players=4)
    agent = PIMCAgent(samples=32, chunk=8, time=60, seed=5, rollout="pretrained").bind(env)
    stubborn = PIMCAgent(samples=8, chunk=8, time=60, seed=5, rollout="pretrained", margin=1e9).bind(env)
    replaced = dropped = 0
    for n, (_, _, obs) in enumerate(positions(env, range(12))):
        if n % 3:
            continue  # every third decision: enough of every kind, in a test's time
        legal = np.flatnonzero(obs["action_mask"])
        a = agent.act(obs["observation"], obs["action_mask"])
        last = agent.last
        assert a == legal[last.chosen] and last.gain[last.default] == 0
        if last.chosen != last.default:
            g, e = last.gain[last.chosen], last.se[last.chosen]
            assert g > agent.margin and g > agent.z * e and g == last.gain[last.worlds == last.worlds.max()].max()
            replaced += 1
        short = last.worlds < last.worlds[last.default]
        assert (last.gain[short] + agent.z * last.se[short] < 0).all() and (last.worlds[short] >= MIN_PAIRED).all()
        dropped += short.sum()
        assert stubborn.act(obs["observation"], obs["action_mask"]) == stubborn.base_agent.act(obs["observation"], obs["action_mask"])
    assert replaced > 0 and dropped > 0


def test_the_rollout_policy_is_called_once_a_step_over_every_world_and_candidate():
    env = tarot_env.make("french_tarot_v0", num_players=4)
    agent = PIMCAgent(samples=6, chunk=6, time=60, seed=1, rollout="pretrained", z=0, margin=1).bind(env)
    calls = []
    network = agent.rollout_agent

    class Counting:
        def act(self, obs, masks):
            calls.append(len(obs))
            return network.act(obs, masks)

    agent.rollout_agent = Counting()
    for _, phase, obs in positions(env, range(3)):
        if phase == Phase.BID:
            calls.clear()
            agent.act(obs["observation"], obs["action_mask"])
            bids = int(obs["action_mask"].sum())
            # two chunks, 2 worlds then 4, each worlds x bids rows: the first step of each asks every row at once
            assert agent.searched == 6 and calls[0] == 2 * bids and max(calls) == 4 * bids
            # one call a step of each chunk's batch: at most a deal's decisions (under 100) a chunk, where a call
            # per world and candidate would make 6 x bids times as many
            assert len(calls) <= 2 * 100
            return
    raise AssertionError("no bid with a choice")


def test_others_plays_every_seat_of_the_play_outs_but_the_searching_one():
    """``others=rules``: in the play-outs the network is asked for the searching seat's moves only, the bot
    for every other seat's, each once a step over all its rows."""
    env = tarot_env.make("french_tarot_v0", num_players=4)
    raw = env.unwrapped
    agent = PIMCAgent(samples=4, chunk=4, time=60, seed=2, rollout="pretrained", others="rules").bind(env)
    assert agent.others_agent is agent.bot and agent.rollout_agent is not agent.bot
    log: list[tuple[str, np.ndarray]] = []
    encoder = raw.encoder

    class Spy:
        def encode(self, st, rows, seats):
            log.append(("seats", np.asarray(seats).copy()))
            return encoder.encode(st, rows, seats)

    class Named:
        def __init__(self, name, policy):
            self.name, self.policy = name, policy

        def act(self, obs, masks):
            log.append((self.name, np.asarray(len(obs))))
            return self.policy.act(obs, masks)

    agent.rollout_agent, agent.others_agent = Named("network", agent.rollout_agent), Named("bot", agent.others_agent)
    seat, _, obs = next(p for p in positions(env, range(50)) if p[1] == Phase.PLAY)  # the first card with a choice
    raw.encoder = Spy()
    try:
        agent.act(obs["observation"], obs["action_mask"])
    finally:
        raw.encoder = encoder
    asked = {"network": 0, "bot": 0}
    for (kind, seats), (name, n) in zip(log[::2], log[1::2], strict=True):
        assert kind == "seats" and len(seats) == int(n)
        assert (seats == seat).all() if name == "network" else (seats != seat).all()
        asked[name] += int(n)
    assert asked["network"] > 0 and asked["bot"] > 3 * asked["network"] - 16  # three seats of four are the bot's


@pytest.mark.parametrize(
    "spec",
    [
        "pimc:rollout=pretrained,samples=6,time=60",
        "pimc:search=auction+play,base=pretrained,samples=6,time=60",
        "pimc:rollout=pretrained,others=rules,samples=6,time=60",
        "search:samples=6,time=60,base=pimc:samples=6",
    ],
)
def test_the_search_over_the_network_reads_no_hidden_card(spec):
    """The same public history with hidden cards swapped between hidden places: the same decision and statistics."""
    env = tarot_env.make("french_tarot_v0", num_players=4)
    raw = env.unwrapped
    agent = parse_spec(spec).bind(env)
    searchers = [a for a in (agent, agent.base_agent) if isinstance(a, PIMCAgent)]  # a plain PIMC base searches too
    for searcher in searchers:
        searcher.time = 60.0  # its samples are counted, not timed, whatever the machine's load
    rng = np.random.default_rng(0)
    compared = 0
    for n, (seat, _, obs) in enumerate(positions(env, range(10))):
        if n % 3:
            continue
        real = raw.game_state
        swapped = real.copy()
        if not _swap_hidden(swapped, seat, rng):
            continue
        outcomes = []
        for state in (real, swapped):
            raw.game_state = state
            agent.reseed(n)
            a, values = agent.decide(obs["observation"], obs["action_mask"])
            outcomes.append((a, None if values is None else values.tolist(), agent.last))
        raw.game_state = real
        assert outcomes[0][:2] == outcomes[1][:2]
        if outcomes[0][2] is not None:
            assert np.array_equal(outcomes[0][2].gain, outcomes[1][2].gain)
        compared += 1
    assert compared > 10


def test_search_is_the_reference_form_and_its_parameters_can_be_changed():
    """``search`` is :data:`SEARCH_SPEC` (plain PIMC's bidding, the card play searched over the network with the
    bot at the other seats); ``search:<parameters>`` replaces its own; what it cannot be is refused."""
    reference, spelled = parse_spec("search", seed=3), parse_spec(SEARCH_SPEC, seed=3)
    fields = ("rollout", "others", "base", "search", "classes", "samples", "time", "chunk", "margin", "z", "seed")
    assert [getattr(reference, f) for f in fields] == [getattr(spelled, f) for f in fields]
    assert (reference.rollout, reference.others, reference.base, reference.classes) == ("pretrained", "rules", "pimc", {"play"})
    assert (reference.name, spelled.name, parse_spec("pimc").name) == ("search", "pimc", "pimc")
    changed = parse_spec("search:time=2,samples=32,margin=3")
    assert (changed.time, changed.samples, changed.margin, changed.others, changed.base) == (2.0, 32, 3.0, "rules", "pimc")
    for spec, match in (
        ("search:", "parameters are samples=<int>"),
        ("search:depth=3", "parameters are samples=<int>"),
        ("search:time=soon", "time='soon' is not a number"),
        ("searches", "not a search agent"),
        ("pimc:rollout=search", "cannot play the sampled worlds out"),
        ("pimc:base=search", "a base that searches must be plain PIMC"),
    ):
        with pytest.raises(ValueError, match=match):
            parse_spec(spec)
    from tarot_env.agents.factory import make_agent, split_agents

    assert split_agents("search:time=2,samples=32,rules,search") == ["search:time=2,samples=32", "rules", "search"]
    with pytest.raises(ValueError, match="unknown agent 'searches'"):
        make_agent("searches", "french_tarot_v0", num_players=4)


def test_the_network_is_loaded_when_the_agent_is_made_and_reused_at_every_deal():
    """The arena, the room and the challenge make the agent once and bind it to every deal: the model is read
    from disk once, when the agent is made (a missing model refused then), not at each deal."""
    from tarot_env.agents.factory import make_agent

    agent = make_agent("search", "french_tarot_v0", num_players=4)
    (network,) = agent.policies.values()
    assert list(agent.policies) == [("pretrained", "french_tarot_v0", 4)]
    env = tarot_env.make("french_tarot_v0", num_players=4)
    for seed in (1, 2):
        env.reset(seed=seed)
        agent.bind(env)
        assert agent.rollout_agent is network and agent.others_agent is agent.bot and isinstance(agent.base_agent, PIMCAgent)
    ottocento = tarot_env.make("ottocento_v0")
    agent.bind(ottocento)  # another table: its own network, made then
    assert agent.rollout_agent is not network and len(agent.policies) == 2
    with pytest.raises(ValueError, match="there is no model file"):
        make_agent("pimc:rollout=sb3:runs/no/such/model.zip", "french_tarot_v0", num_players=4)


def test_reseed_makes_a_decision_depend_on_its_seed_only_the_plain_pimc_base_included():
    """A labelled deal is reseeded (``reseed``, distill.py's ``label_deal``): the same seed gives the same bids
    (plain PIMC's, the base) and cards (the search over the network), whatever was searched before."""
    env = tarot_env.make("french_tarot_v0", num_players=4)
    agent = parse_spec("search:samples=4,time=60,base=pimc:samples=4").bind(env)
    agent.base_agent.time = 60.0  # samples counted, not timed

    def decisions(draw_more: bool) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for n, (_, phase, obs) in enumerate(positions(env, range(7, 10))):  # seeds 0-6: everybody passes
            if n % 6:
                continue
            agent.reseed([7, n])
            out.setdefault(phase, []).append(agent.act(obs["observation"], obs["action_mask"]))
            if draw_more:  # more draws from both streams before the next position
                agent.act(obs["observation"], obs["action_mask"])
        return out

    first = decisions(draw_more=True)
    assert first == decisions(draw_more=False) and Phase.BID in first and Phase.PLAY in first


def test_every_class_is_named_by_a_family_phase():
    from tarot_env.agents.pimc import FRENCH_CLASSES, TAROCCHINO_CLASSES

    assert set(FRENCH_CLASSES.values()) == set(CLASSES["french"])
    assert set(TAROCCHINO_CLASSES.values()) == set(CLASSES["tarocchino"])
