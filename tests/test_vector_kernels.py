"""The fast paths added for vector-env throughput agree with what they replace.

- ``first_illegal`` (the vector envs' legality check): the compiled loop, the NumPy version and
  a plain Python loop find the same first illegal action, or none, on random masks and actions.
- The Tarocchino observation: the compiled row function (``encode_row``, the card fields written
  without a branch) and the reference ``encode_row_reference`` give the same observation for every seat
  after every action of random hands of every game, rules options drawn at random.
- The automatic Matto exchange (U20, U3): ``TarocchinoGame._auto_exchange`` picks, in every hand
  where it is due, the card a brute-force search of the rule picks (least cost to the giver,
  then least help to the receiver, then the lowest card id).
- The declarations (§7): the compiled ``claims.declarations_rows`` (at PREPARE: each seat's
  value, claim value and the cards shown) and ``claims.claim_values_at_deal_rows`` (the
  windows before play) give what the batch functions ``combination_points`` and
  ``combination_cards`` give for the same hands, options U5 and U6 drawn at random.
- Dealing (``TarocchinoGame._place``): every card of a random pack lands in the hand, place and
  first-deal flag that its position in the pack and ``deal.deal_destinations`` give it.

With numba the first two compare two implementations; without it the compiled ones are the
reference itself, and these tests check the reference against the plain loops only.
"""

from __future__ import annotations

import numpy as np
import pytest

from tarot_env._jit import python_of
from tarot_env.cards.bolognese import IS_SCARTINO, MATTO, NUM_CARDS
from tarot_env.encoding import bolognese as enc_mod
from tarot_env.encoding.bolognese import TarocchinoEncoder
from tarot_env.rules.bolognese import engine
from tarot_env.rules.bolognese import game as game_mod
from tarot_env.rules.bolognese.combinations import combination_cards, combination_points
from tarot_env.rules.bolognese.config import TarocchinoConfig
from tarot_env.rules.bolognese.counting import CARD_VALUE
from tarot_env.rules.bolognese.deal import EXTRA, HAND, OUT, POZZO, SECOND
from tarot_env.rules.bolognese.game import TarocchinoGame
from tarot_env.rules.bolognese.game_specs import GAMES as GAME_SPECS
from tarot_env.rules.bolognese.state import (
    CLAIM_DECL,
    COMBO,
    DEALER,
    DEALT_TO,
    DECL,
    FIRST,
    HAND_OF,
    MATTO_SEAT,
    MATTO_WINNER,
    PH_DONE,
    PH_PREPARE,
    PH_SCORE,
    PHASE,
    PICKUP_DECL,
    PILE_OF,
    PL_EXTRA,
    PL_HAND,
    PL_OUT,
    PL_POZZO,
    PL_SECOND,
    PLACE,
    RESULT,
)
from tarot_env.vector.common import _first_illegal, first_illegal, first_illegal_numpy

#: (game, players): the seven games, Mattazza at its smallest and largest table
GAMES = (
    ("ottocento", 4),
    ("quattro_scartate", 4),
    ("terziglio", 3),
    ("millone", 2),
    ("centocinquanta", 2),
    ("quindici", 2),
    ("mattazza", 3),
    ("mattazza", 6),
)
GAME_IDS = [f"{g}-{n}" for g, n in GAMES]


def _random_options(rng: np.random.Generator, game: str) -> dict:
    """The options that change what is observed or exchanged, drawn at random."""
    options = {
        "matto_gift": str(rng.choice(["scartino", "any"])),
        "mori": str(rng.choice(["both", "grande", "mori", "best"])),
        "matto_last_trick": str(rng.choice(["kept", "lost"])),
        "matto_lead": str(rng.choice(["allowed", "never"])),
    }
    if game != "mattazza":
        options["must_overtrump"] = bool(rng.integers(2))
    if GAME_SPECS[game].declarations:
        options["doubling"] = bool(rng.integers(2))
        options["declarations"] = bool(rng.integers(4))  # mostly on: the values are what is checked
    return options


def _play(game: str, n: int, seed: int, batch: int, on_step, on_score=None) -> int:
    """Play ``batch`` random hands of ``game`` to their end with random rules options, calling
    ``on_step(g, s)`` after the deal and after every action, and ``on_score(g, s, rows)`` on the
    rows whose played hand is about to be scored (before the Matto exchange). Returns the
    number of actions played."""
    rng = np.random.default_rng(seed)
    g = TarocchinoGame(TarocchinoConfig.make(game, n, **_random_options(rng, game)))
    s = g.new_state(batch)
    rows = np.arange(batch)
    g.shuffle_and_deal(s, rows, rng.integers(n, size=batch), rng)
    on_step(g, s)
    actions = 0
    while True:
        active = rows[s.ints[:, PHASE] != PH_DONE]
        if not len(active):
            return actions
        legal = s.legal[active]
        assert legal.any(axis=1).all()
        choice = np.where(legal, rng.random(legal.shape), -1.0).argmax(axis=1)
        actions += len(active)
        if engine.step_rows(*s.blocks.values(), active, choice, g.opts):
            phase = s.ints[active, PHASE]
            if (phase == PH_PREPARE).any():
                g._prepare(s, active[phase == PH_PREPARE])
            played = active[(s.ints[active, PHASE] == PH_SCORE) & (s.ints[active, RESULT] == 0)]
            if on_score is not None and len(played):
                on_score(g, s, played)
            g._settle(s, active, rng)
        on_step(g, s)


# ---------------------------------------------------------------------------- first_illegal
def test_first_illegal_twins_agree_on_random_masks():
    """The compiled loop, the NumPy version and the plain loop give the same answer: the
    position of the first action out of range or not legal at its row, -1 when all are legal."""
    rng = np.random.default_rng(0)
    seen = set()
    for trial in range(300):
        B, A = int(rng.integers(1, 40)), int(rng.integers(2, 210))
        legal = rng.random((B, A)) < rng.random()
        rows = rng.permutation(B)[: int(rng.integers(1, B + 1))].astype(np.int64)
        # mostly legal actions, some illegal ones and some out of range (negative, or >= A)
        actions = np.array([rng.choice(np.flatnonzero(legal[r])) if legal[r].any() else 0 for r in rows], dtype=np.int64)
        for _ in range(int(rng.integers(0, 3))):
            actions[rng.integers(len(rows))] = rng.choice([-1, -7, A, A + 3, int(rng.integers(A))])
        expected = python_of(_first_illegal)(legal, rows, actions)
        assert first_illegal(legal, rows, actions) == expected == first_illegal_numpy(legal, rows, actions), trial
        seen.add(expected == -1)
    assert seen == {True, False}  # both outcomes were tested


# ---------------------------------------------------------------------------- the Tarocchino observation
@pytest.mark.parametrize(("game", "n"), GAMES, ids=GAME_IDS)
def test_compiled_observation_equals_the_reference_for_every_seat(game, n):
    """After the deal and every action of 48 random hands, every seat's observation of every
    table from the compiled twin ``encode_row``, and from ``encode_rows`` as the envs call it
    (the twin up to 5 players, the compiled reference with 6), equals the reference
    ``encode_row_reference`` run as Python."""
    enc = TarocchinoEncoder(n)
    batch = 48
    rows = np.arange(batch)
    checked = [0]

    def check(g, s):
        for v in range(n):
            viewers = np.full(batch, v)
            rows_fast = enc.encode(s, rows, viewers)
            fast, slow = np.empty_like(rows_fast), np.empty_like(rows_fast)
            for i in range(batch):
                enc_mod.encode_row(s.ints, s.seat_ints, s.cards, i, v, fast[i], enc.offsets)
                python_of(enc_mod.encode_row_reference)(s.ints, s.seat_ints, s.cards, i, v, slow[i], enc.offsets)
            np.testing.assert_array_equal(fast, slow)
            np.testing.assert_array_equal(rows_fast, slow)
        checked[0] += 1

    for seed in range(2):
        _play(game, n, seed, batch, check)
    assert checked[0] > 40  # every hand was played through


# ---------------------------------------------------------------------------- the Matto exchange
def _exchange_by_brute_force(g: TarocchinoGame, s, row: int) -> int | None:
    """The card the U20 rule gives for the Matto at ``row``, by trying every candidate; None
    when no exchange is due (no Matto covered, or its trick won by its own side)."""
    m, w = int(s.ints[row, MATTO_SEAT]), int(s.ints[row, MATTO_WINNER])
    sides = g.sides(s, row)
    if m < 0 or sides[m] == sides[w]:
        return None
    pile_of = s.cards[row, PILE_OF]
    side_of_card = np.where(pile_of >= 0, sides[np.maximum(pile_of, 0)], -1)
    mine, theirs = side_of_card == sides[m], side_of_card == sides[w]
    candidates = [c for c in np.flatnonzero(mine) if c != MATTO]
    if g.config.matto_gift == "scartino" and any(IS_SCARTINO[c] for c in candidates):
        candidates = [c for c in candidates if IS_SCARTINO[c]]
    best = None
    for c in candidates:
        without, with_ = mine.copy(), theirs.copy()
        without[c], with_[c] = False, True
        cost = -int(CARD_VALUE[without].sum() + combination_points(without, mori=g.config.mori))
        help_ = int(CARD_VALUE[with_].sum() + combination_points(with_, mori=g.config.mori))
        if best is None or (cost, help_, c) < best:
            best = (cost, help_, int(c))
    return best[2]


@pytest.mark.parametrize(("game", "n"), GAMES, ids=GAME_IDS)
def test_automatic_matto_exchange_equals_a_brute_force_search(game, n):
    """In every played hand of random deals where the exchange is due, ``_auto_exchange`` gives
    the receiver the card that the brute-force search picks, and moves no other card."""
    exchanges = [0]

    def on_score(g, s, rows):
        expected = {int(r): _exchange_by_brute_force(g, s, int(r)) for r in rows}
        before = s.cards[:, PILE_OF].copy()
        g._auto_exchange(s, rows)
        moved = np.argwhere(s.cards[:, PILE_OF] != before)
        assert sorted((int(r), int(c)) for r, c in moved) == sorted((r, c) for r, c in expected.items() if c is not None)
        for r, c in expected.items():
            if c is not None:
                assert s.cards[r, PILE_OF, c] == s.ints[r, MATTO_WINNER]
                exchanges[0] += 1

    for seed in range(3):
        _play(game, n, 100 + seed, 32, lambda g, s: None, on_score)
    assert exchanges[0] >= 5  # the rule was exercised


# ---------------------------------------------------------------------------- the declarations
def _held(s, row: int, seat: int, place: int | None = PL_HAND, first: bool = False) -> np.ndarray:
    held = s.cards[row, HAND_OF] == seat
    if place is not None:
        held &= s.cards[row, PLACE] == place
    if first:
        held &= s.cards[row, FIRST] == 1
    return held


@pytest.mark.parametrize(("game", "n"), GAMES, ids=GAME_IDS)
def test_declaration_values_equal_the_batch_count_of_the_hands(game, n, monkeypatch):
    """At PREPARE every seat's ``decl`` is the batch count of its hand (0 without declarations),
    its ``claim_decl`` that of its first-deal cards in Millone (§11.6) and of its hand elsewhere,
    and ``combo`` the union of every hand's combination cards; at the deal, the dealer's
    ``pickup_decl`` and his right-hand neighbour's ``claim_decl`` are those of his first cards and
    of that player's whole hand."""
    seen = {"prepare": 0, "deal": 0}

    def values(g, hands):
        o = g.config.options
        if not o.get("declarations", False):
            return np.zeros(len(hands), dtype=np.int64)
        return combination_points(np.array(hands), mori=g.config.mori, doubling=o.get("doubling", True))

    def checked_prepare(seat_ints, cards, rows, opts):
        prepare(seat_ints, cards, rows, opts)
        g, s = current["g"], current["s"]
        for r in rows.tolist():
            hands = [_held(s, r, p) for p in range(n)]
            np.testing.assert_array_equal(s.seat_ints[r, :, DECL], values(g, hands))
            claim = [_held(s, r, p, first=True) for p in range(n)] if g.spec.second_deal else hands
            np.testing.assert_array_equal(s.seat_ints[r, :, CLAIM_DECL], values(g, claim))
            shown = combination_cards(np.array(hands), mori=g.config.mori, doubling=g.config.options.get("doubling", True)).any(axis=0)
            np.testing.assert_array_equal(s.cards[r, COMBO] == 1, shown)
            seen["prepare"] += 1

    def checked_deal(ints, seat_ints, cards, rows, opts):
        before = seat_ints.copy()
        at_deal(ints, seat_ints, cards, rows, opts)
        g, s = current["g"], current["s"]
        if not g.spec.claims:
            np.testing.assert_array_equal(seat_ints, before)
            return
        for r in rows.tolist():
            d = int(s.ints[r, DEALER])
            opp = (d + 1) % n
            assert s.ints[r, PICKUP_DECL] == values(g, [_held(s, r, d)])[0]
            assert s.seat_ints[r, opp, CLAIM_DECL] == values(g, [_held(s, r, opp, place=None)])[0]
            seen["deal"] += 1

    prepare, at_deal = game_mod.declarations_rows, game_mod.claim_values_at_deal_rows
    monkeypatch.setattr(game_mod, "declarations_rows", checked_prepare)
    monkeypatch.setattr(game_mod, "claim_values_at_deal_rows", checked_deal)
    current = {}
    real_init = TarocchinoGame.new_state

    def new_state(self, batch):
        current["g"], current["s"] = self, real_init(self, batch)
        return current["s"]

    monkeypatch.setattr(TarocchinoGame, "new_state", new_state)
    for seed in range(3):
        _play(game, n, 200 + seed, 24, lambda g, s: None)
    assert seen["prepare"] >= 24
    assert seen["deal"] >= (24 if GAME_SPECS[game].claims else 0)


# ---------------------------------------------------------------------------- dealing
_PLACE_OF = {HAND: PL_HAND, EXTRA: PL_EXTRA, SECOND: PL_SECOND, POZZO: PL_POZZO, OUT: PL_OUT}


@pytest.mark.parametrize(("game", "n"), GAMES, ids=GAME_IDS)
def test_cards_are_placed_where_their_position_in_the_pack_deals_them(game, n):
    """The card at position j of a pack gets the seat (dealer's right first), the place and
    the first-deal flag of position j of ``deal_destinations``, at every table of a batch."""
    rng = np.random.default_rng(7)
    g = TarocchinoGame(TarocchinoConfig.make(game, n))
    batch = 40
    s = g.new_state(batch)
    dealers = rng.integers(n, size=batch)
    packs = np.argsort(rng.random((batch, NUM_CARDS)), axis=1)
    g.start_deals(s, np.arange(batch), dealers, packs)
    dest = g.dest
    for i in range(batch):
        for j, c in enumerate(packs[i]):
            seat = -1 if dest.seat[j] < 0 else (dealers[i] + 1 + dest.seat[j]) % n
            place = _PLACE_OF[int(dest.place[j])]
            in_hand = place in (PL_HAND, PL_EXTRA)
            assert s.cards[i, DEALT_TO, c] == seat
            assert s.cards[i, FIRST, c] == in_hand
            # start_deals goes on to the first decision, which may already have moved cards
            # (the dealer's pickup, the Pozzo): the rows must agree with the pack where they are unmoved
            if s.cards[i, PLACE, c] == place:
                assert s.cards[i, HAND_OF, c] == (seat if in_hand else -1)
