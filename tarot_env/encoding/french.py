"""Observations of French Tarot: one player's information state as a flat int8 vector.

Seats are *relative* to the observer: slot 0 is the observer, slot 1 the next player to act
after him, and so on. The layout is :func:`layout` (name, offset, length, meaning); the
table in ``docs/french_tarot.md`` and the env docstring are printed from it
(``python -m tarot_env.encoding.french``).

Hidden information (other hands, the chien of a garde sans/contre, the écart's non-trump
cards, the secret partner) reaches nothing here but :func:`encode_oracle`, the separately
named observation for centralised critics.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tarot_env.cards.french import CALLABLE, IS_TRUMP, NUM_CARDS
from tarot_env.encoding._french_kernel import encode_kernel, offsets_array
from tarot_env.rules.french.game import FrenchTarotGame
from tarot_env.rules.french.state import FrenchTarotState, Phase

DECISIONS = ("bid", "call", "discard", "chelem", "poignee", "show", "play")
_DONE, _BID = Phase.DONE, Phase.BID
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
        self._slices = {f.name: slice(f.offset, f.offset + f.length) for f in layout(self.n)}
        self._aranges = {w: np.arange(w) for w in (3, 5, self.n, NUM_CARDS)}
        self._offsets = offsets_array(self.fields)
        self.use_jit = encode_kernel is not None

    def _rel(self, viewers: np.ndarray) -> np.ndarray:
        """(R, N): absolute seat of each relative slot."""
        return (viewers[:, None] + self._seats[None, :]) % self.n

    def encode(self, s: FrenchTarotState, rows: np.ndarray, viewers: np.ndarray) -> np.ndarray:
        """(R, D) int8 observations of ``viewers`` (one seat per row of ``rows``).

        Uses the compiled kernel when numba is available (``tarot_env._jit``), else
        :meth:`encode_numpy`; both give the same values.
        """
        if self.use_jit:
            out = np.empty((len(rows), self.size), dtype=np.int8)
            b = s.blocks
            encode_kernel(out, rows, viewers, self._offsets, self.n, b["ints"], b["flags"], b["seat_ints"], b["seat_cards"],
                          b["card_flags"], b["history"], IS_TRUMP, _CALL_SLOT)  # fmt: skip
            return out
        return self.encode_numpy(s, rows, viewers)

    def encode_numpy(self, s: FrenchTarotState, rows: np.ndarray, viewers: np.ndarray) -> np.ndarray:
        """The reference NumPy encoder: (R, D) int8 observations of ``viewers``.

        Written for speed at batch size 1 as much as for large batches: every field is one
        or two whole-array operations. One-hot fields with no value write to a scratch
        column past the end, which is dropped.
        """
        n, f, R = self.n, self._slices, len(rows)
        out = np.zeros((R, self.size + 1), dtype=np.int8)
        r = np.arange(R)
        seats = self._rel(viewers)
        rs = rows[:, None]
        scratch = self.size

        def onehot(name: str, idx: np.ndarray, valid: np.ndarray) -> None:
            out[r, np.where(valid, f[name].start + idx, scratch)] = 1

        def onehots(name: str, idx: np.ndarray, width: int) -> None:
            """Row-wise one-hot blocks of ``width`` for a 2-D ``idx`` (-1 = none)."""
            out[:, f[name]] = (idx[:, :, None] == self._aranges[width]).reshape(R, -1)

        out[:, f["hand"]] = s.hands[rows, viewers]
        phase = s.phase[rows]
        onehot("decision", phase, (s.current[rows] == viewers) & (phase != _DONE))
        onehot("dealer", (s.dealer[rows] - viewers) % n, True)
        onehots("bids", s.bids[rs, seats], 5)
        taker = s.taker[rows]
        onehot("taker", (taker - viewers) % n, taker >= 0)
        contract = s.contract[rows]
        onehot("contract", contract - 1, (phase != _BID) & (contract > 0))
        if n == 5:
            called = s.called[rows]
            onehot("called", _CALL_SLOT[called], called >= 0)
            partner = s.partner[rows]
            holds = s.hands[rows, viewers, called] | s.played[rows, viewers, called]
            knows = s.partner_known[rows] | (holds & (called >= 0))
            onehot("partner", (partner - viewers) % n, knows & (partner >= 0))
            out[:, f["alone"]] = (knows & (partner < 0) & (called >= 0))[:, None]
        out[:, f["chien"]] = s.chien[rows] & s.chien_seen[rows, None]
        out[:, f["ecart"]] = s.ecart[rows] & (IS_TRUMP[None, :] | (taker == viewers)[:, None])
        out[:, f["chelem"]] = s.chelem[rows, None]
        onehots("poignee", s.poignee[rs, seats] - 1, 3)
        out[:, f["poignee_cards"]] = s.poignee_cards[rs, seats].reshape(R, -1)
        out[:, f["played"]] = s.played[rs, seats].reshape(R, -1)
        onehots("trick", s.trick[rs, seats], NUM_CARDS)
        history = np.where(s.leaders[rows] >= 0, (s.leaders[rows] - viewers[:, None]) % n, -1)
        onehots("leaders", history, n)
        history = np.where(s.winners[rows] >= 0, (s.winners[rows] - viewers[:, None]) % n, -1)
        onehots("winners", history, n)
        return out[:, :scratch]

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
