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
from tarot_env.rules.french.game import FrenchTarotGame
from tarot_env.rules.french.state import FrenchTarotState, Phase

DECISIONS = ("bid", "call", "discard", "chelem", "poignee", "show", "play")
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

    def _rel(self, viewers: np.ndarray) -> np.ndarray:
        """(R, N): absolute seat of each relative slot."""
        return (viewers[:, None] + self._seats[None, :]) % self.n

    def encode(self, s: FrenchTarotState, rows: np.ndarray, viewers: np.ndarray) -> np.ndarray:
        """(R, D) int8 observations of ``viewers`` (one seat per row of ``rows``)."""
        n, f = self.n, self.fields
        R = len(rows)
        out = np.zeros((R, self.size), dtype=np.int8)
        r = np.arange(R)
        seats = self._rel(viewers)
        rs = rows[:, None]

        def put(name: str, block: np.ndarray) -> None:
            o = f[name]
            out[:, o.offset : o.offset + o.length] = block.reshape(R, -1)

        def onehot(name: str, idx: np.ndarray, valid: np.ndarray, stride: int = 0) -> None:
            """Set ``offset + idx`` (and ``+ k * stride`` per column k of a 2-D ``idx``)."""
            o = f[name].offset
            if idx.ndim == 1:
                out[r[valid], o + idx[valid]] = 1
            else:
                k = np.broadcast_to(np.arange(idx.shape[1]), idx.shape)
                rr = np.broadcast_to(r[:, None], idx.shape)
                out[rr[valid], o + k[valid] * stride + idx[valid]] = 1

        put("hand", s.hands[rows, viewers])
        phase = s.phase[rows]
        to_act = (s.current[rows] == viewers) & (phase != Phase.DONE)
        onehot("decision", np.minimum(phase, Phase.PLAY), to_act)
        onehot("dealer", (s.dealer[rows] - viewers) % n, np.ones(R, bool))
        bids = s.bids[rs, seats]
        onehot("bids", bids, bids >= 0, stride=5)
        taker = s.taker[rows]
        has_taker = taker >= 0
        onehot("taker", (taker - viewers) % n, has_taker)
        contract = s.contract[rows]
        bidding_over = phase != Phase.BID
        onehot("contract", contract - 1, (contract > 0) & bidding_over)
        if n == 5:
            called = s.called[rows]
            onehot("called", _CALL_SLOT[called], called >= 0)
            partner = s.partner[rows]
            holds = s.hands[rows, viewers, called] | s.played[rows, viewers, called]
            knows = s.partner_known[rows] | (holds & (called >= 0))
            onehot("partner", (partner - viewers) % n, knows & (partner >= 0))
            out[:, f["alone"].offset] = knows & (partner < 0) & (called >= 0)
        put("chien", s.chien[rows] & s.chien_seen[rows, None])
        is_taker = taker == viewers
        put("ecart", s.ecart[rows] & (IS_TRUMP[None, :] | is_taker[:, None]))
        out[:, f["chelem"].offset] = s.chelem[rows]
        poignee = s.poignee[rs, seats]
        onehot("poignee", poignee - 1, poignee > 0, stride=3)
        put("poignee_cards", s.poignee_cards[rs, seats])
        put("played", s.played[rs, seats])
        trick = s.trick[rs, seats]
        onehot("trick", trick, trick >= 0, stride=NUM_CARDS)
        leaders = s.leaders[rows]
        onehot("leaders", (leaders - viewers[:, None]) % n, leaders >= 0, stride=n)
        winners = s.winners[rows]
        onehot("winners", (winners - viewers[:, None]) % n, winners >= 0, stride=n)
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
