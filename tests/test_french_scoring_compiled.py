"""The compiled scoring (rules/french/scoring.py) scores every deal as the rules text does.

The scoring is a row function that numba compiles (the same function runs as plain Python under
``TAROT_ENV_JIT=0``). ``tests/oracles/french_scoring.py`` states the end of a deal a second time,
written from docs/rules/french_tarot.md (§6.3, §7–§9, §15), not from the code: one deal at a time,
with its own card values. Here batches of random deals of 3, 4 and 5 players, under every
scoring option, are played to their end; then, so that every case is reached (chelems announced
or not, made or lost, the Petit au bout and its shift, the Excuse's debt, poignées), the fields
scoring reads are varied row by row: who won each trick, the piles, when the Petit and the
Excuse were played and by whom, the chelem flag, the poignées and the Excuse exchange. Both
scorings then score every row, and every field they write must agree.
"""

from __future__ import annotations

import numpy as np
import pytest
from oracles import french_scoring as oracle

from tarot_env._jit import JIT_AVAILABLE
from tarot_env.cards.french import EXCUSE, NUM_CARDS, PETIT
from tarot_env.rules.french import scoring
from tarot_env.rules.french.config import make_config
from tarot_env.rules.french.game import FrenchTarotGame
from tarot_env.rules.french.state import Chelem, Phase, Result

SETTINGS = [
    (3, {}),
    (3, {"petit_au_bout_defence_chelem_shift": False}),
    (4, {}),
    (4, {"unpaid_excuse_debt": "excuse_keeps_value", "petit_au_bout_defence_chelem_shift": False}),
    (4, {"double_chelem_penalty": False, "excuse_last_trick": "trick_winner"}),
    (5, {}),
    (5, {"unpaid_excuse_debt": "excuse_keeps_value", "double_chelem_penalty": False}),
]
TABLES = 400 if JIT_AVAILABLE else 80  # the plain-Python path (TAROT_ENV_JIT=0) scores a sample
FIELDS = ("attack_points", "attack_bouts", "made", "petit_au_bout", "chelem_result", "unit", "scores")


def played_out(g: FrenchTarotGame, tables: int, rng: np.random.Generator):
    """A batch of deals played to their end by random legal actions; the rows that were played."""
    s = g.new_state(tables)
    rows = np.arange(tables)
    g.shuffle_and_deal(s, rows, rng.integers(g.num_players, size=tables), rng)
    while True:
        live = np.flatnonzero(s.phase != Phase.DONE)
        if not len(live):
            break
        actions = (rng.random((len(live), g.num_actions)) * s.legal[live]).argmax(axis=1)
        g.step(s, actions, live)
    return s, np.flatnonzero(s.result == Result.PLAYED)


def vary(g: FrenchTarotGame, s, rows: np.ndarray, rng: np.random.Generator) -> None:
    """Vary, row by row, every field scoring reads, so that rare cases come up often."""
    n, T = g.num_players, g.num_tricks
    for i, b in enumerate(rows.tolist()):
        tk, pt = int(s.taker[b]), int(s.partner[b])
        defenders = [x for x in range(n) if x not in (tk, pt)]
        # 0: tricks as played, 1: attack chelem, 2: defence chelem, 3: all but one trick; 4 and 5:
        # the chelems with the Excuse to the last trick and the Petit to the one before
        kind = i % 6
        shift = kind >= 4
        kind = kind - 3 if shift else kind
        if kind == 1:
            s.winners[b] = tk
        elif kind == 2:
            s.winners[b] = rng.choice(defenders)
        elif kind == 3:
            s.winners[b] = tk
            s.winners[b, rng.integers(T)] = rng.choice(defenders)
        if rng.random() < 0.5:  # the piles: each card to a random seat
            s.pile[b] = rng.integers(n, size=NUM_CARDS)
        tricks = rng.permutation(T)
        if shift:
            s.trick_of[b, PETIT], s.trick_of[b, EXCUSE] = T - 2, T - 1
        else:
            s.trick_of[b, PETIT] = rng.choice([T - 1, T - 2, tricks[0], -1])
            s.trick_of[b, EXCUSE] = rng.choice([T - 1, tricks[1], -1])
        s.chelem[b] = rng.random() < 0.3
        s.poignee[b] = rng.integers(4, size=n) * (rng.random(n) < 0.3)
        # the Excuse's fields agree with one another: played (in some trick) by the taker or a
        # defender, with an exchange owed either way or none; not played (left in an unseen
        # chien), by nobody and with no exchange. The rules say nothing of a deal where an Excuse
        # that nobody played is exchanged, so neither scoring is asked about one.
        if s.trick_of[b, EXCUSE] >= 0:
            s.excuse_seat[b] = rng.choice([tk, rng.choice(defenders)])
            s.exchange[b] = rng.integers(-1, 2)
        else:
            s.excuse_seat[b], s.exchange[b] = -1, 0
        s.contract[b] = rng.integers(1, 5)


@pytest.mark.parametrize("n, options", SETTINGS)
def test_compiled_scoring_agrees_with_the_numpy_scoring(n: int, options: dict) -> None:
    g = FrenchTarotGame(make_config(n, **options))
    rng = np.random.default_rng(n * 100 + len(options))
    s, rows = played_out(g, TABLES, rng)
    assert len(rows) > TABLES // 2
    vary(g, s, rows[: len(rows) // 2 * 2 : 2], rng)  # every other row as played, the others varied
    expected = s.copy()
    oracle.score_deal(g, expected, rows)
    for name in FIELDS:  # every field poisoned first: one the scoring leaves unwritten is caught
        field = getattr(s, name)
        field[rows] = ~getattr(expected, name)[rows] if field.dtype == bool else 12345
    scoring.score_deal(g, s, rows)
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(s, name)[rows], getattr(expected, name)[rows], err_msg=name)
    codes = set(s.chelem_result[rows].tolist())
    assert {Chelem.NONE, Chelem.ANNOUNCED_MADE, Chelem.UNANNOUNCED_MADE, Chelem.DEFENCE} <= codes, codes
    assert set(s.petit_au_bout[rows].tolist()) == {-1, 0, 1}
    T = g.num_tricks
    shifted = rows[(s.trick_of[rows, PETIT] == T - 2) & (s.trick_of[rows, EXCUSE] == T - 1)]
    wins = [(s.winners[shifted] == s.taker[shifted, None]).all(axis=1), (s.winners[shifted] != s.taker[shifted, None]).all(axis=1)]
    assert min(np.count_nonzero(w) for w in wins) >= TABLES // 100  # the shift is tried for both sides' chelems
    assert (s.scores[rows].sum(axis=1) == 0).all()


def test_array_helpers_agree_with_the_oracle() -> None:
    """``unit_score`` and ``chelem_bonus`` on arrays, and ``share_out``, give the rules text's answers."""
    rng = np.random.default_rng(7)
    R = 2000
    contract, points, bouts = rng.integers(1, 5, R), rng.integers(0, 183, R), rng.integers(0, 4, R)
    pab, poignees, chelem = rng.integers(-1, 2, R), rng.choice([0, 20, 30, 40, 50, 60], R), rng.choice([0, 200, -200, 400, -400], R)
    got = scoring.unit_score(contract, points, bouts, pab, poignees, chelem)
    want = oracle.unit_score(contract, points, bouts, pab, poignees, chelem)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    announced, attack, defence = rng.random(R) < 0.5, rng.random(R) < 0.5, rng.random(R) < 0.3
    defence &= ~attack
    for double in (True, False):
        for a, b in zip(scoring.chelem_bonus(announced, attack, defence, double), oracle.chelem_bonus(announced, attack, defence, double)):
            np.testing.assert_array_equal(a, b)
    for n in (3, 4, 5):
        taker = rng.integers(n, size=R)
        partner = np.where(rng.random(R) < 0.5, (taker + 1 + rng.integers(n - 1, size=R)) % n, -1) if n == 5 else np.full(R, -1)
        unit = rng.integers(-500, 500, R)
        np.testing.assert_array_equal(scoring.share_out(n, taker, partner, unit), oracle.share_out(n, taker, partner, unit))


#: docs/rules/french_tarot.md §13's worked vectors: id, players, contract (1 P, 2 G, 3 GS, 4 GC), the
#: attack's points, bouts, poignées, petit au bout (+1 attack, -1 defence), chelem (A, F, D or ""),
#: then S and the taker's score
VECTORS = [
    ("V1", 4, 2, 49, 2, 20, 1, "", 106, 318),
    ("V2", 4, 3, 45, 2, 0, -1, "", 76, 228),
    ("V3", 4, 1, 44, 1, 20, 1, "", -42, -126),
    ("V4", 4, 2, 52, 2, 20, 0, "", 92, 276),
    ("V5", 4, 2, 87, 2, 20, 1, "A", 582, 1746),
    ("V6", 4, 2, 45, 2, 0, 0, "", 58, 174),
    ("V7", 4, 1, 45, 1, 0, 0, "", -31, -93),
    ("V8", 4, 4, 88, 3, 40, 1, "A", 962, 2886),
    ("V9", 4, 3, 81, 3, 0, 1, "F", 120, 360),
    ("V10", 4, 4, 0, 0, 0, 0, "D", -686, -2058),
    ("V11", 3, 2, 40.5, 2, 0, 0, "", -52, -104),
    ("V12", 3, 2, 41.5, 2, 0, 0, "", 52, 104),
]


@pytest.mark.parametrize("vector", VECTORS, ids=[v[0] for v in VECTORS])
def test_the_oracle_scores_the_rules_worked_vectors(vector):
    """The second statement gives the rules text's own worked examples (§13), so that what the
    engine is compared with is itself checked against the text."""
    _, n, contract, points, bouts, poignees, pab, chelem, unit, taker = vector
    c, _ = oracle.chelem_points(chelem in "AF" and chelem != "", chelem == "A", chelem == "D")
    s, won = oracle.unit(contract, int(2 * points), bouts, pab, poignees, c)
    assert (s, won) == (unit, unit > 0)
    scores = oracle.shares(n, 0, -1, s)
    assert scores[0] == taker and scores[1:] == [-unit] * (n - 1)
