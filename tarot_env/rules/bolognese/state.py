"""The state of a batch of Tarocchino hands, and the codes the state machine uses.

One row per table. The state is five NumPy blocks, so that the compiled kernels of the
engine (:mod:`.engine` and its phase modules) take few arguments and every field has one home:

| block | shape | holds | its fields |
|---|---|---|---|
| ``ints`` | (B, NI) int64 | the table: phase, whose turn, dealer, trick in progress, auction, claim, result | :data:`INT_FIELDS` |
| ``seat_ints`` | (B, N, NS) int64 | each seat: first-turn stage, declaration values, tricks, running totals | :data:`SEAT_FIELDS` |
| ``cards`` | (B, NC, 62) int8 | each card: whose hand, whose pile, who played it and in which trick, where it is | :data:`CARD_FIELDS` |
| ``hist`` | (B, 20) int64 | the winner of each trick so far | — |
| ``legal`` | (B, A) bool | the legal actions of the player to act, kept up to date by each step | — |

Each block's fields are **one table** of :class:`Field` (name, initial value, meaning, width):
the column of a field is the sum of the widths before it (:data:`COLUMN`), its initial value
is what :meth:`TarocchinoState.new` writes, and :class:`TarocchinoState` has a view of it
under its name (``s.phase``, ``s.trick_cards``, ``s.hand_of``). Compiled code reads the column
as the module constant of the name in capitals (``ints[b, PHASE]``: numba freezes module
ints as constants); each constant is checked against the table when this module is imported,
so the two cannot drift. The one field wider than a column is ``trick_cards``, the cards of
the trick in progress in play order: the kernels take it as a slice of the row from its first
column, ``trick = ints[b, TRICK_CARDS : TRICK_CARDS + MAX_PLAYERS]``, and read ``trick[k]``.

Seats are absolute, in play order; :data:`NONE` (-1) stands for "no seat / no card / no suit".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from tarot_env.cards.bolognese import NUM_CARDS
from tarot_env.rules.bolognese.game_specs import GAMES
from tarot_env.rules.game import Codes

# ---------------------------------------------------------------------- codes
PH_AUCTION, PH_CLAIM, PH_DISCARD, PH_DECLARE, PH_PLAY, PH_GIVE, PH_PREPARE, PH_SCORE, PH_DONE = range(9)


class Phase(Codes):
    """Which decision a row waits for (the ``phase`` field). PREPARE and SCORE are handed to
    NumPy code (:class:`.game.TarocchinoGame`) and never seen by an agent."""

    AUCTION = PH_AUCTION  # Terziglio: passo, posso, faccio di mio; answers va bene / no, faccio di mio
    CLAIM = PH_CLAIM  # a claim window (Chiamarsi Fuori, §8.4)
    DISCARD = PH_DISCARD  # a discard, one card per action
    DECLARE = PH_DECLARE  # declare the combinations in hand at one's first turn (§7)
    PLAY = PH_PLAY
    GIVE = PH_GIVE  # the Matto exchange, when it is the player's choice (U20)
    PREPARE = PH_PREPARE
    SCORE = PH_SCORE
    DONE = PH_DONE


RS_ONGOING, RS_PLAYED, RS_CLAIMED, RS_WRONG_CLAIM, RS_THROWN_IN = range(5)


class Result(Codes):
    """How a hand ended (the ``result`` field)."""

    ONGOING = RS_ONGOING
    PLAYED = RS_PLAYED  # played out and counted
    CLAIMED = RS_CLAIMED  # a correct claim ended the game
    WRONG_CLAIM = RS_WRONG_CLAIM  # a claim below the target (wrong_claim="loses")
    THROWN_IN = RS_THROWN_IN  # Terziglio: all three passed


# where a card is (the ``place`` card field)
PL_HAND, PL_EXTRA, PL_SECOND, PL_POZZO, PL_OUT, PL_DISCARD, PL_TABLE, PL_PILE = range(8)
#: PL_HAND in a hand; PL_EXTRA the dealer's last 2 cards, not yet picked up (§8.4.1); PL_SECOND
#: dealt face down for Millone's second deal (§11.5); PL_POZZO Terziglio's 8 cards (§10.2), which
#: keep this place when a "di mio" Pozzo goes to a pile (U25); PL_OUT out of play; PL_DISCARD
#: discarded (in the discarder's pile); PL_TABLE in the trick in progress; PL_PILE in a pile

# the claim windows (the ``window`` field, docs/rules/tarocchino.md §8.4, §11.3, U21, U29)
W_PICKUP, W_AFTER_PICKUP, W_FIRST_TURN = range(3)


class Window(Codes):
    """Which claim window is open: the dealer's before he picks up his last 2 cards (§8.4.1),
    the opponent's right after that pickup (§11.3, U21's alternative), a player's first turn."""

    PICKUP = W_PICKUP
    AFTER_PICKUP = W_AFTER_PICKUP
    FIRST_TURN = W_FIRST_TURN


# a player's first turn in the play (the ``stage`` seat field): his claim window, then his declaration
ST_CLAIM, ST_DECLARE, ST_DONE = range(3)


class Stage(Codes):
    """What of his first turn (§7, §8.4) a seat has still to do before his first card."""

    CLAIM = ST_CLAIM  # the claim window comes first
    DECLARE = ST_DECLARE  # then the declaration
    DONE = ST_DONE  # he has played his first turn


# the sides (the O_SIDES option column, from GameSpec.sides): partners seat % 2, the soloist
# against the others, each player for himself
SD_PARTNERS, SD_SOLOIST, SD_EACH = range(3)
SIDES_CODES = {"partners": SD_PARTNERS, "soloist": SD_SOLOIST, "each": SD_EACH}
# who makes a hand's discards (the O_DISCARDER option column, from GameSpec.discarder)
DS_DEALER, DS_SOLOIST = range(2)
DISCARDER_CODES = {"dealer": DS_DEALER, "soloist": DS_SOLOIST}

# ---------------------------------------------------------------------- sentinels
#: no seat, no card, no suit (yet): seats, card ids and suits are >= 0
NONE = -1
#: ``matto_seat`` once the Matto exchange is made (§4.5): the hand owes no more exchange. Before,
#: ``matto_seat`` is the seat that played the Matto, or NONE (not played, or nothing to exchange:
#: U4's alternative lost it, or its side won no trick and gave the Matto itself)
MATTO_EXCHANGED = -2

# ---------------------------------------------------------------------- sizes
#: the most players at a table (Mattazza, §14): the most cards a trick holds
MAX_PLAYERS = max(max(spec.players) for spec in GAMES.values())
#: the most tricks in a hand (Millone, §11.5): the length of ``hist``
MAX_TRICKS = max(spec.tricks for spec in GAMES.values())

# ---------------------------------------------------------------------- actions (docs/interface.md §3)
AB_PLAY = 0  # play <card>: 0..61
AB_DISCARD = NUM_CARDS  # discard <card>: 62..123
AB_GIVE = 2 * NUM_CARDS  # give <card>: 124..185
A_DECLARE, A_NO_DECLARE, A_CLAIM, A_NO_CLAIM, A_PASS, A_POSSO, A_DI_MIO, A_VA_BENE, A_OPPOSE = range(3 * NUM_CARDS, 3 * NUM_CARDS + 9)
NUM_ACTIONS = 3 * NUM_CARDS + 9
#: the words of the actions that are not card actions, by id
WORDS = {
    A_DECLARE: "declare",
    A_NO_DECLARE: "no_declare",
    A_CLAIM: "claim",
    A_NO_CLAIM: "no_claim",
    A_PASS: "pass",
    A_POSSO: "posso",
    A_DI_MIO: "di_mio",
    A_VA_BENE: "va_bene",
    A_OPPOSE: "oppose",
}
CARD_VERBS = (("play", AB_PLAY), ("discard", AB_DISCARD), ("give", AB_GIVE))


# ---------------------------------------------------------------------- the fields
class Field(NamedTuple):
    """A field of a block: its name (its view on the state, its column constant in capitals),
    the value :meth:`TarocchinoState.new` gives it, what it holds, and how many columns it takes."""

    name: str
    initial: int
    meaning: str
    width: int = 1


#: the ``ints`` block: one row per table
INT_FIELDS = (
    Field("phase", PH_DONE, "which decision the row waits for (Phase)"),
    Field("current", 0, "the seat to act"),
    Field("dealer", 0, "the dealer's seat"),
    Field("primo", NONE, "the Primo di Mano, who leads the first trick (set when the play starts)"),
    Field("trick_no", 0, "tricks completed"),
    Field("trick_size", 0, "cards in the trick in progress"),
    Field("leader", 0, "who led the trick in progress"),
    Field("lead_suit", NONE, "the suit the trick follows (the Carta Dominante; after a led Matto, the next card's, U2)"),
    Field("best_seat", NONE, "who wins the trick in progress so far"),
    Field("best_str", NONE, "the strength of the card that wins it (cards/bolognese.py)"),
    Field("matto_seat", NONE, "who played the Matto while an exchange may be due; NONE, or MATTO_EXCHANGED"),
    Field("matto_trick", NONE, "the trick the Matto was played to"),
    Field("matto_winner", NONE, "the winner of the Matto's trick, who receives the exchange's card"),
    Field("discarder", NONE, "who discards now"),
    Field("discards_left", 0, "the cards he has still to discard"),
    Field("discard_stage", 0, "the discard turns done (discards.py)"),
    Field("soloist", NONE, "Terziglio's soloist"),
    Field("contract", 0, "Terziglio's contract: scoring.NO_CONTRACT, SU or DI_MIO"),
    Field("speaker", 0, "the auction: who speaks next, while nobody has bid"),
    Field("passes", 0, "the auction: passes so far"),
    Field("bidder", NONE, "the auction: who said posso, waiting for the answers"),
    Field("answers", 0, "the auction: va bene answers so far"),
    Field("window", 0, "the open claim window (Window)"),
    Field("claim_seat", NONE, "who claimed"),
    Field("claim_value", NONE, "the value the open window's claim calls"),
    Field("claim_ok", 0, "1 when that value reaches the target"),
    Field("game_winner", NONE, "the side that won the game (a claim, or the match's end; settlement.DRAW)"),
    Field("last_winner", NONE, "the winner of the last trick"),
    Field("hand_no", 0, "the hand of the match, from 0"),
    Field("result", RS_ONGOING, "how the hand ended (Result)"),
    Field("pickup_decl", 0, "the dealer's declaration over his first cards, for his pickup window"),
    Field("n_active", 0, "the players in the hand (Mattazza drops players)"),
    Field("match_over", 0, "1 once the match is over"),
    Field("hands_played", 0, "the hands of the match that counted (not thrown in)"),
    Field("best_card", NONE, "the card that wins the trick in progress so far"),
    Field("trick_cards", 0, "the cards of the trick in progress, in play order (trick_size of them)", MAX_PLAYERS),
)
#: the ``seat_ints`` block: one row per seat
SEAT_FIELDS = (
    Field("stage", ST_CLAIM, "what of his first turn is still to come (Stage)"),
    Field("decl", 0, "the value of the combinations he may declare (§7), set when hands are final"),
    Field("claim_decl", 0, "the declaration value a claim of his may use (Millone: first-deal cards, §11.6)"),
    Field("declared", 0, "the value he declared"),
    Field("tricks", 0, "tricks won in this hand"),
    Field("total", 0, "the match's running total (Quindici: rounded points)"),
    Field("raw_total", 0, "Quindici: the running total in raw points (U24)"),
    Field("penalty", 0, "Mattazza: penalty points"),
    Field("active", 1, "1 while he is in the match (Mattazza drops players)"),
    Field("score", 0, "his score for the last finished hand"),
)
#: the ``cards`` block: one row per card field, one column per card
CARD_FIELDS = (
    Field("hand_of", NONE, "the seat whose hand holds the card (place PL_HAND or PL_EXTRA)"),
    Field("pile_of", NONE, "the seat whose pile holds it (won, discarded, the Matto kept, a Pozzo)"),
    Field("played_by", NONE, "who played it"),
    Field("trick_of", NONE, "the trick it was played to"),
    Field("place", PL_OUT, "where it is (PL_*)"),
    Field("shown", 0, "1 when a declaration showed it to the table (§7)"),
    Field("combo", 0, "1 when it is part of the combinations its holder may declare"),
    Field("first", 0, "1 when it came in the first deal (Millone, §11.6)"),
    Field("dealt_to", NONE, "the seat it was dealt to"),
)
BLOCK_FIELDS = {"ints": INT_FIELDS, "seat_ints": SEAT_FIELDS, "cards": CARD_FIELDS}


def _columns(fields: tuple[Field, ...]) -> dict[str, int]:
    """The first column of each field: the widths of the fields before it."""
    out, k = {}, 0
    for f in fields:
        out[f.name] = k
        k += f.width
    return out


#: the column of each field in its block (the names are unique across the blocks)
COLUMN = {name: k for fields in BLOCK_FIELDS.values() for name, k in _columns(fields).items()}
#: the columns of each block
WIDTH = {block: sum(f.width for f in fields) for block, fields in BLOCK_FIELDS.items()}


def _at(*names: str) -> tuple[int, ...]:
    return tuple(COLUMN[name] for name in names)


# The columns as module constants (compiled code reads them as constants): NAME is the column of
# the field "name". Checked against COLUMN below.
PHASE, CURRENT, DEALER, PRIMO, TRICK_NO, TRICK_SIZE = _at("phase", "current", "dealer", "primo", "trick_no", "trick_size")
LEADER, LEAD_SUIT, BEST_SEAT, BEST_STR, BEST_CARD = _at("leader", "lead_suit", "best_seat", "best_str", "best_card")
TRICK_CARDS = COLUMN["trick_cards"]  # the first of MAX_PLAYERS columns
MATTO_SEAT, MATTO_TRICK, MATTO_WINNER = _at("matto_seat", "matto_trick", "matto_winner")
DISCARDER, DISCARDS_LEFT, DISCARD_STAGE = _at("discarder", "discards_left", "discard_stage")
SOLOIST, CONTRACT, SPEAKER, PASSES, BIDDER, ANSWERS = _at("soloist", "contract", "speaker", "passes", "bidder", "answers")
WINDOW, CLAIM_SEAT, CLAIM_VALUE, CLAIM_OK, PICKUP_DECL = _at("window", "claim_seat", "claim_value", "claim_ok", "pickup_decl")
GAME_WINNER, LAST_WINNER, HAND_NO, RESULT = _at("game_winner", "last_winner", "hand_no", "result")
N_ACTIVE, MATCH_OVER, HANDS_PLAYED = _at("n_active", "match_over", "hands_played")
STAGE, DECL, CLAIM_DECL, DECLARED, TRICKS = _at("stage", "decl", "claim_decl", "declared", "tricks")
TOTAL, RAW_TOTAL, PENALTY, ACTIVE, SCORE = _at("total", "raw_total", "penalty", "active", "score")
HAND_OF, PILE_OF, PLAYED_BY, TRICK_OF, PLACE = _at("hand_of", "pile_of", "played_by", "trick_of", "place")
SHOWN, COMBO, FIRST, DEALT_TO = _at("shown", "combo", "first", "dealt_to")

# ---------------------------------------------------------------------- kernel options (opts)
#: The compiled kernels never ask which game they play: the game's row (games.GameSpec) and its
#: rules options arrive as the columns of ``opts`` (TarocchinoConfig.kernel_options), one per
#: entry here, O_<NAME> its column. (name, what it holds)
OPTION_FIELDS = (
    ("n", "the players at the table"),
    ("tricks", "the tricks in a hand"),
    ("target", "the game's target (0: none)"),
    ("claims", "1 when the game has claim windows (§8.4)"),
    ("wrong_loses", "1: a claim below the target is offered, and loses (wrong_claim)"),
    ("dealer_again", "U8's default: the dealer has a first-turn window too"),
    ("partner_needs_own", "U23's alternative: the Primo's partner claims only with a declaration of his own"),
    ("declarations", "1 when the players declare (§7)"),
    ("must_overtrump", "U1's alternative"),
    ("matto_lead", "U2's default: the Matto may be led"),
    ("gift_any", "U3's alternative: any card is given for the Matto"),
    ("matto_last_lost", "U4's alternative: a Matto played to the last trick is lost"),
    ("matto_is_trump", "U19's alternative: the Matto counts as a trump for the duty to trump"),
    ("exchange_choose", "U20's alternative: the owner chooses the Matto's card (give)"),
    ("first_lead_soloist", "U13's alternative: the soloist leads first"),
    ("opp_claim_early", "U21's alternative: the opponent's window right after the pickup, not at his first turn"),
    ("dealer_discards_first", "U22's alternative: the dealer makes the first discards first"),
    ("claim_raw_sum", "U24's alternative: Quindici claims round the raw sum"),
    ("sides", "who plays with whom (SD_*, GameSpec.sides)"),
    ("auction", "1: Terziglio's auction (§10.3)"),
    ("opp_after_pickup", "1: the opponent's window right after the dealer's pickup (§11.3, U21)"),
    ("primo_partner_adds", "1: §8.4 step 4, the Primo's partner adds the Primo's declaration"),
    ("rounded", "1: Quindici's rounded points (U15, U24)"),
    ("first_discards", "the cards each player discards before a second deal (Millone §11.4)"),
    ("second_deal", "1: Millone's second deal (§11.5)"),
    ("discards", "the cards of the hand's discard (§5.3, §10.3, §11.5, §12.2)"),
    ("discarder", "who makes it (DS_*, GameSpec.discarder)"),
    ("mori", "U5: where a Moro counts (combinations.MORI_CODE)"),
    ("declared_doubled", "U6: 1 when declarations double like the end-of-hand count (the option doubling)"),
)
OPTION_NAMES = tuple(f"O_{name.upper()}" for name, _ in OPTION_FIELDS)
(
    O_N, O_TRICKS, O_TARGET, O_CLAIMS, O_WRONG_LOSES, O_DEALER_AGAIN, O_PARTNER_NEEDS_OWN,
    O_DECLARATIONS, O_MUST_OVERTRUMP, O_MATTO_LEAD, O_GIFT_ANY, O_MATTO_LAST_LOST, O_MATTO_IS_TRUMP,
    O_EXCHANGE_CHOOSE, O_FIRST_LEAD_SOLOIST, O_OPP_CLAIM_EARLY, O_DEALER_DISCARDS_FIRST, O_CLAIM_RAW_SUM,
    O_SIDES, O_AUCTION, O_OPP_AFTER_PICKUP, O_PRIMO_PARTNER_ADDS, O_ROUNDED, O_FIRST_DISCARDS,
    O_SECOND_DEAL, O_DISCARDS, O_DISCARDER, O_MORI, O_DECLARED_DOUBLED,
) = range(len(OPTION_NAMES))  # fmt: skip


def _check_constants() -> None:
    """Every field and option has its constant, and each constant is its column (so a table
    and the names made from it cannot drift apart)."""
    names = {name.upper(): k for name, k in COLUMN.items()}
    names.update({name: k for k, name in enumerate(OPTION_NAMES)})
    wrong = [name for name, k in names.items() if globals().get(name) != k]
    if wrong:
        raise ImportError(f"state.py: the constants {wrong} are not the columns of their fields")


_check_constants()


# ---------------------------------------------------------------------- the state
def _view(block: str, name: str, column: int, width: int, meaning: str) -> property:
    """The field ``name`` of ``block`` as a NumPy view: ``(B,)`` (an ``ints`` field), ``(B, width)``
    (``trick_cards``), ``(B, N)`` (a seat field) or ``(B, 62)`` (a card field). Write into it
    (``s.dealer[rows] = ...``); rebinding it (``s.dealer = ...``) is refused. A property whose
    index is made once: ``s.phase`` is read at every step of an env."""
    at = slice(column, column + width) if width > 1 else column
    index = (slice(None), slice(None), at) if block == "seat_ints" else (slice(None), at)
    getters = {
        "ints": lambda state: state.ints[index],
        "seat_ints": lambda state: state.seat_ints[index],
        "cards": lambda state: state.cards[index],
    }

    def refuse(state: Any, value: Any) -> None:
        raise AttributeError(f"{name} is a view of the {block} block: write into it (s.{name}[rows] = ...)")

    return property(getters[block], refuse, doc=meaning)


@dataclass
class TarocchinoState:
    """A batch of tables: the five blocks (see the module docstring).

    Every field of :data:`INT_FIELDS`, :data:`SEAT_FIELDS` and :data:`CARD_FIELDS` is also an
    attribute, a view into its block under the field's name: ``s.phase`` (B,), ``s.trick_cards``
    (B, MAX_PLAYERS), ``s.total`` (B, N), ``s.hand_of`` (B, 62)... Only the blocks are data,
    so copies, deep copies and pickles need nothing special.
    """

    ints: np.ndarray
    seat_ints: np.ndarray
    cards: np.ndarray
    hist: np.ndarray
    legal: np.ndarray

    @classmethod
    def new(cls, batch: int, num_players: int) -> TarocchinoState:
        """``batch`` rows with nothing dealt (phase DONE), each field at its initial value."""
        ints = np.tile(np.repeat([f.initial for f in INT_FIELDS], [f.width for f in INT_FIELDS]), (batch, 1)).astype(np.int64)
        seat = np.array([f.initial for f in SEAT_FIELDS], dtype=np.int64)
        seat_ints = np.tile(seat, (batch, num_players, 1))
        card = np.array([f.initial for f in CARD_FIELDS], dtype=np.int8)  # small values: seats, trick numbers, codes
        cards = np.tile(card[:, None], (batch, 1, NUM_CARDS))
        hist = np.full((batch, MAX_TRICKS), NONE, dtype=np.int64)
        legal = np.zeros((batch, NUM_ACTIONS), dtype=bool)
        return cls(ints, seat_ints, cards, hist, legal)

    def trick_leader(self, row: int, t: int) -> int:
        """The seat that led trick ``t`` (0-based) of ``row``: the Primo (the hand's first leader)
        for the first trick, else the winner of the trick before (§4.2)."""
        return int(self.ints[row, PRIMO]) if t == 0 else int(self.hist[row, t - 1])

    @property
    def blocks(self) -> dict[str, np.ndarray]:
        """The five blocks by name, in the order the kernels take them (as every game's state holds
        them, :class:`tarot_env.rules.game.GameState`)."""
        return {"ints": self.ints, "seat_ints": self.seat_ints, "cards": self.cards, "hist": self.hist, "legal": self.legal}

    @classmethod
    def _from_blocks(cls, blocks: dict[str, np.ndarray]) -> TarocchinoState:
        """The state of these blocks (not copied)."""
        return cls(**blocks)

    @property
    def batch_size(self) -> int:
        return self.ints.shape[0]

    def copy(self) -> TarocchinoState:
        return TarocchinoState(*(x.copy() for x in self.blocks.values()))

    # the names readers used before the fields had views of their own
    @property
    def scores(self) -> np.ndarray:
        """(B, N) the last finished hand's scores by seat (the ``score`` field; see the game's documentation)."""
        return self.seat_ints[:, :, SCORE]

    @property
    def totals(self) -> np.ndarray:
        """(B, N) the match's running totals (the ``total`` field)."""
        return self.seat_ints[:, :, TOTAL]

    def hand(self, row: int, seat: int) -> np.ndarray:
        """The card ids in ``seat``'s hand (the dealer's last 2 cards not yet picked up excluded)."""
        c = self.cards[row]
        return np.flatnonzero((c[HAND_OF] == seat) & (c[PLACE] == PL_HAND))

    def pile(self, row: int, seat: int) -> np.ndarray:
        """The card ids in ``seat``'s pile (won tricks, discards, the Matto he covered, and a
        Terziglio "di mio" Pozzo taken with the last trick, U25, whose place stays PL_POZZO)."""
        return np.flatnonzero(self.cards[row, PILE_OF] == seat)


for _block, _fields in BLOCK_FIELDS.items():
    for _f in _fields:
        setattr(TarocchinoState, _f.name, _view(_block, _f.name, COLUMN[_f.name], _f.width, _f.meaning))
del _block, _fields, _f
