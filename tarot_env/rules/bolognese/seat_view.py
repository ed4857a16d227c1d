"""What one Tarocchino seat may see of a hand (docs/rules/tarocchino.md): its seat view.

Its own hand, the cards dealt to it that it has not picked up yet (a count: the dealer claims on
his first cards only, §8.4.1), its own discards, the combinations it would declare and their
value, its claim window's value while it is open; and what the table shows: the auction
(soloist, contract, bidder, passes), every card played and by whom, the tricks done, their
winners and whose pile got each card, the trick on the table, the cards shown in declarations
(§7), whose turn it is and what for (another seat's first turn is one phase, DECLARE: whether
it opens with a claim window is his alone to know, §8.4), whose first turn is over, the
declared values, tricks won, running totals, penalties and seats still in a Mattazza match, the
sides, and the public counts: the cards each hand holds and how many cards the seat has not seen
in each hidden place (another hand, the dealer's last cards before he picks them up, another
seat's discards, Millone's second deal, the Pozzo, the cards out of play). Never where such a
card is.

Why one place: :mod:`tarot_env.rules.seat_view` (the encoders are tied to it by the no-leak tests).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tarot_env.rules.bolognese.game import TarocchinoGame
from tarot_env.rules.bolognese.state import (
    ACTIVE,
    BIDDER,
    CLAIM_VALUE,
    COMBO,
    CONTRACT,
    CURRENT,
    DEALER,
    DEALT_TO,
    DECL,
    DECLARED,
    DISCARDS_LEFT,
    HAND_NO,
    HAND_OF,
    LAST_WINNER,
    LEADER,
    PASSES,
    PENALTY,
    PH_CLAIM,
    PH_DECLARE,
    PH_DONE,
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
    ST_DONE,
    STAGE,
    TOTAL,
    TRICK_NO,
    TRICK_OF,
    TRICKS,
    W_FIRST_TURN,
    WINDOW,
    TarocchinoState,
)
from tarot_env.rules.trick import Trick


@dataclass(frozen=True, eq=False)
class TarocchinoSeatView:
    """One seat's view of a Tarocchino hand (see the module docstring); ``seat`` None: a spectator."""

    seat: int | None
    num_players: int
    num_tricks: int
    phase: int  # Phase, as the seat sees it: another seat's first turn reads DECLARE, his claim window or not
    dealer: int
    to_act: int  # the seat to act, -1 once the hand is over
    primo: int  # the first leader, -1 before the play
    leader: int  # the leader of the trick in progress
    soloist: int  # Terziglio: the soloist, -1 none
    contract: int  # Terziglio: the contract (su, di mio), 0 none
    bidder: int  # Terziglio: who said posso, awaiting answers, -1 none
    passes: int  # Terziglio: the auction's passes
    trick_no: int  # tricks done
    last_winner: int  # the winner of the last trick, -1 none
    hand_no: int  # the hand of the match
    discards_left: int  # the discards the discarder still owes
    hand: np.ndarray  # (62,) bool: the seat's own hand (nothing for a spectator)
    extra: int  # the cards dealt to the seat that it picks up after the claim window (a count)
    discards: np.ndarray  # (62,) bool: the seat's own discards
    my_declaration: int  # what the seat's declaration would be worth (0 before its hand is final)
    my_combinations: np.ndarray  # (62,) bool: the cards declaring would show
    claim_value: int | None  # in the seat's own claim window: the value its claim would reach
    counts: np.ndarray  # (N,) the cards each seat holds (those not picked up yet included)
    played: np.ndarray  # (N, 62) bool: the cards each seat played in completed tricks
    won: np.ndarray  # (N, 62) bool: the played cards (and a covered Matto) in each seat's pile
    shown: np.ndarray  # (N, 62) bool: the cards each seat showed in a declaration
    tricks: tuple[Trick, ...]  # the tricks done, in order
    table: tuple[tuple[int, int], ...]  # (seat, card) of the trick on the table, from its leader
    tricks_won: np.ndarray  # (N,)
    first_turn_done: np.ndarray  # (N,) bool: the seat's first turn (claim, declaration) is over, as the table sees it
    declared: np.ndarray  # (N,) the declared values
    totals: np.ndarray  # (N,) the running totals of a match
    penalties: np.ndarray  # (N,) Mattazza's penalty points
    active: np.ndarray  # (N,) bool: still in a Mattazza match
    sides: np.ndarray  # (N,) each seat's side
    seen: np.ndarray  # (62,) bool: the cards whose place the seat knows
    hidden_in_hand: np.ndarray  # (N,) how many cards of each other hand the seat has not seen
    hidden_extra: int  # the dealer's last cards before he picks them up (hidden from him too)
    hidden_discards: np.ndarray  # (N,) how many cards of each other seat's discards
    hidden_second: np.ndarray  # (N,) Millone's second deal to each seat, before it is dealt
    hidden_pozzo: int  # the Pozzo while nobody took it
    hidden_out: int  # the cards out of play
    hidden_elsewhere: tuple[int, ...]  # cards unseen but in none of these places (none in a consistent state)


def _in_play_order(played_by: np.ndarray, cards: np.ndarray, leader: int, n: int) -> tuple[tuple[int, int], ...]:
    """``(seat, card)`` of ``cards`` played in one trick, in play order from ``leader``."""
    return tuple(sorted(((int(played_by[c]), int(c)) for c in cards), key=lambda pc: (pc[0] - leader) % n))


def _trick(s: TarocchinoState, row: int, t: int, played_by: np.ndarray, trick_of: np.ndarray, n: int) -> Trick:
    """Completed trick ``t`` (from 0): its leader, its cards in play order, its winner."""
    leader = s.trick_leader(row, t)
    return Trick(leader, _in_play_order(played_by, np.flatnonzero(trick_of == t), leader, n), int(s.hist[row, t]))


def seat_view(game: TarocchinoGame, s: TarocchinoState, row: int, seat: int | None) -> TarocchinoSeatView:
    """What ``seat`` (None: a spectator) may see at row ``row`` of ``s``."""
    n = game.num_players
    if seat is not None and not 0 <= seat < n:
        raise ValueError(f"seat must be a seat number 0..{n - 1} or None (a spectator), got {seat!r}")
    ints, seat_ints, cards = s.ints[row], s.seat_ints[row], s.cards[row]
    place, hand_of, pile_of = cards[PLACE].astype(np.int64), cards[HAND_OF].astype(np.int64), cards[PILE_OF].astype(np.int64)
    played_by, trick_of, shown_flag = cards[PLAYED_BY].astype(np.int64), cards[TRICK_OF].astype(np.int64), cards[SHOWN] == 1
    phase, current = int(ints[PHASE]), int(ints[CURRENT])
    if phase == PH_CLAIM and int(ints[WINDOW]) == W_FIRST_TURN and current != seat:
        phase = PH_DECLARE  # another seat's first turn: that it opens with a claim window is his to know (§8.4)
    seats = np.arange(n)[:, None]
    mine = hand_of == (-2 if seat is None else seat)  # a spectator owns no card
    hand = mine & (place == PL_HAND)
    discards = (place == PL_DISCARD) & (pile_of == (-2 if seat is None else seat))
    in_pile = (place == PL_PILE) & (played_by >= 0)
    holder = np.where(hand_of >= 0, hand_of, played_by)  # a shown card is in its hand, or played by it
    seen = hand | discards | (place == PL_TABLE) | in_pile | shown_flag
    unseen = ~seen
    trick_no = int(ints[TRICK_NO])
    primo = int(ints[PRIMO])
    stage_done = seat_ints[:, STAGE] == ST_DONE
    first_turn_done = (primo >= 0) & stage_done & ((np.arange(n) != current) | (phase == PH_PLAY))
    hidden = {
        "hand": np.array([0 if p == seat else int(np.sum(unseen & (place == PL_HAND) & (hand_of == p))) for p in range(n)]),
        "discards": np.array([int(np.sum(unseen & (place == PL_DISCARD) & (pile_of == p))) for p in range(n)]),
        "second": np.array([int(np.sum(unseen & (place == PL_SECOND) & (cards[DEALT_TO] == p))) for p in range(n)]),
    }
    known_places = np.isin(place, (PL_HAND, PL_EXTRA, PL_DISCARD, PL_SECOND, PL_POZZO, PL_OUT))
    return TarocchinoSeatView(
        seat=seat,
        num_players=n,
        num_tricks=int(game.num_tricks),
        phase=phase,
        dealer=int(ints[DEALER]),
        to_act=-1 if phase == PH_DONE else current,
        primo=primo,
        leader=int(ints[LEADER]),
        soloist=int(ints[SOLOIST]),
        contract=int(ints[CONTRACT]),
        bidder=int(ints[BIDDER]),
        passes=int(ints[PASSES]),
        trick_no=trick_no,
        last_winner=int(ints[LAST_WINNER]),
        hand_no=int(ints[HAND_NO]),
        discards_left=int(ints[DISCARDS_LEFT]),
        hand=hand,
        extra=int(np.sum(mine & (place == PL_EXTRA))),
        discards=discards,
        my_declaration=0 if seat is None else int(seat_ints[seat, DECL]),
        my_combinations=mine & (cards[COMBO] == 1),
        claim_value=int(ints[CLAIM_VALUE]) if seat is not None and phase == PH_CLAIM and current == seat else None,
        counts=((hand_of[None, :] == seats) & ((place == PL_HAND) | (place == PL_EXTRA))[None, :]).sum(axis=1),
        played=in_pile[None, :] & (played_by[None, :] == seats),
        won=in_pile[None, :] & (pile_of[None, :] == seats),
        shown=shown_flag[None, :] & (holder[None, :] == seats),
        tricks=tuple(_trick(s, row, t, played_by, trick_of, n) for t in range(trick_no)),
        table=_in_play_order(played_by, np.flatnonzero(place == PL_TABLE), int(ints[LEADER]), n),
        tricks_won=seat_ints[:, TRICKS].astype(np.int64),
        first_turn_done=first_turn_done,
        declared=seat_ints[:, DECLARED].astype(np.int64),
        totals=seat_ints[:, TOTAL].astype(np.int64),
        penalties=seat_ints[:, PENALTY].astype(np.int64),
        active=seat_ints[:, ACTIVE] != 0,
        sides=np.asarray(game.sides(s, row)),
        seen=seen,
        hidden_in_hand=hidden["hand"],
        hidden_extra=int(np.sum(unseen & (place == PL_EXTRA))),
        hidden_discards=hidden["discards"],
        hidden_second=hidden["second"],
        hidden_pozzo=int(np.sum(unseen & (place == PL_POZZO))),
        hidden_out=int(np.sum(unseen & (place == PL_OUT))),
        hidden_elsewhere=tuple(int(c) for c in np.flatnonzero(unseen & ~known_places)),
    )


# ------------------------------------------------------------------ what every seat is told
def discard_words(card: str) -> str:
    """How another player's discard is announced: face down (§5.3)."""
    return "discards a card (face down)"


def result_line(info: dict[str, Any]) -> str:
    """One line on how a Tarocchino hand ended, from the env's info (the scores are printed apart)."""
    text = f"hand {info.get('hand', 0) + 1} {str(info.get('result', '?')).replace('_', ' ')}"
    points = info.get("points", {})
    if "total" in points:
        text += ": points " + " / ".join(f"{v:g}" for v in points["total"])
    if info.get("soloist") is not None and info["soloist"] >= 0:
        text += f" (soloist player_{info['soloist']}, {'won' if info.get('soloist_won') else 'lost'})"
    if info.get("losers"):
        text += " — losers: " + ", ".join(f"player_{p}" for p in info["losers"])
    return text + match_part(info)


# ----------------------------------------------------------------------------------- dispatch


def match_part(info: dict[str, Any]) -> str:
    """A match's standing after a hand: the penalty points (Mattazza) or the game totals."""
    if "match_over" in info and "penalties" in info:
        return " — penalty points " + ", ".join(str(v) for v in info["penalties"])
    if "match_over" in info and "totals" in info:
        return " — game totals " + ", ".join(str(v) for v in info["totals"])
    return ""
