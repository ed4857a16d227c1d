"""Observations of the Tarocchino games: one player's information state as a flat int8 vector.

Seats are *relative* to the observer: slot 0 is the observer, slot 1 the player after him
in play order (on his right), and so on. The layout is :func:`layout` (name, offset,
length, meaning), printed in ``docs/tarocchino.md`` (``python -m tarot_env.encoding.bolognese``).
Numbers (declarations, running totals) are written in binary, least significant bit
first, so the vector stays 0/1.

Only public information and the observer's own cards are encoded: hands, discards, the
Pozzo and the cards out of play reach nothing here but :func:`encode_oracle`. A player's
claim window (which tells that he *could* claim) is seen only by that player: the
``decision`` field is all 0 when it is not the observer's turn.

The encoder is a row function, :func:`encode_row_reference`: the reference, which runs as plain
Python without numba. With numba its twin written for the compiler,
:func:`encode_row_compiled`, runs instead (up to 5 players; with 6 the compiled reference is
faster): the same fields, the card fields written without a branch (vector instructions); the
two share the code of every other field, and ``tests/test_tarocchino_properties.py`` and
``tests/test_vector_kernels.py`` check that they give the same observation for every seat
after every action of random hands of every game. The row functions take the fields'
offsets as one int64 array and read each by its name's index, ``off[F_DEALER]``
(:data:`FIELDS`, :func:`_index`): the indices are looked up from the layout, so they follow it
when a field is inserted or moved.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tarot_env._jit import JIT_AVAILABLE, kernel, parallel_variant, prange
from tarot_env.cards.bolognese import NUM_CARDS
from tarot_env.rules.bolognese.state import (
    ACTIVE,
    BIDDER,
    CLAIM_VALUE,
    CONTRACT,
    CURRENT,
    DEALER,
    DECL,
    DECLARED,
    DISCARDS_LEFT,
    HAND_NO,
    HAND_OF,
    LEADER,
    MAX_TRICKS,
    PASSES,
    PENALTY,
    PH_AUCTION,
    PH_CLAIM,
    PH_DECLARE,
    PH_DISCARD,
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
    SHOWN,
    SOLOIST,
    STAGE,
    TOTAL,
    TRICK_NO,
    TRICKS,
    TarocchinoState,
)

#: the decisions of the ``decision`` field, in its order, and the phase that asks each of them
_DECISION_OF_PHASE = (
    ("auction", PH_AUCTION),
    ("claim", PH_CLAIM),
    ("discard", PH_DISCARD),
    ("declare", PH_DECLARE),
    ("play", PH_PLAY),
    ("give", PH_GIVE),
)
DECISIONS = tuple(name for name, _ in _DECISION_OF_PHASE)
_DECISION_PHASES = tuple(phase for _, phase in _DECISION_OF_PHASE)
_N_DECISIONS = len(DECISIONS)
# the widths of the numbers written in binary (the layout's lengths and the writers' strides both read them)
VALUE_BITS = 11  # declarations and claim values up to 2047
TOTAL_BITS = 12  # running totals up to 4095 (signed Terziglio settlements: magnitude and a sign bit)
TRICKS_BITS = 5  # tricks won, up to 31
PASSES_MAX = 3  # the auction's passes, a thermometer
DISCARDS_BITS = 4  # discards still owed, up to 15
PENALTY_BITS = 3  # Mattazza's penalty points, up to 7
HAND_NO_BITS = 5  # the hand of the match, up to 31


@dataclass(frozen=True)
class Field:
    """A field of the observation: ``length`` values from ``offset``, what they say in ``meaning``."""

    name: str
    offset: int
    length: int
    meaning: str


def layout(num_players: int) -> list[Field]:
    """The observation layout for ``num_players`` (the same fields in every game)."""
    n, C = num_players, NUM_CARDS
    spec = [
        ("hand", C, "cards in the observer's hand (the dealer's last 2 cards once picked up)"),
        ("discard", C, "the observer's own discards"),
        ("played", n * C, "cards each relative seat played in completed tricks"),
        ("trick", n * C, "the card each relative seat has on the table in the trick in progress"),
        ("won", n * C, "played cards (and the covered Matto) in each relative seat's pile"),
        ("shown", n * C, "cards each relative seat showed in a declaration (§7)"),
        ("decision", _N_DECISIONS, "the decision the observer must take now: " + ", ".join(DECISIONS) + " (all 0 when not his turn)"),
        ("dealer", n, "dealer, one-hot over relative seats"),
        ("primo", n, "the first leader (Primo di Mano), one-hot over relative seats, once play starts"),
        ("leader", n, "the leader of the trick in progress, one-hot over relative seats"),
        ("soloist", n, "Terziglio: the soloist, one-hot over relative seats"),
        ("contract", 2, "Terziglio: the contract, one-hot su (with the Pozzo) / di_mio"),
        ("bidder", n, "Terziglio: the player who said posso, awaiting answers"),
        ("passes", PASSES_MAX, "Terziglio: passes so far, thermometer"),
        ("trick_no", MAX_TRICKS, "the number of the trick in progress, one-hot"),
        ("tricks_won", n * TRICKS_BITS, "tricks won by each relative seat, binary"),
        ("first_turn_done", n, "1 for each relative seat whose first turn (claim, declaration) is over"),
        ("declared", n * VALUE_BITS, "each relative seat's declared points, binary"),
        ("my_declaration", VALUE_BITS, "the value the observer's declaration would have (0 before his hand is final)"),
        ("claim_value", VALUE_BITS, "in the observer's claim window: the value his claim would reach, binary"),
        ("discards_left", DISCARDS_BITS, "discards the discarder still owes, binary"),
        ("totals", n * (TOTAL_BITS + 1), "match: each relative seat's running total (side total), binary magnitude then a sign bit"),
        ("penalties", n * PENALTY_BITS, "Mattazza match: each relative seat's penalty points, binary"),
        ("active", n, "Mattazza match: 1 for each relative seat still in the game"),
        ("hand_no", HAND_NO_BITS, "match: the number of the hand, binary"),
    ]
    out, offset = [], 0
    for name, length, meaning in spec:
        out.append(Field(name, offset, length, meaning))
        offset += length
    return out


def oracle_layout(num_players: int) -> list[Field]:
    """The oracle's extra fields: what the information state hides."""
    n, C = num_players, NUM_CARDS
    spec = [
        ("hands", n * C, "each relative seat's hand (the dealer's last 2 cards included before he picks them up)"),
        ("discards", n * C, "each relative seat's discards"),
        ("rest", 3 * C, "the cards not in hands: Pozzo, Millone's second deal, out of play"),
    ]
    out, offset = [], 0
    for name, length, meaning in spec:
        out.append(Field(name, offset, length, meaning))
        offset += length
    return out


# ---------------------------------------------------------------------- the fields by name
#: the observation's fields in layout order (the same fields in every game and at every table size)
FIELDS = tuple(f.name for f in layout(2))
#: the oracle's fields in layout order
ORACLE_FIELDS = tuple(f.name for f in oracle_layout(2))


def _index(fields: tuple[str, ...], *names: str) -> tuple[int, ...]:
    """The position of each of ``names`` in ``fields`` (a ValueError for a name not there).

    The row functions take the fields' offsets as one small array in layout order
    (``TarocchinoEncoder.offsets``) and read a field's offset as ``off[F_NAME]``: the index is
    looked up here by the field's name, so a field inserted or moved in :func:`layout` moves
    every index with it, where a number written in the code (``off[7]``) would silently point
    at another field. numba reads these module ints as constants: ``off[F_DEALER]`` compiles
    to what ``off[7]`` did."""
    return tuple(fields.index(name) for name in names)


F_HAND, F_DISCARD, F_PLAYED, F_TRICK, F_WON, F_SHOWN = _index(FIELDS, "hand", "discard", "played", "trick", "won", "shown")
F_DECISION, F_DEALER, F_PRIMO, F_LEADER = _index(FIELDS, "decision", "dealer", "primo", "leader")
F_SOLOIST, F_CONTRACT, F_BIDDER, F_PASSES = _index(FIELDS, "soloist", "contract", "bidder", "passes")
F_TRICK_NO, F_TRICKS_WON, F_FIRST_TURN_DONE = _index(FIELDS, "trick_no", "tricks_won", "first_turn_done")
F_DECLARED, F_MY_DECLARATION, F_CLAIM_VALUE = _index(FIELDS, "declared", "my_declaration", "claim_value")
F_DISCARDS_LEFT, F_TOTALS, F_PENALTIES, F_ACTIVE, F_HAND_NO = _index(FIELDS, "discards_left", "totals", "penalties", "active", "hand_no")
FO_HANDS, FO_DISCARDS, FO_REST = _index(ORACLE_FIELDS, "hands", "discards", "rest")

#: the card fields, which come first: the compiled twin writes each of them whole and zeroes only
#: the fields from the next one on (``out`` comes from ``np.empty``), so another field put among
#: them would keep whatever the memory held
_CARD_FIELDS = ("hand", "discard", "played", "trick", "won", "shown")
_HEADER_FROM = len(_CARD_FIELDS)  # the index of the first field after the card fields
if set(FIELDS[:_HEADER_FROM]) != set(_CARD_FIELDS):
    raise RuntimeError(f"the observation layout must start with the card fields {_CARD_FIELDS}, not {FIELDS[:_HEADER_FROM]}")


def field_offsets(fields: list[Field], names: tuple[str, ...]) -> np.ndarray:
    """The offsets of ``names`` in ``fields`` (a layout), as the int64 array the row functions
    take: entry ``k`` is the offset of field ``names[k]``, so ``off[F_X]`` is the offset of
    ``"x"`` whatever the layout's order."""
    by_name = {f.name: f.offset for f in fields}
    return np.array([by_name[name] for name in names], dtype=np.int64)


@kernel
def _bits(out, at, value, width):
    """``value`` in binary into ``out[at:at + width]`` (already zeroed), clipped to the width."""
    v = value
    if v <= 0:
        return
    top = (1 << width) - 1
    if v > top:
        v = top
    for i in range(width):
        out[at + i] = (v >> i) & 1


@kernel(inline=True)
def _rel(seat, viewer, n):
    """The seat relative to the viewer (0 = the viewer), without a modulo in the hot loop."""
    r = int(seat) - int(viewer)  # the card rows are int8: compute in full ints
    return r + n if r < 0 else r


@kernel(inline=True)
def _header(ints, seat_ints, b, viewer, out, off):
    """The fields after the card fields (``decision`` to ``hand_no``), into a zeroed ``out``;
    ``off[F_X]`` is the offset of field ``x`` (:func:`field_offsets`)."""
    n = seat_ints.shape[1]
    phase = ints[b, PHASE]
    if ints[b, CURRENT] == viewer:
        for k in range(_N_DECISIONS):
            if phase == _DECISION_PHASES[k]:
                out[off[F_DECISION] + k] = 1
    out[off[F_DEALER] + _rel(ints[b, DEALER], viewer, n)] = 1
    if ints[b, PRIMO] >= 0:
        out[off[F_PRIMO] + _rel(ints[b, PRIMO], viewer, n)] = 1
    if phase == PH_PLAY or phase == PH_CLAIM or phase == PH_DECLARE:
        if ints[b, PRIMO] >= 0:
            out[off[F_LEADER] + _rel(ints[b, LEADER], viewer, n)] = 1
    if ints[b, SOLOIST] >= 0:
        out[off[F_SOLOIST] + _rel(ints[b, SOLOIST], viewer, n)] = 1
        out[off[F_CONTRACT] + ints[b, CONTRACT] - 1] = 1
    if ints[b, BIDDER] >= 0:
        out[off[F_BIDDER] + _rel(ints[b, BIDDER], viewer, n)] = 1
    for k in range(min(ints[b, PASSES], PASSES_MAX)):
        out[off[F_PASSES] + k] = 1
    t = ints[b, TRICK_NO]
    if ints[b, PRIMO] >= 0 and t < MAX_TRICKS:
        out[off[F_TRICK_NO] + t] = 1
    for s in range(n):
        r = _rel(s, viewer, n)
        _bits(out, off[F_TRICKS_WON] + r * TRICKS_BITS, seat_ints[b, s, TRICKS], TRICKS_BITS)
        if ints[b, PRIMO] >= 0 and seat_ints[b, s, STAGE] == 2 and (s != ints[b, CURRENT] or phase == PH_PLAY):
            out[off[F_FIRST_TURN_DONE] + r] = 1
        _bits(out, off[F_DECLARED] + r * VALUE_BITS, seat_ints[b, s, DECLARED], VALUE_BITS)
        tot = seat_ints[b, s, TOTAL]
        _bits(out, off[F_TOTALS] + r * (TOTAL_BITS + 1), abs(tot), TOTAL_BITS)
        if tot < 0:
            out[off[F_TOTALS] + r * (TOTAL_BITS + 1) + TOTAL_BITS] = 1
        _bits(out, off[F_PENALTIES] + r * PENALTY_BITS, seat_ints[b, s, PENALTY], PENALTY_BITS)
        out[off[F_ACTIVE] + r] = seat_ints[b, s, ACTIVE]
    _bits(out, off[F_MY_DECLARATION], seat_ints[b, viewer, DECL], VALUE_BITS)
    if phase == PH_CLAIM and ints[b, CURRENT] == viewer:
        _bits(out, off[F_CLAIM_VALUE], ints[b, CLAIM_VALUE], VALUE_BITS)
    if phase == PH_DISCARD:
        _bits(out, off[F_DISCARDS_LEFT], ints[b, DISCARDS_LEFT], DISCARDS_BITS)
    _bits(out, off[F_HAND_NO], ints[b, HAND_NO], HAND_NO_BITS)


@kernel
def encode_row_reference(ints, seat_ints, cards, b, viewer, out, off):
    """Write the observation of ``viewer`` at row ``b`` into ``out`` (zeroed here); ``off``
    holds the field offsets, ``off[F_X]`` that of field ``x`` (:func:`field_offsets`).

    The reference, and what runs without numba: one pass over the cards, each written where
    its place says. Compiled, :func:`encode_row_compiled` gives the same values faster up to 5
    players; with 6, this one compiled is the faster (:func:`encode_rows`)."""
    n = seat_ints.shape[1]
    C = cards.shape[2]
    out[:] = 0
    o_hand, o_disc, o_played, o_trick = off[F_HAND], off[F_DISCARD], off[F_PLAYED], off[F_TRICK]
    o_won, o_shown = off[F_WON], off[F_SHOWN]
    for c in range(C):
        place = cards[b, PLACE, c]
        if place == PL_HAND and cards[b, HAND_OF, c] == viewer:
            out[o_hand + c] = 1
        elif place == PL_DISCARD:
            if cards[b, PILE_OF, c] == viewer:
                out[o_disc + c] = 1
        elif place == PL_TABLE:
            r = _rel(cards[b, PLAYED_BY, c], viewer, n)
            out[o_trick + r * C + c] = 1
        elif place == PL_PILE:
            p = cards[b, PLAYED_BY, c]
            if p >= 0:  # played in a trick: public, and so is whose pile it went to
                out[o_played + (_rel(p, viewer, n)) * C + c] = 1
                w = cards[b, PILE_OF, c]
                out[o_won + (_rel(w, viewer, n)) * C + c] = 1
        if cards[b, SHOWN, c] == 1:
            h = cards[b, HAND_OF, c]
            if h < 0:
                h = cards[b, PLAYED_BY, c]
            out[o_shown + (_rel(h, viewer, n)) * C + c] = 1
    _header(ints, seat_ints, b, viewer, out, off)


@kernel(inline=True)
def encode_row_compiled(ints, seat_ints, cards, b, viewer, out, off):
    """:func:`encode_row_reference` written for the compiler (the one :data:`encode_row` is with numba):
    the card fields a whole field at a time, each one loop over the cards without a branch,
    which LLVM turns into vector instructions. The reference's branch on each card's place
    costs twice as much compiled (mispredicted branches); as plain Python, this version would
    cost several times the reference (five times the loop iterations)."""
    n = seat_ints.shape[1]
    C = cards.shape[2]
    out[off[_HEADER_FROM] :] = 0  # the card fields before it are written whole
    place, hand_of, pile_of = cards[b, PLACE], cards[b, HAND_OF], cards[b, PILE_OF]
    played_by, shown = cards[b, PLAYED_BY], cards[b, SHOWN]
    v = np.int8(viewer)  # the card rows are int8: compare them with int8
    hand = out[off[F_HAND] : off[F_HAND] + C]
    discard = out[off[F_DISCARD] : off[F_DISCARD] + C]
    n_shown = 0
    for c in range(C):
        hand[c] = (place[c] == PL_HAND) & (hand_of[c] == v)
        discard[c] = (place[c] == PL_DISCARD) & (pile_of[c] == v)
        n_shown += shown[c] == 1
    for r in range(n):  # relative seat r
        seat = np.int8(viewer + r - n if viewer + r >= n else viewer + r)
        played = out[off[F_PLAYED] + r * C : off[F_PLAYED] + (r + 1) * C]  # played in a completed trick (public, and whose pile)
        trick = out[off[F_TRICK] + r * C : off[F_TRICK] + (r + 1) * C]
        won = out[off[F_WON] + r * C : off[F_WON] + (r + 1) * C]
        for c in range(C):
            in_pile = place[c] == PL_PILE
            by = played_by[c]
            played[c] = in_pile & (by == seat)
            trick[c] = (place[c] == PL_TABLE) & (by == seat)
            won[c] = in_pile & (by >= 0) & (pile_of[c] == seat)
        showed = out[off[F_SHOWN] + r * C : off[F_SHOWN] + (r + 1) * C]  # a shown card is in its hand, or played by it
        if n_shown == 0:  # until a declaration shows cards (most of the time)
            showed[:] = 0
        else:
            for c in range(C):
                showed[c] = (shown[c] == 1) & ((hand_of[c] == seat) | ((hand_of[c] < 0) & (played_by[c] == seat)))
    _header(ints, seat_ints, b, viewer, out, off)


#: the encoder's row function: the twin written for the compiler, compiled; the reference as
#: plain Python (where the twin would cost several times as much)
encode_row = encode_row_compiled if JIT_AVAILABLE else encode_row_reference


@kernel
def encode_rows(ints, seat_ints, cards, rows, viewers, out, off):
    """:func:`encode_row` for each of ``rows``. The twin's passes over the cards grow with the
    players (four fields per seat) while the reference's one pass does not: with 6 players
    (Mattazza) the reference, compiled, is the faster of the two and runs instead."""
    if seat_ints.shape[1] <= 5:
        for i in prange(rows.shape[0]):  # rows are independent: numba's threads share them (tarot_env._threads)
            encode_row(ints, seat_ints, cards, rows[i], viewers[i], out[i], off)
    else:
        for i in prange(rows.shape[0]):
            encode_row_reference(ints, seat_ints, cards, rows[i], viewers[i], out[i], off)


encode_rows_parallel = parallel_variant(encode_rows)


@kernel(inline=True)
def oracle_row(ints, seat_ints, cards, b, viewer, out, off):
    """Write the oracle vector of ``viewer`` at row ``b`` into ``out`` (zeroed here); ``off[FO_X]``
    is the offset of the oracle field ``x`` (:func:`field_offsets` of :func:`oracle_layout`)."""
    n = seat_ints.shape[1]
    C = cards.shape[2]
    o_hands, o_discards, o_rest = off[FO_HANDS], off[FO_DISCARDS], off[FO_REST]
    for i in range(out.shape[0]):
        out[i] = 0
    for c in range(C):
        place = cards[b, PLACE, c]
        if place == PL_HAND or place == PL_EXTRA:
            out[o_hands + (_rel(cards[b, HAND_OF, c], viewer, n)) * C + c] = 1
        elif place == PL_DISCARD:
            out[o_discards + (_rel(cards[b, PILE_OF, c], viewer, n)) * C + c] = 1
        elif place == PL_POZZO:  # the rest: the Pozzo, the second deal, out of play, C cards each
            out[o_rest + c] = 1
        elif place == PL_SECOND:
            out[o_rest + C + c] = 1
        elif place == PL_OUT:
            out[o_rest + 2 * C + c] = 1


@kernel
def oracle_rows(ints, seat_ints, cards, rows, viewers, out, off):
    """:func:`oracle_row` for each of ``rows``."""
    for i in range(rows.shape[0]):
        oracle_row(ints, seat_ints, cards, rows[i], viewers[i], out[i], off)


class TarocchinoEncoder:
    """Encodes rows of a :class:`TarocchinoState` for given viewers."""

    def __init__(self, num_players: int) -> None:
        self.num_players = num_players
        self.fields = layout(num_players)
        self.size = self.fields[-1].offset + self.fields[-1].length
        #: the fields' offsets as the row functions take them: ``offsets[F_X]`` is field ``x``'s
        self.offsets = field_offsets(self.fields, FIELDS)
        of = oracle_layout(num_players)
        self.oracle_size = of[-1].offset + of[-1].length
        self.oracle_offsets = field_offsets(of, ORACLE_FIELDS)

    def encode(
        self, s: TarocchinoState, rows: np.ndarray, viewers: np.ndarray, out: np.ndarray | None = None, parallel: bool = False
    ) -> np.ndarray:
        """(R, D) int8: the observation of ``viewers[i]`` at row ``rows[i]`` (into ``out`` when given;
        ``parallel``: the kernel's variant whose row loop runs on numba's threads, :mod:`tarot_env._threads`)."""
        if out is None:
            out = np.empty((len(rows), self.size), dtype=np.int8)
        (encode_rows_parallel if parallel else encode_rows)(s.ints, s.seat_ints, s.cards, rows, viewers, out, self.offsets)
        return out

    def encode_oracle(self, s: TarocchinoState, rows: np.ndarray, viewers: np.ndarray) -> np.ndarray:
        """(R, D_oracle) int8: the hidden information (:func:`oracle_layout`), from each viewer's seat."""
        out = np.empty((len(rows), self.oracle_size), dtype=np.int8)
        rows, viewers = np.asarray(rows, dtype=np.int64), np.asarray(viewers, dtype=np.int64)
        oracle_rows(s.ints, s.seat_ints, s.cards, rows, viewers, out, self.oracle_offsets)
        return out


def layout_table(num_players: int, oracle: bool = False) -> str:
    """The layout as a Markdown table."""
    fields = oracle_layout(num_players) if oracle else layout(num_players)
    lines = ["| field | offset | length | meaning |", "|---|---|---|---|"]
    lines += [f"| `{f.name}` | {f.offset} | {f.length} | {f.meaning} |" for f in fields]
    return "\n".join(lines)


if __name__ == "__main__":
    for n in (2, 3, 4, 5, 6):
        print(f"\n{n} players: {layout(n)[-1].offset + layout(n)[-1].length} values\n")
        print(layout_table(n))
