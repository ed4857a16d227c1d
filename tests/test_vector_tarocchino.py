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

import collections
import typing

import numpy as np
import pytest

import tarot_env
import tarot_env.vector
from tarot_env import IllegalActionError
from tarot_env.cards.bolognese import BOLOGNESE_DECK
from tarot_env.rules.bolognese.config import OPTIONS, _allowed, option_names
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
    SOLOIST,
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
VERBS = {"play", "discard", "give", "declare", "no_declare", "claim", "no_claim", "pass", "posso", "di_mio", "va_bene", "oppose"}
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
    "cappotto_bonus": {"*": (0, 50)},  # every game that has it
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
            values = _INT_VALUES[name].get(game, _INT_VALUES[name].get("*"))
        else:
            raise AssertionError(f"rules option {name!r} ({OPTIONS[name].ref}) is not drawn by _random_rules: add it")
        if name == "way" and num_players > 4:
            values = ("target",)  # §14.6b: the first-two way is for 3 or 4 players
        rules[name] = values[int(rng.integers(len(values)))]  # by index: keeps Python bools and ints
    if rng.integers(2):
        rules["dealer"] = int(rng.integers(num_players))
    return rules


def _random_actions(rng: np.random.Generator, masks: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """One random legal action per row: uniform, or in proportion to ``weights`` (A,) (the
    largest u ** (1 / w), u uniform, is drawn with probability w / Σw)."""
    u = rng.random(masks.shape)
    if weights is not None:
        u = u ** (1.0 / weights)
    return np.where(masks, u, -1.0).argmax(axis=1)


#: the differential's action weights: a claim is tried 1 time in 8 where allowed, so that with
#: wrong_claim='loses' (a claim window at every chance) most hands are still played out
PLAY_WEIGHTS = np.ones(NUM_ACTIONS)
PLAY_WEIGHTS[tarot_env.vector.TarocchinoVectorEnv.string_to_action("claim")] = 1 / 7


def _current_deal(venv, row: int) -> dict[str, typing.Any]:
    """The deal a row holds now, as an interface.md §4 dict (the vector env needs records=True)."""
    dealer, pack, active = venv.deals.dealt[row][-1]
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
def _play_differential(env_id: str, n: int, options: dict[str, typing.Any], seed: int, hands: int) -> collections.Counter:
    """Play ``BATCH`` tables until ``hands`` hands have finished, each against its AEC mirror,
    comparing everything the two envs report; returns what was seen: the count of finished
    hands ("hands"), of each result and of each action verb played."""
    options = dict(_players(env_id, n), **options)
    oracle = options.get("oracle", False)
    venv = tarot_env.vector.make(env_id, BATCH, records=True, **options)
    mirrors = [tarot_env.make(env_id, **options) for _ in range(BATCH)]
    agents = mirrors[0].possible_agents
    seat_of = {a: i for i, a in enumerate(agents)}
    rng = np.random.default_rng(seed + 1)

    def reset_mirror(row: int) -> None:
        assert len(venv.deals.dealt[row]) == 1, "a one-hand episode holds one deal"
        mirrors[row].reset(options={"deal": _current_deal(venv, row)})

    out = venv.reset(seed=seed)
    for row in range(BATCH):
        reset_mirror(row)
    seen: collections.Counter = collections.Counter()
    steps = 0
    while seen["hands"] < hands:
        steps += 1
        assert steps < 5000, "the hands do not finish"
        ctx = f"{env_id} n={n} options={options} step {steps}"
        # the whole state, then what the player to act sees, before the action
        for name, block in venv.game_state.blocks.items():
            _assert_same(f"state block {name}", block, np.stack([env.game_state.blocks[name][0] for env in mirrors]), ctx)
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
        actions = _random_actions(rng, out.action_masks, PLAY_WEIGHTS)
        seen.update(venv.action_to_string(a).split()[0] for a in actions)
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
        seen["hands"] += len(ended)
        seen.update(out.infos["results"])
    assert set(seen) <= RESULTS | VERBS | {"hands"}
    return seen


@pytest.mark.parametrize("shaping", [False, True])
@pytest.mark.parametrize("reward", REWARD_MODES)
@pytest.mark.parametrize(("env_id", "n"), GAME_CASES, ids=CASE_IDS)
def test_vector_env_equals_aec_env_step_by_step(env_id, n, reward, shaping):
    """Same deals, same actions: the vector env reports exactly what BATCH AEC envs report.

    Half the cases use the default rules, half every option drawn at random (each game and
    reward mode gets one of each across its two shaping cases; small targets make claims
    common, wrong_claim='loses' opens every claim window); the 'score' cases ask for the
    oracle vector too. 36 hands a case, 2,160 hands over the 60 cases."""
    case_seed = 1000 * GAME_CASES.index((env_id, n)) + 10 * REWARD_MODES.index(reward) + shaping
    randomised = (REWARD_MODES.index(reward) + shaping + GAME_CASES.index((env_id, n))) % 2 == 1
    rules = _random_rules(np.random.default_rng(case_seed), _game(env_id), n) if randomised else {}
    options = dict(reward=reward, shaping=shaping, oracle=reward == "score", **rules)
    seen = _play_differential(env_id, n, options, seed=case_seed, hands=36)
    assert seen["hands"] >= 36 and seen["play"] > 0


@pytest.mark.parametrize(
    ("env_id", "n", "rules", "expected"),
    [
        ("ottocento_v0", 4, {"target": 30, "wrong_claim": "loses", "matto_exchange": "choose", "must_overtrump": True},
         {"claimed", "wrong_claim", "give", "played"}),
        ("millone_v0", 2, {"target": 40, "wrong_claim": "loses", "first_discarder": "dealer", "second_deal_first": "dealer"},
         {"claimed", "wrong_claim", "played"}),
        ("centocinquanta_v0", 2, {"target": 20, "opponent_claim": "before_discard", "dealer_claims_after_pickup": False},
         {"claimed", "played"}),
        ("quindici_v0", 2, {"target": 2, "claim_rounding": "raw_sum", "matto_exchange": "choose", "matto_lead": "never"},
         {"claimed", "give", "played"}),
        ("terziglio_v0", 3, {"first_lead": "soloist", "odd_pile": "odd_alone", "poste_rounding": "nearest", "matto_exchange": "choose"},
         {"give", "posso", "di_mio", "va_bene", "oppose", "discard", "declare"}),
        ("quattro_scartate_v0", 4, {"mori": "best", "matto_is_trump": True, "matto_last_trick": "lost", "matto_gift": "any"},
         {"declare", "discard", "played"}),
        ("mattazza_v0", 5, {"full_count": False, "matto_exchange": "choose", "must_overtrump": True, "mori": "grande"},
         {"give", "played"}),
    ],
)  # fmt: skip
def test_vector_env_equals_aec_env_with_claims_and_chosen_matto_exchanges(env_id, n, rules, expected):
    """The decisions that the default rules make rare: claims below small targets (§8.4, right
    and wrong), the Matto's card chosen by its owner (U20 'choose'), Millone's dealer-first
    options (U22), Terziglio's soloist lead (U13) ..., compared the same way with shaping;
    the results and action verbs of ``expected`` must have occurred."""
    options = dict(reward="normalised", shaping=True, **rules)
    seen = _play_differential(env_id, n, options, seed=len(rules) + n, hands=30)
    assert seen["hands"] >= 30
    assert expected <= set(seen), f"not exercised: {expected - set(seen)}"


# ---------------------------------------------------------------------------- 2. match episodes
def _expected_hand_reward(game: str, end, target: int) -> np.ndarray:
    """A finished hand's (HandEnd) reward in the 'score' mode, by seat: see :func:`_reward_of`."""
    return _reward_of(game, end.result, end.scores, end.info, target)


def _reward_of(game: str, result: str, scores: list[int], info: dict[str, typing.Any], target: int) -> np.ndarray:
    """A hand's reward in the 'score' mode, from its result, scores and details (docs/tarocchino.md
    "Scores and rewards"): two sides: own side's score minus the other's (a wrong claim: ∓ the
    target to the claiming side; a thrown-in Terziglio hand: 0); Terziglio: the settlement;
    Mattazza: −1 for each loser (§14.5)."""
    scores_f = np.asarray(scores, dtype=float)
    n = len(scores_f)
    if game == "mattazza":
        out = np.zeros(n)
        out[info.get("losers", [])] = -1.0
        return out
    if game == "terziglio":
        return scores_f
    side = np.arange(n) % 2  # partners 0 & 2 v 1 & 3; in the 2-player games each seat is a side
    if result == "wrong_claim":
        return np.where(side == side[info["claimer"]], -float(target), float(target))
    return np.array([scores_f[s] - scores_f[(s + 1) % n] for s in range(n)])


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


#: match rules by case: Mattazza plays to 2 penalty points (shorter matches), or the first-two way with 3 players
MATCH_RULES = {("mattazza_v0", 3): {"way": "first_two"}, ("mattazza_v0", 4): {"target": 2}, ("mattazza_v0", 5): {"target": 2},
               ("mattazza_v0", 6): {"target": 2}}  # fmt: skip


@pytest.mark.parametrize("match_reward", ["deals", "result"])
@pytest.mark.parametrize(("env_id", "n"), GAME_CASES, ids=CASE_IDS)
def test_match_records_replay_and_rewards_follow_match_reward(env_id, n, match_reward):
    """episode='match' (docs "Match episodes"): each finished match's record replays with
    tarot_env.replay to its totals and every hand's scores (those reported as the hands ended),
    and through an AEC env to the same observations, masks and rewards at every step.
    A row terminates only at the step where its match ends (a hand with match_over), never at
    the other hands; with match_reward='deals' each hand pays its score-mode reward as it ends
    (and nothing else is paid), with 'result' only the match result is paid, at the end.
    The match ends where the rules end it (see _check_match_end). The 'deals' cases play the
    default rules (Mattazza: see MATCH_RULES), the 'result' cases every option at random but
    the target (kept, so that matches have several hands), with shaping: the tricks are paid
    as they are won, and a match's rewards add up to its result."""
    game = _game(env_id)
    B = 6
    if match_reward == "deals":
        rules = dict(MATCH_RULES.get((env_id, n), {}), episode="match")
    else:
        rules = _random_rules(np.random.default_rng(n + len(game)), game, n, episode="match")
        rules.pop("target", None)
        rules.pop("dealer", None)
        rules.update(match_reward="result", shaping=True, reward="normalised")
    options = dict(_players(env_id, n), **rules)
    shaping = match_reward == "result"
    venv = tarot_env.vector.make(env_id, B, records=True, **options)
    config = venv.config.options
    out = venv.reset(seed=n + 7 * len(game))
    rng = np.random.default_rng(n)
    seen: list[list[tuple]] = [[] for _ in range(B)]  # per row: (observation, mask, action, rewards, terminated)
    hands: list[list] = [[] for _ in range(B)]  # per row: the HandEnds of its match so far
    paid = np.zeros((B, n))  # per row: the rewards of its match so far
    matches, multi_hand, steps = 0, 0, 0
    while matches < 5:
        steps += 1
        assert steps < 20_000, "the matches do not finish"
        actions = _random_actions(rng, out.action_masks, PLAY_WEIGHTS)
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
                expected[end.row] += _expected_hand_reward(game, end, config.get("target", 0))
        paid += out.rewards
        if shaping:  # the tricks are paid as they are won; a match's rewards add up to its result
            ended = out.infos["ended"]
            np.testing.assert_allclose(paid[ended], expected[ended], rtol=0, atol=1e-9)
            paid[ended] = 0.0
        else:
            np.testing.assert_allclose(out.rewards, expected, rtol=0, atol=1e-9)
        assert sorted(match_ends) == out.infos["ended"].tolist() == np.flatnonzero(out.terminations).tolist()
        for row in range(B):
            seen[row].append(
                (before.observations[row], before.action_masks[row], int(actions[row]), out.rewards[row], out.terminations[row])
            )
        for k, row in enumerate(out.infos["ended"].tolist()):
            record = out.infos["records"][k]
            assert record["env"] == env_id and record["config"] == venv.config.to_dict()
            assert [d["scores"] for d in record["deals"]] == [end.scores for end in hands[row]]
            assert out.infos["scores"][k].tolist() == hands[row][-1].scores
            assert out.infos["results"][k] == hands[row][-1].result
            assert tarot_env.replay(record) == record["totals"]
            _check_match_end(game, n, record["totals"], hands[row], config)
            _replay_through_aec(env_id, options, record, seen[row])
            multi_hand += len(record["deals"]) > 1
            seen[row], hands[row] = [], []
            matches += 1
    assert multi_hand >= 2  # matches of several hands were compared


def _check_match_end(game: str, n: int, totals: list[int], hands: list, rules: dict[str, typing.Any]) -> None:
    """The match ended where the rules end it (docs "Match episodes", §8.1, §9, §10.7, §11–§14.6),
    with the running totals the sums of the hands' scores."""
    assert all(not end.match_over for end in hands[:-1]) and hands[-1].match_over
    results = [end.result for end in hands]
    assert set(results) <= RESULTS
    if game == "mattazza":
        # §14.6a: a player with `target` penalty points (one per hand lost) drops out; the match ends when at most two are in.
        # §14.6b: the match ends when two players have 3 points; they lose.
        penalties = np.zeros(n, dtype=int)
        limit = 3 if rules["way"] == "first_two" else rules["target"]
        still_on = []
        for end in hands:
            if rules["way"] == "target":  # those out get no cards, so lose no hand
                assert set(end.info["losers"]) <= set(np.flatnonzero(penalties < limit).tolist())
            penalties[end.info["losers"]] += 1
            out = int((penalties >= limit).sum())
            still_on.append(out < 2 if rules["way"] == "first_two" else n - out > 2)
        assert hands[-1].info["penalties"] == penalties.tolist()
        assert not still_on[-1] and all(still_on[:-1]), penalties
        assert hands[-1].info["match_losers"] == np.flatnonzero(penalties >= limit).tolist()
        assert totals == [0] * n
        return
    counted = [end for end in hands if end.result == "played"]  # a claim ends the game unplayed; U12: a thrown-in hand does not count
    assert totals == (np.sum([end.scores for end in counted], axis=0, dtype=int).tolist() if counted else [0] * n)
    assert all(r in ("played", "thrown_in") for r in results[:-1])
    winner = hands[-1].info["game_winner"]
    if game == "quattro_scartate":  # §9: four hands, the higher total wins; equal totals: a draw, or one extra hand (U10)
        assert len(hands) == 4 or (rules["tie"] == "extra_hand" and len(hands) > 4)
        assert winner == ("draw" if totals[0] == totals[1] else int(np.argmax(totals[:2])))
    elif game == "terziglio":  # §10.7: every hand is a game in itself; `match_hands` of them, the settlements add up
        assert len(counted) == rules["match_hands"]
        assert winner == ("draw" if sorted(totals)[-1] == sorted(totals)[-2] else int(np.argmax(totals)))
    elif results[-1] == "played":  # §8.1: a side reached the target, the higher total wins; equal totals play on (U9) or draw
        before = np.sum([end.scores for end in counted[:-1]], axis=0).tolist() if len(counted) > 1 else [0] * n
        assert max(totals) >= rules["target"], totals
        assert max(before) < rules["target"] or before[0] == before[1], before
        if totals[0] == totals[1]:
            assert rules["tie"] == "draw" and winner == "draw"
        else:
            assert winner == int(np.argmax(totals[:2]))
    else:  # §8.4: a claim ends the game at once: right, the claiming side wins; wrong (wrong_claim='loses'), it loses
        claimer = hands[-1].info["claimer"]
        assert winner == (claimer % 2 if results[-1] == "claimed" else (claimer + 1) % 2)


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
        np.testing.assert_allclose([env.rewards[a] for a in env.possible_agents], rewards, rtol=0, atol=1e-9, err_msg=f"step {t}")
        assert env.terminations[env.possible_agents[0]] == terminated == (t == len(seen) - 1), f"step {t}"
    assert env.unwrapped.record() == record


def test_match_record_holds_the_result():
    """A match record is {"env", "config", "deals", "totals", "result"} (docs/tarocchino.md
    "Fixed deals, running totals, records"): the vector env's match records must carry the
    result too (the winning side, or Mattazza's losers), as the AEC env's record() does."""
    for env_id, n, rules in (("quattro_scartate_v0", 4, {}), ("mattazza_v0", 4, {"target": 2})):
        venv = tarot_env.vector.make(env_id, 4, records=True, episode="match", **_players(env_id, n), **rules)
        out = venv.reset(seed=1)
        rng = np.random.default_rng(1)
        while not out.terminations.any():
            out = venv.step(_random_actions(rng, out.action_masks))
        record = out.infos["records"][0]
        last = next(end for end in out.infos["hands"] if end.row == out.infos["ended"][0])
        expected = last.info["match_losers"] if env_id == "mattazza_v0" else last.info["game_winner"]
        assert record.get("result", "missing") == expected, f"{env_id}: the record's keys are {sorted(record)}"


def test_shaped_rewards_are_exactly_the_aec_envs():
    """With shaping, the reward of the step that ends a hand is the hand's reward minus what
    the tricks paid. The AEC env pays the last trick and subtracts it again at that step; the
    vector env must give the same numbers, bit for bit (the differential compares the rewards
    to 1e-9 so that the other checks run; this test asks for exact equality)."""
    B, env_id = 24, "ottocento_v0"
    venv = tarot_env.vector.make(env_id, B, records=True, reward="normalised", shaping=True)
    mirrors = [tarot_env.make(env_id, reward="normalised", shaping=True) for _ in range(B)]
    out = venv.reset(seed=3)
    for row, env in enumerate(mirrors):
        env.reset(options={"deal": _current_deal(venv, row)})
    rng = np.random.default_rng(3)
    inexact = []
    for t in range(150):
        actions = _random_actions(rng, out.action_masks)
        out = venv.step(actions)
        for row, env in enumerate(mirrors):
            env.step(int(actions[row]))
            ref = np.array([env.rewards[a] for a in env.possible_agents])
            if not np.array_equal(out.rewards[row], ref):
                inexact.append((t, row, bool(out.terminations[row]), out.rewards[row].tolist(), ref.tolist()))
        for row in out.infos["ended"].tolist():
            mirrors[row].reset(options={"deal": _current_deal(venv, row)})
    assert not inexact, f"{len(inexact)} steps differ (step, table, terminated, vector, AEC), e.g. {inexact[:3]}"


# ---------------------------------------------------------------------------- 3. API
#: the cards each seat is dealt, by offset from the dealer's right (0 = the Primo; the dealer
#: is offset n - 1), the dealer's last cards, the rest and where it goes (§5.2, §8–§14; deal.py)
DEAL_SHAPES = {
    "ottocento": ((15, 15, 15, 17), 2, 0, None),
    "quattro_scartate": ((15, 15, 15, 17), 2, 0, None),
    "terziglio": ((18, 18, 18), 0, 8, "pozzo"),
    "millone": ((20, 22), 2, 20, "second"),
    "centocinquanta": ((15, 17), 2, 30, "out"),
    "quindici": ((15, 17), 2, 30, "out"),
}
REST_PLACE = {"pozzo": 3, "second": 2, "out": 4}  # PL_POZZO, PL_SECOND, PL_OUT (state.py)


def _deal_shape(game: str, n: int) -> tuple[tuple[int, ...], int, int, str | None]:
    if game == "mattazza":  # §14: 10 cards each, the rest out of play
        return (10,) * n, 0, 62 - 10 * n, "out"
    return DEAL_SHAPES[game]


def _random_deal(rng: np.random.Generator, game: str, n: int) -> dict[str, typing.Any]:
    """A random fixed deal (interface.md §4), built from the deal's shape alone: hands in seat
    order, the dealer's last cards at the end of his list, the rest."""
    sizes, _, rest_size, _ = _deal_shape(game, n)
    order = [BOLOGNESE_DECK.names[c] for c in rng.permutation(62)]
    dealer = int(rng.integers(n))
    hands, k = [], 0
    for seat in range(n):
        size = sizes[(seat - dealer - 1) % n]
        hands.append(order[k : k + size])
        k += size
    assert len(order) - k == rest_size
    return {"dealer": dealer, "hands": hands, "rest": order[k:]}


def _make(env_id: str = "ottocento_v0", num_envs: int = 8, n: int | None = None, **options: typing.Any):
    return tarot_env.vector.make(env_id, num_envs, **_players(env_id, n or 4), **options)


def _blocks(venv) -> list[np.ndarray]:
    return [block.copy() for block in venv.game_state.blocks.values()]


def _assert_blocks_unchanged(venv, before: list[np.ndarray]) -> None:
    for name, block, old in zip(("ints", "seat_ints", "cards", "hist", "legal"), venv.game_state.blocks.values(), before):
        assert np.array_equal(block, old), f"state block {name!r} changed"


def _trajectory(venv, out, seed: int, steps: int) -> list[tuple]:
    """What ``steps`` random legal steps (actions drawn with ``seed``) return, as comparable tuples."""
    rng = np.random.default_rng(seed)
    seen = []
    for _ in range(steps):
        out = venv.step(_random_actions(rng, out.action_masks))
        i = out.infos
        seen.append((out.observations, out.action_masks, out.players, out.rewards, out.terminations, i["ended"],
                     i.get("scores"), i.get("final_observations"), i.get("records"), i.get("results")))  # fmt: skip
    return seen


def _assert_same_trajectory(a: list[tuple], b: list[tuple]) -> None:
    assert len(a) == len(b)
    for t, (x, y) in enumerate(zip(a, b)):
        for k, (u, v) in enumerate(zip(x, y)):
            same = u == v if isinstance(u, (list, type(None))) else np.array_equal(u, v)
            assert same, f"step {t}: item {k} of the step differs"


@pytest.mark.parametrize(("env_id", "n"), GAME_CASES, ids=CASE_IDS)
def test_reset_and_step_return_documented_shapes_and_dtypes(env_id, n):
    """VectorStep: observations (B, D) int8 of 0/1, masks (B, 195) bool equal to the state's
    legal rows and never empty, players (B,) int the state's seat to act, rewards (B, N)
    float64, terminations (B,) bool; D, the oracle's size and A those of the AEC env's spaces;
    the infos of finished hands carry (E, N) scores, E results, (E, N, D) final observations
    and the hands (HandEnd) that ended; no records without records=True. What a step returned
    is the caller's: later steps do not write into it."""
    B = 8
    venv = _make(env_id, B, n, oracle=True)
    aec = tarot_env.make(env_id, **_players(env_id, n), oracle=True)
    space = aec.observation_space("player_0")
    D, D_oracle = space["observation"].shape[0], space["oracle"].shape[0]
    assert aec.action_space("player_0").n == NUM_ACTIONS == 3 * 62 + 9  # play/discard/give <card>, 9 words (interface.md §3)
    assert (venv.num_envs, venv.num_players, venv.observation_size, venv.num_actions) == (B, n, D, NUM_ACTIONS)

    def check(out) -> None:
        assert isinstance(out, tarot_env.vector.VectorStep)
        assert out.observations.shape == (B, D) and out.observations.dtype == np.int8
        assert set(np.unique(out.observations)) <= {0, 1}
        assert out.action_masks.shape == (B, NUM_ACTIONS) and out.action_masks.dtype == np.bool_
        assert out.players.shape == (B,) and np.issubdtype(out.players.dtype, np.integer)
        assert out.rewards.shape == (B, n) and out.rewards.dtype == np.float64
        assert out.terminations.shape == (B,) and out.terminations.dtype == np.bool_
        assert out.infos["oracle"].shape == (B, D_oracle) and out.infos["oracle"].dtype == np.int8
        assert np.array_equal(out.players, venv.game_state.current) and np.array_equal(out.action_masks, venv.game_state.legal)
        assert out.action_masks.any(axis=1).all()  # every table waits for a decision
        assert (venv.game_state.ints[:, 0] != PH_DONE).all()

    out = venv.reset(seed=3)
    check(out)
    assert not out.rewards.any() and not out.terminations.any()
    rng = np.random.default_rng(0)
    ended_seen = 0
    while ended_seen < B:
        kept = [np.copy(x) for x in out[:5]] + [out.infos["oracle"].copy()]
        previous = out
        out = venv.step(_random_actions(rng, out.action_masks))
        check(out)
        for mine, theirs in zip(kept, [*previous[:5], previous.infos["oracle"]]):
            assert np.array_equal(mine, theirs)
        E = len(out.infos["ended"])
        assert out.infos["ended"].tolist() == np.flatnonzero(out.terminations).tolist()
        assert [end.row for end in out.infos["hands"]] == out.infos["ended"].tolist()
        if E:
            assert out.infos["scores"].shape == (E, n) and np.issubdtype(out.infos["scores"].dtype, np.integer)
            assert out.infos["final_observations"].shape == (E, n, D) and out.infos["final_observations"].dtype == np.int8
            assert len(out.infos["results"]) == E and set(out.infos["results"]) <= RESULTS
            assert [end.scores for end in out.infos["hands"]] == out.infos["scores"].tolist()
            assert "records" not in out.infos  # only with records=True
        else:
            assert "scores" not in out.infos and "final_observations" not in out.infos and not out.infos["hands"]
        ended_seen += E
    assert not any(venv.deals.dealt.values())  # without records the deals are not kept


@pytest.mark.parametrize(("env_id", "n"), GAME_CASES, ids=CASE_IDS)
def test_finished_hand_is_replaced_by_a_fresh_hand_in_place(env_id, n):
    """A row whose hand ends holds at once a new hand (§5.2, §8–§14 for the deal's shape):
    every seat holds its cards (the dealer his last 2 too), the rest is where the game puts
    it, nothing is played, won or scored, the hand number and running totals are 0, the row
    waits for a decision of the state's seat to act; the deal is a new one; the other rows
    go on where they were."""
    game = _game(env_id)
    sizes, extra, rest_size, rest_place = _deal_shape(game, n)
    B = 12
    venv = _make(env_id, B, n, records=True)
    out = venv.reset(seed=11)
    rng = np.random.default_rng(11)
    replaced = 0
    while replaced < 16:
        hand_no, dealers = venv.game_state.ints[:, HAND_NO].copy(), venv.game_state.dealer.copy()
        out = venv.step(_random_actions(rng, out.action_masks))
        s, ended = venv.game_state, out.infos["ended"]
        for k, row in enumerate(ended.tolist()):
            cards, dealer = s.cards[row], int(s.dealer[row])
            held = [int(((cards[HAND_OF] == seat) & np.isin(cards[PLACE], (PL_HAND, PL_EXTRA))).sum()) for seat in range(n)]
            assert held == [sizes[(seat - dealer - 1) % n] for seat in range(n)], held
            assert (cards[DEALT_TO][cards[HAND_OF] >= 0] == cards[HAND_OF][cards[HAND_OF] >= 0]).all()
            assert int((cards[PLACE] == PL_EXTRA).sum()) in (0, extra)  # his last cards, until he picks them up
            if rest_place is not None:
                assert int((cards[PLACE] == REST_PLACE[rest_place]).sum()) == rest_size
            assert not np.isin(cards[PLACE], (PL_TABLE, PL_PILE, PL_DISCARD)).any()
            assert (cards[PILE_OF] == -1).all() and (cards[PLAYED_BY] == -1).all() and (cards[TRICK_OF] == -1).all()
            assert (s.hist[row] == -1).all() and s.ints[row, TRICK_NO] == 0 and s.ints[row, HAND_NO] == 0
            assert not s.seat_ints[row, :, TOTAL].any() and not s.scores[row].any() and not s.seat_ints[row, :, PENALTY].any()
            assert s.seat_ints[row, :, ACTIVE].all()
            assert s.ints[row, 0] != PH_DONE and out.action_masks[row].any() and out.players[row] == s.current[row]
            assert len(venv.deals.dealt[row]) == 1 and _current_deal(venv, row) != out.infos["records"][k]["deal"]
        others = np.setdiff1d(np.arange(B), ended)
        assert np.array_equal(s.dealer[others], dealers[others]) and np.array_equal(s.ints[others, HAND_NO], hand_no[others])
        replaced += len(ended)


@pytest.mark.parametrize(("env_id", "n"), GAME_CASES, ids=CASE_IDS)
def test_a_steps_hands_carry_their_arrays_and_build_their_points_when_read(env_id, n):
    """``infos["hands"]`` is a list of HandEnd whose ``rows``, ``scores`` and ``sides`` arrays are
    the hands' own; the rewards read from those arrays are those read from the hands one by one
    (a plain list), and a step where no hand ended has them empty; a played hand's ``info``
    reads "hand", "result", "points" first, its points a part per side (per player in
    Mattazza); a hand pickled (as SB3's subprocesses send infos) and one whose ``info`` is read
    after the next steps give the same details."""
    import pickle

    from tarot_env.envs.tarocchino_rewards import hand_rewards

    game = _game(env_id)
    venv = _make(env_id, BATCH, n, episode="match")
    out = venv.reset(seed=11)
    rng = np.random.default_rng(11)
    played, kept = 0, []
    while played < 40:
        out = venv.step(_random_actions(rng, out.action_masks))
        hands = out.infos["hands"]
        assert isinstance(hands, list)
        assert hands.rows.shape == (len(hands),) and hands.scores.shape == hands.sides.shape == (len(hands), venv.num_players)
        if not hands:
            continue
        assert hands.rows.tolist() == [e.row for e in hands]
        assert hands.scores.tolist() == [list(e.scores) for e in hands]
        assert np.array_equal(hands.sides, np.stack([e.sides for e in hands]))
        target = venv.config.options.get("target", 0)
        for mode in REWARD_MODES:
            np.testing.assert_array_equal(hand_rewards(game, mode, target, hands), hand_rewards(game, mode, target, list(hands)))
        copies = pickle.loads(pickle.dumps(hands[0]))
        assert copies == hands[0] and copies.info == hands[0].info
        copies.sides = copies.sides[::-1]
        assert copies != hands[0] or np.array_equal(hands[0].sides, hands[0].sides[::-1])
        for e in hands:
            if e.result == "played":
                played += 1
                if len(kept) < 3:
                    kept.append((e, pickle.dumps(e)))  # read later, after the tables moved on
                    continue
                keys = list(e.info)
                assert keys[:3] == ["hand", "result", "points"], keys
                parts = e.info["points"]
                assert list(parts) == ["cards", "last_trick", "combinations", "declarations", "bonus", "total", "capotted"]
                width = int(np.count_nonzero(e.active)) if game == "mattazza" else 2
                assert all(len(v) == width for v in parts.values()), parts
    for _ in range(30):
        out = venv.step(_random_actions(rng, out.action_masks))
    for e, pickled in kept:
        assert e.info == pickle.loads(pickled).info and list(e.info)[:3] == ["hand", "result", "points"]


@pytest.mark.parametrize(("env_id", "n"), [("ottocento_v0", 4), ("millone_v0", 2), ("terziglio_v0", 3), ("mattazza_v0", 5)])
def test_step_with_rows_steps_only_those_tables(env_id, n):
    """step(actions, rows) plays the listed tables only: the others do not move, the results
    describe the listed tables' new state, and their finished hands replay to their scores
    with rewards that sum to the hand's reward ('score' mode, docs "Scores and rewards")."""
    B = 8
    game = _game(env_id)
    venv = _make(env_id, B, n, records=True)
    venv.reset(seed=5)
    rng = np.random.default_rng(5)
    earned = np.zeros((B, n))
    finished = 0
    while finished < 12:
        rows = np.sort(rng.choice(B, size=int(rng.integers(1, B)), replace=False))
        masks = venv.game_state.legal[rows]
        actions = _random_actions(rng, masks)
        before = _blocks(venv)
        out = venv.step(actions, rows)
        others = np.setdiff1d(np.arange(B), rows)
        for block, old in zip(venv.game_state.blocks.values(), before):
            np.testing.assert_array_equal(block[others], old[others])
        np.testing.assert_array_equal(out.players, venv.game_state.current[rows])
        np.testing.assert_array_equal(out.action_masks, venv.game_state.legal[rows])
        np.testing.assert_array_equal(out.observations, venv.encoder.encode(venv.game_state, rows, venv.game_state.current[rows]))
        assert out.rewards.shape == (len(rows), n) and out.terminations.shape == (len(rows),)
        earned[rows] += out.rewards
        assert set(out.infos["ended"].tolist()) <= set(rows.tolist())
        assert out.infos["ended"].tolist() == rows[out.terminations].tolist()
        for j, (table, end) in enumerate(zip(out.infos["ended"].tolist(), out.infos["hands"])):
            record = out.infos["records"][j]
            assert tarot_env.replay(record) == record["scores"] == out.infos["scores"][j].tolist()
            np.testing.assert_allclose(earned[table], _expected_hand_reward(game, end, venv.config.options.get("target", 0)))
            earned[table] = 0.0
            finished += 1


@pytest.mark.parametrize("rows", [[0, 0], [8], [-1], [[0, 1]], [0.0, 1.0], "0"])
def test_bad_rows_are_refused_and_change_nothing(rows):
    """rows must be distinct table numbers 0..B-1 (a 1-D int array)."""
    venv = _make(num_envs=8)
    out = venv.reset(seed=0)
    before = _blocks(venv)
    with pytest.raises(ValueError, match="rows"):
        venv.step(_random_actions(np.random.default_rng(0), out.action_masks)[:2], rows=rows)
    _assert_blocks_unchanged(venv, before)


@pytest.mark.parametrize(("env_id", "n"), [("ottocento_v0", 4), ("terziglio_v0", 3), ("millone_v0", 2), ("mattazza_v0", 6)])
def test_same_seed_same_trajectory_different_seeds_differ(env_id, n):
    """Two envs reset with the same seed and given the same actions return identical steps
    (records included); another seed deals other deals; reseeding restarts the sequence."""
    a, b, c = (_make(env_id, 8, n, records=True) for _ in range(3))
    out_a, out_b = a.reset(seed=123), b.reset(seed=123)
    c.reset(seed=124)
    assert np.array_equal(out_a.observations, out_b.observations)
    assert not np.array_equal(a.game_state.cards, c.game_state.cards)
    _assert_same_trajectory(_trajectory(a, out_a, 9, 120), _trajectory(b, out_b, 9, 120))
    assert np.array_equal(a.reset(seed=123).observations, out_a.observations)
    b.reset(seed=123)
    for x, y in zip(a.game_state.blocks.values(), b.game_state.blocks.values()):
        assert np.array_equal(x, y)


@pytest.mark.parametrize(("env_id", "n"), GAME_CASES, ids=CASE_IDS)
def test_reset_with_fixed_deals_deals_them(env_id, n):
    """reset(options={'deals': [...]}) deals table k the k-th deal (interface.md §4): each seat
    holds the cards of its list (the dealer's last 2 listed last, held apart until he picks
    them up), the rest is where the game puts it, in the order listed; the state is that of an
    AEC env reset to the same deal; the record of the hand gives the same deal back; the next
    hand at that table is a random one."""
    game = _game(env_id)
    _, extra, _, rest_place = _deal_shape(game, n)
    B = 6
    rng = np.random.default_rng(n + len(game))
    deals = [_random_deal(rng, game, n) for _ in range(B)]
    venv = _make(env_id, B, n, records=True)
    out = venv.reset(seed=0, options={"deals": deals})
    s = venv.game_state
    ids = {name: i for i, name in enumerate(BOLOGNESE_DECK.names)}
    for row, deal in enumerate(deals):
        d = deal["dealer"]
        assert s.dealer[row] == d
        cards = s.cards[row]
        for seat, hand in enumerate(deal["hands"]):
            assert sorted(np.flatnonzero(cards[HAND_OF] == seat).tolist()) == sorted(ids[c] for c in hand)
        last = [ids[c] for c in deal["hands"][d][len(deal["hands"][d]) - extra :]] if extra else []
        assert (cards[PLACE, last] == PL_EXTRA).all() or (cards[PLACE][cards[HAND_OF] == d] == PL_HAND).all()
        assert (cards[PLACE][cards[HAND_OF] >= 0] != PL_EXTRA).sum() == sum(len(h) for h in deal["hands"]) - int(
            (cards[PLACE] == PL_EXTRA).sum()
        )
        if rest_place is not None:
            assert sorted(np.flatnonzero(cards[PLACE] == REST_PLACE[rest_place]).tolist()) == sorted(ids[c] for c in deal["rest"])
        aec = tarot_env.make(env_id, **_players(env_id, n))
        aec.reset(options={"deal": deal})
        for x, y in zip(s.blocks.values(), aec.unwrapped.game_state.blocks.values()):
            assert np.array_equal(x[row], y[0])
        assert out.players[row] == int(aec.agent_selection.split("_")[1])
    records: dict[int, dict] = {}
    while len(records) < B:
        out = venv.step(_random_actions(rng, out.action_masks))
        for k, row in enumerate(out.infos["ended"].tolist()):
            if row not in records:
                records[row] = out.infos["records"][k]
                assert _current_deal(venv, row) != records[row]["deal"]
    for row, deal in enumerate(deals):
        got = records[row]["deal"]
        d = deal["dealer"]
        assert got["dealer"] == d and got["rest"] == deal["rest"]
        assert [sorted(h) for h in got["hands"]] == [sorted(h) for h in deal["hands"]]
        if extra:
            assert sorted(got["hands"][d][-extra:]) == sorted(deal["hands"][d][-extra:])


def _malformed_deal_lists(B: int) -> dict[str, tuple[typing.Any, type[Exception], str]]:
    """Bad values of options['deals'] for B Ottocento tables -> (error, a fragment of its message)."""
    rng = np.random.default_rng(1)
    good = [_random_deal(rng, "ottocento", 4) for _ in range(B)]

    def with_last(change) -> list:
        deals = [dict(d, hands=[list(h) for h in d["hands"]], rest=list(d["rest"])) for d in good]
        change(deals[-1])
        return deals

    def dup(d: dict) -> None:
        d["hands"][0][0] = d["hands"][1][0]

    def move(d: dict) -> None:  # a card from a 15-card hand to another: 14 and 16 cards
        d["hands"][(d["dealer"] + 2) % 4].append(d["hands"][(d["dealer"] + 1) % 4].pop())

    return {
        "one deal short": (good[:-1], ValueError, f"{B} deals"),
        "one deal too many": ([*good, good[0]], ValueError, f"{B} deals"),
        "not a list": ({"dealer": 0}, ValueError, f"{B} deals"),
        "a string": ("deal", ValueError, f"{B} deals"),
        "duplicate card": (with_last(dup), ValueError, "is both in"),
        "a card short": (with_last(lambda d: d["hands"][2].pop()), ValueError, "cards"),
        "wrong hand sizes": (with_last(move), ValueError, "cards"),
        "bad dealer": (with_last(lambda d: d.update(dealer=4)), ValueError, "dealer"),
        "unknown key": (with_last(lambda d: d.update(extra=1)), ValueError, "extra"),
        "unknown card": (with_last(lambda d: d["hands"][0].__setitem__(0, "ZZ")), ValueError, "ZZ"),
        "three hands": (with_last(lambda d: d["hands"].pop()), ValueError, "4 hands"),
        "a card not a string": (with_last(lambda d: d["hands"][0].__setitem__(0, 7)), TypeError, "7"),
        "a deal not a dict": ([*good[:-1], "not a deal"], TypeError, "dict"),
    }


@pytest.mark.parametrize("case", list(_malformed_deal_lists(6)))
def test_malformed_deals_are_refused_and_change_nothing(case):
    """A malformed deal list, or one malformed deal in it, raises an error that says what is
    wrong, before any table changes: the state and the env's random sequence are untouched, so
    the env goes on exactly as a twin that never saw the bad reset."""
    bad, error, fragment = _malformed_deal_lists(6)[case]
    venv, twin = _make(num_envs=6, records=True), _make(num_envs=6, records=True)
    out, out_twin = venv.reset(seed=2), twin.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(30):  # some history behind
        actions = _random_actions(rng, out.action_masks)
        out, out_twin = venv.step(actions), twin.step(actions)
    before = _blocks(venv)
    with pytest.raises(error, match=fragment):
        venv.reset(seed=99, options={"deals": bad})
    _assert_blocks_unchanged(venv, before)
    _assert_same_trajectory(_trajectory(venv, out, 4, 100), _trajectory(twin, out_twin, 4, 100))


def _bad_actions(venv, masks: np.ndarray) -> dict[str, tuple[typing.Any, type[Exception], list[str]]]:
    """Refused action arrays -> (the error type, fragments its message must hold)."""
    B = venv.num_envs
    legal = _random_actions(np.random.default_rng(0), masks)
    row = B - 3
    illegal = legal.copy()
    illegal[row] = int(np.flatnonzero(~masks[row])[0])
    allowed = ", ".join(venv.action_to_string(a) for a in np.flatnonzero(masks[row]))
    low, high = legal.copy(), legal.copy()
    low[1], high[2] = -1, NUM_ACTIONS
    return {
        "too many": (np.append(legal, 0), ValueError, [f"({B},)"]),
        "too few": (legal[:-1], ValueError, [f"({B},)"]),
        "column": (legal[:, None], ValueError, [f"({B},)"]),
        "scalar": (0, ValueError, [f"({B},)"]),
        "float": (legal.astype(float), ValueError, ["int", f"({B},)"]),
        "strings": (np.array([venv.action_to_string(a) for a in legal]), ValueError, ["int"]),
        "negative": (low, IllegalActionError, ["table 1", "-1", f"0..{NUM_ACTIONS - 1}"]),
        "too large": (high, IllegalActionError, ["table 2", str(NUM_ACTIONS), f"0..{NUM_ACTIONS - 1}"]),
        "illegal": (illegal, IllegalActionError, [f"table {row}", venv.action_to_string(illegal[row]), f"legal: {allowed}"]),
    }


@pytest.mark.parametrize("case", ["too many", "too few", "column", "scalar", "float", "strings", "negative", "too large", "illegal"])
def test_refused_actions_name_the_table_and_change_nothing(case):
    """A malformed or illegal action array raises before any table moves: the error names the
    expected shape and dtype, or the table, the action and what that table allows; every
    state block is unchanged and play goes on exactly as in a twin env that never saw it."""
    venv, twin = _make(num_envs=8, records=True, shaping=True), _make(num_envs=8, records=True, shaping=True)
    out, out_twin = venv.reset(seed=8), twin.reset(seed=8)
    rng = np.random.default_rng(8)
    for _ in range(40):
        actions = _random_actions(rng, out.action_masks)
        out, out_twin = venv.step(actions), twin.step(actions)
    bad, error, fragments = _bad_actions(venv, out.action_masks)[case]
    before = _blocks(venv)
    with pytest.raises(error) as info:
        venv.step(bad)
    for fragment in fragments:
        assert fragment in str(info.value), f"{fragment!r} not in {str(info.value)!r}"
    _assert_blocks_unchanged(venv, before)
    _assert_same_trajectory(_trajectory(venv, out, 3, 100), _trajectory(twin, out_twin, 3, 100))


def test_illegal_action_in_a_row_subset_names_the_table():
    """With rows=, the table named is the table number, not the position in the subset."""
    venv = _make(num_envs=8)
    out = venv.reset(seed=1)
    rows = np.array([2, 5, 6])
    actions = _random_actions(np.random.default_rng(1), out.action_masks[rows])
    actions[1] = int(np.flatnonzero(~out.action_masks[5])[0])
    before = _blocks(venv)
    with pytest.raises(IllegalActionError, match="table 5"):
        venv.step(actions, rows)
    _assert_blocks_unchanged(venv, before)


def test_step_before_reset_is_refused():
    venv = _make(num_envs=4)
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros(4, dtype=np.int64))


@pytest.mark.parametrize(
    ("env_id", "options", "error", "fragment"),
    [
        ("ottocento_v0", {"targett": 800}, TypeError, "targett"),
        ("ottocento_v0", {"first_lead": "soloist"}, TypeError, "first_lead"),  # a Terziglio option
        ("mattazza_v0", {"num_players": 4, "declarations": True}, TypeError, "declarations"),
        ("ottocento_v0", {"mori": "none"}, ValueError, "mori"),
        ("ottocento_v0", {"target": "800"}, TypeError, "target"),
        ("ottocento_v0", {"target": 0}, ValueError, "target"),
        ("ottocento_v0", {"episode": "game"}, ValueError, "episode"),
        ("ottocento_v0", {"reward": "points"}, ValueError, "points"),
        ("ottocento_v0", {"shaping": 1}, TypeError, "shaping"),
        ("ottocento_v0", {"oracle": "yes"}, TypeError, "oracle"),
        ("ottocento_v0", {"records": None}, TypeError, "records"),
        ("ottocento_v0", {"dealer": 4}, ValueError, "dealer"),
        ("ottocento_v0", {"render_mode": "ansi"}, ValueError, "render"),
        ("mattazza_v0", {"num_players": 4, "render_mode": "human"}, ValueError, "render"),
        ("ottocento_v0", {"num_players": 3}, ValueError, "num_players"),
        ("mattazza_v0", {"num_players": 7}, ValueError, "num_players"),
        ("mattazza_v0", {"num_players": 5, "way": "first_two"}, ValueError, "first_two"),
    ],
)
def test_unknown_or_bad_env_options_are_refused(env_id, options, error, fragment):
    with pytest.raises(error, match=fragment):
        tarot_env.vector.make(env_id, 4, **options)


def test_mattazza_is_played_by_4_by_default():
    """Mattazza (3 to 6 players) needs no num_players: 4, in the AEC env, its module, the vector
    env, the single-agent view and the table of env facts (the CLI's) alike."""
    import gymnasium

    from tarot_env.rules.bolognese.config import TarocchinoConfig
    from tarot_env.rules.bolognese.deal import DEFAULT_PLAYERS

    assert DEFAULT_PLAYERS["mattazza"] == 4
    assert TarocchinoConfig.make("mattazza").num_players == 4
    for env in (tarot_env.make("mattazza_v0"), tarot_env.mattazza_v0.env(), tarot_env.mattazza_v0.raw_env()):
        assert env.possible_agents == [f"player_{i}" for i in range(4)]
        env.reset(seed=0)
        assert env.unwrapped.config.to_dict()["num_players"] == 4  # the record names the count
    venv = tarot_env.vector.make("mattazza_v0", num_envs=8)
    out = venv.reset(seed=0)
    assert venv.num_players == 4 and out.rewards.shape == (8, 4)
    assert out.observations.shape == (8, tarot_env.make("mattazza_v0", num_players=4).encoder.size)
    single = gymnasium.make(tarot_env.GYMNASIUM_IDS["mattazza_v0"])
    assert single.unwrapped.env.num_players == 4
    from tarot_env.env_facts import facts

    assert facts("mattazza_v0").default_players == 4  # what tarot play and the room seat
    assert facts("mattazza_v0").players_text() == "3 to 6 (default 4)"  # what tarot list prints
    # the count is still checked when given
    assert len(tarot_env.make("mattazza_v0", num_players=6).possible_agents) == 6
    with pytest.raises(ValueError, match="num_players=2"):
        tarot_env.make("mattazza_v0", num_players=2)


@pytest.mark.parametrize("num_envs", [0, -1, True, 2.0, "8", None])
def test_bad_num_envs_is_refused(num_envs):
    with pytest.raises(ValueError, match="num_envs"):
        tarot_env.vector.make("ottocento_v0", num_envs)


def test_unknown_vector_env_id_and_reset_options_are_refused():
    """Unknown env ids and reset options raise, and a refused reset changes nothing."""
    with pytest.raises(ValueError, match="ottocento_v0"):
        tarot_env.vector.make("ottocentto_v0", 4)
    assert {f"{g}_v0" for g in ("ottocento", "quattro_scartate", "terziglio", "millone", "centocinquanta", "quindici", "mattazza")} <= set(
        tarot_env.vector.VECTOR_ENV_IDS
    )
    venv = _make(num_envs=4)
    venv.reset(seed=0)
    before = _blocks(venv)
    for options in ({"deal": None}, {"dael": []}, ["deals"], {"totals": [0, 0, 0, 0]}):
        with pytest.raises(ValueError, match="deals"):
            venv.reset(options=options)
        _assert_blocks_unchanged(venv, before)


@pytest.mark.parametrize(("env_id", "n"), GAME_CASES, ids=CASE_IDS)
def test_shaped_rewards_of_each_hand_sum_to_the_unshaped_reward(env_id, n):
    """With shaping, rewards are paid as tricks are won (docs "Scores and rewards"); over a
    hand they sum, seat by seat, to the reward without shaping (a twin env without shaping,
    the same deals and actions), which is paid only at the hand's end. Tricks paid in hands
    that a reset then abandons do not count in the next hands. The reward mode rotates with
    the case; in the 'score' mode the unshaped reward is checked against the hand's scores."""
    game = _game(env_id)
    reward = REWARD_MODES[GAME_CASES.index((env_id, n)) % 3]
    B = 8
    shaped, plain = _make(env_id, B, n, reward=reward, shaping=True), _make(env_id, B, n, reward=reward)
    out_s = shaped.reset(seed=20)
    rng = np.random.default_rng(21)
    for _ in range(25):
        out_s = shaped.step(_random_actions(rng, out_s.action_masks))
    out_s, out_p = shaped.reset(seed=21), plain.reset(seed=21)
    running = np.zeros((B, n))
    hands, paid_before_end = 0, False
    while hands < 16:
        actions = _random_actions(rng, out_s.action_masks)
        out_s, out_p = shaped.step(actions), plain.step(actions)
        assert np.array_equal(out_s.observations, out_p.observations)  # the same deals, played alike
        running += out_s.rewards
        ongoing = ~out_s.terminations
        paid_before_end |= bool(out_s.rewards[ongoing].any())
        assert not out_p.rewards[ongoing].any()  # without shaping only the end of a hand pays
        ended = out_s.infos["ended"]
        if len(ended):
            if reward == "score":
                expected = [_expected_hand_reward(game, end, plain.config.options.get("target", 0)) for end in out_p.infos["hands"]]
                np.testing.assert_allclose(out_p.rewards[ended], expected, rtol=0, atol=1e-12)
            if reward == "score":  # whole or dyadic amounts: the sums are exact
                assert np.array_equal(running[ended], out_p.rewards[ended]), (running[ended], out_p.rewards[ended])
            np.testing.assert_allclose(running[ended], out_p.rewards[ended], rtol=0, atol=1e-9)
            running[ended] = 0.0
            hands += len(ended)
    assert paid_before_end


#: §3.1: each King, the Angelo, Mondo, Bégato and Matto 5; each Queen 4; Cavallo 3; Fante 2; every other card 1
CARD_VALUE = np.array(
    [
        5 if name[0] == "K" or name in ("ANG", "MON", "BEG", "MAT") else {"Q": 4, "N": 3, "J": 2}.get(name[0], 1)
        for name in BOLOGNESE_DECK.names
    ]
)
#: docs/tarocchino.md "Scores and rewards": the normalised reward's divisor per game
NORMALISED_SCALE = {"ottocento": 100, "quattro_scartate": 100, "millone": 100, "centocinquanta": 50, "quindici": 5, "terziglio": 20,
                    "mattazza": 1}  # fmt: skip


@pytest.mark.parametrize("reward", ["score", "normalised"])
@pytest.mark.parametrize(("env_id", "n"), GAME_CASES, ids=CASE_IDS)
def test_shaping_pays_each_trick_to_the_side_that_won_it(env_id, n, reward):
    """docs/tarocchino.md "Scores and rewards": with shaping=True, a trick won (not the last,
    whose pay the hand's reward includes) pays its card points Σv − cards + 1 (§3.2: the
    group score) to the side that won it and minus that to the other side, in the reward's
    unit (normalised: divided by the game's scale); Mattazza: minus to the winner only, scaled
    by 1/8 (normalised: the Mattazza scale is 1, so 1/8 too). The sides are the partnerships
    (Ottocento, Quattro Scartate: seats 0 & 2 v 1 & 3), the soloist v the others (Terziglio),
    else each seat. Tricks holding the Matto are left out (its card stays with its owner).
    Example: ottocento, a trick KS 6S T5 JS: (5 + 1 + 1 + 2) − 4 + 1 = 6 points."""
    game = _game(env_id)
    B = 12
    venv = _make(env_id, B, n, reward=reward, shaping=True)
    scale = NORMALISED_SCALE[game] if reward == "normalised" else 1
    out = venv.reset(seed=7)
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(120):
        tricks = venv.game_state.ints[:, TRICK_NO].copy()
        out = venv.step(_random_actions(rng, out.action_masks))
        s = venv.game_state
        for row in range(B):
            t = int(s.ints[row, TRICK_NO])
            if out.terminations[row] or t == tricks[row]:
                assert out.terminations[row] or not out.rewards[row].any()  # nothing is paid between tricks
                continue
            assert t == tricks[row] + 1
            in_trick = np.flatnonzero(s.cards[row, TRICK_OF] == t - 1)
            if BOLOGNESE_DECK.names.index("MAT") in in_trick:
                continue
            assert len(in_trick) == int(s.seat_ints[row, :, ACTIVE].sum())  # one card per player
            value = CARD_VALUE[in_trick].sum() - len(in_trick) + 1
            winner = int(s.hist[row, t - 1])
            if game == "mattazza":
                expected = np.zeros(n)
                expected[winner] = -value / 8
            else:
                if game == "terziglio":
                    side = (np.arange(n) != s.ints[row, SOLOIST]).astype(int)
                else:
                    side = np.arange(n) % 2
                expected = np.where(side == side[winner], value, -value) / scale
            np.testing.assert_allclose(out.rewards[row], expected, rtol=0, atol=1e-12, err_msg=f"table {row}, trick {t}, value {value}")
            checked += 1
    assert checked >= 100


# ---------------------------------------------------------------------------- 4. SB3 training views
@pytest.mark.parametrize(("env_id", "n"), GAME_CASES, ids=CASE_IDS)
def test_single_agent_env_plays_every_tarocchino_game(env_id, n):
    """SingleAgentEnv(env_id, seat='random'): the learner gets his turn and view (D int8), a
    non-empty mask equal to the AEC env's legal mask whenever he acts, every episode (one hand)
    finishes, and its rewards sum to his reward for the hand ('score' mode, docs "Scores and
    rewards"); the seat changes between episodes."""
    game = _game(env_id)
    env = SingleAgentEnv(env_id, seat="random", **_players(env_id, n))
    raw = env.env.unwrapped
    D = raw.observation_space("player_0")["observation"].shape[0]
    assert env.observation_space.shape == (D,) and env.action_space.n == NUM_ACTIONS
    rng = np.random.default_rng(n)
    seats = set()
    for episode in range(6):
        obs, info = env.reset(seed=100 * n + episode)
        seat = info["seat"]
        seats.add(seat)
        total, terminated, steps = 0.0, False, 0
        while not terminated:
            mask = env.action_masks()
            assert mask.any() and np.array_equal(mask, info["action_mask"]) and np.array_equal(mask, raw.legal_mask())
            assert raw.agent_selection == f"player_{seat}" and np.array_equal(obs, raw.observe(f"player_{seat}")["observation"])
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            assert obs.shape == (D,) and obs.dtype == np.int8 and not truncated
            total += reward
            steps += 1
            assert steps < 500
        assert raw.game_over and not env.action_masks().any() and info["seat"] == seat
        target = raw.config.options.get("target", 0)
        assert total == pytest.approx(_reward_of(game, info["result"], info["scores"], info, target)[seat])
    assert len(seats) > 1


@pytest.fixture
def sb3():
    """The training stack, with torch on one thread (small nets run faster so, and CI cores are few)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize(("env_id", "n"), GAME_CASES, ids=CASE_IDS)
def test_tarot_vec_env_plays_every_tarocchino_game(sb3, env_id, n):
    """TarotVecEnv(num_envs, env_id=..., seat='rotate'): every table is at its learner's turn
    after each step with a non-empty mask; hands finish; a finished hand's rewards sum to the
    learner's reward, its terminal_observation is his last view and its record replays (both
    checked by replaying the record through the AEC env); the seat moves on by one per hand."""
    from tarot_env.wrappers import TarotVecEnv

    game = _game(env_id)
    B = 8
    venv = TarotVecEnv(B, env_id=env_id, seat="rotate", records=True, **_players(env_id, n))
    D = venv.venv.observation_size
    venv.seed(4)
    obs = venv.reset()
    assert obs.shape == (B, D) and obs.dtype == np.int8
    assert np.array_equal(venv.seats, np.arange(B) % n)
    rng = np.random.default_rng(4)
    earned = np.zeros(B)
    hands = 0
    while hands < 12:
        masks = venv.action_masks()
        assert masks.any(axis=1).all() and np.array_equal(venv.venv.game_state.current, venv.seats)
        assert np.array_equal(masks, venv.venv.game_state.legal)
        seats_before = venv.seats.copy()
        obs, rewards, dones, infos = venv.step(_random_actions(rng, masks))
        assert obs.shape == (B, D) and rewards.dtype == np.float32
        earned += rewards
        for t in np.flatnonzero(dones):
            info = infos[t]
            seat = info["seat"]
            assert seat == seats_before[t] and venv.seats[t] == (seat + 1) % n
            assert tarot_env.replay(info["record"]) == info["scores"]
            aec = tarot_env.make(env_id, **_players(env_id, n))
            aec.reset(options={"deal": info["record"]["deal"]})
            for action in info["record"]["actions"]:
                aec.step(action)
            result = aec.infos[f"player_{seat}"]
            target = aec.unwrapped.config.options.get("target", 0)
            assert earned[t] == pytest.approx(_reward_of(game, result["result"], result["scores"], result, target)[seat])
            assert np.array_equal(info["terminal_observation"], aec.observe(f"player_{seat}")["observation"])
            earned[t] = 0.0
            hands += 1


def _small_ppo(env):
    from sb3_contrib import MaskablePPO

    return MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=2, policy_kwargs={"net_arch": [32]}, seed=0)


class _CountHands:
    """A callback body: counts the finished hands (episodes)."""

    def __init__(self) -> None:
        self.hands = 0

    def __call__(self, local_vars, _globals) -> bool:
        self.hands += int(np.sum(local_vars["dones"]))
        return True


@pytest.mark.parametrize(("env_id", "n"), [("ottocento_v0", 4), ("mattazza_v0", 4)])
def test_maskable_ppo_trains_through_single_agent_env(sb3, env_id, n):
    """MaskablePPO learns 2,048 steps through SingleAgentEnv (its masks from action_masks())."""
    env = SingleAgentEnv(env_id, seat="random", **_players(env_id, n))
    count = _CountHands()
    model = _small_ppo(env).learn(2048, callback=count)
    assert model.num_timesteps == 2048 and count.hands > 20


@pytest.mark.parametrize(("env_id", "n"), [("ottocento_v0", 4), ("mattazza_v0", 4)])
def test_maskable_ppo_trains_through_the_vec_env(sb3, env_id, n):
    """MaskablePPO learns 2,048 steps through TarotVecEnv (16 tables, VecMonitor); the policy moves."""
    import torch
    from stable_baselines3.common.vec_env import VecMonitor

    from tarot_env.wrappers import TarotVecEnv

    venv = TarotVecEnv(16, env_id=env_id, seat="rotate", reward="normalised", shaping=True, **_players(env_id, n))
    model = _small_ppo(VecMonitor(venv))
    weights = [p.detach().clone() for p in model.policy.parameters()]
    count = _CountHands()
    model.learn(2048, callback=count)
    assert model.num_timesteps >= 2048 and count.hands > 20
    assert len(model.ep_info_buffer) > 0  # VecMonitor saw the hands end
    assert not all(torch.equal(a, b) for a, b in zip(weights, model.policy.parameters()))
