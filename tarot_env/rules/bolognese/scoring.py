"""End-of-hand scoring and the game-level rules of the Tarocchino games (docs/rules/tarocchino.md §§4.6, 7–14), batch-first.

Two layers, in this order in the module:

- **The counts**, pure functions over rows: piles of won cards as bool card masks
  ``(R, S, 62)`` (R rows, S sides or players), per-row integers ``(R,)`` or ``(R, S)``. They
  need no play state machine: the caller hands over what a finished hand left on the table
  (each side's *Tallone di Presa*, discards included, the Matto exchange of §4.5 made when the
  Matto owner's side took a trick), the tricks each side won, who took the last trick and the
  declarations made. Points are whole points, except in Terziglio, whose piles may be odd
  (U18) and are counted in half-points.
- **The end of a hand on the game's state** (at the end of the module): the rows of a batch
  whose hand ended at a step are read from the state's named columns (:mod:`.state`) and
  scored (:func:`played_hands`, :func:`claimed_scores`), and a match's totals, end and next
  dealer kept (:func:`settle_matches`). The game's options are read once into
  :class:`EndOfHand`; how a game scores a hand and ends a match is data, its row's
  ``scoring`` looked up in :data:`SCORING_MODES` (two sides to a target or a number of hands,
  Terziglio's Poste, Mattazza's penalties), not a branch on the game. ``TarocchinoGame``
  (:mod:`.game`) calls them at SCORE, after the Matto exchange, and deals the next hand.

What each game adds (the sections of the spec):

- **Ottocento** (§8): :func:`ottocento_hand_scores` (§8.3: cards in pairs + last trick +
  combinations + declarations, both sides score; cappotto §4.6), :func:`game_result` (end of
  game, U9). The claims (§8.4, *Chiamarsi Fuori*) are the engine's claim windows (claims.py).
- **Quattro Scartate** (§9): Ottocento's hand score; no claims; :func:`quattro_scartate_result`
  after :data:`QUATTRO_SCARTATE_HANDS` hands (tie: U10).
- **Terziglio** (§10): the auction is the engine's (auction.py); :func:`terziglio_poste`,
  :func:`terziglio_settlement` (the stakes, TV12) and
  :func:`terziglio_hand` (a whole hand: Pozzo, cappotto, half-points, winner, poste, settlement).
- **Millone** (§11), **Centocinquanta** (§12): :func:`millone_hand_scores`,
  :func:`centocinquanta_hand_scores`, :func:`game_result`.
- **Quindici** (§13): :func:`quindici_round` (q, TV13), :func:`quindici_hand_scores`,
  the claims' rounding (U15, U24) in the engine's claim windows (claims.py).
- **Mattazza** (§14): :func:`mattazza_hand` (per-trick count, who loses),
  :func:`mattazza_losers`, :func:`mattazza_standing` (ways to end the game).

Seats are numbered in playing order: seat ``s + 1`` (mod n) plays after seat ``s``, i.e. on
his right (play is anticlockwise, §4.1). In the 4-player games the sides are ``seat % 2``
(partners sit opposite, §5.1); the dealer's right, ``dealer + 1``, is the *Primo di Mano*.

Every [CHOICE] of the spec that a function here depends on is a keyword argument whose
default is the spec's; the docstrings name its U-number (§15).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tarot_env._jit import kernel
from tarot_env.cards.bolognese import NUM_CARDS
from tarot_env.rules.bolognese.combinations import MORI_CODE, MORI_OPTIONS, SEQUENCE_FAMILIES, combination_points, combination_points_row
from tarot_env.rules.bolognese.counting import CARD_VALUE, LAST_TRICK_BONUS, _groups_half_points, _groups_points, _odd_alone_half_points
from tarot_env.rules.bolognese.games import GAMES, GameSpec
from tarot_env.rules.bolognese.seats import sides_rows
from tarot_env.rules.bolognese.state import (
    ACTIVE,
    CLAIM_DECL,
    CLAIM_VALUE,
    CONTRACT,
    DEALER,
    DECL,
    DECLARED,
    GAME_WINNER,
    HANDS_PLAYED,
    LAST_WINNER,
    O_MORI,
    PENALTY,
    PICKUP_DECL,
    PILE_OF,
    RAW_TOTAL,
    RS_CLAIMED,
    RS_PLAYED,
    RS_WRONG_CLAIM,
    SOLOIST,
    TOTAL,
    TRICKS,
    W_FIRST_TURN,
    W_PICKUP,
    WINDOW,
)

if TYPE_CHECKING:
    from tarot_env.rules.bolognese.config import TarocchinoConfig
    from tarot_env.rules.bolognese.state import TarocchinoState

# --------------------------------------------------------------------------- constants
# The games' facts are the rows of the one table of the games (games.py); these names read them.
#: Ottocento's target and the longer games some tables play (§8.1, seed 4.1.1).
OTTOCENTO_TARGET = GAMES["ottocento"].target
OTTOCENTO_TARGETS = GAMES["ottocento"].targets
#: Hands in a game of Quattro Scartate: each of the four players deals once (§9).
QUATTRO_SCARTATE_HANDS = GAMES["quattro_scartate"].game_hands
MILLONE_TARGET = GAMES["millone"].target
#: Centocinquanta's target and the variants of §12.3.
CENTOCINQUANTA_TARGET = GAMES["centocinquanta"].target
CENTOCINQUANTA_TARGETS = GAMES["centocinquanta"].targets
#: Quindici's target, in rounded points, and the variants of §13.
QUINDICI_TARGET = GAMES["quindici"].target
QUINDICI_TARGETS = GAMES["quindici"].targets

#: Tricks in a hand of each game (§8.2, §10.4, §11.5, §12.2, §14.3).
OTTOCENTO_TRICKS = GAMES["ottocento"].tricks
TERZIGLIO_TRICKS = GAMES["terziglio"].tricks
MILLONE_TRICKS = GAMES["millone"].tricks
CENTOCINQUANTA_TRICKS = GAMES["centocinquanta"].tricks
MATTAZZA_TRICKS = GAMES["mattazza"].tricks
#: Cards in play in Centocinquanta and Quindici: 15 + 17; the other 30 are out of the count (§12.1).
CENTOCINQUANTA_CARDS = NUM_CARDS - GAMES["centocinquanta"].out_of_play(2)

#: :func:`game_result` and friends: no winner yet, play another hand.
PLAY_ON = -1
#: :func:`game_result` and friends: the game ends drawn.
DRAW = -2

#: Terziglio contracts (§10.3): nobody plays (all passed: redeal), *andare su* ("Posso?"
#: accepted: the soloist takes the Pozzo), *fare di mio* (alone with his own 18 cards, said
#: by the bidder or by the player who refused a "Posso?").
NO_CONTRACT, SU, DI_MIO = 0, 1, 2
TERZIGLIO_CONTRACTS = ("none", "su", "di_mio")
#: What the soloist wins or loses per posta, by contract (§10.6): 2 going up, 4 di mio; each
#: opponent pays or receives half of it.
TERZIGLIO_STAKE = np.array([0, 2, 4], dtype=np.int64)
TERZIGLIO_STAKE.setflags(write=False)

POSTE_ROUNDINGS = ("floor", "nearest")
ODD_PILE_OPTIONS = ("exact", "odd_alone")
MATTAZZA_WAYS = ("target", "first_two")


# --------------------------------------------------------------------------- input checks
def _int_rows(x: np.ndarray | Sequence[int] | int, name: str, shape: tuple[int, ...]) -> np.ndarray:
    """``x`` as int64 of ``shape``; a scalar is broadcast to it."""
    arr = np.asarray(x)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name} must be integers, got {arr.dtype}")
    if arr.ndim == 0:
        arr = np.broadcast_to(arr, shape)
    if arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {arr.shape}")
    return arr.astype(np.int64)


def _piles(piles: np.ndarray, sides: int | None = None) -> np.ndarray:
    p = np.asarray(piles)
    if p.dtype != bool or p.ndim != 3 or p.shape[-1] != NUM_CARDS:
        raise ValueError(f"piles must be bool masks of shape (R, S, {NUM_CARDS}), got {p.dtype} {p.shape}")
    if sides is not None and p.shape[1] != sides:
        raise ValueError(f"this game has {sides} sides, piles has {p.shape[1]}")
    if np.any(p.sum(axis=1) > 1):
        raise ValueError("a card lies in two piles of one row")
    return p


def _check_whole_pack(p: np.ndarray, game: str) -> None:
    missing = ~p.any(axis=1)
    if np.any(missing):
        rows = np.flatnonzero(missing.any(axis=1))
        raise ValueError(f"in {game} the piles hold all {NUM_CARDS} cards at the end of a hand; rows {rows.tolist()} miss some")


def _tricks(tricks_won, shape: tuple[int, int], total: int | None, last_trick: np.ndarray) -> np.ndarray:
    t = _int_rows(tricks_won, "tricks_won", shape)
    if np.any(t < 0):
        raise ValueError("tricks_won cannot be negative")
    if total is not None and np.any(t.sum(axis=1) != total):
        raise ValueError(f"the tricks of a hand add up to {total}, got {t.sum(axis=1).tolist()}")
    if np.any((last_trick < 0) | (last_trick >= shape[1])):
        raise ValueError(f"last_trick must be a side index 0..{shape[1] - 1}, got {last_trick.tolist()}")
    if np.any(t[np.arange(shape[0]), last_trick] == 0):
        raise ValueError("the side that won the last trick must have won at least one trick")
    return t


def _check_option(value: object, options: tuple, name: str, u: str) -> None:
    if value not in options:
        raise ValueError(f"{name} must be one of {options} (docs/rules/tarocchino.md {u}), got {value!r}")


# --------------------------------------------------------------------------- cappotto (§4.6)
def apply_cappotto(piles: np.ndarray, tricks_won: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Move a capotted side's pile to the other side (§4.6, §4.5, §10.5): ``(R, 2, 62)`` -> the same.

    A side that took no trick can hold in its pile only what it did not win in play: its
    discard (the dealer's 2 cards in Ottocento, the soloist's 8 in Terziglio, a player's 10 or
    12 in Millone) and the Matto it covered. The cappotto takes both: "the side with no tricks
    loses its discard", and the Matto goes to the opponents because the side has no card to
    give for it. So the whole pile changes hands; the result is idempotent, and the union of
    the piles is unchanged. Returns the new piles and ``capotted`` (R, 2) bool, the sides with
    no trick. Two sides only: Mattazza (§14.7) hands the Matto to the winner of the trick in
    which it was covered, which only the play knows.
    """
    p = _piles(piles, 2)
    return _cappotto(p, _int_rows(tricks_won, "tricks_won", p.shape[:2]))


def _cappotto(p: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`apply_cappotto` on checked arrays."""
    capotted = t == 0
    out = p.copy()
    moved = p & capotted[:, :, None]
    out &= ~capotted[:, :, None]
    out |= moved[:, ::-1]
    return out, capotted


# --------------------------------------------------------------------------- a hand's score (§8.3)
@dataclass(frozen=True)
class HandScore:
    """One hand's score, part by part, for each side: every field (R, S) int64, in points
    (``scale`` 1) or half-points (``scale`` 2, Terziglio, U18).

    ``cards``: the pile counted in groups (§3.2); ``last_trick``: 6 for the side that won it
    (§3.3); ``combinations``: cricche and sequences of the pile, each doubled on its own
    (§6); ``declarations``: the side's declarations made this hand (§7; U7 for a capotted
    side); ``bonus``: the cappotto bonus (U11, 0 by default); ``total``: their sum, what the
    side adds to its running total. ``capotted``: (R, S) bool, the sides that took no trick.
    """

    cards: np.ndarray
    last_trick: np.ndarray
    combinations: np.ndarray
    declarations: np.ndarray
    bonus: np.ndarray
    total: np.ndarray
    capotted: np.ndarray
    scale: int = 1


def hand_scores(
    piles: np.ndarray,
    tricks_won: np.ndarray,
    last_trick: np.ndarray,
    declarations: np.ndarray | None = None,
    *,
    group_size: int = 2,
    num_tricks: int | None = None,
    mori: str = "both",
    doubling: bool = True,
    keep_capotted_declarations: bool = True,
    cappotto_bonus: int = 0,
    half_points: bool = False,
    odd_pile: str = "exact",
) -> HandScore:
    """Each side's score for one hand, as §8.3 counts it (the other games reuse it).

        side score = cards (Σv − N + N/group_size) + 6 if it won the last trick
                   + cricche + sequences (§6, doubled independently) + its declarations (§7)

    ``piles`` (R, S, 62) bool: each side's Tallone di Presa, discards included (§5.3), after the
    Matto exchange of §4.5 (when the Matto owner's side took a trick); with 2 sides a capotted
    side's pile (its discard, the Matto) goes to the other side first (:func:`apply_cappotto`).
    ``tricks_won`` (R, S); ``last_trick`` (R,) the side that won the last trick;
    ``declarations`` (R, S) the points each side declared this hand (None: none).
    ``group_size`` 2 (pairs) or n (Mattazza's count per trick, §14.4); ``num_tricks`` the
    tricks of a hand, checked when given.

    Options: ``mori`` (U5) and ``doubling`` (§6.2) go to :func:`combination_points`;
    ``keep_capotted_declarations`` (U7, default True: a capotted side keeps what it declared;
    False cancels it); ``cappotto_bonus`` (U11, default 0: no bonus; points added to a side
    that took every trick, with 2 sides). ``half_points`` counts in half-points (Terziglio's
    odd piles, U18) with ``odd_pile``: ``"exact"`` (default, U18: Σv − N/2, half a point for
    the odd card, both sides still total 87) or ``"odd_alone"`` (U18's alternative: the odd
    card counted alone at its value, Σv − ⌊N/2⌋; the sides then total 88).
    """
    p = _piles(piles)
    R, S = p.shape[:2]
    last = _int_rows(last_trick, "last_trick", (R,))
    t = _tricks(tricks_won, (R, S), num_tricks, last)
    d = np.zeros((R, S), dtype=np.int64) if declarations is None else _int_rows(declarations, "declarations", (R, S))
    if np.any(d < 0):
        raise ValueError("declarations are points declared, never negative")
    _check_option(mori, MORI_OPTIONS, "mori", "U5")
    _check_option(odd_pile, ODD_PILE_OPTIONS, "odd_pile", "U18")
    if half_points and odd_pile == "odd_alone" and group_size != 2:
        raise ValueError("odd_pile='odd_alone' is a rule of the pair count (docs/rules/tarocchino.md U18)")
    return checked_hand_scores(p, t, last, d, group_size, half_points, odd_pile == "odd_alone", MORI_CODE[mori], doubling,
                               keep_capotted_declarations, cappotto_bonus)  # fmt: skip


def checked_hand_scores(
    piles: np.ndarray,
    tricks_won: np.ndarray,
    last: np.ndarray,
    declarations: np.ndarray,
    group_size: int,
    half_points: bool,
    odd_alone: bool,
    mori_code: int,
    doubling: bool,
    keep_capotted: bool,
    cappotto_bonus: int,
) -> HandScore:
    """:func:`hand_scores` on arrays already checked, as the game's state gives them: (R, S, 62)
    bool piles, (R, S) int64 tricks and declarations, (R,) int64 last trick; ``mori_code`` is
    :data:`.combinations.MORI_CODE` of U5, ``odd_alone`` U18's alternative. The game scores
    its hands through it, without the checks' cost (~50 µs a call) on every step that ends one;
    the count itself is :func:`hand_score_rows`."""
    piles, capotted = _cappotto(piles, tricks_won) if piles.shape[1] == 2 else (piles, tricks_won == 0)
    R, S = piles.shape[:2]
    parts = np.zeros((6, R, S), dtype=np.int64)
    bad = hand_score_rows(
        np.ascontiguousarray(piles), capotted, last, declarations, group_size, half_points, odd_alone, mori_code,
        doubling, keep_capotted, cappotto_bonus, parts,
    )  # fmt: skip
    if bad >= 0:
        n = np.count_nonzero(piles[bad], axis=-1).tolist()
        what = "half-groups" if half_points else "groups"
        raise ValueError(
            f"row {bad}: piles of {n} cards do not split into whole {what} of {group_size}: count them in half-points "
            "(docs/rules/tarocchino.md U18), or make the Matto exchange first (§4.5)"
        )
    return HandScore(*parts, capotted, 2 if half_points else 1)


@kernel
def hand_score_rows(
    piles, capotted, last, decl, group_size, half_points, odd_alone, mori_code, doubling, keep_capotted, cappotto_bonus, parts
):
    """Each side's hand score, part by part, into ``parts`` (6, R, S): cards, last trick,
    combinations, declarations, bonus, total (the fields of :class:`HandScore`, in its
    ``scale``). ``piles`` are those after the cappotto (:func:`apply_cappotto`), ``capotted``
    (R, S) the sides that took no trick (U7, U11). Returns -1, or the
    first row with a pile that does not split into whole groups (half-groups with
    ``half_points``): the caller raises. The one implementation of the hand's count (§8.3),
    compiled by numba: the envs score every hand that ends through it, one row at a time, on
    the calling thread (docs/performance.md, "What the kernels replaced")."""
    R, S = piles.shape[0], piles.shape[1]
    scale = 2 if half_points else 1
    L = np.zeros(len(SEQUENCE_FAMILIES), dtype=np.int64)
    L2 = np.zeros(len(SEQUENCE_FAMILIES), dtype=np.int64)
    for r in range(R):
        for s in range(S):
            pile = piles[r, s]
            n = 0
            value = 0
            for c in range(NUM_CARDS):
                if pile[c]:
                    n += 1
                    value += CARD_VALUE[c]
            if not half_points:
                if n % group_size:
                    return r
                cards = _groups_points(value, n, group_size)
            elif odd_alone:
                cards = _odd_alone_half_points(value, n)
            else:
                if (2 * n) % group_size:
                    return r
                cards = _groups_half_points(value, n, group_size)
            last_pts = scale * LAST_TRICK_BONUS if last[r] == s else 0
            combos = scale * combination_points_row(pile, mori_code, doubling, L, L2)
            d = 0 if (capotted[r, s] and not keep_capotted) else scale * decl[r, s]  # U7
            bonus = scale * cappotto_bonus if (S == 2 and capotted[r, 1 - s]) else 0  # U11
            parts[0, r, s] = cards
            parts[1, r, s] = last_pts
            parts[2, r, s] = combos
            parts[3, r, s] = d
            parts[4, r, s] = bonus
            parts[5, r, s] = cards + last_pts + combos + d + bonus
    return -1


def ottocento_hand_scores(
    piles: np.ndarray,
    tricks_won: np.ndarray,
    last_trick: np.ndarray,
    declarations: np.ndarray | None = None,
    **options: Any,
) -> HandScore:
    """Both sides' scores for one hand of Ottocento or Quattro Scartate (§8.3, §9): (R, 2) fields.

    ``piles`` (R, 2, 62): side ``seat % 2``'s pile; together they hold the 62 cards (the
    dealer's 2 discards in his side's pile, §5.3). 15 tricks. The card parts of the two sides
    add up to 87, and 93 with the last trick (§8.3). A capotted side loses its discard and the
    Matto (§4.6), keeps its declarations (U7) and the other side gets no bonus (U11). Options
    as in :func:`hand_scores`.
    """
    p = _piles(piles, 2)
    _check_whole_pack(p, "Ottocento")
    return hand_scores(
        p,
        tricks_won,
        last_trick,
        declarations,
        num_tricks=OTTOCENTO_TRICKS,
        **options,
    )


def millone_hand_scores(
    piles: np.ndarray,
    tricks_won: np.ndarray,
    last_trick: np.ndarray,
    declarations: np.ndarray | None = None,
    **options: Any,
) -> HandScore:
    """Both players' scores for one hand of Millone (§11.7): (R, 2) fields, player by player.

    Scored as Ottocento on individual piles: each player's pile holds his tricks and his own
    discards (the opponent's 10, the dealer's 12, §11.4–5): 40 cards in 20 tricks + 22
    discards = 62. A player who took no trick loses his discards and the Matto (§4.6).
    ``options`` as in :func:`hand_scores`.
    """
    p = _piles(piles, 2)
    _check_whole_pack(p, "Millone")
    return hand_scores(
        p,
        tricks_won,
        last_trick,
        declarations,
        num_tricks=MILLONE_TRICKS,
        **options,
    )


def centocinquanta_hand_scores(
    piles: np.ndarray,
    tricks_won: np.ndarray,
    last_trick: np.ndarray,
    declarations: np.ndarray | None = None,
    **options: Any,
) -> HandScore:
    """Both players' scores for one hand of Centocinquanta (§12.4): (R, 2) fields.

    As Ottocento over the 32 cards in play (15 tricks of 2 + the dealer's 2 discards); the 30
    cards out of the hand are in no pile. Card points of the two players add up to
    Σv(the 32 cards) − 16, and 6 more with the last trick: the total depends on the deal.
    ``options`` as in :func:`hand_scores`.
    """
    p = _piles(piles, 2)
    n = np.count_nonzero(p, axis=(1, 2))
    if np.any(n != CENTOCINQUANTA_CARDS):
        raise ValueError(f"in Centocinquanta the piles hold the {CENTOCINQUANTA_CARDS} cards in play, got {n.tolist()}")
    return hand_scores(
        p,
        tricks_won,
        last_trick,
        declarations,
        num_tricks=CENTOCINQUANTA_TRICKS,
        **options,
    )


def declaration_points(hands: np.ndarray, *, mori: str = "both", doubling: bool = True) -> np.ndarray:
    """The value of declaring a hand (§7): its cricche and sequences, valued as in §6.

    ``hands`` (R, 62) or (62,) bool, the cards shown (for a claim, only the cards the rule
    lets the player use: the dealer's first 15 before picking up (§8.4.1), the first deal in
    Millone (§11.6)). ``doubling`` is U6 (default True: declarations double like the end-of-hand
    count; False is the alternative "declarations undoubled").
    """
    return combination_points(hands, mori=mori, doubling=doubling)


# --------------------------------------------------------------------------- end of game
def game_result(totals: np.ndarray, target: int, *, tie: str = "play_on") -> np.ndarray:
    """End of game after a hand (§8.4 end, §11.7, §12.3, §13): (R,) winning side, or PLAY_ON / DRAW.

    ``totals`` (R, S) running totals after the hand. Nobody at the ``target``: play on. One
    side at or over it: that side wins. Several: the highest total wins; a tie for the highest
    is U9: ``tie="play_on"`` (default: play another hand) or ``"draw"``.
    """
    _check_option(tie, ("play_on", "draw"), "tie", "U9")
    tot = np.asarray(totals)
    if tot.ndim != 2 or not np.issubdtype(tot.dtype, np.integer):
        raise ValueError(f"totals must be integers of shape (R, S), got {tot.dtype} {tot.shape}")
    top = tot.max(axis=1)
    n_top = np.count_nonzero(tot == top[:, None], axis=1)
    reached = top >= target
    tied = DRAW if tie == "draw" else PLAY_ON
    return np.where(~reached, PLAY_ON, np.where(n_top > 1, tied, np.argmax(tot, axis=1))).astype(np.int64)


def quattro_scartate_result(
    totals: np.ndarray, hands_played: np.ndarray | int, *, tie: str = "draw", hands: int | None = QUATTRO_SCARTATE_HANDS
) -> np.ndarray:
    """End of a game of Quattro Scartate (§9): (R,) winning side, PLAY_ON or DRAW.

    There is no target and no claim: the game lasts ``hands`` hands (the game's row,
    :data:`QUATTRO_SCARTATE_HANDS`: each player deals once); then the higher total wins. On
    equal totals (U10): ``tie="draw"`` (default) or ``"extra_hand"``: play on, one hand at a
    time, until the totals differ.
    """
    _check_option(tie, ("draw", "extra_hand"), "tie", "U10")
    tot = np.asarray(totals)
    if tot.ndim != 2 or tot.shape[1] != 2 or not np.issubdtype(tot.dtype, np.integer):
        raise ValueError(f"totals must be integers of shape (R, 2), got {tot.dtype} {tot.shape}")
    h = _int_rows(hands_played, "hands_played", (len(tot),))
    done = h >= (QUATTRO_SCARTATE_HANDS if hands is None else hands)
    equal = tot[:, 0] == tot[:, 1]
    tied = DRAW if tie == "draw" else PLAY_ON
    return np.where(~done, PLAY_ON, np.where(equal, tied, np.argmax(tot, axis=1))).astype(np.int64)


# --------------------------------------------------------------------------- Terziglio (§10)
def terziglio_poste(points: np.ndarray | int, *, rounding: str = "floor") -> np.ndarray:
    """The winner's points converted to Poste (§10.6, TV12): (R,) int64.

    ``rounding`` (U14): ``"floor"`` (default, the seed's table): 0–14 → 0, 15–24 → 1,
    25–34 → 2, …, i.e. 0 below 15 and ⌊(p − 5)/10⌋ from 15 on; ``"nearest"`` (the seed's
    garbled second line, read as rounding to the nearest ten): ⌊(p + 5)/10⌋.
    """
    _check_option(rounding, POSTE_ROUNDINGS, "rounding", "U14")
    p = np.asarray(points)
    if not np.issubdtype(p.dtype, np.integer) or np.any(p < 0):
        raise ValueError(f"points must be non-negative integers, got {points!r}")
    p = p.astype(np.int64)
    if rounding == "floor":
        return np.where(p < 15, 0, (p - 5) // 10)
    return (p + 5) // 10


def terziglio_settlement(soloist: np.ndarray, contract: np.ndarray, soloist_won: np.ndarray, poste: np.ndarray) -> np.ndarray:
    """What each of the 3 seats wins or loses on a Terziglio hand (§10.6, TV12): (R, 3) int64.

    The soloist wins (or loses) stake × poste, the stake being 2 if he went up (SU) and 4 if
    he played di mio (DI_MIO) (:data:`TERZIGLIO_STAKE`); each opponent loses (or wins) half of
    it. Zero-sum. ``contract`` NO_CONTRACT (all passed) settles nothing.
    """
    if np.ndim(contract) != 1:
        raise ValueError(f"contract must be (R,) codes, got shape {np.shape(contract)}")
    R = len(contract)
    s = _int_rows(soloist, "soloist", (R,))
    c = _int_rows(contract, "contract", (R,))
    if np.any((c < 0) | (c > 2)):
        raise ValueError(f"contract must be NO_CONTRACT, SU or DI_MIO (0..2), got {c.tolist()}")
    if np.any(((s < 0) | (s > 2)) & (c != NO_CONTRACT)):
        raise ValueError(f"soloist must be a seat 0..2, got {s.tolist()}")
    won = np.broadcast_to(np.asarray(soloist_won, dtype=bool), (R,))
    q = _int_rows(poste, "poste", (R,))
    amount = np.where(won, 1, -1) * TERZIGLIO_STAKE[c] * q
    out = np.repeat(-(amount // 2)[:, None], 3, axis=1)  # the stake is even: halves are whole
    rows = np.flatnonzero(c != NO_CONTRACT)
    out[rows, s[rows]] = amount[rows]
    out[c == NO_CONTRACT] = 0
    return out


@dataclass(frozen=True)
class TerziglioResult:
    """One Terziglio hand (§10.6). ``hand``: the sides' scores in **half-points** (side 0 the
    soloist, side 1 the two opponents; U18); ``soloist_won`` (R,) (a tie loses, [WP]);
    ``winner_points`` (R,) the winner's points rounded down to whole points (U18); ``poste``
    (R,); ``settlement`` (R, 3) by seat (:func:`terziglio_settlement`)."""

    hand: HandScore
    soloist_won: np.ndarray
    winner_points: np.ndarray
    poste: np.ndarray
    settlement: np.ndarray


def terziglio_hand(
    piles: np.ndarray,
    tricks_won: np.ndarray,
    last_trick: np.ndarray,
    soloist: np.ndarray,
    contract: np.ndarray,
    declarations: np.ndarray | None = None,
    pozzo: np.ndarray | None = None,
    *,
    poste_rounding: str = "floor",
    odd_pile: str = "exact",
    declarations_allowed: bool = True,
    mori: str = "both",
    doubling: bool = True,
    keep_capotted_declarations: bool = True,
    cappotto_bonus: int = 0,
) -> TerziglioResult:
    """Score and settle one hand of Terziglio (§10.5–6).

    ``piles`` (R, 2, 62): side 0 the soloist's pile (his 8 discards included when he went up),
    side 1 the opponents' shared pile; ``tricks_won`` (R, 2) out of 18; ``last_trick`` (R,) the
    side that won it; ``soloist`` (R,) his seat; ``contract`` (R,) SU or DI_MIO;
    ``declarations`` (R, 2) by side. ``pozzo`` (R, 62): the 8 unused cards of a DI_MIO hand,
    which go unseen to the side that wins the last trick (§10.3); ignored on SU rows (the
    Pozzo is then in the soloist's hand and discard). With the Pozzo the piles hold all 62
    cards. A soloist who went up and is capotted loses his discards (§10.5, :func:`apply_cappotto`).

    Each side counts as in Ottocento, in half-points: piles of 3-card tricks may be odd
    (U18, ``odd_pile``). The higher side wins; a tie goes against the soloist [WP]; the
    loser's points are ignored. The winner's points, rounded down, become Poste
    (``poste_rounding``, U14), settled by :func:`terziglio_settlement`.
    ``declarations_allowed`` (the spec's [CHOICE] "declarations allowed", §10.6): False
    refuses non-zero declarations. Other options as in :func:`hand_scores` (U5, U7, U11).
    """
    p = _piles(piles, 2).copy()
    R = p.shape[0]
    c = _int_rows(contract, "contract", (R,))
    if np.any((c != SU) & (c != DI_MIO)):
        raise ValueError("a Terziglio hand is played only under SU or DI_MIO; NO_CONTRACT is a redeal")
    s = _int_rows(soloist, "soloist", (R,))
    if np.any((s < 0) | (s > 2)):
        raise ValueError(f"soloist must be a seat 0..2, got {s.tolist()}")
    last = _int_rows(last_trick, "last_trick", (R,))
    if np.any((last < 0) | (last > 1)):
        raise ValueError(f"last_trick must be side 0 (soloist) or 1 (opponents), got {last.tolist()}")
    if not declarations_allowed and declarations is not None and np.any(np.asarray(declarations) != 0):
        raise ValueError("declarations_allowed=False, but declarations were given")
    if pozzo is not None:
        pz = np.asarray(pozzo)
        if pz.dtype != bool or pz.shape != (R, NUM_CARDS):
            raise ValueError(f"pozzo must be a bool mask of shape ({R}, {NUM_CARDS}), got {pz.dtype} {pz.shape}")
        di_mio = np.flatnonzero(c == DI_MIO)
        bad = np.count_nonzero(pz[di_mio], axis=1) != 8
        if np.any(bad):
            raise ValueError(f"the Pozzo is 8 cards; rows {di_mio[bad].tolist()} differ")
        if np.any(p[di_mio].any(axis=1) & pz[di_mio]):
            raise ValueError("a Pozzo card is also in a pile")
        p[di_mio, last[di_mio]] |= pz[di_mio]
    _check_whole_pack(p, "Terziglio (the Pozzo included)")
    hand = hand_scores(
        p,
        tricks_won,
        last,
        declarations,
        num_tricks=TERZIGLIO_TRICKS,
        mori=mori,
        doubling=doubling,
        keep_capotted_declarations=keep_capotted_declarations,
        cappotto_bonus=cappotto_bonus,
        half_points=True,
        odd_pile=odd_pile,
    )
    won = hand.total[:, 0] > hand.total[:, 1]
    winner_points = np.where(won, hand.total[:, 0], hand.total[:, 1]) // 2
    poste = terziglio_poste(winner_points, rounding=poste_rounding)
    return TerziglioResult(hand, won, winner_points, poste, terziglio_settlement(s, c, won, poste))


# --------------------------------------------------------------------------- Quindici (§13)
def quindici_q(points: Any) -> Any:
    """q(p) = ⌊(p + 5)/10⌋ (§13, TV13) of an int or an int array, unchecked: the one statement
    of Quindici's rounding, which the engine's claim windows compile too (U15, U24)."""
    return (points + 5) // 10


def quindici_round(points: np.ndarray | int) -> np.ndarray:
    """Quindici's rounding of a hand score (§13, TV13): q(p) = ⌊(p + 5)/10⌋ (:func:`quindici_q`).

    0–4 → 0, 5–14 → 1, 15–24 → 2, 25–34 → 3, …; q(150) = 15.
    """
    p = np.asarray(points)
    if not np.issubdtype(p.dtype, np.integer) or np.any(p < 0):
        raise ValueError(f"points must be non-negative integers, got {points!r}")
    return quindici_q(p.astype(np.int64))


def quindici_hand_scores(
    piles: np.ndarray,
    tricks_won: np.ndarray,
    last_trick: np.ndarray,
    declarations: np.ndarray | None = None,
    **options,
) -> np.ndarray:
    """Each player's rounded hand score in Quindici (§13): q(the Centocinquanta score), (R, 2).

    The rounded scores are what the players add to their totals, to a target of 15 (20, 21).
    ``options`` as in :func:`centocinquanta_hand_scores`.
    """
    return quindici_round(centocinquanta_hand_scores(piles, tricks_won, last_trick, declarations, **options).total)


# --------------------------------------------------------------------------- Mattazza (§14)
@dataclass(frozen=True)
class MattazzaResult:
    """One Mattazza hand (§14.4–5): ``hand`` the players' scores (R, n); ``losers`` (R, n)
    bool; each loser takes 1 penalty point."""

    hand: HandScore
    losers: np.ndarray


def mattazza_losers(scores: np.ndarray, tricks_won: np.ndarray) -> np.ndarray:
    """Who loses a hand of Mattazza (§14.5): (R, n) bool.

    The aim is the lowest score with at least one trick. If every player took a trick, the
    highest score loses (all of those tied for it). Otherwise every player who took no trick
    loses (and only they).
    """
    sc = np.asarray(scores)
    t = np.asarray(tricks_won)
    if sc.shape != t.shape or sc.ndim != 2:
        raise ValueError(f"scores and tricks_won must be (R, n) alike, got {sc.shape} and {t.shape}")
    none = t == 0
    highest = sc == sc.max(axis=1, keepdims=True)
    return np.where(none.any(axis=1, keepdims=True), none, highest)


def mattazza_hand(
    piles: np.ndarray,
    tricks_won: np.ndarray,
    last_trick: np.ndarray,
    *,
    full_count: bool = True,
    mori: str = "both",
    doubling: bool = True,
) -> MattazzaResult:
    """Score one hand of Mattazza and find its losers (§14.4–5, §14.7).

    ``piles`` (R, n, 62), n = 3..6 players each for himself, after the Matto exchange (a
    player who covered the Matto gave a card to that trick's winner, or the Matto itself if he
    took no trick), so every pile is n cards per trick won (checked); ``tricks_won`` (R, n)
    out of 10; ``last_trick`` (R,) the player who won it. No declarations (§14.2).

    Card points are counted per trick: Σv − N + N/n (§14.4). ``full_count`` is U16 (default
    True: "in the usual way" adds cricche, sequences and the 6-point last trick; False: card
    points only).
    """
    p = _piles(piles)
    R, n = p.shape[:2]
    if not 3 <= n <= 6:
        raise ValueError(f"Mattazza is played by 3 to 6 players, got {n}")
    last = _int_rows(last_trick, "last_trick", (R,))
    t = _tricks(tricks_won, (R, n), MATTAZZA_TRICKS, last)
    if np.any(np.count_nonzero(p, axis=2) != n * t):
        raise ValueError("each Mattazza pile holds n cards per trick won; make the Matto exchange (docs/rules/tarocchino.md §4.5) first")
    hand = hand_scores(p, t, last, group_size=n, num_tricks=MATTAZZA_TRICKS, mori=mori, doubling=doubling)
    if not full_count:
        zero = np.zeros_like(hand.total)
        hand = HandScore(hand.cards, zero, zero, zero, zero, hand.cards.copy(), hand.capotted)
    return MattazzaResult(hand, mattazza_losers(hand.total, t))


@dataclass(frozen=True)
class MattazzaStanding:
    """The state of a Mattazza game after a hand (§14.6): ``out`` (R, n) bool, the players who
    have lost (and, with the target way, dropped out); ``over`` (R,) bool, whether the game
    has ended; the players not ``out`` when it is over are its winners."""

    out: np.ndarray
    over: np.ndarray


def mattazza_standing(penalties: np.ndarray, *, way: str = "target", target: int = 3) -> MattazzaStanding:
    """Where a Mattazza game stands (§14.6, [BY p.49]), from each player's penalty points (R, n).

    ``way="target"`` (a): a player who reaches ``target`` (usually 2–6; the spec names no
    default, 3 here) loses and drops out; the rest play on until only two are left (or fewer,
    when several drop out on one hand). ``way="first_two"`` (b), 3 or 4 players: the game ends
    when 2 players have reached 3 points, and they lose (all of them, if more reach it on the
    same hand); ``target`` is then 3 regardless (the rest of that rule is cut off in the source).
    """
    _check_option(way, MATTAZZA_WAYS, "way", "§14.6 (no U-number)")
    pen = np.asarray(penalties)
    if pen.ndim != 2 or not np.issubdtype(pen.dtype, np.integer):
        raise ValueError(f"penalties must be integers of shape (R, n), got {pen.dtype} {pen.shape}")
    if way == "target":
        out = pen >= target
        return MattazzaStanding(out, np.count_nonzero(~out, axis=1) <= 2)
    if pen.shape[1] not in (3, 4):
        raise ValueError("way='first_two' is the rule for 3 or 4 players")
    out = pen >= 3
    return MattazzaStanding(out, np.count_nonzero(out, axis=1) >= 2)


# =========================================================================== the end of a hand, on the state
# The functions above count one hand from piles. Those below read a finished hand from the game's
# state (:mod:`.state`'s named columns) for the rows that ended at a step, score them, and keep a
# match's running totals: what ``TarocchinoGame`` does at SCORE, once the Matto exchange is made.
# How a game scores a hand and ends a match is its row's ``scoring`` (:data:`SCORING_MODES`).


@dataclass(frozen=True)
class EndOfHand:
    """What the end of a hand reads of one game's rules, read once from its config: the game's
    row, the player count, whether an episode is a match, and the options of the count (U5, U7,
    U11, U14, U16, U18) and of the end of the game (target, U9/U10 tie, §10.7 match hands, §14.6
    way). ``opts`` are the kernels' options (the sides' rule reads them). Options a game does
    not have are None."""

    spec: GameSpec
    num_players: int
    match: bool
    opts: np.ndarray
    mori: str
    keep_capotted: bool
    cappotto_bonus: int
    poste_rounding: str | None
    odd_pile: str | None
    full_count: bool | None
    target: int | None
    tie: str | None
    match_hands: int | None
    way: str | None

    @classmethod
    def of(cls, config: TarocchinoConfig) -> EndOfHand:
        o = config.options
        return cls(
            spec=config.spec, num_players=config.num_players, match=config.match, opts=config.kernel_options(),
            mori=o["mori"], keep_capotted=o.get("keep_capotted_declarations", True), cappotto_bonus=o.get("cappotto_bonus", 0),
            poste_rounding=o.get("poste_rounding"), odd_pile=o.get("odd_pile"), full_count=o.get("full_count"),
            target=o.get("target"), tie=o.get("tie"), match_hands=o.get("match_hands"), way=o.get("way"),
        )  # fmt: skip


@dataclass(frozen=True)
class ScoringMode:
    """How a game scores a hand and ends a match (its row's ``scoring``): ``hand`` gives (R, N)
    each seat's score of the played hands and their parts; ``match`` adds a counted hand to the
    match and says whether it is over, who won and who deals next; ``names_winner``: whether a
    match ends with a winner (``GAME_WINNER``, the details' ``"game_winner"``), as the sides'
    and the Poste's do, not Mattazza's, which ends with losers."""

    hand: Callable[..., tuple[np.ndarray, list[HandPoints | None]]]
    match: Callable[..., None]
    names_winner: bool


class HandPoints:
    """The parts of one hand's score (by side, or by seat in Mattazza), kept as the batch's arrays
    until :meth:`of_hand` makes them plain numbers (half-points, Terziglio, as halves)."""

    __slots__ = ("capotted", "i", "parts", "scale")

    def __init__(self, parts: np.ndarray, capotted: np.ndarray, scale: int, i: int) -> None:
        self.parts, self.capotted, self.scale, self.i = parts, capotted, scale, i

    def of_hand(self) -> dict[str, Any]:
        values = self.parts[self.i] / self.scale if self.scale > 1 else self.parts[self.i]
        points = dict(zip(_PARTS, values.tolist()))
        points["capotted"] = self.capotted[self.i].tolist()
        return points


#: the parts of a hand's score, in the order of :class:`HandScore`'s fields
_PARTS = ("cards", "last_trick", "combinations", "declarations", "bonus", "total")


def _breakdowns(hs: HandScore) -> list[HandPoints | None]:
    """The parts of each row's hand score (:class:`HandPoints`, made plain numbers when read)."""
    parts = np.stack([hs.cards, hs.last_trick, hs.combinations, hs.declarations, hs.bonus, hs.total], axis=1)
    return [HandPoints(parts, hs.capotted, hs.scale, i) for i in range(len(parts))]


def seat_sides(rules: EndOfHand, state: TarocchinoState, rows: np.ndarray) -> np.ndarray:
    """(R, N) the side of each seat: partners seat % 2; Terziglio 0 the soloist, 1 the others;
    else the seat itself (the rule is :func:`.seats._side`)."""
    out = np.empty((len(rows), rules.num_players), dtype=np.int64)
    sides_rows(state.ints, np.asarray(rows, dtype=np.int64), rules.num_players, rules.opts, out)
    return out


@kernel
def side_piles_rows(rows, sides, cards, seat_ints, piles, tricks, decl):
    """Add up, for each of ``rows`` (``sides[i]``: the side of each seat), each side's pile (the
    cards its players won), tricks and declarations into ``piles`` (R, S, 62), ``tricks`` and
    ``decl`` (R, S), zeroed by the caller. A compiled loop: the scoring and the Matto exchange
    read it for every hand that ends (docs/performance.md, "What the kernels replaced")."""
    for i in range(rows.shape[0]):
        b = rows[i]
        for c in range(cards.shape[2]):
            holder = cards[b, PILE_OF, c]
            if holder >= 0:
                piles[i, sides[i, holder], c] = True
        for s in range(sides.shape[1]):
            tricks[i, sides[i, s]] += seat_ints[b, s, TRICKS]
            decl[i, sides[i, s]] += seat_ints[b, s, DECLARED]


def side_piles(rules: EndOfHand, state: TarocchinoState, rows: np.ndarray, sides: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(R, S, 62) each side's pile, (R, S) tricks won and declarations (S = 2, or N in Mattazza)
    (:func:`side_piles_rows`)."""
    S = 2 if rules.spec.two_sides else rules.num_players
    piles = np.zeros((len(rows), S, NUM_CARDS), dtype=bool)
    tricks = np.zeros((len(rows), S), dtype=np.int64)
    decl = np.zeros((len(rows), S), dtype=np.int64)
    side_piles_rows(np.asarray(rows, dtype=np.int64), sides, state.cards, state.seat_ints, piles, tricks, decl)
    return piles, tricks, decl


# --------------------------------------------------------------------------- a played hand, by mode
def played_hands(
    rules: EndOfHand, state: TarocchinoState, rows: np.ndarray, infos: list[dict[str, Any]]
) -> tuple[np.ndarray, list[HandPoints | None]]:
    """(R, N) each seat's score for the played hands ``rows`` (their Matto exchange made; see
    docs/tarocchino.md for each game), and each hand's score part by part (:class:`HandPoints`,
    the details' ``"points"``), by the game's :class:`ScoringMode`."""
    for info in infos:
        info["result"] = "played"
        info["points"] = None  # each hand's HandPoints, made plain numbers when its details are read (HandEnd.info)
    sides = seat_sides(rules, state, rows)
    piles, tricks, decl = side_piles(rules, state, rows, sides)
    return SCORING_MODES[rules.spec.scoring].hand(rules, state, rows, infos, sides, piles, tricks, decl)


def _poste_hand(
    rules: EndOfHand,
    state: TarocchinoState,
    rows: np.ndarray,
    infos: list[dict[str, Any]],
    sides: np.ndarray,
    piles: np.ndarray,
    tricks: np.ndarray,
    decl: np.ndarray,
) -> tuple[np.ndarray, list[HandPoints | None]]:
    """Terziglio (§10.6): the soloist against the other two, the winner's points in Poste, settled
    at once. A "di mio" Pozzo is already in the piles: the engine put it in the last trick's
    winner's pile before the Matto exchange (U25)."""
    ints = state.ints
    last = sides[np.arange(len(rows)), ints[rows, LAST_WINNER]]
    contract = ints[rows, CONTRACT]
    res = terziglio_hand(
        piles, tricks, last, ints[rows, SOLOIST], contract, decl, None,
        poste_rounding=rules.poste_rounding, odd_pile=rules.odd_pile, keep_capotted_declarations=rules.keep_capotted,
        cappotto_bonus=rules.cappotto_bonus, mori=rules.mori,
    )  # fmt: skip
    for i, info in enumerate(infos):
        info.update(
            soloist=int(ints[rows[i], SOLOIST]), contract=TERZIGLIO_CONTRACTS[int(contract[i])],
            soloist_won=bool(res.soloist_won[i]), winner_points=int(res.winner_points[i]), poste=int(res.poste[i]),
        )  # fmt: skip
    return res.settlement, _breakdowns(res.hand)


def _sides_hand(
    rules: EndOfHand,
    state: TarocchinoState,
    rows: np.ndarray,
    infos: list[dict[str, Any]],
    sides: np.ndarray,
    piles: np.ndarray,
    tricks: np.ndarray,
    decl: np.ndarray,
) -> tuple[np.ndarray, list[HandPoints | None]]:
    """Two sides, each counting its pile (§8.3, §11.7, §12.4; the state's arrays need no checks);
    Quindici rounds each side's score (§13) and keeps the raw one in the details."""
    last = sides[np.arange(len(rows)), state.ints[rows, LAST_WINNER]]
    hs = checked_hand_scores(
        piles, tricks, last, decl, group_size=2, half_points=False, odd_alone=False, mori_code=rules.opts[O_MORI],
        doubling=True, keep_capotted=rules.keep_capotted, cappotto_bonus=rules.cappotto_bonus,
    )  # fmt: skip
    side_scores = hs.total
    if rules.spec.rounded:
        for i, info in enumerate(infos):
            info["raw"] = [int(x) for x in side_scores[i]]
        side_scores = quindici_round(side_scores)
    return np.take_along_axis(side_scores, sides, axis=1), _breakdowns(hs)


def _penalty_hand(
    rules: EndOfHand,
    state: TarocchinoState,
    rows: np.ndarray,
    infos: list[dict[str, Any]],
    sides: np.ndarray,
    piles: np.ndarray,
    tricks: np.ndarray,
    decl: np.ndarray,
) -> tuple[np.ndarray, list[HandPoints | None]]:
    """Mattazza (§14.4–5): each for himself, among the players still in the match; the details
    name the hand's losers."""
    ints = state.ints
    R, n = len(rows), rules.num_players
    out = np.zeros((R, n), dtype=np.int64)
    points: list[HandPoints | None] = [None] * R  # every row is in one group below
    full = state.seat_ints[rows, :, ACTIVE].all(axis=1)
    groups = [(np.flatnonzero(full), np.arange(n))]
    groups += [(np.array([i]), np.flatnonzero(state.seat_ints[rows[i], :, ACTIVE])) for i in np.flatnonzero(~full)]
    for idx, active in groups:
        if not len(idx):
            continue
        lw = ints[rows[idx], LAST_WINNER]
        pos = np.searchsorted(active, lw)
        res = mattazza_hand(piles[idx][:, active], tricks[idx][:, active], pos, full_count=rules.full_count, mori=rules.mori)
        out[idx[:, None], active[None, :]] = res.hand.total
        for j, (i, parts) in enumerate(zip(idx, _breakdowns(res.hand))):
            points[i] = parts
            infos[i]["losers"] = [int(active[s]) for s in np.flatnonzero(res.losers[j])]
    return out, points


# --------------------------------------------------------------------------- a claimed hand (U27)
def claimed_scores(rules: EndOfHand, state: TarocchinoState, r: int, claimer: int, side: int) -> np.ndarray:
    """(N,) each seat's score of a hand ended by a correct claim (U27): every declaration made
    so far in the hand counts for its side, as §7 records it at once. The claiming side has
    the declaration the claimer claimed with (in Ottocento's §8.4 step 4 the Primo's is part of
    his claim, and counted once, as the Primo declared it) and what its players declared
    before; the other side what its players declared. At a Millone first turn the claim counted
    only the first-deal cards of his declaration toward the target, yet it is the declaration he
    makes there, so the whole of it is credited (U29, §11.6). Quindici: rounded (q) as a hand
    score is (§13, U15); the claimer's part is the rounded value his claim used (U24)."""
    ints, seat_ints = state.ints, state.seat_ints
    sides = seat_sides(rules, state, np.array([r], dtype=np.int64))[0]
    declared = np.bincount(sides, weights=seat_ints[r, :, DECLARED], minlength=2).astype(np.int64)
    used = int(ints[r, CLAIM_VALUE]) - int(seat_ints[r, claimer, TOTAL])
    if rules.spec.rounded:  # Quindici, two players: the claimer has declared nothing yet
        credit = quindici_round(declared)
        credit[side] += used
    else:  # the declaration the claimer makes with the cards he holds at his window
        window = int(ints[r, WINDOW])
        if window == W_PICKUP:  # his first cards, before he picks up his last 2 (§8.4.1)
            own = int(ints[r, PICKUP_DECL])
        elif window == W_FIRST_TURN:  # his whole declaration, though Millone's claim counted only its first-deal cards (U29, §11.6)
            own = int(seat_ints[r, claimer, DECL])
        else:  # the opponent's right after the pickup: his hand before any discard (§11.3, U21)
            own = int(seat_ints[r, claimer, CLAIM_DECL])
        credit = declared
        credit[side] += own
    return credit[sides]


# --------------------------------------------------------------------------- the match
def settle_matches(
    rules: EndOfHand, state: TarocchinoState, rows: np.ndarray, result: np.ndarray, scores: np.ndarray, infos: list[dict[str, Any]]
) -> tuple[np.ndarray, np.ndarray]:
    """Running totals, the end of the game and the next dealer (§8.4 end, §9, §10.7, §11–§14), by
    the game's :class:`ScoringMode`. Returns (R,) whether the match is over (a claim always ends
    it; with one deal per episode, never) and (R,) the next dealer."""
    ints = state.ints
    n, R = rules.num_players, len(rows)
    d = ints[rows, DEALER]
    next_dealer = (d + 1) % n
    over = np.zeros(R, dtype=bool)
    winner = np.full(R, -1, dtype=np.int64)
    claim = (result == RS_CLAIMED) | (result == RS_WRONG_CLAIM)
    over[claim] = True
    winner[claim] = ints[rows[claim], GAME_WINNER]
    idx = np.flatnonzero(result == RS_PLAYED)  # a thrown-in hand does not count (U12); a claim ends the game
    ints[rows[idx], HANDS_PLAYED] += 1
    mode = SCORING_MODES[rules.spec.scoring]
    mode.match(rules, state, rows, idx, scores, infos, over, winner, next_dealer)
    for info, totals_row in zip(infos, state.seat_ints[rows, :, TOTAL].tolist()):
        info["totals"] = totals_row
    if mode.names_winner:
        for i in np.flatnonzero(over).tolist():
            infos[i]["game_winner"] = "draw" if winner[i] == DRAW else int(winner[i])
            ints[rows[i], GAME_WINNER] = winner[i]
    return over & rules.match, next_dealer


def _add_totals(
    rules: EndOfHand,
    state: TarocchinoState,
    rows: np.ndarray,
    idx: np.ndarray,
    scores: np.ndarray,
    infos: list[dict[str, Any]],
    next_dealer: np.ndarray,
) -> np.ndarray:
    """A counted hand's scores added to the running totals (Quindici: the raw ones too, U24); the
    soloist deals next where the game's row says so (§10.7). Returns the rows counted."""
    ints, seat_ints = state.ints, state.seat_ints
    r = rows[idx]
    seat_ints[r, :, TOTAL] += scores[idx]
    if rules.spec.rounded:
        sides = seat_sides(rules, state, r)
        raw = np.array([infos[i]["raw"] for i in idx], dtype=np.int64).reshape(len(idx), 2)
        seat_ints[r, :, RAW_TOTAL] += np.take_along_axis(raw, sides, axis=1)
    if rules.spec.next_dealer == "soloist":
        next_dealer[idx] = ints[r, SOLOIST]
    return r


def _sides_match(
    rules: EndOfHand,
    state: TarocchinoState,
    rows: np.ndarray,
    idx: np.ndarray,
    scores: np.ndarray,
    infos: list[dict[str, Any]],
    over: np.ndarray,
    winner: np.ndarray,
    next_dealer: np.ndarray,
) -> None:
    """To a target (§8.4 end, §11.7, §12.3, §13; a tie U9), or a fixed number of hands (Quattro
    Scartate, §9; a tie U10)."""
    r = _add_totals(rules, state, rows, idx, scores, infos, next_dealer)
    totals = state.seat_ints[r][:, [0, 1], TOTAL]  # side 0 and side 1: seats 0 and 1 in every 2-side game here
    if rules.spec.game_hands is not None:
        res = quattro_scartate_result(totals, state.ints[r, HANDS_PLAYED], tie=rules.tie, hands=rules.spec.game_hands)
    else:
        res = game_result(totals, rules.target, tie=rules.tie)
    over[idx] = res != PLAY_ON
    winner[idx] = res


def _poste_match(
    rules: EndOfHand,
    state: TarocchinoState,
    rows: np.ndarray,
    idx: np.ndarray,
    scores: np.ndarray,
    infos: list[dict[str, Any]],
    over: np.ndarray,
    winner: np.ndarray,
    next_dealer: np.ndarray,
) -> None:
    """Terziglio (§10.7): every hand a game, settled at once; a match is ``match_hands`` hands,
    won by the highest total (a tie for it: a draw)."""
    r = _add_totals(rules, state, rows, idx, scores, infos, next_dealer)
    over[idx] = state.ints[r, HANDS_PLAYED] >= rules.match_hands
    tot = state.seat_ints[r, :, TOTAL]
    unique = np.count_nonzero(tot == tot.max(axis=1, keepdims=True), axis=1) == 1
    winner[idx] = np.where(unique, np.argmax(tot, axis=1), DRAW)


def _penalty_match(
    rules: EndOfHand,
    state: TarocchinoState,
    rows: np.ndarray,
    idx: np.ndarray,
    scores: np.ndarray,
    infos: list[dict[str, Any]],
    over: np.ndarray,
    winner: np.ndarray,
    next_dealer: np.ndarray,
) -> None:
    """Mattazza (§14.6): each loser of a hand takes a penalty point; players drop out at the target
    (or the first two to 3 lose); the nearest seat to the dealer's right still in deals next."""
    ints, seat_ints = state.ints, state.seat_ints
    n = rules.num_players
    r = rows[idx]
    losers = np.zeros((len(idx), n), dtype=bool)
    for j, i in enumerate(idx):
        losers[j, infos[i]["losers"]] = True
    seat_ints[r, :, PENALTY] += losers
    standing = mattazza_standing(seat_ints[r, :, PENALTY], way=rules.way, target=rules.target)
    if rules.way == "target":
        seat_ints[r, :, ACTIVE] = (~standing.out).astype(np.int64)
    over[idx] = standing.over
    for j, i in enumerate(idx):
        infos[i]["penalties"] = [int(x) for x in seat_ints[r[j], :, PENALTY]]
        if standing.over[j]:
            infos[i]["match_losers"] = [int(s) for s in np.flatnonzero(standing.out[j])]
    d = ints[rows, DEALER]
    nxt = np.full(len(rows), -1, dtype=np.int64)
    for step in range(n, 0, -1):  # the nearest seat to the dealer's right still in
        cand = (d + step) % n
        nxt = np.where(seat_ints[rows, cand, ACTIVE] == 1, cand, nxt)
    next_dealer[:] = nxt


#: How each game scores a hand and ends a match, by its row's ``scoring`` (:data:`.games.Scoring`).
SCORING_MODES: dict[str, ScoringMode] = {
    "sides": ScoringMode(_sides_hand, _sides_match, names_winner=True),
    "poste": ScoringMode(_poste_hand, _poste_match, names_winner=True),
    "penalty": ScoringMode(_penalty_hand, _penalty_match, names_winner=False),
}
