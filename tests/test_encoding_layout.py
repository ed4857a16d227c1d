"""The observation encoders read every field by its name, so that the layout can change safely.

The row functions take the fields' offsets as one int64 array and read a field's offset as
``off[F_X]`` (``encoding/bolognese.py``, ``encoding/french.py``); the index ``F_X`` is looked up
by the field's name in the layout. Indices written as numbers (``off[7]``) would point at
another field, silently, as soon as a field was inserted before it. These tests check:

- every named index is the position of its field in every layout, and every field has one;
- a field inserted in a layout (the encoder's module run again from its source with one more
  field: :func:`_patched`) moves the others, and the encoders follow: every field holds what it
  held before, the new one is all 0 (nothing writes it), whatever the memory held before;
- a Tarocchino field put among the card fields, which the compiled twin writes whole, stops the
  import instead of leaving stale values;
- the observations and oracle vectors of random states (built field by field by name, so that
  they depend on the encoders only, not on the rules) are the ones the encoders gave before
  their fields were named: digests fixed in this file, taken from that version. They change
  with any change of what is observed, deliberate or not: check the change, then update them.
  The same digests come out compiled and under ``TAROT_ENV_JIT=0``.
"""

from __future__ import annotations

import hashlib
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from tarot_env.cards.bolognese import NUM_CARDS
from tarot_env.cards.french import CALLABLE
from tarot_env.encoding import bolognese, french
from tarot_env.rules.bolognese.state import (
    MAX_TRICKS,
    PH_AUCTION,
    PH_CLAIM,
    PH_DECLARE,
    PH_DISCARD,
    PH_DONE,
    PH_GIVE,
    PH_PLAY,
    PH_PREPARE,
    PH_SCORE,
    PL_DISCARD,
    PL_EXTRA,
    PL_HAND,
    PL_OUT,
    PL_PILE,
    PL_POZZO,
    PL_SECOND,
    PL_TABLE,
    TarocchinoState,
)
from tarot_env.rules.french import FrenchTarotConfig, FrenchTarotGame, Phase

TAROCCHINO_PLAYERS = (2, 3, 4, 5, 6)
FRENCH_PLAYERS = (3, 4, 5)
#: the 5-player fields of the French layout, absent at 3 and 4 players
FRENCH_FIVE_ONLY = ("called", "partner", "alone")


def _named_indices(module: types.ModuleType, prefix: str) -> dict[str, int]:
    """``{field name: index}`` for the module's constants ``<prefix>NAME`` (``F_DEALER``: "dealer")."""
    return {k[len(prefix) :].lower(): v for k, v in vars(module).items() if k.startswith(prefix) and isinstance(v, int)}


# ---------------------------------------------------------------------------- the named indices
@pytest.mark.parametrize("n", TAROCCHINO_PLAYERS)
def test_tarocchino_named_indices_are_the_positions_of_their_fields(n):
    """``layout(n)[F_X].name == "x"`` for every named index, every field has one, and the
    encoder's offsets array holds each field's offset at its index (the oracle's likewise)."""
    fields, oracle = bolognese.layout(n), bolognese.oracle_layout(n)
    assert [f.name for f in fields] == list(bolognese.FIELDS)
    assert [f.name for f in oracle] == list(bolognese.ORACLE_FIELDS)
    enc = bolognese.TarocchinoEncoder(n)
    for prefix, layout, offsets in (("F_", fields, enc.offsets), ("FO_", oracle, enc.oracle_offsets)):
        named = _named_indices(bolognese, prefix)
        assert sorted(named) == sorted(f.name for f in layout), prefix  # every field is named, and nothing else
        for name, k in named.items():
            assert layout[k].name == name
            assert offsets[k] == layout[k].offset, name
        assert len(offsets) == len(layout)


@pytest.mark.parametrize("n", FRENCH_PLAYERS)
def test_french_named_indices_are_the_positions_of_their_fields(n):
    """``FIELDS[F_X] == "x"``, the layout of ``n`` players is :data:`FIELDS` in order (less the
    5-player fields below 5 players), and the encoder's offsets array holds each field's offset
    at its index, -1 for a field the table lacks."""
    fields = {f.name: f for f in french.layout(n)}
    expected = [k for k in french.FIELDS if n == 5 or k not in FRENCH_FIVE_ONLY]
    assert list(fields) == expected
    named = _named_indices(french, "F_")
    assert sorted(named) == sorted(french.FIELDS)
    offsets = french.FrenchTarotEncoder(FrenchTarotGame(FrenchTarotConfig(num_players=n))).offsets
    assert len(offsets) == len(french.FIELDS)
    for name, k in named.items():
        assert french.FIELDS[k] == name
        assert offsets[k] == (fields[name].offset if name in fields else -1), name


def test_decision_slots_follow_the_phases():
    """The ``decision`` field's slots are named with the phases that ask them: the Tarocchino's
    by the phase each slot stands for, the French encoder's by the phase's value."""
    assert bolognese.DECISIONS == ("auction", "claim", "discard", "declare", "play", "give")
    assert bolognese._DECISION_PHASES == (PH_AUCTION, PH_CLAIM, PH_DISCARD, PH_DECLARE, PH_PLAY, PH_GIVE)
    assert french.DECISIONS == ("bid", "call", "discard", "chelem", "poignee", "show", "play")
    phases = (Phase.BID, Phase.CALL, Phase.ECART, Phase.CHELEM, Phase.POIGNEE, Phase.SHOW, Phase.PLAY)
    assert [int(p) for p in phases] == list(range(len(french.DECISIONS)))


# ---------------------------------------------------------------------------- random states
def _tarocchino_states(n: int, batch: int, seed: int) -> TarocchinoState:
    """``batch`` random tables of ``n`` players, each field the encoders read drawn by its name
    over its range (some beyond the widths, which the encoder clips), the cards placed
    consistently: a card in a hand has its holder, one on the table or played to a pile its
    player, one in a pile its pile; a shown card has a holder or a player. Half the rows show
    no card (the compiled twin's shortcut)."""
    rng = np.random.default_rng(seed)
    B, C = batch, NUM_CARDS
    s = TarocchinoState.new(B, n)
    seat = lambda shape: rng.integers(0, n, shape)  # noqa: E731
    seat_or_none = lambda shape: rng.integers(-1, n, shape)  # noqa: E731
    phases = [PH_AUCTION, PH_CLAIM, PH_DISCARD, PH_DECLARE, PH_PLAY, PH_GIVE, PH_PREPARE, PH_SCORE, PH_DONE]
    s.phase[:] = rng.choice(phases, B)
    s.current[:], s.dealer[:], s.leader[:] = seat(B), seat(B), seat(B)
    s.primo[:], s.soloist[:], s.bidder[:] = seat_or_none(B), seat_or_none(B), seat_or_none(B)
    s.contract[:] = rng.integers(1, 3, B)
    s.passes[:] = rng.integers(0, 5, B)
    s.trick_no[:] = rng.integers(0, MAX_TRICKS + 1, B)
    s.claim_value[:] = rng.integers(-1, 2100, B)
    s.discards_left[:] = rng.integers(0, 18, B)
    s.hand_no[:] = rng.integers(0, 35, B)
    s.tricks[:] = rng.integers(0, 34, (B, n))
    s.stage[:] = rng.integers(0, 3, (B, n))
    s.declared[:] = rng.integers(0, 2100, (B, n))
    s.decl[:] = rng.integers(0, 2100, (B, n))
    s.total[:] = rng.integers(-4200, 4200, (B, n))
    s.penalty[:] = rng.integers(0, 9, (B, n))
    s.active[:] = rng.integers(0, 2, (B, n))
    places = [PL_HAND, PL_EXTRA, PL_SECOND, PL_POZZO, PL_OUT, PL_DISCARD, PL_TABLE, PL_PILE]
    place = rng.choice(places, (B, C))
    in_hand = (place == PL_HAND) | (place == PL_EXTRA)
    played = np.where(place == PL_TABLE, seat((B, C)), np.where(place == PL_PILE, seat_or_none((B, C)), -1))
    s.place[:] = place
    s.hand_of[:] = np.where(in_hand, seat((B, C)), -1)
    s.played_by[:] = played
    s.pile_of[:] = np.where((place == PL_PILE) | (place == PL_DISCARD), seat((B, C)), -1)
    shown = (rng.random((B, C)) < 0.2) & (in_hand | (played >= 0))
    shown[::2] = False
    s.shown[:] = shown
    return s


def _french_states(game: FrenchTarotGame, batch: int, seed: int):
    """``batch`` random French tables, each field the encoder reads drawn by its name (the
    tricks recorded in order: seats for the first ones, -1 after)."""
    rng = np.random.default_rng(seed)
    n, B = game.num_players, batch
    s = game.new_state(B)
    C, T = s.hands.shape[2], s.leaders.shape[1]
    seat = lambda shape: rng.integers(0, n, shape)  # noqa: E731
    s.phase[:] = rng.integers(0, int(Phase.DONE) + 1, B)
    s.current[:], s.dealer[:] = seat(B), seat(B)
    s.taker[:], s.partner[:] = rng.integers(-1, n, B), rng.integers(-1, n, B)
    s.contract[:] = rng.integers(0, 5, B)
    s.called[:] = np.where(rng.random(B) < 0.8, rng.choice(CALLABLE, B), -1) if n == 5 else -1
    for flag in (s.partner_known, s.chien_seen, s.chelem):
        flag[:] = rng.random(B) < 0.5
    s.bids[:] = rng.integers(-1, 5, (B, n))
    s.poignee[:] = rng.integers(0, 4, (B, n))
    s.trick[:] = rng.integers(-1, C, (B, n))
    for cards in (s.hands, s.played, s.poignee_cards):
        cards[:] = rng.random((B, n, C)) < 0.3
    s.chien[:], s.ecart[:] = rng.random((B, C)) < 0.2, rng.random((B, C)) < 0.2
    done = np.arange(T)[None, :] < rng.integers(0, T + 1, B)[:, None]
    s.leaders[:] = np.where(done, seat((B, T)), -1)
    s.winners[:] = np.where(done, seat((B, T)), -1)
    return s


def _tarocchino_digest(module: types.ModuleType) -> str:
    """The digest of every seat's observation and oracle vector of random tables of every size,
    from ``module``'s encoder."""
    digest = hashlib.sha256()
    for n in TAROCCHINO_PLAYERS:
        enc, B = module.TarocchinoEncoder(n), 64
        s = _tarocchino_states(n, B, seed=n)
        for v in range(n):
            viewers = np.full(B, v, dtype=np.int64)
            digest.update(enc.encode(s, np.arange(B), viewers).tobytes())
            digest.update(enc.encode_oracle(s, np.arange(B), viewers).tobytes())
    return digest.hexdigest()[:32]


def _french_digest(module: types.ModuleType) -> str:
    """:func:`_tarocchino_digest` for the French encoder."""
    digest = hashlib.sha256()
    for n in FRENCH_PLAYERS:
        game = FrenchTarotGame(FrenchTarotConfig(num_players=n))
        enc, B = module.FrenchTarotEncoder(game), 64
        s = _french_states(game, B, seed=n)
        for v in range(n):
            viewers = np.full(B, v, dtype=np.int64)
            digest.update(enc.encode(s, np.arange(B), viewers).tobytes())
            digest.update(enc.encode_oracle(s, np.arange(B), viewers).tobytes())
    return digest.hexdigest()[:32]


#: the digests of the encoders as they were when their fields were read by number
TAROCCHINO_DIGEST = "e4fbe3ddbecf8eb85171c12e7fbc247a"
FRENCH_DIGEST = "5e83f928b4a99df5d219dfb5779a54c2"


def test_tarocchino_observations_are_unchanged():
    """Every seat's observation and oracle vector of random tables of 2 to 6 players is what
    the encoder gave before its fields were named (:data:`TAROCCHINO_DIGEST`)."""
    assert _tarocchino_digest(bolognese) == TAROCCHINO_DIGEST


def test_french_observations_are_unchanged():
    """Every seat's observation and oracle vector of random tables of 3 to 5 players is what
    the encoder gave before its fields were named (:data:`FRENCH_DIGEST`)."""
    assert _french_digest(french) == FRENCH_DIGEST


# ---------------------------------------------------------------------------- a field inserted
#: run in the encoder's module just before its field names are read (``FIELDS = ...``): a field
#: "inserted" of 3 values before the field ``{at}`` of the layout and ``{oracle_at}`` of the oracle's
#: (at the end for None), and the row functions as plain Python
_HOOK = """
JIT_AVAILABLE = False


def kernel(fn=None, inline=False):
    return (lambda f: f) if fn is None else fn


def parallel_variant(fn):
    return fn


def _insert(fields, at):
    out, offset = [], 0
    for f in fields:
        if f.name == at:
            out.append(Field("inserted", offset, 3, "a field nothing writes"))
            offset += 3
        out.append(Field(f.name, offset, f.length, f.meaning))
        offset += f.length
    if at is None:
        out.append(Field("inserted", offset, 3, "a field nothing writes"))
    return out


_layout, _oracle_layout = layout, oracle_layout


def layout(num_players):
    return _insert(_layout(num_players), {at!r})


def oracle_layout(num_players):
    return _insert(_oracle_layout(num_players), {oracle_at!r})

"""


def _patched(module: types.ModuleType, monkeypatch: pytest.MonkeyPatch, at: str | None, oracle_at: str | None = None):
    """``module`` run again from its source as a new module, with :data:`_HOOK` inserting a field
    in its layouts before its field names are read: what a field added to the layout does."""
    source = Path(module.__file__).read_text(encoding="utf-8")
    anchor = "\nFIELDS = "
    assert source.count(anchor) == 1, "the module computes FIELDS from the layout once"
    source = source.replace(anchor, _HOOK.format(at=at, oracle_at=oracle_at) + anchor)
    patched = types.ModuleType(module.__name__ + "_patched")
    patched.__file__ = module.__file__
    monkeypatch.setitem(sys.modules, patched.__name__, patched)  # the dataclasses look their module up
    exec(compile(source, f"{module.__file__} (a field inserted)", "exec"), patched.__dict__)
    return patched


def _same_fields(before: np.ndarray, after: np.ndarray, fields_before, fields_after) -> None:
    """Each field of ``fields_before`` holds the same values in ``after`` (laid out by
    ``fields_after``, which has one more field, "inserted") as in ``before``; "inserted" is all 0."""
    where = {f.name: f for f in fields_after}
    assert after.shape[1] == before.shape[1] + where["inserted"].length
    assert not after[:, where["inserted"].offset : where["inserted"].offset + where["inserted"].length].any()
    for f in fields_before:
        g = where[f.name]
        np.testing.assert_array_equal(after[:, g.offset : g.offset + g.length], before[:, f.offset : f.offset + f.length], err_msg=f.name)


@pytest.mark.parametrize(("at", "oracle_at"), [("decision", "hands"), ("dealer", "discards"), ("passes", "rest"), (None, None)])
def test_tarocchino_encoder_follows_a_field_inserted_in_the_layout(monkeypatch, at, oracle_at):
    """With a field inserted before ``at`` (after the card fields, in the middle, at the end),
    the reference row function and the compiled twin (run as Python) write each field where
    the new layout puts it, the same values as before, into rows that held garbage; the oracle
    likewise with a field inserted before ``oracle_at``."""
    patched = _patched(bolognese, monkeypatch, at, oracle_at)
    for n in (2, 4, 6):
        B = 12
        s = _tarocchino_states(n, B, seed=100 + n)
        enc, new = bolognese.TarocchinoEncoder(n), patched.TarocchinoEncoder(n)
        for v in range(n):
            viewers = np.full(B, v, dtype=np.int64)
            before = enc.encode(s, np.arange(B), viewers)
            for row_function in (patched.encode_row_reference, patched.encode_row_compiled):
                after = np.full((B, new.size), 7, dtype=np.int8)
                for b in range(B):
                    row_function(s.ints, s.seat_ints, s.cards, b, v, after[b], new.offsets)
                _same_fields(before, after, enc.fields, new.fields)
            after = new.encode_oracle(s, np.arange(B), viewers)
            _same_fields(enc.encode_oracle(s, np.arange(B), viewers), after, bolognese.oracle_layout(n), patched.oracle_layout(n))


def test_tarocchino_field_among_the_card_fields_stops_the_import(monkeypatch):
    """The compiled twin writes the card fields whole and zeroes only the fields after them: a
    field put among the card fields would keep stale values, so the module refuses it."""
    with pytest.raises(RuntimeError, match="card fields"):
        _patched(bolognese, monkeypatch, "discard")


@pytest.mark.parametrize(
    ("n", "at"),
    # "called" (the called card) is a 5-player field only
    [(n, at) for n in FRENCH_PLAYERS for at in ("hand", "dealer", "called", "chelem", None) if at != "called" or n == 5],
)
def test_french_encoder_follows_a_field_inserted_in_the_layout(monkeypatch, n, at):
    """With a field inserted before ``at`` (first, in the middle, before the 5-player fields,
    at the end), the encoder (run as Python) writes each field where the new layout puts it,
    the same values as before; the oracle likewise with a field inserted before "chien"."""
    patched = _patched(french, monkeypatch, at, "chien")
    game = FrenchTarotGame(FrenchTarotConfig(num_players=n))
    enc, new = french.FrenchTarotEncoder(game), patched.FrenchTarotEncoder(game)
    B = 12
    s = _french_states(game, B, seed=200 + n)
    for v in range(n):
        viewers = np.full(B, v, dtype=np.int64)
        before, after = enc.encode(s, np.arange(B), viewers), new.encode(s, np.arange(B), viewers)
        _same_fields(before, after, french.layout(n), patched.layout(n))
        before, after = enc.encode_oracle(s, np.arange(B), viewers), new.encode_oracle(s, np.arange(B), viewers)
        _same_fields(before, after, french.oracle_layout(n), patched.oracle_layout(n))
