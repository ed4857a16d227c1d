"""The deal and the *Scartata* of the Tarocchino games (docs/rules/tarocchino.md §5, §8–§14, §15), batch-first.

**Dealing (§4.1, §5.2).** Every game deals packets anticlockwise, starting with the player on
the dealer's right: seat ``dealer + 1`` (seats are numbered in play order, docs/interface.md §1).
A pack is the 62 card ids in the order they come off the top; :func:`deal_destinations`
says, for each pack position, where the card goes (a :class:`DealDestinations` table) and
:func:`deal_packs` deals shuffled packs ``(R, 62)`` with it. The pattern of each game is data
of its row in :data:`.game_specs.GAMES` (``deal_rounds``, ``packet``, ``dealer_last``, ``rest``):

| game | players | packets | hands (dealer last) | the dealer's last cards | rest |
|---|---|---|---|---|---|
| Ottocento, Quattro Scartate (§5, §8, §9) | 4 | 3 rounds of 5, then 2 to the dealer | 15 15 15 17 | 2 | none |
| Terziglio (§10) | 3 | 3 rounds of 6 | 18 18 18 | — | the Pozzo, 8 |
| Millone (§11) | 2 | 4 rounds of 5, then 2 to the dealer | 20 22 | 2 | the second deal, 20: 5 at a time, 10 each |
| Centocinquanta, Quindici (§12, §13) | 2 | 3 rounds of 5, then 2 to the dealer | 15 17 | 2 | 30 out of play |
| Mattazza (§14) | 3–6 | 2 rounds of 5 | 10 each | — | 62 − 10n out of play (32, 22, 12, 2) |

*The dealer's last cards* are the 2 cards dealt to him after the rounds: he first looks at
only the cards before them and may claim with those (§8.4 step 1, §11.3, §12.3, U21), then
picks them up. They are part of his hand in :attr:`Dealt.hands` and are also marked in
:attr:`Dealt.extra`. Quattro Scartate deals them the same way, though it has no claim.

*The rest* is what the deal does not put in a hand, in pack order: the Pozzo (Terziglio,
taken by a soloist who goes up, otherwise won with the last trick), Millone's second deal
(dealt after the first discards, :attr:`Dealt.second` says to whom), or the cards out of
play (Centocinquanta, Quindici, Mattazza), which are out of the count as well.

**Fixed deals (docs/interface.md §4).** ``{"dealer": d, "hands": [[card, ...] x N], "rest": [...]}``:
``hands`` in seat order, ``rest`` as above (Millone: the second deal's 20 cards in dealing
order). Where the dealer is dealt last cards, **the last 2 cards of his list are those 2**;
the order of the other cards of a hand does not matter. :func:`parse_deal` checks a deal
and turns it into a pack (so fixed and random deals go through the same :func:`deal_packs`);
:func:`format_deal` writes a pack back (hands in card-id order, the dealer's last 2 cards at
the end of his list, the rest in pack order).

**The Scartata (§5.3).** A discarding player puts cards face down, one per action here; they
count for his side. The **Carte da 5** (the 4 Kings and the 4 Tarocchi: Angelo, Mondo,
Bégato, Matto) may never be discarded; every other card may, trumps (the Sole, the Luna,
the numbered trumps, the Mori) included. Who discards how many, and when (the engine's
discard phase, ``discards._start_discards``; ``tests/oracles/tarocchino_discards.py`` states it
again for the tests):

- Ottocento, Quattro Scartate, Centocinquanta, Quindici: the dealer, 2, once he has picked up
  his last 2 cards (§5.3, §12.2);
- Terziglio: the soloist who went up, 8, after taking the Pozzo (26 cards → 18) (§10.3);
  a soloist who plays "di mio" does not discard;
- Millone: both players 10 after the first deal (the opponent first, U22), then the dealer
  2 more after the second deal (§11.4–5);
- Mattazza: no discard (§14.2).

A hand always has enough cards that may be discarded: at most 8 of its cards are Carte da 5,
and every hand at a discard holds at least 8 more cards than it must discard (17 − 2,
26 − 8, 20 − 10, 22 − 10, 22 − 2), so the rule needs no fallback.

Options (keywords, with the spec's default; see §15):

- ``second_deal_first`` (U22): who receives Millone's second deal's first packet:
  ``"opponent"`` (default; the deal starts at the dealer's right, as every deal does) or
  ``"dealer"``.
- ``first_discarder`` (U22): who makes Millone's first discard of 10 first: ``"opponent"``
  (default) or ``"dealer"``. (The spec's alternative, simultaneous discards, gives the same
  information to both players, since discards are face down and neither sees the other's.)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

import numpy as np

from tarot_env.cards.bolognese import BOLOGNESE_DECK, NUM_CARDS
from tarot_env.rules.bolognese.game_specs import GAMES as GAME_SPECS
from tarot_env.rules.bolognese.game_specs import GameSpec, game_spec
from tarot_env.rules.deals import check_deal_shape

#: The games' names (the env ids without ``_v0``), their titles, player counts and default
#: player counts: read from the one table of the games, :data:`.game_specs.GAMES` (kept here for
#: the modules that import them from the deal).
GAMES = tuple(GAME_SPECS)
GAME_TITLES = {name: spec.title for name, spec in GAME_SPECS.items()}
#: The player counts of each game (docs/interface.md §1).
PLAYER_COUNTS = {name: spec.players for name, spec in GAME_SPECS.items()}
#: The player count of each game when ``num_players`` is not given: its one count, and 4 for
#: Mattazza (3 to 6). Every default of the package (envs, vector envs, CLI) is read from here.
DEFAULT_PLAYERS = {name: spec.default_players for name, spec in GAME_SPECS.items()}

# Places of a pack position (DealDestinations.place).
#: a hand, in the (first) deal
HAND = 0
#: the dealer's last 2 cards: in his hand, looked at after his claim window
EXTRA = 1
#: Millone's second deal (rest)
SECOND = 2
#: Terziglio's Pozzo (rest)
POZZO = 3
#: out of play and out of the count (rest)
OUT = 4
PLACE_NAMES = ("hand", "the dealer's last cards", "second deal", "pozzo", "out of play")
_REST_PLACES = (SECOND, POZZO, OUT)

_OPTION_CHOICES = {"second_deal_first": ("opponent", "dealer"), "first_discarder": ("opponent", "dealer")}


def _check_option(name: str, value: Any) -> None:
    allowed = _OPTION_CHOICES[name]
    if value not in allowed:
        raise ValueError(
            f"{name}={value!r} is not an option value; allowed: {', '.join(map(repr, allowed))} (docs/rules/tarocchino.md U22)"
        )


def check_game(game: Any, num_players: Any = None) -> tuple[str, int]:
    """``(game, num_players)`` checked, with the player count filled in where the game has one.

    ``game`` is a name of :data:`GAMES` or a :class:`.game_specs.GameSpec` (a variant; its name is
    returned). ``None`` is the game's default count (:data:`DEFAULT_PLAYERS`: 4 for Mattazza,
    which is played by 3 to 6; the other games have one count).
    """
    spec = game_spec(game)
    return spec.name, spec.check_players(num_players)


# ====================================================================== the dealing pattern


@dataclass(frozen=True, eq=False)
class DealDestinations:
    """Where each card of a pack goes, in pack order (position 0 is dealt first).

    Attributes:
        game, title, num_players: the game's name and title, and its player count.
        packets: the deal in order, as ``(offset, size, place)``: ``size`` cards to the seat
            ``dealer + 1 + offset`` (offset ``num_players - 1`` is the dealer) when ``place``
            is :data:`HAND`, :data:`EXTRA` or :data:`SECOND`; ``offset`` −1 for the rest that
            goes to nobody (:data:`POZZO`, :data:`OUT`), written as one block.
        seat: (62,) int64, the offset of the receiving seat of each pack position, −1 if none.
        place: (62,) int64, the place code of each pack position.
        hand_sizes: cards each offset holds after the deal (the dealer's last cards
            included; Millone: the first deal only), dealer last.
        extra_size: the dealer's last cards (2, or 0).
        rest_place: the place of the rest (:data:`SECOND`, :data:`POZZO`, :data:`OUT`), or
            ``None`` where every card goes to a hand.
        rest_size: the number of cards of the rest.
        second_sizes: Millone's second deal per offset (zeros elsewhere).
        tricks: the tricks of a hand, i.e. the cards each player plays with after discards.
    """

    game: str
    title: str
    num_players: int
    packets: tuple[tuple[int, int, int], ...]
    seat: np.ndarray
    place: np.ndarray
    hand_sizes: tuple[int, ...]
    extra_size: int
    rest_place: int | None
    rest_size: int
    second_sizes: tuple[int, ...]
    tricks: int

    @property
    def dealer_offset(self) -> int:
        """The dealer's offset: he is dealt to last in every round."""
        return self.num_players - 1

    def positions(self, place: int, offset: int | None = None) -> np.ndarray:
        """Pack positions of ``place`` (and of seat ``offset``), in dealing order."""
        sel = self.place == place
        if offset is not None:
            sel &= self.seat == offset
        return np.flatnonzero(sel)

    @property
    def rest_positions(self) -> np.ndarray:
        """Pack positions of the rest, in dealing order."""
        return np.flatnonzero(np.isin(self.place, _REST_PLACES))


#: deal.py's place of each kind of rest (GameSpec.rest)
_REST_PLACE_OF = {"pozzo": POZZO, "second_deal": SECOND, "out": OUT}


def _packets(spec: GameSpec, n: int, second_deal_first: str) -> list[tuple[int, int, int]]:
    """The deal of ``spec`` as (offset, size, place), in dealing order (see the module table):
    ``deal_rounds`` rounds of ``packet`` cards from the dealer's right, the dealer's last cards,
    then the rest: Millone's second deal in packets of ``packet`` cards, alternately, starting
    with the opponent or the dealer (§11.5, U22), or one block to nobody (the Pozzo, the cards
    out of play)."""
    dealer = n - 1
    packets = [(k % n, spec.packet, HAND) for k in range(spec.deal_rounds * n)]
    if spec.dealer_last:
        packets.append((dealer, spec.dealer_last, EXTRA))
    left = spec.rest_size(n)
    if spec.rest == "second_deal":
        first = 0 if second_deal_first == "opponent" else 1
        packets += [((k + first) % n, spec.packet, SECOND) for k in range(left // spec.packet)]
    elif left:
        packets.append((-1, left, _REST_PLACE_OF[spec.rest]))
    return packets


@cache
def _destinations(spec: GameSpec, n: int, second_deal_first: str) -> DealDestinations:
    packets = _packets(spec, n, second_deal_first)
    seat = np.concatenate([np.full(size, offset) for offset, size, _ in packets]).astype(np.int64)
    place = np.concatenate([np.full(size, where) for _, size, where in packets]).astype(np.int64)
    assert len(seat) == NUM_CARDS, f"the deal of {spec.name} with {n} players places {len(seat)} cards, not {NUM_CARDS}"
    for a in (seat, place):
        a.setflags(write=False)
    in_hand = (place == HAND) | (place == EXTRA)
    rest_places = sorted({int(p) for p in place if p in _REST_PLACES})
    assert len(rest_places) <= 1
    return DealDestinations(
        game=spec.name,
        title=spec.title,
        num_players=n,
        packets=tuple(packets),
        seat=seat,
        place=place,
        hand_sizes=tuple(int(np.count_nonzero(in_hand & (seat == k))) for k in range(n)),
        extra_size=int(np.count_nonzero(place == EXTRA)),
        rest_place=rest_places[0] if rest_places else None,
        rest_size=int(np.count_nonzero(np.isin(place, _REST_PLACES))),
        second_sizes=tuple(int(np.count_nonzero((place == SECOND) & (seat == k))) for k in range(n)),
        tricks=spec.tricks,
    )


def deal_destinations(game: str | GameSpec, num_players: int | None = None, *, second_deal_first: str = "opponent") -> DealDestinations:
    """The dealing pattern of ``game`` (a name, or a :class:`.game_specs.GameSpec`) as a
    :class:`DealDestinations` table (cached; read-only arrays).

    ``num_players`` matters for Mattazza (3–6, default 4) only. ``second_deal_first`` (U22) matters for
    Millone only: who gets the first packet of the second deal.
    """
    spec = game_spec(game)
    n = spec.check_players(num_players)
    _check_option("second_deal_first", second_deal_first)
    return _destinations(spec, n, second_deal_first)


class Dealt(NamedTuple):
    """Dealt packs, with a leading batch axis R; seats are absolute (0..N-1).

    Attributes:
        hands: (R, N, 62) bool, each seat's hand once the deal is complete and the dealer has
            picked up his last cards; before any discard. Millone: the first deal only.
        extra: (R, 62) bool, the dealer's last cards (⊆ his hand; none in Terziglio, Mattazza).
            Before picking them up he sees ``hands[r, dealer] & ~extra[r]``.
        rest: (R, 62) bool, the cards no hand gets in the (first) deal: Pozzo, second deal or out of play.
        rest_order: (R, K) int64, the rest's card ids in pack (dealing) order.
        second: (R, N, 62) bool, Millone's second deal per seat; all False in the other games.
    """

    hands: np.ndarray
    extra: np.ndarray
    rest: np.ndarray
    rest_order: np.ndarray
    second: np.ndarray


def _check_packs(packs: np.ndarray) -> np.ndarray:
    packs = np.asarray(packs)
    if packs.ndim != 2 or packs.shape[1] != NUM_CARDS or not np.issubdtype(packs.dtype, np.integer):
        raise ValueError(f"packs must be integer card ids of shape (R, {NUM_CARDS}), got {packs.dtype} {packs.shape}")
    bad = np.flatnonzero(np.any(np.sort(packs, axis=1) != np.arange(NUM_CARDS), axis=1))
    if len(bad):
        raise ValueError(f"pack rows {bad[:5].tolist()} are not orderings of the {NUM_CARDS} card ids 0..{NUM_CARDS - 1}")
    return packs


def deal_packs(dest: DealDestinations, dealers: np.ndarray, packs: np.ndarray) -> Dealt:
    """Deal shuffled packs ``(R, 62)`` (card ids in pack order) from ``dealers`` ``(R,)`` -> :class:`Dealt`.

    The card at pack position i goes to the seat ``(dealer + 1 + dest.seat[i]) % N`` (the
    dealer's right first, §4.1), to the place ``dest.place[i]``.
    """
    n = dest.num_players
    packs = _check_packs(packs)
    dealers = np.asarray(dealers, dtype=np.int64).reshape(-1)
    if len(dealers) != len(packs) or np.any((dealers < 0) | (dealers >= n)):
        raise ValueError(f"dealers must be {len(packs)} seats 0..{n - 1} (one per pack), got {dealers.tolist()[:8]}")
    r = len(packs)
    seat_of_pos = np.where(dest.seat[None, :] >= 0, (dealers[:, None] + 1 + dest.seat[None, :]) % n, n)
    owner = np.empty((r, NUM_CARDS), dtype=np.int64)
    place = np.empty((r, NUM_CARDS), dtype=np.int64)
    np.put_along_axis(owner, packs, seat_of_pos, axis=1)
    np.put_along_axis(place, packs, np.broadcast_to(dest.place, (r, NUM_CARDS)), axis=1)
    to_seat = owner[:, None, :] == np.arange(n)[None, :, None]
    in_hand = (place == HAND) | (place == EXTRA)
    rest = np.isin(place, _REST_PLACES)
    return Dealt(
        hands=to_seat & in_hand[:, None, :],
        extra=place == EXTRA,
        rest=rest,
        rest_order=packs[:, dest.rest_positions].astype(np.int64),
        second=to_seat & (place == SECOND)[:, None, :],
    )


# ====================================================================== fixed deals (docs/interface.md §4)


def _rest_description(dest: DealDestinations) -> str:
    if dest.rest_place is None:
        return f"{dest.title} deals every card to a hand, so 'rest' must be empty"
    what = {
        SECOND: "the second deal's 20 cards in dealing order",
        POZZO: "the Pozzo's 8 cards",
        OUT: f"the {dest.rest_size} cards out of play",
    }[dest.rest_place]
    return f"'rest' lists {what}"


def _hand_description(dest: DealDestinations, offset: int) -> str:
    size = dest.hand_sizes[offset]
    if offset == dest.dealer_offset and dest.extra_size:
        return f"the dealer is dealt {size} ({size - dest.extra_size} + his last {dest.extra_size}, listed last)"
    return ("the dealer" if offset == dest.dealer_offset else "each other player") + f" is dealt {size}"


def parse_deal(dest: DealDestinations, deal: Any) -> tuple[int, np.ndarray]:
    """Check a fixed deal (docs/interface.md §4) -> ``(dealer, pack (62,) int64)``.

    The pack, dealt by :func:`deal_packs` from ``dealer``, gives exactly the deal: each hand's
    cards in the order listed at that seat's pack positions (the dealer's last 2 listed at the
    positions of his last cards), the rest in the order listed. A wrong key, dealer, count,
    a repeated or unknown card raises ``ValueError`` (``TypeError`` for a deal that is not a
    dict or a card that is not a string) naming what was given and what is allowed.
    """
    n, title = dest.num_players, dest.title
    dealer, hands_in, rest = check_deal_shape(deal, n, title)
    pack = np.full(NUM_CARDS, -1, dtype=np.int64)
    seen: dict[int, str] = {}
    places: list[tuple[str, Any, np.ndarray, str]] = []
    for s, cards in enumerate(hands_in):
        k = (s - dealer - 1) % n
        where = f"hand of seat {s}" + (" (the dealer)" if k == dest.dealer_offset else "")
        pos = np.concatenate([dest.positions(HAND, k), dest.positions(EXTRA, k)])
        places.append((where, cards, pos, f"in {title} {_hand_description(dest, k)}"))
    places.append(("rest", rest, dest.rest_positions, _rest_description(dest)))
    for where, cards, pos, allowed in places:
        if not isinstance(cards, (list, tuple)):
            raise ValueError(f"malformed deal: the {where} must be a list of card strings, got {cards!r:.80}")
        if len(cards) != len(pos):
            raise ValueError(f"malformed deal: the {where} has {len(cards)} cards; {allowed}")
        for i, text in enumerate(cards):
            if not isinstance(text, str):
                raise TypeError(f"malformed deal: the {where} holds {text!r}; cards are strings such as 'KS', 'ANG', 'MAT'")
            try:
                c = BOLOGNESE_DECK.parse(text)
            except ValueError as err:
                raise ValueError(f"malformed deal: in the {where}: {err}") from None
            if c in seen:
                name = BOLOGNESE_DECK.format(c)
                if seen[c] == where:
                    raise ValueError(f"malformed deal: {name} is listed twice in the {where}; each of the 62 cards appears once")
                raise ValueError(f"malformed deal: {name} is both in the {seen[c]} and the {where}; each of the 62 cards appears once")
            seen[c] = where
            pack[pos[i]] = c
    assert len(seen) == NUM_CARDS and np.all(pack >= 0)  # counts right and no repeat: every card once
    return dealer, pack


def format_deal(dest: DealDestinations, dealer: int, pack: np.ndarray) -> dict[str, Any]:
    """The docs/interface.md §4 form of a deal (``pack`` (62,) as given to :func:`deal_packs`).

    Hands are in seat order, each in card-id order, the dealer's last cards (in id order) at
    the end of his list; the rest is in pack order (for Millone, the second deal's order).
    """
    names, n = BOLOGNESE_DECK.names, dest.num_players
    pack = np.asarray(pack)
    hands = []
    for s in range(n):
        k = (s - int(dealer) - 1) % n
        first = sorted(int(c) for c in pack[dest.positions(HAND, k)])
        last = sorted(int(c) for c in pack[dest.positions(EXTRA, k)])
        hands.append([names[c] for c in first + last])
    return {"dealer": int(dealer), "hands": hands, "rest": [names[int(c)] for c in pack[dest.rest_positions]]}
