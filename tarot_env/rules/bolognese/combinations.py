"""Combinations: *cricche* and *sequenze* (docs/rules/tarocchino.md §6), batch-first.

A set of cards (a side's Tallone di Presa at the end of a hand, or a hand declared in the
Accuso, §7) is a bool card mask; the batch functions take ``(R, 62)`` masks, or one ``(62,)``
mask, and return one number per row. Points are whole points (no half-points arise here).

**Cricche (§6.1).** Five families of four cards: Tarocchi (Angelo, Mondo, Bégato, Matto),
Re, Regine, Cavalli, Fanti. Three cards of a family score 18/17/14/13/12, four cards twice
that. The contatori are members of the Tarocchi family but never stand in for a missing
member of any family. With 3 or more cricche (*criccone*) the side's whole cricca total is
doubled (§6.2); all five complete is the *Mezzo Criccone*, 148, doubled 296.

**Sequences (§6.3).** Seven families: the Grande (trumps, headed by the Angelo), one per suit
(headed by the Re), the Mori, the Aces. C = the number of contatori (Bégato, Matto) in the set.
Each contatore counts in *every* valid sequence of the set, and may stand in for one missing
member to reach the minimum of three. A valid sequence of L cards (contatori included) scores
5 × (L − 1); with 3 or more valid sequences the sequence total is doubled, independently of
the cricche (§6.2).

- suit X: the Re, and f of {Regina, Cavallo, Fante} with f ≥ 2 or (f = 1 and C ≥ 1);
  L = 1 + f + [Asso] + C (the Ace lengthens the sequence but never makes it valid);
- Grande: the Angelo, and h of {Mondo, Sole, Luna} with h ≥ 2 or (h = 1 and C ≥ 1) (one
  free skip in the head, a contatore for a second); the contatori not used in the head fill
  the gaps of the *scavezzo* chain 16, 15, …, 5, and the first gap left unfilled (the
  *scavezza*) ends it; only a chain that passed the 5 goes on to the Mori;
  L = 1 + h + (numbers of the chain held) + (Mori counted) + C;
- Mori: m ≥ 3, or m = 2 and C ≥ 1; L = m + C;
- Aces: a ≥ 3, or a = 2 and C ≥ 1; L = a + C.

The full Grande is 22 cards, 105 points; a side holding all 62 cards scores 296 in cricche and
550 in sequences (§16 TV4).

Options, as keyword arguments with the spec's default:

- ``mori`` (U5): where a Moro counts when the Grande reaches the Mori and the side also holds
  a Mori sequence. ``"both"`` (default): in both, as an Ace counts in its suit and in the Aces
  ([PIS] p.125). The alternatives read "only one of the two": ``"grande"`` (a Moro the Grande
  reaches counts only there, so no Mori sequence is formed then), ``"mori"`` (a valid Mori
  sequence keeps its Mori and the Grande stops at the 5; without one, the Grande counts them:
  each Moro is still used by one family only, U26),
  ``"best"`` (whichever of those two scores more for the side, doubling included; a tie keeps
  ``"grande"``).
- ``doubling`` (U6, and §6.2): ``True`` applies the criccone and the 3-sequence doubling. The
  default holds for the end-of-hand count and, per U6, for declarations; ``False`` is U6's
  alternative "declarations undoubled".

Cross-checks, as the table counts them (§6.1, §6.3, §8.3): Barilli's cricca shortcut
(:func:`barilli_cricche`, 148 minus what the other side holds) and Pisarri's Grande shortcut
(:func:`pisarri_grande`, 105 − 5·(S + h′ + c′)), both computed from the other side's pile only.

:func:`breakdown` gives one set's combinations family by family (for explanations), from the
batch functions.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from tarot_env._jit import kernel
from tarot_env.cards.bolognese import (
    ANGELO,
    BEGATO,
    BOLOGNESE_DECK,
    IS_ACE,
    IS_CONTATORE,
    IS_MORO,
    IS_TRUMP,
    LUNA,
    MATTO,
    MONDO,
    NUM_CARDS,
    NUMBERED,
    SOLE,
    SUITS,
    suit_card,
)

# --------------------------------------------------------------------------- cricche (§6.1)
CRICCA_FAMILIES = ("tarocchi", "re", "regine", "cavalli", "fanti")
#: The four cards of each cricca family, one row per family of :data:`CRICCA_FAMILIES`.
CRICCA_CARDS = np.array(
    [[ANGELO, MONDO, BEGATO, MATTO]] + [[suit_card(rank, s) for s in SUITS] for rank in ("K", "Q", "N", "J")],
    dtype=np.int64,
)
#: Points of a 3-card cricca of each family; a 4-card cricca scores twice as much (§6.1).
CRICCA_VALUE = np.array([18, 17, 14, 13, 12], dtype=np.int64)
#: All five cricche complete, before the criccone doubling: 36 + 34 + 28 + 26 + 24 (§6.1).
MEZZO_CRICCONE = int(2 * CRICCA_VALUE.sum())
#: Number of cricche (of sequences) from which the side's cricca (sequence) total doubles (§6.2).
DOUBLING_COUNT = 3

# --------------------------------------------------------------------------- sequences (§6.3)
SEQUENCE_FAMILIES = ("grande", "spade", "bastoni", "coppe", "denari", "mori", "assi")
#: Points per card of a sequence beyond the first: a valid sequence of L cards scores 5·(L − 1).
SEQUENCE_STEP = 5
#: The head of the Grande after the Angelo.
GRANDE_HEAD = np.array([MONDO, SOLE, LUNA], dtype=np.int64)
#: The *Numeri di Scavezzo* in chain order, 16 down to 5.
SCAVEZZO = np.array(NUMBERED[::-1], dtype=np.int64)
#: Pisarri number of each scavezzo position (16 … 5).
SCAVEZZO_NUMBERS = BOLOGNESE_DECK.rank[SCAVEZZO].astype(np.int64)
#: The full Grande: Angelo, 3 head trumps, 12 scavezzo numbers, 4 Mori, 2 contatori = 22 cards.
GRANDE_FULL = SEQUENCE_STEP * (22 - 1)
CONTATORI = np.flatnonzero(IS_CONTATORE)
SUIT_RE = np.array([suit_card("K", s) for s in SUITS], dtype=np.int64)
#: {Regina, Cavallo, Fante} of each suit, one row per suit.
SUIT_FIGURES = np.array([[suit_card(rank, s) for rank in ("Q", "N", "J")] for s in SUITS], dtype=np.int64)
ACES = np.flatnonzero(IS_ACE)
MORI_IDS = np.flatnonzero(IS_MORO)
MORI_OPTIONS = ("both", "grande", "mori", "best")
#: The cards of some combination family (§6.1, §6.3); one outside them (each suit's 6 to 10)
#: never changes a set's cricche or sequences, whatever else the set holds.
IN_COMBINATION = np.zeros(NUM_CARDS, dtype=bool)
for _family in (CRICCA_CARDS.ravel(), SUIT_RE, SUIT_FIGURES.ravel(), ACES, MORI_IDS, GRANDE_HEAD, [ANGELO], SCAVEZZO, CONTATORI):
    IN_COMBINATION[np.asarray(_family)] = True
_TRUMP_RANK = np.where(IS_TRUMP, BOLOGNESE_DECK.rank, -1).astype(np.int64)  # the Matto is no ranked trump


def _masks(sets: np.ndarray) -> tuple[np.ndarray, bool]:
    """``(R, 62)`` bool masks (a ``(62,)`` mask becomes one row) and whether the input was one set."""
    arr = np.asarray(sets)
    if arr.dtype != bool or arr.ndim not in (1, 2) or arr.shape[-1] != NUM_CARDS:
        raise ValueError(f"card sets must be bool masks of shape (R, {NUM_CARDS}) or ({NUM_CARDS},), got {arr.dtype} {arr.shape}")
    return np.atleast_2d(arr), arr.ndim == 1


def _out(values: np.ndarray, single: bool) -> np.ndarray:
    return values[0] if single else values


def _check_mori(mori: str) -> None:
    if mori not in MORI_OPTIONS:
        raise ValueError(f"mori must be one of {MORI_OPTIONS} (docs/rules/tarocchino.md U5), got {mori!r}")


def _doubled(total: np.ndarray, count: np.ndarray, doubling: bool) -> np.ndarray:
    """§6.2: the total of one kind doubles with 3 or more combinations of that kind."""
    return total * np.where(doubling & (count >= DOUBLING_COUNT), 2, 1)


# --------------------------------------------------------------------------- cricche, batch
def _cricca_counts(m: np.ndarray) -> np.ndarray:
    return m[:, CRICCA_CARDS].sum(axis=-1, dtype=np.int64)


def _cricca_family_points(counts: np.ndarray) -> np.ndarray:
    # §6.1: 3 cards score the family's value, 4 cards twice; a contatore is never a stand-in,
    # so only the family's own cards count (the Bégato and Matto are Tarocchi themselves)
    return np.where(counts == 4, 2 * CRICCA_VALUE, np.where(counts == 3, CRICCA_VALUE, 0))


def cricca_counts(sets: np.ndarray) -> np.ndarray:
    """Cards of each cricca family held: ``(R, 62)`` -> ``(R, 5)`` in :data:`CRICCA_FAMILIES` order."""
    m, single = _masks(sets)
    return _out(_cricca_counts(m), single)


def cricche_family_points(sets: np.ndarray) -> np.ndarray:
    """Points of each cricca family before the criccone (§6.1): ``(R, 62)`` -> ``(R, 5)``."""
    m, single = _masks(sets)
    return _out(_cricca_family_points(_cricca_counts(m)), single)


def cricche_points(sets: np.ndarray, *, doubling: bool = True) -> np.ndarray:
    """The side's cricca total (§6.1, §6.2): ``(R, 62)`` -> ``(R,)`` int64.

    With 3 or more cricche (the criccone) the whole total is doubled, a 4-card cricca included
    (36 -> 72); ``doubling=False`` leaves it undoubled (U6's alternative for declarations).
    """
    m, single = _masks(sets)
    counts = _cricca_counts(m)
    total = _cricca_family_points(counts).sum(axis=-1)
    return _out(_doubled(total, np.count_nonzero(counts >= 3, axis=-1), doubling), single)


# --------------------------------------------------------------------------- sequences, batch
#: the U5 ``mori`` option as the int the row functions take (:func:`combination_points_row`)
MORI_CODE = {"both": 0, "grande": 1, "mori": 2, "best": 3}
_SUIT_FIGS = SUIT_FIGURES  # (4, 3)


@kernel
def _lengths_row(m, mori_code, L):
    """L of each sequence family of one set ``m`` (62,) bool into ``L`` (7,), 0 where not
    valid (§6.3), for ``mori_code`` 0 "both", 1 "grande", 2 "mori" (U5). One implementation,
    compiled by numba when it is installed (this runs once or twice per hand)."""
    C = 0
    for c in CONTATORI:
        if m[c]:
            C += 1
    # the four suits: the Re heads; 2 of {Q, N, J}, or 1 and a contatore; the Ace only lengthens
    for s in range(4):
        f = 0
        for k in range(3):
            if m[_SUIT_FIGS[s, k]]:
                f += 1
        if m[SUIT_RE[s]] and (f >= 2 or (f == 1 and C >= 1)):
            L[1 + s] = 1 + f + (1 if m[ACES[s]] else 0) + C
        else:
            L[1 + s] = 0
    # Mori and Aces (no head): 3 cards, or 2 and a contatore (one stand-in at most)
    n_mori = 0
    for c in MORI_IDS:
        if m[c]:
            n_mori += 1
    mori_valid = n_mori >= 3 or (n_mori == 2 and C >= 1)
    L[5] = n_mori + C if mori_valid else 0
    a = 0
    for c in ACES:
        if m[c]:
            a += 1
    L[6] = a + C if (a >= 3 or (a == 2 and C >= 1)) else 0
    # the Grande: the Angelo; 2 of the head, or 1 and a contatore (one free skip in the head)
    h = 0
    for c in GRANDE_HEAD:
        if m[c]:
            h += 1
    grande_valid = m[ANGELO] and (h >= 2 or (h == 1 and C >= 1))
    spare = C - max(0, 2 - h)  # contatori left after filling the head
    # the chain 16..5: each gap takes a spare contatore; the first gap with none left breaks it
    numbers = 0
    gaps = 0
    past_five = True
    for c in SCAVEZZO:
        if m[c]:
            numbers += 1
        else:
            gaps += 1
            if gaps > spare:
                past_five = False
                break
    grande_mori = n_mori if past_five else 0  # past the 5 the chain goes on to the Mori (no gaps)
    if mori_code == 1:
        if grande_valid and grande_mori > 0:
            L[5] = 0  # a Moro the Grande counts is not counted again in a Mori sequence
    elif mori_code == 2:
        if mori_valid:
            grande_mori = 0  # a valid Mori sequence keeps its Mori, and the Grande stops at the 5
        # else (U26): the Mori make no sequence of their own, so the Grande counts them
    L[0] = 1 + h + numbers + grande_mori + C if grande_valid else 0


@kernel
def _sequence_total_row(L, doubling):
    total = 0
    count = 0
    for k in range(L.shape[0]):
        if L[k] > 0:
            total += SEQUENCE_STEP * (L[k] - 1)
            count += 1
    if doubling and count >= DOUBLING_COUNT:
        total *= 2
    return total


@kernel
def _best_lengths_row(m, mori_code, doubling, L, L2):
    """U5 for one set: "best" takes whichever of "grande" and "mori" scores more."""
    if mori_code != 3:
        _lengths_row(m, mori_code, L)
        return
    _lengths_row(m, 1, L)
    _lengths_row(m, 2, L2)
    if _sequence_total_row(L2, doubling) > _sequence_total_row(L, doubling):
        for k in range(L.shape[0]):
            L[k] = L2[k]


@kernel
def _lengths_rows(m, mori_code, doubling, L):
    L2 = np.zeros(L.shape[1], dtype=np.int64)
    for r in range(m.shape[0]):
        _best_lengths_row(m[r], mori_code, doubling, L[r], L2)


@kernel
def _cricche_row(m, doubling):
    total = 0
    count = 0
    for f in range(CRICCA_CARDS.shape[0]):
        k = 0
        for c in CRICCA_CARDS[f]:
            if m[c]:
                k += 1
        if k == 4:
            total += 2 * CRICCA_VALUE[f]
        elif k == 3:
            total += CRICCA_VALUE[f]
        if k >= 3:
            count += 1
    if doubling and count >= DOUBLING_COUNT:
        total *= 2
    return total


@kernel(inline=True)
def pair_scratch():
    """Scratch rows for counting the combinations of two card sets row by row: two (62,) bool
    sets and the (7,) int64 ``L``, ``L2`` of :func:`combination_points_row`."""
    families = len(SEQUENCE_FAMILIES)
    sets = np.zeros(NUM_CARDS, dtype=np.bool_), np.zeros(NUM_CARDS, dtype=np.bool_)
    return sets[0], sets[1], np.zeros(families, dtype=np.int64), np.zeros(families, dtype=np.int64)


@kernel
def combination_points_row(m, mori_code, doubling, L, L2):
    """:func:`combination_points` of one set ``m`` (62,) bool: cricche + sequences, each doubled
    on its own (§6.2). ``mori_code`` is :data:`MORI_CODE` of the U5 option; ``L`` and ``L2`` are
    (7,) int64 scratch rows (the sequence lengths, overwritten). The one implementation of the
    count: the batch functions loop over it, and compiled callers (the rule-based bot, which
    values each card it could play or discard by the combinations it makes or breaks) call it
    row by row without building a batch."""
    _best_lengths_row(m, mori_code, doubling, L, L2)
    return _cricche_row(m, doubling) + _sequence_total_row(L, doubling)


@kernel
def _points_rows(m, mori_code, doubling, out):
    """combination_points row by row (:func:`combination_points_row`)."""
    L = np.zeros(len(SEQUENCE_FAMILIES), dtype=np.int64)
    L2 = np.zeros(len(SEQUENCE_FAMILIES), dtype=np.int64)
    for r in range(m.shape[0]):
        out[r] = combination_points_row(m[r], mori_code, doubling, L, L2)


def _lengths(m: np.ndarray, mori: str, doubling: bool = True) -> np.ndarray:
    """L of each sequence family, 0 where not valid (U5 ``mori`` including "best")."""
    L = np.zeros((len(m), len(SEQUENCE_FAMILIES)), dtype=np.int64)
    _lengths_rows(np.ascontiguousarray(m), MORI_CODE[mori], doubling, L)
    return L


def _scavezza(m: np.ndarray) -> np.ndarray:
    """The Pisarri number of the trump that breaks each row's Grande chain (§6.3), -1 when the
    chain passes the 5 (computed as in :func:`_lengths`; meaningful where the Grande is valid)."""
    C = m[:, CONTATORI].sum(axis=1, dtype=np.int64)
    h = m[:, GRANDE_HEAD].sum(axis=1, dtype=np.int64)
    spare = C - np.maximum(0, 2 - h)
    broken = np.cumsum(~m[:, SCAVEZZO], axis=1) > spare[:, None]
    first = np.argmax(broken, axis=1)
    return np.where(broken.any(axis=1), SCAVEZZO_NUMBERS[first], -1)


def _sequence_total(L: np.ndarray, doubling: bool) -> np.ndarray:
    pts = np.where(L > 0, SEQUENCE_STEP * (L - 1), 0)
    return _doubled(pts.sum(axis=-1), np.count_nonzero(L, axis=-1), doubling)


def _sequence_lengths(m: np.ndarray, mori: str, doubling: bool) -> np.ndarray:
    _check_mori(mori)
    return _lengths(m, mori, doubling)


def sequence_lengths(sets: np.ndarray, *, mori: str = "both", doubling: bool = True) -> np.ndarray:
    """L of each sequence family, 0 where the set holds no valid one (§6.3).

    ``(R, 62)`` -> ``(R, 7)`` int64 in :data:`SEQUENCE_FAMILIES` order. ``mori`` is U5 (see the
    module docstring); ``doubling`` matters only for ``mori="best"``, which compares totals.
    """
    m, single = _masks(sets)
    return _out(_sequence_lengths(m, mori, doubling), single)


def sequence_points(sets: np.ndarray, *, mori: str = "both", doubling: bool = True) -> np.ndarray:
    """The side's sequence total (§6.3, §6.2): Σ 5·(L − 1), doubled with 3+ valid sequences.

    ``(R, 62)`` -> ``(R,)`` int64.
    """
    m, single = _masks(sets)
    return _out(_sequence_total(_sequence_lengths(m, mori, doubling), doubling), single)


def combination_points(sets: np.ndarray, *, mori: str = "both", doubling: bool = True) -> np.ndarray:
    """Cricche + sequences of each set (§6), each doubled on its own (§6.2): ``(R, 62)`` -> ``(R,)`` int64.

    This is the combination part of a side's hand score (§8.3), and the value of a declaration
    made from a hand (§7).
    """
    m, single = _masks(sets)
    _check_mori(mori)
    out = np.zeros(len(m), dtype=np.int64)
    _points_rows(np.ascontiguousarray(m), MORI_CODE[mori], bool(doubling), out)
    return _out(out, single)


# --------------------------------------------------------------------------- one set, for explanations
@dataclass(frozen=True)
class CombinationBreakdown:
    """The combinations of one set of cards, family by family (§6), for tests and explanations.

    ``cricca_points`` and ``sequence_points`` are per family before any doubling;
    ``cricche_total`` and ``sequences_total`` after it. ``criccone`` says the set holds 3 or
    more cricche; ``cricche_doubled`` and ``sequences_doubled`` whether the totals were doubled
    (never with ``doubling=False``). ``sequence_lengths`` is L of each valid
    sequence, 0 for a family with none. ``scavezza`` is the Pisarri number of the trump that
    broke the Grande, ``None`` when there is no Grande or its chain passed the 5.
    """

    cricca_counts: dict[str, int]
    cricca_points: dict[str, int]
    criccone: bool
    cricche_doubled: bool
    cricche_total: int
    sequence_lengths: dict[str, int]
    sequence_points: dict[str, int]
    sequences_doubled: bool
    sequences_total: int
    scavezza: int | None
    total: int


def _card_set(cards: np.ndarray | Iterable[int | str]) -> set[int]:
    if isinstance(cards, np.ndarray) and cards.dtype == bool:
        if cards.shape != (NUM_CARDS,):
            raise ValueError(f"one card set is a bool mask of shape ({NUM_CARDS},), got {cards.shape}")
        return {int(c) for c in np.flatnonzero(cards)}
    ids = [BOLOGNESE_DECK.parse(c) if isinstance(c, str) else int(c) for c in cards]
    if len(set(ids)) != len(ids) or any(not 0 <= c < NUM_CARDS for c in ids):
        raise ValueError(f"a card set holds distinct card ids 0..{NUM_CARDS - 1}, got {ids}")
    return set(ids)


def breakdown(cards: np.ndarray | Iterable[int | str], *, mori: str = "both", doubling: bool = True) -> CombinationBreakdown:
    """The combinations of one set of cards (§6), family by family, from the batch functions.

    ``cards``: a ``(62,)`` bool mask, or card ids or notation (``["KS", "QS", "NS"]``).
    Options as in the module docstring (``mori``: U5, ``doubling``: U6).
    """
    _check_mori(mori)
    m = np.zeros((1, NUM_CARDS), dtype=bool)
    m[0, sorted(_card_set(cards))] = True
    counts = _cricca_counts(m)[0]
    cricca = _cricca_family_points(counts[None])[0]
    criccone = int(np.count_nonzero(counts >= 3)) >= DOUBLING_COUNT
    lengths = _sequence_lengths(m, mori, doubling)[0]
    n_valid = int(np.count_nonzero(lengths))
    cricche_total = int(cricca.sum()) * (2 if doubling and criccone else 1)
    sequences_total = int(_sequence_total(lengths[None], doubling)[0])
    scavezza = int(_scavezza(m)[0]) if lengths[0] else -1
    return CombinationBreakdown(
        cricca_counts={name: int(n) for name, n in zip(CRICCA_FAMILIES, counts)},
        cricca_points={name: int(p) for name, p in zip(CRICCA_FAMILIES, cricca)},
        criccone=criccone,
        cricche_doubled=doubling and criccone,
        cricche_total=cricche_total,
        sequence_lengths={name: int(n) for name, n in zip(SEQUENCE_FAMILIES, lengths)},
        sequence_points={name: SEQUENCE_STEP * (int(n) - 1) if n else 0 for name, n in zip(SEQUENCE_FAMILIES, lengths)},
        sequences_doubled=doubling and n_valid >= DOUBLING_COUNT,
        sequences_total=sequences_total,
        scavezza=None if scavezza < 0 else scavezza,
        total=cricche_total + sequences_total,
    )


# --------------------------------------------------------------------------- the table's shortcuts
def _complementary(side: np.ndarray, other: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    s, single = _masks(side)
    o, _ = _masks(other)
    if s.shape != o.shape:
        raise ValueError(f"side and other must have the same shape, got {s.shape} and {o.shape}")
    if np.any(s & o) or not np.all(s | o):
        raise ValueError("the shortcuts hold only for two sides that share the whole pack between them (every card in exactly one set)")
    return s, o, single


def barilli_cricche(side: np.ndarray, other: np.ndarray, *, doubling: bool = True) -> np.ndarray:
    """Barilli's shortcut (§6.1): the side's cricca total, worked out from the **other** side's pile.

    Undoubled total = 148 − Σ over the families of min(cards of the family the other side
    holds, 2) × the family's 3-card value; the side has a cricca in a family where the other
    holds at most one card, and doubles with 3 or more. ``side`` and ``other`` must share the
    62 cards between them (an Ottocento hand); ``side`` is used only to check that. Returns (R,).
    """
    _, o, single = _complementary(side, other)
    held_by_other = o[:, CRICCA_CARDS].sum(axis=-1, dtype=np.int64)
    undoubled = MEZZO_CRICCONE - (np.minimum(held_by_other, 2) * CRICCA_VALUE).sum(axis=-1)
    return _out(_doubled(undoubled, np.count_nonzero(held_by_other <= 1, axis=-1), doubling), single)


def pisarri_grande(side: np.ndarray, other: np.ndarray) -> np.ndarray:
    """Pisarri's shortcut (§6.3): the Grande of the side holding the Angelo, from the other side's pile.

    Grande = 105 − 5 × (S + h′ + c′): S the scavezza (the first trump of 16…5 the side neither
    holds nor can fill with a spare contatore; 0 when its chain passes the 5), h′ the trumps
    ranked above S that the other side holds, c′ the contatori it holds. It assumes the head
    is intact (h ≥ 2, or h = 1 with a contatore to fill the second gap); rows where the side
    has no Angelo or a broken head have no Grande and give 0. ``side`` and ``other`` must share
    the 62 cards; ``side`` is used only to check that. Returns (R,) int64.
    """
    _, o, single = _complementary(side, other)
    c_other = o[:, CONTATORI].sum(axis=1, dtype=np.int64)
    C = len(CONTATORI) - c_other  # the side holds every contatore the other does not
    h = len(GRANDE_HEAD) - o[:, GRANDE_HEAD].sum(axis=1, dtype=np.int64)
    intact = ~o[:, ANGELO] & ((h >= 2) | ((h == 1) & (C >= 1)))
    spare = C - np.maximum(0, 2 - h)
    broken = np.cumsum(o[:, SCAVEZZO], axis=1) > spare[:, None]  # the other side's cards are the side's gaps
    S = np.where(broken.any(axis=1), SCAVEZZO_NUMBERS[np.argmax(broken, axis=1)], 0)
    h_other = np.count_nonzero(o & (S[:, None] < _TRUMP_RANK), axis=1)  # ranked above S
    return _out(np.where(intact, GRANDE_FULL - SEQUENCE_STEP * (S + h_other + c_other), 0), single)


# --------------------------------------------------------------------------- the cards a declaration shows
def combination_cards(sets: np.ndarray, *, mori: str = "both", doubling: bool = True) -> np.ndarray:
    """The cards of each set that belong to one of its combinations (§6): ``(R, 62)`` -> ``(R, 62)`` bool.

    A declaration (§7) shows these to the table: the cards of each cricca family held 3 or 4
    times, and the cards of each valid sequence: a suit's Re, figures and Ace; the Grande's
    Angelo, head and the scavezzo numbers its chain reaches (and the Mori it counts); the Mori;
    the Aces; and the contatori, which count in every valid sequence. Options as in
    :func:`sequence_lengths`.
    """
    m, single = _masks(sets)
    _check_mori(mori)
    out = np.zeros_like(m)
    _cards_rows(np.ascontiguousarray(m), MORI_CODE[mori], bool(doubling), out)
    return _out(out, single)


@kernel
def combination_cards_row(m, mori_code, doubling, L, L2, out):
    """:func:`combination_cards` of one set ``m`` (62,) bool into ``out`` (62,) bool, which the
    caller zeroes (only the combinations' cards are written); ``L``, ``L2`` as in
    :func:`combination_points_row`. The one implementation: the batch function loops over it,
    and the declarations made from a hand (:mod:`.claims`) call it row by row."""
    _best_lengths_row(m, mori_code, doubling, L, L2)
    for f in range(CRICCA_CARDS.shape[0]):
        k = 0
        for c in CRICCA_CARDS[f]:
            if m[c]:
                k += 1
        if k >= 3:
            for c in CRICCA_CARDS[f]:
                out[c] = m[c]
    any_sequence = False
    for s in range(4):
        if L[1 + s] > 0:
            any_sequence = True
            out[SUIT_RE[s]] = True
            out[ACES[s]] = m[ACES[s]]
            for k in range(3):
                if m[_SUIT_FIGS[s, k]]:
                    out[_SUIT_FIGS[s, k]] = True
    if L[0] > 0:
        any_sequence = True
        out[ANGELO] = True
        C = 0
        for c in CONTATORI:
            if m[c]:
                C += 1
        h = 0
        for c in GRANDE_HEAD:
            if m[c]:
                h += 1
                out[c] = True
        spare = C - max(0, 2 - h)
        gaps = 0
        numbers = 0
        for c in SCAVEZZO:
            if m[c]:
                out[c] = True
                numbers += 1
            else:
                gaps += 1
                if gaps > spare:
                    break
        if L[0] > 1 + h + numbers + C:  # the Grande counted the Mori past the 5
            for c in MORI_IDS:
                out[c] = m[c]
    if L[5] > 0:
        any_sequence = True
        for c in MORI_IDS:
            out[c] = m[c]
    if L[6] > 0:
        any_sequence = True
        for c in ACES:
            out[c] = m[c]
    if any_sequence:
        for c in CONTATORI:
            out[c] = m[c]


@kernel
def _cards_rows(m, mori_code, doubling, out):
    L = np.zeros(len(SEQUENCE_FAMILIES), dtype=np.int64)
    L2 = np.zeros(len(SEQUENCE_FAMILIES), dtype=np.int64)
    for r in range(m.shape[0]):
        combination_cards_row(m[r], mori_code, doubling, L, L2, out[r])
