"""The Tarocchino belief sampler (tarot_env/belief/tarocchino.py) on positions of random deals of
every Tarocchino game, reached by the rule-based bot, seen from a random seat (not only the seat
to act): the seat's observation of every sample is its observation of the real state; every card
is in one place and each hidden place holds its real count; nobody holds a suit he showed void
in; the samples do not depend on the hidden cards or the fields derived from them; and a sample
plays to the end of its hand."""

from __future__ import annotations

from collections import Counter
from functools import cache

import numpy as np
import pytest
from tarot_env.agents.tarocchino_rules import TarocchinoRuleAgent

import tarot_env
from tarot_env.belief import tarocchino as belief
from tarot_env.belief.tarocchino import hand_end_deals, hand_over, hand_value, is_play_decision, sample, view
from tarot_env.cards.bolognese import BOLOGNESE_DECK, MATTO, NUM_CARDS
from tarot_env.envs.tarocchino_rewards import hand_rewards
from tarot_env.rules.bolognese.scoring import SU
from tarot_env.rules.bolognese.state import (
    A_CLAIM,
    A_PASS,
    ACTIVE,
    CLAIM_DECL,
    CLAIM_OK,
    CLAIM_VALUE,
    COMBO,
    DEALT_TO,
    DECL,
    DECLARED,
    FIRST,
    HAND_OF,
    PH_CLAIM,
    PH_DECLARE,
    PH_DONE,
    PH_GIVE,
    PH_PLAY,
    PHASE,
    PICKUP_DECL,
    PILE_OF,
    PL_DISCARD,
    PL_EXTRA,
    PL_HAND,
    PL_OUT,
    PL_PILE,
    PL_POZZO,
    PL_SECOND,
    PL_TABLE,
    PLACE,
    PLAYED_BY,
    SHOWN,
    STAGE,
    TRICK_OF,
    W_FIRST_TURN,
    WINDOW,
    TarocchinoState,
)
from tarot_env.rules.seat_view import differences, seat_view

SUIT = BOLOGNESE_DECK.suit.astype(np.int64)
TRUMP = 4
K = 6  # samples per position

#: (id, env id, env keywords, reset totals): every game, Mattazza at 3 to 6, rules options that
#: add constraints (must_overtrump, matto_is_trump), and claim windows (totals near the target;
#: wrong_claim="loses" opens a window for any declaration, which the bot declines below the target)
CONFIGS = [
    ("ottocento", "ottocento_v0", {}, None),
    ("ottocento-options", "ottocento_v0", {"must_overtrump": True, "matto_is_trump": True, "matto_exchange": "choose"}, None),
    ("ottocento-claims", "ottocento_v0", {"wrong_claim": "loses"}, [700, 690, 700, 690]),
    ("ottocento-near", "ottocento_v0", {}, [790, 780, 790, 780]),
    ("quattro_scartate", "quattro_scartate_v0", {}, None),
    ("terziglio", "terziglio_v0", {}, None),
    ("millone", "millone_v0", {}, None),
    ("millone-claims", "millone_v0", {"wrong_claim": "loses"}, [900, 880]),
    ("centocinquanta", "centocinquanta_v0", {}, None),
    ("centocinquanta-claims", "centocinquanta_v0", {"wrong_claim": "loses", "opponent_claim": "before_discard"}, [120, 110]),
    ("quindici", "quindici_v0", {"must_overtrump": True}, [12, 11]),
    ("mattazza-3", "mattazza_v0", {"num_players": 3}, None),
    ("mattazza-4", "mattazza_v0", {"num_players": 4, "matto_is_trump": True}, None),
    ("mattazza-5", "mattazza_v0", {"num_players": 5}, None),
    ("mattazza-6", "mattazza_v0", {"num_players": 6}, None),
]
DEALS = {"terziglio": 4, "ottocento-claims": 4}  # Terziglio: more deals, so that some are played (three passes throw a deal in)


class Table:
    """An env's game, encoder and bot, and positions of its deals: (state at batch 1, viewing seat)."""

    def __init__(self, env_id: str, kw: dict, totals: list[int] | None, deals: int, seed: int) -> None:
        env = tarot_env.make(env_id, **kw).unwrapped
        self.env_id, self.game, self.encoder = env_id, env.game, env.encoder
        self.bot = TarocchinoRuleAgent(env_id)
        self.n = self.game.num_players
        rng = np.random.default_rng(seed)
        self.positions: list[tuple[TarocchinoState, int]] = []
        for deal in range(deals):
            env.reset(seed=seed * 100 + deal, options={"totals": totals} if totals else None)
            s = env.game_state.copy()
            while s.phase[0] != PH_DONE:
                active = np.flatnonzero(s.seat_ints[0, :, ACTIVE])
                if int(s.phase[0]) in (PH_CLAIM, PH_DECLARE, PH_GIVE):  # always: seen by another seat, whose view they test most
                    self.positions.append((s.copy(), int(rng.choice(active[active != s.current[0]]))))
                elif rng.random() < 0.3:
                    self.positions.append((s.copy(), int(rng.choice(active))))
                self.step(s, np.array([0]))

    def act(self, s: TarocchinoState, rows: np.ndarray) -> np.ndarray:
        obs = self.encoder.encode(s, rows, s.current[rows])
        return np.asarray(self.bot.act(obs, s.legal[rows]), dtype=np.int64).reshape(len(rows))

    def step(self, s: TarocchinoState, rows: np.ndarray, deals=None) -> list:
        return self.game.step(s, self.act(s, rows), rows, deals=deals)

    def obs(self, s: TarocchinoState, rows: np.ndarray, seat: int) -> np.ndarray:
        return self.encoder.encode(s, rows, np.full(len(rows), seat, dtype=np.int64))


@cache
def table(name: str) -> Table:
    _, env_id, kw, totals = next(c for c in CONFIGS if c[0] == name)
    return Table(env_id, kw, totals, DEALS.get(name, 2), seed=1 + [c[0] for c in CONFIGS].index(name))


NAMES = [c[0] for c in CONFIGS]


def places(s: TarocchinoState, row: int) -> list[tuple[int, int]]:
    """Each card's place as (place code, holder): the hand's or pile's seat, the receiver of a
    second-deal card; checked to be one coherent place."""
    c = s.cards[row].astype(np.int64)
    out = []
    for x in range(NUM_CARDS):
        pl, h, p, by = c[PLACE, x], c[HAND_OF, x], c[PILE_OF, x], c[PLAYED_BY, x]
        if pl in (PL_HAND, PL_EXTRA):
            assert h >= 0 and p < 0 and by < 0, (x, pl, h, p, by)
            out.append((pl, h))
        elif pl == PL_DISCARD:
            assert h < 0 and p >= 0 and by < 0
            out.append((pl, p))
        elif pl == PL_SECOND:
            assert h < 0 and p < 0 and c[DEALT_TO, x] >= 0
            out.append((pl, c[DEALT_TO, x]))
        elif pl in (PL_TABLE, PL_PILE):
            assert h < 0 and by >= 0
            out.append((pl, by))
        else:
            assert pl in (PL_POZZO, PL_OUT) and h < 0 and by < 0
            out.append((pl, -1))
    return out


def seen_by(s: TarocchinoState, row: int, seat: int) -> np.ndarray:
    c = s.cards[row]
    own = ((c[PLACE] == PL_HAND) & (c[HAND_OF] == seat)) | ((c[PLACE] == PL_DISCARD) & (c[PILE_OF] == seat))
    return own | (c[PLACE] == PL_TABLE) | ((c[PLACE] == PL_PILE) & (c[PLAYED_BY] >= 0)) | (c[SHOWN] == 1)


def simple_voids(s: TarocchinoState, row: int, n: int) -> np.ndarray:
    """(N, 5) the suits each seat showed void in, from the trick history: the first card other
    than the Matto sets the suit; a player who then played another suit has none of it, and none
    of the trumps either unless he played one."""
    voids = np.zeros((n, 5), dtype=bool)
    c = s.cards[row].astype(np.int64)
    for t in range(int(s.trick_no[row]) + 1):
        ids = np.flatnonzero((c[TRICK_OF] == t) & (c[PLAYED_BY] >= 0))
        if t == s.trick_no[row]:
            ids = s.trick_cards[row, : s.trick_size[row]]
        else:
            leader = int(s.primo[row]) if t == 0 else int(s.hist[row, t - 1])
            ids = sorted(ids, key=lambda x: (c[PLAYED_BY, x] - leader) % n)
        ids = [x for x in ids if x != MATTO]
        for x in ids[1:]:
            p, lead = c[PLAYED_BY, x], SUIT[ids[0]]
            if SUIT[x] != lead:
                voids[p, lead] = True
                if SUIT[x] != TRUMP:
                    voids[p, TRUMP] = True
    return voids


@pytest.mark.parametrize("name", NAMES)
def test_samples_agree_with_what_the_seat_sees(name):
    """1-3: the observation, the places and counts, the voids."""
    t = table(name)
    rng = np.random.default_rng(7)
    rows = np.arange(K)
    assert t.positions
    for s, seat in t.positions:
        st = sample(t.game, s, 0, seat, K, rng)
        assert st.cards.shape[0] == K
        real_obs = t.obs(s, np.array([0]), seat)
        np.testing.assert_array_equal(t.obs(st, rows, seat), np.repeat(real_obs, K, axis=0), err_msg=f"{name}: seat {seat}")
        seen_view = seat_view(t.game, s, 0, seat)  # every hidden card dealt again: the seat view is the same
        for k in range(K):
            assert not differences(seat_view(t.game, st, k, seat), seen_view), f"{name}: seat {seat}"
        if int(s.current[0]) == seat and int(s.phase[0]) != PH_GIVE:  # his own legal actions (a gift may come from a partner's discards)
            np.testing.assert_array_equal(st.legal, np.repeat(s.legal, K, axis=0))
        real = places(s, 0)
        seen = seen_by(s, 0, seat)
        voids = simple_voids(s, 0, t.n)
        for k in range(K):
            got = places(st, k)
            assert Counter(got) == Counter(real), f"{name}: a hidden place does not hold its real count"
            assert [g for g, v in zip(got, seen) if v] == [r for r, v in zip(real, seen) if v]
            for f in (HAND_OF, PILE_OF, PLAYED_BY, TRICK_OF, PLACE, SHOWN):
                np.testing.assert_array_equal(st.cards[k, f, seen], s.cards[0, f, seen])
            hand = (st.cards[k, PLACE] == PL_HAND) & (st.cards[k, HAND_OF] >= 0)
            for x in np.flatnonzero(hand & ~seen):
                if x != MATTO:
                    assert not voids[st.cards[k, HAND_OF, x], SUIT[x]], f"{name}: a void broken by {BOLOGNESE_DECK.format(x)}"
        for k in range(K):  # discards hold no Carta da 5
            disc = np.flatnonzero(st.cards[k, PLACE] == PL_DISCARD)
            assert not any(BOLOGNESE_DECK.format(x) in ("KS", "KB", "KC", "KD", "ANG", "MON", "BEG", "MAT") for x in disc)


def _hidden_place_keys(s: TarocchinoState, seat: int) -> dict[int, tuple[int, int]]:
    seen = seen_by(s, 0, seat)
    return {x: pk for x, pk in enumerate(places(s, 0)) if not seen[x]}


def _scribble(t: Table, s: TarocchinoState, seat: int, rng: np.random.Generator) -> TarocchinoState:
    """A copy of ``s`` with two hidden cards swapped between places (where each may be) and the
    fields derived from hidden cards scribbled over."""
    s2 = s.copy()
    v = view(t.game, s, 0, seat)
    where = _hidden_place_keys(s, seat)
    pos = {int(x): i for i, x in enumerate(v.unseen)}
    pairs = [(a, b) for a in where for b in where if a < b and where[a] != where[b] and PL_SECOND not in (where[a][0], where[b][0])]
    # each card must be allowed where the other is (the swapped state is one the seat could face)
    place_of = {}
    for x, (pl, h) in where.items():
        place_of[x] = {PL_HAND: h, PL_EXTRA: t.n, PL_DISCARD: t.n + 1 + h, PL_POZZO: 3 * t.n + 1, PL_OUT: 3 * t.n + 2}.get(pl)
    pairs = [(a, b) for a, b in pairs if v.allowed[pos[a], place_of[b]] and v.allowed[pos[b], place_of[a]]]
    if pairs:
        a, b = pairs[rng.integers(len(pairs))]
        s2.cards[0, :, [a, b]] = s2.cards[0, :, [b, a]]
    n, c = t.n, s2.cards[0]
    for p in range(n):
        if p != seat and s2.seat_ints[0, p, DECLARED] == 0:
            s2.seat_ints[0, p, DECL] = rng.integers(1, 300)
        if p != seat:
            s2.seat_ints[0, p, CLAIM_DECL] = rng.integers(1, 300)
    c[COMBO] = rng.integers(0, 2, NUM_CARDS)
    if int(s2.dealer[0]) != seat:
        s2.ints[0, PICKUP_DECL] = rng.integers(1, 300)
    phase, current = int(s2.phase[0]), int(s2.current[0])
    if phase != PH_CLAIM or current != seat:
        s2.ints[0, CLAIM_VALUE] = rng.integers(1, 900)
        s2.ints[0, CLAIM_OK] = rng.integers(0, 2)
    if phase != PH_CLAIM:
        s2.ints[0, WINDOW] = rng.integers(0, 3)
    if current != seat:
        s2.legal[0] = rng.integers(0, 2, s2.legal.shape[1]).astype(bool)
        if phase == PH_DECLARE or (phase == PH_CLAIM and s.ints[0, WINDOW] == W_FIRST_TURN):  # the hidden step of his first turn
            first_turn_claim = phase == PH_DECLARE
            s2.ints[0, PHASE] = PH_CLAIM if first_turn_claim else PH_DECLARE
            s2.ints[0, WINDOW] = W_FIRST_TURN
            s2.seat_ints[0, current, STAGE] = 1 if first_turn_claim else 2
    hidden = ~seen_by(s, 0, seat) & (c[PLACE] != PL_SECOND)
    soloist = int(s2.soloist[0])
    if t.game.spec.auction and int(s2.contract[0]) == SU and soloist != seat:  # which of his cards came from the Pozzo
        hidden |= (c[HAND_OF] == soloist) | (c[PLAYED_BY] == soloist) | ((c[PLACE] == PL_DISCARD) & (c[PILE_OF] == soloist))
    c[DEALT_TO, hidden] = rng.integers(-1, n, int(hidden.sum()))
    if t.game.spec.second_deal and not np.any(c[PLACE] == PL_SECOND):  # which of the other's cards came from the first deal
        hidden |= (c[PLAYED_BY] >= 0) & (c[PLAYED_BY] != seat)
        hidden |= (c[PLACE] == PL_DISCARD) & (c[PILE_OF] != seat)
    c[FIRST, hidden] = rng.integers(0, 2, int(hidden.sum()))
    return s2


@pytest.mark.parametrize("name", NAMES)
def test_samples_do_not_depend_on_hidden_cards(name):
    """4: hidden cards swapped between places and hidden derived fields scribbled over give the
    same samples for the same generator seed."""
    t = table(name)
    rng = np.random.default_rng(11)
    for i, (s, seat) in enumerate(t.positions[::2]):
        s2 = _scribble(t, s, seat, rng)
        a = sample(t.game, s, 0, seat, K, np.random.default_rng(i))
        b = sample(t.game, s2, 0, seat, K, np.random.default_rng(i))
        for name_, x, y in zip(("ints", "seat_ints", "cards", "hist", "legal"), a.blocks.values(), b.blocks.values()):
            np.testing.assert_array_equal(x, y, err_msg=f"{name}: the {name_} block differs")


@pytest.mark.parametrize("name", NAMES)
def test_samples_play_to_the_end_of_the_hand(name):
    """5: each sample is played by the bot to the end of its hand (rows are independent tables)."""
    t = table(name)
    rng = np.random.default_rng(3)
    for s, seat in t.positions[1::3]:
        st = sample(t.game, s, 0, seat, K, rng)
        assert is_play_decision(st, 0) == (int(s.phase[0]) == PH_PLAY)
        rows = np.flatnonzero(~hand_over(st))
        steps = 0
        while len(rows):
            t.step(st, rows)
            rows = rows[~hand_over(st)[rows]]
            steps += 1
            assert steps < 200
        value = hand_value(t.game, st, seat)
        assert value.shape == (K,) and np.isfinite(value).all()


@pytest.mark.parametrize(
    "name, force",
    [
        ("ottocento-claims", A_CLAIM),  # claims below the target lose (wrong_claim="loses")
        ("ottocento-near", None),
        ("terziglio", None),
        ("terziglio", A_PASS),  # three passes throw the deal in
        ("millone", None),
        ("quindici", None),
        ("mattazza-5", None),
    ],
)
def test_hand_value_is_the_env_reward(name, force):
    """hand_value reads the hand's result from the state as the env's reward="score" pays it
    (tarocchino_rewards.hand_rewards of the HandEnd the step returns): played, claimed, wrongly
    claimed and thrown-in hands, Mattazza's losers."""
    t = table(name)
    _, env_id, kw, totals = next(c for c in CONFIGS if c[0] == name)
    env = tarot_env.make(env_id, **kw).unwrapped
    target = t.game.config.options.get("target", 0) or 0
    results = set()
    for deal in range(3):
        env.reset(seed=500 + deal, options={"totals": totals} if totals else None)
        s = env.game_state.copy()
        assert np.isnan(hand_value(t.game, s, 0)).all() and not hand_over(s)[0]
        ends = []
        while not ends:
            a = t.act(s, np.array([0]))
            if force is not None and s.legal[0, force]:
                a[:] = force
            ends = t.game.step(s, a, np.array([0]))
        results.add(ends[0].result)
        expected = hand_rewards(t.game.spec, "score", target, ends)[0]
        assert hand_over(s)[0]
        for seat in range(t.n):
            assert hand_value(t.game, s, seat)[0] == pytest.approx(expected[seat])
    if force == A_CLAIM:
        assert results & {"claimed", "wrong_claim"}
    if force == A_PASS:
        assert results == {"thrown_in"}


@pytest.mark.parametrize("env_id, kw", [("millone_v0", {}), ("mattazza_v0", {"num_players": 4})])
def test_match_rollouts_stop_at_the_end_of_the_hand(env_id, kw):
    """In a match episode, hand_end_deals ends each row's rollout with its hand (phase DONE, the
    hand's scores kept), where the engine would deal the next hand."""
    env = tarot_env.make(env_id, episode="match", **kw).unwrapped
    t = Table.__new__(Table)
    t.game, t.encoder, t.bot, t.n = env.game, env.encoder, TarocchinoRuleAgent(env_id), env.game.num_players
    env.reset(seed=5)
    s = env.game_state.copy()
    for _ in range(12):
        t.step(s, np.array([0]))
    seat = int(s.current[0])
    st = sample(t.game, s, 0, seat, K, np.random.default_rng(0))
    rows, deals, ends = np.arange(K), hand_end_deals(np.arange(K)), []
    while len(rows):
        ends += t.step(st, rows, deals=deals)
        rows = rows[~hand_over(st)[rows]]
    assert (st.phase == PH_DONE).all() and (st.hand_no == s.hand_no[0]).all()
    expected = hand_rewards(t.game.spec, "score", t.game.config.options.get("target", 0), sorted(ends, key=lambda e: e.row))
    np.testing.assert_allclose(hand_value(t.game, st, seat), expected[:, seat])


def test_view_names_its_places():
    t = table("millone")
    s, seat = t.positions[0]
    v = view(t.game, s, 0, seat)
    assert len(v.places) == len(v.capacity) == v.allowed.shape[1]
    assert v.places[-2:] == ("pozzo", "out of play") and belief.RETRIES > 0


@pytest.mark.parametrize("name", ["ottocento-claims", "millone-claims", "quindici", "terziglio"])
def test_deals_that_fail_a_whole_hand_condition_fall_back_consistently(name, monkeypatch):
    """Without redraws, a deal whose seat at a claim window or declaration has nothing to claim or
    declare is kept at that decision: the observation is the same and the hand plays out."""
    monkeypatch.setattr(belief, "RETRIES", 0)
    t = table(name)
    rng = np.random.default_rng(5)
    rows = np.arange(K)
    cases = [(s, seat) for s, seat in t.positions if int(s.phase[0]) in (PH_CLAIM, PH_DECLARE) and int(s.current[0]) != seat]
    assert cases
    for s, seat in cases:
        st = sample(t.game, s, 0, seat, K, rng)
        np.testing.assert_array_equal(t.obs(st, rows, seat), np.repeat(t.obs(s, np.array([0]), seat), K, axis=0))
        assert np.isin(st.phase, (PH_CLAIM, PH_DECLARE)).all()  # still at his first-turn decision or window
        live = rows
        while len(live):
            t.step(st, live)
            live = live[~hand_over(st)[live]]
        assert np.isfinite(hand_value(t.game, st, seat)).all()
