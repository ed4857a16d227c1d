"""The count of a finished Tarocchino hand, and each game's own count (docs/rules/tarocchino.md §§4.6, 7–14), batch-first.

Pure functions over rows: piles of won cards as bool card masks ``(R, S, 62)`` (R rows, S
sides or players), per-row integers ``(R,)`` or ``(R, S)``. They need no play state machine:
the caller hands over what a finished hand left on the table (each side's *Tallone di Presa*,
discards included, the Matto exchange of §4.5 made when the Matto owner's side took a trick),
the tricks each side won, who took the last trick and the declarations made. Points are whole
points, except in Terziglio, whose piles may be odd (U18) and are counted in half-points.

The layers above: :mod:`.hand_end` reads the rows whose hand ended from the game's state and
scores them through these counts; :mod:`.settlement` keeps a match's totals and says when it
ends. The points of one card and of a pile are :mod:`.counting`'s; cricche and sequences
:mod:`.combinations`'.

What each game adds (the sections of the spec): every game's hand is counted by
:func:`hand_scores` with the numbers of its row (tricks, sides, pairs or tricks of n, points or
half-points); the per-game worked examples call it through the tests' oracles
(tests/oracles/tarocchino_scoring.py).

- **Ottocento** (§8), **Quattro Scartate** (§9), **Millone** (§11), **Centocinquanta** (§12):
  :func:`hand_scores` (§8.3: cards in pairs + last trick + combinations + declarations, both
  sides score; cappotto §4.6, :func:`_cappotto`).
- **Terziglio** (§10): :func:`terziglio_poste`, :func:`terziglio_settlement` (the stakes, TV12)
  and :func:`terziglio_hand` (a whole hand: Pozzo, cappotto, half-points, winner, poste,
  settlement).
- **Quindici** (§13): :func:`quindici_round` (q, TV13) of the hand score; the claims' rounding
  (U15, U24) in the engine's claim windows (claims.py).
- **Mattazza** (§14): :func:`mattazza_hand` (per-trick count, who loses), :func:`mattazza_losers`.

Seats are numbered in playing order: seat ``s + 1`` (mod n) plays after seat ``s``, i.e. on
his right (play is anticlockwise, §4.1). In the 4-player games the sides are ``seat % 2``
(partners sit opposite, §5.1); the dealer's right, ``dealer + 1``, is the *Primo di Mano*.

Every [CHOICE] of the spec that a function here depends on is a keyword argument whose
default is the spec's; the docstrings name its U-number (§15).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tarot_env._jit import kernel
from tarot_env.cards.bolognese import NUM_CARDS
from tarot_env.rules.bolognese.combinations import MORI_CODE, MORI_OPTIONS, SEQUENCE_FAMILIES, combination_points, combination_points_row
from tarot_env.rules.bolognese.counting import CARD_VALUE, LAST_TRICK_BONUS, _groups_half_points, _groups_points, _odd_alone_half_points
from tarot_env.rules.bolognese.game_specs import GAMES

# --------------------------------------------------------------------------- constants
# The games' facts are the rows of the one table of the games (game_specs.py); these names read them.
#: Tricks in a hand of Terziglio and Mattazza (§10.4, §14.3), which their whole-hand counts check.
TERZIGLIO_TRICKS = GAMES["terziglio"].tricks
MATTAZZA_TRICKS = GAMES["mattazza"].tricks

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
def _cappotto(p: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Move a capotted side's pile to the other side (§4.6, §4.5, §10.5), on checked (R, 2, 62) piles.

    A side that took no trick can hold in its pile only what it did not win in play: its
    discard (the dealer's 2 cards in Ottocento, the soloist's 8 in Terziglio, a player's 10 or
    12 in Millone) and the Matto it covered. The cappotto takes both: "the side with no tricks
    loses its discard", and the Matto goes to the opponents because the side has no card to
    give for it. So the whole pile changes hands. Returns the new piles and ``capotted`` (R, 2)
    bool, the sides with no trick. Two sides only: Mattazza (§14.7) hands the Matto to the
    winner of the trick in which it was covered, which only the play knows."""
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
    side's pile (its discard, the Matto) goes to the other side first (:func:`_cappotto`).
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
    ``scale``). ``piles`` are those after the cappotto (:func:`_cappotto`), ``capotted``
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


def declaration_points(hands: np.ndarray, *, mori: str = "both", doubling: bool = True) -> np.ndarray:
    """The value of declaring a hand (§7): its cricche and sequences, valued as in §6.

    ``hands`` (R, 62) or (62,) bool, the cards shown (for a claim, only the cards the rule
    lets the player use: the dealer's first 15 before picking up (§8.4.1), the first deal in
    Millone (§11.6)). ``doubling`` is U6 (default True: declarations double like the end-of-hand
    count; False is the alternative "declarations undoubled").
    """
    return combination_points(hands, mori=mori, doubling=doubling)


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
    cards. A soloist who went up and is capotted loses his discards (§10.5, :func:`_cappotto`).

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
