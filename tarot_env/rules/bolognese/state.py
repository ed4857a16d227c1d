"""The state of a batch of Tarocchino hands, and the codes the state machine uses.

One row per table. The state is five NumPy blocks, so that the compiled kernels of
:mod:`.engine` take few arguments and every field has one home:

| block | shape | holds |
|---|---|---|
| ``ints`` | (B, NI) int64 | the table: phase, whose turn, dealer, trick in progress, auction, claim, result |
| ``seat_ints`` | (B, N, NS) int64 | each seat: first-turn stage, declaration values, tricks, running totals |
| ``cards`` | (B, NC, 62) int64 | each card: whose hand, whose pile, who played it and in which trick, where it is |
| ``hist`` | (B, 20) int64 | the winner of each trick so far |
| ``legal`` | (B, A) bool | the legal actions of the player to act, kept up to date by each step |

The column names below are module constants (plain ints, which compiled code reads as
constants); :data:`INT_COLUMNS` etc. list them in order. Seats are absolute, in play order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tarot_env.cards.bolognese import NUM_CARDS


# ---------------------------------------------------------------------- codes
class _Codes:
    """Named integer codes; ``name(code)`` for messages and infos."""

    @classmethod
    def name(cls, code: int) -> str:
        for key, value in vars(cls).items():
            if key.isupper() and value == code:
                return key.lower()
        raise ValueError(f"{code} is not a {cls.__name__} code")


PH_AUCTION, PH_CLAIM, PH_DISCARD, PH_DECLARE, PH_PLAY, PH_GIVE, PH_PREPARE, PH_SCORE, PH_DONE = range(9)


class Phase(_Codes):
    """Which decision a row waits for. PREPARE and SCORE are handed to NumPy code
    (:class:`.game.TarocchinoGame`) and never seen by an agent."""

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


class Result(_Codes):
    """How a hand ended."""

    ONGOING = RS_ONGOING
    PLAYED = RS_PLAYED  # played out and counted
    CLAIMED = RS_CLAIMED  # a correct claim ended the game
    WRONG_CLAIM = RS_WRONG_CLAIM  # a claim below the target (wrong_claim="loses")
    THROWN_IN = RS_THROWN_IN  # Terziglio: all three passed


# where a card is (the PLACE row)
PL_HAND, PL_EXTRA, PL_SECOND, PL_POZZO, PL_OUT, PL_DISCARD, PL_TABLE, PL_PILE = range(8)

# the sides (the O_SIDES option column, from GameSpec.sides): partners seat % 2, the soloist
# against the others, each player for himself
SD_PARTNERS, SD_SOLOIST, SD_EACH = range(3)
SIDES_CODES = {"partners": SD_PARTNERS, "soloist": SD_SOLOIST, "each": SD_EACH}
# who makes a hand's discards (the O_DISCARDER option column, from GameSpec.discarder)
DS_DEALER, DS_SOLOIST = range(2)
DISCARDER_CODES = {"dealer": DS_DEALER, "soloist": DS_SOLOIST}

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

# ---------------------------------------------------------------------- columns
INT_COLUMNS = (
    "PHASE", "CURRENT", "DEALER", "PRIMO", "TRICK_NO", "TRICK_SIZE", "LEADER", "LEAD_SUIT", "BEST_SEAT",
    "BEST_STR", "MATTO_SEAT", "MATTO_TRICK", "MATTO_WINNER", "DISCARDER", "DISCARDS_LEFT", "DISCARD_STAGE",
    "SOLOIST", "CONTRACT", "SPEAKER", "PASSES", "BIDDER", "ANSWERS", "WINDOW", "CLAIM_SEAT", "CLAIM_VALUE",
    "CLAIM_OK", "GAME_WINNER", "LAST_WINNER", "HAND_NO", "RESULT", "PICKUP_DECL", "N_ACTIVE", "MATCH_OVER",
    "HANDS_PLAYED", "BEST_CARD", "TC0", "TC1", "TC2", "TC3", "TC4", "TC5",
)  # fmt: skip
(
    PHASE, CURRENT, DEALER, PRIMO, TRICK_NO, TRICK_SIZE, LEADER, LEAD_SUIT, BEST_SEAT,
    BEST_STR, MATTO_SEAT, MATTO_TRICK, MATTO_WINNER, DISCARDER, DISCARDS_LEFT, DISCARD_STAGE,
    SOLOIST, CONTRACT, SPEAKER, PASSES, BIDDER, ANSWERS, WINDOW, CLAIM_SEAT, CLAIM_VALUE,
    CLAIM_OK, GAME_WINNER, LAST_WINNER, HAND_NO, RESULT, PICKUP_DECL, N_ACTIVE, MATCH_OVER,
    HANDS_PLAYED, BEST_CARD, TC0, TC1, TC2, TC3, TC4, TC5,
) = range(len(INT_COLUMNS))  # fmt: skip
#: BEST_CARD: the card winning the trick in progress; TC0..TC5: the trick's cards in play order
#: initial values where not 0
INT_INITIAL = {
    "PHASE": PH_DONE, "PRIMO": -1, "LEAD_SUIT": -1, "BEST_SEAT": -1, "BEST_STR": -1, "MATTO_SEAT": -1,
    "MATTO_TRICK": -1, "MATTO_WINNER": -1, "DISCARDER": -1, "SOLOIST": -1, "BIDDER": -1, "CLAIM_SEAT": -1,
    "CLAIM_VALUE": -1, "GAME_WINNER": -1, "LAST_WINNER": -1, "BEST_CARD": -1,
}  # fmt: skip

SEAT_COLUMNS = ("STAGE", "DECL", "CLAIM_DECL", "DECLARED", "TRICKS", "TOTAL", "RAW_TOTAL", "PENALTY", "ACTIVE", "SCORE")
STAGE, DECL, CLAIM_DECL, DECLARED, TRICKS, TOTAL, RAW_TOTAL, PENALTY, ACTIVE, SCORE = range(len(SEAT_COLUMNS))

CARD_ROWS = ("HAND_OF", "PILE_OF", "PLAYED_BY", "TRICK_OF", "PLACE", "SHOWN", "COMBO", "FIRST", "DEALT_TO")
HAND_OF, PILE_OF, PLAYED_BY, TRICK_OF, PLACE, SHOWN, COMBO, FIRST, DEALT_TO = range(len(CARD_ROWS))
#: initial values of the card rows (seats: -1 for none)
CARD_INITIAL = {"HAND_OF": -1, "PILE_OF": -1, "PLAYED_BY": -1, "TRICK_OF": -1, "PLACE": PL_OUT, "DEALT_TO": -1}

MAX_TRICKS = 20

# ---------------------------------------------------------------------- kernel options (opts)
# The compiled kernels never ask which game they play: the game's row (games.GameSpec) and its
# rules options arrive as these columns (TarocchinoConfig.kernel_options). The game's facts:
#   O_N players, O_TRICKS tricks in a hand, O_SIDES (SD_*), O_AUCTION Terziglio's auction,
#   O_CLAIMS claim windows, O_OPP_AFTER_PICKUP the opponent's window after the dealer's pickup,
#   O_PRIMO_PARTNER_ADDS §8.4 step 4, O_ROUNDED Quindici's q, O_FIRST_DISCARDS each player's
#   discard before a second deal, O_SECOND_DEAL, O_DISCARDS / O_DISCARDER (DS_*) the discard.
# The rules options: the others (O_TARGET, O_DECLARATIONS... as the option names say).
OPTION_NAMES = (
    "O_N", "O_TRICKS", "O_TARGET", "O_CLAIMS", "O_WRONG_LOSES", "O_DEALER_AGAIN", "O_PARTNER_NEEDS_OWN",
    "O_DECLARATIONS", "O_MUST_OVERTRUMP", "O_MATTO_LEAD", "O_GIFT_ANY", "O_MATTO_LAST_LOST", "O_MATTO_IS_TRUMP",
    "O_EXCHANGE_CHOOSE", "O_FIRST_LEAD_SOLOIST", "O_OPP_CLAIM_EARLY", "O_DEALER_DISCARDS_FIRST", "O_CLAIM_RAW_SUM",
    "O_SIDES", "O_AUCTION", "O_OPP_AFTER_PICKUP", "O_PRIMO_PARTNER_ADDS", "O_ROUNDED", "O_FIRST_DISCARDS",
    "O_SECOND_DEAL", "O_DISCARDS", "O_DISCARDER",
)  # fmt: skip
(
    O_N, O_TRICKS, O_TARGET, O_CLAIMS, O_WRONG_LOSES, O_DEALER_AGAIN, O_PARTNER_NEEDS_OWN,
    O_DECLARATIONS, O_MUST_OVERTRUMP, O_MATTO_LEAD, O_GIFT_ANY, O_MATTO_LAST_LOST, O_MATTO_IS_TRUMP,
    O_EXCHANGE_CHOOSE, O_FIRST_LEAD_SOLOIST, O_OPP_CLAIM_EARLY, O_DEALER_DISCARDS_FIRST, O_CLAIM_RAW_SUM,
    O_SIDES, O_AUCTION, O_OPP_AFTER_PICKUP, O_PRIMO_PARTNER_ADDS, O_ROUNDED, O_FIRST_DISCARDS,
    O_SECOND_DEAL, O_DISCARDS, O_DISCARDER,
) = range(len(OPTION_NAMES))  # fmt: skip


@dataclass
class TarocchinoState:
    """A batch of tables: the five blocks (see the module docstring)."""

    ints: np.ndarray
    seat_ints: np.ndarray
    cards: np.ndarray
    hist: np.ndarray
    legal: np.ndarray

    @classmethod
    def new(cls, batch: int, num_players: int) -> TarocchinoState:
        ints = np.zeros((batch, len(INT_COLUMNS)), dtype=np.int64)
        for name, value in INT_INITIAL.items():
            ints[:, INT_COLUMNS.index(name)] = value
        seat_ints = np.zeros((batch, num_players, len(SEAT_COLUMNS)), dtype=np.int64)
        seat_ints[:, :, ACTIVE] = 1
        cards = np.zeros((batch, len(CARD_ROWS), NUM_CARDS), dtype=np.int8)  # small values: seats, trick numbers, codes
        for name, value in CARD_INITIAL.items():
            cards[:, CARD_ROWS.index(name)] = value
        hist = np.full((batch, MAX_TRICKS), -1, dtype=np.int64)
        legal = np.zeros((batch, NUM_ACTIONS), dtype=bool)
        return cls(ints, seat_ints, cards, hist, legal)

    def trick_leader(self, row: int, t: int) -> int:
        """The seat that led trick ``t`` (0-based) of ``row``: the Primo (the hand's first leader)
        for the first trick, else the winner of the trick before (§4.2)."""
        return int(self.ints[row, PRIMO]) if t == 0 else int(self.hist[row, t - 1])

    @property
    def blocks(self) -> tuple[np.ndarray, ...]:
        return self.ints, self.seat_ints, self.cards, self.hist, self.legal

    def copy(self) -> TarocchinoState:
        return TarocchinoState(*(x.copy() for x in self.blocks))

    # convenient views for readers and tests
    @property
    def phase(self) -> np.ndarray:
        return self.ints[:, PHASE]

    @property
    def current(self) -> np.ndarray:
        return self.ints[:, CURRENT]

    @property
    def dealer(self) -> np.ndarray:
        return self.ints[:, DEALER]

    @property
    def scores(self) -> np.ndarray:
        """(B, N) the last finished hand's scores by seat (see the game's documentation)."""
        return self.seat_ints[:, :, SCORE]

    @property
    def totals(self) -> np.ndarray:
        return self.seat_ints[:, :, TOTAL]

    def hand(self, row: int, seat: int) -> np.ndarray:
        """The card ids in ``seat``'s hand (the dealer's last 2 cards not yet picked up excluded)."""
        c = self.cards[row]
        return np.flatnonzero((c[HAND_OF] == seat) & (c[PLACE] == PL_HAND))

    def pile(self, row: int, seat: int) -> np.ndarray:
        """The card ids in ``seat``'s pile (won tricks, discards, the Matto he covered, and a
        Terziglio "di mio" Pozzo taken with the last trick, U25, whose place stays PL_POZZO)."""
        return np.flatnonzero(self.cards[row, PILE_OF] == seat)
