"""The state of a batch of French Tarot deals: NumPy arrays with a leading batch axis.

One row per deal. Card sets are boolean masks over the 78 card ids; seats are integers in
play order (``-1`` where no seat applies). The single-game environment is this state at
batch size 1. Which fields are public is decided by the encoding layer, not here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from tarot_env.cards.french import NUM_CARDS
from tarot_env.rules.french.actions import NUM_ACTIONS


class _Codes:
    """Named integer codes (plain ints: an Enum lookup costs microseconds in the hot path)."""

    @classmethod
    def name(cls, code: int) -> str:
        for key, value in vars(cls).items():
            if key.isupper() and value == code:
                return key.lower()
        raise ValueError(f"{code} is not a {cls.__name__} code")

    @classmethod
    def count(cls) -> int:
        return sum(1 for key in vars(cls) if key.isupper())


class Phase(_Codes):
    """Which decision a deal is waiting for."""

    BID = 0
    CALL = 1  # 5 players: the taker calls a card
    ECART = 2  # the taker discards, one card per action
    CHELEM = 3  # the taker announces a chelem or not
    POIGNEE = 4  # a player, at his first card, declares a poignée or not
    SHOW = 5  # a player picks the trumps of his poignée (poignee_trumps="choose")
    PLAY = 6
    DONE = 7


class Result(_Codes):
    """How a finished deal ended."""

    ONGOING = 0
    PLAYED = 1
    ALL_PASSED = 2
    PETIT_SEC = 3


class Chelem(_Codes):
    """The chelem outcome of a played deal (§9.1)."""

    NONE = 0
    ANNOUNCED_MADE = 1
    UNANNOUNCED_MADE = 2
    ANNOUNCED_FAILED = 3
    DEFENCE = 4
    ANNOUNCED_FAILED_AND_DEFENCE = 5


@dataclass
class FrenchTarotState:
    """Arrays of shape ``(B, ...)``; see the comments for each field's meaning."""

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
    lead_suit: np.ndarray  # (B,) see rules.tricks
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
        B, N, C, T = batch, num_players, NUM_CARDS, num_tricks

        def full(shape, value, dtype=np.int64):
            return np.full(shape, value, dtype=dtype)

        z = np.zeros
        return cls(
            dealer=z(B, np.int64),
            hands=z((B, N, C), bool),
            chien=z((B, C), bool),
            chien_seen=z(B, bool),
            phase=full(B, Phase.DONE),
            current=z(B, np.int64),
            legal=z((B, NUM_ACTIONS), bool),
            bids=full((B, N), -1),
            n_spoken=z(B, np.int64),
            contract=z(B, np.int64),
            taker=full(B, -1),
            called=full(B, -1),
            partner=full(B, -1),
            partner_known=z(B, bool),
            ecart=z((B, C), bool),
            ecart_left=z(B, np.int64),
            chelem=z(B, bool),
            poignee=z((B, N), np.int64),
            poignee_todo=z((B, N), bool),
            poignee_cards=z((B, N, C), bool),
            show_left=z(B, np.int64),
            trick=full((B, N), -1),
            trick_size=z(B, np.int64),
            trick_no=z(B, np.int64),
            leader=z(B, np.int64),
            lead_suit=full(B, -1),
            top_trump=z(B, np.int64),
            best_key=full(B, -1),
            best_seat=full(B, -1),
            played=z((B, N, C), bool),
            trick_of=full((B, C), -1),
            leaders=full((B, T), -1),
            winners=full((B, T), -1),
            pile=full((B, C), -1),
            excuse_seat=full(B, -1),
            exchange=z(B, np.int64),
            result=z(B, np.int64),
            attack_points=z(B, np.int64),
            attack_bouts=z(B, np.int64),
            made=z(B, bool),
            petit_au_bout=z(B, np.int64),
            chelem_result=z(B, np.int64),
            unit=z(B, np.int64),
            scores=z((B, N), np.int64),
        )

    @property
    def batch_size(self) -> int:
        return self.dealer.shape[0]

    def copy(self) -> FrenchTarotState:
        """A deep copy (for search, or to try an action without committing to it)."""
        return FrenchTarotState(**{f.name: getattr(self, f.name).copy() for f in dataclasses.fields(self)})

    def reset_rows(self, rows: np.ndarray, fresh: FrenchTarotState) -> None:
        """Overwrite ``rows`` with the first ``len(rows)`` rows of ``fresh``."""
        for f in dataclasses.fields(self):
            getattr(self, f.name)[rows] = getattr(fresh, f.name)[: len(rows)]
