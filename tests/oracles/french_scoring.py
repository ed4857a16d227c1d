"""Test oracle: the end of a French Tarot deal, written again from the rules text (docs/rules/french_tarot.md §6.3, §7–§9, §15).

Not a copy of the engine: each rule is stated here from its section, one deal at a time in
plain Python, with its own table of card values and bouts read from the cards' names, so that a
mistake in ``tarot_env/rules/french/scoring.py`` (numba row functions over the state's blocks)
is not repeated here. ``tests/test_french_scoring_compiled.py`` scores thousands of finished
deals, their fields varied to reach every case, both ways, and compares every field.

What a finished deal hands over (the state's fields, read row by row): who won each card
(``pile``: the tricks, and the écart or chien already given to the side §4 gives it to), who
won each trick (``winners``), in which trick the Petit and the Excuse were played
(``trick_of``) and by whom the Excuse (``excuse_seat``), the Excuse exchange owed to the attack
in half-points (``exchange``, §6.3), the chelem announcement, the poignées shown (their level
per seat), the contract, the taker and his partner (-1: none).

The arithmetic is in half-points, as §1 says the engine keeps them: bout or King 9, Queen 7,
Knight 5, Jack 3, any other card 1 (the deck: 182).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tarot_env.cards.french import FRENCH_DECK

if TYPE_CHECKING:
    from tarot_env.rules.french.protocol import Rules
    from tarot_env.rules.french.state import FrenchTarotState

# §1: the bouts are the 21, the Petit and the Excuse; a card's value by its rank, in half-points
BOUT_NAMES = ("T1", "T21", "EX")
RANK_HALF_POINTS = {"K": 9, "Q": 7, "N": 5, "J": 3}  # King, Queen, kNight, Jack
NAMES = list(FRENCH_DECK.names)
PETIT, EXCUSE = NAMES.index("T1"), NAMES.index("EX")


def half_points(name: str) -> int:
    """§1's table: a bout or a King 4.5, a Queen 3.5, a Knight 2.5, a Jack 1.5, any other card 0.5."""
    if name in BOUT_NAMES:
        return 9
    return RANK_HALF_POINTS.get(name[0], 1) if not name.startswith("T") else 1


VALUE = [half_points(c) for c in NAMES]
IS_BOUT = [c in BOUT_NAMES for c in NAMES]
assert sum(VALUE) == 182 and sum(IS_BOUT) == 3  # §1: the deck is worth 91 points

#: §1: the points the attack needs with 0, 1, 2, 3 bouts
NEEDED = (56, 51, 41, 36)
#: §3: the multiplier of Petite, Garde, Garde sans, Garde contre (contract codes 1..4)
MULTIPLIER = {1: 1, 2: 2, 3: 4, 4: 6}
#: §5.2: a simple, double or triple poignée (levels 1..3) is worth 20, 30, 40
POIGNEE = {0: 0, 1: 20, 2: 30, 3: 40}

#: the chelem outcomes (the state's ``chelem_result`` codes, rules/french/state.py ``Chelem``)
NONE, ANNOUNCED_MADE, UNANNOUNCED_MADE, ANNOUNCED_FAILED, DEFENCE, ANNOUNCED_FAILED_AND_DEFENCE = range(6)


def chelem_points(announced: bool, attack_chelem: bool, defence_chelem: bool, double_penalty: bool = True) -> tuple[int, int]:
    """§9.1's C and its outcome: +400 announced and made, +200 made unannounced, -200 announced
    and failed, -200 made by the defence; an announced chelem that fails while the defence makes
    one costs both (-400) or, as TarotClub counts it, -200 once (§15.5)."""
    if attack_chelem:
        return (400, ANNOUNCED_MADE) if announced else (200, UNANNOUNCED_MADE)
    if announced and defence_chelem:
        return (-400 if double_penalty else -200), ANNOUNCED_FAILED_AND_DEFENCE
    if announced:
        return -200, ANNOUNCED_FAILED
    if defence_chelem:
        return -200, DEFENCE
    return 0, NONE


def unit(contract: int, points: int, bouts: int, petit_au_bout: int, poignees: int, chelem: int) -> tuple[int, bool]:
    """§9.1 with §9.3: S, what each defender pays, and whether the deal is won. ``points`` in
    half-points after the Excuse exchange; the deal is won at the threshold ("juste fait", by
    0); a half point left over goes to the side that wins the deal, so the difference is
    rounded up; the petit au bout (+1 attack, -1 defence) is worth 10 and multiplied; the
    poignées go, unmultiplied, to the side that wins; the chelem is added as it is."""
    needed = 2 * NEEDED[bouts]
    won = points >= needed
    d = -(-abs(points - needed) // 2)  # ceil(|P - T|), in whole points
    m = MULTIPLIER[contract]
    sign = 1 if won else -1
    return sign * (25 + d) * m + 10 * petit_au_bout * m + sign * poignees + chelem, won


def shares(n: int, taker: int, partner: int, s: int) -> list[int]:
    """§9.2: each defender pays S, the partner (5 players) receives S, the taker the rest:
    +2S with 3 players, +3S with 4, +2S with a partner or +4S alone with 5. The sum is zero."""
    out = [-s] * n
    if partner >= 0 and partner != taker:
        out[partner] = s
    out[taker] = 0
    out[taker] = -sum(out)
    return out


def score_row(g: Rules, st: FrenchTarotState, b: int) -> dict[str, int]:
    """Every result field of deal ``b``, from §6.3 (the Excuse), §7 (petit au bout), §8 (points
    and bouts) and §9 (the score)."""
    n, T, c = g.num_players, g.num_tricks, g.config
    taker, partner = int(st.taker[b]), int(st.partner[b])
    attack = {taker} | ({partner} if partner >= 0 else set())
    winners = [int(w) for w in st.winners[b]]
    attack_tricks = sum(w in attack for w in winners)
    attack_chelem, defence_chelem = attack_tricks == T, attack_tricks == 0
    # §8: the attack's cards (tricks and, as the contract says, écart or chien) and the exchange
    mine = [card for card in range(len(NAMES)) if int(st.pile[b, card]) in attack]
    exchange = int(st.exchange[b])
    excuse_by = int(st.excuse_seat[b])
    if c.unpaid_excuse_debt == "excuse_keeps_value" and excuse_by >= 0:
        # §6.3, §15.4's alternative: a side that wins no trick never pays for its Excuse, which keeps its 4.5
        its_tricks = attack_tricks if excuse_by in attack else T - attack_tricks
        if its_tricks == 0:
            exchange = 0
    points = sum(VALUE[card] for card in mine) + exchange
    bouts = sum(IS_BOUT[card] for card in mine)
    # §7: the Petit in the last trick: the side that wins that trick; with a chelem whose side
    # played the Excuse to the last trick, the Petit in the trick before it (a defence chelem:
    # only with §15.12's default)
    petit_trick, excuse_trick = int(st.trick_of[b, PETIT]), int(st.trick_of[b, EXCUSE])
    pab = 0
    if petit_trick == T - 1:
        pab = 1 if winners[T - 1] in attack else -1
    if petit_trick == T - 2 and excuse_trick == T - 1 and excuse_by >= 0:
        if attack_chelem and excuse_by in attack:
            pab = 1
        elif defence_chelem and excuse_by not in attack and c.petit_au_bout_defence_chelem_shift:
            pab = -1
    chelem, outcome = chelem_points(bool(st.chelem[b]), attack_chelem, defence_chelem, c.double_chelem_penalty)
    poignees = sum(POIGNEE[int(level)] for level in st.poignee[b])
    s, won = unit(int(st.contract[b]), points, bouts, pab, poignees, chelem)
    return {
        "attack_points": points,
        "attack_bouts": bouts,
        "made": won,
        "petit_au_bout": pab,
        "chelem_result": outcome,
        "unit": s,
        "scores": shares(n, taker, partner, s),
    }


def score_deal(g: Rules, st: FrenchTarotState, rows: np.ndarray) -> None:
    """Write the result fields of the finished deals ``rows`` (the engine's ``score_deal`` does the same)."""
    for b in np.asarray(rows).tolist():
        for name, value in score_row(g, st, b).items():
            getattr(st, name)[b] = value


def unit_score(contract, points, bouts, petit_au_bout, poignees, chelem) -> tuple[np.ndarray, np.ndarray]:
    """:func:`unit` over arrays (element by element): (S, won)."""
    rows = [unit(*map(int, args)) for args in zip(contract, points, bouts, petit_au_bout, poignees, chelem)]
    return np.array([r[0] for r in rows], dtype=np.int64), np.array([r[1] for r in rows], dtype=bool)


def chelem_bonus(announced, attack_chelem, defence_chelem, double_penalty: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """:func:`chelem_points` over arrays: (C, outcome)."""
    rows = [chelem_points(bool(a), bool(x), bool(d), double_penalty) for a, x, d in zip(announced, attack_chelem, defence_chelem)]
    return np.array([r[0] for r in rows], dtype=np.int64), np.array([r[1] for r in rows], dtype=np.int64)


def share_out(n: int, taker: np.ndarray, partner: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """:func:`shares` for each row: (R, n)."""
    return np.array([shares(n, int(t), int(p), int(s)) for t, p, s in zip(taker, partner, unit)], dtype=np.int64).reshape(len(unit), n)
