"""What one French Tarot seat may see of a deal (docs/rules/french_tarot.md): its seat view.

Its own hand, and what the table shows: whose turn it is and what for (another seat asked
whether he declares a poignée reads as his turn to play: that his hand qualifies is his to
know, §8), the bids, the contract and the called card, the partner once this seat knows him
(the called card played, seen in its own hand or the teams public), a chelem announced, the
poignées and their cards, the chien when it is turned face up (petite, garde, §3), the trumps of
the écart (shown, §4) and, for the taker alone, his whole écart; every card played and by whom,
the tricks done and their winners, the trick on the table, and the public counts (the cards in
each hand, in the écart). Never another hand, the chien of a garde sans or contre, the écart's
other cards or a partner not yet known.

Why one place: :mod:`tarot_env.rules.seat_view` (the encoders are tied to it by the no-leak tests).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tarot_env.cards.french import FRENCH_DECK, NUM_CARDS
from tarot_env.rules.french import ecart
from tarot_env.rules.french.game import FrenchTarotGame
from tarot_env.rules.french.state import FrenchTarotState, Phase
from tarot_env.rules.trick import Trick


@dataclass(frozen=True, eq=False)
class FrenchSeatView:
    """One seat's view of a French Tarot deal (see the module docstring); ``seat`` None: a spectator."""

    seat: int | None
    num_players: int
    num_tricks: int
    phase: int  # Phase, as the seat sees it: another seat asked for a poignée reads PLAY
    dealer: int
    to_act: int  # the seat to act, -1 once the deal is over
    hand: np.ndarray  # (78,) bool: the seat's own hand (nothing for a spectator)
    counts: np.ndarray  # (N,) how many cards each hand holds
    bids: np.ndarray  # (N,) -1 not yet spoken, 0 pass, 1..4 contract bid
    taker: int  # -1 until someone bids
    contract: int  # the highest bid so far, the contract once the bidding ends (0 none)
    called: int  # the called card (5 players), -1 none
    partner: int | None  # the taker's partner as this seat knows him (-1: alone), None while unknown to it
    partner_public: bool  # the teams are known to everybody (the called card played)
    chelem: bool  # a chelem announced
    poignee: np.ndarray  # (N,) 0 none, 1 simple, 2 double, 3 triple
    poignee_cards: np.ndarray  # (N, 78) bool: the cards each poignée showed
    chien_seen: bool  # the chien was turned face up (petite, garde)
    chien: np.ndarray  # (78,) bool: the chien once turned face up, else nothing
    ecart_shown: np.ndarray  # (78,) bool: the trumps in the écart, shown to everybody (§4)
    own_ecart: np.ndarray  # (78,) bool: the whole écart for the taker, nothing for the others
    ecart_size: int  # how many cards the écart holds
    played: np.ndarray  # (N, 78) bool: the cards each seat has played (the trick on the table included)
    tricks: tuple[Trick, ...]  # the tricks done, in order
    table: tuple[tuple[int, int], ...]  # (seat, card) of the trick on the table, from its leader
    leader: int  # who leads the trick on the table
    trick_no: int  # tricks done

    @property
    def ecart_known(self) -> np.ndarray:
        """(78,) bool: the écart as this seat knows it (all of it for the taker, its trumps for the others)."""
        return self.own_ecart if self.seat is not None and self.seat == self.taker else self.ecart_shown


def trick_cards(s: FrenchTarotState, row: int, t: int, n: int) -> tuple[tuple[int, int], ...]:
    """``(seat, card)`` of completed trick ``t`` (from 0), in play order from its leader."""
    leader = int(s.leaders[row, t])
    by_seat = {int(np.flatnonzero(s.played[row, :, c])[0]): int(c) for c in np.flatnonzero(s.trick_of[row] == t)}
    return tuple((p, by_seat[p]) for p in ((leader + k) % n for k in range(n)) if p in by_seat)


def seat_view(game: FrenchTarotGame, s: FrenchTarotState, row: int, seat: int | None) -> FrenchSeatView:
    """What ``seat`` (None: a spectator) may see at row ``row`` of ``s``."""
    n = game.num_players
    if seat is not None and not 0 <= seat < n:
        raise ValueError(f"seat must be a seat number 0..{n - 1} or None (a spectator), got {seat!r}")
    phase = int(s.phase[row])
    if phase == Phase.POIGNEE and int(s.current[row]) != seat:
        phase = Phase.PLAY  # another seat asked for a poignée: that he may declare one is his to know (§8)
    taker = int(s.taker[row])
    called = int(s.called[row])
    nothing = np.zeros(NUM_CARDS, dtype=bool)
    hand = s.hands[row, seat].copy() if seat is not None else nothing
    partner: int | None = None
    public = bool(s.partner_known[row])
    if called >= 0 and (public or (seat is not None and (s.hands[row, seat, called] or s.played[row, seat, called]))):
        partner = int(s.partner[row])
    leader = int(s.leader[row])
    table = tuple((p, int(s.trick[row, p])) for p in ((leader + k) % n for k in range(n)) if s.trick[row, p] >= 0)
    trick_no = int(s.trick_no[row])
    tricks = tuple(Trick(int(s.leaders[row, t]), trick_cards(s, row, t, n), int(s.winners[row, t])) for t in range(trick_no))
    chien_seen = bool(s.chien_seen[row])
    return FrenchSeatView(
        seat=seat,
        num_players=n,
        num_tricks=int(game.num_tricks),
        phase=phase,
        dealer=int(s.dealer[row]),
        to_act=-1 if phase == Phase.DONE else int(s.current[row]),
        hand=hand,
        counts=s.hands[row].sum(axis=1).astype(np.int64),
        bids=s.bids[row].astype(np.int64),
        taker=taker,
        contract=int(s.contract[row]),
        called=called,
        partner=partner,
        partner_public=public,
        chelem=bool(s.chelem[row]),
        poignee=s.poignee[row].astype(np.int64),
        poignee_cards=s.poignee_cards[row].copy(),
        chien_seen=chien_seen,
        chien=s.chien[row].copy() if chien_seen else nothing,
        ecart_shown=s.ecart[row] & ecart.SHOWN,
        own_ecart=s.ecart[row].copy() if seat is not None and seat == taker else nothing,
        ecart_size=int(s.ecart[row].sum()),
        played=s.played[row].copy(),
        tricks=tricks,
        table=table,
        leader=leader,
        trick_no=trick_no,
    )


# ------------------------------------------------------------------ what every seat is told
def discard_words(card: str) -> str:
    """How another player's discard is announced: face down, except a trump in the écart, shown
    to every player (:data:`tarot_env.rules.french.ecart.SHOWN`, docs/rules/french_tarot.md §4)."""
    if ecart.SHOWN[FRENCH_DECK.parse(card)]:
        return f"discards {card} (a trump in the écart is shown)"
    return "discards a card (face down)"


def result_line(info: dict[str, Any]) -> str:
    """One line on how a French deal ended, from the env's final info."""
    if info.get("result") != "played":
        return f"deal {str(info.get('result', '?')).replace('_', ' ')}: no score"
    text = (
        f"taker player_{info['taker']} ({info['contract']}"
        + (f", partner player_{info['partner']}" if info.get("partner", -1) >= 0 and info["partner"] != info["taker"] else "")
        + f"): attack {info['attack_points']:g} points with {info['attack_bouts']} bouts — contract "
        + ("made" if info["made"] else "lost")
    )
    if info.get("petit_au_bout"):
        text += f", petit au bout ({'attack' if info['petit_au_bout'] > 0 else 'defence'})"
    if info.get("chelem") not in (None, "none"):
        text += f", chelem: {info['chelem'].replace('_', ' ')}"
    return text
