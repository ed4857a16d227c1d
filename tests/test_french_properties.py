"""Properties of random French Tarot deals (rules/french_tarot.md), checked with hypothesis.

Thousands of random legal deals for 3, 4 and 5 players are played through the rules layer at a
batch size of 32-64 deals per example (random legal actions, with ``pass`` favoured in the bidding
so that thrown-in deals occur too). On them:

- every card is in exactly one place at every step, and at the end of a played deal every card
  lies in exactly one pile (§2, §4, §8);
- attack + defence = 91 points, counting the Excuse exchange; the rules' attack points, bouts,
  unit S and scores agree with an independent count from the piles and the trick history (§6.3,
  §7, §8, §9); scores sum to zero, the taker gets (N−1)·S, or 2S with a 5-player partner (§9.2);
  thrown-in deals score 0 (§2, §3, §9.4);
- seeded deals replay identically, through the rules and through the env, and game records
  replay to the same scores (interface.md §4, §5);
- no leak: a player's seat view (:mod:`tarot_env.rules.seat_view`) and his observation do not
  change when cards hidden from him move, and do change when his own hand does.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tarot_env
from tarot_env.cards.french import BOUTS, ECART_FREE, EXCUSE, FRENCH_DECK, IS_TRUMP, NUM_CARDS, PETIT
from tarot_env.encoding.french import FrenchTarotEncoder
from tarot_env.rules.french import actions as A
from tarot_env.rules.french.config import FrenchTarotConfig
from tarot_env.rules.french.game import FrenchTarotGame
from tarot_env.rules.french.state import FrenchTarotState, Phase, Result
from tarot_env.rules.seat_view import differences, seat_view

PLAYERS = (3, 4, 5)
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
PASS = A.BID  # the "pass" action

#: Spec values, written out here rather than imported (§1, §3, §5.2, §9.1).
VALUE = FRENCH_DECK.value.astype(np.int64)  # half-points, checked against §1 in test_french_env_api
THRESHOLD_HALF = {0: 112, 1: 102, 2: 82, 3: 72}  # 56 / 51 / 41 / 36 points
MULTIPLIER = {1: 1, 2: 2, 3: 4, 4: 6}  # petite, garde, garde sans, garde contre
POIGNEE_BONUS = {0: 0, 1: 20, 2: 30, 3: 40}
POIGNEE_SIZES = {3: (13, 15, 18), 4: (10, 13, 15), 5: (8, 10, 13)}
HAND_SIZE = {3: 24, 4: 18, 5: 15}
CHIEN_SIZE = {3: 6, 4: 6, 5: 3}

RULE_OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "petit_sec": st.sampled_from(["annul", "redeal"]),
        "chelem_announcement": st.sampled_from(["after_ecart", "before_ecart", "never"]),
        "excuse_last_trick": st.sampled_from(["changes_camp", "trick_winner"]),
        "excuse_chelem_needs_announcement": st.booleans(),
        "excuse_chelem_defence": st.booleans(),
        "unpaid_excuse_debt": st.sampled_from(["four_points", "excuse_keeps_value"]),
        "double_chelem_penalty": st.booleans(),
        "jack_call": st.sampled_from(["all_knights", "all_queens"]),
        "excuse_opening_lead": st.sampled_from(["next_player", "lapses"]),
        "called_suit_only_hand": st.sampled_from(["lead_anything", "excuse_if_held"]),
        "poignee_forced_discards": st.booleans(),
        "petit_au_bout_defence_chelem_shift": st.booleans(),
        "poignee_trumps": st.sampled_from(["lowest", "highest", "choose"]),
    },
)


# --------------------------------------------------------------------------- drivers
def random_actions(g: FrenchTarotGame, s: FrenchTarotState, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row; in the bidding ``pass`` 40% of the time."""
    mask = g.legal_action_mask(s, rows)
    assert mask.any(axis=1).all(), "a deal that is not over has no legal action"
    u = rng.random(mask.shape)
    u[~mask] = -1.0
    actions = u.argmax(axis=1)
    bidding = (s.phase[rows] == Phase.BID) & (rng.random(len(rows)) < 0.4)
    actions[bidding] = PASS
    return actions


def play_batch(num_players: int, seed: int, batch: int, on_step=None, **options):
    """Deal ``batch`` random deals and play them to the end with random legal actions.

    ``on_step(g, s, rng)`` is called after the deal and after every step. Returns the game, the
    state as dealt and the final state.
    """
    g = FrenchTarotGame(FrenchTarotConfig(num_players=num_players, **options))
    rng = np.random.default_rng(seed)
    s = g.new_state(batch)
    g.shuffle_and_deal(s, np.arange(batch), rng.integers(num_players, size=batch), rng)
    dealt = s.copy()
    if on_step:
        on_step(g, s, rng)
    for _ in range(1000):
        active = np.flatnonzero(s.phase != Phase.DONE)
        if not len(active):
            return g, dealt, s
        g.step(s, random_actions(g, s, active, rng), active, check=False)
        if on_step:
            on_step(g, s, rng)
    raise AssertionError("deals did not end")


def petit_sec(hand: np.ndarray) -> bool:
    """§2: the only trump is the Petit and no Excuse."""
    return bool(hand[PETIT] and np.count_nonzero(hand & IS_TRUMP) == 1 and not hand[EXCUSE])


# --------------------------------------------------------------------------- cards in one place
def assert_cards_partitioned(g: FrenchTarotGame, s: FrenchTarotState, rng=None) -> None:
    """Hands + cards played + écart + the unseen chien hold each of the 78 cards exactly once,
    and each hand has its size: hand_size − cards played (+ what the taker still has to discard)."""
    n = g.num_players
    places = s.hands.sum(axis=1) + s.played.sum(axis=1) + s.ecart + (s.chien & ~s.chien_seen[:, None])
    assert (places == 1).all(), f"cards in {places.min()}..{places.max()} places"
    assert (s.chien.sum(axis=1) == CHIEN_SIZE[n]).all()
    held = s.hands.sum(axis=2) + s.played.sum(axis=2)
    expected = HAND_SIZE[n] + np.where(np.arange(n)[None, :] == s.taker[:, None], s.ecart_left[:, None], 0)
    np.testing.assert_array_equal(held, expected)
    # a shown chien went to the taker: it is in his hand, his écart or his played cards
    shown = s.chien & s.chien_seen[:, None]
    rows = np.flatnonzero(s.chien_seen)
    owner = s.hands[rows, s.taker[rows]] | s.played[rows, s.taker[rows]] | s.ecart[rows]
    assert not (shown[rows] & ~owner).any()
    # the current trick's cards are among the cards played
    on_table = s.trick >= 0
    assert (on_table.sum(axis=1) == s.trick_size).all()


@pytest.mark.parametrize("num_players", PLAYERS)
@settings(max_examples=25, deadline=None)
@given(seed=SEEDS)
def test_every_card_is_in_exactly_one_place_at_every_step(num_players, seed):
    """§2, §4, §6: 32 random deals per example, checked after the deal and after every action."""
    play_batch(num_players, seed, 32, on_step=assert_cards_partitioned)


@pytest.mark.parametrize("num_players", PLAYERS)
@settings(max_examples=15, deadline=None)
@given(seed=SEEDS, options=RULE_OPTIONS)
def test_every_card_is_in_exactly_one_place_under_any_rule_options(num_players, seed, options):
    """The same under random rule options (chelem before the écart, poignées chosen card by card, ...)."""
    play_batch(num_players, seed, 32, on_step=assert_cards_partitioned, **options)


# --------------------------------------------------------------------------- the end of a deal
def attack_side(s: FrenchTarotState, r: int, n: int) -> np.ndarray:
    """(n,) bool: the taker and his partner."""
    side = np.zeros(n, dtype=bool)
    side[int(s.taker[r])] = True
    if int(s.partner[r]) >= 0:
        side[int(s.partner[r])] = True
    return side


def check_thrown_in(s: FrenchTarotState, dealt: FrenchTarotState, r: int, n: int) -> None:
    """§2, §3, §9.4: a deal annulled for a petit sec, or where everybody passed, scores nothing."""
    assert not s.scores[r].any()
    result = int(s.result[r])
    has_petit_sec = any(petit_sec(dealt.hands[r, p]) for p in range(n))
    if result == Result.PETIT_SEC:
        assert has_petit_sec
        assert (s.bids[r] == -1).all(), "a petit sec is annulled before the bidding"
    else:
        assert result == Result.ALL_PASSED
        assert not has_petit_sec
        assert (s.bids[r] == 0).all()
    np.testing.assert_array_equal(s.hands[r], dealt.hands[r])


def check_played_deal(g: FrenchTarotGame, s: FrenchTarotState, dealt: FrenchTarotState, r: int) -> None:
    """The end of a played deal under the default options, counted independently from the piles
    and the trick history (§4, §6.3, §7, §8, §9)."""
    n, T = g.num_players, g.num_tricks
    assert not any(petit_sec(dealt.hands[r, p]) for p in range(n))
    taker, partner, contract = int(s.taker[r]), int(s.partner[r]), int(s.contract[r])
    att = attack_side(s, r, n)
    pile, winners, trick_of = s.pile[r], s.winners[r], s.trick_of[r]

    # every card is in exactly one pile; no hand holds a card
    assert not s.hands[r].any()
    assert ((pile >= 0) & (pile < n)).all(), "a card without a pile"
    assert ((winners >= 0) & (winners < n)).all()
    played = s.played[r].any(axis=0)
    np.testing.assert_array_equal(played, trick_of >= 0)
    assert np.bincount(trick_of[played], minlength=T).tolist() == [n] * T, "each trick has N cards"

    # §4: the écart (petite, garde) is the taker's; the unseen chien is the taker's (garde sans) or
    # the defence's (garde contre)
    if contract <= 2:
        assert s.chien_seen[r]
        assert s.ecart[r].sum() == CHIEN_SIZE[n]
        assert (pile[s.ecart[r]] == taker).all()
        assert not (s.ecart[r] & ~ECART_FREE & ~IS_TRUMP).any(), "a King or bout in the écart"
        np.testing.assert_array_equal(played | s.ecart[r], np.ones(NUM_CARDS, bool))
    else:
        assert not s.chien_seen[r] and not s.ecart[r].any()
        assert (att[pile[s.chien[r]]] == (contract == 3)).all()
        np.testing.assert_array_equal(played | s.chien[r], np.ones(NUM_CARDS, bool))

    # §6.4: each played card goes to the side of its trick's winner, except the Excuse (§6.3)
    for c in np.flatnonzero(played):
        if c != EXCUSE:
            assert att[pile[c]] == att[winners[trick_of[c]]], f"{FRENCH_DECK.format(c)} in the wrong pile"

    # §6.3: the Excuse and its exchange, booked in half-points (+1 to the attack when it receives)
    exchange = 0
    t = int(trick_of[EXCUSE])
    attack_tricks = int(att[winners].sum())
    if t >= 0:
        owner = int(s.excuse_seat[r])
        assert s.played[r, owner, EXCUSE]
        if t < T - 1:
            assert att[pile[EXCUSE]] == att[owner], "the Excuse stays with its side"
            if att[owner] != att[winners[t]]:
                exchange = 1 if att[winners[t]] else -1
        else:
            earlier_by_side = att[winners[: T - 1]] == att[owner]
            if earlier_by_side.all():  # its side won every earlier trick: the Excuse wins the last
                assert int(winners[t]) == owner
                assert att[pile[EXCUSE]] == att[owner]
            else:  # otherwise it changes camp, with no exchange
                assert att[pile[EXCUSE]] != att[owner]
    assert int(s.exchange[r]) == exchange

    # §8: attack + defence = 91 points = 182 half-points
    attack_half = int(VALUE[att[pile]].sum()) + exchange
    defence_half = int(VALUE[~att[pile]].sum()) - exchange
    assert attack_half + defence_half == 182
    assert int(s.attack_points[r]) == attack_half
    bouts = int(att[pile[list(BOUTS)]].sum())
    assert int(s.attack_bouts[r]) == bouts

    # §5.2: each poignée shows exactly its size from the player's own trumps, the Excuse only
    # with every trump
    for p in range(n):
        level = int(s.poignee[r, p])
        shown = s.poignee_cards[r, p]
        if not level:
            assert not shown.any()
            continue
        assert shown.sum() == POIGNEE_SIZES[n][level - 1]
        own = (s.played[r, p] & IS_TRUMP) | ((s.ecart[r] & IS_TRUMP) if p == taker else False)
        assert not (shown & ~own & (np.arange(NUM_CARDS) != EXCUSE)).any(), "a poignée shows someone else's trump"
        if shown[EXCUSE]:
            assert s.played[r, p, EXCUSE]
            np.testing.assert_array_equal(shown & IS_TRUMP, own)

    # §7: petit au bout, with the chelem shift
    pab = 0
    petit_t = int(trick_of[PETIT])
    if petit_t == T - 1:
        pab = 1 if att[winners[T - 1]] else -1
    elif petit_t == T - 2 and t == T - 1:
        owner_attack = att[int(s.excuse_seat[r])]
        if attack_tricks == T and owner_attack:
            pab = 1
        elif attack_tricks == 0 and not owner_attack:
            pab = -1
    assert int(s.petit_au_bout[r]) == pab

    # §9.1: the unit S
    announced = bool(s.chelem[r])
    chelem = (400 if attack_tricks == T else -200) if announced else (200 if attack_tricks == T else 0)
    if attack_tricks == 0:
        chelem -= 200
    made = attack_half >= THRESHOLD_HALF[bouts]
    assert bool(s.made[r]) == made
    d = (abs(attack_half - THRESHOLD_HALF[bouts]) + 1) // 2  # §9.3: the half point goes to the winner
    sgn = 1 if made else -1
    m = MULTIPLIER[contract]
    poignees = sum(POIGNEE_BONUS[int(x)] for x in s.poignee[r])
    unit = sgn * (25 + d) * m + pab * 10 * m + sgn * poignees + chelem
    assert int(s.unit[r]) == unit

    # §9.2: shares, zero sum
    expected = np.full(n, -unit)
    if partner >= 0:
        assert n == 5 and partner != taker
        expected[partner] = unit
        expected[taker] = 2 * unit
    else:
        expected[taker] = (n - 1) * unit
    np.testing.assert_array_equal(s.scores[r], expected)
    assert s.scores[r].sum() == 0


@pytest.mark.parametrize("num_players", PLAYERS)
@settings(max_examples=40, deadline=None)
@given(seed=SEEDS)
def test_end_of_deal_accounting(num_players, seed):
    """64 random deals per example under the default options: placement, 91 points with the Excuse
    exchange, bouts, poignées, petit au bout, S and the shares, and thrown-in deals score 0."""
    g, dealt, s = play_batch(num_players, seed, 64)
    assert (s.phase == Phase.DONE).all()
    for r in range(64):
        if int(s.result[r]) == Result.PLAYED:
            check_played_deal(g, s, dealt, r)
        else:
            check_thrown_in(s, dealt, r, num_players)


@pytest.mark.parametrize("num_players", PLAYERS)
@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, options=RULE_OPTIONS)
def test_zero_sum_and_91_points_under_any_rule_options(num_players, seed, options):
    """Whatever the options: scores sum to zero, the taker gets (N−1)·S or 2S with a partner and
    each defender −S, every card has a pile, the attack's points are its piles' points plus an
    exchange of at most half a point each way (so attack + defence = 91), thrown-in deals score 0."""
    n = num_players
    _, _, s = play_batch(n, seed, 48, **options)
    for r in range(48):
        scores = s.scores[r]
        assert scores.sum() == 0
        if int(s.result[r]) != Result.PLAYED:
            assert not scores.any()
            continue
        assert not s.hands[r].any() and (s.pile[r] >= 0).all()
        att = attack_side(s, r, n)
        pile_half = int(VALUE[att[s.pile[r]]].sum())
        defence_half = int(VALUE[~att[s.pile[r]]].sum())
        assert pile_half + defence_half == 182
        assert abs(int(s.attack_points[r]) - pile_half) <= 1
        assert int(s.attack_bouts[r]) == int(att[s.pile[r][list(BOUTS)]].sum())
        unit, taker, partner = int(s.unit[r]), int(s.taker[r]), int(s.partner[r])
        assert scores[taker] == (2 * unit if partner >= 0 else (n - 1) * unit)
        for p in range(n):
            if p != taker:
                assert scores[p] == (unit if p == partner else -unit)


@pytest.mark.parametrize("num_players", PLAYERS)
@settings(max_examples=5, deadline=None)
@given(seed=SEEDS)
def test_rules_layer_replays_a_seed_identically(num_players, seed):
    """The same seed and the same random choices give the same deals and the same end states."""
    _, dealt_a, a = play_batch(num_players, seed, 32)
    _, dealt_b, b = play_batch(num_players, seed, 32)
    for name in FrenchTarotState.__dataclass_fields__:
        np.testing.assert_array_equal(getattr(dealt_a, name), getattr(dealt_b, name), err_msg=name)
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


# --------------------------------------------------------------------------- env replay and records
@pytest.mark.parametrize("num_players", PLAYERS)
@settings(max_examples=12, deadline=None)
@given(seed=SEEDS, policy_seed=SEEDS, options=RULE_OPTIONS)
def test_env_replays_a_seed_and_records_replay_to_the_same_scores(num_players, seed, policy_seed, options):
    """interface.md §4, §5: two envs reset with the same seed, given the same actions, see the same
    observations, masks and rewards; the record (JSON-ready) replays to the same scores."""
    envs = [tarot_env.make("french_tarot_v0", num_players=num_players, **options) for _ in range(2)]
    for env in envs:
        env.reset(seed=seed)
    a, b = envs
    rng = np.random.default_rng(policy_seed)
    for _ in range(1000):
        if a.unwrapped.game_over:
            break
        assert a.agent_selection == b.agent_selection
        for agent in a.possible_agents:
            oa, ob = a.observe(agent), b.observe(agent)
            np.testing.assert_array_equal(oa["observation"], ob["observation"])
            np.testing.assert_array_equal(oa["action_mask"], ob["action_mask"])
        action = int(rng.choice(np.flatnonzero(a.observe(a.agent_selection)["action_mask"])))
        a.step(action)
        b.step(action)
        assert a.rewards == b.rewards
    assert b.unwrapped.game_over
    assert a.infos == b.infos
    record = a.unwrapped.record()
    assert record == b.unwrapped.record()
    scores = [int(x) for x in a.unwrapped.game_state.scores[0]]
    assert record["scores"] == scores
    assert tarot_env.replay(record) == scores
    assert tarot_env.replay(json.loads(json.dumps(record))) == scores
    if record["actions"]:  # a record whose scores were tampered with is refused
        forged = dict(record, scores=[x + 1 for x in scores[:-1]] + [scores[-1] - (num_players - 1)])
        with pytest.raises(tarot_env.ReplayError):
            tarot_env.replay(forged)


# --------------------------------------------------------------------------- no leaks
def hidden_places(s: FrenchTarotState, r: int, v: int, n: int) -> list[tuple[int, tuple]]:
    """(card, place) for every card whose place seat ``v`` does not know. Places: ("hand", p),
    ("chien",), ("ecart",). Public: v's own hand, poignée cards shown, the shown chien (it is in the
    taker's hand or écart), trumps in the écart, cards played."""
    taker = int(s.taker[r])
    out = []
    for p in range(n):
        if p != v:
            out += [(int(c), ("hand", p)) for c in np.flatnonzero(s.hands[r, p] & ~s.poignee_cards[r, p])]
    if not s.chien_seen[r]:
        out += [(int(c), ("chien",)) for c in np.flatnonzero(s.chien[r])]
    if taker >= 0 and v != taker:
        out += [(int(c), ("ecart",)) for c in np.flatnonzero(s.ecart[r] & ~IS_TRUMP)]
    return out


def may_move(s: FrenchTarotState, r: int, c: int, src: tuple, dst: tuple) -> bool:
    """Whether card ``c`` may move from ``src`` to ``dst`` without changing what is public."""
    if src == dst:
        return False
    taker = int(s.taker[r])
    if s.chien_seen[r] and s.chien[r, c] and {src, dst} != {("hand", taker), ("ecart",)}:
        return False  # a shown chien card is in the taker's hand or the écart, nowhere else
    return dst != ("ecart",) or bool(ECART_FREE[c])  # the écart's hidden part holds no trump, King or bout


def move(s: FrenchTarotState, r: int, c: int, src: tuple, dst: tuple) -> None:
    for place, present in ((src, False), (dst, True)):
        if place[0] == "hand":
            s.hands[r, place[1], c] = present
        elif place[0] == "chien":
            s.chien[r, c] = present
        else:
            s.ecart[r, c] = present


def swap(s: FrenchTarotState, r: int, x: tuple, y: tuple) -> None:
    """Exchange two cards between their places, with their pile entries (the écart's and the
    unseen chien's cards have their owner already) and the 5-player partner (the called card's holder)."""
    (cx, px), (cy, py) = x, y
    move(s, r, cx, px, py)
    move(s, r, cy, py, px)
    s.pile[r, cx], s.pile[r, cy] = s.pile[r, cy], s.pile[r, cx]
    called = int(s.called[r])
    if called >= 0 and not s.partner_known[r]:
        holders = np.flatnonzero(s.hands[r, :, called])
        s.partner[r] = holders[0] if len(holders) and holders[0] != s.taker[r] else -1


def random_hidden_swap(s: FrenchTarotState, r: int, v: int, n: int, rng: np.random.Generator) -> bool:
    """Swap two cards hidden from ``v`` (in place); in 5-player deals prefer the called card."""
    cards = hidden_places(s, r, v, n)
    if len(cards) < 2:
        return False
    called = int(s.called[r])
    for _ in range(30):
        x = cards[rng.integers(len(cards))]
        if called >= 0 and rng.random() < 0.5:
            x = next((item for item in cards if item[0] == called), x)
        y = cards[rng.integers(len(cards))]
        if may_move(s, r, x[0], x[1], y[1]) and may_move(s, r, y[0], y[1], x[1]):
            swap(s, r, x, y)
            return True
    return False


def own_hand_swap(s: FrenchTarotState, r: int, v: int, n: int, rng: np.random.Generator) -> bool:
    """Swap a card of ``v``'s hand with a card of another player's hand."""
    mine = np.flatnonzero(s.hands[r, v] & ~s.poignee_cards[r, v] & ~(s.chien[r] & s.chien_seen[r]))
    others = [(int(c), ("hand", p)) for p in range(n) if p != v for c in np.flatnonzero(s.hands[r, p])]
    if not len(mine) or not others:
        return False
    swap(s, r, (int(rng.choice(mine)), ("hand", v)), others[rng.integers(len(others))])
    return True


class LeakChecker:
    """At random steps, for each unfinished deal and a random player: hidden swaps leave his seat
    view (:mod:`tarot_env.rules.seat_view`, the one statement of what he may see) unchanged, and
    so his observation (the encoder reads nothing the seat view does not show) and, when he is to
    act, his legal mask, while the oracle sees them; a change in his own hand shows in both."""

    def __init__(self) -> None:
        self.checked = self.controls = 0
        self.phases: set[int] = set()
        self.partner_moves = 0
        self.enc: FrenchTarotEncoder | None = None

    def __call__(self, g: FrenchTarotGame, s: FrenchTarotState, rng: np.random.Generator) -> None:
        if rng.random() < 0.5:
            return
        n = g.num_players
        if self.enc is None:
            self.enc = FrenchTarotEncoder(g)
        enc = self.enc
        rows = np.flatnonzero(s.phase != Phase.DONE)
        if not len(rows):
            return
        viewers = rng.integers(n, size=len(rows))
        hidden, mine = s.copy(), s.copy()
        swapped = np.array([random_hidden_swap(hidden, r, v, n, rng) for r, v in zip(rows, viewers)])
        controlled = np.array([own_hand_swap(mine, r, v, n, rng) for r, v in zip(rows, viewers)])
        for i, (r, v) in enumerate(zip(rows, viewers)):  # the seat view holds no card hidden from him
            view = seat_view(g, s, r, v)
            diff = differences(view, seat_view(g, hidden, r, v))
            assert not diff, f"seat {v}'s seat view shows hidden cards move (phase {Phase.name(int(s.phase[r]))}): {diff}"
            if controlled[i]:
                assert differences(view, seat_view(g, mine, r, v)), f"seat {v}'s own hand changed, his seat view did not"
        before = enc.encode(s, rows, viewers)
        after = enc.encode(hidden, rows, viewers)
        for i in np.flatnonzero(~(before == after).all(axis=1)):  # same seat view: same observation
            r = rows[i]
            diff = [f.name for f in enc.fields.values() if (before[i] != after[i])[f.offset : f.offset + f.length].any()]
            raise AssertionError(f"seat {viewers[i]} sees hidden cards move (phase {Phase.name(int(s.phase[r]))}): fields {diff}")
        oracle_before = enc.encode_oracle(s, rows, viewers)
        oracle_after = enc.encode_oracle(hidden, rows, viewers)
        assert (oracle_before != oracle_after).any(axis=1)[swapped].all(), "a swap that changed nothing"
        acting = np.flatnonzero(swapped & (s.current[rows] == viewers))
        if len(acting):
            np.testing.assert_array_equal(g.legal_action_mask(s, rows[acting]), g.legal_action_mask(hidden, rows[acting]))
        changed = ~(before == enc.encode(mine, rows, viewers)).all(axis=1)
        np.testing.assert_array_equal(changed, controlled)  # his own hand changed: his observation did
        self.checked += int(swapped.sum())
        self.controls += int(controlled.sum())
        self.phases |= {int(p) for p in s.phase[rows[swapped]]}
        self.partner_moves += int((hidden.partner[rows] != s.partner[rows]).sum())


@pytest.mark.parametrize("num_players", PLAYERS)
@settings(max_examples=20, deadline=None)
@given(seed=SEEDS)
def test_observation_does_not_leak_hidden_cards(num_players, seed):
    """Swapping cards between two other players' hands, or between another hand and the unseen
    chien or the écart's hidden part, while keeping everything public (cards played, poignée cards
    shown, the shown chien, écart trumps), leaves the player's observation unchanged."""
    checker = LeakChecker()
    play_batch(num_players, seed, 8, on_step=checker)
    assert checker.checked > 50 and checker.controls > 50
    assert Phase.PLAY in checker.phases


def test_leak_checks_cover_every_phase_and_the_secret_partner():
    """The leak check above reaches every phase where something is hidden, and in 5-player deals
    moves the called card (so the secret partner changes) without the observation showing it."""
    phases: set[int] = set()
    partner_moves = 0
    for n, seed in ((3, 1), (4, 2), (5, 3), (5, 4)):
        checker = LeakChecker()
        play_batch(n, seed, 24, on_step=checker, poignee_trumps="choose")
        phases |= checker.phases
        partner_moves += checker.partner_moves
    assert phases >= {Phase.BID, Phase.CALL, Phase.ECART, Phase.CHELEM, Phase.POIGNEE, Phase.SHOW, Phase.PLAY}
    assert partner_moves > 0
