"""Test oracles: the claim and auction rules of the Tarocchino games stated for a whole hand at once.

The envs run these rules one decision at a time, in ``tarot_env/rules/bolognese/claims.py``
(``_claim_offer``: the claim windows, *Chiamarsi Fuori*, §8.4, §11.3, §12.3, §13) and
``tarot_env/rules/bolognese/auction.py`` (``_auction``: the Terziglio auction, §10.3). The functions below say the same rules a
second, independent way — batch arithmetic over a whole hand — so that tests can check the
engine against them (tests/test_tarocchino_engine.py, tests/test_bolognese_scoring.py). They
are not part of the package: a rule lives once in the code that runs it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from oracles.tarocchino_scoring import OTTOCENTO_TARGET, QUINDICI_TARGET
from tarot_env.rules.bolognese.scoring import (
    DI_MIO,
    NO_CONTRACT,
    SU,
    _check_option,
    _int_rows,
    quindici_round,
)
from tarot_env.rules.bolognese.settlement import PLAY_ON

#: The calls of the Terziglio auction (§10.3), as :func:`terziglio_auction` reads them.
PASSO, POSSO, VA_BENE, FACCIO_DI_MIO = "passo", "posso", "va bene", "faccio di mio"

#: The claim opportunities of Ottocento in the order they come (§8.4 steps 1–5).
OTTOCENTO_CLAIMS = ("dealer_before_pickup", "primo", "dealer_partner", "primo_partner", "dealer")
#: The claim opportunities of the two-player games (§11.3, §12.3, U21, U8).
DUEL_CLAIMS = ("dealer_before_pickup", "opponent", "dealer")
WRONG_CLAIM_OPTIONS = ("refused", "loses")
QUINDICI_CLAIM_OPTIONS = ("declaration", "raw_sum")


# --------------------------------------------------------------------------- claims (§8.4)
@dataclass(frozen=True)
class Claims:
    """The claim opportunities of one hand, in the order they come: fields (R, K).

    ``names`` (K,) the opportunities (:data:`OTTOCENTO_CLAIMS` or :data:`DUEL_CLAIMS`);
    ``side`` the side (or player) who would claim; ``value`` the running total plus the
    declaration that opportunity may use, compared with ``target``; ``allowed`` whether the
    claim is correct (value ≥ target, and the opportunity exists under the options).
    """

    names: tuple[str, ...]
    side: np.ndarray
    value: np.ndarray
    allowed: np.ndarray
    target: int

    def first(self) -> np.ndarray:
        """(R,) the earliest opportunity at which a correct claim can be made, -1 for none."""
        return np.where(self.allowed.any(axis=1), np.argmax(self.allowed, axis=1), -1)


def ottocento_claims(
    totals: np.ndarray,
    dealer: np.ndarray,
    pickup_declaration: np.ndarray,
    declarations: np.ndarray,
    *,
    target: int = OTTOCENTO_TARGET,
    dealer_claims_after_pickup: bool = True,
    partner_needs_own_declaration: bool = False,
) -> Claims:
    """*Chiamarsi Fuori* in Ottocento (§8.4): who may claim, at which step, with what sum.

    ``totals`` (R, 2) the sides' running totals before this hand (side = seat % 2);
    ``dealer`` (R,) seat; ``pickup_declaration`` (R,) the declaration value of the dealer's
    first 15 cards (before he picks up the last 2); ``declarations`` (R, 4) by seat, the
    value each player declared at his first turn (0 if he declared nothing). The steps:

    1. ``dealer_before_pickup``: dealer's side total + his first-15 declaration;
    2. ``primo`` (dealer + 1): his side's total + his own declaration;
    3. ``dealer_partner`` (dealer + 2): his side's total + his own declaration;
    4. ``primo_partner`` (dealer + 3): his side's total + the Primo's declaration + his own
       (U23: he may do so whatever his own is worth, 0 included; with
       ``partner_needs_own_declaration=True`` he must have declared something);
    5. ``dealer`` (Ultimo di Mano): his side's total + his own declaration, **never** his
       partner's (§8.4.5); U8 (``dealer_claims_after_pickup``, default True) lets him claim
       with his own alone; False: not at all.

    The claim is correct when the sum reaches ``target`` (800; 1000 and 1500 at some tables)
    and the declaration it uses is worth more than 0 (U28: one claims *with* declared
    combinations, so a total already past the target, after U9's tie, is not enough alone).
    """
    tot = _int_rows(totals, "totals", (len(np.asarray(dealer)), 2))
    R = len(tot)
    d = _int_rows(dealer, "dealer", (R,))
    if np.any((d < 0) | (d > 3)):
        raise ValueError(f"dealer must be a seat 0..3, got {d.tolist()}")
    pick = _int_rows(pickup_declaration, "pickup_declaration", (R,))
    dec = _int_rows(declarations, "declarations", (R, 4))
    if np.any(pick < 0) or np.any(dec < 0):
        raise ValueError("declarations are never negative")
    rows = np.arange(R)
    seat = (d[:, None] + np.array([0, 1, 2, 3, 0])) % 4  # the claimant of each step
    side = seat % 2
    side_total = tot[rows[:, None], side]
    primo, dp, pp = (d + 1) % 4, (d + 2) % 4, (d + 3) % 4
    own = np.stack([pick, dec[rows, primo], dec[rows, dp], dec[rows, primo] + dec[rows, pp], dec[rows, d]], axis=1)
    value = side_total + own
    allowed = (value >= target) & (own > 0)  # U28: a claim is made with a declaration worth more than 0
    if partner_needs_own_declaration:
        allowed[:, 3] &= dec[rows, pp] > 0
    if not dealer_claims_after_pickup:
        allowed[:, 4] = False
    return Claims(OTTOCENTO_CLAIMS, side, value, allowed, int(target))


def duel_claims(
    totals: np.ndarray,
    dealer: np.ndarray,
    pickup_declaration: np.ndarray,
    declarations: np.ndarray,
    *,
    target: int,
    dealer_claims_after_pickup: bool = True,
) -> Claims:
    """*Chiamarsi Fuori* in Millone and Centocinquanta (§11.3, §12.3, U21, U22): (R, 3) fields.

    ``totals`` (R, 2) by player; ``dealer`` (R,) 0 or 1; ``pickup_declaration`` (R,) the value
    of the dealer's first 20 (Millone) or 15 (Centocinquanta) cards; ``declarations`` (R, 2) by
    player, what each may use later: the opponent's at his first turn (Millone: right after the
    dealer picks up, with his 20 cards), the dealer's at his first turn. Only first-deal cards
    may serve a claim in Millone (§11.6): the caller values those. Steps: the dealer before
    picking up, the opponent, the dealer again with his own declaration (U8, U21;
    ``dealer_claims_after_pickup=False``: not at all). ``target``: 1000 (Millone), 150
    (151, 200) for Centocinquanta. A claim needs a declaration worth more than 0 (U28).

    Millone's opponent also has a window at his own first turn (U29), with the first-deal cards
    he still holds after his discards (a part of his 20 cards); it is not a step here: to
    state it, call again with that value as his declaration.
    """
    tot = _int_rows(totals, "totals", (len(np.asarray(dealer)), 2))
    R = len(tot)
    d = _int_rows(dealer, "dealer", (R,))
    if np.any((d < 0) | (d > 1)):
        raise ValueError(f"dealer must be player 0 or 1, got {d.tolist()}")
    pick = _int_rows(pickup_declaration, "pickup_declaration", (R,))
    dec = _int_rows(declarations, "declarations", (R, 2))
    if np.any(pick < 0) or np.any(dec < 0):
        raise ValueError("declarations are never negative")
    return _duel(tot, d, np.stack([pick, dec[np.arange(R), 1 - d], dec[np.arange(R), d]], axis=1), target, dealer_claims_after_pickup)


def _duel(tot: np.ndarray, d: np.ndarray, own: np.ndarray, target: int, dealer_again: bool) -> Claims:
    R = len(tot)
    side = np.stack([d, 1 - d, d], axis=1)
    value = tot[np.arange(R)[:, None], side] + own
    allowed = (value >= target) & (own > 0)  # U28
    if not dealer_again:
        allowed[:, 2] = False
    return Claims(DUEL_CLAIMS, side, value, allowed, int(target))


def quindici_claims(
    totals: np.ndarray,
    dealer: np.ndarray,
    pickup_declaration: np.ndarray,
    declarations: np.ndarray,
    *,
    target: int = QUINDICI_TARGET,
    dealer_claims_after_pickup: bool = True,
    claim_rounding: str = "declaration",
    raw_totals: np.ndarray | None = None,
) -> Claims:
    """*Chiamarsi Fuori* in Quindici (§13, U15, U24): as :func:`duel_claims` on rounded values.

    ``totals`` (R, 2) the players' running totals in rounded points (sums of q of each hand);
    ``declarations`` raw points. ``claim_rounding`` ``"declaration"`` (U24 default): claim when
    total + q(declaration) ≥ target. Rounding "the sum" instead gives the same thing when the
    total is read back as 10·total points (q(10t + d) = t + q(d)); U24's alternative differs
    only on raw running totals, ``"raw_sum"``: q(raw total + declaration) ≥ target, where
    ``raw_totals`` (R, 2) are the sums of the unrounded hand scores (the caller keeps them).
    ``value`` is then in rounded points.
    """
    _check_option(claim_rounding, QUINDICI_CLAIM_OPTIONS, "claim_rounding", "U24")
    tot = _int_rows(totals, "totals", (len(np.asarray(dealer)), 2))
    R = len(tot)
    d = _int_rows(dealer, "dealer", (R,))
    if np.any((d < 0) | (d > 1)):
        raise ValueError(f"dealer must be player 0 or 1, got {d.tolist()}")
    pick = _int_rows(pickup_declaration, "pickup_declaration", (R,))
    dec = _int_rows(declarations, "declarations", (R, 2))
    if np.any(pick < 0) or np.any(dec < 0):
        raise ValueError("declarations are never negative")
    rows = np.arange(R)
    own_raw = np.stack([pick, dec[rows, 1 - d], dec[rows, d]], axis=1)
    if claim_rounding == "declaration":
        return _duel(tot, d, quindici_round(own_raw), target, dealer_claims_after_pickup)
    if raw_totals is None:
        raise ValueError("claim_rounding='raw_sum' needs raw_totals, the players' unrounded running totals")
    raw = _int_rows(raw_totals, "raw_totals", (R, 2))
    side = np.stack([d, 1 - d, d], axis=1)
    value = quindici_round(raw[rows[:, None], side] + own_raw)
    allowed = (value >= target) & (own_raw > 0)  # U28
    if not dealer_claims_after_pickup:
        allowed[:, 2] = False
    return Claims(DUEL_CLAIMS, side, value, allowed, int(target))


def claim_outcome(claims: Claims, claimed: np.ndarray, *, wrong_claim: str = "refused") -> np.ndarray:
    """What a claim does (§8.4): (R,) the side that wins the game, or :data:`PLAY_ON`.

    ``claimed`` (R,) the opportunity at which a claim is made (an index into
    ``claims.names``), -1 where nobody claims. A correct claim ends the game at once: the
    claiming side wins, and the hand is not played out. The spec says nothing of a wrong
    claim (a sum below the target); ``wrong_claim`` ``"refused"`` (default: the claim is not
    accepted and play goes on; an env offers only correct claims) or ``"loses"`` (the
    claiming side loses the game, the usual penalty at Italian tables).
    """
    _check_option(wrong_claim, WRONG_CLAIM_OPTIONS, "wrong_claim", "§8.4 (no U-number)")
    R, K = claims.allowed.shape
    c = _int_rows(claimed, "claimed", (R,))
    if np.any((c < -1) | (c >= K)):
        raise ValueError(f"claimed must be -1 or an opportunity 0..{K - 1}, got {c.tolist()}")
    rows = np.arange(R)
    k = np.maximum(c, 0)
    side = claims.side[rows, k]
    ok = claims.allowed[rows, k]
    out = np.full(R, PLAY_ON, dtype=np.int64)
    out = np.where((c >= 0) & ok, side, out)
    if wrong_claim == "loses":
        out = np.where((c >= 0) & ~ok, 1 - side, out)
    return out


# --------------------------------------------------------------------------- Terziglio auction (§10.3)
def terziglio_auction(calls: Sequence[str], receiver: int = 0) -> tuple[int, int]:
    """The outcome of one Terziglio auction (§10.3, U12): ``(soloist seat, contract)``.

    ``calls`` in the order spoken, from ``receiver`` (seats 0..2; the next speaker is the
    previous one's right, seat + 1). A speaker says :data:`PASSO` (the right passes on),
    :data:`FACCIO_DI_MIO` (he plays alone with his own 18 cards: DI_MIO) or :data:`POSSO`; then
    the two others answer in anticlockwise order from the bidder's right (U12), even one who
    has passed: :data:`VA_BENE` or :data:`FACCIO_DI_MIO`. The first refusal makes the refuser
    the soloist, DI_MIO; two acceptances make the bidder go up, SU. Three passes: ``(-1,
    NO_CONTRACT)``, the deal is thrown in (U12). Raises ``ValueError`` on a call out of place
    or calls after the end.
    """
    if receiver not in (0, 1, 2):
        raise ValueError(f"receiver must be a seat 0..2, got {receiver!r}")
    speaker, passes, i = receiver, 0, 0
    calls = [c.strip().lower() for c in calls]

    def finish(result: tuple[int, int], used: int) -> tuple[int, int]:
        if used != len(calls):
            raise ValueError(f"the auction ended after {used} calls; {len(calls) - used} more given: {calls[used:]}")
        return result

    while i < len(calls):
        call = calls[i]
        if call == PASSO:
            passes += 1
            if passes == 3:
                return finish((-1, NO_CONTRACT), i + 1)
            speaker, i = (speaker + 1) % 3, i + 1
        elif call == FACCIO_DI_MIO:
            return finish((speaker, DI_MIO), i + 1)
        elif call == POSSO:
            for k in (1, 2):
                if i + k >= len(calls):
                    raise ValueError("the auction is not finished: a 'posso' waits for two answers")
                answer = calls[i + k]
                if answer == FACCIO_DI_MIO:
                    return finish(((speaker + k) % 3, DI_MIO), i + k + 1)
                if answer != VA_BENE:
                    raise ValueError(f"a 'posso' is answered {VA_BENE!r} or {FACCIO_DI_MIO!r}, got {answer!r}")
            return finish((speaker, SU), i + 3)
        else:
            raise ValueError(f"a speaker says {PASSO!r}, {POSSO!r} or {FACCIO_DI_MIO!r}, got {call!r}")
    raise ValueError("the auction is not finished")
