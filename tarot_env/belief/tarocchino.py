"""What one Tarocchino seat can know of the hidden cards, and deals consistent with it.

The seven games (Ottocento, Quattro Scartate, Terziglio, Millone, Centocinquanta, Quindici,
Mattazza) share one sampler: what differs is read from the state and the game's row.

**The view** (:func:`view`) is built from the seat's seat view alone
(:mod:`tarot_env.rules.bolognese.seat_view`, the one statement of what a seat may see): its own hand, its
own discards, every card played and by whom (hence the voids shown, below), the cards shown by
declarations (§7), and the public counts: how many cards each hidden place holds. The hidden
places are the other seats' hands, the dealer's last 2 cards before he picks them up (hidden
from the dealer too: he claims on his first cards only, §8.4.1), each other seat's discards,
Millone's second deal before it is dealt (10 to each seat, the seat's own included, §11.5), the
Terziglio Pozzo while nobody took it (§10.3), and the cards out of play (Centocinquanta,
Quindici, Mattazza). It never reads another seat's hand, discards, the Pozzo, the second deal
or the fields derived from them (``decl``, ``claim_decl``, ``combo``, ``pickup_decl``, a
claim window's value, the phase and legal actions of another seat's first turn):
``tests/test_belief_tarocchino.py`` swaps hidden cards between places and scribbles over those
fields and checks that the samples stay the same.

**The constraints.** Each hidden place holds a known number of the unseen cards, and a card may
be in a place unless:

- a seat that did not follow the suit led has none of it (§4.2); one that neither followed nor
  trumped has no numbered trump (and no Matto with ``matto_is_trump``, U19's alternative); with
  ``must_overtrump`` (U1's alternative), one that played a trump that does not beat the best
  trump of the trick holds no trump that beats it (the Mori: a Moro beats a Moro). The Matto
  excuses: covering it shows nothing (§2.4);
- a discard holds no Carta da 5 (the Kings and the Tarocchi, §5.3, ``rules/bolognese/discards.py``);
- a seat that declared showed all the combinations of its hand (§7: the engine declares them
  all, ``claims._declare``): a card that, added to the cards it showed and played since,
  would make a combination card it did not show is not in its hand (per card, with
  :func:`~tarot_env.rules.bolognese.combinations.combination_cards`);
- a seat seen at a first-turn decision (a claim window or a declaration, which the others see
  as "his first turn is not over", ``first_turn_done``) has something to claim or declare, and
  a dealer (or Millone opponent) seen at his claim window before the play has a claim: these
  are conditions on a whole hand, enforced by rejection (:func:`sample` redraws such deals up
  to :data:`RETRIES` times; a deal still failing keeps the seat at a declaration worth what his
  sampled hand is worth, or at his window with his running total as its value).

**Not inferred** (decided from the spec): not declaring says nothing (declaring is optional,
§7), nor does declining a claim; a declaration's value adds nothing once the shown cards are
known (it is their value). Real but hard, and not enforced: a declaring seat's hidden cards may
together (two or more of them, never one alone) make a combination it did not show; a claim
window the seat saw *not* open earlier (a dealer who went straight to his discard had less
than the target with his first cards) is history, not part of the observation. A seat already
at a first-turn decision is sampled at the start of its turn: whether it already declined a
claim is not seen, so a sample may offer the window again.

**The sample** (:func:`sample`) deals the unseen cards to the hidden places by the rule of
:mod:`tarot_env.belief.deal` and writes each deal into a copy of the state (:func:`determinize`):
the hidden places are replaced, and what follows from them is computed again by the rules' own
functions: the declaration values and combination cards as ``TarocchinoGame._prepare`` makes
them (``game.declaration_values``, ``combination_cards``; Millone's claim values over the
first-deal cards), the claim values of the deal (``pickup_decl``, the opponent's ``claim_decl``),
an open claim window or first turn of another seat (``claims._open_claim``,
``claims._begin_turn``) and the legal actions (``engine._set_legal``). Where the origin of
another seat's cards is hidden, it is drawn too: which 8 of a Terziglio soloist's cards came
from the Pozzo (``dealt_to``), which of a Millone player's cards came from the first deal
(``first``: his first 10 discards did). The seat's observation of every sample is its
observation of the real deal.

**The end of a hand** (:func:`hand_over`, :func:`hand_value`). A step that ends a hand scores it
at once (``TarocchinoGame._score_rows``): with one deal per episode (``episode="deal"``, the
env's default and the arena's) the row goes to ``DONE`` with the hand's ``score`` and
``result`` kept, so ``hand_over`` is ``phase == DONE`` (or ``SCORE``, where a match step stopped
for want of a generator). In a match (``episode="match"``) the same step deals the next hand
(``hand_no`` + 1, ``score`` reset) when given a generator, and the state alone no longer says
that the copied hand ended: a rollout passes ``deals=hand_end_deals(rows)`` to
``game.step``, which ends the match of each row with its current hand (its scores final, phase
``DONE``). :func:`hand_value` is the arena's score of the hand (``reward="score"``), computed by
the env's own :func:`tarot_env.envs.tarocchino_rewards.hand_rewards` from a
:class:`~tarot_env.rules.bolognese.game.HandEnd` rebuilt from the state.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tarot_env.belief.deal import NoConsistentDealError, deal_unseen, feasible_deal
from tarot_env.cards.bolognese import BOLOGNESE_DECK, IS_CARTA_DA_5, MATTO, NUM_CARDS
from tarot_env.cards.deck import TRUMP_SUIT
from tarot_env.envs.tarocchino_rewards import hand_rewards
from tarot_env.rules.bolognese import claims, engine
from tarot_env.rules.bolognese.combinations import combination_cards
from tarot_env.rules.bolognese.game import MatchDeals, TarocchinoGame
from tarot_env.rules.bolognese.scoring import DI_MIO, SU, mattazza_losers
from tarot_env.rules.bolognese.seat_view import TarocchinoSeatView, seat_view
from tarot_env.rules.bolognese.state import (
    CLAIM_DECL,
    CLAIM_OK,
    CLAIM_VALUE,
    COMBO,
    DEALT_TO,
    DECL,
    DECLARED,
    FIRST,
    HAND_OF,
    NONE,
    O_CLAIMS,
    O_MATTO_IS_TRUMP,
    O_MUST_OVERTRUMP,
    PH_CLAIM,
    PH_DECLARE,
    PH_DONE,
    PH_PLAY,
    PH_SCORE,
    PHASE,
    PICKUP_DECL,
    PILE_OF,
    PL_DISCARD,
    PL_EXTRA,
    PL_HAND,
    PL_OUT,
    PL_POZZO,
    PL_SECOND,
    PLACE,
    PLAYED_BY,
    SCORE,
    SHOWN,
    ST_CLAIM,
    ST_DONE,
    STAGE,
    TOTAL,
    TRICK_OF,
    TRICKS,
    W_AFTER_PICKUP,
    W_FIRST_TURN,
    W_PICKUP,
    WINDOW,
    Result,
    TarocchinoState,
)
from tarot_env.rules.bolognese.tricks import _beats_trump
from tarot_env.rules.game import HandEnd, take_rows

_SUIT = BOLOGNESE_DECK.suit.astype(np.int64)
_STRENGTH = BOLOGNESE_DECK.strength.astype(np.int64)
_TRUMPS = np.flatnonzero(_SUIT == TRUMP_SUIT)  # the numbered trumps (the Matto is no trump, U19)
#: redraws of the deals that fail a whole-hand condition (see the module docstring)
RETRIES = 20


@dataclass(frozen=True)
class TarocchinoView:
    """One seat's knowledge of the hidden cards (see the module docstring).

    With N seats the places are ``p`` (0..N-1) the hand of seat p (the seat's own holds no
    unseen card), ``N`` the dealer's last 2 cards not yet picked up, ``N + 1 + p`` the discards
    of seat p, ``2N + 1 + p`` Millone's second deal to seat p, ``3N + 1`` the Pozzo, ``3N + 2``
    the cards out of play."""

    seat: int
    unseen: np.ndarray  # (U,) card ids the seat has not seen
    capacity: np.ndarray  # (3N + 3,) how many of them each place holds
    allowed: np.ndarray  # (U, 3N + 3) bool: card may be in place
    voids: np.ndarray  # (N, 5) bool: seat shown void in suit (0..3 plain, 4 numbered trumps)
    excluded: np.ndarray  # (N, 62) bool: cards a seat's hand cannot hold for other reasons (overtrump, declaration)
    pozzo_pile: int  # whose pile the unseen Pozzo is in (a "di mio" Pozzo after the last trick, U25), else -1

    @property
    def num_players(self) -> int:
        return (len(self.capacity) - 3) // 3

    @property
    def places(self) -> tuple[str, ...]:
        n = self.num_players
        return (
            *(f"hand of seat {p}" for p in range(n)),
            "dealer's last cards",
            *(f"discards of seat {p}" for p in range(n)),
            *(f"second deal to seat {p}" for p in range(n)),
            "pozzo",
            "out of play",
        )


def _extra(n: int) -> int:
    return n


def _discards(n: int, p: int) -> int:
    return n + 1 + p


def _second(n: int, p: int) -> int:
    return 2 * n + 1 + p


def _pozzo(n: int) -> int:
    return 3 * n + 1


def _out(n: int) -> int:
    return 3 * n + 2


def shown_voids(game: TarocchinoGame, sv: TarocchinoSeatView) -> tuple[np.ndarray, np.ndarray]:
    """``(voids (N, 5), excluded (N, 62))`` shown by the play so far: public (every card played
    and by whom, in order: the seat view's tricks and the trick on the table). See the module
    docstring for the rules they follow from."""
    n, opts = game.num_players, game.opts
    voids = np.zeros((n, 5), dtype=bool)
    excluded = np.zeros((n, NUM_CARDS), dtype=bool)
    tricks = [trick.cards for trick in sv.tricks]
    if sv.trick_no < game.num_tricks:
        tricks.append(sv.table)
    for cards in tricks:
        lead, top = -1, -1
        for p, c in cards:
            if c == MATTO:  # covered: excused, it shows nothing (§2.4)
                continue
            su, k = int(_SUIT[c]), int(_STRENGTH[c])
            if lead < 0:
                lead = su
            elif su != lead or su == TRUMP_SUIT:
                if su != lead:
                    if lead != TRUMP_SUIT:
                        voids[p, lead] = True
                    if su != TRUMP_SUIT:  # neither followed nor trumped: no trump (§4.2)
                        voids[p, TRUMP_SUIT] = True
                        if opts[O_MATTO_IS_TRUMP]:
                            excluded[p, MATTO] = True
                if su == TRUMP_SUIT and opts[O_MUST_OVERTRUMP] and not _beats_trump(k, top):
                    beats = np.array([_beats_trump(int(_STRENGTH[x]), top) for x in _TRUMPS])
                    excluded[p, _TRUMPS[beats]] = True  # U1's alternative: he had to beat it if he could
            if su == TRUMP_SUIT and _beats_trump(k, top):
                top = k
    return voids, excluded


def _declaration_exclusions(game: TarocchinoGame, sv: TarocchinoSeatView, unseen: np.ndarray) -> np.ndarray:
    """(N, 62) bool: the unseen cards that a seat which declared cannot hold (module docstring)."""
    n, seat = game.num_players, sv.seat
    out = np.zeros((n, NUM_CARDS), dtype=bool)
    on_table = np.full(NUM_CARDS, -1, dtype=np.int64)
    for p, c in sv.table:
        on_table[c] = p
    for p in range(n):
        if p == seat or sv.declared[p] <= 0 or not len(unseen):
            continue
        showed = sv.shown[p]
        known = showed | sv.played[p] | (on_table == p)  # his hand when he declared, as far as it is seen
        trial = np.repeat(known[None, :], len(unseen), axis=0)
        trial[np.arange(len(unseen)), unseen] = True
        made = combination_cards(trial, mori=game.config.mori)
        out[p, unseen] = (made & ~showed[None, :]).any(axis=1)
    return out


def view(game: TarocchinoGame, s: TarocchinoState, row: int, seat: int) -> TarocchinoView:
    """The knowledge of ``seat`` at ``row`` of ``s`` (see the module docstring), read from its
    seat view (:func:`tarot_env.rules.bolognese.seat_view.seat_view`) alone."""
    return view_of(game, seat_view(game, s, row, seat))


def view_of(game: TarocchinoGame, sv: TarocchinoSeatView) -> TarocchinoView:
    """The knowledge of the seat whose seat view is ``sv``: the unseen cards, where each may be."""
    n, seat = game.num_players, int(sv.seat)
    unseen = np.flatnonzero(~sv.seen)
    if sv.hidden_elsewhere:
        raise NoConsistentDealError(f"unseen cards {list(sv.hidden_elsewhere)} are in no hidden place")
    S = 3 * n + 3
    capacity = np.zeros(S, dtype=np.int64)  # the public counts: how many unseen cards each place holds
    capacity[:n] = sv.hidden_in_hand
    capacity[_extra(n)] = sv.hidden_extra
    capacity[n + 1 : 2 * n + 1] = sv.hidden_discards
    capacity[2 * n + 1 : 3 * n + 1] = sv.hidden_second
    capacity[_pozzo(n)] = sv.hidden_pozzo
    capacity[_out(n)] = sv.hidden_out

    voids, excluded = shown_voids(game, sv)
    declared = _declaration_exclusions(game, sv, unseen)
    su = _SUIT[unseen]
    plain_or_trump = np.minimum(su, 4)
    allowed = np.zeros((len(unseen), S), dtype=bool)
    for p in range(n):
        if p == seat or capacity[p] == 0:
            continue
        ok = (su > 4) | ~voids[p, plain_or_trump]
        allowed[:, p] = ok & ~excluded[p, unseen]
    allowed[:, _extra(n)] = capacity[_extra(n)] > 0
    for p in range(n):
        if capacity[_discards(n, p)]:
            allowed[:, _discards(n, p)] = ~IS_CARTA_DA_5[unseen]  # §5.3: no Carta da 5 in a discard
        allowed[:, _second(n, p)] = capacity[_second(n, p)] > 0
    allowed[:, _pozzo(n)] = capacity[_pozzo(n)] > 0
    allowed[:, _out(n)] = capacity[_out(n)] > 0
    if declared.any():
        strict = allowed.copy()
        for p in range(n):
            strict[:, p] &= ~declared[p, unseen]
        try:  # the per-card rule needs the combinations to grow with the cards: keep it only if a deal fits
            feasible_deal(strict, capacity)
            allowed, excluded = strict, excluded | declared
        except NoConsistentDealError:
            pass
    pozzo_pile = -1
    if sv.contract == DI_MIO and sv.trick_no >= game.num_tricks:
        pozzo_pile = sv.last_winner  # U25: the unused Pozzo went to the last trick's winner
    return TarocchinoView(seat, unseen, capacity, allowed, voids, excluded, pozzo_pile)


def _place_table(game: TarocchinoGame, s: TarocchinoState, row: int, v: TarocchinoView) -> np.ndarray:
    """(S, 5) the values each place writes in the card fields hand_of, pile_of, place, dealt_to, first."""
    n = game.num_players
    d = int(s.dealer[row])
    table = np.zeros((3 * n + 3, 5), dtype=np.int64)
    for p in range(n):
        table[p] = (p, NONE, PL_HAND, p, 1)
        table[_discards(n, p)] = (NONE, p, PL_DISCARD, p, 1)
        table[_second(n, p)] = (NONE, NONE, PL_SECOND, p, 0)
    table[_extra(n)] = (d, NONE, PL_EXTRA, d, 1)
    table[_pozzo(n)] = (NONE, v.pozzo_pile, PL_POZZO, NONE, 0)
    table[_out(n)] = (NONE, NONE, PL_OUT, NONE, 0)
    return table


def _cards_of(st: TarocchinoState, p: int) -> np.ndarray:
    """(K, 62) bool: the cards of seat p in each row: held, discarded or played by him."""
    c = st.cards
    return ((c[:, HAND_OF] == p) & (c[:, PLACE] == PL_HAND)) | ((c[:, PLACE] == PL_DISCARD) & (c[:, PILE_OF] == p)) | (c[:, PLAYED_BY] == p)


def _pick(mask: np.ndarray, count: int, keys: np.ndarray) -> np.ndarray:
    """(K, 62) bool: ``count`` cards of each row of ``mask`` (at least that many each), those of least ``keys``."""
    out = np.zeros_like(mask)
    if count <= 0:
        return out
    order = np.argsort(np.where(mask, keys, np.inf), axis=1)[:, :count]
    np.put_along_axis(out, order, True, axis=1)
    return out & mask


def _origins(game: TarocchinoGame, s: TarocchinoState, row: int, st: TarocchinoState, seat: int, rng: np.random.Generator) -> None:
    """Draw the hidden origins of other seats' cards (module docstring): ``dealt_to`` of a
    Terziglio soloist's cards after he took the Pozzo, ``first`` of a Millone player's cards
    after the second deal."""
    n, spec = game.num_players, game.spec
    K = st.cards.shape[0]
    soloist = int(s.soloist[row])
    if spec.auction and int(s.contract[row]) == SU and soloist != seat:
        mine = _cards_of(st, soloist)
        pozzo = _pick(mine, game.dest.rest_size, rng.random((K, NUM_CARDS)))
        st.cards[:, DEALT_TO] = np.where(mine, np.where(pozzo, NONE, soloist), st.cards[:, DEALT_TO])
        st.cards[:, FIRST] = np.where(mine, ~pozzo, st.cards[:, FIRST])
    if spec.second_deal and not np.any(s.cards[row, PLACE] == PL_SECOND):
        d = int(s.dealer[row])
        for p in range(n):
            if p == seat:
                continue
            mine = _cards_of(st, p)
            discards = mine & (st.cards[:, PLACE] == PL_DISCARD)
            keys = rng.random((K, NUM_CARDS))
            first = _pick(discards, spec.first_discards, keys)  # his first discards came from the first deal
            first |= _pick(mine & ~first, game.dest.hand_sizes[(p - d - 1) % n] - spec.first_discards, keys)
            st.cards[:, FIRST] = np.where(mine, first, st.cards[:, FIRST])


def _determinize(
    game: TarocchinoGame, s: TarocchinoState, row: int, v: TarocchinoView, places: np.ndarray, rng: np.random.Generator
) -> tuple[TarocchinoState, np.ndarray]:
    """:func:`determinize`, and (K,) bool: the rows whose hands meet the whole-hand conditions."""
    K, n, seat, opts = len(places), game.num_players, v.seat, game.opts
    st = take_rows(s, np.full(K, row))
    unseen = v.unseen
    k_idx = np.arange(K)[:, None]
    values = _place_table(game, s, row, v)[places]  # (K, U, 5)
    for j, field in enumerate((HAND_OF, PILE_OF, PLACE, DEALT_TO, FIRST)):
        st.cards[k_idx, field, unseen[None, :]] = values[:, :, j]
    for field in (PLAYED_BY, TRICK_OF):
        st.cards[:, field, unseen] = NONE
    st.cards[:, SHOWN, unseen] = 0
    _origins(game, s, row, st, seat, rng)

    others = [p for p in range(n) if p != seat]
    c = st.cards
    ok = np.ones(K, dtype=bool)
    d = int(s.dealer[row])
    claims_on = bool(opts[O_CLAIMS])
    if int(s.primo[row]) >= 0:  # PREPARE done: what TarocchinoGame._prepare computes from the hands
        hands = ((c[:, HAND_OF][:, None, :] == np.arange(n)[None, :, None]) & (c[:, PLACE] == PL_HAND)[:, None, :]) | (
            c[:, PLAYED_BY][:, None, :] == np.arange(n)[None, :, None]
        )
        flat = hands.reshape(-1, NUM_CARDS)
        decl = game.declaration_values(flat).reshape(K, n)
        if game.spec.second_deal:  # §11.6: only first-deal cards serve a claim
            first = (hands & (c[:, FIRST] == 1)[:, None, :]).reshape(-1, NUM_CARDS)
            claim = game.declaration_values(first).reshape(K, n)
        else:
            claim = decl
        declared = s.seat_ints[row, :, DECLARED]  # public
        for p in others:  # a seat that declared keeps the value it declared (its whole hand's, §7)
            st.seat_ints[:, p, DECL] = declared[p] if declared[p] > 0 else decl[:, p]
            st.seat_ints[:, p, CLAIM_DECL] = declared[p] if declared[p] > 0 and not game.spec.second_deal else claim[:, p]
        doubling = game.config.options.get("doubling", True)  # the cards of the combinations the value counted (U5, U6)
        st.cards[:, COMBO] = combination_cards(flat, mori=game.config.mori, doubling=doubling).reshape(K, n, NUM_CARDS).any(axis=1)
    else:  # before PREPARE: no declaration values yet but the claim values of the deal (_claim_values_at_deal)
        st.cards[:, COMBO] = 0
        opp = (d + 1) % n
        for p in others:
            st.seat_ints[:, p, DECL] = 0
            st.seat_ints[:, p, CLAIM_DECL] = 0
        if claims_on and opp != seat:
            theirs = (c[:, DEALT_TO] == opp) & (c[:, FIRST] == 1)
            st.seat_ints[:, opp, CLAIM_DECL] = game.declaration_values(theirs)
    if seat != d:
        st.ints[:, PICKUP_DECL] = 0  # it serves the pickup window only, and after it no card says which were his last 2
        if claims_on and np.any(s.cards[row, PLACE] == PL_EXTRA):
            st.ints[:, PICKUP_DECL] = game.declaration_values((c[:, HAND_OF] == d) & (c[:, PLACE] == PL_HAND))

    phase, current, window = int(s.phase[row]), int(s.current[row]), int(s.ints[row, WINDOW])
    ints, seat_ints = st.ints, st.seat_ints
    if phase != PH_CLAIM or current != seat:  # a window's value is seen only by its seat
        ints[:, WINDOW], ints[:, CLAIM_VALUE], ints[:, CLAIM_OK] = W_PICKUP, NONE, 0
    if current != seat and (phase == PH_DECLARE or (phase == PH_CLAIM and window == W_FIRST_TURN)):
        # another seat's first turn (§7, §8.4): its window, else its declaration, as the rules open them
        seat_ints[:, current, STAGE] = ST_CLAIM
        ints[:, PHASE] = PH_PLAY
        for b in range(K):
            claims._begin_turn(ints, seat_ints, b, opts)
        ok = ints[:, PHASE] != PH_PLAY  # seen at a decision: he has one
        ints[~ok, PHASE] = PH_DECLARE
        seat_ints[~ok, current, STAGE] = ST_DONE
    elif current != seat and phase == PH_CLAIM and window in (W_PICKUP, W_AFTER_PICKUP):
        for b in range(K):
            ok[b] = claims._open_claim(ints, seat_ints, b, current, window, opts)
        ints[~ok, PHASE] = PH_CLAIM
        ints[~ok, WINDOW] = window
        ints[~ok, CLAIM_VALUE] = seat_ints[~ok, current, TOTAL]  # a window with nothing to add
        ints[~ok, CLAIM_OK] = 0
    for b in range(K):
        engine._set_legal(ints, seat_ints, st.cards, st.legal, b, opts)
    return st, ok


def determinize(
    game: TarocchinoGame, s: TarocchinoState, row: int, v: TarocchinoView, places: np.ndarray, rng: np.random.Generator | None = None
) -> TarocchinoState:
    """A state of ``len(places)`` rows: row ``row`` of ``s`` with the unseen cards dealt as
    ``places`` (K, U) says, and what follows from the hidden cards computed again by the rules.
    ``rng`` draws the hidden origins of cards (module docstring); a fixed generator by default."""
    rng = np.random.default_rng(0) if rng is None else rng
    return _determinize(game, s, row, v, np.asarray(places, dtype=np.int64), rng)[0]


def sample(game: TarocchinoGame, s: TarocchinoState, row: int, seat: int, k: int, rng: np.random.Generator) -> TarocchinoState:
    """``k`` deals consistent with what ``seat`` knows at ``row`` of ``s``, as a state of ``k`` rows."""
    v = view(game, s, row, seat)
    st, ok = _determinize(game, s, row, v, deal_unseen(v.allowed, v.capacity, k, rng), rng)
    for _ in range(RETRIES):
        bad = np.flatnonzero(~ok)
        if not len(bad):
            break
        again, ok_again = _determinize(game, s, row, v, deal_unseen(v.allowed, v.capacity, len(bad), rng), rng)
        for block, new in zip(st.blocks.values(), again.blocks.values()):
            block[bad] = new
        ok[bad] = ok_again
    return st


# ---------------------------------------------------------------------- rollouts
def is_play_decision(s: TarocchinoState, row: int) -> bool:
    """Whether ``row`` waits for a card to be played (phase PLAY)."""
    return int(s.phase[row]) == PH_PLAY


def hand_over(s: TarocchinoState) -> np.ndarray:
    """(B,) bool: the hand of each row has ended and its scores are final (phase DONE, or SCORE;
    in a match, step with :func:`hand_end_deals`, see the module docstring)."""
    return (s.phase == PH_DONE) | (s.phase == PH_SCORE)


def hand_end_deals(rows: np.ndarray) -> MatchDeals:
    """Deals to pass to ``game.step`` in a rollout of a match (``episode="match"``): each row's
    match ends with its current hand (a queued deal no dealer can follow truncates it, as
    ``TarocchinoGame._next_queued`` does), so that its row stays at DONE with the hand's scores."""
    stop = np.arange(NUM_CARDS)
    return MatchDeals(queued={int(r): [(NONE, stop, None)] for r in np.asarray(rows).tolist()}, keep=False)


def rollout_deals(game: TarocchinoGame, rows: np.ndarray) -> MatchDeals | None:
    """What a play-out passes as ``deals`` to ``game.step`` so that each row stops at the end of
    its hand: :func:`hand_end_deals` in a match, nothing when an episode is one hand."""
    return hand_end_deals(rows) if game.config.match else None


def hand_value(game: TarocchinoGame, s: TarocchinoState, seat: int) -> np.ndarray:
    """(B,) float: ``seat``'s result of each row's finished hand as the arena counts it (the env's
    ``reward="score"``: own side minus the other side, Terziglio the settlement, Mattazza -1 for a
    loser else 0), from :func:`tarot_env.envs.tarocchino_rewards.hand_rewards`; NaN where the
    hand is not over (:func:`hand_over`)."""
    out = np.full(s.phase.shape[0], np.nan)
    rows = np.flatnonzero(hand_over(s))
    if not len(rows):
        return out
    n = game.num_players
    ends = []
    for r in rows.tolist():
        scores = s.seat_ints[r, :, SCORE].astype(np.int64)
        result = Result.name(int(s.result[r]))
        active = (s.cards[r, DEALT_TO][None, :] == np.arange(n)[:, None]).any(axis=1)
        info: dict = {}
        if game.spec.scoring == "penalty":
            idx = np.flatnonzero(active)
            lost = mattazza_losers(scores[idx][None, :], s.seat_ints[r, idx, TRICKS][None, :])[0]
            info["losers"] = [int(p) for p in idx[lost]]
        if result in ("claimed", "wrong_claim"):
            info["claimer"] = int(s.claim_seat[r])
        ends.append(HandEnd(r, result, scores.tolist(), info, False, game.sides(s, r), active))
    values = hand_rewards(game.spec, "score", game.config.options.get("target", 0) or 0, ends)
    out[rows] = values[:, seat]
    return out


def hands_of(states: TarocchinoState) -> np.ndarray:
    """(K, N, 62) bool: the cards in each seat's hand in every row of ``states`` (place PL_HAND; the
    dealer's last 2 cards before he picks them up are not in his hand yet)."""
    cards = states.cards
    n = states.seat_ints.shape[1]
    in_hand = cards[:, PLACE] == PL_HAND
    return in_hand[:, None, :] & (cards[:, HAND_OF][:, None, :] == np.arange(n)[None, :, None])
