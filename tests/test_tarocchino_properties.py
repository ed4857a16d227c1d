"""Properties of random Tarocchino hands (rules/tarocchino.md, interface.md, docs/tarocchino.md).

- PettingZoo's ``api_test``, ``seed_test`` and ``render_test`` for every Tarocchino env id
  (Mattazza with 3, 4, 5 and 6 players), in deal and in match episodes.
- Thousands of random hands played through the rules layer (:class:`TarocchinoGame`, batches of
  rows, random legal actions, random rules options from ``config.OPTIONS``, random running
  totals so that claim windows open), checked with hypothesis:
  - at every step every card is in exactly one place (a hand, the dealer's unpicked last cards,
    the Pozzo / second deal / out of play, a discard, the table, a pile) with consistent owner
    rows, each seat holds what it was dealt minus what it discarded and played, and during the
    play each hand holds one card per trick left (§4, §5, §10, §11, §14);
  - each played card lies in the pile of its trick's winner, the Matto in its owner's (§4.3–§4.5);
  - at the end of a played hand the sides' card points, recounted independently from the piles
    (cappotto §4.6, the Pozzo §10.3), total 87 and 93 with the last trick where all 62 cards
    count (Ottocento, Quattro Scartate, Millone, Terziglio in halves), Σv(32 in play) − 16 (+6) in
    Centocinquanta / Quindici, Σv − 10n + 10 in Mattazza, whose piles are multiples of n (§3,
    §12, §14.4); Terziglio settlements sum to zero and follow the Poste (§10.6, U14, U18);
    Quindici rounds (§13); Mattazza's losers follow §14.5.
- No leaks: swapping cards hidden from a player (between other hands, the dealer's last cards,
  the Pozzo, the second deal, the cards out of play, another player's discard) leaves his seat
  view (:mod:`tarot_env.rules.seat_view`) and his observation unchanged; changing his own hand
  changes both; whether another player had a claim window (and said ``no_claim``) is not visible.
- The env: same seed and policy give identical trajectories; options survive ``reset(seed=...)``;
  observations are 0/1 int8 vectors of the documented size; the action mask is the legal actions,
  non-empty until the episode ends.
- Differential: the compiled step (``engine.step_rows``) and the plain-Python ``engine.step_row``
  (its ``py_func``) give identical state blocks after every action; ``encode_row`` and
  ``encode_row_reference`` agree.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, render_test, seed_test

import tarot_env
from tarot_env._jit import JIT_AVAILABLE, python_of
from tarot_env.cards.bolognese import BOLOGNESE_DECK, IS_CARTA_DA_5, MATTO, NUM_CARDS
from tarot_env.encoding import bolognese as enc_mod
from tarot_env.encoding.bolognese import TarocchinoEncoder, layout
from tarot_env.rules.bolognese import engine, scoring
from tarot_env.rules.bolognese.config import OPTIONS, TarocchinoConfig, option_names
from tarot_env.rules.bolognese.game import TarocchinoGame
from tarot_env.rules.bolognese.state import (
    A_CLAIM,
    A_NO_CLAIM,
    ACTIVE,
    CONTRACT,
    CURRENT,
    DEALER,
    DECLARED,
    DISCARD_STAGE,
    FIRST,
    HAND_OF,
    LAST_WINNER,
    MATTO_SEAT,
    MATTO_WINNER,
    N_ACTIVE,
    NUM_ACTIONS,
    O_CLAIMS,
    PH_CLAIM,
    PH_DECLARE,
    PH_DONE,
    PH_GIVE,
    PH_PLAY,
    PHASE,
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
    PRIMO,
    RESULT,
    RS_CLAIMED,
    RS_PLAYED,
    RS_THROWN_IN,
    RS_WRONG_CLAIM,
    SHOWN,
    SOLOIST,
    TOTAL,
    TRICK_NO,
    TRICK_OF,
    TRICK_SIZE,
    TRICKS,
    WINDOW,
)
from tarot_env.rules.seat_view import differences, seat_view

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
VALUE = BOLOGNESE_DECK.value.astype(np.int64)  # §3.1, checked against the spec below
W_FIRST_TURN = engine.W_FIRST_TURN
SU = scoring.SU

#: (game, num_players) of every env configuration, and the env ids
GAMES = [
    ("ottocento", 4),
    ("quattro_scartate", 4),
    ("terziglio", 3),
    ("millone", 2),
    ("centocinquanta", 2),
    ("quindici", 2),
    ("mattazza", 3),
    ("mattazza", 4),
    ("mattazza", 5),
    ("mattazza", 6),
]
GAME_IDS = [f"{g}-{n}" for g, n in GAMES]
#: documented observation sizes (docs/tarocchino.md, "Observations")
OBS_SIZE = {2: 760, 3: 1047, 4: 1334, 5: 1621, 6: 1908}


def env_kwargs(game: str, n: int) -> dict:
    return {"num_players": n} if game == "mattazza" else {}


def make_env(game: str, n: int, **options):
    return tarot_env.make(f"{game}_v0", **env_kwargs(game, n), **options)


# --------------------------------------------------------------------------- random options
_INT_VALUES = {
    ("target", "ottocento"): (800, 1000, 1500),
    ("target", "millone"): (1000,),
    ("target", "centocinquanta"): (150, 151, 200),
    ("target", "quindici"): (15, 20, 21),
    ("target", "mattazza"): (2, 3, 6),
    ("cappotto_bonus", None): (0, 40),
    ("match_hands", None): (1, 3),
}


def option_values(game: str, n: int, name: str) -> tuple:
    """The values of option ``name`` worth drawing (config.OPTIONS; int options from a short list)."""
    opt = OPTIONS[name]
    if name == "tie":
        return ("draw", "extra_hand") if game == "quattro_scartate" else ("play_on", "draw")
    if name == "way":
        return ("target", "first_two") if n in (3, 4) else ("target",)
    if isinstance(opt.allowed, type):
        return _INT_VALUES.get((name, game), _INT_VALUES.get((name, None)))
    return opt.allowed


def rule_options(game: str, n: int, episode: bool = False) -> st.SearchStrategy:
    """Random rules options of ``game`` (each option present or left at its default)."""
    names = [k for k in option_names(game) if episode or k not in ("episode", "match_reward")]
    return st.fixed_dictionaries({}, optional={k: st.sampled_from(option_values(game, n, k)) for k in names})


def test_card_values_are_the_spec_values():
    """§3.1: K, ANG, MON, BEG, MAT 5; Q 4; N 3; J 2; every other card 1; Σv = 118 (TV3)."""
    names = BOLOGNESE_DECK.names
    for c, name in enumerate(names):
        expected = 5 if name[0] == "K" or name in ("ANG", "MON", "BEG", "MAT") else {"Q": 4, "N": 3, "J": 2}.get(name[0], 1)
        if name.startswith("T"):  # T5..T16 are scartini
            expected = 1
        assert VALUE[c] == expected, name
    assert VALUE.sum() == 118


# --------------------------------------------------------------------------- PettingZoo's checks
EPISODES = ("deal", "match")


@pytest.mark.parametrize("episode", EPISODES)
@pytest.mark.parametrize(("game", "n"), GAMES, ids=GAME_IDS)
def test_pettingzoo_api_test(game, n, episode):
    """PettingZoo's api_test (interface.md: PettingZoo conventions). Its ``reset(options={"options": 1})``
    is answered with a warning (unknown reset options are ignored)."""
    with pytest.warns(UserWarning, match="'options'"):
        api_test(make_env(game, n, episode=episode), num_cycles=300)


@pytest.mark.parametrize("episode", EPISODES)
@pytest.mark.parametrize(("game", "n"), GAMES, ids=GAME_IDS)
def test_pettingzoo_seed_test(game, n, episode):
    """PettingZoo's seed_test: two envs reset with the same seed run identically."""
    seed_test(functools.partial(make_env, game, n, episode=episode), num_cycles=300)


@pytest.mark.parametrize("episode", EPISODES)
@pytest.mark.parametrize(("game", "n"), GAMES, ids=GAME_IDS)
def test_pettingzoo_render_test(game, n, episode, capsys):
    """PettingZoo's render_test for both modes: 'ansi' returns the table as a str, 'human' prints it."""
    env_fn = functools.partial(make_env, game, n, episode=episode)
    assert env_fn().metadata["render_modes"] == ["ansi", "human"]
    render_test(env_fn, custom_tests={"ansi": lambda text: isinstance(text, str) and f"{n} players" in text})


# --------------------------------------------------------------------------- the rules layer: random batches
def random_actions(s, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row; in a claim window ``claim`` 15% of the time
    (with ``wrong_claim="loses"`` every window opens, and most hands should still be played)."""
    legal = s.legal[rows]
    assert legal.any(axis=1).all(), "a hand that is not over has no legal action"
    u = rng.random(legal.shape)
    u[~legal] = -1.0
    actions = u.argmax(axis=1)
    window = legal[:, A_CLAIM]
    actions[window] = np.where(rng.random(int(window.sum())) < 0.15, A_CLAIM, A_NO_CLAIM)
    return actions


def random_totals(g: TarocchinoGame, rng: np.random.Generator, batch: int) -> np.ndarray | None:
    """Running totals near the target for about a third of the rows (claim windows open), else 0."""
    if not g.opts[O_CLAIMS]:
        return None
    n = g.num_players
    target = int(g.config.target)
    side = rng.integers(int(0.6 * target), target, size=(batch, 2))
    side[rng.random(batch) < 0.65] = 0
    return side[:, np.arange(n) % 2] if n == 4 else side[:, :n]


def play_batch(
    game: str, n: int, seed: int, batch: int, options: dict, on_step=None, max_steps: int = 500, totals: np.ndarray | None = None
):
    """Deal ``batch`` random hands (random dealers, random totals unless ``totals`` (batch, n)
    gives them) and play them to the end (of the match, with ``episode="match"``).

    ``on_step(g, s, rng)`` runs after the deal and after every step. Returns the game, the final
    state and, per row, the HandEnd of its hand (deal episodes) or the list of them (matches)."""
    g = TarocchinoGame(TarocchinoConfig.make(game, n, **options))
    rng = np.random.default_rng(seed)
    s = g.new_state(batch)
    rows = np.arange(batch)
    packs = np.argsort(rng.random((batch, NUM_CARDS)), axis=1)
    if totals is None:
        totals = random_totals(g, rng, batch)
    ends: dict[int, list] = {}
    for e in g.start_deals(s, rows, rng.integers(n, size=batch), packs, totals=totals):
        ends.setdefault(e.row, []).append(e)
    if on_step:
        on_step(g, s, rng)
    for _ in range(max_steps):
        active = np.flatnonzero(s.ints[:, PHASE] != PH_DONE)
        if not len(active):
            assert sorted(ends) == list(range(batch))
            if g.config.match:
                return g, s, ends
            assert all(len(v) == 1 for v in ends.values())
            return g, s, {r: v[0] for r, v in ends.items()}
        for e in g.step(s, random_actions(s, active, rng), active, rng=rng):
            ends.setdefault(e.row, []).append(e)
        if on_step:
            on_step(g, s, rng)
    raise AssertionError("hands did not end")


def dealt_counts(g: TarocchinoGame, s) -> np.ndarray:
    """(B, N) the cards each seat has received so far in this hand: its deal (the dealer's last 2
    included), Millone's second deal once dealt, a Terziglio soloist's Pozzo once taken; 0 for a
    seat out of a Mattazza match. Offsets count from the dealer's right among the seats still in."""
    B, n = s.seat_ints.shape[:2]
    out = np.zeros((B, n), dtype=np.int64)
    for r in range(B):
        if s.ints[r, PHASE] == PH_DONE:
            continue
        active = g.active_seats(s, r)
        k = len(active)
        dest = g.destinations(k)
        pos = active.index(int(s.ints[r, DEALER]))
        for i, seat in enumerate(active):
            offset = (i - pos - 1) % k
            out[r, seat] = dest.hand_sizes[offset]
            if g.game == "millone" and s.ints[r, DISCARD_STAGE] >= 2:
                out[r, seat] += dest.second_sizes[offset]
        if g.game == "terziglio" and s.ints[r, CONTRACT] == SU:
            out[r, int(s.ints[r, SOLOIST])] += 8
    return out


def assert_cards_in_one_place(g: TarocchinoGame, s) -> None:
    """Every card is in exactly one place, with the owner rows that place implies; the counts per
    seat and per place add up (§4, §5.2–5.3, §10.3, §11, §12, §14.2)."""
    c = s.cards
    place, hand_of, pile_of, played_by, trick_of = c[:, PLACE], c[:, HAND_OF], c[:, PILE_OF], c[:, PLAYED_BY], c[:, TRICK_OF]
    ints = s.ints
    B, n = s.seat_ints.shape[:2]
    phase, dealer = ints[:, PHASE], ints[:, DEALER]
    trick_no = ints[:, TRICK_NO][:, None]
    assert ((place >= PL_HAND) & (place <= PL_PILE)).all()
    is_ = {p: place == p for p in range(8)}
    no_hand, no_pile, not_played = hand_of == -1, pile_of == -1, played_by == -1
    # a hand: an owner, nothing else
    assert (~is_[PL_HAND] | ((hand_of >= 0) & (hand_of < n) & no_pile & not_played)).all(), "a card in a hand with a pile or a player"
    # the dealer's unpicked last 2 cards: his, 0 or 2 of them, only before his pickup
    assert (~is_[PL_EXTRA] | ((hand_of == dealer[:, None]) & no_pile & not_played)).all()
    extra = is_[PL_EXTRA].sum(axis=1)
    before_pickup = ((phase == PH_CLAIM) & (ints[:, WINDOW] == engine.W_PICKUP)) | (
        (phase == PH_DONE) & np.isin(ints[:, RESULT], (RS_CLAIMED, RS_WRONG_CLAIM))
    )
    assert (np.where(before_pickup, np.isin(extra, (0, 2)), extra == 0)).all(), "the dealer's last 2 cards not picked up"
    # the rest: nobody's; a "di mio" Pozzo joins the last trick's winner's pile once the hand is
    # played out, before the Matto exchange (§10.3, U25)
    rest = is_[PL_SECOND] | is_[PL_POZZO] | is_[PL_OUT]
    assert (~rest | (no_hand & not_played)).all(), "a card of the rest with an owner"
    played_out = (phase == PH_GIVE) | ((phase == PH_DONE) & (ints[:, RESULT] == RS_PLAYED))
    pozzo_taken = is_[PL_POZZO] & (g.game == "terziglio") & played_out[:, None]
    assert (~rest | no_pile | pozzo_taken).all(), "a card of the rest in a pile"
    assert (~pozzo_taken | (pile_of >= 0)).all(), "the Pozzo of a played hand in no pile"
    # discards: the discarder's pile, never played, never a Carta da 5 (§5.3)
    assert (~is_[PL_DISCARD] | (no_hand & (pile_of >= 0) & not_played)).all()
    assert not (is_[PL_DISCARD] & IS_CARTA_DA_5[None, :]).any(), "a Carta da 5 was discarded"
    # the table: the trick in progress, one card per player
    assert (~is_[PL_TABLE] | (no_hand & no_pile & (played_by >= 0) & (trick_of == trick_no))).all()
    assert (is_[PL_TABLE].sum(axis=1) == ints[:, TRICK_SIZE]).all()
    for r in range(B):
        on_table = played_by[r][is_[PL_TABLE][r]]
        assert len(set(on_table.tolist())) == len(on_table), "a player played twice to a trick"
    # piles: cards of completed tricks, N_ACTIVE per trick
    assert (~is_[PL_PILE] | (no_hand & (pile_of >= 0) & (played_by >= 0) & (trick_of >= 0) & (trick_of < trick_no))).all()
    assert (is_[PL_PILE].sum(axis=1) == ints[:, N_ACTIVE] * ints[:, TRICK_NO]).all()
    # the rest's sizes (§10.2, §11.5, §12.1, §14.2)
    game = g.game
    if game == "terziglio":
        taken = ints[:, CONTRACT] == SU
        assert (is_[PL_POZZO].sum(axis=1) == np.where(taken, 0, 8)).all()
    elif game == "millone":
        assert (is_[PL_SECOND].sum(axis=1) == np.where(ints[:, DISCARD_STAGE] >= 2, 0, 20)).all()
    elif game in ("centocinquanta", "quindici"):
        assert (is_[PL_OUT].sum(axis=1) == NUM_CARDS - 32).all()
    elif game == "mattazza":
        assert (is_[PL_OUT].sum(axis=1) == NUM_CARDS - 10 * ints[:, N_ACTIVE]).all()
    # per seat, until the hand is scored: held + discarded + played + still to come = dealt
    live = phase != PH_DONE
    seats = np.arange(n)[None, :, None]
    held = ((is_[PL_HAND] | is_[PL_EXTRA])[:, None, :] & (hand_of[:, None, :] == seats)).sum(axis=2)
    discarded = (is_[PL_DISCARD][:, None, :] & (pile_of[:, None, :] == seats)).sum(axis=2)
    played = (played_by[:, None, :] == seats).sum(axis=2)
    dealt = dealt_counts(g, s)
    not_given = live & (phase != PH_GIVE)
    np.testing.assert_array_equal((held + discarded + played)[not_given], dealt[not_given])
    # during the play: one card per trick left (minus the card already on the table)
    playing = (phase == PH_PLAY) | (phase == PH_DECLARE) | ((phase == PH_CLAIM) & (ints[:, WINDOW] == W_FIRST_TURN))
    on_table = (is_[PL_TABLE][:, None, :] & (played_by[:, None, :] == seats)).sum(axis=2)
    in_hand = (is_[PL_HAND][:, None, :] & (hand_of[:, None, :] == seats)).sum(axis=2)
    left = np.where(s.seat_ints[:, :, ACTIVE] == 1, g.num_tricks - ints[:, TRICK_NO][:, None] - on_table, 0)
    np.testing.assert_array_equal(in_hand[playing], left[playing])
    # a played hand is over: no card in any hand
    assert not (is_[PL_HAND] | is_[PL_TABLE])[played_out].any()


def assert_piles_follow_the_tricks(g: TarocchinoGame, s) -> None:
    """§4.3–4.5: each card of a completed trick is in the pile of that trick's winner, the Matto in
    its owner's; after the Matto exchange, one card of the giver's side (or the Matto itself)
    is in the winner's pile instead."""
    c = s.cards
    for r in range(s.ints.shape[0]):
        pile = c[r, PLACE] == PL_PILE
        winners = s.hist[r][np.maximum(c[r, TRICK_OF], 0)]
        wrong = pile & (c[r, PILE_OF] != winners)
        wrong[MATTO] = False
        matto_seat = int(s.ints[r, MATTO_SEAT])
        if pile[MATTO]:
            owner, winner = int(c[r, PLAYED_BY, MATTO]), int(s.ints[r, MATTO_WINNER])
            assert int(c[r, PILE_OF, MATTO]) in (owner, winner)
            if int(c[r, PILE_OF, MATTO]) != owner:
                assert matto_seat == -1 and int(s.ints[r, PHASE]) == PH_DONE
        if matto_seat == -2:  # the exchange was made: at most that one card moved (a discard may be given)
            assert np.count_nonzero(wrong) <= 1
        else:
            assert not wrong.any(), [BOLOGNESE_DECK.names[x] for x in np.flatnonzero(wrong)]


@pytest.mark.parametrize(("game", "n"), GAMES, ids=GAME_IDS)
@settings(max_examples=6, deadline=None)
@given(seed=SEEDS, data=st.data())
def test_every_card_is_in_exactly_one_place_at_every_step(game, n, seed, data):
    """48 random hands per example under random rules options, checked after the deal and after
    every action: places, owners, counts per seat, one card per trick left; at the end each card
    in its trick winner's pile."""
    options = data.draw(rule_options(game, n))

    def check(g, s, rng):
        assert_cards_in_one_place(g, s)
        assert_piles_follow_the_tricks(g, s)

    play_batch(game, n, seed, 48, options, on_step=check)


@pytest.mark.parametrize(("game", "n"), GAMES, ids=GAME_IDS)
@settings(max_examples=2, deadline=None)
@given(seed=SEEDS, data=st.data())
def test_every_card_is_in_exactly_one_place_in_matches(game, n, seed, data):
    """The same checks through whole matches (``episode="match"``): each new hand is dealt cleanly
    from the cards of the last (§5.5 the next dealer, §10.7, §14.6: players out of a Mattazza
    match get no cards), until the match ends; Terziglio settlements add up to zero."""
    options = data.draw(rule_options(game, n)) | {"episode": "match"}
    if game == "mattazza":
        options["target"] = data.draw(st.sampled_from((2, 3)))  # matches of a reasonable length

    def check(g, s, rng):
        assert_cards_in_one_place(g, s)
        assert_piles_follow_the_tricks(g, s)

    _, s, ends = play_batch(game, n, seed, 4, options, on_step=check, max_steps=20_000)
    for r, hand_ends in ends.items():
        assert hand_ends[-1].match_over or int(s.ints[r, RESULT]) in (RS_CLAIMED, RS_WRONG_CLAIM)
        if game == "terziglio":
            assert int(s.seat_ints[r, :, TOTAL].sum()) == 0
            assert [int(x) for x in s.seat_ints[r, :, TOTAL]] == list(np.sum([e.scores for e in hand_ends], axis=0))


# --------------------------------------------------------------------------- the end of a hand
def recount_cards(g: TarocchinoGame, s, r: int, info: dict) -> np.ndarray:
    """Each side's (Mattazza: player's) card points recounted from the final piles: §3.2 groups
    (pairs Σv − N/2; Mattazza Σv − N + N/n), the Pozzo of a "di mio" hand in the last trick's
    winner's pile (§10.3, U25: the Matto exchange may have given one of its cards), a capotted
    side's pile to the other side (§4.6)."""
    c = s.cards[r]
    n = g.num_players
    if g.game == "mattazza":
        out = np.zeros(n)
        for p in range(n):
            mine = c[PILE_OF] == p
            N = int(mine.sum())
            out[p] = VALUE[mine].sum() - N + N / n
        return out
    sides = g.sides(s, r)
    owner = np.where(c[PILE_OF] >= 0, sides[np.maximum(c[PILE_OF], 0)], -1)
    if g.game == "terziglio":  # U25: the Pozzo (in nobody's pile before) is in a pile now
        assert (owner[c[PLACE] == PL_POZZO] >= 0).all()
    tricks = np.zeros(2, dtype=int)
    for p in range(n):
        tricks[sides[p]] += int(s.seat_ints[r, p, TRICKS])
    for side in (0, 1):
        if tricks[side] == 0:
            owner[owner == side] = 1 - side
    out = np.zeros(2)
    for side in (0, 1):
        mine = owner == side
        out[side] = VALUE[mine].sum() - mine.sum() / 2
    return out


def poste(p: int, rounding: str) -> int:
    """§10.6 and U14: floor((p − 5)/10) from 15 points (0 below), or floor((p + 5)/10)."""
    if rounding == "nearest":
        return (p + 5) // 10
    return 0 if p < 15 else (p - 5) // 10


def check_hand_end(g: TarocchinoGame, s, end) -> None:
    """The end-of-hand accounting of one played hand (see the module docstring)."""
    r, info, scores = end.row, end.info, np.array(end.scores)
    o = g.config.options
    n = g.num_players
    pts = info["points"]
    cards, last = np.array(pts["cards"], dtype=float), np.array(pts["last_trick"], dtype=float)
    total = np.array(pts["total"], dtype=float)
    parts = sum(np.array(pts[k], dtype=float) for k in ("cards", "last_trick", "combinations", "declarations", "bonus"))
    np.testing.assert_allclose(total, parts)
    lw = int(s.ints[r, LAST_WINNER])
    assert lw == int(s.hist[r, g.num_tricks - 1])
    in_play = s.cards[r, PLACE] != PL_OUT
    if g.game == "mattazza":
        # §14.4: piles are multiples of n after the Matto exchange; Σv − N + N/n per player
        pile = s.cards[r, PILE_OF]
        sizes = np.bincount(pile[pile >= 0], minlength=n)
        assert (sizes % n == 0).all(), sizes
        assert sizes.sum() == 10 * n and in_play.sum() == 10 * n
        assert cards.sum() == VALUE[in_play].sum() - 10 * n + 10
        expected_last = np.zeros(n)
        expected_last[lw] = 6 if o["full_count"] else 0
        np.testing.assert_array_equal(last, expected_last)
        np.testing.assert_allclose(cards, recount_cards(g, s, r, info))
        np.testing.assert_array_equal(scores, total)
        tricks = s.seat_ints[r, :, TRICKS]
        if (tricks > 0).all():  # §14.5: the highest score loses (ties: all of them)
            losers = np.flatnonzero(total == total.max())
        else:
            losers = np.flatnonzero(tricks == 0)
        assert info["losers"] == losers.tolist()
        return
    sides = g.sides(s, r)
    expected_last = np.zeros(2)
    expected_last[sides[lw]] = 6
    np.testing.assert_array_equal(last, expected_last)
    if g.game in ("centocinquanta", "quindici"):
        assert in_play.sum() == 32
        assert cards.sum() == VALUE[in_play].sum() - 16  # §12.4
        assert cards.sum() + last.sum() == VALUE[in_play].sum() - 16 + 6
    elif g.game == "terziglio" and o["odd_pile"] == "odd_alone":
        assert cards.sum() in (87, 88)  # U18's alternative: an odd card alone in each odd pile
    else:
        assert cards.sum() == 87 and cards.sum() + last.sum() == 93  # §3.2, TV3
    if not (g.game == "terziglio" and o["odd_pile"] == "odd_alone"):
        np.testing.assert_allclose(cards, recount_cards(g, s, r, info))
    if g.game == "terziglio":
        # §10.6: the higher side wins, the soloist loses a tie; the winner's points rounded down (U18)
        soloist = int(s.ints[r, SOLOIST])
        won = bool(total[0] > total[1])
        assert info["soloist_won"] is won
        assert info["winner_points"] == int(np.floor(total[0] if won else total[1]))
        assert info["poste"] == poste(info["winner_points"], o["poste_rounding"])
        k = 2 if info["contract"] == "su" else 4
        expected = np.full(n, -(k // 2) * info["poste"] * (1 if won else -1))
        expected[soloist] = k * info["poste"] * (1 if won else -1)
        np.testing.assert_array_equal(scores, expected)
        assert scores.sum() == 0
        return
    side_scores = total.astype(int)
    if g.game == "quindici":
        np.testing.assert_array_equal(info["raw"], side_scores)
        side_scores = (side_scores + 5) // 10  # §13: q(p) = floor((p + 5)/10)
    np.testing.assert_array_equal(scores, side_scores[sides])


@pytest.mark.parametrize(("game", "n"), GAMES, ids=GAME_IDS)
@settings(max_examples=8, deadline=None)
@given(seed=SEEDS, data=st.data())
def test_end_of_hand_accounting(game, n, seed, data):
    """64 random hands per example: card points total 87 / 93 (all 62 cards), Σv − 16 (32 cards in
    play), Σv − 10n + 10 (Mattazza, piles multiples of n); the recount from the piles; the last
    trick; Terziglio's Poste and zero-sum settlement; Quindici's rounding; Mattazza's losers;
    claims and thrown-in hands."""
    options = data.draw(rule_options(game, n))
    g, s, ends = play_batch(game, n, seed, 64, options)
    results = {e.result for e in ends.values()}
    for r, end in ends.items():
        result = int(s.ints[r, RESULT])
        if result == RS_PLAYED:
            assert end.result == "played"
            check_hand_end(g, s, end)
        elif result == RS_THROWN_IN:  # §10.3, U12: all passed
            assert g.game == "terziglio" and end.scores == [0] * n
            assert (s.cards[r, PLACE] == PL_HAND).sum() == 54 and (s.cards[r, PLACE] == PL_POZZO).sum() == 8
        elif result == RS_CLAIMED:  # §8.4: the claimed value reached the target
            claimer = end.info["claimer"]
            assert end.info["claim_value"] >= g.config.target
            used = end.info["claim_value"] - int(s.seat_ints[r, claimer, TOTAL])
            assert used > 0  # U28: a claim is made with a declaration worth more than 0
            side = g.side_of(s, r, claimer)
            # U27: every declaration made so far counts for its side; the claimer's is what his
            # claim used (in Ottocento's step 4 the Primo's, already declared, is part of it)
            sides = g.sides(s, r)
            declared = s.seat_ints[r, :, DECLARED]
            primo = int(s.ints[r, PRIMO])
            in_used = int(declared[primo]) if n == 4 and claimer == (int(s.ints[r, DEALER]) + 3) % 4 and primo >= 0 else 0
            if g.game == "quindici":
                credit = [(int(declared[sides == k].sum()) + 5) // 10 for k in (0, 1)]
            else:
                credit = [int(declared[sides == k].sum()) for k in (0, 1)]
            own = used - in_used
            if g.game == "millone" and int(s.ints[r, WINDOW]) == W_FIRST_TURN:
                own = millone_declaration(g, s, r, claimer)[0]  # U29: the whole of the declaration he claimed with
            credit[side] += own
            assert end.scores == [credit[sides[p]] for p in range(n)]
        else:
            assert result == RS_WRONG_CLAIM and g.config.wrong_claim == "loses"
            assert end.info["claim_value"] < g.config.target
    assert "played" in results


def millone_declaration(g: TarocchinoGame, s, r: int, p: int) -> tuple[int, int]:
    """The declaration Millone's ``p`` makes from his hand at row ``r`` (§7), valued from his
    cards with the rules options (:meth:`TarocchinoGame.declaration_values`): its whole value and
    its first-deal cards' part, the one a claim may use (§11.6)."""
    c = s.cards[r]
    hand = (c[PLACE] == PL_HAND) & (c[HAND_OF] == p)
    whole, first_deal = g.declaration_values(np.stack([hand, hand & (c[FIRST] == 1)]))
    return int(whole), int(first_deal)


def test_millone_first_turn_claims_credit_the_whole_declaration():
    """U29 with U27 on 400 random Millone hands from running totals of 900-999: a claim at a
    player's first turn reaches the target with the first-deal part of his declaration, and the
    hand's score credits him the whole of it; the other player has what he declared. Of these
    hands 20 end on such a claim (the random actions claim 15% of the time), 19 with second-deal
    combinations, the hands where crediting the first-deal part only would be wrong."""
    rng = np.random.default_rng(29)
    g, s, ends = play_batch("millone", 2, 29, 400, {}, totals=rng.integers(900, 1000, size=(400, 2)))
    short = 0
    for r, end in ends.items():
        if end.result != "claimed" or int(s.ints[r, WINDOW]) != W_FIRST_TURN:
            continue
        claimer = end.info["claimer"]
        whole, first_deal = millone_declaration(g, s, r, claimer)
        assert end.info["claim_value"] == end.info["totals"][claimer] + first_deal >= 1000
        other = 1 - claimer
        assert end.scores[claimer] == whole and end.scores[other] == int(s.seat_ints[r, other, DECLARED])
        short += whole > first_deal
    assert short > 0  # hands where the whole declaration and the claim's part differ were checked


# --------------------------------------------------------------------------- no leaks
def hidden_cards(s, r: int, v: int) -> np.ndarray:
    """Cards whose place seat ``v`` does not know: other players' hands (not shown in a
    declaration), the dealer's last 2 before he picks them up (hidden from him too), the Pozzo,
    Millone's second deal, the cards out of play, other players' discards."""
    c = s.cards[r]
    place = c[PLACE]
    hidden = (place == PL_HAND) & (c[HAND_OF] != v) & (c[SHOWN] == 0)
    hidden |= place == PL_EXTRA
    hidden |= (place == PL_POZZO) | (place == PL_SECOND) | (place == PL_OUT)
    hidden |= (place == PL_DISCARD) & (c[PILE_OF] != v)
    return np.flatnonzero(hidden)


def swap_cards(s, r: int, x: int, y: int) -> None:
    """Exchange two cards everywhere in the state (their whole columns: place, owners, flags)."""
    s.cards[r, :, [x, y]] = s.cards[r, :, [y, x]]


def place_key(s, r: int, x: int) -> tuple:
    """Where card ``x`` is, as the oracle tells places apart (a dealer's unpicked last cards are
    part of his hand there)."""
    c = s.cards[r]
    place = int(c[PLACE, x])
    return (PL_HAND if place == PL_EXTRA else place, int(c[HAND_OF, x]), int(c[PILE_OF, x]))


class LeakChecker:
    """At random steps, for random live rows and viewers: a swap of two hidden cards in different
    places leaves the viewer's seat view (:mod:`tarot_env.rules.seat_view`, the one statement of
    what he may see) unchanged, and so his observation (the encoder reads nothing the seat view
    does not show), while the oracle sees it; a swap of a card of his own hand with a hidden card
    changes both."""

    def __init__(self) -> None:
        self.checked = self.controls = 0
        self.phases: set[int] = set()
        self.encoder: TarocchinoEncoder | None = None

    def __call__(self, g: TarocchinoGame, s, rng: np.random.Generator) -> None:
        if rng.random() < 0.5:
            return
        n = g.num_players
        if self.encoder is None:
            self.encoder = TarocchinoEncoder(n)
        enc = self.encoder
        rows = np.flatnonzero(s.ints[:, PHASE] != PH_DONE)
        if not len(rows):
            return
        viewers = rng.integers(n, size=len(rows))
        hidden, mine = s.copy(), s.copy()
        swapped = np.zeros(len(rows), dtype=bool)
        controlled = np.zeros(len(rows), dtype=bool)
        for i, (r, v) in enumerate(zip(rows, viewers)):
            cand = hidden_cards(s, r, v)
            for _ in range(20):
                if len(cand) < 2:
                    break
                x, y = rng.choice(cand, size=2, replace=False)
                if place_key(s, r, x) == place_key(s, r, y):
                    continue
                # keep the state possible: no Carta da 5 into a discard (§5.3)
                if (s.cards[r, PLACE, x] == PL_DISCARD and IS_CARTA_DA_5[y]) or (s.cards[r, PLACE, y] == PL_DISCARD and IS_CARTA_DA_5[x]):
                    continue
                swap_cards(hidden, r, x, y)
                swapped[i] = True
                break
            own = np.flatnonzero((s.cards[r, PLACE] == PL_HAND) & (s.cards[r, HAND_OF] == v) & (s.cards[r, SHOWN] == 0))
            if len(own) and len(cand):
                swap_cards(mine, r, int(rng.choice(own)), int(rng.choice(cand)))
                controlled[i] = True
        for i, (r, v) in enumerate(zip(rows, viewers)):  # the seat view holds no card hidden from him
            view = seat_view(g, s, r, v)
            diff = differences(view, seat_view(g, hidden, r, v))
            assert not diff, f"seat {v}'s seat view shows hidden cards move (phase {int(s.ints[r, PHASE])}): {diff}"
            if controlled[i]:
                assert differences(view, seat_view(g, mine, r, v)), f"seat {v}'s own hand changed, his seat view did not"
        before = enc.encode(s, rows, viewers)
        after = enc.encode(hidden, rows, viewers)
        for i in np.flatnonzero(~(before == after).all(axis=1)):  # same seat view: same observation
            diff = [f.name for f in enc.fields if (before[i] != after[i])[f.offset : f.offset + f.length].any()]
            raise AssertionError(f"seat {viewers[i]} sees hidden cards move (phase {int(s.ints[rows[i], PHASE])}): fields {diff}")
        oracle_before = enc.encode_oracle(s, rows, viewers)
        oracle_after = enc.encode_oracle(hidden, rows, viewers)
        assert (oracle_before != oracle_after).any(axis=1)[swapped].all(), "a swap that changed nothing"
        changed = ~(before == enc.encode(mine, rows, viewers)).all(axis=1)
        np.testing.assert_array_equal(changed, controlled)
        self.checked += int(swapped.sum())
        self.controls += int(controlled.sum())
        self.phases |= {int(p) for p in s.ints[rows[swapped], PHASE]}


@pytest.mark.parametrize(("game", "n"), GAMES, ids=GAME_IDS)
@settings(max_examples=4, deadline=None)
@given(seed=SEEDS, data=st.data())
def test_observation_does_not_leak_hidden_cards(game, n, seed, data):
    """Swapping two cards hidden from a player, consistently in the state (between other players'
    hands, the dealer's unpicked cards, the Pozzo, the second deal, the cards out of play, another
    player's discard), leaves his observation unchanged; a change in his own hand shows."""
    options = data.draw(rule_options(game, n))
    checker = LeakChecker()
    play_batch(game, n, seed, 8, options, on_step=checker)
    assert checker.checked > 20 and checker.controls > 20
    assert PH_PLAY in checker.phases


def test_leak_checks_reach_every_hidden_place():
    """The leak check above moves cards in every phase with a secret: the auction and the Pozzo,
    the dealer's pickup window, the discards, Millone's second deal, the play."""
    phases: set[int] = set()
    for game, n, seed in (("terziglio", 3, 1), ("ottocento", 4, 2), ("millone", 2, 3), ("quindici", 2, 4)):
        checker = LeakChecker()
        play_batch(game, n, seed, 24, {}, on_step=checker)
        phases |= checker.phases
    assert {engine.PH_AUCTION, engine.PH_DISCARD, PH_DECLARE, PH_PLAY} <= phases


def test_another_players_claim_window_is_not_visible():
    """§8.4 and docs ("others cannot tell that he could have claimed"): the Primo di Mano with
    TV9's hand (declaration 80) at a running total of 730 has a claim window, which he declines;
    with ANG and MAT swapped into the dealer's hand (declaration 37) he has none. Once he has played
    the same card, the observations of the two players whose hands are the same in both (seats 1
    and 2) are identical."""
    primo = "KS KC KB QS NS JS AS MAT ANG MON SOL T16 6C 7D 8B"
    dealer = "KD QD ND JD AD 6D 8D 9D 10D T9 T8 T7 M1 M2 M3 M4 BEG"
    others = ["10S 9S 8S 7S 6S QB NB JB 10B 9B 7B 6B AB T5 T6", "QC NC JC AC 7C 8C 9C 10C LUN T15 T14 T13 T12 T11 T10"]
    swapped_primo = primo.replace("MAT", "T9").replace("ANG", "T8")
    swapped_dealer = dealer.replace("T9", "MAT").replace("T8", "ANG")
    totals = [730, 700, 730, 700]
    runs = []
    for p0, p3, script in (
        (primo, dealer, ["discard 8D", "discard 9D", "no_claim", "no_declare", "play 8B"]),
        (swapped_primo, swapped_dealer, ["discard 8D", "discard 9D", "no_declare", "play 8B"]),
    ):
        env = tarot_env.make("ottocento_v0")
        env.reset(
            options={
                "deal": {"dealer": 3, "hands": [p0.split(), others[0].split(), others[1].split(), p3.split()], "rest": []},
                "totals": totals,
            }
        )
        raw = env.unwrapped
        for a in script:
            assert a in [raw.action_to_string(x) for x in raw.legal_actions()], (a, script)
            env.step(a)
        runs.append({agent: raw.observe(agent)["observation"].copy() for agent in ("player_1", "player_2")})
    for agent in ("player_1", "player_2"):
        diff = [f.name for f in layout(4) if (runs[0][agent] != runs[1][agent])[f.offset : f.offset + f.length].any()]
        assert not diff, f"{agent} can tell: {diff}"


# --------------------------------------------------------------------------- the env
def run_episode(env, seed: int, policy_seed: int, max_steps: int = 5000):
    """One episode through the AEC loop with a seeded random policy; returns the trajectory."""
    env.reset(seed=seed)
    raw = env.unwrapped
    rng = np.random.default_rng(policy_seed)
    trajectory = []
    n_obs = OBS_SIZE[raw.num_players]
    for steps, agent in enumerate(env.agent_iter()):
        assert steps < max_steps, "the episode did not end"
        obs, reward, terminated, truncated, _ = env.last()
        assert obs["observation"].dtype == np.int8 and obs["observation"].shape == (n_obs,)
        assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (NUM_ACTIONS,)
        assert set(np.unique(obs["observation"])) <= {0, 1}
        if terminated or truncated:
            assert not obs["action_mask"].any()
            env.step(None)
            trajectory.append((agent, reward, None))
            continue
        legal = raw.legal_actions()
        assert legal, "no legal action before the end"
        np.testing.assert_array_equal(np.flatnonzero(obs["action_mask"]), legal)
        for other in env.possible_agents:
            if other != agent:
                assert not raw.observe(other)["action_mask"].any(), "another agent's mask is set"
        action = int(rng.choice(legal))
        trajectory.append((agent, reward, obs["observation"].tobytes(), action))
        env.step(action)
    return trajectory


@pytest.mark.parametrize("episode", EPISODES)
@pytest.mark.parametrize(("game", "n"), GAMES, ids=GAME_IDS)
def test_seed_and_policy_give_identical_trajectories(game, n, episode):
    """interface.md §4: the same seed deals the same cards; with the same seeded policy two envs
    give the same observations, masks, rewards, infos and records. Observations are 0/1 int8
    vectors of the documented size; the mask is the legal actions and is non-empty until the end."""
    a, b = make_env(game, n, episode=episode), make_env(game, n, episode=episode)
    assert a.observation_space("player_0")["observation"].shape == (OBS_SIZE[n],)
    assert sum(f.length for f in layout(n)) == OBS_SIZE[n]
    ta = run_episode(a, seed=11, policy_seed=5)
    tb = run_episode(b, seed=11, policy_seed=5)
    assert ta == tb
    assert a.unwrapped.infos == b.unwrapped.infos
    assert a.unwrapped.record() == b.unwrapped.record()
    record = json.loads(json.dumps(a.unwrapped.record()))
    expected = a.unwrapped.totals() if episode == "match" else [int(x) for x in a.unwrapped.game_state.scores[0]]
    assert tarot_env.replay(record) == expected
    tc = run_episode(a, seed=12, policy_seed=5)
    assert tc != ta  # another seed, another deal


@pytest.mark.parametrize(("game", "n"), GAMES, ids=GAME_IDS)
@settings(max_examples=4, deadline=None)
@given(data=st.data(), seed=SEEDS)
def test_options_survive_reset_with_a_seed(game, n, data, seed):
    """interface.md §1: configuration survives ``reset(seed=...)``: the options stay, the record
    carries them, and the record replays with them."""
    options = data.draw(rule_options(game, n, episode=False))
    env = make_env(game, n, **options)
    raw = env.unwrapped
    expected = dict(raw.config.options)
    for k, v in options.items():
        assert expected[k] == v
    rng = np.random.default_rng(seed)
    for s in (seed, seed + 1):
        env.reset(seed=s)
        assert raw.config.options == expected
        while not raw.game_over:
            env.step(int(rng.choice(raw.legal_actions())))
        assert raw.config.options == expected
        record = json.loads(json.dumps(raw.record()))
        assert TarocchinoConfig.make(game, n, **{k: v for k, v in record["config"].items() if k != "num_players"}).options == expected
        assert tarot_env.replay(record) == [int(x) for x in raw.game_state.scores[0]]


# --------------------------------------------------------------------------- compiled vs plain Python
@pytest.mark.parametrize(("game", "n"), GAMES, ids=GAME_IDS)
@settings(max_examples=3, deadline=None)
@given(seed=SEEDS, data=st.data())
def test_compiled_step_matches_python(game, n, seed, data):
    """The compiled ``engine.step_rows`` and the plain-Python ``engine.step_row`` (its
    ``py_func``) give identical state blocks after every action from the same deals;
    ``encode_row`` and ``encode_row_reference`` run as Python give identical observations for
    every seat."""
    step_row_py, encode_row_py = python_of(engine.step_row), python_of(enc_mod.encode_row_reference)
    if JIT_AVAILABLE:
        assert engine.step_row is not step_row_py and enc_mod.encode_row is not encode_row_py
    options = data.draw(rule_options(game, n))
    g = TarocchinoGame(TarocchinoConfig.make(game, n, **options))
    rng = np.random.default_rng(seed)
    batch = 12
    rows = np.arange(batch)
    packs = np.argsort(rng.random((batch, NUM_CARDS)), axis=1)
    dealers = rng.integers(n, size=batch)
    totals = random_totals(g, rng, batch)
    fast, slow = g.new_state(batch), g.new_state(batch)
    g.start_deals(fast, rows, dealers, packs, totals=totals)
    g.start_deals(slow, rows, dealers, packs, totals=totals)
    enc = TarocchinoEncoder(n)
    out_fast = np.zeros(enc.size, dtype=np.int8)
    out_slow = np.zeros(enc.size, dtype=np.int8)
    for _ in range(500):
        for x, y in zip(fast.blocks.values(), slow.blocks.values()):
            np.testing.assert_array_equal(x, y)
        for r in rows:  # one random viewer per row and step
            v = int(rng.integers(n))
            enc_mod.encode_row(fast.ints, fast.seat_ints, fast.cards, int(r), v, out_fast, enc.offsets)
            encode_row_py(fast.ints, fast.seat_ints, fast.cards, int(r), v, out_slow, enc.offsets)
            np.testing.assert_array_equal(out_fast, out_slow)
        active = np.flatnonzero(fast.ints[:, PHASE] != PH_DONE)
        if not len(active):
            return
        actions = random_actions(fast, active, rng)
        g.step(fast, actions, active)
        for r, a in zip(active, actions):
            step_row_py(*slow.blocks.values(), int(r), int(a), g.opts)
        g._settle(slow, active, None)
    raise AssertionError("hands did not end")


#: run in this process (numba) and in a subprocess with TAROT_ENV_JIT=0 (the plain-Python reference)
TRACE_CODE = """
import json, sys
import numpy as np
import tarot_env

def trace(env_id, kwargs, seed):
    env = tarot_env.make(env_id, oracle=True, **kwargs)
    env.reset(seed=seed)
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    views = []
    while not raw.game_over:
        for agent in env.possible_agents:
            o = raw.observe(agent)
            views.append(np.concatenate([o["observation"], o["oracle"], o["action_mask"]]).tolist())
        env.step(int(rng.choice(raw.legal_actions())))
    return {"views": views, "record": raw.record()}

CASES = [("ottocento_v0", {}, 3), ("terziglio_v0", {}, 4), ("millone_v0", {}, 5), ("mattazza_v0", {"num_players": 6}, 6)]
if __name__ == "__main__":
    json.dump([trace(*case) for case in CASES], open(sys.argv[1], "w"))
"""


def test_plain_python_fallback_matches_compiled(tmp_path):
    """_jit.py: without numba (``TAROT_ENV_JIT=0``) the plain-Python kernels are the reference and
    must give the same game: the same observations, oracles and masks at every step of seeded
    random hands (Ottocento, Terziglio, Millone, Mattazza with 6), and the same records."""
    out = tmp_path / "plain.json"
    env = dict(os.environ, TAROT_ENV_JIT="0")
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-c", TRACE_CODE, str(out)], env=env, cwd=root, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    plain = json.loads(out.read_text())
    namespace: dict = {}
    exec(TRACE_CODE, namespace)
    compiled = [namespace["trace"](*case) for case in namespace["CASES"]]
    for case, a, b in zip(namespace["CASES"], compiled, plain):
        assert a["record"] == b["record"], case
        assert len(a["views"]) == len(b["views"]), case
        for k, (x, y) in enumerate(zip(a["views"], b["views"])):
            assert x == y, f"{case}: view {k} differs"


def test_current_player_is_the_agent_selection():
    """The agent to act is the state's CURRENT seat throughout a hand (AEC protocol)."""
    env = tarot_env.make("terziglio_v0")
    env.reset(seed=3)
    raw = env.unwrapped
    rng = np.random.default_rng(0)
    while not raw.game_over:
        assert env.agent_selection == f"player_{int(raw.game_state.ints[0, CURRENT])}"
        env.step(int(rng.choice(raw.legal_actions())))
