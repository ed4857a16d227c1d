"""The French Tarot belief sampler (tarot_env.belief.french) and its dealer (tarot_env.belief.deal).

Positions come from random legal play of random deals (3, 4 and 5 players, all contracts, poignées,
calls), seen from a random seat. Every sample must:

- give the seat the very observation it has of the real deal;
- hold every card in exactly one place, each hidden place with its real count;
- be a deal the real game could have been: the sampled deal, dealt again and replayed with the real
  public actions (the hidden ones, another seat's écart and his silent "no poignée", taken from the
  sample) is legal at every action and ends at the same observation. This checks every constraint
  (voids, the écart's rules, the call) by the rules' own legality, not by the sampler's reasoning;
- not depend on what the seat cannot see: hidden cards swapped between hidden places, and the
  hidden fields scribbled over, give the same samples from the same generator.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tarot_env
from tarot_env._jit import python_of
from tarot_env.belief import french as bf
from tarot_env.belief.deal import NoConsistentDealError, _deal, deal_unseen, feasible_deal
from tarot_env.cards.french import ECART_FREE, NUM_CARDS
from tarot_env.rules.french import actions as A
from tarot_env.rules.french.deal import format_deal
from tarot_env.rules.french.state import Phase
from tarot_env.rules.seat_view import differences, seat_view

K = 6


def positions(num_players: int, deals: int, seed: int, **rules):
    """(env, viewer) at every decision of ``deals`` random deals played with random legal actions,
    the viewer a random seat (the seat to act every other time)."""
    rng = np.random.default_rng(seed)
    env = tarot_env.make("french_tarot_v0", num_players=num_players, **rules)
    for d in range(deals):
        env.reset(seed=seed * 1000 + d)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            s = env.unwrapped.game_state
            viewer = int(s.current[0]) if rng.random() < 0.5 else int(rng.integers(num_players))
            yield env, viewer
            mask = obs["action_mask"].astype(bool)
            legal = np.flatnonzero(mask)
            if s.phase[0] == Phase.BID and rng.random() < 0.6:  # fewer thrown-in deals
                legal = legal[legal != A.BID] if len(legal) > 1 else legal
            env.step(int(rng.choice(legal)))


def observation(env, state, rows, seat):
    return env.unwrapped.encoder.encode(state, rows, np.full(len(rows), seat))


def replay(env, sample, k: int, viewer: int):
    """Deal row ``k`` of ``sample`` again from its start and replay the real actions; returns the
    replayed env (raises IllegalActionError when the sample is not a deal the real game could be)."""
    raw = env.unwrapped
    s, n = raw.game_state, raw.num_players
    taker = int(s.taker[0])
    hands = sample.hands[k] | sample.played[k]
    if sample.chien_seen[k]:  # the taker's hand as dealt: what he holds, played and discarded, less the chien
        hands[taker] = (hands[taker] | sample.ecart[k]) & ~sample.chien[k]
    deal = format_deal(int(s.dealer[0]), hands, sample.chien[k])
    other = tarot_env.make("french_tarot_v0", num_players=n, **{k2: v for k2, v in raw.config.to_dict().items() if k2 != "num_players"})
    other.reset(options={"deal": deal})
    hidden_ecart = [int(c) for c in np.flatnonzero(sample.ecart[k] & ECART_FREE)] if viewer != taker else []
    for action in list(raw._actions):
        g = other.game_state
        phase, current = int(g.phase[0]), int(g.current[0])
        if phase == Phase.POIGNEE and not A.POIGNEE <= action <= A.NO_POIGNEE:
            assert current != viewer
            other.step(A.NO_POIGNEE)  # he is asked in the sample; in the real deal he was not, or declined unseen
            g = other.game_state
        if action == A.NO_POIGNEE and int(g.phase[0]) != Phase.POIGNEE:
            continue  # declined unseen in the real deal; not asked in the sample
        if A.DISCARD <= action < A.BID and ECART_FREE[action - A.DISCARD] and viewer != taker:
            action = A.DISCARD + hidden_ecart.pop(0)
        other.step(action)
    return other


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_samples_are_deals_the_seat_cannot_tell_from_the_real_one(num_players):
    rng = np.random.default_rng(num_players)
    checked = 0
    for env, viewer in positions(num_players, deals=12, seed=num_players):
        raw = env.unwrapped
        s = raw.game_state
        sample = bf.sample(raw.game, s, 0, viewer, K, rng)
        real = observation(env, s, np.array([0]), viewer)
        assert (observation(env, sample, np.arange(K), viewer) == real).all()
        seen = seat_view(raw.game, s, 0, viewer)  # every hidden card dealt again: the seat view is the same
        assert [differences(seat_view(raw.game, sample, k, viewer), seen) for k in range(K)] == [[]] * K
        # conservation: every card in one place; each hidden place holds its real count
        where = sample.hands.sum(axis=1) + sample.played.sum(axis=1) + sample.ecart + (sample.chien & ~sample.chien_seen[:, None])
        assert (where == 1).all()
        assert (sample.hands.sum(axis=2) == s.hands.sum(axis=2)).all()
        assert (sample.ecart.sum(axis=1) == s.ecart.sum()).all()
        if checked % 5 == 0:  # replays are slower: every fifth position
            k = int(rng.integers(K))
            other = replay(env, sample, k, viewer)
            assert (observation(other, other.game_state, np.array([0]), viewer) == real).all()
        checked += 1
    assert checked > 300


def _swap_hidden(s, viewer: int, rng) -> bool:
    """Swap two hidden cards between two hidden places of row 0 (hands of other seats, the écart's
    hidden part, the unseen chien); False when there are not two such places."""
    n = s.hands.shape[1]
    places = []
    for p in range(n):
        if p != viewer:
            places.append(("hand", p, np.flatnonzero(s.hands[0, p] & ~s.poignee_cards[0, p])))
    if viewer != s.taker[0]:
        places.append(("ecart", -1, np.flatnonzero(s.ecart[0] & ECART_FREE)))
    if not s.chien_seen[0]:
        places.append(("chien", -1, np.flatnonzero(s.chien[0])))
    places = [p for p in places if len(p[2])]
    if len(places) < 2:
        return False
    i, j = rng.choice(len(places), 2, replace=False)
    (ka, pa, ca), (kb, pb, cb) = places[i], places[j]
    # the écart's hidden cards are plain cards, as in every real deal (its trumps are shown)
    ca = ca[ECART_FREE[ca]] if kb == "ecart" else ca
    cb = cb[ECART_FREE[cb]] if ka == "ecart" else cb
    if not len(ca) or not len(cb):
        return False
    a, b = int(rng.choice(ca)), int(rng.choice(cb))
    for kind, p, old, new in ((ka, pa, a, b), (kb, pb, b, a)):
        field = s.hands[0, p] if kind == "hand" else s.ecart[0] if kind == "ecart" else s.chien[0]
        field[old], field[new] = False, True
    return True


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_samples_do_not_read_hidden_cards(num_players):
    rng = np.random.default_rng(100 + num_players)
    swapped = 0
    for env, viewer in positions(num_players, deals=10, seed=100 + num_players):
        raw = env.unwrapped
        s = raw.game_state
        other = s.copy()
        if not _swap_hidden(other, viewer, rng):
            continue
        # and scribble over what follows from hidden cards
        secret = num_players == 5 and other.called[0] >= 0 and not other.partner_known[0]
        if secret and viewer != other.partner[0]:  # the secret partner (3, 4 players: none, -1 for all)
            other.partner[0] = (int(other.partner[0]) + 2) % num_players
        others = [p for p in range(num_players) if p != viewer]
        other.poignee_todo[0, others] = ~other.poignee_todo[0, others]
        other.legal[0] = ~other.legal[0]
        a = bf.sample(raw.game, s, 0, viewer, 4, np.random.default_rng(7))
        b = bf.sample(raw.game, other, 0, viewer, 4, np.random.default_rng(7))
        for name in a.blocks:
            assert np.array_equal(a.blocks[name], b.blocks[name]), name
        swapped += 1
    assert swapped > 200


def test_the_view_finds_the_voids_and_the_overtrump_limits_shown():
    from tests.helpers_play import fixed_deal

    hands = [
        "1S 2S 3S 4S 5S 6S 7S 8S 9S 10S JS NS QS KS 1H 2H 3H 4H",
        "T2 5H 6H 7H 8H 9H 10H JH NH QH KH 1D 2D 3D 4D 5D 6D 7D",
        "T16 T17 8D 9D 10D JD ND QD KD 1C 2C 3C 4C 5C 6C 7C 8C 9C",
        "T15 10C JC NC QC KC T1 T3 T4 T5 T6 T7 T8 T9 T10 T11 T12 T13",
    ]
    env = tarot_env.make("french_tarot_v0", num_players=4)
    env.reset(options={"deal": fixed_deal(3, hands, "T14 T18 T19 T20 T21 EX")})
    raw = env.unwrapped
    for text in ("bid petite", "pass", "pass", "pass", "discard 1H", "discard 2H", "discard 3H", "discard 4H", "discard 1S", "discard 2S"):
        env.step(raw.string_to_action(text))
    # seat 0 leads spades; seat 1 trumps (T2), seat 2 overtrumps (T16), seat 3 cannot (T15 at most)
    for text in ("play 3S", "play T2", "play T16", "play T3"):
        while raw.game_state.phase[0] != Phase.PLAY:  # chelem, poignée: no
            env.step(int(np.flatnonzero(raw.game_state.legal[0])[-1]))
        env.step(raw.string_to_action(text))
    v = bf.view(raw.game, raw.game_state, 0, 0)
    assert v.places == ("hand of seat 0", "hand of seat 1", "hand of seat 2", "hand of seat 3", "ecart", "chien")
    assert v.voids[1:, 0].all() and not v.voids[:, 1:].any()  # void in spades: seats 1, 2, 3
    assert v.trump_limit[3] == 116 and v.trump_limit[1] > 121 and v.trump_limit[2] > 121  # T16's strength
    assert v.capacity.tolist() == [0, 17, 17, 17, 0, 0]  # the taker sees his écart; the chien was shown
    sample = bf.sample(raw.game, raw.game_state, 0, 0, 200, np.random.default_rng(0))
    assert not sample.hands[:, 1:, :14].any()  # nobody else holds a spade
    assert not sample.hands[:, 3, 72:77].any()  # seat 3: no trump above T16 (T17-T21 are ids 72-76)
    assert sample.hands[:, 1:, 72].any()  # T17 somewhere else: the constraint is not empty


# ---------------------------------------------------------------------------- the dealer
def _random_problem(rng, cards: int, places: int):
    """A feasible problem: a true deal, and allowed sets that contain it plus random extras."""
    capacity = rng.multinomial(cards, np.ones(places) / places)
    truth = rng.permutation(np.repeat(np.arange(places), capacity))
    allowed = rng.random((cards, places)) < 0.5
    allowed[np.arange(cards), truth] = True
    return allowed, capacity


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(1, 7))
def test_every_dealt_sample_respects_the_allowed_places_and_the_counts(seed, cards, places):
    rng = np.random.default_rng(seed)
    allowed, capacity = _random_problem(rng, cards, places)
    out = deal_unseen(allowed, capacity, 16, rng)
    assert allowed[np.arange(cards)[None, :], out].all()
    for q in range(places):
        assert ((out == q).sum(axis=1) == capacity[q]).all()


def test_without_constraints_the_deal_is_a_uniform_shuffle():
    rng = np.random.default_rng(0)
    capacity = np.array([2, 5, 3])
    out = deal_unseen(np.ones((10, 3), bool), capacity, 20_000, rng)
    freq = np.stack([(out == q).mean(axis=0) for q in range(3)], axis=1)  # (cards, places)
    assert np.abs(freq - capacity / 10).max() < 0.02  # each card in each place ∝ its size (sd ~ 0.0035)


def test_a_deal_that_gets_stuck_falls_back_to_a_feasible_deal():
    # a chain where only one deal fits: card i may go to place i or i + 1, places hold one card,
    # the last card only to the last place: sequential dealing in random order is stuck most times
    n = 12
    allowed = np.zeros((n, n), bool)
    for i in range(n):
        allowed[i, i] = True
        if i + 1 < n - 1:
            allowed[i, i + 1] = True
    out = deal_unseen(allowed, np.ones(n, dtype=np.int64), 50, np.random.default_rng(1))
    assert (out == np.arange(n)).all()


def test_no_consistent_deal_is_a_clear_error():
    with pytest.raises(NoConsistentDealError, match="fits no hidden place"):
        feasible_deal(np.array([[True, False], [True, False]]), np.array([1, 1]))
    with pytest.raises(NoConsistentDealError, match="3 unseen cards for 2 hidden places"):
        feasible_deal(np.ones((3, 2), bool), np.array([1, 1]))


def test_the_compiled_dealer_gives_the_python_dealers_samples():
    rng = np.random.default_rng(3)
    allowed, capacity = _random_problem(rng, 30, 5)
    args = [allowed, capacity.astype(np.int64), rng.random((8, 8, 30)), rng.random((8, 8, 30)), feasible_deal(allowed, capacity),
            rng.integers(30, size=(8, 400, 2))]  # fmt: skip
    a, b = np.empty((8, 30), np.int64), np.empty((8, 30), np.int64)
    python_of(_deal)(*args, a)
    _deal(*args, b)
    assert (a == b).all()


assert NUM_CARDS == 78


def test_the_public_api_samples_hands_and_refuses_bad_arguments():
    from tarot_env.belief import sample, sample_hands, view

    env = tarot_env.make("french_tarot_v0", num_players=4)
    env.reset(seed=1)
    hands = sample_hands(env, seat=2, k=50, rng=0)
    assert hands.shape == (50, 4, 78) and (hands[:, 2] == env.unwrapped.game_state.hands[0, 2]).all()
    assert (hands.sum(axis=1) <= 1).all() and (hands.sum(axis=2) == 18).all()
    assert (sample_hands(env, 2, 50, rng=0) == hands).all()  # a seed gives the same samples
    assert view(env, 2).capacity.tolist() == [18, 18, 0, 18, 0, 6]
    assert sample(env, 2, 3, rng=0).batch_size == 3
    with pytest.raises(ValueError, match=r"seat must be a seat number 0..3, got 4"):
        sample(env, 4, 3)
    with pytest.raises(ValueError, match="k must be a positive number of samples, got 0"):
        sample(env, 0, 0)
    with pytest.raises(TypeError, match="tarot_env AEC env"):
        sample(object(), 0, 1)


def test_a_call_shows_the_ranks_the_taker_had_to_hold():
    from tarot_env.cards.french import card
    from tarot_env.rules.french.call import cards_shown_by_call
    from tarot_env.rules.french.config import make_config
    from tarot_env.rules.french.game import FrenchTarotGame

    def shown(called: str, **rules) -> set[str]:
        g = FrenchTarotGame(make_config(5, **rules))
        return {c for c in ("KS", "KC", "QS", "QC", "NS", "NC", "JS") if cards_shown_by_call(g, card(called))[card(c)]}

    assert shown("KH") == set()
    assert shown("QH") == {"KS", "KC"}
    assert shown("NH") == {"KS", "KC", "QS", "QC"}
    assert shown("JH", jack_call="all_knights") == {"KS", "KC", "QS", "QC", "NS", "NC"}
    assert shown("JH", jack_call="all_queens") == {"KS", "KC", "QS", "QC"}
