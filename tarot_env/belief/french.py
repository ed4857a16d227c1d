"""What one French Tarot seat can know of the hidden cards, and deals consistent with it.

**The view** (:func:`view`) is built from the seat's seat view alone
(:mod:`tarot_env.rules.french.seat_view`, the one statement of what a seat may see): its own hand,
every card played and by whom (hence the voids shown, below), the chien once shown (petite,
garde), the trumps shown in the écart (and the whole écart when the seat is the taker), the
poignées shown, the called card, and the public counts (how many cards each hand and the écart
hold). It never reads another seat's hand, the chien of a garde sans/contre, the écart's hidden
cards or the secret partner:
``tests/test_belief.py`` swaps hidden cards between other seats and checks that the samples stay
the same.

**The constraints.** Each hidden place (another seat's hand, the écart's hidden cards, the unseen
chien) holds a known number of the unseen cards, and a card may be in a place unless:

- a seat that did not follow the suit led has none of it (§6.2); one that neither followed nor
  trumped has no trump; one that played a trump under the highest trump of the trick (following
  trumps or trumping) has no higher trump, since he had to overtrump;
- with 5 players, the leader of the first trick who led the called suit with another card than the
  called card held nothing else but that suit and perhaps the Excuse (§10);
- the chien once shown went to the taker: its unseen cards are in his hand or his écart;
- the écart holds no King, no bout and no hidden trump (trumps discarded are shown, §4); and a
  trump in the écart shows that the taker kept no other card (no plain card but Kings: he may
  discard a trump only while he has too few of them, so all of them went to the écart);
- a poignée shown with the Excuse shows that its owner has no other trump (§8: the Excuse stands
  in for a trump only when he has no more);
- a called Queen shows that the taker held the four Kings (a Knight: Kings and Queens; a Jack:
  as the ``jack_call`` option says, §10; :func:`tarot_env.rules.french.call.ranks_needed`): those
  not played are in his hand.

**The sample** (:func:`sample`) deals the unseen cards to the hidden places by the rule of
:mod:`tarot_env.belief.deal` and writes each deal into a copy of the state: the hidden places are
replaced, and what follows from them is computed again by the rules (the partner of a 5-player
deal, the owner of an unseen chien, who may still declare a poignée, the legal actions). The seat's
observation of every sample is its observation of the real deal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tarot_env.belief.deal import deal_unseen
from tarot_env.cards.deck import EXCUSE_SUIT, TRUMP_SUIT
from tarot_env.cards.french import ECART_FREE, EXCUSE, FRENCH_DECK, NUM_CARDS
from tarot_env.rules.french import announcements, call, ecart, play
from tarot_env.rules.french.game import FrenchTarotGame
from tarot_env.rules.french.seat_view import FrenchSeatView, seat_view
from tarot_env.rules.french.state import FrenchTarotState, Phase
from tarot_env.rules.game import take_rows

_SUIT = FRENCH_DECK.suit.astype(np.int64)
_STRENGTH = FRENCH_DECK.strength.astype(np.int64)
_NO_LIMIT = 10**6


@dataclass(frozen=True)
class FrenchView:
    """One seat's knowledge of the hidden cards (see the module docstring).

    Places ``0..N-1`` are the seats' hands (the seat's own holds no unseen card), ``N`` the écart's
    hidden cards, ``N + 1`` the unseen chien."""

    seat: int
    unseen: np.ndarray  # (U,) card ids the seat has not seen
    capacity: np.ndarray  # (N + 2,) how many of them each place holds
    allowed: np.ndarray  # (U, N + 2) bool: card may be in place
    voids: np.ndarray  # (N, 5) bool: seat shown void in suit (0..3 plain, 4 trumps)
    trump_limit: np.ndarray  # (N,) the strongest trump each seat may still hold

    @property
    def places(self) -> tuple[str, ...]:
        n = len(self.capacity) - 2
        return (*(f"hand of seat {p}" for p in range(n)), "ecart", "chien")


def shown_voids(game: FrenchTarotGame, sv: FrenchSeatView) -> tuple[np.ndarray, np.ndarray]:
    """``(voids (N, 5), trump_limit (N,))`` shown by the play so far: public (every card played
    and by whom, in order: the seat view's tricks and the trick on the table). See the module
    docstring for the rules they follow from."""
    n = game.num_players
    voids = np.zeros((n, 5), dtype=bool)
    limit = np.full(n, _NO_LIMIT, dtype=np.int64)
    called = sv.called
    tricks = [(trick.leader, trick.cards) for trick in sv.tricks] + [(sv.leader, sv.table)]
    for t, (leader, cards) in enumerate(tricks):
        lead, top, best_key, best_seat = -1, 0, -1, -1
        for p, c in cards:
            su, st = int(_SUIT[c]), int(_STRENGTH[c])
            before_lead, before_top = lead, top  # the trick as the player found it, and after his card (the play rules)
            lead, top, best_key, best_seat = play._trick_state(su, st, p, lead, top, best_key, best_seat)
            if su == EXCUSE_SUIT:
                continue
            if before_lead < 0:
                if n == 5 and t == 0 and p == leader and called >= 0 and su == _SUIT[called] and c != called:
                    voids[p, :] = True  # §10: he had nothing but the called suit (and the Excuse)
                    voids[p, su] = False
            elif su != lead:
                voids[p, lead] = True
                if su != TRUMP_SUIT:
                    voids[p, TRUMP_SUIT] = True
                elif st < before_top:
                    limit[p] = min(limit[p], before_top)
            elif su == TRUMP_SUIT and st < before_top:
                limit[p] = min(limit[p], before_top)
    return voids, limit


def view(game: FrenchTarotGame, s: FrenchTarotState, row: int, seat: int) -> FrenchView:
    """The knowledge of ``seat`` at ``row`` of ``s`` (see the module docstring), read from its
    seat view (:func:`tarot_env.rules.french.seat_view.seat_view`) alone."""
    return view_of(game, seat_view(game, s, row, seat))


def view_of(game: FrenchTarotGame, sv: FrenchSeatView) -> FrenchView:
    """The knowledge of the seat whose seat view is ``sv``: the unseen cards, where each may be."""
    n, cfg, seat = game.num_players, game.config, int(sv.seat)
    taker = sv.taker
    shown = sv.poignee_cards & ~sv.played  # (N, C) shown in a poignée, still held
    chien_seen = sv.chien_seen
    ecart_known = sv.ecart_known  # the taker knows his écart, the others see its trumps
    seen = sv.hand | sv.played.any(axis=0) | shown.any(axis=0) | ecart_known
    unseen = np.flatnonzero(~seen)
    voids, limit = shown_voids(game, sv)

    capacity = np.zeros(n + 2, dtype=np.int64)
    for p in range(n):
        if p != seat:  # a public count: the cards of a hand
            capacity[p] = int(sv.counts[p]) - int(np.count_nonzero(shown[p]))
    capacity[n] = sv.ecart_size - int(np.count_nonzero(ecart_known))
    capacity[n + 1] = 0 if chien_seen else cfg.chien_size

    su, st = _SUIT[unseen], _STRENGTH[unseen]
    allowed = np.zeros((len(unseen), n + 2), dtype=bool)
    from_chien = sv.chien[unseen] if chien_seen else np.zeros(len(unseen), bool)
    called = sv.called
    takers_own = (call.cards_shown_by_call(game, called) if called >= 0 else np.zeros(NUM_CARDS, bool))[unseen]
    trump_discarded = bool(sv.ecart_shown.any())
    for p in range(n):
        if p == seat or capacity[p] == 0:
            continue
        ok = ~voids[p, np.minimum(su, 4)] | (su == EXCUSE_SUIT)
        ok &= (su != TRUMP_SUIT) | (st <= limit[p])
        if sv.poignee_cards[p, EXCUSE]:
            ok &= su != TRUMP_SUIT
        if p == taker and trump_discarded:
            ok &= ~ECART_FREE[unseen]
        if p != taker:
            ok &= ~from_chien & ~takers_own
        allowed[:, p] = ok
    if capacity[n]:
        allowed[:, n] = ECART_FREE[unseen]
    if capacity[n + 1]:
        allowed[:, n + 1] = ~takers_own
    return FrenchView(seat, unseen, capacity, allowed, voids, limit)


def determinize(game: FrenchTarotGame, s: FrenchTarotState, row: int, v: FrenchView, places: np.ndarray) -> FrenchTarotState:
    """A state of ``len(places)`` rows: row ``row`` of ``s`` with the unseen cards dealt as
    ``places`` (K, U) says, and what follows from the hidden cards computed again by the rules."""
    K, n, seat = len(places), game.num_players, v.seat
    st = take_rows(s, np.full(K, row))
    unseen = v.unseen
    others = [p for p in range(n) if p != seat]
    for p in others:
        st.hands[:, p, unseen] = False
    st.ecart[:, unseen] = False
    if not s.chien_seen[row]:
        st.chien[:, unseen] = False
    st.pile[:, unseen] = -1  # an unseen card was never played: its pile is an écart's or a chien's
    taker = int(s.taker[row])
    for p in others:
        k, u = np.nonzero(places == p)
        st.hands[k, p, unseen[u]] = True
    k, u = np.nonzero(places == n)
    st.ecart[k, unseen[u]] = True
    st.pile[k, unseen[u]] = taker
    k, u = np.nonzero(places == n + 1)
    st.chien[k, unseen[u]] = True
    rows = np.arange(K)
    if n == 5 and s.called[row] >= 0:  # the called card's holder: in a hand, or played
        card = int(s.called[row])
        st.partner[:] = call.partner_of(st.hands[:, :, card] | st.played[:, :, card], st.taker)
    phase = int(s.phase[row])
    if taker >= 0 and Phase.ECART <= phase < Phase.DONE and not s.chien_seen[row]:
        # garde sans / contre: the unseen chien counts for the taker or the defence
        st.pile[:] = np.where(st.chien, ecart.unseen_chien_owner(game, st, rows)[:, None], st.pile)
    first_trick = Phase.POIGNEE <= phase <= Phase.PLAY and s.trick_no[row] == 0
    for p in others:  # not yet at his first card of the play: asked to declare if his hand qualifies
        if first_trick and not st.played[0, p].any() and s.poignee[row, p] == 0:
            st.poignee_todo[:, p] = announcements.may_declare_poignee(game, st, rows, np.full(K, p))
        else:
            st.poignee_todo[:, p] = False
    if first_trick:
        current = int(s.current[row])
        if current != seat and phase in (Phase.POIGNEE, Phase.PLAY):
            st.phase[:] = np.where(st.poignee_todo[:, current], Phase.POIGNEE, Phase.PLAY)
    st.legal[:] = game.legal_action_mask(st, rows)
    return st


def sample(game: FrenchTarotGame, s: FrenchTarotState, row: int, seat: int, k: int, rng: np.random.Generator) -> FrenchTarotState:
    """``k`` deals consistent with what ``seat`` knows at ``row`` of ``s``, as a state of ``k`` rows."""
    v = view(game, s, row, seat)
    return determinize(game, s, row, v, deal_unseen(v.allowed, v.capacity, k, rng))


def hands_of(states: FrenchTarotState) -> np.ndarray:
    """(K, N, 78) bool: the hands of every row of ``states``."""
    return states.hands.copy()


def hand_over(s: FrenchTarotState) -> np.ndarray:
    """(B,) bool: the deal of each row is over and its scores are final (a deal is one hand)."""
    return s.phase == Phase.DONE


def rollout_deals(game: FrenchTarotGame, rows: np.ndarray) -> None:
    """What a play-out passes as ``deals`` to ``game.step``: nothing (a deal is one hand; see
    :func:`.tarocchino.rollout_deals` for a match's)."""
    return None


def hand_value(game: FrenchTarotGame, s: FrenchTarotState, seat: int) -> np.ndarray:
    """(B,) float: ``seat``'s score of each row's finished deal (the arena's count, the env's
    ``reward="score"``); NaN where the deal is not over."""
    return np.where(hand_over(s), s.scores[:, seat], np.nan)
