"""The vector env (``tarot_env.vector``) is the AEC env, many tables at a time.

Two parts:

1. **Differential**: a batch of tables is played by random legal actions, and each table is
   mirrored by its own AEC env dealt the same deal (read from the vector env's state right
   after each reset or auto-reset) and given the same actions. Every observation, legal mask,
   player to act, reward (per seat, per step), termination, final score, result, final
   observation (every seat), game record and oracle vector must be equal — for 3, 4 and 5
   players, default and randomised rule options, every reward mode with and without shaping.
   The AEC env is the reference: it is tested against the rules elsewhere, so equality here
   means the vector env inherits all of that.
2. **API**: shapes and dtypes, auto-reset, records, seeding, fixed deals, refused input
   (which must change nothing), shaping sums and annulled (petit-sec) deals.
"""

from __future__ import annotations

import dataclasses
import typing

import numpy as np
import pytest
from helpers_setup import make_deal

import tarot_env
import tarot_env.vector
from tarot_env.cards.french import FRENCH_DECK
from tarot_env.rules.french import actions as A
from tarot_env.rules.french.config import _CHOICES, FrenchTarotConfig
from tarot_env.rules.french.deal import format_deal, petit_sec
from tarot_env.rules.french.game import IllegalActionError
from tarot_env.rules.french.state import Phase

REWARD_MODES = ("score", "normalised", "win_loss")
BATCH = 64


# ---------------------------------------------------------------------------- helpers
def _random_rules(rng: np.random.Generator, num_players: int) -> dict[str, typing.Any]:
    """Every rule keyword of FrenchTarotConfig (but the player count) drawn at random.

    A keyword this function does not know fails the test, so a new rule option cannot slip
    past the differential test unrandomised."""
    bool_fields = {f.name for f in dataclasses.fields(FrenchTarotConfig) if f.type == "bool"}
    rules: dict[str, typing.Any] = {}
    for name in FrenchTarotConfig.option_names():
        if name == "num_players":
            continue
        if name in _CHOICES:
            rules[name] = str(rng.choice(_CHOICES[name]))
        elif name in bool_fields:
            rules[name] = bool(rng.integers(2))
        elif name == "chien_after_packets":
            config = FrenchTarotConfig(num_players=num_players)
            n_packets = num_players * config.hand_size // config.packet_size
            if rng.integers(2):
                packets = rng.choice(np.arange(1, n_packets), config.chien_size, replace=False)
                rules[name] = sorted(int(p) for p in packets)
            else:
                rules[name] = None
        else:
            raise AssertionError(f"rule option {name!r} is not drawn by _random_rules: add it")
    return rules


def _random_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row."""
    return np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1)


def _current_deal(venv, row: int) -> dict[str, typing.Any]:
    """The deal a row holds now (valid right after a reset or auto-reset, before any action)."""
    s = venv.game_state
    return format_deal(int(s.dealer[row]), s.hands[row], s.chien[row])


def _first_bad_row(vec: np.ndarray, ref: np.ndarray) -> int:
    diff = np.asarray(vec != ref).reshape(len(vec), -1).any(axis=1)
    return int(np.flatnonzero(diff)[0])


def _assert_same(what: str, vec: np.ndarray, ref: np.ndarray, context: str) -> None:
    """Arrays with one row per table are equal; else name the first table that differs."""
    vec, ref = np.asarray(vec), np.asarray(ref)
    assert vec.shape == ref.shape, f"{context}: {what} has shape {vec.shape} in the vector env, {ref.shape} in the AEC env"
    if not np.array_equal(vec, ref):
        row = _first_bad_row(vec, ref)
        cols = np.flatnonzero(np.asarray(vec[row] != ref[row]).reshape(-1))[:10]
        raise AssertionError(
            f"{context}: {what} of table {row} differs at positions {cols.tolist()}: "
            f"vector {np.asarray(vec[row]).reshape(-1)[cols].tolist()} vs AEC {np.asarray(ref[row]).reshape(-1)[cols].tolist()}"
        )


def _play_differential(
    num_players: int, rules: dict[str, typing.Any], reward: str, shaping: bool, oracle: bool, seed: int, steps: int
) -> int:
    """Play ``steps`` vector steps of ``BATCH`` tables against their AEC mirrors, comparing
    everything the two envs report; returns how many deals finished."""
    options = dict(num_players=num_players, reward=reward, shaping=shaping, oracle=oracle, **rules)
    venv = tarot_env.vector.make("french_tarot_v0", BATCH, records=True, **options)
    mirrors = [tarot_env.make("french_tarot_v0", **options) for _ in range(BATCH)]
    agents = mirrors[0].possible_agents
    seat_of = {a: i for i, a in enumerate(agents)}
    rng = np.random.default_rng(seed + 1)

    def reset_mirror(row: int) -> None:
        env = mirrors[row]
        env.reset(options={"deal": _current_deal(venv, row)})
        assert not env.unwrapped.game_over, "the vector env left an annulled deal in a row"

    out = venv.reset(seed=seed)
    for row in range(BATCH):
        reset_mirror(row)
    finished = 0
    for t in range(steps):
        ctx = f"{num_players} players, {reward}, shaping={shaping}, rules={rules}, step {t}"
        # what the player to act sees, before the action
        last = [env.last() for env in mirrors]
        assert not any(term for _, _, term, _, _ in last)
        _assert_same("player to act", out.players, np.array([seat_of[env.agent_selection] for env in mirrors]), ctx)
        _assert_same("observation", out.observations, np.stack([obs["observation"] for obs, *_ in last]), ctx)
        _assert_same("action mask", out.action_masks, np.stack([obs["action_mask"] for obs, *_ in last]).astype(bool), ctx)
        if oracle:
            _assert_same("oracle", out.infos["oracle"], np.stack([obs["oracle"] for obs, *_ in last]), ctx)
        else:
            assert "oracle" not in out.infos
        actions = _random_actions(rng, out.action_masks)
        out = venv.step(actions)
        # what each seat receives from the action
        rewards = np.zeros((BATCH, num_players))
        terminations = np.zeros(BATCH, dtype=bool)
        for row, env in enumerate(mirrors):
            env.step(int(actions[row]))
            rewards[row] = [env.rewards[a] for a in agents]
            terminations[row] = env.terminations[agents[0]]
        _assert_same("terminations", out.terminations, terminations, ctx)
        _assert_same("rewards", out.rewards, rewards, ctx)
        ended = out.infos["ended"]
        assert ended.tolist() == np.flatnonzero(terminations).tolist(), ctx
        if not len(ended):
            continue
        # the finished deals: scores, results, every seat's last observation, records
        refs = [mirrors[row] for row in ended]
        _assert_same("scores", out.infos["scores"], np.array([env.infos[agents[0]]["scores"] for env in refs]), ctx)
        assert out.infos["results"] == [env.infos[agents[0]]["result"] for env in refs], ctx
        final = np.stack([[env.observe(a)["observation"] for a in agents] for env in refs])
        _assert_same("final observations", out.infos["final_observations"], final, ctx)
        assert out.infos["records"] == [env.unwrapped.record() for env in refs], ctx
        for row in ended.tolist():
            reset_mirror(row)
        finished += len(ended)
    return finished


# ---------------------------------------------------------------------------- 1. differential
@pytest.mark.parametrize("shaping", [False, True])
@pytest.mark.parametrize("reward", REWARD_MODES)
@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_vector_env_equals_aec_env_step_by_step(num_players, reward, shaping):
    """Same deals, same actions: the vector env reports exactly what BATCH AEC envs report.

    Half the cases use the default rules, half rules drawn at random (each player count and
    reward mode gets one of each across its two shaping cases); the 'score' cases ask for
    the oracle vector too. 180 steps play about two deals per table, 128 a case, over
    2,000 in all."""
    case_seed = 1000 * num_players + 10 * REWARD_MODES.index(reward) + shaping
    randomised = (REWARD_MODES.index(reward) + shaping + num_players) % 2 == 1
    rules = _random_rules(np.random.default_rng(case_seed), num_players) if randomised else {}
    finished = _play_differential(num_players, rules, reward, shaping, oracle=reward == "score", seed=case_seed, steps=180)
    assert finished >= 1.5 * BATCH  # the case compared many whole deals, each table's second one included


# ---------------------------------------------------------------------------- 2. API
def _make(num_envs: int = 16, **options: typing.Any):
    return tarot_env.vector.make("french_tarot_v0", num_envs, **options)


def _blocks(venv) -> dict[str, np.ndarray]:
    return {name: block.copy() for name, block in venv.game_state.blocks.items()}


def _assert_blocks_unchanged(venv, before: dict[str, np.ndarray]) -> None:
    for name, block in venv.game_state.blocks.items():
        assert np.array_equal(block, before[name]), f"state block {name!r} changed"


def _trajectory(venv, out, seed: int, steps: int) -> list[tuple]:
    """What ``steps`` random legal steps (actions drawn with ``seed``) return, as comparable tuples."""
    rng = np.random.default_rng(seed)
    seen = []
    for _ in range(steps):
        out = venv.step(_random_actions(rng, out.action_masks))
        i = out.infos
        seen.append((out.observations, out.action_masks, out.players, out.rewards, out.terminations, i["ended"],
                     i.get("scores"), i.get("final_observations"), i.get("records"), i["annulled"]))  # fmt: skip
    return seen


def _assert_same_trajectory(a: list[tuple], b: list[tuple]) -> None:
    assert len(a) == len(b)
    for t, (x, y) in enumerate(zip(a, b)):
        for k, (u, v) in enumerate(zip(x, y)):
            same = u == v if isinstance(u, (list, int, type(None))) else np.array_equal(u, v)
            assert same, f"step {t}: item {k} of the step differs"


def _random_deal(rng: np.random.Generator, num_players: int) -> dict[str, typing.Any]:
    """A random fixed deal (interface.md §4) without a petit sec, cards in shuffled order."""
    config = FrenchTarotConfig(num_players=num_players)
    h = config.hand_size
    while True:
        order = [FRENCH_DECK.names[c] for c in rng.permutation(78)]
        hands = [order[k * h : (k + 1) * h] for k in range(num_players)]
        masks = np.zeros((num_players, 78), dtype=bool)
        for seat, cards in enumerate(hands):
            masks[seat, [FRENCH_DECK.parse(c) for c in cards]] = True
        if not petit_sec(masks).any():
            return {"dealer": int(rng.integers(num_players)), "hands": hands, "rest": order[num_players * h :]}


def _petit_sec_deal(num_players: int) -> dict[str, typing.Any]:
    """A fixed deal whose seat 1 holds the Petit, no other trump and no Excuse (§2: annulled)."""
    h = FrenchTarotConfig(num_players=num_players).hand_size
    plain = [c for c in FRENCH_DECK.names if not c.startswith("T") and c != "EX"]
    return make_deal(num_players, 0, {1: " ".join(["T1", *plain[: h - 1]])}, petit_sec=True)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_reset_and_step_return_documented_shapes_and_dtypes(num_players):
    """VectorStep: observations (B, D) int8, masks (B, A) bool, players (B,) int, rewards
    (B, N) float, terminations (B,) bool; D and A those of the AEC env's spaces; the infos of
    finished deals carry (E, N) scores and (E, N, D) final observations."""
    B = 16
    venv = _make(B, num_players=num_players, oracle=True)
    aec = tarot_env.make("french_tarot_v0", num_players=num_players, oracle=True)
    D = aec.observation_space("player_0")["observation"].shape[0]
    D_oracle = aec.observation_space("player_0")["oracle"].shape[0]
    n_actions = aec.action_space("player_0").n
    assert (venv.num_envs, venv.num_players, venv.observation_size, venv.num_actions) == (B, num_players, D, n_actions)

    def check(out) -> None:
        assert isinstance(out, tarot_env.vector.VectorStep)
        assert out.observations.shape == (B, D) and out.observations.dtype == np.int8
        assert out.action_masks.shape == (B, n_actions) and out.action_masks.dtype == np.bool_
        assert out.players.shape == (B,) and np.issubdtype(out.players.dtype, np.integer)
        assert out.rewards.shape == (B, num_players) and out.rewards.dtype == np.float64
        assert out.terminations.shape == (B,) and out.terminations.dtype == np.bool_
        assert out.infos["oracle"].shape == (B, D_oracle) and out.infos["oracle"].dtype == np.int8
        assert isinstance(out.infos["annulled"], int)
        assert set(np.unique(out.observations)) <= {0, 1}

    out = venv.reset(seed=3)
    check(out)
    assert not out.rewards.any() and not out.terminations.any()
    assert out.action_masks.any(axis=1).all()  # every table waits for a decision
    rng = np.random.default_rng(0)
    ended_seen = 0
    while ended_seen < B:
        kept = [np.copy(x) for x in out[:5]] + [out.infos["oracle"].copy()]
        previous = out
        out = venv.step(_random_actions(rng, out.action_masks))
        check(out)
        # what a step returned is the caller's: later steps do not write into it
        for mine, theirs in zip(kept, [*previous[:5], previous.infos["oracle"]]):
            assert np.array_equal(mine, theirs)
        E = len(out.infos["ended"])
        assert out.infos["ended"].tolist() == np.flatnonzero(out.terminations).tolist()
        if E:
            assert out.infos["scores"].shape == (E, num_players)
            assert out.infos["final_observations"].shape == (E, num_players, D)
            assert out.infos["final_observations"].dtype == np.int8
            assert len(out.infos["results"]) == E and set(out.infos["results"]) <= {"played", "all_passed"}
            assert "records" not in out.infos  # only with records=True
        else:
            assert "scores" not in out.infos and "final_observations" not in out.infos
        ended_seen += E


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_players_are_the_seats_to_act_and_masks_are_the_legal_masks(num_players):
    """At every step, players is the state's current seat of each table and the mask is the
    rules' legal mask computed from scratch (game.legal_action_mask), never empty."""
    venv = _make(32, num_players=num_players, poignee_trumps="choose", chelem_announcement="before_ecart")
    out = venv.reset(seed=num_players)
    rng = np.random.default_rng(num_players)
    for _ in range(200):
        assert np.array_equal(out.players, venv.game_state.current)
        assert np.array_equal(out.action_masks, venv.game.legal_action_mask(venv.game_state))
        assert out.action_masks.any(axis=1).all()
        out = venv.step(_random_actions(rng, out.action_masks))


def test_finished_deal_is_replaced_by_a_fresh_deal_in_place():
    """A row whose deal ends holds at once a new deal: phase bid, nothing spoken or played,
    full hands, its first bidder to act; the other rows go on where they were."""
    venv = _make(32, num_players=4, records=True)
    out = venv.reset(seed=11)
    rng = np.random.default_rng(11)
    replaced = 0
    while replaced < 40:
        dealers, played = venv.game_state.dealer.copy(), venv.game_state.played.sum(axis=(1, 2))
        out = venv.step(_random_actions(rng, out.action_masks))
        s, ended = venv.game_state, out.infos["ended"]
        for k, row in enumerate(ended.tolist()):
            assert s.phase[row] == Phase.BID
            assert (s.bids[row] == -1).all() and s.n_spoken[row] == 0 and s.taker[row] == -1 and s.contract[row] == 0
            assert s.trick_no[row] == 0 and not s.played[row].any() and not s.ecart[row].any() and (s.trick_of[row] == -1).all()
            assert (s.hands[row].sum(axis=1) == 18).all() and s.chien[row].sum() == 6
            assert not s.scores[row].any()
            assert out.players[row] == (s.dealer[row] + 1) % 4
            assert out.action_masks[row].any()
            old = out.infos["records"][k]["deal"]
            assert _current_deal(venv, row) != old  # a new deal, not the finished one again
        others = np.setdiff1d(np.arange(32), ended)
        assert (s.phase[others] != Phase.DONE).all()
        assert np.array_equal(s.dealer[others], dealers[others])  # the other tables go on with their deals
        assert (s.played[others].sum(axis=(1, 2)) >= played[others]).all()
        replaced += len(ended)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_records_replay_to_the_same_scores(num_players):
    """records=True gives the record of every finished deal; tarot_env.replay reproduces
    its scores, which are the scores in infos; the config is the env's (random rules)."""
    rules = _random_rules(np.random.default_rng(num_players + 40), num_players)
    venv = _make(24, num_players=num_players, records=True, **rules)
    out = venv.reset(seed=5)
    rng = np.random.default_rng(5)
    replayed = 0
    while replayed < 30:
        out = venv.step(_random_actions(rng, out.action_masks))
        for k, record in enumerate(out.infos.get("records", [])):
            assert record["env"] == "french_tarot_v0" and record["config"] == venv.config.to_dict()
            assert tarot_env.replay(record) == record["scores"] == out.infos["scores"][k].tolist()
            replayed += 1


def test_same_seed_same_trajectory_different_seeds_differ():
    """Two envs reset with the same seed and given the same actions return identical steps;
    another seed deals other deals."""
    a, b, c = (_make(16, num_players=4, records=True) for _ in range(3))
    out_a, out_b, out_c = a.reset(seed=123), b.reset(seed=123), c.reset(seed=124)
    assert np.array_equal(out_a.observations, out_b.observations)
    assert not np.array_equal(out_a.observations, out_c.observations)
    _assert_same_trajectory(_trajectory(a, out_a, 9, 150), _trajectory(b, out_b, 9, 150))
    # reseeding an env that has played restarts the same sequence of deals
    assert np.array_equal(a.reset(seed=123).observations, out_a.observations)
    b.reset(seed=123)
    assert np.array_equal(a.game_state.hands, b.game_state.hands) and np.array_equal(a.game_state.dealer, b.game_state.dealer)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_reset_with_fixed_deals_deals_them(num_players):
    """reset(options={'deals': [...]}) deals table k the k-th deal: its hands, chien and dealer,
    the seat after the dealer to bid; the record of the deal gives the same deal back."""
    B = 8
    rng = np.random.default_rng(num_players)
    deals = [_random_deal(rng, num_players) for _ in range(B)]
    venv = _make(B, num_players=num_players, records=True)
    out = venv.reset(seed=0, options={"deals": deals})
    assert out.infos["annulled"] == 0
    for row, deal in enumerate(deals):
        expected = format_deal(deal["dealer"], *_masks(deal, num_players))
        assert _current_deal(venv, row) == expected
        assert out.players[row] == (deal["dealer"] + 1) % num_players
    records: dict[int, dict] = {}
    while len(records) < B:
        out = venv.step(_random_actions(rng, out.action_masks))
        for k, row in enumerate(out.infos["ended"].tolist()):
            records.setdefault(row, out.infos["records"][k])
    for row, deal in enumerate(deals):
        assert records[row]["deal"] == format_deal(deal["dealer"], *_masks(deal, num_players))


def _masks(deal: dict[str, typing.Any], num_players: int) -> tuple[np.ndarray, np.ndarray]:
    hands = np.zeros((num_players, 78), dtype=bool)
    chien = np.zeros(78, dtype=bool)
    for seat, cards in enumerate(deal["hands"]):
        hands[seat, [FRENCH_DECK.parse(c) for c in cards]] = True
    chien[[FRENCH_DECK.parse(c) for c in deal["rest"]]] = True
    return hands, chien


def _malformed_deal_lists(num_players: int, B: int) -> dict[str, tuple[typing.Any, str]]:
    """Bad values of options['deals'] (for B tables) -> a fragment the error message must hold."""
    rng = np.random.default_rng(1)
    good = [_random_deal(rng, num_players) for _ in range(B)]

    def with_last(change) -> list:
        deals = [dict(d, hands=[list(h) for h in d["hands"]], rest=list(d["rest"])) for d in good]
        change(deals[-1])
        return deals

    def dup(d: dict) -> None:
        d["hands"][0][0] = d["hands"][1][0]

    return {
        "one deal short": (good[:-1], f"{B} deals"),
        "not a list": ({"dealer": 0}, f"{B} deals"),
        "a string": ("deal", f"{B} deals"),
        "duplicate card": (with_last(dup), "is both in"),
        "a card short": (with_last(lambda d: d["hands"][2].pop()), "cards"),
        "bad dealer": (with_last(lambda d: d.update(dealer=num_players)), "dealer"),
        "unknown key": (with_last(lambda d: d.update(extra=1)), "extra"),
        "unknown card": (with_last(lambda d: d["rest"].__setitem__(0, "ZZ")), "ZZ"),
    }


@pytest.mark.parametrize("case", list(_malformed_deal_lists(4, 8)))
def test_malformed_deals_are_refused_and_change_nothing(case):
    """A malformed deal list, or one malformed deal in it, raises a ValueError that says what is
    wrong, before any table changes: the state and the env's random sequence are untouched, so
    the env goes on exactly as a twin that never saw the bad reset."""
    bad, fragment = _malformed_deal_lists(4, 8)[case]
    venv, twin = _make(8, records=True), _make(8, records=True)
    out, out_twin = venv.reset(seed=2), twin.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(30):  # some history behind
        actions = _random_actions(rng, out.action_masks)
        out, out_twin = venv.step(actions), twin.step(actions)
    before = _blocks(venv)
    with pytest.raises(ValueError, match=fragment):
        venv.reset(seed=99, options={"deals": bad})
    _assert_blocks_unchanged(venv, before)
    _assert_same_trajectory(_trajectory(venv, out, 4, 120), _trajectory(twin, out_twin, 4, 120))


def test_a_deal_that_is_not_a_dict_is_refused():
    """A table's deal that is not a dict raises TypeError (as the AEC env's reset does), before any change."""
    venv = _make(2)
    venv.reset(seed=0)
    before = _blocks(venv)
    with pytest.raises(TypeError, match="dict"):
        venv.reset(options={"deals": [_random_deal(np.random.default_rng(0), 4), "not a deal"]})
    _assert_blocks_unchanged(venv, before)


def _bad_actions(venv, masks: np.ndarray) -> dict[str, tuple[typing.Any, type[Exception], list[str]]]:
    """Refused action arrays -> (the error type, fragments its message must hold)."""
    B = venv.num_envs
    legal = _random_actions(np.random.default_rng(0), masks)
    row = B - 3
    illegal = legal.copy()
    illegal[row] = int(np.flatnonzero(~masks[row])[0])
    allowed = ", ".join(A.ACTION_STRINGS[a] for a in np.flatnonzero(masks[row]))
    low, high = legal.copy(), legal.copy()
    low[1], high[2] = -1, venv.num_actions
    return {
        "too many": (np.append(legal, 0), ValueError, [f"({B},)"]),
        "too few": (legal[:-1], ValueError, [f"({B},)"]),
        "column": (legal[:, None], ValueError, [f"({B},)"]),
        "scalar": (0, ValueError, [f"({B},)"]),
        "float": (legal.astype(float), ValueError, ["int", f"({B},)"]),
        "bool": (masks[:, 0], ValueError, ["int", f"({B},)"]),
        "strings": (np.array([A.ACTION_STRINGS[a] for a in legal]), ValueError, ["int"]),
        "negative": (low, IllegalActionError, ["table 1", "-1", f"0..{venv.num_actions - 1}"]),
        "too large": (high, IllegalActionError, ["table 2", str(venv.num_actions), f"0..{venv.num_actions - 1}"]),
        "illegal": (illegal, IllegalActionError, [f"table {row}", A.ACTION_STRINGS[illegal[row]], f"legal actions: {allowed}"]),
    }


BAD_ACTIONS = ("too many", "too few", "column", "scalar", "float", "bool", "strings", "negative", "too large", "illegal")


@pytest.mark.parametrize("case", BAD_ACTIONS)
def test_refused_actions_name_the_table_and_change_nothing(case):
    """A malformed or illegal action array raises before any table moves: the error names the
    expected shape and dtype, or the table and what it allows; every state block is unchanged
    and play goes on exactly as in a twin env that was never given the bad actions."""
    venv, twin = _make(16, records=True, shaping=True), _make(16, records=True, shaping=True)
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
    _assert_same_trajectory(_trajectory(venv, out, 3, 120), _trajectory(twin, out_twin, 3, 120))


def test_step_before_reset_is_refused():
    venv = _make(4)
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros(4, dtype=np.int64))


@pytest.mark.parametrize(
    ("options", "error", "fragment"),
    [
        ({"petit_sek": "annul"}, TypeError, "petit_sek"),
        ({"reward": "points"}, ValueError, "points"),
        ({"shaping": 1}, TypeError, "shaping"),
        ({"oracle": "yes"}, TypeError, "oracle"),
        ({"records": None}, TypeError, "records"),
        ({"dealer": 4}, ValueError, "dealer"),
        ({"num_players": 6}, ValueError, "num_players"),
        ({"petit_sec": "again"}, ValueError, "petit_sec"),
    ],
)
def test_unknown_or_bad_env_options_are_refused(options, error, fragment):
    with pytest.raises(error, match=fragment):
        _make(4, **options)


@pytest.mark.parametrize("num_envs", [0, -1, True, 2.0, "8"])
def test_bad_num_envs_is_refused(num_envs):
    with pytest.raises(ValueError, match="num_envs"):
        tarot_env.vector.make("french_tarot_v0", num_envs)


def test_unknown_vector_env_id_and_reset_options_are_refused():
    """Unknown env ids and reset options raise (a vector env has no api_test to appease,
    unlike the AEC env, which only warns), and a refused reset changes nothing."""
    with pytest.raises(ValueError, match="french_tarot_v0"):
        tarot_env.vector.make("french_tarrot_v0", 4)
    venv = _make(4)
    venv.reset(seed=0)
    before = _blocks(venv)
    for options in ({"deal": None}, {"dael": []}, ["deals"]):
        with pytest.raises(ValueError, match="deals"):
            venv.reset(options=options)
        _assert_blocks_unchanged(venv, before)


@pytest.mark.parametrize("reward", REWARD_MODES)
def test_shaped_rewards_of_each_deal_sum_to_the_unshaped_final_reward(reward):
    """With shaping, rewards are paid at the end of each trick; over a deal they sum, seat by
    seat, to the final reward without shaping (the same deals and actions, played by a twin
    env without shaping), which is the mode's function of the scores."""
    B, n = 16, 4
    shaped, plain = _make(B, reward=reward, shaping=True), _make(B, reward=reward)
    out_s = shaped.reset(seed=20)
    rng = np.random.default_rng(21)
    for _ in range(50):  # tricks paid in deals that a reset then abandons must not count in the next deals
        out_s = shaped.step(_random_actions(rng, out_s.action_masks))
    out_s, out_p = shaped.reset(seed=21), plain.reset(seed=21)
    running = np.zeros((B, n))
    deals, paid_before_end = 0, False
    while deals < 48:
        actions = _random_actions(rng, out_s.action_masks)
        out_s, out_p = shaped.step(actions), plain.step(actions)
        assert np.array_equal(out_s.observations, out_p.observations)  # the same deals, played alike
        running += out_s.rewards
        ongoing = ~out_s.terminations
        paid_before_end |= bool(out_s.rewards[ongoing].any())
        assert not out_p.rewards[ongoing].any()  # without shaping only the end of a deal pays
        ended = out_s.infos["ended"]
        if len(ended):
            scores = out_p.infos["scores"].astype(float)
            expected = {"score": scores, "normalised": scores / (100 * (n - 1)), "win_loss": np.sign(scores)}[reward]
            np.testing.assert_allclose(out_p.rewards[ended], expected, rtol=0, atol=1e-12)
            np.testing.assert_allclose(running[ended], out_p.rewards[ended], rtol=0, atol=1e-9)
            running[ended] = 0.0
            deals += len(ended)
    assert paid_before_end


class _StartDealSpy:
    """Wraps game.start_deals to count the deals dealt with a petit sec (§2: annulled at once)."""

    def __init__(self, game) -> None:
        self.inner = game.start_deals
        self.num_players = game.num_players
        self.petit_sec_deals = 0
        game.start_deals = self

    def __call__(self, s, rows, dealers, packs, deals=None):
        self.petit_sec_deals += int(petit_sec(packs[:, : self.num_players]).any(axis=1).sum())
        return self.inner(s, rows, dealers, packs)


@pytest.mark.parametrize("mode", ["annul", "redeal"])
def test_petit_sec_fixed_deal_is_redealt_at_once_and_counted(mode):
    """A fixed deal with a petit sec is annulled at once whatever the option (§2: the redeal
    option concerns random deals): reset deals that table again at once, and infos['annulled']
    counts every annulled deal; the other tables keep their fixed deals."""
    B, n = 6, 4
    rng = np.random.default_rng(3)
    deals = [_random_deal(rng, n) for _ in range(B)]
    deals[2] = _petit_sec_deal(n)
    venv = _make(B, num_players=n, petit_sec=mode)
    spy = _StartDealSpy(venv.game)
    out = venv.reset(seed=0, options={"deals": deals})
    assert spy.petit_sec_deals >= 1
    s = venv.game_state
    assert (s.phase == Phase.BID).all() and not petit_sec(s.hands).any()
    assert _current_deal(venv, 2) != format_deal(0, *_masks(deals[2], n))
    for row in (0, 1, 3, 4, 5):
        assert _current_deal(venv, row) == format_deal(deals[row]["dealer"], *_masks(deals[row], n))
    assert out.action_masks.any(axis=1).all() and not out.terminations.any()
    assert out.infos["annulled"] == spy.petit_sec_deals


def test_petit_sec_deal_at_auto_reset_is_redealt_at_once_and_counted(monkeypatch):
    """When the deal that replaces a finished one is annulled (a petit sec, petit_sec='annul'),
    the row never shows it: it is dealt again at once and counted in infos['annulled']; only
    the finished deal terminates, its record is the only one, and the row waits for a bid.
    (Random petit secs are rare, about 1 deal in 2,000, so the first deal dealt at an
    auto-reset is given one on purpose, through the game's own start_deals.)"""
    B, n = 8, 4
    venv = _make(B, num_players=n, records=True)
    out = venv.reset(seed=4)
    game = venv.game
    real = game.shuffle_and_deal
    planted = {"done": False}

    def shuffle_and_deal(s, rows, dealers, rng) -> None:
        if planted["done"]:
            return real(s, rows, dealers, rng)
        planted["done"] = True
        hands, chien = _masks(_petit_sec_deal(n), n)
        game.start_deals(s, rows[:1], dealers[:1], np.vstack([hands, chien[None]])[None])
        if len(rows) > 1:
            real(s, rows[1:], dealers[1:], rng)

    spy = _StartDealSpy(game)
    monkeypatch.setattr(game, "shuffle_and_deal", shuffle_and_deal)
    rng = np.random.default_rng(4)
    while not planted["done"]:
        out = venv.step(_random_actions(rng, out.action_masks))
    ended = out.infos["ended"]
    assert spy.petit_sec_deals == 1
    assert out.infos["annulled"] == 1
    assert len(out.infos["records"]) == len(ended) == out.terminations.sum()
    assert all(r["scores"] == s.tolist() and r["actions"] for r, s in zip(out.infos["records"], out.infos["scores"]))
    row = int(ended[0])
    assert venv.game_state.phase[row] == Phase.BID and not petit_sec(venv.game_state.hands[row]).any()
    assert out.action_masks[row].any() and out.players[row] == venv.game_state.current[row]


def test_step_with_rows_steps_only_those_tables():
    """step(actions, rows) plays the listed tables only: the others do not move, the results
    describe the listed tables' new state, and their finished deals replay to their scores
    with rewards that sum to them."""
    B = 8
    venv = _make(B, records=True)
    venv.reset(seed=5)
    rng = np.random.default_rng(5)
    earned = np.zeros((B, venv.num_players))
    finished = 0
    for _ in range(400):
        rows = np.sort(rng.choice(B, size=int(rng.integers(1, B)), replace=False))
        masks = venv.game_state.legal[rows]
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        before = {name: block.copy() for name, block in venv.game_state.blocks.items()}
        out = venv.step(actions, rows)
        others = np.setdiff1d(np.arange(B), rows)
        for name, block in venv.game_state.blocks.items():
            np.testing.assert_array_equal(block[others], before[name][others], err_msg=name)
        np.testing.assert_array_equal(out.players, venv.game_state.current[rows])
        np.testing.assert_array_equal(out.action_masks, venv.game.legal_action_mask(venv.game_state, rows))
        np.testing.assert_array_equal(out.observations, venv.encoder.encode(venv.game_state, rows, venv.game_state.current[rows]))
        earned[rows] += out.rewards
        for j, table in enumerate(out.infos["ended"].tolist()):
            assert table in rows
            record = out.infos["records"][j]
            assert tarot_env.replay(record) == record["scores"] == out.infos["scores"][j].tolist()
            np.testing.assert_allclose(earned[table], out.infos["scores"][j])
            earned[table] = 0.0
            finished += 1
    assert finished >= 10
