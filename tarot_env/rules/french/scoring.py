"""End of deal and scoring (docs/rules/french_tarot.md §7–§9).

Everything is computed in half-points: the attack's card points are the values of the
cards in its piles (tricks, écart or chien as the contract says) plus the Excuse exchange.
The deal is won when they reach the threshold of the attack's bouts (56/51/41/36); the
leftover half point goes to the side that wins the deal (§9.3), so
``d = ceil(|points - threshold|)``. Then

    S = sgn * (25 + d) * m  +  petit_au_bout * 10 * m  +  sgn * poignees  +  chelem

and the taker gets ``(N - 1) * S`` (5 players with a partner: taker 2S, partner S), each
defender pays S. Scores sum to zero.

Each rule is a function of one deal, as the play's are (:mod:`.play`): :func:`score_row` reads
row ``b`` of the state's blocks and calls :func:`unit_score`, :func:`chelem_bonus` and
:func:`share_row`. numba compiles them (:func:`tarot_env._jit.kernel`) and :func:`score_rows`
scores every deal that ended at a step in one call, on the calling thread, where a batch
statement of the rules makes dozens of NumPy calls (docs/performance.md, "What the kernels
replaced": serial work keeps threads from scaling a vector env).
The same functions run as plain Python when the compiled path is off (``TAROT_ENV_JIT=0``).
``unit_score`` and ``chelem_bonus`` are written in arithmetic that means the same on plain
numbers and on NumPy arrays, so that they also score whole batches (tests, worked examples).
``tests/test_french_scoring_compiled.py`` compares every result field, on thousands of deals,
with a second statement of the rules written from the rules text (``tests/oracles/french_scoring.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tarot_env._jit import kernel
from tarot_env.cards.french import EXCUSE, FRENCH_DECK, IS_BOUT, PETIT
from tarot_env.rules.french.actions import MULTIPLIER, POIGNEE_BONUS
from tarot_env.rules.french.state import COLUMN, Chelem, Phase, Result
from tarot_env.rules.french.teams import is_attack_row

if TYPE_CHECKING:
    from tarot_env.rules.french.protocol import Rules
    from tarot_env.rules.french.state import FrenchTarotState

#: Points the attack needs with 0, 1, 2, 3 bouts, in half-points (§1).
THRESHOLD_HALF_POINTS = 2 * np.array([56, 51, 41, 36], dtype=np.int64)
_VALUE = FRENCH_DECK.value.astype(np.int64)
_IS_BOUT = IS_BOUT.astype(np.int64)
_ANNOUNCED_MADE, _UNANNOUNCED_MADE = Chelem.ANNOUNCED_MADE, Chelem.UNANNOUNCED_MADE
_ANNOUNCED_FAILED, _DEFENCE, _BOTH = Chelem.ANNOUNCED_FAILED, Chelem.DEFENCE, Chelem.ANNOUNCED_FAILED_AND_DEFENCE

# the columns of the fields scoring reads and writes
TAKER, PARTNER, CONTRACT, EXCUSE_SEAT, EXCHANGE = (COLUMN[k] for k in ("taker", "partner", "contract", "excuse_seat", "exchange"))
ATTACK_POINTS, ATTACK_BOUTS, PETIT_AU_BOUT = COLUMN["attack_points"], COLUMN["attack_bouts"], COLUMN["petit_au_bout"]
CHELEM_RESULT, UNIT = COLUMN["chelem_result"], COLUMN["unit"]
CHELEM, MADE = COLUMN["chelem"], COLUMN["made"]
POIGNEE, SCORES = COLUMN["poignee"], COLUMN["scores"]
TRICK_OF, PILE, WINNERS = COLUMN["trick_of"], COLUMN["pile"], COLUMN["winners"]
# the ``opts`` argument (:func:`scoring_options`)
N, NUM_TRICKS, EXCUSE_KEEPS_VALUE, PAB_DEFENCE_CHELEM_SHIFT, DOUBLE_CHELEM_PENALTY = range(5)


def scoring_options(g: Rules) -> np.ndarray:
    """The ``opts`` argument of :func:`score_row` for a game (player count, tricks, rule options)."""
    c = g.config
    return np.array(
        [
            g.num_players,
            g.num_tricks,
            c.unpaid_excuse_debt == "excuse_keeps_value",
            c.petit_au_bout_defence_chelem_shift,
            c.double_chelem_penalty,
        ],
        dtype=np.int64,
    )


# ====================================================================== the rules
def unit_terms(contract, points, bouts, petit_au_bout, poignees, chelem):
    """§9.1 and §9.3 term by term: ``(made, d, m, contract, petit au bout, poignées, chelem)``,
    whether the contract is made, the points over or under the threshold ``d``, the multiplier
    ``m`` and the four terms of S, each signed from the attack's side: ``sgn*(25 + d)*m``,
    ``pab*10*m``, ``sgn*H`` and ``C``. The unit S is their sum (:func:`unit_score`); the terms
    are also what a player is shown of the score (``tarot play``, :func:`score_terms`).

    Args (plain numbers, or arrays that broadcast): ``contract`` 1..4 (petite, garde, garde
    sans, garde contre); ``points`` the attack's card points in **half-points**; ``bouts``
    0..3; ``petit_au_bout`` +1 attack / -1 defence / 0; ``poignees`` the sum of every poignée
    bonus shown; ``chelem`` the chelem points of :func:`chelem_bonus`.
    """
    threshold = THRESHOLD_HALF_POINTS[bouts]
    made = points >= threshold  # "juste fait" is made, by 0
    diff = (abs(points - threshold) + 1) // 2  # the leftover half point goes to the winner
    sgn = 2 * made - 1
    mult = MULTIPLIER[contract]
    return made, diff, mult, sgn * (25 + diff) * mult, petit_au_bout * 10 * mult, sgn * poignees, chelem


def unit_score(contract, points, bouts, petit_au_bout, poignees, chelem):
    """§9.1 and §9.3: the unit S (what each defender pays) and whether the contract is made:
    the sum of :func:`unit_terms` (the same arguments)."""
    made, _, _, base, pab, poignee, chelem_points = unit_terms(contract, points, bouts, petit_au_bout, poignees, chelem)
    return base + pab + poignee + chelem_points, made


def chelem_bonus(announced, attack_chelem, defence_chelem, double_penalty=True):
    """§9.1: +400 announced and made, +200 made unannounced, -200 announced and failed,
    -200 for a defence chelem; both of the last two when ``double_penalty`` (§15.5).

    Returns the points (in S) and the :class:`Chelem` code. Args are bools (plain, or arrays
    that broadcast); the cases exclude one another except "announced" and "defence"."""
    a, made, lost = 1 * announced, 1 * attack_chelem, 1 * defence_chelem
    points = a * (600 * made - 200) + (1 - a) * 200 * made - 200 * lost * (1 - a * (1 - 1 * double_penalty))
    code = (
        _ANNOUNCED_MADE * a * made
        + _UNANNOUNCED_MADE * (1 - a) * made
        + _ANNOUNCED_FAILED * a * (1 - made) * (1 - lost)
        + _DEFENCE * (1 - a) * lost
        + _BOTH * a * lost
    )
    return points, code


@kernel(inline=True)
def share_row(n, taker, partner, unit, out):
    """§9.2, one deal: each defender pays S into ``out`` (N,); the taker (and, with 5 players,
    his partner: S) receives the rest (zero sum)."""
    total = 0
    for s in range(n):
        out[s] = -unit
    if partner >= 0:
        out[partner] = unit
    out[taker] = 0
    for s in range(n):
        total += out[s]
    out[taker] = -total


@kernel(inline=True)
def petit_au_bout(b, ints, card_ints, history, attack_chelem, defence_chelem, opts):
    """§7: +1 if the attack won the last trick with the Petit in it, -1 for the defence, else 0.

    In a chelem whose side played the Excuse to the last trick, the Petit counts au bout in
    the penultimate trick (for a defence chelem only with ``petit_au_bout_defence_chelem_shift``).
    """
    T = opts[NUM_TRICKS]
    tk, pt = ints[b, TAKER], ints[b, PARTNER]
    petit_trick = card_ints[b, TRICK_OF, PETIT]
    excuse_attack = is_attack_row(ints[b, EXCUSE_SEAT], tk, pt)
    if petit_trick == T - 2 and card_ints[b, TRICK_OF, EXCUSE] == T - 1:  # the Excuse led or played last
        if attack_chelem and excuse_attack:
            return 1
        if defence_chelem and not excuse_attack and opts[PAB_DEFENCE_CHELEM_SHIFT]:
            return -1
    if petit_trick == T - 1:
        return 1 if is_attack_row(history[b, WINNERS, T - 1], tk, pt) else -1
    return 0


@kernel(inline=True)
def score_row(b, ints, flags, seat_ints, card_ints, history, opts):
    """Fill the result fields and ``scores`` of row ``b``'s finished deal."""
    n, T = opts[N], opts[NUM_TRICKS]
    tk, pt = ints[b, TAKER], ints[b, PARTNER]
    points = 0
    bouts = 0
    for c in range(card_ints.shape[2]):
        owner = card_ints[b, PILE, c]
        if owner == tk or owner == pt:  # noqa: SIM109 (plain comparisons for numba); every card is in a pile by now
            points += _VALUE[c]
            bouts += _IS_BOUT[c]
    attack_tricks = 0
    for k in range(T):
        attack_tricks += is_attack_row(history[b, WINNERS, k], tk, pt)
    exchange = ints[b, EXCHANGE]
    if opts[EXCUSE_KEEPS_VALUE]:  # §15.4: an Excuse whose side won no trick keeps its value
        excuse_side_tricks = attack_tricks if is_attack_row(ints[b, EXCUSE_SEAT], tk, pt) else T - attack_tricks
        if excuse_side_tricks == 0:
            exchange = 0
    points += exchange
    attack_chelem = attack_tricks == T
    defence_chelem = attack_tricks == 0
    pab = petit_au_bout(b, ints, card_ints, history, attack_chelem, defence_chelem, opts)
    chelem_points, chelem_code = _chelem_bonus(flags[b, CHELEM], attack_chelem, defence_chelem, opts[DOUBLE_CHELEM_PENALTY])
    poignees = 0
    for s in range(n):
        poignees += POIGNEE_BONUS[seat_ints[b, POIGNEE, s]]
    made, _, _, base, pab_points, poignee_points, chelem_points = _unit_terms(
        ints[b, CONTRACT], points, bouts, pab, poignees, chelem_points
    )
    unit = base + pab_points + poignee_points + chelem_points  # unit_score, whose terms are compiled here
    ints[b, ATTACK_POINTS] = points
    ints[b, ATTACK_BOUTS] = bouts
    flags[b, MADE] = made
    ints[b, PETIT_AU_BOUT] = pab
    ints[b, CHELEM_RESULT] = chelem_code
    ints[b, UNIT] = unit
    share_row(n, tk, pt, unit, seat_ints[b, SCORES])


@kernel
def score_rows(rows, ints, flags, seat_ints, card_ints, history, opts):
    """:func:`score_row` for each of ``rows``."""
    for i in range(rows.shape[0]):
        score_row(rows[i], ints, flags, seat_ints, card_ints, history, opts)


# compiled copies of the rules that :func:`score_row` calls (``unit_terms``, ``unit_score`` and
# ``chelem_bonus`` stay Python functions as well, for callers with arrays)
_unit_terms = kernel(unit_terms, inline=True)
_chelem_bonus = kernel(chelem_bonus, inline=True)


# ====================================================================== what the game calls
def score_deal(g: Rules, s: FrenchTarotState, rows: np.ndarray) -> None:
    """Fill the result fields and ``scores`` of the finished deals ``rows`` (:func:`score_row`)."""
    b = s.blocks
    score_rows(rows, b["ints"], b["flags"], b["seat_ints"], b["card_ints"], b["history"], g.scoring_options)


def share_out(n: int, taker: np.ndarray, partner: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """(R, N): :func:`share_row` of each deal (§9.2)."""
    scores = np.zeros((len(unit), n), dtype=np.int64)
    for i in range(len(unit)):
        share_row(n, int(taker[i]), int(partner[i]), int(unit[i]), scores[i])
    return scores


def score_terms(g: Rules, s: FrenchTarotState, row: int) -> dict[str, int | bool]:
    """The unit S of ``row``'s finished, played deal term by term (:func:`unit_terms`), from the
    results :func:`score_row` stored (points, bouts, petit au bout, chelem) and the poignées
    shown: ``made``, ``threshold`` (points, §1), ``difference`` (§9.3), ``multiplier``, the
    terms ``contract``, ``petit_au_bout``, ``poignees``, ``chelem`` (signed from the attack's
    side) and ``unit``. What ``tarot play`` shows at the end of a deal, so that the breakdown
    is the score's own, not a second computation of it.

    Raises ``ValueError`` for a deal that is not over or was not played (thrown in, petit sec),
    which has no score to break down."""
    if int(s.result[row]) != Result.PLAYED or int(s.phase[row]) != Phase.DONE:
        raise ValueError(
            f"row {row} holds no played, finished deal (result {Result.name(int(s.result[row]))}): it has no score to break down"
        )
    code = int(s.chelem_result[row])
    attack_chelem = code in (_ANNOUNCED_MADE, _UNANNOUNCED_MADE)
    defence_chelem = code in (_DEFENCE, _BOTH)
    chelem_points, _ = chelem_bonus(bool(s.chelem[row]), attack_chelem, defence_chelem, g.config.double_chelem_penalty)
    poignees = int(POIGNEE_BONUS[s.poignee[row]].sum())
    bouts = int(s.attack_bouts[row])
    made, diff, mult, base, pab, poignee, chelem = unit_terms(
        int(s.contract[row]), int(s.attack_points[row]), bouts, int(s.petit_au_bout[row]), poignees, chelem_points
    )
    terms = {"contract": int(base), "petit_au_bout": int(pab), "poignees": int(poignee), "chelem": int(chelem)}
    unit = int(s.unit[row])
    if sum(terms.values()) != unit:  # the terms are the scoring's own: they cannot differ from the S it stored
        raise AssertionError(f"the terms {terms} of row {row} do not add up to its unit S = {unit}")
    threshold = int(THRESHOLD_HALF_POINTS[bouts]) // 2
    return {"made": bool(made), "threshold": threshold, "difference": int(diff), "multiplier": int(mult), **terms, "unit": unit}
