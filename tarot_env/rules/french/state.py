"""The state of a batch of French Tarot deals: NumPy arrays with a leading batch axis.

One row per deal. Card sets are boolean masks over the 78 card ids; seats are integers in
play order (``-1`` where no seat applies). The single-game environment is this state at
batch size 1. Which fields are public is decided by the encoding layer, not here.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from tarot_env.cards.french import NUM_CARDS
from tarot_env.rules.french.actions import NUM_ACTIONS
from tarot_env.rules.game import Codes


class Phase(Codes):
    """Which decision a deal is waiting for (the family's phase codes, :class:`tarot_env.rules.game.Codes`)."""

    BID = 0
    CALL = 1  # 5 players: the taker calls a card
    ECART = 2  # the taker discards, one card per action
    CHELEM = 3  # the taker announces a chelem or not
    POIGNEE = 4  # a player, at his first card, declares a poignée or not
    SHOW = 5  # a player picks the trumps of his poignée (poignee_trumps="choose")
    PLAY = 6
    DONE = 7


class Result(Codes):
    """How a finished deal ended."""

    ONGOING = 0
    PLAYED = 1
    ALL_PASSED = 2
    PETIT_SEC = 3


class Chelem(Codes):
    """The chelem outcome of a played deal (§9.1)."""

    NONE = 0
    ANNOUNCED_MADE = 1
    UNANNOUNCED_MADE = 2
    ANNOUNCED_FAILED = 3
    DEFENCE = 4
    ANNOUNCED_FAILED_AND_DEFENCE = 5


# The fields of each block, in column order, with their initial value where it is not 0.
INT_FIELDS = (
    ("dealer", 0), ("phase", Phase.DONE), ("current", 0), ("n_spoken", 0), ("contract", 0), ("taker", -1),
    ("called", -1), ("partner", -1), ("ecart_left", 0), ("show_left", 0), ("trick_size", 0), ("trick_no", 0),
    ("leader", 0), ("lead_suit", -1), ("top_trump", 0), ("best_key", -1), ("best_seat", -1), ("excuse_seat", -1),
    ("exchange", 0), ("result", 0), ("attack_points", 0), ("attack_bouts", 0), ("petit_au_bout", 0),
    ("chelem_result", 0), ("unit", 0),
)  # fmt: skip
FLAG_FIELDS = ("chien_seen", "partner_known", "chelem", "made")
SEAT_INT_FIELDS = (("bids", -1), ("poignee", 0), ("trick", -1), ("scores", 0))
SEAT_CARD_FIELDS = ("hands", "played", "poignee_cards")
CARD_FLAG_FIELDS = ("chien", "ecart")
CARD_INT_FIELDS = ("trick_of", "pile")
HISTORY_FIELDS = ("leaders", "winners")
_GROUPS = {
    "ints": tuple(name for name, _ in INT_FIELDS),
    "flags": FLAG_FIELDS,
    "seat_ints": tuple(name for name, _ in SEAT_INT_FIELDS),
    "seat_cards": SEAT_CARD_FIELDS,
    "card_flags": CARD_FLAG_FIELDS,
    "card_ints": CARD_INT_FIELDS,
    "history": HISTORY_FIELDS,
}
#: column of each field in its block, for compiled kernels: ``COLUMN["lead_suit"]``
COLUMN = {name: k for names in _GROUPS.values() for k, name in enumerate(names)}


@dataclass
class FrenchTarotState:
    """Arrays of shape ``(B, ...)``; see the comments for each field's meaning.

    The fields are views into ``blocks`` (see :meth:`_from_blocks`); write into them
    (``s.hands[rows] = ...``), never rebind them (``s.hands = ...``).
    """

    # deal
    dealer: np.ndarray  # (B,) seat
    hands: np.ndarray  # (B, N, 78) bool: cards now in each hand
    chien: np.ndarray  # (B, 78) bool: the chien as dealt
    chien_seen: np.ndarray  # (B,) bool: turned face up (petite, garde)
    # whose turn
    phase: np.ndarray  # (B,) Phase
    current: np.ndarray  # (B,) seat to act
    legal: np.ndarray  # (B, A) bool: legal actions of the seat to act, kept up to date by the game
    # bidding
    bids: np.ndarray  # (B, N) -1 not yet spoken, 0 pass, 1..4 contract bid
    n_spoken: np.ndarray  # (B,)
    contract: np.ndarray  # (B,) highest bid so far, the contract once bidding ends
    taker: np.ndarray  # (B,) -1 until someone bids
    # 5-player call
    called: np.ndarray  # (B,) card id, -1 none
    partner: np.ndarray  # (B,) seat of the called card's holder; -1 when the taker is alone
    partner_known: np.ndarray  # (B,) bool: the teams are public (called card played or seen)
    # écart and announcements
    ecart: np.ndarray  # (B, 78) bool
    ecart_left: np.ndarray  # (B,) cards the taker still has to discard
    chelem: np.ndarray  # (B,) bool: chelem announced
    poignee: np.ndarray  # (B, N) 0 none, 1 simple, 2 double, 3 triple
    poignee_todo: np.ndarray  # (B, N) bool: may still declare (qualifies, not yet asked)
    poignee_cards: np.ndarray  # (B, N, 78) bool: cards shown in each poignée
    show_left: np.ndarray  # (B,) cards still to pick in a "choose" poignée
    # play
    trick: np.ndarray  # (B, N) card each seat played to the current trick, -1 none
    trick_size: np.ndarray  # (B,)
    trick_no: np.ndarray  # (B,) tricks completed
    leader: np.ndarray  # (B,) seat leading the current trick
    lead_suit: np.ndarray  # (B,) suit of the first card that is not the Excuse, -1 none yet
    top_trump: np.ndarray  # (B,)
    best_key: np.ndarray  # (B,)
    best_seat: np.ndarray  # (B,)
    played: np.ndarray  # (B, N, 78) bool: cards each seat has played
    trick_of: np.ndarray  # (B, 78) trick number in which each card was played, -1
    leaders: np.ndarray  # (B, T) leader of each trick, -1
    winners: np.ndarray  # (B, T) winner of each trick, -1
    pile: np.ndarray  # (B, 78) seat whose won cards hold the card at the end, -1
    excuse_seat: np.ndarray  # (B,) who played the Excuse, -1
    exchange: np.ndarray  # (B,) half-points owed to the attack by the Excuse exchange
    # result
    result: np.ndarray  # (B,) Result
    attack_points: np.ndarray  # (B,) attack card points in half-points, after the exchange
    attack_bouts: np.ndarray  # (B,)
    made: np.ndarray  # (B,) bool: contract made
    petit_au_bout: np.ndarray  # (B,) +1 attack, -1 defence, 0 none
    chelem_result: np.ndarray  # (B,) Chelem
    unit: np.ndarray  # (B,) S of §9.1, what each defender pays
    scores: np.ndarray  # (B, N)

    @classmethod
    def empty(cls, batch: int, num_players: int, num_tricks: int) -> FrenchTarotState:
        """A batch of ``batch`` rows with nothing dealt (phase DONE)."""
        B, N, C, T = batch, num_players, NUM_CARDS, num_tricks
        blocks = {
            "ints": np.tile(np.array([default for _, default in INT_FIELDS], dtype=np.int64), (B, 1)),
            "flags": np.zeros((B, len(FLAG_FIELDS)), dtype=bool),
            "seat_ints": np.tile(np.array([default for _, default in SEAT_INT_FIELDS], dtype=np.int64)[:, None], (B, 1, N)),
            "seat_cards": np.zeros((B, len(SEAT_CARD_FIELDS), N, C), dtype=bool),
            "card_flags": np.zeros((B, len(CARD_FLAG_FIELDS), C), dtype=bool),
            "card_ints": np.full((B, len(CARD_INT_FIELDS), C), -1, dtype=np.int64),
            "history": np.full((B, len(HISTORY_FIELDS), T), -1, dtype=np.int64),
            "legal": np.zeros((B, NUM_ACTIONS), dtype=bool),
            "poignee_todo": np.zeros((B, N), dtype=bool),
        }
        return cls._from_blocks(blocks)

    @classmethod
    def _from_blocks(cls, blocks: dict[str, np.ndarray]) -> FrenchTarotState:
        """The state whose fields are views into ``blocks``.

        The fields are grouped by dtype and shape into a few arrays (``blocks``) so that a
        compiled kernel takes a handful of arguments instead of forty: each argument costs
        a numba call ~0.2 µs. NumPy code sees ordinary arrays (views) and never needs to know.
        """
        views: dict[str, np.ndarray] = {"legal": blocks["legal"], "poignee_todo": blocks["poignee_todo"]}
        for block, names in _GROUPS.items():
            for k, name in enumerate(names):
                views[name] = blocks[block][:, k]
        state = cls(**views)
        state.blocks = blocks
        return state

    @property
    def batch_size(self) -> int:
        return self.dealer.shape[0]

    def copy(self) -> FrenchTarotState:
        """A deep copy (for search, or to try an action without committing to it)."""
        return FrenchTarotState._from_blocks({k: v.copy() for k, v in self.blocks.items()})

    def __deepcopy__(self, memo: dict) -> FrenchTarotState:
        # a field-by-field deep copy would cut the fields loose from the blocks: copy the blocks
        # (through ``memo``, so that other holders of a block share the copy) and rebuild the views
        state = FrenchTarotState._from_blocks(copy.deepcopy(self.blocks, memo))
        for name, view in vars(self).items():
            if name != "blocks":
                memo[id(view)] = getattr(state, name)  # a holder of a field gets the new view
        return state

    def __reduce__(self) -> tuple:
        # Pickle (pickle, cloudpickle, multiprocessing) only the blocks: each field pickled on its
        # own would come back as a separate array, no longer a view of its block, so that the
        # compiled kernels (which write the blocks) and NumPy code (which writes the fields)
        # would each see a different state.
        return _state_from_blocks, (self.blocks,)

    def reset_rows(self, rows: np.ndarray, fresh: FrenchTarotState) -> None:
        """Overwrite ``rows`` with the first ``len(rows)`` rows of ``fresh``."""
        every_row = len(rows) == self.batch_size and bool((rows == np.arange(len(rows))).all())
        where = Ellipsis if every_row else rows
        for name, block in self.blocks.items():
            block[where] = fresh.blocks[name][: len(rows)]


def _state_from_blocks(blocks: dict[str, np.ndarray]) -> FrenchTarotState:
    """Unpickle a :class:`FrenchTarotState`: its fields made views into ``blocks`` again."""
    return FrenchTarotState._from_blocks(blocks)
