"""Play of the cards (rules/french_tarot.md §6): legal cards, tricks, the Excuse.

The duties to follow, trump and overtrump are the shared mechanics of
:mod:`tarot_env.rules.tricks`; this module adds what is French: the 5-player opening-lead
restriction (§10), and the Excuse (§6.3): it stays with its side, which pays one
half-point when the other side won the trick (booked even when it has no card to give:
the Excuse is then worth 4 points, §15.4); played to the last trick it changes camp, unless
its side won every earlier trick, when it wins that trick (§15.2, §15.3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tarot_env.cards.french import EXCUSE, FRENCH_DECK
from tarot_env.rules.french._play_kernel import play_cards_kernel, play_mask_kernel
from tarot_env.rules.tricks import legal_plays, play_card

if TYPE_CHECKING:
    from tarot_env.rules.french.game import FrenchTarotGame
    from tarot_env.rules.french.state import FrenchTarotState

_SUIT_OF = FRENCH_DECK.suit.astype(np.int64)
_STRENGTH = FRENCH_DECK.strength.astype(np.int64)
_SUIT_CARDS = np.stack([k == _SUIT_OF for k in range(4)])
_NO_ROWS = np.zeros(0, dtype=np.int64)
JIT_READY = play_cards_kernel is not None and play_mask_kernel is not None


def play_mask(g: FrenchTarotGame, s: FrenchTarotState, rows: np.ndarray) -> np.ndarray:
    """(R, 78) bool: the cards the player to act may play (see :func:`play_mask_numpy`)."""
    if g.use_jit:
        return play_mask_kernel(rows, s.blocks["ints"], s.blocks["seat_cards"], _SUIT_OF, _STRENGTH, g.play_options)
    return play_mask_numpy(g, s, rows)


def play_mask_numpy(g: FrenchTarotGame, s: FrenchTarotState, rows: np.ndarray) -> np.ndarray:
    """(R, 78) bool: the cards the player to act may play."""
    hand = s.hands[rows, s.current[rows]]
    legal = legal_plays(g.tricks, hand, s.lead_suit[rows], s.top_trump[rows])
    if g.num_players == 5:
        opening = (s.trick_no[rows] == 0) & (s.lead_suit[rows] < 0)
        if g.config.excuse_opening_lead == "lapses":
            opening &= s.trick_size[rows] == 0
        if np.count_nonzero(opening):
            legal[opening] = _opening_lead(g, s, rows[opening], hand[opening])
    return legal


def _opening_lead(g: FrenchTarotGame, s: FrenchTarotState, rows: np.ndarray, hand: np.ndarray) -> np.ndarray:
    """§10: trick 1 may not be opened in the called suit, except with the called card."""
    called = s.called[rows]
    banned = _SUIT_CARDS[_SUIT_OF[called]].copy()
    banned[np.arange(len(rows)), called] = False
    allowed = hand & ~banned
    others = allowed.copy()
    others[:, EXCUSE] = False
    stuck = ~others.any(axis=1)  # nothing but the called suit (and perhaps the Excuse)
    if g.config.called_suit_only_hand == "excuse_if_held":
        excuse_only = stuck & hand[:, EXCUSE]
        allowed[excuse_only] = False
        allowed[excuse_only, EXCUSE] = True
        stuck &= ~hand[:, EXCUSE]
    return np.where(stuck[:, None], hand, allowed)


def play_cards(g: FrenchTarotGame, s: FrenchTarotState, rows: np.ndarray, card: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Play one card per row, completing the tricks that fill up (:func:`apply_play` then
    :func:`complete_trick`, or their compiled twin).

    Returns ``(over, unrefreshed)``: the rows whose deal is over, and the rows whose
    ``s.legal`` the caller must still compute (the compiled twin refreshes the others)."""
    if g.use_jit:
        b = s.blocks
        status = play_cards_kernel(rows, card, b["ints"], b["flags"], b["seat_ints"], b["seat_cards"], b["card_ints"],
                                   b["history"], b["legal"], b["poignee_todo"], _SUIT_OF, _STRENGTH, g.play_options)  # fmt: skip
        if len(rows) == 1:
            code = status.item(0)
            return (rows if code == 1 else _NO_ROWS), (_NO_ROWS if code == 0 else rows)
        return rows[status == 1], rows[status != 0]
    complete = apply_play(g, s, rows, card)
    return (complete_trick(g, s, complete) if len(complete) else _NO_ROWS), rows


def apply_play(g: FrenchTarotGame, s: FrenchTarotState, rows: np.ndarray, card: np.ndarray) -> np.ndarray:
    """Play one card per row; returns the rows whose trick is now complete."""
    seat = s.current[rows]
    s.hands[rows, seat, card] = False
    s.played[rows, seat, card] = True
    s.trick[rows, seat] = card
    s.trick_of[rows, card] = s.trick_no[rows]
    ls, tt, bk, bs = play_card(g.tricks, card, seat, s.lead_suit[rows], s.top_trump[rows], s.best_key[rows], s.best_seat[rows])
    s.lead_suit[rows], s.top_trump[rows], s.best_key[rows], s.best_seat[rows] = ls, tt, bk, bs
    if g.num_players == 5:
        s.partner_known[rows] |= card == s.called[rows]
    excuse = card == EXCUSE
    if np.count_nonzero(excuse):
        s.excuse_seat[rows[excuse]] = seat[excuse]
    s.trick_size[rows] += 1
    s.current[rows] = (seat + 1) % g.num_players
    return rows[s.trick_size[rows] == g.num_players]


def complete_trick(g: FrenchTarotGame, s: FrenchTarotState, rows: np.ndarray) -> np.ndarray:
    """Give each complete trick to its winner; returns the rows whose deal is over."""
    t = s.trick_no[rows]
    winner = s.best_seat[rows]
    excuse_seat = s.excuse_seat[rows]
    excuse_here = (excuse_seat >= 0) & (s.trick_of[rows, EXCUSE] == t)
    last = t == g.num_tricks - 1
    has_excuse = np.count_nonzero(excuse_here) > 0
    if has_excuse:
        excuse_wins = excuse_here & last & _excuse_side_won_all(g, s, rows, excuse_seat)
        winner = np.where(excuse_wins, excuse_seat, winner)
    s.winners[rows, t] = winner
    s.leaders[rows, t] = s.leader[rows]
    s.pile[rows[:, None], s.trick[rows]] = winner[:, None]
    if has_excuse:
        _excuse_goes_home(g, s, rows[excuse_here], winner[excuse_here], last[excuse_here])
    s.trick[rows] = -1
    s.trick_size[rows] = 0
    s.trick_no[rows] += 1
    s.leader[rows] = winner
    s.current[rows] = winner
    s.lead_suit[rows] = -1
    s.top_trump[rows] = 0
    s.best_key[rows] = -1
    s.best_seat[rows] = -1
    return rows[s.trick_no[rows] == g.num_tricks]


def _excuse_side_won_all(g: FrenchTarotGame, s: FrenchTarotState, rows: np.ndarray, excuse_seat: np.ndarray) -> np.ndarray:
    """The Excuse's side won every earlier trick, and the options let its Excuse win (§6.3)."""
    attack = g.is_attack(s, rows, excuse_seat)
    earlier = s.winners[rows, : g.num_tricks - 1]
    attack_tricks = np.count_nonzero(g.is_attack(s, rows[:, None], earlier), axis=1)
    won_all = np.where(attack, attack_tricks == g.num_tricks - 1, attack_tricks == 0)
    if g.config.excuse_chelem_needs_announcement:
        won_all &= attack & s.chelem[rows]
    if not g.config.excuse_chelem_defence:
        won_all &= attack
    return won_all


def _excuse_goes_home(g: FrenchTarotGame, s: FrenchTarotState, rows: np.ndarray, winner: np.ndarray, last: np.ndarray) -> None:
    """The Excuse returns to its side, for a half-point; on the last trick it changes camp."""
    owner = s.excuse_seat[rows]
    owner_attack = g.is_attack(s, rows, owner)
    winner_attack = g.is_attack(s, rows, winner)
    lost_last = last & (winner != owner)  # played to the last trick, not a winning chelem Excuse
    if g.config.excuse_last_trick == "changes_camp":
        camp = np.where(owner_attack, g.defence_seat(s, rows), s.taker[rows])
        s.pile[rows, EXCUSE] = np.where(lost_last, camp, owner)
    else:
        s.pile[rows, EXCUSE] = np.where(lost_last, winner, owner)
    exchange = ~lost_last & (owner_attack != winner_attack)
    s.exchange[rows] += np.where(exchange, np.where(winner_attack, 1, -1), 0)
