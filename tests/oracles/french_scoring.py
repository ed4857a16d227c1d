"""Test oracle: French Tarot scoring before compilation, kept verbatim.

This is ``tarot_env/rules/french/scoring.py`` as it was before the scoring of a deal was
rewritten as a numba-compiled row function (only this docstring's first paragraph is new).
``tests/test_french_scoring_compiled.py`` compares the compiled scoring with this one on
thousands of finished deals, their fields varied to reach every case. It is not part of the
package: no package code imports it. The original docstring follows.

End of deal and scoring (docs/rules/french_tarot.md §7–§9).

Everything is computed in half-points: the attack's card points are the values of the
cards in its piles (tricks, écart or chien as the contract says) plus the Excuse exchange.
The deal is won when they reach the threshold of the attack's bouts (56/51/41/36); the
leftover half point goes to the side that wins the deal (§9.3), so
``d = ceil(|points - threshold|)``. Then

    S = sgn * (25 + d) * m  +  petit_au_bout * 10 * m  +  sgn * poignees  +  chelem

and the taker gets ``(N - 1) * S`` (5 players with a partner: taker 2S, partner S), each
defender pays S. Scores sum to zero.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tarot_env.cards.french import EXCUSE, FRENCH_DECK, IS_BOUT, PETIT
from tarot_env.rules.french.actions import MULTIPLIER, POIGNEE_BONUS
from tarot_env.rules.french.state import Chelem

if TYPE_CHECKING:
    from tarot_env.rules.french.protocol import Rules
    from tarot_env.rules.french.state import FrenchTarotState

#: Points the attack needs with 0, 1, 2, 3 bouts, in half-points (§1).
THRESHOLD_HALF_POINTS = 2 * np.array([56, 51, 41, 36], dtype=np.int64)
_VALUE = FRENCH_DECK.value.astype(np.int64)


def score_deal(g: Rules, s: FrenchTarotState, rows: np.ndarray) -> None:
    """Fill the result fields and ``scores`` of finished deals."""
    T = g.num_tricks
    taker, partner = s.taker[rows], s.partner[rows]
    attack_cards = (s.pile[rows] == taker[:, None]) | (s.pile[rows] == partner[:, None])
    attack_tricks = np.count_nonzero(g.is_attack(s, rows[:, None], s.winners[rows]), axis=1)
    exchange = s.exchange[rows]
    if g.config.unpaid_excuse_debt == "excuse_keeps_value":
        excuse_attack = g.is_attack(s, rows, s.excuse_seat[rows])
        excuse_side_tricks = np.where(excuse_attack, attack_tricks, T - attack_tricks)
        exchange = np.where(excuse_side_tricks == 0, 0, exchange)
    points = attack_cards @ _VALUE + exchange
    bouts = np.count_nonzero(attack_cards & IS_BOUT, axis=1)
    attack_chelem = attack_tricks == T
    defence_chelem = attack_tricks == 0
    pab = _petit_au_bout(g, s, rows, attack_chelem, defence_chelem)
    chelem_pts, chelem_result = chelem_bonus(s.chelem[rows], attack_chelem, defence_chelem, g.config.double_chelem_penalty)
    poignees = POIGNEE_BONUS[s.poignee[rows]].sum(axis=1)
    unit, made = unit_score(s.contract[rows], points, bouts, pab, poignees, chelem_pts)
    s.attack_points[rows] = points
    s.attack_bouts[rows] = bouts
    s.made[rows] = made
    s.petit_au_bout[rows] = pab
    s.chelem_result[rows] = chelem_result
    s.unit[rows] = unit
    s.scores[rows] = share_out(g.num_players, taker, partner, unit)


def unit_score(contract, points, bouts, petit_au_bout, poignees, chelem) -> tuple[np.ndarray, np.ndarray]:
    """§9.1 and §9.3: the unit S (what each defender pays) and whether the contract is made.

    Args (arrays or scalars): ``contract`` 1..4 (petite, garde, garde sans, garde contre);
    ``points`` the attack's card points in **half-points**; ``bouts`` 0..3; ``petit_au_bout``
    +1 attack / -1 defence / 0; ``poignees`` the sum of every poignée bonus shown;
    ``chelem`` the chelem points of :func:`chelem_bonus`.
    """
    threshold = THRESHOLD_HALF_POINTS[np.asarray(bouts)]
    made = np.asarray(points) >= threshold  # "juste fait" is made, by 0
    diff = (np.abs(points - threshold) + 1) // 2  # the leftover half point goes to the winner
    sgn = np.where(made, 1, -1)
    mult = MULTIPLIER[np.asarray(contract)]
    return sgn * (25 + diff) * mult + petit_au_bout * 10 * mult + sgn * poignees + chelem, made


def share_out(n: int, taker: np.ndarray, partner: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """§9.2: each defender pays S; the attack receives the rest (zero sum)."""
    scores = np.repeat(-unit[:, None], n, axis=1)
    r = np.arange(len(unit))
    has_partner = partner >= 0
    scores[r[has_partner], partner[has_partner]] = unit[has_partner]
    scores[r, taker] = 0
    scores[r, taker] = -scores.sum(axis=1)
    return scores


def _petit_au_bout(g: Rules, s: FrenchTarotState, rows, attack_chelem, defence_chelem) -> np.ndarray:
    """§7: +1 if the attack won the last trick with the Petit in it, -1 for the defence.

    In a chelem whose side played the Excuse to the last trick, the Petit counts au bout in
    the penultimate trick (for a defence chelem only with ``petit_au_bout_defence_chelem_shift``).
    """
    T = g.num_tricks
    petit_trick = s.trick_of[rows, PETIT]
    last_attack = g.is_attack(s, rows, s.winners[rows, T - 1])
    pab = np.where(petit_trick == T - 1, np.where(last_attack, 1, -1), 0)
    excuse_last = s.trick_of[rows, EXCUSE] == T - 1
    excuse_attack = g.is_attack(s, rows, s.excuse_seat[rows])
    shift = (petit_trick == T - 2) & excuse_last
    shift_attack = shift & attack_chelem & excuse_attack
    shift_defence = shift & defence_chelem & ~excuse_attack
    if not g.config.petit_au_bout_defence_chelem_shift:
        shift_defence[:] = False
    return np.where(shift_attack, 1, np.where(shift_defence, -1, pab))


def chelem_bonus(announced, attack_chelem, defence_chelem, double_penalty: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """§9.1: +400 announced and made, +200 made unannounced, -200 announced and failed,
    -200 for a defence chelem; both of the last two when ``double_penalty`` (§15.5).

    Returns the points (in S) and the :class:`Chelem` code."""
    announced, attack_chelem, defence_chelem = (np.asarray(x, dtype=bool) for x in (announced, attack_chelem, defence_chelem))
    both = announced & defence_chelem
    pts = (
        np.where(announced, np.where(attack_chelem, 400, -200), np.where(attack_chelem, 200, 0))
        - 200 * (defence_chelem & ~(both & (not double_penalty)))
    )
    # the code of each case; the cases exclude one another except "announced" and "defence"
    result = (
        Chelem.ANNOUNCED_MADE * (announced & attack_chelem)
        + Chelem.UNANNOUNCED_MADE * (~announced & attack_chelem)
        + Chelem.ANNOUNCED_FAILED * (announced & ~attack_chelem & ~defence_chelem)
        + Chelem.DEFENCE * (~announced & defence_chelem)
        + Chelem.ANNOUNCED_FAILED_AND_DEFENCE * both
    )
    return pts, result
