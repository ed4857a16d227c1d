"""Bad input to the public API gets a documented exception that names it, and leaves the state unchanged
(docs/interface.md §6).

Action ids beyond int64 through the AEC and vector envs, seeds that NumPy refuses or that are bools,
calls after the episode, unknown agents, malformed records given to :func:`tarot_env.replay`, int
options and running totals past their documented bounds, and fixed deals for a match whose dealers do
not follow; and property tests (hypothesis) that throw random bad input at the AEC and vector envs,
the single-agent wrapper and replay, and check that only the documented exceptions come out and that
nothing changed.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tarot_env
import tarot_env.vector as V
from tarot_env import ReplayError, replay
from tarot_env.errors import IllegalActionError
from tarot_env.wrappers.single_agent import SingleAgentEnv

ENV_IDS = ["french_tarot_v0", "ottocento_v0", "terziglio_v0", "millone_v0", "mattazza_v0"]
#: the exceptions the public API documents for bad input (IllegalActionError and ReplayError are ValueErrors)
DOCUMENTED = (ValueError, TypeError, RuntimeError)


def _snapshot(env) -> bytes:
    raw = env.unwrapped
    return pickle.dumps((raw.game_state, raw.agent_selection, dict(raw._cumulative_rewards), list(raw.agents)))


# ----------------------------------------------------------------------- action ids beyond int64
@pytest.mark.parametrize("env_id", ["french_tarot_v0", "ottocento_v0"])
def test_vector_uint64_actions_beyond_int64_are_refused_with_the_value_given(env_id):
    venv = V.make(env_id, 4)
    venv.reset(seed=0)
    before = pickle.dumps(venv.game_state)
    with pytest.raises(IllegalActionError, match=r"action 9223372036854775808 is out of range"):
        venv.step(np.full(4, 2**63, dtype=np.uint64))
    with pytest.raises(IllegalActionError, match=r"action 18446744073709551615 is out of range"):
        venv.step(np.array([0, 0, 2**64 - 1, 0], dtype=np.uint64))
    assert pickle.dumps(venv.game_state) == before


@pytest.mark.parametrize("env_id", ["french_tarot_v0", "ottocento_v0"])
@pytest.mark.parametrize("action", [2**64, 2**63, -(2**70)])
def test_aec_huge_action_ids_are_refused_naming_the_value(env_id, action):
    env = tarot_env.make(env_id)
    env.reset(seed=0)
    before = _snapshot(env)
    with pytest.raises(IllegalActionError, match=str(action)):
        env.step(action)
    assert _snapshot(env) == before


# ----------------------------------------------------------------------------------------- seeds
@pytest.mark.parametrize("env_id", ["french_tarot_v0", "ottocento_v0"])
def test_a_negative_seed_is_refused_naming_the_seed(env_id):
    env = tarot_env.make(env_id)
    with pytest.raises(ValueError, match=r"seed must be a non-negative int or None, got -1"):
        env.reset(seed=-1)
    venv = V.make(env_id, 2)
    with pytest.raises(ValueError, match=r"seed must be a non-negative int or None, got -1"):
        venv.reset(seed=-1)


@pytest.mark.parametrize("env_id", ["french_tarot_v0", "ottocento_v0"])
def test_a_bool_seed_is_refused_by_aec_and_vector_envs_alike(env_id):
    with pytest.raises(TypeError, match=r"seed must be a non-negative int or None, got True"):
        tarot_env.make(env_id).reset(seed=True)
    with pytest.raises(TypeError, match=r"seed must be a non-negative int or None, got True"):
        V.make(env_id, 2).reset(seed=True)


# ------------------------------------------------------- calls after the episode, unknown agents
def _play_out(env) -> None:
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("env_id", ["french_tarot_v0", "ottocento_v0"])
@pytest.mark.parametrize("action", [None, 0])
def test_step_after_every_agent_is_removed_says_to_reset(env_id, action):
    env = tarot_env.make(env_id)
    env.reset(seed=1)
    _play_out(env)
    assert env.agents == []
    with pytest.raises(RuntimeError, match=r"every agent has been removed; call reset\(\)"):
        env.step(action)
    env.reset(seed=2)  # and the env goes on
    assert env.agents


@pytest.mark.parametrize("env_id", ["french_tarot_v0", "ottocento_v0"])
@pytest.mark.parametrize("agent", ["player_9", 0, None])
def test_observe_an_unknown_agent_names_the_agents(env_id, agent):
    env = tarot_env.make(env_id)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"unknown agent .*the agents are player_0, player_1"):
        env.observe(agent)


# ------------------------------------------------------------- malformed records given to replay
def _record(env_id: str, seed: int = 0, **options) -> dict:
    env = tarot_env.make(env_id, **options)
    env.reset(seed=seed)
    _play_out(env)
    return env.unwrapped.record()


MALFORMED = [
    ("env", "bogus_v0", "bogus_v0"),
    ("env", 7, "env id string"),
    ("env", None, "env id string"),
    ("config", {"num_players": 9}, "is refused"),
    ("config", {"bogus": 1}, "is refused"),
    ("config", [1, 2], "dict of options"),
    ("config", None, "dict of options"),
    ("actions", None, "list of action strings"),
    ("actions", 5, "list of action strings"),
    ("actions", [0, 1], "records write actions as strings"),
    ("actions", [None], "records write actions as strings"),
    ("deal", None, "deal is refused"),
    ("deal", {"dealer": 0, "hands": [], "rest": []}, "deal is refused"),
    ("deal", "AS", "deal is refused"),
    ("scores", None, "the record says scores"),
    ("scores", "abc", "the record says scores"),
]


@pytest.mark.parametrize("env_id", ["french_tarot_v0", "ottocento_v0"])
@pytest.mark.parametrize(("key", "value", "message"), MALFORMED)
def test_replay_raises_replay_error_for_every_malformed_record(env_id, key, value, message):
    record = copy.deepcopy(_record(env_id))
    record[key] = value
    with pytest.raises(ReplayError, match=message):
        replay(record)


@pytest.mark.parametrize("env_id", ["french_tarot_v0", "ottocento_v0"])
def test_replay_refuses_a_duplicate_card_and_a_wrong_player_count(env_id):
    record = copy.deepcopy(_record(env_id))
    hands = record["deal"]["hands"]
    hands[0][0] = hands[1][0]  # a card twice
    with pytest.raises(ReplayError, match="deal is refused"):
        replay(record)
    record = copy.deepcopy(_record(env_id))
    record["config"] = dict(record["config"], num_players=3 if env_id == "french_tarot_v0" else 2)
    with pytest.raises(ReplayError):
        replay(record)


def test_replay_of_a_match_record_with_malformed_hands():
    record = copy.deepcopy(_record("ottocento_v0", episode="match"))
    assert "deals" in record
    record["deals"][0]["actions"] = None
    with pytest.raises(ReplayError, match="list of action strings"):
        replay(record)
    record = copy.deepcopy(_record("ottocento_v0", episode="match"))
    record["env"] = "french_tarot_v0"
    with pytest.raises(ReplayError):
        replay(record)


# ------------------------------------------------------------- random bad input (property tests)
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["play", "play ZZ", "bid garde", "declare", "give", "pass", "claim", "discard AS", "  ", "play 1 2"]),
    st.lists(st.integers(-3, 300), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
    st.builds(lambda v, t: np.array(v).astype(t), st.integers(-5, 300), st.sampled_from([np.int8, np.int64, np.uint64, np.float32])),
    st.builds(lambda n: np.zeros(n, dtype=np.int64), st.integers(0, 3)),
)
BAD_COUNTS: dict[str, int] = {}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env_id=st.sampled_from(ENV_IDS), seed=st.integers(0, 50), moves=st.integers(0, 40), junk=st.lists(JUNK, min_size=1, max_size=4))
def test_random_bad_input_to_an_aec_env_raises_a_documented_error_and_changes_nothing(env_id, seed, moves, junk):
    env = tarot_env.make(env_id)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if env.unwrapped.game_over:
            break
        env.step(int(rng.choice(env.unwrapped.legal_actions())))
    for value in junk:
        before = _snapshot(env)
        if not env.unwrapped.game_over and _is_legal(env, value):
            continue  # a legal action is not bad input
        if not (value is None and env.unwrapped.game_over):  # step(None) removes a finished agent (AEC protocol)
            with pytest.raises(DOCUMENTED):
                env.step(value)
        assert _snapshot(env) == before, value
        if not (isinstance(value, str) and value in env.possible_agents):
            with pytest.raises(DOCUMENTED):
                env.observe(value)
        valid_seed = value is None or (isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and value >= 0)
        if not (valid_seed and value is None):  # a bad seed or a bad deal: refused
            with pytest.raises(DOCUMENTED):
                env.reset(seed=value, options={"deal": value if value is not None else "no deal"})
        assert _snapshot(env) == before, value
        BAD_COUNTS["aec"] = BAD_COUNTS.get("aec", 0) + 3


def _is_int(value) -> bool:
    """An int action id as the envs take it: a Python or NumPy int (not a bool), or a 0-d int array."""
    if isinstance(value, np.ndarray):
        return value.shape == () and value.dtype.kind in "iu"
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_legal(env, value) -> bool:
    """Whether ``value`` is a legal action now (then it is not bad input)."""
    raw = env.unwrapped
    try:
        if isinstance(value, str):
            a = raw.string_to_action(value)
        elif _is_int(value):
            a = int(value)
        else:
            return False
    except DOCUMENTED:
        return False
    return 0 <= a < len(raw.legal_mask()) and bool(raw.legal_mask()[a])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    env_id=st.sampled_from(ENV_IDS),
    actions=st.one_of(
        JUNK,
        st.lists(st.integers(-(2**70), 2**70), min_size=3, max_size=3),
        st.builds(lambda v: np.full(3, v, dtype=np.uint64), st.integers(0, 2**64 - 1)),
        st.builds(lambda v: np.full(3, v, dtype=np.int64), st.integers(-(2**63), 2**63 - 1)),
    ),
    rows=st.one_of(st.none(), JUNK),
    seed=JUNK,
)
def test_random_bad_input_to_a_vector_env_raises_a_documented_error_and_changes_nothing(env_id, actions, rows, seed):
    venv = V.make(env_id, 3)
    venv.reset(seed=0)
    before = pickle.dumps(venv.game_state)
    try:
        venv.step(actions) if rows is None else venv.step(actions, rows)
    except DOCUMENTED:
        BAD_COUNTS["vector"] = BAD_COUNTS.get("vector", 0) + 1
        assert pickle.dumps(venv.game_state) == before
    before = pickle.dumps(venv.game_state)  # legal actions (a pass at every table) did step
    try:
        venv.reset(seed=seed, options={"deals": actions})
    except DOCUMENTED:
        BAD_COUNTS["vector"] = BAD_COUNTS.get("vector", 0) + 1
        assert pickle.dumps(venv.game_state) == before or seed is not None


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env_id=st.sampled_from(["french_tarot_v0", "ottocento_v0"]), value=JUNK)
def test_random_bad_input_to_the_single_agent_wrapper(env_id, value):
    env = SingleAgentEnv(env_id)
    env.reset(seed=0)
    before = _snapshot(env.env)
    if _is_legal(env.env, value):
        return  # a legal action is not bad input
    with pytest.raises(DOCUMENTED):
        env.step(value)
    assert _snapshot(env.env) == before


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(env_id=st.sampled_from(["french_tarot_v0", "ottocento_v0"]), data=st.data())
def test_random_malformed_records_raise_only_replay_error(env_id, data):
    record = copy.deepcopy(_RECORDS[env_id])
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(["env", "config", "deal", "actions", "scores", "deal.dealer", "deal.hands", "actions[i]", "drop"]))
        value = data.draw(JUNK)
        if path == "drop":
            record.pop(data.draw(st.sampled_from(sorted(record))), None)
        elif path.startswith("deal.") and isinstance(record.get("deal"), dict):
            record["deal"][path[5:]] = value
        elif path == "actions[i]" and isinstance(record.get("actions"), list) and record["actions"]:
            record["actions"][data.draw(st.integers(0, len(record["actions"]) - 1))] = value
        else:
            record[path.split(".")[0]] = value
    try:
        replay(record)
    except ReplayError:
        BAD_COUNTS["replay"] = BAD_COUNTS.get("replay", 0) + 1


_RECORDS = {env_id: _record(env_id, seed=3) for env_id in ["french_tarot_v0", "ottocento_v0"]}


# -------------------------------------------------- options and running totals past their bounds
@pytest.mark.parametrize("option", ["target", "cappotto_bonus"])
@pytest.mark.parametrize("value", [10**30, 2**63, 10**9 + 1])
def test_int_options_beyond_the_documented_bound_are_refused_at_make(option, value):
    with pytest.raises(ValueError, match=rf"{option}={value} must be in \d+\.\.1_000_000_000"):
        tarot_env.make("ottocento_v0", **{option: value})


@pytest.mark.parametrize("total", [10**30, 2**63, -(10**30)])
def test_huge_running_totals_are_refused_at_reset(total):
    env = tarot_env.make("ottocento_v0")
    env.reset(seed=0)
    before = _snapshot(env)
    with pytest.raises(ValueError, match=r"'totals' must be ints in 0\.\.1_000_000_000"):
        env.reset(seed=1, options={"totals": [total, 0, total, 0]})
    assert _snapshot(env) == before


def test_an_illegal_reward_beyond_float_range_is_refused():
    with pytest.raises(ValueError, match="illegal_reward must be finite"):
        tarot_env.make("french_tarot_v0", illegal_reward=10**400)


def test_the_largest_allowed_bonus_scores_exactly():
    """At the bound, a hand still scores in int64 without wrapping (a capotted side gets the bonus)."""
    env = tarot_env.make("ottocento_v0", cappotto_bonus=10**9)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while not env.unwrapped.game_over:
        env.step(int(rng.choice(env.unwrapped.legal_actions())))
    assert np.all(np.abs(env.unwrapped.game_state.scores[0]) < 2 * 10**9)


# ----------------------------------------------------------------------- fixed deals for a match
def _first_deal(env_id: str, seed: int, **options) -> dict:
    env = tarot_env.make(env_id, **options)
    env.reset(seed=seed)
    raw = env.unwrapped
    return raw._deal_record(raw._deal_snapshot())


def test_match_deals_whose_dealers_do_not_follow_are_refused_at_reset():
    """Ottocento's deal passes to the right: a second deal by the same dealer is refused at
    reset, naming the deal and the dealer expected, and the env is left as it was."""
    env = tarot_env.make("ottocento_v0", episode="match")
    env.reset(seed=0)
    before = _snapshot(env)
    d = _first_deal("ottocento_v0", 0)
    with pytest.raises(ValueError, match=rf"deals\[1\] has dealer {d['dealer']}, .* deals\[1\] is dealt by {(d['dealer'] + 1) % 4}"):
        env.reset(options={"deals": [d, d]})
    assert _snapshot(env) == before
    following = dict(d, dealer=(d["dealer"] + 1) % 4)
    following["hands"] = d["hands"][-1:] + d["hands"][:-1]  # the same hands, one seat on
    env.reset(options={"deals": [d, following]})  # accepted


def test_several_deals_for_a_one_hand_episode_are_refused():
    d = _first_deal("ottocento_v0", 0)
    with pytest.raises(ValueError, match=r"'deals' gives 2 deals, but an episode is one hand"):
        tarot_env.make("ottocento_v0").reset(options={"deals": [d, d]})


def test_a_match_deal_that_play_makes_impossible_truncates_the_episode_with_its_reason():
    """Terziglio's soloist deals next, so a later fixed deal is checked when its turn comes: a
    deal by another seat ends the episode as truncated (infos say why); nothing is stuck."""
    truncated = 0
    for seed in range(8):
        env = tarot_env.make("terziglio_v0", episode="match")
        d = _first_deal("terziglio_v0", seed)
        env.reset(options={"deals": [d, d, d]})
        rng = np.random.default_rng(seed)
        ended = None
        for _agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                ended = (term, trunc, info)
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        term, trunc, info = ended
        if trunc:
            truncated += 1
            assert not term and "later deals must follow the match" in info["truncated"]
        with pytest.raises(RuntimeError, match="call reset"):
            env.step(0)
        env.reset(seed=seed)
        assert env.agents and not env.unwrapped.game_over
    assert truncated > 0
