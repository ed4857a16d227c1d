"""The PettingZoo surface of ``french_tarot_v0`` (shared/design/interface.md; env docstring).

PettingZoo's own checks (api_test, seed_test, render_test) for 3, 4 and 5 players; the registry;
configuration that survives ``reset(seed=...)``; determinism of seeded deals; the observation
layout and its documentation; action masks; the oracle; the reward modes and shaping; the action
strings; the card notation (interface.md §2, §3).
"""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import tarot_env
from tarot_env import french_tarot_v0
from tarot_env.cards.french import FRENCH_DECK, NUM_CARDS, card, card_name
from tarot_env.encoding.french import layout, layout_table, oracle_layout
from tarot_env.envs.french_tarot import FrenchTarotEnv
from tarot_env.rules.french.state import Phase

PLAYERS = (3, 4, 5)
NUM_ACTIONS = 205


# --------------------------------------------------------------------------- helpers
def play_episode(env, seed: int, policy_seed: int, max_steps: int = 1000):
    """Play one deal through the AEC loop with random legal actions.

    Returns ``(totals, trajectory)``: the sum of the rewards ``last()`` gave each agent, and for
    every live decision ``(agent, observation, action_mask, reward, action)``.
    """
    env.reset(seed=seed)
    rng = np.random.default_rng(policy_seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    trajectory = []
    for steps, agent in enumerate(env.agent_iter()):
        assert steps < max_steps, "the deal did not end"
        obs, reward, terminated, truncated, _info = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trajectory.append((agent, obs["observation"].copy(), obs["action_mask"].copy(), reward, action))
        env.step(action)
    return totals, trajectory


def random_actions_until_done(env, rng: np.random.Generator) -> None:
    raw = env.unwrapped
    while not raw.game_over:
        legal = raw.legal_actions()
        env.step(legal[rng.integers(len(legal))])


def first_played_seed(num_players: int, start: int = 0) -> int:
    """The first seed from ``start`` whose deal is not annulled at once (petit sec)."""
    env = french_tarot_v0.env(num_players=num_players)
    for seed in range(start, start + 100):
        env.reset(seed=seed)
        if not env.unwrapped.game_over:
            return seed
    raise AssertionError("no playable deal in 100 seeds")


# --------------------------------------------------------------------------- PettingZoo's checks
@pytest.mark.parametrize("num_players", PLAYERS)
def test_pettingzoo_api_test(num_players):
    """PettingZoo's api_test on env() as users get it (interface.md: follow PettingZoo conventions).

    Its first call, ``reset(options={"options": 1})``, is answered with a warning (unknown reset
    options are ignored, docs/design.md)."""
    with pytest.warns(UserWarning, match="'options'"):
        api_test(french_tarot_v0.env(num_players=num_players), num_cycles=1000)


@pytest.mark.parametrize("num_players", PLAYERS)
def test_pettingzoo_seed_test(num_players):
    """PettingZoo's seed_test: two envs reset with the same seed run identically."""
    seed_test(functools.partial(french_tarot_v0.env, num_players=num_players), num_cycles=500)


@pytest.mark.parametrize("num_players", PLAYERS)
def test_pettingzoo_render_test(num_players):
    """PettingZoo's render_test for both declared modes: 'ansi' returns a str, 'human' prints and returns None."""
    env_fn = functools.partial(french_tarot_v0.env, num_players=num_players)
    assert env_fn().metadata["render_modes"] == ["ansi", "human"]
    render_test(env_fn, custom_tests={"ansi": lambda text: isinstance(text, str) and f"{num_players} players" in text})


@pytest.mark.parametrize("num_players", PLAYERS)
def test_render_ansi_lists_every_player_and_human_prints_it(num_players, capsys):
    env = french_tarot_v0.env(num_players=num_players, render_mode="ansi")
    env.reset(seed=first_played_seed(num_players))
    text = env.render()
    for agent in env.possible_agents:
        assert agent in text
    human = french_tarot_v0.env(num_players=num_players, render_mode="human")
    human.reset(seed=first_played_seed(num_players))
    capsys.readouterr()
    assert human.render() is None
    assert capsys.readouterr().out.strip() == text.strip()


def test_render_without_mode_is_a_clear_error():
    env = french_tarot_v0.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="render_mode"):
        env.render()


# --------------------------------------------------------------------------- registry
def test_env_ids_contain_french_tarot_v0():
    """interface.md §1: the registry lists 'french_tarot_v0'."""
    assert "french_tarot_v0" in tarot_env.ENV_IDS


def test_unknown_env_id_is_a_clear_error():
    """interface.md §6: the error names what was given and what is allowed."""
    with pytest.raises(ValueError, match="no_such_game_v0") as err:
        tarot_env.make("no_such_game_v0")
    assert "french_tarot_v0" in str(err.value)


@pytest.mark.parametrize("num_players", PLAYERS)
def test_env_raw_env_and_make_agree(num_players):
    """``french_tarot_v0.env()``, ``raw_env()`` and ``tarot_env.make`` build the same environment."""
    envs = [
        french_tarot_v0.env(num_players=num_players),
        french_tarot_v0.raw_env(num_players=num_players),
        tarot_env.make("french_tarot_v0", num_players=num_players),
    ]
    for env in envs:
        assert isinstance(env.unwrapped, FrenchTarotEnv)
        assert env.metadata["name"] == "french_tarot_v0"
        assert env.possible_agents == [f"player_{i}" for i in range(num_players)]
    ref = envs[0]
    for env in envs[1:]:
        for agent in ref.possible_agents:
            assert env.observation_space(agent) == ref.observation_space(agent)
            assert env.action_space(agent) == ref.action_space(agent)
    seed = first_played_seed(num_players)
    runs = [play_episode(env, seed, policy_seed=11) for env in envs]
    for totals, trajectory in runs[1:]:
        assert totals == runs[0][0]
        assert len(trajectory) == len(runs[0][1])
        for a, b in zip(trajectory, runs[0][1]):
            assert a[0] == b[0] and a[4] == b[4] and a[3] == b[3]
            np.testing.assert_array_equal(a[1], b[1])
            np.testing.assert_array_equal(a[2], b[2])


def test_unknown_option_is_a_clear_error():
    """interface.md §6: an unknown option is refused, naming it and the allowed options."""
    with pytest.raises(TypeError, match="no_such_option") as err:
        tarot_env.make("french_tarot_v0", no_such_option=1)
    assert "num_players" in str(err.value)


# --------------------------------------------------------------------------- configuration and seeds
def test_configuration_survives_reset_with_seed():
    """interface.md §1: options (player count, reward, oracle, dealer, rules options) stay in force
    after ``reset(seed=...)``: here 5 players, normalised rewards, the oracle, dealer 2 and the chelem
    announced before the écart."""
    env = tarot_env.make(
        "french_tarot_v0",
        num_players=5,
        reward="normalised",
        oracle=True,
        dealer=2,
        chelem_announcement="before_ecart",
        poignee_trumps="choose",
    )
    raw = env.unwrapped
    rng = np.random.default_rng(5)
    checked = 0
    for seed in range(3, 30):
        env.reset(seed=seed)
        assert env.possible_agents == [f"player_{i}" for i in range(5)]
        assert raw.config.num_players == 5
        assert raw.config.chelem_announcement == "before_ecart"
        assert raw.config.poignee_trumps == "choose"
        assert int(raw.game_state.dealer[0]) == 2
        assert set(env.observe("player_0")) == {"observation", "action_mask", "oracle"}
        if raw.game_over:  # petit sec
            continue
        # dealer 2: seat 3 speaks first; he takes a garde and everybody else passes
        assert env.agent_selection == "player_3"
        for action in ("bid garde", "pass", "pass", "pass", "pass", "call KS"):
            env.step(action)
        # chelem_announcement="before_ecart": the chelem is asked before the chien is taken up
        assert int(raw.game_state.phase[0]) == Phase.CHELEM
        assert not raw.game_state.chien_seen[0]
        assert env.agent_selection == "player_3"
        random_actions_until_done(env, rng)
        scores = np.array(env.infos["player_0"]["scores"])
        expected = scores / 400.0  # normalised: score / (100 * (N - 1)), N = 5
        for i, agent in enumerate(env.possible_agents):
            assert env.rewards[agent] == pytest.approx(expected[i])
        record = raw.record()
        assert record["config"]["num_players"] == 5
        assert record["config"]["chelem_announcement"] == "before_ecart"
        assert record["config"]["poignee_trumps"] == "choose"
        checked += 1
        if checked == 3:
            break
    assert checked == 3


@pytest.mark.parametrize("num_players", PLAYERS)
def test_same_seed_same_deal_and_trajectory(num_players):
    """interface.md §4: ``reset(seed=s)`` deals the same cards (and dealer) for the same ``s``; with
    the same actions the whole trajectory is the same (observations, masks, rewards)."""
    a = french_tarot_v0.env(num_players=num_players)
    b = french_tarot_v0.env(num_players=num_players)
    b.reset(seed=999)  # a different history before the seeded reset must not matter
    for seed in (0, 1, 12345):
        a.reset(seed=seed)
        b.reset(seed=seed)
        np.testing.assert_array_equal(a.unwrapped.game_state.hands, b.unwrapped.game_state.hands)
        np.testing.assert_array_equal(a.unwrapped.game_state.chien, b.unwrapped.game_state.chien)
        assert int(a.unwrapped.game_state.dealer[0]) == int(b.unwrapped.game_state.dealer[0])
        run_a = play_episode(a, seed, policy_seed=seed + 1)
        run_b = play_episode(b, seed, policy_seed=seed + 1)
        assert run_a[0] == run_b[0]
        assert len(run_a[1]) == len(run_b[1])
        for x, y in zip(run_a[1], run_b[1]):
            assert x[0] == y[0] and x[3] == y[3] and x[4] == y[4]
            np.testing.assert_array_equal(x[1], y[1])
            np.testing.assert_array_equal(x[2], y[2])


@pytest.mark.parametrize("num_players", PLAYERS)
def test_different_seeds_different_deals(num_players):
    env = french_tarot_v0.env(num_players=num_players)
    deals = set()
    for seed in range(40):
        env.reset(seed=seed)
        deals.add(env.unwrapped.game_state.hands[0].tobytes())
    assert len(deals) == 40


def _has_petit_sec(hands: np.ndarray) -> bool:
    """§2: a hand whose only trump is the Petit (T1) and which lacks the Excuse."""
    trumps = hands[:, 56:77]
    return bool(((trumps.sum(axis=1) == 1) & trumps[:, 0] & ~hands[:, 77]).any())


@pytest.mark.parametrize(("num_players", "seed"), [(4, 1151), (5, 176)])
def test_petit_sec_deal_ends_at_reset_through_the_aec_loop(num_players, seed):
    """§2 / §15.14 (petit_sec="annul"): a seeded deal with a petit sec ends at once, no decision
    asked, every score 0; the AEC loop just retires every agent. With petit_sec="redeal" the same
    seed's deal is replaced by the next dealer's (§2: the deal passes to the right)."""
    env = french_tarot_v0.env(num_players=num_players)
    raw = env.unwrapped
    env.reset(seed=seed)
    assert _has_petit_sec(raw.game_state.hands[0])
    assert raw.game_over
    dealer = int(raw.game_state.dealer[0])
    seen = []
    for agent in env.agent_iter():
        _obs, reward, terminated, _truncated, info = env.last()
        assert terminated and reward == 0
        assert info["result"] == "petit_sec" and info["scores"] == [0] * num_players
        seen.append(agent)
        env.step(None)
    assert sorted(seen) == env.possible_agents and env.agents == []
    record = raw.record()
    assert record["actions"] == [] and record["scores"] == [0] * num_players
    assert tarot_env.replay(record) == [0] * num_players

    redeal = french_tarot_v0.env(num_players=num_players, petit_sec="redeal")
    redeal.reset(seed=seed)
    assert not redeal.unwrapped.game_over
    assert not _has_petit_sec(redeal.unwrapped.game_state.hands[0])
    assert int(redeal.unwrapped.game_state.dealer[0]) == (dealer + 1) % num_players


@pytest.mark.parametrize("num_players", PLAYERS)
def test_fixed_dealer_survives_reseeding_and_random_dealer_varies(num_players):
    fixed = french_tarot_v0.env(num_players=num_players, dealer=1)
    free = french_tarot_v0.env(num_players=num_players)
    dealers = set()
    for seed in range(30):
        fixed.reset(seed=seed)
        free.reset(seed=seed)
        assert int(fixed.unwrapped.game_state.dealer[0]) == 1
        dealers.add(int(free.unwrapped.game_state.dealer[0]))
    assert dealers == set(range(num_players))


# --------------------------------------------------------------------------- observations
@pytest.mark.parametrize("num_players", PLAYERS)
def test_observation_space_matches_layout(num_players):
    """Each observation is one int8 vector laid out as ``layout(n)``: contiguous fields, the space's
    shape is their total, and the mask covers the 205 actions."""
    fields = layout(num_players)
    offset = 0
    for f in fields:
        assert f.offset == offset
        offset += f.length
    env = french_tarot_v0.env(num_players=num_players, oracle=True)
    env.reset(seed=first_played_seed(num_players))
    raw = env.unwrapped
    hand = next(f for f in fields if f.name == "hand")
    for seat, agent in enumerate(env.possible_agents):
        space = env.observation_space(agent)
        assert space["observation"].shape == (offset,)
        assert space["action_mask"].shape == (NUM_ACTIONS,)
        assert space["oracle"].shape == (sum(f.length for f in oracle_layout(num_players)),)
        assert env.action_space(agent).n == NUM_ACTIONS
        obs = env.observe(agent)
        assert obs["observation"].dtype == np.int8 and obs["observation"].shape == (offset,)
        assert space.contains(obs)
        np.testing.assert_array_equal(obs["observation"][hand.offset : hand.offset + hand.length], raw.game_state.hands[0, seat])


def test_observation_sizes_per_player_count():
    """The sizes worked out from the field list: 3 players 1122, 4 players 1366, 5 players 1638
    (5 players add called 16 + partner 5 + alone 1, and every per-seat field grows)."""
    sizes = {n: sum(f.length for f in layout(n)) for n in PLAYERS}
    assert sizes == {3: 1122, 4: 1366, 5: 1638}


def test_docstring_layout_table_is_layout_table_4():
    """The 4-player table in the env module's docstring is exactly ``layout_table(4)`` (no drift)."""
    assert layout_table(4) in french_tarot_v0.__doc__


def test_docstring_observation_sizes_match_layout():
    """The sizes the docstring states for 3, 4 and 5 players are the layout's."""
    doc = french_tarot_v0.__doc__
    m = re.search(
        r"Sizes of `observation`:\s+3\s+players\s+(\d+),\s+4\s+players\s+(\d+),\s+5\s+players\s+(\d+)", doc
    )
    assert m, "the docstring no longer states the observation sizes"
    stated = {3: int(m.group(1)), 4: int(m.group(2)), 5: int(m.group(3))}
    assert stated == {n: sum(f.length for f in layout(n)) for n in PLAYERS}


@pytest.mark.parametrize("num_players", PLAYERS)
def test_action_mask_is_zero_for_agents_not_to_act(num_players):
    """Only the agent to act has legal actions in his mask; it equals the rules' legal mask."""
    env = french_tarot_v0.env(num_players=num_players)
    raw = env.unwrapped
    env.reset(seed=first_played_seed(num_players, start=7))
    rng = np.random.default_rng(3)
    while not raw.game_over:
        for agent in env.possible_agents:
            mask = env.observe(agent)["action_mask"]
            if agent == env.agent_selection:
                assert mask.any()
                np.testing.assert_array_equal(mask.astype(bool), raw.legal_mask())
            else:
                assert not mask.any(), f"{agent} has a mask although {env.agent_selection} is to act"
        legal = raw.legal_actions()
        env.step(legal[rng.integers(len(legal))])
    for agent in env.possible_agents:
        assert not env.observe(agent)["action_mask"].any()


@pytest.mark.parametrize("num_players", PLAYERS)
def test_oracle_adds_every_hand(num_players):
    """``oracle=True`` adds an 'oracle' vector: every hand by relative seat, the chien, the écart;
    without it there is no such key."""
    plain = french_tarot_v0.env(num_players=num_players)
    plain.reset(seed=first_played_seed(num_players))
    assert "oracle" not in plain.observe("player_0")
    assert "oracle" not in plain.observation_space("player_0").spaces

    env = french_tarot_v0.env(num_players=num_players, oracle=True)
    raw = env.unwrapped
    env.reset(seed=first_played_seed(num_players))
    fields = {f.name: f for f in oracle_layout(num_players)}
    rng = np.random.default_rng(0)
    for _ in range(12):
        s = raw.game_state
        for seat, agent in enumerate(env.possible_agents):
            oracle = env.observe(agent)["oracle"]
            h = fields["hands"]
            hands = oracle[h.offset : h.offset + h.length].reshape(num_players, NUM_CARDS)
            for k in range(num_players):
                np.testing.assert_array_equal(hands[k], s.hands[0, (seat + k) % num_players])
            c = fields["chien"]
            np.testing.assert_array_equal(oracle[c.offset : c.offset + c.length], s.chien[0])
            e = fields["ecart"]
            np.testing.assert_array_equal(oracle[e.offset : e.offset + e.length], s.ecart[0])
        if raw.game_over:
            break
        legal = raw.legal_actions()
        env.step(legal[rng.integers(len(legal))])
    # at the deal, the hands and the chien hold the 78 cards once each
    env.reset(seed=first_played_seed(num_players))
    oracle = env.observe("player_0")["oracle"]
    h, c = fields["hands"], fields["chien"]
    every = oracle[h.offset : h.offset + h.length].reshape(num_players, NUM_CARDS).sum(axis=0) + oracle[c.offset : c.offset + c.length]
    assert (every == 1).all()


# --------------------------------------------------------------------------- rewards
def _three_modes(num_players, seed, policy_seed, shaping=False):
    out = {}
    for mode in ("score", "normalised", "win_loss"):
        env = french_tarot_v0.env(num_players=num_players, reward=mode, shaping=shaping)
        totals, trajectory = play_episode(env, seed, policy_seed)
        out[mode] = (env, totals, trajectory)
    return out


@pytest.mark.parametrize("num_players", PLAYERS)
def test_reward_modes(num_players):
    """Env docstring: 'score' is the deal's score (= infos['scores']), 'normalised' is
    score / (100·(N−1)), 'win_loss' is the sign of the score."""
    nonzero = 0
    for seed in range(6):
        runs = _three_modes(num_players, seed, policy_seed=100 + seed)
        env, totals, _ = runs["score"]
        scores = env.unwrapped.record()["scores"]  # infos are dropped as the agents leave the AEC loop
        assert sum(scores) == 0
        for i, agent in enumerate(env.possible_agents):
            assert totals[agent] == scores[i]
            assert runs["normalised"][1][agent] == pytest.approx(scores[i] / (100 * (num_players - 1)))
            assert runs["win_loss"][1][agent] == np.sign(scores[i])
        nonzero += any(scores)
    assert nonzero >= 3


@pytest.mark.parametrize("num_players", PLAYERS)
def test_final_infos_carry_the_scores(num_players):
    env = french_tarot_v0.env(num_players=num_players)
    raw = env.unwrapped
    env.reset(seed=first_played_seed(num_players))
    random_actions_until_done(env, np.random.default_rng(1))
    scores = [int(x) for x in raw.game_state.scores[0]]
    for i, agent in enumerate(env.possible_agents):
        info = env.infos[agent]
        assert info["scores"] == scores
        assert info["result"] == "played"
        assert env.rewards[agent] == scores[i]
        assert env.terminations[agent]


def _shares(raw) -> np.ndarray:
    """Each seat's weight in the scores per the docstring: taker N−1 alone, 2 with a partner; others 1."""
    n = raw.game.num_players
    s = raw.game_state
    share = np.ones(n)
    share[int(s.taker[0])] = 2.0 if int(s.partner[0]) >= 0 else n - 1.0
    return share


@pytest.mark.parametrize("num_players", PLAYERS)
@pytest.mark.parametrize("mode", ["score", "normalised", "win_loss"])
def test_shaping_pays_each_trick_and_sums_to_the_final_reward(num_players, mode):
    """Env docstring: ``shaping=True`` pays after every trick its card points, + to the side that won
    it and − to the other, weighted by each seat's share; nothing between tricks; the rewards of a
    deal sum to the unshaped reward (per player)."""
    n = num_players
    scale = {"score": 1.0, "normalised": 1.0 / (100 * (n - 1)), "win_loss": 1.0 / (91 * (n - 1))}[mode]
    values = FRENCH_DECK.value.astype(float) / 2
    played = 0
    for seed in range(4):
        shaped = french_tarot_v0.env(num_players=n, reward=mode, shaping=True)
        plain = french_tarot_v0.env(num_players=n, reward=mode)
        raw = shaped.unwrapped
        shaped.reset(seed=seed)
        plain.reset(seed=seed)
        if raw.game_over:
            continue
        played += 1
        rng = np.random.default_rng(seed)
        sums = np.zeros(n)
        trick_rewards = 0
        while not raw.game_over:
            legal = raw.legal_actions()
            action = legal[rng.integers(len(legal))]
            tricks_before = int(raw.game_state.trick_no[0])
            shaped.step(action)
            plain.step(action)
            step_rewards = np.array([shaped.rewards[a] for a in shaped.possible_agents])
            sums += step_rewards
            if raw.game_over:
                break
            s = raw.game_state
            if int(s.trick_no[0]) > tricks_before:
                t = tricks_before
                winner = int(s.winners[0, t])
                attack = np.zeros(n, bool)
                attack[int(s.taker[0])] = True
                if int(s.partner[0]) >= 0:
                    attack[int(s.partner[0])] = True
                points = values[s.trick_of[0] == t].sum()
                sign = np.where(attack == attack[winner], 1.0, -1.0)
                np.testing.assert_allclose(step_rewards, sign * _shares(raw) * points * scale)
                assert (step_rewards != 0).all()
                assert step_rewards.sum() == pytest.approx(0.0, abs=1e-9)
                trick_rewards += 1
            else:
                assert not step_rewards.any(), "a reward between tricks"
        unshaped = np.array([plain.rewards[a] for a in plain.possible_agents])
        assert plain.unwrapped.game_over
        np.testing.assert_allclose(sums, unshaped, atol=1e-9)
        if mode == "win_loss":
            np.testing.assert_array_equal(unshaped, np.sign(raw.game_state.scores[0]))
        assert trick_rewards == raw.game.num_tricks - 1
    assert played >= 3


# --------------------------------------------------------------------------- action strings
def test_action_strings_round_trip_for_every_action_id():
    """interface.md §3: each of the 205 actions has one canonical string, and converting both
    ways is the identity."""
    raw = french_tarot_v0.raw_env()
    strings = [raw.action_to_string(a) for a in range(NUM_ACTIONS)]
    assert len(set(strings)) == NUM_ACTIONS
    for a, text in enumerate(strings):
        assert raw.string_to_action(text) == a
    with pytest.raises(ValueError):
        raw.action_to_string(NUM_ACTIONS)


def test_action_ids_of_the_docstring_table():
    """The id ranges of the env docstring's action table."""
    raw = french_tarot_v0.raw_env()
    expected = {
        0: "play 1S", 13: "play KS", 56: "play T1", 77: "play EX",
        78: "discard 1S", 155: "discard EX",
        156: "pass", 157: "bid petite", 158: "bid garde", 159: "bid garde_sans", 160: "bid garde_contre",
        161: "call KS", 162: "call QS", 163: "call NS", 164: "call JS", 165: "call KH", 176: "call JC",
        177: "chelem", 178: "no_chelem",
        179: "poignee simple", 180: "poignee double", 181: "poignee triple", 182: "no_poignee",
        183: "show T1", 203: "show T21", 204: "show EX",
    }  # fmt: skip
    for a, text in expected.items():
        assert raw.action_to_string(a) == text


def test_action_string_parsing_is_case_insensitive():
    """interface.md §2-3: parsing is case-insensitive (and tolerant of surrounding spaces)."""
    raw = french_tarot_v0.raw_env()
    for a in range(NUM_ACTIONS):
        text = raw.action_to_string(a)
        for variant in (text.upper(), text.lower(), text.title(), text.swapcase(), f"  {text} "):
            assert raw.string_to_action(variant) == a, variant
    assert raw.string_to_action("Bid Garde_Sans") == 159
    assert raw.string_to_action("PLAY t21") == 76
    assert raw.string_to_action("discard 10h") == 78 + 14 + 9


def test_malformed_action_string_is_a_clear_error():
    raw = french_tarot_v0.raw_env()
    for bad in ("play ZZ", "bid everything", "", "play"):
        with pytest.raises(ValueError) as err:
            raw.string_to_action(bad)
        assert repr(bad) in str(err.value) or repr(bad.split()[-1]) in str(err.value)


# --------------------------------------------------------------------------- card notation
def test_card_notation_round_trips_for_all_78_cards():
    """interface.md §2: canonical names round-trip through card/card_name and FRENCH_DECK.parse/format,
    in any case."""
    names = [card_name(c) for c in range(NUM_CARDS)]
    assert len(set(names)) == NUM_CARDS
    for c, name in enumerate(names):
        assert card(name) == c
        assert FRENCH_DECK.parse(name) == c
        assert FRENCH_DECK.format(c) == name
        assert card(name.lower()) == c
        assert FRENCH_DECK.parse(name.swapcase()) == c


def test_card_ids_follow_the_documented_numbering():
    """Suit cards ``suit*14 + rank-1`` (S, H, D, C; J=11, N=12, Q=13, K=14), trumps T1..T21 = 56..76, EX = 77."""
    ranks = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "N", "Q", "K"]
    for s, suit in enumerate("SHDC"):
        for r, rank in enumerate(ranks, start=1):
            assert card(f"{rank}{suit}") == s * 14 + r - 1
    for t in range(1, 22):
        assert card(f"T{t}") == 55 + t
    assert card("EX") == 77
    assert card("ks") == 13 and card("10h") == 23 and card("Nc") == 53


def test_card_values_total_182_half_points():
    """§1: bouts and kings 4.5, queens 3.5, knights 2.5, jacks 1.5, the rest 0.5: 91 points = 182
    half-points (3·9 + 4·9 + 4·7 + 4·5 + 4·3 + 59·1)."""
    value = FRENCH_DECK.value
    assert int(value.sum()) == 182
    for name, half_points in {"T1": 9, "T21": 9, "EX": 9, "KS": 9, "QH": 7, "ND": 5, "JC": 3, "10S": 1, "1H": 1, "T2": 1, "T20": 1}.items():
        assert value[card(name)] == half_points
    assert np.bincount(value, minlength=10)[[1, 3, 5, 7, 9]].tolist() == [59, 4, 4, 4, 7]  # low, J, N, Q, K + bouts


def test_unknown_card_is_a_clear_error():
    for bad in ("ZS", "T22", "11S", "T0"):
        with pytest.raises(ValueError, match=re.escape(repr(bad))):
            card(bad)
