"""Observations of French Tarot: one player's information state as a flat int8 vector.

Seats are *relative* to the observer: slot 0 is the observer, slot 1 the next player to act
after him, and so on. The layout is :func:`layout` (name, offset, length, meaning); the
table in ``docs/french_tarot.md`` and the env docstring are printed from it
(``python -m tarot_env.encoding.french``).

Hidden information (other hands, the chien of a garde sans/contre, the écart's non-trump
cards, the secret partner) reaches nothing here but :func:`encode_oracle`, the separately
named observation for centralised critics.

The observation is written by one function, :func:`encode_rows`, with plain loops over each
row of the state's blocks (as the Tarocchino engine and the French play phase are): numba
compiles it (:func:`tarot_env._jit.kernel`; an observation at batch size 1 then costs a few µs,
docs/performance.md), and the same function runs as plain Python when the
compiled path is off (``TAROT_ENV_JIT=0``). ``tests/test_kernels.py`` compares the two on
every seat after every action of random deals. It reads each field's offset by the index of
its name (``offsets[F_DEALER]``, :data:`FIELDS`): the indices are looked up from the layout,
so they follow it when a field is inserted or moved.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tarot_env._jit import kernel, parallel_variant, prange
from tarot_env.cards.french import CALLABLE, IS_TRUMP, NUM_CARDS, PETIT
from tarot_env.rules.french.game import FrenchTarotGame
from tarot_env.rules.french.state import COLUMN, FrenchTarotState, Phase

#: the decisions of the ``decision`` field, in its order, and the phase that asks each of them
_DECISION_OF_PHASE = (
    ("bid", Phase.BID),
    ("call", Phase.CALL),
    ("discard", Phase.ECART),
    ("chelem", Phase.CHELEM),
    ("poignee", Phase.POIGNEE),
    ("show", Phase.SHOW),
    ("play", Phase.PLAY),
)
DECISIONS = tuple(name for name, _ in _DECISION_OF_PHASE)
# encode_rows writes a decision at the slot its phase's value gives: the phases must be 0, 1, ...
if tuple(int(phase) for _, phase in _DECISION_OF_PHASE) != tuple(range(len(DECISIONS))):
    raise RuntimeError(f"the decision field's slots must be the phases' values in order, not {_DECISION_OF_PHASE}")
_CALL_SLOT = np.full(NUM_CARDS, -1, dtype=np.int64)
_CALL_SLOT[CALLABLE] = np.arange(len(CALLABLE))


@dataclass(frozen=True)
class Field:
    name: str
    offset: int
    length: int
    meaning: str


def layout(num_players: int) -> list[Field]:
    """The observation layout for ``num_players`` (documented index table)."""
    n, t = num_players, {3: 24, 4: 18, 5: 15}[num_players]
    spec: list[tuple[str, int, str]] = [
        ("hand", NUM_CARDS, "cards in the observer's hand (card ids of docs/cards.md)"),
        ("decision", len(DECISIONS), "the decision the observer must take now: " + ", ".join(DECISIONS) + " (all 0 when not his turn)"),
        ("dealer", n, "dealer, one-hot over relative seats"),
        ("bids", n * 5, "each relative seat's bid, one-hot pass/petite/garde/garde_sans/garde_contre (0 = not spoken)"),
        ("taker", n, "taker, one-hot over relative seats (0 while bidding)"),
        ("contract", 4, "contract, one-hot petite/garde/garde_sans/garde_contre"),
    ]
    if n == 5:
        spec += [
            ("called", len(CALLABLE), "called card, one-hot K/Q/N/J of S, H, D, C"),
            ("partner", n, "the taker's partner, one-hot over relative seats, once the observer knows it"),
            ("alone", 1, "1 once the observer knows the taker plays alone"),
        ]
    spec += [
        ("chien", NUM_CARDS, "the chien, once shown (petite, garde)"),
        ("ecart", NUM_CARDS, "the écart as the observer knows it: all of it for the taker, the shown trumps for others"),
        ("chelem", 1, "1 if the taker announced a chelem"),
        ("poignee", n * 3, "each relative seat's poignée, one-hot simple/double/triple"),
        ("poignee_cards", n * NUM_CARDS, "cards shown in each relative seat's poignée"),
        ("played", n * NUM_CARDS, "cards each relative seat has played (current trick included)"),
        ("trick", n * NUM_CARDS, "the card each relative seat has put on the current trick"),
        ("leaders", t * n, "leader of each trick so far, one-hot over relative seats, trick by trick"),
        ("winners", t * n, "winner of each trick so far, one-hot over relative seats, trick by trick"),
    ]
    out, offset = [], 0
    for name, length, meaning in spec:
        out.append(Field(name, offset, length, meaning))
        offset += length
    return out


def oracle_layout(num_players: int) -> list[Field]:
    """Layout of the oracle vector (hidden information, for critics only)."""
    n = num_players
    spec = [
        ("hands", n * NUM_CARDS, "every hand, by relative seat"),
        ("chien", NUM_CARDS, "the chien as dealt"),
        ("ecart", NUM_CARDS, "the whole écart"),
        ("partner", n, "the secret partner (5 players), one-hot over relative seats"),
    ]
    out, offset = [], 0
    for name, length, meaning in spec:
        out.append(Field(name, offset, length, meaning))
        offset += length
    return out


# ====================================================================== the observation, row by row
#: every field of the observation in layout order: 5 players have them all, 3 and 4 players
#: lack ``called``, ``partner`` and ``alone`` (their offsets are -1 in ``FrenchTarotEncoder.offsets``)
FIELDS = tuple(f.name for f in layout(5))


def _index(*names: str) -> tuple[int, ...]:
    """The position of each of ``names`` in :data:`FIELDS` (a ValueError for a name not there).

    :func:`encode_rows` takes the fields' offsets as one small array in :data:`FIELDS` order
    and reads a field's offset as ``offsets[F_NAME]``: the index is looked up here by the
    field's name, so a field inserted or moved in :func:`layout` moves every index with it,
    where indices written as numbers (``range(12)``) must be kept in step by hand. numba
    reads these module ints as constants, as it did the numbers."""
    return tuple(FIELDS.index(name) for name in names)


F_HAND, F_DECISION, F_DEALER, F_BIDS, F_TAKER, F_CONTRACT = _index("hand", "decision", "dealer", "bids", "taker", "contract")
F_CALLED, F_PARTNER, F_ALONE, F_CHIEN, F_ECART, F_CHELEM = _index("called", "partner", "alone", "chien", "ecart", "chelem")
F_POIGNEE, F_POIGNEE_CARDS, F_PLAYED, F_TRICK = _index("poignee", "poignee_cards", "played", "trick")
F_LEADERS, F_WINNERS = _index("leaders", "winners")
_DONE, _BID, _PLAY = Phase.DONE, Phase.BID, Phase.PLAY
# the trumps are one range of ids from the Petit (cards/french.py)
FIRST_TRUMP, N_TRUMPS = PETIT, int(IS_TRUMP.sum())
# columns of the state's fields in their blocks (FrenchTarotState.blocks)
I_PHASE, I_CURRENT, I_DEALER, I_TAKER = COLUMN["phase"], COLUMN["current"], COLUMN["dealer"], COLUMN["taker"]
I_CONTRACT, I_CALLED, I_PARTNER = COLUMN["contract"], COLUMN["called"], COLUMN["partner"]
FL_PARTNER_KNOWN, FL_CHIEN_SEEN, FL_CHELEM = COLUMN["partner_known"], COLUMN["chien_seen"], COLUMN["chelem"]
J_BIDS, J_POIGNEE, J_TRICK = COLUMN["bids"], COLUMN["poignee"], COLUMN["trick"]
S_HANDS, S_PLAYED, S_POIGNEE_CARDS = COLUMN["hands"], COLUMN["played"], COLUMN["poignee_cards"]
K_CHIEN, K_ECART = COLUMN["chien"], COLUMN["ecart"]
H_LEADERS, H_WINNERS = COLUMN["leaders"], COLUMN["winners"]


@kernel(inline=True)
def _rel(seat, viewer, n):
    """The relative slot of ``seat`` seen from ``viewer`` ((seat - viewer) mod n, seat >= 0)."""
    r = seat - viewer
    return r + n if r < 0 else r


@kernel(inline=True)
def _copy(dst, src):
    """``dst[:] = src`` for a destination slice: a plain loop over ``range`` that LLVM turns
    into vector instructions. Indexing the whole row with ``o[offset + c]`` instead would keep
    the copies scalar (numba must allow a negative index there): ~0.3 µs more per row."""
    for c in range(dst.shape[0]):
        dst[c] = src[c]


@kernel
def encode_rows(out, rows, viewers, offsets, n, ints, flags, seat_ints, seat_cards, card_flags, history, call_slot):
    """Write into ``out[i]`` (zeroed here) the observation of seat ``viewers[i]`` at row
    ``rows[i]`` of the state's blocks, field by field as :func:`layout` describes them;
    ``offsets[F_X]`` is the offset of field ``x``, -1 where the table has no such field
    (``FrenchTarotEncoder.offsets``)."""
    C = seat_cards.shape[3]
    T = history.shape[2]
    # offsets as locals: read once, so that the inner copy loops can be vectorised
    o_hand, o_decision, o_dealer, o_bids = offsets[F_HAND], offsets[F_DECISION], offsets[F_DEALER], offsets[F_BIDS]
    o_taker, o_contract, o_called, o_partner = offsets[F_TAKER], offsets[F_CONTRACT], offsets[F_CALLED], offsets[F_PARTNER]
    o_alone, o_chien, o_ecart, o_chelem = offsets[F_ALONE], offsets[F_CHIEN], offsets[F_ECART], offsets[F_CHELEM]
    o_poignee, o_poignee_cards, o_played = offsets[F_POIGNEE], offsets[F_POIGNEE_CARDS], offsets[F_PLAYED]
    o_trick, o_leaders, o_winners = offsets[F_TRICK], offsets[F_LEADERS], offsets[F_WINNERS]
    for i in prange(rows.shape[0]):  # rows are independent: numba's threads share them (tarot_env._threads)
        b = rows[i]
        v = viewers[i]
        o = out[i]
        o[:] = 0  # here rather than np.zeros: the row is zeroed while it is in cache
        hand = seat_cards[b, S_HANDS, v]
        _copy(o[o_hand : o_hand + C], hand)
        ph = ints[b, I_PHASE]
        if ints[b, I_CURRENT] == v and ph != _DONE:
            o[o_decision + min(ph, _PLAY)] = 1
        o[o_dealer + _rel(ints[b, I_DEALER], v, n)] = 1
        tk = ints[b, I_TAKER]
        if tk >= 0:
            o[o_taker + _rel(tk, v, n)] = 1
        contract = ints[b, I_CONTRACT]
        if ph != _BID and contract > 0:  # the contract once the bidding is over
            o[o_contract + contract - 1] = 1
        if o_called >= 0:  # 5 players: the called card; the partner once the viewer knows him
            cc = ints[b, I_CALLED]
            if cc >= 0:
                o[o_called + call_slot[cc]] = 1
                knows = flags[b, FL_PARTNER_KNOWN] or hand[cc] or seat_cards[b, S_PLAYED, v, cc]
                if knows:
                    partner = ints[b, I_PARTNER]
                    if partner >= 0:
                        o[o_partner + _rel(partner, v, n)] = 1
                    else:
                        o[o_alone] = 1
        if flags[b, FL_CHIEN_SEEN]:
            _copy(o[o_chien : o_chien + C], card_flags[b, K_CHIEN])
        ecart = card_flags[b, K_ECART]
        if tk == v:
            _copy(o[o_ecart : o_ecart + C], ecart)
        else:  # the others see the écart's trumps only (the row is zero elsewhere)
            at = o_ecart + FIRST_TRUMP
            _copy(o[at : at + N_TRUMPS], ecart[FIRST_TRUMP : FIRST_TRUMP + N_TRUMPS])
        o[o_chelem] = flags[b, FL_CHELEM]
        for k in range(n):  # the relative seats: the viewer, then the next to play after him, ...
            seat = v + k
            if seat >= n:
                seat -= n
            bid = seat_ints[b, J_BIDS, seat]
            if bid >= 0:
                o[o_bids + 5 * k + bid] = 1
            pg = seat_ints[b, J_POIGNEE, seat]
            if pg > 0:  # a seat without a poignée has shown no card: its block stays zero
                o[o_poignee + 3 * k + pg - 1] = 1
                base = o_poignee_cards + C * k
                _copy(o[base : base + C], seat_cards[b, S_POIGNEE_CARDS, seat])
            base = o_played + C * k
            _copy(o[base : base + C], seat_cards[b, S_PLAYED, seat])
            card = seat_ints[b, J_TRICK, seat]
            if card >= 0:
                o[o_trick + C * k + card] = 1
        for t in range(T):
            leader = history[b, H_LEADERS, t]
            if leader < 0:
                break  # tricks are recorded in order: the rest are still to come
            o[o_leaders + n * t + _rel(leader, v, n)] = 1
            o[o_winners + n * t + _rel(history[b, H_WINNERS, t], v, n)] = 1


encode_rows_parallel = parallel_variant(encode_rows)


class FrenchTarotEncoder:
    """Builds observations for a :class:`FrenchTarotGame` (batch-first)."""

    def __init__(self, game: FrenchTarotGame) -> None:
        self.game = game
        self.n = game.num_players
        self.fields = {f.name: f for f in layout(self.n)}
        last = list(self.fields.values())[-1]
        self.size = last.offset + last.length
        self.oracle_fields = {f.name: f for f in oracle_layout(self.n)}
        self.oracle_size = sum(f.length for f in self.oracle_fields.values())
        self._seats = np.arange(self.n)
        #: the fields' offsets as encode_rows takes them: ``offsets[F_X]`` is field ``x``'s, -1 if absent
        self.offsets = np.array([self.fields[k].offset if k in self.fields else -1 for k in FIELDS], dtype=np.int64)

    def _rel(self, viewers: np.ndarray) -> np.ndarray:
        """(R, N): absolute seat of each relative slot."""
        return (viewers[:, None] + self._seats[None, :]) % self.n

    def encode(self, s: FrenchTarotState, rows: np.ndarray, viewers: np.ndarray, parallel: bool = False) -> np.ndarray:
        """(R, D) int8 observations of ``viewers`` (one seat per row of ``rows``): :func:`encode_rows`
        (``parallel``: its variant whose row loop runs on numba's threads, :mod:`tarot_env._threads`)."""
        out = np.empty((len(rows), self.size), dtype=np.int8)
        b = s.blocks
        run = encode_rows_parallel if parallel else encode_rows
        run(out, rows, viewers, self.offsets, self.n, b["ints"], b["flags"], b["seat_ints"], b["seat_cards"],
               b["card_flags"], b["history"], _CALL_SLOT)  # fmt: skip
        return out

    def encode_oracle(self, s: FrenchTarotState, rows: np.ndarray, viewers: np.ndarray) -> np.ndarray:
        """(R, D_oracle) int8: the hidden information, from each viewer's seat."""
        f, R = self.oracle_fields, len(rows)
        out = np.zeros((R, self.oracle_size), dtype=np.int8)
        seats = self._rel(viewers)
        o = f["hands"]
        out[:, o.offset : o.offset + o.length] = s.hands[rows[:, None], seats].reshape(R, -1)
        o = f["chien"]
        out[:, o.offset : o.offset + o.length] = s.chien[rows]
        o = f["ecart"]
        out[:, o.offset : o.offset + o.length] = s.ecart[rows]
        partner = s.partner[rows]
        valid = partner >= 0
        out[np.flatnonzero(valid), f["partner"].offset + ((partner - viewers) % self.n)[valid]] = 1
        return out


def layout_table(num_players: int, oracle: bool = False) -> str:
    """The layout as a Markdown table."""
    rows = ["| field | offset | length | meaning |", "|---|---|---|---|"]
    for fld in oracle_layout(num_players) if oracle else layout(num_players):
        rows.append(f"| `{fld.name}` | {fld.offset} | {fld.length} | {fld.meaning} |")
    return "\n".join(rows)


if __name__ == "__main__":
    for n in (3, 4, 5):
        size = sum(f.length for f in layout(n))
        print(f"### {n} players: observation of {size} int8\n\n{layout_table(n)}\n")
        osize = sum(f.length for f in oracle_layout(n))
        print(f"Oracle ({osize} int8):\n\n{layout_table(n, oracle=True)}\n")
