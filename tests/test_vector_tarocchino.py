"""The Tarocchino vector envs (``tarot_env.vector.make("ottocento_v0", B, ...)``) are the AEC envs, many tables at a time.

Four parts:

1. **Differential** (the key test): for every Tarocchino env id (Mattazza with 3, 4, 5 and 6
   players), every reward mode with and without shaping, default and randomised rules options
   (every option of ``config.OPTIONS`` drawn at random), a batch of tables is played by random
   legal actions, each table mirrored by its own AEC env dealt the same deal (read from the
   vector env's state right after each reset or auto-reset) and given the same actions. Every
   observation, legal mask, player to act, reward (per seat, per step), termination, state
   block, final score, result, hand details, final observation (every seat), record and oracle
   vector must be equal. The AEC env is the reference: it is tested against the rules
   elsewhere, so equality here means the vector env inherits all of that.
2. **Match episodes** (``episode="match"``): every finished match's record replays through
   ``tarot_env.replay`` to its per-hand scores and totals, and through an AEC env to the same
   observations and rewards step by step; terminations come only at the end of a match; with
   ``match_reward="deals"`` each hand pays its reward as it ends, with ``"result"`` only the
   match result is paid, at the end (docs/tarocchino.md "Match episodes").
3. **API**: shapes and dtypes, masks and players from the state, ``rows=`` stepping, auto-reset,
   seeding, fixed deals, refused input (which must change nothing), shaping sums.
4. **SB3**: ``SingleAgentEnv`` and ``TarotVecEnv`` for every Tarocchino env id; MaskablePPO
   trains through both (the ``train`` extra).
"""

from __future__ import annotations

import typing

import numpy as np
import pytest
from helpers_tarocchino import make_deal

import tarot_env
import tarot_env.vector
from tarot_env import IllegalActionError
from tarot_env.cards.bolognese import BOLOGNESE_DECK
from tarot_env.rules.bolognese.config import OPTIONS, _allowed, default, option_names
from tarot_env.rules.bolognese.state import (
    ACTIVE,
    DEALT_TO,
    HAND_NO,
    HAND_OF,
    NUM_ACTIONS,
    PENALTY,
    PH_DONE,
    PILE_OF,
    PL_DISCARD,
    PL_EXTRA,
    PL_HAND,
    PL_PILE,
    PL_TABLE,
    PLACE,
    PLAYED_BY,
    TOTAL,
    TRICK_NO,
    TRICK_OF,
)
from tarot_env.wrappers import SingleAgentEnv

REWARD_MODES = ("score", "normalised", "win_loss")
#: (env id, number of players): the seven games, Mattazza at every player count
GAME_CASES = (
    ("ottocento_v0", 4),
    ("quattro_scartate_v0", 4),
    ("terziglio_v0", 3),
    ("millone_v0", 2),
    ("centocinquanta_v0", 2),
    ("quindici_v0", 2),
    ("mattazza_v0", 3),
    ("mattazza_v0", 4),
    ("mattazza_v0", 5),
    ("mattazza_v0", 6),
)
CASE_IDS = [f"{env_id[:-3]}-{n}" for env_id, n in GAME_CASES]
RESULTS = {"played", "claimed", "wrong_claim", "thrown_in"}
BATCH = 24


# ---------------------------------------------------------------------------- helpers
def _game(env_id: str) -> str:
    return env_id[: -len("_v0")]


def _players(env_id: str, n: int) -> dict[str, int]:
    """The player count keyword: Mattazza needs it, the others have a fixed count."""
    return {"num_players": n} if env_id == "mattazza_v0" else {}


#: values drawn for the int options (the spec's values, plus small targets that make claims common)
_INT_VALUES: dict[str, dict[str, tuple[int, ...]]] = {
    "target": {
        "ottocento": (800, 1000, 1500, 40),
        "millone": (1000, 60),
        "centocinquanta": (150, 151, 200, 30),
        "quindici": (15, 20, 21, 3),
        "mattazza": (3, 2, 5),
    },
    "cappotto_bonus": dict.fromkeys(option_names("ottocento"), (0, 50)),
    "match_hands": {"terziglio": (3, 1, 2)},
}


def _random_rules(rng: np.random.Generator, game: str, num_players: int, episode: str = "deal") -> dict[str, typing.Any]:
    """Every rules option of ``game`` (config.OPTIONS) drawn at random, but ``episode``.

    An option this function does not know how to draw fails the test, so a new rules option
    cannot slip past the differential test unrandomised."""
    rules: dict[str, typing.Any] = {"episode": episode}
    for name in option_names(game):
        if name == "episode":
            continue
        allowed = _allowed(game, name)
        if isinstance(allowed, tuple):
            values = allowed
        elif name in _INT_VALUES:
            values = _INT_VALUES[name].get(game) or _INT_VALUES[name][next(iter(_INT_VALUES[name]))]
        else:
            raise AssertionError(f"rules option {name!r} ({OPTIONS[name].ref}) is not drawn by _random_rules: add it")
        if name == "way" and num_players > 4:
            values = ("target",)  # §14.6b: the first-two way is for 3 or 4 players
        rules[name] = values[int(rng.integers(len(values)))]  # by index: keeps Python bools and ints
    if rng.integers(2):
        rules["dealer"] = int(rng.integers(num_players))
    return rules


def _random_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row."""
    return np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1)


def _current_deal(venv, row: int) -> dict[str, typing.Any]:
    """The deal a row holds now, as an interface.md §4 dict (the vector env needs records=True)."""
    dealer, pack, active = venv.game.dealt[row][-1]
    return venv.game.format_deal(dealer, pack, active)


def _assert_same(what: str, vec: typing.Any, ref: typing.Any, context: str) -> None:
    """Arrays with one row per table are equal; else name the first table that differs."""
    vec, ref = np.asarray(vec), np.asarray(ref)
    assert vec.shape == ref.shape, f"{context}: {what} has shape {vec.shape} in the vector env, {ref.shape} in the AEC env"
    if not np.array_equal(vec, ref):
        diff = np.asarray(vec != ref).reshape(len(vec), -1).any(axis=1)
        row = int(np.flatnonzero(diff)[0])
        cols = np.flatnonzero(np.asarray(vec[row] != ref[row]).reshape(-1))[:10]
        raise AssertionError(
            f"{context}: {what} of table {row} differs at positions {cols.tolist()}: "
            f"vector {np.asarray(vec[row]).reshape(-1)[cols].tolist()} vs AEC {np.asarray(ref[row]).reshape(-1)[cols].tolist()}"
        )


def _assert_close(what: str, vec: np.ndarray, ref: np.ndarray, context: str) -> None:
    """Float arrays equal but for rounding (the exact equality of rewards has its own test)."""
    assert vec.shape == ref.shape, f"{context}: {what} has shape {vec.shape} in the vector env, {ref.shape} in the AEC env"
    bad = ~np.isclose(vec, ref, rtol=0, atol=1e-9)
    if bad.any():
        row = int(np.flatnonzero(bad.any(axis=1))[0])
        raise AssertionError(f"{context}: {what} of table {row} differ: vector {vec[row].tolist()} vs AEC {ref[row].tolist()}")


def _hand_info(end) -> dict[str, typing.Any]:
    """What the AEC env puts in ``infos[agent]`` for a hand that ended (one-hand episodes)."""
    return {"scores": list(end.scores), **{k: v for k, v in end.info.items() if k != "next_dealer"}}


# ---------------------------------------------------------------------------- 1. differential
def _play_differential(env_id: str, n: int, options: dict[str, typing.Any], seed: int, hands: int) -> int:
    """Play ``BATCH`` tables until ``hands`` hands have finished, each against its AEC mirror,
    comparing everything the two envs report; returns how many hands finished."""
    options = dict(_players(env_id, n), **options)
    oracle = options.get("oracle", False)
    venv = tarot_env.vector.make(env_id, BATCH, records=True, **options)
    mirrors = [tarot_env.make(env_id, **options) for _ in range(BATCH)]
    agents = mirrors[0].possible_agents
    seat_of = {a: i for i, a in enumerate(agents)}
    rng = np.random.default_rng(seed + 1)

    def reset_mirror(row: int) -> None:
        assert len(venv.game.dealt[row]) == 1, "a one-hand episode holds one deal"
        mirrors[row].reset(options={"deal": _current_deal(venv, row)})

    out = venv.reset(seed=seed)
    for row in range(BATCH):
        reset_mirror(row)
    finished, results, steps = 0, set(), 0
    while finished < hands:
        steps += 1
        assert steps < 5000, "the hands do not finish"
        ctx = f"{env_id} n={n} options={options} step {steps}"
        # the whole state, then what the player to act sees, before the action
        for k, name in enumerate(("ints", "seat_ints", "cards", "hist", "legal")):
            _assert_same(f"state block {name}", venv.state.blocks[k], np.stack([env.state.blocks[k][0] for env in mirrors]), ctx)
        current = [env.agent_selection for env in mirrors]
        assert not any(env.terminations[a] for env, a in zip(mirrors, current))
        views = [env.observe(a) for env, a in zip(mirrors, current)]
        _assert_same("player to act", out.players, np.array([seat_of[a] for a in current]), ctx)
        _assert_same("observation", out.observations, np.stack([v["observation"] for v in views]), ctx)
        _assert_same("action mask", out.action_masks, np.stack([v["action_mask"] for v in views]).astype(bool), ctx)
        if oracle:
            _assert_same("oracle", out.infos["oracle"], np.stack([v["oracle"] for v in views]), ctx)
        else:
            assert "oracle" not in out.infos
        actions = _random_actions(rng, out.action_masks)
        out = venv.step(actions)
        # what each seat receives from the action
        rewards = np.zeros((BATCH, n))
        terminations = np.zeros(BATCH, dtype=bool)
        for row, env in enumerate(mirrors):
            env.step(int(actions[row]))
            rewards[row] = [env.rewards[a] for a in agents]
            terminations[row] = env.terminations[agents[0]]
            assert all(env.terminations[a] == terminations[row] for a in agents)
        _assert_same("terminations", out.terminations, terminations, ctx)
        _assert_close("rewards", out.rewards, rewards, ctx)
        ended = out.infos["ended"]
        assert ended.tolist() == np.flatnonzero(terminations).tolist(), ctx
        assert sorted(e.row for e in out.infos["hands"]) == ended.tolist(), ctx  # one hand per episode
        if not len(ended):
            continue
        # the finished hands: scores, results, details, every seat's last observation, records
        refs = [mirrors[row] for row in ended]
        _assert_same("scores", out.infos["scores"], np.array([env.infos[agents[0]]["scores"] for env in refs]), ctx)
        assert out.infos["results"] == [env.infos[agents[0]]["result"] for env in refs], ctx
        for end in out.infos["hands"]:
            assert _hand_info(end) == mirrors[end.row].infos[agents[0]], ctx
        final = np.stack([[env.observe(a)["observation"] for a in agents] for env in refs])
        _assert_same("final observations", out.infos["final_observations"], final, ctx)
        assert out.infos["records"] == [env.unwrapped.record() for env in refs], ctx
        for row in ended.tolist():
            reset_mirror(row)
        finished += len(ended)
        results.update(out.infos["results"])
    assert results <= RESULTS
    return finished


@pytest.mark.parametrize("shaping", [False, True])
@pytest.mark.parametrize("reward", REWARD_MODES)
@pytest.mark.parametrize(("env_id", "n"), GAME_CASES, ids=CASE_IDS)
def test_vector_env_equals_aec_env_step_by_step(env_id, n, reward, shaping):
    """Same deals, same actions: the vector env reports exactly what BATCH AEC envs report.

    Half the cases use the default rules, half every option drawn at random (each game and
    reward mode gets one of each across its two shaping cases; small targets make claims
    common, wrong_claim='loses' opens every claim window); the 'score' cases ask for the
    oracle vector too. 40 hands a case, 2,400 hands over the 60 cases."""
    case_seed = 1000 * GAME_CASES.index((env_id, n)) + 10 * REWARD_MODES.index(reward) + shaping
    randomised = (REWARD_MODES.index(reward) + shaping + GAME_CASES.index((env_id, n))) % 2 == 1
    rules = _random_rules(np.random.default_rng(case_seed), _game(env_id), n) if randomised else {}
    options = dict(reward=reward, shaping=shaping, oracle=reward == "score", **rules)
    assert _play_differential(env_id, n, options, seed=case_seed, hands=40) >= 40


@pytest.mark.parametrize(
    ("env_id", "n", "rules"),
    [
        ("ottocento_v0", 4, {"target": 30, "wrong_claim": "loses", "matto_exchange": "choose", "must_overtrump": True}),
        ("millone_v0", 2, {"target": 40, "wrong_claim": "loses", "first_discarder": "dealer", "second_deal_first": "dealer"}),
        ("centocinquanta_v0", 2, {"target": 20, "opponent_claim": "before_discard", "dealer_claims_after_pickup": False}),
        ("quindici_v0", 2, {"target": 2, "claim_rounding": "raw_sum", "matto_exchange": "choose", "matto_lead": "never"}),
        ("terziglio_v0", 3, {"first_lead": "soloist", "odd_pile": "odd_alone", "poste_rounding": "nearest", "matto_exchange": "choose"}),
        ("quattro_scartate_v0", 4, {"mori": "best", "matto_is_trump": True, "matto_last_trick": "lost", "matto_gift": "any"}),
        ("mattazza_v0", 5, {"full_count": False, "matto_exchange": "choose", "must_overtrump": True, "mori": "grande"}),
    ],
)
def test_vector_env_equals_aec_env_with_claims_and_chosen_matto_exchanges(env_id, n, rules):
    """The decisions that the default rules make rare: claims below small targets (§8.4, right
    and wrong), the Matto's card chosen by its owner (U20 'choose'), Millone's dealer-first
    options (U22), Terziglio's soloist lead (U13) ..., compared the same way with shaping."""
    options = dict(reward="normalised", shaping=True, **rules)
    assert _play_differential(env_id, n, options, seed=len(rules) + n, hands=30) >= 30


# ---------------------------------------------------------------------------- 2. match episodes
def _expected_hand_reward(game: str, end, target: int) -> np.ndarray:
    """A hand's reward in the 'score' mode, from its scores (docs/tarocchino.md "Scores and rewards"):
    two sides: own side's score minus the other's (a wrong claim: ∓ the target to the claiming
    side); Terziglio: the settlement; Mattazza: −1 for each loser (§14.5)."""
    scores = np.asarray(end.scores, dtype=float)
    n = len(scores)
    if game == "mattazza":
        out = np.zeros(n)
        out[end.info.get("losers", [])] = -1.0
        return out
    if game == "terziglio":
        return scores
    side = np.arange(n) % 2  # partners 0 & 2 v 1 & 3; in the 2-player games each seat is a side
    if end.result == "wrong_claim":
        claimer = end.info["claimer"]
        return np.where(side == side[claimer], -float(target), float(target))
    return np.array([scores[s] - scores[(s + 1) % n] for s in range(n)])


def _expected_match_reward(game: str, end, n: int) -> np.ndarray:
    """The match result (match_reward='result'): +1 the winning side, −1 the other, 0 a draw;
    Mattazza: −1 for the match's losers, +1 the others."""
    if game == "mattazza":
        return np.array([-1.0 if s in end.info["match_losers"] else 1.0 for s in range(n)])
    winner = end.info["game_winner"]
    if winner == "draw":
        return np.zeros(n)
    if game == "terziglio":
        return np.array([1.0 if s == winner else -1.0 for s in range(n)])
    return np.array([1.0 if s % 2 == winner % 2 else -1.0 for s in range(n)])


#: match options that keep the matches short enough (smaller targets), by game
MATCH_RULES = {
    "ottocento": {"target": 300},
    "quattro_scartate": {},
    "terziglio": {},
    "millone": {"target": 200},
    "centocinquanta": {"target": 60},
    "quindici": {},
    "mattazza": {"target": 2},
}


@pytest.mark.parametrize("match_reward", ["deals", "result"])
@pytest.mark.parametrize(("env_id", "n"), GAME_CASES, ids=CASE_IDS)
def test_match_records_replay_and_rewards_follow_match_reward(env_id, n, match_reward):
    """episode='match' (docs "Match episodes"): each finished match's record replays with
    tarot_env.replay to its totals and every hand's scores (those reported as the hands ended),
    and through an AEC env to the same observations, masks and rewards at every step.
    A row terminates only at the step where its match ends (a hand with match_over), never at
    the other hands; with match_reward='deals' each hand pays its score-mode reward as it ends
    (and nothing else is paid), with 'result' only the match result is paid, at the end.
    The match ends where the rules end it (see _check_match_end)."""
    game = _game(env_id)
    B = 6
    options = dict(_players(env_id, n), episode="match", match_reward=match_reward, **MATCH_RULES[game])
    venv = tarot_env.vector.make(env_id, B, records=True, **options)
    target = venv.config.options.get("target", 0)
    out = venv.reset(seed=n + 7 * len(game))
    rng = np.random.default_rng(n)
    seen: list[list[tuple]] = [[] for _ in range(B)]  # per row: (observation, mask, action, rewards, terminated)
    hands: list[list] = [[] for _ in range(B)]  # per row: the HandEnds of its match so far
    matches, multi_hand, steps = 0, 0, 0
    while matches < 6:
        steps += 1
        assert steps < 20_000, "the matches do not finish"
        actions = _random_actions(rng, out.action_masks)
        before = out
        out = venv.step(actions)
        expected = np.zeros((B, n))
        match_ends = set()
        for end in out.infos["hands"]:
            hands[end.row].append(end)
            if end.match_over:
                match_ends.add(end.row)
                if match_reward == "result":
                    expected[end.row] = _expected_match_reward(game, end, n)
            if match_reward == "deals":
                expected[end.row] += _expected_hand_reward(game, end, target)
        np.testing.assert_allclose(out.rewards, expected, rtol=0, atol=1e-9)
        assert sorted(match_ends) == out.infos["ended"].tolist() == np.flatnonzero(out.terminations).tolist()
        for row in range(B):
            seen[row].append((before.observations[row], before.action_masks[row], int(actions[row]), out.rewards[row], out.terminations[row]))
        for k, row in enumerate(out.infos["ended"].tolist()):
            record = out.infos["records"][k]
            assert record["env"] == env_id and record["config"] == venv.config.to_dict()
            assert [d["scores"] for d in record["deals"]] == [end.scores for end in hands[row]]
            assert out.infos["scores"][k].tolist() == hands[row][-1].scores
            assert out.infos["results"][k] == hands[row][-1].result
            assert tarot_env.replay(record) == record["totals"]
            _check_match_end(game, n, record["totals"], hands[row], venv.config.options)
            _replay_through_aec(env_id, options, record, seen[row])
            multi_hand += len(record["deals"]) > 1
            seen[row], hands[row] = [], []
            matches += 1
    assert multi_hand >= 4  # most matches had several hands


def _check_match_end(game: str, n: int, totals: list[int], hands: list, rules: dict[str, typing.Any]) -> None:
    """The match ended where the rules end it (docs "Match episodes", §8.1, §9, §10.7, §11–§14.6),
    with the running totals the sums of the hands' scores."""
    assert all(not end.match_over for end in hands[:-1]) and hands[-1].match_over
    results = [end.result for end in hands]
    assert set(results) <= RESULTS
    if game == "mattazza":  # §14.6a: a player with `target` penalty points drops out; the match ends when at most two are in
        penalties = np.zeros(n, dtype=int)
        ins = []
        for end in hands:
            penalties[end.info["losers"]] += 1
            ins.append(int((penalties < rules["target"]).sum()))
        assert hands[-1].info["penalties"] == penalties.tolist()
        assert ins[-1] <= 2 and all(k > 2 for k in ins[:-1]), ins
        assert hands[-1].info["match_losers"] == np.flatnonzero(penalties >= rules["target"]).tolist()
        assert totals == [0] * n
        return
    counted = [end for end in hands if end.result == "played"]  # a claim ends the game unplayed; U12: a thrown-in hand does not count
    assert totals == np.sum([end.scores for end in counted], axis=0, dtype=int).tolist() if counted else [0] * n
    assert all(r in ("played", "thrown_in") for r in results[:-1])
    if game == "quattro_scartate":
        assert len(hands) == 4  # four hands, then the higher total wins (tie='draw': no extra hand)
    elif game == "terziglio":
        assert len(counted) == rules["match_hands"]  # every hand is a game in itself; `match_hands` of them
    elif results[-1] == "played":  # §8.1: a side reached the target, the higher total wins; equal totals play on (U9)
        before = totals if len(counted) == 1 else np.sum([end.scores for end in counted[:-1]], axis=0).tolist()
        assert max(totals) >= rules["target"] and totals[0] != totals[1], totals
        assert len(counted) == 1 or max(before) < rules["target"] or before[0] == before[1], before
        assert hands[-1].info["game_winner"] == int(np.argmax(totals[:2]))
    else:  # a claim ends the game at once: right, the claiming side wins; wrong (U: wrong_claim='loses'), it loses
        claimer = hands[-1].info["claimer"]
        winner = claimer % 2 if results[-1] == "claimed" else (claimer + 1) % 2
        assert hands[-1].info["game_winner"] == winner


def _replay_through_aec(env_id: str, options: dict[str, typing.Any], record: dict[str, typing.Any], seen: list[tuple]) -> None:
    """The AEC env dealt the record's deals and given its actions shows the same observation and
    mask to the player to act, pays the same rewards, and terminates at the same (last) step;
    its own record is the vector env's (with the match result besides)."""
    env = tarot_env.make(env_id, **options)
    env.reset(options={"deals": [d["deal"] for d in record["deals"]]})
    actions = [a for d in record["deals"] for a in d["actions"]]
    assert [env.unwrapped.string_to_action(a) for a in actions] == [s[2] for s in seen]
    for t, (obs, mask, action, rewards, terminated) in enumerate(seen):
        view = env.observe(env.agent_selection)
        assert np.array_equal(view["observation"], obs), f"step {t}: observation"
        assert np.array_equal(view["action_mask"].astype(bool), mask), f"step {t}: mask"
        env.step(action)
        np.testing.assert_array_equal([env.rewards[a] for a in env.possible_agents], rewards, err_msg=f"step {t}: rewards")
        assert env.terminations[env.possible_agents[0]] == terminated == (t == len(seen) - 1), f"step {t}"
    aec_record = env.unwrapped.record()
    assert {k: v for k, v in aec_record.items() if k != "result"} == record
